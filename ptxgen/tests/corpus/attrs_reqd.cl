// KERNELS: reqd
// ATTRS: reqd reqd_work_group_size(64,2,1)
__kernel __attribute__((reqd_work_group_size(64, 2, 1))) void reqd(__global int *p) {
  p[get_global_id(1) * get_global_size(0) + get_global_id(0)] = 1;
}
