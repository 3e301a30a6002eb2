/* pldkit: the event model -- what every front end speaks.
 *
 * An event is a tree (pld_event, opaque): a LIST of EVENTs composed in
 * order, each a mechanism of the catalogue with its keys and a count, a
 * random selection of member LISTs, or the Poisson subsampling of one
 * member.  A tree is made once -- from text, from dp_accounting's DpEvent
 * trees (<pldkit/dpevent.h>), or by composing trees -- and then answers
 * everything: an accountant, an RDP curve, epsilon, delta, a curve, the
 * calibration of a hole, the PLD that a ledger saves.  Text is parsed once.
 *
 * The text grammar (the catalogue's names and keys: pld_event_info_get):
 *
 *   LIST   := EVENT { '+' EVENT }
 *   EVENT  := NAME [ ':' ITEM { ',' ITEM } ] [ '[' LIST { '|' LIST } ']' ]
 *   ITEM   := KEY '=' VALUE
 *
 * Every event also takes `count=N` (self-composition, 1 <= N <= 2^53).  List
 * values (finite:p=0.5;0.5) are ';'-separated.  random-selection carries a
 * bracketed list of member LISTs (one per weight), which nest;
 * poisson-sampled carries exactly one mechanism EVENT with count 1.  A '+'
 * separates events only at bracket depth 0 and when a letter follows it, so
 * that 1e+5 stays a number.  `KEY=?` marks a hole: the one number
 * calibration solves for (pld_event_hole, pld_event_fill,
 * pld_event_calibrate).
 *
 * Errors: every fallible call returns a pld_status (PLD_EINVAL for bad
 * input) and records one line in pld_error_detail() that quotes the event
 * and names its key, the value and what is allowed.  Outputs are untouched
 * on failure.  A tree is immutable once made: calls taking a const tree may
 * run on several threads at once.
 */
#ifndef PLDKIT_EVENT_H
#define PLDKIT_EVENT_H

#include <stddef.h>
#include <stdint.h>

#include <pldkit/accountant.h>
#include <pldkit/select.h>
#include <pldkit/rdp.h>
#include <pldkit/status.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pld_event pld_event;

/** Largest count=N accepted: beyond 2^53 not every count is exactly
 *  representable as a double. */
#define PLD_EVENT_MAX_COUNT 9007199254740992ULL
/** Deepest nesting of random-selection member lists. */
#define PLD_EVENT_MAX_DEPTH 32

/* ---- making and reading trees ---- */

/** Parse one LIST into a tree.  Every key is checked against its domain and
 *  every event's cross-key rules; nothing is built.  At most one `KEY=?`
 *  hole.  Free *out with pld_event_free.
 *  @return PLD_SUCCESS, PLD_EINVAL (bad text: the detail quotes the event
 *  and names the key), PLD_ENOMEM. */
PLD_API PLD_NODISCARD int pld_event_parse(const char *text, pld_event **out);

/** The composition of n >= 1 trees, in order (deep copies); at most one of
 *  them may hold a hole.  @return PLD_SUCCESS, PLD_EINVAL (n = 0, NULL, two
 *  holes, a closed-form single-round analysis composed with anything),
 *  PLD_ENOMEM. */
PLD_API PLD_NODISCARD int pld_event_compose(size_t n,
                                            const pld_event *const *parts,
                                            pld_event **out);

/** Free a tree (NULL is a no-op). */
PLD_API void pld_event_free(pld_event *ev);

/** The canonical text of a tree: the catalogue's names, keys in table
 *  order, keys at their default left out, numbers in the shortest form that
 *  reads back to the same double, count=N only when N > 1.  Parsing it
 *  gives the same tree.  Writes at most size bytes including the NUL to buf
 *  (buf may be NULL when size is 0); *len (may be NULL) receives the full
 *  length without the NUL, so a first call with size 0 sizes the buffer.
 *  @return PLD_SUCCESS, PLD_ERANGE (buf too small: truncated text written,
 *  *len set), PLD_EINVAL (NULL ev). */
PLD_API PLD_NODISCARD int pld_event_format(const pld_event *ev, char *buf,
                                           size_t size, size_t *len);

/** What a tree holds, for front ends and messages. */
typedef struct pld_event_summary {
  size_t size;            /**< sizeof(pld_event_summary), set by the caller */
  size_t events;          /**< top-level EVENTs */
  int closed;             /**< a closed-form single-round analysis
                               (random-participation analysis=thm41|ols):
                               answered by its formula, no accountant */
  const char *closed_analysis; /**< its name ("thm41", "ols"), else NULL */
  int has_pld;            /**< every event has a PLD (else only the RDP
                               backend answers: pld_event_to_rdp) */
  int has_rdp_formula;    /**< every event has an RDP formula (no bridge) */
  int files;              /**< pld:file= events */
  const char *note;       /**< a warning that goes with every answer, or
                               NULL (static text) */
  const char *not_bound;  /**< NULL when answers are proven bounds; else
                               what they are ("lower_limit") */
} pld_event_summary;

/** Fill *out (out->size must be set).  @return PLD_SUCCESS, PLD_EINVAL. */
PLD_API PLD_NODISCARD int pld_event_summarize(const pld_event *ev,
                                              pld_event_summary *out);

/** The PLD files a tree reads (pld:file=PATH), in order, at most n of them
 *  into paths[] (pointers into the tree, valid while it lives); *count
 *  receives how many there are.  @return PLD_SUCCESS, PLD_EINVAL. */
PLD_API PLD_NODISCARD int pld_event_files(const pld_event *ev, size_t n,
                                          const char **paths, size_t *count);

/* ---- holes (KEY=?) ---- */

/** The hole of a tree. */
typedef struct pld_event_hole {
  size_t size;      /**< sizeof(pld_event_hole), set by the caller */
  int present;      /**< 0: the tree has no hole (the rest is zero) */
  char key[32];     /**< the key, e.g. "sigma" or "count" */
  char where[96];   /**< the event holding it, quoted, for messages */
  int direction;    /**< +1: larger values are more private; -1: smaller */
  int integer;      /**< the key takes integers */
  double lo, hi;    /**< the domain calibration searches */
} pld_event_hole;

/** @return PLD_SUCCESS, PLD_EINVAL (NULL, or out->size too small). */
PLD_API PLD_NODISCARD int pld_event_get_hole(const pld_event *ev,
                                             pld_event_hole *out);

/** A copy of the tree with its hole filled by `value` (checked against the
 *  key's domain and the event's cross-key rules).
 *  @return PLD_SUCCESS, PLD_EINVAL (no hole, a value outside the domain),
 *  PLD_ENOMEM. */
PLD_API PLD_NODISCARD int pld_event_fill(const pld_event *ev, double value,
                                         pld_event **out);

/* ---- what a tree becomes ---- */

/** A fresh accountant (params NULL: defaults) holding the tree's
 *  mechanisms with their counts.  @return PLD_SUCCESS, PLD_EINVAL (a hole,
 *  a closed-form analysis, an event without a PLD, a value the library
 *  refuses), PLD_EINCOMPAT (PLD files on different grids), PLD_EIO /
 *  PLD_EFORMAT / PLD_EVERSION / PLD_ERANGE (a PLD file), PLD_ENOMEM. */
PLD_API PLD_NODISCARD int pld_event_to_accountant(const pld_event *ev,
                                                  const pld_params *params,
                                                  pld_accountant **out);

/** Add the tree's mechanisms to `acc`, all or nothing (acc is unchanged on
 *  failure).  Statuses as pld_event_to_accountant. */
PLD_API PLD_NODISCARD int pld_event_add_to(const pld_event *ev,
                                           pld_accountant *acc);

/** The RDP curve of the tree on n orders (orders NULL: the default grid of
 *  <pldkit/rdp.h>).  Events with an RDP formula use it; with bridge != 0
 *  the others go through the PLD bridge (pld_rdp_of_pld of their one-run
 *  PLD on params' grid; conservative, may be +inf), else they fail with
 *  PLD_EUNSUPPORTED.  *bridged (may be NULL) counts bridged events.
 *  @return PLD_SUCCESS, PLD_EINVAL, PLD_EUNSUPPORTED, PLD_ERANGE,
 *  PLD_ENOMEM. */
PLD_API PLD_NODISCARD int pld_event_to_rdp(const pld_event *ev, size_t n,
                                           const double *orders, int bridge,
                                           const pld_params *params,
                                           pld_rdp_curve **out,
                                           unsigned *bridged);

/* ---- answers ---- */

/** The backends that answer (pld_event_query.backend). */
enum pld_event_backend {
  PLD_EVENT_BACKEND_PLD = 1, /**< privacy loss distributions */
  PLD_EVENT_BACKEND_RDP = 2  /**< Renyi DP curves */
};

/** How a tree is answered: the PLD backend's grid parameters, the backends
 *  (PLD, RDP or both), the RDP conversion and orders (NULL: the default
 *  grid).  Fill with pld_event_query_default, then change fields. */
typedef struct pld_event_query {
  size_t size; /**< sizeof(pld_event_query), set by pld_event_query_default */
  pld_params params;
  unsigned backend;
  int rdp_method;
  const double *orders;
  size_t n_orders;
} pld_event_query;

/** Defaults: pld_params_default, the PLD backend, PLD_RDP_BEST, the
 *  default orders. */
PLD_API void pld_event_query_default(pld_event_query *q);

/** The answer of a closed-form single-round analysis. */
typedef struct pld_event_closed_answer {
  pld_bound bound;      /**< the delta or epsilon bracket */
  int certified;        /**< bound.upper is a proven bound (never thm41) */
  int refuted;          /**< thm41: a concrete dataset has a larger delta,
                             or it falls below cs */
  int below_cs;         /**< thm41: its delta is below CS's */
  double cs_delta;      /**< thm41: CS's delta at the epsilon used, else NaN */
  double lower_limit;   /**< thm41: certified lower limit of the true
                             worst-case delta there, else NaN */
  unsigned evaluations; /**< closed-form evaluations made */
  char analysis[8];     /**< "thm41", "ols", ... */
} pld_event_closed_answer;

/** An answer.  PLD backend (have_pld): `pld` is the tightest certified
 *  bracket the library has (the accountant, its grid-free bounds and, where
 *  the bracket missed its target and every event has an RDP formula, the
 *  RDP bound; pld.bound_kind names the bound behind each end); a
 *  closed-form single-round analysis (closed != 0) answers with its formula
 *  (closed_answer says whether it is certified).  RDP backend (have_rdp):
 *  the RDP answer on the query's orders.  `note`: a warning to show with
 *  the answer (static text) or NULL; `not_bound`: NULL when the upper end
 *  is a proven bound, else what it is. */
typedef struct pld_event_answer {
  size_t size; /**< sizeof(pld_event_answer), set by the caller */
  int have_pld;
  pld_result pld;
  int closed;
  pld_event_closed_answer closed_answer;
  int have_rdp;
  pld_rdp_result rdp;
  unsigned bridged;          /**< events that went through the PLD bridge */
  size_t rdp_n;              /**< the RDP orders: how many, first, last */
  double rdp_first, rdp_last;
  const char *note;
  const char *not_bound;
  double pld_seconds, rdp_seconds; /**< wall-clock time of each backend */
} pld_event_answer;

/** epsilon(delta) of the tree, delta in (0, 1).  out->size must be set.
 *  @return PLD_SUCCESS, PLD_EINVAL (bad query, a hole, an event the
 *  backend cannot answer), or the status of the failed computation (as
 *  pld_accountant_epsilon). */
PLD_API PLD_NODISCARD int pld_event_epsilon(const pld_event *ev,
                                            const pld_event_query *q,
                                            double delta,
                                            pld_event_answer *out);

/** delta(epsilon), epsilon >= 0; as pld_event_epsilon. */
PLD_API PLD_NODISCARD int pld_event_delta(const pld_event *ev,
                                          const pld_event_query *q,
                                          double epsilon,
                                          pld_event_answer *out);

/** delta at m >= 1 epsilons into curve[0..m-1] (PLD backend only); out's
 *  pld.bound summarizes the points that steered the refinement. */
PLD_API PLD_NODISCARD int pld_event_curve(const pld_event *ev,
                                          const pld_event_query *q, size_t m,
                                          const double *eps, pld_bound *curve,
                                          pld_event_answer *out);

/* ---- calibration over a hole ---- */

/** The result of a calibration (pld_event_calibrate). */
typedef struct pld_event_calibration {
  size_t size;               /**< sizeof(pld_event_calibration) */
  pld_search_result search;  /**< the search: value, neighbour, status */
  pld_event_closed_answer closed; /**< a closed-form analysis: its flags at
                                       the value */
  int closed_form;           /**< the tree is a closed-form analysis */
  pld_rdp_result rdp;        /**< RDP backend: the answer at the value */
  pld_rdp_result rdp_next;   /**< ... and at the neighbour */
  int have_rdp;              /**< bit 1: rdp is set; bit 2: rdp_next is */
  unsigned bridged;          /**< RDP: events that went through the PLD
                                  bridge */
} pld_event_calibration;

/** Find the least private value of the tree's hole that meets (epsilon,
 *  delta) by the backend's certified upper end (q->backend: exactly one of
 *  PLD or RDP; the PLD backend's bracket includes the RDP bound as in
 *  pld_event_epsilon), searching opts' domain within the hole's (opts NULL:
 *  pld_search_opts_default over the hole's domain).  The value returned
 *  meets the target; its neighbour at the search's tolerance does not
 *  (out->search says which ends the search proved).  progress (may be
 *  NULL) is called after each evaluation.
 *  @return PLD_SUCCESS (the search ran: out->search.status says whether a
 *  value was found), PLD_EINVAL (no hole, bad target, bad opts), or the
 *  status of a failed evaluation. */
PLD_API PLD_NODISCARD int pld_event_calibrate(
    const pld_event *ev, const pld_event_query *q, double epsilon,
    double delta, const pld_search_opts *opts,
    pld_progress_fn progress, void *progress_ctx,
    pld_event_calibration *out);

/* ---- saving ---- */

/** The composed PLD that a ledger saves of the tree's accountant `acc`
 *  (pld_event_to_accountant): on params->discretization when > 0, else on
 *  the grid the accountant's refinement picks for epsilon(delta); a
 *  Gaussian-only list (answered in closed form, so naming no grid) is
 *  composed from accuracy * max(epsilon, 0.1), halved (at most 6 times, not
 *  below 1e-6) until the PLD's own bracket meets params->accuracy.  On
 *  PLD_SUCCESS *out is the PLD (NULL when the accountant answered without
 *  any grid: nothing to save; res says why) and res->bound its own
 *  epsilon(delta) bracket.  Statuses as pld_accountant_epsilon. */
PLD_API PLD_NODISCARD int pld_event_compose_for_save(
    const pld_accountant *acc, double delta, const pld_params *params,
    pld_dist **out, pld_result *res);

/* ---- the catalogue ---- */

/** One catalogue entry.  Strings are static. */
typedef struct pld_event_info {
  const char *name;
  const char *title;   /**< a few words, for one-line lists */
  const char *summary;
  const char *example; /**< an EVENT text (NULL for pld, which needs a file) */
  const char *rdp_how; /**< how the RDP backend answers it */
  int has_pld;         /**< the PLD backend answers it */
  size_t n_keys;       /**< keys, count= not included */
  int members;         /**< 0 none; 1 a bracketed list of member LISTs
                            (random-selection); 2 one member EVENT
                            (poisson-sampled) */
} pld_event_info;

/** Number of events in the catalogue. */
PLD_API size_t pld_event_count(void);
/** Entry i < pld_event_count().  @return PLD_SUCCESS or PLD_EINVAL. */
PLD_API PLD_NODISCARD int pld_event_info_get(size_t i, pld_event_info *out);
/** The index of the event called `name`.  @return PLD_SUCCESS or
 *  PLD_EINVAL (no such event; *index untouched). */
PLD_API PLD_NODISCARD int pld_event_find(const char *name, size_t *index);

/** One key of a catalogue entry.  Strings are static, except domain, which
 *  is a phrase like "a number > 0" written into the struct. */
typedef struct pld_event_key {
  const char *name;
  const char *meaning;
  int required;        /**< no default */
  double def;          /**< the default (a choice key: its index) */
  const char *choices; /**< a choice key: "a|b|c"; else NULL */
  int direction;       /**< calibration may solve for it ('?'): +1 larger
                            values are more private, -1 smaller; 0 it may
                            not */
  char domain[96];     /**< the domain in words */
} pld_event_key;

/** Key k < info.n_keys of entry i.  @return PLD_SUCCESS or PLD_EINVAL. */
PLD_API PLD_NODISCARD int pld_event_key_get(size_t i, size_t k,
                                            pld_event_key *out);

/** sizeof the public struct called `type_name` ("pld_params",
 *  "pld_event_answer", ...), or 0 for a name that is not one: a binding
 *  that mirrors a struct checks its layout against the library it loaded.
 *  Never fails. */
PLD_API size_t pld_sizeof(const char *type_name);

/** The keys calibration may solve for in some event, comma-separated. */
PLD_API const char *pld_event_solvable_keys(void);

#ifdef __cplusplus
}
#endif
#endif
