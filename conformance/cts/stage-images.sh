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
# DONE_SUITES=REGEX: only chunks of these suites count as done (the others run again, e.g. the
# suites that run kernels after a change of the kernel code). measured.txt: per chunk the longest
# wall time of a finished run (1.5 x the longest cut one where none finished), for the queue.
rm -f "$out/done.txt" "$out/measured.txt"
if [ $# -gt 0 ]; then
  awk -v re="^(${DONE_SUITES:-images_})" '$3 != "timeout" && $3 != "notrun" && $1 ~ re { n[$1 " " FILENAME]++ }
    END { for (k in n) if (n[k] == 2) { split(k, a, " "); print a[1] } }' "$@" | sort -u > "$out/done.txt"
  awk '$3 == "notrun" { next } $3 == "timeout" { if ($4 * 1.5 > cut[$1]) cut[$1] = $4 * 1.5; next }
    { if ($4 > fin[$1]) fin[$1] = $4; has[$1] = 1 }
    END { for (t in cut) if (!(t in has)) fin[t] = int(cut[t]); for (t in fin) print t, fin[t] + 0 }' "$@" |
    sort > "$out/measured.txt"
  echo "done.txt: $(wc -l < "$out/done.txt") chunks finished on both platforms; measured.txt: $(wc -l < "$out/measured.txt")"
fi
du -sh "$out"
