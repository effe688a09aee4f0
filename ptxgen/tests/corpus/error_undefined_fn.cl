// EXPECT: fail
// ERROR: undefined function 'not_defined_anywhere'
int not_defined_anywhere(int);
__kernel void undef(__global int *p) { p[0] = not_defined_anywhere(p[1]); }
