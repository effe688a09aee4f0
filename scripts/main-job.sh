#!/usr/bin/env bash
# The main job: sets up a fresh Debian 12 machine, builds cudacl and ompcl, translates a bundled
# OpenMP program (MOMP's matrix multiplication) and runs it with its per-region profile: on the
# GPU through cudacl when a CUDA GPU is present, otherwise on PoCL's CPU OpenCL device.
#   scripts/main-job.sh [ompcl/examples/<program>.c]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
program=${1:-ompcl/examples/matmul.c}
cargo build --release -p cudacl -p ompcl
# Register cudacl (and PoCL, the CPU fallback) for this run only, whatever /etc says.
vendors=$(mktemp -d)
echo "$PWD/target/release/libcudacl.so" > "$vendors/cudacl.icd"
[ -f /etc/OpenCL/vendors/pocl.icd ] && cp /etc/OpenCL/vendors/pocl.icd "$vendors/"
export OCL_ICD_VENDORS=$vendors
unset OCL_ICD_FILENAMES
echo "== OpenCL platforms this run sees =="
clinfo -l || true
exe=target/$(basename "$program" .c)
target/release/ompcl -O2 "$program" -o "$exe"
echo "== $exe (OMPCL_PROFILE=1) =="
OMPCL_PROFILE=1 "$exe"
