/* pldkit: the bounded-support Gaussian (Hu, Mahloujifar, Smith, Chaudhuri, Guo,
 * "Privacy amplification for the Gaussian mechanism via bounded support"):
 * its RDP and its PLD mechanisms.
 *
 * Pure functions of their arguments (orders alpha > 1, values in nats);
 * nothing allocates visibly, prints or aborts.  Every function returns an
 * int from enum pld_status and writes its outputs only on success; bad
 * input gives PLD_EINVAL.  A value documented as a "bound" is never below
 * what it bounds; the paper's formulas as printed (some wrong) are behind
 * PLD_EXPERIMENTAL (status.h) and say so.  Paper vs pldkit, with numbers:
 * docs/papers-rdp.md.  All functions are reentrant.
 */
#ifndef PLDKIT_BOUNDED_H
#define PLDKIT_BOUNDED_H

#include <stddef.h>
#include <stdint.h>

#include <pldkit/mech.h>
#include <pldkit/accountant.h>
#include <pldkit/status.h>

#ifdef __cplusplus
extern "C" {
#endif

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

#ifdef __cplusplus
}
#endif
#endif
