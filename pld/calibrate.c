/* pldkit: noise calibration.
 *
 * The smallest parameter (sigma, b, ...) whose event list meets (eps, delta)
 * by the CERTIFIED upper end of its epsilon bracket.  We assume epsilon is
 * non-increasing in the parameter (more noise, more privacy), bracket the
 * threshold by doubling/halving from `start`, and bisect; the answer is the
 * upper end of the final bracket, a value that was evaluated and met the
 * target, so the returned parameter is never over budget whatever the
 * monotonicity does in between.
 */
#include <math.h>
#include <string.h>

#include <pldkit/select.h>

struct eval {
  int ok;        /* met the target */
  pld_result r;
};

static int evaluate(pld_build_fn build, void *ctx, double param, double eps,
                    double delta, struct eval *e)
{
  pld_accountant *acc = NULL;
  int st = build(param, ctx, &acc);
  if (st) {
    pld_accountant_free(acc);
    return st;
  }
  if (!acc)
    return PLD_ECALLBACK;
  st = pld_accountant_epsilon(acc, delta, &e->r);
  pld_accountant_free(acc);
  if (st)
    return st;
  e->ok = e->r.bound.upper <= eps;
  return PLD_SUCCESS;
}

int pld_calibrate(pld_build_fn build, void *ctx, double epsilon, double delta,
                  double start, double rel_tol, pld_progress_fn progress,
                  void *progress_ctx, pld_calibration *out)
{
  if (!build || !out || !isfinite(epsilon) || epsilon < 0.0 ||
      !(delta > 0.0 && delta < 1.0) || !isfinite(start) || !(start > 0.0) ||
      !(rel_tol > 0.0 && rel_tol < 1.0))
    return PLD_EINVAL;
  unsigned n = 0;
  struct eval e;
  double good = 0.0, bad = 0.0;
  pld_result at_good;
  memset(&at_good, 0, sizeof at_good);
  int st;
#define EVAL(x)                                                               \
  do {                                                                        \
    if ((st = evaluate(build, ctx, (x), epsilon, delta, &e)))                 \
      return st;                                                              \
    n++;                                                                      \
    if (progress)                                                             \
      progress(progress_ctx, n, (x), e.r.bound.upper);                        \
  } while (0)
  /* bracket: find a value that meets the target and one that does not */
  double x = start;
  EVAL(x);
  if (e.ok) {
    good = x;
    at_good = e.r;
    for (;;) {
      x *= 0.5;
      if (x < 1e-12 * start) { /* meets the target for every tried value */
        bad = 0.0;
        break;
      }
      EVAL(x);
      if (!e.ok) {
        bad = x;
        break;
      }
      good = x;
      at_good = e.r;
    }
  } else {
    bad = x;
    for (;;) {
      x *= 2.0;
      if (x > 1e12 * start)
        return PLD_ETOL; /* no amount of noise meets the target */
      EVAL(x);
      if (e.ok) {
        good = x;
        at_good = e.r;
        break;
      }
      bad = x;
    }
  }
  /* bisection on the certified upper end */
  while (bad > 0.0 && good - bad > rel_tol * good) {
    double mid = 0.5 * (good + bad);
    EVAL(mid);
    if (e.ok) {
      good = mid;
      at_good = e.r;
    } else {
      bad = mid;
    }
    if (n > 200)
      return PLD_EMAXITER;
  }
#undef EVAL
  out->param = good;
  out->param_fail = bad;
  out->at_param = at_good;
  out->evaluations = n;
  return PLD_SUCCESS;
}
