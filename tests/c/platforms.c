/* Lists what the OpenCL installation shows: each platform with its name, version and devices.
 * The integration tests read this output to see which platforms a program really reaches. */
#include "common.h"

int main(void) {
    cl_platform_id ps[16];
    cl_uint n = 0;
    cl_int err = clGetPlatformIDs(16, ps, &n);
    if (err != CL_SUCCESS) {
        printf("clGetPlatformIDs: %d\n", err);
        return 1;
    }
    printf("platforms: %u\n", n);
    for (cl_uint i = 0; i < n && i < 16; i++) {
        char name[256] = {0}, version[256] = {0}, ext[1024] = {0};
        clGetPlatformInfo(ps[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
        clGetPlatformInfo(ps[i], CL_PLATFORM_VERSION, sizeof version, version, NULL);
        clGetPlatformInfo(ps[i], CL_PLATFORM_EXTENSIONS, sizeof ext, ext, NULL);
        cl_uint nd = 0;
        cl_int derr = clGetDeviceIDs(ps[i], CL_DEVICE_TYPE_ALL, 0, NULL, &nd);
        printf("platform: %s | %s | %s | devices: %u (status %d)\n", name, version, ext, derr == CL_SUCCESS ? nd : 0, derr);
        cl_device_id ds[16];
        if (derr == CL_SUCCESS && clGetDeviceIDs(ps[i], CL_DEVICE_TYPE_ALL, 16, ds, NULL) == CL_SUCCESS) {
            for (cl_uint j = 0; j < nd && j < 16; j++) {
                char dn[256] = {0};
                clGetDeviceInfo(ds[j], CL_DEVICE_NAME, sizeof dn, dn, NULL);
                printf("  device: %s\n", dn);
            }
        }
    }
    return 0;
}
