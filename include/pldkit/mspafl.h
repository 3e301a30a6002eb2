/* pldkit: MS-PAFL ("Model-splitting privacy-amplified federated learning"):
 * its closed forms, kept as baselines, and one analysis beside the PLD of
 * the same protocol.
 *
 * Pure functions of their arguments (orders alpha > 1, values in nats);
 * nothing allocates visibly, prints or aborts.  Every function returns an
 * int from enum pld_status and writes its outputs only on success; bad
 * input gives PLD_EINVAL.  A value documented as a "bound" is never below
 * what it bounds; the paper's formulas as printed (some wrong) are behind
 * PLD_EXPERIMENTAL (status.h) and say so.  Paper vs pldkit, with numbers:
 * docs/papers-rdp.md.  All functions are reentrant.
 */
#ifndef PLDKIT_MSPAFL_H
#define PLDKIT_MSPAFL_H

#include <stddef.h>
#include <stdint.h>

#include <pldkit/mech.h>
#include <pldkit/accountant.h>
#include <pldkit/status.h>

#ifdef __cplusplus
extern "C" {
#endif

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
