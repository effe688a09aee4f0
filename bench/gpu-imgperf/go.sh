#!/usr/bin/env bash
# imgfast's GPU script (issue 13; staged by bench/gpu-imgperf/stage.sh into .gpu-final/imgfast/).
# At most ~165 s, prints a short table last:
#  - the library: libcudacl.so.xz beside this script when staged (unpacked to /tmp/imgfast/),
#    else $CUDACL_LIB (the lead's merged build);
#  - ptxgen/gpu/images_check on the CUDA driver API with the PTX of this branch's ptxgen: every
#    image built-in against the checker's own model of OpenCL 1.2 sections 8.2/8.3;
#  - bench/imagebench.c on cudacl and on NVIDIA (table last), and cudacl's writes and filters
#    once more (how much the numbers move from run to run; first table);
#  - with SURFBENCH=1, surfbench.cu (nvcc): the same RGBA8 kernels in CUDA, surface loads vs
#    texture fetches (call 2: suld 730 GB/s = tex 737 = NVIDIA's OpenCL 713 for the filter);
#  - tests/c/images.c on cudacl.
# Needs NV_LIB EMPTY OUT (and CUDACL_LIB CUDACL_LIBCLC) as the lead's call sets them. Logs are
# written to /tmp/imgfast-out and come back as one tarball, $OUT/imgfast/logs.tgz, beside
# summary.txt (what this script prints).
set -u
G=$(cd "$(dirname "$0")" && pwd)
O=/tmp/imgfast-out; rm -rf $O; mkdir -p $O $OUT/imgfast
lib=${CUDACL_LIB:-}
if [ -f $G/libcudacl.so.xz ]; then
  mkdir -p /tmp/imgfast && xz -dc $G/libcudacl.so.xz > /tmp/imgfast/libcudacl.so && lib=/tmp/imgfast/libcudacl.so
fi
echo "lib: $lib" > $O/lib.txt
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $O/machine.txt 2>&1
nvcc_path=$(command -v nvcc || ls /usr/local/cuda/bin/nvcc 2>/dev/null | head -1)
cuda=$(dirname "$(dirname "$(readlink -f "$nvcc_path")")")
( cd $G/ic && gcc -O2 -I"$cuda/include" -o /tmp/imgfast_images_check images_check.c \
    -L"$cuda/lib64/stubs" -L"$cuda/lib64" -lcuda -lm > $O/ic-build.txt 2>&1
  timeout 20 /tmp/imgfast_images_check . > $O/ic-cuda.txt 2> $O/ic-cuda.err; echo "rc=$?" >> $O/ic-cuda.txt )
[ -n "${SURFBENCH:-}" ] && ( timeout 40 "$nvcc_path" -O3 -arch=sm_90 -o /tmp/imgfast_surfbench $G/surfbench.cu > $O/surf-build.txt 2>&1 ) &
sel_c="OCL_ICD_FILENAMES=$lib OCL_ICD_VENDORS=$EMPTY/"
sel_n="OCL_ICD_FILENAMES=$NV_LIB OCL_ICD_VENDORS=$EMPTY/"
env $sel_c CUDACL_CACHE=0 IMAGEBENCH_ONLY=read,write,filter timeout 35 $G/imagebench > $O/bench-cudacl.txt 2> $O/bench-cudacl.err; echo "rc=$?" >> $O/bench-cudacl.err
env $sel_n IMAGEBENCH_ONLY=read,write,filter timeout 30 $G/imagebench > $O/bench-nvidia.txt 2> $O/bench-nvidia.err; echo "rc=$?" >> $O/bench-nvidia.err
env $sel_c CUDACL_CACHE=0 IMAGEBENCH_ONLY=write,filter timeout 25 $G/imagebench \
    > $O/bench-cudacl-spec.txt 2> $O/bench-cudacl-spec.err; echo "rc=$?" >> $O/bench-cudacl-spec.err
wait
[ -n "${SURFBENCH:-}" ] && [ -x /tmp/imgfast_surfbench ] && timeout 15 /tmp/imgfast_surfbench > $O/surfbench.txt 2>&1; echo "rc=$?" >> $O/surfbench.txt
( cd $G && env $sel_c timeout 25 ./images > $O/images-c.txt 2>&1; echo "rc=$?" >> $O/images-c.txt )
{
echo "imgfast: $(head -1 $O/machine.txt); $(cat $O/lib.txt)"
echo "images_check (ptxgen PTX, CUDA): $(grep -c '^PASS' $O/ic-cuda.txt) pass, $(grep -c '^FAIL' $O/ic-cuda.txt) fail, $(tail -1 $O/ic-cuda.txt)"
grep -h "^FAIL" $O/ic-cuda.txt | head -2
head -c 200 $O/ic-cuda.err
echo "tests/c/images.c: $(grep -iE 'passed|failed|skipped' $O/images-c.txt | tail -1) $(tail -1 $O/images-c.txt)"
echo "imagebench rc: cudacl $(tail -1 $O/bench-cudacl.err), NVIDIA $(tail -1 $O/bench-nvidia.err); cudacl again: $(tail -1 $O/bench-cudacl-spec.err) $(grep -h FAIL $O/bench-cudacl-spec.txt | head -2)"
echo "-- cudacl again (run-to-run spread) vs NVIDIA:"
$G/imagebench --table $O/bench-cudacl-spec.txt $O/bench-nvidia.txt | tail -n +2
[ -n "${SURFBENCH:-}" ] && echo "surfbench (CUDA, us GB/s): $(grep '^S' $O/surfbench.txt | awk '{printf "%s %s %s %s; ", $2, $3, $4, $5}') $(tail -1 $O/surfbench.txt)"
$G/imagebench --table $O/bench-cudacl.txt $O/bench-nvidia.txt
} 2>&1 | tee $O/summary.txt
cp $O/summary.txt $OUT/imgfast/summary.txt
tar czf $OUT/imgfast/logs.tgz -C /tmp imgfast-out
