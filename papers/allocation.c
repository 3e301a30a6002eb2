/* pldkit: one-of-T random allocation with Gaussian noise as a PLD
 * (Balanced Iteration Subsampling with k = 1, disjoint model splitting),
 * and the k-out-of-T reduction.  docs/allocation.md has the proofs.
 *
 * The likelihood ratio of the pair is S = (1/T) sum_i X_i, X_i = e^{mu Z_i -
 * mu^2/2} i.i.d. under Q, and both directions of the hockey-stick curve are
 * expectations of convex functions of S under Q.  Two finite laws bracket
 * them in the convex order (<=_cx is preserved by sums of independent
 * variables, and both curves are E phi(S) with phi convex):
 *   - U (upper): every cell of a geometric grid has its mass spread onto the
 *     cell's two edges with the cell's mean kept (a mean-preserving spread);
 *   - L (lower): every cell's mass sits at the cell's conditional mean
 *     (a conditional expectation, Jensen).
 * Starting from the discretised X/T, the T-fold sum is formed by binary
 * powering, S_{a+b} = S_a + S_b computed pairwise and rebinned the same way
 * after each sum.  The two end cells of X are set to their conditional
 * means in both laws; that moves S by at most E|X - X'| <= 2 E[X; end
 * cells] in L1, booked as an absolute error (times e^eps for the QP
 * direction, whose integrand is e^eps-Lipschitz in S).
 * Each law is a finite pair (q_j = mass, p_j = s_j q_j), whose curve the
 * finite mechanism evaluates exactly; the mechanism is the bracket
 * (pld_mech_bracket) of the two: its pessimistic PLD comes from U, its
 * optimistic one from L. */
#include <pldkit/allocation.h>

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "detail.h"
#include "mech_type.h"
#include "parallel.h"

#define SQRT2 1.41421356237309504880
#define MU_MIN 1e-3
#define MU_MAX 30.0
/* The far cells of Z.  One-of-T means and the partial split's Gaussian
 * factor: cells on [-Z_CUT, Z_CUT], where the Q-masses are still normal
 * numbers (Phi(-37) = 5.7e-300; beyond, a cell's Q-mass is subnormal or
 * 0 and the P-mass w v built on it loses its digits or vanishes), and
 * where |log X/T| stays below LV_MEAN (sums) or LV_PROD (the partial
 * split's products of two laws), so that no value underflows or
 * overflows (at mu = 20 the cells below Z = -27 had X = 0: their weights
 * came out NaN and were dropped).  The blocks of two keep their lattice
 * on +-(ZMAX_EXTRA + mu) (mu <= TWO_MAX_MU = 4, where no limit binds).
 * What lies beyond is booked (law_base, finite_of_law): about Phi(-37 +
 * mu) in delta at mu <= 9, so the laws answer down to delta ~ 1e-280 at
 * mu = 1. */
#define Z_CUT 37.0
#define LV_MEAN 690.0
#define LV_PROD 345.0
#define ZMAX_EXTRA 21.5
/* Atoms of a sum below this mass at either end are merged (L: at their
 * mean; U: booked, see trim). */
/* Mass below this at either end of a law is merged (law_trim), in runs
 * of at most TRIM_CHUNK in log v: the tail keeps its shape on a lattice of
 * ratio e^0.1, so curves below TRIM_MASS lose a little accuracy there
 * (delta at most ~1.5x at 1e-35..1e-53, T = 2: 0.1-0.2% in epsilon), never
 * their side.  Merged into one run per end instead, the tail would put
 * ~1e-30 above every epsilon (delta(12) of T = 2, truly 1.3e-35, would read
 * 1.6e-31; docs/allocation.md "Tiny delta"), and the spurious far atom would pull a delta query's tilt
 * to it.  Costs 3-6% of the time of a k = 1 query at delta = 1e-5 (more
 * atoms in the sums: T = 1000, sigma = 1 0.338 -> 0.349 s).  The X of a
 * block of two keeps one run per end (its tail feeds the 2-D lattice,
 * whose cost grows with the atoms: T = 2000, k = 655 took 0.94 s before,
 * 1.03 s with X chunked too, 0.99 s without); the block's G and final law
 * are chunked. */
#define TRIM_MASS 1e-30
#define TRIM_CHUNK 0.1

#define ETA_LEVEL_MAX 0.05
#define BULK_SDS 32.0
#define KAPPA 0.04
#define ETA_CAP 0.002

struct law {
  size_t n;
  double *v;  /* ascending values */
  double *w;  /* masses */
  double l1;  /* U only: booked L1 distance of the exact-rule law from it */
  double qp;  /* U only: booked probability (under Q) that some term lies in
                 an end cell: bounds the add direction's slack */
};

static void law_free(struct law *a)
{
  pld_free(a->v);
  pld_free(a->w);
  a->v = a->w = NULL;
  a->n = 0;
}

static int law_alloc(struct law *a, size_t n)
{
  a->n = n;
  a->v = pld_malloc((n ? n : 1) * sizeof(double));
  a->w = pld_calloc(n ? n : 1, sizeof(double));
  if (!a->v || !a->w) {
    law_free(a);
    return PLD_ENOMEM;
  }
  return PLD_SUCCESS;
}

/* Phi(b) - Phi(a) for a < b without cancellation in the upper tail. */
static double phi_diff(double a, double b)
{
  if (a >= 0.0)
    return 0.5 * (erfc(a / SQRT2) - erfc(b / SQRT2));
  if (b <= 0.0)
    return 0.5 * (erfc(-b / SQRT2) - erfc(-a / SQRT2));
  return 1.0 - 0.5 * erfc(-a / SQRT2) - 0.5 * erfc(b / SQRT2);
}

/* Remove empty atoms; drop nothing else. */
static void law_compact(struct law *a)
{
  size_t k = 0;
  for (size_t i = 0; i < a->n; i++)
    if (a->w[i] > 0.0) {
      a->v[k] = a->v[i];
      a->w[k] = a->w[i];
      k++;
    }
  a->n = k;
}

/* The atoms of total mass below TRIM_MASS at each end are merged.  L: into
 * one atom at their mean (a conditional expectation).  U: every one of them
 * is spread onto the two outermost atoms of its run (mean kept, a
 * mean-preserving spread: nothing to book).  Either way only the curves
 * below about TRIM_MASS lose accuracy, never their side of the truth. */
static void trim_run(struct law *a, size_t i0, size_t i1, int upper)
{
  /* atoms i0..i1 (i0 < i1) become atoms at v[i0] and v[i1] (U) or one at
   * their mean, kept at i1 (L) */
  double m = 0.0, mv = 0.0, lo = a->v[i0], hi = a->v[i1];
  for (size_t i = i0; i <= i1; i++) {
    m += a->w[i];
    mv += a->w[i] * a->v[i];
  }
  if (!(m > 0.0))
    return;
  for (size_t i = i0; i <= i1; i++)
    a->w[i] = 0.0;
  if (upper) {
    double f = (mv / m - lo) / (hi - lo);
    f = f < 0.0 ? 0.0 : f > 1.0 ? 1.0 : f;
    a->w[i0] = m * (1.0 - f);
    a->w[i1] = m * f;
  } else {
    a->w[i1] = m;
    a->v[i1] = fmin(fmax(mv / m, lo), hi);
  }
}

/* trim_run on each stretch of atoms i0..i1 spanning at most `chunk` in
 * log v (chunk <= 0: one stretch).  Each stretch is merged on its own (U:
 * a mean-preserving spread onto its end atoms; L: its conditional mean),
 * so the whole is again a spread / a conditional expectation. */
static void trim_chunks(struct law *a, size_t i0, size_t i1, int upper,
                        double chunk)
{
  if (!(chunk > 0.0)) {
    trim_run(a, i0, i1, upper);
    return;
  }
  const double r = exp(chunk);
  for (size_t i = i0; i <= i1;) {
    size_t j = i;
    while (j < i1 && a->v[j + 1] <= a->v[i] * r)
      j++;
    if (j > i)
      trim_run(a, i, j, upper);
    i = j + 1;
  }
}

static void law_trim(struct law *a, int upper, double chunk)
{
  size_t n = a->n;
  if (n < 5)
    return;
  /* an atom's weight is the larger of its Q-mass w and its P-mass w v:
   * at large mu (above ~11) the P-bulk sits where the Q-mass is below
   * 1e-44, and merging it by Q-mass alone moved it to the far end atom
   * (mu = 14, T = 3: delta_PQ(150) = 0.997 against the Gaussian's 3e-4) */
  double m = 0.0;
  size_t lo = 0;
  while (lo + 2 < n && m + a->w[lo] * fmax(1.0, a->v[lo]) < TRIM_MASS)
    m += a->w[lo] * fmax(1.0, a->v[lo]), lo++;
  if (lo > 2)
    trim_chunks(a, 0, lo - 1, upper, chunk);
  m = 0.0;
  size_t hi = n;
  while (hi > lo + 2 && m + a->w[hi - 1] * fmax(1.0, a->v[hi - 1]) < TRIM_MASS)
    --hi, m += a->w[hi] * fmax(1.0, a->v[hi]);
  if (n - hi > 2)
    trim_chunks(a, hi, n - 1, upper, chunk);
  law_compact(a);
}

/* log Phi(-x) for x >= 0, without underflow: erfc while it is a normal
 * number, else the asymptotic series (Abramowitz-Stegun 26.2.12; four
 * terms, relative error below 1e-9 for x >= 37). */
static double log_phi_neg(double x)
{
  if (x < 37.0)
    return log(0.5 * erfc(x / SQRT2));
  double r = 1.0 / (x * x);
  return -0.5 * x * x - log(x) - 0.91893853320467274178 +
         log1p(r * (-1.0 + r * (3.0 - 15.0 * r)));
}

/* X/T on the grid: cells of Z of width ~h on [zlo, zhi] = [-zcut, zcut]
 * narrowed to where |log X/T| <= lv; spread (U) or conditional means (L).
 * The two end cells (Z < zlo, Z > zhi) sit at their conditional means in
 * both laws, which for U is a conditional expectation, the wrong way:
 * booked.  Remove direction: E (S - t)_+ is 1-Lipschitz in S, and the end
 * cells move S by at most E|X - X'|/T <= 2 E[X; cell]/T (out->l1).  Add
 * direction: E (1 - e^eps S)_+ has its integrand in [0, 1] and changes
 * only where some term lies in an end cell, so by at most the end cells'
 * Q-mass per term (out->qp), whatever eps (the Lipschitz bound e^eps l1
 * grows without end).  finite_of_law books both. */
static int law_base(double mu, uint64_t T, double eta, int upper,
                    double zcut, double lv, struct law *out)
{
  double lt = log((double)T), half = 0.5 * mu * mu;
  double zlo = fmax(-zcut, (half + lt - lv) / mu);
  double zhi = fmin(zcut, (half + lt + lv) / mu);
  if (!(zlo < zhi))
    return PLD_ERANGE;
  double h = eta / mu;
  size_t nc = (size_t)ceil((zhi - zlo) / h);
  if (nc < 1)
    nc = 1;
  h = (zhi - zlo) / (double)nc;
  int st = law_alloc(out, nc + 3);
  if (st)
    return st;
  double iT = 1.0 / (double)T;
  /* end cells at their conditional means (both laws): Q-masses wb, wt,
   * P-masses mb, mt */
  double wb = 0.5 * erfc(-zlo / SQRT2), mb = 0.5 * erfc((mu - zlo) / SQRT2);
  double wt = 0.5 * erfc(zhi / SQRT2), mt = 0.5 * erfc((zhi - mu) / SQRT2);
  out->l1 = 2.0 * (mb + mt) * iT;
  out->qp = wb + wt;
  /* index 0: bottom cell, 1..nc+1: edges (U) or cells (L), nc+2: top */
  /* the bottom cell's conditional mean Phi(zlo - mu) / Phi(zlo) from logs
   * where its numerator underflows (from mu ~ 8.5 on, while wb does not:
   * 0/wb = 0 broke the geometric grids), below the cell's edge */
  double vb = mb > 0.0 || !(zlo <= 0.0)
                  ? mb / wb
                  : exp(log_phi_neg(mu - zlo) - log_phi_neg(-zlo));
  out->v[0] = iT * fmin(vb, exp(mu * zlo - half));
  out->w[0] = wb;
  out->v[nc + 2] = iT * fmax(mt / wt, exp(mu * zhi - half));
  out->w[nc + 2] = wt;
  for (size_t j = 0; j <= nc; j++)
    out->v[1 + j] = iT * exp(mu * (zlo + (double)j * h) - half);
  for (size_t j = 0; j < nc; j++) {
    double za = zlo + (double)j * h, zb = j + 1 == nc ? zhi : za + h;
    double w = phi_diff(za, zb), pm = phi_diff(za - mu, zb - mu);
    if (!(w > 0.0))
      continue;
    double a = out->v[1 + j], b = out->v[2 + j], mean = iT * pm / w;
    if (mean < a)
      mean = a;
    if (mean > b)
      mean = b;
    if (upper) {
      double f = (mean - a) / (b - a);
      out->w[1 + j] += w * (1.0 - f);
      out->w[2 + j] += w * f;
    } else {
      out->w[1 + j] = w; /* cell j at slot 1 + j */
      out->v[1 + j] = mean;
    }
  }
  if (!upper) {
    /* slots 1..nc hold cells; slot nc + 1 (the last edge) is unused */
    out->w[nc + 1] = 0.0;
  }
  law_compact(out);
  return PLD_SUCCESS;
}

/* Sums of masses (c0) and first moments (c1) of a law over index ranges,
 * without cancellation in either tail: prefix sums below the heaviest atom,
 * suffix sums from it on, so a range's sum is a difference of two partial
 * sums of its own tail (relative error ~ u times tail/range mass). */
struct psum {
  size_t n, mode;
  double *pre0, *pre1, *suf0, *suf1; /* n + 1 each */
};

static void psum_free(struct psum *p) { pld_free(p->pre0); }

static int psum_make(const struct law *a, struct psum *p)
{
  size_t n = a->n;
  p->n = n;
  p->pre0 = pld_malloc(4 * (n + 1) * sizeof(double));
  if (!p->pre0)
    return PLD_ENOMEM;
  p->pre1 = p->pre0 + (n + 1);
  p->suf0 = p->pre1 + (n + 1);
  p->suf1 = p->suf0 + (n + 1);
  p->mode = 0;
  p->pre0[0] = p->pre1[0] = 0.0;
  for (size_t i = 0; i < n; i++) {
    if (a->w[i] > a->w[p->mode])
      p->mode = i;
    p->pre0[i + 1] = p->pre0[i] + a->w[i];
    p->pre1[i + 1] = p->pre1[i] + a->w[i] * a->v[i];
  }
  p->suf0[n] = p->suf1[n] = 0.0;
  for (size_t i = n; i-- > 0;) {
    p->suf0[i] = p->suf0[i + 1] + a->w[i];
    p->suf1[i] = p->suf1[i + 1] + a->w[i] * a->v[i];
  }
  return PLD_SUCCESS;
}

/* mass and first moment of atoms s..t-1 (s < t), each >= 0 */
static void psum_range(const struct psum *p, size_t s, size_t t, double *w,
                       double *m1)
{
  double a0, a1;
  if (t <= p->mode) {
    a0 = p->pre0[t] - p->pre0[s];
    a1 = p->pre1[t] - p->pre1[s];
  } else if (s >= p->mode) {
    a0 = p->suf0[s] - p->suf0[t];
    a1 = p->suf1[s] - p->suf1[t];
  } else {
    a0 = (p->pre0[p->mode] - p->pre0[s]) + (p->suf0[p->mode] - p->suf0[t]);
    a1 = (p->pre1[p->mode] - p->pre1[s]) + (p->suf1[p->mode] - p->suf1[t]);
  }
  *w = a0 > 0.0 ? a0 : 0.0;
  *m1 = a1 > 0.0 ? a1 : 0.0;
}

/* The rebinning cells of a sum, in u = log v: spacing eta within W of the
 * centre c, growing linearly beyond, eta (1 + |u - c|/W), so that the bulk
 * of the law, where the curves at useful epsilons are decided, gets fine
 * cells and the long tails (45 nats for the upper law, whose end atoms are
 * kept) few.  Cell index phi(u) = (W/eta) sgn(d) log1p(|d|/W), d = u - c;
 * W = inf is the plain geometric grid.  Any partition keeps U a
 * mean-preserving spread and L a conditional expectation: the cells only
 * set the accuracy. */
struct bins {
  double eta, c, W;
};

static double bins_phi(const struct bins *b, double u)
{
  double d = u - b->c;
  if (!isfinite(b->W))
    return d / b->eta;
  double y = b->W / b->eta * log1p(fabs(d) / b->W);
  return d < 0.0 ? -y : y;
}

static double bins_inv(const struct bins *b, double y)
{
  if (!isfinite(b->W))
    return b->c + y * b->eta;
  double d = b->W * expm1(fabs(y) * b->eta / b->W);
  return b->c + (y < 0.0 ? -d : d);
}

struct grid {
  struct bins b;
  double phi0, *edge, *w, *mom;
  size_t ne;
  int upper;
};

/* edges of the cells covering [vmin, vmax]: *ne of them, or PLD_ERANGE */
static int grid_edges(struct grid *g, double vmin, double vmax)
{
  g->phi0 = floor(bins_phi(&g->b, log(vmin))) - 1.0;
  double top = ceil(bins_phi(&g->b, log(vmax))) + 1.0 - g->phi0;
  if (!(top <= (double)((size_t)1 << 24)))
    return PLD_ERANGE;
  g->ne = (size_t)top + 1;
  g->edge = pld_malloc(g->ne * sizeof(double));
  if (!g->edge)
    return PLD_ENOMEM;
  for (size_t m = 0; m < g->ne; m++)
    g->edge[m] = exp(bins_inv(&g->b, g->phi0 + (double)m));
  g->edge[0] = fmin(g->edge[0], vmin);
  g->edge[g->ne - 1] = fmax(g->edge[g->ne - 1], vmax * (1.0 + 1e-15));
  return PLD_SUCCESS;
}

static size_t grid_cell(const struct grid *g, double v)
{
  double f = floor(bins_phi(&g->b, log(v)) - g->phi0);
  size_t m = f <= 0.0 ? 0 : f >= (double)(g->ne - 2) ? g->ne - 2 : (size_t)f;
  while (m > 0 && g->edge[m] > v)
    m--;
  while (m + 2 < g->ne && g->edge[m + 1] <= v)
    m++;
  return m;
}

/* Mass x with first moment mv (values inside cell m) into cell m: spread
 * onto its edges with the mean kept (U) -- the spread of each pair onto the
 * edges is linear in its value, so a batch spreads as its mean does -- or
 * kept with its moment (L). */
static void grid_put(struct grid *g, size_t m, double x, double mv)
{
  if (!(x > 0.0))
    return;
  if (g->upper) {
    double a = g->edge[m], b = g->edge[m + 1];
    double f = (mv / x - a) / (b - a);
    f = f < 0.0 ? 0.0 : f > 1.0 ? 1.0 : f;
    g->w[m] += x * (1.0 - f);
    g->w[m + 1] += x * f;
  } else {
    g->w[m] += x;
    g->mom[m] += mv;
  }
}

/* The pairs (y, x) with y an atom of `big` and x one of `small` below it:
 * x_i with i < lim(j), where lim is the count of small atoms <= y (strict:
 * < y), or i < j for a self-sum (self = 1, weight 2 for the off-diagonal
 * pairs).  For each y the x are walked down in batches landing in one cell
 * (their sums y + x are monotone in x), each batch deposited from range
 * sums: about log(2)/eta batches per y instead of one step per pair. */
static void sum_pass(const struct law *big, const struct law *small,
                     const struct psum *ps, int strict, int self,
                     struct grid *g)
{
  size_t lim = 0;
  for (size_t j = 0; j < big->n; j++) {
    double y = big->v[j], wy = big->w[j] * (self ? 2.0 : 1.0);
    if (self)
      lim = j;
    else
      while (lim < small->n &&
             (strict ? small->v[lim] < y : small->v[lim] <= y))
        lim++;
    size_t t = lim, m = t > 0 ? grid_cell(g, y + small->v[t - 1]) : 0;
    while (t > 0) {
      /* the cells go down with the batches: walk, no log */
      double top = y + small->v[t - 1];
      while (m > 0 && g->edge[m] > top)
        m--;
      double e = g->edge[m];
      /* first s with y + x_s >= edge[m]: gallop down from t - 1 */
      size_t hi = t - 1, step = 1, lo;
      for (;;) {
        if (hi < step) {
          lo = 0;
          break;
        }
        size_t c = hi - step;
        if (y + small->v[c] < e) {
          lo = c;
          break;
        }
        hi = c;
        step *= 2;
      }
      /* now y + x_lo < e (or lo = 0) and y + x_hi >= e */
      if (lo == 0 && y + small->v[0] >= e)
        hi = 0;
      else
        while (hi - lo > 1) {
          size_t c = lo + (hi - lo) / 2;
          if (y + small->v[c] >= e)
            hi = c;
          else
            lo = c;
        }
      double w, m1;
      psum_range(ps, hi, t, &w, &m1);
      grid_put(g, m, wy * w, wy * (m1 + y * w));
      t = hi;
    }
  }
}

/* out = law of A + B (independent), rebinned on a geometric grid of ratio
 * e^eta: spread onto edges (U) or conditional means (L).  Every pair (a,
 * b) is counted once: as (y, x) = (b, a) when a <= b, else as (a, b). */
static int law_sum(const struct law *A, const struct law *B,
                   const struct bins *bins, int upper, struct law *out)
{
  double vmin = A->v[0] + B->v[0], vmax = A->v[A->n - 1] + B->v[B->n - 1];
  struct grid g = {*bins, 0.0, NULL, NULL, NULL, 0, upper};
  int st = grid_edges(&g, vmin, vmax);
  if (st)
    return st;
  size_t ne = g.ne;
  double *edge = g.edge;
  struct psum pa = {0}, pb = {0};
  double *mom = upper ? NULL : pld_calloc(ne, sizeof(double));
  st = law_alloc(out, ne);
  if (!st)
    st = psum_make(A, &pa);
  if (!st && A != B)
    st = psum_make(B, &pb);
  out->l1 = A->l1 + B->l1;
  out->qp = A->qp + B->qp; /* union bound over the terms */
  if ((!upper && !mom) || st) {
    pld_free(edge);
    pld_free(mom);
    psum_free(&pa);
    psum_free(&pb);
    law_free(out);
    return PLD_ENOMEM;
  }
  g.w = out->w;
  g.mom = mom;
  if (A == B) {
    sum_pass(A, A, &pa, 0, 1, &g);
    for (size_t i = 0; i < A->n; i++) { /* the diagonal */
      double v = 2.0 * A->v[i], x = A->w[i] * A->w[i];
      grid_put(&g, grid_cell(&g, v), x, x * v);
    }
  } else {
    sum_pass(B, A, &pa, 0, 0, &g); /* a <= b */
    sum_pass(A, B, &pb, 1, 0, &g); /* b < a */
  }
  for (size_t m = 0; m < ne; m++) {
    if (upper)
      out->v[m] = edge[m];
    else
      out->v[m] = out->w[m] > 0.0 ? fmin(fmax(mom[m] / out->w[m], edge[m]), edge[m + 1 < ne ? m + 1 : m]) : edge[m];
  }
  pld_free(edge);
  pld_free(mom);
  psum_free(&pa);
  psum_free(&pb);
  law_compact(out);
  return PLD_SUCCESS;
}

static int law_copy(const struct law *a, struct law *out)
{
  int st = law_alloc(out, a->n);
  if (st)
    return st;
  memcpy(out->v, a->v, a->n * sizeof(double));
  memcpy(out->w, a->w, a->n * sizeof(double));
  out->l1 = a->l1;
  out->qp = a->qp;
  return PLD_SUCCESS;
}

/* The law of S = (1/T) sum X_i, upper or lower, by binary powering; the
 * l1 of a sum is the sum of its parts' plus its trimming. */
/* The cells of a sum of m of the T terms X_i/T.  Ratio: a rebinning of
 * such a law with ratio eta_m adds a spread of variance ~ (m/T)^2 eta_m^2
 * per copy, and S holds T/m copies: (m/T) eta_m^2 in all, so eta_m = eta
 * sqrt(T/m) makes every level add about eta^2 (the early levels, whose
 * laws are wide and costly, get coarse cells).  Centre: E = m/T; width of
 * the fine part: BULK_SDS standard deviations of log(sum), sqrt(log(1 +
 * (e^{mu^2} - 1)/m)) for the log-normal terms. */
static struct bins level_bins(double eta, double mu, uint64_t T, uint64_t m)
{
  double e = eta * sqrt((double)T / (double)m);
  struct bins b = {e < ETA_LEVEL_MAX ? e : ETA_LEVEL_MAX,
                   log((double)m / (double)T),
                   BULK_SDS * sqrt(log1p(expm1(mu * mu) / (double)m))};
  if (!(b.W > b.eta))
    b.W = b.eta;
  return b;
}

/* The default final bin ratio.  A rebinning of a law of m terms with
 * ratio eta_m adds a spread of variance ~ (m/T)^2 eta_m^2 per copy, and the
 * final S holds T/m copies of it: (m/T) eta_m^2 in all.  With eta_m =
 * eta sqrt(T/m) (level_eta) every level adds ~ eta^2, log2 T levels in
 * all, against the variance (e^{mu^2} - 1)/T of S itself: holding the
 * ratio fixed gives eta = KAPPA sqrt((e^{mu^2} - 1) / (T log2 T)).  KAPPA
 * = 0.05 leaves the bracket's own gap at 0.03-0.1% of epsilon(1e-5) over
 * T = 10..2000, sigma = 0.5..5 (the accountant's default target is 0.2%);
 * the former uniform 0.003 min(mu, 1) stays the coarsest ratio used. */
static double default_eta(double mu, uint64_t T)
{
  double lt = log2((double)T);
  double e = KAPPA * sqrt(expm1(mu * mu) / ((double)T * (lt > 1.0 ? lt : 1.0)));
  double cap = ETA_CAP * fmin(mu, 1.0);
  return e < cap ? e : cap;
}

static int law_of_mean(double mu, uint64_t T, double eta, int upper,
                       double lv, struct law *out)
{
  struct law base = {0}, acc = {0}, tmp = {0};
  struct bins b1 = level_bins(eta, mu, T, 1);
  int st = law_base(mu, T, b1.eta, upper, Z_CUT, lv, &base);
  if (!st)
    law_trim(&base, upper, TRIM_CHUNK);
  int have = 0;
  uint64_t mb = 1, ma = 0; /* terms in base and acc */
  struct bins bs;
  for (uint64_t t = T; !st && t; t >>= 1) {
    if (t & 1) {
      if (!have) {
        st = law_copy(&base, &acc);
        have = 1;
        ma = mb;
      } else if ((bs = level_bins(eta, mu, T, ma + mb)),
                 !(st = law_sum(&acc, &base, &bs, upper, &tmp))) {
        law_free(&acc);
        acc = tmp;
        memset(&tmp, 0, sizeof tmp);
        law_trim(&acc, upper, TRIM_CHUNK);
        ma += mb;
      }
    }
    if (!st && t > 1 && (bs = level_bins(eta, mu, T, 2 * mb),
                         !(st = law_sum(&base, &base, &bs, upper, &tmp)))) {
      law_free(&base);
      base = tmp;
      memset(&tmp, 0, sizeof tmp);
      law_trim(&base, upper, TRIM_CHUNK);
      mb *= 2;
    }
  }
  law_free(&base);
  law_free(&tmp);
  if (st) {
    law_free(&acc);
    return st;
  }
  if (!upper)
    acc.l1 = acc.qp = 0.0; /* L's end cells are conditional expectations */
  *out = acc;
  return PLD_SUCCESS;
}

/* ------------------------------------------------------------------------ */
/* Two-of-m allocation (docs/allocation.md "Blocks of two").  Its likelihood ratio is S = e_2(X_1, ..., X_m) / C(m, 2), e_2 the
 * second elementary symmetric polynomial.  After i terms the state (a, b) =
 * (e_1, e_2)(X_1..X_i) determines S through S C(m,2) = b + a R_1 + R_2,
 * (R_1, R_2) = (e_1, e_2) of the remaining terms, independent of the state:
 * S is affine in the state.  So a mean-preserving spread of the state (its
 * mass split onto the four corners of its cell with bilinear weights, which
 * keeps the mean of both coordinates) is a mean-preserving spread of S
 * given everything else, and S <=cx S_U.  Likewise X_i -> its U law, since
 * e_2 is affine in each X_i.  Only U is formed: a block of two is used for
 * k > 1, whose lower end is not the blocks'.
 *
 * All values sit on one geometric lattice x_j = X0 e^{eta j} (X's cell edges;
 * its two end atoms are spread onto their neighbouring lattice points), a_p =
 * X0 e^{eta p}, b_q = X0^2 e^{eta q}.  A sum of two lattice points e^{eta u} +
 * e^{eta (u + d)} lies in the cell u + off[d] at the fraction fr[d], a table
 * over d: a + x is (p, j - p), b + a x is (q, p + j - q), and S is b's
 * lattice divided by C(m, 2). */

#define TWO_MAX_M 20           /* largest block of two (cost, see below) */
#define TWO_MAX_MU 4.0         /* and mu = c / sigma at most this (cost) */
#define TWO_MAX_ATOMS 1500.0   /* lattice points of X at most */
#define TWO_ETA 0.05           /* lattice ratio over mu */
#define TWO_MAX_WORK 2.5e8     /* (cells x atoms) summed over the steps */
#define TWO_COARSE 8           /* coarse lattice of negligible cells */
#define TWO_NEGLIGIBLE 1e-33   /* mass (Q or P) a coarse cell may carry */
#define TWO_FINAL 64            /* the final law's lattice: eta / TWO_FINAL */
#define TWO_PROD_ETA 0.004     /* the groups' product law's ratio */
#define TWO_GROUP_ETA 4.0      /* the groups' laws: their default ratio times */

struct two_tab {
  long dmin, n;
  long *off;
  double *fr;
  /* off[d] = K d for every d >= dhi (far above: the larger term's cell),
   * off[d] = 0 for every d <= dlo (far below) */
  long dhi, dlo;
};

/* e^{eta u} + e^{eta (u + d)} on the lattice of ratio eta / K (u on the
 * coarse one): = e^{(eta/K) (K u + off)} (1 + fr (e^{eta/K} - 1)) */
static int two_tab_make(double eta, long K, long dmin, long dmax,
                        struct two_tab *t)
{
  t->dmin = dmin;
  t->n = dmax - dmin + 1;
  t->off = pld_malloc((size_t)t->n * sizeof(long));
  t->fr = pld_malloc((size_t)t->n * sizeof(double));
  if (!t->off || !t->fr)
    return PLD_ENOMEM;
  double ec = eta / (double)K, em = expm1(ec);
  for (long i = 0; i < t->n; i++) {
    double d = (double)(dmin + i);
    double s = d <= 0.0 ? log1p(exp(eta * d)) / ec
                        : (double)K * d + log1p(exp(-eta * d)) / ec;
    double o = floor(s), f;
    /* (1 + e^{eta d}) e^{-ec o} - 1, without cancellation */
    if (o == 0.0)
      f = exp(eta * d) / em;
    else
      f = (expm1(eta * d - ec * o) + exp(-ec * o)) / em;
    t->off[i] = (long)o;
    t->fr[i] = f < 0.0 ? 0.0 : f > 1.0 ? 1.0 : f;
  }
  long hi = t->n - 1, lo = 0;
  while (hi >= 1 && t->off[hi - 1] == K * (dmin + hi - 1))
    hi--;
  while (lo + 1 < t->n && t->off[lo + 1] == 0)
    lo++;
  t->dhi = dmin + hi;
  t->dlo = dmin + lo;
  return PLD_SUCCESS;
}

static void two_tab_free(struct two_tab *t)
{
  pld_free(t->off);
  pld_free(t->fr);
}

/* The lattice ratio and the size of X's lattice for mu (law_base's cells,
 * the end atoms one cell beyond).  The ratio grows with mu like the width
 * of log X, so the lattice has ~40 (ZMAX_EXTRA + 1 + mu) points for every
 * mu.  The spread costs about c eta^2 in epsilon, c growing with m, and
 * the work ~ m / eta^3: eta = 0.05 mu up to m = 12, then growing like
 * sqrt(m - 2) to hold the time (docs/allocation.md, "Blocks of two"). */
static double two_eta(double mu, uint64_t m, double *natoms)
{
  double range = 2.0 * (ZMAX_EXTRA + mu + 1.0) * mu;
  double eta = TWO_ETA * mu * (m > 12 ? sqrt((double)(m - 2) / 10.0) : 1.0);
  if (range / eta > TWO_MAX_ATOMS)
    eta = range / TWO_MAX_ATOMS;
  *natoms = range / eta;
  return eta;
}

/* Whether a two-of-m block is worth forming: m <= TWO_MAX_M, mu <=
 * TWO_MAX_MU (above, the groups' own laws grow to 10^4-10^5 atoms and the
 * product and decision cost seconds: mu = 10, 7 s; the epsilons there are
 * in the hundreds), and its work (steps x occupied cells x atoms; about
 * natoms^3 / 40 per step, measured) within TWO_MAX_WORK, under a second on
 * the 2-core machine. */
static int two_feasible(double mu, uint64_t m)
{
  if (m < 3 || m > TWO_MAX_M || !(mu >= MU_MIN && mu <= TWO_MAX_MU))
    return 0;
  double nx;
  two_eta(mu, m, &nx);
  return (double)(m - 2) * nx * nx * nx / 40.0 <= TWO_MAX_WORK;
}

/* Cells of the state (after i terms) whose mass matters to no curve are
 * spread onto the coarse lattice of every TWO_COARSE-th point (bilinear
 * weights: a mean-preserving spread, so U stays above the truth); the next
 * steps then visit few of them.  A cell's weight is its mass times the
 * larger of 1 and E[S | cell] = (b + a (m - i) + C(m - i, 2)) / C(m, 2),
 * so that neither the Q-mass nor the P-mass of what moves exceeds
 * TWO_NEGLIGIBLE; it moves by at most a factor e^{TWO_COARSE eta} in a and
 * b. */
static void two_coarsen(double *W, long na, long nb, const double *av,
                        const double *bv, uint64_t m, uint64_t i)
{
  double Cm = 0.5 * (double)m * (double)(m - 1), r = (double)(m - i);
  double Cr = 0.5 * r * (r - 1.0);
  const long K = TWO_COARSE;
  for (long p = 0; p + K < na; p++) {
    double a = av[p];
    long P0 = p - p % K;
    double a0 = av[P0], a1 = av[P0 + K];
    double fa = p == P0 ? 0.0 : (a - a0) / (a1 - a0);
    fa = fa < 0.0 ? 0.0 : fa > 1.0 ? 1.0 : fa;
    double *row = W + (size_t)p * (size_t)nb;
    for (long q = 0; q + K < nb; q++) {
      double w = row[q];
      if (!(w > 0.0) || (p == P0 && q % K == 0))
        continue;
      double b = bv[q];
      double es = (b + a * r + Cr) / Cm;
      if (!(w * (es > 1.0 ? es : 1.0) < TWO_NEGLIGIBLE))
        continue;
      long Q0 = q - q % K;
      double b0 = bv[Q0], b1 = bv[Q0 + K];
      double fb = q == Q0 ? 0.0 : (b - b0) / (b1 - b0);
      fb = fb < 0.0 ? 0.0 : fb > 1.0 ? 1.0 : fb;
      row[q] = 0.0;
      double *c0 = W + (size_t)P0 * (size_t)nb + (size_t)Q0;
      double *c1 = c0 + (size_t)K * (size_t)nb;
      c0[0] += w * (1.0 - fa) * (1.0 - fb);
      c0[K] += w * (1.0 - fa) * fb;
      c1[0] += w * fa * (1.0 - fb);
      c1[K] += w * fa * fb;
    }
  }
}

/* The U law of the two-of-m ratio S (3 <= m <= TWO_MAX_M; X's lattice is
 * a's, av). */
static int law_two_of(double mu, uint64_t m, struct law *out)
{
  double nxe, eta = two_eta(mu, m, &nxe);
  struct law X = {0};
  /* mu <= TWO_MAX_MU: no value limit binds, the cells are the lattice's */
  int st = law_base(mu, 1, eta, 1, ZMAX_EXTRA + mu, LV_MEAN, &X);
  if (st)
    return st;
  law_trim(&X, 1, 0.0);
  /* law_base's lattice: edges exp(mu (-zmax + j h) - mu^2/2) */
  double zmax = ZMAX_EXTRA + mu, h = eta / mu;
  double nc = ceil(2.0 * zmax / h);
  h = 2.0 * zmax / nc;
  eta = mu * h;
  double lx0 = -mu * zmax - 0.5 * mu * mu;
  long jlo = LONG_MAX, jhi = LONG_MIN;
  for (size_t i = 0; i < X.n; i++) {
    long j = (long)floor((log(X.v[i]) - lx0) / eta + 1e-6);
    jlo = j < jlo ? j : jlo;
    jhi = j + 1 > jhi ? j + 1 : jhi;
  }
  lx0 += eta * (double)jlo; /* lattice point 0 */
  long nx = jhi - jlo + 1;
  double C = 0.5 * (double)m * (double)(m - 1);
  /* room for the sums, and for the coarse cells (two_coarsen): each pass
   * moves a cell up by at most TWO_COARSE points in a and in b */
  long pad = (long)m * TWO_COARSE;
  long na = nx + (long)ceil(log((double)m) / eta) + 3 + pad;
  long nb = 2 * nx + (long)ceil(log(C) / eta) + 4 + pad;
  double *xw = pld_calloc((size_t)nx, sizeof(double));
  long *xj = pld_malloc((size_t)nx * sizeof(long));
  double *W = pld_calloc((size_t)na * (size_t)nb, sizeof(double));
  double *W2 = pld_calloc((size_t)na * (size_t)nb, sizeof(double));
  double *av = pld_malloc((size_t)(na + nb) * sizeof(double)), *bv = av + na;
  long *qlo = pld_malloc((2 * (size_t)na + (size_t)nb) * sizeof(long));
  long *qhi = qlo + na, *rq = qhi + na;
  double *rw = pld_malloc((size_t)nb * sizeof(double));
  double *S0 = pld_malloc(2 * ((size_t)nb + 1) * sizeof(double)), *S1 = S0 + nb + 1;
  long nf = TWO_FINAL * (nb + na + nx + 2) + 2;
  double *F = pld_calloc((size_t)nf, sizeof(double));
  struct two_tab tab = {0}, tabf = {0};
  if (!xw || !xj || !W || !W2 || !av || !qlo || !rw || !S0 || !F)
    st = PLD_ENOMEM;
  if (!st)
    st = two_tab_make(eta, 1, -(nb + na + nx), nb + na + nx, &tab);
  if (!st)
    st = two_tab_make(eta, TWO_FINAL, -(nb + na + nx), nb + na + nx, &tabf);
  if (st)
    goto done;
  for (long p = 0; p < na; p++)
    av[p] = exp(lx0 + eta * (double)p);
  for (long q = 0; q < nb; q++)
    bv[q] = exp(2.0 * lx0 + eta * (double)q);
  /* X onto the lattice: every atom split between its two lattice points
   * with its mean kept (on-lattice atoms keep all their mass) */
  for (size_t i = 0; i < X.n; i++) {
    double t = (log(X.v[i]) - lx0) / eta;
    long j = (long)floor(t + 1e-6);
    if (j < 0)
      j = 0;
    if (j > nx - 2)
      j = nx - 2;
    double f = (X.v[i] - av[j]) / (av[j + 1] - av[j]);
    f = f < 0.0 ? 0.0 : f > 1.0 ? 1.0 : f;
    xw[j] += X.w[i] * (1.0 - f);
    xw[j + 1] += X.w[i] * f;
  }
  /* negligible atoms (Q- and P-mass below TWO_NEGLIGIBLE) onto the coarse
   * lattice, as two_coarsen does with the state: a spread */
  for (long j = 0; j + TWO_COARSE < nx; j++) {
    long J0 = j - j % TWO_COARSE;
    double x = av[j];
    if (j == J0 || !(xw[j] > 0.0) || !(xw[j] * fmax(x, 1.0) < TWO_NEGLIGIBLE))
      continue;
    double f = (x - av[J0]) / (av[J0 + TWO_COARSE] - av[J0]);
    f = f < 0.0 ? 0.0 : f > 1.0 ? 1.0 : f;
    xw[J0] += xw[j] * (1.0 - f);
    xw[J0 + TWO_COARSE] += xw[j] * f;
    xw[j] = 0.0;
  }
  long nj = 0;
  for (long j = 0; j < nx; j++)
    if (xw[j] > 0.0)
      xj[nj++] = j;
  const long *off = tab.off - tab.dmin;
  const double *fr = tab.fr - tab.dmin;
  double em1 = expm1(eta);
  /* the same for the last step, onto the final lattice of ratio eta /
   * TWO_FINAL */
  const long *offf = tabf.off - tabf.dmin;
  const double *frf = tabf.fr - tabf.dmin;
  double em1f = expm1(eta / TWO_FINAL);
  /* two terms: a = x_i + x_j, b = x_i x_j exactly on the lattice (i + j) */
  for (long s = 0; s < nj; s++)
    for (long t = s; t < nj; t++) {
      long i = xj[s], j = xj[t];
      double w = xw[i] * xw[j] * (i == j ? 1.0 : 2.0);
      long d = j - i, p = i + off[d];
      double fa = fr[d], *r = W + (size_t)p * nb + (size_t)(i + j);
      r[0] += w * (1.0 - fa);
      r[nb] += w * fa;
    }
  for (uint64_t step = 3; step <= m; step++) {
    int last = step == m;
    two_coarsen(W, na, nb, av, bv, m, step - 1);
    /* the rows' occupied ranges */
    for (long p = 0; p < na; p++) {
      const double *r = W + (size_t)p * nb;
      long lo = 0, hi = nb - 1;
      while (lo < nb && !(r[lo] > 0.0))
        lo++;
      while (hi >= lo && !(r[hi] > 0.0))
        hi--;
      qlo[p] = lo;
      qhi[p] = hi;
    }
    if (!last)
      memset(W2, 0, (size_t)na * (size_t)nb * sizeof(double));
    /* p, then the atom, then q: for fixed (p, j) the target row and its
     * weight are fixed and b + a x grows with q, so the writes sweep two
     * rows (or F) forward */
    for (long p = 0; p < na && !st; p++) {
      if (qlo[p] > qhi[p])
        continue;
      /* the row's occupied cells, compacted (coarse cells leave gaps) */
      const double *row = W + (size_t)p * (size_t)nb;
      long nq = 0;
      for (long q = qlo[p]; q <= qhi[p]; q++)
        if (row[q] > 0.0) {
          rq[nq] = q;
          rw[nq++] = row[q];
        }
      long q0 = rq[0], qz = rq[nq - 1];
      /* b + a x against b: far above (d2 = p + j - q >= dhi) the sum sits
       * in cell p + j at fraction e^{-eta d2} / (e^eta - 1), whatever q is,
       * so that whole range is one deposit from prefix sums of w and w
       * e^{eta (q - q0)}; far below (d2 <= dlo) it stays in cell q at
       * fraction e^{eta d2} / (e^eta - 1) (no offset to look up).  Only the
       * band between needs the table; the sums are the same terms, summed
       * in another order. */
      int prefix = eta * (double)(qz - q0) < 600.0;
      if (prefix) {
        S0[0] = S1[0] = 0.0;
        for (long t = 0; t < nq; t++) {
          S0[t + 1] = S0[t] + rw[t];
          S1[t + 1] = S1[t] + rw[t] * exp(eta * (double)(rq[t] - q0));
        }
      }
      long thi = 0, tlo = 0;
      long DH = last ? tabf.dhi : tab.dhi, DL = last ? tabf.dlo : tab.dlo;
      double E = last ? em1f : em1;
      for (long s = 0; s < nj; s++) {
        long j = xj[s], base = p + j;
        double xwj = xw[j];
        if (last ? TWO_FINAL * qz + offf[base - qz] + 2 > nf
                 : qz + off[base - qz] + 2 > nb) {
          st = PLD_ERANGE; /* not reached: the lattice covers the sums */
          break;
        }
        if (prefix)
          while (thi < nq && rq[thi] <= base - DH)
            thi++;
        while (tlo < nq && rq[tlo] < base - DL)
          tlo++;
        if (tlo < thi)
          tlo = thi;
        double Wf = 0.0, Ff = 0.0; /* the far-above range's deposit */
        if (thi > 0) {
          Wf = S0[thi];
          Ff = fmin(S1[thi] * exp(eta * (double)(q0 - base)) / E, Wf);
        }
        if (last) { /* S C = b + a x on the final lattice */
          const long K = TWO_FINAL;
          if (thi > 0) {
            F[K * base] += xwj * (Wf - Ff);
            F[K * base + 1] += xwj * Ff;
          }
          for (long t = thi; t < tlo; t++) {
            long q = rq[t], d2 = base - q, q2 = K * q + offf[d2];
            double wx = rw[t] * xwj, f = frf[d2];
            F[q2] += wx * (1.0 - f);
            F[q2 + 1] += wx * f;
          }
          for (long t = tlo; t < nq; t++) {
            long q = rq[t];
            double wx = rw[t] * xwj, f = frf[base - q];
            F[K * q] += wx * (1.0 - f);
            F[K * q + 1] += wx * f;
          }
          continue;
        }
        long d1 = j - p, p2 = p + off[d1];
        if (p2 + 1 >= na) {
          st = PLD_ERANGE; /* not reached */
          break;
        }
        double fa = fr[d1], w0 = xwj * (1.0 - fa), w1 = xwj * fa;
        double *r0 = W2 + (size_t)p2 * (size_t)nb, *r1 = r0 + nb;
        if (thi > 0) {
          r0[base] += w0 * (Wf - Ff);
          r0[base + 1] += w0 * Ff;
          r1[base] += w1 * (Wf - Ff);
          r1[base + 1] += w1 * Ff;
        }
        for (long t = thi; t < tlo; t++) {
          long q = rq[t], d2 = base - q, q2 = q + off[d2];
          double fb = fr[d2], u0 = rw[t] * w0, u1 = rw[t] * w1;
          r0[q2] += u0 * (1.0 - fb);
          r0[q2 + 1] += u0 * fb;
          r1[q2] += u1 * (1.0 - fb);
          r1[q2 + 1] += u1 * fb;
        }
        for (long t = tlo; t < nq; t++) {
          long q = rq[t];
          double fb = fr[base - q], u0 = rw[t] * w0, u1 = rw[t] * w1;
          r0[q] += u0 * (1.0 - fb);
          r0[q + 1] += u0 * fb;
          r1[q] += u1 * (1.0 - fb);
          r1[q + 1] += u1 * fb;
        }
      }
    }
    if (!last) {
      double *tmp = W;
      W = W2;
      W2 = tmp;
    }
  }
  if (st)
    goto done;
  long cnt = 0;
  for (long i = 0; i < nf; i++)
    cnt += F[i] > 0.0;
  st = law_alloc(out, (size_t)cnt);
  if (st)
    goto done;
  cnt = 0;
  for (long i = 0; i < nf; i++)
    if (F[i] > 0.0) {
      out->v[cnt] = exp(2.0 * lx0 + eta / TWO_FINAL * (double)i) / C;
      out->w[cnt++] = F[i];
    }
  /* E|S' - S| over the terms' end cells: each term's shift times the mean
   * (m - 1) of the e_1 it multiplies, m terms, over C(m, 2) */
  out->l1 = 2.0 * X.l1;
  out->qp = (double)m * X.qp; /* some one of the m terms in an end cell */
  law_trim(out, 1, TRIM_CHUNK);
done:
  two_tab_free(&tab);
  two_tab_free(&tabf);
  pld_free(xw);
  pld_free(xj);
  pld_free(W);
  pld_free(W2);
  pld_free(av);
  pld_free(qlo);
  pld_free(rw);
  pld_free(S0);
  pld_free(F);
  law_free(&X);
  return st;
}

/* The meet of two upper laws A, B of the same S (each >=_cx S): the law
 * whose call transform C(t) = E (S - t)_+ is the lower convex envelope of
 * min(C_A, C_B).  C_S <= both and is convex, so C_S <= that envelope: the
 * meet is again >=_cx S (and <=_cx both), a dominating pair tighter than
 * each in both directions (with equal means the put transform E (t - S)_+
 * = C(t) - E S + t is ordered alike).  The envelope of the union of two
 * epigraphs is the lower hull of the two sets of vertices, the kinks of C
 * at the atoms; its atoms are the hull's vertices with the slope changes as
 * masses.  Tiny values are kept exact by testing turns on the put
 * transform P where t <= 1 and on C above (a turn is unchanged by
 * subtracting the affine C - P), each computed as a sum of non-negative
 * terms.  The L1 slack: C_S <= min(C_A + l1_A, C_B + l1_B), so the
 * envelope plus max(l1) bounds it. */
static int law_meet(const struct law *A, const struct law *B, struct law *out)
{
  size_t n = A->n + B->n + 1;
  double *x = pld_malloc(3 * n * sizeof(double)), *c = x + n, *pp = c + n;
  size_t *h = pld_malloc(n * sizeof(size_t));
  const struct law *L[2] = {A, B};
  double *T[2] = {NULL, NULL}; /* each law's C at its atoms, then its P */
  int st = x && h ? PLD_SUCCESS : PLD_ENOMEM;
  for (int f = 0; f < 2 && !st; f++) {
    const struct law *a = L[f];
    double *C = T[f] = pld_malloc(2 * (a->n ? a->n : 1) * sizeof(double));
    if (!C) {
      st = PLD_ENOMEM;
      break;
    }
    double *P = C + a->n, W = 0.0;
    C[a->n - 1] = 0.0;
    for (size_t j = a->n - 1; j-- > 0;) {
      W += a->w[j + 1];
      C[j] = C[j + 1] + (a->v[j + 1] - a->v[j]) * W;
    }
    W = 0.0;
    P[0] = 0.0;
    for (size_t j = 1; j < a->n; j++) {
      W += a->w[j - 1];
      P[j] = P[j - 1] + (a->v[j] - a->v[j - 1]) * W;
    }
  }
  if (!st)
    st = law_alloc(out, n);
  if (st) {
    pld_free(x);
    pld_free(h);
    pld_free(T[0]);
    pld_free(T[1]);
    return st;
  }
  /* the origin, then the two laws' atoms merged by value; of two points at
   * one value the lower (P where t <= 1, C above) */
  size_t k = 1, i0 = 0, i1 = 0;
  x[0] = 0.0;
  pp[0] = 0.0;
  c[0] = 1.0;
  while (i0 < A->n || i1 < B->n) {
    int f = i1 >= B->n || (i0 < A->n && A->v[i0] <= B->v[i1]) ? 0 : 1;
    size_t i = f ? i1++ : i0++;
    double xv = L[f]->v[i], cv = T[f][i], pv = T[f][L[f]->n + i];
    if (k > 1 && xv == x[k - 1]) {
      if (xv <= 1.0 ? pv < pp[k - 1] : cv < c[k - 1]) {
        c[k - 1] = cv;
        pp[k - 1] = pv;
      }
      continue;
    }
    x[k] = xv;
    c[k] = cv;
    pp[k] = pv;
    k++;
  }
  pld_free(T[0]);
  pld_free(T[1]);
  /* lower hull (monotone chain); turns on P below t = 1, on C above */
  size_t m = 0;
  for (size_t t = 0; t < k; t++) {
    while (m >= 2) {
      size_t a = h[m - 2], b = h[m - 1];
      const double *y = x[b] <= 1.0 ? pp : c;
      double cr = (x[b] - x[a]) * (y[t] - y[a]) - (y[b] - y[a]) * (x[t] - x[a]);
      if (cr <= 0.0)
        m--;
      else
        break;
    }
    h[m++] = t;
  }
  /* atoms at the vertices, masses the slope changes: slopes of P on
   * segments ending at t <= 1, of C on the others (C's slope is P's minus
   * the mass, 1: converted only where the two kinds meet, near t = 1, so
   * that the tails' tiny masses are differences of tiny slopes) */
  size_t na = 0;
  double prev = 0.0; /* P's slope left of the origin */
  int prev_c = 0;
  for (size_t t = 1; t <= m; t++) {
    double sl;
    int is_c;
    if (t == m) {
      sl = 0.0; /* C's slope beyond the last atom */
      is_c = 1;
    } else {
      size_t a = h[t - 1], b = h[t];
      is_c = x[b] > 1.0;
      sl = is_c ? (c[b] - c[a]) / (x[b] - x[a]) : (pp[b] - pp[a]) / (x[b] - x[a]);
    }
    double d = is_c == prev_c ? sl - prev : sl + 1.0 - prev;
    if (t > 1 && d > 0.0) {
      out->v[na] = x[h[t - 1]];
      out->w[na++] = d;
    }
    prev = sl;
    prev_c = is_c;
  }
  out->n = na;
  out->l1 = A->l1 > B->l1 ? A->l1 : B->l1;
  /* the add direction's slack is t qp in the stop-loss transform at t =
   * e^-eps (linear in t), so the envelope argument above carries it too */
  out->qp = A->qp > B->qp ? A->qp : B->qp;
  pld_free(x);
  pld_free(h);
  return PLD_SUCCESS;
}

/* ------------------------------------------------------------------------ */
/* The mechanisms: each law as a finite pair (q_j = mass, p_j = s_j q_j). */

/* An upper law stands for the exact-rule law up to its end cells'
 * booking (law_base): the true remove-direction curve is at most U's plus
 * l1 at every eps, the add direction's at most U's plus qp.  Both are
 * booked in the pair itself, so that every consumer (grid builds, the
 * grid-free single runs, the curve, the pure epsilon) sees them: an atom of
 * P-mass l1 and no Q-mass (loss +inf in P vs Q) and one of Q-mass qp and
 * no P-mass (+inf in Q vs P).  The P-mass l1 is taken from the atoms with
 * S <= 1 (loss <= 0), in proportion: at eps >= 0 they add nothing to the
 * remove curve, and less P-mass only raises the add curve; the Q-mass qp
 * likewise from the atoms with S >= 1.  So each curve is U's plus its
 * booking (plus something >= 0), exactly, and the pair stays normalised.
 * Argued away against the builder's tail mass instead (which tilted and
 * grid-free queries do not add), the booking would break answers far in
 * the tail (docs/allocation.md "Tiny delta"): one-of-100 at sigma =
 * 1 claimed epsilon <= 18.53 at delta = 1e-300 (the RDP proves 32.94; the
 * participating step alone needs ~33), T = 3 at sigma = 0.1 claimed 264.3
 * at delta = 1e-120 against the proven lower bound 281.3 (epsilon_G(mu,
 * T delta) - log T), and the pair's bounded support gave delta(500) = 0,
 * a pure-DP claim. */
static int finite_of_law(const struct law *a, int upper, struct pld_mech **out)
{
  double apq = upper ? a->l1 : 0.0, aqp = upper ? a->qp : 0.0;
  size_t n = a->n, nx = (apq > 0.0) + (aqp > 0.0);
  double plow = 0.0, qhigh = 0.0;
  for (size_t i = 0; i < n; i++) {
    if (a->v[i] <= 1.0)
      plow += a->w[i] * a->v[i];
    if (a->v[i] >= 1.0)
      qhigh += a->w[i];
  }
  if (!(apq >= 0.0 && aqp >= 0.0 && apq <= 0.5 * plow && aqp <= 0.5 * qhigh))
    return PLD_ERANGE;
  double *buf = pld_malloc(3 * (n + nx) * sizeof(double));
  struct pld_mech *m = pld_mech_new(&pld_mech_type_finite);
  if (!buf || !m) {
    pld_free(buf);
    pld_mech_free(m);
    return PLD_ENOMEM;
  }
  double *lp = buf, *lq = buf + n + nx, *lpq = buf + 2 * (n + nx);
  double sp = apq > 0.0 ? log1p(-apq / plow) : 0.0;
  double sq = aqp > 0.0 ? log1p(-aqp / qhigh) : 0.0;
  for (size_t i = 0; i < n; i++) {
    double lw = log(a->w[i]), lv = log(a->v[i]);
    double dp = a->v[i] <= 1.0 ? sp : 0.0, dq = a->v[i] >= 1.0 ? sq : 0.0;
    lq[i] = lw + dq;
    lpq[i] = lv + (dp - dq);
    lp[i] = lw + lv + dp;
  }
  size_t k = n;
  if (apq > 0.0) { /* P only: loss +inf in P vs Q */
    lp[k] = log(apq);
    lq[k] = -INFINITY;
    lpq[k++] = INFINITY;
  }
  if (aqp > 0.0) { /* Q only: loss +inf in Q vs P */
    lp[k] = -INFINITY;
    lq[k] = log(aqp);
    lpq[k++] = -INFINITY;
  }
  m->label = 300;
  int st = pld_mech_finite_init(m, k, lp, lq, lpq);
  pld_free(buf);
  if (st) {
    pld_mech_free(m);
    return st;
  }
  *out = m;
  return PLD_SUCCESS;
}

int pld_mech_random_allocation(uint64_t T, double sigma, double c,
                               pld_mech **out)
{
  if (!out)
    return PLD_EINVAL;
  if (T == 1)
    return pld_mech_gaussian(sigma, c, out);
  pld_mech *u = NULL, *l = NULL;
  int st = pld_mech_random_allocation_bounds(T, sigma, c, 0.0, &u, &l);
  if (!st)
    st = pld_mech_bracket(u, l, out);
  /* the laws' arithmetic (non-negative sums and products, spreads with
   * weights clamped to [0, 1], range sums of one tail) moves the pairs'
   * curves by far less than 1e-9 relative: booked */
  if (!st)
    (*out)->curve.rel_err = fmax((*out)->curve.rel_err, 1e-9);
  pld_mech_free(u);
  pld_mech_free(l);
  return st;
}

int pld_allocation_groups(uint64_t T, uint64_t k, uint64_t n[2],
                          uint64_t mult[2])
{
  if (!n || !mult || k < 1 || T < k || T > PLD_ALLOCATION_MAX_T)
    return PLD_EINVAL;
  uint64_t r = T % k;
  n[0] = T / k;
  mult[0] = k - r;
  n[1] = n[0] + 1;
  mult[1] = r;
  return PLD_SUCCESS;
}

static int law_prod(const struct law *A, const struct law *B, double eta,
                    int upper, struct law *out);

/* Stop-loss transforms of a law at any u, each a sum of non-negative terms
 * (no cancellation in either tail): call E (S - u)_+ and put E (u - S)_+. */
struct stoploss {
  const struct law *a;
  double *C, *P, *Wa, *Wb; /* at the atoms; mass above / at-or-below */
};

static void stoploss_free(struct stoploss *t) { pld_free(t->C); }

static int stoploss_make(const struct law *a, struct stoploss *t)
{
  size_t n = a->n;
  t->a = a;
  t->C = pld_malloc(4 * (n ? n : 1) * sizeof(double));
  if (!t->C)
    return PLD_ENOMEM;
  t->P = t->C + n;
  t->Wa = t->P + n;
  t->Wb = t->Wa + n;
  double W = 0.0;
  t->C[n - 1] = 0.0;
  t->Wa[n - 1] = 0.0;
  for (size_t j = n - 1; j-- > 0;) {
    W += a->w[j + 1];
    t->Wa[j] = W;
    t->C[j] = t->C[j + 1] + (a->v[j + 1] - a->v[j]) * W;
  }
  W = a->w[0];
  t->P[0] = 0.0;
  t->Wb[0] = W;
  for (size_t j = 1; j < n; j++) {
    t->P[j] = t->P[j - 1] + (a->v[j] - a->v[j - 1]) * W;
    W += a->w[j];
    t->Wb[j] = W;
  }
  return PLD_SUCCESS;
}

static void stoploss_at(const struct stoploss *t, double u, double *call,
                        double *put)
{
  const double *v = t->a->v;
  size_t n = t->a->n, lo = 0, hi = n;
  while (lo < hi) { /* first atom > u */
    size_t md = lo + (hi - lo) / 2;
    if (v[md] <= u)
      lo = md + 1;
    else
      hi = md;
  }
  if (lo == 0) {
    *call = t->C[0] + (v[0] - u) * (t->Wa[0] + t->a->w[0]);
    *put = 0.0;
  } else if (lo == n) {
    *call = 0.0;
    *put = t->P[n - 1] + (u - v[n - 1]) * t->Wb[n - 1];
  } else {
    *call = t->C[lo] + (v[lo] - u) * t->Wa[lo - 1];
    *put = t->P[lo - 1] + (u - v[lo - 1]) * t->Wb[lo - 1];
  }
}

/* delta of the pair of one law at eps, both directions: E (S - e^eps)_+
 * and E (1 - e^eps S)_+ */
static void law_deltas(const struct stoploss *t, double eps, double d[2])
{
  double c, p;
  stoploss_at(t, exp(eps), &c, &p);
  d[0] = c;
  stoploss_at(t, exp(-eps), &c, &p);
  d[1] = exp(eps) * p;
}

/* delta of the composition of two laws' pairs (likelihood ratio S1 S2) */
static void prod_deltas(const struct law *A, const struct stoploss *tb,
                        double eps, double d[2])
{
  double e = exp(eps), ie = exp(-eps), sp = 0.0, sq = 0.0;
  for (size_t i = 0; i < A->n; i++) {
    double s = A->v[i], c, p, c2, p2;
    stoploss_at(tb, e / s, &c, &p2);
    stoploss_at(tb, ie / s, &c2, &p);
    sp += A->w[i] * s * c;
    sq += A->w[i] * s * p;
  }
  d[0] = sp;
  d[1] = e * sq;
}

/* The two-of-(n1 + n2) block's law: the meet (law_meet) of its own U law
 * (law_two_of) and the product of its two groups' U laws (coarse ones, on
 * a lattice of ratio TWO_PROD_ETA), which dominate it -- never looser than
 * either in either direction: the block's own law wins where its
 * structure matters (the upper tail, larger mu), the groups' finer
 * lattice where it does not (the lower tail, small mu).  *use says
 * whether the block is at least as tight as its two groups composed as
 * the accountant would (their default laws): the larger of the two
 * directions' delta not above theirs at 101 eps evenly spaced between
 * their eps at delta 1e-3 and at 1e-12.  Otherwise the block is not used (its coarser
 * lattices cost more than its structure gains; out is left empty). */
/* The groups' default upper laws (one-of-n, n = floor(T/k) and that + 1),
 * each built once per add: every pair kind's decision reads them, and the
 * groups that stay groups are made from them. */
struct group_laws {
  double mu;
  uint64_t n[2];
  struct law F[2];
};

static void group_laws_free(struct group_laws *g)
{
  law_free(&g->F[0]);
  law_free(&g->F[1]);
}

static int group_law(struct group_laws *g, uint64_t n, const struct law **out)
{
  int i = g->n[0] == n ? 0 : 1;
  if (g->n[i] != n)
    return PLD_EINVAL; /* not one of the reduction's sizes: not reached */
  if (!g->F[i].n) {
    int st = law_of_mean(g->mu, n, default_eta(g->mu, n), 1, LV_MEAN, &g->F[i]);
    if (st)
      return st;
  }
  *out = &g->F[i];
  return PLD_SUCCESS;
}

/* two_block_law's independent parts, run on the two cores (pld_run2):
 * the block's own 2-D law, and the groups' default laws (which only this
 * side fills in gl) with the product of their coarse laws. */
struct tb_own {
  double mu;
  uint64_t n1, n2;
  struct law U;
};

static int tb_own_run(void *arg)
{
  struct tb_own *a = arg;
  return law_two_of(a->mu, a->n1 + a->n2, &a->U);
}

struct tb_groups {
  double mu;
  uint64_t n1, n2;
  struct group_laws *gl;
  struct law G;
};

static int tb_groups_run(void *arg)
{
  struct tb_groups *b = arg;
  struct law G1 = {0}, G2 = {0};
  const struct law *F;
  int st = group_law(b->gl, b->n1, &F);
  if (!st)
    st = group_law(b->gl, b->n2, &F);
  if (!st)
    st = law_of_mean(b->mu, b->n1, TWO_GROUP_ETA * default_eta(b->mu, b->n1),
                       1, LV_PROD, &G1);
  if (!st && b->n2 != b->n1)
    st = law_of_mean(b->mu, b->n2,
                     TWO_GROUP_ETA * default_eta(b->mu, b->n2), 1, LV_PROD,
                     &G2);
  if (!st)
    st = law_prod(&G1, b->n2 != b->n1 ? &G2 : &G1, TWO_PROD_ETA, 1, &b->G);
  if (!st)
    law_trim(&b->G, 1, TRIM_CHUNK);
  law_free(&G1);
  law_free(&G2);
  return st;
}

/* The decision's sides: the groups' eps at delta = dl (bisection on the
 * larger direction's delta of F1 x F2, non-increasing in eps), or whether
 * the meet's delta is at most the groups' at the points [i0, i1) of 101
 * evenly spaced between the two ends. */
struct tb_decide {
  const struct law *F1;
  const struct stoploss *tf, *tm;
  double dl, end;
  const double *ends;
  int i0, i1, ok;
};

static int tb_end_run(void *arg)
{
  struct tb_decide *c = arg;
  double lo = 0.0, hi = 1.0, dg[2];
  for (int it = 0; it < 60; it++) { /* an upper end */
    prod_deltas(c->F1, c->tf, hi, dg);
    if (fmax(dg[0], dg[1]) <= c->dl)
      break;
    lo = hi;
    hi *= 2.0;
  }
  for (int it = 0; it < 40; it++) {
    double md = 0.5 * (lo + hi);
    prod_deltas(c->F1, c->tf, md, dg);
    if (fmax(dg[0], dg[1]) > c->dl)
      lo = md;
    else
      hi = md;
  }
  c->end = lo;
  return PLD_SUCCESS;
}

static int tb_points_run(void *arg)
{
  struct tb_decide *c = arg;
  c->ok = 1;
  for (int i = c->i0; i < c->i1 && c->ok; i++) {
    double eps = c->ends[0] + (c->ends[1] - c->ends[0]) * (double)i / 100.0;
    double dm[2], dg[2];
    prod_deltas(c->F1, c->tf, eps, dg);
    law_deltas(c->tm, eps, dm);
    c->ok = fmax(dm[0], dm[1]) <= fmax(dg[0], dg[1]);
  }
  return PLD_SUCCESS;
}

static int two_block_law(double mu, uint64_t n1, uint64_t n2,
                         struct group_laws *gl, struct law *out, int *use)
{
  struct law M = {0};
  const struct law *F1 = NULL, *F2 = NULL;
  struct stoploss tm = {0}, tf = {0};
  *use = 0;
  struct tb_own a = {mu, n1, n2, {0}};
  struct tb_groups b = {mu, n1, n2, gl, {0}};
  int st = pld_run2(tb_own_run, &a, tb_groups_run, &b);
  if (!st)
    st = law_meet(&a.U, &b.G, &M);
  law_free(&a.U);
  law_free(&b.G);
  /* the groups as the accountant composes them (built above) */
  if (!st)
    st = group_law(gl, n1, &F1);
  if (!st)
    st = group_law(gl, n2, &F2);
  if (!st)
    st = stoploss_make(&M, &tm);
  if (!st)
    st = stoploss_make(F2, &tf);
  if (!st) {
    /* the groups' eps at delta 1e-3 and 1e-12, then 101 points between */
    double ends[2];
    struct tb_decide e0 = {F1, &tf, &tm, 1e-3, 0.0, ends, 0, 0, 1};
    struct tb_decide e1 = {F1, &tf, &tm, 1e-12, 0.0, ends, 0, 0, 1};
    st = pld_run2(tb_end_run, &e0, tb_end_run, &e1);
    ends[0] = e0.end;
    ends[1] = e1.end;
    struct tb_decide p0 = {F1, &tf, &tm, 0.0, 0.0, ends, 0, 51, 1};
    struct tb_decide p1 = {F1, &tf, &tm, 0.0, 0.0, ends, 51, 101, 1};
    if (!st)
      st = pld_run2(tb_points_run, &p0, tb_points_run, &p1);
    *use = !st && p0.ok && p1.ok;
  }
  stoploss_free(&tm);
  stoploss_free(&tf);
  /* a lattice that does not fit (PLD_ERANGE: e.g. mu = 10, whose extreme
   * products underflow) only means no block: the groups answer */
  if (st == PLD_ERANGE) {
    st = PLD_SUCCESS;
    *use = 0;
  }
  if (!st && *use)
    *out = M;
  else
    law_free(&M);
  return st;
}

/* split_blocks' sides: one pair kind's block (two_block_law), and one
 * group size's default law (group_law), built before the kinds run at
 * once so that they only read the cache. */
struct tb_kind {
  double mu;
  uint64_t n1, n2;
  struct group_laws *gl;
  struct law M;
  int use;
};

static int tb_kind_run(void *arg)
{
  struct tb_kind *k = arg;
  return two_block_law(k->mu, k->n1, k->n2, k->gl, &k->M, &k->use);
}

struct tb_group_law {
  struct group_laws *gl;
  uint64_t n;
};

static int tb_group_law_run(void *arg)
{
  struct tb_group_law *g = arg;
  const struct law *F;
  return group_law(g->gl, g->n, &F);
}

/* The mechanism of a block of the split: one of m steps (j = 1: from its
 * default upper law M when one is given, else pld_mech_random_allocation's
 * bracket) or two of m (j = 2, its law M from two_block_law), the upper
 * member the block's, the lower member `low` (the summed-output Gaussian's
 * share, NULL: none). */
static int block_mech(uint64_t j, uint64_t m, double sigma, double c,
                      const struct law *M, const pld_mech *low, pld_mech **out)
{
  pld_mech *u = NULL, *b = NULL;
  int st = j == 1 && !M->n ? pld_mech_random_allocation(m, sigma, c, &u)
                           : finite_of_law(M, 1, &u);
  if (!st && low)
    st = pld_mech_bracket(u, low, &b);
  /* the laws' arithmetic, as pld_mech_random_allocation */
  if (!st && M->n)
    (b ? b : u)->curve.rel_err = fmax((b ? b : u)->curve.rel_err, 1e-9);
  if (st) {
    pld_mech_free(u);
    pld_mech_free(b);
    return st;
  }
  if (b) {
    pld_mech_free(u);
    u = b;
  }
  *out = u;
  return PLD_SUCCESS;
}

/* The lower member of a block of `units` groups for 1 < k < T: the sum of
 * the run's T outputs, N(k c, T sigma^2) against N(0, T sigma^2), is a
 * post-processing of the true pair, i.e. it is dominated by it: the
 * Gaussian with mu^2 = k^2 (c/sigma)^2 / T, shared as mu_g^2 = (k/T)
 * (c/sigma)^2 per group (sigma_g rounded up: never above that mu). */
static int share_gaussian(uint64_t T, uint64_t k, uint64_t units,
                          double sigma, double c, pld_mech **out)
{
  double sg = sigma * sqrt((double)T / ((double)k * (double)units));
  sg = nextafter(nextafter(sg * (1.0 + 4.0 * DBL_EPSILON), INFINITY),
                 INFINITY);
  return pld_mech_gaussian(sg, c, out);
}

/* The rest of the run's lower pair for 1 < k < T (docs/allocation.md,
 * "k > 1: the lower end").  Project the run's T outputs onto the unit
 * vectors u = 1/sqrt(T) and v = (1_A - (a/T) 1)/sqrt(a (1 - a/T)) for a
 * fixed set A of a steps: a post-processing, so the projected pair is
 * dominated by the true one.  u and v are orthogonal, and every k-subset S
 * gives the same mean k c/sqrt(T) along u, so the projected pair is the
 * summed-output Gaussian (the blocks' shares) times the pair of mixtures
 * P = sum_r W_r N(m_r, 1) against Q = N(0, 1) in y = <x, v>/sigma, m_r =
 * (c/sigma) (r - k a/T)/sqrt(a (1 - a/T)), r = |S n A| hypergeometric: W_r
 * = C(a, r) C(T - a, k - r) / C(T, k).  A = one k-subset (a = min(k, T -
 * k): A and its complement give the same pair) makes the subset visible
 * when c/sigma is large (T = 3, k = 2, sigma = 0.2: lower end 40.5 ->
 * 51.5, upper 53.7); at most 62 steps.
 *
 * y is then binned (a post-processing again): cells of width h with
 * h max|m_r| <= blur (the loss moves by at most that inside a cell;
 * 0.005 for the accountant's pair, 0.02 for the Renyi lower curve, which
 * only decides whether a second opinion can win) on
 * [-L, L], L = min(12 + max|m_r|, 37), and the two half-lines beyond: a finite
 * pair, whose PLD is cheap on any grid (the mixture pair itself costs a
 * root isolation per grid point: 3x the whole query at T = 10, k = 4, eps
 * = 10).  The cell masses are differences of erfc on the cell's side of
 * each mean (as phi_diff; relative error ~1e-14); P is then mixed with 1e-9 of Q (a
 * post-processing too: replace the output by a fresh draw from Q), which
 * lowers delta by 1e-9 relative and covers them. */
static int subset_binned(uint64_t T, uint64_t k, double sigma, double c,
                         double blur, double **pp, double **qq, size_t *np)
{
  uint64_t a = k < T - k ? k : T - k;
  if (a > 62)
    a = 62;
  uint64_t r0 = k + a > T ? k + a - T : 0, r1 = a < k ? a : k;
  size_t nr = (size_t)(r1 - r0 + 1);
  double lw[64], w[64], m[64], top = 0.0, mmax = 0.0;
  /* log C(a, r) C(T - a, k - r) up to a constant, by the ratio of
   * neighbours; normalised by their sum (Vandermonde: C(T, k)) */
  lw[0] = 0.0;
  for (size_t i = 1; i < nr; i++) {
    double r = (double)(r0 + i);
    lw[i] = lw[i - 1] + log(((double)a - r + 1.0) * ((double)k - r + 1.0)) -
            log(r * ((double)T - (double)a - (double)k + r));
    top = fmax(top, lw[i]);
  }
  double sum = 0.0, sd = sqrt((double)a * (1.0 - (double)a / (double)T));
  for (size_t i = 0; i < nr; i++)
    sum += (w[i] = exp(lw[i] - top));
  for (size_t i = 0; i < nr; i++) {
    w[i] /= sum;
    m[i] = (c / sigma) * ((double)(r0 + i) - (double)k * (double)a / (double)T) / sd;
    mmax = fmax(mmax, fabs(m[i]));
  }
  /* at most 2^16 cells (c/sigma up to MU_MAX would ask for millions):
   * coarser cells there only blur the loss more, still a post-processing */
  /* the Renyi curve's high orders weigh the far cells: all of [-37, 37] */
  double L = blur > 0.005 ? 37.0 : fmin(12.0 + mmax, 37.0);
  double h = fmin(0.02 * blur / 0.005, blur / fmax(mmax, 1e-9));
  size_t nc = (size_t)fmin(ceil(2.0 * L / h), 65536.0);
  h = 2.0 * L / (double)nc;
  size_t n = nc + 2; /* the cells, then (-inf, -L] and [L, inf) */
  double *p = pld_calloc(n, sizeof *p), *q = pld_malloc(n * sizeof *q);
  double *g = pld_malloc((nc + 1) * sizeof *g);
  int st = p && q && g ? PLD_SUCCESS : PLD_ENOMEM;
  const double mix = 1e-9; /* P's share of Q, below */
  /* per component (the last one Q: mean 0, weight 1): the tail beyond
   * each edge on its far side from the mean, G = Phi(-|e - m|), one erfc
   * per edge; a cell's mass is then phi_diff's difference of the two on
   * its side, or 1 - both when it holds the mean */
  for (size_t i = 0; i <= nr && !st; i++) {
    double mi = i < nr ? m[i] : 0.0, wi = i < nr ? w[i] : 1.0;
    double *dst = i < nr ? p : q;
    if (i < nr && !(wi > 0.0))
      continue;
    for (size_t j = 0; j <= nc; j++) {
      double e = j == nc ? L : -L + (double)j * h;
      g[j] = 0.5 * erfc(fabs(e - mi) / SQRT2);
    }
    for (size_t j = 0; j < nc; j++) {
      double u = -L + (double)j * h, v = j + 1 == nc ? L : -L + (double)(j + 1) * h;
      double cm = u >= mi ? g[j] - g[j + 1]
                  : v <= mi ? g[j + 1] - g[j] : 1.0 - g[j] - g[j + 1];
      cm = fmax(cm, 0.0); /* a rounding below 0 (ulps of a tail) */
      dst[j] = i < nr ? dst[j] + wi * cm : cm;
    }
    double lo = -L >= mi ? 1.0 - g[0] : g[0], hi = L >= mi ? g[nc] : 1.0 - g[nc];
    dst[nc] = i < nr ? dst[nc] + wi * lo : lo;
    dst[nc + 1] = i < nr ? dst[nc + 1] + wi * hi : hi;
  }
  for (size_t j = 0; j < n && !st; j++)
    p[j] = (1.0 - mix) * p[j] + mix * q[j];
  /* A cell whose P- or Q-mass underflowed to 0 would be an infinite loss
   * the true pair does not have (P's mass at y = 40 where Q's is 1e-350):
   * merge such cells into the next one that has both (merging cells is a
   * coarser binning, a post-processing still).  L <= 37 keeps Q's cells
   * above 1e-300, so this is rare. */
  size_t nk = 0;
  double ap = 0.0, aq = 0.0;
  for (size_t j = 0; j < n && !st; j++) {
    ap += p[j];
    aq += q[j];
    if (ap > 0.0 && aq > 0.0) {
      p[nk] = ap;
      q[nk] = aq;
      nk++;
      ap = aq = 0.0;
    }
  }
  if (!st && nk > 0) {
    p[nk - 1] += ap;
    q[nk - 1] += aq;
  }
  n = nk;
  pld_free(g);
  if (st) {
    pld_free(p);
    pld_free(q);
    return st;
  }
  *pp = p;
  *qq = q;
  *np = n;
  return PLD_SUCCESS;
}

static int subset_pair(uint64_t T, uint64_t k, double sigma, double c,
                       pld_mech **out)
{
  double *p = NULL, *q = NULL;
  size_t n = 0;
  pld_mech *fin = NULL, *null = NULL;
  double one = 1.0;
  int st = subset_binned(T, k, sigma, c, 0.005, &p, &q, &n);
  if (!st)
    st = pld_mech_finite(n, p, q, &fin);
  if (!st)
    st = pld_mech_finite(1, &one, &one, &null);
  if (!st)
    st = pld_mech_bracket(null, fin, out);
  pld_free(p);
  pld_free(q);
  pld_mech_free(fin);
  pld_mech_free(null);
  return st;
}

/* A Renyi curve below the k-out-of-T pair's (1 < k < T), at every order:
 * the projected pair above (the summed-output Gaussian, alpha mu_g^2 / 2
 * with mu_g^2 = k^2 (c/sigma)^2 / T, times the binned Gaussian mixture)
 * is a post-processing of the run, and D_alpha never grows under
 * post-processing, nor by the binning; D_alpha of a finite pair is
 * log(sum q_j (p_j/q_j)^alpha) / (alpha - 1).  Rounded down by twice a
 * bound on its rounding (below), which the division by alpha - 1 makes
 * largest near order 1; far below anything the second opinion's decision
 * notices. */
int pld_rdp_allocation_lower_curve(size_t n, const double *orders, uint64_t T,
                                   uint64_t k, double sigma, double c,
                                   double *eps)
{
  pld_detail_clear();
  if (!orders || !eps || n == 0)
    return pld_fail(PLD_EINVAL, "orders and eps must not be NULL, n >= 1");
  if (!(k > 1 && k < T) || T > PLD_ALLOCATION_MAX_T)
    return pld_fail(PLD_EINVAL,
                    "T = %llu, k = %llu: needs 1 < k < T <= %d",
                    (unsigned long long)T, (unsigned long long)k,
                    PLD_ALLOCATION_MAX_T);
  if (!isfinite(sigma) || !(sigma > 0.0) || !isfinite(c) || !(c > 0.0) ||
      !(c / sigma >= MU_MIN && c / sigma <= MU_MAX))
    return pld_fail(PLD_EINVAL,
                    "sigma = %g, c = %g: both finite > 0, c/sigma in "
                    "[%g, %g]", sigma, c, MU_MIN, MU_MAX);
  for (size_t i = 0; i < n; i++)
    if (!(orders[i] > 1.0) || !isfinite(orders[i]))
      return pld_fail(PLD_EINVAL, "orders[%zu] = %g must be finite and > 1",
                      i, orders[i]);
  double *p = NULL, *q = NULL;
  size_t m = 0;
  int st = subset_binned(T, k, sigma, c, 0.02, &p, &q, &m);
  if (st)
    return st;
  double mu = c / sigma;
  double g2 = (double)k * (double)k * mu * mu / (double)T * (1.0 - 8.0 * DBL_EPSILON);
  double *lp = pld_malloc(2 * m * sizeof *lp);
  if (!lp) {
    pld_free(p);
    pld_free(q);
    return PLD_ENOMEM;
  }
  double *lq = lp + m;
  for (size_t j = 0; j < m; j++) {
    lp[j] = p[j] > 0.0 ? log(p[j]) : -INFINITY;
    lq[j] = log(q[j]); /* every cell has Q-mass > 0 (subset_binned) */
  }
  for (size_t i = 0; i < n; i++) {
    double a = orders[i], top = -INFINITY, sum = 0.0;
    for (size_t j = 0; j < m; j++)
      if (lp[j] > -INFINITY)
        top = fmax(top, a * lp[j] - (a - 1.0) * lq[j]);
    for (size_t j = 0; j < m; j++)
      if (lp[j] > -INFINITY)
        sum += exp(a * lp[j] - (a - 1.0) * lq[j] - top);
    /* error in log(sum q (p/q)^a): each exponent's rounding (~4 u |top|
     * plus the masses' 1e-14 relative, a times), the naive sum's (m u),
     * the logs'; all divided by a - 1, which grows it near order 1 */
    double err = (4.0 * DBL_EPSILON * (fabs(top) + 1.0) + 4e-14 * a +
                  2.0 * (double)(m + 8) * DBL_EPSILON) /
                 (a - 1.0);
    double d = (top + log(sum)) / (a - 1.0);
    eps[i] = fmax(0.5 * a * g2 + fmax(d, 0.0) - 2.0 * err, 0.0);
  }
  pld_free(lp);
  pld_free(p);
  pld_free(q);
  return PLD_SUCCESS;
}

/* pld_allocation_split; laws (NULL: not wanted) gets the law of every
 * block of two, at its index (the caller frees them); gl (NULL: a cache of
 * its own, freed here) keeps the groups' laws for the caller. */
static int split_blocks(uint64_t T, uint64_t k, double sigma, double c,
                        pld_allocation_block *blocks, size_t *nblocks,
                        struct law *laws, struct group_laws *gl)
{
  uint64_t n[2], mult[2];
  if (!blocks || !nblocks || pld_allocation_groups(T, k, n, mult) ||
      !isfinite(sigma) || !(sigma > 0.0) || !isfinite(c) || !(c > 0.0))
    return PLD_EINVAL;
  double mu = c / sigma;
  struct group_laws own = {mu, {n[0], n[1]}, {{0}, {0}}};
  if (!gl)
    gl = &own;
  pld_allocation_block tmp[8]; /* before equal ones are merged */
  struct law tl[8];
  memset(tl, 0, sizeof tl);
  size_t nb = 0;
  int st = PLD_SUCCESS;
  if (k > 1 && k < T) {
    /* the groups of the reduction paired, a big (n + 1) with a small (n)
     * one first, so that the blocks of two are as balanced as the groups
     * allow (on T = 10, k = 4, sigma = 2: {5, 5} 2.70, {6, 4} 2.76); a
     * two-of-(n1 + n2) block is dominated by its one-of-n1 and one-of-n2
     * groups (the same random-partition argument).  A pair too costly to
     * form, or whose computed law is not tighter than its groups
     * (two_block_law), stays two groups. */
    uint64_t big = mult[1], small = mult[0];
    uint64_t mixed = big < small ? big : small;
    big -= mixed;
    small -= mixed;
    const uint64_t pair[3][3] = {{n[0], n[1], mixed},
                                 {n[1], n[1], big / 2},
                                 {n[0], n[0], small / 2}};
    /* the kinds' laws: two of them at once on the two cores when there
     * are two (T = 2000, k = 655: two-of-7 and two-of-6), the groups'
     * laws built first, which both read */
    struct tb_kind kd[3];
    size_t nk = 0, want[3];
    memset(kd, 0, sizeof kd);
    for (int i = 0; i < 3; i++)
      if (pair[i][2] && two_feasible(mu, pair[i][0] + pair[i][1])) {
        kd[nk] = (struct tb_kind){mu, pair[i][0], pair[i][1], gl, {0}, 0};
        want[nk++] = (size_t)i;
      }
    if (nk >= 2) {
      struct tb_group_law g0 = {gl, n[0]}, g1 = {gl, n[1]};
      st = n[1] != n[0] && mult[1] ? pld_run2(tb_group_law_run, &g1,
                                              tb_group_law_run, &g0)
                                   : tb_group_law_run(&g0);
    }
    for (size_t i = 0; i + 1 < nk && !st; i += 2)
      st = pld_run2(tb_kind_run, &kd[i], tb_kind_run, &kd[i + 1]);
    if (!st && nk % 2)
      st = tb_kind_run(&kd[nk - 1]);
    size_t kj = 0;
    for (int i = 0; i < 3 && !st; i++) {
      uint64_t m = pair[i][0] + pair[i][1], cnt = pair[i][2];
      if (!cnt)
        continue;
      int use = 0;
      if (kj < nk && want[kj] == (size_t)i) {
        use = kd[kj].use;
        if (use) {
          tl[nb] = kd[kj].M;
          memset(&kd[kj].M, 0, sizeof kd[kj].M);
        }
        kj++;
      }
      if (use) {
        tmp[nb++] = (pld_allocation_block){2, m, cnt};
      } else {
        tmp[nb++] = (pld_allocation_block){1, pair[i][0], cnt};
        tmp[nb++] = (pld_allocation_block){1, pair[i][1], cnt};
      }
    }
    for (size_t i = 0; i < nk; i++)
      law_free(&kd[i].M);
    if (big % 2)
      tmp[nb++] = (pld_allocation_block){1, n[1], 1};
    if (small % 2)
      tmp[nb++] = (pld_allocation_block){1, n[0], 1};
  } else {
    for (int i = 0; i < 2; i++)
      if (mult[i])
        tmp[nb++] = (pld_allocation_block){1, n[i], mult[i]};
  }
  group_laws_free(&own);
  if (st) {
    for (size_t i = 0; i < 8; i++)
      law_free(&tl[i]);
    return st;
  }
  /* equal blocks merged (at most five distinct: three of two, two of one;
   * blocks of two of one size come from one pair kind, never merged) */
  size_t w = 0;
  for (size_t i = 0; i < nb; i++) {
    size_t t = 0;
    while (t < w && !(blocks[t].j == tmp[i].j && blocks[t].m == tmp[i].m))
      t++;
    if (t < w) {
      blocks[t].count += tmp[i].count;
      continue;
    }
    if (laws)
      laws[w] = tl[i];
    else
      law_free(&tl[i]);
    memset(&tl[i], 0, sizeof tl[i]);
    blocks[w++] = tmp[i];
  }
  *nblocks = w;
  return PLD_SUCCESS;
}

int pld_allocation_split(uint64_t T, uint64_t k, double sigma, double c,
                         pld_allocation_block blocks[PLD_ALLOCATION_MAX_BLOCKS],
                         size_t *nblocks)
{
  return split_blocks(T, k, sigma, c, blocks, nblocks, NULL, NULL);
}

/* The pair P = Q: composes as nothing; the other member of a bracket
 * whose one end is supplied elsewhere. */
static int null_pair(pld_mech **out)
{
  double one = 1.0;
  return pld_mech_finite(1, &one, &one, out);
}

/* The split's events for `count` runs of k-out-of-T into scratch.  lower:
 * the run's lower pair as pld_accountant_add_allocation documents; !lower
 * (1 < k < T only): the upper members alone, every lower member the pair P
 * = Q, for a caller that supplies a lower pair of its own
 * (pld_accountant_add_model_splitting). */
static int add_split_events(pld_accountant *scratch, uint64_t T, uint64_t k,
                            double sigma, double c, uint64_t count, int lower)
{
  uint64_t n[2], mult[2];
  pld_allocation_block blk[PLD_ALLOCATION_MAX_BLOCKS];
  struct law laws[PLD_ALLOCATION_MAX_BLOCKS];
  size_t nblk = 0;
  if (pld_allocation_groups(T, k, n, mult) || (!lower && !(k > 1 && k < T)))
    return PLD_EINVAL;
  memset(laws, 0, sizeof laws);
  struct group_laws gl = {c / sigma, {n[0], n[1]}, {{0}, {0}}};
  int st = split_blocks(T, k, sigma, c, blk, &nblk, laws, &gl);
  /* For 1 < k < T the blocks only dominate the k-of-T mechanism: their
   * lower pairs are no lower pairs of it; every block gets its share of
   * the summed-output Gaussian (share_gaussian) as lower member, and
   * subset_pair completes the run's lower pair.  The upper end is the
   * split's.  (k = T: every step holds the record, T Gaussians
   * exactly; k = 1: the allocation's own bracket.) */
  pld_mech *low[2] = {NULL, NULL}, *mech[PLD_ALLOCATION_MAX_BLOCKS] = {NULL};
  pld_mech *null = NULL;
  if (!st && !lower)
    st = null_pair(&null);
  for (size_t i = 0; i < nblk && !st; i++) {
    const pld_mech *lw = NULL;
    if (k > 1 && k < T) {
      uint64_t j = blk[i].j;
      if (!lower)
        lw = null;
      else {
        if (!low[j - 1])
          st = share_gaussian(T, k, j, sigma, c, &low[j - 1]);
        lw = low[j - 1];
      }
    }
    const struct law *M = &laws[i];
    /* a group of 1 < k < T: only its upper law is used (its lower member
     * is the Gaussian share or P = Q); the decisions may have built it */
    if (!st && lw && blk[i].j == 1 && blk[i].m > 1)
      st = group_law(&gl, blk[i].m, &M);
    if (!st)
      st = block_mech(blk[i].j, blk[i].m, sigma, c, M, lw, &mech[i]);
  }
  pld_mech *sub = NULL;
  if (!st && lower && k > 1 && k < T)
    st = subset_pair(T, k, sigma, c, &sub);
  for (size_t i = 0; i < nblk && !st; i++)
    st = pld_accountant_add(scratch, mech[i], blk[i].count * count);
  if (!st && sub)
    st = pld_accountant_add(scratch, sub, count);
  pld_mech_free(sub);
  pld_mech_free(null);
  for (size_t i = 0; i < PLD_ALLOCATION_MAX_BLOCKS; i++) {
    law_free(&laws[i]);
    pld_mech_free(mech[i]);
  }
  group_laws_free(&gl);
  pld_mech_free(low[0]);
  pld_mech_free(low[1]);
  return st;
}

/* The allocation's domain, and a count whose blocks stay below 2^53. */
static int alloc_args_ok(uint64_t T, uint64_t k, double sigma, double c,
                         uint64_t count)
{
  uint64_t n[2], mult[2];
  return count >= 1 && !pld_allocation_groups(T, k, n, mult) &&
         count <= ((uint64_t)1 << 53) / k && isfinite(sigma) &&
         sigma > 0.0 && isfinite(c) && c > 0.0 &&
         c / sigma >= MU_MIN && c / sigma <= MU_MAX;
}

/* What alloc_args_ok (or a NULL accountant) refused; T named `tn`. */
static int alloc_args_fail(const char *tn, uint64_t T, uint64_t k,
                           double sigma, double c, uint64_t count)
{
  return pld_fail(PLD_EINVAL,
                  "%s = %llu, k = %llu, sigma = %g, c = %g, count = %llu: "
                  "needs acc, 1 <= k <= %s <= %d, sigma and c finite > 0 "
                  "with c/sigma in [%g, %g], 1 <= count <= 2^53/k",
                  tn, (unsigned long long)T, (unsigned long long)k, sigma, c,
                  (unsigned long long)count, tn, PLD_ALLOCATION_MAX_T, MU_MIN,
                  MU_MAX);
}

/* An accountant with acc's params, for one update built aside and merged
 * into acc in one step: a failure anywhere leaves acc as it was (a
 * half-added allocation would under-count). */
static int scratch_of(const pld_accountant *acc, pld_accountant **out)
{
  pld_params prm;
  int st = pld_accountant_get_params(acc, &prm);
  return st ? st : pld_accountant_alloc(&prm, out);
}

int pld_accountant_add_allocation(pld_accountant *acc, uint64_t T, uint64_t k,
                                  double sigma, double c, uint64_t count)
{
  pld_detail_clear();
  if (!acc || !alloc_args_ok(T, k, sigma, c, count))
    return alloc_args_fail("T", T, k, sigma, c, count);
  pld_accountant *scratch = NULL;
  int st = scratch_of(acc, &scratch);
  if (!st)
    st = add_split_events(scratch, T, k, sigma, c, count, 1);
  if (!st)
    st = pld_accountant_merge(acc, scratch);
  pld_accountant_free(scratch);
  return st;
}

/* Model splitting with k of d blocks (docs/allocation.md "Model splitting
 * with k > 1").  Whatever gradient the record sends to the blocks K drawn
 * (any direction in each block, depending on K), the step is dominated by
 * the k-out-of-d allocation with norm c in every block of K as soon as
 * every block's part has norm <= c: padded to norm c with fresh
 * directions (a mean-preserving spread of the likelihood ratio), the
 * exponents G_K = <m_K, Z> form a Gaussian vector with the allocation's
 * variances k c^2 and covariances sum_{b in K n K'} <m_Kb, m_K'b> <= c^2
 * |K n K'|, the allocation's; phi(sum_K e^{G_K - v/2}) is supermodular for
 * convex phi, and the supermodular order of Gaussian vectors with equal
 * variances follows the covariances (Mueller, Ann. Inst. Statist. Math. 53,
 * 2001; Gaussian interpolation), so both
 * directions' curves are at most the allocation's.  Per-block clipping
 * reaches it (fixed directions): exact.  Total clipping (sum of the
 * blocks' squared norms <= c^2) is also dominated by the Gaussian with
 * shift c (release K as well), and reaches the Poisson-subsampled
 * Gaussian with rate k/d (the record's gradient in one block b, zero when
 * b is not drawn): the lower pair. */
int pld_accountant_add_model_splitting(pld_accountant *acc, uint64_t d,
                                       uint64_t k, double sigma, double c,
                                       pld_split_clip clip, uint64_t count)
{
  pld_detail_clear();
  if (clip != PLD_SPLIT_CLIP_BLOCK && clip != PLD_SPLIT_CLIP_TOTAL)
    return pld_fail(PLD_EINVAL, "clip = %d is not a pld_split_clip",
                    (int)clip);
  if (!acc || !alloc_args_ok(d, k, sigma, c, count))
    return alloc_args_fail("d", d, k, sigma, c, count);
  if (clip == PLD_SPLIT_CLIP_BLOCK || k == 1)
    return pld_accountant_add_allocation(acc, d, k, sigma, c, count);
  pld_mech *g = NULL;
  int st = pld_mech_gaussian(sigma, c, &g);
  if (!st && k == d) { /* every block, one gradient of norm <= c */
    st = pld_accountant_add(acc, g, count);
    pld_mech_free(g);
    return st;
  }
  /* 1 < k < d: the upper members of the allocation or of the Gaussian,
   * whichever answers the smaller epsilon at delta = 1e-5 for this update
   * alone (both are certified; which is tighter depends on d/k and on the
   * query: at d = 4, k = 2, sigma = 1 the Gaussian 4.378 against the
   * allocation's 5.034, at d = 10, k = 2 the allocation's 3.557) */
  pld_accountant *sa = NULL, *sg = NULL;
  pld_mech *null = NULL, *gu = NULL, *pg = NULL, *pl = NULL;
  if (!st)
    st = scratch_of(acc, &sa);
  if (!st)
    st = scratch_of(acc, &sg);
  if (!st)
    st = add_split_events(sa, d, k, sigma, c, count, 0);
  if (!st)
    st = null_pair(&null);
  if (!st)
    st = pld_mech_bracket(g, null, &gu);
  if (!st)
    st = pld_accountant_add(sg, gu, count);
  pld_accountant *keep = sa;
  if (!st) {
    pld_result ra, rg;
    int ea = pld_accountant_epsilon(sa, 1e-5, &ra);
    int eg = pld_accountant_epsilon(sg, 1e-5, &rg);
    if (ea == PLD_ENOMEM || eg == PLD_ENOMEM)
      st = PLD_ENOMEM;
    else if (!eg && (ea || rg.bound.upper < ra.bound.upper))
      keep = sg; /* a failed query (ERANGE at some grid) loses the pick */
  }
  /* the lower pair: rate k/d rounded down (a smaller rate is a
   * post-processing: still below the truth) */
  double q = nextafter((double)k / (double)d, 0.0);
  if (!st)
    st = pld_mech_poisson_gaussian(q, sigma, c, &pg);
  if (!st)
    st = pld_mech_bracket(null, pg, &pl);
  if (!st)
    st = pld_accountant_add(keep, pl, count);
  if (!st)
    st = pld_accountant_merge(acc, keep);
  pld_accountant_free(sa);
  pld_accountant_free(sg);
  pld_mech_free(g);
  pld_mech_free(null);
  pld_mech_free(gu);
  pld_mech_free(pg);
  pld_mech_free(pl);
  return st;
}

int pld_mech_random_allocation_bounds(uint64_t T, double sigma, double c,
                                      double eta, pld_mech **upper,
                                      pld_mech **lower)
{
  if (!upper || !lower || T < 1 || T > PLD_ALLOCATION_MAX_T ||
      !isfinite(sigma) || !(sigma > 0.0) || !isfinite(c) || !(c > 0.0) ||
      !(eta >= 0.0 && eta <= 0.1))
    return PLD_EINVAL;
  double mu = c / sigma;
  if (!(mu >= MU_MIN && mu <= MU_MAX))
    return PLD_EINVAL;
  if (T == 1) {
    int st = pld_mech_gaussian(sigma, c, upper);
    if (!st && (st = pld_mech_gaussian(sigma, c, lower))) {
      pld_mech_free(*upper);
      *upper = NULL;
    }
    return st;
  }
  if (eta == 0.0)
    eta = default_eta(mu, T);
  struct law U = {0}, L = {0};
  struct pld_mech *u = NULL, *l = NULL;
  int st = law_of_mean(mu, T, eta, 1, LV_MEAN, &U);
  if (!st)
    st = law_of_mean(mu, T, eta, 0, LV_MEAN, &L);
  if (!st)
    st = finite_of_law(&U, 1, &u);
  if (!st)
    st = finite_of_law(&L, 0, &l);
  law_free(&U);
  law_free(&L);
  if (st) {
    pld_mech_free(u);
    pld_mech_free(l);
    return st;
  }
  *upper = u;
  *lower = l;
  return PLD_SUCCESS;
}

int pld_allocation_epsilon(uint64_t T, uint64_t k, double sigma, double c,
                           uint64_t count, double delta,
                           const pld_params *params, pld_bound *out)
{
  uint64_t n[2], mult[2];
  if (!out || count < 1 || pld_allocation_groups(T, k, n, mult) ||
      count > ((uint64_t)1 << 53) / k || !(delta > 0.0 && delta < 1.0))
    return PLD_EINVAL;
  pld_accountant *acc = NULL;
  int st = pld_accountant_alloc(params, &acc);
  if (!st)
    st = pld_accountant_add_allocation(acc, T, k, sigma, c, count);
  pld_result r;
  if (!st)
    st = pld_accountant_epsilon(acc, delta, &r);
  pld_accountant_free(acc);
  if (st)
    return st;
  /* the brackets' upper pairs dominate the true one, the true one the
   * lower pairs (for 1 < k < T a projection of the run, see
   * pld_accountant_add_allocation) */
  out->upper = r.bound.upper;
  out->lower = r.bound.lower;
  return PLD_SUCCESS;
}

/* ------------------------------------------------------------------------ */
/* The Poisson + splitting pair (splitting paper, Fig. 1) and partial model
 * splitting (Sec. 3.2.2) with a sampling rate.                             */

int pld_mech_poisson_split(double q, uint64_t d, double sigma, double c,
                           pld_mech **out)
{
  if (!out || !(q > 0.0 && q <= 1.0))
    return PLD_EINVAL;
  if (d == 1) /* the allocation is the Gaussian itself */
    return pld_mech_poisson_gaussian(q, sigma, c, out);
  pld_mech *a = NULL;
  int st = pld_mech_random_allocation(d, sigma, c, &a);
  /* Poisson subsampling of a bracket is the bracket of the subsampled
   * members (docs/design.md sec. 12) */
  if (!st)
    st = pld_mech_poisson(a, q, out);
  pld_mech_free(a);
  return st;
}

/* The law of S G with G = e^{mu Z - mu^2/2} independent of S (the
 * product of the allocation pair with a Gaussian pair: its likelihood
 * ratio under Q), rebinned on a geometric grid of ratio e^eta like
 * law_sum: spread onto edges (U) or conditional means (L).  Convex order
 * is kept by products of independent non-negative factors: for fixed g,
 * s -> f(s g) is convex, so E f(S g) <= E f(S' g) when S <=cx S', and
 * likewise in g; hence U_S U_G dominates S G, which dominates L_S L_G, and
 * the rebinning keeps each on its side (a mean-preserving spread, a
 * conditional expectation).  O(nA nB), once per mechanism. */
static int law_prod(const struct law *A, const struct law *B, double eta,
                    int upper, struct law *out)
{
  double vmin = A->v[0] * B->v[0], vmax = A->v[A->n - 1] * B->v[B->n - 1];
  struct grid g = {{eta, 0.0, INFINITY}, 0.0, NULL, NULL, NULL, 0, upper};
  int st = grid_edges(&g, vmin, vmax);
  if (st)
    return st;
  size_t ne = g.ne;
  double *edge = g.edge;
  double *mom = upper ? NULL : pld_calloc(ne, sizeof(double));
  double *la = pld_malloc((A->n + B->n) * sizeof(double));
  st = law_alloc(out, ne);
  if (!edge || (!upper && !mom) || !la || st) {
    pld_free(edge);
    pld_free(mom);
    pld_free(la);
    law_free(out);
    return PLD_ENOMEM;
  }
  double *lb = la + A->n;
  for (size_t i = 0; i < A->n; i++)
    la[i] = log(A->v[i]);
  for (size_t j = 0; j < B->n; j++)
    lb[j] = log(B->v[j]);
  out->l1 = A->l1 + B->l1; /* E|S'G - SG| = E|S'-S| E G, E G = 1 = E S */
  out->qp = A->qp + B->qp;
  g.w = out->w;
  g.mom = mom;
  for (size_t i = 0; i < A->n; i++) {
    for (size_t j = 0; j < B->n; j++) {
      double v = A->v[i] * B->v[j], x = A->w[i] * B->w[j];
      /* the cell from the logs (the edge walk corrects the rounding) */
      double f = floor((la[i] + lb[j]) / eta - g.phi0);
      size_t m = f <= 0.0 ? 0 : f >= (double)(ne - 2) ? ne - 2 : (size_t)f;
      while (m > 0 && edge[m] > v)
        m--;
      while (m + 2 < ne && edge[m + 1] <= v)
        m++;
      grid_put(&g, m, x, x * v);
    }
  }
  for (size_t m = 0; m < ne; m++) {
    if (upper)
      out->v[m] = edge[m];
    else
      out->v[m] = out->w[m] > 0.0 ? fmin(fmax(mom[m] / out->w[m], edge[m]), edge[m + 1 < ne ? m + 1 : m]) : edge[m];
  }
  pld_free(edge);
  pld_free(mom);
  pld_free(la);
  law_compact(out);
  return PLD_SUCCESS;
}

/* The finite pair of the law of S G (U or L), S the one-of-d mean with
 * mu_s = c_split/sigma, G the Gaussian ratio with mu_g = c_shared/sigma. */
static int product_pair(uint64_t d, double mu_s, double mu_g, double eta,
                        int upper, pld_mech **out)
{
  struct law S = {0}, G = {0}, P = {0};
  int st = law_of_mean(mu_s, d, eta, upper, LV_PROD, &S);
  if (!st)
    st = law_base(mu_g, 1, eta, upper, Z_CUT, LV_PROD, &G);
  if (!st) {
    if (!upper)
      G.l1 = G.qp = 0.0; /* L's end cells are conditional expectations */
    law_trim(&G, upper, TRIM_CHUNK);
    st = law_prod(&S, &G, eta, upper, &P);
  }
  if (!st)
    law_trim(&P, upper, TRIM_CHUNK);
  if (!st)
    st = finite_of_law(&P, upper, out);
  law_free(&S);
  law_free(&G);
  law_free(&P);
  return st;
}

int pld_mech_partial_split(double q, uint64_t d, double sigma, double c_split,
                           double c_shared, pld_mech **out)
{
  if (!out || !(q > 0.0 && q <= 1.0) || !isfinite(sigma) || !(sigma > 0.0) ||
      !isfinite(c_split) || !(c_split > 0.0) || !isfinite(c_shared) ||
      !(c_shared >= 0.0) || d < 1 || d > PLD_ALLOCATION_MAX_T)
    return PLD_EINVAL;
  if (c_shared == 0.0)
    return pld_mech_poisson_split(q, d, sigma, c_split, out);
  double mu = c_shared / sigma;
  if (!(mu >= MU_MIN && mu <= MU_MAX))
    return PLD_EINVAL;
  if (d == 1) {
    /* both parts are Gaussian shifts: one shift of norm
     * sqrt(c_split^2 + c_shared^2) (rounded up: a larger sensitivity
     * dominates) */
    double s = hypot(c_split, c_shared) * (1.0 + 2.0 * DBL_EPSILON);
    return pld_mech_poisson_gaussian(q, sigma, s, out);
  }
  double mus = c_split / sigma;
  if (!(mus >= MU_MIN && mus <= MU_MAX))
    return PLD_EINVAL;
  /* the allocation's default bins (pld_mech_random_allocation_bounds) */
  double eta = (d >= 100 ? 0.003 : 0.006) * fmin(mus, 1.0);
  pld_mech *u = NULL, *l = NULL, *br = NULL;
  int st = product_pair(d, mus, mu, eta, 1, &u);
  if (!st)
    st = product_pair(d, mus, mu, eta, 0, &l);
  /* U_S U_G dominates the product pair, L_S L_G is dominated by it
   * (law_prod), and the shared part's worst case is that product
   * (docs/allocation.md, "Partial splitting") */
  if (!st)
    st = pld_mech_bracket(u, l, &br);
  /* the laws' arithmetic, as pld_mech_random_allocation */
  if (!st)
    br->curve.rel_err = fmax(br->curve.rel_err, 1e-9);
  if (!st)
    st = pld_mech_poisson(br, q, out);
  pld_mech_free(u);
  pld_mech_free(l);
  pld_mech_free(br);
  return st;
}
