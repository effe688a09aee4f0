#!/usr/bin/env bash
# Stages the several-GPU batch (issue 25) into .gpu-mg/ (ignored by git, carried by the device
# tool to a 2- or 4-GPU machine): the release libcudacl.so, libclc, the suites that run with one
# context over every GPU (buffers, kernels, commands, images), bench/p2pcopy, and run.sh
# (scripts/gpu-multi.sh). Optional, where built locally (third-party, never committed):
#   CTS_DIR=folder of the CTS's run.sh + cts-bin.tar.xz   -> the CTS multi-device/buffer/image rows
#   OMPCL_PB=folder of PolyBench programs translated by ompcl, with their run.sh -> ompcl rows
set -euo pipefail
cd "$(dirname "$0")/.."
out=.gpu-mg
rm -rf "$out"; mkdir -p "$out/bin" "$out/clc"
cargo build --release --lib
strip -o "$out/libcudacl.so" target/release/libcudacl.so
xz -T2 -3 "$out/libcudacl.so"
cp /usr/lib/clc/nvptx64--nvidiacl.bc "$out/clc/"
CFLAGS=(-O2 -g -Wall -DCL_TARGET_OPENCL_VERSION=300 -DCL_USE_DEPRECATED_OPENCL_1_0_APIS
        -DCL_USE_DEPRECATED_OPENCL_1_1_APIS -DCL_USE_DEPRECATED_OPENCL_1_2_APIS -I tests/c)
for src in tests/c/buffers.c tests/c/kernels.c tests/c/commands.c tests/c/images.c bench/p2pcopy.c; do
  cc "${CFLAGS[@]}" "$src" -o "$out/bin/$(basename "$src" .c)" -lOpenCL -lm -lpthread -ldl
done
cp scripts/gpu-multi.sh "$out/run.sh"
if [ -n "${CTS_DIR:-}" ]; then
  mkdir -p "$out/cts"; cp "$CTS_DIR/run.sh" "$CTS_DIR/cts-bin.tar.xz" "$out/cts/"
  cp conformance/cts/gpu-cts.sh "$out/cts/gpu-cts.sh" # beside run.sh: no bin/ there (it would run those too)
fi
if [ -n "${OMPCL_PB:-}" ]; then cp -a "$OMPCL_PB" "$out/ompcl"; fi
du -sh "$out"
