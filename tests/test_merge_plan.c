/* The merge planner in the library (pld_merge_plan_compute, merge.h).
 *
 * References:
 *  - the numbers `pldkit merge` printed before the planner moved into the
 *    library (commit 3039fd7, --json, full precision), pinned here: every
 *    path that did not change must give them to the last bit; the RS PLD
 *    points, now read off the members composed once and mixed, must give a
 *    bracket consistent with the old certified one on both sides (new
 *    upper >= old lower, new lower <= old upper) and an upper end within
 *    the requested accuracy of the old one;
 *  - independent identities: a merge that puts all weight on one run (RS
 *    with one member, LC with lambda = e_i) is that run's own Poisson-
 *    Gaussian composition (pld_mech_poisson_gaussian, sensitivity 1, noise
 *    multiplier sigma; LC: Delta/s = lr C / (lr sigma C) = 1/sigma), so its
 *    bracket must overlap the run's own bracket (computed separately, at the
 *    default 0.2% accuracy) and its upper end lie within 1% + 0.2% of it;
 *    advanced composition recomputed from its formula here in long double.
 */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <pldkit/event.h>
#include <pldkit/merge.h>
#include <pldkit/pldkit.h>

#define Q_MNIST 0.004266666666666667

/* tests/data/mnist_merge.json */
static const pld_merge_run mnist3[3] = {
    {Q_MNIST, 0.5, 1.0, 0.1, 705},
    {Q_MNIST, 0.5, 2.0, 0.1, 705},
    {Q_MNIST, 2.0, 1.0, 0.1, 705},
};
/* tests/test_merge_cli.sh's two.json (the more private run first) */
static const pld_merge_run mnist2[2] = {
    {Q_MNIST, 2.0, 1.0, 0.1, 705},
    {Q_MNIST, 0.5, 1.0, 0.1, 705},
};

struct pinned {
  double w[3];
  double upper[4], lower[4]; /* rs_pld, rs_rdp, lc_pld, lc_rdp */
};

/* pldkit merge --config tests/data/mnist_merge.json --resolution 2 --json */
static const struct pinned pin3[6] = {
    {{0, 0, 1}, {0.2042221539510332, 0.24649203908043368, 0.20435802173120485, 0.24649203915084386}, {0.2042178544502323, NAN, 0.20394640670360276, NAN}},
    {{0, 0.5, 0.5}, {6.04078224491186, 7.500667978228119, 0.6919150252903147, 0.9847524445349735}, {6.025256598367961, NAN, 0.686535496762201, NAN}},
    {{0, 1, 0}, {6.458197644730955, 7.8987317530077865, 6.458267965295028, 7.898731753140842}, {6.44266193218681, NAN, 6.444032263579515, NAN}},
    {{0.5, 0, 0.5}, {6.04078224491186, 7.500667978228119, 0.4191663749869728, 0.5019859099404902}, {6.025256598367961, NAN, 0.4183066934933658, NAN}},
    {{0.5, 0.5, 0}, {6.458197644730955, 7.8987317530077865, 4.863398655605349, 6.057024556886932}, {6.442661932186809, NAN, 4.858216161621328, NAN}},
    {{1, 0, 0}, {6.458197644730955, 7.8987317530077865, 6.458267965295028, 7.898731753140842}, {6.44266193218681, NAN, 6.444032263579515, NAN}},
};
/* pldkit merge --config two.json --resolution 4 --json */
static const struct pinned pin2[5] = {
    {{0, 1}, {0.2042221539510332, 0.24649203908043368, 0.20435802173120485, 0.24649203915084386}, {0.2042178544502323, NAN, 0.20394640670360276, NAN}},
    {{0.25, 0.75}, {5.6201920167522, 7.132329762208484, 0.2709622059916761, 0.30432258143566565}, {5.604669471242261, NAN, 0.27040218691308826, NAN}},
    {{0.5, 0.5}, {6.04078224491186, 7.500667978228118, 0.4191663749869728, 0.5019859099404902}, {6.025256598367961, NAN, 0.4183066934933658, NAN}},
    {{0.75, 0.25}, {6.285307326987224, 7.730869237287701, 1.1768500178128969, 1.7725026658016156}, {6.2697769703327095, NAN, 1.167532338551946, NAN}},
    {{1, 0}, {6.458197644730955, 7.8987317530077865, 6.458267965295028, 7.898731753140842}, {6.44266193218681, NAN, 6.444032263579515, NAN}},
};

/* A PLD bracket against a pinned one of the same certified quantity (the
 * accountant's grid and tilt choices may change): the brackets overlap and
 * the upper end moves by less than the 1% accuracy the plans ask for. */
#define bracket_near(b, ou, ol)                                             \
  do {                                                                      \
    pld_bound b_ = (b);                                                     \
    assert_true(b_.lower <= b_.upper);                                      \
    assert_true(b_.upper >= (ol) && b_.lower <= (ou));                      \
    assert_true(fabs(b_.upper - (ou)) <= 0.01 * (ou));                      \
  } while (0)

static void check_point(const pld_merge_report *R, size_t g,
                        const struct pinned *p)
{
  const pld_merge_point *P = &R->points[g];
  for (size_t i = 0; i < R->n; i++)
    assert_true(R->weights[g * R->n + i] == p->w[i]);
  /* unchanged paths: the same bits */
  assert_true(P->upper[PLD_MERGE_RS_RDP] == p->upper[1]);
  /* LC PLD: the accountant's composition may pick other grids and tilts
   * than when these were pinned; the same certified quantity */
  pld_bound lc = {P->lower[PLD_MERGE_LC_PLD], P->upper[PLD_MERGE_LC_PLD]};
  bracket_near(lc, p->upper[2], p->lower[2]);
  /* LC RDP: the mixture quadrature moved to GSL's CQUAD (src/quad.c) with
   * its error booked upward, so the value may rise by the booked margin
   * (<= 1.3e-10 relative at order 64), never fall */
  assert_true(P->upper[PLD_MERGE_LC_RDP] >= p->upper[3]);
  assert_true(P->upper[PLD_MERGE_LC_RDP] <= p->upper[3] * (1.0 + 1e-9));
  assert_true(isnan(P->lower[PLD_MERGE_RS_RDP]));
  assert_true(isnan(P->lower[PLD_MERGE_LC_RDP]));
  /* RS PLD: another grid, the same certified quantity */
  double nu = P->upper[PLD_MERGE_RS_PLD], nl = P->lower[PLD_MERGE_RS_PLD];
  assert_true(nl <= nu);
  assert_true(nu >= p->lower[0]);
  assert_true(nl <= p->upper[0]);
  assert_true(nu <= p->upper[0] * (1.0 + R->accuracy));
  for (int m = 0; m < PLD_MERGE_N_METHODS; m++) {
    assert_int_equal(P->feasible[m], P->upper[m] <= R->epsilon);
    assert_true(P->met_accuracy[m]);
  }
}

/* the run's own eps(delta) at the default accuracy (independent path:
 * pld_mech_poisson_gaussian in a fresh accountant) */
static pld_bound own_bound(const pld_merge_run *r, double delta)
{
  pld_mech *m = NULL;
  pld_accountant *a = NULL;
  pld_result res;
  assert_int_equal(pld_mech_poisson_gaussian(r->q, r->sigma, 1.0, &m), 0);
  assert_int_equal(pld_accountant_alloc(NULL, &a), 0);
  assert_int_equal(pld_accountant_add(a, m, r->steps), 0);
  assert_int_equal(pld_accountant_epsilon(a, delta, &res), 0);
  pld_accountant_free(a);
  pld_mech_free(m);
  return res.bound;
}

/* a single-run merge (RS or LC) against the run's own bracket */
static void check_single(double up, double lo, pld_bound own, double acc)
{
  assert_true(up >= own.lower);
  assert_true(lo <= own.upper);
  assert_true(up <= own.upper * (1.0 + acc + 0.002));
}

struct prog_log {
  unsigned calls;
  double last;
  int monotone;
};

static void prog_cb(void *ctx, double f, const char *stage)
{
  struct prog_log *L = ctx;
  assert_non_null(stage);
  if (!(f >= L->last && f <= 1.0))
    L->monotone = 0;
  L->last = f;
  L->calls++;
}

/* A plan of n of the MNIST runs at delta' = 1e-5, everything else default. */
static pld_merge_plan mnist_plan(const pld_merge_run *runs, size_t n,
                                 double epsilon, unsigned resolution)
{
  pld_merge_plan plan;
  memset(&plan, 0, sizeof plan);
  plan.runs = runs;
  plan.n = n;
  plan.epsilon = epsilon;
  plan.delta = 1e-5;
  plan.resolution = resolution;
  return plan;
}

static void test_two_runs_pinned(void **state)
{
  (void)state;
  pld_merge_plan plan = mnist_plan(mnist2, 2, 2.0, 4);
  struct prog_log L = {0, 0.0, 1};
  plan.progress = prog_cb;
  plan.progress_ctx = &L;
  pld_merge_report *R = NULL;
  assert_int_equal(pld_merge_plan_compute(&plan, &R), PLD_SUCCESS);
  assert_non_null(R);
  assert_true(L.calls > 5 && L.monotone && L.last == 1.0);
  assert_int_equal(R->n, 2);
  assert_int_equal(R->resolution, 4);
  assert_true(R->accuracy == 0.01);
  /* sorted: the sigma = 0.5 run (config index 1) first */
  assert_int_equal(R->order[0], 1);
  assert_int_equal(R->order[1], 0);
  assert_true(R->runs[0].sigma == 0.5);
  bracket_near(R->own_eps[0], 6.458183192606607, 6.4490987650744005);
  bracket_near(R->own_eps[1], 0.20435236813872973, 0.2039581141029126);
  bracket_near(R->joint_pld, 6.463032093050539, 6.452928292661976);
  assert_true(R->joint_rdp == 7.9034742810427625);
  assert_true(fabs(R->adv_eps - 10654.07394951299) <= 0.01 * 10654.07394951299); /* from the PLD per-step eps: see bracket_near */
  assert_true(fabs(R->adv_eps_i[0] - 7.285153613422108) <= 0.01 * 7.285153613422108); /* from the PLD per-step eps: see bracket_near */
  assert_true(fabs(R->adv_eps_i[1] - 0.22758316690980765) <= 0.01 * 0.22758316690980765); /* from the PLD per-step eps: see bracket_near */
  assert_true(R->adv_delta == 1e-5);
  assert_true(R->max_weight[PLD_MERGE_RS_PLD] == 0.0008752346038818359);
  assert_true(R->max_weight[PLD_MERGE_RS_RDP] == 0.0);
  assert_true(R->max_weight[PLD_MERGE_LC_PLD] == 0.79949951171875);
  assert_true(R->max_weight[PLD_MERGE_LC_RDP] == 0.763916015625);
  assert_int_equal(R->n_points, 5);
  for (size_t g = 0; g < 5; g++)
    check_point(R, g, &pin2[g]);
  assert_int_equal(R->warnings, 0u);

  /* advanced composition from its formula, in long double (Prop. 7.1):
   * sqrt(2 log(1/delta0) sum eps_i^2) + sum eps_i (e^eps_i - 1) */
  long double s2 = 0, lin = 0;
  for (int i = 0; i < 2; i++) {
    long double e = R->adv_eps_i[i];
    s2 += e * e;
    lin += e * expm1l(e);
  }
  long double adv = sqrtl(2.0L * -logl(5e-6L) * s2) + lin;
  assert_true(R->adv_eps >= (double)adv);
  assert_true(R->adv_eps <= (double)adv * (1.0 + 1e-13));

  /* w0 = 0: everything on the sigma = 2 run; w0 = 1: on the sigma = 0.5
   * run; RS and LC PLD then equal that run's own composition */
  for (int end = 0; end < 2; end++) {
    const pld_merge_point *P = &R->points[end ? 4 : 0];
    pld_bound own = own_bound(&R->runs[end ? 0 : 1], 1e-5);
    check_single(P->upper[PLD_MERGE_RS_PLD], P->lower[PLD_MERGE_RS_PLD], own,
                 R->accuracy);
    check_single(P->upper[PLD_MERGE_LC_PLD], P->lower[PLD_MERGE_LC_PLD], own,
                 R->accuracy);
  }
  /* the largest weights are feasible: recheck with pld_merge_epsilon */
  for (int m = 0; m < PLD_MERGE_N_METHODS; m++) {
    double w0 = R->max_weight[m], w[2] = {w0, 1.0 - w0}, e;
    assert_true(w0 >= 0.0 && w0 < 1.0);
    pld_params p;
    pld_params_default(&p);
    p.accuracy = 0.01;
    assert_int_equal(
        pld_merge_epsilon(2, R->runs, w, m, 1e-5, &p, &e), PLD_SUCCESS);
    /* RS PLD was searched on another grid: certified both, allow the
     * accuracy between them */
    assert_true(e <= 2.0 * (m == PLD_MERGE_RS_PLD ? 1.0 + R->accuracy : 1.0));
  }
  pld_merge_report_free(R);
}

static void test_three_runs_pinned(void **state)
{
  (void)state;
  pld_merge_plan plan = mnist_plan(mnist3, 3, 2.0, 2);
  pld_merge_report *R = NULL;
  assert_int_equal(pld_merge_plan_compute(&plan, &R), PLD_SUCCESS);
  assert_int_equal(R->n_points, 6);
  for (int i = 0; i < 3; i++)
    assert_int_equal(R->order[i], (size_t)i);
  bracket_near(R->joint_pld, 7.926748528425281, 7.916209219765998);
  assert_true(R->joint_rdp == 9.479255724363968);
  assert_true(fabs(R->adv_eps - 27947.071261345332) <= 0.01 * 27947.071261345332); /* from the PLD per-step eps: see bracket_near */
  for (size_t g = 0; g < 6; g++)
    check_point(R, g, &pin3[g]);
  /* the planner's LC RDP prunes orders by lower bounds (merge_eval.c):
   * bit for bit the minimum over every default order */
  for (size_t g = 0; g < 6; g++) {
    double full;
    assert_int_equal(pld_merge_epsilon(3, R->runs, R->weights + 3 * g,
                                       PLD_MERGE_LC_RDP, 1e-5, NULL, &full),
                     PLD_SUCCESS);
    assert_true(R->points[g].upper[PLD_MERGE_LC_RDP] == full);
  }
  for (int m = 0; m < PLD_MERGE_N_METHODS; m++)
    assert_true(isnan(R->max_weight[m]));
  pld_merge_report_free(R);
}

/* The grid on several threads (pld_merge_plan.threads): every number of
 * the report the same bit for bit as on one, progress from the calling
 * thread only and still monotone. */
static pthread_t caller;
static int progress_elsewhere;
static void prog_thread_cb(void *ctx, double f, const char *stage)
{
  (void)stage;
  if (!pthread_equal(pthread_self(), caller))
    progress_elsewhere = 1;
  prog_cb(ctx, f, stage);
}

static void test_threads_same_report(void **state)
{
  (void)state;
  pld_merge_plan plan = mnist_plan(mnist3, 3, 2.0, 3);
  pld_merge_report *A = NULL, *B = NULL;
  assert_int_equal(pld_merge_plan_compute(&plan, &A), PLD_SUCCESS);
  struct prog_log L = {0, 0.0, 1};
  caller = pthread_self();
  plan.progress = prog_thread_cb;
  plan.progress_ctx = &L;
  plan.threads = 3;
  assert_int_equal(pld_merge_plan_compute(&plan, &B), PLD_SUCCESS);
  assert_true(L.calls > 5 && L.monotone && L.last == 1.0);
  assert_false(progress_elsewhere);
  assert_int_equal(A->n_points, B->n_points);
  assert_int_equal(A->warnings, B->warnings);
  for (size_t g = 0; g < A->n_points; g++)
    for (int m = 0; m < PLD_MERGE_N_METHODS; m++) {
      const pld_merge_point *a = &A->points[g], *b = &B->points[g];
      assert_memory_equal(&a->upper[m], &b->upper[m], sizeof(double));
      assert_memory_equal(&a->lower[m], &b->lower[m], sizeof(double));
      assert_int_equal(a->met_accuracy[m], b->met_accuracy[m]);
      assert_int_equal(a->feasible[m], b->feasible[m]);
    }
  /* and the baselines and own epsilons, computed as jobs on the threads */
  assert_memory_equal(&A->joint_pld, &B->joint_pld, sizeof A->joint_pld);
  assert_memory_equal(&A->joint_rdp, &B->joint_rdp, sizeof A->joint_rdp);
  assert_memory_equal(&A->adv_eps, &B->adv_eps, sizeof A->adv_eps);
  assert_memory_equal(A->adv_eps_i, B->adv_eps_i, sizeof A->adv_eps_i);
  assert_memory_equal(A->own_eps, B->own_eps, sizeof A->own_eps);
  assert_memory_equal(A->order, B->order, sizeof A->order);
  pld_merge_report_free(A);
  pld_merge_report_free(B);
  /* more threads than points, and beyond the cap: capped, same answers */
  plan.resolution = 1;
  plan.progress = NULL;
  plan.threads = 1;
  assert_int_equal(pld_merge_plan_compute(&plan, &A), PLD_SUCCESS);
  plan.threads = 1000;
  assert_int_equal(pld_merge_plan_compute(&plan, &B), PLD_SUCCESS);
  for (size_t g = 0; g < A->n_points; g++)
    assert_memory_equal(A->points[g].upper, B->points[g].upper,
                        sizeof A->points[g].upper);
  pld_merge_report_free(A);
  pld_merge_report_free(B);
}

static void test_warnings(void **state)
{
  (void)state;
  pld_merge_plan plan = mnist_plan(mnist2, 2, 1e-3, 1); /* below every method's epsilon */
  pld_merge_report *R = NULL;
  assert_int_equal(pld_merge_plan_compute(&plan, &R), PLD_SUCCESS);
  assert_true(R->warnings & PLD_MERGE_WARN_INFEASIBLE);
  assert_true(R->warnings & PLD_MERGE_WARN_NO_WEIGHT);
  for (int m = 0; m < PLD_MERGE_N_METHODS; m++)
    assert_true(R->max_weight[m] == -1.0);
  assert_true(strlen(pld_merge_warning_text(PLD_MERGE_WARN_INFEASIBLE)) > 0);
  assert_string_equal(pld_merge_warning_text(1u << 30), "");
  pld_merge_report_free(R);
}

static void test_bad_input(void **state)
{
  (void)state;
  pld_merge_report *R = (pld_merge_report *)(uintptr_t)1; /* untouched */
  pld_merge_plan plan;
  memset(&plan, 0, sizeof plan);
  plan.runs = mnist2;
  plan.n = 2;
  plan.epsilon = 1.0;
  plan.delta = 1e-5;
  assert_int_equal(pld_merge_plan_compute(NULL, &R), PLD_EINVAL);
  assert_int_equal(pld_merge_plan_compute(&plan, NULL), PLD_EINVAL);
  pld_merge_plan b = plan;
  b.n = 0;
  assert_int_equal(pld_merge_plan_compute(&b, &R), PLD_EINVAL);
  b = plan;
  b.n = PLD_MERGE_MAX_RUNS + 1;
  assert_int_equal(pld_merge_plan_compute(&b, &R), PLD_EINVAL);
  b = plan;
  b.delta = 1.0;
  assert_int_equal(pld_merge_plan_compute(&b, &R), PLD_EINVAL);
  b = plan;
  b.epsilon = 0.0;
  assert_int_equal(pld_merge_plan_compute(&b, &R), PLD_EINVAL);
  b = plan;
  b.epsilon = INFINITY;
  assert_int_equal(pld_merge_plan_compute(&b, &R), PLD_EINVAL);
  b = plan;
  b.accuracy = 1.0;
  assert_int_equal(pld_merge_plan_compute(&b, &R), PLD_EINVAL);
  b = plan;
  b.resolution = PLD_MERGE_MAX_RESOLUTION + 1;
  assert_int_equal(pld_merge_plan_compute(&b, &R), PLD_EINVAL);
  pld_merge_run bad[2] = {mnist2[0], mnist2[1]};
  bad[1].q = 1.5;
  b = plan;
  b.runs = bad;
  assert_int_equal(pld_merge_plan_compute(&b, &R), PLD_EINVAL);
  bad[1] = mnist2[1];
  bad[1].steps = 0;
  assert_int_equal(pld_merge_plan_compute(&b, &R), PLD_EINVAL);
  assert_true(R == (pld_merge_report *)(uintptr_t)1);
  /* too many points: C(10000 + 4, 4) */
  b = plan;
  b.runs = mnist3;
  b.n = 3;
  b.resolution = PLD_MERGE_MAX_RESOLUTION;
  assert_int_equal(pld_merge_plan_compute(&b, &R), PLD_ERANGE);
  size_t c = 7;
  assert_int_equal(pld_merge_grid_size(3, 10, &c), PLD_SUCCESS);
  assert_int_equal(c, 66);
  assert_int_equal(pld_merge_grid_size(2, 20, &c), PLD_SUCCESS);
  assert_int_equal(c, 21);
  assert_int_equal(pld_merge_grid_size(5, 10000, &c), PLD_ERANGE);
  assert_int_equal(pld_merge_grid_size(0, 10, &c), PLD_EINVAL);
  assert_int_equal(pld_merge_grid_size(2, 0, &c), PLD_EINVAL);
  assert_int_equal(c, 21);
  pld_merge_report_free(NULL);
}


/* The merge-lc EVENT of the catalogue: against pld_merge_lc_accountant
 * (the same runs aligned, T steps), against the single run's
 * Poisson-Gaussian composition at lambda = (1, 0) (an independent
 * mechanism: the LC pair of one run is (1-q) N(0, s^2) + q N(Delta, s^2)
 * vs N(0, s^2), Delta/s = 1/sigma), its RDP against pld_merge_lc_rdp, and
 * a bad event. */
static pld_bound event_eps(const char *ev, unsigned backend, double *rdp)
{
  pld_event_query q;
  pld_event_query_default(&q);
  q.backend = backend;
  pld_event_answer a;
  a.size = sizeof a;
  pld_event *t = NULL;
  assert_int_equal(pld_event_parse(ev, &t), PLD_SUCCESS);
  assert_int_equal(pld_event_epsilon(t, &q, 1e-5, &a), PLD_SUCCESS);
  pld_event_free(t);
  if (rdp)
    *rdp = a.rdp.value;
  return a.pld.bound;
}

static void test_lc_event(void **state)
{
  (void)state;
  const pld_merge_run runs[2] = {{0.01, 1.0, 1.0, 0.1, 100},
                                 {0.01, 1.2, 1.0, 0.1, 100}};
  const double lam[2] = {0.5, 0.5};
  pld_accountant *a = NULL;
  pld_result r;
  assert_int_equal(pld_merge_lc_accountant(2, runs, lam, NULL, &a), 0);
  assert_int_equal(pld_accountant_epsilon(a, 1e-5, &r), 0);
  pld_accountant_free(a);
  pld_bound e = event_eps("merge-lc:lambda=0.5;0.5,q=0.01;0.01,sigma=1;1.2,"
                          "clip=1;1,lr=0.1;0.1,count=100",
                          PLD_EVENT_BACKEND_PLD, NULL);
  assert_true(e.upper >= r.bound.lower && e.lower <= r.bound.upper);
  assert_true(e.upper <= r.bound.upper * 1.002);
  assert_true(r.bound.upper <= e.upper * 1.002);
  /* lambda is scale-free: (2, 2) is (0.5, 0.5) */
  pld_bound e2 = event_eps("merge-lc:lambda=2;2,q=0.01;0.01,sigma=1;1.2,"
                           "clip=1;1,lr=0.1;0.1,count=100",
                           PLD_EVENT_BACKEND_PLD, NULL);
  assert_true(e2.upper >= e.lower && e2.lower <= e.upper);

  /* lambda = (1, 0): the first run alone, 1000 Poisson-Gaussian steps */
  pld_bound one = event_eps("merge-lc:lambda=1;0,q=0.01;0.02,sigma=1;1.2,"
                            "count=1000",
                            PLD_EVENT_BACKEND_PLD, NULL);
  pld_merge_run pg = {0.01, 1.0, 1.0, 1.0, 1000};
  pld_bound own = own_bound(&pg, 1e-5);
  assert_true(one.upper >= own.lower && one.lower <= own.upper);
  assert_true(one.upper <= own.upper * 1.004);
  assert_true(own.upper <= one.upper * 1.004);

  /* RDP backend: pld_merge_lc_rdp on the default orders, best conversion */
  double ev_rdp;
  (void)event_eps("merge-lc:lambda=0.5;0.5,q=0.01;0.01,sigma=1;1.2,"
                  "clip=1;1,lr=0.1;0.1,count=100",
                  PLD_EVENT_BACKEND_RDP, &ev_rdp);
  pld_rdp_curve *c = NULL;
  pld_rdp_result rr;
  assert_int_equal(pld_rdp_curve_alloc_default(&c), 0);
  assert_int_equal(pld_merge_lc_rdp(2, runs, lam, c), 0);
  assert_int_equal(pld_rdp_epsilon(c, 1e-5, PLD_RDP_BEST, &rr), 0);
  pld_rdp_curve_free(c);
  assert_true(fabs(ev_rdp - rr.value) <= 1e-12 * rr.value);

  /* bad input: usage errors, one line */
  pld_event_query q;
  pld_event_query_default(&q);
  pld_event_answer ans;
  ans.size = sizeof ans;
  const char *bad[] = {"merge-lc:lambda=0;0,q=0.01;0.01,sigma=1;1",
                       "merge-lc:lambda=1;1,q=0.01,sigma=1;1",
                       "merge-lc:lambda=1;1,q=1.5;0.1,sigma=1;1",
                       "merge-lc:lambda=1;1;1;1;1;1,q=.1;.1;.1;.1;.1;.1,"
                       "sigma=1;1;1;1;1;1"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    pld_event *t = NULL;
    int st = pld_event_parse(bad[i], &t);
    if (st == PLD_SUCCESS)
      st = pld_event_epsilon(t, &q, 1e-5, &ans);
    pld_event_free(t);
    assert_int_equal(st, PLD_EINVAL);
    const char *err = pld_error_detail();
    assert_true(strlen(err) > 0 && strchr(err, '\n') == NULL);
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_bad_input),
      cmocka_unit_test(test_lc_event),
      cmocka_unit_test(test_threads_same_report),
      cmocka_unit_test(test_warnings),
      cmocka_unit_test(test_two_runs_pinned),
      cmocka_unit_test(test_three_runs_pinned),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
