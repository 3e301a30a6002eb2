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

#endif
