/* pldkit benchmark: the RDP backend.
 *
 * Cases: the RDP curve of DP-SGD (Poisson-subsampled Gaussian) over the
 * default 157 orders, the conversion eps(delta) on that curve, sampling
 * without replacement, random selection, and the PLD bridge.  Each case: one
 * warm-up run, then RUNS timed runs; the median CPU time is reported (the
 * target for DP-SGD q = 0.01, sigma = 1, T = 1e4 is 5 ms).  Output: a table
 * on stdout, and CSV to the path given as the first argument, if any.
 * Speed is measured here and never asserted in tests.
 *
 * Model splitting (issue 4's second target: "eq. (2) for d = 1000, k = 100
 * over alpha = 2...256 under 50 ms"), at the integer orders 2..256, sigma =
 * 2, c = 1 (the splitting paper's Figure 2 setting).  The exact eq. (2)
 * (pld_rdp_split_forward_exact) is NOT computable there: for min(k, d-k) >=
 * 2 it is an exact dynamic program capped at 3e6 steps, and d = 1000, k =
 * 100 exceeds the cap at every order, so the library returns PLD_ERANGE
 * (docs/papers-rdp.md, sec. 1); that row says so instead of a time.  What
 * is timed instead, each row saying which quantity it is:
 *   - eq. (3), the proven forward bound pldkit uses in place of eq. (2)
 *     (pld_rdp_split_forward_eq3 at each order);
 *   - the whole sound curve, max(forward, reverse) with the group bound and
 *     the reverse quadrature (pld_rdp_model_splitting_curve), which is what
 *     `pldkit --backend rdp model-splitting:...` computes;
 *   - for comparison, d = 1000, k = 1, where eq. (2) IS computed exactly
 *     (one shared polynomial power), inside the sound curve.
 */
#define _DEFAULT_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pldkit/pldkit.h>
#include <pldkit/rdp.h>
#include "benchutil.h"

#define RUNS 9

/* The orders 2, 3, ..., 256 of the model-splitting cases. */
#define SPLIT_ORDERS 255
static double split_orders[SPLIT_ORDERS];

struct ctx {
  double q, sigma;
  unsigned long T;
  uint64_t batch, n;
  int64_t d, k;         /* model splitting */
  pld_rdp_curve *curve; /* for conversion / selection cases */
  pld_dist *dist;       /* for the bridge */
  double value, order;  /* last result, for the table */
};

typedef int (*case_fn)(struct ctx *c);

static int run_psgm(struct ctx *c)
{
  pld_rdp_curve *cv = NULL;
  pld_rdp_result r;
  int st = pld_rdp_curve_alloc_default(&cv);
  if (!st)
    st = pld_rdp_add_poisson_gaussian(cv, c->q, c->sigma, 1.0, c->T);
  if (!st)
    st = pld_rdp_epsilon(cv, 1e-5, PLD_RDP_BEST, &r);
  if (!st) {
    c->value = r.value;
    c->order = r.order;
  }
  pld_rdp_curve_free(cv);
  return st;
}

static int run_psgm_curve_only(struct ctx *c)
{
  pld_rdp_curve *cv = NULL;
  int st = pld_rdp_curve_alloc_default(&cv);
  if (!st)
    st = pld_rdp_add_poisson_gaussian(cv, c->q, c->sigma, 1.0, c->T);
  c->value = NAN;
  c->order = NAN;
  pld_rdp_curve_free(cv);
  return st;
}

static int run_convert(struct ctx *c)
{
  pld_rdp_result r;
  int st = PLD_SUCCESS;
  for (int i = 0; i < 1000 && !st; i++) /* per-call time = reported / 1000 */
    st = pld_rdp_epsilon(c->curve, 1e-5, PLD_RDP_BEST, &r);
  if (!st) {
    c->value = r.value;
    c->order = r.order;
  }
  return st;
}

static int run_wor(struct ctx *c)
{
  pld_rdp_curve *cv = NULL;
  pld_rdp_result r;
  int st = pld_rdp_curve_alloc_default(&cv);
  if (!st)
    st = pld_rdp_add_wor_gaussian(cv, c->batch, c->n, c->sigma, 2.0, c->T);
  if (!st)
    st = pld_rdp_epsilon(cv, 1e-5, PLD_RDP_BEST, &r);
  if (!st) {
    c->value = r.value;
    c->order = r.order;
  }
  pld_rdp_curve_free(cv);
  return st;
}

static int run_maxw(struct ctx *c)
{
  /* two members: the DP-SGD curve and the same at twice the steps */
  pld_rdp_curve *b = NULL;
  pld_rdp_result ra;
  double w = NAN;
  int st = pld_rdp_curve_copy(c->curve, &b);
  if (!st)
    st = pld_rdp_curve_compose(b, c->curve, 1);
  if (!st)
    st = pld_rdp_epsilon(c->curve, 1e-5, PLD_RDP_BEST, &ra);
  if (!st)
    st = pld_rdp_rs_max_weight(b, c->curve, 1.2 * ra.value, 1e-5, PLD_RDP_BEST, &w);
  c->value = w;
  c->order = NAN;
  pld_rdp_curve_free(b);
  return st;
}

static int run_bridge(struct ctx *c)
{
  pld_rdp_curve *cv = NULL;
  pld_rdp_result r;
  int st = pld_rdp_curve_alloc_default(&cv);
  if (!st)
    st = pld_rdp_of_pld(c->dist, cv);
  if (!st)
    st = pld_rdp_curve_compose(cv, cv, 1); /* two steps, to exercise compose */
  if (!st)
    st = pld_rdp_epsilon(cv, 1e-5, PLD_RDP_BEST, &r);
  if (!st) {
    c->value = r.value;
    c->order = r.order;
  }
  pld_rdp_curve_free(cv);
  return st;
}

/* Eq. (2) (the exact forward divergence) at every order; stops at the
 * first failure (PLD_ERANGE where its dynamic program is over the cap). */
static int run_split_eq2(struct ctx *c)
{
  double e = NAN;
  int st = PLD_SUCCESS;
  for (size_t i = 0; i < SPLIT_ORDERS && !st; i++)
    st = pld_rdp_split_forward_exact(split_orders[i], c->d, c->k, c->sigma,
                                     1.0, &e);
  c->value = e;
  c->order = split_orders[SPLIT_ORDERS - 1];
  return st;
}

/* Eq. (3) (Cor. 3.14, a proven forward bound) at every order. */
static int run_split_eq3(struct ctx *c)
{
  double e = NAN;
  int st = PLD_SUCCESS;
  for (size_t i = 0; i < SPLIT_ORDERS && !st; i++)
    st = pld_rdp_split_forward_eq3(split_orders[i], c->d, c->k, c->sigma,
                                   1.0, &e);
  c->value = e;
  c->order = split_orders[SPLIT_ORDERS - 1];
  return st;
}

/* The sound curve, max(forward, reverse), as the CLI computes it. */
static int run_split_sound(struct ctx *c)
{
  double e[SPLIT_ORDERS];
  int st = pld_rdp_model_splitting_curve(SPLIT_ORDERS, split_orders, c->d,
                                         c->k, c->sigma, 1.0, e);
  c->value = st ? NAN : e[SPLIT_ORDERS - 1];
  c->order = split_orders[SPLIT_ORDERS - 1];
  return st;
}

struct bcase {
  const char *name;
  case_fn f;
  double q, sigma;
  unsigned long T;
  uint64_t batch, n;
  int needs_curve, needs_dist;
  int64_t d, k;
  int erange_expected; /* PLD_ERANGE is the documented answer, not a bug */
};

static const struct bcase cases[] = {
  {"DP-SGD q=0.01 sigma=1 T=1e4: curve + eps(1e-5)", run_psgm, 0.01, 1.0, 10000, 0, 0, 0, 0, 0, 0, 0},
  {"DP-SGD q=0.01 sigma=1 T=1e4: curve only", run_psgm_curve_only, 0.01, 1.0, 10000, 0, 0, 0, 0, 0, 0, 0},
  {"eps(1e-5) conversion x1000 (157 orders)", run_convert, 0.01, 1.0, 10000, 0, 0, 1, 0, 0, 0, 0},
  {"DP-SGD q=256/60000 sigma=1.1 T=14063", run_psgm, 256.0 / 60000, 1.1, 14063, 0, 0, 0, 0, 0, 0, 0},
  {"DP-SGD q=0.001 sigma=1 T=1e5", run_psgm, 0.001, 1.0, 100000, 0, 0, 0, 0, 0, 0, 0},
  {"WOR batch=256 n=60000 sigma=2.2 T=14063", run_wor, 0, 2.2, 14063, 256, 60000, 0, 0, 0, 0, 0},
  {"RS max weight (2 members, bisection)", run_maxw, 0.01, 1.0, 10000, 0, 0, 1, 0, 0, 0, 0},
  {"bridge: RDP of RR(eps0=1,k=4) PLD, Delta=1e-3", run_bridge, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0},
  {"split d=1000 k=100 a=2..256: eq.(2) exact fwd", run_split_eq2, 0, 2.0, 0, 0, 0, 0, 0, 1000, 100, 1},
  {"split d=1000 k=100 a=2..256: eq.(3) fwd bound", run_split_eq3, 0, 2.0, 0, 0, 0, 0, 0, 1000, 100, 0},
  {"split d=1000 k=100 a=2..256: sound curve", run_split_sound, 0, 2.0, 0, 0, 0, 0, 0, 1000, 100, 0},
  {"split d=1000 k=1 a=2..256: sound, eq.(2) exact", run_split_sound, 0, 2.0, 0, 0, 0, 0, 0, 1000, 1, 0},
};

int main(int argc, char **argv)
{
  FILE *csv = argc > 1 ? fopen(argv[1], "w") : NULL;
  for (size_t i = 0; i < SPLIT_ORDERS; i++)
    split_orders[i] = (double)(i + 2);
  if (csv)
    fprintf(csv, "case,cpu_seconds_median,value,order\n");
  printf("%-50s %12s %14s %8s\n", "case", "CPU (ms)", "value", "order");
  for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
    const struct bcase *b = &cases[k];
    struct ctx c;
    memset(&c, 0, sizeof c);
    c.q = b->q;
    c.sigma = b->sigma;
    c.T = b->T;
    c.batch = b->batch;
    c.n = b->n;
    c.d = b->d;
    c.k = b->k;
    int st = PLD_SUCCESS;
    if (b->needs_curve) {
      st = pld_rdp_curve_alloc_default(&c.curve);
      if (!st)
        st = pld_rdp_add_poisson_gaussian(c.curve, b->q, b->sigma, 1.0, b->T);
    }
    pld_mech *m = NULL;
    if (!st && b->needs_dist) {
      st = pld_mech_randomized_response(1.0, 4, &m);
      if (!st)
        st = pld_dist_from_curve(pld_mech_curve(m), 1e-3, NULL, &c.dist);
    }
    double t[RUNS];
    if (!st)
      st = b->f(&c); /* warm-up */
    for (int i = 0; i < RUNS && !st; i++) {
      double t0 = bench_cpu();
      st = b->f(&c);
      t[i] = bench_cpu() - t0;
    }
    if (st == PLD_ERANGE && b->erange_expected) {
      printf("%-50s not computed: PLD_ERANGE (the exact dynamic program "
             "exceeds its\n%-50s 3e6-step cap at every order; pldkit uses "
             "eq.(3) and the group\n%-50s bound instead, timed below)\n",
             b->name, "", "");
      if (csv)
        fprintf(csv, "\"%s\",nan,nan,nan\n", b->name);
    } else if (st) {
      printf("%-50s failed: %s\n", b->name, pld_strerror(st));
    } else {
      qsort(t, RUNS, sizeof *t, bench_cmpd);
      double med = t[RUNS / 2];
      printf("%-50s %12.4f %14.6g %8g\n", b->name, 1e3 * med, c.value, c.order);
      if (csv)
        fprintf(csv, "\"%s\",%.6g,%.17g,%g\n", b->name, med, c.value, c.order);
    }
    pld_rdp_curve_free(c.curve);
    pld_dist_free(c.dist);
    pld_mech_free(m);
  }
  printf("\nThe split rows give eps(alpha = 256) in nats (sigma = 2, c = 1).  "
         "Issue 4's target\n(eq. (2), d = 1000, k = 100, alpha = 2..256, "
         "under 50 ms) applies to a quantity\nthe library does not compute "
         "at that size (PLD_ERANGE); eq. (3) is what replaces\nit, the "
         "sound curve is what the CLI's model-splitting event costs.\n");
  if (csv)
    fclose(csv);
  return 0;
}
