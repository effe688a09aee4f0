#!/usr/bin/env bash
# Stages piglit's OpenCL tests (Debian's piglit package: the cl-* programs, their libraries, the
# .cl program tests and the 'cl' profile's test list) into DEST, with run.py.
#   conformance/piglit/stage.sh DEST
set -euo pipefail
dest=${1:?usage: stage.sh DEST}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
( cd "$tmp" && apt-get download piglit >/dev/null 2>&1 ) || { apt-get update -qq && ( cd "$tmp" && apt-get download piglit >/dev/null ); }
dpkg-deb -x "$tmp"/piglit_*.deb "$tmp/x"
src="$tmp/x/usr/lib/x86_64-linux-gnu/piglit"
mkdir -p "$dest/bin" "$dest/lib" "$dest/tests" "$dest/generated_tests"
cp "$src"/bin/cl-* "$dest/bin/"
cp -a "$src"/lib/libpiglitutil.so* "$src"/lib/libpiglitutil_cl.so* "$dest/lib/"
cp -a "$src/tests/cl" "$dest/tests/"
cp "$src/tests/cl.xml.gz" "$dest/tests/"
cp -a "$src/generated_tests/cl" "$dest/generated_tests/"
# libpiglitutil links libEGL (for its GL half): bring the GLVND EGL loader along, since the GPU
# machine has none. The OpenCL tests never call it.
for pkg in libegl1 libglvnd0; do ( cd "$tmp" && apt-get download "$pkg" >/dev/null 2>&1 && dpkg-deb -x "$pkg"_*.deb "$tmp/x" ); done
cp -a "$tmp"/x/usr/lib/x86_64-linux-gnu/libEGL.so.1* "$tmp"/x/usr/lib/x86_64-linux-gnu/libGLdispatch.so.0* "$dest/lib/"
# program@build@include-directories builds with "-I tests/cl/program/build" and includes
# include_test.h from there, which Debian's package does not ship: write piglit's one-line header.
printf '#define BUILD_OPT 1\n' > "$dest/tests/cl/program/build/include_test.h"
cp "$here/run.py" "$dest/"
rm -rf "$tmp"
du -sh "$dest"
