#!/usr/bin/env bash
# CI's Jetson steps (issue 10), after scripts/test.sh: cross-build for aarch64 and check, on this
# x86-64 machine, what can be checked without a Jetson:
#   1. scripts/build-aarch64.sh: the build, its glibc/GLIBCXX ceiling (check-glibc.sh), the tarball;
#   2. the aarch64 ptxgen (under qemu-aarch64) gives byte-identical PTX to the x86-64 one over
#      ptxgen's corpus (and the same failures), for a Jetson target;
#   3. clinfo (arm64, under qemu) loads the aarch64 libcudacl.so through the arm64 ocl-icd loader:
#      the platform is listed, with no devices (there is no CUDA driver under qemu).
# Any failure fails CI.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
T0=$(date +%s)
bash scripts/build-aarch64.sh
SYSROOT=$ROOT/target/aarch64-sysroot
A64=$ROOT/target/aarch64-unknown-linux-gnu/release
WORK=$ROOT/target/ci-aarch64
rm -rf "$WORK"
mkdir -p "$WORK/x86" "$WORK/arm" "$WORK/cache"
export CUDACL_CACHE=0 CUDACL_CACHE_DIR=$WORK/cache

# --- 2. PTX from both hosts -----------------------------------------------------------------------
# The x86-64 ptxgen, up to date (after scripts/test.sh the debug one is: no rebuild).
# CI_PTXGEN_PROFILE=release uses (and builds) the release one instead.
profile=${CI_PTXGEN_PROFILE:-dev}
cargo build --profile "$profile" -p ptxgen --bin ptxgen
if [ "$profile" = dev ]; then X86_PTXGEN=$ROOT/target/debug/ptxgen; else X86_PTXGEN=$ROOT/target/$profile/ptxgen; fi
# The corpus's own build options (// OPTIONS: ...), a Jetson target (Orin, PTX 7.4).
ptx_one() { # host out file
  local host=$1 out=$2 f=$3 opts
  opts=$(sed -n 's#^// OPTIONS: *##p' "$f" | head -1)
  local name
  name=$(basename "$f" .cl)
  local rc=0
  # shellcheck disable=SC2086
  if [ "$host" = x86 ]; then
    "$X86_PTXGEN" "$f" -o "$out/$name.ptx" --sm 87 --ptx 7.4 --no-cache $opts >"$out/$name.log" 2>&1 || rc=$?
  else
    qemu-aarch64-static -L "$SYSROOT" "$A64/ptxgen" "$f" -o "$out/$name.ptx" --sm 87 --ptx 7.4 --no-cache $opts \
      >"$out/$name.log" 2>&1 || rc=$?
  fi
  echo "$rc" >"$out/$name.rc"
}
export -f ptx_one
export X86_PTXGEN SYSROOT A64
ls ptxgen/tests/corpus/*.cl >"$WORK/files"
n=$(wc -l <"$WORK/files")
xargs -P 2 -I{} bash -c 'ptx_one x86 "$0" {}' "$WORK/x86" <"$WORK/files"
T1=$(date +%s)
xargs -P 2 -I{} bash -c 'ptx_one arm "$0" {}' "$WORK/arm" <"$WORK/files"
T2=$(date +%s)
built=0
differ=()
while read -r f; do
  name=$(basename "$f" .cl)
  if ! cmp -s "$WORK/x86/$name.rc" "$WORK/arm/$name.rc"; then
    differ+=("$name (exit $(cat "$WORK/x86/$name.rc") on x86-64, $(cat "$WORK/arm/$name.rc") on aarch64)")
    continue
  fi
  if [ "$(cat "$WORK/x86/$name.rc")" = 0 ]; then
    built=$((built + 1))
    cmp -s "$WORK/x86/$name.ptx" "$WORK/arm/$name.ptx" || differ+=("$name")
  fi
done <"$WORK/files"
if [ ${#differ[@]} -gt 0 ]; then
  echo "ci-aarch64: PTX differs between the x86-64 and aarch64 ptxgen for ${#differ[@]} of $n corpus files:" >&2
  printf '  %s\n' "${differ[@]}" >&2
  first=${differ[0]%% *}
  diff "$WORK/x86/$first.ptx" "$WORK/arm/$first.ptx" | head -20 >&2 || true
  exit 1
fi
[ "$built" -gt 40 ] || { echo "ci-aarch64: only $built corpus files built to PTX" >&2; exit 1; }
echo "ci-aarch64: PTX identical on x86-64 and aarch64 (qemu) for all $n corpus files ($built built, the rest fail alike); x86 $((T1 - T0))s incl. build, aarch64 $((T2 - T1))s"

# --- 3. clinfo (arm64) against the aarch64 library ------------------------------------------------
RUN=$ROOT/target/aarch64-run
if [ ! -x "$RUN/usr/bin/clinfo" ]; then
  APT=$ROOT/target/aarch64-apt
  rm -rf "$RUN" && mkdir -p "$RUN" "$APT/run-debs"
  aptopts=(-o "Dir::Etc::SourceList=$APT/sources.list" -o Dir::Etc::SourceParts=/dev/null
    -o "Dir::State::Lists=$APT/lists" -o "Dir::Cache=$APT/cache" -o APT::Architecture=arm64
    -o APT::Architectures::=arm64 -o Debug::NoLocking=1 -o APT::Sandbox::User=root)
  (cd "$APT/run-debs" && apt-get "${aptopts[@]}" download clinfo/bookworm ocl-icd-libopencl1/bookworm)
  for d in "$APT"/run-debs/*.deb; do dpkg-deb -x "$d" "$RUN"; done
fi
# Debian 12's arm64 clinfo and loader run on the cross toolchain's arm64 glibc 2.36. The loader
# (ocl-icd 2.3.1) is given a vendors folder holding one cudacl.icd.
mkdir -p "$WORK/vendors"
echo "$A64/libcudacl.so" >"$WORK/vendors/cudacl.icd"
out=$(qemu-aarch64-static -L /usr/aarch64-linux-gnu \
  -E LD_LIBRARY_PATH="$RUN/usr/lib/aarch64-linux-gnu" -E OCL_ICD_VENDORS="$WORK/vendors/" \
  "$RUN/usr/bin/clinfo" 2>&1) || { echo "$out" >&2; echo "ci-aarch64: clinfo (arm64) failed" >&2; exit 1; }
echo "$out" | grep -E "Number of platforms|Platform Name|Number of devices" | head -6
echo "$out" | grep -qE "Number of platforms +1$" || { echo "$out" >&2; echo "ci-aarch64: clinfo sees no platform" >&2; exit 1; }
echo "$out" | grep -qE "Platform Name +cudacl" || { echo "$out" >&2; echo "ci-aarch64: cudacl not listed" >&2; exit 1; }
echo "$out" | grep -qE "Number of devices +0$" || { echo "$out" >&2; echo "ci-aarch64: expected no devices" >&2; exit 1; }
echo "ci-aarch64: clinfo (arm64, qemu) lists the cudacl platform with no devices"
echo "ci-aarch64: ok in $(($(date +%s) - T0)) s"
