/* pldkit: random selection of composed mechanisms, and noise calibration.
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
 *  pld_select_feasible: evaluates the simplex grid of resolution `steps`
 *  (pi_i = k_i / steps, sum k_i = steps) for 1 <= n <= 4, steps in
 *  [1, 100000], delta in (0, 1); writes up to `cap` feasible weight vectors
 *  (n doubles each, k_1 varying fastest) to `out_weights` (may be NULL if
 *  cap = 0) and their number to *n_out (which may exceed cap: then only cap
 *  are written).  Cost O((steps + 1)^(n-1)), at most
 *  PLD_SELECT_MAX_TUPLES (1e8, ~0.3 s): steps up to 100000 for n = 2, 9999
 *  for n = 3, 463 for n = 4; beyond, PLD_ERANGE.
 *  @return PLD_SUCCESS, PLD_EINVAL (NULL, n, steps or delta out of range, a
 *  member_delta outside [0, 1] or NaN), PLD_ERANGE (over the work cap). */
PLD_API PLD_NODISCARD int pld_select_feasible(size_t n,
                                              const double *member_delta,
                                              double delta, unsigned steps,
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

/** Calibration callback: build a new accountant for parameter value `param`
 *  into *out and return PLD_SUCCESS, or return a non-zero status (passed
 *  through by pld_calibrate).  pld_calibrate frees the accountant (also one
 *  left in *out on failure). */
typedef int (*pld_build_fn)(double param, void *ctx, pld_accountant **out);
/** Progress callback: called after each evaluation (numbered from 1) with the
 *  parameter value and the certified epsilon upper end found there. */
typedef void (*pld_progress_fn)(void *ctx, unsigned evaluation, double param,
                                double eps_upper);

/** The result of pld_calibrate. */
typedef struct pld_calibration {
  double param;         /**< the smallest value found that meets the target */
  double param_fail;    /**< the largest value found that does not (0 if the
                             lower search limit still met it) */
  pld_result at_param;  /**< the epsilon bracket at `param` */
  unsigned evaluations; /**< number of accountant evaluations */
} pld_calibration;

/** Noise calibration: the smallest parameter value (e.g. sigma) such that
 *  the event list built by `build` meets (epsilon, delta) by its CERTIFIED
 *  upper end (pld_accountant_epsilon), assuming epsilon decreases as the
 *  parameter grows.  Bracketing from `start` (doubling up to 1e12 * start,
 *  or halving down to 1e-12 * start), then bisection until the bracket width
 *  is <= rel_tol * its upper end; the returned param is a value that was
 *  evaluated and met the target, so it is never over budget whatever the
 *  monotonicity does in between.  Domain: epsilon finite >= 0 (nats), delta
 *  in (0, 1), start finite > 0, rel_tol in (0, 1); build non-NULL, progress
 *  may be NULL.  Cost: one accountant build and epsilon query per
 *  evaluation, about log2(bracket ratio) + log2(1/rel_tol) evaluations.
 *  @return PLD_SUCCESS, PLD_EINVAL, PLD_ETOL (not met even at 1e12 * start),
 *  PLD_EMAXITER (over 200 evaluations), PLD_ECALLBACK (build returned success
 *  without an accountant), build's own status, or a status of
 *  pld_accountant_epsilon; *out is untouched on failure. */
PLD_API PLD_NODISCARD int pld_calibrate(pld_build_fn build, void *ctx,
                                        double epsilon, double delta,
                                        double start, double rel_tol,
                                        pld_progress_fn progress,
                                        void *progress_ctx,
                                        pld_calibration *out);

#ifdef __cplusplus
}
#endif
#endif
