#!/usr/bin/env bash
# Installs cudacl as an OpenCL ICD: copies libcudacl.so (and libclc's nvptx bitcode beside it,
# where ptxgen looks first) and registers it in /etc/OpenCL/vendors/cudacl.icd.
#   icd/install.sh [path/to/libcudacl.so] [prefix, default /usr/local]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
lib=${1:-$here/target/release/libcudacl.so}
prefix=${2:-/usr/local}
[ -f "$lib" ] || { echo "no $lib: build it with 'cargo build --release' first" >&2; exit 1; }
install -d "$prefix/lib/clc" /etc/OpenCL/vendors
install -m 0755 "$lib" "$prefix/lib/libcudacl.so"
for clc in /usr/lib/clc/nvptx64--nvidiacl.bc /usr/share/clc/nvptx64--nvidiacl.bc; do
  if [ -f "$clc" ]; then install -m 0644 "$clc" "$prefix/lib/clc/"; break; fi
done
echo "$prefix/lib/libcudacl.so" > /etc/OpenCL/vendors/cudacl.icd
echo "installed: /etc/OpenCL/vendors/cudacl.icd -> $prefix/lib/libcudacl.so"
