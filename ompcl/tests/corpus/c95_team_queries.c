/* ompcl-test: offload=all warn="device constructs" */
#include <stdio.h>
#include <omp.h>
/* OpenMP's team and thread queries in target regions: a team is a work-group, its threads the
   work-items; num_teams, thread_limit and num_threads bound the NDRange, and every value a query
   returns is consistent (the same count in every iteration, numbers below the counts) */
#define N 5000
int team[N], teams[N], thr[N], thrs[N], lim[N];
double v[N];

static int check(const char *what, int max_teams, int max_threads) {
    int ok = 1, i;
    for (i = 0; i < N; i++) {
        if (teams[i] != teams[0] || thrs[i] != thrs[0] || lim[i] != lim[0]) ok = 0;
        if (teams[i] < 1 || (max_teams && teams[i] > max_teams)) ok = 0;
        if (thrs[i] < 1 || (max_threads && thrs[i] > max_threads) || lim[i] < thrs[i]) ok = 0;
        if (team[i] < 0 || team[i] >= teams[i] || thr[i] < 0 || thr[i] >= thrs[i]) ok = 0;
    }
    printf("%s: %s\n", what, ok ? "consistent" : "WRONG");
    return ok;
}

int main(void) {
    int i, n4 = 4, seq_teams = -1, seq_thread = -1;
    double s = 0;
#pragma omp target teams distribute parallel for num_teams(n4) thread_limit(64) map(from: team, teams, thr, thrs, lim)
    for (i = 0; i < N; i++) {
        team[i] = omp_get_team_num(); teams[i] = omp_get_num_teams();
        thr[i] = omp_get_thread_num(); thrs[i] = omp_get_num_threads(); lim[i] = omp_get_thread_limit();
    }
    check("teams distribute parallel for num_teams(4) thread_limit(64)", 4, 64);
#pragma omp target teams distribute map(from: team, teams, thr, thrs, lim)
    for (i = 0; i < N; i++) {
        team[i] = omp_get_team_num(); teams[i] = omp_get_num_teams();
        thr[i] = omp_get_thread_num(); thrs[i] = omp_get_num_threads(); lim[i] = omp_get_thread_limit();
    }
    check("teams distribute", 0, 1);
#pragma omp target parallel for num_threads(8) map(from: team, teams, thr, thrs, lim)
    for (i = 0; i < N; i++) {
        team[i] = omp_get_team_num(); teams[i] = omp_get_num_teams();
        thr[i] = omp_get_thread_num(); thrs[i] = omp_get_num_threads(); lim[i] = omp_get_thread_limit();
    }
    check("parallel for num_threads(8)", 1, 8);
    /* a reduction over a league of 3 teams */
#pragma omp target teams distribute parallel for num_teams(3) reduction(+: s) map(from: v)
    for (i = 0; i < N; i++) {
        v[i] = omp_get_team_num() < omp_get_num_teams() ? 1.0 : 0.0;
        s += i * 0.5;
    }
    for (i = 0; i < N; i++) s += v[i];
    printf("reduction: %.1f\n", s);
#pragma omp target map(from: seq_teams, seq_thread)
    {
        seq_teams = omp_get_num_teams();
        seq_thread = omp_get_thread_num();
    }
    printf("sequential target: %d team(s), thread %d\n", seq_teams, seq_thread);
    return 0;
}
