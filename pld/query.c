/* pldkit: delta(eps) and eps(delta) on a discrete PLD, with the booked error.
 *
 * For a pmf with atoms m_j at l_j and m_inf at +inf,
 *     delta(eps) = m_inf + sum_{l_j > eps} m_j (1 - e^{eps - l_j}),
 * evaluated with e^{eps - l_j} <= 1 only, so nothing under- or overflows for
 * losses in the thousands (dp_accounting loses the Gaussian at eps ~ 2000
 * because it forms e^{-l}).  Between two grid points delta is A - e^eps B
 * with constant A, B, so eps(delta) is solved exactly on each piece.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "alloc.h"
#include "internal.h"
#include "numerics.h"
#include "detail.h"


/* Atom j sits at the real number (offset + j) Delta; its double is rounded
 * the safe way for the member: up for pessimistic (sgn > 0), down for
 * optimistic.  Near an atom the value is arbitrarily sensitive to that. */
static double loss_at(const struct pld_pmf *p, size_t j, double grid, int sgn)
{
  double l = (double)(p->offset + (int64_t)j) * grid;
  return l + (double)sgn * 4.0 * PLD_U * fabs(l);
}

struct idx_eps {
  double eps;
  size_t i;
};

/* sweep (below) at one eps */
static void sweep(const struct pld_pmf *p, double grid,
                  const struct idx_eps *e, size_t n, double *vals, int *pos,
                  int sgn);

double pld_pmf_delta(const struct pld_pmf *p, double grid, double eps, int sgn)
{
  struct idx_eps e = {eps, 0};
  double v;
  int pos;
  sweep(p, grid, &e, 1, &v, &pos, sgn);
  return v;
}

/* ---- tilted members (docs/design.md §5a) ----
 * The stored masses are m'_j = m_j e^{lambda l_j - lnorm}; a member's curve
 * at eps only needs the atoms above eps, whose untilted masses
 * m'_j e^{lnorm - lambda l_j} are at most e^{lnorm - lambda eps} m'_j, so
 * nothing overflows where it matters.  Its distance from the exact curve of
 * the distribution it stands for is at most tabs W(eps), with
 * W(eps) = sup_{l > eps} e^{lnorm - lambda l} (1 - e^{eps - l})
 *        = g(lambda) e^{lnorm - lambda eps},  g(x) = x^x / (1 + x)^{1+x}. */
struct tilted {
  const struct pld_pmf *p;
  double grid;
  int sgn;
  double lg;  /* log g(lambda) */
  double rho; /* relative rounding of one untilting weight */
};

static void tilted_init(struct tilted *t, const struct pld_pmf *p, double grid,
                        int sgn)
{
  double lam = p->tilt;
  t->p = p;
  t->grid = grid;
  t->sgn = sgn;
  t->lg = lam * log(lam) - (1.0 + lam) * log1p(lam);
  double lmax = fmax(fabs((double)(p->offset - p->kref) * grid),
                     fabs((double)(p->offset + (int64_t)p->n - p->kref) * grid));
  /* exponent lnorm - lambda (l - kref Delta) with an exact index
   * difference: rounding of the product, of the difference, then exp (the
   * weight belongs to the atom's index, not to its rounded loss) */
  t->rho = 8.0 * PLD_U * (fabs(p->lnorm) + lam * lmax + 2.0);
}

/* untilted mass of atom j (may be +inf where the weight overflows) */
static double untilt(const struct tilted *t, size_t j)
{
  const struct pld_pmf *p = t->p;
  if (p->m[j] == 0.0)
    return 0.0;
  return p->m[j] * exp(p->lnorm - p->tilt * (double)(p->offset + (int64_t)j -
                                                      p->kref) * t->grid);
}

/* (rounding of eps - kref Delta: 2u (|eps| + |kref Delta|), times lambda) */
static double tilted_W(const struct tilted *t, double eps)
{
  const struct pld_pmf *p = t->p;
  double kd = (double)p->kref * t->grid;
  double x = p->tilt * (eps - kd);
  double r = t->rho + 8.0 * PLD_U + 4.0 * PLD_U * p->tilt * (fabs(eps) + fabs(kd));
  return exp(t->lg + p->lnorm - x) * (1.0 + r);
}

/* computed curve value at eps and the bound on its distance from the
 * distribution's exact curve (relative part rel excluded) */
static void tilted_value(const struct tilted *t, double eps, double *v,
                         double *err)
{
  const struct pld_pmf *p = t->p;
  double s = p->inf;
  for (size_t j = p->n; j-- > 0;) {
    double l = loss_at(p, j, t->grid, t->sgn);
    if (!(l > eps))
      break;
    s += untilt(t, j) * -expm1(eps - l);
  }
  *v = s;
  *err = p->abs + p->tabs * tilted_W(t, eps) +
         ((4.0 * (double)p->n + 8.0) * PLD_U + t->rho) * s;
}

/* Whether some atom of positive mass lies strictly above eps, i.e. whether
 * the member's exact curve is positive there although the computed sum may
 * have underflowed to zero. */
static int positive_above(const struct pld_pmf *p, double grid, double eps,
                          int sgn)
{
  if (p->inf > 0.0)
    return 1;
  for (size_t j = p->n; j-- > 0;) {
    if (!(loss_at(p, j, grid, sgn) > eps))
      return 0;
    if (p->m[j] > 0.0)
      return 1;
  }
  return 0;
}

void pld_pmf_moments(const struct pld_pmf *p, double grid, double *mean,
                     double *var)
{
  double M = 0, s1 = 0, s2 = 0;
  for (size_t j = 0; j < p->n; j++) {
    double x = (double)j;
    M += p->m[j];
    s1 += p->m[j] * x;
    s2 += p->m[j] * x * x;
  }
  if (M <= 0.0) {
    *mean = 0.0;
    *var = 0.0;
    return;
  }
  double mu = s1 / M;
  *mean = ((double)p->offset + mu) * grid;
  *var = fmax(s2 / M - mu * mu, 0.0) * grid * grid;
}

/* Certified values of one member's exact curve from a computed one (§5, and
 * "Last-bit rounding" in docs/design.md).
 *
 * sweep (and pld_pmf_delta, sweep at one eps) sums non-negative terms by
 * the recurrences of D and W: e^{-Delta} and 1 - e^{-Delta} are within 2 ulp
 * (glibc documents 1 for exp and expm1), so the factor e^{-(j-k) Delta} an
 * atom j carries in W_k is within 2 (j - k) u relative (its own rounding and
 * one multiply per step), the additions of non-negative terms add u/2 per
 * step, D_k's steps c1 and a multiply, and the last term the difference
 * eps - l_k (u/2, and |x e^x/(1 - e^x)| <= 1 for x < 0 keeps it u/2 in the
 * term), its expm1 and the product: at most (3n + 6) u < (4n + 8) u
 * relative over n atoms.  (The direct sum of m_j (-expm1(eps - l_j)) it
 * replaced needed (n/2 + 4) u; the slack is unchanged.)  A term
 * that underflows below DBL_MIN is off by at most DBL_TRUE_MIN absolutely,
 * which matters only where the whole value is subnormal: then it is booked
 * (when the exact value is positive), so that an upper end is never 0 for a
 * positive curve.  The final arithmetic below adds at most 3 roundings of
 * u/2, covered by the factors (1 +- 4u) (exactly representable). */
static double eval_slack(const struct pld_pmf *p)
{
  return (4.0 * (double)p->n + 8.0) * PLD_U;
}

/* At eps = +inf only the mass at infinity counts; the booked absolute error
 * lives in the finite masses and does not reach it. */
static double upper_inf(const struct pld_pmf *p)
{
  if (!(p->rel < 1.0))
    return 1.0;
  return fmin(p->inf * (1.0 + p->rel) * (1.0 + 4.0 * PLD_U), 1.0);
}

/* Tilted members: certified upper / optimistic lower value from a computed
 * value v and the bound err on its distance from the ideal curve:
 * d_ideal <= (v + err) / (1 - rel) and >= (v - err) / (1 + rel), each
 * rounded outward by 4u (a rel >= 1 certifies nothing: upper 1). */
static double upper_err(const struct pld_pmf *p, double v, double err)
{
  if (!(p->rel < 1.0))
    return 1.0;
  double r = (v + err) / (1.0 - p->rel) * (1.0 + 4.0 * PLD_U);
  return r >= 0.0 ? fmin(r, 1.0) : 1.0; /* NaN and +inf give 1 */
}

static double lower_err(const struct pld_pmf *p, double v, double err)
{
  double r = (v - err) / (1.0 + p->rel) * (1.0 - 4.0 * PLD_U);
  return r > 0.0 ? r : 0.0; /* NaN gives 0 */
}

static double lower_inf(const struct pld_pmf *p)
{
  return p->inf / (1.0 + p->rel) * (1.0 - 4.0 * PLD_U);
}

/* pos: the exact value is positive (some positive mass above eps). */
static double upper_of(const struct pld_pmf *p, double v, int pos)
{
  /* d_ideal <= (d + abs)/(1 - rel).
   * A booked rel >= 1 certifies nothing (the divisor would turn the bound
   * negative and report delta = 0: found by fuzzing discrete-gaussian with
   * sigma ~ 1e3 on a 1e-7 grid), so the upper end is then the trivial 1. */
  if (!(p->rel < 1.0))
    return 1.0;
  double under = pos ? ((double)p->n + 2.0) * DBL_TRUE_MIN : 0.0;
  double r = (v + eval_slack(p) * v + p->abs + under) / (1.0 - p->rel) *
             (1.0 + 4.0 * PLD_U);
  return r >= 0.0 ? fmin(r, 1.0) : 1.0;
}

static double lower_of(const struct pld_pmf *p, double v)
{
  /* v (1 - slack) rounded down, then the subtraction of abs: a difference
   * of two doubles is within u/2 of the exact difference of the operands,
   * so only the operands need directing. */
  double a = v * (1.0 - eval_slack(p)) * (1.0 - 2.0 * PLD_U);
  double r = (a - p->abs * (1.0 + 2.0 * PLD_U)) / (1.0 + p->rel) * (1.0 - 4.0 * PLD_U);
  return fmax(r, 0.0);
}

/* A tilted member's bound at a finite eps (§5a). */
static double tilted_bound(const struct pld_pmf *p, double grid, double eps,
                           int sgn)
{
  struct tilted t;
  double v, err;
  tilted_init(&t, p, grid, sgn);
  tilted_value(&t, eps, &v, &err);
  return sgn > 0 ? upper_err(p, v, err) : lower_err(p, v, err);
}

/* Certified upper value of the pessimistic member's exact curve at eps and
 * lower value of the optimistic one's. */
static double upper_at(const struct pld_pmf *p, double grid, double eps)
{
  if (eps == INFINITY)
    return upper_inf(p);
  if (p->tilt > 0.0)
    return tilted_bound(p, grid, eps, +1);
  return upper_of(p, pld_pmf_delta(p, grid, eps, +1),
                  positive_above(p, grid, eps, +1));
}

static double lower_at(const struct pld_pmf *p, double grid, double eps)
{
  if (eps == INFINITY)
    return lower_inf(p);
  if (p->tilt > 0.0)
    return tilted_bound(p, grid, eps, -1);
  return lower_of(p, pld_pmf_delta(p, grid, eps, -1));
}

static int ndir_of(const pld_dist *d) { return d->symmetric ? 1 : 2; }

int pld_dist_delta(const pld_dist *d, double eps, pld_bound *out)
{
  pld_detail_clear();
  if (!d || !out)
    return pld_fail(PLD_EINVAL, "d and out must not be NULL");
  if (isnan(eps) || eps < 0.0)
    return pld_fail(PLD_EINVAL, "eps = %g must be >= 0 (+inf allowed)", eps);
  double up = 0.0, lo = 0.0;
  for (int dir = 0; dir < ndir_of(d); dir++) {
    up = fmax(up, upper_at(&d->p[dir][PLD_PESSIMISTIC], d->delta, eps));
    lo = fmax(lo, lower_at(&d->p[dir][PLD_OPTIMISTIC], d->delta, eps));
  }
  /* ends in the wrong order (a bracket's members passed the wrong way
   * round): the answer covers both, as the accountant's does */
  out->upper = fmax(up, lo);
  out->lower = fmin(lo, up);
  return PLD_SUCCESS;
}

/* Smallest eps with the member's computed curve <= t (t > inf mass),
 * solved piecewise; -inf if already below at every eps.
 *
 * Walking down from the top, D_k = sum_{j > k} m_j (1 - e^{l_k - l_j}) is the
 * value at l_k and W_k = sum_{j >= k} m_j e^{l_k - l_j}; on [l_{k-1}, l_k]
 *     delta = inf + D_k + W_k (1 - e^{eps - l_k}),
 * and D_{k-1} = D_k + W_k (1 - e^{-Delta}).  Every term is non-negative, so
 * nothing cancels (the former S - e^{eps - l_k} W lost u S absolutely, and
 * log of a ratio next to 1 lost u nats: 1.1e-16 nats below the exact
 * epsilon of randomized response at eps0 = 1e-8).  The result is only a
 * candidate: the callers verify it with a certified evaluation. */
static double solve_eps(const struct pld_pmf *p, double grid, double t,
                        int sgn)
{
  double D = 0.0, W = 0.0, eg = exp(-grid), c1 = -expm1(-grid);
  double tt = t - p->inf;
  for (size_t k = p->n; k-- > 0;) {
    if (k + 1 < p->n)
      D += W * c1; /* W still W_{k+1} */
    W = p->m[k] + eg * W;
    double below = D + W * c1; /* value at l_{k-1} */
    if (k == 0 || below > tt) {
      /* crossing inside [l_{k-1}, l_k] (or below the grid when k == 0) */
      double r = (tt - D) / W;
      if (!(r < 1.0))
        return -INFINITY;
      double lk = loss_at(p, k, grid, sgn);
      if (!(r > 0.0))
        return lk;
      return lk + log1p(-r);
    }
  }
  return -INFINITY;
}

/* Tilted eps(delta).  f(eps) is the member's certified (sgn > 0) or
 * optimistic (sgn < 0) curve bound.  Walking down from the top, on the piece
 * [l_{k-1}, l_k) the atoms above eps are those from k up, so
 * v(eps) = inf + S - e^{eps - l_k} W with S = sum u_j and
 * W = sum u_j e^{l_k - l_j}; the cancellation in that difference is booked
 * as 4u (S + W).  Upper end: the smallest eps >= 0 with f(eps) <= delta
 * (f decreases).  Lower end: the largest eps >= 0 found with f(eps) > delta
 * (every such eps is below the true epsilon). */
struct piece {
  double S, W, lk;
};

/* The booked error of a piece's value v, with the sum S, the weighted part
 * w and the tilted error weight Wt = tilted_W(eps); it grows with each of
 * them, so bounds of them give a bound of it. */
static double piece_err(const struct tilted *t, double v, double S, double w,
                        double Wt)
{
  const struct pld_pmf *p = t->p;
  return p->abs + p->tabs * Wt +
         ((4.0 * (double)p->n + 8.0) * PLD_U + t->rho) * v +
         4.0 * PLD_U * (S + w);
}

static double piece_bound(const struct tilted *t, const struct piece *pc,
                          double eps)
{
  const struct pld_pmf *p = t->p;
  /* (no atom yet: nothing to weigh, and exp(eps - 0) may overflow) */
  double w = pc->W > 0.0 ? exp(eps - pc->lk) * pc->W : 0.0;
  double v = p->inf + fmax(pc->S - w, 0.0);
  double err = piece_err(t, v, pc->S, w, tilted_W(t, eps));
  return t->sgn > 0 ? upper_err(p, v, err) : lower_err(p, v, err);
}

/* Narrow [lo, hi] to adjacent doubles keeping f(lo) > delta >= f(hi). */
/* Not pld_bisect: it runs to adjacent doubles (no width tolerance). */
static void bisect_piece(const struct tilted *t, const struct piece *pc,
                         double delta, double *lo, double *hi)
{
  for (int i = 0; i < 200; i++) {
    double mid = 0.5 * (*lo + *hi);
    if (!(mid > *lo && mid < *hi))
      break;
    if (piece_bound(t, pc, mid) > delta)
      *lo = mid;
    else
      *hi = mid;
  }
}

static double tilted_eps(const struct pld_pmf *p, double grid, double delta,
                         int sgn)
{
  struct tilted t;
  tilted_init(&t, p, grid, sgn);
  struct piece pc = {0.0, 0.0, 0.0};
  double eg = exp(-grid);
  /* above the top atom only the mass at +inf and the error term remain */
  double top = p->n ? loss_at(p, p->n - 1, grid, sgn) : 0.0;
  if (sgn > 0) {
    double lo = fmax(top, 0.0), hi = lo + 1.0;
    if (piece_bound(&t, &pc, lo) > delta) {
      /* the crossing is above the grid, where f falls with the error term
       * only: double, then bisect */
      for (int i = 0; i < 2100 && piece_bound(&t, &pc, hi) > delta; i++)
        hi = lo + 2.0 * (hi - lo);
      if (piece_bound(&t, &pc, hi) > delta)
        return INFINITY;
      bisect_piece(&t, &pc, delta, &lo, &hi);
      return hi;
    }
  } else if (lower_err(p, p->inf, p->abs + ((4.0 * (double)p->n + 8.0) * PLD_U +
                                             t.rho) * p->inf) > delta) {
    return INFINITY; /* the mass at +inf alone exceeds delta */
  }
  /* A cheap upper bound of piece_bound at eb decides most steps without
   * its two exps: v <= inf + S (w >= 0), w <= W (eb <= lk), and the tilted
   * error's W(eb) <= Wb, carried down from one exact evaluation by the
   * factor cW >= e^{lambda (eb_{k+1} - eb_k)} per step (a computed loss
   * is within 5.1u |l| of (offset + j) Delta, so consecutive ones differ
   * from Delta by at most 10.2u lmax; exp's and each product's rounding
   * are inside the 16u; W's own factor (1 + r) shrinks as eb falls to 0):
   * the walk over a composed support of 1e5 atoms above the answer spent
   * two thirds of its time in piece_bound.  Where the bound exceeds delta,
   * piece_bound decides as before. */
  double lmax = fmax(fabs(top), fabs(loss_at(p, 0, grid, sgn))) + grid;
  double cW = exp(p->tilt * (grid + 16.0 * PLD_U * lmax) + 16.0 * PLD_U) *
              (1.0 + 16.0 * PLD_U);
  double Wb = -1.0; /* not yet evaluated */
  for (size_t k = p->n; k-- > 0;) {
    double lk = loss_at(p, k, grid, sgn);
    if (lk <= 0.0)
      return 0.0; /* upper: f(lk) <= delta already; lower: nothing above 0 */
    double u = untilt(&t, k);
    if (!isfinite(u))
      return sgn > 0 ? lk : 0.0; /* the weights overflow below here */
    pc.S += u;
    pc.W = u + eg * pc.W;
    pc.lk = lk;
    double eb = k ? loss_at(p, k - 1, grid, sgn) : lk - grid;
    if (eb < 0.0)
      eb = 0.0;
    if (Wb < 0.0 || eb == 0.0)
      Wb = tilted_W(&t, eb);
    else
      Wb *= cW;
    double vb = p->inf + pc.S;
    double fub = sgn > 0 ? upper_err(p, vb, piece_err(&t, vb, pc.S, pc.W, Wb))
                         : vb; /* lower_err(v, err) <= v <= vb */
    if (fub <= delta && isfinite(Wb)) {
      if (eb <= 0.0)
        return 0.0;
      continue; /* piece_bound(eb) <= fub <= delta */
    }
    double fb = piece_bound(&t, &pc, eb);
    if (!(fb > delta)) {
      if (eb <= 0.0)
        return 0.0;
      continue;
    }
    /* the crossing is in (eb, lk]: f(eb) > delta and, from the step above,
     * f(lk) <= delta on the upper side (for the lower side any eps with
     * f > delta will do, eb is one) */
    double lo = eb, hi = lk;
    bisect_piece(&t, &pc, delta, &lo, &hi);
    return sgn > 0 ? hi : lo;
  }
  /* Below the lowest atom every atom lies above eps, but the curve's bound
   * still grows as eps falls: the tilted error term tabs W(eps) does.  A
   * member whose lower support was trimmed into tabs (a tilt aimed far
   * above the answer) is not settled by its atoms: the upper end was 0
   * here, below the truth (a selection's tilt of 89.8 put the support of
   * two Poisson-Gaussian runs at [16.1, 16.3] nats and answered epsilon
   * <= 0.22 at delta = 1e-20, against 8.50).  The walk left f <= delta at
   * the last eb = l_0 - Delta; the crossing, if any, is in [0, eb]. */
  if (sgn > 0 && p->n > 0) {
    double hi = loss_at(p, 0, grid, sgn) - grid;
    if (hi > 0.0 && piece_bound(&t, &pc, 0.0) > delta) {
      double lo = 0.0;
      bisect_piece(&t, &pc, delta, &lo, &hi);
      return hi;
    }
  }
  return 0.0;
}

/* Move a candidate epsilon outward until the certified evaluation confirms
 * it: for the upper end the pessimistic member's certified upper value must
 * be <= delta (then the exact curve is too, so eps(delta) <= e); for the
 * lower end the optimistic member's certified lower value must be > delta
 * (then the exact curve exceeds delta at e and at every smaller epsilon, so
 * eps(delta) > e).  Steps start at a few ulps of max(|e|, Delta) and double;
 * if that never confirms, the trivial end (inf, 0) is returned. */
static double confirm_upper(const struct pld_pmf *p, double grid, double delta,
                            double e)
{
  if (!(e >= 0.0))
    e = 0.0;
  double h = 8.0 * PLD_U * fmax(fabs(e), grid);
  for (int it = 0; it < 2100 && isfinite(e); it++) {
    if (upper_at(p, grid, e) <= delta)
      return e;
    e += h;
    h *= 2.0;
  }
  return INFINITY;
}

static double confirm_lower(const struct pld_pmf *p, double grid, double delta,
                            double e)
{
  double h = 8.0 * PLD_U * fmax(fabs(e), grid);
  for (int it = 0; it < 2100 && e > 0.0; it++) {
    if (lower_at(p, grid, e) > delta)
      return e;
    e -= h;
    h *= 2.0;
  }
  return 0.0;
}

int pld_dist_epsilon(const pld_dist *d, double delta, pld_bound *out)
{
  pld_detail_clear();
  if (!d || !out)
    return pld_fail(PLD_EINVAL, "d and out must not be NULL");
  if (isnan(delta) || !(delta > 0.0 && delta < 1.0))
    return pld_fail(PLD_EINVAL, "delta = %g must be in (0, 1)", delta);
  double up = 0.0, lo = 0.0;
  for (int dir = 0; dir < ndir_of(d); dir++) {
    const struct pld_pmf *pp = &d->p[dir][PLD_PESSIMISTIC];
    const struct pld_pmf *po = &d->p[dir][PLD_OPTIMISTIC];
    if (pp->tilt > 0.0 || po->tilt > 0.0) {
      double eu = tilted_eps(pp, d->delta, delta, +1);
      double el = tilted_eps(po, d->delta, delta, -1);
      /* the bisection works on the bounds themselves: a few ulps outward
       * for the loss values' own rounding */
      up = fmax(up, eu + 8.0 * PLD_U * fabs(eu) + 1e-300);
      lo = fmax(lo, el - 8.0 * PLD_U * fabs(el));
      continue;
    }
    /* upper: the computed pessimistic curve must reach t with
     * upper_of(t) <= delta */
    double t = (delta * (1.0 - pp->rel) - pp->abs) / (1.0 + eval_slack(pp));
    double eu = INFINITY;
    if (t > pp->inf)
      eu = confirm_upper(pp, d->delta, delta, solve_eps(pp, d->delta, t, +1));
    double el;
    double tl0 = (delta * (1.0 + po->rel) + po->abs) / (1.0 - eval_slack(po));
    if (!isfinite(tl0) || !(po->inf >= 0.0)) {
      el = 0.0; /* an overflowed booking (a huge count) proves nothing: an
                   infinite or NaN slack must not read as "certainly
                   infinite" (it did: [inf, inf] at 10^12 steps) */
    } else if (lower_inf(po) > delta) {
      el = INFINITY;
    } else {
      double tl = (delta * (1.0 + po->rel) + po->abs) / (1.0 - eval_slack(po));
      el = tl > po->inf ? solve_eps(po, d->delta, tl, -1)
                        : loss_at(po, po->n - 1, d->delta, -1);
      el = confirm_lower(po, d->delta, delta, el);
    }
    up = fmax(up, eu);
    lo = fmax(lo, el);
  }
  up = fmax(up, 0.0);
  lo = fmax(lo, 0.0);
  out->upper = fmax(up, lo); /* wrong order: cover both, see above */
  out->lower = fmin(lo, up);
  return PLD_SUCCESS;
}


static int cmp_desc(const void *x, const void *y)
{
  double a = ((const struct idx_eps *)x)->eps, b = ((const struct idx_eps *)y)->eps;
  return (a < b) - (a > b);
}

/* delta at sorted-descending epsilons in one sweep down the pmf, with the
 * non-negative form of solve_eps (value inf + D_k + W_k (1 - e^{eps - l_k})
 * on [l_{k-1}, l_k], two multiply-adds per atom; at one eps it is
 * pld_pmf_delta, for every certified value of a member); its rounding is
 * bounded at eval_slack; pos marks the points where the exact value is
 * positive. */
static void sweep(const struct pld_pmf *p, double grid,
                  const struct idx_eps *e, size_t n, double *vals, int *pos,
                  int sgn)
{
  size_t k = p->n; /* atoms with index >= k have been added */
  double D = 0.0, W = 0.0, eg = exp(-grid), c1 = -expm1(-grid);
  int any = p->inf > 0.0;
  for (size_t q = 0; q < n; q++) {
    double eps = e[q].eps;
    if (eps == INFINITY) {
      vals[q] = p->inf;
      pos[q] = p->inf > 0.0;
      continue;
    }
    while (k > 0 && loss_at(p, k - 1, grid, sgn) > eps) {
      k--;
      if (k + 1 < p->n)
        D += W * c1;
      W = p->m[k] + eg * W;
      if (p->m[k] > 0.0)
        any = 1;
    }
    pos[q] = any;
    if (k == p->n) {
      vals[q] = p->inf;
      continue;
    }
    double lk = loss_at(p, k, grid, sgn);
    vals[q] = p->inf + D + W * -expm1(eps - lk);
  }
}

/* Tilted members: the bound at sorted-descending epsilons in one sweep. */
static void tilted_sweep(const struct pld_pmf *p, double grid,
                         const struct idx_eps *e, size_t n, double *vals,
                         int sgn)
{
  struct tilted t;
  tilted_init(&t, p, grid, sgn);
  struct piece pc = {0.0, 0.0, 0.0};
  size_t k = p->n;
  double eg = exp(-grid);
  int broken = 0;
  for (size_t q = 0; q < n; q++) {
    double eps = e[q].eps;
    while (!broken && k > 0 && loss_at(p, k - 1, grid, sgn) > eps) {
      double lk = loss_at(p, k - 1, grid, sgn);
      double u = untilt(&t, k - 1);
      if (!isfinite(u)) {
        broken = 1; /* weights overflow: nothing certain below here */
        break;
      }
      k--;
      pc.S += u;
      pc.W = u + eg * pc.W;
      pc.lk = lk;
    }
    if (broken)
      vals[q] = sgn > 0 ? 1.0 : 0.0;
    else
      vals[q] = piece_bound(&t, &pc, eps);
  }
}

int pld_dist_curve(const pld_dist *d, size_t n, const double *eps,
                   pld_bound *out)
{
  pld_detail_clear();
  if (!d || !eps || !out)
    return pld_fail(PLD_EINVAL, "d, eps and out must not be NULL");
  if (n == 0)
    return pld_fail(PLD_EINVAL, "n = 0: at least one epsilon is needed");
  for (size_t i = 0; i < n; i++)
    if (isnan(eps[i]) || eps[i] < 0.0)
      return pld_fail(PLD_EINVAL, "eps[%zu] = %g must be >= 0 (+inf allowed)",
                      i, eps[i]);
  struct idx_eps *e = pld_malloc(n * sizeof *e);
  double *v = pld_malloc(n * sizeof(double));
  double *hi = pld_malloc(n * sizeof(double));
  double *lo = pld_malloc(n * sizeof(double));
  int *pos = pld_malloc(n * sizeof(int));
  if (!e || !v || !hi || !lo || !pos) {
    pld_free(pos);
    pld_free(e);
    pld_free(v);
    pld_free(hi);
    pld_free(lo);
    return PLD_ENOMEM;
  }
  for (size_t i = 0; i < n; i++) {
    e[i].eps = eps[i];
    e[i].i = i;
    hi[i] = 0.0;
    lo[i] = 0.0;
  }
  qsort(e, n, sizeof *e, cmp_desc);
  for (int dir = 0; dir < ndir_of(d); dir++) {
    const struct pld_pmf *pp = &d->p[dir][PLD_PESSIMISTIC];
    const struct pld_pmf *po = &d->p[dir][PLD_OPTIMISTIC];
    if (pp->tilt > 0.0 || po->tilt > 0.0) {
      tilted_sweep(pp, d->delta, e, n, v, +1);
      for (size_t q = 0; q < n; q++)
        hi[e[q].i] = fmax(hi[e[q].i], e[q].eps == INFINITY ? upper_inf(pp) : v[q]);
      tilted_sweep(po, d->delta, e, n, v, -1);
      for (size_t q = 0; q < n; q++)
        lo[e[q].i] = fmax(lo[e[q].i], e[q].eps == INFINITY ? lower_inf(po) : v[q]);
      continue;
    }
    sweep(pp, d->delta, e, n, v, pos, +1);
    for (size_t q = 0; q < n; q++)
      hi[e[q].i] = fmax(hi[e[q].i], e[q].eps == INFINITY
                                        ? upper_inf(pp)
                                        : upper_of(pp, v[q], pos[q]));
    sweep(po, d->delta, e, n, v, pos, -1);
    for (size_t q = 0; q < n; q++)
      lo[e[q].i] = fmax(lo[e[q].i], e[q].eps == INFINITY ? lower_inf(po)
                                                          : lower_of(po, v[q]));
  }
  for (size_t i = 0; i < n; i++) { /* wrong order: cover both, as above */
    out[i].upper = fmax(hi[i], lo[i]);
    out[i].lower = fmin(lo[i], hi[i]);
  }
  pld_free(e);
  pld_free(v);
  pld_free(hi);
  pld_free(lo);
  pld_free(pos);
  return PLD_SUCCESS;
}
