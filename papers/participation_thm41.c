/* pldkit: random client participation in FL, Theorem 4.1 of the paper
 * (eq. (6)/(7)), pldkit's certified lower limit of the worst case from
 * concrete datasets, and the quadrature of eqs. (27)-(28) that cross-checks
 * it.  Notation and citation as in papers/participation.c; derivations in
 * docs/participation.md.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include <pldkit/participation.h>

#include "alloc.h"
#include "mech_type.h"
#include "numerics.h"
#include "detail.h"
#include "quad.h"
#include "participation_internal.h"

/* ------------------------------------------------------------------------ */
/* A signed mixture of unit-variance Gaussians sum_k w_k N(m_k, 1), stored   */
/* as (mean, sign, log|w_k|) so that its sign can be taken at any u without  */
/* under/overflow: log(positive part) - log(negative part).                   */

typedef struct comp {
  double m;  /* mean, units of sigma */
  double lw; /* log |w| */
  double lmag; /* log of the unnetted magnitude (for error bounds) */
  int sg;    /* +1 / -1 */
} comp;

typedef struct mix {
  comp *c;
  size_t n;
  double *scratch; /* 2 n */
  double win;      /* > 0: only components with |u - m| < win are used for
                      the sign (c sorted by m); 0: all (exact) */
} mix;

/* first index k in [0, n) with c[k].m >= x (c sorted by m) */
static size_t comp_lower(const comp *c, size_t n, double x)
{
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (c[mid].m < x)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* log P(u) - log N(u) (+inf if only positive parts, -inf if only negative).
 * The common factor e^{-(u - m0)^2/2} is divided out, m0 the mean nearest
 * to u, using (u-m)^2 - (u-m0)^2 = (m0 - m)((u - m) + (u - m0)): a product
 * of two well-conditioned factors, so the exponents stay accurate both for
 * u far beyond every mean (large sigma) and for widely spaced means (small
 * sigma). */
static double mix_lratio(double u, void *ctx)
{
  const mix *M = ctx;
  size_t np = 0, nn = 0, k0 = 0, k1 = M->n;
  double *sp = M->scratch, *sn = M->scratch + M->n;
  double m0 = 0.0, best = INFINITY;
  if (M->win > 0.0) { /* an approximate sign: see instance_lower */
    k0 = comp_lower(M->c, M->n, u - M->win);
    k1 = comp_lower(M->c, M->n, u + M->win);
  }
  for (size_t k = k0; k < k1; k++)
    if (fabs(u - M->c[k].m) < best) {
      best = fabs(u - M->c[k].m);
      m0 = M->c[k].m;
    }
  for (size_t k = k0; k < k1; k++) {
    double m = M->c[k].m;
    double v = M->c[k].lw - 0.5 * (m0 - m) * ((u - m) + (u - m0));
    if (M->c[k].sg > 0)
      sp[np++] = v;
    else
      sn[nn++] = v;
  }
  double lp = part_lse_arr(sp, np), ln = part_lse_arr(sn, nn);
  if (lp == -INFINITY && ln == -INFINITY)
    return 0.0;
  return lp - ln;
}

static int mix_alloc(size_t n, mix *M)
{
  size_t b1, b2;
  M->c = NULL;
  M->scratch = NULL;
  M->n = 0;
  M->win = 0.0;
  if (pld_mul_size(n, sizeof(comp), &b1) || pld_mul_size(2 * n, sizeof(double), &b2))
    return pld_fail(PLD_ERANGE,
                    "a mixture of %zu components overflows size_t bytes", n);
  M->c = pld_malloc(b1 ? b1 : 1);
  M->scratch = pld_malloc(b2 ? b2 : 1);
  if (!M->c || !M->scratch) {
    pld_free(M->c);
    pld_free(M->scratch);
    M->c = NULL;
    M->scratch = NULL;
    return PLD_ENOMEM;
  }
  return PLD_SUCCESS;
}

static void mix_free(mix *M)
{
  pld_free(M->c);
  pld_free(M->scratch);
  M->c = NULL;
  M->scratch = NULL;
}

/* ------------------------------------------------------------------------ */
/* Theorem 4.1.                                                              */

/* Constants of the theorem for a target eps (alpha' = e^eps'):
 *   alpha' c1bar = (x - 1)(1 - p)/(p q),  alpha' c2bar = 1 + (x - 1)/q,
 * which follow from e^eps' - e^eps = (x - 1)(1 - p q)/(p q) (eq. 5). */
typedef struct thm_const {
  double lem1, eps_prime, lac1, lac2, c1bar, c2bar;
} thm_const;

static void thm_constants(const pld_participation_params *par, double eps,
                          thm_const *k)
{
  double lp = log(par->p), lq = log(par->q);
  k->lem1 = pld_log_expm1(eps);
  k->eps_prime = pld_logaddexp(0.0, k->lem1 - lp - lq);
  k->lac2 = pld_logaddexp(0.0, k->lem1 - lq);
  k->lac1 = k->lem1 + log1p(-par->p) - lp - lq;
  /* the paper's own c1bar, c2bar (beta = e^{eps - eps'}) for the record */
  double beta = exp(eps - k->eps_prime), omb = -expm1(eps - k->eps_prime);
  double pq1 = -expm1(lp + lq); /* 1 - p q */
  if (par->p == 1.0) { /* c1 = 0, c2 = (1-q)/(1-q) = 1 (its limit at q = 1) */
    k->c1bar = 0.0;
    k->c2bar = 1.0;
  } else {
    k->c1bar = omb * (1.0 - par->p) / pq1;
    k->c2bar = par->p * (1.0 - par->q) / pq1 * omb + beta;
  }
}

/* The exponential polynomial of eq. (7) as a netted mixture:
 * a_j = b_{j-1} - alpha' c2bar b_j - [j = 0] alpha' c1bar at mean j c. */
static int thm_mixture(const binwin *w, const thm_const *k, double c, mix *M)
{
  size_t n = (size_t)(w->hi - w->lo) + 3;
  int st = mix_alloc(n, M);
  if (st)
    return st;
  size_t nc = 0;
  if (w->lo > 0 && k->lac1 > -INFINITY) /* N(0) term outside the window */
    M->c[nc++] = (comp){0.0, k->lac1, k->lac1, -1};
  /* j runs to hi + 1 only when hi = d: if the window was cut on the right,
   * b_{hi+1} is missing from a_{hi+1}, which would turn it into a spurious
   * positive term; the dropped b_hi N((hi+1)C) is below e^-745 of the mode
   * and booked in delta_err. */
  int64_t jmax = w->hi == w->d ? w->hi + 1 : w->hi;
  for (int64_t j = w->lo; j <= jmax; j++) {
    double pos = (j - 1 >= w->lo) ? w->lw[j - 1 - w->lo] : -INFINITY;
    double neg = (j <= w->hi) ? k->lac2 + w->lw[j - w->lo] : -INFINITY;
    if (j == 0)
      neg = pld_logaddexp(neg, k->lac1);
    if (pos == neg)
      continue;
    comp cc;
    cc.m = (double)j * c;
    cc.lmag = pld_logaddexp(pos, neg);
    cc.sg = pos > neg ? 1 : -1;
    cc.lw = pos > neg ? pld_logsubexp(pos, neg) : pld_logsubexp(neg, pos);
    M->c[nc++] = cc;
  }
  M->n = nc;
  return PLD_SUCCESS;
}

/* eq. (6)-(7) without the soundness checks. */
int part_thm41_core(const pld_participation_params *par, double eps,
                      pld_participation_thm41 *r)
{
  thm_const k;
  thm_constants(par, eps, &k);
  double c = par->clip / par->sigma;
  binwin w;
  int st = part_binwin_make(par->d, par->q, CUT_THM, &w);
  if (st)
    return st;
  mix M;
  st = thm_mixture(&w, &k, c, &M);
  pld_free(w.lw);
  if (st)
    return st;

  /* The a_j are negative below some j0 and positive from j0 on (Descartes:
   * one root).  Start the bracket between the last negative and the first
   * positive mean and widen it geometrically; lratio is strictly increasing
   * in u, so the widening stops. */
  double m_neg = -INFINITY, m_pos = INFINITY;
  for (size_t i = 0; i < M.n; i++) {
    if (M.c[i].sg < 0 && M.c[i].m > m_neg)
      m_neg = M.c[i].m;
    if (M.c[i].sg > 0 && M.c[i].m < m_pos)
      m_pos = M.c[i].m;
  }
  double ustar, lsp = -INFINITY, lsn = -INFINITY, lsm = -INFINITY;
  if (m_pos == INFINITY) { /* every positive term underflowed: delta = 0 */
    ustar = INFINITY;
  } else {
    double u0 = m_neg > -INFINITY ? 0.5 * (m_neg + m_pos) : m_pos;
    double step = fmax(1.0, c), lo = u0, hi = u0;
    int it = 0;
    while (mix_lratio(lo, &M) >= 0.0 && it++ < 2000) {
      lo -= step;
      step *= 2.0;
    }
    step = fmax(1.0, c);
    while (mix_lratio(hi, &M) <= 0.0 && it++ < 4000) {
      hi += step;
      step *= 2.0;
    }
    double a, b;
    if (it >= 4000 || !isfinite(lo) || !isfinite(hi) ||
        part_root_refine(mix_lratio, &M, lo, hi, 1e-15, &a, &b)) {
      mix_free(&M);
      return PLD_EMAXITER;
    }
    ustar = 0.5 * (a + b);
  }
  /* delta / (p q) = sum_j a_j Q(u* - j c), split by sign in log space */
  {
    double *sp = M.scratch, *sn = M.scratch + M.n;
    size_t np = 0, nn = 0;
    double *sm = pld_malloc(M.n ? M.n * sizeof(double) : 1);
    if (!sm) {
      mix_free(&M);
      return PLD_ENOMEM;
    }
    for (size_t i = 0; i < M.n; i++) {
      double lQ = ustar == INFINITY ? -INFINITY
                                    : pld_log_ndtr(M.c[i].m - ustar);
      sm[i] = M.c[i].lmag + lQ;
      if (M.c[i].sg > 0)
        sp[np++] = M.c[i].lw + lQ;
      else
        sn[nn++] = M.c[i].lw + lQ;
    }
    lsp = part_lse_arr(sp, np);
    lsn = part_lse_arr(sn, nn);
    lsm = part_lse_arr(sm, M.n);
    pld_free(sm);
  }
  size_t nterms = M.n;
  mix_free(&M);
  double lpq = log(par->p) + log(par->q);
  double delta = lsp > lsn ? exp(lpq + lsp + pld_log1mexp(lsp - lsn)) : 0.0;
  /* error: unnetted magnitudes x (summation + log-weight recurrence error),
   * plus the dropped binomial tail (below e^-745 of the mode, each). */
  double err = exp(lpq + lsm) * (1e-13 + 8.0 * DBL_EPSILON * (double)nterms) +
               exp(lpq + k.lac2) * ((double)par->d + 2.0) * exp(-CUT_THM);
  r->epsilon_prime = k.eps_prime;
  r->c1bar = k.c1bar;
  r->c2bar = k.c2bar;
  r->z_star = ustar * par->sigma;
  r->delta = delta > 1.0 ? 1.0 : delta;
  r->delta_err = err;
  return PLD_SUCCESS;
}

/* ------------------------------------------------------------------------ */
/* Certified lower limit from concrete datasets.                             */

/* One aligned instance: client 1's other records at gradient s C e, x' at
 * C e, everything else 0.  xi (with x') and xi' (without) are eqs. (14),
 * (15):  xi  = (1-p) N(0) + p sum_i b_i [(1-q) N(i s c) + q N(i s c + c)],
 *        xi' = (1-p) N(0) + p sum_i b_i N(i s c).
 * f = xi - x xi' (PQ) or xi' - x xi (QP).  Returns a certified lower bound
 * of int f_+ = H_x. */
typedef struct inst_ws {
  mix M;
  double *u;   /* evaluation points */
  double *wl;  /* linear signed weights */
  size_t ucap;
} inst_ws;

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static int cmp_comp(const void *a, const void *b)
{
  return cmp_double(&((const comp *)a)->m, &((const comp *)b)->m);
}

static double instance_lower(const pld_participation_params *par,
                             const binwin *w, double eps, double s, int dir,
                             inst_ws *ws)
{
  const double c = par->clip / par->sigma, p = par->p, q = par->q;
  const double em1 = expm1(eps), x = exp(eps);
  const double lp = log(p);
  mix *M = &ws->M;
  size_t nc = 0;
  /* the (1-p) N(0) parts: (1-p)(1 - x) in both directions */
  if (p < 1.0 && em1 > 0.0)
    M->c[nc++] = (comp){0.0, log1p(-p) + log(em1), 0.0, -1};
  for (int64_t i = w->lo; i <= w->hi; i++) {
    double lb = lp + w->lw[i - w->lo], mA = (double)i * s * c, mB = mA + c;
    double wa, lwb;
    int sb;
    if (dir == PLD_DIR_PQ) {
      wa = -(q + em1); /* (1-q) - x */
      lwb = lb + log(q);
      sb = 1;
    } else {
      wa = q - (1.0 - q) * em1; /* 1 - x (1-q) */
      lwb = lb + log(q) + eps;
      sb = -1;
    }
    if (wa != 0.0)
      M->c[nc++] = (comp){mA, lb + log(fabs(wa)), 0.0, wa > 0 ? 1 : -1};
    M->c[nc++] = (comp){mB, lwb, 0.0, sb};
  }
  M->n = nc;
  qsort(M->c, nc, sizeof(comp), cmp_comp);
  for (size_t k = 0; k < nc; k++)
    ws->wl[k] = M->c[k].sg * exp(M->c[k].lw);
  /* Dropped binomial terms (outside the window, each below e^-CUT_LIMIT
   * times the mode's): their parts are missing from f; bound their whole
   * weight (< (d + 1) e^-CUT_LIMIT) times the largest coefficient. */
  double book = 2.0 * x * p * ((double)par->d + 1.0) * exp(-CUT_LIMIT);

  /* The set A.  Any A gives a valid lower bound, so the sign used to choose
   * it may be approximate: only components within 30 (sigma units) of u are
   * consulted, on a step-1/2 grid over [m - 10, m + 10] around every mean,
   * crossings refined by bracketing. */
  M->win = 30.0;
  size_t nu = 0;
  double a = -INFINITY, b = -INFINITY;
  for (size_t k = 0; k <= nc; k++) {
    double m = k < nc ? M->c[k].m : INFINITY;
    if (k < nc && m - 10.0 <= b) {
      b = m + 10.0;
      continue;
    }
    if (b > a)
      for (double t = a; t <= b + 1e-9 && nu < ws->ucap; t += 0.5)
        ws->u[nu++] = t;
    a = m - 10.0;
    b = m + 10.0;
  }

  /* int_A f = sum_k w_k P_k(A), exactly up to rounding.  A component whose
   * mean is farther than 40 from an interval contributes less than
   * |w_k| Q(40) < |w_k| 1e-300 there; it is skipped and booked. */
  double val = 0.0, err = 0.0, absval = 0.0, wsum = 0.0;
  for (size_t j = 0; j < nc; j++)
    wsum += fabs(ws->wl[j]);
  size_t k = 0;
  while (k < nu) {
    if (!(mix_lratio(ws->u[k], M) > 0.0)) {
      k++;
      continue;
    }
    size_t k2 = k;
    while (k2 + 1 < nu && mix_lratio(ws->u[k2 + 1], M) > 0.0)
      k2++;
    double left = -INFINITY, right = INFINITY, r0, r1;
    if (k > 0) {
      left = ws->u[k];
      if (!part_root_refine(mix_lratio, M, ws->u[k - 1], ws->u[k], 1e-12, &r0,
                       &r1))
        left = r1; /* inside the positive side */
    }
    if (k2 + 1 < nu) {
      right = ws->u[k2];
      if (!part_root_refine(mix_lratio, M, ws->u[k2], ws->u[k2 + 1], 1e-12, &r0,
                       &r1))
        right = r0;
    }
    if (left < right) {
      size_t j0 = comp_lower(M->c, nc, left - 40.0);
      size_t j1 = comp_lower(M->c, nc, right + 40.0);
      for (size_t j = j0; j < j1; j++) {
        double e1, ms = part_normal_mass(left - M->c[j].m, right - M->c[j].m, &e1);
        val += ws->wl[j] * ms;
        absval += fabs(ws->wl[j] * ms);
        err += fabs(ws->wl[j]) * e1;
      }
      err += wsum * 1e-300;
    }
    k = k2 + 1;
  }
  M->win = 0.0;
  err += absval * 4.0 * DBL_EPSILON * (double)(nc + 2) + book + DBL_MIN;
  double lower = val - err;
  return lower > 0.0 ? lower : 0.0;
}

static void inst_ws_free(inst_ws *ws)
{
  mix_free(&ws->M);
  pld_free(ws->u);
  pld_free(ws->wl);
  ws->u = ws->wl = NULL;
}

static int inst_ws_alloc(const binwin *w, inst_ws *ws)
{
  size_t n = 2 * (size_t)(w->hi - w->lo + 1) + 1, nb;
  ws->u = ws->wl = NULL;
  int st = mix_alloc(n, &ws->M);
  if (st)
    return st;
  ws->ucap = 41 * n + 64;
  if (pld_mul_size(ws->ucap, sizeof(double), &nb)) {
    inst_ws_free(ws);
    return PLD_ERANGE;
  }
  ws->u = pld_malloc(nb);
  ws->wl = pld_malloc(n * sizeof(double));
  if (!ws->u || !ws->wl) {
    inst_ws_free(ws);
    return PLD_ENOMEM;
  }
  return PLD_SUCCESS;
}

/* The binomial window of the one instance (CUT_LIMIT) and a workspace on
 * it, for the one-instance value and the lower limit; inst_close frees
 * both. */
static int inst_open(const pld_participation_params *par, binwin *w,
                     inst_ws *ws)
{
  int st = part_binwin_make(par->d, par->q, CUT_LIMIT, w);
  if (st)
    return st;
  if ((st = inst_ws_alloc(w, ws)))
    pld_free(w->lw);
  return st;
}

static void inst_close(binwin *w, inst_ws *ws)
{
  inst_ws_free(ws);
  pld_free(w->lw);
}

int pld_participation_instance_delta(const pld_participation_params *par,
                                     double epsilon, double shift,
                                     int direction, double *delta)
{
  pld_detail_clear();
  if (!delta)
    return pld_fail(PLD_EINVAL, "delta (the output) must not be NULL");
  if (!part_eps_ok(epsilon))
    return pld_fail(PLD_EINVAL, "epsilon = %g must be finite and >= 0",
                    epsilon);
  if (!isfinite(shift) || !(fabs(shift) <= 1.0))
    return pld_fail(PLD_EINVAL, "shift = %g must be in [-1, 1]", shift);
  if (direction != PLD_DIR_PQ && direction != PLD_DIR_QP)
    return pld_fail(PLD_EINVAL,
                    "direction = %d must be PLD_DIR_PQ (%d) or PLD_DIR_QP (%d)",
                    direction, PLD_DIR_PQ, PLD_DIR_QP);
  int st = part_check_params(par, 1);
  if (st)
    return st;
  binwin w;
  inst_ws ws;
  if ((st = inst_open(par, &w, &ws)))
    return st;
  *delta = instance_lower(par, &w, epsilon, shift, direction, &ws);
  inst_close(&w, &ws);
  return PLD_SUCCESS;
}

int pld_participation_lower_limit(const pld_participation_params *par,
                                  double epsilon, pld_participation_limit *out)
{
  pld_detail_clear();
  if (!out)
    return pld_fail(PLD_EINVAL, "out must not be NULL");
  if (!part_eps_ok(epsilon))
    return pld_fail(PLD_EINVAL, "epsilon = %g must be finite and >= 0",
                    epsilon);
  int st = part_check_params(par, 1);
  if (st)
    return st;
  binwin w;
  inst_ws ws;
  if ((st = inst_open(par, &w, &ws)))
    return st;
  pld_participation_limit r;
  r.cs_delta = part_cf_value(par, PLD_PARTICIPATION_CS, epsilon) * (1.0 - CF_REL);
  r.delta = r.cs_delta;
  r.shift = 0.0;
  r.direction = PLD_DIR_PQ;
  for (int dir = 0; dir < 2; dir++)
    for (int i = 0; i <= 40; i++) {
      double s = i == 20 ? 0.0 : -1.0 + 0.05 * i;
      if (i == 20 && dir == PLD_DIR_PQ)
        continue; /* the CS instance: closed form above */
      pld_progress((double)(41 * dir + i) / 82.0,
                   "participation: certified lower limit (82 datasets)");
      double v = instance_lower(par, &w, epsilon, s, dir, &ws);
      if (v > r.delta) {
        r.delta = v;
        r.shift = s;
        r.direction = dir;
      }
    }
  inst_close(&w, &ws);
  *out = r;
  return PLD_SUCCESS;
}

int pld_participation_thm41_delta(const pld_participation_params *par,
                                  double epsilon,
                                  pld_participation_thm41 *out)
{
  pld_detail_clear();
  if (!out)
    return pld_fail(PLD_EINVAL, "out must not be NULL");
  if (!part_eps_ok(epsilon))
    return pld_fail(PLD_EINVAL, "epsilon = %g must be finite and >= 0",
                    epsilon);
  int st = part_check_params(par, 1);
  if (st)
    return st;
  pld_participation_thm41 r;
  st = part_thm41_core(par, epsilon, &r);
  if (st)
    return st;
  pld_participation_limit lim;
  st = pld_participation_lower_limit(par, epsilon, &lim);
  if (st)
    return st;
  r.cs_delta = part_cf_value(par, PLD_PARTICIPATION_CS, epsilon);
  r.lower_limit = lim.delta;
  r.refuting_shift = lim.shift;
  r.refuting_direction = lim.direction;
  r.below_cs = r.delta < r.cs_delta;
  r.certified = !r.below_cs && !(r.delta + r.delta_err < lim.delta);
  *out = r;
  return PLD_SUCCESS;
}

int pld_participation_thm41_value(const pld_participation_params *par,
                                  double epsilon, pld_bound *out)
{
  pld_detail_clear();
  if (!out)
    return pld_fail(PLD_EINVAL, "out is NULL");
  if (!part_eps_ok(epsilon))
    return pld_fail(PLD_EINVAL, "epsilon = %g must be finite and >= 0", epsilon);
  int st = part_check_params(par, 1);
  if (st)
    return st;
  pld_participation_thm41 r;
  if ((st = part_thm41_core(par, epsilon, &r)))
    return st;
  out->lower = fmax(0.0, r.delta - r.delta_err);
  out->upper = fmin(1.0, r.delta + r.delta_err);
  return PLD_SUCCESS;
}

/* ------------------------------------------------------------------------ */
/* Quadrature of eq. (27)-(28).                                              */

typedef struct quad_ctx {
  size_t n;
  const double *m, *w; /* linear signed weights, means (units of sigma) */
} quad_ctx;

/* The integrand of eq. (28) in units of sigma, times sqrt(2 pi); *mag gets
 * sum_k |w_k| phi(u - m_k) (the scale of its rounding error). */
static double quad_eval(double u, const quad_ctx *Q, double *mag)
{
  double s = 0.0, a = 0.0;
  for (size_t k = 0; k < Q->n; k++) {
    double t = u - Q->m[k];
    if (fabs(t) < 40.0) {
      double v = Q->w[k] * exp(-0.5 * t * t);
      s += v;
      a += fabs(v);
    }
  }
  *mag = a;
  return s;
}

static double quad_f(double u, void *vctx)
{
  double mag;
  return quad_eval(u, vctx, &mag);
}

/* f for the wrapper, with its value error: n terms, each rounded a few
 * times, against the scale sum_k |w_k| phi(u - m_k) */
static double quad_fe(double u, void *vctx, double *err)
{
  const quad_ctx *Q = vctx;
  double mag;
  double v = quad_eval(u, Q, &mag);
  *err = mag * 4.0 * DBL_EPSILON * (double)(Q->n + 2);
  return v;
}

/* int of f_+ over [a, b], on which f has one sign (the cells are split at
 * the sign changes): the wrapper's value and booked error, or 0 where f is
 * not positive.  Tolerance 1e-13 relative, or a quarter of the values'
 * rounding noise over the piece (CQUAD cannot resolve below it). */
static int quad_piece(pld_quad_ws *ws, const quad_ctx *Q, double a, double b,
                      double *val, double *err)
{
  double e, f = quad_fe(0.5 * (a + b), (void *)Q, &e);
  if (!(f > 0.0)) return PLD_SUCCESS;
  pld_quad_result r;
  int st = pld_quad(ws, quad_fe, (void *)Q, a, b, 0.25 * e * (b - a), 1e-13,
                    &r);
  if (st) return st;
  *val += r.val;
  *err += r.err;
  return PLD_SUCCESS;
}

int pld_participation_thm41_quadrature(const pld_participation_params *par,
                                       double epsilon, double *delta,
                                       double *abserr)
{
  pld_detail_clear();
  if (!delta || !abserr)
    return pld_fail(PLD_EINVAL, "delta and abserr (the outputs) must not be NULL");
  if (!part_eps_ok(epsilon))
    return pld_fail(PLD_EINVAL, "epsilon = %g must be finite and >= 0",
                    epsilon);
  int st = part_check_params(par, 1);
  if (st)
    return st;
  thm_const k;
  thm_constants(par, epsilon, &k);
  double c = par->clip / par->sigma;
  binwin w;
  st = part_binwin_make(par->d, par->q, CUT_QUAD, &w);
  if (st)
    return st;
  /* eq. (28) literally: b_i at (i+1)c, -alpha' c2bar b_i at i c,
   * -alpha' c1bar at 0 (not netted: a different route from eq. 6) */
  size_t nw = (size_t)(w.hi - w.lo + 1), n = 2 * nw + 1;
  double *m = pld_malloc(n * sizeof(double)), *wt = pld_malloc(n * sizeof(double));
  if (!m || !wt) {
    st = PLD_ENOMEM;
    goto done;
  }
  size_t nc = 0;
  double ac1 = exp(k.lac1), ac2 = exp(k.lac2);
  if (!isfinite(ac1) || !isfinite(ac2)) {
    st = PLD_ERANGE;
    goto done;
  }
  if (ac1 > 0.0) {
    m[nc] = 0.0;
    wt[nc++] = -ac1;
  }
  for (int64_t i = w.lo; i <= w.hi; i++) {
    double b = exp(w.lw[i - w.lo]);
    m[nc] = (double)(i + 1) * c;
    wt[nc++] = b;
    m[nc] = (double)i * c;
    wt[nc++] = -ac2 * b;
  }
  quad_ctx Q = {nc, m, wt};
  /* cells of width 1/2 on [min mean - 20, max mean + 20]; cells farther
   * than 20 from every mean are skipped (density < e^-200 there) */
  double lo = INFINITY, hi = -INFINITY;
  for (size_t i = 0; i < nc; i++) {
    lo = fmin(lo, m[i]);
    hi = fmax(hi, m[i]);
  }
  lo -= 20.0;
  hi += 20.0;
  double *sorted = pld_malloc(nc * sizeof(double));
  if (!sorted) {
    st = PLD_ENOMEM;
    goto done;
  }
  for (size_t i = 0; i < nc; i++)
    sorted[i] = m[i];
  qsort(sorted, nc, sizeof(double), cmp_double);
  pld_quad_ws *qws = pld_quad_ws_alloc(100);
  if (!qws) {
    pld_free(sorted);
    st = PLD_ENOMEM;
    goto done;
  }
  double val = 0.0, qerr = 0.0;
  size_t idx = 0;
  for (double a = lo; a < hi && st == PLD_SUCCESS; a += 0.5) {
    double b = a + 0.5;
    while (idx < nc && sorted[idx] < a - 20.0)
      idx++;
    if (idx >= nc || sorted[idx] > b + 20.0)
      continue; /* far from every component */
    double fa = quad_f(a, &Q), fb = quad_f(b, &Q);
    double cut = NAN, r0, r1;
    if ((fa > 0.0) != (fb > 0.0) &&
        !part_root_refine(quad_f, &Q, a, b, 1e-15, &r0, &r1))
      cut = 0.5 * (r0 + r1);
    if (isnan(cut)) {
      st = quad_piece(qws, &Q, a, b, &val, &qerr);
    } else {
      st = quad_piece(qws, &Q, a, cut, &val, &qerr);
      if (st == PLD_SUCCESS)
        st = quad_piece(qws, &Q, cut, b, &val, &qerr);
    }
  }
  pld_quad_ws_free(qws);
  if (st) {
    pld_free(sorted);
    goto done;
  }
  pld_free(sorted);
  {
    const double norm = exp(-PLD_LOG_SQRT_2PI); /* 1/sqrt(2 pi) */
    double pq = par->p * par->q;
    double dropped = (1.0 + ac2) * ((double)par->d + 1.0) * exp(-CUT_QUAD);
    *delta = pq * norm * val;
    *abserr = pq * (norm * qerr + dropped);
  }
done:
  pld_free(m);
  pld_free(wt);
  pld_free(w.lw);
  return st;
}

