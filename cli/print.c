/* pldkit CLI: printing an answer, as text or JSON, with its warnings. */
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

/* A closed-form answer has no grid; saying so tells the user that the
 * bracket is exact rather than a discretization artefact. */
/* Which bound gave an end, in words (pld_bound_kind). */
const char *cli_kind_words(int k)
{
  switch (k) {
  case PLD_BOUND_GRID:
    return "the PLD grid";
  case PLD_BOUND_CLOSED_FORM:
    return "the exact Gaussian composition";
  case PLD_BOUND_RDP:
    return "RDP";
  case PLD_BOUND_BASIC:
    return "basic composition";
  case PLD_BOUND_ADVANCED:
    return "advanced composition";
  case PLD_BOUND_SINGLE_RUN:
    return "one run of an event";
  case PLD_BOUND_MOMENTS:
    return "the loss's mean and variance";
  case PLD_BOUND_INVERSION:
    return "the Laplace inversion of the composed MGF";
  default:
    return "none";
  }
}

/* The answer's source: the grid, and the bound that gave each end where
 * that is not the grid (pld_result.bound_kind, .lower_kind). */
static void how_text(const pld_result *r, char *buf, size_t n)
{
  if (r->closed_form) {
    snprintf(buf, n, "closed form (exact Gaussian composition)");
    return;
  }
  int w = r->refinements ? snprintf(buf, n, "discretization %.6g, grid %zu",
                                    r->discretization, r->grid_size)
                         : snprintf(buf, n, "no grid composed");
  if (w < 0 || (size_t)w >= n)
    return;
  int up = r->bound_kind != PLD_BOUND_GRID && r->bound_kind != PLD_BOUND_NONE;
  int lo = r->lower_kind != PLD_BOUND_GRID && r->lower_kind != PLD_BOUND_NONE;
  if (up || lo)
    snprintf(buf + w, n - (size_t)w, "; %s%s%s%s%s", up ? "upper from " : "",
             up ? cli_kind_words(r->bound_kind) : "", up && lo ? ", " : "",
             lo ? "lower from " : "", lo ? cli_kind_words(r->lower_kind) : "");
}

static void json_grid_fields(pld_cli_json *j, const struct cli *c,
                             const struct answer *a)
{
  const pld_result *r = &a->res;
  pld_cli_json_number(j, "discretization", r->discretization);
  pld_cli_json_uint(j, "grid_size", r->grid_size);
  pld_cli_json_uint(j, "fft_size", r->fft_size);
  pld_cli_json_uint(j, "refinements", r->refinements);
  pld_cli_json_bool(j, "closed_form", r->closed_form);
  pld_cli_json_string(j, "bound_kind", pld_bound_kind_name(r->bound_kind));
  pld_cli_json_string(j, "lower_kind", pld_bound_kind_name(r->lower_kind));
  pld_cli_json_bool(j, "met_accuracy", r->met_accuracy);
  /* why the bracket is wider than asked (Python's Result.width_limit):
   * "mechanism" where an event's own bounds are that far apart, which no
   * finer grid narrows; "grid" otherwise (and whenever it was met) */
  pld_cli_json_string(j, "width_limit", r->width_limit == PLD_WIDTH_MECHANISM
                                            ? "mechanism"
                                            : "grid");
  pld_cli_json_number(j, "accuracy", c->params.accuracy);
  pld_cli_json_number(j, "tail_mass", c->params.tail_mass);
  pld_cli_json_uint(j, "max_grid", c->params.max_grid);
}

/* The PLD answer of epsilon and delta: its bracket and how it was found. */
static void json_pld_answer(pld_cli_json *j, const struct cli *c,
                            const struct answer *a)
{
  const pld_result *r = &a->res;
  if (c->cmd == CMD_DELTA) {
    pld_cli_json_number(j, "delta_upper", r->bound.upper);
    pld_cli_json_number(j, "delta_lower", r->bound.lower);
  } else {
    pld_cli_json_number(j, "epsilon_upper", r->bound.upper);
    pld_cli_json_number(j, "epsilon_lower", r->bound.lower);
  }
  if (a->closed) {
    pld_cli_json_bool(j, "certified", a->ca.certified);
    pld_cli_json_string(j, "kind", c->closed_thm41
                                       ? "one-instance value"
                                       : "upper bound");
    pld_cli_json_string(j, "analysis",
                        c->sum.closed_analysis);
    pld_cli_json_bool(j, "single_round", 1);
    if (c->closed_thm41) { /* thm41 */
      pld_cli_json_bool(j, "refuted", a->ca.refuted);
      pld_cli_json_bool(j, "below_cs", a->ca.below_cs);
      pld_cli_json_number(j, "cs_delta", a->ca.cs_delta);
      pld_cli_json_number(j, "lower_limit", a->ca.lower_limit);
    }
    pld_cli_json_uint(j, "evaluations", a->ca.evaluations);
  } else {
    cli_json_certified(j, c);
  }
  json_grid_fields(j, c, a);
}

static const char *method_name(int m)
{
  return m >= 0 && m < 3 ? cli_conversion_names[m] : "?";
}

/* The RDP answer of epsilon and delta.  RDP gives an upper bound only, so
 * the lower key is null. */
static void json_rdp_answer(pld_cli_json *j, const struct cli *c,
                            const struct answer *a)
{
  const pld_rdp_result *r = &a->rdp;
  int d = c->cmd == CMD_DELTA;
  pld_cli_json_number(j, d ? "rdp_delta" : "rdp_epsilon", r->value);
  pld_cli_json_number(j, d ? "delta_upper" : "epsilon_upper", r->value);
  pld_cli_json_null(j, d ? "delta_lower" : "epsilon_lower");
  cli_json_certified(j, c);
  if (isnan(r->order))
    pld_cli_json_null(j, "rdp_order");
  else
    pld_cli_json_number(j, "rdp_order", r->order);
  pld_cli_json_string(j, "rdp_conversion", method_name(c->rdp_method));
  pld_cli_json_string(j, "rdp_conversion_used", method_name(r->method));
  pld_cli_json_bool(j, "rdp_at_edge", r->at_edge);
  pld_cli_json_uint(j, "rdp_orders", a->rdp_n);
  pld_cli_json_number(j, "rdp_order_min", a->rdp_first);
  pld_cli_json_number(j, "rdp_order_max", a->rdp_last);
  pld_cli_json_uint(j, "rdp_bridged", a->bridged);
}

static const char *verdict_name(int v)
{
  return v == PLD_VERDICT_MEETS   ? "meets"
         : v == PLD_VERDICT_FAILS ? "fails"
                                  : "undecided";
}

/* Which calibration is tighter (the less private value that meets): 0 pld,
 * 1 rdp, 2 equal, -1 neither found one. */
static int cal_tighter(const struct cli *c, const struct answer *a)
{
  const pld_search_result *p = &a->cal[CAL_PLD], *r = &a->cal[CAL_RDP];
  if (!p->found && !r->found)
    return -1;
  if (!r->found)
    return 0;
  if (!p->found)
    return 1;
  if (p->param == r->param)
    return 2;
  return (c->hole.direction > 0) == (p->param < r->param) ? 0 : 1;
}

/* One calibration's answer: the value, its bracket and its neighbours. */
static void json_cal(pld_cli_json *j, const struct cli *c,
                     const struct answer *a, int which)
{
  const pld_search_result *r = &a->cal[which];
  int rdp = which == CAL_RDP, closed = !rdp && c->sum.closed;
  pld_cli_json_string(j, "threshold", !r->found  ? "not_found"
                                      : r->located ? "located"
                                                   : "undecided");
  if (r->found) {
    pld_cli_json_number(j, "value", r->param);
    pld_cli_json_string(j, "verdict", "meets");
    pld_cli_json_number(j, "epsilon_upper", r->at_param.bound.upper);
    if (rdp)
      pld_cli_json_null(j, "epsilon_lower");
    else
      pld_cli_json_number(j, "epsilon_lower", r->at_param.bound.lower);
  } else {
    pld_cli_json_null(j, "value");
    pld_cli_json_null(j, "verdict");
    pld_cli_json_null(j, "epsilon_upper");
    pld_cli_json_null(j, "epsilon_lower");
  }
  pld_cli_json_bool(j, "located", r->located);
  pld_cli_json_bool(j, "at_limit", r->at_limit);
  if (isnan(r->param_next)) {
    pld_cli_json_null(j, "value_next");
    pld_cli_json_null(j, "verdict_next");
  } else {
    pld_cli_json_number(j, "value_next", r->param_next);
    pld_cli_json_string(j, "verdict_next", verdict_name(r->verdict_next));
    pld_cli_json_number(j, "epsilon_upper_next", r->at_next.bound.upper);
    if (rdp)
      pld_cli_json_null(j, "epsilon_lower_next");
    else
      pld_cli_json_number(j, "epsilon_lower_next", r->at_next.bound.lower);
    pld_cli_json_bool(j, "next_refined", r->next_refined);
    if (r->next_status)
      pld_cli_json_string(j, "next_error", pld_strerror(r->next_status));
  }
  /* value_fail: certified to fail (its lower end exceeds the target). */
  if (isnan(r->param_fail)) {
    pld_cli_json_null(j, "value_fail");
  } else {
    pld_cli_json_number(j, "value_fail", r->param_fail);
    pld_cli_json_number(j, "epsilon_lower_fail", r->at_fail.bound.lower);
    pld_cli_json_number(j, "epsilon_upper_fail", r->at_fail.bound.upper);
  }
  pld_cli_json_bool(j, "nonmonotone", r->nonmonotone);
  pld_cli_json_uint(j, "evaluations", r->evaluations);
  pld_cli_json_uint(j, "refined", r->refinements);
  if (rdp) {
    cli_json_certified(j, c);
    if (a->cal_rdp_have[0]) {
      const pld_rdp_result *x = &a->cal_rdp[0];
      if (isnan(x->order))
        pld_cli_json_null(j, "rdp_order");
      else
        pld_cli_json_number(j, "rdp_order", x->order);
      pld_cli_json_string(j, "rdp_conversion", method_name(c->rdp_method));
      pld_cli_json_string(j, "rdp_conversion_used", method_name(x->method));
      pld_cli_json_bool(j, "rdp_at_edge", x->at_edge);
    }
    pld_cli_json_uint(j, "rdp_bridged", a->bridged);
  } else if (closed) {
    int thm41 = c->closed_thm41;
    pld_cli_json_string(j, "analysis", c->sum.closed_analysis);
    pld_cli_json_bool(j, "single_round", 1);
    /* Theorem 4.1 is no bound: its calibration is never certified. */
    pld_cli_json_bool(j, "certified", !thm41);
    pld_cli_json_string(j, "kind", thm41 ? "one-instance value"
                                         : "upper bound");
    if (thm41 && r->found) {
      pld_cli_json_bool(j, "refuted", a->cal_closed.refuted);
      pld_cli_json_bool(j, "below_cs", a->cal_closed.below_cs);
      pld_cli_json_number(j, "cs_delta", a->cal_closed.cs_delta);
      pld_cli_json_number(j, "lower_limit", a->cal_closed.lower_limit);
    }
  } else {
    cli_json_certified(j, c);
    struct answer tmp = *a;
    tmp.res = r->at_param;
    json_grid_fields(j, c, &tmp);
  }
  if (c->backend == BACKEND_BOTH)
    pld_cli_json_number(j, "seconds", a->cal_seconds[which]);
}

void cli_print_json(const struct cli *c, const struct answer *a)
{
  pld_cli_json j, sub;
  const pld_result *r = &a->res;
  pld_cli_json_open(&j, stdout);
  pld_cli_json_string(&j, "query",
                      c->cmd == CMD_DEMO ? "epsilon" : cli_cmd_names[c->cmd]);
  switch (c->cmd) {
  case CMD_DELTA:
  case CMD_EPSILON:
  case CMD_DEMO:
    pld_cli_json_string(&j, "backend", cli_backend_names[c->backend]);
    if (c->cmd == CMD_DELTA)
      pld_cli_json_number(&j, "epsilon", c->epsilon);
    else
      pld_cli_json_number(&j, "delta", c->delta);
    if (c->backend == BACKEND_BOTH) {
      pld_cli_json_object(&j, "pld", &sub);
      json_pld_answer(&sub, c, a);
      pld_cli_json_number(&sub, "seconds", a->pld_seconds);
      pld_cli_json_close(&sub);
      pld_cli_json_object(&j, "rdp", &sub);
      json_rdp_answer(&sub, c, a);
      pld_cli_json_number(&sub, "seconds", a->rdp_seconds);
      pld_cli_json_close(&sub);
    } else if (c->backend == BACKEND_RDP) {
      json_rdp_answer(&j, c, a);
    } else {
      json_pld_answer(&j, c, a);
    }
    break;
  case CMD_CURVE:
    pld_cli_json_numbers(&j, "epsilon", c->range_n, a->eps);
    pld_cli_json_bounds(&j, "delta_lower", c->range_n, a->curve, 0);
    pld_cli_json_bounds(&j, "delta_upper", c->range_n, a->curve, 1);
    cli_json_certified(&j, c);
    json_grid_fields(&j, c, a);
    break;
  case CMD_RDP_CURVE:
    pld_cli_json_numbers(&j, "order", a->rdp_n, a->rdp_orders);
    pld_cli_json_numbers(&j, "epsilon", a->rdp_n, a->rdp_values);
    cli_json_certified(&j, c);
    pld_cli_json_uint(&j, "rdp_bridged", a->bridged);
    break;
  case CMD_SAVE:
    pld_cli_json_string(&j, "file", c->out);
    pld_cli_json_number(&j, "delta", c->delta);
    pld_cli_json_number(&j, "epsilon_upper", r->bound.upper);
    pld_cli_json_number(&j, "epsilon_lower", r->bound.lower);
    cli_json_certified(&j, c);
    json_grid_fields(&j, c, a);
    break;
  case CMD_CALIBRATE:
  case N_CMDS:
    pld_cli_json_string(&j, "backend", cli_backend_names[c->backend]);
    pld_cli_json_string(&j, "param", c->param);
    pld_cli_json_string(&j, "direction", c->hole.direction > 0
                                             ? "larger_is_more_private"
                                             : "smaller_is_more_private");
    pld_cli_json_bool(&j, "integer", c->hole.integer);
    pld_cli_json_number(&j, "delta", c->delta);
    pld_cli_json_number(&j, "target_epsilon", c->epsilon);
    pld_cli_json_number(&j, "tolerance", c->tolerance);
    pld_cli_json_number(&j, "search_lo", c->cal_dom_lo);
    pld_cli_json_number(&j, "search_hi", c->cal_dom_hi);
    if (c->cal_hi > 0) {
      pld_cli_json_number(&j, "range_lo", c->cal_lo);
      pld_cli_json_number(&j, "range_hi", c->cal_hi);
    }
    if (c->backend == BACKEND_BOTH) {
      pld_cli_json_object(&j, "pld", &sub);
      json_cal(&sub, c, a, CAL_PLD);
      pld_cli_json_close(&sub);
      pld_cli_json_object(&j, "rdp", &sub);
      json_cal(&sub, c, a, CAL_RDP);
      pld_cli_json_close(&sub);
      int t = cal_tighter(c, a);
      if (t < 0)
        pld_cli_json_null(&j, "tighter");
      else
        pld_cli_json_string(&j, "tighter", t == 2   ? "equal"
                                           : t == 1 ? "rdp"
                                                    : "pld");
    } else {
      json_cal(&j, c, a, c->backend == BACKEND_RDP ? CAL_RDP : CAL_PLD);
    }
    break;
  }
  pld_cli_json_warnings(&j, &a->warn);
  pld_cli_json_number(&j, "seconds", a->seconds);
  pld_cli_json_strings(&j, "events", c->n_events, c->events);
  if (c->cmd == CMD_DEMO)
    pld_cli_json_bool(&j, "demo", 1);
  pld_cli_json_string(&j, "version", PLD_VERSION_STRING);
  pld_cli_json_close(&j);
}

static void print_closed_text(const struct cli *c, const struct answer *a)
{
  char lo[40], hi[40], in[40], cs[40], ll[40];
  const pld_event_closed_answer *ca = &a->ca;
  const char *an = c->sum.closed_analysis;
  int thm41 = c->closed_thm41;
  cli_fmt_bracket(lo, hi, sizeof lo, ca->bound.lower, ca->bound.upper);
  if (c->cmd == CMD_DELTA) {
    cli_fmt_exact(in, sizeof in, c->epsilon);
    printf("delta in [%s, %s] at epsilon = %s", lo, hi, in);
  } else {
    cli_fmt_exact(in, sizeof in, c->delta);
    printf("epsilon in [%s, %s] at delta = %s", lo, hi, in);
  }
  printf(" (analysis=%s, %s as stated, closed form, one round; ", an,
         thm41 ? "Theorem 4.1" : "Theorem 5.1");
  if (ca->certified)
    printf("certified: yes, upper is a certified bound");
  else if (thm41 && !ca->refuted)
    printf("certified: no, a one-instance value (the exact delta of one "
           "dataset, not a worst case); no dataset checked has a larger "
           "delta, which is no proof");
  else if (ca->below_cs)
    printf("certified: no, it falls below cs, the exact delta of another "
           "dataset, so it is no valid bound");
  else
    printf("certified: no, a concrete dataset has a larger delta");
  if (thm41) {
    cli_fmt(cs, sizeof cs, ca->cs_delta, 6);
    cli_fmt(ll, sizeof ll, ca->lower_limit, 6);
    printf("; cs delta %s, certified lower limit %s", cs, ll);
  }
  printf("), %.3g s\n", a->seconds);
}

/* One calibration's answer, one line: the value and its bracket; its less
 * private neighbour, said to fail only when that is certified; the most
 * private certified failure and the undecided stretch, if any. */
static void print_cal_line(const struct cli *c, const struct answer *a,
                           int which, const char *prefix)
{
  const pld_search_result *r = &a->cal[which];
  char v[40], e[40], d[40], lo[40], hi[40], how[192], x[40], xlo[40], xhi[40];
  char buf[ERRLEN];
  int rdp = which == CAL_RDP, closed = !rdp && c->sum.closed;
  int thm41 = closed && c->closed_thm41;
  const char *P = c->param;
  const char *less = c->hole.direction > 0 ? "smaller" : "larger";

  fputs(prefix, stdout);
  if (!r->found) {
    cli_cal_none_text(c, a, which, buf, sizeof buf);
    printf("%s\n", buf);
    return;
  }
  cli_cal_text(c, r->param, v, sizeof v);
  cli_fmt_exact(e, sizeof e, c->epsilon);
  cli_fmt_exact(d, sizeof d, c->delta);
  cli_fmt_bracket(lo, hi, sizeof lo, r->at_param.bound.lower,
                      r->at_param.bound.upper);
  if (rdp) {
    cli_fmt(hi, sizeof hi, r->at_param.bound.upper, 6);
    printf("%s = %s meets epsilon <= %s at delta = %s by the RDP bound: "
           "epsilon <= %s at it", P, v, e, d, hi);
    if (a->cal_rdp_have[0] && !isnan(a->cal_rdp[0].order)) {
      cli_fmt_exact(x, sizeof x, a->cal_rdp[0].order);
      printf(" (order %s%s)", x,
             a->cal_rdp[0].at_edge ? ", an end of the order grid" : "");
    }
  } else if (closed) {
    printf("%s = %s meets epsilon <= %s at delta = %s by analysis=%s (%s): "
           "epsilon in [%s, %s] at it", P, v, e, d,
           c->sum.closed_analysis,
           thm41 ? "Theorem 4.1 as stated, NOT a certified bound: its proof "
                   "is invalid"
                 : "Theorem 5.1, a certified bound",
           lo, hi);
    if (thm41)
      printf(a->cal_closed.below_cs
                 ? "; there it falls below cs, the exact delta of another "
                   "dataset, so it is no valid bound"
             : a->cal_closed.refuted
                 ? "; refuted there: a concrete dataset has a larger delta"
                 : "; no dataset checked has a larger delta there (not a "
                   "proof)");
  } else {
    printf("%s = %s meets epsilon <= %s at delta = %s by %s: epsilon in "
           "[%s, %s] at it%s", P, v, e, d,
           c->sum.not_bound ? "the cs value (a lower limit of the worst "
                                "case, NOT a bound)"
                              : "the certified bound",
           lo, hi,
           r->at_param.met_accuracy ? "" : " (requested accuracy not met)");
  }

  if (r->at_limit) {
    if (c->cal_hi > 0) {
      printf("; it is the %s of --range",
             c->hole.direction > 0 ? "bottom" : "top");
    } else {
      cli_cal_limit_text(c, 0, buf, sizeof buf);
      printf("; every %s value tried (%s) met it too", less, buf);
    }
  } else {
    cli_cal_text(c, r->param_next, x, sizeof x);
    cli_fmt_bracket(xlo, xhi, sizeof xlo, r->at_next.bound.lower,
                        r->at_next.bound.upper);
    if (r->verdict_next == PLD_VERDICT_FAILS && closed) {
      /* An analysis's value above the target says that the analysis does
       * not certify it, not that the protocol fails. */
      printf("; %s = %s does not meet it by analysis=%s (its epsilon in "
             "[%s, %s])", P, x, c->sum.closed_analysis, xlo,
             xhi);
    } else if (r->verdict_next == PLD_VERDICT_FAILS) {
      printf("; %s = %s does not (certified: epsilon in [%s, %s])", P, x,
             xlo, xhi);
    } else if (rdp) {
      cli_fmt(xhi, sizeof xhi, r->at_next.bound.upper, 6);
      printf("; not certified by RDP at %s = %s (epsilon <= %s; RDP has no "
             "lower bound, so no value is certified to fail and a %s %s "
             "may meet the target too)", P, x, xhi, less, P);
    } else {
      printf("; not certified at %s = %s (epsilon in [%s, %s]%s%s%s: "
             "undecided, which is not a failure)", P, x, xlo, xhi,
             r->next_refined ? ", after refinement" : "",
             r->next_status ? "; it could not be evaluated: " : "",
             r->next_status ? pld_strerror(r->next_status) : "");
      if (!isnan(r->param_fail)) {
        char f[40], flo[40], fhi[40];
        cli_cal_text(c, r->param_fail, f, sizeof f);
        cli_fmt_bracket(flo, fhi, sizeof flo, r->at_fail.bound.lower,
                            r->at_fail.bound.upper);
        printf("; %s = %s does not (certified: epsilon in [%s, %s])", P, f,
               flo, fhi);
        if (!r->located)
          printf("; UNDECIDED between %s and %s: a %s %s may meet the "
                 "target too%s", f, v, less, P,
                 c->backend == BACKEND_PLD && !closed
                     ? " (--backend both adds the RDP answer)"
                     : "");
      } else if (!r->located) {
        cli_cal_limit_text(c, 0, buf, sizeof buf);
        printf("; no value tried (%s) is certified to fail: a %s %s may "
               "meet the target too", buf, less, P);
      }
    }
  }
  printf("; %u evaluations", r->evaluations);
  if (r->refinements)
    printf(" (%u refined)", r->refinements);
  if (!rdp && !closed) {
    how_text(&r->at_param, how, sizeof how);
    printf("; %s", how);
  }
  printf(", %.3g s\n", a->cal_seconds[which]);
}

static void print_calibrate_text(const struct cli *c, const struct answer *a)
{
  int both = c->backend == BACKEND_BOTH;
  if (c->backend & BACKEND_PLD)
    print_cal_line(c, a, CAL_PLD, both ? "pld: " : "");
  if (c->backend & BACKEND_RDP)
    print_cal_line(c, a, CAL_RDP, both ? "rdp: " : "");
  if (!both)
    return;
  int t = cal_tighter(c, a);
  const pld_search_result *p = &a->cal[CAL_PLD], *r = &a->cal[CAL_RDP];
  char x[40], y[40];
  if (t == 2) {
    cli_cal_text(c, p->param, x, sizeof x);
    printf("tighter: neither (both give %s = %s)\n", c->param, x);
  } else if (p->found && r->found) {
    const pld_search_result *w = t ? r : p, *l = t ? p : r;
    cli_cal_text(c, w->param, x, sizeof x);
    cli_cal_text(c, l->param, y, sizeof y);
    printf("tighter: %s (%s = %s, against %s = %s by %s)\n",
           t ? "rdp" : "pld", c->param, x, c->param, y, t ? "pld" : "rdp");
  } else {
    printf("tighter: %s (only it found a value that meets the target)\n",
           t ? "rdp" : "pld");
  }
}

/* The RDP answer of epsilon and delta, one line. */
static void print_rdp_line(const struct cli *c, const struct answer *a,
                           const char *prefix)
{
  const pld_rdp_result *r = &a->rdp;
  char v[40], in[40], ord[40], first[40], last[40], conv[64], br[96];
  int d = c->cmd == CMD_DELTA;
  cli_fmt(v, sizeof v, r->value, 6);
  cli_fmt_exact(in, sizeof in, d ? c->epsilon : c->delta);
  cli_fmt_exact(first, sizeof first, a->rdp_first);
  cli_fmt_exact(last, sizeof last, a->rdp_last);
  if (c->rdp_method == PLD_RDP_BEST)
    snprintf(conv, sizeof conv, "best (%s won)", method_name(r->method));
  else
    snprintf(conv, sizeof conv, "%s", method_name(c->rdp_method));
  if (isnan(r->order))
    snprintf(ord, sizeof ord, "none (%s)",
             d ? "the trivial delta = 1" : "no order gives a finite value");
  else
    cli_fmt_exact(ord, sizeof ord, r->order);
  br[0] = '\0';
  if (a->bridged)
    snprintf(br, sizeof br, ", %u event%s through the PLD bridge "
             "(conservative)", a->bridged, a->bridged == 1 ? "" : "s");
  printf("%s%s <= %s (backend rdp: %s, no lower bound; "
         "conversion %s, order %s) at %s = %s; %zu orders from %s to %s%s, "
         "%.3g s\n", prefix, d ? "delta" : "epsilon", v,
         c->sum.not_bound ? "NOT a bound, the RDP of cs, a lower limit "
                              "of the worst case"
                            : "a certified upper bound",
         conv, ord,
         d ? "epsilon" : "delta", in, a->rdp_n, first, last, br,
         a->rdp_seconds);
}

/* The PLD answer of epsilon and delta, one line. */
static void print_pld_line(const struct cli *c, const struct answer *a,
                           const char *prefix)
{
  const pld_result *r = &a->res;
  char lo[40], hi[40], in[40], how[192];
  cli_fmt_bracket(lo, hi, sizeof lo, r->bound.lower, r->bound.upper);
  how_text(r, how, sizeof how);
  fputs(prefix, stdout);
  if (c->cmd == CMD_DELTA) {
    cli_fmt_exact(in, sizeof in, c->epsilon);
    printf("delta in [%s, %s] (%s) at epsilon = %s", lo, hi, cli_upper_word(c),
           in);
  } else {
    cli_fmt_exact(in, sizeof in, c->delta);
    printf("epsilon in [%s, %s] (%s%s) at "
           "delta = %s", lo, hi, cli_upper_word(c),
           isinf(r->bound.upper) ? "; inf: no finite epsilon is certified"
                                 : "", in);
  }
  printf("; %s, %.3g s%s\n", how, a->pld_seconds,
         r->met_accuracy ? "" : "; requested accuracy not met");
}

void cli_print_text(const struct cli *c, const struct answer *a)
{
  char lo[40], hi[40], in[40];

  if (a->closed) {
    print_closed_text(c, a);
    return;
  }
  if (c->cmd == CMD_CALIBRATE) {
    print_calibrate_text(c, a);
    return;
  }
  if (c->cmd == CMD_SAVE) {
    cli_fmt_bracket(lo, hi, sizeof lo, a->res.bound.lower,
                        a->res.bound.upper);
    cli_fmt_exact(in, sizeof in, c->delta);
    printf("saved %s: discretization %.17g, grid %zu; its epsilon in [%s, %s] "
           "at delta = %s (upper: certified)%s\n", c->out,
           a->res.discretization, a->res.grid_size, lo, hi, in,
           a->res.met_accuracy ? "" : "; requested accuracy not met");
    return;
  }
  if (c->cmd == CMD_CURVE) {
    puts("epsilon,delta_lower,delta_upper");
    for (size_t i = 0; i < c->range_n; i++) {
      cli_fmt_exact(in, sizeof in, a->eps[i]);
      cli_fmt_exact(lo, sizeof lo, a->curve[i].lower);
      cli_fmt_exact(hi, sizeof hi, a->curve[i].upper);
      printf("%s,%s,%s\n", in, lo, hi);
    }
    return;
  }
  if (c->cmd == CMD_RDP_CURVE) {
    puts("order,epsilon");
    for (size_t i = 0; i < a->rdp_n; i++) {
      cli_fmt_exact(in, sizeof in, a->rdp_orders[i]);
      cli_fmt_exact(hi, sizeof hi, a->rdp_values[i]);
      printf("%s,%s\n", in, hi);
    }
    return;
  }
  int both = c->backend == BACKEND_BOTH;
  if (c->backend & BACKEND_PLD)
    print_pld_line(c, a, both ? "pld: " : "");
  if (c->backend & BACKEND_RDP)
    print_rdp_line(c, a, both ? "rdp: " : "");
}

/* Does an EVENT argument compose a saved PLD file (a ledger)? */
static int uses_ledger(const struct cli *c)
{
  for (size_t i = 0; i < c->n_events; i++)
    if (strstr(c->events[i], "pld:file=") != NULL)
      return 1;
  return 0;
}

/* The warnings and notes that go with the answer (stderr, and "warnings" in
 * JSON), never on stdout. */
void cli_collect_warnings(const struct cli *c, struct answer *a)
{
  pld_cli_warnings *w = &a->warn;
  if (c->sum.note)
    pld_cli_warn(w, "%s", c->sum.note);
  /* An RDP optimum at an end of the order grid. */
  const pld_rdp_result *r = &a->rdp;
  if ((c->backend & BACKEND_RDP) && c->cmd != CMD_RDP_CURVE &&
      r->at_edge && !isnan(r->order)) {
    char ord[40];
    int low = r->index == 0;
    cli_fmt_exact(ord, sizeof ord, r->order);
    pld_cli_warn(w, "the optimal RDP order %s is the %s of the grid; orders "
                 "%s it (--orders) may give a smaller %s (this one is still "
                 "a valid bound)", ord, low ? "smallest" : "largest",
                 low ? "closer to 1 than" : "above",
                 c->cmd == CMD_DELTA ? "delta" : "epsilon");
  }
  if (c->cmd == CMD_CALIBRATE)
    for (int k = 0; k < 2; k++)
      if (a->cal_ran[k] && a->cal[k].nonmonotone)
        pld_cli_warn(w, "a value certified to fail lies on the more private "
                     "side of one certified to meet (epsilon is not "
                     "monotone in %s here; the answer still meets the "
                     "target)", c->param);
  /* An infinite upper end with a finite lower one is the PLD's floor
   * (a loaded ledger's or a selection's untilted round-off, truncation at
   * --tail-mass, a grid cap), not the mechanism: say so and name the way
   * out. */
  if (c->cmd == CMD_EPSILON && c->backend == BACKEND_PLD && !a->closed &&
      isinf(a->res.bound.upper) && isfinite(a->res.bound.lower)) {
    if (a->res.bound.lower >= PLD_LOSS_MAX * (1.0 - 1e-9))
      pld_cli_warn(w, "the privacy loss reaches beyond %g nats, the largest "
                   "a PLD resolves (PLD_LOSS_MAX); the PLD counts the loss "
                   "beyond it as +inf, so no finite epsilon is certified",
                   PLD_LOSS_MAX);
    else
      pld_cli_warn(w, "delta = %g is below what the PLD can certify here "
                   "(its booked round-off and truncation), and no other "
                   "bound (basic or advanced composition, RDP) certifies a "
                   "finite epsilon", c->delta);
  }
  /* A bracket wider than --accuracy: the upper end still holds, but say
   * why it is wide and what narrows it. */
  if ((c->cmd == CMD_EPSILON || c->cmd == CMD_DELTA || c->cmd == CMD_SAVE) &&
      (c->backend & BACKEND_PLD) && !a->closed && !a->res.met_accuracy &&
      !isinf(a->res.bound.upper)) {
    if (uses_ledger(c))
      pld_cli_warn(w, "requested accuracy not met: the bracket is wider "
                   "than --accuracy %g (its upper end is still certified) "
                   "because a PLD file fixes the grid of every later "
                   "composition; save the first ledger on a finer grid "
                   "(e.g. pldkit save --accuracy 0.0005, or a smaller "
                   "--discretization)", c->params.accuracy);
    else if (a->res.width_limit == PLD_WIDTH_MECHANISM)
      pld_cli_warn(w, "requested accuracy not met: the bracket is wider "
                   "than --accuracy %g (its upper end is still certified) "
                   "because an event's own bounds are that far apart (its "
                   "certified upper and lower analyses differ, e.g. "
                   "balanced-iteration with k > 1); the grid resolved the "
                   "upper end, and a finer one would not narrow it",
                   c->params.accuracy);
    else if (a->res.refinements > 0)
      pld_cli_warn(w, "requested accuracy not met: the bracket is wider "
                   "than --accuracy %g (its upper end is still certified); "
                   "a smaller --discretization or a larger --max-grid may "
                   "narrow it", c->params.accuracy);
    else if (c->seen & ON(OPT_MAX_GRID))
      /* no grid at all under the user's cap: every one the accuracy needs
       * is over --max-grid (or the round-off it would book is), so
       * grid-free bounds answer (without the option, huge counts answer
       * that way by design, and say so in the answer's bound kinds) */
      pld_cli_warn(w, "requested accuracy not met: the bracket is wider "
                   "than --accuracy %g (its upper end is still certified) "
                   "because no PLD grid was composed (one fine enough "
                   "exceeds --max-grid %zu or would book too much "
                   "round-off, and grid-free bounds answered); a larger "
                   "--max-grid or a coarser --discretization may narrow it",
                   c->params.accuracy, c->params.max_grid);
  }
}

void cli_print_demo(const struct cli *c, const struct answer *a)
{
  const pld_result *r = &a->res;
  char lo[40], hi[40];
  cli_fmt_bracket(lo, hi, sizeof lo, r->bound.lower, r->bound.upper);
  printf("pldkit demo: privacy accounting of a DP-SGD training run\n\n"
         "Training: %g examples, Poisson sampling with rate q = %g/%g\n"
         "          = %.6g per step, gradients clipped to norm 1, Gaussian "
         "noise\n          sigma = %g, %d epochs = %d steps.\n"
         "Question: the smallest epsilon such that the whole run is "
         "(epsilon, delta)-DP\n"
         "          at delta = %g (add/remove adjacency, both directions).\n\n",
         DEMO_N, DEMO_BATCH, DEMO_N, DEMO_BATCH / DEMO_N, DEMO_SIGMA,
         DEMO_EPOCHS, DEMO_STEPS, DEMO_DELTA);
  printf("Answer:   epsilon is between %s and %s.\n", lo, hi);
  if (isinf(r->bound.upper))
    printf("          No finite epsilon could be certified at this delta.\n");
  else
    printf("          %s is the certified guarantee (an upper bound, from "
           "the\n          pessimistic PLD); %s is an optimistic estimate "
           "(a lower bound),\n          so the true epsilon lies in "
           "between.\n", hi, lo);
  if (r->closed_form)
    printf("How:      closed form (exact Gaussian composition)");
  else
    printf("How:      privacy loss distributions on a grid of step %.6g nats,\n"
           "          %zu grid points, FFT size %zu, %u grid%s tried",
           r->discretization, r->grid_size, r->fft_size, r->refinements,
           r->refinements == 1 ? "" : "s");
  printf("%s.\n", r->met_accuracy ? "" : "; the requested accuracy was not met");
  printf("Time:     %.3g s (build, compose and query).\n\n", a->seconds);
  printf("The same from the command line:\n  pldkit epsilon --delta %g %s\n",
         DEMO_DELTA, c->events[0]);
}
