/* pldkit: the bridge from the PLD backend to the RDP backend -- the Renyi
 * divergence curve certified by a privacy loss distribution.  It needs both
 * backends, so it lives above them (bounds/bridge.c) and neither backend's
 * header knows the other's types.
 */
#ifndef PLDKIT_BRIDGE_H
#define PLDKIT_BRIDGE_H

#include <pldkit/pld.h>
#include <pldkit/rdp.h>
#include <pldkit/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Bridge: the RDP of a PLD (implemented in bounds/bridge.c).               */
/*                                                                            */
/* For a loss distribution omega (masses m_j at losses l_j under the first   */
/* argument), E[e^{(alpha-1)L}] = int_0^inf alpha (alpha-1) x^{alpha-2}       */
/* H_x dx, where H_x is its hockey-stick curve; the weight is positive, so a */
/* curve that lies above (below) the true one everywhere gives an upper      */
/* (lower) bound on e^{(alpha-1) D_alpha}.  That is exactly what pldkit's    */
/* pessimistic (optimistic) PLD guarantees.                                   */

/** Certified upper RDP of the mechanism behind d, written into out's values
 *  (overwriting them) at out's orders: the max over both directions of
 *  D_alpha computed from the PESSIMISTIC member (view of pld_dist_view),
 *    D = log( (sum_j m_j e^{(alpha-1) l_j} + A) / (1 - rel_err) ) / (alpha-1),
 *    A = abs' e^{(alpha-1) l_top} (1 - e^{-alpha Delta}) / (1 - e^{-Delta}),
 *  where A is the exact worst case of the view's booked absolute slack
 *  abs' = abs_err + size * DBL_MIN (the latter for masses that underflowed)
 *  and l_top the largest grid loss (derivation in bounds/bridge.c).
 *  Losses are rounded up.  A positive mass at +inf gives +INFINITY at every
 *  order.
 *  This relies on the PLD's contract that the ideal pessimistic distribution
 *  lives on the stored grid window plus +inf, with its +inf mass accurate to
 *  rel_err.
 *  Consequences: (1) a PLD truncated at a finite loss (every continuous
 *  mechanism with unbounded loss, e.g. the Gaussian: the builder moves
 *  params->tail_mass to +inf) has upper RDP +inf at every order -- no finite
 *  Renyi divergence can be certified from a truncated PLD; use
 *  pld_rdp_of_pld_lower to compare, or the closed forms above.  (2) A
 *  T-fold FFT composition moves its Chernoff-truncated tail to +inf (upper
 *  +inf again), and any booked absolute FFT error sits, in the worst case,
 *  at the top of the grid and dominates once (alpha-1) l_top is large: apply
 *  the bridge to the one-step PLD and compose in RDP instead (RDP composes
 *  exactly).  Useful for bounded-loss mechanisms built from a curve:
 *  randomized response, finite pairs, the plain, discrete and
 *  Poisson-subsampled Laplace (the builder books the curve's rounding at
 *  the grid top as slack rather than mass at +inf, so their upper curve is
 *  finite when the mechanism supplies loss tails).  For a PLD
 *  built from a curve the discretization adds at most Delta nats
 *  (connect-the-dots moves each loss up by at most one grid step; T Delta
 *  after T-fold composition).  Cost O(grid * orders).
 *  @return PLD_SUCCESS, PLD_EINVAL, PLD_ENOMEM. */
PLD_API PLD_NODISCARD int pld_rdp_of_pld(const pld_dist *d, pld_rdp_curve *out);

/** A named LOWER bound on the RDP of the mechanism behind d (never above the
 *  truth): the max over both directions of D_alpha from the OPTIMISTIC
 *  member, with its booked error subtracted and the losses rounded down
 *  (for abs_err > 0 the moment is cut at the grid point where that is best,
 *  see bounds/bridge.c), clamped at 0.  Mass dropped by truncation is
 *  missing, so at orders whose tilted distribution reaches beyond the grid
 *  the lower bound falls well below the truth; that is still valid.
 *  Cost O(grid * orders).
 *  @return PLD_SUCCESS, PLD_EINVAL, PLD_ENOMEM. */
PLD_API PLD_NODISCARD int pld_rdp_of_pld_lower(const pld_dist *d,
                                               pld_rdp_curve *out);

#ifdef __cplusplus
}
#endif
#endif
