/* fig_splitting: the figures of Dong, Chen, Ozgur, "Leveraging randomness in
 * model and data partitioning for privacy amplification" (the splitting
 * paper; docs/papers/splitting.md), recomputed
 * with pldkit's public API.  See bench/figures/splitting.md for paper vs
 * pldkit, and docs/papers-rdp.md for which formulas are exact, corrected, or
 * not bounds.
 *
 * Conventions for every CSV: clipping norm / sensitivity c = 1, so sigma is
 * the noise multiplier; RDP values and epsilon in nats; RDP is converted to
 * (epsilon, delta) with the paper's Prop. 2.3 (pldkit's PLD_RDP_CLASSIC),
 * minimised over the integer orders alpha = 2, 3, ..., 64 (the paper's
 * Thm 3.1 holds at integer orders; it names no grid).  "paper" columns use
 * the paper's recipe: eq. (2) first term where pldkit can evaluate it exactly
 * (it IS the exact forward divergence, docs/papers/splitting.md reading), else eq. (3) first
 * term, max the paper's reverse term (which is NOT a valid bound, docs/papers/splitting.md);
 * "sound" columns use pldkit's sound value (pld_rdp_model_splitting_curve:
 * exact / eq. (3) / group bound forward, exact or group-bound reverse).  A
 * cell "nan" means "not computable" (e.g. eq. (2) beyond pldkit's cost cap).
 *
 * splitting_fig1.csv  (paper Fig. 1): model splitting + Poisson subsampling,
 *   rate gamma = 0.1, T = 1200 steps, delta = 1e-5, d in {2, 4, 6, 8}
 *   submodels.  One row per noise multiplier sigma (22 points, geometric,
 *   0.8..16); the paper plots sigma against epsilon, so each column is the
 *   epsilon a curve reaches at that sigma.  Columns:
 *     sigma, eps_nosplit_rdp (baseline: Thm 3.11 composed, the paper's
 *     "without amplification"), eps_nosplit_pld_lo/_hi (pldkit extra: the
 *     same Poisson-subsampled Gaussian by PLD, a certified bracket),
 *     eps_split_d2 .. eps_split_d8 (pldkit's sound reading of the combined
 *     pair, pld_rdp_poisson_split, both directions, composed 1200 times).
 * splitting_fig2.csv  (paper Fig. 2 = Fig. 7a): RDP curves epsilon(alpha) of
 *   one whole run, Balanced Iteration Subsampling (BIS) with T = 1000, k = 100
 *   vs Poisson with gamma = k/T = 0.1 (Thm 3.11 composed T times), sigma = 2,
 *   integer alpha = 2..128.  Columns: alpha, poisson, bis_paper, bis_sound,
 *   bis_fwd_exact (eq. (2), nan where not computable), bis_fwd_eq3,
 *   bis_rev_paper, bis_fwd_sound, bis_rev_sound.
 * splitting_fig3.csv  (paper Fig. 3): same columns, T = 10, k = 4, sigma = 2.
 * splitting_fig4.csv  (paper Fig. 4): delta(epsilon = 10) against the number
 *   of iterations T = 10, 20, ..., 120, sigma = 2, gamma = k/T = 0.4.
 *   Columns:
 *     T, k, bis_paper, bis_sound (one BIS run with k = 0.4 T),
 *     bis_epochs_paper, bis_epochs_sound (Remark 3.10: T/10 epochs of BIS
 *     with (10, 4), composed in RDP), poisson_rdp (Thm 3.11 composed),
 *     poisson_pld_lo/_hi (pldkit's PLD accountant, the paper's "Google PLD"
 *     curve; certified bracket), bis_pld_lo/_hi (one BIS run by PLD,
 *     pld_accountant_add_allocation: certified bracket, upper end from the
 *     group reduction), bis_epochs_pld_lo/_hi (the T/10 epochs of (10, 4)
 *     by PLD).
 * splitting_fig8a.csv (paper Fig. 8a): epsilon(delta = 1e-6) against sigma,
 *   BIS T = 10, k = 5 vs Poisson gamma = 0.5, sigma = 0.6..6 (20 points,
 *   geometric).  Columns: sigma, bis_paper, bis_sound, poisson_rdp,
 *   poisson_pld_lo, poisson_pld_hi, bis_pld_lo, bis_pld_hi (BIS by PLD as
 *   in Fig. 4).
 * splitting_fig8b.csv (paper Fig. 8b): same, T = 1500, k = 120 (gamma =
 *   0.08), delta = 1e-4, sigma = 0.8..4.
 *
 * The sigma ranges and the alpha ranges are not stated in the paper; they are
 * chosen here (see splitting.md).  --tiny keeps every figure but shrinks
 * the sigma / T grids to 2 points and the order grids to 2..10-40.
 * Figs. 5-7 (more parameter sets of the same curves) are not generated.
 *
 * Checks (exit 1 if one fails): values finite; the split pair never above
 * the unsplit Poisson pair at any order (forgetting the submodel index is a
 * post-processing); pld_rdp_poisson_split with d = 1 equals Thm 3.11; the
 * PLD epsilon (upper end) never above the RDP one for the same Poisson
 * mechanism, and for delta the PLD lower end never above the RDP delta (the
 * upper end only above the PLD's ~1e-11 error floor); RDP-converted
 * epsilon non-increasing in sigma and delta non-decreasing in T for the
 * Poisson curves; eq. (2) <= eq. (3) where both exist; the hand-assembled
 * paper recipe equals pld_rdp_bis's epsilon_paper; the BIS PLD lower end
 * never above the sound BIS RDP value, and its bracket either met the
 * accuracy or stopped at the mechanism's own gap; the curve routine equals
 * the scalar one; the sound BIS never above the no-amplification Gaussian
 * value; the optimal order is not the last of the grid (the grid is wide
 * enough).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pldkit/pldkit.h>

#include "figcommon.h"

#define C_NORM 1.0       /* clipping norm / sensitivity */
#define CONV_AMAX 64     /* conversion grid: integer orders 2..CONV_AMAX */
#define CURVE_AMAX 128   /* Figs. 2, 3: integer orders 2..CURVE_AMAX */
#define NORD_MAX (CURVE_AMAX - 1)

/* ------------------------------------------------------------------------ */
/* Helpers.                                                                  */

static size_t int_orders(double *o, int amax)
{
  size_t n = 0;
  for (int a = 2; a <= amax; a++)
    o[n++] = a;
  return n;
}

/* A curve on orders[0..n) holding count * per_step (rounded upward). */
static pld_rdp_curve *rdp_curve(struct fig *f, const double *orders, size_t n,
                                const double *per_step, uint64_t count)
{
  pld_rdp_curve *c = NULL;
  fig_status(f, pld_rdp_curve_alloc(n, orders, &c), "pld_rdp_curve_alloc");
  fig_status(f, pld_rdp_curve_add_values(c, per_step, count),
             "pld_rdp_curve_add_values");
  return c;
}

/* epsilon(delta) by Prop. 2.3; checks that the grid was wide enough. */
static double rdp_eps(struct fig *f, const double *orders, size_t n,
                      const double *per_step, uint64_t count, double delta,
                      const char *what)
{
  pld_rdp_curve *c = rdp_curve(f, orders, n, per_step, count);
  pld_rdp_result r;
  fig_status(f, pld_rdp_epsilon(c, delta, PLD_RDP_CLASSIC, &r),
             "pld_rdp_epsilon");
  pld_rdp_curve_free(c);
  fig_check(f, isfinite(r.value) && r.value >= 0, "%s: epsilon %g", what,
            r.value);
  fig_check(f, r.index + 1 != n, "%s: optimal order %g is the last of the grid",
            what, r.order);
  return r.value;
}

/* delta(epsilon) by Prop. 2.3 (the mirror of rdp_eps). */
static double rdp_delta(struct fig *f, const double *orders, size_t n,
                        const double *per_step, uint64_t count, double eps,
                        const char *what)
{
  pld_rdp_curve *c = rdp_curve(f, orders, n, per_step, count);
  pld_rdp_result r;
  fig_status(f, pld_rdp_delta(c, eps, PLD_RDP_CLASSIC, &r), "pld_rdp_delta");
  pld_rdp_curve_free(c);
  fig_check(f, r.value >= 0 && r.value <= 1, "%s: delta %g", what, r.value);
  fig_check(f, r.value >= 1 || r.index + 1 != n,
            "%s: optimal order %g is the last of the grid", what, r.order);
  return r.value;
}

/* Thm 3.11 (one step of the Poisson-subsampled Gaussian) at orders[0..n). */
static void poisson_step(struct fig *f, const double *orders, size_t n,
                         double gamma, double sigma, double *out)
{
  pld_rdp_curve *c = NULL;
  fig_status(f, pld_rdp_curve_alloc(n, orders, &c), "pld_rdp_curve_alloc");
  fig_status(f, pld_rdp_add_poisson_gaussian(c, gamma, sigma, C_NORM, 1),
             "pld_rdp_add_poisson_gaussian");
  memcpy(out, pld_rdp_curve_values(c), n * sizeof *out);
  pld_rdp_curve_free(c);
}

/* The Poisson-subsampled Gaussian composed T times, by PLD. */
static pld_accountant *poisson_pld(struct fig *f, double gamma, double sigma,
                                   uint64_t T)
{
  pld_mech *m = NULL;
  pld_accountant *acc = NULL;
  fig_status(f, pld_mech_poisson_gaussian(gamma, sigma, C_NORM, &m),
             "pld_mech_poisson_gaussian");
  fig_status(f, pld_accountant_alloc(NULL, &acc), "pld_accountant_alloc");
  fig_status(f, pld_accountant_add(acc, m, T), "pld_accountant_add");
  pld_mech_free(m);
  return acc;
}

static pld_bound pld_eps(struct fig *f, double gamma, double sigma,
                         uint64_t T, double delta)
{
  pld_accountant *acc = poisson_pld(f, gamma, sigma, T);
  pld_result r;
  fig_status(f, pld_accountant_epsilon(acc, delta, &r),
             "pld_accountant_epsilon");
  pld_accountant_free(acc);
  return r.bound;
}

static pld_bound pld_delta(struct fig *f, double gamma, double sigma,
                           uint64_t T, double eps)
{
  pld_accountant *acc = poisson_pld(f, gamma, sigma, T);
  pld_result r;
  fig_status(f, pld_accountant_delta(acc, eps, &r), "pld_accountant_delta");
  pld_accountant_free(acc);
  return r.bound;
}

/* BIS (k-out-of-T random allocation), `epochs` epochs, by PLD
 * (pld_accountant_add_allocation): a certified bracket.  For 1 < k < T its
 * upper end is the split's (the k one-of-floor/ceil(T/k) groups, paired
 * into blocks of two where tighter), its lower end a projection of the run
 * (the summed output's Gaussian times a Gaussian mixture): far apart, and
 * the accountant stops refining at that gap (width_limit). */
static pld_bound bis_pld(struct fig *f, int64_t T, int64_t k, double sigma,
                         uint64_t epochs, int want_delta, double x)
{
  pld_accountant *acc = NULL;
  pld_result r;
  fig_status(f, pld_accountant_alloc(NULL, &acc), "pld_accountant_alloc");
  fig_status(f, pld_accountant_add_allocation(acc, (uint64_t)T, (uint64_t)k,
                                              sigma, C_NORM, epochs),
             "pld_accountant_add_allocation");
  if (want_delta)
    fig_status(f, pld_accountant_delta(acc, x, &r), "pld_accountant_delta");
  else
    fig_status(f, pld_accountant_epsilon(acc, x, &r),
               "pld_accountant_epsilon");
  pld_accountant_free(acc);
  fig_check(f, r.bound.lower <= r.bound.upper &&
                   (r.met_accuracy || r.width_limit == PLD_WIDTH_MECHANISM ||
                    !(r.bound.upper > 1e-9)),
            "BIS(%lld, %lld) sigma %g: PLD [%g, %g], met %d, limit %d",
            (long long)T, (long long)k, sigma, r.bound.lower, r.bound.upper,
            r.met_accuracy, r.width_limit);
  return r.bound;
}

/* The paper's recipe for BIS(d = T, k) at integer orders: eq. (2) first term
 * where computable (PLD_ERANGE beyond the cost cap), else eq. (3) first
 * term; max with the paper's reverse term (not a bound). */
static void bis_paper(struct fig *f, const double *orders, size_t n,
                      int64_t T, int64_t k, double sigma, double *out)
{
  for (size_t i = 0; i < n; i++) {
    double fw, rv;
    int st = pld_rdp_split_forward_exact(orders[i], T, k, sigma, C_NORM, &fw);
    if (st == PLD_ERANGE)
      st = pld_rdp_split_forward_eq3(orders[i], T, k, sigma, C_NORM, &fw);
    fig_status(f, st, "BIS forward (eq. 2 / eq. 3)");
    fig_status(f, pld_rdp_split_reverse_paper(orders[i], T, k, sigma, C_NORM,
                                              &rv),
               "pld_rdp_split_reverse_paper");
    out[i] = fw > rv ? fw : rv;
  }
}

static void bis_sound(struct fig *f, const double *orders, size_t n,
                      int64_t T, int64_t k, double sigma, double *out)
{
  fig_status(f, pld_rdp_model_splitting_curve(n, orders, T, k, sigma, C_NORM,
                                              out),
             "pld_rdp_model_splitting_curve");
  for (size_t i = 0; i < n; i++)
    fig_check(f, isfinite(out[i]) && out[i] >= 0,
              "BIS(%lld, %lld) sigma %g alpha %g: sound %g", (long long)T,
              (long long)k, sigma, orders[i], out[i]);
}

static int rel_close(double a, double b, double tol)
{
  return fabs(a - b) <= tol * fmax(fabs(a), fabs(b)) + 1e-300;
}

/* A geometric grid lo..hi with n points. */
static double geom(double lo, double hi, size_t i, size_t n)
{
  return n == 1 ? lo : lo * pow(hi / lo, (double)i / (double)(n - 1));
}

/* ------------------------------------------------------------------------ */
/* Fig. 1: sigma vs epsilon, Poisson (0.1) + splitting, T = 1200.            */

static void fig1(struct fig *f)
{
  const double gamma = 0.1, delta = 1e-5;
  const uint64_t T = 1200;
  const int ds[4] = {2, 4, 6, 8};
  const size_t ns = f->tiny ? 2 : 22;
  const double slo = f->tiny ? 2.5 : 0.8, shi = f->tiny ? 4.0 : 16.0;
  double orders[NORD_MAX], base[NORD_MAX], split[NORD_MAX];
  size_t n = int_orders(orders, f->tiny ? 24 : CONV_AMAX);
  double prev[6];
  for (int j = 0; j < 6; j++)
    prev[j] = INFINITY;

  FILE *csv = fig_csv(f, "splitting_fig1",
                      "sigma,eps_nosplit_rdp,eps_nosplit_pld_lo,"
                      "eps_nosplit_pld_hi,eps_split_d2,eps_split_d4,"
                      "eps_split_d6,eps_split_d8");
  for (size_t i = 0; i < ns; i++) {
    fig_progress(f, "fig1", i, ns);
    double sigma = geom(slo, shi, i, ns);
    poisson_step(f, orders, n, gamma, sigma, base);
    double e_base = rdp_eps(f, orders, n, base, T, delta, "fig1 baseline");
    pld_bound pb = pld_eps(f, gamma, sigma, T, delta);
    fig_check(f, pb.upper <= e_base,
              "fig1 sigma %g: PLD epsilon %g above RDP %g", sigma, pb.upper,
              e_base);
    fig_check(f, e_base <= prev[0] && pb.upper <= prev[1] * (1 + 1e-9),
              "fig1 sigma %g: baseline epsilon not non-increasing in sigma",
              sigma);
    prev[0] = e_base;
    prev[1] = pb.upper;
    /* d = 1 of the combined pair is Thm 3.11 (at alpha = 8). */
    {
      pld_rdp_pair_terms t;
      fig_status(f, pld_rdp_poisson_split(8.0, gamma, 1, sigma, C_NORM, &t),
                 "pld_rdp_poisson_split");
      fig_check(f, rel_close(t.epsilon, base[6], 1e-8),
                "fig1 sigma %g: poisson_split(d = 1) %.12g != Thm 3.11 %.12g",
                sigma, t.epsilon, base[6]);
    }
    fprintf(csv, "%.6g,%.8g,%.8g,%.8g", sigma, e_base, pb.lower, pb.upper);
    for (int j = 0; j < 4; j++) {
      for (size_t a = 0; a < n; a++) {
        pld_rdp_pair_terms t;
        fig_status(f, pld_rdp_poisson_split(orders[a], gamma, ds[j], sigma,
                                            C_NORM, &t),
                   "pld_rdp_poisson_split");
        split[a] = t.epsilon;
        fig_check(f, isfinite(t.epsilon) && t.epsilon <= base[a] * (1 + 1e-9),
                  "fig1 sigma %g d %d alpha %g: split %g above unsplit %g",
                  sigma, ds[j], orders[a], t.epsilon, base[a]);
      }
      double e = rdp_eps(f, orders, n, split, T, delta, "fig1 split");
      fig_check(f, e <= e_base, "fig1 sigma %g d %d: epsilon %g above %g",
                sigma, ds[j], e, e_base);
      fig_check(f, e <= prev[2 + j],
                "fig1 d %d: epsilon not non-increasing in sigma", ds[j]);
      prev[2 + j] = e;
      fprintf(csv, ",%.8g", e);
    }
    fputc('\n', csv);
  }
  fig_progress(f, "fig1", ns, ns);
  fig_close(f, csv);
}

/* ------------------------------------------------------------------------ */
/* Figs. 2, 3: RDP curves of one run, BIS vs Poisson.                        */

static void fig_rdp_curves(struct fig *f, const char *file, int64_t T,
                           int64_t k, double sigma)
{
  double orders[NORD_MAX], pois[NORD_MAX], paper[NORD_MAX], sound[NORD_MAX];
  size_t n = int_orders(orders, f->tiny ? 10 : CURVE_AMAX);
  double gamma = (double)k / (double)T;
  poisson_step(f, orders, n, gamma, sigma, pois);
  bis_paper(f, orders, n, T, k, sigma, paper);
  bis_sound(f, orders, n, T, k, sigma, sound);
  pld_rdp_curve *pc = rdp_curve(f, orders, n, pois, (uint64_t)T);
  const double *pv = pld_rdp_curve_values(pc);

  FILE *csv = fig_csv(f, file,
                      "alpha,poisson,bis_paper,bis_sound,bis_fwd_exact,"
                      "bis_fwd_eq3,bis_rev_paper,bis_fwd_sound,bis_rev_sound");
  for (size_t i = 0; i < n; i++) {
    fig_progress(f, file, i, n);
    pld_rdp_split_terms t;
    fig_status(f, pld_rdp_bis(orders[i], T, k, sigma, C_NORM, &t),
               "pld_rdp_bis");
    fig_check(f, rel_close(t.epsilon_paper, paper[i], 1e-12),
              "%s alpha %g: paper recipe %.12g != epsilon_paper %.12g", file,
              orders[i], paper[i], t.epsilon_paper);
    fig_check(f, rel_close(t.epsilon, sound[i], 1e-6),
              "%s alpha %g: curve %.12g != scalar %.12g", file, orders[i],
              sound[i], t.epsilon);
    fig_check(f, isnan(t.forward_exact) ||
                     t.forward_exact <= t.forward_eq3 * (1 + 1e-9),
              "%s alpha %g: eq. (2) %g above eq. (3) %g", file, orders[i],
              t.forward_exact, t.forward_eq3);
    fig_check(f, isfinite(pv[i]) && (i == 0 || pv[i] >= pv[i - 1]),
              "%s alpha %g: Poisson RDP %g not finite / non-decreasing", file,
              orders[i], pv[i]);
    fig_check(f, t.epsilon <= orders[i] * (double)k * C_NORM * C_NORM /
                                  (2 * sigma * sigma) * (1 + 1e-12),
              "%s alpha %g: sound BIS %g above the Gaussian value", file,
              orders[i], t.epsilon);
    fprintf(csv, "%g,%.8g,%.8g,%.8g,%.8g,%.8g,%.8g,%.8g,%.8g\n", orders[i],
            pv[i], paper[i], t.epsilon, t.forward_exact, t.forward_eq3,
            t.reverse_paper, t.forward, t.reverse);
  }
  fig_progress(f, file, n, n);
  pld_rdp_curve_free(pc);
  fig_close(f, csv);
}

/* ------------------------------------------------------------------------ */
/* Fig. 4: delta(eps = 10) vs T, gamma = k/T = 0.4, sigma = 2.               */

static void fig4(struct fig *f)
{
  const double sigma = 2.0, eps = 10.0, gamma = 0.4;
  const int64_t T_epoch = 10, k_epoch = 4;
  const int nT = f->tiny ? 2 : 12;
  double orders[NORD_MAX], paper[NORD_MAX], sound[NORD_MAX];
  double ep_paper[NORD_MAX], ep_sound[NORD_MAX], pois[NORD_MAX];
  size_t n = int_orders(orders, f->tiny ? 40 : CONV_AMAX);
  double prev_rdp = 0, prev_pld = 0;

  bis_paper(f, orders, n, T_epoch, k_epoch, sigma, ep_paper);
  bis_sound(f, orders, n, T_epoch, k_epoch, sigma, ep_sound);
  poisson_step(f, orders, n, gamma, sigma, pois);

  FILE *csv = fig_csv(f, "splitting_fig4",
                      "T,k,bis_paper,bis_sound,bis_epochs_paper,"
                      "bis_epochs_sound,poisson_rdp,poisson_pld_lo,"
                      "poisson_pld_hi,bis_pld_lo,bis_pld_hi,"
                      "bis_epochs_pld_lo,bis_epochs_pld_hi");
  for (int i = 1; i <= nT; i++) {
    fig_progress(f, "fig4", (size_t)i - 1, (size_t)nT);
    int64_t T = T_epoch * i, k = k_epoch * i;
    uint64_t epochs = (uint64_t)i;
    if (i == 1) { /* one epoch is the whole run */
      memcpy(paper, ep_paper, n * sizeof *paper);
      memcpy(sound, ep_sound, n * sizeof *sound);
    } else {
      bis_paper(f, orders, n, T, k, sigma, paper);
      bis_sound(f, orders, n, T, k, sigma, sound);
    }
    double d_paper = rdp_delta(f, orders, n, paper, 1, eps, "fig4 BIS paper");
    double d_sound = rdp_delta(f, orders, n, sound, 1, eps, "fig4 BIS sound");
    double d_ep_paper =
        rdp_delta(f, orders, n, ep_paper, epochs, eps, "fig4 epochs paper");
    double d_ep_sound =
        rdp_delta(f, orders, n, ep_sound, epochs, eps, "fig4 epochs sound");
    double d_rdp = rdp_delta(f, orders, n, pois, (uint64_t)T, eps,
                             "fig4 Poisson RDP");
    pld_bound pb = pld_delta(f, gamma, sigma, (uint64_t)T, eps);
    /* lower <= true delta <= RDP delta is a theorem; upper <= RDP is the
     * PLD's tightness, expected only above its error floor (~1e-11: the
     * booked FFT rounding error makes tinier deltas unresolvable). */
    fig_check(f, pb.lower <= d_rdp && (d_rdp < 1e-9 || pb.upper <= d_rdp),
              "fig4 T %lld: PLD delta [%g, %g] vs RDP delta %g", (long long)T,
              pb.lower, pb.upper, d_rdp);
    fig_check(f, d_rdp >= prev_rdp && pb.upper >= prev_pld * (1 - 1e-6),
              "fig4 T %lld: Poisson delta decreased with T", (long long)T);
    prev_rdp = d_rdp;
    prev_pld = pb.upper;
    /* BIS by PLD, one run and the composed epochs: a lower end is below
     * every certified upper end, here the sound RDP deltas */
    pld_bound bb = bis_pld(f, T, k, sigma, 1, 1, eps);
    pld_bound be = bis_pld(f, T_epoch, k_epoch, sigma, epochs, 1, eps);
    fig_check(f, bb.lower <= d_sound && be.lower <= d_ep_sound,
              "fig4 T %lld: BIS PLD lower ends %g, %g above the sound RDP "
              "deltas %g, %g", (long long)T, bb.lower, be.lower, d_sound,
              d_ep_sound);
    fprintf(csv, "%lld,%lld,%.8g,%.8g,%.8g,%.8g,%.8g,%.8g,%.8g,%.8g,%.8g,"
            "%.8g,%.8g\n",
            (long long)T, (long long)k, d_paper, d_sound, d_ep_paper,
            d_ep_sound, d_rdp, pb.lower, pb.upper, bb.lower, bb.upper,
            be.lower, be.upper);
  }
  fig_progress(f, "fig4", (size_t)nT, (size_t)nT);
  fig_close(f, csv);
}

/* ------------------------------------------------------------------------ */
/* Fig. 8: epsilon vs sigma, BIS vs Poisson.                                 */

static void fig8(struct fig *f, const char *file, int64_t T, int64_t k,
                 double delta, double slo, double shi)
{
  const size_t ns = f->tiny ? 2 : 20;
  double gamma = (double)k / (double)T;
  double orders[NORD_MAX], paper[NORD_MAX], sound[NORD_MAX], pois[NORD_MAX];
  size_t n = int_orders(orders, f->tiny ? 40 : CONV_AMAX);
  double prev_rdp = INFINITY, prev_pld = INFINITY;

  FILE *csv = fig_csv(f, file,
                      "sigma,bis_paper,bis_sound,poisson_rdp,poisson_pld_lo,"
                      "poisson_pld_hi,bis_pld_lo,bis_pld_hi");
  for (size_t i = 0; i < ns; i++) {
    fig_progress(f, file, i, ns);
    double sigma = geom(slo, shi, i, ns);
    bis_paper(f, orders, n, T, k, sigma, paper);
    bis_sound(f, orders, n, T, k, sigma, sound);
    poisson_step(f, orders, n, gamma, sigma, pois);
    double e_paper = rdp_eps(f, orders, n, paper, 1, delta, "fig8 BIS paper");
    double e_sound = rdp_eps(f, orders, n, sound, 1, delta, "fig8 BIS sound");
    double e_rdp = rdp_eps(f, orders, n, pois, (uint64_t)T, delta,
                           "fig8 Poisson RDP");
    pld_bound pb = pld_eps(f, gamma, sigma, (uint64_t)T, delta);
    fig_check(f, pb.upper <= e_rdp,
              "%s sigma %g: PLD epsilon %g above RDP %g", file, sigma,
              pb.upper, e_rdp);
    fig_check(f, e_rdp <= prev_rdp && pb.upper <= prev_pld * (1 + 1e-9),
              "%s sigma %g: Poisson epsilon not non-increasing in sigma",
              file, sigma);
    prev_rdp = e_rdp;
    prev_pld = pb.upper;
    pld_bound bb = bis_pld(f, T, k, sigma, 1, 0, delta);
    fig_check(f, bb.lower <= e_sound,
              "%s sigma %g: BIS PLD lower end %g above the sound RDP %g",
              file, sigma, bb.lower, e_sound);
    fprintf(csv, "%.6g,%.8g,%.8g,%.8g,%.8g,%.8g,%.8g,%.8g\n", sigma, e_paper,
            e_sound, e_rdp, pb.lower, pb.upper, bb.lower, bb.upper);
  }
  fig_progress(f, file, ns, ns);
  fig_close(f, csv);
}

int main(int argc, char **argv)
{
  struct fig f;
  fig_init(&f, "fig_splitting", argc, argv);
  fig1(&f);
  fig_rdp_curves(&f, "splitting_fig2", 1000, 100, 2.0);
  fig_rdp_curves(&f, "splitting_fig3", 10, 4, 2.0);
  fig4(&f);
  fig8(&f, "splitting_fig8a", 10, 5, 1e-6, 0.6, 6.0);
  fig8(&f, "splitting_fig8b", 1500, 120, 1e-4, 0.8, 4.0);
  return fig_done(&f);
}
