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

/** The pi-mixture of n >= 1 PLDs on the same grid (PLD_EINCOMPAT otherwise):
 *  the PLD of selecting member i with probability weights[i] (>= 0, summing
 *  to 1 within 1e-12).  Both roundings are mixed, so the result stays a
 *  certified bracket.  Cost O(sum of grid sizes).
 *  @return PLD_SUCCESS, PLD_EINVAL, PLD_EINCOMPAT, PLD_ENOMEM. */
PLD_API PLD_NODISCARD int pld_dist_mix(size_t n, const pld_dist *const *members,
                                       const double *weights, pld_dist **out);

/** Append `count` >= 1 runs of a random selection among n >= 1 member
 *  accountants (each an event list composed on the accountant's grid),
 *  member i with probability weights[i].  The members are copied.
 *  @return PLD_SUCCESS, PLD_EINVAL, PLD_ENOMEM, PLD_EEMPTY (an empty member). */
PLD_API PLD_NODISCARD int pld_accountant_add_selection(
    pld_accountant *acc, size_t n, const pld_accountant *const *members,
    const double *weights, uint64_t count);

/** Deep copy of an accountant.  @return PLD_SUCCESS, PLD_EINVAL, PLD_ENOMEM. */
PLD_API PLD_NODISCARD int pld_accountant_copy(const pld_accountant *acc,
                                              pld_accountant **out);

/** Feasible selection weights for a target (eps, delta) from the members'
 *  delta brackets at eps: `member_delta[i * 2 + dir]` is member i's certified
 *  (upper) delta at eps in direction dir.  delta_RS is linear in pi in each
 *  direction, so feasibility is exact: pi is feasible iff
 *  max_dir sum_i pi_i member_delta[i][dir] <= delta.
 *  pld_select_feasible: evaluates the simplex grid of resolution `steps`
 *  (pi_i = k_i / steps, sum k_i = steps) for n <= 4; writes up to `cap`
 *  feasible weight vectors (n doubles each) to `out_weights` and their number
 *  to *n_out (which may exceed cap: then only cap are written).
 *  pld_select_max_weight: for n = 2, the largest weight on member 0 such that
 *  (pi, 1 - pi) is feasible (-1 if none is, 1 if all are), in closed form.
 *  @return PLD_SUCCESS, PLD_EINVAL. */
PLD_API PLD_NODISCARD int pld_select_feasible(size_t n,
                                              const double *member_delta,
                                              double delta, unsigned steps,
                                              double *out_weights, size_t cap,
                                              size_t *n_out);
PLD_API PLD_NODISCARD int pld_select_max_weight(const double *member_delta,
                                                double delta, double *pi0);

/** Noise calibration: the smallest parameter value (e.g. sigma) such that
 *  the event list built by `build` meets (epsilon, delta) by its CERTIFIED
 *  upper end, assuming epsilon decreases as the parameter grows.  Bracketing
 *  (doubling from `start`) then bisection until the bracket is within
 *  rel_tol (relative); the returned value is the upper end of the final
 *  bracket, so it is never over budget.  `build` returns a status and a new
 *  accountant for a parameter value (the callee frees it).
 *  `progress` (may be NULL) is called after each evaluation.  */
typedef int (*pld_build_fn)(double param, void *ctx, pld_accountant **out);
typedef void (*pld_progress_fn)(void *ctx, unsigned evaluation, double param,
                                double eps_upper);

typedef struct pld_calibration {
  double param;         /**< the smallest value found that meets the target */
  double param_fail;    /**< the largest value found that does not (0 if the
                             lower search limit still met it) */
  pld_result at_param;  /**< the epsilon bracket at `param` */
  unsigned evaluations; /**< number of accountant evaluations */
} pld_calibration;

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
