/* pldkit: accountant -- grouping, the Gaussian shortcut, automatic grid.
 *
 * The automatic grid starts from the spread of the composed loss (sum of the
 * groups' loss variances, measured on a coarse build) and refines until the
 * bracket is as narrow as asked.  Every bracket along the way is valid, so
 * the answer is the intersection of all of them.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "alloc.h"
#include "internal.h"
#include "numerics.h"
#include <pldkit/select.h>

/* An event group: a mechanism, or a random selection among member
 * accountants (sel != NULL, m == NULL), run `count` times. */
struct selection {
  size_t n;
  pld_accountant **members;
  double *w;
};

struct group {
  pld_mech *m;
  struct selection *sel;
  pld_dist *dist; /* a precomputed PLD (fixes the grid) */
  uint64_t count;
};

struct pld_accountant {
  pld_params params;
  struct group *g;
  size_t n, cap;
};

int pld_accountant_alloc(const pld_params *params, pld_accountant **out)
{
  if (!out)
    return PLD_EINVAL;
  pld_params def;
  if (!params) {
    pld_params_default(&def);
    params = &def;
  }
  if (pld_params_validate(params))
    return PLD_EINVAL;
  struct pld_accountant *a = pld_calloc(1, sizeof *a);
  if (!a)
    return PLD_ENOMEM;
  a->params = *params;
  *out = a;
  return PLD_SUCCESS;
}

static void selection_free(struct selection *s)
{
  if (!s)
    return;
  for (size_t i = 0; i < s->n; i++)
    pld_accountant_free(s->members[i]);
  pld_free(s->members);
  pld_free(s->w);
  pld_free(s);
}

void pld_accountant_free(pld_accountant *acc)
{
  if (!acc)
    return;
  for (size_t i = 0; i < acc->n; i++) {
    pld_mech_free(acc->g[i].m);
    selection_free(acc->g[i].sel);
    pld_dist_free(acc->g[i].dist);
  }
  pld_free(acc->g);
  pld_free(acc);
}

size_t pld_accountant_size(const pld_accountant *acc) { return acc ? acc->n : 0; }

static int reserve(pld_accountant *acc)
{
  if (acc->n < acc->cap)
    return PLD_SUCCESS;
  size_t nc = acc->cap ? 2 * acc->cap : 4;
  struct group *ng = pld_malloc(nc * sizeof *ng);
  if (!ng)
    return PLD_ENOMEM;
  if (acc->n)
    memcpy(ng, acc->g, acc->n * sizeof *ng);
  pld_free(acc->g);
  acc->g = ng;
  acc->cap = nc;
  return PLD_SUCCESS;
}

int pld_accountant_add(pld_accountant *acc, const pld_mech *m, uint64_t count)
{
  if (!acc || !m || count < 1 || count > ((uint64_t)1 << 53))
    return PLD_EINVAL;
  for (size_t i = 0; i < acc->n; i++)
    if (acc->g[i].m && pld_mech_equal(acc->g[i].m, m)) {
      if (acc->g[i].count + count > ((uint64_t)1 << 53))
        return PLD_ERANGE;
      acc->g[i].count += count;
      return PLD_SUCCESS;
    }
  int st = reserve(acc);
  if (st)
    return st;
  pld_mech *c;
  if ((st = pld_mech_copy(m, &c)))
    return st;
  acc->g[acc->n].m = c;
  acc->g[acc->n].sel = NULL;
  acc->g[acc->n].dist = NULL;
  acc->g[acc->n].count = count;
  acc->n++;
  return PLD_SUCCESS;
}

static int selection_new(size_t n, const pld_accountant *const *members,
                         const double *weights, struct selection **out)
{
  struct selection *s = pld_calloc(1, sizeof *s);
  if (!s)
    return PLD_ENOMEM;
  s->members = pld_calloc(n, sizeof *s->members);
  s->w = pld_malloc(n * sizeof(double));
  if (!s->members || !s->w) {
    selection_free(s);
    return PLD_ENOMEM;
  }
  memcpy(s->w, weights, n * sizeof(double));
  for (size_t i = 0; i < n; i++) {
    int st = pld_accountant_copy(members[i], &s->members[i]);
    if (st) {
      selection_free(s);
      return st;
    }
    s->n = i + 1;
  }
  *out = s;
  return PLD_SUCCESS;
}

int pld_accountant_add_selection(pld_accountant *acc, size_t n,
                                 const pld_accountant *const *members,
                                 const double *weights, uint64_t count)
{
  if (!acc || n < 1 || n > 4096 || !members || !weights || count < 1 ||
      count > ((uint64_t)1 << 53))
    return PLD_EINVAL;
  double sum = 0.0;
  for (size_t i = 0; i < n; i++) {
    if (!members[i] || !isfinite(weights[i]) || weights[i] < 0.0)
      return PLD_EINVAL;
    sum += weights[i];
  }
  if (fabs(sum - 1.0) > 1e-12)
    return PLD_EINVAL;
  for (size_t i = 0; i < n; i++)
    if (members[i]->n == 0)
      return PLD_EEMPTY;
  int st = reserve(acc);
  if (st)
    return st;
  struct selection *s;
  if ((st = selection_new(n, members, weights, &s)))
    return st;
  acc->g[acc->n].m = NULL;
  acc->g[acc->n].sel = s;
  acc->g[acc->n].dist = NULL;
  acc->g[acc->n].count = count;
  acc->n++;
  return PLD_SUCCESS;
}

/* The grid fixed by precomputed PLDs (0 if none, -1 if they disagree). */
static double fixed_grid(const pld_accountant *acc)
{
  double g = 0.0;
  for (size_t i = 0; i < acc->n; i++)
    if (acc->g[i].dist) {
      if (g == 0.0)
        g = acc->g[i].dist->delta;
      else if (acc->g[i].dist->delta != g)
        return -1.0;
    }
  return g;
}

int pld_accountant_add_dist(pld_accountant *acc, const pld_dist *d,
                            uint64_t count)
{
  if (!acc || !d || count < 1 || count > ((uint64_t)1 << 53))
    return PLD_EINVAL;
  double g = fixed_grid(acc);
  if ((g != 0.0 && g != d->delta) ||
      (acc->params.discretization > 0.0 &&
       acc->params.discretization != d->delta))
    return PLD_EINCOMPAT; /* now, not only at the first query */
  int st = reserve(acc);
  if (st)
    return st;
  pld_dist *c;
  if ((st = pld_dist_copy(d, &c)))
    return st;
  acc->g[acc->n].m = NULL;
  acc->g[acc->n].sel = NULL;
  acc->g[acc->n].dist = c;
  acc->g[acc->n].count = count;
  acc->n++;
  return PLD_SUCCESS;
}

int pld_accountant_copy(const pld_accountant *acc, pld_accountant **out)
{
  if (!acc || !out)
    return PLD_EINVAL;
  pld_accountant *c;
  int st = pld_accountant_alloc(&acc->params, &c);
  if (st)
    return st;
  for (size_t i = 0; i < acc->n && !st; i++) {
    const struct group *g = &acc->g[i];
    if (g->m)
      st = pld_accountant_add(c, g->m, g->count);
    else if (g->dist)
      st = pld_accountant_add_dist(c, g->dist, g->count);
    else
      st = pld_accountant_add_selection(
          c, g->sel->n, (const pld_accountant *const *)g->sel->members,
          g->sel->w, g->count);
  }
  if (st) {
    pld_accountant_free(c);
    return st;
  }
  *out = c;
  return PLD_SUCCESS;
}

/* The plan: Gaussian groups merged into one mu, the others as they are. */
struct plan {
  double mu2;             /* sum of count * mu^2 over Gaussian groups */
  double mu_rel;          /* relative error bound of sqrt(mu2) */
  pld_mech *gauss;        /* the merged Gaussian, or NULL */
  const struct group **other;
  size_t nother;
};

static void plan_free(struct plan *p)
{
  pld_mech_free(p->gauss);
  pld_free(p->other);
}

/* need_grid: the plan will be composed on a grid even if it is all
 * Gaussian (otherwise an all-Gaussian plan is answered in closed form). */
static int plan_make(const pld_accountant *acc, struct plan *p, int need_grid)
{
  memset(p, 0, sizeof *p);
  p->other = pld_malloc((acc->n ? acc->n : 1) * sizeof *p->other);
  if (!p->other)
    return PLD_ENOMEM;
  for (size_t i = 0; i < acc->n; i++) {
    double mu;
    if (acc->g[i].m && pld_mech_gaussian_mu(acc->g[i].m, &mu) == PLD_SUCCESS) {
      p->mu2 += (double)acc->g[i].count * mu * mu;
      /* mu = s/sigma (u/2), its square, the count, the sum: 2u per term
       * and u/2 per addition; halved by sqrt, plus its own u/2 (below) */
      p->mu_rel += 1.5 * DBL_EPSILON;
    } else
      p->other[p->nother++] = &acc->g[i];
  }
  p->mu_rel = 0.5 * p->mu_rel + DBL_EPSILON;
  if (p->mu2 > 0.0 && (p->nother > 0 || need_grid)) {
    /* only needed when it is discretized with other events */
    double mu = sqrt(p->mu2);
    if (!isfinite(mu) || mu > 1e6)
      return PLD_ERANGE;
    int st = pld_mech_gaussian(1.0, mu, &p->gauss);
    if (st)
      return st;
    /* the exact mu is within mu_rel of this one: booked on the curve */
    p->gauss->curve.rel_err += pld_gaussian_mu_sens(mu) * p->mu_rel;
  }
  if (!isfinite(p->mu2))
    return PLD_ERANGE;
  return PLD_SUCCESS;
}

/* A selection's PLD: each member composed on the same grid, then mixed. */
static int compose_selection(const struct selection *sel, double grid,
                             pld_dist **out)
{
  pld_dist **d = pld_calloc(sel->n, sizeof *d);
  if (!d)
    return PLD_ENOMEM;
  int st = PLD_SUCCESS;
  for (size_t i = 0; i < sel->n && !st; i++)
    st = pld_accountant_compose(sel->members[i], grid, &d[i]);
  if (!st)
    st = pld_dist_mix(sel->n, (const pld_dist *const *)d, sel->w, out);
  for (size_t i = 0; i < sel->n; i++)
    pld_dist_free(d[i]);
  pld_free(d);
  return st;
}

static int compose_plan(const struct plan *p, const pld_params *pp,
                        double grid, pld_workspace *ws, pld_dist **out)
{
  pld_dist *acc = NULL;
  int st = PLD_SUCCESS;
  size_t total = p->nother + (p->gauss ? 1 : 0);
  for (size_t i = 0; i < total && !st; i++) {
    const pld_mech *m = i < p->nother ? p->other[i]->m : p->gauss;
    const struct selection *sel = i < p->nother ? p->other[i]->sel : NULL;
    uint64_t cnt = i < p->nother ? p->other[i]->count : 1;
    pld_dist *one = NULL, *many = NULL;
    const pld_dist *fixed = i < p->nother ? p->other[i]->dist : NULL;
    if (sel)
      st = compose_selection(sel, grid, &one);
    else if (fixed)
      st = fixed->delta == grid ? pld_dist_copy(fixed, &one) : PLD_EINCOMPAT;
    else
      st = pld_dist_from_curve(pld_mech_curve(m), grid, pp, &one);
    if (!st && cnt > 1) {
      st = pld_dist_self_compose(one, cnt, ws, &many);
      pld_dist_free(one);
      one = many;
    }
    if (st) {
      pld_dist_free(one);
      break;
    }
    if (!acc) {
      acc = one;
    } else {
      pld_dist *c = NULL;
      st = pld_dist_compose(acc, one, ws, &c);
      pld_dist_free(acc);
      pld_dist_free(one);
      acc = c;
    }
  }
  if (st) {
    pld_dist_free(acc);
    return st;
  }
  *out = acc;
  return PLD_SUCCESS;
}

int pld_accountant_compose(const pld_accountant *acc, double grid,
                           pld_dist **out)
{
  if (!acc || !out || !isfinite(grid) || !(grid > 0.0))
    return PLD_EINVAL;
  if (acc->n == 0)
    return PLD_EEMPTY;
  struct plan p;
  int st = plan_make(acc, &p, 1);
  pld_workspace *ws = NULL;
  if (!st)
    st = pld_workspace_alloc(&acc->params, &ws);
  if (!st)
    st = compose_plan(&p, &acc->params, grid, ws, out);
  pld_workspace_free(ws);
  plan_free(&p);
  return st;
}

/* What coarse probe builds tell about the composed loss: its spread and
 * mean (nats), and the optimistic bias: the gap between the pessimistic and
 * optimistic mean loss per run scales like Delta^2 (both roundings are
 * second order), and summed over runs it predicts the bracket width in
 * epsilon, so bias_coef * Delta^2 ~ width. */
struct spread {
  double sd, mean, bias_coef;
};

static int composed_spread(const struct plan *p, const pld_params *pp,
                           struct spread *out);
static int composed_spread(const struct plan *p, const pld_params *pp,
                           struct spread *out)
{
  double var = p->mu2; /* Gaussian with mu: loss variance mu^2 */
  double mean_total = 0.5 * p->mu2, bias = 0.0;
  for (size_t i = 0; i < p->nother; i++) {
    if (p->other[i]->sel) {
      /* a rough start is enough: the largest member spread */
      const struct selection *sel = p->other[i]->sel;
      double vs = 0.0;
      double ms = 0.0;
      for (size_t k = 0; k < sel->n; k++) {
        struct plan mp;
        struct spread sk;
        int st = plan_make(sel->members[k], &mp, 0);
        if (!st)
          st = composed_spread(&mp, pp, &sk);
        plan_free(&mp);
        if (st)
          return st;
        vs = fmax(vs, sk.sd * sk.sd);
        ms = fmax(ms, sk.mean);
      }
      var += (double)p->other[i]->count * vs;
      mean_total += (double)p->other[i]->count * ms;
      continue;
    }
    if (p->other[i]->dist)
      continue; /* a fixed grid: the spread is not needed */
    const pld_curve *c = pld_mech_curve(p->other[i]->m);
    pld_dist *d = NULL;
    int st = PLD_SUCCESS;
    /* Progressively finer probes until the grid resolves the loss; the last
     * successful one is kept (a loss far below 1e-6 nats needs no more). */
    for (double g = fmin(fmax(c->loss_scale / 8.0, 1e-6), 1.0);; g /= 8.0) {
      pld_dist *t = NULL;
      st = pld_dist_from_curve(c, g, pp, &t);
      if (st) {
        pld_dist_free(t);
        if (d && st == PLD_ERANGE)
          st = PLD_SUCCESS; /* finer does not fit: the coarser one will do */
        break;
      }
      pld_dist_free(d);
      d = t;
      if (pld_dist_grid_size(d) >= 64 || g < 1e-8)
        break;
    }
    if (st) {
      pld_dist_free(d);
      return st;
    }
    double v = 0.0, mu = 0.0, gap = 0.0;
    for (int dir = 0; dir < 2; dir++) {
      double mean, var1, mo, vo;
      pld_pmf_moments(&d->p[dir][PLD_PESSIMISTIC], d->delta, &mean, &var1);
      pld_pmf_moments(&d->p[dir][PLD_OPTIMISTIC], d->delta, &mo, &vo);
      v = fmax(v, var1);
      mu = fmax(mu, mean);
      gap = fmax(gap, mean - mo);
    }
    if (v <= 0.0)
      v = d->delta * d->delta;
    double cnt = (double)p->other[i]->count;
    var += cnt * v;
    mean_total += cnt * mu;
    bias += cnt * gap / (d->delta * d->delta);
    pld_dist_free(d);
  }
  out->sd = sqrt(var);
  out->mean = mean_total;
  out->bias_coef = bias;
  return PLD_SUCCESS;
}

/* ---- closed form for Gaussians only ---- */

/* Root finding on certified log-space bounds of delta (pld/mech_gaussian.c:
 * llo <= log delta(eps) <= lhi, no underflow at tiny targets).  The upper
 * end is the top of a sign-changing bracket of lhi(eps) - log(target)
 * rounded down, so lhi <= that there: the exact delta is <= target, and the
 * exact epsilon is at most the upper end.  The lower end is the bottom of a
 * bracket of llo(eps) - log(target) rounded up: the exact delta exceeds the
 * target there, and, delta being decreasing, the exact epsilon is at least
 * the lower end.  (It used to solve delta(eps) = target (1 -+ 1e-10) on one
 * evaluation, whose error is up to 2e-10 relative at mu = 1e-4: an upper end
 * below the exact epsilon.) */
struct gctx {
  double mu, lt;
  int upper;
};
/* delta grows with mu (d delta/d mu = phi(a) > 0): the upper end is solved
 * at the largest mu the merged one may stand for, the lower at the least */

static double gauss_minus(double eps, void *ctx)
{
  const struct gctx *g = ctx;
  double llo, lhi;
  (void)pld_gaussian_log_delta(g->mu, eps, &llo, &lhi);
  return (g->upper ? lhi : llo) - g->lt;
}

static int gauss_epsilon(double mu_lo, double mu_hi, double delta,
                         pld_bound *b)
{
  double lt = log(delta); /* within 1 ulp: two steps out are safe */
  struct gctx g = {mu_hi, nextafter(nextafter(lt, -INFINITY), -INFINITY), 1};
  double mu = mu_hi;
  if (gauss_minus(0.0, &g) <= 0.0) {
    b->upper = 0.0;
    b->lower = 0.0;
    return PLD_SUCCESS;
  }
  double hi = fmax(mu, 1.0);
  while (gauss_minus(hi, &g) > 0.0) {
    hi *= 2.0;
    if (hi > 1e300)
      return PLD_ERANGE;
  }
  double lo_, hi_;
  if (pld_root_bracket(gauss_minus, &g, 0.0, hi, 1e-14 * hi, 400, &lo_, &hi_))
    return PLD_EMAXITER;
  /* the bracket is relative to the search range, which may be far above
   * the root (mu = 1e-6: eps ~ 2e-5 against a start at 1): once more,
   * relative to the root */
  if (pld_root_bracket(gauss_minus, &g, lo_, hi_, 1e-15 * hi_, 400, &lo_, &hi_))
    return PLD_EMAXITER;
  b->upper = hi_;
  g.lt = nextafter(nextafter(lt, INFINITY), INFINITY);
  g.upper = 0;
  g.mu = mu_lo;
  if (gauss_minus(0.0, &g) <= 0.0) {
    b->lower = 0.0;
    return PLD_SUCCESS;
  }
  /* lhi <= lt_lo at hi_ implies llo < lt_hi there: a bracket */
  if (pld_root_bracket(gauss_minus, &g, 0.0, hi_, 1e-15 * hi_, 400, &lo_, &hi_))
    return PLD_EMAXITER;
  b->lower = fmin(lo_, b->upper);
  return PLD_SUCCESS;
}

/* ---- the refinement loop ---- */

/* Absolute floor for delta brackets: below it a relative target would only
 * chase the FFT's error floor at great cost. */
#define DELTA_FLOOR 1e-12

enum qkind { Q_EPS, Q_DELTA, Q_CURVE };

struct query {
  enum qkind kind;
  double x;          /* delta for Q_EPS, eps for Q_DELTA */
  size_t n;
  const double *eps; /* Q_CURVE */
};

static int eval_query(const pld_dist *d, const struct query *q, pld_bound *b,
                      pld_bound *curve, double *curve_max)
{
  if (q->kind == Q_EPS)
    return pld_dist_epsilon(d, q->x, b);
  if (q->kind == Q_DELTA)
    return pld_dist_delta(d, q->x, b);
  int st = pld_dist_curve(d, q->n, q->eps, curve);
  if (st)
    return st;
  /* the point that matters is the one furthest from its target */
  double mx = 0.0;
  for (size_t i = 0; i < q->n; i++)
    mx = fmax(mx, curve[i].upper);
  size_t w = 0;
  double worst = -INFINITY;
  for (size_t i = 0; i < q->n; i++) {
    double tgt = fmax(1e-3 * curve[i].upper, fmax(DELTA_FLOOR, 1e-6 * mx));
    double r = (curve[i].upper - curve[i].lower) / tgt;
    if (r > worst) {
      worst = r;
      w = i;
    }
  }
  *b = curve[w];
  *curve_max = mx;
  return PLD_SUCCESS;
}

static int width_ok(const struct query *q, const pld_params *pp, pld_bound b,
                    double curve_max)
{
  if (q->kind == Q_EPS) {
    if (b.lower == INFINITY)
      return 1; /* no finite epsilon, and that is certain */
    if (b.upper == INFINITY)
      return 0;
    return b.upper - b.lower <= fmax(pp->accuracy * b.upper, pp->abs_accuracy);
  }
  double floor = DELTA_FLOOR;
  if (q->kind == Q_CURVE)
    floor = fmax(floor, 1e-6 * curve_max); /* a curve is read on its own scale */
  return b.upper - b.lower <= fmax(pp->accuracy * b.upper, floor);
}

static int run_query(const pld_accountant *acc, const struct query *q,
                     pld_result *res, pld_bound *curve)
{
  if (acc->n == 0)
    return PLD_EEMPTY;
  struct plan p;
  int st = plan_make(acc, &p, 0);
  if (st) {
    plan_free(&p);
    return st;
  }
  pld_result r;
  memset(&r, 0, sizeof r);

  if (p.nother == 0) { /* exact: one Gaussian with mu = sqrt(sum mu_i^2) */
    double mu = sqrt(p.mu2);
    r.closed_form = 1;
    r.met_accuracy = 1;
    if (q->kind == Q_EPS) {
      st = gauss_epsilon(mu * (1.0 - p.mu_rel), mu * (1.0 + p.mu_rel), q->x,
                         &r.bound);
    } else {
      size_t n = q->kind == Q_DELTA ? 1 : q->n;
      for (size_t i = 0; i < n; i++) {
        double e = q->kind == Q_DELTA ? q->x : q->eps[i];
        /* certified ends; the upper one is never 0 for the positive
         * exact value at a finite eps, even below the smallest double */
        pld_bound b;
        double junk;
        (void)pld_gaussian_delta_bounds(mu * (1.0 - p.mu_rel), e, &b.lower, &junk);
        (void)pld_gaussian_delta_bounds(mu * (1.0 + p.mu_rel), e, &junk, &b.upper);
        if (q->kind == Q_DELTA)
          r.bound = b;
        else
          curve[i] = b;
      }
      if (q->kind == Q_CURVE)
        r.bound = curve[0];
    }
    plan_free(&p);
    if (!st)
      *res = r;
    return st;
  }

  const pld_params *pp = &acc->params;
  pld_workspace *ws = NULL;
  if ((st = pld_workspace_alloc(pp, &ws))) {
    plan_free(&p);
    return st;
  }
  pld_bound *tmp = NULL;
  if (q->kind == Q_CURVE) {
    tmp = pld_malloc(q->n * sizeof *tmp);
    if (!tmp) {
      st = PLD_ENOMEM;
      goto done;
    }
    for (size_t i = 0; i < q->n; i++) {
      curve[i].lower = 0.0;
      curve[i].upper = 1.0;
    }
  }
  double grid = pp->discretization;
  int fixed = grid > 0.0;
  double fg = fixed_grid(acc);
  if (fg < 0.0 || (fg > 0.0 && fixed && grid != fg)) {
    st = PLD_EINCOMPAT;
    goto done;
  }
  if (fg > 0.0) {
    grid = fg;
    fixed = 1;
  }
  if (!fixed) {
    struct spread sp;
    if ((st = composed_spread(&p, pp, &sp)))
      goto done;
    double sd = sp.sd;
    /* Start where the composed spread covers ~3000 grid points; the loop
     * refines from there.  Point-mass losses have no spread: then the
     * events' own loss scales set the start. */
    double scale = 0.0;
    for (size_t i = 0; i < p.nother; i++)
      if (p.other[i]->m)
        scale = fmax(scale, pld_mech_curve(p.other[i]->m)->loss_scale);
    grid = sd / 3000.0;
    /* a rough estimate of the answer (Gaussian tail of the composed loss) */
    double eps_est = q->kind == Q_EPS
                         ? fmax(sp.mean + sd * sqrt(2.0 * log(1.0 / q->x)), 0.0)
                         : 0.0;
    if (q->kind == Q_EPS && sp.bias_coef > 0.0) {
      /* aim the predicted width (bias_coef grid^2) at twice the target (the
       * prediction from the coarse probe overestimates by several times) */
      double want = 2.0 * fmax(pp->accuracy * fmax(eps_est, 1e-3),
                               pp->abs_accuracy);
      double gb = sqrt(want / sp.bias_coef);
      grid = fmin(fmax(gb, sd / 30000.0), sd / 300.0);
    }
    grid = fmax(fmax(grid, 1e-4 * scale), 1e-7);
    if (q->kind == Q_EPS) {
      /* An epsilon bracket need not be finer than its absolute target
       * (abs_accuracy), and connect-the-dots moves
       * each run's loss by at most one step: a step of a quarter of that
       * target per run suffices to start, however narrow the spread (a
       * single round at rate p*q = 1e-4 has sd ~ 5e-3 and started at
       * 1.5e-6, 2.2M points, 4.5 s).  The loop refines if it must. */
      double runs = 0.0;
      for (size_t i = 0; i < p.nother; i++)
        runs += (double)p.other[i]->count;
      /* only where the absolute target binds (tiny epsilons): where the
       * relative one does, the bias estimate above knows better, and a
       * coarser start would stop at a bracket that meets the width but
       * sits higher (calibrating to an atom's epsilon then fails) */
      if (pp->abs_accuracy > pp->accuracy * eps_est)
        grid = fmax(grid, fmin(0.25 * pp->abs_accuracy / fmax(runs, 1.0),
                               sd / 30.0));
    }
  }
  /* When every discretized event lives on one loss lattice, a grid step
   * dividing it makes every PLD exact (no atom is split). */
  double lattice = (p.gauss || !p.other[0]->m)
                       ? 0.0
                       : pld_mech_curve(p.other[0]->m)->loss_lattice;
  for (size_t i = 1; i < p.nother && lattice > 0.0; i++)
    if (!p.other[i]->m || pld_mech_curve(p.other[i]->m)->loss_lattice != lattice)
      lattice = 0.0;
  if (!fixed && lattice > 0.0)
    grid = lattice / ceil(lattice / grid - 1e-9);
  pld_bound best = {0.0, INFINITY};
  if (q->kind != Q_EPS)
    best.upper = 1.0;
  double prev_w = INFINITY, prev_grid = 0.0;
  unsigned coarsen = 0;
  for (unsigned it = 0; it < 12; it++) {
    pld_dist *d = NULL;
    st = compose_plan(&p, pp, grid, ws, &d);
    if (st == PLD_ERANGE && r.refinements > 0) { /* finest grid that fits */
      st = PLD_SUCCESS;
      break;
    }
    if (st == PLD_ERANGE && !fixed && coarsen < 8) {
      /* not even the first grid fits the memory cap (a tiny sampling rate
       * needs a fine step over a long tail): coarsen; the bracket stays
       * certified, only wider, and met_accuracy says so */
      grid *= 4.0;
      coarsen++;
      it--;
      continue;
    }
    if (st)
      goto done;
    pld_bound b;
    double cmax = 0.0;
    st = eval_query(d, q, &b, tmp, &cmax);
    r.refinements = it + 1;
    r.discretization = grid;
    if (pld_dist_grid_size(d) > r.grid_size)
      r.grid_size = pld_dist_grid_size(d);
    if (pld_dist_fft_size(d) > r.fft_size)
      r.fft_size = pld_dist_fft_size(d);
    pld_dist_free(d);
    if (st)
      goto done;
    best.upper = fmin(best.upper, b.upper);
    best.lower = fmax(best.lower, b.lower);
    if (q->kind == Q_CURVE)
      for (size_t i = 0; i < q->n; i++) {
        curve[i].upper = fmin(curve[i].upper, tmp[i].upper);
        curve[i].lower = fmax(curve[i].lower, tmp[i].lower);
      }
    if (fixed) {
      r.met_accuracy = width_ok(q, pp, best, cmax);
      break;
    }
    if (width_ok(q, pp, best, cmax)) {
      r.met_accuracy = 1;
      break;
    }
    double w = best.upper - best.lower;
    /* the width should fall about quadratically with the step; if it does
     * not even fall linearly, the floor is not the grid any more */
    if (it >= 1 && !(w < prev_w * (grid / prev_grid)))
      break;
    prev_w = w;
    prev_grid = grid;
    /* Both roundings err to second order in the grid step (connect-the-dots
     * and its dual), so the width shrinks about quadratically; aim a little
     * below the target, by at most 8x per step. */
    double target = q->kind == Q_EPS
                        ? fmax(pp->accuracy * best.upper, pp->abs_accuracy)
                        : fmax(pp->accuracy * best.upper, DELTA_FLOOR);
    double f = (isfinite(w) && w > 0.0) ? sqrt(0.8 * target / w) : 0.125;
    if (f < 0.125)
      f = 0.125;
    if (f > 0.7)
      f = 0.7;
    grid *= f;
    if (lattice > 0.0)
      grid = lattice / ceil(lattice / grid - 1e-9);
  }
  r.bound = best;
  if (best.lower > best.upper)
    r.bound.lower = best.upper;
  *res = r;
done:
  pld_free(tmp);
  pld_workspace_free(ws);
  plan_free(&p);
  return st;
}

int pld_accountant_epsilon(const pld_accountant *acc, double delta,
                           pld_result *out)
{
  if (!acc || !out || isnan(delta) || !(delta > 0.0 && delta < 1.0))
    return PLD_EINVAL;
  struct query q = {Q_EPS, delta, 0, NULL};
  return run_query(acc, &q, out, NULL);
}

int pld_accountant_delta(const pld_accountant *acc, double eps,
                         pld_result *out)
{
  if (!acc || !out || isnan(eps) || eps < 0.0)
    return PLD_EINVAL;
  struct query q = {Q_DELTA, eps, 0, NULL};
  return run_query(acc, &q, out, NULL);
}

int pld_accountant_curve(const pld_accountant *acc, size_t n, const double *eps,
                         pld_bound *out, pld_result *info)
{
  if (!acc || !eps || !out || n == 0)
    return PLD_EINVAL;
  for (size_t i = 0; i < n; i++)
    if (isnan(eps[i]) || eps[i] < 0.0)
      return PLD_EINVAL;
  struct query q = {Q_CURVE, 0.0, n, eps};
  pld_result r;
  pld_bound *tmp = pld_malloc(n * sizeof *tmp);
  if (!tmp)
    return PLD_ENOMEM;
  int st = run_query(acc, &q, &r, tmp);
  if (!st) {
    memcpy(out, tmp, n * sizeof *tmp);
    if (info)
      *info = r;
  }
  pld_free(tmp);
  return st;
}
