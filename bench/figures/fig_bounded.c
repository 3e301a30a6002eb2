/* Bounded-support Gaussian paper (Hu, Mahloujifar, Smith, Chaudhuri, Guo,
 * "Privacy amplification for the Gaussian mechanism via bounded support"),
 * Figure 1: Fisher information loss (FIL) eta and per-instance RDP epsilon
 * of the Gaussian, rectified Gaussian, truncated Gaussian and stochastic
 * sign mechanisms as functions of the input theta.
 *
 * Paper parameters: support B = [-1, 1] (a = 1), sensitivity c = 1 for the
 * RDP curves, order alpha = 2 (Sec. 4.2: "(2, eps)-RDP ... in Figure 1").
 * The paper does not state sigma; we use sigma = 1 for panels a and b and
 * add a sweep sigma in {0.5, 1, 2} (panels c and d) because Sec. 4.1 speaks
 * of several sigma ("more relaxed bounded support (smaller sigma) results in
 * weaker privacy amplification").  theta in [-5, 5] (our choice).
 *
 * CSVs (epsilon in nats, eta in units of 1/sigma^0 = per unit Jacobian):
 *   bounded_fig1a.csv  sigma = 1.  theta; FIL eta of the Gaussian (1/sigma),
 *                      rectified (eq. 4 corrected), truncated (eq. 3),
 *                      stochastic sign; eq. (4) AS PRINTED as eta^2 (can be
 *                      negative: not a valid FIL) and its square root where
 *                      non-negative (nan elsewhere).
 *   bounded_fig1b.csv  sigma = 1, alpha = 2, c = 1.  theta; per-instance RDP
 *                      of the Gaussian (alpha c^2 / (2 sigma^2)); the SOUND
 *                      per-instance values over the neighbour set
 *                      |shift| <= 1 (max over shift +-1 and both
 *                      directions) for rectified, truncated and stochastic
 *                      sign (the sign via its exact two-point PLD and
 *                      pld_rdp_of_pld: certified upper and lower ends); the
 *                      paper's convention, shift +1 only but both
 *                      directions (Sec. 4.2, "it suffices to calculate
 *                      max{D(theta||theta+c), D(theta+c||theta)}"), which is
 *                      NOT a bound over the neighbour set; Algorithm 1's
 *                      convention (shift +1, forward direction only), also
 *                      not a bound; eq. (6) AS PRINTED (wrong in general; at
 *                      alpha = 2 it collapses to the Gaussian value because
 *                      Delta is even).
 *   bounded_fig1c.csv  theta; sound per-instance RDP (alpha = 2, c = 1) of
 *                      the rectified and truncated Gaussian divided by the
 *                      Gaussian value, for sigma = 0.5, 1, 2.
 *   bounded_fig1d.csv  theta; FIL of the rectified and truncated Gaussian
 *                      divided by the Gaussian's 1/sigma, sigma = 0.5, 1, 2.
 *   bounded_fig2.csv   Fig. 2 (Sec. 6.1, synthetic mean estimation), our
 *                      reading: n = 900 records in [-1, 1]^d, d = 100,
 *                      replace-one; the mean moves by at most c = 2/n per
 *                      coordinate (L2 2 sqrt(d)/n), noise std s = sigma
 *                      2 sqrt(d)/n (noise multiplier sigma on the L2
 *                      sensitivity), rectified per coordinate to [-a, a].
 *                      The data mean mu 1_d is clipped, so the location is
 *                      theta = E clip(N(mu, 1), -1, 1).  The product's RDP
 *                      is the sum over coordinates and |c_j| <= 2/n implies
 *                      the L2 bound, so eps_NR / eps_N = sup_{|c| <= 2/n}
 *                      D_2(theta) / (2 c^2 / (2 s^2)) per coordinate (sound
 *                      sup, both directions).  The support is placed to
 *                      cover the location with margin k s: a = |theta| +
 *                      k s (the paper tunes a; its figure says
 *                      amplification shrinks with biasedness |mu|).
 *                      Columns: mu, theta, then per (sigma, k): the ratio
 *                      and the relative change of the noise MSE
 *                      E(R - theta)^2 / s^2 - 1 (closed form).
 * Grid: theta step 0.02 (501 points); --tiny: step 0.5 (21 points); Fig. 2:
 * mu step 0.002 in [0, 0.1] (--tiny: 0, 0.05, 0.1); the ratio is flat beyond
 * (once |theta| >> s only the near boundary of the support matters).
 *
 * Checks (a failure exits 1): every value finite and >= 0; FIL <= 1/sigma
 * (Thm 4.2) and RDP <= the Gaussian value (Thm 4.9, Prop. 4.6); the
 * stochastic sign (= sign of the rectified output) never above the
 * rectified Gaussian, in FIL and in RDP (data processing); sound values >=
 * the shift-+1 values >= Algorithm 1's; the sign's PLD bracket contains its
 * Bernoulli closed form; FIL symmetric in theta; the rectified and
 * truncated FIL and RDP agree with a Simpson quadrature done here (interior
 * integral plus atoms) to 1e-6 relative; eq. (4) as printed equals the
 * corrected value minus 2 (Phi(B) - Phi(A)) / sigma^2 (the sign error). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include <pldkit/pldkit.h>

#include "figcommon.h"

#define A_SUP 1.0   /* support [-A_SUP, A_SUP] */
#define SENS 1.0    /* sensitivity c */
#define ALPHA 2.0   /* RDP order */
#define SQRT2 1.4142135623730950488
#define SQRT2PI 2.5066282746310005024

static double Phi(double x) { return 0.5 * erfc(-x / SQRT2); }
static double phi(double x) { return exp(-0.5 * x * x) / SQRT2PI; }

/* ---- independent references (checks only) ---------------------------- */

/* Simpson on [lo, hi] with n (even) intervals of f(x, ctx). */
static double simpson(double (*fn)(double, const double *), const double *ctx,
                      double lo, double hi, int n)
{
  double h = (hi - lo) / n, s = fn(lo, ctx) + fn(hi, ctx);
  for (int i = 1; i < n; i++)
    s += (i % 2 ? 4.0 : 2.0) * fn(lo + h * i, ctx);
  return s * h / 3.0;
}

/* ctx = {theta1, theta2, sigma, alpha}: p1^alpha p2^(1-alpha) of the plain
 * Gaussian densities, in log space. */
static double renyi_integrand(double x, const double *k)
{
  double z1 = (x - k[0]) / k[2], z2 = (x - k[1]) / k[2];
  return exp(-0.5 * (k[3] * z1 * z1 + (1.0 - k[3]) * z2 * z2)) /
         (SQRT2PI * k[2]);
}

/* D_alpha(N^B(theta1) || N^B(theta2)) on [-a, a] by quadrature. */
static double ref_div(int kind, double alpha, double t1, double t2, double a,
                      double s)
{
  double k[4] = {t1, t2, s, alpha};
  double in = simpson(renyi_integrand, k, -a, a, 4000);
  if (kind == PLD_BOUNDED_RECTIFIED) {
    double lo1 = Phi((-a - t1) / s), lo2 = Phi((-a - t2) / s);
    double hi1 = Phi((t1 - a) / s), hi2 = Phi((t2 - a) / s);
    in += pow(lo1, alpha) * pow(lo2, 1 - alpha) +
          pow(hi1, alpha) * pow(hi2, 1 - alpha);
    return log(in) / (alpha - 1);
  }
  double m1 = Phi((a - t1) / s) - Phi((-a - t1) / s);
  double m2 = Phi((a - t2) / s) - Phi((-a - t2) / s);
  /* truncated densities are p_i / m_i */
  return (log(in) - alpha * log(m1) - (1 - alpha) * log(m2)) / (alpha - 1);
}

/* ctx = {theta, sigma, mean}: (x - mean)^2 times the N(theta, sigma^2)
 * density. */
static double moment_integrand(double x, const double *k)
{
  double z = (x - k[0]) / k[1];
  return (x - k[2]) * (x - k[2]) * exp(-0.5 * z * z) / (SQRT2PI * k[1]);
}
static double mean_integrand(double x, const double *k)
{
  double z = (x - k[0]) / k[1];
  return x * exp(-0.5 * z * z) / (SQRT2PI * k[1]);
}

/* FIL eta by quadrature: rectified = interior E[score^2] + atoms;
 * truncated = sqrt(Var) / sigma^2. */
static double ref_fil(int kind, double theta, double a, double s)
{
  if (kind == PLD_BOUNDED_RECTIFIED) {
    double k[3] = {theta, s, theta};
    double in = simpson(moment_integrand, k, -a, a, 4000) / (s * s * s * s);
    double A = (-a - theta) / s, B = (a - theta) / s;
    double pa = Phi(A), pb = Phi(-B);
    if (pa > 0)
      in += phi(A) * phi(A) / (s * s * pa);
    if (pb > 0)
      in += phi(B) * phi(B) / (s * s * pb);
    return sqrt(in);
  }
  double mass = Phi((a - theta) / s) - Phi((-a - theta) / s);
  double k[3] = {theta, s, 0.0};
  double mean = simpson(mean_integrand, k, -a, a, 4000) / mass;
  k[2] = mean;
  double var = simpson(moment_integrand, k, -a, a, 4000) / mass;
  return sqrt(var) / (s * s);
}

static int close_rel(double x, double ref, double rel, double abs_tol)
{
  return fabs(x - ref) <= rel * fabs(ref) + abs_tol;
}

/* ---- the stochastic sign -------------------------------------------- */

/* Per-instance RDP at ALPHA of the pair sign(theta1 + Z), sign(theta2 + Z),
 * Z ~ N(0, sigma^2), both directions: exact two-point PLD, then the
 * certified bridge (upper) and its lower counterpart. */
static void sign_rdp(struct fig *f, double t1, double t2, double s,
                     double *upper, double *lower)
{
  const double ord[1] = {ALPHA};
  double p[2] = {Phi(-t1 / s), Phi(t1 / s)}, q[2] = {Phi(-t2 / s), Phi(t2 / s)};
  pld_mech *m = NULL;
  pld_dist *d = NULL;
  pld_rdp_curve *cu = NULL, *cl = NULL;
  pld_params pp;
  pld_params_default(&pp);
  fig_status(f, pld_mech_finite(2, p, q, &m), "sign: finite pair");
  fig_status(f, pld_dist_from_curve(pld_mech_curve(m), 1e-4, &pp, &d),
             "sign: PLD");
  fig_status(f, pld_rdp_curve_alloc(1, ord, &cu), "sign: curve");
  fig_status(f, pld_rdp_curve_alloc(1, ord, &cl), "sign: curve");
  fig_status(f, pld_rdp_of_pld(d, cu), "sign: RDP of PLD");
  fig_status(f, pld_rdp_of_pld_lower(d, cl), "sign: lower RDP of PLD");
  *upper = pld_rdp_curve_values(cu)[0];
  *lower = pld_rdp_curve_values(cl)[0];
  pld_rdp_curve_free(cu);
  pld_rdp_curve_free(cl);
  pld_dist_free(d);
  pld_mech_free(m);

  /* the Bernoulli closed form, both directions */
  double ex = 0;
  for (int dir = 0; dir < 2; dir++) {
    const double *x = dir ? q : p, *y = dir ? p : q;
    double v = log(pow(x[0], ALPHA) * pow(y[0], 1 - ALPHA) +
                   pow(x[1], ALPHA) * pow(y[1], 1 - ALPHA)) / (ALPHA - 1);
    ex = fmax(ex, v);
  }
  fig_check(f, *lower <= ex * (1 + 1e-9) + 1e-12 &&
                   ex <= *upper * (1 + 1e-9) + 1e-12,
            "sign theta=(%g,%g) sigma=%g: closed form %.10g outside the PLD "
            "bracket [%.10g, %.10g]", t1, t2, s, ex, *lower, *upper);
}

static double gauss_rdp(struct fig *f, double s)
{
  const double ord[1] = {ALPHA};
  pld_rdp_curve *c = NULL;
  fig_status(f, pld_rdp_curve_alloc(1, ord, &c), "Gaussian curve");
  fig_status(f, pld_rdp_add_gaussian(c, s, SENS, 1), "Gaussian RDP");
  double v = pld_rdp_curve_values(c)[0];
  pld_rdp_curve_free(c);
  return v;
}

static double fil(struct fig *f, int kind, double theta, double s)
{
  double eta;
  fig_status(f, pld_fil_bounded_gaussian(kind, theta, A_SUP, s, &eta), "FIL");
  return eta;
}

/* sound (sup over |shift| <= 1), shift +1 both directions, Alg. 1 */
static void bounded_rdp(struct fig *f, int kind, double theta, double s,
                        double *sound, double *plus, double *alg1)
{
  fig_status(f, pld_rdp_bounded_gaussian_sup(kind, ALPHA, theta, A_SUP, s,
                                             SENS, sound), "RDP sup");
  fig_status(f, pld_rdp_bounded_gaussian(kind, ALPHA, theta, A_SUP, s, SENS,
                                         plus), "RDP +c");
  double eps_total;
  fig_status(f, pld_rdp_bounded_gaussian_alg1(kind, PLD_ALG1_PAPER, ALPHA, 1,
                                              &theta, A_SUP, s, SENS, NULL,
                                              NULL, &eps_total), "Alg. 1");
  *alg1 = eps_total;
}

static int finite_nonneg(double x) { return isfinite(x) && x >= 0; }

/* ---- Fig. 2 ---- */
#define F2_N 900.0
#define F2_D 100.0

/* E clip(N(mu, 1), -1, 1) */
static double clipped_mean(double mu)
{
  return mu * (Phi(1 - mu) - Phi(-1 - mu)) - (phi(1 - mu) - phi(-1 - mu)) -
         Phi(-1 - mu) + (1 - Phi(1 - mu));
}

/* E (R - theta)^2 / s^2, R = clip(theta + s Z, -a, a) */
static double rect_mse(double theta, double s, double a)
{
  double l = (-a - theta) / s, h = (a - theta) / s;
  double mid = (Phi(h) - Phi(l)) - (h * phi(h) - l * phi(l));
  return mid + l * l * Phi(l) + h * h * (1 - Phi(h));
}

static void fig2(struct fig *f)
{
  static const double sig[3] = {0.4, 0.7, 1.0}, ks[3] = {0.25, 0.5, 1.0};
  const double c = 2.0 / F2_N, alpha = 2.0;
  char header[1024];
  int len = snprintf(header, sizeof header, "mu,theta");
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      len += snprintf(header + len, sizeof header - (size_t)len,
                      ",ratio_s%g_k%g,mse_change_s%g_k%g", sig[i], ks[j],
                      sig[i], ks[j]);
  FILE *csv = fig_csv(f, "bounded_fig2", header);
  const size_t n = f->tiny ? 3 : 51;
  for (size_t m = 0; m < n; m++) {
    double mu = f->tiny ? 0.05 * (double)m : 0.002 * (double)m;
    double theta = clipped_mean(mu);
    fig_check(f, theta >= 0 && theta <= mu + 1e-15 && theta < 1,
              "clipped mean %g at mu %g", theta, mu);
    fprintf(csv, "%.4g,%.10g", mu, theta);
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) {
        double s = sig[i] * 2.0 * sqrt(F2_D) / F2_N;
        double a = fabs(theta) + ks[j] * s;
        double eps, gauss = alpha * c * c / (2 * s * s);
        fig_status(f, pld_rdp_bounded_gaussian_sup(0, alpha, theta, a, s, c,
                                                   &eps), "rectified RDP");
        double ratio = eps / gauss, mse = rect_mse(theta, s, a) - 1;
        fig_check(f, ratio >= 0 && ratio <= 1 + 1e-9,
                  "mu=%g sigma=%g k=%g: ratio %g outside [0, 1] (Thm 4.9)",
                  mu, sig[i], ks[j], ratio);
        fig_check(f, mse <= 1e-12, "rectifying cannot add noise MSE (%g)",
                  mse);
        fprintf(csv, ",%.8g,%.8g", ratio, mse);
      }
    fputc('\n', csv);
  }
  fig_close(f, csv);
}

int main(int argc, char **argv)
{
  struct fig f;
  fig_init(&f, "fig_bounded", argc, argv);
  const double step = f.tiny ? 0.5 : 0.02, tmax = 5.0;
  const size_t n = (size_t)llround(2 * tmax / step) + 1;
  const char *kname[2] = {"rectified", "truncated"};

  /* ---- panel a: FIL, sigma = 1 ---- */
  {
    const double s = 1.0;
    FILE *csv = fig_csv(&f, "bounded_fig1a",
                        "theta,eta_gauss,eta_rect,eta_trunc,eta_sign,"
                        "eta2_rect_eq4_paper,eta_rect_eq4_paper");
    for (size_t i = 0; i < n; i++) {
      double th = -tmax + step * (double)i;
      double eg = 1.0 / s, er = fil(&f, PLD_BOUNDED_RECTIFIED, th, s);
      double et = fil(&f, PLD_BOUNDED_TRUNCATED, th, s), es, e4;
      fig_status(&f, pld_fil_stochastic_sign(th, s, &es), "sign FIL");
      fig_status(&f, pld_fil_rectified_gaussian_eq4_paper(th, A_SUP, s, &e4),
                 "eq. (4) as printed");
      double v[3] = {er, et, es};
      for (int j = 0; j < 3; j++)
        fig_check(&f, finite_nonneg(v[j]) && v[j] <= eg * (1 + 1e-12),
                  "FIL theta=%g: %g not in [0, 1/sigma]", th, v[j]);
      fig_check(&f, es <= er * (1 + 1e-9),
                "FIL theta=%g: sign %g above rectified %g", th, es, er);
      for (int k = 0; k < 2; k++) {
        double x = k ? et : er, r = ref_fil(k, th, A_SUP, s);
        fig_check(&f, close_rel(x, r, 1e-6, 1e-12),
                  "FIL %s theta=%g: %.12g, quadrature %.12g", kname[k], th, x,
                  r);
        double mirror = fil(&f, k, -th, s);
        fig_check(&f, close_rel(x, mirror, 1e-10, 1e-14),
                  "FIL %s not symmetric at theta=%g", kname[k], th);
      }
      double inner = Phi((A_SUP - th) / s) - Phi((-A_SUP - th) / s);
      fig_check(&f, close_rel(e4, er * er - 2 * inner / (s * s), 1e-9, 1e-12),
                "eq. (4) theta=%g: %.12g is not the corrected value minus "
                "2 Delta/sigma^2 (%.12g)", th, e4,
                er * er - 2 * inner / (s * s));
      fprintf(csv, "%.4f,%.10g,%.10g,%.10g,%.10g,%.10g,%.10g\n", th, eg, er,
              et, es, e4, e4 >= 0 ? sqrt(e4) : NAN);
      fig_progress(&f, "panel a", i + 1, n);
    }
    fig_close(&f, csv);
  }

  /* ---- panel b: per-instance RDP, sigma = 1 ---- */
  {
    const double s = 1.0, eg = gauss_rdp(&f, s);
    fig_check(&f, close_rel(eg, ALPHA * SENS * SENS / (2 * s * s), 1e-12, 0),
              "Gaussian RDP %g", eg);
    FILE *csv = fig_csv(
        &f, "bounded_fig1b",
        "theta,eps_gauss,eps_rect,eps_trunc,eps_sign,eps_sign_lower,"
        "eps_rect_plus,eps_trunc_plus,eps_sign_plus,eps_rect_alg1,"
        "eps_trunc_alg1,eps_trunc_eq6_paper");
    for (size_t i = 0; i < n; i++) {
      double th = -tmax + step * (double)i;
      double snd[2], pl[2], a1[2];
      for (int k = 0; k < 2; k++) {
        bounded_rdp(&f, k, th, s, &snd[k], &pl[k], &a1[k]);
        fig_check(&f, finite_nonneg(snd[k]) && finite_nonneg(pl[k]) &&
                          finite_nonneg(a1[k]),
                  "RDP %s theta=%g: not finite", kname[k], th);
        fig_check(&f, snd[k] <= eg * (1 + 1e-12),
                  "RDP %s theta=%g: %g above the Gaussian %g", kname[k], th,
                  snd[k], eg);
        fig_check(&f, a1[k] <= pl[k] * (1 + 1e-12) &&
                          pl[k] <= snd[k] * (1 + 1e-12),
                  "RDP %s theta=%g: not Alg1 %g <= +c %g <= sound %g",
                  kname[k], th, a1[k], pl[k], snd[k]);
        /* independent quadrature, both directions, both shifts */
        double r = 0;
        for (int sg = -1; sg <= 1; sg += 2) {
          double t2 = th + sg * SENS;
          r = fmax(r, fmax(ref_div(k, ALPHA, th, t2, A_SUP, s),
                           ref_div(k, ALPHA, t2, th, A_SUP, s)));
        }
        fig_check(&f, close_rel(snd[k], r, 1e-6, 1e-12),
                  "RDP %s theta=%g: %.12g, quadrature %.12g", kname[k], th,
                  snd[k], r);
      }
      double su_p, sl_p, su_m, sl_m;
      sign_rdp(&f, th, th + SENS, s, &su_p, &sl_p);
      sign_rdp(&f, th, th - SENS, s, &su_m, &sl_m);
      double sign_up = fmax(su_p, su_m), sign_lo = fmax(sl_p, sl_m);
      fig_check(&f, finite_nonneg(sign_up) && sign_lo <= sign_up,
                "sign theta=%g: bracket [%g, %g]", th, sign_lo, sign_up);
      /* the sign is a post-processing of the rectified output: its LOWER
       * end can never exceed the rectified value */
      fig_check(&f, sign_lo <= snd[0] * (1 + 1e-9),
                "sign theta=%g: lower %g above rectified %g", th, sign_lo,
                snd[0]);
      fig_check(&f, sign_up <= eg * (1 + 1e-12), "sign theta=%g above Gaussian",
                th);
      double e6;
      fig_status(&f, pld_rdp_truncated_gaussian_eq6_paper(ALPHA, th, A_SUP, s,
                                                          SENS, &e6),
                 "eq. (6) as printed");
      fprintf(csv,
              "%.4f,%.10g,%.10g,%.10g,%.10g,%.10g,%.10g,%.10g,%.10g,%.10g,"
              "%.10g,%.10g\n",
              th, eg, snd[0], snd[1], sign_up, sign_lo, pl[0], pl[1], su_p,
              a1[0], a1[1], e6);
      fig_progress(&f, "panel b", i + 1, n);
    }
    fig_close(&f, csv);
  }

  /* ---- panels c, d: sigma sweep, ratios to the Gaussian ---- */
  {
    static const double sig[3] = {0.5, 1.0, 2.0};
    FILE *cc = fig_csv(&f, "bounded_fig1c",
                       "theta,rect_s0.5,trunc_s0.5,rect_s1,trunc_s1,rect_s2,"
                       "trunc_s2");
    FILE *cd = fig_csv(&f, "bounded_fig1d",
                       "theta,rect_s0.5,trunc_s0.5,rect_s1,trunc_s1,rect_s2,"
                       "trunc_s2");
    double eg[3];
    for (int j = 0; j < 3; j++)
      eg[j] = gauss_rdp(&f, sig[j]);
    for (size_t i = 0; i < n; i++) {
      double th = -tmax + step * (double)i;
      fprintf(cc, "%.4f", th);
      fprintf(cd, "%.4f", th);
      for (int j = 0; j < 3; j++)
        for (int k = 0; k < 2; k++) {
          double snd, pl, a1, eta = fil(&f, k, th, sig[j]);
          bounded_rdp(&f, k, th, sig[j], &snd, &pl, &a1);
          double rr = snd / eg[j], rf = eta * sig[j];
          fig_check(&f, finite_nonneg(rr) && rr <= 1 + 1e-12 &&
                            finite_nonneg(rf) && rf <= 1 + 1e-12,
                    "sweep %s sigma=%g theta=%g: ratios %g %g", kname[k],
                    sig[j], th, rr, rf);
          fprintf(cc, ",%.10g", rr);
          fprintf(cd, ",%.10g", rf);
        }
      fputc('\n', cc);
      fputc('\n', cd);
      fig_progress(&f, "panels c, d", i + 1, n);
    }
    fig_close(&f, cc);
    fig_close(&f, cd);
  }
  fig2(&f);
  return fig_done(&f);
}
