/* pldkit: the certified MGF of a Poisson-subsampled Gaussian (the
 * capability pld_mgf_ops of pld/inversion.h, docs/design.md §16.2).
 *
 * In units of the noise, Q = N(0, 1), P = (1-q) N(0, 1) + q N(mu, 1), and
 * rho = p/q = 1 - q + q z, z = e^{mu x - mu^2/2}.  With A(alpha) = E_Q[rho^alpha],
 * M_PQ(s) = A(1 + s) and M_QP(s) = A(-s).  A(a + i tau) is the trapezoid sum of
 * phi(x) rho(x)^(a + i tau) on the nodes x_j = j eta (eta a power of 2, so
 * the nodes are exact), with
 *   - the discretization error 2 M_d / (e^{2 pi d/eta} - 1) of Trefethen
 *     and Weideman (SIAM Rev. 2014, Thm 5.1) on the strip |Im x| < d,
 *     d < pi/(2 mu), where Re rho > 0, and M_d <= e^{d^2/2 + |tau| mu d}
 *     cos(mu d)^{min(a, 0)} Abar(a), Abar(a) = 1 - q + q e^{a(a-1)mu^2/2} >= A(a)
 *     (Jensen, a >= 1 or a <= 0);
 *   - the dropped nodes bounded by Gaussian tail integrals of monotone
 *     majorants of phi rho^a;
 *   - every node's rounding bounded in units of u (libm's exp, log1p,
 *     expm1, sin, cos within 2 ulp, as in §10), and the sum's (N u per
 *     term).
 * mu = sensitivity/sigma is itself rounded (u/2): the analytic bounds take
 * mu's interval ends where they are monotone, the nodes book the error.
 */
#include <float.h>
#include <math.h>

#include "alloc.h"
#include "internal.h"
#include "inversion.h"
#include "numerics.h"

#define U DBL_EPSILON /* twice the unit roundoff: a factor 2 of margin */
#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
#ifndef M_SQRT1_2
#define M_SQRT1_2 0.70710678118654752440
#endif
#define LS2PI 0.91893853320467274178 /* log sqrt(2 pi) */
#define ND 24 /* strip widths tried */
/* The largest |a| mu served: the node range grows like |a| mu (the tilted
 * centre a mu plus a tail of width ~ |a| mu for the factor e^{a(a-1)mu^2/2});
 * beyond, the evaluator declines (ERANGE) and the inversion picks a smaller
 * abscissa or leaves the query to the grid.  The QP direction of a small
 * rate, whose loss is bounded by -log(1-q), asked for a ~ -85 at delta =
 * 1e-5 (six million nodes for nothing). */
#define AMU_MAX 40.0

struct psg {
  double q, mu, mul, muh;
};

static int psg_get(const struct pld_mech *m, struct psg *g)
{
  if (m->type != &pld_mech_type_poisson)
    return 0;
  const struct pld_mech *b = pld_mech_kids(m)->m[0];
  double mu;
  if (!b || b->type != &pld_mech_type_gaussian ||
      pld_mech_gaussian_mu(b, &mu) != PLD_SUCCESS)
    return 0;
  g->q = m->par[0];
  g->mu = mu;
  g->mul = mu * (1.0 - 4.0 * U);
  g->muh = mu * (1.0 + 4.0 * U);
  return g->q > 0.0 && g->q <= 1.0 && mu > 0.0 && isfinite(mu);
}

static int psg_has(const struct pld_mech *m)
{
  struct psg g;
  return psg_get(m, &g) && g.mu <= 30.0;
}

/* log(e^x + e^y) */
static double lse(double x, double y)
{
  double mx = fmax(x, y);
  if (mx == -INFINITY)
    return -INFINITY;
  return mx + log1p(exp(-fabs(x - y)));
}

/* An upper bound of the standard normal upper tail at y, in logs. */
static double log_tail_up(double y)
{
  double v;
  if (y < 30.0)
    v = log(0.5 * erfc(y * M_SQRT1_2)) ;
  else /* Mills: phi(y)/y */
    v = -0.5 * y * y - LS2PI - log(y);
  /* erfc 8 ulp, the argument's rounding times the slope (<= 2|y| + 2) */
  return v + (40.0 + 8.0 * y * y) * U + 1e-300;
}

/* log of an upper bound Abar(a) of A(a): 1 - q + q e^{a(a-1)mu^2/2} for
 * a >= 1 or a <= 0 (Jensen on the convex v^a, rho = (1-q) 1 + q z), 1 for
 * 0 < a < 1 (concave: A(a) <= (E_Q rho)^a = 1; the Lipschitz bound's
 * A(a + 1) of the QP direction at c < 1). */
static double log_abar(const struct psg *g, double a)
{
  if (a > 0.0 && a < 1.0)
    return 1e-12;
  double e = 0.5 * a * (a - 1.0) * g->muh * g->muh;
  double v = g->q < 1.0 ? lse(log1p(-g->q), log(g->q) + e) : e;
  return v + 1e-12 * (1.0 + fabs(v));
}

/* Strip widths tried and the discretization error bound at |tau|: the
 * smallest over d of 2 M_d/(e^{2 pi d/eta} - 1), in logs. */
static double quad_log_err(const struct psg *g, double a, double eta,
                           double tau)
{
  double best = INFINITY, la = log_abar(g, a);
  double dmax = fmin(0.95 * M_PI / (2.0 * g->muh), 12.0);
  for (int k = 1; k <= ND; k++) {
    double d = dmax * k / ND;
    /* log cos(mu d)^{min(a, 0)} >= 0 */
    double lc = a < 0.0 ? a * log(cos(g->muh * d)) : 0.0;
    double x = 2.0 * M_PI * d / eta;
    double le = log(2.0) + 0.5 * d * d + fabs(tau) * g->muh * d + lc + la -
                (x > 40.0 ? x : log(expm1(x)));
    best = fmin(best, le);
  }
  return best + 1e-10 * (1.0 + fabs(best));
}

/* The largest power-of-2 node spacing whose discretization error at
 * |tau| <= tmax is below tol. */
static double pick_eta(const struct psg *g, double a, double tmax, double tol)
{
  double la = log_abar(g, a), best = 0.0;
  double dmax = fmin(0.95 * M_PI / (2.0 * g->muh), 12.0);
  for (int k = 1; k <= ND; k++) {
    double d = dmax * k / ND;
    double lc = a < 0.0 ? a * log(cos(g->muh * d)) : 0.0;
    double lb = log(4.0) + 0.5 * d * d + tmax * g->muh * d + lc + la - log(tol);
    if (lb < 1.0)
      lb = 1.0;
    best = fmax(best, 2.0 * M_PI * d / lb);
  }
  double eta = ldexp(1.0, ilogb(best));
  while (quad_log_err(g, a, eta, tmax) > log(tol) && eta > 1e-8)
    eta *= 0.5;
  return eta;
}

/* Bounds of the dropped nodes' mass, eta sum phi rho^a over x_j <= xl and
 * x_j >= xr (xl <= min(0, a mu), xr >= max(mu/2, a mu, 0)), in logs: the
 * integrals of increasing (left) and decreasing (right) majorants. */
static double log_tail_right(const struct psg *g, double a, double xr)
{
  double e = 0.5 * a * (a - 1.0) * g->muh * g->muh;
  if (a >= 0.0) /* rho <= z for z >= 1: phi z^a = e^{a(a-1)mu^2/2} phi(x - a mu) */
    return e + log_tail_up(xr - a * g->muh);
  /* rho >= max(1 - q, q z) */
  double v = log(g->q) * a + e + log_tail_up(xr - a * g->mul);
  if (g->q < 1.0)
    v = fmin(v, a * log1p(-g->q) + log_tail_up(xr));
  return v;
}

static double log_tail_left(const struct psg *g, double a, double xl)
{
  if (a >= 0.0) /* rho <= 1 for z <= 1 */
    return log_tail_up(-xl);
  /* rho >= max(1 - q, z) for z <= 1 */
  double e = 0.5 * a * (a - 1.0) * g->muh * g->muh;
  double v = e + log_tail_up(a * g->muh - xl);
  if (g->q < 1.0)
    v = fmin(v, a * log1p(-g->q) + log_tail_up(-xl));
  return v;
}

/* The node table at real part a for |tau| <= tmax. */
struct nodes {
  size_t n;
  double eta, a;
  double *l, *w;
  double sa, sb, W, ltails; /* error sums, total weight, log dropped mass */
};

static void nodes_free(struct nodes *t)
{
  pld_free(t->l);
  pld_free(t->w);
}

static int nodes_make(const struct psg *g, double a, double tmax, double tol,
                      struct nodes *t)
{
  t->l = t->w = NULL;
  t->a = a;
  t->eta = pick_eta(g, a, tmax, 0.25 * tol);
  double ltol = log(0.25 * tol);
  double xr = fmax(fmax(0.5 * g->muh, a * g->muh), 0.0);
  double xl = fmin(0.0, a * g->muh);
  double w0 = sqrt(2.0 * fmax(-ltol, 1.0)) + 1.0;
  xr += w0;
  xl -= w0;
  while (log_tail_right(g, a, xr) > ltol && xr < 1e4)
    xr += 1.0;
  while (log_tail_left(g, a, xl) > ltol && xl > -1e4)
    xl -= 1.0;
  t->ltails = lse(log_tail_right(g, a, xr), log_tail_left(g, a, xl));
  double jl = floor(xl / t->eta), jh = ceil(xr / t->eta);
  if (!(jh - jl < 262144.0)) /* 2^18 nodes: beyond, the grid is cheaper */
    return PLD_ERANGE;
  t->n = (size_t)(jh - jl) + 1;
  t->l = pld_malloc(t->n * sizeof(double));
  t->w = pld_malloc(t->n * sizeof(double));
  if (!t->l || !t->w) {
    nodes_free(t);
    return PLD_ENOMEM;
  }
  double q = g->q, mu = g->mu, hm2 = 0.5 * mu * mu;
  double sa = 0.0, sb = 0.0, W = 0.0, amax = 0.0;
  for (size_t i = 0; i < t->n; i++) {
    double x = (jl + (double)i) * t->eta; /* exact */
    double arg = mu * x - hm2;
    /* mu's own rounding (u/2) and this arithmetic's */
    double earg = 2.0 * U * (fabs(mu * x) + hm2 + fabs(arg));
    double l, el;
    if (q < 1.0) {
      double v = q * expm1(arg);
      l = log1p(v);
      /* q e^arg = v + q */
      el = 1.1 * ((v + q) * earg + 3.0 * U * fabs(v)) / (1.0 + v) +
           2.2 * U * fabs(l);
    } else {
      l = arg;
      el = earg;
    }
    double E = -0.5 * x * x + a * l - LS2PI;
    double eE = fabs(a) * el + 1.1 * U * (fabs(a * l) + fabs(E) + 1.0);
    double w = exp(E) * t->eta;
    double rw = 1.1 * (eE + 2.0 * U);
    t->l[i] = l;
    t->w[i] = w;
    W += w;
    sa += w * (rw + 8.0 * U);
    sb += w * 1.1 * (el + U * fabs(l));
    amax = fmax(amax, rw);
  }
  if (!(amax < 1e-6) || !isfinite(W)) {
    nodes_free(t);
    return PLD_ERANGE;
  }
  double gn = (double)(t->n + 4) * U;
  t->W = W * (1.0 + 1e-6);
  t->sa = sa * (1.0 + gn) + 2.0 * gn * t->W;
  t->sb = sb * (1.0 + gn);
  return PLD_SUCCESS;
}

/* The ball of A(a + i tau) from a node table. */
static void nodes_eval(const struct psg *g, const struct nodes *t, double tau,
                       double *re, double *im, double *rad)
{
  double sr = 0.0, si = 0.0;
  for (size_t i = 0; i < t->n; i++) {
    double th = tau * t->l[i];
    sr += t->w[i] * cos(th);
    si += t->w[i] * sin(th);
  }
  *re = sr;
  *im = si;
  double r = t->sa + fabs(tau) * t->sb;
  r += exp(quad_log_err(g, t->a, t->eta, tau)) + exp(t->ltails);
  *rad = r * (1.0 + 1e-9) + 1e-300;
}

static double psg_a(int dir, double c)
{
  return dir == PLD_DIR_PQ ? 1.0 + c : -c;
}

/* An evaluator: the node table, its psg and direction. */
struct psg_ev {
  struct psg g;
  int dir;
  struct nodes nd;
};

static int psg_prepare(const struct pld_mech *m, int dir, double c,
                       double tmax, double tol, void **ev)
{
  struct psg g;
  if (!psg_get(m, &g))
    return PLD_EUNSUPPORTED;
  if (fabs(psg_a(dir, c)) * g.muh > AMU_MAX)
    return PLD_ERANGE;
  struct psg_ev *e = pld_malloc(sizeof *e);
  if (!e)
    return PLD_ENOMEM;
  e->g = g;
  e->dir = dir;
  int st = nodes_make(&g, psg_a(dir, c), fabs(tmax), tol, &e->nd);
  if (st) {
    pld_free(e);
    return st;
  }
  *ev = e;
  return PLD_SUCCESS;
}

static void psg_at(const void *ev, double t, double *re, double *im,
                   double *rad)
{
  const struct psg_ev *e = ev;
  /* M_PQ(c + it) = A(1 + c + it), M_QP(c + it) = A(-c - it) */
  nodes_eval(&e->g, &e->nd, e->dir == PLD_DIR_PQ ? t : -t, re, im, rad);
}

static void psg_release(void *ev)
{
  struct psg_ev *e = ev;
  if (!e)
    return;
  nodes_free(&e->nd);
  pld_free(e);
}

/* The real A(a) enclosed: [*lo, *hi]. */
static int real_ball(const struct psg *g, double a, double *lo, double *hi)
{
  struct nodes nd;
  int st = nodes_make(g, a, 0.0, 1e-13, &nd);
  if (st)
    return st;
  double re, im, rad;
  nodes_eval(g, &nd, 0.0, &re, &im, &rad);
  nodes_free(&nd);
  *lo = re - rad;
  *hi = re + rad;
  return isfinite(*hi) ? PLD_SUCCESS : PLD_ERANGE;
}

/* log of an upper bound of sup psi, psi = phi rho^{a+1}/(q mu z) (the loss
 * density behind A(a + i tau) in the loss variable, times a constant).
 * q = 1: exactly e^{a(a-1)mu^2/2}/(mu sqrt(2 pi)).  Otherwise the largest
 * value on a grid of [xl, xh], each raised by the step times a bound of
 * |d/dx log psi| = |-x - mu + (a+1) mu w| <= |x| + (|a+1| + 1) mu over its
 * cell, and beyond the grid the monotone majorants (rho <= 1 for z <= 1,
 * rho <= z for z >= 1, rho >= 1 - q, rho >= q z) at its ends. */
static double psi_log_sup(const struct psg *g, double a)
{
  double q = g->q, mh = g->muh, ml = g->mul, p = a + 1.0, mu = g->mu;
  double e1 = 0.5 * a * (a - 1.0) * mh * mh;
  if (q == 1.0)
    return e1 - log(ml) - LS2PI + 1e-10 * (1.0 + fabs(e1));
  double lq = log(q), l1q = log1p(-q);
  double xl = -mh - 12.0;
  double xh = fmax(0.5 * mh, a * mh) + sqrt(2.0 * fmax(e1, 0.0) + 60.0) + 2.0;
  /* left: psi <= c_l phi(x + mu) e^{mu^2}/(q mu), increasing for x < -mu */
  double cl = p >= 0.0 ? 0.0 : p * l1q;
  double best = cl + mh * mh - 0.5 * (xl + mh) * (xl + mh) - LS2PI - log(q * ml);
  /* right: psi <= c_r e^{a(a-1)mu^2/2} phi(x - a mu)/mu, decreasing for
   * x > a mu (c_r = 1/q for p >= 0, q^a for p < 0) */
  double cr = p >= 0.0 ? -lq : a * lq;
  double xa = xh - (a >= 0.0 ? a * mh : a * ml);
  best = fmax(best, cr + e1 - 0.5 * xa * xa - LS2PI - log(ml));
  double dx = 0.25 / (fmax(fabs(xl), fabs(xh)) + (fabs(p) + 1.0) * mh + 1.0);
  double hm2 = 0.5 * mu * mu, gmax = -INFINITY;
  for (double x = xl; x < xh + dx; x += dx) {
    double arg = mu * x - hm2;
    double l = log1p(q * expm1(arg));
    double v = -0.5 * x * x - LS2PI + p * l - arg;
    gmax = fmax(gmax, v);
  }
  gmax += 0.25 - log(q * ml); /* the cells' rise */
  best = fmax(best, gmax);
  return best + 1e-9 * (1.0 + fabs(best)) + 1e-9 * fabs(p) * (fabs(xl) + fabs(xh));
}

/* Decay facts (design.md §16.2).
 * tv: in the loss variable y = l(x) the integrand of A(a + i tau) is
 * psi(y) e^{i tau y}, psi = phi rho^{a+1}/rho' (rho' = q mu z), which has at
 * most three critical points (d/dx log psi = -x - mu + (a+1) mu w, w =
 * q z/rho, whose derivative -1 + (a+1) mu^2 w (1-w) vanishes at most twice)
 * and vanishes at both ends, so TV(psi) <= 4 sup psi and |A(a + i tau)| <=
 * TV/|tau| (integration by parts); sup psi by psi_log_sup.
 * lip: |d/dtau (e^{-i tau m} A(a + i tau))| <= E_Q[rho^a |l - m|]; with
 * m = log(1-q), 0 <= l - m = log1p(q z/(1-q)) <= q z/(1-q) and E_Q[z rho^a] =
 * (A(a+1) - (1-q) A(a))/q, so lip <= A(a+1)/(1-q) - A(a); with m = 0, |l| <=
 * |mu x - mu^2/2| and rho^a <= (1-q) + q z^a (a >= 1 or a <= 0). */
static int psg_decay(const struct pld_mech *m, int dir, double c,
                     double *atom, double *tv, double *lip)
{
  *atom = 0.0; /* the loss has a density */
  struct psg g;
  if (!psg_get(m, &g))
    return PLD_EUNSUPPORTED;
  double a = psg_a(dir, c), q = g.q, mh = g.muh;
  double e1 = 0.5 * a * (a - 1.0) * mh * mh;
  double lsup = psi_log_sup(&g, a);
  lsup += 1e-10 * (1.0 + fabs(lsup));
  *tv = exp(lsup + log(4.0)) * (1.0 + 1e-10);
  double b2 = (1.0 - q) * sqrt(mh * mh + 0.25 * mh * mh * mh * mh) +
              q * exp(e1) * sqrt(mh * mh + pow(a * mh * mh - 0.5 * mh * mh, 2.0));
  /* b2's rho^a <= (1-q) + q z^a needs a convex power (q = 1: equality) */
  double L = (q == 1.0 || a >= 1.0 || a <= 0.0) ? b2 * (1.0 + 1e-10) : INFINITY;
  if (q < 1.0) {
    double a0lo, a0hi, a1lo, a1hi;
    int st = real_ball(&g, a, &a0lo, &a0hi);
    if (!st)
      st = real_ball(&g, a + 1.0, &a1lo, &a1hi);
    if (st)
      return st;
    double b1 = (a1hi / (1.0 - q) * (1.0 + 4.0 * U) - a0lo) * (1.0 + 4.0 * U);
    L = fmin(L, fmax(b1, 0.0));
  }
  *lip = L;
  return isfinite(*tv) && isfinite(*lip) ? PLD_SUCCESS : PLD_ERANGE;
}

static int psg_cgf(const struct pld_mech *m, int dir, double c, double *k0,
                   double *k1, double *k2)
{
  struct psg g;
  if (!psg_get(m, &g))
    return PLD_EUNSUPPORTED;
  double a = psg_a(dir, c);
  if (fabs(a) * g.muh > AMU_MAX)
    return PLD_ERANGE;
  struct nodes nd;
  int st = nodes_make(&g, a, 0.0, 1e-12, &nd);
  if (st)
    return st;
  double s0 = 0.0, s1 = 0.0, s2 = 0.0;
  for (size_t i = 0; i < nd.n; i++) {
    s0 += nd.w[i];
    s1 += nd.w[i] * nd.l[i];
    s2 += nd.w[i] * nd.l[i] * nd.l[i];
  }
  nodes_free(&nd);
  double sg = dir == PLD_DIR_PQ ? 1.0 : -1.0;
  *k0 = log(s0);
  *k1 = sg * s1 / s0;
  *k2 = s2 / s0 - (s1 / s0) * (s1 / s0);
  return PLD_SUCCESS;
}

const struct pld_mgf_ops pld_mgf_poisson_ops = {
    .has = psg_has,
    .prepare = psg_prepare,
    .at = psg_at,
    .release = psg_release,
    .decay = psg_decay, .cgf = psg_cgf};
