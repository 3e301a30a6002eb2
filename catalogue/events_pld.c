/* pldkit catalogue: the events' PLD adapters to <pldkit/mech.h> (and the
 * papers' constructors), one per event family, referenced by the table in
 * events_table.c.  Split from events.c; events_parse.c has the overview. */

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
#include <pldkit/samplers.h>
#include "detail.h"
#include "events_internal.h"

/* ------------------------------------------------------------------------ */
/* Adapters to <pldkit/mech.h>; indices follow the key order in the table.   */

int ev_build_gaussian(const struct value *v, pld_mech **out)
{
  return pld_mech_gaussian(v[0].real, v[1].real, out);
}

int ev_build_laplace(const struct value *v, pld_mech **out)
{
  return pld_mech_laplace(v[0].real, v[1].real, out);
}

int ev_build_discrete_laplace(const struct value *v, pld_mech **out)
{
  return pld_mech_discrete_laplace(v[0].real, v[1].integer, out);
}

int ev_build_discrete_gaussian(const struct value *v, pld_mech **out)
{
  return pld_mech_discrete_gaussian(v[0].real, v[1].integer, out);
}

int ev_build_randomized_response(const struct value *v, pld_mech **out)
{
  return pld_mech_randomized_response(v[0].real, v[1].integer, out);
}

int ev_build_poisson_gaussian(const struct value *v, pld_mech **out)
{
  return pld_mech_poisson_gaussian(v[0].real, v[1].real, v[2].real, out);
}

int ev_build_poisson_laplace(const struct value *v, pld_mech **out)
{
  return pld_mech_poisson_laplace(v[0].real, v[1].real, v[2].real, out);
}

int ev_build_finite(const struct value *v, pld_mech **out)
{
  return pld_mech_finite(v[0].len, v[0].list, v[1].list, out);
}

int ev_build_mixture_gaussian(const struct value *v, pld_mech **out)
{
  return pld_mech_mixture_gaussian(v[0].real, v[1].len, v[2].list, v[1].list,
                                   v[3].len, v[4].list, v[3].list, out);
}

int ev_build_wor_gaussian(const struct value *v, pld_mech **out)
{
  return pld_mech_wor_gaussian((uint64_t)v[0].integer, (uint64_t)v[1].integer,
                               v[2].real, v[3].real, out);
}

/* random-participation: keys p, q, d, C, sigma, analysis. */

/* mwcs: the round as the selection "q-subsampled Gaussian w.p. wq, the
 * r0-subsampled Gaussian otherwise" (pld_participation_mwcs_mixture,
 * docs/participation.md sec. 5); r0 = 0 is the zero-loss pair.  Returns
 * non-zero when the library that knows the mixture is not compiled in. */

int ev_build_participation(const struct value *v, pld_mech **out)
{
  double p = v[0].real, q = v[1].real, C = v[3].real, sigma = v[4].real;
  if (v[5].integer == AN_CS) /* centralized sampling at rate p q */
    return pld_mech_poisson_gaussian(p * q, sigma, C, out);
  /* WCS: the participation bit is visible, so the round is the selection
   * "nothing (loss 0) with probability 1 - p, the q-subsampled Gaussian with
   * probability p". */
  static const double one = 1.0;
  pld_mech *m[2] = {NULL, NULL};
  double w[2] = {1.0 - p, p};
  double r0 = 0.0;
  if (v[5].integer == AN_MWCS) {
    double wq;
    if (ev_mwcs_weights(v, &wq, &r0))
      return PLD_EINVAL;
    w[0] = 1.0 - wq;
    w[1] = wq;
  }
  int st = r0 > 0.0 ? pld_mech_poisson_gaussian(r0, sigma, C, &m[0])
                    : pld_mech_finite(1, &one, &one, &m[0]);
  if (st == PLD_SUCCESS)
    st = pld_mech_poisson_gaussian(q, sigma, C, &m[1]);
  if (st == PLD_SUCCESS)
    st = pld_mech_select(2, (const pld_mech *const *)m, w, out);
  pld_mech_free(m[0]);
  pld_mech_free(m[1]);
  return st;
}

int ev_closed_participation(const struct value *v)
{
  return v[5].integer == AN_THM41 || v[5].integer == AN_OLS;
}

/* Calibrate's '?' on random-participation (keys p, q, d, C, sigma).  Every
 * analysis depends on C/sigma only, and its delta(eps) is that of a mixture
 * of subsampled Gaussians, monotone in the noise (post-processing).  In p:
 * WCS is p S_q, CS the rate p q, MWCS p (1-r) S_q + (1 - p + p r) S_{p0 q}
 * with p0 increasing in p and S_q >= S_{p0 q}: all non-decreasing
 * (docs/participation.md).  In q: OLS, WCS and CS subsample at a rate
 * increasing in q; MWCS trades q against p0 q, and pldkit has no proof.
 * Theorem 4.1 is not a bound at all, and its monotonicity in p and q is not
 * known either; its sigma is calibrated as the paper's Sec. 6 does (monotone
 * there by observation only). */
const char *ev_no_solve_participation(const struct value *v, size_t k)
{
  int64_t an = v[5].integer;
  if (k == 0 && an == AN_OLS)
    return "analysis=ols does not depend on p";
  if (k == 0 && an == AN_THM41)
    return "Theorem 4.1 is not known to be monotone in p";
  if (k == 1 && an == AN_THM41)
    return "Theorem 4.1 is not known to be monotone in q";
  if (k == 1 && an == AN_MWCS)
    return "analysis=mwcs is not known to be monotone in q (it trades "
           "q against p0 q)";
  if (k == 2 && (an == AN_MWCS || an == AN_THM41))
    return "the analysis is not known to be monotone in d";
  if (k == 2)
    return "the analysis does not depend on d";
  return NULL;
}

const char *ev_note_participation(const struct value *v)
{
  if (v[5].integer != AN_CS)
    return NULL;
  return "random-participation with analysis=cs is centralized sampling at "
         "rate p*q: a lower limit of the true worst case, not a guarantee "
         "for random participation (analysis=wcs is)";
}

/* ------------------------------------------------------------------------ */
/* Bounded-support Gaussian: the PLD of kind=rectified or truncated.        */


/* The neighbour may shift the location by +c or by -c.  The pair whose
 * hockey-stick curve is, in each direction, the larger of the two pairs'
 * curves dominates both: the pointwise maximum of two curves is again
 * convex in e^eps and runs from 1 down to the mass at +inf, and the
 * relation H_x(P||Q) = 1 - x + x H_{1/x}(Q||P) between the directions is
 * increasing in H, so the two maxima belong to one pair.  A dominating pair
 * of each run gives one of their adaptive composition (Zhu, Dong and Wang
 * 2022), so this is sound even if the sign changes from run to run. */
struct worst_pair {
  pld_mech *m[2]; /* shifts +c and -c */
};

static void worst_pair_release(void *o)
{
  struct worst_pair *w = o;
  pld_mech_free(w->m[0]);
  pld_mech_free(w->m[1]);
  free(w);
}

static int worst_pair_delta(void *ctx, int dir, size_t n, const double *eps,
                            double *delta)
{
  struct worst_pair *w = ctx;
  const pld_curve *a = pld_mech_curve(w->m[0]), *b = pld_mech_curve(w->m[1]);
  if (n == 0)
    return 0;
  double *other = malloc(n * sizeof *other);
  if (other == NULL)
    return PLD_ENOMEM;
  int st = a->delta(a->ctx, dir, n, eps, delta);
  if (st == 0)
    st = b->delta(b->ctx, dir, n, eps, other);
  if (st == 0)
    for (size_t i = 0; i < n; i++)
      if (!(delta[i] >= other[i])) /* also lets a NaN through, to be caught */
        delta[i] = other[i];
  free(other);
  return st;
}

/* The loss tails of that pair: at each eps, those of the pair whose curve is
 * the larger there (on a tie, the one that is larger just above eps, i.e.
 * with the smaller e^eps Q[L > eps] = minus the right derivative of the
 * curve).  Where the larger pair changes from 1 to 2 the pair has an atom of
 * loss, and P[L > eps] drops from pair 1's to pair 2's value; both stay
 * consistent with p_gt - eq_gt = the maximum curve. */
static int worst_pair_tails(void *ctx, int dir, size_t n, const double *eps,
                            double *p_gt, double *eq_gt)
{
  struct worst_pair *w = ctx;
  const pld_curve *a = pld_mech_curve(w->m[0]), *b = pld_mech_curve(w->m[1]);
  if (n == 0)
    return 0;
  if (n > SIZE_MAX / (4 * sizeof(double)))
    return PLD_ENOMEM;
  double *buf = malloc(4 * n * sizeof *buf);
  if (buf == NULL)
    return PLD_ENOMEM;
  double *da = buf, *db = buf + n, *pb = buf + 2 * n, *qb = buf + 3 * n;
  int st = a->delta(a->ctx, dir, n, eps, da);
  if (st == 0)
    st = b->delta(b->ctx, dir, n, eps, db);
  if (st == 0)
    st = a->tails(a->ctx, dir, n, eps, p_gt, eq_gt);
  if (st == 0)
    st = b->tails(b->ctx, dir, n, eps, pb, qb);
  if (st == 0)
    for (size_t i = 0; i < n; i++)
      if (db[i] > da[i] || (db[i] == da[i] && qb[i] < eq_gt[i])) {
        p_gt[i] = pb[i];
        eq_gt[i] = qb[i];
      }
  free(buf);
  return st;
}

/* The worse of two bounded pairs, (P, Q) = (N^b(t0), N^b(t0 + c0)) and
 * (N^b(t1), N^b(t1 + c1)), as one mechanism (keys as bounded-gaussian). */
static int build_bounded_worst(const struct value *v, double t0, double c0,
                               double t1, double c1, pld_mech **out)
{
  struct worst_pair *w = calloc(1, sizeof *w);
  if (w == NULL)
    return PLD_ENOMEM;
  int (*mk)(double, double, double, double, pld_mech **) =
      v[0].integer == BK_TRUNCATED ? pld_mech_truncated_gaussian
                                   : pld_mech_rectified_gaussian;
  int st = mk(t0, v[2].real, v[3].real, c0, &w->m[0]);
  if (st == PLD_SUCCESS)
    st = mk(t1, v[2].real, v[3].real, c1, &w->m[1]);
  if (st == PLD_SUCCESS) {
    const pld_curve *a = pld_mech_curve(w->m[0]);
    const pld_curve *b = pld_mech_curve(w->m[1]);
    pld_curve cv;
    memset(&cv, 0, sizeof cv);
    cv.delta = worst_pair_delta;
    cv.ctx = w;
    cv.rel_err = fmax(a->rel_err, b->rel_err);
    cv.symmetric = 0;
    cv.loss_scale = fmax(a->loss_scale, b->loss_scale);
    cv.tails = a->tails && b->tails ? worst_pair_tails : NULL;
    cv.loss_lattice = 0;
    st = pld_mech_from_curve_owned(&cv, worst_pair_release, out);
  }
  if (st != PLD_SUCCESS)
    worst_pair_release(w);
  return st;
}

/* bounded-gaussian: keys kind, theta, a, sigma, c; both shifts +-c (the
 * worst case over neighbours), either kind. */
int ev_build_bounded(const struct value *v, pld_mech **out)
{
  return build_bounded_worst(v, v[1].real, v[4].real, v[1].real, -v[4].real,
                             out);
}

/* kind=truncated has a PLD unless its normalizers underflow (the support
 * ~37 sigma or more away from theta or theta +- c): ask the library. */
const char *ev_no_pld_bounded(const struct value *v)
{
  if (v[0].integer != BK_TRUNCATED)
    return NULL;
  for (int sg = -1; sg <= 1; sg += 2) {
    pld_mech *m = NULL;
    int st = pld_mech_truncated_gaussian(v[1].real, v[2].real, v[3].real,
                                         sg * v[4].real, &m);
    pld_mech_free(m);
    if (st == PLD_EINVAL)
      return "kind=truncated with the support about 37 sigma or more away "
             "from theta or theta +- c has no privacy loss distribution in "
             "pldkit (the normalizers underflow), only its RDP";
  }
  return NULL;
}

/* poisson-bounded-gaussian: keys q, kind, theta, a, sigma, c.  The bounded-
 * support paper's Sec. 5.3 left subsampling open ("non-trivial"); in one
 * dimension the worst-of-+-c pair above is a dominating pair of the
 * per-instance mechanism, and Poisson subsampling of a dominating pair
 * dominates the subsampled mechanism (Zhu, Dong, Wang 2022, Prop. 30), so
 * pld_mech_poisson of that pair is the exact per-instance PLD. */
int ev_build_poisson_bounded(const struct value *v, pld_mech **out)
{
  /* pld_mech_poisson's base is (P, Q) = (with the record, without it), and
   * theta is the location WITHOUT the record (the paper's mu_theta in (*)):
   * the pairs (N^b(theta + c), N^b(theta)) and (N^b(theta - c), N^b(theta)) */
  const struct value *b = v + 1;
  double th = b[1].real, c = b[4].real;
  pld_mech *pair = NULL;
  int st = build_bounded_worst(b, th + c, -c, th - c, c, &pair);
  if (st != PLD_SUCCESS)
    return st;
  st = pld_mech_poisson(pair, v[0].real, out);
  pld_mech_free(pair); /* the subsampled mechanism keeps the pair's ctx */
  return st;
}

const char *ev_no_pld_poisson_bounded(const struct value *v)
{
  return ev_no_pld_bounded(v + 1); /* the same supports as theta +- c */
}

/* balanced-iteration: T steps, k each (papers/allocation.c: the split of
 * pld_allocation_split, one-of-n groups and two-of-m blocks). */
int ev_add_bis(const struct value *v, pld_accountant *acc,
               uint64_t count)
{
  return pld_accountant_add_allocation(acc, (uint64_t)v[0].integer,
                                       (uint64_t)v[1].integer, v[2].real,
                                       v[3].real, count);
}

/* model-splitting (keys d, k, sigma, c, clip): k of d blocks
 * (papers/allocation.c; k = 1 or per-block clipping: the k-of-d
 * allocation, which dominates any gradient directions; d = 1 is the
 * Gaussian mechanism itself). */
int ev_add_split(const struct value *v, pld_accountant *acc,
                 uint64_t count)
{
  return pld_accountant_add_model_splitting(
      acc, (uint64_t)v[0].integer, (uint64_t)v[1].integer, v[2].real,
      v[3].real,
      v[4].integer == CLIP_TOTAL ? PLD_SPLIT_CLIP_TOTAL : PLD_SPLIT_CLIP_BLOCK,
      count);
}

/* poisson-splitting (keys q, d, sigma, c): the splitting paper's Fig. 1
 * pair, the Poisson subsampling of the one-of-d allocation bracket. */
int ev_build_poisson_split(const struct value *v, pld_mech **out)
{
  return pld_mech_poisson_split(v[0].real, (uint64_t)v[1].integer, v[2].real,
                                v[3].real, out);
}

/* partial-splitting (keys q, d, sigma, c-split, c-shared): the split and
 * shared parts subsampled together (pld_mech_partial_split). */
int ev_build_partial_split(const struct value *v, pld_mech **out)
{
  return pld_mech_partial_split(v[0].real, (uint64_t)v[1].integer, v[2].real,
                                v[3].real, v[4].real, out);
}


int ev_mwcs_weights(const struct value *v, double *wq, double *r0)
{
  pld_participation_params par = {.p = v[0].real, .q = v[1].real,
                                  .d = v[2].integer, .clip = v[3].real,
                                  .sigma = v[4].real};
  return pld_participation_mwcs_mixture(&par, wq, r0) != PLD_SUCCESS;
}

/* ---- the samplers people train with (papers/samplers.c,
 * docs/samplers.md); the adjacency key is the index of ADJACENCIES, which
 * is enum pld_adjacency's order ---- */

/* truncated-poisson (keys n, q, B, sigma, sensitivity, adjacency): the
 * upper pair chosen over the event's own count of steps. */
int ev_add_truncated_poisson(const struct value *v, pld_accountant *acc,
                             uint64_t count)
{
  return pld_accountant_add_truncated_poisson(
      acc, (uint64_t)v[0].integer, v[1].real, (uint64_t)v[2].integer,
      v[3].real, v[4].real, (pld_adjacency)v[5].integer, PLD_TRUNC_BEST,
      count);
}

/* one step, for the RDP bridge (the pair chosen over one epoch) */
int ev_build_truncated_poisson(const struct value *v, pld_mech **out)
{
  return pld_mech_truncated_poisson_gaussian(
      (uint64_t)v[0].integer, v[1].real, (uint64_t)v[2].integer, v[3].real,
      v[4].real, (pld_adjacency)v[5].integer, out);
}

/* fixed-batch (keys b, n, sigma, sensitivity, replacement, adjacency) */
int ev_build_fixed_batch(const struct value *v, pld_mech **out)
{
  return pld_mech_fixed_batch_gaussian(
      (uint64_t)v[0].integer, (uint64_t)v[1].integer, v[2].real, v[3].real,
      v[4].integer == 1, (pld_adjacency)v[5].integer, out);
}

/* balls-in-bins (keys T, sigma, sensitivity): one epoch is the one-of-T
 * random allocation, balanced-iteration with k = 1 (Chua et al., arXiv
 * 2412.16802); count=N composes N epochs. */
void ev_balls_as_bis(const struct value *v, struct value bis[4])
{
  memset(bis, 0, 4 * sizeof *bis);
  bis[0] = v[0];
  bis[1].present = 1;
  bis[1].integer = 1;
  bis[1].real = 1.0;
  bis[2] = v[1];
  bis[3] = v[2];
}

int ev_add_balls_in_bins(const struct value *v, pld_accountant *acc,
                         uint64_t count)
{
  struct value bis[4];
  ev_balls_as_bis(v, bis);
  return ev_add_bis(bis, acc, count);
}

/* bandmf (keys steps, bands, q, sigma, sensitivity, col-norm): BandMF with
 * cyclic Poisson sampling (Choquette-Choo et al., arXiv 2306.08153); the
 * count composes whole runs. */
int ev_bandmf_steps(const struct value *v, uint64_t count, uint64_t *out)
{
  uint64_t steps = (uint64_t)v[0].integer, bands = (uint64_t)v[1].integer;
  uint64_t per = steps / bands + (steps % bands != 0);
  if (per > (1ULL << 53) / count)
    return pld_fail(PLD_ERANGE, "count x ceil(steps/bands) = %llu x %llu is "
                    "over 2^53 participations", (unsigned long long)count,
                    (unsigned long long)per);
  *out = per * count;
  return PLD_SUCCESS;
}

int ev_add_bandmf(const struct value *v, pld_accountant *acc, uint64_t count)
{
  /* a record's participations are >= bands steps apart and touch disjoint
   * rows: ceil(steps / bands) Poisson-Gaussian steps per run at shift
   * c col_norm (pld_accountant_add_bandmf_cyclic_poisson) */
  uint64_t total = 0;
  int st = ev_bandmf_steps(v, count, &total);
  pld_mech *m = NULL;
  if (st == PLD_SUCCESS)
    st = pld_mech_poisson_gaussian(v[2].real, v[3].real, v[4].real * v[5].real,
                                   &m);
  if (st == PLD_SUCCESS)
    st = pld_accountant_add(acc, m, total);
  pld_mech_free(m);
  return st;
}
