/* The Khronos headers cudacl's types, constants and ICD dispatch table come from. */
#include <CL/cl.h>
#include <CL/cl_ext.h>
#include <CL/cl_gl.h>
#include <CL/cl_icd.h>
