#!/usr/bin/env bash
# Runs the Khronos CTS's non-image suites (quick mode) on the GPU machine against cudacl and, in
# the same run, NVIDIA's OpenCL: 8 groups of suites per platform at once, every suite given the
# time left before DEADLINE seconds, so a hang costs its group only what remains.
#   VENDORS="cudacl nvidia" DEADLINE=330 bash .gpu-conf/gpu-cts.sh
# Staged by conformance/cts/stage.sh (libcudacl.so.xz, clc/, cts/{run.sh,cts-bin.tar.xz}).
# Writes $OUT/summary.txt and $OUT/cts-logs.tgz (per suite: .log and .tests, both platforms).
set -u
G=$(cd "$(dirname "$0")" && pwd)
FINAL=${OUT:-/tmp/out}; L=/tmp/ctslogs; rm -rf $L; mkdir -p $L "$FINAL"
DEADLINE=${DEADLINE:-330}; VENDORS=${VENDORS:-cudacl nvidia}
LIB=/tmp/cudacl/libcudacl.so; mkdir -p /tmp/cudacl; xz -dc "$G/libcudacl.so.xz" > $LIB
export CUDACL_LIBCLC=$G/clc/nvptx64--nvidiacl.bc CUDACL_CACHE_DIR=/tmp/cudacl-cache
NV=$(ldconfig -p | awk '/libnvidia-opencl\.so\.1 /{print $NF; exit}')
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; echo "nvidia lib: $NV";
  echo "DEADLINE=$DEADLINE VENDORS=$VENDORS"; } > $L/machine.txt
cat $L/machine.txt
trap 'cp $L/summary.txt "$FINAL/" 2>/dev/null; tar czf "$FINAL/cts-logs.tgz" -C $L . 2>/dev/null' EXIT
bash "$G/cts/run.sh" > /dev/null 2>&1   # unpacks once
GRP=("basic" "compiler api" "events profiling allocations buffers"
     "commonfns geometrics relationals select vectors" "integer_ops"
     "atomics printf thread_dimensions mem_host_flags computeinfo device_timer contractions c11_atomics half"
     "math_brute_force" "non_uniform_work_group workgroups multiple_device_context conversions")
# CTS_GROUPS="suite suite;suite;..." replaces the groups; a suite written NAME=ARGS... (':' between
# args, e.g. basic=prefetch:vector_swizzle) runs with those arguments, its logs in NAME.FIRSTARG/.
if [ -n "${CTS_GROUPS:-}" ]; then IFS=';' read -r -a GRP <<< "$CTS_GROUPS"; fi
END=$((SECONDS + DEADLINE))
pids=()
set -f   # group strings hold wildcards (integer_*) for the CTS, not for the shell
for v in $VENDORS; do
  lib=$LIB; [ $v = nvidia ] && lib=$NV
  mkdir -p $L/$v
  for i in "${!GRP[@]}"; do
    setsid bash -c '
      v=$1 lib=$2 end=$3 G=$4 L=$5 i=$6; shift 6
      # A JIT cache of its own per group: one shared cache serialises the processes on its lock.
      export CUDA_CACHE_PATH=/tmp/nvcache/$v.$i
      for s in "$@"; do
        left=$((end - $(date +%s) - 10))
        name=${s%%=*}
        if [ $left -lt 5 ]; then echo "$name pass=0 fail=0 skip=0 status=notrun"; continue; fi
        if [ "$name" != "$s" ]; then
          args=${s#*=}; tag=$name.$(echo "$args" | tr ":" "\n" | grep -v "^-" | head -1 | tr -d "*"); mkdir -p $L/$v/$tag
          env "CTS_ARGS_$name=${args//:/ }" LOGDIR=$L/$v/$tag CTS_TIMEOUT=$left OCL_ICD_VENDORS=$lib bash $G/cts/run.sh $name | sed "s/^$name /$tag /"
        else
          LOGDIR=$L/$v CTS_TIMEOUT=$left OCL_ICD_VENDORS=$lib bash $G/cts/run.sh $s
        fi
      done' _ $v "$lib" $(( $(date +%s) + DEADLINE )) "$G" $L $i ${GRP[$i]} > $L/$v/group$i.txt 2>&1 &
    pids+=($!)
  done
done
set +f
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
kill $bk 2>/dev/null
for v in $VENDORS; do
  echo "== $v"; cat $L/$v/group*.txt | grep -E '^[a-zA-Z_0-9.]+ pass=' | sort; cat $L/$v/prog-*.txt 2>/dev/null
done | tee $L/summary.txt
