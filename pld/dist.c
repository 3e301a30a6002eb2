/* pldkit: PLD object lifetime, accessors and pmf helpers. */
#include <math.h>
#include <string.h>

#include "alloc.h"
#include "internal.h"

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
  dst->inf = src->inf;
  dst->rel = src->rel;
  dst->abs = src->abs;
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
  if (rounding == PLD_PESSIMISTIC) {
    p->m[lo] += low_moved;
    p->inf += high_moved;
  }
  size_t nn = hi - lo;
  memmove(p->m, p->m + lo, nn * sizeof(double));
  p->offset += (int64_t)lo;
  p->n = nn; /* the buffer keeps its capacity; shrinking it is not needed */
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
  pld_free(d);
}

int pld_dist_identity(double discretization, pld_dist **out)
{
  /* the grid range of pld_dist_from_curve and of the file format, so that
   * every PLD can be saved and loaded */
  if (!out || !isfinite(discretization) || !(discretization >= 1e-9) ||
      !(discretization <= 1000.0))
    return PLD_EINVAL;
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
  if (!src || !out)
    return PLD_EINVAL;
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
  if (!d || !out || (direction != 0 && direction != 1) ||
      (rounding != 0 && rounding != 1))
    return PLD_EINVAL;
  const struct pld_pmf *p = &d->p[direction][rounding];
  out->offset = p->offset;
  out->size = p->n;
  out->masses = p->m;
  out->inf_mass = p->inf;
  out->rel_err = p->rel;
  out->abs_err = p->abs;
  return PLD_SUCCESS;
}
