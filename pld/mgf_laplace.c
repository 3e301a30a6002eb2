/* pldkit: the certified MGF of the Laplace mechanism (the capability
 * pld_mgf_ops of pld/inversion.h, docs/design.md §16.9).
 *
 * With a = s/b, P = Lap(0, b), Q = Lap(s, b), the loss log(p/q) is +a on
 * x <= 0 (P-mass 1/2), -a on x >= s (P-mass e^{-a}/2) and a - 2x/b in
 * between, so for every complex sigma with Re sigma > -1/2
 *   M(sigma) = E_P[e^{sigma L}] = E1/2 + E2/2 + (E1 - E2)/(2 (1 + 2 sigma)),
 *   E1 = e^{sigma a},  E2 = e^{-(1 + sigma) a},
 * the same in both directions (the pair is symmetric).  The atoms at +-a
 * keep |M(c + it)| from decaying: |M(c + it)| <= (E1 + E2)/2 + (|E1| +
 * |E2|)/(4|t|) at real magnitudes |E1| = e^{ca}, |E2| = e^{-(1+c)a}. */
#include <float.h>
#include <math.h>

#include "alloc.h"
#include "internal.h"
#include "inversion.h"

#define U DBL_EPSILON

static int lap_has(const struct pld_mech *m)
{
  return m->type == &pld_mech_type_laplace && m->par[0] > 0.0 &&
         m->par[0] <= 50.0;
}

struct lap_ev {
  double a, c;
};

static int lap_prepare(const struct pld_mech *m, int dir, double c,
                       double tmax, double tol, void **ev)
{
  (void)dir;
  (void)tmax;
  (void)tol;
  if (!lap_has(m))
    return PLD_EUNSUPPORTED;
  struct lap_ev *e = pld_malloc(sizeof *e);
  if (!e)
    return PLD_ENOMEM;
  e->a = m->par[0];
  e->c = c;
  *ev = e;
  return PLD_SUCCESS;
}

/* The ball of M(c + it).  Rounding: each E_k is e^{x}(cos y, sin y) with
 * x = c a or -(1 + c) a and y = +-t a, each product within u of its value
 * (|x| u, |y| u), exp and cos/sin 2 ulp, the products u: relative (|x| +
 * |y|) u + 6u; a = s/b itself within u/2 of the exact ratio moves E1 by
 * |sigma| da |E1| and E2 by |1 + sigma| da |E2|; the sum and the complex
 * division by 1 + 2 sigma (|1 + 2 sigma| >= 1) add 16u (|E1| + |E2|). */
static void lap_at(const void *ev, double t, double *re, double *im,
                   double *rad)
{
  const struct lap_ev *e = ev;
  double a = e->a, c = e->c;
  double x1 = c * a, y = t * a, x2 = -(1.0 + c) * a;
  double g1 = exp(x1), g2 = exp(x2);
  double cy = cos(y), sy = sin(y);
  double e1r = g1 * cy, e1i = g1 * sy, e2r = g2 * cy, e2i = -g2 * sy;
  /* (E1 - E2)/(1 + 2 sigma) */
  double dr = e1r - e2r, di = e1i - e2i;
  double wr = 1.0 + 2.0 * c, wi = 2.0 * t, w2 = wr * wr + wi * wi;
  double qr = (dr * wr + di * wi) / w2, qi = (di * wr - dr * wi) / w2;
  *re = 0.5 * (e1r + e2r + qr);
  *im = 0.5 * (e1i + e2i + qi);
  double sig = hypot(c, t), sig1 = hypot(1.0 + c, t);
  double da = 0.5 * U * a * 1.01;
  double r1 = (fabs(x1) + fabs(y)) * U + 6.0 * U + sig * da * 1.01;
  double r2 = (fabs(x2) + fabs(y)) * U + 6.0 * U + sig1 * da * 1.01;
  double f = 0.5 * (1.0 + 1.0 / sqrt(w2));
  *rad = ((g1 * r1 + g2 * r2) * f + 16.0 * U * (g1 + g2)) * 1.01 + 1e-300;
}

static void lap_release(void *ev)
{
  pld_free(ev);
}

/* |M(c + it)| <= atom + tv/|t|, |d/dt M| <= E[|L| e^{cL}] <= a e^{ca}. */
static int lap_decay(const struct pld_mech *m, int dir, double c, double *atom,
                     double *tv, double *lip)
{
  (void)dir;
  if (!lap_has(m))
    return PLD_EUNSUPPORTED;
  double ah = m->par[0] * (1.0 + 2.0 * U);
  double g1 = exp(c * ah) * (1.0 + 8.0 * U), g2 = exp(-(1.0 + c) * m->par[0] * (1.0 - 2.0 * U)) * (1.0 + 8.0 * U);
  *atom = 0.5 * (g1 + g2) * (1.0 + 4.0 * U);
  *tv = 0.25 * (g1 + g2) * (1.0 + 4.0 * U);
  *lip = ah * g1 * (1.0 + 4.0 * U);
  return PLD_SUCCESS;
}

static double lap_k(double a, double c)
{
  double e1 = exp(c * a), e2 = exp(-(1.0 + c) * a);
  return log(0.5 * (e1 + e2 + (e1 - e2) / (1.0 + 2.0 * c)));
}

static int lap_cgf(const struct pld_mech *m, int dir, double c, double *k0,
                   double *k1, double *k2)
{
  (void)dir;
  if (!lap_has(m))
    return PLD_EUNSUPPORTED;
  double a = m->par[0], h = 1e-3 * fmax(1.0, c);
  double km = lap_k(a, c - h), k = lap_k(a, c), kp = lap_k(a, c + h);
  *k0 = k;
  *k1 = (kp - km) / (2.0 * h);
  *k2 = (kp - 2.0 * k + km) / (h * h);
  return isfinite(k) && isfinite(*k2) ? PLD_SUCCESS : PLD_ERANGE;
}

const struct pld_mgf_ops pld_mgf_laplace_ops = {
    .has = lap_has,
    .prepare = lap_prepare,
    .at = lap_at,
    .release = lap_release,
    .decay = lap_decay,
    .cgf = lap_cgf};
