/* pldkit: calibration, the value of one parameter at which a composition
 * meets a target (eps, delta).
 *
 * Every evaluation gives an epsilon bracket [lower, upper] at the target
 * delta, sorted by the target into MEETS (upper <= target), FAILS (lower >
 * target) or UNDECIDED (neither: the bracket straddles the target, or its
 * upper end is infinite because of the booked FFT round-off or truncation).
 * The search assumes that the TRUE epsilon is monotone in the parameter, and
 * uses each verdict only for what it certifies:
 *   - the answer is the least private value seen to MEET, so it meets the
 *     target by its certified upper end whatever happens in between;
 *   - a value is said not to meet the target only if it FAILS;
 *   - an UNDECIDED value is neither: it bounds the search for the answer
 *     (a value that cannot be certified is no answer), it is refined before
 *     it is reported next to the answer, and the search for the most
 *     private FAILS continues past it, so that the result brackets the true
 *     threshold between two certified statements (monotonicity assumed).
 * Before this, an UNDECIDED value was taken for a failure: at delta = 1e-9,
 * where the upper end of a fine grid's bracket is +inf, the search doubled
 * past every value it could not certify and reported the first one a grid
 * happened to certify (sigma 5.375 where 1.21 suffices) as the threshold.
 *
 * All searches run in the "privacy coordinate" t = direction * x: larger t is
 * more private, MEETS lies at large t, FAILS at small t.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "alloc.h"
#include <pldkit/select.h>
#include "detail.h"

int pld_verdict(pld_bound b, double target)
{
  pld_detail_clear();
  if (b.upper <= target) /* false for NaN */
    return PLD_VERDICT_MEETS;
  if (b.lower > target)
    return PLD_VERDICT_FAILS;
  return PLD_VERDICT_UNDECIDED;
}

void pld_search_opts_default(pld_search_opts *o)
{
  if (!o)
    return;
  memset(o, 0, sizeof *o);
  o->start = 1.0;
  o->lo = 1e-12;
  o->hi = 1e12;
  o->rel_tol = 1e-3;
  o->integer = 0;
  o->direction = 1;
  o->refine = 1;
  o->fail_search = 1;
  o->accuracy = 0.0;
}

/* The domain a calibration searches: the parameter's own domain, cut to
 * the user's range; an integer parameter takes the integers inside it.  The
 * first value tried is 1 (a typical scale) unless a range is given, then the
 * range's geometric middle (a scale-free centre), rounded down for an
 * integer, and clamped into the domain. */
int pld_search_opts_domain(pld_search_opts *o, double dom_lo, double dom_hi,
                           int integer, double range_lo, double range_hi)
{
  if (!o)
    return pld_fail(PLD_EINVAL, "pld_search_opts_domain: opts is NULL");
  if (!(dom_lo >= 0 && dom_lo < dom_hi && isfinite(dom_hi)))
    return pld_fail(PLD_EINVAL, "pld_search_opts_domain: the domain [%g, %g] "
                    "must satisfy 0 <= lo < hi < inf", dom_lo, dom_hi);
  double a = dom_lo, b = dom_hi, start = 1.0;
  if (range_hi > 0) {
    if (!(range_lo >= dom_lo && range_hi <= dom_hi && range_lo < range_hi))
      return pld_fail(PLD_EINVAL, "pld_search_opts_domain: the range [%g, %g] "
                      "must lie inside the domain [%g, %g] with lo < hi",
                      range_lo, range_hi, dom_lo, dom_hi);
    a = range_lo;
    b = range_hi;
    if (integer) {
      a = ceil(a);
      b = floor(b);
      if (!(a < b))
        return pld_fail(PLD_ERANGE, "pld_search_opts_domain: the range "
                        "[%g, %g] holds fewer than two integers", range_lo,
                        range_hi);
    }
    start = sqrt(a * b);
  }
  if (integer)
    start = floor(start);
  o->lo = a;
  o->hi = b;
  o->integer = integer ? 1 : 0;
  o->start = fmin(fmax(start, a), b);
  return PLD_SUCCESS;
}

/* ------------------------------------------------------------------------ */
/* The generic search.                                                       */

#define INT_MAX_EXACT 9007199254740992.0 /* 2^53 */

struct pt {
  double x;
  int v;       /* verdict */
  int refined; /* a refinement was asked for */
  int improved; /* and it gave a bracket */
  int status;  /* PLD_SUCCESS, or the UNDECIDED-class failure */
  pld_result r;
};

struct search {
  pld_eval_fn eval;
  void *ctx;
  double eps;
  pld_search_opts o;
  pld_progress_fn progress;
  void *pctx;
  struct pt *p;
  size_t n;
  unsigned evals, refinements;
  int eager[2]; /* refine every UNDECIDED value as soon as it is seen: [0]
                   on the answer's side, [1] on the failures' side */
};

/* Statuses that mean "could not evaluate here" rather than "broken": the
 * grid over max_grid, an accuracy that cannot be reached, a refinement that
 * did not converge.  Such a value is UNDECIDED, bracket [0, inf]. */
static int undecided_status(int st)
{
  return st == PLD_ERANGE || st == PLD_ETOL || st == PLD_EMAXITER;
}

static double tc(const struct search *s, double x)
{
  return (double)s->o.direction * x;
}

/* One step towards more privacy, clamped to the domain (may return x). */
static double step_private(const struct search *s, double x)
{
  double y;
  if (s->o.direction > 0)
    y = 2.0 * x;
  else
    y = s->o.integer ? floor(0.5 * x) : 0.5 * x;
  return fmin(fmax(y, s->o.lo), s->o.hi);
}

/* One step towards less privacy, clamped to the domain (may return x). */
static double step_less(const struct search *s, double x)
{
  double y;
  if (s->o.direction > 0)
    y = s->o.integer ? floor(0.5 * x) : 0.5 * x;
  else
    y = 2.0 * x;
  return fmin(fmax(y, s->o.lo), s->o.hi);
}

/* The values a and b are within the tolerance (neighbours for integers). */
static int closed(const struct search *s, double a, double b)
{
  double w = fabs(a - b);
  if (s->o.integer)
    return w <= 1.0;
  return w <= s->o.rel_tol * fmax(fabs(a), fabs(b));
}

/* A value strictly between a and b, or NAN if there is none. */
static double midpoint(const struct search *s, double a, double b)
{
  double lo = fmin(a, b), hi = fmax(a, b), m;
  if (s->o.integer)
    m = lo + floor(0.5 * (hi - lo)); /* hi - lo is exact below 2^53 */
  else
    m = 0.5 * (a + b);
  return m > lo && m < hi ? m : NAN;
}

static long find_x(const struct search *s, double x)
{
  for (size_t i = 0; i < s->n; i++)
    if (s->p[i].x == x)
      return (long)i;
  return -1;
}

/* The least private MEETS. */
static long find_g(const struct search *s)
{
  long g = -1;
  for (size_t i = 0; i < s->n; i++)
    if (s->p[i].v == PLD_VERDICT_MEETS &&
        (g < 0 || tc(s, s->p[i].x) < tc(s, s->p[g].x)))
      g = (long)i;
  return g;
}

/* The most private point of verdict v (any if v < 0) below t_max. */
static long find_top(const struct search *s, int v, double t_max)
{
  long b = -1;
  for (size_t i = 0; i < s->n; i++) {
    double t = tc(s, s->p[i].x);
    if ((v < 0 || s->p[i].v == v) && t < t_max &&
        (b < 0 || t > tc(s, s->p[b].x)))
      b = (long)i;
  }
  return b;
}

/* The least private UNDECIDED strictly between t_lo and t_hi. */
static long find_ul(const struct search *s, double t_lo, double t_hi)
{
  long u = -1;
  for (size_t i = 0; i < s->n; i++) {
    double t = tc(s, s->p[i].x);
    if (s->p[i].v == PLD_VERDICT_UNDECIDED && t > t_lo && t < t_hi &&
        (u < 0 || t < tc(s, s->p[u].x)))
      u = (long)i;
  }
  return u;
}

static void report(struct search *s, const struct pt *q)
{
  if (s->progress)
    s->progress(s->pctx, s->evals, q->x, q->r.bound.upper);
}

/* A plain evaluation at x (not evaluated before). */
static int eval_plain(struct search *s, double x)
{
  if (s->evals >= PLD_SEARCH_MAX_EVALS || s->n >= PLD_SEARCH_MAX_EVALS)
    return PLD_EMAXITER;
  struct pt *q = &s->p[s->n];
  memset(q, 0, sizeof *q);
  q->x = x;
  int st = s->eval(x, NULL, s->ctx, &q->r);
  s->evals++;
  if (st && !undecided_status(st))
    return st;
  if (st) {
    memset(&q->r, 0, sizeof q->r);
    q->r.bound.lower = 0.0;
    q->r.bound.upper = INFINITY;
  }
  q->status = st;
  q->v = pld_verdict(q->r.bound, s->eps);
  s->n++;
  report(s, q);
  return PLD_SUCCESS;
}

/* A refined evaluation of point i (UNDECIDED), on side 0 (the answer's
 * neighbour) or 1 (the failures'). */
static int eval_refine(struct search *s, long i, int side)
{
  struct pt *q = &s->p[i];
  pld_result r;
  q->refined = 1;
  if (s->evals >= PLD_SEARCH_MAX_EVALS)
    return PLD_EMAXITER;
  memset(&r, 0, sizeof r);
  int st = s->eval(q->x, &q->r, s->ctx, &r);
  if (st == PLD_EUNSUPPORTED)
    return PLD_SUCCESS; /* nothing better to offer: no evaluation made */
  s->evals++;
  s->refinements++;
  if (st && !undecided_status(st))
    return st;
  if (st == PLD_SUCCESS) {
    /* Both brackets are certified, so their intersection is. */
    if (!(r.bound.lower >= q->r.bound.lower))
      r.bound.lower = q->r.bound.lower;
    if (!(r.bound.upper <= q->r.bound.upper))
      r.bound.upper = q->r.bound.upper;
    q->r = r;
    q->status = PLD_SUCCESS;
    q->improved = 1;
    q->v = pld_verdict(q->r.bound, s->eps);
    /* Once a refinement decides what the plain evaluation could not, the
     * plain verdicts around here are not to be trusted: refine every
     * UNDECIDED value from now on, so that the bisection runs on refined
     * verdicts (else it would crawl down one tolerance step per
     * refinement). */
    if (q->v != PLD_VERDICT_UNDECIDED)
      s->eager[side] = 1;
  }
  report(s, q);
  return PLD_SUCCESS;
}

static int at_private_end(const struct search *s, double x)
{
  return s->o.direction > 0 ? x >= s->o.hi : x <= s->o.lo;
}

static int at_less_end(const struct search *s, double x)
{
  return s->o.direction > 0 ? x <= s->o.lo : x >= s->o.hi;
}

/* Evaluate x unless it was already (then *stuck = 1); in eager mode on that
 * side an UNDECIDED value is refined at once. */
static int eval_new(struct search *s, double x, int side, int *stuck)
{
  if (isnan(x) || find_x(s, x) >= 0) {
    *stuck = 1;
    return PLD_SUCCESS;
  }
  int st = eval_plain(s, x);
  if (st == PLD_SUCCESS && s->eager[side] && s->o.refine &&
      s->p[s->n - 1].v == PLD_VERDICT_UNDECIDED)
    st = eval_refine(s, (long)s->n - 1, side);
  return st;
}

/* One step of the search; *done = 1 when there is nothing left to do. */
static int search_step(struct search *s, int *done)
{
  int stuck = 0, st;
  long g = find_g(s);
  if (g < 0) {
    /* No value meets yet: towards more privacy from the most private. */
    long m = find_top(s, -1, INFINITY);
    double x = s->p[m].x, y = step_private(s, x);
    if (at_private_end(s, x) || y == x) {
      if (s->o.refine && s->p[m].v == PLD_VERDICT_UNDECIDED &&
          !s->p[m].refined)
        return eval_refine(s, m, 0);
      *done = 1;
      return PLD_SUCCESS;
    }
    st = eval_new(s, y, 0, &stuck);
    *done = stuck;
    return st;
  }
  double tg = tc(s, s->p[g].x);
  /* The answer's less private neighbour: the nearest non-MEETS below it
   * (every point below g is FAILS or UNDECIDED, g being the least private
   * MEETS). */
  long nx = find_top(s, -1, tg);
  if (nx < 0) {
    double x = s->p[g].x, y = step_less(s, x);
    if (!at_less_end(s, x) && y != x) {
      st = eval_new(s, y, 0, &stuck);
      if (!stuck)
        return st;
    }
    *done = 1; /* the domain's end meets: nothing undecided to bracket */
    return PLD_SUCCESS;
  }
  /* In eager mode the neighbour, seen before, is refined before the search
   * bisects towards it. */
  if (s->eager[0] && s->o.refine && s->p[nx].v == PLD_VERDICT_UNDECIDED &&
      !s->p[nx].refined)
    return eval_refine(s, nx, 0);
  if (!closed(s, s->p[nx].x, s->p[g].x)) {
    st = eval_new(s, midpoint(s, s->p[nx].x, s->p[g].x), 0, &stuck);
    if (!stuck)
      return st;
  }
  if (s->p[nx].v == PLD_VERDICT_UNDECIDED && s->o.refine && !s->p[nx].refined)
    return eval_refine(s, nx, 0);
  /* The answer is settled.  With UNDECIDED values below it, locate the most
   * private FAILS too. */
  if (s->o.fail_search) {
    long b = find_top(s, PLD_VERDICT_FAILS, tg);
    double tb = b >= 0 ? tc(s, s->p[b].x) : -INFINITY;
    long ul = find_ul(s, tb, tg);
    if (ul >= 0) {
      double xu = s->p[ul].x;
      stuck = 0;
      if (s->eager[1] && s->o.refine && !s->p[ul].refined)
        return eval_refine(s, ul, 1);
      if (b < 0) {
        double y = step_less(s, xu);
        if (!at_less_end(s, xu) && y != xu) {
          st = eval_new(s, y, 1, &stuck);
          if (!stuck)
            return st;
        }
      } else if (!closed(s, s->p[b].x, xu)) {
        st = eval_new(s, midpoint(s, s->p[b].x, xu), 1, &stuck);
        if (!stuck)
          return st;
      }
      if (s->o.refine && !s->p[ul].refined)
        return eval_refine(s, ul, 1);
    }
  }
  *done = 1;
  return PLD_SUCCESS;
}

static int opts_ok(const pld_search_opts *o)
{
  /* 0 with the failed check recorded (pld_error_detail), 1 when valid */
  if (!(o->direction == 1 || o->direction == -1))
    return !pld_fail(PLD_EINVAL, "opts->direction = %d must be 1 or -1",
                     o->direction);
  if (!isfinite(o->lo) || !isfinite(o->hi) || !(o->lo >= 0.0) ||
      !(o->lo < o->hi))
    return !pld_fail(PLD_EINVAL,
                     "opts->lo = %g, opts->hi = %g must be finite with "
                     "0 <= lo < hi",
                     o->lo, o->hi);
  if (!isfinite(o->start) || !(o->start >= o->lo) || !(o->start <= o->hi) ||
      !(o->start > 0.0))
    return !pld_fail(PLD_EINVAL,
                     "opts->start = %g must be > 0 and in [lo, hi] = "
                     "[%g, %g]",
                     o->start, o->lo, o->hi);
  if (!(o->rel_tol > 0.0 && o->rel_tol < 1.0))
    return !pld_fail(PLD_EINVAL, "opts->rel_tol = %g must be in (0, 1)",
                     o->rel_tol);
  if (!(o->accuracy >= 0.0 && o->accuracy < 1.0))
    return !pld_fail(PLD_EINVAL, "opts->accuracy = %g must be in [0, 1)",
                     o->accuracy);
  if (o->integer) {
    if (o->lo != floor(o->lo) || o->hi != floor(o->hi) ||
        o->start != floor(o->start) || o->hi > INT_MAX_EXACT)
      return !pld_fail(PLD_EINVAL,
                       "integer search: opts->lo = %g, hi = %g, start = %g "
                       "must be integers with hi <= 2^53",
                       o->lo, o->hi, o->start);
  } else if (!(o->lo > 0.0)) {
    /* halving would never reach 0 */
    return !pld_fail(PLD_EINVAL,
                     "opts->lo = %g must be > 0 for a non-integer search",
                     o->lo);
  }
  return 1;
}

int pld_calibrate_search(pld_eval_fn eval, void *ctx, double epsilon,
                         const pld_search_opts *opts, pld_progress_fn progress,
                         void *progress_ctx, pld_search_result *out)
{
  pld_detail_clear();
  if (!eval || !opts || !out)
    return pld_fail(PLD_EINVAL, "eval, opts and out must not be NULL");
  if (!isfinite(epsilon) || !(epsilon >= 0.0))
    return pld_fail(PLD_EINVAL, "epsilon = %g must be finite and >= 0",
                    epsilon);
  if (!opts_ok(opts))
    return PLD_EINVAL; /* opts_ok recorded the detail */
  struct search s;
  memset(&s, 0, sizeof s);
  s.eval = eval;
  s.ctx = ctx;
  s.eps = epsilon;
  s.o = *opts;
  s.progress = progress;
  s.pctx = progress_ctx;
  s.p = pld_malloc(PLD_SEARCH_MAX_EVALS * sizeof *s.p);
  if (!s.p)
    return PLD_ENOMEM;
  int st = eval_plain(&s, s.o.start);
  for (int done = 0; st == PLD_SUCCESS && !done;)
    st = search_step(&s, &done);
  if (st) {
    pld_free(s.p);
    return st;
  }

  pld_search_result r;
  memset(&r, 0, sizeof r);
  r.param = r.param_next = r.param_fail = NAN;
  r.verdict_next = PLD_VERDICT_UNDECIDED;
  long g = find_g(&s);
  double tg = g >= 0 ? tc(&s, s.p[g].x) : INFINITY;
  long nx = find_top(&s, -1, tg);
  long b = find_top(&s, PLD_VERDICT_FAILS, tg);
  if (g >= 0) {
    r.found = 1;
    r.param = s.p[g].x;
    r.at_param = s.p[g].r;
    r.at_limit = nx < 0;
    for (size_t i = 0; i < s.n; i++)
      if (s.p[i].v == PLD_VERDICT_FAILS && tc(&s, s.p[i].x) > tg)
        r.nonmonotone = 1;
  }
  if (nx >= 0) {
    r.param_next = s.p[nx].x;
    r.verdict_next = s.p[nx].v;
    r.next_status = s.p[nx].status;
    r.next_refined = s.p[nx].improved;
    r.at_next = s.p[nx].r;
  }
  if (b >= 0) {
    r.param_fail = s.p[b].x;
    r.at_fail = s.p[b].r;
  }
  r.located = r.found && (r.at_limit || (b >= 0 && closed(&s, s.p[b].x,
                                                          r.param)));
  r.evaluations = s.evals;
  r.refinements = s.refinements;
  pld_free(s.p);
  *out = r;
  return PLD_SUCCESS;
}

/* ------------------------------------------------------------------------ */
/* Over accountants.                                                         */

struct acc_ctx {
  pld_build_fn build;
  void *ctx;
  double delta, eps;
  double accuracy, abs_accuracy;
};

static int build_acc(const struct acc_ctx *a, double x, pld_accountant **acc)
{
  *acc = NULL;
  int st = a->build(x, a->ctx, acc);
  if (st) {
    pld_accountant_free(*acc);
    *acc = NULL;
    return st;
  }
  return *acc ? PLD_SUCCESS : PLD_ECALLBACK;
}

/* Grids tried by a refinement, as multiples of the step the automatic
 * refinement settled on.  Coarser grids book less FFT round-off (fewer
 * points, fewer terms per output), which is what makes a fine grid's upper
 * end infinite at small delta (measured: q = 256/60000, T = 14063, sigma =
 * 5.371, delta = 1e-9 gives [0.496, inf] on the automatic grid 4e-5, [0,
 * 0.574] on 1e-3); finer grids narrow a bracket that is discretization
 * limited. */
static const double coarser[] = {2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0,
                                 256.0};
static const double finer[] = {0.5, 0.25};

static int acc_refine(const struct acc_ctx *a, const pld_accountant *acc,
                      const pld_result *prev, pld_result *out)
{
  pld_result r = *prev;
  unsigned tried = 0;
  double base = prev->discretization;
  /* A finer grid than one whose upper end is already infinite books more
   * round-off and cannot help: then only coarser grids are tried. */
  int fine_ok = prev->bound.upper < INFINITY;
  for (int pass = fine_ok ? 0 : 1; pass < 2; pass++) {
    int coarse = pass == 1;
    const double *f = coarse ? coarser : finer;
    size_t nf = coarse ? sizeof coarser / sizeof *coarser
                       : sizeof finer / sizeof *finer;
    for (size_t k = 0; k < nf; k++) {
      if (pld_verdict(r.bound, a->eps) != PLD_VERDICT_UNDECIDED)
        break;
      double grid = base * f[k];
      pld_dist *d = NULL;
      pld_bound b;
      int st = pld_accountant_compose(acc, grid, &d);
      if (st == PLD_ENOMEM)
        return st;
      if (st) /* over max_grid, a fixed grid (added PLDs), ...: stop here */
        break;
      st = pld_dist_epsilon(d, a->delta, &b);
      size_t gs = pld_dist_grid_size(d), fs = pld_dist_fft_size(d);
      pld_dist_free(d);
      if (st)
        break;
      tried++;
      if (b.lower > r.bound.lower) {
        r.bound.lower = b.lower;
        r.lower_kind = PLD_BOUND_GRID;
      }
      if (b.upper < r.bound.upper) {
        r.bound.upper = b.upper;
        r.bound_kind = PLD_BOUND_GRID;
        r.discretization = grid;
        r.grid_size = gs;
        r.fft_size = fs;
      }
    }
  }
  if (tried == 0)
    return PLD_EUNSUPPORTED;
  r.refinements = prev->refinements + tried;
  double w = r.bound.upper - r.bound.lower;
  r.met_accuracy = prev->met_accuracy ||
                   (isfinite(r.bound.upper) &&
                    w <= fmax(a->accuracy * r.bound.upper, a->abs_accuracy));
  *out = r;
  return PLD_SUCCESS;
}

static int acc_eval(double x, const pld_result *prev, void *vctx,
                    pld_result *out)
{
  const struct acc_ctx *a = vctx;
  pld_accountant *acc = NULL;
  if (prev && (prev->closed_form || !(prev->discretization > 0.0) ||
               !isfinite(prev->discretization)))
    return PLD_EUNSUPPORTED; /* exact, or it could not be evaluated at all */
  int st = build_acc(a, x, &acc);
  if (st)
    return st;
  if (prev)
    st = acc_refine(a, acc, prev, out);
  else
    st = pld_accountant_epsilon(acc, a->delta, out);
  pld_accountant_free(acc);
  return st;
}

int pld_calibrate_accountant(pld_build_fn build, void *ctx, double epsilon,
                             double delta, const pld_search_opts *opts,
                             pld_progress_fn progress, void *progress_ctx,
                             pld_search_result *out)
{
  pld_detail_clear();
  if (!build)
    return pld_fail(PLD_EINVAL, "build must not be NULL");
  if (!(delta > 0.0 && delta < 1.0))
    return pld_fail(PLD_EINVAL, "delta = %g must be in (0, 1)", delta);
  pld_params dp;
  pld_params_default(&dp);
  struct acc_ctx a;
  a.build = build;
  a.ctx = ctx;
  a.delta = delta;
  a.eps = epsilon;
  a.accuracy = opts && opts->accuracy > 0.0 ? opts->accuracy : dp.accuracy;
  a.abs_accuracy = dp.abs_accuracy;
  return pld_calibrate_search(acc_eval, &a, epsilon, opts, progress,
                              progress_ctx, out);
}

int pld_calibrate(pld_build_fn build, void *ctx, double epsilon, double delta,
                  double start, double rel_tol, pld_progress_fn progress,
                  void *progress_ctx, pld_calibration *out)
{
  pld_detail_clear();
  if (!build || !out)
    return pld_fail(PLD_EINVAL, "build and out must not be NULL");
  if (!isfinite(epsilon) || epsilon < 0.0)
    return pld_fail(PLD_EINVAL, "epsilon = %g must be finite and >= 0",
                    epsilon);
  if (!(delta > 0.0 && delta < 1.0))
    return pld_fail(PLD_EINVAL, "delta = %g must be in (0, 1)", delta);
  if (!isfinite(start) || !(start > 0.0))
    return pld_fail(PLD_EINVAL, "start = %g must be finite and > 0", start);
  if (!(rel_tol > 0.0 && rel_tol < 1.0))
    return pld_fail(PLD_EINVAL, "rel_tol = %g must be in (0, 1)", rel_tol);
  pld_search_opts o;
  pld_search_result r;
  pld_search_opts_default(&o);
  o.start = start;
  o.lo = fmin(fmax(1e-12 * start, DBL_MIN), start);
  o.hi = fmax(fmin(1e12 * start, DBL_MAX), start);
  if (!(o.lo < o.hi))
    return pld_fail(PLD_EINVAL,
                    "start = %g leaves no search bracket: [%g, %g] is empty",
                    start, o.lo, o.hi);
  o.rel_tol = rel_tol;
  int st = pld_calibrate_accountant(build, ctx, epsilon, delta, &o, progress,
                                    progress_ctx, &r);
  if (st)
    return st;
  if (!r.found)
    return PLD_ETOL; /* no amount of noise is certified to meet the target */
  out->param = r.param;
  out->param_fail = r.at_limit ? 0.0 : r.param_next;
  out->at_param = r.at_param;
  out->evaluations = r.evaluations;
  return PLD_SUCCESS;
}
