/* pldkit catalogue: the closed-form single-round answers of
 * random-participation (analysis=thm41 or ols): delta at eps and the
 * epsilon search. */

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
#include <pldkit/splitting.h>
#include <pldkit/bounded.h>
#include <pldkit/mspafl.h>
#include <pldkit/select.h>
#include <pldkit/merge.h>


#include <pldkit/participation.h>
#include <pldkit/allocation.h>
#include "detail.h"
#include "events_internal.h"
#include "numerics.h"

/* ------------------------------------------------------------------------ */
/* Closed-form single-round answers.                                         */

const char *ev_closed_name(const struct ev_closed *c)
{
  static const char *const names[] = {"wcs", "cs", "thm41", "ols", "mwcs"};
  return c->analysis >= 0 && c->analysis < 5 ? names[c->analysis] : "?";
}

/* The delta bracket of a closed-form analysis at eps, with its flags
 * (thm41: only when `flags`; without, the flags are left as they are and
 * the bracket is the same, at a fraction of the cost). */
static int closed_delta(const struct ev_closed *c, double eps,
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

/* closed_epsilon's question at eps: does the delta bracket's end (upper
 * for which == 1, lower for 0) meet the target?  Each answer lands in *a
 * (which counts the evaluations); the last one that meets, and where, in
 * *at and hi. */
struct closed_pred {
  const struct ev_closed *c;
  double target;
  int which;
  pld_event_closed_answer *a, *at;
  double hi;
};

static int closed_above(double eps, void *ctx, int *above)
{
  struct closed_pred *q = ctx;
  int st = closed_delta(q->c, eps, q->a, 0);
  if (st != PLD_SUCCESS)
    return st;
  *above = (q->which ? q->a->bound.upper : q->a->bound.lower) <= q->target;
  if (*above) {
    *q->at = *q->a;
    q->hi = eps;
  }
  return PLD_SUCCESS;
}

/* epsilon(delta) of a closed form: the smallest eps >= 0 whose delta
 * (upper end of the bracket for which == 1, lower end for which == 0) is
 * <= target, by doubling then bisection to a relative 1e-12.  The upper
 * answer is an eps where the upper delta was evaluated to meet the target.
 * *flags receives the evaluation at the answer. */
static int closed_epsilon(const struct ev_closed *c, double target, int which,
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
    struct closed_pred q = {c, target, which, &a, &at, 0.0};
    int found;
    hi = 1.0;
    if ((st = pld_bracket_double(closed_above, &q, &lo, &hi, 1e6, &found)))
      return st;
    if (!found) { /* no finite epsilon meets it */
      if ((st = closed_delta(c, hi, &a, 1)))
        return st;
      *eps_out = INFINITY;
      *flags = a;
      *evals += a.evaluations;
      return PLD_SUCCESS;
    }
    /* the lower end; the upper one, where the flags go whichever end is
     * the answer, is the last point that met (q.hi, its evaluation in at) */
    if ((st = pld_bisect(closed_above, &q, lo, hi, 0.0, 1e-12, INT_MAX, -1,
                         &lo)))
      return st;
    hi = q.hi;
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

int ev_closed_query(const struct ev_closed *c, int want_delta, double x,
                    pld_event_closed_answer *out)
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
  if (st != PLD_SUCCESS)
    return pld_fail(st, "%s (while computing analysis=%s of event %s)",
                    pld_status_text(st), ev_closed_name(c), c->where);
  snprintf(a.analysis, sizeof a.analysis, "%s", ev_closed_name(c));
  *out = a;
  return PLD_SUCCESS;
}

int ev_closed_bracket(const struct ev_closed *c, double delta,
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
