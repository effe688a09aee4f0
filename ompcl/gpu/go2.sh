#!/bin/bash
# Second, shorter GPU batch: PolyBench checks (SMALL) and LARGE timings through cudacl and NVIDIA only.
set -u
G=$(cd "$(dirname "$0")" && pwd); O=${OUT:-/tmp/out}; mkdir -p "$O"
unset OCL_ICD_FILENAMES
V=/tmp/vendors; rm -rf $V; mkdir -p $V/cudacl $V/nvidia /tmp/cudacl
LIB=/tmp/cudacl/libcudacl.so; xz -dc "$G/libcudacl.so.xz" > $LIB
echo $LIB > $V/cudacl/cudacl.icd; echo libnvidia-opencl.so.1 > $V/nvidia/nvidia.icd
export CUDACL_LIBCLC=$G/clc/nvptx64--nvidiacl.bc CUDACL_CACHE_DIR=/tmp/cudacl-cache
export OCL_ICD_VENDORS_cudacl=$V/cudacl/ OCL_ICD_VENDORS_nvidia=$V/nvidia/
for L in cudacl nvidia; do OCL_ICD_VENDORS=$V/$L/ bash "$G/pb/run.sh" check $L; done > $O/pb-check2.txt 2>&1
cat $O/pb-check2.txt
bash "$G/pb/run.sh" time cudacl nvidia > $O/pb-time2.txt 2>&1
cat $O/pb-time2.txt
