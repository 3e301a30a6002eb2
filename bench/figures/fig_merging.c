/* DP model merging paper (random selection RS, linear combination LC),
 * Figure 1 (mean estimation, Sec. 8.1) and Figure 2 (epsilon over the merge
 * weights on MNIST, App. H.1), delta = 1e-5 throughout (as in the paper).
 *
 * Fig. 1, mean estimation.  The paper: n = 100 samples clipped to [-1, 1],
 * two Gaussian estimates of the empirical mean, merged by RS (weight pi on
 * estimate 1) or LC (lambda on estimate 1).  The paper does not give the
 * noise levels; we take replace-one sensitivity Delta = 2/n = 0.02 and
 * sigma1 = 0.02, sigma2 = 0.08 (inputs at eps ~ 4.4 and ~ 1.1; the ratio 4
 * of the errata's check).  MSE = merged variance + Var(clip(X))/n, Var(clip(X))
 * = 1 - 2 phi(1) (X ~ N(0, 1), population mean 0).
 *   merging_fig1.csv  family (RS or LC), weight (pi or lambda), var_merged,
 *     mse, then epsilons (nats) at delta = 1e-5:
 *     RS: eps_rdp = Thm 5.1 (Hoelder bound on the members' RDP),
 *         eps_pld_lo/hi = Thm 5.2 (pi-mixture of the members' PLDs, i.e.
 *         the choice treated as visible), eps_rdp_exact / eps_pld_exact_lo,
 *         hi = the exact pair pi N(0, s1^2) + (1-pi) N(0, s2^2) vs its
 *         shift by Delta (the choice hidden, as RS releases only the model;
 *         pld_merge_mean_rs_rdp / pld_merge_mean_rs_mech, PLD on a fixed
 *         grid of 5e-3 nats);
 *     LC: the released lambda x1 + (1-lambda) x2 is exactly Gaussian
 *         (Lemma 4.1): eps_rdp (alpha Delta^2 / 2 sigma_LC^2, best
 *         conversion) and the exact PLD bracket; exact columns nan.
 *   Grid: pi in {0, 1e-4, 3e-4, 1e-3, 3e-3, .01, .03, .1, .2, ..., .9, .95,
 *   .98, .99, .995, .998, .999, 1} (the endpoints are the inputs, exactly
 *   Gaussian), lambda in 0..1 step 0.025.
 *
 * Fig. 2, MNIST (App. H.1; bench/bench_merge.c): three DP-SGD runs, q =
 * 256/60000, T = 705 steps (3 epochs), lr 0.1, (C, sigma) = (1, 0.5),
 * (2, 0.5), (1, 2).  The paper shows heatmaps over the simplex; we plot
 * lines through it:
 *   merging_fig2a.csv  edge run 1 - run 3: weights (t, 0, 1-t);
 *   merging_fig2b.csv  edge run 2 - run 3: (0, t, 1-t);
 *   merging_fig2c.csv  edge run 1 - run 2: (t, 1-t, 0);
 *   merging_fig2d.csv  centre line (t, (1-t)/2, (1-t)/2) (as bench_merge).
 *   Columns: t, w1, w2, w3, RS PLD bracket (Thm 5.2: the w-mixture
 *   pld_dist_mix of the runs' PLDs, composed once on a shared grid; checked
 *   against pld_merge_rs_accountant at one weight per line), RS RDP
 *   (Thm 5.1), LC PLD bracket (Thm 6.4 surrogate,
 *   pld_merge_lc_accountant), LC RDP (Thm 6.2 both directions), and the
 *   joint release (Thm 6.1) of the runs on that line (PLD bracket, RDP).
 *   PLD accuracy 1% (pldkit's planner default; upper ends certified), RDP
 *   on the default 157 orders, best conversion.  t = 0, 5e-4, 1e-3, 2e-3,
 *   5e-3, 0.01, 0.02, 0.05, 0.1, 0.15, ..., 1 (RS frontiers sit at tiny
 *   weights).
 * --tiny: pi in {0, 0.5, 1} (exact PLD grid 0.01), lambda in {0, 0.5, 1};
 * Fig. 2 line a only, t in {0, 0.5, 1}.
 *
 * Checks (a failure exits 1): brackets ordered and finite; every PLD upper
 * end <= the RDP epsilon of the same accounting; the exact RS RDP <= Thm
 * 5.1 and the exact RS PLD lower <= Thm 5.2's upper; at the endpoints RS,
 * LC and the input Gaussian agree; LC epsilon decreasing in sigma_LC; on
 * MNIST, LC and RS never above the joint release (bracket-consistent) and RS
 * never above its worst member; where one run has all the weight, RS = LC =
 * that run. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <pldkit/pldkit.h>

#include "figcommon.h"

#define DELTA 1e-5
#define NSAMP 100
#define SENS (2.0 / NSAMP)
#define SIGMA1 0.02
#define SIGMA2 0.08
#define PHI1 0.24197072451914337 /* phi(1) */

static double rdp_eps(struct fig *f, pld_rdp_curve *c)
{
  pld_rdp_result r;
  fig_status(f, pld_rdp_epsilon(c, DELTA, PLD_RDP_BEST, &r), "RDP epsilon");
  return r.value;
}

static pld_bound acc_eps(struct fig *f, pld_accountant *acc)
{
  pld_result r;
  fig_status(f, pld_accountant_epsilon(acc, DELTA, &r), "PLD epsilon");
  fig_check(f, r.bound.lower <= r.bound.upper && isfinite(r.bound.upper),
            "PLD bracket [%g, %g]", r.bound.lower, r.bound.upper);
  return r.bound;
}

static pld_bound mech_eps(struct fig *f, const pld_mech *m,
                          const pld_params *pp)
{
  pld_accountant *acc = NULL;
  fig_status(f, pld_accountant_alloc(pp, &acc), "accountant");
  fig_status(f, pld_accountant_add(acc, m, 1), "accountant add");
  pld_bound b = acc_eps(f, acc);
  pld_accountant_free(acc);
  return b;
}

static pld_bound gauss_pld(struct fig *f, double sigma)
{
  pld_mech *m = NULL;
  fig_status(f, pld_mech_gaussian(sigma, SENS, &m), "Gaussian");
  pld_bound b = mech_eps(f, m, NULL);
  pld_mech_free(m);
  return b;
}

static double gauss_rdp(struct fig *f, double sigma)
{
  pld_rdp_curve *c = NULL;
  fig_status(f, pld_rdp_curve_alloc_default(&c), "RDP curve");
  fig_status(f, pld_rdp_add_gaussian(c, sigma, SENS, 1), "Gaussian RDP");
  double e = rdp_eps(f, c);
  pld_rdp_curve_free(c);
  return e;
}

/* ------------------------------------------------------------------ */
/* Fig. 1                                                              */

static void fig1(struct fig *f)
{
  static const double pi_full[] = {
      0,   1e-4, 3e-4, 1e-3, 3e-3, 0.01, 0.03, 0.1,   0.2,   0.3,   0.4, 0.5,
      0.6, 0.7,  0.8,  0.9,  0.95, 0.98, 0.99, 0.995, 0.998, 0.999, 1};
  static const double pi_tiny[] = {0, 0.5, 1};
  const double *pis = f->tiny ? pi_tiny : pi_full;
  const size_t npi = f->tiny ? 3 : sizeof pi_full / sizeof pi_full[0];
  const double grid = f->tiny ? 1e-2 : 5e-3; /* exact RS PLD grid */
  const size_t nlam = f->tiny ? 3 : 41;
  const double var_mean = (1.0 - 2.0 * PHI1) / NSAMP;

  FILE *csv = fig_csv(f, "merging_fig1",
                      "family,weight,var_merged,mse,eps_rdp,eps_pld_lo,"
                      "eps_pld_hi,eps_rdp_exact,eps_pld_exact_lo,"
                      "eps_pld_exact_hi");
  /* the inputs */
  const double in_rdp[2] = {gauss_rdp(f, SIGMA1), gauss_rdp(f, SIGMA2)};
  const pld_bound in_pld[2] = {gauss_pld(f, SIGMA1), gauss_pld(f, SIGMA2)};
  pld_rdp_curve *g[2] = {NULL, NULL};
  pld_mech *gm[2] = {NULL, NULL};
  for (int i = 0; i < 2; i++) {
    double s = i ? SIGMA2 : SIGMA1;
    fig_status(f, pld_rdp_curve_alloc_default(&g[i]), "RDP curve");
    fig_status(f, pld_rdp_add_gaussian(g[i], s, SENS, 1), "Gaussian RDP");
    fig_status(f, pld_mech_gaussian(s, SENS, &gm[i]), "Gaussian");
  }
  pld_params pp;
  pld_params_default(&pp);

  for (size_t k = 0; k < npi; k++) {
    const double pi = pis[k], w[2] = {pi, 1.0 - pi};
    const double var = pi * SIGMA1 * SIGMA1 + (1 - pi) * SIGMA2 * SIGMA2;
    /* Thm 5.1 */
    pld_rdp_curve *rs = NULL;
    fig_status(f, pld_rdp_curve_alloc_default(&rs), "RDP curve");
    const pld_rdp_curve *mem[2] = {g[0], g[1]};
    fig_status(f, pld_rdp_random_selection(2, mem, w, rs), "Thm 5.1");
    double e51 = rdp_eps(f, rs);
    pld_rdp_curve_free(rs);
    /* Thm 5.2 */
    pld_mech *sel = NULL;
    const pld_mech *mm[2] = {gm[0], gm[1]};
    fig_status(f, pld_mech_select(2, mm, w, &sel), "Thm 5.2 selection");
    pld_bound e52 = mech_eps(f, sel, NULL);
    pld_mech_free(sel);
    fig_check(f, e52.upper <= e51 * (1 + 1e-9),
              "RS pi=%g: Thm 5.2 PLD %g above Thm 5.1 RDP %g", pi, e52.upper,
              e51);
    /* exact (hidden choice); the endpoints are the inputs */
    double ex_rdp;
    pld_bound ex_pld;
    if (pi == 0.0 || pi == 1.0) {
      int i = pi == 1.0 ? 0 : 1;
      ex_rdp = in_rdp[i];
      ex_pld = in_pld[i];
      fig_check(f, fabs(e51 - ex_rdp) <= 1e-9 * ex_rdp &&
                       e52.lower <= ex_pld.upper * (1 + 1e-9) &&
                       ex_pld.lower <= e52.upper * (1 + 1e-9),
                "RS pi=%g: not the input (%g vs %g; [%g, %g] vs [%g, %g])",
                pi, e51, ex_rdp, e52.lower, e52.upper, ex_pld.lower,
                ex_pld.upper);
    } else {
      pld_rdp_curve *c = NULL;
      fig_status(f, pld_rdp_curve_alloc_default(&c), "RDP curve");
      fig_status(f, pld_merge_mean_rs_rdp(SIGMA1, SIGMA2, pi, SENS, c),
                 "exact RS RDP");
      ex_rdp = rdp_eps(f, c);
      pld_rdp_curve_free(c);
      pld_mech *m = NULL;
      pld_dist *d = NULL;
      fig_status(f, pld_merge_mean_rs_mech(SIGMA1, SIGMA2, pi, SENS, &m),
                 "exact RS mechanism");
      fig_status(f, pld_dist_from_curve(pld_mech_curve(m), grid, &pp, &d),
                 "exact RS PLD");
      fig_status(f, pld_dist_epsilon(d, DELTA, &ex_pld), "exact RS epsilon");
      pld_dist_free(d);
      pld_mech_free(m);
      fig_check(f, ex_pld.lower <= ex_pld.upper && isfinite(ex_pld.upper),
                "exact RS pi=%g: bracket [%g, %g]", pi, ex_pld.lower,
                ex_pld.upper);
    }
    fig_check(f, ex_rdp <= e51 * (1 + 1e-9),
              "RS pi=%g: exact RDP %g above Thm 5.1 %g", pi, ex_rdp, e51);
    fig_check(f, ex_pld.lower <= e52.upper * (1 + 1e-9),
              "RS pi=%g: exact PLD lower %g above Thm 5.2 %g", pi,
              ex_pld.lower, e52.upper);
    fig_check(f, ex_pld.upper <= ex_rdp * (1 + 1e-9),
              "RS pi=%g: exact PLD %g above exact RDP %g", pi, ex_pld.upper,
              ex_rdp);
    fprintf(csv, "RS,%g,%.8g,%.8g,%.8g,%.8g,%.8g,%.8g,%.8g,%.8g\n", pi, var,
            var + var_mean, e51, e52.lower, e52.upper, ex_rdp, ex_pld.lower,
            ex_pld.upper);
    fig_progress(f, "fig1 RS", k + 1, npi);
  }

  double prev_sigma = 0;
  pld_bound prev = {0, 0};
  for (size_t k = 0; k < nlam; k++) {
    const double lam = (double)k / (double)(nlam - 1);
    double slc;
    fig_status(f, pld_merge_mean_sigma_lc(SIGMA1, SIGMA2, lam, &slc),
               "sigma_LC");
    pld_mech *m = NULL;
    fig_status(f, pld_merge_mean_lc_mech(SIGMA1, SIGMA2, lam, SENS, &m),
               "LC mechanism");
    pld_bound e = mech_eps(f, m, NULL);
    pld_mech_free(m);
    double er = gauss_rdp(f, slc);
    fig_check(f, e.upper <= er * (1 + 1e-9), "LC lambda=%g: PLD %g above RDP %g",
              lam, e.upper, er);
    if (k == 0 || k == nlam - 1) {
      int i = k == 0 ? 1 : 0;
      fig_check(f, e.lower <= in_pld[i].upper * (1 + 1e-9) &&
                       in_pld[i].lower <= e.upper * (1 + 1e-9),
                "LC lambda=%g: not the input", lam);
    }
    /* epsilon falls as sigma_LC grows (bracket-consistent) */
    if (k > 0 && slc > prev_sigma)
      fig_check(f, e.lower <= prev.upper * (1 + 1e-9),
                "LC lambda=%g: epsilon grows with sigma_LC", lam);
    if (k > 0 && slc < prev_sigma)
      fig_check(f, prev.lower <= e.upper * (1 + 1e-9),
                "LC lambda=%g: epsilon falls with sigma_LC", lam);
    prev_sigma = slc;
    prev = e;
    double var = slc * slc;
    fprintf(csv, "LC,%g,%.8g,%.8g,%.8g,%.8g,%.8g,nan,nan,nan\n", lam, var,
            var + var_mean, er, e.lower, e.upper);
    fig_progress(f, "fig1 LC", k + 1, nlam);
  }
  for (int i = 0; i < 2; i++) {
    pld_rdp_curve_free(g[i]);
    pld_mech_free(gm[i]);
  }
  fig_close(f, csv);
}

/* ------------------------------------------------------------------ */
/* Fig. 2                                                              */

static const pld_merge_run mnist[3] = {
    {256.0 / 60000.0, 0.5, 1.0, 0.1, 705},
    {256.0 / 60000.0, 0.5, 2.0, 0.1, 705},
    {256.0 / 60000.0, 2.0, 1.0, 0.1, 705},
};

struct line {
  const char *file;
  double a[3], b[3]; /* weights = t a + (1 - t) b */
};

static void fig2_line(struct fig *f, const struct line *ln, size_t nt,
                      const double *ts, const pld_params *pp,
                      const pld_dist *const *run_dist,
                      const pld_bound *run_pld, const double *run_rdp)
{
  /* the runs on this line and their joint release */
  pld_merge_run on[3];
  size_t non = 0;
  for (int i = 0; i < 3; i++)
    if (ln->a[i] > 0 || ln->b[i] > 0)
      on[non++] = mnist[i];
  pld_accountant *ja = NULL;
  fig_status(f, pld_merge_joint_accountant(non, on, pp, &ja), "joint PLD");
  pld_bound jp = acc_eps(f, ja);
  pld_accountant_free(ja);
  pld_rdp_curve *jc = NULL;
  fig_status(f, pld_rdp_curve_alloc_default(&jc), "RDP curve");
  fig_status(f, pld_merge_joint_rdp(non, on, jc), "joint RDP");
  double jr = rdp_eps(f, jc);
  pld_rdp_curve_free(jc);
  fig_check(f, jp.upper <= jr * (1 + 1e-9), "%s: joint PLD %g above RDP %g",
            ln->file, jp.upper, jr);

  FILE *csv = fig_csv(f, ln->file,
                      "t,w1,w2,w3,rs_pld_lo,rs_pld_hi,rs_rdp,lc_pld_lo,"
                      "lc_pld_hi,lc_rdp,joint_pld_lo,joint_pld_hi,joint_rdp");
  for (size_t k = 0; k < nt; k++) {
    const double t = ts[k];
    double w[3];
    for (int i = 0; i < 3; i++)
      w[i] = t * ln->a[i] + (1 - t) * ln->b[i];
    w[2] = 1.0 - w[0] - w[1]; /* sum exactly 1 */
    if (w[2] < 0)
      w[2] = 0;
    pld_accountant *acc = NULL;
    pld_rdp_curve *c = NULL;
    /* RS PLD (Thm 5.2): the w-mixture of the runs' composed PLDs */
    pld_dist *mix = NULL;
    pld_bound rsp;
    fig_status(f, pld_dist_mix(3, run_dist, w, &mix), "RS PLD mixture");
    fig_status(f, pld_dist_epsilon(mix, DELTA, &rsp), "RS PLD epsilon");
    pld_dist_free(mix);
    fig_check(f, rsp.lower <= rsp.upper && isfinite(rsp.upper),
              "%s t=%g: RS bracket [%g, %g]", ln->file, t, rsp.lower,
              rsp.upper);
    if (k == nt / 2) { /* the same through the merge planner's accountant */
      fig_status(f, pld_merge_rs_accountant(3, mnist, w, pp, &acc), "RS PLD");
      pld_bound b = acc_eps(f, acc);
      pld_accountant_free(acc);
      fig_check(f, b.lower <= rsp.upper * (1 + 1e-9) &&
                       rsp.lower <= b.upper * (1 + 1e-9),
                "%s t=%g: RS mixture [%g, %g] and RS accountant [%g, %g] "
                "disagree", ln->file, t, rsp.lower, rsp.upper, b.lower,
                b.upper);
    }
    fig_status(f, pld_rdp_curve_alloc_default(&c), "RDP curve");
    fig_status(f, pld_merge_rs_rdp(3, mnist, w, c), "RS RDP");
    double rsr = rdp_eps(f, c);
    pld_rdp_curve_free(c);
    fig_status(f, pld_merge_lc_accountant(3, mnist, w, pp, &acc), "LC PLD");
    pld_bound lcp = acc_eps(f, acc);
    pld_accountant_free(acc);
    fig_status(f, pld_rdp_curve_alloc_default(&c), "RDP curve");
    fig_status(f, pld_merge_lc_rdp(3, mnist, w, c), "LC RDP");
    double lcr = rdp_eps(f, c);
    pld_rdp_curve_free(c);

    fig_check(f, rsp.upper <= rsr * (1 + 1e-9) && lcp.upper <= lcr * (1 + 1e-9),
              "%s t=%g: PLD above RDP (RS %g vs %g, LC %g vs %g)", ln->file,
              t, rsp.upper, rsr, lcp.upper, lcr);
    fig_check(f, lcp.lower <= jp.upper * (1 + 1e-9) && lcr <= jr * (1 + 1e-9),
              "%s t=%g: LC above the joint release", ln->file, t);
    fig_check(f, rsp.lower <= jp.upper * (1 + 1e-9) && rsr <= jr * (1 + 1e-9),
              "%s t=%g: RS above the joint release", ln->file, t);
    double worst_pld = 0, worst_rdp = 0;
    for (int i = 0; i < 3; i++)
      if (w[i] > 0) {
        worst_pld = fmax(worst_pld, run_pld[i].upper);
        worst_rdp = fmax(worst_rdp, run_rdp[i]);
      }
    fig_check(f, rsp.lower <= worst_pld * (1 + 1e-9) &&
                     rsr <= worst_rdp * (1 + 1e-9),
              "%s t=%g: RS above its worst member", ln->file, t);
    {
      int i = -1; /* a single run at this point? */
      for (int j = 0; j < 3; j++)
        if (w[j] == 1.0)
          i = j;
      if (i >= 0) {
        pld_bound rb = run_pld[i];
        fig_check(f, rsp.lower <= rb.upper * (1 + 1e-9) &&
                         rb.lower <= rsp.upper * (1 + 1e-9) &&
                         lcp.lower <= rb.upper * (1 + 1e-9) &&
                         rb.lower <= lcp.upper * (1 + 1e-9) &&
                         fabs(rsr - run_rdp[i]) <= 1e-6 * run_rdp[i] &&
                         fabs(lcr - run_rdp[i]) <= 1e-3 * run_rdp[i],
                  "%s t=%g: RS/LC (PLD [%g, %g] [%g, %g], RDP %g %g) are not "
                  "run %d alone ([%g, %g], %g)", ln->file, t, rsp.lower,
                  rsp.upper, lcp.lower, lcp.upper, rsr, lcr, i + 1, rb.lower,
                  rb.upper, run_rdp[i]);
      }
    }
    fprintf(csv,
            "%g,%.6g,%.6g,%.6g,%.8g,%.8g,%.8g,%.8g,%.8g,%.8g,%.8g,%.8g,%.8g\n",
            t, w[0], w[1], w[2], rsp.lower, rsp.upper, rsr, lcp.lower,
            lcp.upper, lcr, jp.lower, jp.upper, jr);
    fig_progress(f, ln->file, k + 1, nt);
  }
  fig_close(f, csv);
}

static void fig2(struct fig *f)
{
  static const struct line lines[4] = {
      {"merging_fig2a", {1, 0, 0}, {0, 0, 1}},
      {"merging_fig2b", {0, 1, 0}, {0, 0, 1}},
      {"merging_fig2c", {1, 0, 0}, {0, 1, 0}},
      {"merging_fig2d", {1, 0, 0}, {0, 0.5, 0.5}},
  };
  pld_params pp;
  pld_params_default(&pp);
  pp.accuracy = 1e-2;
  /* each run alone; its composed PLD on a grid shared by the three runs
   * (the finest the accountant chose for any of them) for the RS mixture */
  pld_bound run_pld[3];
  double run_rdp[3], grid = INFINITY;
  pld_accountant *ra[3] = {NULL, NULL, NULL};
  pld_dist *rd[3] = {NULL, NULL, NULL};
  for (int i = 0; i < 3; i++) {
    pld_result r;
    fig_status(f, pld_merge_joint_accountant(1, &mnist[i], &pp, &ra[i]),
               "run");
    fig_status(f, pld_accountant_epsilon(ra[i], DELTA, &r), "run epsilon");
    run_pld[i] = r.bound;
    if (r.discretization > 0 && r.discretization < grid)
      grid = r.discretization;
    pld_rdp_curve *c = NULL;
    fig_status(f, pld_rdp_curve_alloc_default(&c), "RDP curve");
    fig_status(f, pld_merge_joint_rdp(1, &mnist[i], c), "run RDP");
    run_rdp[i] = rdp_eps(f, c);
    pld_rdp_curve_free(c);
  }
  fig_check(f, isfinite(grid), "no grid step for the runs");
  for (int i = 0; i < 3; i++) {
    fig_status(f, pld_accountant_compose(ra[i], grid, &rd[i]), "run PLD");
    pld_accountant_free(ra[i]);
  }
  static const double t_full[] = {0,    5e-4, 1e-3, 2e-3, 5e-3, 0.01, 0.02,
                                  0.05, 0.1,  0.15, 0.2,  0.25, 0.3,  0.35,
                                  0.4,  0.45, 0.5,  0.55, 0.6,  0.65, 0.7,
                                  0.75, 0.8,  0.85, 0.9,  0.95, 1};
  static const double t_tiny[] = {0, 0.5, 1};
  const size_t nl = f->tiny ? 1 : 4;
  const size_t nt = f->tiny ? 3 : sizeof t_full / sizeof t_full[0];
  const pld_dist *const members[3] = {rd[0], rd[1], rd[2]};
  for (size_t l = 0; l < nl; l++)
    fig2_line(f, &lines[l], nt, f->tiny ? t_tiny : t_full, &pp, members,
              run_pld, run_rdp);
  for (int i = 0; i < 3; i++)
    pld_dist_free(rd[i]);
}

int main(int argc, char **argv)
{
  struct fig f;
  fig_init(&f, "fig_merging", argc, argv);
  fig1(&f);
  fig2(&f);
  return fig_done(&f);
}
