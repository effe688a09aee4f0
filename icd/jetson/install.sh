#!/usr/bin/env bash
# Installs cudacl from this folder (the unpacked aarch64 tarball) as an OpenCL ICD on a Jetson:
#   /usr/local/lib/cudacl/{libcudacl.so,clc/nvptx64--nvidiacl.bc}, /etc/OpenCL/vendors/cudacl.icd,
#   /usr/local/bin/{ompcl,ptxgen}, /usr/local/share/ompcl/runtime, and the ocl-icd loader
#   (libOpenCL.so.1) and clinfo through apt when they are missing.
#   sudo ./install.sh [--no-apt]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ "$(id -u)" = 0 ] || { echo "install.sh: run as root (sudo ./install.sh)" >&2; exit 1; }
arch=$(uname -m)
[ "$arch" = aarch64 ] || echo "install.sh: warning: this is an aarch64 build and this machine is $arch" >&2
if [ "${1:-}" != --no-apt ] && command -v apt-get >/dev/null; then
  need=()
  ldconfig -p | grep -q 'libOpenCL.so.1 ' || need+=(ocl-icd-libopencl1)
  command -v clinfo >/dev/null || need+=(clinfo)
  if [ ${#need[@]} -gt 0 ]; then
    echo "install.sh: installing ${need[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${need[@]}" ||
      echo "install.sh: apt-get failed; install ${need[*]} yourself" >&2
  fi
fi
install -d /usr/local/lib/cudacl/clc /etc/OpenCL/vendors /usr/local/bin /usr/local/share/ompcl/runtime
install -m 0755 "$here/lib/libcudacl.so" /usr/local/lib/cudacl/libcudacl.so
install -m 0644 "$here/lib/clc/nvptx64--nvidiacl.bc" /usr/local/lib/cudacl/clc/nvptx64--nvidiacl.bc
install -m 0755 "$here/bin/ompcl" "$here/bin/ptxgen" /usr/local/bin/
install -m 0644 "$here"/share/ompcl/runtime/* /usr/local/share/ompcl/runtime/
install -m 0644 "$here/cudacl.icd" /etc/OpenCL/vendors/cudacl.icd
echo "installed: /etc/OpenCL/vendors/cudacl.icd -> /usr/local/lib/cudacl/libcudacl.so"
if command -v clinfo >/dev/null; then clinfo -l || true; fi
