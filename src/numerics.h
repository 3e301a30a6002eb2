/* pldkit internal numerics: log-space helpers, Gaussian tails, root finding.
 * Everything here is pure and never calls GSL's error handler. */
#ifndef PLDKIT_NUMERICS_H
#define PLDKIT_NUMERICS_H

#include <stddef.h>
#include <float.h>

/* The unit of the error bookings: every elementary floating-point operation
 * errs by at most PLD_U relative (DBL_EPSILON = 2u, a factor 2 of margin
 * over round-to-nearest's u). */
#define PLD_U DBL_EPSILON

#define PLD_LN2 0.69314718055994530942
#define PLD_SQRT1_2 0.70710678118654752440
#define PLD_LOG_SQRT_2PI 0.91893853320467274178
#define PLD_DBL_EPS 2.220446049250313e-16

/* Phi(t), the standard normal CDF, accurate to a few ulp relative (erfc). */
double pld_ndtr(double t);
/* log Phi(t) for every finite t, accurate to a few ulp relative also in the
 * far lower tail (asymptotic series where Phi underflows). */
double pld_log_ndtr(double t);
/* log(exp(a) + exp(b)), -inf allowed. */
double pld_logaddexp(double a, double b);
/* log(1 - exp(-x)) for x >= 0, Maechler's method. */
double pld_log1mexp(double x);
/* log(e^x - 1) for x >= 0 (-inf at 0), accurate to a few ulps of max(1, x)
 * (no overflow for large x, no cancellation for small x). */
double pld_log_expm1(double x);

/* 1 if w[0..n-1] are finite, >= 0 and sum to 1 within tol (PLD_PROB_SUM_TOL
 * or PLD_WEIGHT_SUM_TOL), else 0 with the error detail (pld_error_detail)
 * naming `name`, the bad entry or the sum; w == NULL is 0.  The one check
 * behind every probability vector the library accepts. */
int pld_is_simplex(const double *w, size_t n, double tol, const char *name);
/* log(exp(a) - exp(b)) for a >= b (returns -inf when a == b). */
double pld_logsubexp(double a, double b);

/* Directed rounding for non-negative operands (products, quotients) and
 * sums: the exact residual (fma, TwoSum) decides whether to step one ulp
 * toward the safe side.  Infinite or zero results pass unchanged. */
double pld_mul_up(double a, double b);
double pld_mul_down(double a, double b);
double pld_div_up(double a, double b);
double pld_div_down(double a, double b);
double pld_add_up(double a, double b);

/* Bracketed root of a monotone-in-sign function f on [lo, hi] with f(lo),
 * f(hi) of opposite signs (or one zero).  Brent-Dekker with a bisection
 * fallback; stops when the bracket is below xtol.  Returns 0 and sets
 * *lo_out, *hi_out to a final bracket [lo, hi] with sign change, or non-zero
 * if the signs do not bracket or maxiter is hit.  Hand-written rather than
 * GSL's gsl_root_fsolver_brent: its allocator and its iterate report
 * failures (no memory, a non-finite value) through GSL's process-global
 * error handler, and the callers need the final sign-change bracket. */
typedef double (*pld_scalar_fn)(double x, void *ctx);
int pld_root_bracket(pld_scalar_fn f, void *ctx, double lo, double hi,
                     double xtol, int maxiter, double *lo_out, double *hi_out);

/* Bisection on a monotone yes/no question, the one search behind every
 * "bracket, then halve" in the library.  f(x, ctx, &above) answers, with a
 * pld_status, whether x lies at or above the boundary sought (above = 1) or
 * below it (0); the caller has verified f at lo as below and at hi as above
 * (or knows it).  Halves [lo, hi] at the midpoint 0.5 (lo + hi) while
 * hi - lo > fmax(abs_tol, rel_tol hi) and fewer than max_iter steps were
 * made, keeping that invariant; each end of the final bracket is thus
 * either verified or one the caller vouched for.  dir picks the end that is
 * sound for the caller's answer (the outward rounding): dir > 0 *out = hi,
 * the smallest verified "above" point (an upper end); dir <= 0 *out = lo,
 * the largest verified "below" point (a lower end).  A non-zero status of f
 * is returned at once, *out untouched.  ctx may record what f found at the
 * points it answers (e.g. the evaluation at the last "above"). */
typedef int (*pld_bisect_fn)(double x, void *ctx, int *above);
int pld_bisect(pld_bisect_fn f, void *ctx, double lo, double hi,
               double abs_tol, double rel_tol, int max_iter, int dir,
               double *out);

/* The bracketing step before pld_bisect, outward by doubling: asks f at
 * *hi (> 0); while it is below, *lo = *hi and *hi doubles, until f says
 * above (*found = 1, *hi verified above, *lo the last verified below or the
 * caller's start) or *hi exceeds hi_max (*found = 0, that *hi not asked).
 * Returns f's first non-zero status. */
int pld_bracket_double(pld_bisect_fn f, void *ctx, double *lo, double *hi,
                       double hi_max, int *found);

/* The simplex grid of resolution res in n coordinates: the weight vectors
 * k / res with k in N^n, sum k = res.  Its size C(res + n - 1, n - 1),
 * built as a product of exact binomials (exact while below 2^53). */
double pld_simplex_grid_count(size_t n, unsigned res);
/* Its points in lexicographic order of k, ascending (descending = 0:
 * k_0 = 0 first, the last coordinate takes the remainder) or descending
 * (k_0 = res first).  _first sets k[0..n) to the first point; _next steps k
 * to the next one and returns 0 after the last (k then unspecified).
 * pld_simplex_grid_weights writes w[j] = k[j] / res. */
void pld_simplex_grid_first(size_t n, unsigned res, int descending,
                            unsigned *k);
int pld_simplex_grid_next(size_t n, unsigned res, int descending, unsigned *k);
void pld_simplex_grid_weights(size_t n, unsigned res, const unsigned *k,
                              double *w);

#endif
