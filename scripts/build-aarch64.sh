#!/usr/bin/env bash
# Cross-builds cudacl for NVIDIA Jetson (aarch64-unknown-linux-gnu) on a Debian 12 x86-64 machine
# and packs dist/cudacl-<version>-aarch64-linux.tar.gz. Installs what it needs, like setup.sh.
#
#   bash scripts/build-aarch64.sh            # build + tarball
#   CUDACL_AARCH64_SKIP_TARBALL=1 ...        # build only
#
# How (see README "Jetson"):
# - the arm64 LLVM 19 dev packages cannot be installed beside the amd64 ones, so Debian 12's arm64
#   debs are downloaded (apt-get download, with a private package list) and unpacked into a private
#   sysroot, target/aarch64-sysroot; their llvm-config runs under qemu-aarch64-static;
# - the link is made against Debian 11's arm64 glibc 2.31 (the glibc of JetPack 5 / Ubuntu 20.04),
#   unpacked into the same sysroot, with libstdc++, zlib and zstd linked statically, so the
#   library loads on JetPack 5 and 6. The few glibc >= 2.32 symbols the objects compiled against
#   Debian 12's headers reference are defined by ptxgen/bridge/link/glibc_compat.c (PTXGEN_GLIBC_COMPAT).
#   scripts/check-glibc.sh checks the ceiling.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
TARGET=aarch64-unknown-linux-gnu
SYSROOT=$ROOT/target/aarch64-sysroot
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi

# --- host packages -----------------------------------------------------------------------------
bash scripts/setup.sh
PACKAGES=(gcc-aarch64-linux-gnu g++-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user-static xz-utils)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "build-aarch64: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# --- Rust's aarch64 standard library ------------------------------------------------------------
# (rustup's server answered on this project's machines, 2026-11-23; Debian's rustc-web 1.96 with
# libstd-rust-web-dev:arm64 would be the route without it.)
if ! rustup target list --installed 2>/dev/null | grep -qx "$TARGET"; then
  rustup target add "$TARGET" || {
    echo "build-aarch64: 'rustup target add $TARGET' failed (no access to rustup's server?)" >&2
    exit 1
  }
fi

# --- the private sysroot: arm64 LLVM 19 (Debian 12) + glibc 2.31 and static libs (Debian 11) ----
# (libffi: llvm-sys puts -lffi on the link line; nothing uses it, so --as-needed drops it from the
# library's dependencies, but the linker must find it.)
# Package lists of our own (Dir::State::Lists) so that the machine's apt configuration and its
# foreign-architecture list are left as they are.
STAMP=$SYSROOT/.complete-v2
if [ ! -f "$STAMP" ]; then
  APT=$ROOT/target/aarch64-apt
  rm -rf "$SYSROOT" "$APT"
  mkdir -p "$APT/lists/partial" "$APT/cache/archives/partial" "$APT/debs" "$SYSROOT"
  KEY=/usr/share/keyrings/debian-archive-keyring.gpg
  cat >"$APT/sources.list" <<EOF
deb [arch=arm64 signed-by=$KEY] http://deb.debian.org/debian bookworm main
deb [arch=arm64 signed-by=$KEY] http://deb.debian.org/debian-security bookworm-security main
deb [arch=arm64 signed-by=$KEY] http://deb.debian.org/debian bullseye main
deb [arch=arm64 signed-by=$KEY] http://deb.debian.org/debian-security bullseye-security main
EOF
  aptopts=(-o "Dir::Etc::SourceList=$APT/sources.list" -o Dir::Etc::SourceParts=/dev/null
    -o "Dir::State::Lists=$APT/lists" -o "Dir::Cache=$APT/cache" -o APT::Architecture=arm64
    -o APT::Architectures::=arm64 -o Debug::NoLocking=1 -o APT::Sandbox::User=root)
  apt-get "${aptopts[@]}" update -qq
  LLVMV=$(dpkg-query -W -f='${Version}' llvm-19-dev 2>/dev/null || true)
  # The host's LLVM version when it is installed (same clang on both sides), else the newest.
  pin() { if [ -n "$LLVMV" ]; then echo "$1=$LLVMV"; else echo "$1/bookworm"; fi; }
  (
    cd "$APT/debs"
    apt-get "${aptopts[@]}" download \
      "$(pin llvm-19)" "$(pin llvm-19-dev)" "$(pin libclang-19-dev)" "$(pin libclang-common-19-dev)" \
      "$(pin libpolly-19-dev)" \
      libc6/bullseye libc6-dev/bullseye libgcc-s1/bullseye linux-libc-dev/bullseye \
      zlib1g-dev/bullseye libzstd-dev/bullseye \
      libffi-dev/bullseye libffi7/bullseye
  )
  for d in "$APT"/debs/*.deb; do dpkg-deb -x "$d" "$SYSROOT"; done
  # Absolute symlinks inside the sysroot (e.g. libc6-dev's .so links) point into the sysroot.
  find "$SYSROOT" -type l | while read -r l; do
    t=$(readlink "$l")
    case "$t" in /*) ln -sfn "$SYSROOT$t" "$l" ;; esac
  done
  # -lgcc_s must find Debian 11's libgcc_s (the cross compiler's needs glibc 2.35's
  # _dl_find_object): a development link beside it, searched before the compiler's own folders.
  ln -sfn libgcc_s.so.1 "$SYSROOT/lib/aarch64-linux-gnu/libgcc_s.so"
  touch "$STAMP"
fi

# llvm-config for the arm64 packages. Theirs is an arm64 program that needs more arm64 libraries
# (libz3, libLLVM) than the sysroot holds; the host's llvm-config is the same LLVM release
# (checked) and lists the same libraries, so it answers with its paths moved into the sysroot.
# Every library it names must exist there (checked).
mkdir -p "$ROOT/target/aarch64-tools"
LLVM_CONFIG=$ROOT/target/aarch64-tools/llvm-config
cat >"$LLVM_CONFIG" <<EOF
#!/bin/sh
out=\$(/usr/lib/llvm-19/bin/llvm-config "\$@") || exit \$?
printf '%s\n' "\$out" | sed "s#/usr/lib/llvm-19#$SYSROOT/usr/lib/llvm-19#g"
EOF
chmod +x "$LLVM_CONFIG"
hostv=$(dpkg-query -W -f='${Version}' llvm-19-dev)
armv=$(dpkg-deb -f "$(ls "$ROOT"/target/aarch64-apt/debs/llvm-19-dev_*.deb)" Version)
[ "$hostv" = "$armv" ] || { echo "build-aarch64: host llvm-19-dev $hostv differs from arm64 $armv" >&2; exit 1; }
for l in $("$LLVM_CONFIG" --link-static --libs nvptx bitreader bitwriter linker passes ipo irreader option \
  frontendopenmp frontenddriver frontendhlsl coverage lto target mc); do
  [ -f "$SYSROOT/usr/lib/llvm-19/lib/lib${l#-l}.a" ] || { echo "build-aarch64: lib${l#-l}.a missing in the sysroot" >&2; exit 1; }
done

# --- the build ---------------------------------------------------------------------------------
export PTXGEN_LLVM_CONFIG=$LLVM_CONFIG
export PTXGEN_STATIC_RUNTIME=1 # libstdc++, zlib, zstd linked statically + the glibc shims
export PTXGEN_SYSROOT=$SYSROOT
export CC_aarch64_unknown_linux_gnu=aarch64-linux-gnu-gcc
export CXX_aarch64_unknown_linux_gnu=aarch64-linux-gnu-g++
export AR_aarch64_unknown_linux_gnu=aarch64-linux-gnu-ar
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
# Link against the sysroot's glibc 2.31 (crt files, libc.so, libm, libdl, libpthread).
# -L options come before the compiler's own library folders (which hold Debian 12's glibc 2.36);
# -B makes gcc take the start files (crt1.o, crti.o, crtn.o) from the sysroot too: glibc 2.36's
# crt1.o leaves running the static constructors to libc (>= 2.34), so with glibc 2.31 none would run.
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUSTFLAGS="-C link-arg=--sysroot=$SYSROOT -C link-arg=-B$SYSROOT/usr/lib/aarch64-linux-gnu/ -C link-arg=-L$SYSROOT/lib/aarch64-linux-gnu -C link-arg=-L$SYSROOT/usr/lib/aarch64-linux-gnu"
# bindgen (cudacl's build.rs) parses the OpenCL headers for the target.
export BINDGEN_EXTRA_CLANG_ARGS_aarch64_unknown_linux_gnu="--sysroot=/usr/aarch64-linux-gnu -I/usr/include"
export CARGO_TERM_COLOR=never
cargo build --release --target "$TARGET" -p cudacl -p ptxgen -p ompcl --lib --bins

OUT=$ROOT/target/$TARGET/release
for f in libcudacl.so ptxgen ompcl; do
  [ -f "$OUT/$f" ] || { echo "build-aarch64: $OUT/$f is missing" >&2; exit 1; }
done
bash scripts/check-glibc.sh "$OUT/libcudacl.so" "$OUT/ptxgen" "$OUT/ompcl"

[ "${CUDACL_AARCH64_SKIP_TARBALL:-0}" = 1 ] && exit 0
bash scripts/pack-aarch64.sh
