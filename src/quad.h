/* pldkit internal: one door to GSL's numerics, with the errors booked.
 *
 * Every 1-D quadrature and every GSL special function the library uses goes
 * through here, so that (1) GSL's error handler is never reached (the
 * library never prints or aborts, and it may not install a handler: that is
 * process-global state belonging to the application), and (2) GSL's error
 * estimates are turned into booked errors the same way everywhere.
 *
 * Why CQUAD and not QAG/QAGS/QAGI (decided first, see docs/design.md,
 * "Quadrature"): every QUADPACK-family driver in GSL (qng, qag, qags, qagp,
 * qagi*, qawo, qawf) reports its run-time failures -- iteration limit,
 * roundoff detected, "bad integrand behaviour", extrapolation trouble --
 * through GSL_ERROR, i.e. through the process-global handler, whose default
 * prints and calls abort().  Those failures depend on the integrand, so no
 * choice of limits or tolerances excludes them in advance.  CQUAD
 * (gsl_integration_cquad, Gonnet's doubly adaptive Clenshaw-Curtis) calls
 * GSL_ERROR only for invalid arguments (NULL pointers, negative tolerances,
 * epsabs <= 0 with epsrel < DBL_EPSILON), all checked here before the call;
 * its run-time outcomes (tolerance not met, intervals at machine resolution,
 * divergence) return a status or an error estimate without the handler.
 * Its workspace allocator calls the handler when malloc fails, so the
 * workspace is built here with pld_malloc (the struct is public in
 * gsl_integration.h).  Non-finite integrand values, which CQUAD would
 * silently drop (treat as removable singularities), are caught by the
 * wrapper and reported as an error instead.
 *
 * Booking.  CQUAD's error estimate is an estimate (the L2 distance between
 * interpolants of two degrees), not a bound; the wrapper multiplies it by
 * the stated factor PLD_QUAD_SAFETY and adds (a) a bound on the rounding of
 * CQUAD's own sums and (b) the integrand's own value errors, which the
 * integrand reports per point (the rule's weights are positive and sum to
 * the interval length, so value errors add at most length x max error, or
 * for a non-negative integrand the largest relative error times the
 * integral).  A tolerance below the integrand's noise makes CQUAD split
 * until machine resolution: ask for no less than a few times the relative
 * error the integrand reports.
 * Results documented as certified combine this with a PROVEN tail bound for
 * what lies outside the window (pld_quad_log_gauss_tails_up below), rounded
 * outward.  Where a proof needs a rule with a proven error (directed
 * rounding, convexity brackets) the callers keep a hand-written routine and
 * say why.
 *
 * Special functions: gsl_sf_*_e also report failures (domain, overflow,
 * underflow) through GSL_ERROR, so the wrapper calls only those whose
 * failure set is empty on the inputs it admits (gsl_sf_log_erfc_e is total
 * on finite arguments). */
#ifndef PLDKIT_QUAD_H
#define PLDKIT_QUAD_H

#include <stddef.h>

/* The stated safety factor on CQUAD's error estimate. */
#define PLD_QUAD_SAFETY 8.0
/* Integrand evaluations after which a run is reported as PLD_EMAXITER
 * (CQUAD has no evaluation cap of its own; the count is checked after the
 * call, so this bounds what is accepted, not the time spent). */
#define PLD_QUAD_MAX_EVAL 2000000

/* An integrand: returns f(x) (must be finite) and may set *err (pre-set to
 * 0) to a bound on the absolute error of the returned value. */
typedef double (*pld_quad_fn)(double x, void *ctx, double *err);

#include <gsl/gsl_integration.h>

typedef struct pld_quad_ws {
  gsl_integration_cquad_workspace w;
} pld_quad_ws;

/* A workspace for `intervals` CQUAD intervals (>= 3; 100-200 is ample for
 * smooth integrands).  NULL on allocation failure.  Reuse it across calls:
 * the quadrature itself never allocates. */
pld_quad_ws *pld_quad_ws_alloc(size_t intervals);
void pld_quad_ws_free(pld_quad_ws *ws);
/* A workspace on the caller's storage (n >= 3 intervals), for O(1)
 * functions that must not allocate; not to be freed. */
void pld_quad_ws_local(pld_quad_ws *ws, gsl_integration_cquad_ival *ivals,
                       size_t *heap, size_t n);

typedef struct pld_quad_result {
  double val;   /* the integral estimate */
  double err;   /* booked error (>= 0, rounded up): PLD_QUAD_SAFETY x CQUAD's
                   estimate + the rounding of its sums + the integrand's
                   value errors; no tail: finite windows are exact ranges */
  size_t neval; /* integrand evaluations */
} pld_quad_result;

/* int_a^b f(x) dx.  a <= b; either end may be infinite, in which case the
 * interval is mapped onto a finite one (x = a + t/(1-t), x = b - (1-t)/t,
 * x = t/(1-t^2)) and f must tend to 0 faster than 1/x^2 (the mapped
 * integrand is taken as 0 at the mapped infinite end).  Infinite ends are
 * for estimates; certified callers integrate a finite window and add a
 * proven tail bound.  Stops when the estimate is within epsabs or epsrel
 * |I| (epsabs >= 0, epsrel >= 0; epsrel below 1e-15 is raised to it).
 * Returns PLD_SUCCESS, PLD_EINVAL (bad arguments), PLD_ERANGE (f returned a
 * non-finite value, or the integral diverges), PLD_EMAXITER (more than
 * PLD_QUAD_MAX_EVAL evaluations).  *out is written on success only. */
int pld_quad(pld_quad_ws *ws, pld_quad_fn f, void *ctx, double a, double b,
             double epsabs, double epsrel, pld_quad_result *out);

/* val + err rounded up, and val - err rounded down. */
double pld_quad_upper(const pld_quad_result *r);
double pld_quad_lower(const pld_quad_result *r);

/* Upper bound on log int_{x < lo or x > hi} exp(-P (x - xs)^2 / 2) dx for
 * P > 0, lo <= hi (either may be infinite), from gsl_sf_log_erfc_e with its
 * error estimate times PLD_QUAD_SAFETY plus the rounding of the arguments.
 * Exact identity: the integral is sqrt(2 pi / P) (Phi(-sqrt(P)(hi - xs)) +
 * Phi(sqrt(P)(lo - xs))), Phi(-t) = erfc(t / sqrt 2) / 2.  Returns -inf
 * when both tails are empty, NaN for invalid arguments. */
double pld_quad_log_gauss_tails_up(double P, double xs, double lo, double hi);

#endif
