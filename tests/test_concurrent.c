/* pldkit tests: pldkit used from several threads at once (also run under
 * ThreadSanitizer by `make tsan`): concurrent accountants give the answers
 * they give alone, bit for bit; error details are per thread
 * (pld_error_detail); progress hooks are per thread (pld_set_progress); the
 * merge planner's own threads (pld_merge_plan.threads) give its report. */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include <pldkit/merge.h>

#include "ref.h"

/* ---- concurrent accountants ---- */

struct acc_job {
  int kind;
  pld_bound ref, got[3];
  int status;
};

static int job_epsilon(int kind, pld_bound *out)
{
  pld_mech *m = NULL, *m2 = NULL;
  pld_accountant *acc = NULL, *mem[2] = {NULL, NULL};
  pld_result r;
  int st = pld_accountant_alloc(NULL, &acc);
  if (!st && kind == 0) {
    st = pld_mech_poisson_gaussian(0.01, 1.0, 1.0, &m);
    if (!st)
      st = pld_accountant_add(acc, m, 300);
  } else if (!st && kind == 1) {
    st = pld_mech_laplace(2.0, 1.0, &m);
    if (!st)
      st = pld_mech_gaussian(3.0, 1.0, &m2);
    if (!st)
      st = pld_accountant_add(acc, m, 20);
    if (!st)
      st = pld_accountant_add(acc, m2, 10);
  } else if (!st) { /* a random selection of two members */
    double w[2] = {0.3, 0.7};
    st = pld_mech_laplace(1.0, 1.0, &m);
    if (!st)
      st = pld_mech_poisson_gaussian(0.05, 1.2, 1.0, &m2);
    for (int i = 0; i < 2 && !st; i++)
      st = pld_accountant_alloc(NULL, &mem[i]);
    if (!st)
      st = pld_accountant_add(mem[0], m, 5);
    if (!st)
      st = pld_accountant_add(mem[1], m2, 50);
    if (!st)
      st = pld_accountant_add_selection(acc, 2, (const pld_accountant *const *)mem,
                                        w, 4);
  }
  if (!st)
    st = pld_accountant_epsilon(acc, 1e-6, &r);
  if (!st)
    *out = r.bound;
  pld_accountant_free(acc);
  pld_accountant_free(mem[0]);
  pld_accountant_free(mem[1]);
  pld_mech_free(m);
  pld_mech_free(m2);
  return st;
}

static void *acc_worker(void *arg)
{
  struct acc_job *j = arg;
  for (int k = 0; k < 3 && !j->status; k++)
    j->status = job_epsilon(j->kind, &j->got[k]);
  return NULL;
}

static void test_concurrent_accountants(void **state)
{
  (void)state;
  struct acc_job jobs[3];
  memset(jobs, 0, sizeof jobs);
  for (int i = 0; i < 3; i++) {
    jobs[i].kind = i;
    REQUIRE_OK(job_epsilon(i, &jobs[i].ref));
  }
  pthread_t th[3];
  for (int i = 0; i < 3; i++)
    assert_int_equal(pthread_create(&th[i], NULL, acc_worker, &jobs[i]), 0);
  for (int i = 0; i < 3; i++)
    pthread_join(th[i], NULL);
  for (int i = 0; i < 3; i++) {
    EXPECT(jobs[i].status == PLD_SUCCESS, "job %d: status %d", i, jobs[i].status);
    for (int k = 0; k < 3; k++)
      EXPECT(jobs[i].got[k].lower == jobs[i].ref.lower &&
                 jobs[i].got[k].upper == jobs[i].ref.upper,
             "job %d run %d: [%.17g, %.17g] vs alone [%.17g, %.17g]", i, k,
             jobs[i].got[k].lower, jobs[i].got[k].upper, jobs[i].ref.lower,
             jobs[i].ref.upper);
  }
  EXPECT_DONE();
}

/* ---- thread-local details ---- */

static pthread_barrier_t bar;

struct detail_job {
  int which;
  int bad; /* rounds where this thread saw another's detail */
};

static void *detail_worker(void *arg)
{
  struct detail_job *j = arg;
  pld_mech *m = NULL;
  for (int r = 0; r < 200; r++) {
    int st = j->which ? pld_mech_poisson_gaussian(1.5, 1.0, 1.0, &m)
                      : pld_mech_gaussian(-3.0, 1.0, &m);
    pthread_barrier_wait(&bar); /* both failed: now both details are set */
    const char *d = pld_error_detail();
    if (st != PLD_EINVAL || !strstr(d, j->which ? "q = 1.5" : "sigma = -3"))
      j->bad++;
    pthread_barrier_wait(&bar);
  }
  return NULL;
}

static void test_detail_per_thread(void **state)
{
  (void)state;
  struct detail_job jobs[2] = {{0, 0}, {1, 0}};
  pthread_t th[2];
  assert_int_equal(pthread_barrier_init(&bar, NULL, 2), 0);
  for (int i = 0; i < 2; i++)
    assert_int_equal(pthread_create(&th[i], NULL, detail_worker, &jobs[i]), 0);
  for (int i = 0; i < 2; i++)
    pthread_join(th[i], NULL);
  pthread_barrier_destroy(&bar);
  for (int i = 0; i < 2; i++)
    EXPECT(jobs[i].bad == 0, "thread %d saw a wrong detail %d times", i, jobs[i].bad);
  /* this thread made no call: its detail is still empty */
  EXPECT(strcmp(pld_error_detail(), "") == 0, "main thread: '%s'", pld_error_detail());
  EXPECT_DONE();
}

/* ---- progress hooks ---- */

struct prog {
  unsigned calls, bad;
  double last;
};

static void on_progress(void *ctx, double f, const char *stage)
{
  struct prog *p = ctx;
  p->calls++;
  if (!(f >= 0.0 && f <= 1.0) || !stage || !stage[0])
    p->bad++;
  p->last = f;
}

static atomic_uint other_calls;

static void on_progress_other(void *ctx, double f, const char *stage)
{
  (void)ctx;
  (void)f;
  (void)stage;
  atomic_fetch_add(&other_calls, 1);
}

static void *quiet_worker(void *arg)
{
  (void)arg;
  pld_bound b;
  job_epsilon(2, &b); /* no hook installed in this thread */
  return NULL;
}

static void test_progress_hook(void **state)
{
  (void)state;
  struct prog p = {0, 0, 0.0};
  pld_set_progress(on_progress, &p);
  pld_bound b;
  REQUIRE_OK(job_epsilon(2, &b)); /* refinements and selection members */
  pld_participation_params par = {0.5, 0.01, 1000, 1.0, 1.0};
  pld_participation_thm41 t;
  REQUIRE_OK(pld_participation_thm41_delta(&par, 0.1, &t)); /* 81 datasets */
  EXPECT(p.calls >= 80, "only %u progress calls", p.calls);
  EXPECT(p.bad == 0, "%u calls with a fraction outside [0, 1] or no stage", p.bad);
  /* another thread's hook is not called for this thread's work, and this
   * thread's hook not for the other's */
  unsigned before = p.calls;
  atomic_store(&other_calls, 0);
  pthread_t th;
  assert_int_equal(pthread_create(&th, NULL, quiet_worker, NULL), 0);
  pthread_join(th, NULL);
  EXPECT(p.calls == before, "the hook was called from another thread");
  pld_set_progress(on_progress_other, NULL);
  pld_set_progress(NULL, NULL);
  REQUIRE_OK(job_epsilon(0, &b));
  EXPECT(atomic_load(&other_calls) == 0, "a removed hook was called");
  EXPECT_DONE();
}

/* ---- the merge planner's grid on threads ---- */

static void test_merge_threads(void **state)
{
  (void)state;
  /* short runs: under ThreadSanitizer this is the planner's whole path
   * (own epsilons, baselines, the RS cache on the calling thread, then
   * the grid's points shared by three threads) in a few seconds */
  const pld_merge_run runs[3] = {{0.05, 1.0, 1.0, 0.1, 20},
                                 {0.05, 1.0, 2.0, 0.1, 20},
                                 {0.05, 3.0, 1.0, 0.1, 20}};
  pld_merge_plan plan;
  memset(&plan, 0, sizeof plan);
  plan.runs = runs;
  plan.n = 3;
  plan.epsilon = 1.0;
  plan.delta = 1e-5;
  plan.resolution = 2;
  pld_merge_report *A = NULL, *B = NULL;
  REQUIRE_OK(pld_merge_plan_compute(&plan, &A));
  plan.threads = 3;
  REQUIRE_OK(pld_merge_plan_compute(&plan, &B));
  EXPECT(A->n_points == B->n_points, "%zu points against %zu", A->n_points,
         B->n_points);
  for (size_t g = 0; g < A->n_points && g < B->n_points; g++)
    EXPECT(memcmp(A->points[g].upper, B->points[g].upper,
                  sizeof A->points[g].upper) == 0 &&
               memcmp(A->points[g].lower, B->points[g].lower,
                      sizeof A->points[g].lower) == 0,
           "point %zu differs between 1 and 3 threads", g);
  pld_merge_report_free(A);
  pld_merge_report_free(B);
  EXPECT_DONE();
}

/* ---- the allocation's blocks of two on two threads ---- */

/* A block of two builds its own law and its groups' laws on two threads,
 * and two pair kinds (T = 11, k = 5: two-of-5 and two-of-4) build at once
 * (src/parallel.c pld_run2): the same answer, bit for bit, when two such
 * adds also run at once from two user threads. */
static void *bis_worker(void *arg)
{
  pld_bound *out = arg;
  pld_accountant *acc = NULL;
  pld_result r;
  if (pld_accountant_alloc(NULL, &acc) == PLD_SUCCESS &&
      pld_accountant_add_allocation(acc, 11, 5, 1.0, 1.0, 1) == PLD_SUCCESS &&
      pld_accountant_epsilon(acc, 1e-5, &r) == PLD_SUCCESS)
    *out = r.bound;
  pld_accountant_free(acc);
  return NULL;
}

static void test_allocation_threads(void **state)
{
  (void)state;
  pld_bound ref = {NAN, NAN}, got[2] = {{NAN, NAN}, {NAN, NAN}};
  bis_worker(&ref);
  EXPECT(isfinite(ref.upper) && ref.lower <= ref.upper, "alone: [%g, %g]",
         ref.lower, ref.upper);
  pthread_t t[2];
  for (int i = 0; i < 2; i++)
    assert_int_equal(pthread_create(&t[i], NULL, bis_worker, &got[i]), 0);
  for (int i = 0; i < 2; i++)
    pthread_join(t[i], NULL);
  for (int i = 0; i < 2; i++)
    EXPECT(memcmp(&got[i], &ref, sizeof ref) == 0,
           "thread %d: [%.17g, %.17g] against [%.17g, %.17g] alone", i,
           got[i].lower, got[i].upper, ref.lower, ref.upper);
  EXPECT_DONE();
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_concurrent_accountants),
      cmocka_unit_test(test_detail_per_thread),
      cmocka_unit_test(test_progress_hook),
      cmocka_unit_test(test_merge_threads),
      cmocka_unit_test(test_allocation_threads),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
