#!/usr/bin/env bash
# Coverage of the full image plan over several calls: per suite, the chunks that finished and
# passed on both platforms (in any of the calls given, the later call's result winning for a
# chunk run twice), on one only, on neither; and every chunk that failed or crashed anywhere.
#   bash conformance/cts/images-merge.sh conformance/results/ctsimg/costs-call*.txt
# (costs.txt lines: chunk platform status wall-s cpu-s sub-tests; a status other than ok, timeout
# or notrun is a failure: rc=N, crash(SIG...).) It does not know which library each call ran:
# give it only the calls whose results stand for the code in question.
set -u
G=$(cd "$(dirname "$0")" && pwd)
LIST=1 DONE=/dev/null MEASURED=/dev/null bash "$G/gpu-cts-images.sh" |
  awk '!/chunks,/ { split($2, a, "="); print a[1] }' > /tmp/images-merge-all.$$
cat "$@" | awk '
  NR == FNR { all[$1] = 1; next }
  !($1 in all) { next }
  $3 != "notrun" { st[$1 " " $2] = $3 }
  $3 != "ok" && $3 != "timeout" && $3 != "notrun" { bad = bad "\n  " $1 " " $2 " " $3 }
  END {
    for (t in all) {
      c = st[t " cudacl"] == "ok"; n = st[t " nvidia"] == "ok"; split(t, q, ".")
      T[q[1]]++; if (c && n) B[q[1]]++; else if (c) C[q[1]]++; else if (n) N[q[1]]++; else X[q[1]]++
    }
    printf "%-22s %6s %6s %6s %6s %7s\n", "suite", "chunks", "both", "cudacl", "NVIDIA", "neither"
    for (s in T) { printf "%-22s %6d %6d %6d %6d %7d\n", s, T[s], B[s], C[s], N[s], X[s]
      tt += T[s]; tb += B[s]; tc += C[s]; tn += N[s]; tx += X[s] }
    printf "%-22s %6d %6d %6d %6d %7d\n", "all", tt, tb, tc, tn, tx
    print "failed or crashed (chunk platform status):" (bad == "" ? " none" : bad)
  }' /tmp/images-merge-all.$$ -
rm -f /tmp/images-merge-all.$$
