/* directives made by the _Pragma operator inside a header's macros (as SOLLVE's ompvv.h does) */
int c94_on_device = -1;
#define C94_PROBE \
    c94_on_device = 0; \
    _Pragma("omp target map(from: c94_on_device)") \
    { c94_on_device = !omp_is_initial_device(); }
#define C94_STR(x) #x
#define C94_OMP(x) _Pragma(C94_STR(omp x))
#define C94_SCALE(arr, n, f) \
    C94_OMP(target teams distribute parallel for map(tofrom: arr[0:n])) \
    for (int k_ = 0; k_ < (n); k_++) arr[k_] *= (f);
