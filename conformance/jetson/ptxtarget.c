/* Builds and runs one kernel on the first cudacl GPU and prints the .version/.target of the PTX
 * the runtime made (from CL_PROGRAM_BINARIES: cudacl's container holds the PTX text), so a run
 * with CUDACL_TARGET shows which target the driver was given. Exit 0 when the result is right. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *src =
    "__kernel void saxpy(__global float *y, __global const float *x, float a) {\n"
    "  size_t i = get_global_id(0); y[i] = a * x[i] + y[i]; }\n";

int main(void) {
  cl_platform_id p; cl_device_id d; cl_int e;
  if (clGetPlatformIDs(1, &p, NULL) || clGetDeviceIDs(p, CL_DEVICE_TYPE_GPU, 1, &d, NULL)) {
    puts("ptxtarget: no device"); return 1;
  }
  cl_context c = clCreateContext(NULL, 1, &d, NULL, NULL, &e);
  cl_command_queue q = clCreateCommandQueue(c, d, 0, &e);
  cl_program pr = clCreateProgramWithSource(c, 1, &src, NULL, &e);
  if (clBuildProgram(pr, 1, &d, "", NULL, NULL)) {
    char log[8192] = {0};
    clGetProgramBuildInfo(pr, d, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
    printf("ptxtarget: build failed:\n%s\n", log); return 1;
  }
  size_t n = 0; clGetProgramInfo(pr, CL_PROGRAM_BINARY_SIZES, sizeof n, &n, NULL);
  unsigned char *bin = malloc(n + 1); clGetProgramInfo(pr, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL);
  bin[n] = 0;
  for (size_t i = 0; i + 8 < n; i++)
    if (!memcmp(bin + i, ".version ", 9) || !memcmp(bin + i, ".target ", 8)) {
      size_t j = i; while (j < n && bin[j] != '\n') j++;
      printf("ptxtarget: %.*s\n", (int)(j - i), (const char *)bin + i);
      i = j;
    }
  enum { N = 1 << 20 };
  float *x = malloc(N * 4), *y = malloc(N * 4);
  for (int i = 0; i < N; i++) { x[i] = (float)i; y[i] = 1.0f; }
  cl_mem bx = clCreateBuffer(c, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, N * 4, x, &e);
  cl_mem by = clCreateBuffer(c, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, N * 4, y, &e);
  cl_kernel k = clCreateKernel(pr, "saxpy", &e);
  float a = 2.0f;
  clSetKernelArg(k, 0, sizeof by, &by); clSetKernelArg(k, 1, sizeof bx, &bx); clSetKernelArg(k, 2, sizeof a, &a);
  size_t g = N;
  e = clEnqueueNDRangeKernel(q, k, 1, NULL, &g, NULL, 0, NULL, NULL);
  float *m = clEnqueueMapBuffer(q, by, CL_TRUE, CL_MAP_READ, 0, N * 4, 0, NULL, NULL, &e);
  int bad = 0;
  for (int i = 0; i < N; i++) if (m[i] != 2.0f * i + 1.0f) bad++;
  clEnqueueUnmapMemObject(q, by, m, 0, NULL, NULL); clFinish(q);
  printf("ptxtarget: saxpy %s (%d wrong)\n", bad ? "FAIL" : "ok", bad);
  return bad != 0;
}
