#!/usr/bin/env bash
# Stages everything a run on the GPU machine needs into .gpu/ (ignored by git, carried by the
# device tool): the release libcudacl.so, libclc's nvptx bitcode, the C test programs and
# benchmarks built here, bench/cltrace.c as lib/cltrace.so, and .gpu/run.sh (scripts/gpu-run.sh),
# which runs the batch there, its parts picked with ONLY="part ...", and prints a table last.
# The GPU machine has gcc, ocl-icd, clinfo, NVIDIA's OpenCL and CUDA, but no Rust.
#   bash scripts/stage-gpu.sh [opencv]
# Optional, for the parts that run only when named:
#   opencv           (argument) Debian 12's OpenCV 4.6 and bench/opencv/ocvbench built against it,
#                    into .gpu/opencv/ (part "opencv"; 10 MB more: .gpu/ is then about
#                    61 MiB of the 64 MiB a run carries)
#   CTS_DIR=folder   a Khronos CTS built locally (never committed): its run.sh and cts-bin.tar.xz
#                    go to .gpu/cts/cts/ (parts "cts", "cts-images", and "multi"'s CTS rows)
#   OMPCL_PB=folder  PolyBench programs translated by ompcl, with their run.sh, into
#                    .gpu/ompcl-mg/ (part "multi"'s ompcl rows)
# IL programs with a translator are staged apart: scripts/stage-gpu-il.sh (.gpu-il/).
set -euo pipefail
cd "$(dirname "$0")/.."
opencv=0
for a in "$@"; do
  case "$a" in opencv) opencv=1 ;; *) echo "stage-gpu: unknown part $a (opencv)" >&2; exit 2 ;; esac
done
out=.gpu
rm -rf "$out"; mkdir -p "$out/bin" "$out/clc"
cargo build --release --lib
tgt=${CARGO_TARGET_DIR:-target}
# Statically linked clang/LLVM make the library large: it travels xz-compressed.
strip -o "$out/libcudacl.so" "$tgt/release/libcudacl.so"
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
for f in "$out"/jit/*.cl; do CUDACL_CACHE=0 "$tgt/release/ptxgen" "$f" -o "${f%.cl}.ptx" --sm 90 --ptx 8.5; done
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
# Part "jetson": conformance/jetson/ptxtarget.c (which PTX target the driver was given).
mkdir -p "$out/jetson"
cc -O2 -Wno-deprecated-declarations conformance/jetson/ptxtarget.c -o "$out/jetson/ptxtarget" -lOpenCL
# bench/surfbench.cu: built there with nvcc by part "surfbench" (no CUDA toolkit here).
mkdir -p "$out/cuda"; cp bench/surfbench.cu "$out/cuda/"
# The CTS's runners (conformance/cts/), and the CTS itself where one was built locally.
mkdir -p "$out/cts"
cp conformance/cts/gpu-cts.sh conformance/cts/gpu-cts-images.sh "$out/cts/"
if [ -n "${CTS_DIR:-}" ]; then
  mkdir -p "$out/cts/cts"; cp "$CTS_DIR/run.sh" "$CTS_DIR/cts-bin.tar.xz" "$out/cts/cts/"
fi
if [ -n "${OMPCL_PB:-}" ]; then cp -a "$OMPCL_PB" "$out/ompcl-mg"; fi
# OpenCV (part "opencv"): Debian 12's OpenCV 4.6 (core, imgproc, video) with the closure of shared
# libraries it needs beyond glibc/libstdc++/libgcc_s/libz (the GPU machine has no OpenCV), and
# ocvbench built against it with rpath $ORIGIN, as .gpu/opencv/ocv.tar.xz.
if [ $opencv = 1 ]; then
  tmp=$(mktemp -d)
  # libopencv-video406 needs calib3d and dnn (and they features2d, flann, protobuf); core needs
  # BLAS/LAPACK (gfortran), TBB, and libGLX (X11 and its libraries) for OpenGL interop.
  pkgs="libopencv-core406 libopencv-imgproc406 libopencv-video406 libopencv-calib3d406
    libopencv-dnn406 libopencv-features2d406 libopencv-flann406 libopencv-core-dev
    libopencv-imgproc-dev libopencv-video-dev libprotobuf32 libtbb12 libblas3 liblapack3
    libgfortran5 libquadmath0 libglx0 libglvnd0 libx11-6 libxcb1 libxau6 libxdmcp6 libbsd0 libmd0
    libstdc++6"
  (cd "$tmp" && apt-get download $pkgs >/dev/null 2>&1 && for d in *.deb; do dpkg-deb -x "$d" x; done)
  x=$tmp/x; lib=$x/usr/lib/x86_64-linux-gnu; s=$tmp/stage
  mkdir -p "$s/fallback"
  g++ -std=c++17 -O2 -Wall -I"$x/usr/include/opencv4" -I"$x/usr/include/x86_64-linux-gnu/opencv4" \
    bench/opencv/ocvbench.cpp -o "$s/ocvbench" -L"$lib" -lopencv_video -lopencv_imgproc -lopencv_core -ldl \
    -Wl,--disable-new-dtags,-rpath,'$ORIGIN' -Wl,-rpath-link,"$lib:$lib/blas:$lib/lapack"
  # The closure: every NEEDED library, recursively, except what any Linux with a C++ runtime has.
  base='^(libc|libm|libdl|libpthread|librt|libstdc\+\+|libgcc_s|libz|ld-linux-x86-64|libOpenCL)\.so'
  todo=("$s/ocvbench")
  while [ ${#todo[@]} -gt 0 ]; do
    f=${todo[0]}; todo=("${todo[@]:1}")
    for n in $(readelf -d "$f" | sed -n 's/.*NEEDED.*\[\(.*\)\]/\1/p'); do
      [[ $n =~ $base ]] && continue
      [ -e "$s/$n" ] && continue
      src=$(find "$lib" -name "$n" | head -1)
      [ -n "$src" ] || { echo "stage: $n (needed by $(basename "$f")) not found" >&2; exit 1; }
      cp -L "$src" "$s/$n"
      todo+=("$s/$n")
    done
  done
  # Debian's libstdc++ (GLIBCXX_3.4.30), used there only where the machine's is older.
  cp -L "$lib/libstdc++.so.6" "$s/fallback/"
  mkdir -p "$out/opencv"
  tar -C "$s" -cf - . | xz -T2 -6 > "$out/opencv/ocv.tar.xz"
  rm -rf "$tmp"
fi
cp scripts/gpu-run.sh "$out/run.sh"
cp scripts/appbench-table.sh "$out/appbench-table.sh"
du -sh "$out"
