/* pldkit: the merge planner ("DP model merging" paper; what `pldkit merge`
 * prints).  Formerly the CLI's src/cli/merge.c compute(); moved here so
 * that a C or Python user gets the same numbers (issue 15 item 3).
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

/* The weight grid, by one or more threads.  Every point is computed alone
 * (its own accountants and curves; the evaluator's shared parts -- the
 * runs' composed PLDs of RS, their RDP curves -- are only read once the
 * first point has built them), so the report is the same bit for bit
 * whatever the number of threads.  Points are handed out in ascending
 * order; after a failure no new point is taken, but every point below it
 * was already taken and is finished, so the failure reported is the
 * lowest failing point's, as in one thread. */
struct grid_job {
  pld_merge_report *R;
  pld_merge_eval *ev;
  atomic_size_t next, done;
  atomic_int stop;
  pthread_mutex_t lock; /* guards the fail_* fields */
  size_t fail_g;
  int fail_st;
  char fail_detail[256];
};

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

/* Take points until none is left (or one failed); pr is the calling
 * thread's progress (NULL in the workers), reported as points finish. */
static void grid_work(struct grid_job *J, const struct prog *pr,
                      double grid_end)
{
  for (;;) {
    if (atomic_load(&J->stop))
      return;
    size_t g = atomic_fetch_add(&J->next, 1);
    if (g >= J->R->n_points)
      return;
    int st = grid_point(J->R, J->ev, g);
    if (st != PLD_SUCCESS) {
      pthread_mutex_lock(&J->lock);
      if (g < J->fail_g) {
        J->fail_g = g;
        J->fail_st = st;
        strncpy(J->fail_detail, pld_error_detail(), sizeof J->fail_detail - 1);
        J->fail_detail[sizeof J->fail_detail - 1] = '\0';
      }
      pthread_mutex_unlock(&J->lock);
      atomic_store(&J->stop, 1);
      return;
    }
    size_t d = atomic_fetch_add(&J->done, 1) + 1;
    if (pr)
      report_progress(pr, 0.1, grid_end, d, J->R->n_points, "grid");
  }
}

static void *grid_worker(void *arg)
{
  grid_work(arg, NULL, 0.0);
  return NULL;
}

static int eval_grid(pld_merge_report *R, pld_merge_eval *ev,
                     unsigned threads, const struct prog *pr, double grid_end)
{
  struct grid_job J;
  J.R = R;
  J.ev = ev;
  atomic_init(&J.next, 0);
  atomic_init(&J.done, 0);
  atomic_init(&J.stop, 0);
  J.fail_g = SIZE_MAX;
  J.fail_st = PLD_SUCCESS;
  J.fail_detail[0] = '\0';
  if (pthread_mutex_init(&J.lock, NULL) != 0)
    return PLD_ENOMEM;
  report_progress(pr, 0.1, grid_end, 0, R->n_points, "grid");
  /* the first point alone: it builds the evaluator's shared RS cache */
  if (threads > PLD_MERGE_MAX_THREADS)
    threads = PLD_MERGE_MAX_THREADS;
  if (threads > 1 && R->n_points > 1) {
    size_t g0 = atomic_fetch_add(&J.next, 1);
    int st = grid_point(R, ev, g0);
    if (st != PLD_SUCCESS) {
      pthread_mutex_destroy(&J.lock);
      return st;
    }
    atomic_fetch_add(&J.done, 1);
  }
  pthread_t tid[PLD_MERGE_MAX_THREADS];
  unsigned started = 0;
  for (unsigned t = 1; t < threads && R->n_points > 2; t++) {
    if (pthread_create(&tid[started], NULL, grid_worker, &J) != 0)
      break; /* fewer threads: the same answers, later */
    started++;
  }
  grid_work(&J, pr, grid_end);
  for (unsigned t = 0; t < started; t++)
    pthread_join(tid[t], NULL);
  pthread_mutex_destroy(&J.lock);
  if (J.fail_st != PLD_SUCCESS) {
    if (J.fail_detail[0])
      return pld_fail(J.fail_st, "%s", J.fail_detail);
    return J.fail_st;
  }
  return PLD_SUCCESS;
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

static int baselines(pld_merge_report *R, const pld_params *dparams)
{
  size_t n = R->n;
  pld_accountant *acc = NULL;
  pld_result r;
  int st = pld_merge_joint_accountant(n, R->runs, dparams, &acc);
  if (st == PLD_SUCCESS)
    st = pld_accountant_epsilon(acc, R->delta, &r);
  pld_accountant_free(acc);
  if (st != PLD_SUCCESS)
    return st;
  R->joint_pld = r.bound;
  R->joint_pld_met_accuracy = r.met_accuracy;

  pld_rdp_curve *c = NULL;
  st = pld_rdp_curve_alloc_default(&c);
  if (st == PLD_SUCCESS)
    st = pld_merge_joint_rdp(n, R->runs, c);
  if (st == PLD_SUCCESS)
    st = rdp_eps(c, R->delta, &R->joint_rdp);
  pld_rdp_curve_free(c);
  if (st != PLD_SUCCESS)
    return st;

  double di[PLD_MERGE_MAX_RUNS];
  int finite = 1;
  R->adv_delta_i = R->delta / (2.0 * (double)n);
  R->adv_delta0 = R->delta / 2.0;
  for (size_t i = 0; i < n; i++) {
    di[i] = R->adv_delta_i;
    size_t j = same_privacy(R->runs, i);
    if (j < i) {
      /* the same PLD as run j (clip and lr do not enter a run's own
       * privacy): the same deterministic answer, not recomputed */
      R->adv_eps_i[i] = R->adv_eps_i[j];
      continue;
    }
    st = own_epsilon(&R->runs[i], di[i], dparams, &r);
    if (st != PLD_SUCCESS)
      return st;
    R->adv_eps_i[i] = r.bound.upper;
    finite &= isfinite(r.bound.upper);
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

  /* Own epsilons; sort least private first (stable insertion sort). */
  pld_result own[PLD_MERGE_MAX_RUNS];
  for (size_t i = 0; i < n && st == PLD_SUCCESS; i++) {
    report_progress(&pr, 0.0, 0.05, i, n, "runs");
    size_t j = same_privacy(plan->runs, i);
    if (j < i)
      own[i] = own[j];
    else
      st = own_epsilon(&plan->runs[i], R->delta, &dparams, &own[i]);
    R->order[i] = i;
  }
  if (st != PLD_SUCCESS)
    goto fail;
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

  report_progress(&pr, 0.05, 0.1, 0, 1, "baselines");
  st = baselines(R, &dparams);
  if (st != PLD_SUCCESS)
    goto fail;

  st = pld_merge_eval_new(R->runs, n, R->delta, &sparams, &ev);
  if (st != PLD_SUCCESS)
    goto fail;
  double grid_end = n == 2 ? 0.6 : 1.0;
  int any_feasible = 0;
  st = eval_grid(R, ev, plan->threads, &pr, grid_end);
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
    for (int m = 0; m < PLD_MERGE_N_METHODS; m++) {
      report_progress(&pr, grid_end, 1.0, (size_t)m, PLD_MERGE_N_METHODS,
                      "max weight");
      st = max_weight(R, ev, m, &R->max_weight[m]);
      if (st != PLD_SUCCESS)
        goto fail;
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
