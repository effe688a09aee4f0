#!/usr/bin/env bash
# Removes what icd/install.sh installed.   icd/uninstall.sh [prefix, default /usr/local]
set -euo pipefail
prefix=${1:-/usr/local}
rm -f /etc/OpenCL/vendors/cudacl.icd "$prefix/lib/libcudacl.so" "$prefix/lib/clc/nvptx64--nvidiacl.bc"
rmdir "$prefix/lib/clc" 2>/dev/null || true
echo "removed cudacl from $prefix and /etc/OpenCL/vendors"
