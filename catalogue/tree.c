/* pldkit catalogue: trees copied, composed, formatted, summarized and
 * filled (the layout is in tree.h). */
#include <pldkit/event.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detail.h"
#include "events_internal.h"
#include "tree.h"

static int node_copy(const struct ev_node *a, struct ev_node *b);

static int list_copy(const pld_event *a, pld_event **out)
{
  pld_event *b = calloc(1, sizeof *b);
  if (b == NULL)
    return PLD_ENOMEM;
  b->node = calloc(a->n ? a->n : 1, sizeof *b->node);
  if (b->node == NULL) {
    free(b);
    return PLD_ENOMEM;
  }
  for (size_t i = 0; i < a->n; i++) {
    b->n++;
    int st = node_copy(&a->node[i], &b->node[i]);
    if (st != PLD_SUCCESS) {
      pld_event_free(b);
      return st;
    }
  }
  *out = b;
  return PLD_SUCCESS;
}

/* b is zeroed on entry; on failure what was copied is freed with the tree
 * holding b. */
static int node_copy(const struct ev_node *a, struct ev_node *b)
{
  *b = *a;
  b->members = NULL;
  b->nm = 0;
  b->sub = NULL;
  for (size_t k = 0; k < MAX_KEYS; k++) {
    b->v[k].list = NULL;
    b->v[k].text = NULL;
  }
  for (size_t k = 0; k < MAX_KEYS; k++) {
    if (a->v[k].list) {
      size_t n = a->v[k].len ? a->v[k].len : 1;
      b->v[k].list = malloc(n * sizeof(double));
      if (b->v[k].list == NULL)
        return PLD_ENOMEM;
      memcpy(b->v[k].list, a->v[k].list, n * sizeof(double));
    }
    if (a->v[k].text && (b->v[k].text = strdup(a->v[k].text)) == NULL)
      return PLD_ENOMEM;
  }
  if (a->nm) {
    b->members = calloc(a->nm, sizeof *b->members);
    if (b->members == NULL)
      return PLD_ENOMEM;
    b->nm = a->nm;
    for (size_t i = 0; i < a->nm; i++) {
      int st = list_copy(a->members[i], &b->members[i]);
      if (st != PLD_SUCCESS)
        return st;
    }
  }
  if (a->sub) {
    b->sub = calloc(1, sizeof *b->sub);
    if (b->sub == NULL)
      return PLD_ENOMEM;
    return node_copy(a->sub, b->sub);
  }
  return PLD_SUCCESS;
}

int ev_tree_copy(const pld_event *ev, pld_event **out)
{
  return list_copy(ev, out);
}

static const struct ev_node *node_hole(const struct ev_node *nd)
{
  if (nd->hole != HOLE_NONE)
    return nd;
  if (nd->sub && nd->sub->hole != HOLE_NONE)
    return nd->sub;
  for (size_t i = 0; i < nd->nm; i++) {
    const struct ev_node *h = ev_tree_hole(nd->members[i]);
    if (h)
      return h;
  }
  return NULL;
}

const struct ev_node *ev_tree_hole(const pld_event *ev)
{
  for (size_t i = 0; i < ev->n; i++) {
    const struct ev_node *h = node_hole(&ev->node[i]);
    if (h)
      return h;
  }
  return NULL;
}

int ev_tree_refuse_hole(const pld_event *ev)
{
  const struct ev_node *h = ev_tree_hole(ev);
  const char *key = h->hole == HOLE_COUNT ? "count" : h->e->keys[h->hole].name;
  return pld_fail(PLD_EINVAL, "%s=? in event %s: '?' marks the value "
                  "calibration solves for; it has no value to answer with "
                  "(fill it, or calibrate)", key, h->q);
}

int pld_event_compose(size_t n, const pld_event *const *parts,
                      pld_event **out)
{
  pld_detail_clear();
  if (n == 0)
    return pld_fail(PLD_EINVAL, "no EVENT given (an empty composition has "
                    "no privacy loss to account)");
  if (parts == NULL || out == NULL)
    return pld_fail(PLD_EINVAL, "parts and out must not be NULL");
  size_t total = 0, holes = 0;
  const struct ev_node *first_hole = NULL;
  for (size_t i = 0; i < n; i++) {
    if (parts[i] == NULL)
      return pld_fail(PLD_EINVAL, "part %zu is NULL", i);
    total += parts[i]->n;
    const struct ev_node *h = ev_tree_hole(parts[i]);
    if (h && holes++ == 0)
      first_hole = h;
    else if (h) {
      const char *k1 = first_hole->hole == HOLE_COUNT
                           ? "count"
                           : first_hole->e->keys[first_hole->hole].name;
      const char *k2 = h->hole == HOLE_COUNT ? "count" : h->e->keys[h->hole].name;
      return pld_fail(PLD_EINVAL, "a second '?' (%s=? in event %s): "
                      "calibration solves for exactly one value, and %s=? in "
                      "event %s already marks it", k2, h->q, k1,
                      first_hole->q);
    }
  }
  pld_event *ev = calloc(1, sizeof *ev);
  if (ev == NULL)
    return PLD_ENOMEM;
  ev->node = calloc(total ? total : 1, sizeof *ev->node);
  if (ev->node == NULL) {
    free(ev);
    return PLD_ENOMEM;
  }
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < parts[i]->n; j++) {
      int st = node_copy(&parts[i]->node[j], &ev->node[ev->n++]);
      if (st != PLD_SUCCESS) {
        pld_event_free(ev);
        return st;
      }
    }
  int st = ev_tree_check_closed(ev);
  if (st != PLD_SUCCESS) {
    pld_event_free(ev);
    return st;
  }
  *out = ev;
  return PLD_SUCCESS;
}

/* ---- canonical text ---- */

struct out {
  char *buf;
  size_t size, len;
};

static void put(struct out *o, const char *s)
{
  size_t n = strlen(s);
  if (o->len < o->size) {
    size_t room = o->size - o->len - 1;
    memcpy(o->buf + o->len, s, n < room ? n : room);
    o->buf[o->len + (n < room ? n : room)] = '\0';
  }
  o->len += n;
}

static void put_num(struct out *o, double x)
{
  char b[40];
  ev_fmt_exact(b, sizeof b, x);
  put(o, b);
}

static void fmt_list(struct out *o, const pld_event *ev);

static void fmt_node(struct out *o, const struct ev_node *nd)
{
  const struct event_spec *e = nd->e;
  put(o, e->name);
  int first = 1;
  for (size_t k = 0; k < ev_n_keys(e); k++) {
    const struct key_spec *ks = &e->keys[k];
    const struct value *v = &nd->v[k];
    int hole = nd->hole == (int)k;
    if (!hole && !ks->required && ks->dom != DOM_PATH && !v->list &&
        v->real == ks->def)
      continue;
    put(o, first ? ":" : ",");
    first = 0;
    put(o, ks->name);
    put(o, "=");
    if (hole) {
      put(o, "?");
      continue;
    }
    char b[40];
    switch (ks->dom) {
    case DOM_CHOICE:
      put(o, ev_choice_name(ks, v->integer, b, sizeof b));
      break;
    case DOM_PATH:
      put(o, v->text);
      break;
    case DOM_INT_GE1:
    case DOM_INT_GE2:
      snprintf(b, sizeof b, "%lld", (long long)v->integer);
      put(o, b);
      break;
    case DOM_PROB_LIST:
    case DOM_WEIGHT_LIST:
    case DOM_REAL_LIST:
      for (size_t i = 0; i < v->len; i++) {
        if (i)
          put(o, ";");
        put_num(o, v->list[i]);
      }
      break;
    default:
      put_num(o, v->real);
    }
  }
  if (nd->hole == HOLE_COUNT || nd->count != 1) {
    char b[40];
    put(o, first ? ":" : ",");
    snprintf(b, sizeof b, "%llu", (unsigned long long)nd->count);
    put(o, "count=");
    put(o, nd->hole == HOLE_COUNT ? "?" : b);
  }
  if (nd->nm) {
    put(o, "[");
    for (size_t i = 0; i < nd->nm; i++) {
      if (i)
        put(o, "|");
      fmt_list(o, nd->members[i]);
    }
    put(o, "]");
  }
  if (nd->sub) {
    put(o, "[");
    fmt_node(o, nd->sub);
    put(o, "]");
  }
}

static void fmt_list(struct out *o, const pld_event *ev)
{
  for (size_t i = 0; i < ev->n; i++) {
    if (i)
      put(o, "+");
    fmt_node(o, &ev->node[i]);
  }
}

int pld_event_format(const pld_event *ev, char *buf, size_t size,
                     size_t *len)
{
  pld_detail_clear();
  if (ev == NULL || (buf == NULL && size > 0))
    return pld_fail(PLD_EINVAL, "ev must not be NULL, nor buf when size > 0");
  struct out o = {buf, size, 0};
  if (size)
    buf[0] = '\0';
  fmt_list(&o, ev);
  if (len)
    *len = o.len;
  if (o.len >= size)
    return pld_fail(PLD_ERANGE, "the text needs %zu bytes, the buffer has "
                    "%zu", o.len + 1, size);
  return PLD_SUCCESS;
}

/* ---- summaries ---- */

static void summarize(const pld_event *ev, pld_event_summary *s, int top);

static void summarize_node(const struct ev_node *nd, pld_event_summary *s)
{
  const struct event_spec *e = nd->e;
  if (nd->closed) {
    s->closed = 1;
    s->closed_analysis = nd->v[5].integer == AN_THM41 ? "thm41" : "ols";
    s->has_rdp_formula = 0;
  }
  if (e->kind == KIND_DIST) {
    s->files++;
    s->has_rdp_formula = 0;
  }
  if (e->no_pld && e->no_pld(nd->v))
    s->has_pld = 0;
  if (e->kind == KIND_MECH && !e->rdp)
    s->has_rdp_formula = 0;
  if (e->note && e->note(nd->v))
    s->note = e->note(nd->v);
  /* centralized sampling is a lower limit of the worst case: no answer
   * composed with it is a bound (docs/participation.md) */
  if (e->note == ev_note_participation && nd->v[5].integer == AN_CS)
    s->not_bound = "lower_limit";
  if (nd->sub) {
    const struct event_spec *me = nd->sub->e;
    /* a gaussian member (or q = 1) keeps an RDP formula; the others go
     * through the bridge */
    if (!(nd->v[0].real >= 1.0 ||
          (me->build == ev_build_gaussian && me->rdp)))
      s->has_rdp_formula = 0;
    summarize_node(nd->sub, s);
  }
  for (size_t i = 0; i < nd->nm; i++)
    summarize(nd->members[i], s, 0);
}

static void summarize(const pld_event *ev, pld_event_summary *s, int top)
{
  if (top)
    s->events += ev->n;
  for (size_t i = 0; i < ev->n; i++)
    summarize_node(&ev->node[i], s);
}

int pld_event_summarize(const pld_event *ev, pld_event_summary *out)
{
  pld_detail_clear();
  if (ev == NULL || out == NULL || out->size < sizeof *out)
    return pld_fail(PLD_EINVAL, "ev and out must not be NULL, and out->size "
                    "must be sizeof(pld_event_summary)");
  pld_event_summary s;
  memset(&s, 0, sizeof s);
  s.size = sizeof s;
  s.has_pld = 1;
  s.has_rdp_formula = 1;
  summarize(ev, &s, 1);
  *out = s;
  return PLD_SUCCESS;
}

static void files_of(const pld_event *ev, size_t n, const char **paths,
                     size_t *count)
{
  for (size_t i = 0; i < ev->n; i++) {
    const struct ev_node *nd = &ev->node[i];
    if (nd->e->kind == KIND_DIST) {
      if (*count < n)
        paths[*count] = nd->v[0].text;
      (*count)++;
    }
    for (size_t j = 0; j < nd->nm; j++)
      files_of(nd->members[j], n, paths, count);
  }
}

int pld_event_files(const pld_event *ev, size_t n, const char **paths,
                    size_t *count)
{
  pld_detail_clear();
  if (ev == NULL || count == NULL || (n > 0 && paths == NULL))
    return pld_fail(PLD_EINVAL, "ev and count must not be NULL, nor paths "
                    "when n > 0");
  size_t c = 0;
  files_of(ev, n, paths, &c);
  *count = c;
  return PLD_SUCCESS;
}

/* ---- holes ---- */

int pld_event_get_hole(const pld_event *ev, pld_event_hole *out)
{
  pld_detail_clear();
  if (ev == NULL || out == NULL || out->size < sizeof *out)
    return pld_fail(PLD_EINVAL, "ev and out must not be NULL, and out->size "
                    "must be sizeof(pld_event_hole)");
  pld_event_hole h;
  memset(&h, 0, sizeof h);
  h.size = sizeof h;
  const struct ev_node *nd = ev_tree_hole(ev);
  if (nd)
    ev_node_hole_info(nd, &h);
  *out = h;
  return PLD_SUCCESS;
}

static struct ev_node *hole_mut(pld_event *ev)
{
  return (struct ev_node *)ev_tree_hole(ev);
}

int pld_event_fill(const pld_event *ev, double value, pld_event **out)
{
  pld_detail_clear();
  if (ev == NULL || out == NULL)
    return pld_fail(PLD_EINVAL, "ev and out must not be NULL");
  const struct ev_node *h0 = ev_tree_hole(ev);
  if (h0 == NULL)
    return pld_fail(PLD_EINVAL, "the event has no hole (KEY=?) to fill");
  pld_event *c = NULL;
  int st = ev_tree_copy(ev, &c);
  if (st != PLD_SUCCESS)
    return st;
  struct ev_node *nd = hole_mut(c);
  const char *key = nd->hole == HOLE_COUNT ? "count"
                                           : nd->e->keys[nd->hole].name;
  char why[240], vb[40];
  ev_fmt_exact(vb, sizeof vb, value);
  pld_event_hole info;
  ev_node_hole_info(nd, &info);
  if (!isfinite(value) || value < info.lo || value > info.hi ||
      (info.integer && value != floor(value))) {
    /* the detail quotes the copy: record it before freeing */
    st = pld_fail(PLD_EINVAL, "%s = %s in event %s is outside its domain "
                  "(%s from %g to %g)", key, vb, nd->q,
                  info.integer ? "an integer" : "a number", info.lo,
                  info.hi);
    pld_event_free(c);
    return st;
  }
  if (nd->hole == HOLE_COUNT) {
    nd->count = (uint64_t)value;
  } else {
    nd->v[nd->hole].real = value;
    nd->v[nd->hole].integer = (int64_t)value;
  }
  nd->hole = HOLE_NONE;
  if (nd->e->check && nd->e->check(nd->v, why, sizeof why)) {
    st = pld_fail(PLD_EINVAL, "at %s = %s, event %s: %s", key, vb, nd->q,
                  why);
    pld_event_free(c);
    return st;
  }
  *out = c;
  return PLD_SUCCESS;
}

int ev_tree_closed(const pld_event *ev, struct ev_closed *c)
{
  if (ev->n != 1 || !ev->node[0].closed)
    return 0;
  const struct ev_node *nd = &ev->node[0];
  c->analysis = (int)nd->v[5].integer;
  c->p = nd->v[0].real;
  c->q = nd->v[1].real;
  c->d = (long long)nd->v[2].integer;
  c->C = nd->v[3].real;
  c->sigma = nd->v[4].real;
  snprintf(c->where, sizeof c->where, "%s", nd->q);
  return 1;
}
