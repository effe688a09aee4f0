#!/usr/bin/env bash
# Stages everything a run on the GPU machine needs into .gpu/ (ignored by git, carried by the
# device tool): the release libcudacl.so, libclc's nvptx bitcode, the C test programs and
# benchmarks built here, and .gpu/run.sh, which runs the batch there and prints a table last.
# The GPU machine has gcc, ocl-icd, clinfo, NVIDIA's OpenCL and CUDA, but no Rust.
set -euo pipefail
cd "$(dirname "$0")/.."
out=.gpu
rm -rf "$out"; mkdir -p "$out/bin" "$out/clc"
cargo build --release --lib
# Statically linked clang/LLVM make the library large: it travels xz-compressed.
strip -o "$out/libcudacl.so" target/release/libcudacl.so
xz -T2 -3 "$out/libcudacl.so"
cp /usr/lib/clc/nvptx64--nvidiacl.bc "$out/clc/"
CFLAGS=(-O2 -g -Wall -DCL_TARGET_OPENCL_VERSION=300 -DCL_USE_DEPRECATED_OPENCL_1_0_APIS
        -DCL_USE_DEPRECATED_OPENCL_1_1_APIS -DCL_USE_DEPRECATED_OPENCL_1_2_APIS -I tests/c)
for src in tests/c/*.c bench/*.c; do
  [ -f "$src" ] || continue
  name=$(basename "$src" .c)
  case "$name" in clblast_sgemm|poolalloc) continue ;; esac # CLBlast below; CUDA: on the GPU machine
  # bench/cltrace.c, the tracing shim, has no main: built below, into lib/ (bin/ holds programs)
  grep -q '^int main' "$src" || continue
  cc "${CFLAGS[@]}" "$src" -o "$out/bin/$name" -lOpenCL -lm -lpthread -ldl
done
# The tracing shim (bench/cltrace.c: LD_PRELOAD or OPENCV_OPENCL_RUNTIME; CLTRACE picks its modes)
mkdir -p "$out/lib"
cc -O2 -Wall -Wextra -shared -fPIC bench/cltrace.c -o "$out/lib/cltrace.so" -ldl -lpthread -Wl,--no-as-needed -lOpenCL
# IL programs with a translator: scripts/stage-gpu-il.sh stages them apart (.gpu-il/): with LLVM
# 15 in it, this folder would pass the 64 MiB a run can carry. Here il runs its queries only.
# The 6-kernel source of bench/buildbench.c as PTX, whole and one file per kernel, for
# bench/jitbench.c (the driver's JIT time, serial and parallel).
mkdir -p "$out/jit"
cargo build --release -p ptxgen --bin ptxgen
"$out/bin/buildbench" --print-source > "$out/jit/six.cl"
# bench/appbench.c's launch kernel as ptxgen makes it, for its raw-CUDA rows.
"$out/bin/appbench" --print-axpb4 > "$out/jit/axpb4.cl"
python3 - "$out/jit" <<'PY'
import sys
d = sys.argv[1]
for part in open(f"{d}/six.cl").read().split("__kernel ")[1:]:
    name = part.split("(")[0].split()[-1]
    open(f"{d}/k_{name}.cl", "w").write("__kernel " + part)
PY
for f in "$out"/jit/*.cl; do CUDACL_CACHE=0 target/release/ptxgen "$f" -o "${f%.cl}.ptx" --sm 90 --ptx 8.5; done
# Extra stages contributed by the sub-projects (ptxgen's PTX corpus, ompcl's programs).
for sub in ptxgen ompcl; do
  if [ -f "$sub/gpu/stage.sh" ]; then bash "$sub/gpu/stage.sh" "$out/$sub" || echo "stage: $sub failed (skipped)"; fi
done
# Third-party suites: PyOpenCL's tests, piglit's OpenCL tests, clpeak (Debian's binary).
bash conformance/pyopencl/stage.sh "$out/pyopencl" >/dev/null || echo "stage: pyopencl failed (skipped)"
bash conformance/piglit/stage.sh "$out/piglit" >/dev/null || echo "stage: piglit failed (skipped)"
tmp=$(mktemp -d); ( cd "$tmp" && apt-get download clpeak >/dev/null 2>&1 && dpkg-deb -x clpeak_*.deb x && cp x/usr/bin/clpeak "$OLDPWD/$out/clpeak" ) || echo "stage: clpeak failed (skipped)"; rm -rf "$tmp"
# CLBlast (Debian's libclblast1/-dev, whose library needs only libOpenCL, libstdc++ and libc):
# bench/clblast_sgemm.c beside its library (lib/cltrace.so's defines mode prints the tuning it picks).
tmp=$(mktemp -d); mkdir -p "$out/clblast"
( cd "$tmp" && apt-get download libclblast1 libclblast-dev >/dev/null 2>&1 && for d in *.deb; do dpkg-deb -x "$d" x; done ) &&
  cc -O2 -Wall bench/clblast_sgemm.c -o "$out/clblast/clblast_sgemm" -I"$tmp/x/usr/include" \
     -L"$tmp/x/usr/lib/x86_64-linux-gnu" -l:libclblast.so.1 -Wl,-rpath,'$ORIGIN' -lOpenCL -lm &&
  cp -L "$tmp/x/usr/lib/x86_64-linux-gnu/libclblast.so.1" "$out/clblast/" && xz -T2 -3 "$out/clblast/libclblast.so.1" || echo "stage: clblast failed (skipped)"
rm -rf "$tmp"
cp scripts/gpu-run.sh "$out/run.sh"
cp scripts/appbench-table.sh "$out/appbench-table.sh"
du -sh "$out"
