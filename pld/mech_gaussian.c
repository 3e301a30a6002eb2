/* pldkit: the Gaussian mechanism's hockey-stick curve.
 *
 * For N(0, s^2) vs N(Delta, s^2) with mu = Delta/s (Balle & Wang 2018, Thm 8):
 *     delta(eps) = Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu),
 * the same in both directions.  Evaluated as Phi(a) (1 - exp(eps + log Phi(b)
 * - log Phi(a))) with log Phi accurate deep in the tail, so it keeps its
 * relative accuracy for eps in the thousands, where both terms underflow.
 */
#include <math.h>

#include "internal.h"
#include "numerics.h"

double pld_gaussian_delta(double mu, double eps)
{
  if (eps == INFINITY)
    return 0.0;
  double a = 0.5 * mu - eps / mu, b = -0.5 * mu - eps / mu;
  double la = pld_log_ndtr(a), lb = eps + pld_log_ndtr(b);
  if (!(lb < la))
    return 0.0;
  double r = exp(la) * -expm1(lb - la);
  return r < 0.0 ? 0.0 : (r > 1.0 ? 1.0 : r);
}

int pld_mech_gaussian_curve(void *ctx, int dir, size_t n, const double *eps,
                            double *delta)
{
  const struct pld_mech *m = ctx;
  (void)dir;
  for (size_t i = 0; i < n; i++)
    delta[i] = pld_gaussian_delta(m->par[0], eps[i]);
  return 0;
}

/* Loss tails: under P the loss is N(mu^2/2, mu^2), under Q N(-mu^2/2, mu^2). */
int pld_mech_gaussian_tails(void *ctx, int dir, size_t n, const double *eps,
                            double *p_gt, double *eq_gt)
{
  const struct pld_mech *m = ctx;
  double mu = m->par[0];
  (void)dir;
  for (size_t i = 0; i < n; i++) {
    if (eps[i] == INFINITY) {
      p_gt[i] = eq_gt[i] = 0.0;
      continue;
    }
    double b = -0.5 * mu - eps[i] / mu;
    p_gt[i] = pld_ndtr(0.5 * mu - eps[i] / mu);
    /* direct product where neither factor can over- or underflow */
    eq_gt[i] = (eps[i] < 700.0 && b > -37.0) ? exp(eps[i]) * pld_ndtr(b)
                                              : exp(eps[i] + pld_log_ndtr(b));
  }
  return 0;
}

int pld_mech_gaussian(double sigma, double sensitivity, pld_mech **out)
{
  if (!out || !isfinite(sigma) || !(sigma > 0.0) || !isfinite(sensitivity) ||
      !(sensitivity > 0.0))
    return PLD_EINVAL;
  double mu = sensitivity / sigma;
  if (!isfinite(mu) || !(mu > 0.0) || mu > 1e6 || mu < 1e-12)
    return PLD_EINVAL;
  struct pld_mech *m = pld_mech_new(PLD_MECH_GAUSSIAN);
  if (!m)
    return PLD_ENOMEM;
  m->par[0] = mu;
  m->curve.delta = pld_mech_gaussian_curve;
  m->curve.tails = pld_mech_gaussian_tails;
  m->curve.symmetric = 1;
  m->curve.loss_scale = mu * (1.0 + 0.5 * mu); /* loss ~ N(mu^2/2, mu^2) */
  *out = m;
  return PLD_SUCCESS;
}
