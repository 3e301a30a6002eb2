/* pldkit catalogue: calibration over a tree's hole (pld_event_calibrate):
 * each evaluation fills the hole and answers the filled tree -- by the
 * accountant (pld_calibrate_accountant, with its refinement of undecided
 * values), by the RDP curve (upper ends only), or by a closed-form
 * analysis's own bracket. */
#include <pldkit/event.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detail.h"
#include "events_internal.h"
#include "tree.h"

/* The RDP answer at each value tried (for the order at the answer). */
struct seen {
  double x;
  pld_rdp_result r;
};

struct cal {
  const pld_event *ev;
  const pld_event_query *q;
  double delta;
  pld_progress_fn progress;
  void *progress_ctx;
  struct seen *seen;
  size_t n_seen;
  unsigned bridged;
};

/* A failure inside an evaluation, with the value named; PLD_ECALLBACK so
 * that the search stops and passes it through, as a failed build. */
static int at_value(const struct cal *k, double x, int st)
{
  pld_event_hole h;
  char v[40];
  h.size = sizeof h;
  if (pld_event_get_hole(k->ev, &h) != PLD_SUCCESS)
    return PLD_ECALLBACK;
  if (h.integer)
    snprintf(v, sizeof v, "%.0f", x);
  else
    ev_fmt_exact(v, sizeof v, x);
  char inner[512];
  snprintf(inner, sizeof inner, "%s", pld_error_detail()[0]
                                          ? pld_error_detail()
                                          : pld_strerror(st));
  return pld_fail(PLD_ECALLBACK, "at %s = %s: %s",
                  h.key, v, inner);
}

static int cal_build(double x, void *vk, pld_accountant **out)
{
  struct cal *k = vk;
  pld_event *f = NULL;
  int st = pld_event_fill(k->ev, x, &f);
  if (st == PLD_SUCCESS)
    st = pld_event_to_accountant(f, &k->q->params, out);
  pld_event_free(f);
  return st == PLD_SUCCESS ? st : at_value(k, x, st);
}

/* RDP: the certified upper end only, so the bracket is [0, value] and no
 * value is ever certified to fail. */
static int cal_eval_rdp(double x, const pld_result *prev, void *vk,
                        pld_result *out)
{
  struct cal *k = vk;
  if (prev)
    return PLD_EUNSUPPORTED;
  pld_event *f = NULL;
  pld_rdp_curve *cv = NULL;
  pld_rdp_result r;
  int st = pld_event_fill(k->ev, x, &f);
  if (st == PLD_SUCCESS)
    st = pld_event_to_rdp(f, k->q->n_orders, k->q->orders, 1, &k->q->params,
                          &cv, &k->bridged);
  pld_event_free(f);
  if (st != PLD_SUCCESS)
    return at_value(k, x, st);
  st = pld_rdp_epsilon(cv, k->delta, k->q->rdp_method, &r);
  pld_rdp_curve_free(cv);
  if (st != PLD_SUCCESS)
    return st;
  if (k->n_seen < PLD_SEARCH_MAX_EVALS) {
    k->seen[k->n_seen].x = x;
    k->seen[k->n_seen].r = r;
    k->n_seen++;
  }
  memset(out, 0, sizeof *out);
  out->bound.lower = 0.0;
  out->bound.upper = r.value;
  out->met_accuracy = 1;
  return PLD_SUCCESS;
}

/* A closed-form single round: its epsilon bracket at delta. */
static int cal_eval_closed(double x, const pld_result *prev, void *vk,
                           pld_result *out)
{
  struct cal *k = vk;
  struct ev_closed cl;
  if (prev)
    return PLD_EUNSUPPORTED;
  pld_event *f = NULL;
  int st = pld_event_fill(k->ev, x, &f);
  if (st != PLD_SUCCESS)
    return at_value(k, x, st);
  (void)ev_tree_closed(f, &cl);
  pld_event_free(f);
  memset(out, 0, sizeof *out);
  st = ev_closed_bracket(&cl, k->delta, &out->bound);
  out->closed_form = 1;
  out->met_accuracy = 1;
  return st;
}

int pld_event_calibrate(const pld_event *ev, const pld_event_query *q,
                        double epsilon, double delta,
                        const pld_search_opts *opts, pld_progress_fn progress,
                        void *progress_ctx, pld_event_calibration *out)
{
  pld_detail_clear();
  if (ev == NULL || q == NULL || out == NULL)
    return pld_fail(PLD_EINVAL, "ev, q and out must not be NULL");
  if (q->size < sizeof *q || out->size < sizeof *out)
    return pld_fail(PLD_EINVAL, "q->size and out->size must be the structs' "
                    "sizes");
  if (q->backend != PLD_EVENT_BACKEND_PLD &&
      q->backend != PLD_EVENT_BACKEND_RDP)
    return pld_fail(PLD_EINVAL, "calibration runs one backend at a time: "
                    "PLD_EVENT_BACKEND_PLD or PLD_EVENT_BACKEND_RDP");
  if (!(epsilon >= 0.0) || !isfinite(epsilon))
    return pld_fail(PLD_EINVAL, "epsilon = %g must be finite and >= 0",
                    epsilon);
  if (!(delta > 0.0 && delta < 1.0))
    return pld_fail(PLD_EINVAL, "delta = %g must be in (0, 1)", delta);
  pld_event_hole h;
  h.size = sizeof h;
  if (pld_event_get_hole(ev, &h) != PLD_SUCCESS)
    return PLD_EINVAL;
  if (!h.present)
    return pld_fail(PLD_EINVAL, "the event has no hole: mark the value to "
                    "solve for with KEY=?");
  struct ev_closed cl;
  int closed = ev_tree_closed(ev, &cl);
  if (closed && q->backend == PLD_EVENT_BACKEND_RDP)
    return pld_fail(PLD_EINVAL, "analysis=%s in event %s is a closed-form "
                    "single-round answer with no RDP curve",
                    ev_closed_name(&cl), cl.where);
  pld_search_opts o;
  if (opts) {
    o = *opts;
  } else {
    pld_search_opts_default(&o);
    o.lo = h.lo;
    o.hi = h.hi;
    o.integer = h.integer;
    o.start = h.integer ? fmax(1.0, h.lo) : fmin(fmax(1.0, h.lo), h.hi);
    o.accuracy = q->params.accuracy;
    o.refine = !(q->params.discretization > 0);
  }
  o.direction = h.direction;
  struct cal k;
  memset(&k, 0, sizeof k);
  k.ev = ev;
  k.q = q;
  k.delta = delta;
  pld_event_calibration c;
  memset(&c, 0, sizeof c);
  c.size = sizeof c;
  int st;
  if (q->backend == PLD_EVENT_BACKEND_RDP) {
    k.seen = malloc(PLD_SEARCH_MAX_EVALS * sizeof *k.seen);
    if (k.seen == NULL)
      return PLD_ENOMEM;
    o.refine = 0;
    o.fail_search = 0; /* RDP has no lower ends */
    st = pld_calibrate_search(cal_eval_rdp, &k, epsilon, &o, progress,
                              progress_ctx, &c.search);
    for (size_t i = 0; st == PLD_SUCCESS && i < k.n_seen; i++) {
      if (c.search.found && k.seen[i].x == c.search.param) {
        c.rdp = k.seen[i].r;
        c.have_rdp |= 1;
      }
      if (!isnan(c.search.param_next) && k.seen[i].x == c.search.param_next) {
        c.rdp_next = k.seen[i].r;
        c.have_rdp |= 2;
      }
    }
    free(k.seen);
    c.bridged = k.bridged;
  } else if (closed) {
    st = pld_calibrate_search(cal_eval_closed, &k, epsilon, &o, progress,
                              progress_ctx, &c.search);
    c.closed_form = 1;
    if (st == PLD_SUCCESS && c.search.found) {
      /* the closed forms' flags at the answer (thm41: refuted, below cs) */
      pld_event *f = NULL;
      st = pld_event_fill(ev, c.search.param, &f);
      if (st == PLD_SUCCESS) {
        (void)ev_tree_closed(f, &cl);
        st = ev_closed_query(&cl, 1, epsilon, &c.closed);
      }
      pld_event_free(f);
    }
  } else {
    st = pld_calibrate_accountant(cal_build, &k, epsilon, delta, &o, progress,
                                  progress_ctx, &c.search);
  }
  if (st != PLD_SUCCESS)
    return st;
  *out = c;
  return PLD_SUCCESS;
}
