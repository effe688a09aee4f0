#!/usr/bin/env bash
# The test command: sets up a fresh Debian 12 machine and runs every test of the workspace.
# GPU tests run only where a CUDA GPU is present; elsewhere they print "skipped: no CUDA device".
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export CARGO_TERM_COLOR=never
mkdir -p target
# Style and lints first: rustfmt (rustfmt.toml) and clippy with every warning an error.
for component in rustfmt clippy; do
  rustup component list --installed 2>/dev/null | grep -q "^$component" || rustup component add "$component"
done
echo "test.sh: cargo fmt --check"
cargo fmt --all -- --check
echo "test.sh: cargo clippy -D warnings"
cargo clippy --workspace --release --all-targets -- -D warnings
# Two test threads: the machines have two cores and several tests build and link C programs.
cargo test --workspace --no-fail-fast -- --test-threads=2 2>&1 | tee target/test.log
