#!/usr/bin/env bash
# Stages the Jetson GPU batch (integrated-GPU modes x Jetson PTX targets on a discrete GPU) into
# DIR (default .gpu-jetson): the release libcudacl.so (xz), libclc, tests/c's buffers and kernels
# programs, ptxtarget, and run.sh. Build the release library first (cargo build --release --lib).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-.gpu-jetson}
rm -rf "$out"; mkdir -p "$out/bin" "$out/clc"
strip -o "$out/libcudacl.so" target/release/libcudacl.so
xz -T2 -3 "$out/libcudacl.so"
cp /usr/lib/clc/nvptx64--nvidiacl.bc "$out/clc/"
CFLAGS=(-O2 -g -Wall -DCL_TARGET_OPENCL_VERSION=300 -DCL_USE_DEPRECATED_OPENCL_1_0_APIS
  -DCL_USE_DEPRECATED_OPENCL_1_1_APIS -DCL_USE_DEPRECATED_OPENCL_1_2_APIS -I tests/c)
for name in buffers kernels; do cc "${CFLAGS[@]}" "tests/c/$name.c" -o "$out/bin/$name" -lOpenCL -lm -lpthread; done
cc -O2 -Wno-deprecated-declarations conformance/jetson/ptxtarget.c -o "$out/bin/ptxtarget" -lOpenCL
cp conformance/jetson/run.sh "$out/run.sh"
du -sh "$out"
