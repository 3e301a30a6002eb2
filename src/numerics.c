/* pldkit internal numerics.  See numerics.h. */
#include "numerics.h"

#include "detail.h"

#include <pldkit/status.h>

#include <float.h>
#include <math.h>

double pld_ndtr(double t)
{
  /* erfc keeps relative accuracy in the lower tail; erf would cancel. */
  return 0.5 * erfc(-t * PLD_SQRT1_2);
}

double pld_log_ndtr(double t)
{
  if (t > -30.0) {
    if (t > 5.0) /* Phi close to 1: log1p of the small upper tail. */
      return log1p(-0.5 * erfc(t * PLD_SQRT1_2));
    return log(0.5 * erfc(-t * PLD_SQRT1_2));
  }
  /* Phi(t) = phi(t)/|t| * (1 - 1/t^2 + 3/t^4 - 15/t^6 + ...) (Abramowitz &
   * Stegun 26.2.12).  For |t| >= 30 the terms shrink by a factor
   * (2k-1)/t^2 <= 1/30 at first; 12 terms leave an error below 1e-25. */
  double t2 = t * t, term = 1.0, sum = 1.0;
  for (int k = 1; k <= 12; k++) {
    term *= -(2.0 * k - 1.0) / t2;
    sum += term;
  }
  return -0.5 * t2 - log(-t) - PLD_LOG_SQRT_2PI + log(sum);
}

double pld_logaddexp(double a, double b)
{
  if (a == -INFINITY)
    return b;
  if (b == -INFINITY)
    return a;
  if (a < b) {
    double t = a;
    a = b;
    b = t;
  }
  return a + log1p(exp(b - a));
}

double pld_log1mexp(double x)
{
  /* Maechler (2012): the switch at log 2 keeps full relative accuracy. */
  if (x <= 0.0)
    return -INFINITY;
  return x < PLD_LN2 ? log(-expm1(-x)) : log1p(-exp(-x));
}

double pld_logsubexp(double a, double b)
{
  if (b == -INFINITY)
    return a;
  if (!(a > b))
    return -INFINITY;
  return a + pld_log1mexp(a - b);
}

int pld_root_bracket(pld_scalar_fn f, void *ctx, double lo, double hi,
                     double xtol, int maxiter, double *lo_out, double *hi_out)
{
  double flo = f(lo, ctx), fhi = f(hi, ctx);
  if (isnan(flo) || isnan(fhi))
    return 1;
  if (flo == 0.0) {
    *lo_out = *hi_out = lo;
    return 0;
  }
  if (fhi == 0.0) {
    *lo_out = *hi_out = hi;
    return 0;
  }
  if ((flo > 0) == (fhi > 0))
    return 1;
  /* Illinois-style regula falsi with forced bisection every third step: it
   * keeps a sign-changing bracket at all times, which is what callers need
   * to round toward the safe side. */
  int side = 0;
  for (int it = 0; it < maxiter; it++) {
    if (hi - lo <= xtol) {
      *lo_out = lo;
      *hi_out = hi;
      return 0;
    }
    double x;
    if (it % 3 == 2)
      x = 0.5 * (lo + hi);
    else
      x = (lo * fhi - hi * flo) / (fhi - flo);
    if (!(x > lo && x < hi))
      x = 0.5 * (lo + hi);
    double fx = f(x, ctx);
    if (isnan(fx))
      return 1;
    if (fx == 0.0) {
      *lo_out = *hi_out = x;
      return 0;
    }
    if ((fx > 0) == (flo > 0)) {
      lo = x;
      flo = fx;
      if (side == -1)
        fhi *= 0.5;
      side = -1;
    } else {
      hi = x;
      fhi = fx;
      if (side == 1)
        flo *= 0.5;
      side = 1;
    }
  }
  *lo_out = lo;
  *hi_out = hi;
  return (hi - lo <= xtol) ? 0 : 2;
}

double pld_mul_up(double a, double b)
{
  double p = a * b;
  if (!isfinite(p) || p == 0.0)
    return p;
  if (fma(a, b, -p) > 0.0)
    p = nextafter(p, INFINITY);
  return p;
}

double pld_mul_down(double a, double b)
{
  double p = a * b;
  if (!isfinite(p) || p == 0.0)
    return p;
  if (fma(a, b, -p) < 0.0)
    p = nextafter(p, 0.0);
  return p;
}

/* a - q b is exact by fma for a, b > 0 finite */
double pld_div_up(double a, double b)
{
  double q = a / b;
  if (isfinite(q) && q > 0.0 && fma(-q, b, a) > 0.0)
    q = nextafter(q, INFINITY);
  return q;
}

double pld_div_down(double a, double b)
{
  double q = a / b;
  if (isfinite(q) && q > 0.0 && fma(-q, b, a) < 0.0)
    q = nextafter(q, 0.0);
  return q;
}

/* Knuth's TwoSum gives the exact error of the rounded sum. */
double pld_add_up(double a, double b)
{
  double s = a + b;
  if (!isfinite(s))
    return s;
  double bb = s - a;
  double err = (a - (s - bb)) + (b - bb);
  if (err > 0.0)
    s = nextafter(s, INFINITY);
  return s;
}

double pld_log_expm1(double x)
{
  if (x == 0.0)
    return -INFINITY;
  return x < 1.0 ? log(expm1(x)) : x + log1p(-exp(-x));
}

int pld_is_simplex(const double *w, size_t n, double tol, const char *name)
{
  if (!w)
    return !pld_fail(PLD_EINVAL, "%s is NULL", name);
  double s = 0.0;
  for (size_t i = 0; i < n; i++) {
    if (!isfinite(w[i]) || !(w[i] >= 0.0))
      return !pld_fail(PLD_EINVAL, "%s[%zu] = %g must be finite and >= 0",
                       name, i, w[i]);
    s += w[i];
  }
  if (!(fabs(s - 1.0) <= tol))
    return !pld_fail(PLD_EINVAL, "the %s sum to %.17g, not within %g of 1",
                     name, s, tol);
  return 1;
}

int pld_bisect(pld_bisect_fn f, void *ctx, double lo, double hi,
               double abs_tol, double rel_tol, int max_iter, int dir,
               double *out)
{
  /* 0.5 (lo + hi) rounded lies in [lo, hi] (finite ends), so each step
   * keeps both ends verified; the answer is always an end, never an
   * interpolated point, which is what makes it sound-side whatever the
   * rounding of the midpoint. */
  for (int it = 0; it < max_iter && hi - lo > fmax(abs_tol, rel_tol * hi);
       it++) {
    double mid = 0.5 * (lo + hi);
    int above = 0;
    int st = f(mid, ctx, &above);
    if (st)
      return st;
    if (above)
      hi = mid;
    else
      lo = mid;
  }
  *out = dir > 0 ? hi : lo;
  return 0;
}

int pld_bracket_double(pld_bisect_fn f, void *ctx, double *lo, double *hi,
                       double hi_max, int *found)
{
  for (;;) {
    int above = 0;
    int st = f(*hi, ctx, &above);
    if (st)
      return st;
    if (above) {
      *found = 1;
      return 0;
    }
    *lo = *hi;
    *hi *= 2.0;
    if (*hi > hi_max) {
      *found = 0;
      return 0;
    }
  }
}

double pld_simplex_grid_count(size_t n, unsigned res)
{
  /* C(res + n - 1, n - 1) = prod_{k=1}^{n-1} (res + k) / k: each partial
   * product is the integer C(res + k, k), exact in binary64 below 2^53 */
  double c = 1.0;
  for (size_t k = 1; k < n; k++)
    c = c * (double)(res + k) / (double)k;
  return c;
}

void pld_simplex_grid_first(size_t n, unsigned res, int descending,
                            unsigned *k)
{
  for (size_t i = 0; i < n; i++)
    k[i] = 0;
  k[descending ? 0 : n - 1] = res;
}

int pld_simplex_grid_next(size_t n, unsigned res, int descending, unsigned *k)
{
  (void)res;
  /* the rightmost free coordinate (index < n - 1) that can move one unit:
   * ascending, one whose right part still holds a unit (taken from there);
   * descending, one that is > 0 (its unit goes to its right).  Everything to
   * its right restarts at its first value for the new prefix. */
  size_t j = n > 0 ? n - 1 : 0;
  while (j-- > 0) {
    unsigned right = 0; /* sum of k[j+1 .. n) */
    for (size_t i = j + 1; i < n; i++)
      right += k[i];
    if (descending ? k[j] > 0 : right > 0) {
      if (descending) {
        k[j]--;
        right++;
      } else {
        k[j]++;
        right--;
      }
      for (size_t i = j + 1; i < n; i++)
        k[i] = 0;
      k[descending ? j + 1 : n - 1] = right;
      return 1;
    }
  }
  return 0;
}

void pld_simplex_grid_weights(size_t n, unsigned res, const unsigned *k,
                              double *w)
{
  for (size_t j = 0; j < n; j++)
    w[j] = (double)k[j] / (double)res;
}
