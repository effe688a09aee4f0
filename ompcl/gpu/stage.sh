#!/bin/bash
# Stage the ompcl corpus for a GPU machine (no Rust needed there).
#
#   ompcl/gpu/stage.sh DEST
#
# Builds (here) every program of ompcl/tests/corpus (MOMP's four examples included) with ompcl, runs the
# `gcc -fopenmp` build of each here to record the expected output, and writes DEST/run.sh.
# Copy DEST to the GPU machine and run there, once per OpenCL implementation:
#
#   OCL_ICD_VENDORS=/etc/OpenCL/vendors/cudacl.icd  ./run.sh cudacl
#   OCL_ICD_VENDORS=/etc/OpenCL/vendors/nvidia.icd  ./run.sh nvidia
#
# (OCL_ICD_VENDORS: a folder holding the .icd files to use, or one .icd file with ocl-icd >= 2.3.) The executables dlopen
# libOpenCL.so.1 (ocl-icd) at run time; each is run with OMPCL_DEVICE=gpu OMPCL_PROFILE=1.
set -euo pipefail
DEST=${1:?usage: stage.sh DEST}
HERE=$(cd "$(dirname "$0")/.." && pwd)          # .../ompcl
REPO=$(cd "$HERE/.." && pwd)
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$REPO/target}
(cd "$REPO" && cargo build --release -p ompcl --bin ompcl >&2)
OMPCL="$CARGO_TARGET_DIR/release/ompcl"
mkdir -p "$DEST/bin" "$DEST/expected" "$DEST/lib" "$DEST/src"
: > "$DEST/programs.txt"
for src in "$HERE"/tests/corpus/*.c; do   # MOMP's four examples are linked in there
    name=$(basename "$src" .c)
    offload=$(sed -n 's/.*ompcl-test: offload=\([a-z]*\).*/\1/p' "$src" | head -1)
    offload=${offload:-all}
    cp "$src" "$DEST/src/"
    "$OMPCL" -O2 "$src" -o "$DEST/bin/$name" 2> "$DEST/src/$name.ompcl.txt"
    sed 's/target(opencl)//; s/target(pthread)//' "$src" > "$DEST/src/$name.ref.c"
    gcc -fopenmp -foffload=disable -O2 -iquote "$(dirname "$src")" "$DEST/src/$name.ref.c" -o "$DEST/src/$name.ref" -lm
    OMP_NUM_THREADS=4 "$DEST/src/$name.ref" > "$DEST/expected/$name.out"
    rm -f "$DEST/src/$name.ref"
    echo "$name $offload" >> "$DEST/programs.txt"
done
# the programs need libgomp.so.1 (their CPU path); ship it in case the GPU machine lacks it
cp "$(gcc -print-file-name=libgomp.so.1)" "$DEST/lib/" 2>/dev/null || true
cat > "$DEST/run.sh" <<'RUN'
#!/bin/bash
# ./run.sh LABEL   (set OCL_ICD_VENDORS to the ICD to test first)
# Runs every staged program with OMPCL_DEVICE=gpu (OMPCL_RUN_DEVICE overrides), compares with the gcc -fopenmp output
# (integers exactly, numbers with '.'/exponent within relative 1e-5), checks that regions meant
# for OpenCL ran there, prints a pass/fail table and the OMPCL_PROFILE breakdown of MOMP's four.
LABEL=${1:-gpu}
D=$(cd "$(dirname "$0")" && pwd)
OUT="$D/results/$LABEL"
mkdir -p "$OUT"
if ! ldconfig -p 2>/dev/null | grep -q libgomp.so.1; then export LD_LIBRARY_PATH="$D/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"; fi
pass=0; fail=0
REPORT="$OUT/report.txt"
{
echo "ompcl corpus on $(hostname), label=$LABEL, OCL_ICD_VENDORS=${OCL_ICD_VENDORS:-<default>}, $(date -u)"
printf "%-30s %-6s %-8s %s\n" program result offload "regions (where ran)"
while read -r name offload; do
    OMPCL_DEVICE=${OMPCL_RUN_DEVICE:-gpu} OMPCL_PROFILE=1 OMP_NUM_THREADS=4 timeout ${OMPCL_RUN_TIMEOUT:-600} "$D/bin/$name" > "$OUT/$name.out" 2> "$OUT/$name.err"
    rc=$?
    same=$(awk -v tol=1e-5 'NR==FNR { for (i = 1; i <= NF; i++) a[++n] = $i; next }
        { for (i = 1; i <= NF; i++) b[++m] = $i }
        END { if (n != m) { print "no"; exit }
              for (k = 1; k <= n; k++) { x = a[k]; y = b[k]; if (x == y) continue;
                  if ((x ~ /[.e]/ || y ~ /[.e]/) && x + 0 == x + 0) { d = x - y; if (d < 0) d = -d;
                      s = (x < 0 ? -x : x); t = (y < 0 ? -y : y); if (t > s) s = t;
                      if (d <= tol * s || d < 1e-12) continue }
                  print "no"; exit }
              print "yes" }' "$D/expected/$name.out" "$OUT/$name.out")
    where=$(grep -o 'region [0-9]*: [a-z+]*' "$OUT/$name.err" | awk '{print $3}' | sort | uniq -c | awk '{printf "%s%sx%s", sep, $1, $2; sep=","}')
    ncl=$(grep -c 'region [0-9]*: opencl ' "$OUT/$name.err")
    nany=$(grep -c 'region [0-9]*: opencl' "$OUT/$name.err")
    nall=$(grep -c 'region [0-9]*: ' "$OUT/$name.err")
    ok=yes
    [ $rc -eq 0 ] && [ "$same" = yes ] || ok=no
    case $offload in
        all) [ "$nall" -gt 0 ] && [ "$ncl" -eq "$nall" ] && ! grep -q 'ompcl: warning' "$OUT/$name.err" || ok=no ;;
        some) [ "$nany" -gt 0 ] || ok=no ;;
        none) [ "$nany" -eq 0 ] || ok=no ;;
    esac
    if [ $ok = yes ]; then pass=$((pass+1)); r=PASS; else fail=$((fail+1)); r=FAIL; fi
    printf "%-30s %-6s %-8s %s\n" "$name" "$r" "$offload" "$where"
    if [ $r = FAIL ]; then
        echo "    rc=$rc expected: $(head -c 200 "$D/expected/$name.out" | tr '\n' ' ')"
        echo "    got:      $(head -c 200 "$OUT/$name.out" | tr '\n' ' ')"
        grep 'ompcl: warning' "$OUT/$name.err" | head -3 | sed 's/^/    /'
    fi
done < "$D/programs.txt"
echo "passed $pass, failed $fail"
echo
echo "== OMPCL_PROFILE of MOMP's four programs (MOMP Figures 15-18: build, HtoD, kernel, DtoH) =="
for p in matmul sor nbody mandelbrot; do
    echo "-- $p: $(cat "$OUT/$p.out")"
    grep '^ompcl-profile' "$OUT/$p.err"
done
} | tee "$REPORT"
echo "report written to $REPORT (copy it into conformance/results/)"
RUN
chmod +x "$DEST/run.sh"
echo "staged $(wc -l < "$DEST/programs.txt") programs in $DEST; run $DEST/run.sh there" >&2
