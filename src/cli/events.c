/* pldkit CLI: the EVENT parser.
 *
 * Everything an event is lives in the table `events` below: its name, its
 * keys (domain, whether required, default, meaning, all of which also feed
 * --help) and a one-line adapter to its constructor in <pldkit/mech.h>.  A new
 * event is one table entry plus, if it needs them, an adapter and a
 * cross-key check.  Events whose values have more structure (bracketed member
 * lists) will need a VALUE grammar richer than "up to the next ','"; the
 * item splitting in parse_items is the one place to extend.
 */
#include "events.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <pldkit/mech.h>

#include "output.h"

#define MAX_KEYS 4
#define QUOTE_LEN 96

enum domain {
  DOM_POSITIVE,    /* finite, > 0 */
  DOM_NONNEGATIVE, /* finite, >= 0 */
  DOM_RATE,        /* (0, 1] */
  DOM_INT_GE1,     /* integer >= 1 */
  DOM_INT_GE2,     /* integer >= 2 */
  DOM_PROB_LIST    /* ';'-separated values in [0, 1] */
};

struct key_spec {
  const char *name;
  enum domain dom;
  int required;
  double def; /* used when !required */
  const char *meaning;
};

/* A parsed value; `real` is also set for integer keys. */
struct value {
  int present;
  double real;
  int64_t integer;
  size_t len;   /* DOM_PROB_LIST */
  double *list; /* DOM_PROB_LIST, owned */
};

/* Build the mechanism from values given in the order of the spec's keys;
 * returns a pld_status. */
typedef int (*build_fn)(const struct value *v, pld_mech **out);

/* Checks that involve several keys; returns non-zero and fills why. */
typedef int (*check_fn)(const struct value *v, char *why, size_t n);

struct event_spec {
  const char *name;
  const char *summary;
  build_fn build;
  check_fn check; /* may be NULL */
  struct key_spec keys[MAX_KEYS]; /* ends at the first name == NULL */
};

/* ------------------------------------------------------------------------ */
/* Adapters to <pldkit/mech.h>; indices follow the key order in the table.   */

static int build_gaussian(const struct value *v, pld_mech **out)
{
  return pld_mech_gaussian(v[0].real, v[1].real, out);
}

static int build_laplace(const struct value *v, pld_mech **out)
{
  return pld_mech_laplace(v[0].real, v[1].real, out);
}

static int build_discrete_laplace(const struct value *v, pld_mech **out)
{
  return pld_mech_discrete_laplace(v[0].real, v[1].integer, out);
}

static int build_discrete_gaussian(const struct value *v, pld_mech **out)
{
  return pld_mech_discrete_gaussian(v[0].real, v[1].integer, out);
}

static int build_randomized_response(const struct value *v, pld_mech **out)
{
  return pld_mech_randomized_response(v[0].real, v[1].integer, out);
}

static int build_poisson_gaussian(const struct value *v, pld_mech **out)
{
  return pld_mech_poisson_gaussian(v[0].real, v[1].real, v[2].real, out);
}

static int build_poisson_laplace(const struct value *v, pld_mech **out)
{
  return pld_mech_poisson_laplace(v[0].real, v[1].real, v[2].real, out);
}

static int build_finite(const struct value *v, pld_mech **out)
{
  return pld_mech_finite(v[0].len, v[0].list, v[1].list, out);
}

/* Matches the library's tolerance (mech.h: "summing to 1 within 1e-9"), so
 * that the CLI rejects with a precise message what the library would reject
 * with a bare PLD_EINVAL. */
#define FINITE_SUM_TOL 1e-9

static int check_finite(const struct value *v, char *why, size_t n)
{
  if (v[0].len != v[1].len) {
    snprintf(why, n, "p and q must have the same number of entries "
             "(p has %zu, q has %zu)", v[0].len, v[1].len);
    return 1;
  }
  for (int k = 0; k < 2; k++) {
    double s = 0.0;
    for (size_t i = 0; i < v[k].len; i++)
      s += v[k].list[i];
    if (!(fabs(s - 1.0) <= FINITE_SUM_TOL)) {
      char sum[40];
      pld_cli_fmt(sum, sizeof sum, s, 12);
      snprintf(why, n, "%s sums to %s (the entries of p and of q must each "
               "sum to 1 within 1e-9)", k ? "q" : "p", sum);
      return 1;
    }
  }
  return 0;
}

/* ------------------------------------------------------------------------ */
/* The table.                                                                */

static const struct event_spec events[] = {
  {"gaussian", "Gaussian mechanism: N(0, sigma^2) noise on a query",
   build_gaussian, NULL,
   {{"sigma", DOM_POSITIVE, 1, 0, "noise standard deviation"},
    {"sensitivity", DOM_POSITIVE, 0, 1, "L2 sensitivity of the query"}}},
  {"laplace", "Laplace mechanism: Laplace(b) noise on a query",
   build_laplace, NULL,
   {{"b", DOM_POSITIVE, 1, 0, "noise scale"},
    {"sensitivity", DOM_POSITIVE, 0, 1, "L1 sensitivity of the query"}}},
  {"discrete-laplace",
   "discrete Laplace mechanism: integer noise, P(k) ~ exp(-|k|/scale)",
   build_discrete_laplace, NULL,
   {{"scale", DOM_POSITIVE, 1, 0, "noise scale"},
    {"sensitivity", DOM_INT_GE1, 0, 1, "integer sensitivity"}}},
  {"discrete-gaussian",
   "discrete Gaussian mechanism: integer noise, P(k) ~ exp(-k^2/(2 sigma^2))",
   build_discrete_gaussian, NULL,
   {{"sigma", DOM_POSITIVE, 1, 0, "noise parameter"},
    {"sensitivity", DOM_INT_GE1, 0, 1, "integer sensitivity"}}},
  {"randomized-response",
   "k-ary randomized response, replace-one adjacency: report the true value "
   "with probability e^epsilon/(e^epsilon+k-1), else another one uniformly",
   build_randomized_response, NULL,
   {{"epsilon", DOM_NONNEGATIVE, 1, 0, "epsilon0 of one response (nats)"},
    {"k", DOM_INT_GE2, 1, 0, "number of possible values"}}},
  {"poisson-gaussian",
   "Poisson-subsampled Gaussian (DP-SGD step), add/remove adjacency",
   build_poisson_gaussian, NULL,
   {{"q", DOM_RATE, 1, 0, "sampling rate per step"},
    {"sigma", DOM_POSITIVE, 1, 0, "noise standard deviation"},
    {"sensitivity", DOM_POSITIVE, 0, 1, "L2 sensitivity (clipping norm)"}}},
  {"poisson-laplace", "Poisson-subsampled Laplace, add/remove adjacency",
   build_poisson_laplace, NULL,
   {{"q", DOM_RATE, 1, 0, "sampling rate per step"},
    {"b", DOM_POSITIVE, 1, 0, "noise scale"},
    {"sensitivity", DOM_POSITIVE, 0, 1, "L1 sensitivity"}}},
  {"finite",
   "an arbitrary pair of finite output distributions P (with the record) "
   "and Q (without), e.g. finite:p=0.5;0.5,q=0.25;0.75",
   build_finite, check_finite,
   {{"p", DOM_PROB_LIST, 1, 0, "probabilities of the outcomes under P"},
    {"q", DOM_PROB_LIST, 1, 0, "probabilities of the same outcomes under Q"}}},
};

#define N_EVENTS (sizeof events / sizeof events[0])

static const char *domain_text(enum domain d)
{
  switch (d) {
  case DOM_POSITIVE:
    return "> 0";
  case DOM_NONNEGATIVE:
    return ">= 0";
  case DOM_RATE:
    return "in (0, 1]";
  case DOM_INT_GE1:
    return "an integer >= 1";
  case DOM_INT_GE2:
    return "an integer >= 2";
  case DOM_PROB_LIST:
    return "';'-separated probabilities in [0, 1] summing to 1";
  }
  return "?";
}

static size_t n_keys(const struct event_spec *e)
{
  size_t n = 0;
  while (n < MAX_KEYS && e->keys[n].name)
    n++;
  return n;
}

void pld_cli_events_help(FILE *f)
{
  char head[32], text[256];
  fputs("EVENTS (NAME:key=value,key=value,...; several EVENTs compose):\n", f);
  for (size_t i = 0; i < N_EVENTS; i++) {
    const struct event_spec *e = &events[i];
    fprintf(f, "  %s\n", e->name);
    pld_cli_wrap(f, "", 6, e->summary);
    for (size_t k = 0; k < n_keys(e); k++) {
      const struct key_spec *ks = &e->keys[k];
      char def[48];
      if (ks->required)
        snprintf(def, sizeof def, "required");
      else
        snprintf(def, sizeof def, "default %g", ks->def);
      snprintf(head, sizeof head, "      %s", ks->name);
      snprintf(text, sizeof text, "%s; %s, %s", ks->meaning, def,
               domain_text(ks->dom));
      pld_cli_wrap(f, head, 20, text);
    }
  }
  fputs("  every EVENT also takes\n", f);
  pld_cli_wrap(f, "      count", 20,
               "number of runs, composed with itself; default 1, an integer "
               "from 1 to 2^53");
}

/* ------------------------------------------------------------------------ */
/* Numbers.                                                                  */

int pld_cli_parse_double(const char *s, double *out)
{
  char *end;
  /* strtod would skip leading blanks and accept "nan"/"inf"; a token with
   * blanks in it is almost always a quoting mistake, so refuse it. */
  if (s == NULL || *s == '\0' || isspace((unsigned char)*s))
    return -1;
  errno = 0;
  double x = strtod(s, &end);
  if (end == s || *end != '\0' || !isfinite(x))
    return -1;
  *out = x;
  return 0;
}

int pld_cli_parse_int(const char *s, long long lo, long long hi,
                      long long *out)
{
  const char *p = s;
  char *end;
  if (s == NULL)
    return PLD_CLI_INT_NOT_INTEGER;
  if (*p == '+' || *p == '-')
    p++;
  if (!isdigit((unsigned char)*p))
    return PLD_CLI_INT_NOT_INTEGER;
  errno = 0;
  long long x = strtoll(s, &end, 10);
  if (*end != '\0')
    return PLD_CLI_INT_NOT_INTEGER;
  if (errno == ERANGE || x < lo || x > hi)
    return PLD_CLI_INT_RANGE;
  *out = x;
  return PLD_CLI_INT_OK;
}

/* ------------------------------------------------------------------------ */
/* The parser.                                                               */

static const struct event_spec *find_event(const char *name)
{
  for (size_t i = 0; i < N_EVENTS; i++)
    if (strcmp(events[i].name, name) == 0)
      return &events[i];
  return NULL;
}

static void list_event_names(char *buf, size_t n)
{
  size_t o = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < N_EVENTS && o < n; i++) {
    int w = snprintf(buf + o, n - o, "%s%s", i ? ", " : "", events[i].name);
    if (w < 0)
      break;
    o += (size_t)w;
  }
}

static void list_keys(const struct event_spec *e, char *buf, size_t n)
{
  size_t o = 0;
  buf[0] = '\0';
  for (size_t k = 0; k <= n_keys(e) && o < n; k++) {
    const char *name = k < n_keys(e) ? e->keys[k].name : "count";
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
    return x > 0;
  case DOM_NONNEGATIVE:
    return x >= 0;
  case DOM_RATE:
    return x > 0 && x <= 1;
  case DOM_PROB_LIST:
    return x >= 0 && x <= 1;
  case DOM_INT_GE1:
    return x >= 1;
  case DOM_INT_GE2:
    return x >= 2;
  }
  return 0;
}

/* Parse `val` for key `ks` into *v.  `qev` is the quoted event text for
 * messages.  Returns a pld_cli_rc. */
static int parse_value(const struct key_spec *ks, char *val, struct value *v,
                       const char *qev, char *err, size_t errlen)
{
  char qv[QUOTE_LEN];
  if (*val == '\0') {
    snprintf(err, errlen, "key '%s' has an empty value in event %s "
             "(%s must be %s)", ks->name, qev, ks->name, domain_text(ks->dom));
    return PLD_CLI_EUSAGE;
  }
  switch (ks->dom) {
  case DOM_INT_GE1:
  case DOM_INT_GE2: {
    long long x = 0;
    int r = pld_cli_parse_int(val, ks->dom == DOM_INT_GE2 ? 2 : 1, INT64_MAX,
                              &x);
    if (r != PLD_CLI_INT_OK) {
      snprintf(err, errlen, "%s=%s in event %s is %s (%s must be %s)",
               ks->name, pld_cli_quote(qv, sizeof qv, val), qev,
               r == PLD_CLI_INT_RANGE ? "out of range" : "not an integer",
               ks->name, domain_text(ks->dom));
      return PLD_CLI_EUSAGE;
    }
    v->integer = (int64_t)x;
    v->real = (double)x;
    break;
  }
  case DOM_PROB_LIST: {
    size_t n = 1;
    for (const char *p = val; *p; p++)
      n += *p == ';';
    v->list = malloc(n * sizeof *v->list);
    if (v->list == NULL) {
      snprintf(err, errlen, "%s (while reading %s of event %s)",
               pld_strerror(PLD_ENOMEM), ks->name, qev);
      return PLD_CLI_EFAIL;
    }
    char *item = val;
    for (size_t i = 0; i < n; i++) {
      char *semi = strchr(item, ';');
      if (semi)
        *semi = '\0';
      double x;
      if (*item == '\0') {
        snprintf(err, errlen, "%s has an empty entry (number %zu) in event "
                 "%s (%s must be %s)", ks->name, i + 1, qev, ks->name,
                 domain_text(ks->dom));
        return PLD_CLI_EUSAGE;
      }
      if (pld_cli_parse_double(item, &x) != 0 || !in_domain(ks->dom, x)) {
        snprintf(err, errlen, "%s entry %s in event %s is %s (%s must be %s)",
                 ks->name, pld_cli_quote(qv, sizeof qv, item), qev,
                 pld_cli_parse_double(item, &x) != 0 ? "not a finite number"
                                                     : "out of range",
                 ks->name, domain_text(ks->dom));
        return PLD_CLI_EUSAGE;
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
    if (pld_cli_parse_double(val, &x) != 0 || !in_domain(ks->dom, x)) {
      snprintf(err, errlen, "%s=%s in event %s is %s (%s must be %s)",
               ks->name, pld_cli_quote(qv, sizeof qv, val), qev,
               pld_cli_parse_double(val, &x) != 0 ? "not a finite number"
                                                  : "out of range",
               ks->name, domain_text(ks->dom));
      return PLD_CLI_EUSAGE;
    }
    v->real = x;
    break;
  }
  }
  v->present = 1;
  return PLD_CLI_OK;
}

static int parse_count(char *val, uint64_t *count, const char *qev, char *err,
                       size_t errlen)
{
  char qv[QUOTE_LEN];
  long long x = 0;
  int r = *val ? pld_cli_parse_int(val, 1, (long long)PLD_CLI_MAX_COUNT, &x)
               : -1;
  if (r == PLD_CLI_INT_OK) {
    *count = (uint64_t)x;
    return PLD_CLI_OK;
  }
  if (r < 0)
    snprintf(err, errlen, "key 'count' has an empty value in event %s "
             "(count must be an integer from 1 to 2^53 = %llu)", qev,
             PLD_CLI_MAX_COUNT);
  else
    snprintf(err, errlen, "count=%s in event %s is %s (count must be an "
             "integer from 1 to 2^53 = %llu)", pld_cli_quote(qv, sizeof qv, val),
             qev, r == PLD_CLI_INT_RANGE ? "out of range" : "not an integer",
             PLD_CLI_MAX_COUNT);
  return PLD_CLI_EUSAGE;
}

/* Parse the key=value items after the ':'.  `items` is modified in place. */
static int parse_items(const struct event_spec *e, char *items,
                       struct value *vals, uint64_t *count, const char *qev,
                       char *err, size_t errlen)
{
  char qk[QUOTE_LEN], allowed[160];
  int have_count = 0;
  list_keys(e, allowed, sizeof allowed);
  if (*items == '\0') {
    snprintf(err, errlen, "event %s has nothing after ':' (expected "
             "key=value,...; %s takes %s)", qev, e->name, allowed);
    return PLD_CLI_EUSAGE;
  }
  for (char *item = items; item;) {
    char *comma = strchr(item, ',');
    if (comma)
      *comma = '\0';
    char *eq = strchr(item, '=');
    if (*item == '\0') {
      snprintf(err, errlen, "event %s has an empty item (a stray ','; "
               "expected key=value with key one of %s)", qev, allowed);
      return PLD_CLI_EUSAGE;
    }
    if (eq == NULL || eq == item) {
      snprintf(err, errlen, "%s in event %s is not of the form key=value "
               "(%s takes %s)", pld_cli_quote(qk, sizeof qk, item), qev,
               e->name, allowed);
      return PLD_CLI_EUSAGE;
    }
    *eq = '\0';
    char *val = eq + 1;
    int rc;
    if (strcmp(item, "count") == 0) {
      if (have_count) {
        snprintf(err, errlen, "key 'count' given twice in event %s", qev);
        return PLD_CLI_EUSAGE;
      }
      have_count = 1;
      rc = parse_count(val, count, qev, err, errlen);
    } else {
      size_t k = 0, nk = n_keys(e);
      while (k < nk && strcmp(e->keys[k].name, item) != 0)
        k++;
      if (k == nk) {
        snprintf(err, errlen, "unknown key %s in event %s (%s takes %s)",
                 pld_cli_quote(qk, sizeof qk, item), qev, e->name, allowed);
        return PLD_CLI_EUSAGE;
      }
      if (vals[k].present) {
        snprintf(err, errlen, "key '%s' given twice in event %s",
                 e->keys[k].name, qev);
        return PLD_CLI_EUSAGE;
      }
      rc = parse_value(&e->keys[k], val, &vals[k], qev, err, errlen);
    }
    if (rc != PLD_CLI_OK)
      return rc;
    item = comma ? comma + 1 : NULL;
  }
  return PLD_CLI_OK;
}

int pld_cli_parse_event(const char *text, pld_accountant *acc, char *err,
                        size_t errlen)
{
  char dummy[8], qev[QUOTE_LEN], names[200], why[200];
  struct value vals[MAX_KEYS];
  const struct event_spec *e = NULL;
  pld_mech *mech = NULL;
  uint64_t count = 1;
  char *buf = NULL;
  int rc = PLD_CLI_EUSAGE;

  if (err == NULL || errlen == 0) {
    err = dummy;
    errlen = sizeof dummy;
  }
  err[0] = '\0';
  memset(vals, 0, sizeof vals);
  if (text == NULL) {
    snprintf(err, errlen, "no EVENT text");
    return PLD_CLI_EUSAGE;
  }
  pld_cli_quote(qev, sizeof qev, text);
  list_event_names(names, sizeof names);

  size_t len = strlen(text);
  buf = malloc(len + 1);
  if (buf == NULL) {
    snprintf(err, errlen, "%s (while reading event %s)",
             pld_strerror(PLD_ENOMEM), qev);
    return PLD_CLI_EFAIL;
  }
  memcpy(buf, text, len + 1);

  char *items = strchr(buf, ':');
  if (items)
    *items++ = '\0';
  if (*buf == '\0') {
    snprintf(err, errlen, "event %s has no name (expected NAME:key=value,... "
             "with NAME one of %s)", qev, names);
    goto done;
  }
  e = find_event(buf);
  if (e == NULL) {
    char qn[QUOTE_LEN];
    snprintf(err, errlen, "unknown event %s in %s (allowed: %s)",
             pld_cli_quote(qn, sizeof qn, buf), qev, names);
    goto done;
  }
  if (items) {
    rc = parse_items(e, items, vals, &count, qev, err, errlen);
    if (rc != PLD_CLI_OK)
      goto done;
  }
  rc = PLD_CLI_EUSAGE;
  for (size_t k = 0; k < n_keys(e); k++) {
    const struct key_spec *ks = &e->keys[k];
    if (vals[k].present)
      continue;
    if (ks->required) {
      snprintf(err, errlen, "event %s is missing the required key '%s' "
               "(%s, %s)", qev, ks->name, ks->meaning, domain_text(ks->dom));
      goto done;
    }
    vals[k].real = ks->def;
    vals[k].integer = (int64_t)ks->def;
  }
  if (e->check && e->check(vals, why, sizeof why)) {
    snprintf(err, errlen, "event %s: %s", qev, why);
    goto done;
  }

  int st = e->build(vals, &mech);
  if (st != PLD_SUCCESS) {
    /* Our checks mirror the documented domains, so an EINVAL here means the
     * library knows a limit we do not: still the user's input, hence 2. */
    if (st == PLD_EINVAL) {
      snprintf(err, errlen, "event %s was rejected by the library: %s", qev,
               pld_strerror(st));
    } else {
      snprintf(err, errlen, "%s (while building event %s)", pld_strerror(st),
               qev);
      rc = PLD_CLI_EFAIL;
    }
    goto done;
  }
  if (acc) {
    st = pld_accountant_add(acc, mech, count);
    if (st != PLD_SUCCESS) {
      snprintf(err, errlen, "%s (while adding event %s)", pld_strerror(st),
               qev);
      rc = PLD_CLI_EFAIL;
      goto done;
    }
  }
  rc = PLD_CLI_OK;

done:
  pld_mech_free(mech);
  for (size_t k = 0; k < MAX_KEYS; k++)
    free(vals[k].list);
  free(buf);
  return rc;
}
