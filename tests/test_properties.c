/* pldkit tests: algebraic and structural properties of PLDs.
 *
 * Mechanisms (all on the grid Delta = 2e-3): Gaussian sigma = 1, Laplace
 * b = 1, Poisson-subsampled Gaussian q = 0.1 sigma = 1, randomized response
 * eps0 = 1 k = 3.
 *
 * Tolerances (stated once):
 *  - "same bracket" (commutativity, associativity, self-compose vs pairwise,
 *    identity, copy): brackets overlap (max lower <= min upper) and both ends
 *    agree within the booked error (twice the sum of the two computations'
 *    booked rel_err/abs_err, from pld_dist_view) plus SAME_REL * value +
 *    SAME_ABS, which covers different truncation windows (tail mass 1e-20
 *    each); for eps(delta), each computation's eps_upper certifies delta in
 *    the other one within the same slack;
 *  - monotonicity: d[i+1] <= d[i] * (1 + 1e-12) + 1e-18 (summation order);
 *  - masses: >= 0; sum + inf_mass in [1 - 1e-9, 1 + 1e-8] (pessimistic),
 *    in [1 - 1e-6, 1 + 1e-9] (optimistic: only truncated tails of at most
 *    tail_mass each may be dropped).
 */
#include "ref.h"

#define SAME_REL 1e-9
#define SAME_ABS 1e-12
#define DELTA_GRID 2e-3

enum { GAUSS, LAPLACE, POISSON, RR, NMECH };
static const char *mech_names[NMECH] = {"gaussian(1)", "laplace(1)",
                                        "poisson-gaussian(0.1,1)", "rr(1,3)"};
static pld_mech *g_mech[NMECH];
static pld_dist *g_dist[NMECH];

static const double g_eps[] = {0.0, 0.1, 0.25, 0.5, 1.0, 1.7, 2.0, 3.0, 4.0,
                               6.0, INFINITY};
#define N_EPS (sizeof g_eps / sizeof *g_eps)

static int setup(void **state) {
  pld_params par;
  pld_params_default(&par);
  if (pld_mech_gaussian(1.0, 1.0, &g_mech[GAUSS]) ||
      pld_mech_laplace(1.0, 1.0, &g_mech[LAPLACE]) ||
      pld_mech_poisson_gaussian(0.1, 1.0, 1.0, &g_mech[POISSON]) ||
      pld_mech_randomized_response(1.0, 3, &g_mech[RR]))
    return -1;
  for (int i = 0; i < NMECH; i++)
    if (pld_dist_from_curve(pld_mech_curve(g_mech[i]), DELTA_GRID, &par,
                            &g_dist[i]))
      return -1;
  return 0;
}

static int teardown(void **state) {
  for (int i = 0; i < NMECH; i++) {
    pld_dist_free(g_dist[i]);
    pld_mech_free(g_mech[i]);
  }
  return 0;
}

static int close_enough(double x, double y) {
  if (x == y) return 1; /* also both +inf */
  return fabs(x - y) <= SAME_REL * fmax(fabs(x), fabs(y)) + SAME_ABS;
}

/* Booked floating-point slack of one rounding (worse direction). */
static void booked(const pld_dist *d, int rounding, double *rel, double *abs_) {
  *rel = *abs_ = 0;
  for (int dir = 0; dir < 2; dir++) {
    pld_pmf_view v;
    memset(&v, 0, sizeof v);
    REQUIRE_OK(pld_dist_view(d, dir, rounding, &v));
    *rel = fmax(*rel, v.rel_err);
    *abs_ = fmax(*abs_, v.abs_err);
  }
}

/* Two computations of the same composition agree "within the booked
 * error": each reported end is its raw value widened by its booking and
 * each raw value is within its booking of the exact value of its rounding,
 * so the two reported ends differ by at most twice the sum of the bookings,
 * plus SAME_REL / SAME_ABS. */
static int agree(double x, double y, double rel, double abs_) {
  if (x == y) return 1;
  double m = fmax(fabs(x), fabs(y));
  return fabs(x - y) <= 2 * (rel * m + abs_) + SAME_REL * m + SAME_ABS;
}

/* Same bracket at every eps of g_eps and for eps(delta) at a few deltas. */
static void expect_same(const char *what, const pld_dist *a,
                        const pld_dist *b) {
  double ra, aa, rb, ab, rlo_a, alo_a, rlo_b, alo_b;
  booked(a, PLD_PESSIMISTIC, &ra, &aa);
  booked(b, PLD_PESSIMISTIC, &rb, &ab);
  booked(a, PLD_OPTIMISTIC, &rlo_a, &alo_a);
  booked(b, PLD_OPTIMISTIC, &rlo_b, &alo_b);
  const double rup = ra + rb, aup = aa + ab;
  const double rlo = rlo_a + rlo_b, alo = alo_a + alo_b;
  for (size_t k = 0; k < N_EPS; k++) {
    pld_bound x = {-7, -7}, y = {-7, -7};
    REQUIRE_OK(pld_dist_delta(a, g_eps[k], &x));
    REQUIRE_OK(pld_dist_delta(b, g_eps[k], &y));
    EXPECT(fmax(x.lower, y.lower) <= fmin(x.upper, y.upper) &&
               agree(x.upper, y.upper, rup, aup) &&
               agree(x.lower, y.lower, rlo, alo),
           "%s: delta(%g) brackets [%.17g, %.17g] vs [%.17g, %.17g] (booked "
           "upper rel %.3g abs %.3g, lower rel %.3g abs %.3g)", what, g_eps[k],
           x.lower, x.upper, y.lower, y.upper, rup, aup, rlo, alo);
  }
  const double dl[] = {1e-2, 1e-5, 1e-8};
  for (size_t k = 0; k < 3; k++) {
    pld_bound x = {-7, -7}, y = {-7, -7};
    REQUIRE_OK(pld_dist_epsilon(a, dl[k], &x));
    REQUIRE_OK(pld_dist_epsilon(b, dl[k], &y));
    EXPECT(fmax(x.lower, y.lower) <= fmin(x.upper, y.upper),
           "%s: eps(%g) brackets [%.17g, %.17g] vs [%.17g, %.17g] do not "
           "overlap", what, dl[k], x.lower, x.upper, y.lower, y.upper);
    /* eps: the other's certified eps certifies delta here too, within the
     * booked slack (delta_upper_a(eps_upper_b) <= delta + slack) */
    const pld_dist *d2[2] = {a, b};
    const pld_bound e2[2] = {y, x};
    for (int i = 0; i < 2; i++) {
      if (!isfinite(e2[i].upper)) continue;
      pld_bound t = {-7, -7};
      REQUIRE_OK(pld_dist_delta(d2[i], e2[i].upper, &t));
      EXPECT(t.upper <= dl[k] * (1 + 2 * rup + SAME_REL) + 2 * aup + SAME_ABS,
             "%s: eps(%g) = %.17g from one computation gives delta_upper "
             "%.17g in the other", what, dl[k], e2[i].upper, t.upper);
    }
  }
}

static void test_commutative(void **state) {
  for (int i = 0; i < NMECH; i++)
    for (int j = i + 1; j < NMECH; j++) {
      pld_dist *ab = NULL, *ba = NULL;
      REQUIRE_OK(pld_dist_compose(g_dist[i], g_dist[j], NULL, &ab));
      REQUIRE_OK(pld_dist_compose(g_dist[j], g_dist[i], NULL, &ba));
      char what[128];
      snprintf(what, sizeof what, "%s o %s vs reversed", mech_names[i],
               mech_names[j]);
      expect_same(what, ab, ba);
      pld_dist_free(ab);
      pld_dist_free(ba);
    }
  EXPECT_DONE();
}

static void test_associative(void **state) {
  const int triples[4][3] = {
      {GAUSS, LAPLACE, POISSON}, {LAPLACE, RR, POISSON}, {RR, GAUSS, LAPLACE},
      {POISSON, POISSON, RR}};
  pld_workspace *ws = NULL;
  pld_params par;
  pld_params_default(&par);
  REQUIRE_OK(pld_workspace_alloc(&par, &ws));
  for (int t = 0; t < 4; t++) {
    const pld_dist *a = g_dist[triples[t][0]], *b = g_dist[triples[t][1]],
                   *c = g_dist[triples[t][2]];
    pld_dist *ab = NULL, *ab_c = NULL, *bc = NULL, *a_bc = NULL;
    REQUIRE_OK(pld_dist_compose(a, b, ws, &ab));
    REQUIRE_OK(pld_dist_compose(ab, c, ws, &ab_c));
    REQUIRE_OK(pld_dist_compose(b, c, ws, &bc));
    REQUIRE_OK(pld_dist_compose(a, bc, ws, &a_bc));
    char what[160];
    snprintf(what, sizeof what, "(%s o %s) o %s vs %s o (%s o %s)",
             mech_names[triples[t][0]], mech_names[triples[t][1]],
             mech_names[triples[t][2]], mech_names[triples[t][0]],
             mech_names[triples[t][1]], mech_names[triples[t][2]]);
    expect_same(what, ab_c, a_bc);
    pld_dist_free(ab);
    pld_dist_free(ab_c);
    pld_dist_free(bc);
    pld_dist_free(a_bc);
  }
  pld_workspace_free(ws);
  EXPECT_DONE();
}

static void test_self_compose_vs_pairwise(void **state) {
  const uint64_t ks[3] = {2, 3, 5};
  for (int i = 0; i < NMECH; i++)
    for (int j = 0; j < 3; j++) {
      pld_dist *s = NULL, *p = NULL;
      REQUIRE_OK(pld_dist_self_compose(g_dist[i], ks[j], NULL, &s));
      REQUIRE_OK(pld_dist_copy(g_dist[i], &p));
      for (uint64_t t = 1; t < ks[j]; t++) {
        pld_dist *next = NULL;
        REQUIRE_OK(pld_dist_compose(p, g_dist[i], NULL, &next));
        pld_dist_free(p);
        p = next;
      }
      char what[128];
      snprintf(what, sizeof what, "%s self_compose(%llu) vs pairwise",
               mech_names[i], (unsigned long long)ks[j]);
      expect_same(what, s, p);
      pld_dist_free(s);
      pld_dist_free(p);
    }
  EXPECT_DONE();
}

static void test_identity_neutral(void **state) {
  pld_dist *id = NULL;
  REQUIRE_OK(pld_dist_identity(DELTA_GRID, &id));
  /* the identity reveals nothing: delta(eps) = 0 for every eps >= 0 */
  for (size_t k = 0; k < N_EPS; k++) {
    pld_bound b = {-7, -7};
    REQUIRE_OK(pld_dist_delta(id, g_eps[k], &b));
    EXPECT(b.lower == 0 && b.upper >= 0 && b.upper <= 1e-12,
           "identity delta(%g) = [%.17g, %.17g]", g_eps[k], b.lower, b.upper);
  }
  pld_bound e = {-7, -7};
  REQUIRE_OK(pld_dist_epsilon(id, 1e-6, &e));
  EXPECT(e.lower == 0 && e.upper >= 0 && e.upper <= 1e-9,
         "identity eps(1e-6) = [%.17g, %.17g]", e.lower, e.upper);
  for (int i = 0; i < NMECH; i++) {
    pld_dist *x = NULL, *y = NULL, *z = NULL;
    REQUIRE_OK(pld_dist_compose(g_dist[i], id, NULL, &x));
    REQUIRE_OK(pld_dist_compose(id, g_dist[i], NULL, &y));
    REQUIRE_OK(pld_dist_self_compose(id, 7, NULL, &z));
    char what[96];
    snprintf(what, sizeof what, "%s o identity", mech_names[i]);
    expect_same(what, x, g_dist[i]);
    snprintf(what, sizeof what, "identity o %s", mech_names[i]);
    expect_same(what, y, g_dist[i]);
    expect_same("identity^7 vs identity", z, id);
    pld_dist_free(x);
    pld_dist_free(y);
    pld_dist_free(z);
  }
  pld_dist_free(id);
  EXPECT_DONE();
}

static void test_copy(void **state) {
  for (int i = 0; i < NMECH; i++) {
    pld_dist *c = NULL;
    REQUIRE_OK(pld_dist_copy(g_dist[i], &c));
    expect_same(mech_names[i], c, g_dist[i]);
    EXPECT(pld_dist_discretization(c) == DELTA_GRID &&
               pld_dist_grid_size(c) == pld_dist_grid_size(g_dist[i]),
           "copy of %s: Delta %g grid %zu", mech_names[i],
           pld_dist_discretization(c), pld_dist_grid_size(c));
    pld_dist_free(c);
  }
  EXPECT_DONE();
}

/* Monotone curves, lower <= upper, [0, 1], and curve == pointwise delta. */
static void check_curve(const char *what, const pld_dist *d) {
  enum { N = 1201 };
  static double eps[N], rev[N];
  static pld_bound b[N], br[N];
  for (int i = 0; i < N; i++) eps[i] = 12.0 * i / (N - 1);
  for (int i = 0; i < N; i++) rev[i] = eps[N - 1 - i];
  REQUIRE_OK(pld_dist_curve(d, N, eps, b));
  REQUIRE_OK(pld_dist_curve(d, N, rev, br)); /* any order */
  int bad_order = 0, bad_mono = 0, bad_same = 0, bad_rev = 0;
  for (int i = 0; i < N; i++) {
    if (!(b[i].lower >= 0 && b[i].lower <= b[i].upper && b[i].upper <= 1 + 1e-12)) {
      if (bad_order++ < 3)
        print_message("%s: eps %g bracket [%.17g, %.17g]\n", what, eps[i],
                      b[i].lower, b[i].upper);
    }
    if (i > 0 && !(b[i].upper <= b[i - 1].upper * (1 + 1e-12) + 1e-18 &&
                   b[i].lower <= b[i - 1].lower * (1 + 1e-12) + 1e-18)) {
      if (bad_mono++ < 3)
        print_message("%s: not non-increasing at eps %g: [%.17g, %.17g] "
                      "after [%.17g, %.17g]\n", what, eps[i], b[i].lower,
                      b[i].upper, b[i - 1].lower, b[i - 1].upper);
    }
    if (!(br[N - 1 - i].lower == b[i].lower && br[N - 1 - i].upper == b[i].upper))
      bad_rev++;
    if (i % 100 == 0) {
      pld_bound p = {-7, -7};
      REQUIRE_OK(pld_dist_delta(d, eps[i], &p));
      if (!(close_enough(p.upper, b[i].upper) && close_enough(p.lower, b[i].lower))) {
        if (bad_same++ < 3)
          print_message("%s: eps %g curve [%.17g, %.17g] vs delta "
                        "[%.17g, %.17g]\n", what, eps[i], b[i].lower,
                        b[i].upper, p.lower, p.upper);
      }
    }
  }
  EXPECT(bad_order == 0, "%s: %d brackets inverted or outside [0,1]", what,
         bad_order);
  EXPECT(bad_mono == 0, "%s: %d monotonicity violations", what, bad_mono);
  EXPECT(bad_same == 0, "%s: %d curve/delta mismatches", what, bad_same);
  EXPECT(bad_rev == 0, "%s: %d differences with reversed eps order", what,
         bad_rev);
}

static void test_monotone_and_ordered(void **state) {
  for (int i = 0; i < NMECH; i++) {
    check_curve(mech_names[i], g_dist[i]);
    pld_dist *c = NULL;
    REQUIRE_OK(pld_dist_self_compose(g_dist[i], 10, NULL, &c));
    char what[96];
    snprintf(what, sizeof what, "%s ^10", mech_names[i]);
    check_curve(what, c);
    pld_dist_free(c);
  }
  pld_dist *all = NULL, *tmp = NULL;
  REQUIRE_OK(pld_dist_compose(g_dist[0], g_dist[1], NULL, &tmp));
  REQUIRE_OK(pld_dist_compose(tmp, g_dist[2], NULL, &all));
  pld_dist_free(tmp);
  REQUIRE_OK(pld_dist_compose(all, g_dist[3], NULL, &tmp));
  check_curve("all four composed", tmp);
  pld_dist_free(tmp);
  pld_dist_free(all);
  EXPECT_DONE();
}

static void check_views(const char *what, const pld_dist *d) {
  for (int dir = 0; dir < 2; dir++)
    for (int r = 0; r < 2; r++) {
      pld_pmf_view v;
      memset(&v, 0, sizeof v);
      REQUIRE_OK(pld_dist_view(d, dir, r, &v));
      EXPECT(v.size == 0 || v.masses != NULL, "%s dir %d rounding %d: NULL "
             "masses with size %zu", what, dir, r, v.size);
      EXPECT(v.size <= pld_dist_grid_size(d), "%s dir %d rounding %d: size "
             "%zu > grid size %zu", what, dir, r, v.size, pld_dist_grid_size(d));
      long double sum = 0;
      size_t neg = 0, nonfinite = 0;
      for (size_t i = 0; i < v.size; i++) {
        if (!isfinite(v.masses[i])) nonfinite++;
        else if (v.masses[i] < 0) neg++;
        sum += v.masses[i];
      }
      EXPECT(neg == 0 && nonfinite == 0, "%s dir %d rounding %d: %zu negative "
             "and %zu non-finite masses", what, dir, r, neg, nonfinite);
      EXPECT(v.inf_mass >= 0 && v.inf_mass <= 1 + 1e-9,
             "%s dir %d rounding %d: inf_mass %.17g", what, dir, r, v.inf_mass);
      EXPECT(v.rel_err >= 0 && v.abs_err >= 0 && isfinite(v.rel_err) &&
                 isfinite(v.abs_err),
             "%s dir %d rounding %d: booked errors %g %g", what, dir, r,
             v.rel_err, v.abs_err);
      long double tot = sum + v.inf_mass;
      if (r == PLD_PESSIMISTIC)
        /* above 1 by at most 1e-8: clipping negative FFT round-off to 0
         * adds ~1e-14 per grid point (measured 1.06e-9 for rr^100 on a
         * 100k grid) */
        EXPECT(tot >= 1 - 1e-9L && tot <= 1 + 1e-8L, "%s dir %d pessimistic: "
               "total mass %.17Lg (inf %.3g)", what, dir, tot, v.inf_mass);
      else
        /* the optimistic member may drop only truncated tails (tail_mass
         * = 1e-20 each), so it must keep all but 1e-6 of the mass; a
         * dropped atom makes the composed lower bound useless */
        EXPECT(tot <= 1 + 1e-9L && tot >= 1 - 1e-6L, "%s dir %d optimistic: "
               "total mass %.17Lg (inf %.3g)", what, dir, tot, v.inf_mass);
    }
}

static void test_masses(void **state) {
  pld_dist *id = NULL;
  REQUIRE_OK(pld_dist_identity(DELTA_GRID, &id));
  check_views("identity", id);
  pld_dist_free(id);
  for (int i = 0; i < NMECH; i++) {
    check_views(mech_names[i], g_dist[i]);
    const uint64_t Ts[3] = {2, 10, 100};
    for (int t = 0; t < 3; t++) {
      pld_dist *c = NULL;
      REQUIRE_OK(pld_dist_self_compose(g_dist[i], Ts[t], NULL, &c));
      char what[96];
      snprintf(what, sizeof what, "%s ^%llu", mech_names[i],
               (unsigned long long)Ts[t]);
      check_views(what, c);
      pld_dist_free(c);
    }
    pld_dist *c = NULL;
    REQUIRE_OK(pld_dist_compose(g_dist[i], g_dist[(i + 1) % NMECH], NULL, &c));
    check_views("pairwise", c);
    pld_dist_free(c);
  }
  EXPECT_DONE();
}

static void test_incompatible(void **state) {
  pld_params par;
  pld_params_default(&par);
  pld_dist *other = NULL;
  REQUIRE_OK(pld_dist_from_curve(pld_mech_curve(g_mech[GAUSS]), 1e-3, &par,
                                 &other));
  pld_dist *sentinel = (pld_dist *)(uintptr_t)0x1, *out = sentinel;
  EXPECT_STATUS(pld_dist_compose(g_dist[GAUSS], other, NULL, &out),
                PLD_EINCOMPAT);
  EXPECT(out == sentinel, "output touched on PLD_EINCOMPAT");
  EXPECT_STATUS(pld_dist_compose(other, g_dist[LAPLACE], NULL, &out),
                PLD_EINCOMPAT);
  EXPECT(out == sentinel, "output touched on PLD_EINCOMPAT");
  pld_dist *id = NULL;
  REQUIRE_OK(pld_dist_identity(4e-3, &id));
  EXPECT_STATUS(pld_dist_compose(id, g_dist[RR], NULL, &out), PLD_EINCOMPAT);
  EXPECT(out == sentinel, "output touched on PLD_EINCOMPAT");
  pld_dist_free(id);
  pld_dist_free(other);
  EXPECT_DONE();
}

/* eps(delta) and delta(eps) agree: delta_upper(eps_upper) <= delta (and
 * the same for the lower ends), within 1e-9 relative + 1e-14 absolute (the
 * cancellation in P - e^eps Q at masses of order 1), and just below each end
 * the corresponding curve is above delta (the ends are the smallest such
 * eps, up to 1e-6 relative + 1e-9 nats). */
static void check_consistency(const char *what, const pld_dist *d) {
  const double dl[] = {0.3, 1e-2, 1e-5, 1e-8};
  for (size_t k = 0; k < 4; k++) {
    pld_bound e = {-7, -7};
    REQUIRE_OK(pld_dist_epsilon(d, dl[k], &e));
    EXPECT(e.lower >= 0 && e.lower <= e.upper, "%s: eps(%g) = [%.17g, %.17g]",
           what, dl[k], e.lower, e.upper);
    if (isfinite(e.upper)) {
      pld_bound b = {-7, -7};
      REQUIRE_OK(pld_dist_delta(d, e.upper, &b));
      EXPECT(b.upper <= dl[k] * (1 + 1e-9) + 1e-14,
             "%s: delta_upper(eps_upper(%g) = %.17g) = %.17g > delta", what,
             dl[k], e.upper, b.upper);
      if (e.upper > 0) {
        double below = e.upper * (1 - 1e-6) - 1e-9;
        REQUIRE_OK(pld_dist_delta(d, fmax(below, 0), &b));
        EXPECT(b.upper >= dl[k] * (1 - 1e-9),
               "%s: eps_upper(%g) = %.17g is not the smallest: "
               "delta_upper(%.17g) = %.17g", what, dl[k], e.upper, below,
               b.upper);
      }
    }
    if (isfinite(e.lower)) {
      pld_bound b = {-7, -7};
      REQUIRE_OK(pld_dist_delta(d, e.lower, &b));
      EXPECT(b.lower <= dl[k] * (1 + 1e-9) + 1e-14,
             "%s: delta_lower(eps_lower(%g) = %.17g) = %.17g > delta", what,
             dl[k], e.lower, b.lower);
      if (e.lower > 0) {
        double below = e.lower * (1 - 1e-6) - 1e-9;
        REQUIRE_OK(pld_dist_delta(d, fmax(below, 0), &b));
        EXPECT(b.lower >= dl[k] * (1 - 1e-9),
               "%s: eps_lower(%g) = %.17g is not the smallest: "
               "delta_lower(%.17g) = %.17g", what, dl[k], e.lower, below,
               b.lower);
      }
    }
  }
}

static void test_eps_delta_consistent(void **state) {
  for (int i = 0; i < NMECH; i++) {
    check_consistency(mech_names[i], g_dist[i]);
    pld_dist *c = NULL;
    REQUIRE_OK(pld_dist_self_compose(g_dist[i], 30, NULL, &c));
    char what[96];
    snprintf(what, sizeof what, "%s ^30", mech_names[i]);
    check_consistency(what, c);
    pld_dist_free(c);
  }
  EXPECT_DONE();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_commutative),
      cmocka_unit_test(test_associative),
      cmocka_unit_test(test_self_compose_vs_pairwise),
      cmocka_unit_test(test_identity_neutral),
      cmocka_unit_test(test_copy),
      cmocka_unit_test(test_monotone_and_ordered),
      cmocka_unit_test(test_masses),
      cmocka_unit_test(test_incompatible),
      cmocka_unit_test(test_eps_delta_consistent),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
