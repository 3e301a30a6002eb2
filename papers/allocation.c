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
 * finite mechanism evaluates exactly; the mechanism's curve is the midpoint
 * of the two, and the measured gap is its booked relative error. */
#include <pldkit/allocation.h>

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
#define TRIM_MASS 1e-130
/* The curve's contract holds where delta is above this (the builder only
 * needs values down to its tail mass, 1e-20 by default). */
#define DELTA_FLOOR 1e-60
#define REL_TARGET 9e-4

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

/* Merge the atoms of total mass below TRIM_MASS at each end into one atom
 * at their mean.  For L this is a conditional expectation (sound); for U it
 * is booked: it moves S by at most 2 sum w v in L1 (over merged atoms). */
static void law_trim(struct law *a)
{
  size_t n = a->n;
  if (n < 3)
    return;
  double m = 0.0, mv = 0.0;
  size_t lo = 0;
  while (lo + 1 < n && m + a->w[lo] < TRIM_MASS) {
    m += a->w[lo];
    mv += a->w[lo] * a->v[lo];
    lo++;
  }
  if (lo > 1) {
    a->l1 += 2.0 * mv;
    a->w[lo - 1] = m;
    a->v[lo - 1] = mv / m;
    for (size_t i = 0; i + 1 < lo; i++)
      a->w[i] = 0.0;
  }
  m = mv = 0.0;
  size_t hi = n;
  while (hi > lo + 1 && m + a->w[hi - 1] < TRIM_MASS) {
    m += a->w[hi - 1];
    mv += a->w[hi - 1] * a->v[hi - 1];
    hi--;
  }
  if (hi + 1 < n) {
    a->l1 += 2.0 * mv;
    a->w[hi] = m;
    a->v[hi] = mv / m;
    for (size_t i = hi + 1; i < n; i++)
      a->w[i] = 0.0;
  }
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

/* out = law of A + B (independent), rebinned on a geometric grid of ratio
 * e^eta: spread onto edges (U) or conditional means (L). */
static int law_sum(const struct law *A, const struct law *B, double eta,
                   int upper, struct law *out)
{
  double vmin = A->v[0] + B->v[0], vmax = A->v[A->n - 1] + B->v[B->n - 1];
  double u0 = log(vmin) - 1e-9;
  size_t ne = (size_t)ceil((log(vmax) + 1e-9 - u0) / eta) + 2;
  if (ne > (size_t)1 << 24)
    return PLD_ERANGE;
  double *edge = pld_malloc(ne * sizeof(double));
  double *mom = upper ? NULL : pld_calloc(ne, sizeof(double));
  int st = law_alloc(out, ne);
  out->l1 = A->l1 + B->l1;
  if (!edge || (!upper && !mom) || st) {
    pld_free(edge);
    pld_free(mom);
    law_free(out);
    return PLD_ENOMEM;
  }
  for (size_t m = 0; m < ne; m++)
    edge[m] = exp(u0 + (double)m * eta);
  edge[0] = fmin(edge[0], vmin);
  edge[ne - 1] = fmax(edge[ne - 1], vmax * (1.0 + 1e-15));
  double *w = out->w;
  for (size_t i = 0; i < A->n; i++) {
    double a = A->v[i], wa = A->w[i];
    size_t m = (size_t)fmax(0.0, floor((log(a + B->v[0]) - u0) / eta) - 1.0);
    if (m > ne - 2)
      m = ne - 2;
    while (m > 0 && edge[m] > a + B->v[0])
      m--;
    for (size_t j = 0; j < B->n; j++) {
      double v = a + B->v[j], x = wa * B->w[j];
      while (m + 2 < ne && v >= edge[m + 1])
        m++;
      if (upper) {
        double f = (v - edge[m]) / (edge[m + 1] - edge[m]);
        if (f < 0.0)
          f = 0.0;
        if (f > 1.0)
          f = 1.0;
        w[m] += x * (1.0 - f);
        w[m + 1] += x * f;
      } else {
        w[m] += x;
        mom[m] += x * v;
      }
    }
  }
  for (size_t m = 0; m < ne; m++) {
    if (upper)
      out->v[m] = edge[m];
    else
      out->v[m] = w[m] > 0.0 ? fmin(fmax(mom[m] / w[m], edge[m]), edge[m + 1 < ne ? m + 1 : m]) : edge[m];
  }
  pld_free(edge);
  pld_free(mom);
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
static int law_of_mean(double mu, uint64_t T, double eta, int upper,
                       struct law *out)
{
  struct law base = {0}, acc = {0}, tmp = {0};
  int st = law_base(mu, T, eta, upper, &base);
  int have = 0;
  for (uint64_t t = T; !st && t; t >>= 1) {
    if (t & 1) {
      if (!have) {
        st = law_copy(&base, &acc);
        have = 1;
      } else if (!(st = law_sum(&acc, &base, eta, upper, &tmp))) {
        law_free(&acc);
        acc = tmp;
        memset(&tmp, 0, sizeof tmp);
        law_trim(&acc);
      }
    }
    if (!st && t > 1 && !(st = law_sum(&base, &base, eta, upper, &tmp))) {
      law_free(&base);
      base = tmp;
      memset(&tmp, 0, sizeof tmp);
      law_trim(&base);
    }
  }
  law_free(&base);
  law_free(&tmp);
  if (st) {
    law_free(&acc);
    return st;
  }
  if (!upper)
    acc.l1 = 0.0; /* L's trimming is a conditional expectation */
  *out = acc;
  return PLD_SUCCESS;
}

/* ------------------------------------------------------------------------ */
/* The mechanism: members[0] = U, members[1] = L (finite pairs); par[0] = mu,
 * par[1] = T, par[2] = the booked L1 shift of U, par[3] = eta. */

static int finite_of_law(const struct law *a, struct pld_mech **out)
{
  size_t n = a->n;
  double *buf = pld_malloc(3 * n * sizeof(double));
  struct pld_mech *m = pld_mech_new(PLD_MECH_FINITE);
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

/* Bracket [lo, hi] of the true curve at each eps. */
static int alloc_bracket(const struct pld_mech *m, int dir, size_t n,
                         const double *eps, double *lo, double *hi)
{
  int st = pld_mech_finite_curve(m->members[0], dir, n, eps, hi);
  if (!st)
    st = pld_mech_finite_curve(m->members[1], dir, n, eps, lo);
  if (st)
    return st;
  double l1 = m->par[2];
  for (size_t i = 0; i < n; i++) {
    /* the PQ integrand (S - x)_+ is 1-Lipschitz in S, the QP one
     * (1 - x S)_+ is x-Lipschitz; relative round-off of the finite curves
     * (1e-11 booked by them) and of the laws' arithmetic (1e-9, see
     * docs/allocation.md) on top */
    double lip = dir == PLD_DIR_PQ ? 1.0 : exp(fmin(eps[i], 700.0));
    double e = eps[i] == INFINITY ? 0.0 : l1 * lip * (1.0 + 1e-9);
    hi[i] = fmin(1.0, hi[i] * (1.0 + 1e-9) + e);
    lo[i] = fmax(0.0, lo[i] * (1.0 - 1e-9) - e);
  }
  return PLD_SUCCESS;
}

static int alloc_curve(void *ctx, int dir, size_t n, const double *eps,
                       double *delta)
{
  const struct pld_mech *m = ctx;
  double *lo = pld_malloc((n ? n : 1) * sizeof(double));
  if (!lo)
    return PLD_ENOMEM;
  int st = alloc_bracket(m, dir, n, eps, lo, delta);
  if (st) {
    pld_free(lo);
    return st;
  }
  double r = m->curve.rel_err;
  for (size_t i = 0; i < n; i++) {
    double hi = delta[i], mid = 0.5 * (hi + lo[i]);
    /* |mid - true| <= (hi - lo)/2 <= r lo <= r true */
    if (hi - lo[i] <= 2.0 * r * lo[i])
      delta[i] = mid;
    else if (hi <= DELTA_FLOOR)
      delta[i] = hi; /* below the documented floor: an upper bound */
    else {
      pld_free(lo);
      return PLD_ECALLBACK; /* the contract would not hold: never lie */
    }
  }
  pld_free(lo);
  return PLD_SUCCESS;
}

/* The largest relative half-gap (hi - lo)/(2 lo) over a dense eps grid in
 * both directions where hi > DELTA_FLOOR, scanning up to where hi falls
 * below it. */
static int measure_gap(const struct pld_mech *m, double *gap)
{
  enum { NP = 4000 };
  double *e = pld_malloc(3 * NP * sizeof(double));
  if (!e)
    return PLD_ENOMEM;
  double *lo = e + NP, *hi = e + 2 * NP;
  double g = 0.0;
  int st = PLD_SUCCESS;
  for (int dir = 0; dir < 2 && !st; dir++) {
    /* the largest finite loss of U bounds the range */
    const struct pld_mech *u = m->members[0];
    double top = u->nfin[dir] ? u->loss[dir][0] : 0.0;
    double bot = -top;
    if (u->nfin[1 - dir])
      bot = -u->loss[1 - dir][0];
    for (int i = 0; i < NP; i++)
      e[i] = bot + (top - bot) * (double)i / (NP - 1);
    st = alloc_bracket(m, dir, NP, e, lo, hi);
    for (int i = 0; !st && i < NP; i++)
      if (hi[i] > DELTA_FLOOR) {
        double x = lo[i] > 0.0 ? (hi[i] - lo[i]) / (2.0 * lo[i]) : INFINITY;
        if (x > g)
          g = x;
      }
  }
  pld_free(e);
  *gap = g;
  return st;
}

int pld_mech_random_allocation(uint64_t T, double sigma, double c,
                               pld_mech **out)
{
  if (!out || T < 1 || T > PLD_ALLOCATION_MAX_T || !isfinite(sigma) ||
      !(sigma > 0.0) || !isfinite(c) || !(c > 0.0))
    return PLD_EINVAL;
  double mu = c / sigma;
  if (!(mu >= MU_MIN && mu <= MU_MAX))
    return PLD_EINVAL;
  if (T == 1)
    return pld_mech_gaussian(sigma, c, out);
  /* bins: a relative error per rebinning of about (z eta / mu)^2 / 4 at
   * the standardised tail position z (docs/allocation.md); start there and
   * halve until the measured bracket is narrow enough */
  double eta = 0.012 * fmin(mu, 1.0);
  int st = PLD_ERANGE;
  for (int tries = 0; tries < 3; tries++, eta *= 0.5) {
    struct law U = {0}, L = {0};
    struct pld_mech *m = pld_mech_new(PLD_MECH_ALLOCATION);
    if (!m)
      return PLD_ENOMEM;
    m->members = pld_calloc(2, sizeof *m->members);
    if (!m->members) {
      pld_mech_free(m);
      return PLD_ENOMEM;
    }
    st = law_of_mean(mu, T, eta, 1, &U);
    if (!st)
      st = law_of_mean(mu, T, eta, 0, &L);
    if (!st)
      st = finite_of_law(&U, &m->members[0]);
    if (!st) {
      m->nmembers = 1;
      st = finite_of_law(&L, &m->members[1]);
    }
    if (!st)
      m->nmembers = 2;
    m->par[0] = mu;
    m->par[1] = (double)T;
    m->par[2] = U.l1;
    m->par[3] = eta;
    law_free(&U);
    law_free(&L);
    double gap = INFINITY;
    if (!st)
      st = measure_gap(m, &gap);
    if (!st && gap * 1.5 + 1e-8 < REL_TARGET) {
      m->curve.delta = alloc_curve;
      m->curve.ctx = m;
      m->curve.rel_err = gap * 1.5 + 1e-8;
      m->curve.symmetric = 0;
      m->curve.loss_scale = fmax(mu * mu / sqrt((double)T), 1e-3);
      m->curve.tails = NULL;
      m->curve.loss_lattice = 0.0;
      *out = m;
      return PLD_SUCCESS;
    }
    pld_mech_free(m);
    if (st)
      return st;
    st = PLD_ERANGE;
  }
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
  for (int i = 0; i < 2; i++) {
    if (!mult[i])
      continue;
    pld_mech *m = NULL;
    int st = pld_mech_random_allocation(n[i], sigma, c, &m);
    if (!st)
      st = pld_accountant_add(acc, m, mult[i] * count);
    pld_mech_free(m);
    if (st)
      return st;
  }
  return PLD_SUCCESS;
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
    eta = 0.006 * fmin(mu, 1.0);
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
  pld_accountant *acc[2] = {NULL, NULL}; /* [0] upper pairs, [1] lower */
  int st = pld_accountant_alloc(params, &acc[0]);
  if (!st)
    st = pld_accountant_alloc(params, &acc[1]);
  for (int i = 0; !st && i < 2; i++) {
    if (!mult[i])
      continue;
    pld_mech *u = NULL, *l = NULL;
    st = pld_mech_random_allocation_bounds(n[i], sigma, c, 0.0, &u, &l);
    if (!st)
      st = pld_accountant_add(acc[0], u, mult[i] * count);
    if (!st)
      st = pld_accountant_add(acc[1], l, mult[i] * count);
    pld_mech_free(u);
    pld_mech_free(l);
  }
  pld_result ru, rl;
  if (!st)
    st = pld_accountant_epsilon(acc[0], delta, &ru);
  if (!st)
    st = pld_accountant_epsilon(acc[1], delta, &rl);
  pld_accountant_free(acc[0]);
  pld_accountant_free(acc[1]);
  if (st)
    return st;
  /* the upper pair dominates the true one, the true one the lower pair.
   * For k > 1 the composed groups only dominate the k-of-T mechanism, so
   * their lower end is not one of the true value: 0 is reported. */
  out->upper = ru.bound.upper;
  out->lower = k == 1 ? fmin(rl.bound.lower, out->upper) : 0.0;
  return PLD_SUCCESS;
}
