/* pldkit: Gaussian mixture pairs, sampling without replacement, and random
 * selection among mechanisms -- all through the curve door.
 *
 * Mixture pair.  With a common sigma (work in units of sigma), for
 * F = sum a_i N(m_i, 1) and G = sum b_j N(n_j, 1),
 *     f(y) - x g(y) = phi(y) E(y),  E(y) = sum_k w_k e^{lambda_k y},
 * over the distinct means lambda_k, w_k = sum_{m_i = lambda_k} a_i e^{-m_i^2/2}
 * - x sum_{n_j = lambda_k} b_j e^{-n_j^2/2}.  The loss log(f/g) need not be
 * monotone in y, so the set {f > x g} can be any union of intervals.  Its
 * end points are the real zeros of the exponential sum E, isolated exactly by
 * Rolle's theorem: E e^{-lambda_1 y} has derivative sum_{k>=2} w_k (lambda_k -
 * lambda_1) e^{(lambda_k - lambda_1) y}, an exponential sum with one term
 * fewer, whose zeros (found recursively) cut the line into pieces on which E
 * has at most one zero; the outer pieces end where one term dominates the
 * others.  Every zero is then bracketed and bisected to machine precision.
 * Where the pair allows it (at most MIX_MAX_TERMS distinct sums of means),
 * the pieces come instead from the critical points of the loss, which do
 * not depend on eps and are isolated once per mechanism the same way
 * (mixture_crit): sign E = sign(L - eps) and L is strictly monotone
 * between them, so each piece again holds at most one zero.
 * A monotone loss (no critical points: the merging paper's LC surrogate,
 * every subsampled Gaussian) has at most one zero, which a batch of
 * ascending grid points finds from the two before it (mono_zero), and its
 * masses are those of a half-line, summed in linear space with erfc
 * (mixture_mass_linear); this halved the cost of a merge's builds.
 * Everything else is in log space: e^{-m^2/2} underflows for |m| > 38.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "internal.h"
#include "numerics.h"
#include "detail.h"

/* at most this many components in P and Q together; the root isolation
 * recurses once per distinct mean with ~1.3 KB of stack per level */
#define MIX_MAX_TERMS 64

/* An exponential sum: sign[k] * exp(la[k] + lambda[k] * y). */
struct esum {
  size_t K;
  double lam[MIX_MAX_TERMS], la[MIX_MAX_TERMS];
  int sg[MIX_MAX_TERMS];
};

/* log of the positive and of the negative part of the sum at y: one pass
 * for the maxima, then one exp per term and one log per part (this is the
 * innermost loop of the root isolation). */
static void esum_parts(const struct esum *e, double y, double *lp, double *ln)
{
  double mp = -INFINITY, mn = -INFINITY;
  for (size_t k = 0; k < e->K; k++) {
    double t = e->la[k] + e->lam[k] * y;
    if (e->sg[k] > 0)
      mp = t > mp ? t : mp;
    else
      mn = t > mn ? t : mn;
  }
  double sp = 0.0, sn = 0.0;
  for (size_t k = 0; k < e->K; k++) {
    double t = e->la[k] + e->lam[k] * y;
    if (e->sg[k] > 0)
      sp += exp(t - mp);
    else
      sn += exp(t - mn);
  }
  *lp = mp == -INFINITY ? -INFINITY : mp + log(sp);
  *ln = mn == -INFINITY ? -INFINITY : mn + log(sn);
}

/* sign of the sum at y (0 if it vanishes to rounding) */
static int esum_sign(const struct esum *e, double y)
{
  double lp, ln;
  esum_parts(e, y, &lp, &ln);
  if (lp == ln)
    return 0;
  return lp > ln ? 1 : -1;
}

/* log of the positive part minus log of the negative part at y */
static double esum_logdiff(double y, void *ctx)
{
  double lp, ln;
  esum_parts(ctx, y, &lp, &ln);
  if (lp == ln)
    return 0.0;
  return lp - ln;
}

/* esum_logdiff and its derivative at y: d/dy log(sum_k c_k e^{lambda_k y})
 * over one part is that part's weighted mean of lambda_k, so the same
 * exponentials give both (used by the Newton steps of esum_root). */
static double esum_logdiff_d(const struct esum *e, double y, double *deriv)
{
  double mp = -INFINITY, mn = -INFINITY;
  for (size_t k = 0; k < e->K; k++) {
    double t = e->la[k] + e->lam[k] * y;
    if (e->sg[k] > 0)
      mp = t > mp ? t : mp;
    else
      mn = t > mn ? t : mn;
  }
  double sp = 0.0, sn = 0.0, dp = 0.0, dn = 0.0;
  for (size_t k = 0; k < e->K; k++) {
    double t = e->la[k] + e->lam[k] * y;
    if (e->sg[k] > 0) {
      double w = exp(t - mp);
      sp += w;
      dp += w * e->lam[k];
    } else {
      double w = exp(t - mn);
      sn += w;
      dn += w * e->lam[k];
    }
  }
  double lp = mp == -INFINITY ? -INFINITY : mp + log(sp);
  double ln = mn == -INFINITY ? -INFINITY : mn + log(sn);
  *deriv = (sp > 0.0 ? dp / sp : 0.0) - (sn > 0.0 ? dn / sn : 0.0);
  if (lp == ln)
    return 0.0;
  return lp - ln;
}

/* The zero of esum_logdiff in (a, b), fa = its value at a and fb at b of
 * opposite signs, to a bracket [*lo, *hi] of width <= xtol on which the
 * sign changes -- the contract of pld_root_bracket, so the caller's use of
 * the bracket is unchanged.  Newton steps (the derivative costs one
 * multiply-add per term, esum_logdiff_d) kept inside the sign-changing
 * bracket, with bisection when a step leaves it or is more than half the
 * step before (rtsafe's safeguard); once a step is below xtol / 2 a probe at that
 * distance on the far side closes the bracket.  The bracket is kept by
 * sign evaluations only, so the answer is as certain as bisection's; the
 * derivative only chooses where to look.  (pld_root_bracket from the
 * outer bounds took about 22 evaluations per zero on the LC surrogate's
 * pairs; this takes about 6.)  Returns 0, or 1 on NaN / no convergence
 * (the caller then bisects). */
static int esum_root(const struct esum *e, double a, double b, double fa,
                     double fb, double xtol, double x0, double *lo_out,
                     double *hi_out)
{
  double lo = a, hi = b, flo = fa, fhi = fb;
  if (isnan(flo) || isnan(fhi) || (flo > 0.0) == (fhi > 0.0))
    return 1;
  /* start from x0 if it is inside (the zero of the previous, nearby eps of
   * a batch), else from the secant point of the bracket; the start only
   * chooses where to look */
  double x = (x0 > lo && x0 < hi) ? x0 : (lo * fhi - hi * flo) / (fhi - flo);
  if (!(x > lo && x < hi))
    x = 0.5 * (lo + hi);
  double dxold = hi - lo, dx = dxold;
  for (int it = 0; it < 200; it++) {
    if (hi - lo <= xtol) {
      *lo_out = lo;
      *hi_out = hi;
      return 0;
    }
    double d, fx = esum_logdiff_d(e, x, &d);
    if (isnan(fx))
      return 1;
    if (fx == 0.0) {
      *lo_out = *hi_out = x;
      return 0;
    }
    if ((fx > 0.0) == (flo > 0.0)) {
      lo = x;
      flo = fx;
    } else {
      hi = x;
      fhi = fx;
    }
    double xn = (d != 0.0 && isfinite(d)) ? x - fx / d : NAN;
    if (xn == xn && fabs(xn - x) < 0.5 * xtol) {
      /* Newton has converged at x (to rounding): probe the far side at
       * xtol / 2, which closes the bracket if the zero is there */
      xn = x + (xn > x ? 0.5 * xtol : -0.5 * xtol);
      dxold = dx;
      dx = xn - x;
    } else if (!(xn > lo && xn < hi) || fabs(xn - x) > 0.5 * fabs(dxold)) {
      /* bisect when the Newton point leaves the bracket or the steps do
       * not shrink geometrically (the safeguard of rtsafe, Numerical
       * Recipes 9.4) */
      xn = 0.5 * (lo + hi);
      dxold = dx;
      dx = 0.5 * (hi - lo);
    } else {
      dxold = dx;
      dx = xn - x;
    }
    if (!(xn > lo && xn < hi))
      xn = 0.5 * (lo + hi);
    x = xn;
  }
  *lo_out = lo;
  *hi_out = hi;
  return hi - lo <= xtol ? 0 : 1;
}

/* Bounds outside which the first (resp. last) term dominates the sum, so
 * every zero lies in [*ylo, *yhi]. */
static void esum_bounds(const struct esum *e, double *ylo, double *yhi)
{
  double K1 = log((double)(e->K - 1));
  double lo = INFINITY, hi = -INFINITY;
  for (size_t k = 1; k < e->K; k++) {
    /* |w_0| e^{l_0 y} > (K-1) |w_k| e^{l_k y} for y below this */
    double y0 = (e->la[0] - e->la[k] - K1) / (e->lam[k] - e->lam[0]);
    lo = fmin(lo, y0);
  }
  for (size_t k = 0; k + 1 < e->K; k++) {
    size_t L = e->K - 1;
    double y1 = (e->la[k] - e->la[L] + K1) / (e->lam[L] - e->lam[k]);
    hi = fmax(hi, y1);
  }
  *ylo = lo - 1.0;
  *yhi = hi + 1.0;
}

/* the cut points of a root isolation and the sign of the sum at each */
struct cutsigns {
  size_t n;
  double y[MIX_MAX_TERMS + 2];
  int sg[MIX_MAX_TERMS + 2];
};

static void esum_zeros_cut(const struct esum *e, double ylo, double yhi,
                           const double *dz, size_t ndz, const double *hint,
                           size_t nhint, double *z, size_t *nz,
                           struct cutsigns *cs);

/* Zeros of an exponential sum with distinct increasing exponents, sorted,
 * appended to z (at most K - 1 of them). */
static void esum_zeros(const struct esum *e, double *z, size_t *nz)
{
  *nz = 0;
  if (e->K < 2)
    return;
  int allsame = 1;
  for (size_t k = 1; k < e->K; k++)
    if (e->sg[k] != e->sg[0])
      allsame = 0;
  if (allsame)
    return;
  double ylo, yhi;
  esum_bounds(e, &ylo, &yhi);
  /* derivative of E e^{-lambda_0 y}: terms 1..K-1, scaled by (lambda_k -
   * lambda_0) > 0, exponents shifted by -lambda_0 */
  struct esum d;
  double dz[MIX_MAX_TERMS];
  size_t ndz = 0;
  d.K = e->K - 1;
  for (size_t k = 1; k < e->K; k++) {
    d.lam[k - 1] = e->lam[k] - e->lam[0];
    d.la[k - 1] = e->la[k] + log(e->lam[k] - e->lam[0]);
    d.sg[k - 1] = e->sg[k];
  }
  esum_zeros(&d, dz, &ndz);
  esum_zeros_cut(e, ylo, yhi, dz, ndz, NULL, 0, z, nz, NULL);
}

/* The zeros of e on [ylo, yhi] (outside which it has none, esum_bounds),
 * given sorted cut points (some may lie outside) between consecutive ones
 * of which e changes sign at most once. */
static void esum_zeros_cut(const struct esum *e, double ylo, double yhi,
                           const double *dz, size_t ndz, const double *hint,
                           size_t nhint, double *z, size_t *nz,
                           struct cutsigns *cs)
{
  double cuts[MIX_MAX_TERMS + 2];
  size_t nc = 0;
  cuts[nc++] = ylo;
  for (size_t i = 0; i < ndz; i++)
    if (dz[i] > ylo && dz[i] < yhi)
      cuts[nc++] = dz[i];
  cuts[nc++] = yhi;
  /* the value at each cut, computed once (a cut ends one piece and starts
   * the next); its sign is esum_sign's */
  double fb = esum_logdiff(cuts[0], (void *)e);
  if (cs) {
    cs->n = nc;
    cs->y[0] = cuts[0];
    cs->sg[0] = fb > 0.0 ? 1 : fb == 0.0 ? 0 : -1;
  }
  for (size_t i = 0; i + 1 < nc; i++) {
    double a = cuts[i], b = cuts[i + 1];
    double fa = fb;
    fb = esum_logdiff(b, (void *)e);
    int sa = fa > 0.0 ? 1 : fa == 0.0 ? 0 : -1; /* NaN -1, as esum_sign */
    int sb = fb > 0.0 ? 1 : fb == 0.0 ? 0 : -1;
    if (cs) {
      cs->y[i + 1] = b;
      cs->sg[i + 1] = sb;
    }
    if (sa == 0) {
      if (*nz == 0 || z[*nz - 1] != a)
        z[(*nz)++] = a;
      continue;
    }
    if (sb == 0 || sa == sb)
      continue;
    /* log(positive part) - log(negative part) is continuous and monotone on
     * the piece: safeguarded Newton (esum_root) converges in a few steps to
     * a bracket of a few ulps (pure bisection needs about 60). */
    double lo_, hi_, x0 = NAN;
    for (size_t h = 0; h < nhint; h++)
      if (hint[h] > a && hint[h] < b) {
        x0 = hint[h];
        break;
      }
    if (esum_root(e, a, b, fa, fb,
                  4.0 * PLD_U * fmax(fabs(a), fabs(b)) + 1e-300, x0, &lo_,
                  &hi_) == 0) {
      a = lo_;
      b = hi_;
    } else {
      /* not pld_bisect: a sign with an exact zero that collapses the bracket */
      for (int it = 0; it < 200 && b - a > 4.0 * PLD_U * fmax(fabs(a), fabs(b)); it++) {
        double mid = 0.5 * (a + b);
        int sm = esum_sign(e, mid);
        if (sm == 0) {
          a = b = mid;
          break;
        }
        if (sm == sa)
          a = mid;
        else
          b = mid;
      }
    }
    z[(*nz)++] = 0.5 * (a + b);
  }
}

/* The zeros of E, given the critical points crit[0..ncrit) of the loss
 * L = log(A / B) (mixture_crit): sign E = sign(L - eps), L is strictly
 * monotone between consecutive critical points, so each piece between
 * them holds at most one zero -- the role the derivative's zeros play in
 * esum_zeros, found there anew for every eps by recursion (K - 1 levels),
 * here once per mechanism. */
static void esum_zeros_crit(const struct esum *e, const double *crit,
                            size_t ncrit, const double *hint, size_t nhint,
                            double *z, size_t *nz, struct cutsigns *cs)
{
  *nz = 0;
  cs->n = 0;
  if (e->K < 2)
    return;
  int allsame = 1;
  for (size_t k = 1; k < e->K; k++)
    if (e->sg[k] != e->sg[0])
      allsame = 0;
  if (allsame)
    return;
  double ylo, yhi;
  esum_bounds(e, &ylo, &yhi);
  esum_zeros_cut(e, ylo, yhi, crit, ncrit, hint, nhint, z, nz, cs);
}

/* log of the N(m, 1) mass of (l, r), accurate in both tails */
static double log_mass(double l, double r, double m)
{
  double a = l - m, b = r - m;
  if (a == -INFINITY && b == INFINITY)
    return 0.0;
  if (a >= 0.0) /* both in the upper tail: difference of upper tails */
    return pld_logsubexp(pld_log_ndtr(-a), b == INFINITY ? -INFINITY
                                                          : pld_log_ndtr(-b));
  if (b <= 0.0)
    return pld_logsubexp(pld_log_ndtr(b), a == -INFINITY ? -INFINITY
                                                          : pld_log_ndtr(a));
  /* straddles the mean: 1 - lower tail - upper tail */
  double t = (a == -INFINITY ? 0.0 : exp(pld_log_ndtr(a))) +
             (b == INFINITY ? 0.0 : exp(pld_log_ndtr(-b)));
  return log1p(-t);
}

/* P[L > eps] and e^eps Q[L > eps] for the direction (first = F, second = G),
 * arrays: means (in sigma units) and log weights. */
struct side {
  size_t n;
  const double *mean, *lw;
};

/* The critical points of the loss of a pair, where it has them in closed
 * form (mixture_crit); ncrit = SIZE_MAX: not available (esum_zeros then
 * finds the pieces for every eps by recursion). */
/* The exponential sum with exponents lam[0..K) and coefficients
 * e^lpos[k] - e^lneg[k], sorted by exponent, vanishing coefficients
 * dropped (the form esum_zeros and esum_sign take). */
static void esum_collect(const double *lam, const double *lpos,
                         const double *lneg, size_t K, struct esum *out)
{
  size_t idx[MIX_MAX_TERMS];
  for (size_t k = 0; k < K; k++)
    idx[k] = k;
  for (size_t i = 1; i < K; i++)
    for (size_t j = i; j > 0 && lam[idx[j]] < lam[idx[j - 1]]; j--) {
      size_t t = idx[j];
      idx[j] = idx[j - 1];
      idx[j - 1] = t;
    }
  out->K = 0;
  for (size_t i = 0; i < K; i++) {
    size_t k = idx[i];
    if (lpos[k] == lneg[k])
      continue;
    out->lam[out->K] = lam[k];
    int pos = lpos[k] > lneg[k];
    out->sg[out->K] = pos ? 1 : -1;
    out->la[out->K] = pos ? pld_logsubexp(lpos[k], lneg[k])
                          : pld_logsubexp(lneg[k], lpos[k]);
    out->K++;
  }
}

struct crit {
  size_t ncrit;
  const double *c;
  /* the zeros of the previous eps of the batch: Newton's starting points */
  size_t nhint;
  double hint[MIX_MAX_TERMS];
  /* a monotone loss (ncrit = 0): the last two (eps, zero) pairs of the
   * batch, for a linear extrapolation of the next zero (mono_zero) */
  int nlast;
  double last_eps[2], last_z[2];
  /* the sides' weights e^lw (mixture_mass_linear) */
  double wf[MIX_MAX_TERMS], wg[MIX_MAX_TERMS];
};

/* The zero of an exponential sum whose sign changes exactly once (the loss
 * is strictly monotone, ncrit = 0: sign E = sign(L - eps)), from a start x0
 * near it: safeguarded Newton on esum_logdiff, a point recorded on each
 * side of the zero as it is evaluated, until the two sides are within xtol
 * (esum_root's bracket and tolerance; the sign evaluations alone decide
 * it, the derivative only chooses where to look).  The grid points of a
 * batch are close, so a start extrapolated from the two previous zeros is
 * within ~1e-6 of the zero: three evaluations (the start, Newton's point,
 * a probe xtol/2 across), where isolating it from esum_bounds' outer
 * interval took about six.  sneg is the sign of the sum left of the zero.
 * Returns 0 with [*lo, *hi] (or an exact zero, *lo = *hi), 1 when it did
 * not close in a few steps (the caller then isolates it from scratch). */
static int mono_zero(const struct esum *e, int sneg, double x0, double *lo_out,
                     double *hi_out)
{
  double lo = -INFINITY, hi = INFINITY, x = x0;
  for (int it = 0; it < 12; it++) {
    double d, fx = esum_logdiff_d(e, x, &d);
    if (isnan(fx) || !isfinite(x))
      return 1;
    if (fx == 0.0) {
      *lo_out = *hi_out = x;
      return 0;
    }
    if ((fx > 0.0 ? 1 : -1) == sneg)
      lo = x;
    else
      hi = x;
    double xtol = 4.0 * PLD_U * fmax(fabs(lo), fabs(hi)) + 1e-300;
    if (isfinite(lo) && isfinite(hi) && hi - lo <= xtol) {
      *lo_out = lo;
      *hi_out = hi;
      return 0;
    }
    double xn = (d != 0.0 && isfinite(d)) ? x - fx / d : NAN;
    double tol = 4.0 * PLD_U * fabs(x) + 1e-300;
    if (xn == xn && fabs(xn - x) < 0.5 * tol)
      /* converged at x to rounding: probe the far side at tol / 2 */
      xn = x + ((x == lo) ? 0.5 * tol : -0.5 * tol);
    if (!(xn > lo && xn < hi))
      xn = isfinite(lo) && isfinite(hi) ? 0.5 * (lo + hi) : NAN;
    if (!isfinite(xn))
      return 1;
    x = xn;
  }
  return 1;
}

/* P[L > eps] and e^eps Q[L > eps] of a monotone loss (at most one zero z
 * of the sum, whose sign left of it is that of its first term): the sides'
 * masses of a half-line, 0.5 erfc of the distance to each mean, summed in
 * linear space (erfc is accurate to a few ulps in both tails; the sums of
 * positive terms to K ulps, inside rel_err like log_mass's log-space sums).
 * Where a mass is below 1e-280 (a term may have underflowed) or e^eps could
 * overflow, returns 0 and the caller takes the log-space path. */
/* sum_j w_j N(m_j, 1)((-inf, z)) if left, else of (z, inf); the whole line
 * when there is no zero */
static double half_line_mass(const struct side *S, const double *w, int left,
                             const double *z, size_t nz)
{
  double s = 0.0;
  for (size_t j = 0; j < S->n; j++) {
    if (!(w[j] > 0.0))
      continue;
    double d = left ? S->mean[j] - z[0] : z[0] - S->mean[j];
    s += w[j] * (nz == 0 ? 1.0 : 0.5 * erfc(d * PLD_SQRT1_2));
  }
  return s;
}

static int mixture_mass_linear(const struct side *F, const struct side *G,
                               const struct crit *cr, const struct esum *s,
                               const double *z, size_t nz, double eps,
                               double *p_gt, double *eq_gt)
{
  if (!(eps < 600.0) || !(eps > -600.0))
    return 0;
  /* the positive part: (z, inf) if the sum is negative left of z, (-inf, z)
   * if positive; no zero: everywhere or nowhere */
  int left = s->sg[0] > 0;
  if (nz == 0 && !left)
    return 0; /* nowhere: both masses 0, the log path says so */
  double p = half_line_mass(F, cr->wf, left, z, nz);
  double q = half_line_mass(G, cr->wg, left, z, nz);
  if (!(p >= 1e-280) || !(q >= 1e-280))
    return 0;
  *p_gt = fmin(p, 1.0);
  *eq_gt = exp(eps) * q;
  return 1;
}

static void mixture_tails(const struct side *F, const struct side *G,
                          struct crit *cr, double eps, double *p_gt,
                          double *eq_gt)
{
  if (eps == INFINITY) {
    *p_gt = *eq_gt = 0.0;
    return;
  }
  struct esum e;
  /* merge equal means: collect the distinct means first */
  size_t K = 0;
  double lpos[MIX_MAX_TERMS], lneg[MIX_MAX_TERMS];
  for (size_t s = 0; s < 2; s++) {
    const struct side *S = s ? G : F;
    for (size_t i = 0; i < S->n; i++) {
      if (S->lw[i] == -INFINITY)
        continue;
      double m = S->mean[i], t = S->lw[i] - 0.5 * m * m + (s ? eps : 0.0);
      size_t k = 0;
      while (k < K && e.lam[k] != m)
        k++;
      if (k == K) {
        e.lam[K] = m;
        lpos[K] = lneg[K] = -INFINITY;
        K++;
      }
      if (s)
        lneg[k] = pld_logaddexp(lneg[k], t);
      else
        lpos[k] = pld_logaddexp(lpos[k], t);
    }
  }
  struct esum s;
  esum_collect(e.lam, lpos, lneg, K, &s);
  double z[MIX_MAX_TERMS];
  size_t nz = 0;
  struct cutsigns cs;
  cs.n = 0;
  int mono = cr && cr->ncrit == 0 && s.K > 0;
  if (mono && s.sg[0] == s.sg[s.K - 1]) {
    /* one sign everywhere: no zero (a point inside carries the sign) */
    cs.n = 1;
    cs.y[0] = 0.0;
    cs.sg[0] = s.sg[0];
  } else if (mono) {
    double x0 = cr->nlast ? cr->last_z[0] : 0.0;
    if (cr->nlast == 2 && cr->last_eps[0] != cr->last_eps[1])
      x0 += (eps - cr->last_eps[0]) * (cr->last_z[0] - cr->last_z[1]) /
            (cr->last_eps[0] - cr->last_eps[1]);
    double lo_, hi_;
    if (mono_zero(&s, s.sg[0], x0, &lo_, &hi_) == 0) {
      z[nz++] = 0.5 * (lo_ + hi_);
      /* one zero: the sign of the first term left of it, the other right */
      cs.n = 2;
      cs.y[0] = z[0] - 1.0;
      cs.sg[0] = s.sg[0];
      cs.y[1] = z[0] + 1.0;
      cs.sg[1] = -s.sg[0];
    } else {
      esum_zeros_crit(&s, cr->c, 0, NULL, 0, z, &nz, &cs);
    }
    if (nz == 1) {
      cr->last_eps[1] = cr->last_eps[0];
      cr->last_z[1] = cr->last_z[0];
      cr->last_eps[0] = eps;
      cr->last_z[0] = z[0];
      cr->nlast = cr->nlast < 2 ? cr->nlast + 1 : 2;
    }
    if (mixture_mass_linear(F, G, cr, &s, z, nz, eps, p_gt, eq_gt))
      return;
  } else if (cr && cr->ncrit != SIZE_MAX) {
    esum_zeros_crit(&s, cr->c, cr->ncrit, cr->hint, cr->nhint, z, &nz, &cs);
    memcpy(cr->hint, z, nz * sizeof(double));
    cr->nhint = nz;
  } else {
    esum_zeros(&s, z, &nz);
  }
  /* intervals between consecutive zeros where the sum is positive */
  double lp = -INFINITY, lq = -INFINITY;
  for (size_t i = 0; i <= nz; i++) {
    double l = i == 0 ? -INFINITY : z[i - 1];
    double r = i == nz ? INFINITY : z[i];
    double mid = (l == -INFINITY) ? (r == INFINITY ? 0.0 : r - 1.0)
                                  : (r == INFINITY ? l + 1.0 : 0.5 * (l + r));
    if (s.K == 0)
      continue;
    /* The sign on (l, r): that of the sum at a cut strictly inside, where
     * the isolation already computed it (the same evaluation esum_sign
     * makes; the sum has no zero in (l, r)), else at the midpoint. */
    int sgn = 2;
    for (size_t c = 0; c < cs.n; c++)
      if (cs.y[c] > l && cs.y[c] < r && cs.sg[c] != 0) {
        sgn = cs.sg[c];
        break;
      }
    if (sgn == 2)
      sgn = esum_sign(&s, mid);
    if (sgn <= 0)
      continue;
    for (size_t j = 0; j < F->n; j++)
      if (F->lw[j] > -INFINITY)
        lp = pld_logaddexp(lp, F->lw[j] + log_mass(l, r, F->mean[j]));
    for (size_t j = 0; j < G->n; j++)
      if (G->lw[j] > -INFINITY)
        lq = pld_logaddexp(lq, G->lw[j] + log_mass(l, r, G->mean[j]));
  }
  *p_gt = fmin(exp(lp), 1.0);
  *eq_gt = exp(fmin(eps + lq, 700.0));
}

/* The critical points of the loss L = log(A / B), A = sum_i a_i
 * e^{-m_i^2/2} e^{m_i y} and B likewise over Q (the densities over the
 * common phi(y)): L' = (A'B - AB') / (AB), and
 *     A'B - AB' = sum_{i,j} a_i b_j e^{-(m_i^2 + n_j^2)/2} (m_i - n_j)
 *                 e^{(m_i + n_j) y},
 * an exponential sum that does not depend on eps.  Its zeros (esum_zeros,
 * the same root isolation to a few ulps as for E itself) cut the line into
 * pieces on which L is strictly monotone.  Returns 1 if the sum has more
 * than MIX_MAX_TERMS distinct exponents (the caller then keeps the
 * per-eps recursion). */
static int mixture_crit(const struct side *P, const struct side *Q,
                        double *crit, size_t *ncrit)
{
  struct esum e;
  double lpos[MIX_MAX_TERMS], lneg[MIX_MAX_TERMS];
  size_t K = 0;
  for (size_t i = 0; i < P->n; i++) {
    if (P->lw[i] == -INFINITY)
      continue;
    for (size_t j = 0; j < Q->n; j++) {
      double m = P->mean[i], n = Q->mean[j];
      if (Q->lw[j] == -INFINITY || m == n)
        continue;
      double lam = m + n;
      double t = P->lw[i] - 0.5 * m * m + Q->lw[j] - 0.5 * n * n +
                 log(fabs(m - n));
      size_t k = 0;
      while (k < K && e.lam[k] != lam)
        k++;
      if (k == K) {
        if (K == MIX_MAX_TERMS)
          return 1;
        e.lam[K] = lam;
        lpos[K] = lneg[K] = -INFINITY;
        K++;
      }
      if (m > n)
        lpos[k] = pld_logaddexp(lpos[k], t);
      else
        lneg[k] = pld_logaddexp(lneg[k], t);
    }
  }
  struct esum d;
  esum_collect(e.lam, lpos, lneg, K, &d);
  for (size_t k = 0; k < d.K; k++)
    if (!isfinite(d.la[k]) || !isfinite(d.lam[k]))
      return 1;
  esum_zeros(&d, crit, ncrit);
  for (size_t k = 0; k < *ncrit; k++)
    if (!isfinite(crit[k]))
      return 1;
  return 0;
}

/* The kind: its parameters as one array (struct pld_mech_arr).
 * arr layout: [np, nq, p means (scaled), p log weights, q means, q log w,
 * sigma (for equality only), ncrit (-1: none), the loss's critical points
 * (mixture_crit)] */
static const struct pld_mech_type mixture_type = {
    .name = "mixture",
    .copy = pld_mech_arr_copy,
    .equal = pld_mech_arr_equal,
    .free = pld_mech_arr_free};

static void sides(const struct pld_mech *m, int dir, struct side *F,
                  struct side *G, struct crit *cr)
{
  const double *arr = pld_mech_arr(m);
  size_t np = (size_t)arr[0], nq = (size_t)arr[1];
  struct side P = {np, arr + 2, arr + 2 + np};
  struct side Q = {nq, arr + 2 + 2 * np, arr + 2 + 2 * np + nq};
  *F = dir == PLD_DIR_PQ ? P : Q;
  *G = dir == PLD_DIR_PQ ? Q : P;
  /* after sigma: the number of critical points (-1: none computed), then
   * the points, the same for both directions (L_QP = -L_PQ) */
  double nc = arr[2 + 2 * (np + nq) + 1];
  cr->ncrit = nc < 0.0 ? SIZE_MAX : (size_t)nc;
  cr->c = arr + 2 + 2 * (np + nq) + 2;
  cr->nhint = 0;
  cr->nlast = 0;
  for (size_t j = 0; j < F->n; j++)
    cr->wf[j] = exp(F->lw[j]);
  for (size_t j = 0; j < G->n; j++)
    cr->wg[j] = exp(G->lw[j]);
}

static int mixture_tails_cb(void *ctx, int dir, size_t n, const double *eps,
                            double *p_gt, double *eq_gt)
{
  struct side F, G;
  struct crit cr;
  sides(ctx, dir, &F, &G, &cr);
  for (size_t i = 0; i < n; i++)
    mixture_tails(&F, &G, &cr, eps[i], &p_gt[i], &eq_gt[i]);
  return 0;
}

static int mixture_curve_cb(void *ctx, int dir, size_t n, const double *eps,
                            double *delta)
{
  struct side F, G;
  struct crit cr;
  sides(ctx, dir, &F, &G, &cr);
  for (size_t i = 0; i < n; i++) {
    double p, eq;
    mixture_tails(&F, &G, &cr, eps[i], &p, &eq);
    double v = p - eq;
    delta[i] = v < 0.0 ? 0.0 : (v > 1.0 ? 1.0 : v);
  }
  return 0;
}

int pld_mech_mixture_gaussian(double sigma, size_t np, const double *p_weights,
                              const double *p_means, size_t nq,
                              const double *q_weights, const double *q_means,
                              pld_mech **out)
{
  pld_detail_clear();
  if (!out || !p_means || !p_weights || !q_means || !q_weights)
    return pld_fail(PLD_EINVAL, "an argument (out, means or weights) is NULL");
  if (!isfinite(sigma) || !(sigma > 0.0))
    return pld_fail(PLD_EINVAL, "sigma = %g must be finite and > 0", sigma);
  if (np < 1 || nq < 1 || np + nq > MIX_MAX_TERMS)
    return pld_fail(PLD_EINVAL, "%zu + %zu components: each side needs >= 1, at most %d in all",
                    np, nq, MIX_MAX_TERMS);
  if (!pld_is_simplex(p_weights, np, PLD_PROB_SUM_TOL, "p_weights") ||
      !pld_is_simplex(q_weights, nq, PLD_PROB_SUM_TOL, "q_weights"))
    return PLD_EINVAL;
  double lo = INFINITY, hi = -INFINITY;
  for (size_t i = 0; i < np + nq; i++) {
    double m = i < np ? p_means[i] : q_means[i - np];
    if (!isfinite(m) || !isfinite(m / sigma) || fabs(m / sigma) > 1e6)
      return pld_fail(PLD_EINVAL, "mean %g is %g sigma from 0; |mean|/sigma must be <= 1e6",
                      m, m / sigma);
    lo = fmin(lo, m / sigma);
    hi = fmax(hi, m / sigma);
  }
  double par[2 * MIX_MAX_TERMS], crit[MIX_MAX_TERMS];
  for (size_t i = 0; i < np; i++) {
    par[i] = p_means[i] / sigma;
    par[np + i] = log(p_weights[i]);
  }
  for (size_t j = 0; j < nq; j++) {
    par[2 * np + j] = q_means[j] / sigma;
    par[2 * np + nq + j] = log(q_weights[j]);
  }
  size_t ncrit = 0;
  {
    struct side P = {np, par, par + np};
    struct side Q = {nq, par + 2 * np, par + 2 * np + nq};
    if (mixture_crit(&P, &Q, crit, &ncrit))
      ncrit = SIZE_MAX;
  }
  struct pld_mech *m = pld_mech_new(&mixture_type);
  if (!m)
    return PLD_ENOMEM;
  size_t npar = 2 + 2 * (np + nq) + 1;
  size_t narr = npar + 1 + (ncrit == SIZE_MAX ? 0 : ncrit);
  double *arr = pld_mech_arr_init(m, narr);
  if (!arr) {
    pld_mech_free(m);
    return PLD_ENOMEM;
  }
  arr[0] = (double)np;
  arr[1] = (double)nq;
  memcpy(arr + 2, par, 2 * (np + nq) * sizeof(double));
  arr[npar - 1] = sigma; /* for equality only */
  arr[npar] = ncrit == SIZE_MAX ? -1.0 : (double)ncrit;
  if (ncrit != SIZE_MAX)
    memcpy(arr + npar + 1, crit, ncrit * sizeof(double));
  m->curve.delta = mixture_curve_cb;
  m->curve.tails = mixture_tails_cb;
  m->curve.rel_err = 1e-10;
  double spread = hi - lo;
  m->curve.loss_scale = fmax(spread * (1.0 + 0.5 * spread), 1e-6);
  *out = m;
  return PLD_SUCCESS;
}

/* ---- sampling without replacement, replace-one (see mech.h) ---- */

static int base_pq(const struct pld_mech *b, double e, double *d, double *p,
                   double *eq)
{
  if (b->curve.tails(b->curve.ctx, PLD_DIR_PQ, 1, &e, p, eq))
    return 1;
  if (d && b->curve.delta(b->curve.ctx, PLD_DIR_PQ, 1, &e, d))
    return 1;
  return 0;
}

/* The kind: the Poisson pair as the one child (struct pld_mech_kids),
 * gamma in par[0]. */
static const struct pld_mech_type wor_type = {
    .name = "wor",
    .copy = pld_mech_kids_copy,
    .equal = pld_mech_kids_equal,
    .free = pld_mech_kids_free};

static int wor_tails_cb(void *ctx, int dir, size_t n, const double *eps,
                        double *p_gt, double *eq_gt)
{
  int rc;
  const struct pld_mech *m = ctx;
  (void)dir;
  for (size_t i = 0; i < n; i++) {
    double e = eps[i], p, eq;
    if (e >= 0.0) { /* the Poisson pair's tails */
      if ((rc = base_pq(pld_mech_kids(m)->m[0], e, NULL, &p, &eq)))
        return rc;
      p_gt[i] = p;
      eq_gt[i] = eq;
    } else { /* mirrored through H_x = 1 - x + x H_{1/x} */
      if ((rc = base_pq(pld_mech_kids(m)->m[0], -e, NULL, &p, &eq)))
        return rc;
      double ex = exp(e);
      p_gt[i] = 1.0 - ex * eq; /* 1 - Q[L > -eps] */
      eq_gt[i] = ex * (1.0 - p);
    }
  }
  return 0;
}

static int wor_curve_cb(void *ctx, int dir, size_t n, const double *eps,
                        double *delta)
{
  int rc;
  const struct pld_mech *m = ctx;
  (void)dir;
  for (size_t i = 0; i < n; i++) {
    double e = eps[i], d, p, eq;
    if ((rc = base_pq(pld_mech_kids(m)->m[0], e >= 0.0 ? e : -e, &d, &p, &eq)))
      return rc;
    delta[i] = e >= 0.0 ? d : fmin(1.0, -expm1(e) + exp(e) * d);
  }
  return 0;
}

int pld_mech_wor_gaussian(uint64_t batch, uint64_t n, double sigma,
                          double sensitivity, pld_mech **out)
{
  pld_detail_clear();
  if (!out)
    return pld_fail(PLD_EINVAL, "out is NULL");
  if (batch < 1 || n < 1 || batch > n || n > ((uint64_t)1 << 53))
    return pld_fail(PLD_EINVAL, "batch = %llu, n = %llu: need 1 <= batch <= n <= 2^53",
                    (unsigned long long)batch, (unsigned long long)n);
  return pld_mech_wor_gaussian_rate((double)batch / (double)n, sigma,
                                    sensitivity, out);
}

int pld_mech_wor_gaussian_rate(double gamma, double sigma, double sensitivity,
                               pld_mech **out)
{
  pld_detail_clear();
  if (!out)
    return pld_fail(PLD_EINVAL, "out is NULL");
  if (!isfinite(gamma) || !(gamma > 0.0) || !(gamma <= 1.0))
    return pld_fail(PLD_EINVAL, "gamma = %g: need 0 < gamma <= 1", gamma);
  pld_mech *pois;
  int st = pld_mech_poisson_gaussian(gamma, sigma, sensitivity, &pois);
  if (st)
    return st;
  struct pld_mech *m = pld_mech_new(&wor_type);
  st = m ? pld_mech_kids_init(m, 1, 0) : PLD_ENOMEM;
  if (st) {
    pld_mech_free(pois);
    pld_mech_free(m);
    return st;
  }
  ((struct pld_mech_kids *)m->state)->m[0] = pois;
  m->par[0] = gamma;
  m->curve.delta = wor_curve_cb;
  m->curve.tails = wor_tails_cb;
  m->curve.symmetric = 1;
  m->curve.rel_err = 4.0 * pois->curve.rel_err;
  m->curve.loss_scale = pois->curve.loss_scale;
  *out = m;
  return PLD_SUCCESS;
}

/* ---- random selection among mechanisms ---- */

/* The kind: the members and their weights (struct pld_mech_kids). */

/* the choice is visible: the loss is the chosen member's */
static double select_pure_eps(const struct pld_mech *m)
{
  const struct pld_mech_kids *kids = pld_mech_kids(m);
  double e = 0.0;
  for (size_t i = 0; i < kids->n; i++) {
    double f = pld_mech_pure_eps(kids->m[i]);
    if (!(f <= e))
      e = f; /* also +inf */
  }
  return e;
}

static const struct pld_mech_type select_type = {
    .name = "select",
    .copy = pld_mech_kids_copy,
    .equal = pld_mech_kids_equal,
    .free = pld_mech_kids_free,
    .pure_eps = select_pure_eps};

static int select_curve_cb(void *ctx, int dir, size_t n, const double *eps,
                           double *delta)
{
  const struct pld_mech *m = ctx;
  double *tmp = pld_malloc((n ? n : 1) * sizeof(double));
  if (!tmp)
    return PLD_ENOMEM;
  for (size_t i = 0; i < n; i++)
    delta[i] = 0.0;
  const struct pld_mech_kids *kids = pld_mech_kids(m);
  for (size_t k = 0; k < kids->n; k++) {
    const pld_curve *c = &kids->m[k]->curve;
    int r = c->delta(c->ctx, dir, n, eps, tmp);
    if (r) {
      pld_free(tmp);
      return r;
    }
    for (size_t i = 0; i < n; i++)
      delta[i] += kids->w[k] * tmp[i];
  }
  pld_free(tmp);
  for (size_t i = 0; i < n; i++)
    delta[i] = fmin(delta[i], 1.0);
  return 0;
}

static int select_tails_cb(void *ctx, int dir, size_t n, const double *eps,
                           double *p_gt, double *eq_gt)
{
  const struct pld_mech *m = ctx;
  double *tp = pld_malloc((n ? n : 1) * 2 * sizeof(double));
  if (!tp)
    return PLD_ENOMEM;
  for (size_t i = 0; i < n; i++)
    p_gt[i] = eq_gt[i] = 0.0;
  const struct pld_mech_kids *kids = pld_mech_kids(m);
  for (size_t k = 0; k < kids->n; k++) {
    const pld_curve *c = &kids->m[k]->curve;
    int r = c->tails(c->ctx, dir, n, eps, tp, tp + n);
    if (r) {
      pld_free(tp);
      return r;
    }
    for (size_t i = 0; i < n; i++) {
      p_gt[i] += kids->w[k] * tp[i];
      eq_gt[i] += kids->w[k] * tp[n + i];
    }
  }
  pld_free(tp);
  for (size_t i = 0; i < n; i++)
    p_gt[i] = fmin(p_gt[i], 1.0);
  return 0;
}

int pld_mech_select(size_t n, const pld_mech *const *members,
                    const double *weights, pld_mech **out)
{
  pld_detail_clear();
  if (!out || !members || !weights)
    return pld_fail(PLD_EINVAL, "%s is NULL", !out ? "out" : !members ? "members" : "weights");
  if (n < 1 || n > 4096)
    return pld_fail(PLD_EINVAL, "n = %zu members must be in [1, 4096]", n);
  if (!pld_is_simplex(weights, n, PLD_WEIGHT_SUM_TOL, "weights"))
    return PLD_EINVAL;
  int nbr = 0;
  for (size_t i = 0; i < n; i++) {
    if (!members[i])
      return pld_fail(PLD_EINVAL, "members[%zu] is NULL", i);
    nbr += pld_mech_is_bracket(members[i]);
  }
  if (nbr) {
    /* A selection keeps domination member by member (the choice is
     * visible: the kernels act on the chosen member's output), so the
     * selection of the upper members dominates it and that of the lower
     * members is dominated (docs/design.md, "Bracketed mechanisms"). */
    const pld_mech **side = pld_malloc(n * sizeof *side);
    pld_mech *sm[2] = {NULL, NULL};
    int st = side ? PLD_SUCCESS : PLD_ENOMEM;
    for (int k = 0; k < 2 && !st; k++) {
      for (size_t i = 0; i < n; i++)
        side[i] = k == 0 ? pld_mech_upper(members[i])
                         : pld_mech_lower(members[i]);
      st = pld_mech_select(n, side, weights, &sm[k]);
    }
    if (!st)
      st = pld_mech_bracket(sm[0], sm[1], out);
    /* what the brackets booked on top of their members (e.g. a law's
     * arithmetic) stays booked, as a member's rel_err is below */
    double rel = 0.0;
    for (size_t i = 0; i < n; i++)
      rel = fmax(rel, members[i]->curve.rel_err);
    if (!st)
      (*out)->curve.rel_err =
          fmax((*out)->curve.rel_err, rel + 4.0 * (double)n * PLD_U);
    pld_free(side);
    pld_mech_free(sm[0]);
    pld_mech_free(sm[1]);
    return st;
  }
  struct pld_mech *m = pld_mech_new(&select_type);
  if (!m)
    return PLD_ENOMEM;
  int st = pld_mech_kids_init(m, n, 1);
  if (st) {
    pld_mech_free(m);
    return st;
  }
  struct pld_mech_kids *kids = m->state;
  memcpy(kids->w, weights, n * sizeof(double));
  int sym = 1, tails = 1;
  double scale = 0.0, rel = 0.0, lattice = -1.0;
  for (size_t i = 0; i < n; i++) {
    st = pld_mech_copy(members[i], &kids->m[i]);
    if (st) {
      pld_mech_free(m);
      return st;
    }
    const pld_curve *c = &members[i]->curve;
    sym &= c->symmetric != 0;
    tails &= c->tails != NULL;
    scale = fmax(scale, c->loss_scale);
    rel = fmax(rel, c->rel_err);
    if (lattice < 0.0)
      lattice = c->loss_lattice;
    else if (c->loss_lattice != lattice)
      lattice = 0.0;
  }
  m->curve.delta = select_curve_cb;
  m->curve.tails = tails ? select_tails_cb : NULL;
  m->curve.symmetric = sym;
  m->curve.rel_err = rel + 4.0 * (double)n * PLD_U;
  m->curve.loss_scale = scale;
  m->curve.loss_lattice = lattice > 0.0 ? lattice : 0.0;
  *out = m;
  return PLD_SUCCESS;
}
