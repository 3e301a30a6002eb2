/* pldkit: truncated Poisson and fixed-size batches as mechanisms
 * (docs/samplers.md, header include/pldkit/samplers.h).
 *
 * The pairs are built from what pld/ already certifies: Poisson-subsampled
 * Gaussians, their random selection (the branch visible) and brackets.
 * What is new here is arithmetic: binomial tail probabilities with a booked
 * relative error, and the rounding of the rates and weights in the
 * direction that keeps each construction sound.
 */
#include <pldkit/samplers.h>
#include <pldkit/allocation.h>

#include <float.h>
#include <math.h>
#include <stdint.h>

#include "detail.h"
#include "mech_type.h"
#include "numerics.h"

/* log(sqrt(2 pi)) */
#define LN_SQRT_2PI 0.918938533204672741780329736406
#define SAMPLERS_PI 3.14159265358979323846264338327950288

/* Loader's Stirling remainder stirlerr(k) = log(k!) - log(sqrt(2 pi k)
 * (k/e)^k) for an integer k >= 1 (C. Loader, "Fast and accurate
 * computation of binomial probabilities", 2000).  *err bounds its absolute
 * error.  Above 15 the Stirling series: it alternates with terms of
 * decreasing size, so the remainder is below the first omitted term,
 * 691/(360360 k^11).  Up to 15 the definition with lgamma, whose addends
 * are below 80: their rounding (libm within a few ulps) is booked
 * generously as 64 u times their size. */
static double stirlerr(double k, double *err)
{
  if (k <= 15.0) {
    double a = lgamma(k + 1.0), b = (k + 0.5) * log(k);
    *err = 64.0 * PLD_U * (fabs(a) + fabs(b) + k + 1.0);
    return a - b + k - LN_SQRT_2PI;
  }
  double k2 = 1.0 / (k * k);
  double v = (1.0 / 12.0 -
              (1.0 / 360.0 - (1.0 / 1260.0 - (1.0 / 1680.0 - k2 / 1188.0) * k2) *
                                 k2) *
                  k2) /
             k;
  *err = 16.0 * PLD_U * fabs(v) + 691.0 / 360360.0 * k2 * k2 * k2 * k2 * k2 / k;
  return v;
}

/* Loader's deviance term bd0(x, M) = x log(x/M) + M - x >= 0 for x >= 0,
 * M > 0 (M taken as exact here; the caller books M's own rounding).  Near
 * x = M the series (x - M) v + 2 x sum_j v^{2j+1}/(2j+1), v = (x - M)/(x +
 * M), |v| < 0.1: it stops when a term no longer changes the sum, and the
 * rest, geometric with ratio v^2 < 0.01, is below u times the sum.  *err:
 * 16 u times the sum of the absolute addends (each addend carries a few
 * roundings; the v, x - M and x + M roundings are relative u each).
 * Away from x = M the definition, its three addends booked likewise. */
static double bd0(double x, double M, double *err)
{
  if (x == 0.0) {
    *err = PLD_U * M;
    return M;
  }
  double d = x - M;
  if (fabs(d) < 0.1 * (x + M)) {
    double v = d / (x + M);
    double s = d * v, absum = fabs(s);
    double ej = 2.0 * x * v, v2 = v * v;
    for (int j = 1; j < 200; j++) {
      ej *= v2;
      double t = ej / (double)(2 * j + 1);
      double s1 = s + t;
      absum += fabs(t);
      if (s1 == s)
        break;
      s = s1;
    }
    *err = 16.0 * PLD_U * absum;
    return s;
  }
  double a = x * log(x / M);
  *err = 16.0 * PLD_U * (fabs(a) + M + x);
  return a + M - x;
}

/* P(Bin(N, q) = k) for integers 0 <= k <= N, q in (0, 1), with *rel a bound
 * on its relative error.  Loader's form exp(stirlerr(N) - stirlerr(k) -
 * stirlerr(N - k) - bd0(k, Nq) - bd0(N - k, N(1 - q))) sqrt(N / (2 pi k (N
 * - k))).  The means Nq and N(1 - q) are off by at most u Nq and 2 u N;
 * bd0 moves by |1 - x/M| per unit of M, so by u |k - Nq| and 2 u |k - Nq|
 * / (1 - q).  The exponent's absolute error e turns into a relative error
 * e^e - 1 <= 2e (e <= 0.5, else refused by the caller's sum), plus 8 u for
 * exp, sqrt and the products. */
static double dbinom(double k, double N, double q, double *rel)
{
  double E, e;
  if (k == 0.0) {
    E = N * log1p(-q);
    e = 4.0 * PLD_U * fabs(E);
  } else if (k == N) {
    E = N * log(q);
    e = 4.0 * PLD_U * fabs(E);
  } else {
    double Np = N * q, Nq = N * (1.0 - q);
    double e1, e2, e3, e4, e5;
    double s1 = stirlerr(N, &e1), s2 = stirlerr(k, &e2),
           s3 = stirlerr(N - k, &e3);
    double b1 = bd0(k, Np, &e4), b2 = bd0(N - k, Nq, &e5);
    E = s1 - s2 - s3 - b1 - b2;
    e = e1 + e2 + e3 + e4 + e5 +
        8.0 * PLD_U * (fabs(s1) + fabs(s2) + fabs(s3) + b1 + b2) +
        PLD_U * fabs(k - Np) * (1.0 + 2.0 / (1.0 - q));
    double f = exp(E) * sqrt(N / (2.0 * SAMPLERS_PI * k * (N - k)));
    *rel = (e <= 0.5 ? 2.0 * e : INFINITY) + 8.0 * PLD_U;
    return f;
  }
  *rel = (e <= 0.5 ? 2.0 * e : INFINITY) + 8.0 * PLD_U;
  return exp(E);
}

/* Terms summed at most (a few times 50 standard deviations, see the
 * domain check of pld_truncation_params). */
#define BINOM_MAX_TERMS 120000000.0

/* S = sum of P(Bin(N, q) = k) over k from k0 stepping by step (+1 or -1)
 * while 0 <= k <= N, with *rel bounding |S - true| / true.  Past the mode
 * the terms fall with ratios that keep falling (t_{k+1}/t_k = (N - k)/(k +
 * 1) q/(1 - q) going up, t_{k-1}/t_k = k/(N - k + 1) (1 - q)/q going
 * down), so once a ratio r < 1 the rest is below t r/(1 - r): the sum stops
 * when that is below 1e-18 of it, and the rest is booked.  Returns 0, or
 * PLD_ERANGE when a term's error bound is not small (the exponent's error
 * above 0.5) or the sum would run past BINOM_MAX_TERMS. */
static int binom_sum(double N, double q, double k0, int step, double *S,
                     double *rel)
{
  double sum = 0.0, maxrel = 0.0, terms = 0.0, rest = 0.0;
  double odds = q / (1.0 - q);
  for (double k = k0; k >= 0.0 && k <= N; k += (double)step) {
    double r;
    double t = dbinom(k, N, q, &r);
    /* a term that underflows to 0 is below 1e-300 whatever its error (the
     * exponent is then below -690 even with an error of 50): its relative
     * error does not matter, its absolute one is not booked */
    if (t > 0.0 && !(r < 1e-6))
      return PLD_ERANGE;
    sum += t;
    if (t > 0.0)
      maxrel = fmax(maxrel, r);
    terms += 1.0;
    if (terms > BINOM_MAX_TERMS)
      return PLD_ERANGE;
    double ratio = step > 0 ? (N - k) / (k + 1.0) * odds : k / (N - k + 1.0) / odds;
    ratio *= 1.0 + 8.0 * PLD_U;
    if (ratio < 1.0) {
      /* t's own error and the ratio's rounding: a factor (1 + 1e-6) */
      double bound = t * (1.0 + 1e-6) * ratio / (1.0 - ratio);
      if (bound <= 1e-18 * sum || (sum == 0.0 && t == 0.0 && bound == 0.0)) {
        rest = bound;
        break;
      }
    }
  }
  *S = sum;
  *rel = sum > 0.0 ? maxrel + (terms + 2.0) * PLD_U + rest / sum : 0.0;
  return 0;
}

/* P(Bin(N, q) <= K - 1) and P(Bin(N, q) >= K) for 0 <= K, q in (0, 1),
 * each within relative error *rel.  A side within 60 standard deviations
 * (plus 60) of the mean is summed directly; a side beyond that is one
 * minus the other (then the other is below 1e-300 and the difference
 * exact to u).  Both sides direct otherwise, so that each keeps a relative
 * error even when it is tiny. */
static int binom_split(double N, double q, double K, double *lo, double *hi,
                       double *rel)
{
  if (K <= 0.0) {
    *lo = 0.0;
    *hi = 1.0;
    *rel = 0.0;
    return 0;
  }
  if (K > N) {
    *lo = 1.0;
    *hi = 0.0;
    *rel = 0.0;
    return 0;
  }
  double mean = N * q, sd = sqrt(N * q * (1.0 - q));
  double far = 60.0 * sd + 60.0;
  double rl = 0.0, rh = 0.0;
  int st;
  if (K - 1.0 > mean + far) {
    st = binom_sum(N, q, K, +1, hi, &rh);
    if (st)
      return st;
    *lo = 1.0 - *hi;
    rl = (rh * *hi + PLD_U) / *lo + PLD_U;
  } else if (K < mean - far) {
    st = binom_sum(N, q, K - 1.0, -1, lo, &rl);
    if (st)
      return st;
    *hi = 1.0 - *lo;
    rh = (rl * *lo + PLD_U) / *hi + PLD_U;
  } else {
    st = binom_sum(N, q, K, +1, hi, &rh);
    if (!st)
      st = binom_sum(N, q, K - 1.0, -1, lo, &rl);
    if (st)
      return st;
  }
  *rel = fmax(rl, rh);
  return 0;
}

/* b/n rounded up (*up) and down (*dn); equal when b/n is a double */
static void ratio_bracket(double b, double n, double *up, double *dn)
{
  double r = b / n;
  double res = fma(r, n, -b); /* exact: r n - b */
  *up = *dn = r;
  if (res > 0.0)
    *dn = nextafter(r, 0.0);
  else if (res < 0.0)
    *up = nextafter(r, 2.0);
}

int pld_truncation_params(uint64_t n, double q, uint64_t B,
                          pld_truncation *out)
{
  pld_detail_clear();
  if (!out)
    return pld_fail(PLD_EINVAL, "out is NULL");
  if (n < 1 || n > PLD_SAMPLER_MAX_N)
    return pld_fail(PLD_EINVAL, "n = %llu must be in [1, 2^52]",
                    (unsigned long long)n);
  if (B < 1)
    return pld_fail(PLD_EINVAL, "B = 0: the batch cap must be >= 1");
  if (!isfinite(q) || !(q > 0.0) || !(q <= 1.0))
    return pld_fail(PLD_EINVAL, "q = %g must be in (0, 1]", q);
  double N = (double)n, Bd = B > n ? N + 1.0 : (double)B;
  pld_truncation t;
  if (B >= n) {
    /* X <= n - 1 < B: never truncated */
    t.p_untrunc = 1.0;
    t.p_trunc = 0.0;
    t.q_cond_upper = 0.0;
    t.q_eff_lower = q;
    t.rel_err = 0.0;
    *out = t;
    return PLD_SUCCESS;
  }
  if (q == 1.0) {
    /* X = n - 1 >= B: always truncated, the record kept with
     * probability B/n */
    double up, dn;
    ratio_bracket(Bd, N, &up, &dn);
    t.p_untrunc = 0.0;
    t.p_trunc = 1.0;
    t.q_cond_upper = up;
    t.q_eff_lower = dn;
    t.rel_err = 0.0;
    *out = t;
    return PLD_SUCCESS;
  }
  double sd = sqrt(N * q * (1.0 - q));
  if (sd > 1e6)
    return pld_fail(PLD_ERANGE,
                    "n q (1 - q) = %g: the binomial tails are summed term by "
                    "term, at most 1e12 (1e6 standard deviations)",
                    sd * sd);
  double lo, hi, r1, lo2, hi2, r2;
  int st = binom_split(N - 1.0, q, Bd, &lo, &hi, &r1);
  if (!st)
    st = binom_split(N, q, Bd + 1.0, &lo2, &hi2, &r2);
  if (st)
    return pld_fail(PLD_ERANGE,
                    "the binomial tails of n = %llu, q = %g, B = %llu could "
                    "not be summed within the booked accuracy",
                    (unsigned long long)n, q, (unsigned long long)B);
  /* q_c = (B/n) P(Bin(n, q) >= B + 1) / P(Bin(n - 1, q) >= B), each factor
   * within its relative error; rounded up for the upper pair (the
   * subsampled Gaussian grows with its rate), and never above q (X >= B
   * makes B/(X + 1) < 1) */
  double bn_up, bn_dn;
  ratio_bracket(Bd, N, &bn_up, &bn_dn);
  double qc = 0.0;
  if (hi > 0.0) {
    qc = bn_up * hi2 / hi * (1.0 + r1 + r2 + 8.0 * PLD_U);
    qc = fmin(nextafter(qc, 2.0), q);
  }
  /* q_eff = q P(X <= B - 1) + (B/n) P(Bin(n, q) >= B + 1), rounded down */
  double qe = (q * lo * (1.0 - r1) + bn_dn * hi2 * (1.0 - r2)) *
              (1.0 - 8.0 * PLD_U);
  qe = fmin(nextafter(qe, 0.0), q);
  if (!(qe > 0.0))
    return pld_fail(PLD_ERANGE, "q_eff underflows for n = %llu, q = %g, B = %llu",
                    (unsigned long long)n, q, (unsigned long long)B);
  t.p_untrunc = lo;
  t.p_trunc = hi;
  t.q_cond_upper = qc;
  t.q_eff_lower = qe;
  t.rel_err = r1;
  *out = t;
  return PLD_SUCCESS;
}

/* ---- the size-revealed pair of truncated Poisson (docs/samplers.md §4) ----
 *
 * Release, with the output, the set A of OTHER records that are kept.
 * Given |A| = k its law is uniform over k-subsets under both neighbours,
 * so the pair is, on {k} x R, P_k = alpha_k N(0) + beta_k N(c) against Q_k
 * = gamma_k N(0) (masses not normalised per k; each sums to 1 over k):
 *   k <= B - 2 (one term):  alpha = w1 (1 - q), beta = w1 q, gamma = w1,
 *                           w1 = P(X <= B - 2)
 *   k = B - 1:              alpha = p1 (1 - q), beta = p1 q + S, gamma = p1,
 *                           p1 = P(X = B - 1), S = (B/n) P(Bin(n, q) >= B+1)
 *   k = B:                  alpha = p_t - S, beta = 0, gamma = p_t.
 * Each term's hockey-stick is monotone in each mass: in direction PQ,
 * int ((alpha - x gamma) phi_0 + beta phi_c)_+ grows with alpha and beta
 * and falls with gamma; in direction QP, int ((gamma - x alpha) phi_0 - x
 * beta phi_c)_+ grows with gamma and falls with alpha and beta.  So the
 * curve is evaluated at the end of each mass's bracket [lo, hi] that makes
 * it larger, with the Gaussian's certified upper value
 * (pld_gaussian_delta_bounds) at an argument rounded down: a certified
 * upper curve, used only as the upper member of a bracket. */

#define SIZE_TERMS 3
/* state: mu, nterms, then per term alpha lo/hi, beta lo/hi, gamma lo/hi */
static const struct pld_mech_type truncsize_type = {
    .name = "truncated-size",
    .copy = pld_mech_arr_copy,
    .equal = pld_mech_arr_equal,
    .free = pld_mech_arr_free};

static double up(double v) { return nextafter(v, INFINITY); }
static double dn(double v) { return nextafter(v, -INFINITY); }

/* an upper value of one term's curve at x in [xlo, xhi] */
static double size_term(double mu, int dir, const double *t, double xlo)
{
  double alo = t[0], ahi = t[1], blo = t[2], bhi = t[3], glo = t[4], ghi = t[5];
  double A, lo, hi, e;
  if (dir == PLD_DIR_PQ) {
    if (!isfinite(xlo))
      return 0.0; /* every part of P has a Q density: no mass at +inf */
    A = ahi - xlo * glo;
    A = up(A + 2.0 * PLD_U * (ahi + xlo * glo)); /* rounded up */
    if (bhi == 0.0)
      return A > 0.0 ? A : 0.0;
    if (A >= 0.0)
      return up(up(A + bhi) * (1.0 + PLD_U));
    e = dn(log(-A / bhi) - 4.0 * PLD_U * (1.0 + fabs(log(-A / bhi))));
    pld_gaussian_delta_bounds(mu, e, &lo, &hi);
    return up(bhi * hi * (1.0 + 2.0 * PLD_U));
  }
  if (!isfinite(xlo))
    return 0.0;
  A = ghi - xlo * alo;
  A = up(A + 2.0 * PLD_U * (ghi + xlo * alo));
  if (A <= 0.0)
    return 0.0;
  if (blo == 0.0)
    return A;
  e = dn(log(xlo * blo / A) - 4.0 * PLD_U * (1.0 + fabs(log(xlo * blo / A))));
  pld_gaussian_delta_bounds(mu, e, &lo, &hi);
  return up(A * hi * (1.0 + 2.0 * PLD_U));
}

static int truncsize_curve(void *ctx, int dir, size_t n, const double *eps,
                           double *delta)
{
  const struct pld_mech *m = ctx;
  const double *a = pld_mech_arr(m);
  double mu = a[0];
  int nt = (int)a[1];
  for (size_t i = 0; i < n; i++) {
    /* exp within an ulp: the lower end of x (every term is larger at a
     * smaller x in both directions) */
    double xlo = eps[i] == INFINITY ? INFINITY : dn(exp(eps[i]) * (1.0 - PLD_U));
    double s = 0.0;
    for (int k = 0; k < nt; k++)
      s += size_term(mu, dir, a + 2 + 6 * k, xlo);
    s = up(s * (1.0 + 4.0 * PLD_U));
    delta[i] = s > 1.0 ? 1.0 : s;
  }
  return 0;
}

/* the masses with their brackets: value v within relative r */
static void put_bracket(double *t, double v, double r)
{
  if (v == 0.0) {
    t[0] = t[1] = 0.0;
    return;
  }
  t[0] = fmax(dn(v * (1.0 - r)), 0.0);
  t[1] = up(v * (1.0 + r));
}

/* Build the size-revealed pair (B < n, 0 < q < 1). */
static int truncated_size_pair(uint64_t n, double q, uint64_t B, double sigma,
                               double c, pld_mech **out)
{
  double N = (double)n, Bd = (double)B;
  double w1, r1, pt, rt, lo, r2, hi2;
  /* X ~ Bin(n - 1, q): P(X <= B - 2) and P(X >= B); P(X = B - 1) */
  int st = binom_split(N - 1.0, q, Bd - 1.0, &w1, &lo, &r1);
  if (!st)
    st = binom_split(N - 1.0, q, Bd, &lo, &pt, &rt);
  double S2lo;
  if (!st)
    st = binom_split(N, q, Bd + 1.0, &S2lo, &hi2, &r2);
  if (st)
    return pld_fail(PLD_ERANGE,
                    "the binomial tails of n = %llu, q = %g, B = %llu could "
                    "not be summed within the booked accuracy",
                    (unsigned long long)n, q, (unsigned long long)B);
  double rp1;
  double p1 = dbinom(Bd - 1.0, N - 1.0, q, &rp1);
  double bn_up, bn_dn;
  ratio_bracket(Bd, N, &bn_up, &bn_dn);
  double S = bn_up * hi2, rS = r2 + 4.0 * PLD_U + (bn_up - bn_dn) / bn_dn;
  double mu = c / sigma;
  if (!isfinite(mu) || !(mu >= 1e-12) || !(mu <= 1e6))
    return pld_fail(PLD_EINVAL, "c/sigma = %g must be in [1e-12, 1e6]", mu);
  struct pld_mech *m = pld_mech_new(&truncsize_type);
  if (!m)
    return PLD_ENOMEM;
  double *a = pld_mech_arr_init(m, 2 + 6 * SIZE_TERMS);
  if (!a) {
    pld_mech_free(m);
    return PLD_ENOMEM;
  }
  /* delta_G grows with mu: c/sigma rounded up */
  a[0] = up(mu);
  a[1] = SIZE_TERMS;
  double u8 = 8.0 * PLD_U;
  double *t = a + 2;
  /* k <= B - 2 */
  put_bracket(t + 0, w1 * (1.0 - q), r1 + u8);
  put_bracket(t + 2, w1 * q, r1 + u8);
  put_bracket(t + 4, w1, r1 + u8);
  /* k = B - 1: beta = p1 q + S, each part within its own error */
  t += 6;
  put_bracket(t + 0, p1 * (1.0 - q), rp1 + u8);
  put_bracket(t + 2, p1 * q + S, fmax(rp1, rS) + u8);
  put_bracket(t + 4, p1, rp1 + u8);
  /* k = B: alpha = p_t - S >= (1 - q) p_t, its error relative to it at
   * most (rt p_t + rS S)/(p_t - S) */
  t += 6;
  double a3 = pt - S;
  put_bracket(t + 0, a3, (rt * pt + rS * S) / fmax(a3, DBL_MIN) + u8);
  t[2] = t[3] = 0.0;
  put_bracket(t + 4, pt, rt + u8);
  m->curve.delta = truncsize_curve;
  m->curve.tails = NULL;
  m->curve.symmetric = 0;
  /* the arithmetic is rounded outward above; this books the libm calls
   * (log, exp within an ulp, covered by the margins) once more */
  m->curve.rel_err = 1e-12;
  m->curve.loss_scale = fmax(mu * (mu + 8.0), 1e-6);
  m->curve.loss_lattice = 0.0;
  *out = m;
  return PLD_SUCCESS;
}

/* epsilon at delta = 1e-5 of `count` runs of m (upper end), +inf on
 * failure; params may be NULL */
static double eps_of_params(const pld_mech *m, uint64_t count,
                            const pld_params *params)
{
  pld_accountant *acc = NULL;
  pld_result r;
  double e = INFINITY;
  if (!pld_accountant_alloc(params, &acc) && !pld_accountant_add(acc, m, count) &&
      !pld_accountant_epsilon(acc, 1e-5, &r))
    e = r.bound.upper;
  pld_accountant_free(acc);
  return e;
}

static double eps_of(const pld_mech *m, uint64_t count)
{
  return eps_of_params(m, count, NULL);
}

/* ---- truncated Poisson under zero-out and replace-one ----
 * (docs/samplers.md §4).  The record's slot (x, or its zero stand-in, or
 * x') is sampled and truncated alike in both worlds, so the set A of
 * OTHER records kept has the same law in both, and given A the slot is
 * kept with the same probability r_k, k = |A|, in both:
 *   k <= B - 2: r = q,  weight P(X <= B - 2)
 *   k =  B - 1: r = (q p1 + S)/(p1 + S),  weight p1 + S
 *   k =  B    : r = 0 (the slot was dropped),  weight p_t - S
 * (p1 = P(X = B - 1), S = (B/n) P(Bin(n, q) >= B + 1)).  Given A the pair
 * is (1 - r) N(Y_A) + r N(Y_A + g_x) against N(Y_A) (zero-out: PG(r, c)) or
 * against (1 - r) N(Y_A) + r N(Y_A + g_x') (replace-one: Balle et al.'s
 * curve pld_mech_wor_gaussian_rate(r, sigma, 2c)).  The selection over k
 * (A visible) dominates; the rates are rounded up (both curves grow with
 * the rate), the weights' error booked on the selection's curve, which is
 * linear in them. */
static int truncated_slot_select(uint64_t n, double q, uint64_t B,
                                 double sigma, double c,
                                 pld_adjacency adjacency, pld_mech **out)
{
  double N = (double)n, Bd = (double)B;
  double w1, r1, lo, pt, rt, S2lo, hi2, r2;
  int st = binom_split(N - 1.0, q, Bd - 1.0, &w1, &lo, &r1);
  if (!st)
    st = binom_split(N - 1.0, q, Bd, &lo, &pt, &rt);
  if (!st)
    st = binom_split(N, q, Bd + 1.0, &S2lo, &hi2, &r2);
  if (st)
    return pld_fail(PLD_ERANGE,
                    "the binomial tails of n = %llu, q = %g, B = %llu could "
                    "not be summed within the booked accuracy",
                    (unsigned long long)n, q, (unsigned long long)B);
  double rp1, p1 = dbinom(Bd - 1.0, N - 1.0, q, &rp1);
  double bn_up, bn_dn;
  ratio_bracket(Bd, N, &bn_up, &bn_dn);
  double S = bn_up * hi2, rS = r2 + 4.0 * PLD_U + (bn_up - bn_dn) / bn_dn;
  double e = fmax(fmax(r1, rt), fmax(rp1, rS)) + 8.0 * PLD_U;
  double W[3] = {w1, p1 + S, pt - S};
  /* pt - S >= (1 - q) pt: its error relative to it */
  double eW3 = (rt * pt + rS * S) / fmax(pt - S, DBL_MIN) + 4.0 * PLD_U;
  double rate2 = up((q * p1 + S) * (1.0 + e) / ((p1 + S) * (1.0 - e)) *
                    (1.0 + 4.0 * PLD_U));
  rate2 = fmin(rate2, 1.0);
  double rates[2] = {q, rate2};
  pld_mech *mem[3] = {NULL, NULL, NULL}, *sel = NULL;
  double w[3];
  size_t nm = 0;
  double sum = W[0] + W[1] + W[2];
  for (int k = 0; k < 3 && !st; k++) {
    if (!(W[k] > 0.0))
      continue;
    if (k < 2) {
      if (adjacency == PLD_ADJ_ZERO_OUT)
        st = pld_mech_poisson_gaussian(rates[k], sigma, c, &mem[nm]);
      else
        st = pld_mech_wor_gaussian_rate(rates[k], sigma, 2.0 * c, &mem[nm]);
    } else {
      /* the slot dropped: both worlds give N(Y_A), P = Q */
      const double one = 1.0;
      st = pld_mech_finite(1, &one, &one, &mem[nm]);
    }
    w[nm++] = W[k] / sum;
  }
  if (!st)
    st = pld_mech_select(nm, (const pld_mech *const *)mem, w, &sel);
  if (!st) {
    sel->curve.rel_err += 2.0 * fmax(e, eW3) + fabs(sum - 1.0) + 4.0 * PLD_U;
    if (!(sel->curve.rel_err < 1e-6))
      st = pld_fail(PLD_ERANGE, "the weights' booked error is too large");
  }
  for (int k = 0; k < 3; k++)
    pld_mech_free(mem[k]);
  if (st) {
    pld_mech_free(sel);
    return st;
  }
  *out = sel;
  return PLD_SUCCESS;
}

/* truncated Poisson under zero-out or replace-one: the bracket of the
 * slot selection and the exact pair of the dataset whose other records
 * have zero gradients (x = v and, for replace-one, x' = -v): PG(q_eff, c),
 * or the two-sided mixture with rate q_eff, rounded down (both pairs grow
 * with the rate: the one at a smaller rate is a post-processing of the
 * other, the sample replaced by a fresh N(0) with the same probability on
 * both sides) */
static int truncated_slot(uint64_t n, double q, uint64_t B, double sigma,
                          double c, pld_adjacency adjacency, pld_mech **out)
{
  pld_truncation t;
  int st = pld_truncation_params(n, q, B, &t);
  if (st)
    return st;
  if (t.p_trunc == 0.0 || q == 1.0) {
    /* never truncated: the slot is kept with probability q (q = 1 and
     * truncated: with probability B/n, exactly, q_eff) */
    if (adjacency == PLD_ADJ_ZERO_OUT && t.p_trunc == 0.0)
      return pld_mech_poisson_gaussian(q, sigma, c, out);
    if (adjacency == PLD_ADJ_REPLACE_ONE && t.p_trunc == 0.0)
      return pld_mech_wor_gaussian_rate(q, sigma, 2.0 * c, out);
    /* q = 1, always truncated: every kept set has B - 1 others when the
     * slot is kept, B when not: the size reveals it, no amplification */
    if (adjacency == PLD_ADJ_ZERO_OUT) {
      pld_mech *g = NULL, *id = NULL, *sel = NULL;
      const double one = 1.0;
      double w[2] = {t.q_cond_upper, 1.0 - t.q_cond_upper};
      st = pld_mech_gaussian(sigma, c, &g);
      if (!st)
        st = pld_mech_finite(1, &one, &one, &id);
      const pld_mech *mm[2] = {g, id};
      if (!st)
        st = pld_mech_select(2, mm, w, &sel);
      pld_mech_free(g);
      pld_mech_free(id);
      if (!st)
        *out = sel;
      return st;
    }
    /* q = 1 under replace-one: a uniform B-subset of the n slots, i.e.
     * sampling without replacement */
    return pld_mech_wor_gaussian(B, n, sigma, 2.0 * c, out);
  }
  pld_mech *up_m = NULL, *low = NULL;
  st = truncated_slot_select(n, q, B, sigma, c, adjacency, &up_m);
  if (!st) {
    if (adjacency == PLD_ADJ_ZERO_OUT) {
      st = pld_mech_poisson_gaussian(t.q_eff_lower, sigma, c, &low);
    } else {
      double r = t.q_eff_lower;
      double pw[2] = {1.0 - r, r}, pm[2] = {0.0, c}, qm[2] = {0.0, -c};
      st = pld_mech_mixture_gaussian(sigma, 2, pw, pm, 2, pw, qm, &low);
    }
  }
  if (!st)
    st = pld_mech_bracket(up_m, low, out);
  pld_mech_free(up_m);
  pld_mech_free(low);
  return st;
}

int pld_mech_truncated_poisson_gaussian_pair(uint64_t n, double q, uint64_t B,
                                             double sigma, double c,
                                             pld_adjacency adjacency,
                                             pld_truncation_pair which,
                                             pld_mech **out)
{
  pld_detail_clear();
  if (!out)
    return pld_fail(PLD_EINVAL, "out is NULL");
  if (adjacency != PLD_ADJ_ADD_REMOVE && adjacency != PLD_ADJ_ZERO_OUT &&
      adjacency != PLD_ADJ_REPLACE_ONE)
    return pld_fail(PLD_EINVAL, "adjacency = %d is not a pld_adjacency",
                    (int)adjacency);
  if (which != PLD_TRUNC_BEST && which != PLD_TRUNC_BRANCH &&
      which != PLD_TRUNC_SIZE)
    return pld_fail(PLD_EINVAL, "which = %d is not a pld_truncation_pair",
                    (int)which);
  if (!isfinite(c) || !(c > 0.0) || !isfinite(2.0 * c))
    return pld_fail(PLD_EINVAL, "c = %g must be finite and > 0", c);
  if (adjacency != PLD_ADJ_ADD_REMOVE)
    /* one construction there (the kept others revealed); `which` is for
     * add/remove */
    return truncated_slot(n, q, B, sigma, c, adjacency, out);
  pld_truncation t;
  int st = pld_truncation_params(n, q, B, &t);
  if (st)
    return st;
  if (t.p_trunc == 0.0)
    /* never truncated (B >= n), or a truncation probability below the
     * smallest double (its contribution below 1e-300, not booked) */
    return pld_mech_poisson_gaussian(q, sigma, c, out);
  pld_mech *members[2] = {NULL, NULL}, *sel = NULL, *size = NULL, *low = NULL;
  size_t nm = 0;
  double w[2];
  /* the branch-revealed pair: the two weights, normalised (each was
   * computed on its own within t.rel_err; the true ones sum to 1, so
   * normalising moves each by at most |s - 1| more) */
  double s = t.p_untrunc + t.p_trunc;
  double wrel = 2.0 * t.rel_err + fabs(s - 1.0) + 4.0 * PLD_U;
  if (which != PLD_TRUNC_SIZE) {
    if (t.p_untrunc > 0.0) {
      st = pld_mech_poisson_gaussian(q, sigma, c, &members[nm]);
      w[nm++] = t.p_untrunc / s;
    }
    if (!st) {
      st = pld_mech_poisson_gaussian(t.q_cond_upper, sigma, 2.0 * c,
                                     &members[nm]);
      w[nm++] = t.p_trunc / s;
    }
    if (!st)
      st = pld_mech_select(nm, (const pld_mech *const *)members, w, &sel);
    if (!st) {
      /* the selection's curve is linear in the weights with non-negative
       * terms: the weights' relative error is the curve's */
      sel->curve.rel_err += wrel;
      if (!(sel->curve.rel_err < 1e-6))
        st = pld_fail(PLD_ERANGE, "the weights' booked error %g is too large",
                      t.rel_err);
    }
  }
  /* the size-revealed pair (q = 1 truncates always: the branch pair is
   * then exact in its branch, the size pair not needed) */
  if (!st && which != PLD_TRUNC_BRANCH && q < 1.0)
    st = truncated_size_pair(n, q, B, sigma, c, &size);
  if (!st && which == PLD_TRUNC_SIZE && !size)
    st = pld_fail(PLD_EUNSUPPORTED, "the size-revealed pair needs q < 1");
  if (!st && sel && size) {
    /* both dominate: keep the one whose epoch (ceil(1/q) steps) answers
     * the smaller epsilon at delta = 1e-5 (either choice is sound) */
    double steps = ceil(1.0 / q);
    uint64_t cnt = steps < 1e6 ? (uint64_t)steps : 1000000;
    if (eps_of(size, cnt) < eps_of(sel, cnt)) {
      pld_mech_free(sel);
      sel = NULL;
    } else {
      pld_mech_free(size);
      size = NULL;
    }
  }
  if (!st)
    st = pld_mech_poisson_gaussian(t.q_eff_lower, sigma, c, &low);
  if (!st)
    st = pld_mech_bracket(sel ? sel : size, low, out);
  pld_mech_free(members[0]);
  pld_mech_free(members[1]);
  pld_mech_free(sel);
  pld_mech_free(size);
  pld_mech_free(low);
  return st;
}

int pld_mech_truncated_poisson_gaussian(uint64_t n, double q, uint64_t B,
                                        double sigma, double c,
                                        pld_adjacency adjacency,
                                        pld_mech **out)
{
  return pld_mech_truncated_poisson_gaussian_pair(n, q, B, sigma, c, adjacency,
                                                  PLD_TRUNC_BEST, out);
}

/* ---- a pair given by two mechanisms, one per direction ----
 * Used for the with-replacement mixture, whose curve in direction PQ grows
 * with every P weight and in direction QP falls with it: the PQ curve of
 * the mixture with the weights at the top of their brackets and the QP
 * curve of the one at the bottom bound the exact pair's curves from
 * above (and the other way round from below).  kids: m[0] for PQ, m[1]
 * for QP. */
static const struct pld_mech_type bydir_type = {
    .name = "by-direction",
    .copy = pld_mech_kids_copy,
    .equal = pld_mech_kids_equal,
    .free = pld_mech_kids_free};

static int bydir_curve(void *ctx, int dir, size_t n, const double *eps,
                       double *delta)
{
  const struct pld_mech *m = ctx;
  const pld_curve *c = &pld_mech_kids(m)->m[dir == PLD_DIR_PQ ? 0 : 1]->curve;
  return c->delta(c->ctx, dir, n, eps, delta);
}

static int bydir_tails(void *ctx, int dir, size_t n, const double *eps,
                       double *p_gt, double *eq_gt)
{
  const struct pld_mech *m = ctx;
  const pld_curve *c = &pld_mech_kids(m)->m[dir == PLD_DIR_PQ ? 0 : 1]->curve;
  return c->tails(c->ctx, dir, n, eps, p_gt, eq_gt);
}

static int bydir(const pld_mech *pq, const pld_mech *qp, pld_mech **out)
{
  struct pld_mech *m = pld_mech_new(&bydir_type);
  if (!m)
    return PLD_ENOMEM;
  int st = pld_mech_kids_init(m, 2, 0);
  struct pld_mech_kids *k = m->state;
  if (!st)
    st = pld_mech_copy(pq, &k->m[0]);
  if (!st)
    st = pld_mech_copy(qp, &k->m[1]);
  if (st) {
    pld_mech_free(m);
    return st;
  }
  m->curve.delta = bydir_curve;
  m->curve.tails = pq->curve.tails && qp->curve.tails ? bydir_tails : NULL;
  m->curve.symmetric = 0;
  m->curve.rel_err = fmax(pq->curve.rel_err, qp->curve.rel_err);
  m->curve.loss_scale = fmax(pq->curve.loss_scale, qp->curve.loss_scale);
  m->curve.loss_lattice = 0.0;
  *out = m;
  return PLD_SUCCESS;
}

/* Most P components of the with-replacement mixture (Q has one; the
 * mixture kind takes 64 in all). */
#define WR_MAX_COMPONENTS 63

/* Fixed-size batches with replacement, add/remove (docs/samplers.md §3):
 * P = sum_k Bin(b, 1/n)(k) N(2 k c, sigma^2), Q = N(0, sigma^2).  With
 * more than 63 possible counts, the counts from 62 on are moved onto k = b
 * (a larger shift dominates, by the lemma's step (ii)). */
static int fixed_wr_pair(uint64_t b, uint64_t n, double sigma, double c,
                         pld_mech **out)
{
  double N = (double)b, q = 1.0 / (double)n;
  double w[WR_MAX_COMPONENTS], r[WR_MAX_COMPONENTS], mean[WR_MAX_COMPONENTS];
  int nk = 0;
  /* q is 1/n within u relative: the pmf moves by (k + b q)/(1 - q) u */
  double qrel = 2.0 * PLD_U * (1.0 + N * q) / (1.0 - fmin(q, 0.5));
  int last = b + 1 <= WR_MAX_COMPONENTS ? (int)b : WR_MAX_COMPONENTS - 2;
  for (int k = 0; k <= last; k++) {
    double rk;
    double v = q == 1.0 ? (k == (int)b ? 1.0 : 0.0) : dbinom((double)k, N, q, &rk);
    if (q == 1.0)
      rk = 0.0;
    if (!(v > 0.0))
      continue; /* below the smallest double: dropped */
    if (!(rk < 1e-6))
      return pld_fail(PLD_ERANGE, "the with-replacement weights could not be computed within the booked accuracy");
    w[nk] = v;
    r[nk] = rk + qrel * (1.0 + k);
    mean[nk] = 2.0 * (double)k * c;
    nk++;
  }
  if ((uint64_t)last < b && q < 1.0) {
    double lo, hi, rt;
    int st = binom_split(N, q, (double)last + 1.0, &lo, &hi, &rt);
    if (st)
      return pld_fail(PLD_ERANGE, "the with-replacement tail could not be summed");
    if (hi > 0.0) {
      w[nk] = hi;
      r[nk] = rt + qrel * N;
      mean[nk] = 2.0 * N * c;
      nk++;
    }
  }
  double whi[WR_MAX_COMPONENTS], wlo[WR_MAX_COMPONENTS];
  for (int k = 0; k < nk; k++) {
    whi[k] = up(w[k] * (1.0 + r[k] + 2.0 * PLD_U));
    wlo[k] = fmax(dn(w[k] * (1.0 - r[k] - 2.0 * PLD_U)), DBL_MIN);
  }
  const double one = 1.0, zero = 0.0;
  pld_mech *mhi = NULL, *mlo = NULL, *u = NULL, *l = NULL;
  int st = pld_mech_mixture_gaussian(sigma, (size_t)nk, whi, mean, 1, &one,
                                     &zero, &mhi);
  if (!st)
    st = pld_mech_mixture_gaussian(sigma, (size_t)nk, wlo, mean, 1, &one,
                                   &zero, &mlo);
  /* upper: PQ with the weights high, QP with them low; lower the reverse */
  if (!st)
    st = bydir(mhi, mlo, &u);
  if (!st)
    st = bydir(mlo, mhi, &l);
  if (!st)
    st = pld_mech_bracket(u, l, out);
  pld_mech_free(mhi);
  pld_mech_free(mlo);
  pld_mech_free(u);
  pld_mech_free(l);
  return st;
}

int pld_mech_fixed_batch_gaussian(uint64_t b, uint64_t n, double sigma,
                                  double c, int with_replacement,
                                  pld_adjacency adjacency, pld_mech **out)
{
  pld_detail_clear();
  if (!out)
    return pld_fail(PLD_EINVAL, "out is NULL");
  if (adjacency != PLD_ADJ_ADD_REMOVE && adjacency != PLD_ADJ_ZERO_OUT &&
      adjacency != PLD_ADJ_REPLACE_ONE)
    return pld_fail(PLD_EINVAL, "adjacency = %d is not a pld_adjacency",
                    (int)adjacency);
  /* under add/remove the dataset without the record (n - 1 records) must
   * still fill a batch without replacement, or be non-empty with it */
  uint64_t bmax = adjacency == PLD_ADJ_ADD_REMOVE ? n - 1 : n;
  if (n < 1 || n > PLD_SAMPLER_MAX_N || b < 1 || b > PLD_SAMPLER_MAX_N ||
      (!with_replacement && b > bmax) || (with_replacement && n < 2))
    return pld_fail(PLD_EINVAL,
                    "b = %llu, n = %llu: need 1 <= b%s, n <= 2^52 (n counts "
                    "the record%s)",
                    (unsigned long long)b, (unsigned long long)n,
                    with_replacement ? ", n >= 2"
                    : adjacency == PLD_ADJ_ADD_REMOVE ? " <= n - 1" : " <= n",
                    adjacency == PLD_ADJ_ADD_REMOVE ? ": the neighbour has n - 1" : "");
  if (!isfinite(c) || !(c > 0.0) || !isfinite(2.0 * c))
    return pld_fail(PLD_EINVAL, "c = %g must be finite and > 0", c);
  if (with_replacement) {
    if (adjacency != PLD_ADJ_ADD_REMOVE)
      return pld_fail(PLD_EUNSUPPORTED,
                      "fixed-size batches with replacement under %s: no "
                      "tight pair derived (docs/samplers.md section 3); "
                      "add/remove is implemented",
                      adjacency == PLD_ADJ_ZERO_OUT ? "zero-out" : "replace-one");
    if (!isfinite(sigma) || !(sigma > 0.0))
      return pld_fail(PLD_EINVAL, "sigma = %g must be finite and > 0", sigma);
    double top = 2.0 * (double)b * c / sigma;
    if (!(top <= 1e6) || !(2.0 * c / sigma >= 1e-12))
      return pld_fail(PLD_EINVAL,
                      "2 b c / sigma = %g must be at most 1e6 (and 2c/sigma "
                      ">= 1e-12): the mixture's largest shift",
                      top);
    return fixed_wr_pair(b, n, sigma, c, out);
  }
  if (adjacency != PLD_ADJ_ADD_REMOVE)
    /* zero-out and replace-one: Balle et al.'s curve with the largest of
     * the distances, 2c (docs/samplers.md section 3) */
    return pld_mech_wor_gaussian(b, n, sigma, 2.0 * c, out);
  /* add/remove: the displaced record doubles the shift, PG(b/n, 2c),
   * attained; the rate rounded both ways when b/n is not a double (the
   * subsampled Gaussian grows with its rate) */
  double up, dn;
  ratio_bracket((double)b, (double)n, &up, &dn);
  if (up == dn)
    return pld_mech_poisson_gaussian(up, sigma, 2.0 * c, out);
  pld_mech *u = NULL, *l = NULL;
  int st = pld_mech_poisson_gaussian(up, sigma, 2.0 * c, &u);
  if (!st)
    st = pld_mech_poisson_gaussian(dn, sigma, 2.0 * c, &l);
  if (!st)
    st = pld_mech_bracket(u, l, out);
  pld_mech_free(u);
  pld_mech_free(l);
  return st;
}

int pld_shuffling_epsilon(uint64_t T, uint64_t epochs, double sigma, double c,
                          pld_adjacency adjacency, double delta,
                          const pld_params *params, pld_bound *upper,
                          pld_bound *lower)
{
  pld_detail_clear();
  if (!upper || !lower)
    return pld_fail(PLD_EINVAL, "upper or lower is NULL");
  if (adjacency == PLD_ADJ_ADD_REMOVE)
    return pld_fail(PLD_EUNSUPPORTED,
                    "shuffling under add/remove: an inserted record moves "
                    "every later record's batch; use replace-one or zero-out "
                    "(docs/samplers.md section 6)");
  if (adjacency != PLD_ADJ_ZERO_OUT && adjacency != PLD_ADJ_REPLACE_ONE)
    return pld_fail(PLD_EINVAL, "adjacency = %d is not a pld_adjacency",
                    (int)adjacency);
  if (epochs < 1 || epochs > (1ULL << 53))
    return pld_fail(PLD_EINVAL, "epochs = %llu must be in [1, 2^53]",
                    (unsigned long long)epochs);
  if (!isfinite(c) || !(c > 0.0))
    return pld_fail(PLD_EINVAL, "c = %g must be finite and > 0", c);
  if (!(delta > 0.0 && delta < 1.0))
    return pld_fail(PLD_EINVAL, "delta = %g must be in (0, 1)", delta);
  double s = adjacency == PLD_ADJ_REPLACE_ONE ? 2.0 * c : c;
  /* the guarantee: every epoch is at most the Gaussian mechanism with
   * shift s once the permutation is revealed (x's batch is the only one
   * that differs), and adaptive composition */
  pld_accountant *acc = NULL;
  pld_mech *g = NULL;
  pld_result r;
  int st = pld_mech_gaussian(sigma, s, &g);
  if (!st)
    st = pld_accountant_alloc(params, &acc);
  if (!st)
    st = pld_accountant_add(acc, g, epochs);
  if (!st)
    st = pld_accountant_epsilon(acc, delta, &r);
  pld_accountant_free(acc);
  pld_mech_free(g);
  if (st)
    return st;
  /* the lower bound: the dataset with the others at -c makes every batch
   * sum -b c but x's, which moves by s: one-of-T allocation with shift s,
   * fresh each epoch (docs/samplers.md section 6) */
  pld_bound lb;
  st = pld_allocation_epsilon(T, 1, sigma, s, epochs, delta, params, &lb);
  if (st)
    return st;
  *upper = r.bound;
  *lower = lb;
  return PLD_SUCCESS;
}

int pld_accountant_add_bandmf_cyclic_poisson(pld_accountant *acc,
                                             uint64_t steps, uint64_t bands,
                                             double q, double sigma, double c,
                                             double col_norm)
{
  pld_detail_clear();
  if (!acc)
    return pld_fail(PLD_EINVAL, "acc is NULL");
  if (steps < 1 || bands < 1)
    return pld_fail(PLD_EINVAL, "steps = %llu and bands = %llu must be >= 1",
                    (unsigned long long)steps, (unsigned long long)bands);
  if (!isfinite(col_norm) || !(col_norm > 0.0) || !isfinite(c) || !(c > 0.0))
    return pld_fail(PLD_EINVAL, "c = %g and col_norm = %g must be finite and > 0",
                    c, col_norm);
  /* participations of the worst group (the one sampled at step 0) */
  uint64_t count = steps / bands + (steps % bands != 0);
  pld_mech *m = NULL;
  int st = pld_mech_poisson_gaussian(q, sigma, c * col_norm, &m);
  if (!st)
    st = pld_accountant_add(acc, m, count);
  pld_mech_free(m);
  return st;
}

int pld_accountant_add_truncated_poisson(pld_accountant *acc, uint64_t n,
                                         double q, uint64_t B, double sigma,
                                         double c, pld_adjacency adjacency,
                                         pld_truncation_pair which,
                                         uint64_t count)
{
  pld_detail_clear();
  if (!acc)
    return pld_fail(PLD_EINVAL, "acc is NULL");
  if (count < 1 || count > (1ULL << 53))
    return pld_fail(PLD_EINVAL, "count = %llu must be in [1, 2^53]",
                    (unsigned long long)count);
  pld_mech *m = NULL;
  int st;
  if (adjacency == PLD_ADJ_ADD_REMOVE && which == PLD_TRUNC_BEST) {
    pld_mech *a = NULL, *b = NULL;
    st = pld_mech_truncated_poisson_gaussian_pair(n, q, B, sigma, c, adjacency,
                                                  PLD_TRUNC_BRANCH, &a);
    if (!st && q < 1.0)
      st = pld_mech_truncated_poisson_gaussian_pair(n, q, B, sigma, c,
                                                    adjacency, PLD_TRUNC_SIZE,
                                                    &b);
    if (!st) {
      pld_params p;
      st = pld_accountant_get_params(acc, &p);
      /* both dominate: the one that answers the smaller epsilon for these
       * steps (either choice is sound) */
      if (!st && b && eps_of_params(b, count, &p) < eps_of_params(a, count, &p)) {
        m = b;
        b = NULL;
      } else if (!st) {
        m = a;
        a = NULL;
      }
    }
    pld_mech_free(a);
    pld_mech_free(b);
  } else {
    st = pld_mech_truncated_poisson_gaussian_pair(n, q, B, sigma, c, adjacency,
                                                  which, &m);
  }
  if (!st)
    st = pld_accountant_add(acc, m, count);
  pld_mech_free(m);
  return st;
}
