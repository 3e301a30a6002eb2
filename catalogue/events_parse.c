/* pldkit catalogue: the EVENT parser.
 *
 * Everything an event is lives in the table `events` below: its name, its
 * keys (domain, whether required, default, meaning, all of which also feed
 * --help) and a one-line adapter to its constructor in <pldkit/mech.h>.  A new
 * event is one table entry plus, if it needs them, an adapter and a
 * cross-key check.
 *
 * Structure above the key=value items (events.h has the grammar): an
 * argument is a LIST of EVENTs joined by '+'; random-selection carries a
 * bracketed list of members, each a LIST again.  Brackets are checked for
 * balance once per argument (pld_event_parse); below that, parse_list
 * splits on '+' and parse_one splits one EVENT into its head (name and
 * items, never containing a bracket) and its member list.
 *
 * The event table itself is in events_table.c, the adapters in
 * events_pld.c, events_rdp.c and events_check.c, the closed forms in
 * events_closed.c; events_internal.h has the types they share.
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
#include <pldkit/rdp_papers.h>
#include <pldkit/select.h>
#include <pldkit/merge.h>


#include <pldkit/participation.h>
#include <pldkit/allocation.h>
#include "detail.h"
#include "events_internal.h"

/* ev_take_lowered2: a count per thread (pld_event_ctx is public; its
 * lowered counts every lower curve) */
static _Thread_local unsigned lowered2;

unsigned ev_take_lowered2(void)
{
  unsigned n = lowered2;
  lowered2 = 0;
  return n;
}

/* ------------------------------------------------------------------------ */
/* Numbers.                                                                  */

int pld_event_parse_double(const char *s, double *out)
{
  char *end;
  /* strtod would skip leading blanks and accept "nan"/"inf"; a token with
   * blanks in it is almost always a quoting mistake, so refuse it. */
  if (s == NULL || *s == '\0' || isspace((unsigned char)*s))
    return -1;
  /* Decimal only: strtod also reads C99 hex floats (0x1p3 = 8), which no
   * one means on a command line. */
  if (strpbrk(s, "xX"))
    return -1;
  errno = 0;
  double x = strtod(s, &end);
  if (end == s || *end != '\0' || !isfinite(x))
    return -1;
  *out = x;
  return 0;
}

int pld_event_parse_int(const char *s, long long lo, long long hi,
                      long long *out)
{
  const char *p = s;
  char *end;
  if (s == NULL)
    return PLD_EVENT_INT_NOT_INTEGER;
  if (*p == '+' || *p == '-')
    p++;
  if (!isdigit((unsigned char)*p))
    return PLD_EVENT_INT_NOT_INTEGER;
  errno = 0;
  long long x = strtoll(s, &end, 10);
  if (*end != '\0')
    return PLD_EVENT_INT_NOT_INTEGER;
  if (errno == ERANGE || x < lo || x > hi)
    return PLD_EVENT_INT_RANGE;
  *out = x;
  return PLD_EVENT_INT_OK;
}

/* ------------------------------------------------------------------------ */
/* The parser.                                                               */

/* One parse of one argument. */
struct pstate {
  pld_event_ctx *ctx;
  char *err;
  size_t errlen;
  int local_ctx; /* ctx is a temporary: it cannot keep objects alive */
  struct file_list *files; /* pld_event_files: collect pld:file= paths (no
                              file is loaded, no mechanism built) */
};

/* What pld_event_files collects. */
struct file_list {
  pld_event_file *v;
  size_t n, cap;
  int nomem;
};

static void file_list_add(struct file_list *fl, const char *path,
                          uint64_t count, unsigned depth)
{
  if (fl->n == fl->cap) {
    size_t cap = fl->cap ? 2 * fl->cap : 4;
    pld_event_file *v = realloc(fl->v, cap * sizeof *v);
    if (!v) {
      fl->nomem = 1;
      return;
    }
    fl->v = v;
    fl->cap = cap;
  }
  char *c = malloc(strlen(path) + 1);
  if (!c) {
    fl->nomem = 1;
    return;
  }
  strcpy(c, path);
  fl->v[fl->n].path = c;
  fl->v[fl->n].count = (unsigned long long)count;
  fl->v[fl->n].alone = depth == 0; /* settled once the whole text is read */
  fl->n++;
}

/* Where a parse puts the events: an accountant (PLD) or an RDP curve; a
 * NULL sink only validates. */
struct sink {
  pld_accountant *acc;
  pld_rdp_curve *rdp;
};

static unsigned backends_of(const pld_event_ctx *c)
{
  return c->backends ? c->backends : PLD_EVENT_BACKEND_PLD;
}

void pld_event_owned_free(pld_event_owned *list)
{
  while (list) {
    pld_event_owned *next = list->next;
    list->release(list);
    list = next;
  }
}

void pld_event_owned_move(pld_event_owned **to, pld_event_owned **from)
{
  pld_event_owned **end = to;
  while (*end)
    end = &(*end)->next;
  *end = *from;
  *from = NULL;
}

void pld_event_ctx_release(pld_event_ctx *ctx)
{
  if (ctx == NULL)
    return;
  pld_event_owned_free(ctx->owned);
  ctx->owned = NULL;
}

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

/* The calibrate marker KEY=?: check it is allowed here and record it
 * (whether '?' may stand for this key is checked by solve_check, once the
 * event's other keys are known).  Returns a pld_event_rc; on success *val
 * points at the substituted text. */
static int take_marker(struct pstate *ps, const char *name, enum domain dom,
                       const char *qev, const char **val)
{
  pld_event_ctx *c = ps->ctx;
  if (c->subst == NULL) {
    snprintf(ps->err, ps->errlen, "%s=? in event %s: '?' marks the value to "
             "solve for and is only allowed in 'pldkit calibrate' (%s must "
             "be %s)", name, qev, name, ev_domain_text(dom));
    return PLD_EVENT_EUSAGE;
  }
  if (c->marks > 0) {
    snprintf(ps->err, ps->errlen, "a second '?' (%s=? in event %s): "
             "calibrate solves for exactly one value, and %s=? in event %s "
             "already marks it", name, qev, c->mark_key, c->mark_where);
    return PLD_EVENT_EUSAGE;
  }
  c->marks++;
  snprintf(c->mark_key, sizeof c->mark_key, "%s", name);
  snprintf(c->mark_where, sizeof c->mark_where, "%s", qev);
  if (strcmp(c->subst, PLD_EVENT_STANDIN) == 0)
    *val = dom == DOM_INT_GE2 ? "2" : "1";
  else
    *val = c->subst;
  return PLD_EVENT_OK;
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

/* Calibrate: event e (values v, defaults filled in) holds the marker; check
 * that its key can be solved for and record the search's direction and
 * domain.  Returns a pld_event_rc. */
static int solve_check(struct pstate *ps, const struct event_spec *e,
                       const struct value *v, const char *qev)
{
  pld_event_ctx *c = ps->ctx;
  int closed = e->closed && e->closed(v);
  char keys[200];
  if (strcmp(c->mark_key, "count") == 0) {
    if (closed) {
      char an[32];
      ev_choice_name(&e->keys[5], v[5].integer, an, sizeof an);
      snprintf(ps->err, ps->errlen, "count=? in event %s: analysis=%s is a "
               "closed-form single round and does not compose (count must "
               "be 1; analysis=wcs composes over rounds)", qev, an);
      return PLD_EVENT_EUSAGE;
    }
    c->mark_direction = MONO_LESS;
    c->mark_integer = 1;
    c->mark_lo = 1.0;
    c->mark_hi = (double)PLD_EVENT_MAX_COUNT;
    return PLD_EVENT_OK;
  }
  size_t k = 0;
  while (k < ev_n_keys(e) && strcmp(e->keys[k].name, c->mark_key) != 0)
    k++;
  if (k == ev_n_keys(e))
    return PLD_EVENT_OK; /* not reached: the marker was read from e's keys */
  const struct key_spec *ks = &e->keys[k];
  const char *why = e->no_solve ? e->no_solve(v, k) : NULL;
  if (why == NULL && ev_key_mono(ks) == MONO_NONE)
    why = "pldkit knows no monotone dependence of epsilon on it";
  if (why) {
    solvable_keys_of(e, v, keys, sizeof keys);
    snprintf(ps->err, ps->errlen, "%s=? in event %s: calibrate cannot solve "
             "for %s: %s (it solves for one key in which epsilon is "
             "monotone; in this event: %s)", ks->name, qev, ks->name, why,
             keys);
    return PLD_EVENT_EUSAGE;
  }
  c->mark_direction = ev_key_mono(ks);
  c->mark_integer = ks->dom == DOM_INT_GE1 || ks->dom == DOM_INT_GE2;
  /* The search doubles and halves: positive bounds, 1e-12 and 1e12 as for
   * noise scales (rates stop at 1). */
  c->mark_lo = c->mark_integer ? (ks->dom == DOM_INT_GE2 ? 2.0 : 1.0)
                               : 1e-12;
  c->mark_hi = ks->dom == DOM_RATE ? 1.0
               : c->mark_integer   ? (double)PLD_EVENT_MAX_COUNT
                                   : 1e12;
  if (ks->solve_hi > 0)
    c->mark_hi = ks->solve_hi;
  /* The closed forms depend on C/sigma only; the library's own calibration
   * floor is sigma = 1e-4 C (pld_participation_calibrate). */
  if (closed && strcmp(ks->name, "sigma") == 0)
    c->mark_lo = 1e-4 * v[3].real;
  if (closed && strcmp(ks->name, "C") == 0)
    c->mark_hi = 1e4 * v[4].real;
  return PLD_EVENT_OK;
}

/* Parse `val` for key `ks` into *v.  `qev` is the quoted event text for
 * messages.  Returns a pld_event_rc. */
static int parse_value(struct pstate *ps, const struct key_spec *ks,
                       char *val, struct value *v, const char *qev)
{
  char qv[QUOTE_LEN], dom[96];
  char *err = ps->err;
  size_t errlen = ps->errlen;
  ev_domain_phrase(ks, dom, sizeof dom);
  if (*val == '\0') {
    snprintf(err, errlen, "key '%s' has an empty value in event %s "
             "(%s must be %s)", ks->name, qev, ks->name, dom);
    return PLD_EVENT_EUSAGE;
  }
  if (strcmp(val, "?") == 0 && ps->ctx->subst &&
      (ks->dom == DOM_PROB_LIST || ks->dom == DOM_WEIGHT_LIST ||
       ks->dom == DOM_REAL_LIST || ks->dom == DOM_CHOICE ||
       ks->dom == DOM_PATH)) {
    snprintf(err, errlen, "%s=? in event %s: calibrate solves for one "
             "number, and %s is %s", ks->name, qev, ks->name, dom);
    return PLD_EVENT_EUSAGE;
  }
  switch (ks->dom) {
  case DOM_INT_GE1:
  case DOM_INT_GE2: {
    long long x = 0;
    const char *s = val;
    if (strcmp(val, "?") == 0) {
      int rc = take_marker(ps, ks->name, ks->dom, qev, &s);
      if (rc != PLD_EVENT_OK)
        return rc;
    }
    int r = pld_event_parse_int(s, ks->dom == DOM_INT_GE2 ? 2 : 1, INT64_MAX,
                              &x);
    if (r != PLD_EVENT_INT_OK) {
      snprintf(err, errlen, "%s=%s in event %s is %s (%s must be %s)",
               ks->name, pld_quote(qv, sizeof qv, s), qev,
               r == PLD_EVENT_INT_RANGE ? "out of range" : "not an integer",
               ks->name, dom);
      return PLD_EVENT_EUSAGE;
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
        snprintf(err, errlen, "%s=%s in event %s is not a known value (%s "
                 "must be %s)", ks->name, pld_quote(qv, sizeof qv, val),
                 qev, ks->name, dom);
        return PLD_EVENT_EUSAGE;
      }
      if (strcmp(word, val) == 0)
        break;
    }
    v->integer = i;
    v->real = (double)i;
    break;
  }
  case DOM_PATH:
    v->text = val;
    break;
  case DOM_PROB_LIST:
  case DOM_WEIGHT_LIST:
  case DOM_REAL_LIST: {
    size_t n = 1;
    for (const char *p = val; *p; p++)
      n += *p == ';';
    v->list = malloc(n * sizeof *v->list);
    if (v->list == NULL) {
      snprintf(err, errlen, "%s (while reading %s of event %s)",
               pld_strerror(PLD_ENOMEM), ks->name, qev);
      return PLD_EVENT_EFAIL;
    }
    char *item = val;
    for (size_t i = 0; i < n; i++) {
      char *semi = strchr(item, ';');
      if (semi)
        *semi = '\0';
      double x;
      if (*item == '\0') {
        snprintf(err, errlen, "%s has an empty entry (number %zu) in event "
                 "%s (%s must be %s)", ks->name, i + 1, qev, ks->name, dom);
        return PLD_EVENT_EUSAGE;
      }
      if (pld_event_parse_double(item, &x) != 0 || !in_domain(ks->dom, x)) {
        snprintf(err, errlen, "%s entry %s in event %s is %s (%s must be %s)",
                 ks->name, pld_quote(qv, sizeof qv, item), qev,
                 pld_event_parse_double(item, &x) != 0
                     ? "not a finite number"
                     : list_range_text(ks->dom, x),
                 ks->name, dom);
        return PLD_EVENT_EUSAGE;
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
      int rc = take_marker(ps, ks->name, ks->dom, qev, &s);
      if (rc != PLD_EVENT_OK)
        return rc;
    }
    if (pld_event_parse_double(s, &x) != 0 || !in_domain(ks->dom, x)) {
      snprintf(err, errlen, "%s=%s in event %s is %s (%s must be %s)",
               ks->name, pld_quote(qv, sizeof qv, s), qev,
               pld_event_parse_double(s, &x) != 0 ? "not a finite number"
                                                : "out of range",
               ks->name, dom);
      return PLD_EVENT_EUSAGE;
    }
    v->real = x;
    break;
  }
  }
  v->present = 1;
  return PLD_EVENT_OK;
}

static int parse_count(struct pstate *ps, const char *text, uint64_t *count,
                       const char *qev)
{
  char qv[QUOTE_LEN];
  long long x = 0;
  const char *val = text;
  if (strcmp(text, "?") == 0) {
    int rc = take_marker(ps, "count", DOM_INT_GE1, qev, &val);
    if (rc != PLD_EVENT_OK)
      return rc;
  }
  int r = *val ? pld_event_parse_int(val, 1, (long long)PLD_EVENT_MAX_COUNT, &x)
               : -1;
  if (r == PLD_EVENT_INT_OK) {
    *count = (uint64_t)x;
    return PLD_EVENT_OK;
  }
  if (r < 0)
    snprintf(ps->err, ps->errlen, "key 'count' has an empty value in event "
             "%s (count must be an integer from 1 to 2^53 = %llu)", qev,
             PLD_EVENT_MAX_COUNT);
  else
    snprintf(ps->err, ps->errlen, "count=%s in event %s is %s (count must be "
             "an integer from 1 to 2^53 = %llu)",
             pld_quote(qv, sizeof qv, val), qev,
             r == PLD_EVENT_INT_RANGE ? "out of range" : "not an integer",
             PLD_EVENT_MAX_COUNT);
  return PLD_EVENT_EUSAGE;
}

/* Parse the key=value items after the ':'.  `items` is modified in place. */
static int parse_items(struct pstate *ps, const struct event_spec *e,
                       char *items, struct value *vals, uint64_t *count,
                       const char *qev)
{
  char qk[QUOTE_LEN], allowed[160];
  char *err = ps->err;
  size_t errlen = ps->errlen;
  int have_count = 0;
  list_keys(e, allowed, sizeof allowed);
  if (*items == '\0') {
    snprintf(err, errlen, "event %s has nothing after ':' (expected "
             "key=value,...; %s takes %s)", qev, e->name, allowed);
    return PLD_EVENT_EUSAGE;
  }
  for (char *item = items; item;) {
    char *comma = strchr(item, ',');
    if (comma)
      *comma = '\0';
    char *eq = strchr(item, '=');
    if (*item == '\0') {
      snprintf(err, errlen, "event %s has an empty item (a stray ','; "
               "expected key=value with key one of %s)", qev, allowed);
      return PLD_EVENT_EUSAGE;
    }
    if (eq == NULL || eq == item) {
      snprintf(err, errlen, "%s in event %s is not of the form key=value "
               "(%s takes %s)", pld_quote(qk, sizeof qk, item), qev,
               e->name, allowed);
      return PLD_EVENT_EUSAGE;
    }
    *eq = '\0';
    char *val = eq + 1;
    int rc;
    if (strcmp(item, "count") == 0) {
      if (have_count) {
        snprintf(err, errlen, "key 'count' given twice in event %s", qev);
        return PLD_EVENT_EUSAGE;
      }
      have_count = 1;
      rc = parse_count(ps, val, count, qev);
    } else {
      size_t k = 0, nk = ev_n_keys(e);
      while (k < nk && strcmp(e->keys[k].name, item) != 0)
        k++;
      if (k == nk) {
        snprintf(err, errlen, "unknown key %s in event %s (%s takes %s)",
                 pld_quote(qk, sizeof qk, item), qev, e->name, allowed);
        return PLD_EVENT_EUSAGE;
      }
      if (vals[k].present) {
        snprintf(err, errlen, "key '%s' given twice in event %s",
                 e->keys[k].name, qev);
        return PLD_EVENT_EUSAGE;
      }
      rc = parse_value(ps, &e->keys[k], val, &vals[k], qev);
    }
    if (rc != PLD_EVENT_OK)
      return rc;
    item = comma ? comma + 1 : NULL;
  }
  return PLD_EVENT_OK;
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

static int parse_list(struct pstate *ps, char *text, const struct sink *sk,
                      unsigned depth);

/* The members of a selection: `body` is the text inside the brackets. */
static int parse_members(struct pstate *ps, const struct event_spec *e,
                         const struct value *vals, uint64_t count, char *body,
                         const struct sink *sk, unsigned depth,
                         const char *qev)
{
  size_t n = 1;
  for (char *p = find_sep(body, '|'); p; p = find_sep(p + 1, '|'))
    n++;
  if (*body == '\0') {
    snprintf(ps->err, ps->errlen, "event %s has an empty member list '[]' "
             "(expected [EVENT|EVENT|...], one member per weight)", qev);
    return PLD_EVENT_EUSAGE;
  }
  if (depth + 1 >= PLD_EVENT_MAX_DEPTH) {
    snprintf(ps->err, ps->errlen, "event %s nests random-selection deeper "
             "than %d levels", qev, PLD_EVENT_MAX_DEPTH);
    return PLD_EVENT_EUSAGE;
  }
  /* Empty members and the count first, before any work on them. */
  {
    size_t i = 0;
    char *m = body;
    for (;;) {
      char *bar = find_sep(m, '|');
      if (bar == m || (bar == NULL && *m == '\0')) {
        snprintf(ps->err, ps->errlen, "member %zu of %zu in event %s is "
                 "empty (each member is one or more EVENTs joined by '+', "
                 "members are separated by '|')", i + 1, n, qev);
        return PLD_EVENT_EUSAGE;
      }
      if (bar == NULL)
        break;
      m = bar + 1;
      i++;
    }
  }
  if (vals[0].len != n) {
    snprintf(ps->err, ps->errlen, "event %s has %zu weight%s but %zu "
             "member%s (%s needs one weight per member, in order)", qev,
             vals[0].len, vals[0].len == 1 ? "" : "s", n, n == 1 ? "" : "s",
             e->name);
    return PLD_EVENT_EUSAGE;
  }

  pld_accountant **members = calloc(n, sizeof *members);
  pld_rdp_curve **curves = calloc(n, sizeof *curves);
  pld_rdp_curve *sel = NULL;
  int rc = PLD_EVENT_OK;
  if (members == NULL || curves == NULL) {
    free(members);
    free(curves);
    snprintf(ps->err, ps->errlen, "%s (while reading the members of event "
             "%s)", pld_strerror(PLD_ENOMEM), qev);
    return PLD_EVENT_EFAIL;
  }
  char *m = body;
  for (size_t i = 0; i < n && rc == PLD_EVENT_OK; i++) {
    char *bar = find_sep(m, '|');
    struct sink member = {NULL, NULL};
    if (bar)
      *bar = '\0';
    if (sk) {
      int st = sk->acc ? pld_accountant_alloc(ps->ctx->params, &members[i])
                       : ev_rdp_zero_like(sk->rdp, &curves[i]);
      if (st != PLD_SUCCESS) {
        snprintf(ps->err, ps->errlen, "%s (while creating member %zu of "
                 "event %s)", pld_status_text(st), i + 1, qev);
        rc = pld_event_rc_of_status(st);
        break;
      }
      member.acc = members[i];
      member.rdp = curves[i];
    }
    rc = parse_list(ps, m, sk ? &member : NULL, depth + 1);
    m = bar ? bar + 1 : NULL;
  }
  if (rc == PLD_EVENT_OK && sk) {
    int st;
    if (sk->acc) {
      st = pld_accountant_add_selection(
          sk->acc, n, (const pld_accountant *const *)members, vals[0].list,
          count);
    } else {
      /* Model merging paper, Thm 5.1, then count-fold composition. */
      st = ev_rdp_zero_like(sk->rdp, &sel);
      if (st == PLD_SUCCESS)
        st = pld_rdp_random_selection(
            n, (const pld_rdp_curve *const *)curves, vals[0].list, sel);
      if (st == PLD_SUCCESS)
        st = pld_rdp_curve_compose(sk->rdp, sel, count);
    }
    if (st != PLD_SUCCESS) {
      if (st == PLD_EINVAL || st == PLD_EEMPTY) {
        snprintf(ps->err, ps->errlen, "event %s was rejected by the "
                 "library: %s", qev, pld_status_text(st));
        rc = PLD_EVENT_EUSAGE;
      } else {
        snprintf(ps->err, ps->errlen, "%s (while adding event %s)",
                 pld_status_text(st), qev);
        rc = pld_event_rc_of_status(st);
      }
    }
  }
  for (size_t i = 0; i < n; i++) {
    pld_accountant_free(members[i]);
    pld_rdp_curve_free(curves[i]);
  }
  pld_rdp_curve_free(sel);
  free(members);
  free(curves);
  return rc;
}

/* Record a closed-form event in the context (checks where it may be). */
static int take_closed(struct pstate *ps, const struct event_spec *e,
                       const struct value *vals, uint64_t count,
                       unsigned depth, const char *qev)
{
  char an[32];
  const struct key_spec *ks = &e->keys[5];
  ev_choice_name(ks, vals[5].integer, an, sizeof an);
  if (depth > 0) {
    snprintf(ps->err, ps->errlen, "analysis=%s in event %s is a closed-form "
             "single-round answer, not a mechanism: it cannot be a member of "
             "random-selection (use analysis=wcs or cs)", an, qev);
    return PLD_EVENT_EUSAGE;
  }
  if (count != 1) {
    snprintf(ps->err, ps->errlen, "count=%llu in event %s: analysis=%s is "
             "a closed-form single-round answer, and thm41 and ols do not "
             "compose (count must be 1; analysis=wcs composes over rounds)",
             (unsigned long long)count, qev, an);
    return PLD_EVENT_EUSAGE;
  }
  if (ps->ctx->closed.present || ps->ctx->top_events > 0) {
    snprintf(ps->err, ps->errlen, "analysis=%s in event %s is a closed-form "
             "single-round answer, and thm41 and ols do not compose: it must "
             "be the only EVENT (analysis=wcs composes)", an, qev);
    return PLD_EVENT_EUSAGE;
  }
  pld_event_closed *c = &ps->ctx->closed;
  c->present = 1;
  c->analysis = (int)vals[5].integer;
  c->p = vals[0].real;
  c->q = vals[1].real;
  c->d = (long long)vals[2].integer;
  c->C = vals[3].real;
  c->sigma = vals[4].real;
  c->count = (unsigned long long)count;
  snprintf(c->where, sizeof c->where, "%s", qev);
  return PLD_EVENT_OK;
}

/* A saved PLD (event pld:file=FILE): load it, then add it count times.  The
 * file is checked here, before the library reads it, so that the message can
 * say why it cannot be opened and so that no parse ever blocks on a FIFO or
 * a device. */
static int add_dist(struct pstate *ps, const char *path, uint64_t count,
                    const struct sink *sk, const char *qev)
{
  char qp[QUOTE_LEN];
  struct stat sb;
  pld_quote(qp, sizeof qp, path);
  if (stat(path, &sb) != 0) {
    snprintf(ps->err, ps->errlen, "cannot open the PLD file %s of event %s: "
             "%s", qp, qev, strerror(errno));
    return PLD_EVENT_EUSAGE;
  }
  if (!S_ISREG(sb.st_mode)) {
    snprintf(ps->err, ps->errlen, "the PLD file %s of event %s is not a "
             "regular file", qp, qev);
    return PLD_EVENT_EUSAGE;
  }
  pld_dist *d = NULL;
  const pld_params *cap = ps->ctx->params;
  /* --max-grid covers loaded files too: refused before they are read */
  int st = cap ? pld_dist_load_capped(path, cap->max_grid, &d)
               : pld_dist_load(path, &d);
  if (st == PLD_ERANGE && cap) {
    /* the detail names the cap that refused it: the grid's (--max-grid) or
     * the history's */
    const char *why = pld_error_detail();
    int grid = strstr(why, "max_grid") != NULL;
    snprintf(ps->err, ps->errlen, "the PLD file %s of event %s was refused "
             "unread: %s%s", qp, qev, why[0] ? why : "a declared size is "
             "over its cap", grid ? " (a larger --max-grid loads it)" : "");
    return PLD_EVENT_EUSAGE;
  }
  if (st != PLD_SUCCESS) {
    if (st == PLD_ENOMEM) {
      snprintf(ps->err, ps->errlen, "%s (while loading the PLD file %s of "
               "event %s)", pld_status_text(st), qp, qev);
      return pld_event_rc_of_status(st);
    }
    snprintf(ps->err, ps->errlen, "the PLD file %s of event %s was refused: "
             "%s", qp, qev, pld_status_text(st));
    return PLD_EVENT_EUSAGE;
  }
  double g = pld_dist_discretization(d);
  const pld_params *pp = ps->ctx->params;
  int rc = PLD_EVENT_OK;
  if (pp && pp->discretization > 0 && pp->discretization != g) {
    snprintf(ps->err, ps->errlen, "the PLD file %s of event %s is on the "
             "grid %.17g, not the --discretization %.17g (leave "
             "--discretization out, or give the file's)", qp, qev, g,
             pp->discretization);
    rc = PLD_EVENT_EUSAGE;
  } else if (sk && sk->acc) {
    st = pld_accountant_add_dist(sk->acc, d, count);
    if (st == PLD_EINCOMPAT) {
      snprintf(ps->err, ps->errlen, "the PLD file %s of event %s is on the "
               "grid %.17g, unlike another PLD file of the composition (all "
               "must share one grid step)", qp, qev, g);
      rc = PLD_EVENT_EUSAGE;
    } else if (st != PLD_SUCCESS) {
      snprintf(ps->err, ps->errlen, "%s (while adding event %s)",
               pld_status_text(st), qev);
      rc = pld_event_rc_of_status(st);
    }
  } else if (sk && sk->rdp && ps->ctx->no_bridge) {
    snprintf(ps->err, ps->errlen, "event %s has no RDP formula", qev);
    rc = PLD_EVENT_EFAIL;
  } else if (sk && sk->rdp) {
    pld_rdp_curve *one = NULL;
    st = ev_rdp_zero_like(sk->rdp, &one);
    if (st == PLD_SUCCESS)
      st = pld_rdp_of_pld(d, one);
    if (st == PLD_SUCCESS)
      st = pld_rdp_curve_compose(sk->rdp, one, count);
    pld_rdp_curve_free(one);
    ps->ctx->bridged++;
    if (st != PLD_SUCCESS) {
      snprintf(ps->err, ps->errlen, "%s (while computing the RDP of event "
               "%s)", pld_status_text(st), qev);
      rc = pld_event_rc_of_status(st);
    }
  }
  pld_dist_free(d);
  return rc;
}

/* The keys of event e: its items (NULL: none), the defaults, calibrate's
 * marker and the event's cross-key check.  Returns a pld_event_rc. */
static int parse_keys(struct pstate *ps, const struct event_spec *e,
                      char *items, struct value *vals, uint64_t *count,
                      const char *qev)
{
  char why[240];
  unsigned marks0 = ps->ctx->marks;
  if (items) {
    int rc = parse_items(ps, e, items, vals, count, qev);
    if (rc != PLD_EVENT_OK)
      return rc;
  }
  for (size_t k = 0; k < ev_n_keys(e); k++) {
    const struct key_spec *ks = &e->keys[k];
    char dom[96];
    if (vals[k].present)
      continue;
    if (ks->required) {
      ev_domain_phrase(ks, dom, sizeof dom);
      snprintf(ps->err, ps->errlen, "event %s is missing the required key "
               "'%s' (%s, %s)", qev, ks->name, ks->meaning, dom);
      return PLD_EVENT_EUSAGE;
    }
    vals[k].real = ks->def;
    vals[k].integer = (int64_t)ks->def;
  }
  if (ps->ctx->marks > marks0) {
    int rc = solve_check(ps, e, vals, qev);
    if (rc != PLD_EVENT_OK)
      return rc;
  }
  if (e->check && e->check(vals, why, sizeof why)) {
    snprintf(ps->err, ps->errlen, "event %s: %s", qev, why);
    return PLD_EVENT_EUSAGE;
  }
  return PLD_EVENT_OK;
}

/* The member of poisson-sampled:q=Q[MEMBER] (`body`, the text inside the
 * brackets): exactly one EVENT whose table entry builds one pld_mech, with
 * count 1.  On success *out is its entry and mvals its values (the caller
 * frees their lists).  Returns a pld_event_rc. */
static int parse_subsample_member(struct pstate *ps, char *body,
                                  const struct event_spec **out,
                                  struct value *mvals, const char *qev)
{
  char qm[QUOTE_LEN], names[512];
  char *err = ps->err;
  size_t errlen = ps->errlen;
  if (*body == '\0') {
    snprintf(err, errlen, "event %s has an empty member '[]' (expected "
             "poisson-sampled:q=Q[EVENT], one mechanism EVENT in brackets)",
             qev);
    return PLD_EVENT_EUSAGE;
  }
  pld_quote(qm, sizeof qm, body);
  if (find_sep(body, '|')) {
    snprintf(err, errlen, "event %s has several members: poisson-sampled "
             "subsamples exactly one mechanism EVENT (no '|'; to subsample "
             "a random selection, select among poisson-sampled events)",
             qev);
    return PLD_EVENT_EUSAGE;
  }
  if (find_sep(body, '+')) {
    snprintf(err, errlen, "the member %s of event %s is a list of EVENTs "
             "joined by '+': poisson-sampled subsamples exactly one "
             "mechanism EVENT (subsample each one, or use count=N before "
             "'[')", qm, qev);
    return PLD_EVENT_EUSAGE;
  }
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
    snprintf(err, errlen, "unknown event %s as the member of %s (allowed: "
             "%s)", pld_quote(qn, sizeof qn, name), qev, names);
    return PLD_EVENT_EUSAGE;
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
  if (why) {
    snprintf(err, errlen, "event %s cannot be the member of %s: %s", qm, qev,
             why);
    return PLD_EVENT_EUSAGE;
  }
  if (items)
    *items++ = '\0';
  uint64_t count = 1;
  unsigned marks0 = ps->ctx->marks;
  int rc = parse_keys(ps, me, items, mvals, &count, qm);
  if (rc != PLD_EVENT_OK)
    return rc;
  if (count != 1 || (ps->ctx->marks > marks0 &&
                     strcmp(ps->ctx->mark_key, "count") == 0)) {
    snprintf(err, errlen, "the member %s of event %s has a count: "
             "poisson-sampled subsamples one run of one mechanism (count=N "
             "before '[' composes N subsampled steps)", qm, qev);
    return PLD_EVENT_EUSAGE;
  }
  if (me->closed && me->closed(mvals)) {
    snprintf(err, errlen, "the member %s of event %s is a closed-form "
             "single-round answer, not a mechanism (use analysis=wcs or cs)",
             qm, qev);
    return PLD_EVENT_EUSAGE;
  }
  const char *no_pld = me->no_pld ? me->no_pld(mvals) : NULL;
  if (no_pld) {
    snprintf(err, errlen, "the member %s of event %s has no PLD mechanism "
             "to subsample: %s", qm, qev, no_pld);
    return PLD_EVENT_EUSAGE;
  }
  if (me->note && me->note(mvals))
    ps->ctx->note = me->note(mvals);
  /* as in parse_one: centralized sampling is a lower limit of the worst
   * case, and so is its subsampling (issue 16) */
  if (me->note == ev_note_participation && mvals[5].integer == AN_CS)
    ps->ctx->not_bound = "lower_limit";
  *out = me;
  return PLD_EVENT_OK;
}

/* Parse one EVENT (brackets balanced) and add it to acc (NULL: validate). */
static int parse_one(struct pstate *ps, char *text, const struct sink *sk,
                     unsigned depth)
{
  char qev[QUOTE_LEN], names[512];
  struct value vals[MAX_KEYS];
  const struct event_spec *me = NULL; /* poisson-sampled: its member */
  double sub_q = 1.0;                 /* and its rate */
  const struct event_spec *e = NULL;
  pld_mech *mech = NULL;
  pld_event_owned *own = NULL;
  uint64_t count = 1;
  char *body = NULL;
  char *err = ps->err;
  size_t errlen = ps->errlen;
  int rc = PLD_EVENT_EUSAGE;

  memset(vals, 0, sizeof vals);
  pld_quote(qev, sizeof qev, text);
  ev_list_event_names(names, sizeof names);

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
      snprintf(err, errlen, "event %s has text %s after the ']' that closes "
               "its member list (the member list must end the event; count=N "
               "goes before '[')", qev,
               pld_quote(qt, sizeof qt, *close ? close + 1 : close));
      goto done;
    }
    *open = '\0';
    *close = '\0';
    body = open + 1;
  }

  char *items = strchr(text, ':');
  if (items)
    *items++ = '\0';
  if (*text == '\0') {
    snprintf(err, errlen, "event %s has no name (expected NAME:key=value,... "
             "with NAME one of %s)", qev, names);
    goto done;
  }
  e = ev_find_event(text);
  if (e == NULL) {
    char qn[QUOTE_LEN];
    snprintf(err, errlen, "unknown event %s in %s (allowed: %s)",
             pld_quote(qn, sizeof qn, text), qev, names);
    goto done;
  }
  if (body && e->kind != KIND_SELECTION && e->kind != KIND_SUBSAMPLE) {
    snprintf(err, errlen, "event %s: %s takes no member list '[...]' (only "
             "random-selection and poisson-sampled do)", qev, e->name);
    goto done;
  }
  if (!body && e->kind == KIND_SELECTION) {
    snprintf(err, errlen, "event %s has no member list: write %s:weights="
             "W1;W2[EVENT|EVENT] (members in brackets, separated by '|')",
             qev, e->name);
    goto done;
  }
  if (!body && e->kind == KIND_SUBSAMPLE) {
    snprintf(err, errlen, "event %s has no member: write %s:q=Q[EVENT] (the "
             "one mechanism EVENT to subsample, in brackets)", qev, e->name);
    goto done;
  }
  rc = parse_keys(ps, e, items, vals, &count, qev);
  if (rc != PLD_EVENT_OK)
    goto done;
  rc = PLD_EVENT_EUSAGE;

  unsigned backends = backends_of(ps->ctx);
  if (e->closed && e->closed(vals)) {
    if ((backends & PLD_EVENT_BACKEND_RDP) || (sk && sk->rdp)) {
      char an[32];
      ev_choice_name(&e->keys[5], vals[5].integer, an, sizeof an);
      snprintf(err, errlen, "analysis=%s in event %s is a closed-form "
               "single-round answer with no RDP curve: use --backend pld "
               "(analysis=wcs and cs work with every backend)", an, qev);
      goto done;
    }
    rc = take_closed(ps, e, vals, count, depth, qev);
    goto done_counted;
  }
  if (depth == 0 && ps->ctx->closed.present) {
    snprintf(err, errlen, "event %s cannot be composed with the closed-form "
             "single-round answer %s (it must be the only EVENT)", qev,
             ps->ctx->closed.where);
    goto done;
  }
  const char *no_pld = e->no_pld ? e->no_pld(vals) : NULL;
  if (no_pld && ((backends & PLD_EVENT_BACKEND_PLD) || (sk && sk->acc))) {
    snprintf(err, errlen, "event %s needs --backend rdp: %s (--backend rdp "
             "works with 'pldkit epsilon', 'pldkit delta' and 'pldkit "
             "calibrate', and 'pldkit rdp-curve' prints the RDP curve)", qev,
             no_pld);
    goto done;
  }

  if (e->note && e->note(vals))
    ps->ctx->note = e->note(vals);
  /* centralized sampling is a lower limit of the worst case: no answer
   * composed with it is a bound (issue 16) */
  if (e->note == ev_note_participation && vals[5].integer == AN_CS)
    ps->ctx->not_bound = "lower_limit";
  if (e->kind == KIND_SELECTION) {
    rc = parse_members(ps, e, vals, count, body, sk, depth, qev);
    goto done_counted;
  }
  if (e->kind == KIND_SUBSAMPLE) {
    /* From here on the event is its member's mechanism, Poisson-subsampled
     * at sub_q after it is built (the outer event has no lists to free). */
    sub_q = vals[0].real;
    memset(vals, 0, sizeof vals);
    rc = parse_subsample_member(ps, body, &me, vals, qev);
    if (rc != PLD_EVENT_OK)
      goto done;
    rc = PLD_EVENT_EUSAGE;
    e = me;
  }
  /* The RDP formula, if any: q = 1 is the member itself; a Gaussian member
   * is exactly poisson-gaussian (same curve, Mironov, Talwar, Zhang 2019);
   * other subsampled members go through the bridge. */
  rdp_fn rdp = e->rdp;
  const struct value *rdp_vals = vals;
  struct value pg[3];
  if (me && sub_q < 1.0) {
    rdp = NULL;
    if (me->build == ev_build_gaussian) {
      memset(pg, 0, sizeof pg);
      pg[0].real = sub_q;
      pg[1] = vals[0];
      pg[2] = vals[1];
      rdp = ev_rdp_poisson_gaussian;
      rdp_vals = pg;
    }
  }
  if (e->kind == KIND_DIST && ps->files) {
    file_list_add(ps->files, vals[0].text, count, depth);
    rc = PLD_EVENT_OK;
    goto done_counted;
  }
  if (e->kind == KIND_DIST) {
    rc = add_dist(ps, vals[0].text, count, sk, qev);
    goto done_counted;
  }
  if (ps->files) { /* the keys are read and checked: nothing to build */
    rc = PLD_EVENT_OK;
    goto done_counted;
  }

  /* The mechanism (PLD), unless only an RDP formula is wanted. */
  int st;
  int added = 0;
  if (!no_pld && e->add && sk && sk->acc) {
    st = e->add(vals, sk->acc, count);
    if (st != PLD_SUCCESS) {
      /* pld_status_text: the detail too, where the library recorded one */
      if (st == PLD_EINVAL) {
        snprintf(err, errlen, "event %s was rejected by the library: %s",
                 qev, pld_status_text(st));
      } else {
        snprintf(err, errlen, "%s (while adding event %s)",
                 pld_status_text(st), qev);
        rc = PLD_EVENT_EFAIL;
      }
      goto done;
    }
    added = 1;
  }
  if (!no_pld && e->build && !(sk && sk->rdp && rdp)) {
    st = e->build(vals, &mech, &own);
    if (st == PLD_SUCCESS && me && sub_q < 1.0) {
      /* Zhu, Dong, Wang 2022, Prop. 30 (add/remove, both directions) */
      pld_mech *sub = NULL;
      st = pld_mech_poisson(mech, sub_q, &sub);
      pld_mech_free(mech);
      mech = sub;
    }
    if (st != PLD_SUCCESS) {
      /* Our checks mirror the documented domains, so an EINVAL here means
       * the library knows a limit we do not: still the user's input,
       * hence 2. */
      if (st == PLD_EINVAL) {
        snprintf(err, errlen, "event %s was rejected by the library: %s",
                 qev, pld_status_text(st));
      } else {
        snprintf(err, errlen, "%s (while building event %s)",
                 pld_status_text(st), qev);
        rc = pld_event_rc_of_status(st);
      }
      goto done;
    }
  }
  if (sk && sk->acc && added) {
    /* done above */
  } else if (sk && sk->acc) {
    /* The accountant will hold copies of mech that use own's context. */
    if (own && ps->local_ctx) {
      snprintf(err, errlen, "event %s cannot be added without a parse "
               "context that keeps its mechanism alive", qev);
      rc = PLD_EVENT_EFAIL;
      goto done;
    }
    st = pld_accountant_add(sk->acc, mech, count);
    if (st != PLD_SUCCESS) {
      snprintf(err, errlen, "%s (while adding event %s)", pld_status_text(st),
               qev);
      rc = pld_event_rc_of_status(st);
      goto done;
    }
    if (own) {
      own->next = ps->ctx->owned;
      ps->ctx->owned = own;
      own = NULL;
    }
  } else if (sk && sk->rdp) {
    /* the lower curve only at the top level, where curves add (count-fold
     * and across events, both monotone); a selection's combination of its
     * members is not needed to be monotone */
    if (rdp && rdp == e->rdp && e->rdp_lower && ps->ctx->rdp_lower &&
        depth == 0) {
      if (ps->ctx->rdp_lower >= 2 && e->rdp_lower2) {
        st = e->rdp_lower2(rdp_vals, sk->rdp, count);
        lowered2++;
      } else {
        st = e->rdp_lower(rdp_vals, sk->rdp, count);
      }
      ps->ctx->lowered++;
    } else if (rdp) {
      st = rdp(rdp_vals, sk->rdp, count);
    } else if (ps->ctx->no_bridge) {
      st = PLD_EUNSUPPORTED;
    } else {
      st = mech ? ev_rdp_bridge(mech, ps->ctx->params, count, sk->rdp)
                : PLD_EUNSUPPORTED; /* not reached: the table has no such
                                       event */
      ps->ctx->bridged++;
    }
    if (st != PLD_SUCCESS) {
      if (st == PLD_EINVAL) {
        snprintf(err, errlen, "event %s was rejected by the library's RDP "
                 "backend: %s", qev, pld_status_text(st));
      } else {
        snprintf(err, errlen, "%s (while computing the RDP of event %s%s)",
                 pld_status_text(st), qev,
                 st == PLD_ERANGE ? "; fewer or smaller --orders, or a "
                                    "coarser --discretization, may help"
                                  : "");
        rc = pld_event_rc_of_status(st);
      }
      goto done;
    }
  }
  rc = PLD_EVENT_OK;

done_counted:
  if (rc == PLD_EVENT_OK && depth == 0)
    ps->ctx->top_events++;
done:
  pld_mech_free(mech);
  pld_event_owned_free(own);
  for (size_t k = 0; k < MAX_KEYS; k++)
    free(vals[k].list);
  return rc;
}

/* A LIST: EVENTs joined by '+' (brackets balanced). */
static int parse_list(struct pstate *ps, char *text, const struct sink *sk,
                      unsigned depth)
{
  char ql[QUOTE_LEN];
  pld_quote(ql, sizeof ql, text);
  for (char *ev = text;;) {
    char *plus = find_sep(ev, '+');
    if (plus)
      *plus = '\0';
    if (*ev == '\0' && (plus || ev != text)) {
      snprintf(ps->err, ps->errlen, "an empty EVENT %s '+' in %s (EVENTs "
               "are joined by '+', e.g. gaussian:sigma=2+laplace:b=3)",
               plus ? "before" : "after", ql);
      return PLD_EVENT_EUSAGE;
    }
    int rc = parse_one(ps, ev, sk, depth);
    if (rc != PLD_EVENT_OK)
      return rc;
    if (plus == NULL)
      return PLD_EVENT_OK;
    ev = plus + 1;
  }
}

/* Brackets balanced and '|' only inside them.  Returns a pld_event_rc. */
static int check_brackets(const char *text, const char *qtext, char *err,
                          size_t errlen)
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
        snprintf(err, errlen, "unbalanced brackets in %s: the ']' at "
                 "character %zu has no '[' before it", qtext, i + 1);
        return PLD_EVENT_EUSAGE;
      }
      depth--;
    } else if (c == '|' && depth == 0) {
      snprintf(err, errlen, "the '|' at character %zu of %s is outside "
               "brackets ('|' separates the members of "
               "random-selection:weights=...[MEMBER|MEMBER])", i + 1, qtext);
      return PLD_EVENT_EUSAGE;
    }
  }
  if (depth > 0) {
    snprintf(err, errlen, "unbalanced brackets in %s: %d '[' never closed "
             "(the outermost one at character %zu)", qtext, depth,
             last_open + 1);
    return PLD_EVENT_EUSAGE;
  }
  return PLD_EVENT_OK;
}

static int parse_event(const char *text, pld_event_ctx *ctx,
                       const struct sink *sk, struct file_list *files,
                       char *err, size_t errlen)
{
  char dummy[8], qtext[QUOTE_LEN];
  pld_event_ctx local;
  struct pstate ps;

  if (err == NULL || errlen == 0) {
    err = dummy;
    errlen = sizeof dummy;
  }
  err[0] = '\0';
  ps.local_ctx = ctx == NULL;
  if (ctx == NULL) {
    memset(&local, 0, sizeof local);
    ctx = &local;
  }
  if (text == NULL) {
    snprintf(err, errlen, "no EVENT text");
    return PLD_EVENT_EUSAGE;
  }
  ps.ctx = ctx;
  ps.err = err;
  ps.errlen = errlen;
  ps.files = files;
  pld_quote(qtext, sizeof qtext, text);
  int rc = check_brackets(text, qtext, err, errlen);
  if (rc != PLD_EVENT_OK)
    return rc;

  size_t len = strlen(text);
  char *buf = malloc(len + 1);
  if (buf == NULL) {
    snprintf(err, errlen, "%s (while reading event %s)",
             pld_strerror(PLD_ENOMEM), qtext);
    return PLD_EVENT_EFAIL;
  }
  memcpy(buf, text, len + 1);
  rc = parse_list(&ps, buf, sk, 0);
  free(buf);
  return rc;
}

/* One EVENT argument is one update, all or nothing: its events go into a
 * scratch accountant (curve), merged into the caller's only when all of
 * them parsed and built.  A list that fails at its third item must not leave
 * its first two recorded: the caller, told it failed, would fix the text and
 * add them again, or give up on a run that happened. */
static int scratch_failed(int st, char *err, size_t errlen)
{
  if (err && errlen)
    snprintf(err, errlen, "%s (while recording the event)",
             pld_status_text(st));
  return pld_event_rc_of_status(st);
}

int pld_event_parse(const char *text, pld_event_ctx *ctx,
                        pld_accountant *acc, char *err, size_t errlen)
{
  if (!acc)
    return parse_event(text, ctx, NULL, NULL, err, errlen);
  pld_params prm;
  pld_accountant *scratch = NULL;
  int st = pld_accountant_get_params(acc, &prm);
  if (st == PLD_SUCCESS)
    st = pld_accountant_alloc(&prm, &scratch);
  if (st != PLD_SUCCESS)
    return scratch_failed(st, err, errlen);
  struct sink sk = {scratch, NULL};
  int rc = parse_event(text, ctx, &sk, NULL, err, errlen);
  if (rc == PLD_EVENT_OK && (st = pld_accountant_merge(acc, scratch))) {
    rc = scratch_failed(st, err, errlen);
    if (st == PLD_EINCOMPAT && err && errlen) { /* the user's input */
      char q[QUOTE_LEN];
      pld_quote(q, sizeof q, text);
      snprintf(err, errlen, "a PLD file of event %s is on a grid step "
               "unlike another PLD file of the composition (all must share "
               "one grid step)", q);
      rc = PLD_EVENT_EUSAGE;
    }
  }
  pld_accountant_free(scratch);
  return rc;
}

int pld_event_parse_rdp(const char *text, pld_event_ctx *ctx,
                            pld_rdp_curve *curve, char *err, size_t errlen)
{
  if (!curve)
    return parse_event(text, ctx, NULL, NULL, err, errlen);
  pld_rdp_curve *scratch = NULL;
  int st = ev_rdp_zero_like(curve, &scratch);
  if (st != PLD_SUCCESS)
    return scratch_failed(st, err, errlen);
  struct sink sk = {NULL, scratch};
  int rc = parse_event(text, ctx, &sk, NULL, err, errlen);
  if (rc == PLD_EVENT_OK && (st = pld_rdp_curve_compose(curve, scratch, 1)))
    rc = scratch_failed(st, err, errlen);
  pld_rdp_curve_free(scratch);
  return rc;
}

void pld_event_files_free(pld_event_file *files, size_t n)
{
  if (!files)
    return;
  for (size_t i = 0; i < n; i++)
    free(files[i].path);
  free(files);
}

int pld_event_files(const char *text, pld_event_file **out, size_t *n)
{
  pld_detail_clear();
  if (!text || !out || !n)
    return pld_fail(PLD_EINVAL, "pld_event_files: text, out and n must not "
                    "be NULL");
  char err[1024];
  pld_event_ctx ctx;
  memset(&ctx, 0, sizeof ctx);
  struct file_list fl = {NULL, 0, 0, 0};
  int rc = parse_event(text, &ctx, NULL, &fl, err, sizeof err);
  pld_event_ctx_release(&ctx);
  if (rc == PLD_EVENT_OK && fl.nomem) {
    rc = PLD_EVENT_EFAIL;
    snprintf(err, sizeof err, "while listing the PLD files of an EVENT");
  }
  if (rc != PLD_EVENT_OK) {
    pld_event_files_free(fl.v, fl.n);
    return pld_fail(rc == PLD_EVENT_EUSAGE ? PLD_EINVAL : PLD_ENOMEM, "%s",
                    err);
  }
  /* alone: the one event at the top level of the text */
  for (size_t i = 0; i < fl.n; i++)
    fl.v[i].alone = fl.v[i].alone && ctx.top_events == 1;
  *out = fl.v;
  *n = fl.n;
  return PLD_SUCCESS;
}
