/* MS-PAFL paper (Li, Wang, Tian, Wang, Su, "Federated learning with enhanced
 * privacy via model splitting and random client participation"), Figures 3
 * and 4, with the tight PLD analysis of the same protocol added.
 *
 * Paper parameters (Sec. V-B): N = 100 clients, beta = 0.25 (so delta' =
 * 2 exp(-2 beta^2 N) = 7.45e-6), delta_l = 1e-4 (the paper's only delta,
 * "target privacy parameter"), C = 1, identical p_i = p and q_i = q
 * (Cor. 1).  Fig. 3: eps_l in (0, 1], (a) p in {0.1, 0.5, 1}, (b) q in
 * {0.1, 0.3, 0.5}.  Fig. 4: (a) p in {0.1, 0.5, 1} at q = 0.2, (b) q in
 * {0.1, 0.3, 0.5} at p = 0.5.  Our choices where the paper is silent: Fig. 3
 * (a) uses q = 0.2 and (b) p = 0.5 (as in Fig. 4); Fig. 4 uses eps_l = 1
 * (the value of Fig. 2), T = 1..1000 rounds and delta~ = delta_l = 1e-4 in
 * Thm 4.
 *
 * The protocol as we read it (Sec. III, Alg. 1): in every round each
 * client checks in independently with probability p, hidden from the
 * server; a checked-in client trains on a subsample in which a given record
 * appears with probability q, clips its public submodel to norm C and
 * uploads it plus N(0, sigma^2 I), sigma from Lemma 1 for (eps_l, delta_l)
 * and L2 sensitivity s (only sigma/s matters).  The record's output is
 * shifted (by at most s) only if its client checked in AND the record was
 * sampled, which happens with probability p q independently per round; so
 * one round is dominated by the Poisson-subsampled Gaussian with rate p q
 * and noise multiplier sigma/s (add/remove adjacency, both directions), and
 * T rounds by its T-fold composition.  Data subsampling is modelled as
 * Poisson at rate q, not as the paper's fixed-size batch; if the server
 * sees who checked in, set p = 1 (client sampling then gives nothing).
 *
 * CSVs (epsilon in nats):
 *   pafl_fig3a.csv  eps_l, sigma/s (Lemma 1), then per p in {0.1, 0.5, 1}
 *                   (q = 0.2): Cor. 1 epsilon and delta (paper; not
 *                   certified), the PLD bracket of one round at Cor. 1's
 *                   delta (lower, upper), and the RDP epsilon of the same
 *                   round (improved conversion, default orders).
 *   pafl_fig3b.csv  the same for q in {0.1, 0.3, 0.5} (p = 0.5).
 *   pafl_fig4.csv   T, then per setting (p, q) of both panels: Thm 4
 *                   applied to Cor. 1 (epsilon, delta; paper), the PLD
 *                   bracket of T rounds at Thm 4's delta, the RDP epsilon
 *                   at that delta, Thm 3 with the constant c0 of App. C
 *                   (C.8) (paper; NOT a bound, delta = delta_l) and the
 *                   PLD bracket at delta_l.
 *   pafl_fig5.csv   (Figs 5 and 6 go through pld_mspafl_analyze, the call
 *                   of `pldkit mspafl`.)  T, then per eps_l in {0.1, 1}:
 *                   Thm 3 (c0 of (C.8); NOT a bound) with q of eq. (11)
 *                   WOR and WR, the PLD bracket of the protocol at delta_l
 *                   with WOR sampling (WR: none, no sound PLD), and the
 *                   DP-FedAvg baseline without amplification: Thm 4 of
 *                   (eps_l, delta_l) per round (certified) and the PLD of
 *                   T Gaussian rounds at delta_l.  p = 0.5, b = 5.
 *   pafl_fig6.csv   T, then per b in {1, 5, 13}: Cor. 1 + Thm 4 with q of
 *                   eq. (11) WOR and WR (paper; not certified), the PLD
 *                   bracket of the protocol at Thm 4's delta, WOR (WR:
 *                   none).  p = 0.5, eps_l = 1.
 * Figs 5-6 use Q = 5 local steps and |D_i| = 325 (32,561 Adult samples
 * over N = 100 clients, Sec. V-B), so q = 5 b / 325 (WOR) or
 * 1 - (1 - 1/325)^(5 b) (WR); p = 0.5 is our choice (the paper gives none).
 * Grid: eps_l = 0.02, 0.04, ..., 1 (50 points); T = 31 log-spaced values
 * in [1, 1000].  --tiny: eps_l in {0.25, 0.5, 1}, T in {1, 10, 100}.
 *
 * Checks (a failure exits 1): Lemma 1's sigma certified for every eps_l
 * <= 1; PLD brackets ordered and finite; PLD upper <= the RDP epsilon of
 * the same protocol; subsampling amplification: one round at delta = p q
 * delta_l has PLD lower <= log(1 + p q (e^eps_l - 1)) (Balle et al. 2018
 * applied to a certified (eps_l, delta_l) Gaussian); PLD epsilon
 * non-decreasing in eps_l (at Cor. 1's delta, which does not depend on
 * eps_l) and, at the common delta_l, in T, p and q (bracket-consistent:
 * the next upper end is >= this lower end); Thm 4's delta in (0, 1). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include <pldkit/pldkit.h>

#include "figcommon.h"

#define NCLIENTS 100
#define BETA 0.25
#define DELTA_L 1e-4
#define DELTA_TILDE 1e-4
#define CLIP 1.0
#define EPS_L_FIG4 1.0

struct setting {
  double p, q;
};

/* eps(delta) of T rounds: PLD bracket and RDP value. */
static void protocol_eps(struct fig *f, double p, double q, double sigma,
                         uint64_t T, double delta, pld_bound *pld,
                         double *rdp)
{
  pld_mech *m = NULL;
  pld_accountant *acc = NULL;
  pld_result r;
  fig_status(f, pld_mech_poisson_gaussian(p * q, sigma, 1.0, &m),
             "Poisson Gaussian");
  fig_status(f, pld_accountant_alloc(NULL, &acc), "accountant");
  fig_status(f, pld_accountant_add(acc, m, T), "accountant add");
  fig_status(f, pld_accountant_epsilon(acc, delta, &r), "PLD epsilon");
  *pld = r.bound;
  pld_accountant_free(acc);
  pld_mech_free(m);
  fig_check(f, isfinite(pld->upper) && pld->lower <= pld->upper &&
                   pld->lower >= 0,
            "p=%g q=%g sigma=%g T=%llu: PLD bracket [%g, %g]", p, q, sigma,
            (unsigned long long)T, pld->lower, pld->upper);
  if (rdp) {
    pld_rdp_curve *c = NULL;
    pld_rdp_result rr;
    fig_status(f, pld_rdp_curve_alloc_default(&c), "RDP curve");
    fig_status(f, pld_rdp_add_poisson_gaussian(c, p * q, sigma, 1.0, T),
               "RDP Poisson Gaussian");
    fig_status(f, pld_rdp_epsilon(c, delta, PLD_RDP_BEST, &rr), "RDP epsilon");
    pld_rdp_curve_free(c);
    *rdp = rr.value;
    fig_check(f, pld->upper <= *rdp * (1 + 1e-9),
              "p=%g q=%g sigma=%g T=%llu: PLD upper %.10g above RDP %.10g", p,
              q, sigma, (unsigned long long)T, pld->upper, *rdp);
  }
}

static double lemma1(struct fig *f, double eps_l)
{
  double sigma;
  int cert;
  fig_status(f, pld_mspafl_lemma1_sigma(eps_l, DELTA_L, 1.0, &sigma, &cert),
             "Lemma 1");
  fig_check(f, cert == 1, "Lemma 1 not certified at eps_l = %g", eps_l);
  return sigma;
}

/* bracket-consistent monotonicity: b (the larger argument) vs a */
static void check_mono(struct fig *f, pld_bound a, pld_bound b,
                       const char *what, double x)
{
  fig_check(f, b.upper >= a.lower * (1 - 1e-9),
            "%s at %g: PLD epsilon decreases ([%g, %g] then [%g, %g])", what,
            x, a.lower, a.upper, b.lower, b.upper);
}

static void fig3_panel(struct fig *f, const char *file, const char *label,
                       const struct setting *set, const double *eps_l,
                       size_t n)
{
  char header[1024];
  int len = snprintf(header, sizeof header, "eps_l,sigma_over_s");
  for (int j = 0; j < 3; j++) {
    char tag[32];
    snprintf(tag, sizeof tag, "%s%g", label,
             label[0] == 'p' ? set[j].p : set[j].q);
    len += snprintf(header + len, sizeof header - (size_t)len,
                    ",cor1_eps_%s,cor1_delta_%s,pld_lo_%s,pld_hi_%s,rdp_%s",
                    tag, tag, tag, tag, tag);
  }
  FILE *csv = fig_csv(f, file, header);
  pld_bound prev[3];
  for (size_t i = 0; i < n; i++) {
    double sigma = lemma1(f, eps_l[i]);
    fprintf(csv, "%.4g,%.8g", eps_l[i], sigma);
    pld_bound cur[3];
    for (int j = 0; j < 3; j++) {
      pld_mspafl_bound b;
      double rdp;
      fig_status(f, pld_mspafl_cor1(NCLIENTS, set[j].p, set[j].q, eps_l[i],
                                    DELTA_L, BETA, &b), "Cor. 1");
      protocol_eps(f, set[j].p, set[j].q, sigma, 1, b.delta, &cur[j], &rdp);
      /* amplification by subsampling of a certified (eps_l, delta_l) */
      pld_bound amp;
      double rate = set[j].p * set[j].q;
      protocol_eps(f, set[j].p, set[j].q, sigma, 1, rate * DELTA_L, &amp,
                   NULL);
      double thm = log1p(rate * expm1(eps_l[i]));
      fig_check(f, amp.lower <= thm * (1 + 1e-9),
                "eps_l=%g rate=%g: PLD lower %g above the subsampling "
                "theorem's %g", eps_l[i], rate, amp.lower, thm);
      /* Cor. 1's delta does not depend on eps_l */
      if (i > 0)
        check_mono(f, prev[j], cur[j], "eps_l", eps_l[i]);
      fprintf(csv, ",%.8g,%.6g,%.8g,%.8g,%.8g", b.epsilon, b.delta,
              cur[j].lower, cur[j].upper, rdp);
      prev[j] = cur[j];
    }
    fputc('\n', csv);
    fig_progress(f, file, i + 1, n);
  }
  fig_close(f, csv);
}

/* Figs 5 and 6: the subsampling strategies (eq. (11)), through
 * pld_mspafl_analyze. */
#define LOCAL_N 325
#define LOCAL_Q 5
#define P_FIG56 0.5

static void analyze(struct fig *f, int th, double eps_l, uint64_t b,
                    int sampling, uint64_t T, pld_mspafl_report *r)
{
  pld_mspafl_setting s;
  fig_status(f, pld_mspafl_setting_default(&s), "setting");
  s.eps_l = eps_l;
  s.delta_l = DELTA_L;
  s.p = P_FIG56;
  s.sampling = sampling;
  s.batch = LOCAL_Q * b;
  s.n = LOCAL_N;
  s.clients = NCLIENTS;
  s.beta = BETA;
  s.rounds = T;
  s.delta_tilde = DELTA_TILDE;
  s.c0_appendix = 1;
  s.clip = CLIP;
  fig_status(f, pld_mspafl_analyze(th, &s, NULL, r), "pld_mspafl_analyze");
  fig_check(f, !r->closed.certified, "MS-PAFL %s certified",
            pld_mspafl_theorem_name(th));
  fig_check(f, r->exact_available == (sampling == PLD_MSPAFL_WOR),
            "exact PLD availability");
  if (r->exact_available)
    fig_check(f, isfinite(r->exact.bound.upper) &&
                     r->exact.bound.lower <= r->exact.bound.upper,
              "exact bracket [%g, %g]", r->exact.bound.lower,
              r->exact.bound.upper);
}

static void figs56(struct fig *f, const uint64_t *Ts, size_t nT)
{
  static const double eps5[2] = {0.1, 1.0};
  char header[2048];
  int len = snprintf(header, sizeof header, "T");
  for (int j = 0; j < 2; j++)
    len += snprintf(header + len, sizeof header - (size_t)len,
                    ",thm3_wor_e%g,thm3_wr_e%g,pld_wor_lo_e%g,pld_wor_hi_e%g,"
                    "fedavg_thm4_e%g,fedavg_pld_hi_e%g", eps5[j], eps5[j],
                    eps5[j], eps5[j], eps5[j], eps5[j]);
  FILE *csv = fig_csv(f, "pafl_fig5", header);
  pld_bound prev5[2];
  for (size_t i = 0; i < nT; i++) {
    fprintf(csv, "%llu", (unsigned long long)Ts[i]);
    for (int j = 0; j < 2; j++) {
      pld_mspafl_report wor, wr;
      analyze(f, PLD_MSPAFL_THM3, eps5[j], 5, PLD_MSPAFL_WOR, Ts[i], &wor);
      analyze(f, PLD_MSPAFL_THM3, eps5[j], 5, PLD_MSPAFL_WR, Ts[i], &wr);
      fig_check(f, wr.closed.epsilon < wor.closed.epsilon,
                "Thm 3: WR below WOR (smaller q)");
      /* DP-FedAvg: every round (eps_l, delta_l) with Lemma 1's sigma */
      pld_mspafl_bound fa;
      fig_status(f, pld_mspafl_thm4(eps5[j], DELTA_L, Ts[i], DELTA_L, &fa),
                 "Thm 4");
      pld_mech *m = NULL;
      pld_accountant *acc = NULL;
      pld_result g;
      fig_status(f, pld_mech_gaussian(wor.sigma, 1.0, &m), "Gaussian");
      fig_status(f, pld_accountant_alloc(NULL, &acc), "accountant");
      fig_status(f, pld_accountant_add(acc, m, Ts[i]), "accountant add");
      fig_status(f, pld_accountant_epsilon(acc, DELTA_L, &g), "epsilon");
      pld_accountant_free(acc);
      pld_mech_free(m);
      /* amplification only helps; advanced composition is a bound on
       * the Gaussian rounds, which are exact here */
      fig_check(f, wor.exact.bound.lower <= g.bound.upper * (1 + 1e-9) &&
                       g.bound.lower <= fa.epsilon * (1 + 1e-9),
                "T=%llu eps_l=%g: WOR PLD %g, FedAvg PLD %g, Thm 4 %g",
                (unsigned long long)Ts[i], eps5[j], wor.exact.bound.lower,
                g.bound.upper, fa.epsilon);
      if (i > 0)
        check_mono(f, prev5[j], wor.exact.bound, "T (Fig. 5)",
                   (double)Ts[i]);
      prev5[j] = wor.exact.bound;
      fprintf(csv, ",%.8g,%.8g,%.8g,%.8g,%.8g,%.8g", wor.closed.epsilon,
              wr.closed.epsilon, wor.exact.bound.lower,
              wor.exact.bound.upper, fa.epsilon, g.bound.upper);
    }
    fputc('\n', csv);
    fig_progress(f, "pafl_fig5", i + 1, nT);
  }
  fig_close(f, csv);

  static const uint64_t bs[3] = {1, 5, 13};
  len = snprintf(header, sizeof header, "T");
  for (int j = 0; j < 3; j++)
    len += snprintf(header + len, sizeof header - (size_t)len,
                    ",thm4_wor_b%llu,thm4_wr_b%llu,thm4_delta_wor_b%llu,"
                    "pld_wor_lo_b%llu,pld_wor_hi_b%llu",
                    (unsigned long long)bs[j], (unsigned long long)bs[j],
                    (unsigned long long)bs[j], (unsigned long long)bs[j],
                    (unsigned long long)bs[j]);
  csv = fig_csv(f, "pafl_fig6", header);
  for (size_t i = 0; i < nT; i++) {
    fprintf(csv, "%llu", (unsigned long long)Ts[i]);
    for (int j = 0; j < 3; j++) {
      pld_mspafl_report wor, wr;
      analyze(f, PLD_MSPAFL_THM4, 1.0, bs[j], PLD_MSPAFL_WOR, Ts[i], &wor);
      analyze(f, PLD_MSPAFL_THM4, 1.0, bs[j], PLD_MSPAFL_WR, Ts[i], &wr);
      fig_check(f, wr.closed.epsilon <= wor.closed.epsilon,
                "Thm 4: WR not above WOR");
      fprintf(csv, ",%.8g,%.8g,%.6g,%.8g,%.8g", wor.closed.epsilon,
              wr.closed.epsilon, wor.closed.delta, wor.exact.bound.lower,
              wor.exact.bound.upper);
    }
    fputc('\n', csv);
    fig_progress(f, "pafl_fig6", i + 1, nT);
  }
  fig_close(f, csv);
}

int main(int argc, char **argv)
{
  struct fig f;
  fig_init(&f, "fig_pafl", argc, argv);

  /* ---- Fig. 3 ---- */
  double eps_l[50];
  size_t ne;
  if (f.tiny) {
    eps_l[0] = 0.25;
    eps_l[1] = 0.5;
    eps_l[2] = 1.0;
    ne = 3;
  } else {
    ne = 50;
    for (size_t i = 0; i < ne; i++)
      eps_l[i] = 0.02 * (double)(i + 1);
  }
  static const struct setting fig3a[3] = {{0.1, 0.2}, {0.5, 0.2}, {1.0, 0.2}};
  static const struct setting fig3b[3] = {{0.5, 0.1}, {0.5, 0.3}, {0.5, 0.5}};
  fig3_panel(&f, "pafl_fig3a", "p", fig3a, eps_l, ne);
  fig3_panel(&f, "pafl_fig3b", "q", fig3b, eps_l, ne);

  /* ---- Fig. 4 ---- */
  static const struct setting fig4[6] = {{0.1, 0.2}, {0.5, 0.2}, {1.0, 0.2},
                                         {0.5, 0.1}, {0.5, 0.3}, {0.5, 0.5}};
  uint64_t Ts[64];
  size_t nT = 0;
  if (f.tiny) {
    Ts[0] = 1;
    Ts[1] = 10;
    Ts[2] = 100;
    nT = 3;
  } else {
    for (int k = 0; k <= 30; k++) {
      uint64_t T = (uint64_t)llround(pow(10.0, 3.0 * k / 30.0));
      if (nT == 0 || T > Ts[nT - 1])
        Ts[nT++] = T;
    }
  }
  char header[4096];
  int len = snprintf(header, sizeof header, "T");
  for (int j = 0; j < 6; j++) {
    char tag[32];
    snprintf(tag, sizeof tag, "p%g_q%g", fig4[j].p, fig4[j].q);
    len += snprintf(header + len, sizeof header - (size_t)len,
                    ",thm4_eps_%s,thm4_delta_%s,pld_lo_%s,pld_hi_%s,rdp_%s,"
                    "thm3_eps_%s,pld_dl_lo_%s,pld_dl_hi_%s",
                    tag, tag, tag, tag, tag, tag, tag, tag);
  }
  FILE *csv = fig_csv(&f, "pafl_fig4", header);
  const double sigma = lemma1(&f, EPS_L_FIG4);
  double c0;
  fig_status(&f, pld_mspafl_thm3_c0_appendix(DELTA_L, CLIP, &c0), "c0");
  pld_bound prev[6];
  for (size_t i = 0; i < nT; i++) {
    fprintf(csv, "%llu", (unsigned long long)Ts[i]);
    pld_bound cur[6];
    for (int j = 0; j < 6; j++) {
      pld_mspafl_bound b1, b4, b3;
      fig_status(&f, pld_mspafl_cor1(NCLIENTS, fig4[j].p, fig4[j].q,
                                     EPS_L_FIG4, DELTA_L, BETA, &b1),
                 "Cor. 1");
      fig_status(&f, pld_mspafl_thm4(b1.epsilon, b1.delta, Ts[i], DELTA_TILDE,
                                     &b4), "Thm 4");
      fig_status(&f, pld_mspafl_thm3(c0, fig4[j].q, EPS_L_FIG4, fig4[j].p,
                                     Ts[i], &b3), "Thm 3");
      fig_check(&f, b4.delta > 0 && b4.delta < 1, "Thm 4 delta %g", b4.delta);
      double rdp;
      pld_bound at_dl;
      protocol_eps(&f, fig4[j].p, fig4[j].q, sigma, Ts[i], b4.delta, &cur[j],
                   &rdp);
      protocol_eps(&f, fig4[j].p, fig4[j].q, sigma, Ts[i], DELTA_L, &at_dl,
                   NULL);
      /* a smaller delta can only need a larger epsilon */
      fig_check(&f, at_dl.upper >= cur[j].lower * (1 - 1e-9),
                "T=%llu: eps at delta_l below eps at Thm 4's larger delta",
                (unsigned long long)Ts[i]);
      /* monotonicity at the common delta_l (Thm 4's delta moves) */
      if (i > 0)
        check_mono(&f, prev[j], at_dl, "T", (double)Ts[i]);
      fprintf(csv, ",%.8g,%.6g,%.8g,%.8g,%.8g,%.8g,%.8g,%.8g", b4.epsilon,
              b4.delta, cur[j].lower, cur[j].upper, rdp, b3.epsilon,
              at_dl.lower, at_dl.upper);
      prev[j] = at_dl;
    }
    /* monotone in p (settings 0..2) and in q (3, 1, 4, 5: q = 0.1 ... 0.5) */
    check_mono(&f, prev[0], prev[1], "p", (double)Ts[i]);
    check_mono(&f, prev[1], prev[2], "p", (double)Ts[i]);
    check_mono(&f, prev[3], prev[1], "q", (double)Ts[i]);
    check_mono(&f, prev[1], prev[4], "q", (double)Ts[i]);
    check_mono(&f, prev[4], prev[5], "q", (double)Ts[i]);
    fputc('\n', csv);
    fig_progress(&f, "pafl_fig4", i + 1, nT);
  }
  fig_close(&f, csv);

  /* ---- Figs 5 and 6 ---- */
  figs56(&f, Ts, nT);
  return fig_done(&f);
}
