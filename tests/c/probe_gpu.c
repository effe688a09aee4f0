/* Exits 0 when the cudacl platform lists at least one GPU (used to decide whether GPU tests run). */
#include "common.h"

int main(void) {
    cl_platform_id p = find_platform();
    if (!p) return 1;
    cl_uint n = 0;
    return clGetDeviceIDs(p, CL_DEVICE_TYPE_GPU, 0, NULL, &n) == CL_SUCCESS && n > 0 ? 0 : 1;
}
