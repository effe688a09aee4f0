#!/usr/bin/env bash
# Runs on the GPU machine from the repository root (staged by scripts/stage-gpu.sh):
#   [ONLY="part ..."] bash .gpu/run.sh
# Compares cudacl with NVIDIA's OpenCL on the same GPU; logs go to $OUT, a table is printed last.
# Parts: every program of bin/ by its name (tests/c, bench), buildbench, jitbench, bandwidth,
# microbench, appbench (with CLBlast), ptxgen, ompcl: these run when ONLY is unset. Run only when
# named: pyopencl, piglit, clpeak; jetson (the integrated-GPU modes x Jetson PTX targets);
# surfbench (bench/surfbench.cu, built there with nvcc); opencv (OpenCV's UMat path, staged with
# `stage-gpu.sh opencv`; OCV_ONLY, REPS); cts (the Khronos CTS's non-image suites through
# conformance/cts/gpu-cts.sh; CTS_GROUPS, CTS_DEADLINE); cts-images (its image suites through
# conformance/cts/gpu-cts-images.sh; IMG_PART, IMG_JOBS, IMG_DEADLINE, IMG_ONLY, PLAN); multi (a
# machine of several GPUs: the suites with one context over every GPU, bench/p2pcopy and
# bench/multiupload, and where staged the CTS's multi-device, buffer and image-copy suites and
# ompcl's PolyBench programs).
# The CTS parts need a CTS staged (stage-gpu.sh with CTS_DIR).
set -uo pipefail
G=$(cd "$(dirname "$0")" && pwd)
FINAL=${OUT:-/tmp/out}; OUT=/tmp/gpu-logs; rm -rf $OUT; mkdir -p "$OUT" "$FINAL"
# Only 8 files come back from $OUT: the table, and every log in one tarball.
trap 'cp $OUT/table.txt "$FINAL/" 2>/dev/null; tar czf "$FINAL/logs.tgz" -C $OUT . 2>/dev/null' EXIT
# ocl-icd 2.3.2 there reads OCL_ICD_VENDORS as a folder only with a trailing "/".
# The image sets OCL_ICD_FILENAMES (PoCL and NVIDIA), which overrides OCL_ICD_VENDORS: drop it,
# so each run sees exactly the one vendor folder it names (checked with clinfo -l below).
unset OCL_ICD_FILENAMES
V=/tmp/vendors; rm -rf $V; mkdir -p $V/cudacl $V/nvidia
LIB=/tmp/cudacl/libcudacl.so; mkdir -p /tmp/cudacl
[ -f $LIB ] || xz -dc "$G/libcudacl.so.xz" > $LIB
echo "$LIB" > $V/cudacl/cudacl.icd
echo "libnvidia-opencl.so.1" > $V/nvidia/nvidia.icd
export CUDACL_LIBCLC=$G/clc/nvptx64--nvidiacl.bc
export CUDACL_CACHE_DIR=/tmp/cudacl-cache
TABLE=$OUT/table.txt; : > $TABLE
# ONLY="name ..." limits the batch to those programs / parts.
want() { [ -z "${ONLY:-}" ] || [[ " $ONLY " == *" $1 "* ]]; }
# The long third-party suites run only when named: ONLY="pyopencl", ONLY="piglit clpeak".
named() { [[ " ${ONLY:-} " == *" $1 "* ]]; }
row() { printf '%-34s %-10s %s\n' "$1" "$2" "$3" | tee -a $TABLE; }

{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; } > $OUT/machine.txt 2>&1
cat $OUT/machine.txt
echo "== platforms seen by each vendor folder =="
for v in cudacl nvidia; do OCL_ICD_VENDORS=$V/$v/ clinfo -l 2>&1 | sed "s/^/[$v] /"; done
OCL_ICD_VENDORS=$V/cudacl/ clinfo > $OUT/clinfo-cudacl.txt 2>&1; row "clinfo via ICD" cudacl "exit $?"
OCL_ICD_VENDORS=$V/nvidia/ clinfo > $OUT/clinfo-nvidia.txt 2>&1; row "clinfo via ICD" nvidia "exit $?"
LD_PRELOAD=$LIB OCL_ICD_VENDORS=/nonexistent clinfo > $OUT/clinfo-preload.txt 2>&1; row "clinfo via LD_PRELOAD" cudacl "exit $?"

# Test programs: each prints "NAME: N passed, M failed". cudacl-only ones skip NVIDIA.
run_prog() { # name vendor args...
  local name=$1 vendor=$2; shift 2
  local pname=cudacl; [ "$vendor" = nvidia ] && pname=NVIDIA
  local log=$OUT/$name-$vendor.log
  OCL_ICD_VENDORS=$V/$vendor/ CL_PLATFORM_NAME=$pname timeout 300 stdbuf -oL "$G/bin/$name" "$@" > $log 2>&1
  local rc=$?
  row "$name" "$vendor" "rc=$rc $(grep -E '[0-9]+ passed, [0-9]+ failed' $log | tail -1)"
}
for exe in "$G"/bin/*; do
  name=$(basename "$exe")
  want "$name" || continue
  case "$name" in
    probe_gpu|platforms) run_prog "$name" cudacl ;;
    # Garbage-handle rows only without a loader (ocl-icd reads through a handle to dispatch).
    errors) run_prog errors cudacl loader
            LD_PRELOAD=$LIB OCL_ICD_VENDORS=/nonexistent/ timeout 300 stdbuf -oL "$G/bin/errors" full > $OUT/errors-preload.log 2>&1
            row "errors (LD_PRELOAD, full)" cudacl "rc=$? $(grep -E '[0-9]+ passed' $OUT/errors-preload.log | tail -1)" ;;
    # OpenCL 3.0 and cl_khr_fp16: cudacl's answers (NVIDIA reports other optional features and
    # has no cl_khr_fp16); cl30 "gpu" also runs the C11 atomics, fp16 prints PASS/FAIL last.
    cl30) run_prog cl30 cudacl gpu ;;
    fp16) run_prog fp16 cudacl ;;
    # sub-groups, device addresses and SVM: kernel checks with "gpu" (NVIDIA has neither)
    subgroups|devptr) run_prog "$name" cudacl gpu ;;
    # command buffers: cudacl's checks and timings; NVIDIA's row times the same commands
    command_buffer) run_prog command_buffer cudacl gpu; run_prog command_buffer nvidia gpu ;;
    bandwidth|microbench|buildbench|appbench|jitbench|launchprof|multiupload) ;; # benchmarks: below
    *) run_prog "$name" cudacl; run_prog "$name" nvidia ;;
  esac
done
# Build times: a cold process (empty caches: cudacl's and the CUDA JIT's), then a new process
# with the disk caches the first one filled.
# Three cold processes each (the driver's JIT time varies from run to run), and for cudacl
# also cold with the kernels built whole (CUDACL_BUILD_THREADS=1) for comparison.
if [ -x "$G/bin/buildbench" ] && want buildbench; then
  for i in 1 2 3; do
    for v in cudacl nvidia cudacl-whole; do
      vendor=${v%-whole}; pname=cudacl; [ $vendor = nvidia ] && pname=NVIDIA
      threads=; [ $v = cudacl-whole ] && threads=1
      c=/tmp/bb-$v-$i; rm -rf $c; mkdir -p $c
      passes="cold"; [ $i = 1 ] && [ $v != cudacl-whole ] && passes="cold warm-disk"
      for pass in $passes; do
        CUDACL_BUILD_THREADS=$threads CUDACL_BUILD_TIMES=1 OCL_ICD_VENDORS=$V/$vendor/ CL_PLATFORM_NAME=$pname CUDACL_CACHE_DIR=$c/cudacl CUDA_CACHE_PATH=$c/nv HOME=$c timeout 120 "$G/bin/buildbench" > $OUT/buildbench-$v-$pass-$i.log 2>&1
        row "build 6 kernels ($pass process)" "$v" "$(tail -1 $OUT/buildbench-$v-$pass-$i.log | sed 's/.*build: //')"
      done
    done
  done
fi
# The driver's PTX JIT alone, for the 6-kernel source: whole, and one module per kernel loaded
# one after another and all at once (jit/ is staged by scripts/stage-gpu.sh).
if [ -x "$G/bin/jitbench" ] && [ -d "$G/jit" ] && want jitbench; then
  for mode in serial parallel; do
    CUDA_CACHE_DISABLE=1 "$G/bin/jitbench" $mode "$G/jit/six.ptx" > $OUT/jitbench-whole-$mode.log 2>&1
    CUDA_CACHE_DISABLE=1 "$G/bin/jitbench" $mode "$G"/jit/k_*.ptx > $OUT/jitbench-split-$mode.log 2>&1
    row "jit 6 kernels, one module" cudacl "$(head -1 $OUT/jitbench-whole-$mode.log | sed 's/.*: //') start-up, $(tail -1 $OUT/jitbench-whole-$mode.log)"
    row "jit 6 kernels, 6 modules" cudacl "$(tail -1 $OUT/jitbench-split-$mode.log)"
  done
fi
for b in bandwidth microbench; do
  [ -x "$G/bin/$b" ] && want $b || continue
  for v in cudacl nvidia; do
    pname=cudacl; [ $v = nvidia ] && pname=NVIDIA
    OCL_ICD_VENDORS=$V/$v/ CL_PLATFORM_NAME=$pname timeout 300 "$G/bin/$b" > $OUT/$b-$v.log 2>&1
    row "$b" "$v" "rc=$?"
  done
done
# The application-shaped benchmark: cudacl, NVIDIA and the raw driver API in one run, joined
# into one table (printed again last). A cudacl build staged as before/libcudacl.so.xz (the
# library before a change) runs too, as the column "before".
if [ -x "$G/bin/appbench" ] && want appbench; then
  ab=(); runs="cudacl nvidia"
  if [ -f "$G/before/libcudacl.so.xz" ]; then
    mkdir -p /tmp/cudacl-before $V/before
    xz -dc "$G/before/libcudacl.so.xz" > /tmp/cudacl-before/libcudacl.so
    echo /tmp/cudacl-before/libcudacl.so > $V/before/before.icd
    runs="cudacl nvidia before"
  fi
  for v in $runs; do
    pname=cudacl; [ $v = nvidia ] && pname=NVIDIA
    APPBENCH_BINARY=$OUT/appbench-$v.bin OCL_ICD_VENDORS=$V/$v/ CL_PLATFORM_NAME=$pname timeout 200 "$G/bin/appbench" > $OUT/appbench-$v.log 2>&1
    row "appbench" "$v" "rc=$?"; ab+=("$v=$OUT/appbench-$v.log")
  done
  timeout 100 "$G/bin/appbench" raw "$G/jit/axpb4.ptx" > $OUT/appbench-raw.log 2>&1
  row "appbench" "raw CUDA" "rc=$?"; ab+=("raw=$OUT/appbench-raw.log")
  # CLBlast's SGEMM/DGEMM 4096 (bench/clblast_sgemm.c, staged with Debian's libclblast.so.1),
  # its rows added to each platform's column; the tuning CLBlast picked goes to the .err log.
  if [ -f "$G/clblast/libclblast.so.1.xz" ]; then
    C=/tmp/clblast; mkdir -p $C; xz -dc "$G/clblast/libclblast.so.1.xz" > $C/libclblast.so.1
    cp "$G/clblast/clblast_sgemm" $C/
    for v in cudacl nvidia; do
      pname=cudacl; [ $v = nvidia ] && pname=NVIDIA
      OCL_ICD_VENDORS=$V/$v/ CL_PLATFORM_NAME=$pname CLTRACE=defines LD_PRELOAD=$G/lib/cltrace.so timeout 60 $C/clblast_sgemm > $OUT/clblast-$v.log 2> $OUT/clblast-$v.err
      row "clblast sgemm/dgemm" "$v" "rc=$? $(grep -o '[0-9.]* TFLOPS' $OUT/clblast-$v.log | tr '\n' ' ')"
      cat $OUT/clblast-$v.log >> $OUT/appbench-$v.log
    done
  fi
  bash "$G/appbench-table.sh" "${ab[@]}" > $OUT/appbench-table.txt 2>&1
fi
# ptxgen's corpus: every PTX loads through the driver's JIT (log checked), a subset runs.
if want ptxgen && [ -d "$G/ptxgen" ]; then
  ( cd "$G/ptxgen" && gcc -O2 -o /tmp/check_ptx check_ptx.c -ldl && /tmp/check_ptx info && /tmp/check_ptx load *.ptx && /tmp/check_ptx run . ) > $OUT/ptxgen.log 2>&1
  row "ptxgen corpus load+run" cudacl "rc=$? $(grep -ciE '^(PASS|ok)' $OUT/ptxgen.log) ok, $(grep -ciE '^FAIL' $OUT/ptxgen.log) FAIL"
fi
# ompcl's corpus through cudacl and through NVIDIA's OpenCL.
if want ompcl && [ -d "$G/ompcl" ]; then
  for v in cudacl nvidia; do
    OCL_ICD_VENDORS=$V/$v/ bash "$G/ompcl/run.sh" $v > $OUT/ompcl-$v.log 2>&1
    row "ompcl corpus" "$v" "rc=$? $(grep -E 'passed|failed' $OUT/ompcl-$v.log | tail -1)"
  done
  cp "$G"/ompcl/results/*/report.txt $OUT/ 2>/dev/null
fi
if named pyopencl && [ -d "$G/pyopencl" ]; then
  for v in cudacl nvidia; do
    pname=cudacl; [ $v = nvidia ] && pname=NVIDIA
    OCL_ICD_VENDORS=$V/$v/ timeout 280 bash "$G/pyopencl/run.sh" $pname > $OUT/pyopencl-$v.log 2>&1
    row "pyopencl tests" "$v" "rc=$? $(grep -E '(passed|failed)' $OUT/pyopencl-$v.log | tail -1)"
  done
fi
if named piglit && [ -d "$G/piglit" ]; then
  for v in cudacl nvidia; do
    OCL_ICD_VENDORS=$V/$v/ timeout 280 python3 "$G/piglit/run.py" "$G/piglit" --jobs 8 --timeout 60 --log $OUT/piglit-$v-failures.log > $OUT/piglit-$v.log 2>&1
    row "piglit cl" "$v" "rc=$? $(tail -1 $OUT/piglit-$v.log)"
  done
fi
if named clpeak && [ -x "$G/clpeak" ]; then
  for v in cudacl nvidia; do
    OCL_ICD_VENDORS=$V/$v/ timeout 240 "$G/clpeak" > $OUT/clpeak-$v.log 2>&1
    row "clpeak" "$v" "rc=$? $(grep -c -E '^ +[a-z].*: [0-9.]+' $OUT/clpeak-$v.log) results"
  done
fi
# CUDA's ceiling for imagebench's RGBA8 kernels (surface loads against texture fetches).
if named surfbench && [ -f "$G/cuda/surfbench.cu" ]; then
  nvcc=$(command -v nvcc || ls /usr/local/cuda/bin/nvcc 2>/dev/null | head -1)
  ${nvcc:-nvcc} -O3 -arch=${SURFBENCH_ARCH:-sm_90} "$G/cuda/surfbench.cu" -o /tmp/surfbench > $OUT/surfbench.log 2>&1 &&
    timeout 120 /tmp/surfbench >> $OUT/surfbench.log 2>&1
  row "surfbench (CUDA)" raw "rc=$? $(grep -c ' ok$' $OUT/surfbench.log) ok, $(grep -c 'FAIL' $OUT/surfbench.log) FAIL"
fi
# OpenCV 4.6's transparent API (UMat, its OpenCL path) on NVIDIA's OpenCL, then on cudacl (and on
# the library staged as before/, if any), same GPU, same binary: bench/opencv/ocvbench.cpp with
# lib/cltrace.so in front of the ICD loader (CLTRACE=count: kernels launched, OpenCL errors).
# The table, every log and the programs each platform built come back as opencv.tgz and
# opencv-programs.txz; the summary is printed.
if named opencv && [ -f "$G/opencv/ocv.tar.xz" ]; then
  B=/tmp/opencv; rm -rf $B; mkdir -p $B/bin; O=$OUT/opencv; mkdir -p $O
  tar -xJf "$G/opencv/ocv.tar.xz" -C $B/bin
  # Debian 12's libstdc++ only where the machine's lacks what OpenCV 4.6 was built against.
  ocv_env=(); $B/bin/ocvbench --list > /dev/null 2>&1 || ocv_env=(LD_LIBRARY_PATH=$B/bin/fallback)
  ocv_runs="nvidia cudacl"; [ -f "$G/before/libcudacl.so.xz" ] && ocv_runs="nvidia cudacl before"
  for v in $ocv_runs; do
    vd=$V/$v
    if [ $v = before ]; then
      mkdir -p /tmp/cudacl-before $vd; [ -f /tmp/cudacl-before/libcudacl.so ] || xz -dc "$G/before/libcudacl.so.xz" > /tmp/cudacl-before/libcudacl.so
      echo /tmp/cudacl-before/libcudacl.so > $vd/before.icd
    fi
    mkdir -p $B/programs/$v
    # No OpenCV binary cache (neither platform may load the other's binaries; first calls build);
    # cudacl's build stages per program on stderr (CUDACL_BUILD_TIMES); PROF lines (host time of
    # every OpenCL call) for the operations named in OCVBENCH_PROFILE.
    env "${ocv_env[@]}" OPENCV_OPENCL_RUNTIME=$G/lib/cltrace.so CLTRACE=count CLTRACE_DUMP=$B/programs/$v \
      OPENCV_OPENCL_DEVICE=${OCV_DEVICE:-:GPU:} OPENCV_OPENCL_CACHE_ENABLE=0 OPENCV_OPENCL_CACHE_WRITE=0 \
      CUDACL_BUILD_TIMES=1 OCVBENCH_PROFILE=add_16x16_8U,cvtColor_BGR2GRAY,GaussianBlur_3x3_8U,multiply_32F,calcOpticalFlowPyrLK_500 \
      OCL_ICD_VENDORS=$vd/ OPENCV_OPENCL_CACHE_DIR=$B/cache-$v CUDACL_CACHE_DIR=$B/cudacl-cache \
      timeout $([ $v = nvidia ] && echo 70 || echo 120) $B/bin/ocvbench --reps "${REPS:-15}" ${OCV_ONLY:+--only $OCV_ONLY} > $O/$v.txt 2> $O/$v.err
    echo "exit $?" >> $O/$v.txt
    tail -c 200000 $O/$v.err > $O/$v.err.tmp && mv $O/$v.err.tmp $O/$v.err
    row "opencv ocvbench" $v "$(grep -h '^exit' $O/$v.txt) $(grep -m1 '^FATAL' $O/$v.txt) $(grep -m1 '^TOTAL' $O/$v.txt | cut -c1-90)"
  done
  tar cJf "$FINAL/opencv-programs.txz" -C $B programs 2>/dev/null
  # The table: op, first call and steady state (ms) on each, steady ratio cudacl/NVIDIA, checks.
  awk -F'\t' '
    FNR == 1 { v++ }
    $1 == "ROW" && v == 1 { order[++n] = $2; nf[$2] = $3; nm[$2] = $4; nc[$2] = $6; nk[$2] = $5; np[$2] = $11 }
    $1 == "ROW" && v == 2 { cf[$2] = $3; cm[$2] = $4; cc[$2] = $6; ck[$2] = $5; cp[$2] = $11 }
    END {
      printf "%-28s %9s %9s %7s %8s %8s %9s %9s %-7s %-7s %s\n", "op (ms)", "cudacl", "NVIDIA", "ratio", "1st-cu", "1st-nv", "pipe-cu", "pipe-nv", "cudacl", "NVIDIA", "kern cu/nv" > "/dev/stderr"
      for (i = 1; i <= n; i++) {
        o = order[i]; r = (o in cm && nm[o] > 0) ? cm[o] / nm[o] : 0
        printf "%-28s %9.4f %9.4f %7.2f %8.1f %8.1f %9.4f %9.4f %-7s %-7s %s/%s\n", o, cm[o], nm[o], r, cf[o], nf[o], cp[o], np[o], (o in cc ? cc[o] : "-"), nc[o], ck[o], nk[o] > "/dev/stderr"
        if (cc[o] == "ok" && nc[o] == "ok" && r > 0) { s += log(r); k++; if (o !~ /load/) { s2 += log(r); k2++ } }
        if (o in cf && nf[o] > 0 && cc[o] == "ok" && nc[o] == "ok") { sf += log(cf[o] / nf[o]); kf++ }
        if (cc[o] != "ok" || nc[o] != "ok") bad = bad sprintf(" %s(cu %s, nv %s)", o, (o in cc ? cc[o] : "missing"), nc[o])
      }
      if (length(bad) > 600) bad = substr(bad, 1, 600) " ..."
      print "opencv not ok:" (bad == "" ? " none" : bad)
      printf "opencv: ops %d; both ok %d; steady geomean cudacl/NVIDIA %.2f (%.2f without up/download); first-call geomean %.2f\n", n, k, k ? exp(s / k) : 0, k2 ? exp(s2 / k2) : 0, kf ? exp(sf / kf) : 0
    }' $O/nvidia.txt $O/cudacl.txt 2> $O/table.txt | tee -a $TABLE
  for v in $ocv_runs; do
    awk -F'\t' -v v=$v '$1 == "PROF" && $2 == "add_16x16_8U" && n++ < 6 { s = s sprintf(" %s %.1fx%.1f", substr($3, 3), $4, $6) }
      END { print "opencv 16x16 add, host us/call, " v ":" s }' $O/$v.txt | tee -a $TABLE
  done
  if [ -f $O/before.txt ]; then # the library before a change against NVIDIA: steady geomean
    awk -F'\t' 'FNR == 1 { v++ } $1 == "ROW" && $6 == "ok" { if (v == 1) n[$2] = $4; else if ($2 in n) { s += log($4 / n[$2]); k++ } }
      END { printf "opencv before/NVIDIA steady geomean %.2f over %d ops\n", k ? exp(s / k) : 0, k }' $O/nvidia.txt $O/before.txt | tee -a $TABLE
  fi
fi
# The Khronos CTS (staged with CTS_DIR): the non-image suites (quick mode) on both platforms at
# once, then its image suites in chunks; each writes summary/table files under $OUT/cts*/.
if named cts && [ -f "$G/cts/cts/cts-bin.tar.xz" ]; then
  OUT=$OUT/cts VENDORS="cudacl nvidia" DEADLINE=${CTS_DEADLINE:-330} CUDACL_LIB=$LIB CTS_DIR=$G/cts/cts \
    bash "$G/cts/gpu-cts.sh" > $OUT/cts.log 2>&1
  row "CTS (quick mode)" both "rc=$?"; cat $OUT/cts/summary.txt 2>/dev/null | tee -a $TABLE
fi
if named cts-images && [ -f "$G/cts/cts/cts-bin.tar.xz" ]; then
  OUT=$OUT/cts-images CUDACL_LIB=$LIB CTS_DIR=$G/cts/cts PLAN=${PLAN:-full} ONLY=${IMG_ONLY:-} \
    JOBS=${IMG_JOBS:-$(( $(nproc) / 2 ))} DEADLINE=${IMG_DEADLINE:-525} PART=${IMG_PART:-1/1} \
    bash "$G/cts/gpu-cts-images.sh" > $OUT/cts-images.log 2>&1
  row "CTS images (part ${IMG_PART:-1/1})" both "rc=$? $(grep '^TOTAL' $OUT/cts-images/table.txt 2>/dev/null)"
fi
# Jetson on a big GPU: buffers, kernels and conformance/jetson/ptxtarget.c in every integrated-GPU
# mode x every Jetson PTX target (CUDACL_TARGET), 6 at a time, cudacl only; one row per run.
if named jetson && [ -x "$G/jetson/ptxtarget" ]; then
  mkdir -p /tmp/cudacl-jetson-empty $OUT/jetson
  jetson_one() { # mode target prog
    local mode=$1 target=$2 prog=$3 env=() exe=$G/bin/$3
    [ $prog = ptxtarget ] && exe=$G/jetson/ptxtarget
    case $mode in
      discrete) ;;
      integrated) env=(CUDACL_FORCE_INTEGRATED=1) ;;
      nohostreg) env=(CUDACL_NO_HOST_REGISTER=1) ;;
      integrated+nohostreg) env=(CUDACL_FORCE_INTEGRATED=1 CUDACL_NO_HOST_REGISTER=1) ;;
    esac
    [ "$target" != native ] && env+=(CUDACL_TARGET=$target)
    local log="$OUT/jetson/$prog-$mode-${target/:/_}.log" t0=$EPOCHREALTIME rc
    env "${env[@]}" OCL_ICD_FILENAMES=$LIB OCL_ICD_VENDORS=/tmp/cudacl-jetson-empty/ CUDACL_CACHE=0 \
      timeout 90 "$exe" > "$log" 2>&1; rc=$?
    local dt; dt=$(awk "BEGIN{print $EPOCHREALTIME - $t0}")
    local res; res=$(grep -E '[0-9]+ passed, [0-9]+ failed|ptxtarget: saxpy' "$log" | tail -1)
    local tgt; tgt=$(grep -E '^ptxtarget: \.(version|target)' "$log" | sed 's/ptxtarget: //' | tr '\n' ' ')
    printf '%-22s %-10s %-9s rc=%-3s %6.1fs  %s %s\n' "$mode" "$target" "$prog" "$rc" "$dt" "$res" "$tgt"
  }
  export -f jetson_one; export G OUT LIB
  for mode in discrete integrated nohostreg integrated+nohostreg; do
    for target in native sm_53:6.5 sm_62:6.5 sm_72:7.4 sm_87:7.4 sm_87:8.2; do
      for prog in ptxtarget buffers kernels; do echo "$mode $target $prog"; done
    done
  done | xargs -P 6 -L 1 bash -c 'jetson_one "$0" "$1" "$2"' | sort > $OUT/jetson/table.txt
  row "jetson modes x targets" cudacl "runs: $(wc -l < $OUT/jetson/table.txt), rc!=0: $(grep -vc 'rc=0 ' $OUT/jetson/table.txt)"
  grep -v 'rc=0 ' $OUT/jetson/table.txt | head -20 | tee -a $TABLE
fi
# Several GPUs: cudacl beside NVIDIA's OpenCL with one context over every GPU.
if named multi; then
  NGPU=$(nvidia-smi -L | grep -c '^GPU')
  nvidia-smi topo -m >> $OUT/machine.txt 2>&1
  # copy bandwidth between two GPUs against cuMemcpyPeer
  for v in cudacl nvidia; do
    OCL_ICD_VENDORS=$V/$v/ timeout 120 "$G/bin/p2pcopy" 256 > $OUT/p2pcopy-$v.log 2>&1
    echo "rc=$?" >> $OUT/p2pcopy-$v.log
    row "p2pcopy 256 MiB GPU0->GPU1" $v "$(grep -E '^p2pcopy: (cudacl|NVIDIA)' $OUT/p2pcopy-$v.log | awk '{print "event", $(NF-2), "wall", $(NF-1), $NF}') / $(grep 'peer access ' $OUT/p2pcopy-$v.log | awk '{print "cuMemcpyPeer", $NF}') $(grep ratio $OUT/p2pcopy-$v.log | sed 's/.*: /ratio /')"
  done
  # uploads into 1, 2, ... every GPU at once, a host thread per GPU (aggregate GB/s)
  for v in cudacl nvidia; do
    OCL_ICD_VENDORS=$V/$v/ timeout 300 "$G/bin/multiupload" 256 > $OUT/multiupload-$v.log 2>&1
    row "multiupload 256 MiB per GPU" $v "rc=$? $(awk '$1 ~ /^[0-9]+$/ {printf "%s GPUs %s GB/s; ", $1, $2}' $OUT/multiupload-$v.log)"
  done
  # the CTS in the background while the suites run (correctness only; timings ran alone above)
  if [ -f "$G/cts/cts/cts-bin.tar.xz" ]; then
    ( OUT=$OUT/cts-multi VENDORS="cudacl nvidia" DEADLINE=${CTS_DEADLINE:-280} CUDACL_LIB=$LIB CTS_DIR=$G/cts/cts \
      CTS_LOGS=/tmp/ctslogs-multi CTS_GROUPS="${CTS_GROUPS:-multiple_device_context;buffers;images_copy}" \
      bash "$G/cts/gpu-cts.sh" > $OUT/cts-multi.log 2>&1 ) &
    cts_pid=$!
  fi
  # every suite in one context over all GPUs, its queues on the first and on the last GPU
  for v in cudacl nvidia; do
    pname=cudacl; [ $v = nvidia ] && pname=NVIDIA
    for qd in 0 $((NGPU - 1)); do
      for t in buffers kernels commands images; do
        log=$OUT/$t-$v-all-q$qd.log
        CUDACL_TEST_CONTEXT=all CUDACL_TEST_QUEUE_DEVICE=$qd OCL_ICD_VENDORS=$V/$v/ CL_PLATFORM_NAME=$pname \
          timeout 240 stdbuf -oL "$G/bin/$t" > $log 2>&1
        row "$t (all GPUs, queues on GPU $qd)" $v "rc=$? $(grep -E 'context over' $log | head -1 | sed 's/context over //;s/, queues.*//') $(grep -E '[0-9]+ passed, [0-9]+ failed' $log | tail -1)"
      done
    done
  done
  if [ -n "${cts_pid:-}" ]; then
    wait $cts_pid
    { echo "CTS on several GPUs (quick mode):"; cat $OUT/cts-multi/summary.txt 2>/dev/null; } | tee -a $TABLE
  fi
  if [ -f "$G/ompcl-mg/run.sh" ]; then
    OCL_ICD_VENDORS=$V/cudacl/ NGPU=$NGPU bash "$G/ompcl-mg/run.sh" > $OUT/ompcl-mg.log 2>&1
    row "ompcl several GPUs" cudacl "rc=$?"
    grep -E '^ompcl-mg:' $OUT/ompcl-mg.log | tee -a $TABLE
  fi
fi
if [ -s $OUT/appbench-table.txt ]; then echo; echo "================ appbench ================"; cat $OUT/appbench-table.txt; cat $OUT/appbench-table.txt >> $TABLE; fi
echo; echo "================ summary ================"; cat $TABLE
