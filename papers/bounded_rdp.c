/* pldkit: bounded-support Gaussian mechanisms (bounded-support paper):
 * per-instance RDP of the rectified and truncated Gaussian, their Fisher
 * information loss, the stochastic sign, Prop. 5.1 and Algorithm 1.
 *
 * Notation: support [-a, a]; for a location x,
 *   Delta(x) = Phi((a-x)/sigma) - Phi((-a-x)/sigma)   (mass inside),
 * and for the pair (theta1, theta2) the "mixed" location
 *   m = alpha theta1 + (1-alpha) theta2,
 * which is where alpha (x-theta1)^2 + (1-alpha)(x-theta2)^2 is centred:
 * completing the square,
 *   alpha (x-theta1)^2 + (1-alpha)(x-theta2)^2 = (x-m)^2 - alpha(alpha-1)(theta2-theta1)^2,
 * so int_{-a}^{a} phi_s(x-theta1)^alpha phi_s(x-theta2)^{1-alpha} dx
 *   = exp(alpha(alpha-1)(theta2-theta1)^2/(2 sigma^2)) Delta(m).
 *
 * Rectified (eq. (5), correct as printed): the atoms add
 *   Phi((-a-theta1)/sigma)^alpha Phi((-a-theta2)/sigma)^{1-alpha}
 *   + Phi((theta1-a)/sigma)^alpha Phi((theta2-a)/sigma)^{1-alpha}.
 * Truncated (eq. (6) corrected, App. B's last line): dividing the densities
 * by Delta(theta1), Delta(theta2),
 *   D = alpha c^2/(2 sigma^2) + log(Delta(theta2)/Delta(theta1))
 *       + (log Delta(m) - log Delta(theta1)) / (alpha - 1),   c = theta2 - theta1.
 * The printed eq. (6) has Delta((1-alpha)(c+theta)) and the power 1-alpha.
 *
 * Monotonicity in the shift (why +-C suffices for |shift| <= C; Lemma 4.8
 * covers the truncated forward direction only).  Both families have a
 * likelihood ratio r_t(y)/r_{t'}(y) monotone in y, and the score
 * S_t(y) = d/dt log r_t(y) non-decreasing in y (interior: (y-t)/sigma^2; at
 * the atom -a the score -phi(A)/(sigma Phi(A)) is <= (-a-t)/sigma^2 by the
 * Mills-ratio inequality, symmetrically at +a).  For x > 0,
 *   d/dx int r_t^alpha r_{t+x}^{1-alpha} = (1-alpha) E_{t+x}[(r_t/r_{t+x})^alpha S],
 * the product of a non-increasing and a non-decreasing function of y, so by
 * Chebyshev's covariance inequality E[. S] <= E[.] E[S] = 0 and the
 * derivative is >= 0.  The reverse direction is the same with
 * (r_{t+x}/r_t)^{alpha-1}, non-decreasing, and factor alpha > 0.  Negative
 * shifts follow by the reflection y -> -y, which maps [-a, a] to itself.
 *
 * Everything is evaluated in log space with log Phi accurate deep in the
 * tail (src/numerics.h), so large alpha and far-out theta do not cancel.
 */
#include <float.h>
#include <math.h>

#include <pldkit/bounded.h>

#include "numerics.h"
#include "detail.h"
#include "quad.h"


/* Non-zero (PLD_EINVAL) when (theta, a, sigma) is outside the domain; the
 * failed check is recorded (pld_error_detail), theta named `name` (with
 * index `idx` when idx >= 0, for the vector entry points). */
static int bad_loc(const char *name, long idx, double theta, double a,
                   double sigma)
{
  if (!isfinite(theta)) {
    if (idx >= 0)
      return pld_fail(PLD_EINVAL, "%s[%ld] = %g must be finite", name, idx,
                      theta);
    return pld_fail(PLD_EINVAL, "%s = %g must be finite", name, theta);
  }
  if (!isfinite(a) || !(a > 0.0))
    return pld_fail(PLD_EINVAL, "a = %g (the bound) must be finite and > 0",
                    a);
  if (!isfinite(sigma) || !(sigma > 0.0))
    return pld_fail(PLD_EINVAL, "sigma = %g must be finite and > 0", sigma);
  if (!isfinite(a / sigma))
    return pld_fail(PLD_EINVAL, "a / sigma = %g / %g overflows a double", a,
                    sigma);
  if (!isfinite(theta / sigma)) {
    if (idx >= 0)
      return pld_fail(PLD_EINVAL, "%s[%ld] / sigma = %g / %g overflows a double",
                      name, idx, theta, sigma);
    return pld_fail(PLD_EINVAL, "%s / sigma = %g / %g overflows a double",
                    name, theta, sigma);
  }
  return 0;
}

/* Non-zero (PLD_EINVAL) unless kind is one of the two families; recorded. */
static int bad_kind(int kind)
{
  if (kind != PLD_BOUNDED_RECTIFIED && kind != PLD_BOUNDED_TRUNCATED)
    return pld_fail(PLD_EINVAL,
                    "kind = %d must be PLD_BOUNDED_RECTIFIED (%d) or "
                    "PLD_BOUNDED_TRUNCATED (%d)",
                    kind, PLD_BOUNDED_RECTIFIED, PLD_BOUNDED_TRUNCATED);
  return 0;
}

static int bad_alpha(double alpha)
{
  if (!isfinite(alpha) || !(alpha > 1.0))
    return pld_fail(PLD_EINVAL, "alpha = %g must be finite and > 1", alpha);
  return 0;
}

/* log(Phi(u) - Phi(l)) for l < u, without cancellation in either tail. */
static double log_ndtr_diff(double l, double u)
{
  if (!(u > l))
    return -INFINITY;
  if (l >= 0.0) /* both in the upper tail: Phi(-l) - Phi(-u) */
    return pld_logsubexp(pld_log_ndtr(-l), pld_log_ndtr(-u));
  if (u <= 0.0)
    return pld_logsubexp(pld_log_ndtr(u), pld_log_ndtr(l));
  return log1p(-(pld_ndtr(l) + pld_ndtr(-u)));
}

/* log Delta(x) */
static double log_inside(double x, double a, double sigma)
{
  return log_ndtr_diff((-a - x) / sigma, (a - x) / sigma);
}

static double log_npdf(double z) { return -0.5 * z * z - PLD_LOG_SQRT_2PI; }

/* D_alpha(N^B(theta1) || N^B(theta2)); kind checked by the caller. */
static double bounded_div(int kind, double alpha, double t1, double t2,
                          double a, double s)
{
  double c = t2 - t1, m = alpha * t1 + (1.0 - alpha) * t2;
  double quad = alpha * (alpha - 1.0) * c * c / (2.0 * s * s);
  double r;
  if (kind == PLD_BOUNDED_RECTIFIED) {
    double lo = alpha * pld_log_ndtr((-a - t1) / s) +
                (1.0 - alpha) * pld_log_ndtr((-a - t2) / s);
    double hi = alpha * pld_log_ndtr((t1 - a) / s) +
                (1.0 - alpha) * pld_log_ndtr((t2 - a) / s);
    double mid = quad + log_inside(m, a, s);
    double l = pld_logaddexp(pld_logaddexp(lo, hi), mid);
    double mag = fabs(lo) + fabs(hi) + fabs(mid);
    r = (l + 16.0 * PLD_U * (1.0 + mag)) / (alpha - 1.0);
  } else {
    double l1 = log_inside(t1, a, s), l2 = log_inside(t2, a, s),
           lm = log_inside(m, a, s);
    double mag = quad + fabs(l1) + fabs(l2) + fabs(lm);
    r = alpha * c * c / (2.0 * s * s) + (l2 - l1) + (lm - l1) / (alpha - 1.0) +
        16.0 * PLD_U * (1.0 + mag) / (alpha - 1.0);
  }
  /* D >= 0; rounding may leave a tiny negative value: raising it is safe */
  return r < 0.0 ? 0.0 : r;
}

int pld_rdp_bounded_gaussian_div(int kind, double alpha, double theta1,
                                 double theta2, double a, double sigma,
                                 double *div)
{
  pld_detail_clear();
  if (!div)
    return pld_fail(PLD_EINVAL, "div (the output) must not be NULL");
  /* each check below records its own detail */
  if (bad_kind(kind) || bad_alpha(alpha) ||
      bad_loc("theta1", -1, theta1, a, sigma) ||
      bad_loc("theta2", -1, theta2, a, sigma))
    return PLD_EINVAL;
  double r = bounded_div(kind, alpha, theta1, theta2, a, sigma);
  if (isnan(r))
    return pld_fail_if_silent(PLD_EINVAL,
                              "the divergence is NaN at alpha = %g, theta1 = "
                              "%g, theta2 = %g, a = %g, sigma = %g",
                              alpha, theta1, theta2, a, sigma);
  *div = r;
  return PLD_SUCCESS;
}

static int bad_kind_alpha(int kind, double alpha)
{
  return bad_kind(kind) || bad_alpha(alpha); /* both record the detail */
}

int pld_rdp_bounded_gaussian(int kind, double alpha, double theta, double a,
                             double sigma, double c, double *eps)
{
  pld_detail_clear();
  if (!eps)
    return pld_fail(PLD_EINVAL, "eps (the output) must not be NULL");
  if (bad_kind_alpha(kind, alpha) || bad_loc("theta", -1, theta, a, sigma))
    return PLD_EINVAL; /* detail recorded by the check */
  if (!isfinite(c) || c == 0.0)
    return pld_fail(PLD_EINVAL, "c = %g must be finite and non-zero", c);
  if (!isfinite(theta + c))
    return pld_fail(PLD_EINVAL, "theta + c = %g + %g overflows a double",
                    theta, c);
  double f = bounded_div(kind, alpha, theta, theta + c, a, sigma);
  double b = bounded_div(kind, alpha, theta + c, theta, a, sigma);
  double r = fmax(f, b);
  if (isnan(r))
    return pld_fail_if_silent(PLD_EINVAL,
                              "the divergence is NaN at alpha = %g, theta = "
                              "%g, c = %g, a = %g, sigma = %g",
                              alpha, theta, c, a, sigma);
  *eps = r;
  return PLD_SUCCESS;
}

/* max over shifts +-C of the forward and the reverse divergences */
static void sup_dirs(int kind, double alpha, double theta, double a,
                     double sigma, double C, double *fwd, double *rev)
{
  *fwd = fmax(bounded_div(kind, alpha, theta, theta + C, a, sigma),
              bounded_div(kind, alpha, theta, theta - C, a, sigma));
  *rev = fmax(bounded_div(kind, alpha, theta + C, theta, a, sigma),
              bounded_div(kind, alpha, theta - C, theta, a, sigma));
}

int pld_rdp_bounded_gaussian_sup(int kind, double alpha, double theta,
                                 double a, double sigma, double C, double *eps)
{
  pld_detail_clear();
  if (!eps)
    return pld_fail(PLD_EINVAL, "eps (the output) must not be NULL");
  if (bad_kind_alpha(kind, alpha) || bad_loc("theta", -1, theta, a, sigma))
    return PLD_EINVAL; /* detail recorded by the check */
  if (!isfinite(C) || !(C > 0.0))
    return pld_fail(PLD_EINVAL, "C = %g must be finite and > 0", C);
  if (!isfinite(theta + C) || !isfinite(theta - C))
    return pld_fail(PLD_EINVAL, "theta +- C = %g +- %g overflows a double",
                    theta, C);
  double f, b;
  sup_dirs(kind, alpha, theta, a, sigma, C, &f, &b);
  double r = fmax(f, b);
  if (isnan(r))
    return pld_fail_if_silent(PLD_EINVAL,
                              "the divergence is NaN at alpha = %g, theta = "
                              "%g, C = %g, a = %g, sigma = %g",
                              alpha, theta, C, a, sigma);
  *eps = r;
  return PLD_SUCCESS;
}

int pld_rdp_truncated_gaussian_eq6_paper(double alpha, double theta, double a,
                                         double sigma, double c, double *val)
{
  pld_detail_clear();
  if (!val)
    return pld_fail(PLD_EINVAL, "val (the output) must not be NULL");
  if (bad_alpha(alpha) || bad_loc("theta", -1, theta, a, sigma))
    return PLD_EINVAL; /* detail recorded by the check */
  if (!isfinite(c) || c == 0.0)
    return pld_fail(PLD_EINVAL, "c = %g must be finite and non-zero", c);
  double l0 = log_inside(theta, a, sigma);
  double r = alpha * c * c / (2.0 * sigma * sigma) +
             log_inside(theta + c, a, sigma) - l0 +
             (1.0 - alpha) *
                 (log_inside((1.0 - alpha) * (c + theta), a, sigma) - l0);
  if (isnan(r))
    return pld_fail_if_silent(PLD_EINVAL,
                              "eq. (6) as printed is NaN at alpha = %g, theta "
                              "= %g, c = %g, a = %g, sigma = %g",
                              alpha, theta, c, a, sigma);
  *val = r;
  return PLD_SUCCESS;
}

int pld_rdp_bounded_gaussian_vec(int kind, double alpha, size_t n,
                                 const double *theta, double a, double sigma,
                                 double C, double *eps)
{
  pld_detail_clear();
  if (!eps || !theta)
    return pld_fail(PLD_EINVAL, "eps and theta must not be NULL");
  if (n == 0)
    return pld_fail(PLD_EINVAL, "n = 0: at least one coordinate is needed");
  if (bad_kind_alpha(kind, alpha))
    return PLD_EINVAL; /* detail recorded by the check */
  if (!isfinite(C) || !(C > 0.0))
    return pld_fail(PLD_EINVAL, "C = %g must be finite and > 0", C);
  for (size_t j = 0; j < n; j++) {
    if (bad_loc("theta", (long)j, theta[j], a, sigma))
      return PLD_EINVAL; /* detail recorded by the check */
    if (!isfinite(theta[j] + C) || !isfinite(theta[j] - C))
      return pld_fail(PLD_EINVAL,
                      "theta[%zu] +- C = %g +- %g overflows a double", j,
                      theta[j], C);
  }
  double sf = 0.0, sb = 0.0;
  for (size_t j = 0; j < n; j++) {
    double f, b;
    sup_dirs(kind, alpha, theta[j], a, sigma, C, &f, &b);
    sf += f;
    sb += b;
  }
  double r = fmax(sf, sb) * (1.0 + 2.0 * PLD_U * (double)n);
  if (isnan(r))
    return pld_fail_if_silent(PLD_EINVAL,
                              "the summed divergence is NaN at alpha = %g, n = "
                              "%zu, C = %g, a = %g, sigma = %g",
                              alpha, n, C, a, sigma);
  *eps = r;
  return PLD_SUCCESS;
}

/* ------------------------------------------------------------------------ */
/* Fisher information.                                                       */

/* Variance of N(0,1) truncated to [A, B] when the interval is deep in the
 * lower tail (B <= -8), where the closed form 1 + A r_A - B r_B - (r_A -
 * r_B)^2 cancels: with X = B - U, U has density proportional to exp(-|B| u
 * - u^2/2) on [0, B - A]; its moments over [0, min(B - A, 60/|B|)] (the
 * rest carries < e^{-60} relative) by the core wrapper (GSL CQUAD).  An
 * estimate: the Fisher information is reported, not certified. */
typedef struct tvar_ctx {
  double beta;
  int k;
} tvar_ctx;

static double tvar_f(double u, void *vc, double *err)
{
  const tvar_ctx *c = vc;
  double v = exp(-c->beta * u - 0.5 * u * u);
  for (int i = 0; i < c->k; i++) v *= u;
  *err = v * 4.0 * PLD_U * (1.0 + c->beta * u + 0.5 * u * u);
  return v;
}

static int tail_trunc_var(double A, double B, double *var)
{
  double beta = -B, W = fmin(B - A, 60.0 / beta);
  /* on the stack: this is an O(1) function that does not allocate (CQUAD
   * drops the least important intervals when 16 are full) */
  gsl_integration_cquad_ival iv[16];
  size_t heap[16];
  pld_quad_ws wsl, *ws = &wsl;
  pld_quad_ws_local(ws, iv, heap, 16);
  double m[3];
  int st = PLD_SUCCESS;
  for (int k = 0; k < 3 && st == PLD_SUCCESS; k++) {
    tvar_ctx c = {beta, k};
    pld_quad_result r;
    st = pld_quad(ws, tvar_f, &c, 0.0, W, 0.0, 1e-13, &r);
    m[k] = r.val;
  }
  if (st) return st;
  double mean = m[1] / m[0];
  double v = m[2] / m[0] - mean * mean;
  *var = v > 0.0 ? v : 0.0;
  return PLD_SUCCESS;
}

/* Fisher information of the standardized location for the truncated normal
 * on [A, B]: Var(X) (eq. (3) times sigma^2; correct as printed). */
static int trunc_fi_std(double A, double B, double *I)
{
  if (A >= 0.0) { /* reflect into the lower half */
    double t = A;
    A = -B;
    B = -t;
  }
  if (B <= -8.0)
    return tail_trunc_var(A, B, I);
  double lZ = log_ndtr_diff(A, B);
  double rA = exp(log_npdf(A) - lZ), rB = exp(log_npdf(B) - lZ);
  double v = 1.0 + A * rA - B * rB - (rA - rB) * (rA - rB);
  *I = v > 0.0 ? v : 0.0;
  return PLD_SUCCESS;
}

/* J(A, B) = int_A^B z^2 phi(z) dz via G(z) = Phi(z) - z phi(z). */
static double second_moment_inside(double A, double B)
{
  if (A >= 0.0) {
    double t = A;
    A = -B;
    B = -t;
  }
  double pA = exp(log_npdf(A)), pB = exp(log_npdf(B));
  if (B <= 0.0)
    return (pld_ndtr(B) - B * pB) - (pld_ndtr(A) - A * pA);
  return (1.0 - pld_ndtr(-B) - B * pB) - (pld_ndtr(A) - A * pA);
}

/* Fisher information of the rectified normal (standardized location):
 * atoms phi(A)^2/Phi(A) + phi(B)^2/Phi(-B) plus the interior J(A, B). */
static double rect_fi_std(double A, double B)
{
  double atoms = exp(2.0 * log_npdf(A) - pld_log_ndtr(A)) +
                 exp(2.0 * log_npdf(B) - pld_log_ndtr(-B));
  double J = second_moment_inside(A, B);
  return atoms + (J > 0.0 ? J : 0.0);
}

int pld_fil_bounded_gaussian(int kind, double theta, double a, double sigma,
                             double *eta)
{
  pld_detail_clear();
  if (!eta)
    return pld_fail(PLD_EINVAL, "eta (the output) must not be NULL");
  if (bad_kind(kind) || bad_loc("theta", -1, theta, a, sigma))
    return PLD_EINVAL; /* detail recorded by the check */
  double A = (-a - theta) / sigma, B = (a - theta) / sigma;
  double I;
  if (kind == PLD_BOUNDED_RECTIFIED) {
    I = rect_fi_std(A, B);
  } else {
    int st = trunc_fi_std(A, B, &I);
    /* the wrapper fails only on a non-finite moment: a NaN result */
    if (st) return PLD_EINVAL;
  }
  if (I > 1.0) /* Thm 4.2: never above the Gaussian; only rounding can */
    I = 1.0;
  double r = sqrt(I) / sigma;
  if (isnan(r))
    return pld_fail_if_silent(PLD_EINVAL,
                              "the Fisher information is NaN at theta = %g, "
                              "a = %g, sigma = %g",
                              theta, a, sigma);
  *eta = r;
  return PLD_SUCCESS;
}

int pld_fil_rectified_gaussian_eq4_paper(double theta, double a, double sigma,
                                         double *eta2)
{
  pld_detail_clear();
  if (!eta2)
    return pld_fail(PLD_EINVAL, "eta2 (the output) must not be NULL");
  if (bad_loc("theta", -1, theta, a, sigma))
    return PLD_EINVAL; /* detail recorded by the check */
  double A = (-a - theta) / sigma, B = (a - theta) / sigma;
  double atoms = exp(2.0 * log_npdf(A) - pld_log_ndtr(A)) +
                 exp(2.0 * log_npdf(B) - pld_log_ndtr(-B));
  /* as printed: Phi((theta-b)/sigma) - Phi((theta-a)/sigma) = Phi(-B) - Phi(-A) */
  double r = (atoms + pld_ndtr(-B) - pld_ndtr(-A) + A * exp(log_npdf(A)) -
              B * exp(log_npdf(B))) /
             (sigma * sigma);
  if (isnan(r))
    return pld_fail_if_silent(PLD_EINVAL,
                              "eq. (4) as printed is NaN at theta = %g, a = %g, "
                              "sigma = %g",
                              theta, a, sigma);
  *eta2 = r;
  return PLD_SUCCESS;
}

int pld_fil_stochastic_sign(double theta, double sigma, double *eta)
{
  pld_detail_clear();
  if (!eta)
    return pld_fail(PLD_EINVAL, "eta (the output) must not be NULL");
  if (!isfinite(theta))
    return pld_fail(PLD_EINVAL, "theta = %g must be finite", theta);
  if (!isfinite(sigma) || !(sigma > 0.0))
    return pld_fail(PLD_EINVAL, "sigma = %g must be finite and > 0", sigma);
  if (!isfinite(theta / sigma))
    return pld_fail(PLD_EINVAL, "theta / sigma = %g / %g overflows a double",
                    theta, sigma);
  double x = theta / sigma;
  double r = exp(log_npdf(x) - 0.5 * (pld_log_ndtr(x) + pld_log_ndtr(-x))) /
             sigma;
  if (isnan(r))
    return pld_fail_if_silent(PLD_EINVAL,
                              "the Fisher information is NaN at theta = %g, "
                              "sigma = %g",
                              theta, sigma);
  *eta = r;
  return PLD_SUCCESS;
}

int pld_rdp_bounded_gaussian_alg1(int kind, unsigned flags, double alpha,
                                  size_t n, const double *g_sum, double a,
                                  double sigma, double C, double *eps_coord,
                                  double *eta_coord, double *eps_total)
{
  pld_detail_clear();
  if (!eps_total || !g_sum)
    return pld_fail(PLD_EINVAL, "eps_total and g_sum must not be NULL");
  if (n == 0)
    return pld_fail(PLD_EINVAL, "n = 0: at least one coordinate is needed");
  if (bad_kind_alpha(kind, alpha))
    return PLD_EINVAL; /* detail recorded by the check */
  if (!isfinite(C) || !(C > 0.0))
    return pld_fail(PLD_EINVAL, "C = %g must be finite and > 0", C);
  if (flags & ~1u)
    return pld_fail(PLD_EINVAL, "flags = %#x has bits other than 0x1 set",
                    flags);
  for (size_t j = 0; j < n; j++) {
    if (bad_loc("g_sum", (long)j, g_sum[j], a, sigma))
      return PLD_EINVAL; /* detail recorded by the check */
    if (!isfinite(g_sum[j] + C) || !isfinite(g_sum[j] - C))
      return pld_fail(PLD_EINVAL,
                      "g_sum[%zu] +- C = %g +- %g overflows a double", j,
                      g_sum[j], C);
  }
  /* validate everything before writing any output */
  double sf = 0.0, sb = 0.0, sp = 0.0;
  for (size_t j = 0; j < n; j++) {
    double f, b;
    sup_dirs(kind, alpha, g_sum[j], a, sigma, C, &f, &b);
    sf += f;
    sb += b;
    sp += bounded_div(kind, alpha, g_sum[j], g_sum[j] + C, a, sigma);
  }
  for (size_t j = 0; j < n; j++) {
    if (eps_coord) {
      if (flags & PLD_ALG1_PAPER)
        eps_coord[j] = bounded_div(kind, alpha, g_sum[j], g_sum[j] + C, a,
                                   sigma);
      else {
        double f, b;
        sup_dirs(kind, alpha, g_sum[j], a, sigma, C, &f, &b);
        eps_coord[j] = fmax(f, b);
      }
    }
    if (eta_coord) {
      double e = 0.0;
      int st = pld_fil_bounded_gaussian(kind, g_sum[j], a, sigma, &e);
      eta_coord[j] = st ? NAN : e;
    }
  }
  *eps_total = (flags & PLD_ALG1_PAPER) ? sp
                                        : fmax(sf, sb) * (1.0 + 2.0 * PLD_U * n);
  return PLD_SUCCESS;
}
