// OPTIONS: -I tests/corpus/inc
// KERNELS: inc
#include "corpus_inc.h"
__kernel void inc(__global int *p) { p[get_global_id(0)] = CORPUS_INC_VALUE; }
