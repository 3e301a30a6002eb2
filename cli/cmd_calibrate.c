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

/* The library calibrates (pld_event_calibrate); here only the progress
 * line and the printing. */

struct cal_ctx {
  const struct cli *c;
  int which;             /* CAL_PLD or CAL_RDP */
  int tty;               /* progress on stderr */
  int width;             /* width of the progress line on screen */
};

/* The text of value x of the hole: integers as such, reals exactly. */
void cli_cal_text(const struct cli *c, double x, char *buf, size_t n)
{
  if (c->hole.integer)
    snprintf(buf, n, "%.0f", x);
  else
    cli_fmt_exact(buf, n, x);
}

static void cal_progress(void *vk, unsigned n, double x, double eps_upper)
{
  struct cal_ctx *k = vk;
  char val[40], eps[40], line[160];
  if (!k->tty)
    return;
  cli_fmt(val, sizeof val, x, 10);
  cli_fmt(eps, sizeof eps, eps_upper, 6);
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
  int up = (c->hole.direction > 0) == (private != 0);
  if (c->cal_hi > 0)
    snprintf(buf, n, "in --range [%s, %s]", lo, hi);
  else
    snprintf(buf, n, "%s %s", up ? "up to" : "down to", up ? hi : lo);
}

/* What the upper end is, for the text answers: a proven bound unless an
 * event is not one (random-participation analysis=cs, docs/participation.md). */
const char *cli_upper_word(const struct cli *c)
{
  return c->sum.not_bound ? "not a bound: a lower limit of the worst case "
                              "(random-participation analysis=cs)"
                            : "upper is the certified bound";
}

/* The "certified" key of a JSON answer: "upper" for a proven upper end;
 * false with the "kind" of value when an event is not a bound. */
void cli_json_certified(pld_cli_json *j, const struct cli *c)
{
  if (c->sum.not_bound) {
    pld_cli_json_bool(j, "certified", 0);
    pld_cli_json_string(j, "kind", c->sum.not_bound);
  } else {
    pld_cli_json_string(j, "certified", "upper");
  }
}

static const char *backend_word(const struct cli *c, int which)
{
  if (which == CAL_RDP)
    return "the RDP bound";
  if (c->sum.closed)
    return c->closed_thm41 ? "Theorem 4.1 as stated" : "Theorem 5.1";
  if (c->sum.not_bound)
    return "the cs value (a lower limit of the worst case, not a bound)";
  return "the certified bound";
}

/* Report a search that could not run (after the progress line is
 * cleared). */
static int cal_fail(const struct cal_ctx *k, int st)
{
  const struct cli *c = k->c;
  if (st == PLD_ECALLBACK && pld_error_detail()[0]) {
    pld_cli_error("calibrate: %s", pld_error_detail());
    return CLI_EFAIL;
  }
  pld_cli_error("%s (while calibrating %s%s)%s", pld_status_text(st),
                c->param, k->which == CAL_RDP ? " with RDP" : "",
                cli_hint(st));
  return cli_rc_of_status(st);
}

/* "no value ... meets" for a search that found none, into buf. */
void cli_cal_none_text(const struct cli *c, const struct answer *a,
                       int which, char *buf, size_t n)
{
  const pld_search_result *r = &a->cal[which];
  char e[40], d[40], lim[80], v[40], lo[40], hi[40];
  cli_fmt_exact(e, sizeof e, c->epsilon);
  cli_fmt_exact(d, sizeof d, c->delta);
  cli_cal_limit_text(c, 1, lim, sizeof lim);
  cli_cal_text(c, r->param_next, v, sizeof v);
  cli_fmt_bracket(lo, hi, sizeof lo, r->at_next.bound.lower,
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
static int cal_search(const struct cli *c, struct answer *a, int which)
{
  struct cal_ctx k;
  pld_search_opts o;
  double t0 = cli_now();

  memset(&k, 0, sizeof k);
  k.c = c;
  k.which = which;
  k.tty = isatty(2);
  pld_search_opts_default(&o);
  o.lo = c->cal_dom_lo;
  o.hi = c->cal_dom_hi;
  o.start = c->cal_start; /* pld_search_opts_domain, in cal_domain */
  o.integer = c->hole.integer;
  o.rel_tol = c->tolerance;
  o.accuracy = c->params.accuracy;
  /* A grid the user fixed is the grid to use. */
  o.refine = !(c->params.discretization > 0);

  pld_event_query q;
  cli_query(c, &q);
  q.backend = which == CAL_RDP ? PLD_EVENT_BACKEND_RDP : PLD_EVENT_BACKEND_PLD;
  pld_event_calibration *r = &a->calr[which];
  memset(r, 0, sizeof *r);
  r->size = sizeof *r;
  int st = pld_event_calibrate(c->ev, &q, c->epsilon, c->delta, &o,
                               cal_progress, &k, r);
  cal_progress_clear(&k);
  a->cal_seconds[which] = cli_now() - t0;
  if (st != PLD_SUCCESS)
    return cal_fail(&k, st);
  a->cal[which] = r->search;
  if (which == CAL_RDP) {
    a->bridged = r->bridged;
    a->cal_rdp[0] = r->rdp;
    a->cal_rdp_have[0] = (r->have_rdp & 1) != 0;
    a->cal_rdp[1] = r->rdp_next;
    a->cal_rdp_have[1] = (r->have_rdp & 2) != 0;
  } else if (r->closed_form) {
    a->cal_closed = r->closed;
  }
  a->cal_ran[which] = 1;
  return CLI_OK;
}

int cli_compute_calibrate(const struct cli *c, struct answer *a)
{
  char err[ERRLEN];
  int rc = CLI_OK;
  if (c->backend & BACKEND_PLD)
    rc = cal_search(c, a, CAL_PLD);
  if (rc == CLI_OK && (c->backend & BACKEND_RDP))
    rc = cal_search(c, a, CAL_RDP);
  if (rc != CLI_OK)
    return rc;
  const pld_search_result *p = &a->cal[CAL_PLD], *r = &a->cal[CAL_RDP];
  a->res = p->at_param;
  /* Nothing found by any backend asked: an error, as before. */
  if (!((a->cal_ran[CAL_PLD] && p->found) ||
        (a->cal_ran[CAL_RDP] && r->found))) {
    cli_cal_none_text(c, a, a->cal_ran[CAL_PLD] ? CAL_PLD : CAL_RDP, err,
                      sizeof err);
    pld_cli_error("calibrate: %s", err);
    return CLI_EFAIL;
  }
  return CLI_OK;
}
