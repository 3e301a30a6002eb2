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
  double *m = dst->m;
  *dst = *src;
  dst->m = m;
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

double pld_pmf_logmgf(const struct pld_pmf *p, double grid, double lambda,
                      double *dlogmgf)
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
    return -INFINITY;
  }
  double s = 0.0, s1 = 0.0;
  for (size_t i = 0; i < p->n; i++)
    if (p->m[i] > 0.0) {
      int k;
      double f = frexp(p->m[i], &k);
      double l = (double)(p->offset + (int64_t)i) * grid;
      double w = f * exp((double)k * ln2 + lambda * l - mx);
      s += w;
      s1 += w * l;
    }
  if (dlogmgf)
    *dlogmgf = s1 / s;
  return mx + log(s);
}

int pld_pmf_tilt(const struct pld_pmf *src, double grid, double lambda,
                 struct pld_pmf *dst)
{
  if (!(lambda > 0.0) || src->tilt != 0.0)
    return pld_fail_if_silent(PLD_EINVAL, "pld_pmf_tilt: an argument is out of its domain (rejected by: !(lambda > 0.0) || src->tilt != 0.0)");
  int st = pld_pmf_copy(src, dst);
  if (st)
    return st;
  double mean;
  double c0 = pld_pmf_logmgf(src, grid, lambda, &mean);
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
  double sum = 0.0;
  for (size_t i = 0; i < src->n; i++)
    if (src->m[i] > 0.0) {
      dst->m[i] = exp(dst->m[i] - mx);
      sum += dst->m[i];
    } else {
      dst->m[i] = 0.0;
    }
  double c = mx + log(sum);
  /* m_i e^{lambda (l_i - k0 Delta) - c}, i.e. the normalised weights: the
   * exponent's rounding is at most u (2 |lambda (l_i - k0 Delta)| + |c| +
   * |log m_i| + |mx|) (the index difference is exact; the weights were formed as
   * exp(log m + x - mx), and then divided by the sum), exp, log, the
   * division and the product add 4u; the represented untilted mass
   * m'_i e^{c - lambda (l_i - k0 Delta)} (with this very c) is then within
   * rho of m_i. */
  double rho = DBL_EPSILON * (emax + fabs(c) + fabs(mx) + 5.0);
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
    dst->tabs += src->l1 * exp(xt - c) * (1.0 + 1e-12);
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
  pld_free(d);
}

int pld_dist_identity(double discretization, pld_dist **out)
{
  pld_detail_clear();
  /* the grid range of pld_dist_from_curve and of the file format, so that
   * every PLD can be saved and loaded */
  if (!out || !isfinite(discretization) || !(discretization >= 1e-9) ||
      !(discretization <= 1000.0))
    return pld_fail_if_silent(PLD_EINVAL, "pld_dist_identity: an argument is out of its domain (rejected by: !out || !isfinite(discretization) || !(discretization >= 1e-9) || !(discretization <= 1000.0))");
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
    return pld_fail_if_silent(PLD_EINVAL, "pld_dist_copy: an argument is out of its domain (rejected by: !src || !out)");
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
  if (!d || !out || (direction != 0 && direction != 1) ||
      (rounding != 0 && rounding != 1))
    return pld_fail_if_silent(PLD_EINVAL, "pld_dist_view: an argument is out of its domain (rejected by: !d || !out || (direction != 0 && direction != 1) || (rounding != 0 && rounding != 1))");
  const struct pld_pmf *p = &d->p[direction][rounding];
  out->offset = p->offset;
  out->size = p->n;
  out->masses = p->m;
  out->inf_mass = p->inf;
  out->rel_err = p->rel;
  out->abs_err = p->abs;
  return PLD_SUCCESS;
}
