#!/usr/bin/env bash
# On the GPU machine: buffers, kernels and ptxtarget in every integrated-GPU mode x every Jetson
# target, 6 at a time; one row per run, then a summary. OUT (default $OUT or /tmp/jetson-out).
G=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-/tmp/jetson-out}; mkdir -p "$OUT"
W=/tmp/cudacl-jetson; mkdir -p $W/empty
LIB=$W/libcudacl.so
xz -dc "$G/libcudacl.so.xz" > $LIB
export OCL_ICD_FILENAMES=$LIB OCL_ICD_VENDORS=$W/empty/ CUDACL_LIBCLC=$G/clc/nvptx64--nvidiacl.bc CUDACL_CACHE=0
nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader
clinfo -l
one() { # mode target prog
  local mode=$1 target=$2 prog=$3 env=()
  case $mode in
    discrete) ;;
    integrated) env=(CUDACL_FORCE_INTEGRATED=1) ;;
    nohostreg) env=(CUDACL_NO_HOST_REGISTER=1) ;;
    integrated+nohostreg) env=(CUDACL_FORCE_INTEGRATED=1 CUDACL_NO_HOST_REGISTER=1) ;;
  esac
  [ "$target" != native ] && env+=(CUDACL_TARGET=$target)
  local log="$OUT/$prog-$mode-${target/:/_}.log" t0=$EPOCHREALTIME rc
  env "${env[@]}" timeout 90 "$G/bin/$prog" > "$log" 2>&1; rc=$?
  local dt; dt=$(awk "BEGIN{print $EPOCHREALTIME - $t0}")
  local res; res=$(grep -E '[0-9]+ passed, [0-9]+ failed|ptxtarget: saxpy' "$log" | tail -1)
  local tgt; tgt=$(grep -E '^ptxtarget: \.(version|target)' "$log" | sed 's/ptxtarget: //' | tr '\n' ' ')
  printf '%-22s %-10s %-9s rc=%-3s %6.1fs  %s %s\n' "$mode" "$target" "$prog" "$rc" "$dt" "$res" "$tgt"
}
export -f one; export G OUT
for mode in discrete integrated nohostreg integrated+nohostreg; do
  for target in native sm_53:6.5 sm_62:6.5 sm_72:7.4 sm_87:7.4 sm_87:8.2; do
    for prog in ptxtarget buffers kernels; do echo "$mode $target $prog"; done
  done
done | xargs -P 6 -L 1 bash -c 'one "$0" "$1" "$2"' | sort > "$OUT/table.txt"
cat "$OUT/table.txt"
echo "runs: $(wc -l < "$OUT/table.txt"), rc!=0: $(grep -vc 'rc=0 ' "$OUT/table.txt")"
