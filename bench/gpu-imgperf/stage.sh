#!/usr/bin/env bash
# Stages imgperf's final GPU run into DEST (default .gpu-final2/imgperf of this checkout): go.sh,
# imagebench (built here with gcc), and ptxgen/gpu/images_check with the PTX of this checkout's
# ptxgen (images_stage.sh). Run from the repository root after `cargo build --release -p ptxgen`.
set -euo pipefail
R=$(cd "$(dirname "$0")/../.." && pwd)
D=${1:-$(cd "$(dirname "$0")/../.." && pwd)/.gpu-final2/imgperf}
rm -rf "$D"; mkdir -p "$D"
cc -O2 -Wall -o "$D/imagebench" "$R/bench/imagebench.c" -lOpenCL -lm
PTXGEN=${PTXGEN:-$R/target/release/ptxgen} bash "$R/ptxgen/gpu/images_stage.sh" "$D/ic" >/dev/null
rm -f "$D/ic/go.sh"   # go.sh below runs the checker itself, within the time limit
cp "$R/bench/gpu-imgperf/go.sh" "$D/go.sh"
du -sh "$D"
