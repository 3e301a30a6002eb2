/* pldkit tests: a host program that plans FFTW transforms in its own threads
 * while pldkit composes in others (pld.h, "Thread safety").  Before pldkit
 * made FFTW's planner thread-safe this corrupted the heap (3 of 3 runs of
 * the reliability probe).  The answers must equal the ones computed alone,
 * bit for bit (composition is deterministic).
 *
 * Two orders: the host's planning threads start before pldkit's first call
 * (test_host_plans_first, run first, so that nothing of pldkit has run but
 * its load-time constructor: when the switch was made at the first
 * workspace, this crashed or corrupted the heap in 4 of 5 runs, issue 32),
 * and after one pldkit call (the former contract).  Both run under
 * ThreadSanitizer (make tsan). */
#include <pthread.h>
#include <stdatomic.h>

#include <fftw3.h>

#include "ref.h"

static atomic_int stop_host;

static void *host_planner(void *arg)
{
  (void)arg;
  unsigned long it = 0;
  while (!atomic_load(&stop_host)) {
    int n = 64 + (int)(it % 97) * 37; /* sizes FFTW plans afresh */
    double *x = fftw_malloc(sizeof(double) * (size_t)n);
    fftw_complex *X = fftw_malloc(sizeof(fftw_complex) * (size_t)(n / 2 + 1));
    if (x && X) {
      for (int i = 0; i < n; i++)
        x[i] = (double)i;
      fftw_plan p = fftw_plan_dft_r2c_1d(n, x, X, FFTW_ESTIMATE);
      if (p) {
        fftw_execute(p);
        fftw_destroy_plan(p);
      }
    }
    fftw_free(x);
    fftw_free(X);
    it++;
  }
  return NULL;
}

struct job {
  double q, sigma;
  uint64_t count;
  pld_bound ref, got[4];
  int status;
};

static int epsilon_of(const struct job *j, pld_bound *out)
{
  pld_mech *m = NULL;
  pld_accountant *acc = NULL;
  pld_result r;
  int st = pld_mech_poisson_gaussian(j->q, j->sigma, 1.0, &m);
  if (!st)
    st = pld_accountant_alloc(NULL, &acc);
  if (!st)
    st = pld_accountant_add(acc, m, j->count);
  if (!st)
    st = pld_accountant_epsilon(acc, 1e-6, &r);
  if (!st)
    *out = r.bound;
  pld_accountant_free(acc);
  pld_mech_free(m);
  return st;
}

static void *worker(void *arg)
{
  struct job *j = arg;
  for (int k = 0; k < 4 && !j->status; k++)
    j->status = epsilon_of(j, &j->got[k]);
  return NULL;
}

/* The host plans first: its threads are planning when pldkit's workers
 * make their first calls; the references are computed alone afterwards. */
static void test_host_plans_first(void **state)
{
  (void)state;
  struct job jobs[2] = {{0.01, 1.0, 1000, {0, 0}, {{0, 0}}, 0},
                        {0.02, 0.9, 500, {0, 0}, {{0, 0}}, 0}};
  pthread_t host[2], work[2];
  atomic_store(&stop_host, 0);
  for (int i = 0; i < 2; i++)
    assert_int_equal(pthread_create(&host[i], NULL, host_planner, NULL), 0);
  for (int i = 0; i < 2; i++)
    assert_int_equal(pthread_create(&work[i], NULL, worker, &jobs[i]), 0);
  for (int i = 0; i < 2; i++)
    pthread_join(work[i], NULL);
  atomic_store(&stop_host, 1);
  for (int i = 0; i < 2; i++)
    pthread_join(host[i], NULL);
  for (int i = 0; i < 2; i++) {
    REQUIRE_OK(epsilon_of(&jobs[i], &jobs[i].ref));
    EXPECT(jobs[i].status == PLD_SUCCESS, "job %d: status %d", i, jobs[i].status);
    for (int k = 0; k < 4; k++)
      EXPECT(jobs[i].got[k].lower == jobs[i].ref.lower &&
                 jobs[i].got[k].upper == jobs[i].ref.upper,
             "job %d run %d: [%.17g, %.17g] vs alone [%.17g, %.17g]", i, k,
             jobs[i].got[k].lower, jobs[i].got[k].upper, jobs[i].ref.lower,
             jobs[i].ref.upper);
  }
  EXPECT_DONE();
}

static void test_host_plans_fftw(void **state)
{
  (void)state;
  struct job jobs[2] = {{0.01, 1.0, 1000, {0, 0}, {{0, 0}}, 0},
                        {0.02, 0.9, 500, {0, 0}, {{0, 0}}, 0}};
  /* the contract: one pldkit call before the host's planning threads */
  for (int i = 0; i < 2; i++)
    REQUIRE_OK(epsilon_of(&jobs[i], &jobs[i].ref));
  pthread_t host[2], work[2];
  atomic_store(&stop_host, 0);
  for (int i = 0; i < 2; i++)
    assert_int_equal(pthread_create(&host[i], NULL, host_planner, NULL), 0);
  for (int i = 0; i < 2; i++)
    assert_int_equal(pthread_create(&work[i], NULL, worker, &jobs[i]), 0);
  for (int i = 0; i < 2; i++)
    pthread_join(work[i], NULL);
  atomic_store(&stop_host, 1);
  for (int i = 0; i < 2; i++)
    pthread_join(host[i], NULL);
  for (int i = 0; i < 2; i++) {
    EXPECT(jobs[i].status == PLD_SUCCESS, "job %d: status %d", i, jobs[i].status);
    for (int k = 0; k < 4; k++)
      EXPECT(jobs[i].got[k].lower == jobs[i].ref.lower &&
                 jobs[i].got[k].upper == jobs[i].ref.upper,
             "job %d run %d: [%.17g, %.17g] vs alone [%.17g, %.17g]", i, k,
             jobs[i].got[k].lower, jobs[i].got[k].upper, jobs[i].ref.lower,
             jobs[i].ref.upper);
  }
  EXPECT_DONE();
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_host_plans_first), /* first: see the header */
      cmocka_unit_test(test_host_plans_fftw),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
