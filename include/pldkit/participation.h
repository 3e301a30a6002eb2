/* pldkit: random client participation in federated learning, closed forms.
 *
 * Protocol (Hasircioglu & Gunduz, "Privacy amplification via random
 * participation in federated learning", Alg. 1).  In one round every client
 * participates with probability p; a participating client samples each of its
 * records with probability q (Poisson), clips each sampled gradient to L2 norm
 * C and sends the sum; the server adds N(0, sigma^2 I) to the total.
 * Neighbouring datasets differ in one record x' held by "client 1", which
 * holds d other records (so d records in D, d + 1 in D'; this is the paper's
 * d in eqs. (6), (7), (27)).  Adjacency is add/remove.  All epsilons are in
 * nats; C and sigma share any unit (only C/sigma matters).
 *
 * The analyses (see docs/participation.md for derivations and proofs):
 *
 *   analysis  what it is                                        status
 *   --------  ------------------------------------------------  ----------
 *   WCS       Thm 5.2: participation visible.  Equals           certified
 *             p * (delta of the q-subsampled Gaussian).         upper bound
 *   MWCS      pldkit ("masked WCS"): only "participates and at  certified
 *             least one other record of the client sampled" is  upper bound
 *             revealed; proof in docs/participation.md.         (<= WCS)
 *   OLS       Thm 5.1: p = 1, delta of the q-subsampled         certified
 *             Gaussian (>= WCS, so also sound for any p).       upper bound
 *   CS        Cor. 5.3 read with sampling rate p*q (errata in   certified
 *             docs/papers/random-participation.md): the exact   LOWER limit
 *             delta of the dataset whose other
 *             records all have zero gradient.  Every valid
 *             bound is >= CS.
 *   THM41     Thm 4.1 exactly as stated (eqs. 5-7).  It is the  NOT a bound
 *             exact delta of ONE dataset (all other records of
 *             client 1 at full gradient C in x''s direction), not a
 *             worst case over datasets: its proof fixes every
 *             mixture shift at its largest norm (eqs. 24-27), but the
 *             hockey-stick divergence of mixtures is not monotone
 *             in those shifts.  It can fall below CS (e.g. d = 1000,
 *             p = 0.1, q = 0.001: below 1e-6 for every sigma).
 *
 * For eps >= 0 the remove direction (P = with x') dominates the add direction
 * for every subsampled Gaussian used here, so the closed forms below hold for
 * both directions (docs/participation.md, section 3).
 *
 * Composition over rounds is the PLD side (not in this header): WCS is the PLD
 * mixture "zero loss w.p. 1 - p, the q-subsampled Gaussian's PLD w.p. p";
 * MWCS the mixture "q-subsampled Gaussian w.p. p (1 - (1-q)^d), the
 * (p0 q)-subsampled Gaussian otherwise", p0 = p (1-q)^d / (1 - p + p (1-q)^d).
 *
 * Every function validates all inputs before computing anything and leaves
 * its outputs untouched on failure; none prints, aborts or calls GSL.  The
 * closed forms (WCS, MWCS, OLS, CS) do not allocate; everything touching
 * Theorem 4.1 or a dataset instance allocates O(window) doubles through
 * pldkit's allocator (window = binomial indices of non-negligible weight, at
 * most PLD_PARTICIPATION_MAX_WINDOW) and may return PLD_ENOMEM.
 * Thread-safe: no global state.
 */
#ifndef PLDKIT_PARTICIPATION_H
#define PLDKIT_PARTICIPATION_H

#include <stdint.h>

#include <pldkit/pld.h>
#include <pldkit/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The parameters of one round. */
typedef struct pld_participation_params {
  double p;     /**< client participation probability, in (0, 1] */
  double q;     /**< record sampling rate inside a participating client, (0, 1] */
  int64_t d;    /**< records of client 1 other than x', in [1, 10^15]; an
                     upper bound is safe for the certified analyses (extra
                     records with zero gradient change nothing) */
  double clip;  /**< clipping norm C > 0 (L2 sensitivity of one record) */
  double sigma; /**< noise standard deviation > 0 (ignored by calibration) */
} pld_participation_params;

/** The analyses.  Values are stable (ABI). */
enum pld_participation_analysis {
  PLD_PARTICIPATION_WCS = 0,   /**< Thm 5.2, certified upper bound */
  PLD_PARTICIPATION_CS = 1,    /**< Cor 5.3 (rate p q), certified lower limit */
  PLD_PARTICIPATION_THM41 = 2, /**< Thm 4.1 as stated, not a bound */
  PLD_PARTICIPATION_OLS = 3,   /**< Thm 5.1, certified upper bound */
  PLD_PARTICIPATION_MWCS = 4   /**< pldkit's masked WCS, certified upper bound */
};

/** Largest number of binomial terms the Theorem 4.1 family may keep. */
#define PLD_PARTICIPATION_MAX_WINDOW 4194304

/** eps' of eq. (5) for a target eps: the paper states
 *  eps = log(1 + gamma (e^{eps'} - 1)) "for any eps' > 0", which is a
 *  parametrisation of one curve, not a free choice: for a target eps the
 *  only eps' is
 *      eps' = log(1 + (e^eps - 1) / gamma)
 *  (docs/papers/random-participation.md; nothing is optimised).  gamma = p q for Thm 4.1, WCS and CS, and
 *  gamma = q for OLS (eq. 8, read e^{eps'} - 1).  Computed as
 *  log1p(expm1(eps)/gamma) in log space, accurate for every finite eps.
 *  Domain: eps finite >= 0, gamma in (0, 1].
 *  @return PLD_SUCCESS, PLD_EINVAL (NaN, inf, out of domain, NULL). */
PLD_API PLD_NODISCARD int pld_participation_epsilon_prime(double epsilon,
                                                          double gamma,
                                                          double *eps_prime);

/** delta(eps) of one round under `analysis` (WCS, MWCS, OLS or CS), closed
 *  forms with x = e^eps, mu = C/sigma and
 *      S_g(eps) = g * delta_G(log(1 + (x - 1)/g); mu)
 *  the delta of the g-subsampled Gaussian (delta_G: Balle & Wang 2018,
 *  eq. (2) of the paper):
 *      OLS  = S_q(eps)                          (Thm 5.1, eqs. 8-9)
 *      WCS  = p S_q(eps)                        (Thm 5.2, eqs. 10-11: its
 *             eps'' = eps' + log(c2bar) equals log(1 + (x - 1)/q) exactly)
 *      CS   = S_{pq}(eps)                       (Cor 5.3 with rate p q)
 *      MWCS = p (1-r) S_q(eps) + (1 - p + p r) S_{p0 q}(eps),
 *             r = (1-q)^d, p0 = p r / (1 - p + p r).
 *  `out` brackets the analysis's value: out->lower <= value <= out->upper,
 *  the width being the booked floating-point error (relative 1e-11).  For
 *  WCS, MWCS and OLS out->upper is a certified upper bound on the true
 *  worst-case delta of the protocol (both directions); for CS out->lower is a
 *  certified lower limit of it.  par->d is used by MWCS only.
 *  Domain: par valid (see pld_participation_params), eps finite >= 0.
 *  Cost O(1), no allocation.
 *  @return PLD_SUCCESS, PLD_EINVAL (bad input, unknown analysis or NULL),
 *  PLD_ERANGE (C/sigma overflows), PLD_EUNSUPPORTED (analysis THM41: use
 *  pld_participation_thm41_delta). */
PLD_API PLD_NODISCARD int pld_participation_delta(
    const pld_participation_params *par, int analysis, double epsilon,
    pld_bound *out);

/** The result of pld_participation_lower_limit. */
typedef struct pld_participation_limit {
  double delta;    /**< certified lower limit of the worst-case delta */
  double cs_delta; /**< CS's delta (lower end of its bracket) */
  double shift;    /**< s of the instance attaining `delta` (0: CS) */
  int direction;   /**< its direction: PLD_DIR_PQ (remove) or PLD_DIR_QP */
} pld_participation_limit;

/** The certified lower limit of the true worst-case delta(eps) of one round
 *  (both directions, over all datasets), from exact deltas of concrete
 *  datasets ("instances"):
 *    - CS: every other record of client 1 (and every other client) has zero
 *      gradient; the round is then Poisson sampling of x' at rate p q;
 *    - aligned instances: the other records of client 1 have gradient s*C*e,
 *      x' has C*e, for s in {-1, -0.95, ..., 1}, in both directions
 *      (s = 1, remove direction, is Theorem 4.1's instance).
 *  Each instance's delta is H_{e^eps}(xi || xi') of the exact pair (eqs. 14,
 *  15) integrated over a union A of intervals where the integrand was found
 *  positive: int_A (xi - e^eps xi') <= H for ANY A, and the Gaussian masses
 *  are closed forms, so the value minus its booked rounding error is a lower
 *  bound whatever the accuracy of the crossing points.  Not a worst case:
 *  the true worst case may be larger.
 *  Domain: par valid (see pld_participation_params), eps finite >= 0 (nats).
 *  Cost: 81 instances x (grid of ~range/(sigma/2) points) x window, with
 *  O(window) scratch memory freed before returning.
 *  @return PLD_SUCCESS, PLD_EINVAL (bad input, NULL), PLD_ENOMEM, PLD_ERANGE
 *  (C/sigma overflows, or window over PLD_PARTICIPATION_MAX_WINDOW). */
#ifdef PLD_EXPERIMENTAL
PLD_EXPERIMENTAL_API PLD_NODISCARD int pld_participation_lower_limit(
    const pld_participation_params *par, double epsilon,
    pld_participation_limit *out);
#endif

/** The MWCS round as a mixture over a revealed variable (for building its
 *  PLD, docs/participation.md sec. 5): with probability *weight_q the pair is
 *  the q-subsampled Gaussian, otherwise the (*rate_other)-subsampled
 *  Gaussian, both with sensitivity C and noise sigma, the mixture taken per
 *  direction (as for WCS: "zero loss w.p. 1 - p, q-subsampled w.p. p").
 *      *weight_q = p (1 - (1-q)^d),
 *      *rate_other = p0 q,  p0 = p (1-q)^d / (1 - p + p (1-q)^d)
 *  (*rate_other = 0, i.e. zero loss, when (1-q)^d underflows or q = 1).
 *  par->sigma is ignored (the other fields must be valid).  Its T-fold
 *  composition is a certified upper bound for T rounds.  Cost O(1).
 *  @return PLD_SUCCESS, PLD_EINVAL (bad par, NULL). */
PLD_API PLD_NODISCARD int pld_participation_mwcs_mixture(
    const pld_participation_params *par, double *weight_q,
    double *rate_other);

/** A certified lower bound on the exact delta(eps) of one dataset, the
 *  "aligned instance": client 1's other d records have gradient shift*C*e,
 *  x' has C*e (e a unit vector), all other clients zero gradients.  Then
 *      xi  = (1-p) N(0) + p sum_i b_i [(1-q) N(i shift C) + q N(i shift C + C)]
 *      xi' = (1-p) N(0) + p sum_i b_i N(i shift C)          (eqs. 14, 15)
 *  with b = Binomial(d, q), and the value is H_{e^eps}(xi || xi')
 *  (direction PLD_DIR_PQ, remove) or H_{e^eps}(xi' || xi) (PLD_DIR_QP, add),
 *  integrated over the intervals where the integrand was found positive
 *  (see pld_participation_lower_limit), minus booked rounding error, so
 *  *delta <= the exact value.  shift = 0 (PQ) is the CS instance, shift = 1
 *  (PQ) Theorem 4.1's.  Domain: par valid, eps finite >= 0, shift in
 *  [-1, 1], direction PLD_DIR_PQ or PLD_DIR_QP.  Cost: one instance of
 *  pld_participation_lower_limit.
 *  @return PLD_SUCCESS, PLD_EINVAL, PLD_ENOMEM, PLD_ERANGE (C/sigma
 *  overflows, or window too large). */
#ifdef PLD_EXPERIMENTAL
PLD_EXPERIMENTAL_API PLD_NODISCARD int pld_participation_instance_delta(
    const pld_participation_params *par, double epsilon, double shift,
    int direction, double *delta);
#endif

/** The result of pld_participation_thm41_delta. */
typedef struct pld_participation_thm41 {
  double epsilon_prime; /**< eps' of eq. (5), nats */
  double c1bar, c2bar;  /**< the theorem's c1bar, c2bar */
  double z_star;        /**< root of eq. (7), in the units of C and sigma;
                             +INFINITY if every positive coefficient a_j is
                             below e^-745 of the largest binomial weight
                             (then delta underflows and is reported 0) */
  double delta;         /**< eq. (6) */
  double delta_err;     /**< bound on |computed - exact| of `delta` */
  double cs_delta;      /**< CS's delta at the same (eps, sigma) */
  double lower_limit;   /**< pld_participation_lower_limit's delta */
  double refuting_shift;/**< shift s of the instance attaining lower_limit */
  int refuting_direction; /**< its direction (PLD_DIR_PQ / PLD_DIR_QP) */
  int below_cs;         /**< 1 iff delta < cs_delta */
  int certified;        /**< 0 if refuted (see below); 1 is NOT a proof */
} pld_participation_thm41;

/** Theorem 4.1 exactly as stated.  For a target eps: eps' of eq. (5) with
 *  gamma = p q; c1bar, c2bar as defined under eq. (6), which simplify to
 *      alpha' c1bar = (e^eps - 1)(1 - p)/(p q),
 *      alpha' c2bar = 1 + (e^eps - 1)/q;
 *  z* the root of eq. (7); delta of eq. (6).
 *
 *  z*: multiplied by e^{z^2/(2 sigma^2)}, the left side of eq. (7) is the
 *  exponential polynomial sum_j a_j e^{j C z/sigma^2 - (jC)^2/(2 sigma^2)}
 *  with a_j = b_{j-1} - alpha' c2bar b_j - [j = 0] alpha' c1bar, b =
 *  Binomial(d, q) pmf.  b_{j-1}/b_j increases with j, so the a_j change sign
 *  once (negative, then positive) and by Descartes' rule of signs eq. (7) has
 *  exactly one real root (docs/papers/random-participation.md).  It is found by bracketing and the
 *  Illinois method on log(positive part) - log(negative part), which is
 *  strictly increasing in z: no Newton steps, no overflow for any sigma.
 *  Binomial terms below e^-745 times the largest are dropped (they underflow).
 *
 *  delta = p q sum_j a_j (1 - Phi((z* - jC)/sigma)), which is eq. (6)
 *  rearranged; delta_err bounds its floating-point error.
 *
 *  WHAT IT IS: the exact remove-direction delta of ONE dataset (client 1's
 *  other records all at gradient C in x''s direction; eqs. 14-15 with
 *  advanced joint convexity, an equality), not a worst case (docs/papers/random-participation.md).  It is
 *  never a certified bound.  `below_cs` is set when delta < CS's delta
 *  (CS is the exact delta of another dataset, so every valid bound is >=
 *  it); `certified` is 0 when below_cs is set or when another instance
 *  computed by pld_participation_lower_limit exceeds delta + delta_err.
 *  certified = 1 only means that no such refutation was found, NOT that
 *  Theorem 4.1 is proven: its proof is invalid.  Use WCS or MWCS for a
 *  certified value.
 *  Domain: par valid, eps finite >= 0 (nats).  Cost: the root finding,
 *  O(window) per step, plus one pld_participation_lower_limit (dominant).
 *  @return PLD_SUCCESS, PLD_EINVAL, PLD_ENOMEM, PLD_ERANGE (C/sigma
 *  overflows, or window too large), PLD_EMAXITER (root not bracketed; not
 *  expected). */
#ifdef PLD_EXPERIMENTAL
PLD_EXPERIMENTAL_API PLD_NODISCARD int pld_participation_thm41_delta(
    const pld_participation_params *par, double epsilon,
    pld_participation_thm41 *out);
#endif

/** Theorem 4.1's value alone: out->lower = max(0, delta - delta_err),
 *  out->upper = min(1, delta + delta_err) with delta and delta_err exactly
 *  those of pld_participation_thm41_delta, but without its soundness checks
 *  (the CS closed form and the certified lower limit from 81 concrete
 *  datasets, which dominate its cost).  NOT a bound (see above).  For
 *  searches that evaluate the theorem many times (an epsilon by bisection)
 *  and check the answer once with pld_participation_thm41_delta.  Cost:
 *  one root of a one-dimensional mixture over the binomial window
 *  (O(sqrt(d q)) terms).
 *  @return as pld_participation_thm41_delta. */
#ifdef PLD_EXPERIMENTAL
PLD_EXPERIMENTAL_API PLD_NODISCARD int pld_participation_thm41_value(
    const pld_participation_params *par, double epsilon, pld_bound *out);
#endif

/** Cross-check of Theorem 4.1 without z*: the hockey-stick integral the
 *  proof reduces to (eqs. 27-28),
 *      delta = p q int ( sum_i b_i N(z; (i+1)C, sigma^2)
 *                        - alpha' c2bar sum_i b_i N(z; iC, sigma^2)
 *                        - alpha' c1bar N(z; 0, sigma^2) )_+ dz,
 *  by GSL's adaptive CQUAD on each cell of width sigma/2 around every
 *  component (cells split at the sign changes found, pieces where the
 *  integrand is not positive skipped), binomial terms below e^-120 of the
 *  largest dropped.  *abserr estimates the error (8 times CQUAD's estimate,
 *  the rounding, plus the dropped mass).  Not a certified bound (it is the
 *  same theorem).  Domain: par valid, eps finite >= 0.  Cost: O(window)
 *  per integrand point, about 33 points per cell, cells spanning the
 *  component means (0 .. (window top + 1) C) plus 20 sigma on each side.
 *  @return PLD_SUCCESS, PLD_EINVAL, PLD_ENOMEM, PLD_ERANGE (C/sigma or the
 *  constants overflow, or window too large). */
#ifdef PLD_EXPERIMENTAL
PLD_EXPERIMENTAL_API PLD_NODISCARD int pld_participation_thm41_quadrature(
    const pld_participation_params *par, double epsilon, double *delta,
    double *abserr);
#endif

/** epsilon(delta) of one round under `analysis` (any of the five): the
 *  smallest eps >= 0 with the analysis's delta(eps) <= delta, by doubling and
 *  bisection to 1e-12 relative (every analysis's delta(eps) is a
 *  hockey-stick curve, non-increasing in eps).  out->upper: the analysis's
 *  delta (upper end of its booked bracket) is <= delta there; out->lower: its
 *  delta (lower end) exceeds delta there (or 0).  For WCS, MWCS and OLS
 *  out->upper is a certified epsilon of the protocol; for CS out->lower is a
 *  certified lower limit of the true epsilon; for THM41 it is Theorem 4.1's
 *  epsilon, not a bound (call pld_participation_thm41_delta at out->upper
 *  for its below_cs / certified flags).  out->upper = +INFINITY if the
 *  target is not met below eps = 1e9.  The bisection may stop early (a
 *  wider bracket) where the booked error makes the comparison undecidable.
 *  Domain: par valid, delta in (0, 1).  Cost: up to ~30 doublings and 200
 *  bisection steps, one analysis evaluation each (O(1), or O(window) for
 *  THM41).
 *  @return PLD_SUCCESS, PLD_EINVAL (bad input, unknown analysis, NULL),
 *  PLD_ERANGE, PLD_ENOMEM, PLD_EMAXITER (THM41 only). */
PLD_API PLD_NODISCARD int pld_participation_epsilon(
    const pld_participation_params *par, int analysis, double delta,
    pld_bound *out);

/** The result of pld_participation_calibrate. */
typedef struct pld_participation_calibration {
  double sigma;       /**< smallest sigma found that meets the target */
  double sigma_below; /**< the target is missed here (0 if at_floor) */
  double delta;       /**< the analysis's delta at sigma (<= target) */
  int at_floor;       /**< met already at the search floor 1e-4 C */
  int certified;      /**< 1: sigma is a proven noise level (WCS, MWCS,
                           OLS); never for CS or THM41 */
  int below_cs;       /**< THM41 only: its delta at sigma is below CS's */
  int refuted;        /**< THM41 only: refuted at sigma (below CS, or a
                           concrete dataset has a larger delta) */
} pld_participation_calibration;

/** Per-round noise calibration: the smallest sigma whose `analysis` delta at
 *  `epsilon` is <= `delta` (par->sigma is ignored), by bracketing and
 *  bisection on log sigma over [1e-4 C, 1e12 C] to a relative bracket width
 *  of 1e-10.  The returned `sigma` is the upper end of the final bracket,
 *  where the analysis's delta (upper end of its booked bracket; for THM41
 *  delta + delta_err) was evaluated to be <= the target: the target is met
 *  at `sigma`, and missed at `sigma_below`.  The analyses' deltas decrease
 *  in sigma (proven for WCS, MWCS, OLS, CS; for THM41 observed only).
 *    - WCS, MWCS, OLS: `sigma` is a certified noise level (certified = 1).
 *    - CS: certified = 0; `sigma_below` is a certified LOWER limit of the
 *      noise any sound analysis needs (CS's delta, a lower limit of the
 *      truth, already exceeds the target there).
 *    - THM41: certified = 0 always (one dataset's exact delta, not a
 *      worst case); refuted = !certified and below_cs of
 *      pld_participation_thm41_delta at `sigma`.
 *  If the target is met already at the floor 1e-4 C, at_floor = 1, sigma is
 *  the floor and sigma_below = 0 (e.g. THM41 for d = 1000, p = 0.1,
 *  q = 0.001, eps = 0.015, delta = 1e-6, or any analysis whose delta at
 *  sigma -> 0 is below the target).
 *  Domain: par valid except sigma, eps finite >= 0 (nats), delta in (0, 1).
 *  Cost: about 40 bisection steps (at most 300), each one evaluation of the
 *  analysis
 *  (O(1) for the closed forms, O(window) for THM41, which also runs one
 *  pld_participation_thm41_delta at the end).
 *  @return PLD_SUCCESS, PLD_EINVAL (bad input, unknown analysis, NULL),
 *  PLD_ERANGE (not met at 1e12 C, or window too large), PLD_ENOMEM,
 *  PLD_EMAXITER (the bracket did not close). */
PLD_API PLD_NODISCARD int pld_participation_calibrate(
    const pld_participation_params *par, int analysis, double epsilon,
    double delta, pld_participation_calibration *out);

#ifdef __cplusplus
}
#endif
#endif
