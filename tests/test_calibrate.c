/* Calibration (pld_calibrate_search, pld_calibrate_accountant, pld_verdict):
 * the answers against values computed here, from the Gaussian closed form
 * (ref.h, long double), from the pure-DP bound of Laplace compositions, and
 * from stub evaluators whose thresholds are known in closed form; the three
 * verdicts, and that an UNDECIDED value is never reported as a failure. */
#include "ref.h"

/* ------------------------------------------------------------------------ */
/* Builders.                                                                 */

/* T runs of the Gaussian N(0, sigma^2), sensitivity 1 (closed form). */
struct gauss_ctx {
  double sigma;  /* used when the count is the parameter */
  uint64_t count; /* used when sigma is the parameter */
};

static int build_gauss_sigma(double s, void *vctx, pld_accountant **out)
{
  const struct gauss_ctx *g = vctx;
  pld_mech *m = NULL;
  int st = pld_mech_gaussian(s, 1.0, &m);
  if (!st)
    st = pld_accountant_alloc(NULL, out);
  if (!st)
    st = pld_accountant_add(*out, m, g->count);
  pld_mech_free(m);
  return st;
}

static int build_gauss_count(double t, void *vctx, pld_accountant **out)
{
  const struct gauss_ctx *g = vctx;
  pld_mech *m = NULL;
  int st = pld_mech_gaussian(g->sigma, 1.0, &m);
  if (!st)
    st = pld_accountant_alloc(NULL, out);
  if (!st)
    st = pld_accountant_add(*out, m, (uint64_t)t);
  pld_mech_free(m);
  return st;
}

/* DP-SGD: T steps of the Poisson-subsampled Gaussian (a grid answer). */
struct pg_ctx {
  double q, sigma;
  uint64_t count;
  int param; /* 0: sigma, 1: count */
};

static int build_pg(double x, void *vctx, pld_accountant **out)
{
  const struct pg_ctx *c = vctx;
  pld_mech *m = NULL;
  int st = pld_mech_poisson_gaussian(c->q, c->param == 0 ? x : c->sigma, 1.0,
                                     &m);
  if (!st)
    st = pld_accountant_alloc(NULL, out);
  if (!st)
    st = pld_accountant_add(*out, m, c->param == 1 ? (uint64_t)x : c->count);
  pld_mech_free(m);
  return st;
}

/* 10 runs of Laplace(b), on grids of at most max_grid points. */
static size_t laplace_max_grid;
/* Non-zero: the 10 runs inside a random selection of weight 1 (the same
 * mechanism, but with no grid-free bounds: the grid's brackets are all the
 * accountant has). */
static int laplace_select;
static int build_laplace(double b, void *vctx, pld_accountant **out)
{
  (void)vctx;
  pld_mech *m = NULL;
  pld_accountant *in = NULL;
  pld_params p;
  pld_params_default(&p);
  p.max_grid = laplace_max_grid;
  int st = pld_mech_laplace(b, 1.0, &m);
  if (!st)
    st = pld_accountant_alloc(&p, out);
  if (!st && laplace_select) {
    static const double one = 1.0;
    st = pld_accountant_alloc(&p, &in);
    if (!st)
      st = pld_accountant_add(in, m, 10);
    if (!st)
      st = pld_accountant_add_selection(*out, 1,
                                        (const pld_accountant *const *)&in,
                                        &one, 1);
    pld_accountant_free(in);
  } else if (!st) {
    st = pld_accountant_add(*out, m, 10);
  }
  pld_mech_free(m);
  return st;
}

static pld_result query(pld_build_fn build, void *ctx, double x, double delta)
{
  pld_accountant *a = NULL;
  pld_result r;
  REQUIRE_OK(build(x, ctx, &a));
  REQUIRE_OK(pld_accountant_epsilon(a, delta, &r));
  pld_accountant_free(a);
  return r;
}

/* The exact sigma for T Gaussian runs at (eps, delta): the smallest sigma
 * with delta(eps; mu = sqrt(T)/sigma) <= delta, by bisection in long double
 * on the closed form (decreasing in sigma). */
static long double exact_sigma(uint64_t T, long double eps, long double delta)
{
  long double lo = 1e-3L, hi = 1e3L;
  for (int i = 0; i < 200; i++) {
    long double s = 0.5L * (lo + hi);
    if (ref_gauss_delta(sqrtl((long double)T) / s, eps) <= delta)
      hi = s;
    else
      lo = s;
  }
  return hi;
}

/* ------------------------------------------------------------------------ */

static void test_verdict(void **state)
{
  (void)state;
  pld_bound b = {1.0, 2.0};
  EXPECT(pld_verdict(b, 2.0) == PLD_VERDICT_MEETS, "upper == target meets");
  EXPECT(pld_verdict(b, 3.0) == PLD_VERDICT_MEETS, "upper < target");
  EXPECT(pld_verdict(b, 0.5) == PLD_VERDICT_FAILS, "lower > target");
  EXPECT(pld_verdict(b, 1.0) == PLD_VERDICT_UNDECIDED, "lower == target");
  EXPECT(pld_verdict(b, 1.5) == PLD_VERDICT_UNDECIDED, "inside");
  b.upper = INFINITY;
  EXPECT(pld_verdict(b, 1e300) == PLD_VERDICT_UNDECIDED, "upper inf");
  b.lower = INFINITY;
  EXPECT(pld_verdict(b, 1e300) == PLD_VERDICT_FAILS, "lower inf");
  b.lower = NAN;
  b.upper = NAN;
  EXPECT(pld_verdict(b, 1.0) == PLD_VERDICT_UNDECIDED, "NaN");
  EXPECT_DONE();
}

/* sigma of a Gaussian composition against the closed form: never below the
 * exact sigma (never over budget), within the tolerance above it; the
 * neighbour certified to fail, and truly failing. */
static void test_gauss_sigma(void **state)
{
  (void)state;
  struct gauss_ctx g = {0.0, 100};
  const double eps = 2.0, delta = 1e-5, tol = 1e-4;
  pld_search_opts o;
  pld_search_result r;
  pld_search_opts_default(&o);
  o.rel_tol = tol;
  REQUIRE_OK(pld_calibrate_accountant(build_gauss_sigma, &g, eps, delta, &o,
                                      NULL, NULL, &r));
  long double s = exact_sigma(g.count, eps, delta);
  EXPECT(r.found && r.located && !r.at_limit && !r.nonmonotone, "flags");
  EXPECT((long double)r.param >= s * (1 - 1e-12L), "%.17g below exact %.17Lg",
         r.param, s);
  EXPECT((long double)r.param <= s * (1 + 2 * tol), "%.17g far above %.17Lg",
         r.param, s);
  EXPECT(r.at_param.bound.upper <= eps, "upper %.17g", r.at_param.bound.upper);
  EXPECT(r.verdict_next == PLD_VERDICT_FAILS, "next %d", r.verdict_next);
  EXPECT(r.param_fail == r.param_next, "fail %g next %g", r.param_fail,
         r.param_next);
  EXPECT((long double)r.param_fail < s, "a certified failure above exact");
  EXPECT(ref_gauss_delta(sqrtl(100.0L) / r.param_fail, eps) > delta,
         "the certified failure meets the target");
  EXPECT(r.at_fail.bound.lower > eps, "fail's lower %g", r.at_fail.bound.lower);
  /* sigma (1 - 1e-3) is not certified */
  pld_result q = query(build_gauss_sigma, &g, r.param * (1 - 1e-3), delta);
  EXPECT(q.bound.upper > eps, "sigma(1-1e-3) still certified: %g",
         q.bound.upper);
  /* the old entry point answers the same */
  pld_calibration c;
  REQUIRE_OK(pld_calibrate(build_gauss_sigma, &g, eps, delta, 1.0, tol, NULL,
                           NULL, &c));
  EXPECT(c.param == r.param && c.param_fail == r.param_next &&
             c.evaluations == r.evaluations,
         "pld_calibrate %g %g %u, search %g %g %u", c.param, c.param_fail,
         c.evaluations, r.param, r.param_next, r.evaluations);
  EXPECT_DONE();
}

/* count=?: the largest T with eps(delta) <= target, against the closed form
 * scanned here; T + 1 certified to fail. */
static void test_gauss_count(void **state)
{
  (void)state;
  struct gauss_ctx g = {30.0, 0};
  const double eps = 1.0, delta = 1e-5;
  pld_search_opts o;
  pld_search_result r;
  pld_search_opts_default(&o);
  o.integer = 1;
  o.direction = -1;
  o.lo = 1;
  o.hi = 9007199254740992.0;
  o.start = 1;
  REQUIRE_OK(pld_calibrate_accountant(build_gauss_count, &g, eps, delta, &o,
                                      NULL, NULL, &r));
  uint64_t T = 1;
  while (ref_gauss_delta(sqrtl((long double)(T + 1)) / 30.0L, eps) <= delta)
    T++;
  EXPECT(r.found && r.located, "flags");
  EXPECT(r.param == (double)T, "count %.17g, exact %llu", r.param,
         (unsigned long long)T);
  EXPECT(r.param_next == (double)(T + 1) &&
             r.verdict_next == PLD_VERDICT_FAILS,
         "next %.17g verdict %d", r.param_next, r.verdict_next);
  EXPECT(r.at_param.bound.upper <= eps && r.at_next.bound.lower > eps,
         "brackets [%g, %g], next [%g, %g]", r.at_param.bound.lower,
         r.at_param.bound.upper, r.at_next.bound.lower, r.at_next.bound.upper);
  /* 2 log2(T) evaluations or so: doubling, then bisection */
  EXPECT(r.evaluations <= 2 * 64, "%u evaluations", r.evaluations);
  EXPECT_DONE();
}

/* DP-SGD (grids): sigma and count.  The answer meets by its certified upper
 * end; sigma (1 - 1e-3) and count + 1 do not certify. */
static void test_dpsgd(void **state)
{
  (void)state;
  struct pg_ctx c = {0.01, 1.0, 1000, 0};
  const double eps = 2.0, delta = 1e-5;
  pld_search_opts o;
  pld_search_result r;
  pld_search_opts_default(&o);
  REQUIRE_OK(pld_calibrate_accountant(build_pg, &c, eps, delta, &o, NULL,
                                      NULL, &r));
  EXPECT(r.found && r.at_param.bound.upper <= eps, "sigma %g: [%g, %g]",
         r.param, r.at_param.bound.lower, r.at_param.bound.upper);
  pld_result q = query(build_pg, &c, r.param, delta);
  EXPECT(q.bound.upper <= eps, "a fresh query at sigma: %g", q.bound.upper);
  q = query(build_pg, &c, r.param * (1 - 1e-3), delta);
  EXPECT(q.bound.upper > eps, "sigma(1-1e-3) certified: %g", q.bound.upper);
  EXPECT(r.param - r.param_next <= 1e-3 * r.param, "neighbour %g of %g",
         r.param_next, r.param);
  if (r.verdict_next == PLD_VERDICT_FAILS)
    EXPECT(r.at_next.bound.lower > eps, "a failure with lower %g",
           r.at_next.bound.lower);

  c.param = 1;
  o.integer = 1;
  o.direction = -1;
  o.lo = 1;
  o.hi = 1e6;
  o.start = 1;
  REQUIRE_OK(pld_calibrate_accountant(build_pg, &c, eps, delta, &o, NULL,
                                      NULL, &r));
  EXPECT(r.found && r.at_param.bound.upper <= eps && r.param >= 1,
         "count %g: [%g, %g]", r.param, r.at_param.bound.lower,
         r.at_param.bound.upper);
  q = query(build_pg, &c, r.param + 1, delta);
  EXPECT(q.bound.upper > eps, "count + 1 certified: %g", q.bound.upper);
  EXPECT(r.param_next == r.param + 1, "next %g", r.param_next);
  EXPECT_DONE();
}

/* Stub evaluators with known thresholds.  eps(x) = 10 / x, reported as
 * [eps - w, eps + w]: w = 1 plain, 1/4 refined.  At target 5 the plain
 * search has MEETS for x >= 10/4 = 2.5, FAILS for x < 10/6; refined, MEETS
 * for x >= 10/4.75, FAILS for x < 10/5.25. */
struct stub {
  unsigned plain, refined;
  int never; /* 1: [0, inf] always */
};

static int stub_eval(double x, const pld_result *prev, void *vctx,
                     pld_result *out)
{
  struct stub *s = vctx;
  memset(out, 0, sizeof *out);
  if (s->never) {
    if (prev)
      return PLD_EUNSUPPORTED;
    s->plain++;
    out->bound.lower = 0;
    out->bound.upper = INFINITY;
    return PLD_SUCCESS;
  }
  double w = prev ? 0.25 : 1.0;
  if (prev)
    s->refined++;
  else
    s->plain++;
  out->bound.lower = 10.0 / x - w;
  out->bound.upper = 10.0 / x + w;
  out->refinements = prev ? 1 : 0;
  return PLD_SUCCESS;
}

static void test_stub_undecided(void **state)
{
  (void)state;
  const double tol = 1e-3;
  struct stub s = {0, 0, 0};
  pld_search_opts o;
  pld_search_result r;
  pld_search_opts_default(&o);
  o.refine = 0;
  REQUIRE_OK(pld_calibrate_search(stub_eval, &s, 5.0, &o, NULL, NULL, &r));
  EXPECT(r.found && !r.located && r.verdict_next == PLD_VERDICT_UNDECIDED,
         "found %d located %d next %d", r.found, r.located, r.verdict_next);
  EXPECT(r.param >= 2.5 && r.param <= 2.5 * (1 + 2 * tol), "param %.17g",
         r.param);
  EXPECT(r.param_fail < 10.0 / 6 && r.param_fail >= 10.0 / 6 * (1 - 2 * tol),
         "fail %.17g", r.param_fail);
  EXPECT(r.refinements == 0 && s.refined == 0, "refined without refine");

  /* with refinement: the thresholds of the refined brackets */
  memset(&s, 0, sizeof s);
  o.refine = 1;
  REQUIRE_OK(pld_calibrate_search(stub_eval, &s, 5.0, &o, NULL, NULL, &r));
  EXPECT(r.param >= 10 / 4.75 && r.param <= 10 / 4.75 * (1 + 2 * tol),
         "refined param %.17g", r.param);
  EXPECT(r.param_fail < 10 / 5.25 &&
             r.param_fail >= 10 / 5.25 * (1 - 2 * tol),
         "refined fail %.17g", r.param_fail);
  EXPECT(!r.located && r.verdict_next == PLD_VERDICT_UNDECIDED &&
             r.next_refined,
         "located %d next %d refined %d", r.located, r.verdict_next,
         r.next_refined);
  EXPECT(r.refinements == s.refined && r.evaluations == s.plain + s.refined,
         "counts %u %u / %u %u", r.evaluations, r.refinements, s.plain,
         s.refined);
  EXPECT(r.evaluations <= 120, "%u evaluations (no crawl)", r.evaluations);

  /* the same, smaller is more private: eps(x) = 10 x, target 5; plain
   * MEETS for x <= 0.4, FAILS for x > 0.6 */
  EXPECT_DONE();
}

static int stub_up(double x, const pld_result *prev, void *vctx,
                   pld_result *out)
{
  (void)prev;
  (void)vctx;
  memset(out, 0, sizeof *out);
  out->bound.lower = 10.0 * x - 1.0;
  out->bound.upper = 10.0 * x + 1.0;
  return prev ? PLD_EUNSUPPORTED : PLD_SUCCESS;
}

static void test_stub_direction(void **state)
{
  (void)state;
  pld_search_opts o;
  pld_search_result r;
  pld_search_opts_default(&o);
  o.direction = -1;
  o.hi = 1.0;
  REQUIRE_OK(pld_calibrate_search(stub_up, NULL, 5.0, &o, NULL, NULL, &r));
  EXPECT(r.found && r.param <= 0.4 && r.param >= 0.4 * (1 - 2e-3),
         "param %.17g", r.param);
  EXPECT(r.param_fail > 0.6 && r.param_fail <= 0.6 * (1 + 2e-3),
         "fail %.17g", r.param_fail);
  EXPECT(r.param_next > r.param && r.verdict_next == PLD_VERDICT_UNDECIDED,
         "next %.17g", r.param_next);
  /* at the domain's end: hi = 0.3 meets */
  o.hi = 0.3;
  o.start = 0.3;
  REQUIRE_OK(pld_calibrate_search(stub_up, NULL, 5.0, &o, NULL, NULL, &r));
  EXPECT(r.found && r.at_limit && r.located && r.param == 0.3 &&
             isnan(r.param_next) && isnan(r.param_fail),
         "at_limit %d param %g", r.at_limit, r.param);
  EXPECT_DONE();
}

/* Nothing certifies: the answer is "not found", and nothing fails. */
static void test_stub_never(void **state)
{
  (void)state;
  struct stub s = {0, 0, 1};
  pld_search_opts o;
  pld_search_result r;
  pld_search_opts_default(&o);
  REQUIRE_OK(pld_calibrate_search(stub_eval, &s, 5.0, &o, NULL, NULL, &r));
  EXPECT(!r.found && isnan(r.param) && !r.located, "found %d", r.found);
  EXPECT(r.verdict_next == PLD_VERDICT_UNDECIDED && r.param_next == 1e12,
         "next %g verdict %d", r.param_next, r.verdict_next);
  EXPECT(isnan(r.param_fail), "a failure from nothing: %g", r.param_fail);
  EXPECT(r.evaluations == s.plain && r.evaluations <= 45, "%u evaluations",
         r.evaluations);
  EXPECT_DONE();
}

/* The accountant on grids of at most 64 points: brackets of 10 Laplace runs
 * too wide to decide near the threshold.  The answer's neighbour is
 * UNDECIDED, and truly meets the target (pure DP: eps <= 10/b < 10), so
 * calling it a failure (as before) would be false; the certified failure
 * lies below it.  With max_grid 16 at delta = 1e-13 nothing can be
 * evaluated (PLD_ERANGE at every value): nothing meets, nothing fails, and
 * pld_calibrate returns PLD_ETOL.  (The runs sit in a selection: a plain Laplace list is decided
 * by basic composition, 10/b, without a grid; see the end.) */
static void test_accountant_undecided(void **state)
{
  (void)state;
  pld_search_opts o;
  pld_search_result r;
  pld_search_opts_default(&o);
  laplace_select = 1;
  laplace_max_grid = 64;
  REQUIRE_OK(pld_calibrate_accountant(build_laplace, NULL, 10.0, 1e-5, &o,
                                      NULL, NULL, &r));
  EXPECT(r.found && !r.located, "found %d located %d", r.found, r.located);
  EXPECT(r.at_param.bound.upper <= 10.0, "upper %g", r.at_param.bound.upper);
  EXPECT(r.verdict_next == PLD_VERDICT_UNDECIDED, "next %d", r.verdict_next);
  EXPECT(10.0 / r.param_next < 10.0, "the neighbour %g may fail", r.param_next);
  EXPECT(r.at_next.bound.lower <= 10.0 && r.at_next.bound.upper > 10.0,
         "next [%g, %g]", r.at_next.bound.lower, r.at_next.bound.upper);
  EXPECT(r.param_fail < r.param_next && r.at_fail.bound.lower > 10.0,
         "fail %g [%g, %g]", r.param_fail, r.at_fail.bound.lower,
         r.at_fail.bound.upper);
  /* the true threshold (<= 1 by pure DP) is inside [fail, param] */
  EXPECT(r.param_fail <= 1.0 && r.param >= 0.99, "[%g, %g]", r.param_fail,
         r.param);

  /* (at delta = 1e-13: from b ~ 3e10 on, 10 runs have a total variation
   * below 1e-5, and since a selection's members are built with the query's
   * tail mass, their grid fits 16 points there: epsilon(1e-5) = 0 is
   * certified at such b, correctly, where every grid used to overflow;
   * below 1e-13 no b up to 1e12 gets there) */
  laplace_max_grid = 16;
  REQUIRE_OK(pld_calibrate_accountant(build_laplace, NULL, 10.0, 1e-13, &o,
                                      NULL, NULL, &r));
  EXPECT(!r.found && r.verdict_next == PLD_VERDICT_UNDECIDED &&
             r.next_status == PLD_ERANGE && isnan(r.param_fail),
         "found %d next %d status %d", r.found, r.verdict_next,
         r.next_status);
  pld_calibration c;
  EXPECT_STATUS(pld_calibrate(build_laplace, NULL, 10.0, 1e-13, 1.0, 1e-3,
                              NULL, NULL, &c),
                PLD_ETOL);

  /* The plain list on the same tiny grids: 10 runs of pure (1/b)-DP are
   * (10/b, 0)-DP, so every b >= 1 meets eps = 10 whatever the grid, and the
   * answer lies within the tolerance of b <= 1 (the true threshold is
   * below 1: eps(1e-5) < 10/b), certified without a grid. */
  laplace_select = 0;
  o.lo = 1e-3; /* Laplace takes s/b <= 1e6 */
  o.hi = 1e3;
  for (int k = 0; k < 2; k++) {
    laplace_max_grid = k ? 16 : 64;
    REQUIRE_OK(pld_calibrate_accountant(build_laplace, NULL, 10.0, 1e-5, &o,
                                        NULL, NULL, &r));
    EXPECT(r.found && r.param <= 1.0 * (1 + 2e-3) &&
               r.at_param.bound.upper <= 10.0,
           "plain Laplace, max_grid %zu: found %d at %g (upper %g)",
           laplace_max_grid, r.found, r.param, r.at_param.bound.upper);
  }
  EXPECT_DONE();
}

/* The closed-form participation analyses through the generic search,
 * against the library's own calibration (bisection to 1e-10 in log sigma,
 * pld_participation_calibrate): Sec. 6.1 of the participation paper. */
static int eval_ols(double s, const pld_result *prev, void *vctx,
                    pld_result *out)
{
  pld_participation_params par = *(const pld_participation_params *)vctx;
  if (prev)
    return PLD_EUNSUPPORTED;
  par.sigma = s;
  memset(out, 0, sizeof *out);
  out->closed_form = 1;
  return pld_participation_epsilon(&par, PLD_PARTICIPATION_OLS, 1e-6,
                                   &out->bound);
}

static void test_participation_ols(void **state)
{
  (void)state;
  pld_participation_params par = {0.001, 0.1, 30, 1.0, 1.0};
  pld_participation_calibration cal;
  pld_search_opts o;
  pld_search_result r;
  REQUIRE_OK(pld_participation_calibrate(&par, PLD_PARTICIPATION_OLS, 0.015,
                                         1e-6, &cal));
  pld_search_opts_default(&o);
  o.rel_tol = 1e-6;
  REQUIRE_OK(pld_calibrate_search(eval_ols, &par, 0.015, &o, NULL, NULL, &r));
  EXPECT(r.found && r.located && r.at_param.bound.upper <= 0.015, "found");
  EXPECT(r.param >= cal.sigma_below && r.param <= cal.sigma * (1 + 2e-6),
         "%.17g against [%.17g, %.17g]", r.param, cal.sigma_below, cal.sigma);
  EXPECT(fabs(r.param / 22.497 - 1) < 1e-4, "%.17g, docs 22.497", r.param);
  EXPECT_DONE();
}

static void test_bad_input(void **state)
{
  (void)state;
  struct stub s = {0, 0, 0};
  pld_search_opts o, bad;
  pld_search_result r, keep;
  pld_search_opts_default(&o);
  memset(&r, 0x5a, sizeof r);
  keep = r;
#define BAD(field, value)                                                    \
  do {                                                                       \
    bad = o;                                                                 \
    bad.field = value;                                                       \
    EXPECT_STATUS(pld_calibrate_search(stub_eval, &s, 5.0, &bad, NULL, NULL, \
                                       &r),                                  \
                  PLD_EINVAL);                                               \
  } while (0)
  BAD(direction, 0);
  BAD(direction, 2);
  BAD(lo, 0.0);      /* a real search halving towards 0 never ends */
  BAD(lo, -1.0);
  BAD(hi, 1e-13);    /* below lo */
  BAD(hi, INFINITY);
  BAD(start, 2e12);  /* outside [lo, hi] */
  BAD(start, NAN);
  BAD(rel_tol, 0.0);
  BAD(rel_tol, 1.0);
  BAD(accuracy, -1.0);
  BAD(integer, 1);   /* lo = 1e-12 is not an integer */
  bad = o;
  bad.integer = 1;
  bad.lo = 1;
  bad.hi = 1e17; /* above 2^53 */
  EXPECT_STATUS(pld_calibrate_search(stub_eval, &s, 5.0, &bad, NULL, NULL,
                                     &r),
                PLD_EINVAL);
#undef BAD
  EXPECT_STATUS(pld_calibrate_search(NULL, &s, 5.0, &o, NULL, NULL, &r),
                PLD_EINVAL);
  EXPECT_STATUS(pld_calibrate_search(stub_eval, &s, -1.0, &o, NULL, NULL, &r),
                PLD_EINVAL);
  EXPECT_STATUS(pld_calibrate_search(stub_eval, &s, NAN, &o, NULL, NULL, &r),
                PLD_EINVAL);
  EXPECT_STATUS(pld_calibrate_search(stub_eval, &s, 5.0, NULL, NULL, NULL, &r),
                PLD_EINVAL);
  EXPECT_STATUS(pld_calibrate_search(stub_eval, &s, 5.0, &o, NULL, NULL, NULL),
                PLD_EINVAL);
  EXPECT_STATUS(pld_calibrate_accountant(build_laplace, NULL, 1.0, 0.0, &o,
                                         NULL, NULL, &r),
                PLD_EINVAL);
  EXPECT_STATUS(pld_calibrate_accountant(NULL, NULL, 1.0, 1e-5, &o, NULL,
                                         NULL, &r),
                PLD_EINVAL);
  EXPECT(memcmp(&r, &keep, sizeof r) == 0, "output touched on failure");
  EXPECT(s.plain == 0 && s.refined == 0, "evaluated on bad input");
  EXPECT_DONE();
}

/* A failing evaluator stops the search with its status, output untouched. */
static int eval_fails(double x, const pld_result *prev, void *vctx,
                      pld_result *out)
{
  unsigned *n = vctx;
  (void)prev;
  memset(out, 0, sizeof *out);
  out->bound.lower = 0;
  out->bound.upper = 10.0 / x;
  return ++*n == 3 ? PLD_ECALLBACK : PLD_SUCCESS;
}

static void test_eval_error(void **state)
{
  (void)state;
  unsigned n = 0;
  pld_search_opts o;
  pld_search_result r, keep;
  pld_search_opts_default(&o);
  memset(&r, 0x5a, sizeof r);
  keep = r;
  EXPECT_STATUS(pld_calibrate_search(eval_fails, &n, 5.0, &o, NULL, NULL, &r),
                PLD_ECALLBACK);
  EXPECT(n == 3 && memcmp(&r, &keep, sizeof r) == 0, "n %u", n);
  EXPECT_DONE();
}

/* pld_search_opts_domain (calibrate --range): domains worked out by hand. */
static void test_search_domain(void **state)
{
  (void)state;
  pld_search_opts o;
  pld_search_opts_default(&o);
  /* no range: the domain itself, start 1 */
  assert_int_equal(pld_search_opts_domain(&o, 1e-12, 1e12, 0, 0, 0), 0);
  assert_true(o.lo == 1e-12 && o.hi == 1e12 && o.start == 1.0 && !o.integer);
  /* no range, integers from 2: start 1 clamped up to 2 */
  assert_int_equal(pld_search_opts_domain(&o, 2, 1e6, 1, 0, 0), 0);
  assert_true(o.lo == 2 && o.hi == 1e6 && o.start == 2 && o.integer == 1);
  /* real range: start at the geometric middle sqrt(2 * 50) = 10 */
  assert_int_equal(pld_search_opts_domain(&o, 1e-12, 1e12, 0, 2, 50), 0);
  assert_true(o.lo == 2 && o.hi == 50 && o.start == 10);
  /* integer range 3.5:7.2 -> [4, 7], start floor(sqrt(28)) = 5 */
  assert_int_equal(pld_search_opts_domain(&o, 1, 1e6, 1, 3.5, 7.2), 0);
  assert_true(o.lo == 4 && o.hi == 7 && o.start == 5 && o.integer == 1);
  /* failures leave opts untouched */
  pld_search_opts keep = o;
  assert_int_equal(pld_search_opts_domain(&o, 1, 1e6, 1, 3.5, 3.9),
                   PLD_ERANGE);
  assert_int_equal(pld_search_opts_domain(&o, 1, 1e6, 0, 0.5, 3), PLD_EINVAL);
  assert_int_equal(pld_search_opts_domain(&o, 1, 1e6, 0, 2, 2e6), PLD_EINVAL);
  assert_int_equal(pld_search_opts_domain(&o, 1, 1e6, 0, 3, 2), PLD_EINVAL);
  assert_int_equal(pld_search_opts_domain(&o, 1, NAN, 0, 0, 0), PLD_EINVAL);
  assert_int_equal(pld_search_opts_domain(NULL, 1, 2, 0, 0, 0), PLD_EINVAL);
  assert_memory_equal(&o, &keep, sizeof o);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_verdict),
    cmocka_unit_test(test_search_domain),
    cmocka_unit_test(test_gauss_sigma),
    cmocka_unit_test(test_gauss_count),
    cmocka_unit_test(test_dpsgd),
    cmocka_unit_test(test_stub_undecided),
    cmocka_unit_test(test_stub_direction),
    cmocka_unit_test(test_stub_never),
    cmocka_unit_test(test_accountant_undecided),
    cmocka_unit_test(test_participation_ols),
    cmocka_unit_test(test_bad_input),
    cmocka_unit_test(test_eval_error),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
