/* pldkit tests: every public function with every bad-input class.
 *
 * For each bad call: the documented status code is returned and the output
 * variable is untouched (it is pre-filled with a sentinel: (void *)0x1 for
 * object pointers, -7 for doubles, {-7, -7} for brackets, a byte pattern for
 * structs).  Nothing may abort: GSL's default handler is never involved in
 * this program, so a library that lets GSL abort fails here.
 */
#include "ref.h"

#include <limits.h>
#include <time.h>

#define SENT ((void *)(uintptr_t)0x1)

/* `call` must use &out_ as its output argument. */
#define EXPECT_PTR_FAIL(T, want, call)                                        \
  do {                                                                        \
    T out_ = (T)SENT;                                                         \
    int st_ = (call);                                                         \
    EXPECT(st_ == (want), "%s -> %d (%s), expected %d (%s)", #call, st_,      \
           pld_strerror(st_), (int)(want), pld_strerror(want));               \
    EXPECT(out_ == (T)SENT, "%s touched its output (%p)", #call,              \
           (void *)out_);                                                     \
  } while (0)

static const double bad_pos[] = {0.0, -1.0, -1e-300, NAN, INFINITY,
                                 -INFINITY};
#define N_BAD_POS (sizeof bad_pos / sizeof *bad_pos)
static const double bad_rate[] = {0.0, -0.1, 1.5, NAN, INFINITY, -INFINITY,
                                  1.0 + 1e-9};
#define N_BAD_RATE (sizeof bad_rate / sizeof *bad_rate)


/* ------------------------------------------------------------------------ */

static void test_strerror(void **state) {
  const char *unknown = pld_strerror(INT_MAX);
  EXPECT(unknown != NULL && strcmp(unknown, "Unknown status code") == 0,
         "pld_strerror(INT_MAX) = \"%s\"", unknown ? unknown : "(null)");
  for (int c = PLD_SUCCESS; c <= PLD_EDURABLE; c++) {
    const char *s = pld_strerror(c);
    EXPECT(s != NULL, "pld_strerror(%d) is NULL", c);
    if (!s) continue;
    size_t n = strlen(s);
    EXPECT(n > 3 && s[0] >= 'A' && s[0] <= 'Z' && s[n - 1] != '.' &&
               s[n - 1] != '\n',
           "pld_strerror(%d) = \"%s\": not a sentence with an uppercase first "
           "character and no trailing period", c, s);
    EXPECT(strcmp(s, unknown) != 0, "pld_strerror(%d) is the unknown text", c);
    for (int c2 = PLD_SUCCESS; c2 < c; c2++)
      EXPECT(strcmp(s, pld_strerror(c2)) != 0,
             "pld_strerror(%d) == pld_strerror(%d) = \"%s\"", c, c2, s);
  }
  const int unk[] = {-1, PLD_EDURABLE + 1, 1000, INT_MIN, INT_MAX};
  for (size_t i = 0; i < sizeof unk / sizeof *unk; i++) {
    const char *s = pld_strerror(unk[i]);
    EXPECT(s != NULL && strcmp(s, "Unknown status code") == 0,
           "pld_strerror(%d) = \"%s\"", unk[i], s ? s : "(null)");
  }
  EXPECT_DONE();
}

/* ------------------------------------------------------------------------ */
/* Parameters.                                                                */

typedef struct bad_param {
  const char *what;
  pld_params p;
} bad_param;

static size_t make_bad_params(bad_param *out) {
  size_t n = 0;
  pld_params d;
  pld_params_default(&d);
#define ADD(field, value)                                                    \
  do {                                                                       \
    out[n].what = #field " = " #value;                                       \
    out[n].p = d;                                                            \
    out[n].p.field = (value);                                                \
    n++;                                                                     \
  } while (0)
  ADD(discretization, -1e-3);
  ADD(discretization, NAN);
  ADD(discretization, INFINITY);
  ADD(discretization, -INFINITY);
  ADD(accuracy, 0.0);
  ADD(accuracy, -1e-3);
  ADD(accuracy, NAN);
  ADD(accuracy, INFINITY);
  ADD(abs_accuracy, -1e-4);
  ADD(abs_accuracy, NAN);
  ADD(abs_accuracy, INFINITY);
  ADD(tail_mass, -1e-30);
  ADD(tail_mass, 2e-3);
  ADD(tail_mass, 1.0);
  ADD(tail_mass, NAN);
  ADD(tail_mass, INFINITY);
  ADD(max_grid, (size_t)0);
#undef ADD
  return n;
}

static void test_params(void **state) {
  pld_params p;
  pld_params_default(&p);
  EXPECT_STATUS(pld_params_validate(&p), PLD_SUCCESS);
  EXPECT(p.discretization == 0 && p.accuracy == 2e-3 && p.tail_mass == 0.0 &&
             p.max_grid == ((size_t)1 << 23) && p.abs_accuracy == 1e-4 &&
             p.fftw_flags == 0x40u,
         "documented defaults: Delta %g accuracy %g abs %g tail %g max_grid "
         "%zu", p.discretization, p.accuracy, p.abs_accuracy, p.tail_mass,
         p.max_grid);
  EXPECT_STATUS(pld_params_validate(NULL), PLD_EINVAL);
  /* boundary values that are valid */
  pld_params ok = p;
  ok.tail_mass = 1e-3;
  EXPECT_STATUS(pld_params_validate(&ok), PLD_SUCCESS);
  ok.tail_mass = 0.0; /* automatic */
  EXPECT_STATUS(pld_params_validate(&ok), PLD_SUCCESS);
  ok = p;
  ok.discretization = 1e-3;
  EXPECT_STATUS(pld_params_validate(&ok), PLD_SUCCESS);

  bad_param bad[32];
  size_t nb = make_bad_params(bad);
  pld_mech *g = NULL;
  REQUIRE_OK(pld_mech_gaussian(1.0, 1.0, &g));
  for (size_t i = 0; i < nb; i++) {
    const pld_params *bp = &bad[i].p;
    int st = pld_params_validate(bp);
    EXPECT(st == PLD_EINVAL, "validate(%s) -> %d", bad[i].what, st);
    /* every function that takes params */
    pld_workspace *ws = SENT;
    st = pld_workspace_alloc(bp, &ws);
    EXPECT(st == PLD_EINVAL && ws == SENT, "workspace_alloc(%s) -> %d",
           bad[i].what, st);
    pld_dist *d = SENT;
    st = pld_dist_from_curve(pld_mech_curve(g), 1e-2, bp, &d);
    EXPECT(st == PLD_EINVAL && d == SENT, "dist_from_curve(%s) -> %d",
           bad[i].what, st);
    pld_accountant *acc = SENT;
    st = pld_accountant_alloc(bp, &acc);
    EXPECT(st == PLD_EINVAL && acc == SENT, "accountant_alloc(%s) -> %d",
           bad[i].what, st);
  }
  pld_mech_free(g);
  EXPECT_DONE();
}

/* ------------------------------------------------------------------------ */
/* Mechanism constructors.                                                    */

static int dummy_curve(void *ctx, int dir, size_t n, const double *eps,
                       double *delta) {
  for (size_t i = 0; i < n; i++)
    delta[i] = (double)ref_gauss_delta(1.0L, eps[i]);
  return 0;
}

static int enomem_curve(void *ctx, int dir, size_t n, const double *eps,
                        double *delta) {
  (void)ctx, (void)dir, (void)n, (void)eps, (void)delta;
  return PLD_ENOMEM;
}

static int failing_curve(void *ctx, int dir, size_t n, const double *eps,
                         double *delta) {
  return -1;
}

static void test_mech_constructors(void **state) {
  for (size_t i = 0; i < N_BAD_POS; i++) {
    double x = bad_pos[i];
    EXPECT_PTR_FAIL(pld_mech *, PLD_EINVAL, pld_mech_gaussian(x, 1.0, &out_));
    EXPECT_PTR_FAIL(pld_mech *, PLD_EINVAL, pld_mech_gaussian(1.0, x, &out_));
    EXPECT_PTR_FAIL(pld_mech *, PLD_EINVAL, pld_mech_laplace(x, 1.0, &out_));
    EXPECT_PTR_FAIL(pld_mech *, PLD_EINVAL, pld_mech_laplace(1.0, x, &out_));
    EXPECT_PTR_FAIL(pld_mech *, PLD_EINVAL,
                    pld_mech_discrete_laplace(x, 1, &out_));
    EXPECT_PTR_FAIL(pld_mech *, PLD_EINVAL,
                    pld_mech_discrete_gaussian(x, 1, &out_));
    EXPECT_PTR_FAIL(pld_mech *, PLD_EINVAL,
                    pld_mech_poisson_gaussian(0.5, x, 1.0, &out_));
    EXPECT_PTR_FAIL(pld_mech *, PLD_EINVAL,
                    pld_mech_poisson_gaussian(0.5, 1.0, x, &out_));
    EXPECT_PTR_FAIL(pld_mech *, PLD_EINVAL,
                    pld_mech_poisson_laplace(0.5, x, 1.0, &out_));
    EXPECT_PTR_FAIL(pld_mech *, PLD_EINVAL,
                    pld_mech_poisson_laplace(0.5, 1.0, x, &out_));
  }
  const int64_t bad_sens[] = {0, -1, INT64_MIN};
  for (size_t i = 0; i < 3; i++) {
    EXPECT_PTR_FAIL(pld_mech *, PLD_EINVAL,
                    pld_mech_discrete_laplace(1.0, bad_sens[i], &out_));
    EXPECT_PTR_FAIL(pld_mech *, PLD_EINVAL,
                    pld_mech_discrete_gaussian(1.0, bad_sens[i], &out_));
  }
  /* randomized response: eps0 < 0 / NaN / inf, k < 2 */
  const double bad_e0[] = {-0.1, -1e-300, NAN, INFINITY, -INFINITY};
  for (size_t i = 0; i < 5; i++)
    EXPECT_PTR_FAIL(pld_mech *, PLD_EINVAL,
                    pld_mech_randomized_response(bad_e0[i], 2, &out_));
  const int64_t bad_k[] = {1, 0, -3, INT64_MIN};
  for (size_t i = 0; i < 4; i++)
    EXPECT_PTR_FAIL(pld_mech *, PLD_EINVAL,
                    pld_mech_randomized_response(1.0, bad_k[i], &out_));
  {
    pld_mech *m = NULL; /* eps0 = 0 is valid (reveals nothing) */
    EXPECT_STATUS(pld_mech_randomized_response(0.0, 2, &m), PLD_SUCCESS);
    pld_mech_free(m);
  }
  /* Poisson rate q outside (0, 1] */
  pld_mech *base = NULL;
  REQUIRE_OK(pld_mech_gaussian(1.0, 1.0, &base));
  for (size_t i = 0; i < N_BAD_RATE; i++) {
    double q = bad_rate[i];
    EXPECT_PTR_FAIL(pld_mech *, PLD_EINVAL, pld_mech_poisson(base, q, &out_));
    EXPECT_PTR_FAIL(pld_mech *, PLD_EINVAL,
                    pld_mech_poisson_gaussian(q, 1.0, 1.0, &out_));
    EXPECT_PTR_FAIL(pld_mech *, PLD_EINVAL,
                    pld_mech_poisson_laplace(q, 1.0, 1.0, &out_));
  }
  {
    pld_mech *m = NULL; /* q = 1 is valid */
    EXPECT_STATUS(pld_mech_poisson(base, 1.0, &m), PLD_SUCCESS);
    pld_mech_free(m);
  }
  EXPECT_PTR_FAIL(pld_mech *, PLD_EINVAL, pld_mech_poisson(NULL, 0.5, &out_));

  /* NULL outputs */
  EXPECT_STATUS(pld_mech_gaussian(1.0, 1.0, NULL), PLD_EINVAL);
  EXPECT_STATUS(pld_mech_laplace(1.0, 1.0, NULL), PLD_EINVAL);
  EXPECT_STATUS(pld_mech_discrete_laplace(1.0, 1, NULL), PLD_EINVAL);
  EXPECT_STATUS(pld_mech_discrete_gaussian(1.0, 1, NULL), PLD_EINVAL);
  EXPECT_STATUS(pld_mech_randomized_response(1.0, 2, NULL), PLD_EINVAL);
  EXPECT_STATUS(pld_mech_poisson(base, 0.5, NULL), PLD_EINVAL);
  EXPECT_STATUS(pld_mech_poisson_gaussian(0.5, 1.0, 1.0, NULL), PLD_EINVAL);
  EXPECT_STATUS(pld_mech_poisson_laplace(0.5, 1.0, 1.0, NULL), PLD_EINVAL);
  EXPECT_STATUS(pld_mech_copy(base, NULL), PLD_EINVAL);
  EXPECT_PTR_FAIL(pld_mech *, PLD_EINVAL, pld_mech_copy(NULL, &out_));

  /* finite pairs */
  const double p2[2] = {0.5, 0.5}, q2[2] = {0.25, 0.75};
  const double sum09[2] = {0.5, 0.4}, sum11[2] = {0.6, 0.5};
  const double negv[2] = {1.2, -0.2}, nanv[2] = {NAN, 0.5},
               infv[2] = {INFINITY, 0.0}, ninf[2] = {-INFINITY, 1.0};
  EXPECT_PTR_FAIL(pld_mech *, PLD_EINVAL, pld_mech_finite(0, p2, q2, &out_));
  EXPECT_PTR_FAIL(pld_mech *, PLD_EINVAL, pld_mech_finite(2, NULL, q2, &out_));
  EXPECT_PTR_FAIL(pld_mech *, PLD_EINVAL, pld_mech_finite(2, p2, NULL, &out_));
  EXPECT_STATUS(pld_mech_finite(2, p2, q2, NULL), PLD_EINVAL);
  const double *bads[] = {sum09, sum11, negv, nanv, infv, ninf};
  for (size_t i = 0; i < 6; i++) {
    EXPECT_PTR_FAIL(pld_mech *, PLD_EINVAL,
                    pld_mech_finite(2, bads[i], q2, &out_));
    EXPECT_PTR_FAIL(pld_mech *, PLD_EINVAL,
                    pld_mech_finite(2, p2, bads[i], &out_));
  }
  {
    pld_mech *m = NULL; /* within 1e-9 of 1 is fine */
    const double almost[2] = {0.5, 0.5 + 5e-11};
    EXPECT_STATUS(pld_mech_finite(2, almost, q2, &m), PLD_SUCCESS);
    pld_mech_free(m);
  }

  /* user curves */
  pld_curve c = {.delta = dummy_curve, .ctx = NULL, .rel_err = 1e-13,
      .symmetric = 1, .loss_scale = 1.0};
  EXPECT_PTR_FAIL(pld_mech *, PLD_EINVAL, pld_mech_from_curve(NULL, &out_));
  EXPECT_STATUS(pld_mech_from_curve(&c, NULL), PLD_EINVAL);
  pld_curve bc = c;
  {
    /* user mechanisms that differ only in their lattice are different
     * groups: grouping them would compose one with the other's count */
    pld_mech *u1 = NULL, *u2 = NULL;
    pld_curve lc = c;
    lc.loss_lattice = 0.5;
    REQUIRE_OK(pld_mech_from_curve(&c, &u1));
    REQUIRE_OK(pld_mech_from_curve(&lc, &u2));
    EXPECT(!pld_mech_equal(u1, u2), "user mechanisms with different "
           "lattices compare equal");
    EXPECT(pld_mech_equal(u1, u1), "a user mechanism is not equal to itself");
    pld_mech_free(u1);
    pld_mech_free(u2);
    /* a callback's out-of-memory stays PLD_ENOMEM, its other failures are
     * PLD_ECALLBACK; the output is untouched either way */
    pld_curve ec = c, fc = c;
    ec.delta = enomem_curve;
    fc.delta = failing_curve;
    REQUIRE_OK(pld_mech_from_curve(&ec, &u1));
    REQUIRE_OK(pld_mech_from_curve(&fc, &u2));
    double v = 0.25;
    EXPECT_STATUS(pld_mech_delta(u1, PLD_DIR_PQ, 1.0, &v), PLD_ENOMEM);
    EXPECT_STATUS(pld_mech_delta(u2, PLD_DIR_PQ, 1.0, &v), PLD_ECALLBACK);
    EXPECT(v == 0.25, "pld_mech_delta touched its output on failure");
    pld_mech_free(u1);
    pld_mech_free(u2);
  }
  bc.delta = NULL;
  EXPECT_PTR_FAIL(pld_mech *, PLD_EINVAL, pld_mech_from_curve(&bc, &out_));
  const double bad_rel[] = {-1e-13, NAN, INFINITY, -INFINITY};
  for (size_t i = 0; i < 4; i++) {
    bc = c;
    bc.rel_err = bad_rel[i];
    EXPECT_PTR_FAIL(pld_mech *, PLD_EINVAL, pld_mech_from_curve(&bc, &out_));
  }
  for (size_t i = 0; i < N_BAD_POS; i++) {
    bc = c;
    bc.loss_scale = bad_pos[i];
    EXPECT_PTR_FAIL(pld_mech *, PLD_EINVAL, pld_mech_from_curve(&bc, &out_));
  }
  pld_mech_free(base);
  pld_mech_free(NULL); /* no-op */
  EXPECT_DONE();
}

static void test_mech_queries(void **state) {
  pld_mech *g = NULL, *l = NULL;
  REQUIRE_OK(pld_mech_gaussian(2.0, 1.0, &g));
  REQUIRE_OK(pld_mech_laplace(1.0, 1.0, &l));
  double v = -7;
  EXPECT_STATUS(pld_mech_delta(NULL, PLD_DIR_PQ, 1.0, &v), PLD_EINVAL);
  EXPECT(v == -7, "output touched");
  EXPECT_STATUS(pld_mech_delta(g, PLD_DIR_PQ, 1.0, NULL), PLD_EINVAL);
  EXPECT_STATUS(pld_mech_delta(g, 2, 1.0, &v), PLD_EINVAL);
  EXPECT_STATUS(pld_mech_delta(g, -1, 1.0, &v), PLD_EINVAL);
  EXPECT_STATUS(pld_mech_delta(g, PLD_DIR_QP, NAN, &v), PLD_EINVAL);
  EXPECT(v == -7, "output touched");
  /* +inf is valid: the mass where Q has none, 0 for a Gaussian */
  EXPECT_STATUS(pld_mech_delta(g, PLD_DIR_PQ, INFINITY, &v), PLD_SUCCESS);
  EXPECT(v == 0, "gaussian delta(+inf) = %g", v);

  double mu = -7;
  EXPECT_STATUS(pld_mech_gaussian_mu(NULL, &mu), PLD_EINVAL);
  EXPECT_STATUS(pld_mech_gaussian_mu(g, NULL), PLD_EINVAL);
  EXPECT_STATUS(pld_mech_gaussian_mu(l, &mu), PLD_EUNSUPPORTED);
  EXPECT(mu == -7, "output touched by gaussian_mu on a Laplace");
  EXPECT_STATUS(pld_mech_gaussian_mu(g, &mu), PLD_SUCCESS);
  EXPECT(fabs(mu - 0.5) < 1e-15, "gaussian_mu = %g, expected 0.5", mu);

  EXPECT(pld_mech_curve(NULL) == NULL, "pld_mech_curve(NULL) not NULL");
  EXPECT(pld_mech_equal(NULL, g) == 0 && pld_mech_equal(g, NULL) == 0,
         "pld_mech_equal with NULL");
  (void)pld_mech_equal(NULL, NULL); /* must not crash */
  EXPECT(pld_mech_equal(g, g) != 0 && pld_mech_equal(g, l) == 0,
         "pld_mech_equal");
  pld_mech_free(g);
  pld_mech_free(l);
  EXPECT_DONE();
}

/* ------------------------------------------------------------------------ */
/* PLD objects.                                                               */

static void test_dist_build(void **state) {
  pld_params par;
  pld_params_default(&par);
  pld_mech *g = NULL, *lap = NULL;
  REQUIRE_OK(pld_mech_gaussian(1.0, 1.0, &g));
  REQUIRE_OK(pld_mech_laplace(1.0, 1.0, &lap));
  const pld_curve *gc = pld_mech_curve(g);
  EXPECT(gc != NULL, "pld_mech_curve returned NULL");

  EXPECT_PTR_FAIL(pld_dist *, PLD_EINVAL,
                  pld_dist_from_curve(NULL, 1e-2, &par, &out_));
  EXPECT_STATUS(pld_dist_from_curve(gc, 1e-2, &par, NULL), PLD_EINVAL);
  for (size_t i = 0; i < N_BAD_POS; i++)
    EXPECT_PTR_FAIL(pld_dist *, PLD_EINVAL,
                    pld_dist_from_curve(gc, bad_pos[i], &par, &out_));
  {
    /* NULL params: not documented as "defaults" here; accept either
     * defaults or PLD_EINVAL, output untouched on failure. */
    pld_dist *d = SENT;
    int st = pld_dist_from_curve(gc, 1e-2, NULL, &d);
    EXPECT(st == PLD_SUCCESS || (st == PLD_EINVAL && d == SENT),
           "dist_from_curve(params = NULL) -> %d", st);
    if (st == PLD_SUCCESS) pld_dist_free(d);
  }
  /* bad curves */
  pld_curve c = {.delta = dummy_curve, .ctx = NULL, .rel_err = 1e-13,
      .symmetric = 1, .loss_scale = 1.0}, bc;
  bc = c;
  bc.delta = NULL;
  EXPECT_PTR_FAIL(pld_dist *, PLD_EINVAL,
                  pld_dist_from_curve(&bc, 1e-2, &par, &out_));
  bc = c;
  bc.rel_err = NAN;
  EXPECT_PTR_FAIL(pld_dist *, PLD_EINVAL,
                  pld_dist_from_curve(&bc, 1e-2, &par, &out_));
  bc = c;
  bc.loss_scale = 0;
  EXPECT_PTR_FAIL(pld_dist *, PLD_EINVAL,
                  pld_dist_from_curve(&bc, 1e-2, &par, &out_));
  bc = c;
  bc.delta = failing_curve;
  EXPECT_PTR_FAIL(pld_dist *, PLD_ECALLBACK,
                  pld_dist_from_curve(&bc, 1e-2, &par, &out_));

  /* absurd sizes: Laplace b = 1 on Delta = 1e-12 is 2e12 grid points */
  EXPECT_PTR_FAIL(pld_dist *, PLD_ERANGE,
                  pld_dist_from_curve(pld_mech_curve(lap), 1e-12, &par, &out_));
  EXPECT_PTR_FAIL(pld_dist *, PLD_ERANGE,
                  pld_dist_from_curve(gc, 1e-12, &par, &out_));
  EXPECT_PTR_FAIL(pld_dist *, PLD_ERANGE,
                  pld_dist_from_curve(gc, 1e-300, &par, &out_));
  pld_params small = par;
  small.max_grid = 100; /* a Gaussian on Delta = 1e-3 needs ~1e4 points */
  EXPECT_PTR_FAIL(pld_dist *, PLD_ERANGE,
                  pld_dist_from_curve(gc, 1e-3, &small, &out_));

  /* identity */
  for (size_t i = 0; i < N_BAD_POS; i++)
    EXPECT_PTR_FAIL(pld_dist *, PLD_EINVAL,
                    pld_dist_identity(bad_pos[i], &out_));
  EXPECT_STATUS(pld_dist_identity(1e-2, NULL), PLD_EINVAL);
  /* outside the grid range every PLD must have to be saved and loaded */
  EXPECT_PTR_FAIL(pld_dist *, PLD_EINVAL, pld_dist_identity(1001.0, &out_));
  EXPECT_PTR_FAIL(pld_dist *, PLD_EINVAL, pld_dist_identity(1e-10, &out_));

  pld_mech_free(g);
  pld_mech_free(lap);
  pld_dist_free(NULL); /* no-op */
  EXPECT_DONE();
}

static void test_dist_ops(void **state) {
  pld_params par;
  pld_params_default(&par);
  pld_mech *g = NULL;
  pld_dist *a = NULL, *b = NULL;
  REQUIRE_OK(pld_mech_gaussian(1.0, 1.0, &g));
  REQUIRE_OK(pld_dist_from_curve(pld_mech_curve(g), 1e-2, &par, &a));
  REQUIRE_OK(pld_dist_from_curve(pld_mech_curve(g), 2e-2, &par, &b));

  EXPECT_PTR_FAIL(pld_dist *, PLD_EINVAL, pld_dist_copy(NULL, &out_));
  EXPECT_STATUS(pld_dist_copy(a, NULL), PLD_EINVAL);

  EXPECT_PTR_FAIL(pld_dist *, PLD_EINVAL, pld_dist_compose(NULL, a, NULL, &out_));
  EXPECT_PTR_FAIL(pld_dist *, PLD_EINVAL, pld_dist_compose(a, NULL, NULL, &out_));
  EXPECT_STATUS(pld_dist_compose(a, a, NULL, NULL), PLD_EINVAL);
  EXPECT_PTR_FAIL(pld_dist *, PLD_EINCOMPAT, pld_dist_compose(a, b, NULL, &out_));

  EXPECT_PTR_FAIL(pld_dist *, PLD_EINVAL, pld_dist_self_compose(NULL, 2, NULL, &out_));
  EXPECT_PTR_FAIL(pld_dist *, PLD_EINVAL, pld_dist_self_compose(a, 0, NULL, &out_));
  EXPECT_STATUS(pld_dist_self_compose(a, 2, NULL, NULL), PLD_EINVAL);
  /* absurd T: the composed window would need ~1e11..1e20 grid points */
  EXPECT_PTR_FAIL(pld_dist *, PLD_ERANGE,
                  pld_dist_self_compose(a, (uint64_t)1e15, NULL, &out_));
  EXPECT_PTR_FAIL(pld_dist *, PLD_ERANGE,
                  pld_dist_self_compose(a, (uint64_t)1 << 52, NULL, &out_));
  {
    /* beyond what a double counts exactly: out of the domain (EINVAL) or
     * too large (ERANGE) are both acceptable; output untouched */
    pld_dist *o = SENT;
    int st = pld_dist_self_compose(a, UINT64_MAX, NULL, &o);
    EXPECT((st == PLD_EINVAL || st == PLD_ERANGE) && o == SENT,
           "self_compose(T = UINT64_MAX) -> %d", st);
  }

  /* workspace */
  EXPECT_STATUS(pld_workspace_alloc(&par, NULL), PLD_EINVAL);
  pld_workspace_free(NULL);

  /* queries */
  pld_bound bd = {-7, -7};
  EXPECT_STATUS(pld_dist_delta(NULL, 1.0, &bd), PLD_EINVAL);
  EXPECT_STATUS(pld_dist_delta(a, 1.0, NULL), PLD_EINVAL);
  const double bad_eps[] = {-1.0, -1e-300, NAN, -INFINITY};
  for (size_t i = 0; i < 4; i++)
    EXPECT_STATUS(pld_dist_delta(a, bad_eps[i], &bd), PLD_EINVAL);
  EXPECT(bd.lower == -7 && bd.upper == -7, "delta output touched");
  EXPECT_STATUS(pld_dist_delta(a, INFINITY, &bd), PLD_SUCCESS);

  pld_bound be = {-7, -7};
  EXPECT_STATUS(pld_dist_epsilon(NULL, 1e-5, &be), PLD_EINVAL);
  EXPECT_STATUS(pld_dist_epsilon(a, 1e-5, NULL), PLD_EINVAL);
  const double bad_delta[] = {0.0, 1.0, -1.0, NAN, INFINITY, -INFINITY, 2.0};
  for (size_t i = 0; i < 7; i++)
    EXPECT_STATUS(pld_dist_epsilon(a, bad_delta[i], &be), PLD_EINVAL);
  EXPECT(be.lower == -7 && be.upper == -7, "epsilon output touched");

  double eps[4] = {0.0, 0.5, 1.0, 2.0};
  pld_bound out[4];
  for (int i = 0; i < 4; i++) out[i].lower = out[i].upper = -7;
  EXPECT_STATUS(pld_dist_curve(NULL, 4, eps, out), PLD_EINVAL);
  EXPECT_STATUS(pld_dist_curve(a, 4, NULL, out), PLD_EINVAL);
  EXPECT_STATUS(pld_dist_curve(a, 4, eps, NULL), PLD_EINVAL);
  for (size_t i = 0; i < 4; i++) {
    double e2[4] = {0.0, 0.5, bad_eps[i], 2.0};
    EXPECT_STATUS(pld_dist_curve(a, 4, e2, out), PLD_EINVAL);
  }
  int touched = 0;
  for (int i = 0; i < 4; i++) touched |= out[i].lower != -7 || out[i].upper != -7;
  EXPECT(!touched, "curve output touched on failure");
  {
    int st = pld_dist_curve(a, 0, eps, out); /* n = 0: no-op or EINVAL */
    EXPECT(st == PLD_SUCCESS || st == PLD_EINVAL, "curve(n = 0) -> %d", st);
  }

  /* views */
  pld_pmf_view v, v0;
  memset(&v, 0xA5, sizeof v);
  v0 = v;
  EXPECT_STATUS(pld_dist_view(NULL, 0, 0, &v), PLD_EINVAL);
  EXPECT_STATUS(pld_dist_view(a, 2, 0, &v), PLD_EINVAL);
  EXPECT_STATUS(pld_dist_view(a, -1, 0, &v), PLD_EINVAL);
  EXPECT_STATUS(pld_dist_view(a, 0, 2, &v), PLD_EINVAL);
  EXPECT_STATUS(pld_dist_view(a, 0, -1, &v), PLD_EINVAL);
  EXPECT_STATUS(pld_dist_view(a, 0, 0, NULL), PLD_EINVAL);
  EXPECT(memcmp(&v, &v0, sizeof v) == 0, "view output touched on failure");

  /* pure accessors on NULL: must not crash */
  double dd = pld_dist_discretization(NULL);
  EXPECT(!(dd > 0), "pld_dist_discretization(NULL) = %g", dd);
  EXPECT(pld_dist_grid_size(NULL) == 0, "pld_dist_grid_size(NULL) != 0");
  EXPECT(pld_dist_fft_size(NULL) == 0, "pld_dist_fft_size(NULL) != 0");

  pld_dist_free(a);
  pld_dist_free(b);
  pld_mech_free(g);
  EXPECT_DONE();
}

/* ------------------------------------------------------------------------ */
/* Accountant.                                                                */

static int same_bytes(const void *a, const void *b, size_t n) {
  return memcmp(a, b, n) == 0;
}

static void test_accountant(void **state) {
  pld_params par;
  pld_params_default(&par);
  EXPECT_STATUS(pld_accountant_alloc(&par, NULL), PLD_EINVAL);
  EXPECT_STATUS(pld_accountant_alloc(NULL, NULL), PLD_EINVAL);
  pld_accountant *acc = NULL;
  REQUIRE_OK(pld_accountant_alloc(NULL, &acc)); /* NULL = defaults */
  pld_mech *lap = NULL;
  REQUIRE_OK(pld_mech_laplace(1.0, 1.0, &lap));

  pld_result r, r0;
  memset(&r, 0xA5, sizeof r);
  r0 = r;
  /* empty accountant */
  EXPECT_STATUS(pld_accountant_epsilon(acc, 1e-5, &r), PLD_EEMPTY);
  EXPECT_STATUS(pld_accountant_delta(acc, 1.0, &r), PLD_EEMPTY);
  EXPECT(same_bytes(&r, &r0, sizeof r), "result touched on PLD_EEMPTY");
  double e1[1] = {1.0};
  pld_bound b1[1] = {{-7, -7}};
  EXPECT_STATUS(pld_accountant_curve(acc, 1, e1, b1, &r), PLD_EEMPTY);
  EXPECT(b1[0].lower == -7 && b1[0].upper == -7, "curve touched on EEMPTY");
  EXPECT_PTR_FAIL(pld_dist *, PLD_EEMPTY, pld_accountant_compose(acc, 1e-2, &out_));
  EXPECT(pld_accountant_size(acc) == 0, "empty size %zu", pld_accountant_size(acc));

  /* add */
  EXPECT_STATUS(pld_accountant_add(NULL, lap, 1), PLD_EINVAL);
  EXPECT_STATUS(pld_accountant_add(acc, NULL, 1), PLD_EINVAL);
  EXPECT_STATUS(pld_accountant_add(acc, lap, 0), PLD_EINVAL);
  EXPECT(pld_accountant_size(acc) == 0, "size %zu after failed adds",
         pld_accountant_size(acc));
  EXPECT(pld_accountant_size(NULL) == 0, "size(NULL) != 0");
  REQUIRE_OK(pld_accountant_add(acc, lap, 3));

  /* queries with bad arguments */
  EXPECT_STATUS(pld_accountant_epsilon(NULL, 1e-5, &r), PLD_EINVAL);
  EXPECT_STATUS(pld_accountant_epsilon(acc, 1e-5, NULL), PLD_EINVAL);
  const double bad_delta[] = {0.0, 1.0, -1.0, NAN, INFINITY, 1.5};
  for (size_t i = 0; i < 6; i++)
    EXPECT_STATUS(pld_accountant_epsilon(acc, bad_delta[i], &r), PLD_EINVAL);
  EXPECT_STATUS(pld_accountant_delta(NULL, 1.0, &r), PLD_EINVAL);
  EXPECT_STATUS(pld_accountant_delta(acc, 1.0, NULL), PLD_EINVAL);
  const double bad_eps[] = {-1.0, -1e-300, NAN, -INFINITY};
  for (size_t i = 0; i < 4; i++)
    EXPECT_STATUS(pld_accountant_delta(acc, bad_eps[i], &r), PLD_EINVAL);
  EXPECT(same_bytes(&r, &r0, sizeof r), "result touched on PLD_EINVAL");

  pld_bound b3[3];
  for (int i = 0; i < 3; i++) b3[i].lower = b3[i].upper = -7;
  double e3[3] = {0.0, 1.0, 2.0};
  EXPECT_STATUS(pld_accountant_curve(NULL, 3, e3, b3, NULL), PLD_EINVAL);
  EXPECT_STATUS(pld_accountant_curve(acc, 3, NULL, b3, NULL), PLD_EINVAL);
  EXPECT_STATUS(pld_accountant_curve(acc, 3, e3, NULL, NULL), PLD_EINVAL);
  for (size_t i = 0; i < 4; i++) {
    double e3b[3] = {0.0, bad_eps[i], 2.0};
    EXPECT_STATUS(pld_accountant_curve(acc, 3, e3b, b3, &r), PLD_EINVAL);
  }
  int touched = 0;
  for (int i = 0; i < 3; i++) touched |= b3[i].lower != -7 || b3[i].upper != -7;
  EXPECT(!touched && same_bytes(&r, &r0, sizeof r),
         "curve outputs touched on failure");

  for (size_t i = 0; i < N_BAD_POS; i++)
    EXPECT_PTR_FAIL(pld_dist *, PLD_EINVAL,
                    pld_accountant_compose(acc, bad_pos[i], &out_));
  EXPECT_STATUS(pld_accountant_compose(acc, 1e-2, NULL), PLD_EINVAL);
  EXPECT_PTR_FAIL(pld_dist *, PLD_EINVAL,
                  pld_accountant_compose(NULL, 1e-2, &out_));
  /* absurd grid: Laplace b = 1, Delta = 1e-12 */
  EXPECT_PTR_FAIL(pld_dist *, PLD_ERANGE,
                  pld_accountant_compose(acc, 1e-12, &out_));
  {
    pld_params fine = par;
    fine.discretization = 1e-12;
    pld_accountant *a2 = NULL;
    REQUIRE_OK(pld_accountant_alloc(&fine, &a2));
    REQUIRE_OK(pld_accountant_add(a2, lap, 1));
    pld_result rr = r0;
    /* No grid fits, but one Laplace run is answered without one (its
     * exact curve: epsilon(1e-5) = 1 + 2 log(1 - 1e-5), delta(1) = 0). */
    REQUIRE_OK(pld_accountant_epsilon(a2, 1e-5, &rr));
    double ex = 1.0 + 2.0 * log1p(-1e-5);
    EXPECT(rr.bound.lower <= ex && ex <= rr.bound.upper &&
               rr.bound.upper - rr.bound.lower <= 1e-9 &&
               rr.bound_kind != PLD_BOUND_GRID && rr.refinements == 0,
           "Laplace without a grid: [%.17g, %.17g] (kind %d) vs %.17g",
           rr.bound.lower, rr.bound.upper, rr.bound_kind, ex);
    REQUIRE_OK(pld_accountant_delta(a2, 1.0, &rr));
    EXPECT(rr.bound.lower == 0.0 && rr.bound.upper <= 1e-14,
           "Laplace delta(1) without a grid: [%g, %g]", rr.bound.lower,
           rr.bound.upper);
    /* A selection has no grid-free bound: then no grid is an error. */
    pld_accountant *a4 = NULL;
    const pld_accountant *mem[1] = {a2};
    const double w1[1] = {1.0};
    REQUIRE_OK(pld_accountant_alloc(&fine, &a4));
    REQUIRE_OK(pld_accountant_add_selection(a4, 1, mem, w1, 1));
    rr = r0;
    EXPECT_STATUS(pld_accountant_epsilon(a4, 1e-5, &rr), PLD_ERANGE);
    EXPECT_STATUS(pld_accountant_delta(a4, 1.0, &rr), PLD_ERANGE);
    EXPECT(same_bytes(&rr, &r0, sizeof rr), "result touched on PLD_ERANGE");
    pld_accountant_free(a4);
    pld_accountant_free(a2);
  }

  /* count overflow: counts of identical mechanisms add up */
  {
    pld_accountant *a3 = NULL;
    REQUIRE_OK(pld_accountant_alloc(NULL, &a3));
    /* a single count beyond 2^53 may be refused as out of the domain */
    int st = pld_accountant_add(a3, lap, UINT64_MAX);
    EXPECT(st == PLD_EINVAL || st == PLD_ERANGE, "add(UINT64_MAX) -> %d", st);
    EXPECT(pld_accountant_size(a3) == 0, "size changed on a refused add");
    /* totals that overflow (in uint64 or beyond the library's cap) */
    const uint64_t big[2] = {UINT64_MAX - 1, ((uint64_t)1 << 53) - 1};
    for (int i = 0; i < 2; i++) {
      st = pld_accountant_add(a3, lap, big[i]);
      if (st != PLD_SUCCESS) continue; /* too big on its own: seen above */
      EXPECT_STATUS(pld_accountant_add(a3, lap, 5), PLD_ERANGE);
      EXPECT(pld_accountant_size(a3) == 1, "size %zu after PLD_ERANGE",
             pld_accountant_size(a3));
      break;
    }
    EXPECT(pld_accountant_size(a3) == 1, "no count near 2^53 accepted");
    pld_accountant_free(a3);
  }

  /* a failing user callback surfaces as PLD_ECALLBACK */
  {
    pld_curve fc = {.delta = failing_curve, .ctx = NULL, .rel_err = 1e-13,
      .symmetric = 1, .loss_scale = 1.0};
    pld_mech *fm = NULL;
    REQUIRE_OK(pld_mech_from_curve(&fc, &fm));
    pld_accountant *a4 = NULL;
    REQUIRE_OK(pld_accountant_alloc(NULL, &a4));
    REQUIRE_OK(pld_accountant_add(a4, fm, 2));
    pld_result rr = r0;
    EXPECT_STATUS(pld_accountant_epsilon(a4, 1e-5, &rr), PLD_ECALLBACK);
    EXPECT(same_bytes(&rr, &r0, sizeof rr), "result touched on ECALLBACK");
    double dv = -7;
    /* pld_mech_delta documents only SUCCESS/EINVAL; a failing callback
     * must give an error (ECALLBACK, or EINVAL) with the output untouched */
    int st = pld_mech_delta(fm, PLD_DIR_PQ, 1.0, &dv);
    EXPECT((st == PLD_ECALLBACK || st == PLD_EINVAL) && dv == -7,
           "mech_delta with failing callback -> %d, output %g", st, dv);
    pld_accountant_free(a4);
    pld_mech_free(fm);
  }

  pld_mech_free(lap);
  pld_accountant_free(acc);
  pld_accountant_free(NULL); /* no-op */
  EXPECT_DONE();
}

/* best.h, pld_accountant_get_params, pld_bound_kind_name. */
static void test_best(void **state) {
  (void)state;
  pld_accountant *acc = NULL;
  pld_mech *lap = NULL;
  pld_rdp_curve *cv = NULL;
  REQUIRE_OK(pld_accountant_alloc(NULL, &acc));
  REQUIRE_OK(pld_mech_laplace(1.0, 1.0, &lap));
  REQUIRE_OK(pld_rdp_curve_alloc_default(&cv));
  pld_result r0, r;
  memset(&r0, 0x5a, sizeof r0);
  r = r0;
  /* empty, NULL, bad delta/epsilon: the accountant's codes, out untouched */
  EXPECT_STATUS(pld_best_epsilon(acc, cv, 1e-5, &r), PLD_EEMPTY);
  REQUIRE_OK(pld_accountant_add(acc, lap, 10));
  REQUIRE_OK(pld_rdp_add_laplace(cv, 1.0, 1.0, 10));
  EXPECT_STATUS(pld_best_epsilon(NULL, cv, 1e-5, &r), PLD_EINVAL);
  EXPECT_STATUS(pld_best_epsilon(acc, cv, 1e-5, NULL), PLD_EINVAL);
  const double bad_delta[5] = {0.0, 1.0, -1e-5, NAN, INFINITY};
  for (size_t i = 0; i < 5; i++)
    EXPECT_STATUS(pld_best_epsilon(acc, cv, bad_delta[i], &r), PLD_EINVAL);
  EXPECT_STATUS(pld_best_delta(acc, cv, -1.0, &r), PLD_EINVAL);
  EXPECT_STATUS(pld_best_delta(acc, cv, NAN, &r), PLD_EINVAL);
  EXPECT(same_bytes(&r, &r0, sizeof r), "result touched on failure");
  double e2[2] = {0.5, NAN};
  pld_bound b2[2] = {{-7, -7}, {-7, -7}};
  EXPECT_STATUS(pld_best_curve(acc, cv, 2, e2, b2, &r), PLD_EINVAL);
  EXPECT_STATUS(pld_best_curve(acc, cv, 0, e2, b2, &r), PLD_EINVAL);
  EXPECT_STATUS(pld_best_curve(acc, cv, 1, NULL, b2, &r), PLD_EINVAL);
  EXPECT(b2[0].lower == -7 && same_bytes(&r, &r0, sizeof r),
         "curve outputs touched on failure");
  /* rdp NULL is the accountant's answer, bit for bit */
  pld_result a, b;
  REQUIRE_OK(pld_accountant_epsilon(acc, 1e-5, &a));
  REQUIRE_OK(pld_best_epsilon(acc, NULL, 1e-5, &b));
  EXPECT(same_bytes(&a, &b, sizeof a), "best with no RDP differs");
  /* with the events' RDP: never looser, the same lower end */
  REQUIRE_OK(pld_best_epsilon(acc, cv, 1e-5, &b));
  EXPECT(b.bound.upper <= a.bound.upper && b.bound.lower == a.bound.lower,
         "best [%g, %g] vs accountant [%g, %g]", b.bound.lower, b.bound.upper,
         a.bound.lower, a.bound.upper);
  /* get_params */
  pld_params p;
  EXPECT_STATUS(pld_accountant_get_params(NULL, &p), PLD_EINVAL);
  EXPECT_STATUS(pld_accountant_get_params(acc, NULL), PLD_EINVAL);
  REQUIRE_OK(pld_accountant_get_params(acc, &p));
  /* pld_best_lower_upper on the accountant's own answer gives
   * pld_best_epsilon's; bad arguments leave the answer untouched */
  pld_result c = a;
  EXPECT_STATUS(pld_best_lower_upper(NULL, cv, 0, 1e-5, &p), PLD_EINVAL);
  EXPECT_STATUS(pld_best_lower_upper(&c, NULL, 0, 1e-5, &p), PLD_EINVAL);
  EXPECT_STATUS(pld_best_lower_upper(&c, cv, 0, 1e-5, NULL), PLD_EINVAL);
  EXPECT_STATUS(pld_best_lower_upper(&c, cv, 0, NAN, &p), PLD_EINVAL);
  EXPECT_STATUS(pld_best_lower_upper(&c, cv, 1, -1.0, &p), PLD_EINVAL);
  EXPECT(same_bytes(&c, &a, sizeof c), "lower_upper touched r on failure");
  REQUIRE_OK(pld_best_lower_upper(&c, cv, 0, 1e-5, &p));
  EXPECT(same_bytes(&c, &b, sizeof c), "lower_upper differs from best");
  pld_params d;
  pld_params_default(&d);
  EXPECT(p.discretization == d.discretization && p.accuracy == d.accuracy &&
             p.abs_accuracy == d.abs_accuracy && p.tail_mass == d.tail_mass &&
             p.max_grid == d.max_grid && p.fftw_flags == d.fftw_flags,
         "get_params differs from the defaults");
  /* names */
  EXPECT(strcmp(pld_bound_kind_name(PLD_BOUND_GRID), "grid") == 0 &&
             strcmp(pld_bound_kind_name(PLD_BOUND_MOMENTS), "moments") == 0 &&
             strcmp(pld_bound_kind_name(PLD_BOUND_NONE), "none") == 0 &&
             strcmp(pld_bound_kind_name(-1), "unknown") == 0 &&
             strcmp(pld_bound_kind_name(99), "unknown") == 0,
         "bound kind names");
  pld_rdp_curve_free(cv);
  pld_mech_free(lap);
  pld_accountant_free(acc);
  EXPECT_DONE();
}

/* One EVENT argument is one update: a '+' list whose second event is bad
 * (or whose second event's count would pass 2^53) leaves the accountant
 * and the RDP curve exactly as they were, though its first event was
 * fine and matches a group the accountant already holds. */
static void test_event_update(void **state) {
  (void)state;
  pld_accountant *acc = NULL;
  pld_rdp_curve *cv = NULL;
  pld_mech *g = NULL, *l = NULL;
  REQUIRE_OK(pld_accountant_alloc(NULL, &acc));
  REQUIRE_OK(pld_mech_gaussian(2.0, 1.0, &g));
  REQUIRE_OK(pld_mech_laplace(1.0, 1.0, &l));
  REQUIRE_OK(pld_accountant_add(acc, g, 1));
  REQUIRE_OK(pld_accountant_add(acc, l, (uint64_t)1 << 53));
  REQUIRE_OK(pld_rdp_curve_alloc_default(&cv));
  REQUIRE_OK(pld_rdp_add_gaussian(cv, 2.0, 1.0, 1));
  size_t n = pld_rdp_curve_size(cv);
  double *before = malloc(n * sizeof *before);
  memcpy(before, pld_rdp_curve_values(cv), n * sizeof *before);
  pld_result r0, r;
  REQUIRE_OK(pld_accountant_epsilon(acc, 1e-5, &r0));
  const char *bad[] = {"gaussian:sigma=2+laplace:b=-1",
                       "gaussian:sigma=2,count=3+gaussian:sigma=0",
                       "gaussian:sigma=2+laplace:b=1"}; /* 2^53 + 1 runs */
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    pld_event *ev = NULL;
    int rc = pld_event_parse(bad[i], &ev);
    if (rc == PLD_SUCCESS) {
      rc = pld_event_add_to(ev, acc);
      pld_event_free(ev);
    }
    EXPECT(rc != PLD_SUCCESS && pld_error_detail()[0] != '\0',
           "%s was accepted", bad[i]);
    EXPECT(pld_accountant_size(acc) == 2, "%s left %zu groups", bad[i],
           pld_accountant_size(acc));
    REQUIRE_OK(pld_accountant_epsilon(acc, 1e-5, &r));
    EXPECT(r.bound.upper == r0.bound.upper && r.bound.lower == r0.bound.lower,
           "%s changed the answer: %.17g -> %.17g", bad[i], r0.bound.upper,
           r.bound.upper);
    EXPECT(memcmp(before, pld_rdp_curve_values(cv), n * sizeof *before) == 0,
           "%s changed the RDP curve", bad[i]);
  }
  free(before);
  pld_rdp_curve_free(cv);
  pld_accountant_free(acc);
  pld_mech_free(g);
  pld_mech_free(l);
  EXPECT_DONE();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_best),
      cmocka_unit_test(test_strerror),
      cmocka_unit_test(test_params),
      cmocka_unit_test(test_mech_constructors),
      cmocka_unit_test(test_mech_queries),
      cmocka_unit_test(test_dist_build),
      cmocka_unit_test(test_dist_ops),
      cmocka_unit_test(test_accountant),
      cmocka_unit_test(test_event_update),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
