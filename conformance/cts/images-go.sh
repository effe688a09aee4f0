#!/usr/bin/env bash
# The lead's GPU call for the CTS image suites (staged by conformance/cts/stage-images.sh into
# .gpu-final/ctsimg/): gpu-cts-images.sh on cudacl (CUDACL_LIB) and NVIDIA (NV_LIB) at once.
# The defaults are the final calls' (the cores given, nproc/2 workers per platform: 8 on all 16;
# 525 s; the chunks not in done.txt; measured.txt's times); the work needs two such calls:
#   IMG_PART=1/2 bash .gpu-final/ctsimg/go.sh     then     IMG_PART=2/2 bash .gpu-final/ctsimg/go.sh
# (IMG_PART=1/1, the default, is one queue of everything left, in rounds). Beside benchmarks:
#   IMG_CPUS=4-15 IMG_NICE=10 IMG_JOBS=6 IMG_DEADLINE=255 bash .gpu-final/ctsimg/go.sh
# Prints at most 25 lines: per suite the chunks' results on both platforms, the chunks that differ,
# the totals. Everything else under $OUT/ctsimg/ (table.txt, costs.txt, cts-logs.tgz, clinfo).
set -u
G=$(cd "$(dirname "$0")" && pwd)
O=${OUT:-/tmp/out}/ctsimg; mkdir -p $O
for v in cudacl nvidia; do
  lib=${CUDACL_LIB:-}; [ $v = nvidia ] && lib=${NV_LIB:-}
  [ -n "$lib" ] && env OCL_ICD_FILENAMES=$lib OCL_ICD_VENDORS=${EMPTY:-/nonexistent}/ timeout 10 clinfo > $O/clinfo-$v.txt 2>&1
done
# Without IMG_CPUS the cores are the ones this script was given (the caller's taskset), one worker
# per core and platform: nproc / 2 per platform.
export PLAN=${PLAN:-full} CTS_DIR=$G/cts JOBS=${IMG_JOBS:-$(( $(nproc) / 2 ))} DEADLINE=${IMG_DEADLINE:-525} OUT=$O PART=${IMG_PART:-1/1}
${IMG_CPUS:+taskset -c $IMG_CPUS} nice -n ${IMG_NICE:-0} bash $G/gpu-cts-images.sh > $O/stdout.txt 2> $O/stderr.txt
echo "ctsimg: $(sed -n 2,3p /tmp/ctslogs-images/machine.txt 2>/dev/null | tail -1) PLAN=$PLAN part=$PART jobs=$JOBS deadline=$DEADLINE cpus=$(taskset -pc $$ 2>/dev/null | sed 's/.*: //')"
# per suite: chunks ok/timeout/notrun/other and pass/fail on each platform
awk -F'|' 'NR > 1 && !/^TOTAL/ { split($1, t, "."); s = t[1]
  for (k = 2; k <= 3; k++) { split($k, a, " "); split(a[1], n, "/"); P[s, k] += n[1]; F[s, k] += n[2]
    st = a[2]; if (st != "ok" && st != "timeout" && st != "notrun") st = "other"; C[s, k, st]++ }
  seen[s] = 1 }
  END { printf "%-22s %-34s %s\n", "suite (chunks)", "cudacl ok/timeout/notrun/other p f", "NVIDIA"
    for (s in seen) printf "%-22s %-34s %s\n", s, C[s,2,"ok"]+0 "/" C[s,2,"timeout"]+0 "/" C[s,2,"notrun"]+0 "/" C[s,2,"other"]+0 " " P[s,2]+0 " " F[s,2]+0,
      C[s,3,"ok"]+0 "/" C[s,3,"timeout"]+0 "/" C[s,3,"notrun"]+0 "/" C[s,3,"other"]+0 " " P[s,3]+0 " " F[s,3]+0 }' $O/table.txt 2>/dev/null
# Chunks with a failure, or finished on both platforms with different results (a chunk one
# platform's queue did not reach, or cut by the deadline, is only counted).
awk -F'|' 'NR > 1 && !/^TOTAL/ { split($2, c, " "); split($3, v, " "); split(c[1], cn, "/"); split(v[1], vn, "/")
  fc = c[2] != "timeout" && c[2] != "notrun"; fv = v[2] != "timeout" && v[2] != "notrun"
  if (cn[2] + vn[2] > 0 || (fc && fv && (c[2] != v[2] || cn[1] != vn[1]))) { bad++; if (bad <= 8) rows = rows $0 "\n" }
  else if (fc != fv) one++ }
  END { printf "chunks failed or differing: %d; finished on one platform only: %d\n%s", bad, one, rows }' $O/table.txt 2>/dev/null
grep '^TOTAL' $O/table.txt 2>/dev/null || { echo "no table"; tail -3 $O/stderr.txt; }
