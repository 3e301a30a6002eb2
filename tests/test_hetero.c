/* pldkit tests: heterogeneous lists (many distinct groups), composed by the
 * accountant as a balanced binary tree of pairwise compositions under a
 * tilt (pld/accountant.c, compose_built; docs/design.md §5b).
 *
 *  - Gaussian-only lists disguised as Poisson subsampling at q = 1 (so
 *    that they go through the grid, not the closed form): 40 distinct
 *    sigma, eps(1e-5) and delta(eps) against the exact composed Gaussian,
 *    sigma_eff = (sum sigma_i^-2)^-1/2, in long double (tests/ref.h): the
 *    bracket contains it, both ends within the accuracy asked;
 *  - nearly equal sigma (1 + 1e-9 i, 64 distinct steps, q = 0.01):
 *    bracketed by the homogeneous compositions at the smallest and the
 *    largest sigma (a larger sigma is a post-processing: adding noise), and
 *    the brackets overlap;
 *  - distinct sigma from 0.8 to 1.2 (48 steps, q = 0.01) on a fixed grid:
 *    the accountant's tree against a left fold of the public pairwise
 *    composition (pld_dist_from_curve + pld_dist_compose, untilted, the
 *    former path's order) on the same grid: each one's upper end is at
 *    least the other's lower end (both contain the truth), and the upper
 *    ends agree to 0.1%; and the automatic grid against the homogeneous
 *    bounds at sigma 0.8 and 1.2.
 */
#include "ref.h"

static pld_accountant *new_acc(const pld_params *p)
{
  pld_accountant *a = NULL;
  REQUIRE_OK(pld_accountant_alloc(p, &a));
  return a;
}

static void add_pg(pld_accountant *a, double q, double sigma, uint64_t count)
{
  pld_mech *m = NULL;
  REQUIRE_OK(pld_mech_poisson_gaussian(q, sigma, 1.0, &m));
  REQUIRE_OK(pld_accountant_add(a, m, count));
  pld_mech_free(m);
}

static void test_gaussian_list(void **state)
{
  (void)state;
  const int n = 40;
  pld_accountant *a = new_acc(NULL);
  long double s2 = 0.0L;
  for (int i = 0; i < n; i++) {
    double sigma = 5.0 + 5.0 * (double)i / (double)(n - 1);
    add_pg(a, 1.0, sigma, 1);
    s2 += 1.0L / ((long double)sigma * (long double)sigma);
  }
  EXPECT(pld_accountant_size(a) == (size_t)n, "groups: %zu",
         pld_accountant_size(a));
  long double mu = sqrtl(s2); /* sensitivity 1: mu = 1/sigma_eff */
  pld_result r;
  memset(&r, 0, sizeof r);
  REQUIRE_OK(pld_accountant_epsilon(a, 1e-5, &r));
  long double exact = ref_gauss_epsilon(mu, 1e-5L);
  print_message("40 Gaussians: eps in [%.9f, %.9f], exact %.9Lf, grid %g\n",
                r.bound.lower, r.bound.upper, exact, r.discretization);
  EXPECT(!r.closed_form, "must go through the grid");
  EXPECT(ref_brackets(r.bound, exact), "[%.17g, %.17g] vs %.17Lg",
         r.bound.lower, r.bound.upper, exact);
  /* not too far from it on either side: the accuracy asked (0.2%) */
  EXPECT(r.bound.upper <= exact * (1.0L + 2e-3L), "upper %.17g vs %.17Lg",
         r.bound.upper, exact);
  EXPECT(r.bound.lower >= exact * (1.0L - 2e-3L), "lower %.17g vs %.17Lg",
         r.bound.lower, exact);
  EXPECT(r.met_accuracy, "accuracy not met");
  /* delta at that eps */
  double e = (double)exact;
  REQUIRE_OK(pld_accountant_delta(a, e, &r));
  long double dex = ref_gauss_delta(mu, e);
  EXPECT(ref_brackets(r.bound, dex), "delta [%.17g, %.17g] vs %.17Lg",
         r.bound.lower, r.bound.upper, dex);
  EXPECT(r.bound.upper <= dex * (1.0L + 1e-2L) &&
             r.bound.lower >= dex * (1.0L - 1e-2L),
         "delta [%.17g, %.17g] vs %.17Lg", r.bound.lower, r.bound.upper, dex);
  pld_accountant_free(a);
  EXPECT_DONE();
}

static void test_nearly_equal(void **state)
{
  (void)state;
  const int n = 64;
  const double q = 0.01;
  pld_accountant *h = new_acc(NULL), *lo = new_acc(NULL), *hi = new_acc(NULL);
  for (int i = 0; i < n; i++)
    add_pg(h, q, 1.0 + 1e-9 * (double)i, 1);
  EXPECT(pld_accountant_size(h) == (size_t)n, "groups: %zu",
         pld_accountant_size(h));
  add_pg(lo, q, 1.0, (uint64_t)n);                       /* least private */
  add_pg(hi, q, 1.0 + 1e-9 * (double)(n - 1), (uint64_t)n); /* most */
  pld_result rh, rl, ru;
  memset(&rh, 0, sizeof rh);
  memset(&rl, 0, sizeof rl);
  memset(&ru, 0, sizeof ru);
  REQUIRE_OK(pld_accountant_epsilon(h, 1e-5, &rh));
  REQUIRE_OK(pld_accountant_epsilon(lo, 1e-5, &rl));
  REQUIRE_OK(pld_accountant_epsilon(hi, 1e-5, &ru));
  print_message("64 nearly equal: [%.9f, %.9f]; homogeneous sigma=1 [%.9f, "
                "%.9f], sigma=1+6.3e-8 [%.9f, %.9f]\n",
                rh.bound.lower, rh.bound.upper, rl.bound.lower, rl.bound.upper,
                ru.bound.lower, ru.bound.upper);
  /* eps(hetero) <= eps(all at sigma = 1) and >= eps(all at the largest) */
  EXPECT(rh.bound.lower <= rl.bound.upper, "lower %.17g > %.17g",
         rh.bound.lower, rl.bound.upper);
  EXPECT(rh.bound.upper >= ru.bound.lower, "upper %.17g < %.17g",
         rh.bound.upper, ru.bound.lower);
  /* the three truths are within 1e-7 relative: the brackets must all be
   * near each other (each within its 0.2% width) */
  EXPECT(fabs(rh.bound.upper - rl.bound.upper) <= 2e-3 * rl.bound.upper,
         "uppers %.17g vs %.17g", rh.bound.upper, rl.bound.upper);
  EXPECT(rh.met_accuracy && rl.met_accuracy, "accuracy not met");
  pld_accountant_free(h);
  pld_accountant_free(lo);
  pld_accountant_free(hi);
  EXPECT_DONE();
}

static void test_tree_vs_fold(void **state)
{
  (void)state;
  const int n = 48;
  const double q = 0.01, grid = 2e-3;
  pld_params p;
  pld_params_default(&p);
  p.discretization = grid;
  pld_accountant *a = new_acc(&p);
  pld_dist *fold = NULL;
  for (int i = 0; i < n; i++) {
    double sigma = 0.8 + 0.4 * (double)i / (double)(n - 1);
    add_pg(a, q, sigma, 1);
    pld_mech *m = NULL;
    pld_dist *d = NULL, *c = NULL;
    REQUIRE_OK(pld_mech_poisson_gaussian(q, sigma, 1.0, &m));
    REQUIRE_OK(pld_dist_from_curve(pld_mech_curve(m), grid, &p, &d));
    if (!fold) {
      fold = d;
    } else {
      REQUIRE_OK(pld_dist_compose(fold, d, NULL, &c));
      pld_dist_free(fold);
      pld_dist_free(d);
      fold = c;
    }
    pld_mech_free(m);
  }
  pld_result r;
  memset(&r, 0, sizeof r);
  REQUIRE_OK(pld_accountant_epsilon(a, 1e-5, &r));
  pld_bound f;
  REQUIRE_OK(pld_dist_epsilon(fold, 1e-5, &f));
  print_message("48 distinct, Delta 2e-3: tree [%.9f, %.9f], fold [%.9f, "
                "%.9f]\n",
                r.bound.lower, r.bound.upper, f.lower, f.upper);
  EXPECT(r.bound.upper >= f.lower && f.upper >= r.bound.lower,
         "disjoint: [%.17g, %.17g] vs [%.17g, %.17g]", r.bound.lower,
         r.bound.upper, f.lower, f.upper);
  EXPECT(fabs(r.bound.upper - f.upper) <= 1e-3 * f.upper,
         "uppers %.17g vs %.17g", r.bound.upper, f.upper);
  EXPECT(fabs(r.bound.lower - f.lower) <= 1e-3 * f.upper,
         "lowers %.17g vs %.17g", r.bound.lower, f.lower);
  pld_dist_free(fold);
  pld_accountant_free(a);

  /* automatic grid, against the homogeneous lists at both ends of the
   * sigma range (post-processing order) */
  pld_accountant *h = new_acc(NULL), *lo = new_acc(NULL), *hi = new_acc(NULL);
  for (int i = 0; i < n; i++)
    add_pg(h, q, 0.8 + 0.4 * (double)i / (double)(n - 1), 1);
  add_pg(lo, q, 0.8, (uint64_t)n);
  add_pg(hi, q, 1.2, (uint64_t)n);
  pld_result rh, rl, ru;
  memset(&rh, 0, sizeof rh);
  memset(&rl, 0, sizeof rl);
  memset(&ru, 0, sizeof ru);
  REQUIRE_OK(pld_accountant_epsilon(h, 1e-5, &rh));
  REQUIRE_OK(pld_accountant_epsilon(lo, 1e-5, &rl));
  REQUIRE_OK(pld_accountant_epsilon(hi, 1e-5, &ru));
  print_message("48 distinct, auto: [%.9f, %.9f] within sigma=1.2 [%.9f, "
                "%.9f] .. sigma=0.8 [%.9f, %.9f]\n",
                rh.bound.lower, rh.bound.upper, ru.bound.lower, ru.bound.upper,
                rl.bound.lower, rl.bound.upper);
  EXPECT(rh.bound.lower <= rl.bound.upper && rh.bound.upper >= ru.bound.lower,
         "outside the homogeneous bounds");
  EXPECT(rh.bound.upper < rl.bound.lower && rh.bound.lower > ru.bound.upper,
         "not strictly between them (the spread is wide here)");
  EXPECT(rh.met_accuracy, "accuracy not met");
  pld_accountant_free(h);
  pld_accountant_free(lo);
  pld_accountant_free(hi);
  EXPECT_DONE();
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_gaussian_list),
      cmocka_unit_test(test_nearly_equal),
      cmocka_unit_test(test_tree_vs_fold),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
