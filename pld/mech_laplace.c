/* pldkit: the Laplace mechanism's hockey-stick curve.
 *
 * Lap(0, b) vs Lap(s, b), a = s/b.  The loss (|y-s| - |y|)/b lies in [-a, a]
 * and on y in (0, s) equals (s - 2y)/b, so for -a < eps < a the optimal set
 * is y < y_s = (s - eps b)/2 and
 *     delta(eps) = 1 - e^{-y_s/b}/2 - e^eps e^{-(s-y_s)/b}/2 = 1 - e^{(eps-a)/2},
 * 1 - e^eps below -a and 0 from a on; symmetric in the two directions.
 */
#include <math.h>

#include "internal.h"
#include "inversion.h"
#include "detail.h"
#include "numerics.h"

/* The loss lies in [-a, a], a = s/b (par[0]); a itself was rounded. */
static double laplace_pure_eps(const struct pld_mech *m)
{
  return m->par[0] * (1.0 + 4.0 * PLD_U);
}

const struct pld_mech_type pld_mech_type_laplace = {
    .name = "laplace",
    .pure_eps = laplace_pure_eps,
    .mgf = &pld_mgf_laplace_ops};

int pld_mech_laplace_curve(void *ctx, int dir, size_t n, const double *eps,
                           double *delta)
{
  const struct pld_mech *m = ctx;
  double a = m->par[0];
  (void)dir;
  for (size_t i = 0; i < n; i++) {
    double e = eps[i];
    if (e >= a)
      delta[i] = 0.0;
    else if (e <= -a)
      delta[i] = -expm1(e);
    else
      delta[i] = -expm1(0.5 * (e - a));
  }
  return 0;
}

/* Loss tails (atoms at +-a included as the strict inequalities require):
 * for -a <= eps < a, P[L > eps] = 1 - e^{(eps-a)/2}/2 and
 * e^eps Q[L > eps] = e^{(eps-a)/2}/2. */
int pld_mech_laplace_tails(void *ctx, int dir, size_t n, const double *eps,
                           double *p_gt, double *eq_gt)
{
  const struct pld_mech *m = ctx;
  double a = m->par[0];
  (void)dir;
  for (size_t i = 0; i < n; i++) {
    double e = eps[i];
    if (e >= a) {
      p_gt[i] = eq_gt[i] = 0.0;
    } else if (e < -a) {
      p_gt[i] = 1.0;
      eq_gt[i] = exp(e);
    } else {
      double h = 0.5 * exp(0.5 * (e - a));
      p_gt[i] = 1.0 - h;
      eq_gt[i] = h;
    }
  }
  return 0;
}

int pld_mech_laplace(double b, double sensitivity, pld_mech **out)
{
  pld_detail_clear();
  if (!out)
    return pld_fail(PLD_EINVAL, "out is NULL");
  if (!isfinite(b) || !(b > 0.0))
    return pld_fail(PLD_EINVAL, "b = %g must be finite and > 0", b);
  if (!isfinite(sensitivity) || !(sensitivity > 0.0))
    return pld_fail(PLD_EINVAL, "sensitivity = %g must be finite and > 0", sensitivity);
  double a = sensitivity / b;
  if (!isfinite(a) || a > 1e6 || a < 1e-12)
    return pld_fail(PLD_EINVAL,
                    "sensitivity/b = %g must be in [1e-12, 1e6] (b = %g, sensitivity = %g)",
                    a, b, sensitivity);
  struct pld_mech *m = pld_mech_new(&pld_mech_type_laplace);
  if (!m)
    return PLD_ENOMEM;
  m->par[0] = a;
  m->curve.delta = pld_mech_laplace_curve;
  m->curve.tails = pld_mech_laplace_tails;
  m->curve.symmetric = 1;
  m->curve.loss_scale = a;
  *out = m;
  return PLD_SUCCESS;
}
