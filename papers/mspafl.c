/* pldkit: MS-PAFL closed forms (baselines), with what is and is not proven.
 *
 *  Lemma 1  sigma = s sqrt(2 log(1.25/delta)) / eps (Dwork & Roth Thm 3.22,
 *           proven for eps < 1).  We check the result against the exact
 *           Gaussian curve (Balle & Wang 2018, Thm 8),
 *             delta_G(eps) = Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu),
 *           mu = s/sigma, and certify iff delta_G(eps) <= delta.
 *  Thm 1    (2 q eps, q delta) for eps <= 1: the tight amplification of
 *           sampling without replacement is log(1 + q(e^eps - 1)) (Balle,
 *           Barthe, Gaboardi 2018), and log(1 + q(e^eps - 1)) <= q(e^eps - 1)
 *           <= 2 q eps because e^eps - 1 <= 2 eps for eps <= 1.25.  With
 *           replacement a record may be drawn several times; q delta ignores
 *           the group-privacy cost, so that case is not certified.
 *  Thm 2    client check-in, delta' = 2 exp(-2 beta^2 N) (Hoeffding).  The
 *  Cor. 1   amplification by p needs the server not to learn who checked in
 *           (docs/papers/ms-pafl.md: if it does, client sampling gives it nothing), so the
 *           value is reported, not certified.
 *  Thm 3    c0 q eps sqrt(p T/(1-q)), with c0 unspecified in the paper.  App.
 *           C divides the log-moment by s^2 (8x too small), weights
 *           participation by p instead of p^2, and (C.8) is stated as a lower
 *           bound; with the c0 that (C.8) implies the value is below the
 *           exact epsilon for p >~ 0.5.  Exposed with c0 required, never
 *           certified.
 *  Thm 4    advanced composition (Dwork, Rothblum, Vadhan 2010): certified.
 */
#include <math.h>

#include <pldkit/mspafl.h>

#include "mech_type.h" /* pld_gaussian_delta: the one Gaussian delta(eps) */
#include "numerics.h"
#include "detail.h"

int pld_mspafl_lemma1_sigma(double eps, double delta, double s, double *sigma,
                            int *certified)
{
  pld_detail_clear();
  if (!sigma)
    return pld_fail(PLD_EINVAL, "sigma (the output) must not be NULL");
  if (!isfinite(eps) || !(eps > 0.0))
    return pld_fail(PLD_EINVAL, "eps = %g must be finite and > 0", eps);
  if (!isfinite(delta) || !(delta > 0.0) || !(delta < 1.0))
    return pld_fail(PLD_EINVAL, "delta = %g must be in (0, 1)", delta);
  if (!isfinite(s) || !(s > 0.0))
    return pld_fail(PLD_EINVAL, "s = %g (the sensitivity) must be finite and > 0",
                    s);
  double r = s * sqrt(2.0 * log(1.25 / delta)) / eps;
  if (!isfinite(r) || !(r > 0.0))
    return pld_fail(PLD_EINVAL,
                    "sigma = s sqrt(2 log(1.25 / delta)) / eps = %g is not a "
                    "finite positive double at eps = %g, delta = %g, s = %g",
                    r, eps, delta, s);
  if (certified)
    *certified = pld_gaussian_delta(s / r, eps) <= delta;
  *sigma = r;
  return PLD_SUCCESS;
}

int pld_mspafl_sampling_ratio(uint64_t draws, uint64_t n, int with_replacement,
                              double *q)
{
  pld_detail_clear();
  if (!q)
    return pld_fail(PLD_EINVAL, "q (the output) must not be NULL");
  if (n == 0)
    return pld_fail(PLD_EINVAL, "n = 0: the population must not be empty");
  if (draws == 0)
    return pld_fail(PLD_EINVAL, "draws = 0 must be >= 1");
  if (!with_replacement && draws > n)
    return pld_fail(PLD_EINVAL,
                    "draws = %llu must be <= n = %llu without replacement",
                    (unsigned long long)draws, (unsigned long long)n);
  double r;
  if (with_replacement)
    r = -expm1((double)draws * log1p(-1.0 / (double)n));
  else
    r = (double)draws / (double)n;
  *q = r;
  return PLD_SUCCESS;
}

/* Non-zero (PLD_EINVAL) outside the local guarantee's domain; recorded. */
static int bad_local(double eps_l, double delta_l)
{
  if (!isfinite(eps_l) || !(eps_l > 0.0) || !(eps_l <= 1.0))
    return pld_fail(PLD_EINVAL, "eps_l = %g must be in (0, 1]", eps_l);
  if (!isfinite(delta_l) || !(delta_l >= 0.0) || !(delta_l < 1.0))
    return pld_fail(PLD_EINVAL, "delta_l = %g must be in [0, 1)", delta_l);
  return 0;
}

/* Non-zero (PLD_EINVAL) unless x is in (0, 1]; recorded under `name`. */
static int bad_rate(const char *name, double x)
{
  if (!isfinite(x) || !(x > 0.0) || !(x <= 1.0))
    return pld_fail(PLD_EINVAL, "%s = %g must be in (0, 1]", name, x);
  return 0;
}

int pld_mspafl_thm1(double eps_l, double delta_l, double q,
                    int with_replacement, pld_mspafl_bound *out)
{
  pld_detail_clear();
  if (!out)
    return pld_fail(PLD_EINVAL, "out must not be NULL");
  if (bad_local(eps_l, delta_l) || bad_rate("q", q))
    return PLD_EINVAL; /* detail recorded by the check */
  out->epsilon = 2.0 * q * eps_l;
  out->delta = q * delta_l;
  out->certified = !with_replacement;
  return PLD_SUCCESS;
}

int pld_mspafl_thm2(size_t N, const double *p, const double *q, double eps_l,
                    double delta_l, double beta, pld_mspafl_bound *out)
{
  pld_detail_clear();
  if (!out || !p || !q)
    return pld_fail(PLD_EINVAL, "out, p and q must not be NULL");
  if (N == 0)
    return pld_fail(PLD_EINVAL, "N = 0: at least one client is needed");
  if (bad_local(eps_l, delta_l))
    return PLD_EINVAL; /* detail recorded by the check */
  if (!isfinite(beta) || !(beta > 0.0))
    return pld_fail(PLD_EINVAL, "beta = %g must be finite and > 0", beta);
  for (size_t i = 0; i < N; i++) {
    if (!isfinite(p[i]) || !(p[i] > 0.0) || !(p[i] <= 1.0))
      return pld_fail(PLD_EINVAL, "p[%zu] = %g must be in (0, 1]", i, p[i]);
    if (!isfinite(q[i]) || !(q[i] > 0.0) || !(q[i] <= 1.0))
      return pld_fail(PLD_EINVAL, "q[%zu] = %g must be in (0, 1]", i, q[i]);
  }
  double dp = 2.0 * exp(-2.0 * beta * beta * (double)N);
  if (!(dp < 1.0)) {
    out->epsilon = INFINITY;
    out->delta = 1.0;
    out->certified = 0;
    return PLD_SUCCESS;
  }
  double e = 0.0, d = 0.0;
  for (size_t i = 0; i < N; i++) {
    e = fmax(e, log1p(p[i] / (1.0 - dp) * expm1(2.0 * q[i] * eps_l)));
    d = fmax(d, dp + p[i] * q[i] * delta_l / (1.0 - dp));
  }
  out->epsilon = e;
  out->delta = d > 1.0 ? 1.0 : d;
  out->certified = 0;
  return PLD_SUCCESS;
}

int pld_mspafl_cor1(uint64_t N, double p, double q, double eps_l,
                    double delta_l, double beta, pld_mspafl_bound *out)
{
  pld_detail_clear();
  if (!out)
    return pld_fail(PLD_EINVAL, "out must not be NULL");
  if (N == 0)
    return pld_fail(PLD_EINVAL, "N = 0: at least one client is needed");
  if (bad_local(eps_l, delta_l))
    return PLD_EINVAL; /* detail recorded by the check */
  if (!isfinite(beta) || !(beta > 0.0))
    return pld_fail(PLD_EINVAL, "beta = %g must be finite and > 0", beta);
  if (bad_rate("p", p) || bad_rate("q", q))
    return PLD_EINVAL; /* detail recorded by the check */
  double dp = 2.0 * exp(-2.0 * beta * beta * (double)N);
  if (!(dp < 1.0)) {
    out->epsilon = INFINITY;
    out->delta = 1.0;
    out->certified = 0;
    return PLD_SUCCESS;
  }
  double d = dp + p * q * delta_l / (1.0 - dp);
  out->epsilon = log1p(p / (1.0 - dp) * expm1(2.0 * q * eps_l));
  out->delta = d > 1.0 ? 1.0 : d;
  out->certified = 0;
  return PLD_SUCCESS;
}

int pld_mspafl_thm3(double c0, double q, double eps_l, double p, uint64_t T,
                    pld_mspafl_bound *out)
{
  pld_detail_clear();
  if (!out)
    return pld_fail(PLD_EINVAL, "out must not be NULL");
  if (!isfinite(c0) || !(c0 > 0.0))
    return pld_fail(PLD_EINVAL, "c0 = %g must be finite and > 0", c0);
  if (!isfinite(q) || !(q > 0.0) || !(q < 1.0))
    return pld_fail(PLD_EINVAL, "q = %g must be in (0, 1)", q);
  if (!isfinite(eps_l) || !(eps_l > 0.0))
    return pld_fail(PLD_EINVAL, "eps_l = %g must be finite and > 0", eps_l);
  if (bad_rate("p", p))
    return PLD_EINVAL; /* detail recorded by the check */
  if (T == 0)
    return pld_fail(PLD_EINVAL, "T = 0: at least one round is needed");
  out->epsilon = c0 * q * eps_l * sqrt(p * (double)T / (1.0 - q));
  out->delta = NAN;
  out->certified = 0;
  return PLD_SUCCESS;
}

int pld_mspafl_thm3_c0_appendix(double delta_l, double clip, double *c0)
{
  pld_detail_clear();
  if (!c0)
    return pld_fail(PLD_EINVAL, "c0 (the output) must not be NULL");
  if (!isfinite(delta_l) || !(delta_l > 0.0) || !(delta_l < 0.8))
    return pld_fail(PLD_EINVAL, "delta_l = %g must be in (0, 0.8)", delta_l);
  if (!isfinite(clip) || !(clip > 0.0))
    return pld_fail(PLD_EINVAL, "clip = %g must be finite and > 0", clip);
  *c0 = sqrt(log(1.0 / delta_l) / log(1.25 / delta_l)) / (2.0 * clip);
  return PLD_SUCCESS;
}

int pld_mspafl_thm4(double eps_r, double delta_r, uint64_t T,
                    double delta_tilde, pld_mspafl_bound *out)
{
  pld_detail_clear();
  if (!out)
    return pld_fail(PLD_EINVAL, "out must not be NULL");
  if (!isfinite(eps_r) || !(eps_r >= 0.0))
    return pld_fail(PLD_EINVAL, "eps_r = %g must be finite and >= 0", eps_r);
  if (!isfinite(delta_r) || !(delta_r >= 0.0) || !(delta_r <= 1.0))
    return pld_fail(PLD_EINVAL, "delta_r = %g must be in [0, 1]", delta_r);
  if (T == 0)
    return pld_fail(PLD_EINVAL, "T = 0: at least one round is needed");
  if (bad_rate("delta_tilde", delta_tilde))
    return PLD_EINVAL; /* detail recorded by the check */
  double Td = (double)T;
  double e = sqrt(2.0 * Td * log(1.0 / delta_tilde)) * eps_r +
             Td * eps_r * expm1(eps_r);
  double d = Td * delta_r + delta_tilde;
  out->epsilon = e;
  out->delta = d > 1.0 ? 1.0 : d;
  out->certified = 1;
  return PLD_SUCCESS;
}
