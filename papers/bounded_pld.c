/* pldkit: the exact per-instance PLD of the rectified Gaussian pair
 * (bounded-support paper, beyond the paper's RDP analysis).
 *
 * P = N^R(theta, sigma^2, [-a, a]), Q = N^R(theta + c, sigma^2, [-a, a]).
 * Work in units of sigma with a shift mu = |c|/sigma > 0 (c < 0 is the mirror
 * image under y -> -y, which maps [-a, a] to itself).  For the pair
 * (N^R(t1), N^R(t1 + mu)) with l = (-a - t1), u = (a - t1) (standardized):
 *  - interior loss log(p/q)(z) = mu (mu/2 - z), decreasing in z;
 *  - atom at -a: loss L_lo = log Phi(l) - log Phi(l - mu) (the largest);
 *  - atom at +a: loss L_hi = log Phi(-u) - log Phi(mu - u) (the smallest).
 * The loss is monotone in the output, so the optimal tests are the lower
 * sets {Y <= y}, with P-mass Phi((y - t1)) for y in [-a, a) and 1 for the
 * whole support, and
 *   delta(eps) = max(0, 1 - e^eps, Phi(x) - e^eps Phi(x - mu)),
 *   x = clamp(mu/2 - eps/mu, l, u),
 * since Phi(x) - e^eps Phi(x - mu) is unimodal in x with its maximum at
 * mu/2 - eps/mu.  When that point lies in (l, u) this is exactly the plain
 * Gaussian's delta (docs/papers/bounded-support.md: RDP can show amplification where (eps, delta)
 * shows none).  The tails follow from the same lower sets.
 *
 * A built-in mechanism like the others: its parameters live in m->par and
 * its curve's context is the mechanism itself.  The two pairs are two
 * kinds (rectified_type, truncated_type, no state): with the same par they
 * are different mechanisms and must not compare equal.
 */
#include <math.h>

#include <pldkit/bounded.h>

#include "mech_type.h"
#include "numerics.h"
#include "detail.h"


/* par[0] = theta/sigma, par[1] = a/sigma, par[2] = c/sigma (signed). */
static const struct pld_mech_type rectified_type = {.name = "bounded-rectified"};
static const struct pld_mech_type truncated_type = {.name = "bounded-truncated"};

/* Standardized pair of direction dir: (l, u, mu) with mu > 0. */
static void dir_params(const struct pld_mech *m, int dir, double *l, double *u,
                       double *mu)
{
  double th = m->par[0], A = m->par[1], c = m->par[2];
  double t1, sh;
  if (dir == PLD_DIR_PQ) {
    t1 = th;
    sh = c;
  } else {
    t1 = th + c;
    sh = -c;
  }
  if (sh < 0.0) { /* mirror: N^R(t) -> N^R(-t), shift -> -shift */
    t1 = -t1;
    sh = -sh;
  }
  *l = -A - t1;
  *u = A - t1;
  *mu = sh;
}

static double clampd(double x, double lo, double hi)
{
  return x < lo ? lo : (x > hi ? hi : x);
}

/* Phi(x) - e^eps Phi(x - mu), >= 0 part, in log space. */
static double hs_at(double x, double mu, double eps)
{
  double la = pld_log_ndtr(x), lb = eps + pld_log_ndtr(x - mu);
  if (!(lb < la))
    return 0.0;
  return exp(la) * -expm1(lb - la);
}

static int rect_curve(void *ctx, int dir, size_t n, const double *eps,
                      double *delta)
{
  const struct pld_mech *m = ctx;
  double l, u, mu;
  dir_params(m, dir, &l, &u, &mu);
  for (size_t i = 0; i < n; i++) {
    double e = eps[i];
    if (e == INFINITY) { /* same support, every atom has positive mass */
      delta[i] = 0.0;
      continue;
    }
    double x = clampd(0.5 * mu - e / mu, l, u);
    double v = hs_at(x, mu, e);
    if (e < 0.0)
      v = fmax(v, -expm1(e));
    delta[i] = v < 0.0 ? 0.0 : (v > 1.0 ? 1.0 : v);
  }
  return 0;
}

static int rect_tails(void *ctx, int dir, size_t n, const double *eps,
                      double *p_gt, double *eq_gt)
{
  const struct pld_mech *m = ctx;
  double l, u, mu;
  dir_params(m, dir, &l, &u, &mu);
  double L_lo = pld_log_ndtr(l) - pld_log_ndtr(l - mu);
  double L_hi = pld_log_ndtr(-u) - pld_log_ndtr(mu - u);
  for (size_t i = 0; i < n; i++) {
    double e = eps[i];
    if (e >= L_lo || e == INFINITY) {
      p_gt[i] = eq_gt[i] = 0.0;
      continue;
    }
    if (e < L_hi) { /* every outcome has loss > eps */
      p_gt[i] = 1.0;
      eq_gt[i] = exp(e);
      continue;
    }
    double x = clampd(0.5 * mu - e / mu, l, u);
    p_gt[i] = pld_ndtr(x);
    eq_gt[i] = exp(e + pld_log_ndtr(x - mu));
  }
  return 0;
}

int pld_mech_rectified_gaussian(double theta, double a, double sigma, double c,
                                pld_mech **out)
{
  pld_detail_clear();
  if (!out)
    return pld_fail(PLD_EINVAL, "out is NULL");
  if (!isfinite(theta))
    return pld_fail(PLD_EINVAL, "theta = %g must be finite", theta);
  if (!isfinite(a) || !(a > 0.0))
    return pld_fail(PLD_EINVAL, "a = %g must be finite and > 0", a);
  if (!isfinite(sigma) || !(sigma > 0.0))
    return pld_fail(PLD_EINVAL, "sigma = %g must be finite and > 0", sigma);
  if (!isfinite(c) || c == 0.0)
    return pld_fail(PLD_EINVAL, "c = %g must be finite and nonzero", c);
  double th = theta / sigma, A = a / sigma, mu = c / sigma;
  if (!isfinite(th) || !isfinite(A) || !isfinite(mu) || !isfinite(th + mu) ||
      fabs(mu) < 1e-12 || fabs(mu) > 1e6 || !(A > 0.0))
    return pld_fail(PLD_EINVAL,
                    "|c|/sigma = %g must be in [1e-12, 1e6] and theta/sigma = %g, "
                    "a/sigma = %g finite and positive",
                    fabs(mu), th, A);
  double am = fabs(mu);
  struct pld_mech *m = pld_mech_new(&rectified_type);
  if (!m)
    return PLD_ENOMEM;
  m->par[0] = th;
  m->par[1] = A;
  m->par[2] = mu;
  m->curve.delta = rect_curve;
  m->curve.tails = rect_tails;
  m->curve.symmetric = 0;
  m->curve.loss_scale = am * (1.0 + 0.5 * am); /* at most the Gaussian's */
  *out = m;
  return PLD_SUCCESS;
}

/* ------------------------------------------------------------------------ */
/* The truncated pair (docs/papers/bounded-support.md):
 * P = N^T(theta, sigma^2, [-a, a]) (N(theta, sigma^2) conditioned on the
 * support), Q = N^T(theta + c, ...).  Standardized as above (z = (y - t1)/
 * sigma on [l, u], shift mu > 0): with Z_P = Phi(u) - Phi(l) and Z_Q =
 * Phi(u - mu) - Phi(l - mu),
 *   log(p/q)(z) = mu (mu/2 - z) + log(Z_Q / Z_P),
 * decreasing in z, no atoms.  The optimal tests are again the lower sets, so
 *   delta(eps) = max(0, 1 - e^eps, P[z <= x] - e^eps Q[z <= x]),
 *   x = clamp(mu/2 - (eps - log(Z_Q/Z_P))/mu, l, u),
 * (the difference has derivative q(x)(e^{loss(x)} - e^eps), positive below
 * the point where the loss equals eps and negative above), and the tails are
 * P[z < x], e^eps Q[z < x] at the same x (0 when x = l, 1 and e^eps when
 * x = u). */

/* log(Phi(b) - Phi(a)), a < b, without cancellation in either tail. */
static double log_ndtr_diff(double a, double b)
{
  if (!(a < b))
    return -INFINITY;
  if (b <= 0.0) {
    double lb = pld_log_ndtr(b), la = pld_log_ndtr(a);
    return lb + log1p(-exp(la - lb));
  }
  if (a >= 0.0) {
    double la = pld_log_ndtr(-a), lb = pld_log_ndtr(-b);
    return la + log1p(-exp(lb - la));
  }
  return log1p(-(pld_ndtr(a) + pld_ndtr(-b)));
}

/* P[z <= x] and log e^eps Q[z <= x] pieces of one direction. */
struct trunc_dir {
  double l, u, mu, lZP, lZQ, shift; /* shift = log(Z_Q/Z_P) */
};

static void trunc_params(const struct pld_mech *m, int dir,
                         struct trunc_dir *t)
{
  dir_params(m, dir, &t->l, &t->u, &t->mu);
  t->lZP = log_ndtr_diff(t->l, t->u);
  t->lZQ = log_ndtr_diff(t->l - t->mu, t->u - t->mu);
  t->shift = t->lZQ - t->lZP;
}

static int trunc_curve(void *ctx, int dir, size_t n, const double *eps,
                       double *delta)
{
  const struct pld_mech *m = ctx;
  struct trunc_dir t;
  trunc_params(m, dir, &t);
  for (size_t i = 0; i < n; i++) {
    double e = eps[i];
    if (e == INFINITY) { /* same support, bounded loss */
      delta[i] = 0.0;
      continue;
    }
    double x = clampd(0.5 * t.mu - (e - t.shift) / t.mu, t.l, t.u);
    double v = 0.0;
    if (x > t.l) {
      double la = log_ndtr_diff(t.l, x) - t.lZP;
      double lb = e + log_ndtr_diff(t.l - t.mu, x - t.mu) - t.lZQ;
      if (lb < la)
        v = exp(la) * -expm1(lb - la);
    }
    if (e < 0.0)
      v = fmax(v, -expm1(e));
    delta[i] = v < 0.0 ? 0.0 : (v > 1.0 ? 1.0 : v);
  }
  return 0;
}

static int trunc_tails(void *ctx, int dir, size_t n, const double *eps,
                       double *p_gt, double *eq_gt)
{
  const struct pld_mech *m = ctx;
  struct trunc_dir t;
  trunc_params(m, dir, &t);
  /* the loss ranges over [loss(u), loss(l)] */
  double L_lo = t.mu * (0.5 * t.mu - t.l) + t.shift;
  double L_hi = t.mu * (0.5 * t.mu - t.u) + t.shift;
  for (size_t i = 0; i < n; i++) {
    double e = eps[i];
    if (e >= L_lo || e == INFINITY) {
      p_gt[i] = eq_gt[i] = 0.0;
      continue;
    }
    if (e < L_hi) {
      p_gt[i] = 1.0;
      eq_gt[i] = exp(e);
      continue;
    }
    double x = clampd(0.5 * t.mu - (e - t.shift) / t.mu, t.l, t.u);
    p_gt[i] = fmin(1.0, exp(log_ndtr_diff(t.l, x) - t.lZP));
    eq_gt[i] = exp(e + log_ndtr_diff(t.l - t.mu, x - t.mu) - t.lZQ);
  }
  return 0;
}

int pld_mech_truncated_gaussian(double theta, double a, double sigma, double c,
                                pld_mech **out)
{
  if (!out || !isfinite(theta) || !isfinite(a) || !(a > 0.0) ||
      !isfinite(sigma) || !(sigma > 0.0) || !isfinite(c) || c == 0.0)
    return PLD_EINVAL;
  double th = theta / sigma, A = a / sigma, mu = c / sigma;
  if (!isfinite(th) || !isfinite(A) || !isfinite(mu) || !isfinite(th + mu) ||
      fabs(mu) < 1e-12 || fabs(mu) > 1e6 || !(A > 0.0))
    return PLD_EINVAL;
  /* both normalizers must be representable: the support must not lie
   * beyond ~37 standard deviations of either centre */
  struct pld_mech tmp;
  tmp.par[0] = th;
  tmp.par[1] = A;
  tmp.par[2] = mu;
  for (int dir = 0; dir < 2; dir++) {
    struct trunc_dir t;
    trunc_params(&tmp, dir == 0 ? PLD_DIR_PQ : PLD_DIR_QP, &t);
    if (!isfinite(t.lZP) || !isfinite(t.lZQ) || t.lZP < -700.0 ||
        t.lZQ < -700.0)
      return PLD_EINVAL;
  }
  struct pld_mech *m = pld_mech_new(&truncated_type);
  if (!m)
    return PLD_ENOMEM;
  m->par[0] = th;
  m->par[1] = A;
  m->par[2] = mu;
  m->curve.delta = trunc_curve;
  m->curve.tails = trunc_tails;
  m->curve.symmetric = 0;
  /* |loss| <= |mu| (2A) + |log(Z_Q/Z_P)| is bounded, at most 2 A |mu| plus
   * the normalizers' ratio; the Gaussian's scale is a safe grid hint */
  double am = fabs(mu);
  m->curve.loss_scale = am * (1.0 + 0.5 * am);
  *out = m;
  return PLD_SUCCESS;
}
