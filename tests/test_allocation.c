/* Random allocation (BIS, k-out-of-T) as PLDs (papers/allocation.c), against
 * values computed here: the Gaussian closed form (T = 1), a long-double 2-D
 * quadrature of the exact pair's hockey-stick integrals (T = 2), and the
 * Monte Carlo value of the issue (T = 10, 2.1887 +- 3 s.e.). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include <cmocka.h>

#include <pldkit/pldkit.h>

/* Gaussian mechanism delta(eps), mu = 1/sigma, in long double */
static long double gauss_delta(long double mu, long double eps)
{
  long double a = mu / 2 - eps / mu, b = -mu / 2 - eps / mu;
  return 0.5L * erfcl(-a / sqrtl(2.0L)) - expl(eps) * 0.5L * erfcl(-b / sqrtl(2.0L));
}

static long double gauss_eps(long double mu, long double delta)
{
  long double lo = 0, hi = 50;
  for (int i = 0; i < 200; i++) {
    long double m = (lo + hi) / 2;
    if (gauss_delta(mu, m) > delta)
      lo = m;
    else
      hi = m;
  }
  return hi;
}

static void test_T1_is_gaussian(void **state)
{
  (void)state;
  pld_bound b;
  assert_int_equal(pld_allocation_epsilon(1, 1, 1.0, 1.0, 1, 1e-5, NULL, &b), 0);
  double e = (double)gauss_eps(1.0L, 1e-5L);
  /* the accountant's Gaussian closed form: tight on both sides */
  assert_true(b.upper >= e && b.upper <= e * (1 + 1e-6));
  assert_true(b.lower <= e && b.lower >= e * (1 - 1e-6));
}

/* T = 2, sigma = c = 1: delta_PQ(eps) = E_Q (S - e^eps)_+ and delta_QP(eps)
 * = E_Q (1 - e^eps S)_+ with S = (X1 + X2)/2, X = e^{Z - 1/2}, by the
 * midpoint rule on [-12, 12]^2 in long double (the integrand is continuous
 * and piecewise smooth; error well below 1e-6 relative here). */
static void quad_T2(long double eps, long double *pq, long double *qp)
{
  const int n = 3000;
  const long double lo = -12.0L, h = 24.0L / n, t = expl(eps);
  static long double x[3000], w[3000];
  for (int i = 0; i < n; i++) {
    long double z = lo + (i + 0.5L) * h;
    x[i] = expl(z - 0.5L);
    w[i] = expl(-z * z / 2) / sqrtl(2 * 3.14159265358979323846L) * h;
  }
  long double a = 0, b = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      long double s = (x[i] + x[j]) / 2, ww = w[i] * w[j];
      if (s > t)
        a += ww * (s - t);
      else if (1 > t * s)
        b += ww * (1 - t * s);
    }
  *pq = a;
  *qp = b;
}

static void test_T2_quadrature(void **state)
{
  (void)state;
  pld_mech *u, *l;
  assert_int_equal(pld_mech_random_allocation_bounds(2, 1.0, 1.0, 0.0, &u, &l), 0);
  const double eps[3] = {0.25, 1.0, 2.0};
  for (int i = 0; i < 3; i++) {
    long double pq, qp;
    quad_T2(eps[i], &pq, &qp);
    double du, dl;
    for (int dir = 0; dir < 2; dir++) {
      long double ref = dir ? qp : pq;
      assert_int_equal(pld_mech_delta(u, dir, eps[i], &du), 0);
      assert_int_equal(pld_mech_delta(l, dir, eps[i], &dl), 0);
      /* not below / above the truth (quadrature tolerance 1e-6), and the
       * bracket not wider than 1% */
      assert_true(du >= ref * (1 - 1e-6));
      assert_true(dl <= ref * (1 + 1e-6));
      assert_true(du <= ref * 1.01 && dl >= ref * 0.99);
    }
  }
  pld_mech_free(u);
  pld_mech_free(l);
}

static void test_T10_monte_carlo(void **state)
{
  (void)state;
  pld_bound b;
  assert_int_equal(pld_allocation_epsilon(10, 1, 1.0, 1.0, 1, 1e-5, NULL, &b), 0);
  /* exact value 2.1887 by Monte Carlo (3 s.e. about 1e-3) */
  assert_true(b.upper >= 2.1877 && b.lower <= 2.1897);
  assert_true(b.upper - b.lower <= 0.005 * b.upper);
  assert_true(b.upper <= 2.1887 * 1.01);
}

static void test_groups_and_bad_input(void **state)
{
  (void)state;
  uint64_t n[2] = {7, 7}, m[2] = {7, 7};
  assert_int_equal(pld_allocation_groups(10, 4, n, m), 0);
  assert_true(n[0] == 2 && m[0] == 2 && n[1] == 3 && m[1] == 2);
  assert_int_equal(pld_allocation_groups(10, 11, n, m), PLD_EINVAL);
  assert_int_equal(pld_allocation_groups(0, 1, n, m), PLD_EINVAL);
  pld_bound b = {-1, -1};
  assert_int_equal(pld_allocation_epsilon(10, 1, -1.0, 1.0, 1, 1e-5, NULL, &b), PLD_EINVAL);
  assert_int_equal(pld_allocation_epsilon(10, 1, 1.0, 1.0, 1, 0.0, NULL, &b), PLD_EINVAL);
  assert_int_equal(pld_allocation_epsilon(10, 1, NAN, 1.0, 1, 1e-5, NULL, &b), PLD_EINVAL);
  assert_true(b.lower == -1 && b.upper == -1);
  pld_mech *u = NULL, *l = NULL;
  assert_int_equal(pld_mech_random_allocation_bounds(0, 1.0, 1.0, 0.0, &u, &l), PLD_EINVAL);
  assert_int_equal(pld_mech_random_allocation_bounds(5, 1e-9, 1.0, 0.0, &u, &l), PLD_EINVAL);
  assert_null(u);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_T1_is_gaussian),
      cmocka_unit_test(test_T2_quadrature),
      cmocka_unit_test(test_T10_monte_carlo),
      cmocka_unit_test(test_groups_and_bad_input),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
