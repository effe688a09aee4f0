#!/usr/bin/env bash
# Stages PyOpenCL's own test suite for the GPU machine (Python 3.12, no registry there): the
# pyopencl wheel and the dependencies that machine lacks, and the tests from pyopencl's sdist.
#   conformance/pyopencl/stage.sh DEST [VERSION]
set -euo pipefail
dest=${1:?usage: stage.sh DEST [VERSION]}
ver=${2:-2026.1.4}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$dest/whl"
pip_dl() {
  python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 \
    --platform manylinux2014_x86_64 --platform any -d "$dest/whl" "$@"
}
pip_dl "pyopencl==$ver"
pip_dl "pytools>=2025.1.6" platformdirs siphash24 mako
# The tests are only in the sdist: fetch it from the package index pip uses.
python3 - "$ver" "$dest" <<'PY'
import io, re, sys, tarfile, urllib.request
ver, dest = sys.argv[1], sys.argv[2]
html = urllib.request.urlopen("https://pypi.org/simple/pyopencl/").read().decode()
url = next(u.split("#")[0] for u in re.findall(r'href="([^"]+)"', html) if f"pyopencl-{ver}.tar.gz" in u)
tar = tarfile.open(fileobj=io.BytesIO(urllib.request.urlopen(url).read()))
members = [m for m in tar.getmembers() if "/test/" in m.name]
for m in members:
    m.name = "test/" + m.name.split("/test/", 1)[1]
tar.extractall(dest, members=members)
PY
cp "$here/run.sh" "$dest/"
du -sh "$dest"
