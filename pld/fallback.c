/* pldkit: the accountant's grid-free bounds (basic and advanced composition,
 * single runs, the composed loss's mean and variance), used next to the grid
 * and instead of it where the grid cannot certify (huge counts, where the
 * booked relative error compounds as (1 + rel)^count; grids over the cap).
 *
 * Everything here reads the mechanisms' exact curves (the door) and, for
 * pure-DP detection, their constructors' parameters; nothing needs the RDP
 * backend (the RDP bound of the events lives one layer up, bounds/best.c).
 * The arguments are in docs/design.md, Sec. 9.  In short, for an event
 * group i (mechanism M_i run c_i times) and the merged Gaussian mu:
 *
 *  - single runs (lower ends): composing never lowers delta(eps) in either
 *    direction (the first run's pair is a post-processing, the marginal, of
 *    the composed pair), so eps(delta) and delta(eps) of one run of any
 *    event, and of the merged Gaussian alone, are lower bounds;
 *  - basic composition: runs that are (eps_i, delta_i)-DP compose to
 *    (sum eps_i, sum delta_i)-DP;
 *  - advanced composition (Kairouz, Oh, Viswanath 2015): an (e, d)-DP pair
 *    is a post-processing of the four-outcome pair that is, with probability
 *    1 - d, binary randomized response with e; so the composition is
 *    (eps, sum d_i + delta')-DP where eps, delta' hold for the composition of
 *    binary RR_{e_i} and the Gaussian.  That one is bounded by Chernoff:
 *    delta' <= exp(K(l) - l eps) l^l / (1+l)^(1+l) for every l > 0, with
 *    K(l) = log E_P e^{l L} = sum c_i log(p_i e^{l e_i} + (1-p_i) e^{-l e_i})
 *    + l (l+1) mu^2 / 2, p_i = e^{e_i}/(1 + e^{e_i});
 *  - the loss's mean and variance (lower ends): see the section below.
 *
 * Soundness: every number returned was VERIFIED at the point returned (a
 * root search only chooses where to look), and every float step is rounded
 * the safe way by an explicit slack.
 */
#include <float.h>
#include <math.h>
#include <string.h>
#ifdef PLD_DEBUG_MOMENTS
#include <stdio.h>
#endif

#include "alloc.h"
#include "internal.h"
#include "numerics.h"

/* Absolute slack on a computed value: a computed 0 may be an underflowed
 * 1e-320 (the relative-accuracy contract cannot hold in the subnormals). */
#define TINY 1e-300
/* ... and on a mechanism's curve value: its contract (pld_curve) is the
 * relative rel_err, which the builder relies on down to DBL_MIN (design.md
 * Sec. 2, subnormal values); only a true value below DBL_MIN may come out
 * as anything in [0, DBL_MIN].  With TINY here, T runs' basic bound could
 * never go below T 1e-300, above PLD_DELTA_FLOOR: a delta at eps = 1e5 of
 * 100 Poisson-Gaussian runs built a 210k-point grid for [0, 1e-298]. */
#define CURVE_TINY DBL_MIN
/* Relative accuracy of pld_gaussian_delta (as in the accountant's closed
 * form). */
#define GAUSS_REL 1e-10
/* Largest loss searched (the builder's limit too). */
#define EPS_MAX 1e9

const char *pld_bound_kind_name(int kind)
{
  switch (kind) {
  case PLD_BOUND_GRID:
    return "grid";
  case PLD_BOUND_CLOSED_FORM:
    return "closed-form";
  case PLD_BOUND_RDP:
    return "rdp";
  case PLD_BOUND_BASIC:
    return "basic";
  case PLD_BOUND_ADVANCED:
    return "advanced";
  case PLD_BOUND_SINGLE_RUN:
    return "single-run";
  case PLD_BOUND_MOMENTS:
    return "moments";
  case PLD_BOUND_INVERSION:
    return "inversion";
  case PLD_BOUND_NONE:
    return "none";
  default:
    return "unknown";
  }
}

/* ---- one run's curve, verified ---- */

/* One source of a curve: a mechanism, or the Gaussian with mu (m NULL). */
struct src {
  const struct pld_mech *m;
  double mu;
  double rel; /* relative accuracy of the values */
};

/* The larger direction's value at eps (the curve's max over the
 * directions is what matters), for each side: a NaN or a failed callback
 * proves nothing, so it counts as 1 on the upper side (*up) and 0 on the
 * lower one (*lo) -- these bounds are optional, and a curve that fails far
 * out, where the grid never looks, must not fail the query.  Only
 * PLD_ENOMEM is passed on. */
static int src_value(const struct src *s, double eps, double *up, double *lo)
{
  if (!s->m) {
    double v = pld_gaussian_delta(s->mu, eps);
    *up = isnan(v) ? 1.0 : v;
    *lo = isnan(v) ? 0.0 : v;
    return PLD_SUCCESS;
  }
  /* a bracket (pld_mech_bracket): upper values from its upper member (its
   * curve), lower values from its lower member only */
  const pld_curve *c = &s->m->curve;
  const pld_curve *cl = &pld_mech_lower(s->m)->curve;
  double u = 0.0, l = 0.0;
  for (int dir = 0; dir < (c->symmetric ? 1 : 2); dir++) {
    double d;
    int r = c->delta(c->ctx, dir, 1, &eps, &d);
    if (r == PLD_ENOMEM)
      return PLD_ENOMEM;
    if (r || isnan(d)) {
      u = 1.0;
      continue;
    }
    u = d > u ? d : u;
    if (cl != c) {
      r = cl->delta(cl->ctx, dir, 1, &eps, &d);
      if (r == PLD_ENOMEM)
        return PLD_ENOMEM;
      if (r || isnan(d))
        continue;
    }
    l = d > l ? d : l;
  }
  *up = u;
  *lo = l;
  return PLD_SUCCESS;
}

/* Certified upper and lower ends of the true value from a computed one. */
static double val_up(const struct src *s, double v)
{
  return fmin(v / (1.0 - s->rel) * (1.0 + 4.0 * PLD_U) + CURVE_TINY, 1.0);
}
static double val_lo(const struct src *s, double v)
{
  return fmax(v / (1.0 + s->rel) * (1.0 - 4.0 * PLD_U) - CURVE_TINY, 0.0);
}

/* delta(eps) of one run: a bracket. */
static int src_delta(const struct src *s, double eps, pld_bound *b)
{
  double u, l;
  int st = src_value(s, eps, &u, &l);
  if (st)
    return st;
  b->upper = val_up(s, u);
  b->lower = val_lo(s, l);
  return PLD_SUCCESS;
}

static double loss_scale(const struct src *s)
{
  double l = s->m ? s->m->curve.loss_scale : s->mu * s->mu;
  return isfinite(l) && l > 1e-6 ? l : 1e-6;
}

/* The searches' question at eps: upper (which = 1), is the certified
 * delta(eps) <= target; lower (0), is the certified-lower delta(eps) not
 * above the target. */
struct src_pred {
  const struct src *s;
  double target;
  int which;
};

static int src_above(double eps, void *ctx, int *above)
{
  const struct src_pred *q = ctx;
  pld_bound b;
  int st = src_delta(q->s, eps, &b);
  if (st)
    return st;
  *above = q->which ? b.upper <= q->target : !(b.lower > q->target);
  return PLD_SUCCESS;
}

/* Smallest verified eps >= 0 with certified delta(eps) <= target (upper
 * end of eps(target)); +inf if none up to EPS_MAX. */
static int src_eps_upper(const struct src *s, double target, double *out)
{
  pld_bound b;
  int st = src_delta(s, 0.0, &b);
  if (st)
    return st;
  if (b.upper <= target) {
    *out = 0.0;
    return PLD_SUCCESS;
  }
  if ((st = src_delta(s, INFINITY, &b)))
    return st;
  if (!(b.upper <= target)) {
    *out = INFINITY; /* the mass at +inf alone may exceed the target */
    return PLD_SUCCESS;
  }
  struct src_pred q = {s, target, 1};
  double lo = 0.0, hi = loss_scale(s);
  int found;
  if ((st = pld_bracket_double(src_above, &q, &lo, &hi, EPS_MAX, &found)))
    return st;
  if (!found) {
    *out = INFINITY;
    return PLD_SUCCESS;
  }
  return pld_bisect(src_above, &q, lo, hi, 0.0, 1e-14, 200, +1, out);
}

/* Largest verified eps with certified-lower delta(eps) > target, so that
 * the true eps(target) exceeds it (lower end); 0 if none, +inf if the mass
 * at +inf alone exceeds the target. */
static int src_eps_lower(const struct src *s, double target, double *out)
{
  pld_bound b;
  int st = src_delta(s, INFINITY, &b);
  if (st)
    return st;
  if (b.lower > target) {
    *out = INFINITY;
    return PLD_SUCCESS;
  }
  if ((st = src_delta(s, 0.0, &b)))
    return st;
  if (!(b.lower > target)) {
    *out = 0.0;
    return PLD_SUCCESS;
  }
  struct src_pred q = {s, target, 0};
  double lo = 0.0, hi = loss_scale(s);
  int found; /* not found: hi above EPS_MAX, lo is verified */
  if ((st = pld_bracket_double(src_above, &q, &lo, &hi, EPS_MAX, &found)))
    return st;
  return pld_bisect(src_above, &q, lo, hi, 0.0, 1e-14, 200, -1, out);
}

/* ---- advanced composition: Chernoff on the KOV worst case ---- */

/* log E e^{l L} of binary randomized response with e (under P):
 * log(p e^{le} + (1-p) e^{-le}) = le + log1p(-(1-p)(1 - e^{-2le})). */
static double rr_logmgf(double e, double l)
{
  if (e == 0.0)
    return 0.0;
  double w = 1.0 / (1.0 + exp(e)); /* 1 - p */
  return l * e + log1p(-w * -expm1(-2.0 * l * e));
}

struct chern {
  size_t n;
  const double *e;     /* per-run pure levels */
  const double *c;     /* run counts */
  double mu2;          /* merged Gaussian */
};

/* K(l) and a bound on its absolute rounding error. */
static double chern_K(const struct chern *ch, double l, double *err)
{
  double K = 0.5 * l * (l + 1.0) * ch->mu2, mag = fabs(K);
  for (size_t i = 0; i < ch->n; i++) {
    double t = ch->c[i] * rr_logmgf(ch->e[i], l);
    K += t;
    mag += fabs(t);
  }
  /* each term within ~8 ulps (logs, products), the sum within n ulps */
  *err = (16.0 + (double)ch->n) * PLD_U * mag;
  return K;
}

/* log of the conversion constant l^l / (1+l)^(1+l). */
static double log_conv(double l)
{
  return l * log(l / (1.0 + l)) - log1p(l);
}

/* Upper eps(delta) at one l, rounded up. */
static double chern_eps_at(const struct chern *ch, double ldelta, double l)
{
  double err, K = chern_K(ch, l, &err);
  double lc = log_conv(l);
  double num = K + lc - ldelta;
  double slack = err + 8.0 * PLD_U * (fabs(lc) + fabs(ldelta));
  double e = (num + slack) / l;
  e += 4.0 * PLD_U * fabs(e);
  return e > 0.0 ? e : 0.0;
}

/* Upper log delta(eps) at one l, rounded up. */
static double chern_ldelta_at(const struct chern *ch, double eps, double l)
{
  double err, K = chern_K(ch, l, &err);
  double lc = log_conv(l), le = l * eps;
  return K - le + lc + err + 8.0 * PLD_U * (fabs(le) + fabs(lc));
}

/* Minimise f(l) over l in [1e-12, 1e8] (log scale): a scan, then golden
 * section around the best point.  Any l is valid; this only tightens. */
static double chern_min(const struct chern *ch, double x, int want_eps)
{
#define F(l) (want_eps ? chern_eps_at(ch, x, l) : chern_ldelta_at(ch, x, l))
  const double a0 = log(1e-12), b0 = log(1e8);
  const int n = 100;
  double best = INFINITY;
  int bi = 0;
  for (int i = 0; i <= n; i++) {
    double f = F(exp(a0 + (b0 - a0) * i / n));
    if (f < best) {
      best = f;
      bi = i;
    }
  }
  double a = a0 + (b0 - a0) * (bi > 0 ? bi - 1 : 0) / n;
  double b = a0 + (b0 - a0) * (bi < n ? bi + 1 : n) / n;
  const double gr = 0.6180339887498949;
  double x1 = b - gr * (b - a), x2 = a + gr * (b - a);
  double f1 = F(exp(x1)), f2 = F(exp(x2));
  for (int it = 0; it < 80; it++) {
    if (f1 < f2) {
      b = x2;
      x2 = x1;
      f2 = f1;
      x1 = b - gr * (b - a);
      f1 = F(exp(x1));
    } else {
      a = x1;
      x1 = x2;
      f1 = f2;
      x2 = a + gr * (b - a);
      f2 = F(exp(x2));
    }
  }
  best = fmin(best, fmin(f1, f2));
  return best;
#undef F
}

/* ---- the queries ---- */

struct fb {
  const struct pld_fb_group *g;
  size_t n;
  double mu2;
  int complete;
  double *eps0; /* per group */
};

static void set_upper(pld_fb_answer *a, double v, int kind)
{
  if (v < a->bound.upper) {
    a->bound.upper = v;
    a->upper_kind = kind;
  }
}
static void set_lower(pld_fb_answer *a, double v, int kind)
{
  if (v > a->bound.lower) {
    a->bound.lower = v;
    a->lower_kind = kind;
  }
}

static int fb_init(struct fb *f, const struct pld_fb_group *g, size_t n,
                   double mu2, int complete)
{
  f->g = g;
  f->n = n;
  f->mu2 = isfinite(mu2) && mu2 > 0.0 ? mu2 : 0.0;
  f->complete = complete && isfinite(mu2);
  f->eps0 = pld_malloc((n ? n : 1) * sizeof(double));
  if (!f->eps0)
    return PLD_ENOMEM;
  for (size_t i = 0; i < n; i++)
    f->eps0[i] = pld_mech_pure_eps(g[i].m);
  return PLD_SUCCESS;
}

static struct src src_of(const struct pld_fb_group *g)
{
  struct src s = {g->m, 0.0,
                  fmax(g->m->curve.rel_err,
                       pld_mech_lower(g->m)->curve.rel_err)};
  return s;
}

/* Lower ends from single runs and from the Gaussian part alone. */
static int lower_eps(const struct fb *f, double delta, pld_fb_answer *a)
{
  int st;
  double e;
  for (size_t i = 0; i < f->n; i++) {
    struct src s = src_of(&f->g[i]);
    if ((st = src_eps_lower(&s, delta, &e)))
      return st;
    set_lower(a, e, PLD_BOUND_SINGLE_RUN);
  }
  if (f->mu2 > 0.0) {
    struct src s = {NULL, sqrt(f->mu2), GAUSS_REL};
    if ((st = src_eps_lower(&s, delta, &e)))
      return st;
    set_lower(a, e, PLD_BOUND_CLOSED_FORM);
  }
  return PLD_SUCCESS;
}

/* The per-run levels e[0..n) of the groups at per-run delta `share` (pure
 * groups: their eps0 unless use_curve), with counts c. */
static int levels(const struct fb *f, double share, int use_curve, double *e,
                  double *c)
{
  for (size_t i = 0; i < f->n; i++) {
    double ei = f->eps0[i];
    if (use_curve || !isfinite(ei)) {
      struct src s = src_of(&f->g[i]);
      double ec;
      int st = src_eps_upper(&s, share, &ec);
      if (st)
        return st;
      ei = fmin(ei, ec);
    }
    e[i] = ei;
    c[i] = (double)f->g[i].count;
  }
  return PLD_SUCCESS;
}

/* Upper ends of eps(delta) by basic and advanced composition.  Runs that
 * spend a share of delta: those of groups that are not pure DP, plus (mode
 * 1) those of the pure groups too, which may then do better than their
 * eps0 (randomized response over 10^12 values is (0, 1.7e-12)-DP). */
static int upper_eps(const struct fb *f, double delta, int mode, double *e,
                     double *c, pld_fb_answer *a)
{
  double nsp = 0.0; /* runs that spend a share */
  for (size_t i = 0; i < f->n; i++)
    if (mode || !isfinite(f->eps0[i]))
      nsp += (double)f->g[i].count;
  /* Basic: every spending run, and the merged Gaussian (one run), gets an
   * equal share of delta, rounded down so the shares sum to <= delta. */
  double nb = nsp + (f->mu2 > 0.0 ? 1.0 : 0.0);
  double share = nb > 0.0 ? delta / nb * (1.0 - 4.0 * PLD_U) : 0.0;
  int st = levels(f, share, mode, e, c);
  if (st)
    return st;
  double sum = 0.0;
  for (size_t i = 0; i < f->n; i++)
    sum += c[i] * e[i];
  if (f->mu2 > 0.0) {
    struct src s = {NULL, sqrt(f->mu2), GAUSS_REL};
    double eg;
    if ((st = src_eps_upper(&s, share, &eg)))
      return st;
    sum += eg;
  }
  if (isfinite(sum))
    set_upper(a, sum * (1.0 + (double)(f->n + 4) * PLD_U), PLD_BOUND_BASIC);
  /* Advanced: half of delta in equal shares to the spending runs (all of
   * it is delta' if none spends), the rest is delta' of the worst-case
   * composition; the Gaussian enters exactly, through its moment. */
  double dprime = delta;
  if (nsp > 0.0) {
    dprime = 0.5 * delta;
    if ((st = levels(f, 0.5 * delta / nsp * (1.0 - 4.0 * PLD_U), mode, e, c)))
      return st;
  }
  int fin = 1;
  for (size_t i = 0; i < f->n; i++)
    fin &= isfinite(e[i]);
  if (fin) {
    struct chern ch = {f->n, e, c, f->mu2};
    double v = chern_min(&ch, log(dprime), 1);
    if (isfinite(v))
      set_upper(a, v, PLD_BOUND_ADVANCED);
  }
  return PLD_SUCCESS;
}

int pld_fallback_epsilon(const struct pld_fb_group *g, size_t n, double mu2,
                         int complete, double delta, pld_fb_answer *out)
{
  struct fb f;
  int st = fb_init(&f, g, n, mu2, complete);
  if (st)
    return st;
  pld_fb_answer a = {{0.0, INFINITY}, PLD_BOUND_NONE, PLD_BOUND_NONE};
  st = lower_eps(&f, delta, &a);
  double *e = NULL, *c = NULL;
  if (!st && f.complete) {
    e = pld_malloc((n ? n : 1) * sizeof(double));
    c = pld_malloc((n ? n : 1) * sizeof(double));
    if (!e || !c)
      st = PLD_ENOMEM;
    int anypure = 0;
    for (size_t i = 0; i < n; i++)
      anypure |= isfinite(f.eps0[i]);
    for (int mode = 0; mode <= anypure && !st; mode++)
      st = upper_eps(&f, delta, mode, e, c, &a);
  }
  pld_free(e);
  pld_free(c);
  pld_free(f.eps0);
  if (st)
    return st;
  if (a.bound.lower > a.bound.upper)
    a.bound.lower = a.bound.upper; /* cannot happen in exact arithmetic */
  *out = a;
  return PLD_SUCCESS;
}

/* The basic composition's level for delta(eps): the s with sum_i c_i
 * min(eps0_i, s) + [Gaussian] s = eps (non-pure groups: eps0 = inf), by
 * filling the pure groups smallest eps0 first; +inf when every run is pure
 * and their eps0 fit.  Rounded so that the runs' eps sum to at most eps:
 * the filled part rounded up, the level down. */
static double water_level(const struct fb *f, double eps)
{
  double rem = f->mu2 > 0.0 ? 1.0 : 0.0, used = 0.0;
  size_t npure = 0;
  for (size_t i = 0; i < f->n; i++) {
    rem += (double)f->g[i].count;
    npure += isfinite(f->eps0[i]);
  }
  const double up = 1.0 + (double)(f->n + 4) * PLD_U;
  /* visit the pure groups by (eps0, index) ascending, after (lastv, lasti) */
  double lastv = -1.0;
  size_t lasti = 0;
  for (size_t k = 0; k < npure; k++) {
    size_t j = f->n;
    for (size_t i = 0; i < f->n; i++) {
      double e = f->eps0[i];
      if (!isfinite(e) || e < lastv || (e == lastv && i <= lasti))
        continue;
      if (j == f->n || e < f->eps0[j])
        j = i;
    }
    if (j == f->n)
      break;
    lastv = f->eps0[j];
    lasti = j;
    double s = rem > 0.0 ? (eps - used * up) / rem * (1.0 - 8.0 * PLD_U) : 0.0;
    if (s <= f->eps0[j])
      return s > 0.0 ? s : 0.0;
    used += (double)f->g[j].count * f->eps0[j];
    rem -= (double)f->g[j].count;
  }
  if (rem > 0.0) {
    double s = (eps - used * up) / rem * (1.0 - 8.0 * PLD_U);
    return s > 0.0 ? s : 0.0;
  }
  return used * up <= eps ? INFINITY : 0.0;
}

int pld_fallback_delta(const struct pld_fb_group *g, size_t n, double mu2,
                       int complete, double eps, pld_fb_answer *out)
{
  struct fb f;
  int st = fb_init(&f, g, n, mu2, complete);
  if (st)
    return st;
  pld_fb_answer a = {{0.0, 1.0}, PLD_BOUND_NONE, PLD_BOUND_NONE};
  pld_bound b;
  for (size_t i = 0; i < n && !st; i++) {
    struct src s = src_of(&g[i]);
    if (!(st = src_delta(&s, eps, &b)))
      set_lower(&a, b.lower, PLD_BOUND_SINGLE_RUN);
  }
  if (!st && f.mu2 > 0.0) {
    struct src s = {NULL, sqrt(f.mu2), GAUSS_REL};
    if (!(st = src_delta(&s, eps, &b)))
      set_lower(&a, b.lower, PLD_BOUND_CLOSED_FORM);
  }
  double *e = NULL, *c = NULL;
  if (!st && f.complete && eps < INFINITY) {
    /* basic: run i spends eps_i = min(eps0_i, s) (a pure group at its
     * eps0 has delta 0) and the merged Gaussian s, with s the level at
     * which the eps_i sum to eps: water filling over the pure groups' eps0,
     * smallest first (the level only rises as groups are filled: s_{j+1} -
     * s_j has the sign of s_j - e_j > 0).  A group of P = Q (eps0 ~ 0, e.g.
     * the upper member of a lower pair's own event) then costs nothing,
     * where one equal share per run cost every run a share. */
    double share = water_level(&f, eps);
    double d = 0.0;
    for (size_t i = 0; i < n && !st; i++) {
      if (isfinite(f.eps0[i]) && f.eps0[i] < share)
        continue; /* spends eps0, delta 0 */
      struct src s = src_of(&g[i]);
      if (!(st = src_delta(&s, share, &b)))
        d += (double)g[i].count * b.upper;
    }
    if (!st && f.mu2 > 0.0) {
      struct src s = {NULL, sqrt(f.mu2), GAUSS_REL};
      if (!(st = src_delta(&s, share, &b)))
        d += b.upper;
    }
    if (!st)
      set_upper(&a, fmin(d * (1.0 + (double)(n + 4) * PLD_U), 1.0),
                PLD_BOUND_BASIC);
    /* advanced, when every non-Gaussian group is pure */
    int allpure = 1;
    for (size_t i = 0; i < n; i++)
      allpure &= isfinite(f.eps0[i]);
    if (!st && allpure) {
      e = pld_malloc((n ? n : 1) * sizeof(double));
      c = pld_malloc((n ? n : 1) * sizeof(double));
      if (!e || !c) {
        st = PLD_ENOMEM;
      } else {
        for (size_t i = 0; i < n; i++) {
          e[i] = f.eps0[i];
          c[i] = (double)g[i].count;
        }
        struct chern ch = {n, e, c, f.mu2};
        double ld = chern_min(&ch, eps, 0);
        /* e^ld rounded up; below the normal range (where exp loses its
         * relative accuracy, or underflows to a false 0) DBL_MIN bounds it */
        if (ld < 0.0)
          set_upper(&a, ld < log(DBL_MIN) ? DBL_MIN
                                          : fmin(exp(ld) * (1.0 + 4.0 * PLD_U),
                                                 1.0),
                    PLD_BOUND_ADVANCED);
      }
    }
  }
  if (!st && eps == INFINITY && f.complete) {
    /* delta(inf): the composed mass at +inf is at most the sum of the
     * runs' (a union bound over runs); a pure run (bounded loss) has none */
    double d = 0.0;
    for (size_t i = 0; i < n && !st; i++) {
      if (isfinite(f.eps0[i]))
        continue;
      struct src s = src_of(&g[i]);
      if (!(st = src_delta(&s, INFINITY, &b)))
        d += (double)g[i].count * b.upper;
    }
    if (!st)
      set_upper(&a, fmin(d * (1.0 + (double)(n + 4) * PLD_U), 1.0),
                PLD_BOUND_BASIC);
  }
  pld_free(e);
  pld_free(c);
  pld_free(f.eps0);
  if (st)
    return st;
  if (a.bound.lower > a.bound.upper)
    a.bound.lower = a.bound.upper;
  *out = a;
  return PLD_SUCCESS;
}

/* ---- lower ends from the loss's mean and variance (Cantelli) ----
 *
 * docs/design.md Sec. 9.  For one direction, let L be the loss under the
 * first argument.  From upper bounds G on its CDF at grid points we build a
 * probability law nu that is stochastically below L (its CDF lies above
 * L's everywhere: each cell's mass sits at the cell's bottom, the unknown
 * rest at the bottom too), so the composed sum S'' of nu-draws is
 * stochastically below the composed loss S.  nu's mean m and variance v are
 * computed exactly (up to booked rounding).  Cantelli's inequality gives
 * P(S'' > E S'' - a) >= a^2 / (V + a^2), and
 *     delta(eps) >= (1 - e^{eps - y}) P(S > y)   for y > eps,
 * so delta(E S - a - t) >= (1 - e^{-t}) a^2 / (V + a^2).  Nothing in this
 * compounds over the runs (unlike the grid's booked relative error), which
 * is what makes it useful at 10^12 runs, where it is within a fraction of
 * the spread of T times the Kullback-Leibler divergence. */

#define MOM_MAX_POINTS (1u << 17)

/* Upper bounds on P(L <= y) (A) and on P(L < y) (B) at y[0..n), direction
 * dir of mechanism m, from the loss tails if it has them, else from the
 * curves (P(L > y) >= delta(y); P(L < y) <= e^y, and <= e^y Q[L' > -y]
 * <= e^y delta'(-y - 1) / (1 - e^-1) with L' = -L the other direction's
 * loss). */
static int cdf_bounds(const struct pld_mech *m, int dir, size_t n,
                      const double *y, double *A, double *B, double *w1,
                      double *w2)
{
  const pld_curve *c = &m->curve;
  int od = c->symmetric ? dir : 1 - dir;
  double r = c->rel_err;
  int st;
  for (size_t i = 0; i < n; i++)
    w1[i] = -y[i];
  if (c->tails) {
    /* P[L > y] = p_gt_dir(y); P[L < y] = e^y eq_gt_od(-y) */
    if ((st = c->tails(c->ctx, dir, n, y, A, w2)))
      goto failed;
    for (size_t i = 0; i < n; i++) {
      double lo = A[i] / (1.0 + r) * (1.0 - 4.0 * PLD_U) - TINY;
      A[i] = isnan(A[i]) ? 1.0 : fmin(fmax(1.0 - lo, 0.0), 1.0);
    }
    if ((st = c->tails(c->ctx, od, n, w1, w2, B)))
      goto failed;
    for (size_t i = 0; i < n; i++) {
      double v = exp(y[i]) * B[i] * (1.0 + r) * (1.0 + 8.0 * PLD_U) + TINY;
      B[i] = isnan(v) ? 1.0 : fmin(fmin(v, exp(y[i]) * (1.0 + 4.0 * PLD_U) + TINY), 1.0);
    }
    return PLD_SUCCESS;
  }
  if ((st = c->delta(c->ctx, dir, n, y, A)))
    goto failed;
  for (size_t i = 0; i < n; i++) {
    double lo = A[i] / (1.0 + r) * (1.0 - 4.0 * PLD_U) - TINY;
    A[i] = isnan(A[i]) ? 1.0 : fmin(fmax(1.0 - lo, 0.0), 1.0);
    w1[i] = -y[i] - 1.0;
  }
  if ((st = c->delta(c->ctx, od, n, w1, B)))
    goto failed;
  for (size_t i = 0; i < n; i++) {
    double up = B[i] / (1.0 - r) * (1.0 + 4.0 * PLD_U) + TINY;
    double v = exp(y[i]) * fmin(up / -expm1(-1.0), 1.0) * (1.0 + 4.0 * PLD_U) + TINY;
    B[i] = isnan(v) ? 1.0 : fmin(v, 1.0);
  }
  return PLD_SUCCESS;
failed:
  /* PLD_ECALLBACK here means "no bound from this event" to the caller (an
   * optional bound must not fail the query); PLD_ENOMEM is passed on */
  return st == PLD_ENOMEM ? PLD_ENOMEM : PLD_ECALLBACK;
}

/* The law nu on the grid y[0..n) from G[k] = min(A[k], B[k]) made
 * non-decreasing (the CDF on [y[k-1], y[k]), and min(e^y, G[0]) below
 * y[0] <= 0): a lower bound on its mean, an upper bound on its second
 * moment, and the per-cell mass-times-width c[k] (what moving each cell's
 * mass to its bottom may cost the mean). */
static void nu_stats(size_t n, const double *y, const double *A,
                     const double *B, double *G, double *c, double *mean_lo,
                     double *m2_up, double *cost)
{
  double g = 0.0;
  for (size_t k = 0; k < n; k++) {
    double v = fmin(A[k], B[k]);
    g = v > g ? v : g;
    G[k] = g;
  }
  /* below y[0]: int min(e^y, G0) dy <= G0 (1 + log(1/G0)), and
   * int 2|y| min(e^y, G0) dy <= G0 (2 log(1/G0) + 2 + log^2(1/G0)) */
  double g0 = G[0], lg = g0 > 0.0 ? -log(g0) : 0.0;
  double t1 = g0 > 0.0 ? g0 * (1.0 + lg) : 0.0;
  double t2 = g0 > 0.0 ? g0 * (2.0 * lg + 2.0 + lg * lg) : 0.0;
  double s = 0.0, sabs = 0.0, e2 = 0.0, C = 0.0;
  for (size_t k = 1; k < n; k++) {
    double w = y[k] - y[k - 1];
    s += w * G[k];
    sabs += fabs(w * G[k]);
    double mk = (k == 1 ? G[1] : G[k] - G[k - 1]); /* at y[k-1] */
    e2 += y[k - 1] * y[k - 1] * mk;
    c[k] = w * (k == 1 ? G[1] - G[0] : G[k] - G[k - 1]);
    C += c[k];
  }
  c[0] = 0.0;
  e2 += y[n - 1] * y[n - 1] * (1.0 - G[n - 1]);
  double top = y[n - 1];
  /* each product within 2 ulps, the sums within n ulps of their moduli */
  double err = ((double)n + 4.0) * PLD_U * (fabs(top) + sabs + t1);
  *mean_lo = top - s - t1 - err;
  *m2_up = (e2 + t2) * (1.0 + ((double)n + 8.0) * PLD_U) + TINY;
  *cost = C;
}

/* Mean (lower) and variance (upper) of a law stochastically below the loss
 * of one run of m in direction dir; *ok = 0 if nothing useful came out.
 * The grid is refined by bisecting the cells that cost the mean most,
 * until the total cost is below 1e-3 of the mean (or 1e-18 absolute), or
 * MOM_MAX_POINTS. */
static int run_moments_(const struct pld_mech *m, int dir, int refine,
                        double *mean_lo, double *var_up, double *cost_out,
                        int *ok);

/* As run_moments_, but a failing callback (PLD_ECALLBACK) only leaves the
 * event out (*ok = 0). */
static int run_moments(const struct pld_mech *m, int dir, int refine,
                       double *mean_lo, double *var_up, double *cost_out,
                       int *ok)
{
  int st = run_moments_(m, dir, refine, mean_lo, var_up, cost_out, ok);
  if (st == PLD_ECALLBACK) {
    *ok = 0;
    st = PLD_SUCCESS;
  }
  return st;
}

static int run_moments_(const struct pld_mech *m, int dir, int refine,
                        double *mean_lo, double *var_up, double *cost_out,
                        int *ok)
{
  size_t cap = 4096, n = 0;
  double *y, *A, *B, *G, *c, *w1, *w2;
  int st = PLD_SUCCESS;
  *ok = 0;
  double s = m->curve.loss_scale;
  if (!(isfinite(s) && s > 0.0))
    s = 1.0;
  /* the range: up while P(L > y) may exceed 1e-18, down while P(L < y)
   * may (e^y bounds it: y >= -745 at most) */
  double one[1], a1[1], b1[1], x1[1], x2[1];
  double ytop = s, ybot = -s;
  for (int i = 0; i < 80; i++, ytop *= 2.0) {
    one[0] = ytop;
    if ((st = cdf_bounds(m, dir, 1, one, a1, b1, x1, x2)))
      return st;
    if (1.0 - a1[0] <= 1e-18 || ytop > EPS_MAX)
      break;
  }
  for (int i = 0; i < 80; i++, ybot *= 2.0) {
    one[0] = ybot;
    if ((st = cdf_bounds(m, dir, 1, one, a1, b1, x1, x2)))
      return st;
    if (fmin(a1[0], b1[0]) <= 1e-18 || ybot < -745.0)
      break;
  }
  /* one block of 7 arrays of cap doubles: y, A, B, G, c, w1, w2 */
  double *blk = pld_malloc(7 * cap * sizeof(double));
  if (!blk)
    return PLD_ENOMEM;
  y = blk;
  A = y + cap;
  B = A + cap;
  G = B + cap;
  c = G + cap;
  w1 = c + cap;
  w2 = w1 + cap;
  /* initial grid: 0 and +-s 2^{j/2}, j = -40.., inside [ybot, ytop] */
  y[n++] = ybot;
  for (int j = 200; j >= -40; j--) {
    double v = -s * exp2(0.5 * j);
    if (v > ybot && n < 1000)
      y[n++] = v;
  }
  y[n++] = 0.0;
  for (int j = -40; j <= 200; j++) {
    double v = s * exp2(0.5 * j);
    if (v < ytop && n < 2000)
      y[n++] = v;
  }
  y[n++] = ytop;
  if ((st = cdf_bounds(m, dir, n, y, A, B, w1, w2)))
    goto out;
  double mean = 0.0, m2 = 0.0, cost = 0.0;
  for (int pass = 0; pass < 80; pass++) {
    nu_stats(n, y, A, B, G, c, &mean, &m2, &cost);
    *ok = isfinite(mean) && isfinite(m2);
    if (!refine || !(cost > fmax(1e-3 * fabs(mean), 1e-18)) ||
        n >= MOM_MAX_POINTS)
      break;
    /* bisect the cells costing more than half the average: the midpoints
     * go to the end of the arrays, evaluated, then merged in order */
    double thr = 0.5 * cost / (double)n;
    size_t add = 0;
    for (size_t k = 1; k < n; k++)
      add += c[k] > thr && y[k] - y[k - 1] > 4.0 * PLD_U * fabs(y[k]);
    if (add == 0)
      break;
    if (n + add > MOM_MAX_POINTS)
      add = MOM_MAX_POINTS - n;
    if (2 * (n + add) > cap) {
      size_t nc = 2 * (n + add);
      double *nb = pld_malloc(7 * nc * sizeof(double));
      if (!nb) {
        st = PLD_ENOMEM;
        goto out;
      }
      memcpy(nb, y, n * sizeof(double));
      memcpy(nb + nc, A, n * sizeof(double));
      memcpy(nb + 2 * nc, B, n * sizeof(double));
      memcpy(nb + 4 * nc, c, n * sizeof(double)); /* the costs, read below */
      pld_free(blk);
      blk = nb;
      cap = nc;
      y = blk;
      A = y + cap;
      B = A + cap;
      G = B + cap;
      c = G + cap;
      w1 = c + cap;
      w2 = w1 + cap;
    }
    /* midpoints into y[n..n+add) and their bounds into A, B there */
    size_t j = n;
    for (size_t k = 1; k < n && j < n + add; k++)
      if (c[k] > thr && y[k] - y[k - 1] > 4.0 * PLD_U * fabs(y[k]))
        y[j++] = 0.5 * (y[k - 1] + y[k]);
    add = j - n;
    if ((st = cdf_bounds(m, dir, add, y + n, A + n, B + n, w1, w2)))
      goto out;
    /* merge (both parts sorted) through G, c, w1 as scratch */
    double *my = G, *mA = c, *mB = w1;
    size_t a = 0, b = n, o = 0;
    while (a < n || b < n + add) {
      size_t from = (b >= n + add || (a < n && y[a] < y[b])) ? a++ : b++;
      my[o] = y[from];
      mA[o] = A[from];
      mB[o] = B[from];
      o++;
    }
    memcpy(y, my, o * sizeof(double));
    memcpy(A, mA, o * sizeof(double));
    memcpy(B, mB, o * sizeof(double));
    n = o;
  }
#ifdef PLD_DEBUG_MOMENTS
  fprintf(stderr, "moments dir %d: n %zu mean %.17g m2 %.17g cost %g range [%g, %g]\n", dir, n, mean, m2, cost, ybot, ytop);
#endif
  if (*ok) {
    *mean_lo = mean;
    *cost_out = cost;
    double v = m2 - (mean > 0.0 ? mean * mean * (1.0 - 4.0 * PLD_U) : 0.0);
    *var_up = v > 0.0 ? v : 0.0;
  }
out:
  pld_free(blk);
  return st;
}

/* Per direction: lower mean and upper variance of the composed loss of the
 * groups with finite statistics (the others are left out: a composition
 * is at least as revealing as any part of it) and the merged Gaussian. */
static int composed_moments(const struct pld_fb_group *g, size_t n,
                            double mu2, int refine, double ES[2], double V[2],
                            double EShi[2], int *any)
{
  int st;
  *any = 0;
  for (int d = 0; d < 2; d++) {
    ES[d] = 0.5 * mu2;
    EShi[d] = 0.5 * mu2;
    V[d] = mu2;
  }
  if (mu2 > 0.0)
    *any = 1;
  for (size_t i = 0; i < n; i++) {
    double em[2], vm[2], cm[2];
    int ok[2];
    /* a bracket's members say nothing about its loss's moments (the
     * lower pair's loss law need not lie below the true one): left out,
     * as a composition is at least as revealing as any part of it */
    if (pld_mech_is_bracket(g[i].m))
      continue;
    int sym = g[i].m->curve.symmetric;
    for (int d = 0; d < (sym ? 1 : 2); d++)
      if ((st = run_moments(g[i].m, d, refine, &em[d], &vm[d], &cm[d],
                            &ok[d])))
        return st;
    if (sym) {
      em[1] = em[0];
      vm[1] = vm[0];
      cm[1] = cm[0];
      ok[1] = ok[0];
    }
    double cnt = (double)g[i].count;
    for (int d = 0; d < 2; d++) {
      if (!ok[d])
        continue; /* leave this group out of direction d */
      ES[d] += cnt * em[d] - 4.0 * PLD_U * fabs(cnt * em[d]);
      /* an estimate (not a bound) of what refining could reach: the mean
       * with every cell's mass at its top */
      EShi[d] += cnt * (em[d] + cm[d]);
      V[d] += cnt * vm[d] * (1.0 + 4.0 * PLD_U);
      *any = 1;
    }
  }
  for (int d = 0; d < 2; d++) {
    ES[d] -= 4.0 * ((double)n + 2.0) * PLD_U * fabs(ES[d]);
    V[d] *= 1.0 + 4.0 * ((double)n + 2.0) * PLD_U;
  }
  return PLD_SUCCESS;
}

/* Cantelli: the largest eps with delta(eps) certainly > delta, from ES, V
 * (0 if none). */
static double cantelli_eps(double ES, double V, double delta)
{
  double best = 0.0;
  for (int i = 0; i <= 200; i++) {
    double t = 1e-6 * pow(1e8, i / 200.0); /* 1e-6 .. 100 */
    double r = delta / -expm1(-t) * (1.0 + 16.0 * PLD_U);
    if (!(r < 0.5))
      continue;
    /* a^2/(V + a^2) > r  <=>  a > sqrt(V r / (1 - r)) */
    double a = sqrt(V * r / (1.0 - r)) * (1.0 + 1e-9) + TINY;
    double e = (ES - a - t) * (1.0 - 1e-12) - 1e-300;
    if (e > best)
      best = e;
  }
  return best;
}

/* Cantelli: a certain lower bound on delta(eps). */
static double cantelli_delta(double ES, double V, double eps)
{
  double best = 0.0;
  for (int i = 0; i <= 200; i++) {
    double t = 1e-6 * pow(1e8, i / 200.0);
    double a = (ES - eps - t) * (1.0 - 1e-12);
    if (!(a > 0.0))
      continue;
    double v = -expm1(-t) * (a * a / (V + a * a)) * (1.0 - 1e-9);
    if (v > best)
      best = v;
  }
  return best;
}

int pld_fallback_moments(const struct pld_fb_group *g, size_t n, double mu2,
                         int want_delta, size_t npts, const double *x,
                         double *lower)
{
  double ES[2], V[2], EShi[2];
  int any;
  mu2 = isfinite(mu2) && mu2 > 0.0 ? mu2 : 0.0;
  /* A coarse pass first (a few hundred points per group and direction):
   * the bound stays below the composed mean, so where even the mean's
   * estimate cannot beat the lower ends in hand (few runs: the grid's lower
   * end is a few spreads above the mean) the refinement is skipped. */
  int st = composed_moments(g, n, mu2, 0, ES, V, EShi, &any);
  if (st)
    return st;
  /* the estimate: Cantelli at the coarse mean with every cell's mass at
   * its top (what refining could at best approach) */
  int worth = 0;
  for (size_t i = 0; i < npts && any; i++)
    for (int d = 0; d < 2; d++) {
      if (!(isfinite(EShi[d]) && isfinite(V[d])))
        continue;
      double v = want_delta ? (x[i] == INFINITY ? 0.0
                                                : cantelli_delta(EShi[d], V[d],
                                                                 x[i]))
                            : cantelli_eps(EShi[d], V[d], x[i]);
      worth |= v > lower[i];
    }
  if (worth && (st = composed_moments(g, n, mu2, 1, ES, V, EShi, &any)))
    return st;
  for (size_t i = 0; i < npts && worth; i++) {
    double b = 0.0;
    for (int d = 0; d < 2; d++) {
      if (!(isfinite(ES[d]) && isfinite(V[d])))
        continue;
      double v = want_delta ? (x[i] == INFINITY ? 0.0
                                                : cantelli_delta(ES[d], V[d],
                                                                 x[i]))
                            : cantelli_eps(ES[d], V[d], x[i]);
      if (v > b)
        b = v;
    }
    if (b > lower[i])
      lower[i] = b;
  }
  return PLD_SUCCESS;
}
