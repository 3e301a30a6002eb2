/* pldkit: random client participation in FL, closed-form analyses.
 *
 * Paper: B. Hasircioglu, D. Gunduz, "Privacy amplification via random
 * participation in federated learning", Sec. 4-6 and App. A; its citation
 * and the corrections in docs/papers/random-participation.md.  Derivations
 * and the proof of the MWCS bound are in docs/participation.md.
 *
 * Notation.  x = e^eps; mu = C/sigma; u = z/sigma and c = C/sigma (all
 * Gaussian arguments are in units of sigma); b_i = Binomial(d, q) pmf.
 * S_g(eps) = g delta_G(log(1 + (x - 1)/g); mu) is the delta of the
 * g-subsampled Gaussian, remove direction, which dominates the add direction
 * for eps >= 0 (docs/participation.md, sec. 3).
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include <pldkit/participation.h>

#include "alloc.h"
#include "mech_type.h"
#include "numerics.h"
#include "detail.h"
#include "quad.h"
#include "participation_internal.h"


/* ------------------------------------------------------------------------ */
/* Validation.                                                               */

static int rate_ok(double x) { return isfinite(x) && x > 0.0 && x <= 1.0; }
static int pos_ok(double x) { return isfinite(x) && x > 0.0; }
int part_eps_ok(double e) { return isfinite(e) && e >= 0.0; }

/* PLD_SUCCESS, PLD_EINVAL or PLD_ERANGE (C/sigma not a positive finite). */
int part_check_params(const pld_participation_params *par, int need_sigma)
{
  if (!par)
    return pld_fail(PLD_EINVAL, "par is NULL");
  if (!rate_ok(par->p))
    return pld_fail(PLD_EINVAL, "p = %g must be in (0, 1]", par->p);
  if (!rate_ok(par->q))
    return pld_fail(PLD_EINVAL, "q = %g must be in (0, 1]", par->q);
  if (par->d < 1 || par->d > D_MAX)
    return pld_fail(PLD_EINVAL, "d = %lld must be in [1, 1e15]", (long long)par->d);
  if (!pos_ok(par->clip))
    return pld_fail(PLD_EINVAL, "C = %g must be finite and > 0", par->clip);
  if (need_sigma) {
    if (!pos_ok(par->sigma))
      return pld_fail(PLD_EINVAL, "sigma = %g must be finite and > 0", par->sigma);
    double mu = par->clip / par->sigma;
    if (!isfinite(mu) || !(mu > 0.0))
      return pld_fail(PLD_ERANGE, "C/sigma = %g/%g is not a positive finite number",
                      par->clip, par->sigma);
  }
  return PLD_SUCCESS;
}

/* ------------------------------------------------------------------------ */
/* Small helpers.                                                            */

/* S_g(eps) with lg = log g, lem1 = log(e^eps - 1).  The subsampled pair's
 * remove direction: H_x((1-g)N(0)+gN(C) || N(0)) = g H_x'(N(C)||N(0)),
 * x' = 1 + (x-1)/g (advanced joint convexity with equal mixture parts). */
static double sub_delta(double lg, double lem1, double mu)
{
  if (lg == -INFINITY)
    return 0.0;
  double ep = pld_logaddexp(0.0, lem1 - lg); /* eps' = log(1+(x-1)/g) */
  double dg = pld_gaussian_delta(mu, ep);
  if (!(dg > 0.0))
    return 0.0;
  return exp(lg + log(dg));
}

/* P(a < N(0,1) < b) for a <= b (either may be infinite), with a bound on
 * its absolute rounding error: the difference is formed from the two tails
 * of the smaller magnitude, each accurate to a few ulp (pld_ndtr). */
double part_normal_mass(double a, double b, double *err)
{
  double v, big;
  if (a >= 0.0) {
    double x = pld_ndtr(-a), y = pld_ndtr(-b);
    v = x - y;
    big = x;
  } else if (b <= 0.0) {
    double x = pld_ndtr(b), y = pld_ndtr(a);
    v = x - y;
    big = x;
  } else {
    v = 1.0 - pld_ndtr(a) - pld_ndtr(-b);
    big = 1.0;
  }
  if (v < 0.0)
    v = 0.0;
  *err = 8.0 * DBL_EPSILON * big;
  return v;
}

double part_lse_arr(const double *x, size_t n)
{
  double m = -INFINITY, s = 0.0;
  for (size_t i = 0; i < n; i++)
    if (x[i] > m)
      m = x[i];
  if (m == -INFINITY || m == INFINITY)
    return m;
  for (size_t i = 0; i < n; i++)
    s += exp(x[i] - m);
  return m + log(s);
}

/* Refine a sign-changing bracket of f to a relative width of rtol (absolute
 * rtol near 0): repeated pld_root_bracket passes, each with a tolerance
 * relative to the current bracket, so that a wide initial bracket does not
 * ask for more than the doubles can resolve.  Returns 0 with the final
 * bracket in [*a, *b] (which always has the sign change), 1 if [lo, hi] does
 * not bracket a sign change. */
int part_root_refine(pld_scalar_fn f, void *ctx, double lo, double hi,
                       double rtol, double *a, double *b)
{
  for (int pass = 0; pass < 40; pass++) {
    double tol = rtol * fmax(1.0, fmax(fabs(lo), fabs(hi)));
    int r = pld_root_bracket(f, ctx, lo, hi, tol, 100, &lo, &hi);
    if (r == 1)
      return 1;
    if (hi - lo <= rtol * fmax(1.0, fmax(fabs(lo), fabs(hi))))
      break;
  }
  *a = lo;
  *b = hi;
  return 0;
}

/* ------------------------------------------------------------------------ */
/* Binomial(d, q) log-weights on the window of indices whose weight is at    */
/* least e^-cut times the mode's.  The pmf is log-concave, so the window is  */
/* an interval around the mode; ratios b_{i+1}/b_i = (d-i) q / ((i+1)(1-q))  */
/* are accumulated in log space from the mode and the window is normalised   */
/* (lgamma differences would lose digits for large d).                       */


static double bin_lratio(int64_t d, int64_t i, double lrq)
{ /* log b_{i+1} - log b_i */
  return log((double)(d - i)) - log((double)(i + 1)) + lrq;
}

int part_binwin_make(int64_t d, double q, double cut, binwin *w)
{
  w->lw = NULL;
  w->d = d;
  if (q == 1.0) { /* all mass at i = d */
    w->lo = w->hi = d;
    w->lw = pld_malloc(sizeof(double));
    if (!w->lw)
      return PLD_ENOMEM;
    w->lw[0] = 0.0;
    return PLD_SUCCESS;
  }
  double lrq = log(q) - log1p(-q);
  int64_t m = (int64_t)floor((double)(d + 1) * q);
  if (m > d)
    m = d;
  int64_t hi = m, lo = m;
  double acc = 0.0;
  while (hi < d) {
    double r = bin_lratio(d, hi, lrq);
    if (acc + r < -cut)
      break;
    acc += r;
    hi++;
    if (hi - m > PLD_PARTICIPATION_MAX_WINDOW)
      return pld_fail(PLD_ERANGE, "the Binomial(d = %lld, q = %g) window exceeds %d terms (smaller d or q)", (long long)d, q, (int)PLD_PARTICIPATION_MAX_WINDOW);
  }
  acc = 0.0;
  while (lo > 0) {
    double r = -bin_lratio(d, lo - 1, lrq);
    if (acc + r < -cut)
      break;
    acc += r;
    lo--;
    if (m - lo > PLD_PARTICIPATION_MAX_WINDOW)
      return pld_fail(PLD_ERANGE, "the Binomial(d = %lld, q = %g) window exceeds %d terms (smaller d or q)", (long long)d, q, (int)PLD_PARTICIPATION_MAX_WINDOW);
  }
  if (hi - lo + 1 > PLD_PARTICIPATION_MAX_WINDOW)
    return pld_fail(PLD_ERANGE, "the Binomial(d = %lld, q = %g) window exceeds %d terms (smaller d or q)", (long long)d, q, (int)PLD_PARTICIPATION_MAX_WINDOW);
  size_t n = (size_t)(hi - lo + 1), nb;
  if (pld_mul_size(n, sizeof(double), &nb))
    return pld_fail(PLD_ERANGE,
                    "the Binomial(d = %lld, q = %g) window of %zu terms "
                    "overflows size_t bytes",
                    (long long)d, q, n);
  double *lw = pld_malloc(nb);
  if (!lw)
    return PLD_ENOMEM;
  lw[m - lo] = 0.0;
  for (int64_t i = m; i < hi; i++)
    lw[i + 1 - lo] = lw[i - lo] + bin_lratio(d, i, lrq);
  for (int64_t i = m; i > lo; i--)
    lw[i - 1 - lo] = lw[i - lo] - bin_lratio(d, i - 1, lrq);
  double L = part_lse_arr(lw, n);
  for (size_t i = 0; i < n; i++)
    lw[i] -= L;
  w->lo = lo;
  w->hi = hi;
  w->lw = lw;
  return PLD_SUCCESS;
}

/* ------------------------------------------------------------------------ */
/* Closed forms (public).                                                    */

int pld_participation_epsilon_prime(double epsilon, double gamma,
                                    double *eps_prime)
{
  pld_detail_clear();
  if (!eps_prime)
    return pld_fail(PLD_EINVAL, "eps_prime (the output) must not be NULL");
  if (!part_eps_ok(epsilon))
    return pld_fail(PLD_EINVAL, "epsilon = %g must be finite and >= 0",
                    epsilon);
  if (!rate_ok(gamma))
    return pld_fail(PLD_EINVAL, "gamma = %g must be in (0, 1]", gamma);
  /* eq. (5) inverted: e^eps' = 1 + (e^eps - 1)/gamma */
  double t = expm1(epsilon) / gamma;
  *eps_prime = isfinite(t) ? log1p(t)
                           : pld_logaddexp(0.0, pld_log_expm1(epsilon) - log(gamma));
  return PLD_SUCCESS;
}

/* The value of a closed-form analysis (no validation). */
double part_cf_value(const pld_participation_params *par, int analysis,
                       double eps)
{
  double lem1 = pld_log_expm1(eps), mu = par->clip / par->sigma;
  double lp = log(par->p), lq = log(par->q);
  switch (analysis) {
  case PLD_PARTICIPATION_OLS: /* Thm 5.1 */
    return sub_delta(lq, lem1, mu);
  case PLD_PARTICIPATION_WCS: /* Thm 5.2 = p S_q */
    return par->p * sub_delta(lq, lem1, mu);
  case PLD_PARTICIPATION_CS: /* Cor 5.3 with rate p q */
    return sub_delta(lp + lq, lem1, mu);
  default: { /* MWCS: reveal Z = [participates and another record sampled] */
    double lr = (double)par->d * log1p(-par->q); /* log (1-q)^d */
    double pz1 = par->p * -expm1(lr);            /* P(Z = 1) */
    /* log P(Z = 0) = log((1 - p) + p r), without cancelling r when p = 1 */
    double lpz0 = pld_logaddexp(log1p(-par->p), lp + lr);
    double lp0q = lp + lr - lpz0 + lq;           /* log(p0 q) */
    double v = pz1 * sub_delta(lq, lem1, mu);
    if (lr > -INFINITY)
      v += exp(lpz0) * sub_delta(lp0q, lem1, mu);
    return v;
  }
  }
}

int pld_participation_mwcs_mixture(const pld_participation_params *par,
                                   double *weight_q, double *rate_other)
{
  pld_detail_clear();
  if (!weight_q || !rate_other)
    return pld_fail(PLD_EINVAL,
                    "weight_q and rate_other (the outputs) must not be NULL");
  int st = part_check_params(par, 0);
  if (st)
    return st;
  /* the same quantities as part_cf_value's MWCS branch */
  double lp = log(par->p), lr = (double)par->d * log1p(-par->q);
  double pz1 = par->p * -expm1(lr);
  double lpz0 = pld_logaddexp(log1p(-par->p), lp + lr);
  *weight_q = pz1;
  *rate_other = lr > -INFINITY ? exp(lp + lr - lpz0 + log(par->q)) : 0.0;
  return PLD_SUCCESS;
}

int pld_participation_delta(const pld_participation_params *par, int analysis,
                            double epsilon, pld_bound *out)
{
  pld_detail_clear();
  if (!out)
    return pld_fail(PLD_EINVAL, "out must not be NULL");
  if (!part_eps_ok(epsilon))
    return pld_fail(PLD_EINVAL, "epsilon = %g must be finite and >= 0",
                    epsilon);
  if (analysis != PLD_PARTICIPATION_WCS && analysis != PLD_PARTICIPATION_CS &&
      analysis != PLD_PARTICIPATION_THM41 &&
      analysis != PLD_PARTICIPATION_OLS && analysis != PLD_PARTICIPATION_MWCS)
    return pld_fail(PLD_EINVAL, "analysis = %d is not one of "
                    "PLD_PARTICIPATION_WCS, _CS, _THM41, _OLS, _MWCS",
                    analysis);
  int st = part_check_params(par, 1);
  if (st)
    return st;
  if (analysis == PLD_PARTICIPATION_THM41)
    return PLD_EUNSUPPORTED;
  double v = part_cf_value(par, analysis, epsilon);
  out->lower = v * (1.0 - CF_REL);
  out->upper = fmin(1.0, v * (1.0 + CF_REL) + DBL_MIN);
  return PLD_SUCCESS;
}

/* ------------------------------------------------------------------------ */
/* Calibration.                                                              */

/* The analysis's delta at sigma, upper end (what must meet the target). */
static int analysis_upper(const pld_participation_params *par0, int analysis,
                          double eps, double sigma, double *v)
{
  pld_participation_params par = *par0;
  par.sigma = sigma;
  if (analysis == PLD_PARTICIPATION_THM41) {
    pld_participation_thm41 r;
    int st = part_thm41_core(&par, eps, &r);
    if (st)
      return st;
    *v = r.delta + r.delta_err;
    return PLD_SUCCESS;
  }
  *v = part_cf_value(&par, analysis, eps) * (1.0 + CF_REL) + DBL_MIN;
  return PLD_SUCCESS;
}

/* The analysis's delta at eps with its booked bracket (no validation). */
static int analysis_bracket(const pld_participation_params *par, int analysis,
                            double eps, double *lo, double *hi)
{
  if (analysis == PLD_PARTICIPATION_THM41) {
    pld_participation_thm41 r;
    int st = part_thm41_core(par, eps, &r);
    if (st)
      return st;
    *lo = r.delta - r.delta_err;
    *hi = r.delta + r.delta_err;
    return PLD_SUCCESS;
  }
  double v = part_cf_value(par, analysis, eps);
  *lo = v * (1.0 - CF_REL);
  *hi = v * (1.0 + CF_REL) + DBL_MIN;
  return PLD_SUCCESS;
}

int pld_participation_epsilon(const pld_participation_params *par,
                              int analysis, double delta, pld_bound *out)
{
  pld_detail_clear();
  if (!out)
    return pld_fail(PLD_EINVAL, "out must not be NULL");
  if (!(delta > 0.0 && delta < 1.0))
    return pld_fail(PLD_EINVAL, "delta = %g must be in (0, 1)", delta);
  if (analysis != PLD_PARTICIPATION_WCS && analysis != PLD_PARTICIPATION_CS &&
      analysis != PLD_PARTICIPATION_THM41 &&
      analysis != PLD_PARTICIPATION_OLS && analysis != PLD_PARTICIPATION_MWCS)
    return pld_fail(PLD_EINVAL, "analysis = %d is not one of "
                    "PLD_PARTICIPATION_WCS, _CS, _THM41, _OLS, _MWCS",
                    analysis);
  int st = part_check_params(par, 1);
  if (st)
    return st;
  /* Every analysis's delta(eps) is a hockey-stick curve (of a dominating
   * pair, or for THM41 and CS of one dataset), hence non-increasing in eps:
   * bisection on eps is exact.  lo: delta_lower(lo) > delta; hi:
   * delta_upper(hi) <= delta. */
  double a = 0.0, b = 1.0, vlo, vhi;
  if ((st = analysis_bracket(par, analysis, 0.0, &vlo, &vhi)))
    return st;
  if (vhi <= delta) {
    out->lower = out->upper = 0.0;
    return PLD_SUCCESS;
  }
  for (;;) {
    if ((st = analysis_bracket(par, analysis, b, &vlo, &vhi)))
      return st;
    if (vhi <= delta)
      break;
    if (vlo > delta)
      a = b;
    if (b > 1e9) { /* no finite eps certified within reach */
      out->lower = a;
      out->upper = INFINITY;
      return PLD_SUCCESS;
    }
    b *= 2.0;
  }
  /* a: lower end (delta_lower(a) > delta, or a = 0); b: upper end */
  /* not pld_bisect: three-way (an undecidable midpoint keeps the ends) */
  for (int it = 0; it < 200 && b - a > 1e-12 * fmax(b, 1e-300); it++) {
    double m = 0.5 * (a + b);
    if (!(m > a && m < b))
      break;
    pld_progress((double)it / 200.0, "participation: epsilon by bisection");
    if ((st = analysis_bracket(par, analysis, m, &vlo, &vhi)))
      return st;
    if (vhi <= delta)
      b = m;
    else if (vlo > delta)
      a = m;
    else /* inside the booked error: undecidable, keep the verified ends */
      break;
  }
  out->lower = a;
  out->upper = b;
  return PLD_SUCCESS;
}

int pld_participation_calibrate(const pld_participation_params *par,
                                int analysis, double epsilon, double delta,
                                pld_participation_calibration *out)
{
  pld_detail_clear();
  if (!out)
    return pld_fail(PLD_EINVAL, "out must not be NULL");
  if (!part_eps_ok(epsilon))
    return pld_fail(PLD_EINVAL, "epsilon = %g must be finite and >= 0",
                    epsilon);
  if (!(delta > 0.0 && delta < 1.0))
    return pld_fail(PLD_EINVAL, "delta = %g must be in (0, 1)", delta);
  if (analysis != PLD_PARTICIPATION_WCS && analysis != PLD_PARTICIPATION_CS &&
      analysis != PLD_PARTICIPATION_THM41 &&
      analysis != PLD_PARTICIPATION_OLS && analysis != PLD_PARTICIPATION_MWCS)
    return pld_fail(PLD_EINVAL, "analysis = %d is not one of "
                    "PLD_PARTICIPATION_WCS, _CS, _THM41, _OLS, _MWCS",
                    analysis);
  int st = part_check_params(par, 0);
  if (st)
    return st;
  pld_participation_calibration r = {0};
  double s_lo = SIGMA_FLOOR * par->clip, s_hi = SIGMA_CEIL * par->clip;
  double v_lo, v_hi;
  if (!isfinite(s_hi) || !(s_lo > 0.0))
    return pld_fail(PLD_ERANGE, "C = %g: the sigma range [1e-4 C, 1e12 C] is not finite",
                    par->clip);
  if ((st = analysis_upper(par, analysis, epsilon, s_hi, &v_hi)))
    return st;
  if (v_hi > delta)
    return pld_fail(PLD_ERANGE,
                    "no sigma up to 1e12 C = %g meets epsilon = %g, delta = %g (delta there "
                    "is %g)", s_hi, epsilon, delta, v_hi);
  if ((st = analysis_upper(par, analysis, epsilon, s_lo, &v_lo)))
    return st;
  if (v_lo <= delta) {
    r.at_floor = 1;
    r.sigma = s_lo;
    r.sigma_below = 0.0;
    r.delta = v_lo;
  } else {
    /* invariant: upper(s_lo) > delta >= upper(s_hi); bisect in log sigma */
    int it = 0;
    /* not pld_bisect: geometric midpoints, EMAXITER when not narrow */
    while (s_hi > s_lo * (1.0 + 1e-10) && it++ < 300) {
      pld_progress((double)it / 300.0, "participation: calibrating sigma");
      double s_mid = sqrt(s_lo) * sqrt(s_hi), v;
      if (!(s_mid > s_lo && s_mid < s_hi))
        break;
      if ((st = analysis_upper(par, analysis, epsilon, s_mid, &v)))
        return st;
      if (v <= delta) {
        s_hi = s_mid;
        v_hi = v;
      } else {
        s_lo = s_mid;
      }
    }
    if (s_hi > s_lo * (1.0 + 1e-9))
      return PLD_EMAXITER;
    r.sigma = s_hi;
    r.sigma_below = s_lo;
    r.delta = v_hi;
  }
  r.certified = analysis == PLD_PARTICIPATION_WCS ||
                analysis == PLD_PARTICIPATION_MWCS ||
                analysis == PLD_PARTICIPATION_OLS;
  if (analysis == PLD_PARTICIPATION_THM41) {
    pld_participation_params p2 = *par;
    pld_participation_thm41 t;
    p2.sigma = r.sigma;
    if ((st = pld_participation_thm41_delta(&p2, epsilon, &t)))
      return st;
    /* Theorem 4.1 is no bound (one dataset's delta): never certified */
    r.certified = 0;
    r.refuted = !t.certified;
    r.below_cs = t.below_cs;
  }
  *out = r;
  return PLD_SUCCESS;
}
