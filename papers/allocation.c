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
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "internal.h"

#define SQRT2 1.41421356237309504880
#define MU_MIN 1e-3
#define MU_MAX 30.0
/* The far cells of Z: beyond Z = +-ZMAX_EXTRA + mu the partial mean of X is
 * below Phi(-21.5) ~ 1e-102, booked as absolute error. */
#define ZMAX_EXTRA 21.5
/* Atoms of a sum below this mass at either end are merged (L: at their
 * mean; U: booked, see trim). */
/* Mass below this at either end of a law is merged (law_trim): curves far
 * below it (the builder's tail mass is at least ~1e-20 for the queries
 * anyone makes) lose accuracy there, never their side. */
#define TRIM_MASS 1e-30

#define ETA_LEVEL_MAX 0.05
#define BULK_SDS 32.0
#define KAPPA 0.04
#define ETA_CAP 0.002

struct law {
  size_t n;
  double *v;  /* ascending values */
  double *w;  /* masses */
  double l1;  /* U only: booked L1 distance of the exact-rule law from it */
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

static void law_trim(struct law *a, int upper)
{
  size_t n = a->n;
  if (n < 5)
    return;
  double m = 0.0;
  size_t lo = 0;
  while (lo + 2 < n && m + a->w[lo] < TRIM_MASS)
    m += a->w[lo++];
  if (lo > 2)
    trim_run(a, 0, lo - 1, upper);
  m = 0.0;
  size_t hi = n;
  while (hi > lo + 2 && m + a->w[hi - 1] < TRIM_MASS)
    m += a->w[--hi];
  if (n - hi > 2)
    trim_run(a, hi, n - 1, upper);
  law_compact(a);
}

/* X/T on the grid: cells of Z of width h from -zmax to zmax; spread (U) or
 * conditional means (L).  *l1 gets the end cells' booking. */
static int law_base(double mu, uint64_t T, double eta, int upper,
                    struct law *out)
{
  double zmax = ZMAX_EXTRA + mu, h = eta / mu;
  size_t nc = (size_t)ceil(2.0 * zmax / h);
  h = 2.0 * zmax / (double)nc;
  int st = law_alloc(out, nc + 3);
  if (st)
    return st;
  double iT = 1.0 / (double)T;
  /* end cells at their conditional means (both laws) */
  double wb = 0.5 * erfc(zmax / SQRT2), mb = 0.5 * erfc((zmax + mu) / SQRT2);
  double wt = wb, mt = 0.5 * erfc((zmax - mu) / SQRT2);
  out->l1 = 2.0 * (mb + mt) * iT;
  /* index 0: bottom cell, 1..nc+1: edges (U) or cells (L), nc+2: top */
  out->v[0] = iT * mb / wb;
  out->w[0] = wb;
  out->v[nc + 2] = iT * mt / wt;
  out->w[nc + 2] = wt;
  for (size_t j = 0; j <= nc; j++)
    out->v[1 + j] = iT * exp(mu * (-zmax + (double)j * h) - 0.5 * mu * mu);
  for (size_t j = 0; j < nc; j++) {
    double za = -zmax + (double)j * h, zb = j + 1 == nc ? zmax : za + h;
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
                       struct law *out)
{
  struct law base = {0}, acc = {0}, tmp = {0};
  struct bins b1 = level_bins(eta, mu, T, 1);
  int st = law_base(mu, T, b1.eta, upper, &base);
  if (!st)
    law_trim(&base, upper);
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
        law_trim(&acc, upper);
        ma += mb;
      }
    }
    if (!st && t > 1 && (bs = level_bins(eta, mu, T, 2 * mb),
                         !(st = law_sum(&base, &base, &bs, upper, &tmp)))) {
      law_free(&base);
      base = tmp;
      memset(&tmp, 0, sizeof tmp);
      law_trim(&base, upper);
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
    acc.l1 = 0.0; /* L's end cells are conditional expectations */
  *out = acc;
  return PLD_SUCCESS;
}

/* ------------------------------------------------------------------------ */
/* The mechanisms: each law as a finite pair (q_j = mass, p_j = s_j q_j). */

static int finite_of_law(const struct law *a, struct pld_mech **out)
{
  size_t n = a->n;
  double *buf = pld_malloc(3 * n * sizeof(double));
  struct pld_mech *m = pld_mech_new(&pld_mech_type_finite);
  if (!buf || !m) {
    pld_free(buf);
    pld_mech_free(m);
    return PLD_ENOMEM;
  }
  double *lp = buf, *lq = buf + n, *lpq = buf + 2 * n;
  for (size_t i = 0; i < n; i++) {
    lq[i] = log(a->w[i]);
    lpq[i] = log(a->v[i]);
    lp[i] = lq[i] + lpq[i];
  }
  m->label = 300;
  int st = pld_mech_finite_init(m, n, lp, lq, lpq);
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

int pld_accountant_add_allocation(pld_accountant *acc, uint64_t T, uint64_t k,
                                  double sigma, double c, uint64_t count)
{
  uint64_t n[2], mult[2];
  if (!acc || count < 1 || pld_allocation_groups(T, k, n, mult) ||
      count > ((uint64_t)1 << 53) / k)
    return PLD_EINVAL;
  /* For 1 < k < T the groups only dominate the k-of-T mechanism: their
   * lower pairs are no lower pairs of it.  A dominated pair of the run:
   * the sum of its T outputs, N(k c, T sigma^2) against N(0, T sigma^2),
   * a post-processing, i.e. the Gaussian with mu = k c / (sigma sqrt T);
   * split over the k groups as Gaussians with mu_g^2 = (k/T) (c/sigma)^2,
   * which compose to it (sigma_g rounded up: never above that mu).  The
   * upper end stays the reduction's.  (k = T: every step holds the record,
   * T Gaussians exactly; k = 1: the allocation's own bracket.) */
  pld_mech *id = NULL;
  if (k > 1 && k < T) {
    double sg = sigma * sqrt((double)T / (double)k);
    sg = nextafter(nextafter(sg * (1.0 + 4.0 * DBL_EPSILON), INFINITY),
                   INFINITY);
    int st = pld_mech_gaussian(sg, c, &id);
    if (st)
      return st;
  }
  int st = PLD_SUCCESS;
  for (int i = 0; i < 2 && !st; i++) {
    if (!mult[i])
      continue;
    pld_mech *m = NULL, *b = NULL;
    st = pld_mech_random_allocation(n[i], sigma, c, &m);
    if (!st && id)
      st = pld_mech_bracket(m, id, &b);
    if (!st)
      st = pld_accountant_add(acc, b ? b : m, mult[i] * count);
    pld_mech_free(m);
    pld_mech_free(b);
  }
  pld_mech_free(id);
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
  int st = law_of_mean(mu, T, eta, 1, &U);
  if (!st)
    st = law_of_mean(mu, T, eta, 0, &L);
  /* U stands for the exact law up to an L1 shift of U.l1 (the far end
   * cells, below 1e-100): that changes delta by at most l1 (PQ) or e^eps l1
   * (QP), far below the builder's tail mass and booked slack (1e-20); a
   * larger one is refused rather than left unbooked */
  if (!st && !(U.l1 <= 1e-90))
    st = PLD_ERANGE;
  if (!st)
    st = finite_of_law(&U, &u);
  if (!st)
    st = finite_of_law(&L, &l);
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
   * lower pairs (for 1 < k < T the summed-output Gaussian, see
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
  int st = law_of_mean(mu_s, d, eta, upper, &S);
  if (!st)
    st = law_base(mu_g, 1, eta, upper, &G);
  if (!st) {
    if (!upper)
      G.l1 = 0.0; /* L's end cells are conditional expectations */
    law_trim(&G, upper);
    st = law_prod(&S, &G, eta, upper, &P);
  }
  if (!st)
    law_trim(&P, upper);
  /* as in pld_mech_random_allocation_bounds: the far end cells' L1 shift
   * is booked far below the builder's slack, or refused */
  if (!st && upper && !(P.l1 <= 1e-90))
    st = PLD_ERANGE;
  if (!st)
    st = finite_of_law(&P, out);
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
