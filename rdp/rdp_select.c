/* pldkit RDP backend: random selection among private models (the
 * model-merging paper, "DP model merging": Thm 5.1 and Alg. 1).
 *
 * Thm 5.1: releasing member i with probability w_i is
 *   (alpha, log(sum_i w_i e^{(alpha-1) eps_i(alpha)}) / (alpha-1))-RDP.
 * Proof (App. C): Hoelder's inequality gives pointwise
 * (sum w_i p_i)^alpha (sum w_i q_i)^(1-alpha) <= sum w_i p_i^alpha q_i^(1-alpha),
 * which integrates to the bound; it applies to each ordered pair of
 * neighbours, so a member curve that covers both directions gives an RS
 * curve that covers both.
 *
 * Alg. 1 accepts a weight vector if the converted eps(delta') is <= eps'.
 * Here "converted" is always pldkit's certified conversion (rounded upward),
 * so every accepted vector is certified.
 */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <string.h>

#include <pldkit/rdp.h>

#include "alloc.h"
#include "numerics.h"
#include "detail.h"

#define MAX_GRID ((size_t)1 << 24)

/* eps_RS at every order into vals[0..n_orders); weights already checked.
 * log(sum w_i e^{a_i}) - log(sum w_i), a_i = (alpha-1) eps_i: the weights are
 * normalised by their computed sum, i.e. the bound is that of the
 * distribution w / sum(w), which is the selection actually meant.  Error:
 * a_i errs by <= u |a_i|, each exp and addition by <= u relative, the logs by
 * an ulp: 4u (max|a_i| + N + 2) with a factor 2 to spare, then divided by
 * alpha - 1. */
static void rs_values(const pld_rdp_curve *const *members, const double *w,
                      size_t N, const double *orders, size_t n_orders,
                      double *vals)
{
  double wsum = 0.0;
  for (size_t i = 0; i < N; i++)
    wsum += w[i];
  double lw = log(wsum);
  for (size_t k = 0; k < n_orders; k++) {
    double am1 = orders[k] - 1.0;
    double amax = -INFINITY, vmax = 0.0;
    int inf = 0;
    for (size_t i = 0; i < N; i++) {
      if (!(w[i] > 0.0))
        continue;
      double v = pld_rdp_curve_values(members[i])[k];
      if (v == INFINITY)
        inf = 1;
      double a = am1 * v;
      if (a > amax)
        amax = a;
      if (v > vmax)
        vmax = v;
    }
    if (inf) {
      vals[k] = INFINITY;
      continue;
    }
    double s = 0.0;
    for (size_t i = 0; i < N; i++) {
      if (!(w[i] > 0.0))
        continue;
      s += w[i] * exp(am1 * pld_rdp_curve_values(members[i])[k] - amax);
    }
    double l = amax + log(s) - lw;
    double err = 8.0 * PLD_U * (fabs(amax) + fabs(log(s)) + fabs(lw) + (double)N + 2.0);
    double v = (l + err) / am1;
    v = nextafter(fmax(v, 0.0), INFINITY);
    /* log-sum-exp never exceeds its largest term: the exact bound is
     * <= max eps_i, so the cap loses nothing. */
    vals[k] = fmin(v, vmax);
  }
}

static int check_members(const pld_rdp_curve *const *members, size_t N,
                         const pld_rdp_curve *ref)
{
  for (size_t i = 0; i < N; i++)
    if (!members[i])
      return pld_fail(PLD_EINVAL, "members[%zu] is NULL", i);
  for (size_t i = 0; i < N; i++)
    if (!pld_rdp_curve_same_orders(members[i], ref))
      return PLD_EINCOMPAT;
  return PLD_SUCCESS;
}

static int check_weights(const double *w, size_t N)
{
  return pld_is_simplex(w, N, PLD_WEIGHT_SUM_TOL, "weights") ? PLD_SUCCESS : PLD_EINVAL;
}

int pld_rdp_random_selection(size_t n, const pld_rdp_curve *const *members,
                             const double *weights,
                             pld_rdp_curve *out)
{
  pld_detail_clear();
  if (!members || !weights || !out)
    return pld_fail(PLD_EINVAL, "members, weights and out must not be NULL");
  if (n == 0)
    return pld_fail(PLD_EINVAL, "n = 0: at least one member is needed");
  int st = check_members(members, n, out);
  if (st)
    return st;
  if ((st = check_weights(weights, n)))
    return st;
  size_t no = pld_rdp_curve_size(out);
  double *vals = pld_malloc(no * sizeof(double));
  if (!vals)
    return PLD_ENOMEM;
  /* computed into a buffer first: out may be one of the members */
  rs_values(members, weights, n, pld_rdp_curve_orders(out), no, vals);
  st = pld_rdp_curve_set(out, vals);
  pld_free(vals);
  return st;
}

/* Certified eps(delta) of the selection with weights w, via a scratch
 * curve. */
static int rs_eps(const pld_rdp_curve *const *members, const double *w,
                  size_t N, pld_rdp_curve *scratch, double *vals, double delta,
                  int method, double *eps)
{
  rs_values(members, w, N, pld_rdp_curve_orders(scratch),
            pld_rdp_curve_size(scratch), vals);
  int st = pld_rdp_curve_set(scratch, vals);
  pld_rdp_result r;
  if (!st)
    st = pld_rdp_epsilon(scratch, delta, method, &r);
  if (!st)
    *eps = r.value;
  return st;
}

/* 1 when the query is in its domain; 0 with the failed check recorded. */
static int valid_query(double target, double delta, int method)
{
  if (!(isfinite(target) && target >= 0.0))
    return !pld_fail(PLD_EINVAL, "target_epsilon = %g must be finite and >= 0",
                     target);
  if (!(delta > 0.0 && delta < 1.0))
    return !pld_fail(PLD_EINVAL, "delta = %g must be in (0, 1)", delta);
  if (!(method == PLD_RDP_BEST || method == PLD_RDP_CLASSIC ||
        method == PLD_RDP_IMPROVED))
    return !pld_fail(PLD_EINVAL,
                     "method = %d must be PLD_RDP_BEST, PLD_RDP_CLASSIC or "
                     "PLD_RDP_IMPROVED",
                     method);
  return 1;
}

/* pld_rdp_rs_max_weight's question at weight x on a (held second): is the
 * selection's certified eps above the target (x infeasible)? */
struct rs_pred {
  const pld_rdp_curve *const *m;
  pld_rdp_curve *scratch;
  double *vals, delta, target;
  int method;
};

static int rs_above(double x, void *ctx, int *above)
{
  const struct rs_pred *q = ctx;
  double w[2] = {1.0 - x, x}, e;
  int st = rs_eps(q->m, w, 2, q->scratch, q->vals, q->delta, q->method, &e);
  if (!st)
    *above = !(e <= q->target);
  return st;
}

/* The weight w0 on member a (weights (w0, 1 - w0) on (a, b)), as
 * pld_merge_max_weight and pld_select_max_weight: 1 when a alone meets the
 * target, -1 when b alone does not.  Internally the members are held as
 * (b, a) so that each weight vector is summed in the same order as before
 * the 0.x API pass (same bits). */
int pld_rdp_rs_max_weight(const pld_rdp_curve *a, const pld_rdp_curve *b,
                          double target_epsilon, double delta, int method,
                          double *w0)
{
  pld_detail_clear();
  if (!a || !b || !w0)
    return pld_fail(PLD_EINVAL, "a, b and w0 must not be NULL");
  if (!valid_query(target_epsilon, delta, method))
    return PLD_EINVAL; /* valid_query recorded the detail */
  if (!pld_rdp_curve_same_orders(a, b))
    return PLD_EINCOMPAT;
  const pld_rdp_curve *m[2] = {b, a};
  pld_rdp_curve *scratch = NULL;
  size_t no = pld_rdp_curve_size(b);
  double *vals = pld_malloc(no * sizeof(double));
  int st = vals ? pld_rdp_curve_copy(b, &scratch) : PLD_ENOMEM;
  double e, w[2], lo = 0.0, hi = 1.0, result = 0.0;
  if (st)
    goto done;
  w[0] = 0.0;
  w[1] = 1.0;
  if ((st = rs_eps(m, w, 2, scratch, vals, delta, method, &e)))
    goto done;
  if (e <= target_epsilon) {
    result = 1.0; /* a alone meets the target */
    goto done;
  }
  w[0] = 1.0;
  w[1] = 0.0;
  if ((st = rs_eps(m, w, 2, scratch, vals, delta, method, &e)))
    goto done;
  if (!(e <= target_epsilon)) {
    result = -1.0; /* not even b alone does */
    goto done;
  }
  /* Invariant: lo is certified feasible, hi is not.  The true eps(w0) is
   * concave in w0 (min over orders of log(w0 A + (1-w0) B)/(alpha-1) +
   * const), so with eps(0) <= target < eps(1) the feasible set is [0, w*]. */
  {
    struct rs_pred q = {m, scratch, vals, delta, target_epsilon, method};
    st = pld_bisect(rs_above, &q, lo, hi, 1e-12, 0.0, INT_MAX, -1, &result);
  }
done:
  pld_rdp_curve_free(scratch);
  pld_free(vals);
  if (!st)
    *w0 = result;
  return st;
}

int pld_rdp_rs_grid_size(size_t n, unsigned resolution, size_t *size)
{
  pld_detail_clear();
  if (!size)
    return pld_fail(PLD_EINVAL, "size (the output) must not be NULL");
  if (n < 1 || n > 4)
    return pld_fail(PLD_EINVAL, "n = %zu members must be in [1, 4]", n);
  if (resolution < 1)
    return pld_fail(PLD_EINVAL, "resolution = %u must be >= 1", resolution);
  /* C(res + n - 1, n - 1), built as a product of exact binomials */
  double c = pld_simplex_grid_count(n, resolution);
  if (c > (double)MAX_GRID)
    return pld_fail(PLD_ERANGE,
                    "the grid of n = %zu members at resolution = %u has %.0f "
                    "points, above the cap %zu",
                    n, resolution, c, MAX_GRID);
  *size = (size_t)(c + 0.5);
  return PLD_SUCCESS;
}

int pld_rdp_rs_feasible_grid(size_t n, const pld_rdp_curve *const *members,
                             unsigned resolution, double target_epsilon,
                             double delta, int method, double *weights_out,
                             size_t capacity, size_t *count)
{
  pld_detail_clear();
  if (!members || !weights_out || !count)
    return pld_fail(PLD_EINVAL, "members, weights_out and count must not be NULL");
  if (!valid_query(target_epsilon, delta, method))
    return PLD_EINVAL; /* valid_query recorded the detail */
  size_t total;
  int st = pld_rdp_rs_grid_size(n, resolution, &total);
  if (st)
    return st;
  if (!members[0])
    return pld_fail(PLD_EINVAL, "members[0] is NULL");
  if ((st = check_members(members, n, members[0])))
    return st;
  if (capacity < total)
    return pld_fail(PLD_ERANGE,
                    "capacity = %zu weight vectors is below the grid's %zu",
                    capacity, total);
  size_t no = pld_rdp_curve_size(members[0]);
  pld_rdp_curve *scratch = NULL;
  double *vals = pld_malloc(no * sizeof(double));
  if (!vals)
    return PLD_ENOMEM;
  if ((st = pld_rdp_curve_copy(members[0], &scratch))) {
    pld_free(vals);
    return st;
  }
  /* k[0..n): k[0] from resolution down, each next coordinate likewise
   * over what is left, the last takes the remainder. */
  unsigned k[4];
  size_t found = 0;
  double w[4];
  pld_simplex_grid_first(n, resolution, 1, k);
  do {
    pld_simplex_grid_weights(n, resolution, k, w);
    double e;
    if ((st = rs_eps(members, w, n, scratch, vals, delta, method, &e)))
      break;
    if (e <= target_epsilon) {
      memcpy(weights_out + found * n, w, n * sizeof(double));
      found++;
    }
  } while (pld_simplex_grid_next(n, resolution, 1, k));
  pld_rdp_curve_free(scratch);
  pld_free(vals);
  if (!st)
    *count = found;
  return st;
}
