/* pldkit RDP backend: curves, composition, conversion to (eps, delta).
 *
 * Soundness bookkeeping.  Every stored value must stay an upper bound on a
 * Renyi divergence.  Composition (c += count * v) uses directed rounding
 * built from error-free transformations (fma for products, TwoSum for
 * sums), so each step rounds exactly toward +inf.  The conversions evaluate
 * short formulas whose rounding error is bounded by a few ulps of the sum of
 * the magnitudes involved; that bound (with a safety factor) is added on
 * top, so eps and delta are rounded toward the pessimistic side.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include <pldkit/rdp.h>

#include "alloc.h"
#include "numerics.h"
#include "detail.h"


struct pld_rdp_curve {
  size_t n;
  double *orders;
  double *values;
};

/* ------------------------------------------------------------------------ */
/* Directed rounding.                                                         */

/* count as a double not below count. */
static double count_up(uint64_t count)
{
  double c = (double)count;
  if (count > ((uint64_t)1 << 53))
    c = nextafter(c, INFINITY);
  return c;
}

static int valid_value(double v) { return v >= 0.0; /* NaN fails, +inf ok */ }

/* ------------------------------------------------------------------------ */
/* Lifetime and accessors.                                                    */

static int curve_new(size_t n, pld_rdp_curve **out)
{
  size_t bytes;
  if (pld_mul_size(n, 2 * sizeof(double), &bytes))
    return PLD_ERANGE; /* n orders overflow size_t: not reachable from
                          pld_rdp_curve_alloc, which checks n first */
  pld_rdp_curve *c = pld_malloc(sizeof *c);
  if (!c)
    return PLD_ENOMEM;
  c->orders = pld_calloc(2 * n, sizeof(double));
  if (!c->orders) {
    pld_free(c);
    return PLD_ENOMEM;
  }
  c->values = c->orders + n;
  c->n = n;
  *out = c;
  return PLD_SUCCESS;
}

int pld_rdp_curve_alloc(size_t n, const double *orders, pld_rdp_curve **out)
{
  pld_detail_clear();
  if (!orders || !out || n == 0)
    return pld_fail(PLD_EINVAL, "need orders and out non-NULL and n = %zu >= 1 orders", n);
  if (n > SIZE_MAX / (2 * sizeof(double)))
    return pld_fail(PLD_ERANGE, "n = %zu orders overflow the allocation size", n);
  for (size_t i = 0; i < n; i++) {
    /* alpha = 1 is KL divergence, a different formula everywhere below;
     * alpha = +inf is pure DP.  Both are outside the grid's domain. */
    if (!isfinite(orders[i]) || !(orders[i] > 1.0))
      return pld_fail(PLD_EINVAL, "order[%zu] = %g must be finite and > 1", i, orders[i]);
    if (i > 0 && !(orders[i] > orders[i - 1]))
      return pld_fail(PLD_EINVAL, "order[%zu] = %g must exceed order[%zu] = %g (increasing)",
                      i, orders[i], i - 1, orders[i - 1]);
  }
  pld_rdp_curve *c;
  int st = curve_new(n, &c);
  if (st)
    return st;
  memcpy(c->orders, orders, n * sizeof(double));
  *out = c;
  return PLD_SUCCESS;
}

int pld_rdp_curve_alloc_default(pld_rdp_curve **out)
{
  pld_detail_clear();
  if (!out)
    return pld_fail(PLD_EINVAL, "out must not be NULL");
  pld_rdp_curve *c;
  int st = curve_new(PLD_RDP_DEFAULT_ORDERS, &c);
  if (st)
    return st;
  size_t k = 0;
  /* k / 10 is the double nearest to the decimal, and integers are exact,
   * so the integer orders of this range (2, 3, ..., 10) take the exact
   * integer paths of the mechanisms. */
  for (int i = 11; i <= 109; i++)
    c->orders[k++] = (double)i / 10.0;
  for (int i = 11; i <= 64; i++)
    c->orders[k++] = (double)i;
  for (int i = 128; i <= 1024; i *= 2)
    c->orders[k++] = (double)i;
  *out = c;
  return PLD_SUCCESS;
}

void pld_rdp_curve_free(pld_rdp_curve *c)
{
  if (!c)
    return;
  pld_free(c->orders);
  pld_free(c);
}

int pld_rdp_curve_copy(const pld_rdp_curve *src, pld_rdp_curve **out)
{
  pld_detail_clear();
  if (!src || !out)
    return pld_fail(PLD_EINVAL, "src and out must not be NULL");
  pld_rdp_curve *c;
  int st = curve_new(src->n, &c);
  if (st)
    return st;
  memcpy(c->orders, src->orders, 2 * src->n * sizeof(double));
  *out = c;
  return PLD_SUCCESS;
}

size_t pld_rdp_curve_size(const pld_rdp_curve *c) { return c ? c->n : 0; }

const double *pld_rdp_curve_orders(const pld_rdp_curve *c)
{
  return c ? c->orders : NULL;
}

const double *pld_rdp_curve_values(const pld_rdp_curve *c)
{
  return c ? c->values : NULL;
}

int pld_rdp_curve_same_orders(const pld_rdp_curve *a, const pld_rdp_curve *b)
{
  pld_detail_clear();
  if (!a || !b || a->n != b->n)
    return 0;
  return memcmp(a->orders, b->orders, a->n * sizeof(double)) == 0;
}

int pld_rdp_curve_set(pld_rdp_curve *c, const double *values)
{
  pld_detail_clear();
  if (!c || !values)
    return pld_fail(PLD_EINVAL, "c and values must not be NULL");
  for (size_t i = 0; i < c->n; i++)
    if (!valid_value(values[i]))
      return pld_fail(PLD_EINVAL,
                      "values[%zu] = %g (at order %g) must be >= 0 or +inf", i,
                      values[i], c->orders[i]);
  memmove(c->values, values, c->n * sizeof(double));
  return PLD_SUCCESS;
}

int pld_rdp_curve_add_values(pld_rdp_curve *c, const double *values,
                             uint64_t count)
{
  pld_detail_clear();
  if (!c || !values)
    return pld_fail(PLD_EINVAL, "c and values must not be NULL");
  if (count == 0)
    return pld_fail(PLD_EINVAL, "count = 0 must be >= 1");
  for (size_t i = 0; i < c->n; i++)
    if (!valid_value(values[i]))
      return pld_fail(PLD_EINVAL,
                      "values[%zu] = %g (at order %g) must be >= 0 or +inf", i,
                      values[i], c->orders[i]);
  double cu = count_up(count);
  for (size_t i = 0; i < c->n; i++)
    c->values[i] = pld_add_up(c->values[i], pld_mul_up(values[i], cu));
  return PLD_SUCCESS;
}

int pld_rdp_curve_compose(pld_rdp_curve *acc, const pld_rdp_curve *other,
                          uint64_t count)
{
  pld_detail_clear();
  if (!acc || !other)
    return pld_fail(PLD_EINVAL, "acc and other must not be NULL");
  if (count == 0)
    return pld_fail(PLD_EINVAL, "count = 0 must be >= 1");
  if (!pld_rdp_curve_same_orders(acc, other))
    return PLD_EINCOMPAT;
  /* acc == other is fine: each element is read before it is written. */
  return pld_rdp_curve_add_values(acc, other->values, count);
}

/* ------------------------------------------------------------------------ */
/* Conversions.                                                               */
/*                                                                            */
/* Per order alpha with r = r(alpha) < inf and L = log delta:                 */
/*   classic   eps_c = r - L/(alpha-1)                       (Mironov Prop. 3)*/
/*   improved  eps_i = r + log1p(-1/alpha) - (L + log alpha)/(alpha-1)        */
/*             (Canonne, Kamath, Steinke 2020, Prop. 12: delta =              */
/*              e^{(alpha-1)(r-eps)}/(alpha-1) (1-1/alpha)^alpha; solving for */
/*              eps gives the line above).                                    */
/* Both are strictly increasing bijections between eps and log delta at a    */
/* fixed order, so the mirror query solves the same line for log delta:       */
/*   classic   log delta = (alpha-1)(r - eps)                                 */
/*   improved  log delta = (alpha-1)(r - eps + log1p(-1/alpha)) - log alpha.  */
/* Minimising either over the grid gives mutually inverse queries (the order */
/* optimal for one is optimal for the other at the matching point).          */
/* eps_i - eps_c = log1p(-1/alpha) - log(alpha)/(alpha-1) < 0 at every order, */
/* so the improved conversion always wins at equal order.                     */

/* Upper bound on eps at one order; slack: each of the few operations below
 * errs by <= 1 ulp of a partial sum bounded by `mag`; 16u mag covers them
 * with a factor > 2 to spare. */
static double eps_at(double a, double r, double L, int method)
{
  double am1 = a - 1.0;
  if (method == PLD_RDP_CLASSIC) {
    double t = -L / am1;
    return r + t + 16.0 * PLD_U * (r + fabs(t));
  }
  double l1 = log1p(-1.0 / a), la = log(a);
  double t = -(L + la) / am1;
  return r + l1 + t + 16.0 * PLD_U * (r + fabs(l1) + (fabs(L) + la) / am1);
}

/* Upper bound on log delta at one order (eps finite). */
static double logdelta_at(double a, double r, double eps, int method)
{
  double am1 = a - 1.0;
  if (method == PLD_RDP_CLASSIC) {
    double v = am1 * (r - eps);
    return v + 16.0 * PLD_U * am1 * (r + eps) + 4.0 * PLD_U;
  }
  double l1 = log1p(-1.0 / a), la = log(a);
  double v = am1 * (r - eps + l1) - la;
  return v + 16.0 * PLD_U * (am1 * (r + eps + fabs(l1)) + la) + 4.0 * PLD_U;
}

static int valid_method(int m)
{
  return m == PLD_RDP_BEST || m == PLD_RDP_CLASSIC || m == PLD_RDP_IMPROVED;
}

static void finish(const pld_rdp_curve *c, size_t best, double val, int meth,
                   pld_rdp_result *out)
{
  out->value = val;
  if (best < c->n) {
    out->order = c->orders[best];
    out->index = best;
    out->at_edge = best == 0 || best == c->n - 1;
  } else {
    out->order = NAN;
    out->index = c->n;
    out->at_edge = 0;
  }
  out->method = meth;
}

int pld_rdp_epsilon(const pld_rdp_curve *c, double delta, int method,
                    pld_rdp_result *out)
{
  pld_detail_clear();
  if (!c || !out || !valid_method(method) || !(delta > 0.0 && delta < 1.0))
    return pld_fail(PLD_EINVAL, "delta = %g must be in (0, 1), method = %d known, curve and "
                    "out non-NULL", delta, method);
  const double L = log(delta);
  size_t best = c->n;
  double bv = INFINITY;
  int bm = method == PLD_RDP_CLASSIC ? PLD_RDP_CLASSIC : PLD_RDP_IMPROVED;
  for (size_t i = 0; i < c->n; i++) {
    double r = c->values[i];
    if (!isfinite(r))
      continue;
    /* improved first, so that it wins ties under BEST */
    if (method != PLD_RDP_CLASSIC) {
      double e = eps_at(c->orders[i], r, L, PLD_RDP_IMPROVED);
      if (e < bv) {
        bv = e;
        best = i;
        bm = PLD_RDP_IMPROVED;
      }
    }
    if (method != PLD_RDP_IMPROVED) {
      double e = eps_at(c->orders[i], r, L, PLD_RDP_CLASSIC);
      if (e < bv) {
        bv = e;
        best = i;
        bm = PLD_RDP_CLASSIC;
      }
    }
  }
  /* A negative value means (0, delta) already holds: delta(eps) is
   * non-increasing in eps, so clamping at 0 stays valid. */
  if (bv < 0.0)
    bv = 0.0;
  finish(c, best, bv, bm, out);
  return PLD_SUCCESS;
}

int pld_rdp_delta(const pld_rdp_curve *c, double epsilon, int method,
                  pld_rdp_result *out)
{
  pld_detail_clear();
  if (!c || !out || !valid_method(method) || !(epsilon >= 0.0))
    return pld_fail(PLD_EINVAL, "epsilon = %g must be >= 0, method = %d known, curve and out "
                    "non-NULL", epsilon, method);
  size_t best = c->n;
  double bl = 0.0; /* log delta; delta = 1 is the trivial answer */
  int bm = method == PLD_RDP_CLASSIC ? PLD_RDP_CLASSIC : PLD_RDP_IMPROVED;
  for (size_t i = 0; i < c->n; i++) {
    double r = c->values[i];
    if (!isfinite(r))
      continue;
    if (epsilon == INFINITY) { /* any finite order gives delta = 0 */
      best = i;
      bl = -INFINITY;
      break;
    }
    if (method != PLD_RDP_CLASSIC) {
      double l = logdelta_at(c->orders[i], r, epsilon, PLD_RDP_IMPROVED);
      if (l < bl) {
        bl = l;
        best = i;
        bm = PLD_RDP_IMPROVED;
      }
    }
    if (method != PLD_RDP_IMPROVED) {
      double l = logdelta_at(c->orders[i], r, epsilon, PLD_RDP_CLASSIC);
      if (l < bl) {
        bl = l;
        best = i;
        bm = PLD_RDP_CLASSIC;
      }
    }
  }
  /* exp errs by < 1 ulp; one step up keeps the bound. */
  double v = best < c->n ? fmin(nextafter(exp(bl), INFINITY), 1.0) : 1.0;
  if (bl == -INFINITY)
    v = 0.0;
  finish(c, best, v, bm, out);
  return PLD_SUCCESS;
}
