// KERNELS: ctab
__constant float table[4] = {1.0f, 2.0f, 4.0f, 8.0f};
__constant char msg[] = "const";
float pick(__constant float *t, uint i) { return t[i & 3]; }
__kernel void ctab(__global float *out, __constant float *coef, __constant int4 *c4) {
  size_t i = get_global_id(0);
  out[i] = pick(table, i) * coef[i % 4] + c4[0].y + msg[i % 5];
}
