/* pldkit: mechanisms.
 *
 * A pld_mech is an immutable description of one mechanism run once on a pair
 * of neighbouring datasets.  It knows its exact hockey-stick curve in both
 * directions (see pld.h) and nothing about grids or FFTs; the PLD builder
 * sees it only through pld_mech_curve().
 *
 * Conventions.  Sensitivities are L1 for Laplace, L2 for Gaussian, integer
 * for the discrete mechanisms.  For the Poisson-subsampled mechanisms the
 * adjacency is add/remove: P = (1-q) B0 + q B1 (the dataset with the record,
 * where B0, B1 are the base mechanism's output without and with the record's
 * contribution) and Q = B0; both directions are kept.  Randomized response
 * and finite pairs use the pair exactly as given (replace-one adjacency for
 * randomized response).
 *
 * Ownership.  Every constructor returns a new mechanism in *out that the
 * caller frees with pld_mech_free; array arguments are copied, so they may
 * be freed right after the call.  Built-in curves are exact up to their
 * booked pld_curve.rel_err unless a constructor says otherwise.
 */
#ifndef PLDKIT_MECH_H
#define PLDKIT_MECH_H

#include <stddef.h>
#include <stdint.h>

#include <pldkit/pld.h>
#include <pldkit/status.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pld_mech pld_mech;

/** Gaussian mechanism N(0, sigma^2) vs N(sensitivity, sigma^2); sigma and
 *  sensitivity finite and > 0, with mu = sensitivity/sigma in [1e-12, 1e6].
 *  Its curve is Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu) (Balle & Wang
 *  2018), evaluated in log space so that it stays accurate for eps in the
 *  thousands.  Symmetric; recognised by pld_mech_gaussian_mu.
 *  @return PLD_SUCCESS, PLD_EINVAL (out of domain, NULL), PLD_ENOMEM. */
PLD_API PLD_NODISCARD int pld_mech_gaussian(double sigma, double sensitivity,
                                            pld_mech **out);

/** Laplace mechanism with scale b and L1 sensitivity s (both finite and
 *  > 0, s/b in [1e-12, 1e6]): curve 1 - e^{(eps - s/b)/2} on |eps| < s/b,
 *  exact and symmetric.
 *  @return PLD_SUCCESS, PLD_EINVAL (out of domain, NULL), PLD_ENOMEM. */
PLD_API PLD_NODISCARD int pld_mech_laplace(double b, double sensitivity,
                                           pld_mech **out);

/** Largest sensitivity of the discrete mechanisms: their exact PLD lists
 *  every shift (1M atoms at the limit, about a second to build). */
#define PLD_DISCRETE_MAX_SENSITIVITY (1 << 20)
/** Largest sigma of the discrete Gaussian: its exact PLD lists the support
 *  out to 40 sigma on each side (8e5 points at the limit, about a second and
 *  0.1 GiB per build with the default grid). */
#define PLD_DISCRETE_GAUSSIAN_MAX_SIGMA 1e4

/** Discrete Laplace on the integers, P(k) proportional to exp(-|k|/scale),
 *  scale finite > 0, integer sensitivity s in [1,
 *  PLD_DISCRETE_MAX_SENSITIVITY].  Exactly a finite pair of s + 1 outcomes;
 *  its losses lie on the lattice 1/scale, so a grid step dividing 1/scale
 *  (the accountant picks one) makes the PLD exact.  Cost O(s log s) time,
 *  O(s) memory.  @return PLD_SUCCESS, PLD_EINVAL, PLD_ENOMEM. */
PLD_API PLD_NODISCARD int pld_mech_discrete_laplace(double scale,
                                                    int64_t sensitivity,
                                                    pld_mech **out);

/** Discrete Gaussian on the integers (Canonne, Kamath, Steinke 2020),
 *  P(k) proportional to exp(-k^2 / (2 sigma^2)), sigma in
 *  (0, PLD_DISCRETE_GAUSSIAN_MAX_SIGMA], integer sensitivity s in
 *  [1, PLD_DISCRETE_MAX_SENSITIVITY].  The support is cut at 40 sigma (the
 *  rest is below the smallest double) and renormalised; losses lie on the
 *  lattice s/(2 sigma^2).  Cost O(sigma + s) memory, O((sigma + s)
 *  log(sigma + s)) time.  @return PLD_SUCCESS, PLD_EINVAL, PLD_ENOMEM. */
PLD_API PLD_NODISCARD int pld_mech_discrete_gaussian(double sigma,
                                                     int64_t sensitivity,
                                                     pld_mech **out);

/** k-ary randomized response with parameter epsilon0 in [0, 700] (nats) and
 *  k in [2, 2^53]: report the true value with probability e^eps0 / (e^eps0 +
 *  k - 1), else one of the other k-1 values uniformly.  Replace-one
 *  adjacency (the true value changes).  Exact (losses -eps0, 0, eps0).
 *  @return PLD_SUCCESS, PLD_EINVAL, PLD_ENOMEM. */
PLD_API PLD_NODISCARD int pld_mech_randomized_response(double epsilon0,
                                                       int64_t k,
                                                       pld_mech **out);

/** An arbitrary pair of finite distributions p[0..n), q[0..n) (each finite,
 *  non-negative, summing to 1 within 1e-9; 1 <= n <= 2^26), exact for the
 *  normalised pair p/sum(p), q/sum(q) (sums of doubles are rarely exactly 1,
 *  and the PLD of a pair needs probability measures).  Mass of
 *  p where q is 0 is a loss of +infinity (and vice versa for direction QP).
 *  The arrays are copied.  Cost O(n log n) to build, O(log n) per curve
 *  point.  @return PLD_SUCCESS, PLD_EINVAL, PLD_ENOMEM. */
PLD_API PLD_NODISCARD int pld_mech_finite(size_t n, const double *p,
                                          const double *q, pld_mech **out);

/** Poisson subsampling of `base` with rate q in (0, 1] (add/remove adjacency,
 *  both directions; Zhu, Dong, Wang 2022, Prop. 30).  `base` is deep-copied
 *  (for a pld_mech_from_curve base its callback and ctx are shared, not
 *  copied).  The curve's rel_err is 4 times the base's plus 1e-14.  Even
 *  q = 1 yields a distinct mechanism (not merged as a Gaussian).
 *  @return PLD_SUCCESS, PLD_EINVAL (q out of range, NULL), PLD_ENOMEM. */
PLD_API PLD_NODISCARD int pld_mech_poisson(const pld_mech *base, double q,
                                           pld_mech **out);

/** Shorthand: pld_mech_poisson(pld_mech_gaussian(sigma, sensitivity), q);
 *  the domains of both apply.  The common DP-SGD step.
 *  @return PLD_SUCCESS, PLD_EINVAL, PLD_ENOMEM. */
PLD_API PLD_NODISCARD int pld_mech_poisson_gaussian(double q, double sigma,
                                                    double sensitivity,
                                                    pld_mech **out);
/** Shorthand: pld_mech_poisson(pld_mech_laplace(b, sensitivity), q); the
 *  domains of both apply.  @return PLD_SUCCESS, PLD_EINVAL, PLD_ENOMEM. */
PLD_API PLD_NODISCARD int pld_mech_poisson_laplace(double q, double b,
                                                   double sensitivity,
                                                   pld_mech **out);

/** A pair of one-dimensional Gaussian mixtures with a common sigma > 0:
 *  P = sum_i p_weights[i] N(p_means[i], sigma^2) (np >= 1 components) and
 *  Q = sum_j q_weights[j] N(q_means[j], sigma^2) (nq >= 1); weights >= 0
 *  summing to 1 within 1e-9, means finite with |mean|/sigma <= 1e6, and
 *  np + nq <= 64.  Both directions are exact (rel_err 1e-10): the
 *  privacy loss need not be monotone, so every crossing of p - e^eps q is
 *  located (exponential-sum root isolation by Rolle's theorem, see
 *  pld/mech_mixture.c) and the hockey-stick integral is summed over the
 *  intervals where it is positive.  Covers the one-sided mixture of
 *  dp_accounting and the both-sides ("double") mixture.  Arrays are copied.
 *  @return PLD_SUCCESS, PLD_EINVAL, PLD_ENOMEM. */
PLD_API PLD_NODISCARD int pld_mech_mixture_gaussian(double sigma, size_t np,
                                                    const double *p_weights,
                                                    const double *p_means,
                                                    size_t nq,
                                                    const double *q_weights,
                                                    const double *q_means,
                                                    pld_mech **out);

/** Gaussian mechanism on a batch of fixed size `batch` drawn without
 *  replacement from `n` records (1 <= batch <= n <= 2^53), noise sigma > 0
 *  (sigma and sensitivity as for pld_mech_gaussian), under
 *  REPLACE-ONE adjacency with L2 sensitivity `sensitivity` of the summed
 *  query between neighbours (for sums of gradients clipped to norm C it is
 *  2C).  With gamma = batch/n, Balle, Barthe and Gaboardi 2018 (Thm 10,
 *  tight) give delta'(eps') <= gamma delta_G(eps) with e^eps' = 1 + gamma
 *  (e^eps - 1) for eps' >= 0, in both orders of the neighbours; that is the
 *  curve of the mixture pair ((1-gamma) N(0, sigma^2) + gamma N(sens,
 *  sigma^2), N(0, sigma^2)) for eps >= 0.  For eps < 0 the curve follows from
 *  H_x(P||Q) = 1 - x + x H_{1/x}(Q||P) with the same bound, which makes a
 *  symmetric convex curve (with an atom at loss 0) that dominates the
 *  mechanism in both directions: a certified upper bound, not exact.
 *  @return PLD_SUCCESS, PLD_EINVAL, PLD_ENOMEM. */
PLD_API PLD_NODISCARD int pld_mech_wor_gaussian(uint64_t batch, uint64_t n,
                                                double sigma,
                                                double sensitivity,
                                                pld_mech **out);

/** pld_mech_wor_gaussian with the sampling ratio given directly: gamma in
 *  (0, 1] is the probability that the record is used in the run (batch/n
 *  for one fixed-size batch; p batch/n when the batch itself is run only
 *  with probability p independently of the data, as the same advanced
 *  joint convexity argument of Balle et al. 2018 gives).  Same curve and
 *  guarantees as pld_mech_wor_gaussian.
 *  @return PLD_SUCCESS, PLD_EINVAL, PLD_ENOMEM. */
PLD_API PLD_NODISCARD int pld_mech_wor_gaussian_rate(double gamma,
                                                     double sigma,
                                                     double sensitivity,
                                                     pld_mech **out);

/** Random selection of one of n mechanisms (1 <= n <= 4096), run once:
 *  member i with probability weights[i] (finite, >= 0, summing to 1 within
 *  1e-12), the choice visible.  Its curve in each direction is the weighted
 *  sum of the members' curves (merging paper, Thm 5.2), and so are its loss
 *  tails (only if every member has tails).  The members are deep-copied and
 *  the weights copied.  A curve evaluation costs one of every member.  For
 *  members that are themselves compositions, use pld_dist_mix or
 *  pld_accountant_add_selection.
 *  @return PLD_SUCCESS, PLD_EINVAL (NULL member or array, bad weights),
 *  PLD_ENOMEM. */
PLD_API PLD_NODISCARD int pld_mech_select(size_t n,
                                          const pld_mech *const *members,
                                          const double *weights,
                                          pld_mech **out);

/** A user mechanism given by its hockey-stick curve (see pld_curve): delta
 *  non-NULL, rel_err in [0, 1e-3), loss_scale finite > 0, loss_lattice
 *  finite >= 0.  The struct is copied, the ctx is not: the callbacks and ctx
 *  must outlive the mechanism and every copy (including copies held by
 *  accountants and Poisson or selection mechanisms).  pldkit trusts the
 *  callbacks, rel_err, symmetric and loss_lattice as given.
 *  @return PLD_SUCCESS, PLD_EINVAL, PLD_ENOMEM. */
PLD_API PLD_NODISCARD int pld_mech_from_curve(const pld_curve *curve,
                                              pld_mech **out);

/** As pld_mech_from_curve, but the mechanism owns curve->ctx: release(ctx)
 *  is called once, when the last of the mechanism and its copies (made by
 *  pld_mech_copy, accountants, or mechanisms built on it such as
 *  pld_mech_poisson and pld_mech_bracket) is freed.  For a context on the
 *  heap that no caller wants to keep alive by hand.  On failure release is
 *  not called and the caller still owns ctx.
 *  @return PLD_SUCCESS, PLD_EINVAL (as pld_mech_from_curve, or release
 *  NULL), PLD_ENOMEM. */
PLD_API PLD_NODISCARD int pld_mech_from_curve_owned(const pld_curve *curve,
                                                    void (*release)(void *ctx),
                                                    pld_mech **out);

/** A mechanism known only through a bracketing pair: `upper` dominates it
 *  and `lower` is dominated by it, in both directions (delta_upper(eps) >=
 *  delta_true(eps) >= delta_lower(eps) for every eps, both directions;
 *  equivalently, by Blackwell's theorem, the true pair is a post-processing
 *  of the upper one and the lower one of the true one).  The PLD built for
 *  it (pld_dist_from_mech, the accountant) takes its pessimistic members
 *  from `upper` and its optimistic ones from `lower`, so it composes with
 *  every other event with a certified bracket whose width includes the gap
 *  between the two (docs/design.md, "Bracketed mechanisms").  Its curve
 *  (pld_mech_curve, pld_mech_delta) is upper's: an upper bound.  Poisson
 *  subsampling and random selection of a bracket are the brackets of the
 *  subsampled / selected members.  Brackets nest: a bracketed argument
 *  contributes its own upper (lower) member, and the round-off its
 *  constructor booked on top of them stays booked.  Both are deep-copied.
 *  pldkit trusts the domination as given; where the two ends of an answer
 *  nevertheless come out in the wrong order (members passed the wrong way
 *  round), the answer covers both ends instead of collapsing to one.
 *  @return PLD_SUCCESS, PLD_EINVAL (NULL), PLD_ENOMEM. */
PLD_API PLD_NODISCARD int pld_mech_bracket(const pld_mech *upper,
                                           const pld_mech *lower,
                                           pld_mech **out);

/** The PLD of a mechanism on the grid of step `discretization`: what the
 *  accountant composes.  pld_dist_from_curve(pld_mech_curve(m), ...) for
 *  every mechanism but a bracket (pld_mech_bracket), whose pessimistic
 *  members come from its upper and optimistic members from its lower
 *  mechanism.  Domains, cost and errors as pld_dist_from_curve (twice for
 *  a bracket).  The caller frees *out with pld_dist_free. */
PLD_API PLD_NODISCARD int pld_dist_from_mech(const pld_mech *m,
                                             double discretization,
                                             const pld_params *params,
                                             pld_dist **out);

/** Deep copy (a user mechanism's ctx is shared).  The caller frees *out
 *  with pld_mech_free.  @return PLD_SUCCESS, PLD_EINVAL, PLD_ENOMEM. */
PLD_API PLD_NODISCARD int pld_mech_copy(const pld_mech *m, pld_mech **out);

/** Free a mechanism and its copies of members/base.  NULL is a no-op. */
PLD_API void pld_mech_free(pld_mech *m);

/** The mechanism's curve, borrowed: valid while m lives, do not modify or
 *  free it (for built-ins its ctx is m itself).  NULL for NULL. */
PLD_API const pld_curve *pld_mech_curve(const pld_mech *m);

/** One hockey-stick value H_{e^eps} in direction dir (PLD_DIR_PQ or
 *  PLD_DIR_QP) straight from the curve, eps (nats) any real or +INFINITY.
 *  Accurate to the curve's rel_err for built-ins (not a bracket); for user
 *  mechanisms whatever the callback returns.
 *  @return PLD_SUCCESS, PLD_EINVAL (NULL, bad dir, eps NaN or -inf),
 *  PLD_ENOMEM (the callback returned it, as in pld_dist_from_curve),
 *  PLD_ECALLBACK (the callback failed otherwise). */
PLD_API PLD_NODISCARD int pld_mech_delta(const pld_mech *m, int direction,
                                         double epsilon, double *delta);

/** If the mechanism was made by pld_mech_gaussian, store its mu =
 *  sensitivity / sigma (mu-GDP) and return PLD_SUCCESS; otherwise return
 *  PLD_EUNSUPPORTED (also for Gaussians in disguise, e.g. a Poisson
 *  subsampling with q = 1).  Used for the exact shortcut: a composition of
 *  Gaussians is the Gaussian with mu = sqrt(sum mu_i^2).
 *  @return PLD_SUCCESS, PLD_EINVAL (NULL), PLD_EUNSUPPORTED. */
PLD_API PLD_NODISCARD int pld_mech_gaussian_mu(const pld_mech *m, double *mu);

/** Non-zero if the two mechanisms are known to be identical (same
 *  constructor and bit-identical parameters, recursively for members and
 *  bases), so that a composition may group them; 0 if either is NULL or
 *  equality is not known.  User mechanisms compare by callback, ctx,
 *  symmetric, rel_err and loss_scale.  Cost O(size of the parameters). */
PLD_API int pld_mech_equal(const pld_mech *a, const pld_mech *b);

/** PLD mechanism of two Gaussian mixtures with per-component sds (pld/
 *  mech_mixture_general.c; used by the merging paper's mean-estimation
 *  case): P = sum_k pw[k] N(pm[k], ps[k]^2), Q = sum_j
 *  qw[j] N(qm[j], qs[j]^2); np, nq >= 1, np + nq <= 64; weights >= 0
 *  summing to 1 within 1e-9; means finite; sds > 0 finite, |mean/sd| <=
 *  1e6.  Both directions, with loss tails.  The crossings of f - e^eps g are
 *  found by a scan of step min sd / 16 plus bisection; two crossings closer
 *  than the step could be missed, so the curve carries rel_err = 1e-8 as a
 *  documented safety margin (not a rigorous bound).  Cost per curve point
 *  O(window / step * (np + nq)), window ~ 30 max sd + a term growing like
 *  sqrt(|eps|).  Arrays are copied; the caller frees *out with
 *  pld_mech_free.  A scan that does not finish makes the curve callback
 *  fail (PLD_ECALLBACK at build time).
 *  @return PLD_SUCCESS, PLD_EINVAL, PLD_ENOMEM. */
PLD_API PLD_NODISCARD int pld_mech_mixture_gaussian_general(
    size_t np, const double *pw, const double *pm, const double *ps,
    size_t nq, const double *qw, const double *qm, const double *qs,
    pld_mech **out);


#ifdef __cplusplus
}
#endif
#endif
