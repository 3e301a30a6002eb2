/* Model merging ("DP model merging" paper): mixture RDP, LC surrogate,
 * baselines, mean estimation.  Every number is checked against a value
 * computed here independently: brute-force enumeration of Thm 6.2's sum,
 * closed forms, a long-double Simpson quadrature written in this file, or
 * pldkit's separately tested Poisson-Gaussian accountants. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include <cmocka.h>

#include <pldkit/merge.h>
#include <pldkit/pldkit.h>

#define RELCHK(a, b, tol)                                                  \
  do {                                                                     \
    double a_ = (a), b_ = (b);                                             \
    if (!(fabs(a_ - b_) <= (tol) * fabs(b_))) {                            \
      print_error("%s = %.15g vs %s = %.15g (rel %.3g > %.3g)\n", #a, a_, \
                  #b, b_, fabs(a_ - b_) / fabs(b_), (double)(tol));       \
      fail();                                                              \
    }                                                                      \
  } while (0)

/* ---------------------------------------------------------------------- */
/* Independent references.                                                 */

/* Thm 6.2 eq. (9), brute force: sum over all gamma in N^K with sum alpha of
 * alpha!/prod gamma_J! prod rho_J^gamma_J B(gamma), in long double log
 * space; D = log(sum)/(alpha-1).  dt = Delta_J / s. */
static long double brute_lse;
static void brute_rec(int K, int j, int left, int *g, const double *rho,
                      const double *dt, int alpha)
{
  if (j == K - 1) {
    g[j] = left;
    long double lt = lgammal(alpha + 1.0L), m = 0, sq = 0;
    for (int i = 0; i < K; i++) {
      lt -= lgammal(g[i] + 1.0L);
      if (g[i] > 0) lt += g[i] * logl((long double)rho[i]);
      m += g[i] * (long double)dt[i];
      sq += g[i] * (long double)dt[i] * dt[i];
    }
    lt += 0.5L * (m * m - sq);
    long double mx = fmaxl(brute_lse, lt);
    brute_lse = mx + logl(expl(brute_lse - mx) + expl(lt - mx));
    return;
  }
  for (int v = 0; v <= left; v++) {
    g[j] = v;
    brute_rec(K, j + 1, left - v, g, rho, dt, alpha);
  }
}
static double brute_thm62(int K, const double *rho, const double *dt,
                          int alpha)
{
  int g[64];
  brute_lse = -INFINITY;
  brute_rec(K, 0, alpha, g, rho, dt, alpha);
  return (double)(brute_lse / (alpha - 1));
}

/* D_alpha(A||B) = log(int a^alpha b^{1-alpha}) / (alpha - 1) for Gaussian
 * mixtures with per-component sd, composite Simpson in long double with
 * 100000 panels on [lo, hi] (the integrand is smooth and decays like a
 * Gaussian; the window is chosen in each test to hold all but a negligible
 * part, and the step is far below every width involved). */
static long double mix_pdf(int n, const double *w, const double *m,
                           const double *s, long double x)
{
  long double v = 0;
  for (int k = 0; k < n; k++) {
    long double z = (x - m[k]) / s[k];
    v += w[k] * expl(-0.5L * z * z) / (s[k] * sqrtl(2.0L * 3.14159265358979323846264L));
  }
  return v;
}
static double simpson_renyi(int na, const double *aw, const double *am,
                            const double *as, int nb, const double *bw,
                            const double *bm, const double *bs, double alpha,
                            double lo, double hi)
{
  const long n = 100000;
  long double h = ((long double)hi - lo) / n, sum = 0;
  for (long i = 0; i <= n; i++) {
    long double x = lo + h * i;
    long double a = mix_pdf(na, aw, am, as, x), b = mix_pdf(nb, bw, bm, bs, x);
    long double f = (a > 0 && b > 0) ? expl(alpha * logl(a) + (1 - alpha) * logl(b)) : 0;
    long double c = (i == 0 || i == n) ? 1 : (i % 2 ? 4 : 2);
    sum += c * f;
  }
  return (double)(logl(sum * h / 3) / (alpha - 1));
}

static pld_rdp_curve *curve_of(const double *orders, size_t n)
{
  pld_rdp_curve *c = NULL;
  assert_int_equal(pld_rdp_curve_alloc(n, orders, &c), PLD_SUCCESS);
  return c;
}

/* ---------------------------------------------------------------------- */
/* 1. Mixture RDP.                                                         */

/* Thm 6.2 for N = 2 against brute force (forward) and Simpson (reverse):
 * the library reports max of both directions. */
static void test_thm62_bruteforce(void **st)
{
  (void)st;
  const double cfg[2][5] = {{0.3, 0.2, 1.0, 0.7, 0.9},
                            {0.05, 0.1, 0.4, 0.25, 0.3}};
  const double orders[5] = {2, 3, 4, 5, 8};
  for (int c = 0; c < 2; c++) {
    double q1 = cfg[c][0], q2 = cfg[c][1], w1 = cfg[c][2], w2 = cfg[c][3];
    double s = cfg[c][4];
    /* subsets J = {}, {1}, {2}, {1,2} */
    double rho[4] = {(1 - q1) * (1 - q2), q1 * (1 - q2), (1 - q1) * q2, q1 * q2};
    double mean[4] = {0, w1, w2, w1 + w2};
    double dt[4];
    for (int j = 0; j < 4; j++) dt[j] = mean[j] / s;
    pld_rdp_curve *cv = curve_of(orders, 5);
    assert_int_equal(pld_rdp_add_mixture_gaussian(cv, s, 4, rho, mean, 1),
                     PLD_SUCCESS);
    const double *v = pld_rdp_curve_values(cv);
    double one = 1, zero = 0;
    double sds[4] = {s, s, s, s};
    for (int i = 0; i < 5; i++) {
      int a = (int)orders[i];
      double fwd = brute_thm62(4, rho, dt, a);
      /* the Simpson forward value checks the reference itself */
      double fwd_q = simpson_renyi(4, rho, mean, sds, 1, &one, &zero, &s, a,
                                   -30 * s, (a * (w1 + w2)) + 30 * s);
      RELCHK(fwd_q, fwd, 1e-9);
      double rev = simpson_renyi(1, &one, &zero, &s, 4, rho, mean, sds, a,
                                 -(a * (w1 + w2)) - 30 * s, 30 * s + w1 + w2);
      double ref = fmax(fwd, rev);
      RELCHK(v[i], ref, 1e-9);
      assert_true(v[i] >= ref * (1 - 1e-12)); /* upward, up to the refs' error */
    }
    pld_rdp_curve_free(cv);
  }
}

/* End to end through pld_merge_lc_rdp / pld_merge_lc_accountant for N = 2
 * runs: rho_J, Delta_J, s computed here from the paper's definitions
 * (before Thm 6.2), forward by brute force of eq. (9), reverse by Simpson;
 * the PLD against a mixture mechanism built here from the same pair. */
static void test_lc_n2_end_to_end(void **st)
{
  (void)st;
  pld_merge_run r[2] = {{0.3, 1.2, 1.5, 0.4, 3}, {0.2, 0.8, 1.0, 0.7, 3}};
  double lam[2] = {0.4, 0.6};
  double w1 = lam[0] * r[0].lr * r[0].clip, w2 = lam[1] * r[1].lr * r[1].clip;
  double e1 = w1 * r[0].sigma, e2 = w2 * r[1].sigma, s = sqrt(e1 * e1 + e2 * e2);
  double q1 = r[0].q, q2 = r[1].q;
  double rho[4] = {(1 - q1) * (1 - q2), q1 * (1 - q2), (1 - q1) * q2, q1 * q2};
  double mean[4] = {0, w1, w2, w1 + w2}, dt[4], sds[4] = {s, s, s, s};
  for (int j = 0; j < 4; j++) dt[j] = mean[j] / s;
  const double orders[5] = {2, 3, 4, 5, 8};
  pld_rdp_curve *cv = curve_of(orders, 5);
  assert_int_equal(pld_merge_lc_rdp(2, r, lam, cv), PLD_SUCCESS);
  double one = 1, zero = 0;
  for (int i = 0; i < 5; i++) {
    int a = (int)orders[i];
    double fwd = brute_thm62(4, rho, dt, a);
    double rev = simpson_renyi(1, &one, &zero, &s, 4, rho, mean, sds, a,
                               -(a * (w1 + w2)) - 30 * s, 30 * s + w1 + w2);
    print_message("N=2 alpha=%d: D(P||Q) %.10g  D(Q||P) %.10g\n", a, fwd, rev);
    RELCHK(pld_rdp_curve_values(cv)[i], 3 * fmax(fwd, rev), 1e-9);
  }
  pld_rdp_curve_free(cv);
  pld_accountant *lc = NULL, *ref = NULL;
  pld_mech *m = NULL;
  assert_int_equal(pld_merge_lc_accountant(2, r, lam, NULL, &lc), PLD_SUCCESS);
  assert_int_equal(pld_mech_mixture_gaussian(s, 4, rho, mean, 1, &one, &zero, &m), PLD_SUCCESS);
  assert_int_equal(pld_accountant_alloc(NULL, &ref), PLD_SUCCESS);
  assert_int_equal(pld_accountant_add(ref, m, 3), PLD_SUCCESS);
  pld_result x, y;
  assert_int_equal(pld_accountant_epsilon(lc, 1e-5, &x), PLD_SUCCESS);
  assert_int_equal(pld_accountant_epsilon(ref, 1e-5, &y), PLD_SUCCESS);
  assert_true(x.bound.lower <= y.bound.upper && y.bound.lower <= x.bound.upper);
  RELCHK(x.bound.upper, y.bound.upper, 3e-3);
  pld_mech_free(m);
  pld_accountant_free(lc);
  pld_accountant_free(ref);
}

/* One component: alpha Delta^2/(2 s^2) in both directions. */
static void test_single_component(void **st)
{
  (void)st;
  pld_rdp_curve *c = NULL;
  assert_int_equal(pld_rdp_curve_alloc_default(&c), PLD_SUCCESS);
  double w = 1, m = 1.3, s = 0.7;
  assert_int_equal(pld_rdp_add_mixture_gaussian(c, s, 1, &w, &m, 3),
                   PLD_SUCCESS);
  const double *o = pld_rdp_curve_orders(c), *v = pld_rdp_curve_values(c);
  for (size_t i = 0; i < pld_rdp_curve_size(c); i++) {
    double ref = 3 * o[i] * m * m / (2 * s * s);
    RELCHK(v[i], ref, 1e-9);
    assert_true(v[i] >= ref);
  }
  pld_rdp_curve_free(c);
}

/* N = 1 LC RDP equals the Poisson-subsampled Gaussian RDP (same divergence,
 * both directions): w = lambda eta C = 1, s = lambda eta sigma C = sigma. */
static void test_lc_rdp_n1(void **st)
{
  (void)st;
  const double qs[2] = {0.2, 256.0 / 60000.0};
  const double tol[2] = {1e-9, 1e-6};
  for (int t = 0; t < 2; t++) {
    pld_merge_run r = {qs[t], 1.0, 2.0, 0.5, 7};
    double lam = 1.0;
    pld_rdp_curve *a = NULL, *b = NULL;
    assert_int_equal(pld_rdp_curve_alloc_default(&a), PLD_SUCCESS);
    assert_int_equal(pld_rdp_curve_alloc_default(&b), PLD_SUCCESS);
    assert_int_equal(pld_merge_lc_rdp(1, &r, &lam, a), PLD_SUCCESS);
    assert_int_equal(pld_rdp_add_poisson_gaussian(b, qs[t], 1.0, 1.0, 7),
                     PLD_SUCCESS);
    const double *va = pld_rdp_curve_values(a), *vb = pld_rdp_curve_values(b);
    /* For the small q the quadrature's booked rounding margin (~1e-13
     * absolute on log I) is a visible fraction of D ~ 1e-6 at alpha near 1:
     * tolerance 1e-6 there; 1e-9 at q = 0.2. */
    double worst = 0;
    for (size_t i = 0; i < pld_rdp_curve_size(a); i++) {
      RELCHK(va[i], vb[i], tol[t]);
      worst = fmax(worst, fabs(va[i] - vb[i]) / vb[i]);
    }
    print_message("N=1 LC RDP vs Poisson-Gaussian, q=%g: max rel diff %.3g\n", qs[t], worst);
    pld_rdp_curve_free(a);
    pld_rdp_curve_free(b);
  }
}

/* ---------------------------------------------------------------------- */
/* 2. LC PLD.                                                               */

static void test_lc_pld_n1(void **st)
{
  (void)st;
  pld_merge_run r = {256.0 / 60000.0, 1.0, 2.0, 0.1, 705};
  double lam = 1.0;
  pld_accountant *lc = NULL, *ref = NULL;
  pld_mech *m = NULL;
  assert_int_equal(pld_merge_lc_accountant(1, &r, &lam, NULL, &lc), PLD_SUCCESS);
  assert_int_equal(pld_accountant_alloc(NULL, &ref), PLD_SUCCESS);
  assert_int_equal(pld_mech_poisson_gaussian(r.q, 1.0, 1.0, &m), PLD_SUCCESS);
  assert_int_equal(pld_accountant_add(ref, m, 705), PLD_SUCCESS);
  pld_result x, y;
  assert_int_equal(pld_accountant_epsilon(lc, 1e-5, &x), PLD_SUCCESS);
  assert_int_equal(pld_accountant_epsilon(ref, 1e-5, &y), PLD_SUCCESS);
  print_message("N=1 LC eps [%.6f, %.6f]  Poisson-Gaussian [%.6f, %.6f]\n",
                x.bound.lower, x.bound.upper, y.bound.lower, y.bound.upper);
  assert_true(x.bound.lower <= y.bound.upper && y.bound.lower <= x.bound.upper);
  RELCHK(x.bound.upper, y.bound.upper, 3e-3);
  pld_mech_free(m);
  pld_accountant_free(lc);
  pld_accountant_free(ref);
}

static const pld_merge_run MNIST[3] = {
    {256.0 / 60000.0, 0.5, 1.0, 0.1, 705},
    {256.0 / 60000.0, 0.5, 2.0, 0.1, 705},
    {256.0 / 60000.0, 2.0, 1.0, 0.1, 705}};

static const double LGRID[6][3] = {{1, 0, 0},       {0, 1, 0},
                                   {0, 0, 1},       {1.0 / 3, 1.0 / 3, 1.0 / 3},
                                   {0.5, 0.5, 0},   {0.2, 0.3, 0.5}};

/* LC <= joint release (Thm 6.1) in PLD and RDP; PLD < RDP for LC and RS. */
static void test_mnist(void **st)
{
  (void)st;
  const double delta = 1e-5;
  /* a 1% bracket keeps the test fast; every upper end stays certified */
  pld_params pp;
  pld_params_default(&pp);
  pp.accuracy = 1e-2;
  const pld_params *P = &pp;
  pld_accountant *joint = NULL;
  assert_int_equal(pld_merge_joint_accountant(3, MNIST, P, &joint), PLD_SUCCESS);
  pld_result jr;
  assert_int_equal(pld_accountant_epsilon(joint, delta, &jr), PLD_SUCCESS);
  pld_accountant_free(joint);
  pld_rdp_curve *jc = NULL;
  assert_int_equal(pld_rdp_curve_alloc_default(&jc), PLD_SUCCESS);
  assert_int_equal(pld_merge_joint_rdp(3, MNIST, jc), PLD_SUCCESS);
  pld_rdp_result jrr;
  assert_int_equal(pld_rdp_epsilon(jc, delta, PLD_RDP_BEST, &jrr), PLD_SUCCESS);
  print_message("joint: PLD eps [%.4f, %.4f], RDP eps %.4f\n", jr.bound.lower,
                jr.bound.upper, jrr.value);
  for (int g = 0; g < 6; g++) {
    const double *lam = LGRID[g];
    double lp, lr, rp, rr;
    assert_int_equal(pld_merge_epsilon(3, MNIST, lam, PLD_MERGE_LC_PLD, delta, P, &lp), PLD_SUCCESS);
    assert_int_equal(pld_merge_epsilon(3, MNIST, lam, PLD_MERGE_LC_RDP, delta, NULL, &lr), PLD_SUCCESS);
    assert_int_equal(pld_merge_epsilon(3, MNIST, lam, PLD_MERGE_RS_PLD, delta, P, &rp), PLD_SUCCESS);
    assert_int_equal(pld_merge_epsilon(3, MNIST, lam, PLD_MERGE_RS_RDP, delta, NULL, &rr), PLD_SUCCESS);
    print_message("lambda (%.3f %.3f %.3f): LC PLD %.4f RDP %.4f | RS PLD %.4f RDP %.4f\n",
                  lam[0], lam[1], lam[2], lp, lr, rp, rr);
    /* certified LC upper <= optimistic lower end of the joint release */
    assert_true(lp <= jr.bound.lower);
    assert_true(lr <= jrr.value);
    assert_true(lp < lr);
    assert_true(rp < rr);
    /* per order: LC RDP <= joint RDP */
    pld_rdp_curve *c = NULL;
    assert_int_equal(pld_rdp_curve_alloc_default(&c), PLD_SUCCESS);
    assert_int_equal(pld_merge_lc_rdp(3, MNIST, lam, c), PLD_SUCCESS);
    const double *v = pld_rdp_curve_values(c), *jv = pld_rdp_curve_values(jc);
    for (size_t i = 0; i < pld_rdp_curve_size(c); i++) assert_true(v[i] <= jv[i]);
    pld_rdp_curve_free(c);
  }
  pld_rdp_curve_free(jc);
}

/* Virtual steps: a run with lambda 0 drops out, and runs of different
 * lengths give at most n step types; with T = (10, 20) and lambda = (1, 0)
 * the LC RDP is 10 steps of run 0 alone. */
static void test_virtual_steps(void **st)
{
  (void)st;
  pld_merge_run r[2] = {{0.1, 1.0, 1.0, 1.0, 10}, {0.1, 1.0, 1.0, 1.0, 20}};
  double lam[2] = {1.0, 0.0};
  const double ord[3] = {2, 8, 32};
  pld_rdp_curve *a = curve_of(ord, 3), *b = curve_of(ord, 3);
  assert_int_equal(pld_merge_lc_rdp(2, r, lam, a), PLD_SUCCESS);
  assert_int_equal(pld_rdp_add_poisson_gaussian(b, 0.1, 1.0, 1.0, 10), PLD_SUCCESS);
  for (int i = 0; i < 3; i++)
    RELCHK(pld_rdp_curve_values(a)[i], pld_rdp_curve_values(b)[i], 1e-9);
  pld_rdp_curve_free(a);
  pld_rdp_curve_free(b);
  /* lambda = (0.5, 0.5), T = (10, 20): 10 joint steps, then 10 steps where
   * only run 1 is active, i.e. (w = 0.5, s = 0.5 sigma) = the
   * Poisson-Gaussian with noise multiplier sigma (Sec. 6.2). */
  pld_merge_run r2[2] = {{0.1, 1.0, 1.0, 1.0, 10}, {0.2, 1.5, 1.0, 1.0, 20}};
  pld_merge_run r10[2] = {{0.1, 1.0, 1.0, 1.0, 10}, {0.2, 1.5, 1.0, 1.0, 10}};
  double lh[2] = {0.5, 0.5};
  a = curve_of(ord, 3);
  b = curve_of(ord, 3);
  assert_int_equal(pld_merge_lc_rdp(2, r2, lh, a), PLD_SUCCESS);
  assert_int_equal(pld_merge_lc_rdp(2, r10, lh, b), PLD_SUCCESS);
  assert_int_equal(pld_rdp_add_poisson_gaussian(b, 0.2, 1.5, 1.0, 10), PLD_SUCCESS);
  for (int i = 0; i < 3; i++)
    RELCHK(pld_rdp_curve_values(a)[i], pld_rdp_curve_values(b)[i], 1e-9);
  pld_rdp_curve_free(a);
  pld_rdp_curve_free(b);
}

/* ---------------------------------------------------------------------- */
/* Per-step schedules (pld_merge_lc_schedule_*).                            */

/* eps(1e-5) bracket of an accountant (then freed). */
static pld_bound acc_eps(pld_accountant *a)
{
  pld_result r;
  assert_int_equal(pld_accountant_epsilon(a, 1e-5, &r), PLD_SUCCESS);
  pld_accountant_free(a);
  return r.bound;
}

/* Add `count` merge-lc steps (pld_merge_lc_step_mech) of runs r[0..n). */
static void add_step(pld_accountant *a, const pld_merge_run *r, size_t n,
                     const double *lam, uint64_t count)
{
  pld_mech *m = NULL;
  assert_int_equal(pld_merge_lc_step_mech(n, r, lam, &m), PLD_SUCCESS);
  assert_int_equal(pld_accountant_add(a, m, count), PLD_SUCCESS);
  pld_mech_free(m);
}

/* One phase per run is pld_merge_lc_accountant, bit for bit; so is a run
 * cut into equal phases (identical steps group into one event). */
static void test_schedule_plain(void **st)
{
  (void)st;
  pld_merge_run r[2] = {MNIST[0], MNIST[2]};
  r[1].steps = 400; /* virtual steps after run 1 ends */
  double lam[2] = {0.4, 0.6};
  pld_accountant *a = NULL, *b = NULL, *c = NULL;
  assert_int_equal(pld_merge_lc_accountant(2, r, lam, NULL, &a), PLD_SUCCESS);
  pld_merge_schedule s1[2] = {{&r[0], 1}, {&r[1], 1}};
  assert_int_equal(pld_merge_lc_schedule_accountant(2, s1, lam, NULL, &b),
                   PLD_SUCCESS);
  pld_merge_run p0[3] = {r[0], r[0], r[0]};
  p0[0].steps = 100;
  p0[1].steps = 450; /* a cut past run 1's end */
  p0[2].steps = 155;
  pld_merge_schedule s2[2] = {{p0, 3}, {&r[1], 1}};
  assert_int_equal(pld_merge_lc_schedule_accountant(2, s2, lam, NULL, &c),
                   PLD_SUCCESS);
  assert_int_equal(pld_accountant_size(c), 2); /* joint, then run 0 alone */
  pld_bound x = acc_eps(a), y = acc_eps(b), z = acc_eps(c);
  assert_true(x.upper == y.upper && x.lower == y.lower);
  assert_true(x.upper == z.upper && x.lower == z.lower);
  /* RDP alike */
  const double ord[3] = {2, 8, 32};
  pld_rdp_curve *u = curve_of(ord, 3), *v = curve_of(ord, 3);
  assert_int_equal(pld_merge_lc_rdp(2, r, lam, u), PLD_SUCCESS);
  assert_int_equal(pld_merge_lc_schedule_rdp(2, s2, lam, v), PLD_SUCCESS);
  for (int i = 0; i < 3; i++)
    RELCHK(pld_rdp_curve_values(v)[i], pld_rdp_curve_values(u)[i], 1e-14);
  pld_rdp_curve_free(u);
  pld_rdp_curve_free(v);
}

/* Phases that differ: a schedule is the composition of its pieces'
 * merge-lc steps (the catalogue's event), with phase boundaries that do not
 * line up across runs cut at their union; and one run whose lr and clip
 * vary but q and sigma stay is the Poisson-Gaussian of the total steps
 * (the pair is N(q-mixture of lr C, (lr sigma C)^2) vs N(0, .): scale-free,
 * so each step is PG(q, sigma) whatever lr and C), and one whose q and
 * sigma vary is the composition of the phases' Poisson-Gaussians. */
static void test_schedule_phases(void **st)
{
  (void)st;
  const double q = 256.0 / 60000.0;
  pld_merge_run a[2] = {{q, 0.8, 1.0, 0.1, 100}, {2 * q, 1.0, 0.5, 0.05, 200}};
  pld_merge_run b[2] = {{q, 1.5, 2.0, 0.1, 150}, {q, 2.0, 2.0, 0.02, 150}};
  double lam[2] = {0.3, 0.7};
  pld_merge_schedule s[2] = {{a, 2}, {b, 2}};
  pld_accountant *x = NULL, *y = NULL;
  assert_int_equal(pld_merge_lc_schedule_accountant(2, s, lam, NULL, &x),
                   PLD_SUCCESS);
  /* pieces: steps 1-100 (a0, b0), 101-150 (a1, b0), 151-300 (a1, b1) */
  assert_int_equal(pld_accountant_alloc(NULL, &y), PLD_SUCCESS);
  pld_merge_run p[2];
  p[0] = a[0], p[1] = b[0];
  add_step(y, p, 2, lam, 100);
  p[0] = a[1], p[1] = b[0];
  add_step(y, p, 2, lam, 50);
  p[0] = a[1], p[1] = b[1];
  add_step(y, p, 2, lam, 150);
  pld_bound bx = acc_eps(x), by = acc_eps(y);
  print_message("schedule eps [%.9g, %.9g], composed merge-lc [%.9g, %.9g]\n",
                bx.lower, bx.upper, by.lower, by.upper);
  assert_true(bx.upper == by.upper && bx.lower == by.lower);
  /* RDP: the pieces' sum */
  const double ord[3] = {2, 8, 32};
  pld_rdp_curve *u = curve_of(ord, 3), *v = curve_of(ord, 3);
  assert_int_equal(pld_merge_lc_schedule_rdp(2, s, lam, u), PLD_SUCCESS);
  pld_merge_run q3[3][2] = {{a[0], b[0]}, {a[1], b[0]}, {a[1], b[1]}};
  const uint64_t len[3] = {100, 50, 150};
  for (int k = 0; k < 3; k++) {
    q3[k][0].steps = q3[k][1].steps = len[k];
    assert_int_equal(pld_merge_lc_rdp(2, q3[k], lam, v), PLD_SUCCESS);
  }
  for (int i = 0; i < 3; i++)
    RELCHK(pld_rdp_curve_values(u)[i], pld_rdp_curve_values(v)[i], 1e-13);
  pld_rdp_curve_free(u);
  pld_rdp_curve_free(v);

  /* one run, lr and clip varying: PG(q, sigma) for all 600 steps */
  pld_merge_run one[3] = {{q, 1.1, 1.0, 0.1, 200},
                          {q, 1.1, 3.0, 0.01, 100},
                          {q, 1.1, 0.5, 1.0, 300}};
  pld_merge_schedule s1 = {one, 3};
  double l1 = 1.0;
  u = curve_of(ord, 3);
  v = curve_of(ord, 3);
  assert_int_equal(pld_merge_lc_schedule_rdp(1, &s1, &l1, u), PLD_SUCCESS);
  assert_int_equal(pld_rdp_add_poisson_gaussian(v, q, 1.1, 1.0, 600),
                   PLD_SUCCESS);
  /* tolerance 1e-6 at this small q: the mixture quadrature's booked
   * margin (test_lc_rdp_n1), here once per piece */
  for (int i = 0; i < 3; i++)
    RELCHK(pld_rdp_curve_values(u)[i], pld_rdp_curve_values(v)[i], 1e-6);
  pld_rdp_curve_free(u);
  pld_rdp_curve_free(v);
  /* one run, q and sigma varying: PG(q0, s0)^200 o PG(q1, s1)^400 */
  pld_merge_run two[2] = {{q, 0.9, 1.0, 0.1, 200}, {3 * q, 1.6, 1.0, 0.1, 400}};
  pld_merge_schedule s2 = {two, 2};
  pld_accountant *pg = NULL;
  pld_mech *m = NULL;
  assert_int_equal(pld_merge_lc_schedule_accountant(1, &s2, &l1, NULL, &x),
                   PLD_SUCCESS);
  assert_int_equal(pld_accountant_alloc(NULL, &pg), PLD_SUCCESS);
  assert_int_equal(pld_mech_poisson_gaussian(q, 0.9, 1.0, &m), PLD_SUCCESS);
  assert_int_equal(pld_accountant_add(pg, m, 200), PLD_SUCCESS);
  pld_mech_free(m);
  assert_int_equal(pld_mech_poisson_gaussian(3 * q, 1.6, 1.0, &m), PLD_SUCCESS);
  assert_int_equal(pld_accountant_add(pg, m, 400), PLD_SUCCESS);
  pld_mech_free(m);
  bx = acc_eps(x);
  by = acc_eps(pg);
  print_message("1-run 2-phase schedule eps [%.9g, %.9g], PG [%.9g, %.9g]\n",
                bx.lower, bx.upper, by.lower, by.upper);
  /* both bracket the same true epsilon, each to the default accuracy */
  assert_true(bx.lower <= by.upper && by.lower <= bx.upper);
  RELCHK(bx.upper, by.upper, 4e-3);
  u = curve_of(ord, 3);
  v = curve_of(ord, 3);
  assert_int_equal(pld_merge_lc_schedule_rdp(1, &s2, &l1, u), PLD_SUCCESS);
  assert_int_equal(pld_rdp_add_poisson_gaussian(v, q, 0.9, 1.0, 200),
                   PLD_SUCCESS);
  assert_int_equal(pld_rdp_add_poisson_gaussian(v, 3 * q, 1.6, 1.0, 400),
                   PLD_SUCCESS);
  for (int i = 0; i < 3; i++)
    RELCHK(pld_rdp_curve_values(u)[i], pld_rdp_curve_values(v)[i], 1e-6);
  pld_rdp_curve_free(u);
  pld_rdp_curve_free(v);
}

static void test_schedule_bad_input(void **st)
{
  (void)st;
  const double q = 0.01;
  pld_merge_run a[2] = {{q, 1.0, 1.0, 0.1, 10}, {q, 1.0, 1.0, 0.1, 10}};
  double lam[2] = {0.5, 0.5};
  pld_accountant *acc = (pld_accountant *)0x1;
  pld_rdp_curve *c = NULL;
  assert_int_equal(pld_rdp_curve_alloc_default(&c), PLD_SUCCESS);
  pld_merge_schedule s[2] = {{a, 2}, {a, 1}};
#define BOTH_EINVAL(S, N, L)                                                  \
  do {                                                                        \
    assert_int_equal(pld_merge_lc_schedule_accountant(N, S, L, NULL, &acc),   \
                     PLD_EINVAL);                                             \
    assert_int_equal(pld_merge_lc_schedule_rdp(N, S, L, c), PLD_EINVAL);      \
    assert_true(pld_error_detail()[0] != '\0');                               \
  } while (0)
  BOTH_EINVAL(NULL, 2, lam);
  BOTH_EINVAL(s, 0, lam);
  BOTH_EINVAL(s, 6, lam);
  s[1].n_phases = 0;
  BOTH_EINVAL(s, 2, lam);
  s[1].n_phases = PLD_MERGE_MAX_PHASES + 1;
  BOTH_EINVAL(s, 2, lam);
  s[1].n_phases = 1;
  s[1].phases = NULL;
  BOTH_EINVAL(s, 2, lam);
  s[1].phases = a;
  a[1].steps = 0;
  BOTH_EINVAL(s, 2, lam);
  a[1].steps = 10;
  a[1].q = 1.5;
  BOTH_EINVAL(s, 2, lam);
  a[1].q = q;
  a[1].steps = (1ull << 53) - 5; /* 10 + 2^53 - 5 > 2^53 */
  BOTH_EINVAL(s, 2, lam);
  a[1].steps = 10;
  double bad[2] = {0.5, 0.6};
  BOTH_EINVAL(s, 2, bad);
  assert_int_equal(pld_merge_lc_schedule_accountant(2, s, lam, NULL, NULL),
                   PLD_EINVAL);
  assert_int_equal(pld_merge_lc_schedule_rdp(2, s, lam, NULL), PLD_EINVAL);
#undef BOTH_EINVAL
  assert_true(acc == (pld_accountant *)0x1);
  for (size_t i = 0; i < pld_rdp_curve_size(c); i++)
    assert_true(pld_rdp_curve_values(c)[i] == 0.0);
  /* valid again */
  assert_int_equal(pld_merge_lc_schedule_accountant(2, s, lam, NULL, &acc),
                   PLD_SUCCESS);
  pld_accountant_free(acc);
  pld_rdp_curve_free(c);
}

/* ---------------------------------------------------------------------- */
/* 3. Mean estimation.                                                      */

static void test_mean_lc_exact(void **st)
{
  (void)st;
  double s1 = 1.5, s2 = 3.0, lam = 0.3, D = 0.8, slc;
  assert_int_equal(pld_merge_mean_sigma_lc(s1, s2, lam, &slc), PLD_SUCCESS);
  double ref = sqrt(lam * lam * s1 * s1 + (1 - lam) * (1 - lam) * s2 * s2);
  RELCHK(slc, ref, 1e-15);
  pld_rdp_curve *c = NULL;
  assert_int_equal(pld_rdp_curve_alloc_default(&c), PLD_SUCCESS);
  assert_int_equal(pld_rdp_add_gaussian(c, ref, D, 1), PLD_SUCCESS);
  const double *o = pld_rdp_curve_orders(c), *v = pld_rdp_curve_values(c);
  for (size_t i = 0; i < pld_rdp_curve_size(c); i++)
    RELCHK(v[i], o[i] * D * D / (2 * ref * ref), 1e-14);
  pld_rdp_curve_free(c);
  /* the LC mechanism is that Gaussian: delta at eps = 1 by Balle-Wang */
  pld_mech *m = NULL;
  assert_int_equal(pld_merge_mean_lc_mech(s1, s2, lam, D, &m), PLD_SUCCESS);
  double d, mu = D / ref;
  assert_int_equal(pld_mech_delta(m, PLD_DIR_PQ, 1.0, &d), PLD_SUCCESS);
  double bw = 0.5 * erfc(-(mu / 2 - 1 / mu) / sqrt(2.0)) -
              exp(1.0) * 0.5 * erfc(-(-mu / 2 - 1 / mu) / sqrt(2.0));
  RELCHK(d, bw, 1e-9);
  pld_mech_free(m);
}

/* RS exact mixture RDP vs a Simpson quadrature here; Thm 4.2 (RS > LC at
 * equal variance) in its regime (small Delta); docs/papers/merging.md counterexample at
 * Delta = 1, sigma = (2, 8), pi = 0.5 where RS is MORE private. */
static void test_mean_rs(void **st)
{
  (void)st;
  const double ord[3] = {2, 4, 8};
  /* small Delta: sigma = (1, 2), pi = 0.5: sigma_RS^2 = 2.5; lambda with
   * sigma_LC^2 = 2.5 is (8 - sqrt(34))/10. */
  double s1 = 1, s2 = 2, pi = 0.5, D = 0.05;
  double lam = (8 - sqrt(34.0)) / 10;
  double slc2 = lam * lam * s1 * s1 + (1 - lam) * (1 - lam) * s2 * s2;
  RELCHK(slc2, 2.5, 1e-12);
  pld_rdp_curve *c = curve_of(ord, 3);
  assert_int_equal(pld_merge_mean_rs_rdp(s1, s2, pi, D, c), PLD_SUCCESS);
  double w[2] = {pi, 1 - pi}, m0[2] = {0, 0}, m1[2] = {D, D}, sd[2] = {s1, s2};
  for (int i = 0; i < 3; i++) {
    double a = ord[i];
    double f = simpson_renyi(2, w, m0, sd, 2, w, m1, sd, a, -40, 40);
    double r = simpson_renyi(2, w, m1, sd, 2, w, m0, sd, a, -40, 40);
    double ref = fmax(f, r), v = pld_rdp_curve_values(c)[i];
    RELCHK(v, ref, 1e-7);
    double lc = a * D * D / (2 * slc2);
    print_message("Delta=0.05 alpha=%g: RS exact %.8g > LC %.8g\n", a, v, lc);
    assert_true(ref > lc * (1 + 1e-3)); /* the quadrature alone shows it */
  }
  pld_rdp_curve_free(c);

  /* docs/papers/merging.md: Delta = 1, sigma = (2, 8), pi = 0.5, equal variance (34):
   * lambda = (128 - sqrt(8224))/136.  Classic conversion at delta = 1e-5
   * reproduces the errata's LC 0.838 (continuous alpha: Delta/sigma sqrt(2 log
   * 1e5) + Delta^2/(2 sigma^2) = 0.8383); RS is smaller on the default grid. */
  pld_rdp_curve *rs = NULL, *lc = NULL;
  assert_int_equal(pld_rdp_curve_alloc_default(&rs), PLD_SUCCESS);
  assert_int_equal(pld_rdp_curve_alloc_default(&lc), PLD_SUCCESS);
  assert_int_equal(pld_merge_mean_rs_rdp(2, 8, 0.5, 1.0, rs), PLD_SUCCESS);
  assert_int_equal(pld_rdp_add_gaussian(lc, sqrt(34.0), 1.0, 1), PLD_SUCCESS);
  pld_rdp_result er, el;
  assert_int_equal(pld_rdp_epsilon(rs, 1e-5, PLD_RDP_CLASSIC, &er), PLD_SUCCESS);
  assert_int_equal(pld_rdp_epsilon(lc, 1e-5, PLD_RDP_CLASSIC, &el), PLD_SUCCESS);
  double lc_cont = sqrt(2 * log(1e5) / 34.0) + 1 / 68.0;
  print_message("errata case: RS RDP eps %.4f, LC RDP eps %.4f (continuous %.4f)\n",
                er.value, el.value, lc_cont);
  assert_true(el.value >= lc_cont && el.value <= lc_cont + 5e-3);
  assert_true(er.value < el.value - 0.1);
  /* the RS value cross-checked at its optimal order by Simpson */
  {
    double a = er.order;
    double w2[2] = {0.5, 0.5}, z[2] = {0, 0}, one[2] = {1, 1}, sd2[2] = {2, 8};
    double f = simpson_renyi(2, w2, z, sd2, 2, w2, one, sd2, a, -400, 400);
    double r = simpson_renyi(2, w2, one, sd2, 2, w2, z, sd2, a, -400, 400);
    RELCHK(rs ? pld_rdp_curve_values(rs)[er.index] : 0, fmax(f, r), 1e-6);
  }
  pld_rdp_curve_free(rs);
  pld_rdp_curve_free(lc);
}

/* int (a - e^eps b)_+ by Simpson in long double (kinks at the crossings
 * cost O(h^2) per kink: ~1e-9 absolute at h = 1e-3 here). */
static double simpson_hockey(int n, const double *aw, const double *am,
                             const double *as, const double *bw,
                             const double *bm, const double *bs, double eps,
                             double lo, double hi)
{
  const long N = 400000;
  long double h = ((long double)hi - lo) / N, sum = 0, x = expl((long double)eps);
  for (long i = 0; i <= N; i++) {
    long double y = lo + h * i;
    long double f = mix_pdf(n, aw, am, as, y) - x * mix_pdf(n, bw, bm, bs, y);
    if (f < 0) f = 0;
    sum += ((i == 0 || i == N) ? 1 : (i % 2 ? 4 : 2)) * f;
  }
  return (double)(sum * h / 3);
}

/* The general (unequal-sd) mixture PLD mechanism against Simpson, both
 * directions; then the the errata's PLD comparison at Delta = 1, sigma = (2,
 * 8), pi = 0.5, delta = 1e-5: RS (exact mixture) below LC at equal
 * variance (sigma_LC^2 = 34). */
static void test_mean_rs_pld(void **st)
{
  (void)st;
  pld_mech *m = NULL;
  assert_int_equal(pld_merge_mean_rs_mech(2, 8, 0.5, 1.0, &m), PLD_SUCCESS);
  double w[2] = {0.5, 0.5}, z[2] = {0, 0}, one[2] = {1, 1}, sd[2] = {2, 8};
  const double eps[4] = {-0.3, 0.0, 0.2, 0.5};
  for (int i = 0; i < 4; i++) {
    double dpq, dqp;
    assert_int_equal(pld_mech_delta(m, PLD_DIR_PQ, eps[i], &dpq), PLD_SUCCESS);
    assert_int_equal(pld_mech_delta(m, PLD_DIR_QP, eps[i], &dqp), PLD_SUCCESS);
    double rpq = simpson_hockey(2, w, z, sd, w, one, sd, eps[i], -200, 200);
    double rqp = simpson_hockey(2, w, one, sd, w, z, sd, eps[i], -200, 200);
    RELCHK(dpq, rpq, 1e-6);
    RELCHK(dqp, rqp, 1e-6);
  }
  /* pi = 0 and 1 (weight-0 components): the plain Gaussian of the chosen
   * run, delta(eps) = Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu). */
  for (int end = 0; end < 2; end++) {
    pld_mech *e = NULL;
    double s = end ? 2.0 : 8.0, mu = 1.0 / s;
    assert_int_equal(pld_merge_mean_rs_mech(2, 8, end ? 1.0 : 0.0, 1.0, &e),
                     PLD_SUCCESS);
    for (int i = 0; i < 4; i++) {
      double d;
      assert_int_equal(pld_mech_delta(e, PLD_DIR_PQ, eps[i], &d),
                       PLD_SUCCESS);
      double x = eps[i];
      double ref = 0.5 * erfc(-(mu / 2 - x / mu) / sqrt(2.0)) -
                   exp(x) * 0.5 * erfc(-(-mu / 2 - x / mu) / sqrt(2.0));
      RELCHK(d, ref, 1e-6);
    }
    pld_mech_free(e);
  }
  pld_accountant *rs = NULL, *lc = NULL;
  pld_mech *g = NULL;
  pld_params pp; /* 1% brackets: fast, upper ends still certified */
  pld_params_default(&pp);
  pp.accuracy = 1e-2;
  assert_int_equal(pld_accountant_alloc(&pp, &rs), PLD_SUCCESS);
  assert_int_equal(pld_accountant_add(rs, m, 1), PLD_SUCCESS);
  assert_int_equal(pld_accountant_alloc(&pp, &lc), PLD_SUCCESS);
  assert_int_equal(pld_merge_mean_lc_mech(2, 8, (128 - sqrt(8224.0)) / 136, 1.0, &g), PLD_SUCCESS);
  assert_int_equal(pld_accountant_add(lc, g, 1), PLD_SUCCESS);
  pld_result a, b;
  assert_int_equal(pld_accountant_epsilon(rs, 1e-5, &a), PLD_SUCCESS);
  assert_int_equal(pld_accountant_epsilon(lc, 1e-5, &b), PLD_SUCCESS);
  print_message("errata case PLD: RS eps [%.4f, %.4f], LC eps [%.4f, %.4f]\n",
                a.bound.lower, a.bound.upper, b.bound.lower, b.bound.upper);
  assert_true(a.bound.upper < b.bound.lower);
  /* the RS upper end is certified: delta at it (Simpson, both directions)
   * is <= 1e-5 up to the quadrature's accuracy */
  double e = a.bound.upper;
  double d1 = simpson_hockey(2, w, z, sd, w, one, sd, e, -200, 200);
  double d2 = simpson_hockey(2, w, one, sd, w, z, sd, e, -200, 200);
  assert_true(fmax(d1, d2) <= 1e-5 * (1 + 1e-4));
  pld_mech_free(m);
  pld_mech_free(g);
  pld_accountant_free(rs);
  pld_accountant_free(lc);
}

/* ---------------------------------------------------------------------- */
/* 4. Advanced composition, planner, bad input.                             */

static void test_advanced(void **st)
{
  (void)st;
  double e[4] = {0.3, 0.3, 0.3, 0.3}, d[4] = {1e-6, 1e-6, 1e-6, 1e-6};
  double eo, dout;
  assert_int_equal(pld_merge_advanced_composition(4, e, d, 1e-5, &eo, &dout), PLD_SUCCESS);
  double ref = 0.3 * sqrt(2 * 4 * log(1e5)) + 4 * 0.3 * (exp(0.3) - 1);
  RELCHK(eo, ref, 1e-14);
  assert_true(eo >= ref);
  RELCHK(dout, 4e-6 + 1e-5, 1e-14);
  double e2[2] = {0.1, 0.5}, d2[2] = {0, 0};
  assert_int_equal(pld_merge_advanced_composition(2, e2, d2, 1e-5, &eo, &dout), PLD_SUCCESS);
  ref = sqrt(2 * log(1e5) * 0.26) + 0.1 * expm1(0.1) + 0.5 * expm1(0.5);
  RELCHK(eo, ref, 1e-14);
  double sentinel = -7;
  e2[0] = NAN;
  assert_int_equal(pld_merge_advanced_composition(2, e2, d2, 1e-5, &sentinel, &dout), PLD_EINVAL);
  assert_true(sentinel == -7);
}

static void test_max_weight(void **st)
{
  (void)st;
  /* run 0 less private (sigma 0.8) than run 1 (sigma 2) */
  pld_merge_run r[2] = {{0.01, 0.8, 1, 0.1, 200}, {0.01, 2.0, 1, 0.1, 200}};
  double e1, target;
  double w10[2] = {0, 1}, w3[2] = {0.3, 0.7};
  assert_int_equal(pld_merge_epsilon(2, r, w10, PLD_MERGE_RS_RDP, 1e-5, NULL, &e1), PLD_SUCCESS);
  /* target = the certified eps at w0 = 0.3: the answer must be 0.3 up to
   * the bisection tolerance (eps is strictly increasing in w0 for RS). */
  assert_int_equal(pld_merge_epsilon(2, r, w3, PLD_MERGE_RS_RDP, 1e-5, NULL, &target), PLD_SUCCESS);
  double w;
  assert_int_equal(pld_merge_max_weight(r, PLD_MERGE_RS_RDP, target, 1e-5, NULL, &w), PLD_SUCCESS);
  print_message("max weight %.6f (expected 0.3)\n", w);
  assert_true(fabs(w - 0.3) <= 1e-4);
  double wt[2] = {w, 1 - w}, e, wt2[2] = {w + 2e-4, 1 - w - 2e-4};
  assert_int_equal(pld_merge_epsilon(2, r, wt, PLD_MERGE_RS_RDP, 1e-5, NULL, &e), PLD_SUCCESS);
  assert_true(e <= target);
  assert_int_equal(pld_merge_epsilon(2, r, wt2, PLD_MERGE_RS_RDP, 1e-5, NULL, &e), PLD_SUCCESS);
  assert_true(e > target);
  assert_int_equal(pld_merge_max_weight(r, PLD_MERGE_LC_RDP, e1 * 0.5, 1e-5, NULL, &w), PLD_SUCCESS);
  assert_true(w == -1.0);
}

static void test_bad_input(void **st)
{
  (void)st;
  pld_accountant *acc = (pld_accountant *)0x1;
  pld_merge_run r[6];
  for (int i = 0; i < 6; i++) r[i] = MNIST[0];
  double lam[6] = {0.5, 0.6, 0, 0, 0, 0};
  assert_int_equal(pld_merge_lc_accountant(2, r, lam, NULL, &acc), PLD_EINVAL);
  lam[1] = 0.5;
  assert_int_equal(pld_merge_lc_accountant(0, r, lam, NULL, &acc), PLD_EINVAL);
  double l6[6] = {1.0 / 6, 1.0 / 6, 1.0 / 6, 1.0 / 6, 1.0 / 6, 1.0 / 6};
  assert_int_equal(pld_merge_lc_accountant(6, r, l6, NULL, &acc), PLD_EINVAL);
  r[1].steps = 0;
  assert_int_equal(pld_merge_lc_accountant(2, r, lam, NULL, &acc), PLD_EINVAL);
  r[1] = MNIST[0];
  r[0].sigma = NAN;
  assert_int_equal(pld_merge_lc_accountant(2, r, lam, NULL, &acc), PLD_EINVAL);
  r[0] = MNIST[0];
  lam[0] = -0.5;
  lam[1] = 1.5;
  assert_int_equal(pld_merge_lc_accountant(2, r, lam, NULL, &acc), PLD_EINVAL);
  assert_true(acc == (pld_accountant *)0x1);
  /* RDP: the curve stays untouched */
  pld_rdp_curve *c = NULL;
  assert_int_equal(pld_rdp_curve_alloc_default(&c), PLD_SUCCESS);
  assert_int_equal(pld_merge_lc_rdp(2, r, lam, c), PLD_EINVAL);
  assert_int_equal(pld_merge_rs_rdp(2, r, lam, c), PLD_EINVAL);
  lam[0] = NAN;
  assert_int_equal(pld_merge_lc_rdp(2, r, lam, c), PLD_EINVAL);
  double w = 1, m = NAN;
  assert_int_equal(pld_rdp_add_mixture_gaussian(c, 1, 1, &w, &m, 1), PLD_EINVAL);
  m = 1;
  assert_int_equal(pld_rdp_add_mixture_gaussian(c, 0, 1, &w, &m, 1), PLD_EINVAL);
  assert_int_equal(pld_rdp_add_mixture_gaussian(c, 1, 1, &w, &m, 0), PLD_EINVAL);
  w = 0.5;
  assert_int_equal(pld_rdp_add_mixture_gaussian(c, 1, 1, &w, &m, 1), PLD_EINVAL);
  for (size_t i = 0; i < pld_rdp_curve_size(c); i++)
    assert_true(pld_rdp_curve_values(c)[i] == 0.0);
  pld_rdp_curve_free(c);
  double e = -3;
  assert_int_equal(pld_merge_epsilon(3, MNIST, LGRID[0], 99, 1e-5, NULL, &e), PLD_EINVAL);
  assert_int_equal(pld_merge_epsilon(3, MNIST, LGRID[0], PLD_MERGE_LC_RDP, 0, NULL, &e), PLD_EINVAL);
  assert_true(e == -3);
  pld_mech *mm = NULL;
  assert_int_equal(pld_merge_mean_lc_mech(1, 2, 1.5, 1, &mm), PLD_EINVAL);
  assert_null(mm);
}

/* Failing-allocator sweep (hooks exported by the library for tests): every
 * allocation point of the merge entry points ends in PLD_ENOMEM with the
 * outputs untouched (curve values still 0, pointer still the sentinel). */
void pld_test_fail_allocation(long n);
long pld_test_allocation_count(void);

static int sc_merge(void)
{
  static const double ord[2] = {2, 8};
  pld_rdp_curve *c = NULL;
  pld_accountant *acc = (pld_accountant *)0x5e17;
  pld_mech *m = (pld_mech *)0x5e17;
  double lam[3] = {0.2, 0.3, 0.5};
  int st = pld_rdp_curve_alloc(2, ord, &c);
  if (st) return st;
  if (!st) st = pld_merge_lc_rdp(3, MNIST, lam, c);
  if (!st) st = pld_merge_rs_rdp(3, MNIST, lam, c);
  if (!st) st = pld_merge_joint_rdp(3, MNIST, c);
  if (!st) st = pld_merge_mean_rs_rdp(1, 2, 0.5, 0.3, c);
  if (!st) {
    st = pld_merge_lc_accountant(3, MNIST, lam, NULL, &acc);
    if (st) assert_true(acc == (pld_accountant *)0x5e17);
    else pld_accountant_free(acc);
  }
  if (!st) {
    acc = (pld_accountant *)0x5e17;
    st = pld_merge_rs_accountant(3, MNIST, lam, NULL, &acc);
    if (st) assert_true(acc == (pld_accountant *)0x5e17);
    else pld_accountant_free(acc);
  }
  if (!st) {
    st = pld_merge_mean_rs_mech(1, 2, 0.5, 0.3, &m);
    if (st) assert_true(m == (pld_mech *)0x5e17);
    else pld_mech_free(m);
  }
  pld_rdp_curve_free(c);
  return st;
}

/* The first RDP call on a fresh curve: on failure the curve stays 0. */
static int sc_lc_rdp(void)
{
  static const double ord[2] = {2, 8};
  pld_rdp_curve *c = NULL;
  double lam[3] = {0.2, 0.3, 0.5};
  int st = pld_rdp_curve_alloc(2, ord, &c);
  if (st) return st;
  st = pld_merge_lc_rdp(3, MNIST, lam, c);
  if (st)
    for (int i = 0; i < 2; i++) assert_true(pld_rdp_curve_values(c)[i] == 0.0);
  pld_rdp_curve_free(c);
  return st;
}

static int sc_schedule(void)
{
  pld_merge_run a[2] = {MNIST[0], MNIST[2]};
  a[0].steps = 3;
  a[1].steps = 4;
  pld_merge_schedule s[2] = {{a, 2}, {&MNIST[1], 1}};
  double lam[2] = {0.5, 0.5};
  pld_accountant *acc = NULL;
  int st = pld_merge_lc_schedule_accountant(2, s, lam, NULL, &acc);
  pld_accountant_free(acc);
  if (st) return st;
  static const double ord[2] = {2, 8};
  pld_rdp_curve *c = NULL;
  st = pld_rdp_curve_alloc(2, ord, &c);
  if (st) return st;
  st = pld_merge_lc_schedule_rdp(2, s, lam, c);
  if (st)
    for (int i = 0; i < 2; i++) assert_true(pld_rdp_curve_values(c)[i] == 0.0);
  pld_rdp_curve_free(c);
  return st;
}

static void sweep(const char *name, int (*fn)(void))
{
  long i;
  for (i = 1; i < 100000; i++) {
    pld_test_fail_allocation(i);
    int st = fn();
    long used = pld_test_allocation_count();
    pld_test_fail_allocation(0);
    if (st == PLD_SUCCESS) {
      assert_true(used < i);
      break;
    }
    assert_int_equal(st, PLD_ENOMEM);
  }
  print_message("%s: %ld allocation points swept\n", name, i - 1);
}

static void test_alloc_sweep(void **st)
{
  (void)st;
  sweep("lc rdp", sc_lc_rdp);
  sweep("merge", sc_merge);
  sweep("schedule", sc_schedule);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_thm62_bruteforce),
      cmocka_unit_test(test_lc_n2_end_to_end),
      cmocka_unit_test(test_single_component),
      cmocka_unit_test(test_lc_rdp_n1),
      cmocka_unit_test(test_lc_pld_n1),
      cmocka_unit_test(test_virtual_steps),
      cmocka_unit_test(test_schedule_plain),
      cmocka_unit_test(test_schedule_phases),
      cmocka_unit_test(test_schedule_bad_input),
      cmocka_unit_test(test_mnist),
      cmocka_unit_test(test_mean_lc_exact),
      cmocka_unit_test(test_mean_rs),
      cmocka_unit_test(test_mean_rs_pld),
      cmocka_unit_test(test_advanced),
      cmocka_unit_test(test_max_weight),
      cmocka_unit_test(test_bad_input),
      cmocka_unit_test(test_alloc_sweep),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
