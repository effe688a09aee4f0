#!/usr/bin/env bash
# Stages the CTS image run for the GPU machine into DIR (default /work/main/.gpu-final/ctsimg):
# go.sh (conformance/cts/images-go.sh), gpu-cts.sh, gpu-cts-images.sh and the prebuilt CTS
# (../shared/cts: run.sh, cts-bin.tar.xz, 4 MiB). The library is the caller's (CUDACL_LIB).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-/work/main/.gpu-final/ctsimg}
mkdir -p "$out/cts"
cp conformance/cts/images-go.sh "$out/go.sh"
cp conformance/cts/gpu-cts.sh conformance/cts/gpu-cts-images.sh "$out/"
cp ../shared/cts/run.sh ../shared/cts/cts-bin.tar.xz "$out/cts/"
du -sh "$out"
