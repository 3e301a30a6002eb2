/* pldkit catalogue: the events' RDP adapters (<pldkit/rdp.h>,
 * <pldkit/rdp_papers.h>) and the PLD->RDP bridge for events without an RDP
 * formula, referenced by the table in events_table.c. */

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

/* ------------------------------------------------------------------------ */
/* RDP adapters (<pldkit/rdp.h>, <pldkit/rdp_papers.h>).                     */

int ev_rdp_gaussian(const struct value *v, pld_rdp_curve *c,
                    uint64_t count)
{
  return pld_rdp_add_gaussian(c, v[0].real, v[1].real, count);
}

int ev_rdp_laplace(const struct value *v, pld_rdp_curve *c,
                   uint64_t count)
{
  return pld_rdp_add_laplace(c, v[0].real, v[1].real, count);
}

/* The discrete Gaussian N_Z(0, sigma^2) with integer sensitivity s is
 * (s^2/(2 sigma^2))-concentrated DP (Canonne, Kamath and Steinke 2020, "The
 * discrete Gaussian for differential privacy"), i.e. D_alpha <= alpha s^2 /
 * (2 sigma^2) at every order: the continuous Gaussian's curve. */
int ev_rdp_discrete_gaussian(const struct value *v, pld_rdp_curve *c,
                             uint64_t count)
{
  return pld_rdp_add_gaussian(c, v[0].real, v[1].real, count);
}

int ev_rdp_randomized_response(const struct value *v, pld_rdp_curve *c,
                               uint64_t count)
{
  return pld_rdp_add_randomized_response(c, v[0].real, v[1].integer, count);
}

int ev_rdp_poisson_gaussian(const struct value *v, pld_rdp_curve *c,
                            uint64_t count)
{
  return pld_rdp_add_poisson_gaussian(c, v[0].real, v[1].real, v[2].real,
                                      count);
}

int ev_rdp_wor_gaussian(const struct value *v, pld_rdp_curve *c,
                        uint64_t count)
{
  return pld_rdp_add_wor_gaussian(c, (uint64_t)v[0].integer,
                                  (uint64_t)v[1].integer, v[2].real,
                                  v[3].real, count);
}

/* A fresh curve on c's orders, all values 0. */
int ev_rdp_zero_like(const pld_rdp_curve *c, pld_rdp_curve **out)
{
  return pld_rdp_curve_alloc(pld_rdp_curve_size(c), pld_rdp_curve_orders(c),
                             out);
}

/* random-participation wcs and cs (thm41 and ols never get here). */
int ev_rdp_participation(const struct value *v, pld_rdp_curve *c,
                         uint64_t count)
{
  double p = v[0].real, q = v[1].real, C = v[3].real, sigma = v[4].real;
  if (v[5].integer == AN_CS)
    return pld_rdp_add_poisson_gaussian(c, p * q, sigma, C, count);
  /* wcs: the random selection (choice visible) of "nothing" (RDP 0) with
   * probability 1 - p and the q-subsampled Gaussian with probability p,
   * model merging paper Thm 5.1. */
  pld_rdp_curve *m[2] = {NULL, NULL}, *sel = NULL;
  double w[2] = {1.0 - p, p};
  double r0 = 0.0;
  if (v[5].integer == AN_MWCS) {
    double wq;
    if (ev_mwcs_weights(v, &wq, &r0))
      return PLD_EINVAL;
    w[0] = 1.0 - wq;
    w[1] = wq;
  }
  int st = ev_rdp_zero_like(c, &m[0]);
  if (st == PLD_SUCCESS && r0 > 0.0)
    st = pld_rdp_add_poisson_gaussian(m[0], r0, sigma, C, 1);
  if (st == PLD_SUCCESS)
    st = ev_rdp_zero_like(c, &m[1]);
  if (st == PLD_SUCCESS)
    st = ev_rdp_zero_like(c, &sel);
  if (st == PLD_SUCCESS)
    st = pld_rdp_add_poisson_gaussian(m[1], q, sigma, C, 1);
  if (st == PLD_SUCCESS)
    st = pld_rdp_random_selection(2, (const pld_rdp_curve *const *)m, w,
                                  sel);
  if (st == PLD_SUCCESS)
    st = pld_rdp_curve_compose(c, sel, count);
  pld_rdp_curve_free(m[0]);
  pld_rdp_curve_free(m[1]);
  pld_rdp_curve_free(sel);
  return st;
}

/* model-splitting (keys d, k, sigma, c) and balanced-iteration (keys T, k,
 * sigma, c): the same pair, with d = T for Balanced Iteration Subsampling
 * (pld_rdp_bis is pld_rdp_model_splitting(alpha, T, k, ...) and
 * pld_rdp_bis_epochs(..., epochs, ...) is epochs times it; the curve
 * function shares its quadrature tables between orders, so it is used for
 * both, and count = epochs multiplies). */
typedef int (*split_curve_fn)(size_t, const double *, int64_t, int64_t,
                              double, double, double *);

/* count times the values of a splitting curve function at c's orders (the
 * library batches the orders so that none loses its amplification to a
 * much larger one, papers/splitting_rdp.c) */
static int add_split_curve(split_curve_fn f, const struct value *v,
                           pld_rdp_curve *c, uint64_t count, int gauss)
{
  size_t n = pld_rdp_curve_size(c);
  const double *orders = pld_rdp_curve_orders(c);
  double *eps = malloc(n * sizeof *eps);
  if (eps == NULL)
    return PLD_ENOMEM;
  int st = f(n, orders, v[0].integer, v[1].integer, v[2].real, v[3].real,
             eps);
  /* gauss: each value at most the Gaussian's alpha c^2 / (2 sigma^2),
   * rounded up; the same for a curve and its lower curves, which keeps
   * their order bit for bit */
  double mu = v[3].real / v[2].real;
  for (size_t i = 0; i < n && st == PLD_SUCCESS && gauss; i++)
    eps[i] = fmin(eps[i], 0.5 * orders[i] * mu * mu * (1.0 + 1e-15));
  if (st == PLD_SUCCESS)
    st = pld_rdp_curve_add_values(c, eps, count);
  free(eps);
  return st;
}

int ev_rdp_splitting(const struct value *v, pld_rdp_curve *c,
                     uint64_t count)
{
  return add_split_curve(pld_rdp_model_splitting_curve, v, c, count, 0);
}

/* model-splitting, balanced-iteration: the forward terms alone, the
 * event's rdp_lower (<= ev_rdp_splitting at every order, bit for bit:
 * pld_rdp_model_splitting_forward_curve), without the reverse quadrature. */
int ev_rdp_splitting_forward(const struct value *v, pld_rdp_curve *c,
                             uint64_t count)
{
  return add_split_curve(pld_rdp_model_splitting_forward_curve, v, c, count,
                         0);
}

/* model-splitting (keys d, k, sigma, c, clip): the allocation pair with
 * norm c in every block drawn dominates any gradient whose parts have
 * norm <= c each (papers/allocation.c, pld_accountant_add_model_splitting),
 * so its sound curve holds for both clippings; under total clipping with k
 * > 1 the Gaussian with shift c dominates as well (release the blocks
 * drawn), and the smaller of two bounds at an order is one.  Its lower
 * curves take the same minimum. */
static int split_total(const struct value *v)
{
  return v[4].integer == CLIP_TOTAL && v[1].integer > 1;
}

int ev_rdp_model_splitting(const struct value *v, pld_rdp_curve *c,
                           uint64_t count)
{
  return add_split_curve(pld_rdp_model_splitting_curve, v, c, count,
                         split_total(v));
}

int ev_rdp_model_splitting_forward(const struct value *v, pld_rdp_curve *c,
                                   uint64_t count)
{
  return add_split_curve(pld_rdp_model_splitting_forward_curve, v, c, count,
                         split_total(v));
}

/* pld_rdp_allocation_lower_curve in split_curve_fn's form (T = d). */
static int projection_curve(size_t n, const double *orders, int64_t T,
                            int64_t k, double sigma, double c, double *eps)
{
  return pld_rdp_allocation_lower_curve(n, orders, (uint64_t)T, (uint64_t)k,
                                        sigma, c, eps);
}

/* The projection's curve (the summed output's Gaussian times a binned
 * Gaussian mixture, a post-processing of the k-of-T run) for 1 < k < T:
 * below the allocation's sound curve at every order, and no dynamic
 * program; else the forward terms.  Not where a = min(k, T - k) > 10: the
 * forward terms are cheap there (their program is over its cap: eq. (3)
 * and the group bound), and the mixture has a + 1 components (T = 1000, k
 * = 100: 0.65 -> 0.72 s with it; T = 2000, k = 3: 0.80 -> 0.42 s; T = 4,
 * k = 2: 2.1 -> 0.35 s). */
static int add_projection(const struct value *v, pld_rdp_curve *c,
                          uint64_t count, int gauss)
{
  int64_t T = v[0].integer, k = v[1].integer;
  int64_t a = k < T - k ? k : T - k;
  int proj = k > 1 && k < T && a <= 10;
  return add_split_curve(proj ? projection_curve
                              : pld_rdp_model_splitting_forward_curve,
                         v, c, count, gauss);
}

int ev_rdp_bis_projection(const struct value *v, pld_rdp_curve *c,
                          uint64_t count)
{
  return add_projection(v, c, count, 0);
}

int ev_rdp_model_splitting_projection(const struct value *v,
                                      pld_rdp_curve *c, uint64_t count)
{
  return add_projection(v, c, count, split_total(v));
}

/* poisson-splitting: pld_rdp_poisson_split at every order; where it has no
 * value (orders above 2048, c/sigma above 8, a quadrature over its cap or
 * failing its self-check) the Gaussian's alpha c^2/(2 sigma^2), which is
 * sound: the pair is a post-processing of the Gaussian pair with shift c
 * (subsampling and routing are randomness independent of the data). */
int ev_rdp_poisson_split(const struct value *v, pld_rdp_curve *c,
                         uint64_t count)
{
  size_t n = pld_rdp_curve_size(c);
  const double *orders = pld_rdp_curve_orders(c);
  double *eps = malloc(n * sizeof *eps);
  if (eps == NULL)
    return PLD_ENOMEM;
  double mu = v[3].real / v[2].real;
  int st = PLD_SUCCESS;
  for (size_t i = 0; i < n && st == PLD_SUCCESS; i++) {
    pld_rdp_pair_terms t;
    int r = pld_rdp_poisson_split(orders[i], v[0].real, v[1].integer,
                                  v[2].real, v[3].real, &t);
    if (r == PLD_SUCCESS)
      eps[i] = fmin(t.epsilon, 0.5 * orders[i] * mu * mu * (1.0 + 1e-15));
    else if (r == PLD_ENOMEM || r == PLD_EINVAL)
      st = r;
    else
      eps[i] = 0.5 * orders[i] * mu * mu * (1.0 + 1e-15);
  }
  if (st == PLD_SUCCESS)
    st = pld_rdp_curve_add_values(c, eps, count);
  free(eps);
  return st;
}

/* bounded-gaussian: the sup over the shifts +c and -c, both directions,
 * capped by the Gaussian's alpha c^2/(2 sigma^2) (the bounded-support
 * paper's Thm 4.9; rdp_papers.h promises it, but far outside the support,
 * |theta| >~ 1e6 a, the library's value loses precision upward and exceeds
 * it).  The cap is proven for both kinds: the rectified pair is a
 * post-processing (clipping) of the Gaussian pair; for the truncated pair,
 * with Delta(x) = Phi((a-x)/sigma) - Phi((-a-x)/sigma) log-concave
 * (Prekopa), theta = ((alpha-1)(theta+c) + (theta-(alpha-1)c))/alpha gives
 * log(Delta(theta+c)/Delta(theta)) + log(Delta(theta+(1-alpha)c)/
 * Delta(theta))/(alpha-1) <= 0 in the corrected eq. (6). */
int ev_rdp_bounded(const struct value *v, pld_rdp_curve *c,
                   uint64_t count)
{
  size_t n = pld_rdp_curve_size(c);
  const double *orders = pld_rdp_curve_orders(c);
  int kind = v[0].integer == BK_TRUNCATED ? PLD_BOUNDED_TRUNCATED
                                          : PLD_BOUNDED_RECTIFIED;
  double *eps = malloc(n * sizeof *eps);
  if (eps == NULL)
    return PLD_ENOMEM;
  int st = PLD_SUCCESS;
  for (size_t i = 0; i < n && st == PLD_SUCCESS; i++)
    st = pld_rdp_bounded_gaussian_sup(kind, orders[i], v[1].real, v[2].real,
                                      v[3].real, v[4].real, &eps[i]);
  for (size_t i = 0; i < n && st == PLD_SUCCESS; i++) {
    double s = v[4].real / v[3].real;
    /* alpha s^2 / 2 rounded upward: three roundings, each within an ulp */
    double cap = orders[i] * s * s / 2.0;
    for (int k = 0; k < 4; k++)
      cap = nextafter(cap, INFINITY);
    if (!(eps[i] <= cap))
      eps[i] = cap;
  }
  if (st == PLD_SUCCESS)
    st = pld_rdp_curve_add_values(c, eps, count);
  free(eps);
  return st;
}

/* The PLD bridge: the certified upper RDP of one run's PLD, composed count
 * times in RDP (composing the PLD first would put the FFT's truncated tail
 * at +inf, see rdp.h).  Grid: --discretization if fixed; else a divisor of
 * the loss lattice if the mechanism has one (then the PLD is exact), else a
 * step of about 1e-3 / count of the mechanism's loss scale (the
 * discretization adds at most one step per run to the RDP), but at least
 * 1e-4 of it: the builder's booked relative error grows quickly with the
 * grid size (3e-9 at 2e3 points, 4e-5 at 2e5 for a finite pair), and it
 * costs log(1/(1 - rel_err))/(alpha - 1) per run.  The step is kept
 * incommensurable with the loss scale (factor BRIDGE_SKEW): when the
 * largest loss (often the loss scale itself) falls exactly on a grid point,
 * the builder leaves a rounding-size mass at +inf, and then the bridge can
 * only say inf.  The grid is coarsened while it exceeds --max-grid. */
#define BRIDGE_SKEW 0.9876543210987654
/* The bridge on one grid (see ev_rdp_bridge): a fresh curve on like's orders
 * holding the upper RDP of one run. */
static int bridge_once(const pld_curve *cv, const pld_params *p, double step,
                       int fixed, double lattice, const pld_rdp_curve *like,
                       pld_rdp_curve **out)
{
  pld_dist *d = NULL;
  pld_rdp_curve *one = NULL;
  int st;
  for (int tries = 0;; tries++) {
    double grid = step;
    if (!fixed) {
      grid = fmin(fmax(step, 1e-9), 1000.0);
      if (lattice > 0) {
        double parts = ceil(lattice / grid);
        if (lattice / parts >= 1e-9)
          grid = lattice / parts;
      }
    }
    st = pld_dist_from_curve(cv, grid, p, &d);
    if (st != PLD_ERANGE || fixed || tries >= 8 || step >= 1000.0)
      break;
    step *= 4.0;
  }
  if (st == PLD_SUCCESS)
    st = ev_rdp_zero_like(like, &one);
  if (st == PLD_SUCCESS)
    st = pld_rdp_of_pld(d, one);
  pld_dist_free(d);
  if (st != PLD_SUCCESS) {
    pld_rdp_curve_free(one);
    return st;
  }
  *out = one;
  return PLD_SUCCESS;
}

int ev_rdp_bridge(const pld_mech *m, const pld_params *params,
                  uint64_t count, pld_rdp_curve *c)
{
  const pld_curve *cv = pld_mech_curve(m);
  pld_params p;
  pld_rdp_curve *one = NULL, *two = NULL;
  if (params)
    p = *params;
  else
    pld_params_default(&p);
  double step = p.discretization;
  double scale = cv->loss_scale > 0 && isfinite(cv->loss_scale)
                     ? cv->loss_scale
                     : 1.0;
  double lattice = cv->loss_lattice > 0 && isfinite(cv->loss_lattice)
                       ? cv->loss_lattice
                       : 0.0;
  int fixed = step > 0;
  if (!fixed)
    step = BRIDGE_SKEW * scale * fmax(1e-4, 1e-3 / (double)count);
  int st = bridge_once(cv, &p, step, fixed, lattice, c, &one);
  /* An inf may be the rounding-size mass at +inf described above: try a
   * second, incommensurable grid without the lattice and keep the smaller
   * value at each order (both are certified upper bounds). */
  size_t n = pld_rdp_curve_size(c);
  int has_inf = 0;
  for (size_t i = 0; st == PLD_SUCCESS && i < n && !has_inf; i++)
    has_inf = isinf(pld_rdp_curve_values(one)[i]);
  if (has_inf && !fixed &&
      bridge_once(cv, &p, step * 0.6180339887498949, 0, 0.0, c, &two) ==
          PLD_SUCCESS) {
    double *v = malloc(n * sizeof *v);
    if (v == NULL) {
      st = PLD_ENOMEM;
    } else {
      const double *a = pld_rdp_curve_values(one);
      const double *b = pld_rdp_curve_values(two);
      for (size_t i = 0; i < n; i++)
        v[i] = fmin(a[i], b[i]);
      st = pld_rdp_curve_set(one, v);
      free(v);
    }
  }
  if (st == PLD_SUCCESS)
    st = pld_rdp_curve_compose(c, one, count);
  pld_rdp_curve_free(one);
  pld_rdp_curve_free(two);
  return st;
}

/* balls-in-bins: balanced-iteration's RDP with k = 1 */
int ev_rdp_balls_in_bins(const struct value *v, pld_rdp_curve *c,
                         uint64_t count)
{
  struct value bis[4];
  ev_balls_as_bis(v, bis);
  return ev_rdp_splitting(bis, c, count);
}

/* bandmf: the same Poisson-Gaussian steps' exact RDP */
int ev_rdp_bandmf(const struct value *v, pld_rdp_curve *c, uint64_t count)
{
  uint64_t total = 0;
  int st = ev_bandmf_steps(v, count, &total);
  if (st != PLD_SUCCESS)
    return st;
  struct value pg[3];
  memset(pg, 0, sizeof pg);
  pg[0].real = v[2].real;
  pg[1].real = v[3].real;
  pg[2].real = v[4].real * v[5].real;
  return ev_rdp_poisson_gaussian(pg, c, total);
}
