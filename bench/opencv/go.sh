#!/usr/bin/env bash
# On the GPU machine (staged by bench/opencv/stage.sh): OpenCV 4.6's transparent API (UMat, its
# OpenCL path) on NVIDIA's OpenCL, then on cudacl ($CUDACL_LIB), same GPU, same binary.
# The full table and the logs go to $OUT/opencv12/opencv12.tgz; a summary is printed (<= 25 lines), table last.
set -uo pipefail
G=$(cd "$(dirname "$0")" && pwd)
F=${OUT:-/tmp/out}/opencv12; mkdir -p "$F"
B=/tmp/opencv12; rm -rf $B; mkdir -p $B/bin
O=$B/logs; mkdir -p $O
# Few files come back from $OUT: one tarball with the table and every log.
# The programs each platform built (NVIDIA's PTX, cudacl's container) in a second one, so that
# a size limit on it cannot cost the first.
trap 'tar czf "$F/opencv12.tgz" -C $O . 2>/dev/null; tar cJf "$F/programs.txz" -C $B programs 2>/dev/null' EXIT
tar -xJf "$G/ocv.tar.xz" -C $B/bin
# Debian 12's libstdc++ only where the machine's lacks what OpenCV 4.6 was built against.
$B/bin/ocvbench --list > /dev/null 2>&1 || export LD_LIBRARY_PATH=$B/bin/fallback
# One vendor folder per platform; the image's OCL_ICD_FILENAMES would override them.
unset OCL_ICD_FILENAMES
mkdir -p $B/v/cudacl $B/v/nvidia
echo "${CUDACL_LIB:?}" > $B/v/cudacl/cudacl.icd
# A build of this branch staged beside go.sh (libcudacl.so.xz) runs third, as "cudacl-branch".
if [ -f "$G/libcudacl.so.xz" ]; then
  mkdir -p $B/v/cudacl-branch && xz -dc "$G/libcudacl.so.xz" > $B/libcudacl-branch.so &&
    echo "$B/libcudacl-branch.so" > $B/v/cudacl-branch/cudacl.icd
fi
echo "${NV_LIB:-libnvidia-opencl.so.1}" > $B/v/nvidia/nvidia.icd
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > $O/machine.txt 2>&1
export OPENCV_OPENCL_RUNTIME=$B/bin/cltrace.so CLTRACE=count OPENCV_OPENCL_DEVICE=${OCV_DEVICE:-:GPU:}
# No OpenCV binary cache (neither platform may load the other's binaries; first calls build).
export OPENCV_OPENCL_CACHE_ENABLE=0 OPENCV_OPENCL_CACHE_WRITE=0
# cudacl's build stages (clang, codegen, the driver's JIT) per program, on stderr, for the first calls.
export CUDACL_BUILD_TIMES=1
# Host time of every OpenCL call during the steady-state calls of these operations (PROF lines).
export OCVBENCH_PROFILE=add_16x16_8U,cvtColor_BGR2GRAY,GaussianBlur_3x3_8U,multiply_32F,calcOpticalFlowPyrLK_500
run() { # vendor seconds
  mkdir -p $B/programs/$1
  CLTRACE_DUMP=$B/programs/$1 OCL_ICD_VENDORS=$B/v/$1/ OPENCV_OPENCL_CACHE_DIR=$B/cache-$1 CUDACL_CACHE_DIR=$B/cudacl-cache \
    timeout "$2" $B/bin/ocvbench --reps "${REPS:-15}" ${ONLY:+--only $ONLY} > $O/$1.txt 2> $O/$1.err
  echo "exit $?" >> $O/$1.txt
}
run nvidia 70
if [ -d $B/v/cudacl-branch ]; then
  run cudacl $(((185 - SECONDS) / 2))
  run cudacl-branch $((185 - SECONDS))
else
  run cudacl $((185 - SECONDS))
fi
tail -c 200000 $O/cudacl.err > $O/cudacl.err.tmp && mv $O/cudacl.err.tmp $O/cudacl.err
head -c 200000 $O/nvidia.err > $O/nvidia.err.tmp && mv $O/nvidia.err.tmp $O/nvidia.err
# Rows: op cudacl/NVIDIA steady ms (the full table is table.txt in opencv12.tgz).
for v in nvidia cudacl; do grep -m1 '^DEVICE' $O/$v.txt | cut -c1-110 | sed "s/^/$v: /"; grep -m1 '^FATAL' $O/$v.txt; done
# The table: op, first call and steady state (ms) on each, steady ratio cudacl/NVIDIA, checks.
awk -F'\t' '
  FNR == 1 { v++ }
  $1 == "ROW" && v == 1 { order[++n] = $2; nf[$2] = $3; nm[$2] = $4; nc[$2] = $6; nk[$2] = $5; np[$2] = $11 }
  $1 == "ROW" && v == 2 { cf[$2] = $3; cm[$2] = $4; cc[$2] = $6; ck[$2] = $5; cp[$2] = $11 }
  /^TOTAL/ { tot[v] = $0 }
  END {
    printf "%-28s %9s %9s %7s %8s %8s %9s %9s %-7s %-7s %s\n", "op (ms)", "cudacl", "NVIDIA", "ratio", "1st-cu", "1st-nv", "pipe-cu", "pipe-nv", "cudacl", "NVIDIA", "kern cu/nv" > "/dev/stderr"
    for (i = 1; i <= n; i++) {
      o = order[i]; r = (o in cm && nm[o] > 0) ? cm[o] / nm[o] : 0
      printf "%-28s %9.4f %9.4f %7.2f %8.1f %8.1f %9.4f %9.4f %-7s %-7s %s/%s\n", o, cm[o], nm[o], r, cf[o], nf[o], cp[o], np[o], (o in cc ? cc[o] : "-"), nc[o], ck[o], nk[o] > "/dev/stderr"
      if (cc[o] == "ok" && nc[o] == "ok" && r > 0) { s += log(r); k++; if (o !~ /load/) { s2 += log(r); k2++ } }
      if (o in cf && nf[o] > 0 && cc[o] == "ok" && nc[o] == "ok") { sf += log(cf[o] / nf[o]); kf++ }
      if (cc[o] != "ok" || nc[o] != "ok") bad = bad sprintf(" %s(cu %s, nv %s)", o, (o in cc ? cc[o] : "missing"), nc[o])
      line = line sprintf("%-.15s %.3g/%.3g  ", o, cm[o], nm[o]); if (i % 5 == 0) { print line; line = "" }
    }
    if (line != "") print line
    if (length(bad) > 600) bad = substr(bad, 1, 600) " ..."
    print "not ok:" (bad == "" ? " none" : bad)
    printf "ops %d; both ok %d; steady geomean cudacl/NVIDIA %.2f (%.2f without up/download); first-call geomean %.2f\n", n, k, k ? exp(s / k) : 0, k2 ? exp(s2 / k2) : 0, kf ? exp(sf / kf) : 0
    print "nvidia " tot[1] " | cudacl " tot[2]
  }' $O/nvidia.txt $O/cudacl.txt 2> $O/table.txt
for v in cudacl nvidia $([ -f $O/cudacl-branch.txt ] && echo cudacl-branch); do
  awk -F'\t' -v v=$v '$1 == "PROF" && $2 == "add_16x16_8U" && n++ < 6 { s = s sprintf(" %s %.1fx%.1f", substr($3, 3), $4, $6) }
    END { print "16x16 add, host us/call, " v ":" s }' $O/$v.txt
done
if [ -f $O/cudacl-branch.txt ]; then # the branch's build against NVIDIA: steady geomean, slowest rows
  awk -F'\t' 'FNR == 1 { v++ } $1 == "ROW" && $6 == "ok" { if (v == 1) n[$2] = $4; else if ($2 in n) { r = $4 / n[$2]; s += log(r); k++; if ($2 ~ /add_16x16|PyrLK|matchTemplate|Farneback/) x = x sprintf(" %s %.3g/%.3g", substr($2, 1, 14), $4, n[$2]) } }
    END { printf "cudacl-branch/NVIDIA steady geomean %.2f over %d ops;%s\n", k ? exp(s / k) : 0, k, x }' $O/nvidia.txt $O/cudacl-branch.txt
fi
echo "$(grep -h '^exit' $O/nvidia.txt $O/cudacl.txt | tr '\n' ' ')(nvidia, cudacl); ${SECONDS}s; $(tr '\n' ' ' < $O/machine.txt)"
