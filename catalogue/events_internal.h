/* pldkit catalogue: what the files of the EVENT catalogue share (private;
 * not installed).  events_table.c holds the table of struct event_spec;
 * events_pld.c, events_rdp.c and events_check.c the adapters it names;
 * events_parse.c the parser; events_closed.c the closed forms. */
#ifndef PLDKIT_CATALOGUE_EVENTS_INTERNAL_H
#define PLDKIT_CATALOGUE_EVENTS_INTERNAL_H

#include <pldkit/event.h>
#include <pldkit/mech.h>
#include <pldkit/pld.h>
#include <pldkit/rdp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define MAX_KEYS 6
#define QUOTE_LEN 96

/* Internal return codes of the DpEvent translator (dpevent.c). */
enum { PLD_EVENT_OK = 0, PLD_EVENT_EFAIL = 1, PLD_EVENT_EUSAGE = 2 };

/* The EVENT texts of a DpEvent tree (dpevent.c). */
typedef struct pld_dpevent_texts {
  size_t n;       /* number of texts (0: the tree holds only no-ops) */
  char **texts;   /* texts[0..n-1], each "NAME:key=value,...,count=N" */
  int nonprivate; /* a non-private event was met (its text is among them) */
} pld_dpevent_texts;

/* A closed-form single-round analysis (random-participation analysis=thm41
 * or ols): not a mechanism, answered by its formula (events_closed.c). */
struct ev_closed {
  int analysis; /* AN_* */
  double p, q, C, sigma;
  long long d;
  char where[QUOTE_LEN]; /* the quoted event, for messages */
};
int ev_closed_query(const struct ev_closed *c, int want_delta, double x,
                    pld_event_closed_answer *out);
int ev_closed_bracket(const struct ev_closed *c, double delta,
                      pld_bound *out);
const char *ev_closed_name(const struct ev_closed *c);

/* Number parsing and quoting (text.c). */
int ev_parse_double(const char *s, double *out);
enum { EV_INT_OK = 0, EV_INT_NOT_INTEGER = 1, EV_INT_RANGE = 2 };
int ev_parse_int(const char *s, long long lo, long long hi, long long *out);
const char *ev_quote(char *buf, size_t size, const char *s);
void ev_fmt_exact(char *buf, size_t size, double x);

enum domain {
  DOM_POSITIVE,    /* finite, > 0 */
  DOM_NOISE,       /* finite, > 0, a noise parameter (calibrate may solve) */
  DOM_NONNEGATIVE, /* finite, >= 0 */
  DOM_RATE,        /* (0, 1] */
  DOM_INT_GE1,     /* integer >= 1 */
  DOM_INT_GE2,     /* integer >= 2 */
  DOM_PROB_LIST,   /* ';'-separated values in [0, 1] summing to 1 (1e-9) */
  DOM_WEIGHT_LIST, /* ';'-separated values in [0, 1] summing to 1 (1e-12) */
  DOM_REAL_LIST,   /* ';'-separated finite values */
  DOM_REAL,        /* any finite value */
  DOM_CHOICE,      /* one word of key_spec.choices ('|'-separated) */
  DOM_PATH         /* a file name (the text itself, see value.text) */
};

/* Which way the key moves epsilon, for calibrate's KEY=?: MORE, larger
 * values are more private (noise scales: adding independent noise is
 * post-processing); LESS, smaller values are (sensitivities, sampling rates,
 * counts: a smaller shift, a rarer use, fewer runs); 0, not known to be
 * monotone (or not a number), so '?' is refused.  DOM_NOISE keys are MORE
 * unless said otherwise. */
enum { MONO_NONE = 0, MONO_MORE = 1, MONO_LESS = -1 };

struct key_spec {
  const char *name;
  enum domain dom;
  int required;
  double def; /* used when !required (DOM_CHOICE: the index) */
  const char *meaning;
  const char *choices; /* DOM_CHOICE only: "a|b|c" */
  int mono;            /* MONO_*, see above */
  double solve_hi;     /* calibrate's search ceiling if not the domain's */
};

/* A parsed value; `real` is also set for integer keys, `integer` is the
 * index for DOM_CHOICE. */
struct value {
  int present;
  double real;
  int64_t integer;
  size_t len;   /* lists */
  double *list; /* lists, owned */
  const char *text; /* DOM_PATH: the path, owned by the tree */
};

/* Build the mechanism from values given in the order of the spec's keys;
 * returns a pld_status (a context the mechanism needs alive is owned by it:
 * pld_mech_from_curve_owned). */
typedef int (*build_fn)(const struct value *v, pld_mech **out);

/* Add count runs of the event's RDP to the curve (at its orders); returns a
 * pld_status, the curve unchanged on failure. */
typedef int (*rdp_fn)(const struct value *v, pld_rdp_curve *c,
                      uint64_t count);

/* Instead of build: add count runs of the event's PLD mechanisms to acc
 * itself (an event made of several mechanisms, e.g. balanced-iteration's
 * split into blocks); returns a pld_status, called only when adding. */
typedef int (*add_fn)(const struct value *v, pld_accountant *acc,
                      uint64_t count);

/* Why these values have no PLD in pldkit (static text), or NULL. */
typedef const char *(*no_pld_fn)(const struct value *v);

/* Checks that involve several keys; returns non-zero and fills why. */
typedef int (*check_fn)(const struct value *v, char *why, size_t n);

/* Non-zero if these values make a closed-form single-round answer rather
 * than a mechanism (random-participation with analysis thm41 or ols). */
typedef int (*closed_fn)(const struct value *v);

/* A warning that goes with the answer for these values, or NULL. */
typedef const char *(*note_fn)(const struct value *v);

/* Why calibrate cannot solve for key k given the other values (static
 * text), or NULL: for events whose monotonicity depends on another key. */
typedef const char *(*no_solve_fn)(const struct value *v, size_t k);

enum kind {
  KIND_MECH,     /* build() gives a mechanism, added with its count */
  KIND_SELECTION, /* takes a bracketed member list (random-selection) */
  KIND_DIST,      /* a saved PLD file (key 0 is its path), added as is */
  KIND_SUBSAMPLE  /* Poisson subsampling (key 0 is the rate q) of the one
                     mechanism event in its brackets (poisson-sampled) */
};

struct event_spec {
  const char *name;
  const char *title;   /* a few words, for the one-line list (pldkit events) */
  const char *summary;
  enum kind kind;
  build_fn build;   /* KIND_MECH; NULL if the event has no PLD */
  add_fn add;       /* KIND_MECH alternative to build (may be NULL) */
  check_fn check;   /* may be NULL */
  closed_fn closed; /* may be NULL */
  note_fn note;     /* may be NULL */
  rdp_fn rdp;       /* KIND_MECH: the RDP formula; NULL: the PLD bridge */
  rdp_fn rdp_lower; /* may be NULL: a cheap curve <= rdp at every order
                       (not an RDP bound), used only to skip rdp where it
                       cannot win (pld_event_ctx.rdp_lower, query.c) */
  rdp_fn rdp_lower2; /* may be NULL (then rdp_lower serves): a cheaper
                        curve, <= rdp_lower's too, tried first
                        (pld_event_ctx.rdp_lower = 2) */
  no_pld_fn no_pld; /* may be NULL (then the event has a PLD) */
  no_solve_fn no_solve; /* may be NULL */
  const char *rdp_how; /* how --backend rdp handles it, for --help */
  const char *example; /* an EVENT text of this event that both backends
                          answer in about a second (help, parity tests) */
  int replace_one;     /* the pair is for replace-one neighbours (so Poisson
                          subsampling, an add/remove notion, is undefined) */
  struct key_spec keys[MAX_KEYS]; /* ends at the first name == NULL */
};


/* random-participation: the analysis key (index of ANALYSES). */
enum { AN_WCS, AN_CS, AN_THM41, AN_OLS, AN_MWCS };
#define ANALYSES "wcs|cs|thm41|ols|mwcs"

/* bounded-gaussian: the kind key (index of BOUNDED_KINDS). */
enum { BK_RECTIFIED, BK_TRUNCATED };
#define BOUNDED_KINDS "rectified|truncated"

/* Shared between the catalogue's files (defined where their section is). */

/* events_pld.c */
int ev_add_bis(const struct value *v, pld_accountant *acc,
               uint64_t count);
int ev_add_split(const struct value *v, pld_accountant *acc,
                 uint64_t count);
int ev_build_bounded(const struct value *v, pld_mech **out);
int ev_build_discrete_gaussian(const struct value *v, pld_mech **out);
int ev_build_discrete_laplace(const struct value *v, pld_mech **out);
int ev_build_finite(const struct value *v, pld_mech **out);
int ev_build_gaussian(const struct value *v, pld_mech **out);
int ev_build_laplace(const struct value *v, pld_mech **out);
int ev_build_mixture_gaussian(const struct value *v, pld_mech **out);
int ev_build_partial_split(const struct value *v, pld_mech **out);
int ev_build_participation(const struct value *v, pld_mech **out);
int ev_build_poisson_bounded(const struct value *v, pld_mech **out);
int ev_build_poisson_gaussian(const struct value *v, pld_mech **out);
int ev_build_poisson_laplace(const struct value *v, pld_mech **out);
int ev_build_poisson_split(const struct value *v, pld_mech **out);
int ev_build_randomized_response(const struct value *v, pld_mech **out);
int ev_build_wor_gaussian(const struct value *v, pld_mech **out);
int ev_closed_participation(const struct value *v);
int ev_mwcs_weights(const struct value *v, double *wq, double *r0);
const char *ev_no_pld_bounded(const struct value *v);
const char *ev_no_pld_poisson_bounded(const struct value *v);
const char *ev_no_solve_participation(const struct value *v, size_t k);
const char *ev_note_participation(const struct value *v);

int ev_add_truncated_poisson(const struct value *v, pld_accountant *acc,
                             uint64_t count);
int ev_build_truncated_poisson(const struct value *v, pld_mech **out);
int ev_build_fixed_batch(const struct value *v, pld_mech **out);
void ev_balls_as_bis(const struct value *v, struct value bis[4]);
int ev_add_balls_in_bins(const struct value *v, pld_accountant *acc,
                         uint64_t count);
int ev_add_bandmf(const struct value *v, pld_accountant *acc, uint64_t count);
int ev_bandmf_steps(const struct value *v, uint64_t count, uint64_t *out);
/* the samplers' adjacency key (the order of enum pld_adjacency) */
#define ADJACENCIES "add-remove|zero-out|replace-one"

/* events_rdp.c */
int ev_rdp_balls_in_bins(const struct value *v, pld_rdp_curve *c,
                         uint64_t count);
int ev_rdp_bandmf(const struct value *v, pld_rdp_curve *c, uint64_t count);
int ev_rdp_bounded(const struct value *v, pld_rdp_curve *c,
                   uint64_t count);
int ev_rdp_bridge(const pld_mech *m, const pld_params *params,
                  uint64_t count, pld_rdp_curve *c);
int ev_rdp_discrete_gaussian(const struct value *v, pld_rdp_curve *c,
                             uint64_t count);
int ev_rdp_gaussian(const struct value *v, pld_rdp_curve *c,
                    uint64_t count);
int ev_rdp_laplace(const struct value *v, pld_rdp_curve *c,
                   uint64_t count);
int ev_rdp_participation(const struct value *v, pld_rdp_curve *c,
                         uint64_t count);
int ev_rdp_poisson_gaussian(const struct value *v, pld_rdp_curve *c,
                            uint64_t count);
int ev_rdp_poisson_split(const struct value *v, pld_rdp_curve *c,
                         uint64_t count);
int ev_rdp_randomized_response(const struct value *v, pld_rdp_curve *c,
                               uint64_t count);
int ev_rdp_splitting(const struct value *v, pld_rdp_curve *c,
                     uint64_t count);
int ev_rdp_splitting_forward(const struct value *v, pld_rdp_curve *c,
                             uint64_t count);
int ev_rdp_model_splitting(const struct value *v, pld_rdp_curve *c,
                           uint64_t count);
int ev_rdp_model_splitting_forward(const struct value *v, pld_rdp_curve *c,
                                   uint64_t count);
int ev_rdp_model_splitting_projection(const struct value *v,
                                      pld_rdp_curve *c, uint64_t count);
int ev_rdp_bis_projection(const struct value *v, pld_rdp_curve *c,
                          uint64_t count);
/* model-splitting: the clip key (index of CLIPS, = pld_split_clip). */
enum { CLIP_BLOCK, CLIP_TOTAL };
#define CLIPS "block|total"
int ev_rdp_wor_gaussian(const struct value *v, pld_rdp_curve *c,
                        uint64_t count);
int ev_rdp_zero_like(const pld_rdp_curve *c, pld_rdp_curve **out);

/* events_check.c */
int ev_build_merge_lc(const struct value *v, pld_mech **out);
int ev_check_bis(const struct value *v, char *why, size_t n);
int ev_check_discrete_gaussian(const struct value *v, char *why, size_t n);
int ev_check_discrete_sensitivity(const struct value *v, char *why,
                                  size_t n);
int ev_check_finite(const struct value *v, char *why, size_t n);
int ev_check_merge_lc(const struct value *v, char *why, size_t n);
int ev_check_mixture(const struct value *v, char *why, size_t n);
int ev_check_selection(const struct value *v, char *why, size_t n);
int ev_check_split(const struct value *v, char *why, size_t n);
int ev_check_wor(const struct value *v, char *why, size_t n);
#define EV_THM41_MAX_D 1000000
int ev_check_participation(const struct value *v, char *why, size_t n);
int ev_rdp_merge_lc(const struct value *v, pld_rdp_curve *c,
                    uint64_t count);

/* events_table.c */
const char *ev_choice_name(const struct key_spec *ks, int64_t i, char *buf,
                           size_t n);
void ev_domain_phrase(const struct key_spec *ks, char *buf, size_t n);
const char *ev_domain_text(enum domain d);
const struct event_spec *ev_find_event(const char *name);
int ev_key_mono(const struct key_spec *ks);
void ev_list_event_names(char *buf, size_t n);
size_t ev_n_keys(const struct event_spec *e);

#endif
