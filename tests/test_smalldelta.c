/* pldkit tests: certified and tight at small delta (the tilted composition,
 * docs/design.md §5a).
 *
 * The independent truth: a Poisson-subsampled Gaussian with q = 1 is the
 * Gaussian mechanism, and T runs of it compose to the Gaussian with
 * mu = sqrt(T) / sigma (several groups: mu^2 adds up).  The accountant does
 * not recognise it as a Gaussian, so it goes down the grid path (build,
 * FFT self-composition, tilt, query), while ref.h evaluates the closed form
 * in long double, in log space.  Every check is two-sided: the bracket holds
 * the truth, and its upper end is within the stated tolerance of it.
 */
#include "ref.h"

static pld_accountant *psg_acc(const double *sigma, const uint64_t *count,
                               size_t n, long double *mu2)
{
  pld_accountant *acc = NULL;
  REQUIRE_OK(pld_accountant_alloc(NULL, &acc));
  *mu2 = 0.0L;
  for (size_t i = 0; i < n; i++) {
    pld_mech *m = NULL;
    REQUIRE_OK(pld_mech_poisson_gaussian(1.0, sigma[i], 1.0, &m));
    REQUIRE_OK(pld_accountant_add(acc, m, count[i]));
    pld_mech_free(m);
    *mu2 += (long double)count[i] / ((long double)sigma[i] * sigma[i]);
  }
  return acc;
}

/* eps(delta) for delta from 1e-9 down to 1e-15 (and 1e-30): certified,
 * bracket at most 0.2% wide (the default accuracy), upper within 0.2% of
 * the truth. */
static void test_epsilon_small_delta(void **state)
{
  (void)state;
  const struct {
    double sigma;
    uint64_t count;
  } cases[] = {{100.0, 14063}, {300.0, 100000}, {30.0, 1000}, {2.0, 3}};
  const double deltas[] = {1e-9, 1e-10, 1e-12, 1e-15, 1e-30};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    long double mu2;
    pld_accountant *acc = psg_acc(&cases[c].sigma, &cases[c].count, 1, &mu2);
    long double mu = sqrtl(mu2);
    for (size_t k = 0; k < sizeof deltas / sizeof deltas[0]; k++) {
      pld_result r;
      memset(&r, 0, sizeof r);
      REQUIRE_OK(pld_accountant_epsilon(acc, deltas[k], &r));
      long double e = ref_gauss_epsilon(mu, deltas[k]);
      print_message("q=1 sigma=%g T=%llu (mu %.4Lf) eps(%g) = [%.10g, %.10g] "
                    "exact %.10Lg, grid %zu\n", cases[c].sigma,
                    (unsigned long long)cases[c].count, mu, deltas[k],
                    r.bound.lower, r.bound.upper, e, r.grid_size);
      EXPECT(ref_brackets(r.bound, e), "eps(%g) = [%.17g, %.17g] misses %.17Lg",
             deltas[k], r.bound.lower, r.bound.upper, e);
      EXPECT(r.met_accuracy && r.bound.upper <= (double)(e * 1.002L),
             "eps(%g): upper %.17g more than 0.2%% above %.17Lg (met %d)",
             deltas[k], r.bound.upper, e, r.met_accuracy);
    }
    pld_accountant_free(acc);
  }
  EXPECT_DONE();
}

/* delta(eps) relatively accurate down to 1e-30 and far below: the points
 * where the exact delta is 1e-12, 1e-30, 1e-60, 1e-100. */
static void test_delta_relative(void **state)
{
  (void)state;
  const double sigma[2] = {50.0, 80.0};
  const uint64_t count[2] = {5000, 3000};
  long double mu2;
  pld_accountant *acc = psg_acc(sigma, count, 2, &mu2);
  long double mu = sqrtl(mu2);
  const double targets[] = {1e-12, 1e-30, 1e-60, 1e-100};
  for (size_t k = 0; k < sizeof targets / sizeof targets[0]; k++) {
    double eps = (double)ref_gauss_epsilon(mu, targets[k]);
    long double d = ref_gauss_delta(mu, eps);
    pld_result r;
    memset(&r, 0, sizeof r);
    REQUIRE_OK(pld_accountant_delta(acc, eps, &r));
    print_message("two groups (mu %.4Lf) delta(%.6g) = [%.8g, %.8g] exact %.8Lg "
                  "(width %.2g), grid %zu\n", mu, eps, r.bound.lower,
                  r.bound.upper, d, (r.bound.upper - r.bound.lower) / r.bound.upper,
                  r.grid_size);
    EXPECT(ref_brackets(r.bound, d), "delta(%.17g) = [%.17g, %.17g] misses %.17Lg",
           eps, r.bound.lower, r.bound.upper, d);
    EXPECT(r.met_accuracy && r.bound.upper <= (double)(d * 1.002L) &&
               r.bound.lower >= (double)(d * 0.998L),
           "delta(%.17g) = [%.17g, %.17g] not within 0.2%% of %.17Lg (met %d)",
           eps, r.bound.lower, r.bound.upper, d, r.met_accuracy);
  }
  pld_accountant_free(acc);
  EXPECT_DONE();
}

/* The curve follows the true tail: every point brackets the truth, within
 * 1% relative wherever the truth is above 1e-80. */
static void test_curve_tail(void **state)
{
  (void)state;
  const double sigma = 40.0;
  const uint64_t count = 2000;
  long double mu2;
  pld_accountant *acc = psg_acc(&sigma, &count, 1, &mu2);
  long double mu = sqrtl(mu2);
  enum { N = 13 };
  double eps[N];
  pld_bound out[N];
  for (int i = 0; i < N; i++)
    eps[i] = 2.0 * i;
  pld_result info;
  REQUIRE_OK(pld_accountant_curve(acc, N, eps, out, &info));
  for (int i = 0; i < N; i++) {
    long double d = ref_gauss_delta(mu, eps[i]);
    print_message("curve (mu %.4Lf) delta(%g) = [%.6g, %.6g] exact %.6Lg\n", mu,
                  eps[i], out[i].lower, out[i].upper, d);
    EXPECT(ref_brackets(out[i], d), "curve delta(%g) = [%.17g, %.17g] misses %.17Lg",
           eps[i], out[i].lower, out[i].upper, d);
    if (d > 1e-80L)
      EXPECT(out[i].upper <= (double)(d * 1.01L) && out[i].lower >= (double)(d * 0.99L),
             "curve delta(%g) = [%.17g, %.17g] not within 1%% of %.17Lg", eps[i],
             out[i].lower, out[i].upper, d);
  }
  pld_accountant_free(acc);
  EXPECT_DONE();
}

/* The untilted PLD (pld_accountant_compose, what save writes) keeps its
 * absolute round-off floor; the accountant's tilted answer at the same grid
 * is certified far below it.  Both must bracket the truth. */
static void test_tilted_vs_untilted(void **state)
{
  (void)state;
  const double sigma = 100.0;
  const uint64_t count = 14063;
  long double mu2;
  pld_accountant *acc = psg_acc(&sigma, &count, 1, &mu2);
  long double mu = sqrtl(mu2);
  double delta = 1e-13;
  long double e = ref_gauss_epsilon(mu, delta);
  pld_result r;
  memset(&r, 0, sizeof r);
  REQUIRE_OK(pld_accountant_epsilon(acc, delta, &r));
  pld_dist *d = NULL;
  REQUIRE_OK(pld_accountant_compose(acc, r.discretization, &d));
  pld_bound b;
  REQUIRE_OK(pld_dist_epsilon(d, delta, &b));
  print_message("eps(1e-13): tilted [%.10g, %.10g], untilted [%.10g, %.10g], "
                "exact %.10Lg\n", r.bound.lower, r.bound.upper, b.lower, b.upper, e);
  EXPECT(ref_brackets(r.bound, e) && ref_brackets(b, e),
         "tilted [%.17g, %.17g] / untilted [%.17g, %.17g] miss %.17Lg",
         r.bound.lower, r.bound.upper, b.lower, b.upper, e);
  EXPECT(r.bound.upper - r.bound.lower < b.upper - b.lower,
         "the tilted bracket [%.17g, %.17g] is not narrower than the untilted "
         "[%.17g, %.17g]", r.bound.lower, r.bound.upper, b.lower, b.upper);
  pld_dist_free(d);
  pld_accountant_free(acc);
  EXPECT_DONE();
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_epsilon_small_delta),
      cmocka_unit_test(test_delta_relative),
      cmocka_unit_test(test_curve_tail),
      cmocka_unit_test(test_tilted_vs_untilted),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
