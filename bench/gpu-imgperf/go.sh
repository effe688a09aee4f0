#!/usr/bin/env bash
# imgperf's final GPU script (wave 2; staged by bench/gpu-imgperf/stage.sh into
# .gpu-final2/imgperf/). At most ~115 s:
#  - ptxgen/gpu/images_check on the CUDA driver API with the PTX of imgperf's ptxgen: every image
#    built-in against the checker's own model of OpenCL 1.2 sections 8.2/8.3 (exit = failed rows);
#  - bench/imagebench.c on cudacl (main's libcudacl.so, with imgperf's images.cl and image
#    transfers unstaged by default), on NVIDIA, then cudacl's transfers staged again
#    (CUDACL_IMAGE_STAGING_MIN=8 MiB, img13b's old default) for the before/after.
# Needs CUDACL_LIB NV_LIB EMPTY OUT (set by the lead's final call).
set -u
G=$(cd "$(dirname "$0")" && pwd)
O=$OUT/imgperf; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $O/machine.txt 2>&1
nvcc_path=$(command -v nvcc || ls /usr/local/cuda/bin/nvcc 2>/dev/null | head -1)
cuda=$(dirname "$(dirname "$(readlink -f "$nvcc_path")")")
( cd $G/ic && gcc -O2 -I"$cuda/include" -o /tmp/imgperf_images_check images_check.c \
    -L"$cuda/lib64/stubs" -L"$cuda/lib64" -lcuda -lm > $O/ic-build.txt 2>&1
  timeout 20 /tmp/imgperf_images_check . > $O/ic-cuda.txt 2> $O/ic-cuda.err; echo "rc=$?" >> $O/ic-cuda.txt )
sel_c="OCL_ICD_FILENAMES=$CUDACL_LIB OCL_ICD_VENDORS=$EMPTY/"
sel_n="OCL_ICD_FILENAMES=$NV_LIB OCL_ICD_VENDORS=$EMPTY/"
env $sel_c timeout 35 $G/imagebench > $O/bench-cudacl.txt 2> $O/bench-cudacl.err; echo "rc=$?" >> $O/bench-cudacl.err
env $sel_n timeout 30 $G/imagebench > $O/bench-nvidia.txt 2> $O/bench-nvidia.err; echo "rc=$?" >> $O/bench-nvidia.err
env $sel_c IMAGEBENCH_ONLY=transfer CUDACL_IMAGE_STAGING_MIN=8388608 timeout 20 $G/imagebench \
    > $O/bench-cudacl-staged.txt 2>&1
echo "imgperf: $(head -1 $O/machine.txt)"
echo "images_check (ptxgen PTX, CUDA): $(grep -c '^PASS' $O/ic-cuda.txt) pass, $(grep -c '^FAIL' $O/ic-cuda.txt) fail, $(tail -1 $O/ic-cuda.txt)"
grep -h '^FAIL' $O/ic-cuda.txt | head -4
head -c 300 $O/ic-cuda.err
echo "imagebench rc: cudacl $(tail -1 $O/bench-cudacl.err), NVIDIA $(tail -1 $O/bench-nvidia.err)"
echo "cudacl transfers staged (8 MiB threshold): $(grep '^R' $O/bench-cudacl-staged.txt | awk '{printf "%s %s GB/s %s; ", $2, $4, $5}')"
$G/imagebench --table $O/bench-cudacl.txt $O/bench-nvidia.txt
