// Sub-group built-ins (warps) and signed/unsigned integer built-ins: SPIR-V has no signed
// types, the translator must give back the signed or unsigned overload from the opcode.
kernel void sg(global int *o) { int x = o[get_global_id(0)]; o[get_global_id(0)] = sub_group_reduce_add(x) + sub_group_broadcast(x, 0) + get_sub_group_local_id(); }
kernel void m(global int *o, global uint *u) { o[0] = sub_group_reduce_min(o[1]) + min(o[2], o[3]) + abs(o[4]); u[0] = sub_group_reduce_min(u[1]) + max(u[2],u[3]) + (o[5] >> 3) + hadd(o[6], o[7]); }
