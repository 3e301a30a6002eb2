/* pldkit: the tightest certified answer from both backends.
 *
 * The accountant (accountant.h) answers from the PLD grid, the exact
 * Gaussian composition, and the grid-free basic and advanced composition
 * bounds; an RDP curve (rdp.h) of the same events gives one more upper
 * bound.  These calls return the tighter of the two: the smaller upper end
 * (pld_result.bound_kind is PLD_BOUND_RDP when the RDP bound won), and the
 * accountant's lower end (RDP gives no lower bound).  This is what the CLI
 * answers with its default backend.
 *
 * The caller builds `rdp` from the SAME events as `acc` (each with its
 * count, e.g. pld_rdp_add_poisson_gaussian for a pld_mech_poisson_gaussian
 * event), as upper RDP bounds; pldkit cannot check that, and a curve of
 * other events gives a meaningless answer.  rdp may be NULL: then these
 * are the accountant's calls.  The conversion is PLD_RDP_BEST.
 */
#ifndef PLDKIT_BEST_H
#define PLDKIT_BEST_H

#include <stddef.h>

#include <pldkit/accountant.h>
#include <pldkit/pld.h>
#include <pldkit/rdp.h>
#include <pldkit/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/** epsilon(delta): pld_accountant_epsilon, its upper end lowered to the
 *  RDP bound pld_rdp_epsilon(rdp, delta) where that is smaller (then
 *  out->bound_kind = PLD_BOUND_RDP, and met_accuracy is re-checked against
 *  the accountant's params).  Cost: the accountant's query plus O(orders).
 *  @return as pld_accountant_epsilon. */
PLD_API PLD_NODISCARD int pld_best_epsilon(const pld_accountant *acc,
                                           const pld_rdp_curve *rdp,
                                           double delta, pld_result *out);

/** delta(epsilon): as pld_best_epsilon, with pld_accountant_delta and
 *  pld_rdp_delta.  @return as pld_accountant_delta. */
PLD_API PLD_NODISCARD int pld_best_delta(const pld_accountant *acc,
                                         const pld_rdp_curve *rdp,
                                         double epsilon, pld_result *out);

/** Lower the upper end of an answer r already computed by
 *  pld_accountant_epsilon (is_delta = 0, at delta = x) or
 *  pld_accountant_delta (is_delta = 1, at epsilon = x) on an accountant
 *  with params p to the RDP bound where that is smaller, as
 *  pld_best_epsilon / pld_best_delta do.  It lets a caller compute the RDP
 *  curve only when it can matter: where r met its accuracy target, the
 *  RDP bound (never below the truth, so never below r's lower end) can
 *  lower the upper end by less than that target width, and the catalogue
 *  (event.h) skips it then.  On failure r is untouched.
 *  @return PLD_SUCCESS, PLD_EINVAL, or the RDP conversion's status. */
PLD_API PLD_NODISCARD int pld_best_lower_upper(pld_result *r,
                                               const pld_rdp_curve *rdp,
                                               int is_delta, double x,
                                               const pld_params *p);

/** delta at n epsilons: pld_accountant_curve, each upper end lowered to the
 *  RDP bound at that epsilon where smaller (info->bound_kind is
 *  PLD_BOUND_RDP if that happened at any point).
 *  @return as pld_accountant_curve. */
PLD_API PLD_NODISCARD int pld_best_curve(const pld_accountant *acc,
                                         const pld_rdp_curve *rdp, size_t n,
                                         const double *eps, pld_bound *out,
                                         pld_result *info);

#ifdef __cplusplus
}
#endif
#endif
