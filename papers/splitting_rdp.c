/* pldkit: model splitting, dropout, Balanced Iteration Subsampling and the
 * Poisson + splitting combination of Figure 1 (splitting paper, Thm 3.1).
 *
 * Notation: s = c/sigma, t = s^2, the pair P = mean over S_{d,k} of
 * N(c mu, sigma^2 I), Q = N(0, sigma^2 I) (see include/pldkit/rdp_papers.h).
 * F(d,k,alpha) = D_alpha(P||Q) (forward), R(d,k,alpha) = D_alpha(Q||P).
 *
 * Three exact reductions carry everything:
 *
 * (1) Symmetry k <-> d-k.  Split R^d into span(1) and its complement: every
 *     centre c mu has the same component c k/sqrt(d) along 1/sqrt(d), so
 *     P = N(c k/sqrt d) x P_perp and Q = N(0) x N(0), and Renyi divergences
 *     of products add (this is Lemma 3.15, which is correct).  The centred
 *     centres of S_{d,d-k} are the negatives of those of S_{d,k}, and N(0)
 *     is symmetric, hence, in both directions,
 *        X(d,k) = X(d,d-k) + alpha t (k^2 - (d-k)^2) / (2d).
 *     We always compute with k' = min(k, d-k).
 *
 * (2) Forward, Lemma 3.12 (eq. (2) read with i != j, docs/papers/splitting.md): with n_j the
 *     number of the alpha tuple members that contain coordinate j,
 *        e^{(alpha-1)F} = C(d,k)^{-alpha} sum_{tuples} prod_j w(n_j),
 *        w(n) = exp(t n(n-1)/2).
 *     For k = 1 the tuple is a word over [d] and the sum is the multinomial
 *        e^{(alpha-1)F} = alpha! d^{-alpha} [x^alpha] W(x)^d,
 *        W(x) = sum_n w(n) x^n / n!,
 *     one truncated polynomial power (log space, binary powering) giving all
 *     orders up to alpha at once.  For k > 1 we count alpha x d binary
 *     matrices with row sums k, weight prod over columns w(column sum), by a
 *     dynamic program over non-empty columns whose state is the histogram of
 *     row fill levels; the C(d, m) placements of m non-empty columns are
 *     summed at the end.
 *
 * (3) Reverse for k = 1 (and Poisson rate gamma): with z_i iid N(0,1),
 *        q/p = 1 / (1 - gamma + kappa sum_i e^{s z_i}),
 *        kappa = gamma e^{-t/2} / d,
 *     and for beta = alpha - 1 > 0 the identity A^{-beta} = Gamma(beta)^{-1}
 *     int_0^inf u^{beta-1} e^{-uA} du (A > 0) factorises the d-dimensional
 *     expectation:
 *        E_Q[(q/p)^beta] = Gamma(beta)^{-1} int_R exp(beta v + L(v)) dv,
 *        L(v) = -(1-gamma) e^v + d log phi(kappa e^v),
 *        phi(u) = E[exp(-u e^{s Z})]   (the lognormal Laplace transform).
 *     Both integrands are analytic in a strip, so the trapezoid rule
 *     converges geometrically; the steps come from the strip widths
 *     (|Im| < pi/(4s) for phi, pi/4 for v, where the integrand grows by at
 *     most e^{0.35 beta}).  The left tail v < v1 = -41.5 is bounded by
 *     e^{beta v1}/beta (L <= 0) and the cut gets the Euler-Maclaurin
 *     correction; the result is compared with the half-resolution sum and
 *     the difference is added as a margin.
 *
 * Sound values combine these with two proven bounds: Cor. 3.14 (eq. (3);
 * Lemma 3.13 re-derived: given the tuple's histogram, X = sum_{i<j} is
 * constant and the alpha-scaled star sum Y has mean X, so Jensen gives
 * E e^{tX} <= E e^{tY}, and Y is a sum of alpha-1 iid overlaps) and the
 * group decomposition (a uniform k-subset is a mixture over random
 * partitions into k groups of "one uniform member per group"; for a fixed
 * partition the pair is a product of k disjoint-splitting pairs, so by
 * joint quasi-convexity X(d,k) <= sum_groups X(g, 1)).
 *
 * Fractional orders: G(alpha) = (alpha-1) D_alpha = log int p^alpha q^{1-alpha}
 * is convex (Hoelder) with G(1) = 0, so bounds at floor(alpha) and
 * floor(alpha)+1 interpolate to a bound at alpha.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <pldkit/splitting.h>

#include "alloc.h"
#include "numerics.h"
#include "detail.h"
#include "splitting_internal.h"

#define MAX_ORDER 2048        /* exact forward / Poisson: integer orders cap */
#define DP_WORK_CAP 3000000.0 /* transitions x steps of the k > 1 program */
#define BLOCK_WORK_CAP 3e5   /* the same for one block of forward_blocks */
#define QUAD_WORK_CAP 1e8      /* v points x z nodes of one reverse table */

/* ------------------------------------------------------------------------ */
/* Small helpers.                                                            */

int split_bad_args(double alpha, int64_t d, int64_t k, double sigma,
                     double c)
{
  /* Each failed check records which argument and why (pld_error_detail). */
  if (!isfinite(alpha) || !(alpha > 1.0))
    return pld_fail(PLD_EINVAL, "alpha = %g must be finite and > 1", alpha);
  if (d < 1)
    return pld_fail(PLD_EINVAL, "d = %lld must be >= 1", (long long)d);
  if (k < 1 || k > d)
    return pld_fail(PLD_EINVAL, "k = %lld must be in [1, d = %lld]",
                    (long long)k, (long long)d);
  if (!isfinite(sigma) || !(sigma > 0.0))
    return pld_fail(PLD_EINVAL, "sigma = %g must be finite and > 0", sigma);
  if (!isfinite(c) || !(c > 0.0))
    return pld_fail(PLD_EINVAL, "c = %g must be finite and > 0", c);
  if (!isfinite(c / sigma) || !(c / sigma > 0.0))
    return pld_fail(PLD_EINVAL,
                    "c / sigma = %g / %g = %g must be finite and > 0", c,
                    sigma, c / sigma);
  return 0;
}

/* log C(n, k), exact sums of logs for small k (lgamma loses ~n log n * u). */
static double lbinom(double n, double k)
{
  if (k < 0.0 || k > n)
    return -INFINITY;
  if (n - k < k)
    k = n - k;
  if (k <= 64.0) {
    double r = 0.0;
    for (double i = 0.0; i < k; i += 1.0)
      r += log((n - i) / (k - i));
    return r;
  }
  return lgamma(n + 1.0) - lgamma(k + 1.0) - lgamma(n - k + 1.0);
}

/* Absolute rounding error bound of lbinom(n, .), for the margins. */
static double lbinom_err(double n)
{
  return 8.0 * PLD_U * (1.0 + (n > 1.0 ? n * log(n) : 0.0));
}

/* Interpolate a bound at fractional alpha from G(m) = (m-1) B(m) and
 * G(m+1) = m B(m+1) (m = floor(alpha) >= 1, G(1) = 0); see the file header. */
/* The chord of rdp_mech.c (WOR) is on G itself with a rounding booking. */
static double interp_order(double alpha, double Bm, double Bm1)
{
  double m = floor(alpha);
  if (alpha == m)
    return Bm;
  double G = (m + 1.0 - alpha) * (m - 1.0) * (m > 1.0 ? Bm : 0.0) +
             (alpha - m) * m * Bm1;
  return G / (alpha - 1.0);
}

/* ------------------------------------------------------------------------ */
/* Eq. (3) first term (Cor. 3.14), integer order m >= 2.                      */

/* The terms' log-concavity window: terms below e^-EQ3_CUT times the largest
 * are not summed but booked, each at that bound. */
#define EQ3_CUT 700.0

static double eq3_term(double m, double d, double k, double t, double lbdk,
                       double l)
{
  return lbinom(k, l) + lbinom(d - k, k - l) - lbdk + 0.5 * m * t * l;
}

/* sum_l C(k,l) C(d-k,k-l) / C(d,k) e^{m t l / 2}: a hypergeometric pmf times
 * an exponential, log-concave in l.  Summing every l cost O(k) lgamma calls
 * per order (model-splitting d = 1e6, k = 5e5: 34 s); only the window around
 * the mode where terms exceed e^-EQ3_CUT of the largest is summed (about
 * 80 standard deviations of the hypergeometric law), found by bisection on
 * the sign of the log ratio of neighbours (decreasing in l: log-concavity).
 * Log-concavity also makes every term outside the window smaller than the
 * window's edge terms, so the dropped ones are at most (number dropped) *
 * e^-EQ3_CUT relative to the largest and are added as such: an upper bound
 * still (the value is an upper bound on the forward RDP term). */
static double eq3_int(double m, double d, double k, double t)
{
  double lo = fmax(0.0, 2.0 * k - d), lbdk = lbinom(d, k);
  /* the mode: the last l whose ratio to l - 1 is >= 1 */
  double a = lo, b = k;
  /* not pld_bisect: an integer mode search on a unimodal sequence */
  while (b - a > 1.0) {
    double mid = floor(0.5 * (a + b));
    if (eq3_term(m, d, k, t, lbdk, mid) >= eq3_term(m, d, k, t, lbdk, mid - 1.0))
      a = mid;
    else
      b = mid;
  }
  double mode = eq3_term(m, d, k, t, lbdk, b) > eq3_term(m, d, k, t, lbdk, a) ? b : a;
  double mx = eq3_term(m, d, k, t, lbdk, mode);
  double wlo = mode, whi = mode;
  while (wlo > lo && eq3_term(m, d, k, t, lbdk, wlo - 1.0) >= mx - EQ3_CUT)
    wlo -= 1.0;
  while (whi < k && eq3_term(m, d, k, t, lbdk, whi + 1.0) >= mx - EQ3_CUT)
    whi += 1.0;
  /* the mode found by bisection may miss by rounding near a flat top: the
   * window's own maximum is the one used */
  for (double l = wlo; l <= whi; l += 1.0) {
    double v = eq3_term(m, d, k, t, lbdk, l);
    if (v > mx)
      mx = v;
  }
  double sum = 0.0;
  for (double l = wlo; l <= whi; l += 1.0)
    sum += exp(eq3_term(m, d, k, t, lbdk, l) - mx);
  sum += ((wlo - lo) + (k - whi)) * exp(-EQ3_CUT);
  /* three lbinom errors per term, a few ulps for the sum */
  return mx + log(sum) + 3.0 * lbinom_err(d) + 4.0 * PLD_U * (1.0 + fabs(mx));
}

int pld_rdp_split_forward_eq3(double alpha, int64_t d, int64_t k, double sigma,
                              double c, double *eps)
{
  pld_detail_clear();
  if (!eps)
    return pld_fail(PLD_EINVAL, "eps (the output) must not be NULL");
  if (split_bad_args(alpha, d, k, sigma, c))
    return PLD_EINVAL; /* split_bad_args recorded the detail */
  double t = (c / sigma) * (c / sigma), m = floor(alpha);
  if (!isfinite(t))
    return pld_fail(PLD_EINVAL,
                    "(c / sigma)^2 = (%g / %g)^2 overflows a double; c / sigma "
                    "must be below about 1e154", c, sigma);
  double Bm = m >= 2.0 ? eq3_int(m, (double)d, (double)k, t) : 0.0;
  double Bm1 = alpha > m ? eq3_int(m + 1.0, (double)d, (double)k, t) : 0.0;
  double v = interp_order(alpha, Bm, Bm1);
  if (isnan(v))
    return pld_fail_if_silent(PLD_EINVAL,
                              "the Eq. (3) bound is NaN at alpha = %g, d = %lld, "
                              "k = %lld, c / sigma = %g",
                              alpha, (long long)d, (long long)k, c / sigma);
  *eps = v;
  return PLD_SUCCESS;
}

/* ------------------------------------------------------------------------ */
/* The paper's reverse term (Lemma 3.15 + Cor. 3.17 + Cor. 3.19).            */

int pld_rdp_split_reverse_paper(double alpha, int64_t d, int64_t k,
                                double sigma, double c, double *eps)
{
  pld_detail_clear();
  if (!eps)
    return pld_fail(PLD_EINVAL, "eps (the output) must not be NULL");
  if (split_bad_args(alpha, d, k, sigma, c))
    return PLD_EINVAL; /* split_bad_args recorded the detail */
  double t = (c / sigma) * (c / sigma), dd = (double)d, kk = (double)k;
  double v = t * kk * (dd - kk) / (dd * dd);
  /* alpha e^v + 1 - alpha = 1 + alpha expm1(v): >= 1 since v >= 0, so the
   * validity condition of Prop. A.2 never fails; kept for the record. */
  double arg = alpha * expm1(v);
  double r;
  if (!(1.0 + arg > 0.0))
    r = INFINITY;
  else
    r = alpha * t * kk * kk / (2.0 * dd) +
        (alpha * t * kk * (dd - kk) / dd - dd * log1p(arg)) /
            (2.0 * (alpha - 1.0));
  if (isnan(r))
    return pld_fail_if_silent(PLD_EINVAL,
                              "the paper's reverse bound is NaN at alpha = %g, "
                              "d = %lld, k = %lld, c / sigma = %g",
                              alpha, (long long)d, (long long)k, c / sigma);
  *eps = r;
  return PLD_SUCCESS;
}

/* ------------------------------------------------------------------------ */
/* Forward, k = 1: lf[j] = log [x^j] W(x)^d for j <= m, in log space.         */

/* c = a * b truncated at degree m, all in log space. */
static void lpoly_mul(const double *a, const double *b, double *c, size_t m)
{
  for (size_t n = 0; n <= m; n++) {
    double mx = -INFINITY;
    for (size_t j = 0; j <= n; j++) {
      double v = a[j] + b[n - j];
      if (v > mx)
        mx = v;
    }
    if (mx == -INFINITY) {
      c[n] = -INFINITY;
      continue;
    }
    double s = 0.0;
    for (size_t j = 0; j <= n; j++)
      s += exp(a[j] + b[n - j] - mx);
    c[n] = mx + log(s);
  }
}

/* Fills lf[0..m]; returns the number of multiplications (for the margin) or
 * -1 on allocation failure. */
static int k1_power(double t, double d, size_t m, double *lf)
{
  double *base = pld_malloc(3 * (m + 1) * sizeof(double));
  if (!base)
    return -1;
  double *tmp = base + (m + 1), *acc = lf, *b = tmp + (m + 1);
  for (size_t n = 0; n <= m; n++) {
    base[n] = 0.5 * t * (double)n * ((double)n - 1.0) - lgamma((double)n + 1.0);
    acc[n] = n == 0 ? 0.0 : -INFINITY;
  }
  /* binary powering of W, W^d; d is an integer given as a double < 2^53 */
  uint64_t e = (uint64_t)d;
  int nmul = 0;
  int first = 1;
  while (e) {
    if (e & 1u) {
      if (first)
        memcpy(acc, base, (m + 1) * sizeof(double));
      else {
        lpoly_mul(acc, base, tmp, m);
        memcpy(acc, tmp, (m + 1) * sizeof(double));
        nmul++;
      }
      first = 0;
    }
    e >>= 1;
    if (e) {
      lpoly_mul(base, base, b, m);
      memcpy(base, b, (m + 1) * sizeof(double));
      nmul++;
    }
  }
  pld_free(base);
  return nmul;
}

/* log E[R^j] for j = 0..m, R = p/q of the (d, k=1) pair: the splitting
 * moments (e^{(j-1) F(d,1,j)}), with an absolute error bound *err. */
static int k1_moments(double t, double d, size_t m, double *lM, double *err)
{
  int nmul = k1_power(t, d, m, lM);
  if (nmul < 0)
    return PLD_ENOMEM;
  double mag = 0.0;
  for (size_t j = 0; j <= m; j++) {
    double ld = (double)j * log(d);
    lM[j] = lgamma((double)j + 1.0) + lM[j] - ld;
    mag = fmax(mag, fabs(lM[j]) + ld + lgamma((double)j + 1.0));
  }
  lM[0] = 0.0;
  if (m >= 1)
    lM[1] = 0.0; /* E[p/q] = 1 exactly */
  /* each log-space product adds at most (m + 2) u + u |value| */
  *err = 4.0 * PLD_U * (nmul + 4.0) * ((double)m + 4.0 + mag);
  return PLD_SUCCESS;
}

/* ------------------------------------------------------------------------ */
/* Forward, k' >= 2: exact dynamic program (see the file header).             */

struct dp_tr {
  uint32_t from, to;
  double lw;
};

static size_t state_code_find(const uint64_t *codes, size_t n, uint64_t c)
{
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (codes[mid] < c)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Enumerate compositions of m into K+1 parts (levels 0..K) as codes. */
static void enum_states(int K, int m, int j, int left, uint64_t code,
                        uint64_t radix_pow, uint64_t radix, uint64_t *out,
                        size_t *n)
{
  if (j == K) {
    out[(*n)++] = code + (uint64_t)left * radix_pow;
    return;
  }
  for (int a = 0; a <= left; a++)
    enum_states(K, m, j + 1, left - a, code + (uint64_t)a * radix_pow,
                radix_pow * radix, radix, out, n);
}

static int cmp_u64(const void *x, const void *y)
{
  uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
  return (a > b) - (a < b);
}

/* (m-1) F(d, K, m) exactly; PLD_ERANGE when over the work cap. */
static int dp_forward(int m, double d, int K, double t, double *G,
                      double *err, double work_cap)
{
  uint64_t radix = (uint64_t)m + 1;
  /* codes must fit: (m+1)^(K+1) < 2^63 */
  if ((double)(K + 1) * log2((double)radix) > 62.0)
    return pld_fail_if_silent(PLD_ERANGE,
                              "the exact forward program at order %d with "
                              "k' = %d groups needs (order + 1)^(k' + 1) state "
                              "codes, above 2^62",
                              m, K);
  double nst = exp(lbinom((double)(m + K), (double)K));
  double ntr = exp(lbinom((double)(m + 2 * K), (double)(2 * K)));
  double steps = fmin(d, (double)m * K);
  if (nst > 4e6 || ntr > 4e6 || ntr * steps > work_cap)
    return pld_fail_if_silent(PLD_ERANGE, "dp_forward: the exact forward term needs more than its work cap (%g states)", work_cap);
  size_t ns = (size_t)(nst + 0.5);
  int st = PLD_SUCCESS;
  uint64_t *codes = pld_malloc(ns * sizeof *codes);
  struct dp_tr *tr = NULL;
  double *f = NULL, *g = NULL;
  int *a = NULL, *b = NULL;
  if (!codes) {
    st = PLD_ENOMEM;
    goto done;
  }
  size_t n = 0;
  enum_states(K, m, 0, m, 0, 1, radix, codes, &n);
  ns = n;
  qsort(codes, ns, sizeof *codes, cmp_u64);
  size_t cap = (size_t)(ntr + 16.0), ntrans = 0;
  tr = pld_malloc(cap * sizeof *tr);
  f = pld_malloc(ns * sizeof *f);
  g = pld_malloc(ns * sizeof *g);
  a = pld_malloc(2 * (size_t)(K + 1) * sizeof *a);
  if (!tr || !f || !g || !a) {
    st = PLD_ENOMEM;
    goto done;
  }
  b = a + (K + 1);
  double lw[2049];
  for (int q = 0; q <= m; q++)
    lw[q] = 0.5 * t * q * (q - 1.0);
  /* transitions: choose b_j <= a_j rows at level j < K to receive a one */
  for (size_t i = 0; i < ns; i++) {
    uint64_t c = codes[i];
    for (int j = 0; j <= K; j++) {
      a[j] = (int)(c % radix);
      c /= radix;
    }
    for (int j = 0; j <= K; j++)
      b[j] = 0;
    for (;;) {
      /* next b in mixed radix (a_j + 1), j < K */
      int j = 0;
      while (j < K && b[j] == a[j]) {
        b[j] = 0;
        j++;
      }
      if (j == K)
        break;
      b[j]++;
      int tot = 0;
      double w = 0.0;
      uint64_t to = 0, pw = 1;
      for (int l = 0; l <= K; l++) {
        int na = a[l] - (l < K ? b[l] : 0) + (l > 0 ? b[l - 1] : 0);
        to += (uint64_t)na * pw;
        pw *= radix;
        if (l < K) {
          tot += b[l];
          w += lbinom((double)a[l], (double)b[l]);
        }
      }
      if (ntrans >= cap) {
        st = PLD_ERANGE;
        goto done;
      }
      tr[ntrans].from = (uint32_t)i;
      tr[ntrans].to = (uint32_t)state_code_find(codes, ns, to);
      tr[ntrans].lw = w + lw[tot];
      ntrans++;
    }
  }
  uint64_t start = (uint64_t)m, final = (uint64_t)m;
  for (int l = 0; l < K; l++)
    final *= radix;
  size_t i0 = state_code_find(codes, ns, start),
         i1 = state_code_find(codes, ns, final);
  for (size_t i = 0; i < ns; i++)
    f[i] = -INFINITY;
  f[i0] = 0.0;
  double acc = -INFINITY, mag = 0.0;
  size_t S = (size_t)steps;
  for (size_t step = 1; step <= S; step++) {
    for (size_t i = 0; i < ns; i++)
      g[i] = -INFINITY;
    for (size_t r = 0; r < ntrans; r++) {
      double v = f[tr[r].from];
      if (v == -INFINITY)
        continue;
      g[tr[r].to] = pld_logaddexp(g[tr[r].to], v + tr[r].lw);
    }
    double *sw = f;
    f = g;
    g = sw;
    if (f[i1] > -INFINITY) {
      double term = lbinom(d, (double)step) + f[i1];
      acc = pld_logaddexp(acc, term);
      mag = fmax(mag, fabs(term));
    }
  }
  double lb = (double)m * lbinom(d, (double)K);
  *G = acc - lb;
  *err = 16.0 * PLD_U * ((double)S + m + 4.0) * (1.0 + mag + fabs(lb)) +
         (double)(m + 1) * lbinom_err(d);
done:
  pld_free(codes);
  pld_free(tr);
  pld_free(f);
  pld_free(g);
  pld_free(a);
  return st;
}

/* G(m) = (m-1) F(d, k', m) for integer m >= 2 and 1 <= k' <= d/2. */
static int forward_G_compute(int m, double d, double kp, double t, double *G,
                             double work_cap)
{
  double err = 0.0;
  if (kp == 1.0) {
    double *lM = pld_malloc(((size_t)m + 1) * sizeof(double));
    if (!lM)
      return PLD_ENOMEM;
    int st = k1_moments(t, d, (size_t)m, lM, &err);
    if (!st)
      *G = lM[m] + err;
    pld_free(lM);
    return st;
  }
  int st = dp_forward(m, d, (int)kp, t, G, &err, work_cap);
  if (!st)
    *G += err;
  return st;
}

/* The same, remembering the last successful values of this thread: a
 * curve asks for G(m) and G(m + 1) at every fractional order between m
 * and m + 1 (ten of them on the default grid), and the block bound for
 * equal blocks; the program is a deterministic function of its arguments,
 * so a remembered value is the value (T = 10, k = 4: the default RDP curve
 * ran the same exact program up to 20 times per m). */
#define G_MEMO 16
static _Thread_local struct {
  int m;
  double d, kp, t, cap, G;
} g_memo[G_MEMO];
static _Thread_local unsigned g_memo_n, g_memo_next;

static int forward_G(int m, double d, double kp, double t, double *G,
                     double work_cap)
{
  for (unsigned i = 0; i < g_memo_n; i++)
    if (g_memo[i].m == m && g_memo[i].d == d && g_memo[i].kp == kp &&
        g_memo[i].t == t && g_memo[i].cap == work_cap) {
      *G = g_memo[i].G;
      return PLD_SUCCESS;
    }
  int st = forward_G_compute(m, d, kp, t, G, work_cap);
  if (!st) {
    unsigned i = g_memo_next;
    g_memo[i].m = m;
    g_memo[i].d = d;
    g_memo[i].kp = kp;
    g_memo[i].t = t;
    g_memo[i].cap = work_cap;
    g_memo[i].G = *G;
    g_memo_next = (i + 1) % G_MEMO;
    if (g_memo_n < G_MEMO)
      g_memo_n++;
  }
  return st;
}

static int forward_exact_capped(double alpha, int64_t d, int64_t k,
                                double sigma, double c, double *eps,
                                double work_cap)
{
  pld_detail_clear();
  if (!eps)
    return pld_fail(PLD_EINVAL, "eps (the output) must not be NULL");
  if (split_bad_args(alpha, d, k, sigma, c))
    return PLD_EINVAL; /* split_bad_args recorded the detail */
  if (alpha > MAX_ORDER)
    return pld_fail(PLD_ERANGE, "alpha = %g is above the exact forward cap %d",
                    alpha, MAX_ORDER);
  if (d > (int64_t)1 << 52)
    return pld_fail(PLD_ERANGE, "d = %lld is above the exact forward cap 2^52",
                    (long long)d);
  double t = (c / sigma) * (c / sigma), dd = (double)d;
  double kp = (double)(k < d - k ? k : d - k), kk = (double)k;
  double shift_per_alpha = t * (kk * kk - kp * kp) / (2.0 * dd);
  double r;
  if (kp == 0.0) {
    r = alpha * t * dd / 2.0; /* k = d: P = N(c 1), a Gaussian */
  } else {
    double m = floor(alpha), Gm = 0.0, Gm1 = 0.0;
    int st;
    if (m >= 2.0 && (st = forward_G((int)m, dd, kp, t, &Gm, work_cap)))
      return st;
    if (alpha > m && (st = forward_G((int)m + 1, dd, kp, t, &Gm1, work_cap)))
      return st;
    double Bm = m >= 2.0 ? Gm / (m - 1.0) : 0.0, Bm1 = Gm1 / m;
    r = interp_order(alpha, Bm, Bm1) + alpha * shift_per_alpha;
  }
  if (!isfinite(r))
    return pld_fail_if_silent(PLD_ERANGE,
                              "the exact forward bound overflows a double at "
                              "alpha = %g, d = %lld, k = %lld, c / sigma = %g",
                              alpha, (long long)d, (long long)k, c / sigma);
  *eps = r;
  return PLD_SUCCESS;
}

int pld_rdp_split_forward_exact(double alpha, int64_t d, int64_t k,
                                double sigma, double c, double *eps)
{
  if (!eps)
    return pld_fail(PLD_EINVAL, "eps (the output) must not be NULL");
  if (split_bad_args(alpha, d, k, sigma, c))
    return PLD_EINVAL; /* split_bad_args recorded the detail */
  return forward_exact_capped(alpha, d, k, sigma, c, eps, DP_WORK_CAP);
}

/* ------------------------------------------------------------------------ */
/* The sound combination, batched over orders.                               */

/* Group sizes of the decomposition of (d, k'): k' groups, r of size g+1. */
static void groups(double d, double kp, double *g, double *r)
{
  *g = floor(d / kp);
  *r = d - kp * *g;
}

/* Forward F(g, 1) at an order (exact, with interpolation); g >= 1. */
static int forward_k1(double alpha, double g, double t, double *F)
{
  if (g == 1.0) {
    *F = alpha * t / 2.0;
    return PLD_SUCCESS;
  }
  double m = floor(alpha), Gm = 0.0, Gm1 = 0.0;
  int st;
  if (m >= 2.0 && (st = forward_G((int)m, g, 1.0, t, &Gm, DP_WORK_CAP)))
    return st;
  if (alpha > m && (st = forward_G((int)m + 1, g, 1.0, t, &Gm1, DP_WORK_CAP)))
    return st;
  *F = interp_order(alpha, m >= 2.0 ? Gm / (m - 1.0) : 0.0, Gm1 / m);
  return PLD_SUCCESS;
}

/* Block decomposition (generalises the group one): split [d] uniformly at
 * random into b blocks of sizes d_i and draw a uniform k_i-subset in each
 * (sum d_i = d, sum k_i = k').  The law of the union is invariant under
 * every permutation of [d] and its size is always k', so it is the uniform
 * k'-subset: P is a mixture over the partitions of products of (d_i, k_i)
 * pairs, and joint quasi-convexity plus additivity over products give
 * F(d, k') <= sum_i F(d_i, k_i).  With b = 2, 3, ... blocks of k_i >= 2 the
 * exact sums of the blocks are cheap at orders where the (d, k') program is
 * over its work cap, and the bound stays within a few % of the exact value
 * (T = 10, k = 4, sigma = 2c: 2.6% above at alpha = 13), so the forward
 * curve no longer jumps where the exact program stops (it jumped by 21% to
 * the group bound at alpha = 14).  INFINITY if no b in [2, 16] works. */
static int forward_blocks(double alpha, double d, double kp, double sigma,
                          double c, double *F)
{
  *F = INFINITY;
  /* the fewest blocks that the exact program can do is the tightest; blocks
   * of k_i >= 2 only (k_i = 1 throughout is the group bound) */
  for (double b = 2.0; b < kp && b <= 16.0; b += 1.0) {
    double d0 = floor(d / b), rd = d - b * d0;
    double k0 = floor(kp / b), rk = kp - b * k0;
    if (k0 < 2.0)
      break;
    double sum = 0.0;
    int ok = 1;
    /* block i gets d0 (+1 for the first rd) and k0 (+1 for the first rk) */
    for (double i = 0.0; i < b && ok; i += 1.0) {
      double di = d0 + (i < rd ? 1.0 : 0.0), ki = k0 + (i < rk ? 1.0 : 0.0);
      double v = INFINITY; /* set on success */
      int st = forward_exact_capped(alpha, (int64_t)di, (int64_t)ki, sigma,
                                    c, &v, BLOCK_WORK_CAP);
      if (st == PLD_ENOMEM)
        return st;
      if (st)
        ok = 0;
      else
        sum += v;
    }
    if (ok) {
      *F = sum;
      break;
    }
  }
  return PLD_SUCCESS;
}

#define SHARED_MAX_ORDER 2048.0

/* The forward terms of the last forward-only batch of this thread
 * (pld_rdp_model_splitting_forward_curve): the catalogue asks for them to
 * decide whether the sound curve can win, and then, where it may, for the
 * sound curve at the same orders, whose forward terms are the same values
 * (the forward code is a deterministic function of its arguments); fixed
 * storage, so nothing to free.  A batch with more orders is not kept. */
#define FWD_MEMO_N 512
static _Thread_local struct {
  int valid;
  size_t n;
  int64_t d, k;
  double sigma, c;
  double orders[FWD_MEMO_N], eps[FWD_MEMO_N];
} fwd_memo;

/* Start keeping a forward-only batch; 1 if it fits (valid when done). */
static int fwd_memo_begin(size_t n, const double *orders, int64_t d,
                          int64_t k, double sigma, double c)
{
  fwd_memo.valid = 0;
  if (n > FWD_MEMO_N)
    return 0;
  fwd_memo.n = n;
  fwd_memo.d = d;
  fwd_memo.k = k;
  fwd_memo.sigma = sigma;
  fwd_memo.c = c;
  memcpy(fwd_memo.orders, orders, n * sizeof *orders);
  return 1;
}

static const double *fwd_memo_get(size_t n, const double *orders, int64_t d,
                                  int64_t k, double sigma, double c)
{
  if (!fwd_memo.valid || fwd_memo.n != n || fwd_memo.d != d ||
      fwd_memo.k != k || fwd_memo.sigma != sigma || fwd_memo.c != c ||
      memcmp(fwd_memo.orders, orders, n * sizeof *orders) != 0)
    return NULL;
  return fwd_memo.eps;
}

/* Everything at n orders.  terms may be NULL (then only eps is filled).
 * forward_only: eps gets T.forward alone and the reverse (its quadrature
 * tables, most of the cost) is skipped; terms must then be NULL.  The
 * forward is computed by the same code either way, so eps_forward_only[i]
 * <= eps[i] = max(T.forward, T.reverse) holds bit for bit. */
static int split_batch(size_t n, const double *orders, int64_t d, int64_t k,
                       double sigma, double c, pld_rdp_split_terms *terms,
                       double *eps, int forward_only)
{
  double s = c / sigma, t = s * s, dd = (double)d, kk = (double)k;
  double kp = (double)(k < d - k ? k : d - k);
  double shift = t * (kk * kk - kp * kp) / (2.0 * dd); /* times alpha */
  double g = 0.0, r = 0.0;
  if (kp >= 1.0)
    groups(dd, kp, &g, &r);
  int st = PLD_SUCCESS;
  const double *known = NULL;
  int fwd_memo_put = 0;
  if (forward_only)
    fwd_memo_put = fwd_memo_begin(n, orders, d, k, sigma, c);
  else if (!terms)
    known = fwd_memo_get(n, orders, d, k, sigma, c);
  /* reverse tables: exact (k' = 1) or per group size */
  double *rev_a = pld_malloc(2 * (n ? n : 1) * sizeof(double));
  if (!rev_a)
    return PLD_ENOMEM;
  double *rev_b = rev_a + n;
  int have_rev = 0;
  /* k' = 1: one polynomial power serves every order (all moments at once) */
  double *lM = NULL, lM_err = 0.0;
  size_t lM_n = 0;
  if (!known && kp == 1.0 && n > 1 && d <= ((int64_t)1 << 52)) {
    double amax = 0.0;
    for (size_t i = 0; i < n; i++)
      if (orders[i] <= MAX_ORDER)
        amax = fmax(amax, orders[i]);
    lM_n = (size_t)floor(amax) + 1;
    lM = pld_malloc((lM_n + 1) * sizeof *lM);
    if (!lM) {
      st = PLD_ENOMEM;
      goto done;
    }
    if ((st = k1_moments(t, dd, lM_n, lM, &lM_err)))
      goto done;
  }
  if (!forward_only && kp >= 1.0 && s <= S_QUAD_MAX &&
      d <= ((int64_t)1 << 52)) {
    st = split_reverse_k1_batch(n, orders, g, s, 1.0, rev_a);
    if (!st && r > 0.0)
      st = split_reverse_k1_batch(n, orders, g + 1.0, s, 1.0, rev_b);
    if (st == PLD_ENOMEM)
      goto done;
    have_rev = (st == PLD_SUCCESS);
    st = PLD_SUCCESS;
  }
  for (size_t i = 0; i < n; i++) {
    double alpha = orders[i];
    double gauss = alpha * t * kk / 2.0;
    pld_progress((double)i / (double)n, "model splitting: RDP orders");
    pld_rdp_split_terms T;
    T.forward_exact = NAN;
    T.reverse_exact = NAN;
    /* forward (a full curve after its forward-only call: the remembered
     * values, which are what this code gives) */
    T.forward_eq3 = NAN;
    if (known) {
      T.forward = known[i];
      T.forward_method = PLD_SPLIT_EXACT; /* not reported: terms == NULL */
    } else {
      if (kp == 0.0) {
        T.forward_exact = gauss;
      } else if (lM && alpha <= MAX_ORDER) {
        /* same as pld_rdp_split_forward_exact, from the shared moments */
        double m = floor(alpha);
        double Bm = m >= 2.0 ? (lM[(size_t)m] + lM_err) / (m - 1.0) : 0.0;
        double Bm1 = alpha > m ? (lM[(size_t)m + 1] + lM_err) / m : 0.0;
        T.forward_exact = interp_order(alpha, Bm, Bm1) + alpha * shift;
      } else if (alpha <= MAX_ORDER && d <= ((int64_t)1 << 52)) {
        double v;
        int fs = pld_rdp_split_forward_exact(alpha, d, k, sigma, c, &v);
        if (fs == PLD_ENOMEM) {
          st = fs;
          goto done;
        }
        if (!fs)
          T.forward_exact = v;
      }
      if ((st = pld_rdp_split_forward_eq3(alpha, d, k, sigma, c, &T.forward_eq3)))
        goto done;
      double fwd_group = INFINITY;
      if (isnan(T.forward_exact) && kp >= 2.0 && alpha <= MAX_ORDER) {
        double Fg = 0.0, Fg1 = 0.0;
        if ((st = forward_k1(alpha, g, t, &Fg)))
          goto done;
        if (r > 0.0 && (st = forward_k1(alpha, g + 1.0, t, &Fg1)))
          goto done;
        fwd_group = (kp - r) * Fg + r * Fg1 + alpha * shift;
        double Fb;
        if ((st = forward_blocks(alpha, dd, kp, sigma, c, &Fb)))
          goto done;
        if (Fb + alpha * shift < fwd_group)
          fwd_group = Fb + alpha * shift;
      }
      if (!isnan(T.forward_exact)) {
        T.forward = T.forward_exact;
        T.forward_method = PLD_SPLIT_EXACT;
      } else {
        T.forward = T.forward_eq3;
        T.forward_method = PLD_SPLIT_EQ3;
        if (fwd_group < T.forward) {
          T.forward = fwd_group;
          T.forward_method = PLD_SPLIT_GROUPS;
        }
      }
      if (gauss < T.forward) {
        T.forward = gauss;
        T.forward_method = PLD_SPLIT_GAUSSIAN;
      }
    }
    if (forward_only) {
      eps[i] = T.forward;
      if (fwd_memo_put)
        fwd_memo.eps[i] = T.forward;
      continue;
    }
    /* reverse */
    if ((st = pld_rdp_split_reverse_paper(alpha, d, k, sigma, c,
                                          &T.reverse_paper)))
      goto done;
    T.reverse = gauss;
    T.reverse_method = PLD_SPLIT_GAUSSIAN;
    if (kp == 0.0) {
      T.reverse_exact = gauss;
      T.reverse_method = PLD_SPLIT_EXACT;
    } else if (have_rev) {
      double v = (kp - r) * rev_a[i] + (r > 0.0 ? r * rev_b[i] : 0.0) +
                 alpha * shift;
      if (kp == 1.0) {
        T.reverse_exact = v;
        T.reverse = v;
        T.reverse_method = PLD_SPLIT_EXACT;
      } else if (v < T.reverse) {
        T.reverse = v;
        T.reverse_method = PLD_SPLIT_GROUPS;
      }
    }
    T.epsilon = fmax(T.forward, T.reverse);
    T.epsilon_paper = fmax(isnan(T.forward_exact) ? T.forward_eq3
                                                  : T.forward_exact,
                           T.reverse_paper);
    if (terms)
      terms[i] = T;
    if (eps)
      eps[i] = T.epsilon;
  }
done:
  if (fwd_memo_put)
    fwd_memo.valid = (st == PLD_SUCCESS);
  pld_free(lM);
  pld_free(rev_a);
  return st;
}

int pld_rdp_model_splitting(double alpha, int64_t d, int64_t k, double sigma,
                            double c, pld_rdp_split_terms *out)
{
  pld_detail_clear();
  if (!out)
    return pld_fail(PLD_EINVAL, "out must not be NULL");
  if (split_bad_args(alpha, d, k, sigma, c))
    return PLD_EINVAL; /* split_bad_args recorded the detail */
  pld_rdp_split_terms T;
  int st = split_batch(1, &alpha, d, k, sigma, c, &T, NULL, 0);
  if (!st)
    *out = T;
  return st;
}

static int split_curve(size_t n, const double *orders, int64_t d, int64_t k,
                       double sigma, double c, double *eps, int forward_only)
{
  pld_detail_clear();
  if (!orders || !eps)
    return pld_fail(PLD_EINVAL, "orders and eps must not be NULL");
  if (n == 0)
    return pld_fail(PLD_EINVAL, "n = 0: at least one order is needed");
  if (split_bad_args(2.0, d, k, sigma, c))
    return PLD_EINVAL; /* split_bad_args recorded the detail */
  for (size_t i = 0; i < n; i++)
    if (!isfinite(orders[i]) || !(orders[i] > 1.0))
      return pld_fail(PLD_EINVAL, "orders[%zu] = %g must be finite and > 1", i,
                      orders[i]);
  /* Batches that share tables: every order up to SHARED_MAX_ORDER in one,
   * and above it one per octave.  The shared tables (eq. (2)'s moments and
   * the reverse quadrature) follow a batch's largest order, and an order
   * above about 2^15 makes the reverse quadrature give up for the whole
   * batch (the Gaussian value, sound but unamplified): so no order shares
   * a batch with one more than twice its size. */
  double *tmp = pld_malloc(3 * n * sizeof *tmp);
  if (!tmp)
    return PLD_ENOMEM;
  double *bo = tmp + n, *be = bo + n;
  size_t *idx = pld_malloc(n * sizeof *idx);
  int st = idx ? PLD_SUCCESS : PLD_ENOMEM;
  size_t done = 0;
  for (double lo = 0.0, hi = SHARED_MAX_ORDER; !st && done < n;
       lo = hi, hi *= 2.0) {
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
      if (orders[i] > lo && (orders[i] <= hi || !isfinite(hi))) {
        idx[m] = i;
        bo[m++] = orders[i];
      }
    if (m == 0)
      continue;
    if (!(st = split_batch(m, bo, d, k, sigma, c, NULL, be, forward_only)))
      for (size_t j = 0; j < m; j++)
        tmp[idx[j]] = be[j];
    done += m;
  }
  if (!st)
    memcpy(eps, tmp, n * sizeof *tmp);
  pld_free(idx);
  pld_free(tmp);
  return st;
}

int pld_rdp_model_splitting_curve(size_t n, const double *orders, int64_t d,
                                  int64_t k, double sigma, double c,
                                  double *eps)
{
  return split_curve(n, orders, d, k, sigma, c, eps, 0);
}

/* The forward terms alone: epsilon = max(forward, reverse) >= forward at
 * every order, and both curves take the same batches and the same forward
 * code, so this is a pointwise lower bound on pld_rdp_model_splitting_curve
 * (bit for bit), at the cost of the forward (no reverse quadrature). */
int pld_rdp_model_splitting_forward_curve(size_t n, const double *orders,
                                          int64_t d, int64_t k, double sigma,
                                          double c, double *eps)
{
  return split_curve(n, orders, d, k, sigma, c, eps, 1);
}

int pld_rdp_dropout(double alpha, double sigma, double c, double *eps)
{
  pld_detail_clear();
  if (!eps)
    return pld_fail(PLD_EINVAL, "eps (the output) must not be NULL");
  pld_rdp_split_terms T;
  int st = pld_rdp_model_splitting(alpha, 2, 1, sigma, c, &T);
  if (!st)
    *eps = T.epsilon;
  return st;
}

int pld_rdp_partial_splitting(double alpha, int64_t d, int64_t k, double sigma,
                              double c_split, double c_shared, double *eps)
{
  pld_detail_clear();
  if (!eps)
    return pld_fail(PLD_EINVAL, "eps (the output) must not be NULL");
  if (!isfinite(c_shared) || !(c_shared >= 0.0))
    return pld_fail(PLD_EINVAL, "c_shared = %g must be finite and >= 0",
                    c_shared);
  pld_rdp_split_terms T;
  int st = pld_rdp_model_splitting(alpha, d, k, sigma, c_split, &T);
  if (st)
    return st;
  double r = T.epsilon + alpha * (c_shared / sigma) * (c_shared / sigma) / 2.0;
  if (isnan(r))
    return pld_fail_if_silent(PLD_EINVAL,
                              "the partial-splitting bound is NaN at alpha = "
                              "%g, sigma = %g, c_shared = %g",
                              alpha, sigma, c_shared);
  *eps = r;
  return PLD_SUCCESS;
}

int pld_rdp_bis(double alpha, int64_t T, int64_t k, double sigma, double c,
                pld_rdp_split_terms *out)
{
  pld_detail_clear();
  return pld_rdp_model_splitting(alpha, T, k, sigma, c, out);
}

int pld_rdp_bis_epochs(double alpha, int64_t T, int64_t k, int64_t epochs,
                       double sigma, double c, double *eps)
{
  pld_detail_clear();
  if (!eps)
    return pld_fail(PLD_EINVAL, "eps (the output) must not be NULL");
  if (epochs < 1)
    return pld_fail(PLD_EINVAL, "epochs = %lld must be >= 1",
                    (long long)epochs);
  pld_rdp_split_terms R;
  int st = pld_rdp_bis(alpha, T, k, sigma, c, &R);
  if (st)
    return st;
  *eps = (double)epochs * R.epsilon;
  return PLD_SUCCESS;
}

/* ------------------------------------------------------------------------ */
/* Figure 1: Poisson subsampling + disjoint splitting.                        */

/* G(m) = log E_Q[(1 - gamma + gamma R)^m] from the splitting moments. */
static double poisson_G(int m, double gamma, const double *lM)
{
  double lg = log(gamma), l1g = log1p(-gamma), acc = -INFINITY;
  for (int j = 0; j <= m; j++) {
    double a = (double)(m - j) * l1g;
    if (j == m)
      a = 0.0;
    else if (gamma == 1.0)
      continue;
    acc = pld_logaddexp(acc, lbinom((double)m, (double)j) + a +
                                 (double)j * lg + lM[j]);
  }
  return acc;
}

int pld_rdp_poisson_split(double alpha, double gamma, int64_t d, double sigma,
                          double c, pld_rdp_pair_terms *out)
{
  pld_detail_clear();
  if (!out)
    return pld_fail(PLD_EINVAL, "out must not be NULL");
  if (split_bad_args(alpha, d, 1, sigma, c))
    return PLD_EINVAL; /* split_bad_args recorded the detail */
  if (!isfinite(gamma) || !(gamma > 0.0) || !(gamma <= 1.0))
    return pld_fail(PLD_EINVAL, "gamma = %g must be in (0, 1]", gamma);
  if (alpha > MAX_ORDER)
    return pld_fail(PLD_ERANGE, "alpha = %g is above the Poisson-split cap %d",
                    alpha, MAX_ORDER);
  if (d > ((int64_t)1 << 52))
    return pld_fail(PLD_ERANGE, "d = %lld is above the Poisson-split cap 2^52",
                    (long long)d);
  double s = c / sigma, t = s * s, dd = (double)d;
  double m = floor(alpha);
  size_t mm = (size_t)m + 1;
  double *lM = pld_malloc((mm + 1) * sizeof *lM);
  if (!lM)
    return PLD_ENOMEM;
  double err = 0.0;
  int st = k1_moments(t, dd, mm, lM, &err);
  if (st) {
    pld_free(lM);
    return st;
  }
  double Gm = m >= 2.0 ? poisson_G((int)m, gamma, lM) + err : 0.0;
  double Gm1 = poisson_G((int)m + 1, gamma, lM) + err;
  pld_free(lM);
  double fwd = interp_order(alpha, m >= 2.0 ? Gm / (m - 1.0) : 0.0, Gm1 / m);
  double rev;
  if (s > S_QUAD_MAX)
    return pld_fail(PLD_ERANGE,
                    "c / sigma = %g / %g = %g is above the reverse quadrature "
                    "cap %g",
                    c, sigma, s, S_QUAD_MAX);
  st = split_reverse_k1_batch(1, &alpha, dd, s, gamma, &rev);
  if (st)
    return st;
  if (!isfinite(fwd))
    return pld_fail_if_silent(PLD_ERANGE,
                              "the forward bound overflows a double at alpha = "
                              "%g, gamma = %g, d = %lld, c / sigma = %g",
                              alpha, gamma, (long long)d, s);
  out->forward = fwd;
  out->reverse = rev;
  out->epsilon = fmax(fwd, rev);
  return PLD_SUCCESS;
}
