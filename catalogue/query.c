/* pldkit catalogue: answering a tree -- the one path every front end takes
 * from events to a bracket, so that C, the CLI and Python give the same
 * numbers to the last digit.
 *
 * PLD backend: the accountant of all the events; its answer is the tightest
 * certified bound the library has (<pldkit/best.h>), with the RDP curve of
 * the events added as a second opinion where the PLD bracket missed its
 * target and every event has an RDP formula (the PLD bridge costs up to a
 * PLD build per event, too much for an optional bound).  A closed-form
 * single-round analysis (random-participation analysis=thm41|ols) is
 * answered by its formula instead.  RDP backend: the curve on the query's
 * orders (formulas, else the bridge), converted with the query's method. */
#include <pldkit/best.h>
#include <pldkit/event.h>

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "detail.h"
#include "events_internal.h"
#include "tree.h"

static double now(void)
{
  struct timespec ts;
  if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
    return 0.0;
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void pld_event_query_default(pld_event_query *q)
{
  if (q == NULL)
    return;
  memset(q, 0, sizeof *q);
  q->size = sizeof *q;
  pld_params_default(&q->params);
  q->backend = PLD_EVENT_BACKEND_PLD;
  q->rdp_method = PLD_RDP_BEST;
}

/* The optional RDP second opinion of the PLD backend: default orders, no
 * bridge; NULL when some event has no RDP formula. */
static pld_rdp_curve *optional_rdp(const pld_event *ev,
                                   const pld_event_query *q)
{
  pld_rdp_curve *cv = NULL;
  if (ev_tree_rdp(ev, 0, NULL, 0, &q->params, 0, &cv, NULL, NULL, NULL) !=
      PLD_SUCCESS)
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
static pld_rdp_curve *optional_rdp_for(const pld_event *ev,
                                       const pld_event_query *q,
                                       const pld_result *r, int is_delta,
                                       double x, const pld_params *p)
{
  /* level 2 first: the cheapest lower curves (balanced-iteration and
   * model-splitting: a projection of the run, no dynamic program), every
   * other event's level-1 curve or its RDP; if that cannot win, done;
   * else level 1 (the forward terms), unless level 2 used nothing
   * cheaper */
  for (int level = 2; level >= 1; level--) {
    pld_rdp_curve *lo = NULL;
    unsigned lowered = 0, cheaper = 0;
    if (ev_tree_rdp(ev, 0, NULL, 0, &q->params, level, &lo, NULL, &lowered,
                    &cheaper) != PLD_SUCCESS)
      return optional_rdp(ev, q); /* undecided */
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
  return optional_rdp(ev, q);
}

enum { WANT_EPSILON, WANT_DELTA, WANT_CURVE };

static const char *const want_words[] = {"epsilon", "delta", "curve"};

/* second_opinion: add the events' RDP to the best-of answer (not when
 * both backends answer: then each shows its own number). */
static int answer_pld(const pld_event *ev, const pld_event_query *q,
                      int want, double x, size_t m, const double *eps,
                      pld_bound *curve, int second_opinion,
                      pld_event_answer *a)
{
  struct ev_closed cl;
  if (ev_tree_closed(ev, &cl)) {
    if (want == WANT_CURVE)
      return pld_fail(PLD_EINVAL, "a closed-form single-round analysis "
                      "(random-participation analysis=thm41|ols) answers "
                      "epsilon and delta, not curves");
    int st = ev_closed_query(&cl, want == WANT_DELTA, x, &a->closed_answer);
    if (st != PLD_SUCCESS)
      return st;
    a->closed = 1;
    a->pld.bound = a->closed_answer.bound;
    a->pld.closed_form = 1;
    a->pld.met_accuracy = 1;
    a->have_pld = 1;
    return PLD_SUCCESS;
  }
  pld_accountant *acc = NULL;
  int st = pld_event_to_accountant(ev, &q->params, &acc);
  if (st != PLD_SUCCESS)
    return st;
  /* The RDP second opinion of an epsilon or delta is computed only where
   * the PLD bracket missed its accuracy target: where it met it, RDP can
   * lower the upper end by less than the target width (pld_best.h), and
   * some events' curves (model splitting, BIS) cost more than the PLD. */
  pld_rdp_curve *rdp = NULL;
  if (want == WANT_CURVE) {
    rdp = second_opinion ? optional_rdp(ev, q) : NULL;
    st = pld_best_curve(acc, rdp, m, eps, curve, &a->pld);
  } else {
    pld_params p;
    /* A delta in the far tail: where the RDP second opinion alone proves
     * delta <= PLD_DELTA_FLOOR, [0, that] meets the width rule whatever
     * the PLD's lower end, and the grid is not built (docs/design.md
     * Sec. 7, tail queries).  optional_rdp_for skips R where the events'
     * cheap lower curves show it cannot get there. */
    int tail = 0;
    if (want == WANT_DELTA && second_opinion &&
        pld_accountant_delta_gridfree(acc, x, &a->pld) == PLD_SUCCESS &&
        a->pld.bound.upper <= PLD_DELTA_FLOOR)
      tail = 1; /* first: an exact 0 from the support is not preempted */
    if (want == WANT_DELTA && second_opinion && !tail &&
        pld_accountant_get_params(acc, &p) == PLD_SUCCESS) {
      pld_result t;
      memset(&t, 0, sizeof t);
      t.bound.upper = nextafter(PLD_DELTA_FLOOR, INFINITY);
      rdp = optional_rdp_for(ev, q, &t, 1, x, &p);
      if (rdp && pld_best_lower_upper(&t, rdp, 1, x, &p) == PLD_SUCCESS &&
          t.bound.upper <= PLD_DELTA_FLOOR) {
        t.met_accuracy = 1;
        t.width_limit = PLD_WIDTH_GRID;
        a->pld = t;
        tail = 1;
      }
      pld_rdp_curve_free(rdp);
      rdp = NULL;
    }
    st = tail ? PLD_SUCCESS
         : want == WANT_DELTA ? pld_accountant_delta(acc, x, &a->pld)
                              : pld_accountant_epsilon(acc, x, &a->pld);
    if (!tail && st == PLD_SUCCESS && second_opinion && !a->pld.met_accuracy &&
        (st = pld_accountant_get_params(acc, &p)) == PLD_SUCCESS &&
        (rdp = optional_rdp_for(ev, q, &a->pld, want == WANT_DELTA, x,
                                &p)) != NULL)
      st = pld_best_lower_upper(&a->pld, rdp, want == WANT_DELTA, x, &p);
  }
  pld_rdp_curve_free(rdp);
  pld_accountant_free(acc);
  if (st != PLD_SUCCESS)
    return pld_fail_if_silent(st, "%s (while computing the %s)",
                              pld_strerror(st), want_words[want]);
  a->have_pld = 1;
  return PLD_SUCCESS;
}

static int answer_rdp(const pld_event *ev, const pld_event_query *q,
                      int want, double x, pld_event_answer *a)
{
  pld_rdp_curve *cv = NULL;
  int st = ev_tree_rdp(ev, q->n_orders, q->orders, 1, &q->params, 0, &cv,
                       &a->bridged, NULL, NULL);
  if (st != PLD_SUCCESS)
    return st;
  size_t k = pld_rdp_curve_size(cv);
  const double *orders = pld_rdp_curve_orders(cv);
  a->rdp_n = k;
  a->rdp_first = orders[0];
  a->rdp_last = orders[k - 1];
  st = want == WANT_DELTA ? pld_rdp_delta(cv, x, q->rdp_method, &a->rdp)
                          : pld_rdp_epsilon(cv, x, q->rdp_method, &a->rdp);
  pld_rdp_curve_free(cv);
  if (st != PLD_SUCCESS)
    return pld_fail_if_silent(st, "%s (while computing the RDP %s)",
                              pld_strerror(st), want_words[want]);
  a->have_rdp = 1;
  return PLD_SUCCESS;
}

static int answer(const pld_event *ev, const pld_event_query *q, int want,
                  double x, size_t m, const double *eps, pld_bound *curve,
                  pld_event_answer *out)
{
  pld_detail_clear();
  if (ev == NULL || q == NULL || out == NULL)
    return pld_fail(PLD_EINVAL, "ev, q and out must not be NULL");
  if (q->size < sizeof *q || out->size < sizeof *out)
    return pld_fail(PLD_EINVAL, "q->size and out->size must be the structs' "
                    "sizes (pld_event_query_default sets q's)");
  unsigned b = q->backend ? q->backend : PLD_EVENT_BACKEND_PLD;
  if (b & ~(unsigned)(PLD_EVENT_BACKEND_PLD | PLD_EVENT_BACKEND_RDP))
    return pld_fail(PLD_EINVAL, "backend must be PLD_EVENT_BACKEND_PLD, "
                    "PLD_EVENT_BACKEND_RDP or both");
  if (want == WANT_CURVE && b != PLD_EVENT_BACKEND_PLD)
    return pld_fail(PLD_EINVAL, "curves are answered by the PLD backend "
                    "only");
  if (ev_tree_hole(ev))
    return ev_tree_refuse_hole(ev);
  pld_event_summary s;
  s.size = sizeof s;
  if (pld_event_summarize(ev, &s) != PLD_SUCCESS)
    return PLD_EINVAL;
  pld_event_answer a;
  memset(&a, 0, sizeof a);
  a.size = sizeof a;
  a.note = s.note;
  a.not_bound = s.not_bound;
  int st = PLD_SUCCESS;
  double t0 = now();
  if (b & PLD_EVENT_BACKEND_PLD)
    st = answer_pld(ev, q, want, x, m, eps, curve,
                    b == PLD_EVENT_BACKEND_PLD, &a);
  double t1 = now();
  if (st == PLD_SUCCESS && (b & PLD_EVENT_BACKEND_RDP))
    st = answer_rdp(ev, q, want, x, &a);
  a.pld_seconds = t1 - t0;
  a.rdp_seconds = now() - t1;
  if (st == PLD_SUCCESS)
    *out = a;
  return st;
}

int pld_event_epsilon(const pld_event *ev, const pld_event_query *q,
                      double delta, pld_event_answer *out)
{
  return answer(ev, q, WANT_EPSILON, delta, 0, NULL, NULL, out);
}

int pld_event_delta(const pld_event *ev, const pld_event_query *q,
                    double epsilon, pld_event_answer *out)
{
  return answer(ev, q, WANT_DELTA, epsilon, 0, NULL, NULL, out);
}

int pld_event_curve(const pld_event *ev, const pld_event_query *q, size_t m,
                    const double *eps, pld_bound *curve,
                    pld_event_answer *out)
{
  if (m == 0 || !eps || !curve) {
    pld_detail_clear();
    return pld_fail(PLD_EINVAL, "a curve needs at least one epsilon and "
                    "room for its brackets");
  }
  return answer(ev, q, WANT_CURVE, 0.0, m, eps, curve, out);
}

/* The grid `save` writes.  An accountant answer that refined names its grid
 * (r.discretization); a closed-form answer (all-Gaussian lists) names none,
 * so the grid starts at accuracy * epsilon (epsilon floored at 0.1 so a tiny
 * epsilon does not ask for a huge grid) and is halved, at most 6 times and
 * not below 1e-6, until the composed PLD's own bracket meets the accuracy.
 * The bracket reported is always the composed PLD's own, so it is a sound
 * bracket of the saved PLD whatever grid was chosen. */
int pld_event_compose_for_save(const pld_accountant *acc, double delta,
                               const pld_params *params, pld_dist **out,
                               pld_result *res)
{
  pld_dist *d = NULL;
  pld_result r;
  int st = PLD_SUCCESS, closed = 0;

  pld_detail_clear();
  if (acc == NULL || params == NULL || out == NULL || res == NULL)
    return pld_fail(PLD_EINVAL, "acc, params, out and res must not be NULL");
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
