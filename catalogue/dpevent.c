/* pldkit catalogue: dp_accounting's DpEvent trees -> EVENT texts (see
 * <pldkit/dpevent.h>).  The one translation: the CLI's --events-json and
 * Python's pldkit.dp_accounting both call pld_dpevent_to_events, so they
 * build the same mechanisms in the same order. */
#include <pldkit/dpevent.h>
#include <pldkit/event.h>


#include "detail.h"
#include "events_internal.h"
#include "tree.h"


#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* dp_accounting's classes and their fields in declared order (dp_event.py);
 * a '?' prefix marks a field with a default (see field_default). */
static const struct {
  const char *name;
  const char *fields[5];
} classes[] = {
  {"NoOpDpEvent", {NULL}},
  {"NonPrivateDpEvent", {NULL}},
  {"UnsupportedDpEvent", {NULL}},
  {"RandomizedResponseDpEvent", {"noise_parameter", "num_buckets"}},
  {"EpsilonDeltaDpEvent", {"epsilon", "delta"}},
  {"GaussianDpEvent", {"noise_multiplier"}},
  {"LaplaceDpEvent", {"noise_multiplier"}},
  {"DiscreteLaplaceDpEvent", {"noise_parameter", "sensitivity"}},
  {"DiscreteGaussianDpEvent", {"sigma", "?sensitivity", "?dimension"}},
  {"SelfComposedDpEvent", {"event", "count"}},
  {"ComposedDpEvent", {"events"}},
  {"PoissonSampledDpEvent", {"sampling_probability", "event"}},
  {"SampledWithReplacementDpEvent",
   {"source_dataset_size", "sample_size", "event"}},
  {"SampledWithoutReplacementDpEvent",
   {"source_dataset_size", "sample_size", "event"}},
  {"SingleEpochTreeAggregationDpEvent", {"noise_multiplier", "step_counts"}},
  {"RepeatAndSelectDpEvent", {"event", "mean", "shape"}},
  {"MixtureOfGaussiansDpEvent",
   {"standard_deviation", "sensitivities", "sampling_probs"}},
  {"ZCDpEvent", {"rho", "?xi"}},
  {"ExponentialMechanismDpEvent", {"epsilon"}},
  {"PermuteAndFlipDpEvent", {"epsilon"}},
  {"TruncatedSubsampledGaussianDpEvent",
   {"dataset_size", "sampling_probability", "truncated_batch_size",
    "noise_multiplier"}},
};
#define N_CLASSES (sizeof classes / sizeof classes[0])

static const char *const relation_names[] = {
  "ADD_OR_REMOVE_ONE", "REPLACE_ONE", "REPLACE_SPECIAL"};

int pld_dpevent_relation_parse(const char *name, int *out)
{
  if (name == NULL || out == NULL)
    return PLD_EINVAL;
  for (int i = 0; i < 3; i++)
    if (strcmp(name, relation_names[i]) == 0) {
      *out = i;
      return PLD_SUCCESS;
    }
  return PLD_EINVAL;
}

static int find_class(const char *name)
{
  for (size_t i = 0; name && i < N_CLASSES; i++)
    if (strcmp(classes[i].name, name) == 0)
      return (int)i;
  return -1;
}

static const char *bare(const char *f)
{
  return f[0] == '?' ? f + 1 : f;
}

const char *pld_dpevent_field_name(const char *class_name, size_t i)
{
  int c = find_class(class_name);
  if (c < 0 || i >= 5 || classes[c].fields[i] == NULL)
    return NULL;
  for (size_t k = 0; k < i; k++)
    if (classes[c].fields[k] == NULL)
      return NULL;
  return bare(classes[c].fields[i]);
}

/* ------------------------------------------------------------------------ */

#define WHERE_LEN 512

/* A place in the tree; a very deep one is cut with "...". */
#define PATH(buf, ...)                                                   \
  do {                                                                   \
    if (snprintf(buf, sizeof buf, __VA_ARGS__) >= (int)sizeof buf)       \
      memcpy(buf + sizeof buf - 4, "...", 4);                            \
  } while (0)

struct tr {
  int relation;
  pld_dpevent_texts *out;
  size_t cap;
  char *err;
  size_t errlen;
  int rc;
};

static int fail(struct tr *t, int rc, const char *fmt, ...)
{
  if (t->rc == PLD_EVENT_OK) {
    t->rc = rc;
    if (t->err && t->errlen) {
      va_list ap;
      va_start(ap, fmt);
      vsnprintf(t->err, t->errlen, fmt, ap);
      va_end(ap);
      for (char *p = t->err; *p; p++) /* one line */
        if ((unsigned char)*p < 0x20)
          *p = ' ';
    }
  }
  return t->rc;
}

#define USAGE(t, ...) fail((t), PLD_EVENT_EUSAGE, __VA_ARGS__)

/* Check the fields against the class (every declared field present unless
 * it has a default, no others); names the class and place. */
static int check_fields(struct tr *t, const pld_dpevent *ev, int c,
                        const char *where)
{
  for (size_t k = 0; k < 5 && classes[c].fields[k]; k++) {
    const char *f = classes[c].fields[k];
    if (f[0] == '?')
      continue;
    size_t j = 0;
    while (j < ev->n_fields &&
           !(ev->fields[j].name && strcmp(ev->fields[j].name, f) == 0))
      j++;
    if (j == ev->n_fields)
      return USAGE(t, "%s: %s has no field '%s'", where, classes[c].name, f);
  }
  for (size_t j = 0; j < ev->n_fields; j++) {
    const char *n = ev->fields[j].name;
    size_t k = 0;
    while (n && k < 5 && classes[c].fields[k] &&
           strcmp(bare(classes[c].fields[k]), n) != 0)
      k++;
    if (n == NULL || k == 5 || classes[c].fields[k] == NULL)
      return USAGE(t, "%s: %s has no field '%.64s'", where, classes[c].name,
                   n ? n : "(null)");
  }
  return PLD_EVENT_OK;
}

/* Every event of the tree is a known class with its fields (Python's
 * canonical()), before anything is translated. */
static int check_tree(struct tr *t, const pld_dpevent *ev, const char *where,
                      int depth)
{
  if (depth > 1000)
    return USAGE(t, "%s: the event tree is nested more than 1000 deep",
                 where);
  int c = find_class(ev->class_name);
  if (c < 0)
    return USAGE(t, "%s: %.80s is not a dp_accounting DpEvent that pldkit "
                 "knows", where, ev->class_name ? ev->class_name : "(none)");
  if (check_fields(t, ev, c, where) != PLD_EVENT_OK)
    return t->rc;
  for (size_t j = 0; j < ev->n_fields; j++) {
    const pld_dpevent_field *f = &ev->fields[j];
    char here[WHERE_LEN];
    int is_event = strcmp(f->name, "event") == 0;
    int is_list = strcmp(f->name, "events") == 0;
    if (!is_event && !is_list)
      continue;
    if (is_event && (f->kind != PLD_DPEVENT_EVENT || f->events == NULL)) {
      PATH(here, "%s.event", where);
      return USAGE(t, "%s: expected an event", here);
    }
    if (is_list && (f->kind != PLD_DPEVENT_EVENTS ||
                    (f->n && f->events == NULL))) {
      PATH(here, "%s.events", where);
      return USAGE(t, "%s: expected a list of events", here);
    }
    size_t n = is_event ? 1 : f->n;
    for (size_t i = 0; i < n; i++) {
      if (is_event)
        PATH(here, "%s.event", where);
      else
        PATH(here, "%s.events[%zu]", where, i);
      if (check_tree(t, &f->events[i], here, depth + 1) != PLD_EVENT_OK)
        return t->rc;
    }
  }
  return PLD_EVENT_OK;
}

static const pld_dpevent_field *field(const pld_dpevent *ev, const char *n)
{
  for (size_t j = 0; j < ev->n_fields; j++)
    if (strcmp(ev->fields[j].name, n) == 0)
      return &ev->fields[j];
  return NULL;
}

static int num(struct tr *t, const pld_dpevent *ev, const char *n,
               const char *where, double *x)
{
  const pld_dpevent_field *f = field(ev, n);
  if (f == NULL || f->kind != PLD_DPEVENT_NUMBER || isnan(f->number))
    return USAGE(t, "%s: %s must be a number", where, n);
  *x = f->number;
  return PLD_EVENT_OK;
}

/* An integer >= lo (a number with an integral value, as Python's _int);
 * dflt is used when the field is absent and has_dflt. */
static int integer(struct tr *t, const pld_dpevent *ev, const char *n,
                   const char *where, double lo, int has_dflt, double dflt,
                   double *x)
{
  const pld_dpevent_field *f = field(ev, n);
  double v = dflt;
  if (f != NULL || !has_dflt) {
    if (f == NULL || f->kind != PLD_DPEVENT_NUMBER || !isfinite(f->number) ||
        f->number != floor(f->number))
      return USAGE(t, "%s: %s must be an integer", where, n);
    v = f->number;
  }
  if (v < lo)
    return USAGE(t, "%s: %s=%.17g must be >= %g", where, n, v, lo);
  if (v > (double)PLD_EVENT_MAX_COUNT)
    return USAGE(t, "%s: %s=%.17g must be at most 2^53", where, n, v);
  *x = v;
  return PLD_EVENT_OK;
}

static int need(struct tr *t, unsigned allowed, const char *name,
                const char *where)
{
  if (allowed & (1u << t->relation))
    return PLD_EVENT_OK;
  char list[80] = "";
  for (int i = 0; i < 3; i++)
    if (allowed & (1u << i)) {
      if (list[0])
        strcat(list, " or ");
      strcat(list, relation_names[i]);
    }
  return USAGE(t, "%s: %s is not supported under neighboring relation %s "
               "(only %s)", where, name, relation_names[t->relation], list);
}

#define AOR ((1u << PLD_DPEVENT_ADD_OR_REMOVE_ONE) | \
             (1u << PLD_DPEVENT_REPLACE_SPECIAL))
#define RO (1u << PLD_DPEVENT_REPLACE_ONE)

/* A leaf's spec: kind and its EVENT text without count. */
enum { SPEC_NONE, SPEC_NONPRIVATE, SPEC_TEXT };
struct spec {
  int kind;
  const char *mech; /* "gaussian", "laplace", "randomized_response", ... */
  char text[4096];
  double a, b; /* gaussian: sigma, sensitivity; laplace: b, sensitivity */
};

static void fx(char *buf, size_t n, double x)
{
  ev_fmt_exact(buf, n, x);
}

/* Append "k=v1;v2;..." exact decimals. */
static int add_list(char *s, size_t size, const char *key, const double *v,
                    size_t n)
{
  size_t len = strlen(s);
  int w = snprintf(s + len, size - len, ",%s=", key);
  if (w < 0 || (size_t)w >= size - len)
    return -1;
  len += (size_t)w;
  for (size_t i = 0; i < n; i++) {
    char b[40];
    fx(b, sizeof b, v[i]);
    w = snprintf(s + len, size - len, "%s%s", i ? ";" : "", b);
    if (w < 0 || (size_t)w >= size - len)
      return -1;
    len += (size_t)w;
  }
  return 0;
}

static int leaf(struct tr *t, const pld_dpevent *ev, const char *where,
                struct spec *s);

/* The one mechanism of a sampled event (Python's _single). */
static int plan(struct tr *t, const pld_dpevent *ev, double count,
                const char *where, int (*emit)(struct tr *, struct spec *,
                                               double, void *),
                void *ctx);

struct single {
  int n;
  struct spec s;
  double count;
};

static int collect(struct tr *t, struct spec *s, double c, void *ctx)
{
  struct single *one = ctx;
  (void)t;
  if (one->n++ == 0) {
    one->s = *s;
    one->count = c;
  }
  return PLD_EVENT_OK;
}

static int single(struct tr *t, const pld_dpevent *ev, const char *where,
                  const char *parent, struct spec *s)
{
  if (strcmp(ev->class_name, "ComposedDpEvent") == 0 ||
      strcmp(ev->class_name, "SelfComposedDpEvent") == 0) {
    struct single one;
    memset(&one, 0, sizeof one);
    if (plan(t, ev, 1, where, collect, &one) != PLD_EVENT_OK)
      return t->rc;
    if (one.n == 0) {
      s->kind = SPEC_NONE;
      return PLD_EVENT_OK;
    }
    if (one.n == 1 && one.count == 1) {
      *s = one.s;
      return PLD_EVENT_OK;
    }
    return USAGE(t, "%s: a %s of a %s of several mechanisms is not "
                 "supported (sample each mechanism on its own)", where,
                 parent, ev->class_name);
  }
  return leaf(t, ev, where, s);
}

static int leaf(struct tr *t, const pld_dpevent *ev, const char *where,
                struct spec *s)
{
  const char *name = ev->class_name;
  char a[40], b[40];
  memset(s, 0, sizeof *s);
  s->kind = SPEC_TEXT;
  if (strcmp(name, "GaussianDpEvent") == 0) {
    double sig = 0;
    if (num(t, ev, "noise_multiplier", where, &sig))
      return t->rc;
    if (sig == 0) {
      s->kind = SPEC_NONPRIVATE;
      return PLD_EVENT_OK;
    }
    s->mech = "gaussian";
    s->a = sig;
    s->b = t->relation == PLD_DPEVENT_REPLACE_ONE ? 2.0 : 1.0;
    fx(a, sizeof a, sig);
    snprintf(s->text, sizeof s->text, "gaussian:sigma=%s,sensitivity=%g", a,
             s->b);
    return PLD_EVENT_OK;
  }
  if (strcmp(name, "LaplaceDpEvent") == 0) {
    double bb = 0;
    if (need(t, AOR, name, where) || num(t, ev, "noise_multiplier", where, &bb))
      return t->rc;
    if (bb == 0) {
      s->kind = SPEC_NONPRIVATE;
      return PLD_EVENT_OK;
    }
    s->mech = "laplace";
    s->a = bb;
    s->b = 1.0;
    fx(a, sizeof a, bb);
    snprintf(s->text, sizeof s->text, "laplace:b=%s,sensitivity=1", a);
    return PLD_EVENT_OK;
  }
  if (strcmp(name, "DiscreteLaplaceDpEvent") == 0) {
    double al = 0, sens = 0;
    if (need(t, AOR, name, where) ||
        num(t, ev, "noise_parameter", where, &al) ||
        integer(t, ev, "sensitivity", where, 1, 0, 0, &sens))
      return t->rc;
    if (al == 0) {
      s->kind = SPEC_NONPRIVATE;
      return PLD_EVENT_OK;
    }
    if (!(al > 0 && isfinite(al)))
      return USAGE(t, "%s: noise_parameter=%.17g must be a finite number "
                   ">= 0", where, al);
    /* P(k) ~ exp(-a |k|) is the scale 1/a; rounded down, the less private
     * side, so that no rounding makes the mechanism more private. */
    s->mech = "discrete_laplace";
    fx(a, sizeof a, nextafter(1.0 / al, 0.0));
    snprintf(s->text, sizeof s->text,
             "discrete-laplace:scale=%s,sensitivity=%.0f", a, sens);
    return PLD_EVENT_OK;
  }
  if (strcmp(name, "DiscreteGaussianDpEvent") == 0) {
    double sig = 0, sens = 0;
    if (need(t, AOR, name, where))
      return t->rc;
    const pld_dpevent_field *d = field(ev, "dimension");
    if (d == NULL || d->kind != PLD_DPEVENT_NUMBER || d->number != 1)
      return USAGE(t, "%s: DiscreteGaussianDpEvent with dimension other "
                   "than 1 is not supported: pldkit has the univariate "
                   "discrete Gaussian only (dimension=1)", where);
    if (num(t, ev, "sigma", where, &sig) ||
        integer(t, ev, "sensitivity", where, 0, 1, 1.0, &sens))
      return t->rc;
    if (sens == 0) {
      s->kind = SPEC_NONE;
      return PLD_EVENT_OK;
    }
    if (sig == 0) {
      s->kind = SPEC_NONPRIVATE;
      return PLD_EVENT_OK;
    }
    s->mech = "discrete_gaussian";
    fx(a, sizeof a, sig);
    snprintf(s->text, sizeof s->text,
             "discrete-gaussian:sigma=%s,sensitivity=%.0f", a, sens);
    return PLD_EVENT_OK;
  }
  if (strcmp(name, "RandomizedResponseDpEvent") == 0) {
    double p = 0, k = 0;
    if (need(t, RO | (1u << PLD_DPEVENT_REPLACE_SPECIAL), name, where) ||
        num(t, ev, "noise_parameter", where, &p) ||
        integer(t, ev, "num_buckets", where, 1, 0, 0, &k))
      return t->rc;
    if (!(p >= 0 && p <= 1))
      return USAGE(t, "%s: noise_parameter=%.17g must be in [0, 1]", where,
                   p);
    if (k == 1) {
      s->kind = SPEC_NONE;
      return PLD_EVENT_OK;
    }
    if (p == 0) {
      s->kind = SPEC_NONPRIVATE;
      return PLD_EVENT_OK;
    }
    /* e^eps0 = P(true bucket) / P(another) = 1 + k (1 - p) / p; two ulps
     * up cover the rounding of the quotient and of log1p (a larger eps0 is
     * the less private mechanism). */
    double e0 = log1p(k * (1.0 - p) / p);
    e0 = nextafter(nextafter(e0, INFINITY), INFINITY);
    s->mech = "randomized_response";
    fx(a, sizeof a, e0);
    snprintf(s->text, sizeof s->text, "randomized-response:epsilon=%s,k=%.0f",
             a, k);
    return PLD_EVENT_OK;
  }
  if (strcmp(name, "MixtureOfGaussiansDpEvent") == 0) {
    double sd = 0;
    if (need(t, AOR, name, where) ||
        num(t, ev, "standard_deviation", where, &sd))
      return t->rc;
    const pld_dpevent_field *c = field(ev, "sensitivities");
    const pld_dpevent_field *w = field(ev, "sampling_probs");
    if (c->kind != PLD_DPEVENT_NUMBERS || w->kind != PLD_DPEVENT_NUMBERS)
      return USAGE(t, "%s: sensitivities and sampling_probs must be lists "
                   "of numbers", where);
    if (c->n != w->n)
      return USAGE(t, "%s: %zu sensitivities but %zu sampling_probs", where,
                   c->n, w->n);
    int all_zero = 1;
    for (size_t i = 0; i < c->n; i++) {
      if (isnan(c->numbers[i]) || isnan(w->numbers[i]))
        return USAGE(t, "%s: sensitivities and sampling_probs must be "
                     "numbers", where);
      if (c->numbers[i] != 0)
        all_zero = 0;
    }
    if (all_zero) {
      s->kind = SPEC_NONE;
      return PLD_EVENT_OK;
    }
    if (sd == 0) {
      s->kind = SPEC_NONPRIVATE;
      return PLD_EVENT_OK;
    }
    s->mech = "mixture";
    fx(a, sizeof a, sd);
    snprintf(s->text, sizeof s->text, "mixture-gaussian:sigma=%s", a);
    if (add_list(s->text, sizeof s->text, "p-means", c->numbers, c->n) ||
        add_list(s->text, sizeof s->text, "p-weights", w->numbers, w->n))
      return USAGE(t, "%s: too many mixture components", where);
    strncat(s->text, ",q-means=0,q-weights=1",
            sizeof s->text - strlen(s->text) - 1);
    return PLD_EVENT_OK;
  }
  if (strcmp(name, "TruncatedSubsampledGaussianDpEvent") == 0) {
    /* Poisson sampling at rate q from n records, the batch capped at B
     * (the excess dropped uniformly), noise multiplier sigma at sensitivity
     * 1: the catalogue's truncated-poisson, with dp_accounting's relation as
     * its adjacency (REPLACE_SPECIAL: the record replaced by a zero one) */
    double n = 0, q = 0, B = 0, sig = 0;
    char qs[40], ss[40];
    if (integer(t, ev, "dataset_size", where, 1, 0, 0, &n) ||
        num(t, ev, "sampling_probability", where, &q) ||
        integer(t, ev, "truncated_batch_size", where, 1, 0, 0, &B) ||
        num(t, ev, "noise_multiplier", where, &sig))
      return t->rc;
    if (!(q >= 0 && q <= 1) || !(sig >= 0) || isinf(sig))
      return USAGE(t, "%s: sampling_probability=%.17g must be in [0, 1] and "
                   "noise_multiplier=%.17g finite and >= 0", where, q, sig);
    if (q == 0) {
      s->kind = SPEC_NONE;
      return PLD_EVENT_OK;
    }
    if (sig == 0) {
      s->kind = SPEC_NONPRIVATE;
      return PLD_EVENT_OK;
    }
    static const char *const adj[] = {"add-remove", "replace-one",
                                      "zero-out"};
    s->kind = SPEC_TEXT;
    s->mech = "truncated_poisson";
    fx(qs, sizeof qs, q);
    fx(ss, sizeof ss, sig);
    snprintf(s->text, sizeof s->text,
             "truncated-poisson:n=%.0f,q=%s,B=%.0f,sigma=%s,adjacency=%s", n,
             qs, B, ss, adj[t->relation]);
    return PLD_EVENT_OK;
  }
  if (strcmp(name, "EpsilonDeltaDpEvent") == 0 ||
      strcmp(name, "ExponentialMechanismDpEvent") == 0 ||
      strcmp(name, "PermuteAndFlipDpEvent") == 0) {
    double e = 0, d = 0.0;
    if (num(t, ev, "epsilon", where, &e))
      return t->rc;
    if (field(ev, "delta") && num(t, ev, "delta", where, &d))
      return t->rc;
    if (!(e >= 0 && d >= 0 && d <= 1))
      return USAGE(t, "%s: epsilon=%.17g must be >= 0 and delta=%.17g in "
                   "[0, 1]", where, e, d);
    if (isinf(e) || d == 1) {
      s->kind = SPEC_NONPRIVATE;
      return PLD_EVENT_OK;
    }
    /* The dominating pair of (eps, delta)-DP: P = (delta, (1-delta) a,
     * (1-delta) b, 0), Q = (0, (1-delta) b, (1-delta) a, delta), a =
     * e^eps/(1+e^eps), b = 1 - a; eps and delta raised by a relative 1e-12
     * first so that no rounding leaves a pair below (eps, delta). */
    double ee = e * (1 + 1e-12);
    double dd = fmin(d * (1 + 1e-12), 1.0);
    double pa = 1.0 / (1.0 + exp(-ee)), pb = 1.0 / (1.0 + exp(ee));
    double r = 1.0 - dd;
    double P[4] = {dd, r * pa, r * pb, 0.0}, Q[4] = {0.0, r * pb, r * pa, dd};
    s->mech = "pair";
    strcpy(s->text, "finite:");
    if (add_list(s->text, sizeof s->text, "p", P, 4) ||
        add_list(s->text, sizeof s->text, "q", Q, 4))
      return USAGE(t, "%s: internal: text too long", where);
    /* drop the ',' add_list put after "finite:" */
    memmove(s->text + 7, s->text + 8, strlen(s->text + 8) + 1);
    return PLD_EVENT_OK;
  }
  if (strcmp(name, "PoissonSampledDpEvent") == 0) {
    double q = 0;
    if (need(t, AOR, name, where) ||
        num(t, ev, "sampling_probability", where, &q))
      return t->rc;
    if (!(q >= 0 && q <= 1))
      return USAGE(t, "%s: sampling_probability=%.17g must be in [0, 1]",
                   where, q);
    char here[WHERE_LEN];
    PATH(here, "%s.event", where);
    struct spec in;
    if (single(t, field(ev, "event")->events, here, name, &in))
      return t->rc;
    if (q == 0 || in.kind == SPEC_NONE) {
      s->kind = SPEC_NONE;
      return PLD_EVENT_OK;
    }
    if (in.kind == SPEC_NONPRIVATE) {
      s->kind = SPEC_NONPRIVATE;
      return PLD_EVENT_OK;
    }
    fx(a, sizeof a, q);
    fx(b, sizeof b, in.a);
    s->mech = "poisson";
    if (strcmp(in.mech, "gaussian") == 0)
      snprintf(s->text, sizeof s->text,
               "poisson-gaussian:q=%s,sigma=%s,sensitivity=%g", a, b, in.b);
    else if (strcmp(in.mech, "laplace") == 0)
      snprintf(s->text, sizeof s->text,
               "poisson-laplace:q=%s,b=%s,sensitivity=%g", a, b, in.b);
    else if (strcmp(in.mech, "randomized_response") == 0 ||
             strcmp(in.mech, "wor_gaussian") == 0)
      return USAGE(t, "%s: PoissonSampledDpEvent of %s (a replace-one "
                   "mechanism) is not supported: Poisson subsampling with "
                   "add/remove neighbours is not defined for it", where,
                   field(ev, "event")->events->class_name);
    else if (strcmp(in.mech, "poisson") == 0)
      return USAGE(t, "%s: PoissonSampledDpEvent of a PoissonSampledDpEvent "
                   "is not supported (it is one PoissonSampledDpEvent at "
                   "the product of the two sampling probabilities)", where);
    else {
      /* DiscreteLaplace, DiscreteGaussian, MixtureOfGaussians and the
       * (epsilon, delta) pair (EpsilonDelta, ExponentialMechanism,
       * PermuteAndFlip): the catalogue's poisson-sampled event, Poisson
       * subsampling of the member's exact pair (pld_mech_poisson). */
      int w = snprintf(s->text, sizeof s->text, "poisson-sampled:q=%s[%s]",
                       a, in.text);
      if (w < 0 || (size_t)w >= sizeof s->text)
        return USAGE(t, "%s: the sampled event's text is too long", where);
    }
    return PLD_EVENT_OK;
  }
  if (strcmp(name, "SampledWithoutReplacementDpEvent") == 0) {
    double n = 0, m = 0, sig = 0;
    if (need(t, RO, name, where) ||
        integer(t, ev, "source_dataset_size", where, 1, 0, 0, &n) ||
        integer(t, ev, "sample_size", where, 0, 0, 0, &m))
      return t->rc;
    const pld_dpevent *in = field(ev, "event")->events;
    if (strcmp(in->class_name, "GaussianDpEvent") != 0)
      return USAGE(t, "%s: SampledWithoutReplacementDpEvent of %s is not "
                   "supported (only of GaussianDpEvent)", where,
                   in->class_name);
    char here[WHERE_LEN];
    PATH(here, "%s.event", where);
    if (num(t, in, "noise_multiplier", here, &sig))
      return t->rc;
    if (m == 0) {
      s->kind = SPEC_NONE;
      return PLD_EVENT_OK;
    }
    if (sig == 0) {
      s->kind = SPEC_NONPRIVATE;
      return PLD_EVENT_OK;
    }
    s->mech = "wor_gaussian";
    fx(a, sizeof a, sig);
    snprintf(s->text, sizeof s->text,
             "wor-gaussian:batch=%.0f,n=%.0f,sigma=%s,sensitivity=2", m, n, a);
    return PLD_EVENT_OK;
  }
  if (strcmp(name, "NoOpDpEvent") == 0) {
    s->kind = SPEC_NONE;
    return PLD_EVENT_OK;
  }
  if (strcmp(name, "NonPrivateDpEvent") == 0) {
    s->kind = SPEC_NONPRIVATE;
    return PLD_EVENT_OK;
  }
  return USAGE(t, "%s: %s is not supported by pldkit", where, name);
}

/* Walk the tree (Python's plan): SelfComposed multiplies the count,
 * Composed walks its events in order, every other event is a leaf. */
static int plan(struct tr *t, const pld_dpevent *ev, double count,
                const char *where, int (*emit)(struct tr *, struct spec *,
                                               double, void *),
                void *ctx)
{
  char here[WHERE_LEN];
  if (strcmp(ev->class_name, "SelfComposedDpEvent") == 0) {
    double n = 0;
    if (integer(t, ev, "count", where, 0, 0, 0, &n))
      return t->rc;
    if (n == 0)
      return PLD_EVENT_OK;
    if (count * n > (double)PLD_EVENT_MAX_COUNT)
      return USAGE(t, "%s: the composed count %.17g x %.17g exceeds 2^53",
                   where, count, n);
    PATH(here, "%s.event", where);
    return plan(t, field(ev, "event")->events, count * n, here, emit, ctx);
  }
  if (strcmp(ev->class_name, "ComposedDpEvent") == 0) {
    const pld_dpevent_field *f = field(ev, "events");
    for (size_t i = 0; i < f->n; i++) {
      PATH(here, "%s.events[%zu]", where, i);
      if (plan(t, &f->events[i], count, here, emit, ctx))
        return t->rc;
    }
    return PLD_EVENT_OK;
  }
  struct spec *s = malloc(sizeof *s);
  if (s == NULL)
    return fail(t, PLD_EVENT_EFAIL, "%s", pld_strerror(PLD_ENOMEM));
  int rc = leaf(t, ev, where, s);
  if (rc == PLD_EVENT_OK && s->kind != SPEC_NONE && count > 0)
    rc = emit(t, s, count, ctx);
  free(s);
  return rc;
}

static int emit_text(struct tr *t, struct spec *s, double count, void *ctx)
{
  (void)ctx;
  pld_dpevent_texts *o = t->out;
  const char *base = s->kind == SPEC_NONPRIVATE ? PLD_DPEVENT_NONPRIVATE
                                                : s->text;
  if (s->kind == SPEC_NONPRIVATE)
    o->nonprivate = 1;
  if (o->n == t->cap) {
    size_t cap = t->cap ? 2 * t->cap : 8;
    char **p = realloc(o->texts, cap * sizeof *p);
    if (p == NULL)
      return fail(t, PLD_EVENT_EFAIL, "%s", pld_strerror(PLD_ENOMEM));
    o->texts = p;
    t->cap = cap;
  }
  size_t len = strlen(base) + 40;
  char *txt = malloc(len);
  if (txt == NULL)
    return fail(t, PLD_EVENT_EFAIL, "%s", pld_strerror(PLD_ENOMEM));
  /* the non-private pair once is as non-private as many times */
  /* count=N goes before a member list (poisson-sampled:q=Q[MEMBER]),
   * which must end the EVENT */
  size_t head = strcspn(base, "[");
  if (s->kind == SPEC_NONPRIVATE)
    snprintf(txt, len, "%s", base);
  else
    snprintf(txt, len, "%.*s,count=%.0f%s", (int)head, base, count,
             base + head);
  o->texts[o->n++] = txt;
  return PLD_EVENT_OK;
}

static void texts_free(pld_dpevent_texts *t)
{
  if (t == NULL)
    return;
  for (size_t i = 0; i < t->n; i++)
    free(t->texts[i]);
  free(t->texts);
  memset(t, 0, sizeof *t);
}

static int dpevent_to_texts(const pld_dpevent *root, int relation,
                            unsigned long long count, pld_dpevent_texts *out,
                            char *err, size_t errlen)
{
  struct tr t;
  memset(&t, 0, sizeof t);
  t.err = err;
  t.errlen = errlen;
  if (err && errlen)
    err[0] = '\0';
  if (out == NULL)
    return USAGE(&t, "%s", "a NULL output");
  memset(out, 0, sizeof *out);
  t.out = out;
  if (root == NULL)
    return USAGE(&t, "%s", "event: a NULL event tree");
  if (relation < 0 || relation > 2)
    return USAGE(&t, "neighboring relation %d must be ADD_OR_REMOVE_ONE, "
                 "REPLACE_ONE or REPLACE_SPECIAL", relation);
  if (count > PLD_EVENT_MAX_COUNT)
    return USAGE(&t, "count=%llu must be at most 2^53", count);
  t.relation = relation;
  if (check_tree(&t, root, "event", 0) == PLD_EVENT_OK && count > 0)
    plan(&t, root, (double)count, "event", emit_text, NULL);
  if (t.rc != PLD_EVENT_OK)
    texts_free(out);
  return t.rc;
}

int pld_event_from_dpevent(const pld_dpevent *root, int relation,
                           unsigned long long count, pld_event **out,
                           int *nonprivate)
{
  char err[1024];
  pld_dpevent_texts t;
  pld_detail_clear();
  if (out == NULL)
    return pld_fail(PLD_EINVAL, "out must not be NULL");
  int rc = dpevent_to_texts(root, relation, count, &t, err, sizeof err);
  if (rc != PLD_EVENT_OK)
    return pld_fail(rc == PLD_EVENT_EFAIL ? PLD_ENOMEM : PLD_EINVAL, "%s",
                    err);
  pld_event **parts = calloc(t.n ? t.n : 1, sizeof *parts);
  int st = parts ? PLD_SUCCESS : PLD_ENOMEM;
  for (size_t i = 0; st == PLD_SUCCESS && i < t.n; i++)
    st = pld_event_parse(t.texts[i], &parts[i]);
  pld_event *ev = NULL;
  if (st == PLD_SUCCESS && t.n > 0) {
    st = pld_event_compose(t.n, (const pld_event *const *)parts, &ev);
  } else if (st == PLD_SUCCESS) { /* only no-ops: the empty composition */
    ev = calloc(1, sizeof *ev);
    if (ev && (ev->node = calloc(1, sizeof *ev->node)) == NULL) {
      free(ev);
      ev = NULL;
    }
    st = ev ? PLD_SUCCESS : PLD_ENOMEM;
  }
  for (size_t i = 0; parts && i < t.n; i++)
    pld_event_free(parts[i]);
  free(parts);
  if (st == PLD_SUCCESS && nonprivate)
    *nonprivate = t.nonprivate;
  texts_free(&t);
  if (st != PLD_SUCCESS)
    return st;
  *out = ev;
  return PLD_SUCCESS;
}
