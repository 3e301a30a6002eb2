/* pldkit tests: the grid-free Laplace-inversion query (pld/inversion.c,
 * docs/design.md §16), against independent values on both sides:
 *  - Gaussians only (the inversion of e^{mu^2 s(s+1)/2}) and the
 *    Poisson-subsampled Gaussian at q = 1 (the certified MGF of
 *    pld/mgf_poisson.c by quadrature) against the exact Gaussian curve
 *    (tests/ref.h, long double), delta down to 1e-30 and counts up to 1e6;
 *  - DP-SGD runs (q = 256/60000) and a heterogeneous list against the grid
 *    path's certified brackets on fixed grids: the two brackets intersect,
 *    and the inversion's lies inside the fine grid's widened by its width;
 *  - the accountant names it (PLD_BOUND_INVERSION, "inversion") where it
 *    answers and keeps the grid for events without an MGF;
 *  - bad input.
 */
#include "ref.h"

#include <complex.h>

#include "internal.h"
#include "inversion.h"

static int meets(pld_bound b, double rel)
{
  return b.lower <= b.upper && b.upper - b.lower <= rel * b.upper;
}

static void test_gaussian_only(void **state)
{
  (void)state;
  const double mus[] = {0.3, 1.0, 3.0, 10.0};
  const double epss[] = {0.0, 0.5, 2.0, 8.0};
  for (size_t i = 0; i < 4; i++)
    for (size_t j = 0; j < 4; j++) {
      double mu = mus[i], e = epss[j];
      long double ex = ref_gauss_delta(mu, e);
      if (ex < 1e-280L)
        continue;
      pld_bound b;
      int st = pld_inversion_delta(NULL, 0, mu * mu, 0.0, e, &b);
      /* below the mean loss the abscissa is clamped near 0, where the
       * period it needs may exceed the cap: then it declines (the
       * accountant keeps the grid) */
      if (st == PLD_ERANGE && e < 0.5 * mu * mu + mu)
        continue;
      REQUIRE_OK(st);
      EXPECT(ref_brackets(b, ex), "mu %g delta(%g) = [%.17g, %.17g] misses %.17Lg",
             mu, e, b.lower, b.upper, ex);
      /* not a vacuous bracket: the saddle point is far from 0 only above
       * the mean (c clamped to 1/64 below it costs digits, not soundness) */
      if (e >= 0.5 * mu * mu + mu)
        EXPECT(meets(b, 1e-6), "mu %g delta(%g) = [%.17g, %.17g] wide", mu, e,
               b.lower, b.upper);
    }
  /* epsilon down to delta = 1e-30 */
  const double deltas[] = {1e-5, 1e-12, 1e-30};
  for (size_t i = 0; i < 4; i++)
    for (size_t k = 0; k < 3; k++) {
      double mu = mus[i];
      long double ex = ref_gauss_epsilon(mu, deltas[k]);
      pld_bound b;
      REQUIRE_OK(pld_inversion_epsilon(NULL, 0, mu * mu, 0.0, deltas[k], 1e-4, &b));
      EXPECT(ref_brackets(b, ex), "mu %g eps(%g) = [%.17g, %.17g] misses %.17Lg",
             mu, deltas[k], b.lower, b.upper, ex);
      EXPECT(meets(b, 1e-4), "mu %g eps(%g) = [%.17g, %.17g] wider than 1e-4",
             mu, deltas[k], b.lower, b.upper);
    }
  EXPECT_DONE();
}

/* q = 1: P = N(mu, 1), Q = N(0, 1), a Gaussian in disguise, but its MGF
 * comes from the quadrature (strip bound, tails, rounding) */
static void test_poisson_q1(void **state)
{
  (void)state;
  const struct {
    double sigma;
    uint64_t T;
  } cs[] = {{1.0, 1}, {4.0, 10}, {30.0, 1000}, {1000.0, 1000000}};
  for (size_t i = 0; i < 4; i++) {
    pld_mech *m = NULL;
    REQUIRE_OK(pld_mech_poisson_gaussian(1.0, cs[i].sigma, 1.0, &m));
    struct pld_inv_group g = {m, cs[i].T};
    long double mu = sqrtl((long double)cs[i].T) / cs[i].sigma;
    const double deltas[] = {1e-5, 1e-12, 1e-30};
    for (size_t k = 0; k < 3; k++) {
      long double ex = ref_gauss_epsilon(mu, deltas[k]);
      pld_bound b;
      REQUIRE_OK(pld_inversion_epsilon(&g, 1, 0.0, 0.0, deltas[k], 1e-3, &b));
      print_message("q=1 sigma %g T %llu: eps(%g) in [%.12g, %.12g], exact %.12Lg\n",
                    cs[i].sigma, (unsigned long long)cs[i].T, deltas[k], b.lower,
                    b.upper, ex);
      EXPECT(ref_brackets(b, ex), "q=1 eps(%g) = [%.17g, %.17g] misses %.17Lg",
             deltas[k], b.lower, b.upper, ex);
      /* one run: the decay bound V/t of its tail would need t ~ 1e5 to
       * certify anything; the inversion gives up there (sound, vacuous:
       * the accountant never asks it below 16 runs); from ten runs on it
       * is tight */
      if (cs[i].T >= 10)
        EXPECT(meets(b, 1e-3), "q=1 eps(%g) = [%.17g, %.17g] wide", deltas[k],
               b.lower, b.upper);
      double e = (double)ex;
      long double dx = ref_gauss_delta(mu, e);
      REQUIRE_OK(pld_inversion_delta(&g, 1, 0.0, 0.0, e, &b));
      EXPECT(ref_brackets(b, dx), "q=1 delta(%g) = [%.17g, %.17g] misses %.17Lg",
             e, b.lower, b.upper, dx);
      if (cs[i].T >= 10)
        EXPECT(meets(b, cs[i].T >= 1000 ? 1e-4 : 1e-3),
               "q=1 delta(%g) = [%.17g, %.17g] wide", e, b.lower, b.upper);
    }
    pld_mech_free(m);
  }
  EXPECT_DONE();
}

/* The grid path's certified bracket on a fixed grid (the inversion is off
 * there). */
static pld_bound grid_answer(const pld_mech *const *ms, const uint64_t *T,
                             size_t n, double mu, int want_delta, double x,
                             double step)
{
  pld_params p;
  pld_params_default(&p);
  p.discretization = step;
  pld_accountant *acc = NULL;
  pld_bound b = {0.0, INFINITY};
  if (pld_accountant_alloc(&p, &acc))
    return b;
  for (size_t i = 0; i < n; i++)
    if (pld_accountant_add(acc, ms[i], T[i]))
      return b;
  if (mu > 0.0) {
    pld_mech *gm = NULL;
    if (!pld_mech_gaussian(1.0, mu, &gm)) {
      if (pld_accountant_add(acc, gm, 1))
        return b;
      pld_mech_free(gm);
    }
  }
  pld_result r;
  int st = want_delta ? pld_accountant_delta(acc, x, &r)
                      : pld_accountant_epsilon(acc, x, &r);
  if (!st)
    b = r.bound;
  EXPECT(r.bound_kind != PLD_BOUND_INVERSION, "fixed grid answered by inversion");
  pld_accountant_free(acc);
  return b;
}

/* Both certified: they intersect; the inversion's (tight) bracket lies in
 * the grid's widened by its own width. */
static void against_grid(const char *what, pld_bound inv, pld_bound grid)
{
  double w = grid.upper - grid.lower;
  print_message("%s: inversion [%.12g, %.12g], grid [%.12g, %.12g]\n", what,
                inv.lower, inv.upper, grid.lower, grid.upper);
  EXPECT(inv.lower <= grid.upper && grid.lower <= inv.upper,
         "%s: inversion [%.17g, %.17g] and grid [%.17g, %.17g] disjoint", what,
         inv.lower, inv.upper, grid.lower, grid.upper);
  EXPECT(inv.lower >= grid.lower - w && inv.upper <= grid.upper + w,
         "%s: inversion [%.17g, %.17g] outside the grid's widening [%.17g, %.17g]",
         what, inv.lower, inv.upper, grid.lower - w, grid.upper + w);
}

static void test_dpsgd_vs_grid(void **state)
{
  (void)state;
  pld_mech *m = NULL;
  REQUIRE_OK(pld_mech_poisson_gaussian(256.0 / 60000.0, 1.1, 1.0, &m));
  const pld_mech *ms[1] = {m};
  const struct {
    uint64_t T;
    double delta, step;
  } cs[] = {{14063, 1e-5, 5e-5}, {14063, 1e-12, 5e-5}, {1000000, 1e-5, 5e-4}};
  for (size_t i = 0; i < 3; i++) {
    struct pld_inv_group g = {m, cs[i].T};
    pld_bound inv, gr;
    REQUIRE_OK(pld_inversion_epsilon(&g, 1, 0.0, 0.0, cs[i].delta, 1e-4, &inv));
    EXPECT(meets(inv, 1e-4), "T %llu eps(%g) = [%.17g, %.17g] wide",
           (unsigned long long)cs[i].T, cs[i].delta, inv.lower, inv.upper);
    gr = grid_answer(ms, &cs[i].T, 1, 0.0, 0, cs[i].delta, cs[i].step);
    against_grid("eps", inv, gr);
    /* delta at the grid's upper end */
    double e = gr.upper;
    REQUIRE_OK(pld_inversion_delta(&g, 1, 0.0, 0.0, e, &inv));
    EXPECT(meets(inv, 1e-4), "delta(%g) = [%.17g, %.17g] wide", e, inv.lower,
           inv.upper);
    gr = grid_answer(ms, &cs[i].T, 1, 0.0, 1, e, cs[i].step);
    against_grid("delta", inv, gr);
  }
  /* far in the tail: delta(5) ~ 6e-17 (an overflowed alias bound there
   * once made the lower end NaN, hence 0) */
  uint64_t T0 = 14063;
  struct pld_inv_group g0 = {m, T0};
  pld_bound inv, gr;
  REQUIRE_OK(pld_inversion_delta(&g0, 1, 0.0, 0.0, 5.0, &inv));
  EXPECT(meets(inv, 1e-4), "delta(5) = [%.17g, %.17g] wide", inv.lower,
         inv.upper);
  gr = grid_answer(ms, &T0, 1, 0.0, 1, 5.0, 5e-5);
  against_grid("delta(5)", inv, gr);
  /* delta(15) ~ 1.2e-66: the QP direction's abscissa near the evaluator's
   * cap (its saddle search once stopped there with ERANGE); against the
   * automatic grid's epsilon at delta = 1e-66 (pld_accountant_epsilon_grid:
   * the grid path alone) */
  REQUIRE_OK(pld_inversion_delta(&g0, 1, 0.0, 0.0, 15.0, &inv));
  EXPECT(meets(inv, 1e-4), "delta(15) = [%.17g, %.17g] wide", inv.lower,
         inv.upper);
  EXPECT(inv.lower > 1e-66 && inv.upper < 1.3e-66,
         "delta(15) = [%.17g, %.17g] not ~1.2e-66", inv.lower, inv.upper);
  REQUIRE_OK(pld_inversion_epsilon(&g0, 1, 0.0, 0.0, 1e-66, 1e-4, &inv));
  {
    pld_accountant *ga = NULL;
    pld_result rg;
    REQUIRE_OK(pld_accountant_alloc(NULL, &ga));
    REQUIRE_OK(pld_accountant_add(ga, m, T0));
    REQUIRE_OK(pld_accountant_epsilon_grid(ga, 1e-66, &rg));
    EXPECT(rg.refinements > 0 && rg.bound_kind != PLD_BOUND_INVERSION,
           "epsilon_grid did not use the grid (kind %d)", rg.bound_kind);
    against_grid("eps(1e-66)", inv, rg.bound);
    pld_accountant_free(ga);
  }
  pld_mech_free(m);
  EXPECT_DONE();
}

/* Two Poisson-Gaussian groups and a Gaussian */
static void test_hetero_vs_grid(void **state)
{
  (void)state;
  pld_mech *a = NULL, *b = NULL;
  REQUIRE_OK(pld_mech_poisson_gaussian(0.01, 1.0, 1.0, &a));
  REQUIRE_OK(pld_mech_poisson_gaussian(0.002, 0.8, 1.0, &b));
  const pld_mech *ms[2] = {a, b};
  const uint64_t T[2] = {3000, 20000};
  struct pld_inv_group g[2] = {{a, T[0]}, {b, T[1]}};
  double mu = 0.5;
  pld_bound inv, gr;
  REQUIRE_OK(pld_inversion_epsilon(g, 2, mu * mu, 0.0, 1e-8, 1e-4, &inv));
  EXPECT(meets(inv, 1e-4), "hetero eps = [%.17g, %.17g] wide", inv.lower,
         inv.upper);
  gr = grid_answer(ms, T, 2, mu, 0, 1e-8, 5e-5);
  against_grid("hetero eps", inv, gr);
  REQUIRE_OK(pld_inversion_delta(g, 2, mu * mu, 0.0, gr.upper, &inv));
  gr = grid_answer(ms, T, 2, mu, 1, gr.upper, 5e-5);
  against_grid("hetero delta", inv, gr);
  pld_mech_free(a);
  pld_mech_free(b);
  EXPECT_DONE();
}

static void test_accountant_path(void **state)
{
  (void)state;
  EXPECT(strcmp(pld_bound_kind_name(PLD_BOUND_INVERSION), "inversion") == 0,
         "kind name %s", pld_bound_kind_name(PLD_BOUND_INVERSION));
  pld_mech *m = NULL;
  REQUIRE_OK(pld_mech_poisson_gaussian(256.0 / 60000.0, 1.1, 1.0, &m));
  pld_accountant *acc = NULL;
  REQUIRE_OK(pld_accountant_alloc(NULL, &acc));
  REQUIRE_OK(pld_accountant_add(acc, m, 14063));
  pld_result r;
  REQUIRE_OK(pld_accountant_epsilon(acc, 1e-5, &r));
  EXPECT(r.bound_kind == PLD_BOUND_INVERSION && r.lower_kind == PLD_BOUND_INVERSION &&
             r.met_accuracy && r.refinements == 0,
         "kinds %d/%d met %d refinements %u", r.bound_kind, r.lower_kind,
         r.met_accuracy, r.refinements);
  /* the grid's certified bracket at Delta = 1e-5 (tests/test_accountant.c)
   * contains eps within 0.2%: the answer lies there */
  EXPECT(r.bound.lower >= 2.376 && r.bound.upper <= 2.387,
         "[%.17g, %.17g]", r.bound.lower, r.bound.upper);
  pld_result rd;
  REQUIRE_OK(pld_accountant_delta(acc, r.bound.upper, &rd));
  EXPECT(rd.bound_kind == PLD_BOUND_INVERSION && rd.bound.upper <= 1e-5 &&
             rd.bound.lower > 0.99e-5,
         "delta at the upper end: [%.17g, %.17g] kind %d", rd.bound.lower,
         rd.bound.upper, rd.bound_kind);
  /* a curve: every point by the inversion, each inside the fixed grid's
   * certified bracket widened by its width */
  const double ce[5] = {0.0, 1.0, 2.5, 4.0, 6.0};
  pld_bound cb[5], gb[5];
  pld_result ri;
  REQUIRE_OK(pld_accountant_curve(acc, 5, ce, cb, &ri));
  EXPECT(ri.bound_kind == PLD_BOUND_INVERSION && ri.met_accuracy,
         "curve kind %d met %d", ri.bound_kind, ri.met_accuracy);
  {
    pld_params fp;
    pld_params_default(&fp);
    fp.discretization = 5e-5;
    pld_accountant *ga = NULL;
    REQUIRE_OK(pld_accountant_alloc(&fp, &ga));
    REQUIRE_OK(pld_accountant_add(ga, m, 14063));
    REQUIRE_OK(pld_accountant_curve(ga, 5, ce, gb, NULL));
    pld_accountant_free(ga);
    for (int i = 0; i < 5; i++)
      against_grid("curve", cb[i], gb[i]);
  }
  /* an event without an MGF keeps the list on the grid */
  pld_mech *lap = NULL;
  REQUIRE_OK(pld_mech_randomized_response(0.5, 2, &lap));
  REQUIRE_OK(pld_accountant_add(acc, lap, 3));
  REQUIRE_OK(pld_accountant_epsilon(acc, 1e-5, &r));
  EXPECT(r.bound_kind != PLD_BOUND_INVERSION && r.lower_kind != PLD_BOUND_INVERSION,
         "a Laplace event answered by inversion");
  pld_mech_free(lap);
  pld_accountant_free(acc);
  pld_mech_free(m);
  EXPECT_DONE();
}

static void test_bad_input(void **state)
{
  (void)state;
  pld_mech *m = NULL, *lap = NULL;
  REQUIRE_OK(pld_mech_poisson_gaussian(0.01, 1.0, 1.0, &m));
  REQUIRE_OK(pld_mech_randomized_response(1.0, 2, &lap)); /* no MGF yet */
  struct pld_inv_group g = {m, 10}, gl = {lap, 10}, g0 = {m, 0}, gn = {NULL, 1};
  pld_bound b = {-7.0, -7.0};
  EXPECT_STATUS(pld_inversion_delta(NULL, 1, 0.0, 0.0, 1.0, &b), PLD_EINVAL);
  EXPECT_STATUS(pld_inversion_delta(NULL, 0, 0.0, 0.0, 1.0, &b), PLD_EINVAL);
  EXPECT_STATUS(pld_inversion_delta(&g, 1, -1.0, 0.0, 1.0, &b), PLD_EINVAL);
  EXPECT_STATUS(pld_inversion_delta(&g, 1, NAN, 0.0, 1.0, &b), PLD_EINVAL);
  EXPECT_STATUS(pld_inversion_delta(&g, 1, 0.0, 0.0, NAN, &b), PLD_EINVAL);
  EXPECT_STATUS(pld_inversion_delta(&g, 1, 0.0, 0.0, -1.0, &b), PLD_EINVAL);
  EXPECT_STATUS(pld_inversion_delta(&g, 1, 0.0, 0.0, 1.0, NULL), PLD_EINVAL);
  EXPECT_STATUS(pld_inversion_delta(&gl, 1, 0.0, 0.0, 1.0, &b), PLD_EUNSUPPORTED);
  EXPECT_STATUS(pld_inversion_delta(&g0, 1, 0.0, 0.0, 1.0, &b), PLD_EUNSUPPORTED);
  EXPECT_STATUS(pld_inversion_delta(&gn, 1, 0.0, 0.0, 1.0, &b), PLD_EUNSUPPORTED);
  EXPECT_STATUS(pld_inversion_epsilon(&g, 1, 0.0, 0.0, 0.0, 1e-3, &b), PLD_EINVAL);
  EXPECT_STATUS(pld_inversion_epsilon(&g, 1, 0.0, 0.0, 1.0, 1e-3, &b), PLD_EINVAL);
  EXPECT_STATUS(pld_inversion_epsilon(&g, 1, 0.0, 0.0, NAN, 1e-3, &b), PLD_EINVAL);
  EXPECT_STATUS(pld_inversion_epsilon(&g, 1, 0.0, 0.0, 1e-5, 0.0, &b), PLD_EINVAL);
  EXPECT(b.lower == -7.0 && b.upper == -7.0, "output written on failure");
  /* eps = +inf: no loss is infinite */
  REQUIRE_OK(pld_inversion_delta(&g, 1, 0.0, 0.0, INFINITY, &b));
  EXPECT(b.lower == 0.0 && b.upper == 0.0, "delta(inf) = [%g, %g]", b.lower,
         b.upper);
  pld_mech_free(m);
  pld_mech_free(lap);
  EXPECT_DONE();
}

/* The Poisson-Gaussian's certified MGF ball against a long-double
 * composite Simpson rule of phi(x) rho(x)^alpha on [-40, 40] (4e5 + 2e4|t|
 * panels: its own error is below 1e-16 relative), and its decay facts
 * (|M(c+it)| <= tv/|t|, |M| Lipschitz with lip) against the balls. */
static long double complex ref_mgf(double q, double mu, int dir, double c,
                                   double t)
{
  long double complex alpha = dir == PLD_DIR_PQ ? 1.0L + c + I * (long double)t
                                                : -(long double)c - I * (long double)t;
  /* even; the step resolves the phase t l (|l'| <= mu) and the tilt */
  const long N = 2 * (long)(2e5 + 1e4 * fabs(t));
  long double a = -40.0L, b = 40.0L, hh = (b - a) / N;
  long double complex s = 0.0L;
  for (long i = 0; i <= N; i++) {
    long double x = a + hh * i;
    long double lr = log1pl(q * expm1l(mu * x - 0.5L * mu * mu));
    long double complex f = cexpl(alpha * lr - 0.5L * x * x) /
        sqrtl(6.283185307179586476925286766559L);
    s += (i == 0 || i == N ? 1.0L : (i % 2 ? 4.0L : 2.0L)) * f;
  }
  return s * hh / 3.0L;
}

static void test_mgf_ball(void **state)
{
  (void)state;
  const struct {
    double q, sigma, c;
    int dir;
  } cs[] = {{256.0 / 60000.0, 1.1, 6.0, PLD_DIR_PQ},
            {256.0 / 60000.0, 1.1, 7.5, PLD_DIR_QP},
            {0.1, 0.6, 2.0, PLD_DIR_PQ},
            {0.5, 2.0, 0.5, PLD_DIR_QP},
            {1.0, 3.0, 3.0, PLD_DIR_PQ}};
  const double ts[] = {0.0, 0.7, 0.75, 5.0, 40.0, 100.0};
  for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
    pld_mech *m = NULL;
    REQUIRE_OK(pld_mech_poisson_gaussian(cs[i].q, cs[i].sigma, 1.0, &m));
    const struct pld_mgf_ops *o = pld_mech_mgf(m);
    EXPECT(o != NULL, "no MGF");
    if (!o) {
      pld_mech_free(m);
      continue;
    }
    double atom, tv, lip;
    REQUIRE_OK(o->decay(m, cs[i].dir, cs[i].c, &atom, &tv, &lip));
    EXPECT(atom == 0.0, "a Poisson-Gaussian loss has no atoms: %g", atom);
    void *ev = NULL;
    REQUIRE_OK(o->prepare(m, cs[i].dir, cs[i].c, 100.0, 1e-14, &ev));
    double prev_lo = 0, prev_hi = 0, prev_t = -1;
    for (size_t k = 0; k < sizeof ts / sizeof ts[0]; k++) {
      double re, im, rad;
      o->at(ev, ts[k], &re, &im, &rad);
      long double complex ex = ref_mgf(cs[i].q, 1.0 / cs[i].sigma, cs[i].dir,
                                       cs[i].c, ts[k]);
      long double err = cabsl(ex - (re + I * (long double)im));
      EXPECT(err <= rad + 1e-16L * cabsl(ex) && rad <= 1e-11,
             "q %g sigma %g c %g dir %d t %g: M = %.17Lg%+.17Lgi, ball %.17g%+.17gi "
             "radius %.3g, off by %.3Lg", cs[i].q, cs[i].sigma, cs[i].c,
             cs[i].dir, ts[k], creall(ex), cimagl(ex), re, im, rad, err);
      double mlo = hypot(re, im) - rad, mhi = hypot(re, im) + rad;
      if (ts[k] > 0.0)
        EXPECT(mlo <= tv / ts[k], "|M(c+%gi)| >= %.17g above tv/t = %.17g",
               ts[k], mlo, tv / ts[k]);
      if (prev_t >= 0.0)
        EXPECT(fmax(0.0, fmax(mlo - prev_hi, prev_lo - mhi)) <=
                   lip * (ts[k] - prev_t),
               "|M| moves from [%.17g, %.17g] to [%.17g, %.17g] over %g, "
               "lip %.17g", prev_lo, prev_hi, mlo, mhi, ts[k] - prev_t, lip);
      prev_lo = mlo;
      prev_hi = mhi;
      prev_t = ts[k];
    }
    o->release(ev);
    pld_mech_free(m);
  }
  EXPECT_DONE();
}

/* The Laplace mechanism (closed-form MGF, atoms at +-s/b): the ball
 * against a long-double Simpson rule of p (p/q)^sigma over the three
 * pieces (x < 0, 0 < x < s, x > s, each 2e5 panels, cut at 60 b), the
 * decay facts against the balls; epsilon and delta against the grid's
 * certified brackets; the accountant's choice. */
static long double complex lap_ref(double b, double c, double t)
{
  long double complex sg = c + I * (long double)t;
  long double s = 1.0L, cut = 60.0L * b;
  long double lo[3] = {-cut, 0.0L, s}, hi[3] = {0.0L, s, s + cut};
  long double complex tot = 0.0L;
  for (int k = 0; k < 3; k++) {
    const long N = 200000;
    long double hh = (hi[k] - lo[k]) / N;
    long double complex acc = 0.0L;
    for (long i = 0; i <= N; i++) {
      long double x = lo[k] + hh * i;
      long double lp = -fabsl(x) / b - logl(2.0L * b);
      long double l = (fabsl(x - s) - fabsl(x)) / b;
      long double complex f = cexpl(lp + sg * l);
      acc += (i == 0 || i == N ? 1.0L : (i % 2 ? 4.0L : 2.0L)) * f;
    }
    tot += acc * hh / 3.0L;
  }
  return tot;
}

static void test_laplace(void **state)
{
  (void)state;
  const double bs[] = {1.0, 2.0, 0.5};
  const double cs_[] = {0.5, 3.0};
  const double ts[] = {0.0, 1.0, 7.0, 50.0};
  for (size_t i = 0; i < 3; i++)
    for (size_t j = 0; j < 2; j++) {
      pld_mech *m = NULL;
      REQUIRE_OK(pld_mech_laplace(bs[i], 1.0, &m));
      const struct pld_mgf_ops *o = pld_mech_mgf(m);
      EXPECT(o != NULL, "Laplace without MGF");
      if (!o) {
        pld_mech_free(m);
        continue;
      }
      double atom, tv, lip;
      REQUIRE_OK(o->decay(m, PLD_DIR_PQ, cs_[j], &atom, &tv, &lip));
      void *ev = NULL;
      REQUIRE_OK(o->prepare(m, PLD_DIR_PQ, cs_[j], 50.0, 1e-14, &ev));
      double plo = 0, phi = 0, pt = -1;
      for (size_t k = 0; k < 4; k++) {
        double re, im, rad;
        o->at(ev, ts[k], &re, &im, &rad);
        long double complex ex = lap_ref(bs[i], cs_[j], ts[k]);
        long double err = cabsl(ex - (re + I * (long double)im));
        EXPECT(err <= rad + 1e-15L * cabsl(ex) && rad <= 1e-12 * cabsl(ex),
               "laplace b %g c %g t %g: M = %.17Lg%+.17Lgi, ball %.17g%+.17gi "
               "radius %.3g, off by %.3Lg", bs[i], cs_[j], ts[k], creall(ex),
               cimagl(ex), re, im, rad, err);
        double mlo = hypot(re, im) - rad, mhi = hypot(re, im) + rad;
        if (ts[k] > 0.0)
          EXPECT(mlo <= atom + tv / ts[k], "|M(c+%gi)| >= %.17g above %.17g",
                 ts[k], mlo, atom + tv / ts[k]);
        if (pt >= 0.0)
          EXPECT(fmax(0.0, fmax(mlo - phi, plo - mhi)) <= lip * (ts[k] - pt),
                 "laplace |M| Lipschitz %.17g violated", lip);
        plo = mlo;
        phi = mhi;
        pt = ts[k];
      }
      o->release(ev);
      pld_mech_free(m);
    }
  /* compositions against the grid */
  const struct {
    double b;
    uint64_t T;
    double delta;
  } cc[] = {{1.0, 100, 1e-5}, {2.0, 1000, 1e-8}};
  for (size_t i = 0; i < 2; i++) {
    pld_mech *m = NULL;
    REQUIRE_OK(pld_mech_laplace(cc[i].b, 1.0, &m));
    const pld_mech *ms[1] = {m};
    struct pld_inv_group g = {m, cc[i].T};
    pld_bound inv, gr;
    REQUIRE_OK(pld_inversion_epsilon(&g, 1, 0.0, 0.0, cc[i].delta, 1e-5, &inv));
    EXPECT(meets(inv, 1e-5), "laplace eps = [%.17g, %.17g] wide", inv.lower,
           inv.upper);
    gr = grid_answer(ms, &cc[i].T, 1, 0.0, 0, cc[i].delta, 1e-4);
    against_grid("laplace eps", inv, gr);
    double e = gr.upper;
    REQUIRE_OK(pld_inversion_delta(&g, 1, 0.0, 0.0, e, &inv));
    EXPECT(meets(inv, 1e-4), "laplace delta(%g) = [%.17g, %.17g] wide", e,
           inv.lower, inv.upper);
    gr = grid_answer(ms, &cc[i].T, 1, 0.0, 1, e, 1e-4);
    against_grid("laplace delta", inv, gr);
    pld_mech_free(m);
  }
  /* the accountant: 100 runs of b = 1 by the inversion; of b = 10 (atoms
   * of mass 0.95 at +-0.1: |chi|^100 stays near 0.007) it gives up and the
   * grid answers */
  for (int k = 0; k < 2; k++) {
    pld_mech *m = NULL;
    REQUIRE_OK(pld_mech_laplace(k ? 10.0 : 1.0, 1.0, &m));
    pld_accountant *acc = NULL;
    REQUIRE_OK(pld_accountant_alloc(NULL, &acc));
    REQUIRE_OK(pld_accountant_add(acc, m, 100));
    pld_result r;
    REQUIRE_OK(pld_accountant_epsilon(acc, 1e-5, &r));
    EXPECT(k ? r.bound_kind != PLD_BOUND_INVERSION
             : (r.bound_kind == PLD_BOUND_INVERSION && r.met_accuracy),
           "laplace b=%g x100: kind %d met %d", k ? 10.0 : 1.0, r.bound_kind,
           r.met_accuracy);
    pld_accountant_free(acc);
    pld_mech_free(m);
  }
  EXPECT_DONE();
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_mgf_ball),
      cmocka_unit_test(test_laplace),
      cmocka_unit_test(test_gaussian_only),
      cmocka_unit_test(test_poisson_q1),
      cmocka_unit_test(test_dpsgd_vs_grid),
      cmocka_unit_test(test_hetero_vs_grid),
      cmocka_unit_test(test_accountant_path),
      cmocka_unit_test(test_bad_input),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
