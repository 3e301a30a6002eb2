/* pldkit: the EVENT catalogue -- the grammar every front end speaks (the
 * CLI, Python) and, for each event, its keys and domains, its PLD builder
 * and its RDP (closed form, paper bound, or the PLD bridge).
 *
 *   LIST   := EVENT { '+' EVENT }
 *   EVENT  := NAME [ ':' ITEM { ',' ITEM } ] [ '[' LIST { '|' LIST } ']' ]
 *   ITEM   := KEY '=' VALUE
 *
 * NAME and KEY come from one table in catalogue/events_table.c (the only place to touch when
 * an event is added); every event also takes `count=N` (self-composition).
 * List values (finite:p=0.5;0.5) are ';'-separated.  Only random-selection
 * and poisson-sampled take the bracketed member list: random-selection's
 * members are LISTs, composed on their own, and nest; poisson-sampled has
 * exactly one member, one mechanism EVENT with count 1.  A '+' separates
 * events only at bracket depth 0 of its LIST and when a letter follows it,
 * so that 1e+5 stays a number.
 */
#ifndef PLDKIT_EVENT_H
#define PLDKIT_EVENT_H

#include <stddef.h>
#include <stdio.h>

#include <pldkit/accountant.h>
#include <pldkit/rdp.h>
#include <pldkit/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Return codes of the CLI helpers; they double as process exit statuses. */
enum pld_event_rc {
  PLD_EVENT_OK = 0,     /* success */
  PLD_EVENT_EFAIL = 1,  /* the library failed on valid input (e.g. PLD_ENOMEM) */
  PLD_EVENT_EUSAGE = 2  /* the input is bad; err names the bad token */
};

/* Largest count=N accepted (the contract's limit): beyond 2^53 not every
 * count is exactly representable as a double, so no caller can rely on it. */
#define PLD_EVENT_MAX_COUNT 9007199254740992ULL

/* Deepest nesting of random-selection member lists. */
#define PLD_EVENT_MAX_DEPTH 32

#define PLD_QUOTE_LEN 96

/* A single-round closed-form answer (random-participation with
 * analysis=thm41 or ols): not a mechanism, so it is not added to an
 * accountant; the caller answers it with pld_event_closed_query. */
typedef struct pld_event_closed {
  int present;
  int analysis; /* index into the analysis choices */
  double p, q, C, sigma;
  long long d;
  unsigned long long count;
  char where[PLD_QUOTE_LEN]; /* the quoted event, for messages */
} pld_event_closed;

/* The accounting backends an EVENT list is checked against
 * (pld_event_ctx.backends; 0 means PLD_EVENT_BACKEND_PLD). */
enum pld_event_backend {
  PLD_EVENT_BACKEND_PLD = 1, /* privacy loss distributions (the accountant) */
  PLD_EVENT_BACKEND_RDP = 2  /* Renyi DP curves */
};

/* calibrate's validation pass: '?' stands for a valid value of its key. */
#define PLD_EVENT_STANDIN "<stand-in>"

/* Objects that must outlive the mechanisms built by a parse (the context of
 * a mechanism made with pld_mech_from_curve); freed by
 * pld_event_ctx_release. */
typedef struct pld_event_owned pld_event_owned;

/* State shared by the parses of one command line (all its EVENTs). */
typedef struct pld_event_ctx {
  /* in */
  const pld_params *params; /* grid parameters of member accountants
                               (random-selection) and of the RDP bridge;
                               NULL means defaults */
  const char *subst;        /* calibrate: the value text that replaces the
                               one KEY=? marker (PLD_EVENT_STANDIN: a valid
                               stand-in for validation); NULL: '?' is an
                               error */
  unsigned backends;        /* enum pld_event_backend bits the EVENTs must
                               work with (validation); 0 means PLD */
  int no_bridge;            /* pld_event_parse_rdp: an event without an
                               RDP formula fails (PLD_EVENT_EFAIL) instead of
                               going through the PLD bridge (the default
                               backend's optional RDP bound, which must stay
                               cheap) */
  int rdp_lower;            /* pld_event_parse_rdp: a top-level event with
                               a cheap lower curve (model-splitting,
                               balanced-iteration: the forward terms
                               alone) adds that instead of its RDP; the
                               curve is then NOT an RDP bound but <= the
                               one without the flag at every order, so its
                               epsilon/delta is <= the RDP's (a conversion
                               is monotone in the curve): the default
                               backend skips its optional RDP bound when
                               even this cannot win (catalogue/query.c).
                               2: where an event has an even cheaper
                               lower curve (balanced-iteration and
                               model-splitting with 1 < k < T: a
                               projection of the run), that one */
  /* out, accumulated over calls (zero the struct to start) */
  unsigned marks;                     /* KEY=? markers seen */
  char mark_key[32];                  /* the key of the marker */
  char mark_where[PLD_QUOTE_LEN]; /* the quoted event holding it */
  int mark_direction;  /* +1: larger values are more private, -1: smaller */
  int mark_integer;    /* the key takes integers (count, integer keys) */
  double mark_lo, mark_hi; /* the domain calibrate searches */
  unsigned top_events;                /* events at the top level */
  const char *note;                   /* a warning for the answer, or NULL
                                         (static text) */
  const char *not_bound;              /* NULL when every event's answer is a
                                         proven bound; else what it is
                                         instead ("lower_limit": random-
                                         participation analysis=cs) */
  pld_event_closed closed;              /* a closed-form event, if any */
  unsigned bridged;                   /* events whose RDP went through the
                                         PLD bridge (pld_event_parse_rdp) */
  unsigned lowered;                   /* events that added their lower
                                         curve (rdp_lower) */
  pld_event_owned *owned;               /* see pld_event_owned */
} pld_event_ctx;

/** Parse one command-line EVENT argument (a LIST), build its mechanisms and
 *  add them with their counts to `acc`.
 *  With acc == NULL the text is only validated (mechanisms are still built,
 *  so that the library's own checks run too, then freed); this is how the CLI
 *  validates all input before computing anything, and what a fuzzer calls.
 *  ctx may be NULL (defaults, no '?', PLD backend); then an event whose
 *  mechanism needs an owned context (bounded-gaussian) cannot be added to
 *  acc (PLD_EVENT_EFAIL).  With a ctx, call pld_event_ctx_release after acc is
 *  freed.
 *  On failure err receives one line (no "pldkit: " prefix, no newline) that
 *  names the bad token and what is allowed.  err may be NULL.
 *  One call is one update, all or nothing: on any failure acc is unchanged
 *  (the events are built in a scratch accountant and merged with
 *  pld_accountant_merge).
 *  @return PLD_EVENT_OK, PLD_EVENT_EUSAGE (bad text) or PLD_EVENT_EFAIL (the
 *  library failed, e.g. out of memory). */
PLD_API int pld_event_parse(const char *text, pld_event_ctx *ctx,
                        pld_accountant *acc, char *err, size_t errlen);

/** Like pld_event_parse, but add the RDP of the EVENTs to `curve` (at
 *  its orders; NULL: validate only, as with acc == NULL).  Events with an
 *  RDP formula use it (<pldkit/rdp.h>, <pldkit/rdp_papers.h>); the others
 *  go through the PLD bridge: the one-run PLD (pld_dist_from_curve on a fine
 *  grid), its certified upper RDP (pld_rdp_of_pld), composed count times.
 *  The bridge is conservative and may give +inf.  ctx->bridged counts them.
 *  All or nothing, as pld_event_parse: on failure curve is unchanged.
 *  @return as pld_event_parse. */
PLD_API int pld_event_parse_rdp(const char *text, pld_event_ctx *ctx,
                            pld_rdp_curve *curve, char *err, size_t errlen);

/** One PLD file an EVENT text references: a pld:file=FILE event, found
 *  wherever it stands (in a '+' list, in a random-selection member) and
 *  however its keys are ordered (pld:count=1,file=F is pld:file=F,count=1). */
typedef struct pld_event_file {
  char *path;               /* FILE as the text spells it (owned) */
  unsigned long long count; /* the event's count=N */
  int alone;                /* the text is this one event (no '+', not a
                               member) */
} pld_event_file;

/** The PLD files the EVENT text (a LIST) references, in the order they
 *  appear, after the text is fully parsed and its keys checked (no file is
 *  read and no mechanism built).  A front end compares them with a file it
 *  writes by identity (device and inode, stat(2)), never by text: this is
 *  how the CLI tells a ledger update `save --out L pld:file=L EVENT...`
 *  from a plain save.  On success *out (NULL when *n == 0) is freed with
 *  pld_event_files_free.
 *  @return PLD_SUCCESS, PLD_EINVAL (NULL argument, or the text does not
 *  parse: pld_error_detail says why, as pld_event_parse would), PLD_ENOMEM;
 *  outputs untouched on failure. */
PLD_API PLD_NODISCARD int pld_event_files(const char *text,
                                          pld_event_file **out, size_t *n);

/** Free what pld_event_files returned (NULL is a no-op). */
PLD_API void pld_event_files_free(pld_event_file *files, size_t n);

/** Free what the parses with ctx keep alive (ctx->owned); call it after the
 *  accountants those parses filled are freed.  The rest of ctx is kept. */
PLD_API void pld_event_ctx_release(pld_event_ctx *ctx);

/** Move the objects of *from to the end of *to (both lists may be empty). */
PLD_API void pld_event_owned_move(pld_event_owned **to, pld_event_owned **from);

/** Free a list of owned objects (NULL is a no-op). */
PLD_API void pld_event_owned_free(pld_event_owned *list);

/* What pld_event_catalogue_write writes. */
enum pld_event_catalogue_mode {
  PLD_EVENT_CAT_LIST, /* one line per event: its name and a few words */
  PLD_EVENT_CAT_FULL  /* the summary, the RDP formula, every key with its
                       meaning, default and domain (random-selection: also
                       the grammar of member lists) */
};

/** Walk the event table (the only description of the events): write every
 *  event (name == NULL), or the one called `name`, in the given form
 *  ('pldkit events', 'pldkit help EVENT').
 *  @return 0, or -1 if no event is called `name` (nothing written). */
PLD_API int pld_event_catalogue_write(FILE *f, enum pld_event_catalogue_mode mode,
                            const char *name);

/** The grammar of random-selection's member lists and of '+'. */
PLD_API void pld_event_members_help(FILE *f);

/** How the RDP backend treats the events ('pldkit help rdp'). */
PLD_API void pld_event_rdp_help(FILE *f);

/** One catalogue entry: its NAME, a title of a few words, a one-paragraph
 *  summary, an example
 *  EVENT text (NULL for `pld`, which needs a file), how the RDP backend
 *  answers it, whether the PLD backend answers it (else --backend rdp
 *  only) and its number of keys (count= not included).  Strings are
 *  static. */
typedef struct pld_event_info {
  const char *name;
  const char *title;   /* a few words, for one-line lists */
  const char *summary;
  const char *example;
  const char *rdp_how;
  int has_pld;
  size_t n_keys;
} pld_event_info;

/** Number of events in the catalogue. */
PLD_API size_t pld_event_count(void);
/** Entry i < pld_event_count().  @return PLD_SUCCESS or PLD_EINVAL. */
PLD_API int pld_event_info_get(size_t i, pld_event_info *out);
/** The index of the event called `name`.  @return PLD_SUCCESS or
 *  PLD_EINVAL (no such event; *index untouched). */
PLD_API int pld_event_find(const char *name, size_t *index);

/** The names of the keys that calibrate may solve for in some event (keys in
 *  which epsilon is monotone, and count), comma-separated, e.g. "sigma,
 *  sensitivity, b, ...". */
PLD_API const char *pld_event_solvable_keys(void);
/** Non-zero if `name` is one of them. */
PLD_API int pld_event_is_solvable_key(const char *name);

/** Name of a closed-form analysis (pld_event_closed.analysis). */
PLD_API const char *pld_event_closed_name(const pld_event_closed *c);

/** The answer to a closed-form event. */
typedef struct pld_event_closed_answer {
  pld_bound bound;  /* the delta or epsilon bracket (booked rounding error) */
  int certified;    /* bound.upper is a proven bound (never for thm41) */
  int refuted;      /* thm41: a concrete dataset has a larger delta, or it
                       falls below cs */
  int below_cs;     /* thm41: its delta is below CS's (so not a bound) */
  double cs_delta;  /* thm41: CS's delta at the epsilon used, else NAN */
  double lower_limit; /* thm41: pldkit's certified lower limit of the true
                         worst-case delta there, else NAN */
  unsigned evaluations; /* closed-form evaluations made */
} pld_event_closed_answer;

/** The epsilon bracket of a closed-form event at delta, for calibrate
 *  (pld_participation_epsilon).  @return a pld_status (not a pld_event_rc). */
PLD_API int pld_event_closed_bracket(const pld_event_closed *c, double delta,
                           pld_bound *out);

/** Answer a closed-form event: want_delta ? delta(x) : epsilon(x).
 *  On failure err gets one line.  @return a pld_event_rc. */
PLD_API int pld_event_closed_query(const pld_event_closed *c, int want_delta, double x,
                         pld_event_closed_answer *out, char *err,
                         size_t errlen);

/* ---- answering an EVENT list (catalogue/query.c) ---- */

/** How an EVENT list is answered: the grid parameters of the PLD backend,
 *  which backends answer (PLD_EVENT_BACKEND_PLD, _RDP or both), the RDP
 *  conversion (enum pld_rdp_conversion) and its orders (NULL: the default
 *  grid).  Fill it with pld_event_query_default, then change fields. */
typedef struct pld_event_query {
  pld_params params;
  unsigned backend;
  int rdp_method;
  const double *orders;
  size_t n_orders;
} pld_event_query;

/** Defaults: pld_params_default, the PLD backend, PLD_RDP_BEST, the
 *  default orders. */
PLD_API void pld_event_query_default(pld_event_query *q);

/** An answer.  PLD backend (have_pld): `pld` is the tightest certified
 *  bracket the library has (pld_best_*: the accountant, grid-free bounds and
 *  the events' RDP when every event has an RDP formula); for a closed-form
 *  single-round event (closed != 0) it is that formula's bracket and
 *  closed_answer says whether it is certified.  RDP backend (have_rdp): the
 *  RDP answer on the query's orders; `bridged` events went through the PLD
 *  bridge.  `not_bound` says when the upper end is no bound.  `note` is a warning to show with the answer (static text) or
 *  NULL; `status` the library status of a failed computation. */
typedef struct pld_event_answer {
  int have_pld;
  pld_result pld;
  int closed;
  pld_event_closed closed_event;
  pld_event_closed_answer closed_answer;
  int have_rdp;
  pld_rdp_result rdp;
  unsigned bridged;
  size_t rdp_n;              /* the RDP orders: how many, first and last */
  double rdp_first, rdp_last;
  const char *note;
  const char *not_bound; /* NULL when the answer is a proven bound; else
                            what it is instead ("lower_limit": an event is
                            random-participation analysis=cs) */
  int status;
  double pld_seconds, rdp_seconds; /* wall-clock time of each backend */
} pld_event_answer;

/** epsilon(delta) of the composition of n EVENT texts (each a LIST of the
 *  grammar above), as the CLI's `pldkit epsilon --delta D EVENT...` gives
 *  it.  Every event is validated before anything is computed.  On failure
 *  err gets one line naming the bad token or the failed computation, and
 *  of *out only `status` is written: the library status of the failed
 *  computation (0 when the input was refused before computing).  Cost: that of the accountant's query.
 *  @return PLD_EVENT_OK, PLD_EVENT_EUSAGE (bad input, including n == 0)
 *  or PLD_EVENT_EFAIL (the computation failed, e.g. out of memory). */
PLD_API int pld_event_epsilon(const pld_event_query *q, size_t n,
                              const char *const *events, double delta,
                              pld_event_answer *out, char *err,
                              size_t errlen);

/** delta(epsilon), as pld_event_epsilon. */
PLD_API int pld_event_delta(const pld_event_query *q, size_t n,
                            const char *const *events, double epsilon,
                            pld_event_answer *out, char *err, size_t errlen);

/** delta at m epsilons (PLD backend only) into curve[0..m-1], as
 *  `pldkit curve`. */
PLD_API int pld_event_curve(const pld_event_query *q, size_t n,
                            const char *const *events, size_t m,
                            const double *eps, pld_bound *curve,
                            pld_event_answer *out, char *err, size_t errlen);

/** A fresh accountant holding the n EVENTs (q->params), `subst` replacing
 *  the one KEY=? marker (NULL: none allowed).  Objects its mechanisms need
 *  are appended to *owned; free them (pld_event_owned_free) after the
 *  accountant.  @return as pld_event_parse. */
PLD_API int pld_event_accountant(const pld_event_query *q, size_t n,
                                 const char *const *events,
                                 const char *subst, pld_accountant **out,
                                 pld_event_owned **owned, char *err,
                                 size_t errlen);

/** The RDP curve of the n EVENTs on q's orders; with no_bridge an event
 *  without an RDP formula fails (PLD_EVENT_EFAIL) instead of going through
 *  the PLD bridge.  *bridged (may be NULL) counts bridged events.
 *  @return as pld_event_parse. */
PLD_API int pld_event_rdp_curve(const pld_event_query *q, size_t n,
                                const char *const *events, const char *subst,
                                int no_bridge, pld_rdp_curve **out,
                                unsigned *bridged, char *err, size_t errlen);

/** The composed PLD that `pldkit save` writes: on params->discretization
 *  when > 0, else on the grid the accountant's automatic refinement picks
 *  for epsilon(delta).  An all-Gaussian list is answered in closed form and
 *  so names no grid: there the grid starts at params->accuracy * max(epsilon,
 *  0.1) and is halved (at most 6 times, not below 1e-6) until the composed
 *  PLD's own bracket meets params->accuracy.  On PLD_SUCCESS *out is the PLD
 *  (free with pld_dist_free), res->bound its own epsilon(delta) bracket and
 *  res->refinements the grids the accountant tried (0 for a fixed grid);
 *  the other fields of *res are 0.  When the accountant answered without
 *  any grid (none fits, or its booked round-off compounds past use) there
 *  is nothing to save: PLD_SUCCESS with *out = NULL and *res that answer
 *  (its bound and bound_kind say why).  Other statuses as
 *  pld_accountant_epsilon / pld_accountant_compose / pld_dist_epsilon.
 *  acc is not freed. */
PLD_API int pld_event_compose_for_save(pld_accountant *acc, double delta,
                                       const pld_params *params,
                                       pld_dist **out, pld_result *res);

/* Strict number parsing shared with the option parser: the whole token must
 * be consumed, no leading blanks, and the value must be finite. */

/** @return 0 and *out set, or -1 if s is empty or not a finite number. */
PLD_API int pld_event_parse_double(const char *s, double *out);

enum pld_event_int_rc {
  PLD_EVENT_INT_OK = 0,
  PLD_EVENT_INT_NOT_INTEGER = 1, /* empty, or not a decimal integer literal */
  PLD_EVENT_INT_RANGE = 2        /* an integer, but outside [lo, hi] */
};
/** Parse a decimal integer in [lo, hi].  @return enum pld_event_int_rc. */
PLD_API int pld_event_parse_int(const char *s, long long lo, long long hi,
                      long long *out);

/** The enum pld_event_rc for a library status met after the input was
 *  parsed: PLD_EVENT_EUSAGE (the input's fault: out of a domain the parser
 *  does not know, over a cap the user can raise, an accuracy that cannot
 *  be met, incompatible grids, a bad file) or PLD_EVENT_EFAIL (the
 *  machine's: memory, FFTW, non-convergence, a failing callback); 0 for
 *  PLD_SUCCESS.  The CLI's exit code. */
PLD_API int pld_event_rc_of_status(int st);

/* ---- text helpers (catalogue/text.c) ---- */

/** Quote a user token for a message: 'text', non-printable bytes as \xNN,
 *  cut with "..." when long.  Returns buf.  size should be >= 16. */
PLD_API const char *pld_quote(char *buf, size_t size, const char *s);

/** x with `digits` significant digits (%g style); infinities as "inf". */
PLD_API void pld_fmt(char *buf, size_t size, double x, int digits);

/** The shortest decimal that reads back as exactly x (at most 17 digits);
 *  infinities as "inf".  For machine-readable output. */
PLD_API void pld_fmt_exact(char *buf, size_t size, double x);

/** Format a bracket with at least 6 significant digits, more when needed to
 *  tell lower and upper apart. */
PLD_API void pld_fmt_bracket(char *lo, char *hi, size_t size, double lower,
                         double upper);

/** Print `head` padded to column `indent`, then `text` word-wrapped to 79
 *  columns with continuation lines indented to `indent` (help texts). */
PLD_API void pld_text_wrap(FILE *f, const char *head, size_t indent, const char *text);

#ifdef __cplusplus
}
#endif
#endif
