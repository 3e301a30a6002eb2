/* pldkit: accounting for merged DP-SGD models ("DP model merging" paper:
 * random selection (RS, Sec. 5), linear combination (LC, Sec. 6), the
 * joint-release and advanced-composition baselines (Thm 6.1, Prop. 7.1) and
 * the mean-estimation case study (Sec. 4.1)).
 *
 * Conventions as everywhere in pldkit: every fallible call returns a
 * pld_status; on failure outputs are untouched (an RDP curve gets nothing
 * added); nothing prints or aborts; epsilons in nats.  Input arrays are only
 * read during the call; new objects returned in *out belong to the caller.
 *
 * A run is one DP-SGD training: per step, Poisson sampling with rate q,
 * clipping to L2 norm `clip` (C), Gaussian noise of standard deviation
 * sigma * C (sigma is the noise MULTIPLIER), learning rate `lr` (eta), for
 * `steps` (T) steps.  Adjacency is add/remove; both directions are always
 * accounted.
 */
#ifndef PLDKIT_MERGE_H
#define PLDKIT_MERGE_H

#include <stddef.h>
#include <stdint.h>

#include <pldkit/accountant.h>
#include <pldkit/mech.h>
#include <pldkit/pld.h>
#include <pldkit/rdp.h>
#include <pldkit/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/** One DP-SGD run.  Domain: q in (0, 1], sigma > 0, clip > 0, lr > 0, all
 *  finite; steps >= 1. */
typedef struct pld_merge_run {
  double q;       /**< Poisson sampling rate */
  double sigma;   /**< noise multiplier (noise std = sigma * clip) */
  double clip;    /**< clipping norm C */
  double lr;      /**< learning rate eta */
  uint64_t steps; /**< number of steps T */
} pld_merge_run;

/** Cap on the number of runs of the LC accountants: the LC surrogate has 2^n
 *  mixture components (one per subset of the runs) and pldkit's mixture
 *  constructor takes at most 64; n <= 5 keeps 32. */
#define PLD_MERGE_MAX_RUNS 5

/** Methods of the planner primitives. */
enum pld_merge_method {
  PLD_MERGE_RS_PLD = 0, /**< random selection, PLDs (Thm 5.2) */
  PLD_MERGE_RS_RDP = 1, /**< random selection, RDP (Thm 5.1) */
  PLD_MERGE_LC_PLD = 2, /**< linear combination, surrogate PLD (Thm 6.4) */
  PLD_MERGE_LC_RDP = 3  /**< linear combination, RDP (Thm 6.2, both dirs) */
};

/* ------------------------------------------------------------------------ */
/* Linear combination (papers/merge.c).                                         */

/** The LC surrogate accountant (Thm 6.4, Cor. 6.5, Alg. 4) for the merged
 *  model theta = sum_i lambda_i theta_i of n runs.
 *  Runs are aligned to T = max T_i by virtual steps (Sec. 6.2): at step t
 *  the active runs are those with T_i >= t; an inactive run contributes
 *  nothing (q = 0, no shift, no noise).  Per active set A (at most n
 *  distinct sets, as runs end in order of T_i) the step is the pair
 *    P = sum_{J subset A} rho_J N(Delta_J, s^2),   Q = N(0, s^2),
 *  rho_J = prod_{i in J} q_i prod_{i in A\J} (1 - q_i), w_i = lambda_i
 *  lr_i clip_i, Delta_J = sum_{i in J} w_i, s^2 = sum_{i in A}
 *  (lambda_i lr_i sigma_i clip_i)^2, built with pld_mech_mixture_gaussian
 *  (equal means merged) and added to a new accountant (params copied, NULL
 *  = defaults) with count = number of steps of that type.  Runs with
 *  lambda_i = 0 drop out; a step type whose active runs all have lambda 0
 *  releases nothing and is skipped.
 *  Domain: 1 <= n <= PLD_MERGE_MAX_RUNS; every run valid (see
 *  pld_merge_run); lambda_i >= 0 finite, sum within 1e-12 of 1; each
 *  step's |Delta_J|/s at most 1e6 (pld_mech_mixture_gaussian).
 *  The caller frees *out with pld_accountant_free.  Cost: n mechanism
 *  constructions; the queries cost n FFT self-compositions.
 *  @return PLD_SUCCESS, PLD_EINVAL, PLD_ENOMEM, PLD_EEMPTY (cannot happen
 *  for valid input: some lambda_i > 0). */
PLD_API PLD_NODISCARD int pld_merge_lc_accountant(size_t n,
                                                  const pld_merge_run *runs,
                                                  const double *lambda,
                                                  const pld_params *params,
                                                  pld_accountant **out);

/** One step of the LC surrogate with every run active (the pair of
 *  pld_merge_lc_accountant's step type, runs' steps ignored): the mechanism
 *  that the catalogue's merge-lc event composes `count` times.  lambda_i >=
 *  0 finite, not all 0; the pair is scale-free in lambda (every shift and
 *  the noise scale alike), so lambda need not sum to 1 -- which lets the
 *  steps after a run ended be written with the remaining runs only (Sec.
 *  6.2's virtual steps).  Runs valid (steps may be 0), 1 <= n <=
 *  PLD_MERGE_MAX_RUNS.  A step that releases nothing (every active run
 *  has lambda_i = 0) is PLD_EINVAL.  The caller frees *out with
 *  pld_mech_free.
 *  @return PLD_SUCCESS, PLD_EINVAL, PLD_ENOMEM. */
PLD_API PLD_NODISCARD int pld_merge_lc_step_mech(size_t n,
                                                 const pld_merge_run *runs,
                                                 const double *lambda,
                                                 pld_mech **out);

/** The LC RDP (Thm 6.2 per step type, both directions, via
 *  pld_rdp_add_mixture_gaussian) added to c at c's orders, rounded upward (a
 *  certified upper bound up to that function's quadrature margin); same
 *  step types and domain as pld_merge_lc_accountant.  Computed on a scratch
 *  curve, so c is unchanged on failure.  Cost: n mixture-RDP evaluations.
 *  @return PLD_SUCCESS, PLD_EINVAL, PLD_ENOMEM, PLD_EMAXITER. */
PLD_API PLD_NODISCARD int pld_merge_lc_rdp(size_t n, const pld_merge_run *runs,
                                           const double *lambda,
                                           pld_rdp_curve *c);

/** A run with a per-step schedule: its steps are its phases in order, phase
 *  k running phases[k].steps steps with that phase's q, sigma, clip and lr
 *  (so learning rate, clipping norm, sampling rate and noise may vary over
 *  training; equal steps are grouped by giving them one phase).  A run of
 *  one phase is a plain pld_merge_run. */
typedef struct pld_merge_schedule {
  const pld_merge_run *phases; /**< n_phases phases, each valid */
  size_t n_phases;             /**< >= 1 */
} pld_merge_schedule;

/** Cap on the phases of one scheduled run. */
#define PLD_MERGE_MAX_PHASES 4096u

/** The LC surrogate accountant of pld_merge_lc_accountant for runs with
 *  per-step schedules.  Step t of the merged model is the pair of
 *  pld_merge_lc_accountant built from each run's parameters AT step t (the
 *  phase of run i that contains t; runs with sum of steps < t inactive, as
 *  Sec. 6.2's virtual steps): the per-step argument of Thm 6.4 uses only
 *  that step's q_i, sigma_i, C_i and eta_i, and steps compose (adaptive
 *  composition) whatever their parameters.  The steps are cut at the union
 *  of all runs' phase boundaries; each piece is one pair added with its
 *  length as count (identical pairs are grouped by the accountant).  With
 *  one phase per run this is exactly pld_merge_lc_accountant; a piece in
 *  which every listed run is active is the catalogue's merge-lc event with
 *  that piece's parameters and count = its length, so consecutive merge-lc
 *  events with one entry per run active are this schedule
 *  (docs/merge.md).
 *  Domain: 1 <= n <= PLD_MERGE_MAX_RUNS; each run 1 <= n_phases <=
 *  PLD_MERGE_MAX_PHASES, phases valid (pld_merge_run), its total steps <=
 *  2^53; lambda as pld_merge_lc_accountant.  The caller frees *out with
 *  pld_accountant_free.  Cost: one mechanism construction per piece (at
 *  most the sum of n_phases).
 *  @return PLD_SUCCESS, PLD_EINVAL, PLD_ENOMEM, PLD_ERANGE (a group's count
 *  over 2^53), PLD_EEMPTY (cannot happen for valid input). */
PLD_API PLD_NODISCARD int pld_merge_lc_schedule_accountant(
    size_t n, const pld_merge_schedule *runs, const double *lambda,
    const pld_params *params, pld_accountant **out);

/** The LC RDP (as pld_merge_lc_rdp) of runs with per-step schedules, cut
 *  into the pieces of pld_merge_lc_schedule_accountant; c += the sum over
 *  pieces, rounded upward; c unchanged on failure.  Same domain.
 *  @return PLD_SUCCESS, PLD_EINVAL, PLD_ENOMEM, PLD_EMAXITER. */
PLD_API PLD_NODISCARD int pld_merge_lc_schedule_rdp(
    size_t n, const pld_merge_schedule *runs, const double *lambda,
    pld_rdp_curve *c);

/* ------------------------------------------------------------------------ */
/* Baselines.                                                                */

/** Joint release of all n runs (Thm 6.1, PLD): run i is
 *  pld_mech_poisson_gaussian(q_i, sigma_i, 1) (the noise multiplier is
 *  relative to clip_i, so sensitivity 1) composed T_i times, all in one new
 *  accountant (params copied, NULL = defaults; identical runs are grouped).
 *  Domain: n >= 1 (no cap), runs valid, sigma_i in [1e-6, 1e12] and
 *  steps <= 2^53 (pld_mech_poisson_gaussian, pld_accountant_add).  The
 *  caller frees *out with pld_accountant_free.  Cost O(n^2) grouping.
 *  @return PLD_SUCCESS, PLD_EINVAL, PLD_ENOMEM, PLD_ERANGE (grouped steps
 *  over 2^53). */
PLD_API PLD_NODISCARD int pld_merge_joint_accountant(size_t n,
                                                     const pld_merge_run *runs,
                                                     const pld_params *params,
                                                     pld_accountant **out);

/** Joint release, RDP (Thm 6.1, eq. 7): c += sum_i T_i eps_i(alpha) with
 *  eps_i from pld_rdp_add_poisson_gaussian(q_i, sigma_i, 1), certified
 *  upper; n >= 1, runs valid.  c is unchanged on failure.  Cost n
 *  Poisson-Gaussian RDP evaluations.
 *  @return PLD_SUCCESS, PLD_EINVAL, PLD_ENOMEM, PLD_EMAXITER. */
PLD_API PLD_NODISCARD int pld_merge_joint_rdp(size_t n,
                                              const pld_merge_run *runs,
                                              pld_rdp_curve *c);

/** Random selection of one of the n trained models (Thm 5.2, PLD): one new
 *  accountant holding one selection event among the runs' composed
 *  accountants, run i with probability pi[i] (>= 0, summing to 1 within
 *  1e-12).  Domain: 1 <= n <= 64, runs valid (sigma_i, steps as for
 *  pld_merge_joint_accountant).  params copied (NULL = defaults) into the
 *  new accountant and its members; the caller frees *out with
 *  pld_accountant_free.
 *  @return PLD_SUCCESS, PLD_EINVAL, PLD_ENOMEM. */
PLD_API PLD_NODISCARD int pld_merge_rs_accountant(size_t n,
                                                  const pld_merge_run *runs,
                                                  const double *pi,
                                                  const pld_params *params,
                                                  pld_accountant **out);

/** Random selection, RDP (Thm 5.1 via pld_rdp_random_selection over the
 *  runs' composed Poisson-Gaussian curves on c's orders): c += eps_RS.
 *  Domain as pld_merge_rs_accountant.  c is unchanged on failure.  Cost n
 *  Poisson-Gaussian RDP evaluations plus O(n * orders).
 *  @return PLD_SUCCESS, PLD_EINVAL, PLD_ENOMEM, PLD_EMAXITER. */
PLD_API PLD_NODISCARD int pld_merge_rs_rdp(size_t n, const pld_merge_run *runs,
                                           const double *pi, pld_rdp_curve *c);

/** Advanced composition (Dwork, Rothblum, Vadhan 2010, Thm III.3, as used in
 *  Prop. 7.1) of n mechanisms, mechanism i (eps_i, delta_i)-DP.  For
 *  heterogeneous eps we implement DRV's proof (Azuma on the summed privacy
 *  losses, each in [-eps_i, eps_i] with mean <= eps_i (e^{eps_i} - 1)) with
 *  per-mechanism bounds; Rogers, Roth, Ullman, Vadhan 2016 (Thm 3.5) even
 *  halve the second term, so this is valid and slightly conservative:
 *    eps_out   = sqrt(2 log(1/delta0) sum_i eps_i^2)
 *                + sum_i eps_i (e^{eps_i} - 1),
 *    delta_out = sum_i delta_i + delta0,
 *  which for identical eps_i = eps is eps sqrt(2 n log(1/delta0)) + n eps
 *  (e^eps - 1), the paper's formula.  eps_out rounded upward, delta_out
 *  capped at 1: a certified (eps, delta) pair.  Domain: n >= 1, eps_i >= 0
 *  finite, delta_i in [0, 1], delta0 in (0, 1).  Cost O(n).
 *  @return PLD_SUCCESS, PLD_EINVAL. */
PLD_API PLD_NODISCARD int pld_merge_advanced_composition(
    size_t n, const double *eps_i, const double *delta_i, double delta0,
    double *eps_out, double *delta_out);

/* ------------------------------------------------------------------------ */
/* Mean estimation (Sec. 4.1, Lemma 4.1, Thm 4.2).                           */

/** LC of two Gaussian estimates: the released lambda x1 + (1-lambda) x2 is
 *  exactly N(mu, sigma_LC^2), sigma_LC^2 = lambda^2 sigma1^2 + (1-lambda)^2
 *  sigma2^2, and both estimates shift by Delta between neighbours, so the
 *  combination shifts by Delta: pld_mech_gaussian(sigma_LC, Delta).
 *  Its RDP is alpha Delta^2 / (2 sigma_LC^2) (Lemma 4.1), available through
 *  pld_rdp_add_gaussian(c, sigma_LC, Delta, 1).  sigma_LC is rounded down
 *  here (pessimistic).  Domain: sigma1, sigma2, Delta > 0 finite, lambda in
 *  [0, 1], Delta/sigma_LC in [1e-12, 1e6] (pld_mech_gaussian).  The caller
 *  frees *out with pld_mech_free.
 *  @return PLD_SUCCESS, PLD_EINVAL, PLD_ENOMEM. */
PLD_API PLD_NODISCARD int pld_merge_mean_lc_mech(double sigma1, double sigma2,
                                                 double lambda, double Delta,
                                                 pld_mech **out);

/** sigma_LC(lambda) = sqrt(lambda^2 sigma1^2 + (1-lambda)^2 sigma2^2)
 *  (rounded up: a larger sigma would be optimistic, so callers that need a
 *  certified bound should use pld_merge_mean_lc_mech); same domain.
 *  @return PLD_SUCCESS, PLD_EINVAL. */
PLD_API PLD_NODISCARD int pld_merge_mean_sigma_lc(double sigma1, double sigma2,
                                                  double lambda,
                                                  double *sigma_lc);

/** Exact RDP of RS in mean estimation: c += max over both directions of
 *  D_alpha for P = pi N(0, sigma1^2) + (1-pi) N(0, sigma2^2) and Q = pi
 *  N(Delta, sigma1^2) + (1-pi) N(Delta, sigma2^2)
 *  (pld_rdp_add_mixture_pair), certified upper up to that function's
 *  quadrature margin.  pi in [0, 1]; same domain otherwise.
 *  @return as pld_rdp_add_mixture_pair. */
PLD_API PLD_NODISCARD int pld_merge_mean_rs_rdp(double sigma1, double sigma2,
                                                double pi, double Delta,
                                                pld_rdp_curve *c);

/** The exact RS pair of mean estimation as a PLD mechanism: P = pi N(0,
 *  sigma1^2) + (1-pi) N(0, sigma2^2), Q = pi N(Delta, sigma1^2) + (1-pi)
 *  N(Delta, sigma2^2) (pld_mech_mixture_gaussian_general).  Domain as
 *  pld_merge_mean_rs_rdp.  The caller frees *out with pld_mech_free.
 *  @return PLD_SUCCESS, PLD_EINVAL, PLD_ENOMEM. */
PLD_API PLD_NODISCARD int pld_merge_mean_rs_mech(double sigma1, double sigma2,
                                                 double pi, double Delta,
                                                 pld_mech **out);

/* ------------------------------------------------------------------------ */
/* Planner primitives.                                                       */

/** eps(delta) certified upper bound of a merge: method one of
 *  pld_merge_method; weights = lambda (LC) or pi (RS), n runs (n <= 5 for
 *  LC, <= 64 for RS); delta in (0, 1); params (NULL = defaults) for the PLD
 *  methods (ignored by the RDP methods, which use the default order grid
 *  and the best conversion).  *eps_upper may be +INFINITY.  Cost: one
 *  pld_accountant_epsilon, or one RDP curve and conversion.
 *  @return PLD_SUCCESS, PLD_EINVAL (also an unknown method), and the codes
 *  of the accountant and RDP functions used. */
PLD_API PLD_NODISCARD int pld_merge_epsilon(size_t n,
                                            const pld_merge_run *runs,
                                            const double *weights,
                                            int method, double delta,
                                            const pld_params *params,
                                            double *eps_upper);

/** For n = 2 runs (runs[0..2)): the largest weight w0 in [0, 1] on run 0
 *  (weights (w0, 1 - w0)) whose certified eps(delta) (pld_merge_epsilon) is
 *  <= eps.  Put
 *  the LESS private run at index 0: the search assumes feasibility at w0 = 0
 *  and that the certified eps grows with w0 (true for RS, whose curve is
 *  linear/log-sum-exp in the weight; for LC it is the typical case, not a
 *  theorem -- the returned w0 itself is always verified feasible).
 *  Bisection until the bracket is within 1e-4 relative (of its upper end;
 *  absolute floor 1e-12: RS frontiers often sit at tiny weights); *w0 = 1
 *  if w0 = 1 is feasible (checked first), -1 if w0 = 0 is not.  eps >= 0
 *  finite (nats), delta in (0, 1).  Cost ~15-40 evaluations of
 *  pld_merge_epsilon; for RS under PLD the two runs are composed once and
 *  each evaluation only mixes their PLDs (a certified bracket on that grid;
 *  where it misses params' accuracy, the accountant answers, as in
 *  pld_merge_epsilon), so its upper ends may differ from
 *  pld_merge_epsilon's within that accuracy.
 *  @return PLD_SUCCESS, PLD_EINVAL, and the codes of pld_merge_epsilon. */
PLD_API PLD_NODISCARD int pld_merge_max_weight(const pld_merge_run *runs,
                                               int method, double eps,
                                               double delta,
                                               const pld_params *params,
                                               double *w0);


/* ------------------------------------------------------------------------ */
/* The merge planner (papers/merge_plan.c): what `pldkit merge` prints.      */

/** Progress of a long call: fraction of the work done in [0, 1] and a short
 *  static name of the stage ("runs", "baselines", "grid", "max weight").
 *  Called from the calling thread only; it must not call back into the
 *  planner.  May be NULL. */
typedef void (*pld_merge_progress_fn)(void *ctx, double fraction,
                                      const char *stage);

/** The planner's four methods, in the order of the arrays of
 *  pld_merge_point and pld_merge_report.max_weight (enum pld_merge_method
 *  values are the indices). */
#define PLD_MERGE_N_METHODS 4

/** Cap on the weight grid: at most this many simplex points. */
#define PLD_MERGE_MAX_POINTS 100000u
/** Default cap on a plan's work, in grid points x 2^n (the LC surrogate of n
 *  runs has 2^n mixture components, and each grid point composes one).  A
 *  unit costs about 3-5 ms of CPU (bench/bench_merge.c): 3 runs at
 *  resolution 10 (66 points x 8 = 528) take about 2 s, 4 runs with four
 *  step counts at resolution 10 (286 x 16 = 4576) about 22 s, so the cap
 *  (about 40 s) admits both; 5 runs at resolution 10 (1001 x 32 = 32032,
 *  minutes) are refused up front unless pld_merge_plan.max_work (the CLI's
 *  --max-work) raises the cap.  (It was 1024 when a unit cost ~0.1 s.) */
#define PLD_MERGE_DEFAULT_MAX_WORK 8192u
/** Cap on the grid resolution. */
#define PLD_MERGE_MAX_RESOLUTION 10000u

/** What the planner is asked. */
typedef struct pld_merge_plan {
  const pld_merge_run *runs; /**< n runs, each valid (pld_merge_run) */
  size_t n;                  /**< 1 .. PLD_MERGE_MAX_RUNS */
  double epsilon;            /**< target epsilon' (nats), > 0 finite */
  double delta;              /**< target delta' in (0, 1) */
  unsigned resolution;       /**< grid weights k/resolution; 0 = default:
                                  20 for n <= 2, 10 for n >= 3 (n = 1: 1) */
  double accuracy;           /**< relative bracket width of the PLD grid
                                  points and searches, (0, 1); 0 = 0.01 */
  pld_merge_progress_fn progress; /**< may be NULL */
  void *progress_ctx;
  size_t max_work;           /**< cap on grid points x 2^n; 0 =
                                  PLD_MERGE_DEFAULT_MAX_WORK; a plan above it
                                  is refused (PLD_ERANGE, the detail names
                                  its work and the cap) */
  unsigned threads;          /**< threads evaluating the weight grid: 0 or
                                  1 = the calling thread only; at most
                                  PLD_MERGE_MAX_THREADS (more are capped).
                                  Each point is computed alone, so every
                                  number of the report is the same bit for
                                  bit whatever the count; progress is
                                  reported from the calling thread only */
} pld_merge_plan;

/** Cap on pld_merge_plan.threads. */
#define PLD_MERGE_MAX_THREADS 64u

/** One grid point's answers, indexed by enum pld_merge_method. */
typedef struct pld_merge_point {
  double upper[PLD_MERGE_N_METHODS]; /**< certified eps(delta') upper */
  double lower[PLD_MERGE_N_METHODS]; /**< PLD lower end; NAN for RDP */
  int feasible[PLD_MERGE_N_METHODS]; /**< upper <= epsilon' */
  int met_accuracy[PLD_MERGE_N_METHODS]; /**< the PLD bracket is within
                                  the requested accuracy (1 for RDP) */
} pld_merge_point;

/** Warning flags of pld_merge_report.warnings (pld_merge_warning_text). */
enum pld_merge_warning {
  /** some PLD bracket is wider than the requested accuracy (its upper end
   *  is still certified; see met_accuracy) */
  PLD_MERGE_WARN_ACCURACY = 1u << 0,
  /** no grid point meets epsilon' with any method */
  PLD_MERGE_WARN_INFEASIBLE = 1u << 1,
  /** advanced composition is vacuous: some run's own epsilon at
   *  delta'/(2N) is infinite */
  PLD_MERGE_WARN_ADVANCED_INFINITE = 1u << 2,
  /** n = 2: the LC largest-weight search assumes the certified epsilon
   *  grows with the weight on run 0 (typical, not a theorem; the weight
   *  returned is itself verified) and the LC grid is not monotone */
  PLD_MERGE_WARN_LC_NOT_MONOTONE = 1u << 3,
  /** n = 2: no weight is feasible for some method (max_weight -1) */
  PLD_MERGE_WARN_NO_WEIGHT = 1u << 4
};

/** A short one-line text of one warning flag (static; "" for an unknown
 *  flag). */
PLD_API const char *pld_merge_warning_text(unsigned flag);

/** What the planner answers.  Runs are sorted: run 0 is the LESS private
 *  one (largest own certified eps(delta') upper end, stable), so the
 *  weight on run 0 trades privacy for the stronger-signal model; order[i]
 *  is sorted run i's index in pld_merge_plan.runs. */
typedef struct pld_merge_report {
  size_t n;
  size_t order[PLD_MERGE_MAX_RUNS];
  pld_merge_run runs[PLD_MERGE_MAX_RUNS];  /**< sorted */
  pld_bound own_eps[PLD_MERGE_MAX_RUNS];   /**< own eps(delta'), default
                                               params */
  int own_met_accuracy[PLD_MERGE_MAX_RUNS];
  double epsilon, delta, accuracy;         /**< as used */
  unsigned resolution;                     /**< as used */
  /** Joint release (Thm 6.1): PLD bracket (default params), RDP upper. */
  pld_bound joint_pld;
  int joint_pld_met_accuracy;
  double joint_rdp;
  /** Advanced composition (Prop. 7.1): eps_i = run i's own certified
   *  eps(delta_i) at delta_i = delta'/(2N) (default params), delta0 =
   *  delta'/2, total delta adv_delta = delta'.  adv_eps = +INFINITY when a
   *  run's eps_i is infinite. */
  double adv_eps, adv_delta, adv_delta_i, adv_delta0;
  double adv_eps_i[PLD_MERGE_MAX_RUNS];
  /** n = 2 only (else NAN): largest feasible weight on run 0 per method
   *  (pld_merge_max_weight; -1 = none, 1 = all). */
  double max_weight[PLD_MERGE_N_METHODS];
  /** The grid: n_points weight vectors (weights[g * n + i], k_0 ascending,
   *  then k_1, ...; the last weight takes the remainder) and their
   *  answers. */
  size_t n_points;
  double *weights;
  pld_merge_point *points;
  unsigned warnings; /**< OR of enum pld_merge_warning */
} pld_merge_report;

/** Number of simplex grid points C(resolution + n - 1, n - 1) of n runs at
 *  a resolution (1 <= n <= PLD_MERGE_MAX_RUNS, 1 <= resolution <=
 *  PLD_MERGE_MAX_RESOLUTION).  @return PLD_SUCCESS, PLD_EINVAL, PLD_ERANGE
 *  (more than PLD_MERGE_MAX_POINTS points). */
PLD_API PLD_NODISCARD int pld_merge_grid_size(size_t n, unsigned resolution,
                                              size_t *count);

/** The merge planner: for each grid point the certified eps(delta') of RS
 *  and LC under PLD (plan->accuracy) and RDP (default orders, best
 *  conversion), feasibility against epsilon', the baselines, and for n = 2
 *  the largest feasible weight on run 0 per method.  Members of RS are
 *  built once and reused across points (docs/merge.md).  The caller frees
 *  *out with pld_merge_report_free.  Progress goes to plan->progress.
 *  @return PLD_SUCCESS, PLD_EINVAL (plan NULL or a field out of its
 *  domain), PLD_ERANGE (too many grid points), PLD_ENOMEM, and the codes of
 *  the accountant and RDP functions it calls; *out untouched on failure. */
PLD_API PLD_NODISCARD int pld_merge_plan_compute(const pld_merge_plan *plan,
                                                 pld_merge_report **out);

/** Free a report (NULL is a no-op). */
PLD_API void pld_merge_report_free(pld_merge_report *r);

#ifdef __cplusplus
}
#endif
#endif
