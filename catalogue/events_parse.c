/* pldkit catalogue: the event tree -- text parsed once into a tree of
 * catalogue entries with their values (pld_event), and the tree formatted
 * back, copied, filled and built into an accountant or an RDP curve.
 *
 * Parsing checks everything that needs no computation: names, keys, each
 * value's domain, the events' cross-key rules, member lists and the one
 * hole KEY=?.  Building (pld_event_to_accountant, ev_tree_rdp) turns each
 * node into mechanisms through the table's adapters (events_table.c,
 * events_pld.c, events_rdp.c); what the library refuses there is reported
 * with the event quoted.  The grammar is in <pldkit/event.h>.
 */
#include <pldkit/event.h>

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
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
#include <pldkit/select.h>
#include <pldkit/participation.h>
#include <pldkit/allocation.h>
#include "detail.h"
#include "events_internal.h"
#include "tree.h"

/* One parse: the hole seen so far. */
struct pstate {
  int holes;
  char hole_key[32];
  char hole_where[QUOTE_LEN];
};

static void list_keys(const struct event_spec *e, char *buf, size_t n)
{
  size_t o = 0;
  buf[0] = '\0';
  for (size_t k = 0; k <= ev_n_keys(e) && o < n; k++) {
    const char *name = k < ev_n_keys(e) ? e->keys[k].name : "count";
    int w = snprintf(buf + o, n - o, "%s%s", k ? ", " : "", name);
    if (w < 0)
      break;
    o += (size_t)w;
  }
}

static int in_domain(enum domain d, double x)
{
  switch (d) {
  case DOM_POSITIVE:
  case DOM_NOISE:
    return x > 0;
  case DOM_NONNEGATIVE:
    return x >= 0;
  case DOM_RATE:
    return x > 0 && x <= 1;
  case DOM_PROB_LIST:
  case DOM_WEIGHT_LIST:
    return x >= 0 && x <= 1;
  case DOM_REAL_LIST:
  case DOM_REAL:
    return 1;
  case DOM_INT_GE1:
    return x >= 1;
  case DOM_INT_GE2:
    return x >= 2;
  case DOM_CHOICE:
  case DOM_PATH:
    return 0;
  }
  return 0;
}

/* Why x is outside a list domain, for messages. */
static const char *list_range_text(enum domain d, double x)
{
  if ((d == DOM_PROB_LIST || d == DOM_WEIGHT_LIST) && x < 0)
    return "negative";
  if ((d == DOM_PROB_LIST || d == DOM_WEIGHT_LIST) && x > 1)
    return "above 1";
  return "out of range";
}


/* The hole KEY=?: at most one per tree; the parse goes on with a valid
 * stand-in value so that the event's other checks run. */
static int take_hole(struct pstate *ps, const char *name, const char *qev,
                     int *hole, int k)
{
  if (ps->holes > 0)
    return pld_fail(PLD_EINVAL, "a second '?' (%s=? in event %s): "
                    "calibration solves for exactly one value, and %s=? in "
                    "event %s already marks it", name, qev, ps->hole_key,
                    ps->hole_where);
  ps->holes++;
  snprintf(ps->hole_key, sizeof ps->hole_key, "%s", name);
  snprintf(ps->hole_where, sizeof ps->hole_where, "%s", qev);
  *hole = k;
  return PLD_SUCCESS;
}

/* The keys of event e (with values v) that calibrate may solve for. */
static void solvable_keys_of(const struct event_spec *e,
                             const struct value *v, char *buf, size_t n)
{
  size_t o = 0;
  buf[0] = '\0';
  for (size_t k = 0; k < ev_n_keys(e) && o < n; k++) {
    if (ev_key_mono(&e->keys[k]) == MONO_NONE ||
        (e->no_solve && e->no_solve(v, k)))
      continue;
    int w = snprintf(buf + o, n - o, "%s, ", e->keys[k].name);
    if (w < 0)
      return;
    o += (size_t)w;
  }
  if (o < n)
    snprintf(buf + o, n - o, "count");
}

/* Parse `val` for key `ks` into *v.  `qev` is the quoted event text for
 * messages.  Returns a pld_status. */
static int parse_value(struct pstate *ps, const struct key_spec *ks,
                       char *val, struct value *v, const char *qev,
                       int *hole, int k)
{
  char qv[QUOTE_LEN], dom[96];
  ev_domain_phrase(ks, dom, sizeof dom);
  if (*val == '\0') {
    return pld_fail(PLD_EINVAL, "key '%s' has an empty value in event %s "
             "(%s must be %s)", ks->name, qev, ks->name, dom);
  }
  if (strcmp(val, "?") == 0 &&
      (ks->dom == DOM_PROB_LIST || ks->dom == DOM_WEIGHT_LIST ||
       ks->dom == DOM_REAL_LIST || ks->dom == DOM_CHOICE ||
       ks->dom == DOM_PATH)) {
    return pld_fail(PLD_EINVAL, "%s=? in event %s: calibrate solves for one "
             "number, and %s is %s", ks->name, qev, ks->name, dom);
  }
  switch (ks->dom) {
  case DOM_INT_GE1:
  case DOM_INT_GE2: {
    long long x = 0;
    const char *s = val;
    if (strcmp(val, "?") == 0) {
      int rc = take_hole(ps, ks->name, qev, hole, k);
      if (rc != PLD_SUCCESS)
        return rc;
      s = ks->dom == DOM_INT_GE2 ? "2" : "1";
    }
    int r = ev_parse_int(s, ks->dom == DOM_INT_GE2 ? 2 : 1, INT64_MAX,
                              &x);
    if (r != EV_INT_OK) {
      return pld_fail(PLD_EINVAL, "%s=%s in event %s is %s (%s must be %s)",
               ks->name, ev_quote(qv, sizeof qv, s), qev,
               r == EV_INT_RANGE ? "out of range" : "not an integer",
               ks->name, dom);
    }
    v->integer = (int64_t)x;
    v->real = (double)x;
    break;
  }
  case DOM_CHOICE: {
    char word[32];
    int64_t i = 0;
    for (;; i++) {
      ev_choice_name(ks, i, word, sizeof word);
      if (strcmp(word, "?") == 0) {
        return pld_fail(PLD_EINVAL, "%s=%s in event %s is not a known value (%s "
                 "must be %s)", ks->name, ev_quote(qv, sizeof qv, val),
                 qev, ks->name, dom);
      }
      if (strcmp(word, val) == 0)
        break;
    }
    v->integer = i;
    v->real = (double)i;
    break;
  }
  case DOM_PATH: {
    char *t = strdup(val);
    if (t == NULL)
      return PLD_ENOMEM;
    v->text = t;
    break;
  }
  case DOM_PROB_LIST:
  case DOM_WEIGHT_LIST:
  case DOM_REAL_LIST: {
    size_t n = 1;
    for (const char *p = val; *p; p++)
      n += *p == ';';
    v->list = malloc(n * sizeof *v->list);
    if (v->list == NULL) {
      return PLD_ENOMEM;
    }
    char *item = val;
    for (size_t i = 0; i < n; i++) {
      char *semi = strchr(item, ';');
      if (semi)
        *semi = '\0';
      double x;
      if (*item == '\0') {
        return pld_fail(PLD_EINVAL, "%s has an empty entry (number %zu) in event "
                 "%s (%s must be %s)", ks->name, i + 1, qev, ks->name, dom);
      }
      if (ev_parse_double(item, &x) != 0 || !in_domain(ks->dom, x)) {
        return pld_fail(PLD_EINVAL, "%s entry %s in event %s is %s (%s must be %s)",
                 ks->name, ev_quote(qv, sizeof qv, item), qev,
                 ev_parse_double(item, &x) != 0
                     ? "not a finite number"
                     : list_range_text(ks->dom, x),
                 ks->name, dom);
      }
      v->list[i] = x;
      if (semi)
        item = semi + 1;
    }
    v->len = n;
    break;
  }
  default: {
    double x;
    const char *s = val;
    if (strcmp(val, "?") == 0) {
      int rc = take_hole(ps, ks->name, qev, hole, k);
      if (rc != PLD_SUCCESS)
        return rc;
      s = ks->dom == DOM_INT_GE2 ? "2" : "1";
    }
    if (ev_parse_double(s, &x) != 0 || !in_domain(ks->dom, x)) {
      return pld_fail(PLD_EINVAL, "%s=%s in event %s is %s (%s must be %s)",
               ks->name, ev_quote(qv, sizeof qv, s), qev,
               ev_parse_double(s, &x) != 0 ? "not a finite number"
                                                : "out of range",
               ks->name, dom);
    }
    v->real = x;
    break;
  }
  }
  v->present = 1;
  return PLD_SUCCESS;
}

/* The next `sep` at bracket depth 0 of s, or NULL.  A '+' counts only when a
 * letter follows it (so that 1e+5 stays a number). */
static char *find_sep(char *s, char sep)
{
  int depth = 0;
  for (char *p = s; *p; p++) {
    if (*p == '[')
      depth++;
    else if (*p == ']')
      depth--;
    else if (depth == 0 && *p == sep &&
             (sep != '+' || isalpha((unsigned char)p[1])))
      return p;
  }
  return NULL;
}

/* Brackets balanced and '|' only inside them.  Returns a pld_status. */
static int check_brackets(const char *text, const char *qtext)
{
  int depth = 0;
  size_t last_open = 0;
  for (size_t i = 0; text[i]; i++) {
    char c = text[i];
    if (c == '[') {
      if (depth == 0)
        last_open = i;
      depth++;
    } else if (c == ']') {
      if (depth == 0) {
        return pld_fail(PLD_EINVAL, "unbalanced brackets in %s: the ']' at "
                 "character %zu has no '[' before it", qtext, i + 1);
      }
      depth--;
    } else if (c == '|' && depth == 0) {
      return pld_fail(PLD_EINVAL, "the '|' at character %zu of %s is outside "
               "brackets ('|' separates the members of "
               "random-selection:weights=...[MEMBER|MEMBER])", i + 1, qtext);
    }
  }
  if (depth > 0) {
    return pld_fail(PLD_EINVAL, "unbalanced brackets in %s: %d '[' never closed "
             "(the outermost one at character %zu)", qtext, depth,
             last_open + 1);
  }
  return PLD_SUCCESS;
}


static int parse_count(struct pstate *ps, const char *text, uint64_t *count,
                       const char *qev, int *hole)
{
  char qv[QUOTE_LEN];
  long long x = 0;
  const char *val = text;
  if (strcmp(text, "?") == 0) {
    int rc = take_hole(ps, "count", qev, hole, HOLE_COUNT);
    if (rc != PLD_SUCCESS)
      return rc;
    val = "1";
  }
  int r = *val ? ev_parse_int(val, 1, (long long)PLD_EVENT_MAX_COUNT, &x)
               : -1;
  if (r == EV_INT_OK) {
    *count = (uint64_t)x;
    return PLD_SUCCESS;
  }
  if (r < 0)
    return pld_fail(PLD_EINVAL, "key 'count' has an empty value in event %s "
                    "(count must be an integer from 1 to 2^53 = %llu)", qev,
                    PLD_EVENT_MAX_COUNT);
  return pld_fail(PLD_EINVAL, "count=%s in event %s is %s (count must be an "
                  "integer from 1 to 2^53 = %llu)",
                  ev_quote(qv, sizeof qv, val), qev,
                  r == EV_INT_RANGE ? "out of range" : "not an integer",
                  PLD_EVENT_MAX_COUNT);
}

/* The key=value items after the ':' (modified in place). */
static int parse_items(struct pstate *ps, struct ev_node *nd, char *items)
{
  const struct event_spec *e = nd->e;
  const char *qev = nd->q;
  char qk[QUOTE_LEN], allowed[160];
  int have_count = 0;
  list_keys(e, allowed, sizeof allowed);
  if (*items == '\0')
    return pld_fail(PLD_EINVAL, "event %s has nothing after ':' (expected "
                    "key=value,...; %s takes %s)", qev, e->name, allowed);
  for (char *item = items; item;) {
    char *comma = strchr(item, ',');
    if (comma)
      *comma = '\0';
    char *eq = strchr(item, '=');
    if (*item == '\0')
      return pld_fail(PLD_EINVAL, "event %s has an empty item (a stray ','; "
                      "expected key=value with key one of %s)", qev, allowed);
    if (eq == NULL || eq == item)
      return pld_fail(PLD_EINVAL, "%s in event %s is not of the form "
                      "key=value (%s takes %s)",
                      ev_quote(qk, sizeof qk, item), qev, e->name, allowed);
    *eq = '\0';
    char *val = eq + 1;
    int rc;
    if (strcmp(item, "count") == 0) {
      if (have_count)
        return pld_fail(PLD_EINVAL, "key 'count' given twice in event %s",
                        qev);
      have_count = 1;
      rc = parse_count(ps, val, &nd->count, qev, &nd->hole);
    } else {
      size_t k = 0, nk = ev_n_keys(e);
      while (k < nk && strcmp(e->keys[k].name, item) != 0)
        k++;
      if (k == nk)
        return pld_fail(PLD_EINVAL, "unknown key %s in event %s (%s takes "
                        "%s)", ev_quote(qk, sizeof qk, item), qev, e->name,
                        allowed);
      if (nd->v[k].present)
        return pld_fail(PLD_EINVAL, "key '%s' given twice in event %s",
                        e->keys[k].name, qev);
      rc = parse_value(ps, &e->keys[k], val, &nd->v[k], qev, &nd->hole,
                       (int)k);
    }
    if (rc != PLD_SUCCESS)
      return rc;
    item = comma ? comma + 1 : NULL;
  }
  return PLD_SUCCESS;
}

/* The hole's search domain and direction, once the event's other keys are
 * known: whether calibration may solve for it here. */
static int hole_check(const struct ev_node *nd)
{
  const struct event_spec *e = nd->e;
  const char *qev = nd->q;
  int closed = e->closed && e->closed(nd->v);
  char keys[200];
  if (nd->hole == HOLE_COUNT) {
    if (closed) {
      char an[32];
      ev_choice_name(&e->keys[5], nd->v[5].integer, an, sizeof an);
      return pld_fail(PLD_EINVAL, "count=? in event %s: analysis=%s is a "
                      "closed-form single round and does not compose (count "
                      "must be 1; analysis=wcs composes over rounds)", qev,
                      an);
    }
    return PLD_SUCCESS;
  }
  const struct key_spec *ks = &e->keys[nd->hole];
  const char *why = e->no_solve ? e->no_solve(nd->v, (size_t)nd->hole)
                                : NULL;
  if (why == NULL && ev_key_mono(ks) == MONO_NONE)
    why = "pldkit knows no monotone dependence of epsilon on it";
  if (why) {
    solvable_keys_of(e, nd->v, keys, sizeof keys);
    return pld_fail(PLD_EINVAL, "%s=? in event %s: calibrate cannot solve "
                    "for %s: %s (it solves for one key in which epsilon is "
                    "monotone; in this event: %s)", ks->name, qev, ks->name,
                    why, keys);
  }
  return PLD_SUCCESS;
}

void ev_node_hole_info(const struct ev_node *nd, pld_event_hole *h)
{
  const struct event_spec *e = nd->e;
  int closed = e->closed && e->closed(nd->v);
  h->present = 1;
  snprintf(h->where, sizeof h->where, "%s", nd->q);
  if (nd->hole == HOLE_COUNT) {
    snprintf(h->key, sizeof h->key, "count");
    h->direction = MONO_LESS;
    h->integer = 1;
    h->lo = 1.0;
    h->hi = (double)PLD_EVENT_MAX_COUNT;
    return;
  }
  const struct key_spec *ks = &e->keys[nd->hole];
  snprintf(h->key, sizeof h->key, "%s", ks->name);
  h->direction = ev_key_mono(ks);
  h->integer = ks->dom == DOM_INT_GE1 || ks->dom == DOM_INT_GE2;
  /* The search doubles and halves: positive bounds, 1e-12 and 1e12 as for
   * noise scales (rates stop at 1). */
  h->lo = h->integer ? (ks->dom == DOM_INT_GE2 ? 2.0 : 1.0) : 1e-12;
  h->hi = ks->dom == DOM_RATE ? 1.0
          : h->integer        ? (double)PLD_EVENT_MAX_COUNT
                              : 1e12;
  if (ks->solve_hi > 0)
    h->hi = ks->solve_hi;
  /* The closed forms depend on C/sigma only; the library's own calibration
   * floor is sigma = 1e-4 C (pld_participation_calibrate). */
  if (closed && strcmp(ks->name, "sigma") == 0)
    h->lo = 1e-4 * nd->v[3].real;
  if (closed && strcmp(ks->name, "C") == 0)
    h->hi = 1e4 * nd->v[4].real;
}

/* The defaults and the cross-key check of a node whose items are read. */
static int finish_keys(struct ev_node *nd)
{
  const struct event_spec *e = nd->e;
  char why[240];
  for (size_t k = 0; k < ev_n_keys(e); k++) {
    const struct key_spec *ks = &e->keys[k];
    char dom[96];
    if (nd->v[k].present)
      continue;
    if (ks->required) {
      ev_domain_phrase(ks, dom, sizeof dom);
      return pld_fail(PLD_EINVAL, "event %s is missing the required key "
                      "'%s' (%s, %s)", nd->q, ks->name, ks->meaning, dom);
    }
    nd->v[k].real = ks->def;
    nd->v[k].integer = (int64_t)ks->def;
  }
  if (nd->hole != HOLE_NONE) {
    int rc = hole_check(nd);
    if (rc != PLD_SUCCESS)
      return rc;
  }
  if (e->check && e->check(nd->v, why, sizeof why))
    return pld_fail(PLD_EINVAL, "event %s: %s", nd->q, why);
  return PLD_SUCCESS;
}

static void node_clear(struct ev_node *nd)
{
  for (size_t k = 0; k < MAX_KEYS; k++) {
    free(nd->v[k].list);
    free((char *)nd->v[k].text);
  }
  for (size_t i = 0; i < nd->nm; i++)
    pld_event_free(nd->members[i]);
  free(nd->members);
  if (nd->sub) {
    node_clear(nd->sub);
    free(nd->sub);
  }
  memset(nd, 0, sizeof *nd);
}

void pld_event_free(pld_event *ev)
{
  if (ev == NULL)
    return;
  for (size_t i = 0; i < ev->n; i++)
    node_clear(&ev->node[i]);
  free(ev->node);
  free(ev);
}

static int parse_list(struct pstate *ps, char *text, unsigned depth,
                      pld_event **out);

/* The members of a selection: `body` is the text inside the brackets. */
static int parse_members(struct pstate *ps, struct ev_node *nd, char *body,
                         unsigned depth)
{
  const char *qev = nd->q;
  size_t n = 1;
  for (char *p = find_sep(body, '|'); p; p = find_sep(p + 1, '|'))
    n++;
  if (*body == '\0')
    return pld_fail(PLD_EINVAL, "event %s has an empty member list '[]' "
                    "(expected [EVENT|EVENT|...], one member per weight)",
                    qev);
  if (depth + 1 >= PLD_EVENT_MAX_DEPTH)
    return pld_fail(PLD_EINVAL, "event %s nests random-selection deeper than "
                    "%d levels", qev, PLD_EVENT_MAX_DEPTH);
  size_t i = 0;
  for (char *m = body;;) {
    char *bar = find_sep(m, '|');
    if (bar == m || (bar == NULL && *m == '\0'))
      return pld_fail(PLD_EINVAL, "member %zu of %zu in event %s is empty "
                      "(each member is one or more EVENTs joined by '+', "
                      "members are separated by '|')", i + 1, n, qev);
    if (bar == NULL)
      break;
    m = bar + 1;
    i++;
  }
  if (nd->v[0].len != n)
    return pld_fail(PLD_EINVAL, "event %s has %zu weight%s but %zu member%s "
                    "(%s needs one weight per member, in order)", qev,
                    nd->v[0].len, nd->v[0].len == 1 ? "" : "s", n,
                    n == 1 ? "" : "s", nd->e->name);
  nd->members = calloc(n, sizeof *nd->members);
  if (nd->members == NULL)
    return PLD_ENOMEM;
  nd->nm = n;
  char *m = body;
  for (i = 0; i < n; i++) {
    char *bar = find_sep(m, '|');
    if (bar)
      *bar = '\0';
    int rc = parse_list(ps, m, depth + 1, &nd->members[i]);
    if (rc != PLD_SUCCESS)
      return rc;
    m = bar ? bar + 1 : NULL;
  }
  return PLD_SUCCESS;
}

/* The member of poisson-sampled:q=Q[MEMBER] (`body`): exactly one EVENT
 * whose table entry builds one pld_mech, with count 1. */
static int parse_subsample_member(struct pstate *ps, struct ev_node *nd,
                                  char *body)
{
  char qm[QUOTE_LEN], names[512];
  const char *qev = nd->q;
  if (*body == '\0')
    return pld_fail(PLD_EINVAL, "event %s has an empty member '[]' (expected "
                    "poisson-sampled:q=Q[EVENT], one mechanism EVENT in "
                    "brackets)", qev);
  ev_quote(qm, sizeof qm, body);
  if (find_sep(body, '|'))
    return pld_fail(PLD_EINVAL, "event %s has several members: "
                    "poisson-sampled subsamples exactly one mechanism EVENT "
                    "(no '|'; to subsample a random selection, select among "
                    "poisson-sampled events)", qev);
  if (find_sep(body, '+'))
    return pld_fail(PLD_EINVAL, "the member %s of event %s is a list of "
                    "EVENTs joined by '+': poisson-sampled subsamples exactly "
                    "one mechanism EVENT (subsample each one, or use count=N "
                    "before '[')", qm, qev);
  char *items = strchr(body, ':');
  size_t name_len = items ? (size_t)(items - body) : strcspn(body, "[");
  char name[64];
  snprintf(name, sizeof name, "%.*s", (int)(name_len < 63 ? name_len : 63),
           body);
  const struct event_spec *me =
      name_len < sizeof name ? ev_find_event(name) : NULL;
  if (me == NULL) {
    char qn[QUOTE_LEN];
    ev_list_event_names(names, sizeof names);
    return pld_fail(PLD_EINVAL, "unknown event %s as the member of %s "
                    "(allowed: %s)", ev_quote(qn, sizeof qn, name), qev,
                    names);
  }
  const char *why = NULL;
  if (me->kind == KIND_SELECTION)
    why = "a random selection is not one mechanism (select among "
          "poisson-sampled events instead)";
  else if (me->kind == KIND_SUBSAMPLE)
    why = "subsampling twice is subsampling once at the product of the "
          "rates (write one poisson-sampled with q = q1 q2)";
  else if (me->kind == KIND_DIST)
    why = "a saved PLD is a distribution of losses, not a pair of output "
          "distributions that could be subsampled";
  else if (me->replace_one)
    why = "its pair is for replace-one neighbours, and Poisson subsampling "
          "with add/remove neighbours is not defined for it";
  else if (me->add || me->build == NULL)
    why = "it has no single PLD mechanism (pair) to subsample";
  else if (strchr(body, '['))
    why = "it takes no member list";
  if (why)
    return pld_fail(PLD_EINVAL, "event %s cannot be the member of %s: %s",
                    qm, qev, why);
  if (items)
    *items++ = '\0';
  struct ev_node *sub = calloc(1, sizeof *sub);
  if (sub == NULL)
    return PLD_ENOMEM;
  nd->sub = sub;
  sub->e = me;
  sub->count = 1;
  sub->hole = HOLE_NONE;
  snprintf(sub->q, sizeof sub->q, "%s", qm);
  int rc = items ? parse_items(ps, sub, items) : PLD_SUCCESS;
  if (rc == PLD_SUCCESS)
    rc = finish_keys(sub);
  if (rc != PLD_SUCCESS)
    return rc;
  if (sub->count != 1 || sub->hole == HOLE_COUNT)
    return pld_fail(PLD_EINVAL, "the member %s of event %s has a count: "
                    "poisson-sampled subsamples one run of one mechanism "
                    "(count=N before '[' composes N subsampled steps)", qm,
                    qev);
  if (me->closed && me->closed(sub->v))
    return pld_fail(PLD_EINVAL, "the member %s of event %s is a closed-form "
                    "single-round answer, not a mechanism (use analysis=wcs "
                    "or cs)", qm, qev);
  const char *no_pld = me->no_pld ? me->no_pld(sub->v) : NULL;
  if (no_pld)
    return pld_fail(PLD_EINVAL, "the member %s of event %s has no PLD "
                    "mechanism to subsample: %s", qm, qev, no_pld);
  return PLD_SUCCESS;
}

/* One EVENT (brackets balanced) into *nd. */
static int parse_one(struct pstate *ps, char *text, unsigned depth,
                     struct ev_node *nd)
{
  char names[512];
  char *body = NULL;
  nd->count = 1;
  nd->hole = HOLE_NONE;
  ev_quote(nd->q, sizeof nd->q, text);
  const char *qev = nd->q;

  /* The member list: from the first '[' to its matching ']', which must end
   * the event. */
  char *open = strchr(text, '[');
  if (open) {
    int d = 0;
    char *close = open;
    for (; *close; close++) {
      d += *close == '[';
      d -= *close == ']';
      if (d == 0)
        break;
    }
    if (*close != ']' || close[1] != '\0') {
      char qt[QUOTE_LEN];
      return pld_fail(PLD_EINVAL, "event %s has text %s after the ']' that "
                      "closes its member list (the member list must end the "
                      "event; count=N goes before '[')", qev,
                      ev_quote(qt, sizeof qt, *close ? close + 1 : close));
    }
    *open = '\0';
    *close = '\0';
    body = open + 1;
  }
  char *items = strchr(text, ':');
  if (items)
    *items++ = '\0';
  ev_list_event_names(names, sizeof names);
  if (*text == '\0')
    return pld_fail(PLD_EINVAL, "event %s has no name (expected "
                    "NAME:key=value,... with NAME one of %s)", qev, names);
  const struct event_spec *e = ev_find_event(text);
  if (e == NULL) {
    char qn[QUOTE_LEN];
    return pld_fail(PLD_EINVAL, "unknown event %s in %s (allowed: %s)",
                    ev_quote(qn, sizeof qn, text), qev, names);
  }
  nd->e = e;
  if (body && e->kind != KIND_SELECTION && e->kind != KIND_SUBSAMPLE)
    return pld_fail(PLD_EINVAL, "event %s: %s takes no member list '[...]' "
                    "(only random-selection and poisson-sampled do)", qev,
                    e->name);
  if (!body && e->kind == KIND_SELECTION)
    return pld_fail(PLD_EINVAL, "event %s has no member list: write "
                    "%s:weights=W1;W2[EVENT|EVENT] (members in brackets, "
                    "separated by '|')", qev, e->name);
  if (!body && e->kind == KIND_SUBSAMPLE)
    return pld_fail(PLD_EINVAL, "event %s has no member: write %s:q=Q[EVENT] "
                    "(the one mechanism EVENT to subsample, in brackets)",
                    qev, e->name);
  int rc = items ? parse_items(ps, nd, items) : PLD_SUCCESS;
  if (rc == PLD_SUCCESS)
    rc = finish_keys(nd);
  if (rc != PLD_SUCCESS)
    return rc;
  if (e->closed && e->closed(nd->v)) {
    char an[32];
    ev_choice_name(&e->keys[5], nd->v[5].integer, an, sizeof an);
    if (depth > 0)
      return pld_fail(PLD_EINVAL, "analysis=%s in event %s is a closed-form "
                      "single-round answer, not a mechanism: it cannot be a "
                      "member of random-selection (use analysis=wcs or cs)",
                      an, qev);
    if (nd->count != 1)
      return pld_fail(PLD_EINVAL, "count=%llu in event %s: analysis=%s is a "
                      "closed-form single-round answer, and thm41 and ols do "
                      "not compose (count must be 1; analysis=wcs composes "
                      "over rounds)", (unsigned long long)nd->count, qev, an);
    nd->closed = 1;
    return PLD_SUCCESS;
  }
  if (e->kind == KIND_SELECTION)
    return parse_members(ps, nd, body, depth);
  if (e->kind == KIND_SUBSAMPLE)
    return parse_subsample_member(ps, nd, body);
  return PLD_SUCCESS;
}

/* A LIST: EVENTs joined by '+' (brackets balanced). */
static int parse_list(struct pstate *ps, char *text, unsigned depth,
                      pld_event **out)
{
  char ql[QUOTE_LEN];
  ev_quote(ql, sizeof ql, text);
  size_t n = 1;
  for (char *p = find_sep(text, '+'); p; p = find_sep(p + 1, '+'))
    n++;
  pld_event *ev = calloc(1, sizeof *ev);
  if (ev == NULL)
    return PLD_ENOMEM;
  ev->node = calloc(n, sizeof *ev->node);
  if (ev->node == NULL) {
    free(ev);
    return PLD_ENOMEM;
  }
  *out = ev; /* freed by the caller on failure */
  for (char *item = text;;) {
    char *plus = find_sep(item, '+');
    if (plus)
      *plus = '\0';
    if (*item == '\0' && (plus || item != text))
      return pld_fail(PLD_EINVAL, "an empty EVENT %s '+' in %s (EVENTs are "
                      "joined by '+', e.g. gaussian:sigma=2+laplace:b=3)",
                      plus ? "before" : "after", ql);
    int rc = parse_one(ps, item, depth, &ev->node[ev->n]);
    ev->n++;
    if (rc != PLD_SUCCESS)
      return rc;
    if (plus == NULL)
      break;
    item = plus + 1;
  }
  return ev_tree_check_closed(ev);
}

/* A closed-form analysis is the only EVENT of its tree. */
int ev_tree_check_closed(const pld_event *ev)
{
  for (size_t i = 0; i < ev->n; i++) {
    if (!ev->node[i].closed || ev->n == 1)
      continue;
    char an[32];
    const struct ev_node *nd = &ev->node[i];
    ev_choice_name(&nd->e->keys[5], nd->v[5].integer, an, sizeof an);
    return pld_fail(PLD_EINVAL, "analysis=%s in event %s is a closed-form "
                    "single-round answer, and thm41 and ols do not compose: "
                    "it must be the only EVENT (analysis=wcs composes)", an,
                    nd->q);
  }
  return PLD_SUCCESS;
}

int pld_event_parse(const char *text, pld_event **out)
{
  char qtext[QUOTE_LEN];
  struct pstate ps;
  pld_detail_clear();
  if (text == NULL || out == NULL)
    return pld_fail(PLD_EINVAL, "text and out must not be NULL");
  memset(&ps, 0, sizeof ps);
  ev_quote(qtext, sizeof qtext, text);
  int rc = check_brackets(text, qtext);
  if (rc != PLD_SUCCESS)
    return rc;
  char *buf = strdup(text);
  if (buf == NULL)
    return PLD_ENOMEM;
  pld_event *ev = NULL;
  rc = parse_list(&ps, buf, 0, &ev);
  free(buf);
  if (rc != PLD_SUCCESS) {
    pld_event_free(ev);
    return rc;
  }
  *out = ev;
  return PLD_SUCCESS;
}
