#!/usr/bin/env bash
# The image-speed GPU script (issue 13), staged by bench/gpu-imgperf/stage.sh into
# .gpu-final/<name>/ (name: the folder's, imgfast in session 4, imgfilter in session 5). At most
# ~150 s and 25 lines, a table last:
#  - the library: libcudacl.so.xz beside this script when staged (unpacked to /tmp/<name>/),
#    else $CUDACL_LIB (the lead's merged build);
#  - ptxgen/gpu/images_check on the CUDA driver API with the PTX of this branch's ptxgen: every
#    image built-in against the checker's own model of OpenCL 1.2 sections 8.2/8.3;
#  - tests/c/images.c on cudacl;
#  - the filters on cudacl with PTXGEN_IMAGES_MAXNREG=0 (no .maxnreg on small specialised
#    kernels: what the bound gives), one line;
#  - bench/imagebench.c on cudacl and NVIDIA, twice each, alternating (IMAGEBENCH_ONLY=
#    read,write,filter); run 1's ratios in one line, run 2's table last.
# Needs NV_LIB EMPTY OUT (and CUDACL_LIB) as the lead's call sets them. Logs: /tmp/<name>-out,
# back as $OUT/<name>/logs.tgz beside summary.txt (what this script prints).
set -u
G=$(cd "$(dirname "$0")" && pwd)
N=$(basename "$G")
O=/tmp/$N-out; rm -rf $O; mkdir -p $O $OUT/$N
lib=${CUDACL_LIB:-}
if [ -f $G/libcudacl.so.xz ]; then
  mkdir -p /tmp/$N && xz -dc $G/libcudacl.so.xz > /tmp/$N/libcudacl.so && lib=/tmp/$N/libcudacl.so
fi
echo "lib: $lib" > $O/lib.txt
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $O/machine.txt 2>&1
nvcc_path=$(command -v nvcc || ls /usr/local/cuda/bin/nvcc 2>/dev/null | head -1)
cuda=$(dirname "$(dirname "$(readlink -f "$nvcc_path")")")
( cd $G/ic && gcc -O2 -I"$cuda/include" -o /tmp/${N}_images_check images_check.c \
    -L"$cuda/lib64/stubs" -L"$cuda/lib64" -lcuda -lm > $O/ic-build.txt 2>&1
  timeout 15 /tmp/${N}_images_check . > $O/ic-cuda.txt 2> $O/ic-cuda.err; echo "rc=$?" >> $O/ic-cuda.txt )
sel_c="OCL_ICD_FILENAMES=$lib OCL_ICD_VENDORS=$EMPTY/"
sel_n="OCL_ICD_FILENAMES=$NV_LIB OCL_ICD_VENDORS=$EMPTY/"
( cd $G && env $sel_c CUDACL_CACHE=0 timeout 18 ./images > $O/images-c.txt 2>&1; echo "rc=$?" >> $O/images-c.txt )
for r in 1 2; do
  env $sel_c CUDACL_CACHE=0 IMAGEBENCH_ONLY=read,write,filter timeout 24 $G/imagebench > $O/bench-cudacl-$r.txt 2> $O/bench-cudacl-$r.err; echo "rc=$?" >> $O/bench-cudacl-$r.err
  env $sel_n IMAGEBENCH_ONLY=read,write,filter timeout 20 $G/imagebench > $O/bench-nvidia-$r.txt 2> $O/bench-nvidia-$r.err; echo "rc=$?" >> $O/bench-nvidia-$r.err
done
variants="PTXGEN_IMAGES_MAXNREG=0"
for v in $variants; do
  env $sel_c CUDACL_CACHE=0 $v IMAGEBENCH_ONLY=filter timeout 10 $G/imagebench > $O/bench-cudacl-$v.txt 2>&1
done
rcs() { for f in "$@"; do printf '%s ' "$(tail -1 $f)"; done; }
{
echo "$N: $(head -1 $O/machine.txt); $(cat $O/lib.txt)"
echo "images_check (ptxgen PTX, CUDA): $(grep -c '^PASS' $O/ic-cuda.txt) pass, $(grep -c '^FAIL' $O/ic-cuda.txt) fail, $(tail -1 $O/ic-cuda.txt)"
grep -h "^FAIL" $O/ic-cuda.txt | head -2
head -c 200 $O/ic-cuda.err
echo "tests/c/images.c (cudacl): $(grep -iE 'passed|failed|skipped' $O/images-c.txt | tail -1) $(tail -1 $O/images-c.txt)"
echo "imagebench rc: cudacl $(rcs $O/bench-cudacl-[12].err)NVIDIA $(rcs $O/bench-nvidia-[12].err)"
for v in $variants; do
  echo "filters, $v: $(grep '^R' $O/bench-cudacl-$v.txt | awk '{printf "%s %s %s; ", $2, $4, $5}')"
done
echo "run 1 (cudacl/NVIDIA): $($G/imagebench --table $O/bench-cudacl-1.txt $O/bench-nvidia-1.txt | tail -n +2 | awk '{printf "%s %s/%s=%s; ", $1, $2, $4, $6}')"
echo "-- run 2:"
$G/imagebench --table $O/bench-cudacl-2.txt $O/bench-nvidia-2.txt
} 2>&1 | tee $O/summary.txt
cp $O/summary.txt $OUT/$N/summary.txt
tar czf $OUT/$N/logs.tgz -C /tmp $N-out
