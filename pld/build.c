/* pldkit: the door.  A mechanism's hockey-stick curve -> its PLD pair, in both
 * roundings, in one pass.
 *
 * Write x = e^eps and d(x) = H_x(P||Q) = int (p - x q)_+.  d is convex and
 * non-increasing on [0, inf), d(0) = 1, d(x) >= 1 - x.  A measure w with atoms
 * m_j at losses l_j (and m_inf at +inf) has curve
 *     d_w(x) = m_inf + sum_j m_j (1 - x e^{-l_j})_+ ,
 * a convex piecewise-linear function with kinks at x_j = e^{l_j}; conversely
 * every convex, non-increasing piecewise-linear f with kinks on the grid and
 * f constant beyond the last kink is such a d_w, with
 *     m_j = x_j (s_j^+ - s_j^-)   (jump of the slope at x_j),  m_inf = f(inf).
 * Composition acts on these curves by d_{w1*w2}(x) = E_{l~w2}[d_{w1}(x e^{-l})],
 * which is monotone in d_{w1} and d_{w2}: if d_w >= d everywhere (pessimistic)
 * or <= d everywhere (optimistic), composition keeps the inequality.  So each
 * rounding only has to choose a piecewise-linear f on the grid above (below)
 * the true convex curve.
 *
 * Pessimistic: f = the chord interpolation of d through (0, 1) and the grid
 * points (x_j, d(x_j)), flat beyond the last one -- connect-the-dots
 * (Doroshenko, Ghazi, Kamath, Kumar, Manurangsi 2022, Alg. 1).  A convex
 * function lies below its chords, so f >= d; f = d at the grid points.
 *
 * Optimistic (our dominated counterpart, derivation kept here because no paper
 * states it): on an interval [x_j, x_{j+1}] of width h with chord slope s, the
 * convex d lies above the two lines through the end points with slopes s_L
 * (<= d'(x_j+)) and s_R (>= d'(x_{j+1}-)).  Hence
 *     chord(x) - d(x) <= G_j = h (s - s_L)(s_R - s) / (s_R - s_L),
 * the gap at the intersection of those two lines.  By convexity the chord
 * slopes of the neighbouring intervals are valid s_L, s_R, so G_j needs only
 * the grid values.  The line chord_j - G_j lies below d on the interval, so
 * the values v_j = d(x_j) - max(G_{j-1}, G_j) have chords below d on every
 * interval; their lower convex hull is a valid optimistic f.  G_j is second
 * order in the grid step (it is the curvature of d over one cell), so unlike
 * rounding every loss down (privacy buckets), the bias does not grow by a
 * full Delta per composition.
 *
 * Both use slopes in the scale-free form x_j s_j = (v_{j+1}-v_j)/(e^Delta-1),
 * so nothing overflows for any loss: x_j itself is formed only in g-form
 * (eps_j in [-700, 1], the grid's lower end being clipped at -700 nats), and
 * the factors e^{+-Delta} are handled where they leave the double range
 * (steps above 709 nats).  docs/design.md §2, "Huge losses" and "Steps up
 * to 1000 nats".
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "alloc.h"
#include "internal.h"
#include "numerics.h"
#include "detail.h"

/* Smallest subnormal: the absolute rounding error of a product that lands
 * below DBL_MIN is at most half of it (relative bounds stop there). */
#define ETA_ 0x1p-1074

/* The loss range the builder resolves (docs/design.md §2, "Range").
 * Below -LOSS_LOW nats lies at most e^-LOSS_LOW of P's mass (P[L <= l] =
 * E_Q[e^L 1{L <= l}] <= e^l), and the grid is never extended there: the
 * pessimistic chord from (0, 1) moves that mass up to the first grid point
 * and the optimistic member drops it, both safe.  Then every x_j = e^eps_j
 * the builder forms (in g-form only, eps_j <= 1) is a normal double.  Above
 * LOSS_MAX nats the grid stops even if the curve has not decayed: what lies
 * above goes to +inf (pessimistic) or down to the top grid point
 * (optimistic), both safe; with Delta <= 1000 the grid then has at most
 * ~1e6 points. */
#define LOSS_LOW 700.0
#define LOSS_MAX PLD_LOSS_MAX

/* A grid point's loss is the real number j * Delta; its double may be off
 * by half an ulp, and near an atom the curve is arbitrarily sensitive to
 * that.  So the curve is evaluated at a point certainly at or below the real
 * one (the curve is non-increasing: an upper value), g = d - 1 + x and the
 * tails at or above it. */
static double grid_down(double e) { return e - 4.0 * PLD_U * fabs(e); }
static double grid_up(double e) { return e + 4.0 * PLD_U * fabs(e); }

/* A callback's failure: built-in mechanisms report running out of memory as
 * PLD_ENOMEM, which passes through; anything else is PLD_ECALLBACK. */
static int cb_status(int r) { return r == PLD_ENOMEM ? PLD_ENOMEM : PLD_ECALLBACK; }

/* Evaluate one point of the curve through the callback. */
static int curve_at(const pld_curve *c, int dir, double eps, double *out)
{
  double v;
  int r = c->delta(c->ctx, dir, 1, &eps, &v);
  if (r)
    return cb_status(r);
  if (!(v >= -1e-12 && v <= 1.0 + 1e-12))
    return PLD_ECALLBACK;
  *out = fmin(fmax(v, 0.0), 1.0);
  return PLD_SUCCESS;
}

/* upper_cutoff's question at eps: is d(eps) - d(inf) <= tau? */
struct cutoff_pred {
  const pld_curve *c;
  int dir;
  double tau, infm;
};

static int cutoff_above(double eps, void *ctx, int *above)
{
  const struct cutoff_pred *q = ctx;
  double v;
  int st = curve_at(q->c, q->dir, eps, &v);
  if (!st)
    *above = v - q->infm <= q->tau;
  return st;
}

/* Smallest eps (to within a few grid steps) with d(eps) - d(inf) <= tau:
 * beyond it the finite part of the PLD carries at most tau.  If even
 * LOSS_MAX does not get there, the cut-off is LOSS_MAX and *capped is set
 * (the finite mass above it is then not negligible). */
static int upper_cutoff(const pld_curve *c, int dir, double tau, double grid,
                        double *cut, double *infm, int *capped)
{
  *capped = 0;
  int st = curve_at(c, dir, INFINITY, infm);
  if (st)
    return st;
  double e = fmin(fmax(c->loss_scale, grid), LOSS_MAX), v;
  if ((st = curve_at(c, dir, e, &v)))
    return st;
  double lo, hi;
  if (v - *infm > tau) {
    lo = e;
    /* not pld_bracket_double: the last step is clamped to LOSS_MAX */
    for (;;) {
      if (e >= LOSS_MAX) {
        *cut = LOSS_MAX;
        *capped = 1;
        return PLD_SUCCESS;
      }
      e = fmin(2.0 * e, LOSS_MAX);
      if ((st = curve_at(c, dir, e, &v)))
        return st;
      if (v - *infm <= tau)
        break;
      lo = e;
    }
    hi = e;
  } else {
    hi = e;
    lo = 0.0;
    if ((st = curve_at(c, dir, 0.0, &v)))
      return st;
    if (v - *infm <= tau) {
      *cut = 0.0;
      return PLD_SUCCESS;
    }
  }
  /* Bisection to a few grid steps: the cutoff only needs to be safe. */
  struct cutoff_pred q = {c, dir, tau, *infm};
  return pld_bisect(cutoff_above, &q, lo, hi, 4.0 * grid, 1e-3, 100, +1, cut);
}

/* Grid values in the representation that keeps precision.  For eps_j <= 0
 * we store g_j = d_j - (1 - x_j) = x_j H_{1/x_j}(Q||P) (the identity
 * H_x(P||Q) = 1 - x + x H_{1/x}(Q||P) for probability measures), which is
 * small where d is close to 1 - x; adding a linear function changes neither
 * second differences, chord gaps nor convex hulls, so every formula below
 * may use either form as long as one formula uses one form.  For eps_j > 0
 * we store d_j itself. */
struct vals {
  double *w;    /* mixed representation */
  size_t n;
  long jz;      /* last index with eps_j <= 0 (-1 if none) */
  int64_t lo;   /* grid index of w[0] */
  double grid;
  /* expm1(eps_j) for j <= min(jz + 1, n - 1), or NULL: the conversions
   * between the forms take it once per point instead of once per use (the
   * same values) */
  const double *xm1t;
};

static double xj(const struct vals *v, long j) { return exp((double)(v->lo + j) * v->grid); }
/* x_j - 1 without cancellation, for converting between the forms: 1.0 - x_j
 * lost u absolutely (a relative 2e-7 at the first grid point above 0 of
 * randomized response at eps0 = 1e-9; with k = 2^40 on its lattice grid the
 * top mass came out 7e-6 low, below the truth), unbooked (docs/design.md
 * §10). */
static double xm1(const struct vals *v, long j)
{
  if (v->xm1t && j >= 0 && j <= v->jz + 1 && j < (long)v->n)
    return v->xm1t[j];
  return expm1((double)(v->lo + j) * v->grid);
}
/* value of index j (-1 is x = 0 with value f0) in d-form or g-form */
static double val_d(const struct vals *v, long j, double f0)
{
  if (j < 0)
    return f0;
  return j <= v->jz ? v->w[j] - xm1(v, j) : v->w[j];
}
static double val_g(const struct vals *v, long j, double f0)
{
  if (j < 0)
    return f0 - 1.0;
  return j <= v->jz ? v->w[j] : v->w[j] + xm1(v, j);
}
/* Whether a formula whose largest index is k uses the g-form: only when
 * every point it touches has eps <= Delta, where converting is harmless. */
static int gform(const struct vals *v, long k)
{
  /* (the g-form value g = d + x - 1 exceeds d for eps > 0, and its rounding
   * is not relative to d: on a 1-nat grid randomized response's top mass
   * came out of (e - 1) - (e - 1 - 2.5e-12); so the g-form stops at 0) */
  return v->jz >= 0 && k <= v->jz + 1 && (double)(v->lo + k) * v->grid <= 0.0;
}
static double val(const struct vals *v, long j, long k, double f0)
{
  return gform(v, k) ? val_g(v, j, f0) : val_d(v, j, f0);
}

/* A bound on the error of val(v, j, k, f0) - val(v, i, k, f0) against the
 * exact curve: the curve's relative error rel on each value (in the form it
 * is stored; converting adds at most 1 + x_j to its size) and the rounding
 * of the conversion and of the difference.  f0 (index -1) is exact. */
static double diff_err(const struct vals *v, long i, long j, long k, double f0,
                       double rel)
{
  double e = 0.0;
  long ix[2] = {i, j};
  for (int t = 0; t < 2; t++) {
    if (ix[t] < 0)
      continue;
    double w = fabs(val(v, ix[t], k, f0));
    if ((ix[t] <= v->jz) != gform(v, k))
      w += 1.0 + xj(v, ix[t]);
    e += (rel + 4.0 * PLD_U) * w;
  }
  return e;
}

/* Masses of the piecewise-linear f through (0, f0), (x_j, v_j), flat beyond
 * x_{n-1}.  Negative round-off masses are clipped; the clipped amounts are
 * returned relative to the curve below them (*clip_rel) where that is
 * positive, else absolutely (*clip_abs), together with the absolute
 * rounding of products that fall below DBL_MIN (ETA_/2 each, where the
 * relative bound of the second differences does not hold) and, for
 * Delta > 709 where 1/(e^Delta - 1) underflows, the right slopes it drops:
 * each |D_j| cu, at most 2 cu in all (the values vary by at most 2), which
 * is below 2 DBL_MIN. */
static void masses_from_values(const struct vals *v, double f0, double *m,
                               double *a, double *clip_rel, double *clip_abs)
{
  double cu = 1.0 / expm1(v->grid), cl = -1.0 / expm1(-v->grid);
  double cr = 0.0, ca = cu >= DBL_MIN ? 0.0 : 4.0 * DBL_MIN;
  long n = (long)v->n;
  for (long j = 0; j < n; j++) {
    long k = j + 1 < n ? j + 1 : j;
    double dr = (j + 1 < n) ? val(v, j + 1, k, f0) - val(v, j, k, f0) : 0.0;
    double dl = (j > 0) ? val(v, j, k, f0) - val(v, j - 1, k, f0) : 0.0;
    double right = (j + 1 < n) ? dr * cu : (gform(v, k) ? xj(v, j) : 0.0);
    double left = (j == 0) ? (val(v, 0, k, f0) - val(v, -1, k, f0)) : dl * cl;
    if (dr != 0.0 && fabs(right) < DBL_MIN)
      ca += ETA_;
    if (dl != 0.0 && fabs(left) < DBL_MIN)
      ca += ETA_;
    double mj = right - left;
    /* the rounding book_mass_rounding needs (its a_j), from the same
     * slopes */
    a[j] = 4.0 * PLD_U * (fabs(right) + fabs(left)) + (mj < 0.0 ? -mj : 0.0);
    if (mj < 0.0) {
      double dj = val_d(v, j, f0);
      if (dj > 0.0)
        cr += -mj / dj;
      else
        ca += -mj;
      mj = 0.0;
    }
    m[j] = mj;
  }
  *clip_rel = cr;
  *clip_abs = ca;
}

/* The booked effect of computing the masses (last-bit rounding, see
 * docs/design.md).  m_j = r_j - l_j with r_j = D_j x_j/(x_{j+1} - x_j) and
 * l_j = D_{j-1} x_j/(x_j - x_{j-1}) from the differences D of stored doubles
 * in the form used (exact to u/2 relative), the factors within 1.5u: the
 * computed mass is off by at most e_j = 4u (|r_j| + |l_j|), plus the
 * clipped amount if it was negative.  Such an error moves the curve by
 * e_j (1 - x/x_j)_+, so on [x_{i-1}, x_i] by at most
 *     E_i = sum_{j >= i} e_j min(1, (j - i + 1)(1 - e^-Delta))
 * (1 - x_{i-1}/x_j = 1 - e^{-(j-i+1) Delta}), and on [0, x_0] by the plain
 * sum; the curve there is at least its value d_i at x_i (on [0, x_0] also
 * at least 1 - x, see below).  E_i is bounded
 * in one backward pass by U_i = min(A_i, PLD_U{i+1} + c A_i), A_i the tail sum
 * of e, c = 1 - e^-Delta.  It is booked relatively where E_i <= 1e-9 d_i
 * (harmless against any accuracy asked), else absolutely: there d_i is
 * itself tiny (the top of the grid, a curve that is rounding).  (The former bound 8u cl max(d_{j-1}/d_j), cl =
 * 1/(1 - e^-Delta), dropped the factor (1 - x/x_j), which is what makes
 * a mass's rounding harmless at the losses next to it: 1.8e-6 relative at
 * Delta = 1e-9 for randomized response, whose exact bracket is ~1e-15.) */
static int book_mass_rounding(const struct vals *v, double f0, const double *a,
                              double *rel, double *abs, double *l1,
                              long *l1top, struct pld_pmf *parts)
{
  /* a[j] = 4u (|r_j| + |l_j|) plus the clipped amount, filled in by
   * masses_from_values from the very slopes of the masses */
  double c = -expm1(-v->grid) * (1.0 + 4.0 * PLD_U);
  long n = (long)v->n;
  double A = 0.0, U = 0.0, r = 0.0, ab = 0.0;
  long ilow = -1; /* the lowest index booked absolutely */
  *l1 = 0.0;
  *l1top = -1; /* the highest index with a mass error */
  for (long i = n; i-- > 0;)
    if (a[i] > 0.0) {
      *l1top = i;
      break;
    }
  for (long i = n; i-- > 0;) {
    A += a[i];
    U = fmin(A, U + c * A);
    double E = (i == 0 ? A : U) * (1.0 + 8.0 * (double)n * PLD_U);
    if (!(E > 0.0))
      continue;
    double di = val_d(v, i, f0), ri = E / di;
    if (i == 0 && di > 0.0) {
      /* on [0, x_0] the curve is also >= 1 - x, and sum_j e_j (1 - x/x_j)
       * <= A (1 - x/x_top) <= A ((1 - x) + (1 - 1/x_top)_+) */
      double ct = fmax(-expm1(-(double)(v->lo + n - 1) * v->grid), 0.0);
      ri = fmin(ri, A * (1.0 + ct / di) * (1.0 + 8.0 * (double)n * PLD_U));
    }
    if (di > 0.0 && ri <= 1e-9)
      r = fmax(r, ri);
    else {
      ab = fmax(ab, E);
      /* every mass error from here up: an L1 bound on what the absolute
       * part stands for, which a tilt can weigh (dist.c, pld_pmf_tilt) */
      *l1 = A * (1.0 + 8.0 * (double)n * PLD_U);
      ilow = i;
    }
  }
  *rel = r;
  *abs = ab;
  pld_free(parts->l1p);
  parts->l1p = NULL;
  parts->l1pn = 0;
  /* l1 in parts of consecutive indices from ilow up, each with the same
   * factor as A (its sum of non-negative terms rounds less than A's) */
  if (ilow < 0 || *l1top < ilow)
    return PLD_SUCCESS;
  long span = *l1top - ilow + 1;
  long w = (span + PLD_L1_PARTS - 1) / PLD_L1_PARTS;
  size_t np = (size_t)((span + w - 1) / w);
  double *pp = pld_malloc(np * sizeof(double));
  if (!pp)
    return PLD_ENOMEM;
  for (size_t b = 0; b < np; b++) {
    long s0 = ilow + (long)b * w, e = s0 + w - 1 < *l1top ? s0 + w - 1 : *l1top;
    double sb = 0.0;
    for (long j = s0; j <= e; j++)
      sb += a[j];
    pp[b] = sb * (1.0 + 8.0 * (double)n * PLD_U);
  }
  parts->l1p = pp;
  parts->l1pn = np;
  parts->l1plo = v->lo + ilow;
  parts->l1pw = w;
  return PLD_SUCCESS;
}

/* Masses at the round-off level of the second differences are noise, not
 * atoms (a discrete mechanism's curve is linear between its atoms).  Moving
 * them up to the next real atom (or to +inf) is safe for the pessimistic
 * member and keeps discrete PLDs sparse, which lets composition use exact
 * direct convolution instead of the FFT with its error floor. */
static void sweep_noise_up(const struct vals *v, double f0, double *m, size_t n,
                           double *inf)
{
  double cl = -1.0 / expm1(-v->grid), carry = 0.0;
  for (size_t j = n; j-- > 0;) {
    long k = (long)j + 1 < (long)n ? (long)j + 1 : (long)j;
    /* rounding of the three values entering the second difference */
    double mag = fabs(val(v, k, k, f0)) + 2.0 * fabs(val(v, (long)j, k, f0)) +
                 fabs(val(v, (long)j - 1, k, f0));
    double noise = 16.0 * PLD_U * cl * mag;
    if (m[j] > 0.0 && m[j] <= noise) {
      carry += m[j];
      m[j] = 0.0;
    } else if (m[j] > noise && carry > 0.0) {
      /* hand the carry to the atom above: find it again */
      size_t t = j + 1;
      while (t < n && m[t] == 0.0)
        t++;
      if (t < n)
        m[t] += carry;
      else
        *inf += carry;
      carry = 0.0;
    }
  }
  if (carry > 0.0) {
    size_t t = 0;
    while (t < n && m[t] == 0.0)
      t++;
    if (t < n)
      m[t] += carry;
    else
      *inf += carry;
  }
}

/* f * diff where f may be +inf (e^Delta for Delta > 709): a zero difference
 * stays zero instead of becoming NaN. */
static double scaled(double f, double diff) { return diff == 0.0 ? 0.0 : f * diff; }

/* Upper bound on the gap between a chord of slope b and a convex function
 * whose one-sided slopes at the interval ends are >= a and <= c (all three
 * multiplied by the interval width). */
static double chord_gap(double a, double b, double c)
{
  if (!(c > a))
    return 0.0; /* linear (or round-off non-convexity, booked elsewhere) */
  if (b < a)
    b = a;
  if (b > c)
    b = c;
  /* a = -inf: e^Delta times the left slope overflowed (Delta > 709); the
   * gap grows as a falls, and its limit is c - b */
  if (a == -INFINITY)
    return c - b;
  return (b - a) * (c - b) / (c - a);
}

/* Weight of x_j on the segment from x_i to x_k (i < j < k; i == -1 is x = 0):
 * (e^a - 1)/(e^b - 1) with a = (j - i) Delta < b = (k - i) Delta, in the
 * form e^(a-b) (1 - e^-a)/(1 - e^-b) once e^b could overflow. */
static double seg_weight(long i, long j, long k, double grid)
{
  if (i < 0)
    return exp((double)(j - k) * grid);
  double a = (double)(j - i) * grid, b = (double)(k - i) * grid;
  if (b <= 700.0)
    return expm1(a) / expm1(b);
  return exp(a - b) * (expm1(-a) / expm1(-b));
}

/* Lower convex hull of (0, f0), (x_j, w_j); w is overwritten with the hull's
 * values at every grid point (in its mixed form).  stack needs n + 1 longs. */
static void lower_hull(struct vals *v, double f0, long *stack)
{
  size_t top = 0;
  long n = (long)v->n;
  stack[top++] = -1;
  for (long k = 0; k < n; k++) {
    while (top >= 2) {
      long i = stack[top - 2], j = stack[top - 1];
      double w = seg_weight(i, j, k, v->grid);
      double vi = val(v, i, k, f0), vk = val(v, k, k, f0);
      if (val(v, j, k, f0) >= vi + (vk - vi) * w)
        top--;
      else
        break;
    }
    stack[top++] = k;
  }
  for (size_t s = 0; s + 1 < top; s++) {
    long a = stack[s], b = stack[s + 1];
    double va = val(v, a, b, f0), vb = val(v, b, b, f0);
    for (long j = a + 1; j < b; j++) {
      double x = va + (vb - va) * seg_weight(a, j, b, v->grid);
      /* store back in j's own form */
      int gf = gform(v, b);
      if (j <= v->jz)
        v->w[j] = gf ? x : x + xm1(v, j);
      else
        v->w[j] = gf ? x - xm1(v, j) : x;
    }
  }
}

/* Build both roundings of one direction from the grid values: d[j] = the
 * curve at eps_j = (lo + j) grid, g[j] = d[j] - 1 + x_j computed without
 * cancellation for j <= jz, and d(inf). */
static int build_direction(const double *d, const double *g, long jz, size_t n,
                           int64_t lo, double grid, const double *xm1t,
                           double infm, double curve_rel, int want_opt,
                           struct pld_pmf *pess, struct pld_pmf *opt,
                           double *work, long *stack)
{
  int st;
  if ((st = pld_pmf_alloc(pess, lo, n)) || (st = pld_pmf_alloc(opt, lo, n)))
    return st;

  /* g_j = x_j H_{1/x_j}(Q||P) is a product formed by the caller; where it
   * is subnormal (the bottom of a long lower tail) its rounding is absolute,
   * at most ETA_/2, and reaches the masses at j-1, j, j+1 through the
   * factors 1/(e^Delta - 1) and 1/(1 - e^-Delta). */
  double sub_abs = 0.0;
  for (long j = 0; j <= jz; j++)
    if (g[j] > 0.0 && g[j] < DBL_MIN)
      sub_abs += (1.0 / expm1(grid) - 1.0 / expm1(-grid)) * ETA_;

  double *merr = pld_malloc(n * sizeof(double));
  if (!merr)
    return PLD_ENOMEM;
  struct vals v = {work, n, jz, lo, grid, xm1t};
  for (size_t j = 0; j < n; j++)
    work[j] = (long)j <= jz ? g[j] : d[j];

  /* Pessimistic: connect the dots through (0, 1). */
  double crel, cabs, mrel, mabs, ml1;
  long ml1top;
  masses_from_values(&v, 1.0, pess->m, merr, &crel, &cabs);
  if (book_mass_rounding(&v, 1.0, merr, &mrel, &mabs, &ml1, &ml1top, pess)) {
    pld_free(merr); /* (clipping included in the booking) */
    return PLD_ENOMEM;
  }
  pess->inf = d[n - 1];
  sweep_noise_up(&v, 1.0, pess->m, n, &pess->inf);
  /* 4u: the stored values themselves, x_j times the other direction (exp
   * and the product) and the conversions between the forms (expm1), are
   * perturbed relatively, which moves the chord by as much */
  pess->rel = curve_rel + 4.0 * PLD_U + mrel;
  /* cabs: the slopes' and masses' rounding below the smallest normal
   * (masses_from_values); mabs counts clipping too, so this only adds */
  pess->abs = mabs + sub_abs + cabs;
  pess->l1 = ml1;
  pess->l1abs = mabs;
  pess->l1top = lo + (ml1top >= 0 ? ml1top : (long)n - 1);
  if (!want_opt) {
    pld_free(merr);
    return PLD_SUCCESS; /* the caller builds it from the loss tails */
  }

  /* Optimistic: grid values lowered by the chord-gap bounds, then hull.
   * Slopes (times the interval width) in the form of the interval's right
   * end; a common shift of a, b, c leaves the gap unchanged. */
  double eg = exp(grid), emg = exp(-grid), cu = 1.0 / expm1(grid);
  /* lo Delta >= -LOSS_LOW, so x0 and h below (used in g-form only, where
   * x_j <= e) are normal doubles */
  double x0 = exp(fmin((double)lo * grid, 700.0));
  long N = (long)n;
#define DIFF(j) (val(&v, (j) + 1, (j) + 1, 1.0) - val(&v, (j), (j) + 1, 1.0))
  /* interval [0, x_0]: slope at 0 is >= -1 since d(x) >= 1 - x; in g-form
   * every slope is one larger, so the bound is 0 (times x_0). */
  double gshift0 = gform(&v, 0) ? x0 : 0.0;
  double b0 = val(&v, 0, 0, 1.0) - val(&v, -1, 0, 1.0);
  /* The neighbouring slopes enter as bounds: the left one a must not be
   * above the exact one, the right one c not below it (the gap grows as a
   * falls and as c rises), so each takes the error of its difference
   * (diff_err) the safe way.  It matters for coarse steps: a multiplies a
   * difference by e^Delta, and where d is flat to within its rounding (the
   * bulk of a Gaussian with mu = 50, at Delta = 700) the computed a was 0
   * while the exact one is -1e278, which gave no gap at all and an
   * "optimistic" curve far above the true one. */
  double c0 = N >= 2 ? (val(&v, 1, 0, 1.0) - val(&v, 0, 0, 1.0) +
                        diff_err(&v, 0, 1, 0, 1.0, curve_rel)) * cu
                     : gshift0;
  double gprev = chord_gap(-x0 + gshift0, b0, c0);
  double f0 = 1.0 - gprev;
  double *lowered = pld_malloc(n * sizeof(double));
  if (!lowered) {
    pld_free(merr);
    return PLD_ENOMEM;
  }
  for (long j = 0; j + 1 < N; j++) {
    double h = x0 * exp((double)j * grid) * expm1(grid); /* x_j (e^grid - 1) */
    int gf = gform(&v, j + 1);
    double a = (j == 0) ? scaled(expm1(grid), val(&v, 0, 1, 1.0) - val(&v, -1, 1, 1.0) -
                                                  diff_err(&v, -1, 0, 1, 1.0, curve_rel))
                        : scaled(eg, val(&v, j, j + 1, 1.0) - val(&v, j - 1, j + 1, 1.0) -
                                         diff_err(&v, j - 1, j, j + 1, 1.0, curve_rel));
    double b = DIFF(j);
    double c = (j + 2 < N) ? emg * (val(&v, j + 2, j + 2, 1.0) -
                                    val(&v, j + 1, j + 2, 1.0) +
                                    diff_err(&v, j + 1, j + 2, j + 2, 1.0, curve_rel))
                           : (gf ? h : 0.0);
    /* c must be in the same form as a, b: when j + 2 switches to d-form,
     * convert (shift by the interval width) */
    if (j + 2 < N && gf && !gform(&v, j + 2))
      c += h;
    double gap = chord_gap(a, b, c);
    lowered[j] = fmax(gprev, gap);
    gprev = gap;
  }
#undef DIFF
  for (long j = 0; j + 1 < N; j++)
    work[j] -= lowered[j];
  pld_free(lowered);
  double vlast = fmin(infm, d[n - 1] - gprev);
  work[n - 1] = (N - 1 <= jz) ? vlast + xm1(&v, N - 1) : vlast;
  /* Values below zero (only where d itself is below the gap bound, in the far
   * tail) are raised to zero; chords move by at most the largest raise,
   * which is booked.  The curve must end flat: lowering the last value to
   * the minimum makes the hull non-increasing (lowering is always safe). */
  double raise = 0.0, vmin = f0;
  for (long j = 0; j < N; j++) {
    double dj = val_d(&v, j, f0);
    if (dj < 0.0) {
      raise = fmax(raise, -dj);
      work[j] += -dj;
      dj = 0.0;
    }
    if (dj < vmin)
      vmin = dj;
  }
  if (f0 < 0.0)
    f0 = 0.0;
  if (val_d(&v, N - 1, f0) > vmin)
    work[N - 1] = (N - 1 <= jz) ? vmin + xm1(&v, N - 1) : vmin;
  lower_hull(&v, f0, stack);
  masses_from_values(&v, f0, opt->m, merr, &crel, &cabs);
  st = book_mass_rounding(&v, f0, merr, &mrel, &mabs, &ml1, &ml1top, opt);
  pld_free(merr);
  if (st)
    return st;
  opt->inf = fmax(val_d(&v, N - 1, f0), 0.0);
  /* The neighbouring slopes a, c entered as safe bounds (diff_err); the
   * gap is Lipschitz in b and the grid values with constant <= 3, so a
   * relative error r in d becomes at most 4r here. */
  opt->rel = 4.0 * curve_rel + 4.0 * PLD_U + mrel;
  opt->abs = mabs + raise + sub_abs + cabs;
  opt->l1 = ml1;
  opt->l1abs = mabs;
  opt->l1top = lo + (ml1top >= 0 ? ml1top : (long)n - 1);
  return PLD_SUCCESS;
}

/* Optimistic member from the loss tails.
 *
 * Bucket k = (eps_k, eps_{k+1}] holds P_k = P[eps_k < L <= eps_{k+1}] and
 * Q_k; merging it into one outcome is a post-processing, so the atom (P_k at
 * loss log(P_k/Q_k)) is dominated by the truth.  Each atom is split: a share
 * a_k goes down to eps_k, the rest up to eps_{k+1}.  At grid point k the
 * up-share of atom k-1 (loss <= eps_k) and the down-share of atom k (loss >
 * eps_k) are merged into one outcome, again a post-processing; if its loss
 * is >= eps_k, rounding it down to eps_k is safe.  In Q-mass units scaled by
 * x_k = e^{eps_k} that condition reads
 *     a_k Y_k >= (1 - a_{k-1}) X_{k-1},
 * Y_k = P_k (1 - rho_k) (surplus of atom k at eps_k), X_{k-1} = P_{k-1}
 * (rho_{k-1} e^Delta - 1) (deficit of atom k-1 at eps_k), rho_k = x_k Q_k/P_k.
 * Any a satisfying every condition gives a sound optimistic PLD; the bias is
 * the total slack.  Equality everywhere (a mean-preserving contraction, the
 * dual of connect-the-dots) is the goal.  The balance recursion
 * a_k = (1 - a_{k-1}) X_{k-1}/Y_k is stable forward where lambda = X/Y <= 1
 * (density rising) and its inverse is stable backward where lambda > 1
 * (density falling), so we balance backward, then forward, starting from the
 * connect-the-dots split (which balances to first order), and finally enforce
 * every condition by raising shares (a share raised only adds slack).  What
 * remains is slack at the density's turning points and the grid ends.
 * Mass below eps_0 (the down-share of atom -1) and the finite mass above the
 * last grid point are dropped, which is safe. */
static int build_optimistic_tails(const double *pg, const double *eqg,
                                  const double *d, size_t n, double grid,
                                  double infm, double curve_rel,
                                  struct pld_pmf *opt, double *buf)
{
  double emg = exp(-grid), eg = exp(grid), cl = -1.0 / expm1(-grid);
  double *m = opt->m;
  /* atoms -1 .. n-2 at index +1 */
  size_t na = n;
  double *P = buf, *X = buf + na, *Y = buf + 2 * na, *A = buf + 3 * na;
  double snapped = 0.0;
  for (size_t i = 0; i < na; i++) {
    long k = (long)i - 1;
    double Pk = pg[k] - pg[k + 1];
    double XQk = eqg[k] - emg * eqg[k + 1];
    if (!(Pk > 0.0))
      Pk = 0.0;
    /* An atom must sit inside its bucket: rho in [e^-Delta, 1].  If the
     * difference is mostly round-off, put the atom at eps_k (rounding a loss
     * down is always safe). */
    double noise = (4.0 * PLD_U + 2.0 * curve_rel) * (pg[k] + eqg[k]);
    double rho = Pk > 0.0 ? XQk / Pk : 1.0;
    if (!(rho <= 1.0) || noise > 1e-3 * Pk)
      rho = 1.0;
    else if (rho < emg)
      rho = emg;
    P[i] = Pk;
    double t = rho * eg;
    /* An atom at the top of its bucket up to rounding (e.g. a lattice
     * mechanism on an aligned grid) sits on eps_{k+1}: no deficit.  That
     * raises its loss by log t <= t - 1 < 1e-12 nats, which raises d(x) by
     * at most P_k x (e^{-l} - e^{-l log t}) <= P_k (t - 1) = the deficit
     * dropped, for every x: booked absolutely below (it was booked as a
     * relative 1e-11, which is no bound where d is small against P_k: the
     * lower end of delta for a pair 5.8e-13 nats below a grid point came
     * out 2.6e-6 relative above the exact value). */
    if (t - 1.0 < 1e-12) {
      X[i] = 0.0;
      if (t > 1.0)
        snapped += Pk * (t - 1.0);
    } else {
      X[i] = Pk * ((t < INFINITY ? t : 1e300) - 1.0);
    }
    Y[i] = Pk * (1.0 - rho);
    A[i] = (rho - emg) * cl; /* connect-the-dots split */
    if (!(A[i] >= 0.0))
      A[i] = 0.0;
    if (A[i] > 1.0)
      A[i] = 1.0;
  }
  /* Backward balance where it is stable: a_{k-1} from a_k at grid k. */
  for (size_t i = na; i-- > 1;) {
    if (X[i - 1] > Y[i - 1] && X[i - 1] > 0.0) {
      double v = 1.0 - A[i] * Y[i] / X[i - 1];
      A[i - 1] = v < 0.0 ? 0.0 : (v > 1.0 ? 1.0 : v);
    }
  }
  /* Forward balance where it is stable: a_k from a_{k-1} at grid k. */
  for (size_t i = 1; i < na; i++) {
    if (X[i] <= Y[i] && Y[i] > 0.0) {
      double v = (1.0 - A[i - 1]) * X[i - 1] / Y[i];
      A[i] = v < 0.0 ? 0.0 : (v > 1.0 ? 1.0 : v);
    }
  }
  /* Enforce every merge condition (grid point k <-> index i = k + 1). */
  for (size_t i = 1; i <= na; i++) {
    double need = (1.0 - A[i - 1]) * X[i - 1];
    double yk = i < na ? Y[i] : 0.0;
    double have = i < na ? A[i] * yk : 0.0;
    if (have >= need)
      continue;
    if (i < na && yk > 0.0) {
      A[i] = fmin(1.0, need / yk);
      have = A[i] * yk;
    }
    if (have < need) /* the rest of atom k-1's up-share goes down instead */
      A[i - 1] = X[i - 1] > 0.0 ? fmin(1.0, fmax(A[i - 1], 1.0 - have / X[i - 1]))
                                : 1.0;
  }
  for (size_t k = 0; k < n; k++) {
    size_t i = k + 1;
    m[k] = (i < na ? A[i] * P[i] : 0.0) + (1.0 - A[i - 1]) * P[i - 1];
  }
  opt->inf = infm;
  /* Errors of the tail values only shift mass between neighbouring buckets
   * (bucket sums telescope) or move an atom inside its cell, i.e. by at most
   * one cell, and shifts down are safe.  A shift up of e at eps_j changes d(x)
   * by at most e (1 - e^{-Delta}) for x <= x_j, and sum_{j >= k} pg_j Delta is
   * the mean excess of L over eps_k, so relative to d the effect is at most
   * (value error) * R2 with R2 = max_k Delta sum_{j >= k} pg_j / d_k. */
  double S = 0.0, R2 = 1.0;
  for (size_t k = n; k-- > 0;) {
    S += pg[k] * grid;
    if (d[k] > 0.0 && S / d[k] > R2)
      R2 = S / d[k];
  }
  if (R2 > 1e6)
    R2 = 1e6;
  opt->rel = 4.0 * curve_rel + (16.0 * PLD_U + 2.0 * curve_rel) * R2 + 1e-11;
  opt->abs = snapped * (1.0 + 4.0 * (double)na * PLD_U);
  return PLD_SUCCESS;
}

int pld_dist_from_curve(const pld_curve *curve, double grid,
                        const pld_params *params, pld_dist **out)
{
  pld_detail_clear();
  pld_params def;
  if (!params) {
    pld_params_default(&def);
    params = &def;
  }
  if (!curve || !out || !curve->delta)
    return pld_fail(PLD_EINVAL, "%s is NULL", !curve ? "curve" : !out ? "out" : "curve->delta");
  if (!isfinite(grid) || !(grid > 0.0))
    return pld_fail(PLD_EINVAL, "discretization = %g must be finite and > 0", grid);
  if (!(curve->rel_err >= 0.0 && curve->rel_err < 1e-3))
    return pld_fail(PLD_EINVAL, "curve rel_err = %g must be in [0, 1e-3)", curve->rel_err);
  if (!isfinite(curve->loss_scale) || !(curve->loss_scale > 0.0))
    return pld_fail(PLD_EINVAL, "curve loss_scale = %g must be finite and > 0",
                    curve->loss_scale);
  if (pld_params_validate(params))
    return pld_fail_if_silent(PLD_EINVAL, "pld_dist_from_curve: params rejected by pld_params_validate");
  if (grid < 1e-9)
    return pld_fail(PLD_ERANGE, "discretization = %g is below the least grid step 1e-9", grid);
  if (grid > PLD_GRID_MAX)
    return pld_fail(PLD_EINVAL, "discretization = %g exceeds the largest grid step %g",
                    grid, (double)PLD_GRID_MAX); /* beyond 1000 nats says nothing */

  int ndir = curve->symmetric ? 1 : 2, st;
  double cut[2], infm[2];
  int capped[2];
  for (int dir = 0; dir < ndir; dir++)
    if ((st = upper_cutoff(curve, dir, pld_params_tail(params), grid, &cut[dir],
                           &infm[dir], &capped[dir])))
      return st;
  if (ndir == 1) {
    cut[1] = cut[0];
    infm[1] = infm[0];
    capped[1] = capped[0];
  }
  /* The grid of direction dir spans [-low[dir], cut[dir]]: the lower end
   * is the other direction's cut-off, but not below -LOSS_LOW. */
  double low[2] = {fmin(cut[1], LOSS_LOW), fmin(cut[0], LOSS_LOW)};
  /* The tails' bucket merging needs e^Delta (the deficit of an atom at the
   * next grid point, in units scaled by x_k); beyond 700 nats per step it
   * would overflow, and there the curve-only construction is used. */
  int use_tails = curve->tails != NULL && grid <= PLD_GRID_TAILS_MAX;

  /* Size checks in floating point before any integer conversion. */
  double nmaxd = 0.0;
  for (int dir = 0; dir < ndir; dir++) {
    double span = (cut[dir] + low[dir]) / grid + 3.0;
    if (!(span <= (double)params->max_grid))
      return pld_fail(PLD_ERANGE, "a grid of %.3g points exceeds max_grid = %zu (raise max_grid, or coarsen the discretization)", span, params->max_grid);
    nmaxd = fmax(nmaxd, span + 1.0);
  }

  struct pld_dist *d = NULL;
  double *eps = NULL, *vals[2] = {NULL, NULL}, *work = NULL, *gbuf = NULL;
  double *xm1t = NULL;
  double *obuf = NULL;
  long *stack = NULL;
  if ((st = pld_dist_new(grid, &d)))
    return st;
  d->symmetric = curve->symmetric ? 1 : 0;
  size_t nmax = (size_t)nmaxd;
  eps = pld_malloc(nmax * sizeof(double));
  vals[0] = pld_malloc(nmax * sizeof(double));
  vals[1] = ndir == 2 ? pld_malloc(nmax * sizeof(double)) : NULL;
  work = pld_malloc(nmax * sizeof(double));
  gbuf = pld_malloc(nmax * sizeof(double));
  stack = pld_malloc((nmax + 1) * sizeof(long));
  obuf = curve->tails ? pld_malloc(4 * nmax * sizeof(double)) : NULL;
  xm1t = pld_malloc(nmax * sizeof(double));
  if ((curve->tails && !obuf) || !eps || !vals[0] || (ndir == 2 && !vals[1]) || !work || !gbuf || !stack || !xm1t) {
    st = PLD_ENOMEM;
    goto fail;
  }
  int64_t glo[2], ghi[2];
  for (int dir = 0; dir < ndir; dir++) {
    glo[dir] = (int64_t)floor(-low[dir] / grid);
    if ((double)glo[dir] * grid < -LOSS_LOW)
      glo[dir]++;
    ghi[dir] = (int64_t)ceil(cut[dir] / grid);
    if (ghi[dir] < glo[dir])
      ghi[dir] = glo[dir];
    size_t n = (size_t)(ghi[dir] - glo[dir] + 1);
    /* Only the points at eps >= 0 are asked for: below 0 the masses use
     * the g-form, which comes from the other direction's values at -eps
     * (below), and the d-values there are needed only for the tails'
     * booking (R2 in build_optimistic_tails), filled in from the g-form.
     * Asking the curve there too doubled the evaluations of a Poisson-
     * subsampled mechanism, whose add direction lies almost all below 0. */
    size_t j0 = (size_t)(-glo[dir]) < n ? (size_t)(-glo[dir]) : n - 1;
    for (size_t j = j0; j < n; j++)
      eps[j] = grid_down((double)(glo[dir] + (int64_t)j) * grid);
    /* The grid values come from the curve, whose contract is a relative
     * error of rel_err.  (They used to come from p_gt - eq_gt wherever that
     * kept 1e-6 of p_gt; but tails accurate to rel_err each give a
     * difference accurate only to rel_err (p_gt + eq_gt)/delta, up to 2e6
     * times what was booked.) */
    {
      int r = curve->delta(curve->ctx, dir, n - j0, eps + j0, vals[dir] + j0);
      if (r) {
        st = cb_status(r);
        goto fail;
      }
    }
    for (size_t j = j0; j < n; j++) {
      if (!(vals[dir][j] >= -1e-12 && vals[dir][j] <= 1.0 + 1e-12)) {
        st = PLD_ECALLBACK;
        goto fail;
      }
      vals[dir][j] = fmin(fmax(vals[dir][j], 0.0), 1.0);
    }
  }
  if (ndir == 1) {
    glo[1] = glo[0];
    ghi[1] = ghi[0];
    vals[1] = vals[0];
  }
  for (int dir = 0; dir < ndir; dir++) {
    int64_t lo = glo[dir];
    size_t n = (size_t)(ghi[dir] - lo + 1);
    long jz = lo <= 0 ? (long)(-lo) : -1;
    if (jz > (long)n - 1)
      jz = (long)n - 1;
    /* g_j = x_j H_{1/x_j}(Q||P): the other direction at -eps_j, which lies
     * on the other direction's grid */
    for (long j = 0; j <= jz; j++) {
      int64_t io = -(lo + j) - glo[1 - dir];
      double other = (io >= 0 && io <= ghi[1 - dir] - glo[1 - dir])
                         ? vals[1 - dir][io]
                         : 0.0;
      gbuf[j] = exp(grid_up((double)(lo + j) * grid)) * other;
    }
    /* d = g + (1 - x) below 0, a sum of non-negative terms: within the
     * g-form's error and a few ulps, which is all the tails' booking (R2)
     * needs of it (vals[dir] is not read below 0 otherwise).  (A cheaper
     * lower bound of 1 - x, -e/(1 - e), raised R2 enough to widen the
     * bracket of 100 Poisson-Gaussian steps by 1.5e-5: R2 multiplies the
     * tails' error, and its largest ratio lies where that bound is loose.) */
    for (long j = 0; j <= jz + 1 && j < (long)n; j++)
      xm1t[j] = expm1((double)(lo + j) * grid);
    for (long j = 0; j < jz; j++)
      vals[dir][j] = fmin(gbuf[j] - xm1t[j], 1.0);
    if ((st = build_direction(vals[dir], gbuf, jz, n, lo, grid, xm1t, infm[dir],
                              curve->rel_err, !use_tails,
                              &d->p[dir][PLD_PESSIMISTIC],
                              &d->p[dir][PLD_OPTIMISTIC], work, stack)))
      goto fail;
    if (curve->tails) {
      /* work and gbuf are free again: reuse them for the tails, from one
       * grid point below the grid on */
      for (size_t j = 0; j <= n; j++)
        eps[j] = grid_up((double)(lo - 1 + (int64_t)j) * grid);
      int r = curve->tails(curve->ctx, dir, n + 1, eps, work, gbuf);
      if (r) {
        st = cb_status(r);
        goto fail;
      }
      for (size_t j = 0; j <= n; j++)
        if (!(work[j] >= 0.0 && work[j] <= 1.0 + 1e-9) ||
            !(gbuf[j] >= 0.0 && gbuf[j] <= 1.0 + 1e-9)) {
          st = PLD_ECALLBACK;
          goto fail;
        }
      if (use_tails &&
          (st = build_optimistic_tails(work + 1, gbuf + 1, vals[dir], n, grid,
                                       infm[dir], curve->rel_err,
                                       &d->p[dir][PLD_OPTIMISTIC], obuf)))
        goto fail;
      if (use_tails && capped[dir]) {
        /* The top was capped at LOSS_MAX, so the finite mass above it,
         * P[L > top] - d(inf), is not negligible: it goes down onto the top
         * grid point (rounding a loss down is safe for the optimistic
         * member) instead of being dropped.  A lower bound of it (the tail
         * just above the top, its and d(inf)'s relative errors and the
         * rounding taken off) is the amount placed: that amount is the
         * ideal rounding, so nothing needs booking. */
        double e = 2.0 * curve->rel_err + 8.0 * PLD_U;
        double above = work[n] * (1.0 - e) - infm[dir] * (1.0 + e);
        if (above > 0.0)
          d->p[dir][PLD_OPTIMISTIC].m[n - 1] += above;
      }
      /* The exact mass above the grid top is at most P[L > top] (the tail
       * at eps[n]), while the pessimistic inf mass is the computed curve
       * there: for randomized response or discrete Laplace, whose loss
       * ends on the grid, that is pure rounding (6.7e-16 where the exact
       * value is 0), and as mass at +inf it made every RDP of the PLD
       * infinite.  The excess r over the tail bound is booked as absolute
       * error instead, so every delta answer is unchanged (it loses r at
       * +inf and gains r of booked slack), while the ideal distribution
       * behind the ledger no longer claims mass at +inf it cannot have. */
      struct pld_pmf *pm = &d->p[dir][PLD_PESSIMISTIC];
      double tail = work[n] * (1.0 + 2.0 * curve->rel_err + 1e-9);
      if (pm->inf > tail) {
        /* eps[n] is the top rounded up, so the tail there may miss atoms
         * whose loss exceeds the real top by a few ulps (the top and the
         * losses are both off by at most 4u relative): they add at most
         * P (L - top) <= 8u |top| P to the curve beyond the top, P their
         * mass, at most the tail at the top rounded down. */
        double etop = grid_down((double)(lo - 1 + (int64_t)n) * grid), pt, et;
        int r2 = curve->tails(curve->ctx, dir, 1, &etop, &pt, &et);
        if (r2) {
          st = cb_status(r2);
          goto fail;
        }
        pm->abs += pm->inf - tail +
                   8.0 * PLD_U * fabs(etop) * fmin(pt, 1.0) *
                       (1.0 + 2.0 * curve->rel_err + 1e-9);
        pm->inf = tail;
      }
    }
  }
  if (ndir == 1)
    for (int r = 0; r < 2 && !st; r++)
      st = pld_pmf_copy(&d->p[0][r], &d->p[1][r]);
fail:
  pld_free(eps);
  pld_free(vals[0]);
  pld_free(ndir == 2 ? vals[1] : NULL);
  pld_free(gbuf);
  pld_free(obuf);
  pld_free(xm1t);
  pld_free(work);
  pld_free(stack);
  if (st) {
    pld_dist_free(d);
    return st;
  }
  *out = d;
  return PLD_SUCCESS;
}
