/* pldkit: mechanism objects: the generic calls (lifetime, copies,
 * equality, pure eps, the curve accessor) dispatch through the kind's type
 * object (pld/internal.h, docs/design.md §0.1); the shared state layouts
 * (children, arrays); the user-curve and bracket kinds. */
#include <math.h>
#include <string.h>

#include "alloc.h"
#include "internal.h"
#include "detail.h"

struct pld_mech *pld_mech_new(const struct pld_mech_type *type)
{
  struct pld_mech *m = pld_calloc(1, sizeof *m);
  if (!m)
    return NULL;
  m->type = type;
  m->curve.ctx = m;
  m->curve.rel_err = PLD_BUILTIN_REL_ERR;
  return m;
}

void pld_mech_free(pld_mech *m)
{
  if (!m)
    return;
  if (m->type->free)
    m->type->free(m);
  pld_free(m);
}

const pld_curve *pld_mech_curve(const pld_mech *m) { return m ? &m->curve : NULL; }

int pld_mech_copy(const pld_mech *m, pld_mech **out)
{
  pld_detail_clear();
  if (!m || !out)
    return pld_fail(PLD_EINVAL, "m and out must not be NULL");
  struct pld_mech *c = pld_mech_new(m->type);
  if (!c)
    return PLD_ENOMEM;
  c->label = m->label;
  memcpy(c->par, m->par, sizeof c->par);
  c->curve = m->curve;
  c->curve.ctx = c; /* the user kind's copy entry puts its own back */
  int st = m->type->copy ? m->type->copy(m, c) : PLD_SUCCESS;
  if (st) {
    pld_mech_free(c);
    return st;
  }
  *out = c;
  return PLD_SUCCESS;
}

double pld_mech_pure_eps(const struct pld_mech *m)
{
  return m->type->pure_eps ? m->type->pure_eps(m) : INFINITY;
}

/* ---- shared state layouts ---- */

int pld_mech_kids_init(struct pld_mech *m, size_t n, int weighted)
{
  struct pld_mech_kids *k = pld_calloc(1, sizeof *k);
  if (!k)
    return PLD_ENOMEM;
  m->state = k;
  k->m = pld_calloc(n, sizeof *k->m);
  if (!k->m)
    return PLD_ENOMEM;
  k->n = n;
  if (weighted && !(k->w = pld_malloc(n * sizeof(double))))
    return PLD_ENOMEM;
  return PLD_SUCCESS;
}

int pld_mech_kids_copy(const struct pld_mech *src, struct pld_mech *dst)
{
  const struct pld_mech_kids *s = pld_mech_kids(src);
  int st = pld_mech_kids_init(dst, s->n, s->w != NULL);
  if (st)
    return st;
  struct pld_mech_kids *d = dst->state;
  if (s->w)
    memcpy(d->w, s->w, s->n * sizeof(double));
  for (size_t i = 0; !st && i < s->n; i++)
    st = pld_mech_copy(s->m[i], &d->m[i]);
  return st;
}

int pld_mech_kids_equal(const struct pld_mech *a, const struct pld_mech *b)
{
  const struct pld_mech_kids *x = pld_mech_kids(a), *y = pld_mech_kids(b);
  if (x->n != y->n || !x->w != !y->w ||
      (x->w && memcmp(x->w, y->w, x->n * sizeof(double))))
    return 0;
  for (size_t i = 0; i < x->n; i++)
    if (!pld_mech_equal(x->m[i], y->m[i]))
      return 0;
  return 1;
}

void pld_mech_kids_free(struct pld_mech *m)
{
  struct pld_mech_kids *k = m->state;
  if (!k)
    return;
  for (size_t i = 0; k->m && i < k->n; i++)
    pld_mech_free(k->m[i]);
  pld_free(k->m);
  pld_free(k->w);
  pld_free(k);
  m->state = NULL;
}

double *pld_mech_arr_init(struct pld_mech *m, size_t n)
{
  struct pld_mech_arr *a =
      pld_malloc(sizeof *a + (n ? n : 1) * sizeof(double));
  if (!a)
    return NULL;
  a->n = n;
  m->state = a;
  return a->v;
}

int pld_mech_arr_copy(const struct pld_mech *src, struct pld_mech *dst)
{
  const struct pld_mech_arr *s = src->state;
  double *v = pld_mech_arr_init(dst, s->n);
  if (!v)
    return PLD_ENOMEM;
  memcpy(v, s->v, s->n * sizeof(double));
  return PLD_SUCCESS;
}

int pld_mech_arr_equal(const struct pld_mech *a, const struct pld_mech *b)
{
  const struct pld_mech_arr *x = a->state, *y = b->state;
  return x->n == y->n && !memcmp(x->v, y->v, x->n * sizeof(double));
}

void pld_mech_arr_free(struct pld_mech *m)
{
  pld_free(m->state);
  m->state = NULL;
}

int pld_mech_delta(const pld_mech *m, int dir, double eps, double *delta)
{
  pld_detail_clear();
  if (!m || !delta)
    return pld_fail(PLD_EINVAL, "m and delta must not be NULL");
  if (dir != 0 && dir != 1)
    return pld_fail(PLD_EINVAL,
                    "dir = %d must be PLD_DIR_PQ (0) or PLD_DIR_QP (1)", dir);
  if (isnan(eps) || eps == -INFINITY)
    return pld_fail(PLD_EINVAL, "eps = %g must be a real number or +inf", eps);
  double v;
  int r = m->curve.delta(m->curve.ctx, dir, 1, &eps, &v);
  if (r) /* as the builder: out of memory stays what it is */
    return r == PLD_ENOMEM ? PLD_ENOMEM : PLD_ECALLBACK;
  *delta = v;
  return PLD_SUCCESS;
}

int pld_mech_gaussian_mu(const pld_mech *m, double *mu)
{
  pld_detail_clear();
  if (!m || !mu)
    return pld_fail(PLD_EINVAL, "m and mu must not be NULL");
  if (m->type != &pld_mech_type_gaussian)
    return PLD_EUNSUPPORTED;
  *mu = m->par[0];
  return PLD_SUCCESS;
}

int pld_mech_equal(const pld_mech *a, const pld_mech *b)
{
  pld_detail_clear();
  if (!a || !b)
    return 0;
  if (a == b)
    return 1;
  if (a->type != b->type || a->label != b->label)
    return 0;
  if (memcmp(a->par, b->par, sizeof a->par))
    return 0;
  return a->type->equal ? a->type->equal(a, b) : 1;
}

/* ---- mechanisms from a caller's curve ---- */

/* An owned context (pld_mech_from_curve_owned) is shared by every copy and
 * released with the last one; the count is atomic because accountants copy
 * mechanisms on worker threads (src/parallel.c). */
struct user_keep {
  int refs;
  void *ctx;
  void (*release)(void *ctx);
};

static int user_copy(const struct pld_mech *src, struct pld_mech *dst)
{
  dst->curve.ctx = src->curve.ctx; /* the caller's context, not ours */
  struct user_keep *k = src->state;
  if (k)
    __atomic_add_fetch(&k->refs, 1, __ATOMIC_RELAXED);
  dst->state = k;
  return PLD_SUCCESS;
}

static void user_free(struct pld_mech *m)
{
  struct user_keep *k = m->state;
  if (k && __atomic_sub_fetch(&k->refs, 1, __ATOMIC_ACQ_REL) == 0) {
    k->release(k->ctx);
    pld_free(k);
  }
  m->state = NULL;
}

/* the same callbacks on the same context */
static int user_equal(const struct pld_mech *a, const struct pld_mech *b)
{
  return a->curve.delta == b->curve.delta && a->curve.ctx == b->curve.ctx &&
         a->curve.symmetric == b->curve.symmetric &&
         a->curve.rel_err == b->curve.rel_err &&
         a->curve.loss_scale == b->curve.loss_scale &&
         a->curve.tails == b->curve.tails &&
         a->curve.loss_lattice == b->curve.loss_lattice;
}

const struct pld_mech_type pld_mech_type_user = {
    .name = "user", .copy = user_copy, .equal = user_equal,
    .free = user_free};

int pld_mech_from_curve(const pld_curve *curve, pld_mech **out)
{
  pld_detail_clear();
  if (!curve || !out)
    return pld_fail(PLD_EINVAL, "curve and out must not be NULL");
  if (!curve->delta)
    return pld_fail(PLD_EINVAL, "curve->delta (the hockey-stick function) "
                                "must not be NULL");
  if (!(curve->rel_err >= 0.0) || !(curve->rel_err < 1e-3))
    return pld_fail(PLD_EINVAL, "curve->rel_err = %g must be in [0, 1e-3)",
                    curve->rel_err);
  if (!(curve->loss_lattice >= 0.0) || !isfinite(curve->loss_lattice))
    return pld_fail(PLD_EINVAL,
                    "curve->loss_lattice = %g must be finite and >= 0",
                    curve->loss_lattice);
  if (!isfinite(curve->loss_scale) || !(curve->loss_scale > 0.0))
    return pld_fail(PLD_EINVAL,
                    "curve->loss_scale = %g must be finite and > 0",
                    curve->loss_scale);
  struct pld_mech *m = pld_mech_new(&pld_mech_type_user);
  if (!m)
    return PLD_ENOMEM;
  m->curve = *curve;
  *out = m;
  return PLD_SUCCESS;
}

int pld_mech_from_curve_owned(const pld_curve *curve,
                              void (*release)(void *ctx), pld_mech **out)
{
  pld_detail_clear();
  if (!release)
    return pld_fail(PLD_EINVAL, "release must not be NULL");
  struct user_keep *k = pld_malloc(sizeof *k);
  if (!k)
    return PLD_ENOMEM;
  pld_mech *m = NULL;
  int st = pld_mech_from_curve(curve, &m);
  if (st) {
    pld_free(k);
    return st;
  }
  k->refs = 1;
  k->ctx = curve->ctx;
  k->release = release;
  m->state = k;
  *out = m;
  return PLD_SUCCESS;
}

/* ---- bracketed mechanisms (docs/design.md, "Bracketed mechanisms") ----
 * The curve seen by single-curve consumers is the upper member's: an upper
 * bound of the true one, so every upper end computed from it is certified.
 * Lower ends come from the lower member only (pld_dist_from_mech, the
 * accountant's grid-free bounds). */

static int bracket_curve(void *ctx, int dir, size_t n, const double *eps,
                         double *delta)
{
  const struct pld_mech *m = ctx;
  const pld_curve *c = &pld_mech_kids(m)->m[0]->curve;
  return c->delta(c->ctx, dir, n, eps, delta);
}

static int bracket_tails(void *ctx, int dir, size_t n, const double *eps,
                         double *p_gt, double *eq_gt)
{
  const struct pld_mech *m = ctx;
  const pld_curve *c = &pld_mech_kids(m)->m[0]->curve;
  return c->tails(c->ctx, dir, n, eps, p_gt, eq_gt);
}

/* the upper member dominates it */
static double bracket_pure_eps(const struct pld_mech *m)
{
  return pld_mech_pure_eps(pld_mech_kids(m)->m[0]);
}

const struct pld_mech_type pld_mech_type_bracket = {
    .name = "bracket",
    .copy = pld_mech_kids_copy,
    .equal = pld_mech_kids_equal,
    .free = pld_mech_kids_free,
    .pure_eps = bracket_pure_eps};

int pld_mech_bracket(const pld_mech *upper, const pld_mech *lower,
                     pld_mech **out)
{
  if (!upper || !lower || !out)
    return PLD_EINVAL;
  /* a bracket of brackets is the outer ends' bracket: upper's upper
   * dominates upper, which dominates the truth (domination is transitive),
   * and likewise below */
  /* ... and what the inner brackets booked on top of their members (their
   * rel_err, e.g. a law's arithmetic) stays booked */
  double rel = fmax(upper->curve.rel_err, lower->curve.rel_err);
  upper = pld_mech_upper(upper);
  lower = pld_mech_lower(lower);
  struct pld_mech *m = pld_mech_new(&pld_mech_type_bracket);
  if (!m)
    return PLD_ENOMEM;
  int st = pld_mech_kids_init(m, 2, 0);
  struct pld_mech_kids *k = m->state;
  if (!st)
    st = pld_mech_copy(upper, &k->m[0]);
  if (!st)
    st = pld_mech_copy(lower, &k->m[1]);
  if (st) {
    pld_mech_free(m);
    return st;
  }
  const pld_curve *u = &upper->curve;
  m->curve.delta = bracket_curve;
  m->curve.tails = u->tails ? bracket_tails : NULL;
  m->curve.rel_err = fmax(rel, fmax(u->rel_err, lower->curve.rel_err));
  /* symmetric only if both members are: a pld_dist keeps one flag */
  m->curve.symmetric = u->symmetric && lower->curve.symmetric;
  m->curve.loss_scale = u->loss_scale;
  m->curve.loss_lattice =
      u->loss_lattice == lower->curve.loss_lattice ? u->loss_lattice : 0.0;
  *out = m;
  return PLD_SUCCESS;
}

int pld_dist_from_mech(const pld_mech *m, double grid,
                       const pld_params *params, pld_dist **out)
{
  if (!m || !out)
    return PLD_EINVAL;
  if (!pld_mech_is_bracket(m))
    return pld_dist_from_curve(&m->curve, grid, params, out);
  /* the pessimistic members from the upper pair (they dominate it, which
   * dominates the truth), the optimistic ones from the lower pair (they are
   * dominated by it, which the truth dominates) */
  /* the bracket's rel_err (at least its members') covers what a
   * constructor books on top of them (e.g. the round-off of making them) */
  pld_curve cu = pld_mech_upper(m)->curve, cl = pld_mech_lower(m)->curve;
  cu.rel_err = fmax(cu.rel_err, m->curve.rel_err);
  cl.rel_err = fmax(cl.rel_err, m->curve.rel_err);
  pld_dist *u = NULL, *l = NULL, *d = NULL;
  int st = pld_dist_from_curve(&cu, grid, params, &u);
  if (!st)
    st = pld_dist_from_curve(&cl, grid, params, &l);
  if (!st)
    st = pld_dist_new(grid, &d);
  for (int dir = 0; dir < 2 && !st; dir++) {
    pld_pmf_clear(&d->p[dir][PLD_PESSIMISTIC]);
    pld_pmf_clear(&d->p[dir][PLD_OPTIMISTIC]);
    st = pld_pmf_copy(&u->p[u->symmetric ? 0 : dir][PLD_PESSIMISTIC],
                      &d->p[dir][PLD_PESSIMISTIC]);
    if (!st)
      st = pld_pmf_copy(&l->p[l->symmetric ? 0 : dir][PLD_OPTIMISTIC],
                        &d->p[dir][PLD_OPTIMISTIC]);
  }
  if (!st) {
    d->symmetric = u->symmetric && l->symmetric;
    d->fft_size = u->fft_size > l->fft_size ? u->fft_size : l->fft_size;
  }
  pld_dist_free(u);
  pld_dist_free(l);
  if (st) {
    pld_dist_free(d);
    return st;
  }
  *out = d;
  return PLD_SUCCESS;
}
