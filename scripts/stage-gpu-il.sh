#!/usr/bin/env bash
# Stages the GPU check of IL (SPIR-V) programs into .gpu-il/ (ignored by git, for the device
# tool's carry; apart from .gpu/ because the translator's LLVM 15 would take .gpu/ past the
# 64 MiB a run can carry): the release libcudacl.so and libclc, tests/c/il.c, cl30.c,
# kernel_api.c and errors.c built here, the SPIR-V of il.c's kernels (clang-15 + llvm-spirv-15),
# and the translator ptxgen runs (Debian's llvm-spirv-15 with libLLVM-15, libLLVMSPIRVLib and
# libz3; the GPU machine has the other libraries they need) behind a wrapper.
# On the GPU machine: bash .gpu-il/run.sh (each program's "N passed, M failed"; logs in $OUT).
set -euo pipefail
cd "$(dirname "$0")/.."
out=.gpu-il
rm -rf "$out"; mkdir -p "$out/bin" "$out/lib"
cargo build --release --lib
strip -o "$out/libcudacl.so" "${CARGO_TARGET_DIR:-target}/release/libcudacl.so"
xz -T2 -6 "$out/libcudacl.so"
xz -T2 -6 -c /usr/lib/clc/nvptx64--nvidiacl.bc > "$out/nvptx64--nvidiacl.bc.xz"
CFLAGS=(-O2 -g -Wall -DCL_TARGET_OPENCL_VERSION=300 -DCL_USE_DEPRECATED_OPENCL_1_0_APIS
        -DCL_USE_DEPRECATED_OPENCL_1_1_APIS -DCL_USE_DEPRECATED_OPENCL_1_2_APIS -I tests/c)
for t in il cl30 kernel_api errors; do
  cc "${CFLAGS[@]}" "tests/c/$t.c" -o "$out/bin/$t" -lOpenCL -lm -lpthread -ldl
done
"$out/bin/il" --print-source > "$out/il.cl"
clang-15 -cl-std=CL2.0 -target spir64 -emit-llvm -c -Xclang -finclude-default-header "$out/il.cl" -o "$out/il.bc"
llvm-spirv-15 "$out/il.bc" -o "$out/il.spv"
rm "$out/il.bc"
cp /usr/bin/llvm-spirv-15 "$out/llvm-spirv-15.bin"
for l in libLLVM-15.so.1 libLLVMSPIRVLib.so.15 libz3.so.4; do
  xz -T2 -6 -c "$(ldd /usr/bin/llvm-spirv-15 | awk -v l=$l '$1 == l {print $3}')" > "$out/lib/$l.xz"
done
cat > "$out/llvm-spirv" <<'SH'
#!/bin/sh
# Unpacks the libraries once (into /tmp: the staged folder may be read-only), then runs the
# translator with them.
d=$(cd "$(dirname "$0")" && pwd)
l=${TMPDIR:-/tmp}/cudacl-llvm-spirv-lib; mkdir -p "$l"
# (each to a private name, then renamed: builds on several threads may start it at once)
for x in "$d"/lib/*.xz; do
  f=$l/$(basename "${x%.xz}")
  [ -f "$f" ] || { xz -dc "$x" > "$f.$$" && mv "$f.$$" "$f"; }
done
LD_LIBRARY_PATH="$l${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "$d/llvm-spirv-15.bin" "$@"
SH
chmod +x "$out/llvm-spirv"
cat > "$out/run.sh" <<'SH'
#!/usr/bin/env bash
# IL programs on the GPU through the ICD loader (see scripts/stage-gpu-il.sh).
set -uo pipefail
G=$(cd "$(dirname "$0")" && pwd)
T=/tmp/cudacl-il; mkdir -p "$T/vendors"
[ -f "$T/libcudacl.so" ] || xz -dc "$G/libcudacl.so.xz" > "$T/libcudacl.so"
[ -f "$T/nvptx64--nvidiacl.bc" ] || xz -dc "$G/nvptx64--nvidiacl.bc.xz" > "$T/nvptx64--nvidiacl.bc"
echo "$T/libcudacl.so" > "$T/vendors/cudacl.icd"
# Only cudacl (the image's OCL_ICD_FILENAMES would add PoCL and NVIDIA); ocl-icd there wants
# the folder's trailing "/".
unset OCL_ICD_FILENAMES
export OCL_ICD_VENDORS=$T/vendors/ CUDACL_LIBCLC=$T/nvptx64--nvidiacl.bc CUDACL_CACHE_DIR=$T/cache
export CUDACL_LLVM_SPIRV=$G/llvm-spirv CL_PLATFORM_NAME=cudacl
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "translator: $("$CUDACL_LLVM_SPIRV" --version 2>&1 | head -1)"
fails=0
prog() { # log-name program args...
  local name=$1; shift
  timeout 300 "$@" > "$OUT/$name.log" 2>&1
  local rc=$?
  printf '%-28s rc=%d %s\n' "$name" $rc "$(grep -E '[0-9]+ passed, [0-9]+ failed' "$OUT/$name.log" | tail -1)"
  [ $rc = 0 ] || { fails=$((fails + 1)); tail -20 "$OUT/$name.log"; }
}
prog il-gpu "$G/bin/il" "$G/il.spv" gpu
CUDACL_LLVM_SPIRV= prog il-no-translator "$G/bin/il"
prog cl30-gpu "$G/bin/cl30" gpu
prog kernel_api "$G/bin/kernel_api"
prog errors "$G/bin/errors" loader
echo "il batch: $fails program(s) failed"
exit $fails
SH
chmod +x "$out/run.sh"
du -sh "$out"
