/* pldkit: composition of PLDs with FFTW.
 *
 * Every step keeps the pessimistic member above and the optimistic member
 * below the truth:
 *  - tails cut by a window are moved up to +infinity (pessimistic) or
 *    dropped (optimistic), i.e. first-order stochastic moves in the safe
 *    direction, which move every hockey-stick value the safe way;
 *  - circular wrap-around of the mass outside the window is undone by such a
 *    move of a Chernoff-bounded amount (see self_convolve);
 *  - FFT round-off, including the negative values clipped to zero, is booked
 *    as an absolute error on the curve from an a-priori bound.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "alloc.h"
#include "fft.h"
#include <complex.h> /* after fftw3.h: keeps fftw_complex a double[2] */
#include "internal.h"
#include "numerics.h"
#include "detail.h"

/* Safety constant on the standard O(u log N) elementwise error of an FFT
 * (Higham, Accuracy and Stability, Thm 24.2, for backward-stable twiddles). */
#define FFT_KAPPA 4.0

static double mass_of(const struct pld_pmf *p) { return pld_pmf_mass(p); }

/* a * b with 0 * anything = 0: a booked error that is exactly zero stays
 * zero however large the factor it is carried by (a relative error that
 * overflowed to inf after 10^12 compositions made 0 * inf = NaN). */
static double mul0(double a, double b)
{
  return (a == 0.0 || b == 0.0) ? 0.0 : a * b;
}

/* A booked error must be a number: NaN (inf - inf, from overflowing
 * bookings) becomes inf, which certifies nothing (pld/query.c). */
static double booked(double e)
{
  return isnan(e) ? INFINITY : e;
}

/* (M + inf)^T - M^T, the T-fold mass at +infinity, as M^T expm1(T
 * log1p(inf/M)) formed in logs: at T ~ 10^12 the first factor underflows
 * while the second overflows (0 * inf).  A NaN (it cannot arise from
 * finite inputs) becomes the member's safe side. */
static double inf_power(double M, double inf, double Td, int rounding)
{
  double x = Td * log1p(inf / M);
  double lx = x > 1.0 ? x + log(-expm1(-x)) : log(expm1(x));
  double v = exp(Td * log(M) + lx);
  if (isnan(v))
    return rounding == PLD_PESSIMISTIC ? 1.0 : 0.0;
  return v;
}

static size_t count_nonzero(const struct pld_pmf *p)
{
  size_t k = 0;
  for (size_t i = 0; i < p->n; i++)
    k += p->m[i] != 0.0;
  return k;
}

/* Direct convolution over the non-zero masses.  Every output is a sum of at
 * most min(nnz) non-negative products, so its relative rounding error is at
 * most (min nnz + 1) u: a relative error of the curve, with no floor.
 * b's non-zero masses are gathered first (the builder keeps pmfs sparse,
 * ~1 in 10 bins, and the zero tests of the full inner loop took most of
 * a long heterogeneous composition); the order of the additions, hence
 * every output bit, is that of the full loop. */
static int direct_convolve(const struct pld_pmf *a, const struct pld_pmf *b,
                           size_t zb, double *c, size_t nc)
{
  memset(c, 0, nc * sizeof(double));
  size_t *bj = pld_malloc((zb ? zb : 1) * sizeof(size_t));
  double *bv = pld_malloc((zb ? zb : 1) * sizeof(double));
  if (!bj || !bv) {
    pld_free(bj);
    pld_free(bv);
    return PLD_ENOMEM;
  }
  size_t k = 0;
  for (size_t j = 0; j < b->n && k < zb; j++)
    if (b->m[j] != 0.0) {
      bj[k] = j;
      bv[k++] = b->m[j];
    }
  for (size_t i = 0; i < a->n; i++) {
    double ai = a->m[i];
    if (ai == 0.0)
      continue;
    double *ci = c + i;
    for (size_t t = 0; t < k; t++)
      ci[bj[t]] += ai * bv[t];
  }
  pld_free(bj);
  pld_free(bv);
  return PLD_SUCCESS;
}

/* Direct work below this many multiply-adds beats the FFT's error floor at
 * negligible cost. */
#define DIRECT_MAX_OPS 4e6

int pld_pmf_convolve(const struct pld_pmf *a, const struct pld_pmf *b,
                     int rounding, double tau, size_t max_grid,
                     pld_workspace *ws, struct pld_pmf *out, size_t *fft_n)
{
  size_t nc = a->n + b->n - 1;
  if (a->tilt != b->tilt)
    return PLD_EINCOMPAT; /* the accountant tilts every event alike */
  if (nc > max_grid)
    return pld_fail(PLD_ERANGE, "a grid of %zu points exceeds max_grid = %zu (raise max_grid, or coarsen the discretization)", nc, max_grid);
  int64_t off;
  if (__builtin_add_overflow(a->offset, b->offset, &off))
    return pld_fail(PLD_ERANGE, "the composed loss grid index overflows 64 bits");
  struct pld_pmf r;
  int st = pld_pmf_alloc(&r, off, nc);
  if (st)
    return st;
  double ma = mass_of(a), mb = mass_of(b);
  double fft_err = 0.0, direct_rel = 0.0;
  size_t za = count_nonzero(a), zb = count_nonzero(b);
  /* Tilted inputs (§5a) book the FFT's round-off relative to delta, so
   * there direct work is worth it only where it is cheaper than the
   * transforms (about 4 N log2 N multiply-adds of scattered direct work
   * against three transforms of length N): in a long heterogeneous
   * composition the sparse builds (~1 bin in 10 non-zero) made millions of
   * direct multiply-adds per pair the largest cost of the composition. */
  double direct_max = DIRECT_MAX_OPS;
  if (a->tilt > 0.0) {
    double Nf = (double)pld_fft_ladder_size(nc);
    direct_max = fmin(direct_max, 4.0 * Nf * log2(Nf));
  }
  if ((double)za * (double)zb <= direct_max) {
    if ((st = direct_convolve(a, b, zb, r.m, nc))) {
      pld_pmf_clear(&r);
      return st;
    }
    direct_rel = ((double)(za < zb ? za : zb) + 1.0) * PLD_U;
  } else {
    size_t N = pld_fft_ladder_size(nc);
    if (N > max_grid && (N = pld_fft_good_size(nc)) > max_grid) {
      pld_pmf_clear(&r);
      return pld_fail(PLD_ERANGE, "a grid of %zu points exceeds max_grid = %zu (raise max_grid, or coarsen the discretization)", N, max_grid);
    }
    struct pld_fft *f;
    if ((st = pld_fft_get(ws, N, &f))) {
      pld_pmf_clear(&r);
      return st;
    }
    size_t nh = N / 2 + 1;
    memset(f->x, 0, N * sizeof(double));
    memcpy(f->x, a->m, a->n * sizeof(double));
    fftw_execute_dft_r2c(f->fwd, f->x, f->Y);
    memset(f->x, 0, N * sizeof(double));
    memcpy(f->x, b->m, b->n * sizeof(double));
    fftw_execute_dft_r2c(f->fwd, f->x, f->X);
    double sa = 0, sb = 0, sab = 0;
    for (size_t k = 0; k < nh; k++) {
      double complex fa = f->Y[k][0] + I * f->Y[k][1];
      double complex fb = f->X[k][0] + I * f->X[k][1];
      double complex z = fa * fb;
      double w = (k == 0 || (N % 2 == 0 && k == N / 2)) ? 1.0 : 2.0;
      /* |re| + |im| >= |z|: a bound on the moduli without hypot (which
       * cost a fifth of a long heterogeneous composition); the booked
       * error grows by at most sqrt(2). */
      sa += w * (fabs(creal(fa)) + fabs(cimag(fa)));
      sb += w * (fabs(creal(fb)) + fabs(cimag(fb)));
      sab += w * (fabs(creal(z)) + fabs(cimag(z)));
      f->X[k][0] = creal(z);
      f->X[k][1] = cimag(z);
    }
    fftw_execute_dft_c2r(f->inv, f->X, f->x);
    double inv = 1.0 / (double)N, lg = log2((double)N) + 1.0;
    /* elementwise bound on |computed - exact| */
    double elem = (FFT_KAPPA * PLD_U * lg * (ma * sb + mb * sa + sab) + PLD_U * sab) *
                  inv;
    /* Outputs within elem of 0 are round-off, not signal: set them to 0.
     * Left in, that noise (~1e-17 per bin) sits above tail_mass and stops
     * the tails from being trimmed, so the support of a long heterogeneous
     * composition grew like the SUM of the supports instead of its spread
     * (100 steps: 456 nats wide).  An output c <= elem has an exact value
     * e <= c + elem <= 2 elem, so zeroing costs at most 2 elem per bin:
     * booking 2 elem per output in L1 covers both (the hockey-stick moves
     * by at most the L1 change of the masses). */
    for (size_t j = 0; j < nc; j++) {
      double v = f->x[j] * inv;
      r.m[j] = v > elem ? v : 0.0;
    }
    fft_err = 2.0 * elem * (double)nc;
    if (*fft_n < N)
      *fft_n = N;
  }
  for (size_t j = 0; j < nc; j++)
    if (r.m[j] < 0.0)
      r.m[j] = 0.0; /* within fft_err: clipping never moves away from the truth */
  if (a->tilt > 0.0) {
    /* Tilted (§5a): the curve-level (rel, abs) compound over the untilted
     * measures as below; everything this product adds is an L1 error of
     * the tilted masses.  |F_a*F_b - X_a*X_b| <= |F_a - X_a| |F_b| +
     * |X_a| |F_b - X_b|, and direct convolution is within direct_rel of the
     * exact product of the computed inputs, bin by bin. */
    double ua = a->umass, ub = b->umass;
    double ta = ua + a->inf, tb = ub + b->inf;
    r.tilt = a->tilt;
    r.lnorm = a->lnorm + b->lnorm;
    if (__builtin_add_overflow(a->kref, b->kref, &r.kref)) {
      pld_pmf_clear(&r);
      return PLD_ERANGE;
    }
    r.umass = ua * ub;
    r.inf = a->inf * tb + ua * b->inf;
    r.rel = booked((1.0 + a->rel) * (1.0 + b->rel) - 1.0);
    r.abs = booked(mul0(a->abs, tb) + mul0(b->abs, ta * (1.0 + a->rel)));
    r.tabs = (a->tabs * mb + b->tabs * (ma + a->tabs) + fft_err +
              direct_rel * ma * mb) * (1.0 + 4.0 * PLD_U);
  } else {
    double ta = ma + a->inf, tb = mb + b->inf;
    r.inf = a->inf * tb + ma * b->inf;
    r.rel = booked((1.0 + a->rel) * (1.0 + b->rel) * (1.0 + direct_rel) -
                   1.0);
    r.abs = booked(mul0(a->abs, tb) + mul0(b->abs, ta * (1.0 + a->rel)) +
                   fft_err);
  }
  if ((st = pld_pmf_trim(&r, rounding, tau))) {
    pld_pmf_clear(&r);
    return st;
  }
  *out = r;
  return PLD_SUCCESS;
}

/* log sum_b mass_b e^{lambda idx_b} over coarse bins; bins take their top index
 * for lambda > 0 and bottom index for lambda < 0, so the result bounds the
 * exact log-MGF from above (a valid Chernoff exponent). */
struct coarse {
  size_t nb;
  double *mass, *lo, *hi;
  double hmax, lmin; /* largest hi and smallest lo of the bins with mass */
};

static double coarse_logmgf(const struct coarse *c, double lambda)
{
  /* the largest exponent, without a pass over the bins: a rounded product
   * is monotone in each factor, so max_b fl(lambda hi_b) = fl(lambda
   * max_b hi_b) for lambda > 0, and likewise with the smallest lo for
   * lambda < 0 (the same double as the pass gave) */
  double mx = lambda * (lambda > 0 ? c->hmax : c->lmin);
  double s = 0.0;
  for (size_t b = 0; b < c->nb; b++)
    if (c->mass[b] > 0.0)
      s += c->mass[b] * exp(lambda * (lambda > 0 ? c->hi[b] : c->lo[b]) - mx);
  return mx + log(s);
}

/* Index bound from the Chernoff exponent for sign `sgn` (+1: upper tail, -1:
 * lower tail): minimise (T K(l) - log tau)/l over l of that sign by golden
 * section in log|l|.  Any l gives a valid bound; the search only tightens. */
static double chernoff_edge(const struct coarse *c, double T, double logtau,
                            double sd, int sgn, double *lam_out)
{
  double a = log(1e-7 / sd), b = log(1e3 / sd);
  const double gr = 0.6180339887498949;
#define EDGE(u) (sgn * (T * coarse_logmgf(c, sgn * exp(u)) - logtau) / exp(u))
  double x1 = b - gr * (b - a), x2 = a + gr * (b - a);
  double f1 = EDGE(x1), f2 = EDGE(x2);
  for (int it = 0; it < 32; it++) {
    /* upper tail: minimise; lower tail: maximise (EDGE has the sign folded) */
    if ((sgn > 0) ? (f1 < f2) : (f1 > f2)) {
      b = x2;
      x2 = x1;
      f2 = f1;
      x1 = b - gr * (b - a);
      f1 = EDGE(x1);
    } else {
      a = x1;
      x1 = x2;
      f1 = f2;
      x2 = a + gr * (b - a);
      f2 = EDGE(x2);
    }
  }
  double u = 0.5 * (x1 + x2);
  *lam_out = sgn * exp(u);
  return EDGE(u);
#undef EDGE
}

/* Binary powering with pairwise convolutions (direct while the operands
 * stay sparse): exact up to relative rounding for discrete mechanisms, so
 * tiny deltas are not lost under an FFT error floor. */
static int sparse_power(const struct pld_pmf *a, uint64_t T, int rounding,
                        double tau, size_t max_grid, pld_workspace *ws,
                        struct pld_pmf *out, size_t *fft_n)
{
  struct pld_pmf base, acc, tmp;
  int st = pld_pmf_copy(a, &base), have = 0;
  if (st)
    return st;
  memset(&acc, 0, sizeof acc);
  while (T) {
    if (T & 1) {
      if (!have) {
        st = pld_pmf_copy(&base, &acc);
        have = 1;
      } else {
        st = pld_pmf_convolve(&acc, &base, rounding, tau, max_grid, ws, &tmp,
                              fft_n);
        if (!st) {
          pld_pmf_clear(&acc);
          acc = tmp;
        }
      }
      if (st)
        break;
    }
    T >>= 1;
    if (T) {
      st = pld_pmf_convolve(&base, &base, rounding, tau, max_grid, ws, &tmp,
                            fft_n);
      if (st)
        break;
      pld_pmf_clear(&base);
      base = tmp;
    }
  }
  pld_pmf_clear(&base);
  if (st) {
    pld_pmf_clear(&acc);
    return st;
  }
  *out = acc;
  return PLD_SUCCESS;
}

/* Window of the T-fold finite part and the Chernoff bounds on the mass
 * outside it. */
struct window {
  int64_t wlo, whi, full_lo, full_hi;
  double tau_lo, tau_hi;
};

static int use_sparse(const struct pld_pmf *a, uint64_t T, size_t max_grid)
{
  size_t nz = count_nonzero(a);
  return nz <= 64 && (double)(a->n - 1) * (double)T + 1.0 <= (double)max_grid;
}

static int self_window(const struct pld_pmf *a, uint64_t T, double tau,
                       size_t max_grid, struct window *win)
{
  double Td = (double)T;
  double M = mass_of(a);
  int64_t full_lo, full_hi;
  if (__builtin_mul_overflow(a->offset, (int64_t)T, &full_lo) ||
      __builtin_mul_overflow(a->offset + (int64_t)a->n - 1, (int64_t)T,
                             &full_hi))
    return pld_fail(PLD_ERANGE,
                    "T = %llu times the loss index range [%lld, %lld] "
                    "overflows int64",
                    (unsigned long long)T, (long long)a->offset,
                    (long long)(a->offset + (int64_t)a->n - 1));
  int64_t wlo = full_lo, whi = full_hi;
  double tau_lo = 0.0, tau_hi = 0.0;
  if (M > 0.0 && a->n > 1 && (double)(full_hi - full_lo) + 1.0 > 4096.0) {
    double mean = 0.0, m2 = 0.0;
    for (size_t i = 0; i < a->n; i++) {
      mean += a->m[i] * (double)i;
      m2 += a->m[i] * (double)i * (double)i;
    }
    mean /= M;
    double sd = sqrt(fmax(m2 / M - mean * mean, 1.0));
    /* Coarse bins bound the MGF from above, but moving a bin's mass to its
     * top shifts the T-fold sum by T times the mass-weighted shift; keep
     * that below 1% of the composed spread by closing a bin as soon as
     * mass * width would exceed the budget.  The bulk ends up in single
     * points, thin tails in wide bins. */
    double budget = 0.01 * sd * sqrt(Td) / Td / 4096.0;
    size_t cap = 8192;
    struct coarse c = {0, NULL, NULL, NULL, -INFINITY, INFINITY};
    c.mass = pld_malloc(cap * sizeof(double));
    c.lo = pld_malloc(cap * sizeof(double));
    c.hi = pld_malloc(cap * sizeof(double));
    if (!c.mass || !c.lo || !c.hi) {
      pld_free(c.mass);
      pld_free(c.lo);
      pld_free(c.hi);
      return PLD_ENOMEM;
    }
    size_t i = 0;
    while (i < a->n) {
      while (i < a->n && a->m[i] == 0.0)
        i++;
      if (i >= a->n)
        break;
      size_t j = i;
      double s = a->m[i];
      size_t last = i;
      while (j + 1 < a->n) {
        double ns = s + a->m[j + 1];
        if (ns * (double)(j + 1 - i) > budget && c.nb + 1 < cap)
          break;
        j++;
        s = ns;
        if (a->m[j] > 0.0)
          last = j;
      }
      c.mass[c.nb] = s;
      c.lo[c.nb] = (double)a->offset + (double)i;
      c.hi[c.nb] = (double)a->offset + (double)last;
      if (s > 0.0) {
        c.hmax = fmax(c.hmax, c.hi[c.nb]);
        c.lmin = fmin(c.lmin, c.lo[c.nb]);
      }
      c.nb++;
      i = j + 1;
    }
    double logtau = log(tau), lam;
    double ehi = chernoff_edge(&c, Td, logtau, sd, +1, &lam);
    if (ehi < (double)full_hi) {
      whi = (int64_t)ceil(ehi);
      tau_hi = exp(Td * coarse_logmgf(&c, lam) - lam * (double)whi);
    }
    double elo = chernoff_edge(&c, Td, logtau, sd, -1, &lam);
    if (elo > (double)full_lo) {
      wlo = (int64_t)floor(elo);
      tau_lo = exp(Td * coarse_logmgf(&c, lam) - lam * (double)wlo);
    }
    pld_free(c.mass);
    pld_free(c.lo);
    pld_free(c.hi);
    if (whi < wlo)
      whi = wlo;
  }
  double span = (double)(whi - wlo) + 1.0;
  if (span > (double)max_grid)
    return pld_fail(PLD_ERANGE, "a grid of %.3g points exceeds max_grid = %zu (raise max_grid, or coarsen the discretization)", span, max_grid);
  win->wlo = wlo;
  win->whi = whi;
  win->full_lo = full_lo;
  win->full_hi = full_hi;
  win->tau_lo = tau_lo;
  win->tau_hi = tau_hi;
  return PLD_SUCCESS;
}

/* The T-fold self-convolution on a window, with FFT length N >= window. */
static int self_exec(const struct pld_pmf *a, uint64_t T, int rounding,
                     double tau, pld_workspace *ws, const struct window *win,
                     size_t N, struct pld_pmf *out, size_t *fft_n)
{
  int st;
  double Td = (double)T;
  double M = mass_of(a);
  int64_t wlo = win->wlo, whi = win->whi, full_lo = win->full_lo;
  double tau_lo = win->tau_lo, tau_hi = win->tau_hi;
  size_t nw = (size_t)(whi - wlo + 1);
  struct pld_fft *f;
  if ((st = pld_fft_get(ws, N, &f)))
    return st;
  struct pld_pmf r;
  if ((st = pld_pmf_alloc(&r, wlo, nw)))
    return st;

  /* Wrap the input modulo N: the circular T-fold convolution of the wrapped
   * input is the wrapped linear one.  Index i of `a` sits at i mod N, so the
   * sum s = T*offset + k lands at k mod N. */
  memset(f->x, 0, N * sizeof(double));
  for (size_t i = 0, p = 0; i < a->n; i++) {
    f->x[p] += a->m[i];
    if (++p == N)
      p = 0;
  }
  fftw_execute_dft_r2c(f->fwd, f->x, f->X);
  size_t nh = N / 2 + 1;
  double lg = log2((double)N) + 1.0;
  double efwd = FFT_KAPPA * PLD_U * lg * M; /* elementwise forward error */
  double sum_dy = 0.0, sum_y = 0.0;
  /* Coefficients of z^T below e^-60 change no output by more than e^-60
   * (inverse transform averages); they are dropped and that is booked. */
  const double lcut = -60.0;
  double dropped = 0.0;
  double lefwd = log(efwd), lTd = log(Td);
  /* The two tests below as one comparison: r2 <= thr means the
   * coefficient is dropped and adds nothing to sum_dy, so it skips the
   * logs (only a few dozen of ~1e5 coefficients survive the T-th power).
   * thr is the r2 where T log|z| = lcut - 1e-3, lowered by 8 ulps for the
   * exp's rounding: below it the computed T lr stays under lcut (its
   * rounding is a few ulps of 60).  The error term's exponent is
   * non-decreasing in |z| (its derivative (|z| - e)/|z|^2 > 0 above e, and
   * it jumps up at |z| = e), so it is at most its value at thr, which must
   * clear lcut by a margin above its own rounding; else no shortcut
   * (thr = -1).  Every other coefficient runs the full tests: the
   * outputs are bit for bit those of the tests alone. */
  double thr = exp(2.0 * (lcut - 1e-3) / Td) * (1.0 - 8.0 * DBL_EPSILON);
  {
    double lrt = 0.5 * log(thr), rrt = sqrt(thr);
    double ht = (Td - 1.0) * (rrt > efwd ? lrt + efwd / rrt : lefwd + PLD_LN2) +
                lTd + lefwd;
    double h0 = (Td - 1.0) * (lefwd + PLD_LN2) + lTd + lefwd;
    double marg = 1e-9 * (Td * (fabs(lrt) + fabs(lefwd) + 2.0) + lTd +
                          fabs(lefwd) + 61.0);
    if (!(ht <= lcut - marg && h0 <= lcut - marg))
      thr = -1.0;
  }
  for (size_t k = 0; k < nh; k++) {
    double re = f->X[k][0], im = f->X[k][1];
    double r2 = re * re + im * im;
    double w = (k == 0 || (N % 2 == 0 && k == N / 2)) ? 1.0 : 2.0;
    if (r2 <= thr) {
      f->X[k][0] = 0.0;
      f->X[k][1] = 0.0;
      dropped += w;
      continue;
    }
    double lr = 0.5 * log(r2);
    /* error term T (|z| + e)^{T-1} e, with log(|z| + e) <= log|z| + e/|z|
     * when |z| > e and <= log(2e) otherwise */
    double rr = sqrt(r2);
    double lgrow = (Td - 1.0) * (rr > efwd ? lr + efwd / rr : lefwd + PLD_LN2);
    if (lgrow + lTd + lefwd > lcut)
      sum_dy += w * Td * exp(lgrow) * efwd;
    if (!(Td * lr > lcut)) {
      f->X[k][0] = 0.0;
      f->X[k][1] = 0.0;
      dropped += w; /* each below e^lcut, scaled after the loop */
      continue;
    }
    double mag = exp(Td * lr);
    double ang = fmod(Td * atan2(im, re), 6.283185307179586476925);
    f->X[k][0] = mag * cos(ang);
    f->X[k][1] = mag * sin(ang);
    sum_dy += w * FFT_KAPPA * PLD_U * Td * mag;
    sum_y += w * mag;
  }
  fftw_execute_dft_c2r(f->inv, f->X, f->x);
  double inv = 1.0 / (double)N;
  int64_t base = (wlo - full_lo) % (int64_t)N;
  if (base < 0)
    base += (int64_t)N;
  for (size_t j = 0; j < nw; j++) {
    double v = f->x[((size_t)base + j) % N] * inv;
    r.m[j] = v > 0.0 ? v : 0.0;
  }
  double elem = (sum_dy + dropped * exp(lcut) + FFT_KAPPA * PLD_U * lg * sum_y) * inv;
  double fft_err = elem * (double)nw;

  if (a->tilt > 0.0) {
    /* Tilted (§5a): nothing is moved.  The window holds the in-window mass
     * plus aliased mass of at most tau_lo + tau_hi, and misses the mass
     * outside, also at most tau_lo + tau_hi: an L1 error of the tilted
     * masses of at most twice that.  The input's own tilted error tabs
     * grows to T tabs (M + tabs)^{T-1} (telescoping the T-fold product). */
    double Mu = a->umass;
    r.tilt = a->tilt;
    r.lnorm = Td * a->lnorm;
    if (__builtin_mul_overflow(a->kref, (int64_t)T, &r.kref)) {
      pld_pmf_clear(&r);
      return PLD_ERANGE;
    }
    r.umass = exp(Td * log(Mu));
    if (Mu > 0.0 && a->inf > 0.0)
      r.inf = inf_power(Mu, a->inf, Td, rounding);
    else if (Mu == 0.0)
      r.inf = exp(Td * log(a->inf));
    /* exp(T log x) carries a relative error of about T u: round the mass
     * at +inf outward for the member */
    r.inf *= exp((rounding == PLD_PESSIMISTIC ? 4.0 : -4.0) * PLD_U * (Td + 2.0));
    if (r.inf > 1.0 && rounding == PLD_PESSIMISTIC)
      r.inf = 1.0; /* no curve exceeds 1: capping stays above the truth */
    r.rel = booked(expm1(Td * log1p(a->rel)));
    r.abs = booked(mul0(Td * a->abs, exp(Td * log1p(a->rel))));
    double grow = a->tabs > 0.0
                      ? Td * a->tabs * exp((Td - 1.0) * log(M + a->tabs))
                      : 0.0;
    r.tabs = (grow + fft_err + 2.0 * (tau_lo + tau_hi)) * (1.0 + 4.0 * PLD_U);
    if (*fft_n < N)
      *fft_n = N;
    if ((st = pld_pmf_trim(&r, rounding, tau))) {
      pld_pmf_clear(&r);
      return st;
    }
    *out = r;
    return PLD_SUCCESS;
  }
  /* The window holds the true in-window mass plus aliased tail mass (all
   * non-negative).  Pessimistic: move tau_hi from the bottom to +infinity;
   * this dominates the true distribution in first order (the aliased upper
   * tail may sit anywhere, the removed mass is at least the whole upper
   * tail).  Optimistic: drop tau_lo + tau_hi from the top. */
  if (rounding == PLD_PESSIMISTIC) {
    double rem = tau_hi;
    for (size_t j = 0; j < nw && rem > 0.0; j++) {
      double t = r.m[j] < rem ? r.m[j] : rem;
      r.m[j] -= t;
      rem -= t;
    }
    r.inf += tau_hi;
  } else {
    double rem = tau_lo + tau_hi;
    for (size_t j = nw; j-- > 0 && rem > 0.0;) {
      double t = r.m[j] < rem ? r.m[j] : rem;
      r.m[j] -= t;
      rem -= t;
    }
  }
  if (M > 0.0 && a->inf > 0.0)
    r.inf += inf_power(M, a->inf, Td, rounding);
  else if (M == 0.0)
    r.inf += exp(Td * log(a->inf));
  if (r.inf > 1.0 && rounding == PLD_PESSIMISTIC)
    r.inf = 1.0; /* no curve exceeds 1: capping stays above the truth */
  r.rel = booked(expm1(Td * log1p(a->rel)));
  r.abs = booked(mul0(Td * a->abs, exp(Td * log1p(a->rel))) + fft_err);
  if (*fft_n < N)
    *fft_n = N;
  if ((st = pld_pmf_trim(&r, rounding, tau))) {
    pld_pmf_clear(&r);
    return st;
  }
  *out = r;
  return PLD_SUCCESS;
}

int pld_pmf_self_convolve(const struct pld_pmf *a, uint64_t T, int rounding,
                          double tau, size_t max_grid, pld_workspace *ws,
                          struct pld_pmf *out, size_t *fft_n)
{
  if (T == 1)
    return pld_pmf_copy(a, out);
  if (use_sparse(a, T, max_grid))
    return sparse_power(a, T, rounding, tau, max_grid, ws, out, fft_n);
  struct window win;
  int st = self_window(a, T, tau, max_grid, &win);
  if (st)
    return st;
  /* a ladder length (at most 25% padding) so that queries of nearby sizes
   * share one process-wide plan (src/fft.c); any N >= the window is sound */
  size_t nw0 = (size_t)(win.whi - win.wlo + 1);
  size_t N = pld_fft_ladder_size(nw0);
  if (N > max_grid)
    N = pld_fft_good_size(nw0);
  if (N > max_grid)
    return pld_fail(PLD_ERANGE, "a grid of %zu points exceeds max_grid = %zu (raise max_grid, or coarsen the discretization)", N, max_grid);
  return self_exec(a, T, rounding, tau, ws, &win, N, out, fft_n);
}

/* What a composition may trim from each side of member m: the workspace's
 * tilted tail for a tilted member where it is set (booked as tilted error,
 * internal.h), else the params' tail. */
static double tau_for(const pld_workspace *ws, const struct pld_pmf *m)
{
  if (m->tilt > 0.0 && ws->tilt_tail > 0.0)
    return ws->tilt_tail;
  return pld_params_tail(&ws->params);
}

/* Apply op to every (direction, rounding) member; symmetric inputs compute
 * direction PQ only. */
static int compose_common(const pld_dist *a, const pld_dist *b, uint64_t T,
                          pld_workspace *ws, pld_dist **out)
{
  pld_workspace *own = NULL;
  int st;
  if (!ws) {
    if ((st = pld_workspace_alloc(NULL, &own)))
      return st;
    ws = own;
  }
  const pld_params *pp = pld_workspace_params(ws);
  struct pld_dist *d;
  if ((st = pld_dist_new(a->delta, &d))) {
    pld_workspace_free(own);
    return st;
  }
  d->symmetric = a->symmetric && (!b || b->symmetric);
  d->fft_size = a->fft_size;
  if (b && b->fft_size > d->fft_size)
    d->fft_size = b->fft_size;
  int ndir = d->symmetric ? 1 : 2;
  /* Self-composition: one FFT length for all members, so that one plan
   * serves them all. */
  struct window win[2][2];
  int sparse[2][2];
  size_t Ncommon = 0;
  if (!b && T > 1)
    for (int dir = 0; dir < ndir && !st; dir++)
      for (int r = 0; r < 2 && !st; r++) {
        const struct pld_pmf *m = &a->p[dir][r];
        sparse[dir][r] = use_sparse(m, T, pp->max_grid);
        if (sparse[dir][r])
          continue;
        st = self_window(m, T, tau_for(ws, m), pp->max_grid, &win[dir][r]);
        size_t nw = st ? 0 : (size_t)(win[dir][r].whi - win[dir][r].wlo + 1);
        if (nw > Ncommon)
          Ncommon = nw;
      }
  if (!st && Ncommon) {
    /* a ladder length, shared across queries (see pld_pmf_self_convolve) */
    size_t Nl = pld_fft_ladder_size(Ncommon);
    Ncommon = Nl <= pp->max_grid ? Nl : pld_fft_good_size(Ncommon);
    if (Ncommon > pp->max_grid)
      st = pld_fail(PLD_ERANGE, "a grid of %zu points exceeds max_grid = %zu (raise max_grid, or coarsen the discretization)", Ncommon, pp->max_grid);
  }
  for (int dir = 0; dir < ndir && !st; dir++)
    for (int r = 0; r < 2 && !st; r++) {
      if (b)
        st = pld_pmf_convolve(&a->p[dir][r], &b->p[dir][r], r,
                              tau_for(ws, &a->p[dir][r]),
                              pp->max_grid, ws, &d->p[dir][r], &d->fft_size);
      else if (T == 1)
        st = pld_pmf_copy(&a->p[dir][r], &d->p[dir][r]);
      else if (sparse[dir][r])
        st = sparse_power(&a->p[dir][r], T, r, tau_for(ws, &a->p[dir][r]),
                          pp->max_grid, ws,
                          &d->p[dir][r], &d->fft_size);
      else
        st = self_exec(&a->p[dir][r], T, r, tau_for(ws, &a->p[dir][r]), ws,
                       &win[dir][r],
                       Ncommon, &d->p[dir][r], &d->fft_size);
    }
  if (!st && ndir == 1)
    for (int r = 0; r < 2 && !st; r++)
      st = pld_pmf_copy(&d->p[0][r], &d->p[1][r]);
  pld_workspace_free(own);
  if (st) {
    pld_dist_free(d);
    return st;
  }
  *out = d;
  return PLD_SUCCESS;
}

int pld_dist_compose(const pld_dist *a, const pld_dist *b, pld_workspace *ws,
                     pld_dist **out)
{
  pld_detail_clear();
  if (!a || !b || !out)
    return pld_fail(PLD_EINVAL, "a, b and out must not be NULL");
  if (a->delta != b->delta)
    return PLD_EINCOMPAT;
  return compose_common(a, b, 0, ws, out);
}

int pld_dist_self_compose(const pld_dist *a, uint64_t T, pld_workspace *ws,
                          pld_dist **out)
{
  pld_detail_clear();
  if (!a || !out)
    return pld_fail(PLD_EINVAL, "a and out must not be NULL");
  if (T < 1 || T > ((uint64_t)1 << 53))
    return pld_fail(PLD_EINVAL, "T = %llu must be in [1, 2^53]",
                    (unsigned long long)T);
  return compose_common(a, NULL, T, ws, out);
}
