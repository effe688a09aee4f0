#!/usr/bin/env bash
# Packs the aarch64 build (scripts/build-aarch64.sh) into dist/cudacl-<version>-aarch64-linux.tar.gz:
#   cudacl-<version>-aarch64-linux/
#     lib/libcudacl.so  lib/clc/nvptx64--nvidiacl.bc  cudacl.icd
#     bin/ompcl  bin/ptxgen  share/ompcl/runtime/{omp.h,ompcl_rt.h,rt_*.c} (ompcl embeds them; copies for reading)
#     install.sh  uninstall.sh  README.md
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=$ROOT/target/aarch64-unknown-linux-gnu/release
VERSION=$(sed -n '/^\[workspace.package\]/,/^\[/s/^version = "\(.*\)"/\1/p' Cargo.toml)
NAME=cudacl-$VERSION-aarch64-linux
STAGE=$ROOT/target/dist-stage/$NAME
rm -rf "$ROOT/target/dist-stage"
mkdir -p "$STAGE/lib/clc" "$STAGE/bin" "$STAGE/share/ompcl/runtime" "$ROOT/dist"
STRIP=aarch64-linux-gnu-strip
$STRIP --strip-unneeded -o "$STAGE/lib/libcudacl.so" "$OUT/libcudacl.so"
$STRIP -o "$STAGE/bin/ptxgen" "$OUT/ptxgen"
$STRIP -o "$STAGE/bin/ompcl" "$OUT/ompcl"
# libclc's bitcode is target-independent (nvptx64): Debian's libclc-19 is the one the tests use.
CLC=""
for c in /usr/lib/clc/nvptx64--nvidiacl.bc /usr/share/clc/nvptx64--nvidiacl.bc; do
  if [ -f "$c" ]; then CLC=$c; break; fi
done
[ -n "$CLC" ] || { echo "pack-aarch64: no nvptx64--nvidiacl.bc (apt-get install libclc-19)" >&2; exit 1; }
install -m 0644 "$CLC" "$STAGE/lib/clc/nvptx64--nvidiacl.bc"
install -m 0644 ompcl/runtime/*.h ompcl/runtime/*.c "$STAGE/share/ompcl/runtime/"
install -m 0755 icd/jetson/install.sh icd/jetson/uninstall.sh "$STAGE/"
install -m 0644 icd/jetson/README.md "$STAGE/README.md"
echo "/usr/local/lib/cudacl/libcudacl.so" >"$STAGE/cudacl.icd"
# Reproducible: fixed owner, order and times.
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime='2026-01-01 00:00Z' \
  -C "$ROOT/target/dist-stage" -cf - "$NAME" | gzip -n -9 >"$ROOT/dist/$NAME.tar.gz"
echo "pack-aarch64: dist/$NAME.tar.gz ($(du -h "$ROOT/dist/$NAME.tar.gz" | cut -f1))"
tar -tzf "$ROOT/dist/$NAME.tar.gz"
