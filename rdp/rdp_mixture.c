/* pldkit RDP backend: Renyi divergences of one-dimensional Gaussian
 * mixtures, both directions ("DP model merging" paper, Thm 6.2 and the
 * mean-estimation RS pair of Sec. 4.1).
 *
 * Identity used for LC (Thm 6.2, eq. 9).  Expanding (sum_J rho_J
 * e^{Z D_J - D_J^2/2})^alpha multinomially for integer alpha and taking
 * E_{Z~N(0,1)} of each term with E[e^{mZ}] = e^{m^2/2}, m = sum_J gamma_J D_J,
 * gives exactly sum_gamma alpha!/prod gamma_J! prod rho_J^gamma_J B(gamma),
 * B(gamma) = exp((m^2 - sum gamma_J D_J^2)/2): eq. (9)'s sum.  The left side
 * is int p^alpha q^{1-alpha} for P = sum rho_J N(D_J, 1), Q = N(0, 1), i.e.
 * e^{(alpha-1) D_alpha(P||Q)}, a 1-D integral defined for every real
 * alpha > 1.  (tests/test_merge.c checks this against brute-force
 * enumeration of eq. 9.)
 *
 * Quadrature.  For A = sum a_k N(m_k, s_k^2) (numerator), B = sum b_j
 * N(n_j, t_j^2) (denominator), I = int A^alpha B^{1-alpha}.  The integrand
 * is exp(g), g = alpha log A + (1-alpha) log B, evaluated in log-sum-exp.
 *  1. Window [lo, hi]: covers every mean and every "tilted peak" x* of
 *     a_k-component against b_j-component, +-12 widths, then widened (up to
 *     40 doublings) until the rigorous tail bound below is <= 1e-15 of the
 *     computed integral.
 *  2. Tail bound (proven): by Jensen (alpha > 1, sum a = 1) A^alpha <=
 *     sum_k a_k phi_k^alpha, and B >= b_j phi_j for the widest denominator
 *     component j, so the integrand is <= sum_k a_k b_j^{1-alpha}
 *     phi_k^alpha phi_j^{1-alpha}, each a Gaussian function with precision
 *     P_k = alpha/s_k^2 - (alpha-1)/t_j^2 > 0 whose tails are closed-form
 *     (pld_quad_log_gauss_tails_up: GSL's log erfc with its error booked).
 *     If alpha / s_max^2 <= (alpha-1)/t_max^2 the integral is infinite and
 *     the value is +inf.  The bound is doubled (log 2 added) to cover the
 *     rounding of its own evaluation.
 *  3. Window: coarse cells of width H = sqrt(40) width; with the curvature
 *     bound g'' >= -kappa = -1/width^2 (step 4), g exceeds the larger of its
 *     values at the ends of a cell by at most kappa H^2/8 = 5; a cell whose
 *     ends are both below (coarse max - 65) is skipped and booked as
 *     H e^{coarse max - 60}, and e^{coarse max + 5} is the reference of the
 *     exponentials.
 *  4. Each remaining cell by GSL's CQUAD through the core wrapper
 *     (src/quad.h), which books PLD_QUAD_SAFETY x its error estimate, the
 *     rounding of its sums and the integrand's value errors: g is a sum of
 *     O(#components) terms of magnitude at most M = alpha (|log A| + |log
 *     B| + max_k (x-m_k)^2/(2 s_k^2) + ...) + 1, booked as 32 u M relative
 *     per value (exp turns an absolute error of g into a relative one).
 *     The tolerance is 1e-14 relative or a quarter of that per-value bound,
 *     whichever is larger (CQUAD cannot resolve below the noise).  CQUAD's
 *     estimate is an estimate, NOT a rigorous bound (as the trapezoid
 *     rule's |T_h - T_2h| it replaced was), hence the stated factor.  The
 *     curvature bound kappa = 1/width^2, width = s/sqrt(1 + (alpha - 1)
 *     (spread_B/(2s))^2), is proven for a common sd (convexity of
 *     log-sum-exp); for unequal sds width = min s / sqrt(2 alpha) is a
 *     heuristic.
 *     (Until this change: a trapezoid rule in log space with compensated
 *     sums; tests/test_quad.c pins its values and checks the new ones
 *     against it and against long-double references.)
 *  The value log(I_upper)/(alpha - 1) is rounded upward and clamped at 0
 *  (D_alpha >= 0 is exact). */
#include <float.h>
#include <math.h>
#include <string.h>

#include <pldkit/rdp.h>

#include "alloc.h"
#include "numerics.h"
#include "detail.h"
#include "quad.h"

#define MAX_COMP 4096
#define MAX_POINTS ((size_t)1 << 26)

/* One side of the pair, only components of positive weight. */
typedef struct side {
  size_t n;
  const double *w, *m, *s; /* weights, means, sds */
  double *lc;              /* log w - log s - log sqrt(2 pi) */
} side;

/* log density of a side at x, and max_k (x - m_k)^2/(2 s_k^2). */
static double side_log(const side *S, double x, double *maxarg)
{
  double mx = -INFINITY, ma = 0.0;
  for (size_t k = 0; k < S->n; k++) {
    double z = (x - S->m[k]) / S->s[k];
    double a = 0.5 * z * z;
    double v = S->lc[k] - a;
    if (a > ma) ma = a;
    if (v > mx) mx = v;
  }
  double sum = 0.0;
  for (size_t k = 0; k < S->n; k++) {
    double z = (x - S->m[k]) / S->s[k];
    sum += exp(S->lc[k] - 0.5 * z * z - mx);
  }
  if (maxarg) *maxarg = ma;
  return mx + log(sum);
}

/* Log of the rigorous bound on int_{x > hi} + int_{x < lo} of the
 * integrand (step 2 above); the denominator component j is given. */
static double tail_log(const side *A, const side *B, size_t j, double alpha,
                       double lo, double hi)
{
  double tj = B->s[j], nj = B->m[j];
  double acc = -INFINITY;
  for (size_t k = 0; k < A->n; k++) {
    double sk = A->s[k], mk = A->m[k];
    double P = alpha / (sk * sk) - (alpha - 1.0) / (tj * tj);
    if (!(P > 0.0)) return INFINITY;
    double L = alpha * mk / (sk * sk) - (alpha - 1.0) * nj / (tj * tj);
    double K0 = -alpha * mk * mk / (2.0 * sk * sk) +
                (alpha - 1.0) * nj * nj / (2.0 * tj * tj) - alpha * log(sk) +
                (alpha - 1.0) * log(tj) - PLD_LOG_SQRT_2PI;
    double xs = L / P;
    double top = K0 + L * L / (2.0 * P);
    /* log of int outside [lo, hi] of exp(-P (x - xs)^2 / 2), upper */
    double lt = pld_quad_log_gauss_tails_up(P, xs, lo, hi);
    double term = log(A->w[k]) + (1.0 - alpha) * log(B->w[j]) + top + lt;
    acc = pld_logaddexp(acc, term);
  }
  /* rounding of the above (magnitudes up to |top|): pad generously */
  return acc + PLD_LN2;
}

/* The integrand exp(g - ref) of one cell for CQUAD, with its value error:
 * g is a sum of O(#components) terms of magnitude at most M = alpha (|log
 * A| + |log B| + max_k (x-m_k)^2/(2 s_k^2) + ...) + |ref| + 1, each exp,
 * log and sum rounding once, so g is off by at most 32 u M (generously)
 * and exp(g - ref) by that much relative. */
typedef struct cell_ctx {
  const side *A, *B;
  double alpha, ref;
} cell_ctx;

static double cell_f(double x, void *vc, double *err)
{
  const cell_ctx *c = vc;
  double ma, mb;
  double la = side_log(c->A, x, &ma), lb = side_log(c->B, x, &mb);
  double g = c->alpha * la + (1.0 - c->alpha) * lb;
  double e = exp(g - c->ref);
  double M = c->alpha * (fabs(la) + fabs(lb) + ma + mb + fabs(x) + 8.0) +
             fabs(c->ref) + 1.0;
  *err = e * 32.0 * PLD_U * M;
  return e;
}

/* Upper bound on log I for I = int A^alpha B^{1-alpha}; *out may be
 * +INFINITY.  common != 0: every sd equal (used for the step size). */
static int log_integral(const side *A, const side *B, double alpha,
                        int common, pld_quad_ws *ws, double *out)
{
  /* widest denominator component (largest sd, then largest weight) */
  size_t j = 0;
  double smaxA = 0.0, sminA = INFINITY, sminB = INFINITY;
  for (size_t i = 0; i < B->n; i++) {
    if (B->s[i] > B->s[j] || (B->s[i] == B->s[j] && B->w[i] > B->w[j])) j = i;
    if (B->s[i] < sminB) sminB = B->s[i];
  }
  for (size_t k = 0; k < A->n; k++) {
    if (A->s[k] > smaxA) smaxA = A->s[k];
    if (A->s[k] < sminA) sminA = A->s[k];
  }
  double tmax = B->s[j];
  if (!(alpha / (smaxA * smaxA) > (alpha - 1.0) / (tmax * tmax))) {
    *out = INFINITY;
    return PLD_SUCCESS;
  }
  /* mean spreads */
  double mlo = INFINITY, mhi = -INFINITY, blo = INFINITY, bhi = -INFINITY;
  for (size_t k = 0; k < A->n; k++) {
    if (A->m[k] < mlo) mlo = A->m[k];
    if (A->m[k] > mhi) mhi = A->m[k];
  }
  for (size_t i = 0; i < B->n; i++) {
    if (B->m[i] < blo) blo = B->m[i];
    if (B->m[i] > bhi) bhi = B->m[i];
  }
  double smin = fmin(sminA, sminB);
  double width;
  if (common) {
    double sb = (bhi - blo) / (2.0 * smin);
    width = smin / sqrt(1.0 + (alpha - 1.0) * sb * sb);
  } else {
    width = smin / sqrt(2.0 * alpha);
  }
  /* curvature bound g'' >= -kappa, kappa = 1/width^2 (common sd: proven
   * from the convexity of log-sum-exp, see step 4; unequal sds: heuristic) */
  double Hc = width * sqrt(40.0);
  /* initial window: means and tilted peaks */
  double lo = fmin(mlo, blo), hi = fmax(mhi, bhi);
  for (size_t k = 0; k < A->n; k++)
    for (size_t i = 0; i < B->n; i++) {
      double sk = A->s[k], ti = B->s[i];
      double P = alpha / (sk * sk) - (alpha - 1.0) / (ti * ti);
      if (!(P > 0.0)) continue;
      double L = alpha * A->m[k] / (sk * sk) -
                 (alpha - 1.0) * B->m[i] / (ti * ti);
      double xs = L / P, w = 12.0 / sqrt(P);
      if (xs - w < lo) lo = xs - w;
      if (xs + w > hi) hi = xs + w;
    }
  double pad = 12.0 * fmax(smaxA, tmax);
  lo -= pad;
  hi += pad;
  for (int iter = 0; iter < 40; iter++) {
    /* coarse cells of width H with kappa H^2 / 8 = 5: since g'' >= -kappa,
     * g <= max(g(a), g(b)) + 5 on a cell [a, b] */
    double ncd = ceil((hi - lo) / Hc);
    if (!(ncd <= (double)MAX_POINTS)) return PLD_EMAXITER;
    size_t nc = (size_t)ncd;
    if (nc < 1) nc = 1;
    double H = (hi - lo) / (double)nc;
    double *G = pld_malloc(sizeof(double) * (nc + 1));
    if (!G) return PLD_ENOMEM;
    double gmc = -INFINITY;
    for (size_t c = 0; c <= nc; c++) {
      double x = lo + H * (double)c;
      G[c] = alpha * side_log(A, x, NULL) + (1.0 - alpha) * side_log(B, x, NULL);
      if (G[c] > gmc) gmc = G[c];
    }
    if (!isfinite(gmc)) {
      pld_free(G);
      return PLD_EMAXITER;
    }
    double ref = gmc + 5.0; /* >= max g (up to the curvature heuristic) */
    double thr = gmc - 60.0;
    cell_ctx cc = {A, B, alpha, ref};
    double T1 = 0.0, ER = 0.0;
    size_t skipped = 0, ncell = 0;
    for (size_t c = 0; c < nc; c++) {
      if (fmax(G[c], G[c + 1]) + 5.0 < thr) {
        skipped++;
        continue;
      }
      /* one CQUAD run per coarse cell: a cell spans sqrt(40) local widths,
       * so no peak can hide between the 33 first nodes of a run */
      double a0 = lo + H * (double)c;
      /* tolerance: 1e-13 relative, or 4 times the noise of the integrand
       * (its relative error bound at the ends and the middle of the cell),
       * below which CQUAD's estimate cannot fall */
      double noise = 0.0;
      for (int e = 0; e <= 2; e++) {
        double er, v = cell_f(a0 + 0.5 * H * (double)e, &cc, &er);
        if (v > 0.0) noise = fmax(noise, er / v);
      }
      pld_quad_result r;
      int qs = pld_quad(ws, cell_f, &cc, a0, a0 + H, 1e-17 * H,
                        fmax(1e-14, 0.25 * noise), &r);
      if (qs != PLD_SUCCESS) {
        pld_free(G);
        return qs == PLD_EINVAL ? PLD_EMAXITER : qs;
      }
      T1 += r.val;
      ER += r.err;
      ncell++;
    }
    pld_free(G);
    /* skipped cells: each integral <= H e^{thr} = H e^{ref - 65} */
    double SK = (double)skipped * H * exp(-65.0);
    /* the cells' values and booked errors (step 4: CQUAD's estimate x
     * PLD_QUAD_SAFETY, the rounding of its sums, the integrand's value
     * errors) and the rounding of adding them up */
    double marg = ER + SK + (4.0 * PLD_U + 2.0 * (double)ncell * PLD_U) *
                  (fabs(T1) + ER);
    double lI = ref + log(T1 + marg);
    double lt = tail_log(A, B, j, alpha, lo, hi);
    if (lt <= lI + log(1e-15)) {
      double tot = pld_logaddexp(lI, lt);
      /* rounding of log and the additions: a few ulps of the magnitudes */
      tot += 8.0 * PLD_U * (fabs(ref) + fabs(tot) + 1.0);
      *out = tot;
      return PLD_SUCCESS;
    }
    double wdt = hi - lo;
    lo -= 0.5 * wdt;
    hi += 0.5 * wdt;
  }
  return PLD_EMAXITER;
}

static int check_side(size_t n, const double *w, const double *m,
                      const double *s)
{
  if (n < 1 || n > MAX_COMP || !w || !m || (s == NULL))
    return pld_fail(PLD_EINVAL, "a mixture side has %zu components (1 to %d) or a NULL array", n, MAX_COMP);
  if (!pld_is_simplex(w, n, PLD_PROB_SUM_TOL, "weight"))
    return PLD_EINVAL;
  for (size_t k = 0; k < n; k++)
    if (!isfinite(m[k]) || !isfinite(s[k]) || !(s[k] > 0.0))
      return pld_fail(PLD_EINVAL, "component %zu: mean = %g must be finite and sd = %g finite and > 0", k, m[k], s[k]);
  return PLD_SUCCESS;
}

/* Copy the positive-weight components of (w, m, s) into buf (4 arrays of
 * n) and set up the side; weights renormalised by their sum (within 1e-9 of
 * 1; the bound is that of the normalised mixture, the one meant). */
static void make_side(side *S, size_t n, const double *w, const double *m,
                      const double *s, double scale, double *buf)
{
  double *W = buf, *Mm = buf + n, *Ss = buf + 2 * n, *Lc = buf + 3 * n;
  double sum = 0.0;
  for (size_t k = 0; k < n; k++) sum += w[k];
  size_t c = 0;
  for (size_t k = 0; k < n; k++) {
    if (!(w[k] > 0.0)) continue;
    W[c] = w[k] / sum;
    Mm[c] = m[k] / scale;
    Ss[c] = s[k] / scale;
    Lc[c] = log(W[c]) - log(Ss[c]) - PLD_LOG_SQRT_2PI;
    c++;
  }
  S->n = c;
  S->w = W;
  S->m = Mm;
  S->s = Ss;
  S->lc = Lc;
}

static int pair_values(const pld_rdp_curve *c, size_t np, const double *pw,
                       const double *pm, const double *ps, size_t nq,
                       const double *qw, const double *qm, const double *qs,
                       double scale, int common, double *vals)
{
  size_t no = pld_rdp_curve_size(c);
  const double *ord = pld_rdp_curve_orders(c);
  double *buf = pld_malloc(sizeof(double) * 4 * (np + nq));
  if (!buf) return PLD_ENOMEM;
  pld_quad_ws *ws = pld_quad_ws_alloc(200);
  if (!ws) {
    pld_free(buf);
    return PLD_ENOMEM;
  }
  side P, Q;
  make_side(&P, np, pw, pm, ps, scale, buf);
  make_side(&Q, nq, qw, qm, qs, scale, buf + 4 * np);
  int st = PLD_SUCCESS;
  for (size_t i = 0; i < no && st == PLD_SUCCESS; i++) {
    double a = ord[i], l1, l2;
    st = log_integral(&P, &Q, a, common, ws, &l1);
    if (st == PLD_SUCCESS) st = log_integral(&Q, &P, a, common, ws, &l2);
    if (st != PLD_SUCCESS) break;
    double l = fmax(l1, l2);
    double v;
    if (isinf(l))
      v = INFINITY;
    else {
      /* a - 1 is exact for 1 < a < 2^53 (Sterbenz for a <= 2; above, 1 is
       * a multiple of ulp(a) and the result keeps that ulp). */
      v = pld_div_up(fmax(l, 0.0), a - 1.0);
      v = nextafter(v, INFINITY);
      if (v < 0.0) v = 0.0;
    }
    vals[i] = v;
  }
  pld_quad_ws_free(ws);
  pld_free(buf);
  return st;
}

int pld_rdp_add_mixture_pair(pld_rdp_curve *c, size_t np, const double *pw,
                             const double *pm, const double *ps, size_t nq,
                             const double *qw, const double *qm,
                             const double *qs, uint64_t count)
{
  pld_detail_clear();
  if (!c || count < 1) return PLD_EINVAL;
  int st = check_side(np, pw, pm, ps);
  if (st == PLD_SUCCESS) st = check_side(nq, qw, qm, qs);
  if (st != PLD_SUCCESS) return st;
  int common = 1;
  for (size_t k = 0; k < np; k++)
    if (ps[k] != ps[0]) common = 0;
  for (size_t k = 0; k < nq; k++)
    if (qs[k] != ps[0]) common = 0;
  size_t no = pld_rdp_curve_size(c);
  double *vals = pld_malloc(sizeof(double) * no);
  if (!vals) return PLD_ENOMEM;
  st = pair_values(c, np, pw, pm, ps, nq, qw, qm, qs, 1.0, common, vals);
  if (st == PLD_SUCCESS) st = pld_rdp_curve_add_values(c, vals, count);
  pld_free(vals);
  return st;
}

int pld_rdp_add_mixture_gaussian(pld_rdp_curve *c, double s, size_t n,
                                 const double *weights, const double *means,
                                 uint64_t count)
{
  pld_detail_clear();
  if (!c)
    return pld_fail(PLD_EINVAL, "c must not be NULL");
  if (count < 1)
    return pld_fail(PLD_EINVAL, "count = 0 must be >= 1");
  if (!isfinite(s) || !(s > 0.0))
    return pld_fail(PLD_EINVAL, "s = %g (the noise scale) must be finite and > 0",
                    s);
  if (n < 1 || n > MAX_COMP)
    return pld_fail(PLD_EINVAL, "n = %zu components must be in [1, %d]", n,
                    MAX_COMP);
  if (!weights || !means)
    return pld_fail(PLD_EINVAL, "weights and means must not be NULL");
  double *sd = pld_malloc(sizeof(double) * n);
  if (!sd) return PLD_ENOMEM;
  for (size_t k = 0; k < n; k++) sd[k] = s;
  int st = check_side(n, weights, means, sd);
  double one = 1.0, zero = 0.0;
  size_t no = pld_rdp_curve_size(c);
  double *vals = NULL;
  if (st == PLD_SUCCESS) {
    vals = pld_malloc(sizeof(double) * no);
    if (!vals) st = PLD_ENOMEM;
  }
  /* Work in units of s (scale = s): means/s, sds 1.  Scaling by s is a
   * bijection, so the divergences are unchanged; the division rounds, which
   * moves the means by <= 1 ulp relative -- covered by the 1e-13 margin. */
  if (st == PLD_SUCCESS)
    st = pair_values(c, n, weights, means, sd, 1, &one, &zero, &s, s, 1,
                     vals);
  if (st == PLD_SUCCESS) st = pld_rdp_curve_add_values(c, vals, count);
  pld_free(vals);
  pld_free(sd);
  return st;
}
