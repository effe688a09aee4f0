// EXPECT: fail
// ERROR: kernel 'sixteen': intel_reqd_sub_group_size(16) is not supported
// cl_intel_required_subgroup_size: sub-groups are warps, 32 is the only size (info.rs); the
// attribute with 32 is accepted (tests/c/subgroups.c) and reported in CL_KERNEL_ATTRIBUTES.
kernel __attribute__((intel_reqd_sub_group_size(32))) void warp(global int *o) { o[0] = (int)get_sub_group_size(); }
kernel __attribute__((intel_reqd_sub_group_size(16))) void sixteen(global int *o) { o[0] = 1; }
