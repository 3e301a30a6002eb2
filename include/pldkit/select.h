/* pldkit: random selection of composed mechanisms, and calibration.
 *
 * Random selection (RS, merging paper Alg. 2, Thm 5.2): output member i's
 * (composed) result with probability pi_i.  Its PLD in each direction is the
 * pi-mixture of the members' PLDs, so
 *     delta_RS(eps) = max(sum pi_i H(P_i || Q_i), sum pi_i H(Q_i || P_i)),
 * with the upper end from the members' pessimistic PLDs and the lower end
 * from their optimistic ones, and the mixture composes further like any PLD.
 */
#ifndef PLDKIT_SELECT_H
#define PLDKIT_SELECT_H

#include <stddef.h>
#include <stdint.h>

#include <pldkit/accountant.h>
#include <pldkit/pld.h>
#include <pldkit/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The pi-mixture of n >= 1 PLDs on the same grid (bit-identical Delta,
 *  PLD_EINCOMPAT otherwise): the PLD of selecting member i with probability
 *  weights[i] (finite, >= 0, summing to 1 within 1e-12; members of weight 0
 *  are ignored).  Both roundings are mixed, so the result stays a certified
 *  bracket (booked errors: the largest rel_err plus 4 n u, the weighted sum
 *  of abs_err).  The members are only read; the caller frees *out with
 *  pld_dist_free.  Cost O(union of the members' grid ranges + sum of their
 *  grid sizes).
 *  @return PLD_SUCCESS, PLD_EINVAL (NULL, bad weights), PLD_EINCOMPAT,
 *  PLD_ENOMEM. */
PLD_API PLD_NODISCARD int pld_dist_mix(size_t n, const pld_dist *const *members,
                                       const double *weights, pld_dist **out);

/** Append `count` runs (1 <= count <= 2^53) of a random selection among n
 *  member accountants (1 <= n <= 4096), member i with probability
 *  weights[i] (finite, >= 0, summing to 1 within 1e-12).  At query time
 *  each member is composed (with its own params) on acc's grid and the
 *  results mixed as by pld_dist_mix.  The members are deep-copied, so later
 *  changes to them do not affect acc.  Selection events are never grouped.
 *  @return PLD_SUCCESS, PLD_EINVAL, PLD_ENOMEM, PLD_EEMPTY (a member with no
 *  events). */
PLD_API PLD_NODISCARD int pld_accountant_add_selection(
    pld_accountant *acc, size_t n, const pld_accountant *const *members,
    const double *weights, uint64_t count);

/** Deep copy of an accountant (params and every event).  The caller frees
 *  *out with pld_accountant_free.
 *  @return PLD_SUCCESS, PLD_EINVAL (NULL), PLD_ENOMEM. */
PLD_API PLD_NODISCARD int pld_accountant_copy(const pld_accountant *acc,
                                              pld_accountant **out);

/** Work cap of pld_select_feasible: simplex-grid points it may visit. */
#define PLD_SELECT_MAX_TUPLES 1e8

/** Feasible selection weights for a target (eps, delta) from the members'
 *  delta brackets at eps: `member_delta[i * 2 + dir]` (in [0, 1]) is member
 *  i's certified (upper) delta at eps in direction dir.  delta_RS is linear
 *  in pi in each direction, so feasibility is exact (up to rounding of the
 *  sums): pi is feasible iff max_dir sum_i pi_i member_delta[i][dir] <= delta.
 *
 *  pld_select_feasible: evaluates the simplex grid of the given resolution
 *  (pi_i = k_i / resolution, sum k_i = resolution) for 1 <= n <= 4,
 *  resolution in [1, 100000], delta in (0, 1); writes up to `cap` feasible
 *  weight vectors (n doubles each, k_1 varying fastest) to `out_weights`
 *  (may be NULL if cap = 0) and their number to *n_out (which may exceed
 *  cap: then only cap are written).  Cost O((resolution + 1)^(n-1)), at
 *  most PLD_SELECT_MAX_TUPLES (1e8, ~0.3 s): resolution up to 100000 for
 *  n = 2, 9999 for n = 3, 463 for n = 4; beyond, PLD_ERANGE.
 *  @return PLD_SUCCESS, PLD_EINVAL (NULL, n, resolution or delta out of
 *  range, a member_delta outside [0, 1] or NaN), PLD_ERANGE (over the work
 *  cap). */
PLD_API PLD_NODISCARD int pld_select_feasible(size_t n,
                                              const double *member_delta,
                                              double delta,
                                              unsigned resolution,
                                              double *out_weights, size_t cap,
                                              size_t *n_out);
/** For n = 2 (member_delta[0..4)): the largest pi in [0, 1] such that
 *  (pi, 1 - pi) is feasible, in closed form and then stepped down until the
 *  check above holds in floating point; *pi0 = 1 when pi = 1 is feasible,
 *  -1 when no pi is.  Cost O(1).
 *  @return PLD_SUCCESS, PLD_EINVAL (NULL, delta outside (0, 1), a
 *  member_delta outside [0, 1] or NaN). */
PLD_API PLD_NODISCARD int pld_select_max_weight(const double *member_delta,
                                                double delta, double *pi0);

/* ------------------------------------------------------------------------ */
/* Calibration: the value of one parameter (a noise scale, a sampling rate,  */
/* a number of runs, ...) at which a composition meets a target (eps, delta).*/
/*                                                                          */
/* Every evaluation gives an epsilon BRACKET [lower, upper] at the target    */
/* delta, and the target epsilon sorts it into one of three verdicts:        */
/*   MEETS      upper <= target: certified to meet the target;               */
/*   FAILS      lower >  target: certified NOT to meet it;                   */
/*   UNDECIDED  lower <= target < upper (upper may be +inf): the bracket is   */
/*              too wide to tell, and nothing follows from it.               */
/* The searches below never treat UNDECIDED as FAILS: "does not meet" is     */
/* only ever said of a value whose lower end exceeds the target.  The value  */
/* returned always MEETS by its certified upper end, whatever the            */
/* monotonicity in between; the statement "every less private value fails"   */
/* is an inference from the assumed monotonicity, made only from a FAILS.    */
/* ------------------------------------------------------------------------ */

/** The three verdicts (values are stable, ABI). */
enum pld_verdict {
  PLD_VERDICT_MEETS = 0,    /**< upper end <= target */
  PLD_VERDICT_FAILS = 1,    /**< lower end > target */
  PLD_VERDICT_UNDECIDED = 2 /**< target inside the bracket, or NaN */
};

/** The verdict of bracket b against `target`: PLD_VERDICT_MEETS if
 *  b.upper <= target, PLD_VERDICT_FAILS if b.lower > target, else (the
 *  target inside the bracket, an infinite upper end, or a NaN anywhere)
 *  PLD_VERDICT_UNDECIDED.  Never fails.  Cost O(1). */
#ifdef PLD_EXPERIMENTAL
PLD_EXPERIMENTAL_API int pld_verdict(pld_bound b, double target);
#endif

/** Calibration callback: build a new accountant for parameter value `param`
 *  into *out and return PLD_SUCCESS, or return a non-zero status (passed
 *  through by pld_calibrate).  pld_calibrate frees the accountant (also one
 *  left in *out on failure).  For an integer search (pld_search_opts.integer)
 *  param is an integer-valued double (exact up to 2^53). */
typedef int (*pld_build_fn)(double param, void *ctx, pld_accountant **out);
/** Progress callback: called after each evaluation (numbered from 1,
 *  refinements included) with the parameter value and the certified epsilon
 *  upper end found there. */
typedef void (*pld_progress_fn)(void *ctx, unsigned evaluation, double param,
                                double eps_upper);

/** The result of pld_calibrate. */
typedef struct pld_calibration {
  double param;         /**< the smallest value found that meets the target */
  double param_fail;    /**< the largest value found below `param` that is
                             not certified to meet it (FAILS or UNDECIDED;
                             pld_calibrate_accountant tells them apart), 0
                             if the lower search limit still met it */
  pld_result at_param;  /**< the epsilon bracket at `param` */
  unsigned evaluations; /**< number of accountant evaluations */
} pld_calibration;

/** Noise calibration: the smallest parameter value (e.g. sigma) such that
 *  the event list built by `build` meets (epsilon, delta) by its CERTIFIED
 *  upper end (pld_accountant_epsilon), assuming epsilon decreases as the
 *  parameter grows.  This is pld_calibrate_accountant with direction +1,
 *  the real domain [1e-12 start, 1e12 start], refinement on (see there):
 *  bracketing from `start` by doubling or halving, then bisection until the
 *  bracket width is <= rel_tol * its upper end; the returned param was
 *  evaluated and met the target, so it is never over budget whatever the
 *  monotonicity does in between.  An evaluation that fails for size or
 *  accuracy (PLD_ERANGE, PLD_ETOL, PLD_EMAXITER) counts as UNDECIDED.
 *  Domain: epsilon finite >= 0 (nats), delta in (0, 1), start finite > 0,
 *  rel_tol in (0, 1); build non-NULL, progress may be NULL.  Cost: one
 *  accountant build and epsilon query per evaluation, about log2(bracket
 *  ratio) + log2(1/rel_tol) evaluations, more when values are UNDECIDED.
 *  @return PLD_SUCCESS, PLD_EINVAL, PLD_ETOL (no value up to 1e12 * start is
 *  certified to meet the target), PLD_EMAXITER (over PLD_SEARCH_MAX_EVALS
 *  evaluations), PLD_ECALLBACK (build returned success without an
 *  accountant), build's own status, or another status of
 *  pld_accountant_epsilon; *out is untouched on failure. */
PLD_API PLD_NODISCARD int pld_calibrate(pld_build_fn build, void *ctx,
                                        double epsilon, double delta,
                                        double start, double rel_tol,
                                        pld_progress_fn progress,
                                        void *progress_ctx,
                                        pld_calibration *out);

/** Most evaluations (refinements included) one search may make. */
#define PLD_SEARCH_MAX_EVALS 400

/** How to search (pld_search_opts_default fills the noise-scale defaults). */
typedef struct pld_search_opts {
  double start;    /**< first value tried, in [lo, hi] */
  double lo, hi;   /**< the domain searched: finite, 0 <= lo < hi; the
                        search never evaluates outside it (it doubles and
                        halves, clamped to it) */
  double rel_tol;  /**< real search: a threshold is located when the two
                        values around it are within rel_tol * the meeting
                        value; in (0, 1) */
  int integer;     /**< 1: integers only (lo, hi, start integers, hi <=
                        2^53); a threshold is located between neighbours */
  int direction;   /**< +1: larger values are more private (noise scales);
                        -1: smaller values are (counts, sampling rates,
                        sensitivities) */
  int refine;      /**< 1: before an UNDECIDED value is reported as the
                        neighbour of the answer (or of the largest certified
                        failure), evaluate it again with refinement (see
                        pld_eval_fn) */
  int fail_search; /**< 1: when UNDECIDED values lie next to the answer,
                        also locate the most private value certified to
                        FAIL (so that the answer's uncertainty is known);
                        0 for evaluators whose lower end is always 0 (RDP) */
  double accuracy; /**< pld_calibrate_accountant only: the relative
                        accuracy against which a refined bracket's
                        met_accuracy is judged (0: the default params') */
} pld_search_opts;

/** Defaults for a noise scale: start 1, domain [1e-12, 1e12], rel_tol 1e-3,
 *  real, direction +1, refine 1, fail_search 1, accuracy 0.  NULL is a
 *  no-op. */
PLD_API void pld_search_opts_default(pld_search_opts *opts);

/** Set opts->lo, hi, integer and start for a search over a parameter whose
 *  own domain is [dom_lo, dom_hi] (finite, 0 <= dom_lo < dom_hi), cut to a
 *  user's range [range_lo, range_hi] when range_hi > 0 (none when <= 0).
 *  An integer parameter (integer != 0) takes the integers inside the range.
 *  start: 1 without a range, else the range's geometric middle
 *  sqrt(lo * hi); rounded down for an integer; clamped into [lo, hi].  The
 *  other fields are left as they are.  This is `pldkit calibrate --range`.
 *  @return PLD_SUCCESS; PLD_EINVAL for a NULL opts, a bad domain or a range
 *  not inside it (or lo >= hi); PLD_ERANGE for an integer range holding
 *  fewer than two integers.  opts untouched on failure. */
PLD_API int pld_search_opts_domain(pld_search_opts *opts, double dom_lo,
                                   double dom_hi, int integer,
                                   double range_lo, double range_hi);

/** The result of a calibration search.  `param` is the LEAST private value
 *  found that MEETS (the smallest noise, the largest count or sampling
 *  rate); next to it, on the less private side, lies `param_next`, the
 *  nearest value evaluated that does not (FAILS or UNDECIDED); further on,
 *  `param_fail`, the most private value evaluated that FAILS.  Under the
 *  monotonicity assumption the true threshold lies between param_fail and
 *  param; `located` says that these two are within the tolerance. */
typedef struct pld_search_result {
  int found;             /**< 1 if a value in the domain MEETS */
  double param;          /**< that value (NAN if !found) */
  pld_result at_param;   /**< its bracket (zeroed if !found) */
  int at_limit;          /**< param is the less private end of the domain
                              (lo for direction +1, hi for -1): every value
                              tried met, no threshold inside the domain */
  double param_next;     /**< the nearest value evaluated on the less
                              private side of param that does not MEET (if
                              !found: the most private value evaluated); NAN
                              if none (at_limit) */
  int verdict_next;      /**< PLD_VERDICT_FAILS or PLD_VERDICT_UNDECIDED */
  int next_status;       /**< the evaluator's status there: PLD_SUCCESS, or
                              PLD_ERANGE / PLD_ETOL / PLD_EMAXITER (it could
                              not evaluate; at_next.bound is then [0, inf]) */
  int next_refined;      /**< at_next is a refined evaluation (a
                              refinement was asked for and gave a bracket) */
  pld_result at_next;    /**< its bracket */
  double param_fail;     /**< the most private value evaluated that FAILS,
                              on the less private side of param; NAN if none
                              (e.g. fail_search = 0) */
  pld_result at_fail;    /**< its bracket */
  int located;           /**< 1: found and (at_limit, or param_fail within
                              the tolerance of param): the threshold is known
                              to the tolerance.  0 with found: UNDECIDED
                              values wider than the tolerance lie between
                              param_fail and param; a smaller noise (larger
                              count, ...) may meet the target too */
  int nonmonotone;       /**< 1: a value certified to FAIL was found on the
                              private side of one certified to MEET: the
                              monotonicity the search assumes is false here
                              (param still meets, certified) */
  unsigned evaluations;  /**< evaluator calls, refinements included */
  unsigned refinements;  /**< of which refinements */
} pld_search_result;

/** One evaluation of a search: the epsilon bracket at the target delta for
 *  parameter value `param`, into *out.  The search reads out->bound (and
 *  reports the rest back).  prev == NULL asks for a plain evaluation;
 *  prev != NULL (what the plain one gave, UNDECIDED) asks for a refined one
 *  at the same param: return a bracket no wider (the search intersects it
 *  with prev's), or PLD_EUNSUPPORTED when there is nothing better to offer.
 *  PLD_ERANGE, PLD_ETOL and PLD_EMAXITER mark the value UNDECIDED (bracket
 *  [0, inf]); any other non-zero status stops the search and is returned. */
typedef int (*pld_eval_fn)(double param, const pld_result *prev, void *ctx,
                           pld_result *out);

/** The generic monotone search behind every calibration.  With
 *  opts->direction = +1 it finds the smallest value of [lo, hi] that MEETS
 *  `epsilon` (the largest with -1), assuming the true epsilon is monotone in
 *  the parameter.  Bracketing from start (doubling or halving, clamped to the
 *  domain), then bisection (arithmetic midpoints; integer midpoints for an
 *  integer search) between the least private MEETS and its nearest
 *  non-MEETS neighbour until they are within rel_tol (neighbours for
 *  integers); an UNDECIDED neighbour is then refined (opts->refine), and if
 *  it turns to MEETS the search goes on below it (from then on refining every
 *  UNDECIDED value on that side as soon as it is seen, so that the bisection
 *  runs on refined verdicts instead of crawling).  With fail_search, the
 *  same is done between the most private FAILS and the least private
 *  UNDECIDED value, so that the result brackets the threshold by two
 *  certified statements.  UNDECIDED is never taken for FAILS.
 *  Domain: eval non-NULL; epsilon finite >= 0; opts non-NULL (see
 *  pld_search_opts; direction +1 or -1); progress may be NULL.  Cost: one
 *  eval per step, about log2(hi/lo) + log2(1/rel_tol) steps (twice that
 *  and the refinements when UNDECIDED values appear), at most
 *  PLD_SEARCH_MAX_EVALS.
 *  @return PLD_SUCCESS (also when no value meets: out->found = 0),
 *  PLD_EINVAL (bad arguments), PLD_EMAXITER (over PLD_SEARCH_MAX_EVALS),
 *  PLD_ENOMEM, or eval's status; *out is untouched on failure. */
PLD_API PLD_NODISCARD int pld_calibrate_search(pld_eval_fn eval, void *ctx,
                                               double epsilon,
                                               const pld_search_opts *opts,
                                               pld_progress_fn progress,
                                               void *progress_ctx,
                                               pld_search_result *out);

/** pld_calibrate_search over accountants: each evaluation builds the
 *  accountant for the value with `build` and asks pld_accountant_epsilon at
 *  `delta`.  A refinement (of an UNDECIDED value whose answer came from a
 *  grid) re-composes the same accountant on other fixed grids
 *  (pld_accountant_compose, pld_dist_epsilon): coarser ones (2 to 256 times
 *  the step: less booked FFT round-off, which can make a fine grid's upper
 *  end infinite at small delta) and finer ones (1/2, 1/4: a narrower
 *  bracket), first those likelier to help, stopping as soon as the verdict
 *  is decided or a grid fails (e.g. over max_grid); the answer is the
 *  intersection of every bracket (each is certified, so the intersection
 *  is), its met_accuracy judged against opts->accuracy and the default
 *  abs_accuracy.  Closed-form answers and accountants with a fixed grid from
 *  added PLDs are not refined.
 *  Domain: as pld_calibrate_search, and delta in (0, 1), build non-NULL.
 *  Cost: per evaluation one build and one query; per refinement one build and
 *  up to 10 compositions.
 *  @return as pld_calibrate_search, plus PLD_ECALLBACK (build returned
 *  success without an accountant), build's own status, and the statuses of
 *  pld_accountant_epsilon other than those counted UNDECIDED. */
PLD_API PLD_NODISCARD int pld_calibrate_accountant(
    pld_build_fn build, void *ctx, double epsilon, double delta,
    const pld_search_opts *opts, pld_progress_fn progress, void *progress_ctx,
    pld_search_result *out);

#ifdef __cplusplus
}
#endif
#endif
