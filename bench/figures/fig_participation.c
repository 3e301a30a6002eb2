/* fig_participation [--tiny] OUTDIR: the figures of Hasircioglu & Gunduz,
 * "Privacy Amplification via Random Participation in Federated Learning"
 * (Figs. 1, 2, 3 and 5), recomputed with pldkit's public API, plus what
 * pldkit adds: the MWCS mixture PLD (pldkit's tightest CERTIFIED analysis of
 * the protocol, docs/participation.md sec. 5) and the certified lower limit
 * of the true worst case (pld_participation_lower_limit).
 *
 * Every number is for ONE round (the paper's Figs. 1-5 are "for a single
 * iteration"), clipping norm C = 1, epsilons in nats.  The paper fixes
 * C = 1, sigma = 1, p = q = 0.1 "unless otherwise stated" and shows d = 1,
 * 10, 100 (d = records of the client other than x').  It does not state the
 * epsilon or delta held fixed in Figs. 2, 3 and 5, nor the axis ranges; the
 * choices below are ours (marked CHOICE).
 *
 *   participation_fig1.csv  Fig. 1, delta vs epsilon.  sigma = 1,
 *       p = q = 0.1; eps in [0.05, 3] (CHOICE), 60 points.
 *   participation_fig2.csv  Fig. 2, epsilon vs sigma.  p = q = 0.1,
 *       delta = 1e-5 (CHOICE); sigma in [0.5, 5] log-spaced (CHOICE),
 *       28 points.
 *   participation_fig3.csv  Fig. 3, delta vs sigma.  p = q = 0.1,
 *       eps = 0.5 (CHOICE); sigma in [0.5, 3] log-spaced (CHOICE), 28 points
 *       (beyond sigma = 3 the certified deltas fall below 1e-18, where the
 *       PLD's truncation floor, tail_mass = 1e-20, dominates).
 *   participation_fig5.csv  Fig. 5, epsilon vs q with p q = 1e-4
 *       (p = 1e-4/q), sigma = 1, delta = 1e-5 (CHOICE); q in [1e-4, 1]
 *       log-spaced, 49 points (q = 1e-4 is p = 1: every client participates).
 *
 * Columns.  The first is the x variable (eps, sigma or q).  Then the
 * d-independent analyses:
 *   ols, wcs   Thm 5.1 / Thm 5.2, closed forms: certified upper bounds
 *              (upper end of the library's bracket);
 *   cs         Cor. 5.3 read with rate p q: a certified LOWER limit of the
 *              true worst case (lower end of the bracket), not a bound.
 * and for each d in {1, 10, 100} (suffix _d1, _d10, _d100):
 *   thm41_dD        Theorem 4.1 as printed (the paper's "proposed" curve):
 *                   the exact delta of ONE dataset, NOT a bound;
 *   thm41_cert_dD   1 if pldkit found no dataset with a larger delta, 0 if
 *                   refuted (below CS, or below some computed dataset);
 *   mwcs_dD         MWCS closed form (upper end), certified upper bound;
 *   pld_lo_dD,      the MWCS round as a mixture PLD through the accountant
 *   pld_hi_dD       (pld_mech_select of two Poisson-subsampled Gaussians):
 *                   its bracket, pld_hi certified.  Fixed grid step: 1e-3
 *                   nats for delta queries, min(1e-3, eps_MWCS/20) for
 *                   epsilon queries (the automatic grid gives the same
 *                   values but costs 0.4-4 s per single-round query);
 *   ll_dD           certified lower limit of the true worst case: max over
 *                   CS and the aligned datasets (pld_participation_lower_limit);
 *                   in the epsilon figures the largest eps found by bisection
 *                   where that limit still exceeds the target delta (so the
 *                   true epsilon is above it).
 * In the epsilon figures, thm41 is Theorem 4.1's epsilon(delta) and its flag
 * is evaluated there.  The truth lies in [ll, pld_hi] (and in [cs, wcs]).
 *
 * --tiny: 4 points per panel, same code path.
 *
 * Checks (exit 1 on failure): every value finite and in range; PLD bracket
 * ordered and containing the MWCS closed form; CS <= LL <= PLD upper and
 * CS <= MWCS <= WCS <= OLS; Theorem 4.1's flag consistent with CS and the
 * lower limit; certified curves monotone; at p = 1 (Fig. 5) WCS = OLS = CS.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <pldkit/pldkit.h>

#include "figcommon.h"

#define ND 3
static const int64_t DS[ND] = {1, 10, 100};
static const double CLIP = 1.0;
static const double REL = 1e-9; /* slack for comparing brackets */

static struct fig F;
/* PLD grids.  Delta queries: a fixed step of 1e-3 nats, because the
 * automatic grid at its default 0.2% target is 10-100x finer than these
 * single rounds need (0.4-4 s per query).  Epsilon queries: the automatic
 * grid asked for the width check_pld checks (1%), with half of it as the
 * target: a fixed step cannot promise a width, and at Fig. 5's smallest
 * epsilons (2e-4 to 2e-3 nats) a step of eps/20 gave brackets 1.7% wide.
 * The bracket is valid for any grid; check_pld checks its width. */
#define STEP_DELTA 1e-3
#define EPS_ACCURACY 5e-3

/* ------------------------------------------------------------------------ */

static pld_participation_params params(double p, double q, int64_t d,
                                       double sigma)
{
  pld_participation_params par;
  par.p = p;
  par.q = q;
  par.d = d;
  par.clip = CLIP;
  par.sigma = sigma;
  return par;
}

/* An accountant holding one MWCS round: the q-subsampled Gaussian with
 * probability w_q, the rate_other-subsampled Gaussian otherwise (zero loss
 * if rate_other = 0), as a random selection with the choice visible. */
static pld_accountant *mwcs_accountant(const pld_participation_params *par,
                                       double discretization, double accuracy)
{
  double wq, r0;
  fig_status(&F, pld_participation_mwcs_mixture(par, &wq, &r0),
             "mwcs mixture");
  static const double one = 1.0;
  pld_mech *m[2] = {NULL, NULL}, *sel = NULL;
  if (r0 > 0.0)
    fig_status(&F, pld_mech_poisson_gaussian(r0, par->sigma, par->clip, &m[0]),
               "poisson gaussian (other)");
  else
    fig_status(&F, pld_mech_finite(1, &one, &one, &m[0]), "zero-loss pair");
  fig_status(&F, pld_mech_poisson_gaussian(par->q, par->sigma, par->clip, &m[1]),
             "poisson gaussian (q)");
  double w[2] = {1.0 - wq, wq};
  fig_status(&F, pld_mech_select(2, (const pld_mech *const *)m, w, &sel),
             "select");
  pld_params pp;
  pld_params_default(&pp);
  pp.discretization = discretization;
  if (accuracy > 0.0) {
    /* relative all the way down: the default absolute floor (1e-4 nats)
     * is half of Fig. 5's smallest epsilon */
    pp.accuracy = accuracy;
    pp.abs_accuracy = 1e-9;
  }
  pld_accountant *acc = NULL;
  fig_status(&F, pld_accountant_alloc(&pp, &acc), "accountant");
  fig_status(&F, pld_accountant_add(acc, sel, 1), "accountant add");
  pld_mech_free(sel);
  pld_mech_free(m[0]);
  pld_mech_free(m[1]);
  return acc;
}

static double closed_delta(const pld_participation_params *par, int an,
                           double eps, int upper)
{
  pld_bound b;
  fig_status(&F, pld_participation_delta(par, an, eps, &b), "closed delta");
  fig_check(&F, isfinite(b.lower) && isfinite(b.upper) && b.lower >= 0.0 &&
                    b.lower <= b.upper && b.upper <= 1.0,
            "closed-form delta bracket [%g, %g] (analysis %d, eps %g)",
            b.lower, b.upper, an, eps);
  return upper ? b.upper : b.lower;
}

static double closed_eps(const pld_participation_params *par, int an,
                         double delta, int upper)
{
  pld_bound b;
  fig_status(&F, pld_participation_epsilon(par, an, delta, &b), "closed eps");
  fig_check(&F, isfinite(b.upper) && b.lower >= 0.0 && b.lower <= b.upper,
            "closed-form epsilon bracket [%g, %g] (analysis %d, sigma %g)",
            b.lower, b.upper, an, par->sigma);
  return upper ? b.upper : b.lower;
}

/* Theorem 4.1's delta at eps, with its flag; checks the flag's consistency
 * with CS and the lower limit the library reports. */
static double thm41(const pld_participation_params *par, double eps,
                    int *cert)
{
  pld_participation_thm41 t;
  fig_status(&F, pld_participation_thm41_delta(par, eps, &t), "thm41");
  fig_check(&F, isfinite(t.delta) && t.delta >= 0.0 && t.delta <= 1.0 &&
                    isfinite(t.delta_err) && t.delta_err >= 0.0,
            "thm41 delta %g (err %g) at eps %g, d %lld", t.delta, t.delta_err,
            eps, (long long)par->d);
  fig_check(&F, t.below_cs == (t.delta < t.cs_delta),
            "thm41 below_cs flag %d but delta %g, CS %g", t.below_cs,
            t.delta, t.cs_delta);
  int refuted = t.below_cs || t.delta + t.delta_err < t.lower_limit;
  fig_check(&F, t.certified == !refuted,
            "thm41 certified flag %d inconsistent (delta %g, CS %g, limit %g)",
            t.certified, t.delta, t.cs_delta, t.lower_limit);
  *cert = t.certified;
  return t.delta;
}

static double lower_limit(const pld_participation_params *par, double eps)
{
  pld_participation_limit L;
  fig_status(&F, pld_participation_lower_limit(par, eps, &L), "lower limit");
  fig_check(&F, isfinite(L.delta) && L.delta >= 0.0 && L.delta <= 1.0 &&
                    L.delta >= L.cs_delta,
            "lower limit %g (CS %g) at eps %g", L.delta, L.cs_delta, eps);
  return L.delta;
}

/* A certified lower limit on the true epsilon(delta): the largest eps found
 * at which the certified lower limit of delta still exceeds the target
 * (there the protocol is not (eps, delta)-DP).  lo: such a point (or 0),
 * hi: an epsilon known to meet the target (a certified upper bound). */
static double ll_epsilon(const pld_participation_params *par, double delta,
                         double lo, double hi)
{
  if (!(lo > 0.0) || !(lower_limit(par, lo) > delta))
    lo = 0.0;
  for (int it = 0; it < 40 && hi - lo > 1e-4 * hi; it++) {
    double mid = 0.5 * (lo + hi);
    if (lower_limit(par, mid) > delta)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

static void check_pld(pld_bound b, double mwcs_lo, double mwcs_hi,
                      double cs, const char *what, double x)
{
  /* the grids resolve these single rounds to below 1% (epsilons: asked
   * for 0.5%; deltas above 1e-15 at the fixed step: below that the
   * truncation floor tail_mass = 1e-20 and the FFT's error floor take
   * over) */
  fig_check(&F, b.upper - b.lower <= 1e-2 * b.upper + 1e-15,
            "%s: PLD bracket [%g, %g] wider than 1%% at %g", what, b.lower,
            b.upper, x);
  fig_check(&F, isfinite(b.lower) && isfinite(b.upper) && b.lower >= 0.0 &&
                    b.lower <= b.upper,
            "%s: PLD bracket [%g, %g] not ordered/finite at %g", what,
            b.lower, b.upper, x);
  fig_check(&F, b.lower <= mwcs_hi * (1 + REL) + 1e-300 &&
                    b.upper >= mwcs_lo * (1 - REL),
            "%s: PLD bracket [%g, %g] misses MWCS closed form [%g, %g] at %g",
            what, b.lower, b.upper, mwcs_lo, mwcs_hi, x);
  fig_check(&F, b.upper >= cs * (1 - REL),
            "%s: PLD upper %g below CS lower limit %g at %g", what, b.upper,
            cs, x);
}

static void check_chain(const char *what, double x, double cs, double ll,
                        double mwcs, double pld_hi, double wcs, double ols)
{
  fig_check(&F, cs <= ll * (1 + REL) + 1e-300,
            "%s: lower limit %g below CS %g at %g", what, ll, cs, x);
  fig_check(&F, ll <= pld_hi * (1 + REL) + 1e-300,
            "%s: certified lower limit %g above certified PLD upper %g at %g",
            what, ll, pld_hi, x);
  fig_check(&F, cs <= mwcs * (1 + REL) + 1e-300 &&
                    mwcs <= wcs * (1 + REL) + 1e-300 &&
                    wcs <= ols * (1 + REL) + 1e-300,
            "%s: order CS %g <= MWCS %g <= WCS %g <= OLS %g fails at %g",
            what, cs, mwcs, wcs, ols, x);
}

/* Non-increasing within a relative slack (prev < 0: first point). */
static void check_mono(double prev, double cur, const char *what, double x)
{
  if (prev < 0.0)
    return;
  fig_check(&F, cur <= prev * (1 + 1e-6) + 1e-300,
            "%s not non-increasing: %g after %g at %g", what, cur, prev, x);
}

static void grid_lin(double *x, size_t n, double a, double b)
{
  for (size_t i = 0; i < n; i++)
    x[i] = n == 1 ? a : a + (b - a) * (double)i / (double)(n - 1);
}

static void grid_log(double *x, size_t n, double a, double b)
{
  for (size_t i = 0; i < n; i++)
    x[i] = n == 1 ? a
                  : exp(log(a) + (log(b) - log(a)) * (double)i / (double)(n - 1));
  x[n - 1] = b;
}

#define HEADER_PER_D(s)                                                       \
  "thm41_d" s ",thm41_cert_d" s ",mwcs_d" s ",pld_lo_d" s ",pld_hi_d" s       \
  ",ll_d" s
#define HEADER_TAIL                                                           \
  ",ols,wcs,cs," HEADER_PER_D("1") "," HEADER_PER_D("10") ","                 \
      HEADER_PER_D("100")

/* ------------------------------------------------------------------------ */
/* Fig. 1: delta vs epsilon at sigma = 1, p = q = 0.1.                       */

struct row {
  double thm, mwcs, pld_lo, pld_hi, ll;
  int cert;
};

static void fig1(void)
{
  const double p = 0.1, q = 0.1, sigma = 1.0;
  size_t n = F.tiny ? 4 : 60;
  double *eps = malloc(n * sizeof *eps);
  pld_bound *pb[ND];
  struct row *r[ND];
  if (!eps) {
    fprintf(stderr, "%s: out of memory\n", F.name);
    exit(1);
  }
  grid_lin(eps, n, 0.05, 3.0);
  for (int k = 0; k < ND; k++) {
    pb[k] = malloc(n * sizeof *pb[k]);
    r[k] = malloc(n * sizeof *r[k]);
    if (!pb[k] || !r[k]) {
      fprintf(stderr, "%s: out of memory\n", F.name);
      exit(1);
    }
    pld_participation_params par = params(p, q, DS[k], sigma);
    pld_accountant *acc = mwcs_accountant(&par, STEP_DELTA, 0.0);
    pld_result info;
    fig_status(&F, pld_accountant_curve(acc, n, eps, pb[k], &info),
               "fig1 PLD curve");
    pld_accountant_free(acc);
    for (size_t i = 0; i < n; i++) {
      r[k][i].thm = thm41(&par, eps[i], &r[k][i].cert);
      r[k][i].mwcs = closed_delta(&par, PLD_PARTICIPATION_MWCS, eps[i], 1);
      double mlo = closed_delta(&par, PLD_PARTICIPATION_MWCS, eps[i], 0);
      r[k][i].ll = lower_limit(&par, eps[i]);
      r[k][i].pld_lo = pb[k][i].lower;
      r[k][i].pld_hi = pb[k][i].upper;
      double cs = closed_delta(&par, PLD_PARTICIPATION_CS, eps[i], 0);
      check_pld(pb[k][i], mlo, r[k][i].mwcs, cs, "fig1", eps[i]);
      fig_progress(&F, "fig1", (size_t)k * n + i + 1, ND * n);
    }
  }
  FILE *c = fig_csv(&F, "participation_fig1", "eps" HEADER_TAIL);
  double prev[3 + ND] = {-1, -1, -1, -1, -1, -1};
  for (size_t i = 0; i < n; i++) {
    pld_participation_params par = params(p, q, 1, sigma);
    double ols = closed_delta(&par, PLD_PARTICIPATION_OLS, eps[i], 1);
    double wcs = closed_delta(&par, PLD_PARTICIPATION_WCS, eps[i], 1);
    double cs = closed_delta(&par, PLD_PARTICIPATION_CS, eps[i], 0);
    fprintf(c, "%.6g,%.10g,%.10g,%.10g", eps[i], ols, wcs, cs);
    check_mono(prev[0], ols, "fig1 OLS", eps[i]);
    check_mono(prev[1], wcs, "fig1 WCS", eps[i]);
    check_mono(prev[2], cs, "fig1 CS", eps[i]);
    prev[0] = ols;
    prev[1] = wcs;
    prev[2] = cs;
    for (int k = 0; k < ND; k++) {
      struct row *w = &r[k][i];
      fprintf(c, ",%.10g,%d,%.10g,%.10g,%.10g,%.10g", w->thm, w->cert,
              w->mwcs, w->pld_lo, w->pld_hi, w->ll);
      check_chain("fig1", eps[i], cs, w->ll, w->mwcs, w->pld_hi, wcs, ols);
      check_mono(prev[3 + k], w->pld_hi, "fig1 PLD upper", eps[i]);
      prev[3 + k] = w->pld_hi;
    }
    fputc('\n', c);
  }
  fig_close(&F, c);
  for (int k = 0; k < ND; k++) {
    free(pb[k]);
    free(r[k]);
  }
  free(eps);
}

/* ------------------------------------------------------------------------ */
/* Fig. 2: epsilon vs sigma at delta = 1e-5; Fig. 5: epsilon vs q at
 * p q = 1e-4.  One routine: row i has parameters (p_i, q_i, sigma_i).       */

static void eps_panel(const char *file, const char *xname, const char *tag,
                      size_t n, const double *x, const double *pv,
                      const double *qv, const double *sv, double delta)
{
  char hdr[1024];
  snprintf(hdr, sizeof hdr, "%s" HEADER_TAIL, xname);
  FILE *c = fig_csv(&F, file, hdr);
  double prev[3 + ND] = {-1, -1, -1, -1, -1, -1};
  int by_sigma = sv[0] != sv[n - 1];
  for (size_t i = 0; i < n; i++) {
    pld_participation_params par = params(pv[i], qv[i], 1, sv[i]);
    double ols = closed_eps(&par, PLD_PARTICIPATION_OLS, delta, 1);
    double wcs = closed_eps(&par, PLD_PARTICIPATION_WCS, delta, 1);
    double cs = closed_eps(&par, PLD_PARTICIPATION_CS, delta, 0);
    fprintf(c, "%.6g,%.10g,%.10g,%.10g", x[i], ols, wcs, cs);
    if (by_sigma) {
      check_mono(prev[0], ols, "OLS eps", x[i]);
      check_mono(prev[1], wcs, "WCS eps", x[i]);
      check_mono(prev[2], cs, "CS eps", x[i]);
    }
    prev[0] = ols;
    prev[1] = wcs;
    prev[2] = cs;
    for (int k = 0; k < ND; k++) {
      par.d = DS[k];
      double mwcs = closed_eps(&par, PLD_PARTICIPATION_MWCS, delta, 1);
      double mlo = closed_eps(&par, PLD_PARTICIPATION_MWCS, delta, 0);
      pld_accountant *acc = mwcs_accountant(&par, 0.0, EPS_ACCURACY);
      pld_result res;
      fig_status(&F, pld_accountant_epsilon(acc, delta, &res), "PLD epsilon");
      pld_accountant_free(acc);
      check_pld(res.bound, mlo * (1 - 1e-6), mwcs * (1 + 1e-6), cs, tag, x[i]);
      double th = closed_eps(&par, PLD_PARTICIPATION_THM41, delta, 1);
      int cert;
      (void)thm41(&par, th, &cert);
      double ll = ll_epsilon(&par, delta, cs, res.bound.upper);
      fprintf(c, ",%.10g,%d,%.10g,%.10g,%.10g,%.10g", th, cert, mwcs,
              res.bound.lower, res.bound.upper, ll);
      check_chain(tag, x[i], cs, ll, mwcs, res.bound.upper, wcs, ols);
      if (by_sigma)
        check_mono(prev[3 + k], res.bound.upper, "PLD eps upper", x[i]);
      prev[3 + k] = res.bound.upper;
      fig_progress(&F, tag, i * ND + (size_t)k + 1, n * ND);
    }
    fputc('\n', c);
    if (!by_sigma && pv[i] == 1.0) /* p = 1: every client participates */
      fig_check(&F, fabs(wcs - ols) <= 1e-6 * ols &&
                        fabs(cs - ols) <= 1e-6 * ols,
                "%s: at p = 1 WCS %g, CS %g should equal OLS %g", tag, wcs,
                cs, ols);
  }
  fig_close(&F, c);
}

/* ------------------------------------------------------------------------ */
/* Fig. 3: delta vs sigma at eps = 0.5, p = q = 0.1.                         */

static void fig3(void)
{
  const double p = 0.1, q = 0.1, eps = 0.5;
  size_t n = F.tiny ? 4 : 28;
  double *sig = malloc(n * sizeof *sig);
  if (!sig) {
    fprintf(stderr, "%s: out of memory\n", F.name);
    exit(1);
  }
  grid_log(sig, n, 0.5, 3.0);
  FILE *c = fig_csv(&F, "participation_fig3", "sigma" HEADER_TAIL);
  double prev[3 + ND] = {-1, -1, -1, -1, -1, -1};
  for (size_t i = 0; i < n; i++) {
    pld_participation_params par = params(p, q, 1, sig[i]);
    double ols = closed_delta(&par, PLD_PARTICIPATION_OLS, eps, 1);
    double wcs = closed_delta(&par, PLD_PARTICIPATION_WCS, eps, 1);
    double cs = closed_delta(&par, PLD_PARTICIPATION_CS, eps, 0);
    fprintf(c, "%.6g,%.10g,%.10g,%.10g", sig[i], ols, wcs, cs);
    check_mono(prev[0], ols, "fig3 OLS", sig[i]);
    check_mono(prev[1], wcs, "fig3 WCS", sig[i]);
    check_mono(prev[2], cs, "fig3 CS", sig[i]);
    prev[0] = ols;
    prev[1] = wcs;
    prev[2] = cs;
    for (int k = 0; k < ND; k++) {
      par.d = DS[k];
      pld_accountant *acc = mwcs_accountant(&par, STEP_DELTA, 0.0);
      pld_result res;
      fig_status(&F, pld_accountant_delta(acc, eps, &res), "fig3 PLD delta");
      pld_accountant_free(acc);
      double mwcs = closed_delta(&par, PLD_PARTICIPATION_MWCS, eps, 1);
      double mlo = closed_delta(&par, PLD_PARTICIPATION_MWCS, eps, 0);
      check_pld(res.bound, mlo, mwcs, cs, "fig3", sig[i]);
      int cert;
      double th = thm41(&par, eps, &cert);
      double ll = lower_limit(&par, eps);
      fprintf(c, ",%.10g,%d,%.10g,%.10g,%.10g,%.10g", th, cert, mwcs,
              res.bound.lower, res.bound.upper, ll);
      check_chain("fig3", sig[i], cs, ll, mwcs, res.bound.upper, wcs, ols);
      if (res.bound.upper > 1e-18) /* above the truncation floor (tail_mass) */
        check_mono(prev[3 + k], res.bound.upper, "fig3 PLD upper", sig[i]);
      prev[3 + k] = res.bound.upper;
      fig_progress(&F, "fig3", i * ND + (size_t)k + 1, n * ND);
    }
    fputc('\n', c);
  }
  fig_close(&F, c);
  free(sig);
}

static void fig2(void)
{
  size_t n = F.tiny ? 4 : 28;
  double *sig = malloc(n * sizeof *sig), *pv = malloc(n * sizeof *pv),
         *qv = malloc(n * sizeof *qv);
  if (!sig || !pv || !qv) {
    fprintf(stderr, "%s: out of memory\n", F.name);
    exit(1);
  }
  grid_log(sig, n, 0.5, 5.0);
  for (size_t i = 0; i < n; i++) {
    pv[i] = 0.1;
    qv[i] = 0.1;
  }
  eps_panel("participation_fig2", "sigma", "fig2", n, sig, pv, qv, sig, 1e-5);
  free(sig);
  free(pv);
  free(qv);
}

static void fig5(void)
{
  size_t n = F.tiny ? 4 : 49;
  double *qv = malloc(n * sizeof *qv), *pv = malloc(n * sizeof *pv),
         *sv = malloc(n * sizeof *sv);
  if (!qv || !pv || !sv) {
    fprintf(stderr, "%s: out of memory\n", F.name);
    exit(1);
  }
  grid_log(qv, n, 1e-4, 1.0);
  qv[0] = 1e-4;
  /* --tiny keeps the full run's narrowest point for the width check:
   * q = 10^(-7/12), point 41 of 49 (epsilon 1.7e-3 nats) */
  if (F.tiny)
    qv[2] = pow(10.0, -7.0 / 12.0);
  for (size_t i = 0; i < n; i++) {
    pv[i] = fmin(1.0, 1e-4 / qv[i]);
    sv[i] = 1.0;
  }
  eps_panel("participation_fig5", "q", "fig5", n, qv, pv, qv, sv, 1e-5);
  free(qv);
  free(pv);
  free(sv);
}

int main(int argc, char **argv)
{
  fig_init(&F, "fig_participation", argc, argv);
  fig1();
  fig2();
  fig3();
  fig5();
  return fig_done(&F);
}
