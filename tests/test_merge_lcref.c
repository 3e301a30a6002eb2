/* LC-PLD (linear combination, Thm 6.4 / Cor. 6.5 surrogate) on the merging
 * paper's MNIST setting (App. H.1: q = 256/60000, T = 705, lr 0.1, (C,
 * sigma) = (1, 0.5), (2, 0.5), (1, 2)), pinned to a value computed HERE,
 * independently of pldkit's PLD machinery (its mechanism curves, grid
 * builders, FFT composition and query code are not used).
 *
 * The surrogate's step (Thm 6.4, eq. (11)) in units of s: P = sum_J rho_J
 * N(d_J, 1) against Q = N(0, 1), J over the subsets of the runs, rho_J =
 * prod_{i in J} q prod_{i notin J} (1 - q), d_J = sum_{i in J} lambda_i lr
 * C_i / s, s^2 = sum_i (lambda_i lr sigma_i C_i)^2 -- written out below from
 * the paper's definitions, not through pld_merge_*.  Both directions are
 * accounted (add/remove): delta(eps) = max(delta_PQ, delta_QP).
 *
 * Reference, per direction: the one-step privacy loss L(y) = log p(y)/q(y)
 * (log sum_J rho_J e^{d_J y - d_J^2/2}, in long double) on a fine y grid
 * (step DY over [-14, 14]: every component's mass outside is below 1e-40),
 * each y cell's exact mass (erfc differences, tail-accurate form) put at the
 * loss of its midpoint and split between the two neighbouring points of a
 * loss grid of step h so that the mean is kept; the T-fold composition as
 * one power of its discrete Fourier transform (a radix-2 FFT written here,
 * over a loss window of 65.5 nats: the composed masses that would wrap
 * around lie beyond it, and the test checks that the total is 1 and the
 * mass past 15 nats is below 1e-10); then delta(eps) = sum_k m_k (1 -
 * e^{eps - l_k})_+ and eps(delta) by bisection.  The split's error is
 * second order in h (variance h^2/4 per step): done at h = 2.5e-4 and
 * 1.25e-4 and Richardson-extrapolated.
 *
 * Its error, stated tolerance REF_TOL = 2e-4 relative on delta: the two
 * extrapolations from h = 5e-4, 2.5e-4, 1.25e-4 agree to 5e-6; the same
 * machinery on a pure Gaussian composition (q = 1, where delta has a
 * closed form) is within 1e-7 of it down to delta = 3e-6
 * (test_reference_gaussian, asserted at 1e-5).  The library's bracket must
 * contain the reference up to REF_TOL and its upper end must not exceed it
 * by more than the library's accuracy (0.2% default) plus REF_TOL.
 * (pldkit's bracket is about 0.1% wide below and 0.05% above it.)
 */
#include <complex.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include <pldkit/merge.h>
#include <pldkit/pldkit.h>

#ifndef NFFT
#define NFFT (1u << 18)
#endif
#define PI_ 3.14159265358979323846
#define SQRT2_ 1.41421356237309504880
#ifndef H
#define H 2.5e-4
#endif
#ifndef DY
#define DY 2e-4
#endif
#define YMAX 14.0
#define LOFF 25.0 /* the loss window is [-LOFF, NFFT H - LOFF) */
#define T_STEPS 705
#define REF_TOL 2e-4

static const double Q = 256.0 / 60000.0, LR = 0.1;
static const double CLIP[3] = {1.0, 2.0, 1.0}, SIG[3] = {0.5, 0.5, 2.0};

/* In-place iterative radix-2 FFT (sign -1 forward, +1 inverse unscaled). */
static void fft(double complex *a, size_t n, int sign)
{
  for (size_t i = 1, j = 0; i < n; i++) {
    size_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      double complex t = a[i];
      a[i] = a[j];
      a[j] = t;
    }
  }
  for (size_t len = 2; len <= n; len <<= 1) {
    double ang = sign * 2.0 * PI_ / (double)len;
    for (size_t i = 0; i < n; i += len)
      for (size_t k = 0; k < len / 2; k++) {
        /* twiddles from cos/sin directly (no recurrence: keeps round-off
         * at a few ulps per stage) */
        double complex w = cos(ang * (double)k) + I * sin(ang * (double)k);
        double complex u = a[i + k], v = a[i + k + len / 2] * w;
        a[i + k] = u + v;
        a[i + k + len / 2] = u - v;
      }
  }
}

/* N(m, 1) mass of (a, b), accurate in both tails. */
static double cell_mass(double a, double b, double m)
{
  double x = a - m, y = b - m;
  if (x >= 0.0) return 0.5 * (erfc(x / SQRT2_) - erfc(y / SQRT2_));
  if (y <= 0.0) return 0.5 * (erfc(-y / SQRT2_) - erfc(-x / SQRT2_));
  return 1.0 - 0.5 * erfc(-x / SQRT2_) - 0.5 * erfc(y / SQRT2_);
}

struct pair {
  size_t k;
  double d[8], rho[8]; /* P = sum rho_j N(d_j, 1), Q = N(0, 1) */
};

static void lc_pair(const double *lambda, struct pair *p)
{
  double s2 = 0.0;
  for (int i = 0; i < 3; i++) {
    double e = lambda[i] * LR * SIG[i] * CLIP[i];
    s2 += e * e;
  }
  double s = sqrt(s2);
  p->k = 0;
  for (unsigned J = 0; J < 8; J++) {
    double rho = 1.0, d = 0.0;
    for (int i = 0; i < 3; i++) {
      if (J & (1u << i)) {
        rho *= Q;
        d += lambda[i] * LR * CLIP[i];
      } else {
        rho *= 1.0 - Q;
      }
    }
    p->d[p->k] = d / s;
    p->rho[p->k] = rho;
    p->k++;
  }
}

/* log p(y)/q(y) in long double */
static long double loss(const struct pair *p, double y)
{
  long double m = -INFINITY, t[8];
  for (size_t j = 0; j < p->k; j++) {
    t[j] = logl((long double)p->rho[j]) + (long double)p->d[j] * y -
           0.5L * (long double)p->d[j] * p->d[j];
    if (t[j] > m) m = t[j];
  }
  long double sum = 0.0L;
  for (size_t j = 0; j < p->k; j++) sum += expl(t[j] - m);
  return m + logl(sum);
}

/* The one-step PLD of one direction (dir 0: PQ, the loss under P; 1: QP,
 * minus the loss under Q) as y cells: cell i has mass mass[i] (exact, by
 * erfc differences) and loss loss[i] (at its midpoint). */
struct cells {
  size_t n;
  double *mass;
  long double *loss;
};

static void cells_of(const struct pair *p, int dir, struct cells *c)
{
  size_t n = (size_t)(2.0 * YMAX / DY) + 1;
  c->mass = malloc(n * sizeof *c->mass);
  c->loss = malloc(n * sizeof *c->loss);
  assert_non_null(c->mass);
  assert_non_null(c->loss);
  c->n = 0;
  for (size_t i = 0; i < n; i++) {
    double y = -YMAX + (double)i * DY, z = y + DY;
    double mass = 0.0;
    if (dir == 0)
      for (size_t j = 0; j < p->k; j++) mass += p->rho[j] * cell_mass(y, z, p->d[j]);
    else
      mass = cell_mass(y, z, 0.0);
    if (!(mass > 0.0)) continue;
    long double l = loss(p, y + 0.5 * DY);
    c->mass[c->n] = mass;
    c->loss[c->n++] = dir ? -l : l;
  }
}

/* The T-fold composition of the cells on the loss grid of step h with nfft
 * points, m[i] at loss (i - off) h, off = LOFF / h. */
static void composed(const struct cells *c, double h, size_t nfft, double *m)
{
  double complex *a = calloc(nfft, sizeof *a);
  assert_non_null(a);
  const long off = lround(LOFF / h);
  for (size_t i = 0; i < c->n; i++) {
    long double x = c->loss[i] / h + off;
    long i0 = (long)floorl(x);
    double f = (double)(x - i0), mass = c->mass[i];
    if (i0 < 0 || i0 + 1 >= (long)nfft) {
      /* a loss off the window (|y| near YMAX): only where the mass is
       * nil at delta's scale */
      assert_true(mass < 1e-100);
      continue;
    }
    /* mean-preserving split between the two neighbours */
    a[i0] += mass * (1.0 - f);
    a[i0 + 1] += mass * f;
  }
  fft(a, nfft, -1);
  for (size_t i = 0; i < nfft; i++) a[i] = cpow(a[i], T_STEPS);
  fft(a, nfft, +1);
  /* the composed index is the sum of T indices, loss / h + T off: shift it
   * back to the window (circularly) */
  long shift = (long)(((long long)(T_STEPS - 1) * off) % (long long)nfft);
  for (size_t j = 0; j < nfft; j++) {
    size_t src = (size_t)(((long)j + shift) % (long)nfft);
    m[j] = creal(a[src]) / (double)nfft;
  }
  free(a);
}

/* delta(eps) of one composed direction from suffix sums (long double):
 * for l_{j-1} < eps <= l_j, delta = sum_{k >= j} m_k (1 - e^{eps - l_k}) =
 * S0[j] - e^{eps - l_j} S1[j], S0[j] = sum_{k >= j} m_k, S1[j] = sum_{k >=
 * j} m_k e^{l_j - l_k}.  Every term is >= 0; the subtraction loses at most
 * S0[j] / delta ~ 1e2 of long double's 1e-19. */
struct tails {
  double h;
  size_t n;
  long off;
  long double *s0, *s1;
};

static void tails_of(const double *m, double h, size_t n, struct tails *t)
{
  t->h = h;
  t->n = n;
  t->off = lround(LOFF / h);
  t->s0 = malloc((n + 1) * sizeof(long double));
  t->s1 = malloc((n + 1) * sizeof(long double));
  assert_non_null(t->s0);
  assert_non_null(t->s1);
  t->s0[n] = t->s1[n] = 0.0L;
  const long double eh = expl(-(long double)h);
  for (size_t j = n; j-- > 0;) {
    t->s0[j] = t->s0[j + 1] + m[j];
    t->s1[j] = m[j] + eh * t->s1[j + 1];
  }
}

static double delta_of(const struct tails *t, double eps)
{
  long j = (long)ceill((long double)eps / t->h) + t->off; /* l_j >= eps */
  if (j < 0) j = 0;
  if (j >= (long)t->n) return 0.0;
  long double lj = ((long double)j - t->off) * t->h;
  long double d = t->s0[j] - expl((long double)eps - lj) * t->s1[j];
  return d > 0.0L ? (double)d : 0.0;
}

/* The reference: both directions (max) on two loss grids, h and h/2,
 * Richardson-extrapolated: the split's error is second order in h (the
 * test's run printed delta(0.5) = 3.05356e-5, 3.03692e-5, 3.03277e-5 at h
 * = 5e-4, 2.5e-4, 1.25e-4: differences in ratio 4.0, and the two
 * extrapolations agree to 5e-6 relative). */
struct ref {
  struct tails t[2][2]; /* [grid][direction] */
};

static double delta_ref(const struct ref *r, double eps)
{
  double v[2];
  for (int g = 0; g < 2; g++)
    v[g] = fmax(delta_of(&r->t[g][0], eps), delta_of(&r->t[g][1], eps));
  return (4.0 * v[1] - v[0]) / 3.0;
}

static double eps_ref(const struct ref *r, double delta)
{
  double lo = 0.0, hi = 30.0;
  for (int it = 0; it < 50; it++) {
    double mid = 0.5 * (lo + hi);
    if (delta_ref(r, mid) > delta) lo = mid;
    else hi = mid;
  }
  return 0.5 * (lo + hi);
}

static void ref_build(const struct pair *pp, struct ref *Rp)
{
  const struct pair p = *pp;
  struct ref R;
  const double hs[2] = {H, H / 2};
  const size_t ns[2] = {NFFT, 2 * NFFT};
  for (int dir = 0; dir < 2; dir++) {
    struct cells c;
    cells_of(&p, dir, &c);
    for (int g = 0; g < 2; g++) {
      double *m = malloc(ns[g] * sizeof *m);
      assert_non_null(m);
      composed(&c, hs[g], ns[g], m);
      double tot = 0.0, ab = 0.0;
      for (size_t j = 0; j < ns[g]; j++) {
        tot += m[j];
        if (((long)j - lround(LOFF / hs[g])) * hs[g] > 15.0) ab += fabs(m[j]);
      }
      /* nothing lost off the window, and the round-off floor of the FFT
       * (seen where the composed loss is beyond 15 nats: no mass there)
       * is far below delta */
      assert_true(fabs(tot - 1.0) < 1e-9);
      assert_true(ab < 1e-10);
      tails_of(m, hs[g], ns[g], &R.t[g][dir]);
      free(m);
    }
    free(c.mass);
    free(c.loss);
  }
  *Rp = R;
}

static void ref_free(struct ref *R)
{
  for (int g = 0; g < 2; g++)
    for (int d = 0; d < 2; d++) {
      free(R->t[g][d].s0);
      free(R->t[g][d].s1);
    }
}

/* The reference machinery itself against a closed form: with q = 1 the
 * step is the Gaussian pair N(d, 1) vs N(0, 1), and T steps are N(mu, 1)
 * vs N(0, 1) with mu = d sqrt(T): delta(eps) = Phi(-eps/mu + mu/2) - e^eps
 * Phi(-eps/mu - mu/2) (Balle and Wang 2018, Thm 8), in both directions. */
static void test_reference_gaussian(void **st)
{
  (void)st;
  struct pair p = {1, {0.04}, {1.0}};
  struct ref R;
  ref_build(&p, &R);
  const double mu = 0.04 * sqrt((double)T_STEPS);
  for (double eps = 0.5; eps <= 5.0; eps += 0.5) {
    double ex = 0.5 * erfc((eps / mu - mu / 2) / SQRT2_) -
                exp(eps) * 0.5 * erfc((eps / mu + mu / 2) / SQRT2_);
    double r = delta_ref(&R, eps);
    print_message("Gaussian mu = %.4f: delta(%.2f) reference %.10g, closed "
                  "form %.10g (rel %.2g)\n", mu, eps, r, ex, fabs(r - ex) / ex);
    assert_true(fabs(r - ex) <= 1e-5 * ex);
  }
  ref_free(&R);
}

static void check_point(const double *lambda, double eps_q)
{
  struct pair p;
  lc_pair(lambda, &p);
  struct ref R;
  ref_build(&p, &R);
  double dref = delta_ref(&R, eps_q), eref = eps_ref(&R, 1e-5);

  pld_merge_run runs[3];
  for (int i = 0; i < 3; i++)
    runs[i] = (pld_merge_run){Q, SIG[i], CLIP[i], LR, T_STEPS};
  pld_accountant *acc = NULL;
  assert_int_equal(pld_merge_lc_accountant(3, runs, lambda, NULL, &acc), PLD_SUCCESS);
  pld_result rd, re;
  assert_int_equal(pld_accountant_delta(acc, eps_q, &rd), PLD_SUCCESS);
  assert_int_equal(pld_accountant_epsilon(acc, 1e-5, &re), PLD_SUCCESS);
  pld_accountant_free(acc);
  print_message("lambda (%.4f %.4f %.4f): delta(%g) ref %.8g, pldkit [%.8g, "
                "%.8g]; eps(1e-5) ref %.8g, pldkit [%.8g, %.8g]\n",
                lambda[0], lambda[1], lambda[2], eps_q, dref, rd.bound.lower,
                rd.bound.upper, eref, re.bound.lower, re.bound.upper);
  /* delta: the bracket contains the reference up to REF_TOL, and its upper
   * end is at most the library's accuracy (0.2%) + REF_TOL above it */
  assert_true(rd.bound.lower <= dref * (1.0 + REF_TOL));
  assert_true(rd.bound.upper >= dref * (1.0 - REF_TOL));
  assert_true(rd.bound.upper <= dref * (1.0 + 2e-3 + REF_TOL));
  /* eps: a relative error r of delta moves eps by r / (slope of -log
   * delta), below r nats here (the slope is above 1: delta falls more than
   * e-fold per nat); so REF_TOL absolute, and the upper end at most 0.2%
   * + REF_TOL above */
  assert_true(re.bound.lower <= eref + REF_TOL);
  assert_true(re.bound.upper >= eref - REF_TOL);
  assert_true(re.bound.upper <= eref * (1.0 + 2e-3) + REF_TOL);
  ref_free(&R);
}

/* Two weightings of the three MNIST runs: (0.2, 0.3, 0.5) (the test_merge
 * grid's last point, eps ~ 0.5) and equal weights (eps ~ 0.7). */
static void test_lc_pld_mnist_reference(void **st)
{
  (void)st;
  const double l1[3] = {0.2, 0.3, 0.5}, l2[3] = {1.0 / 3, 1.0 / 3, 1.0 / 3};
  check_point(l1, 0.5);
  check_point(l2, 0.7);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_reference_gaussian),
      cmocka_unit_test(test_lc_pld_mnist_reference),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
