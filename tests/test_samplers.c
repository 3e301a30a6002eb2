/* Truncated Poisson and fixed-size batches (papers/samplers.c,
 * docs/samplers.md) against values computed here: the binomial laws by
 * exact enumeration in long double, every hockey-stick curve by quadrature
 * of its one-dimensional Gaussian-mixture pair, the exact pair of the
 * dataset whose other records have gradient -c (it attains or approaches
 * the worst case, so it must lie inside the bracket), and a Monte Carlo
 * of that pair composed over T = 3 steps with a 5-standard-error interval
 * against the accountant's bracket. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include <pldkit/pldkit.h>

static long double gauss_delta_l(long double mu, long double eps);

/* ---- binomial laws by enumeration (long double) ---- */

/* pmf of Bin(N, q) at 0..N into p (N small enough to enumerate) */
static void binom_pmf(int N, long double q, long double *p)
{
  /* each term from the definition, the binomial coefficient exact in
   * long double for N <= 60 */
  for (int m = 0; m <= N; m++) {
    long double cnk = 1.0L;
    for (int j = 1; j <= m; j++)
      cnk = cnk * (long double)(N - m + j) / (long double)j;
    p[m] = cnk * powl(q, m) * powl(1.0L - q, N - m);
  }
}

typedef struct trunc_ref {
  long double p_untrunc, p_trunc, q_cond, q_eff;
} trunc_ref;

/* truncated Poisson's numbers from their definitions (docs/samplers.md
 * section 4): X ~ Bin(n - 1, q) the other records sampled */
static trunc_ref trunc_reference(int n, long double q, int B)
{
  long double p[128];
  binom_pmf(n - 1, q, p);
  trunc_ref r = {0, 0, 0, 0};
  long double cond = 0;
  for (int m = 0; m <= n - 1; m++) {
    long double keep = m + 1 <= B ? 1.0L : (long double)B / (m + 1);
    r.q_eff += p[m] * q * keep;
    if (m >= B) {
      r.p_trunc += p[m];
      cond += p[m] * q * keep;
    } else {
      r.p_untrunc += p[m];
    }
  }
  r.q_cond = r.p_trunc > 0 ? cond / r.p_trunc : 0;
  return r;
}

/* ---- hockey-stick curves of 1-D Gaussian mixture pairs by quadrature ---- */

typedef struct mix {
  int n;
  double w[160], m[160];
} mix;

static void mix_add(mix *x, double w, double m)
{
  for (int i = 0; i < x->n; i++)
    if (x->m[i] == m) {
      x->w[i] += w;
      return;
    }
  assert_true(x->n < 160);
  x->w[x->n] = w;
  x->m[x->n] = m;
  x->n++;
}

static long double mix_dens(const mix *x, long double z, long double sigma)
{
  long double s = 0;
  for (int i = 0; i < x->n; i++) {
    long double u = (z - x->m[i]) / sigma;
    s += x->w[i] * expl(-0.5L * u * u);
  }
  return s / (sigma * sqrtl(2.0L * 3.14159265358979323846264338327950288L));
}

/* H_{e^eps}(P || Q) = int (p - e^eps q)_+, composite Simpson on a grid of
 * step sigma/2000 over [min mean - 40 sigma, max mean + 40 sigma] (the
 * kinks where p = e^eps q cost O(h^2) each).  The densities of the last
 * pair are kept, so that curves at many eps cost one evaluation each. */
#define QUAD_MAX 400000
static long double quad_p[QUAD_MAX + 1], quad_q[QUAD_MAX + 1];
static mix quad_P, quad_Q;
static double quad_sigma = -1;
static long double quad_lo;
static long quad_n;
static long double quad_h;

static int mix_same(const mix *a, const mix *b)
{
  if (a->n != b->n)
    return 0;
  for (int i = 0; i < a->n; i++)
    if (a->w[i] != b->w[i] || a->m[i] != b->m[i])
      return 0;
  return 1;
}

static double mix_delta(const mix *P, const mix *Q, double sigma, double eps)
{
  if (!(sigma == quad_sigma && mix_same(P, &quad_P) && mix_same(Q, &quad_Q))) {
    double lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < P->n; i++) {
      lo = fmin(lo, P->m[i]);
      hi = fmax(hi, P->m[i]);
    }
    for (int i = 0; i < Q->n; i++) {
      lo = fmin(lo, Q->m[i]);
      hi = fmax(hi, Q->m[i]);
    }
    lo -= 40 * sigma;
    hi += 40 * sigma;
    long n = (long)((hi - lo) / (sigma / 2000.0));
    if (n % 2)
      n++;
    assert_true(n <= QUAD_MAX);
    quad_h = (long double)(hi - lo) / n;
    for (long i = 0; i <= n; i++) {
      long double z = lo + quad_h * i;
      quad_p[i] = mix_dens(P, z, sigma);
      quad_q[i] = mix_dens(Q, z, sigma);
    }
    quad_n = n;
    quad_lo = lo;
    quad_sigma = sigma;
    quad_P = *P;
    quad_Q = *Q;
  }
  /* Simpson on the panels of two steps where p - e^eps q keeps its sign;
   * on a panel where it changes sign, the crossings are located by
   * bisection and each positive piece gets its own 64-step Simpson rule, so
   * that no kink sits inside a Simpson panel */
  long double x = expl(eps), s = 0;
  for (long i = 0; i + 2 <= quad_n; i += 2) {
    long double f0 = quad_p[i] - x * quad_q[i];
    long double f1 = quad_p[i + 1] - x * quad_q[i + 1];
    long double f2 = quad_p[i + 2] - x * quad_q[i + 2];
    if (f0 >= 0 && f1 >= 0 && f2 >= 0) {
      s += (f0 + 4 * f1 + f2) * quad_h / 3;
      continue;
    }
    if (f0 <= 0 && f1 <= 0 && f2 <= 0)
      continue;
    long double a = quad_lo + quad_h * i, w = 2 * quad_h / 64;
    for (int j = 0; j < 64; j++) {
      long double u = a + w * j, v = u + w;
      long double fu = mix_dens(&quad_P, u, sigma) - x * mix_dens(&quad_Q, u, sigma);
      long double fv = mix_dens(&quad_P, v, sigma) - x * mix_dens(&quad_Q, v, sigma);
      if ((fu > 0) != (fv > 0)) {
        long double l = u, r = v;
        for (int k = 0; k < 80; k++) {
          long double m = (l + r) / 2;
          long double fm = mix_dens(&quad_P, m, sigma) - x * mix_dens(&quad_Q, m, sigma);
          if ((fm > 0) == (fu > 0))
            l = m;
          else
            r = m;
        }
        if (fu > 0)
          v = l;
        else
          u = r;
      } else if (!(fu > 0)) {
        continue;
      }
      long double hh = (v - u) / 64, t = 0;
      for (int k = 0; k <= 64; k++) {
        long double z = u + hh * k;
        long double f = mix_dens(&quad_P, z, sigma) - x * mix_dens(&quad_Q, z, sigma);
        if (f < 0)
          f = 0;
        t += f * (k == 0 || k == 64 ? 1 : (k % 2 ? 4 : 2));
      }
      s += t * hh / 3;
    }
  }
  return (double)s;
}

/* the Poisson-subsampled Gaussian pair PG(r, s) */
static void pg_pair(double r, double s, mix *P, mix *Q)
{
  P->n = Q->n = 0;
  mix_add(P, 1 - r, 0);
  mix_add(P, r, s);
  mix_add(Q, 1, 0);
}

static double pg_delta(double r, double s, double sigma, int dir, double eps)
{
  mix P, Q;
  pg_pair(r, s, &P, &Q);
  return dir == PLD_DIR_PQ ? mix_delta(&P, &Q, sigma, eps)
                           : mix_delta(&Q, &P, sigma, eps);
}

/* The exact one-step pair of truncated Poisson on the dataset whose n - 1
 * other records have gradient -c and the record +c (1-D, add/remove): P
 * with the record, Q without (docs/samplers.md section 4). */
static void trunc_minus_pair(int n, double q, int B, double c, mix *P, mix *Q)
{
  long double p[128];
  binom_pmf(n - 1, q, p);
  P->n = Q->n = 0;
  for (int m = 0; m <= n - 1; m++) {
    double pm = (double)p[m];
    double base = -c * (m < B ? m : B);
    mix_add(Q, pm, base);
    mix_add(P, pm * (1 - q), base);
    if (m + 1 <= B) {
      mix_add(P, pm * q, base + c);
    } else {
      double keep = (double)B / (m + 1);
      mix_add(P, pm * q * keep, -c * (B - 1) + c);
      mix_add(P, pm * q * (1 - keep), base);
    }
  }
}

/* The size-revealed pair (docs/samplers.md section 4) from its
 * definition: the law of the kept others' count k with and without the
 * record, and whether the record is in the batch, enumerated over m; its
 * curve is the sum over k of the one-sided terms, each by quadrature. */
static void trunc_size_ref(int n, double q, int B, double sigma, int ne,
                           const double *eps, double out[2][8])
{
  long double p[128];
  binom_pmf(n - 1, q, p);
  long double al[130] = {0}, be[130] = {0}, ga[130] = {0};
  for (int m = 0; m <= n - 1; m++) {
    int k = m < B ? m : B;
    ga[k] += p[m];        /* without the record: k = min(m, B) */
    al[k] += p[m] * (1 - q); /* with it, not sampled */
    if (m + 1 <= B) {
      be[m] += p[m] * q;  /* sampled, all kept */
    } else {
      long double keep = (long double)B / (m + 1);
      be[B - 1] += p[m] * q * keep;   /* kept: B - 1 others */
      al[B] += p[m] * q * (1 - keep); /* dropped: B others */
    }
  }
  for (int d = 0; d < 2; d++)
    for (int i = 0; i < ne; i++)
      out[d][i] = 0;
  for (int k = 0; k <= B; k++) {
    if (ga[k] == 0 && al[k] == 0 && be[k] == 0)
      continue;
    mix P, Q;
    P.n = Q.n = 0;
    mix_add(&P, (double)al[k], 0);
    mix_add(&P, (double)be[k], 1.0);
    mix_add(&Q, (double)ga[k], 0);
    /* one quadrature grid per direction and term, every eps on it */
    for (int i = 0; i < ne; i++)
      out[PLD_DIR_PQ][i] += mix_delta(&P, &Q, sigma, eps[i]);
    for (int i = 0; i < ne; i++)
      out[PLD_DIR_QP][i] += mix_delta(&Q, &P, sigma, eps[i]);
  }
}

/* ---- truncated Poisson ---- */

static void check_params(int n, double q, int B)
{
  pld_truncation t;
  assert_int_equal(pld_truncation_params((uint64_t)n, q, (uint64_t)B, &t), 0);
  trunc_ref r = trunc_reference(n, q, B);
  double tol = t.rel_err + 1e-15;
  assert_true(t.rel_err < 1e-10);
  assert_true(fabs(t.p_trunc - (double)r.p_trunc) <= tol * (double)r.p_trunc + 1e-300);
  assert_true(fabs(t.p_untrunc - (double)r.p_untrunc) <=
              tol * (double)r.p_untrunc + 1e-300);
  /* the rates rounded the safe way, and by little */
  assert_true(t.q_cond_upper >= (double)r.q_cond);
  assert_true(t.q_cond_upper <= (double)r.q_cond * (1 + 1e-10) + 1e-300);
  assert_true(t.q_eff_lower <= (double)r.q_eff);
  assert_true(t.q_eff_lower >= (double)r.q_eff * (1 - 1e-10));
}

static void test_truncation_params_enumerated(void **state)
{
  (void)state;
  check_params(8, 0.3, 3);
  check_params(8, 0.3, 1);
  check_params(8, 0.9, 7);
  check_params(20, 0.05, 2);   /* truncation rare: p_trunc ~ 0.26 */
  check_params(20, 0.05, 6);   /* p_trunc ~ 3e-4, summed directly */
  check_params(40, 0.5, 20);
  check_params(40, 0.01, 12);  /* p_trunc ~ 1e-17: relative accuracy kept */
  check_params(60, 0.7, 59);
  /* q = 1: X = n - 1 >= B always, the record kept with probability B/n */
  pld_truncation t;
  assert_int_equal(pld_truncation_params(10, 1.0, 3, &t), 0);
  assert_true(t.p_trunc == 1.0 && t.p_untrunc == 0.0);
  assert_true(t.q_cond_upper >= 0.3 && t.q_cond_upper <= 0.3 * (1 + 1e-15));
  assert_true(t.q_eff_lower <= 0.3 && t.q_eff_lower >= 0.3 * (1 - 1e-15));
  /* B >= n: never truncated */
  assert_int_equal(pld_truncation_params(10, 0.4, 10, &t), 0);
  assert_true(t.p_trunc == 0.0 && t.p_untrunc == 1.0 && t.q_eff_lower == 0.4);
}

/* a large n against a long-double recurrence computed here (n = 10^5: the
 * recurrence's rounding ~ 1e5 * 1e-19) */
static void test_truncation_params_large_n(void **state)
{
  (void)state;
  const int n = 100000;
  const long double q = 0.001L;
  const int Bs[3] = {100, 115, 140}; /* mean 100, sd 10 */
  for (int b = 0; b < 3; b++) {
    int B = Bs[b];
    long double pm = powl(1.0L - q, n - 1), pt = 0, pu = 0, cond = 0, eff = 0;
    for (int m = 0; m <= n - 1; m++) {
      long double keep = m + 1 <= B ? 1.0L : (long double)B / (m + 1);
      eff += pm * q * keep;
      if (m >= B) {
        pt += pm;
        cond += pm * q * keep;
      } else {
        pu += pm;
      }
      pm = pm * (long double)(n - 1 - m) / (m + 1) * q / (1.0L - q);
      if (m > 2000)
        break; /* the rest is below 1e-300 */
    }
    pld_truncation t;
    assert_int_equal(pld_truncation_params((uint64_t)n, (double)q, (uint64_t)B, &t), 0);
    assert_true(fabs(t.p_trunc - (double)pt) <= (t.rel_err + 1e-13) * (double)pt);
    assert_true(fabs(t.p_untrunc - (double)pu) <= (t.rel_err + 1e-13) * (double)pu);
    assert_true(t.q_cond_upper >= (double)(cond / pt) * (1 - 1e-13));
    assert_true(t.q_cond_upper <= (double)(cond / pt) * (1 + 1e-9));
    assert_true(t.q_eff_lower <= (double)eff * (1 + 1e-13));
    assert_true(t.q_eff_lower >= (double)eff * (1 - 1e-9));
  }
}

static const double EPS[6] = {-1.0, 0.0, 0.5, 1.0, 2.0, 4.0};

/* B >= n is plain Poisson: the curve is PG(q, c)'s, by quadrature */
static void test_truncated_limit_no_truncation(void **state)
{
  (void)state;
  pld_mech *m = NULL;
  assert_int_equal(pld_mech_truncated_poisson_gaussian(50, 0.1, 50, 1.3, 1.0,
                                                       PLD_ADJ_ADD_REMOVE, &m),
                   0);
  for (int dir = 0; dir < 2; dir++)
    for (int i = 0; i < 6; i++) {
      double d, ref = pg_delta(0.1, 1.0, 1.3, dir, EPS[i]);
      assert_int_equal(pld_mech_delta(m, dir, EPS[i], &d), 0);
      assert_true(fabs(d - ref) <= 1e-7 * ref + 1e-13);
    }
  pld_mech_free(m);
}

/* One step: the upper curve is the selection (1 - p_t) PG(q, c) + p_t
 * PG(q_c, 2c) with the numbers enumerated here and each PG by quadrature;
 * one step's delta bracket from the accountant contains the exact curves of
 * the two datasets (others at -c: a Gaussian mixture over m; others at 0:
 * PG(q_eff, c)). */
static void check_truncated_step(int n, double q, int B, double sigma,
                                 pld_truncation_pair which)
{
  pld_mech *m = NULL;
  assert_int_equal(pld_mech_truncated_poisson_gaussian_pair(
                       (uint64_t)n, q, (uint64_t)B, sigma, 1.0,
                       PLD_ADJ_ADD_REMOVE, which, &m),
                   0);
  trunc_ref r = trunc_reference(n, q, B);
  mix P, Q;
  trunc_minus_pair(n, q, B, 1.0, &P, &Q);
  pld_accountant *acc = NULL;
  assert_int_equal(pld_accountant_alloc(NULL, &acc), 0);
  assert_int_equal(pld_accountant_add(acc, m, 1), 0);
  double sref[2][8];
  if (which == PLD_TRUNC_SIZE)
    trunc_size_ref(n, q, B, sigma, 6, EPS, sref);
  for (int dir = 0; dir < 2; dir++)
    for (int i = 0; i < 6; i++) {
      double e = EPS[i];
      double ref = which == PLD_TRUNC_SIZE
                       ? sref[dir][i]
                       : (double)r.p_untrunc * pg_delta(q, 1.0, sigma, dir, e) +
                             (double)r.p_trunc *
                                 pg_delta((double)r.q_cond, 2.0, sigma, dir, e);
      double d;
      assert_int_equal(pld_mech_delta(m, dir, e, &d), 0);
      assert_true(d >= ref * (1 - 1e-7) - 1e-13);
      assert_true(d <= ref * (1 + 1e-7) + 1e-13);
      /* the worst-case-like dataset lies under the upper curve */
      double minus = dir == PLD_DIR_PQ ? mix_delta(&P, &Q, sigma, e)
                                       : mix_delta(&Q, &P, sigma, e);
      assert_true(minus <= d * (1 + 1e-7) + 1e-13);
    }
  /* the accountant's one-step bracket (the max of the two directions) */
  for (int i = 2; i < 6; i++) {
    double e = EPS[i];
    pld_result res;
    assert_int_equal(pld_accountant_delta(acc, e, &res), 0);
    double minus = fmax(mix_delta(&P, &Q, sigma, e), mix_delta(&Q, &P, sigma, e));
    double zero = fmax(pg_delta((double)r.q_eff, 1.0, sigma, PLD_DIR_PQ, e),
                       pg_delta((double)r.q_eff, 1.0, sigma, PLD_DIR_QP, e));
    assert_true(res.bound.lower <= zero * (1 + 1e-7) + 1e-13);
    assert_true(res.bound.upper >= minus * (1 - 1e-7));
    assert_true(res.bound.upper >= zero * (1 - 1e-7));
    assert_true(res.bound.lower <= res.bound.upper);
  }
  pld_accountant_free(acc);
  pld_mech_free(m);
}

static void test_truncated_one_step(void **state)
{
  (void)state;
  for (int w = 1; w <= 2; w++) {
    pld_truncation_pair which = (pld_truncation_pair)w;
    check_truncated_step(8, 0.3, 3, 1.0, which);
    check_truncated_step(8, 0.3, 1, 0.8, which);
    check_truncated_step(12, 0.5, 6, 1.5, which);
    check_truncated_step(30, 0.1, 3, 1.0, which);
  }
  /* the default picks one of the two: its curve is one of theirs */
  pld_mech *a = NULL, *b = NULL, *c = NULL;
  assert_int_equal(pld_mech_truncated_poisson_gaussian(30, 0.1, 5, 1.0, 1.0, PLD_ADJ_ADD_REMOVE, &a), 0);
  assert_int_equal(pld_mech_truncated_poisson_gaussian_pair(30, 0.1, 5, 1.0, 1.0, PLD_ADJ_ADD_REMOVE, PLD_TRUNC_BRANCH, &b), 0);
  assert_int_equal(pld_mech_truncated_poisson_gaussian_pair(30, 0.1, 5, 1.0, 1.0, PLD_ADJ_ADD_REMOVE, PLD_TRUNC_SIZE, &c), 0);
  double da, db, dc;
  assert_int_equal(pld_mech_delta(a, PLD_DIR_PQ, 1.0, &da), 0);
  assert_int_equal(pld_mech_delta(b, PLD_DIR_PQ, 1.0, &db), 0);
  assert_int_equal(pld_mech_delta(c, PLD_DIR_PQ, 1.0, &dc), 0);
  assert_true(da == db || da == dc);
  pld_mech_free(a);
  pld_mech_free(b);
  pld_mech_free(c);
}

/* Balle et al.'s WOR curve (mech.h, pld_mech_wor_gaussian_rate) from its
 * formula: gamma delta_G(log(1 + (e^eps - 1)/gamma)) for eps >= 0, and
 * 1 - x + x H_{1/x} below 0, delta_G with mu = s/sigma */
static double wor_ref(double gamma, double mu, double eps)
{
  if (eps < 0) {
    double x = exp(eps);
    return 1 - x + x * wor_ref(gamma, mu, -eps);
  }
  return gamma * (double)gauss_delta_l(mu, logl(1.0L + (expl(eps) - 1.0L) / gamma));
}

/* zero-out and replace-one: the selection over the kept others' count
 * (docs/samplers.md section 4) from its definition, each member by
 * quadrature (zero-out) or Balle's formula (replace-one); the one-step
 * bracket holds the exact pair of the dataset with zero-gradient others */
static void test_truncated_slot_relations(void **state)
{
  (void)state;
  const int ns[2] = {12, 30}, Bs[2] = {5, 3};
  const double qs[2] = {0.4, 0.1}, sigma = 1.0;
  for (int t = 0; t < 2; t++)
    for (int adj = 1; adj <= 2; adj++) {
      int n = ns[t], B = Bs[t];
      double q = qs[t];
      long double p[128] = {0};
      binom_pmf(n - 1, q, p);
      long double w1 = 0, p1 = p[B - 1], pt = 0, S = 0;
      for (int m = 0; m <= n - 1; m++) {
        if (m <= B - 2)
          w1 += p[m];
        if (m >= B) {
          pt += p[m];
          S += p[m] * q * B / (m + 1);
        }
      }
      double W[2] = {(double)w1, (double)(p1 + S)};
      double r[2] = {q, (double)((q * p1 + S) / (p1 + S))};
      pld_mech *m = NULL;
      assert_int_equal(pld_mech_truncated_poisson_gaussian((uint64_t)n, q, (uint64_t)B,
                                                           sigma, 1.0, (pld_adjacency)adj, &m), 0);
      pld_accountant *acc = NULL;
      assert_int_equal(pld_accountant_alloc(NULL, &acc), 0);
      assert_int_equal(pld_accountant_add(acc, m, 1), 0);
      trunc_ref tr = trunc_reference(n, q, B);
      double qe = (double)tr.q_eff;
      mix P0, Q0;
      P0.n = Q0.n = 0;
      mix_add(&P0, 1 - qe, 0);
      mix_add(&P0, qe, 1.0);
      mix_add(&Q0, 1 - qe, 0);
      mix_add(&Q0, qe, adj == PLD_ADJ_ZERO_OUT ? 0.0 : -1.0);
      for (int dir = 0; dir < 2; dir++)
        for (int i = 0; i < 6; i++) {
          double e = EPS[i], ref = 0;
          for (int k = 0; k < 2; k++)
            ref += W[k] * (adj == PLD_ADJ_ZERO_OUT ? pg_delta(r[k], 1.0, sigma, dir, e)
                                                  : wor_ref(r[k], 2.0 / sigma, e));
          /* the dropped slot (P = Q): 1 - e^eps below 0 */
          ref += (double)(pt - S) * (e < 0 ? 1 - exp(e) : 0.0);
          double d;
          assert_int_equal(pld_mech_delta(m, dir, e, &d), 0);
          assert_true(d >= ref * (1 - 1e-7) - 1e-13);
          assert_true(d <= ref * (1 + 1e-7) + 1e-13);
        }
      for (int i = 2; i < 6; i++) {
        pld_result res;
        assert_int_equal(pld_accountant_delta(acc, EPS[i], &res), 0);
        double v = fmax(mix_delta(&P0, &Q0, sigma, EPS[i]), mix_delta(&Q0, &P0, sigma, EPS[i]));
        assert_true(res.bound.lower <= v * (1 + 1e-7) + 1e-13);
        assert_true(res.bound.upper >= v * (1 - 1e-7));
      }
      pld_accountant_free(acc);
      pld_mech_free(m);
    }
}

/* the accountant entry chooses the pair by the steps it adds: its answer
 * is the smaller of the two pairs' answers for those steps */
static void test_truncated_accountant_choice(void **state)
{
  (void)state;
  const uint64_t counts[2] = {1, 40};
  for (int k = 0; k < 2; k++) {
    double e[3];
    for (int w = 0; w < 3; w++) {
      pld_accountant *acc = NULL;
      pld_result r;
      assert_int_equal(pld_accountant_alloc(NULL, &acc), 0);
      assert_int_equal(pld_accountant_add_truncated_poisson(acc, 30, 0.2, 5, 1.0, 1.0,
                                                            PLD_ADJ_ADD_REMOVE,
                                                            (pld_truncation_pair)w,
                                                            counts[k]), 0);
      assert_int_equal(pld_accountant_epsilon(acc, 1e-5, &r), 0);
      e[w] = r.bound.upper;
      pld_accountant_free(acc);
    }
    assert_true(e[0] == fmin(e[1], e[2]));
  }
  pld_accountant *acc = NULL;
  assert_int_equal(pld_accountant_alloc(NULL, &acc), 0);
  assert_int_equal(pld_accountant_add_truncated_poisson(acc, 30, 0.2, 5, 1.0, 1.0,
                                                        PLD_ADJ_ADD_REMOVE,
                                                        PLD_TRUNC_BEST, 0), PLD_EINVAL);
  assert_int_equal(pld_accountant_add_truncated_poisson(acc, 30, 0.2, 0, 1.0, 1.0,
                                                        PLD_ADJ_ADD_REMOVE,
                                                        PLD_TRUNC_BEST, 3), PLD_EINVAL);
  assert_true(pld_accountant_size(acc) == 0);
  pld_accountant_free(acc);
}

/* ---- Monte Carlo of the composed exact pair (T = 3) ---- */

static uint64_t rng_s[2] = {0x9E3779B97F4A7C15ULL, 0xD1B54A32D192ED03ULL};

static double rng_u01(void)
{
  /* xorshift128+ */
  uint64_t s1 = rng_s[0];
  const uint64_t s0 = rng_s[1];
  rng_s[0] = s0;
  s1 ^= s1 << 23;
  rng_s[1] = s1 ^ s0 ^ (s1 >> 17) ^ (s0 >> 26);
  return ((rng_s[1] + s0) >> 11) * (1.0 / 9007199254740992.0) + 0x1p-54;
}

static double rng_normal(void)
{
  return sqrt(-2.0 * log(rng_u01())) * cos(2.0 * 3.141592653589793 * rng_u01());
}

static double mix_sample(const mix *x, double sigma)
{
  double u = rng_u01(), acc = 0;
  int i = 0;
  for (; i < x->n - 1; i++) {
    acc += x->w[i];
    if (u < acc)
      break;
  }
  return x->m[i] + sigma * rng_normal();
}

static double mix_logdens(const mix *x, double z, double sigma)
{
  double mx = -INFINITY, t[160];
  for (int i = 0; i < x->n; i++) {
    double u = (z - x->m[i]) / sigma;
    t[i] = log(x->w[i]) - 0.5 * u * u;
    mx = fmax(mx, t[i]);
  }
  double s = 0;
  for (int i = 0; i < x->n; i++)
    s += exp(t[i] - mx);
  return mx + log(s);
}

/* delta_PQ(eps) of the T-fold composition of (P, Q): E_P (1 - e^{eps - L})_+
 * with L the summed losses; mean and standard error of N draws */
static void mc_delta(const mix *P, const mix *Q, double sigma, int T, double eps,
                     long N, double *mean, double *se)
{
  double s = 0, s2 = 0;
  for (long k = 0; k < N; k++) {
    double L = 0;
    for (int t = 0; t < T; t++) {
      double z = mix_sample(P, sigma);
      L += mix_logdens(P, z, sigma) - mix_logdens(Q, z, sigma);
    }
    double v = L > eps ? 1.0 - exp(eps - L) : 0.0;
    s += v;
    s2 += v * v;
  }
  *mean = s / N;
  *se = sqrt(fmax(s2 / N - *mean * *mean, 0.0) / N);
}

static void test_truncated_composed_monte_carlo(void **state)
{
  (void)state;
  /* a regime where truncation bites in one step of ten (p_t = 0.086); the
   * bracket is wide where it bites in most steps (docs/samplers.md) */
  const int n = 10, B = 4, T = 3;
  const double q = 0.2, sigma = 1.0;
  mix P, Q, P0, Q0, P2, Q2;
  trunc_minus_pair(n, q, B, 1.0, &P, &Q);
  pg_pair(q, 2.0, &P2, &Q2);
  trunc_ref r = trunc_reference(n, q, B);
  pg_pair((double)r.q_eff, 1.0, &P0, &Q0);
  pld_mech *m = NULL;
  pld_accountant *acc = NULL;
  const double eps[2] = {1.0, 2.5};
  /* Monte Carlo of the three composed pairs, once per eps: the dataset
   * with the others at -c, the one with them at 0 (the lower member), and
   * PG(q, 2c) (every step displacing at the full rate) */
  double mm[2], sm[2], m0[2], s0[2], mc[2], sc[2];
  for (int i = 0; i < 2; i++) {
    mc_delta(&P, &Q, sigma, T, eps[i], 200000, &mm[i], &sm[i]);
    mc_delta(&P0, &Q0, sigma, T, eps[i], 200000, &m0[i], &s0[i]);
    mc_delta(&P2, &Q2, sigma, T, eps[i], 200000, &mc[i], &sc[i]);
  }
  for (int w = 1; w <= 2; w++) {
    assert_int_equal(pld_mech_truncated_poisson_gaussian_pair(
                         n, q, B, sigma, 1.0, PLD_ADJ_ADD_REMOVE,
                         (pld_truncation_pair)w, &m),
                     0);
    assert_int_equal(pld_accountant_alloc(NULL, &acc), 0);
    assert_int_equal(pld_accountant_add(acc, m, T), 0);
    for (int i = 0; i < 2; i++) {
      pld_result res;
      assert_int_equal(pld_accountant_delta(acc, eps[i], &res), 0);
      /* 5 s.e.: a false failure has probability < 3e-7 each */
      assert_true(mm[i] - 5 * sm[i] <= res.bound.upper);
      assert_true(res.bound.lower <= m0[i] + 5 * s0[i]);
      assert_true(m0[i] - 5 * s0[i] <= res.bound.upper);
      /* each upper pair is below PG(q, 2c) composed (its members are, by
       * the lemma and the rate's monotonicity) */
      assert_true(res.bound.upper <= mc[i] + 5 * sc[i]);
    }
    pld_accountant_free(acc);
    pld_mech_free(m);
    acc = NULL;
    m = NULL;
  }
  pld_accountant_free(acc);
  pld_mech_free(m);
}

/* ---- fixed-size batches ---- */

static void test_fixed_batch_wor_add_remove(void **state)
{
  (void)state;
  /* b/n = 0.3 and 1/3 (not a double: a bracket of the two rates) */
  const int bs[2] = {3, 1}, ns[2] = {10, 3};
  for (int k = 0; k < 2; k++) {
    pld_mech *m = NULL;
    assert_int_equal(pld_mech_fixed_batch_gaussian((uint64_t)bs[k], (uint64_t)ns[k],
                                                   1.2, 1.0, 0, PLD_ADJ_ADD_REMOVE, &m),
                     0);
    double g = (double)bs[k] / ns[k];
    for (int dir = 0; dir < 2; dir++)
      for (int i = 0; i < 6; i++) {
        double d, ref = pg_delta(g, 2.0, 1.2, dir, EPS[i]);
        assert_int_equal(pld_mech_delta(m, dir, EPS[i], &d), 0);
        assert_true(d >= ref * (1 - 1e-7) - 1e-13);
        assert_true(d <= ref * (1 + 1e-7) + 1e-13);
        /* and it is NOT the Poisson figure with sensitivity c, which is
         * smaller: the displaced record matters */
        double half = pg_delta(g, 1.0, 1.2, dir, EPS[i]);
        if (EPS[i] >= 0.5 && half > 1e-12)
          assert_true(d > 1.2 * half);
      }
    pld_mech_free(m);
  }
  /* the exact pair of the dataset with others at -c is PG(b/n, 2c) itself
   * (the D batch sums to -b c always): enumerate it here for b = 2, n = 5 */
  mix P, Q;
  P.n = Q.n = 0;
  mix_add(&Q, 1.0, -2.0);
  mix_add(&P, 1.0 - 0.4, -2.0);  /* x not in the batch */
  mix_add(&P, 0.4, -1.0 + 1.0);  /* x in it with one other: -c + c */
  pld_mech *m = NULL;
  assert_int_equal(pld_mech_fixed_batch_gaussian(2, 5, 0.9, 1.0, 0,
                                                 PLD_ADJ_ADD_REMOVE, &m), 0);
  for (int i = 0; i < 6; i++) {
    double d;
    assert_int_equal(pld_mech_delta(m, PLD_DIR_PQ, EPS[i], &d), 0);
    double ref = mix_delta(&P, &Q, 0.9, EPS[i]);
    assert_true(fabs(d - ref) <= 1e-7 * ref + 1e-13);
  }
  pld_mech_free(m);
}

/* with replacement, add/remove: the mixture over the number of the
 * record's copies, by quadrature from its definition (b = 1 is PG(1/n, 2c);
 * b = 100 > 62 moves the counts from 62 on to k = b, a mass of 1e-80 here) */
static void test_fixed_batch_with_replacement(void **state)
{
  (void)state;
  const int bs[3] = {1, 3, 100}, ns[3] = {5, 4, 50};
  for (int t = 0; t < 3; t++) {
    int b = bs[t], n = ns[t];
    long double p[128];
    mix P, Q;
    P.n = Q.n = 0;
    mix_add(&Q, 1.0, 0.0);
    binom_pmf(b, 1.0L / n, p);
    /* components below 1e-40 change no delta the test looks at (>= 1e-13
     * absolute slack) and would stretch the quadrature grid */
    for (int k = 0; k <= b; k++)
      if (p[k] > 1e-40L)
        mix_add(&P, (double)p[k], 2.0 * k);
    pld_mech *m = NULL;
    assert_int_equal(pld_mech_fixed_batch_gaussian((uint64_t)b, (uint64_t)n, 1.5, 1.0, 1,
                                                   PLD_ADJ_ADD_REMOVE, &m), 0);
    pld_accountant *acc = NULL;
    assert_int_equal(pld_accountant_alloc(NULL, &acc), 0);
    assert_int_equal(pld_accountant_add(acc, m, 1), 0);
    for (int i = 0; i < 6; i++) {
      double ref[2] = {mix_delta(&P, &Q, 1.5, EPS[i]), mix_delta(&Q, &P, 1.5, EPS[i])};
      for (int dir = 0; dir < 2; dir++) {
        double d;
        assert_int_equal(pld_mech_delta(m, dir, EPS[i], &d), 0);
        assert_true(d >= ref[dir] * (1 - 1e-7) - 1e-13);
        assert_true(d <= ref[dir] * (1 + 1e-7) + 1e-13);
      }
      if (EPS[i] >= 0.5) {
        pld_result res;
        assert_int_equal(pld_accountant_delta(acc, EPS[i], &res), 0);
        double r = fmax(ref[0], ref[1]);
        assert_true(res.bound.lower <= r * (1 + 1e-7) && res.bound.upper >= r * (1 - 1e-7));
      }
    }
    if (b == 1) {
      /* b = 1 is PG(1/n, 2c) */
      for (int i = 0; i < 6; i++) {
        double d;
        assert_int_equal(pld_mech_delta(m, PLD_DIR_PQ, EPS[i], &d), 0);
        double r = pg_delta(1.0 / n, 2.0, 1.5, PLD_DIR_PQ, EPS[i]);
        assert_true(fabs(d - r) <= 1e-7 * r + 1e-13);
      }
    }
    pld_accountant_free(acc);
    pld_mech_free(m);
  }
}

static void test_fixed_batch_other_relations(void **state)
{
  (void)state;
  pld_mech *a = NULL, *b = NULL;
  assert_int_equal(pld_mech_fixed_batch_gaussian(4, 100, 1.0, 1.0, 0,
                                                 PLD_ADJ_REPLACE_ONE, &a), 0);
  assert_int_equal(pld_mech_wor_gaussian(4, 100, 1.0, 2.0, &b), 0);
  for (int i = 0; i < 6; i++) {
    double da, db;
    assert_int_equal(pld_mech_delta(a, PLD_DIR_PQ, EPS[i], &da), 0);
    assert_int_equal(pld_mech_delta(b, PLD_DIR_PQ, EPS[i], &db), 0);
    assert_true(da == db);
  }
  pld_mech_free(a);
  pld_mech_free(b);
}

static void test_bad_input(void **state)
{
  (void)state;
  pld_mech *m = (pld_mech *)&m; /* untouched on failure */
  pld_mech *const keep = m;
  assert_int_equal(pld_mech_truncated_poisson_gaussian(0, 0.1, 3, 1, 1, PLD_ADJ_ADD_REMOVE, &m), PLD_EINVAL);
  assert_int_equal(pld_mech_truncated_poisson_gaussian(10, 0.0, 3, 1, 1, PLD_ADJ_ADD_REMOVE, &m), PLD_EINVAL);
  assert_int_equal(pld_mech_truncated_poisson_gaussian(10, 1.5, 3, 1, 1, PLD_ADJ_ADD_REMOVE, &m), PLD_EINVAL);
  assert_int_equal(pld_mech_truncated_poisson_gaussian(10, NAN, 3, 1, 1, PLD_ADJ_ADD_REMOVE, &m), PLD_EINVAL);
  assert_int_equal(pld_mech_truncated_poisson_gaussian(10, 0.1, 0, 1, 1, PLD_ADJ_ADD_REMOVE, &m), PLD_EINVAL);
  assert_int_equal(pld_mech_truncated_poisson_gaussian(10, 0.1, 3, -1, 1, PLD_ADJ_ADD_REMOVE, &m), PLD_EINVAL);
  assert_int_equal(pld_mech_truncated_poisson_gaussian(10, 0.1, 3, 1, 0, PLD_ADJ_ADD_REMOVE, &m), PLD_EINVAL);
  assert_int_equal(pld_mech_truncated_poisson_gaussian(10, 0.1, 3, 1, 1, (pld_adjacency)7, &m), PLD_EINVAL);
  assert_int_equal(pld_mech_truncated_poisson_gaussian(10, 0.1, 3, 1, 1, PLD_ADJ_ADD_REMOVE, NULL), PLD_EINVAL);
  assert_int_equal(pld_mech_truncated_poisson_gaussian_pair(10, 0.1, 3, 1, 1, PLD_ADJ_ADD_REMOVE, (pld_truncation_pair)5, &m), PLD_EINVAL);
  assert_int_equal(pld_mech_truncated_poisson_gaussian_pair(10, 1.0, 3, 1, 1, PLD_ADJ_ADD_REMOVE, PLD_TRUNC_SIZE, &m), PLD_EUNSUPPORTED);
  /* a binomial too wide to sum term by term: refused, not approximated */
  assert_int_equal(pld_mech_truncated_poisson_gaussian(4000000000000000ULL, 0.5, 3, 1, 1, PLD_ADJ_ADD_REMOVE, &m), PLD_ERANGE);
  assert_int_equal(pld_mech_fixed_batch_gaussian(11, 10, 1, 1, 0, PLD_ADJ_ADD_REMOVE, &m), PLD_EINVAL);
  assert_int_equal(pld_mech_fixed_batch_gaussian(0, 10, 1, 1, 0, PLD_ADJ_ADD_REMOVE, &m), PLD_EINVAL);
  assert_int_equal(pld_mech_fixed_batch_gaussian(3, 10, 1, 1, 1, PLD_ADJ_ZERO_OUT, &m), PLD_EUNSUPPORTED);
  assert_int_equal(pld_mech_fixed_batch_gaussian(10, 10, 1, 1, 0, PLD_ADJ_ADD_REMOVE, &m), PLD_EINVAL);
  assert_int_equal(pld_mech_fixed_batch_gaussian(3, 1, 1, 1, 1, PLD_ADJ_ADD_REMOVE, &m), PLD_EINVAL);
  assert_int_equal(pld_mech_fixed_batch_gaussian(1000000, 10, 1, 1, 1, PLD_ADJ_ADD_REMOVE, &m), PLD_EINVAL);
  assert_int_equal(pld_mech_fixed_batch_gaussian(3, 10, 1, 1, 0, (pld_adjacency)-1, &m), PLD_EINVAL);
  assert_true(m == keep);
  pld_truncation t = {1, 2, 3, 4, 5};
  assert_int_equal(pld_truncation_params(10, 2.0, 3, &t), PLD_EINVAL);
  assert_true(t.p_untrunc == 1 && t.rel_err == 5);
  assert_true(pld_error_detail()[0] != '\0');
}

/* ---- shuffling ---- */

static long double gauss_delta_l(long double mu, long double eps)
{
  long double a = mu / 2 - eps / mu, b = -mu / 2 - eps / mu;
  return 0.5L * erfcl(-a / sqrtl(2.0L)) - expl(eps) * 0.5L * erfcl(-b / sqrtl(2.0L));
}

static double gauss_eps_l(long double mu, long double delta)
{
  long double lo = 0, hi = 1000;
  for (int i = 0; i < 200; i++) {
    long double m = (lo + hi) / 2;
    if (gauss_delta_l(mu, m) > delta)
      lo = m;
    else
      hi = m;
  }
  return (double)hi;
}

static void test_shuffling(void **state)
{
  (void)state;
  pld_bound u, l;
  /* T = 1: one batch per epoch, no amplification at all: both answers are
   * the Gaussian with mu = 2c sqrt(E)/sigma (replace-one) */
  assert_int_equal(pld_shuffling_epsilon(1, 3, 2.0, 1.0, PLD_ADJ_REPLACE_ONE,
                                         1e-5, NULL, &u, &l), 0);
  double ref = gauss_eps_l(sqrtl(3.0L), 1e-5L);
  assert_true(u.lower <= ref * (1 + 1e-9) && u.upper >= ref * (1 - 1e-9));
  assert_true(u.upper <= ref * (1 + 1e-6));
  assert_true(l.lower <= ref * (1 + 1e-9) && l.upper >= ref * (1 - 1e-9));
  assert_true(l.lower >= ref * (1 - 1e-3));
  /* T = 10, zero-out, one epoch: the lower bound is the one-of-10
   * allocation with shift c.  Monte Carlo of that pair (its likelihood
   * ratio L = (1/T) sum_i exp(mu Z_i - mu^2/2) under Q): at the lower end's
   * epsilon its delta must reach the target (5 s.e.), and the guarantee is
   * the Gaussian's closed form */
  const double sigma = 1.0, delta = 1e-3;
  assert_int_equal(pld_shuffling_epsilon(10, 1, sigma, 1.0, PLD_ADJ_ZERO_OUT,
                                         delta, NULL, &u, &l), 0);
  double gref = gauss_eps_l(1.0L / sigma, delta);
  assert_true(u.lower <= gref * (1 + 1e-9) && u.upper >= gref * (1 - 1e-9));
  assert_true(l.upper <= u.upper);
  {
    const long N = 1000000;
    const double mu = 1.0 / sigma, x = exp(l.lower);
    double spq = 0, spq2 = 0, sqp = 0, sqp2 = 0;
    for (long k = 0; k < N; k++) {
      double L = 0;
      for (int i = 0; i < 10; i++)
        L += exp(mu * rng_normal() - mu * mu / 2) / 10;
      double a = L > x ? L - x : 0, b = 1 > x * L ? 1 - x * L : 0;
      spq += a;
      spq2 += a * a;
      sqp += b;
      sqp2 += b * b;
    }
    double mpq = spq / N, mqp = sqp / N;
    double epq = sqrt((spq2 / N - mpq * mpq) / N), eqp = sqrt((sqp2 / N - mqp * mqp) / N);
    assert_true(fmax(mpq + 5 * epq, mqp + 5 * eqp) >= delta);
  }
  /* add/remove is refused, with a reason */
  assert_int_equal(pld_shuffling_epsilon(10, 1, 1.0, 1.0, PLD_ADJ_ADD_REMOVE,
                                         1e-5, NULL, &u, &l), PLD_EUNSUPPORTED);
  assert_true(pld_error_detail()[0] != '\0');
}

/* ---- BandMF with cyclic Poisson ---- */

static void test_bandmf_cyclic_poisson(void **state)
{
  (void)state;
  /* 13 steps, 4 bands: the group sampled at step 0 takes part at steps
   * 0, 4, 8, 12: four compositions of PG(q, c col_norm); one band is DP-SGD */
  const uint64_t steps[3] = {13, 13, 12}, bands[3] = {4, 1, 12}, count[3] = {4, 13, 1};
  for (int k = 0; k < 3; k++) {
    pld_accountant *a = NULL, *b = NULL;
    pld_mech *m = NULL;
    assert_int_equal(pld_accountant_alloc(NULL, &a), 0);
    assert_int_equal(pld_accountant_alloc(NULL, &b), 0);
    assert_int_equal(pld_accountant_add_bandmf_cyclic_poisson(a, steps[k], bands[k],
                                                              0.1, 1.0, 1.0, 0.8), 0);
    assert_int_equal(pld_mech_poisson_gaussian(0.1, 1.0, 0.8, &m), 0);
    assert_int_equal(pld_accountant_add(b, m, count[k]), 0);
    pld_result ra, rb;
    assert_int_equal(pld_accountant_epsilon(a, 1e-5, &ra), 0);
    assert_int_equal(pld_accountant_epsilon(b, 1e-5, &rb), 0);
    assert_true(ra.bound.lower == rb.bound.lower && ra.bound.upper == rb.bound.upper);
    if (k == 2) {
      /* one participation: the delta bracket holds PG(0.1, 0.8) by quadrature */
      pld_result rd;
      assert_int_equal(pld_accountant_delta(a, 1.0, &rd), 0);
      double ref = fmax(pg_delta(0.1, 0.8, 1.0, PLD_DIR_PQ, 1.0),
                        pg_delta(0.1, 0.8, 1.0, PLD_DIR_QP, 1.0));
      assert_true(rd.bound.lower <= ref * (1 + 1e-7) && rd.bound.upper >= ref * (1 - 1e-7));
    }
    pld_mech_free(m);
    pld_accountant_free(a);
    pld_accountant_free(b);
  }
  pld_accountant *a = NULL;
  assert_int_equal(pld_accountant_alloc(NULL, &a), 0);
  assert_int_equal(pld_accountant_add_bandmf_cyclic_poisson(a, 0, 4, 0.1, 1, 1, 1), PLD_EINVAL);
  assert_int_equal(pld_accountant_add_bandmf_cyclic_poisson(a, 4, 0, 0.1, 1, 1, 1), PLD_EINVAL);
  assert_int_equal(pld_accountant_add_bandmf_cyclic_poisson(a, 4, 2, 0.1, 1, 1, 0), PLD_EINVAL);
  assert_int_equal(pld_accountant_add_bandmf_cyclic_poisson(NULL, 4, 2, 0.1, 1, 1, 1), PLD_EINVAL);
  assert_true(pld_accountant_size(a) == 0);
  pld_accountant_free(a);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_truncation_params_enumerated),
      cmocka_unit_test(test_truncation_params_large_n),
      cmocka_unit_test(test_truncated_limit_no_truncation),
      cmocka_unit_test(test_truncated_one_step),
      cmocka_unit_test(test_truncated_composed_monte_carlo),
      cmocka_unit_test(test_truncated_slot_relations),
      cmocka_unit_test(test_truncated_accountant_choice),
      cmocka_unit_test(test_fixed_batch_wor_add_remove),
      cmocka_unit_test(test_fixed_batch_with_replacement),
      cmocka_unit_test(test_fixed_batch_other_relations),
      cmocka_unit_test(test_bad_input),
      cmocka_unit_test(test_shuffling),
      cmocka_unit_test(test_bandmf_cyclic_poisson),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
