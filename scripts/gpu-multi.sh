#!/usr/bin/env bash
# Runs on a several-GPU machine (staged by scripts/stage-gpu-multi.sh): bash .gpu-mg/run.sh
# cudacl beside NVIDIA's OpenCL with one context over every GPU: the project's suites with their
# queues on each GPU in turn, copy bandwidth between two GPUs against cuMemcpyPeer, the CTS's
# multi-device, buffer and image-copy suites (if staged: in the background of the suites) and ompcl's programs (if staged).
# ONLY="tests p2p cts ompcl" picks parts. Logs in $OUT/logs.tgz, the table printed last.
set -uo pipefail
G=$(cd "$(dirname "$0")" && pwd)
FINAL=${OUT:-/tmp/out}; OUT=/tmp/gpu-mg-logs; rm -rf $OUT; mkdir -p "$OUT" "$FINAL"
trap 'cp $OUT/table.txt "$FINAL/" 2>/dev/null; tar czf "$FINAL/logs.tgz" -C $OUT . 2>/dev/null' EXIT
unset OCL_ICD_FILENAMES
V=/tmp/vendors; rm -rf $V; mkdir -p $V/cudacl $V/nvidia
LIB=/tmp/cudacl/libcudacl.so; mkdir -p /tmp/cudacl
[ -f $LIB ] || xz -dc "$G/libcudacl.so.xz" > $LIB
echo "$LIB" > $V/cudacl/cudacl.icd
echo "libnvidia-opencl.so.1" > $V/nvidia/nvidia.icd
export CUDACL_LIBCLC=$G/clc/nvptx64--nvidiacl.bc CUDACL_CACHE_DIR=/tmp/cudacl-cache
TABLE=$OUT/table.txt; : > $TABLE
want() { [ -z "${ONLY:-}" ] || [[ " $ONLY " == *" $1 "* ]]; }
row() { printf '%-40s %-8s %s\n' "$1" "$2" "$3" | tee -a $TABLE; }
pname() { [ "$1" = nvidia ] && echo NVIDIA || echo cudacl; }

{ date -u; nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv; nvidia-smi topo -m; } > $OUT/machine.txt 2>&1
cat $OUT/machine.txt
NGPU=$(nvidia-smi -L | grep -c '^GPU')
for v in cudacl nvidia; do OCL_ICD_VENDORS=$V/$v/ clinfo -l 2>&1 | sed "s/^/[$v] /"; done

if want p2p; then
  for v in cudacl nvidia; do
    OCL_ICD_VENDORS=$V/$v/ timeout 120 "$G/bin/p2pcopy" 256 > $OUT/p2pcopy-$v.log 2>&1
    echo "rc=$?" >> $OUT/p2pcopy-$v.log
    cat $OUT/p2pcopy-$v.log
    row "p2pcopy 256 MiB GPU0->GPU1" $v "$(grep -E '^p2pcopy: (cudacl|NVIDIA)' $OUT/p2pcopy-$v.log | awk '{print "event", $(NF-2), "wall", $(NF-1), $NF}') / $(grep 'peer access ' $OUT/p2pcopy-$v.log | awk '{print "cuMemcpyPeer", $NF}') $(grep ratio $OUT/p2pcopy-$v.log | sed 's/.*: /ratio /')"
  done
fi

# the CTS in the background while the suites run (correctness only; timings ran alone above)
if want cts && [ -f "$G/cts/cts-bin.tar.xz" ]; then
  ( OUT=$OUT/cts VENDORS="cudacl nvidia" DEADLINE=${CTS_DEADLINE:-280} CUDACL_LIB=$LIB CTS_DIR=$G/cts \
    CTS_GROUPS="${CTS_GROUPS:-multiple_device_context;buffers;images_copy}" bash "$G/cts/gpu-cts.sh" > $OUT/cts.log 2>&1 ) &
  cts_pid=$!
fi
if want tests; then
  # every suite in one context over all GPUs, its queues on the first and on the last GPU
  for v in cudacl nvidia; do
    for qd in 0 $((NGPU - 1)); do
      for t in buffers kernels commands images; do
        log=$OUT/$t-$v-q$qd.log
        CUDACL_TEST_CONTEXT=all CUDACL_TEST_QUEUE_DEVICE=$qd OCL_ICD_VENDORS=$V/$v/ CL_PLATFORM_NAME=$(pname $v) \
          timeout 240 stdbuf -oL "$G/bin/$t" > $log 2>&1
        row "$t (all GPUs, queues on GPU $qd)" $v "rc=$? $(grep -E 'context over' $log | head -1 | sed 's/context over //;s/, queues.*//') $(grep -E '[0-9]+ passed, [0-9]+ failed' $log | tail -1)"
      done
    done
  done
fi

if [ -n "${cts_pid:-}" ]; then
  wait $cts_pid
  { echo "CTS (quick mode):"; cat $OUT/cts/summary.txt 2>/dev/null; } | tee -a $TABLE
fi
if want ompcl && [ -f "$G/ompcl/run.sh" ]; then
  OCL_ICD_VENDORS=$V/cudacl/ NGPU=$NGPU bash "$G/ompcl/run.sh" > $OUT/ompcl.log 2>&1
  row "ompcl several GPUs" cudacl "rc=$?"
  grep -E '^ompcl-mg:' $OUT/ompcl.log | tee -a $TABLE
fi
echo "== table =="
cat $TABLE
