#!/usr/bin/env bash
# Installs what building and testing cudacl needs on Debian 12 (bookworm), then nothing else.
# Run as root or with sudo available. Idempotent.
set -euo pipefail
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
PACKAGES=(
  # compiler toolchain and the static clang/LLVM 19 that ptxgen links
  build-essential pkg-config clang-19 llvm-19-dev libclang-19-dev libpolly-19-dev libzstd-dev zlib1g-dev
  # libclc: the OpenCL C builtins for nvptx
  libclc-19 libclc-19-dev
  # SPIR-V programs (clCreateProgramWithIL): SPIRV-LLVM-Translator 15, run by ptxgen as a
  # subprocess; clang-15 makes the tests' SPIR-V (clang 19 cannot: the translator reads no
  # LLVM 19 bitcode and Debian's LLVM 19 has no SPIR-V back end)
  llvm-spirv-15 clang-15
  # OpenCL headers (bindgen), the ocl-icd loader, clinfo, and PoCL (the CPU device ompcl's tests use)
  opencl-c-headers ocl-icd-libopencl1 ocl-icd-opencl-dev clinfo pocl-opencl-icd
  # older libclang versions (Ubuntu 20.04/22.04 on Jetsons ship them): ompcl's libclang_versions test
  libclang1-14 libclang1-15 libclang1-16
  # binutils for the export test (nm), python for helper scripts
  binutils python3
)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
command -v cargo >/dev/null || { echo "setup: cargo (Rust 1.80+) is required: https://rustup.rs" >&2; exit 1; }
echo "setup: ok"
