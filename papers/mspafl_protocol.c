/* pldkit: MS-PAFL as one analysis.  A closed form of the
 * paper (papers/mspafl.c) with its `certified` flag, and beside it the PLD
 * epsilon of the same protocol, so that every front end (the CLI's
 * `pldkit mspafl`, Python's pldkit.papers.mspafl) prints the same numbers
 * from one library call.
 *
 * The protocol as modelled (docs/papers/ms-pafl.md, "The exact PLD"): in a
 * round each client checks in with probability p, hidden from the server;
 * a checked-in client samples its records (Poisson at rate q, or a batch
 * without replacement, eq. (11)), clips and uploads its public submodel
 * plus N(0, sigma^2 I).  A record moves the output (by at most s) only if
 * its client checked in AND the record was sampled: probability p q,
 * independent across rounds.  With the client's absence and a not-sampled
 * record giving the same distribution, the round is
 *   M(D) = (1 - r) X + r W(D),  r = p q,
 * and Balle, Barthe, Gaboardi 2018 (advanced joint convexity, Thm 2 and
 * Thms 8/10) bound it by the r-subsampled Gaussian pair: Poisson pair for
 * add/remove, the without-replacement pair (pld_mech_wor_gaussian_rate)
 * for replace-one.  With replacement a record drawn k ~ Bin(draws, 1/n)
 * times moves the output by k s; pldkit has no proven dominating pair for
 * that mixture, so no exact PLD is reported (and Thm 1's WR case is not
 * certified either).
 */
#include <math.h>
#include <string.h>

#include <pldkit/accountant.h>
#include <pldkit/mech.h>
#include <pldkit/mspafl.h>

#include "detail.h"

static const char *const names[] = {NULL,   "lemma1", "thm1", "thm2",
                                    "cor1", "thm3",   "thm4"};

const char *pld_mspafl_theorem_name(int theorem)
{
  if (theorem < PLD_MSPAFL_LEMMA1 || theorem > PLD_MSPAFL_THM4)
    return NULL;
  return names[theorem];
}

int pld_mspafl_theorem_parse(const char *name)
{
  if (!name)
    return 0;
  for (int t = PLD_MSPAFL_LEMMA1; t <= PLD_MSPAFL_THM4; t++)
    if (strcmp(name, names[t]) == 0)
      return t;
  return 0;
}

int pld_mspafl_setting_default(pld_mspafl_setting *s)
{
  pld_detail_clear();
  if (!s)
    return pld_fail(PLD_EINVAL, "setting is NULL");
  memset(s, 0, sizeof *s);
  s->eps_l = NAN;
  s->delta_l = NAN;
  s->sensitivity = 1.0;
  s->p = 1.0;
  s->sampling = PLD_MSPAFL_POISSON;
  s->q = NAN;
  s->clients = 1;
  s->beta = 0.25;
  s->rounds = 1;
  s->delta_tilde = 1e-5;
  s->clip = 1.0;
  return PLD_SUCCESS;
}

/* The data sampling ratio q of the setting (eq. (11) for WOR / WR). */
static int data_q(const pld_mspafl_setting *s, double *q)
{
  if (s->sampling == PLD_MSPAFL_POISSON) {
    if (!isfinite(s->q) || !(s->q > 0.0) || !(s->q <= 1.0))
      return pld_fail(PLD_EINVAL, "q = %g: need 0 < q <= 1", s->q);
    *q = s->q;
    return PLD_SUCCESS;
  }
  if (s->sampling != PLD_MSPAFL_WOR && s->sampling != PLD_MSPAFL_WR)
    return pld_fail(PLD_EINVAL, "sampling = %d: need 0 (Poisson), 1 (WOR) "
                    "or 2 (WR)", s->sampling);
  int st = pld_mspafl_sampling_ratio(s->batch, s->n,
                                     s->sampling == PLD_MSPAFL_WR, q);
  if (st)
    return pld_fail_if_silent(st, "batch = %llu, n = %llu: need 1 <= batch "
                              "and 1 <= n (batch <= n without replacement)",
                              (unsigned long long)s->batch,
                              (unsigned long long)s->n);
  return PLD_SUCCESS;
}

/* epsilon at delta of `rounds` rounds of the Gaussian (sigma, s) used with
 * probability `rate` per round (see the top of the file). */
static int exact_eps(const pld_mspafl_setting *s, double sigma, double rate,
                     uint64_t rounds, double delta, const pld_params *params,
                     pld_result *res)
{
  pld_mech *m = NULL;
  pld_accountant *acc = NULL;
  int st;
  if (rate >= 1.0)
    st = pld_mech_gaussian(sigma, s->sensitivity, &m);
  else if (s->sampling == PLD_MSPAFL_WOR)
    st = pld_mech_wor_gaussian_rate(rate, sigma, s->sensitivity, &m);
  else
    st = pld_mech_poisson_gaussian(rate, sigma, s->sensitivity, &m);
  if (!st)
    st = pld_accountant_alloc(params, &acc);
  if (!st)
    st = pld_accountant_add(acc, m, rounds);
  if (!st)
    st = pld_accountant_epsilon(acc, delta, res);
  pld_accountant_free(acc);
  pld_mech_free(m);
  return st;
}

int pld_mspafl_analyze(int theorem, const pld_mspafl_setting *s,
                       const pld_params *params, pld_mspafl_report *out)
{
  pld_detail_clear();
  if (!s || !out)
    return pld_fail(PLD_EINVAL, "setting or out is NULL");
  if (!pld_mspafl_theorem_name(theorem))
    return pld_fail(PLD_EINVAL, "theorem = %d: need 1 (lemma1) .. 6 (thm4)",
                    theorem);
  if (!isfinite(s->sensitivity) || !(s->sensitivity > 0.0))
    return pld_fail(PLD_EINVAL, "sensitivity = %g: need a finite value > 0",
                    s->sensitivity);
  if (!isfinite(s->p) || !(s->p > 0.0) || !(s->p <= 1.0))
    return pld_fail(PLD_EINVAL, "p = %g: need 0 < p <= 1", s->p);
  if (s->rounds < 1 || s->rounds > ((uint64_t)1 << 53))
    return pld_fail(PLD_EINVAL, "rounds = %llu: need 1 <= rounds <= 2^53",
                    (unsigned long long)s->rounds);

  pld_mspafl_report r;
  memset(&r, 0, sizeof r);
  r.c0 = NAN;
  r.q = NAN;
  int st, cert = 0;
  st = pld_mspafl_lemma1_sigma(s->eps_l, s->delta_l, s->sensitivity,
                               &r.sigma, &cert);
  if (st)
    return pld_fail_if_silent(st, "eps_l = %g, delta_l = %g: need eps_l > 0 "
                              "and 0 < delta_l < 1", s->eps_l, s->delta_l);
  if ((theorem == PLD_MSPAFL_THM1 || theorem == PLD_MSPAFL_THM2 ||
       theorem == PLD_MSPAFL_COR1 || theorem == PLD_MSPAFL_THM4) &&
      !(s->eps_l <= 1.0))
    return pld_fail(PLD_EINVAL, "eps_l = %g: %s needs 0 < eps_l <= 1 (its "
                    "amplification step uses e^eps - 1 <= 2 eps)", s->eps_l,
                    pld_mspafl_theorem_name(theorem));
  if ((theorem == PLD_MSPAFL_THM2 || theorem == PLD_MSPAFL_COR1 ||
       theorem == PLD_MSPAFL_THM4) &&
      (!isfinite(s->beta) || !(s->beta > 0.0)))
    return pld_fail(PLD_EINVAL, "beta = %g: need a finite beta > 0",
                    s->beta);
  /* p of the exact model: client sampling gives nothing if seen */
  double p_exact = s->server_sees_checkin ? 1.0 : s->p;
  const char *not_proven = "paper's value, not a proven bound";
  r.rounds = 1;

  switch (theorem) {
  case PLD_MSPAFL_LEMMA1:
    r.closed.epsilon = s->eps_l;
    r.closed.delta = s->delta_l;
    r.closed.certified = cert;
    r.kind = cert ? "proven bound" : "calibration that fails the exact "
                                     "Gaussian check";
    r.q = 1.0;
    r.rate = 1.0;
    break;
  case PLD_MSPAFL_THM1:
    if ((st = data_q(s, &r.q)))
      return st;
    st = pld_mspafl_thm1(s->eps_l, s->delta_l, r.q,
                         s->sampling == PLD_MSPAFL_WR, &r.closed);
    if (st)
      return pld_fail_if_silent(st, "eps_l = %g: Thm 1 needs 0 < eps_l <= 1",
                                s->eps_l);
    r.kind = r.closed.certified ? "proven bound" : not_proven;
    r.rate = r.q; /* Thm 1 is data sampling alone */
    break;
  case PLD_MSPAFL_THM2: {
    if (s->n_clients_list < 1 || !s->p_list || !s->q_list)
      return pld_fail(PLD_EINVAL, "Thm 2 needs per-client lists p_i, q_i "
                      "(n_clients_list >= 1)");
    if (s->sampling != PLD_MSPAFL_POISSON)
      return pld_fail(PLD_EINVAL, "Thm 2 takes the ratios q_i directly: "
                      "sampling must be Poisson (0)");
    st = pld_mspafl_thm2(s->n_clients_list, s->p_list, s->q_list, s->eps_l,
                         s->delta_l, s->beta, &r.closed);
    if (st)
      return pld_fail_if_silent(st, "Thm 2: need p_i, q_i in (0, 1], "
                                "0 < eps_l <= 1, beta > 0");
    /* the worst record is in the client with the largest p_i q_i: the
     * subsampled pairs are ordered by rate (a rate-r1 run is a rate-r2 run
     * post-processed by subsampling at r1/r2 <= 1) */
    double worst = 0.0;
    size_t wi = 0;
    for (size_t i = 0; i < s->n_clients_list; i++) {
      double pi = s->server_sees_checkin ? 1.0 : s->p_list[i];
      if (pi * s->q_list[i] > worst) {
        worst = pi * s->q_list[i];
        wi = i;
      }
    }
    r.q = s->q_list[wi];
    r.rate = worst;
    r.kind = not_proven;
    break;
  }
  case PLD_MSPAFL_COR1:
  case PLD_MSPAFL_THM4:
    if ((st = data_q(s, &r.q)))
      return st;
    if (theorem == PLD_MSPAFL_COR1 ||
        (theorem == PLD_MSPAFL_THM4 && s->thm4_round == 0)) {
      st = pld_mspafl_cor1(s->clients, s->p, r.q, s->eps_l, s->delta_l,
                           s->beta, &r.closed);
      r.rate = p_exact * r.q;
    } else if (s->thm4_round == 1) {
      /* Thm 1 ignores client sampling, so it bounds the protocol for any
       * p; the exact PLD is still that of the protocol */
      st = pld_mspafl_thm1(s->eps_l, s->delta_l, r.q,
                           s->sampling == PLD_MSPAFL_WR, &r.closed);
      r.rate = p_exact * r.q;
    } else {
      return pld_fail(PLD_EINVAL, "thm4_round = %d: need 0 (Cor. 1) or 1 "
                      "(Thm 1)", s->thm4_round);
    }
    if (st)
      return pld_fail_if_silent(st, "need 0 < eps_l <= 1, clients >= 1, "
                                "beta > 0, p and q in (0, 1]");
    if (theorem == PLD_MSPAFL_THM4) {
      pld_mspafl_bound round = r.closed;
      if (!isfinite(round.epsilon)) {
        r.closed.delta = 1.0; /* delta' >= 1: nothing to compose */
      } else {
        st = pld_mspafl_thm4(round.epsilon, round.delta, s->rounds,
                             s->delta_tilde, &r.closed);
        if (st)
          return pld_fail_if_silent(st, "delta_tilde = %g: need 0 < "
                                    "delta_tilde <= 1", s->delta_tilde);
      }
      /* advanced composition is proven; the result is as good as the
       * per-round bound it composes */
      r.closed.certified = r.closed.certified && round.certified;
      r.rounds = s->rounds;
    }
    r.kind = r.closed.certified ? "proven bound" : not_proven;
    break;
  case PLD_MSPAFL_THM3: {
    if ((st = data_q(s, &r.q)))
      return st;
    double c0 = s->c0;
    if (s->c0_appendix) {
      st = pld_mspafl_thm3_c0_appendix(s->delta_l, s->clip, &c0);
      if (st)
        return pld_fail_if_silent(st, "c0 from App. C needs delta_l < 0.8 "
                                  "and clip > 0 (clip = %g)", s->clip);
    }
    st = pld_mspafl_thm3(c0, r.q, s->eps_l, s->p, s->rounds, &r.closed);
    if (st)
      return pld_fail_if_silent(st, "Thm 3 needs c0 > 0 (c0 = %g; or "
                                "c0_appendix), 0 < q < 1", c0);
    r.c0 = c0;
    r.rate = p_exact * r.q;
    r.rounds = s->rounds;
    r.kind = "paper's value, not a bound (below the exact epsilon for "
             "p >~ 0.5)";
    break;
  }
  }

  /* Every closed form starts from "the Gaussian with Lemma 1's sigma is
   * (eps_l, delta_l)-DP"; without that nothing downstream is proven. */
  r.closed.certified = r.closed.certified && cert;
  if (!r.closed.certified && strcmp(r.kind, "proven bound") == 0)
    r.kind = "not proven: Lemma 1's sigma fails the exact Gaussian check";
  r.exact_delta = (isfinite(r.closed.delta) && r.closed.delta > 0.0 &&
                   r.closed.delta < 1.0)
                      ? r.closed.delta
                      : s->delta_l;
  if (s->sampling == PLD_MSPAFL_WR && theorem != PLD_MSPAFL_LEMMA1) {
    r.exact_available = 0;
    r.exact_model = "none: with replacement a record drawn k ~ Bin(draws, "
                    "1/n) times moves the output by k s, and pldkit has no "
                    "proven dominating pair for that mixture";
  } else {
    st = exact_eps(s, r.sigma, r.rate, r.rounds, r.exact_delta, params,
                   &r.exact);
    if (st)
      return st;
    r.exact_available = 1;
    r.exact_model = r.rate >= 1.0 ? "Gaussian (sigma, s), composed"
                    : s->sampling == PLD_MSPAFL_WOR
                        ? "without-replacement Gaussian at rate p q "
                          "(replace-one, Balle et al. 2018 Thm 10), composed"
                        : "Poisson-subsampled Gaussian at rate p q "
                          "(add/remove), composed";
  }
  *out = r;
  return PLD_SUCCESS;
}
