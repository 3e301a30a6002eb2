/* pldkit catalogue: the checks that involve several keys of one event, and
 * the merge-lc event's adapters, referenced by the table in
 * events_table.c. */

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
  ev_fmt_exact(sum, sizeof sum, s);
  size_t len = strlen(name);
  snprintf(why, n, "%s %s to %s (%s)", name,
           len && name[len - 1] == 's' ? "sum" : "sums", sum, rule);
  return 1;
}

int ev_check_finite(const struct value *v, char *why, size_t n)
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

int ev_check_mixture(const struct value *v, char *why, size_t n)
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

int ev_check_merge_lc(const struct value *v, char *why, size_t n)
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

int ev_build_merge_lc(const struct value *v, pld_mech **out)
{
  pld_merge_run runs[PLD_MERGE_MAX_RUNS];
  size_t n = lc_runs(v, runs);
  return pld_merge_lc_step_mech(n, runs, v[0].list, out);
}

int ev_rdp_merge_lc(const struct value *v, pld_rdp_curve *c,
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
int ev_check_discrete_sensitivity(const struct value *v, char *why,
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

int ev_check_discrete_gaussian(const struct value *v, char *why, size_t n)
{
  if (v[0].real > PLD_DISCRETE_GAUSSIAN_MAX_SIGMA) {
    snprintf(why, n, "sigma=%g is above the limit %g (the exact PLD lists "
             "the support out to 40 sigma: that many points would take "
             "seconds and gigabytes per build)", v[0].real,
             PLD_DISCRETE_GAUSSIAN_MAX_SIGMA);
    return 1;
  }
  return ev_check_discrete_sensitivity(v, why, n);
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

int ev_check_wor(const struct value *v, char *why, size_t n)
{
  return check_not_above(v, 0, 1, "batch", "n", why, n);
}

/* random-participation: thm41's cost grows with d (measured: 9 s at
 * d = 1e5, 28 s at 1e6, 75 s at 1e7, 618 s at 1e9), so d is capped where
 * it would take minutes. */
int ev_check_participation(const struct value *v, char *why, size_t n)
{
  if (v[5].integer == AN_THM41 && v[2].integer > EV_THM41_MAX_D) {
    snprintf(why, n, "d = %lld is over %lld for analysis=thm41 (its cost "
             "grows with d: about 30 s at 10^6, over a minute beyond 10^7; "
             "analysis=wcs does not depend on d)",
             (long long)v[2].integer, (long long)EV_THM41_MAX_D);
    return 1;
  }
  return 0;
}

int ev_check_split(const struct value *v, char *why, size_t n)
{
  return check_not_above(v, 1, 0, "k", "d", why, n);
}

int ev_check_bis(const struct value *v, char *why, size_t n)
{
  return check_not_above(v, 1, 0, "k", "T", why, n);
}

int ev_check_selection(const struct value *v, char *why, size_t n)
{
  return bad_sum(&v[0], "weights", SELECT_SUM_TOL,
                 "the weights must sum to 1 within 1e-12", why, n);
}
