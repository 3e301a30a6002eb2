/* pldkit benchmark: limits that must answer (or refuse) quickly.
 *
 * The tests check what these cases answer; how long they take is measured
 * here (speed is never asserted in a test):
 *   thm41      Thm 4.1 of the random-participation paper at d = 1e5
 *              (pld_participation_epsilon, analysis thm41, delta 1e-5)
 *   sparse     a 3 GiB sparse file and a header declaring 2^28 points,
 *              refused from the header (pld_dist_load / _capped)
 *   rr 1e12    randomized response over 10^12 values, 10^6 runs,
 *              epsilon(1e-5) = 0 on the loss lattice
 * usage: bench_limits */
#define _DEFAULT_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pldkit/pldkit.h>
#include "benchutil.h"

static void row(const char *name, double c0, double w0, int st, const char *what)
{
  printf("%-10s %8.3f %8.3f  %s (status %d)\n", name, bench_cpu() - c0,
         bench_wall() - w0, what, st);
}

int main(void)
{
  printf("%-10s %8s %8s  %s\n", "case", "cpu_s", "wall_s", "answer");
  double c0 = bench_cpu(), w0 = bench_wall();
  pld_participation_params big = {0.5, 0.01, 100000, 1.0, 1.0};
  pld_bound e = {0, 0};
  int st = pld_participation_epsilon(&big, PLD_PARTICIPATION_THM41, 1e-5, &e);
  char buf[128];
  snprintf(buf, sizeof buf, "eps in [%.10g, %.10g]", e.lower, e.upper);
  row("thm41", c0, w0, st, buf);

  char path[] = "/tmp/pldkit-bench-sparse-XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0 || ftruncate(fd, (off_t)3 << 30) != 0) {
    perror("sparse file");
    return 1;
  }
  close(fd);
  pld_dist *d = NULL;
  c0 = bench_cpu();
  w0 = bench_wall();
  st = pld_dist_load(path, &d);
  row("sparse", c0, w0, st, "3 GiB of zeros refused");
  unlink(path);
  pld_dist_free(d);

  pld_accountant *acc = NULL;
  pld_mech *m = NULL;
  pld_result r;
  c0 = bench_cpu();
  w0 = bench_wall();
  st = pld_accountant_alloc(NULL, &acc);
  if (!st)
    st = pld_mech_randomized_response(1.0, 1000000000000LL, &m);
  if (!st)
    st = pld_accountant_add(acc, m, 1000000);
  if (!st)
    st = pld_accountant_epsilon(acc, 1e-5, &r);
  snprintf(buf, sizeof buf, "eps in [%g, %g]", st ? -1.0 : r.bound.lower,
           st ? -1.0 : r.bound.upper);
  row("rr 1e12", c0, w0, st, buf);
  pld_mech_free(m);
  pld_accountant_free(acc);
  return 0;
}
