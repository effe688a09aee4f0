// Global, constant and local pointers, by-value vectors and a struct, a helper function,
// barriers, math built-ins and 32-bit atomics.
typedef struct { int a; float b; double c; } pair_t;

float scale(float x, float k) { return x * k; }

kernel void vadd(global const float *a, global const float *b, global float *c, int n) {
  size_t i = get_global_id(0);
  if (i < n) c[i] = a[i] + b[i];
}

kernel void mixed(global float *out, constant float *coef, local float *tmp, float4 v, pair_t p,
                  uchar u) {
  size_t l = get_local_id(0), g = get_global_id(0);
  tmp[l] = coef[l] * v.y;
  barrier(CLK_LOCAL_MEM_FENCE);
  float s = tmp[(l + 1) % get_local_size(0)];
  out[g] = scale(s, p.b) + sqrt((float)p.a) + exp(s) + (float)p.c + u;
}

kernel void histogram(global const uint *in, global volatile int *bins, local int *lbins) {
  size_t l = get_local_id(0);
  lbins[l] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  atomic_inc(&lbins[in[get_global_id(0)] % get_local_size(0)]);
  barrier(CLK_LOCAL_MEM_FENCE);
  atomic_add(&bins[l], lbins[l]);
}

kernel void ids(global ulong *out) {
  size_t g = get_global_id(0) + get_global_size(0) * get_global_id(1);
  out[g] = get_global_offset(0) + get_work_dim() + get_num_groups(1) + get_group_id(0) +
           get_local_size(1) + get_enqueued_local_size(0) + get_global_linear_id();
}

// OpFDiv as OpenCL C's `/`: the same division (div.full.f32) as the source build.
kernel void quot(global float *o, global const float *a, global const float *b) {
  size_t i = get_global_id(0);
  o[i] = a[i] / b[i];
}
