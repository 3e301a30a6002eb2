/* pldkit CLI: the EVENT parser.
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

#define MAX_KEYS 6
#define QUOTE_LEN PLD_QUOTE_LEN

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
  const char *text; /* DOM_PATH: points into the parsed argument */
};

/* Objects a mechanism needs alive (see events.h); `release` frees one. */
struct pld_event_owned {
  pld_event_owned *next;
  void (*release)(pld_event_owned *o);
};

/* Build the mechanism from values given in the order of the spec's keys;
 * returns a pld_status.  A mechanism whose curve context must outlive it
 * hands that context over in *own (else *own stays NULL). */
typedef int (*build_fn)(const struct value *v, pld_mech **out,
                        pld_event_owned **own);

/* Add count runs of the event's RDP to the curve (at its orders); returns a
 * pld_status, the curve unchanged on failure. */
typedef int (*rdp_fn)(const struct value *v, pld_rdp_curve *c,
                      uint64_t count);

/* Instead of build: add count runs of the event's PLD mechanisms to acc
 * itself (an event made of several mechanisms, e.g. balanced-iteration's
 * group reduction); returns a pld_status, called only when adding. */
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
  KIND_DIST       /* a saved PLD file (key 0 is its path), added as is */
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
  no_pld_fn no_pld; /* may be NULL (then the event has a PLD) */
  no_solve_fn no_solve; /* may be NULL */
  const char *rdp_how; /* how --backend rdp handles it, for --help */
  const char *example; /* an EVENT text of this event that both backends
                          answer in about a second (help, parity tests) */
  struct key_spec keys[MAX_KEYS]; /* ends at the first name == NULL */
};

/* ------------------------------------------------------------------------ */
/* Adapters to <pldkit/mech.h>; indices follow the key order in the table.   */

static int build_gaussian(const struct value *v, pld_mech **out,
                          pld_event_owned **own)
{
  return pld_mech_gaussian(v[0].real, v[1].real, out);
}

static int build_laplace(const struct value *v, pld_mech **out,
                         pld_event_owned **own)
{
  return pld_mech_laplace(v[0].real, v[1].real, out);
}

static int build_discrete_laplace(const struct value *v, pld_mech **out,
                                  pld_event_owned **own)
{
  return pld_mech_discrete_laplace(v[0].real, v[1].integer, out);
}

static int build_discrete_gaussian(const struct value *v, pld_mech **out,
                                   pld_event_owned **own)
{
  return pld_mech_discrete_gaussian(v[0].real, v[1].integer, out);
}

static int build_randomized_response(const struct value *v, pld_mech **out,
                                     pld_event_owned **own)
{
  return pld_mech_randomized_response(v[0].real, v[1].integer, out);
}

static int build_poisson_gaussian(const struct value *v, pld_mech **out,
                                  pld_event_owned **own)
{
  return pld_mech_poisson_gaussian(v[0].real, v[1].real, v[2].real, out);
}

static int build_poisson_laplace(const struct value *v, pld_mech **out,
                                 pld_event_owned **own)
{
  return pld_mech_poisson_laplace(v[0].real, v[1].real, v[2].real, out);
}

static int build_finite(const struct value *v, pld_mech **out,
                        pld_event_owned **own)
{
  return pld_mech_finite(v[0].len, v[0].list, v[1].list, out);
}

static int build_mixture_gaussian(const struct value *v, pld_mech **out,
                                  pld_event_owned **own)
{
  return pld_mech_mixture_gaussian(v[0].real, v[1].len, v[2].list, v[1].list,
                                   v[3].len, v[4].list, v[3].list, out);
}

static int build_wor_gaussian(const struct value *v, pld_mech **out,
                              pld_event_owned **own)
{
  return pld_mech_wor_gaussian((uint64_t)v[0].integer, (uint64_t)v[1].integer,
                               v[2].real, v[3].real, out);
}

/* random-participation: keys p, q, d, C, sigma, analysis. */
enum { AN_WCS, AN_CS, AN_THM41, AN_OLS, AN_MWCS };
#define ANALYSES "wcs|cs|thm41|ols|mwcs"

/* mwcs: the round as the selection "q-subsampled Gaussian w.p. wq, the
 * r0-subsampled Gaussian otherwise" (pld_participation_mwcs_mixture,
 * docs/participation.md sec. 5); r0 = 0 is the zero-loss pair.  Returns
 * non-zero when the library that knows the mixture is not compiled in. */
static int mwcs_weights(const struct value *v, double *wq, double *r0);

static int build_participation(const struct value *v, pld_mech **out,
                               pld_event_owned **own)
{
  double p = v[0].real, q = v[1].real, C = v[3].real, sigma = v[4].real;
  if (v[5].integer == AN_CS) /* centralized sampling at rate p q */
    return pld_mech_poisson_gaussian(p * q, sigma, C, out);
  /* WCS: the participation bit is visible, so the round is the selection
   * "nothing (loss 0) with probability 1 - p, the q-subsampled Gaussian with
   * probability p". */
  static const double one = 1.0;
  pld_mech *m[2] = {NULL, NULL};
  double w[2] = {1.0 - p, p};
  double r0 = 0.0;
  if (v[5].integer == AN_MWCS) {
    double wq;
    if (mwcs_weights(v, &wq, &r0))
      return PLD_EINVAL;
    w[0] = 1.0 - wq;
    w[1] = wq;
  }
  int st = r0 > 0.0 ? pld_mech_poisson_gaussian(r0, sigma, C, &m[0])
                    : pld_mech_finite(1, &one, &one, &m[0]);
  if (st == PLD_SUCCESS)
    st = pld_mech_poisson_gaussian(q, sigma, C, &m[1]);
  if (st == PLD_SUCCESS)
    st = pld_mech_select(2, (const pld_mech *const *)m, w, out);
  pld_mech_free(m[0]);
  pld_mech_free(m[1]);
  return st;
}

static int closed_participation(const struct value *v)
{
  return v[5].integer == AN_THM41 || v[5].integer == AN_OLS;
}

/* Calibrate's '?' on random-participation (keys p, q, d, C, sigma).  Every
 * analysis depends on C/sigma only, and its delta(eps) is that of a mixture
 * of subsampled Gaussians, monotone in the noise (post-processing).  In p:
 * WCS is p S_q, CS the rate p q, MWCS p (1-r) S_q + (1 - p + p r) S_{p0 q}
 * with p0 increasing in p and S_q >= S_{p0 q}: all non-decreasing
 * (docs/participation.md).  In q: OLS, WCS and CS subsample at a rate
 * increasing in q; MWCS trades q against p0 q, and pldkit has no proof.
 * Theorem 4.1 is not a bound at all, and its monotonicity in p and q is not
 * known either; its sigma is calibrated as the paper's Sec. 6 does (monotone
 * there by observation only). */
static const char *no_solve_participation(const struct value *v, size_t k)
{
  int64_t an = v[5].integer;
  if (k == 0 && an == AN_OLS)
    return "analysis=ols does not depend on p";
  if (k == 0 && an == AN_THM41)
    return "Theorem 4.1 is not known to be monotone in p";
  if (k == 1 && an == AN_THM41)
    return "Theorem 4.1 is not known to be monotone in q";
  if (k == 1 && an == AN_MWCS)
    return "analysis=mwcs is not known to be monotone in q (it trades "
           "q against p0 q)";
  if (k == 2 && (an == AN_MWCS || an == AN_THM41))
    return "the analysis is not known to be monotone in d";
  if (k == 2)
    return "the analysis does not depend on d";
  return NULL;
}

static const char *note_participation(const struct value *v)
{
  if (v[5].integer != AN_CS)
    return NULL;
  return "random-participation with analysis=cs is centralized sampling at "
         "rate p*q: a lower limit of the true worst case, not a guarantee "
         "for random participation (analysis=wcs is)";
}

/* ------------------------------------------------------------------------ */
/* Bounded-support Gaussian: the PLD of kind=rectified or truncated.        */

enum { BK_RECTIFIED, BK_TRUNCATED };
#define BOUNDED_KINDS "rectified|truncated"

/* The neighbour may shift the location by +c or by -c.  The pair whose
 * hockey-stick curve is, in each direction, the larger of the two pairs'
 * curves dominates both: the pointwise maximum of two curves is again
 * convex in e^eps and runs from 1 down to the mass at +inf, and the
 * relation H_x(P||Q) = 1 - x + x H_{1/x}(Q||P) between the directions is
 * increasing in H, so the two maxima belong to one pair.  A dominating pair
 * of each run gives one of their adaptive composition (Zhu, Dong and Wang
 * 2022), so this is sound even if the sign changes from run to run. */
struct worst_pair {
  pld_event_owned head; /* first: the list link */
  pld_mech *m[2];     /* shifts +c and -c */
};

static void worst_pair_release(pld_event_owned *o)
{
  struct worst_pair *w = (struct worst_pair *)o;
  pld_mech_free(w->m[0]);
  pld_mech_free(w->m[1]);
  free(w);
}

static int worst_pair_delta(void *ctx, int dir, size_t n, const double *eps,
                            double *delta)
{
  struct worst_pair *w = ctx;
  const pld_curve *a = pld_mech_curve(w->m[0]), *b = pld_mech_curve(w->m[1]);
  if (n == 0)
    return 0;
  double *other = malloc(n * sizeof *other);
  if (other == NULL)
    return PLD_ENOMEM;
  int st = a->delta(a->ctx, dir, n, eps, delta);
  if (st == 0)
    st = b->delta(b->ctx, dir, n, eps, other);
  if (st == 0)
    for (size_t i = 0; i < n; i++)
      if (!(delta[i] >= other[i])) /* also lets a NaN through, to be caught */
        delta[i] = other[i];
  free(other);
  return st;
}

/* The loss tails of that pair: at each eps, those of the pair whose curve is
 * the larger there (on a tie, the one that is larger just above eps, i.e.
 * with the smaller e^eps Q[L > eps] = minus the right derivative of the
 * curve).  Where the larger pair changes from 1 to 2 the pair has an atom of
 * loss, and P[L > eps] drops from pair 1's to pair 2's value; both stay
 * consistent with p_gt - eq_gt = the maximum curve. */
static int worst_pair_tails(void *ctx, int dir, size_t n, const double *eps,
                            double *p_gt, double *eq_gt)
{
  struct worst_pair *w = ctx;
  const pld_curve *a = pld_mech_curve(w->m[0]), *b = pld_mech_curve(w->m[1]);
  if (n == 0)
    return 0;
  if (n > SIZE_MAX / (4 * sizeof(double)))
    return PLD_ENOMEM;
  double *buf = malloc(4 * n * sizeof *buf);
  if (buf == NULL)
    return PLD_ENOMEM;
  double *da = buf, *db = buf + n, *pb = buf + 2 * n, *qb = buf + 3 * n;
  int st = a->delta(a->ctx, dir, n, eps, da);
  if (st == 0)
    st = b->delta(b->ctx, dir, n, eps, db);
  if (st == 0)
    st = a->tails(a->ctx, dir, n, eps, p_gt, eq_gt);
  if (st == 0)
    st = b->tails(b->ctx, dir, n, eps, pb, qb);
  if (st == 0)
    for (size_t i = 0; i < n; i++)
      if (db[i] > da[i] || (db[i] == da[i] && qb[i] < eq_gt[i])) {
        p_gt[i] = pb[i];
        eq_gt[i] = qb[i];
      }
  free(buf);
  return st;
}

/* The worse of two bounded pairs, (P, Q) = (N^b(t0), N^b(t0 + c0)) and
 * (N^b(t1), N^b(t1 + c1)), as one mechanism (keys as bounded-gaussian). */
static int build_bounded_worst(const struct value *v, double t0, double c0,
                               double t1, double c1, pld_mech **out,
                               pld_event_owned **own)
{
  struct worst_pair *w = calloc(1, sizeof *w);
  if (w == NULL)
    return PLD_ENOMEM;
  w->head.release = worst_pair_release;
  int (*mk)(double, double, double, double, pld_mech **) =
      v[0].integer == BK_TRUNCATED ? pld_mech_truncated_gaussian
                                   : pld_mech_rectified_gaussian;
  int st = mk(t0, v[2].real, v[3].real, c0, &w->m[0]);
  if (st == PLD_SUCCESS)
    st = mk(t1, v[2].real, v[3].real, c1, &w->m[1]);
  if (st == PLD_SUCCESS) {
    const pld_curve *a = pld_mech_curve(w->m[0]);
    const pld_curve *b = pld_mech_curve(w->m[1]);
    pld_curve cv;
    memset(&cv, 0, sizeof cv);
    cv.delta = worst_pair_delta;
    cv.ctx = w;
    cv.rel_err = fmax(a->rel_err, b->rel_err);
    cv.symmetric = 0;
    cv.loss_scale = fmax(a->loss_scale, b->loss_scale);
    cv.tails = a->tails && b->tails ? worst_pair_tails : NULL;
    cv.loss_lattice = 0;
    st = pld_mech_from_curve(&cv, out);
  }
  if (st != PLD_SUCCESS) {
    worst_pair_release(&w->head);
    return st;
  }
  *own = &w->head;
  return PLD_SUCCESS;
}

/* bounded-gaussian: keys kind, theta, a, sigma, c; both shifts +-c (the
 * worst case over neighbours), either kind. */
static int build_bounded(const struct value *v, pld_mech **out,
                         pld_event_owned **own)
{
  return build_bounded_worst(v, v[1].real, v[4].real, v[1].real, -v[4].real,
                             out, own);
}

/* kind=truncated has a PLD unless its normalizers underflow (the support
 * ~37 sigma or more away from theta or theta +- c): ask the library. */
static const char *no_pld_bounded(const struct value *v)
{
  if (v[0].integer != BK_TRUNCATED)
    return NULL;
  for (int sg = -1; sg <= 1; sg += 2) {
    pld_mech *m = NULL;
    int st = pld_mech_truncated_gaussian(v[1].real, v[2].real, v[3].real,
                                         sg * v[4].real, &m);
    pld_mech_free(m);
    if (st == PLD_EINVAL)
      return "kind=truncated with the support about 37 sigma or more away "
             "from theta or theta +- c has no privacy loss distribution in "
             "pldkit (the normalizers underflow), only its RDP";
  }
  return NULL;
}

/* poisson-bounded-gaussian: keys q, kind, theta, a, sigma, c.  The bounded-
 * support paper's Sec. 5.3 left subsampling open ("non-trivial"); in one
 * dimension the worst-of-+-c pair above is a dominating pair of the
 * per-instance mechanism, and Poisson subsampling of a dominating pair
 * dominates the subsampled mechanism (Zhu, Dong, Wang 2022, Prop. 30), so
 * pld_mech_poisson of that pair is the exact per-instance PLD. */
static int build_poisson_bounded(const struct value *v, pld_mech **out,
                                 pld_event_owned **own)
{
  /* pld_mech_poisson's base is (P, Q) = (with the record, without it), and
   * theta is the location WITHOUT the record (the paper's mu_theta in (*)):
   * the pairs (N^b(theta + c), N^b(theta)) and (N^b(theta - c), N^b(theta)) */
  const struct value *b = v + 1;
  double th = b[1].real, c = b[4].real;
  pld_mech *pair = NULL;
  int st = build_bounded_worst(b, th + c, -c, th - c, c, &pair, own);
  if (st != PLD_SUCCESS)
    return st;
  st = pld_mech_poisson(pair, v[0].real, out);
  pld_mech_free(pair); /* the curve's ctx stays with *own */
  if (st != PLD_SUCCESS) {
    (*own)->release(*own);
    *own = NULL;
  }
  return st;
}

static const char *no_pld_poisson_bounded(const struct value *v)
{
  return no_pld_bounded(v + 1); /* the same supports as theta +- c */
}

/* model-splitting with k > 1 of d blocks: the record's clipped gradient
 * (norm c in all) is shared among its k blocks in a way the adversary
 * chooses, so neither the one-of-d pair (k = 1) nor balanced-iteration's
 * group reduction (norm c in each of k steps) describes it; no dominating
 * pair is proven in pldkit. */
static const char *no_pld_splitting(const struct value *v)
{
  if (v[1].integer == 1)
    return NULL;
  return "model-splitting with k > 1 has its guarantee only as an RDP "
         "curve (splitting paper, Thm 3.1, made sound as in "
         "docs/papers-rdp.md): no dominating pair is proven for a gradient "
         "shared among k blocks (k = 1 has a PLD: the one-of-d allocation)";
}

/* balanced-iteration: T steps, k each (papers/allocation.c: the group
 * reduction to one-of-floor/ceil(T/k) allocations, each a bracket). */
static int add_bis(const struct value *v, pld_accountant *acc,
                   uint64_t count)
{
  return pld_accountant_add_allocation(acc, (uint64_t)v[0].integer,
                                       (uint64_t)v[1].integer, v[2].real,
                                       v[3].real, count);
}

/* model-splitting with k = 1: disjoint submodels, the one-of-d allocation
 * pair (d = 1: the Gaussian mechanism itself). */
static int add_split(const struct value *v, pld_accountant *acc,
                     uint64_t count)
{
  if (v[1].integer != 1)
    return PLD_EUNSUPPORTED; /* not reached: no_pld_splitting says why */
  return pld_accountant_add_allocation(acc, (uint64_t)v[0].integer, 1,
                                       v[2].real, v[3].real, count);
}

/* poisson-splitting (keys q, d, sigma, c): the splitting paper's Fig. 1
 * pair, the Poisson subsampling of the one-of-d allocation bracket. */
static int build_poisson_split(const struct value *v, pld_mech **out,
                               pld_event_owned **own)
{
  (void)own;
  return pld_mech_poisson_split(v[0].real, (uint64_t)v[1].integer, v[2].real,
                                v[3].real, out);
}

/* partial-splitting (keys q, d, sigma, c-split, c-shared): the split and
 * shared parts subsampled together (pld_mech_partial_split). */
static int build_partial_split(const struct value *v, pld_mech **out,
                               pld_event_owned **own)
{
  (void)own;
  return pld_mech_partial_split(v[0].real, (uint64_t)v[1].integer, v[2].real,
                                v[3].real, v[4].real, out);
}

/* ------------------------------------------------------------------------ */
/* RDP adapters (<pldkit/rdp.h>, <pldkit/rdp_papers.h>).                     */

static int rdp_gaussian(const struct value *v, pld_rdp_curve *c,
                        uint64_t count)
{
  return pld_rdp_add_gaussian(c, v[0].real, v[1].real, count);
}

static int rdp_laplace(const struct value *v, pld_rdp_curve *c,
                       uint64_t count)
{
  return pld_rdp_add_laplace(c, v[0].real, v[1].real, count);
}

/* The discrete Gaussian N_Z(0, sigma^2) with integer sensitivity s is
 * (s^2/(2 sigma^2))-concentrated DP (Canonne, Kamath and Steinke 2020, "The
 * discrete Gaussian for differential privacy"), i.e. D_alpha <= alpha s^2 /
 * (2 sigma^2) at every order: the continuous Gaussian's curve. */
static int rdp_discrete_gaussian(const struct value *v, pld_rdp_curve *c,
                                 uint64_t count)
{
  return pld_rdp_add_gaussian(c, v[0].real, v[1].real, count);
}

static int rdp_randomized_response(const struct value *v, pld_rdp_curve *c,
                                   uint64_t count)
{
  return pld_rdp_add_randomized_response(c, v[0].real, v[1].integer, count);
}

static int rdp_poisson_gaussian(const struct value *v, pld_rdp_curve *c,
                                uint64_t count)
{
  return pld_rdp_add_poisson_gaussian(c, v[0].real, v[1].real, v[2].real,
                                      count);
}

static int rdp_wor_gaussian(const struct value *v, pld_rdp_curve *c,
                            uint64_t count)
{
  return pld_rdp_add_wor_gaussian(c, (uint64_t)v[0].integer,
                                  (uint64_t)v[1].integer, v[2].real,
                                  v[3].real, count);
}

/* A fresh curve on c's orders, all values 0. */
static int rdp_zero_like(const pld_rdp_curve *c, pld_rdp_curve **out)
{
  return pld_rdp_curve_alloc(pld_rdp_curve_size(c), pld_rdp_curve_orders(c),
                             out);
}

/* random-participation wcs and cs (thm41 and ols never get here). */
static int rdp_participation(const struct value *v, pld_rdp_curve *c,
                             uint64_t count)
{
  double p = v[0].real, q = v[1].real, C = v[3].real, sigma = v[4].real;
  if (v[5].integer == AN_CS)
    return pld_rdp_add_poisson_gaussian(c, p * q, sigma, C, count);
  /* wcs: the random selection (choice visible) of "nothing" (RDP 0) with
   * probability 1 - p and the q-subsampled Gaussian with probability p,
   * model merging paper Thm 5.1. */
  pld_rdp_curve *m[2] = {NULL, NULL}, *sel = NULL;
  double w[2] = {1.0 - p, p};
  double r0 = 0.0;
  if (v[5].integer == AN_MWCS) {
    double wq;
    if (mwcs_weights(v, &wq, &r0))
      return PLD_EINVAL;
    w[0] = 1.0 - wq;
    w[1] = wq;
  }
  int st = rdp_zero_like(c, &m[0]);
  if (st == PLD_SUCCESS && r0 > 0.0)
    st = pld_rdp_add_poisson_gaussian(m[0], r0, sigma, C, 1);
  if (st == PLD_SUCCESS)
    st = rdp_zero_like(c, &m[1]);
  if (st == PLD_SUCCESS)
    st = rdp_zero_like(c, &sel);
  if (st == PLD_SUCCESS)
    st = pld_rdp_add_poisson_gaussian(m[1], q, sigma, C, 1);
  if (st == PLD_SUCCESS)
    st = pld_rdp_random_selection(2, (const pld_rdp_curve *const *)m, w,
                                  sel);
  if (st == PLD_SUCCESS)
    st = pld_rdp_curve_compose(c, sel, count);
  pld_rdp_curve_free(m[0]);
  pld_rdp_curve_free(m[1]);
  pld_rdp_curve_free(sel);
  return st;
}

/* model-splitting (keys d, k, sigma, c) and balanced-iteration (keys T, k,
 * sigma, c): the same pair, with d = T for Balanced Iteration Subsampling
 * (pld_rdp_bis is pld_rdp_model_splitting(alpha, T, k, ...) and
 * pld_rdp_bis_epochs(..., epochs, ...) is epochs times it; the curve
 * function shares its quadrature tables between orders, so it is used for
 * both, and count = epochs multiplies). */
static int rdp_splitting(const struct value *v, pld_rdp_curve *c,
                         uint64_t count)
{
  size_t n = pld_rdp_curve_size(c);
  double *eps = malloc(n * sizeof *eps);
  if (eps == NULL)
    return PLD_ENOMEM;
  /* the library batches the orders so that none loses its amplification
   * to a much larger one (papers/splitting_rdp.c) */
  int st = pld_rdp_model_splitting_curve(n, pld_rdp_curve_orders(c),
                                         v[0].integer, v[1].integer,
                                         v[2].real, v[3].real, eps);
  if (st == PLD_SUCCESS)
    st = pld_rdp_curve_add_values(c, eps, count);
  free(eps);
  return st;
}

/* poisson-splitting: pld_rdp_poisson_split at every order; where it has no
 * value (orders above 2048, c/sigma above 8, a quadrature over its cap or
 * failing its self-check) the Gaussian's alpha c^2/(2 sigma^2), which is
 * sound: the pair is a post-processing of the Gaussian pair with shift c
 * (subsampling and routing are randomness independent of the data). */
static int rdp_poisson_split(const struct value *v, pld_rdp_curve *c,
                             uint64_t count)
{
  size_t n = pld_rdp_curve_size(c);
  const double *orders = pld_rdp_curve_orders(c);
  double *eps = malloc(n * sizeof *eps);
  if (eps == NULL)
    return PLD_ENOMEM;
  double mu = v[3].real / v[2].real;
  int st = PLD_SUCCESS;
  for (size_t i = 0; i < n && st == PLD_SUCCESS; i++) {
    pld_rdp_pair_terms t;
    int r = pld_rdp_poisson_split(orders[i], v[0].real, v[1].integer,
                                  v[2].real, v[3].real, &t);
    if (r == PLD_SUCCESS)
      eps[i] = fmin(t.epsilon, 0.5 * orders[i] * mu * mu * (1.0 + 1e-15));
    else if (r == PLD_ENOMEM || r == PLD_EINVAL)
      st = r;
    else
      eps[i] = 0.5 * orders[i] * mu * mu * (1.0 + 1e-15);
  }
  if (st == PLD_SUCCESS)
    st = pld_rdp_curve_add_values(c, eps, count);
  free(eps);
  return st;
}

/* bounded-gaussian: the sup over the shifts +c and -c, both directions,
 * capped by the Gaussian's alpha c^2/(2 sigma^2) (the bounded-support
 * paper's Thm 4.9; rdp_papers.h promises it, but far outside the support,
 * |theta| >~ 1e6 a, the library's value loses precision upward and exceeds
 * it).  The cap is proven for both kinds: the rectified pair is a
 * post-processing (clipping) of the Gaussian pair; for the truncated pair,
 * with Delta(x) = Phi((a-x)/sigma) - Phi((-a-x)/sigma) log-concave
 * (Prekopa), theta = ((alpha-1)(theta+c) + (theta-(alpha-1)c))/alpha gives
 * log(Delta(theta+c)/Delta(theta)) + log(Delta(theta+(1-alpha)c)/
 * Delta(theta))/(alpha-1) <= 0 in the corrected eq. (6). */
static int rdp_bounded(const struct value *v, pld_rdp_curve *c,
                       uint64_t count)
{
  size_t n = pld_rdp_curve_size(c);
  const double *orders = pld_rdp_curve_orders(c);
  int kind = v[0].integer == BK_TRUNCATED ? PLD_BOUNDED_TRUNCATED
                                          : PLD_BOUNDED_RECTIFIED;
  double *eps = malloc(n * sizeof *eps);
  if (eps == NULL)
    return PLD_ENOMEM;
  int st = PLD_SUCCESS;
  for (size_t i = 0; i < n && st == PLD_SUCCESS; i++)
    st = pld_rdp_bounded_gaussian_sup(kind, orders[i], v[1].real, v[2].real,
                                      v[3].real, v[4].real, &eps[i]);
  for (size_t i = 0; i < n && st == PLD_SUCCESS; i++) {
    double s = v[4].real / v[3].real;
    /* alpha s^2 / 2 rounded upward: three roundings, each within an ulp */
    double cap = orders[i] * s * s / 2.0;
    for (int k = 0; k < 4; k++)
      cap = nextafter(cap, INFINITY);
    if (!(eps[i] <= cap))
      eps[i] = cap;
  }
  if (st == PLD_SUCCESS)
    st = pld_rdp_curve_add_values(c, eps, count);
  free(eps);
  return st;
}

/* The PLD bridge: the certified upper RDP of one run's PLD, composed count
 * times in RDP (composing the PLD first would put the FFT's truncated tail
 * at +inf, see rdp.h).  Grid: --discretization if fixed; else a divisor of
 * the loss lattice if the mechanism has one (then the PLD is exact), else a
 * step of about 1e-3 / count of the mechanism's loss scale (the
 * discretization adds at most one step per run to the RDP), but at least
 * 1e-4 of it: the builder's booked relative error grows quickly with the
 * grid size (3e-9 at 2e3 points, 4e-5 at 2e5 for a finite pair), and it
 * costs log(1/(1 - rel_err))/(alpha - 1) per run.  The step is kept
 * incommensurable with the loss scale (factor BRIDGE_SKEW): when the
 * largest loss (often the loss scale itself) falls exactly on a grid point,
 * the builder leaves a rounding-size mass at +inf, and then the bridge can
 * only say inf.  The grid is coarsened while it exceeds --max-grid. */
#define BRIDGE_SKEW 0.9876543210987654
/* The bridge on one grid (see rdp_bridge): a fresh curve on like's orders
 * holding the upper RDP of one run. */
static int bridge_once(const pld_curve *cv, const pld_params *p, double step,
                       int fixed, double lattice, const pld_rdp_curve *like,
                       pld_rdp_curve **out)
{
  pld_dist *d = NULL;
  pld_rdp_curve *one = NULL;
  int st;
  for (int tries = 0;; tries++) {
    double grid = step;
    if (!fixed) {
      grid = fmin(fmax(step, 1e-9), 1000.0);
      if (lattice > 0) {
        double parts = ceil(lattice / grid);
        if (lattice / parts >= 1e-9)
          grid = lattice / parts;
      }
    }
    st = pld_dist_from_curve(cv, grid, p, &d);
    if (st != PLD_ERANGE || fixed || tries >= 8 || step >= 1000.0)
      break;
    step *= 4.0;
  }
  if (st == PLD_SUCCESS)
    st = rdp_zero_like(like, &one);
  if (st == PLD_SUCCESS)
    st = pld_rdp_of_pld(d, one);
  pld_dist_free(d);
  if (st != PLD_SUCCESS) {
    pld_rdp_curve_free(one);
    return st;
  }
  *out = one;
  return PLD_SUCCESS;
}

static int rdp_bridge(const pld_mech *m, const pld_params *params,
                      uint64_t count, pld_rdp_curve *c)
{
  const pld_curve *cv = pld_mech_curve(m);
  pld_params p;
  pld_rdp_curve *one = NULL, *two = NULL;
  if (params)
    p = *params;
  else
    pld_params_default(&p);
  double step = p.discretization;
  double scale = cv->loss_scale > 0 && isfinite(cv->loss_scale)
                     ? cv->loss_scale
                     : 1.0;
  double lattice = cv->loss_lattice > 0 && isfinite(cv->loss_lattice)
                       ? cv->loss_lattice
                       : 0.0;
  int fixed = step > 0;
  if (!fixed)
    step = BRIDGE_SKEW * scale * fmax(1e-4, 1e-3 / (double)count);
  int st = bridge_once(cv, &p, step, fixed, lattice, c, &one);
  /* An inf may be the rounding-size mass at +inf described above: try a
   * second, incommensurable grid without the lattice and keep the smaller
   * value at each order (both are certified upper bounds). */
  size_t n = pld_rdp_curve_size(c);
  int has_inf = 0;
  for (size_t i = 0; st == PLD_SUCCESS && i < n && !has_inf; i++)
    has_inf = isinf(pld_rdp_curve_values(one)[i]);
  if (has_inf && !fixed &&
      bridge_once(cv, &p, step * 0.6180339887498949, 0, 0.0, c, &two) ==
          PLD_SUCCESS) {
    double *v = malloc(n * sizeof *v);
    if (v == NULL) {
      st = PLD_ENOMEM;
    } else {
      const double *a = pld_rdp_curve_values(one);
      const double *b = pld_rdp_curve_values(two);
      for (size_t i = 0; i < n; i++)
        v[i] = fmin(a[i], b[i]);
      st = pld_rdp_curve_set(one, v);
      free(v);
    }
  }
  if (st == PLD_SUCCESS)
    st = pld_rdp_curve_compose(c, one, count);
  pld_rdp_curve_free(one);
  pld_rdp_curve_free(two);
  return st;
}

/* The library's own tolerances (status.h), so that a precise message
 * names what the library would reject with a bare PLD_EINVAL. */
#define FINITE_SUM_TOL PLD_PROB_SUM_TOL
#define SELECT_SUM_TOL PLD_WEIGHT_SUM_TOL

/* Non-zero (and why filled) if list v does not sum to 1 within tol. */
static int bad_sum(const struct value *v, const char *name, double tol,
                   const char *rule, char *why, size_t n)
{
  double s = 0.0;
  for (size_t i = 0; i < v->len; i++)
    s += v->list[i];
  if (fabs(s - 1.0) <= tol)
    return 0;
  char sum[40];
  pld_fmt(sum, sizeof sum, s, 17);
  size_t len = strlen(name);
  snprintf(why, n, "%s %s to %s (%s)", name,
           len && name[len - 1] == 's' ? "sum" : "sums", sum, rule);
  return 1;
}

static int check_finite(const struct value *v, char *why, size_t n)
{
  if (v[0].len != v[1].len) {
    snprintf(why, n, "p and q must have the same number of entries "
             "(p has %zu, q has %zu)", v[0].len, v[1].len);
    return 1;
  }
  for (int k = 0; k < 2; k++)
    if (bad_sum(&v[k], k ? "q" : "p", FINITE_SUM_TOL,
                "the entries of p and of q must each sum to 1 within 1e-9",
                why, n))
      return 1;
  return 0;
}

static int check_mixture(const struct value *v, char *why, size_t n)
{
  for (int s = 0; s < 2; s++) {
    const struct value *means = &v[1 + 2 * s], *weights = &v[2 + 2 * s];
    const char *side = s ? "q" : "p";
    if (means->len != weights->len) {
      snprintf(why, n, "%s-means has %zu entries but %s-weights has %zu "
               "(one weight per component)", side, means->len, side,
               weights->len);
      return 1;
    }
    char name[16];
    snprintf(name, sizeof name, "%s-weights", side);
    if (bad_sum(weights, name, FINITE_SUM_TOL,
                "the weights of each side must sum to 1 within 1e-9", why, n))
      return 1;
  }
  return 0;
}

/* merge-lc: keys lambda, q, sigma, clip, lr (lists, one entry per run; clip
 * and lr default to 1 for every run).  Fills runs (steps 1: every run is
 * active in this event's steps). */
static size_t lc_runs(const struct value *v, pld_merge_run *runs)
{
  size_t n = v[0].len;
  for (size_t i = 0; i < n; i++) {
    runs[i].q = v[1].list[i];
    runs[i].sigma = v[2].list[i];
    runs[i].clip = v[3].present ? v[3].list[i] : 1.0;
    runs[i].lr = v[4].present ? v[4].list[i] : 1.0;
    runs[i].steps = 1;
  }
  return n;
}

static int check_merge_lc(const struct value *v, char *why, size_t n)
{
  static const char *const name[] = {"lambda", "q", "sigma", "clip", "lr"};
  size_t len = v[0].len;
  if (len < 1 || len > PLD_MERGE_MAX_RUNS) {
    snprintf(why, n, "lambda has %zu entries; 1 to %d runs are supported "
             "(the LC surrogate has 2^n mixture components)", len,
             PLD_MERGE_MAX_RUNS);
    return 1;
  }
  int any = 0;
  for (size_t k = 0; k < 5; k++) {
    if (!v[k].present)
      continue;
    if (v[k].len != len) {
      snprintf(why, n, "%s has %zu entries but lambda has %zu (one per run)",
               name[k], v[k].len, len);
      return 1;
    }
    for (size_t i = 0; i < len; i++) {
      double x = v[k].list[i];
      int ok = k == 0 ? x >= 0.0 : k == 1 ? x > 0.0 && x <= 1.0 : x > 0.0;
      if (!ok) {
        snprintf(why, n, "%s entry %zu is %.17g; must be %s", name[k], i + 1,
                 x, k == 0 ? ">= 0" : k == 1 ? "in (0, 1]" : "> 0");
        return 1;
      }
      if (k == 0)
        any |= x > 0.0;
    }
  }
  if (!any) {
    snprintf(why, n, "every lambda is 0: the merged model releases nothing");
    return 1;
  }
  return 0;
}

static int build_merge_lc(const struct value *v, pld_mech **out,
                          pld_event_owned **own)
{
  pld_merge_run runs[PLD_MERGE_MAX_RUNS];
  size_t n = lc_runs(v, runs);
  return pld_merge_lc_step_mech(n, runs, v[0].list, out);
}

static int rdp_merge_lc(const struct value *v, pld_rdp_curve *c,
                        uint64_t count)
{
  pld_merge_run runs[PLD_MERGE_MAX_RUNS];
  double lam[PLD_MERGE_MAX_RUNS], sum = 0.0;
  size_t n = lc_runs(v, runs);
  /* pld_merge_lc_rdp wants lambda on the simplex; the pair is scale-free
   * in lambda, so normalise (the rounding moves the pair by ulps, inside
   * that function's margin; see papers/merge.c) */
  for (size_t i = 0; i < n; i++)
    sum += v[0].list[i];
  for (size_t i = 0; i < n; i++) {
    lam[i] = v[0].list[i] / sum;
    runs[i].steps = count;
  }
  double t = 0.0;
  for (size_t i = 0; i + 1 < n; i++)
    t += lam[i];
  lam[n - 1] = fmax(0.0, 1.0 - t);
  return pld_merge_lc_rdp(n, runs, lam, c);
}

/* The library's size limits of the discrete mechanisms (mech.h): their PLD
 * is exact on the whole support, which these bound. */
static int check_discrete_sensitivity(const struct value *v, char *why,
                                      size_t n)
{
  if (v[1].integer > PLD_DISCRETE_MAX_SENSITIVITY) {
    snprintf(why, n, "sensitivity=%lld is above the limit 2^20 = %d (the "
             "exact PLD enumerates every shift)", (long long)v[1].integer,
             PLD_DISCRETE_MAX_SENSITIVITY);
    return 1;
  }
  return 0;
}

static int check_discrete_gaussian(const struct value *v, char *why, size_t n)
{
  if (v[0].real > PLD_DISCRETE_GAUSSIAN_MAX_SIGMA) {
    snprintf(why, n, "sigma=%g is above the limit %g (the exact PLD lists "
             "the support out to 40 sigma: that many points would take "
             "seconds and gigabytes per build)", v[0].real,
             PLD_DISCRETE_GAUSSIAN_MAX_SIGMA);
    return 1;
  }
  return check_discrete_sensitivity(v, why, n);
}

/* Key i must not exceed key j (both integers); names for the message. */
static int check_not_above(const struct value *v, int i, int j,
                           const char *ni, const char *nj, char *why, size_t n)
{
  if (v[i].integer <= v[j].integer)
    return 0;
  snprintf(why, n, "%s=%lld is larger than %s=%lld (1 <= %s <= %s)", ni,
           (long long)v[i].integer, nj, (long long)v[j].integer, ni, nj);
  return 1;
}

static int check_wor(const struct value *v, char *why, size_t n)
{
  return check_not_above(v, 0, 1, "batch", "n", why, n);
}

static int check_split(const struct value *v, char *why, size_t n)
{
  return check_not_above(v, 1, 0, "k", "d", why, n);
}

static int check_bis(const struct value *v, char *why, size_t n)
{
  return check_not_above(v, 1, 0, "k", "T", why, n);
}

static int check_selection(const struct value *v, char *why, size_t n)
{
  return bad_sum(&v[0], "weights", SELECT_SUM_TOL,
                 "the weights must sum to 1 within 1e-12", why, n);
}

/* ------------------------------------------------------------------------ */
/* The table.                                                                */

static const struct event_spec events[] = {
  {.name = "gaussian",
   .title = "Gaussian mechanism",
   .example = "gaussian:sigma=2,count=10",
   .summary = "Gaussian mechanism: N(0, sigma^2) noise on a query",
   .build = build_gaussian,
   .rdp = rdp_gaussian,
   .rdp_how = "alpha sensitivity^2/(2 sigma^2), exact (Mironov 2017)",
   .keys = {{"sigma", DOM_NOISE, 1, 0, "noise standard deviation"},
            {"sensitivity", DOM_POSITIVE, 0, 1,
             "L2 sensitivity of the query", .mono = MONO_LESS}}},
  {.name = "laplace",
   .title = "Laplace mechanism",
   .example = "laplace:b=2,count=5",
   .summary = "Laplace mechanism: Laplace(b) noise on a query",
   .build = build_laplace,
   .rdp = rdp_laplace,
   .rdp_how = "exact closed form (Mironov 2017, Prop. 6)",
   .keys = {{"b", DOM_NOISE, 1, 0, "noise scale"},
            {"sensitivity", DOM_POSITIVE, 0, 1,
             "L1 sensitivity of the query", .mono = MONO_LESS}}},
  {.name = "discrete-laplace",
   .title = "discrete Laplace mechanism (integer noise)",
   .example = "discrete-laplace:scale=2,count=5",
   .summary = "discrete Laplace mechanism: integer noise, P(k) ~ "
              "exp(-|k|/scale)",
   .build = build_discrete_laplace,
   .rdp_how = "through the PLD bridge (conservative, see RDP BACKEND "
              "below), up to one grid step per run above the exact value",
   .check = check_discrete_sensitivity,
   .keys = {{"scale", DOM_NOISE, 1, 0, "noise scale"},
            {"sensitivity", DOM_INT_GE1, 0, 1,
             "integer sensitivity, at most 2^20", .mono = MONO_LESS,
             .solve_hi = PLD_DISCRETE_MAX_SENSITIVITY}}},
  {.name = "discrete-gaussian",
   .title = "discrete Gaussian mechanism (integer noise)",
   .example = "discrete-gaussian:sigma=3,count=5",
   .summary = "discrete Gaussian mechanism: integer noise, P(k) ~ "
              "exp(-k^2/(2 sigma^2))",
   .build = build_discrete_gaussian,
   .rdp = rdp_discrete_gaussian,
   .rdp_how = "alpha sensitivity^2/(2 sigma^2), the continuous Gaussian's "
              "(Canonne, Kamath and Steinke 2020: the discrete Gaussian is "
              "sensitivity^2/(2 sigma^2)-concentrated DP)",
   .check = check_discrete_gaussian,
   .keys = {{"sigma", DOM_NOISE, 1, 0, "noise parameter, at most 1e4",
             .solve_hi = PLD_DISCRETE_GAUSSIAN_MAX_SIGMA},
            {"sensitivity", DOM_INT_GE1, 0, 1,
             "integer sensitivity, at most 2^20", .mono = MONO_LESS,
             .solve_hi = PLD_DISCRETE_MAX_SENSITIVITY}}},
  {.name = "randomized-response",
   .title = "k-ary randomized response (replace-one)",
   .example = "randomized-response:epsilon=1,k=4,count=10",
   .summary = "k-ary randomized response, replace-one adjacency: report the "
              "true value with probability e^epsilon/(e^epsilon+k-1), else "
              "another one uniformly",
   .build = build_randomized_response,
   .rdp = rdp_randomized_response,
   .rdp_how = "exact closed form",
   .keys = {{"epsilon", DOM_NONNEGATIVE, 1, 0,
             "epsilon0 of one response (nats)", .mono = MONO_LESS},
            {"k", DOM_INT_GE2, 1, 0, "number of possible values",
             .mono = MONO_MORE}}},
  {.name = "poisson-gaussian",
   .title = "Poisson-subsampled Gaussian: one DP-SGD step",
   .example = "poisson-gaussian:q=0.01,sigma=1,count=1000",
   .summary = "Poisson-subsampled Gaussian (DP-SGD step), add/remove "
              "adjacency",
   .build = build_poisson_gaussian,
   .rdp = rdp_poisson_gaussian,
   .rdp_how = "exact binomial sum at integer orders, a series with a "
              "certified truncation error at fractional orders (Mironov, "
              "Talwar and Zhang 2019)",
   .keys = {{"q", DOM_RATE, 1, 0, "sampling rate per step",
             .mono = MONO_LESS},
            {"sigma", DOM_NOISE, 1, 0, "noise standard deviation"},
            {"sensitivity", DOM_POSITIVE, 0, 1,
             "L2 sensitivity (clipping norm)", .mono = MONO_LESS}}},
  {.name = "poisson-laplace",
   .title = "Poisson-subsampled Laplace",
   .example = "poisson-laplace:q=0.05,b=2,count=100",
   .summary = "Poisson-subsampled Laplace, add/remove adjacency",
   .build = build_poisson_laplace,
   .rdp_how = "through the PLD bridge (conservative, see RDP BACKEND below)",
   .keys = {{"q", DOM_RATE, 1, 0, "sampling rate per step",
             .mono = MONO_LESS},
            {"b", DOM_NOISE, 1, 0, "noise scale"},
            {"sensitivity", DOM_POSITIVE, 0, 1, "L1 sensitivity",
             .mono = MONO_LESS}}},
  {.name = "finite",
   .title = "an arbitrary pair of finite distributions",
   .example = "finite:p=0.5;0.3;0.2,q=0.3;0.3;0.4,count=3",
   .summary = "an arbitrary pair of finite output distributions P (with the "
              "record) and Q (without), e.g. finite:p=0.5;0.5,q=0.25;0.75",
   .build = build_finite,
   .rdp_how = "through the PLD bridge (conservative, see RDP BACKEND "
              "below), up to one grid step per run above the exact value; "
              "inf if P has mass where Q has none or the reverse",
   .check = check_finite,
   .keys = {{"p", DOM_PROB_LIST, 1, 0,
             "probabilities of the outcomes under P"},
            {"q", DOM_PROB_LIST, 1, 0,
             "probabilities of the same outcomes under Q"}}},
  {.name = "mixture-gaussian",
   .title = "a pair of Gaussian mixtures with a common sigma",
   .example = "mixture-gaussian:sigma=1,p-means=0;1,p-weights=0.5;0.5,q-means=0,q-weights=1,count=4",
   .summary = "a pair of one-dimensional Gaussian mixtures with a common "
              "sigma, P = sum_i a_i N(mu_i, sigma^2) and Q = sum_j b_j "
              "N(nu_j, sigma^2), both directions exact, e.g. "
              "mixture-gaussian:sigma=1,p-means=0;1,p-weights=0.5;0.5,"
              "q-means=0,q-weights=1",
   .build = build_mixture_gaussian,
   .rdp_how = "through the PLD bridge (conservative, see RDP BACKEND "
              "below); inf when the loss is unbounded (almost always)",
   .check = check_mixture,
   .keys = {{"sigma", DOM_NOISE, 1, 0, "common standard deviation"},
            {"p-means", DOM_REAL_LIST, 1, 0, "component means mu_i of P"},
            {"p-weights", DOM_PROB_LIST, 1, 0,
             "component weights a_i of P, one per mean"},
            {"q-means", DOM_REAL_LIST, 1, 0, "component means nu_j of Q"},
            {"q-weights", DOM_PROB_LIST, 1, 0,
             "component weights b_j of Q, one per mean"}}},
  {.name = "wor-gaussian",
   .title = "Gaussian on a fixed-size batch without replacement",
   .example = "wor-gaussian:batch=10,n=1000,sigma=1,sensitivity=2,count=100",
   .summary = "Gaussian mechanism on a batch of fixed size drawn without "
              "replacement from n records, REPLACE-ONE adjacency (one record "
              "is replaced by another), both directions",
   .build = build_wor_gaussian,
   .rdp = rdp_wor_gaussian,
   .rdp_how = "Wang, Balle and Kasiviswanathan 2019, Thm 9 (a bound), "
              "replace-one",
   .check = check_wor,
   .keys = {{"batch", DOM_INT_GE1, 1, 0, "batch size, at most n"},
            {"n", DOM_INT_GE1, 1, 0, "number of records"},
            {"sigma", DOM_NOISE, 1, 0, "noise standard deviation"},
            {"sensitivity", DOM_POSITIVE, 0, 1,
             "L2 sensitivity of the summed query between replace-one "
             "neighbours (for sums of gradients clipped to norm C it is "
             "2C)", .mono = MONO_LESS}}},
  {.name = "random-participation",
   .title = "one federated round, random client participation",
   .example = "random-participation:p=0.1,q=0.05,d=100,C=1,sigma=1,count=10",
   .summary = "one round of federated DP-SGD with random client "
              "participation: each client joins with probability p, samples "
              "each of its d records with probability q, the server adds "
              "N(0, sigma^2) to the sum of gradients clipped to norm C.  "
              "analysis=wcs (the certified one): the participation bit is "
              "visible, the round is \"loss 0 with probability 1-p, the "
              "q-subsampled Gaussian with probability p\", composable; cs: "
              "centralized sampling at rate p*q, the certified LOWER limit "
              "of the true worst case (not a guarantee); mwcs (certified, "
              "tighter than wcs when q d is large): the participating "
              "client's other records mask x', the round is \"q-subsampled "
              "Gaussian w.p. p(1-(1-q)^d), the p0 q-subsampled one "
              "otherwise\" (docs/participation.md sec. 5), composable; "
              "thm41 (Theorem "
              "4.1 of the paper, reported as not certified where it falls "
              "below cs) and ols (only local sampling): closed-form single "
              "rounds, for epsilon and delta queries with count=1 only",
   .build = build_participation,
   .rdp = rdp_participation,
   .rdp_how = "wcs: the RDP random selection (model merging paper, Thm "
              "5.1) of nothing and the q-subsampled Gaussian; cs: "
              "poisson-gaussian at rate p*q; mwcs: the RDP random selection "
              "of its two subsampled Gaussians; thm41 and ols have no RDP "
              "(--backend pld only)",
   .closed = closed_participation,
   .note = note_participation,
   .no_solve = no_solve_participation,
   .keys = {{"p", DOM_RATE, 1, 0, "client participation probability",
             .mono = MONO_LESS},
            {"q", DOM_RATE, 1, 0, "record sampling rate within a client",
             .mono = MONO_LESS},
            {"d", DOM_INT_GE1, 1, 0,
             "records of the client other than the protected one (the "
             "paper's d; used by thm41 and mwcs only)"},
            {"C", DOM_POSITIVE, 1, 0, "clipping norm of one gradient",
             .mono = MONO_LESS},
            {"sigma", DOM_NOISE, 1, 0, "noise standard deviation"},
            {"analysis", DOM_CHOICE, 0, AN_WCS, "which analysis",
             ANALYSES}}},
  {.name = "model-splitting",
   .title = "one training step with model splitting (RDP only)",
   .example = "model-splitting:d=4,k=1,sigma=1,c=1,count=10",
   .summary = "one training step with model splitting (splitting paper, "
              "Thm 3.1): each example's gradient, clipped to norm c, is "
              "routed to k of the d disjoint blocks of the model, chosen "
              "uniformly at random, and every block gets N(0, sigma^2) "
              "noise; k = 1 is disjoint submodels (Thm 3.4), d = 2, k = 1 "
              "dropout with rate 1/2 (Cor. 3.7).  count=N composes N steps.  "
              "PLD (k = 1 only, the default backend): the one-of-d random "
              "allocation pair bracketed between two finite pairs "
              "(docs/allocation.md; d = 1 is the Gaussian mechanism); k > 1 "
              "needs --backend rdp.  The RDP is sound: max(forward, reverse), "
              "the forward the exact eq. (2) where affordable, else the "
              "smaller of eq. (3) and a proven group bound, the reverse "
              "exact for k in {1, d-1, d} (quadrature with an added error "
              "estimate), else the group bound; the paper's reverse term is "
              "not a bound and is not used.  The reduction of a training "
              "step to this pair is the paper's (docs/papers-rdp.md)",
   .check = check_split,
   .add = add_split,
   .rdp = rdp_splitting,
   .no_pld = no_pld_splitting,
   .rdp_how = "as above (pld_rdp_model_splitting_curve); it takes about "
              "0.2 to 1 s on the 157 default orders, less with fewer "
              "--orders",
   .keys = {{"d", DOM_INT_GE1, 1, 0, "number of blocks (submodels)"},
            {"k", DOM_INT_GE1, 1, 0,
             "blocks each gradient goes to, 1 <= k <= d"},
            {"sigma", DOM_NOISE, 1, 0, "noise standard deviation"},
            {"c", DOM_POSITIVE, 1, 0,
             "clipping norm of one example's gradient (L2 sensitivity)",
             .mono = MONO_LESS}}},
  {.name = "balanced-iteration",
   .title = "one run of Balanced Iteration Subsampling (RDP only)",
   .example = "balanced-iteration:T=10,k=1,sigma=1,c=1",
   .summary = "Balanced Iteration Subsampling (splitting paper, Thm 3.8): "
              "ONE event is a WHOLE run of T iterations in which each "
              "example is used in exactly k of them, chosen uniformly at "
              "random, gradients clipped to norm c, noise N(0, sigma^2).  "
              "count=N composes N such runs (epochs, Remark 3.10); do not "
              "set count=T.  PLD (the default backend): k = 1 is the "
              "one-of-T random allocation pair bracketed between two finite "
              "pairs, k > 1 the composition of k one-of-floor/ceil(T/k) "
              "allocations that dominates it (upper end certified, the "
              "lower end is the reduction's, docs/allocation.md).  RDP "
              "(--backend rdp): the same sound RDP as model-splitting with "
              "d = T (the run's reduction to that pair is the paper's, "
              "docs/papers-rdp.md)",
   .check = check_bis,
   .add = add_bis,
   .rdp = rdp_splitting,
   .rdp_how = "as above (pld_rdp_model_splitting_curve); it takes about "
              "0.2 to 1 s on the 157 default orders, less with fewer "
              "--orders",
   .keys = {{"T", DOM_INT_GE1, 1, 0, "number of iterations of one run"},
            {"k", DOM_INT_GE1, 1, 0,
             "iterations each example takes part in, 1 <= k <= T"},
            {"sigma", DOM_NOISE, 1, 0, "noise standard deviation"},
            {"c", DOM_POSITIVE, 1, 0,
             "clipping norm of one example's gradient (L2 sensitivity)",
             .mono = MONO_LESS}}},
  {.name = "poisson-splitting",
   .title = "Poisson-subsampled step with disjoint model splitting",
   .example = "poisson-splitting:q=0.1,d=4,sigma=1,c=1,count=100",
   .summary = "one training step of the splitting paper's Fig. 1: each "
              "example is included with probability q (Poisson), an "
              "included example's gradient, clipped to norm c, goes to one "
              "of d disjoint submodels chosen uniformly, every submodel "
              "adds N(0, sigma^2): Q = N(0, sigma^2 I_d), P = (1-q) Q + "
              "(q/d) sum_i N(c e_i, sigma^2 I_d), both directions.  PLD "
              "(default backend): the Poisson subsampling of the one-of-d "
              "allocation bracket (docs/allocation.md), both ends "
              "certified; d = 1 is poisson-gaussian, q = 1 "
              "model-splitting with k = 1.  count=N composes N steps",
   .build = build_poisson_split,
   .rdp = rdp_poisson_split,
   .rdp_how = "pld_rdp_poisson_split at every order (forward exact at "
              "integer orders, reverse by quadrature); the Gaussian's "
              "alpha c^2/(2 sigma^2) where that has no value (orders above "
              "2048, c/sigma above 8)",
   .keys = {{"q", DOM_RATE, 1, 0, "sampling rate per step",
             .mono = MONO_LESS},
            {"d", DOM_INT_GE1, 1, 0, "number of disjoint submodels"},
            {"sigma", DOM_NOISE, 1, 0, "noise standard deviation"},
            {"c", DOM_POSITIVE, 1, 0,
             "clipping norm of one example's gradient (L2 sensitivity)",
             .mono = MONO_LESS}}},
  {.name = "partial-splitting",
   .title = "Poisson-subsampled step with partial model splitting",
   .example = "partial-splitting:q=0.1,d=4,sigma=1,c-split=1,c-shared=0.5,count=100",
   .summary = "one training step with partial model splitting (splitting "
              "paper, Sec. 3.2.2) and Poisson sampling at rate q: the "
              "split part of an included example's gradient, clipped to "
              "c-split, goes to one of d disjoint blocks chosen uniformly; "
              "the shared part (in every submodel, e.g. the first and last "
              "blocks), clipped to c-shared, may depend on the block drawn; "
              "N(0, sigma^2) on every coordinate.  PLD (default backend): "
              "the Poisson subsampling of N(c-shared, sigma^2) x (one-of-d "
              "allocation of c-split), which dominates every such step and "
              "is one of them (docs/allocation.md, \"Partial splitting\"); "
              "the two parts are subsampled together: adding their "
              "separately subsampled costs is not a bound for q < 1.  "
              "c-shared=0 is poisson-splitting, d = 1 poisson-gaussian with "
              "sensitivity hypot(c-split, c-shared).  count=N composes N "
              "steps",
   .build = build_partial_split,
   .rdp_how = "through the PLD bridge (conservative, see RDP BACKEND "
              "below)",
   .keys = {{"q", DOM_RATE, 1, 0, "sampling rate per step",
             .mono = MONO_LESS},
            {"d", DOM_INT_GE1, 1, 0,
             "number of disjoint blocks of the split part"},
            {"sigma", DOM_NOISE, 1, 0, "noise standard deviation"},
            {"c-split", DOM_POSITIVE, 1, 0,
             "clipping norm of the split part's gradient",
             .mono = MONO_LESS},
            {"c-shared", DOM_NONNEGATIVE, 0, 0,
             "clipping norm of the shared (non-split) part's gradient",
             .mono = MONO_LESS}}},
  {.name = "bounded-gaussian",
   .title = "bounded-support Gaussian, per instance",
   .example = "bounded-gaussian:kind=rectified,theta=0,a=2,sigma=1,c=1,count=3",
   .summary = "Gaussian noise with bounded support [-a, a] (bounded-support "
              "paper): N(theta, sigma^2) clipped to the support "
              "(kind=rectified, point masses at -a and a) or conditioned on "
              "it (kind=truncated).  A PER-INSTANCE guarantee: theta is the "
              "noiseless location for one of the two datasets and the "
              "neighbour shifts it by any amount in [-c, c].  RDP: the sup "
              "over shifts +c and -c and both directions of eq. (5) "
              "(rectified) or of the corrected eq. (6) (truncated), which "
              "is the sup over [-c, c] (docs/papers-rdp.md).  PLD (both "
              "kinds): the exact PLD of the rectified or truncated pair, "
              "taking at every epsilon the worse of the shifts +c and -c "
              "(a pair that dominates both, so runs compose soundly even "
              "when the sign changes between runs; the bracket is that "
              "pair's; smaller shifts are dominated: the families are "
              "stochastically ordered and the optimal tests are lower "
              "sets).  count=N composes N runs, the shift free in each",
   .build = build_bounded,
   .rdp = rdp_bounded,
   .no_pld = no_pld_bounded,
   .rdp_how = "as above (pld_rdp_bounded_gaussian_sup at every order), "
              "capped by the Gaussian's alpha c^2/(2 sigma^2) (Thm 4.9, "
              "which holds for both kinds), times count",
   .keys = {{"kind", DOM_CHOICE, 1, 0, "the bounded-support family",
             BOUNDED_KINDS},
            {"theta", DOM_REAL, 1, 0, "location of the noise (the "
             "noiseless value for one of the two datasets)"},
            {"a", DOM_POSITIVE, 1, 0, "half-width of the support [-a, a]"},
            {"sigma", DOM_NOISE, 1, 0, "noise standard deviation"},
            {"c", DOM_POSITIVE, 1, 0,
             "largest shift of the location by the neighbour (clipping "
             "norm of one contribution)"}}},
  {.name = "poisson-bounded-gaussian",
   .title = "Poisson-subsampled bounded-support Gaussian",
   .example = "poisson-bounded-gaussian:q=0.1,kind=truncated,theta=0,a=2,sigma=1,c=1,count=10",
   .summary = "Poisson-subsampled bounded-support Gaussian (bounded-support "
              "paper, Sec. 5.3, which leaves it open): each step includes "
              "the record with probability q, and a step that includes it "
              "is the bounded-gaussian event with the same keys, theta the "
              "location WITHOUT the record and the record shifting it by "
              "any amount in [-c, c] (the paper's (*)).  PLD: Poisson "
              "subsampling (add/remove, both directions) of the exact "
              "worst-of-+-c pair of bounded-gaussian, which dominates every "
              "shift, so the subsampled pair dominates too (Zhu, Dong, Wang "
              "2022); count=N composes N steps",
   .build = build_poisson_bounded,
   .no_pld = no_pld_poisson_bounded,
   .rdp_how = "through the PLD bridge (conservative, see RDP BACKEND below)",
   .keys = {{"q", DOM_RATE, 1, 0, "sampling rate per step",
             .mono = MONO_LESS},
            {"kind", DOM_CHOICE, 1, 0, "the bounded-support family",
             BOUNDED_KINDS},
            {"theta", DOM_REAL, 1, 0, "location of the noise (the "
             "noiseless value for one of the two datasets)"},
            {"a", DOM_POSITIVE, 1, 0, "half-width of the support [-a, a]"},
            {"sigma", DOM_NOISE, 1, 0, "noise standard deviation"},
            {"c", DOM_POSITIVE, 1, 0,
             "largest shift of the location by the neighbour (clipping "
             "norm of one contribution)"}}},
  {.name = "pld",
   .title = "a PLD saved by 'pldkit save' (a running ledger)",
   .summary = "a composed PLD saved by 'pldkit save' (a deployment's running "
              "ledger), composed count times with the other EVENTs; its grid "
              "step fixes the grid of the whole composition (automatic "
              "refinement is off, --discretization must match or be absent); "
              "format: include/pldkit/pld.h",
   .kind = KIND_DIST,
   .rdp_how = "through the PLD bridge applied to the saved PLD "
              "(conservative; inf if the file has mass at +inf, as every "
              "truncated or FFT-composed PLD does)",
   .keys = {{"file", DOM_PATH, 1, 0, "the PLD file"}}},
  {.name = "merge-lc",
   .title = "one step of a linear combination of merged DP-SGD runs",
   .example = "merge-lc:lambda=0.5;0.5,q=0.01;0.01,sigma=1;1.2,clip=1;1,lr=0.1;0.1,count=100",
   .summary = "one step of a linear combination theta = sum_i lambda_i "
              "theta_i of n <= 5 DP-SGD runs trained on the same data "
              "(model merging paper, Thm 6.4 surrogate: the mixture "
              "sum_J rho_J N(Delta_J, s^2) against N(0, s^2)); count = "
              "steps, every listed run active in each; steps after a run "
              "ended: a second merge-lc without it (lambda is scale-free, "
              "need not sum to 1)",
   .build = build_merge_lc,
   .check = check_merge_lc,
   .rdp = rdp_merge_lc,
   .rdp_how = "Thm 6.2 of the model merging paper in both directions "
              "(pld_merge_lc_rdp), certified upper",
   .keys = {{"lambda", DOM_REAL_LIST, 1, 0,
             "merge weights lambda_i >= 0, one per run"},
            {"q", DOM_REAL_LIST, 1, 0, "Poisson sampling rate of each run"},
            {"sigma", DOM_REAL_LIST, 1, 0,
             "noise multiplier of each run (noise std sigma_i * clip_i)"},
            {"clip", DOM_REAL_LIST, 0, 0,
             "clipping norm of each run (default 1 each)"},
            {"lr", DOM_REAL_LIST, 0, 0,
             "learning rate of each run (default 1 each)"}}},
  {.name = "random-selection",
   .title = "random selection among member event lists",
   .example = "random-selection:weights=0.5;0.5[gaussian:sigma=2|laplace:b=3]",
   .summary = "random selection of one of n member event lists, member i "
              "with probability w_i, the choice visible (model merging paper "
              "Thm 5.2): random-selection:weights=W1;...;Wn[,count=N]"
              "[MEMBER1|...|MEMBERn], see MEMBER LISTS below",
   .kind = KIND_SELECTION,
   .check = check_selection,
   .rdp_how = "Thm 5.1 of the model merging paper, log(sum_i w_i "
              "e^{(alpha-1) eps_i(alpha)})/(alpha-1), over the members' RDP "
              "curves",
   .keys = {{"weights", DOM_WEIGHT_LIST, 1, 0,
             "selection probabilities, one per member, in order"}}},

};

#define N_EVENTS (sizeof events / sizeof events[0])

static const char *domain_text(enum domain d)
{
  switch (d) {
  case DOM_POSITIVE:
    return "> 0";
  case DOM_NOISE:
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
  case DOM_WEIGHT_LIST:
    return "';'-separated probabilities in [0, 1] summing to 1 within 1e-12";
  case DOM_REAL_LIST:
    return "';'-separated finite numbers";
  case DOM_REAL:
    return "a finite number";
  case DOM_CHOICE:
    return "one of";
  case DOM_PATH:
    return "a file name without ',', '[', ']', '|', or '+' before a letter";
  }
  return "?";
}

/* The domain as a phrase, with the choices spelled out. */
static void domain_phrase(const struct key_spec *ks, char *buf, size_t n)
{
  if (ks->dom != DOM_CHOICE) {
    snprintf(buf, n, "%s", domain_text(ks->dom));
    return;
  }
  size_t o = (size_t)snprintf(buf, n, "one of ");
  for (const char *c = ks->choices; *c && o + 3 < n; c++) {
    if (*c == '|') {
      buf[o++] = ',';
      buf[o++] = ' ';
    } else {
      buf[o++] = *c;
    }
  }
  buf[o < n ? o : n - 1] = '\0';
}

/* The i-th word of a DOM_CHOICE key into buf. */
static const char *choice_name(const struct key_spec *ks, int64_t i, char *buf,
                               size_t n)
{
  const char *c = ks->choices;
  for (int64_t k = 0; k < i && c; k++) {
    c = strchr(c, '|');
    if (c)
      c++;
  }
  if (c == NULL) {
    snprintf(buf, n, "?");
    return buf;
  }
  size_t w = strcspn(c, "|");
  snprintf(buf, n, "%.*s", (int)w, c);
  return buf;
}

static size_t n_keys(const struct event_spec *e)
{
  size_t n = 0;
  while (n < MAX_KEYS && e->keys[n].name)
    n++;
  return n;
}

/* The key's direction for calibrate (MONO_*). */
static int key_mono(const struct key_spec *ks)
{
  if (ks->mono)
    return ks->mono;
  return ks->dom == DOM_NOISE ? MONO_MORE : MONO_NONE;
}

size_t pld_event_count(void) { return N_EVENTS; }

int pld_event_info_get(size_t i, pld_event_info *out)
{
  if (i >= N_EVENTS || !out)
    return PLD_EINVAL;
  const struct event_spec *e = &events[i];
  pld_event_info r;
  memset(&r, 0, sizeof r);
  r.name = e->name;
  r.title = e->title;
  r.summary = e->summary;
  r.example = e->example;
  r.rdp_how = e->rdp_how;
  r.has_pld = e->no_pld == NULL;
  r.n_keys = n_keys(e);
  *out = r;
  return PLD_SUCCESS;
}

int pld_event_find(const char *name, size_t *index)
{
  if (!name || !index)
    return PLD_EINVAL;
  for (size_t i = 0; i < N_EVENTS; i++)
    if (strcmp(events[i].name, name) == 0) {
      *index = i;
      return PLD_SUCCESS;
    }
  return PLD_EINVAL;
}

/* One event's entry: its summary, how RDP handles it, and every key with
 * its meaning, default and domain. */
static void event_entry(FILE *f, const struct event_spec *e)
{
  char head[32], text[400], dom[96];
  fprintf(f, "%s%s%s\n", e->name, e->title ? " - " : "",
          e->title ? e->title : "");
  pld_text_wrap(f, "", 2, e->summary);
  if (e->rdp_how) {
    snprintf(text, sizeof text, "RDP (--backend rdp): %s", e->rdp_how);
    pld_text_wrap(f, "", 2, text);
  }
  fputs("Keys:\n", f);
  for (size_t k = 0; k < n_keys(e); k++) {
    const struct key_spec *ks = &e->keys[k];
    char def[48];
    if (ks->required)
      snprintf(def, sizeof def, "required");
    else if (ks->dom == DOM_CHOICE)
      snprintf(def, sizeof def, "default %s",
               choice_name(ks, (int64_t)ks->def, head, sizeof head));
    else
      snprintf(def, sizeof def, "default %g", ks->def);
    domain_phrase(ks, dom, sizeof dom);
    snprintf(head, sizeof head, "  %s", ks->name);
    snprintf(text, sizeof text, "%s; %s, %s%s", ks->meaning, def, dom,
             key_mono(ks) == MONO_MORE
                 ? " (or ? in calibrate: larger is more private)"
             : key_mono(ks) == MONO_LESS
                 ? " (or ? in calibrate: smaller is more private)"
                 : "");
    pld_text_wrap(f, head, 16, text);
  }
  pld_text_wrap(f, "  count", 16,
               "number of runs, composed with itself (every EVENT takes it); "
               "default 1, an integer from 1 to 2^53 (or ? in calibrate: the "
               "largest number of runs that meets the target)");
  if (e->kind == KIND_SELECTION)
    pld_event_members_help(f);
}

/* The one walk over the event table behind 'pldkit events' and 'pldkit
 * help EVENT' (the table is the only description of the events). */
int pld_event_catalogue_write(FILE *f, enum pld_event_catalogue_mode mode,
                            const char *name)
{
  int found = 0;
  for (size_t i = 0; i < N_EVENTS; i++) {
    const struct event_spec *e = &events[i];
    if (name != NULL && strcmp(name, e->name) != 0)
      continue;
    found = 1;
    if (mode == PLD_EVENT_CAT_LIST)
      fprintf(f, "  %-26s %s\n", e->name, e->title ? e->title : "");
    else
      event_entry(f, e);
  }
  return found ? 0 : -1;
}

void pld_event_members_help(FILE *f)
{
  fputs("\nMember lists and '+':\n", f);
  pld_text_wrap(f, "", 2,
               "random-selection:weights=W1;...;Wn[,count=N][M1|M2|...|Mn] "
               "runs member Mi with probability Wi (the choice is visible; "
               "there must be exactly one weight per member, each >= 0, "
               "summing to 1 within 1e-12).  The member list is in brackets, "
               "at the end of the event, members separated by '|'.  Each "
               "member is one or more EVENTs joined by '+', composed on their "
               "own before the selection, e.g. "
               "[gaussian:sigma=2,count=10+laplace:b=3|gaussian:sigma=8]; a "
               "member may itself be a random-selection (nesting up to 32 "
               "levels).  count=N, before '[', composes the whole selection "
               "N times.  A '+' joins EVENTs only when a letter follows it "
               "(1e+5 stays a number), and an EVENT argument may itself be "
               "several EVENTs joined by '+'.  Quote such arguments in the "
               "shell: ';', '|', '[' and ']' are special there.  Example: "
               "pldkit epsilon --delta 1e-5 "
               "'random-selection:weights=0.3;0.7[gaussian:sigma=2,count=10|"
               "gaussian:sigma=8,count=10]'");
}

void pld_event_rdp_help(FILE *f)
{
  fputs("The RDP backend (--backend rdp|both of epsilon, delta and calibrate, "
        "and rdp-curve):\n", f);
  pld_text_wrap(f, "", 2,
               "Every EVENT's Renyi DP curve eps(alpha) is computed at every "
               "order alpha of the grid (--orders), as a certified upper "
               "bound, and the curves are added (composition).  Events with "
               "a closed form or a paper's bound use it (pldkit help EVENT, "
               "line RDP).  "
               "The others go through the PLD bridge: the certified upper "
               "Renyi divergence of the pessimistic PLD of one run (on a "
               "fine grid: --discretization if given, else a divisor of the "
               "mechanism's loss lattice if it has one, else about 1e-3/count "
               "of its loss scale, at least 1e-4 of it; where that gives inf, "
               "also a second grid, keeping the smaller value), composed "
               "count times.  "
               "The bridge is conservative: it adds up to one grid step per "
               "run, and it is inf at every order when the PLD has mass at "
               "+inf (losses truncated at a finite value, e.g. unbounded "
               "losses, or rounding); inf is then the honest answer, not "
               "an error.  Members of random-selection are composed into "
               "their own curves.  model-splitting, balanced-iteration and "
               "bounded-gaussian with kind=truncated exist only in RDP; "
               "random-participation with analysis=thm41 or ols only in "
               "PLD.  Proofs and what is not proven: docs/papers-rdp.md");
}

const char *pld_event_solvable_keys(void)
{
  static char buf[256];
  if (buf[0])
    return buf;
  size_t o = 0;
  for (size_t i = 0; i < N_EVENTS; i++)
    for (size_t k = 0; k < n_keys(&events[i]); k++) {
      const struct key_spec *ks = &events[i].keys[k];
      if (key_mono(ks) == MONO_NONE)
        continue;
      /* Once per name. */
      int dup = 0;
      for (size_t j = 0; j <= i && !dup; j++)
        for (size_t l = 0; l < n_keys(&events[j]) && !dup; l++) {
          if (j == i && l == k)
            break;
          dup = key_mono(&events[j].keys[l]) != MONO_NONE &&
                strcmp(events[j].keys[l].name, ks->name) == 0;
        }
      if (dup)
        continue;
      int w = snprintf(buf + o, sizeof buf - o, "%s, ", ks->name);
      if (w < 0 || (size_t)w >= sizeof buf - o)
        return buf;
      o += (size_t)w;
    }
  snprintf(buf + o, sizeof buf - o, "count");
  return buf;
}

int pld_event_is_solvable_key(const char *name)
{
  if (strcmp(name, "count") == 0)
    return 1;
  for (size_t i = 0; i < N_EVENTS; i++)
    for (size_t k = 0; k < n_keys(&events[i]); k++)
      if (key_mono(&events[i].keys[k]) != MONO_NONE &&
          strcmp(events[i].keys[k].name, name) == 0)
        return 1;
  return 0;
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
};

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
             "be %s)", name, qev, name, domain_text(dom));
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
  for (size_t k = 0; k < n_keys(e) && o < n; k++) {
    if (key_mono(&e->keys[k]) == MONO_NONE ||
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
      choice_name(&e->keys[5], v[5].integer, an, sizeof an);
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
  while (k < n_keys(e) && strcmp(e->keys[k].name, c->mark_key) != 0)
    k++;
  if (k == n_keys(e))
    return PLD_EVENT_OK; /* not reached: the marker was read from e's keys */
  const struct key_spec *ks = &e->keys[k];
  const char *why = e->no_solve ? e->no_solve(v, k) : NULL;
  if (why == NULL && key_mono(ks) == MONO_NONE)
    why = "pldkit knows no monotone dependence of epsilon on it";
  if (why) {
    solvable_keys_of(e, v, keys, sizeof keys);
    snprintf(ps->err, ps->errlen, "%s=? in event %s: calibrate cannot solve "
             "for %s: %s (it solves for one key in which epsilon is "
             "monotone; in this event: %s)", ks->name, qev, ks->name, why,
             keys);
    return PLD_EVENT_EUSAGE;
  }
  c->mark_direction = key_mono(ks);
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
  domain_phrase(ks, dom, sizeof dom);
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
      choice_name(ks, i, word, sizeof word);
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
      size_t k = 0, nk = n_keys(e);
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
                       : rdp_zero_like(sk->rdp, &curves[i]);
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
      st = rdp_zero_like(sk->rdp, &sel);
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
  choice_name(ks, vals[5].integer, an, sizeof an);
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
    snprintf(ps->err, ps->errlen, "the PLD file %s of event %s holds more "
             "than --max-grid %zu grid points (a larger --max-grid loads it)",
             qp, qev, cap->max_grid);
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
    st = rdp_zero_like(sk->rdp, &one);
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

/* Parse one EVENT (brackets balanced) and add it to acc (NULL: validate). */
static int parse_one(struct pstate *ps, char *text, const struct sink *sk,
                     unsigned depth)
{
  char qev[QUOTE_LEN], names[320], why[240];
  struct value vals[MAX_KEYS];
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
  list_event_names(names, sizeof names);

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
  e = find_event(text);
  if (e == NULL) {
    char qn[QUOTE_LEN];
    snprintf(err, errlen, "unknown event %s in %s (allowed: %s)",
             pld_quote(qn, sizeof qn, text), qev, names);
    goto done;
  }
  if (body && e->kind != KIND_SELECTION) {
    snprintf(err, errlen, "event %s: %s takes no member list '[...]' (only "
             "random-selection does)", qev, e->name);
    goto done;
  }
  if (!body && e->kind == KIND_SELECTION) {
    snprintf(err, errlen, "event %s has no member list: write %s:weights="
             "W1;W2[EVENT|EVENT] (members in brackets, separated by '|')",
             qev, e->name);
    goto done;
  }
  unsigned marks0 = ps->ctx->marks;
  if (items) {
    rc = parse_items(ps, e, items, vals, &count, qev);
    if (rc != PLD_EVENT_OK)
      goto done;
  }
  rc = PLD_EVENT_EUSAGE;
  for (size_t k = 0; k < n_keys(e); k++) {
    const struct key_spec *ks = &e->keys[k];
    char dom[96];
    if (vals[k].present)
      continue;
    if (ks->required) {
      domain_phrase(ks, dom, sizeof dom);
      snprintf(err, errlen, "event %s is missing the required key '%s' "
               "(%s, %s)", qev, ks->name, ks->meaning, dom);
      goto done;
    }
    vals[k].real = ks->def;
    vals[k].integer = (int64_t)ks->def;
  }
  if (ps->ctx->marks > marks0) {
    rc = solve_check(ps, e, vals, qev);
    if (rc != PLD_EVENT_OK)
      goto done;
    rc = PLD_EVENT_EUSAGE;
  }
  if (e->check && e->check(vals, why, sizeof why)) {
    snprintf(err, errlen, "event %s: %s", qev, why);
    goto done;
  }

  unsigned backends = backends_of(ps->ctx);
  if (e->closed && e->closed(vals)) {
    if ((backends & PLD_EVENT_BACKEND_RDP) || (sk && sk->rdp)) {
      char an[32];
      choice_name(&e->keys[5], vals[5].integer, an, sizeof an);
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
  if (e->note == note_participation && vals[5].integer == AN_CS)
    ps->ctx->not_bound = "lower_limit";
  if (e->kind == KIND_SELECTION) {
    rc = parse_members(ps, e, vals, count, body, sk, depth, qev);
    goto done_counted;
  }
  if (e->kind == KIND_DIST) {
    rc = add_dist(ps, vals[0].text, count, sk, qev);
    goto done_counted;
  }

  /* The mechanism (PLD), unless only an RDP formula is wanted. */
  int st;
  int added = 0;
  if (!no_pld && e->add && sk && sk->acc) {
    st = e->add(vals, sk->acc, count);
    if (st != PLD_SUCCESS) {
      if (st == PLD_EINVAL) {
        snprintf(err, errlen, "event %s was rejected by the library: %s",
                 qev, pld_strerror(st));
      } else {
        snprintf(err, errlen, "%s (while adding event %s)",
                 pld_strerror(st), qev);
        rc = PLD_EVENT_EFAIL;
      }
      goto done;
    }
    added = 1;
  }
  if (!no_pld && e->build && !(sk && sk->rdp && e->rdp)) {
    st = e->build(vals, &mech, &own);
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
    if (e->rdp) {
      st = e->rdp(vals, sk->rdp, count);
    } else if (ps->ctx->no_bridge) {
      st = PLD_EUNSUPPORTED;
    } else {
      st = mech ? rdp_bridge(mech, ps->ctx->params, count, sk->rdp)
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
                       const struct sink *sk, char *err, size_t errlen)
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

int pld_event_parse(const char *text, pld_event_ctx *ctx,
                        pld_accountant *acc, char *err, size_t errlen)
{
  struct sink sk = {acc, NULL};
  return parse_event(text, ctx, acc ? &sk : NULL, err, errlen);
}

int pld_event_parse_rdp(const char *text, pld_event_ctx *ctx,
                            pld_rdp_curve *curve, char *err, size_t errlen)
{
  struct sink sk = {NULL, curve};
  return parse_event(text, ctx, curve ? &sk : NULL, err, errlen);
}

/* ------------------------------------------------------------------------ */
/* Closed-form single-round answers.                                         */

const char *pld_event_closed_name(const pld_event_closed *c)
{
  static const char *const names[] = {"wcs", "cs", "thm41", "ols", "mwcs"};
  return c->analysis >= 0 && c->analysis < 5 ? names[c->analysis] : "?";
}

static int mwcs_weights(const struct value *v, double *wq, double *r0)
{
  pld_participation_params par = {.p = v[0].real, .q = v[1].real,
                                  .d = v[2].integer, .clip = v[3].real,
                                  .sigma = v[4].real};
  return pld_participation_mwcs_mixture(&par, wq, r0) != PLD_SUCCESS;
}

/* The delta bracket of a closed-form analysis at eps, with its flags
 * (thm41: only when `flags`; without, the flags are left as they are and
 * the bracket is the same, at a fraction of the cost). */
static int closed_delta(const pld_event_closed *c, double eps,
                        pld_event_closed_answer *a, int flags)
{
  pld_participation_params par;
  par.p = c->p;
  par.q = c->q;
  par.d = (int64_t)c->d;
  par.clip = c->C;
  par.sigma = c->sigma;
  a->evaluations++;
  if (c->analysis == AN_OLS) {
    a->certified = 1;
    a->refuted = 0;
    a->below_cs = 0;
    a->cs_delta = NAN;
    a->lower_limit = NAN;
    return pld_participation_delta(&par, PLD_PARTICIPATION_OLS, eps,
                                   &a->bound);
  }
  if (!flags) /* a bisection step: Theorem 4.1's value only */
    return pld_participation_thm41_value(&par, eps, &a->bound);
  pld_participation_thm41 t;
  int st = pld_participation_thm41_delta(&par, eps, &t);
  if (st != PLD_SUCCESS)
    return st;
  a->bound.lower = fmax(0.0, t.delta - t.delta_err);
  a->bound.upper = fmin(1.0, t.delta + t.delta_err);
  /* Theorem 4.1 is one dataset's exact delta, not a worst case: never a
   * proven bound; t.certified = 1 only means that no refutation was found */
  a->certified = 0;
  a->refuted = !t.certified;
  a->below_cs = t.below_cs;
  a->cs_delta = t.cs_delta;
  a->lower_limit = t.lower_limit;
  return PLD_SUCCESS;
}

/* epsilon(delta) of a closed form: the smallest eps >= 0 whose delta
 * (upper end of the bracket for which == 1, lower end for which == 0) is
 * <= target, by doubling then bisection to a relative 1e-12.  The upper
 * answer is an eps where the upper delta was evaluated to meet the target.
 * *flags receives the evaluation at the answer. */
static int closed_epsilon(const pld_event_closed *c, double target, int which,
                          double *eps_out, pld_event_closed_answer *flags,
                          unsigned *evals)
{
  pld_event_closed_answer a, at;
  memset(&a, 0, sizeof a);
  double lo = 0.0, hi = 0.0;
  int st = closed_delta(c, 0.0, &a, 1);
#define MEETS(x) ((which ? (x).bound.upper : (x).bound.lower) <= target)
  if (st != PLD_SUCCESS)
    return st;
  at = a;
  if (!MEETS(a)) {
    hi = 1.0;
    for (;;) {
      st = closed_delta(c, hi, &a, 0);
      if (st != PLD_SUCCESS)
        return st;
      if (MEETS(a))
        break;
      lo = hi;
      hi *= 2.0;
      if (hi > 1e6) { /* no finite epsilon meets it */
        if ((st = closed_delta(c, hi, &a, 1)))
          return st;
        *eps_out = INFINITY;
        *flags = a;
        *evals += a.evaluations;
        return PLD_SUCCESS;
      }
    }
    at = a;
    while (hi - lo > 1e-12 * hi) {
      double mid = 0.5 * (lo + hi);
      st = closed_delta(c, mid, &a, 0);
      if (st != PLD_SUCCESS)
        return st;
      if (MEETS(a)) {
        hi = mid;
        at = a;
      } else {
        lo = mid;
      }
    }
    /* The flags (certified, below cs, lower limit: 81 concrete datasets,
     * the costly part) once, at the answer; the bracket is recomputed
     * identically. */
    if ((st = closed_delta(c, hi, &at, 1)))
      return st;
  }
#undef MEETS
  *eps_out = which ? hi : lo;
  *flags = at;
  *evals += a.evaluations;
  return PLD_SUCCESS;
}

int pld_event_closed_query(const pld_event_closed *c, int want_delta, double x,
                         pld_event_closed_answer *out, char *err,
                         size_t errlen)
{
  pld_event_closed_answer a;
  int st;
  memset(&a, 0, sizeof a);
  if (want_delta) {
    st = closed_delta(c, x, &a, 1);
  } else {
    pld_event_closed_answer lo_flags;
    double eps_lo = 0.0, eps_hi = 0.0;
    unsigned evals = 0;
    st = closed_epsilon(c, x, 1, &eps_hi, &a, &evals);
    if (st == PLD_SUCCESS)
      st = closed_epsilon(c, x, 0, &eps_lo, &lo_flags, &evals);
    a.bound.lower = eps_lo;
    a.bound.upper = eps_hi;
    a.evaluations = evals;
  }
  if (st != PLD_SUCCESS) {
    snprintf(err, errlen, "%s (while computing analysis=%s of event %s)",
             pld_status_text(st), pld_event_closed_name(c), c->where);
    return pld_event_rc_of_status(st);
  }
  *out = a;
  return PLD_EVENT_OK;
}

int pld_event_closed_bracket(const pld_event_closed *c, double delta,
                           pld_bound *out)
{
  pld_participation_params par;
  par.p = c->p;
  par.q = c->q;
  par.d = (int64_t)c->d;
  par.clip = c->C;
  par.sigma = c->sigma;
  int an = c->analysis == AN_OLS     ? PLD_PARTICIPATION_OLS
           : c->analysis == AN_THM41 ? PLD_PARTICIPATION_THM41
           : c->analysis == AN_CS    ? PLD_PARTICIPATION_CS
           : c->analysis == AN_MWCS  ? PLD_PARTICIPATION_MWCS
                                     : PLD_PARTICIPATION_WCS;
  return pld_participation_epsilon(&par, an, delta, out);
}
