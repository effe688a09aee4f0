#!/usr/bin/env bash
# Runs the seven Khronos CTS image suites (quick mode: CL_WIMPY_MODE, images_streams with
# CL_FILTER_NEAREST as the CTS's quick list has it) on the GPU machine, cudacl and NVIDIA's OpenCL
# at once, cut into chunks that JOBS workers per platform take from one queue, costliest first
# (gpu-cts.sh's CTS_QUEUE mode does the running). Every geometry of every suite, every format:
#  - a "light" test (1D, 2D, 1Darray, most 1Dbuffer, the copies between those) is one chunk;
#  - a heavy one (3D, 2Darray, copies to or from 3D, fill's 1Dbuffer) is 12 chunks, one per
#    channel type (the CTS takes one type filter; images_get_info no channel order filter), which
#    together are every format either platform lists (both list only these 12 types).
# Why chunks: the CTS sizes its random images from the device's limits (both platforms report
# 32768x32768 2D, 16384^3 3D, 2048 layers, 21 GB allocations on the H100), so a 3D test draws up
# to 512^3 pixels per image, three images per format, all generated and checked on the host.
#   DEADLINE=540 JOBS=8 bash gpu-cts-images.sh             (CUDACL_LIB, NV_LIB... as gpu-cts.sh)
# (scripts/gpu-run.sh's part "cts-images" runs it: IMG_PART, IMG_JOBS, IMG_DEADLINE, IMG_ONLY.)
#   PLAN=survey: one mid-cost type (CL_UNORM_INT16) of each heavy test and every light test, for
#   the cost of each (progress.txt), after four probes (2-D array reads, RGBA SIGNED_INT8 / FLOAT,
#   NORMALIZED / UNNORMALIZED); LIST=1 prints the queue and stops; ONLY=REGEX keeps the
#   chunks whose whole name matches; DONE=FILE (default done.txt beside this script) names chunks
#   to leave out (finished on both platforms in an earlier call); PART=i/n runs the i-th of n
#   queues of about equal estimated time (one per call, when the work needs several); ORDER=cost (the survey's default) runs the costliest first
#   instead of in rounds (see items()).
# Prints the table last: chunk | cudacl pass/fail/skip status seconds | NVIDIA ..., then totals;
# writes $OUT/table.txt and $OUT/costs.txt (chunk vendor status wall-s cpu-s sub-tests), and
# gpu-cts.sh's summary.txt and cts-logs.tgz.
set -u
G=$(cd "$(dirname "$0")" && pwd)
PLAN=${PLAN:-full}
TYPES="FLOAT SIGNED_INT32 UNSIGNED_INT32 UNORM_INT16 SNORM_INT16 HALF_FLOAT SIGNED_INT16
 UNSIGNED_INT16 UNORM_INT8 SNORM_INT8 SIGNED_INT8 UNSIGNED_INT8"
# Relative cost of a type: bytes of one pixel of each format of that type, added up (cudacl's list).
declare -A W=([UNORM_INT8]=16 [SNORM_INT8]=16 [UNORM_INT16]=24 [SNORM_INT16]=24 [SIGNED_INT8]=12
  [UNSIGNED_INT8]=12 [SIGNED_INT16]=20 [UNSIGNED_INT16]=20 [SIGNED_INT32]=40 [UNSIGNED_INT32]=40
  [HALF_FLOAT]=24 [FLOAT]=48)
WSUM=296
# suite test cpu-seconds (all formats, one platform; the larger of cudacl's and NVIDIA's in the
# 22:45 survey on the H100's host, a heavy test's one type x 296/24; fill/get_info 3D and
# get_info 2Darray, cut by the survey's deadline, from a fake-driver calibration) heavy?(1 = one
# chunk per channel type). images_streams 3D is listed apart (STREAMS_3D).
COSTS="
images_streams 2Darray 436 1
images_streams 1Darray 360 0
images_streams 2D 165 0
images_streams 1D 12 0
images_copy 3D 172 1
images_copy 2Dto3D 155 1
images_copy 3Dto2D 114 1
images_copy 2Darrayto3D 94 1
images_copy 3Dto2Darray 138 1
images_copy 2Darray 28 0
images_copy 2Darrayto2D 69 0
images_copy 2Dto2Darray 109 0
images_copy 1D 2 0
images_copy 1Darray 2 0
images_copy 1Dbuffer 45 0
images_copy 2D 4 0
images_copy 1DTo1Dbuffer 2 0
images_copy 1DbufferTo1D 2 0
images_fill 3D 1230 1
images_fill 2Darray 123 1
images_fill 1Dbuffer 202 1
images_fill 1D 5 0
images_fill 1Darray 6 0
images_fill 2D 21 0
images_get_info 3D 1500 1
images_get_info 2Darray 700 1
images_get_info 1D 2 0
images_get_info 1Darray 6 0
images_get_info 1Dbuffer 29 0
images_get_info 2D 23 0
images_read_write 3D 293 1
images_read_write 2Darray 171 1
images_read_write 1D 1 0
images_read_write 1Darray 1 0
images_read_write 1Dbuffer 32 0
images_read_write 2D 2 0
images_kernel_methods 3D 289 1
images_kernel_methods 2Darray 37 1
images_kernel_methods 1D 9 0
images_kernel_methods 1Darray 10 0
images_kernel_methods 1Dbuffer 39 0
images_kernel_methods 2D 13 0
images_samplerless 3D 226 1
images_samplerless 2Darray 37 1
images_samplerless 1D 2 0
images_samplerless 1Darray 2 0
images_samplerless 1Dbuffer 2 0
images_samplerless 2D 3 0
"
# images_streams 3D, one chunk per format (order/type) that either platform lists: ~9 sub-tests
# each, the 4 with normalized coordinates dearest (the CTS's checker tries up to 27 offsets per
# pixel); the survey did 39 of UNORM_INT16's 63 in 240 s, so ~150 s a format, ~12000 s in all.
# CL_RGBA (every type) and CL_BGRA UNORM_INT8, OpenCL 1.2's required formats, go in the early
# rounds, the other formats after every other chunk.
STREAMS_3D_COST=150
STREAMS_3D_OTHER="R A RG RA INTENSITY LUMINANCE BGRA ARGB sRGBA"
declare -A STREAMS_3D_TYPES=([R]=all [A]=all [RG]=all [RA]=all [RGBA]=all
  [INTENSITY]="FLOAT HALF_FLOAT SNORM_INT16 SNORM_INT8 UNORM_INT16 UNORM_INT8"
  [LUMINANCE]="FLOAT HALF_FLOAT SNORM_INT16 SNORM_INT8 UNORM_INT16 UNORM_INT8"
  [BGRA]="SIGNED_INT8 SNORM_INT16 SNORM_INT8 UNSIGNED_INT8" [ARGB]="SIGNED_INT8 SNORM_INT16 SNORM_INT8 UNORM_INT8 UNSIGNED_INT8"
  [sRGBA]="UNORM_INT8")
# images_streams' other tests (image requirements, image from buffer: OpenCL 3.0 extensions).
STREAMS_EXT="clGetImageRequirementsInfoEXT_negative:cl_ext_image_raw10_raw12:cl_image_requirements_max_val_ext_negative:cl_image_requirements_max_val_ext_positive:cl_image_requirements_size_ext_consistency:cl_image_requirements_size_ext_negative:image2d_from_buffer_positive:imageInfo_image_from_buffer_positive:image_from_buffer_alignment_negative:image_from_buffer_fill_positive:image_from_buffer_read_positive:image_from_small_buffer_negative:memInfo_image_from_buffer_positive"

# "round seconds item" lines, item = SUITE.CHUNK=ARG:ARG... Round 0: the light tests; round r:
# the r-th cheapest channel type of every heavy test. The queue runs round by round (costliest
# first within a round), so that when the time is short every geometry has its light test or its
# cheaper types done, and what is left out is the dearest types.
items() {
  echo "0 5 images_streams.ext=$STREAMS_EXT"
  echo "$COSTS" | while read -r s t c h; do
    [ -n "$s" ] || continue
    f=; [ $s = images_streams ] && f=:CL_FILTER_NEAREST
    if [ "$h" = 1 ]; then
      r=0
      for ty in $TYPES_BY_COST; do
        r=$((r + 1))
        [ $PLAN = survey ] && [ $ty != UNORM_INT16 ] && continue
        echo "$r $((c * ${W[$ty]} / WSUM)) $s.$t.$ty=$t$f:CL_$ty"
      done
    else
      echo "0 $c $s.$t=$t$f"
    fi
  done
  # images_streams 3D: RGBA by type in the type rounds, BGRA UNORM_INT8 in round 1, the rest after.
  r=0
  for ty in $TYPES_BY_COST; do
    r=$((r + 1))
    [ $PLAN = survey ] && continue
    echo "$r $STREAMS_3D_COST images_streams.3D.RGBA.$ty=3D:CL_FILTER_NEAREST:CL_RGBA:CL_$ty"
  done
  [ $PLAN = survey ] && return
  echo "1 $STREAMS_3D_COST images_streams.3D.BGRA.UNORM_INT8=3D:CL_FILTER_NEAREST:CL_BGRA:CL_UNORM_INT8"
  for o in $STREAMS_3D_OTHER; do
    t=${STREAMS_3D_TYPES[$o]}; [ "$t" = all ] && t=$TYPES_BY_COST
    for ty in $t; do
      [ $o.$ty = BGRA.UNORM_INT8 ] && continue
      echo "20 $STREAMS_3D_COST images_streams.3D.$o.$ty=3D:CL_FILTER_NEAREST:CL_$o:CL_$ty"
    done
  done
}
TYPES_BY_COST=$(for t in $TYPES; do echo "${W[$t]} $t"; done | sort -s -n -k1,1 | cut -d' ' -f2)
# The queue, each line "SECONDS ITEM" (estimate x COST_SCALE): a worker passes over a chunk that
# would not finish in the time left (gpu-cts.sh's take). ORDER=cost: costliest first, no rounds.
# MEASURED=FILE (default measured.txt beside this script; "chunk seconds": e.g. the longer
# platform's wall time in an earlier call's costs.txt) replaces a chunk's estimate.
MEASURED=${MEASURED:-$G/measured.txt}
QF=$(mktemp)
{ # Survey probes first: normalized against unnormalized coordinates, reads only, one int and
  # one float format of 2-D arrays, for where a platform's sub-tests cost the CTS more host time.
  if [ $PLAN = survey ]; then
    for f in SIGNED_INT8 FLOAT; do for n in NORMALIZED UNNORMALIZED; do
      echo "30 images_streams.probe.$f.$n=2Darray:CL_FILTER_NEAREST:read:CL_RGBA:CL_$f:$n"
    done; done
  fi
  items | awk -v m="$MEASURED" 'BEGIN { while ((getline l < m) > 0) { split(l, f, " "); t[f[1]] = f[2] } }
    { split($3, a, "="); if (a[1] in t) $2 = t[a[1]]; print }' > $QF.items
  if [ "${ORDER:-$([ $PLAN = survey ] && echo cost)}" = cost ]; then cut -d' ' -f2- $QF.items | sort -s -k1,1 -n -r
  else sort -s -k1,1n -k2,2nr $QF.items | cut -d' ' -f2-; fi; rm -f $QF.items; } |
  grep -E "^[0-9]+ (${ONLY:-.*})=" |
  awk -v k=${COST_SCALE:-1} -v done="${DONE:-$G/done.txt}" '
    BEGIN { while ((getline t < done) > 0) skip[t] = 1 }
    { split($2, a, "="); if (a[1] in skip) next; $1 = int($1 * k + 0.5) + 1; print }' |
  # PART=i/n: the i-th of n queues for n calls, each chunk in order to the least loaded one.
  awk -v part=${PART:-1/1} 'BEGIN { split(part, p, "/"); n = p[2] + 0; i = p[1] - 1 }
    { best = 0; for (j = 1; j < n; j++) if (load[j] < load[best]) best = j; load[best] += $1
      if (best == i) print }' > $QF
if [ -n "${LIST:-}" ]; then
  cat $QF; awk '{ s += $1 } END { print NR " chunks, " s " s estimated" }' $QF; rm -f $QF; exit 0
fi

export CTS_UNPACK=${CTS_UNPACK:-/tmp/cts-run-images} CTS_LOGS=${CTS_LOGS:-/tmp/ctslogs-images}
CTS_QUEUE=$QF CTS_JOBS=${JOBS:-8} DEADLINE=${DEADLINE:-540} bash "$G/gpu-cts.sh" > /dev/null
L=$CTS_LOGS; FINAL=${OUT:-/tmp/out}; mkdir -p "$FINAL"

# pass fail skip sub-tests of one log. The CTS prints "NAME..." when a test starts and
# "NAME passed" / "NAME FAILED" when it ends, but not always at the start of a line (an OpenCL 1.2
# device gets "READ_WRITE_IMAGE tests skipped, Opencl 2.0+ is requried.1D passed"), so the name is
# the last word before " passed", among the names started.
recount() {
  awk '
    /^[^ ]+\.\.\.$/ { n = substr($0, 1, length($0) - 3); st[n] = 1; next }
    /^\[CL_/ { sub_tests++ }
    / passed$| FAILED$/ {
      r = ($NF == "passed") ? "pass" : "fail"; p = substr($0, 1, length($0) - length($NF) - 1)
      if (match(p, /[A-Za-z0-9_]+$/)) { n = substr(p, RSTART); if (n in st && !(n in res)) res[n] = r }
    }
    / test not supported$| skipped \(requires| tests is not supported/ {
      for (n in st) if (index($0, n " ") == 1 || index($0, "Subtest " n " ") == 1) res[n] = "skip"
    }
    /^SKIPPED [0-9]+ of [0-9]+ (sub-)?tests\.$/ { initskip = $2 }
    /^FAILED test\.$/ { onefail = 1 }
    END {
      for (n in res) c[res[n]]++
      f = c["fail"] + 0; if (onefail && f == 0) f = 1
      printf "%d %d %d %d\n", c["pass"], f, c["skip"] + initskip, sub_tests
    }' "$1" 2>/dev/null || echo "0 0 0 0"
}
# "p/f/s status wall" of one chunk on one platform; also appends to costs.txt.
cell() {
  local v=$1 tag=$2 suite=${2%%.*} d log line st wall cpu
  d=$L/$v/$tag; log=$d/$suite.log
  line=$(grep -h "^$tag pass=" $L/$v/group*.txt 2>/dev/null | head -1)
  st=${line##*status=}; [ -n "$line" ] || st=notrun
  wall=$(sed -n 's/^### run.sh: status=.* \([0-9]*\)s pass=.*/\1/p' $log 2>/dev/null | tail -1)
  cpu=$(tail -1 $d/progress.txt 2>/dev/null | cut -d' ' -f2)
  set -- $( [ -f "$log" ] && recount $log || echo "0 0 0 0")
  echo "$tag $v $st ${wall:-0} ${cpu:-0} $4" >> $FINAL/costs.txt
  echo "$1/$2/$3 $st ${wall:-0}s"
}
rm -f $FINAL/costs.txt
{
  printf "%-44s | %-28s | %s\n" "suite.chunk" "cudacl p/f/s status" "NVIDIA p/f/s status"
  while read -r est it; do
    tag=${it%%=*}
    printf "%-44s | %-28s | %s\n" "$tag" "$(cell cudacl $tag)" "$(cell nvidia $tag)"
  done < $QF
} > $FINAL/table.txt
rm -f $QF
# Totals: passes, failures, skips; chunks that timed out or did not run; chunks NVIDIA passed
# (no failure, finished) where cudacl did not.
awk -F'|' 'NR > 1 {
    for (k = 2; k <= 3; k++) { split($k, a, " "); split(a[1], n, "/"); P[k] += n[1]; F[k] += n[2]; S[k] += n[3]
      if (a[2] == "timeout") T[k]++; else if (a[2] == "notrun") N[k]++; else if (a[2] != "ok") O[k]++ }
    split($2, c, " "); split($3, v, " "); split(c[1], cn, "/"); split(v[1], vn, "/")
    t = $1; gsub(/ /, "", t)
    if (v[2] == "ok" && vn[2] == 0 && vn[1] > 0 && !(c[2] == "ok" && cn[2] == 0 && cn[1] > 0)) {
      if (c[2] == "timeout" || c[2] == "notrun") { unreached++; ulist = ulist " " t } else { bad++; list = list " " t } }
    chunks++ }
  END { printf "TOTAL %d chunks | cudacl pass=%d fail=%d skip=%d timeout=%d notrun=%d other=%d | NVIDIA pass=%d fail=%d skip=%d timeout=%d notrun=%d other=%d | NVIDIA passed, cudacl did not: %d%s | NVIDIA passed, cudacl did not get to: %d%s\n",
    chunks, P[2], F[2], S[2], T[2], N[2], O[2], P[3], F[3], S[3], T[3], N[3], O[3], bad, list, unreached, ulist }' \
  $FINAL/table.txt >> $FINAL/table.txt
cat $FINAL/table.txt
