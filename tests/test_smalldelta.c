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

/* A delta floor (pld_params.delta_floor): a curve point whose certified
 * upper end is at or below it meets its target, so the refinement follows
 * the points above it only.  Against the closed form (q = 1: Gaussian
 * runs, one group and two): every point still brackets the truth, with and
 * without the floor; with it every point meets max(0.2% of its upper end,
 * the floor) and the run says so, points whose truth is 1e3 times above the
 * floor are within 0.2% of it, and the grid is no larger than without the
 * floor (the points from delta ~1e-39 to 1e-300 drove the refinement). */
static void test_curve_floor(void **state)
{
  (void)state;
  const struct {
    double sigma[2];
    uint64_t count[2];
    size_t n;
  } cases[] = {{{40.0, 0.0}, {2000, 0}, 1}, {{50.0, 80.0}, {1000, 1500}, 2}};
  enum { N = 13 };
  double eps[N];
  for (int i = 0; i < N; i++)
    eps[i] = 5.0 * i;
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    long double mu2;
    pld_accountant *acc =
        psg_acc(cases[c].sigma, cases[c].count, cases[c].n, &mu2);
    long double mu = sqrtl(mu2);
    pld_bound plain[N], floored[N];
    pld_result ip, ifl;
    REQUIRE_OK(pld_accountant_curve(acc, N, eps, plain, &ip));
    pld_accountant_free(acc);
    pld_params prm;
    pld_params_default(&prm);
    prm.delta_floor = 1e-20;
    acc = NULL;
    REQUIRE_OK(pld_accountant_alloc(&prm, &acc));
    for (size_t g = 0; g < cases[c].n; g++) {
      pld_mech *m = NULL;
      REQUIRE_OK(pld_mech_poisson_gaussian(1.0, cases[c].sigma[g], 1.0, &m));
      REQUIRE_OK(pld_accountant_add(acc, m, cases[c].count[g]));
      pld_mech_free(m);
    }
    REQUIRE_OK(pld_accountant_curve(acc, N, eps, floored, &ifl));
    print_message("curve floor 1e-20, %zu group(s), mu %.4Lf: grid %zu (without "
                  "the floor %zu), met %d\n", cases[c].n, mu, ifl.grid_size,
                  ip.grid_size, ifl.met_accuracy);
    for (int i = 0; i < N; i++) {
      long double d = ref_gauss_delta(mu, eps[i]);
      print_message("  delta(%g) = [%.6g, %.6g] (without: [%.6g, %.6g]) exact "
                    "%.6Lg\n", eps[i], floored[i].lower, floored[i].upper,
                    plain[i].lower, plain[i].upper, d);
      EXPECT(ref_brackets(plain[i], d) && ref_brackets(floored[i], d),
             "delta(%g): [%.17g, %.17g] or [%.17g, %.17g] misses %.17Lg",
             eps[i], plain[i].lower, plain[i].upper, floored[i].lower,
             floored[i].upper, d);
      EXPECT(pld_bound_meets(&prm, floored[i], 1),
             "delta(%g) = [%.17g, %.17g] misses max(0.2%%, 1e-20)", eps[i],
             floored[i].lower, floored[i].upper);
      if (d > 1e-17L)
        EXPECT(floored[i].upper <= (double)(d * 1.002L) &&
                   floored[i].lower >= (double)(d * 0.998L),
               "delta(%g) = [%.17g, %.17g] not within 0.2%% of %.17Lg", eps[i],
               floored[i].lower, floored[i].upper, d);
    }
    EXPECT(ifl.met_accuracy, "the floored curve did not meet its targets");
    EXPECT(ifl.grid_size <= ip.grid_size,
           "grid %zu with the floor, %zu without", ifl.grid_size, ip.grid_size);
    pld_accountant_free(acc);
  }
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
  /* a fixed grid: the automatic query is answered without one (the
   * inversion, design.md §16) */
  pld_params fp;
  pld_params_default(&fp);
  fp.discretization = 2e-4;
  pld_accountant *acc_fixed = NULL;
  REQUIRE_OK(pld_accountant_alloc(&fp, &acc_fixed));
  REQUIRE_OK(pld_accountant_merge(acc_fixed, acc));
  pld_accountant_free(acc);
  acc = acc_fixed;
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

/* ---- k-fold Laplace, exactly ----
 * Laplace(b) with sensitivity 1, eps0 = 1/b: under P = Lap(0, b) the loss is
 * +eps0 with mass 1/2 (x <= 0), -eps0 with mass e^{-eps0}/2 (x >= 1), and in
 * between (x in (0, 1), L = (1 - 2x)/b) has density c e^{L/2} on
 * (-eps0, eps0), c = e^{-eps0/2}/4.  A sum of m such continuous parts is an
 * exponentially tilted sum of uniforms: density c^m (2 eps0)^m e^{s/2} times
 * the density of the sum of m uniforms on (-eps0, eps0), i.e. the
 * Irwin-Hall density f_m(x) at s = eps0 (2x - m).  delta(eps) sums the
 * multinomial split into atoms and continuous parts; each Irwin-Hall piece
 * [k, k+1] is a polynomial, integrated with 16-point Gauss-Legendre after
 * splitting at the hinge of (1 - e^{eps - s})_+. */
static long double ih_density(int m, long double x)
{
  if (x <= 0.0L || x >= (long double)m)
    return 0.0L;
  long double s = 0.0L, binom = 1.0L, fact = 1.0L;
  for (int k = 1; k < m; k++)
    fact *= (long double)k;
  for (int k = 0; k <= m && (long double)k < x; k++) {
    s += ((k & 1) ? -1.0L : 1.0L) * binom * powl(x - (long double)k, (long double)(m - 1));
    binom = binom * (long double)(m - k) / (long double)(k + 1);
  }
  return s / fact;
}

static long double gl_integrate(long double (*f)(long double, const void *),
                                const void *ctx, long double a, long double b)
{
  static const long double xs[8] = {
      0.0950125098376374401853193L, 0.2816035507792589132304605L,
      0.4580167776572273863424194L, 0.6178762444026437484466718L,
      0.7554044083550030338951012L, 0.8656312023878317438804679L,
      0.9445750230732325760779884L, 0.9894009349916499325961542L};
  static const long double ws[8] = {
      0.1894506104550684962853967L, 0.1826034150449235888667637L,
      0.1691565193950025381893121L, 0.1495959888165767320815017L,
      0.1246289712555338720524763L, 0.0951585116824927848099251L,
      0.0622535239386478928628438L, 0.0271524594117540948517806L};
  long double c = 0.5L * (a + b), h = 0.5L * (b - a), s = 0.0L;
  for (int i = 0; i < 8; i++)
    s += ws[i] * (f(c - h * xs[i], ctx) + f(c + h * xs[i], ctx));
  return s * h;
}

struct lap_ctx {
  int m;
  long double eps0, eps, a;
};

static long double lap_integrand(long double x, const void *vctx)
{
  const struct lap_ctx *c = vctx;
  long double s = c->eps0 * (2.0L * x - (long double)c->m);
  long double h = -expm1l(c->eps - c->a - s);
  if (!(h > 0.0L))
    return 0.0L;
  return h * expl(s / 2.0L) * ih_density(c->m, x);
}

static long double laplace_kfold_delta(int k, long double eps0, long double eps)
{
  long double pp = 0.5L, pm = 0.5L * expl(-eps0), c = 0.25L * expl(-eps0 / 2.0L);
  long double total = 0.0L;
  for (int i = 0; i <= k; i++)
    for (int j = 0; i + j <= k; j++) {
      int m = k - i - j;
      long double mult = tgammal(k + 1) / (tgammal(i + 1) * tgammal(j + 1) * tgammal(m + 1));
      long double w = mult * powl(pp, i) * powl(pm, j);
      long double a = (long double)(i - j) * eps0;
      if (m == 0) {
        long double h = -expm1l(eps - a);
        total += h > 0.0L ? w * h : 0.0L;
        continue;
      }
      struct lap_ctx cx = {m, eps0, eps, a};
      long double integ = 0.0L;
      /* hinge at s = eps - a, i.e. x* = ((eps - a)/eps0 + m)/2 */
      long double xs = ((eps - a) / eps0 + (long double)m) / 2.0L;
      for (int piece = 0; piece < m; piece++) {
        long double lo = piece, hi = piece + 1;
        if (xs >= hi)
          continue;
        if (xs > lo)
          lo = xs;
        integ += gl_integrate(lap_integrand, &cx, lo, hi);
      }
      total += w * powl(c * 2.0L * eps0, (long double)m) * integ;
    }
  return total;
}

struct lapk {
  int k;
  long double eps0;
};

static long double lapk_cb(const void *ctx, long double eps)
{
  const struct lapk *l = ctx;
  return laplace_kfold_delta(l->k, l->eps0, eps);
}

/* The refinement policy meets the default accuracy where the width only
 * falls linearly in the step (Laplace's atoms between grid points): the
 * k-fold Laplace against its exact delta, and a single Laplace near its top
 * loss against 1 + 2 log(1 - delta). */
static void test_laplace_accuracy(void **state)
{
  (void)state;
  const struct {
    double b;
    int k;
    double delta;
  } cases[] = {{2.0, 10, 1e-5}, {1.0, 10, 1e-5}, {2.0, 3, 1e-9}, {1.0, 1, 1e-5}};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    pld_mech *m = NULL;
    REQUIRE_OK(pld_mech_laplace(cases[c].b, 1.0, &m));
    pld_accountant *acc = NULL;
    REQUIRE_OK(pld_accountant_alloc(NULL, &acc));
    REQUIRE_OK(pld_accountant_add(acc, m, (uint64_t)cases[c].k));
    pld_result r;
    memset(&r, 0, sizeof r);
    REQUIRE_OK(pld_accountant_epsilon(acc, cases[c].delta, &r));
    struct lapk l = {cases[c].k, 1.0L / (long double)cases[c].b};
    long double e = ref_invert(lapk_cb, &l, cases[c].delta);
    if (cases[c].k == 1)
      EXPECT(fabsl(e - (1.0L / cases[c].b + 2.0L * log1pl(-cases[c].delta))) < 1e-12L,
             "the k-fold formula at k = 1: %.17Lg", e);
    print_message("laplace b=%g x%d eps(%g) = [%.10g, %.10g] exact %.10Lg "
                  "(Delta %g, %u grids)\n", cases[c].b, cases[c].k,
                  cases[c].delta, r.bound.lower, r.bound.upper, e,
                  r.discretization, r.refinements);
    EXPECT(ref_brackets(r.bound, e) && r.met_accuracy &&
               r.bound.upper <= (double)(e * 1.002L),
           "laplace b=%g x%d: [%.17g, %.17g] vs exact %.17Lg (met %d)",
           cases[c].b, cases[c].k, r.bound.lower, r.bound.upper, e,
           r.met_accuracy);
    pld_accountant_free(acc);
    pld_mech_free(m);
  }
  EXPECT_DONE();
}

/* A lattice mechanism is composed on its lattice (exact, three points),
 * not on a grid chosen from its tiny spread: randomized response with
 * k = 2^40 has delta(0.5) = P[L = 1] (1 - e^{-0.5}) exactly. */
static void test_lattice_exact(void **state)
{
  (void)state;
  pld_mech *m = NULL;
  double k = 1099511627776.0;
  REQUIRE_OK(pld_mech_randomized_response(1.0, k, &m));
  pld_accountant *acc = NULL;
  REQUIRE_OK(pld_accountant_alloc(NULL, &acc));
  REQUIRE_OK(pld_accountant_add(acc, m, 1));
  pld_result r;
  memset(&r, 0, sizeof r);
  REQUIRE_OK(pld_accountant_delta(acc, 0.5, &r));
  long double e1 = expl(1.0L);
  long double d = e1 / (e1 + (long double)k - 1.0L) * -expm1l(-0.5L);
  print_message("RR(1, 2^40) delta(0.5) = [%.17g, %.17g] exact %.17Lg, grid %zu\n",
                r.bound.lower, r.bound.upper, d, r.grid_size);
  /* (the snap of the mass-1 atom at loss 0 is booked absolutely, a few u,
   * design.md §10.2: 0.15% of this delta; the default accuracy holds) */
  EXPECT(ref_brackets(r.bound, d) && r.bound.upper <= (double)(d * (1.0L + 2e-3L)) &&
             r.met_accuracy,
         "RR(1, 2^40) delta(0.5) = [%.17g, %.17g] vs %.17Lg", r.bound.lower,
         r.bound.upper, d);
  pld_accountant_free(acc);
  pld_mech_free(m);
  EXPECT_DONE();
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_epsilon_small_delta),
      cmocka_unit_test(test_delta_relative),
      cmocka_unit_test(test_curve_tail),
      cmocka_unit_test(test_curve_floor),
      cmocka_unit_test(test_tilted_vs_untilted),
      cmocka_unit_test(test_laplace_accuracy),
      cmocka_unit_test(test_lattice_exact),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
