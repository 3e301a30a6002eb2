/* pldkit: model splitting, dropout and Balanced Iteration Subsampling (Dong, Chen,
 * Ozgur, "Leveraging randomness in model and data partitioning for privacy
 * amplification": "the splitting paper"), their RDP.  The PLD of the same
 * pairs (k-of-T random allocation) is <pldkit/allocation.h>.
 *
 * Pure functions of their arguments (orders alpha > 1, values in nats);
 * nothing allocates visibly, prints or aborts.  Every function returns an
 * int from enum pld_status and writes its outputs only on success; bad
 * input gives PLD_EINVAL.  A value documented as a "bound" is never below
 * what it bounds; the paper's formulas as printed (some wrong) are behind
 * PLD_EXPERIMENTAL (status.h) and say so.  Paper vs pldkit, with numbers:
 * docs/papers-rdp.md.  All functions are reentrant.
 */
#ifndef PLDKIT_SPLITTING_H
#define PLDKIT_SPLITTING_H

#include <stddef.h>
#include <stdint.h>

#include <pldkit/mech.h>
#include <pldkit/accountant.h>
#include <pldkit/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================== */
/* Model splitting, dropout, Balanced Iteration Subsampling (splitting      */
/* paper, Thm 3.1).                                                          */
/*                                                                           */
/* The pair.  S_{d,k} = binary vectors of length d with k ones,              */
/*   P = (1/C(d,k)) sum_{mu in S_{d,k}} N(c mu, sigma^2 I_d),                */
/*   Q = N(0, sigma^2 I_d).                                                  */
/* "Forward" is D_alpha(P||Q), "reverse" D_alpha(Q||P).  With s = c/sigma:   */
/*  - model splitting into d disjoint submodels, one per example (Thm 3.4):  */
/*    k = 1; dropout with rate 1/2 (Cor. 3.7): d = 2, k = 1;                 */
/*  - Balanced Iteration Subsampling (Thm 3.8): d = T iterations, each       */
/*    example used in exactly k of them; the pair describes the WHOLE run    */
/*    of T iterations (do not compose it T times).                           */
/* The reduction of a training step (or run) to this pair is the paper's     */
/* (App. A.9, A.12).  pldkit adds one proven step the paper only asserts:    */
/* the worst case over per-block shift norms <= c is at norm c, in both      */
/* directions, because the per-coordinate kernel x_i -> l_i x_i +            */
/* sqrt(1 - l_i^2) sigma z_i (0 <= l_i <= 1) maps N(0, sigma^2 I) to itself  */
/* and N(c e_i) to N(l_i c e_i), so smaller norms are a post-processing.     */
/*                                                                           */
/* What is proven about each term:                                           */
/*  - eq. (2), first term, read with the inner sum over the tuple positions  */
/*    i != j (docs/papers/splitting.md, errata), IS the exact forward        */
/*    divergence (Lemma 3.12).                                               */
/*    pldkit evaluates it exactly at integer orders (k = 1: a polynomial     */
/*    power; k > 1: an exact dynamic program over row fill levels, capped).  */
/*  - eq. (3), first term (Cor. 3.14, no 1/(alpha-1) factor: the errata      */
/*    in docs/papers/splitting.md), is a                                     */
/*    proven upper bound on the forward divergence at integer alpha >= 2     */
/*    (Lemma 3.13, re-derived: Jensen given the tuple's histogram).          */
/*  - the second term of eqs. (1)-(3) (Lemma 3.15 + Cor. 3.17 + Cor. 3.19)   */
/*    is NOT a bound on the reverse divergence: Lemma 3.15 is exact, but     */
/*    Lemma 3.18 is false (d = 2, k = 1, c = sigma = 1, alpha = 8: exact     */
/*    2.145547, paper 2.116362).  Its validity condition                     */
/*    alpha e^v + 1 - alpha > 0, v = c^2 k (d-k)/(sigma^2 d^2) >= 0, always  */
/*    holds (it equals 1 + alpha (e^v - 1) >= 1).                            */
/*  - the sound reverse: k = 1 and k = d - 1 exactly, by a one-dimensional   */
/*    reduction (Gamma-function identity, see papers/splitting_rdp.c) and a     */
/*    spectrally convergent quadrature with an a-posteriori error check;     */
/*    other k by a proven group decomposition (a uniform k-subset is a       */
/*    mixture, over random partitions into k groups, of "one per group",     */
/*    whose pair is a product of k disjoint-splitting pairs; joint           */
/*    quasi-convexity), never above the no-amplification Gaussian value      */
/*    alpha s^2 k / 2.                                                       */
/*  - fractional orders: (alpha - 1) D_alpha is convex in alpha and 0 at 1,  */
/*    so integer-order values interpolate to a bound in between.             */
/* ======================================================================== */

/** How a sound term was obtained. */
enum pld_rdp_split_method {
  PLD_SPLIT_EXACT = 0,    /**< the exact divergence (sum or quadrature) */
  PLD_SPLIT_EQ3 = 1,      /**< eq. (3) first term (Cor. 3.14) */
  PLD_SPLIT_GROUPS = 2,   /**< block decomposition (k disjoint splits, or
                               fewer blocks of exact (d_i, k_i) pairs) */
  PLD_SPLIT_GAUSSIAN = 3  /**< no amplification, alpha c^2 k / (2 sigma^2) */
};

/** All terms of Thm 3.1 at one order, paper and sound side by side. */
typedef struct pld_rdp_split_terms {
  double forward_exact;  /**< eq. (2) first term = exact D_alpha(P||Q); NAN if
                              not computed (cost cap) */
  double forward_eq3;    /**< eq. (3) first term (Cor. 3.14), a bound */
  double reverse_paper;  /**< second term of eqs. (1)-(3): NOT a bound */
  double reverse_exact;  /**< exact D_alpha(Q||P) (k = 1, d - 1 or d); NAN
                              otherwise */
  double forward;        /**< sound forward value used */
  double reverse;        /**< sound reverse value used */
  double epsilon;        /**< max(forward, reverse): the sound RDP value */
  double epsilon_paper;  /**< the paper's epsilon: max(eq. (2) or, if not
                              computed, eq. (3) first term, reverse_paper) */
  int forward_method;    /**< enum pld_rdp_split_method */
  int reverse_method;    /**< enum pld_rdp_split_method */
} pld_rdp_split_terms;

/** Eq. (2), first term, as corrected: the exact forward divergence
 *  D_alpha(P||Q) (Lemma 3.12).  Domain: alpha > 1, 1 <= k <= d, sigma > 0,
 *  c > 0.  Exact at integer alpha; at fractional alpha the convex
 *  interpolation of the neighbouring integer orders (an upper bound).
 *  Cost: min(k, d-k) <= 1: O(alpha^2 log d); otherwise an exact dynamic
 *  program whose work is bounded by 3e6 steps, beyond which PLD_ERANGE.
 *  Orders above 2048, d above 2^52 or a non-finite value also give
 *  PLD_ERANGE.
 *  @return PLD_SUCCESS, PLD_EINVAL, PLD_ERANGE, PLD_ENOMEM. */
#ifdef PLD_EXPERIMENTAL
PLD_EXPERIMENTAL_API PLD_NODISCARD int pld_rdp_split_forward_exact(double alpha, int64_t d,
                                                      int64_t k, double sigma,
                                                      double c, double *eps);
#endif

/** Eq. (3), first term (Cor. 3.14):
 *    log( sum_l C(k,l) C(d-k,k-l) / C(d,k) * exp(alpha c^2 l / (2 sigma^2)) )
 *  a proven upper bound on D_alpha(P||Q) at integer alpha >= 2; fractional
 *  alpha uses the convex interpolation of ceil/floor values.  Domain as
 *  pld_rdp_split_forward_exact.  Cost O(k).
 *  @return PLD_SUCCESS, PLD_EINVAL (also for a NaN result). */
#ifdef PLD_EXPERIMENTAL
PLD_EXPERIMENTAL_API PLD_NODISCARD int pld_rdp_split_forward_eq3(double alpha, int64_t d,
                                                    int64_t k, double sigma,
                                                    double c, double *eps);
#endif

/** The paper's reverse term (second entry of eqs. (1)-(3)):
 *    alpha c^2 k^2/(2 sigma^2 d) + 1/(2(alpha-1)) [alpha c^2 k(d-k)/(sigma^2 d)
 *       - d log(alpha e^v + 1 - alpha)],  v = c^2 k(d-k)/(sigma^2 d^2),
 *  +INFINITY where alpha e^v + 1 - alpha <= 0 (never, for valid input).
 *  NOT a bound on D_alpha(Q||P) (docs/papers/splitting.md; see the section comment).  For
 *  comparison only.  Domain as pld_rdp_split_forward_exact.  Cost O(1).
 *  @return PLD_SUCCESS, PLD_EINVAL. */
#ifdef PLD_EXPERIMENTAL
PLD_EXPERIMENTAL_API PLD_NODISCARD int pld_rdp_split_reverse_paper(double alpha, int64_t d,
                                                      int64_t k, double sigma,
                                                      double c, double *eps);
#endif

/** The exact reverse divergence D_alpha(Q||P) for k in {1, d-1, d}, any real
 *  alpha > 1, by the one-dimensional reduction and quadrature described in
 *  papers/splitting_rdp.c (k = d is the Gaussian, in closed form).  The value
 *  returned includes an added margin: the a-posteriori quadrature error
 *  estimate (the design step against half of it) plus 1e-11 relative in the
 *  moment; not a formal interval certificate.  Cost: about 1e5-1e7
 *  exponentials (grows like c/sigma).  Other k, or c/sigma > 8:
 *  PLD_EUNSUPPORTED.
 *  @return PLD_SUCCESS, PLD_EINVAL, PLD_EUNSUPPORTED, PLD_ENOMEM, PLD_ERANGE
 *  (quadrature table over its work cap), PLD_ETOL (quadrature self-check
 *  failed). */
#ifdef PLD_EXPERIMENTAL
PLD_EXPERIMENTAL_API PLD_NODISCARD int pld_rdp_split_reverse_exact(double alpha, int64_t d,
                                                      int64_t k, double sigma,
                                                      double c, double *eps);
#endif

/** Thm 3.1 at one order: every term, and the sound epsilon = max(forward,
 *  reverse) where forward is the exact eq. (2) when affordable (see
 *  pld_rdp_split_forward_exact), else the smaller of eq. (3) and the group
 *  bound, and reverse is exact for k in {1, d-1, d}, else the group bound
 *  (both capped by the Gaussian value).  The reverse quadrature needs
 *  c/sigma <= 8 and d <= 2^52; when it is unavailable or its self-check
 *  fails, reverse falls back to the Gaussian value (reverse_method says
 *  which was used) instead of failing.  Domain: alpha > 1, 1 <= k <= d,
 *  sigma, c > 0 finite.  Cost: dominated by the reverse quadrature (see
 *  pld_rdp_split_reverse_exact).
 *  @return PLD_SUCCESS, PLD_EINVAL, PLD_ENOMEM. */
PLD_API PLD_NODISCARD int pld_rdp_model_splitting(double alpha, int64_t d,
                                                  int64_t k, double sigma,
                                                  double c,
                                                  pld_rdp_split_terms *out);

/** The sound epsilon of pld_rdp_model_splitting at n >= 1 orders (each
 *  finite and > 1, any order), with the quadrature tables shared between
 *  orders (much faster than n scalar calls).  eps[i] belongs to orders[i];
 *  eps[0..n) is written only on success.
 *  @return PLD_SUCCESS, PLD_EINVAL, PLD_ENOMEM. */
PLD_API PLD_NODISCARD int pld_rdp_model_splitting_curve(size_t n,
                                                        const double *orders,
                                                        int64_t d, int64_t k,
                                                        double sigma, double c,
                                                        double *eps);

/** The forward terms of pld_rdp_model_splitting_curve alone (the `forward`
 *  of pld_rdp_split_terms: exact eq. (2) where affordable, else the smaller
 *  of eq. (3) and the group/block bound, capped by the Gaussian value),
 *  without the reverse quadrature.  NOT an RDP bound of the pair: it is a
 *  pointwise LOWER bound on the sound curve (epsilon = max(forward, reverse)
 *  >= forward, computed by the same code, so eps_forward[i] <= eps[i]
 *  exactly), for deciding cheaply that the sound curve cannot beat another
 *  bound (catalogue/query.c, docs/allocation.md).  Arguments, domain and
 *  returns as pld_rdp_model_splitting_curve. */
#ifdef PLD_EXPERIMENTAL
PLD_EXPERIMENTAL_API PLD_NODISCARD int pld_rdp_model_splitting_forward_curve(
    size_t n, const double *orders, int64_t d, int64_t k, double sigma,
    double c, double *eps);
#endif

/** Dropout with rate 1/2 (Cor. 3.7): the sound epsilon of d = 2, k = 1
 *  (alpha > 1, sigma, c > 0 finite).
 *  @return as pld_rdp_model_splitting. */
PLD_API PLD_NODISCARD int pld_rdp_dropout(double alpha, double sigma, double c,
                                          double *eps);

/** Partial model splitting (Sec. 3.2.2): a split part with clipping norm
 *  c_split routed to k of d blocks (k = 1 for disjoint submodels) and a
 *  shared part with its own clipping norm c_shared >= 0, same noise sigma:
 *    epsilon = sound splitting epsilon(d, k, c_split) + alpha c_shared^2 /
 *  (2 sigma^2).  Adding is sound even though the shared gradient may depend
 *  on the submodel drawn: release the split part first; given it, the
 *  shared part is a mixture of Gaussians with shifts of norm <= c_shared,
 *  whose divergence to (and from) N(0) is at most the Gaussian value by
 *  joint quasi-convexity; the chain rule of adaptive RDP composition adds.
 *  Domain as pld_rdp_model_splitting (c = c_split), c_shared >= 0 finite.
 *  @return as pld_rdp_model_splitting. */
PLD_API PLD_NODISCARD int pld_rdp_partial_splitting(double alpha, int64_t d,
                                                    int64_t k, double sigma,
                                                    double c_split,
                                                    double c_shared,
                                                    double *eps);

/** Balanced Iteration Subsampling (Thm 3.8): T iterations, each example in
 *  exactly k of them (1 <= k <= T), Gaussian noise sigma, sensitivity c.
 *  The terms describe the whole run.  Same as
 *  pld_rdp_model_splitting(alpha, T, k, ...).
 *  @return as pld_rdp_model_splitting. */
PLD_API PLD_NODISCARD int pld_rdp_bis(double alpha, int64_t T, int64_t k,
                                      double sigma, double c,
                                      pld_rdp_split_terms *out);

/** Remark 3.10: `epochs` >= 1 sequential runs of Balanced Iteration
 *  Subsampling with T iterations and k participations each, composed:
 *  epochs * (sound epsilon of one run).  @return as pld_rdp_bis. */
PLD_API PLD_NODISCARD int pld_rdp_bis_epochs(double alpha, int64_t T,
                                             int64_t k, int64_t epochs,
                                             double sigma, double c,
                                             double *eps);

/** Both directions of one RDP pair. */
typedef struct pld_rdp_pair_terms {
  double forward;  /**< D_alpha(P||Q), P = the dataset holding the record */
  double reverse;  /**< D_alpha(Q||P) */
  double epsilon;  /**< max of the two */
} pld_rdp_pair_terms;

/** Figure 1: Poisson subsampling (rate gamma in (0, 1]) combined with
 *  disjoint model splitting into d >= 1 submodels.  pldkit's reading (the
 *  paper does not spell it out): one step is the exact pair
 *    Q = N(0, sigma^2 I_d),
 *    P = (1 - gamma) N(0, sigma^2 I_d) + (gamma/d) sum_i N(c e_i, sigma^2 I_d)
 *  (the record is sampled, then routed to one submodel, independently), in
 *  both directions; steps compose by adding RDP.  Forward: exact at integer
 *  alpha (binomial mixture of the splitting moments, Lemma 3.12), convex
 *  interpolation at fractional alpha.  Reverse: exact by the same quadrature
 *  as pld_rdp_split_reverse_exact.  d = 1 is the Poisson-subsampled Gaussian
 *  (Thm 3.11).  Domain: alpha > 1, sigma, c > 0 finite.  Orders above
 *  2048, d above 2^52, c/sigma above 8 (no reverse quadrature), a quadrature
 *  over its work cap or a non-finite forward value give PLD_ERANGE.  Cost
 *  as pld_rdp_split_reverse_exact.
 *  @return PLD_SUCCESS, PLD_EINVAL, PLD_ERANGE, PLD_ENOMEM, PLD_ETOL
 *  (quadrature self-check failed). */
PLD_API PLD_NODISCARD int pld_rdp_poisson_split(double alpha, double gamma,
                                                int64_t d, double sigma,
                                                double c,
                                                pld_rdp_pair_terms *out);

#ifdef __cplusplus
}
#endif
#endif
