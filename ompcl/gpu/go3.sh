#!/bin/bash
# Third GPU batch (2026-11-23, issue 11's device locks and __constant globals): correctness only,
# within one 150-second call. PolyBench-ACC SMALL checks and the ompcl corpus, through cudacl and
# through NVIDIA's OpenCL, with where each region ran. From the folder staged by
# stage-polybench.sh (pb/) and stage.sh (corpus/), with libcudacl.so.xz and clc/ beside them:
#   bash go3.sh      (results in $OUT)
set -u
G=$(cd "$(dirname "$0")" && pwd); O=${OUT:-/tmp/out}; mkdir -p "$O"
unset OCL_ICD_FILENAMES
V=/tmp/vendors; rm -rf $V; mkdir -p $V/cudacl $V/nvidia /tmp/cudacl
LIB=/tmp/cudacl/libcudacl.so; xz -dc "$G/libcudacl.so.xz" > $LIB
NV=$(ls /usr/local/nvidia/lib64/libnvidia-opencl.so.1 2>/dev/null || echo libnvidia-opencl.so.1)
echo $LIB > $V/cudacl/cudacl.icd; echo $NV > $V/nvidia/nvidia.icd
export CUDACL_LIBCLC=$G/clc/nvptx64--nvidiacl.bc CUDACL_CACHE_DIR=/tmp/cudacl-cache
{ date -u; nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader; nproc;
  for L in cudacl nvidia; do echo "-- $L"; OCL_ICD_VENDORS=$V/$L/ clinfo -l; done; } > $O/machine.txt 2>&1
cat $O/machine.txt
for L in cudacl nvidia; do OCL_ICD_VENDORS=$V/$L/ timeout 30 bash "$G/pb/run.sh" check $L; done > $O/pb-check3.txt 2>&1
cat $O/pb-check3.txt
for L in cudacl nvidia; do
  OCL_ICD_VENDORS=$V/$L/ OMPCL_RUN_TIMEOUT=20 timeout 45 bash "$G/corpus/run.sh" $L > $O/corpus-$L.txt 2>&1
  cp -r "$G/corpus/results/$L" "$O/corpus-results-$L" 2>/dev/null
done
echo "== corpus: device-locked criticals and __constant globals =="
for L in cudacl nvidia; do
  grep -E '^(c27|c72|c73|c74|c75)' $O/corpus-$L.txt | sed "s/^/$L /"
  grep -h 'ompcl-profile: .*region\|stay in __global' "$G"/corpus/results/$L/c7[2-5]*.err 2>/dev/null | sed "s/^/$L   /"
done
echo "== summary =="
for L in cudacl nvidia; do echo "$L corpus: $(grep -E '^passed' $O/corpus-$L.txt) FAILS: $(grep -c ' FAIL ' $O/corpus-$L.txt)"; grep ' FAIL ' $O/corpus-$L.txt; done
for L in cudacl nvidia; do echo "$L polybench: $(grep -c " $L .*PASS" $O/pb-check3.txt) PASS of $(grep -c " $L " $O/pb-check3.txt)"; done
