/*
 * clbinary: builds an OpenCL C file on one platform and writes the program's binary for the
 * first GPU device to stdout (NVIDIA's OpenCL and cudacl both give PTX text), to compare what
 * two compilers made of the same source.
 *
 *   clbinary FILE.cl [BUILD-OPTIONS] > FILE.ptx     (select the platform with OCL_ICD_FILENAMES)
 *
 * Exits 1 with the build log on stderr when the build fails.
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>

static char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    rewind(f);
    char *s = malloc(*len + 1);
    if (fread(s, 1, *len, f) != *len) *len = 0;
    s[*len] = 0;
    fclose(f);
    return s;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: clbinary FILE.cl [BUILD-OPTIONS]\n");
        return 2;
    }
    size_t len;
    const char *src = read_file(argv[1], &len);
    if (!src) {
        perror(argv[1]);
        return 2;
    }
    cl_platform_id p;
    cl_device_id d;
    cl_int e = clGetPlatformIDs(1, &p, NULL);
    if (e == CL_SUCCESS) e = clGetDeviceIDs(p, CL_DEVICE_TYPE_GPU, 1, &d, NULL);
    if (e != CL_SUCCESS) {
        fprintf(stderr, "clbinary: no GPU device (%d)\n", e);
        return 2;
    }
    cl_context c = clCreateContext(NULL, 1, &d, NULL, NULL, &e);
    cl_program prog = clCreateProgramWithSource(c, 1, &src, &len, &e);
    if (clBuildProgram(prog, 1, &d, argc > 2 ? argv[2] : "", NULL, NULL) != CL_SUCCESS) {
        size_t n = 0;
        clGetProgramBuildInfo(prog, d, CL_PROGRAM_BUILD_LOG, 0, NULL, &n);
        char *log = malloc(n + 1);
        clGetProgramBuildInfo(prog, d, CL_PROGRAM_BUILD_LOG, n, log, NULL);
        log[n] = 0;
        fprintf(stderr, "clbinary: build failed:\n%s\n", log);
        return 1;
    }
    size_t size = 0;
    clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL);
    unsigned char *bin = malloc(size);
    clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL);
    fwrite(bin, 1, size, stdout);
    return 0;
}
