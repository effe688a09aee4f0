#!/usr/bin/env bash
# Checks that ELF files load on the oldest Jetson system cudacl supports: every versioned symbol
# they import is at most GLIBC_$GLIBC_MAX (default 2.31: JetPack 5 / Ubuntu 20.04; JetPack 6 /
# Ubuntu 22.04 has 2.35), no libstdc++ symbol versions newer than Ubuntu 20.04's GCC 10 libstdc++
# (GLIBCXX_3.4.28, CXXABI_1.3.12) are needed, no DT_RELR, and only system libraries every
# JetPack has are NEEDED.
#   scripts/check-glibc.sh FILE...
set -euo pipefail
GLIBC_MAX=${GLIBC_MAX:-2.31}
GLIBCXX_MAX=3.4.28
CXXABI_MAX=1.3.12
ALLOWED_NEEDED="libc.so.6 libm.so.6 libdl.so.2 libpthread.so.0 librt.so.1 libutil.so.1 libgcc_s.so.1 ld-linux-aarch64.so.1 ld-linux-x86-64.so.2"
OBJDUMP=objdump
command -v aarch64-linux-gnu-objdump >/dev/null && OBJDUMP=aarch64-linux-gnu-objdump
# a <= b for dotted versions
le() { [ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | head -1)" = "$1" ]; }
fail=0
for f in "$@"; do
  [ -f "$f" ] || { echo "check-glibc: no $f" >&2; fail=1; continue; }
  syms=$($OBJDUMP -T "$f")
  worst=""
  for tag in GLIBC GLIBCXX CXXABI; do
    case $tag in GLIBC) max=$GLIBC_MAX ;; GLIBCXX) max=$GLIBCXX_MAX ;; CXXABI) max=$CXXABI_MAX ;; esac
    vers=$(grep -oE "\b${tag}_[0-9.]+\b" <<<"$syms" | sed "s/^${tag}_//" | sort -uV || true)
    top=$(tail -1 <<<"$vers")
    [ -n "$top" ] && worst="$worst ${tag}_$top"
    for v in $vers; do
      if ! le "$v" "$max"; then
        echo "check-glibc: $f needs ${tag}_$v (ceiling ${tag}_$max):" >&2
        grep -E "\b${tag}_$v\b" <<<"$syms" | awk '{print "    " $NF}' | sort -u | head -20 >&2
        fail=1
      fi
    done
  done
  if $OBJDUMP -p "$f" | grep -qE "^ +RELR +|GLIBC_ABI_DT_RELR"; then
    echo "check-glibc: $f uses DT_RELR (glibc >= 2.36)" >&2
    fail=1
  fi
  needed=$($OBJDUMP -p "$f" | awk '$1 == "NEEDED" {print $2}')
  for n in $needed; do
    case " $ALLOWED_NEEDED " in *" $n "*) ;; *)
      echo "check-glibc: $f needs $n, which a Jetson may not have" >&2
      fail=1
      ;;
    esac
  done
  echo "check-glibc: $(basename "$f"): newest versions:$worst; NEEDED: $(echo $needed)"
done
if [ $fail = 0 ]; then echo "check-glibc: ok (GLIBC <= $GLIBC_MAX, GLIBCXX <= $GLIBCXX_MAX)"; fi
exit $fail
