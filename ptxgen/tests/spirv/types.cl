// Vector types of every width, double, half storage, char vectors, a packed struct, and
// private and program-scope constant arrays.
constant int table[4] = {1, 2, 3, 5};

typedef struct __attribute__((packed)) { char c; int i; } packed_t;

kernel void vectors(global float8 *f8, global double3 *d3, global char2 *c2, global short16 *s16,
                    int3 i3, long2 l2, packed_t pk, global half *h) {
  size_t i = get_global_id(0);
  f8[i] = f8[i] * 2.0f + (float8)(i3.x);
  d3[i] = d3[i] + (double3)(l2.y) + fma(d3[i], d3[i], (double3)(1.0));
  c2[i] = c2[i] + (char2)(pk.c);
  s16[i] = s16[i] >> (short16)(1);
  vstore_half(vload_half(i, h) * (float)table[i & 3] + (float)pk.i, i, h);
}

kernel void priv(global int *out, int n) {
  int a[16];
  for (int k = 0; k < 16; k++) a[k] = k * n;
  out[get_global_id(0)] = a[(get_global_id(0) + n) & 15] + table[n & 3];
}
