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
};

void pld_merge_eval_free(pld_merge_eval *ev)
{
  if (!ev)
    return;
  for (size_t i = 0; i < ev->n; i++) {
    pld_accountant_free(ev->member[i]);
    pld_rdp_curve_free(ev->mcurve[i]);
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
  for (size_t i = 0; i < n && st == PLD_SUCCESS; i++) {
    st = pld_merge_joint_accountant(&runs[i], 1, params, &ev->member[i]);
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

/* RS PLD: a selection among the members with positive weight. */
static int rs_pld(pld_merge_eval *ev, const double *w, pld_result *r)
{
  const pld_accountant *m[PLD_MERGE_MAX_RUNS];
  double mw[PLD_MERGE_MAX_RUNS];
  size_t k = 0;
  for (size_t i = 0; i < ev->n; i++)
    if (w[i] > 0.0) {
      m[k] = ev->member[i];
      mw[k++] = w[i];
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
  case PLD_MERGE_LC_PLD: {
    pld_accountant *acc = NULL;
    st = pld_merge_lc_accountant(ev->runs, ev->n, w, &ev->params, &acc);
    if (st == PLD_SUCCESS)
      st = pld_accountant_epsilon(acc, ev->delta, &r);
    pld_accountant_free(acc);
    break;
  }
  case PLD_MERGE_RS_RDP:
  case PLD_MERGE_LC_RDP: {
    double e = 0.0;
    st = pld_rdp_curve_alloc_default(&c);
    if (st == PLD_SUCCESS)
      st = m == PLD_MERGE_RS_RDP
               ? pld_rdp_random_selection(
                     (const pld_rdp_curve *const *)ev->mcurve, w, ev->n, c)
               : pld_merge_lc_rdp(ev->runs, ev->n, w, c);
    if (st == PLD_SUCCESS)
      st = rdp_eps(c, ev->delta, &e);
    pld_rdp_curve_free(c);
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

int pld_merge_eval_max_weight(pld_merge_eval *ev, int m, double eps,
                              double *w0)
{
  if (!ev || ev->n != 2)
    return PLD_EINVAL;
  return pld_merge_max_weight(ev->runs, m, eps, ev->delta, &ev->params, w0);
}
