/* pldkit: the reverse divergence of model splitting for k = 1 (and of the
 * Poisson + splitting pair of the paper's Fig. 1) as quadrature tables with
 * proven error bounds; notation and citation as in papers/splitting_rdp.c.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <pldkit/splitting.h>

#include "alloc.h"
#include "numerics.h"
#include "detail.h"
#include "splitting_internal.h"

#define PI_ 3.14159265358979323846
#define V1 (-41.5)     /* left cut of the v integral: e^{v1} < 1e-18 */

/* ------------------------------------------------------------------------ */
/* Reverse for k = 1 with Poisson rate gamma: quadrature tables.             */
/*
 * Everything here is an UPPER bound of E_Q[(q/p)^beta] (the reverse term is
 * used as an RDP bound); the proofs are in docs/design.md ("Reverse
 * splitting divergence").  Two facts carry them:
 *  - log-concavity: f_u(z) = exp(-u e^{sz} - z^2/2) is log-concave in z, and
 *    (Prekopa) phi(e^w) and so F(v) = exp(beta v + L(v)) are log-concave in
 *    v; a log-concave tail beyond a point is at most f/|(log f)'| there, and
 *    the trapezoid nodes beyond it sum to at most that integral.
 *  - the trapezoid rule on the whole line for g analytic in |Im| < a errs by
 *    at most 2 M / (e^{2 pi a/h} - 1), M = sup_|y|<a int |g(x + iy)| dx.
 * phi(u) is integrated where its integrand's mass is (around the mode of
 * f_u, the tilted mean), with a strip and a step scaled to the width of that
 * mass, so the bound is relative and holds at every u (the former fixed grid
 * on [-38.5, 38.5] lost the mass beyond -38.5 at large orders). */

#define Z_CUT 50.0 /* log drop at which the z grid stops (tails are booked) */

/* log-concave integrand log f_u(z), lu = log u */
static double lf_psi(double z, double lu, double s)
{
  return -exp(lu + s * z) - 0.5 * z * z;
}
static double lf_dpsi(double z, double lu, double s)
{
  return -s * exp(lu + s * z) - z;
}

/* The mode of lf_psi: the root of z + s u e^{sz} = 0 (z <= 0), by Newton
 * from the right on an increasing convex function (monotone convergence). */
static double lf_mode(double lu, double s)
{
  double x = 2.0 * log(s) + lu; /* log(s^2 u) */
  double z;
  if (x < 1.0) {
    z = 0.0; /* g(z) = z + s u e^{sz} */
    for (int it = 0; it < 200; it++) {
      double e = s * exp(lu + s * z);
      double step = (z + e) / (1.0 + s * e);
      z -= step;
      if (!(fabs(step) > 1e-15 * (1.0 + fabs(z))))
        break;
    }
    return z;
  }
  /* W(e^x) >= x - log x for x >= 1: start right of the root of
   * k(z) = s z + log(s u) - log(-z), increasing and convex on z < 0 */
  z = -(x - log(x)) / s;
  if (!(z < 0.0))
    z = -1e-300;
  for (int it = 0; it < 200; it++) {
    double k = s * z + log(s) + lu - log(-z);
    double step = k / (s - 1.0 / z);
    z -= step;
    if (!(fabs(step) > 1e-15 * (1.0 + fabs(z))))
      break;
  }
  return z;
}

/* One log-concave integral int f_u (without the 1/sqrt(2 pi)) on a grid of
 * step h (h <= 0: half the width at the mode).  Outputs, as logs: the node
 * sum h sum f(z_j) on [zL, zR], the two tail bounds, and an upper bound of
 * max f; also the mode's width and the node count. */
struct lfsum {
  double lS, ltail, lfmax, w, h;
  size_t n;
};

static void lf_sum(double lu, double s, double h, struct lfsum *o)
{
  double z0 = lf_mode(lu, s), p0 = lf_psi(z0, lu, s);
  double c0 = 1.0 + s * s * exp(lu + s * z0), w = 1.0 / sqrt(c0);
  if (!(h > 0.0))
    h = 0.5 * w;
  /* max f: psi(m) <= psi(z0) + psi'(z0)^2 / (2 min curvature), curvature >= 1 */
  double g0 = lf_dpsi(z0, lu, s);
  o->lfmax = p0 + 0.5 * g0 * g0 + 4.0 * PLD_U * (1.0 + fabs(p0));
  double rR = w, rL = w;
  while (!(lf_psi(z0 + rR, lu, s) < p0 - Z_CUT) && rR < 1e6)
    rR *= 2.0;
  while (!(lf_psi(z0 - rL, lu, s) < p0 - Z_CUT) && rL < 1e6)
    rL *= 2.0;
  double zL = z0 - rL;
  size_t n = (size_t)ceil((rL + rR) / h) + 1;
  double zR = zL + h * (double)(n - 1);
  double sum = 0.0;
  for (size_t j = 0; j < n; j++)
    sum += exp(lf_psi(zL + h * (double)j, lu, s) - p0);
  o->lS = p0 + log(sum * h);
  /* tails: f(zR)/|psi'(zR)| and f(zL)/psi'(zL), both slopes away from 0 */
  double tR = lf_psi(zR, lu, s) - log(-lf_dpsi(zR, lu, s));
  double tL = lf_psi(zL, lu, s) - log(lf_dpsi(zL, lu, s));
  o->ltail = pld_logaddexp(tR, tL) + 1e-12;
  o->w = w;
  o->h = h;
  o->n = n;
}

/* Bracket [*lo, *up] of log phi(u), phi(u) = E exp(-u e^{sZ}), u = e^lu. */
static void log_phi_bracket(double lu, double s, double d, double *lo,
                            double *up)
{
  double m1 = exp(lu + 0.5 * s * s); /* u E e^{sZ} */
  double m2 = exp(2.0 * lu + 2.0 * s * s); /* u^2 E e^{2sZ} */
  /* Jensen: log phi >= -m1; 1 - e^{-x} >= x - x^2/2: phi <= 1 - m1 + m2/2 */
  if (d * m2 <= 1e-18) {
    *lo = -m1 * (1.0 + 4.0 * PLD_U);
    *up = fmin(0.0, log1p(-m1 + 0.5 * m2) + 4.0 * PLD_U * m1);
    return;
  }
  double a_max = fmin(PI_ / (4.0 * s), 2.5);
  if (m1 <= 0.5) {
    /* phi near 1: psi = 1 - phi = E[1 - exp(-u e^{sZ})] on [-38.5, 38.5];
     * |1 - e^{-w}| <= |w| for Re w >= 0 gives M <= m1 e^{a^2/2}; beyond
     * +-38.5 the integrand is below the normal density (< 1e-300 in all) */
    double a = a_max, h = a / 8.0, zmax = 38.5;
    size_t nz = (size_t)ceil(2.0 * zmax / h) + 1;
    double sum = 0.0;
    for (size_t j = 0; j < nz; j++) {
      double z = -zmax + h * (double)j;
      sum += exp(-0.5 * z * z) * -expm1(-exp(lu + s * z));
    }
    double psi = sum * h / 2.5066282746310002;
    double E = 2.0 * m1 * exp(0.5 * a * a) / expm1(2.0 * PI_ * a / h);
    double r = psi * (double)(nz + 16) * 4.0 * PLD_U;
    double plo = fmax(0.0, psi - r - E), pup = psi + r + E + 1e-300;
    *up = log1p(-plo);
    *lo = pup < 1.0 ? log1p(-pup) : -INFINITY;
    return;
  }
  /* phi small: log space around the mode, strip a ~ 2 widths, step a/8;
   * M <= e^{a^2/2} phi(u cos(sa)) (|exp(-u e^{s(z+iy)})| = exp(-u e^{sz}
   * cos(sy)) and phi decreasing), the latter bounded by the upper Riemann
   * sum of a unimodal function (sum + h max + tails) */
  struct lfsum M, C;
  double z0 = lf_mode(lu, s);
  double w0 = 1.0 / sqrt(1.0 + s * s * exp(lu + s * z0));
  double a = fmin(a_max, 2.0 * w0), h = a / 8.0;
  lf_sum(lu, s, h, &M);
  lf_sum(lu + log(cos(s * a)), s, 0.0, &C);
  double lC = pld_logaddexp(pld_logaddexp(C.lS, log(C.h) + C.lfmax), C.ltail);
  lC += (double)(C.n + 16) * 4.0 * PLD_U;
  double lE = log(2.0) + 0.5 * a * a + lC - log(expm1(2.0 * PI_ * a / h));
  double rr = (double)(M.n + 16) * 4.0 * PLD_U + 8.0 * PLD_U * fabs(M.lS);
  double lup = pld_logaddexp(pld_logaddexp(M.lS, M.ltail), lE) + rr;
  double x = exp(lE - M.lS);
  double llo = x < 1.0 ? M.lS + log1p(-x) - rr : -INFINITY;
  *up = fmin(0.0, lup - PLD_LOG_SQRT_2PI);
  *lo = llo - PLD_LOG_SQRT_2PI;
}

/* L(v) = d log phi(kappa e^v) - (1 - gamma) e^v, as a bracket. */
static void revtab_L(double v, double lkap, double s, double gamma, double d,
                     double *lo, double *up)
{
  double plo, pup;
  log_phi_bracket(lkap + v, s, d, &plo, &pup);
  double l_up = d * pup, l_lo = d * plo;
  l_up += 4.0 * PLD_U * fabs(l_up);
  l_lo -= 4.0 * PLD_U * fabs(l_lo);
  if (gamma < 1.0) {
    double e = (1.0 - gamma) * exp(v);
    l_up -= e * (1.0 - 8.0 * PLD_U);
    l_lo -= e * (1.0 + 8.0 * PLD_U);
  }
  *up = fmin(0.0, l_up);
  *lo = l_lo;
}

#define V_MAX_POINTS 200000 /* v nodes of one order (work cap) */

/* R(d, 1) with Poisson rate gamma at order alpha: an upper bound of
 * (1/beta) log( Gamma(beta)^{-1} int exp(beta v + L(v)) dv ).
 *
 * The v rule: the strip |Im v| < a costs (cos a)^{-beta} (|exp(-e^{v+iy} A)|
 * = exp(-e^v A cos y), so int |F(v + iy)| dv <= (cos y)^{-beta} I), and the
 * step h = 2 pi a / (72 + beta log(1/cos a)) makes the whole-line trapezoid
 * err by at most 2 e^{-72} relative; a ~ 3/sqrt(beta) keeps h ~ 1/sqrt(beta),
 * the width of the mass.  The nodes start at the mode's estimate (y = s beta
 * / d solves the tilt condition, u = (y/s) e^{sy}) and walk out both ways
 * until log F has fallen 60 below its maximum and falls on; the nodes
 * beyond are booked by log-concavity of F from the last two nodes' bracket
 * (or by F <= e^{beta v}, as L <= 0, where the walk stops early). */
static int reverse_k1_one(double alpha, double s, double gamma, double d,
                          double *R)
{
  double beta = alpha - 1.0;
  double a = fmin(PI_ / 4.0, 3.0 / sqrt(beta)), lc = -log(cos(a));
  double h = 2.0 * PI_ * a / (72.0 + beta * lc);
  double rel = 2.0 * exp(beta * lc) / expm1(2.0 * PI_ * a / h);
  double lkap = log(gamma) - 0.5 * s * s - log(d);
  double y = s * beta / d;
  double vg = log(y / s) + s * y - lkap;
  if (!isfinite(vg) || vg < V1)
    vg = V1;
  double best = -INFINITY, acc = -INFINITY;
  size_t npts = 0;
  /* right walk from vg */
  double prev_lo = NAN, last_up = NAN, rho = NAN;
  for (size_t i = 0;; i++) {
    if (++npts > V_MAX_POINTS)
      return PLD_ERANGE;
    double v = vg + h * (double)i, lo, up;
    revtab_L(v, lkap, s, gamma, d, &lo, &up);
    double gu = beta * v + up, gl = beta * v + lo;
    acc = pld_logaddexp(acc, gu);
    best = fmax(best, gu);
    if (i > 0) {
      rho = (gu - prev_lo) / h;
      if (gu < best - 60.0 && rho < -1e-3) {
        last_up = gu;
        break;
      }
    }
    prev_lo = gl;
  }
  acc = pld_logaddexp(acc, last_up + rho * h - log(-expm1(rho * h)));
  /* left walk from vg - h */
  double next_lo = NAN, first_up = NAN, sig = NAN, vfirst = vg;
  {
    double lo, up;
    revtab_L(vg, lkap, s, gamma, d, &lo, &up);
    next_lo = beta * vg + lo;
    first_up = beta * vg + up;
  }
  int booked = 0;
  for (size_t i = 1;; i++) {
    double v = vg - h * (double)i, lo, up;
    if (++npts > V_MAX_POINTS)
      break;
    revtab_L(v, lkap, s, gamma, d, &lo, &up);
    double gu = beta * v + up, gl = beta * v + lo;
    acc = pld_logaddexp(acc, gu);
    best = fmax(best, gu);
    sig = (next_lo - gu) / h;
    vfirst = v;
    first_up = gu;
    if (gu < best - 60.0 && sig > 1e-3) {
      acc = pld_logaddexp(acc, gu - sig * h - log(-expm1(-sig * h)));
      booked = 1;
      break;
    }
    next_lo = gl;
  }
  if (!booked) /* F <= e^{beta v} below vfirst */
    acc = pld_logaddexp(acc, beta * vfirst - beta * h -
                                 log(-expm1(-beta * h)));
  (void)first_up;
  if (!(rel < 1e-3) || !isfinite(acc))
    return PLD_ETOL;
  double lI = acc + log(h) - log1p(-rel);
  lI += (double)(npts + 32) * 8.0 * PLD_U + 8.0 * PLD_U * fabs(lI);
  double lg = lgamma(beta);
  double lE = lI - lg + 1e-14 * (1.0 + fabs(lg));
  double r = lE / beta;
  if (!isfinite(r))
    return PLD_ETOL;
  r += 4.0 * PLD_U * fabs(r);
  *R = r < 0.0 ? 0.0 : r;
  return PLD_SUCCESS;
}

/* Reverse R(dd, 1) with rate gamma at n orders. */
int split_reverse_k1_batch(size_t n, const double *orders, double dd,
                            double s, double gamma, double *out)
{
  if (dd == 1.0 && gamma == 1.0) { /* P = N(c): exact Gaussian */
    for (size_t i = 0; i < n; i++)
      out[i] = orders[i] * s * s / 2.0;
    return PLD_SUCCESS;
  }
  int st = PLD_SUCCESS;
  for (size_t i = 0; i < n && !st; i++)
    st = reverse_k1_one(orders[i], s, gamma, dd, &out[i]);
  return st;
}

int pld_rdp_split_reverse_exact(double alpha, int64_t d, int64_t k,
                                double sigma, double c, double *eps)
{
  pld_detail_clear();
  if (!eps)
    return pld_fail(PLD_EINVAL, "eps (the output) must not be NULL");
  if (split_bad_args(alpha, d, k, sigma, c))
    return PLD_EINVAL; /* split_bad_args recorded the detail */
  double s = c / sigma, t = s * s, dd = (double)d, kk = (double)k;
  double kp = (double)(k < d - k ? k : d - k);
  if (kp > 1.0 || s > S_QUAD_MAX)
    return PLD_EUNSUPPORTED;
  double r;
  if (kp == 0.0) {
    r = alpha * t * dd / 2.0;
  } else {
    int st = split_reverse_k1_batch(1, &alpha, dd, s, 1.0, &r);
    if (st)
      return st;
    r += alpha * t * (kk * kk - 1.0) / (2.0 * dd);
  }
  *eps = r;
  return PLD_SUCCESS;
}

