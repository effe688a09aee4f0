#!/usr/bin/env bash
# img13b's final GPU script (wave 2; staged by bench/gpu-img13b/stage.sh into .gpu-final/img13b/).
# Runs, in at most ~170 s, beside other helpers' scripts:
#  - bench/imagebench.c on cudacl, then on NVIDIA (each result checked on the CPU), as a table;
#  - a Khronos CTS image subset on both platforms at once, 9 processes per platform, that covers
#    2Darray, 3D and CL_FILTER_LINEAR with a few formats (args below);
#  - one of those (images_streams 2Darray NEAREST RGBA SIGNED_INT8: the lead's 20:40 run did 96
#    2Darray sub-tests on cudacl where NVIDIA did 268, most of them int formats) under bench/clcalltime.c, the time spent
#    inside each OpenCL entry point against the process's wall time, per platform.
# Needs CUDACL_LIB CUDACL_LIBCLC NV_LIB EMPTY OUT (set by the lead's final call).
set -u
G=$(cd "$(dirname "$0")" && pwd)
O=$OUT/img13b; mkdir -p $O
CTS=$G/../cts
export CTS_UNPACK=/tmp/cts-run-img13b CL_WIMPY_MODE=1 CUDACL_LIBCLC
END=$((SECONDS + ${IMG13B_SECONDS:-168}))
bash $CTS/run.sh > /dev/null 2>&1   # unpacks once
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $O/machine.txt 2>&1
# The limits the CTS sizes its random images from, per platform.
for v in cudacl nvidia; do
  lib=$CUDACL_LIB; [ $v = nvidia ] && lib=$NV_LIB
  env OCL_ICD_FILENAMES=$lib OCL_ICD_VENDORS=$EMPTY/ timeout 10 clinfo > $O/clinfo-$v.txt 2>&1
done
date -u >> $O/machine.txt

# tag|suite|args (same args for both platforms)
RUNS=(
 "get_info.small|images_get_info|small_images 2Darray 3D"
 "kernel_methods|images_kernel_methods|2Darray 3D CL_RGBA CL_UNORM_INT8"
 "streams.2Darray.lin|images_streams|2Darray CL_FILTER_LINEAR CL_RGBA CL_UNORM_INT8"
 "streams.3D.lin|images_streams|3D CL_FILTER_LINEAR CL_RGBA CL_FLOAT"
 "streams.2Darray.int|images_streams|2Darray CL_FILTER_NEAREST CL_RGBA CL_SIGNED_INT8"
 "copy|images_copy|2Darray 3D 2Dto3D 3Dto2Darray CL_RGBA CL_UNORM_INT8"
 "read_write|images_read_write|2Darray 3D CL_RGBA CL_UNORM_INT8"
 "fill|images_fill|2Darray 3D CL_RGBA CL_UNORM_INT8"
 "samplerless|images_samplerless|2Darray 3D CL_RGBA CL_FLOAT"
)
pids=()
for v in cudacl nvidia; do
  lib=$CUDACL_LIB; [ $v = nvidia ] && lib=$NV_LIB
  for r in "${RUNS[@]}"; do
    IFS='|' read -r tag suite args <<< "$r"
    pre=""; [ $tag = streams.2Darray.int ] && pre=$G/clcalltime.so
    mkdir -p $O/$v/$tag
    ( export CUDA_CACHE_PATH=/tmp/nvcache-img13b/$v.$tag CLCALLTIME_OUT=$O/calls-$v.txt CUDACL_BUILD_TIMES=1
      env "CTS_ARGS_$suite=$args" LOGDIR=$O/$v/$tag CTS_TIMEOUT=$((END - SECONDS - 12)) \
          OCL_ICD_VENDORS=$lib ${pre:+LD_PRELOAD=$pre} bash $CTS/run.sh $suite \
          | sed "s/^$suite /$tag /" > $O/$v/$tag/line.txt 2>&1 ) &
    pids+=($!)
  done
done
# imagebench: cudacl, then NVIDIA (not at once: both would share the GPU's bandwidth)
( env OCL_ICD_FILENAMES=$CUDACL_LIB OCL_ICD_VENDORS=$EMPTY/ timeout 50 $G/imagebench > $O/bench-cudacl.txt 2> $O/bench-cudacl.err
  echo "rc=$?" >> $O/bench-cudacl.err
  env OCL_ICD_FILENAMES=$NV_LIB OCL_ICD_VENDORS=$EMPTY/ timeout 50 $G/imagebench > $O/bench-nvidia.txt 2> $O/bench-nvidia.err
  echo "rc=$?" >> $O/bench-nvidia.err
  # cudacl's transfers without the staging of large image transfers (CUDACL_STAGING_MIN huge)
  env OCL_ICD_FILENAMES=$CUDACL_LIB OCL_ICD_VENDORS=$EMPTY/ IMAGEBENCH_ONLY=transfer CUDACL_STAGING_MIN=1000000000000 \
      timeout 25 $G/imagebench > $O/bench-cudacl-nostaging.txt 2>&1 ) &
bp=$!
wait $bp
for p in "${pids[@]}"; do wait $p; done

echo "img13b: $(head -1 $O/machine.txt); CTS quick mode, both platforms at once"
$G/imagebench --table $O/bench-cudacl.txt $O/bench-nvidia.txt
printf "%-22s %-36s %s\n" "CTS subset" "cudacl" "NVIDIA"
for r in "${RUNS[@]}"; do
  tag=${r%%|*}
  c=$(cut -d' ' -f2- $O/cudacl/$tag/line.txt 2>/dev/null | head -1)
  n=$(cut -d' ' -f2- $O/nvidia/$tag/line.txt 2>/dev/null | head -1)
  printf "%-22s %-36s %s\n" "$tag" "${c:-none}" "${n:-none}"
done
lim() { grep -m1 "$2" $O/clinfo-$1.txt 2>/dev/null | sed 's/.*  \([0-9]\)/\1/; s/ pixels//; s/ images//'; }
echo "limits 2D/3D/array/alloc: cudacl $(lim cudacl 'Max 2D image size') $(lim cudacl 'Max 3D image size') $(lim cudacl 'image array size') $(lim cudacl 'Max memory allocation' | cut -d' ' -f1); NVIDIA $(lim nvidia 'Max 2D image size') $(lim nvidia 'Max 3D image size') $(lim nvidia 'image array size') $(lim nvidia 'Max memory allocation' | cut -d' ' -f1)"
J=$(grep -ho 'jit (device 0) [0-9.]* ms' $O/cudacl/streams.2Darray.int/*.log 2>/dev/null | awk '{s+=$4; n++} END {if (n) printf "%d JITs, mean %.2f ms, total %.2f s", n, s/n, s/1000}')
echo "cudacl, image staging off: $(grep '^R' $O/bench-cudacl-nostaging.txt | awk '{printf "%s %s GB/s %s; ", $2, $4, $5}')streams.2Darray.int: ${J:-no JIT times}"
for v in cudacl nvidia; do
  echo "calls $v: $(head -1 $O/calls-$v.txt 2>/dev/null); top: $(tail -n +2 $O/calls-$v.txt 2>/dev/null | sort -k4 -nr | head -2 | awk '{printf "%s %ss/%s; ", $1, $4, $2}')"
done
tar czf $O/cts-logs.tgz -C $O cudacl nvidia 2>/dev/null && rm -rf $O/cudacl $O/nvidia
