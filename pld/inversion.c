/* pldkit: certified grid-free queries by Laplace inversion of the composed
 * MGF (docs/design.md §16).
 *
 * For one direction with composed loss L (sum of independent runs) and
 * K(s) = log E[e^{sL}], delta(eps) = E[(1 - e^{eps - L})_+] has the
 * two-sided Laplace transform M(s)/(s(s+1)) on Re s > 0, so with c > 0 and
 * phi(x) = delta(x) e^{cx}, whose Fourier transform is
 * F(t) = M(c + it)/((c + it)(c + 1 + it)), the t-trapezoid of step h gives by
 * Poisson summation
 *   e^{-c eps} (h/2pi) sum_k F(kh) e^{-ikh eps} = sum_m delta(eps + mP) e^{cmP},
 * P = 2 pi/h: the true delta plus non-negative aliases, each bounded by a
 * Chernoff tail.  The sum is truncated where a certified decay bound of
 * |M(c + it)| (sampled with a Lipschitz bound, then an integration-by-parts
 * bound) makes the rest small, and every M(c + it) is a ball from the
 * mechanism's certified evaluator (pld_mgf_ops).  All arithmetic is
 * midpoint-radius with the rounding of every operation booked.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "alloc.h"
#include "internal.h"
#include "inversion.h"
#include "numerics.h"

#define U DBL_EPSILON /* twice the unit roundoff */
#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
#define CGRAIN 1048576.0 /* abscissae are multiples of 2^-20 */
#define CMIN (1.0 / 64.0)
#define CMAX 512.0
#define CHUNK 16
#define KMAX 8192
#define TSUM_MAX 4096.0 /* the t-sum's reach (its tables grow with t) */
#define TTAIL_MAX 16384.0 /* the decay intervals' reach */
#define TAIL_ITERS 3000
/* The work of one direction's table, in units of t per group and
 * evaluation (an evaluator's tables grow like t): beyond it the inversion
 * gives up (the grid answers).  Lists with few effective runs (a rate
 * 0.01 at 50 runs) have |chi| near 1 far out and would cost more than the
 * grid; the canonical run's tables take about 1.3e4, eight distinct groups of 250 runs 7e4. */
#define WORK_MAX 1.2e5
#define M_TOL 1e-14 /* evaluator accuracy aimed at for the sum's terms */

const struct pld_mgf_ops *pld_mech_mgf(const struct pld_mech *m)
{
  if (!m || !m->type->mgf || !m->type->mgf->has(m))
    return NULL;
  return m->type->mgf;
}

/* e^x rounded up (exp within 2 ulp, x's own rounding covered by the
 * 1e-10 relative slack); e^{-inf} = 0, NaN stays NaN. */
static double exp_up(double x)
{
  if (x == -INFINITY)
    return 0.0;
  return exp(x + 1e-10 * (1.0 + fabs(x)));
}

static double cround(double c)
{
  double r = nearbyint(c * CGRAIN) / CGRAIN;
  return r > 0.0 ? r : 1.0 / CGRAIN;
}

/* A real number's enclosure [lo, hi] from a sum of terms computed naively:
 * the booked error is (n + 2) u times the sum of magnitudes. */
struct rsum {
  double v, a;
  size_t n;
};
static void rs_add(struct rsum *s, double x)
{
  s->v += x;
  s->a += fabs(x);
  s->n++;
}
static double rs_err(const struct rsum *s)
{
  return (double)(s->n + 2) * U * s->a * (1.0 + 1e-10);
}

/* ---- the composed approximate CGF (to choose abscissae) ---- */

static int cgf_total(const struct pld_inv_group *g, size_t n, double mu2,
                     int dir, double c, double *k0, double *k1, double *k2)
{
  double a0 = 0.5 * mu2 * c * (c + 1.0), a1 = 0.5 * mu2 * (2.0 * c + 1.0),
         a2 = mu2;
  for (size_t j = 0; j < n; j++) {
    double x0, x1, x2;
    int st = pld_mech_mgf(g[j].m)->cgf(g[j].m, dir, c, &x0, &x1, &x2);
    if (st)
      return st;
    double T = (double)g[j].count;
    a0 += T * x0;
    a1 += T * x1;
    a2 += T * x2;
  }
  *k0 = a0;
  *k1 = a1;
  *k2 = a2;
  return isfinite(a0) && isfinite(a1) && isfinite(a2) ? PLD_SUCCESS
                                                      : PLD_ERANGE;
}

static double est_logdelta(double k0, double k1, double k2, double c);

/* A root of a decreasing function f of c in [CMIN, CMAX] (clamped), to a
 * relative 1e-3 (the abscissa only steers the accuracy, never the
 * soundness): a bracket by doubling or halving from c = 1, then safeguarded
 * Newton with the slope df.  f and df come from the approximate CGF. */
struct sfun {
  const struct pld_inv_group *g;
  size_t n;
  double mu2, target;
  int dir, for_delta;
};

static int sf_eval(const struct sfun *f, double c, double *v, double *dv)
{
  double k0, k1, k2;
  int st = cgf_total(f->g, f->n, f->mu2, f->dir, c, &k0, &k1, &k2);
  if (st)
    return st;
  if (f->for_delta) { /* est log delta - target; d/dc ~ -c K'' */
    *v = est_logdelta(k0, k1, k2, c) - f->target;
    *dv = -c * k2;
  } else { /* eps - K'(c) */
    *v = f->target - k1;
    *dv = -k2;
  }
  return isfinite(*v) ? PLD_SUCCESS : PLD_ERANGE;
}

static int saddle(const struct sfun *f, double *c_out)
{
  double c = 1.0, v, dv, lo, hi;
  int st = sf_eval(f, c, &v, &dv);
  if (st)
    return st;
  if (v > 0.0) { /* root above: double */
    lo = c;
    for (;;) {
      hi = fmin(2.0 * lo, CMAX);
      st = sf_eval(f, hi, &v, &dv);
      if (st == PLD_ERANGE || (!st && v <= 0.0))
        break;
      if (st)
        return st;
      if (hi >= CMAX) {
        *c_out = CMAX;
        return PLD_SUCCESS;
      }
      lo = hi;
    }
    if (st == PLD_ERANGE)
      st = PLD_SUCCESS; /* treat as "past the root" */
  } else { /* root below: halve */
    hi = c;
    for (;;) {
      lo = fmax(0.5 * hi, CMIN);
      if ((st = sf_eval(f, lo, &v, &dv)))
        return st;
      if (v > 0.0)
        break;
      if (lo <= CMIN) {
        *c_out = cround(CMIN);
        return PLD_SUCCESS;
      }
      hi = lo;
    }
  }
  c = 0.5 * (lo + hi);
  for (int it = 0; it < 40 && hi - lo > 1e-3 * lo; it++) {
    st = sf_eval(f, c, &v, &dv);
    if (st == PLD_ERANGE) { /* past what the evaluators serve: below */
      hi = c;
      c = 0.5 * (lo + hi);
      st = PLD_SUCCESS;
      continue;
    }
    if (st)
      return st;
    if (v > 0.0)
      lo = c;
    else
      hi = c;
    double cn = dv < 0.0 ? c - v / dv : 0.5 * (lo + hi);
    if (!(cn > lo && cn < hi))
      cn = 0.5 * (lo + hi);
    if (fabs(cn - c) <= 1e-4 * c) {
      c = cn;
      break;
    }
    c = cn;
  }
  /* room for the aliases' abscissa s' > c (up to c + c/8): where the
   * evaluators decline beyond the root, a smaller c (a valid, looser
   * table) */
  for (int it = 0; it < 30 && c > CMIN; it++) {
    double k0, k1, k2;
    st = cgf_total(f->g, f->n, f->mu2, f->dir, 1.125 * c, &k0, &k1, &k2);
    if (st != PLD_ERANGE)
      break;
    c *= 0.8;
  }
  if (st && st != PLD_ERANGE)
    return st;
  *c_out = cround(fmin(fmax(c, CMIN), CMAX));
  return PLD_SUCCESS;
}

/* The saddle point: K'(c) = eps, c in [CMIN, CMAX] (clamped). */
static int saddle_for_eps(const struct pld_inv_group *g, size_t n, double mu2,
                          int dir, double eps, double *c_out)
{
  struct sfun f = {g, n, mu2, eps, dir, 0};
  return saddle(&f, c_out);
}

/* The saddle-point estimate of log delta at abscissa c. */
static double est_logdelta(double k0, double k1, double k2, double c)
{
  return k0 - c * k1 - log(c * (c + 1.0) * sqrt(2.0 * M_PI * fmax(k2, 1e-300)));
}

/* The abscissa where the estimate of log delta is ld (decreasing in c). */
static int saddle_for_delta(const struct pld_inv_group *g, size_t n,
                            double mu2, int dir, double ld, double *c_out)
{
  struct sfun f = {g, n, mu2, ld, dir, 1};
  return saddle(&f, c_out);
}

/* ---- balls ---- */

/* |x^T - y^T| <= T |x - y| max(|x|, |y|)^{T-1}, |x| <= xmax, for the true
 * x within r of y; y^T by polar form with its rounding booked. */
static void ball_pow(double yr, double yi, double r, double T, double xmax,
                     double *pr, double *pi, double *prad)
{
  double m = hypot(yr, yi);
  if (m == 0.0) {
    *pr = *pi = 0.0;
    *prad = pow(fmin(r, xmax), T) * (1.0 + 1e-10) + 1e-300;
    return;
  }
  double lm = log(m), ang = atan2(yi, yr);
  double mag = exp(T * lm), th = T * ang;
  *pr = mag * cos(th);
  *pi = mag * sin(th);
  /* rounding: T lm (log, hypot: |lm| 3u + 2u), T ang (atan2 2 ulp), exp,
   * cos/sin, products */
  double rel = T * (fabs(lm) * 3.0 * U + 2.0 * U + fabs(ang) * 3.0 * U) + 8.0 * U;
  double er = mag * (expm1(rel) * 1.01 + 4.0 * U);
  double mx = fmin(m + r, xmax);
  mx = fmax(mx, m);
  double e1 = T * r * exp((T - 1.0) * log(mx)) * (1.0 + 1e-10);
  double e2 = mag + pow(mx, T) * (1.0 + 1e-10); /* triangle */
  *prad = fmin(e1, e2) + er + 1e-300;
}

/* (a, ra) * (b, rb) */
static void ball_mul(double ar, double ai, double ra, double br, double bi,
                     double rb, double *cr, double *ci, double *rc)
{
  double ma = hypot(ar, ai), mb = hypot(br, bi);
  *cr = ar * br - ai * bi;
  *ci = ar * bi + ai * br;
  *rc = (ma * rb + mb * ra + ra * rb + 4.0 * U * ma * mb) * (1.0 + 4.0 * U) +
        1e-300;
}

/* ---- one direction's table ---- */

struct dtab {
  int dir;
  double c, h, P;
  size_t K;
  double *pr, *pi, *prad; /* normalized prod chi_j^T chi_G at t = kh */
  double kc_lo, kc_hi;    /* K(c) */
  double tail;            /* (h/pi) sum_{k > K} |...|/|s(s+1)|, normalized */
  double sp, ksp_hi;      /* s' > c, K(s') upper */
  double sm, ksm_hi;      /* 0 < s'' < c, K(s'') upper; sm = 0: none */
};

static void dtab_free(struct dtab *t)
{
  pld_free(t->pr);
  pld_free(t->pi);
  pld_free(t->prad);
}

/* An enclosure of K(c) = sum T_j log M_j(c) + mu2 c(c+1)/2. */
static int kc_ball(const struct pld_inv_group *g, size_t n, double mu2,
                   double mu2_rel, int dir, double c, double *lo, double *hi,
                   double *dlo, double *drad)
{
  struct rsum sl = {0, 0, 0}, sh = {0, 0, 0};
  for (size_t j = 0; j < n; j++) {
    double re, im, rad;
    const struct pld_mgf_ops *o = pld_mech_mgf(g[j].m);
    void *ev;
    int st = o->prepare(g[j].m, dir, c, 0.0, M_TOL, &ev);
    if (st)
      return st;
    o->at(ev, 0.0, &re, &im, &rad);
    o->release(ev);
    if (!(re - rad > 0.0))
      return PLD_ERANGE;
    if (dlo) {
      dlo[j] = re;
      drad[j] = rad;
    }
    double l1 = log(re - rad), l2 = log(re + rad);
    l1 -= 2.0 * U * fabs(l1) + 1e-300;
    l2 += 2.0 * U * fabs(l2) + 1e-300;
    double T = (double)g[j].count;
    rs_add(&sl, T * l1);
    rs_add(&sh, T * l2);
  }
  double gk = 0.5 * mu2 * c * (c + 1.0);
  double gr = gk * (mu2_rel + 4.0 * U);
  rs_add(&sl, gk - gr);
  rs_add(&sh, gk + gr);
  *lo = sl.v - rs_err(&sl);
  *hi = sh.v + rs_err(&sh);
  return isfinite(*lo) && isfinite(*hi) ? PLD_SUCCESS : PLD_ERANGE;
}

/* log C(s) = log max_{y >= 0} (1 - e^{-y}) e^{-s y} = s log s - (s+1) log(s+1) */
static double log_cs(double s)
{
  return s * log(s) - (s + 1.0) * log1p(s);
}

/* The decay bounds' tail of the t-sum beyond t0 = (K+1) h, normalized
 * (design.md §16.3): Lemma 4's intervals, then Lemma 5's remainder. */
static int tail_bound(const struct pld_inv_group *g, size_t n, double mu2,
                      double mu2_rel, int dir, double c, double h, double t0,
                      const double *dc, const double *dcr, double want,
                      double *work, double *out)
{
  double mu2lo = mu2 * (1.0 - mu2_rel - 4.0 * U);
  double *tv = NULL, *lip = NULL, *uj = NULL, *evt = NULL, *at = NULL;
  void **evs = NULL;
  if (n) {
    tv = pld_malloc(5 * n * sizeof(double));
    evs = pld_malloc(n * sizeof(void *));
    if (!tv || !evs) {
      pld_free(tv);
      pld_free(evs);
      return PLD_ENOMEM;
    }
    lip = tv + n;
    uj = lip + n;
    evt = uj + n;
    at = evt + n;
    for (size_t j = 0; j < n; j++) {
      evs[j] = NULL;
      evt[j] = -1.0;
    }
  }
  /* sum T_j log(V_j / M_j(c)) where no group has atoms */
  double lV = 0.0, Tsum = 0.0;
  int atoms = 0;
  for (size_t j = 0; j < n; j++) {
    int st = pld_mech_mgf(g[j].m)->decay(g[j].m, dir, c, &at[j], &tv[j],
                                          &lip[j]);
    if (st) {
      pld_free(tv);
      pld_free(evs);
      return st;
    }
    double dl = dc[j] - dcr[j]; /* M(c) >= dl > 0 */
    tv[j] /= dl * (1.0 - 2.0 * U);
    lip[j] /= dl * (1.0 - 2.0 * U);
    at[j] /= dl * (1.0 - 2.0 * U);
    atoms |= at[j] > 0.0;
    lV += (double)g[j].count * log(tv[j]);
    Tsum += (double)g[j].count;
  }
  lV += 1e-10 * (1.0 + fabs(lV));
  double acc = 0.0, t = t0;
  int st = PLD_SUCCESS;
  /* Lemma 5's remainder from x = t - h on: with atoms, f(x)/x for the
   * decreasing f(t) = prod (atom_j + V_j/t)^{T_j} (h sum over kh >= t of
   * 1/(kh)^2 <= 1/x); without, prod V_j^{T_j} x^{-(T+1)}/(T+1) */
#define REMAINDER(x_, out_)                                                   \
  do {                                                                        \
    double lr_;                                                               \
    if (atoms) {                                                              \
      lr_ = 0.0;                                                              \
      for (size_t j_ = 0; j_ < n; j_++)                                       \
        lr_ += (double)g[j_].count * log(fmin(1.0, at[j_] + tv[j_] / (x_)) *  \
                                         (1.0 + 2.0 * U));                    \
      lr_ += -log(x_) - 0.5 * mu2lo * (x_) * (x_) - log(M_PI);                \
    } else                                                                    \
      lr_ = lV - (Tsum + 1.0) * log(x_) - log(Tsum + 1.0) -                   \
            0.5 * mu2lo * (x_) * (x_) - log(M_PI);                            \
    (out_) = exp_up(lr_);                                                     \
  } while (0)
  /* where Lemma 5's remainder reaches the target: beyond the intervals'
   * reach, give up at once (a wide bracket; the grid answers) */
  int reach = 1;
  if (n) {
    double rmax;
    REMAINDER(TTAIL_MAX - h, rmax);
    reach = rmax <= 0.5 * want;
  }
  if (!reach)
    acc = INFINITY;
  for (int it = 0; reach; it++, *work += (double)n * t) {
    /* the rest from t on, by the integration-by-parts bound */
    double x = t - h, rem;
    if (n) {
      REMAINDER(x, rem);
    } else {
      rem = mu2lo > 0.0 ? exp(-0.5 * mu2lo * x * x) / (mu2lo * x * x * x * M_PI)
                        : INFINITY;
      rem *= 1.0 + 1e-10;
    }
    /* done, or out of reach (then the remainder as it is, maybe +inf) */
    if (rem <= 0.5 * want || !n || it >= TAIL_ITERS || !(t < TTAIL_MAX) ||
        *work > WORK_MAX) {
      acc += rem;
      break;
    }
    /* one interval [t, t + D): |chi_j| <= u_j + lip_j D there */
    double lb = -0.5 * mu2lo * t * t, D = INFINITY, G = 0.0, S1 = 0.0;
    for (size_t j = 0; j < n && !st; j++) {
      double r_, i_, rad;
      const struct pld_mgf_ops *o = pld_mech_mgf(g[j].m);
      if (t > evt[j]) { /* a table for the next octave */
        o->release(evs[j]);
        evs[j] = NULL;
        evt[j] = 1.5 * t;
        if ((st = o->prepare(g[j].m, dir, c, evt[j], 1e-7, &evs[j])))
          break;
      }
      o->at(evs[j], t, &r_, &i_, &rad);
      double dl = dc[j] - dcr[j];
      double u = (hypot(r_, i_) * (1.0 + 2.0 * U) + rad) / (dl * (1.0 - 2.0 * U));
      u = fmin(u, fmin(1.0, at[j] + tv[j] / t));
      uj[j] = u;
      double T = (double)g[j].count;
      G -= T * log(u);
      S1 += T * lip[j] / u;
    }
    if (st)
      break;
    /* the interval where log |prod chi| may rise by at most a quarter of its
     * decay G at t, or up to e^{-30} (at least by 1): log(u + lip D) <=
     * log u + lip D/u */
    D = fmax(fmax(0.25 * G, G - 30.0), 1.0) / S1;
    if (!(D > 0.0) || !isfinite(D))
      D = h;
    if (D > 4.0 * t)
      D = 4.0 * t;
    for (size_t j = 0; j < n; j++) {
      double b = fmin(1.0, fmin(uj[j] + lip[j] * D, at[j] + tv[j] / t));
      b *= 1.0 + 2.0 * U;
      lb += (double)g[j].count * log(b);
    }
    /* h sum over the nodes kh in [t, t + D) of 1/(kh)^2: at most the
     * integral from t - h (decreasing), and at most their number over t^2 */
    double nodes_in = floor(D / h) + 1.0;
    double wsum = fmin(1.0 / (t - h) - 1.0 / (t + D), h * nodes_in / (t * t));
    double piece = exp_up(lb) * wsum / M_PI *
                   (1.0 + 1e-10);
    acc += piece;
    t += D;
  }
#undef REMAINDER
  for (size_t j = 0; j < n; j++)
    if (evs[j])
      pld_mech_mgf(g[j].m)->release(evs[j]);
  pld_free(tv);
  pld_free(evs);
  *out = acc * (1.0 + 1e-10);
  return st;
}

/* Build direction dir's table at abscissa c. */
static int dtab_make(const struct pld_inv_group *g, size_t n, double mu2,
                     double mu2_rel, int dir, double c, double eps_hint,
                     struct dtab *tb)
{
  memset(tb, 0, sizeof *tb);
  tb->dir = dir;
  tb->c = c;
  double *dc = NULL, *dcr = NULL, *tt = NULL, *cr = NULL, *ci = NULL,
         *crad = NULL;
  size_t cap = 0;
  int st;
  if (n) {
    dc = pld_malloc(2 * n * sizeof(double));
    if (!dc)
      return PLD_ENOMEM;
    dcr = dc + n;
  }
  if ((st = kc_ball(g, n, mu2, mu2_rel, dir, c, &tb->kc_lo, &tb->kc_hi, dc,
                    dcr)))
    goto out;
  double k0, k1, k2;
  if ((st = cgf_total(g, n, mu2, dir, c, &k0, &k1, &k2)))
    goto out;
  if (!(k2 > 0.0)) {
    st = PLD_ERANGE;
    goto out;
  }
  /* the period P: aliases below e^{-L} of the scale (design.md §16.3) */
  double L = 36.0 + fmax(0.0, log(c * (c + 1.0) * sqrt(2.0 * M_PI * k2)));
  /* s' > c and 0 < s'' < c minimizing the period each alias needs (the
   * estimate K is approximate; the bounds are then certified) */
  double Pp = INFINITY, Pm = (L + fmax(0.0, c * eps_hint - k0)) / c;
  double sp_best = 0.0, sm_best = 0.0;
  for (int i = -7; i <= 4; i++) {
    double ds = i <= 0 ? c * ldexp(1.0, i) : sqrt(2.0 * L / k2) * ldexp(1.0, i - 3);
    if (ds > c + 1.0)
      continue;
    for (int side = 0; side < 2; side++) {
      double s_ = side ? c - ds : c + ds;
      if (!(s_ > 0.0) || (side && ds >= c))
        continue;
      s_ = cround(s_);
      double x0, x1, x2, d = fabs(s_ - c);
      if (d == 0.0 || cgf_total(g, n, mu2, dir, s_, &x0, &x1, &x2))
        continue;
      double need = (L + log(2.0) + log_cs(s_) + x0 - k0 +
                     (side ? d : -d) * eps_hint) / d;
      if (!side && need < Pp) {
        Pp = need;
        sp_best = s_;
      }
      if (side && need < Pm) {
        Pm = need;
        sm_best = s_;
      }
    }
  }
  if (!(Pp < INFINITY) || !(sp_best > c)) {
    st = PLD_ERANGE;
    goto out;
  }
  double P = fmax(fmax(Pp, Pm) * 1.02, 1e-3);
  tb->h = ldexp(1.0, ilogb(2.0 * M_PI / P));
  tb->P = 2.0 * M_PI / tb->h * (1.0 - 4.0 * U);
  /* the aliases' abscissae and certified K there */
  tb->sp = sp_best;
  double junk;
  if ((st = kc_ball(g, n, mu2, mu2_rel, dir, tb->sp, &junk, &tb->ksp_hi, NULL,
                    NULL)))
    goto out;
  tb->sm = sm_best;
  if (tb->sm >= c || tb->sm <= 0.0 ||
      kc_ball(g, n, mu2, mu2_rel, dir, tb->sm, &junk, &tb->ksm_hi, NULL, NULL))
    tb->sm = 0.0;
  /* how far the sum must go: the terms' Gaussian decay e^{-k2 t^2/2} */
  double test = sqrt(2.0 * 40.0 / k2);
  if (test / tb->h > KMAX || 4.0 * test > TSUM_MAX) {
    st = PLD_ERANGE;
    goto out;
  }
  size_t kcap = (size_t)fmin(KMAX, 4.0 * test / tb->h + 128.0);
  cap = kcap + CHUNK;
  tb->pr = pld_malloc(cap * sizeof(double));
  tb->pi = pld_malloc(cap * sizeof(double));
  tb->prad = pld_malloc(cap * sizeof(double));
  tt = pld_malloc(CHUNK * 4 * sizeof(double));
  if (!tb->pr || !tb->pi || !tb->prad || !tt) {
    st = PLD_ENOMEM;
    goto out;
  }
  cr = tt + CHUNK;
  ci = cr + CHUNK;
  crad = ci + CHUNK;
  double mu2r = mu2_rel + 4.0 * U;
  size_t K = 0;
  int done = 0;
  double work = 0.0;
  for (size_t k0_ = 0; !done && k0_ < kcap; k0_ += CHUNK) {
    work += (double)n * CHUNK * (double)(k0_ + CHUNK) * tb->h;
    if (work > WORK_MAX) {
      st = PLD_ERANGE;
      goto out;
    }
    for (size_t i = 0; i < CHUNK; i++) {
      double t = (double)(k0_ + i) * tb->h; /* exact */
      tt[i] = t;
      /* the Gaussian factor e^{mu2 ((c+it)(c+1+it) - c(c+1))/2} */
      double gm = exp(-0.5 * mu2 * t * t), gth = 0.5 * mu2 * t * (2.0 * c + 1.0);
      double er = (expm1(mu2 * mu2r * 0.5 * t * hypot(t, 2.0 * c + 1.0)) * 1.01 +
                   U * (mu2 * t * t + fabs(gth) * 2.0) + 8.0 * U);
      tb->pr[k0_ + i] = gm * cos(gth);
      tb->pi[k0_ + i] = gm * sin(gth);
      tb->prad[k0_ + i] = gm * er + 1e-300;
    }
    for (size_t j = 0; j < n; j++) {
      const struct pld_mgf_ops *o = pld_mech_mgf(g[j].m);
      void *ev;
      if ((st = o->prepare(g[j].m, dir, c, tt[CHUNK - 1], M_TOL, &ev)))
        goto out;
      for (size_t i = 0; i < CHUNK; i++)
        o->at(ev, tt[i], &cr[i], &ci[i], &crad[i]);
      o->release(ev);
      double d = dc[j], dr = dcr[j], dl = (d - dr) * (1.0 - 2.0 * U);
      double T = (double)g[j].count;
      for (size_t i = 0; i < CHUNK; i++) {
        /* chi = M(c+it)/M(c) */
        double xr = cr[i] / d, xi = ci[i] / d;
        double xm = hypot(cr[i], ci[i]);
        double xrad = (crad[i] + xm * dr / d) / dl * (1.0 + 4.0 * U) +
                      hypot(xr, xi) * 3.0 * U;
        double pr, pi, prad;
        ball_pow(xr, xi, xrad, T, 1.0, &pr, &pi, &prad);
        size_t k = k0_ + i;
        ball_mul(tb->pr[k], tb->pi[k], tb->prad[k], pr, pi, prad, &tb->pr[k],
                 &tb->pi[k], &tb->prad[k]);
      }
    }
    for (size_t i = 0; i < CHUNK; i++) {
      size_t k = k0_ + i;
      if (k >= 2 && hypot(tb->pr[k], tb->pi[k]) + tb->prad[k] < 1e-17) {
        K = k;
        done = 1;
        break;
      }
    }
    if (!done)
      K = k0_ + CHUNK - 1;
  }
  tb->K = K;
  double want = 1e-11;
  if ((st = tail_bound(g, n, mu2, mu2_rel, dir, c, tb->h,
                       (double)(K + 1) * tb->h, dc, dcr, want, &work, &tb->tail)))
    goto out;
out:
  pld_free(dc);
  pld_free(tt);
  if (st)
    dtab_free(tb);
  return st;
}

/* delta(eps) of one direction from its table: [lo, hi]. */
static void dtab_delta(const struct dtab *tb, double eps, double *lo,
                       double *hi)
{
  double c = tb->c, h = tb->h;
  struct rsum s = {0, 0, 0};
  double R = 0.0, A = 0.0;
  for (size_t k = 0; k <= tb->K; k++) {
    double t = (double)k * h, w = k ? h / M_PI : h / (2.0 * M_PI);
    double th = -t * eps;
    double er_ = cos(th), ei_ = sin(th);
    /* p e^{-it eps} */
    double ar = tb->pr[k] * er_ - tb->pi[k] * ei_;
    double ai = tb->pr[k] * ei_ + tb->pi[k] * er_;
    /* / ((c+it)(c+1+it)) = / (Dr + i Di) */
    double Dr = c * (c + 1.0) - t * t, Di = t * (2.0 * c + 1.0);
    double D2 = Dr * Dr + Di * Di, Dm = sqrt(D2);
    double vr = (ar * Dr + ai * Di) / D2;
    double am = hypot(ar, ai);
    rs_add(&s, w * vr);
    /* |D| >= c(c+1) + t^2 bounds the relative error of D by 3u */
    R += w * (tb->prad[k] / Dm + am / Dm * (24.0 * U + U * fabs(th)));
    A += w * am / Dm;
  }
  R += rs_err(&s) + tb->tail + 4.0 * U * A;
  R *= 1.0 + 1e-10;
  /* aliases (normalized by e^{K(c) - c eps}) */
  double dsp = tb->sp - c; /* exact */
  double lap = log_cs(tb->sp) + tb->ksp_hi - tb->kc_lo - dsp * eps -
               log(expm1(dsp * tb->P));
  double lam = c * eps - tb->kc_lo - log(expm1(c * tb->P));
  if (tb->sm > 0.0) {
    double dsm = c - tb->sm;
    lam = fmin(lam, log_cs(tb->sm) + tb->ksm_hi - tb->kc_lo + dsm * eps -
                        log(expm1(dsm * tb->P)));
  }
  double al = exp_up(lap) + exp_up(lam);
  double S = s.v;
  double up_n = (S + R) * (1.0 + 2.0 * U);
  double lo_n = (S - R - al) * (1.0 - 4.0 * U);
  double ce = c * eps, ceu = U * fabs(ce);
  double lhi = tb->kc_hi - ce + ceu, llo = tb->kc_lo - ce - ceu;
  lhi += 4.0 * U * fabs(lhi);
  llo -= 4.0 * U * fabs(llo);
  /* S + R >= the normalized delta > 0 in exact arithmetic: anything else
   * (NaN from an overflowed bound) certifies nothing */
  if (!(up_n > 0.0) || isnan(lhi)) {
    *lo = 0.0;
    *hi = 1.0;
    return;
  }
  double u = exp(lhi) * up_n * (1.0 + 8.0 * U);
  if (!(u > DBL_TRUE_MIN))
    u = DBL_TRUE_MIN; /* the exact value is positive at finite eps */
  *hi = fmin(u, 1.0);
  *lo = lo_n > 0.0 ? fmin(exp(llo) * lo_n * (1.0 - 8.0 * U), *hi) : 0.0;
  if (!isfinite(*hi))
    *hi = 1.0;
  if (!(*lo >= 0.0))
    *lo = 0.0;
}

static int check_groups(const struct pld_inv_group *g, size_t n, double mu2,
                        double mu2_rel)
{
  if ((n && !g) || !(mu2 >= 0.0) || !isfinite(mu2) || !(mu2_rel >= 0.0) ||
      !(mu2_rel < 1e-3))
    return PLD_EINVAL;
  if (n == 0 && mu2 == 0.0)
    return PLD_EINVAL;
  for (size_t j = 0; j < n; j++)
    if (!g[j].m || !pld_mech_mgf(g[j].m) || g[j].count == 0)
      return PLD_EUNSUPPORTED;
  return PLD_SUCCESS;
}

int pld_inversion_delta(const struct pld_inv_group *g, size_t n, double mu2,
                        double mu2_rel, double eps, pld_bound *out)
{
  int st = check_groups(g, n, mu2, mu2_rel);
  if (st)
    return st;
  if (!out || isnan(eps) || eps < 0.0)
    return PLD_EINVAL;
  if (eps == INFINITY) { /* no run has a loss of +inf */
    out->lower = out->upper = 0.0;
    return PLD_SUCCESS;
  }
  pld_bound b = {0.0, 0.0};
  for (int dir = 0; dir < 2; dir++) {
    double c;
    if ((st = saddle_for_eps(g, n, mu2, dir, eps, &c)))
      return st;
    struct dtab tb;
    if ((st = dtab_make(g, n, mu2, mu2_rel, dir, c, eps, &tb)))
      return st;
    double lo, hi;
    dtab_delta(&tb, eps, &lo, &hi);
    dtab_free(&tb);
    b.lower = fmax(b.lower, lo);
    b.upper = fmax(b.upper, hi);
  }
  *out = b;
  return PLD_SUCCESS;
}

/* One direction's epsilon bracket for delta: [*elo, *ehi] with the
 * certified delta_lo(elo) > delta (or elo = 0) and delta_hi(ehi) <= delta. */
static int dir_epsilon(const struct pld_inv_group *g, size_t n, double mu2,
                       double mu2_rel, int dir, double delta, double rel_tol,
                       double *elo, double *ehi)
{
  double c, k0, k1, k2;
  int st = saddle_for_delta(g, n, mu2, dir, log(delta), &c);
  if (st)
    return st;
  if ((st = cgf_total(g, n, mu2, dir, c, &k0, &k1, &k2)))
    return st;
  double e0 = fmax(k1, 0.0);
  if (k1 < 0.0 && (st = saddle_for_eps(g, n, mu2, dir, 0.0, &c)))
    return st;
  struct dtab tb;
  if ((st = dtab_make(g, n, mu2, mu2_rel, dir, c, e0, &tb)))
    return st;
  double sd = sqrt(k2), lo, hi;
  /* upper end: a point with delta_hi <= delta, as low as the bracket lets */
  double a = e0, b = e0;
  dtab_delta(&tb, e0, &lo, &hi);
  int found = 1;
  if (hi <= delta) {
    /* walk down to a point where hi > delta (or 0) */
    double step = 0.05 * sd + 1e-12;
    for (;;) {
      double x = fmax(a - step, 0.0);
      dtab_delta(&tb, x, &lo, &hi);
      if (hi > delta) {
        b = a;
        a = x;
        break;
      }
      a = x;
      b = x;
      if (x == 0.0)
        break;
      step *= 2.0;
    }
  } else {
    double step = 0.05 * sd + 1e-12;
    found = 0;
    for (int it = 0; it < 60; it++) {
      double x = b + step;
      dtab_delta(&tb, x, &lo, &hi);
      if (hi <= delta) {
        a = b;
        b = x;
        found = 1;
        break;
      }
      b = x;
      step *= 2.0;
    }
  }
  if (!found) {
    dtab_free(&tb);
    *elo = 0.0;
    *ehi = INFINITY;
    return PLD_SUCCESS;
  }
  /* invariant: hi(b) <= delta (b certified), hi(a) > delta or a == b */
  while (b - a > 1e-3 * rel_tol * fmax(b, 1e-300) && b > a) {
    double mid = 0.5 * (a + b);
    if (mid <= a || mid >= b)
      break;
    dtab_delta(&tb, mid, &lo, &hi);
    if (hi <= delta)
      b = mid;
    else
      a = mid;
  }
  *ehi = b;
  /* lower end: a point with delta_lo > delta */
  double x1 = fmin(a, b), x0 = x1;
  dtab_delta(&tb, x1, &lo, &hi);
  if (lo > delta) {
    x0 = x1; /* then search up for the largest */
    double top = b;
    while (top - x0 > 1e-3 * rel_tol * fmax(top, 1e-300)) {
      double mid = 0.5 * (x0 + top);
      if (mid <= x0 || mid >= top)
        break;
      dtab_delta(&tb, mid, &lo, &hi);
      if (lo > delta)
        x0 = mid;
      else
        top = mid;
    }
    *elo = x0;
  } else {
    /* walk down until lo > delta */
    double step = fmax(x1 - b + 0.05 * sd, 0.01 * sd) + 1e-12, y = x1;
    int ok = 0;
    for (int it = 0; it < 60 && y > 0.0; it++) {
      double x = fmax(y - step, 0.0);
      dtab_delta(&tb, x, &lo, &hi);
      if (lo > delta) {
        ok = 1;
        double top = y;
        x0 = x;
        while (top - x0 > 1e-3 * rel_tol * fmax(top, 1e-300)) {
          double mid = 0.5 * (x0 + top);
          if (mid <= x0 || mid >= top)
            break;
          dtab_delta(&tb, mid, &lo, &hi);
          if (lo > delta)
            x0 = mid;
          else
            top = mid;
        }
        break;
      }
      y = x;
      step *= 2.0;
    }
    *elo = ok ? x0 : 0.0;
  }
  dtab_free(&tb);
  return PLD_SUCCESS;
}

int pld_inversion_epsilon(const struct pld_inv_group *g, size_t n, double mu2,
                          double mu2_rel, double delta, double rel_tol,
                          pld_bound *out)
{
  int st = check_groups(g, n, mu2, mu2_rel);
  if (st)
    return st;
  if (!out || !(delta > 0.0 && delta < 1.0) || !(rel_tol > 0.0))
    return PLD_EINVAL;
  pld_bound b = {0.0, 0.0};
  for (int dir = 0; dir < 2; dir++) {
    double lo, hi;
    if ((st = dir_epsilon(g, n, mu2, mu2_rel, dir, delta, rel_tol, &lo, &hi)))
      return st;
    b.lower = fmax(b.lower, lo);
    b.upper = fmax(b.upper, hi);
  }
  *out = b;
  return PLD_SUCCESS;
}
