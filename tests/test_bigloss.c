/* pldkit tests: privacy losses far beyond e^709 (issue 11).
 *
 * Every check compares with a value computed here, in long double, from
 * the mechanism's densities or atoms, never with the library's formulas:
 *
 *  - The Poisson-subsampled Gaussian with a huge mu (q = 0.00253275,
 *    mu = 7.62198 / 0.182014 = 41.876, losses around mu^2/2 = 877 nats,
 *    where x = e^eps overflows a double).  Reference: delta(eps) =
 *    int (p - e^eps q)_+ with p = (1-q) N(0,1) + q N(mu,1), q = N(0,1)
 *    (direction PQ, and int (q - e^eps p)_+ for QP), integrated numerically
 *    (16-point Gauss-Legendre on panels of width 1/mu) from the two
 *    densities; the integral also validates the closed form obtained by
 *    integrating the densities between the crossing point and infinity,
 *    q Phi(mu - z) - (e^eps - 1 + q) Phi(-z), which the many-point checks
 *    use (within 1e-13 of the integral at every eps checked).
 *    Checked: the mechanism's curve (both directions, 0 to 1200 nats), the
 *    builder on three grids (lower <= exact <= upper, upper within the
 *    Delta-shift bound of tests/ref.h, eps(delta) likewise), and the
 *    accountant (the CLI's path) meeting its default accuracy.
 *  - A user curve (the Gaussian with mu = 50: losses from -1700 to 1700
 *    nats, beyond -700 below) with and without loss tails, on steps up to
 *    the largest, 1000 nats (where e^Delta overflows): brackets against
 *    ref_gauss_delta, upper within the Delta-shift bound, masses finite.
 *  - Discrete mechanisms with losses of 5e7 to 3e8 nats through the
 *    accountant (it must pick a step it can build), against their exact
 *    atoms: eps(delta) = L + log(1 - delta), delta(eps) = 1 - e^{eps - L}
 *    (delta at eps well below L: a step of ~700 nats cannot place an atom
 *    at 1e8 nats to the 1e-12 nats the optimistic member needs, so it sits
 *    a step lower there).
 *  - Losses beyond PLD_LOSS_MAX (1e10 nats): no error, a bracket
 *    [>= PLD_LOSS_MAX, +inf] around the exact value.
 *  - The step limit: 1000 builds, above it PLD_EINVAL, outputs untouched.
 */
#include "ref.h"

/* ------------------------------------------------------------------------ */
/* Gauss-Legendre nodes on [-1, 1] (Newton on the Legendre recurrence).      */

#define GL_N 16
static long double gl_x[GL_N], gl_w[GL_N];

static void gl_init(void) {
  const long double pi = 3.141592653589793238462643383279502884L;
  for (int i = 0; i < GL_N; i++) {
    long double z = cosl(pi * (i + 0.75L) / (GL_N + 0.5L)), dp = 1;
    for (int it = 0; it < 100; it++) {
      long double p1 = 1, p2 = 0;
      for (int j = 1; j <= GL_N; j++) {
        long double p3 = p2;
        p2 = p1;
        p1 = ((2 * j - 1) * z * p2 - (j - 1) * p3) / j;
      }
      dp = GL_N * (z * p1 - p2) / (z * z - 1);
      long double z1 = z;
      z = z1 - p1 / dp;
      if (fabsl(z - z1) <= 4 * LDBL_EPSILON) break;
    }
    gl_x[i] = z;
    gl_w[i] = 2 / ((1 - z * z) * dp * dp);
  }
}

/* ------------------------------------------------------------------------ */
/* The Poisson-subsampled Gaussian, from its densities.                       */

typedef struct pg_ref {
  long double q, mu;
} pg_ref;

static long double phi(long double z) {
  return expl(-0.5L * z * z - REF_LOG_SQRT_2PI_L);
}

/* The integrand (first - e^eps second)_+ at z (standard units), where
 * P = (1-q) N(0,1) + q N(mu,1) and Q = N(0,1); dir PQ: (p - e^eps q)_+,
 * QP: (q - e^eps p)_+.  e^eps is formed directly: long double reaches
 * e^11356. */
static long double pg_integrand(const pg_ref *r, int dir, long double ex,
                                long double z) {
  long double p = (1 - r->q) * phi(z) + r->q * phi(z - r->mu), q = phi(z);
  long double v = dir == PLD_DIR_PQ ? p - ex * q : q - ex * p;
  return v > 0 ? v : 0;
}

/* The crossing point: PQ: p > e^eps q iff z > z0 (-inf if e^eps <= 1-q);
 * QP: q > e^eps p iff z < z0 (no such z if e^-eps <= 1-q: returns NAN). */
static long double pg_cross(const pg_ref *r, int dir, long double eps) {
  long double q = r->q, mu = r->mu;
  if (dir == PLD_DIR_PQ) {
    long double a = expl(eps) - (1 - q);
    if (!(a > 0)) return -INFINITY;
    return (logl(a / q) + 0.5L * mu * mu) / mu;
  }
  long double b = expl(-eps) - (1 - q);
  if (!(b > 0)) return NAN;
  return (logl(b / q) + 0.5L * mu * mu) / mu;
}

/* delta by numerical integration over [lo, hi] split at the crossing. */
static long double pg_integral(const pg_ref *r, int dir, long double eps) {
  long double ex = expl(eps), z0 = pg_cross(r, dir, eps);
  long double lo, hi;
  if (dir == PLD_DIR_PQ) {
    if (z0 == -INFINITY) return 1 - ex; /* the integrand is p - e^eps q */
    lo = z0;
    hi = fmaxl(z0, r->mu) + 45;
  } else {
    if (isnan(z0)) return 0;
    hi = z0;
    lo = fminl(z0, 0) - 45;
  }
  long double h = 1 / fmaxl(r->mu, 4), s = 0;
  size_t np = (size_t)ceill((hi - lo) / h);
  h = (hi - lo) / (long double)np;
  for (size_t k = 0; k < np; k++) {
    long double c = lo + ((long double)k + 0.5L) * h, ps = 0;
    for (int i = 0; i < GL_N; i++)
      ps += gl_w[i] * pg_integrand(r, dir, ex, c + 0.5L * h * gl_x[i]);
    s += 0.5L * h * ps;
  }
  return s;
}

/* The same integral in closed form (integrating each density from the
 * crossing point), in log space:
 *   PQ: q Phi(mu - z0) - (e^eps - 1 + q) Phi(-z0),
 *   QP: (1 - e^eps (1-q)) Phi(z0) - e^eps q Phi(z0 - mu). */
static long double pg_closed(const pg_ref *r, int dir, long double eps) {
  if (isinf(eps)) return eps > 0 ? 0 : 1;
  long double q = r->q, mu = r->mu, z0 = pg_cross(r, dir, eps);
  if (dir == PLD_DIR_PQ) {
    if (z0 == -INFINITY) return 1 - expl(eps);
    long double la = logl(q) + ref_logPhi(mu - z0);
    long double lb = logl(expl(eps) - 1 + q) + ref_logPhi(-z0);
    return lb < la ? expl(la) * -expm1l(lb - la) : 0;
  }
  if (isnan(z0)) return 0;
  long double la = logl(1 - expl(eps) * (1 - q)) + ref_logPhi(z0);
  long double lb = eps + logl(q) + ref_logPhi(z0 - mu);
  return lb < la ? expl(la) * -expm1l(lb - la) : 0;
}

/* the worse direction (what pld_dist_delta brackets) */
static long double pg_delta_cb(const void *ctx, long double eps) {
  const pg_ref *r = ctx;
  return fmaxl(pg_closed(r, PLD_DIR_PQ, eps), pg_closed(r, PLD_DIR_QP, eps));
}

/* The brief's case (issue 11): q = 0.00253275, sigma = 0.182014,
 * sensitivity = 7.62198. */
#define PG_Q 0.00253275
#define PG_SIGMA 0.182014
#define PG_SENS 7.62198

static pg_ref pg_case(void) {
  pg_ref r = {PG_Q, (long double)PG_SENS / (long double)PG_SIGMA};
  return r;
}

static const double pg_eps[] = {0,   0.001, 0.244671, 1,   100, 500,  700,
                                705, 710,   750,      800, 850, 877,  880,
                                881, 900,   950,      1000, 1100, 1200};
#define N_PG_EPS (sizeof pg_eps / sizeof pg_eps[0])

/* The reference validates itself: Gauss-Legendre weights, then integral
 * against closed form at every eps (both directions, also negative eps). */
static void test_reference(void **state) {
  (void)state;
  long double ws = 0;
  for (int i = 0; i < GL_N; i++) ws += gl_w[i];
  EXPECT(fabsl(ws - 2) < 1e-17L, "Gauss-Legendre weights sum to %.20Lg", ws);
  pg_ref r = pg_case();
  const double extra[] = {-3, -0.5, -0.001, 0.0025};
  for (size_t k = 0; k < N_PG_EPS + 4; k++) {
    double e = k < N_PG_EPS ? pg_eps[k] : extra[k - N_PG_EPS];
    for (int dir = 0; dir < 2; dir++) {
      long double a = pg_integral(&r, dir, e), b = pg_closed(&r, dir, e);
      EXPECT(fabsl(a - b) <= 1e-13L * b + 1e-300L,
             "dir %d eps %g: integral %.20Lg, closed form %.20Lg", dir, e, a,
             b);
    }
  }
  /* known values: the brief's exact answers */
  long double e3 = ref_invert(pg_delta_cb, &r, 1e-3L);
  EXPECT(fabsl(e3 - 880.99L) < 0.01L, "eps(1e-3) = %.12Lg, expected 880.99",
         e3);
  long double d = pg_delta_cb(&r, 0.244671L);
  EXPECT(fabsl(d - 0.00253275L) < 1e-8L, "delta(0.244671) = %.12Lg", d);
  EXPECT_DONE();
}

/* The mechanism's own curve, both directions, against the integral. */
static void test_poisson_gaussian_curve(void **state) {
  (void)state;
  pg_ref r = pg_case();
  pld_mech *m = NULL;
  REQUIRE_OK(pld_mech_poisson_gaussian(PG_Q, PG_SIGMA, PG_SENS, &m));
  for (size_t k = 0; k < N_PG_EPS; k++)
    for (int dir = 0; dir < 2; dir++) {
      double v = -1;
      REQUIRE_OK(pld_mech_delta(m, dir, pg_eps[k], &v));
      long double ex = pg_integral(&r, dir, pg_eps[k]);
      /* the curve's rel_err is 4e-11; the reference's 1e-13 */
      EXPECT(fabsl(v - ex) <= 1e-10L * ex + 1e-300L,
             "dir %d eps %g: curve %.17g, exact %.17Lg", dir, pg_eps[k], v, ex);
    }
  pld_mech_free(m);
  EXPECT_DONE();
}

/* The builder on three grids: every delta and eps bracket contains the
 * exact value, the upper end within the Delta-shift bound. */
static void test_poisson_gaussian_build(void **state) {
  (void)state;
  pg_ref r = pg_case();
  pld_mech *m = NULL;
  REQUIRE_OK(pld_mech_poisson_gaussian(PG_Q, PG_SIGMA, PG_SENS, &m));
  const double grids[] = {1.0, 0.1, 0.02};
  const double deltas[] = {2.5e-3, 2e-3, 1e-3, 1e-4, 1e-6, 1e-10, 1e-15};
  for (size_t g = 0; g < 3; g++) {
    pld_dist *d = NULL;
    REQUIRE_OK(pld_dist_from_curve(pld_mech_curve(m), grids[g], NULL, &d));
    char name[64];
    snprintf(name, sizeof name, "poisson-gaussian mu=41.9 Delta=%g", grids[g]);
    /* empirical at the finest grid: eps within 0.01 nats, delta within
     * 2% (the bracket is about 2 Delta wide in eps) */
    ref_check c = {.name = name, .f = pg_delta_cb, .ctx = &r,
                   .shift = grids[g], .ref_slack = 1e-12,
                   .eps_rel = g == 2 ? 1e-5 : 0, .eps_abs = 0.01};
    for (size_t k = 0; k < N_PG_EPS; k++) ref_check_delta(&c, d, pg_eps[k]);
    for (size_t k = 0; k < sizeof deltas / sizeof deltas[0]; k++)
      ref_check_epsilon(&c, d, deltas[k]);
    pld_dist_free(d);
  }
  pld_mech_free(m);
  EXPECT_DONE();
}

/* The accountant (what the CLI runs): the brief's two queries, and delta
 * inside the loss range, each bracketing the exact value and meeting the
 * default accuracy (0.2% relative width) on a grid that fits. */
static void test_poisson_gaussian_accountant(void **state) {
  (void)state;
  pg_ref r = pg_case();
  pld_mech *m = NULL;
  pld_accountant *acc = NULL;
  REQUIRE_OK(pld_mech_poisson_gaussian(PG_Q, PG_SIGMA, PG_SENS, &m));
  REQUIRE_OK(pld_accountant_alloc(NULL, &acc));
  REQUIRE_OK(pld_accountant_add(acc, m, 1));
  const double deltas[] = {1e-3, 1e-5};
  for (int k = 0; k < 2; k++) {
    pld_result res;
    REQUIRE_OK(pld_accountant_epsilon(acc, deltas[k], &res));
    long double ex = ref_invert(pg_delta_cb, &r, deltas[k]);
    EXPECT(ref_brackets(res.bound, ex) && res.met_accuracy &&
               res.bound.upper - res.bound.lower <= 2e-3 * res.bound.upper,
           "eps(%g) = [%.17g, %.17g] (met %d, Delta %g, grid %zu), exact "
           "%.17Lg", deltas[k], res.bound.lower, res.bound.upper,
           res.met_accuracy, res.discretization, res.grid_size, ex);
    EXPECT(res.grid_size <= 200000, "eps(%g): grid %zu", deltas[k],
           res.grid_size);
  }
  const double eps[] = {0.244671, 850, 1000};
  for (int k = 0; k < 3; k++) {
    pld_result res;
    REQUIRE_OK(pld_accountant_delta(acc, eps[k], &res));
    long double ex = pg_delta_cb(&r, eps[k]);
    EXPECT(ref_brackets(res.bound, ex) && res.met_accuracy &&
               res.bound.upper - res.bound.lower <= 2e-3 * res.bound.upper,
           "delta(%g) = [%.17g, %.17g] (met %d, Delta %g, grid %zu), exact "
           "%.17Lg", eps[k], res.bound.lower, res.bound.upper,
           res.met_accuracy, res.discretization, res.grid_size, ex);
  }
  pld_accountant_free(acc);
  pld_mech_free(m);
  EXPECT_DONE();
}

/* ------------------------------------------------------------------------ */
/* A user curve with losses beyond +-700 nats, on steps up to 1000 nats.     */

static int ugauss_cb(void *ctx, int dir, size_t n, const double *eps,
                     double *delta) {
  long double mu = *(const long double *)ctx;
  (void)dir;
  for (size_t i = 0; i < n; i++) delta[i] = (double)ref_gauss_delta(mu, eps[i]);
  return 0;
}

static int ugauss_tails_cb(void *ctx, int dir, size_t n, const double *eps,
                           double *p_gt, double *eq_gt) {
  long double mu = *(const long double *)ctx;
  (void)dir;
  for (size_t i = 0; i < n; i++) {
    long double e = eps[i];
    if (isinf(e)) {
      p_gt[i] = e > 0 ? 0.0 : 1.0;
      eq_gt[i] = 0.0;
      continue;
    }
    p_gt[i] = (double)expl(ref_logPhi(mu / 2 - e / mu));
    eq_gt[i] = (double)expl(e + ref_logPhi(-mu / 2 - e / mu));
  }
  return 0;
}

static void check_views(const char *name, const pld_dist *d) {
  for (int dir = 0; dir < 2; dir++)
    for (int rd = 0; rd < 2; rd++) {
      pld_pmf_view v;
      REQUIRE_OK(pld_dist_view(d, dir, rd, &v));
      long double s = v.inf_mass;
      int finite = isfinite(v.inf_mass) && isfinite(v.rel_err) &&
                   isfinite(v.abs_err);
      for (size_t i = 0; i < v.size; i++) {
        finite = finite && isfinite(v.masses[i]) && v.masses[i] >= 0;
        s += v.masses[i];
      }
      EXPECT(finite && s <= 1 + 1e-9L && (double)v.offset * pld_dist_discretization(d) >= -700.0 - 1e-9,
             "%s dir %d rounding %d: masses not finite and non-negative, "
             "total %.17Lg, or grid below -700 (offset %lld)", name, dir, rd,
             s, (long long)v.offset);
    }
}

static void test_user_gaussian_big_steps(void **state) {
  (void)state;
  long double mu = 50; /* loss N(+-1250, 50^2) */
  const double grids[] = {0.5, 5, 100, 700, 701, 1000};
  const double eps[] = {0, 300, 700, 1000, 1250, 1400, 1500, 1700};
  for (int tails = 0; tails < 2; tails++)
    for (size_t g = 0; g < sizeof grids / sizeof grids[0]; g++) {
      pld_curve c = {.delta = ugauss_cb, .ctx = &mu, .rel_err = 1e-13,
                     .symmetric = 1, .loss_scale = 1250,
                     .tails = tails ? ugauss_tails_cb : NULL};
      pld_dist *d = NULL;
      REQUIRE_OK(pld_dist_from_curve(&c, grids[g], NULL, &d));
      char name[80];
      snprintf(name, sizeof name, "user gaussian mu=50 %s Delta=%g",
               tails ? "with tails" : "curve only", grids[g]);
      check_views(name, d);
      /* the lower end's shift bound is stated for the finest grid only
       * (coarse steps book the raised values absolutely, which may eat a
       * small delta entirely); the bracket and the upper end's bound hold
       * everywhere */
      ref_check rc = {.name = name, .f = ref_gauss_delta_cb, .ctx = &mu,
                      .shift = grids[g], .ref_slack = 1e-12,
                      .lower_rel = g == 0 ? (tails ? 0 : 0.05) : 1};
      for (size_t k = 0; k < sizeof eps / sizeof eps[0]; k++)
        ref_check_delta(&rc, d, eps[k]);
      const double deltas[] = {0.5, 1e-2, 1e-6, 1e-12};
      for (size_t k = 0; k < 4; k++) ref_check_epsilon(&rc, d, deltas[k]);
      pld_dist_free(d);
    }
  EXPECT_DONE();
}

/* ------------------------------------------------------------------------ */
/* Discrete mechanisms whose every atom sits at a huge loss L: P is a point  */
/* mass (to far below long double precision: the next atom carries           */
/* e^-L) at loss L, so delta(eps) = 1 - e^{eps - L} and eps(delta) =         */
/* L + log(1 - delta); T runs give T L.                                       */

typedef struct point_loss {
  long double L;
} point_loss;

static void check_point_loss(const char *name, pld_mech *m, uint64_t count,
                             long double L) {
  pld_accountant *acc = NULL;
  REQUIRE_OK(pld_accountant_alloc(NULL, &acc));
  REQUIRE_OK(pld_accountant_add(acc, m, count));
  long double TL = (long double)count * L;
  const double deltas[] = {1e-5, 0.5};
  for (int k = 0; k < 2; k++) {
    pld_result res;
    REQUIRE_OK(pld_accountant_epsilon(acc, deltas[k], &res));
    long double ex = TL + log1pl(-(long double)deltas[k]);
    EXPECT(ref_brackets(res.bound, ex) && res.met_accuracy &&
               res.bound.upper - res.bound.lower <= 2e-3 * res.bound.upper &&
               res.discretization <= PLD_DISCRETIZATION_MAX &&
               res.grid_size <= 2000000,
           "%s x%llu eps(%g) = [%.17g, %.17g] (met %d, Delta %g, grid %zu), "
           "exact %.17Lg", name, (unsigned long long)count, deltas[k],
           res.bound.lower, res.bound.upper, res.met_accuracy,
           res.discretization, res.grid_size, ex);
  }
  /* delta well below the atom (within a few steps of it the optimistic
   * member, which had to round the atom's position down by a step, knows
   * nothing: the atom's loss is only known to ~1e-8 nats in doubles) */
  const long double es[] = {1, TL / 2, TL - 3000};
  for (int k = 0; k < 3; k++) {
    double e = (double)es[k];
    pld_result res;
    REQUIRE_OK(pld_accountant_delta(acc, e, &res));
    long double ex = -expm1l((long double)e - TL);
    EXPECT(ref_brackets(res.bound, ex) &&
               res.bound.upper - res.bound.lower <= 2e-3 * res.bound.upper,
           "%s x%llu delta(%.17g) = [%.17g, %.17g] (Delta %g), exact %.17Lg",
           name, (unsigned long long)count, e, res.bound.lower,
           res.bound.upper, res.discretization, ex);
  }
  pld_accountant_free(acc);
}

static void test_discrete_huge_losses(void **state) {
  (void)state;
  pld_mech *m = NULL;
  /* discrete Laplace, scale 1e-8: P(k) ~ e^{-|k| 1e8}, loss 1e8 at k <= 0 */
  REQUIRE_OK(pld_mech_discrete_laplace(1e-8, 1, &m));
  check_point_loss("discrete-laplace scale=1e-8", m, 1, 1e8L);
  check_point_loss("discrete-laplace scale=1e-8", m, 3, 1e8L);
  pld_mech_free(m);
  /* sensitivity 3: loss 3/scale = 3e7 at k <= 0 */
  REQUIRE_OK(pld_mech_discrete_laplace(1e-7, 3, &m));
  check_point_loss("discrete-laplace scale=1e-7 s=3", m, 1, 3e7L);
  pld_mech_free(m);
  /* discrete Gaussian, sigma 1e-4: P at k = 0, Q at k = 1, loss
   * 1/(2 sigma^2) = 5e7 (sigma^2 = 1e-8 in double: the loss is
   * 1 / (2 * 1e-4^2) as the double computes it, within 1e-8 relative) */
  REQUIRE_OK(pld_mech_discrete_gaussian(1e-4, 1, &m));
  long double s = 1e-4;
  check_point_loss("discrete-gaussian sigma=1e-4", m, 1, 1 / (2 * s * s));
  pld_mech_free(m);
  EXPECT_DONE();
}

/* Losses beyond PLD_LOSS_MAX: no error; the PLD stops at PLD_LOSS_MAX,
 * its pessimistic member sends the rest to +inf (eps upper = +inf) and its
 * optimistic one puts it on the top point (eps lower >= PLD_LOSS_MAX). */
static void test_beyond_loss_max(void **state) {
  (void)state;
  pld_mech *m = NULL;
  REQUIRE_OK(pld_mech_discrete_laplace(1e-10, 1, &m)); /* loss 1e10 */
  long double L = 1e10L;
  pld_dist *d = NULL;
  REQUIRE_OK(pld_dist_from_curve(pld_mech_curve(m), PLD_DISCRETIZATION_MAX,
                                 NULL, &d));
  check_views("discrete-laplace scale=1e-10", d);
  pld_bound b = {-7, -7};
  REQUIRE_OK(pld_dist_epsilon(d, 1e-5, &b));
  long double ex = L + log1pl(-1e-5L);
  EXPECT(ref_brackets(b, ex) && b.lower >= PLD_LOSS_MAX - 1,
         "builder: eps(1e-5) = [%.17g, %.17g], exact %.17Lg", b.lower, b.upper,
         ex);
  const double es[] = {1, 5e8, 9.99e8};
  for (int k = 0; k < 3; k++) {
    REQUIRE_OK(pld_dist_delta(d, es[k], &b));
    ex = -expm1l((long double)es[k] - L);
    EXPECT(ref_brackets(b, ex) && b.upper >= 1 - 1e-9 &&
               b.lower >= ex * (1 - 1e-6) - 1e-9,
           "builder: delta(%g) = [%.17g, %.17g], exact %.17Lg", es[k], b.lower,
           b.upper, ex);
  }
  pld_dist_free(d);
  /* the accountant: an answer, not an error */
  pld_accountant *acc = NULL;
  REQUIRE_OK(pld_accountant_alloc(NULL, &acc));
  REQUIRE_OK(pld_accountant_add(acc, m, 1));
  pld_result res;
  REQUIRE_OK(pld_accountant_delta(acc, 1.0, &res));
  ex = -expm1l(1 - L);
  EXPECT(ref_brackets(res.bound, ex) &&
             res.bound.upper - res.bound.lower <= 2e-3,
         "accountant: delta(1) = [%.17g, %.17g], exact %.17Lg",
         res.bound.lower, res.bound.upper, ex);
  pld_accountant_free(acc);
  pld_mech_free(m);
  EXPECT_DONE();
}

/* The step limit: PLD_DISCRETIZATION_MAX builds, above it PLD_EINVAL with
 * the output untouched; a memory cap too small for the largest step is
 * PLD_ERANGE from the accountant (not an invalid argument). */
static void test_step_limit(void **state) {
  (void)state;
  pld_mech *m = NULL;
  REQUIRE_OK(pld_mech_discrete_laplace(1e-8, 1, &m));
  pld_dist *d = NULL, *sentinel = (pld_dist *)&d;
  REQUIRE_OK(pld_dist_from_curve(pld_mech_curve(m), PLD_DISCRETIZATION_MAX,
                                 NULL, &d));
  pld_dist_free(d);
  d = sentinel;
  EXPECT_STATUS(pld_dist_from_curve(pld_mech_curve(m),
                                    nextafter(PLD_DISCRETIZATION_MAX, 2e3),
                                    NULL, &d),
                PLD_EINVAL);
  EXPECT(d == sentinel, "output changed on failure");
  pld_params p;
  pld_params_default(&p);
  p.max_grid = 1 << 16; /* 1e8 nats need 1e5 points at the largest step */
  pld_accountant *acc = NULL;
  REQUIRE_OK(pld_accountant_alloc(&p, &acc));
  REQUIRE_OK(pld_accountant_add(acc, m, 1));
  pld_result res;
  /* No grid fits, but one run is answered from its exact curve (the
   * grid-free bounds, design.md Sec. 9): the loss is +-a, a = 1e8, with
   * P[+a] = 1/(1 + e^-a) = 1 in double, so eps(1e-5) = a + log(1 - 1e-5). */
  REQUIRE_OK(pld_accountant_epsilon(acc, 1e-5, &res));
  long double ex = 1e8L + log1pl(-1e-5L);
  EXPECT(res.bound.lower <= ex && ex <= res.bound.upper &&
             res.bound.upper - res.bound.lower <= 1e-6 &&
             res.refinements == 0,
         "no grid: [%.17g, %.17g], exact %.17Lg", res.bound.lower,
         res.bound.upper, ex);
  pld_accountant_free(acc);
  /* Inside a selection (no grid-free bounds) it stays PLD_ERANGE. */
  pld_accountant *in = NULL;
  const double one = 1.0;
  REQUIRE_OK(pld_accountant_alloc(&p, &in));
  REQUIRE_OK(pld_accountant_add(in, m, 1));
  REQUIRE_OK(pld_accountant_alloc(&p, &acc));
  REQUIRE_OK(pld_accountant_add_selection(
      acc, 1, (const pld_accountant *const *)&in, &one, 1));
  EXPECT_STATUS(pld_accountant_epsilon(acc, 1e-5, &res), PLD_ERANGE);
  pld_accountant_free(in);
  pld_accountant_free(acc);
  pld_mech_free(m);
  EXPECT_DONE();
}

static void test_report(void **state) {
  (void)state;
  ref_report_worst();
}

int main(void) {
  gl_init();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_reference),
      cmocka_unit_test(test_poisson_gaussian_curve),
      cmocka_unit_test(test_poisson_gaussian_build),
      cmocka_unit_test(test_poisson_gaussian_accountant),
      cmocka_unit_test(test_user_gaussian_big_steps),
      cmocka_unit_test(test_discrete_huge_losses),
      cmocka_unit_test(test_beyond_loss_max),
      cmocka_unit_test(test_step_limit),
      cmocka_unit_test(test_report),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
