/* pldkit: the RDP of a PLD (the bridge from the PLD backend to the RDP
 * backend).  Public API only: pld_dist_view and the rdp curve accessors.
 *
 * Why a hockey-stick bound bounds Renyi divergences.  For alpha > 1 let
 * f(x) = x^alpha, convex with f(0) = f'(0) = 0, so that for t >= 0
 *   f(t) = int_0^inf f''(x) (t - x)_+ dx,   f''(x) = alpha (alpha-1) x^{alpha-2}.
 * Taking E_Q of t = p/q (plus +inf where q = 0 < p):
 *   int p^alpha q^{1-alpha} = int_0^inf f''(x) H_x(P||Q) dx,   (*)
 * with H_x = int (p - x q)_+ the hockey-stick curve.  The weight f'' is
 * positive, so a curve lying above (below) the true one at every x >= 0 gives
 * an upper (lower) bound on e^{(alpha-1) D_alpha}.  pldkit's pessimistic
 * (optimistic) PLD is built to lie above (below) the true curve everywhere,
 * and composition keeps that (docs/design.md, Sec. 1).  For an atom m at loss
 * l, whose curve is m (1 - x e^{-l})_+, (*) gives exactly m e^{(alpha-1) l}, so
 * the moment of a PLD is sum_j m_j e^{(alpha-1) l_j}; a mass at +inf makes it
 * infinite.
 *
 * The booked slack.  The view promises |d - d_ideal| <= rel d_ideal + abs for
 * the computed curve d and the exact curve d_ideal of the rounding, where
 * d_ideal has its atoms on the same grid window [l_0, l_top] and at +inf.
 * Upper bound: d_ideal <= (d + abs)/(1 - rel) at every grid point, d_ideal is
 * linear between grid points (no atoms there), and beyond l_top it equals its
 * +inf mass (0 when the stored +inf mass is 0: that mass is booked
 * relatively, see pld/query.c).  So d_ideal lies below the piecewise-linear
 * function through (d(x_j) + abs)/(1 - rel) at x_j < x_top and 0 at x_top.
 * Written in the basis (1 - x/x_j)_+, that function has the masses
 * m_j/(1 - rel), except that the constant abs/(1 - rel) turns into
 *   + abs/(1-rel) / (1 - e^{-Delta}) at l_top  and
 *   - abs/(1-rel) / (e^{Delta} - 1)  at l_top - Delta,
 * so by (*)
 *   E <= [ sum_j m_j e^{(alpha-1) l_j}
 *          + abs e^{(alpha-1) l_top} (1 - e^{-alpha Delta})/(1 - e^{-Delta}) ]
 *        / (1 - rel)
 * (about alpha abs e^{(alpha-1) l_top}: the worst case of an absolute slack is
 * a mass at the top of the grid).  Masses may also have underflowed to 0;
 * each of those is below DBL_MIN, so abs is raised by size * DBL_MIN.
 * Lower bound: d_ideal >= (d - abs)/(1 + rel); cutting (*) at a grid point
 * x_J and dropping the (non-negative) part of the atoms above x_J,
 *   E >= [ sum_{j <= J} m_j e^{(alpha-1) l_j} - abs alpha e^{(alpha-1) l_J} ]
 *        / (1 + rel),
 * maximised over J (J = top when abs = 0).
 * Losses are rounded up for the upper bound and down for the lower bound, as
 * in pld/query.c; the floating-point error of the log-sum-exp is added (or
 * subtracted) explicitly.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include <pldkit/pld.h>
#include <pldkit/bridge.h>

#include "alloc.h"
#include "numerics.h"
#include "detail.h"


static double loss_at(const pld_pmf_view *v, size_t j, double grid, int sgn)
{
  double l = (double)(v->offset + (int64_t)j) * grid;
  return l + (double)sgn * 4.0 * PLD_U * fabs(l);
}

/* Upper D_alpha of one pessimistic member at every order. */
static void upper_member(const pld_pmf_view *v, double grid,
                         const double *orders, size_t no, const double *lm,
                         double lm_absmax, double *vals)
{
  if (v->inf_mass > 0.0 || !(v->rel_err < 1.0)) {
    for (size_t k = 0; k < no; k++)
      vals[k] = INFINITY;
    return;
  }
  size_t K = v->size;
  double abs_eff = v->abs_err + (double)K * DBL_MIN;
  double ltop = loss_at(v, K - 1, grid, 1);
  double lmax_abs = fmax(fabs(loss_at(v, 0, grid, 1)), fabs(ltop));
  double lrel = -log1p(-v->rel_err);
  lrel += 4.0 * PLD_U * lrel;
  double lgr = log(-expm1(-grid)); /* log(1 - e^{-Delta}) */
  for (size_t k = 0; k < no; k++) {
    double a = orders[k], am1 = a - 1.0;
    double m = -INFINITY, s = 0.0;
    long nt = 0;
    for (size_t j = 0; j < K; j++) {
      if (lm[j] == -INFINITY)
        continue;
      double t = lm[j] + am1 * loss_at(v, j, grid, 1);
      nt++;
      if (t <= m) {
        s += exp(t - m);
      } else {
        s = s * exp(m - t) + 1.0;
        m = t;
      }
    }
    /* log-sum-exp error: each term errs by <= 4u (|lm| + am1 |l|) in the log,
     * each exp and addition by u relative (Higham's bound (n+2)u), the final
     * log and sum by an ulp of their magnitude; factor 2 to spare. */
    double lsum = nt ? m + log(s) : -INFINITY;
    double err = 8.0 * PLD_U * (lm_absmax + am1 * lmax_abs) +
                 4.0 * (double)(nt + 2) * PLD_U +
                 (nt ? 4.0 * PLD_U * (fabs(m) + fabs(log(s))) : 0.0);
    double labs = log(abs_eff) + am1 * ltop + log(-expm1(-a * grid)) - lgr;
    double lerr = 8.0 * PLD_U * (fabs(log(abs_eff)) + am1 * fabs(ltop) +
                              fabs(lgr) + a * grid + 2.0);
    double lE = pld_logaddexp(lsum + err, labs + lerr) + lrel;
    double D = lE / am1;
    D += 4.0 * PLD_U * fabs(D) + DBL_MIN;
    /* the true divergence is >= 0, so raising a negative value to 0 only
     * loosens the bound */
    vals[k] = fmax(D, 0.0);
  }
}

/* Lower D_alpha of one optimistic member at every order. */
static void lower_member(const pld_pmf_view *v, double grid,
                         const double *orders, size_t no, const double *lm,
                         double lm_absmax, double *vals)
{
  if (v->inf_mass > 0.0) {
    /* the true curve keeps at least inf/(1+rel) at x -> inf: P has mass
     * where Q has none, every D_alpha is infinite */
    for (size_t k = 0; k < no; k++)
      vals[k] = INFINITY;
    return;
  }
  size_t K = v->size;
  double lrel = log1p(v->rel_err);
  lrel += 4.0 * PLD_U * lrel;
  double lmax_abs = fmax(fabs(loss_at(v, 0, grid, -1)),
                         fabs(loss_at(v, K - 1, grid, -1)));
  for (size_t k = 0; k < no; k++) {
    double a = orders[k], am1 = a - 1.0;
    /* pass 1: the largest term sets the scale */
    double m = -INFINITY;
    long nt = 0;
    for (size_t j = 0; j < K; j++) {
      if (lm[j] == -INFINITY)
        continue;
      nt++;
      double t = lm[j] + am1 * loss_at(v, j, grid, -1);
      if (t > m)
        m = t;
    }
    if (nt == 0) {
      vals[k] = 0.0;
      continue;
    }
    /* pass 2: prefix sums, cut where the booked slack costs least */
    double best = 0.0, P = 0.0;
    if (v->abs_err > 0.0) {
      double lab = log(v->abs_err * a);
      for (size_t j = 0; j < K; j++) {
        if (lm[j] != -INFINITY)
          P += exp(lm[j] + am1 * loss_at(v, j, grid, -1) - m);
        double cut = exp(lab + am1 * loss_at(v, j, grid, 1) - m);
        /* P - cut may cancel; its rounding is below 4 (j + 3) u (P + cut) */
        double cand = P - cut - 4.0 * (double)(j + 3) * PLD_U * (P + cut);
        if (cand > best)
          best = cand;
      }
    } else {
      for (size_t j = 0; j < K; j++)
        if (lm[j] != -INFINITY)
          P += exp(lm[j] + am1 * loss_at(v, j, grid, -1) - m);
      best = P;
    }
    if (!(best > 0.0)) {
      vals[k] = 0.0;
      continue;
    }
    double err = 8.0 * PLD_U * (lm_absmax + am1 * lmax_abs) +
                 4.0 * (double)(nt + 2) * PLD_U +
                 4.0 * PLD_U * (fabs(m) + fabs(log(best)));
    double lE = m + log(best) - err - lrel;
    double D = lE / am1;
    D -= 4.0 * PLD_U * fabs(D);
    vals[k] = fmax(D, 0.0);
  }
}

static int of_pld(const pld_dist *d, pld_rdp_curve *out, int rounding)
{
  if (!d || !out)
    return pld_fail(PLD_EINVAL, "the PLD and the output curve must not be NULL");
  pld_pmf_view view[2];
  for (int dir = 0; dir < 2; dir++)
    if (pld_dist_view(d, dir, rounding, &view[dir]) != PLD_SUCCESS)
      return pld_fail_if_silent(PLD_EINVAL,
                                "the PLD has no view in direction %d with "
                                "rounding %d",
                                dir, rounding);
  double grid = pld_dist_discretization(d);
  if (!(grid > 0.0) || !isfinite(grid))
    return pld_fail(PLD_EINVAL,
                    "the PLD's discretization = %g must be finite and > 0",
                    grid);
  size_t no = pld_rdp_curve_size(out);
  const double *orders = pld_rdp_curve_orders(out);
  size_t kmax = view[0].size > view[1].size ? view[0].size : view[1].size;
  size_t bytes;
  if (kmax == 0)
    return pld_fail(PLD_EINVAL, "the PLD has no finite loss points (size 0)");
  if (pld_mul_size(kmax + 2 * no, sizeof(double), &bytes))
    return pld_fail(PLD_EINVAL,
                    "a PLD of %zu points with %zu orders overflows size_t "
                    "bytes",
                    kmax, no);
  double *buf = pld_malloc(bytes);
  if (!buf)
    return PLD_ENOMEM;
  double *lm = buf, *vals = buf + kmax, *tmp = vals + no;
  for (size_t k = 0; k < no; k++)
    vals[k] = 0.0;
  for (int dir = 0; dir < 2; dir++) {
    const pld_pmf_view *v = &view[dir];
    double lm_absmax = 0.0;
    /* A negative mass (clipped round-off) is dropped: for the upper bound
     * that raises the moment, and the optimistic member has none. */
    for (size_t j = 0; j < v->size; j++) {
      double mj = v->masses[j];
      lm[j] = mj > 0.0 ? log(mj) : -INFINITY;
      if (mj > 0.0 && fabs(lm[j]) > lm_absmax)
        lm_absmax = fabs(lm[j]);
    }
    if (rounding == PLD_PESSIMISTIC)
      upper_member(v, grid, orders, no, lm, lm_absmax, tmp);
    else
      lower_member(v, grid, orders, no, lm, lm_absmax, tmp);
    for (size_t k = 0; k < no; k++) {
      /* NaN cannot arise from valid views; map it to the safe side */
      double t = tmp[k];
      if (isnan(t))
        t = rounding == PLD_PESSIMISTIC ? INFINITY : 0.0;
      if (t > vals[k])
        vals[k] = t;
    }
  }
  int st = pld_rdp_curve_set(out, vals);
  pld_free(buf);
  return st;
}

int pld_rdp_of_pld(const pld_dist *d, pld_rdp_curve *out)
{
  pld_detail_clear();
  return of_pld(d, out, PLD_PESSIMISTIC);
}

int pld_rdp_of_pld_lower(const pld_dist *d, pld_rdp_curve *out)
{
  pld_detail_clear();
  return of_pld(d, out, PLD_OPTIMISTIC);
}
