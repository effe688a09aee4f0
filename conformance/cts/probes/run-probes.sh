#!/bin/bash
# Staged as go3.sh beside stage.sh's output (plus diag/{cufault,ptk2} built from the probes here and
# bin/kernels): not run (device budget). conf14 run 3: diagnostics (raw CUDA after a fault; parameter_types' kernel with launches and
# releases; the CTS's parameter_types alone three ways), then groups3.txt on both platforms.
cd "$(dirname "$0")"
D=$PWD; mkdir -p /tmp/cudacl /tmp/v-empty ${OUT:-/tmp/out}; xz -dc libcudacl.so.xz > /tmp/cudacl/libcudacl.so
NV=$(ldconfig -p | awk '/libnvidia-opencl\.so\.1 /{print $NF; exit}')
CU="OCL_ICD_FILENAMES=/tmp/cudacl/libcudacl.so OCL_ICD_VENDORS=/tmp/v-empty/ CUDACL_LIBCLC=$D/clc/nvptx64--nvidiacl.bc"
bash cts/run.sh > /dev/null 2>&1
{ echo "== cufault"; timeout 60 ./diag/cufault
  echo "== ptk2 cudacl"; env $CU CUDACL_CACHE=0 timeout 60 ./diag/ptk2
  for mode in default CUDACL_CACHE=0 CUDA_MODULE_LOADING=EAGER; do
    echo "== CTS parameter_types cudacl $mode"; ( cd /tmp/cts-run/cts/basic && env $CU CL_DEVICE_TYPE=gpu CL_WIMPY_MODE=1 $( [ $mode = default ] || echo $mode ) timeout 60 ./test_basic parameter_types 2>&1 | grep -E 'cudacl|ERROR|passed|FAILED|Testing' )
  done
  echo "== kernels libclc on nvidia"; OCL_ICD_FILENAMES=$NV OCL_ICD_VENDORS=/tmp/v-empty/ CL_PLATFORM_NAME=NVIDIA timeout 60 ./bin/kernels libclc
  echo "== kernels fault alone, cudacl"; env $CU CL_PLATFORM_NAME=cudacl timeout 60 ./bin/kernels fault
} > /tmp/diag.txt 2>&1
cat /tmp/diag.txt; cp /tmp/diag.txt ${OUT:-/tmp/out}/
DEADLINE=${DEADLINE:-270} CTS_GROUPS="$(cat groups3.txt)" bash ./gpu-cts.sh
