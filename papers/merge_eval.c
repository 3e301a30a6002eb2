/* pldkit: a merge's eps(delta) at many weight vectors of the same runs
 * (merge_eval.h).  The weight-free work is done once per evaluator. */
#include <math.h>
#include <string.h>

#include <pldkit/merge.h>
#include <pldkit/select.h>

#include "alloc.h"
#include "merge_eval.h"

struct pld_merge_eval {
  size_t n;
  pld_merge_run runs[PLD_MERGE_MAX_RUNS];
  double delta;
  pld_params params;
  pld_accountant *member[PLD_MERGE_MAX_RUNS]; /* RS PLD: run i composed */
  pld_rdp_curve *mcurve[PLD_MERGE_MAX_RUNS];  /* RS RDP: run i composed */
  /* RS PLD cache: the members composed on one grid step (rs_grid; 0 = not
   * built yet), dist[i] shared by identical members (same[i] = the first
   * index with the same q, sigma, steps; clip and lr do not enter RS). */
  double rs_grid;
  size_t same[PLD_MERGE_MAX_RUNS];
  pld_dist *dist[PLD_MERGE_MAX_RUNS];
  int rs_cache_off; /* the cache could not be built: always the accountant */
};

void pld_merge_eval_free(pld_merge_eval *ev)
{
  if (!ev)
    return;
  for (size_t i = 0; i < ev->n; i++) {
    pld_accountant_free(ev->member[i]);
    pld_rdp_curve_free(ev->mcurve[i]);
    pld_dist_free(ev->dist[i]);
  }
  pld_free(ev);
}

int pld_merge_eval_new(const pld_merge_run *runs, size_t n, double delta,
                       const pld_params *params, pld_merge_eval **out)
{
  if (!runs || !out || n < 1 || n > PLD_MERGE_MAX_RUNS || !params)
    return PLD_EINVAL;
  pld_merge_eval *ev = pld_calloc(1, sizeof *ev);
  if (!ev)
    return PLD_ENOMEM;
  ev->n = n;
  memcpy(ev->runs, runs, n * sizeof *runs);
  ev->delta = delta;
  ev->params = *params;
  int st = PLD_SUCCESS;
  for (size_t i = 0; i < n; i++) {
    size_t j = 0;
    while (j < i && !(runs[j].q == runs[i].q &&
                      runs[j].sigma == runs[i].sigma &&
                      runs[j].steps == runs[i].steps))
      j++;
    ev->same[i] = j;
  }
  for (size_t i = 0; i < n && st == PLD_SUCCESS; i++) {
    st = pld_merge_joint_accountant(1, &runs[i], params, &ev->member[i]);
    if (st == PLD_SUCCESS)
      st = pld_rdp_curve_alloc_default(&ev->mcurve[i]);
    if (st == PLD_SUCCESS)
      st = pld_rdp_add_poisson_gaussian(ev->mcurve[i], runs[i].q,
                                        runs[i].sigma, 1.0, runs[i].steps);
  }
  if (st != PLD_SUCCESS) {
    pld_merge_eval_free(ev);
    return st;
  }
  *out = ev;
  return PLD_SUCCESS;
}

static int rdp_eps(const pld_rdp_curve *c, double delta, double *eps)
{
  pld_rdp_result r;
  int st = pld_rdp_epsilon(c, delta, PLD_RDP_BEST, &r);
  if (st == PLD_SUCCESS)
    *eps = r.value;
  return st;
}

/* RS PLD by the accountant: a selection among the members with positive
 * weight (grid chosen and refined by the accountant), identical members
 * merged and their weights added (the mixture of equal laws is that law;
 * each member would otherwise be built and composed anew). */
static int rs_pld_accountant(pld_merge_eval *ev, const double *w,
                             pld_result *r)
{
  const pld_accountant *m[PLD_MERGE_MAX_RUNS];
  double mw[PLD_MERGE_MAX_RUNS];
  size_t k = 0;
  for (size_t i = 0; i < ev->n; i++) {
    if (!(w[i] > 0.0))
      continue;
    const pld_accountant *a = ev->member[ev->same[i]];
    size_t j = 0;
    while (j < k && m[j] != a)
      j++;
    if (j == k) {
      m[k] = a;
      mw[k++] = 0.0;
    }
    mw[j] += w[i];
  }
  pld_accountant *acc = NULL;
  int st = pld_accountant_alloc(&ev->params, &acc);
  if (st == PLD_SUCCESS)
    st = pld_accountant_add_selection(acc, k, m, mw, 1);
  if (st == PLD_SUCCESS)
    st = pld_accountant_epsilon(acc, ev->delta, r);
  pld_accountant_free(acc);
  return st;
}

/* Build the RS cache on grid step g: each distinct member composed once
 * (pld_accountant_compose, what the accountant's selection does per query
 * on its grid). */
static int rs_cache_build(pld_merge_eval *ev, double g)
{
  for (size_t i = 0; i < ev->n; i++) {
    if (ev->same[i] != i)
      continue;
    int st = pld_accountant_compose(ev->member[i], g, &ev->dist[i]);
    if (st != PLD_SUCCESS) {
      for (size_t j = 0; j <= i; j++) {
        pld_dist_free(ev->dist[j]);
        ev->dist[j] = NULL;
      }
      return st;
    }
  }
  ev->rs_grid = g;
  return PLD_SUCCESS;
}

/* RS PLD.  The selection's PLD is the pi-mixture of the members' composed
 * PLDs on one grid (Thm 5.2; pld_dist_mix books the mixture's error), and
 * the members do not depend on the weights: so they are composed once, on
 * the grid the accountant chose for the first point, and each point only
 * mixes them (identical members merged, their weights added: the mixture
 * of equal laws is that law) and reads eps(delta) off the mixture -- a
 * certified bracket whatever the grid.  Where that bracket misses the
 * accuracy, the point goes to the accountant, which refines its own grid;
 * so every answer is certified and as tight as asked. */
static int rs_pld(pld_merge_eval *ev, const double *w, pld_result *r)
{
  int st;
  if (ev->rs_grid == 0.0 && !ev->rs_cache_off) {
    /* the grid: the accountant's for equal weights on every run (a point
     * whose members span the widest losses; a grid chosen for one member
     * alone may be far finer than the mixture needs) */
    double u[PLD_MERGE_MAX_RUNS];
    pld_result r0;
    for (size_t i = 0; i < ev->n; i++)
      u[i] = 1.0 / (double)ev->n;
    st = rs_pld_accountant(ev, u, &r0);
    if (st != PLD_SUCCESS || !(r0.discretization > 0.0) ||
        rs_cache_build(ev, r0.discretization) != PLD_SUCCESS)
      ev->rs_cache_off = 1; /* no cache: every point by the accountant */
  }
  if (ev->rs_cache_off)
    return rs_pld_accountant(ev, w, r);
  const pld_dist *m[PLD_MERGE_MAX_RUNS];
  double mw[PLD_MERGE_MAX_RUNS];
  size_t k = 0;
  for (size_t i = 0; i < ev->n; i++) {
    if (!(w[i] > 0.0))
      continue;
    size_t j = 0;
    while (j < k && m[j] != ev->dist[ev->same[i]])
      j++;
    if (j == k) {
      m[k] = ev->dist[ev->same[i]];
      mw[k++] = 0.0;
    }
    mw[j] += w[i];
  }
  pld_dist *mix = NULL;
  pld_bound b;
  st = pld_dist_mix(k, m, mw, &mix);
  if (st == PLD_SUCCESS)
    st = pld_dist_epsilon(mix, ev->delta, &b);
  pld_dist_free(mix);
  if (st != PLD_SUCCESS)
    return rs_pld_accountant(ev, w, r);
  int met = b.upper - b.lower <=
            fmax(ev->params.accuracy * b.upper, ev->params.abs_accuracy);
  if (!met)
    return rs_pld_accountant(ev, w, r);
  memset(r, 0, sizeof *r);
  r->bound = b;
  r->discretization = ev->rs_grid;
  r->met_accuracy = 1;
  r->bound_kind = PLD_BOUND_GRID;
  r->lower_kind = PLD_BOUND_GRID;
  return PLD_SUCCESS;
}

/* LC RDP: eps(delta) = min over the default orders alpha of r(alpha) +
 * c(alpha) (pld_rdp_epsilon, PLD_RDP_BEST), r the composed LC RDP (one
 * mixture quadrature per order and direction: the cost) and c the
 * conversion term, the improved one log1p(-1/alpha) - (log delta + log
 * alpha)/(alpha - 1) plus a nonnegative slack (rdp_curve.c: the improved
 * conversion wins at equal order).  The Renyi divergence is nondecreasing
 * in its order (van Erven and Harremoes 2014, Thm 3), in both directions,
 * so for alpha1 < alpha: r(alpha) >= r(alpha1), and r(alpha1) (1 - 1e-3)
 * + (improved term at alpha) is a lower bound of order alpha's answer (the
 * 1e-3 margin covers the quadrature's overestimate, booked margins of
 * ~1e-13 checked to 1e-6 in test_merge, many times over).  The orders are
 * visited ascending, first every LC_RDP_STRIDE-th one (and the last), then
 * the rest; an order whose lower bound from the orders computed below it
 * is already above the best answer so far cannot win and is never
 * computed.  Each order's value is computed alone (rdp_mixture.c's
 * pair_values), so the answer is the full grid's minimum bit for bit.
 * (The first pass used to compute all 14 of its orders: the large ones,
 * never the minimum on the merging cases and the costliest quadratures,
 * are now pruned by the one below them.)  Whatever is skipped, the answer
 * is some order's certified bound: skipping can only cost tightness, never
 * soundness. */
#define LC_RDP_STRIDE 12

static int lc_rdp_on(pld_merge_eval *ev, const double *w, size_t k,
                     const double *ord, double *eps, double *vals)
{
  pld_rdp_curve *c = NULL;
  int st = pld_rdp_curve_alloc(k, ord, &c);
  if (st == PLD_SUCCESS)
    st = pld_merge_lc_rdp(ev->n, ev->runs, w, c);
  if (st == PLD_SUCCESS)
    st = rdp_eps(c, ev->delta, eps);
  if (st == PLD_SUCCESS && vals)
    memcpy(vals, pld_rdp_curve_values(c), k * sizeof *vals);
  pld_rdp_curve_free(c);
  return st;
}

static int lc_rdp(pld_merge_eval *ev, const double *w, double *eps)
{
  pld_rdp_curve *d = NULL;
  int st = pld_rdp_curve_alloc_default(&d);
  if (st != PLD_SUCCESS)
    return st;
  const double *all = pld_rdp_curve_orders(d);
  size_t n = pld_rdp_curve_size(d);
  if (n > PLD_RDP_DEFAULT_ORDERS) { /* cannot happen: the whole grid */
    st = lc_rdp_on(ev, w, n, all, eps, NULL);
    pld_rdp_curve_free(d);
    return st;
  }
  double v[PLD_RDP_DEFAULT_ORDERS];
  unsigned char done[PLD_RDP_DEFAULT_ORDERS];
  memset(done, 0, sizeof done);
  const double L = log(ev->delta);
  double best = INFINITY;
  for (int pass = 0; pass < 2 && st == PLD_SUCCESS; pass++)
    for (size_t i = 0; i < n && st == PLD_SUCCESS; i++) {
      int stride = i % LC_RDP_STRIDE == 0 || i + 1 == n;
      if (done[i] || (pass == 0 && !stride))
        continue;
      /* the lower bound of order i from the computed orders below it */
      double rlo = 0.0;
      for (size_t j = 0; j < i; j++)
        if (done[j])
          rlo = fmax(rlo, isinf(v[j]) ? INFINITY : v[j] * (1.0 - 1e-3));
      double a = all[i];
      double lb = rlo + log1p(-1.0 / a) - (L + log(a)) / (a - 1.0);
      if (lb > best)
        continue;
      double e = INFINITY;
      st = lc_rdp_on(ev, w, 1, &all[i], &e, &v[i]);
      done[i] = 1;
      if (st == PLD_SUCCESS && e < best)
        best = e;
    }
  pld_rdp_curve_free(d);
  if (st == PLD_SUCCESS)
    *eps = best;
  return st;
}

/* LC PLD: the surrogate accountant, automatic grid (a grid step reused
 * from the previous point was tried and is slower: a step fine enough for
 * a small epsilon makes a huge grid for a large one). */
static int lc_pld(pld_merge_eval *ev, const double *w, pld_result *r)
{
  pld_accountant *acc = NULL;
  int st = pld_merge_lc_accountant(ev->n, ev->runs, w, &ev->params, &acc);
  if (st == PLD_SUCCESS)
    st = pld_accountant_epsilon(acc, ev->delta, r);
  pld_accountant_free(acc);
  return st;
}

int pld_merge_eval_point(pld_merge_eval *ev, int m, const double *w,
                         double *upper, double *lower, int *met)
{
  if (!ev || !w || !upper || !lower || !met)
    return PLD_EINVAL;
  int st;
  pld_result r;
  pld_rdp_curve *c = NULL;
  switch (m) {
  case PLD_MERGE_RS_PLD:
    st = rs_pld(ev, w, &r);
    break;
  case PLD_MERGE_LC_PLD:
    st = lc_pld(ev, w, &r);
    break;
  case PLD_MERGE_RS_RDP:
  case PLD_MERGE_LC_RDP: {
    double e = 0.0;
    if (m == PLD_MERGE_LC_RDP) {
      st = lc_rdp(ev, w, &e);
    } else {
      st = pld_rdp_curve_alloc_default(&c);
      if (st == PLD_SUCCESS)
        st = pld_rdp_random_selection(
            ev->n, (const pld_rdp_curve *const *)ev->mcurve, w, c);
      if (st == PLD_SUCCESS)
        st = rdp_eps(c, ev->delta, &e);
      pld_rdp_curve_free(c);
    }
    if (st == PLD_SUCCESS) {
      *upper = e;
      *lower = NAN;
      *met = 1;
    }
    return st;
  }
  default:
    return PLD_EINVAL;
  }
  if (st != PLD_SUCCESS)
    return st;
  *upper = r.bound.upper;
  *lower = r.bound.lower;
  *met = r.met_accuracy;
  return PLD_SUCCESS;
}
