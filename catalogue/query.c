/* pldkit catalogue: answering an EVENT list -- the one path every front end
 * takes from event texts to a bracket, so that the CLI and Python give the
 * same numbers to the last digit.
 *
 * PLD backend: the accountant of all the events; its answer is the tightest
 * certified bound the library has (<pldkit/best.h>), with the RDP curve of
 * the events added as a second opinion when every event has an RDP formula
 * (the PLD bridge costs up to a PLD build per event, too much for an
 * optional bound).  A closed-form single-round event (random-participation
 * analysis=thm41|ols|cs|mwcs) is answered by its formula instead.
 * RDP backend: the curve on the query's orders (formulas, else the bridge),
 * converted with the query's method. */
#include <pldkit/best.h>
#include <pldkit/event.h>

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "events_internal.h"

static double now(void)
{
  struct timespec ts;
  if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
    return 0.0;
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void pld_event_query_default(pld_event_query *q)
{
  memset(q, 0, sizeof *q);
  pld_params_default(&q->params);
  q->backend = PLD_EVENT_BACKEND_PLD;
  q->rdp_method = PLD_RDP_BEST;
}

static void set_err(char *err, size_t errlen, const char *fmt, const char *a)
{
  if (err && errlen)
    snprintf(err, errlen, fmt, a);
}

/* Validation pass: every event parsed with nothing built into (what the
 * CLI does before computing anything); fills ctx (closed form, notes). */
static int validate(const pld_event_query *q, size_t n,
                    const char *const *events, pld_event_ctx *ctx, char *err,
                    size_t errlen)
{
  memset(ctx, 0, sizeof *ctx);
  ctx->params = &q->params;
  ctx->backends = q->backend;
  if (n == 0) {
    set_err(err, errlen, "%s", "no EVENT given (an empty composition has no "
            "privacy loss to account)");
    return PLD_EVENT_EUSAGE;
  }
  for (size_t i = 0; i < n; i++) {
    int rc = q->backend == PLD_EVENT_BACKEND_RDP
                 ? pld_event_parse_rdp(events[i], ctx, NULL, err, errlen)
                 : pld_event_parse(events[i], ctx, NULL, err, errlen);
    if (rc != PLD_EVENT_OK) {
      pld_event_ctx_release(ctx);
      return rc;
    }
  }
  pld_event_ctx_release(ctx);
  return PLD_EVENT_OK;
}

int pld_event_accountant(const pld_event_query *q, size_t n,
                         const char *const *events, const char *subst,
                         pld_accountant **out, pld_event_owned **owned,
                         char *err, size_t errlen)
{
  pld_event_ctx pc;
  pld_accountant *acc = NULL;
  memset(&pc, 0, sizeof pc);
  pc.params = &q->params;
  pc.subst = subst;
  int st = pld_accountant_alloc(&q->params, &acc);
  if (st != PLD_SUCCESS) {
    if (err && errlen)
      snprintf(err, errlen, "%s (while creating the accountant)",
               pld_status_text(st));
    return pld_event_rc_of_status(st);
  }
  for (size_t i = 0; i < n; i++) {
    int rc = pld_event_parse(events[i], &pc, acc, err, errlen);
    if (rc != PLD_EVENT_OK) {
      pld_accountant_free(acc);
      pld_event_ctx_release(&pc);
      return rc;
    }
  }
  pld_event_owned_move(owned, &pc.owned);
  *out = acc;
  return PLD_EVENT_OK;
}

/* pld_event_rdp_curve with ctx.rdp_lower = lower (*lowered: the events
 * that added their lower curve; may be NULL). */
static int rdp_curve(const pld_event_query *q, size_t n,
                     const char *const *events, const char *subst,
                     int no_bridge, int lower, pld_rdp_curve **out,
                     unsigned *bridged, unsigned *lowered, char *err,
                     size_t errlen)
{
  pld_event_ctx pc;
  pld_rdp_curve *cv = NULL;
  int st = q->orders ? pld_rdp_curve_alloc(q->n_orders, q->orders, &cv)
                     : pld_rdp_curve_alloc_default(&cv);
  if (st != PLD_SUCCESS) {
    if (err && errlen)
      snprintf(err, errlen,
               "%s (while creating the RDP curve on %zu orders)",
               pld_status_text(st),
               q->orders ? q->n_orders : (size_t)PLD_RDP_DEFAULT_ORDERS);
    return pld_event_rc_of_status(st);
  }
  memset(&pc, 0, sizeof pc);
  pc.params = &q->params;
  pc.subst = subst;
  pc.backends = PLD_EVENT_BACKEND_RDP;
  pc.no_bridge = no_bridge;
  pc.rdp_lower = lower;
  for (size_t i = 0; i < n; i++) {
    int rc = pld_event_parse_rdp(events[i], &pc, cv, err, errlen);
    if (rc != PLD_EVENT_OK) {
      pld_rdp_curve_free(cv);
      pld_event_ctx_release(&pc);
      return rc;
    }
  }
  pld_event_ctx_release(&pc);
  if (bridged)
    *bridged = pc.bridged;
  if (lowered)
    *lowered = pc.lowered;
  *out = cv;
  return PLD_EVENT_OK;
}

int pld_event_rdp_curve(const pld_event_query *q, size_t n,
                        const char *const *events, const char *subst,
                        int no_bridge, pld_rdp_curve **out,
                        unsigned *bridged, char *err, size_t errlen)
{
  return rdp_curve(q, n, events, subst, no_bridge, 0, out, bridged, NULL,
                   err, errlen);
}

/* The optional RDP second opinion of the PLD backend: default orders, no
 * bridge; NULL when some event has no RDP formula. */
static pld_rdp_curve *optional_rdp(const pld_event_query *q, size_t n,
                                   const char *const *events)
{
  pld_event_query d = *q;
  pld_rdp_curve *cv = NULL;
  char err[256];
  d.orders = NULL;
  d.n_orders = 0;
  if (pld_event_rdp_curve(&d, n, events, NULL, 1, &cv, NULL, err,
                          sizeof err) != PLD_EVENT_OK)
    return NULL;
  return cv;
}

/* The second opinion for an epsilon or delta r of the PLD backend, or NULL
 * where it cannot lower r's upper end.  Events with a cheap lower curve
 * (rdp_lower, e.g. model splitting's forward terms without the reverse
 * quadrature) decide first: that curve L is <= the RDP curve R at every
 * order (each event's, and count-fold and across events the curves add
 * with pld_add_up, which is monotone), and pld_rdp_epsilon/pld_rdp_delta
 * are non-decreasing in every value of the curve (a minimum over orders of
 * roundings of sums and products with the value, exp; a +inf value is
 * skipped, and L = +inf forces R = +inf), so conv(R) >= conv(L).  If
 * conv(L) does not lower the upper end (pld_best_lower_upper changes r
 * only where conv < upper), conv(R) does not either, and R is not
 * computed: the answer is the same bit for bit.  When no event has a
 * lower curve, L is R and is returned as is. */
static pld_rdp_curve *optional_rdp_for(const pld_event_query *q, size_t n,
                                       const char *const *events,
                                       const pld_result *r, int is_delta,
                                       double x, const pld_params *p)
{
  pld_event_query d = *q;
  char err[256];
  d.orders = NULL;
  d.n_orders = 0;
  /* level 2 first: the cheapest lower curves (balanced-iteration and
   * model-splitting: a projection of the run, no dynamic program), every
   * other event's level-1 curve or its RDP; if that cannot win, done;
   * else level 1 (the forward terms), unless level 2 used nothing
   * cheaper */
  for (int level = 2; level >= 1; level--) {
    pld_rdp_curve *lo = NULL;
    unsigned lowered = 0;
    (void)ev_take_lowered2();
    if (rdp_curve(&d, n, events, NULL, 1, level, &lo, NULL, &lowered, err,
                  sizeof err) != PLD_EVENT_OK)
      return optional_rdp(q, n, events); /* undecided */
    unsigned cheaper = ev_take_lowered2();
    if (lowered == 0)
      return lo;
    pld_result t = *r;
    int st = pld_best_lower_upper(&t, lo, is_delta, x, p);
    pld_rdp_curve_free(lo);
    if (st == PLD_SUCCESS && !(t.bound.upper < r->bound.upper))
      return NULL;
    if (level == 2 && cheaper == 0)
      break; /* level 1 would be the same curve */
  }
  return optional_rdp(q, n, events);
}

enum { WANT_EPSILON, WANT_DELTA, WANT_CURVE };

static const char *const want_words[] = {"epsilon", "delta", "curve"};

/* second_opinion: add the events' RDP to the best-of answer (not when
 * both backends answer: then each shows its own number). */
static int answer_pld(const pld_event_query *q, size_t n,
                      const char *const *events, int want, double x,
                      size_t m, const double *eps, pld_bound *curve,
                      int second_opinion, pld_event_answer *a, char *err,
                      size_t errlen)
{
  pld_event_ctx ctx;
  int rc = validate(q, n, events, &ctx, err, errlen);
  if (rc != PLD_EVENT_OK)
    return rc;
  a->note = ctx.note;
  a->not_bound = ctx.not_bound;
  if (ctx.closed.present) {
    if (want == WANT_CURVE) {
      set_err(err, errlen, "%s", "a closed-form single-round analysis "
              "(random-participation analysis=thm41|ols|cs|mwcs) answers "
              "epsilon and delta, not curves");
      return PLD_EVENT_EUSAGE;
    }
    rc = pld_event_closed_query(&ctx.closed, want == WANT_DELTA, x,
                                &a->closed_answer, err, errlen);
    if (rc != PLD_EVENT_OK)
      return rc;
    a->closed = 1;
    a->closed_event = ctx.closed;
    a->pld.bound = a->closed_answer.bound;
    a->pld.closed_form = 1;
    a->pld.met_accuracy = 1;
    a->have_pld = 1;
    return PLD_EVENT_OK;
  }
  pld_accountant *acc = NULL;
  pld_event_owned *owned = NULL;
  rc = pld_event_accountant(q, n, events, NULL, &acc, &owned, err, errlen);
  if (rc != PLD_EVENT_OK)
    return rc;
  /* The RDP second opinion of an epsilon or delta is computed only where
   * the PLD bracket missed its accuracy target: where it met it, RDP can
   * lower the upper end by less than the target width (pld_best.h), and
   * some events' curves (model splitting, BIS) cost more than the PLD. */
  pld_rdp_curve *rdp = NULL;
  int st;
  if (want == WANT_CURVE) {
    rdp = second_opinion ? optional_rdp(q, n, events) : NULL;
    st = pld_best_curve(acc, rdp, m, eps, curve, &a->pld);
  } else {
    st = want == WANT_DELTA ? pld_accountant_delta(acc, x, &a->pld)
                            : pld_accountant_epsilon(acc, x, &a->pld);
    pld_params p;
    if (st == PLD_SUCCESS && second_opinion && !a->pld.met_accuracy &&
        (st = pld_accountant_get_params(acc, &p)) == PLD_SUCCESS &&
        (rdp = optional_rdp_for(q, n, events, &a->pld, want == WANT_DELTA,
                                x, &p)) != NULL)
      st = pld_best_lower_upper(&a->pld, rdp, want == WANT_DELTA, x, &p);
  }
  pld_rdp_curve_free(rdp);
  pld_accountant_free(acc);
  pld_event_owned_free(owned);
  if (st != PLD_SUCCESS) {
    a->status = st;
    if (err && errlen)
      snprintf(err, errlen, "%s (while computing the %s)",
               pld_status_text(st), want_words[want]);
    return pld_event_rc_of_status(st);
  }
  a->have_pld = 1;
  return PLD_EVENT_OK;
}

static int answer_rdp(const pld_event_query *q, size_t n,
                      const char *const *events, int want, double x,
                      pld_event_answer *a, char *err, size_t errlen)
{
  pld_event_ctx ctx;
  pld_event_query r = *q;
  r.backend = PLD_EVENT_BACKEND_RDP;
  int rc = validate(&r, n, events, &ctx, err, errlen);
  if (rc != PLD_EVENT_OK)
    return rc;
  a->not_bound = ctx.not_bound;
  pld_rdp_curve *cv = NULL;
  rc = pld_event_rdp_curve(q, n, events, NULL, 0, &cv, &a->bridged, err,
                           errlen);
  if (rc != PLD_EVENT_OK)
    return rc;
  size_t k = pld_rdp_curve_size(cv);
  const double *orders = pld_rdp_curve_orders(cv);
  a->rdp_n = k;
  a->rdp_first = orders[0];
  a->rdp_last = orders[k - 1];
  int st = want == WANT_DELTA
               ? pld_rdp_delta(cv, x, q->rdp_method, &a->rdp)
               : pld_rdp_epsilon(cv, x, q->rdp_method, &a->rdp);
  pld_rdp_curve_free(cv);
  if (st != PLD_SUCCESS) {
    a->status = st;
    if (err && errlen)
      snprintf(err, errlen, "%s (while computing the RDP %s)",
               pld_status_text(st), want_words[want]);
    return pld_event_rc_of_status(st);
  }
  a->have_rdp = 1;
  return PLD_EVENT_OK;
}

static int answer(const pld_event_query *q, size_t n,
                  const char *const *events, int want, double x, size_t m,
                  const double *eps, pld_bound *curve, pld_event_answer *out,
                  char *err, size_t errlen)
{
  if (!q || !out || (n && !events)) {
    set_err(err, errlen, "%s", "a NULL query, answer or event list");
    return PLD_EVENT_EUSAGE;
  }
  for (size_t i = 0; i < n; i++)
    if (!events[i]) {
      set_err(err, errlen, "%s", "a NULL event text");
      return PLD_EVENT_EUSAGE;
    }
  unsigned b = q->backend ? q->backend : PLD_EVENT_BACKEND_PLD;
  if (b & ~(unsigned)(PLD_EVENT_BACKEND_PLD | PLD_EVENT_BACKEND_RDP)) {
    set_err(err, errlen, "%s", "backend must be PLD_EVENT_BACKEND_PLD, "
            "PLD_EVENT_BACKEND_RDP or both");
    return PLD_EVENT_EUSAGE;
  }
  if (want == WANT_CURVE && b != PLD_EVENT_BACKEND_PLD) {
    set_err(err, errlen, "%s", "curves are answered by the PLD backend only");
    return PLD_EVENT_EUSAGE;
  }
  pld_event_answer a;
  memset(&a, 0, sizeof a);
  int rc = PLD_EVENT_OK;
  double t0 = now();
  if (b & PLD_EVENT_BACKEND_PLD)
    rc = answer_pld(q, n, events, want, x, m, eps, curve,
                    b == PLD_EVENT_BACKEND_PLD, &a, err, errlen);
  double t1 = now();
  if (rc == PLD_EVENT_OK && (b & PLD_EVENT_BACKEND_RDP))
    rc = answer_rdp(q, n, events, want, x, &a, err, errlen);
  a.pld_seconds = t1 - t0;
  a.rdp_seconds = now() - t1;
  if (rc == PLD_EVENT_OK)
    *out = a;
  else
    out->status = a.status;
  return rc;
}

int pld_event_epsilon(const pld_event_query *q, size_t n,
                      const char *const *events, double delta,
                      pld_event_answer *out, char *err, size_t errlen)
{
  return answer(q, n, events, WANT_EPSILON, delta, 0, NULL, NULL, out, err,
                errlen);
}

int pld_event_delta(const pld_event_query *q, size_t n,
                    const char *const *events, double epsilon,
                    pld_event_answer *out, char *err, size_t errlen)
{
  return answer(q, n, events, WANT_DELTA, epsilon, 0, NULL, NULL, out, err,
                errlen);
}

int pld_event_curve(const pld_event_query *q, size_t n,
                    const char *const *events, size_t m, const double *eps,
                    pld_bound *curve, pld_event_answer *out, char *err,
                    size_t errlen)
{
  if (m == 0 || !eps || !curve) {
    set_err(err, errlen, "%s", "a curve needs at least one epsilon and room "
            "for its brackets");
    return PLD_EVENT_EUSAGE;
  }
  return answer(q, n, events, WANT_CURVE, 0.0, m, eps, curve, out, err,
                errlen);
}

/* The grid `save` writes.  An accountant answer that refined names its grid
 * (r.discretization); a closed-form answer (all-Gaussian lists) names none,
 * so the grid starts at accuracy * epsilon (epsilon floored at 0.1 so a tiny
 * epsilon does not ask for a huge grid) and is halved, at most 6 times and
 * not below 1e-6, until the composed PLD's own bracket meets the accuracy.
 * The bracket reported is always the composed PLD's own, so it is a sound
 * bracket of the saved PLD whatever grid was chosen. */
int pld_event_compose_for_save(pld_accountant *acc, double delta,
                               const pld_params *params, pld_dist **out,
                               pld_result *res)
{
  pld_dist *d = NULL;
  pld_result r;
  int st = PLD_SUCCESS, closed = 0;

  if (acc == NULL || params == NULL || out == NULL || res == NULL)
    return PLD_EINVAL;
  double grid = params->discretization;
  memset(res, 0, sizeof *res);
  if (!(grid > 0)) {
    /* the grid path's own choice: the grid-free inversion (design.md
     * §16) answers without a grid to save */
    st = pld_accountant_epsilon_grid(acc, delta, &r);
    if (st == PLD_SUCCESS && !r.closed_form && r.refinements == 0) {
      /* answered without a grid: none fits, or its booked round-off
       * compounds past use over these counts (docs/design.md Sec. 9) */
      *res = r;
      *out = NULL;
      return PLD_SUCCESS;
    }
    if (st == PLD_SUCCESS) {
      closed = r.closed_form;
      res->refinements = r.refinements;
      grid = closed ? params->accuracy * fmax(r.bound.upper, 0.1)
                    : r.discretization;
    }
  }
  for (int tries = 0; st == PLD_SUCCESS; tries++) {
    pld_dist_free(d);
    d = NULL;
    st = pld_accountant_compose(acc, grid, &d);
    if (st == PLD_SUCCESS)
      st = pld_dist_epsilon(d, delta, &res->bound);
    if (st != PLD_SUCCESS || !closed || tries == 6)
      break;
    pld_bound b = res->bound;
    if (!(b.upper - b.lower > params->accuracy * b.upper) || grid < 1e-6)
      break;
    grid /= 2;
  }
  if (st != PLD_SUCCESS) {
    pld_dist_free(d);
    return st;
  }
  *out = d;
  return PLD_SUCCESS;
}
