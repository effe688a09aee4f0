/* ompcl-test: offload=all warn="device constructs" */
#include <stdio.h>
#include <omp.h>
/* scalars, structs and struct members in map clauses: entries of the present table (no device
   storage: kernels copy them in and out), so omp_target_is_present sees them and a write in a
   target region comes back when this construct maps it to/from/tofrom or it was present before (an
   enclosing construct may copy it out at its end: ompcl keeps no second copy, so at once), never
   for a `map(alloc: x)` alone (a `map(to: x)` comes back: ompcl's device addresses are the host's,
   a program probing this way finds a device sharing memory). On the host (gcc's fallback,
   OMPCL_DEVICE=host) memory is shared: every write shows. */
struct S { char p[8]; int a; int b[2]; long c[4]; int *d; };
int main(void) {
    int dev = omp_get_default_device();
    if (dev < 0 || dev >= omp_get_num_devices()) dev = omp_get_initial_device();
    int x = 0, y = 0, z = 0, w = 0, on_host = 1, i;
    int arr[3] = {18, 19, 20};
    struct S s = {{0}, 11, {12, 13}, {14, 15, 16, 17}, arr + 2};
#pragma omp target map(alloc: x) map(from: on_host)
    {
        x = 1;
        on_host = omp_is_initial_device();
    }
    printf("alloc: %d\n", on_host ? x == 1 : x == 0);
#pragma omp target map(to: w)
    w = 2;
    printf("to (comes back, as on a device sharing memory): %d\n", w);
#pragma omp target data map(tofrom: y)
    {
        printf("present y %d\n", omp_target_is_present(&y, dev));
#pragma omp target map(to: y)
        y = 5;
    }
    printf("tofrom around to: %d\n", y);
#pragma omp target data map(to: z)
    {
#pragma omp target map(tofrom: z)
        z = 7;
    }
    printf("to around tofrom (present before: copied back): %d\n", z);
    printf("before: %d %d\n", omp_target_is_present(&s.a, dev) == (dev == omp_get_initial_device()),
           omp_target_is_present(&s.c[1], dev) == (dev == omp_get_initial_device()));
#pragma omp target data map(alloc: s.a, s.b, s.c[1:2], s.d, s.d[-2:3])
    {
        printf("members present: %d %d %d %d %d\n", omp_target_is_present(&s.a, dev),
               omp_target_is_present(s.b, dev), omp_target_is_present(&s.c[1], dev),
               omp_target_is_present(s.d, dev), omp_target_is_present(&s.d[-2], dev));
#pragma omp target map(tofrom: s.a, s.b, s.c[1:2])
        {
            s.a += 20;
            s.b[1] = 30;
            s.c[2] = 40;
        }
    }
    printf("members (present before: copied back): %d %d %ld\n", s.a, s.b[1], s.c[2]);
    struct S t = s;
#pragma omp target enter data map(to: t)
    printf("struct present %d\n", omp_target_is_present(&t, dev));
#pragma omp target
    {
        t.a = 99;
        for (i = 0; i < 4; i++) t.c[i] = i * 3;
    }
#pragma omp target exit data map(from: t)
    printf("struct (present before: copied back): %d %ld %d\n", t.a, t.c[3], t.d == arr + 2);
    return 0;
}
