#!/usr/bin/env bash
# Stages bench/opencv for the GPU machine: Debian 12's OpenCV 4.6 (core, imgproc, video) with the
# closure of shared libraries it needs beyond glibc/libstdc++/libgcc_s/libz (the machine has no
# OpenCV), ocvbench built against it with rpath $ORIGIN, bench/cltrace.c (cltrace.so, whose count mode counts
# kernels), go.sh.
# Usage: bash bench/opencv/stage.sh [out-folder]   (default /work/main/.gpu-final/opencv12)
# Needs apt-get (download only: no root), g++, xz. Writes <out>/ocv.tar.xz and <out>/go.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-/work/main/.gpu-final/opencv12}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# libopencv-video406 needs calib3d and dnn (and they features2d, flann, protobuf); core needs
# BLAS/LAPACK (gfortran), TBB, and libGLX (X11 and its libraries) for OpenGL interop.
pkgs="libopencv-core406 libopencv-imgproc406 libopencv-video406 libopencv-calib3d406
  libopencv-dnn406 libopencv-features2d406 libopencv-flann406 libopencv-core-dev
  libopencv-imgproc-dev libopencv-video-dev libprotobuf32 libtbb12 libblas3 liblapack3
  libgfortran5 libquadmath0 libglx0 libglvnd0 libx11-6 libxcb1 libxau6 libxdmcp6 libbsd0 libmd0
  libstdc++6"
(cd "$tmp" && apt-get download $pkgs >/dev/null 2>&1 && for d in *.deb; do dpkg-deb -x "$d" x; done)
x=$tmp/x
lib=$x/usr/lib/x86_64-linux-gnu
mkdir -p "$tmp/stage/fallback"
s=$tmp/stage
g++ -std=c++17 -O2 -Wall -I"$x/usr/include/opencv4" -I"$x/usr/include/x86_64-linux-gnu/opencv4" \
  "$here/ocvbench.cpp" -o "$s/ocvbench" -L"$lib" -lopencv_video -lopencv_imgproc -lopencv_core -ldl \
  -Wl,--disable-new-dtags,-rpath,'$ORIGIN' -Wl,-rpath-link,"$lib:$lib/blas:$lib/lapack"
# cltrace.so must itself need libOpenCL.so.1: OpenCV's dlsym on it then finds the rest there.
cc -O2 -Wall -Wextra -shared -fPIC "$here/../cltrace.c" -o "$s/cltrace.so" -ldl -lpthread -Wl,--no-as-needed -lOpenCL
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
# Debian's libstdc++ (GLIBCXX_3.4.30), used by go.sh only where the machine's is older.
cp -L "$lib/libstdc++.so.6" "$s/fallback/"
mkdir -p "$out"
rm -f "$out"/READY
tar -C "$s" -cf - . | xz -T2 -6 > "$out/ocv.tar.xz"
cp "$here/go.sh" "$out/go.sh"
ls "$s" | tr '\n' ' '; echo
du -sh "$out"
