/* ompcl-test: offload=none warn="'hist' is read in the loop" warn="the value of an update of 'hist' is used" warn="the loop calls a function of the program" warn="'*' is not a sum" warn="an update is made by a macro" warn="'small' has elements of type 'char'" warn="a subscript of 'hist' reads it or has side effects" */
#include <stdio.h>
/* Array-section reductions that do not become atomic updates (atomic_reduction.rs): the array read
 * in the loop, an update whose value is used, a call of the program's function, a product, an update
 * made by a macro, char elements, a subscript with a side effect. They stay
 * on the CPU with the reason in the warning. */
#define N 4000
#define B 16

int data[N];
int hist[B];
int seen[N];
double prod[B];

#define BUMP(x) x++
char small[B];
int pos[N];

static int bin(int i) { return data[i] % B; }

int main(void) {
  for (int i = 0; i < N; i++) data[i] = (i * 7 + 1) % B;
  for (int b = 0; b < B; b++) prod[b] = 1.0;
  long s = 0;
#pragma omp parallel for reduction(+: hist[0:B], s)
  for (int i = 0; i < N; i++) {
    hist[data[i]] += 1;
    s += hist[0] >= 0;
  }
  printf("read %d %ld\n", hist[3], s);

#pragma omp parallel for reduction(+: hist[0:B])
  for (int i = 0; i < N; i++) seen[i] = hist[data[i]]++ >= 0;
  printf("used %d %d\n", hist[5], seen[7]);

#pragma omp parallel for reduction(+: hist[0:B])
  for (int i = 0; i < N; i++) hist[bin(i)]++;
  printf("call %d\n", hist[9]);

#pragma omp parallel for reduction(*: prod[0:B])
  for (int i = 0; i < 40; i++) prod[data[i]] *= 1.5;
  printf("prod %.4f\n", prod[data[3]]);

#pragma omp parallel for reduction(+: hist[0:B])
  for (int i = 0; i < N; i++) BUMP(hist[data[i]]);
  printf("macro %d\n", hist[2]);

#pragma omp parallel for reduction(+: small[0:B])
  for (int i = 0; i < 100; i++) small[data[i]] += 1;
  printf("char %d\n", small[data[5]]);

#pragma omp parallel for reduction(+: hist[0:B])
  for (int i = 0; i < N; i++) hist[pos[i]++ % B] += 1;
  printf("effect %d %d\n", hist[1], pos[N - 1]);
  return 0;
}
