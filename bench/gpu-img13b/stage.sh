#!/usr/bin/env bash
# Stages img13b's final GPU run into DEST (default .gpu-final/img13b of this checkout): go.sh, imagebench
# and clcalltime.so built here with gcc. The CTS is the lead's, staged beside it (../cts).
set -eu
R=$(cd "$(dirname "$0")/../.." && pwd)
D=${1:-$(cd "$(dirname "$0")/../.." && pwd)/.gpu-final/img13b}
mkdir -p $D
cp $R/bench/gpu-img13b/go.sh $D/go.sh
cc -O2 -Wall -o $D/imagebench $R/bench/imagebench.c -lOpenCL -lm
cc -O2 -Wall -shared -fPIC -o $D/clcalltime.so $R/bench/clcalltime.c -ldl
ls -la $D
