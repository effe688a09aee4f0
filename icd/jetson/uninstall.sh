#!/usr/bin/env bash
# Removes what install.sh installed (the ICD loader and clinfo stay).   sudo ./uninstall.sh
set -euo pipefail
[ "$(id -u)" = 0 ] || { echo "uninstall.sh: run as root (sudo ./uninstall.sh)" >&2; exit 1; }
rm -f /etc/OpenCL/vendors/cudacl.icd /usr/local/lib/cudacl/libcudacl.so \
  /usr/local/lib/cudacl/clc/nvptx64--nvidiacl.bc /usr/local/bin/ompcl /usr/local/bin/ptxgen
rm -rf /usr/local/share/ompcl
rmdir /usr/local/lib/cudacl/clc /usr/local/lib/cudacl 2>/dev/null || true
echo "removed cudacl (/usr/local/lib/cudacl, /usr/local/bin/{ompcl,ptxgen}, /etc/OpenCL/vendors/cudacl.icd)"
