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
#include "inversion.h"
#include "numerics.h"
#include <pldkit/select.h>
#include "detail.h"

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
  pld_detail_clear();
  if (!out)
    return pld_fail(PLD_EINVAL, "out is NULL");
  pld_params def;
  if (!params) {
    pld_params_default(&def);
    params = &def;
  }
  if (pld_params_validate(params))
    return pld_fail_if_silent(PLD_EINVAL, "pld_accountant_alloc: params rejected by pld_params_validate");
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

int pld_accountant_get_params(const pld_accountant *acc, pld_params *out)
{
  pld_detail_clear();
  if (!acc || !out)
    return pld_fail(PLD_EINVAL, "%s is NULL", !acc ? "acc" : "out");
  *out = acc->params;
  return PLD_SUCCESS;
}

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
  pld_detail_clear();
  if (!acc || !m)
    return pld_fail(PLD_EINVAL, "%s is NULL", !acc ? "acc" : "mechanism");
  if (count < 1 || count > ((uint64_t)1 << 53))
    return pld_fail(PLD_EINVAL, "count = %llu must be in [1, 2^53]", (unsigned long long)count);
  for (size_t i = 0; i < acc->n; i++)
    if (acc->g[i].m && pld_mech_equal(acc->g[i].m, m)) {
      if (acc->g[i].count + count > ((uint64_t)1 << 53))
        return pld_fail(PLD_ERANGE, "the mechanism's total count %llu + %llu exceeds 2^53",
                        (unsigned long long)acc->g[i].count, (unsigned long long)count);
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
  pld_detail_clear();
  if (!acc || !members || !weights)
    return pld_fail(PLD_EINVAL, "%s is NULL", !acc ? "acc" : !members ? "members" : "weights");
  if (n < 1 || n > 4096)
    return pld_fail(PLD_EINVAL, "n = %zu members must be in [1, 4096]", n);
  if (count < 1 || count > ((uint64_t)1 << 53))
    return pld_fail(PLD_EINVAL, "count = %llu must be in [1, 2^53]", (unsigned long long)count);
  for (size_t i = 0; i < n; i++)
    if (!members[i])
      return pld_fail(PLD_EINVAL, "members[%zu] is NULL", i);
  if (!pld_is_simplex(weights, n, PLD_WEIGHT_SUM_TOL, "weights"))
    return PLD_EINVAL;
  for (size_t i = 0; i < n; i++)
    if (!members[i])
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

/* Whether PLDs on grid step h cannot join acc: acc's own PLDs (or its
 * params' fixed step) are on another one; *g gets that step for the
 * message. */
static int grid_conflict(const pld_accountant *acc, double h, double *g)
{
  double f = fixed_grid(acc);
  *g = f != 0.0 ? f : acc->params.discretization;
  return h < 0.0 || (f != 0.0 && f != h) ||
         (acc->params.discretization > 0.0 &&
          acc->params.discretization != h);
}

int pld_accountant_add_dist(pld_accountant *acc, const pld_dist *d,
                            uint64_t count)
{
  pld_detail_clear();
  if (!acc || !d)
    return pld_fail(PLD_EINVAL, "%s is NULL", !acc ? "acc" : "dist");
  if (count < 1 || count > ((uint64_t)1 << 53))
    return pld_fail(PLD_EINVAL, "count = %llu must be in [1, 2^53]", (unsigned long long)count);
  double g;
  if (grid_conflict(acc, d->delta, &g))
    return pld_fail(PLD_EINCOMPAT, /* now, not only at the first query */
                    "the PLD's grid step %.17g differs from the composition's %.17g",
                    d->delta, g);
  int st = reserve(acc);
  if (st)
    return st;
  pld_dist *c;
  if ((st = pld_dist_copy(d, &c)))
    return st;
  /* an added PLD is taken as its file holds it (which keeps no l1 split),
   * so a ledger in memory and the same ledger loaded give one answer */
  for (int i = 0; i < 2; i++)
    for (int r = 0; r < 2; r++) {
      c->p[i][r].l1 = c->p[i][r].l1abs = 0.0;
      pld_free(c->p[i][r].l1p);
      c->p[i][r].l1p = NULL;
      c->p[i][r].l1pn = 0;
    }
  acc->g[acc->n].m = NULL;
  acc->g[acc->n].sel = NULL;
  acc->g[acc->n].dist = c;
  acc->g[acc->n].count = count;
  acc->n++;
  return PLD_SUCCESS;
}

/* Deep copy of one group (a mechanism, a selection or a PLD). */
static int group_copy(const struct group *g, struct group *out)
{
  int st;
  memset(out, 0, sizeof *out);
  out->count = g->count;
  if (g->m)
    st = pld_mech_copy(g->m, &out->m);
  else if (g->dist)
    st = pld_dist_copy(g->dist, &out->dist);
  else
    st = selection_new(g->sel->n, (const pld_accountant *const *)g->sel->members,
                       g->sel->w, &out->sel);
  return st;
}

static void group_release(struct group *g)
{
  pld_mech_free(g->m);
  selection_free(g->sel);
  pld_dist_free(g->dist);
}

/* All or nothing: every check, the room and every copy come before the
 * first change to acc, so a failure (PLD_ENOMEM included) leaves it as it
 * was.  That is what makes an event that enters as several groups (a
 * k-of-T allocation's blocks, an EVENT list) one update: a half-added
 * event would under-count the privacy loss of a run that happened. */
int pld_accountant_merge(pld_accountant *acc, const pld_accountant *other)
{
  pld_detail_clear();
  if (!acc || !other)
    return pld_fail(PLD_EINVAL, "%s is NULL", !acc ? "acc" : "other");
  const uint64_t cap = (uint64_t)1 << 53;
  double g, h = fixed_grid(other);
  if (h != 0.0 && grid_conflict(acc, h, &g))
    return pld_fail(PLD_EINCOMPAT,
                    "the added PLDs' grid step %.17g differs from the composition's %.17g",
                    h, g);
  size_t n0 = acc->n, no = other->n;
  /* each of other's groups goes to an equal mechanism's group in acc (or
   * one appended before it here), else to a new group */
  uint64_t *cnt = pld_malloc((n0 + no ? n0 + no : 1) * sizeof *cnt);
  struct group *add = pld_calloc(no ? no : 1, sizeof *add);
  int st = (!cnt || !add) ? PLD_ENOMEM : PLD_SUCCESS;
  size_t nadd = 0;
  for (size_t i = 0; i < n0 && !st; i++)
    cnt[i] = acc->g[i].count;
  for (size_t i = 0; i < no && !st; i++) {
    const struct group *o = &other->g[i];
    size_t j = n0 + nadd;
    if (o->m) {
      for (j = 0; j < n0 && !(acc->g[j].m && pld_mech_equal(acc->g[j].m, o->m)); j++)
        ;
      if (j == n0)
        for (j = n0; j < n0 + nadd && !(add[j - n0].m && pld_mech_equal(add[j - n0].m, o->m)); j++)
          ;
    }
    if (j < n0 + nadd) {
      if (cnt[j] + o->count > cap)
        st = pld_fail(PLD_ERANGE, "a mechanism's total count %llu + %llu exceeds 2^53",
                      (unsigned long long)cnt[j], (unsigned long long)o->count);
      else
        cnt[j] += o->count;
    } else if (!(st = group_copy(o, &add[nadd]))) {
      cnt[n0 + nadd] = o->count;
      nadd++;
    }
  }
  if (!st && n0 + nadd > acc->cap) {
    struct group *ng = pld_malloc((n0 + nadd) * sizeof *ng);
    if (!ng)
      st = PLD_ENOMEM;
    else {
      if (n0)
        memcpy(ng, acc->g, n0 * sizeof *ng);
      pld_free(acc->g);
      acc->g = ng;
      acc->cap = n0 + nadd;
    }
  }
  if (!st) { /* commit: nothing below fails */
    for (size_t i = 0; i < n0; i++)
      acc->g[i].count = cnt[i];
    for (size_t i = 0; i < nadd; i++) {
      acc->g[n0 + i] = add[i];
      acc->g[n0 + i].count = cnt[n0 + i];
    }
    acc->n = n0 + nadd;
  } else
    for (size_t i = 0; i < nadd; i++)
      group_release(&add[i]);
  pld_free(cnt);
  pld_free(add);
  return st;
}

int pld_accountant_copy(const pld_accountant *acc, pld_accountant **out)
{
  pld_detail_clear();
  if (!acc || !out)
    return pld_fail(PLD_EINVAL, "%s is NULL", !acc ? "acc" : "out");
  pld_accountant *c;
  int st = pld_accountant_alloc(&acc->params, &c);
  if (st)
    return st;
  if ((st = pld_accountant_merge(c, acc))) {
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
      return pld_fail(PLD_ERANGE, "the Gaussians compose to mu = %g, above the cap 1e6", mu);
    int st = pld_mech_gaussian(1.0, mu, &p->gauss);
    if (st)
      return st;
    /* the exact mu is within mu_rel of this one: booked on the curve */
    p->gauss->curve.rel_err += pld_gaussian_mu_sens(mu) * p->mu_rel;
  }
  if (!isfinite(p->mu2))
    return pld_fail(PLD_ERANGE, "the Gaussians' composed mu^2 overflows");
  return PLD_SUCCESS;
}

/* Every group's single-run PLD on one grid (a selection's or a loaded PLD
 * as it is), with its count: what a query composes, and what the tilt is
 * chosen from. */
struct built {
  size_t n;
  pld_dist **one;
  uint64_t *cnt;
  /* a selection group's members, built on the same grid (sel->n of them),
   * or NULL: its tilted single run is composed from them (compose_built),
   * and its log-MGF is theirs mixed (tilt_K2) */
  const struct selection **sel;
  struct built **sub;
};

static void built_free(struct built *b)
{
  for (size_t i = 0; i < b->n; i++) {
    pld_dist_free(b->one[i]);
    if (b->sub && b->sub[i]) {
      for (size_t k = 0; k < b->sel[i]->n; k++)
        built_free(&b->sub[i][k]);
      pld_free(b->sub[i]);
    }
  }
  pld_free(b->one);
  pld_free(b->cnt);
  pld_free(b->sel);
  pld_free(b->sub);
  memset(b, 0, sizeof *b);
}

static int build_plan(const struct plan *p, const pld_params *bp, double grid,
                      struct built *b);
static int compose_built(const struct built *b, const double *tilt,
                         pld_workspace *ws, pld_dist **out);

/* A selection's members built on the grid, each with the builds' tail mass
 * bp->tail_mass shared among its runs: the mixture's mass cut off is then
 * at most the parent's share per run, as for any other group.  (With
 * their own params, as pld_accountant_compose has them, every member cut
 * its tails at the fixed 1e-20 whatever the query: a selection of two
 * Gaussians had +inf at delta = 1e-30 on every grid, [9.516, inf], the
 * RDP's 11.90 answering in 2.6 s, while each member alone is exact.) */
static int build_members(const struct selection *sel, const pld_params *bp,
                         double grid, struct built *sub)
{
  int st = PLD_SUCCESS;
  for (size_t k = 0; k < sel->n && !st; k++) {
    const pld_accountant *m = sel->members[k];
    pld_params mp = m->params;
    double runs = 0.0;
    for (size_t i = 0; i < m->n; i++)
      runs += (double)m->g[i].count;
    double t = pld_params_tail(bp) / fmax(runs, 1.0);
    mp.tail_mass = mp.tail_mass > 0.0 ? fmin(mp.tail_mass, t) : t;
    struct plan p;
    st = plan_make(m, &p, 1);
    if (!st)
      st = build_plan(&p, &mp, grid, &sub[k]);
    plan_free(&p);
  }
  return st;
}

/* A selection's single run from its members' builds: each member composed
 * (tilted by tilt when not NULL), then mixed (pld_dist_mix; tilted members
 * make the tilted mixture, docs/design.md §5a, with every member's
 * round-off relative to its tilted mass -- tilting the mixture of untilted
 * compositions instead weighed their absolute round-off at full size, and
 * a selection among composed runs failed below delta ~ 1e-10). */
static int mix_members(const struct selection *sel, const struct built *sub,
                       const double *tilt, pld_workspace *ws, pld_dist **out)
{
  pld_dist **d = pld_calloc(sel->n, sizeof *d);
  if (!d)
    return PLD_ENOMEM;
  int st = PLD_SUCCESS;
  /* The members' PLDs are all held until the mix: their grids together
   * count against max_grid like one grid (500 members once took 11 GB and
   * 139 s), and the first member over it stops the composition. */
  size_t cap = sel->members[0]->params.max_grid, total = 0;
  for (size_t i = 0; i < sel->n && !st; i++) {
    pld_progress((double)i / (double)sel->n, "random selection: composing the members");
    st = compose_built(&sub[i], tilt, ws, &d[i]);
    if (!st) {
      total += pld_dist_grid_size(d[i]);
      if (total > cap)
        st = pld_fail(PLD_ERANGE,
                      "random selection: members 1..%zu of %zu hold grids of %zu points "
                      "together, over max_grid = %zu (raise max_grid, coarsen the "
                      "discretization, or select among fewer members)",
                      i + 1, sel->n, total, cap);
    }
  }
  if (!st)
    st = pld_dist_mix(sel->n, (const pld_dist *const *)d, sel->w, out);
  for (size_t i = 0; i < sel->n; i++)
    pld_dist_free(d[i]);
  pld_free(d);
  return st;
}

/* bp: the params of the builds (tail_mass may be below the accountant's) */
static int build_plan(const struct plan *p, const pld_params *bp, double grid,
                      struct built *b)
{
  size_t total = p->nother + (p->gauss ? 1 : 0);
  memset(b, 0, sizeof *b);
  b->one = pld_calloc(total ? total : 1, sizeof *b->one);
  b->cnt = pld_calloc(total ? total : 1, sizeof *b->cnt);
  b->sel = pld_calloc(total ? total : 1, sizeof *b->sel);
  b->sub = pld_calloc(total ? total : 1, sizeof *b->sub);
  if (!b->one || !b->cnt || !b->sel || !b->sub) {
    built_free(b);
    return PLD_ENOMEM;
  }
  int st = PLD_SUCCESS;
  /* Every group's build is held until the composition (the tilt search
   * weighs them all first), so memory grows with the number of distinct
   * groups times the grid: 10^4 distinct steps held 3.7 GB, and 1000 on a
   * grid refined to 2.9e-5 (a loose explicit tail_mass) 24 GB, which the
   * kernel's OOM killer answered.  Past max(2^28, 32 max_grid) points in
   * all (2 GiB of doubles at the default), the grid does not fit (PLD_ERANGE): the refinement stops there, a
   * first grid is coarsened, as for one array past max_grid. */
  double held = 0.0, cap = fmax(268435456.0, 32.0 * (double)bp->max_grid);
  for (size_t i = 0; i < total && !st; i++) {
    const pld_mech *m = i < p->nother ? p->other[i]->m : p->gauss;
    const struct selection *sel = i < p->nother ? p->other[i]->sel : NULL;
    const pld_dist *fixed = i < p->nother ? p->other[i]->dist : NULL;
    b->cnt[i] = i < p->nother ? p->other[i]->count : 1;
    b->n = i + 1;
    if (sel) {
      pld_workspace *ws = NULL;
      b->sub[i] = pld_calloc(sel->n, sizeof *b->sub[i]);
      if (!b->sub[i]) {
        st = PLD_ENOMEM;
        break;
      }
      b->sel[i] = sel;
      st = build_members(sel, bp, grid, b->sub[i]);
      if (!st)
        st = pld_workspace_alloc(bp, &ws);
      if (!st)
        st = mix_members(sel, b->sub[i], NULL, ws, &b->one[i]);
      pld_workspace_free(ws);
    }
    else if (fixed)
      st = fixed->delta == grid ? pld_dist_copy(fixed, &b->one[i])
                                : PLD_EINCOMPAT;
    else
      st = pld_dist_from_mech(m, grid, bp, &b->one[i]);
    b->n = i + 1;
    for (int dir = 0; dir < 2 && !st; dir++)
      for (int r = 0; r < 2; r++)
        held += (double)b->one[i]->p[dir][r].n;
    if (!st && held > cap)
      st = pld_fail(PLD_ERANGE,
                    "the %zu distinct groups' PLDs on a grid of %g nats hold "
                    "more than %.3g points in all (max(2^28, 32 max_grid)); "
                    "a coarser discretization fits",
                    total, grid, cap);
  }
  if (st)
    built_free(b);
  return st;
}

/* The composition of the built groups, every member tilted by tilt[dir]
 * first when tilt is not NULL (docs/design.md §5a).
 *
 * The groups are composed as a balanced binary tree (a binary counter:
 * two partial compositions of equal rank are merged as soon as both
 * exist), not as a left fold.  Every pairwise composition keeps both
 * members on their safe side and books its errors for any pair (§5), so
 * the order changes no soundness argument; it changes the cost: a fold
 * over 1000 distinct steps transforms the whole composed support (~1e5
 * points) three times per step, the tree transforms short supports at the
 * bottom and needs about half the work (docs/design.md §5b).  At most
 * log2(n) + 1 partial results are alive at a time. */
static int compose_built(const struct built *b, const double *tilt,
                         pld_workspace *ws, pld_dist **out)
{
  pld_dist *stack[66];
  unsigned rank[66];
  size_t top = 0;
  int st = PLD_SUCCESS;
  for (size_t i = 0; i <= b->n && !st; i++) {
    if (i < b->n) {
      pld_dist *one = NULL, *many = NULL;
      if (tilt && (tilt[0] > 0.0 || tilt[1] > 0.0)) {
        /* a selection: its members composed tilted, then mixed (tilting
         * the mixture of their untilted compositions would weigh those
         * compositions' absolute round-off at full size) */
        st = b->sub && b->sub[i]
                 ? mix_members(b->sel[i], b->sub[i], tilt, ws, &one)
                 : pld_dist_tilt(b->one[i], tilt, &one);
        if (st == PLD_ERANGE && b->sub && b->sub[i]) {
          /* a tilted member's window over the memory cap: the tilt of the
           * untilted mixture (sound, its round-off weighed at full size) */
          pld_detail_clear();
          st = pld_dist_tilt(b->one[i], tilt, &one);
        }
        /* The tilt leaves most of a run's support with tilted mass far
         * below what the compositions trim from their outputs (the add
         * direction's lower tail, weighted by e^{lambda l}): trim it here
         * already, booked the same way (tabs), so the first compositions
         * transform short supports.  Not before a self-composition:
         * that multiplies its input's tabs by the count. */
        for (int dir = 0; dir < 2 && !st && ws->tilt_tail > 0.0 &&
                          b->cnt[i] == 1;
             dir++)
          for (int r = 0; r < 2 && !st; r++)
            if (one->p[dir][r].tilt > 0.0)
              st = pld_pmf_trim(&one->p[dir][r], r, ws->tilt_tail);
      } else {
        st = pld_dist_copy(b->one[i], &one);
      }
      if (!st && b->cnt[i] > 1) {
        st = pld_dist_self_compose(one, b->cnt[i], ws, &many);
        pld_dist_free(one);
        one = many;
      }
      if (st) {
        pld_dist_free(one);
        break;
      }
      stack[top] = one;
      rank[top] = 0;
      top++;
    }
    /* merge equal ranks (and, after the last group, everything) */
    while (top >= 2 && (i == b->n || rank[top - 1] == rank[top - 2])) {
      pld_dist *c = NULL;
      st = pld_dist_compose(stack[top - 2], stack[top - 1], ws, &c);
      pld_dist_free(stack[top - 2]);
      pld_dist_free(stack[top - 1]);
      top -= 2;
      if (st)
        break;
      stack[top] = c;
      rank[top] = rank[top] + 1 > rank[top + 1] + 1 ? rank[top] + 1
                                                     : rank[top + 1] + 1;
      top++;
    }
  }
  if (st) {
    while (top > 0)
      pld_dist_free(stack[--top]);
    return st;
  }
  if (top == 0)
    return PLD_EEMPTY;
  *out = stack[0];
  return PLD_SUCCESS;
}

static int compose_plan(const struct plan *p, const pld_params *pp,
                        double grid, pld_workspace *ws, pld_dist **out)
{
  struct built b;
  int st = build_plan(p, pp, grid, &b);
  if (st)
    return st;
  st = compose_built(&b, NULL, ws, out);
  built_free(&b);
  return st;
}

/* ---- the tilt (docs/design.md §5a) ----
 * K(lambda) = sum count log sum_i m_i e^{lambda l_i} over the groups'
 * pessimistic members bounds the log-MGF of the composed loss; its
 * derivative is the mean of the tilted composition.  Composing the tilted
 * measures puts the FFT's round-off where the tilted mass is, so a tilt
 * whose tilted mean sits at the eps of interest makes the error there
 * relative to delta(eps). */
static double tilt_K2(const struct built *b, int dir, double lam, double *dK,
                      double *d2K)
{
  double K = 0.0, D = 0.0, D2 = 0.0;
  for (size_t i = 0; i < b->n; i++) {
    const pld_dist *d = b->one[i];
    double m1, m2, k;
    if (b->sub && b->sub[i]) {
      /* a selection: the mixture's log-MGF from its members' (the
       * composed mixture's own tail is its members' untilted round-off) */
      const struct selection *sel = b->sel[i];
      double kk[64], d1[64], d2[64], kmax = -INFINITY;
      size_t nk = sel->n;
      double *kv = nk <= 64 ? kk : pld_malloc(3 * nk * sizeof(double));
      double *dv1 = nk <= 64 ? d1 : kv + nk, *dv2 = nk <= 64 ? d2 : kv + 2 * nk;
      if (!kv)
        return NAN;
      for (size_t m = 0; m < nk; m++) {
        kv[m] = sel->w[m] > 0.0
                    ? log(sel->w[m]) + tilt_K2(&b->sub[i][m], dir, lam,
                                               &dv1[m], &dv2[m])
                    : -INFINITY;
        kmax = fmax(kmax, kv[m]);
      }
      double z = 0.0, e1 = 0.0, e2 = 0.0;
      for (size_t m = 0; m < nk; m++)
        if (kv[m] > -INFINITY) {
          double pi = exp(kv[m] - kmax);
          z += pi;
          e1 += pi * dv1[m];
          e2 += pi * (dv2[m] + dv1[m] * dv1[m]);
        }
      k = kmax + log(z);
      m1 = e1 / z;
      m2 = e2 / z - m1 * m1;
      if (kv != kk)
        pld_free(kv);
    } else {
      k = pld_pmf_logmgf_fast(&d->p[d->symmetric ? 0 : dir][PLD_PESSIMISTIC],
                              d->delta, lam, &m1, &m2);
    }
    K += (double)b->cnt[i] * k;
    D += (double)b->cnt[i] * m1;
    D2 += (double)b->cnt[i] * m2;
  }
  *dK = D;
  if (d2K)
    *d2K = D2;
  return K;
}

static double tilt_K(const struct built *b, int dir, double lam, double *dK)
{
  return tilt_K2(b, dir, lam, dK, NULL);
}

/* The tilt for direction dir: its tilted mean at eps (want_eps), or, for a
 * delta target, where the Chernoff exponent lambda K' - K reaches
 * log(1/delta).  0 when eps is at or below the mean (no tilt needed).
 * Both conditions H(lambda) = 0 are increasing in lambda (H' = K'' for
 * want_eps, lambda K'' + log1p(1/lambda) otherwise): doubling brackets the
 * root, then Newton steps kept inside the bracket (a bisection in log
 * lambda where Newton leaves it) find it in a few evaluations of K (each a
 * pass over every group: 1000 distinct groups made the former 60-step
 * bisection the largest cost of a query). */
static double tilt_for(const struct built *b, int dir, double sd, int want_eps,
                       double x)
{
  double dK, K = tilt_K(b, dir, 0.0, &dK);
  if (!isfinite(K) || !isfinite(dK))
    return 0.0;
  /* delta target: the Chernoff bound g(lam) e^{K - lam eps} at eps = K'(lam)
   * reaches x (-log g grows like log lam, so a target below the mass of
   * the top atom is reached too) */
#define TILT_H(lam, Kv, dKv)                                                  \
  (want_eps ? (dKv) - x                                                       \
            : (lam) * (dKv) - (Kv) - (lam) * log(lam) + (1.0 + (lam)) * log1p(lam) + log(x))
#define TILT_DH(lam, d2v) (want_eps ? (d2v) : (lam) * (d2v) + log1p(1.0 / (lam)))
  if (want_eps && dK >= x)
    return 0.0;
  /* Past lam * (a run's loss range) ~ 1e4 the tilted masses below the top
   * underflow anyway, and the untilting's rounding (query.c, rho) grows
   * with it: stop there. */
  double range = 0.0;
  for (size_t i = 0; i < b->n; i++)
    for (int r = 0; r < 2; r++) {
      const struct pld_pmf *m = &b->one[i]->p[dir][r];
      range = fmax(range, (double)m->n * b->one[i]->delta);
    }
  double lmax = 1e4 / fmax(range, 1e-300);
  double lo = 0.0, hi = fmin(1.0 / fmax(sd, 1e-300), lmax), prev = dK;
  double Hhi = 0.0, DHhi = 0.0, d2hi = 0.0;
  int found = 0;
  for (int it = 0; it < 200; it++) {
    double d1, d2, K1 = tilt_K2(b, dir, hi, &d1, &d2);
    if (!isfinite(K1) || !isfinite(d1))
      break;
    if ((Hhi = TILT_H(hi, K1, d1)) >= 0.0) {
      found = 1;
      DHhi = TILT_DH(hi, d2);
      d2hi = d2;
      break;
    }
    /* the tilted mean stops moving at the top of the support: no tilt
     * reaches the target, the strongest one found will do */
    if (it > 8 && d1 - prev <= 1e-12 * fabs(d1) + 1e-300)
      break;
    prev = d1;
    lo = hi;
    if (hi >= lmax)
      break;
    hi = fmin(2.0 * hi, lmax);
  }
  if (!found)
    return lo;
  /* Newton from hi (H convex-ish and increasing: steps from the right stay
   * right of the root), safeguarded by the bracket [lo, hi] */
  double cur = hi, Hc = Hhi, DHc = DHhi, d2c = d2hi;
  for (int it = 0; it < 60; it++) {
    /* a tilt off by d costs a factor e^{K'' d^2 / 2} in the booked error
     * only: stop when that is below 1.001, or at 1e-4 relative */
    if (hi - lo <= 1e-4 * hi ||
        (d2c > 0.0 && d2c * (hi - lo) * (hi - lo) <= 2e-3))
      break;
    double nx = (DHc > 0.0 && isfinite(DHc)) ? cur - Hc / DHc : -1.0;
    double mid = lo > 0.0 ? sqrt(lo * hi) : 0.5 * hi;
    if (!(nx > lo && nx < hi))
      nx = mid;
    else if (fabs(cur - nx) <= 1e-4 * hi ||
             (d2c > 0.0 && d2c * (cur - nx) * (cur - nx) <= 2e-3))
      return nx; /* the Newton step is within the tolerance of the root */
    double d1, d2, K1 = tilt_K2(b, dir, nx, &d1, &d2);
    double Hn = isfinite(K1) ? TILT_H(nx, K1, d1) : INFINITY;
    if (Hn >= 0.0)
      hi = nx;
    else
      lo = nx;
    cur = nx;
    Hc = Hn;
    DHc = isfinite(K1) ? TILT_DH(nx, d2) : 0.0;
    d2c = isfinite(K1) ? d2 : 0.0;
    if (Hn == 0.0)
      return nx;
  }
#undef TILT_H
#undef TILT_DH
  return 0.5 * (lo + hi);
}

int pld_accountant_compose(const pld_accountant *acc, double grid,
                           pld_dist **out)
{
  pld_detail_clear();
  if (!acc || !out)
    return pld_fail(PLD_EINVAL, "%s is NULL", !acc ? "acc" : "out");
  if (!isfinite(grid) || !(grid > 0.0))
    return pld_fail(PLD_EINVAL, "discretization = %g must be finite and > 0", grid);
  if (acc->n == 0)
    return pld_fail(PLD_EEMPTY, "the accountant holds no events");
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

/* A probe build of one mechanism: its per-run loss variance, mean, the
 * optimistic bias (pessimistic minus optimistic mean) and the probe's step. */
static int probe_spread(const pld_mech *m, const pld_params *pp,
                      double *v_out, double *mu_out, double *gap_out,
                      double *delta_out)
{
  const pld_curve *c = pld_mech_curve(m);
  pld_dist *d = NULL;
  int st = PLD_SUCCESS;
  /* Progressively finer probes until the grid resolves the loss; the last
   * successful one is kept (a loss far below 1e-6 nats needs no more).
   * Losses of 1e7 nats and more do not fit even the first probe: then
   * the builder's largest step, and finer from there. */
  for (double g = fmin(fmax(c->loss_scale / 8.0, 1e-6), 1.0);; g /= 8.0) {
    pld_dist *t = NULL;
    /* (a bracket's curve is its upper member's: the probe wants the
     * spread and the grid's bias, not the bracket's own gap) */
    st = pld_dist_from_curve(c, g, pp, &t);
    if (st == PLD_ERANGE && !d && g < PLD_GRID_TAILS_MAX) {
      pld_dist_free(t);
      g = 8.0 * PLD_GRID_TAILS_MAX; /* the loop divides by 8 */
      continue;
    }
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
  *v_out = v;
  *mu_out = mu;
  *gap_out = gap;
  *delta_out = d->delta;
  pld_dist_free(d);
  return PLD_SUCCESS;
}

#define SPREAD_STRATA 64
static int composed_spread(const struct plan *p, const pld_params *pp,
                           struct spread *out);
static int composed_spread(const struct plan *p, const pld_params *pp,
                           struct spread *out)
{
  double var = p->mu2; /* Gaussian with mu: loss variance mu^2 */
  double mean_total = 0.5 * p->mu2, bias = 0.0;
  size_t nplain = 0;
  size_t *plain_idx = pld_malloc((p->nother ? p->nother : 1) * sizeof(size_t));
  if (!plain_idx)
    return PLD_ENOMEM;
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
        if (st) {
          pld_free(plain_idx);
          return st;
        }
        vs = fmax(vs, sk.sd * sk.sd);
        ms = fmax(ms, sk.mean);
      }
      var += (double)p->other[i]->count * vs;
      mean_total += (double)p->other[i]->count * ms;
      continue;
    }
    if (p->other[i]->dist)
      continue; /* a fixed grid: the spread is not needed */
    plain_idx[nplain++] = i; /* below */
  }
  /* Many plain groups (a heterogeneous schedule: 1000 distinct steps cost
   * 1000 probe builds, ~2 s) share probes: they fall into SPREAD_STRATA
   * runs of consecutive groups, and a run whose mechanisms all come from
   * one constructor takes its middle group's per-run figures.  This only
   * sets the first grid (any grid is sound; the refinement loop corrects
   * a poor start). */
  size_t nruns = nplain > SPREAD_STRATA ? SPREAD_STRATA : nplain;
  for (size_t k = 0; k < nruns; k++) {
    size_t first = k * nplain / nruns, last = (k + 1) * nplain / nruns;
    const pld_mech *mm = p->other[plain_idx[(first + last) / 2]]->m;
    int same = 1;
    for (size_t r = first; r < last && same; r++)
      same = p->other[plain_idx[r]]->m->type == mm->type &&
             p->other[plain_idx[r]]->m->label == mm->label;
    for (size_t r = first; r < last; r++) {
      const pld_mech *m = same ? mm : p->other[plain_idx[r]]->m;
      double cnt = 0.0;
      if (same)
        for (size_t t = first; t < last; t++)
          cnt += (double)p->other[plain_idx[t]]->count;
      else
        cnt = (double)p->other[plain_idx[r]]->count;
      double v, mu, gap, dl;
      int st = probe_spread(m, pp, &v, &mu, &gap, &dl);
      if (st) {
        pld_free(plain_idx);
        return st;
      }
      var += cnt * v;
      mean_total += cnt * mu;
      bias += cnt * gap / (dl * dl);
      if (same)
        break;
    }
  }
  pld_free(plain_idx);
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
      return pld_fail_if_silent(PLD_ERANGE, "the Gaussian composition's epsilon exceeds 1e300 (mu = %g)", mu);
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

enum qkind { Q_EPS, Q_DELTA, Q_CURVE };

struct query {
  enum qkind kind;
  double x;          /* delta for Q_EPS, eps for Q_DELTA */
  size_t n;
  const double *eps; /* Q_CURVE */
  double floor;      /* Q_CURVE: the params' delta_floor (0: none) */
  const pld_bound *fb; /* Q_CURVE with a floor: the points' grid-free
                          brackets (pld_accountant_curve), else NULL */
  int grid_only;     /* no grid-free inversion (pld_accountant_epsilon_grid) */
};

/* A delta bracket's absolute floor (pld_bound_meets): the smallest delta
 * of interest, never below PLD_DELTA_FLOOR. */
static double delta_floor(const pld_params *pp)
{
  return fmax(PLD_DELTA_FLOOR, pp->delta_floor);
}

/* A curve point's bracket: the grid's, intersected with the point's
 * grid-free bracket where the query carries one (a delta floor). */
static pld_bound curve_point(const struct query *q, const pld_bound *curve,
                             size_t i)
{
  pld_bound b = curve[i];
  if (q->fb) {
    b.upper = fmin(b.upper, q->fb[i].upper);
    b.lower = fmax(b.lower, q->fb[i].lower);
  }
  return b;
}

/* The point of a curve furthest from its target width, and the curve's
 * largest upper delta.  With a delta floor a point whose certified upper
 * end is at or below it meets its target (pld_bound_meets). */
static void curve_worst(const struct query *q, const pld_bound *curve,
                        pld_bound *b, double *curve_max)
{
  double mx = 0.0;
  for (size_t i = 0; i < q->n; i++)
    mx = fmax(mx, curve[i].upper);
  size_t w = 0;
  double worst = -INFINITY;
  for (size_t i = 0; i < q->n; i++) {
    pld_bound c = curve_point(q, curve, i);
    double tgt = fmax(1e-3 * c.upper, fmax(PLD_DELTA_FLOOR, q->floor));
    double r = (c.upper - c.lower) / tgt;
    if (r > worst) {
      worst = r;
      w = i;
    }
  }
  *b = curve_point(q, curve, w);
  *curve_max = mx;
}

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
  curve_worst(q, curve, b, curve_max);
  return PLD_SUCCESS;
}

static int width_ok(const struct query *q, const pld_params *pp, pld_bound b)
{
  return pld_bound_meets(pp, b, q->kind != Q_EPS);
}

/* The width the query asks for at an upper end `upper` (pld_bound_meets'
 * target without its infinite-epsilon case). */
static double width_target(const struct query *q, const pld_params *pp,
                           double upper)
{
  return q->kind == Q_EPS ? fmax(pp->accuracy * upper, pp->abs_accuracy)
                          : fmax(pp->accuracy * upper, delta_floor(pp));
}

/* A build's tail mass for answers near delta over `runs` runs: its share of
 * the bracket at most a hundredth of the accuracy asked (a thousandth cost
 * 1000 distinct Poisson-Gaussian steps 12% more time for 5e-7 of width).  It goes to +inf
 * in the pessimistic member, so it is booked in full.  With tail_mass set,
 * that is the cap.  Automatic (tail_mass = 0): an epsilon query knows its
 * delta exactly (`exact`), and its share is the tail; a delta or curve
 * query only has an estimate of delta, which may exceed the truth by
 * orders of magnitude, so there the fixed tail stays the cap. */
static double tail_for(const pld_params *pp, double delta, double runs,
                       int exact)
{
  double t = 1e-2 * pp->accuracy * delta / runs;
  if (!(t > 1e-280))
    t = 1e-280;
  double cap = pp->tail_mass > 0.0 ? pp->tail_mass
                                   : (exact ? 1e-3 : PLD_TAIL_MASS_FIXED);
  return fmin(t, cap);
}

/* The tilted members' trim per side and composition in an epsilon query
 * with tail_mass automatic.  A tilted trim is booked as tilted error tabs
 * (§5a); normalised members have tilted mass about 1, so the final tabs is
 * about the sum of the trims, at most 6 per group (the tilted run, its
 * self-composition and a merge, both sides; 8 taken).  Its effect on delta(eps) is tabs W(eps), W the
 * Chernoff bound at the query's tilt, which is delta's own size up to the
 * bound's looseness: a total of 1e-4 of the accuracy keeps it far inside
 * the target.  (Fixed at 1e-20, the trims kept composed supports 30% longer
 * than needed: 1000 distinct Poisson-Gaussian steps, bench_hetero.) */
static double tilted_tail(const pld_params *pp, size_t groups)
{
  return 1e-4 * pp->accuracy / (8.0 * ((double)groups + 1.0));
}

/* Chernoff estimate of delta(eps) of the composition under tilt lam: the
 * bound W(eps) of the booked error per unit of tilted L1 (query.c) is
 * g(lam) e^{K(lam) - lam eps}, and it bounds delta(eps) itself. */
static double tilt_delta_est(const struct built *b, int dir, double lam,
                             double eps)
{
  double dK, K = tilt_K(b, dir, lam, &dK);
  double lg = lam > 0.0 ? lam * log(lam) - (1.0 + lam) * log1p(lam) : 0.0;
  return fmin(exp(lg + K - lam * eps), 1.0);
}

/* The tilts a query composes under on this grid, and an estimate of the
 * smallest delta it looks at.  eps and delta queries: one tilt per
 * direction, from the best bracket so far (or, for the first epsilon
 * grid, from the delta asked).  Curves: the untilted pass plus up to
 * MAX_TILTS - 1 tilts spread over the points above the mean loss. */
#define MAX_TILTS 9
#define PLD_SPARSE_SPAN_MAX 1e6
/* Whether every group is a sparse pmf (composed by exact direct convolution,
 * compose.c: at most 64 atoms), so that no FFT round-off arises to tilt
 * away; a tilt would only let rounding noise far up the lattice capture
 * it (randomized response at eps0 = 1e-9 lost its tight upper end). */
static int all_sparse(const struct built *b)
{
  for (size_t i = 0; i < b->n; i++)
    for (int dir = 0; dir < 2; dir++) {
      const struct pld_pmf *m = &b->one[i]->p[dir][PLD_PESSIMISTIC];
      size_t nz = 0;
      for (size_t j = 0; j < m->n; j++)
        nz += m->m[j] != 0.0;
      /* (the T-fold power stays sparse only while its span fits) */
      if (nz > 64 || (double)(m->n - 1) * (double)b->cnt[i] + 1.0 >
                         (double)PLD_SPARSE_SPAN_MAX)
        return 0;
    }
  return 1;
}

static size_t choose_tilts(const struct built *b, const struct query *q,
                           pld_bound best, double tilts[][2], double *est)
{
  double sd = 1.0;
  *est = 1.0;
  if (all_sparse(b)) {
    tilts[0][0] = tilts[0][1] = 0.0;
    return 1;
  }
  if (q->kind == Q_EPS) {
    double e = isfinite(best.upper) ? 0.5 * (best.lower + best.upper)
                                    : best.lower;
    /* The larger of the Chernoff guess from delta and the tilt of the
     * bracket's middle: a bracket may come from grid-free bounds far from
     * the answer (advanced composition over 1e8 Laplace runs put its middle
     * below the mean, and no tilt left the FFT floor at inf), and a tilt
     * too weak costs the upper end, one too strong only some width (the
     * second pass below repairs it). */
    for (int dir = 0; dir < 2; dir++) {
      double l = tilt_for(b, dir, sd, 0, q->x);
      if (isfinite(best.upper))
        l = fmax(l, tilt_for(b, dir, sd, 1, e));
      tilts[0][dir] = l;
    }
    *est = q->x;
    return 1;
  }
  if (q->kind == Q_DELTA) {
    double e = 0.0;
    if (q->x == INFINITY) { /* only the mass at +inf counts: no tilt */
      tilts[0][0] = tilts[0][1] = 0.0;
      return 1;
    }
    for (int dir = 0; dir < 2; dir++) {
      tilts[0][dir] = tilt_for(b, dir, sd, 1, q->x);
      e = fmax(e, tilt_delta_est(b, dir, tilts[0][dir], q->x));
    }
    *est = e;
    return 1;
  }
  /* curve: the points above the mean of either direction, in order */
  size_t nt = 0;
  tilts[nt][0] = tilts[nt][1] = 0.0;
  nt++;
  double mean[2];
  for (int dir = 0; dir < 2; dir++)
    tilt_K(b, dir, 0.0, &mean[dir]);
  double lo = INFINITY, hi = -INFINITY;
  for (size_t i = 0; i < q->n; i++)
    if (isfinite(q->eps[i]) && (q->eps[i] > mean[0] || q->eps[i] > mean[1]) &&
        !(q->fb && q->fb[i].upper <= q->floor)) {
      lo = fmin(lo, q->eps[i]);
      hi = fmax(hi, q->eps[i]);
    }
  if (!(hi >= lo))
    return nt;
  double e_est = 1.0;
  size_t want = MAX_TILTS - 1;
  for (size_t k = 0; k < want; k++) {
    double e = want > 1 ? lo + (hi - lo) * (double)k / (double)(want - 1) : hi;
    double de = 0.0; /* delta is the larger of the two directions' */
    for (int dir = 0; dir < 2; dir++) {
      tilts[nt][dir] = tilt_for(b, dir, sd, 1, e);
      de = fmax(de, tilt_delta_est(b, dir, tilts[nt][dir], e));
    }
    e_est = fmin(e_est, de);
    if (tilts[nt][0] == tilts[nt - 1][0] && tilts[nt][1] == tilts[nt - 1][1])
      continue;
    nt++;
    if (lo == hi)
      break;
  }
  *est = e_est;
  return nt;
}

/* The grid-free bounds (pld/fallback.c) of the plan: for Q_EPS and Q_DELTA
 * into *one, for Q_CURVE into fc[0..n).  Selections and added PLDs take no
 * part (they make the list incomplete: no upper bound then). */
static int fallback_query(const struct plan *p, const struct query *q,
                          pld_fb_answer *one, pld_fb_answer *fc)
{
  struct pld_fb_group *g = pld_malloc((p->nother ? p->nother : 1) * sizeof *g);
  if (!g)
    return PLD_ENOMEM;
  size_t n = 0;
  int complete = 1;
  for (size_t i = 0; i < p->nother; i++) {
    if (p->other[i]->m) {
      g[n].m = p->other[i]->m;
      g[n].count = p->other[i]->count;
      n++;
    } else {
      complete = 0;
    }
  }
  int st = PLD_SUCCESS;
  if (q->kind == Q_EPS)
    st = pld_fallback_epsilon(g, n, p->mu2, complete, q->x, one);
  else if (q->kind == Q_DELTA)
    st = pld_fallback_delta(g, n, p->mu2, complete, q->x, one);
  else
    for (size_t i = 0; i < q->n && !st; i++)
      st = pld_fallback_delta(g, n, p->mu2, complete, q->eps[i], &fc[i]);
  pld_free(g);
  return st;
}

/* Two certified ends in the wrong order mean one of them is not certified:
 * a bracket whose members were passed the wrong way round
 * (pld_mech_bracket trusts its caller), or a defect.  Which one is wrong is
 * unknown, so the answer widens to cover both, with the kinds following the
 * values: clamping the lower end down to the upper one (as before) reported
 * a swapped Gaussian bracket as the point [3.709, 3.709] with the accuracy
 * met, below the 8.385 of its dominating member.  At a tie to the last
 * bits this moves the upper end up by an ulp, never down. */
static void settle(pld_bound *b, int *uk, int *lk)
{
  if (b->lower > b->upper) {
    double t = b->lower;
    b->lower = b->upper;
    b->upper = t;
    int k = *lk;
    *lk = *uk;
    *uk = k;
  }
}

/* Where the bracket is still too wide, the lower ends from the composed
 * loss's mean and variance (pld/fallback.c; they cost a few thousand tail
 * evaluations per event, so only then).  Raises best (Q_EPS, Q_DELTA) or
 * curve[], and the lower kind in kinds[] (one per point). */
static int moments_lower(const struct plan *p, const struct query *q,
                         pld_fb_answer *kinds, pld_bound *best,
                         pld_bound *curve)
{
  struct pld_fb_group *g = pld_malloc((p->nother ? p->nother : 1) * sizeof *g);
  size_t npts = q->kind == Q_CURVE ? q->n : 1;
  double *lo = pld_malloc(npts * sizeof(double));
  int st = PLD_ENOMEM;
  if (g && lo) {
    size_t n = 0;
    for (size_t i = 0; i < p->nother; i++)
      if (p->other[i]->m) {
        g[n].m = p->other[i]->m;
        g[n].count = p->other[i]->count;
        n++;
      }
    for (size_t i = 0; i < npts; i++)
      lo[i] = q->kind == Q_CURVE ? curve[i].lower : best->lower;
    st = pld_fallback_moments(g, n, p->mu2, q->kind != Q_EPS, npts,
                              q->kind == Q_CURVE ? q->eps : &q->x, lo);
  }
  if (!st)
    for (size_t i = 0; i < npts; i++) {
      pld_bound *b = q->kind == Q_CURVE ? &curve[i] : best;
      if (lo[i] > b->lower) {
        b->lower = lo[i];
        kinds[i].lower_kind = PLD_BOUND_MOMENTS;
        settle(b, &kinds[i].upper_kind, &kinds[i].lower_kind);
      }
    }
  pld_free(g);
  pld_free(lo);
  return st;
}

/* A curve's summary in *r: the point furthest from its target width (its
 * bracket into *best, its kinds), and whether it met the target. */
static void curve_summary(const struct query *q, const pld_params *pp,
                          const pld_bound *curve, const pld_fb_answer *kinds,
                          pld_result *r, pld_bound *best)
{
  double mx = 0.0;
  curve_worst(q, curve, best, &mx);
  size_t w = 0;
  for (size_t i = 0; i < q->n; i++)
    if (curve[i].lower == best->lower && curve[i].upper == best->upper) {
      w = i;
      break;
    }
  r->bound_kind = kinds[w].upper_kind;
  r->lower_kind = kinds[w].lower_kind;
  r->met_accuracy = width_ok(q, pp, *best);
}

/* The grid's bracket b (kind GRID, or NONE where trivial) combined with a
 * fallback answer: the smaller upper end, the larger lower end. */
static void combine(pld_bound *b, int *uk, int *lk, const pld_fb_answer *f,
                    int delta_kind)
{
  double trivial = delta_kind ? 1.0 : INFINITY;
  *uk = b->upper < trivial ? PLD_BOUND_GRID : PLD_BOUND_NONE;
  *lk = b->lower > 0.0 ? PLD_BOUND_GRID : PLD_BOUND_NONE;
  if (f->bound.upper < b->upper) {
    b->upper = f->bound.upper;
    *uk = f->upper_kind;
  }
  if (f->bound.lower > b->lower) {
    b->lower = f->bound.lower;
    *lk = f->lower_kind;
  }
  settle(b, uk, lk);
}

/* Whether some group is a bracket (pld_mech_bracket) with two distinct
 * members: then part of the composed bracket's width is the members' gap,
 * which no grid narrows. */
static int plan_has_bracket(const struct plan *p)
{
  for (size_t i = 0; i < p->nother; i++) {
    const pld_mech *m = p->other[i]->m;
    if (m && pld_mech_upper(m) != pld_mech_lower(m))
      return 1;
  }
  return 0;
}

/* The bracket this grid gives when every bracketed group is replaced by its
 * upper member alone (both roundings of it), under the same tilts: its
 * upper end is the query's (the pessimistic members are the same), its
 * width what the grid leaves of the upper member's own answer.  Only steers
 * the refinement (it is no lower end of the true answer): once it meets the
 * target, a finer grid can move the certified upper end by at most that
 * much, and the rest of the width is the mechanisms' own gap. */
static int member_bracket(const struct plan *p, const struct built *bl,
                          const pld_params *bp, double grid,
                          const double (*tilts)[2], size_t nt,
                          pld_workspace *ws, const struct query *q,
                          int upper, pld_bound *bu, pld_bound *tmp)
{
  struct built u = {bl->n, NULL, bl->cnt, bl->sel, bl->sub};
  unsigned char *own = pld_calloc(bl->n ? bl->n : 1, 1);
  u.one = pld_calloc(bl->n ? bl->n : 1, sizeof *u.one);
  int st = own && u.one ? PLD_SUCCESS : PLD_ENOMEM;
  for (size_t i = 0; i < bl->n && !st; i++) {
    const pld_mech *m = i < p->nother ? p->other[i]->m : NULL;
    if (m && pld_mech_upper(m) != pld_mech_lower(m)) {
      own[i] = 1;
      st = pld_dist_from_mech(upper ? pld_mech_upper(m) : pld_mech_lower(m),
                              grid, bp, &u.one[i]);
    } else {
      u.one[i] = bl->one[i];
    }
  }
  pld_bound b = {0.0, q->kind == Q_EPS ? INFINITY : 1.0};
  pld_bound *cu = NULL;
  if (!st && q->kind == Q_CURVE) {
    cu = pld_malloc(q->n * sizeof *cu);
    if (!cu)
      st = PLD_ENOMEM;
    for (size_t i = 0; cu && i < q->n; i++)
      cu[i] = (pld_bound){0.0, 1.0};
  }
  for (size_t t = 0; t < nt && !st; t++) {
    pld_dist *d = NULL;
    double cmax = 0.0;
    pld_bound bt;
    st = compose_built(&u, tilts[t], ws, &d);
    if (st == PLD_ERANGE && t > 0) {
      st = PLD_SUCCESS;
      continue;
    }
    if (!st)
      st = eval_query(d, q, &bt, tmp, &cmax);
    pld_dist_free(d);
    if (st)
      break;
    b.upper = fmin(b.upper, bt.upper);
    b.lower = fmax(b.lower, bt.lower);
    for (size_t i = 0; cu && i < q->n; i++) {
      cu[i].upper = fmin(cu[i].upper, tmp[i].upper);
      cu[i].lower = fmax(cu[i].lower, tmp[i].lower);
    }
  }
  if (!st && cu) {
    double cmax = 0.0;
    curve_worst(q, cu, &b, &cmax);
  }
  if (!st)
    *bu = b;
  pld_free(cu);
  for (size_t i = 0; u.one && i < bl->n; i++)
    if (own[i])
      pld_dist_free(u.one[i]);
  pld_free(u.one);
  pld_free(own);
  return st;
}

/* Whether the bracketed events' members are rigorously farther apart than
 * the target: the upper members' largest optimistic end over the grids so
 * far (bu_lo, below their true value; a grid whose own rounding aliases
 * can show a lower one) above the lower members' pessimistic end on this
 * grid (above theirs) by more than the target.  The answer's ends cannot pass the
 * members' true values, so no grid meets the target: the refinement's
 * last look (below) would only spend a 16 times finer grid.  Builds the
 * grid's PLDs again (once per query, at the second stall).  0 where it
 * cannot tell (no bracket, a failure). */
static int members_apart(const struct plan *p, const pld_params *bp,
                         double grid, const double (*tilts)[2], size_t nt,
                         pld_workspace *ws, const struct query *q,
                         int have_bu, pld_bound bu, double bu_lo,
                         const pld_params *pp, pld_bound *tmp)
{
  if (!have_bu || q->kind == Q_CURVE)
    return 0;
  struct built bl;
  pld_bound bo = {0.0, INFINITY};
  if (build_plan(p, bp, grid, &bl) != PLD_SUCCESS)
    return 0;
  int st = member_bracket(p, &bl, bp, grid, tilts, nt, ws, q, 0, &bo, tmp);
  built_free(&bl);
  return st == PLD_SUCCESS &&
         bu_lo - bo.upper > width_target(q, pp, bu.upper);
}

#define INV_MAX_GROUPS 8
#define INV_MIN_RUNS 16
/* The grid-free Laplace inversion (pld/inversion.c, design.md §16) of a
 * list whose every event has a certified MGF, on the automatic grid: *have
 * is set when *out (an epsilon or delta query) or outc[0..n) (a curve; a
 * point it could not answer is [0, 1], and after the first such point it
 * stops trying) holds its certified brackets.  Any failure but ENOMEM
 * leaves the answer to the grid. */
static int inversion_query(const pld_accountant *acc, const struct plan *p,
                           const struct query *q, pld_bound *out,
                           pld_bound *outc, int *have)
{
  *have = 0;
  if (q->grid_only)
    return PLD_SUCCESS;
  /* Its cost grows with the number of distinct groups (every abscissa,
   * alias and decay interval evaluates each group's MGF) and its tail
   * bounds are first order in 1/t, loose for a few runs: a few distinct
   * groups of many runs, where it is milliseconds (design.md §16.7). */
  uint64_t runs = 0;
  for (size_t i = 0; i < p->nother; i++)
    runs += p->other[i]->count;
  if (acc->params.discretization > 0.0 || p->nother > INV_MAX_GROUPS ||
      runs < INV_MIN_RUNS)
    return PLD_SUCCESS;
  struct pld_inv_group *g = pld_malloc((p->nother ? p->nother : 1) * sizeof *g);
  if (!g)
    return PLD_ENOMEM;
  int st = PLD_SUCCESS;
  for (size_t i = 0; i < p->nother; i++) {
    g[i].m = p->other[i]->m;
    g[i].count = p->other[i]->count;
    if (!g[i].m || !pld_mech_mgf(g[i].m))
      goto out;
  }
  double mu2_rel = 2.0 * p->mu_rel + 4.0 * DBL_EPSILON;
  if (q->kind == Q_EPS)
    st = pld_inversion_epsilon(g, p->nother, p->mu2, mu2_rel, q->x,
                               acc->params.accuracy, out);
  else if (q->kind == Q_DELTA)
    st = pld_inversion_delta(g, p->nother, p->mu2, mu2_rel, q->x, out);
  else {
    for (size_t i = 0; i < q->n; i++)
      outc[i] = (pld_bound){0.0, 1.0};
    for (size_t i = 0; i < q->n && !st; i++)
      st = pld_inversion_delta(g, p->nother, p->mu2, mu2_rel, q->eps[i],
                               &outc[i]);
    if (st && st != PLD_ENOMEM) /* what was answered stands */
      st = PLD_SUCCESS;
  }
  *have = st == PLD_SUCCESS;
  if (st != PLD_ENOMEM)
    st = PLD_SUCCESS;
out:
  pld_free(g);
  return st;
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
    r.bound_kind = PLD_BOUND_CLOSED_FORM;
    r.lower_kind = PLD_BOUND_CLOSED_FORM;
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

  /* the grid-free inversion answers when it meets the target; otherwise
   * its bracket is intersected with the grid's at the end */
  pld_bound inv, *invc = NULL;
  int inv_have, inv_met;
  if (q->kind == Q_CURVE && !(invc = pld_malloc(q->n * sizeof *invc))) {
    plan_free(&p);
    return PLD_ENOMEM;
  }
  if ((st = inversion_query(acc, &p, q, &inv, invc, &inv_have))) {
    pld_free(invc);
    plan_free(&p);
    return st;
  }
  inv_met = inv_have && (q->kind == Q_CURVE || width_ok(q, &acc->params, inv));
  for (size_t i = 0; inv_met && q->kind == Q_CURVE && i < q->n; i++)
    inv_met = pld_bound_meets(&acc->params, invc[i], 1);
  if (inv_met) {
    if (q->kind == Q_CURVE) {
      double mx;
      memcpy(curve, invc, q->n * sizeof *curve);
      curve_worst(q, curve, &inv, &mx);
    }
    r.bound = inv;
    r.met_accuracy = 1;
    r.bound_kind = r.lower_kind = PLD_BOUND_INVERSION;
    pld_free(invc);
    plan_free(&p);
    *res = r;
    return PLD_SUCCESS;
  }
  const pld_params *pp = &acc->params;
  pld_workspace *ws = NULL;
  if ((st = pld_workspace_alloc(pp, &ws))) {
    pld_free(invc);
    plan_free(&p);
    return st;
  }
  pld_bound *tmp = NULL;
  pld_fb_answer *fbc = NULL;
  if (q->kind == Q_CURVE) {
    tmp = pld_malloc(q->n * sizeof *tmp);
    fbc = pld_malloc(q->n * sizeof *fbc);
    if (!tmp || !fbc) {
      st = PLD_ENOMEM;
      goto done;
    }
    for (size_t i = 0; i < q->n; i++) {
      curve[i].lower = 0.0;
      curve[i].upper = 1.0;
    }
  }
  /* The grid-free bounds (pld/fallback.c), computed when the grid cannot
   * answer or did not meet the target: where it did, no other bound can
   * move either end by more than the target width.  Until then they are
   * the trivial bracket. */
  pld_fb_answer fb1 = {{0.0, q->kind == Q_EPS ? INFINITY : 1.0},
                       PLD_BOUND_NONE, PLD_BOUND_NONE};
  for (size_t i = 0; q->kind == Q_CURVE && i < q->n; i++)
    fbc[i] = (pld_fb_answer){{0.0, 1.0}, PLD_BOUND_NONE, PLD_BOUND_NONE};
  int fb_done = 0;
  int gap_wide = 0; /* the last grid saw a bracket's gap above the target */
  double bu_lo = -INFINITY; /* the upper members' largest optimistic end */
  pld_bound best = {0.0, INFINITY};
  if (q->kind != Q_EPS)
    best.upper = 1.0;
  {
    /* The grid books each curve's relative error per run, compounding as
     * prod (1 + rel_i)^count_i (design.md Sec. 5): from rel >= 1 on it
     * certifies no upper end, and its lower end is divided by 1 + rel.
     * When that rules out anything useful (10^12 runs at rel 4e-11: a
     * factor e^40), skip the grid rather than compose it for nothing. */
    double lr = 0.0;
    for (size_t i = 0; i < p.nother; i++)
      if (p.other[i]->m)
        lr += (double)p.other[i]->count *
              log1p(pld_mech_curve(p.other[i]->m)->rel_err);
    double lim = q->kind == Q_EPS ? log1p(1.0 / q->x) + 1.0 : 40.0;
    if (lr >= lim)
      goto finish;
  }
  /* A delta whose grid-free upper end is at most PLD_DELTA_FLOOR (0 where
   * the runs' pure eps0 sum to at most eps: the loss's support) meets the
   * width rule with any lower end: no grid (design.md Sec. 7, tail
   * queries).  A curve asks at its smallest eps: delta is non-increasing. */
  if (q->kind != Q_EPS) {
    double e = q->x;
    for (size_t i = 0; q->kind == Q_CURVE && i < q->n; i++)
      e = i ? fmin(e, q->eps[i]) : q->eps[0];
    struct query q1 = {Q_DELTA, e, 0, NULL, 0.0, NULL, 0};
    pld_fb_answer t1 = fb1;
    if ((st = fallback_query(&p, &q1, &t1, NULL)))
      goto done;
    if (t1.bound.upper <= PLD_DELTA_FLOOR) {
      fb1 = t1;
      for (size_t i = 0; q->kind == Q_CURVE && i < q->n; i++)
        fbc[i] = (pld_fb_answer){{0.0, t1.bound.upper}, t1.upper_kind,
                                 PLD_BOUND_NONE};
      fb_done = 1;
      goto finish;
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
  /* A grid that does not fit max_grid (a huge count's window, a tiny cap)
   * leaves the answer to the grid-free bounds if they say anything (an
   * upper end below the trivial one), instead of failing. */
#define GRID_FAILED_RESCUE()                                                  \
  do {                                                                        \
    if (!fb_done) {                                                           \
      fb_done = 1;                                                            \
      if ((st = fallback_query(&p, q, &fb1, fbc)))                            \
        goto done;                                                            \
    }                                                                         \
    int useful_ = fb1.bound.upper < best.upper || inv_have;                   \
    for (size_t i_ = 0; q->kind == Q_CURVE && i_ < q->n && !useful_; i_++)    \
      useful_ = fbc[i_].bound.upper < 1.0;                                    \
    if (useful_) {                                                            \
      st = PLD_SUCCESS;                                                       \
      goto finish;                                                            \
    }                                                                         \
    st = PLD_ERANGE;                                                          \
    goto done;                                                                \
  } while (0)
  double spread_sd = INFINITY; /* unknown on a fixed grid */
  if (!fixed) {
    struct spread sp;
    if ((st = composed_spread(&p, pp, &sp))) {
      if (st == PLD_ERANGE)
        GRID_FAILED_RESCUE();
      goto done;
    }
    double sd = sp.sd;
    spread_sd = sd;
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
      /* aim the predicted width (bias_coef grid^2) at 1.6 times the target
       * (the prediction from the coarse probe overestimates, typically by
       * 2-6 times; at twice the target 1000 distinct Poisson-Gaussian
       * steps just missed, 0.22%, and needed a second grid: 1.6 meets on
       * the first, 9.0 -> 4.5 s, at 5-20% more time on single-mechanism
       * queries of tens of ms, bench_perf) */
      double want = 1.6 * fmax(pp->accuracy * fmax(eps_est, 1e-3),
                               pp->abs_accuracy);
      double gb = sqrt(want / sp.bias_coef);
      grid = fmin(fmax(gb, sd / 30000.0), sd / 300.0);
    }
    if (q->kind == Q_DELTA && isfinite(q->x) && sp.bias_coef > 0.0) {
      /* A relative width a of delta(eps) is a width of about a / lambda in
       * eps, lambda the slope of -log delta there (the tilt; for a
       * Gaussian-like composed loss (eps - mean) / sd^2, at least 1/sd):
       * aim the predicted eps width at that. */
      double lam = fmax((q->x - sp.mean) / (sd * sd), 1.0 / sd);
      double gb = sqrt(2.0 * pp->accuracy / lam / sp.bias_coef);
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
  /* A step at or below the lattice makes every PLD exact, and the lattice
   * itself is the coarsest such step; a step above it splits atoms, which
   * the roundings handle (a fine lattice -- a discrete Gaussian with large
   * sigma has 1/sigma^2 -- is not worth millions of points).  A lattice
   * above the builder's largest step with bucket merging (discrete Laplace
   * with scale 1e-8: 1e8 nats) is divided down to it, and so is any
   * automatic step (a spread of 1e7 nats and more). */
  double lstep = lattice > PLD_GRID_TAILS_MAX
                     ? lattice / ceil(lattice / PLD_GRID_TAILS_MAX)
                     : lattice;
  if (!fixed)
    grid = fmin(grid, PLD_GRID_TAILS_MAX);
  /* A lattice finer than the step is still taken where the composed
   * spread covers it with a modest number of points (randomized response
   * at eps0 = 1e-9: a handful; a discrete Gaussian with sigma = 1e3 over 10
   * runs: 1e5), since it makes the answer exact. */
  if (!fixed && lattice > 0.0 &&
      (grid <= lattice ||
       40.0 * spread_sd / lattice <= 0.25 * (double)pp->max_grid))
    grid = lstep;
  double prev_w = INFINITY, prev_grid = 0.0;
  unsigned coarsen = 0, stalls = 0;
  int last_look = 0;
  int fit_tried = 0;
  /* The builds' tail mass: what a build cuts off above its grid goes to
   * +inf (pessimistic) or is dropped (optimistic), up to tail_mass per run,
   * so it must stay far below the delta asked about (set on the first grid
   * for delta and curve queries, from the Chernoff estimate). */
  pld_params bp = *pp;
  double runs = 0.0;
  for (size_t i = 0; i < p.nother; i++)
    runs += (double)p.other[i]->count;
  runs = fmax(runs, 1.0);
  if (q->kind == Q_EPS)
    bp.tail_mass = tail_for(pp, q->x, runs, 1);
  int tau_set = q->kind == Q_EPS;
  if (q->kind == Q_EPS && pp->tail_mass == 0.0)
    ws->tilt_tail = tilted_tail(pp, p.nother);
  int has_br = plan_has_bracket(&p);
  /* The stop for a bracket's gap asks the upper members' width for half
   * the target: the certified upper end then sits within half the target
   * of where any finer grid would put it (balanced iteration, T <= 2000:
   * within 5e-6 relative of what refining to the floor gave, in a tenth of
   * the time; a tenth of the target cost 10-20 s). */
  pld_params pfine = *pp;
  pfine.accuracy *= 0.5;
  pfine.abs_accuracy *= 0.5;
  for (unsigned it = 0; it < 12; it++) {
    struct built bl;
    pld_progress((double)it / 12.0, "composing the PLD grid (refinements)");
    st = build_plan(&p, &bp, grid, &bl);
    double tilts[MAX_TILTS][2];
    size_t nt = 0;
    if (!st) {
      double est = INFINITY;
      nt = choose_tilts(&bl, q, best, tilts, &est);
      if (!tau_set) {
        tau_set = 1;
        double tau = tail_for(pp, est, runs, 0);
        if (tau < pld_params_tail(&bp)) {
          bp.tail_mass = tau;
          built_free(&bl);
          st = build_plan(&p, &bp, grid, &bl);
        }
      }
    }
    pld_bound b = best;
    double cmax = 0.0;
    for (size_t t = 0; t < nt && !st; t++) {
      pld_dist *d = NULL;
      st = compose_built(&bl, tilts[t], ws, &d);
      if (st == PLD_ERANGE && t > 0) {
        /* a curve's strong tilt whose window exceeds the cap: its points
         * keep the brackets of the other passes */
        st = PLD_SUCCESS;
        continue;
      }
      if (st)
        break;
      pld_bound bt;
      st = eval_query(d, q, &bt, tmp, &cmax);
      if (pld_dist_grid_size(d) > r.grid_size)
        r.grid_size = pld_dist_grid_size(d);
      if (pld_dist_fft_size(d) > r.fft_size)
        r.fft_size = pld_dist_fft_size(d);
      /* What this pass's bracket would be without the tilted booking
       * (round-off, trims, windows: all in tabs): when that is about as
       * wide, the grid step and not the tilt limits it, and a second
       * tilt (below) cannot help.  Only steers the work. */
      int tilt_limits = 1;
      if (!st && q->kind == Q_EPS && nt == 1 && !width_ok(q, pp, bt) &&
          isfinite(bt.upper)) {
        pld_dist *z = NULL;
        pld_bound bz;
        st = pld_dist_copy(d, &z);
        if (!st) {
          for (int dir = 0; dir < 2; dir++)
            for (int rr = 0; rr < 2; rr++)
              z->p[dir][rr].tabs = 0.0;
          st = pld_dist_epsilon(z, q->x, &bz);
          if (!st && isfinite(bz.upper) &&
              bz.upper - bz.lower >= 0.9 * (bt.upper - bt.lower))
            tilt_limits = 0;
        }
        pld_dist_free(z);
      }
      pld_dist_free(d);
      if (st)
        break;
      /* every pass is a valid bracket: keep the intersection */
      b.upper = fmin(b.upper, bt.upper);
      b.lower = fmax(b.lower, bt.lower);
      if (q->kind == Q_CURVE)
        for (size_t i = 0; i < q->n; i++) {
          curve[i].upper = fmin(curve[i].upper, tmp[i].upper);
          curve[i].lower = fmax(curve[i].lower, tmp[i].lower);
        }
      /* An epsilon query's first tilt is a guess from delta alone; when it
       * missed (a bracket short of its width whose middle asks for a tilt
       * a fifth or more away -- two-atom losses such as Laplace's pull the
       * Chernoff guess to the cap, and the lower end collapsed to 0), one
       * more pass on this grid under the tilt of the bracket's middle. */
      if (q->kind == Q_EPS && nt == 1 && !width_ok(q, pp, b) &&
          isfinite(b.upper) && tilt_limits) {
        double e = 0.5 * (b.lower + b.upper), moved = 0.0;
        for (int dir = 0; dir < 2; dir++) {
          tilts[1][dir] = tilt_for(&bl, dir, 1.0, 1, e);
          moved = fmax(moved, fabs(tilts[1][dir] - tilts[0][dir]) /
                                  fmax(tilts[0][dir], 1e-300));
        }
        if (moved > 0.2)
          nt = 2;
      }
    }
    /* A bracketed event (pld_mech_bracket) whose members differ: where
     * this pass misses the target, how much of the width is the grid's
     * (member_bracket).  A grid that does not fit for it only leaves
     * the question open. */
    pld_bound bu = {0.0, INFINITY};
    int have_bu = 0;
    if (!st && has_br && !fixed) {
      pld_bound bc = b;
      double cm = cmax;
      if (q->kind == Q_CURVE)
        curve_worst(q, curve, &bc, &cm);
      if (!width_ok(q, pp, bc)) {
        st = member_bracket(&p, &bl, &bp, grid, (const double(*)[2])tilts,
                            nt, ws, q, 1, &bu, tmp);
        have_bu = !st;
        if (have_bu)
          bu_lo = fmax(bu_lo, bu.lower);
        if (st == PLD_ERANGE)
          st = PLD_SUCCESS;
      }
    }
    built_free(&bl);
    if (st == PLD_ERANGE && r.refinements > 0) {
      /* The step asked for does not fit: try once the finest that should
       * (the composed support scales like 1/step; 80% of the cap for the
       * windows' slack), if it is still noticeably finer than the last. */
      double fit = prev_grid * (double)r.grid_size /
                   (0.8 * (double)pp->max_grid);
      st = PLD_SUCCESS;
      if (!fit_tried && fit < 0.8 * prev_grid && fit > grid) {
        fit_tried = 1;
        grid = fit;
        it--;
        continue;
      }
      break;
    }
    if (st == PLD_ERANGE && !fixed && coarsen < 8 && grid < PLD_GRID_MAX) {
      /* not even the first grid fits the memory cap (a tiny sampling rate
       * needs a fine step over a long tail): coarsen; the bracket stays
       * certified, only wider, and met_accuracy says so */
      grid = fmin(grid * 4.0, PLD_GRID_MAX);
      coarsen++;
      it--;
      continue;
    }
    if (st == PLD_ERANGE && r.refinements == 0)
      GRID_FAILED_RESCUE(); /* no grid fits: the grid-free bounds answer */
    if (st)
      goto done;
    r.refinements = it + 1;
    r.discretization = grid;
    if (q->kind == Q_CURVE)
      curve_worst(q, curve, &b, &cmax);
    best = b;
    if (fixed) {
      r.met_accuracy = width_ok(q, pp, best);
      break;
    }
    if (width_ok(q, pp, best)) {
      r.met_accuracy = 1;
      break;
    }
    /* The grid has resolved the bracketed events' upper members to the
     * target: a finer one moves the certified upper end by at most the
     * target, and cannot close the members' gap (T = 10, k = 4 balanced
     * iteration refined to 585k points for nothing, 1.9 s).  Stop, and
     * say why the width was not met. */
    /* the lower ends of the upper members alone and of the bracket: their
     * distance is the members' gap as this grid sees it */
    gap_wide = have_bu &&
               bu.lower - best.lower > width_target(q, pp, best.upper);
    if (have_bu && width_ok(q, &pfine, bu))
      break;
    /* what the grid can still narrow: the upper members' width where a
     * bracket's gap is part of the whole, scaled by the half its stop asks
     * for (a constant factor leaves the measured order below alone) */
    double w =
        have_bu ? 2.0 * (bu.upper - bu.lower) : best.upper - best.lower;
    /* On the loss lattice itself every PLD is exact: a finer grid cannot
     * narrow what is left (booked round-off only). */
    if (lattice > 0.0 && grid >= lstep * (1.0 - 1e-9))
      break;
    /* Both roundings err to second order in the grid step (connect-the-dots
     * and its dual) for smooth losses, but only to first order where atoms
     * fall between grid points (Laplace's, a selection's): measure the
     * order p from the last two grids (w ~ grid^p) instead of assuming it,
     * and stop when the width falls slower than sqrt(grid) (then the floor
     * is not the grid any more). */
    double order = 2.0;
    int stalled = 0;
    if (it >= 1) {
      /* A finer grid that left the width several times wider: what limits
       * it is the booked round-off of the longer arrays, not the step, and
       * a still finer grid only widens it (balanced iteration, T = 2, at
       * eps = 12, delta ~ 1e-35: 4e-38 -> 2e-36 at 0.7 times the step; the
       * stall's next step, 16 times finer, took 5 s for 1e-34).  The
       * intersection keeps the narrower bracket. */
      if (isfinite(prev_w) && w > 4.0 * prev_w)
        break;
      order = isfinite(prev_w) && w > 0.0 && w < prev_w
                  ? log(w / prev_w) / log(grid / prev_grid)
                  : 0.0;
      /* One weak step is not yet a floor: where an atom falls between grid
       * points the width saw-tooths (Laplace: 4.8e-3 -> 2.7e-3 left it at
       * 0.5%, 1e-3 meets 0.2%); a second one is. */
      if (!(order >= 0.5)) {
        /* A second stall ends the refinement, except once: when a grid 16
         * times finer still fits max_grid, one last look there.  A bracket whose lower end aliases with an event's own
         * atom lattice widens as the step nears the atoms' spacing and
         * narrows again below it (poisson-splitting, q = 0.01, 1000
         * steps: 0.40% wide at 1e-4, 0.89% at 1.1e-5, where it stopped,
         * 0.05% at 5e-7). */
        if (++stalls >= 2) {
          /* not where a bracket's own gap is wider than the target: the
           * answer cannot meet it on any grid, and the look only refines
           * the upper members, which stalled.  Seen on this grid
           * (gap_wide: balanced iteration, T = 10, k = 4, delta at eps =
           * 8: 367k -> 5.6M points, 1.4 -> 10 s, for the lower end's fifth
           * digit), or hidden behind the upper members' own rounding and
           * then found by composing the lower members alone
           * (members_apart: T = 2000, k = 655, sigma = 8.8: 157k -> 2.5M,
           * 1.3 -> 6.5 s for the same bracket; calibrating it 21 -> 54
           * s).  A bracket of two roundings of one pair (poisson-
           * splitting) keeps its look: its members are close. */
          if (last_look || gap_wide ||
              !(16.0 * (double)r.grid_size <= (double)pp->max_grid) ||
              members_apart(&p, &bp, grid, (const double(*)[2])tilts, nt,
                            ws, q, have_bu, bu, bu_lo, pp, tmp))
            break;
          last_look = 1;
          stalls = 1;
          grid /= 16.0;
          continue;
        }
        stalled = 1;
      } else {
        stalls = 0;
      }
      order = fmin(fmax(order, 0.5), 2.0);
    }
    prev_w = w;
    prev_grid = grid;
    /* aim a little below the target, by at most 16x per step */
    double target = width_target(q, pp, best.upper);
    double f = (isfinite(w) && w > 0.0) ? pow(0.8 * target / w, 1.0 / order)
                                        : 0.125;
    if (!(f >= 1.0 / 16.0))
      f = 1.0 / 16.0;
    /* At most 0.7 per step, except after a near miss: a step of 0.9
     * target/w meets the target even if the width falls only to first
     * order (w f <= 0.9 target), so it is allowed where it exceeds 0.7
     * (w <= 1.29 target).  The 1000-step heterogeneous schedule missed
     * 0.2% at 0.22% and went from 7.3e-4 to 5.1e-4 (0.067%, 1.43 times
     * the points); now 6.0e-4.  Only the cost depends on the step. */
    double fcap = (isfinite(w) && w > 0.0) ? fmax(0.7, 0.9 * target / w) : 0.7;
    if (f > fcap)
      f = fcap;
    /* After a stall, 0.25 jumps past the saw-tooth; after a near miss
     * (w <= 1.29 target, where 0.9 target/w is what the loop would take)
     * half the step is enough: two LC merging points that stalled at
     * 1.009% against 1% went to grids of 370k points, and the merge
     * planner on the MNIST config spent a quarter of its time there. */
    if (stalled)
      f = fmin(f, (isfinite(w) && w <= 1.29 * target) ? 0.5 : 0.25);
    grid *= f;
    if (lattice > 0.0 && grid <= lattice)
      grid = lstep;
  }
#undef GRID_FAILED_RESCUE
finish:
  if (!fb_done && !(r.refinements > 0 && r.met_accuracy)) {
    fb_done = 1;
    if ((st = fallback_query(&p, q, &fb1, fbc)))
      goto done;
  }
  if (q->kind == Q_CURVE) {
    /* every point combined; fbc[i] then holds the point's kinds */
    for (size_t i = 0; i < q->n; i++) {
      pld_fb_answer f = fbc[i];
      combine(&curve[i], &fbc[i].upper_kind, &fbc[i].lower_kind, &f, 1);
      if (inv_have) { /* the inversion's brackets, intersected */
        if (invc[i].upper < curve[i].upper) {
          curve[i].upper = invc[i].upper;
          fbc[i].upper_kind = PLD_BOUND_INVERSION;
        }
        if (invc[i].lower > curve[i].lower) {
          curve[i].lower = invc[i].lower;
          fbc[i].lower_kind = PLD_BOUND_INVERSION;
        }
        settle(&curve[i], &fbc[i].upper_kind, &fbc[i].lower_kind);
      }
    }
    curve_summary(q, pp, curve, fbc, &r, &best);
    if (!r.met_accuracy) {
      if ((st = moments_lower(&p, q, fbc, &best, curve)))
        goto done;
      curve_summary(q, pp, curve, fbc, &r, &best);
    }
  } else {
    combine(&best, &r.bound_kind, &r.lower_kind, &fb1, q->kind == Q_DELTA);
    if (inv_have) { /* the inversion's bracket, intersected */
      if (inv.upper < best.upper) {
        best.upper = inv.upper;
        r.bound_kind = PLD_BOUND_INVERSION;
      }
      if (inv.lower > best.lower) {
        best.lower = inv.lower;
        r.lower_kind = PLD_BOUND_INVERSION;
      }
      settle(&best, &r.bound_kind, &r.lower_kind);
    }
    r.met_accuracy = width_ok(q, pp, best);
    pld_fb_answer k = {best, r.bound_kind, r.lower_kind};
    if (!r.met_accuracy) {
      if ((st = moments_lower(&p, q, &k, &best, curve)))
        goto done;
      r.bound_kind = k.upper_kind;
      r.lower_kind = k.lower_kind;
      r.met_accuracy = width_ok(q, pp, best);
    }
  }
  r.bound = best;
  settle(&r.bound, &r.bound_kind, &r.lower_kind);
  r.width_limit = !r.met_accuracy && gap_wide ? PLD_WIDTH_MECHANISM
                                              : PLD_WIDTH_GRID;
  *res = r;
done:
  pld_free(invc);
  pld_free(fbc);
  pld_free(tmp);
  pld_workspace_free(ws);
  plan_free(&p);
  return st;
}

/* epsilon(delta), the grid-free inversion allowed or not (grid_only) */
static int epsilon_query(const pld_accountant *acc, double delta,
                         int grid_only, pld_result *out)
{
  pld_detail_clear();
  if (!acc || !out)
    return pld_fail(PLD_EINVAL, "%s is NULL", !acc ? "acc" : "out");
  if (isnan(delta) || !(delta > 0.0 && delta < 1.0))
    return pld_fail(PLD_EINVAL, "delta = %g must be in (0, 1)", delta);
  struct query q = {Q_EPS, delta, 0, NULL, 0.0, NULL, grid_only};
  int st = run_query(acc, &q, out, NULL);
  if (!st)
    pld_detail_clear(); /* a fallback recovered from an inner failure */
  return st;
}

int pld_accountant_epsilon(const pld_accountant *acc, double delta,
                           pld_result *out)
{
  return epsilon_query(acc, delta, 0, out);
}

int pld_accountant_epsilon_grid(const pld_accountant *acc, double delta,
                                pld_result *out)
{
  return epsilon_query(acc, delta, 1, out);
}

int pld_accountant_delta(const pld_accountant *acc, double eps,
                         pld_result *out)
{
  pld_detail_clear();
  if (!acc || !out)
    return pld_fail(PLD_EINVAL, "%s is NULL", !acc ? "acc" : "out");
  if (isnan(eps) || eps < 0.0)
    return pld_fail(PLD_EINVAL, "epsilon = %g must be >= 0", eps);
  struct query q = {Q_DELTA, eps, 0, NULL, 0.0, NULL, 0};
  int st = run_query(acc, &q, out, NULL);
  if (!st)
    pld_detail_clear(); /* a fallback recovered from an inner failure */
  return st;
}

/* A curve's grid-free brackets (pld/fallback.c), point by point, before
 * the grid: with a delta floor, a point they put at or below the floor
 * meets its target, so that the grid refines for the others only and
 * spends no tilt on it.  Trivial brackets where there are none. */
static int curve_fallback(const pld_accountant *acc, const struct query *q,
                          pld_bound **out)
{
  struct plan p;
  int st = plan_make(acc, &p, 0);
  pld_fb_answer *fc = pld_malloc(q->n * sizeof *fc);
  pld_bound *fb = pld_malloc(q->n * sizeof *fb);
  if (!st && (!fc || !fb))
    st = PLD_ENOMEM;
  for (size_t i = 0; !st && i < q->n; i++)
    fc[i] = (pld_fb_answer){{0.0, 1.0}, PLD_BOUND_NONE, PLD_BOUND_NONE};
  if (!st && p.nother > 0)
    st = fallback_query(&p, q, NULL, fc);
  for (size_t i = 0; !st && i < q->n; i++)
    fb[i] = fc[i].bound;
  plan_free(&p);
  pld_free(fc);
  if (st) {
    pld_free(fb);
    return st;
  }
  *out = fb;
  return PLD_SUCCESS;
}

int pld_accountant_curve(const pld_accountant *acc, size_t n, const double *eps,
                         pld_bound *out, pld_result *info)
{
  return pld_accountant_curve_given(acc, n, eps, NULL, out, info);
}

int pld_accountant_curve_given(const pld_accountant *acc, size_t n,
                               const double *eps, const pld_bound *given,
                               pld_bound *out, pld_result *info)
{
  pld_detail_clear();
  if (!acc || !eps || !out)
    return pld_fail(PLD_EINVAL, "%s is NULL", !acc ? "acc" : !eps ? "eps" : "out");
  if (n == 0)
    return pld_fail(PLD_EINVAL, "n = 0 epsilons");
  for (size_t i = 0; i < n; i++)
    if (isnan(eps[i]) || eps[i] < 0.0)
      return pld_fail(PLD_EINVAL, "eps[%zu] = %g must be >= 0", i, eps[i]);
  struct query q = {Q_CURVE, 0.0, n, eps, acc->params.delta_floor, NULL,
                    0};
  pld_result r;
  pld_bound *tmp = pld_malloc(n * sizeof *tmp);
  if (!tmp)
    return PLD_ENOMEM;
  pld_bound *fb = NULL;
  int st = PLD_SUCCESS;
  if (acc->params.delta_floor > PLD_DELTA_FLOOR && acc->n > 0) {
    st = curve_fallback(acc, &q, &fb);
    for (size_t i = 0; !st && given && i < n; i++) {
      fb[i].upper = fmin(fb[i].upper, given[i].upper);
      fb[i].lower = fmax(fb[i].lower, given[i].lower);
    }
  }
  q.fb = fb;
  if (!st)
    st = run_query(acc, &q, &r, tmp);
  /* both certified: the intersection (the points the floor let stop
   * early keep the grid-free ends that took them below it) */
  for (size_t i = 0; !st && fb && i < n; i++)
    tmp[i] = curve_point(&q, tmp, i);
  pld_free(fb);
  if (!st) {
    pld_detail_clear(); /* a fallback recovered from an inner failure */
    memcpy(out, tmp, n * sizeof *tmp);
    if (info)
      *info = r;
  }
  pld_free(tmp);
  return st;
}

int pld_accountant_delta_gridfree(const pld_accountant *acc, double eps,
                                  pld_result *out)
{
  pld_detail_clear();
  if (!acc || !out)
    return pld_fail(PLD_EINVAL, "%s is NULL", !acc ? "acc" : "out");
  if (isnan(eps) || eps < 0.0)
    return pld_fail(PLD_EINVAL, "epsilon = %g must be >= 0", eps);
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
  if (p.nother == 0) { /* Gaussians only: the closed form (run_query) */
    double mu = sqrt(p.mu2), junk;
    (void)pld_gaussian_delta_bounds(mu * (1.0 - p.mu_rel), eps, &r.bound.lower,
                                    &junk);
    (void)pld_gaussian_delta_bounds(mu * (1.0 + p.mu_rel), eps, &junk,
                                    &r.bound.upper);
    r.closed_form = 1;
    r.bound_kind = r.lower_kind = PLD_BOUND_CLOSED_FORM;
  } else {
    struct query q = {Q_DELTA, eps, 0, NULL, 0.0, NULL, 0};
    pld_fb_answer fb = {{0.0, 1.0}, PLD_BOUND_NONE, PLD_BOUND_NONE};
    if (!(st = fallback_query(&p, &q, &fb, NULL))) {
      r.bound = (pld_bound){0.0, 1.0};
      combine(&r.bound, &r.bound_kind, &r.lower_kind, &fb, 1);
    }
  }
  plan_free(&p);
  if (st)
    return st;
  r.met_accuracy = pld_bound_meets(&acc->params, r.bound, 1);
  r.width_limit = PLD_WIDTH_GRID;
  *out = r;
  return PLD_SUCCESS;
}
