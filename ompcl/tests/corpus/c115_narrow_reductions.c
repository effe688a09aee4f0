/* ompcl-test: offload=all warn="device constructs" */
#include <stdio.h>
#include <omp.h>
/* reductions on narrow integers (char, unsigned char, short, unsigned short): private copies,
   the work-group tree and the partials in the variable's type, every step converting back as C
   does (sums wrap modulo 2^8 or 2^16) */
#define N 3000
char a[N];
unsigned char u[N];
short s[N];
unsigned short us[N];
int main(void) {
    int i;
    for (i = 0; i < N; i++) {
        a[i] = (char)((i * 7) % 11 != 0);
        u[i] = (unsigned char)(i * 13);
        s[i] = (short)(i * 31 - 7000);
        us[i] = (unsigned short)(i * 977);
    }
    char land = 1, lor = 0, cmax = -100;
    unsigned char usum = 3, uand = 255, uxor = 0, umin = 255;
    short ssum = 0, smax = -32768, smul = 1;
    unsigned short ussum = 0, usor = 0;
#pragma omp parallel for reduction(&&: land) reduction(||: lor) reduction(max: cmax)
    for (i = 0; i < N; i++) {
        land = land && a[i];
        lor = lor || a[i];
        if (a[i] + (char)(i % 50) > cmax) cmax = a[i] + (char)(i % 50);
    }
    printf("char %d %d %d\n", land, lor, cmax);
#pragma omp parallel for reduction(+: usum) reduction(&: uand) reduction(^: uxor) reduction(min: umin)
    for (i = 0; i < N; i++) {
        usum += u[i];
        uand &= (unsigned char)(u[i] | 1);
        uxor ^= u[i];
        if (u[i] + 5 < umin) umin = u[i] + 5;
    }
    printf("uchar %d %d %d %d\n", usum, uand, uxor, umin);
#pragma omp target teams distribute parallel for reduction(+: ssum) reduction(max: smax) reduction(*: smul) map(to: s)
    for (i = 0; i < N; i++) {
        ssum += s[i];
        if (s[i] > smax) smax = s[i];
        smul *= (short)(i % 3 == 0 ? 3 : 1);
    }
    printf("short %d %d %d\n", ssum, smax, smul);
    int teams = 0;
#pragma omp target teams distribute reduction(+: ussum) reduction(|: usor) map(to: us) map(tofrom: teams)
    for (i = 0; i < N; i++) {
        if (i == 0) teams = omp_get_num_teams() > 0;
        ussum += us[i];
        usor |= (unsigned short)(us[i] & 0x0f0f);
    }
    printf("ushort %d %d %d\n", ussum, usor, teams);
    char lo = 0, la = 1;
    for (int r = 0; r < 2; r++) {
        for (i = 0; i < N; i++) a[i] = (char)(r == 0 ? 1 : i != 1777);
#pragma omp target teams distribute reduction(&&: la) reduction(||: lo) map(to: a)
        for (i = 0; i < N; i++) {
            la = la && a[i];
            lo = lo || !a[i];
        }
        printf("round %d %d %d\n", r, la, lo);
    }
    return 0;
}
