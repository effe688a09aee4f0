#!/usr/bin/env bash
# Stages the image check (images_check.c) for the GPU machine:
#   ptxgen/gpu/images_stage.sh OUT_DIR
# OUT_DIR gets images_check.{c,cl,ptx,args}, images_check_ocl (the OpenCL build of the checker,
# made here where the CL headers are), ptxgen's corpus image kernels as PTX, and go.sh, which on
# the GPU machine builds the CUDA checker (gcc, cuda.h, libcuda there), runs it on ptxgen's PTX,
# runs the OpenCL build on NVIDIA's OpenCL, and assembles the PTX with ptxas.
# Set PTXGEN=/path/to/ptxgen to use a given binary instead of building one.
set -euo pipefail
out=${1:?usage: images_stage.sh OUT_DIR}
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
if [ -z "${PTXGEN:-}" ]; then
  (cd "$here" && cargo build --release -p ptxgen --bin ptxgen >&2)
  PTXGEN=$here/../target/release/ptxgen
fi
cp "$here/gpu/images_check.c" "$here/gpu/images_check.cl" "$out/"
CUDACL_CACHE=0 "$PTXGEN" "$out/images_check.cl" -o "$out/images_check.ptx" --args >"$out/images_check.args"
for f in "$here"/tests/corpus/images_*.cl; do
  CUDACL_CACHE=0 "$PTXGEN" "$f" -o "$out/corpus_$(basename "$f" .cl).ptx"
done
gcc -O2 -Wall -DUSE_OPENCL -o "$out/images_check_ocl" "$here/gpu/images_check.c" -lOpenCL -lm
cat >"$out/go.sh" <<'GO'
#!/usr/bin/env bash
# On the GPU machine: bash go.sh (from this folder). Results go to $OUT (or ./out).
cd "$(dirname "$0")"
res=${OUT:-out}; mkdir -p "$res"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$res/gpu.txt"
nvcc_path=$(command -v nvcc || ls /usr/local/cuda/bin/nvcc 2>/dev/null | head -1)
cuda=$(dirname "$(dirname "$(readlink -f "$nvcc_path")")")
gcc -O2 -I"$cuda/include" -o images_check images_check.c -L"$cuda/lib64/stubs" -L"$cuda/lib64" -lcuda -lm 2>&1 | tail -5
echo "== ptxgen PTX on the CUDA driver API"
./images_check . >"$res/cuda.txt" 2>"$res/cuda.err"; echo "rc=$?" >>"$res/cuda.txt"
nv=$(ls /usr/local/nvidia/lib64/libnvidia-opencl.so.1 /usr/lib/x86_64-linux-gnu/libnvidia-opencl.so.1 2>/dev/null | head -1)
echo "== NVIDIA OpenCL ($nv)"
OCL_ICD_FILENAMES=$nv OCL_ICD_VENDORS=/nonexistent/ ./images_check_ocl . >"$res/nvidia.txt" 2>"$res/nvidia.err"; echo "rc=$?" >>"$res/nvidia.txt"
echo "== ptxas"
for p in *.ptx; do "$cuda/bin/ptxas" -arch=sm_90 -v "$p" -o /dev/null >"$res/ptxas_$p.txt" 2>&1; echo "$p ptxas rc=$?"; done
echo "== summary"
for f in cuda nvidia; do echo "$f: $(grep -c '^PASS' "$res/$f.txt") pass, $(grep -c '^FAIL' "$res/$f.txt") fail, $(grep -c '^SKIP' "$res/$f.txt") skip; $(tail -1 "$res/$f.txt")"; done
grep -h '^FAIL' "$res/cuda.txt" | head -40
head -20 "$res/cuda.err"
GO
echo "staged in $out"
