#!/usr/bin/env bash
# On the GPU machine: where OpenCV's fixed cost per operation goes, per OpenCL call, on NVIDIA's
# OpenCL and on cudacl ("main": the lead's $CUDACL_LIB; "new": this folder's libcudacl.so.xz when
# staged). Staged by bench/ocvhost-stage.sh as go.sh beside cltrace.so, appbench and
# libcudacl.so.xz; OpenCV (ocvbench, clcount.so) comes from the opencv12 folder next to this one
# (bench/opencv/stage.sh). Prints OpenCV's steady and pipelined times of a few rows on each
# platform (untraced), then per platform and traced operation: steady/enqueue/pipelined us
# (ocvbench's ROW) and the host us per operation of each OpenCL entry point (cltrace, steady
# state; name:us/calls, most first), then appbench's OpenCV-sequence rows. Traces go to
# $OUT/ocvhost/traces.txz.
set -uo pipefail
G=$(cd "$(dirname "$0")" && pwd)
F=${OUT:-/tmp/out}/ocvhost; mkdir -p "$F"
B=/tmp/ocvhost-run; rm -rf $B; mkdir -p $B/bin $B/t
trap 'tar cJf "$F/traces.txz" -C $B t 2>/dev/null' EXIT
tar -xJf "$G/../opencv12/ocv.tar.xz" -C $B/bin
$B/bin/ocvbench --list > /dev/null 2>&1 || export LD_LIBRARY_PATH=$B/bin/fallback
unset OCL_ICD_FILENAMES
mkdir -p $B/v/nvidia $B/v/main $B/v/new
echo "${NV_LIB:-libnvidia-opencl.so.1}" > $B/v/nvidia/nvidia.icd
echo "${CUDACL_LIB:?}" > $B/v/main/cudacl.icd
plats="nvidia main"
if [ -f "$G/libcudacl.so.xz" ]; then
  xz -dc "$G/libcudacl.so.xz" > $B/libcudacl.so && echo $B/libcudacl.so > $B/v/new/cudacl.icd && plats="$plats new"
fi
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } 2>&1 | tr '\n' ' '; echo
export OPENCV_OPENCL_DEVICE=:GPU: OPENCV_OPENCL_CACHE_ENABLE=0 OPENCV_OPENCL_CACHE_WRITE=0
ops=${OPS:-add_16x16_8U,GaussianBlur_3x3_8U}
# Untraced first (OpenCV's own steady/pipelined times, ocvbench as bench/opencv/go.sh runs it):
# the 16x16 add and the rows that were slowest against NVIDIA (call 3 of 2026-11-23).
rows=${ROWS:-add_16x16_8U,add_8U,cvtColor_BGR2GRAY,multiply_32F,transpose_8U,flip_both_8UC3,subtract_32F,GaussianBlur_3x3_8U,sepFilter2D_32F,morphologyEx_open_8U,equalizeHist_8U,calcOpticalFlowPyrLK_500}
for p in $plats; do
  OPENCV_OPENCL_RUNTIME=$B/bin/clcount.so OCL_ICD_VENDORS=$B/v/$p/ CUDACL_CACHE_DIR=$B/cc-$p \
    timeout 60 $B/bin/ocvbench --reps 15 --only $rows > $B/t/rows-$p.out 2> $B/t/rows-$p.err
done
awk -F'\t' 'FNR == 1 { v = FILENAME; sub(/.*rows-/, "", v); sub(/[.]out$/, "", v) }
  $1 == "ROW" { if (!($2 in seen)) { seen[$2] = 1; order[++n] = $2 }; st[v, $2] = $4 * 1000; pp[v, $2] = $11 * 1000; ck[v, $2] = $6 }
  END { printf "%-26s %23s %23s %6s %6s\n", "op (us, steady | pipe)", "nvidia", "main", "new", "new/nv"
    for (i = 1; i <= n; i++) { o = order[i]
      printf "%-26s %6.1f|%5.1f %-2s %6.1f|%5.1f %-2s %6.1f|%5.1f %-2s %5.2f\n", o, st["nvidia", o], pp["nvidia", o], ck["nvidia", o], st["main", o], pp["main", o], ck["main", o], st["new", o], pp["new", o], ck["new", o], (st["nvidia", o] > 0 ? st["new", o] / st["nvidia", o] : 0) } }' \
  $B/t/rows-nvidia.out $B/t/rows-main.out $B/t/rows-new.out 2>&1 | tee $B/t/rows.txt
# us per operation of each entry point over the second half of the run (steady state, both the
# finish-per-call and the pipelined loops, up to the finish after the last launch); the callback's delay after registration.
summ() {
  awk '$4 == "clEnqueueNDRangeKernel" { nd++ } { r[NR] = $0 } END {
    half = nd / 2; k = 0
    for (i = 1; i <= NR; i++) { split(r[i], f, " "); if (f[1] == "SUMMARY") break
      if (f[4] == "clEnqueueNDRangeKernel") k++
      if (k == nd && f[4] == "clFinish") break
      if (k <= half) continue
      t[f[4]] += f[2]; c[f[4]]++; if (f[4] == "(callback)") { d += f[6]; if (f[3] != f0) oth++ } else f0 = f[3] }
    n = nd - half; if (n < 1) n = 1
    m = 0; for (x in t) if (x != "(callback)") name[++m] = x
    for (a = 1; a <= m; a++) for (b = a + 1; b <= m; b++) if (t[name[b]] > t[name[a]]) { y = name[a]; name[a] = name[b]; name[b] = y }
    s = ""; for (a = 1; a <= m; a++) { x = name[a]; s = s sprintf("%s:%.1f/%.3g ", substr(x, 3), t[x] / n, c[x] / n) }
    printf "%s cb-delay %.0fus cb-other-thread %d/%d", s, c["(callback)"] ? d / c["(callback)"] : 0, oth, c["(callback)"] }' "$1"
}
for op in ${ops//,/ }; do
  for p in $plats; do
    CLTRACE_OUT=$B/t/$p-$op.txt CLTRACE_NEXT=$B/bin/clcount.so OPENCV_OPENCL_RUNTIME=$G/cltrace.so \
      OCL_ICD_VENDORS=$B/v/$p/ CUDACL_CACHE_DIR=$B/cc-$p timeout 60 $B/bin/ocvbench --reps 200 --only $op \
      > $B/t/$p-$op.out 2> $B/t/$p-$op.err
    row=$(awk -F'\t' '$1 == "ROW" { printf "%s steady %.1f enq %.1f pipe %.1f us", $6, $4 * 1000, $10 * 1000, $11 * 1000 }' $B/t/$p-$op.out)
    echo "$op $p: $row | $(summ $B/t/$p-$op.txt | tr -s ' ' | cut -c1-330)"
  done
done 2>&1 | tee $B/t/summary.txt | cut -c1-400
# appbench's rows of OpenCV's per-operation sequence (and the plain launch rows beside them).
if [ -x "$G/appbench" ]; then
  for p in $plats; do
    name=cudacl; [ $p = nvidia ] && name=NVIDIA
    OCL_ICD_VENDORS=$B/v/$p/ CL_PLATFORM_NAME=$name CUDACL_CACHE_DIR=$B/cc-$p APPBENCH_ONLY=launch \
      timeout 100 "$G/appbench" > $B/t/appbench-$p.txt 2>&1
    echo "appbench $p: $(awk '$1 == "RESULT" && $2 ~ /ocvseq|launch4.(sync|event)/ { printf "%s %.2f %s  ", $2, $3, $6 }' $B/t/appbench-$p.txt)"
  done | tee -a $B/t/summary.txt
fi
echo "${SECONDS}s"
