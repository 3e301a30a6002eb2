/* pldkit tests: the PLD builder on user-supplied curves.
 *
 *  - A user pld_curve implementing the Gaussian mechanism (mu = 1) in long
 *    double (tests/ref.h), built on Delta in {1e-1, 1e-2, 1e-3, 1e-4}: for
 *    every eps on a grid, lower <= exact <= upper (1e-15 relative slack for
 *    the reference plus the curve's declared rel_err 1e-13), and the bracket
 *    within the guaranteed Delta-shift bound exact(eps + Delta) <= lower,
 *    upper <= exact(eps - Delta) (see ref.h), plus an empirical bound for
 *    Delta <= 1e-3 (0.1% of delta + 1e-12; 0.1% or 1e-3 nats in eps).  The
 *    curve at negative eps is exercised indirectly: composition with the
 *    identity and with itself, checked against the closed form of the
 *    composition.
 *  - An asymmetric user curve (a finite pair computed in the callback, both
 *    directions different), T = 1 and T = 3, against exact atoms.
 *  - Both user curves with and without the optional loss tails (with tails
 *    the library builds the stronger optimistic member; without, its lower
 *    end is held to a looser stated slack, WEAK_LOWER_REL).
 *  - Callback errors -> PLD_ECALLBACK, outputs untouched.
 *  - A finite pair with a point mass at +infinity.
 */
#include "ref.h"

/* ------------------------------------------------------------------------ */
/* User curves.                                                               */

typedef struct gauss_ctx {
  long double mu;
  unsigned long calls;  /* number of callback invocations */
  unsigned long fail_at; /* fail on this call (1-based); 0 = never */
  int fail_dir;          /* -1: any direction; else fail only for this one */
  int saw_negative;      /* the builder asked for eps < 0 */
} gauss_ctx;

static int gauss_cb(void *vctx, int dir, size_t n, const double *eps,
                    double *delta) {
  gauss_ctx *c = vctx;
  c->calls++;
  if (c->fail_at && c->calls >= c->fail_at) return 1;
  if (c->fail_dir >= 0 && dir == c->fail_dir) return -2; /* any non-zero other than PLD_ENOMEM */
  if (dir != PLD_DIR_PQ && dir != PLD_DIR_QP) return 3;
  for (size_t i = 0; i < n; i++) {
    if (eps[i] < 0) c->saw_negative = 1;
    if (isnan(eps[i])) return 4;
    delta[i] = (double)ref_gauss_delta(c->mu, eps[i]);
  }
  return 0;
}

/* The Gaussian's loss tails (pld_tails_fn): under P the loss is
 * N(mu^2/2, mu^2), under Q N(-mu^2/2, mu^2), so P[L > eps] = Phi(mu/2 -
 * eps/mu) and e^eps Q[L > eps] = e^eps Phi(-mu/2 - eps/mu). */
static int gauss_tails_cb(void *vctx, int dir, size_t n, const double *eps,
                          double *p_gt, double *eq_gt) {
  gauss_ctx *c = vctx;
  c->calls++;
  if (c->fail_at && c->calls >= c->fail_at) return 1;
  if (c->fail_dir >= 0 && dir == c->fail_dir) return -2; /* any non-zero other than PLD_ENOMEM */
  if (dir != PLD_DIR_PQ && dir != PLD_DIR_QP) return 3;
  for (size_t i = 0; i < n; i++) {
    long double e = eps[i], mu = c->mu;
    if (isnan(eps[i])) return 4;
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

/* asymmetric finite pair through the callback */
typedef struct pair_ctx {
  ref_atoms pq, qp;
} pair_ctx;

static int pair_cb(void *vctx, int dir, size_t n, const double *eps,
                   double *delta) {
  const pair_ctx *c = vctx;
  const ref_atoms *a = dir == PLD_DIR_PQ ? &c->pq : &c->qp;
  if (dir != PLD_DIR_PQ && dir != PLD_DIR_QP) return 1;
  for (size_t i = 0; i < n; i++) {
    if (isnan(eps[i])) return -2;
    if (isinf(eps[i]) && eps[i] < 0) {
      delta[i] = 1.0;
      continue;
    }
    delta[i] = (double)ref_atoms_delta(a, eps[i]);
  }
  return 0;
}

/* tails of a finite pair: sums over atoms with loss > eps */
static int pair_tails_cb(void *vctx, int dir, size_t n, const double *eps,
                         double *p_gt, double *eq_gt) {
  const pair_ctx *c = vctx;
  const ref_atoms *a = dir == PLD_DIR_PQ ? &c->pq : &c->qp;
  if (dir != PLD_DIR_PQ && dir != PLD_DIR_QP) return 1;
  for (size_t i = 0; i < n; i++) {
    if (isnan(eps[i])) return -2;
    long double pg = 0, qg = 0;
    for (size_t j = 0; j < a->n; j++)
      if (a->a[j].loss > eps[i]) {
        pg += a->a[j].p;
        qg += a->a[j].q;
      }
    p_gt[i] = (double)pg;
    eq_gt[i] = isinf(eps[i]) ? 0.0 : (double)(expl(eps[i]) * qg);
  }
  return 0;
}

static long double gauss_ref_cb(const void *ctx, long double eps) {
  return ref_gauss_delta(*(const long double *)ctx, eps);
}

static const double eps_grid_extra[] = {0.0123, 0.0517, 0.333, 1.0 / 3,
                                        2.71828, 3.14159, INFINITY};

/* Without tails the library uses a weaker optimistic construction
 * (chord gaps); its lower end is held to a 1e-3 relative slack on the shift
 * bound instead of REF_BOOK_REL_LO. */
#define WEAK_LOWER_REL 1e-3

static void check_gauss_dist(const char *what, const pld_dist *d,
                             long double mu, double shift, double Delta,
                             double lower_rel) {
  char name[160];
  snprintf(name, sizeof name, "%s mu=%.4Lg Delta=%g", what, mu, Delta);
  ref_check c = {.name = name, .f = gauss_ref_cb, .ctx = &mu, .shift = shift,
                 .ref_slack = REF_ROUND + 1e-13, .ref_abs = 0,
                 .lower_rel = lower_rel};
  if (Delta <= 1e-3) {
    /* empirical: 0.1% in delta (+1e-12), 0.1% or 1e-3 nats in eps
     * (measured: within 1e-4 for both, with and without tails) */
    c.delta_rel = 1e-3;
    c.delta_abs = 1e-12;
    c.eps_rel = 1e-3;
    c.eps_abs = 1e-3;
  }
  for (int k = 0; k <= 120; k++) ref_check_delta(&c, d, 0.05 * k);
  for (size_t k = 0; k < sizeof eps_grid_extra / sizeof *eps_grid_extra; k++)
    ref_check_delta(&c, d, eps_grid_extra[k]);
  const double dl[] = {0.1, 1e-3, 1e-6, 1e-9};
  for (size_t k = 0; k < 4; k++) ref_check_epsilon(&c, d, dl[k]);
}

static void run_user_gaussian(int with_tails) {
  const double Deltas[4] = {1e-1, 1e-2, 1e-3, 1e-4};
  const double lrel = with_tails ? 0 : WEAK_LOWER_REL;
  const char *tag = with_tails ? "user gaussian (tails)" : "user gaussian";
  pld_params par;
  pld_params_default(&par);
  gauss_ctx gc = {1.0L, 0, 0, -1, 0};
  pld_curve curve = {.delta = gauss_cb, .ctx = &gc, .rel_err = 1e-13,
                     .symmetric = 1, .loss_scale = 1.0,
                     .tails = with_tails ? gauss_tails_cb : NULL};
  pld_mech *um = NULL, *gm = NULL;
  REQUIRE_OK(pld_mech_from_curve(&curve, &um));
  REQUIRE_OK(pld_mech_gaussian(1.0, 1.0, &gm));
  /* pld_mech_delta goes through the callback */
  double v = -7;
  REQUIRE_OK(pld_mech_delta(um, PLD_DIR_QP, 0.5, &v));
  EXPECT(fabsl(v - ref_gauss_delta(1.0L, 0.5L)) <= 1e-15,
         "%s: mech delta(0.5) = %.17g", tag, v);
  /* a user curve is not a Gaussian to the library */
  double mu = -7;
  EXPECT_STATUS(pld_mech_gaussian_mu(um, &mu), PLD_EUNSUPPORTED);

  for (int i = 0; i < 4; i++) {
    const double D = Deltas[i];
    pld_dist *d = NULL, *b = NULL, *direct = NULL, *id = NULL, *did = NULL,
             *d2 = NULL, *mixed = NULL;
    gc.saw_negative = 0;
    REQUIRE_OK(pld_dist_from_curve(pld_mech_curve(um), D, &par, &d));
    REQUIRE_OK(pld_dist_from_curve(&curve, D, &par, &direct));
    REQUIRE_OK(pld_dist_from_curve(pld_mech_curve(gm), D, &par, &b));
    check_gauss_dist(tag, d, 1.0L, D, D, lrel);
    char what[96];
    snprintf(what, sizeof what, "%s, direct curve", tag);
    check_gauss_dist(what, direct, 1.0L, D, D, lrel);

    /* the builder sees only the curve: user and built-in Gaussian agree
     * (1e-6 relative + 1e-12; they may differ in range searches only).
     * The built-in Gaussian has tails, so its lower end is compared only
     * with the user curve that has them too. */
    for (int k = 0; k <= 40; k++) {
      pld_bound x = {-7, -7}, y = {-7, -7};
      REQUIRE_OK(pld_dist_delta(d, 0.1 * k, &x));
      REQUIRE_OK(pld_dist_delta(b, 0.1 * k, &y));
      EXPECT(fabs(x.upper - y.upper) <= 1e-6 * y.upper + 1e-12 &&
                 (!with_tails ||
                  fabs(x.lower - y.lower) <= 1e-6 * y.lower + 1e-12),
             "%s Delta=%g eps=%g: user [%.17g, %.17g] vs built-in "
             "[%.17g, %.17g]", tag, D, 0.1 * k, x.lower, x.upper, y.lower,
             y.upper);
    }

    /* negative eps, indirectly: composition with the identity, with
     * itself (mu = sqrt 2) and with the built-in Gaussian (mu = sqrt 2). */
    REQUIRE_OK(pld_dist_identity(D, &id));
    REQUIRE_OK(pld_dist_compose(d, id, NULL, &did));
    snprintf(what, sizeof what, "%s o identity", tag);
    check_gauss_dist(what, did, 1.0L, D, D, lrel);
    REQUIRE_OK(pld_dist_self_compose(d, 2, NULL, &d2));
    snprintf(what, sizeof what, "%s ^2", tag);
    check_gauss_dist(what, d2, sqrtl(2.0L), 2 * D, D, lrel);
    REQUIRE_OK(pld_dist_compose(d, b, NULL, &mixed));
    snprintf(what, sizeof what, "%s o built-in gaussian", tag);
    check_gauss_dist(what, mixed, sqrtl(2.0L), 2 * D, D, lrel);
    print_message("%s Delta=%g: builder %s the curve at negative eps\n", tag,
                  D, gc.saw_negative ? "evaluated" : "did not evaluate");
    pld_dist_free(d);
    pld_dist_free(b);
    pld_dist_free(direct);
    pld_dist_free(id);
    pld_dist_free(did);
    pld_dist_free(d2);
    pld_dist_free(mixed);
  }
  pld_mech_free(um);
  pld_mech_free(gm);
}

static void test_user_gaussian(void **state) {
  run_user_gaussian(0);
  EXPECT_DONE();
}

static void test_user_gaussian_tails(void **state) {
  run_user_gaussian(1);
  EXPECT_DONE();
}

static void run_user_asymmetric(int with_tails) {
  const double p[4] = {0.5, 0.3, 0.2, 0.0}, q[4] = {0.1, 0.3, 0.4, 0.2};
  pair_ctx pc;
  pc.pq = ref_atoms_from_pair(4, p, q);
  pc.qp = ref_atoms_from_pair(4, q, p);
  pld_curve curve = {.delta = pair_cb, .ctx = &pc, .rel_err = 1e-14,
                     .symmetric = 0, .loss_scale = 1.0,
                     .tails = with_tails ? pair_tails_cb : NULL};
  const char *tag = with_tails ? "user asymmetric pair (tails)"
                               : "user asymmetric pair";
  pld_params par;
  pld_params_default(&par);
  const double D = 1e-3;
  pld_dist *d = NULL;
  REQUIRE_OK(pld_dist_from_curve(&curve, D, &par, &d));
  const unsigned Ts[2] = {1, 3};
  for (int t = 0; t < 2; t++) {
    pld_dist *dT = NULL;
    REQUIRE_OK(pld_dist_self_compose(d, Ts[t], NULL, &dT));
    ref_pair_atoms ex;
    ex.pq = ref_atoms_self_compose(&pc.pq, Ts[t]);
    ex.qp = ref_atoms_self_compose(&pc.qp, Ts[t]);
    char name[96];
    snprintf(name, sizeof name, "%s T=%u Delta=%g", tag, Ts[t], D);
    ref_check c = {.name = name, .f = ref_pair_delta_cb, .ctx = &ex,
                   .shift = Ts[t] * D, .ref_slack = REF_ROUND + 1e-14,
                   .ref_abs = 1e-15,
                   .lower_rel = with_tails ? 0 : WEAK_LOWER_REL};
    for (int k = 0; k <= 60; k++) ref_check_delta(&c, dT, 0.1 * k);
    ref_check_delta(&c, dT, INFINITY);
    const double dl[] = {0.5, 0.1, 1e-2, 1e-4};
    for (size_t k = 0; k < 4; k++) ref_check_epsilon(&c, dT, dl[k]);
    /* each direction separately: the stored views must carry the right
     * mass at +infinity (QP: 1 - 0.8^T, PQ: 0) */
    pld_pmf_view v;
    long double inf_qp = 1 - powl(0.8L, Ts[t]);
    REQUIRE_OK(pld_dist_view(dT, PLD_DIR_QP, PLD_PESSIMISTIC, &v));
    EXPECT(v.inf_mass >= inf_qp * (1 - 1e-12L), "%s T=%u QP pessimistic "
           "inf_mass %.17g < %.17Lg", tag, Ts[t], v.inf_mass, inf_qp);
    REQUIRE_OK(pld_dist_view(dT, PLD_DIR_QP, PLD_OPTIMISTIC, &v));
    EXPECT(v.inf_mass <= inf_qp * (1 + 1e-12L), "%s T=%u QP optimistic "
           "inf_mass %.17g > %.17Lg", tag, Ts[t], v.inf_mass, inf_qp);
    REQUIRE_OK(pld_dist_view(dT, PLD_DIR_PQ, PLD_OPTIMISTIC, &v));
    EXPECT(v.inf_mass <= 1e-12, "%s T=%u PQ optimistic inf_mass %.17g, "
           "expected 0", tag, Ts[t], v.inf_mass);
    ref_atoms_free(&ex.pq);
    ref_atoms_free(&ex.qp);
    pld_dist_free(dT);
  }
  pld_dist_free(d);
  ref_atoms_free(&pc.pq);
  ref_atoms_free(&pc.qp);
}

static void test_user_asymmetric(void **state) {
  run_user_asymmetric(0);
  EXPECT_DONE();
}

static void test_user_asymmetric_tails(void **state) {
  run_user_asymmetric(1);
  EXPECT_DONE();
}

static void test_callback_errors(void **state) {
  pld_params par;
  pld_params_default(&par);
  const unsigned long fail_ats[3] = {1, 2, 5};
  for (int i = 0; i < 3; i++) {
    gauss_ctx gc = {1.0L, 0, fail_ats[i], -1, 0};
    pld_curve curve = {.delta = gauss_cb, .ctx = &gc, .rel_err = 1e-13,
      .symmetric = 1, .loss_scale = 1.0};
    pld_dist *d = (pld_dist *)(uintptr_t)0x1;
    int st = pld_dist_from_curve(&curve, 1e-2, &par, &d);
    /* a builder that needs fewer than fail_at calls may succeed */
    if (gc.calls >= fail_ats[i])
      EXPECT(st == PLD_ECALLBACK && d == (pld_dist *)(uintptr_t)0x1,
             "callback failing at call %lu: status %d (%s), output %p",
             fail_ats[i], st, pld_strerror(st), (void *)d);
    else {
      EXPECT(st == PLD_SUCCESS, "status %d with %lu calls", st, gc.calls);
      if (st == PLD_SUCCESS) pld_dist_free(d);
    }
  }
  /* an asymmetric curve failing only in direction QP */
  {
    gauss_ctx gc = {1.0L, 0, 0, PLD_DIR_QP, 0};
    pld_curve curve = {.delta = gauss_cb, .ctx = &gc, .rel_err = 1e-13,
      .symmetric = 0, .loss_scale = 1.0};
    pld_dist *d = (pld_dist *)(uintptr_t)0x1;
    EXPECT_STATUS(pld_dist_from_curve(&curve, 1e-2, &par, &d), PLD_ECALLBACK);
    EXPECT(d == (pld_dist *)(uintptr_t)0x1, "output touched on ECALLBACK");
  }
  /* through a mechanism and the accountant */
  {
    gauss_ctx gc = {1.0L, 0, 1, -1, 0};
    pld_curve curve = {.delta = gauss_cb, .ctx = &gc, .rel_err = 1e-13,
      .symmetric = 1, .loss_scale = 1.0};
    pld_mech *m = NULL;
    REQUIRE_OK(pld_mech_from_curve(&curve, &m));
    pld_dist *d = (pld_dist *)(uintptr_t)0x1;
    EXPECT_STATUS(pld_dist_from_curve(pld_mech_curve(m), 1e-2, &par, &d),
                  PLD_ECALLBACK);
    EXPECT(d == (pld_dist *)(uintptr_t)0x1, "output touched on ECALLBACK");
    pld_accountant *acc = NULL;
    REQUIRE_OK(pld_accountant_alloc(NULL, &acc));
    REQUIRE_OK(pld_accountant_add(acc, m, 4));
    pld_result r, r0;
    memset(&r, 0x5A, sizeof r);
    r0 = r;
    EXPECT_STATUS(pld_accountant_epsilon(acc, 1e-5, &r), PLD_ECALLBACK);
    EXPECT_STATUS(pld_accountant_delta(acc, 1.0, &r), PLD_ECALLBACK);
    EXPECT(memcmp(&r, &r0, sizeof r) == 0, "result touched on ECALLBACK");
    EXPECT_STATUS(pld_accountant_compose(acc, 1e-2, &d), PLD_ECALLBACK);
    EXPECT(d == (pld_dist *)(uintptr_t)0x1, "output touched on ECALLBACK");
    pld_accountant_free(acc);
    pld_mech_free(m);
  }
  EXPECT_DONE();
}

/* p = {.5, .3, .2}, q = {.6, .4, 0}: P puts 0.2 where Q has none. */
static void test_mass_at_infinity(void **state) {
  const double p[3] = {0.5, 0.3, 0.2}, q[3] = {0.6, 0.4, 0.0};
  pld_mech *m = NULL;
  REQUIRE_OK(pld_mech_finite(3, p, q, &m));
  double v = -7;
  REQUIRE_OK(pld_mech_delta(m, PLD_DIR_PQ, INFINITY, &v));
  EXPECT(fabs(v - 0.2) <= 1e-15, "pld_mech_delta(+inf) = %.17g", v);
  REQUIRE_OK(pld_mech_delta(m, PLD_DIR_QP, INFINITY, &v));
  EXPECT(v == 0, "pld_mech_delta(QP, +inf) = %.17g", v);
  pld_params par;
  pld_params_default(&par);
  ref_atoms pq1 = ref_atoms_from_pair(3, p, q), qp1 = ref_atoms_from_pair(3, q, p);
  const double Ds[2] = {1e-2, 1e-3};
  const unsigned Ts[2] = {1, 3};
  for (int i = 0; i < 2; i++) {
    pld_dist *d = NULL;
    REQUIRE_OK(pld_dist_from_curve(pld_mech_curve(m), Ds[i], &par, &d));
    for (int t = 0; t < 2; t++) {
      pld_dist *dT = NULL;
      REQUIRE_OK(pld_dist_self_compose(d, Ts[t], NULL, &dT));
      long double mass = 1 - powl(0.8L, Ts[t]); /* P mass at +inf */
      pld_pmf_view vp, vo;
      REQUIRE_OK(pld_dist_view(dT, PLD_DIR_PQ, PLD_PESSIMISTIC, &vp));
      REQUIRE_OK(pld_dist_view(dT, PLD_DIR_PQ, PLD_OPTIMISTIC, &vo));
      EXPECT(vp.inf_mass >= mass * (1 - 1e-12L),
             "Delta=%g T=%u: pessimistic inf_mass %.17g < %.17Lg", Ds[i],
             Ts[t], vp.inf_mass, mass);
      EXPECT(vo.inf_mass <= mass * (1 + 1e-12L) && vo.inf_mass >= 0,
             "Delta=%g T=%u: optimistic inf_mass %.17g > %.17Lg", Ds[i], Ts[t],
             vo.inf_mass, mass);
      pld_bound b = {-7, -7};
      REQUIRE_OK(pld_dist_delta(dT, INFINITY, &b));
      EXPECT(b.lower <= mass * (1 + 1e-12L) && b.upper >= mass * (1 - 1e-12L) &&
                 b.upper - mass <= 1e-9,
             "Delta=%g T=%u: delta(+inf) = [%.17g, %.17g], exact %.17Lg",
             Ds[i], Ts[t], b.lower, b.upper, mass);
      /* below the mass at infinity no finite eps is certified */
      pld_bound e = {-7, -7};
      REQUIRE_OK(pld_dist_epsilon(dT, (double)mass / 2, &e));
      EXPECT(e.upper == INFINITY, "Delta=%g T=%u: eps(%g) = [%.17g, %.17g], "
             "expected upper +inf", Ds[i], Ts[t], (double)mass / 2, e.lower,
             e.upper);
      /* above it: the exact value, bracketed */
      ref_pair_atoms ex;
      ex.pq = ref_atoms_self_compose(&pq1, Ts[t]);
      ex.qp = ref_atoms_self_compose(&qp1, Ts[t]);
      char name[96];
      snprintf(name, sizeof name, "finite pair with +inf mass T=%u Delta=%g",
               Ts[t], Ds[i]);
      ref_check c = {.name = name, .f = ref_pair_delta_cb, .ctx = &ex,
                     .shift = Ts[t] * Ds[i], .ref_slack = REF_ROUND,
                     .ref_abs = 1e-15};
      for (int k = 0; k <= 30; k++) ref_check_delta(&c, dT, 0.1 * k);
      const double dl[] = {(double)mass + 0.05, (double)mass + 0.01,
                           (double)mass + 1e-4};
      for (int k = 0; k < 3; k++) ref_check_epsilon(&c, dT, dl[k]);
      ref_atoms_free(&ex.pq);
      ref_atoms_free(&ex.qp);
      pld_dist_free(dT);
    }
    pld_dist_free(d);
  }
  ref_atoms_free(&pq1);
  ref_atoms_free(&qp1);
  pld_mech_free(m);
  EXPECT_DONE();
}

static void test_report(void **state) { ref_report_worst(); }

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_user_gaussian),
      cmocka_unit_test(test_user_gaussian_tails),
      cmocka_unit_test(test_user_asymmetric),
      cmocka_unit_test(test_user_asymmetric_tails),
      cmocka_unit_test(test_callback_errors),
      cmocka_unit_test(test_mass_at_infinity),
      cmocka_unit_test(test_report),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
