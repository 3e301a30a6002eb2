/* pldkit catalogue: a tree built into an accountant (its mechanisms with
 * their counts) or into an RDP curve (formulas, else the PLD bridge), each
 * all or nothing. */
#include <pldkit/event.h>

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <pldkit/mech.h>
#include <pldkit/pld.h>
#include <pldkit/bridge.h>
#include <pldkit/rdp.h>
#include <pldkit/splitting.h>
#include <pldkit/bounded.h>
#include <pldkit/mspafl.h>
#include "detail.h"
#include "events_internal.h"
#include "tree.h"

/* A status from the library while building event q: the library's detail
 * with the event named. */
static int lib_fail(int st, const char *what, const char *q)
{
  if (st == PLD_EINVAL)
    return pld_fail(st, "event %s was rejected by the library: %s", q,
                    pld_status_text(st));
  return pld_fail(st, "%s (while %s event %s)", pld_status_text(st), what, q);
}

/* ---- accountants ---- */

struct bsink {
  const pld_params *params;
  pld_accountant *acc;   /* PLD */
  pld_rdp_curve *rdp;    /* RDP */
  int bridge;            /* RDP: the bridge for events without a formula */
  int lower;             /* RDP: lower curves at the top level (query.c) */
  unsigned bridged, lowered, lowered2;
};

static int build_list(struct bsink *s, const pld_event *ev, unsigned depth);

/* A saved PLD (pld:file=FILE): loaded, then added count times.  The file is
 * checked here, before the library reads it, so that the message can say
 * why it cannot be opened and so that no build ever blocks on a FIFO. */
static int add_dist(struct bsink *s, const struct ev_node *nd)
{
  char qp[QUOTE_LEN];
  const char *path = nd->v[0].text, *qev = nd->q;
  struct stat sb;
  ev_quote(qp, sizeof qp, path);
  if (stat(path, &sb) != 0)
    return pld_fail(PLD_EINVAL, "cannot open the PLD file %s of event %s: %s",
                    qp, qev, strerror(errno));
  if (!S_ISREG(sb.st_mode))
    return pld_fail(PLD_EINVAL, "the PLD file %s of event %s is not a "
                    "regular file", qp, qev);
  pld_dist *d = NULL;
  const pld_params *cap = s->params;
  /* max_grid covers loaded files too: refused before they are read */
  int st = cap ? pld_dist_load_capped(path, cap->max_grid, &d)
               : pld_dist_load(path, &d);
  if (st == PLD_ERANGE && cap) {
    /* the loader's detail names the cap that refused it: the grid's
     * (max_grid) or the history's */
    char why[512];
    snprintf(why, sizeof why, "%s", pld_error_detail());
    int grid = strstr(why, "max_grid") != NULL;
    return pld_fail(PLD_EINVAL, "the PLD file %s of event %s was refused "
                    "unread: %s%s", qp, qev,
                    why[0] ? why : "a declared size is over its cap",
                    grid ? " (a larger max_grid loads it)" : "");
  }
  if (st == PLD_ENOMEM)
    return pld_fail(st, "%s (while loading the PLD file %s of event %s)",
                    pld_strerror(st), qp, qev);
  if (st != PLD_SUCCESS)
    return pld_fail(PLD_EINVAL, "the PLD file %s of event %s was refused: %s",
                    qp, qev, pld_status_text(st));
  double g = pld_dist_discretization(d);
  const pld_params *pp = s->params;
  if (pp && pp->discretization > 0 && pp->discretization != g) {
    st = pld_fail(PLD_EINVAL, "the PLD file %s of event %s is on the grid "
                  "%.17g, not the discretization %.17g asked for (leave the "
                  "discretization unset, or give the file's)", qp, qev, g,
                  pp->discretization);
  } else if (s->acc) {
    st = pld_accountant_add_dist(s->acc, d, nd->count);
    if (st == PLD_EINCOMPAT)
      st = pld_fail(PLD_EINVAL, "the PLD file %s of event %s is on the grid "
                    "%.17g, unlike another PLD file of the composition (all "
                    "must share one grid step)", qp, qev, g);
    else if (st != PLD_SUCCESS)
      st = lib_fail(st, "adding", qev);
  } else if (!s->bridge) {
    st = pld_fail(PLD_EUNSUPPORTED, "event %s has no RDP formula (not "
                  "supported without the PLD bridge)", qev);
  } else {
    pld_rdp_curve *one = NULL;
    st = ev_rdp_zero_like(s->rdp, &one);
    if (st == PLD_SUCCESS)
      st = pld_rdp_of_pld(d, one);
    if (st == PLD_SUCCESS)
      st = pld_rdp_curve_compose(s->rdp, one, nd->count);
    pld_rdp_curve_free(one);
    s->bridged++;
    if (st != PLD_SUCCESS)
      st = pld_fail(st, "%s (while computing the RDP of event %s)",
                    pld_status_text(st), qev);
  }
  pld_dist_free(d);
  return st;
}

/* The members of a selection, each composed on its own, then the
 * selection (accountant) or its RDP (model merging paper, Thm 5.1) count
 * times. */
static int add_selection(struct bsink *s, const struct ev_node *nd,
                         unsigned depth)
{
  size_t n = nd->nm;
  pld_accountant **members = calloc(n, sizeof *members);
  pld_rdp_curve **curves = calloc(n, sizeof *curves);
  pld_rdp_curve *sel = NULL;
  int st = PLD_SUCCESS;
  if (members == NULL || curves == NULL) {
    free(members);
    free(curves);
    return PLD_ENOMEM;
  }
  for (size_t i = 0; i < n && st == PLD_SUCCESS; i++) {
    struct bsink m = *s;
    m.acc = NULL;
    m.rdp = NULL;
    st = s->acc ? pld_accountant_alloc(s->params, &members[i])
                : ev_rdp_zero_like(s->rdp, &curves[i]);
    if (st != PLD_SUCCESS) {
      st = pld_fail(st, "%s (while creating member %zu of event %s)",
                    pld_status_text(st), i + 1, nd->q);
      break;
    }
    m.acc = members[i];
    m.rdp = curves[i];
    st = build_list(&m, nd->members[i], depth + 1);
    s->bridged += m.bridged;
  }
  if (st == PLD_SUCCESS) {
    if (s->acc) {
      st = pld_accountant_add_selection(
          s->acc, n, (const pld_accountant *const *)members, nd->v[0].list,
          nd->count);
    } else {
      st = ev_rdp_zero_like(s->rdp, &sel);
      if (st == PLD_SUCCESS)
        st = pld_rdp_random_selection(
            n, (const pld_rdp_curve *const *)curves, nd->v[0].list, sel);
      if (st == PLD_SUCCESS)
        st = pld_rdp_curve_compose(s->rdp, sel, nd->count);
    }
    if (st == PLD_EINVAL || st == PLD_EEMPTY)
      st = pld_fail(PLD_EINVAL, "event %s was rejected by the library: %s",
                    nd->q, pld_status_text(st));
    else if (st != PLD_SUCCESS)
      st = lib_fail(st, "adding", nd->q);
  }
  for (size_t i = 0; i < n; i++) {
    pld_accountant_free(members[i]);
    pld_rdp_curve_free(curves[i]);
  }
  pld_rdp_curve_free(sel);
  free(members);
  free(curves);
  return st;
}

/* The one mechanism of a node (poisson-sampled: its member, subsampled;
 * Zhu, Dong, Wang 2022, Prop. 30, add/remove, both directions). */
static int node_mech(const struct ev_node *nd, pld_mech **out)
{
  const struct ev_node *m = nd->sub ? nd->sub : nd;
  pld_mech *mech = NULL;
  int st = m->e->build(m->v, &mech);
  if (st == PLD_SUCCESS && nd->sub && nd->v[0].real < 1.0) {
    pld_mech *sub = NULL;
    st = pld_mech_poisson(mech, nd->v[0].real, &sub);
    pld_mech_free(mech);
    mech = sub;
  }
  if (st != PLD_SUCCESS)
    return lib_fail(st, "building", nd->q);
  *out = mech;
  return PLD_SUCCESS;
}

static int add_node_pld(struct bsink *s, const struct ev_node *nd,
                        unsigned depth)
{
  const struct event_spec *e = nd->e;
  if (nd->closed) {
    char an[32];
    ev_choice_name(&e->keys[5], nd->v[5].integer, an, sizeof an);
    return pld_fail(PLD_EINVAL, "analysis=%s in event %s is a closed-form "
                    "single-round answer, not a mechanism: it is answered "
                    "by its formula and cannot join an accountant", an,
                    nd->q);
  }
  const char *no_pld = e->no_pld ? e->no_pld(nd->v) : NULL;
  if (no_pld)
    return pld_fail(PLD_EINVAL, "event %s has no privacy loss distribution: "
                    "%s (the RDP backend answers it)", nd->q, no_pld);
  if (e->kind == KIND_SELECTION)
    return add_selection(s, nd, depth);
  if (e->kind == KIND_DIST)
    return add_dist(s, nd);
  if (e->add) {
    int st = e->add(nd->v, s->acc, nd->count);
    return st == PLD_SUCCESS ? st : lib_fail(st, "adding", nd->q);
  }
  pld_mech *mech = NULL;
  int st = node_mech(nd, &mech);
  if (st != PLD_SUCCESS)
    return st;
  st = pld_accountant_add(s->acc, mech, nd->count);
  pld_mech_free(mech);
  return st == PLD_SUCCESS ? st : lib_fail(st, "adding", nd->q);
}

/* ---- RDP ---- */

static int add_node_rdp(struct bsink *s, const struct ev_node *nd,
                        unsigned depth)
{
  const struct event_spec *e = nd->e;
  if (nd->closed) {
    char an[32];
    ev_choice_name(&e->keys[5], nd->v[5].integer, an, sizeof an);
    return pld_fail(PLD_EINVAL, "analysis=%s in event %s is a closed-form "
                    "single-round answer with no RDP curve (analysis=wcs and "
                    "cs have one)", an, nd->q);
  }
  if (e->kind == KIND_SELECTION)
    return add_selection(s, nd, depth);
  if (e->kind == KIND_DIST)
    return add_dist(s, nd);
  /* The RDP formula, if any: q = 1 is the member itself; a Gaussian member
   * is exactly poisson-gaussian (same curve, Mironov, Talwar, Zhang 2019);
   * other subsampled members go through the bridge. */
  const struct ev_node *m = nd->sub ? nd->sub : nd;
  rdp_fn rdp = m->e->rdp;
  const struct value *rv = m->v;
  struct value pg[3];
  if (nd->sub && nd->v[0].real < 1.0) {
    rdp = NULL;
    if (m->e->build == ev_build_gaussian) {
      memset(pg, 0, sizeof pg);
      pg[0].real = nd->v[0].real;
      pg[1] = m->v[0];
      pg[2] = m->v[1];
      rdp = ev_rdp_poisson_gaussian;
      rv = pg;
    }
  }
  int st;
  /* the lower curve only at the top level, where curves add (count-fold
   * and across events, both monotone) */
  if (rdp && rdp == e->rdp && e->rdp_lower && s->lower && depth == 0) {
    if (s->lower >= 2 && e->rdp_lower2) {
      st = e->rdp_lower2(rv, s->rdp, nd->count);
      s->lowered2++;
    } else {
      st = e->rdp_lower(rv, s->rdp, nd->count);
    }
    s->lowered++;
  } else if (rdp) {
    st = rdp(rv, s->rdp, nd->count);
  } else if (!s->bridge || !m->e->build) {
    return pld_fail(PLD_EUNSUPPORTED, "event %s has no RDP formula (not "
                    "supported without the PLD bridge)", nd->q);
  } else {
    pld_mech *mech = NULL;
    st = node_mech(nd, &mech);
    if (st != PLD_SUCCESS)
      return st;
    st = ev_rdp_bridge(mech, s->params, nd->count, s->rdp);
    pld_mech_free(mech);
    s->bridged++;
  }
  if (st == PLD_EINVAL)
    return pld_fail(st, "event %s was rejected by the library's RDP "
                    "backend: %s", nd->q, pld_status_text(st));
  if (st != PLD_SUCCESS)
    return pld_fail(st, "%s (while computing the RDP of event %s%s)",
                    pld_status_text(st), nd->q,
                    st == PLD_ERANGE ? "; fewer or smaller orders, or a "
                                       "coarser discretization, may help"
                                     : "");
  return PLD_SUCCESS;
}

static int build_list(struct bsink *s, const pld_event *ev, unsigned depth)
{
  for (size_t i = 0; i < ev->n; i++) {
    int st = s->acc ? add_node_pld(s, &ev->node[i], depth)
                    : add_node_rdp(s, &ev->node[i], depth);
    if (st != PLD_SUCCESS)
      return st;
  }
  return PLD_SUCCESS;
}

/* ---- entry points ---- */

int pld_event_add_to(const pld_event *ev, pld_accountant *acc)
{
  pld_detail_clear();
  if (ev == NULL || acc == NULL)
    return pld_fail(PLD_EINVAL, "ev and acc must not be NULL");
  if (ev_tree_hole(ev))
    return ev_tree_refuse_hole(ev);
  /* all or nothing: the events go into a scratch accountant, merged into
   * acc only when every one of them was built */
  pld_params prm;
  pld_accountant *scratch = NULL;
  int st = pld_accountant_get_params(acc, &prm);
  if (st == PLD_SUCCESS)
    st = pld_accountant_alloc(&prm, &scratch);
  if (st != PLD_SUCCESS)
    return st;
  struct bsink s;
  memset(&s, 0, sizeof s);
  s.params = &prm;
  s.acc = scratch;
  st = build_list(&s, ev, 0);
  if (st == PLD_SUCCESS) {
    st = pld_accountant_merge(acc, scratch);
    if (st == PLD_EINCOMPAT)
      st = pld_fail(PLD_EINVAL, "a PLD file of the event is on a grid step "
                    "unlike another PLD file of the composition (all must "
                    "share one grid step)");
  }
  pld_accountant_free(scratch);
  return st;
}

int pld_event_to_accountant(const pld_event *ev, const pld_params *params,
                            pld_accountant **out)
{
  pld_detail_clear();
  if (ev == NULL || out == NULL)
    return pld_fail(PLD_EINVAL, "ev and out must not be NULL");
  if (ev_tree_hole(ev))
    return ev_tree_refuse_hole(ev);
  pld_accountant *acc = NULL;
  int st = pld_accountant_alloc(params, &acc);
  if (st != PLD_SUCCESS)
    return st;
  pld_params prm;
  if ((st = pld_accountant_get_params(acc, &prm)) != PLD_SUCCESS) {
    pld_accountant_free(acc);
    return st;
  }
  struct bsink s;
  memset(&s, 0, sizeof s);
  s.params = &prm;
  s.acc = acc;
  st = build_list(&s, ev, 0);
  if (st != PLD_SUCCESS) {
    pld_accountant_free(acc);
    return st;
  }
  *out = acc;
  return PLD_SUCCESS;
}

int ev_tree_rdp(const pld_event *ev, size_t n, const double *orders,
                int bridge, const pld_params *params, int lower,
                pld_rdp_curve **out, unsigned *bridged, unsigned *lowered,
                unsigned *lowered2)
{
  if (ev_tree_hole(ev))
    return ev_tree_refuse_hole(ev);
  pld_params def;
  if (params == NULL) {
    pld_params_default(&def);
    params = &def;
  }
  pld_rdp_curve *cv = NULL;
  int st = orders ? pld_rdp_curve_alloc(n, orders, &cv)
                  : pld_rdp_curve_alloc_default(&cv);
  if (st != PLD_SUCCESS)
    return pld_fail_if_silent(st, "%s (while creating the RDP curve on %zu "
                              "orders)", pld_strerror(st),
                              orders ? n : (size_t)PLD_RDP_DEFAULT_ORDERS);
  struct bsink s;
  memset(&s, 0, sizeof s);
  s.params = params;
  s.rdp = cv;
  s.bridge = bridge;
  s.lower = lower;
  st = build_list(&s, ev, 0);
  if (st != PLD_SUCCESS) {
    pld_rdp_curve_free(cv);
    return st;
  }
  if (bridged)
    *bridged = s.bridged;
  if (lowered)
    *lowered = s.lowered;
  if (lowered2)
    *lowered2 = s.lowered2;
  *out = cv;
  return PLD_SUCCESS;
}

int pld_event_to_rdp(const pld_event *ev, size_t n, const double *orders,
                     int bridge, const pld_params *params,
                     pld_rdp_curve **out, unsigned *bridged)
{
  pld_detail_clear();
  if (ev == NULL || out == NULL)
    return pld_fail(PLD_EINVAL, "ev and out must not be NULL");
  return ev_tree_rdp(ev, n, orders, bridge, params, 0, out, bridged, NULL,
                     NULL);
}
