/* ompcl-test: offload=some warn="a declaration in the target body that the host cannot evaluate" */
#include <stdio.h>
#include <stdlib.h>
#include <omp.h>
/* Target regions whose body is several statements, loop constructs among them (target_body.rs):
 * each loop construct is a kernel, the other statements run in order between them - on the host
 * when they only compute the body's numeric locals from numbers, else on the device by one
 * work-item - and the data stays on the device. `target teams` bodies run as one team. Forms:
 * SOLLVE's reduction_separated_directives (a team counter updated under `atomic` / a
 * `reduction`, then stored by team 0), locals of int, long, double and unsigned, a `parallel for`
 * and a `parallel` + `for`, a `distribute`-free `target` with serial statements writing mapped
 * arrays and scalars between loops, a heap array mapped by section, a `parallel` without
 * worksharing (every thread), a lone statement under `target teams`, `teams` stacked on
 * `target` over a block (its `thread_limit`, a `parallel if(0)`). The last two regions run
 * on the host, saying why: one declares a local from device data, one sets a firstprivate scalar
 * that its next kernel reads (a kernel's copy of it does not come back). */
#define N 1000

int main(void) {
    int i, atomic_out = 0, red_out = 0, teams_out = -1;
    long lsum = 0;
    double a[N], scale_out = 0;
    unsigned u_out = 0;
    float *h = malloc(N * sizeof(float));
    for (i = 0; i < N; i++) {
        a[i] = (i % 17) * 0.25;
        h[i] = (float)(i % 5);
    }
#pragma omp target teams map(from: atomic_out)
    {
        int counts_team = 0;
#pragma omp parallel
        {
#pragma omp for
            for (int k = 0; k < N; ++k)
#pragma omp atomic
                counts_team += 1;
        }
        if (omp_get_team_num() == 0) atomic_out = counts_team;
    }
#pragma omp target teams num_teams(4) map(from: red_out)
    {
        int counts_team = 0;
#pragma omp parallel
        {
#pragma omp for reduction(+: counts_team)
            for (int k = 0; k < N; ++k) counts_team += 2;
        }
        if (omp_get_team_num() == 0) red_out = counts_team;
    }
    printf("%d %d\n", atomic_out, red_out);
#pragma omp target map(tofrom: a, lsum, scale_out, u_out)
    {
        long base = 10;
        double t = 2.0 * 3;
        unsigned mask = 0xffu;
#pragma omp parallel for reduction(+: lsum)
        for (i = 0; i < N; i++) lsum += (long)(a[i] * 4) + base;
        a[0] = (double)lsum / 1000; /* a serial statement on device data */
#pragma omp parallel for
        for (i = 1; i < N; i++) a[i] = a[i] * t + a[0];
        scale_out = a[N - 1] + t;
        u_out = (unsigned)lsum & mask;
    }
    printf("%ld %g %g %g %u\n", lsum, a[0], a[N / 2], scale_out, u_out);
#pragma omp target map(tofrom: h[0:N], teams_out)
    {
        float add = 1.5f;
        int hits = 0;
#pragma omp parallel
        {
#pragma omp atomic
            hits += 1;
        }
#pragma omp parallel for
        for (i = 0; i < N; i++) h[i] = h[i] * 2 + add;
        if (hits >= 1) h[0] = -1;
        teams_out = hits >= 1;
    }
    printf("%g %g %d\n", h[0], h[N - 1], teams_out);
#pragma omp target teams num_teams(3) map(tofrom: teams_out)
    if (omp_get_team_num() == 0) teams_out = omp_get_num_teams() >= 1 && omp_get_num_teams() <= 3;
    printf("%d\n", teams_out);
    int n1 = -1, n2 = -1, n3 = -1;
    /* `teams` stacked on `target`, a block of statements: the `teams` clauses count (a
       `parallel if(0)` has one thread, a `parallel` at most thread_limit) */
#pragma omp target map(from: n1, n2, n3)
#pragma omp teams thread_limit(7)
    {
        n1 = omp_get_num_teams();
#pragma omp parallel if(0)
        if (omp_get_thread_num() == 0) n2 = omp_get_num_threads();
#pragma omp parallel
        if (omp_get_thread_num() == 0) n3 = omp_get_num_threads() <= 7;
    }
    printf("%d %d %d\n", n1 >= 1, n2, n3);
#pragma omp target map(tofrom: a, lsum)
    {
        double first = a[0]; /* reads device data: the host cannot run it */
#pragma omp parallel for reduction(+: lsum)
        for (i = 0; i < N; i++) lsum += (long)(a[i] - first);
    }
    printf("%ld\n", lsum);
    int fp = 1;
#pragma omp target map(tofrom: a)
    {
        fp = 5; /* firstprivate: the next kernel could not see it (the host's copy stays 1) */
#pragma omp parallel for
        for (i = 0; i < N; i++) a[i] = fp;
    }
    printf("%d %g\n", fp, a[N - 1]);
    free(h);
    return 0;
}
