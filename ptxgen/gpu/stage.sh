#!/usr/bin/env bash
# Builds the PTX of ptxgen's corpus for the GPU check, plus the argument layouts and the checker.
#   ptxgen/gpu/stage.sh OUT_DIR [SM [PTX_ISA]]      (default sm_90, PTX ISA 8.5: an H100 on CUDA 12.5+)
# Then, on the GPU machine (gcc and libcuda.so.1 there):
#   cd OUT_DIR && gcc -O2 -o check_ptx check_ptx.c -ldl
#   ./check_ptx info && ./check_ptx load *.ptx && ./check_ptx run .
# Set PTXGEN=/path/to/ptxgen to use a given binary instead of building one.
set -euo pipefail
out=${1:?usage: stage.sh OUT_DIR [SM [PTX_ISA]]}
sm=${2:-90}
isa=${3:-8.5}
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
if [ -z "${PTXGEN:-}" ]; then
  (cd "$here" && CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$here/../target} cargo build --release -p ptxgen --bin ptxgen >&2)
  PTXGEN=${CARGO_TARGET_DIR:-$here/../target}/release/ptxgen
fi
cd "$here"
built=0 skipped=0 failed=0
for f in tests/corpus/*.cl; do
  name=$(basename "$f" .cl)
  if grep -q '^// EXPECT:' "$f"; then skipped=$((skipped + 1)); continue; fi
  opts=$(sed -n 's,^// OPTIONS: ,,p' "$f" | head -1)
  # CUDACL_BUILD_THREADS=4: multi-kernel files are built in parts and joined (split.rs) on any
  # machine, so that the GPU check loads joined PTX.
  # shellcheck disable=SC2086
  if CUDACL_BUILD_THREADS=4 CUDACL_CACHE=0 "$PTXGEN" "$f" -o "$out/$name.ptx" --sm "$sm" --ptx "$isa" --args $opts >"$out/$name.args" 2>"$out/$name.log"; then
    built=$((built + 1))
  else
    failed=$((failed + 1)); echo "ptxgen failed on $f:" >&2; cat "$out/$name.log" >&2
  fi
done
cp gpu/check_ptx.c "$out/"
echo "staged $built PTX files for sm_$sm / PTX $isa in $out ($skipped expected-failure sources skipped, $failed failed)"
[ "$failed" = 0 ]
