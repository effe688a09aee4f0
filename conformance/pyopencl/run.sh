#!/usr/bin/env bash
# Runs PyOpenCL's test suite against one OpenCL platform (on the GPU machine).
#   run.sh PLATFORM_SUBSTRING [pytest args...]     e.g. run.sh cudacl, run.sh NVIDIA
# OCL_ICD_VENDORS must already select the driver; PYOPENCL_TEST picks the platform by name.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
platform=${1:?platform}; shift
site=/tmp/pyopencl-site
[ -d $site/pyopencl ] || python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target $site "$here"/whl/*.whl || exit 1
export PYTHONPATH=$site PYOPENCL_TEST=$platform PYOPENCL_NO_CACHE=1
cd "$here/test"
files="test_wrapper.py test_array.py test_algorithm.py test_clmath.py test_enqueue_copy.py test_arrays_in_structs.py test_clrandom.py"
python3 -m pytest -q -p no:cacheprovider -o addopts="" --timeout=300 -n 8 $files "$@" 2>&1 | tail -60
