/* pldkit: mechanism objects (lifetime, equality, the curve accessor). */
#include <math.h>
#include <string.h>

#include "alloc.h"
#include "internal.h"
#include "detail.h"

struct pld_mech *pld_mech_new(int kind)
{
  struct pld_mech *m = pld_calloc(1, sizeof *m);
  if (!m)
    return NULL;
  m->kind = kind;
  m->label = kind;
  m->curve.ctx = m;
  m->curve.rel_err = PLD_BUILTIN_REL_ERR;
  return m;
}

void pld_mech_free(pld_mech *m)
{
  if (!m)
    return;
  pld_free(m->p);
  pld_free(m->q);
  for (int d = 0; d < 2; d++) {
    pld_free(m->loss[d]);
    pld_free(m->sp[d]);
    pld_free(m->sq[d]);
  }
  pld_mech_free(m->base);
  pld_free(m->arr);
  for (size_t i = 0; i < m->nmembers; i++)
    pld_mech_free(m->members[i]);
  pld_free(m->members);
  pld_free(m);
}

const pld_curve *pld_mech_curve(const pld_mech *m) { return m ? &m->curve : NULL; }

int pld_mech_copy(const pld_mech *m, pld_mech **out)
{
  pld_detail_clear();
  if (!m || !out)
    return pld_fail_if_silent(PLD_EINVAL, "pld_mech_copy: an argument is out of its domain (rejected by: !m || !out)");
  struct pld_mech *c = pld_mech_new(m->kind);
  if (!c)
    return PLD_ENOMEM;
  c->label = m->label;
  memcpy(c->par, m->par, sizeof c->par);
  c->curve = m->curve;
  if (m->kind != PLD_MECH_USER)
    c->curve.ctx = c;
  int st = PLD_SUCCESS;
  if (m->kind == PLD_MECH_FINITE)
    st = pld_mech_finite_init(c, m->n, m->p, m->q,
                              m->narr == m->n ? m->arr : NULL);
  if (!st && m->base)
    st = pld_mech_copy(m->base, &c->base);
  if (!st && m->narr && !c->arr) {
    c->arr = pld_malloc(m->narr * sizeof(double));
    if (!c->arr)
      st = PLD_ENOMEM;
    else {
      memcpy(c->arr, m->arr, m->narr * sizeof(double));
      c->narr = m->narr;
    }
  }
  if (!st && m->nmembers) {
    c->members = pld_calloc(m->nmembers, sizeof *c->members);
    if (!c->members)
      st = PLD_ENOMEM;
    for (size_t i = 0; !st && i < m->nmembers; i++) {
      st = pld_mech_copy(m->members[i], &c->members[i]);
      if (!st)
        c->nmembers = i + 1;
    }
  }
  if (st) {
    pld_mech_free(c);
    return st;
  }
  *out = c;
  return PLD_SUCCESS;
}

int pld_mech_delta(const pld_mech *m, int dir, double eps, double *delta)
{
  pld_detail_clear();
  if (!m || !delta || (dir != 0 && dir != 1) || isnan(eps) || eps == -INFINITY)
    return pld_fail_if_silent(PLD_EINVAL, "pld_mech_delta: an argument is out of its domain (rejected by: !m || !delta || (dir != 0 && dir != 1) || isnan(eps) || eps == -INFINITY)");
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
    return pld_fail_if_silent(PLD_EINVAL, "pld_mech_gaussian_mu: an argument is out of its domain (rejected by: !m || !mu)");
  if (m->kind != PLD_MECH_GAUSSIAN)
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
  if (a->kind != b->kind || a->label != b->label)
    return 0;
  if (memcmp(a->par, b->par, sizeof a->par))
    return 0;
  if (a->kind == PLD_MECH_USER)
    return a->curve.delta == b->curve.delta && a->curve.ctx == b->curve.ctx &&
           a->curve.symmetric == b->curve.symmetric &&
           a->curve.rel_err == b->curve.rel_err &&
           a->curve.loss_scale == b->curve.loss_scale &&
           a->curve.tails == b->curve.tails &&
           a->curve.loss_lattice == b->curve.loss_lattice;
  if (a->kind == PLD_MECH_FINITE)
    return a->n == b->n && !memcmp(a->p, b->p, a->n * sizeof(double)) &&
           !memcmp(a->q, b->q, a->n * sizeof(double));
  if (a->narr != b->narr || (a->narr && memcmp(a->arr, b->arr,
                                               a->narr * sizeof(double))))
    return 0;
  if (a->nmembers != b->nmembers)
    return 0;
  for (size_t i = 0; i < a->nmembers; i++)
    if (!pld_mech_equal(a->members[i], b->members[i]))
      return 0;
  if (a->kind == PLD_MECH_POISSON || a->kind == PLD_MECH_WOR)
    return pld_mech_equal(a->base, b->base);
  return 1;
}

int pld_mech_from_curve(const pld_curve *curve, pld_mech **out)
{
  pld_detail_clear();
  if (!curve || !out || !curve->delta || !(curve->rel_err >= 0.0) ||
      !(curve->loss_lattice >= 0.0) || !isfinite(curve->loss_lattice) ||
      !(curve->rel_err < 1e-3) || !isfinite(curve->loss_scale) ||
      !(curve->loss_scale > 0.0))
    return pld_fail_if_silent(PLD_EINVAL, "pld_mech_from_curve: an argument is out of its domain (rejected by: !curve || !out || !curve->delta || !(curve->rel_err >= 0.0) || !(curve->loss_lattice >= 0.0) || !isfinite(curve->loss_lattice) || !(curve->rel_err < 1e-3) || !isfinite(curve->loss_scale) || !(curve->loss_scale > 0.0))");
  struct pld_mech *m = pld_mech_new(PLD_MECH_USER);
  if (!m)
    return PLD_ENOMEM;
  m->curve = *curve;
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
  const pld_curve *c = &m->members[0]->curve;
  return c->delta(c->ctx, dir, n, eps, delta);
}

static int bracket_tails(void *ctx, int dir, size_t n, const double *eps,
                         double *p_gt, double *eq_gt)
{
  const struct pld_mech *m = ctx;
  const pld_curve *c = &m->members[0]->curve;
  return c->tails(c->ctx, dir, n, eps, p_gt, eq_gt);
}

int pld_mech_bracket(const pld_mech *upper, const pld_mech *lower,
                     pld_mech **out)
{
  if (!upper || !lower || !out)
    return PLD_EINVAL;
  /* a bracket of brackets is the outer ends' bracket: upper's upper
   * dominates upper, which dominates the truth (domination is transitive),
   * and likewise below */
  upper = pld_mech_upper(upper);
  lower = pld_mech_lower(lower);
  struct pld_mech *m = pld_mech_new(PLD_MECH_BRACKET);
  if (!m)
    return PLD_ENOMEM;
  m->members = pld_calloc(2, sizeof *m->members);
  int st = m->members ? pld_mech_copy(upper, &m->members[0]) : PLD_ENOMEM;
  if (!st) {
    m->nmembers = 1;
    st = pld_mech_copy(lower, &m->members[1]);
  }
  if (st) {
    pld_mech_free(m);
    return st;
  }
  m->nmembers = 2;
  const pld_curve *u = &upper->curve;
  m->curve.delta = bracket_curve;
  m->curve.tails = u->tails ? bracket_tails : NULL;
  m->curve.rel_err = fmax(u->rel_err, lower->curve.rel_err);
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
  if (m->kind != PLD_MECH_BRACKET)
    return pld_dist_from_curve(&m->curve, grid, params, out);
  /* the pessimistic members from the upper pair (they dominate it, which
   * dominates the truth), the optimistic ones from the lower pair (they are
   * dominated by it, which the truth dominates) */
  /* the bracket's rel_err (at least its members') covers what a
   * constructor books on top of them (e.g. the round-off of making them) */
  pld_curve cu = m->members[0]->curve, cl = m->members[1]->curve;
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
