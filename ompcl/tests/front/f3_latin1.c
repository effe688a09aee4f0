/* issue 21: Latin-1 bytes (not UTF-8) in comments and strings pass through unchanged.
   Auteur : François, décembre */
#include <stdio.h>
#define N 100
int a[N];
int main(void)
{
  int i, s = 0;
  const char *msg = "résultat ± à vérifier";
  /* la boucle parallèle */
#pragma omp parallel for reduction(+:s)
  for (i = 0; i < N; i++) { /* élément */
    a[i] = i * 3;
    s += a[i];
  }
  printf("%s : %d %d \xe9 é\n", msg, s, a[N - 1]);
  return 0;
}
