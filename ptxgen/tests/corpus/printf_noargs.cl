// KERNELS: hello
__kernel void hello(void) {
  if (get_global_id(0) == 0) printf("hello from cudacl\n");
}
