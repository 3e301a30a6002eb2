/* pldkit internal: GSL quadrature and special functions with booked errors.
 * See quad.h for the contract and for why CQUAD is the only GSL integrator
 * used (the others report run-time failures through GSL's process-global
 * error handler, which aborts by default). */
#include "quad.h"

#include <float.h>
#include <math.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_integration.h>
#include <gsl/gsl_sf_erf.h>
#include <gsl/gsl_sf_result.h>

#include <pldkit/status.h>

#include "alloc.h"
#include "numerics.h"

/* CQUAD checks epsabs <= 0 && epsrel < GSL_DBL_EPSILON through GSL_ERROR;
 * every request is raised to at least this relative tolerance first. */
#define EPSREL_MIN 1e-15

void pld_quad_ws_local(pld_quad_ws *ws, gsl_integration_cquad_ival *ivals,
                       size_t *heap, size_t n)
{
  ws->w.size = n;
  ws->w.ivals = ivals;
  ws->w.heap = heap;
}

pld_quad_ws *pld_quad_ws_alloc(size_t intervals)
{
  /* Built by hand rather than by gsl_integration_cquad_workspace_alloc,
   * which calls GSL's error handler (abort) when malloc fails: here a
   * failure is a NULL return, and the allocations are pld_malloc's, seen by
   * the failing-allocator sweep. */
  if (intervals < 3 || intervals > 100000) return NULL;
  pld_quad_ws *ws = pld_malloc(sizeof *ws);
  if (!ws) return NULL;
  ws->w.size = intervals;
  ws->w.ivals = pld_malloc(sizeof(gsl_integration_cquad_ival) * intervals);
  ws->w.heap = pld_malloc(sizeof(size_t) * intervals);
  if (!ws->w.ivals || !ws->w.heap) {
    pld_quad_ws_free(ws);
    return NULL;
  }
  return ws;
}

void pld_quad_ws_free(pld_quad_ws *ws)
{
  if (!ws) return;
  pld_free(ws->w.ivals);
  pld_free(ws->w.heap);
  pld_free(ws);
}

enum { MAP_FINITE, MAP_RIGHT, MAP_LEFT, MAP_BOTH };

/* The integrand as CQUAD sees it: mapped to a finite interval, counted,
 * and checked (CQUAD would take a non-finite value for a removable
 * singularity and drop it without a word). */
typedef struct tramp {
  pld_quad_fn f;
  void *ctx;
  int map;
  double a, b;
  size_t n;
  double fmax, emax; /* max |f|, max err */
  double rmax, emax0; /* max err/|f| where f != 0, max err where f == 0 */
  int neg, bad;       /* a negative value seen; a non-finite value seen */
} tramp;

static double tramp_eval(double t, void *p)
{
  tramp *T = p;
  double x, jac;
  T->n++;
  switch (T->map) {
  case MAP_RIGHT: { /* [a, inf): x = a + t/(1-t), t in [0, 1] */
    if (!(t < 1.0)) return 0.0;
    double s = 1.0 - t;
    x = T->a + t / s;
    jac = 1.0 / (s * s);
    break;
  }
  case MAP_LEFT: /* (-inf, b]: x = b - (1-t)/t, t in [0, 1] */
    if (!(t > 0.0)) return 0.0;
    x = T->b - (1.0 - t) / t;
    jac = 1.0 / (t * t);
    break;
  case MAP_BOTH: { /* x = t/(1-t^2), t in [-1, 1] */
    if (!(fabs(t) < 1.0)) return 0.0;
    double s = (1.0 - t) * (1.0 + t);
    x = t / s;
    jac = (1.0 + t * t) / (s * s);
    break;
  }
  default:
    x = t;
    jac = 1.0;
  }
  /* the mapped point overflowed: the integrand is taken as 0 out there
   * (the documented decay condition of infinite intervals) */
  if (!isfinite(x)) return 0.0;
  double e = 0.0;
  double v = T->f(x, T->ctx, &e);
  if (!isfinite(v) || !isfinite(e) || !(e >= 0.0)) {
    T->bad = 1;
    return 0.0;
  }
  v *= jac;
  e *= jac;
  if (!isfinite(v) || !isfinite(e)) {
    T->bad = 1;
    return 0.0;
  }
  if (fabs(v) > T->fmax) T->fmax = fabs(v);
  if (e > T->emax) T->emax = e;
  if (v < 0.0) T->neg = 1;
  if (v != 0.0) {
    double rel = e / fabs(v);
    if (rel > T->rmax) T->rmax = rel;
  } else if (e > T->emax0) {
    T->emax0 = e;
  }
  return v;
}

int pld_quad(pld_quad_ws *ws, pld_quad_fn f, void *ctx, double a, double b,
             double epsabs, double epsrel, pld_quad_result *out)
{
  if (!ws || !ws->w.ivals || !ws->w.heap || ws->w.size < 3 || !f || !out || isnan(a) || isnan(b) || !(a <= b) ||
      a == INFINITY || b == -INFINITY || !isfinite(epsabs) ||
      !(epsabs >= 0.0) || !isfinite(epsrel) || !(epsrel >= 0.0))
    return PLD_EINVAL;
  if (a == b) {
    out->val = 0.0;
    out->err = 0.0;
    out->neval = 0;
    return PLD_SUCCESS;
  }
  tramp T = {f, ctx, MAP_FINITE, a, b, 0, 0.0, 0.0, 0.0, 0.0, 0, 0};
  double ta = a, tb = b;
  if (isinf(a) && isinf(b)) {
    T.map = MAP_BOTH;
    ta = -1.0;
    tb = 1.0;
  } else if (isinf(b)) {
    T.map = MAP_RIGHT;
    ta = 0.0;
    tb = 1.0;
  } else if (isinf(a)) {
    T.map = MAP_LEFT;
    ta = 0.0;
    tb = 1.0;
  }
  double W = tb - ta;
  /* b - a overflowing would make CQUAD's midpoints infinite */
  if (!isfinite(W)) return PLD_EINVAL;
  gsl_function F = {tramp_eval, &T};
  double val = 0.0, est = 0.0;
  size_t nev = 0;
  /* every argument CQUAD checks through GSL_ERROR is valid here: F, &val
   * and the workspace are non-NULL, epsabs >= 0, epsrel >= 1e-15 */
  int gst = gsl_integration_cquad(&F, ta, tb, epsabs, fmax(epsrel, EPSREL_MIN),
                                  &ws->w, &val, &est, &nev);
  if (T.bad) return PLD_ERANGE;
  if (gst == GSL_EDIVERGE) return PLD_ERANGE;
  if (gst != GSL_SUCCESS || !isfinite(val) || !isfinite(est)) return PLD_ERANGE;
  if (T.n > PLD_QUAD_MAX_EVAL) return PLD_EMAXITER;
  /* Rounding of CQUAD's sums: each interval's value is 2h w c_0 with c_0 a
   * 5..33-term dot product of the values with positive Clenshaw-Curtis
   * weights summing to sqrt 2, so it carries at most ~34 u 2h max|f|;
   * adding up the intervals (at most one per evaluation) at most n u W
   * max|f|.  Booked with a factor 2: (128 + 2 n) u W max|f|. */
  double round = (128.0 + 2.0 * (double)T.n) * PLD_U * W * T.fmax;
  /* With no negative value the dot products and the sum have no
   * cancellation: each rounding is relative to the positive partial sums,
   * all <= the computed total, so (128 + 2 n) u (val + the estimate's
   * margin) bounds the same sums. */
  if (!T.neg)
    round = fmin(round, (128.0 + 2.0 * (double)T.n) * PLD_U *
                            (fabs(val) + PLD_QUAD_SAFETY * est));
  /* The integrand's own errors.  The rule is sum_j w_j f_j with positive
   * weights summing to W, so errors e_j add at most sum_j w_j e_j: at most
   * W max e_j in general; when no value was negative, e_j <= r |f_j| + e0
   * (r the largest relative error, e0 the largest error at a zero value)
   * gives at most r sum_j w_j f_j + W e0, and sum_j w_j f_j is val (up to
   * the rounding above); both bounds hold, the smaller is booked (a value
   * near 0 makes r large). */
  double vald = W * T.emax;
  if (!T.neg)
    vald = fmin(vald, T.rmax * (fabs(val) + round) + W * T.emax0);
  double err = PLD_QUAD_SAFETY * est + round + vald;  out->val = val;
  out->err = err;
  out->neval = T.n;
  return PLD_SUCCESS;
}

double pld_quad_upper(const pld_quad_result *r)
{
  return pld_add_up(r->val, r->err);
}

double pld_quad_lower(const pld_quad_result *r)
{
  return -pld_add_up(-r->val, r->err);
}

/* Upper bound on log erfc(z) for z = sqrt(P/2) d computed in floating point
 * (d = hi - xs or xs - lo, itself one rounding): the three roundings move z
 * by at most 4u|z| (+ O(u^2)), and |d/dz log erfc z| <= 2 (|z| + 1)
 * (for z >= 0 by the Mills-ratio bound e^{-z^2}/(sqrt(pi) erfc z) <=
 * (z + sqrt(z^2 + 4/pi))/2 <= z + 1; for z < 0 erfc z >= 1), so the log
 * moves by at most 8u(|z| + 1)|z|, booked as 12u.  GSL's err is booked
 * times PLD_QUAD_SAFETY. */
static double log_erfc_up(double z)
{
  if (z == INFINITY) return -INFINITY;
  if (z == -INFINITY) return PLD_LN2;
  gsl_sf_result r;
  /* gsl_sf_log_erfc_e has no failure on finite arguments (total: log
   * erfc(x) via erfc for x <= 8 and an asymptotic form above), so GSL's
   * handler is not reached */
  if (gsl_sf_log_erfc_e(z, &r) != GSL_SUCCESS) return NAN;
  double v = r.val + PLD_QUAD_SAFETY * r.err +
             12.0 * PLD_U * (fabs(z) + 1.0) * fabs(z);
  return v + 4.0 * PLD_U * (fabs(v) + 1.0);
}

double pld_quad_log_gauss_tails_up(double P, double xs, double lo, double hi)
{
  if (!isfinite(P) || !(P > 0.0) || !isfinite(xs) || isnan(lo) ||
      isnan(hi) || !(lo <= hi))
    return NAN;
  double sp = sqrt(0.5 * P);
  double lu = -INFINITY, ll = -INFINITY;
  if (hi != INFINITY) lu = log_erfc_up(sp * (hi - xs));
  if (lo != -INFINITY) ll = log_erfc_up(sp * (xs - lo));
  if (isnan(lu) || isnan(ll)) return NAN;
  double l = pld_logaddexp(lu, ll);
  if (l == -INFINITY) return l;
  /* int = sqrt(pi / (2P)) (erfc(z_hi) + erfc(z_lo)): the constant's log
   * carries a few ulps of its magnitude, logaddexp a few of its result */
  double c = 0.5 * log(3.14159265358979323846 / (2.0 * P));
  double r = l + c;
  return r + 8.0 * PLD_U * (fabs(l) + fabs(c) + 1.0);
}
