/* pldkit: PLD object lifetime, accessors and pmf helpers. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "alloc.h"
#include "internal.h"
#include "detail.h"

void pld_pmf_clear(struct pld_pmf *p)
{
  pld_free(p->m);
  pld_free(p->l1p);
  memset(p, 0, sizeof *p);
}

int pld_pmf_alloc(struct pld_pmf *p, int64_t offset, size_t n)
{
  memset(p, 0, sizeof *p);
  if (n == 0)
    n = 1;
  p->m = pld_calloc(n, sizeof(double));
  if (!p->m)
    return PLD_ENOMEM;
  p->n = n;
  p->offset = offset;
  return PLD_SUCCESS;
}

int pld_pmf_copy(const struct pld_pmf *src, struct pld_pmf *dst)
{
  int st = pld_pmf_alloc(dst, src->offset, src->n);
  if (st)
    return st;
  memcpy(dst->m, src->m, src->n * sizeof(double));
  double *l1p = NULL;
  if (src->l1p && src->l1pn) {
    l1p = pld_malloc(src->l1pn * sizeof(double));
    if (!l1p) {
      pld_pmf_clear(dst);
      return PLD_ENOMEM;
    }
    memcpy(l1p, src->l1p, src->l1pn * sizeof(double));
  }
  double *m = dst->m;
  *dst = *src;
  dst->m = m;
  dst->l1p = l1p;
  dst->l1pn = l1p ? src->l1pn : 0;
  return PLD_SUCCESS;
}

double pld_pmf_mass(const struct pld_pmf *p)
{
  double s = 0.0;
  for (size_t i = 0; i < p->n; i++)
    s += p->m[i];
  return s;
}

int pld_pmf_trim(struct pld_pmf *p, int rounding, double tau)
{
  /* Moving mass up (pessimistic) or dropping it (optimistic) keeps the
   * hockey-stick curve on the safe side: (1 - x e^{-l})_+ grows with l. */
  size_t lo = 0, hi = p->n;
  double acc = 0.0;
  while (lo + 1 < hi && acc + p->m[lo] <= tau)
    acc += p->m[lo++];
  double low_moved = acc;
  acc = 0.0;
  while (hi - 1 > lo && acc + p->m[hi - 1] <= tau)
    acc += p->m[--hi];
  double high_moved = acc;
  if (lo == 0 && hi == p->n)
    return PLD_SUCCESS;
  if (p->tilt > 0.0) {
    /* Tilted masses are not untilted masses: a move that is safe for the
     * latter would change their amount.  Drop both tails instead and book
     * them as error of the tilted masses, in both roundings (§5a). */
    p->tabs += low_moved + high_moved;
  } else if (rounding == PLD_PESSIMISTIC) {
    p->m[lo] += low_moved;
    p->inf += high_moved;
  }
  size_t nn = hi - lo;
  memmove(p->m, p->m + lo, nn * sizeof(double));
  p->offset += (int64_t)lo;
  p->n = nn; /* the buffer keeps its capacity; shrinking it is not needed */
  return PLD_SUCCESS;
}

/* K, K' and K'' of pld_pmf_logmgf for choosing a tilt or a reference
 * index, where only their approximate values matter (any tilt is sound,
 * docs/design.md §5a).  lambda l_i is linear in the index, so the weights
 * e^{lambda (l_i - l_top)} = rho^{top - i} come from Horner's rule with
 * rho = e^{-lambda Delta} <= 1 (no exp per mass, nothing overflows; a
 * relative error of a few n u).  Where the weights could underflow
 * (lambda times the support beyond 600 nats) or lambda < 0, the
 * log-sum-exp form below is used. */
static double logmgf_exact(const struct pld_pmf *p, double grid,
                           double lambda, double *dlogmgf, double *d2);
double pld_pmf_logmgf_fast(const struct pld_pmf *p, double grid,
                           double lambda, double *d1, double *d2)
{
  double span = (double)(p->n ? p->n - 1 : 0) * grid;
  if (!(lambda >= 0.0) || lambda * span > 600.0 || p->n == 0)
    return logmgf_exact(p, grid, lambda, d1, d2);
  double rho = exp(-lambda * grid), rho4 = rho * rho * rho * rho;
  /* sums of m_i (i - top)^k rho^{top - i}, k = 0, 1, 2, with t = top - i:
   * four interleaved chains of stride 4 keep the dependency short */
  double h0 = 0.0, h1 = 0.0, h2 = 0.0;
  size_t n = p->n, i = 0;
  const double *m = p->m;
  size_t r = n % 4;
  for (; i < r; i++) {
    double t = (double)(n - 1 - i);
    h0 = h0 * rho + m[i];
    h1 = h1 * rho + m[i] * t;
    h2 = h2 * rho + m[i] * t * t;
  }
  for (; i < n; i += 4) {
    double t0 = (double)(n - 1 - i), t1 = t0 - 1.0, t2 = t0 - 2.0,
           t3 = t0 - 3.0;
    double a0 = ((m[i] * rho + m[i + 1]) * rho + m[i + 2]) * rho + m[i + 3];
    double a1 = ((m[i] * t0 * rho + m[i + 1] * t1) * rho + m[i + 2] * t2) *
                    rho + m[i + 3] * t3;
    double a2 = ((m[i] * t0 * t0 * rho + m[i + 1] * t1 * t1) * rho +
                 m[i + 2] * t2 * t2) * rho + m[i + 3] * t3 * t3;
    h0 = h0 * rho4 + a0;
    h1 = h1 * rho4 + a1;
    h2 = h2 * rho4 + a2;
  }
  if (!(h0 > 1e-290)) /* nearly all mass underflowed: the exact form */
    return logmgf_exact(p, grid, lambda, d1, d2);
  double top = (double)(p->offset + (int64_t)n - 1);
  double mt = h1 / h0; /* tilted mean distance below the top, in steps */
  if (d1)
    *d1 = (top - mt) * grid;
  if (d2)
    *d2 = fmax(h2 / h0 - mt * mt, 0.0) * grid * grid;
  return lambda * top * grid + log(h0);
}

double pld_pmf_logmgf(const struct pld_pmf *p, double grid, double lambda,
                      double *dlogmgf)
{
  return logmgf_exact(p, grid, lambda, dlogmgf, NULL);
}

static double logmgf_exact(const struct pld_pmf *p, double grid,
                           double lambda, double *dlogmgf, double *d2)
{
  /* log-sum-exp without a log per mass (this runs a few dozen times per
   * query while the tilt is sought): m = f 2^k with f in [1/2, 1), and
   * k ln 2 + lambda l bounds log m + lambda l from above within ln 2, so
   * shifting by its maximum neither overflows nor loses the largest term */
  const double ln2 = 0.6931471805599453;
  double mx = -INFINITY;
  for (size_t i = 0; i < p->n; i++)
    if (p->m[i] > 0.0) {
      int k;
      (void)frexp(p->m[i], &k);
      double e = (double)k * ln2 + lambda * (double)(p->offset + (int64_t)i) * grid;
      if (e > mx)
        mx = e;
    }
  if (mx == -INFINITY) {
    if (dlogmgf)
      *dlogmgf = 0.0;
    if (d2)
      *d2 = 0.0;
    return -INFINITY;
  }
  double s = 0.0, s1 = 0.0, s2 = 0.0;
  for (size_t i = 0; i < p->n; i++)
    if (p->m[i] > 0.0) {
      int k;
      double f = frexp(p->m[i], &k);
      double l = (double)(p->offset + (int64_t)i) * grid;
      double w = f * exp((double)k * ln2 + lambda * l - mx);
      s += w;
      s1 += w * l;
      s2 += w * l * l;
    }
  if (dlogmgf)
    *dlogmgf = s1 / s;
  if (d2)
    *d2 = fmax(s2 / s - (s1 / s) * (s1 / s), 0.0);
  return mx + log(s);
}

int pld_pmf_tilt(const struct pld_pmf *src, double grid, double lambda,
                 struct pld_pmf *dst)
{
  if (!(lambda > 0.0))
    return pld_fail_if_silent(PLD_EINVAL, "tilt lambda = %g must be > 0",
                              lambda);
  if (src->tilt != 0.0)
    return pld_fail_if_silent(PLD_EINVAL,
                              "the PMF is already tilted (tilt = %g); tilts "
                              "do not stack",
                              src->tilt);
  int st = pld_pmf_copy(src, dst);
  if (st)
    return st;
  double mean;
  double c0 = pld_pmf_logmgf_fast(src, grid, lambda, &mean, NULL);
  pld_free(dst->l1p); /* a tilted pmf books its l1 in tabs (below) */
  dst->l1p = NULL;
  dst->l1pn = 0;
  dst->tilt = lambda;
  dst->umass = pld_pmf_mass(src);
  dst->tabs = 0.0;
  dst->lnorm = 0.0;
  dst->kref = src->offset;
  if (c0 == -INFINITY)
    return PLD_SUCCESS;
  /* the reference: the grid point nearest the tilted mean */
  double kr = nearbyint(mean / grid);
  double klo = (double)src->offset, khi = klo + (double)src->n - 1.0;
  kr = kr < klo ? klo : kr > khi ? khi : kr;
  int64_t k0 = (int64_t)kr;
  double c, rho, sum = 0.0;
  double xlo = lambda * (double)(src->offset - k0) * grid;
  double xhi = lambda * (double)(src->offset + (int64_t)src->n - 1 - k0) * grid;
  double sh = c0 - lambda * (double)k0 * grid; /* ~ log sum m_i e^{x_i} */
  if (isfinite(sh) && xhi - sh <= 700.0 && fabs(xlo) + fabs(xhi) <= 1e4) {
    /* Fast form (one exp per 64 masses instead of a log and an exp per
     * mass; the tilt of 1000 distinct groups cost a second per query):
     * the weights m_i e^{x_i - sh}, x_i = lambda (l_i - k0 Delta), with
     * e^{x_i - sh} from an exp at the start of each block of 64 and
     * repeated multiplication by r = e^{lambda Delta} within it.  No weight
     * overflows (x_i - sh <= 700); one that underflows stands for a tilted
     * mass below the smallest normal (booked below).  Relative error per
     * weight: the block start's exponent u (3 |x_b| + |sh|) and its exp
     * 2u, r's 3u compounded over at most 63 steps plus the 63 products
     * (4 * 64 u), the product with m_i u; then the division by the sum
     * 2u, and c = sh + log(sum): the sum's rounding u |c| <= u (|sh| +
     * |log sum|) and the log's 2u |log sum|: the represented untilted
     * mass m'_i e^{c - x_i} is within rho of m_i. */
    double r = exp(lambda * grid);
    double xm = fmax(fabs(xlo), fabs(xhi));
    for (size_t b0 = 0; b0 < src->n; b0 += 64) {
      double xb = lambda * (double)(src->offset + (int64_t)b0 - k0) * grid;
      double E = exp(xb - sh);
      size_t e1 = b0 + 64 < src->n ? b0 + 64 : src->n;
      for (size_t i = b0; i < e1; i++) {
        double w = src->m[i] * E;
        dst->m[i] = w;
        sum += w;
        E *= r;
      }
    }
    if (!(sum > 0.0) || !isfinite(sum))
      goto slow;
    double ls = log(sum);
    c = sh + ls;
    rho = DBL_EPSILON * (3.0 * xm + 2.0 * fabs(sh) + 3.0 * fabs(ls) + 270.0);
  } else {
  slow:;
    /* c = log sum m_i e^{lambda (l_i - k0 Delta)}, by log-sum-exp; the
     * exponents are kept in dst->m between the passes */
    double mx = -INFINITY, emax = 0.0;
    for (size_t i = 0; i < src->n; i++) {
      double e = -INFINITY;
      if (src->m[i] > 0.0) {
        double lm = log(src->m[i]);
        double x = lambda * (double)(src->offset + (int64_t)i - k0) * grid;
        e = lm + x;
        emax = fmax(emax, 2.0 * fabs(x) + fabs(lm));
      }
      dst->m[i] = e;
      mx = e > mx ? e : mx;
    }
    sum = 0.0;
    for (size_t i = 0; i < src->n; i++)
      if (src->m[i] > 0.0) {
        dst->m[i] = exp(dst->m[i] - mx);
        sum += dst->m[i];
      } else {
        dst->m[i] = 0.0;
      }
    c = mx + log(sum);
    /* m_i e^{lambda (l_i - k0 Delta) - c}, i.e. the normalised weights:
     * the exponent's rounding is at most u (2 |lambda (l_i - k0 Delta)| +
     * |c| + |log m_i| + |mx|) (the index difference is exact; the weights
     * were formed as exp(log m + x - mx), and then divided by the sum),
     * exp, log, the division and the product add 4u; the represented
     * untilted mass m'_i e^{c - lambda (l_i - k0 Delta)} (with this very
     * c) is then within rho of m_i. */
    rho = DBL_EPSILON * (emax + fabs(c) + fabs(mx) + 5.0);
  }
  double M = 0.0, inv = 1.0 / sum;
  for (size_t i = 0; i < src->n; i++) {
    dst->m[i] *= inv;
    M += dst->m[i];
  }
  dst->lnorm = c;
  dst->kref = k0;
  if (src->l1 > 0.0) {
    /* l1 bounds the L1 norm of the mass errors behind the absolute part
     * l1abs of abs (build.c, book_mass_rounding), all at or below the grid
     * index l1top: as tilted L1 each weighs at most the tilt there. */
    double xt = lambda * (double)(src->l1top - k0) * grid;
    double t = src->l1 * exp(xt - c);
    if (src->l1pn > 0) {
      /* the parts, each at its own top (build.c): never more than l1 at
       * l1top, as each part's top is at or below it */
      double tp = 0.0;
      for (size_t b = 0; b < src->l1pn; b++) {
        int64_t top = src->l1plo + (int64_t)(b + 1) * src->l1pw - 1;
        if (top > src->l1top)
          top = src->l1top;
        tp += src->l1p[b] * exp(lambda * (double)(top - k0) * grid - c);
      }
      t = fmin(t, tp * (1.0 + 4.0 * (double)src->l1pn * DBL_EPSILON));
    }
    dst->tabs += t * (1.0 + 1e-12);
    dst->abs = fmax(src->abs - src->l1abs, 0.0);
    dst->l1 = 0.0;
    dst->l1abs = 0.0;
  }
  /* rho relative per mass, as tilted L1 (+ underflowed masses, each below
   * the smallest normal) */
  dst->tabs += rho / (1.0 - rho) * M + (double)src->n * DBL_MIN;
  return PLD_SUCCESS;
}

int pld_dist_tilt(const struct pld_dist *d, const double lambda[2],
                  struct pld_dist **out)
{
  struct pld_dist *t;
  int st = pld_dist_new(d->delta, &t);
  if (st)
    return st;
  t->symmetric = d->symmetric && lambda[0] == lambda[1];
  t->fft_size = d->fft_size;
  for (int i = 0; i < 2 && !st; i++)
    for (int r = 0; r < 2 && !st; r++)
      st = lambda[i] > 0.0
               ? pld_pmf_tilt(&d->p[i][r], d->delta, lambda[i], &t->p[i][r])
               : pld_pmf_copy(&d->p[i][r], &t->p[i][r]);
  if (st) {
    pld_dist_free(t);
    return st;
  }
  *out = t;
  return PLD_SUCCESS;
}

int pld_dist_new(double delta, struct pld_dist **out)
{
  struct pld_dist *d = pld_calloc(1, sizeof *d);
  if (!d)
    return PLD_ENOMEM;
  d->delta = delta;
  *out = d;
  return PLD_SUCCESS;
}

void pld_dist_free(pld_dist *d)
{
  if (!d)
    return;
  for (int i = 0; i < 2; i++)
    for (int r = 0; r < 2; r++)
      pld_pmf_clear(&d->p[i][r]);
  pld_free(d->hist);
  pld_free(d->hist_off);
  pld_free(d);
}

int pld_dist_identity(double discretization, pld_dist **out)
{
  pld_detail_clear();
  /* the grid range of pld_dist_from_curve and of the file format, so that
   * every PLD can be saved and loaded */
  if (!out)
    return pld_fail(PLD_EINVAL, "out must not be NULL");
  if (!isfinite(discretization) || !(discretization >= 1e-9) ||
      !(discretization <= 1000.0))
    return pld_fail(PLD_EINVAL, "discretization = %g must be in [1e-9, 1000]",
                    discretization);
  struct pld_dist *d;
  int st = pld_dist_new(discretization, &d);
  if (st)
    return st;
  d->symmetric = 1;
  for (int i = 0; i < 2; i++)
    for (int r = 0; r < 2; r++) {
      st = pld_pmf_alloc(&d->p[i][r], 0, 1);
      if (st) {
        pld_dist_free(d);
        return st;
      }
      d->p[i][r].m[0] = 1.0;
    }
  *out = d;
  return PLD_SUCCESS;
}

int pld_dist_copy(const pld_dist *src, pld_dist **out)
{
  pld_detail_clear();
  if (!src || !out)
    return pld_fail(PLD_EINVAL, "src and out must not be NULL");
  struct pld_dist *d;
  int st = pld_dist_new(src->delta, &d);
  if (st)
    return st;
  d->symmetric = src->symmetric;
  d->fft_size = src->fft_size;
  for (int i = 0; i < 2; i++)
    for (int r = 0; r < 2; r++)
      if ((st = pld_pmf_copy(&src->p[i][r], &d->p[i][r]))) {
        pld_dist_free(d);
        return st;
      }
  if (src->hist_len) {
    if (!(d->hist = pld_malloc(src->hist_len))) {
      pld_dist_free(d);
      return PLD_ENOMEM;
    }
    memcpy(d->hist, src->hist, src->hist_len);
    d->hist_len = src->hist_len;
    d->hist_n = src->hist_n;
    if ((st = pld_dist_hist_reindex(d))) {
      pld_dist_free(d);
      return st;
    }
  }
  *out = d;
  return PLD_SUCCESS;
}

double pld_dist_discretization(const pld_dist *d) { return d ? d->delta : NAN; }

size_t pld_dist_grid_size(const pld_dist *d)
{
  size_t n = 0;
  if (!d)
    return 0;
  for (int i = 0; i < 2; i++)
    for (int r = 0; r < 2; r++)
      if (d->p[i][r].n > n)
        n = d->p[i][r].n;
  return n;
}

size_t pld_dist_fft_size(const pld_dist *d) { return d ? d->fft_size : 0; }

int pld_dist_view(const pld_dist *d, int direction, int rounding,
                  pld_pmf_view *out)
{
  pld_detail_clear();
  if (!d || !out)
    return pld_fail(PLD_EINVAL, "d and out must not be NULL");
  if (direction != 0 && direction != 1)
    return pld_fail(PLD_EINVAL,
                    "direction = %d must be PLD_DIR_PQ (0) or PLD_DIR_QP (1)",
                    direction);
  if (rounding != 0 && rounding != 1)
    return pld_fail(PLD_EINVAL, "rounding = %d must be 0 (pessimistic) or 1 "
                                "(optimistic)",
                    rounding);
  const struct pld_pmf *p = &d->p[direction][rounding];
  out->offset = p->offset;
  out->size = p->n;
  out->masses = p->m;
  out->inf_mass = p->inf;
  out->rel_err = p->rel;
  out->abs_err = p->abs;
  return PLD_SUCCESS;
}
