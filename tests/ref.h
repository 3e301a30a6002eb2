/* pldkit tests: independent reference computations and check helpers.
 *
 * Everything here is computed from first principles in long double (x86-64:
 * 80-bit, 64-bit mantissa, exponent range to about e^11356) without using
 * the library, so that the tests compare the library with an independent
 * value.  All functions are static inline so that each test program is
 * standalone.
 */
#ifndef PLDKIT_TESTS_REF_H
#define PLDKIT_TESTS_REF_H

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pldkit/pldkit.h>

/* ------------------------------------------------------------------------ */
/* Check helpers.  EXPECT records a failure with a message and keeps going,  */
/* so that one run reports every failing case; EXPECT_DONE() at the end of   */
/* a test fails it if anything was recorded.                                 */

static int ref_nfail;
static int ref_nchecks;

#define EXPECT(cond, ...)                                                    \
  do {                                                                       \
    ref_nchecks++;                                                           \
    if (!(cond)) {                                                           \
      ref_nfail++;                                                           \
      print_message("FAIL %s:%d: [%s] ", __FILE__, __LINE__, #cond);        \
      print_message(__VA_ARGS__);                                            \
      print_message("\n");                                                   \
    }                                                                        \
  } while (0)

#define EXPECT_DONE()                                                        \
  do {                                                                       \
    int n_fail_ = ref_nfail;                                                 \
    ref_nfail = 0;                                                           \
    ref_nchecks = 0;                                                         \
    if (n_fail_ != 0) print_message("%d check(s) failed\n", n_fail_);       \
    assert_true(n_fail_ == 0);                                               \
  } while (0)

/* Abort the current test (not the program) if a call does not succeed. */
#define REQUIRE_OK(call)                                                     \
  do {                                                                       \
    int st_ = (call);                                                        \
    if (st_ != PLD_SUCCESS)                                                  \
      print_message("%s:%d: %s returned %d (%s)\n", __FILE__, __LINE__,      \
                    #call, st_, pld_strerror(st_));                          \
    assert_int_equal(st_, PLD_SUCCESS);                                      \
  } while (0)

/* Check a status code without aborting. */
#define EXPECT_STATUS(call, want)                                            \
  do {                                                                       \
    int st_ = (call);                                                        \
    EXPECT(st_ == (want), "%s returned %d (%s), expected %d (%s)", #call,   \
           st_, pld_strerror(st_), (int)(want), pld_strerror(want));        \
  } while (0)

/* ------------------------------------------------------------------------ */
/* Normal distribution in long double.                                        */

#define REF_SQRT2L 1.414213562373095048801688724209698079L
#define REF_LOG_SQRT_2PI_L 0.918938533204672741780329736405617639L

/* Phi(x) = P(N(0,1) <= x); relative accuracy ~1e-18 down to x ~ -106. */
static inline long double ref_Phi(long double x) {
  return 0.5L * erfcl(-x / REF_SQRT2L);
}

/* log Phi(x), accurate (absolute error ~1e-18 * max(1, x^2)) for every
 * finite x: erfcl where it does not underflow, the asymptotic (Mills ratio)
 * series  Phi(x) = phi(x)/(-x) * sum_n (-1)^n (2n-1)!! / x^(2n)  below -40
 * (12 terms: truncation error < 25!!/40^26 ~ 2e-29). */
static inline long double ref_logPhi(long double x) {
  if (isinf(x)) return x > 0 ? 0.0L : -INFINITY;
  if (x > 3.0L) return log1pl(-0.5L * erfcl(x / REF_SQRT2L));
  if (x > -40.0L) return logl(0.5L * erfcl(-x / REF_SQRT2L));
  long double x2 = x * x, term = 1.0L, sum = 1.0L;
  for (int n = 1; n <= 12; n++) {
    term *= -(long double)(2 * n - 1) / x2;
    sum += term;
  }
  return -0.5L * x2 - logl(-x) - REF_LOG_SQRT_2PI_L + logl(sum);
}

/* ------------------------------------------------------------------------ */
/* Gaussian mechanism N(0, s^2) vs N(1, s^2) (sensitivity folded into s):    */
/* with mu = 1/s,                                                            */
/*   delta(eps) = Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu)             */
/*              = Phi(a) * (1 - exp(eps + logPhi(b) - logPhi(a)))            */
/* evaluated in log space; valid for every real eps (and +-inf).             */

static inline long double ref_gauss_logdelta(long double mu, long double eps) {
  if (isinf(eps)) return eps > 0 ? -INFINITY : 0.0L;
  long double a = mu / 2 - eps / mu, b = -mu / 2 - eps / mu;
  long double la = ref_logPhi(a), lb = ref_logPhi(b);
  long double r = eps + lb - la;
  if (!(r < 0)) return -INFINITY; /* only through rounding, never in theory */
  return la + logl(-expm1l(r));
}

static inline long double ref_gauss_delta(long double mu, long double eps) {
  return expl(ref_gauss_logdelta(mu, eps));
}

/* ------------------------------------------------------------------------ */
/* Inversion: smallest eps >= 0 with f(eps) <= target for a non-increasing   */
/* f, by bracketing and bisection to full long-double precision.             */

typedef long double (*ref_curve_fn)(const void *ctx, long double eps);

static inline long double ref_invert(ref_curve_fn f, const void *ctx,
                                     long double target) {
  if (f(ctx, 0.0L) <= target) return 0.0L;
  long double lo = 0.0L, hi = 1.0L;
  while (f(ctx, hi) > target) {
    lo = hi;
    hi *= 2.0L;
    if (hi > 1e6L) return INFINITY;
  }
  for (int it = 0; it < 400; it++) {
    long double mid = 0.5L * (lo + hi);
    if (mid <= lo || mid >= hi) break;
    if (f(ctx, mid) > target)
      lo = mid;
    else
      hi = mid;
  }
  return hi;
}

static inline long double ref_gauss_delta_cb(const void *ctx, long double eps) {
  return ref_gauss_delta(*(const long double *)ctx, eps);
}

/* eps(delta) of the Gaussian with mu = sensitivity / sigma. */
static inline long double ref_gauss_epsilon(long double mu, long double delta) {
  return ref_invert(ref_gauss_delta_cb, &mu, delta);
}

/* ------------------------------------------------------------------------ */
/* Exact privacy-loss atoms of a finite pair, in one direction, and their    */
/* exact composition.  An atom is (loss, P mass, Q mass) where P is the      */
/* first distribution of the direction; atoms with P = 0 contribute nothing  */
/* to H(P||Q) and are dropped; Q = 0 gives loss = +inf.                      */

typedef struct ref_atom {
  long double loss;
  long double p;
  long double q;
} ref_atom;

typedef struct ref_atoms {
  size_t n;
  ref_atom *a;
} ref_atoms;

static inline int ref_atom_cmp(const void *x, const void *y) {
  long double a = ((const ref_atom *)x)->loss, b = ((const ref_atom *)y)->loss;
  return (a > b) - (a < b);
}

/* Sort and merge atoms whose losses agree within 1e-12 (absolute, or
 * relative for large losses); equal losses arise from sums taken in
 * different orders. */
static inline void ref_atoms_normalize(ref_atoms *s) {
  if (s->n == 0) return;
  qsort(s->a, s->n, sizeof *s->a, ref_atom_cmp);
  size_t w = 0;
  for (size_t i = 1; i < s->n; i++) {
    long double l0 = s->a[w].loss, l1 = s->a[i].loss;
    int same = (isinf(l0) && isinf(l1)) ||
               (!isinf(l0) && !isinf(l1) &&
                fabsl(l1 - l0) <= 1e-12L * fmaxl(1.0L, fabsl(l0)));
    if (same) {
      s->a[w].p += s->a[i].p;
      s->a[w].q += s->a[i].q;
    } else {
      s->a[++w] = s->a[i];
    }
  }
  s->n = w + 1;
}

/* Atoms of (p, q) (direction "p first"): loss log(p/q). */
static inline ref_atoms ref_atoms_from_pair(size_t n, const double *p,
                                            const double *q) {
  ref_atoms s;
  s.a = calloc(n ? n : 1, sizeof *s.a);
  assert_non_null(s.a);
  s.n = 0;
  for (size_t i = 0; i < n; i++) {
    if (!(p[i] > 0)) continue;
    ref_atom at;
    at.p = p[i];
    at.q = q[i];
    at.loss = q[i] > 0 ? logl((long double)p[i]) - logl((long double)q[i])
                       : (long double)INFINITY;
    s.a[s.n++] = at;
  }
  ref_atoms_normalize(&s);
  return s;
}

static inline void ref_atoms_free(ref_atoms *s) {
  free(s->a);
  s->a = NULL;
  s->n = 0;
}

/* Exact composition (product distributions): losses add, masses multiply. */
static inline ref_atoms ref_atoms_compose(const ref_atoms *x,
                                          const ref_atoms *y) {
  ref_atoms s;
  s.n = 0;
  s.a = calloc(x->n * y->n + 1, sizeof *s.a);
  assert_non_null(s.a);
  for (size_t i = 0; i < x->n; i++)
    for (size_t j = 0; j < y->n; j++) {
      ref_atom at;
      at.loss = x->a[i].loss + y->a[j].loss;
      at.p = x->a[i].p * y->a[j].p;
      at.q = x->a[i].q * y->a[j].q;
      s.a[s.n++] = at;
    }
  ref_atoms_normalize(&s);
  return s;
}

static inline ref_atoms ref_atoms_self_compose(const ref_atoms *x,
                                               unsigned T) {
  ref_atoms acc;
  acc.n = x->n;
  acc.a = malloc((x->n ? x->n : 1) * sizeof *acc.a);
  assert_non_null(acc.a);
  memcpy(acc.a, x->a, x->n * sizeof *acc.a);
  for (unsigned t = 1; t < T; t++) {
    ref_atoms next = ref_atoms_compose(&acc, x);
    ref_atoms_free(&acc);
    acc = next;
  }
  return acc;
}

/* H_{e^eps}(P||Q) = sum over atoms (P - e^eps Q)_+ ; eps = +inf gives the
 * mass at loss +inf.  Only atoms with loss > eps contribute. */
static inline long double ref_atoms_delta(const ref_atoms *s,
                                          long double eps) {
  long double d = 0.0L;
  if (isinf(eps) && eps > 0) {
    for (size_t i = 0; i < s->n; i++)
      if (isinf(s->a[i].loss)) d += s->a[i].p;
    return d;
  }
  long double e = expl(eps);
  for (size_t i = 0; i < s->n; i++) {
    if (!(s->a[i].loss > eps)) continue;
    if (isinf(s->a[i].loss)) { /* Q = 0 there (also when e^eps overflows) */
      d += s->a[i].p;
      continue;
    }
    long double t = s->a[i].p - e * s->a[i].q;
    if (t > 0) d += t;
  }
  return d;
}

/* Both directions, the worse one. */
typedef struct ref_pair_atoms {
  ref_atoms pq, qp;
} ref_pair_atoms;

static inline long double ref_pair_delta_cb(const void *ctx, long double eps) {
  const ref_pair_atoms *r = ctx;
  return fmaxl(ref_atoms_delta(&r->pq, eps), ref_atoms_delta(&r->qp, eps));
}

/* ------------------------------------------------------------------------ */
/* Bracket checks.                                                            */

/* Relative slack granted to the reference's own rounding. */
#define REF_ROUND 1e-15

/* lower <= exact <= upper, with 1e-15 relative slack for the reference. */
static inline int ref_brackets(pld_bound b, long double exact) {
  long double slack = REF_ROUND * fabsl(exact);
  if (isinf(exact)) return b.upper == INFINITY;
  return (long double)b.lower <= exact + slack &&
         (long double)b.upper >= exact - slack;
}

/* ------------------------------------------------------------------------ */
/* Checking a PLD's queries against an exact curve.                           */
/*                                                                            */
/* Guaranteed tolerance ("privacy buckets" bound).  Rounding every loss up    */
/* (down) to the grid moves each loss by at most Delta; the connect-the-dots  */
/* curve is exact at the grid points and monotone in between, so at T = 1    */
/*   delta(eps + Delta) <= lower(eps) <= exact(eps) <= upper(eps)             */
/*                      <= delta(eps - Delta),                                */
/* and composition keeps this with Delta replaced by T * Delta (a shift of   */
/* the loss by s composes into a shift by T s).  `shift` below is that       */
/* T * Delta; REF_BOOK_* below is the floating-point slack the library may */
/* book on top of it.  Optionally an empirical relative tolerance (stated by */
/* the caller) is checked as well.                                           */

/* Floating-point slack the library may book on top of the shift bound (its
 * views' rel_err/abs_err widen the bracket).  Measured booking: pessimistic
 * side rel <= 2e-8 and abs <= 8e-9 (randomized response, T = 20, 80k-point
 * grid); optimistic side rel up to 4e-5 (discrete Gaussian, T = 1).
 * Stated tolerance: */
#define REF_BOOK_REL_UP 1e-6 /* upper end, relative */
#define REF_BOOK_REL_LO 1e-4 /* lower end, relative */
#define REF_BOOK_ABS 1e-8    /* both ends, absolute (FFT round-off bounds) */

typedef struct ref_check {
  const char *name;     /* case description for messages */
  ref_curve_fn f;       /* exact delta(eps), worse direction, any real eps */
  const void *ctx;
  double shift;         /* T * Delta */
  double ref_slack;     /* relative error of f itself (>= REF_ROUND) */
  double ref_abs;       /* absolute error of f itself (rounding of atom
                           positions right at a kink; 0 for closed forms) */
  double delta_rel;     /* empirical: max(upper-ex, ex-lower) <= delta_rel*ex
                           + delta_abs (delta_rel = 0: not checked) */
  double delta_abs;
  double eps_rel;       /* empirical: eps bracket ends within
                           max(eps_rel * ex, eps_abs) (eps_rel = 0: not
                           checked) */
  double eps_abs;
  double lower_rel;     /* relative slack of the lower end's shift bound;
                           0 means REF_BOOK_REL_LO (a weaker optimistic
                           construction, e.g. for curves without tails, may
                           state a larger one) */
} ref_check;

static inline double ref_lower_rel(const ref_check *c) {
  return c->lower_rel > 0 ? c->lower_rel : REF_BOOK_REL_LO;
}

static double ref_worst_delta_rel, ref_worst_eps_abs;

static inline void ref_check_delta(const ref_check *c, const pld_dist *d,
                                   double eps) {
  pld_bound b = {-7, -7};
  int st = pld_dist_delta(d, eps, &b);
  EXPECT(st == PLD_SUCCESS, "%s: pld_dist_delta(%g) -> %d", c->name, eps, st);
  if (st != PLD_SUCCESS) return;
  long double ex = c->f(c->ctx, eps);
  long double sl = c->ref_slack * ex + c->ref_abs;
  EXPECT(b.lower >= 0 && b.upper <= 1 + 1e-12 && b.lower <= b.upper,
         "%s eps=%.17g: bracket [%.17g, %.17g] not within [0,1] or inverted",
         c->name, eps, b.lower, b.upper);
  EXPECT(b.lower <= ex + sl && b.upper >= ex - sl,
         "%s eps=%.17g: delta bracket [%.17g, %.17g] misses exact %.17Lg",
         c->name, eps, b.lower, b.upper, ex);
  if (isinf(eps)) return;
  long double hi = c->f(c->ctx, eps - c->shift);
  long double lo = c->f(c->ctx, eps + c->shift);
  EXPECT(b.upper <= hi * (1 + REF_BOOK_REL_UP + c->ref_slack) + REF_BOOK_ABS +
                        c->ref_abs,
         "%s eps=%.17g: upper %.17g above exact(eps - T*Delta) = %.17Lg "
         "(exact %.17Lg)", c->name, eps, b.upper, hi, ex);
  EXPECT(b.lower >= lo * (1 - ref_lower_rel(c) - c->ref_slack) - REF_BOOK_ABS -
                        c->ref_abs,
         "%s eps=%.17g: lower %.17g below exact(eps + T*Delta) = %.17Lg "
         "(exact %.17Lg)", c->name, eps, b.lower, lo, ex);
  if (c->delta_rel > 0) {
    double tol = c->delta_rel * (double)ex + c->delta_abs;
    EXPECT(b.upper - ex <= tol && ex - b.lower <= tol,
           "%s eps=%.17g: bracket [%.17g, %.17g] not within %.3g of exact "
           "%.17Lg", c->name, eps, b.lower, b.upper, tol, ex);
  }
  if (ex > 1e-9) {
    double r = (double)fmaxl(b.upper - ex, ex - b.lower) / (double)ex;
    if (r > ref_worst_delta_rel) ref_worst_delta_rel = r;
  }
}

typedef struct ref_shifted {
  ref_curve_fn f;
  const void *ctx;
  long double dshift, fac, add;
} ref_shifted;

static inline long double ref_shifted_cb(const void *ctx, long double eps) {
  const ref_shifted *s = ctx;
  return s->f(s->ctx, eps + s->dshift) * s->fac + s->add;
}

static inline void ref_check_epsilon(const ref_check *c, const pld_dist *d,
                                     double delta) {
  pld_bound b = {-7, -7};
  int st = pld_dist_epsilon(d, delta, &b);
  EXPECT(st == PLD_SUCCESS, "%s: pld_dist_epsilon(%g) -> %d", c->name, delta,
         st);
  if (st != PLD_SUCCESS) return;
  long double ex = ref_invert(c->f, c->ctx, delta);
  EXPECT(b.lower >= 0 && b.lower <= b.upper,
         "%s delta=%g: eps bracket [%.17g, %.17g] negative or inverted",
         c->name, delta, b.lower, b.upper);
  if (isinf(ex)) {
    EXPECT(b.upper == INFINITY,
           "%s delta=%g: exact eps is +inf, bracket [%.17g, %.17g]", c->name,
           delta, b.lower, b.upper);
    return;
  }
  /* the reference's own error, mapped to eps: evaluate the inverse of the
   * curve scaled by (1 -+ ref_slack) */
  ref_shifted s = {c->f, c->ctx, 0, 1 - c->ref_slack, -c->ref_abs};
  long double ex_lo = ref_invert(ref_shifted_cb, &s, delta);
  s.fac = 1 + c->ref_slack;
  s.add = c->ref_abs;
  long double ex_hi = ref_invert(ref_shifted_cb, &s, delta);
  EXPECT(b.lower <= ex_hi * (1 + REF_ROUND) &&
             b.upper >= ex_lo * (1 - REF_ROUND),
         "%s delta=%g: eps bracket [%.17g, %.17g] misses exact %.17Lg "
         "(reference range [%.17Lg, %.17Lg])", c->name, delta, b.lower,
         b.upper, ex, ex_lo, ex_hi);
  /* privacy-buckets bound: upper <= eps of exact(. - shift) + booked */
  s.dshift = -c->shift;
  s.fac = 1 + REF_BOOK_REL_UP + c->ref_slack;
  s.add = REF_BOOK_ABS + c->ref_abs;
  long double bnd_hi = ref_invert(ref_shifted_cb, &s, delta);
  s.dshift = c->shift;
  s.fac = 1 - ref_lower_rel(c) - c->ref_slack;
  s.add = -REF_BOOK_ABS - c->ref_abs;
  long double bnd_lo = ref_invert(ref_shifted_cb, &s, delta);
  EXPECT(b.upper <= bnd_hi * (1 + REF_ROUND),
         "%s delta=%g: upper eps %.17g above the T*Delta-shift bound %.17Lg "
         "(exact %.17Lg)", c->name, delta, b.upper, bnd_hi, ex);
  EXPECT(b.lower >= bnd_lo * (1 - REF_ROUND),
         "%s delta=%g: lower eps %.17g below the T*Delta-shift bound %.17Lg "
         "(exact %.17Lg)", c->name, delta, b.lower, bnd_lo, ex);
  if (c->eps_rel > 0) {
    double tol = fmax(c->eps_rel * (double)ex, c->eps_abs);
    EXPECT(b.upper - ex <= tol && ex - b.lower <= tol,
           "%s delta=%g: eps bracket [%.17g, %.17g] not within %.3g of exact "
           "%.17Lg", c->name, delta, b.lower, b.upper, tol, ex);
  }
  double r = (double)fmaxl(b.upper - ex, ex - b.lower);
  if (r > ref_worst_eps_abs) ref_worst_eps_abs = r;
}

static inline void ref_report_worst(void) {
  print_message("worst bracket half-width seen: delta %.3g (relative), "
                "eps %.3g (absolute)\n", ref_worst_delta_rel,
                ref_worst_eps_abs);
}

#endif
