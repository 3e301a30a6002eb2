/* pldkit: accounting for merged DP-SGD models ("DP model merging" paper).
 *
 *  - LC surrogate (Thm 6.4, Cor. 6.5, Alg. 4; RDP: Thm 6.2 / Alg. 3 with
 *    both directions, see docs/papers/merging.md): per step the one-dimensional pair
 *    P = sum_J rho_J N(Delta_J, s^2) vs Q = N(0, s^2), eq. (11).
 *  - Virtual steps (Sec. 6.2): a run past its T_i contributes nothing.
 *  - Baselines: joint release (Thm 6.1), RS (Thm 5.1, 5.2), advanced
 *    composition (Prop. 7.1, Dwork-Rothblum-Vadhan 2010 Thm III.3).
 *  - Mean estimation (Sec. 4.1, Lemma 4.1).
 */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <pldkit/merge.h>
#include <pldkit/select.h>

#include "alloc.h"
#include "numerics.h"
#include "detail.h"
#include "merge_eval.h"

#define RS_MAX 64

static int run_ok(const pld_merge_run *r)
{
  return isfinite(r->q) && r->q > 0.0 && r->q <= 1.0 && isfinite(r->sigma) &&
         r->sigma > 0.0 && isfinite(r->clip) && r->clip > 0.0 &&
         isfinite(r->lr) && r->lr > 0.0 && r->steps >= 1;
}

static int check_runs(const pld_merge_run *runs, size_t n, size_t cap)
{
  if (!runs || n < 1 || n > cap) return PLD_EINVAL;
  for (size_t i = 0; i < n; i++)
    if (!run_ok(&runs[i])) return PLD_EINVAL;
  return PLD_SUCCESS;
}

static int check_simplex(const double *w, size_t n)
{
  return pld_is_simplex(w, n, PLD_WEIGHT_SUM_TOL, "lambda") ? PLD_SUCCESS : PLD_EINVAL;
}

/* One LC step type: the runs with steps >= t_min and lambda > 0 are active.
 * Fills the merged mixture (means ascending by subset index, equal means
 * merged) and s.  Returns the number of components (0: nothing released). */
typedef struct lc_step {
  size_t k;
  double s;
  double means[1u << PLD_MERGE_MAX_RUNS];
  double weights[1u << PLD_MERGE_MAX_RUNS];
} lc_step;

static void lc_build(const pld_merge_run *runs, size_t n, const double *lambda,
                     uint64_t t_min, lc_step *out)
{
  size_t act[PLD_MERGE_MAX_RUNS], na = 0;
  double s2 = 0.0;
  for (size_t i = 0; i < n; i++)
    if (runs[i].steps >= t_min && lambda[i] > 0.0) {
      act[na++] = i;
      /* s^2 = sum (lambda eta sigma C)^2 (Sec. 6, before Thm 6.2), rounded
       * DOWN: a smaller noise is pessimistic. */
      double e = pld_mul_down(pld_mul_down(lambda[i], runs[i].lr),
                              pld_mul_down(runs[i].sigma, runs[i].clip));
      double e2 = pld_mul_down(e, e);
      double t = s2 + e2;
      /* round the sum down: step back if it rounded up */
      if (t - s2 > e2) t = nextafter(t, 0.0);
      s2 = t;
    }
  out->k = 0;
  out->s = sqrt(s2);
  if (out->s * out->s > s2) out->s = nextafter(out->s, 0.0);
  if (na == 0) return;
  size_t nj = (size_t)1 << na;
  for (size_t J = 0; J < nj; J++) {
    /* rho_J = prod_{i in J} q_i prod_{i notin J} (1 - q_i);
     * Delta_J = sum_{i in J} lambda_i eta_i C_i (eq. before Thm 6.2).
     * Delta_J is rounded up and s down (scaling every shift up, or s down,
     * is pessimistic: the other pair is a post-processing by added noise);
     * rounding the Delta_J independently and rho_J to nearest moves the
     * pair by a few ulps, far inside the mixture curve's rel_err 1e-10 and
     * the RDP quadrature's 1e-13 margin. */
    double rho = 1.0, d = 0.0;
    for (size_t b = 0; b < na; b++) {
      const pld_merge_run *r = &runs[act[b]];
      if (J & ((size_t)1 << b)) {
        rho *= r->q;
        d = pld_add_up(d, pld_mul_up(pld_mul_up(lambda[act[b]], r->lr),
                                     r->clip));
      } else {
        rho *= 1.0 - r->q;
      }
    }
    if (!(rho > 0.0)) continue;
    size_t m;
    for (m = 0; m < out->k; m++)
      if (out->means[m] == d) break;
    if (m == out->k) {
      out->means[m] = d;
      out->weights[m] = 0.0;
      out->k++;
    }
    out->weights[m] += rho;
  }
}

/* Distinct step types: thresholds t_min in the sorted distinct T_i; type
 * with threshold T_(k) covers steps T_(k-1)+1 .. T_(k). */
static size_t step_types(const pld_merge_run *runs, size_t n, uint64_t *ts)
{
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    size_t j;
    for (j = 0; j < m; j++)
      if (ts[j] == runs[i].steps) break;
    if (j == m) ts[m++] = runs[i].steps;
  }
  for (size_t i = 1; i < m; i++)
    for (size_t j = i; j > 0 && ts[j - 1] > ts[j]; j--) {
      uint64_t t = ts[j];
      ts[j] = ts[j - 1];
      ts[j - 1] = t;
    }
  return m;
}

/* The LC surrogate pair of one step type (Thm 6.4): the mixture
 * sum_J rho_J N(Delta_J, s^2) against N(0, s^2). */
static int lc_step_mech(const lc_step *S, pld_mech **out)
{
  double qm = 0.0, qw = 1.0;
  return pld_mech_mixture_gaussian(S->s, S->k, S->weights, S->means, 1, &qw,
                                   &qm, out);
}

/* Add cnt steps of S to acc (*added counts the steps types that release
 * something); a step with no active run or only a zero shift releases
 * nothing and is skipped. */
static int lc_add_step(pld_accountant *acc, const lc_step *S, uint64_t cnt,
                       size_t *added)
{
  if (S->k == 0 || (S->k == 1 && S->means[0] == 0.0))
    return PLD_SUCCESS;
  if (!(S->s > 0.0))
    return PLD_EINVAL;
  pld_mech *mech = NULL;
  int st = lc_step_mech(S, &mech);
  if (st == PLD_SUCCESS)
    st = pld_accountant_add(acc, mech, cnt);
  pld_mech_free(mech);
  (*added)++;
  return st;
}

int pld_merge_lc_accountant(size_t n, const pld_merge_run *runs,
                            const double *lambda, const pld_params *params,
                            pld_accountant **out)
{
  pld_detail_clear();
  if (!out) return PLD_EINVAL;
  int st = check_runs(runs, n, PLD_MERGE_MAX_RUNS);
  if (st == PLD_SUCCESS) st = check_simplex(lambda, n);
  if (st != PLD_SUCCESS) return st;
  pld_accountant *acc = NULL;
  st = pld_accountant_alloc(params, &acc);
  if (st != PLD_SUCCESS) return st;
  uint64_t ts[PLD_MERGE_MAX_RUNS];
  size_t m = step_types(runs, n, ts);
  uint64_t prev = 0;
  size_t added = 0;
  for (size_t k = 0; k < m && st == PLD_SUCCESS; k++) {
    lc_step S;
    lc_build(runs, n, lambda, ts[k], &S);
    uint64_t cnt = ts[k] - prev;
    prev = ts[k];
    st = lc_add_step(acc, &S, cnt, &added);
  }
  if (st == PLD_SUCCESS && added == 0) st = PLD_EEMPTY;
  if (st != PLD_SUCCESS) {
    pld_accountant_free(acc);
    return st;
  }
  *out = acc;
  return PLD_SUCCESS;
}

int pld_merge_lc_step_mech(size_t n, const pld_merge_run *runs,
                           const double *lambda, pld_mech **out)
{
  if (!out || !runs || !lambda || n < 1 || n > PLD_MERGE_MAX_RUNS)
    return PLD_EINVAL;
  pld_merge_run r[PLD_MERGE_MAX_RUNS];
  int any = 0;
  for (size_t i = 0; i < n; i++) {
    r[i] = runs[i];
    r[i].steps = 1; /* ignored: every run is active */
    if (!run_ok(&r[i]) || !isfinite(lambda[i]) || lambda[i] < 0.0)
      return PLD_EINVAL;
    any |= lambda[i] > 0.0;
  }
  if (!any) return PLD_EINVAL;
  /* The pair is scale-free in lambda (every Delta_J and s scale alike), so
   * lambda need not sum to 1. */
  lc_step S;
  lc_build(r, n, lambda, 1, &S);
  if (S.k == 0 || !(S.s > 0.0)) return PLD_EINVAL;
  return lc_step_mech(&S, out);
}

int pld_merge_lc_rdp(size_t n, const pld_merge_run *runs, const double *lambda,
                     pld_rdp_curve *c)
{
  pld_detail_clear();
  if (!c) return PLD_EINVAL;
  int st = check_runs(runs, n, PLD_MERGE_MAX_RUNS);
  if (st == PLD_SUCCESS) st = check_simplex(lambda, n);
  if (st != PLD_SUCCESS) return st;
  /* accumulate in a copy so that c is untouched on failure */
  pld_rdp_curve *tmp = NULL;
  st = pld_rdp_curve_alloc(pld_rdp_curve_size(c), pld_rdp_curve_orders(c),
                           &tmp);
  if (st != PLD_SUCCESS) return st;
  uint64_t ts[PLD_MERGE_MAX_RUNS];
  size_t m = step_types(runs, n, ts);
  uint64_t prev = 0;
  for (size_t k = 0; k < m && st == PLD_SUCCESS; k++) {
    lc_step S;
    lc_build(runs, n, lambda, ts[k], &S);
    uint64_t cnt = ts[k] - prev;
    prev = ts[k];
    if (S.k == 0 || (S.k == 1 && S.means[0] == 0.0)) continue;
    double wsum = 0.0;
    for (size_t j = 0; j < S.k; j++) wsum += S.weights[j];
    for (size_t j = 0; j < S.k; j++) S.weights[j] /= wsum;
    st = pld_rdp_add_mixture_gaussian(tmp, S.s, S.k, S.weights, S.means, cnt);
  }
  if (st == PLD_SUCCESS) st = pld_rdp_curve_compose(c, tmp, 1);
  pld_rdp_curve_free(tmp);
  return st;
}

/* ------------------------------------------------------------------------ */
/* Per-step schedules.                                                        */

#define SCHED_MAX_STEPS 9007199254740992ull /* 2^53 */

static int cmp_u64(const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* The pieces of a schedule: the sorted distinct cumulative phase boundaries
 * of all runs (the last one of each run is its total), so that within a
 * piece every run is in one phase or has ended.  *bounds is allocated. */
static int sched_pieces(const pld_merge_schedule *runs, size_t n,
                        const double *lambda, uint64_t **bounds, size_t *nb)
{
  pld_detail_clear();
  if (!runs || n < 1 || n > PLD_MERGE_MAX_RUNS)
    return pld_fail(PLD_EINVAL, "n = %zu runs; must be in [1, %d]", n,
                    PLD_MERGE_MAX_RUNS);
  size_t total = 0;
  for (size_t i = 0; i < n; i++) {
    const pld_merge_schedule *r = &runs[i];
    if (!r->phases || r->n_phases < 1 || r->n_phases > PLD_MERGE_MAX_PHASES)
      return pld_fail(PLD_EINVAL,
                      "run %zu has %zu phases; must be in [1, %u]", i,
                      r->phases ? r->n_phases : (size_t)0,
                      PLD_MERGE_MAX_PHASES);
    uint64_t t = 0;
    for (size_t k = 0; k < r->n_phases; k++) {
      if (!run_ok(&r->phases[k]))
        return pld_fail(PLD_EINVAL,
                        "run %zu phase %zu: need q in (0, 1], sigma, clip, "
                        "lr > 0 finite and steps >= 1", i, k);
      if (r->phases[k].steps > SCHED_MAX_STEPS - t)
        return pld_fail(PLD_EINVAL,
                        "run %zu: total steps over 2^53 at phase %zu", i, k);
      t += r->phases[k].steps;
    }
    total += r->n_phases;
  }
  if (check_simplex(lambda, n) != PLD_SUCCESS) return PLD_EINVAL;
  uint64_t *b = pld_malloc(total * sizeof *b);
  if (!b) return PLD_ENOMEM;
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t t = 0;
    for (size_t k = 0; k < runs[i].n_phases; k++)
      b[m++] = t += runs[i].phases[k].steps;
  }
  qsort(b, m, sizeof *b, cmp_u64);
  size_t u = 0;
  for (size_t k = 0; k < m; k++)
    if (u == 0 || b[u - 1] != b[k]) b[u++] = b[k];
  *bounds = b;
  *nb = u;
  return PLD_SUCCESS;
}

/* The runs' parameters in the piece starting at step `first` (1-based):
 * r[i] = run i's phase there with steps 1, or steps 0 if run i has ended.
 * cur[i] / end[i] are run i's phase cursor and the cumulative end of that
 * phase; pieces must be visited in increasing order. */
static void sched_at(const pld_merge_schedule *runs, size_t n, uint64_t first,
                     size_t *cur, uint64_t *end, pld_merge_run *r)
{
  for (size_t i = 0; i < n; i++) {
    while (cur[i] < runs[i].n_phases && end[i] < first) {
      cur[i]++;
      if (cur[i] < runs[i].n_phases) end[i] += runs[i].phases[cur[i]].steps;
    }
    if (cur[i] < runs[i].n_phases) {
      r[i] = runs[i].phases[cur[i]];
      r[i].steps = 1;
    } else {
      r[i] = runs[i].phases[runs[i].n_phases - 1];
      r[i].steps = 0; /* ended: inactive (virtual steps, Sec. 6.2) */
    }
  }
}

static void sched_init(const pld_merge_schedule *runs, size_t n, size_t *cur,
                       uint64_t *end)
{
  for (size_t i = 0; i < n; i++) {
    cur[i] = 0;
    end[i] = runs[i].phases[0].steps;
  }
}

int pld_merge_lc_schedule_accountant(size_t n, const pld_merge_schedule *runs,
                                     const double *lambda,
                                     const pld_params *params,
                                     pld_accountant **out)
{
  if (!out) {
    pld_detail_clear();
    return PLD_EINVAL;
  }
  uint64_t *b = NULL;
  size_t nb = 0;
  int st = sched_pieces(runs, n, lambda, &b, &nb);
  if (st != PLD_SUCCESS) return st;
  pld_accountant *acc = NULL;
  st = pld_accountant_alloc(params, &acc);
  size_t cur[PLD_MERGE_MAX_RUNS];
  uint64_t end[PLD_MERGE_MAX_RUNS], prev = 0;
  size_t added = 0;
  if (st == PLD_SUCCESS) sched_init(runs, n, cur, end);
  for (size_t k = 0; k < nb && st == PLD_SUCCESS; k++) {
    pld_merge_run r[PLD_MERGE_MAX_RUNS];
    sched_at(runs, n, prev + 1, cur, end, r);
    uint64_t cnt = b[k] - prev;
    prev = b[k];
    /* the same step pair as pld_merge_lc_accountant's (lc_build with the
     * piece's parameters; active = steps 1) */
    lc_step S;
    lc_build(r, n, lambda, 1, &S);
    st = lc_add_step(acc, &S, cnt, &added);
  }
  pld_free(b);
  if (st == PLD_SUCCESS && added == 0) st = PLD_EEMPTY;
  if (st != PLD_SUCCESS) {
    pld_accountant_free(acc);
    return st;
  }
  *out = acc;
  return PLD_SUCCESS;
}

int pld_merge_lc_schedule_rdp(size_t n, const pld_merge_schedule *runs,
                              const double *lambda, pld_rdp_curve *c)
{
  if (!c) {
    pld_detail_clear();
    return PLD_EINVAL;
  }
  uint64_t *b = NULL;
  size_t nb = 0;
  int st = sched_pieces(runs, n, lambda, &b, &nb);
  if (st != PLD_SUCCESS) return st;
  /* accumulate in a copy so that c is untouched on failure */
  pld_rdp_curve *tmp = NULL;
  st = pld_rdp_curve_alloc(pld_rdp_curve_size(c), pld_rdp_curve_orders(c),
                           &tmp);
  size_t cur[PLD_MERGE_MAX_RUNS];
  uint64_t end[PLD_MERGE_MAX_RUNS], prev = 0;
  if (st == PLD_SUCCESS) sched_init(runs, n, cur, end);
  for (size_t k = 0; k < nb && st == PLD_SUCCESS; k++) {
    pld_merge_run r[PLD_MERGE_MAX_RUNS];
    sched_at(runs, n, prev + 1, cur, end, r);
    uint64_t cnt = b[k] - prev;
    prev = b[k];
    lc_step S;
    lc_build(r, n, lambda, 1, &S);
    if (S.k == 0 || (S.k == 1 && S.means[0] == 0.0)) continue;
    double wsum = 0.0;
    for (size_t j = 0; j < S.k; j++) wsum += S.weights[j];
    for (size_t j = 0; j < S.k; j++) S.weights[j] /= wsum;
    st = pld_rdp_add_mixture_gaussian(tmp, S.s, S.k, S.weights, S.means, cnt);
  }
  if (st == PLD_SUCCESS) st = pld_rdp_curve_compose(c, tmp, 1);
  pld_rdp_curve_free(tmp);
  pld_free(b);
  return st;
}

/* ------------------------------------------------------------------------ */

static int member_accountant(const pld_merge_run *r, const pld_params *params,
                             pld_accountant **out)
{
  pld_accountant *a = NULL;
  pld_mech *m = NULL;
  int st = pld_accountant_alloc(params, &a);
  if (st == PLD_SUCCESS) st = pld_mech_poisson_gaussian(r->q, r->sigma, 1.0, &m);
  if (st == PLD_SUCCESS) st = pld_accountant_add(a, m, r->steps);
  pld_mech_free(m);
  if (st != PLD_SUCCESS) {
    pld_accountant_free(a);
    return st;
  }
  *out = a;
  return PLD_SUCCESS;
}

int pld_merge_joint_accountant(size_t n, const pld_merge_run *runs,
                               const pld_params *params, pld_accountant **out)
{
  pld_detail_clear();
  if (!out) return PLD_EINVAL;
  int st = check_runs(runs, n, (size_t)-1);
  if (st != PLD_SUCCESS) return st;
  pld_accountant *acc = NULL;
  st = pld_accountant_alloc(params, &acc);
  for (size_t i = 0; i < n && st == PLD_SUCCESS; i++) {
    pld_mech *m = NULL;
    st = pld_mech_poisson_gaussian(runs[i].q, runs[i].sigma, 1.0, &m);
    if (st == PLD_SUCCESS) st = pld_accountant_add(acc, m, runs[i].steps);
    pld_mech_free(m);
  }
  if (st != PLD_SUCCESS) {
    pld_accountant_free(acc);
    return st;
  }
  *out = acc;
  return PLD_SUCCESS;
}

int pld_merge_joint_rdp(size_t n, const pld_merge_run *runs, pld_rdp_curve *c)
{
  pld_detail_clear();
  if (!c) return PLD_EINVAL;
  int st = check_runs(runs, n, (size_t)-1);
  if (st != PLD_SUCCESS) return st;
  pld_rdp_curve *tmp = NULL;
  st = pld_rdp_curve_alloc(pld_rdp_curve_size(c), pld_rdp_curve_orders(c),
                           &tmp);
  for (size_t i = 0; i < n && st == PLD_SUCCESS; i++)
    st = pld_rdp_add_poisson_gaussian(tmp, runs[i].q, runs[i].sigma, 1.0,
                                      runs[i].steps);
  if (st == PLD_SUCCESS) st = pld_rdp_curve_compose(c, tmp, 1);
  pld_rdp_curve_free(tmp);
  return st;
}

int pld_merge_rs_accountant(size_t n, const pld_merge_run *runs,
                            const double *pi, const pld_params *params,
                            pld_accountant **out)
{
  pld_detail_clear();
  if (!out) return PLD_EINVAL;
  int st = check_runs(runs, n, RS_MAX);
  if (st == PLD_SUCCESS) st = check_simplex(pi, n);
  if (st != PLD_SUCCESS) return st;
  pld_accountant *mem[RS_MAX] = {0};
  pld_accountant *acc = NULL;
  for (size_t i = 0; i < n && st == PLD_SUCCESS; i++)
    st = member_accountant(&runs[i], params, &mem[i]);
  if (st == PLD_SUCCESS) st = pld_accountant_alloc(params, &acc);
  if (st == PLD_SUCCESS)
    st = pld_accountant_add_selection(
        acc, n, (const pld_accountant *const *)mem, pi, 1);
  for (size_t i = 0; i < n; i++) pld_accountant_free(mem[i]);
  if (st != PLD_SUCCESS) {
    pld_accountant_free(acc);
    return st;
  }
  *out = acc;
  return PLD_SUCCESS;
}

int pld_merge_rs_rdp(size_t n, const pld_merge_run *runs, const double *pi,
                     pld_rdp_curve *c)
{
  pld_detail_clear();
  if (!c) return PLD_EINVAL;
  int st = check_runs(runs, n, RS_MAX);
  if (st == PLD_SUCCESS) st = check_simplex(pi, n);
  if (st != PLD_SUCCESS) return st;
  pld_rdp_curve *mem[RS_MAX] = {0};
  pld_rdp_curve *tmp = NULL;
  const double *ord = pld_rdp_curve_orders(c);
  size_t no = pld_rdp_curve_size(c);
  for (size_t i = 0; i < n && st == PLD_SUCCESS; i++) {
    st = pld_rdp_curve_alloc(no, ord, &mem[i]);
    if (st == PLD_SUCCESS)
      st = pld_rdp_add_poisson_gaussian(mem[i], runs[i].q, runs[i].sigma, 1.0,
                                        runs[i].steps);
  }
  if (st == PLD_SUCCESS) st = pld_rdp_curve_alloc(no, ord, &tmp);
  if (st == PLD_SUCCESS)
    st = pld_rdp_random_selection(n, (const pld_rdp_curve *const *)mem, pi,
                                  tmp);
  if (st == PLD_SUCCESS) st = pld_rdp_curve_compose(c, tmp, 1);
  for (size_t i = 0; i < n; i++) pld_rdp_curve_free(mem[i]);
  pld_rdp_curve_free(tmp);
  return st;
}

int pld_merge_advanced_composition(size_t n, const double *eps_i,
                                   const double *delta_i, double delta0,
                                   double *eps_out,
                                   double *delta_out)
{
  pld_detail_clear();
  if (!eps_i || !delta_i || !eps_out || !delta_out)
    return pld_fail(PLD_EINVAL, "%s is NULL", !eps_i ? "eps_i" : !delta_i ? "delta_i" : !eps_out ? "eps_out" : "delta_out");
  if (n < 1)
    return pld_fail(PLD_EINVAL, "n = 0: an empty composition has no epsilon");
  if (!isfinite(delta0) || !(delta0 > 0.0) || !(delta0 < 1.0))
    return pld_fail(PLD_EINVAL, "delta0 = %g must be in (0, 1)", delta0);
  for (size_t i = 0; i < n; i++) {
    if (!isfinite(eps_i[i]) || eps_i[i] < 0.0)
      return pld_fail(PLD_EINVAL, "eps_i[%zu] = %g must be finite and >= 0", i, eps_i[i]);
    if (!isfinite(delta_i[i]) || delta_i[i] < 0.0 || delta_i[i] > 1.0)
      return pld_fail(PLD_EINVAL, "delta_i[%zu] = %g must be in [0, 1]", i, delta_i[i]);
  }
  /* eps = sqrt(2 log(1/delta0) sum eps_i^2) + sum eps_i (e^{eps_i} - 1);
   * every operation rounded up (log and expm1 by a relative 4u pad). */
  double s2 = 0.0, lin = 0.0, ds = 0.0;
  for (size_t i = 0; i < n; i++) {
    s2 = pld_add_up(s2, pld_mul_up(eps_i[i], eps_i[i]));
    double em = expm1(eps_i[i]);
    em = em * (1.0 + 4.0 * PLD_U);
    lin = pld_add_up(lin, pld_mul_up(eps_i[i], em));
    ds = pld_add_up(ds, delta_i[i]);
  }
  double L = -log(delta0) * (1.0 + 4.0 * PLD_U);
  double r = pld_mul_up(pld_mul_up(2.0, L), s2);
  double sq = sqrt(r);
  sq = nextafter(sq, INFINITY);
  double e = pld_add_up(sq, lin);
  double d = pld_add_up(ds, delta0);
  if (d > 1.0) d = 1.0;
  *eps_out = e;
  *delta_out = d;
  return PLD_SUCCESS;
}

/* ------------------------------------------------------------------------ */

static int mean_ok(double s1, double s2, double w, double D)
{
  return isfinite(s1) && s1 > 0.0 && isfinite(s2) && s2 > 0.0 &&
         isfinite(w) && w >= 0.0 && w <= 1.0 && isfinite(D) && D > 0.0;
}

/* sigma_LC rounded DOWN (pessimistic for the mechanism). */
static double sigma_lc_down(double s1, double s2, double l)
{
  double a = pld_mul_down(l, s1), b = pld_mul_down(1.0 - l, s2);
  double v = pld_mul_down(a, a), w = pld_mul_down(b, b);
  double t = v + w;
  if (t - v > w) t = nextafter(t, 0.0);
  double s = sqrt(t);
  if (s * s > t) s = nextafter(s, 0.0);
  return s;
}

int pld_merge_mean_lc_mech(double sigma1, double sigma2, double lambda,
                           double Delta, pld_mech **out)
{
  pld_detail_clear();
  if (!out || !mean_ok(sigma1, sigma2, lambda, Delta)) return PLD_EINVAL;
  double s = sigma_lc_down(sigma1, sigma2, lambda);
  if (!(s > 0.0)) return PLD_EINVAL;
  return pld_mech_gaussian(s, Delta, out);
}

int pld_merge_mean_sigma_lc(double sigma1, double sigma2, double lambda,
                            double *sigma_lc)
{
  pld_detail_clear();
  if (!sigma_lc || !mean_ok(sigma1, sigma2, lambda, 1.0)) return PLD_EINVAL;
  double a = pld_mul_up(lambda, sigma1), b = pld_mul_up(1.0 - lambda, sigma2);
  double t = pld_add_up(pld_mul_up(a, a), pld_mul_up(b, b));
  *sigma_lc = nextafter(sqrt(t), INFINITY);
  return PLD_SUCCESS;
}

int pld_merge_mean_rs_rdp(double sigma1, double sigma2, double pi,
                          double Delta, pld_rdp_curve *c)
{
  pld_detail_clear();
  if (!c || !mean_ok(sigma1, sigma2, pi, Delta)) return PLD_EINVAL;
  double w[2] = {pi, 1.0 - pi}, m0[2] = {0.0, 0.0}, m1[2] = {Delta, Delta};
  double sd[2] = {sigma1, sigma2};
  return pld_rdp_add_mixture_pair(c, 2, w, m0, sd, 2, w, m1, sd, 1);
}

int pld_merge_mean_rs_mech(double sigma1, double sigma2, double pi,
                           double Delta, pld_mech **out)
{
  pld_detail_clear();
  if (!out || !mean_ok(sigma1, sigma2, pi, Delta)) return PLD_EINVAL;
  double w[2] = {pi, 1.0 - pi}, m0[2] = {0.0, 0.0}, m1[2] = {Delta, Delta};
  double sd[2] = {sigma1, sigma2};
  return pld_mech_mixture_gaussian_general(2, w, m0, sd, 2, w, m1, sd, out);
}

/* ------------------------------------------------------------------------ */

int pld_merge_epsilon(size_t n, const pld_merge_run *runs,
                      const double *weights, int method, double delta,
                      const pld_params *params, double *eps_upper)
{
  pld_detail_clear();
  if (!eps_upper)
    return pld_fail(PLD_EINVAL, "eps_upper is NULL");
  if (!isfinite(delta) || !(delta > 0.0) || !(delta < 1.0))
    return pld_fail(PLD_EINVAL, "delta = %g must be in (0, 1)", delta);
  int st;
  double e = 0.0;
  if (method == PLD_MERGE_RS_PLD || method == PLD_MERGE_LC_PLD) {
    pld_accountant *acc = NULL;
    st = method == PLD_MERGE_RS_PLD
             ? pld_merge_rs_accountant(n, runs, weights, params, &acc)
             : pld_merge_lc_accountant(n, runs, weights, params, &acc);
    if (st != PLD_SUCCESS) return st;
    pld_result r;
    st = pld_accountant_epsilon(acc, delta, &r);
    pld_accountant_free(acc);
    if (st != PLD_SUCCESS) return st;
    e = r.bound.upper;
  } else if (method == PLD_MERGE_RS_RDP || method == PLD_MERGE_LC_RDP) {
    pld_rdp_curve *c = NULL;
    st = pld_rdp_curve_alloc_default(&c);
    if (st != PLD_SUCCESS) return st;
    st = method == PLD_MERGE_RS_RDP ? pld_merge_rs_rdp(n, runs, weights, c)
                                    : pld_merge_lc_rdp(n, runs, weights, c);
    pld_rdp_result r;
    if (st == PLD_SUCCESS) st = pld_rdp_epsilon(c, delta, PLD_RDP_BEST, &r);
    pld_rdp_curve_free(c);
    if (st != PLD_SUCCESS) return st;
    e = r.value;
  } else {
    return PLD_EINVAL;
  }
  *eps_upper = e;
  return PLD_SUCCESS;
}

/* weight w on run 0: (w, 1 - w); exact endpoints avoid rounding off the
 * simplex.  Evaluated through the planner's evaluator (merge_eval.c), so
 * the weight-free work is done once for the whole search: for RS under
 * PLD the two runs' composed PLDs are built once and each weight only
 * mixes them (a certified bracket on that grid, handed to the accountant
 * whenever it misses the accuracy -- as pld_merge_epsilon would answer up
 * to the bracket width); it used to rebuild and recompose both runs at
 * every one of the ~20 evaluations. */
static int eps_at(pld_merge_eval *ev, int method, double w, double *e)
{
  double wt[2] = {w, 1.0 - w}, lo;
  int met;
  return pld_merge_eval_point(ev, method, wt, e, &lo, &met);
}

/* pld_merge_max_weight's question at weight w on run 0: is the certified
 * eps above the target (w infeasible)? */
struct weight_pred {
  pld_merge_eval *ev;
  int method;
  double eps;
};

static int weight_above(double w, void *ctx, int *above)
{
  const struct weight_pred *q = ctx;
  double e;
  int st = eps_at(q->ev, q->method, w, &e);
  if (st == PLD_SUCCESS)
    *above = !(e <= q->eps);
  return st;
}

int pld_merge_max_weight(const pld_merge_run *runs, int method, double eps,
                         double delta, const pld_params *params, double *w0)
{
  pld_detail_clear();
  if (!w0 || !runs)
    return pld_fail(PLD_EINVAL, "%s is NULL", !w0 ? "w0" : "runs");
  if (!isfinite(eps) || eps < 0.0)
    return pld_fail(PLD_EINVAL, "eps = %g must be finite and >= 0", eps);
  if (method < 0 || method > PLD_MERGE_LC_RDP)
    return pld_fail(PLD_EINVAL, "method = %d must be one of the PLD_MERGE_* methods (0..%d)", method, (int)PLD_MERGE_LC_RDP);
  /* the domain checks and codes of pld_merge_epsilon, once, at w0 = 1 */
  double e;
  int st = pld_merge_epsilon(2, runs, (const double[2]){1.0, 0.0}, method,
                             delta, params, &e);
  if (st != PLD_SUCCESS) return st;
  if (e <= eps) {
    *w0 = 1.0;
    return PLD_SUCCESS;
  }
  pld_params p;
  if (params) {
    p = *params;
    if (pld_params_validate(&p) != PLD_SUCCESS) return PLD_EINVAL;
  } else {
    pld_params_default(&p);
  }
  pld_merge_eval *ev = NULL;
  st = pld_merge_eval_new(runs, 2, delta, &p, &ev);
  if (st != PLD_SUCCESS) return st;
  st = eps_at(ev, method, 0.0, &e);
  if (st != PLD_SUCCESS || !(e <= eps)) {
    pld_merge_eval_free(ev);
    if (st == PLD_SUCCESS)
      *w0 = -1.0;
    return st;
  }
  /* lo = 0 feasible (verified), hi = 1 infeasible; relative tolerance: RS
   * frontiers often sit at tiny weights */
  struct weight_pred q = {ev, method, eps};
  st = pld_bisect(weight_above, &q, 0.0, 1.0, 1e-12, 1e-4, INT_MAX, -1, w0);
  pld_merge_eval_free(ev);
  return st;
}
