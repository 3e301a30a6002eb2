/* pldkit tests: a larger sensitivity dominates a smaller one, through Poisson
 * subsampling and composition (docs/population.md Sec. 3), so that rounding
 * per-entity sensitivities onto bins keeps the brackets sound (issue 28).
 *
 *  - one step: the Poisson-subsampled Gaussian's curve in both directions
 *    against an independent long-double reference (remove: q delta_G at
 *    e^eps' = 1 + (e^eps - 1)/q; add: (1 - (1-q) e^eps) delta_G at
 *    e^-eps' = (e^-eps - 1 + q)/q, both derived in the test's comment),
 *    and the ordering delta_s(eps) <= delta_s'(eps) for s < s', of the
 *    reference and of the library's values within their booked error;
 *  - rates: a larger Poisson rate dominates a smaller one (the Remark after
 *    Theorem 2), reference and library, both directions;
 *  - scaling: PG(q, sigma, c s) and PG(q, sigma / c, s) have the same curve
 *    (the sandwich of Sec. 4.1 rests on it);
 *  - composed: epsilon(1e-5) and delta(1) brackets of T-fold compositions
 *    over a grid of (q, sigma, T) and sensitivities: the lower end at s is
 *    at most the upper end at s' (what dominance implies for certified
 *    brackets, whatever their widths), and where s'/s >= 1.05 the ends are
 *    ordered end by end (the true values then differ by far more than the
 *    0.2% widths); at q = 1, each bracket contains the closed form;
 *  - a binned entity: rounding its sensitivities up (down) onto bin edges
 *    gives an upper end >= the unbinned lower end (a lower end <= the
 *    unbinned upper end); the same entity as pld_mech_bracket events
 *    (upper member at the edge above, lower at the edge below) gives the
 *    bracket of the rounded-up upper end and the rounded-down lower end;
 *    and the rounded-up answer stays below the unbinned one at sigma/(1+r)
 *    (geometric bins of ratio 1 + r, Sec. 4.1);
 *  - shared spectra, the batch engine's shape through the public API: each
 *    bin's PLD (upper member at the edge above, lower at the edge below;
 *    an edge is a bin of its own) is built once on one grid and added with
 *    each entity's count (pld_accountant_add_dist) to that entity's
 *    accountant; every entity's bracket overlaps its unbinned single-entity
 *    bracket, bounds the rounded lists' truths, and is within 0.4% of their
 *    ends;
 *  - the Renyi side (the filter of Sec. 2.3 rounds sensitivities up): the
 *    Poisson-Gaussian RDP at every default order is non-decreasing in the
 *    sensitivity, and at integer orders 2..24 it matches an independent
 *    long-double binomial sum.
 */
#include "ref.h"

/* ------------------------------------------------------------------------ */
/* Reference: the Poisson-subsampled Gaussian pair                            */
/* P = (1-q) N(0, sigma^2) + q N(s, sigma^2), Q = N(0, sigma^2), mu = s/sigma. */
/*                                                                            */
/* Remove, H_x(P||Q), x = e^eps: p/q_dens = 1 - q + q e^{l(y)} with          */
/* l(y) = (s y - s^2/2)/sigma^2, so p - x q_dens = q q_dens (e^l - x'),       */
/* x' = (x - 1 + q)/q, and H_x(P||Q) = q H_x'(N(s)||N(0)) = q delta_G(log x')  */
/* when x' > 0; else (x <= 1 - q) p > x q_dens everywhere: 1 - x.             */
/* Add, H_x(Q||P): q_dens - x p = x q q_dens (w - e^l), w = (1/x - 1 + q)/q,   */
/* so H_x(Q||P) = x q w H_{1/w}(N(0)||N(s)) = (1 - x(1-q)) delta_G(-log w)    */
/* (the Gaussian pair is symmetric) when w > 0; else 0.                       */

static long double ref_pg_delta(long double q, long double sigma,
                                long double s, long double eps, int dir)
{
  long double mu = s / sigma;
  if (dir == PLD_DIR_PQ) {
    long double t = expm1l(eps) / q; /* x' - 1 */
    if (t <= -1.0L) return -expm1l(eps);
    return q * ref_gauss_delta(mu, log1pl(t));
  }
  long double t = expm1l(-eps) / q; /* w - 1 */
  if (t <= -1.0L) return 0.0L;
  /* 1 - x (1-q), without cancellation (q = 1: log1pl(-1) = -inf, lead 1) */
  long double lead = -expm1l(eps + log1pl(-q));
  return lead * ref_gauss_delta(mu, -log1pl(t));
}

static pld_mech *pg(double q, double sigma, double s)
{
  pld_mech *m = NULL;
  REQUIRE_OK(pld_mech_poisson_gaussian(q, sigma, s, &m));
  return m;
}

static double lib_delta(const pld_mech *m, int dir, double eps)
{
  double d = NAN;
  REQUIRE_OK(pld_mech_delta(m, dir, eps, &d));
  return d;
}

static void test_one_step(void **state)
{
  (void)state;
  static const double qs[] = {1e-3, 0.01, 0.1, 0.5, 1.0};
  static const double sigmas[] = {0.5, 1.0, 2.0, 8.0};
  static const double ss[] = {1e-3, 0.05, 0.3, 0.7, 0.99, 1.0};
  const size_t ns = sizeof ss / sizeof ss[0];
  int ncases = 0;
  double worst_ref = 0.0;
  for (size_t iq = 0; iq < sizeof qs / sizeof qs[0]; iq++)
    for (size_t ig = 0; ig < sizeof sigmas / sizeof sigmas[0]; ig++) {
      double q = qs[iq], sigma = sigmas[ig];
      pld_mech *m[sizeof ss / sizeof ss[0]];
      for (size_t i = 0; i < ns; i++) m[i] = pg(q, sigma, ss[i]);
      double rel = 0.0;
      for (size_t i = 0; i < ns; i++)
        if (pld_mech_curve(m[i])->rel_err > rel)
          rel = pld_mech_curve(m[i])->rel_err;
      for (int dir = 0; dir < 2; dir++)
        for (int k = 0; k <= 24; k++) {
          double eps = -2.0 + 0.5 * k; /* -2 .. 10 */
          double d[sizeof ss / sizeof ss[0]];
          long double r[sizeof ss / sizeof ss[0]];
          for (size_t i = 0; i < ns; i++) {
            d[i] = lib_delta(m[i], dir, eps);
            r[i] = ref_pg_delta(q, sigma, ss[i], eps, dir);
            /* the library within its booked error of the reference, where
             * the reference itself is accurate (its log-space Gaussian is
             * good to ~1e-17 relative; the subtraction 1 - x(1-q) in the
             * add direction is exact enough above 1e-12) */
            if (r[i] > 1e-250L) {
              long double err = fabsl((long double)d[i] - r[i]) / r[i];
              if ((double)err > worst_ref) worst_ref = (double)err;
              EXPECT(err <= 2.0L * rel + 1e-12L,
                     "q=%g sigma=%g s=%g dir=%d eps=%g: lib %.17g ref %.17Lg",
                     q, sigma, ss[i], dir, eps, d[i], r[i]);
            }
          }
          for (size_t i = 0; i + 1 < ns; i++) {
            ncases++;
            /* the mathematics (reference) ... */
            EXPECT(r[i] <= r[i + 1] * (1.0L + 1e-15L),
                   "ref: q=%g sigma=%g eps=%g dir=%d: s=%g %.17Lg > s'=%g "
                   "%.17Lg", q, sigma, eps, dir, ss[i], r[i], ss[i + 1],
                   r[i + 1]);
            /* ... and the library's curves, each within rel of the truth */
            EXPECT((long double)d[i] * (1.0L - rel) <=
                       (long double)d[i + 1] * (1.0L + rel) + 1e-300L,
                   "lib: q=%g sigma=%g eps=%g dir=%d: s=%g %.17g > s'=%g "
                   "%.17g", q, sigma, eps, dir, ss[i], d[i], ss[i + 1],
                   d[i + 1]);
          }
        }
      for (size_t i = 0; i < ns; i++) pld_mech_free(m[i]);
    }
  print_message("one step: %d ordered pairs, worst |lib - ref|/ref %.3g\n",
                ncases, worst_ref);
  EXPECT_DONE();
}

/* Rates: for q <= q', the kernel "keep with probability q/q', else draw
 * afresh from Q" maps the q' pair onto the q pair, so delta is
 * non-decreasing in q at every eps, both directions. */
static void test_rate_order(void **state)
{
  (void)state;
  static const double qs[] = {1e-3, 0.01, 0.1, 0.5, 1.0};
  enum { NQ = sizeof qs / sizeof qs[0] };
  static const double sigmas[] = {0.5, 1.0, 2.0, 8.0};
  static const double ss[] = {0.05, 0.3, 1.0};
  int npairs = 0;
  for (size_t ig = 0; ig < sizeof sigmas / sizeof sigmas[0]; ig++)
    for (size_t is = 0; is < sizeof ss / sizeof ss[0]; is++) {
      pld_mech *m[NQ];
      double rel = 0.0;
      for (size_t i = 0; i < NQ; i++) {
        m[i] = pg(qs[i], sigmas[ig], ss[is]);
        if (pld_mech_curve(m[i])->rel_err > rel)
          rel = pld_mech_curve(m[i])->rel_err;
      }
      for (int dir = 0; dir < 2; dir++)
        for (int k = 0; k <= 24; k++) {
          double eps = -2.0 + 0.5 * k;
          for (size_t i = 0; i + 1 < NQ; i++) {
            long double r0 = ref_pg_delta(qs[i], sigmas[ig], ss[is], eps, dir);
            long double r1 =
                ref_pg_delta(qs[i + 1], sigmas[ig], ss[is], eps, dir);
            double d0 = lib_delta(m[i], dir, eps);
            double d1 = lib_delta(m[i + 1], dir, eps);
            npairs++;
            EXPECT(r0 <= r1 * (1.0L + 1e-15L),
                   "ref: sigma=%g s=%g eps=%g dir=%d: q=%g %.17Lg > q'=%g "
                   "%.17Lg", sigmas[ig], ss[is], eps, dir, qs[i], r0,
                   qs[i + 1], r1);
            EXPECT((long double)d0 * (1.0L - rel) <=
                       (long double)d1 * (1.0L + rel) + 1e-300L,
                   "lib: sigma=%g s=%g eps=%g dir=%d: q=%g %.17g > q'=%g "
                   "%.17g", sigmas[ig], ss[is], eps, dir, qs[i], d0,
                   qs[i + 1], d1);
          }
        }
      for (size_t i = 0; i < NQ; i++) pld_mech_free(m[i]);
    }
  print_message("rates: %d ordered pairs\n", npairs);
  EXPECT_DONE();
}

/* PG(q, sigma, c s) and PG(q, sigma/c, s): y -> c y maps one pair onto the
 * other, so their curves are equal (docs/population.md Sec. 4.1). */
static void test_scaling(void **state)
{
  (void)state;
  static const double cs[] = {0.5, 1.1, 3.0};
  for (size_t ic = 0; ic < sizeof cs / sizeof cs[0]; ic++) {
    double c = cs[ic], q = 0.02, sigma = 1.3, s = 0.3;
    pld_mech *a = pg(q, sigma, c * s), *b = pg(q, sigma / c, s);
    double rel = pld_mech_curve(a)->rel_err + pld_mech_curve(b)->rel_err;
    for (int dir = 0; dir < 2; dir++)
      for (int k = 0; k <= 20; k++) {
        double eps = -1.0 + 0.25 * k;
        double da = lib_delta(a, dir, eps), db = lib_delta(b, dir, eps);
        /* sigma/c and c s are rounded: mu differs by a few ulps */
        EXPECT(fabs(da - db) <= (rel + 1e-13) * fmax(da, db) + 1e-300,
               "c=%g dir=%d eps=%g: %.17g vs %.17g", c, dir, eps, da, db);
      }
    pld_mech_free(a);
    pld_mech_free(b);
  }
  EXPECT_DONE();
}

/* ------------------------------------------------------------------------ */
/* Composed brackets.                                                         */

typedef struct sens_count {
  double s;
  uint64_t count;
} sens_count;

/* epsilon(delta) (is_delta = 0) or delta(epsilon) of the list of
 * Poisson-Gaussian steps (q, sigma, s_i) with counts; q = 1 uses the
 * Gaussian mechanism (closed form). */
static pld_result answer(double q, double sigma, size_t n,
                         const sens_count *sc, int is_delta, double arg)
{
  pld_accountant *a = NULL;
  REQUIRE_OK(pld_accountant_alloc(NULL, &a));
  for (size_t i = 0; i < n; i++) {
    pld_mech *m = NULL;
    if (q >= 1.0)
      REQUIRE_OK(pld_mech_gaussian(sigma, sc[i].s, &m));
    else
      REQUIRE_OK(pld_mech_poisson_gaussian(q, sigma, sc[i].s, &m));
    REQUIRE_OK(pld_accountant_add(a, m, sc[i].count));
    pld_mech_free(m);
  }
  pld_result r;
  memset(&r, 0, sizeof r);
  if (is_delta)
    REQUIRE_OK(pld_accountant_delta(a, arg, &r));
  else
    REQUIRE_OK(pld_accountant_epsilon(a, arg, &r));
  pld_accountant_free(a);
  return r;
}

static void test_composed(void **state)
{
  (void)state;
  static const struct {
    double q, sigma;
    uint64_t T;
  } cases[] = {{0.01, 1.0, 1000}, {0.004, 1.1, 5000}, {0.1, 2.0, 200},
               {0.5, 4.0, 50},    {1.0, 5.0, 20}};
  static const double ss[] = {0.05, 0.3, 0.6, 0.9, 0.95, 1.0};
  enum { NS = sizeof ss / sizeof ss[0] };
  int npairs = 0;
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    double q = cases[c].q, sigma = cases[c].sigma;
    pld_bound e[NS], d[NS];
    for (size_t i = 0; i < NS; i++) {
      sens_count sc = {ss[i], cases[c].T};
      pld_result r = answer(q, sigma, 1, &sc, 0, 1e-5);
      EXPECT(r.met_accuracy, "q=%g s=%g: accuracy not met", q, ss[i]);
      e[i] = r.bound;
      d[i] = answer(q, sigma, 1, &sc, 1, 1.0).bound;
      if (q >= 1.0) {
        long double mu = sqrtl((long double)cases[c].T) * ss[i] / sigma;
        EXPECT(ref_brackets(e[i], ref_gauss_epsilon(mu, 1e-5L)),
               "closed form mu=%Lg: [%.17g, %.17g] vs %.17Lg", mu,
               e[i].lower, e[i].upper, ref_gauss_epsilon(mu, 1e-5L));
      }
    }
    for (size_t i = 0; i < NS; i++)
      for (size_t j = i + 1; j < NS; j++) {
        npairs++;
        EXPECT(e[i].lower <= e[j].upper,
               "eps q=%g s=%g [%.17g, %.17g] s'=%g [%.17g, %.17g]", q, ss[i],
               e[i].lower, e[i].upper, ss[j], e[j].lower, e[j].upper);
        EXPECT(d[i].lower <= d[j].upper,
               "delta q=%g s=%g [%.17g, %.17g] s'=%g [%.17g, %.17g]", q,
               ss[i], d[i].lower, d[i].upper, ss[j], d[j].lower, d[j].upper);
        if (ss[j] >= 1.05 * ss[i]) {
          EXPECT(e[i].upper <= e[j].upper && e[i].lower <= e[j].lower,
                 "eps ends q=%g s=%g [%.17g, %.17g] s'=%g [%.17g, %.17g]", q,
                 ss[i], e[i].lower, e[i].upper, ss[j], e[j].lower,
                 e[j].upper);
          EXPECT(d[i].upper <= d[j].upper && d[i].lower <= d[j].lower,
                 "delta ends q=%g s=%g [%.17g, %.17g] s'=%g [%.17g, %.17g]",
                 q, ss[i], d[i].lower, d[i].upper, ss[j], d[j].lower,
                 d[j].upper);
        }
      }
    print_message("q=%g sigma=%g T=%llu: eps(1e-5) at s=0.05 [%.6f, %.6f], "
                  "s=1 [%.6f, %.6f]\n", q, sigma,
                  (unsigned long long)cases[c].T, e[0].lower, e[0].upper,
                  e[NS - 1].lower, e[NS - 1].upper);
  }
  print_message("composed: %d pairs\n", npairs);
  EXPECT_DONE();
}

/* ------------------------------------------------------------------------ */
/* A binned entity.                                                           */

/* A deterministic entity: T steps whose sensitivities take NV distinct
 * values in [0.05, 1], 40% of the steps clipped at 1 (xorshift, fixed
 * seed).  None lies below the first bin edge 0.05, so no step is left out
 * of the rounded-down list and the bracket events below have a lower
 * member for every step. */
enum { NV = 24 };

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static double rng_unit(void)
{
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (double)(rng_state >> 11) * 0x1.0p-53;
}

static size_t make_entity(uint64_t T, sens_count *out)
{
  double vals[NV];
  uint64_t counts[NV];
  vals[0] = 1.0;
  for (int v = 1; v < NV; v++) vals[v] = 0.05 + 0.95 * rng_unit();
  for (int v = 0; v < NV; v++) counts[v] = 0;
  for (uint64_t t = 0; t < T; t++) {
    int v = rng_unit() < 0.4 ? 0 : 1 + (int)(rng_unit() * (NV - 1));
    if (v >= NV) v = NV - 1;
    counts[v]++;
  }
  size_t n = 0;
  for (int v = 0; v < NV; v++)
    if (counts[v]) out[n++] = (sens_count){vals[v], counts[v]};
  return n;
}

/* Round every sensitivity onto the edges e[0..ne) (increasing, e[0] > 0,
 * e[ne-1] = 1): up to the smallest edge >= s, or down to the largest edge
 * <= s (steps below e[0] are left out: the identity pair, dominated by
 * every pair).  Equal edges merge their counts. */
static size_t round_onto(const sens_count *in, size_t n, const double *e,
                         size_t ne, int up, sens_count *out)
{
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    double s = in[i].s, b = 0.0;
    for (size_t k = 0; k < ne; k++) {
      if (up && e[k] >= s) {
        b = e[k];
        break;
      }
      if (!up && e[k] <= s) b = e[k];
    }
    if (b == 0.0) continue;
    size_t j = 0;
    while (j < m && out[j].s != b) j++;
    if (j == m) out[m++] = (sens_count){b, 0};
    out[j].count += in[i].count;
  }
  return m;
}

static void test_binned_entity(void **state)
{
  (void)state;
  const double q = 0.01, sigma = 1.0, delta = 1e-5;
  const uint64_t T = 2000;
  sens_count ent[NV], up[NV], dn[NV];
  size_t n = make_entity(T, ent);
  /* geometric edges from 0.05 to 1, ratio 1 + r */
  enum { NE = 12 };
  double e[NE];
  double ratio = pow(1.0 / 0.05, 1.0 / (NE - 1));
  for (int k = 0; k < NE - 1; k++) e[k] = 0.05 * pow(ratio, k);
  e[NE - 1] = 1.0;
  double r = ratio - 1.0;
  size_t nu = round_onto(ent, n, e, NE, 1, up);
  size_t nd = round_onto(ent, n, e, NE, 0, dn);

  pld_bound tr = answer(q, sigma, n, ent, 0, delta).bound;
  pld_bound bu = answer(q, sigma, nu, up, 0, delta).bound;
  pld_bound bd = answer(q, sigma, nd, dn, 0, delta).bound;
  /* dominance: U >= M >= L, seen through certified brackets */
  EXPECT(tr.lower <= bu.upper, "unbinned [%.17g, %.17g], rounded up "
         "[%.17g, %.17g]", tr.lower, tr.upper, bu.lower, bu.upper);
  EXPECT(bd.lower <= tr.upper, "rounded down [%.17g, %.17g], unbinned "
         "[%.17g, %.17g]", bd.lower, bd.upper, tr.lower, tr.upper);
  /* rounding moves every sensitivity by up to 28% here, so the ends are
   * ordered, not just overlapping */
  EXPECT(bd.upper < tr.lower && tr.upper < bu.lower,
         "down [%.9g, %.9g] unbinned [%.9g, %.9g] up [%.9g, %.9g]", bd.lower,
         bd.upper, tr.lower, tr.upper, bu.lower, bu.upper);

  /* the sandwich: every rounded-up edge is <= (1 + r) s, so the rounded-up
   * list is dominated by the entity at sigma / (1 + r) */
  pld_bound sw = answer(q, sigma / (1.0 + r), n, ent, 0, delta).bound;
  EXPECT(bu.lower <= sw.upper, "rounded up [%.17g, %.17g], unbinned at "
         "sigma/(1+r) [%.17g, %.17g]", bu.lower, bu.upper, sw.lower,
         sw.upper);

  /* the same entity as bracket events: one pld_mech_bracket(PG(b+), PG(b-))
   * per distinct sensitivity, the reference path of the batch engine
   * (docs/population.md Sec. 3, Corollary) */
  pld_accountant *a = NULL;
  REQUIRE_OK(pld_accountant_alloc(NULL, &a));
  for (size_t i = 0; i < n; i++) {
    sens_count one[1], u1[1] = {{0.0, 0}}, d1[1] = {{0.0, 0}};
    one[0] = ent[i];
    assert_true(round_onto(one, 1, e, NE, 1, u1) == 1);
    assert_true(round_onto(one, 1, e, NE, 0, d1) == 1);
    pld_mech *mu = pg(q, sigma, u1[0].s);
    pld_mech *ml = pg(q, sigma, d1[0].s);
    pld_mech *b = NULL;
    REQUIRE_OK(pld_mech_bracket(mu, ml, &b));
    REQUIRE_OK(pld_accountant_add(a, b, ent[i].count));
    pld_mech_free(b);
    pld_mech_free(mu);
    pld_mech_free(ml);
  }
  pld_result rb;
  memset(&rb, 0, sizeof rb);
  REQUIRE_OK(pld_accountant_epsilon(a, delta, &rb));
  pld_accountant_free(a);
  /* contains the unbinned truth: overlaps the unbinned bracket */
  EXPECT(rb.bound.lower <= tr.upper && tr.lower <= rb.bound.upper,
         "bracket events [%.17g, %.17g], unbinned [%.17g, %.17g]",
         rb.bound.lower, rb.bound.upper, tr.lower, tr.upper);
  /* its upper end bounds the rounded-up list's truth and its lower end the
   * rounded-down list's; each is within the accuracy asked (0.2%) plus the
   * other list's own width (0.2%) of that list's end */
  EXPECT(rb.bound.upper >= bu.lower && rb.bound.upper <= bu.upper * 1.004,
         "bracket events upper %.17g, rounded up [%.17g, %.17g]",
         rb.bound.upper, bu.lower, bu.upper);
  EXPECT(rb.bound.lower <= bd.upper && rb.bound.lower >= bd.lower * 0.996,
         "bracket events lower %.17g, rounded down [%.17g, %.17g]",
         rb.bound.lower, bd.lower, bd.upper);
  print_message("entity (T=%llu, %zu values, r=%.3f): down [%.6f, %.6f] "
                "unbinned [%.6f, %.6f] up [%.6f, %.6f] sigma/(1+r) "
                "[%.6f, %.6f] brackets [%.6f, %.6f]\n",
                (unsigned long long)T, n, r, bd.lower, bd.upper, tr.lower,
                tr.upper, bu.lower, bu.upper, sw.lower, sw.upper,
                rb.bound.lower, rb.bound.upper);
  EXPECT_DONE();
}

/* Shared spectra: one PLD per bin, built once, reused by every entity.
 * Bin 2k is the edge e[k] itself (both members PG(e[k]): a sensitivity on
 * an edge, such as a clipped step at 1, is not rounded at all), bin 2k - 1
 * the open interval (e[k-1], e[k]) (pessimistic members PG(e[k]),
 * optimistic ones PG(e[k-1])). */
static void test_shared_bins(void **state)
{
  (void)state;
  const double q = 0.01, sigma = 1.0, delta = 1e-5;
  const uint64_t T = 2000;
  enum { NE = 12, NB = 2 * NE - 1, NENT = 3 };
  double e[NE];
  double ratio = pow(1.0 / 0.05, 1.0 / (NE - 1));
  for (int k = 0; k < NE - 1; k++) e[k] = 0.05 * pow(ratio, k);
  e[NE - 1] = 1.0;

  /* the entities, their unbinned answers and those of their rounded lists;
   * the grid is the one the accountant chose for the first entity (the
   * engine picks one per group) */
  sens_count ent[NENT][NV];
  size_t n[NENT];
  pld_bound truth[NENT], upl[NENT], dnl[NENT];
  double grid = 0.0;
  for (int i = 0; i < NENT; i++) {
    n[i] = make_entity(T, ent[i]);
    pld_result r = answer(q, sigma, n[i], ent[i], 0, delta);
    truth[i] = r.bound;
    if (i == 0) grid = r.discretization;
    sens_count rl[NV];
    size_t nr = round_onto(ent[i], n[i], e, NE, 1, rl);
    upl[i] = answer(q, sigma, nr, rl, 0, delta).bound;
    nr = round_onto(ent[i], n[i], e, NE, 0, rl);
    dnl[i] = answer(q, sigma, nr, rl, 0, delta).bound;
  }
  assert_true(grid > 0.0);

  pld_dist *bin[NB];
  for (int b = 0; b < NB; b++) {
    int hi = (b + 1) / 2, lo = b / 2; /* b = 2k: k, k; b = 2k - 1: k, k-1 */
    pld_mech *mu = pg(q, sigma, e[hi]), *ml = pg(q, sigma, e[lo]);
    pld_mech *br = NULL;
    REQUIRE_OK(pld_mech_bracket(mu, ml, &br));
    REQUIRE_OK(pld_dist_from_mech(br, grid, NULL, &bin[b]));
    pld_mech_free(br);
    pld_mech_free(mu);
    pld_mech_free(ml);
  }
  for (int i = 0; i < NENT; i++) {
    uint64_t counts[NB] = {0};
    for (size_t j = 0; j < n[i]; j++) {
      int k = 0;
      while (e[k] < ent[i][j].s) k++; /* e[NE-1] = 1 >= s */
      counts[e[k] == ent[i][j].s ? 2 * k : 2 * k - 1] += ent[i][j].count;
    }
    pld_params p;
    pld_params_default(&p);
    p.discretization = grid;
    pld_accountant *a = NULL;
    REQUIRE_OK(pld_accountant_alloc(&p, &a));
    for (int b = 0; b < NB; b++)
      if (counts[b]) REQUIRE_OK(pld_accountant_add_dist(a, bin[b], counts[b]));
    pld_result r;
    memset(&r, 0, sizeof r);
    REQUIRE_OK(pld_accountant_epsilon(a, delta, &r));
    pld_accountant_free(a);
    /* sound: it contains the unbinned truth, so it overlaps the unbinned
     * bracket; its upper end bounds the rounded-up list, its lower end the
     * rounded-down one */
    EXPECT(r.bound.lower <= truth[i].upper && truth[i].lower <= r.bound.upper,
           "entity %d: shared bins [%.17g, %.17g], unbinned [%.17g, %.17g]",
           i, r.bound.lower, r.bound.upper, truth[i].lower, truth[i].upper);
    EXPECT(r.bound.upper >= upl[i].lower && r.bound.lower <= dnl[i].upper,
           "entity %d: shared bins [%.17g, %.17g], rounded up lower %.17g, "
           "rounded down upper %.17g", i, r.bound.lower, r.bound.upper,
           upl[i].lower, dnl[i].upper);
    /* and as tight as the rounded lists: the shared grid is one the
     * accountant chose for a 0.2% bracket of a similar entity; 0.4% allows
     * each side its own 0.2% */
    EXPECT(r.bound.upper <= upl[i].upper * 1.004 &&
               r.bound.lower >= dnl[i].lower * 0.996,
           "entity %d: shared bins [%.17g, %.17g], rounded down lower "
           "%.17g, rounded up upper %.17g", i, r.bound.lower, r.bound.upper,
           dnl[i].lower, upl[i].upper);
    print_message("entity %d: shared bins [%.6f, %.6f] (grid %.3g); rounded "
                  "down [%.6f, %.6f], unbinned [%.6f, %.6f], rounded up "
                  "[%.6f, %.6f]\n", i, r.bound.lower, r.bound.upper, grid,
                  dnl[i].lower, dnl[i].upper, truth[i].lower, truth[i].upper,
                  upl[i].lower, upl[i].upper);
  }
  for (int b = 0; b < NB; b++) pld_dist_free(bin[b]);
  EXPECT_DONE();
}

/* D_alpha(P || Q) of the Poisson-subsampled Gaussian at integer alpha:
 * E_Q[(p/q)^alpha] = sum_j C(alpha, j) (1-q)^(alpha-j) q^j e^{j(j-1) mu^2/2}
 * (expand (1 - q + q e^l)^alpha, E_Q e^{j l} = e^{j(j-1) mu^2 / 2}), in long
 * double; fine for the small mu and orders used here. */
static long double ref_pg_rdp(long double q, long double mu, int alpha)
{
  long double sum = 0.0L, binom = 1.0L;
  for (int j = 0; j <= alpha; j++) {
    if (j > 0) binom = binom * (long double)(alpha - j + 1) / (long double)j;
    sum += binom * powl(1.0L - q, alpha - j) * powl(q, j) *
           expl(0.5L * (long double)j * (long double)(j - 1) * mu * mu);
  }
  return logl(sum) / (long double)(alpha - 1);
}

static void test_rdp_monotone(void **state)
{
  (void)state;
  static const double qs[] = {0.001, 0.01, 0.2, 1.0};
  static const double sigmas[] = {0.8, 1.5, 4.0};
  static const double ss[] = {0.01, 0.2, 0.5, 0.9, 1.0};
  enum { NS = sizeof ss / sizeof ss[0] };
  int nchecked = 0;
  for (size_t iq = 0; iq < sizeof qs / sizeof qs[0]; iq++)
    for (size_t ig = 0; ig < sizeof sigmas / sizeof sigmas[0]; ig++) {
      pld_rdp_curve *c[NS];
      for (size_t i = 0; i < NS; i++) {
        c[i] = NULL;
        REQUIRE_OK(pld_rdp_curve_alloc_default(&c[i]));
        REQUIRE_OK(pld_rdp_add_poisson_gaussian(c[i], qs[iq], sigmas[ig],
                                                ss[i], 1));
      }
      size_t n = pld_rdp_curve_size(c[0]);
      const double *ord = pld_rdp_curve_orders(c[0]);
      for (size_t k = 0; k < n; k++) {
        for (size_t i = 0; i + 1 < NS; i++) {
          double a = pld_rdp_curve_values(c[i])[k];
          double b = pld_rdp_curve_values(c[i + 1])[k];
          nchecked++;
          /* fractional orders carry a series truncation of 1e-13 on the
           * moment (rdp.h): at most that over alpha - 1 on the value */
          EXPECT(a <= b + 1e-13 / (ord[k] - 1.0) + 4e-16 * fabs(b),
                 "q=%g sigma=%g alpha=%g: s=%g %.17g > s'=%g %.17g", qs[iq],
                 sigmas[ig], ord[k], ss[i], a, ss[i + 1], b);
        }
        double al = ord[k];
        if (al == floor(al) && al <= 24.0)
          for (size_t i = 0; i < NS; i++) {
            long double ref =
                ref_pg_rdp(qs[iq], ss[i] / sigmas[ig], (int)al);
            double v = pld_rdp_curve_values(c[i])[k];
            EXPECT(fabsl((long double)v - ref) <= 1e-12L * ref + 1e-15L,
                   "q=%g sigma=%g s=%g alpha=%g: %.17g vs ref %.17Lg",
                   qs[iq], sigmas[ig], ss[i], al, v, ref);
          }
      }
      for (size_t i = 0; i < NS; i++) pld_rdp_curve_free(c[i]);
    }
  print_message("rdp: %d ordered pairs\n", nchecked);
  EXPECT_DONE();
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_one_step),
      cmocka_unit_test(test_rate_order),
      cmocka_unit_test(test_scaling),
      cmocka_unit_test(test_composed),
      cmocka_unit_test(test_binned_entity),
      cmocka_unit_test(test_shared_bins),
      cmocka_unit_test(test_rdp_monotone),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
