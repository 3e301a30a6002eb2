/* pldkit CLI: the calibrate subcommand's search over the library
 * (accountant, RDP curve or closed form). */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#endif

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h> /* isatty */

#include <pldkit/pldkit.h>

#include <pldkit/event.h>
#include "dpevent_json.h"
#include "merge.h"
#include "mspafl.h"
#include "output.h"
#include "cli.h"

/* ---- calibrate ---------------------------------------------------------- */

/* The library searches (pld_calibrate_accountant, pld_calibrate_search);
 * here only the callbacks that put a value in place of '?' and evaluate the
 * EVENTs, and the printing. */


/* The RDP answer at each value tried (for the order at the answer). */
struct cal_seen {
  double x;
  pld_rdp_result r;
};

struct cal_ctx {
  const struct cli *c;
  int which;             /* CAL_PLD or CAL_RDP */
  char err[ERRLEN + 96]; /* the callback's failure, if any */
  double last;           /* the value last built */
  int tty;               /* progress on stderr */
  int width;             /* width of the progress line on screen */
  pld_event_owned **owned; /* kept alive until the calibration ends */
  struct cal_seen *seen; /* CAL_RDP */
  size_t n_seen;
  unsigned bridged;
};

/* The text that replaces '?' for value x: integers as such, reals exactly. */
void cli_cal_text(const struct cli *c, double x, char *buf, size_t n)
{
  if (c->parse.mark_integer)
    snprintf(buf, n, "%.0f", x);
  else
    pld_fmt_exact(buf, n, x);
}

static int cal_build(double x, void *vk, pld_accountant **out)
{
  struct cal_ctx *k = vk;
  char val[40], msg[ERRLEN];
  k->last = x;
  cli_cal_text(k->c, x, val, sizeof val);
  int rc = cli_build_accountant(k->c, val, out, k->owned, msg, sizeof msg);
  if (rc != PLD_EVENT_OK) {
    snprintf(k->err, sizeof k->err, "at %s = %s: %s", k->c->param, val, msg);
    return PLD_ECALLBACK;
  }
  return PLD_SUCCESS;
}

/* RDP: the certified upper end only, so the bracket is [0, value] and no
 * value is ever certified to fail. */
static int cal_eval_rdp(double x, const pld_result *prev, void *vk,
                        pld_result *out)
{
  struct cal_ctx *k = vk;
  char val[40], msg[ERRLEN];
  pld_rdp_curve *cv = NULL;
  pld_rdp_result r;
  unsigned bridged = 0;
  if (prev)
    return PLD_EUNSUPPORTED;
  k->last = x;
  cli_cal_text(k->c, x, val, sizeof val);
  int rc = cli_build_rdp(k->c, val, &cv, &bridged, msg, sizeof msg);
  if (rc != PLD_EVENT_OK) {
    snprintf(k->err, sizeof k->err, "at %s = %s: %s", k->c->param, val, msg);
    return PLD_ECALLBACK;
  }
  int st = pld_rdp_epsilon(cv, k->c->delta, k->c->rdp_method, &r);
  pld_rdp_curve_free(cv);
  if (st != PLD_SUCCESS)
    return st;
  k->bridged = bridged;
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

/* The closed-form event with value x in place of '?'. */
static int cal_closed_at(const struct cli *c, double x, pld_event_closed *out,
                         char *err, size_t errlen)
{
  pld_event_ctx pc;
  char val[40];
  memset(&pc, 0, sizeof pc);
  pc.params = &c->params;
  cli_cal_text(c, x, val, sizeof val);
  pc.subst = val;
  int rc = PLD_EVENT_OK;
  for (size_t i = 0; i < c->n_events && rc == PLD_EVENT_OK; i++)
    rc = pld_event_parse(c->events[i], &pc, NULL, err, errlen);
  pld_event_ctx_release(&pc);
  if (rc == PLD_EVENT_OK)
    *out = pc.closed;
  return rc;
}

/* A closed-form single round (random-participation, analysis thm41 or
 * ols): its epsilon bracket at delta (pld_participation_epsilon). */
static int cal_eval_closed(double x, const pld_result *prev, void *vk,
                           pld_result *out)
{
  struct cal_ctx *k = vk;
  char msg[ERRLEN], val[40];
  pld_event_closed cl;
  if (prev)
    return PLD_EUNSUPPORTED;
  k->last = x;
  if (cal_closed_at(k->c, x, &cl, msg, sizeof msg) != PLD_EVENT_OK) {
    cli_cal_text(k->c, x, val, sizeof val);
    snprintf(k->err, sizeof k->err, "at %s = %s: %s", k->c->param, val, msg);
    return PLD_ECALLBACK;
  }
  memset(out, 0, sizeof *out);
  int st = pld_event_closed_bracket(&cl, k->c->delta, &out->bound);
  out->closed_form = 1;
  out->met_accuracy = 1;
  return st;
}

static void cal_progress(void *vk, unsigned n, double x, double eps_upper)
{
  struct cal_ctx *k = vk;
  char val[40], eps[40], line[160];
  if (!k->tty)
    return;
  pld_fmt(val, sizeof val, x, 10);
  pld_fmt(eps, sizeof eps, eps_upper, 6);
  int w = snprintf(line, sizeof line, "calibrate%s: evaluation %u: %s = %s, "
                   "epsilon <= %s", k->which == CAL_RDP ? " (rdp)" : "", n,
                   k->c->param, val, eps);
  if (w < 0)
    return;
  fprintf(stderr, "\r%-*s", k->width > w ? k->width : w, line);
  if (w > k->width)
    k->width = w;
  fflush(stderr);
}

static void cal_progress_clear(struct cal_ctx *k)
{
  if (k->tty && k->width > 0) {
    fprintf(stderr, "\r%*s\r", k->width, "");
    fflush(stderr);
    k->width = 0;
  }
}

/* The search's end towards more privacy (private = 1) or less, for
 * messages: "up to 1e+12", "down to 1", "in --range [2, 20]". */
void cli_cal_limit_text(const struct cli *c, int private, char *buf,
                        size_t n)
{
  char lo[40], hi[40];
  cli_cal_text(c, c->cal_dom_lo, lo, sizeof lo);
  cli_cal_text(c, c->cal_dom_hi, hi, sizeof hi);
  int up = (c->parse.mark_direction > 0) == (private != 0);
  if (c->cal_hi > 0)
    snprintf(buf, n, "in --range [%s, %s]", lo, hi);
  else
    snprintf(buf, n, "%s %s", up ? "up to" : "down to", up ? hi : lo);
}

/* What the upper end is, for the text answers: a proven bound unless an
 * event is not one (random-participation analysis=cs, issue 16). */
const char *cli_upper_word(const struct cli *c)
{
  return c->parse.not_bound ? "not a bound: a lower limit of the worst case "
                              "(random-participation analysis=cs)"
                            : "upper is the certified bound";
}

/* The "certified" key of a JSON answer: "upper" for a proven upper end;
 * false with the "kind" of value when an event is not a bound. */
void cli_json_certified(pld_cli_json *j, const struct cli *c)
{
  if (c->parse.not_bound) {
    pld_cli_json_bool(j, "certified", 0);
    pld_cli_json_string(j, "kind", c->parse.not_bound);
  } else {
    pld_cli_json_string(j, "certified", "upper");
  }
}

static const char *backend_word(const struct cli *c, int which)
{
  if (which == CAL_RDP)
    return "the RDP bound";
  if (c->parse.closed.present)
    return c->parse.closed.analysis == 2 ? "Theorem 4.1 as stated"
                                         : "Theorem 5.1";
  if (c->parse.not_bound)
    return "the cs value (a lower limit of the worst case, not a bound)";
  return "the certified bound";
}

/* Report a search that could not cli_run (after the progress line is
 * cleared). */
static int cal_fail(const struct cal_ctx *k, int st)
{
  char v[40];
  const struct cli *c = k->c;
  if (st == PLD_ECALLBACK && k->err[0]) {
    pld_cli_error("calibrate: %s", k->err);
    return PLD_EVENT_EFAIL;
  }
  cli_cal_text(c, k->last, v, sizeof v);
  pld_cli_error("%s (while calibrating %s%s, at %s = %s)%s", pld_status_text(st),
                c->param, k->which == CAL_RDP ? " with RDP" : "", c->param,
                v, cli_hint(st));
  return pld_event_rc_of_status(st);
}

/* "no value ... meets" for a search that found none, into buf. */
void cli_cal_none_text(const struct cli *c, const struct answer *a,
                       int which, char *buf, size_t n)
{
  const pld_search_result *r = &a->cal[which];
  char e[40], d[40], lim[80], v[40], lo[40], hi[40];
  pld_fmt_exact(e, sizeof e, c->epsilon);
  pld_fmt_exact(d, sizeof d, c->delta);
  cli_cal_limit_text(c, 1, lim, sizeof lim);
  cli_cal_text(c, r->param_next, v, sizeof v);
  pld_fmt_bracket(lo, hi, sizeof lo, r->at_next.bound.lower,
                      r->at_next.bound.upper);
  if (which == CAL_RDP)
    snprintf(buf, n, "no value of %s %s meets epsilon <= %s at delta = %s "
             "by the RDP bound (at %s = %s: epsilon <= %s)", c->param, lim,
             e, d, c->param, v, hi);
  else
    snprintf(buf, n, "no value of %s %s is certified to meet epsilon <= %s "
             "at delta = %s by %s (at %s = %s: epsilon in [%s, %s], %s%s%s); "
             "%s", c->param, lim, e, d, backend_word(c, which), c->param, v,
             lo, hi,
             r->verdict_next == PLD_VERDICT_FAILS ? "which certifiably fails"
                                                  : "undecided",
             r->next_status ? ": " : "",
             r->next_status ? pld_strerror(r->next_status) : "",
             r->verdict_next == PLD_VERDICT_FAILS
                 ? "the target may be out of reach for these EVENTs"
                 : "that is no failure: the accountant could not decide it "
                   "(a larger --max-grid, another --range, or --backend "
                   "both may help)");
}

/* One search: the PLD (accountant or closed form) or the RDP one. */
static int cal_search(const struct cli *c, struct answer *a, int which,
                      pld_event_owned **owned)
{
  struct cal_ctx k;
  pld_search_opts o;
  int st;
  double t0 = cli_now();

  memset(&k, 0, sizeof k);
  k.c = c;
  k.which = which;
  k.owned = owned;
  k.tty = isatty(2);
  pld_search_opts_default(&o);
  o.lo = c->cal_dom_lo;
  o.hi = c->cal_dom_hi;
  o.start = c->cal_start; /* pld_search_opts_domain, in cal_domain */
  o.integer = c->parse.mark_integer;
  o.direction = c->parse.mark_direction;
  o.rel_tol = c->tolerance;
  o.accuracy = c->params.accuracy;
  /* A grid the user fixed is the grid to use. */
  o.refine = !(c->params.discretization > 0);

  if (which == CAL_RDP) {
    k.seen = malloc(PLD_SEARCH_MAX_EVALS * sizeof *k.seen);
    if (k.seen == NULL) {
      pld_cli_error("%s (while calibrating)", pld_strerror(PLD_ENOMEM));
      return PLD_EVENT_EFAIL;
    }
    o.refine = 0;
    o.fail_search = 0; /* RDP has no lower ends */
    st = pld_calibrate_search(cal_eval_rdp, &k, c->epsilon, &o, cal_progress,
                              &k, &a->cal[which]);
  } else if (c->parse.closed.present) {
    st = pld_calibrate_search(cal_eval_closed, &k, c->epsilon, &o,
                              cal_progress, &k, &a->cal[which]);
  } else {
    st = pld_calibrate_accountant(cal_build, &k, c->epsilon, c->delta, &o,
                                  cal_progress, &k, &a->cal[which]);
  }
  cal_progress_clear(&k);
  a->cal_seconds[which] = cli_now() - t0;
  int rc = PLD_EVENT_OK;
  if (st != PLD_SUCCESS) {
    rc = cal_fail(&k, st);
  } else if (which == CAL_RDP) {
    const pld_search_result *r = &a->cal[which];
    a->bridged = k.bridged;
    for (size_t i = 0; i < k.n_seen; i++) {
      if (r->found && k.seen[i].x == r->param) {
        a->cal_rdp[0] = k.seen[i].r;
        a->cal_rdp_have[0] = 1;
      }
      if (!isnan(r->param_next) && k.seen[i].x == r->param_next) {
        a->cal_rdp[1] = k.seen[i].r;
        a->cal_rdp_have[1] = 1;
      }
    }
  }
  free(k.seen);
  if (rc == PLD_EVENT_OK)
    a->cal_ran[which] = 1;
  return rc;
}

int cli_compute_calibrate(const struct cli *c, struct answer *a)
{
  pld_event_owned *owned = NULL;
  char err[ERRLEN];
  int rc = PLD_EVENT_OK;
  if (c->backend & BACKEND_PLD)
    rc = cal_search(c, a, CAL_PLD, &owned);
  pld_event_owned_free(owned);
  if (rc == PLD_EVENT_OK && (c->backend & BACKEND_RDP))
    rc = cal_search(c, a, CAL_RDP, NULL);
  if (rc != PLD_EVENT_OK)
    return rc;
  const pld_search_result *p = &a->cal[CAL_PLD], *r = &a->cal[CAL_RDP];
  a->res = p->at_param;
  /* Nothing found by any backend asked: an error, as before. */
  if (!((a->cal_ran[CAL_PLD] && p->found) ||
        (a->cal_ran[CAL_RDP] && r->found))) {
    cli_cal_none_text(c, a, a->cal_ran[CAL_PLD] ? CAL_PLD : CAL_RDP, err,
                  sizeof err);
    pld_cli_error("calibrate: %s", err);
    return PLD_EVENT_EFAIL;
  }
  /* The closed forms' flags at the answer (thm41: refuted, below cs). */
  if (a->cal_ran[CAL_PLD] && c->parse.closed.present && p->found) {
    pld_event_closed cl;
    if (cal_closed_at(c, p->param, &cl, err, sizeof err) != PLD_EVENT_OK ||
        pld_event_closed_query(&cl, 1, c->epsilon, &a->cal_closed, err,
                             sizeof err) != PLD_EVENT_OK) {
      pld_cli_error("%s", err);
      return PLD_EVENT_EFAIL;
    }
  }
  return PLD_EVENT_OK;
}
