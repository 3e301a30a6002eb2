/* pldkit benchmark: mixtures, random selection, random participation,
 * calibration (issue 3's speed cases).  Median wall time of 5 runs after a
 * warm-up; printed, never asserted. */
#define _DEFAULT_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <pldkit/pldkit.h>
#include "benchutil.h"

#define RUNS 5

typedef int (*case_fn)(double *value);

/* WCS participation PLD: zero loss w.p. 1 - p, the q-subsampled Gaussian
 * w.p. p; d = 1000 records per client do not change the WCS round PLD;
 * composed over T = 1000 rounds. */
static int wcs_case(double *v)
{
  double p = 0.1, q = 0.001, C = 1.0, sigma = 0.8, one = 1.0;
  pld_mech *id = NULL, *sub = NULL, *sel = NULL;
  pld_accountant *acc = NULL;
  pld_result r;
  int st = pld_mech_finite(1, &one, &one, &id);
  if (!st)
    st = pld_mech_poisson_gaussian(q, sigma, C, &sub);
  const pld_mech *mem[2] = {id, sub};
  double w[2] = {1.0 - p, p};
  if (!st)
    st = pld_mech_select(2, mem, w, &sel);
  if (!st)
    st = pld_accountant_alloc(NULL, &acc);
  if (!st)
    st = pld_accountant_add(acc, sel, 1000);
  if (!st)
    st = pld_accountant_epsilon(acc, 1e-6, &r);
  if (!st)
    *v = r.bound.upper;
  pld_accountant_free(acc);
  pld_mech_free(sel);
  pld_mech_free(sub);
  pld_mech_free(id);
  return st;
}

/* random selection among three composed members, full delta curve */
static int rs_curve_case(double *v)
{
  double sig[3] = {2.0, 4.0, 8.0}, w[3] = {0.2, 0.3, 0.5};
  pld_accountant *m[3] = {NULL, NULL, NULL}, *acc = NULL;
  int st = PLD_SUCCESS;
  for (int i = 0; i < 3 && !st; i++) {
    pld_mech *g = NULL;
    st = pld_mech_poisson_gaussian(0.01, sig[i] / 2.0, 1.0, &g);
    if (!st)
      st = pld_accountant_alloc(NULL, &m[i]);
    if (!st)
      st = pld_accountant_add(m[i], g, 500);
    pld_mech_free(g);
  }
  if (!st)
    st = pld_accountant_alloc(NULL, &acc);
  if (!st)
    st = pld_accountant_add_selection(acc, 3, (const pld_accountant *const *)m,
                                      w, 1);
  double eps[101];
  pld_bound out[101];
  for (int i = 0; i < 101; i++)
    eps[i] = 0.05 * i;
  if (!st)
    st = pld_accountant_curve(acc, 101, eps, out, NULL);
  if (!st)
    *v = out[20].upper;
  for (int i = 0; i < 3; i++)
    pld_accountant_free(m[i]);
  pld_accountant_free(acc);
  return st;
}

static int mixture_case(double *v)
{
  double pm[3] = {-2, 0, 2}, pw[3] = {0.25, 0.5, 0.25}, qm[1] = {0}, qw[1] = {1};
  pld_mech *m = NULL;
  pld_accountant *acc = NULL;
  pld_result r;
  int st = pld_mech_mixture_gaussian(1.5, 3, pw, pm, 1, qw, qm, &m);
  if (!st)
    st = pld_accountant_alloc(NULL, &acc);
  if (!st)
    st = pld_accountant_add(acc, m, 100);
  if (!st)
    st = pld_accountant_epsilon(acc, 1e-5, &r);
  if (!st)
    *v = r.bound.upper;
  pld_accountant_free(acc);
  pld_mech_free(m);
  return st;
}

static int wor_case(double *v)
{
  pld_mech *m = NULL;
  pld_accountant *acc = NULL;
  pld_result r;
  int st = pld_mech_wor_gaussian(256, 60000, 1.1, 2.0, &m);
  if (!st)
    st = pld_accountant_alloc(NULL, &acc);
  if (!st)
    st = pld_accountant_add(acc, m, 14063);
  if (!st)
    st = pld_accountant_epsilon(acc, 1e-5, &r);
  if (!st)
    *v = r.bound.upper;
  pld_accountant_free(acc);
  pld_mech_free(m);
  return st;
}

static int build_pg(double s, void *ctx, pld_accountant **out)
{
  (void)ctx;
  pld_mech *m = NULL;
  int st = pld_mech_poisson_gaussian(256.0 / 60000, s, 1.0, &m);
  if (!st)
    st = pld_accountant_alloc(NULL, out);
  if (!st)
    st = pld_accountant_add(*out, m, 14063);
  pld_mech_free(m);
  return st;
}

static int calibrate_case(double *v)
{
  pld_calibration c;
  int st = pld_calibrate(build_pg, NULL, 2.0, 1e-5, 1.0, 1e-3, NULL, NULL, &c);
  if (!st)
    *v = c.param;
  return st;
}

int main(void)
{
  struct {
    const char *name;
    case_fn fn;
  } cases[] = {
    {"WCS participation PLD, p=0.1 q=0.001 sigma=0.8, T=1000, eps(1e-6)", wcs_case},
    {"random selection of 3 composed members, 101-point delta curve", rs_curve_case},
    {"3-vs-1 Gaussian mixture (non-monotone loss), T=100, eps(1e-5)", mixture_case},
    {"WOR Gaussian 256/60000 sigma=1.1 sens=2, T=14063, eps(1e-5)", wor_case},
    {"calibrate sigma: DP-SGD 256/60000, T=14063, (2, 1e-5)", calibrate_case},
  };
  printf("pldkit %s: median wall time of %d runs after a warm-up\n\n",
         pld_version_string(), RUNS);
  int bad = 0;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    double v = NAN, t[RUNS];
    int st = cases[i].fn(&v);
    for (int k = 0; k < RUNS && !st; k++) {
      double t0 = bench_wall();
      st = cases[i].fn(&v);
      t[k] = bench_wall() - t0;
    }
    if (st) {
      printf("%-70s failed: %s\n", cases[i].name, pld_strerror(st));
      bad = 1;
      continue;
    }
    qsort(t, RUNS, sizeof t[0], bench_cmpd);
    printf("%-70s %9.1f ms   value %.6g\n", cases[i].name, 1e3 * t[RUNS / 2], v);
  }
  return bad;
}
