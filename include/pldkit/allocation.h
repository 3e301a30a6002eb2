/* pldkit: random allocation (Balanced Iteration Subsampling) and model
 * splitting as privacy loss distributions.
 *
 * Random allocation of one record into one of T steps (Feldman and
 * Shenfeld, "Privacy amplification by random allocation"; the splitting
 * paper's BIS with k = 1; disjoint model splitting with d = T blocks): the
 * record's contribution, clipped to L2 norm c, goes to one step chosen
 * uniformly, every step adds N(0, sigma^2 I).  The pair (add/remove
 * adjacency) is
 *     P = (1/T) sum_i N(c e_i, sigma^2 I_T)   (with the record),
 *     Q = N(0, sigma^2 I_T)                    (without),
 * whose likelihood ratio is S = (1/T) sum_i X_i with X_i = e^{mu Z_i -
 * mu^2/2} i.i.d. log-normal under Q (mu = c/sigma).  Both directions are
 * functionals of the law of S under Q alone:
 *     delta_PQ(eps) = E_Q (S - e^eps)_+,   delta_QP(eps) = E_Q (1 - e^eps S)_+,
 * both convex in S.  pldkit computes two finite laws of S, one larger and
 * one smaller in the convex order (docs/allocation.md), which bracket both
 * curves; the mechanism is the bracket of the two (pld_mech_bracket).
 */
#ifndef PLDKIT_ALLOCATION_H
#define PLDKIT_ALLOCATION_H

#include <stddef.h>
#include <stdint.h>

#include <pldkit/accountant.h>
#include <pldkit/mech.h>
#include <pldkit/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Largest T (steps, or blocks) of one random allocation. */
#define PLD_ALLOCATION_MAX_T 1000000

/** One-of-T random allocation with Gaussian noise (see above): T in [1,
 *  PLD_ALLOCATION_MAX_T], sigma and c finite > 0 with mu = c/sigma in
 *  [1e-3, 30].  T = 1 is exactly pld_mech_gaussian(sigma, c) (returned as
 *  such).  Otherwise the bracket (pld_mech_bracket) of the two finite
 *  pairs of pld_mech_random_allocation_bounds: it composes with every other
 *  mechanism in an accountant, its PLD's pessimistic members from the
 *  upper pair, the optimistic ones from the lower pair, so the composed
 *  bracket is certified on both ends; its width includes the pairs' gap
 *  (docs/allocation.md).  Its curve (pld_mech_delta) is the upper pair's.
 *  @return PLD_SUCCESS, PLD_EINVAL (out of domain, NULL), PLD_ERANGE,
 *  PLD_ENOMEM. */
PLD_API PLD_NODISCARD int pld_mech_random_allocation(uint64_t T, double sigma,
                                                     double c, pld_mech **out);

/** The k-out-of-T allocation (each record used in exactly k of the T steps,
 *  the k-subset uniform) as the composition of r = T mod k one-of-ceil(T/k)
 *  and k - r one-of-floor(T/k) allocations, which dominates it (a random
 *  partition of the steps into k groups of those sizes followed by one
 *  allocation per group gives a uniform k-subset; docs/allocation.md).
 *  Writes the group sizes and multiplicities: n[0] = floor(T/k) used mult[0]
 *  = k - r times, n[1] = ceil(T/k) used mult[1] = r times (mult[1] = 0 when
 *  k divides T).  1 <= k <= T <= PLD_ALLOCATION_MAX_T.
 *  @return PLD_SUCCESS, PLD_EINVAL. */
#ifdef PLD_EXPERIMENTAL
PLD_EXPERIMENTAL_API PLD_NODISCARD int pld_allocation_groups(uint64_t T, uint64_t k,
                                                uint64_t n[2],
                                                uint64_t mult[2]);
#endif

/** One block of a split of k-out-of-T allocation: `count` independent
 *  j-out-of-m allocations (j = 1 or 2). */
typedef struct pld_allocation_block {
  uint64_t j, m, count;
} pld_allocation_block;

/** Most blocks pld_allocation_split writes. */
#define PLD_ALLOCATION_MAX_BLOCKS 6

/** The split pld_accountant_add_allocation composes for k-out-of-T
 *  allocation: the groups of pld_allocation_groups, paired (a ceil(T/k)
 *  group with a floor(T/k) one first, then equal ones) into two-of-m
 *  blocks, m the pair's total, where 3 <= m <= 20, c/sigma <= 4 and the
 *  block's computed
 *  law is at least as tight as its two groups composed (the larger
 *  direction's delta not above theirs wherever theirs is in [1e-12,
 *  1e-3]); the other groups stay one-of-n blocks.  Any such split
 *  dominates k-out-of-T (the random-partition argument), and a two-of-(n1
 *  + n2) block is dominated by its one-of-n1 and one-of-n2 groups
 *  (docs/allocation.md "Blocks of two").  k = 1 and k = T give the groups
 *  unchanged.  Deciding computes the blocks' laws: 0.2-1 s per block kind
 *  for 1 < k < T with T/k <= 10.  Writes *nblocks <=
 *  PLD_ALLOCATION_MAX_BLOCKS entries.  Domains as pld_allocation_groups,
 *  sigma and c finite > 0.
 *  @return PLD_SUCCESS, PLD_EINVAL, PLD_ERANGE, PLD_ENOMEM. */
PLD_API PLD_NODISCARD int pld_allocation_split(
    uint64_t T, uint64_t k, double sigma, double c,
    pld_allocation_block blocks[PLD_ALLOCATION_MAX_BLOCKS], size_t *nblocks);

/** Add `count` runs (epochs) of k-out-of-T random allocation (Balanced
 *  Iteration Subsampling) with Gaussian noise sigma and clipping norm c to
 *  the accountant, through pld_allocation_split: one-of-n blocks are
 *  pld_mech_random_allocation, two-of-m blocks the upper law of docs/
 *  allocation.md "Blocks of two"; for 1 < k < T every block's lower member
 *  is its share of the summed-output Gaussian, and one more event (upper
 *  member P = Q, lower member a binned Gaussian-mixture pair) completes
 *  the run's lower pair, a projection of the run (docs/allocation.md "k >
 *  1: the lower end"): 1 + blocks groups in all.  count in [1, 2^53 / k].
 *  All or nothing: on any failure (a block's count would pass 2^53, out of
 *  memory) acc is unchanged (pld_accountant_merge).
 *  @return PLD_SUCCESS, PLD_EINVAL, PLD_ERANGE, PLD_ENOMEM. */
PLD_API PLD_NODISCARD int pld_accountant_add_allocation(pld_accountant *acc,
                                                        uint64_t T, uint64_t k,
                                                        double sigma, double c,
                                                        uint64_t count);

/** How a model-splitting step clips the record's gradient over the k
 *  blocks it updates. */
typedef enum pld_split_clip {
  /** every block's part clipped to norm c on its own (the splitting
   *  paper's Thm 3.1: "a block whose norm is constrained to c") */
  PLD_SPLIT_CLIP_BLOCK = 0,
  /** the whole gradient clipped to norm c: the blocks' squared norms add
   *  up to at most c^2 */
  PLD_SPLIT_CLIP_TOTAL = 1
} pld_split_clip;

/** Add `count` steps of model splitting to the accountant: the model's
 *  parameters in d disjoint blocks, each step updating k of them drawn
 *  uniformly (k = 1: disjoint submodels; d = 2, k = 1: dropout with rate
 *  1/2), the record's gradient clipped as `clip` says, N(0, sigma^2) noise
 *  on every block.  The record's gradient in a block may have any
 *  direction, and may depend on which blocks were drawn.
 *  - k = 1, or PLD_SPLIT_CLIP_BLOCK: exactly k-out-of-d allocation
 *    (pld_accountant_add_allocation with T = d): it dominates every such
 *    gradient and fixed directions reach it (the supermodular order of
 *    the Gaussian exponents, docs/allocation.md "Model splitting with k >
 *    1").
 *  - PLD_SPLIT_CLIP_TOTAL, k = d: the Gaussian mechanism with shift c.
 *  - PLD_SPLIT_CLIP_TOTAL, 1 < k < d: upper end from the allocation above
 *    or from the Gaussian with shift c (releasing the blocks drawn),
 *    whichever answers the smaller epsilon at delta = 1e-5 for this update
 *    alone (both certified); lower end from the Poisson-subsampled
 *    Gaussian with rate k/d, which a gradient in one block reaches.
 *  Domains as pld_accountant_add_allocation (T = d).  All or nothing.
 *  @return PLD_SUCCESS, PLD_EINVAL, PLD_ERANGE, PLD_ENOMEM. */
PLD_API PLD_NODISCARD int pld_accountant_add_model_splitting(
    pld_accountant *acc, uint64_t d, uint64_t k, double sigma, double c,
    pld_split_clip clip, uint64_t count);

/** A curve below the Renyi divergences of k-out-of-T allocation (1 < k <
 *  T, Gaussian noise sigma, norm c) in both directions at every order:
 *  eps[i] <= max(D_a(P||Q), D_a(Q||P)) at a = orders[i] > 1 (finite), the
 *  forward one in fact, of the projection of the run that gives the lower
 *  end of pld_accountant_add_allocation (the summed output's Gaussian
 *  times a binned Gaussian mixture, docs/allocation.md "k > 1: the lower
 *  end"), rounded down.  NOT an RDP bound of the mechanism (it is below
 *  every bound): the default backend uses it to skip an RDP second opinion
 *  that cannot win, before the costlier exact forward terms.  Domains as
 *  pld_accountant_add_allocation; eps written only on success.
 *  @return PLD_SUCCESS, PLD_EINVAL, PLD_ENOMEM. */
#ifdef PLD_EXPERIMENTAL
PLD_EXPERIMENTAL_API PLD_NODISCARD int pld_rdp_allocation_lower_curve(
    size_t n, const double *orders, uint64_t T, uint64_t k, double sigma,
    double c, double *eps);
#endif

/** The two finite pairs behind the bracket (docs/allocation.md): *upper
 *  dominates the one-of-T pair in both directions (its law of S is larger
 *  in the convex order), *lower is dominated by it.  Compose *upper (with
 *  any other events) in one accountant and take its upper ends, *lower in
 *  another and take its lower ends: both are certified for the true
 *  mechanism.  eta: the final geometric bin ratio e^eta - 1 of the
 *  rebinning (earlier sums and far tails get coarser cells), 0 for the
 *  default (docs/allocation.md "Cells per level"), at most 0.1.  T = 1
 *  gives two
 *  Gaussians.  Domains as pld_mech_random_allocation.  The caller frees
 *  both.  @return PLD_SUCCESS, PLD_EINVAL, PLD_ERANGE, PLD_ENOMEM. */
#ifdef PLD_EXPERIMENTAL
PLD_EXPERIMENTAL_API PLD_NODISCARD int pld_mech_random_allocation_bounds(
    uint64_t T, double sigma, double c, double eta, pld_mech **upper,
    pld_mech **lower);
#endif

/** Certified eps(delta) bracket of `count` epochs of k-out-of-T random
 *  allocation (BIS) with Gaussian noise: the upper end from the composed
 *  upper pairs, the lower end from the composed lower pairs of
 *  pld_mech_random_allocation_bounds over pld_allocation_split.  For 1 < k
 *  < T the upper end is that of the split (a valid bound, not the exact
 *  k-of-T value) and the lower end that of a projection of the run (the
 *  summed output times a Gaussian mixture, docs/allocation.md "k > 1: the
 *  lower end"): the split's own lower pairs are not lower pairs of the
 *  true mechanism.
 *  params may be NULL.  @return PLD_SUCCESS, PLD_EINVAL, PLD_ERANGE,
 *  PLD_ENOMEM and the accountant's errors. */
PLD_API PLD_NODISCARD int pld_allocation_epsilon(uint64_t T, uint64_t k,
                                                 double sigma, double c,
                                                 uint64_t count, double delta,
                                                 const pld_params *params,
                                                 pld_bound *out);

/** The Poisson + splitting pair of the splitting paper's Fig. 1: each
 *  step includes the record with probability q in (0, 1], and an included
 *  record's gradient (norm c) goes to one of d disjoint submodels chosen
 *  uniformly, every submodel adding N(0, sigma^2):
 *    Q = N(0, sigma^2 I_d),  P = (1 - q) Q + (q/d) sum_i N(c e_i, sigma^2 I_d).
 *  The Poisson subsampling (pld_mech_poisson) of pld_mech_random_allocation
 *  (d, sigma, c), a bracket: both ends certified.  d = 1 is
 *  pld_mech_poisson_gaussian(q, sigma, c); q = 1 the one-of-d allocation.
 *  Domains as pld_mech_random_allocation.
 *  @return PLD_SUCCESS, PLD_EINVAL, PLD_ERANGE, PLD_ENOMEM. */
PLD_API PLD_NODISCARD int pld_mech_poisson_split(double q, uint64_t d,
                                                 double sigma, double c,
                                                 pld_mech **out);

/** Partial model splitting (splitting paper, Sec. 3.2.2) with Poisson
 *  sampling at rate q in (0, 1]: a split part, clipped to c_split > 0 and
 *  routed to one of d disjoint blocks, and a shared part present in every
 *  submodel, clipped to c_shared >= 0 (it may depend on the block drawn),
 *  the same noise sigma on every coordinate.  One step is dominated by,
 *  and in the worst case equal to, the Poisson subsampling of the product
 *  N(c_shared, sigma^2) x (one-of-d allocation of c_split); the two parts
 *  are subsampled TOGETHER (adding the two parts' separately subsampled
 *  costs is not a bound for q < 1).  A bracket (both ends certified,
 *  docs/allocation.md "Partial splitting").  c_shared = 0 is
 *  pld_mech_poisson_split; d = 1 the Poisson Gaussian of sensitivity
 *  hypot(c_split, c_shared).  c_shared/sigma in [1e-3, 30] when positive;
 *  other domains as pld_mech_random_allocation (c = c_split).  A curve
 *  evaluation costs one Gaussian delta per atom of the allocation laws
 *  (hundreds to thousands).
 *  @return PLD_SUCCESS, PLD_EINVAL, PLD_ERANGE, PLD_ENOMEM. */
PLD_API PLD_NODISCARD int pld_mech_partial_split(double q, uint64_t d,
                                                 double sigma, double c_split,
                                                 double c_shared,
                                                 pld_mech **out);

#ifdef __cplusplus
}
#endif
#endif
