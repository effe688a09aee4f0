// Built-ins taking pointers in every address space (constant vload, private out-parameters
// passed as generic pointers, async copies into local memory), a struct copied from constant
// data, a program-scope global variable.
typedef struct { float v[8]; int n; } big_t;
constant big_t cb = {{1,2,3,4,5,6,7,8}, 3};
global int counter = 0;
kernel void copies(global float *o, constant float4 *c4, local float *l) {
  big_t b = cb;                       // memcpy from constant
  float ip, s, co;
  float f = fract(o[0], &ip);         // private pointer out-parameter
  s = sincos(o[1], &co);
  float4 v = vload4(0, (constant float*)c4) + vload4(1, o);
  vstore4(v, 2, o);
  event_t e = async_work_group_copy(l, o, 16, 0);
  wait_group_events(1, &e);
  o[get_global_id(0)] = b.v[b.n] + f + ip + s + co + l[3] + vload_half(0, (global half*)o);
  int fr; float m = frexp(o[2], &fr); o[3] = m + fr + remquo(o[4], o[5], &fr);
  mem_fence(CLK_GLOBAL_MEM_FENCE);
  counter++;
}
