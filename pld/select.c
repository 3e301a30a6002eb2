/* pldkit: random selection of composed mechanisms (merging paper, Alg. 2 and
 * Thm 5.2).
 *
 * Selecting member i with probability pi_i (the choice visible) gives, in
 * each direction, the pi-mixture of the members' output pairs, whose loss
 * distribution is the pi-mixture of the members' PLDs.  Mixing is linear in
 * the hockey-stick curves, so mixing the pessimistic members dominates the
 * truth and mixing the optimistic ones is dominated: the bracket survives,
 * and the mixture composes further like any PLD.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "alloc.h"
#include "internal.h"
#include "numerics.h"
#include <pldkit/select.h>
#include "detail.h"

/* The mixture of tilted members (the accountant's tilted compositions of
 * a selection's members, docs/design.md §5a), all tilted by lam: member k
 * stores s_k,i = m_k,i e^{lam (l_i - kref_k Delta) - lnorm_k}, so the
 * mixture's untilted masses sum_k w_k m_k,i are stored as
 * sum_k f_k s_k,i with f_k = e^{c_k - lnorm}, c_k = log w_k + lnorm_k +
 * lam (kref_k - kref) Delta, lnorm the log-sum-exp of the c_k.  Its
 * stored masses are within sum_k f_k tabs_k of the exact mixture's tilted
 * ones (L1), plus this sum's rounding: each f_k is off by u (2 + |c_k| +
 * |lnorm|) relatively (exponent, exp), each product and sum by 2u.  The
 * untilted parts (the mass at +inf, umass, abs) mix as untilted masses,
 * rel as the largest.  Mixing the tilted members keeps every error
 * relative to the tilted mass near the query's epsilon; tilting the
 * mixture of untilted compositions instead weighed their absolute
 * round-off at full size (a selection of composed runs failed below delta
 * ~ 1e-10). */
static void mix_tilted(size_t n, const pld_dist *const *members,
                       const double *weights, int dir, int r, double grid,
                       double lam, struct pld_pmf *o)
{
  int64_t kref = 0;
  int have = 0;
  double cmax = -INFINITY;
  for (size_t i = 0; i < n; i++) {
    const struct pld_pmf *p = &members[i]->p[dir][r];
    if (!(weights[i] > 0.0))
      continue;
    if (!have) {
      kref = p->kref;
      have = 1;
    }
    double c = log(weights[i]) + p->lnorm +
               lam * (double)(p->kref - kref) * grid;
    cmax = fmax(cmax, c);
  }
  double sum = 0.0, amax = fabs(cmax);
  for (size_t i = 0; i < n; i++) {
    const struct pld_pmf *p = &members[i]->p[dir][r];
    if (weights[i] > 0.0) {
      double c = log(weights[i]) + p->lnorm +
                 lam * (double)(p->kref - kref) * grid;
      sum += exp(c - cmax);
      amax = fmax(amax, fabs(c));
    }
  }
  double lnorm = cmax + log(sum);
  double rho = DBL_EPSILON * (8.0 + 2.0 * amax + 2.0 * fabs(lnorm) +
                              2.0 * (double)n);
  double M = 0.0;
  for (size_t i = 0; i < n; i++) {
    const struct pld_pmf *p = &members[i]->p[dir][r];
    double w = weights[i];
    if (!(w > 0.0))
      continue;
    double f = exp(log(w) + p->lnorm + lam * (double)(p->kref - kref) * grid -
                   lnorm);
    for (size_t j = 0; j < p->n; j++)
      o->m[(size_t)(p->offset - o->offset) + j] += f * p->m[j];
    o->tabs += f * p->tabs;
    o->inf += w * p->inf;
    o->umass += w * p->umass;
    o->rel = fmax(o->rel, p->rel);
    o->abs += w * p->abs;
  }
  for (size_t j = 0; j < o->n; j++)
    M += o->m[j];
  o->tabs = o->tabs * (1.0 + 4.0 * DBL_EPSILON) + rho * M + (double)o->n * DBL_MIN;
  o->rel += 4.0 * (double)n * DBL_EPSILON;
  o->tilt = lam;
  o->lnorm = lnorm;
  o->kref = kref;
}

int pld_dist_mix(size_t n, const pld_dist *const *members,
                 const double *weights, pld_dist **out)
{
  pld_detail_clear();
  if (!out || n < 1 || !members || !weights)
    return pld_fail(PLD_EINVAL, "pld_dist_mix: out, members or weights is NULL, or n = %zu < 1", n);
  if (!pld_is_simplex(weights, n, PLD_WEIGHT_SUM_TOL, "weights"))
    return PLD_EINVAL;
  for (size_t i = 0; i < n; i++)
    if (!members[i])
      return pld_fail(PLD_EINVAL, "members[%zu] is NULL", i);
  double grid = members[0]->delta;
  int sym = 1;
  for (size_t i = 0; i < n; i++) {
    if (members[i]->delta != grid)
      return PLD_EINCOMPAT;
    sym &= members[i]->symmetric != 0;
  }
  struct pld_dist *d;
  int st = pld_dist_new(grid, &d);
  if (st)
    return st;
  d->symmetric = sym;
  for (size_t i = 0; i < n; i++)
    if (members[i]->fft_size > d->fft_size)
      d->fft_size = members[i]->fft_size;
  for (int dir = 0; dir < 2 && !st; dir++)
    for (int r = 0; r < 2 && !st; r++) {
      int64_t lo = INT64_MAX, hi = INT64_MIN;
      for (size_t i = 0; i < n; i++) {
        const struct pld_pmf *p = &members[i]->p[dir][r];
        if (weights[i] == 0.0)
          continue;
        if (p->offset < lo)
          lo = p->offset;
        if (p->offset + (int64_t)p->n - 1 > hi)
          hi = p->offset + (int64_t)p->n - 1;
      }
      struct pld_pmf *o = &d->p[dir][r];
      if ((st = pld_pmf_alloc(o, lo, (size_t)(hi - lo + 1))))
        break;
      double lam = -1.0;
      for (size_t i = 0; i < n && st == PLD_SUCCESS; i++)
        if (weights[i] > 0.0) {
          double t = members[i]->p[dir][r].tilt;
          if (lam < 0.0)
            lam = t;
          else if (t != lam)
            st = pld_fail(PLD_EINCOMPAT, "pld_dist_mix: members tilted "
                          "differently (%g, %g)", lam, t);
        }
      if (st)
        break;
      if (lam > 0.0) {
        mix_tilted(n, members, weights, dir, r, grid, lam, o);
        continue;
      }
      for (size_t i = 0; i < n; i++) {
        const struct pld_pmf *p = &members[i]->p[dir][r];
        double w = weights[i];
        if (w == 0.0)
          continue;
        for (size_t j = 0; j < p->n; j++)
          o->m[(size_t)(p->offset - lo) + j] += w * p->m[j];
        o->inf += w * p->inf;
        /* a convex combination of curves each within rel * d + abs of its
         * ideal is within max rel * d_ideal + sum w abs of the ideal mixture */
        o->rel = fmax(o->rel, p->rel);
        o->abs += w * p->abs;
      }
      o->rel += 4.0 * (double)n * 2.220446049250313e-16;
    }
  if (st) {
    pld_dist_free(d);
    return st;
  }
  *out = d;
  return PLD_SUCCESS;
}

int pld_select_feasible(size_t n, const double *md, double delta,
                        unsigned resolution, double *out_weights, size_t cap,
                        size_t *n_out)
{
  pld_detail_clear();
  if (!md || !n_out)
    return pld_fail(PLD_EINVAL, "md and n_out must not be NULL");
  if (n < 1 || n > 4)
    return pld_fail(PLD_EINVAL, "n = %zu members must be in [1, 4]", n);
  if (resolution < 1 || resolution > 100000)
    return pld_fail(PLD_EINVAL, "resolution = %u must be in [1, 100000]",
                    resolution);
  if (!(delta > 0.0 && delta < 1.0))
    return pld_fail(PLD_EINVAL, "delta = %g must be in (0, 1)", delta);
  if (cap && !out_weights)
    return pld_fail(PLD_EINVAL,
                    "out_weights must not be NULL when cap = %zu > 0", cap);
  for (size_t i = 0; i < 2 * n; i++)
    if (!(md[i] >= 0.0 && md[i] <= 1.0))
      return pld_fail(PLD_EINVAL, "md[%zu] = %g must be in [0, 1]", (size_t)i,
                      md[i]);
  /* The enumeration visits (resolution + 1)^(n-1) tuples: 1e15 at n = 4 and
   * the largest resolution is a hang, not an answer.  Cap the work (~0.3 s).
   */
  if (pow((double)resolution + 1.0, (double)(n - 1)) > PLD_SELECT_MAX_TUPLES)
    return pld_fail(PLD_ERANGE,
                    "resolution = %u with n = %zu runs visits (resolution + 1)^(n - 1) = %.3g tuples, "
                    "over the cap %g (a smaller resolution)",
                    (unsigned)resolution, n,
                    pow((double)resolution + 1.0, (double)(n - 1)),
                    PLD_SELECT_MAX_TUPLES);
  /* enumerate compositions k_1 + ... + k_n = resolution */
  size_t found = 0;
  unsigned k[4] = {0, 0, 0, 0};
  for (;;) {
    unsigned used = 0;
    for (size_t i = 0; i + 1 < n; i++)
      used += k[i];
    if (used <= resolution) {
      k[n - 1] = resolution - used;
      double w[4], v[2] = {0.0, 0.0};
      for (size_t i = 0; i < n; i++) {
        w[i] = (double)k[i] / (double)resolution;
        v[0] += w[i] * md[2 * i];
        v[1] += w[i] * md[2 * i + 1];
      }
      if (fmax(v[0], v[1]) <= delta) {
        if (found < cap)
          memcpy(out_weights + found * n, w, n * sizeof(double));
        found++;
      }
    }
    /* next tuple of the first n-1 counters */
    size_t i = 0;
    while (i + 1 < n) {
      if (++k[i] <= resolution)
        break;
      k[i] = 0;
      i++;
    }
    if (i + 1 >= n)
      break;
  }
  *n_out = found;
  return PLD_SUCCESS;
}

int pld_select_max_weight(const double *md, double delta, double *pi0)
{
  pld_detail_clear();
  if (!md || !pi0)
    return pld_fail(PLD_EINVAL, "md and pi0 must not be NULL");
  if (!(delta > 0.0 && delta < 1.0))
    return pld_fail(PLD_EINVAL, "delta = %g must be in (0, 1)", delta);
  for (int i = 0; i < 4; i++)
    if (!(md[i] >= 0.0 && md[i] <= 1.0))
      return pld_fail(PLD_EINVAL, "md[%zu] = %g must be in [0, 1]", (size_t)i,
                      md[i]);
  /* per direction: pi u0 + (1 - pi) u1 <= delta, linear in pi */
  double lo = 0.0, hi = 1.0;
  for (int dir = 0; dir < 2; dir++) {
    double u0 = md[dir], u1 = md[2 + dir];
    if (u0 == u1) {
      if (u0 > delta)
        hi = -1.0;
      continue;
    }
    double t = (delta - u1) / (u0 - u1); /* where the line crosses delta */
    if (u0 > u1)
      hi = fmin(hi, t);
    else
      lo = fmax(lo, t);
  }
  if (hi < lo || hi < 0.0) {
    *pi0 = -1.0;
    return PLD_SUCCESS;
  }
  /* round toward feasibility: step down until the exact check holds */
  double p = fmin(hi, 1.0);
  for (int it = 0; it < 64; it++) {
    double v0 = p * md[0] + (1.0 - p) * md[2];
    double v1 = p * md[1] + (1.0 - p) * md[3];
    if (fmax(v0, v1) <= delta)
      break;
    p = nextafter(p, -1.0);
  }
  *pi0 = p < lo ? -1.0 : p;
  return PLD_SUCCESS;
}
