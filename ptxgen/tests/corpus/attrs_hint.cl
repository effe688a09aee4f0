// KERNELS: hinted
// ATTRS: hinted work_group_size_hint(128,1,1) vec_type_hint(float4)
__kernel __attribute__((work_group_size_hint(128, 1, 1))) __attribute__((vec_type_hint(float4)))
void hinted(__global float4 *p) {
  p[get_global_id(0)] *= 2.0f;
}
