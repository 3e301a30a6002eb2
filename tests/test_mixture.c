/* Gaussian mixture pairs and sampling without replacement, against
 * quadrature of the hockey-stick integral done here (composite Simpson in
 * long double on a fine grid) and against the closed-form Gaussian. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include <cmocka.h>

#include <pldkit/pldkit.h>

static long double phi_l(long double y) { return expl(-0.5L * y * y) / sqrtl(2.0L * 3.14159265358979323846L); }

/* int (f - e^eps g)_+ for mixtures with common sigma, independently of the
 * library: the crossings of f - e^eps g are found by a scan with step 1e-3
 * and bisection to 1e-15, then each positive piece (smooth, no kink) is
 * integrated by composite Simpson with 20000 panels in long double.  The
 * scan step is far below the spacing of the crossings in the cases used,
 * and Simpson on a smooth piece is accurate to ~1e-14 here. */
static long double hfun(long double y, int nf, const double *fm, const double *fw,
                        int ng, const double *gm, const double *gw, double s,
                        long double x)
{
  long double f = 0, g = 0;
  for (int k = 0; k < nf; k++) f += fw[k] * phi_l((y - fm[k]) / s) / s;
  for (int k = 0; k < ng; k++) g += gw[k] * phi_l((y - gm[k]) / s) / s;
  return f - x * g;
}

static double quad(int nf, const double *fm, const double *fw, int ng,
                   const double *gm, const double *gw, double s, double eps)
{
  double lo = 1e300, hi = -1e300;
  for (int i = 0; i < nf; i++) { lo = fmin(lo, fm[i]); hi = fmax(hi, fm[i]); }
  for (int i = 0; i < ng; i++) { lo = fmin(lo, gm[i]); hi = fmax(hi, gm[i]); }
  lo -= 40 * s;
  hi += 40 * s;
  long double x = expl((long double)eps);
  long double cut[64];
  int nc = 0;
  cut[nc++] = lo;
  double step = 1e-3;
  long double prev = hfun(lo, nf, fm, fw, ng, gm, gw, s, x);
  for (double y = lo + step; y <= hi; y += step) {
    long double v = hfun(y, nf, fm, fw, ng, gm, gw, s, x);
    if ((v > 0) != (prev > 0) && nc < 62) {
      long double a = y - step, b = y;
      for (int it = 0; it < 200; it++) {
        long double mid = 0.5L * (a + b), vm = hfun(mid, nf, fm, fw, ng, gm, gw, s, x);
        if ((vm > 0) == (prev > 0)) a = mid; else b = mid;
      }
      cut[nc++] = 0.5L * (a + b);
    }
    prev = v;
  }
  cut[nc++] = hi;
  long double acc = 0;
  for (int p = 0; p + 1 < nc; p++) {
    long double a = cut[p], b = cut[p + 1], mid = 0.5L * (a + b);
    if (hfun(mid, nf, fm, fw, ng, gm, gw, s, x) <= 0)
      continue;
    long N = 20000;
    long double h = (b - a) / N, sum = 0;
    for (long i = 0; i <= N; i++)
      sum += (i == 0 || i == N ? 1 : (i % 2 ? 4 : 2)) *
             hfun(a + i * h, nf, fm, fw, ng, gm, gw, s, x);
    acc += sum * h / 3;
  }
  return (double)acc;
}

static void test_single_component_is_gaussian(void **state)
{
  (void)state;
  double z[1] = {0.0}, one[1] = {1.0}, w[1] = {1.0};
  for (double sigma = 0.5; sigma < 6; sigma *= 2) {
    pld_mech *mix, *g;
    assert_int_equal(pld_mech_mixture_gaussian(sigma, 1, w, one, 1, w, z, &mix), 0);
    assert_int_equal(pld_mech_gaussian(sigma, 1.0, &g), 0);
    for (int dir = 0; dir < 2; dir++)
      for (double e = -2; e <= 8; e += 0.25) {
        double a, b;
        assert_int_equal(pld_mech_delta(mix, dir, e, &a), 0);
        assert_int_equal(pld_mech_delta(g, dir, e, &b), 0);
        /* same quantity by two formulas: relative 1e-9 (+1e-300) */
        assert_true(fabs(a - b) <= 1e-9 * b + 1e-300);
      }
    /* and the composed brackets overlap */
    pld_accountant *am, *ag;
    pld_result rm, rg;
    pld_params p;
    pld_params_default(&p);
    p.discretization = 1e-3;
    assert_int_equal(pld_accountant_alloc(&p, &am), 0);
    assert_int_equal(pld_accountant_alloc(&p, &ag), 0);
    assert_int_equal(pld_accountant_add(am, mix, 20), 0);
    assert_int_equal(pld_accountant_add(ag, g, 20), 0);
    assert_int_equal(pld_accountant_epsilon(am, 1e-5, &rm), 0);
    assert_int_equal(pld_accountant_epsilon(ag, 1e-5, &rg), 0); /* exact */
    assert_true(rm.bound.lower <= rg.bound.upper && rg.bound.lower <= rm.bound.upper);
    pld_accountant_free(am);
    pld_accountant_free(ag);
    pld_mech_free(mix);
    pld_mech_free(g);
  }
}

struct mcase {
  double s;
  int np, nq;
  double pm[3], pw[3], qm[3], qw[3];
};

static const struct mcase cases[] = {
  /* the loss is not monotone: a two-sided mixture against a centred one */
  {1.0, 2, 1, {-2, 2}, {0.5, 0.5}, {0}, {1}},
  /* a double mixture with asymmetric weights */
  {0.8, 3, 2, {0, 2, -1.5}, {0.5, 0.3, 0.2}, {0.5, -0.3}, {0.6, 0.4}},
  /* the Poisson (remove) pair, as a one-sided mixture */
  {1.0, 2, 1, {0, 1}, {0.9, 0.1}, {0}, {1}},
  /* several critical points of the loss (issue 16: they are found once per
   * mechanism, mixture_crit), so {L > eps} is up to three intervals */
  {1.0, 3, 2, {-3, 0, 3}, {0.3, 0.4, 0.3}, {-1.5, 1.5}, {0.5, 0.5}},
};

static void test_against_quadrature(void **state)
{
  (void)state;
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    const struct mcase *k = &cases[c];
    pld_mech *m;
    assert_int_equal(pld_mech_mixture_gaussian(k->s, (size_t)k->np, k->pw, k->pm,
                                               (size_t)k->nq, k->qw, k->qm, &m), 0);
    pld_dist *d;
    assert_int_equal(pld_dist_from_curve(pld_mech_curve(m), 2e-3, NULL, &d), 0);
    for (double e = 0; e <= 3.0; e += 0.5) {
      double q0 = quad(k->np, k->pm, k->pw, k->nq, k->qm, k->qw, k->s, e);
      double q1 = quad(k->nq, k->qm, k->qw, k->np, k->pm, k->pw, k->s, e);
      double d0, d1;
      assert_int_equal(pld_mech_delta(m, 0, e, &d0), 0);
      assert_int_equal(pld_mech_delta(m, 1, e, &d1), 0);
      /* exact curve vs quadrature: 1e-11 absolute (quadrature error ~1e-14) */
      if (fabs(d0 - q0) > 1e-11 || fabs(d1 - q1) > 1e-11)
        print_message("case %zu eps %g: PQ %.12g vs %.12g, QP %.12g vs %.12g\n",
                      c, e, d0, q0, d1, q1);
      assert_true(fabs(d0 - q0) <= 1e-11 && fabs(d1 - q1) <= 1e-11);
      /* the PLD bracket contains the worse direction, and is narrow */
      pld_bound b;
      assert_int_equal(pld_dist_delta(d, e, &b), 0);
      double t = fmax(q0, q1);
      if (!(b.lower <= t + 1e-9 && t <= b.upper + 1e-9))
        print_message("case %zu eps %g: bracket [%.12g, %.12g] truth %.12g (PQ %.12g QP %.12g)\n", c, e, b.lower, b.upper, t, q0, q1);
      assert_true(b.lower <= t * (1 + 1e-12) && t <= b.upper * (1 + 1e-12));
      assert_true(b.upper - t <= 1e-3 * t + 1e-6);
    }
    pld_dist_free(d);
    pld_mech_free(m);
  }
}

static void test_wor(void **state)
{
  (void)state;
  /* for eps >= 0 the curve is that of ((1-g)N(0) + g N(sens), N(0)) */
  uint64_t b = 30, n = 100;
  double sigma = 1.2, sens = 2.0, g = (double)b / (double)n;
  pld_mech *w;
  assert_int_equal(pld_mech_wor_gaussian(b, n, sigma, sens, &w), 0);
  double fm[2] = {0, sens}, fw[2] = {1 - g, g}, gm[1] = {0}, gw[1] = {1};
  for (double e = 0; e <= 3; e += 0.5) {
    double q = quad(2, fm, fw, 1, gm, gw, sigma, e), d0, d1;
    assert_int_equal(pld_mech_delta(w, 0, e, &d0), 0);
    assert_int_equal(pld_mech_delta(w, 1, e, &d1), 0);
    assert_true(fabs(d0 - q) <= 1e-11 && d0 == d1); /* symmetric */
  }
  /* for eps < 0 it satisfies H_x = 1 - x + x H_{1/x}, and it is convex in
   * x = e^eps (second differences >= 0 up to rounding) */
  double prev2 = NAN, prev1 = NAN;
  for (double e = -3; e <= 3; e += 0.01) {
    double d, dm;
    assert_int_equal(pld_mech_delta(w, 0, e, &d), 0);
    if (e < 0) {
      assert_int_equal(pld_mech_delta(w, 0, -e, &dm), 0);
      assert_true(fabs(d - (1 - exp(e) + exp(e) * dm)) <= 1e-12);
    }
    if (!isnan(prev2)) {
      /* convexity in x on the non-uniform x grid */
      double x0 = exp(e - 0.02), x1 = exp(e - 0.01), x2 = exp(e);
      double s1 = (prev1 - prev2) / (x1 - x0), s2 = (d - prev1) / (x2 - x1);
      assert_true(s2 >= s1 - 1e-9);
    }
    prev2 = prev1;
    prev1 = d;
  }
  pld_mech_free(w);
}

/* A monotone loss (every P mean on one side of Q's single mean: the LC
 * merging surrogate, a Poisson-subsampled Gaussian) takes the fast path:
 * the zero of each grid point found from the two before it, the masses
 * summed in linear space, the log-space path where a mass is below 1e-280
 * or e^eps could overflow.  Its tails, asked in one ascending batch as the
 * builder asks them, against an independent value: the loss in long
 * double, its one crossing of eps by bisection, the half-line's masses by
 * erfcl.  Relative 1e-11 (the curve's rel_err is 1e-10); and every batched
 * value equals the single-point call's to 1e-12 (the start only chooses
 * where Newton looks). */
static long double mono_loss(long double y, const double *pm, const double *pw,
                             int np, double qm)
{
  /* log(sum_i w_i e^{m_i y - m_i^2/2}) - (qm y - qm^2/2), in units of sigma */
  long double mx = -1e4000L, t[8];
  for (int i = 0; i < np; i++) {
    t[i] = logl(pw[i]) + pm[i] * y - 0.5L * pm[i] * pm[i];
    if (t[i] > mx) mx = t[i];
  }
  long double s = 0;
  for (int i = 0; i < np; i++) s += expl(t[i] - mx);
  return mx + logl(s) - (qm * y - 0.5L * qm * qm);
}

static void test_monotone_batch(void **state)
{
  (void)state;
  /* three runs' LC surrogate at lambda = (0.3, 0.3, 0.4) (means over sigma,
   * the 2^3 subset weights at q = 0.01), and a two-point Poisson pair */
  const double q = 0.01;
  double pm[8], pw[8];
  const double shift[3] = {0.9, 1.7, 0.4};
  for (int J = 0; J < 8; J++) {
    pm[J] = 0.0;
    pw[J] = 1.0;
    for (int b = 0; b < 3; b++) {
      pm[J] += (J >> b & 1) ? shift[b] : 0.0;
      pw[J] *= (J >> b & 1) ? q : 1.0 - q;
    }
  }
  struct { int np; const double *m, *w; } cs[2] = {{8, pm, pw}, {2, NULL, NULL}};
  double m2[2] = {0.0, 2.0}, w2[2] = {0.97, 0.03};
  cs[1].m = m2;
  cs[1].w = w2;
  enum { N = 420 };
  double eps[N], pb[N], eb[N];
  for (int i = 0; i < N; i++)
    eps[i] = -5.0 + 0.37 * i; /* up to 150: masses below 1e-280 as well */
  for (int c = 0; c < 2; c++) {
    double zero = 0.0, one = 1.0, sigma = 0.7;
    double ms[8];
    for (int i = 0; i < cs[c].np; i++) ms[i] = cs[c].m[i] * sigma;
    pld_mech *m;
    assert_int_equal(pld_mech_mixture_gaussian(sigma, (size_t)cs[c].np, cs[c].w,
                                               ms, 1, &one, &zero, &m), 0);
    const pld_curve *cv = pld_mech_curve(m);
    for (int dir = 0; dir < 2; dir++) {
      assert_int_equal(cv->tails(cv->ctx, dir, N, eps, pb, eb), 0);
      int checked_tiny = 0;
      for (int i = 0; i < N; i++) {
        /* the loss of this direction: L_PQ increasing in y, L_QP = -L_PQ */
        long double lo = -80, hi = 80;
        for (int it = 0; it < 200; it++) {
          long double mid = 0.5L * (lo + hi);
          long double L = mono_loss(mid, cs[c].m, cs[c].w, cs[c].np, 0.0);
          if (dir) L = -L;
          /* L_PQ increasing: {L > eps} is y > z; L_QP: y < z */
          int above = L > eps[i];
          if ((dir == 0) == above) hi = mid; else lo = mid;
        }
        long double z = 0.5L * (lo + hi), pmass = 0, qmass;
        for (int k = 0; k < cs[c].np; k++) {
          long double a = (z - cs[c].m[k]) / sqrtl(2.0L);
          pmass += cs[c].w[k] * 0.5L * erfcl(dir == 0 ? a : -a);
        }
        long double a0 = z / sqrtl(2.0L);
        qmass = 0.5L * erfcl(dir == 0 ? a0 : -a0);
        /* PQ: P is the mixture; QP: the roles swap */
        long double pt = dir == 0 ? pmass : qmass, gt = dir == 0 ? qmass : pmass;
        long double et = expl((long double)eps[i]) * gt;
        double p1, e1;
        assert_int_equal(cv->tails(cv->ctx, dir, 1, &eps[i], &p1, &e1), 0);
        int ok = fabsl(pb[i] - pt) <= 1e-11L * pt + 1e-300L &&
                 fabsl(eb[i] - et) <= 1e-11L * et + 1e-300L &&
                 fabs(pb[i] - p1) <= 1e-12 * p1 + 1e-300 &&
                 fabs(eb[i] - e1) <= 1e-12 * e1 + 1e-300;
        if (!ok)
          print_message("case %d dir %d eps %g: P %.15g vs %.15Lg (single %.15g), "
                        "eQ %.15g vs %.15Lg (single %.15g)\n", c, dir, eps[i],
                        pb[i], pt, p1, eb[i], et, e1);
        assert_true(ok);
        if (pt > 0 && pt < 1e-280L) checked_tiny = 1;
      }
      if (dir == 0) assert_true(checked_tiny); /* the log path was reached */
    }
    pld_mech_free(m);
  }
}

static void test_bad_input(void **state)
{
  (void)state;
  double m1[1] = {0}, w1[1] = {1}, w2[2] = {0.5, 0.6}, m2[2] = {0, 1};
  double wn[2] = {1.5, -0.5}, mnan[1] = {NAN};
  pld_mech *m = (pld_mech *)0x1;
  assert_int_equal(pld_mech_mixture_gaussian(0, 1, w1, m1, 1, w1, m1, &m), PLD_EINVAL);
  assert_int_equal(pld_mech_mixture_gaussian(NAN, 1, w1, m1, 1, w1, m1, &m), PLD_EINVAL);
  assert_int_equal(pld_mech_mixture_gaussian(1, 2, w2, m2, 1, w1, m1, &m), PLD_EINVAL);
  assert_int_equal(pld_mech_mixture_gaussian(1, 2, wn, m2, 1, w1, m1, &m), PLD_EINVAL);
  assert_int_equal(pld_mech_mixture_gaussian(1, 1, w1, mnan, 1, w1, m1, &m), PLD_EINVAL);
  assert_int_equal(pld_mech_mixture_gaussian(1, 0, w1, m1, 1, w1, m1, &m), PLD_EINVAL);
  assert_int_equal(pld_mech_mixture_gaussian(1, 1, w1, NULL, 1, w1, m1, &m), PLD_EINVAL);
  assert_int_equal(pld_mech_wor_gaussian(0, 10, 1, 1, &m), PLD_EINVAL);
  assert_int_equal(pld_mech_wor_gaussian(11, 10, 1, 1, &m), PLD_EINVAL);
  assert_int_equal(pld_mech_wor_gaussian(1, 10, -1, 1, &m), PLD_EINVAL);
  assert_int_equal(pld_mech_wor_gaussian(1, 10, 1, NAN, &m), PLD_EINVAL);
  assert_ptr_equal(m, (pld_mech *)0x1); /* untouched */
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_single_component_is_gaussian),
    cmocka_unit_test(test_against_quadrature),
    cmocka_unit_test(test_wor),
    cmocka_unit_test(test_monotone_batch),
    cmocka_unit_test(test_bad_input),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
