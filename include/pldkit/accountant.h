/* pldkit: accountant -- a list of events (mechanism, count), composed and
 * queried with an automatically chosen grid.
 *
 * Identical events are grouped and self-composed with one FFT each; all
 * Gaussian events are first merged exactly (a composition of Gaussian
 * mechanisms with mu_i is the Gaussian with mu = sqrt(sum mu_i^2)), and a
 * list of Gaussians only is answered in closed form.
 *
 * Automatic discretization (params->discretization == 0): the grid step is
 * refined until (upper - lower) <= max(accuracy * upper, abs_accuracy) for
 * the query at hand or until params->max_grid would be exceeded, whichever
 * comes first; the bracket returned is always valid, only possibly wider than
 * asked (then pld_result.met_accuracy is 0).
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

/** The answer to one query, with how it was obtained. */
typedef struct pld_result {
  pld_bound bound;       /**< epsilon (nats) or delta bracket */
  double discretization; /**< grid step used (0 for closed form) */
  size_t grid_size;      /**< largest grid of the composed PLD */
  size_t fft_size;       /**< largest FFT length used */
  unsigned refinements;  /**< number of grids tried */
  int closed_form;       /**< non-zero if answered exactly (Gaussians only) */
  int met_accuracy;      /**< non-zero if the requested bracket width was met */
} pld_result;

/** Allocate an empty accountant (params copied; NULL means defaults). */
PLD_API PLD_NODISCARD int pld_accountant_alloc(const pld_params *params,
                                               pld_accountant **out);
/** Free.  NULL is a no-op. */
PLD_API void pld_accountant_free(pld_accountant *acc);

/** Append `count` >= 1 runs of mechanism m (copied).  Counts of identical
 *  mechanisms add up.  @return PLD_SUCCESS, PLD_EINVAL, PLD_ENOMEM,
 *  PLD_ERANGE (count total overflows). */
PLD_API PLD_NODISCARD int pld_accountant_add(pld_accountant *acc,
                                             const pld_mech *m, uint64_t count);

/** Append `count` >= 1 runs of an already computed PLD (e.g. a ledger
 *  loaded with pld_dist_load), copied.  Its grid then fixes the
 *  accountant's: every such PLD must share one Delta (PLD_EINCOMPAT
 *  otherwise, also at query time if params->discretization differs), and
 *  the automatic refinement is off.
 *  @return PLD_SUCCESS, PLD_EINVAL, PLD_EINCOMPAT, PLD_ENOMEM. */
PLD_API PLD_NODISCARD int pld_accountant_add_dist(pld_accountant *acc,
                                                  const pld_dist *d,
                                                  uint64_t count);

/** Number of distinct event groups. */
PLD_API size_t pld_accountant_size(const pld_accountant *acc);

/** epsilon(delta) for delta in (0, 1).  @return PLD_SUCCESS, PLD_EINVAL,
 *  PLD_EEMPTY, PLD_ENOMEM, PLD_ERANGE, PLD_EFFT, PLD_ECALLBACK. */
PLD_API PLD_NODISCARD int pld_accountant_epsilon(const pld_accountant *acc,
                                                 double delta,
                                                 pld_result *out);

/** delta(epsilon) for epsilon >= 0.  Same return codes. */
PLD_API PLD_NODISCARD int pld_accountant_delta(const pld_accountant *acc,
                                               double epsilon, pld_result *out);

/** delta at n epsilons; the grid is refined for the smallest delta among
 *  them.  info may be NULL.  Same return codes. */
PLD_API PLD_NODISCARD int pld_accountant_curve(const pld_accountant *acc,
                                               size_t n, const double *eps,
                                               pld_bound *out,
                                               pld_result *info);

/** The composed PLD on grid step `discretization` (> 0).  Gaussian events
 *  are merged exactly before discretization.  Caller frees *out. */
PLD_API PLD_NODISCARD int pld_accountant_compose(const pld_accountant *acc,
                                                 double discretization,
                                                 pld_dist **out);

#ifdef __cplusplus
}
#endif
#endif
