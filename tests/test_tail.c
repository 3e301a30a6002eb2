/* pldkit tests: delta(eps) in the tail (issue 32, item 10).
 *
 * A delta query whose answer is 0 by the loss's support, or whose certified
 * upper end is already below PLD_DELTA_FLOOR, meets the width rule with any
 * lower end and must stop before any grid (docs/design.md Sec. 7, "Tail
 * queries").  Checked here: the answers (an exact 0 where the support
 * proves it, against the pure epsilons computed here in long double; a
 * bracket containing the closed form), and that no grid was built
 * (grid_size and refinements of pld_result, never times).  Next to every
 * zero, a query just inside the support must still be positive and contain
 * its closed form, so the rule cannot fire where delta > 0.
 */
#include "ref.h"

static void acc_delta(pld_mech *m, uint64_t count, double eps, pld_result *r)
{
  pld_accountant *acc = NULL;
  REQUIRE_OK(pld_accountant_alloc(NULL, &acc));
  REQUIRE_OK(pld_accountant_add(acc, m, count));
  memset(r, 0, sizeof *r);
  REQUIRE_OK(pld_accountant_delta(acc, eps, r));
  pld_accountant_free(acc);
}

static int no_grid(const pld_result *r)
{
  return r->grid_size == 0 && r->refinements == 0 && r->fft_size == 0;
}

/* Laplace (b, s): delta(eps) = 1 - e^{(eps - s/b)/2} on [0, s/b], 0 beyond. */
static long double laplace_delta(long double b, long double s, long double eps)
{
  long double e0 = s / b;
  return eps >= e0 ? 0.0L : -expm1l((eps - e0) / 2.0L);
}

/* The case and friends: pure mechanisms at eps beyond count * eps0. */
static void test_support_zero(void **state)
{
  (void)state;
  /* Laplace b = 0.0530872, s = 0.202991: eps0 = 3.8237 < 4.14206 */
  {
    const double b = 0.0530872, s = 0.202991, eps = 4.14206;
    EXPECT((long double)s / (long double)b < (long double)eps, "reference");
    pld_mech *m = NULL;
    REQUIRE_OK(pld_mech_laplace(b, s, &m));
    pld_result r;
    acc_delta(m, 1, eps, &r);
    EXPECT(r.bound.upper == 0.0 && r.bound.lower == 0.0 && no_grid(&r) &&
               r.met_accuracy && r.bound_kind == PLD_BOUND_BASIC,
           "laplace delta(%g) = [%g, %g] kind %d grid %zu refinements %u", eps,
           r.bound.lower, r.bound.upper, r.bound_kind, r.grid_size, r.refinements);
    /* just inside the support: positive, the closed form inside */
    const double in = 3.8;
    long double ex = laplace_delta(b, s, in);
    acc_delta(m, 1, in, &r);
    EXPECT(ex > 0.0L && r.bound.upper > 0.0 && ref_brackets(r.bound, ex),
           "laplace delta(%g) = [%.17g, %.17g] vs %.17Lg", in, r.bound.lower,
           r.bound.upper, ex);
    /* at eps = +inf (no infinite loss: the mass there is 0) */
    acc_delta(m, 3, INFINITY, &r);
    EXPECT(r.bound.upper == 0.0 && r.bound.lower == 0.0 && no_grid(&r),
           "laplace x3 delta(inf) = [%g, %g] grid %zu", r.bound.lower,
           r.bound.upper, r.grid_size);
    /* and far out, 10 runs */
    acc_delta(m, 10, 1e5, &r);
    EXPECT(r.bound.upper == 0.0 && no_grid(&r), "laplace x10 delta(1e5) = %g",
           r.bound.upper);
    pld_mech_free(m);
  }
  /* randomized response (eps0 = 1, k = 4) x 5: zero beyond 5 nats (at 5
   * itself the basic bound's outward rounding of the eps0 sum leaves a few
   * u: design.md Sec. 7) */
  {
    pld_mech *m = NULL;
    REQUIRE_OK(pld_mech_randomized_response(1.0, 4, &m));
    pld_result r;
    acc_delta(m, 5, 5.000001, &r);
    EXPECT(r.bound.upper == 0.0 && r.bound.lower == 0.0 && no_grid(&r),
           "rr x5 delta(5.000001) = [%g, %g] grid %zu", r.bound.lower, r.bound.upper,
           r.grid_size);
    /* at 4.9 the top atom (5 nats, mass (e/(e+3))^5) is above: delta > 0 */
    long double e = expl(1.0L), pt = powl(e / (e + 3.0L), 5.0L);
    long double ex_lo = pt * -expm1l(4.9L - 5.0L); /* the top atom's share */
    acc_delta(m, 5, 4.9, &r);
    EXPECT(r.bound.upper >= (double)ex_lo && r.bound.upper > 0.0,
           "rr x5 delta(4.9) = [%g, %g], top atom alone %Lg", r.bound.lower,
           r.bound.upper, ex_lo);
    pld_mech_free(m);
  }
  /* a finite pair x 3 (eps0 = log 2 per run) and a discrete Laplace */
  {
    const double p[2] = {0.4, 0.6}, q[2] = {0.7, 0.3};
    pld_mech *m = NULL;
    REQUIRE_OK(pld_mech_finite(2, p, q, &m));
    long double e0 = fmaxl(fabsl(logl(0.4L / 0.7L)), fabsl(logl(0.6L / 0.3L)));
    pld_result r;
    acc_delta(m, 3, (double)(3.0L * e0 * (1.0L + 1e-12L)), &r);
    EXPECT(r.bound.upper == 0.0 && no_grid(&r), "finite x3 beyond: %g grid %zu",
           r.bound.upper, r.grid_size);
    acc_delta(m, 3, 1e5, &r);
    EXPECT(r.bound.upper == 0.0 && no_grid(&r), "finite x3 delta(1e5): %g",
           r.bound.upper);
    pld_mech_free(m);
    REQUIRE_OK(pld_mech_discrete_laplace(0.5, 3, &m)); /* eps0 = 6 */
    acc_delta(m, 2, 12.5, &r);
    EXPECT(r.bound.upper == 0.0 && no_grid(&r), "dlap x2 delta(12.5): %g",
           r.bound.upper);
    acc_delta(m, 2, 11.5, &r);
    EXPECT(r.bound.upper > 0.0, "dlap x2 delta(11.5) must be positive: %g",
           r.bound.upper);
    pld_mech_free(m);
  }
  EXPECT_DONE();
}

/* A non-pure, unbounded loss far out: each run's share of eps (1000 nats)
 * is where its curve underflows, and the runs' basic bound (DBL_MIN each)
 * is below the floor: no grid through the accountant itself. */
static void test_unbounded_far(void **state)
{
  (void)state;
  pld_mech *m = NULL;
  REQUIRE_OK(pld_mech_poisson_gaussian(0.01, 1.0, 1.0, &m));
  pld_result r;
  acc_delta(m, 100, 1e5, &r);
  EXPECT(r.bound.upper <= PLD_DELTA_FLOOR && r.bound.upper > 0.0 &&
             r.bound.lower == 0.0 && r.met_accuracy && no_grid(&r),
         "poisson-gaussian x100 delta(1e5) = [%g, %g] grid %zu", r.bound.lower,
         r.bound.upper, r.grid_size);
  pld_mech_free(m);
  EXPECT_DONE();
}

/* A curve whose every point lies beyond the support: zeros, no grid; one
 * point inside: the grid runs as before. */
static void test_curve_tail(void **state)
{
  (void)state;
  pld_mech *m = NULL;
  REQUIRE_OK(pld_mech_laplace(1.0, 1.0, &m));
  pld_accountant *acc = NULL;
  REQUIRE_OK(pld_accountant_alloc(NULL, &acc));
  REQUIRE_OK(pld_accountant_add(acc, m, 3));
  const double eps[3] = {3.5, 10.0, 1e5};
  pld_bound out[3];
  pld_result r;
  REQUIRE_OK(pld_accountant_curve(acc, 3, eps, out, &r));
  for (int i = 0; i < 3; i++)
    EXPECT(out[i].upper == 0.0 && out[i].lower == 0.0, "curve at %g: [%g, %g]",
           eps[i], out[i].lower, out[i].upper);
  EXPECT(no_grid(&r), "curve beyond the support built a grid: %zu points",
         r.grid_size);
  const double eps2[2] = {2.5, 10.0};
  REQUIRE_OK(pld_accountant_curve(acc, 2, eps2, out, &r));
  EXPECT(out[0].upper > 0.0 && out[1].upper == 0.0 && r.grid_size > 0,
         "curve with a point inside: [%g, %g], [%g, %g], grid %zu", out[0].lower,
         out[0].upper, out[1].lower, out[1].upper, r.grid_size);
  pld_accountant_free(acc);
  pld_mech_free(m);
  EXPECT_DONE();
}

/* The grid-free call alone, and through the catalogue (the CLI's and
 * Python's path): far tails of unbounded losses are certified below
 * PLD_DELTA_FLOOR by the events' RDP, with no grid. */
static void test_catalogue_far_tail(void **state)
{
  (void)state;
  pld_event_query q;
  pld_event_query_default(&q);
  const struct {
    const char *ev;
    double eps;
  } cs[] = {
      {"poisson-gaussian:q=0.01,sigma=1,count=100", 1e5},
      {"poisson-gaussian:q=0.01,sigma=1,count=100", 200.0},
      {"poisson-gaussian:q=0.004267,sigma=1.1,count=14063", 1e5},
      {"gaussian:sigma=1", 1e5},
      {"laplace:b=0.0530872,sensitivity=0.202991", 4.14206},
      {"laplace:b=1,count=7", 1e5},
  };
  for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
    pld_event_answer a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    pld_event *ev = NULL;
    int rc = pld_event_parse(cs[i].ev, &ev);
    if (rc == PLD_SUCCESS)
      rc = pld_event_delta(ev, &q, cs[i].eps, &a);
    pld_event_free(ev);
    EXPECT(rc == PLD_SUCCESS, "%s: %s", cs[i].ev, pld_error_detail());
    if (rc != PLD_SUCCESS)
      continue;
    EXPECT(a.pld.bound.upper <= PLD_DELTA_FLOOR && a.pld.bound.lower == 0.0 &&
               a.pld.met_accuracy && no_grid(&a.pld),
           "%s delta(%g) = [%g, %g] grid %zu refinements %u", cs[i].ev, cs[i].eps,
           a.pld.bound.lower, a.pld.bound.upper, a.pld.grid_size,
           a.pld.refinements);
    if (strncmp(cs[i].ev, "laplace", 7) == 0)
      EXPECT(a.pld.bound.upper == 0.0, "%s: the support gives 0, got %g",
             cs[i].ev, a.pld.bound.upper);
  }
  /* a Gaussian whose delta is representable: eps = 37.5 at mu = 1 gives
   * about 1e-306; the closed form's bracket contains the reference */
  {
    pld_event *ev = NULL;
    pld_event_answer a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    REQUIRE_OK(pld_event_parse("gaussian:sigma=1", &ev));
    REQUIRE_OK(pld_event_delta(ev, &q, 37.5, &a));
    pld_event_free(ev);
    long double ex = ref_gauss_delta(1.0L, 37.5L);
    EXPECT(ex < 1e-300L && ref_brackets(a.pld.bound, ex) && no_grid(&a.pld),
           "gaussian delta(37.5) = [%g, %g] vs %Lg", a.pld.bound.lower,
           a.pld.bound.upper, ex);
  }
  /* pld_accountant_delta_gridfree: inside the support it is a valid but
   * loose bracket; beyond it the exact 0 */
  {
    pld_mech *m = NULL;
    REQUIRE_OK(pld_mech_laplace(1.0, 1.0, &m));
    pld_accountant *acc = NULL;
    REQUIRE_OK(pld_accountant_alloc(NULL, &acc));
    REQUIRE_OK(pld_accountant_add(acc, m, 2));
    pld_result r;
    REQUIRE_OK(pld_accountant_delta_gridfree(acc, 2.001, &r));
    EXPECT(r.bound.upper == 0.0 && no_grid(&r), "gridfree laplace x2 at 2.001: %g",
           r.bound.upper);
    /* inside: its lower end is one run's closed form (rounded down), and
     * it intersects the grid's certified bracket */
    REQUIRE_OK(pld_accountant_delta_gridfree(acc, 0.5, &r));
    long double one = laplace_delta(1.0L, 1.0L, 0.5L);
    pld_result g;
    REQUIRE_OK(pld_accountant_delta(acc, 0.5, &g));
    EXPECT((long double)r.bound.lower <= one &&
               (long double)r.bound.lower >= one * (1.0L - 1e-9L) &&
               r.bound.lower <= g.bound.upper && r.bound.upper >= g.bound.lower &&
               no_grid(&r) && g.grid_size > 0,
           "gridfree laplace x2 at 0.5: [%.17g, %.17g], one run %.17Lg, grid [%.17g, %.17g]",
           r.bound.lower, r.bound.upper, one, g.bound.lower, g.bound.upper);
    EXPECT(pld_accountant_delta_gridfree(NULL, 1.0, &r) == PLD_EINVAL &&
               pld_accountant_delta_gridfree(acc, -1.0, &r) == PLD_EINVAL,
           "bad input");
    pld_accountant_free(acc);
    pld_mech_free(m);
  }
  EXPECT_DONE();
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_support_zero),
      cmocka_unit_test(test_unbounded_far),
      cmocka_unit_test(test_curve_tail),
      cmocka_unit_test(test_catalogue_far_tail),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
