#!/usr/bin/env bash
# Stages the image-speed GPU run into DEST (default /work/main/.gpu-final/imgfilter; go.sh takes
# its name from the folder's): go.sh,
# imagebench and tests/c/images.c built here with gcc, ptxgen/gpu/images_check with the PTX of
# this checkout's ptxgen (images_stage.sh), and with --lib this checkout's release libcudacl.so,
# stripped and xz'd (for a call before the lead's merge; without it go.sh uses $CUDACL_LIB).
# Run from the repository root after `cargo build --release -p ptxgen` (and --lib).
set -euo pipefail
R=$(cd "$(dirname "$0")/../.." && pwd)
lib=0
if [ "${1:-}" = --lib ]; then lib=1; shift; fi
D=${1:-/work/main/.gpu-final/imgfilter}
rm -rf "$D"; mkdir -p "$D"
cc -O2 -Wall -o "$D/imagebench" "$R/bench/imagebench.c" -lOpenCL -lm
cc -O2 -Wall -DCL_TARGET_OPENCL_VERSION=300 -DCL_USE_DEPRECATED_OPENCL_1_0_APIS \
  -DCL_USE_DEPRECATED_OPENCL_1_1_APIS -DCL_USE_DEPRECATED_OPENCL_1_2_APIS -I "$R/tests/c" \
  -o "$D/images" "$R/tests/c/images.c" -lOpenCL -lm -lpthread -ldl
PTXGEN=${PTXGEN:-$R/target/release/ptxgen} bash "$R/ptxgen/gpu/images_stage.sh" "$D/ic" >/dev/null
rm -f "$D/ic/go.sh" "$D/ic/images_check_ocl" # go.sh below runs the checker itself
cp "$R/bench/gpu-imgperf/go.sh" "$D/"
if [ $lib = 1 ]; then
  strip -o "$D/libcudacl.so" "$R/target/release/libcudacl.so"
  xz -T2 -9 "$D/libcudacl.so"
fi
du -sh "$D"
