#!/usr/bin/env bash
# The test command: sets up a fresh Debian 12 machine and runs every test of the workspace.
# GPU tests run only where a CUDA GPU is present; elsewhere they print "skipped: no CUDA device".
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export CARGO_TERM_COLOR=never
mkdir -p target
# Two test threads: the machines have two cores and several tests build and link C programs.
cargo test --workspace --no-fail-fast -- --test-threads=2 2>&1 | tee target/test.log
