/* pldkit: the papers' RDP and closed-form bounds.
 *
 * Three papers, each checked against independent computations (see
 * docs/papers-rdp.md for paper vs pldkit, with numbers):
 *
 *  - Dong, Chen, Ozgur, "Leveraging randomness in model and data
 *    partitioning for privacy amplification" (model splitting, dropout,
 *    Balanced Iteration Subsampling, "the splitting paper");
 *  - Hu, Mahloujifar, Smith, Chaudhuri, Guo, "Privacy amplification for the
 *    Gaussian mechanism via bounded support" ("the bounded-support paper");
 *  - MS-PAFL, "Model-splitting privacy-amplified federated learning"
 *    (closed forms, kept as baselines).
 *
 * Everything here is a pure function of its arguments: per-order scalar
 * RDP values (orders alpha > 1, values in nats), Fisher information, and
 * (epsilon, delta) closed forms.  Nothing allocates visibly, prints, aborts
 * or touches a global handler.  Every function returns an int from enum
 * pld_status and writes its outputs only on success.  Bad input (NaN, +-inf,
 * alpha <= 1, d < 1, k < 1, k > d, sigma <= 0, c <= 0, a <= 0, NULL, ...)
 * gives PLD_EINVAL.
 *
 * Soundness.  A value documented as a "bound" is never below the quantity
 * it bounds (up to the stated floating-point margin, which is added, not
 * subtracted).  Values that reproduce a paper's formula but are NOT valid
 * bounds are named *_paper and say so; they exist for comparison only.
 * Where nothing sound can be computed, +INFINITY is returned (a valid RDP
 * value).
 *
 * Thread safety: all functions are reentrant.
 */
#ifndef PLDKIT_RDP_PAPERS_H
#define PLDKIT_RDP_PAPERS_H

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

/* ======================================================================== */
/* Bounded-support Gaussian (bounded-support paper).                         */
/*                                                                           */
/* Support [-a, a].  Rectified N^R(theta): N(theta, sigma^2) clipped to      */
/* [-a, a] (point masses Phi((-a-theta)/sigma) at -a, Phi((theta-a)/sigma)   */
/* at a).  Truncated N^T(theta): N(theta, sigma^2) conditioned on (-a, a).   */
/* Per-instance RDP of the pair (N^B(theta), N^B(theta + c)) at a fixed      */
/* location theta and neighbouring shift c (either sign).                    */
/*  - eq. (5) (rectified) is correct as printed and exact here;              */
/*  - eq. (6) (truncated) is misprinted: pldkit uses the derivation of       */
/*    App. B, D = alpha c^2/(2 sigma^2) + log(Delta(theta+c)/Delta(theta))   */
/*    + 1/(alpha-1) log(Delta(theta+(1-alpha)c)/Delta(theta)), with          */
/*    Delta(x) = Phi((a-x)/sigma) - Phi((-a-x)/sigma);                       */
/*  - both directions, and the neighbour set |shift| <= C: both families     */
/*    have monotone likelihood ratio and a score increasing in the output,   */
/*    so by Chebyshev's covariance inequality each direction is              */
/*    non-decreasing in |shift| (proof in papers/bounded_rdp.c); the sup over   */
/*    |shift| <= C is at shift = +C or -C.  Algorithm 1 of the paper only    */
/*    evaluates +C (errata: docs/papers/bounded-support.md).                 */
/* ======================================================================== */

/** Bounded-support families. */
enum pld_bounded_kind {
  PLD_BOUNDED_RECTIFIED = 0, /**< clipped to [-a, a], point masses at +-a */
  PLD_BOUNDED_TRUNCATED = 1  /**< conditioned on (-a, a) */
};

/** D_alpha(N^B(theta1, sigma^2, [-a,a]) || N^B(theta2, sigma^2, [-a,a])),
 *  one direction, exact (eq. (5) / corrected eq. (6)), evaluated in log space
 *  (accurate for large alpha and far-out locations).  Domain: alpha > 1,
 *  finite thetas, a > 0, sigma > 0 (theta/sigma and a/sigma finite); kind a
 *  pld_bounded_kind.  Cost O(1).
 *  @return PLD_SUCCESS, PLD_EINVAL (also for a NaN result). */
#ifdef PLD_EXPERIMENTAL
PLD_EXPERIMENTAL_API PLD_NODISCARD int pld_rdp_bounded_gaussian_div(int kind, double alpha,
                                                       double theta1,
                                                       double theta2, double a,
                                                       double sigma,
                                                       double *div);
#endif

/** Per-instance RDP at location theta and shift c != 0 (any sign, theta + c
 *  finite): the max of both directions.  Never above the Gaussian alpha
 *  c^2/(2 sigma^2) (Thm 4.9).  Domain otherwise as
 *  pld_rdp_bounded_gaussian_div.  Cost O(1).
 *  @return PLD_SUCCESS, PLD_EINVAL. */
PLD_API PLD_NODISCARD int pld_rdp_bounded_gaussian(int kind, double alpha,
                                                   double theta, double a,
                                                   double sigma, double c,
                                                   double *eps);

/** Per-instance RDP over the neighbour set |shift| <= C (C > 0 finite): the
 *  max of both directions at shifts +C and -C, which is the sup over the set
 *  (see the section comment).  Cost O(1).
 *  @return PLD_SUCCESS, PLD_EINVAL. */
PLD_API PLD_NODISCARD int pld_rdp_bounded_gaussian_sup(int kind, double alpha,
                                                       double theta, double a,
                                                       double sigma, double C,
                                                       double *eps);

/** Eq. (6) exactly as printed, log(Delta(theta+c)/Delta(theta) *
 *  (Delta((1-alpha)(c+theta))/Delta(theta))^(1-alpha)) + alpha c^2/(2
 *  sigma^2): WRONG (does not match numerical integration); for comparison
 *  only.  May be +-INFINITY.  Domain: alpha > 1, theta finite, a, sigma > 0
 *  finite, c != 0 finite.  @return PLD_SUCCESS, PLD_EINVAL. */
#ifdef PLD_EXPERIMENTAL
PLD_EXPERIMENTAL_API PLD_NODISCARD int pld_rdp_truncated_gaussian_eq6_paper(
    double alpha, double theta, double a, double sigma, double c, double *val);
#endif

/** Prop. 5.1 with the neighbour set of L_inf-clipped contributions: a
 *  product of n coordinates with locations theta[0..n), support [-a, a]^n,
 *  per-coordinate shifts |s_j| <= C.  Returns
 *    max over direction of sum_j max_{s_j = +-C} D_j,
 *  the exact sup over the neighbour set (Prop. 5.1 adds per-coordinate
 *  divergences; one direction is shared by all coordinates), times
 *  (1 + 2 n u) for the summation.  n >= 1; C > 0 finite.  Cost O(n).
 *  @return PLD_SUCCESS, PLD_EINVAL. */
#ifdef PLD_EXPERIMENTAL
PLD_EXPERIMENTAL_API PLD_NODISCARD int pld_rdp_bounded_gaussian_vec(int kind, double alpha,
                                                       size_t n,
                                                       const double *theta,
                                                       double a, double sigma,
                                                       double C, double *eps);
#endif

/** Algorithm 1 flags. */
enum pld_alg1_flags {
  PLD_ALG1_SOUND = 0,  /**< shifts +-C, both directions (default) */
  PLD_ALG1_PAPER = 1   /**< the paper's: shift +C, forward direction only
                            (not a per-instance guarantee over the
                            neighbour set; for comparison) */
};

/** Algorithm 1: per-coordinate RDP and FIL for a vector g_sum[0..n) of
 *  summed L_inf-clipped gradients (clipping C, noise sigma, support [-a,a]).
 *  eps_coord[j] = max over (sign, direction) of coordinate j's divergence
 *  (PLD_ALG1_PAPER: forward at +C only); eta_coord[j] = the FIL eta^B of
 *  coordinate j (per unit Jacobian; per-example FIL is
 *  ||eta^T grad_x g(x)||^2 as in line 8); *eps_total = the sound vector
 *  value of pld_rdp_bounded_gaussian_vec (PLD_ALG1_PAPER: sum of
 *  eps_coord).  eps_coord or eta_coord (n doubles each) may be NULL;
 *  eta_coord[j] is NAN where the FIL cannot be computed.  flags: only
 *  PLD_ALG1_PAPER may be set.  Every input is checked before anything is
 *  written.  Cost O(n).
 *  @return PLD_SUCCESS, PLD_EINVAL. */
#ifdef PLD_EXPERIMENTAL
PLD_EXPERIMENTAL_API PLD_NODISCARD int pld_rdp_bounded_gaussian_alg1(
    int kind, unsigned flags, double alpha, size_t n, const double *g_sum,
    double a, double sigma, double C, double *eps_coord, double *eta_coord,
    double *eps_total);
#endif

/** Fisher information loss eta = sqrt(I(theta)) of one coordinate (per unit
 *  Jacobian, units 1/sigma): truncated, eq. (3) (correct as printed: the
 *  truncated normal's variance / sigma^4); rectified, eq. (4) corrected:
 *    I = (1/sigma^2)[phi(A)^2/Phi(A) + phi(B)^2/Phi(-B) + Phi(B) - Phi(A)
 *        + A phi(A) - B phi(B)],  A = (-a-theta)/sigma, B = (a-theta)/sigma
 *  (the paper prints Phi((theta-b)/sigma) - Phi((theta-a)/sigma), the
 *  negative of the interior mass).  Never above the Gaussian 1/sigma
 *  (Thm 4.2).  Domain: kind a pld_bounded_kind, theta finite, a, sigma > 0
 *  finite.  Cost O(1).  @return PLD_SUCCESS, PLD_EINVAL. */
#ifdef PLD_EXPERIMENTAL
PLD_EXPERIMENTAL_API PLD_NODISCARD int pld_fil_bounded_gaussian(int kind, double theta,
                                                   double a, double sigma,
                                                   double *eta);
#endif

/** Eq. (4) exactly as printed, returned as eta^2 (it can be negative):
 *  for comparison only.  Domain as pld_fil_bounded_gaussian.
 *  @return PLD_SUCCESS, PLD_EINVAL. */
#ifdef PLD_EXPERIMENTAL
PLD_EXPERIMENTAL_API PLD_NODISCARD int pld_fil_rectified_gaussian_eq4_paper(double theta,
                                                               double a,
                                                               double sigma,
                                                               double *eta2);
#endif

/** FIL of the stochastic sign sign(theta + N(0, sigma^2)):
 *  eta = phi(theta/sigma) / (sigma sqrt(Phi(theta/sigma) Phi(-theta/sigma))),
 *  in log space for large |theta|.  theta finite, sigma > 0 finite.
 *  @return PLD_SUCCESS, PLD_EINVAL. */
#ifdef PLD_EXPERIMENTAL
PLD_EXPERIMENTAL_API PLD_NODISCARD int pld_fil_stochastic_sign(double theta, double sigma,
                                                  double *eta);
#endif

/** The exact per-instance privacy-loss distribution of the rectified pair
 *  P = N^R(theta, sigma^2, [-a, a]), Q = N^R(theta + c, sigma^2, [-a, a])
 *  (theta finite, a > 0, sigma > 0, c != 0 finite) as a PLD mechanism:
 *  its hockey-stick curve in both directions and its loss tails, exact
 *  (point masses included).  The loss is monotone in the output, so
 *    delta(eps) = max(0, 1 - e^eps, Phi(x) - e^eps Phi(x - c/sigma)),
 *    x = clamp(c/(2 sigma) - eps sigma/c, (-a-theta)/sigma, (a-theta)/sigma)
 *  (for c > 0; c < 0 by reflection): equal to the plain Gaussian's whenever
 *  the Gaussian's optimal threshold falls inside the support (docs/papers/bounded-support.md).
 *  |c|/sigma must lie in [1e-12, 1e6].  The caller frees *out with
 *  pld_mech_free (pld_mech_copy copies it).
 *  @return PLD_SUCCESS, PLD_EINVAL, PLD_ENOMEM. */
PLD_API PLD_NODISCARD int pld_mech_rectified_gaussian(double theta, double a,
                                                      double sigma, double c,
                                                      pld_mech **out);

/** The exact per-instance privacy-loss distribution of the truncated pair
 *  P = N^T(theta, sigma^2, [-a, a]), Q = N^T(theta + c, sigma^2, [-a, a])
 *  (N conditioned on the support; same domain as the rectified one), both
 *  directions, with its loss tails.  The loss mu (mu/2 - z) + log(Z_Q/Z_P)
 *  (z = (y - theta)/sigma, mu = c/sigma, Z the normalizers) is monotone, so
 *    delta(eps) = max(0, 1 - e^eps, P[z <= x] - e^eps Q[z <= x]),
 *    x = clamp(mu/2 - (eps - log(Z_Q/Z_P))/mu, (-a-theta)/sigma,
 *              (a-theta)/sigma)
 *  (c > 0; c < 0 by reflection).  PLD_EINVAL also when a normalizer is
 *  below e^-700 (the support ~37 sigma away from a centre).  Free *out with
 *  pld_mech_free.
 *  @return PLD_SUCCESS, PLD_EINVAL, PLD_ENOMEM. */
PLD_API PLD_NODISCARD int pld_mech_truncated_gaussian(double theta, double a,
                                                      double sigma, double c,
                                                      pld_mech **out);

/* ======================================================================== */
/* MS-PAFL closed forms (baselines).  epsilon, delta in nats / probability.  */
/* `certified` is 1 when the value is a proven (epsilon, delta) guarantee    */
/* under the stated assumptions, 0 when it is the paper's number only.       */
/* For a tight analysis of the same protocol use the PLD backend: Poisson     */
/* rate p*q subsampled Gaussian (pld_mech_poisson_gaussian) with noise       */
/* multiplier sigma/s from pld_mspafl_lemma1_sigma, composed T times.        */
/* ======================================================================== */

/** An (epsilon, delta) closed form and whether it is certified. */
typedef struct pld_mspafl_bound {
  double epsilon;  /**< nats, may be +INFINITY */
  double delta;    /**< in [0, 1] */
  int certified;   /**< 1: a proven guarantee; 0: the paper's value only */
} pld_mspafl_bound;

/** Lemma 1 (Dwork & Roth Thm 3.22): sigma = s sqrt(2 log(1.25/delta))/eps
 *  for an L2 sensitivity s > 0, eps > 0, delta in (0, 1).  The theorem is
 *  proven for eps < 1 only; *certified is 1 iff the exact Gaussian curve
 *  (Balle & Wang 2018) at this sigma has delta(eps) <= delta, checked here.
 *  *certified may be NULL.  @return PLD_SUCCESS, PLD_EINVAL. */
#ifdef PLD_EXPERIMENTAL
PLD_EXPERIMENTAL_API PLD_NODISCARD int pld_mspafl_lemma1_sigma(double eps, double delta,
                                                  double s, double *sigma,
                                                  int *certified);
#endif

/** Eq. (11): the data subsampling ratio for batches of Qb = `draws` >= 1
 *  records out of n >= 1 (draws <= n without replacement): q = draws/n
 *  (WOR) or 1 - (1 - 1/n)^draws (WR, any with_replacement != 0).
 *  @return PLD_SUCCESS, PLD_EINVAL. */
#ifdef PLD_EXPERIMENTAL
PLD_EXPERIMENTAL_API PLD_NODISCARD int pld_mspafl_sampling_ratio(uint64_t draws, uint64_t n,
                                                    int with_replacement,
                                                    double *q);
#endif

/** Thm 1: a mechanism (eps_l, delta_l)-DP, eps_l in (0, 1], delta_l in
 *  [0, 1), run on a subsample with ratio q in (0, 1] is (2 q eps_l,
 *  q delta_l)-DP.  Certified without
 *  replacement (Balle, Barthe, Gaboardi 2018: log(1 + q(e^eps - 1)) <=
 *  2 q eps for eps <= 1); not with replacement (a record drawn several
 *  times needs group privacy, which q delta_l ignores).
 *  @return PLD_SUCCESS, PLD_EINVAL. */
#ifdef PLD_EXPERIMENTAL
PLD_EXPERIMENTAL_API PLD_NODISCARD int pld_mspafl_thm1(double eps_l, double delta_l,
                                          double q, int with_replacement,
                                          pld_mspafl_bound *out);
#endif

/** Thm 2: client check-in with probabilities p[i] in (0, 1] and subsampling
 *  ratios q[i] in (0, 1] for N >= 1 clients:
 *    eps = max_i log(1 + p_i/(1-delta') (e^{2 q_i eps_l} - 1)),
 *    delta = max_i delta' + p_i q_i delta_l/(1-delta'),
 *  delta' = 2 exp(-2 beta^2 N), beta > 0, eps_l in (0, 1], delta_l in
 *  [0, 1); delta is capped at 1.  If delta' >= 1
 *  the answer is the trivial (+INFINITY, 1).  Not certified: the
 *  amplification assumes the server cannot see who checked in (docs/papers/ms-pafl.md).
 *  @return PLD_SUCCESS, PLD_EINVAL. */
#ifdef PLD_EXPERIMENTAL
PLD_EXPERIMENTAL_API PLD_NODISCARD int pld_mspafl_thm2(size_t N, const double *p,
                                          const double *q, double eps_l,
                                          double delta_l, double beta,
                                          pld_mspafl_bound *out);
#endif

/** Cor. 1: Thm 2 with p_i = p, q_i = q for N >= 1 clients (same domain, not
 *  certified).  @return PLD_SUCCESS, PLD_EINVAL. */
#ifdef PLD_EXPERIMENTAL
PLD_EXPERIMENTAL_API PLD_NODISCARD int pld_mspafl_cor1(uint64_t N, double p, double q,
                                          double eps_l, double delta_l,
                                          double beta, pld_mspafl_bound *out);
#endif

/** Thm 3 with the constant c0 > 0 REQUIRED from the caller (the paper does
 *  not give it): eps = c0 q eps_l sqrt(p T / (1 - q)), p in (0, 1], q in
 *  (0, 1), eps_l > 0 finite, T >= 1.  Never certified: App. C's derivation
 *  is flawed and, with the c0 of its eq. (C.8), the value lies below the
 *  exact epsilon when p >~ 0.5 (p = 1, q = 0.2, eps_l = 1, T = 1000: 3.49
 *  vs about 6.11).
 *  out->delta is set to NAN (the theorem states none).
 *  @return PLD_SUCCESS, PLD_EINVAL. */
#ifdef PLD_EXPERIMENTAL
PLD_EXPERIMENTAL_API PLD_NODISCARD int pld_mspafl_thm3(double c0, double q, double eps_l,
                                          double p, uint64_t T,
                                          pld_mspafl_bound *out);
#endif

/** The constant implied by App. C, eq. (C.8): c0 = sqrt(log(1/delta_l) /
 *  log(1.25/delta_l)) / (2 clip), delta_l in (0, 0.8), clip > 0.  Only to
 *  reproduce the paper's numbers.  @return PLD_SUCCESS, PLD_EINVAL. */
#ifdef PLD_EXPERIMENTAL
PLD_EXPERIMENTAL_API PLD_NODISCARD int pld_mspafl_thm3_c0_appendix(double delta_l,
                                                      double clip, double *c0);
#endif

/** Thm 4 (advanced composition, Dwork, Rothblum, Vadhan 2010): T >= 1 rounds
 *  each (eps_r, delta_r)-DP (eps_r >= 0, delta_r in [0, 1]) are
 *  (sqrt(2 T log(1/dt)) eps_r + T eps_r (e^eps_r - 1), T delta_r + dt)-DP
 *  for dt in (0, 1].  Certified (delta capped at 1).
 *  @return PLD_SUCCESS, PLD_EINVAL. */
#ifdef PLD_EXPERIMENTAL
PLD_EXPERIMENTAL_API PLD_NODISCARD int pld_mspafl_thm4(double eps_r, double delta_r,
                                          uint64_t T, double delta_tilde,
                                          pld_mspafl_bound *out);
#endif

/* ------------------------------------------------------------------------ */
/* MS-PAFL as one analysis: a closed form with its flag, and beside it the   */
/* PLD epsilon of the same protocol (what `pldkit mspafl` and Python's       */
/* pldkit.papers.mspafl print).                                              */
/* ------------------------------------------------------------------------ */

/** Which closed form pld_mspafl_analyze evaluates. */
typedef enum pld_mspafl_theorem {
  PLD_MSPAFL_LEMMA1 = 1, /**< sigma for (eps_l, delta_l): one round, no sampling */
  PLD_MSPAFL_THM1 = 2,   /**< data subsampling only (p = 1), one round */
  PLD_MSPAFL_THM2 = 3,   /**< per-client p_i, q_i, one round */
  PLD_MSPAFL_COR1 = 4,   /**< equal clients, one round */
  PLD_MSPAFL_THM3 = 5,   /**< moments-accountant closed form, T rounds */
  PLD_MSPAFL_THM4 = 6    /**< advanced composition of a per-round bound */
} pld_mspafl_theorem;

/** How a client draws its records (eq. (11)). */
typedef enum pld_mspafl_sampling {
  PLD_MSPAFL_POISSON = 0, /**< each record independently with prob. q */
  PLD_MSPAFL_WOR = 1,     /**< a batch of `batch` of `n`, without replacement */
  PLD_MSPAFL_WR = 2       /**< `batch` draws of `n`, with replacement */
} pld_mspafl_sampling;

/** The protocol.  Fill with pld_mspafl_setting_default, then set fields. */
typedef struct pld_mspafl_setting {
  double eps_l, delta_l; /**< local target of Lemma 1 (eps_l in (0, 1] for
                              Thms 1, 2, Cor. 1), delta_l in (0, 1) */
  double sensitivity;    /**< L2 sensitivity s > 0 of one record's effect
                              (default 1; only sigma/s matters) */
  double p;              /**< check-in probability in (0, 1] (default 1) */
  int sampling;          /**< enum pld_mspafl_sampling (default POISSON) */
  double q;              /**< POISSON: rate in (0, 1] (Thm 3: < 1) */
  uint64_t batch, n;     /**< WOR / WR: q from eq. (11) */
  uint64_t clients;      /**< N >= 1 (Thm 2 / Cor. 1 / Thm 4) */
  double beta;           /**< > 0, delta' = 2 exp(-2 beta^2 N) */
  size_t n_clients_list; /**< Thm 2: number of entries of p_list, q_list */
  const double *p_list, *q_list; /**< Thm 2: per-client p_i, q_i */
  uint64_t rounds;       /**< T >= 1 (Thms 3, 4; default 1) */
  double delta_tilde;    /**< Thm 4, in (0, 1] (default 1e-5) */
  int thm4_round;        /**< Thm 4's per-round bound: 0 Cor. 1 (the
                              paper), 1 Thm 1 (data sampling only) */
  double c0;             /**< Thm 3's constant (> 0), or 0 with
                              c0_appendix = 1 */
  int c0_appendix;       /**< 1: c0 from App. C (C.8) with `clip` */
  double clip;           /**< for c0_appendix (default 1) */
  int server_sees_checkin; /**< 1: client sampling gives the server nothing,
                              the exact PLD uses p = 1 (default 0) */
} pld_mspafl_setting;

/** What pld_mspafl_analyze found. */
typedef struct pld_mspafl_report {
  pld_mspafl_bound closed; /**< the closed form: epsilon (Lemma 1: eps_l),
                              delta (NAN for Thm 3) and certified */
  const char *kind;        /**< static text: "proven bound", or what the
                              value is when not proven */
  double sigma;            /**< Lemma 1's sigma (noise std) */
  double c0;               /**< Thm 3's constant used (NAN otherwise) */
  double q;                /**< the data sampling ratio used */
  double rate;             /**< per-round probability that the record is
                              used, as modelled by the exact PLD */
  uint64_t rounds;         /**< rounds composed by the exact PLD */
  double exact_delta;      /**< delta at which the exact epsilon is asked:
                              closed.delta when in (0, 1), else delta_l */
  int exact_available;     /**< 0: no sound PLD (see exact_model) */
  pld_result exact;        /**< PLD epsilon bracket (if available) */
  const char *exact_model; /**< static text: the mechanism composed, or why
                              there is none */
} pld_mspafl_report;

/** Defaults: sensitivity 1, p 1, POISSON, clients 1, beta 0.25, rounds 1,
 *  delta_tilde 1e-5, thm4_round 0, clip 1; eps_l, delta_l, q, c0 NAN /
 *  0 (must be set).  @return PLD_SUCCESS, PLD_EINVAL (NULL). */
PLD_API PLD_NODISCARD int pld_mspafl_setting_default(pld_mspafl_setting *s);

/** Evaluate `theorem` on setting `s` and the PLD epsilon of the same
 *  protocol beside it.  Certified flags: Lemma 1 iff the exact Gaussian
 *  curve confirms delta_l at eps_l; Thm 1 unless sampling is WR; Thm 2 and
 *  Cor. 1 never (hidden participation, docs/papers/ms-pafl.md); Thm 3 never
 *  (not a bound for p >~ 0.5); Thm 4 iff its per-round bound is (so with
 *  thm4_round 1 and not WR; with Cor. 1 never).
 *
 *  The exact PLD (docs/papers/ms-pafl.md, "The exact PLD"): one round is
 *  the Gaussian with noise sigma (Lemma 1) and sensitivity s run on the
 *  record with probability rate = p * q (p = 1 for Lemma 1 / Thm 1 or when
 *  the server sees who checked in; q = 1 for Lemma 1), composed `rounds`
 *  times: POISSON -> Poisson-subsampled Gaussian (add/remove); WOR -> the
 *  without-replacement Gaussian at that rate (replace-one, Balle et al.
 *  2018 Thm 10; s is then the replace-one sensitivity); WR -> none (a
 *  record drawn k times moves the output by k s; no proven dominating pair
 *  in pldkit), exact_available = 0.  Thm 2 uses the client with the
 *  largest p_i q_i (Poisson only).
 *  `params` as for pld_accountant_alloc (NULL: defaults).
 *  @return PLD_SUCCESS, PLD_EINVAL (bad setting; *out untouched),
 *  PLD_ENOMEM, or the accountant's error. */
PLD_API PLD_NODISCARD int pld_mspafl_analyze(int theorem,
                                             const pld_mspafl_setting *s,
                                             const pld_params *params,
                                             pld_mspafl_report *out);

/** The theorem's name ("lemma1", "thm1", "thm2", "cor1", "thm3", "thm4")
 *  and back; NULL / 0 when unknown. */
PLD_API const char *pld_mspafl_theorem_name(int theorem);
PLD_API int pld_mspafl_theorem_parse(const char *name);

#ifdef __cplusplus
}
#endif
#endif
