/* pldkit: finite pairs of distributions, and the mechanisms that reduce to
 * them exactly (randomized response, discrete Laplace, discrete Gaussian).
 *
 * For a finite pair the curve is
 *     delta(eps) = P[q = 0] + sum_{l_i > eps} (p_i - e^eps q_i),  l_i = log(p_i/q_i),
 * evaluated from prefix sums over the atoms sorted by decreasing loss.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "internal.h"
#include "detail.h"
#include "numerics.h"

/* An atom: loss l, first-argument mass a, log of the second's mass lb. */
struct atom {
  double l, a, lb;
};

static int cmp_atom(const void *x, const void *y)
{
  double a = ((const struct atom *)x)->l, b = ((const struct atom *)y)->l;
  return (a < b) - (a > b); /* descending */
}

/* The kind's state (pld_mech_type_finite).  The pair as given, for
 * copies and equality: n LOG masses p, q and the constructor's losses lpq
 * (NULL: none); per direction d (0: P vs Q, 1: Q vs P) the nfin[d] finite
 * losses sorted descending, the suffix sums sp[d] (k + 1) of the first
 * argument's masses, W and V in sq[d] (2 (k + 1), see below), and the mass
 * infmass[d] of the first argument where the second is 0. */
struct finite {
  size_t n;
  double *p, *q, *lpq;
  double *loss[2], *sp[2], *sq[2];
  size_t nfin[2];
  double infmass[2];
};

static void finite_free(struct pld_mech *m)
{
  struct finite *f = m->state;
  if (!f)
    return;
  pld_free(f->p);
  pld_free(f->q);
  pld_free(f->lpq);
  for (int d = 0; d < 2; d++) {
    pld_free(f->loss[d]);
    pld_free(f->sp[d]);
    pld_free(f->sq[d]);
  }
  pld_free(f);
  m->state = NULL;
}

static int finite_copy(const struct pld_mech *src, struct pld_mech *dst)
{
  const struct finite *f = src->state;
  return pld_mech_finite_init(dst, f->n, f->p, f->q, f->lpq);
}

/* the pair's masses (the losses follow from them) */
static int finite_equal(const struct pld_mech *a, const struct pld_mech *b)
{
  const struct finite *x = a->state, *y = b->state;
  return x->n == y->n && !memcmp(x->p, y->p, x->n * sizeof(double)) &&
         !memcmp(x->q, y->q, x->n * sizeof(double));
}

/* Largest |loss| of a finite pair, or +inf if some outcome has mass under
 * one argument only.  The losses are differences of stored log masses; each
 * log is within a few ulps of the pair's true log mass, hence the slack. */
static double finite_eps0(const struct finite *f)
{
  if (f->infmass[0] > 0.0 || f->infmass[1] > 0.0)
    return INFINITY;
  double e = 0.0;
  for (size_t i = 0; i < f->n; i++) {
    double a = f->p[i], b = f->q[i];
    if (a == -INFINITY && b == -INFINITY)
      continue;
    if (a == -INFINITY || b == -INFINITY)
      return INFINITY;
    double l = fabs(a - b) + 8.0 * PLD_U * (fabs(a) + fabs(b) + 1.0);
    if (l > e)
      e = l;
  }
  return e;
}

static double finite_pure_eps(const struct pld_mech *m)
{
  if (m->label == 101) /* randomized response: losses -eps0, 0, eps0 */
    return m->par[0];
  if (m->label == 103)
    return INFINITY; /* the discrete Gaussian is stored cut at 40 sigma;
                        the mechanism itself has unbounded loss (with
                        mass below 1e-340), so it is not claimed pure */
  return finite_eps0(m->state);
}

const struct pld_mech_type pld_mech_type_finite = {.name = "finite",
                                                   .copy = finite_copy,
                                                   .equal = finite_equal,
                                                   .free = finite_free,
                                                   .pure_eps = finite_pure_eps};

/* The pair is kept as LOG masses (lp, lq; -inf for 0): a huge sensitivity
 * (discrete Laplace with s/scale = 5e4 nats) gives masses like e^{-5e4}
 * that underflow as doubles, yet the loss of such an outcome is finite --
 * stored as 0 the mass would turn it into +inf (upper) and overstate the
 * optimistic side (lower).
 *
 * Last-bit rounding (docs/design.md): the losses come from lpq (the
 * constructor's own log(p_i/q_i), accurate to 2u relative) where given,
 * since lp - lq is off by u (|lp| + |lq|) absolutely, 1e-8 relative for
 * randomized response at eps0 = 1e-8, and near a grid point the curve is
 * arbitrarily sensitive to that; the builder's grid nudges (4u relative)
 * cover a relative error of 2u.  The curve is summed from non-negative
 * terms only: with lambda_c = L[c-1] the smallest loss above eps,
 *     delta(eps) = inf + V[c] + W[c] (1 - e^{eps - lambda_c}),
 *     V[c] = sum_{i<c} p_i (1 - e^{lambda_c - L_i}),
 *     W[c] = sum_{i<c} p_i e^{lambda_c - L_i} = e^{lambda_c} Q[L > eps],
 * where the former P[L > eps] - e^eps Q[L > eps] cancelled to an absolute
 * error of u P[L > eps] (a relative 5e-8 at eps = 0 for randomized response
 * at eps0 = 1e-8, against a booked 1e-11). */
int pld_mech_finite_init(struct pld_mech *m, size_t n, const double *lp,
                         const double *lq, const double *lpq)
{
  struct finite *fs = pld_calloc(1, sizeof *fs);
  if (!fs)
    return PLD_ENOMEM;
  m->state = fs;
  fs->n = n;
  fs->p = pld_malloc(n * sizeof(double));
  fs->q = pld_malloc(n * sizeof(double));
  if (lpq) {
    fs->lpq = pld_malloc(n * sizeof(double));
    if (fs->lpq)
      memcpy(fs->lpq, lpq, n * sizeof(double));
  }
  struct atom *at = pld_malloc(n * sizeof *at);
  if (!fs->p || !fs->q || !at || (lpq && !fs->lpq)) {
    pld_free(at);
    return PLD_ENOMEM;
  }
  memcpy(fs->p, lp, n * sizeof(double));
  memcpy(fs->q, lq, n * sizeof(double));
  double scale = 0.0, span = 0.0, lmax = 0.0;
  size_t kmax = 0;
  for (int d = 0; d < 2; d++) {
    const double *f = d ? lq : lp, *s = d ? lp : lq;
    size_t k = 0;
    double inf = 0.0;
    for (size_t i = 0; i < n; i++) {
      if (f[i] > -INFINITY && s[i] > -INFINITY) {
        at[k].l = lpq ? (d ? -lpq[i] : lpq[i]) : f[i] - s[i];
        at[k].a = exp(f[i]);
        at[k].lb = s[i];
        scale += at[k].a * fabs(at[k].l);
        if (at[k].a > 0.0)
          lmax = fmax(lmax, -f[i]);
        k++;
      } else if (f[i] > -INFINITY) {
        inf += exp(f[i]);
      }
    }
    qsort(at, k, sizeof *at, cmp_atom);
    fs->nfin[d] = k;
    fs->infmass[d] = inf;
    fs->loss[d] = pld_malloc((k ? k : 1) * sizeof(double));
    fs->sp[d] = pld_malloc((k + 1) * sizeof(double));
    fs->sq[d] = pld_malloc(2 * (k + 1) * sizeof(double));
    if (!fs->loss[d] || !fs->sp[d] || !fs->sq[d]) {
      pld_free(at);
      return PLD_ENOMEM;
    }
    /* sq holds W (first k + 1) and V (next k + 1), see above */
    double *W = fs->sq[d], *V = fs->sq[d] + k + 1;
    fs->sp[d][0] = 0.0;
    W[0] = V[0] = 0.0;
    double steps = 0.0, emax = 0.0;
    for (size_t i = 0; i < k; i++) {
      fs->loss[d][i] = at[i].l;
      fs->sp[d][i + 1] = fs->sp[d][i] + at[i].a;
      double step = i ? at[i].l - at[i - 1].l : 0.0; /* <= 0 */
      V[i + 1] = V[i] + W[i] * -expm1(step);
      W[i + 1] = at[i].a + W[i] * exp(step);
      /* Atom j reaches W[i] through e^{step_{j+1}} ... e^{step_i} =
       * e^{sum of the computed steps}; each step is the difference of two
       * computed losses, rounded once (u/2 |step|), so the sum telescopes
       * to l_i - l_j, off by the errors of those two losses alone plus
       * u/2 sum |step|: every chain's exponent is off by at most
       * u/2 sum |step| + 2 max_i err(l_i), in DBL_EPSILON units below
       * sum |step| + 2 emax with err(l) <= 2|l| DBL_EPSILON (one rounding,
       * or loss_of's 2u), plus DBL_EPSILON (|lp| + |lq|) where the loss is
       * lp - lq.  (Booking the two losses' errors at every step instead
       * made discrete Laplace at sensitivity 2^20, losses up to 1.2e7
       * nats, book rel_err 5.7e-3, over the builder's 1e-3.)  A step
       * beyond -745 underflows to 0 and carries nothing forward (discrete
       * Laplace with scale 1e-8 has two atoms 2e8 nats apart). */
      if (i && step > -745.0) {
        /* only atoms a carried chain joins count: an underflowed step
         * carries nothing, so its atoms' loss errors reach no W */
        steps += -step;
        for (size_t j = i - 1; j <= i; j++)
          emax = fmax(emax, 2.0 * fabs(at[j].l) +
                                (lpq ? 0.0
                                     : fabs(at[j].l) + fabs(at[j].lb) +
                                           fabs(at[j].lb + at[j].l)));
      }
    }
    double reach = k > 1 ? steps + 2.0 * emax : 0.0;
    if (k) {
      span = fmax(span, reach);
      kmax = k > kmax ? k : kmax;
    }
  }
  pld_free(at);
  m->curve.delta = pld_mech_finite_curve;
  m->curve.tails = pld_mech_finite_tails;
  m->curve.ctx = m;
  m->curve.loss_scale = fmax(0.5 * scale, 1e-3);
  /* The recursions above grow a relative error of at most ~3u per atom
   * plus u/2 times the loss span (the rounding of each step's argument),
   * and a mass exp(lp) is off by u |lp| relatively: booked on top of the
   * builtin 1e-11 when a long support (discrete Gaussian at sigma = 1e4:
   * 8e5 atoms) makes that larger. */
  m->curve.rel_err = fmax(PLD_BUILTIN_REL_ERR,
                          (8.0 * (double)kmax + span + 4.0 * fmin(lmax, 746.0) +
                           64.0) * DBL_EPSILON);
  return PLD_SUCCESS;
}

/* Number of atoms with loss > e (losses sorted descending). */
static size_t count_above(const double *L, size_t k, double e)
{
  size_t lo = 0, hi = k;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (L[mid] > e)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

int pld_mech_finite_curve(void *ctx, int dir, size_t n, const double *eps,
                          double *delta)
{
  const struct pld_mech *m = ctx;
  const struct finite *f = m->state;
  const double *L = f->loss[dir];
  size_t k = f->nfin[dir];
  const double *W = f->sq[dir], *V = f->sq[dir] + k + 1;
  for (size_t i = 0; i < n; i++) {
    double e = eps[i];
    if (e == INFINITY) {
      delta[i] = f->infmass[dir];
      continue;
    }
    size_t c = count_above(L, k, e);
    double v = f->infmass[dir];
    if (c)
      v += V[c] + W[c] * -expm1(e - L[c - 1]);
    delta[i] = v > 1.0 ? 1.0 : v;
  }
  return 0;
}

int pld_mech_finite_tails(void *ctx, int dir, size_t n, const double *eps,
                          double *p_gt, double *eq_gt)
{
  const struct pld_mech *m = ctx;
  const struct finite *f = m->state;
  const double *L = f->loss[dir];
  size_t k = f->nfin[dir];
  const double *W = f->sq[dir];
  for (size_t i = 0; i < n; i++) {
    double e = eps[i];
    if (e == INFINITY) {
      p_gt[i] = f->infmass[dir];
      eq_gt[i] = 0.0;
      continue;
    }
    size_t c = count_above(L, k, e);
    p_gt[i] = fmin(f->infmass[dir] + f->sp[dir][c], 1.0);
    /* e^eps Q[L > eps] = W[c] e^{eps - lambda_c}, with eps < lambda_c */
    eq_gt[i] = c ? W[c] * exp(e - L[c - 1]) : 0.0;
  }
  return 0;
}

/* A finite mechanism from LOG masses lp, lq (-inf for 0) and, where the
 * constructor knows them to 2u relative, the losses lpq = log(p_i/q_i)
 * (NULL: lp - lq). */
static int finite_new_log(size_t n, const double *lp, const double *lq,
                          const double *lpq, int label, pld_mech **out)
{
  struct pld_mech *m = pld_mech_new(&pld_mech_type_finite);
  if (!m)
    return PLD_ENOMEM;
  m->label = label;
  int st = pld_mech_finite_init(m, n, lp, lq, lpq);
  if (st) {
    pld_mech_free(m);
    return st;
  }
  /* a pair swapped into itself is symmetric */
  const struct finite *f = m->state;
  int sym = 1;
  if (f->nfin[0] != f->nfin[1] || f->infmass[0] != f->infmass[1])
    sym = 0;
  for (size_t i = 0; sym && i < f->nfin[0]; i++)
    if (f->loss[0][i] != f->loss[1][i] || f->sp[0][i + 1] != f->sp[1][i + 1])
      sym = 0;
  for (size_t i = 0; sym && i < 2 * (f->nfin[0] + 1); i++)
    if (f->sq[0][i] != f->sq[1][i])
      sym = 0;
  m->curve.symmetric = sym;
  *out = m;
  return PLD_SUCCESS;
}

/* log(p/q) for p, q > 0 to within 2u relative: p - q is exact where
 * q/2 <= p <= 2q (Sterbenz), and log1p of it costs at most 1.72u there
 * (u/2 from the division times x/((1+x) log1p x) <= 1.44, plus 1 ulp);
 * elsewhere |log(p/q)| >= log 2 and the ratio's rounding costs u/(2 log 2)
 * (or, where the ratio leaves the normal range, log p - log q is off by at
 * most u (|log p| + |log q|) <= 1.1u |log p - log q|). */
static double loss_of(double p, double q)
{
  if (p >= 0.5 * q && p <= 2.0 * q)
    return log1p((p - q) / q);
  double r = p / q;
  if (isnormal(r) && r < INFINITY)
    return log(r);
  return log(p) - log(q);
}

/* sum - 1 of non-negative doubles summing to about 1, to u/2 relative:
 * Neumaier's compensated sum s + c, then s - 1 is exact (Sterbenz). */
static double sum_minus_one(size_t n, const double *p)
{
  double s = 0.0, c = 0.0;
  for (size_t i = 0; i < n; i++) {
    double t = s + p[i];
    c += fabs(s) >= fabs(p[i]) ? (s - t) + p[i] : (p[i] - t) + s;
    s = t;
  }
  return (s - 1.0) + c;
}

/* A finite mechanism from linear masses; losses, if given, are the exact
 * ones (randomized response), else computed from p and q.  With norm, the
 * pair is the normalised one, p/sum(p) and q/sum(q): the builder relies on
 * H_x(P||Q) = 1 - x + x H_{1/x}(Q||P), true for probability measures only,
 * and a pair of doubles off by 5.6e-17 in its sum gave a spurious mass
 * 5.6e-17/Delta at loss 0 (5.6e-9 on a grid of 1e-8). */
static int finite_new(size_t n, const double *p, const double *q,
                      const double *loss, int norm, int label, pld_mech **out)
{
  double lsp = 0.0, lsq = 0.0;
  if (norm) {
    lsp = log1p(sum_minus_one(n, p));
    lsq = log1p(sum_minus_one(n, q));
  }
  double *lp = pld_malloc(n * sizeof(double)), *lq = pld_malloc(n * sizeof(double));
  double *lpq = pld_malloc(n * sizeof(double));
  int st = PLD_ENOMEM;
  if (lp && lq && lpq) {
    for (size_t i = 0; i < n; i++) {
      lp[i] = log(p[i]) - lsp; /* log(0) = -inf */
      lq[i] = log(q[i]) - lsq;
      /* the shift lsq - lsp is below 2e-9 and known to u relative */
      lpq[i] = loss ? loss[i]
                    : (p[i] > 0.0 && q[i] > 0.0 ? loss_of(p[i], q[i]) + (lsq - lsp)
                                                : 0.0);
    }
    st = finite_new_log(n, lp, lq, lpq, label, out);
  }
  pld_free(lp);
  pld_free(lq);
  pld_free(lpq);
  return st;
}

int pld_mech_finite(size_t n, const double *p, const double *q, pld_mech **out)
{
  pld_detail_clear();
  if (!out || !p || !q)
    return pld_fail(PLD_EINVAL, "%s is NULL", !out ? "out" : !p ? "p" : "q");
  if (n == 0 || n > ((size_t)1 << 26))
    return pld_fail(PLD_EINVAL, "n = %zu outcomes must be in [1, 2^26]", n);
  if (!pld_is_simplex(p, n, PLD_PROB_SUM_TOL, "masses p") ||
      !pld_is_simplex(q, n, PLD_PROB_SUM_TOL, "masses q"))
    return PLD_EINVAL;
  return finite_new(n, p, q, NULL, 1, 100, out);
}

int pld_mech_randomized_response(double eps0, int64_t k, pld_mech **out)
{
  pld_detail_clear();
  if (!out)
    return pld_fail(PLD_EINVAL, "out is NULL");
  if (!isfinite(eps0) || eps0 < 0.0 || eps0 > 700.0)
    return pld_fail(PLD_EINVAL, "epsilon0 = %g must be in [0, 700]", eps0);
  if (k < 2 || k > ((int64_t)1 << 53))
    return pld_fail(PLD_EINVAL, "k = %lld must be in [2, 2^53]", (long long)k);
  /* outcomes: the value under P, the value under Q, any of the other k-2 */
  double e = exp(eps0), z = e + (double)(k - 1);
  double p[3] = {e / z, 1.0 / z, (double)(k - 2) / z};
  double q[3] = {1.0 / z, e / z, (double)(k - 2) / z};
  double loss[3] = {eps0, -eps0, 0.0}; /* exactly */
  int st = finite_new(k == 2 ? 2 : 3, p, q, loss, 0, 101, out);
  if (!st) {
    (*out)->par[0] = eps0;
    (*out)->par[1] = (double)k;
    (*out)->curve.loss_lattice = eps0; /* losses are -eps0, 0, eps0 */
  }
  return st;
}

int pld_mech_discrete_laplace(double scale, int64_t s, pld_mech **out)
{
  pld_detail_clear();
  if (!out)
    return pld_fail(PLD_EINVAL, "out is NULL");
  if (!isfinite(scale) || !(scale > 0.0))
    return pld_fail(PLD_EINVAL, "scale = %g must be finite and > 0", scale);
  if (s < 1 || s > PLD_DISCRETE_MAX_SENSITIVITY)
    return pld_fail(PLD_EINVAL, "sensitivity = %lld must be in [1, %d]", (long long)s,
                    PLD_DISCRETE_MAX_SENSITIVITY);
  /* P(k) = (1-r)/(1+r) r^|k|, r = e^{-1/scale}; Q(k) = P(k - s).  The loss
   * (|k-s| - |k|)/scale is constant on k <= 0 and on k >= s, so the pair
   * {k <= 0}, 1..s-1, {k >= s} is an exact sufficient statistic.  In logs:
   * with s/scale beyond ~700 nats the far masses underflow. */
  double lr = -1.0 / scale, l1r = log1p(exp(lr));
  size_t n = (size_t)s + 1;
  double *p = pld_malloc(n * sizeof(double)), *q = pld_malloc(n * sizeof(double));
  if (!p || !q) {
    pld_free(p);
    pld_free(q);
    return PLD_ENOMEM;
  }
  double lc = log(-expm1(lr)) - l1r;
  p[0] = -l1r;
  q[0] = (double)s * lr - l1r;
  for (int64_t k = 1; k < s; k++) {
    p[k] = lc + (double)k * lr;
    q[k] = lc + (double)(s - k) * lr;
  }
  p[s] = (double)s * lr - l1r;
  q[s] = -l1r;
  /* the loss of outcome k is (s - 2k)/scale: one rounding (u/2) */
  double *lpq = pld_malloc(n * sizeof(double));
  int st = PLD_ENOMEM;
  if (lpq) {
    for (int64_t k = 0; k <= s; k++)
      lpq[k] = (double)(s - 2 * k) / scale;
    st = finite_new_log(n, p, q, lpq, 102, out);
  }
  pld_free(lpq);
  pld_free(p);
  pld_free(q);
  if (!st) {
    (*out)->par[0] = scale;
    (*out)->par[1] = (double)s;
    (*out)->curve.loss_lattice = 1.0 / scale; /* (|k-s| - |k|)/scale */
  }
  return st;
}

int pld_mech_discrete_gaussian(double sigma, int64_t s, pld_mech **out)
{
  pld_detail_clear();
  if (!out)
    return pld_fail(PLD_EINVAL, "out is NULL");
  if (!isfinite(sigma) || !(sigma > 0.0) || sigma > PLD_DISCRETE_GAUSSIAN_MAX_SIGMA)
    return pld_fail(PLD_EINVAL, "sigma = %g must be in (0, %g]", sigma,
                    PLD_DISCRETE_GAUSSIAN_MAX_SIGMA);
  if (s < 1 || s > PLD_DISCRETE_MAX_SENSITIVITY)
    return pld_fail(PLD_EINVAL, "sensitivity = %lld must be in [1, %d]", (long long)s,
                    PLD_DISCRETE_MAX_SENSITIVITY);
  /* Support truncated at 40 sigma on each side: the mass beyond is below
   * e^{-800}, under the smallest double. */
  int64_t K = (int64_t)ceil(40.0 * sigma) + 1;
  int64_t lo = -K, hi = K + s;
  size_t n = (size_t)(hi - lo + 1);
  double *p = pld_malloc(n * sizeof(double)), *q = pld_malloc(n * sizeof(double));
  if (!p || !q) {
    pld_free(p);
    pld_free(q);
    return PLD_ENOMEM;
  }
  /* Log masses, normalised over the kept support by a log-sum (exact
   * renormalisation, no underflow for the far atoms of a large shift). */
  double h = 1.0 / (2.0 * sigma * sigma), mp = -INFINITY, mq = -INFINITY;
  for (int64_t k = lo; k <= hi; k++) {
    double kp = (double)k, kq = (double)(k - s);
    p[k - lo] = -kp * kp * h;
    q[k - lo] = -kq * kq * h;
    mp = fmax(mp, p[k - lo]);
    mq = fmax(mq, q[k - lo]);
  }
  double sp = 0, sq = 0;
  for (size_t i = 0; i < n; i++) {
    sp += exp(p[i] - mp);
    sq += exp(q[i] - mq);
  }
  double lzp = mp + log(sp), lzq = mq + log(sq);
  for (size_t i = 0; i < n; i++) {
    p[i] -= lzp;
    q[i] -= lzq;
  }
  /* the loss of k is (s - 2k) s h, the integer exact (below 2^41), h to u:
   * 1.5u relative (the two normalisers agree exactly, the kept support
   * being mirror-symmetric under k -> s - k) */
  double *lpq = pld_malloc(n * sizeof(double));
  double h2 = 0.5 / (sigma * sigma);
  int st = PLD_ENOMEM;
  if (lpq) {
    for (int64_t k = lo; k <= hi; k++)
      lpq[k - lo] = (double)((s - 2 * k) * s) * h2;
    st = finite_new_log(n, p, q, lpq, 103, out);
  }
  pld_free(lpq);
  pld_free(p);
  pld_free(q);
  if (!st) {
    (*out)->par[0] = sigma;
    (*out)->par[1] = (double)s;
    /* (s^2 - 2ks)/(2 sigma^2) = (s - 2k) s/(2 sigma^2) */
    (*out)->curve.loss_lattice = (double)s / (2.0 * sigma * sigma);
  }
  return st;
}
