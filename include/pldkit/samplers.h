/* pldkit: the batch samplers people train with, as mechanisms.
 *
 * DP-SGD with per-example gradients clipped to L2 norm c, the batch's SUM
 * released with N(0, sigma^2 I) noise.  Each constructor builds a pair
 * that dominates one step of the sampler in both directions for every
 * adaptively chosen gradient sequence (so it composes in an accountant),
 * under the adjacency it names.  The derivations, and the samplers whose
 * pairs are not implemented (MMCC, b-min-sep, fixed-size batches with
 * replacement under zero-out / replace-one), are in docs/samplers.md.
 *
 * Adjacency.  PLD_ADJ_ADD_REMOVE: D' = D + {x}, n = |D'| (the dataset with
 * the record); the sensitivity of one record is c, but a record added to
 * a batch of fixed size displaces another one, so fixed-size and truncated
 * batches see shifts of 2c (docs/samplers.md §3-4).  PLD_ADJ_ZERO_OUT: x
 * replaced by a zero-gradient record that still takes a slot.
 * PLD_ADJ_REPLACE_ONE: x replaced by x'.  Every answer is about the
 * adjacency it was built for; they are not interchangeable.
 */
#ifndef PLDKIT_SAMPLERS_H
#define PLDKIT_SAMPLERS_H

#include <stddef.h>
#include <stdint.h>

#include <pldkit/accountant.h>
#include <pldkit/mech.h>
#include <pldkit/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Neighbouring relations (docs/samplers.md §1). */
typedef enum pld_adjacency {
  PLD_ADJ_ADD_REMOVE = 0,
  PLD_ADJ_ZERO_OUT = 1,
  PLD_ADJ_REPLACE_ONE = 2
} pld_adjacency;

/** Largest dataset size n of the samplers' constructors. */
#define PLD_SAMPLER_MAX_N 4503599627370496ULL /* 2^52 */

/** The numbers of truncated Poisson sampling (docs/samplers.md §4) for a
 *  dataset of n records (the record's own included), rate q, cap B; X ~
 *  Bin(n - 1, q) is the number of other records sampled.  Each value is
 *  rounded so that the construction using it stays sound. */
typedef struct pld_truncation {
  double p_untrunc; /**< P(X <= B - 1) (within rel_err) */
  double p_trunc;   /**< P(X >= B) (within rel_err) */
  double q_cond_upper; /**< >= q E[B/(X+1) | X >= B] (0 if p_trunc = 0) */
  double q_eff_lower;  /**< <= q E[min(1, B/(X+1))], the probability that
                            the record is in the kept batch */
  double rel_err;   /**< relative error bound of p_untrunc and p_trunc */
} pld_truncation;

/** Compute pld_truncation for n in [1, PLD_SAMPLER_MAX_N], q in (0, 1],
 *  B >= 1.  The binomial tails are summed term by term (Loader's saddle
 *  point form of each term, its error booked); the work is a few times
 *  sqrt(n q (1 - q)) terms, refused above 1e6 standard deviations
 *  (PLD_ERANGE).  *out is written only on success.
 *  @return PLD_SUCCESS, PLD_EINVAL, PLD_ERANGE. */
PLD_API PLD_NODISCARD int pld_truncation_params(uint64_t n, double q,
                                                uint64_t B,
                                                pld_truncation *out);

/** Which dominating pair of truncated Poisson (docs/samplers.md section 4). */
typedef enum pld_truncation_pair {
  /** whichever of the two answers the smaller epsilon at delta = 1e-5 over
   *  one epoch (ceil(1/q) steps, at most 1e6); both are certified */
  PLD_TRUNC_BEST = 0,
  /** the branch {X >= B} revealed: (1 - p_t) PG(q, c) + p_t PG(q_c, 2c) */
  PLD_TRUNC_BRANCH = 1,
  /** the set of kept other records revealed: three terms on {size} x R,
   *  tighter when B is above the mean batch size */
  PLD_TRUNC_SIZE = 2
} pld_truncation_pair;

/** One step of DP-SGD with truncated Poisson sampling: every record is
 *  sampled with probability q, and if more than B are sampled a uniformly
 *  random B of them are kept (dp_accounting's
 *  TruncatedSubsampledGaussianDpEvent(dataset_size = n,
 *  sampling_probability = q, truncated_batch_size = B, noise_multiplier =
 *  sigma / c)).  Under zero-out and replace-one: the bracket of the
 *  selection over the kept others' count of PG(r_k, c) (zero-out) or
 *  pld_mech_wor_gaussian_rate(r_k, sigma, 2c) (replace-one), and the exact
 *  pair of the zero-gradient dataset (docs/samplers.md §4).  Under
 *  add/remove the bracket (pld_mech_bracket) of
 *    upper: the better (PLD_TRUNC_BEST) of two dominating pairs: the
 *           selection, the branch visible, of PG(q, c) with weight
 *           p_untrunc and PG(q_cond_upper, 2c) with weight p_trunc; or the
 *           pair with the kept set's size visible (PLD_TRUNC_SIZE),
 *    lower: PG(q_eff_lower, c), the exact pair of the dataset whose other
 *           records have zero gradients,
 *  PG(r, s) = pld_mech_poisson_gaussian(r, sigma, s); the weights' booked
 *  error is added to the curve's rel_err.  B >= n (never truncated) gives
 *  pld_mech_poisson_gaussian(q, sigma, c) itself.  Domains as
 *  pld_truncation_params and pld_mech_poisson_gaussian (with 2c too).
 *  @return PLD_SUCCESS, PLD_EINVAL, PLD_EUNSUPPORTED, PLD_ERANGE,
 *  PLD_ENOMEM. */
PLD_API PLD_NODISCARD int pld_mech_truncated_poisson_gaussian(
    uint64_t n, double q, uint64_t B, double sigma, double c,
    pld_adjacency adjacency, pld_mech **out);

/** pld_mech_truncated_poisson_gaussian with the upper pair chosen by
 *  `which` (add/remove only; the other relations have one construction.
 *  PLD_TRUNC_BEST is what pld_mech_truncated_poisson_gaussian does; it composes both pairs over one epoch to choose, which can take a
 *  second).  PLD_TRUNC_SIZE needs q < 1 (PLD_EUNSUPPORTED otherwise).
 *  The size-revealed pair's curve is a certified upper curve (every mass
 *  taken at the end of its bracket that enlarges it), not a pair's exact
 *  curve: it serves only as the upper member of the bracket.
 *  @return as pld_mech_truncated_poisson_gaussian. */
PLD_API PLD_NODISCARD int pld_mech_truncated_poisson_gaussian_pair(
    uint64_t n, double q, uint64_t B, double sigma, double c,
    pld_adjacency adjacency, pld_truncation_pair which, pld_mech **out);

/** Add `count` steps (1 <= count <= 2^53) of truncated Poisson DP-SGD to
 *  acc.  Under add/remove with PLD_TRUNC_BEST the upper pair is chosen by
 *  the smaller epsilon at delta = 1e-5 of these `count` steps composed
 *  alone (acc's params; the cost of two queries), not of one epoch as in
 *  pld_mech_truncated_poisson_gaussian; either pair is sound.  Otherwise
 *  as pld_mech_truncated_poisson_gaussian_pair.  acc is unchanged on
 *  failure.  @return as pld_mech_truncated_poisson_gaussian, and the
 *  accountant's errors. */
PLD_API PLD_NODISCARD int pld_accountant_add_truncated_poisson(
    pld_accountant *acc, uint64_t n, double q, uint64_t B, double sigma,
    double c, pld_adjacency adjacency, pld_truncation_pair which,
    uint64_t count);

/** One step of DP-SGD on a batch of exactly b records from a dataset of n
 *  (n = |D'| under add/remove), 1 <= b; without replacement b <= n - 1
 *  under add/remove (the neighbour without the record must fill the
 *  batch), b <= n otherwise; with replacement n >= 2.
 *  - without replacement, add/remove: PG(b/n, 2c), exact (the displaced
 *    record doubles the shift; docs/samplers.md §3); a bracket of the two
 *    rates next to b/n when b/n is not a double.
 *  - without replacement, zero-out or replace-one: pld_mech_wor_gaussian(b,
 *    n, sigma, 2c) (Balle et al.'s curve; an upper bound).
 *  - with replacement (b independent uniform draws), add/remove: the
 *    Gaussian mixture pair P = sum_k Bin(b, 1/n)(k) N(2 k c, sigma^2), Q =
 *    N(0, sigma^2), exact; with b > 62 the counts from 62 on are moved
 *    onto k = b (a dominating move), so 2 b c / sigma must be at most 1e6.
 *    A bracket: the weights are known within their booked error, and the
 *    PQ curve grows with them, the QP curve falls, so the upper member
 *    takes each direction from the mixture with the weights at the end of
 *    their brackets that enlarges it (pld_mech_mixture_gaussian, rel_err
 *    1e-10), the lower member from the other end.
 *  - with replacement, zero-out or replace-one: PLD_EUNSUPPORTED.
 *  sigma, c as pld_mech_gaussian (with 2c, and 2bc for the mixture).
 *  @return PLD_SUCCESS, PLD_EINVAL, PLD_EUNSUPPORTED, PLD_ENOMEM. */
PLD_API PLD_NODISCARD int pld_mech_fixed_batch_gaussian(
    uint64_t b, uint64_t n, double sigma, double c, int with_replacement,
    pld_adjacency adjacency, pld_mech **out);

/** Shuffled batches: each epoch a fresh uniformly random permutation of the
 *  n records cut into T batches of equal size, `epochs` epochs, Gaussian
 *  noise sigma, clipping norm c; the record's shift s is 2c under
 *  PLD_ADJ_REPLACE_ONE and c under PLD_ADJ_ZERO_OUT (PLD_ADJ_ADD_REMOVE:
 *  PLD_EUNSUPPORTED, an inserted record moves every later record's batch).
 *  No certified amplification is known in the regimes people train in
 *  (docs/samplers.md section 6), so two answers at delta in (0, 1):
 *  - *upper: a certified epsilon bracket of the Gaussian mechanism with mu
 *    = s sqrt(epochs) / sigma, which dominates the run (reveal the
 *    permutations): the guarantee;
 *  - *lower: the epsilon bracket of the epochs-fold one-of-T random
 *    allocation with shift s (pld_allocation_epsilon), the exact pair of
 *    the dataset whose other records have gradient -c (Chua et al.,
 *    arXiv 2403.17673): lower->lower is a certified LOWER BOUND on the
 *    shuffled run's epsilon, NOT a guarantee; lower->upper only brackets
 *    that dataset's value.  The Poisson figure (rate 1/T, shift c) is not
 *    a bound for shuffled training and lower->lower can exceed it.
 *  s/sigma in [1e-3, 30], T in [1, PLD_ALLOCATION_MAX_T], epochs in [1,
 *  2^53]; params may be NULL.  Outputs written only on success.
 *  @return PLD_SUCCESS, PLD_EINVAL, PLD_EUNSUPPORTED, PLD_ERANGE,
 *  PLD_ENOMEM and the accountant's errors. */
PLD_API PLD_NODISCARD int pld_shuffling_epsilon(uint64_t T, uint64_t epochs,
                                                double sigma, double c,
                                                pld_adjacency adjacency,
                                                double delta,
                                                const pld_params *params,
                                                pld_bound *upper,
                                                pld_bound *lower);

/** Add `steps` steps of b-banded matrix factorization (BandMF, DP-FTRL)
 *  with cyclic Poisson sampling (Choquette-Choo et al., arXiv 2306.08153,
 *  Sec. 5, Thms 4-5), add/remove: the records split into `bands` fixed
 *  groups, step i samples group (i mod bands) with Poisson rate q WITHIN
 *  the group (q = expected batch * bands / n: bands times the naive rate),
 *  the strategy matrix lower triangular and bands-banded with columns of
 *  L2 norm at most col_norm (1 after column normalisation), noise sigma on
 *  every row, clipping norm c.  A record's participations are >= bands
 *  steps apart, so they touch disjoint rows: the run is ceil(steps /
 *  bands) adaptive compositions of pld_mech_poisson_gaussian(q, sigma, c
 *  col_norm), which is what is added.  bands = 1 is DP-SGD.  steps,
 *  bands >= 1; q, sigma, c col_norm as pld_mech_poisson_gaussian.
 *  @return PLD_SUCCESS, PLD_EINVAL, PLD_ENOMEM, PLD_ERANGE. */
PLD_API PLD_NODISCARD int pld_accountant_add_bandmf_cyclic_poisson(
    pld_accountant *acc, uint64_t steps, uint64_t bands, double q,
    double sigma, double c, double col_norm);

#ifdef __cplusplus
}
#endif
#endif
