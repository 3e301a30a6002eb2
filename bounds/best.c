/* pldkit: the tightest certified answer from both backends (best.h).
 *
 * Why this file lives in src/ and not in pld/ or rdp/: the PLD backend and
 * the RDP backend are sibling layers that must not include each other's
 * headers, and this is the one place that needs both (the accountant's
 * answer and an RDP curve's conversion).  It only calls the two public
 * APIs, so it sits above both; the planned re-layering (a "combined" layer
 * over pld/ and rdp/) will move it there unchanged.
 *
 * Soundness: both upper ends are certified, so their minimum is; RDP gives
 * no lower end, the accountant's stays.
 */
#include <math.h>

#include <pldkit/accountant.h>
#include <pldkit/best.h>
#include <pldkit/rdp.h>

#include "alloc.h"
#include "detail.h"
#include "curve_given.h"

static void lower_upper(pld_result *r, double v, const pld_params *p,
                        int is_eps)
{
  if (!(v < r->bound.upper))
    return;
  r->bound.upper = v;
  r->bound_kind = PLD_BOUND_RDP;
  if (r->bound.lower > v) /* cannot happen: both are certified */
    r->bound.lower = v;
  r->met_accuracy = r->met_accuracy || pld_bound_meets(p, r->bound, !is_eps);
  if (r->met_accuracy)
    r->width_limit = PLD_WIDTH_GRID;
}

int pld_best_epsilon(const pld_accountant *acc, const pld_rdp_curve *rdp,
                     double delta, pld_result *out)
{
  pld_detail_clear();
  pld_result r;
  pld_params p;
  if (!out)
    return pld_fail(PLD_EINVAL, "out must not be NULL");
  int st = pld_accountant_epsilon(acc, delta, &r);
  if (st)
    return st;
  if (rdp) {
    pld_rdp_result x;
    if ((st = pld_accountant_get_params(acc, &p)) ||
        (st = pld_rdp_epsilon(rdp, delta, PLD_RDP_BEST, &x)))
      return st;
    lower_upper(&r, x.value, &p, 1);
  }
  *out = r;
  return PLD_SUCCESS;
}

int pld_best_lower_upper(pld_result *r, const pld_rdp_curve *rdp,
                         int is_delta, double x, const pld_params *p)
{
  pld_detail_clear();
  if (!r || !rdp || !p)
    return pld_fail(PLD_EINVAL, "%s is NULL", !r ? "r" : !rdp ? "rdp" : "p");
  pld_rdp_result v;
  int st = is_delta ? pld_rdp_delta(rdp, x, PLD_RDP_BEST, &v)
                    : pld_rdp_epsilon(rdp, x, PLD_RDP_BEST, &v);
  if (st)
    return st;
  lower_upper(r, v.value, p, !is_delta);
  return PLD_SUCCESS;
}

int pld_best_delta(const pld_accountant *acc, const pld_rdp_curve *rdp,
                   double epsilon, pld_result *out)
{
  pld_detail_clear();
  pld_result r;
  pld_params p;
  if (!out)
    return pld_fail(PLD_EINVAL, "out must not be NULL");
  int st = pld_accountant_delta(acc, epsilon, &r);
  if (st)
    return st;
  if (rdp) {
    pld_rdp_result x;
    if ((st = pld_accountant_get_params(acc, &p)) ||
        (st = pld_rdp_delta(rdp, epsilon, PLD_RDP_BEST, &x)))
      return st;
    lower_upper(&r, x.value, &p, 0);
  }
  *out = r;
  return PLD_SUCCESS;
}

int pld_best_curve(const pld_accountant *acc, const pld_rdp_curve *rdp,
                   size_t n, const double *eps, pld_bound *out,
                   pld_result *info)
{
  pld_detail_clear();
  if (!acc || !eps || !out)
    return pld_fail(PLD_EINVAL, "acc, eps and out must not be NULL");
  if (n == 0)
    return pld_fail(PLD_EINVAL, "n = 0: at least one epsilon is needed");
  pld_bound *tmp = pld_malloc(n * sizeof *tmp);
  if (!tmp)
    return PLD_ENOMEM;
  pld_result r;
  int st = PLD_SUCCESS;
  /* the RDP bounds first: under a delta floor (pld_params) the points they
   * put at or below it need no grid (pld_accountant_curve_given) */
  double *rv = rdp ? pld_malloc(n * sizeof *rv) : NULL;
  pld_bound *given = rdp ? pld_malloc(n * sizeof *given) : NULL;
  if (rdp && (!rv || !given))
    st = PLD_ENOMEM;
  for (size_t i = 0; i < n && rdp && !st; i++) {
    pld_rdp_result x;
    st = pld_rdp_delta(rdp, eps[i], PLD_RDP_BEST, &x);
    if (!st) {
      rv[i] = x.value;
      given[i].lower = 0.0;
      given[i].upper = fmin(x.value, 1.0);
    }
  }
  if (!st)
    st = pld_accountant_curve_given(acc, n, eps, given, tmp, &r);
  pld_free(given);
  for (size_t i = 0; i < n && rdp && !st; i++) {
    pld_rdp_result x = {.value = rv[i]};
    if (x.value < tmp[i].upper) {
      tmp[i].upper = x.value;
      if (tmp[i].lower > x.value)
        tmp[i].lower = x.value;
      r.bound_kind = PLD_BOUND_RDP;
    }
  }
  if (!st) {
    for (size_t i = 0; i < n; i++)
      out[i] = tmp[i];
    if (info)
      *info = r;
  }
  pld_free(rv);
  pld_free(tmp);
  return st;
}
