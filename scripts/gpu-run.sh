#!/usr/bin/env bash
# Runs on the GPU machine from the repository root: bash .gpu/run.sh [what...]
# Compares cudacl with NVIDIA's OpenCL on the same GPU; logs go to $OUT, a table is printed last.
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
    bandwidth|microbench|buildbench|appbench|jitbench|launchprof) ;; # benchmarks: below
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
if [ -s $OUT/appbench-table.txt ]; then echo; echo "================ appbench ================"; cat $OUT/appbench-table.txt; cat $OUT/appbench-table.txt >> $TABLE; fi
echo; echo "================ summary ================"; cat $TABLE
