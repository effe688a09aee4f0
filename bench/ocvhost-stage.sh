#!/usr/bin/env bash
# Stages bench/ocvhost-go.sh for the GPU machine: go.sh, cltrace.so, appbench and this checkout's
# libcudacl.so (stripped, xz -9) into <out> (default /work/main/.gpu-final/ocvhost). OpenCV comes
# from the opencv12 folder beside it (bench/opencv/stage.sh), used where it lies.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-/work/main/.gpu-final/ocvhost}
mkdir -p "$out"
rm -f "$out/READY"
cargo build --release --lib
strip -o "$out/libcudacl.so" target/release/libcudacl.so
rm -f "$out/libcudacl.so.xz"
xz -T2 -9 "$out/libcudacl.so"
cc -O2 -Wall -shared -fPIC bench/cltrace.c -o "$out/cltrace.so" -ldl -lpthread -Wl,--no-as-needed -lOpenCL
cc -O2 -Wall bench/appbench.c -o "$out/appbench" -lOpenCL -lm -ldl
cp bench/ocvhost-go.sh "$out/go.sh"
du -sh "$out"
