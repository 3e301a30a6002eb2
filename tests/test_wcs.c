/* The WCS participation PLD (issue 3): a round is "zero loss w.p. 1 - p,
 * the q-subsampled Gaussian w.p. p", built as a random selection and
 * composed over T rounds.  Checked against a direct computation done here:
 * with the participation bit visible,
 *     delta_T(eps) = sum_k C(T,k) p^k (1-p)^{T-k} delta_{S^k}(eps),
 * and delta_{S^k} follows from the composition identity
 *     delta_{S^{k+1}}(eps) = int p_S(y) delta_{S^k}(eps - l(y)) dy,
 * l(y) = log(p_S(y)/q_S(y)), by nested quadrature over the closed-form
 * Poisson curve (Zhu-Dong-Wang) evaluated in long double. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include <cmocka.h>

#include <pldkit/pldkit.h>

static const double Q = 0.05, MU = 1.0 / 0.9, P = 0.3;

static long double Phi(long double x) { return 0.5L * erfcl(-x / sqrtl(2.0L)); }

/* Gaussian pair N(mu) vs N(0) at any real eps (both directions equal) */
static long double dG(long double e)
{
  return Phi(MU / 2 - e / MU) - expl(e) * Phi(-MU / 2 - e / MU);
}

/* subsampled pair: dir 0 = H(P_S || Q_S), dir 1 = H(Q_S || P_S), any real e */
static long double dS(int dir, long double e)
{
  long double x = expl(e);
  if (dir == 0) {
    long double t = 1 + (x - 1) / Q; /* branch on the computed value */
    if (t <= 0)
      return 1 - x;
    return Q * dG(logl(t));
  }
  long double f = 1 - (1 - Q) * x;
  if (f <= 0)
    return 0;
  return f * dG(logl(Q * x / f));
}

static long double phil(long double y) { return expl(-0.5L * y * y) / sqrtl(2 * 3.14159265358979323846L); }

/* density of the first argument of direction dir, and its loss */
static void first(int dir, long double y, long double *dens, long double *loss)
{
  long double ps = (1 - Q) * phil(y) + Q * phil(y - MU), qs = phil(y);
  *dens = dir == 0 ? ps : qs;
  *loss = dir == 0 ? logl(ps / qs) : logl(qs / ps);
}

/* Simpson on [a, b] of dens(y) * delta_{S^(k-1)}(e - l(y)) */
static long double dSk(int dir, int k, long double e);
static long double simpson(int dir, int k, long double e, long double a,
                           long double b, int n)
{
  long double h = (b - a) / n, acc = 0;
  for (int i = 0; i <= n; i++) {
    long double y = a + i * h, dn, l;
    first(dir, y, &dn, &l);
    acc += (i == 0 || i == n ? 1 : (i % 2 ? 4 : 2)) * dn * dSk(dir, k - 1, e - l);
  }
  return acc * h / 3;
}

/* delta_{S^k} by k-1 nested integrations (k <= 3).  The inner curve
 * delta_{S^m}(x) has one kink, where x = m log(1-q) (direction PQ: below it
 * every loss exceeds x) or x = -m log(1-q) (QP: above it none does); the
 * loss l(y) is monotone, so the integral is split at the one y where the
 * argument crosses the kink, and Simpson with NQ panels per piece on
 * [-12, 12 + mu] is then accurate to ~1e-13 (checked by doubling NQ). */
#define NQ 400
static long double dSk(int dir, int k, long double e)
{
  if (k == 0)
    return e >= 0 ? 0 : 1 - expl(e);
  if (k == 1)
    return dS(dir, e);
  long double lo = -12, hi = 12 + MU;
  long double kink = (dir == 0 ? 1 : -1) * (k - 1) * logl(1 - Q);
  /* find y with e - l(y) = kink; l increases with y for PQ, decreases QP */
  long double a = lo, b = hi, dn, la, lb;
  first(dir, a, &dn, &la);
  first(dir, b, &dn, &lb);
  long double target = e - kink;
  if ((la - target) * (lb - target) >= 0)
    return simpson(dir, k, e, lo, hi, 2 * NQ);
  for (int it = 0; it < 200; it++) {
    long double mid = 0.5L * (a + b), lm;
    first(dir, mid, &dn, &lm);
    if ((lm - target) * (la - target) > 0)
      a = mid;
    else
      b = mid;
  }
  long double ys = 0.5L * (a + b);
  return simpson(dir, k, e, lo, ys, NQ) + simpson(dir, k, e, ys, hi, NQ);
}

static long double binom(int n, int k)
{
  long double r = 1;
  for (int i = 1; i <= k; i++)
    r = r * (n - k + i) / i;
  return r;
}

static pld_mech *wcs_round(void)
{
  double one = 1.0;
  pld_mech *id, *sub, *sel;
  assert_int_equal(pld_mech_finite(1, &one, &one, &id), 0);
  assert_int_equal(pld_mech_poisson_gaussian(Q, 0.9, 1.0, &sub), 0);
  const pld_mech *mem[2] = {id, sub};
  double w[2] = {1 - P, P};
  assert_int_equal(pld_mech_select(2, mem, w, &sel), 0);
  pld_mech_free(id);
  pld_mech_free(sub);
  return sel;
}

static void test_wcs_rounds(void **state)
{
  (void)state;
  pld_mech *round = wcs_round();
  pld_dist *d1;
  assert_int_equal(pld_dist_from_curve(pld_mech_curve(round), 1e-3, NULL, &d1), 0);
  for (int T = 1; T <= 3; T++) {
    pld_dist *dT;
    assert_int_equal(pld_dist_self_compose(d1, (uint64_t)T, NULL, &dT), 0);
    /* T = 3 costs NQ^2 evaluations per point: fewer points there */
    double step = T < 3 ? 0.25 : 0.75;
    for (double e = 0.0; e <= 1.5; e += step) {
      long double ex = 0;
      for (int dir = 0; dir < 2; dir++) {
        long double v = 0;
        for (int k = 0; k <= T; k++)
          v += binom(T, k) * powl(P, k) * powl(1 - P, T - k) * dSk(dir, k, e);
        if (v > ex)
          ex = v;
      }
      pld_bound b;
      assert_int_equal(pld_dist_delta(dT, e, &b), 0);
      /* sound (reference accurate to ~1e-12 here) and within 1% + 1e-9 */
      if (!(b.lower <= ex + 1e-12 && ex <= b.upper + 1e-12 && b.upper - ex <= 1e-2 * ex + 1e-9))
        print_message("T=%d eps=%g: [%.12g, %.12g] direct %.12Lg\n", T, e, b.lower, b.upper, ex);
      assert_true(b.lower <= ex + 1e-12 && ex <= b.upper + 1e-12);
      assert_true(b.upper - ex <= 1e-2 * ex + 1e-9);
    }
    pld_dist_free(dT);
  }
  /* T = 1 equals the closed form (Thm 5.2): for eps >= 0 the zero-loss
   * branch contributes nothing, so delta = p delta_S(eps) (worse direction) */
  for (double e = 0.0; e <= 2.0; e += 0.5) {
    double v = (double)(P * fmaxl(dS(0, e), dS(1, e)));
    pld_bound b;
    assert_int_equal(pld_dist_delta(d1, e, &b), 0);
    assert_true(b.lower <= v * (1 + 1e-12) && v <= b.upper * (1 + 1e-12));
  }
  /* CS (rate p q, the participation hidden) is never above WCS */
  pld_mech *cs;
  assert_int_equal(pld_mech_poisson_gaussian(P * Q, 0.9, 1.0, &cs), 0);
  pld_accountant *aw, *ac;
  assert_int_equal(pld_accountant_alloc(NULL, &aw), 0);
  assert_int_equal(pld_accountant_alloc(NULL, &ac), 0);
  assert_int_equal(pld_accountant_add(aw, round, 50), 0);
  assert_int_equal(pld_accountant_add(ac, cs, 50), 0);
  for (double e = 0.0; e <= 2.0; e += 0.5) {
    pld_result rw, rc;
    assert_int_equal(pld_accountant_delta(aw, e, &rw), 0);
    assert_int_equal(pld_accountant_delta(ac, e, &rc), 0);
    assert_true(rc.bound.lower <= rw.bound.upper);
  }
  pld_accountant_free(aw);
  pld_accountant_free(ac);
  pld_mech_free(cs);
  pld_dist_free(d1);
  pld_mech_free(round);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_wcs_rounds),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
