/* The README's example: epsilon of a DP-SGD run, then delta at a given
 * epsilon for the same run, through the public API.
 *   cc dpsgd.c $(pkg-config --cflags --libs pldkit) -o dpsgd */
#include <stdio.h>

#include <pldkit/pldkit.h>

int main(void)
{
  pld_mech *step = NULL;
  pld_accountant *acc = NULL;
  pld_result r;
  /* one DP-SGD step: Poisson rate 256/60000, noise multiplier 1.1 */
  int st = pld_mech_poisson_gaussian(256.0 / 60000.0, 1.1, 1.0, &step);
  if (!st)
    st = pld_accountant_alloc(NULL, &acc); /* NULL: default parameters */
  if (!st)
    st = pld_accountant_add(acc, step, 14063); /* 60 epochs */
  if (!st)
    st = pld_accountant_epsilon(acc, 1e-5, &r);
  if (st) {
    fprintf(stderr, "pldkit: %s\n", pld_strerror(st));
    pld_accountant_free(acc);
    pld_mech_free(step);
    return 1;
  }
  printf("epsilon <= %.4f (certified); optimistic estimate %.4f; grid %.3g\n",
         r.bound.upper, r.bound.lower, r.discretization);
  if (!pld_accountant_delta(acc, 2.0, &r))
    printf("delta(2.0) <= %.3g (certified), >= %.3g\n", r.bound.upper,
           r.bound.lower);
  pld_accountant_free(acc);
  pld_mech_free(step);
  return 0;
}
