#!/usr/bin/env bash
# Stages the CTS image run for the GPU machine into DIR (default /work/main/.gpu-final/ctsimg):
# go.sh (conformance/cts/images-go.sh), gpu-cts.sh, gpu-cts-images.sh and the prebuilt CTS
# (../shared/cts: run.sh, cts-bin.tar.xz, 4 MiB). The library is the caller's (CUDACL_LIB).
# With costs.txt files of earlier calls after DIR, done.txt names the chunks that finished (passed,
# failed or skipped, not cut by the deadline) on both platforms there, which the next call leaves out.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-/work/main/.gpu-final/ctsimg}; shift || true
mkdir -p "$out/cts"
cp conformance/cts/images-go.sh "$out/go.sh"
cp conformance/cts/gpu-cts.sh conformance/cts/gpu-cts-images.sh "$out/"
cp ../shared/cts/run.sh ../shared/cts/cts-bin.tar.xz "$out/cts/"
rm -f "$out/done.txt"
if [ $# -gt 0 ]; then
  awk '$3 != "timeout" && $3 != "notrun" { n[$1]++ } END { for (t in n) if (n[t] == 2) print t }' "$@" |
    sort > "$out/done.txt"
  echo "done.txt: $(wc -l < "$out/done.txt") chunks finished on both platforms"
fi
du -sh "$out"
