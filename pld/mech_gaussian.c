/* pldkit: the Gaussian mechanism's hockey-stick curve.
 *
 * For N(0, s^2) vs N(Delta, s^2) with mu = Delta/s (Balle & Wang 2018, Thm 8):
 *     delta(eps) = Phi(a) - e^eps Phi(b),  a = mu/2 - eps/mu,  b = a - mu,
 * the same in both directions.  Written delta = Phi(a) (1 - e^{-D}) with
 * D = log Phi(a) - eps - log Phi(b) > 0, it keeps its relative accuracy for
 * eps in the thousands, where both terms underflow.
 *
 * Last-bit rounding (docs/design.md, "Last-bit rounding").  Every value comes
 * with an enclosure [lo, hi] of log delta, evaluated in long double with
 * the libm error assumed below KLIB ulps (glibc documents at most 5 for
 * erfcl and 1-2 for log/exp/expm1/log1p).  D from the difference of the two
 * logs is off by about u (|log Phi(a)| + |log Phi(b)|), which is relative
 * u |a|^3/mu since D ~ mu/|a|: at mu = 1e-4 (sigma = 1e4) the former double
 * evaluation was 2e-10 relative off, below its booked 1e-10.  Where that
 * bound is poor, D is also enclosed by quadrature of
 *     D = int_b^a h(t) dt,  h(t) = phi(t)/Phi(t) + t > 0,
 * (d/dt log Phi = phi/Phi and d/dt (-t^2/2) = -t integrate to D, since
 * eps = (a^2 - b^2)/2 for b = a - mu).  h is the inverse Mills ratio of -t
 * plus t: convex (Sampford 1953), so on every panel the midpoint rule lies
 * below the integral and the trapezoid rule above it (a proven enclosure,
 * which is why this quadrature stays hand-written instead of going through
 * src/quad.h, whose GSL error estimate is booked with a safety factor, not
 * proven; docs/design.md sec. 11).  For t <= -4, h is
 * the tail of Laplace's continued fraction,
 *     h(t) = 1/(x + 2/(x + 3/(x + ...))),  x = -t,
 * whose truncations with the last tail set to x and to +inf bracket it
 * (every level is decreasing in the next), free of the cancellation in
 * phi/Phi + t.
 */
#include <float.h>
#include <math.h>

#include "internal.h"
#include "numerics.h"
#include "detail.h"

typedef long double ldbl;
#define UL ((ldbl)LDBL_EPSILON)
#define KLIB 8.0L /* assumed libm error, ulps */
#define KLOG 2.0L /* assumed error of double log and log1p, ulps (glibc: 1) */
#define SQRT1_2L 0.707106781186547524400844362104849039L
#define LOGSQRT2PIL 0.918938533204672741780329736405617640L

/* log Phi(t) with a bound *e on its absolute error, argument rounding of
 * t/sqrt(2) included (log Phi has slope phi/Phi <= max(-t, 0) + 1). */
static ldbl lndtr_l(ldbl t, ldbl *e)
{
  ldbl r;
  if (t > -30.0L) {
    if (t > 5.0L)
      r = log1pl(-0.5L * erfcl(t * SQRT1_2L));
    else
      r = logl(0.5L * erfcl(-t * SQRT1_2L));
  } else {
    /* A&S 26.2.12; 12 terms leave a relative error below 1e-25 */
    ldbl t2 = t * t, term = 1.0L, sum = 1.0L;
    for (int k = 1; k <= 12; k++) {
      term *= -(2.0L * k - 1.0L) / t2;
      sum += term;
    }
    r = -0.5L * t2 - logl(-t) - LOGSQRT2PIL + logl(sum);
  }
  ldbl slope = (t < 0.0L ? -t : 0.0L) + 1.0L;
  *e = 2.0L * KLIB * UL * (1.0L + fabsl(r)) + 2.0L * UL * slope * fabsl(t) +
       1e-24L;
  return r;
}

/* h(t) = phi(t)/Phi(t) + t with a bound *rel on its relative error. */
static ldbl h_l(ldbl t, ldbl *rel)
{
  if (t <= -4.0L) {
    ldbl x = -t, A = 0.0L, B = 0.0L;
    int n;
    /* about 1024/x^2 levels reach 1e-20 (64 at x = 4, 16 at x = 16) */
    for (n = 12 + (int)(1024.0L / (x * x)); n <= 4096; n *= 2) {
      A = x; /* T_n = x: every level below is then bracketed */
      B = INFINITY;
      for (int k = n - 1; k >= 1; k--) {
        A = x + (ldbl)(k + 1) / A;
        B = x + (ldbl)(k + 1) / B;
      }
      if (fabsl(A - B) <= 1e-20L * A)
        break;
    }
    /* both truncations bracket 1/h; n backward steps of positive terms
     * cost at most 2n u relative */
    ldbl h = 2.0L / (A + B);
    *rel = fabsl(A - B) / fminl(A, B) + (4.0L * (ldbl)n + 8.0L) * UL;
    return h;
  }
  ldbl e, lphi = -0.5L * t * t - LOGSQRT2PIL;
  ldbl lPhi = lndtr_l(t, &e);
  ldbl M = expl(lphi - lPhi);
  ldbl eM = UL * (0.5L * t * t + 2.0L) + e + (KLIB + 1.0L) * UL * (1.0L + fabsl(lphi - lPhi));
  ldbl h = M + t;
  /* cancellation for t in (-4, 0): (M + |t|)/h <= 40 */
  *rel = (eM * M + UL * (M + fabsl(t))) / h;
  return h;
}

/* Enclosure [*dlo, *dhi] of log delta(eps) (dlo, dhi both NULL: not
 * wanted); the return value is the evaluated log delta (the best
 * estimate, the same either way).  eps finite.  want: the
 * relative accuracy of D worth a quadrature (the builder's curve asks for
 * 1e-10 and books what it gets, see gaussian_rel_err; the closed form asks
 * for 1e-14). */
static ldbl gauss_logdelta(double mu, double eps, ldbl want, ldbl *dlo,
                           ldbl *dhi)
{
  if (want >= 1e-12L) {
    /* The same direct evaluation in double first, with its bound in u =
     * DBL_EPSILON: accepted where D is within 3e-12 (mu ~ 1 outside the far
     * tail: 5e-13), which keeps the builder's curve within its 1e-11 at
     * several times less cost than long double, used everywhere else. */
    const double u = DBL_EPSILON;
    double em = eps / mu, a = 0.5 * mu - em, b = a - mu;
    double sa = (a < 0.0 ? -a : 0.0) + 1.0, sb = (b < 0.0 ? -b : 0.0) + 1.0;
    double la = pld_log_ndtr(a), lb0 = pld_log_ndtr(b);
    /* libm errors of the two logs (docs/design.md 10.4): erfc's KLIB ulps
     * relative are ~KLIB u in its log, the log itself KLOG ulps of its
     * result (the asymptotic branch below -30 keeps the former KLIB on
     * both), the factor 2 as slack; plus the rounding of erfc's argument
     * t/sqrt(2) (slope of log Phi <= s) */
    double ka = a > -30.0 ? (double)KLOG : (double)KLIB;
    double kb = b > -30.0 ? (double)KLOG : (double)KLIB;
    double ela = 2.0 * u * ((double)KLIB + ka * fabs(la)) + 2.0 * u * sa * fabs(a);
    double elb = 2.0 * u * ((double)KLIB + kb * fabs(lb0)) + 2.0 * u * sb * fabs(b);
    /* a's own rounding, |da| <= u (|a| + |em|), moves log Phi(a) by up to
     * sa |da|, but D only by mu |da|: b = a - mu is computed from the
     * rounded a, and d/da [log Phi(a) - log Phi(a - mu)] = r(a) - r(a - mu)
     * lies in (-mu, 0) since r = phi/Phi has -1 < r' < 0 (r' = -r (t + r)
     * and 1 - t r - r^2 is the variance of N(0,1) truncated above t); b's
     * own rounding is u |b| / 2 */
    double ea = ela + sa * u * (fabs(a) + fabs(em));
    double lb = eps + lb0, D = la - lb;
    double eD = ela + elb + mu * u * (fabs(a) + fabs(em)) + sb * u * fabs(b) +
                u * (fabs(lb) + fabs(D) + fabs(eps));
    if (eD <= 3e-12 * D) {
      double g = log(-expm1(-D));
      if (!dlo) /* the value only */
        return (ldbl)la + (ldbl)g;
      double glo = log(-expm1(-(D - eD))),
             ghi = log(-expm1(-(D + eD)));
      double e = 2.0 * (ea + 2.0 * (double)KLIB * u * (1.0 + fabs(g)) +
                        u * (fabs(la) + fabs(g)));
      *dlo = (ldbl)la + (ldbl)glo - (ldbl)e;
      *dhi = (ldbl)la + (ldbl)ghi + (ldbl)e;
      ldbl r = (ldbl)la + (ldbl)g;
      if (!(*dlo <= r))
        *dlo = r;
      if (!(*dhi >= r))
        *dhi = r;
      return r;
    }
  }
  ldbl em = (ldbl)eps / (ldbl)mu;
  ldbl a = 0.5L * (ldbl)mu - em, b = a - (ldbl)mu;
  /* argument errors: |da| <= u (|a| + |em|), the same for b (plus mu) */
  ldbl da = UL * (fabsl(a) + fabsl(em) + 1e-300L);
  ldbl db = UL * (fabsl(b) + fabsl(em) + (ldbl)mu + 1e-300L);
  ldbl ea, eb;
  ldbl la = lndtr_l(a, &ea), lb0 = lndtr_l(b, &eb);
  ldbl sa = (a < 0.0L ? -a : 0.0L) + 1.0L, sb = (b < 0.0L ? -b : 0.0L) + 1.0L;
  ea += sa * da;
  eb += sb * db;
  ldbl lb = (ldbl)eps + lb0;
  ldbl D = la - lb;
  ldbl eD = ea + eb + UL * (fabsl(lb) + fabsl(D) + fabsl((ldbl)eps));
  ldbl Dlo = D - eD, Dhi = D + eD;
  if (!(eD <= want * D)) {
    /* quadrature of h over [b, a], panels from a downward */
    ldbl mid = 0.0L, trap = 0.0L, rho = 0.0L;
    for (int N = 1; N <= 64; N *= 2) {
      ldbl w = (ldbl)mu / (ldbl)N, sm = 0.0L, st = 0.0L, r, rmax = 0.0L;
      for (int i = 0; i <= N; i++) {
        ldbl v = h_l(a - (ldbl)i * w, &r);
        rmax = fmaxl(rmax, r);
        st += (i == 0 || i == N) ? 0.5L * v : v;
        if (i < N) {
          sm += h_l(a - ((ldbl)i + 0.5L) * w, &r);
          rmax = fmaxl(rmax, r);
        }
      }
      mid = sm * w;
      trap = st * w;
      /* the nodes a - i w (w = mu/N exact) are rounded by u |t|, moving h
       * by at most 20u relative; a's own rounding moves every node by da,
       * h'/h <= 4.5 */
      rho = rmax + (ldbl)(2 * N + 32) * UL + 5.0L * da;
      if (trap - mid <= want * mid)
        break;
    }
    ldbl qlo = mid * (1.0L - rho), qhi = trap * (1.0L + rho);
    if (qlo > Dlo)
      Dlo = qlo;
    if (qhi < Dhi)
      Dhi = qhi;
    if (!(D >= Dlo && D <= Dhi))
      D = 0.5L * (Dlo + Dhi);
  }
  /* g(D) = log(1 - e^{-D}) is increasing and concave */
  ldbl g = logl(-expm1l(-D));
  if (!dlo)
    return la + g;
  ldbl glo = Dlo > 0.0L ? logl(-expm1l(-Dlo)) : -INFINITY;
  ldbl ghi = logl(-expm1l(-Dhi));
  ldbl eg = 2.0L * KLIB * UL * (1.0L + fabsl(g));
  ldbl r = la + g;
  ldbl er = UL * (fabsl(la) + fabsl(g));
  /* a factor 2 covers the second-order terms dropped above */
  *dlo = la + glo - 2.0L * (ea + eg + er);
  *dhi = la + ghi + 2.0L * (ea + eg + er);
  if (!(*dlo <= r))
    *dlo = r;
  if (!(*dhi >= r))
    *dhi = r;
  return r;
}

/* Outward conversions of the long double enclosure. */
static double down_d(ldbl x) { return nextafter((double)x, -INFINITY); }
static double up_d(ldbl x) { return nextafter((double)x, INFINITY); }

double pld_gaussian_log_delta(double mu, double eps, double *llo, double *lhi)
{
  if (eps == INFINITY) {
    *llo = *lhi = -INFINITY;
    return -INFINITY;
  }
  ldbl lo, hi, r = gauss_logdelta(mu, eps, 1e-14L, &lo, &hi);
  *llo = down_d(lo);
  *lhi = up_d(hi);
  if (*lhi > 0.0)
    *lhi = 0.0; /* delta <= 1 */
  return (double)r;
}

double pld_gaussian_delta_bounds(double mu, double eps, double *lo, double *hi)
{
  if (eps == INFINITY) {
    *lo = *hi = 0.0;
    return 0.0;
  }
  double llo, lhi, r = pld_gaussian_log_delta(mu, eps, &llo, &lhi);
  /* exp within 2 ulp; below DBL_MIN its result is off by up to half the
   * smallest subnormal absolutely.  The exact value is positive at every
   * finite eps, so the upper end is never 0. */
  double l = exp(llo) * (1.0 - 4.0 * DBL_EPSILON);
  double h = exp(lhi) * (1.0 + 4.0 * DBL_EPSILON);
  if (l < DBL_MIN)
    l = fmax(l - 2.0 * DBL_TRUE_MIN, 0.0);
  if (h < DBL_MIN)
    h += 2.0 * DBL_TRUE_MIN;
  *lo = fmin(l, 1.0);
  *hi = fmin(fmax(h, DBL_TRUE_MIN), 1.0);
  double v = exp(r);
  return v > 1.0 ? 1.0 : v;
}

double pld_gaussian_delta(double mu, double eps)
{
  if (eps == INFINITY)
    return 0.0;
  ldbl r = gauss_logdelta(mu, eps, 1e-10L, NULL, NULL);
  double v = exp((double)r);
  return v < 0.0 ? 0.0 : (v > 1.0 ? 1.0 : v);
}

/* Over every eps whose value is a normal double (a >= -38.5; below that
 * the far tail is beyond every use), at 200 points: *rel, the largest
 * half-width of the builder's enclosure (a relative accuracy of
 * pld_gaussian_delta, doubled), and *sens, the largest relative
 * sensitivity to mu, (mu/delta) d delta/d mu = mu phi(a)/delta (the
 * derivative is phi(a) since e^eps phi(b) = phi(a)), doubled. */
static void gaussian_scan(double mu, double *rel, double *sens)
{
  double worst = 0.0, sw = 0.0;
  for (int j = 0; j <= 200; j++) {
    double a = 10.0 - 48.5 * (double)j / 200.0;
    double eps = mu * (0.5 * mu - a);
    ldbl lo, hi, r = gauss_logdelta(mu, eps, 1e-10L, &lo, &hi);
    double w = (double)fmaxl(hi - r, r - lo);
    if (w > worst)
      worst = w;
    double s = mu * exp(-0.5 * a * a - PLD_LOG_SQRT_2PI - (double)lo);
    if (s > sw)
      sw = s;
  }
  /* log-space half-width w is a relative error e^w - 1; the value is
   * exp of log delta rounded to a double (|log delta| < 746 here) */
  *rel = 2.0 * expm1(worst) + 760.0 * DBL_EPSILON;
  *sens = 2.0 * sw;
}

double pld_gaussian_mu_sens(double mu)
{
  double rel, sens;
  gaussian_scan(mu, &rel, &sens);
  return sens;
}

/* The kind: all in par[0] = mu; no pure eps (the loss is unbounded). */
const struct pld_mech_type pld_mech_type_gaussian = {.name = "gaussian"};

/* The builder's curve value in double by the ratio form
 *     delta = Phi(a) (1 - e^{-D}),  D = log(Phi(a)/Phi(b)) - eps,
 * two erfc, one log and one expm1 (the log-space form takes three logs and
 * a final exp), with a proven relative error bound *rel (docs/design.md
 * 10.4); returns 0 where it does not apply (b <= -37: Phi(b) near the
 * subnormals; a non-finite or non-positive D).  u = DBL_EPSILON, libm
 * errors as in gauss_logdelta (erfc, expm1 KLIB ulps relative, log KLOG
 * ulps of its result, an ulp at most u relative).  Per step:
 *   Pa = erfc(-a fl(1/sqrt2))/2 is within ra = KLIB u + 2u sa |a| of
 *   Phi(a~) (a~ the computed a; the argument's rounding 1.01u|x| times the
 *   slope of log Phi, <= s), Pb likewise within rb of Phi(b~);
 *   L = log(Pa/Pb) within 1.01 (ra + rb + u) + KLOG u |L| of
 *   log(Phi(a~)/Phi(b~)); D = L - eps adds u|D|; a's own rounding |da| <=
 *   u (|a| + |eps/mu|) moves log Phi(a) - log Phi(a - mu) by at most
 *   mu |da| and b's rounding log Phi(b) by sb u |b| (see gauss_logdelta):
 *   eD bounds |D - D_true|.  1 - e^{-D} has slope 1/(e^D - 1) <= 1/D in log
 *   space, so G = -expm1(-D) is within KLIB u + 1.01 eD/D relative (eD <=
 *   1e-11 D where accepted), and Pa G within ra + sa |da| + u more.  The
 *   sum, times 1.01 for the second-order terms, is *rel. */
static int gauss_delta_ratio(double mu, double eps, double *out, double *rel)
{
  const double u = DBL_EPSILON;
  double em = eps / mu, a = 0.5 * mu - em, b = a - mu;
  if (!(b > -37.0) || !isfinite(a))
    return 0;
  double sa = (a < 0.0 ? -a : 0.0) + 1.0, sb = (b < 0.0 ? -b : 0.0) + 1.0;
  double Pa = 0.5 * erfc(-a * PLD_SQRT1_2), Pb = 0.5 * erfc(-b * PLD_SQRT1_2);
  double L = log(Pa / Pb), D = L - eps;
  if (!(D > 0.0) || !isfinite(D))
    return 0;
  double ra = (double)KLIB * u + 2.0 * u * sa * fabs(a);
  double rb = (double)KLIB * u + 2.0 * u * sb * fabs(b);
  double da = u * (fabs(a) + fabs(em));
  double eD = 1.01 * (ra + rb + u) + (double)KLOG * u * fabs(L) + u * fabs(D) +
              mu * da + sb * u * fabs(b);
  double G = -expm1(-D);
  *out = Pa * G;
  *rel = 1.01 * (ra + sa * da + (double)KLIB * u + 1.01 * eD / D + u);
  return 1;
}

/* Where the ratio form's bound is at most GAUSS_FAST_REL, its value is
 * taken; the mechanism books at least this much (pld_mech_gaussian). */
#define GAUSS_FAST_REL 6e-12

int pld_mech_gaussian_curve(void *ctx, int dir, size_t n, const double *eps,
                            double *delta)
{
  const struct pld_mech *m = ctx;
  double mu = m->par[0], v, r;
  (void)dir;
  for (size_t i = 0; i < n; i++) {
    if (isfinite(eps[i]) && gauss_delta_ratio(mu, eps[i], &v, &r) &&
        r <= GAUSS_FAST_REL)
      delta[i] = v > 1.0 ? 1.0 : v;
    else
      delta[i] = pld_gaussian_delta(mu, eps[i]);
  }
  return 0;
}

/* Loss tails: under P the loss is N(mu^2/2, mu^2), under Q N(-mu^2/2, mu^2). */
int pld_mech_gaussian_tails(void *ctx, int dir, size_t n, const double *eps,
                            double *p_gt, double *eq_gt)
{
  const struct pld_mech *m = ctx;
  double mu = m->par[0];
  (void)dir;
  for (size_t i = 0; i < n; i++)
    pld_gaussian_tails_x(mu, eps[i], NAN, &p_gt[i], &eq_gt[i]);
  return 0;
}

void pld_gaussian_tails_x(double mu, double eps, double x, double *p_gt,
                          double *eq_gt)
{
  if (eps == INFINITY) {
    *p_gt = *eq_gt = 0.0;
    return;
  }
  double b = -0.5 * mu - eps / mu;
  *p_gt = pld_ndtr(0.5 * mu - eps / mu);
  /* direct product where neither factor can over- or underflow */
  if (eps < 700.0 && b > -37.0)
    *eq_gt = (x < INFINITY ? x : exp(eps)) * pld_ndtr(b);
  else
    *eq_gt = exp(eps + pld_log_ndtr(b));
}

int pld_mech_gaussian(double sigma, double sensitivity, pld_mech **out)
{
  pld_detail_clear();
  if (!out)
    return pld_fail(PLD_EINVAL, "out is NULL");
  if (!isfinite(sigma) || !(sigma > 0.0))
    return pld_fail(PLD_EINVAL, "sigma = %g must be finite and > 0", sigma);
  if (!isfinite(sensitivity) || !(sensitivity > 0.0))
    return pld_fail(PLD_EINVAL, "sensitivity = %g must be finite and > 0", sensitivity);
  double mu = sensitivity / sigma;
  if (!isfinite(mu) || !(mu > 0.0) || mu > 1e6 || mu < 1e-12)
    return pld_fail(PLD_EINVAL,
                    "sensitivity/sigma = %g must be in [1e-12, 1e6] (sigma = %g, sensitivity = %g)",
                    mu, sigma, sensitivity);
  struct pld_mech *m = pld_mech_new(&pld_mech_type_gaussian);
  if (!m)
    return PLD_ENOMEM;
  m->par[0] = mu;
  m->curve.delta = pld_mech_gaussian_curve;
  m->curve.tails = pld_mech_gaussian_tails;
  m->curve.symmetric = 1;
  m->curve.loss_scale = mu * (1.0 + 0.5 * mu); /* loss ~ N(mu^2/2, mu^2) */
  /* mu = sensitivity/sigma is rounded by u/2 */
  double rel, sens;
  gaussian_scan(mu, &rel, &sens);
  /* the curve's values carry the scan's enclosure or, where the ratio form
   * is taken, at most GAUSS_FAST_REL */
  m->curve.rel_err = fmax(PLD_BUILTIN_REL_ERR,
                          fmax(rel, GAUSS_FAST_REL) + sens * DBL_EPSILON);
  *out = m;
  return PLD_SUCCESS;
}
