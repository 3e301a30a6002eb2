/* pldkit tests: huge counts (10^8 .. 2^53 runs), where the grid's booked
 * errors compound past use and the answer comes from the grid-free bounds
 * (basic and advanced composition, single runs, the composed loss's mean
 * and variance) and, through best.h, from RDP.
 *
 * The reference values are computed here from first principles in long
 * double, independently of the library:
 *  - the exact moment generating function K(l) = log E e^{l L} of one run's
 *    privacy loss (closed form for Laplace and binary losses, Simpson
 *    quadrature for the Poisson-subsampled Gaussian), from which
 *      truth_hi = min over l of (T K(l) + log(1/delta) + log c(l)) / l,
 *    c(l) = l^l / (1+l)^(1+l), is a rigorous upper bound on the true
 *    eps(delta) (Chernoff; the larger of the two directions), and
 *      truth_lo = T KL - a - t,   (1 - e^-t) a^2 / (T Var + a^2) > delta,
 *    a rigorous lower bound (Cantelli with the exact mean T KL and variance
 *    T Var, in the direction with the larger KL).  At these counts the two
 *    are within 0.1% of each other, so "lower <= truth_hi" checks the lower
 *    end against the truth and "upper >= truth_lo" the upper end;
 *  - the Gaussian closed form (ref.h) for the Poisson-Gaussian at q = 1;
 *  - randomized response's exact one-run delta.
 * Every check is two-sided: not past the truth, and not absurdly wide where
 * a tight bound exists (tolerances stated at each check).
 */
#include "ref.h"

#include <pldkit/best.h>

/* ---- references ---- */

/* One direction of one run: K(l) and its first two cumulants. */
typedef long double (*ref_K_fn)(const void *ctx, long double l);

typedef struct {
  ref_K_fn K;
  const void *ctx;
  long double kl, var; /* mean and variance of the loss */
} ref_dir;

/* Chernoff upper bound on eps(delta) of T runs, minimised over l on a
 * log grid (any l is valid; the grid only tightens). */
static long double chern_at(const ref_dir *d, long double T,
                            long double delta, long double u)
{
  long double l = powl(10.0L, u);
  long double lc = l * logl(l / (1.0L + l)) - log1pl(l);
  return (T * d->K(d->ctx, l) - logl(delta) + lc) / l;
}

static long double ref_chernoff_eps(const ref_dir *d, long double T,
                                    long double delta)
{
  /* a scan of log10 l over [-12, 2], then golden section around the best */
  const int n = 56;
  long double best = INFINITY, ub = 0.0L;
  for (int i = 0; i <= n; i++) {
    long double u = -12.0L + 14.0L * i / n, e = chern_at(d, T, delta, u);
    if (e < best) {
      best = e;
      ub = u;
    }
  }
  long double a = ub - 14.0L / n, b = ub + 14.0L / n, g = 0.6180339887L;
  long double x1 = b - g * (b - a), x2 = a + g * (b - a);
  long double f1 = chern_at(d, T, delta, x1), f2 = chern_at(d, T, delta, x2);
  for (int i = 0; i < 40; i++) {
    if (f1 < f2) {
      b = x2;
      x2 = x1;
      f2 = f1;
      x1 = b - g * (b - a);
      f1 = chern_at(d, T, delta, x1);
    } else {
      a = x1;
      x1 = x2;
      f1 = f2;
      x2 = a + g * (b - a);
      f2 = chern_at(d, T, delta, x2);
    }
  }
  return fminl(best, fminl(f1, f2));
}

/* Cantelli lower bound on eps(delta) of T runs from the exact mean and
 * variance. */
static long double ref_cantelli_eps(const ref_dir *d, long double T,
                                    long double delta)
{
  long double best = 0.0L, ES = T * d->kl, V = T * d->var;
  for (int i = 0; i <= 400; i++) {
    long double t = powl(10.0L, -6.0L + 8.0L * i / 400.0L);
    long double r = delta / -expm1l(-t);
    if (!(r < 0.5L))
      continue;
    long double a = sqrtl(V * r / (1.0L - r)) * (1.0L + 1e-6L);
    long double e = ES - a - t;
    if (e > best)
      best = e;
  }
  return best;
}

/* Laplace with a = s/b = 1 under P: L = 1 (y <= 0, mass 1/2), 1 - 2y on
 * (0, 1) (density e^{-y}/2), -1 (y >= 1, mass e^{-1}/2). */
static long double lap_K(const void *ctx, long double l)
{
  (void)ctx;
  long double m = 0.5L * expl(l) + 0.5L * expl(-1.0L - l) +
                  0.5L * expl(l) * -expm1l(-(1.0L + 2.0L * l)) / (1.0L + 2.0L * l);
  return logl(m);
}

/* E L^k of the Laplace loss (k = 1, 2) by Simpson on (0, 1) plus atoms. */
static long double lap_moment(int k)
{
  const int n = 20000;
  long double h = 1.0L / n, s = 0.0L;
  for (int i = 0; i <= n; i++) {
    long double y = i * h, L = 1.0L - 2.0L * y;
    long double f = 0.5L * expl(-y) * (k == 1 ? L : L * L);
    s += f * (i == 0 || i == n ? 1.0L : (i % 2 ? 4.0L : 2.0L));
  }
  s *= h / 3.0L;
  long double atoms = k == 1 ? 0.5L - 0.5L * expl(-1.0L)
                             : 0.5L + 0.5L * expl(-1.0L);
  return atoms + s;
}

/* Binary loss: +a with probability p, -a otherwise (discrete Laplace with
 * sensitivity 1: p = 1/(1 + e^{-a}), a = 1/scale). */
typedef struct {
  long double a, p;
} bin_ctx;

static long double bin_K(const void *ctx, long double l)
{
  const bin_ctx *b = ctx;
  return logl(b->p * expl(l * b->a) + (1.0L - b->p) * expl(-l * b->a));
}

/* Poisson-subsampled Gaussian, mu = 1/sigma, rate q; dir 0: L = log(1 - q
 * + q e^{mu x - mu^2/2}) under P = (1-q) phi(x) + q phi(x - mu); dir 1: -L
 * under phi.  Simpson on [-40, 40 + (1 + l) mu] in x. */
typedef struct {
  long double q, mu;
  int dir;
} pg_ctx;

static long double pg_L(const pg_ctx *c, long double x)
{
  return log1pl(c->q * expm1l(c->mu * x - 0.5L * c->mu * c->mu));
}

static long double pg_phi(long double x)
{
  return expl(-0.5L * x * x - REF_LOG_SQRT_2PI_L);
}

/* E_Q[(P/Q)^{1+l}] (dir 0) or E_P[(Q/P)^{1+l}] = E_Q[(P/Q)^{-l}] (dir 1),
 * or the k-th moment of the loss when k > 0 (then l is ignored). */
static long double pg_integral(const pg_ctx *c, long double l, int k)
{
  long double lo = -40.0L, hi = 40.0L + (2.0L + l) * c->mu;
  const int n = 24000;
  long double h = (hi - lo) / n, s = 0.0L;
  for (int i = 0; i <= n; i++) {
    long double x = lo + i * h, L = pg_L(c, x), f;
    if (k == 0)
      f = pg_phi(x) * expl((c->dir == 0 ? 1.0L + l : -l) * L);
    else if (c->dir == 0) /* under P = phi(x) e^L */
      f = pg_phi(x) * expl(L) * (k == 1 ? L : L * L);
    else /* -L under phi */
      f = pg_phi(x) * (k == 1 ? -L : L * L);
    s += f * (i == 0 || i == n ? 1.0L : (i % 2 ? 4.0L : 2.0L));
  }
  return s * h / 3.0L;
}

static long double pg_K(const void *ctx, long double l)
{
  return logl(pg_integral(ctx, l, 0));
}

static void pg_dirs(long double q, long double sigma, pg_ctx c[2],
                    ref_dir d[2])
{
  for (int k = 0; k < 2; k++) {
    c[k].q = q;
    c[k].mu = 1.0L / sigma;
    c[k].dir = k;
    d[k].K = pg_K;
    d[k].ctx = &c[k];
    d[k].kl = pg_integral(&c[k], 0.0L, 1);
    d[k].var = pg_integral(&c[k], 0.0L, 2) - d[k].kl * d[k].kl;
  }
}

/* [truth_lo, truth_hi] of eps(delta) over two directions (the same for a
 * symmetric mechanism). */
static void sandwich(const ref_dir d[2], long double T, long double delta,
                     long double *lo, long double *hi)
{
  *lo = fmaxl(ref_cantelli_eps(&d[0], T, delta),
              ref_cantelli_eps(&d[1], T, delta));
  *hi = fmaxl(ref_chernoff_eps(&d[0], T, delta),
              ref_chernoff_eps(&d[1], T, delta));
}

/* Quadrature and the Chernoff minimisation are accurate far beyond this. */
#define REF_Q 1e-9

static pld_accountant *one_event(const pld_mech *m, uint64_t count)
{
  pld_accountant *a = NULL;
  REQUIRE_OK(pld_accountant_alloc(NULL, &a));
  REQUIRE_OK(pld_accountant_add(a, m, count));
  return a;
}

/* ---- tests ---- */

/* The measured failure: 10^12 DP-SGD steps gave eps in [inf, inf] with
 * met_accuracy set (a lower end above the truth); RDP certifies 9.24e7. */
static void test_poisson_gaussian_1e12(void **state)
{
  (void)state;
  const double q = 0.01, sigma = 1.0, delta = 1e-5;
  const uint64_t T = 1000000000000ULL;
  pg_ctx c[2];
  ref_dir d[2];
  pg_dirs(q, sigma, c, d);
  long double lo, hi;
  sandwich(d, (long double)T, delta, &lo, &hi);
  print_message("PG 1e12: KL %.10Lg / %.10Lg, truth in [%.10Lg, %.10Lg]\n",
                d[0].kl, d[1].kl, lo, hi);
  EXPECT(hi <= lo * 1.001L, "reference sandwich too wide: [%Lg, %Lg]", lo, hi);

  pld_mech *m = NULL;
  REQUIRE_OK(pld_mech_poisson_gaussian(q, sigma, 1.0, &m));
  pld_accountant *a = one_event(m, T);
  pld_result r;
  REQUIRE_OK(pld_accountant_epsilon(a, delta, &r));
  print_message("  library: [%.10g, %.10g] kinds %s / %s, met %d\n",
                r.bound.lower, r.bound.upper,
                pld_bound_kind_name(r.lower_kind),
                pld_bound_kind_name(r.bound_kind), r.met_accuracy);
  /* lower: at or below the truth, and within 1% of it (the mean and
   * variance bound; a single run would give 0.2) */
  EXPECT(r.bound.lower <= hi * (1 + REF_Q), "lower %.17g above truth <= %.17Lg",
         r.bound.lower, hi);
  EXPECT(r.bound.lower >= 0.99L * lo, "lower %.17g not within 1%% of %.17Lg",
         r.bound.lower, lo);
  EXPECT(r.lower_kind == PLD_BOUND_MOMENTS, "lower kind %d", r.lower_kind);
  /* upper: certified and finite without RDP (basic/advanced composition,
   * or the grid-free inversion, design.md §16, whose error does not
   * compound over the runs: 8.52e7 here) */
  EXPECT(isfinite(r.bound.upper) && r.bound.upper >= lo * (1 - REF_Q),
         "upper %.17g (truth >= %.17Lg)", r.bound.upper, lo);
  EXPECT(r.bound_kind == PLD_BOUND_BASIC || r.bound_kind == PLD_BOUND_ADVANCED ||
             r.bound_kind == PLD_BOUND_INVERSION,
         "upper kind %d", r.bound_kind);
  EXPECT(!r.met_accuracy, "met_accuracy set on a %.3g-wide bracket",
         r.bound.upper / r.bound.lower);

  /* with the events' RDP (best.h): within 15% of the truth */
  pld_rdp_curve *cv = NULL;
  REQUIRE_OK(pld_rdp_curve_alloc_default(&cv));
  REQUIRE_OK(pld_rdp_add_poisson_gaussian(cv, q, sigma, 1.0, T));
  pld_result rb;
  REQUIRE_OK(pld_best_epsilon(a, cv, delta, &rb));
  print_message("  best: [%.10g, %.10g] kinds %s / %s\n", rb.bound.lower,
                rb.bound.upper, pld_bound_kind_name(rb.lower_kind),
                pld_bound_kind_name(rb.bound_kind));
  EXPECT(rb.bound.upper >= lo * (1 - REF_Q) && rb.bound.upper <= 1.15L * hi,
         "best upper %.17g vs truth in [%.17Lg, %.17Lg]", rb.bound.upper, lo,
         hi);
  EXPECT(rb.bound_kind == PLD_BOUND_RDP ||
             (rb.bound_kind == PLD_BOUND_INVERSION &&
              rb.bound.upper == r.bound.upper),
         "best upper kind %d", rb.bound_kind);
  EXPECT(rb.bound.lower == r.bound.lower, "best lower %.17g vs %.17g",
         rb.bound.lower, r.bound.lower);

  /* delta at an eps 1% below T KL: the truth is essentially 1 (the
   * composed loss's spread is 1.3e4 nats, 0.02% of T KL) */
  long double e9 = 0.99L * (long double)T * d[0].kl;
  REQUIRE_OK(pld_accountant_delta(a, (double)e9, &r));
  EXPECT(r.bound.lower >= 0.99 && r.bound.upper == 1.0,
         "delta(%.6Lg) in [%.17g, %.17g], truth ~1", e9, r.bound.lower,
         r.bound.upper);
  pld_rdp_curve_free(cv);
  pld_accountant_free(a);
  pld_mech_free(m);
  EXPECT_DONE();
}

/* Poisson-Gaussian at q = 1 is the Gaussian with mu = sqrt(T)/sigma: the
 * grid path (it is not merged as a Gaussian) checked against the closed
 * form, at a count where the grid still composes (2^36: its booked relative
 * error is about e^2.7, so its upper end certifies nothing) and at 10^12
 * (no grid). */
static void test_gaussian_in_disguise(void **state)
{
  (void)state;
  const double delta = 1e-5;
  const struct {
    uint64_t T;
    double sigma;
  } cs[2] = {{(uint64_t)1 << 36, 131072.0}, {1000000000000ULL, 200000.0}};
  for (int k = 0; k < 2; k++) {
    long double mu = sqrtl((long double)cs[k].T) / cs[k].sigma;
    long double ex = ref_gauss_epsilon(mu, delta);
    pld_mech *m = NULL;
    REQUIRE_OK(pld_mech_poisson_gaussian(1.0, cs[k].sigma, 1.0, &m));
    pld_accountant *a = one_event(m, cs[k].T);
    pld_result r;
    REQUIRE_OK(pld_accountant_epsilon(a, delta, &r));
    print_message("q=1, T=%llu, mu=%.3Lg: exact %.10Lg, library [%.10g, "
                  "%.10g] (%s / %s)\n", (unsigned long long)cs[k].T, mu, ex,
                  r.bound.lower, r.bound.upper,
                  pld_bound_kind_name(r.lower_kind),
                  pld_bound_kind_name(r.bound_kind));
    EXPECT(r.bound.lower <= ex * (1 + 1e-12) && ex <= r.bound.upper,
           "T=%llu: [%.17g, %.17g] misses exact %.17Lg",
           (unsigned long long)cs[k].T, r.bound.lower, r.bound.upper, ex);
    EXPECT(isfinite(r.bound.upper), "no finite upper end");
    if (k == 0) { /* the grid runs here (seconds): one query is enough */
      pld_accountant_free(a);
      pld_mech_free(m);
      continue;
    }
    pld_rdp_curve *cv = NULL;
    REQUIRE_OK(pld_rdp_curve_alloc_default(&cv));
    REQUIRE_OK(pld_rdp_add_poisson_gaussian(cv, 1.0, cs[k].sigma, 1.0,
                                            cs[k].T));
    pld_result rb;
    REQUIRE_OK(pld_best_epsilon(a, cv, delta, &rb));
    /* RDP of a Gaussian: within 20% of the exact epsilon at mu ~ 2..5 */
    EXPECT(rb.bound.upper >= ex && rb.bound.upper <= 1.2L * ex,
           "best upper %.17g vs exact %.17Lg", rb.bound.upper, ex);
    /* delta at the exact eps is delta; a curve at three points brackets
     * the closed form there too */
    REQUIRE_OK(pld_accountant_delta(a, (double)ex, &r));
    EXPECT(r.bound.lower <= delta * (1 + 1e-9) && delta <= r.bound.upper,
           "delta(%.17Lg) in [%.17g, %.17g], exact 1e-5", ex, r.bound.lower,
           r.bound.upper);
    double es[3] = {0.0, 0.5 * (double)ex, 2.0 * (double)ex};
    pld_bound cb[3];
    REQUIRE_OK(pld_accountant_curve(a, 3, es, cb, NULL));
    for (int i = 0; i < 3; i++) {
      long double dv = ref_gauss_delta(mu, es[i]);
      EXPECT(cb[i].lower <= dv * (1 + 1e-9) && dv <= cb[i].upper * (1 + 1e-12),
             "curve at %g: [%.17g, %.17g], exact %.17Lg", es[i], cb[i].lower,
             cb[i].upper, dv);
    }
    pld_rdp_curve_free(cv);
    pld_accountant_free(a);
    pld_mech_free(m);
  }
  EXPECT_DONE();
}

/* Laplace b = 1, 10^8 runs: the grid's FFT floor was above delta (upper
 * inf); basic composition certifies k/b = 1e8, the exact moments
 * sandwich the truth near e^{-1} 1e8. */
static void test_laplace_1e8(void **state)
{
  (void)state;
  const double delta = 1e-5;
  const uint64_t T = 100000000ULL;
  ref_dir d[2];
  d[0].K = lap_K;
  d[0].ctx = NULL;
  d[0].kl = lap_moment(1);
  d[0].var = lap_moment(2) - d[0].kl * d[0].kl;
  d[1] = d[0];
  EXPECT(fabsl(d[0].kl - expl(-1.0L)) < 1e-15L, "KL %.20Lg != e^-1", d[0].kl);
  long double lo, hi;
  sandwich(d, (long double)T, delta, &lo, &hi);
  print_message("Laplace 1e8: truth in [%.10Lg, %.10Lg]\n", lo, hi);
  pld_mech *m = NULL;
  REQUIRE_OK(pld_mech_laplace(1.0, 1.0, &m));
  pld_accountant *a = one_event(m, T);
  pld_result r;
  REQUIRE_OK(pld_accountant_epsilon(a, delta, &r));
  print_message("  library: [%.10g, %.10g] (%s / %s)\n", r.bound.lower,
                r.bound.upper, pld_bound_kind_name(r.lower_kind),
                pld_bound_kind_name(r.bound_kind));
  EXPECT(r.bound.lower <= hi * (1 + REF_Q) && r.bound.lower >= 0.99L * lo,
         "lower %.17g vs truth in [%.17Lg, %.17Lg]", r.bound.lower, lo, hi);
  EXPECT(r.bound.upper >= lo * (1 - REF_Q) && r.bound.upper <= 1.05L * hi &&
             r.bound.upper <= 1e8,
         "upper %.17g vs truth in [%.17Lg, %.17Lg] (basic: 1e8)",
         r.bound.upper, lo, hi);
  pld_accountant_free(a);
  pld_mech_free(m);
  EXPECT_DONE();
}

/* Randomized response over 10^12 values: one run is (0, (e-1)/(e+k-1))-DP,
 * (e - 1)/(e + k - 1) = 1.7e-12, so eps(1e-5) = 0 exactly (it gave
 * [0, inf] after 3 s); 10^6 runs are (0, 1.7e-6)-DP by a union bound. */
static void test_rr_huge_k(void **state)
{
  (void)state;
  const int64_t k = 1000000000000LL;
  long double e1 = expl(1.0L), d0 = (e1 - 1.0L) / (e1 + (long double)k - 1.0L);
  pld_mech *m = NULL;
  REQUIRE_OK(pld_mech_randomized_response(1.0, k, &m));
  const uint64_t counts[2] = {1, 1000000};
  for (int i = 0; i < 2; i++) {
    pld_accountant *a = one_event(m, counts[i]);
    pld_result r;
    REQUIRE_OK(pld_accountant_epsilon(a, 1e-5, &r));
    /* (the grid on the loss lattice is exact up to its last-ulp rounding
     * of the upper end, 1e-300) */
    EXPECT(r.bound.lower == 0.0 && r.bound.upper <= 1e-300 && r.met_accuracy,
           "count %llu: eps(1e-5) in [%g, %g], exact 0",
           (unsigned long long)counts[i], r.bound.lower, r.bound.upper);
    pld_accountant_free(a);
  }
  pld_accountant *a = one_event(m, 1);
  pld_result r;
  REQUIRE_OK(pld_accountant_delta(a, 0.0, &r));
  /* (the mass-1 atom's snap is booked absolutely, a few u, design.md
   * §10.2: a few 1e-4 of this delta; the default accuracy holds) */
  EXPECT(r.bound.lower <= d0 && d0 <= r.bound.upper &&
             r.bound.upper <= d0 * (1 + 2e-3L),
         "delta(0) in [%.17g, %.17g], exact %.17Lg", r.bound.lower,
         r.bound.upper, d0);
  pld_accountant_free(a);
  pld_mech_free(m);
  EXPECT_DONE();
}

/* 2^53 runs, the documented maximum, answered (it gave PLD_EINVAL): the
 * discrete Laplace (a binary loss +-1/scale) against its exact moments,
 * the others for a finite, ordered bracket. */
static void test_count_2_53(void **state)
{
  (void)state;
  const uint64_t T = (uint64_t)1 << 53;
  const double delta = 1e-5;
  pld_mech *m = NULL;
  REQUIRE_OK(pld_mech_discrete_laplace(1.0, 1, &m));
  bin_ctx bc = {1.0L, 1.0L / (1.0L + expl(-1.0L))};
  ref_dir d[2];
  d[0].K = bin_K;
  d[0].ctx = &bc;
  d[0].kl = (2.0L * bc.p - 1.0L) * bc.a;
  d[0].var = 4.0L * bc.p * (1.0L - bc.p) * bc.a * bc.a;
  d[1] = d[0];
  long double lo, hi;
  sandwich(d, (long double)T, delta, &lo, &hi);
  pld_accountant *a = one_event(m, T);
  pld_result r;
  REQUIRE_OK(pld_accountant_epsilon(a, delta, &r));
  print_message("discrete Laplace 2^53: truth in [%.15Lg, %.15Lg], library "
                "[%.15g, %.15g]\n", lo, hi, r.bound.lower, r.bound.upper);
  EXPECT(r.bound.lower <= hi * (1 + REF_Q) && r.bound.lower >= lo * (1 - 1e-6L),
         "lower %.17g vs truth in [%.17Lg, %.17Lg]", r.bound.lower, lo, hi);
  EXPECT(r.bound.upper >= lo * (1 - REF_Q) && r.bound.upper <= hi * (1 + 1e-6L),
         "upper %.17g vs truth in [%.17Lg, %.17Lg]", r.bound.upper, lo, hi);
  pld_accountant_free(a);
  pld_mech_free(m);

  /* Poisson-Gaussian and Laplace: finite and ordered, lower not above the
   * count times KL plus the Chernoff slack */
  pld_mech *pg = NULL, *lp = NULL;
  REQUIRE_OK(pld_mech_poisson_gaussian(0.01, 1.0, 1.0, &pg));
  REQUIRE_OK(pld_mech_laplace(1.0, 1.0, &lp));
  pld_mech *ms[2] = {pg, lp};
  for (int i = 0; i < 2; i++) {
    a = one_event(ms[i], T);
    REQUIRE_OK(pld_accountant_epsilon(a, delta, &r));
    EXPECT(0.0 < r.bound.lower && r.bound.lower <= r.bound.upper &&
               isfinite(r.bound.upper),
           "event %d at 2^53: [%.17g, %.17g]", i, r.bound.lower,
           r.bound.upper);
    REQUIRE_OK(pld_accountant_delta(a, 1.0, &r));
    EXPECT(r.bound.lower <= r.bound.upper && r.bound.upper <= 1.0 &&
               r.bound.lower > 0.99,
           "event %d at 2^53: delta(1) in [%.17g, %.17g], truth ~1", i,
           r.bound.lower, r.bound.upper);
    pld_accountant_free(a);
  }
  /* ... and one more run is refused */
  REQUIRE_OK(pld_accountant_alloc(NULL, &a));
  EXPECT_STATUS(pld_accountant_add(a, lp, T + 1), PLD_EINVAL);
  pld_accountant_free(a);
  pld_mech_free(pg);
  pld_mech_free(lp);
  EXPECT_DONE();
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_poisson_gaussian_1e12),
      cmocka_unit_test(test_gaussian_in_disguise),
      cmocka_unit_test(test_laplace_1e8),
      cmocka_unit_test(test_rr_huge_k),
      cmocka_unit_test(test_count_2_53),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
