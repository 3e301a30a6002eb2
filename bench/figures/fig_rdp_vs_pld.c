/* RDP vs PLD on standard DP-SGD deployments (issue: the comparison suite).
 *
 * The Poisson-subsampled Gaussian, sampling rate q, noise multiplier sigma
 * (sensitivity 1), T steps, delta = 1e-5:
 *   rdp_vs_pld.csv        q, sigma, T, epochs = qT, the RDP epsilon
 *                         (improved conversion, Canonne-Kamath-Steinke /
 *                         Asoodeh et al., over the default 157 orders) with
 *                         its order, the PLD bracket [lower, upper], and
 *                         ratio = eps_rdp / eps_pld_upper (how much RDP
 *                         over-reports against the certified PLD answer);
 *   rdp_vs_pld_sigma.csv  q, T, target epsilon in {1, 2, 4, 8}: the sigma
 *                         each backend needs (calibrated on its certified
 *                         upper epsilon, relative tolerance 1e-3, so both
 *                         are never over budget) and their ratio.
 * Grid: q in {0.001, 0.01, 0.1}, sigma in {0.6, 0.8, 1, 2},
 * T in {1e2, 1e3, 1e4}.  --tiny: q = 0.01, sigma = 1, T = 100, target 2.
 *
 * Checks (a failure exits 1): the PLD bracket is ordered; its LOWER end is
 * never above the RDP epsilon (lower <= truth <= RDP: a violated check means
 * one of the two backends is wrong); each calibrated sigma meets its target;
 * the PLD sigma is not above the RDP sigma by more than the tolerances. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include <pldkit/pldkit.h>

#include "figcommon.h"
#include "../benchutil.h"

#define DELTA 1e-5
#define TOL 1e-3

struct dpsgd {
  double q;
  uint64_t T;
};

static int build(double sigma, void *ctx, pld_accountant **out)
{
  const struct dpsgd *s = ctx;
  pld_mech *m = NULL;
  pld_accountant *acc = NULL;
  int st = pld_mech_poisson_gaussian(s->q, sigma, 1.0, &m);
  if (!st)
    st = pld_accountant_alloc(NULL, &acc);
  if (!st)
    st = pld_accountant_add(acc, m, s->T);
  pld_mech_free(m);
  if (st) {
    pld_accountant_free(acc);
    return st;
  }
  *out = acc;
  return PLD_SUCCESS;
}

static int rdp_eps(double q, double sigma, uint64_t T, pld_rdp_result *r)
{
  pld_rdp_curve *c = NULL;
  int st = pld_rdp_curve_alloc_default(&c);
  if (!st)
    st = pld_rdp_add_poisson_gaussian(c, q, sigma, 1.0, T);
  if (!st)
    st = pld_rdp_epsilon(c, DELTA, PLD_RDP_IMPROVED, r);
  pld_rdp_curve_free(c);
  return st;
}

/* The smallest sigma (within TOL) whose RDP epsilon meets `target`: the
 * RDP epsilon falls as sigma grows; bracket by doubling, then bisect in
 * log sigma and return the passing end. */
static int rdp_sigma(double q, uint64_t T, double target, double *sigma)
{
  pld_rdp_result r;
  double lo = 1.0, hi = 1.0;
  int st = rdp_eps(q, hi, T, &r);
  if (st)
    return st;
  if (r.value <= target) {
    do {
      hi = lo;
      lo /= 2;
      if ((st = rdp_eps(q, lo, T, &r)))
        return st;
    } while (r.value <= target && lo > 1e-3);
  } else {
    do {
      lo = hi;
      hi *= 2;
      if ((st = rdp_eps(q, hi, T, &r)))
        return st;
    } while (r.value > target && hi < 1e6);
  }
  while (hi / lo > 1 + TOL) {
    double mid = sqrt(lo * hi);
    if ((st = rdp_eps(q, mid, T, &r)))
      return st;
    if (r.value <= target)
      hi = mid;
    else
      lo = mid;
  }
  *sigma = hi;
  return PLD_SUCCESS;
}

int main(int argc, char **argv)
{
  struct fig f;
  fig_init(&f, "fig_rdp_vs_pld", argc, argv);
  static const double qs_full[] = {0.001, 0.01, 0.1};
  static const double sig_full[] = {0.6, 0.8, 1.0, 2.0};
  static const uint64_t Ts_full[] = {100, 1000, 10000};
  static const double tgt_full[] = {1, 2, 4, 8};
  static const double qs_tiny[] = {0.01}, sig_tiny[] = {1.0}, tgt_tiny[] = {2};
  static const uint64_t Ts_tiny[] = {100};
  const double *qs = f.tiny ? qs_tiny : qs_full;
  const double *sigs = f.tiny ? sig_tiny : sig_full;
  const uint64_t *Ts = f.tiny ? Ts_tiny : Ts_full;
  const double *tgts = f.tiny ? tgt_tiny : tgt_full;
  size_t nq = f.tiny ? 1 : 3, ns = f.tiny ? 1 : 4, nT = f.tiny ? 1 : 3,
         nt = f.tiny ? 1 : 4;

  FILE *csv = fig_csv(&f, "rdp_vs_pld",
                      "q,sigma,T,epochs,delta,eps_rdp,rdp_order,"
                      "eps_pld_lower,eps_pld_upper,ratio,pld_seconds,"
                      "rdp_seconds");
  size_t done = 0, total = nq * ns * nT;
  for (size_t i = 0; i < nq; i++)
    for (size_t j = 0; j < ns; j++)
      for (size_t k = 0; k < nT; k++) {
        struct dpsgd s = {qs[i], Ts[k]};
        pld_accountant *acc = NULL;
        pld_result pr;
        pld_rdp_result rr;
        double t0 = bench_wall();
        fig_status(&f, build(sigs[j], &s, &acc), "PLD accountant");
        fig_status(&f, pld_accountant_epsilon(acc, DELTA, &pr), "PLD epsilon");
        pld_accountant_free(acc);
        double t1 = bench_wall();
        fig_status(&f, rdp_eps(qs[i], sigs[j], Ts[k], &rr), "RDP epsilon");
        double t2 = bench_wall();
        fig_check(&f, pr.bound.lower <= pr.bound.upper,
                  "q=%g sigma=%g T=%llu: PLD bracket [%g, %g] not ordered",
                  qs[i], sigs[j], (unsigned long long)Ts[k], pr.bound.lower,
                  pr.bound.upper);
        fig_check(&f, pr.bound.lower <= rr.value * (1 + 1e-12),
                  "q=%g sigma=%g T=%llu: PLD lower %.10g above the RDP bound "
                  "%.10g", qs[i], sigs[j], (unsigned long long)Ts[k],
                  pr.bound.lower, rr.value);
        fprintf(csv, "%g,%g,%llu,%g,%g,%.10g,%g,%.10g,%.10g,%.6g,%.4g,%.4g\n",
                qs[i], sigs[j], (unsigned long long)Ts[k],
                qs[i] * (double)Ts[k], DELTA, rr.value, rr.order,
                pr.bound.lower, pr.bound.upper, rr.value / pr.bound.upper,
                t1 - t0, t2 - t1);
        fig_progress(&f, "epsilon", ++done, total);
      }
  fig_close(&f, csv);

  csv = fig_csv(&f, "rdp_vs_pld_sigma",
                "q,T,delta,target_eps,sigma_rdp,sigma_pld,ratio,"
                "pld_eps_upper_at_sigma,pld_evaluations,pld_seconds");
  done = 0;
  total = nq * nT * nt;
  for (size_t i = 0; i < nq; i++)
    for (size_t k = 0; k < nT; k++)
      for (size_t t = 0; t < nt; t++) {
        struct dpsgd s = {qs[i], Ts[k]};
        double sr = NAN;
        pld_calibration cal;
        fig_status(&f, rdp_sigma(qs[i], Ts[k], tgts[t], &sr),
                   "RDP calibration");
        double t0 = bench_wall();
        fig_status(&f, pld_calibrate(build, &s, tgts[t], DELTA, 1.0, TOL,
                                     NULL, NULL, &cal),
                   "PLD calibration");
        double t1 = bench_wall();
        pld_rdp_result rr;
        fig_status(&f, rdp_eps(qs[i], sr, Ts[k], &rr), "RDP epsilon");
        fig_check(&f, rr.value <= tgts[t],
                  "RDP sigma %g misses the target %g (eps %g)", sr, tgts[t],
                  rr.value);
        fig_check(&f, cal.at_param.bound.upper <= tgts[t],
                  "PLD sigma %g misses the target %g (eps %g)", cal.param,
                  tgts[t], cal.at_param.bound.upper);
        fig_check(&f, cal.param <= sr * (1 + 3 * TOL),
                  "q=%g T=%llu eps=%g: PLD needs sigma %g > RDP's %g",
                  qs[i], (unsigned long long)Ts[k], tgts[t], cal.param, sr);
        fprintf(csv, "%g,%llu,%g,%g,%.6g,%.6g,%.5g,%.8g,%u,%.4g\n", qs[i],
                (unsigned long long)Ts[k], DELTA, tgts[t], sr, cal.param,
                sr / cal.param, cal.at_param.bound.upper, cal.evaluations,
                t1 - t0);
        fig_progress(&f, "calibration", ++done, total);
      }
  fig_close(&f, csv);
  return fig_done(&f);
}
