/* pldkit: Poisson subsampling of any mechanism, both directions.
 *
 * With P = (1-q) Q_b + q P_b (the dataset holding the record) and Q = Q_b
 * (Zhu, Dong, Wang 2022, "Optimal accounting of differential privacy via
 * characteristic function", Prop. 30), for x = e^eps:
 *   H_x(P || Q) = q H_{x'}(P_b || Q_b),            x' = 1 + (x - 1)/q,
 *                 (= 1 - x when x' < 0, i.e. eps < log(1-q));
 *   H_x(Q || P) = (1 - (1-q) x) H_{x''}(Q_b || P_b), x'' = q x / (1 - (1-q) x),
 *                 (= 0 when (1-q) x >= 1).
 * Both follow from (p - x q)_+ = q (p_b - x' q_b)_+ pointwise.  Rates near 0
 * and 1 use log1p/expm1 forms.
 */
#include <math.h>

#include "alloc.h"
#include "internal.h"
#include "inversion.h"
#include "numerics.h"
#include "detail.h"

/* The base loss e1 = log x' = log(1 + (x - 1)/q) behind eps = log x in
 * direction PQ, given t = expm1(eps)/q > -1.  Where t overflows (eps beyond
 * ~709, or earlier for tiny q), log1p(inf) = inf evaluated the base at +inf:
 * the curve and tails came out 0 above 709 nats, below the truth (a
 * Poisson-Gaussian with mu = 42 has its losses near 880 nats).  There
 * e1 = log(expm1(eps) + q) - log q (a sum of positives; e1 >= 690, so the
 * absolute rounding of the two logs is relative to e1), and beyond eps = 700,
 * where expm1 overflows, e1 = eps - log q + log1p(-(1-q) e^-eps). */
static double pq_base_eps(double e, double t, double q, double l1q)
{
  if (t < 1e300)
    return log1p(t);
  if (e < 700.0)
    return log(expm1(e) + q) - log(q);
  return e - log(q) + log1p(-exp(l1q - e));
}

/* The kind: the base mechanism as the one child (struct pld_mech_kids),
 * q in par[0]. */

/* P = (1-q) B0 + q B1 vs Q = B0: the loss log(1 - q + q e^{L_B}) lies in
 * [log(1 - q + q e^{-e}), log(1 + q (e^e - 1))], and the upper end is the
 * larger in modulus (their product exceeds 1 by q (1-q) (e^e - 1)^2 >= 0);
 * the other direction is the mirror.  The 1e-300 is absolute slack on a
 * value that may have underflowed. */
static double poisson_pure_eps(const struct pld_mech *m)
{
  double e = pld_mech_pure_eps(pld_mech_kids(m)->m[0]);
  if (!isfinite(e))
    return INFINITY;
  double q = m->par[0];
  double r = log1p(q * expm1(e));
  return r * (1.0 + 16.0 * PLD_U) + 1e-300;
}

const struct pld_mech_type pld_mech_type_poisson = {
    .name = "poisson",
    .copy = pld_mech_kids_copy,
    .equal = pld_mech_kids_equal,
    .free = pld_mech_kids_free,
    .pure_eps = poisson_pure_eps,
    .mgf = &pld_mgf_poisson_ops};

/* The base mechanism is evaluated once per chunk of up to PCHUNK points
 * (the builder's ~6000 points cost ~25 callbacks instead of one per point;
 * the values are the same), on the stack: no allocation, so no new way to
 * fail.  Per chunk: the base points, a per-point factor, the base values
 * and the indices. */
#define PCHUNK 256
struct poisson_scratch {
  double be[PCHUNK], aux[PCHUNK], v[PCHUNK], w[PCHUNK], x[PCHUNK],
      ee[PCHUNK];
  size_t idx[PCHUNK];
};

int pld_mech_poisson_curve(void *ctx, int dir, size_t n, const double *eps,
                           double *delta)
{
  int rc;
  const struct pld_mech *m = ctx;
  const struct pld_mech *b = pld_mech_kids(m)->m[0];
  double q = m->par[0], l1q = log1p(-q), lq = log(q);
  struct poisson_scratch s;
  int bdir = dir == PLD_DIR_PQ ? 0 : 1;
  for (size_t i0 = 0; i0 < n; i0 += PCHUNK) {
    size_t k = 0, i1 = n - i0 < PCHUNK ? n : i0 + PCHUNK;
    for (size_t i = i0; i < i1; i++) {
      double e = eps[i];
      if (dir == PLD_DIR_PQ) {
        if (e == INFINITY) {
          s.be[k] = INFINITY;
          s.aux[k] = q;
          s.idx[k++] = i;
          continue;
        }
        double t = expm1(e) / q; /* x' - 1 */
        if (!(t > -1.0)) {
          delta[i] = -expm1(e);
          continue;
        }
        s.be[k] = pq_base_eps(e, t, q, l1q);
        s.aux[k] = q;
        s.idx[k++] = i;
      } else {
        if (q == 1.0) {
          s.be[k] = e;
          s.aux[k] = 1.0;
          s.idx[k++] = i;
          continue;
        }
        if (e == INFINITY || e + l1q >= 0.0) {
          delta[i] = 0.0;
          continue;
        }
        double f = -expm1(e + l1q); /* 1 - (1-q) e^eps */
        s.be[k] = lq + e - log(f);
        s.aux[k] = f;
        s.idx[k++] = i;
      }
    }
    if (k && (rc = b->curve.delta(b->curve.ctx, bdir, k, s.be, s.v)))
      return rc;
    for (size_t j = 0; j < k; j++)
      delta[s.idx[j]] = s.aux[j] == 1.0 ? s.v[j] : s.aux[j] * s.v[j];
  }
  return 0;
}

/* Tails: the subsampled loss is a monotone function of the base loss, so
 * L > eps iff L_b > eps' (direction PQ) and L' > eps iff L_b' > eps''
 * (direction QP), with eps', eps'' as above; the masses follow from the
 * mixture: P = (1-q) Q_b + q P_b. */
int pld_mech_poisson_tails(void *ctx, int dir, size_t n, const double *eps,
                           double *p_gt, double *eq_gt)
{
  int rc;
  const struct pld_mech *m = ctx;
  const struct pld_mech *b = pld_mech_kids(m)->m[0];
  double q = m->par[0], l1q = log1p(-q), lq = log(q);
  struct poisson_scratch s;
  int bdir = dir == PLD_DIR_PQ ? 0 : 1;
  int gauss = b->type == &pld_mech_type_gaussian;
  for (size_t i0 = 0; i0 < n; i0 += PCHUNK) {
    size_t k = 0, i1 = n - i0 < PCHUNK ? n : i0 + PCHUNK;
    for (size_t i = i0; i < i1; i++) {
      double e = eps[i];
      if (dir == PLD_DIR_PQ) {
        if (e == INFINITY) {
          s.be[k] = INFINITY;
          s.x[k] = NAN;
          s.idx[k++] = i;
          continue;
        }
        double em1 = expm1(e), t = em1 / q;
        if (!(t > -1.0)) {
          p_gt[i] = 1.0;
          eq_gt[i] = exp(e);
          continue;
        }
        double e1 = pq_base_eps(e, t, q, l1q);
        s.be[k] = e1;
        /* Q_b[L_b > e1] = e^{-e1} eqb, and e^{-e1} = 1/(1+t) */
        s.aux[k] = t < 1e300 ? 1.0 / (1.0 + t) : exp(-e1);
        s.x[k] = t < 1e300 ? 1.0 + t : NAN;
        /* e^e = 1 + expm1(e) within (KLIB + 1) u relative where e^e >=
         * 1/2 (|em1| <= e^e there) */
        s.ee[k] = em1 >= -0.5 && em1 < 1e300 ? 1.0 + em1 : exp(e);
        s.idx[k++] = i;
      } else {
        if (q == 1.0) {
          s.be[k] = e;
          s.x[k] = NAN;
          s.idx[k++] = i;
          continue;
        }
        if (e == INFINITY || e + l1q >= 0.0) {
          p_gt[i] = eq_gt[i] = 0.0;
          continue;
        }
        /* f = 1 - (1-q) e^e: below e = -1 the product is at most e^-1,
         * so forming it from X costs no precision (f >= 0.63: the
         * rounding of X, the product and the difference, ~(KLIB + 2) u
         * relative, as expm1's own) and saves a call per point of the add
         * direction's long lower range */
        double X = exp(e), f = e <= -1.0 ? 1.0 - (1.0 - q) * X : -expm1(e + l1q);
        s.be[k] = lq + e - log(f);
        s.aux[k] = f;
        s.ee[k] = X;
        s.x[k] = q * X / f;
        s.idx[k++] = i;
      }
    }
    if (gauss) {
      /* the Gaussian's e^{eps'} from the transform, one exp less per point:
       * e^{e1} = 1 + t up to log1p's rounding (KLOG u |e1|) and the sum's,
       * e^{e2} = q e^e / f up to the rounding of e2 = log q + e - log f
       * (and e^{e - e2} q = f below),
       * both far inside the tails' rel_err */
      for (size_t j = 0; j < k; j++)
        pld_gaussian_tails_x(b->par[0], s.be[j], s.x[j], &s.v[j], &s.w[j]);
    } else if (k && (rc = b->curve.tails(b->curve.ctx, bdir, k, s.be, s.v,
                                         s.w)))
      return rc;
    for (size_t j = 0; j < k; j++) {
      size_t i = s.idx[j];
      double e = eps[i], pb = s.v[j], eqb = s.w[j];
      if (dir == PLD_DIR_PQ) {
        if (e == INFINITY) {
          p_gt[i] = q * pb;
          eq_gt[i] = 0.0;
          continue;
        }
        double e1 = s.be[j], inv1t = s.aux[j];
        p_gt[i] = q * pb + (1.0 - q) * inv1t * eqb;
        eq_gt[i] = (e < 700.0 ? s.ee[j] * inv1t : exp(e - e1)) * eqb;
      } else if (q == 1.0) {
        p_gt[i] = pb;
        eq_gt[i] = eqb;
      } else {
        /* e^{e - e2} = f/q exactly for the exact e2 = log q + e - log f;
         * the computed e2 differs by its rounding, ~u (|log q| + |e| +
         * |e2|), as exp(e - e2) did */
        double f = s.aux[j];
        p_gt[i] = pb;
        eq_gt[i] = s.ee[j] * (1.0 - q) * pb + f * eqb;
      }
    }
  }
  return 0;
}

int pld_mech_poisson(const pld_mech *base, double q, pld_mech **out)
{
  pld_detail_clear();
  if (!base || !out)
    return pld_fail(PLD_EINVAL, "%s is NULL", !base ? "base" : "out");
  if (!isfinite(q) || !(q > 0.0) || !(q <= 1.0))
    return pld_fail(PLD_EINVAL, "q = %g must be in (0, 1]", q);
  if (pld_mech_is_bracket(base)) {
    /* Subsampling keeps domination: if a kernel K maps the upper pair (P_u,
     * Q_u) onto the true (P, Q), it maps ((1-q) Q_u + q P_u, Q_u) onto ((1-q)
     * Q + q P, Q); likewise from the true pair onto the lower one
     * (docs/design.md, "Bracketed mechanisms"). */
    pld_mech *u = NULL, *l = NULL;
    int st = pld_mech_poisson(pld_mech_upper(base), q, &u);
    if (!st)
      st = pld_mech_poisson(pld_mech_lower(base), q, &l);
    if (!st)
      st = pld_mech_bracket(u, l, out);
    /* what the bracket booked on top of its members (e.g. a law's
     * arithmetic), subsampled as a member's rel_err is below */
    if (!st)
      (*out)->curve.rel_err =
          fmax((*out)->curve.rel_err, base->curve.rel_err * 4.0 + 1e-14);
    pld_mech_free(u);
    pld_mech_free(l);
    return st;
  }
  struct pld_mech *m = pld_mech_new(&pld_mech_type_poisson);
  if (!m)
    return PLD_ENOMEM;
  int st = pld_mech_kids_init(m, 1, 0);
  if (!st)
    st = pld_mech_copy(base, &((struct pld_mech_kids *)m->state)->m[0]);
  if (st) {
    pld_mech_free(m);
    return st;
  }
  m->par[0] = q;
  m->curve.delta = pld_mech_poisson_curve;
  m->curve.tails = base->curve.tails ? pld_mech_poisson_tails : NULL;
  m->curve.symmetric = (q == 1.0) ? base->curve.symmetric : 0;
  m->curve.rel_err = base->curve.rel_err * 4.0 + 1e-14;
  m->curve.loss_scale = fmax(q * base->curve.loss_scale, 1e-9);
  *out = m;
  return PLD_SUCCESS;
}

int pld_mech_poisson_gaussian(double q, double sigma, double sensitivity,
                              pld_mech **out)
{
  pld_detail_clear();
  if (!out)
    return pld_fail(PLD_EINVAL, "out is NULL");
  if (!isfinite(q) || !(q > 0.0) || !(q <= 1.0))
    return pld_fail(PLD_EINVAL, "q = %g must be in (0, 1]", q);
  pld_mech *g;
  int st = pld_mech_gaussian(sigma, sensitivity, &g);
  if (st)
    return st;
  st = pld_mech_poisson(g, q, out);
  pld_mech_free(g);
  return st;
}

int pld_mech_poisson_laplace(double q, double b, double sensitivity,
                             pld_mech **out)
{
  pld_detail_clear();
  if (!out)
    return pld_fail(PLD_EINVAL, "out is NULL");
  if (!isfinite(q) || !(q > 0.0) || !(q <= 1.0))
    return pld_fail(PLD_EINVAL, "q = %g must be in (0, 1]", q);
  pld_mech *l;
  int st = pld_mech_laplace(b, sensitivity, &l);
  if (st)
    return st;
  st = pld_mech_poisson(l, q, out);
  pld_mech_free(l);
  return st;
}
