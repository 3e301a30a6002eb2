/* pldkit RDP backend: mechanisms.
 *
 * Each mechanism fills a temporary array with an upper bound on its RDP at
 * every order of the curve and then adds count times that array with
 * pld_rdp_curve_add_values (so that a failure leaves the curve untouched).
 *
 * Rounding.  Parameters are first turned into the pessimistic side by
 * directed rounding (noise rounded down, sensitivity/noise ratios rounded
 * up), then each formula is evaluated in log space.  A log-space term
 * t = a_1 + ... + a_m computed in floating point errs by at most a few ulps
 * of sum |a_k|; every term carries such a bound e, positive terms are summed
 * as exp(t + e) and negative ones as exp(t - e), and the summation error
 * ((terms + 2) u relative to the sum of magnitudes) is added on top.  The
 * factor 4u per operation used below is about twice what the standard error
 * model needs.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include <pldkit/rdp.h>

#include "alloc.h"
#include "numerics.h"
#include "detail.h"


/* Orders above this use a closed-form bound instead of an O(alpha) sum. */
#define BIG_ORDER 65536.0
/* Fractional orders: terms per region before PLD_EMAXITER. */
#define MAX_TERMS 1000000L
/* Fractional orders: stop once the rigorous tail bound is below this
 * (absolute on the moment A >= 1, scaled up when A is large). */
#define LOG_TAIL_TOL (-29.933606208922594) /* log(1e-13) */

/* ------------------------------------------------------------------------ */
/* Directed rounding and small helpers.                                       */

/* Make v (a non-negative upper bound computed with absolute error <= err)
 * safe: add the error and step one ulp up for the last rounding. */
static double bump(double v, double err)
{
  double r = v + err;
  if (r < 0.0)
    r = 0.0;
  return isfinite(r) ? nextafter(r, INFINITY) : r;
}

static int positive_finite(double x) { return isfinite(x) && x > 0.0; }

static int is_integer(double a) { return a == floor(a); }

/* Running log-sum-exp of positive terms exp(t): m is the running maximum,
 * s the sum of exp(t - m). */
typedef struct lse {
  double m, s;
  long n;
} lse;

static void lse_init(lse *x)
{
  x->m = -INFINITY;
  x->s = 0.0;
  x->n = 0;
}

static void lse_add(lse *x, double t)
{
  if (t == -INFINITY)
    return;
  x->n++;
  if (t <= x->m) {
    x->s += exp(t - x->m);
  } else {
    x->s = x->s * exp(x->m - t) + 1.0;
    x->m = t;
  }
}

/* Upper bound on log(sum): each exp and each addition errs by <= u
 * relative, in total <= (n + 2) u relative, so log errs by <= (n + 2) u
 * plus the rounding of the final log and sum. */
static double lse_up(const lse *x)
{
  if (x->n == 0)
    return -INFINITY;
  double l = log(x->s);
  return x->m + l + 2.0 * (double)(x->n + 2) * PLD_U + 4.0 * PLD_U * (fabs(x->m) + fabs(l));
}

/* Shared driver: fill tmp[i] through f for every order, then add. */
typedef int (*order_fn)(const void *ctx, double alpha, double *val);

static int add_mechanism(pld_rdp_curve *c, order_fn f, const void *ctx,
                         uint64_t count)
{
  size_t n = pld_rdp_curve_size(c);
  const double *orders = pld_rdp_curve_orders(c);
  double *tmp = pld_malloc(n * sizeof(double));
  if (!tmp)
    return PLD_ENOMEM;
  int st = PLD_SUCCESS;
  for (size_t i = 0; i < n && !st; i++)
    st = f(ctx, orders[i], &tmp[i]);
  if (!st)
    st = pld_rdp_curve_add_values(c, tmp, count);
  pld_free(tmp);
  return st;
}

/* ------------------------------------------------------------------------ */
/* Gaussian: alpha * s^2 / (2 sigma^2) (Mironov 2017, Prop. 7).               */

/* s^2 / (2 sigma^2) rounded up. */
static double half_ratio_sq_up(double sens, double sigma)
{
  double x = pld_div_up(sens, sigma);
  double r = pld_mul_up(pld_mul_up(x, x), 0.5);
  /* an underflow to 0 would round the wrong way */
  return r > 0.0 ? r : nextafter(0.0, 1.0);
}

static int gauss_order(const void *ctx, double a, double *val)
{
  *val = pld_mul_up(a, *(const double *)ctx);
  return PLD_SUCCESS;
}

int pld_rdp_add_gaussian(pld_rdp_curve *c, double sigma, double sensitivity,
                         uint64_t count)
{
  pld_detail_clear();
  if (!c || !positive_finite(sigma) || !positive_finite(sensitivity) ||
      count == 0)
    return pld_fail(PLD_EINVAL,
                    "sigma = %g and sensitivity = %g must be finite and > 0, count = %llu "
                    ">= 1, the curve non-NULL", sigma, sensitivity, (unsigned long long)count);
  double r = half_ratio_sq_up(sensitivity, sigma);
  return add_mechanism(c, gauss_order, &r, count);
}

/* ------------------------------------------------------------------------ */
/* Laplace (Mironov 2017, Prop. 6), t = sensitivity / b:                      */
/*   (alpha-1) eps = log( alpha/(2alpha-1) e^{(alpha-1)t}                     */
/*                        + (alpha-1)/(2alpha-1) e^{-alpha t} ).              */
/* For small (alpha-1)t the argument is 1 + B with                            */
/*   B = (alpha expm1((alpha-1)t) + (alpha-1) expm1(-alpha t)) / (2alpha-1)   */
/* (the two 1's cancel exactly), so eps = log1p(B)/(alpha-1).  The two terms  */
/* of B still cancel to first order (B ~ alpha(alpha-1)t^2/2), which costs a  */
/* relative accuracy of ~u/t, booked below.  The loss is bounded by t, so     */
/* D_alpha <= t caps the value.                                               */

static int laplace_order(const void *ctx, double a, double *val)
{
  double t = *(const double *)ctx, am1 = a - 1.0, d = 2.0 * a - 1.0;
  double v;
  if (am1 * t <= 1.0) {
    double e1 = a * expm1(am1 * t), e2 = am1 * expm1(-a * t);
    double B = (e1 + e2) / d;
    double eB = 8.0 * PLD_U * (fabs(e1) + fabs(e2)) / d;
    double lp = log1p(fmax(B + eB, 0.0));
    v = bump(lp / am1, 4.0 * PLD_U * lp / am1);
  } else {
    double x1 = log(a / d) + am1 * t, x2 = log(am1 / d) - a * t;
    double l = pld_logaddexp(x1, x2);
    double err = 8.0 * PLD_U * (fabs(log(a / d)) + am1 * t + fabs(log(am1 / d)) +
                             a * t + fabs(l)) + 4.0 * PLD_U;
    v = bump(l / am1, err / am1 + 4.0 * PLD_U * fabs(l / am1));
  }
  *val = fmin(v, t);
  return PLD_SUCCESS;
}

int pld_rdp_add_laplace(pld_rdp_curve *c, double b, double sensitivity,
                        uint64_t count)
{
  pld_detail_clear();
  if (!c || !positive_finite(b) || !positive_finite(sensitivity) ||
      count == 0)
    return pld_fail(PLD_EINVAL,
                    "b = %g and sensitivity = %g must be finite and > 0, count = %llu >= 1, "
                    "the curve non-NULL", b, sensitivity, (unsigned long long)count);
  double t = pld_div_up(sensitivity, b);
  if (!isfinite(t))
    return pld_fail(PLD_EINVAL, "sensitivity/b = %g/%g overflows", sensitivity, b);
  return add_mechanism(c, laplace_order, &t, count);
}

/* ------------------------------------------------------------------------ */
/* k-ary randomized response, replace-one.  With S = e^eps0 + k - 1, the     */
/* outputs x (true value under D), x' (under D') and the k-2 others give     */
/*   sum_y p^alpha p'^(1-alpha) = (e^{alpha eps0} + e^{(1-alpha) eps0}        */
/*                                 + k - 2) / S,                              */
/* and subtracting S/S = 1 exactly:                                           */
/*   e^{alpha e} + e^{(1-alpha) e} - e^e - 1                                  */
/*     = (e^{(alpha-1)e} - 1)(e^e - e^{-(alpha-1)e})                          */
/*     = expm1((alpha-1)e) e^e (1 - e^{-alpha e})  =: A >= 0,                 */
/* so (alpha-1) eps = log1p(A / S), every factor free of cancellation.  The  */
/* largest loss is eps0, which caps the value.  Both directions are equal.  */

typedef struct rr_ctx {
  double e, logk1;
} rr_ctx;

static int rr_order(const void *ctx, double a, double *val)
{
  const rr_ctx *r = ctx;
  double e = r->e, am1 = a - 1.0;
  if (e == 0.0) {
    *val = 0.0;
    return PLD_SUCCESS;
  }
  double x = am1 * e, y = a * e;
  double lA = pld_log_expm1(x) + e + pld_log1mexp(y);
  double lS = pld_logaddexp(e, r->logk1);
  double dl = lA - lS;
  double err = 8.0 * PLD_U * (fabs(lA) + x + e + fabs(pld_log1mexp(y)) + 2.0 +
                           fabs(lS) + r->logk1);
  double l = pld_logaddexp(0.0, dl + err);
  *val = fmin(bump(l / am1, 4.0 * PLD_U * l / am1), e);
  return PLD_SUCCESS;
}

int pld_rdp_add_randomized_response(pld_rdp_curve *c, double eps0, int64_t k,
                                    uint64_t count)
{
  pld_detail_clear();
  if (!c || !isfinite(eps0) || !(eps0 >= 0.0) || k < 2 ||
      k > ((int64_t)1 << 53) || count == 0)
    return pld_fail(PLD_EINVAL,
                    "epsilon0 = %g must be finite and >= 0, k = %lld in [2, 2^53], count = "
                    "%llu >= 1, the curve non-NULL", eps0, (long long)k, (unsigned long long)count);
  rr_ctx r = {eps0, log((double)(k - 1))};
  return add_mechanism(c, rr_order, &r, count);
}

/* ------------------------------------------------------------------------ */
/* Poisson-subsampled Gaussian (sampled Gaussian mechanism).                  */
/*                                                                            */
/* In units of the sensitivity the pair is mu = (1-q) N(0,z^2) + q N(1,z^2)  */
/* versus mu0 = N(0, z^2), z = sigma / sensitivity (rounded down: the RDP    */
/* decreases in z).  With r(x) = mu1/mu0 = exp((2x - 1)/(2z^2)),              */
/*   A_alpha = E_{mu0}[(1 - q + q r)^alpha],  eps = log(A_alpha)/(alpha-1).   */
/* MTZ 2019 (Sec. 3) show D_alpha(mu || mu0) >= D_alpha(mu0 || mu), so this  */
/* one direction is the RDP of the mechanism under add/remove adjacency.      */

typedef struct sgm {
  double q, z, Lq, L1q, h, z0; /* h = 1/(2 z^2) rounded up */
} sgm;

/* Integer alpha = k: E[r^j] = e^{j(j-1) h}, so
 *   A = sum_j C(k,j) (1-q)^{k-j} q^j e^{j(j-1)h}
 * (the model-splitting paper's Thm 3.11; its first two terms are merged
 * there into (1-q)^{k-1}(1 + (k-1) q)).  Since sum_j C(k,j)(1-q)^{k-j} q^j
 * = 1, A - 1 = B = sum_{j>=2} C(k,j)(1-q)^{k-j} q^j expm1(j(j-1)h) with all
 * terms positive; eps = log1p(B)/(k-1) keeps full relative accuracy even
 * when eps ~ 1e-12. */
static double sgm_int(const sgm *g, double k)
{
  lse acc;
  lse_init(&acc);
  double logC = log(k), ec = 4.0 * PLD_U * logC; /* log C(k,1), its error */
  for (double j = 2.0; j <= k; j += 1.0) {
    double a1 = log(k - j + 1.0), a2 = log(j);
    logC += a1 - a2;
    ec += 4.0 * PLD_U * (a1 + a2 + fabs(logC));
    double x = j * (j - 1.0) * g->h;
    double le = pld_log_expm1(x);
    double p1 = (k - j) * g->L1q, p2 = j * g->Lq;
    double t = logC + p1 + p2 + le;
    double e = ec + 4.0 * PLD_U * (fabs(logC) + fabs(p1) + fabs(p2) + fabs(le) +
                                2.0 * (x + 1.0) + fabs(t));
    lse_add(&acc, t + e);
  }
  double lB = lse_up(&acc);
  /* log1p(e^lB) is relatively accurate (pld_logaddexp) */
  double l = pld_logaddexp(0.0, lB);
  return bump(l / (k - 1.0), 4.0 * PLD_U * l / (k - 1.0));
}

/* Fractional alpha (MTZ 2019, Sec. 3.3).  Split the line at z0, where
 * q r(z0) = 1 - q.  On x <= z0 write (1-q+qr)^alpha = (1-q)^alpha (1+t)^alpha
 * with t = q r/(1-q) <= 1 and expand in t; on x > z0 write it as
 * (qr)^alpha (1+s)^alpha with s = 1/t and expand in s.  Integrating term by
 * term under mu0:
 *   region 1, term i: C(alpha,i) (1-q)^{alpha-i} q^i e^{(i^2-i)h} Phi((z0-i)/z)
 *   region 2, term i: C(alpha,i) (1-q)^i q^{alpha-i} e^{(b^2-b)h}
 *                     Phi((b-z0)/z),  b = alpha - i.
 * Truncation: by Taylor's theorem with Lagrange remainder, for every t >= 0
 * and m + 1 > alpha,
 *   (1+t)^alpha - sum_{i<=m} C(alpha,i) t^i = C(alpha,m+1) (1+xi)^{alpha-m-1}
 *                                            t^{m+1},  0 <= xi <= t,
 * and (1+xi)^{alpha-m-1} is in (0, 1].  So the remainder has the sign of
 * C(alpha,m+1) and is at most |C(alpha,m+1)| t^{m+1} pointwise, hence after
 * integration at most the first omitted term.  This holds for any split
 * point (even t > 1), so the rounding of z0 costs nothing.  We stop at the
 * first index m+1 > alpha whose term is below the tolerance and add it if it
 * is positive. */
static int sgm_region(const sgm *g, double a, int region, double tol_scale,
                      double *log_up)
{
  lse pos, neg;
  lse_init(&pos);
  lse_init(&neg);
  double logC = 0.0, ec = 0.0, sign = 1.0, tail = -INFINITY;
  for (long i = 0;; i++) {
    if (i >= MAX_TERMS)
      return PLD_EMAXITER;
    double di = (double)i, b = a - di;
    double p1, p2, ex, arg;
    if (region == 1) {
      p1 = b * g->L1q;
      p2 = di * g->Lq;
      ex = (di * di - di) * g->h;
      arg = (g->z0 - di) / g->z;
    } else {
      p1 = di * g->L1q;
      p2 = b * g->Lq;
      ex = (b * b - b) * g->h;
      arg = (b - g->z0) / g->z;
    }
    double lphi = pld_log_ndtr(arg);
    double t = logC + p1 + p2 + ex + lphi;
    /* pld_log_ndtr is accurate to a few ulps; a relative error u in its
     * argument moves it by u |arg| times (log Phi)'(arg) = phi/Phi, which is
     * below 0.8 for arg >= 0 and below |arg| + 1 for arg < 0 (Mills). */
    double sens = fabs(arg) * (arg < 0.0 ? fabs(arg) + 1.0 : 1.0);
    double e = ec + 4.0 * PLD_U * (fabs(logC) + fabs(p1) + fabs(p2) + 2.0 * fabs(ex) +
                                fabs(lphi) + sens + fabs(t));
    if (di > a && t + e <= LOG_TAIL_TOL + tol_scale) {
      /* first omitted term: bounds the whole remainder */
      if (sign > 0.0)
        tail = t + e;
      break;
    }
    if (sign > 0.0)
      lse_add(&pos, t + e);
    else
      lse_add(&neg, t - e);
    /* next coefficient: C(alpha,i+1) = C(alpha,i) (alpha-i)/(i+1) */
    double f1 = log(fabs(b)), f2 = log(di + 1.0);
    logC += f1 - f2;
    ec += 4.0 * PLD_U * (fabs(f1) + f2 + fabs(logC));
    if (b < 0.0)
      sign = -sign;
  }
  /* upper = pos_up - neg_down + tail, all in log space */
  double lp = lse_up(&pos);
  double ln = neg.n ? neg.m + log(neg.s) - 2.0 * (double)(neg.n + 2) * PLD_U -
                          4.0 * PLD_U * (fabs(neg.m) + fabs(log(neg.s)))
                    : -INFINITY;
  lp = pld_logaddexp(lp, tail);
  if (ln >= lp) /* cannot happen for a positive integral; be safe */
    return PLD_EMAXITER;
  /* log(e^lp - e^ln) errs by a few ulps of lp relative to the result */
  double d = pld_logsubexp(lp, ln);
  *log_up = d + 8.0 * PLD_U * (fabs(lp) + 1.0) / (-expm1(ln - lp)) ;
  return PLD_SUCCESS;
}

static double sgm_big(const sgm *g, double a)
{
  /* joint convexity of (P, Q) -> int p^a q^(1-a): for both directions
   * A <= (1 - q) + q e^{a(a-1)h} */
  double x = pld_mul_up(pld_mul_up(a, a - 1.0), g->h);
  double l = pld_logaddexp(g->L1q, g->Lq + x);
  double err = 8.0 * PLD_U * (fabs(g->L1q) + fabs(g->Lq) + x + fabs(l) + 1.0);
  return bump(l / (a - 1.0), err / (a - 1.0));
}

static int sgm_order(const void *ctx, double a, double *val)
{
  const sgm *g = ctx;
  /* no sampling: the Gaussian, alpha / (2 z^2).  Huge noise: the same
   * value is an upper bound (subsampling is a mixture, D_alpha is jointly
   * quasi-convex) and avoids infinities in the split point below. */
  if (g->q == 1.0 || g->z > 1e100) {
    *val = pld_mul_up(a, g->h);
    return PLD_SUCCESS;
  }
  if (a > BIG_ORDER) {
    *val = sgm_big(g, a);
    return PLD_SUCCESS;
  }
  if (is_integer(a)) {
    *val = sgm_int(g, a);
    return PLD_SUCCESS;
  }
  /* A grows like e^{a(a-1)h} q^a at worst; scale the tolerance with a cheap
   * lower estimate of log A: the largest of the two pure terms is below
   * log A only up to log(1/q) a, so use max(0, .) of a safe lower value. */
  double scale = fmax(0.0, a * (a - 1.0) * g->h + a * g->Lq);
  double l1, l2;
  int st = sgm_region(g, a, 1, scale, &l1);
  if (!st)
    st = sgm_region(g, a, 2, scale, &l2);
  if (st)
    return st;
  double l = pld_logaddexp(l1, l2);
  /* log(e^l1 + e^l2) = hi + log1p(e^{lo - hi}): a few ulps of |hi|, of the
   * result, and of |lo - hi| e^{lo - hi} */
  double hi = fmax(l1, l2), lo = fmin(l1, l2);
  double err = 8.0 * PLD_U * (fabs(l) + fabs(hi) + fabs(lo - hi) * exp(lo - hi));
  /* A >= 1 in exact arithmetic (Renyi divergences are >= 0) */
  *val = bump(fmax(l, 0.0) / (a - 1.0), err / (a - 1.0));
  return PLD_SUCCESS;
}

int pld_rdp_add_poisson_gaussian(pld_rdp_curve *c, double q, double sigma,
                                 double sensitivity, uint64_t count)
{
  pld_detail_clear();
  if (!c || !(q > 0.0 && q <= 1.0) || !positive_finite(sigma) ||
      !positive_finite(sensitivity) || count == 0)
    return pld_fail(PLD_EINVAL,
                    "q = %g must be in (0, 1], sigma = %g and sensitivity = %g finite and "
                    "> 0, count = %llu >= 1, the curve non-NULL", q, sigma, sensitivity, (unsigned long long)count);
  sgm g;
  g.q = q;
  g.z = pld_div_down(sigma, sensitivity);
  if (!positive_finite(g.z))
    return pld_fail(PLD_EINVAL, "sigma/sensitivity = %g/%g is not a positive finite number",
                    sigma, sensitivity);
  g.h = pld_div_up(0.5, pld_mul_down(g.z, g.z));
  if (g.h == 0.0) /* z^2 overflowed: 1/(2 z^2) is below the smallest double */
    g.h = nextafter(0.0, 1.0);
  if (!positive_finite(g.h))
    return pld_fail(PLD_EINVAL, "sigma/sensitivity = %g/%g is too small (1/(2 z^2) overflows)",
                    sigma, sensitivity);
  g.Lq = log(q);
  g.L1q = log1p(-q);
  g.z0 = q < 1.0 ? 0.5 + g.z * g.z * (g.L1q - g.Lq) : -INFINITY;
  return add_mechanism(c, sgm_order, &g, count);
}

/* ------------------------------------------------------------------------ */
/* Sampling without replacement, Gaussian base, replace-one (Wang, Balle,    */
/* Kasiviswanathan 2019, Thm 9).  With eps_M(j) = j r and eps_M(inf) = inf: */
/*   (k-1) eps(k) <= log(1 + g^2 C(k,2) min{4 expm1(2r), 2 e^{2r}}           */
/*                      + sum_{j=3}^k 2 g^j C(k,j) e^{(j-1) j r}).            */

typedef struct wor {
  double Lg, r; /* log gamma (gamma rounded up), r rounded up */
} wor;

/* Upper bound on (k-1) eps(k), integer k >= 2. */
static double wor_K(const wor *w, double k)
{
  lse acc;
  lse_init(&acc);
  double logC = log(k), ec = 4.0 * PLD_U * logC;
  for (double j = 2.0; j <= k; j += 1.0) {
    double a1 = log(k - j + 1.0), a2 = log(j);
    logC += a1 - a2;
    ec += 4.0 * PLD_U * (a1 + a2 + fabs(logC));
    double p = j * w->Lg, t, e;
    if (j == 2.0) {
      double m1 = log(4.0) + pld_log_expm1(2.0 * w->r), m2 = log(2.0) + 2.0 * w->r;
      double m = fmin(m1, m2);
      t = p + logC + m;
      e = ec + 4.0 * PLD_U * (fabs(p) + fabs(logC) + fabs(m) + 2.0 * (2.0 * w->r + 1.0) +
                           fabs(t));
    } else {
      double x = j * (j - 1.0) * w->r;
      t = log(2.0) + p + logC + x;
      e = ec + 4.0 * PLD_U * (1.0 + fabs(p) + fabs(logC) + 2.0 * x + fabs(t));
    }
    lse_add(&acc, t + e);
  }
  double l = pld_logaddexp(0.0, lse_up(&acc));
  return l + 4.0 * PLD_U * l;
}

static int wor_order(const void *ctx, double a, double *val)
{
  const wor *w = ctx;
  double cap = pld_mul_up(a, w->r); /* the unsampled Gaussian */
  if (a > BIG_ORDER) {
    *val = cap;
    return PLD_SUCCESS;
  }
  double K;
  if (is_integer(a)) {
    K = wor_K(w, a);
  } else {
    /* (alpha-1) D_alpha is convex in alpha and 0 at alpha = 1: on (k, k+1)
     * it lies below the chord through the bounds at k and k+1. */
    /* Its chord on G booked for rounding; splitting_rdp.c's goes from B. */
    double k = floor(a), th = a - k;
    double Kk = k >= 2.0 ? wor_K(w, k) : 0.0, Kk1 = wor_K(w, k + 1.0);
    K = (1.0 - th) * Kk + th * Kk1;
    K += 4.0 * PLD_U * (Kk + Kk1);
  }
  double v = bump(K / (a - 1.0), 4.0 * PLD_U * K / (a - 1.0));
  *val = fmin(v, cap);
  return PLD_SUCCESS;
}

int pld_rdp_add_wor_gaussian(pld_rdp_curve *c, uint64_t batch, uint64_t n,
                             double sigma, double sensitivity, uint64_t count)
{
  pld_detail_clear();
  if (!c || batch == 0 || n == 0 || batch > n || !positive_finite(sigma) ||
      !positive_finite(sensitivity) || count == 0)
    return pld_fail(PLD_EINVAL,
                    "need 1 <= batch = %llu <= n = %llu, sigma = %g and sensitivity = %g "
                    "finite and > 0, count = %llu >= 1, the curve non-NULL",
                    (unsigned long long)batch, (unsigned long long)n, sigma, sensitivity, (unsigned long long)count);
  wor w;
  /* gamma = batch / n rounded up (the bound increases with gamma) */
  double bu = (double)batch, nd = (double)n;
  if (batch > ((uint64_t)1 << 53))
    bu = nextafter(bu, INFINITY);
  if (n > ((uint64_t)1 << 53))
    nd = nextafter(nd, 0.0);
  double g = fmin(pld_div_up(bu, nd), 1.0);
  w.Lg = log(g);
  w.Lg = w.Lg + 2.0 * PLD_U * fabs(w.Lg); /* log rounded up */
  if (w.Lg > 0.0)
    w.Lg = 0.0;
  w.r = half_ratio_sq_up(sensitivity, sigma);
  if (!positive_finite(w.r))
    return pld_fail(PLD_EINVAL, "sensitivity/sigma = %g/%g is not a positive finite ratio",
                    sensitivity, sigma);
  return add_mechanism(c, wor_order, &w, count);
}
