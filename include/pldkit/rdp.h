/* pldkit: the Renyi-DP (RDP) backend.
 *
 * Model.  A mechanism M is (alpha, eps(alpha))-RDP if for every ordered pair
 * of neighbouring datasets the Renyi divergence of order alpha > 1,
 *
 *     D_alpha(P || Q) = log( int p^alpha q^(1 - alpha) ) / (alpha - 1),
 *
 * is at most eps(alpha) (nats).  Both orderings of every neighbouring pair
 * are covered, so an RDP value is the worse of the two directions.  RDP
 * composes by addition at every order (Mironov 2017, Prop. 1).
 *
 * A pld_rdp_curve is a grid of orders alpha_1 < ... < alpha_n (each finite
 * and > 1) with one value eps(alpha_i) in [0, +inf] per order.  Every value
 * stored by pldkit is an UPPER bound on the true Renyi divergence: each
 * floating-point step is rounded toward +inf (directed rounding by error-free
 * transformations or by an explicit error bound added on top), so composing
 * and converting can only be pessimistic.  +INFINITY is a valid value ("no
 * finite guarantee at this order").
 *
 * Conversions to (eps, delta)-DP minimise over the grid; the result reports
 * the optimal order and flags an optimum at either end of the grid.
 *
 * Conventions (as in the rest of pldkit): every fallible call returns an int
 * from enum pld_status; on failure every output is left untouched (curves
 * too: a mechanism that fails adds nothing).  Opaque objects have _alloc and
 * _free; _free(NULL) is a no-op.  Nothing here prints, aborts, or touches a
 * process-global handler; all memory goes through pldkit's allocator.
 * Thread safety: distinct curves may be used from different threads; a curve
 * being modified must not be read or modified concurrently.
 *
 * This header needs only status.h.  The bridge from PLDs is in
 * pldkit/bridge.h.
 */
#ifndef PLDKIT_RDP_H
#define PLDKIT_RDP_H

#include <stddef.h>
#include <stdint.h>

#include <pldkit/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Curves.                                                                   */

typedef struct pld_rdp_curve pld_rdp_curve;

/** Number of orders of the default grid (157). */
#define PLD_RDP_DEFAULT_ORDERS 157

/** Allocate a curve on the orders[0..n) (copied), all values 0.
 *  Domain: n >= 1; every order finite and > 1; strictly increasing.
 *  Cost O(n).  The caller frees *out with pld_rdp_curve_free.
 *  @return PLD_SUCCESS, PLD_EINVAL (NULL, n = 0, NaN/inf, order <= 1, not
 *  strictly increasing), PLD_ERANGE (n * sizeof(double) overflows),
 *  PLD_ENOMEM. */
PLD_API PLD_NODISCARD int pld_rdp_curve_alloc(size_t n, const double *orders,
                                              pld_rdp_curve **out);

/** Allocate a curve on the default grid, all values 0: alpha = 1.1, 1.2, ...,
 *  10.9 (step 0.1, each the double nearest to k/10), 11, 12, ..., 64, 128,
 *  256, 512, 1024 (PLD_RDP_DEFAULT_ORDERS orders).  The caller frees *out
 *  with pld_rdp_curve_free.
 *  @return PLD_SUCCESS, PLD_EINVAL (out NULL), PLD_ENOMEM. */
PLD_API PLD_NODISCARD int pld_rdp_curve_alloc_default(pld_rdp_curve **out);

/** Free a curve.  NULL is a no-op. */
PLD_API void pld_rdp_curve_free(pld_rdp_curve *c);

/** Deep copy (same orders and values); the caller frees *out with
 *  pld_rdp_curve_free.  Cost O(n).
 *  @return PLD_SUCCESS, PLD_EINVAL (NULL), PLD_ENOMEM. */
PLD_API PLD_NODISCARD int pld_rdp_curve_copy(const pld_rdp_curve *src,
                                             pld_rdp_curve **out);

/** Number of orders (0 for NULL). */
PLD_API size_t pld_rdp_curve_size(const pld_rdp_curve *c);

/** The orders, strictly increasing (NULL for NULL).  Valid until c is freed;
 *  never changes. */
PLD_API const double *pld_rdp_curve_orders(const pld_rdp_curve *c);

/** The values eps(alpha_i) in nats, each in [0, +inf], upper bounds (NULL for
 *  NULL).  Valid until c is freed; changes when c is modified. */
PLD_API const double *pld_rdp_curve_values(const pld_rdp_curve *c);

/** Non-zero if both curves are non-NULL and have bit-identical order grids
 *  (the condition for composing them or mixing them in a random selection). */
PLD_API int pld_rdp_curve_same_orders(const pld_rdp_curve *a,
                                      const pld_rdp_curve *b);

/** Overwrite the values with values[0..size) (nats, each >= 0 or +INFINITY;
 *  copied, size = pld_rdp_curve_size(c)).  Use it to enter an RDP guarantee
 *  known from elsewhere; pldkit takes the values as exact upper bounds.
 *  All values are checked before any is written.  Cost O(n).
 *  @return PLD_SUCCESS, PLD_EINVAL (NULL, NaN, negative, -inf). */
PLD_API PLD_NODISCARD int pld_rdp_curve_set(pld_rdp_curve *c,
                                            const double *values);

/** c += count * values (values[0..size), nats, each >= 0 or +INFINITY;
 *  count >= 1, any uint64_t), rounded upward.  This is how any mechanism,
 *  including those of other modules, adds its RDP to an accumulating curve.
 *  Cost O(n).
 *  @return PLD_SUCCESS, PLD_EINVAL (NULL, count 0, a bad value; c is then
 *  unchanged). */
PLD_API PLD_NODISCARD int pld_rdp_curve_add_values(pld_rdp_curve *c,
                                                   const double *values,
                                                   uint64_t count);

/** acc += count * other (composition, Mironov 2017 Prop. 1), count >= 1,
 *  rounded upward.  acc == other is allowed (doubling).  Cost O(n).
 *  @return PLD_SUCCESS, PLD_EINVAL (NULL, count 0), PLD_EINCOMPAT (order
 *  grids not bit-identical). */
PLD_API PLD_NODISCARD int pld_rdp_curve_compose(pld_rdp_curve *acc,
                                                const pld_rdp_curve *other,
                                                uint64_t count);

/* ------------------------------------------------------------------------ */
/* Mechanisms.  Each ADDS count (>= 1) self-compositions of its RDP to the   */
/* curve, at every order of the curve's grid, in both directions of the      */
/* stated adjacency (the worse one).  Values are upper bounds (exact         */
/* formulas rounded upward, or proven bounds where stated).  On any error    */
/* the curve is unchanged.  Each allocates O(n) scratch (PLD_ENOMEM).        */

/** Gaussian mechanism N(f(D), sigma^2 I), L2 sensitivity `sensitivity`:
 *  eps(alpha) = alpha sensitivity^2 / (2 sigma^2) exactly (Mironov 2017,
 *  Prop. 7), rounded upward.
 *  sigma, sensitivity > 0 finite; count >= 1.  Cost O(n).
 *  @return PLD_SUCCESS, PLD_EINVAL, PLD_ENOMEM. */
PLD_API PLD_NODISCARD int pld_rdp_add_gaussian(pld_rdp_curve *c, double sigma,
                                               double sensitivity,
                                               uint64_t count);

/** Laplace mechanism, scale b, L1 sensitivity s; with t = s / b (exact,
 *  Mironov 2017, Prop. 6):
 *    eps(alpha) = log( alpha/(2 alpha - 1) e^{(alpha-1) t}
 *                      + (alpha-1)/(2 alpha - 1) e^{-alpha t} ) / (alpha - 1),
 *  evaluated without cancellation for small t and in log space for large
 *  alpha t; capped by t (the largest loss).  Symmetric.  b, sensitivity > 0
 *  finite with s / b finite; count >= 1.  Cost O(n).
 *  @return PLD_SUCCESS, PLD_EINVAL, PLD_ENOMEM. */
PLD_API PLD_NODISCARD int pld_rdp_add_laplace(pld_rdp_curve *c, double b,
                                              double sensitivity,
                                              uint64_t count);

/** k-ary randomized response with parameter eps0 >= 0 (finite), k >= 2,
 *  replace-one adjacency (the true value changes), exact:
 *    eps(alpha) = log(1 + A / (e^eps0 + k - 1)) / (alpha - 1),
 *    A = expm1((alpha-1) eps0) e^eps0 (1 - e^{-alpha eps0}),
 *  which is the closed form of sum_y p(y)^alpha p'(y)^(1-alpha) - 1 written
 *  without cancellation (derivation in rdp/rdp_mech.c).  Symmetric.
 *  Capped by eps0.  k up to 2^53; count >= 1.  Cost O(n).
 *  @return PLD_SUCCESS, PLD_EINVAL, PLD_ENOMEM. */
PLD_API PLD_NODISCARD int pld_rdp_add_randomized_response(pld_rdp_curve *c,
                                                          double eps0,
                                                          int64_t k,
                                                          uint64_t count);

/** Poisson-subsampled Gaussian (the sampled Gaussian mechanism of DP-SGD):
 *  rate q in (0, 1], noise sigma, L2 sensitivity; add/remove adjacency,
 *  P = (1-q) N(0, s^2) + q N(1, s^2), Q = N(0, s^2) with s = sigma /
 *  sensitivity.  The value is D_alpha(P || Q), which dominates D_alpha(Q || P)
 *  for this mechanism (Mironov, Talwar, Zhang 2019, Sec. 3; checked
 *  numerically in tests/test_rdp.c).
 *   - integer alpha <= 65536: the exact binomial sum (Mironov et al. 2019;
 *     the model-splitting paper's Thm 3.11, Zhu & Wang 2019), evaluated as
 *     log1p(B)/(alpha-1) with B = sum_{j>=2} C(alpha,j) (1-q)^{alpha-j} q^j
 *     expm1(j(j-1)/(2 s^2)) in log space (all terms positive: no
 *     cancellation even when eps is tiny);
 *   - fractional alpha <= 65536: the two-sided series of MTZ 2019 Sec. 3.3,
 *     split at z0 = 1/2 + s^2 log(1/q - 1).  The truncation error is bounded
 *     rigorously (Lagrange remainder of (1+t)^alpha: once the index exceeds
 *     alpha the omitted tail has the sign of, and is at most, the first
 *     omitted term), and the series is summed until that bound is below
 *     1e-13 (absolute, on the moment, which is >= 1).  If that takes more
 *     than 10^6 terms the call fails with PLD_EMAXITER (never a silent
 *     unconverged value);
 *   - alpha > 65536: the joint-convexity bound log(1 - q + q e^{alpha
 *     (alpha-1)/(2 s^2)})/(alpha - 1) (valid in both directions), which is
 *     within log(1/q)/(alpha-1) of the exact value there.
 *  q = 1 is the plain Gaussian.  sigma, sensitivity > 0 finite; count >= 1.
 *  PLD_EINVAL also when s = sigma/sensitivity
 *  is so small that 1/(2 s^2) overflows (s below ~1e-154); for s > 1e100 the
 *  unsampled Gaussian's alpha/(2 s^2) is used (a valid bound, ~0).
 *  Cost: O(sum of alpha) for integer orders,
 *  typically tens to thousands of terms per fractional order (~1 ms for the
 *  default grid).
 *  @return PLD_SUCCESS, PLD_EINVAL, PLD_ENOMEM, PLD_EMAXITER. */
PLD_API PLD_NODISCARD int pld_rdp_add_poisson_gaussian(pld_rdp_curve *c,
                                                       double q, double sigma,
                                                       double sensitivity,
                                                       uint64_t count);

/** Gaussian mechanism on a uniformly random subset of exactly `batch` of the
 *  `n` records (sampling without replacement, gamma = batch / n), REPLACE-ONE
 *  adjacency: `sensitivity` is the L2 sensitivity of the base query to
 *  replacing one record of the subset (e.g. 2C for a sum of gradients
 *  clipped to norm C).  Bound: Wang, Balle & Kasiviswanathan 2019 ("Subsampled
 *  Renyi DP and analytical moments accountant"), Theorem 9, at integer
 *  alpha >= 2 with eps_M(j) = j r, r = sensitivity^2/(2 sigma^2), and
 *  eps_M(inf) = inf (so every min{2, .} is 2):
 *    eps(alpha) <= log(1 + gamma^2 C(alpha,2) min{4 expm1(2r), 2 e^{2r}}
 *                  + sum_{j=3}^alpha 2 gamma^j C(alpha,j) e^{j(j-1) r})
 *                  / (alpha - 1).
 *  Fractional alpha in (k, k+1): linear interpolation of (alpha-1) eps(alpha)
 *  between the integer bounds at k and k+1 (valid because (alpha-1)
 *  D_alpha is convex in alpha, van Erven & Harremoes 2014; for alpha < 2 the
 *  left end is (alpha-1) D_alpha = 0 at alpha = 1), as WBK 2019 do.  Every
 *  value is also capped by the unsampled Gaussian's alpha r (sampling
 *  without replacement is a mixture over subsets, and D_alpha is jointly
 *  quasi-convex).  Orders above 65536 use that cap only.
 *  Domain: 1 <= batch <= n; sigma, sensitivity > 0 finite; count >= 1.  Cost
 *  O(sum of alpha).
 *  @return PLD_SUCCESS, PLD_EINVAL, PLD_ENOMEM. */
PLD_API PLD_NODISCARD int pld_rdp_add_wor_gaussian(pld_rdp_curve *c,
                                                   uint64_t batch, uint64_t n,
                                                   double sigma,
                                                   double sensitivity,
                                                   uint64_t count);

/* ------------------------------------------------------------------------ */
/* Conversion to (eps, delta)-DP.                                            */

/** Which RDP-to-DP conversion to use. */
enum pld_rdp_conversion {
  /** The better of the two below at every order (the default).  Since the
   *  improved bound is below the classic one at every order by
   *  log(alpha)/(alpha-1) - log1p(-1/alpha) > 0, BEST coincides with
   *  IMPROVED; both are computed and the result says which one won. */
  PLD_RDP_BEST = 0,
  /** eps = r(alpha) + log(1/delta)/(alpha - 1) (Mironov 2017, Prop. 3; the
   *  model-splitting paper's Prop. 2.3);  delta = exp((alpha-1)(r - eps)). */
  PLD_RDP_CLASSIC = 1,
  /** eps = r + log1p(-1/alpha) - (log delta + log alpha)/(alpha - 1)
   *  (Canonne, Kamath, Steinke 2020, Prop. 12; Asoodeh et al. 2021);
   *  its mirror delta = exp((alpha-1)(r - eps + log1p(-1/alpha))) / alpha. */
  PLD_RDP_IMPROVED = 2
};

/** The answer to a conversion. */
typedef struct pld_rdp_result {
  double value;  /**< eps (nats) or delta: a certified upper bound.  eps may
                      be +INFINITY (no finite order), delta is in [0, 1]. */
  double order;  /**< the order alpha attaining it; NAN if none does (every
                      value infinite, or delta = 1 is the trivial answer) */
  size_t index;  /**< index of that order in the grid (== size if none) */
  int method;    /**< PLD_RDP_CLASSIC or PLD_RDP_IMPROVED: which won */
  int at_edge;   /**< non-zero if the optimal order is the first or the last
                      of the grid: a finer or wider grid might do better
                      (the value is still valid) */
} pld_rdp_result;

/** eps(delta) in nats: min over the grid of the chosen conversion, clamped
 *  at 0, rounded upward, so out->value is a certified upper bound
 *  (+INFINITY if every value is infinite).  delta in (0, 1); method a
 *  pld_rdp_conversion.  Orders with an infinite value are skipped.
 *  Cost O(n).
 *  @return PLD_SUCCESS, PLD_EINVAL (NULL, delta NaN or outside (0, 1),
 *  unknown method). */
PLD_API PLD_NODISCARD int pld_rdp_epsilon(const pld_rdp_curve *c, double delta,
                                          int method, pld_rdp_result *out);

/** delta(eps), the mirror query: min over the grid of the delta each
 *  conversion gives at eps (nats), capped at 1, rounded upward (a certified
 *  upper bound).  eps >= 0 (+INFINITY allowed: delta = 0 if some value is
 *  finite).  For every method, pld_rdp_delta(c, pld_rdp_epsilon(c,
 *  d).value) = d up to rounding (both queries minimise over the same
 *  per-order bijection).  Cost O(n).
 *  @return PLD_SUCCESS, PLD_EINVAL (NULL, eps NaN or negative, unknown
 *  method). */
PLD_API PLD_NODISCARD int pld_rdp_delta(const pld_rdp_curve *c, double epsilon,
                                        int method, pld_rdp_result *out);

/* ------------------------------------------------------------------------ */
/* Random selection (the model-merging paper, Thm 5.1 and Alg. 1).           */

/** Release member i's output with probability weights[i] (selection
 *  independent of the data).  Thm 5.1 (proof: Hoelder, App. C):
 *    eps_RS(alpha) = log( sum_i w_i e^{(alpha-1) eps_i(alpha)} ) / (alpha-1),
 *  evaluated in log-sum-exp, with the weights normalised by their sum,
 *  rounded upward, and capped by max_{w_i > 0} eps_i(alpha) (which it never
 *  exceeds mathematically).  Members with weight 0 are ignored (also if
 *  their value is +inf).  The bound holds in both directions because each
 *  member's curve does.  Domain: n >= 1, every weight finite and >= 0, sum
 *  within 1e-12 of 1; members and out share one order grid; out may be one
 *  of the members.  out's values are overwritten (its orders kept); the
 *  members are only read.  Cost O(n * orders).
 *  @return PLD_SUCCESS, PLD_EINVAL, PLD_EINCOMPAT, PLD_ENOMEM. */
PLD_API PLD_NODISCARD int pld_rdp_random_selection(
    size_t n, const pld_rdp_curve *const *members, const double *weights,
    pld_rdp_curve *out);

/** Alg. 1 for two members (a, b on one order grid): the largest weight w0
 *  in [0, 1] on member a (weights (w0, 1 - w0) on (a, b)) whose certified
 *  eps(delta) of the random selection (pld_rdp_epsilon with `method`) is
 *  <= target_epsilon (the "max weight" convention of pldkit.h).  Put the
 *  LESS private member first: the certified eps is concave in w0 (a minimum
 *  over orders of concave log-sum-exps), so its sub-level set is an
 *  interval [0, w*] whenever eps(1) > target; w* is found by bisection to
 *  1e-12 absolute, always returning a weight whose certified eps meets the
 *  target (so smaller weights do too).  *w0 = 1 if a alone meets the
 *  target, -1 if not even b alone does.  target_epsilon >= 0 finite, delta
 *  in (0, 1).  Cost ~45 conversions of O(orders) each.
 *  @return PLD_SUCCESS, PLD_EINVAL, PLD_EINCOMPAT, PLD_ENOMEM (*w0
 *  untouched on failure). */
PLD_API PLD_NODISCARD int pld_rdp_rs_max_weight(const pld_rdp_curve *a,
                                                const pld_rdp_curve *b,
                                                double target_epsilon,
                                                double delta, int method,
                                                double *w0);

/** Number of points of the simplex grid {k / resolution : k in N^n, sum k =
 *  resolution}, i.e. C(resolution + n - 1, n - 1), for 1 <= n <= 4 and
 *  resolution >= 1.  @return PLD_SUCCESS, PLD_EINVAL, PLD_ERANGE (more than
 *  2^24 points). */
PLD_API PLD_NODISCARD int pld_rdp_rs_grid_size(size_t n, unsigned resolution,
                                               size_t *size);

/** Alg. 1 for up to four members: every weight vector of the simplex grid of
 *  the given resolution whose certified eps(delta) (pld_rdp_epsilon with
 *  `method`) is <= target_epsilon.  The feasible vectors are written to
 *  weights_out row by row (n doubles each, weights k_i / resolution) and
 *  their number to *count.  Rows come in lexicographic order of (k_1, ...,
 *  k_n) descending: k_1 runs from resolution down to 0, then k_2, ..., the
 *  last coordinate takes the remainder.  weights_out must hold `capacity`
 *  rows, capacity >= the grid size given by pld_rdp_rs_grid_size (checked
 *  first: on PLD_ERANGE nothing is computed or written).  n = 1 is allowed
 *  (one row, weight 1, written only if feasible).
 *  Cost O(grid size * n * orders).
 *  @return PLD_SUCCESS, PLD_EINVAL, PLD_EINCOMPAT, PLD_ERANGE, PLD_ENOMEM. */
PLD_API PLD_NODISCARD int pld_rdp_rs_feasible_grid(
    size_t n, const pld_rdp_curve *const *members, unsigned resolution,
    double target_epsilon, double delta, int method, double *weights_out,
    size_t capacity, size_t *count);

/* ------------------------------------------------------------------------ */
/* RDP of Gaussian mixtures (rdp/rdp_mixture.c; the
 * merging paper's Thm 6.2 and the mean-estimation case study use them).                             */

/** c += count * max(D_alpha(P||Q), D_alpha(Q||P)) at every order of c, for
 *  P = sum_k weights[k] N(means[k], s^2) and Q = N(0, s^2).
 *
 *  This is the exact per-step LC RDP of Thm 6.2 (with Delta_J = means,
 *  rho_J = weights, s = s_lambda): the sum over gamma in N_alpha of eq. (9)
 *  equals E_{Z~N(0,1)}[(sum_J rho_J e^{Z D_J - D_J^2/2})^alpha], D_J =
 *  Delta_J / s (expand the power multinomially and use e^{m^2/2} =
 *  E[e^{mZ}] for each B(gamma)), i.e. e^{(alpha-1) D_alpha(P||Q)}.  So
 *  both directions are one-dimensional integrals, valid for every real
 *  alpha > 1 and any number of components (no enumeration over gamma).
 *  The reverse direction is needed (docs/papers/merging.md: Thm 6.2 bounds only P||Q).
 *
 *  Method: trapezoid rule in log space (see rdp/rdp_mixture.c): tails
 *  beyond the integration window are bounded rigorously (Jensen + Gaussian
 *  tail integrals) and added; the floating-point error of every term is
 *  bounded and added; the discretization error of the trapezoid rule is NOT
 *  rigorously bounded -- it is estimated by comparing steps h and 2h, and 4x
 *  that estimate plus 1e-13 relative is added as a safety margin.  Values are
 *  then rounded upward.
 *
 *  Domain: s > 0 finite; n >= 1 (n <= 4096); weights >= 0 summing to 1
 *  within 1e-9; means finite; count >= 1.  Cost: per order and direction
 *  a coarse scan of the window (~ alpha max|mean|/s cells) plus a fine
 *  trapezoid only where the integrand matters, each point O(n) exps; about
 *  25 ms for n = 8 on the default grid (157 orders up to 1024) at
 *  max|mean|/s ~ 2.
 *  @return PLD_SUCCESS, PLD_EINVAL, PLD_ENOMEM, PLD_EMAXITER (window could
 *  not be made wide enough). */
PLD_API PLD_NODISCARD int pld_rdp_add_mixture_gaussian(pld_rdp_curve *c,
                                                       double s, size_t n,
                                                       const double *weights,
                                                       const double *means,
                                                       uint64_t count);

/** c += count * max(D_alpha(P||Q), D_alpha(Q||P)) for two general Gaussian
 *  mixtures with per-component standard deviations: P = sum_k pw[k]
 *  N(pm[k], ps[k]^2) (np >= 1), Q = sum_j qw[j] N(qm[j], qs[j]^2) (nq >= 1).
 *  np, nq <= 4096; weights >= 0 summing to 1 within 1e-9, means finite, sds
 *  > 0 finite; count >= 1; components of weight 0 are ignored.  Same
 *  quadrature and margins as pld_rdp_add_mixture_gaussian (with unequal sds
 *  the step h is chosen from a curvature heuristic; the h-vs-2h margin
 *  covers it, not rigorously).
 *  When the divergence is infinite (alpha / ps_max^2 <= (alpha-1) /
 *  qs_max^2 in either direction) the value is +INFINITY.
 *  Used for the exact RDP of random selection in mean estimation (Sec. 4.1).
 *  @return PLD_SUCCESS, PLD_EINVAL, PLD_ENOMEM, PLD_EMAXITER. */
PLD_API PLD_NODISCARD int pld_rdp_add_mixture_pair(
    pld_rdp_curve *c, size_t np, const double *pw, const double *pm,
    const double *ps, size_t nq, const double *qw, const double *qm,
    const double *qs, uint64_t count);

#ifdef __cplusplus
}
#endif
#endif
