/* pldkit: delta(eps) and eps(delta) on a discrete PLD, with the booked error.
 *
 * For a pmf with atoms m_j at l_j and m_inf at +inf,
 *     delta(eps) = m_inf + sum_{l_j > eps} m_j (1 - e^{eps - l_j}),
 * evaluated with e^{eps - l_j} <= 1 only, so nothing under- or overflows for
 * losses in the thousands (dp_accounting loses the Gaussian at eps ~ 2000
 * because it forms e^{-l}).  Between two grid points delta is A - e^eps B
 * with constant A, B, so eps(delta) is solved exactly on each piece.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "alloc.h"
#include "internal.h"

#define U_ DBL_EPSILON

/* Atom j sits at the real number (offset + j) Delta; its double is rounded
 * the safe way for the member: up for pessimistic (sgn > 0), down for
 * optimistic.  Near an atom the value is arbitrarily sensitive to that. */
static double loss_at(const struct pld_pmf *p, size_t j, double grid, int sgn)
{
  double l = (double)(p->offset + (int64_t)j) * grid;
  return l + (double)sgn * 4.0 * U_ * fabs(l);
}

double pld_pmf_delta(const struct pld_pmf *p, double grid, double eps, int sgn)
{
  if (eps == INFINITY)
    return p->inf;
  double s = p->inf;
  for (size_t j = p->n; j-- > 0;) {
    double l = loss_at(p, j, grid, sgn);
    if (!(l > eps))
      break;
    s += p->m[j] * -expm1(eps - l);
  }
  return s;
}

void pld_pmf_moments(const struct pld_pmf *p, double grid, double *mean,
                     double *var)
{
  double M = 0, s1 = 0, s2 = 0;
  for (size_t j = 0; j < p->n; j++) {
    double x = (double)j;
    M += p->m[j];
    s1 += p->m[j] * x;
    s2 += p->m[j] * x * x;
  }
  if (M <= 0.0) {
    *mean = 0.0;
    *var = 0.0;
    return;
  }
  double mu = s1 / M;
  *mean = ((double)p->offset + mu) * grid;
  *var = fmax(s2 / M - mu * mu, 0.0) * grid * grid;
}

/* Certified upper / optimistic lower value of one member's curve. */
/* At eps = +inf only the mass at infinity counts; the booked absolute error
 * lives in the finite masses and does not reach it. */
static double upper_inf(const struct pld_pmf *p)
{
  return fmin(p->inf * (1.0 + p->rel) * (1.0 + 4.0 * U_), 1.0);
}

static double upper_of(const struct pld_pmf *p, double v)
{
  /* d_ideal <= (d + abs)/(1 - rel); the 4u n term covers the summation.
   * A booked rel >= 1 certifies nothing (the divisor would turn the bound
   * negative and report delta = 0: found by fuzzing discrete-gaussian with
   * sigma ~ 1e3 on a 1e-7 grid), so the upper end is then the trivial 1. */
  if (!(p->rel < 1.0))
    return 1.0;
  double r = (v + p->abs + 4.0 * U_ * (double)p->n * v) / (1.0 - p->rel);
  return r >= 0.0 ? fmin(r, 1.0) : 1.0;
}

static double lower_of(const struct pld_pmf *p, double v)
{
  double r = (v - p->abs - 4.0 * U_ * (double)p->n * v) / (1.0 + p->rel);
  return r > 0.0 ? r : 0.0; /* also for a NaN from an overflowed booking */
}

static int ndir_of(const pld_dist *d) { return d->symmetric ? 1 : 2; }

int pld_dist_delta(const pld_dist *d, double eps, pld_bound *out)
{
  if (!d || !out || isnan(eps) || eps < 0.0)
    return PLD_EINVAL;
  double up = 0.0, lo = 0.0;
  for (int dir = 0; dir < ndir_of(d); dir++) {
    const struct pld_pmf *pp = &d->p[dir][PLD_PESSIMISTIC];
    const struct pld_pmf *po = &d->p[dir][PLD_OPTIMISTIC];
    if (eps == INFINITY) {
      up = fmax(up, upper_inf(pp));
      double l = po->inf / (1.0 + po->rel) * (1.0 - 4.0 * U_);
      lo = l > lo ? l : lo; /* a NaN proves nothing */
      continue;
    }
    up = fmax(up, upper_of(pp, pld_pmf_delta(pp, d->delta, eps, +1)));
    lo = fmax(lo, lower_of(po, pld_pmf_delta(po, d->delta, eps, -1)));
  }
  out->upper = up;
  out->lower = fmin(lo, up);
  return PLD_SUCCESS;
}

/* Smallest eps with the member's computed curve <= t (t > inf mass),
 * solved exactly piecewise; -inf if already below at every eps. */
static double solve_eps(const struct pld_pmf *p, double grid, double t,
                        int sgn)
{
  /* Walk down from the top: S = sum_{j >= k} m_j, W = sum_{j >= k} m_j
   * e^{l_k - l_j}; for eps in [l_{k-1}, l_k): delta = inf + S - e^{eps - l_k} W. */
  double S = 0.0, W = 0.0, eg = exp(-grid);
  double tt = t - p->inf;
  for (size_t k = p->n; k-- > 0;) {
    W = p->m[k] + eg * W;
    S += p->m[k];
    double lk = loss_at(p, k, grid, sgn);
    /* value at l_{k-1} (bottom of this piece) */
    double at_bottom = S - eg * W;
    if (k == 0 || at_bottom > tt) {
      /* crossing inside [l_{k-1}, l_k) (or below the grid when k == 0) */
      double ratio = (S - tt) / W;
      if (!(ratio > 0.0))
        return -INFINITY;
      double e = lk + log(ratio);
      if (e > lk)
        e = lk;
      return e;
    }
  }
  return -INFINITY;
}

int pld_dist_epsilon(const pld_dist *d, double delta, pld_bound *out)
{
  if (!d || !out || isnan(delta) || !(delta > 0.0 && delta < 1.0))
    return PLD_EINVAL;
  double up = 0.0, lo = 0.0;
  for (int dir = 0; dir < ndir_of(d); dir++) {
    const struct pld_pmf *pp = &d->p[dir][PLD_PESSIMISTIC];
    const struct pld_pmf *po = &d->p[dir][PLD_OPTIMISTIC];
    /* upper: computed pessimistic curve must reach t with upper_of(t) <= delta */
    double slack = 4.0 * U_ * (double)pp->n;
    double t = (delta * (1.0 - pp->rel) - pp->abs) / (1.0 + slack);
    double eu;
    if (!(t > pp->inf))
      eu = INFINITY;
    else {
      eu = solve_eps(pp, d->delta, t, +1);
      /* round away from the optimistic side by a few ulps */
      eu = eu + 8.0 * U_ * fabs(eu) + 1e-300;
    }
    double so = 4.0 * U_ * (double)po->n;
    double tl = (delta * (1.0 + po->rel) + po->abs) / (1.0 - so);
    double el;
    if (!isfinite(tl) || !(po->inf >= 0.0))
      el = 0.0; /* an overflowed booking (a huge count) proves nothing: an
                   infinite or NaN slack must not read as "certainly
                   infinite" (it did: [inf, inf] at 10^12 steps) */
    else if (!(tl > po->inf))
      el = INFINITY;
    else {
      el = solve_eps(po, d->delta, tl, -1);
      el = el - 8.0 * U_ * fabs(el);
    }
    up = fmax(up, eu);
    lo = fmax(lo, el);
  }
  out->upper = fmax(up, 0.0);
  out->lower = fmin(fmax(lo, 0.0), out->upper);
  return PLD_SUCCESS;
}

struct idx_eps {
  double eps;
  size_t i;
};

static int cmp_desc(const void *x, const void *y)
{
  double a = ((const struct idx_eps *)x)->eps, b = ((const struct idx_eps *)y)->eps;
  return (a < b) - (a > b);
}

/* delta at sorted-descending epsilons in one sweep down the pmf. */
static void sweep(const struct pld_pmf *p, double grid,
                  const struct idx_eps *e, size_t n, double *vals, int sgn)
{
  size_t k = p->n; /* atoms with index >= k have been added */
  double S = 0.0, W = 0.0, eg = exp(-grid);
  for (size_t q = 0; q < n; q++) {
    double eps = e[q].eps;
    if (eps == INFINITY) {
      vals[q] = p->inf;
      continue;
    }
    while (k > 0 && loss_at(p, k - 1, grid, sgn) > eps) {
      k--;
      W = p->m[k] + eg * W;
      S += p->m[k];
    }
    if (k == p->n) {
      vals[q] = p->inf;
      continue;
    }
    double lk = loss_at(p, k, grid, sgn);
    vals[q] = p->inf + fmax(S - exp(eps - lk) * W, 0.0);
  }
}

int pld_dist_curve(const pld_dist *d, size_t n, const double *eps,
                   pld_bound *out)
{
  if (!d || !eps || !out || n == 0)
    return PLD_EINVAL;
  for (size_t i = 0; i < n; i++)
    if (isnan(eps[i]) || eps[i] < 0.0)
      return PLD_EINVAL;
  struct idx_eps *e = pld_malloc(n * sizeof *e);
  double *v = pld_malloc(n * sizeof(double));
  double *hi = pld_malloc(n * sizeof(double));
  double *lo = pld_malloc(n * sizeof(double));
  if (!e || !v || !hi || !lo) {
    pld_free(e);
    pld_free(v);
    pld_free(hi);
    pld_free(lo);
    return PLD_ENOMEM;
  }
  for (size_t i = 0; i < n; i++) {
    e[i].eps = eps[i];
    e[i].i = i;
    hi[i] = 0.0;
    lo[i] = 0.0;
  }
  qsort(e, n, sizeof *e, cmp_desc);
  for (int dir = 0; dir < ndir_of(d); dir++) {
    const struct pld_pmf *pp = &d->p[dir][PLD_PESSIMISTIC];
    const struct pld_pmf *po = &d->p[dir][PLD_OPTIMISTIC];
    sweep(pp, d->delta, e, n, v, +1);
    for (size_t q = 0; q < n; q++)
      hi[e[q].i] = fmax(hi[e[q].i], e[q].eps == INFINITY ? upper_inf(pp)
                                                          : upper_of(pp, v[q]));
    sweep(po, d->delta, e, n, v, -1);
    for (size_t q = 0; q < n; q++) {
      double l = e[q].eps == INFINITY
                     ? po->inf / (1.0 + po->rel) * (1.0 - 4.0 * U_)
                     : lower_of(po, v[q]);
      if (l > lo[e[q].i]) /* a NaN proves nothing */
        lo[e[q].i] = l;
    }
  }
  for (size_t i = 0; i < n; i++) {
    out[i].upper = hi[i];
    out[i].lower = fmin(lo[i], hi[i]);
  }
  pld_free(e);
  pld_free(v);
  pld_free(hi);
  pld_free(lo);
  return PLD_SUCCESS;
}
