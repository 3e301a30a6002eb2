/* pldkit: accountant -- a list of events (mechanism, count), composed and
 * queried with an automatically chosen grid.
 *
 * Identical events are grouped and self-composed with one FFT each; all
 * Gaussian events are first merged exactly (a composition of Gaussian
 * mechanisms with mu_i is the Gaussian with mu = sqrt(sum mu_i^2)), and a
 * list of Gaussians only is answered in closed form.
 *
 * Automatic discretization (params->discretization == 0): the grid step is
 * refined until (upper - lower) <= max(accuracy * upper, floor) for the query
 * at hand -- floor = abs_accuracy for epsilon, PLD_DELTA_FLOOR (1e-300) for
 * delta: the rule of pld_bound_meets -- or until
 * params->max_grid would be exceeded, the width stops shrinking at least
 * linearly with the step, or 12 grids were tried, whichever comes first (if
 * even the first grid exceeds max_grid it is coarsened, up to 8 times by 4).
 * The bracket returned is the intersection of all brackets seen, always
 * valid, only possibly wider than asked (then pld_result.met_accuracy is 0).
 * A fixed grid (params->discretization > 0, or the one set by
 * pld_accountant_add_dist) is used once, as is.
 *
 * Bounds without a grid (docs/design.md Sec. 9).  The grid books each
 * run's relative curve error, compounding as (1 + rel)^count, so from about
 * 2^38 runs it certifies nothing; wherever the grid misses the target
 * width (or cannot run), the answer therefore also takes the bounds that
 * need no grid (where the grid meets it, no bound can move either end by
 * more than that width): basic composition, advanced composition (the
 * Kairouz-Oh-Viswanath worst case bounded by Chernoff, Gaussian events
 * exactly), one run of each event and the Gaussian events alone (lower
 * ends), and, when the bracket still misses its target, the composed
 * loss's mean and variance (a lower end by Cantelli's inequality).  The
 * answer is the smallest proven upper end and the largest proven lower end;
 * pld_result.bound_kind and .lower_kind name the bound behind each.  The
 * grid is skipped when its booked error rules out anything useful, and a
 * grid that does not fit max_grid leaves the answer to them.  Selections and added PLDs have no such
 * bounds: a list holding one gets its upper end from the grid only.  For
 * the RDP bound on top, see best.h.
 *
 * Cost of a query: a few coarse probe builds to pick the first grid, then
 * per grid tried one PLD build and one FFT self-composition per event group
 * (per member event for selections) and one composition between groups.
 * The grid-free bounds cost a few hundred curve evaluations per event
 * group; the mean and variance a few hundred loss-tail evaluations per
 * group and direction, and, where that estimate says the bound can beat
 * the lower end in hand, up to 2^17.  A list of Gaussians only is
 * answered in closed form at negligible cost.
 */
#ifndef PLDKIT_ACCOUNTANT_H
#define PLDKIT_ACCOUNTANT_H

#include <stddef.h>
#include <stdint.h>

#include <pldkit/mech.h>
#include <pldkit/pld.h>
#include <pldkit/status.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pld_accountant pld_accountant;

/** Which proven bound gave an end of an answer (pld_result.bound_kind for
 *  the upper end, .lower_kind for the lower end).  The answer is the
 *  tightest of the bounds the library has: its upper end the smallest of
 *  the proven upper bounds, its lower end the largest of the proven lower
 *  bounds (docs/design.md, Sec. 9). */
enum pld_bound_kind {
  /** none: the trivial end (epsilon upper +inf, delta upper 1, lower 0) */
  PLD_BOUND_NONE = 0,
  /** the PLD composed on a grid (pessimistic or optimistic member) */
  PLD_BOUND_GRID = 1,
  /** exact Gaussian composition; for a lower end: the list's Gaussian
   *  events alone */
  PLD_BOUND_CLOSED_FORM = 2,
  /** the events' Renyi-DP curve converted (pld_best_epsilon, best.h) */
  PLD_BOUND_RDP = 3,
  /** basic composition: (sum eps_i, sum delta_i) */
  PLD_BOUND_BASIC = 4,
  /** advanced composition: the Kairouz-Oh-Viswanath worst case (binary
   *  randomized response per run) bounded by Chernoff */
  PLD_BOUND_ADVANCED = 5,
  /** lower ends only: one run of one event (composing never lowers
   *  epsilon(delta) or delta(epsilon)) */
  PLD_BOUND_SINGLE_RUN = 6,
  /** lower ends only: the composed loss's mean and variance (Cantelli's
   *  inequality on a law below each run's loss; no error compounds over
   *  the runs, so it stays sharp at huge counts, where epsilon is about
   *  the count times the Kullback-Leibler divergence) */
  PLD_BOUND_MOMENTS = 7,
  /** both ends: the Laplace inversion of the composed moment generating
   *  function, without a grid, every error term bounded (docs/design.md
   *  §16); used for lists of a few distinct Poisson-subsampled Gaussians,
   *  Gaussians and Laplace mechanisms with many runs */
  PLD_BOUND_INVERSION = 8
};

/** A short lowercase name of a pld_bound_kind ("grid", "closed-form",
 *  "rdp", "basic", "advanced", "single-run", "moments", "inversion", "none";
 *  "unknown"
 *  for other values).  Never NULL; static. */
PLD_API const char *pld_bound_kind_name(int kind);

/** Why an answer's bracket is wider than asked (pld_result.width_limit,
 *  meaningful when met_accuracy is 0). */
enum pld_width_limit {
  /** the grid: its step, max_grid, a fixed discretization, or round-off */
  PLD_WIDTH_GRID = 0,
  /** an event's own bracket (pld_mech_bracket, e.g. balanced iteration
   *  with k > 1): the grid resolved its upper member to the accuracy asked,
   *  and what is left is the gap between its two members, which no finer
   *  grid narrows; the refinement stopped there */
  PLD_WIDTH_MECHANISM = 1
};

/** The answer to one query, with how it was obtained. */
typedef struct pld_result {
  pld_bound bound;       /**< epsilon (nats) or delta bracket */
  double discretization; /**< grid step used (0 for closed form or when no
                              grid was composed) */
  size_t grid_size;      /**< largest grid of the composed PLD */
  size_t fft_size;       /**< largest FFT length used */
  unsigned refinements;  /**< number of grids tried */
  int closed_form;       /**< non-zero if answered exactly (Gaussians only) */
  int met_accuracy;      /**< non-zero if the requested bracket width was met */
  int bound_kind;        /**< enum pld_bound_kind of bound.upper */
  int lower_kind;        /**< enum pld_bound_kind of bound.lower */
  int width_limit;       /**< enum pld_width_limit: why met_accuracy is 0
                              (PLD_WIDTH_GRID when it is 1) */
} pld_result;

/** Allocate an empty accountant (params copied; NULL means defaults).  The
 *  caller frees *out with pld_accountant_free.
 *  @return PLD_SUCCESS, PLD_EINVAL (out NULL, invalid params), PLD_ENOMEM. */
PLD_API PLD_NODISCARD int pld_accountant_alloc(const pld_params *params,
                                               pld_accountant **out);
/** Free an accountant and every copy it holds (mechanisms, PLDs, member
 *  accountants).  NULL is a no-op. */
PLD_API void pld_accountant_free(pld_accountant *acc);

/** Append `count` runs (1 <= count <= 2^53) of mechanism m, deep-copied (a
 *  user mechanism's callback and ctx must outlive the accountant).  Counts
 *  of identical mechanisms (pld_mech_equal) add up in one group.  Cost
 *  O(groups) comparisons.  @return PLD_SUCCESS, PLD_EINVAL (NULL, count out
 *  of range), PLD_ENOMEM, PLD_ERANGE (a group's total count over 2^53). */
PLD_API PLD_NODISCARD int pld_accountant_add(pld_accountant *acc,
                                             const pld_mech *m, uint64_t count);

/** Append `count` runs (1 <= count <= 2^53) of an already computed PLD (e.g.
 *  a ledger loaded with pld_dist_load), deep-copied (cost O(grid)); it is
 *  taken as certified as it is.  Its grid then fixes the accountant's: every
 *  such PLD must share one Delta, equal to params->discretization if that
 *  is set (PLD_EINCOMPAT otherwise, here; and in pld_accountant_compose
 *  for another step), and the automatic refinement
 *  is off.  Added PLDs are not grouped.
 *  @return PLD_SUCCESS, PLD_EINVAL, PLD_EINCOMPAT, PLD_ENOMEM. */
PLD_API PLD_NODISCARD int pld_accountant_add_dist(pld_accountant *acc,
                                                  const pld_dist *d,
                                                  uint64_t count);

/** Append every event group of `other` to `acc` (deep copies; mechanisms
 *  equal to one acc holds add their counts to its group, as with
 *  pld_accountant_add), all or nothing: on any failure acc is unchanged.
 *  Build the events of one update (several mechanisms, a selection, PLDs)
 *  in a scratch accountant and merge it, so that the update is never half
 *  recorded.  other's params are not used; other may be acc (its events
 *  then count twice).  Cost O(groups(acc) * groups(other)) comparisons plus
 *  the copies.
 *  @return PLD_SUCCESS, PLD_EINVAL (NULL), PLD_EINCOMPAT (other's added
 *  PLDs are on another grid than acc's, see pld_accountant_add_dist),
 *  PLD_ERANGE (a group's total count over 2^53), PLD_ENOMEM. */
PLD_API PLD_NODISCARD int pld_accountant_merge(pld_accountant *acc,
                                               const pld_accountant *other);

/** Copy the accountant's params into *out (cost O(1)).
 *  @return PLD_SUCCESS, PLD_EINVAL (NULL). */
PLD_API PLD_NODISCARD int pld_accountant_get_params(const pld_accountant *acc,
                                                    pld_params *out);

/** Number of distinct event groups (0 for NULL). */
PLD_API size_t pld_accountant_size(const pld_accountant *acc);

/** epsilon(delta) in nats of the composition of all events, for delta in
 *  (0, 1).  out->bound.upper is certified (+INFINITY only when no bound
 *  proves a finite epsilon), .lower a proven lower end (0 if none; +INFINITY
 *  only when epsilon is certainly infinite); the rest of *out says how it
 *  was obtained.
 *  @return PLD_SUCCESS, PLD_EINVAL (NULL, delta NaN or outside (0, 1)),
 *  PLD_EEMPTY (no events), PLD_EINCOMPAT (params->discretization differs
 *  from the grid of added PLDs), PLD_ENOMEM, PLD_ERANGE (the grid exceeds
 *  max_grid even after coarsening, or an overflow, and no grid-free bound
 *  applies: a list with a selection or an added PLD), PLD_EFFT,
 *  PLD_ECALLBACK, PLD_EMAXITER (Gaussian closed form did not converge; not
 *  expected). */
PLD_API PLD_NODISCARD int pld_accountant_epsilon(const pld_accountant *acc,
                                                 double delta,
                                                 pld_result *out);

/** pld_accountant_epsilon answered by the grid path alone, without the
 *  grid-free inversion (docs/design.md §16): for callers that need the
 *  grid the accountant's refinement chooses, e.g. to save the composed PLD
 *  on it.  Same arguments, return codes and result fields.  */
PLD_API PLD_NODISCARD int pld_accountant_epsilon_grid(const pld_accountant *acc,
                                                      double delta,
                                                      pld_result *out);

/** delta(epsilon) for epsilon >= 0 (nats, +INFINITY allowed): a bracket in
 *  [0, 1], upper certified.  Same return codes as pld_accountant_epsilon
 *  (PLD_EINVAL for NaN or epsilon < 0). */
PLD_API PLD_NODISCARD int pld_accountant_delta(const pld_accountant *acc,
                                               double epsilon, pld_result *out);

/** delta(epsilon) from the bounds that need no grid only (no PLD is built,
 *  cost O(groups)): the closed form of a list of Gaussians, else basic and
 *  advanced composition and single runs (docs/design.md Sec. 9).  A bracket
 *  in [0, 1], upper certified; met_accuracy as pld_bound_meets; grid_size
 *  and refinements 0.  What pld_accountant_delta starts with (an upper end
 *  at most PLD_DELTA_FLOOR, e.g. 0 where the runs' pure epsilons sum to at
 *  most epsilon, ends the query there); front ends combining backends ask
 *  it before a second opinion that could preempt an exact 0.  Same return
 *  codes as pld_accountant_delta. */
PLD_API PLD_NODISCARD int pld_accountant_delta_gridfree(const pld_accountant *acc,
                                                        double epsilon,
                                                        pld_result *out);

/** delta at n >= 1 epsilons eps[0..n) (each >= 0 or +INFINITY), brackets
 *  written to out[0..n), each the intersection over the grids tried.  The
 *  grid is refined for the point furthest from its target width, each
 *  point's target being max(accuracy * its upper delta, PLD_DELTA_FLOOR)
 *  (pld_bound_meets), and info's met_accuracy says whether every point met
 *  it.  info (may be
 *  NULL) receives the run's details; its bound only summarises the points
 *  that steered the refinement (read out[] for the brackets).
 *  Same return codes as pld_accountant_epsilon (PLD_EINVAL also for n = 0
 *  or a NaN or negative eps); out and info are untouched on failure. */
PLD_API PLD_NODISCARD int pld_accountant_curve(const pld_accountant *acc,
                                               size_t n, const double *eps,
                                               pld_bound *out,
                                               pld_result *info);

/** The composed PLD of all events on grid step `discretization` (Delta in
 *  nats; finite > 0, and [1e-9, 1000] for events built from curves, see
 *  pld_dist_from_curve), with the accountant's params (tail_mass, max_grid,
 *  fftw_flags).  Gaussian events are merged exactly before discretization
 *  (merged mu at most 1e6).  Caller frees *out with pld_dist_free.  Cost: one
 *  grid of the query loop.
 *  @return PLD_SUCCESS, PLD_EINVAL, PLD_EEMPTY, PLD_EINCOMPAT (an added PLD
 *  on another grid), PLD_ERANGE, PLD_ENOMEM, PLD_EFFT, PLD_ECALLBACK. */
PLD_API PLD_NODISCARD int pld_accountant_compose(const pld_accountant *acc,
                                                 double discretization,
                                                 pld_dist **out);

#ifdef __cplusplus
}
#endif
#endif
