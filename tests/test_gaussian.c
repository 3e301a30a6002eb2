/* pldkit tests: compositions of Gaussian mechanisms against the closed form.
 *
 * The PLDs are built through the discretized path (pld_mech_gaussian ->
 * pld_dist_from_curve -> pld_dist_self_compose), not through the accountant,
 * whose Gaussian shortcut is exact.  T Gaussians of noise sigma (sensitivity
 * 1) are one Gaussian of noise sigma/sqrt(T), i.e. mu = sqrt(T)/sigma, and
 *   delta(eps) = Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu),
 * computed here in long double and log space (tests/ref.h).
 *
 * Soundness is strict: lower <= exact <= upper with only 1e-15 relative
 * slack for the rounding of the reference itself.
 *
 * Closeness (both ends of the bracket, i.e. upper - exact and exact - lower):
 *   delta queries:   <= TOL_DELTA_REL * exact + TOL_DELTA_ABS
 *   epsilon queries: <= max(TOL_EPS_REL * exact, TOL_EPS_ABS)
 * Grid: Delta = (sqrt(T)/sigma) / (2000 * max(1, sqrt(T/100))) clipped to
 * [1e-4, 1], i.e. the composed privacy-loss standard deviation spans 2000
 * grid points up to T = 100 and 2000 sqrt(T/100) beyond.  The extra factor
 * is needed because the connect-the-dots bias grows like T * Delta^2 (about
 * 0.1 T Delta^2 nats on the upper end and 0.5 T Delta^2 on the lower end,
 * measured), so with Delta proportional to sqrt(T) alone the error in eps
 * would grow like T^2 (e.g. sigma = 0.5, T = 1000, Delta = 0.0316: lower
 * end 0.45 nats below the exact 2268.77, 3.5% in delta).
 */
#include "ref.h"

/* Stated tolerances (see the header comment). */
#define TOL_DELTA_REL 1e-2  /* 1% of delta */
#define TOL_DELTA_ABS 1e-12 /* floor for deltas that are themselves ~0 */
#define TOL_EPS_REL 5e-4    /* 0.05% of epsilon ... */
#define TOL_EPS_ABS 1e-3    /* ... or 0.001 nats, whichever is larger */
/* (Measured: the discretization part is ~0.01% of eps at most; at delta =
 * 1e-8 and T = 1000 the bracket is dominated by the booked FFT error,
 * abs_err ~1.3e-10 in delta, i.e. ~1.3% of delta or ~0.012% of eps.) */

static double g_worst_delta_rel = 0, g_worst_eps_rel = 0;

static double choose_delta(double mu, uint64_t T) {
  double d = mu / (2000.0 * fmax(1.0, sqrt((double)T / 100.0)));
  if (d < 1e-4) d = 1e-4;
  if (d > 1.0) d = 1.0;
  return d;
}

static void check_composition(double sigma, double sensitivity, uint64_t T) {
  const long double mu = sqrtl((long double)T) * sensitivity / sigma;
  const double Delta = choose_delta((double)mu, T);

  pld_params par;
  pld_params_default(&par);
  pld_mech *m = NULL;
  pld_dist *d1 = NULL, *dT = NULL;
  REQUIRE_OK(pld_mech_gaussian(sigma, sensitivity, &m));
  REQUIRE_OK(pld_dist_from_curve(pld_mech_curve(m), Delta, &par, &d1));
  REQUIRE_OK(pld_dist_self_compose(d1, T, NULL, &dT));
  EXPECT(pld_dist_discretization(dT) == Delta, "discretization %g, asked %g",
         pld_dist_discretization(dT), Delta);

  /* delta(eps) at fixed eps and at the eps where delta ~ 1e-3 and 1e-6 */
  double eps_list[8] = {0.0, 0.5, 1.0, 2.0,
                        (double)ref_gauss_epsilon(mu, 1e-3L),
                        (double)ref_gauss_epsilon(mu, 1e-6L)};
  for (int i = 0; i < 6; i++) {
    double eps = eps_list[i];
    pld_bound b = {-7, -7};
    REQUIRE_OK(pld_dist_delta(dT, eps, &b));
    long double exact = ref_gauss_delta(mu, eps);
    double tol = TOL_DELTA_REL * (double)exact + TOL_DELTA_ABS;
    EXPECT(ref_brackets(b, exact),
           "sigma=%g sens=%g T=%llu Delta=%g eps=%.17g: delta bracket "
           "[%.17g, %.17g] misses exact %.17Lg",
           sigma, sensitivity, (unsigned long long)T, Delta, eps, b.lower,
           b.upper, exact);
    EXPECT(b.upper - exact <= tol && exact - b.lower <= tol,
           "sigma=%g sens=%g T=%llu Delta=%g eps=%.17g: delta bracket "
           "[%.17g, %.17g] too far from exact %.17Lg (tol %.3g)",
           sigma, sensitivity, (unsigned long long)T, Delta, eps, b.lower,
           b.upper, exact, tol);
    if (exact > 1e-10) {
      double r = fmax(b.upper - (double)exact, (double)exact - b.lower) /
                 (double)exact;
      if (r > g_worst_delta_rel) g_worst_delta_rel = r;
    }
  }

  /* eps(delta) */
  const double deltas[3] = {1e-3, 1e-5, 1e-8};
  for (int i = 0; i < 3; i++) {
    pld_bound b = {-7, -7};
    REQUIRE_OK(pld_dist_epsilon(dT, deltas[i], &b));
    long double exact = ref_gauss_epsilon(mu, deltas[i]);
    double tol = fmax(TOL_EPS_REL * (double)exact, TOL_EPS_ABS);
    EXPECT(ref_brackets(b, exact),
           "sigma=%g sens=%g T=%llu Delta=%g delta=%g: eps bracket "
           "[%.17g, %.17g] misses exact %.17Lg",
           sigma, sensitivity, (unsigned long long)T, Delta, deltas[i],
           b.lower, b.upper, exact);
    EXPECT(b.upper - exact <= tol && exact - b.lower <= tol,
           "sigma=%g sens=%g T=%llu Delta=%g delta=%g: eps bracket "
           "[%.17g, %.17g] too far from exact %.17Lg (tol %.3g)",
           sigma, sensitivity, (unsigned long long)T, Delta, deltas[i],
           b.lower, b.upper, exact, tol);
    if (exact > 0) {
      double r = fmax(b.upper - (double)exact, (double)exact - b.lower) /
                 fmax((double)exact, 1.0);
      if (r > g_worst_eps_rel) g_worst_eps_rel = r;
    }
  }

  pld_dist_free(dT);
  pld_dist_free(d1);
  pld_mech_free(m);
}

static void test_reference_sanity(void **state) {
  /* The reference itself against textbook values.  Phi(-1.96) = 0.0249979;
   * mu = 1, eps = 0: delta = 2 Phi(1/2) - 1 = 0.382924922548026. */
  EXPECT(fabsl(ref_Phi(-1.96L) - 0.0249978951482204L) < 1e-15L, "Phi(-1.96)");
  EXPECT(fabsl(ref_gauss_delta(1.0L, 0.0L) - 0.382924922548026L) < 1e-14L,
         "delta(0) for mu=1: %.17Lg", ref_gauss_delta(1.0L, 0.0L));
  /* log-Phi: series branch and erfc branch agree around the switch */
  long double series = ref_logPhi(-40.0L); /* the series branch */
  long double direct = logl(0.5L * erfcl(40.0L / REF_SQRT2L));
  EXPECT(fabsl(series - direct) < 1e-13L, "logPhi series %.20Lg vs erfcl %.20Lg",
         series, direct);
  /* A direct (non-log) evaluation agrees where it does not cancel. */
  long double mu = 2.0L, eps = 1.5L;
  long double d2 = ref_Phi(mu / 2 - eps / mu) -
                   expl(eps) * ref_Phi(-mu / 2 - eps / mu);
  EXPECT(fabsl(d2 - ref_gauss_delta(mu, eps)) < 1e-16L, "direct vs log");
  /* eps(delta) inverts delta(eps) */
  long double e = ref_gauss_epsilon(3.0L, 1e-6L);
  EXPECT(fabsl(ref_gauss_delta(3.0L, e) - 1e-6L) < 1e-20L, "inversion");
  EXPECT_DONE();
}

static void test_sigma_half(void **state) {
  const uint64_t Ts[4] = {1, 10, 100, 1000};
  for (int i = 0; i < 4; i++) check_composition(0.5, 1.0, Ts[i]);
  EXPECT_DONE();
}

static void test_sigma_one(void **state) {
  const uint64_t Ts[4] = {1, 10, 100, 1000};
  for (int i = 0; i < 4; i++) check_composition(1.0, 1.0, Ts[i]);
  EXPECT_DONE();
}

static void test_sigma_two(void **state) {
  const uint64_t Ts[4] = {1, 10, 100, 1000};
  for (int i = 0; i < 4; i++) check_composition(2.0, 1.0, Ts[i]);
  EXPECT_DONE();
}

static void test_sigma_five(void **state) {
  const uint64_t Ts[4] = {1, 10, 100, 1000};
  for (int i = 0; i < 4; i++) check_composition(5.0, 1.0, Ts[i]);
  EXPECT_DONE();
}

static void test_sensitivity_scaling(void **state) {
  /* sigma = 3, sensitivity = 1.5 is mu = 0.5 per step; also sensitivity
   * below 1. */
  check_composition(3.0, 1.5, 10);
  check_composition(0.25, 0.5, 100);
  EXPECT_DONE();
}

/* Heterogeneous pairwise composition (pld_dist_compose, FFT path): 300
 * distinct Gaussians, sigma_i from 8 to 20, against the closed form with
 * mu^2 = sum 1/sigma_i^2.  Also a structural regression: FFT round-off must
 * not keep the tails alive (the support must follow the composed spread,
 * not the sum of the single supports: before the fix 100 steps of a
 * subsampled Gaussian spanned 456 nats). */
static void test_heterogeneous_pairwise(void **state) {
  (void)state;
  const int n = 300;
  const double grid = 2e-3;
  pld_workspace *ws = NULL;
  pld_dist *acc = NULL;
  REQUIRE_OK(pld_workspace_alloc(NULL, &ws));
  long double mu2 = 0;
  for (int i = 0; i < n; i++) {
    double sigma = 8.0 + 12.0 * i / (n - 1.0);
    pld_mech *m = NULL;
    pld_dist *one = NULL, *next = NULL;
    REQUIRE_OK(pld_mech_gaussian(sigma, 1.0, &m));
    REQUIRE_OK(pld_dist_from_curve(pld_mech_curve(m), grid, NULL, &one));
    mu2 += 1.0L / ((long double)sigma * sigma);
    if (acc) {
      REQUIRE_OK(pld_dist_compose(acc, one, ws, &next));
      pld_dist_free(acc);
      pld_dist_free(one);
      acc = next;
    } else {
      acc = one;
    }
    pld_mech_free(m);
  }
  long double mu = sqrtl(mu2);
  const double deltas[3] = {1e-3, 1e-5, 1e-8};
  for (int k = 0; k < 3; k++) {
    pld_bound b;
    REQUIRE_OK(pld_dist_epsilon(acc, deltas[k], &b));
    long double ex = ref_gauss_epsilon(mu, deltas[k]);
    EXPECT(ref_brackets(b, ex), "delta %g: [%.12g, %.12g] vs exact %.12Lg",
           deltas[k], b.lower, b.upper, ex);
    /* n * grid^2-order bias plus the booked round-off: 2% of epsilon */
    EXPECT(b.upper - ex <= 0.02 * ex && ex - b.lower <= 0.02 * ex,
           "delta %g: [%.12g, %.12g] too wide around %.12Lg", deltas[k],
           b.lower, b.upper, ex);
  }
  const double eps[3] = {0.5, 1.5, 3.0};
  for (int k = 0; k < 3; k++) {
    pld_bound b;
    REQUIRE_OK(pld_dist_delta(acc, eps[k], &b));
    long double ex = ref_gauss_delta(mu, eps[k]);
    EXPECT(ref_brackets(b, ex), "eps %g: [%.6g, %.6g] vs exact %.6Lg",
           eps[k], b.lower, b.upper, ex);
  }
  /* Composed mu ~ 1.2: the loss spread is ~mu, the 1e-20 tails within
   * ~+-25 nats, i.e. well under 1e5 points at 2e-3; the sum of the single
   * supports would be ~300 times one support. */
  EXPECT(pld_dist_grid_size(acc) < 100000, "grid %zu points",
         pld_dist_grid_size(acc));
  pld_dist_free(acc);
  pld_workspace_free(ws);
  EXPECT_DONE();
}

/* Through the accountant: the Gaussian shortcut (closed form). */
static void test_accountant_large_eps(void **state) {
  const double sigma = 0.5, delta = 1e-5;
  const uint64_t T = 1000;
  const long double mu = sqrtl((long double)T) / sigma;
  const long double exact = ref_gauss_epsilon(mu, delta);
  /* The issue quotes 2268.77 for this case. */
  EXPECT(fabsl(exact - 2268.77L) < 0.01L, "reference eps = %.17Lg", exact);

  pld_accountant *acc = NULL;
  pld_mech *m = NULL;
  REQUIRE_OK(pld_accountant_alloc(NULL, &acc));
  REQUIRE_OK(pld_mech_gaussian(sigma, 1.0, &m));
  REQUIRE_OK(pld_accountant_add(acc, m, T));
  pld_result res;
  memset(&res, 0, sizeof res);
  REQUIRE_OK(pld_accountant_epsilon(acc, delta, &res));
  EXPECT(res.closed_form != 0, "closed_form = %d", res.closed_form);
  EXPECT(ref_brackets(res.bound, exact),
         "accountant eps bracket [%.17g, %.17g] misses %.17Lg",
         res.bound.lower, res.bound.upper, exact);
  /* Closed form: the bracket is only the library's rounding; 1e-9 rel. */
  EXPECT(res.bound.upper - exact <= 1e-9L * exact &&
             exact - res.bound.lower <= 1e-9L * exact,
         "closed-form eps bracket [%.17g, %.17g] too wide around %.17Lg",
         res.bound.lower, res.bound.upper, exact);

  /* and the delta query at eps = 2268 */
  memset(&res, 0, sizeof res);
  REQUIRE_OK(pld_accountant_delta(acc, 2268.0, &res));
  long double dex = ref_gauss_delta(mu, 2268.0L);
  EXPECT(res.closed_form != 0, "closed_form = %d", res.closed_form);
  EXPECT(ref_brackets(res.bound, dex),
         "accountant delta bracket [%.17g, %.17g] misses %.17Lg",
         res.bound.lower, res.bound.upper, dex);
  EXPECT(res.bound.upper - dex <= 1e-9L * dex &&
             dex - res.bound.lower <= 1e-9L * dex,
         "closed-form delta bracket [%.17g, %.17g] too wide around %.17Lg",
         res.bound.lower, res.bound.upper, dex);

  pld_mech_free(m);
  pld_accountant_free(acc);
  EXPECT_DONE();
}

static void test_report(void **state) {
  print_message("worst relative bracket half-width seen: delta %.3g, "
                "eps %.3g (eps relative to max(eps,1))\n",
                g_worst_delta_rel, g_worst_eps_rel);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_reference_sanity),
      cmocka_unit_test(test_sigma_half),
      cmocka_unit_test(test_sigma_one),
      cmocka_unit_test(test_sigma_two),
      cmocka_unit_test(test_sigma_five),
      cmocka_unit_test(test_sensitivity_scaling),
      cmocka_unit_test(test_heterogeneous_pairwise),
      cmocka_unit_test(test_accountant_large_eps),
      cmocka_unit_test(test_report),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
