#!/usr/bin/env bash
# Runs the Khronos CTS's non-image suites (quick mode) on the GPU machine against cudacl and, in
# the same run, NVIDIA's OpenCL: 8 groups of suites per platform at once, every suite given the
# time left before DEADLINE seconds, so a hang costs its group only what remains.
#   VENDORS="cudacl nvidia" DEADLINE=330 bash gpu-cts.sh
# Run by scripts/gpu-run.sh's parts "cts" and "multi" (ONLY="cts"; staged by scripts/stage-gpu.sh
# into .gpu/cts/, with CTS_DIR naming a CTS built locally: its run.sh and cts-bin.tar.xz).
# Writes $OUT/summary.txt and $OUT/cts-logs.tgz (per suite: .log and .tests, both platforms).
# Instead of the staged files: CUDACL_LIB (a libcudacl.so), CUDACL_LIBCLC, NV_LIB (NVIDIA's
# libnvidia-opencl.so.1), CTS_DIR (the folder of run.sh and cts-bin.tar.xz).
# CTS_QUEUE=FILE (one item a line, written as a group's suites are) with CTS_JOBS=N: instead of the
# fixed groups, N workers per platform take the items in the file's order, each the next one left;
# a line "SECONDS ITEM" is taken only while that many seconds are left, so a long item is passed
# over near the end for shorter ones (conformance/cts/gpu-cts-images.sh uses this).
# The CTS's output is line-buffered (coreutils' libstdbuf), and every 5 s the CPU time and log
# length of each running CTS process are appended to progress.txt in its log folder
# ("seconds cpu-seconds lines sub-test-lines main-thread-cpu-seconds threads"), so a run cut by
# the deadline still says how far it got and at what cost.
set -u
G=$(cd "$(dirname "$0")" && pwd)
FINAL=${OUT:-/tmp/out}; L=${CTS_LOGS:-/tmp/ctslogs}; rm -rf $L; mkdir -p $L "$FINAL"
DEADLINE=${DEADLINE:-330}; VENDORS=${VENDORS:-cudacl nvidia}
CTS=${CTS_DIR:-$G/cts}
if [ -n "${CUDACL_LIB:-}" ]; then LIB=$CUDACL_LIB
else LIB=/tmp/cudacl/libcudacl.so; mkdir -p /tmp/cudacl; xz -dc "$G/libcudacl.so.xz" > $LIB; fi
export CUDACL_LIBCLC=${CUDACL_LIBCLC:-$G/clc/nvptx64--nvidiacl.bc} CUDACL_CACHE_DIR=${CUDACL_CACHE_DIR:-/tmp/cudacl-cache}
NV=${NV_LIB:-$(ldconfig -p | awk '/libnvidia-opencl\.so\.1 /{print $NF; exit}')}
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; echo "nvidia lib: $NV";
  echo "cudacl lib: $LIB"; echo "DEADLINE=$DEADLINE VENDORS=$VENDORS cpus=$(nproc)"; } > $L/machine.txt
cat $L/machine.txt
trap 'cp $L/summary.txt "$FINAL/" 2>/dev/null; tar czf "$FINAL/cts-logs.tgz" -C $L . 2>/dev/null' EXIT
bash "$CTS/run.sh" > /dev/null 2>&1   # unpacks once
GRP=("basic" "compiler api" "events profiling allocations buffers"
     "commonfns geometrics relationals select vectors" "integer_ops"
     "atomics printf thread_dimensions mem_host_flags computeinfo device_timer contractions c11_atomics half"
     "math_brute_force" "non_uniform_work_group workgroups multiple_device_context conversions")
# CTS_GROUPS="suite suite;suite;..." replaces the groups; a suite written NAME=ARGS... (':' between
# args, e.g. basic=prefetch:vector_swizzle) runs with those arguments, its logs in NAME.FIRSTARG/;
# written NAME.TAG=ARGS..., its logs in NAME.TAG/ (one suite run several times with other args).
if [ -n "${CTS_GROUPS:-}" ]; then IFS=';' read -r -a GRP <<< "$CTS_GROUPS"; fi
Q=; JOBS=${#GRP[@]}
if [ -n "${CTS_QUEUE:-}" ]; then
  Q=$L/queue.txt; grep -v -e '^[[:space:]]*$' -e '^#' "$CTS_QUEUE" > $Q; JOBS=${CTS_JOBS:-8}
fi
STDBUF=/usr/libexec/coreutils/libstdbuf.so; [ -f $STDBUF ] || STDBUF=
export L G CTS Q STDBUF

# One item (suite or NAME[.TAG]=ARGS) with the time left; v, lib and end are the worker's.
run_item() {
  local s=$1 name=${1%%=*} suite tag args left
  suite=${name%%.*}; tag=$name; args=
  if [ "$name" != "$s" ]; then
    args=${s#*=}
    [ "$suite" = "$name" ] && tag=$name.$(echo "$args" | tr ":" "\n" | grep -v "^-" | head -1 | tr -d "*")
  fi
  left=$((end - $(date +%s) - 10))
  if [ $left -lt 5 ]; then echo "$tag pass=0 fail=0 skip=0 status=notrun"; return; fi
  local pre=${LD_PRELOAD:-}; [ -n "$STDBUF" ] && pre=$STDBUF${pre:+:$pre}
  if [ -n "$args" ]; then
    mkdir -p $L/$v/$tag
    env "CTS_ARGS_$suite=${args//:/ }" LOGDIR=$L/$v/$tag CTS_TIMEOUT=$left OCL_ICD_VENDORS=$lib \
        ${pre:+LD_PRELOAD=$pre _STDBUF_O=L} bash $CTS/run.sh $suite | sed "s/^$suite /$tag /"
  else
    env LOGDIR=$L/$v CTS_TIMEOUT=$left OCL_ICD_VENDORS=$lib ${pre:+LD_PRELOAD=$pre _STDBUF_O=L} bash $CTS/run.sh $s
  fi
}
# The next queue item of vendor v that fits in the time left (empty when none is left): the first
# line of its queue whose estimated seconds (an optional leading number) are at most what is left.
take() {
  local left=$((end - $(date +%s) - 10))
  until mkdir $L/$v/queue.lock 2>/dev/null; do sleep 0.05; done   # mkdir: atomic, needs no flock
  [ -f $L/$v/queue.txt ] || cp $Q $L/$v/queue.txt
  awk -v left=$left -v rest=$L/$v/queue.rest '
    !done && ($1 !~ /^[0-9]+$/ || $1 <= left) { sub(/^[0-9]+ /, ""); print; done = 1; next }
    { print > rest }' $L/$v/queue.txt
  touch $L/$v/queue.rest; mv $L/$v/queue.rest $L/$v/queue.txt
  rmdir $L/$v/queue.lock
}
# worker VENDOR LIB END INDEX [ITEM...]: the items given, else queue items until none is left.
worker() {
  local v=$1 lib=$2 end=$3 i=$4 s; shift 4
  set -f   # items hold wildcards (integer_*) for the CTS, not for the shell
  # A JIT cache of its own per worker: one shared cache serialises the processes on its lock.
  export CUDA_CACHE_PATH=/tmp/nvcache/$v.$i
  if [ -z "$Q" ]; then for s in "$@"; do run_item "$s"; done
  else while s=$(take) && [ -n "$s" ]; do run_item "$s"; done; fi
}
export -f run_item take worker

# Every 5 s: the CPU time and log length of each running CTS binary (run.sh execs ./test_*).
sample() {
  local t0=$SECONDS p d cpu f tck; tck=$(getconf CLK_TCK)
  while sleep 5; do
    for p in $(pgrep -f '^\./test_'); do
      d=$(tr '\0' '\n' < /proc/$p/environ 2>/dev/null | sed -n 's/^LOGDIR=//p')
      case $d in $L/*) ;; *) continue ;; esac
      cpu=$(sed 's/.*) //' /proc/$p/stat 2>/dev/null | awk -v t=$tck '{printf "%.1f", ($12 + $13) / t}')
      main=$(sed 's/.*) //' /proc/$p/task/$p/stat 2>/dev/null | awk -v t=$tck '{printf "%.1f", ($12 + $13) / t}')
      f=$(ls -t $d/*.log 2>/dev/null | head -1); [ -n "$f" ] || continue
      echo "$((SECONDS - t0)) $cpu $(wc -l < $f) $(grep -c '^\[CL_' $f) $main $(ls /proc/$p/task | wc -l)" >> $d/progress.txt
    done
  done
}
sample & smp=$!

END=$((SECONDS + DEADLINE))
pids=()
for v in $VENDORS; do
  lib=$LIB; [ $v = nvidia ] && lib=$NV
  mkdir -p $L/$v
  for ((i = 0; i < JOBS; i++)); do
    set -f; items=(); [ -z "$Q" ] && items=(${GRP[$i]}); set +f
    setsid bash -c 'worker "$@"' _ $v "$lib" $(( $(date +%s) + DEADLINE )) $i "${items[@]}" > $L/$v/group$i.txt 2>&1 &
    pids+=($!)
  done
done
# Backstop: each group is its own process group; end what outlives the deadline by its id.
( sleep $((DEADLINE + 40)); for p in "${pids[@]}"; do kill -- -$p 2>/dev/null; done ) &
bk=$!
# The project's own C test programs staged in bin/ (cudacl only), beside the CTS.
if [ -d "$G/bin" ]; then
  mkdir -p $L/cudacl; V=/tmp/cts-vendor-cudacl; mkdir -p $V; echo $LIB > $V/cudacl.icd
  for exe in "$G"/bin/*; do
    n=$(basename $exe)
    a=; [ $n = errors ] && a=loader
    ( unset OCL_ICD_FILENAMES; OCL_ICD_VENDORS=$V/ CL_PLATFORM_NAME=cudacl timeout $DEADLINE $exe $a > $L/cudacl/prog-$n.log 2>&1;
      echo "prog-$n rc=$? $(grep -E '[0-9]+ passed, [0-9]+ failed' $L/cudacl/prog-$n.log | tail -1)" > $L/cudacl/prog-$n.txt ) &
    pids+=($!)
  done
fi
for p in "${pids[@]}"; do wait $p; done
kill $bk $smp 2>/dev/null
for v in $VENDORS; do
  echo "== $v"; cat $L/$v/group*.txt | grep -E '^[a-zA-Z_0-9.-]+ pass=' | sort; cat $L/$v/prog-*.txt 2>/dev/null
done | tee $L/summary.txt
