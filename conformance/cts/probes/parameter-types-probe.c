#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <string.h>
static const char *code =
"__kernel void test_kernel(\nchar%s c, uchar%s uc, short%s s, ushort%s us, int%s i, uint%s ui, float%s f,\n__global float%s *result)\n{\n    result[0] = %s(c);\n    result[1] = %s(uc);\n    result[2] = %s(s);\n    result[3] = %s(us);\n    result[4] = %s(i);\n    result[5] = %s(ui);\n    result[6] = f;\n}";
int main(void) {
  cl_platform_id p; cl_device_id d; cl_int e;
  clGetPlatformIDs(1, &p, NULL); clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &d, NULL);
  cl_context c = clCreateContext(NULL, 1, &d, NULL, NULL, &e);
  const char *sz[] = {"", "2", "4", "8", "16"};
  for (int k = 0; k < 5; k++) {
    char src[4096], cv[64]; const char *s = sz[k];
    if (k) sprintf(cv, "convert_float%s", s); else strcpy(cv, " ");
    sprintf(src, code, s,s,s,s,s,s,s,s, cv,cv,cv,cv,cv,cv);
    const char *ps = src;
    cl_program pr = clCreateProgramWithSource(c, 1, &ps, NULL, &e);
    e = clBuildProgram(pr, 1, &d, NULL, NULL, NULL);
    cl_kernel kk = clCreateKernel(pr, "test_kernel", &e);
    printf("size %s build ok, kernel %d\n", s, e);
    if (!e) {
      cl_command_queue q = clCreateCommandQueue(c, d, 0, &e);
      char vals[64] = {0}; int sizes[] = {1, 2, 4, 8, 16}; int n = sizes[k];
      size_t szs[7] = {1, 1, 2, 2, 4, 4, 4};
      for (int a = 0; a < 7; a++) clSetKernelArg(kk, a, szs[a] * n, vals);
      cl_mem r = clCreateBuffer(c, CL_MEM_READ_WRITE, 7 * 16 * 4, NULL, &e);
      clSetKernelArg(kk, 7, sizeof r, &r);
      size_t g = 1;
      e = clEnqueueNDRangeKernel(q, kk, 1, NULL, &g, NULL, 0, NULL, NULL);
      float out[112]; clEnqueueReadBuffer(q, r, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL);
      printf("  launch %d\n", e);
      clReleaseMemObject(r); clReleaseCommandQueue(q); clReleaseKernel(kk);
    }
    clReleaseProgram(pr);
    if (e) { char log[8192]; clGetProgramBuildInfo(pr, d, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL); printf("%s\n", log); }
  }
}
