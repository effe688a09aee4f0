#!/usr/bin/env bash
# Stages a CTS run for the GPU machine into DIR (default: .gpu-conf of the checkout that the
# device tool sends): the stripped, xz-compressed release libcudacl.so, libclc's nvptx bitcode,
# the prebuilt CTS (../shared/cts) and gpu-cts.sh. Then, on the GPU machine:
#   bash .gpu-conf/gpu-cts.sh        (carry .gpu-conf)
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-.gpu-conf}
mkdir -p "$out/clc" "$out/cts"
cargo build --release --lib
rm -f "$out/libcudacl.so" "$out/libcudacl.so.xz"
strip -o "$out/libcudacl.so" target/release/libcudacl.so
xz -T2 -3 "$out/libcudacl.so"
cp /usr/lib/clc/nvptx64--nvidiacl.bc "$out/clc/"
cp ../shared/cts/run.sh ../shared/cts/cts-bin.tar.xz "$out/cts/"
cp conformance/cts/gpu-cts.sh "$out/"
du -sh "$out"
