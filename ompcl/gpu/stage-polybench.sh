#!/bin/bash
# Stage PolyBench-ACC's OpenMP programs (from ../shared/corpora/polybench-acc, never copied into the
# repository) for the GPU machine, which needs no Rust:
#
#   ompcl/gpu/stage-polybench.sh DEST
#
# DEST/bin holds, per program: NAME.small (ompcl, SMALL dataset, arrays dumped; checked against
# DEST/expected/NAME.small, gcc -fopenmp's build run here on one thread), NAME.large (ompcl, LARGE,
# -DPOLYBENCH_TIME) and NAME.gcc (gcc -fopenmp, LARGE, -DPOLYBENCH_TIME). DEST/run.sh runs them:
#
#   OCL_ICD_VENDORS=DIR_WITH_CUDACL_ICD/ ./run.sh check cudacl     # SMALL: correct? where did regions run?
#   ./run.sh time cudacl nvidia                                      # LARGE: gcc 16 threads vs each ICD
set -euo pipefail
DEST=${1:?usage: stage-polybench.sh DEST}
HERE=$(cd "$(dirname "$0")/.." && pwd)          # .../ompcl
REPO=$(cd "$HERE/.." && pwd)
PB=${PB:-$REPO/../shared/corpora/polybench-acc}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$REPO/target}
(cd "$REPO" && cargo build --release -p ompcl --bin ompcl >&2)
OMPCL="$CARGO_TARGET_DIR/release/ompcl"
mkdir -p "$DEST/bin" "$DEST/expected"
PROGS="2mm 3mm atax bicg correlation covariance doitgen gemm gemver gesummv mvt syr2k syrk"
echo "$PROGS" > "$DEST/programs.txt"
for b in $PROGS; do
    small=-DSMALL_DATASET; large=-DLARGE_DATASET
    # correlation.c defines EXTRALARGE_DATASET itself; sizes given explicitly win
    [ $b = correlation ] && { small="-DN=500 -DM=500"; large="-DN=2000 -DM=2000"; }
    src="-I$PB/utilities -I$PB/$b $PB/utilities/polybench.c $PB/$b/$b.c"
    "$OMPCL" -O2 $src $small -DPOLYBENCH_DUMP_ARRAYS -o "$DEST/bin/$b.small" 2> "$DEST/expected/$b.ompcl.txt"
    "$OMPCL" -O2 $src $large -DPOLYBENCH_TIME -o "$DEST/bin/$b.large" 2>> "$DEST/expected/$b.ompcl.txt"
    gcc -O2 -fopenmp $src $large -DPOLYBENCH_TIME -o "$DEST/bin/$b.gcc" -lm
    gcc -O2 -fopenmp $src $small -DPOLYBENCH_DUMP_ARRAYS -o "$DEST/ref" -lm
    OMP_NUM_THREADS=1 "$DEST/ref" 2> "$DEST/expected/$b.small"
    rm -f "$DEST/ref"
done
mkdir -p "$DEST/lib"; cp "$(gcc -print-file-name=libgomp.so.1)" "$DEST/lib/" 2>/dev/null || true
cat > "$DEST/compare.py" <<'PY'
import sys
# values printed with 2 decimals: equal within 1e-4 relative or the print's granularity
def vals(p):
    out = []
    for l in open(p, errors="replace"):
        i = l.find("ompcl")
        out += (l[:i] if i >= 0 else l).split()
    return out
a, b = vals(sys.argv[1]), vals(sys.argv[2])
if len(a) != len(b) or not a:
    print("FAIL(%d vs %d values)" % (len(a), len(b))); sys.exit(1)
for k, (x, y) in enumerate(zip(a, b)):
    fx, fy = float(x), float(y)
    if abs(fx - fy) > 1e-4 * max(abs(fx), abs(fy)) + 0.011:
        print("FAIL(value %d: %s vs %s)" % (k, x, y)); sys.exit(1)
print("PASS(%d values)" % len(a))
PY
cat > "$DEST/run.sh" <<'RUN'
#!/bin/bash
# ./run.sh check LABEL      (OCL_ICD_VENDORS set to the ICD to use)
# ./run.sh time LABEL...    (LABEL: gcc16, or an ICD label with OCL_ICD_VENDORS_<LABEL> set)
D=$(cd "$(dirname "$0")" && pwd)
if ! ldconfig -p 2>/dev/null | grep -q libgomp.so.1; then export LD_LIBRARY_PATH="$D/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"; fi
now() { date +%s.%N; }
what=$1; shift
for b in $(cat "$D/programs.txt"); do
  if [ "$what" = check ]; then
    OMPCL_DEVICE=gpu OMPCL_PROFILE=1 timeout 120 "$D/bin/$b.small" 2> /tmp/pb-$b.err; rc=$?
    r=$(python3 "$D/compare.py" "$D/expected/$b.small" /tmp/pb-$b.err)
    where=$(grep -o 'region [0-9]*: [a-z+]*' /tmp/pb-$b.err | awk '{print $3}' | sort | uniq -c | awk '{printf "%s%sx%s", s, $1, $2; s=","}')
    printf "%-12s %-8s rc=%s %s %s %s\n" $b "$1" $rc "$r" "$where" "$(grep -m1 'ompcl: warning' /tmp/pb-$b.err)"
  else
    for L in "$@"; do
      t0=$(now)
      if [ $L = gcc16 ]; then
        pt=$(OMP_NUM_THREADS=16 timeout 120 "$D/bin/$b.gcc" 2>&1 | tail -1); rc=$?; k=$pt; bld=-
      else
        v=OCL_ICD_VENDORS_$L
        out=$(OCL_ICD_VENDORS=${!v} OMPCL_DEVICE=gpu OMPCL_PROFILE=1 timeout 120 "$D/bin/$b.large" 2>&1); rc=$?
        k=$(echo "$out" | sed -n 's/.*total: build=\([0-9.]*\) ms.* kernel=\([0-9.]*\) ms.*/\2/p'); k=$(awk -v k="$k" 'BEGIN{printf "%.4f", k/1000}')
        bld=$(echo "$out" | sed -n 's/.*total: build=\([0-9.]*\) ms.*/\1/p')
        echo "$out" | grep -q ': cpu runs\|opencl+cpu' && k="$k(cpu!)"
      fi
      t1=$(now)
      printf "%-12s %-8s rc=%s wall=%.3f kernel_s=%s build_ms=%s\n" $b $L $rc $(awk -v a=$t0 -v b=$t1 'BEGIN{print b-a}') "$k" "$bld"
    done
  fi
done
RUN
chmod +x "$DEST/run.sh"
