/* pldkit: the merge planner ("DP model merging" paper; what `pldkit merge`
 * prints).  It lives in the library so that a C or Python user gets the
 * same numbers as the CLI.
 *
 * For n runs and a target (eps', delta'): on a simplex grid of weights the
 * certified eps(delta') of random selection (RS, Thm 5.1/5.2) and linear
 * combination (LC, Thm 6.2/6.4) under PLD and RDP, which points meet eps',
 * for n = 2 the largest feasible weight on run 0, and the weight-free
 * baselines: joint release (Thm 6.1, PLD bracket and RDP) and advanced
 * composition (Prop. 7.1).
 *
 * Advanced composition: per run eps_i = run i's own certified eps(delta_i)
 * at delta_i = delta'/(2N) (PLD accountant, default params), delta0 =
 * delta'/2, so the total delta is N delta'/(2N) + delta'/2 = delta'.
 *
 * Work reuse (none of it changes what is certified; see merge_eval.c's
 * comments for each cache): RS members (one Poisson-Gaussian accountant and
 * one composed RDP curve per run) are built once; each grid point only
 * mixes them.
 */
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include <pldkit/merge.h>
#include <pldkit/select.h>

#include "alloc.h"
#include "detail.h"
#include "numerics.h"
#include "merge_eval.h"

const char *pld_merge_warning_text(unsigned flag)
{
  switch (flag) {
  case PLD_MERGE_WARN_ACCURACY:
    return "some PLD brackets are wider than the requested accuracy (their "
           "upper ends are still certified)";
  case PLD_MERGE_WARN_INFEASIBLE:
    return "no grid point meets the target epsilon with any method";
  case PLD_MERGE_WARN_ADVANCED_INFINITE:
    return "advanced composition is vacuous: a run's own epsilon at "
           "delta'/(2N) is infinite";
  case PLD_MERGE_WARN_LC_NOT_MONOTONE:
    return "the LC epsilon is not monotone in the weight on run 0 on the "
           "grid: the LC largest weight (verified feasible) may not be the "
           "largest";
  case PLD_MERGE_WARN_NO_WEIGHT:
    return "no weight on run 0 is feasible for some method (largest weight "
           "-1)";
  default:
    return "";
  }
}

int pld_merge_grid_size(size_t n, unsigned resolution, size_t *count)
{
  if (!count || n < 1 || n > PLD_MERGE_MAX_RUNS || resolution < 1 ||
      resolution > PLD_MERGE_MAX_RESOLUTION)
    return PLD_EINVAL;
  double c = pld_simplex_grid_count(n, resolution);
  if (c > (double)PLD_MERGE_MAX_POINTS)
    return PLD_ERANGE;
  *count = (size_t)(c + 0.5);
  return PLD_SUCCESS;
}

void pld_merge_report_free(pld_merge_report *r)
{
  if (!r)
    return;
  pld_free(r->weights);
  pld_free(r->points);
  pld_free(r);
}

static int run_ok(const pld_merge_run *r)
{
  return isfinite(r->q) && r->q > 0.0 && r->q <= 1.0 && isfinite(r->sigma) &&
         r->sigma > 0.0 && isfinite(r->clip) && r->clip > 0.0 &&
         isfinite(r->lr) && r->lr > 0.0 && r->steps >= 1;
}

/* Progress: stages get fixed slices of [0, 1] by their share of the work. */
struct prog {
  pld_merge_progress_fn fn;
  void *ctx;
};

static void report_progress(const struct prog *p, double lo, double hi,
                            size_t i, size_t total, const char *stage)
{
  if (!p->fn)
    return;
  double f = lo + (hi - lo) * (total ? (double)i / (double)total : 1.0);
  p->fn(p->ctx, f, stage);
}

/* Items 0 .. n-1 of fn on up to `threads` threads, the calling one
 * included: the runs' own epsilons, the baselines, the weight grid's
 * points, the largest-weight searches.  Each item writes only its own
 * outputs (its own accountants and curves; the evaluator's shared parts --
 * the runs' composed PLDs of RS, their RDP curves -- are only read once the
 * grid's first point has built them), so the report is the same bit for
 * bit whatever the number of threads.  Items are taken in ascending order;
 * after a failure no new item is taken, but every item below it was
 * already taken and finishes, so the failure kept is the lowest failing
 * item's, as in one thread.  Progress (pr, may be NULL) is reported from
 * the calling thread only, as items finish. */
struct pool {
  int (*fn)(void *ctx, size_t i);
  void *ctx;
  size_t n;
  atomic_size_t next, done;
  atomic_int stop;
  pthread_mutex_t lock; /* guards the fail_* fields */
  size_t fail_i;
  int fail_st;
  char fail_detail[256];
  const struct prog *pr; /* progress: item i done at (off + i + 1) / total */
  double lo, hi;
  size_t off, total;
  const char *stage;
};

static void pool_work(struct pool *P, int caller)
{
  for (;;) {
    if (atomic_load(&P->stop))
      return;
    size_t i = atomic_fetch_add(&P->next, 1);
    if (i >= P->n)
      return;
    pld_detail_clear();
    int st = P->fn(P->ctx, i);
    if (st != PLD_SUCCESS) {
      pthread_mutex_lock(&P->lock);
      if (i < P->fail_i) {
        P->fail_i = i;
        P->fail_st = st;
        strncpy(P->fail_detail, pld_error_detail(), sizeof P->fail_detail - 1);
        P->fail_detail[sizeof P->fail_detail - 1] = '\0';
      }
      pthread_mutex_unlock(&P->lock);
      atomic_store(&P->stop, 1);
      return;
    }
    size_t d = atomic_fetch_add(&P->done, 1) + 1;
    if (caller && P->pr)
      report_progress(P->pr, P->lo, P->hi, P->off + d, P->total, P->stage);
  }
}

static void *pool_worker(void *arg)
{
  pool_work(arg, 0);
  return NULL;
}

/* The lowest failure's status, its detail raised again on this thread. */
static int pool_status(const struct pool *P)
{
  if (P->fail_st == PLD_SUCCESS)
    return PLD_SUCCESS;
  return P->fail_detail[0] ? pld_fail(P->fail_st, "%s", P->fail_detail)
                           : P->fail_st;
}

/* Run the items of P (fn, ctx, n and the progress fields set; the rest is
 * set here); returns pool_status(P). */
static int pool_run(struct pool *P, unsigned threads)
{
  atomic_init(&P->next, 0);
  atomic_init(&P->done, 0);
  atomic_init(&P->stop, 0);
  P->fail_i = SIZE_MAX;
  P->fail_st = PLD_SUCCESS;
  P->fail_detail[0] = '\0';
  if (pthread_mutex_init(&P->lock, NULL) != 0)
    return PLD_ENOMEM;
  if (threads > PLD_MERGE_MAX_THREADS)
    threads = PLD_MERGE_MAX_THREADS;
  pthread_t tid[PLD_MERGE_MAX_THREADS];
  unsigned started = 0;
  for (unsigned t = 1; t < threads && t < P->n; t++) {
    if (pthread_create(&tid[started], NULL, pool_worker, P) != 0)
      break; /* fewer threads: the same answers, later */
    started++;
  }
  pool_work(P, 1);
  for (unsigned t = 0; t < started; t++)
    pthread_join(tid[t], NULL);
  pthread_mutex_destroy(&P->lock);
  return pool_status(P);
}

/* A list of unlike jobs as pool items. */
struct job {
  int (*fn)(void *arg);
  void *arg;
};

static int job_item(void *ctx, size_t i)
{
  const struct job *j = ctx;
  return j[i].fn(j[i].arg);
}

static int run_jobs(struct pool *P, struct job *j, size_t n, unsigned threads)
{
  memset(P, 0, sizeof *P);
  P->fn = job_item;
  P->ctx = j;
  P->n = n;
  return pool_run(P, threads);
}

/* One grid point, every method. */
static int grid_point(pld_merge_report *R, pld_merge_eval *ev, size_t g)
{
  const double *w = R->weights + g * R->n;
  pld_merge_point *P = &R->points[g];
  for (int m = 0; m < PLD_MERGE_N_METHODS; m++) {
    int st = pld_merge_eval_point(ev, m, w, &P->upper[m], &P->lower[m],
                                  &P->met_accuracy[m]);
    if (st != PLD_SUCCESS)
      return st;
    P->feasible[m] = P->upper[m] <= R->epsilon;
  }
  return PLD_SUCCESS;
}

/* the grid's points from `first` on, as pool items */
struct grid_ctx {
  pld_merge_report *R;
  pld_merge_eval *ev;
  size_t first;
};

static int grid_item(void *ctx, size_t i)
{
  const struct grid_ctx *c = ctx;
  return grid_point(c->R, c->ev, c->first + i);
}

/* The first index j <= i whose run has the same q, sigma and steps as run
 * i: a run's own PLD (pld_merge_joint_accountant of it alone) is
 * pld_mech_poisson_gaussian(q, sigma, 1) composed steps times, so clip and
 * lr do not enter it, and equal inputs give bit-equal answers. */
static size_t same_privacy(const pld_merge_run *runs, size_t i)
{
  size_t j = 0;
  while (j < i && !(runs[j].q == runs[i].q && runs[j].sigma == runs[i].sigma &&
                    runs[j].steps == runs[i].steps))
    j++;
  return j;
}

/* Own eps of one run at delta (PLD, given params). */
static int own_epsilon(const pld_merge_run *r, double delta,
                       const pld_params *params, pld_result *out)
{
  pld_accountant *a = NULL;
  int st = pld_merge_joint_accountant(1, r, params, &a);
  if (st == PLD_SUCCESS)
    st = pld_accountant_epsilon(a, delta, out);
  pld_accountant_free(a);
  return st;
}

static int rdp_eps(const pld_rdp_curve *c, double delta, double *eps)
{
  pld_rdp_result r;
  int st = pld_rdp_epsilon(c, delta, PLD_RDP_BEST, &r);
  if (st == PLD_SUCCESS)
    *eps = r.value;
  return st;
}

/* The jobs of the plan (run_jobs). */
struct own_job {
  const pld_merge_run *run;
  double delta;
  const pld_params *params;
  pld_result out;
};

static int own_job_fn(void *arg)
{
  struct own_job *o = arg;
  return own_epsilon(o->run, o->delta, o->params, &o->out);
}

struct report_job {
  pld_merge_report *R;
  const pld_params *params;
  pld_merge_eval *ev;
};

/* joint release, PLD: every run composed */
static int joint_pld_fn(void *arg)
{
  struct report_job *b = arg;
  pld_accountant *acc = NULL;
  pld_result r;
  int st = pld_merge_joint_accountant(b->R->n, b->R->runs, b->params, &acc);
  if (st == PLD_SUCCESS)
    st = pld_accountant_epsilon(acc, b->R->delta, &r);
  pld_accountant_free(acc);
  if (st != PLD_SUCCESS)
    return st;
  b->R->joint_pld = r.bound;
  b->R->joint_pld_met_accuracy = r.met_accuracy;
  return PLD_SUCCESS;
}

/* joint release, RDP */
static int joint_rdp_fn(void *arg)
{
  struct report_job *b = arg;
  pld_rdp_curve *c = NULL;
  int st = pld_rdp_curve_alloc_default(&c);
  if (st == PLD_SUCCESS)
    st = pld_merge_joint_rdp(b->R->n, b->R->runs, c);
  if (st == PLD_SUCCESS)
    st = rdp_eps(c, b->R->delta, &b->R->joint_rdp);
  pld_rdp_curve_free(c);
  return st;
}

/* the grid's first point: it builds the evaluator's shared RS cache */
static int first_point_fn(void *arg)
{
  struct report_job *b = arg;
  return grid_point(b->R, b->ev, 0);
}

/* Advanced composition from the runs' own epsilons at delta'/(2N) (adv[i]
 * for sorted run i, computed for the first of equal runs only: clip and
 * lr do not enter a run's own privacy, so equal runs have the same
 * deterministic answer). */
static int advanced(pld_merge_report *R, const struct own_job *adv)
{
  size_t n = R->n;
  double di[PLD_MERGE_MAX_RUNS];
  int finite = 1;
  for (size_t i = 0; i < n; i++) {
    di[i] = R->adv_delta_i;
    R->adv_eps_i[i] = adv[same_privacy(R->runs, i)].out.bound.upper;
    finite &= isfinite(R->adv_eps_i[i]);
  }
  if (finite)
    return pld_merge_advanced_composition(n, R->adv_eps_i, di, R->adv_delta0,
                                          &R->adv_eps, &R->adv_delta);
  R->adv_eps = INFINITY;
  R->adv_delta = R->delta;
  R->warnings |= PLD_MERGE_WARN_ADVANCED_INFINITE;
  return PLD_SUCCESS;
}

/* n = 2: the largest feasible weight on run 0 for method m, as
 * pld_merge_max_weight (same assumption: feasible at w0 = 0, epsilon
 * growing with w0; same stopping rule: bracket within 1e-4 relative, 1e-12
 * absolute; the weight returned is itself verified feasible), but started
 * from the grid's bracket (the grid runs w0 = 0 .. 1 ascending, already
 * evaluated) and evaluated with the planner's reused work. */
/* max_weight's question at weight x on run 0: is method m's certified
 * upper eps above the target (x infeasible)? */
struct plan_pred {
  pld_merge_eval *ev;
  int m;
  double epsilon;
};

static int plan_above(double x, void *ctx, int *above)
{
  const struct plan_pred *q = ctx;
  double w[2] = {x, 1.0 - x}, up, low;
  int met;
  int st = pld_merge_eval_point(q->ev, q->m, w, &up, &low, &met);
  if (st == PLD_SUCCESS)
    *above = !(up <= q->epsilon);
  return st;
}

static int max_weight(const pld_merge_report *R, pld_merge_eval *ev, int m,
                      double *w0)
{
  size_t np = R->n_points;
  if (R->points[np - 1].feasible[m]) {
    *w0 = 1.0;
    return PLD_SUCCESS;
  }
  if (!R->points[0].feasible[m]) {
    *w0 = -1.0;
    return PLD_SUCCESS;
  }
  size_t k = 1;
  while (k < np && R->points[k].feasible[m])
    k++;
  /* lo feasible (verified), hi infeasible */
  double lo = R->weights[(k - 1) * 2], hi = R->weights[k * 2];
  struct plan_pred q = {ev, m, R->epsilon};
  return pld_bisect(plan_above, &q, lo, hi, 1e-12, 1e-4, INT_MAX, -1, w0);
}

/* one method's largest weight, as a job */
struct weight_job {
  const pld_merge_report *R;
  pld_merge_eval *ev;
  int m;
  double w0;
};

static int weight_job_fn(void *arg)
{
  struct weight_job *wj = arg;
  return max_weight(wj->R, wj->ev, wj->m, &wj->w0);
}

int pld_merge_plan_compute(const pld_merge_plan *plan, pld_merge_report **out)
{
  if (!plan || !out || !plan->runs || plan->n < 1 ||
      plan->n > PLD_MERGE_MAX_RUNS || !isfinite(plan->epsilon) ||
      !(plan->epsilon > 0.0) || !isfinite(plan->delta) ||
      !(plan->delta > 0.0) || !(plan->delta < 1.0) ||
      plan->resolution > PLD_MERGE_MAX_RESOLUTION ||
      !(plan->accuracy == 0.0 ||
        (plan->accuracy > 0.0 && plan->accuracy < 1.0)))
    return PLD_EINVAL;
  size_t n = plan->n;
  for (size_t i = 0; i < n; i++)
    if (!run_ok(&plan->runs[i]))
      return PLD_EINVAL;
  unsigned res = plan->resolution ? plan->resolution : n <= 2 ? 20u : 10u;
  if (n == 1)
    res = 1;
  size_t npts;
  int st = pld_merge_grid_size(n, res, &npts);
  if (st != PLD_SUCCESS)
    return st;
  /* a time cap, refused before any work: each grid point composes the LC
   * surrogate's 2^n-component mixture */
  size_t cap = plan->max_work ? plan->max_work : PLD_MERGE_DEFAULT_MAX_WORK;
  double work = (double)npts * ldexp(1.0, (int)n);
  if (work > (double)cap)
    return pld_fail(PLD_ERANGE, "the plan needs %zu grid points x 2^%zu = "
                    "%.0f units of work, above max_work = %zu (about a "
                    "second per 250 units on one core); lower the "
                    "resolution or raise max_work", npts, n, work, cap);

  pld_merge_report *R = pld_calloc(1, sizeof *R);
  if (!R)
    return PLD_ENOMEM;
  R->n = n;
  R->epsilon = plan->epsilon;
  R->delta = plan->delta;
  R->accuracy = plan->accuracy > 0.0 ? plan->accuracy : 0.01;
  R->resolution = res;
  R->n_points = npts;
  R->weights = pld_calloc(npts * n, sizeof *R->weights);
  R->points = pld_calloc(npts, sizeof *R->points);
  if (!R->weights || !R->points) {
    pld_merge_report_free(R);
    return PLD_ENOMEM;
  }
  {
    /* k (sum res) with k_0 ascending, then k_1, ...; the last coordinate
     * takes the remainder */
    unsigned k[PLD_MERGE_MAX_RUNS];
    size_t pos = 0;
    pld_simplex_grid_first(n, res, 0, k);
    do
      pld_simplex_grid_weights(n, res, k, R->weights + pos++ * n);
    while (pld_simplex_grid_next(n, res, 0, k));
  }
  struct prog pr = {plan->progress, plan->progress_ctx};
  pld_params dparams, sparams;
  pld_params_default(&dparams);
  pld_params_default(&sparams);
  sparams.accuracy = R->accuracy;
  pld_merge_eval *ev = NULL;

  /* Own epsilons (the first of equal runs only), on the plan's threads;
   * sort least private first (stable insertion sort). */
  report_progress(&pr, 0.0, 0.05, 0, 1, "runs");
  struct own_job oj[PLD_MERGE_MAX_RUNS];
  struct job jobs[2 * PLD_MERGE_MAX_RUNS + 3];
  struct pool pool;
  size_t nj = 0;
  pld_result own[PLD_MERGE_MAX_RUNS];
  for (size_t i = 0; i < n; i++) {
    R->order[i] = i;
    oj[i].run = &plan->runs[i];
    oj[i].delta = R->delta;
    oj[i].params = &dparams;
    if (same_privacy(plan->runs, i) == i)
      jobs[nj++] = (struct job){own_job_fn, &oj[i]};
  }
  st = run_jobs(&pool, jobs, nj, plan->threads);
  if (st != PLD_SUCCESS)
    goto fail;
  for (size_t i = 0; i < n; i++)
    own[i] = oj[same_privacy(plan->runs, i)].out;
  for (size_t i = 1; i < n; i++)
    for (size_t j = i; j > 0 && own[R->order[j]].bound.upper >
                                    own[R->order[j - 1]].bound.upper;
         j--) {
      size_t t = R->order[j];
      R->order[j] = R->order[j - 1];
      R->order[j - 1] = t;
    }
  for (size_t i = 0; i < n; i++) {
    R->runs[i] = plan->runs[R->order[i]];
    R->own_eps[i] = own[R->order[i]].bound;
    R->own_met_accuracy[i] = own[R->order[i]].met_accuracy;
  }

  /* The baselines (joint release under PLD and RDP, the runs' own
   * epsilons at delta'/(2N) for advanced composition) and the grid's first
   * point, on the plan's threads; in one thread, in that order. */
  report_progress(&pr, 0.05, 0.1, 0, 1, "baselines");
  R->adv_delta_i = R->delta / (2.0 * (double)n);
  R->adv_delta0 = R->delta / 2.0;
  int ev_st = pld_merge_eval_new(R->runs, n, R->delta, &sparams, &ev);
  struct report_job bj = {R, &dparams, ev};
  struct own_job aj[PLD_MERGE_MAX_RUNS];
  nj = 0;
  jobs[nj++] = (struct job){joint_pld_fn, &bj};
  jobs[nj++] = (struct job){joint_rdp_fn, &bj};
  for (size_t i = 0; i < n; i++) {
    aj[i].run = &R->runs[i];
    aj[i].delta = R->adv_delta_i;
    aj[i].params = &dparams;
    if (same_privacy(R->runs, i) == i)
      jobs[nj++] = (struct job){own_job_fn, &aj[i]};
  }
  size_t nbase = nj;
  if (ev_st == PLD_SUCCESS)
    jobs[nj++] = (struct job){first_point_fn, &bj};
  /* a failure of the baselines first, then advanced composition's and the
   * evaluator's, then the first point's: one thread's order */
  st = run_jobs(&pool, jobs, nj, plan->threads);
  if (st == PLD_SUCCESS || pool.fail_i >= nbase)
    st = advanced(R, aj);
  if (st == PLD_SUCCESS)
    st = ev_st;
  if (st == PLD_SUCCESS)
    st = pool_status(&pool);
  if (st != PLD_SUCCESS)
    goto fail;
  double grid_end = n == 2 ? 0.6 : 1.0;
  int any_feasible = 0;
  struct grid_ctx gc = {R, ev, 1};
  memset(&pool, 0, sizeof pool);
  pool.fn = grid_item;
  pool.ctx = &gc;
  pool.n = npts - 1;
  pool.pr = &pr;
  pool.lo = 0.1;
  pool.hi = grid_end;
  pool.off = 1;
  pool.total = npts;
  pool.stage = "grid";
  report_progress(&pr, 0.1, grid_end, 1, npts, "grid");
  st = pool_run(&pool, plan->threads);
  if (st != PLD_SUCCESS)
    goto fail;
  for (size_t g = 0; g < npts; g++)
    for (int m = 0; m < PLD_MERGE_N_METHODS; m++) {
      any_feasible |= R->points[g].feasible[m];
      if (!R->points[g].met_accuracy[m])
        R->warnings |= PLD_MERGE_WARN_ACCURACY;
    }
  if (!any_feasible)
    R->warnings |= PLD_MERGE_WARN_INFEASIBLE;

  for (int m = 0; m < PLD_MERGE_N_METHODS; m++)
    R->max_weight[m] = NAN;
  if (n == 2) {
    /* the four methods' searches are independent: jobs on the threads */
    report_progress(&pr, grid_end, 1.0, 0, 1, "max weight");
    struct weight_job wj[PLD_MERGE_N_METHODS];
    for (int m = 0; m < PLD_MERGE_N_METHODS; m++) {
      wj[m] = (struct weight_job){R, ev, m, NAN};
      jobs[m] = (struct job){weight_job_fn, &wj[m]};
    }
    st = run_jobs(&pool, jobs, PLD_MERGE_N_METHODS, plan->threads);
    if (st != PLD_SUCCESS)
      goto fail;
    for (int m = 0; m < PLD_MERGE_N_METHODS; m++) {
      R->max_weight[m] = wj[m].w0;
      if (R->max_weight[m] < 0.0)
        R->warnings |= PLD_MERGE_WARN_NO_WEIGHT;
    }
    /* LC: the grid runs w0 = 0 .. 1 ascending; flag a decrease. */
    for (int m = PLD_MERGE_LC_PLD; m <= PLD_MERGE_LC_RDP; m++) {
      /* a PLD upper end moves within its bracket from point to point:
       * only a drop below the previous point's lower end counts */
      for (size_t g = 1; g < npts; g++) {
        const pld_merge_point *a = &R->points[g - 1], *b = &R->points[g];
        double ref = m == PLD_MERGE_LC_PLD ? a->lower[m] : a->upper[m];
        if (b->upper[m] < ref)
          R->warnings |= PLD_MERGE_WARN_LC_NOT_MONOTONE;
      }
    }
  }
  report_progress(&pr, 1.0, 1.0, 1, 1, "done");
  pld_merge_eval_free(ev);
  *out = R;
  return PLD_SUCCESS;
fail:
  pld_merge_eval_free(ev);
  pld_merge_report_free(R);
  return st;
}
