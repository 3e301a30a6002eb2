/* pldkit: Gaussian-mixture pairs with per-component standard deviations
 * (PLD mechanism), e.g. the exact random-selection pair of the mean-
 * estimation case study ("DP model merging", Sec. 4.1):
 *   P = pi N(0, s1^2) + (1-pi) N(0, s2^2),  Q = pi N(D, s1^2) + (1-pi) N(D, s2^2).
 *
 * Kind.  mg_type: its parameters as one array (struct pld_mech_arr, copied,
 * compared and freed by the shared entries of pld/mech.c).  arr layout: [np, nq, then np
 * triples (mean, sd, log weight) of P, then nq triples of Q].
 *
 * Curve.  With unequal variances log f - log g - eps is not an exponential
 * sum, so the exact-root isolation of pld/mech_mixture.c does not apply.
 * The sign changes of h(x) = log f(x) - log g(x) - eps are located on a
 * scan of step min_sd / 16 (growing linearly with the distance beyond 8
 * max_sd outside the means) over [min mean - R, max mean + R], R = 15 max_sd
 * + max_sd (max_sd/min_sd) sqrt(2 (|eps| + |log w_min| + 50)) (beyond R the
 * widest components dominate both densities and h keeps one sign -- a
 * heuristic bound, not a proof), each refined by bisection to 1e-13
 * relative; the masses of f and g on the intervals where h > 0 are exact
 * sums of Gaussian CDF differences in log space.  Two crossings closer than
 * the scan step would be missed; the hockey-stick integral over such a
 * sliver is at most (step) max |f - e^eps g| there.  That is NOT bounded
 * rigorously here: curve.rel_err is set to a documented safety margin of
 * 1e-8 (instead of the built-ins' 1e-10..1e-11), which also covers the
 * cancellation in p_gt - eq_gt at the accuracy pldkit's queries use. */
#include <float.h>
#include <math.h>
#include <string.h>

#include <pldkit/mech.h>

#include "alloc.h"
#include "internal.h"
#include "numerics.h"
#include "detail.h"

static const struct pld_mech_type mg_type = {
    .name = "mixture-general",
    .copy = pld_mech_arr_copy,
    .equal = pld_mech_arr_equal,
    .free = pld_mech_arr_free};
#define MG_MAX 64

typedef struct mside {
  size_t n;
  const double *t; /* triples (mean, sd, log w) */
} mside;

static double mlog(const mside *S, double x)
{
  double mx = -INFINITY, v[MG_MAX];
  for (size_t k = 0; k < S->n; k++) {
    const double *c = S->t + 3 * k;
    double z = (x - c[0]) / c[1];
    v[k] = c[2] - log(c[1]) - PLD_LOG_SQRT_2PI - 0.5 * z * z;
    if (v[k] > mx) mx = v[k];
  }
  if (mx == -INFINITY) return mx;
  double s = 0.0;
  for (size_t k = 0; k < S->n; k++) s += exp(v[k] - mx);
  return mx + log(s);
}

/* log of the mass of N(m, s^2) on (l, r), l < r (either may be infinite). */
static double log_mass(double l, double r, double m, double s)
{
  double a = (l - m) / s, b = (r - m) / s;
  if (a >= 0.0) /* upper region: Phi(-a) - Phi(-b) */
    return pld_logsubexp(pld_log_ndtr(-a), b == INFINITY ? -INFINITY
                                                          : pld_log_ndtr(-b));
  if (b <= 0.0)
    return pld_logsubexp(b == INFINITY ? 0.0 : pld_log_ndtr(b),
                         a == -INFINITY ? -INFINITY : pld_log_ndtr(a));
  /* straddles 0: 1 - Phi(a) - Phi(-b) */
  double la = a == -INFINITY ? -INFINITY : pld_log_ndtr(a);
  double lb = b == INFINITY ? -INFINITY : pld_log_ndtr(-b);
  return log1p(-(exp(la) + exp(lb)));
}

typedef struct hctx {
  const mside *F, *G;
  double eps;
} hctx;

static double hfun(double x, void *vp)
{
  const hctx *c = vp;
  return mlog(c->F, x) - mlog(c->G, x) - c->eps;
}

static void sides_of(const struct pld_mech *m, int dir, mside *F, mside *G)
{
  const double *arr = pld_mech_arr(m);
  size_t np = (size_t)arr[0], nq = (size_t)arr[1];
  mside P = {np, arr + 2}, Q = {nq, arr + 2 + 3 * np};
  *F = dir == PLD_DIR_PQ ? P : Q;
  *G = dir == PLD_DIR_PQ ? Q : P;
}

static int mg_tails1(const mside *F, const mside *G, double eps, double *p_gt,
                     double *eq_gt)
{
  if (eps == INFINITY) { /* Gaussians have full support: no mass at +inf */
    *p_gt = 0.0;
    *eq_gt = 0.0;
    return 0;
  }
  double mlo = INFINITY, mhi = -INFINITY, smin = INFINITY, smax = 0.0,
         lwmin = 0.0;
  const mside *S[2] = {F, G};
  for (int s = 0; s < 2; s++)
    for (size_t k = 0; k < S[s]->n; k++) {
      const double *c = S[s]->t + 3 * k;
      mlo = fmin(mlo, c[0]);
      mhi = fmax(mhi, c[0]);
      smin = fmin(smin, c[1]);
      smax = fmax(smax, c[1]);
      lwmin = fmin(lwmin, c[2]);
    }
  double R = 15.0 * smax +
             smax * (smax / smin) * sqrt(2.0 * (fabs(eps) + fabs(lwmin) + 50.0));
  double lo = mlo - R, hi = mhi + R, step = smin / 16.0;
  double mid = 0.5 * (mlo + mhi), half = 0.5 * (mhi - mlo) + 8.0 * smax;
  hctx hc = {F, G, eps};
  /* walk the scan, summing masses on the positive intervals; the step
   * grows linearly outside [mid - half, mid + half] (far out the widest
   * components dominate and h is nearly quadratic) */
  double lp = -INFINITY, lq = -INFINITY;
  double x0 = lo, h0 = hfun(lo, &hc);
  double start = h0 > 0.0 ? -INFINITY : NAN; /* left end of current + run */
  size_t iters = 0;
  for (int last = 0; !last;) {
    if (++iters > 100000000) return PLD_ECALLBACK;
    double d = fabs(x0 - mid) - half;
    double x1 = x0 + step * (1.0 + (d > 0.0 ? d / (8.0 * smax) : 0.0));
    if (x0 >= hi) {
      last = 1;
      x1 = INFINITY;
    }
    double h1 = last ? h0 : hfun(x1, &hc); /* beyond: same sign */
    double cross = NAN;
    if (!last && ((h0 > 0.0) != (h1 > 0.0))) {
      double a, b;
      if (pld_root_bracket(hfun, &hc, x0, x1, 1e-13 * fmax(1.0, fabs(x0)),
                           200, &a, &b))
        cross = 0.5 * (x0 + x1);
      else
        cross = 0.5 * (a + b);
    }
    if (!isnan(cross) && h1 > 0.0) start = cross;
    double end = NAN;
    if (!isnan(cross) && h0 > 0.0) end = cross;
    if (last && h0 > 0.0) end = INFINITY;
    if (!isnan(end) && !isnan(start)) {
      for (size_t k = 0; k < F->n; k++) {
        const double *c = F->t + 3 * k;
        lp = pld_logaddexp(lp, c[2] + log_mass(start, end, c[0], c[1]));
      }
      for (size_t k = 0; k < G->n; k++) {
        const double *c = G->t + 3 * k;
        lq = pld_logaddexp(lq, c[2] + log_mass(start, end, c[0], c[1]));
      }
      start = NAN;
    }
    x0 = x1;
    h0 = h1;
  }
  *p_gt = fmin(exp(lp), 1.0);
  *eq_gt = exp(fmin(eps + lq, 700.0));
  return 0;
}

static int mg_tails_cb(void *ctx, int dir, size_t n, const double *eps,
                       double *p_gt, double *eq_gt)
{
  mside F, G;
  sides_of(ctx, dir, &F, &G);
  for (size_t i = 0; i < n; i++)
    if (mg_tails1(&F, &G, eps[i], &p_gt[i], &eq_gt[i])) return PLD_ECALLBACK;
  return 0;
}

static int mg_curve_cb(void *ctx, int dir, size_t n, const double *eps,
                       double *delta)
{
  mside F, G;
  sides_of(ctx, dir, &F, &G);
  for (size_t i = 0; i < n; i++) {
    double p, eq;
    if (mg_tails1(&F, &G, eps[i], &p, &eq)) return PLD_ECALLBACK;
    double v = p - eq;
    delta[i] = v < 0.0 ? 0.0 : (v > 1.0 ? 1.0 : v);
  }
  return 0;
}

static int check_mix(size_t n, const double *w, const double *m,
                     const double *s)
{
  if (n < 1 || !w || !m || !s)
    return !pld_fail(PLD_EINVAL, "a mixture side has %zu components or a NULL array", n);
  if (!pld_is_simplex(w, n, PLD_PROB_SUM_TOL, "weight"))
    return 0;
  for (size_t k = 0; k < n; k++) {
    if (!isfinite(s[k]) || !(s[k] > 0.0))
      return !pld_fail(PLD_EINVAL, "sigma[%zu] = %g must be finite and > 0", k, s[k]);
    if (!isfinite(m[k]) || fabs(m[k] / s[k]) > 1e6)
      return !pld_fail(PLD_EINVAL, "mean[%zu] = %g: |mean|/sigma must be <= 1e6", k, m[k]);
  }
  return 1;
}

int pld_mech_mixture_gaussian_general(size_t np, const double *pw,
                                      const double *pm, const double *ps,
                                      size_t nq, const double *qw,
                                      const double *qm, const double *qs,
                                      pld_mech **out)
{
  pld_detail_clear();
  if (!out)
    return pld_fail(PLD_EINVAL, "out is NULL");
  if (np + nq > MG_MAX)
    return pld_fail(PLD_EINVAL, "%zu + %zu components exceed the cap of %d", np, nq, MG_MAX);
  /* check_mix records which component failed; the fallback names the side */
  if (!check_mix(np, pw, pm, ps))
    return pld_fail_if_silent(PLD_EINVAL,
                              "the P mixture (np = %zu components) is invalid",
                              np);
  if (!check_mix(nq, qw, qm, qs))
    return pld_fail_if_silent(PLD_EINVAL,
                              "the Q mixture (nq = %zu components) is invalid",
                              nq);
  /* Components of weight 0 are dropped: they add nothing, and log 0 = -inf
   * would meet -inf - (-inf) = NaN in the log-space sums. */
  size_t kp = 0, kq = 0;
  for (size_t i = 0; i < np; i++)
    kp += pw[i] > 0.0;
  for (size_t i = 0; i < nq; i++)
    kq += qw[i] > 0.0;
  struct pld_mech *m = pld_mech_new(&mg_type);
  if (!m) return PLD_ENOMEM;
  double *arr = pld_mech_arr_init(m, 2 + 3 * (kp + kq));
  if (!arr) {
    pld_mech_free(m);
    return PLD_ENOMEM;
  }
  arr[0] = (double)kp;
  arr[1] = (double)kq;
  double lo = INFINITY, hi = -INFINITY, smin = INFINITY, smax = 0.0;
  size_t j = 0;
  for (size_t i = 0; i < np + nq; i++) {
    const double *w = i < np ? pw : qw, *mu = i < np ? pm : qm,
                 *sd = i < np ? ps : qs;
    size_t k = i < np ? i : i - np;
    if (!(w[k] > 0.0))
      continue;
    arr[2 + 3 * j] = mu[k];
    arr[3 + 3 * j] = sd[k];
    arr[4 + 3 * j] = log(w[k]);
    j++;
    lo = fmin(lo, mu[k]);
    hi = fmax(hi, mu[k]);
    smin = fmin(smin, sd[k]);
    smax = fmax(smax, sd[k]);
  }
  m->curve.delta = mg_curve_cb;
  m->curve.tails = mg_tails_cb;
  m->curve.rel_err = 1e-8; /* safety margin, see the file comment */
  m->curve.symmetric = 0;
  double spread = (hi - lo) / smin + log(smax / smin);
  m->curve.loss_scale = fmax(spread * (1.0 + 0.5 * spread), 1e-6);
  *out = m;
  return PLD_SUCCESS;
}
