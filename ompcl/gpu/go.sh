#!/bin/bash
# On the GPU machine, from the folder staged by stage-polybench.sh (pb/) and stage.sh (corpus/),
# with libcudacl.so.xz and clc/ beside them: bash go.sh   (results in $OUT)
set -u
G=$(cd "$(dirname "$0")" && pwd); O=${OUT:-/tmp/out}; mkdir -p "$O"
unset OCL_ICD_FILENAMES
V=/tmp/vendors; rm -rf $V; mkdir -p $V/cudacl $V/nvidia /tmp/cudacl
LIB=/tmp/cudacl/libcudacl.so; xz -dc "$G/libcudacl.so.xz" > $LIB
echo $LIB > $V/cudacl/cudacl.icd; echo libnvidia-opencl.so.1 > $V/nvidia/nvidia.icd
export CUDACL_LIBCLC=$G/clc/nvptx64--nvidiacl.bc CUDACL_CACHE_DIR=/tmp/cudacl-cache
export OCL_ICD_VENDORS_cudacl=$V/cudacl/ OCL_ICD_VENDORS_nvidia=$V/nvidia/
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; } > $O/machine.txt 2>&1
for L in cudacl nvidia; do OCL_ICD_VENDORS=$V/$L/ bash "$G/pb/run.sh" check $L; done > $O/pb-check.txt 2>&1
cat $O/pb-check.txt
bash "$G/pb/run.sh" time cudacl nvidia gcc16 > $O/pb-time.txt 2>&1
cat $O/pb-time.txt
for L in cudacl nvidia; do
  OCL_ICD_VENDORS=$V/$L/ timeout 100 bash "$G/corpus/run.sh" $L > $O/corpus-$L.txt 2>&1
  tail -3 $O/corpus-$L.txt
done
