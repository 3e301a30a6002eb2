/* Random selection (merging paper Thm 5.2) and calibration, against values
 * computed here from the members and from the Gaussian closed form. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include <cmocka.h>

#include <pldkit/pldkit.h>

static pld_dist *composed(double sigma, uint64_t T, double grid)
{
  pld_mech *m;
  pld_dist *d, *t;
  assert_int_equal(pld_mech_gaussian(sigma, 1.0, &m), 0);
  assert_int_equal(pld_dist_from_curve(pld_mech_curve(m), grid, NULL, &d), 0);
  assert_int_equal(pld_dist_self_compose(d, T, NULL, &t), 0);
  pld_dist_free(d);
  pld_mech_free(m);
  return t;
}

static void test_mix_weights_one_zero(void **state)
{
  (void)state;
  pld_dist *a = composed(2, 10, 2e-3), *b = composed(8, 10, 2e-3), *rs;
  const pld_dist *mem[2] = {a, b};
  double w[2] = {1.0, 0.0};
  assert_int_equal(pld_dist_mix(2, mem, w, &rs), 0);
  for (double e = 0; e < 8; e += 0.5) {
    pld_bound x, y;
    assert_int_equal(pld_dist_delta(rs, e, &x), 0);
    assert_int_equal(pld_dist_delta(a, e, &y), 0);
    /* the same masses: equal up to the mixture's extra rounding slack */
    assert_true(fabs(x.upper - y.upper) <= 1e-13 * y.upper + 1e-300);
    assert_true(fabs(x.lower - y.lower) <= 1e-13 * y.lower + 1e-300);
  }
  pld_dist_free(rs);
  pld_dist_free(a);
  pld_dist_free(b);
}

static void test_mix_between_members(void **state)
{
  (void)state;
  pld_dist *a = composed(2, 10, 2e-3), *b = composed(8, 10, 2e-3), *rs;
  const pld_dist *mem[2] = {a, b};
  double w[2] = {0.3, 0.7};
  assert_int_equal(pld_dist_mix(2, mem, w, &rs), 0);
  for (double e = 0; e < 8; e += 0.25) {
    pld_bound x, ya, yb;
    assert_int_equal(pld_dist_delta(rs, e, &x), 0);
    assert_int_equal(pld_dist_delta(a, e, &ya), 0);
    assert_int_equal(pld_dist_delta(b, e, &yb), 0);
    /* Thm 5.2 for symmetric members: delta_RS = 0.3 delta_a + 0.7 delta_b,
     * which lies between the members' curves (the brackets agree up to how
     * the booked floating-point slack, ~1e-9 relative and ~1e-12 absolute,
     * is combined) */
    double up = 0.3 * ya.upper + 0.7 * yb.upper, lo = 0.3 * ya.lower + 0.7 * yb.lower;
    assert_true(fabs(x.upper - up) <= 1e-7 * up + 1e-11);
    if (!(fabs(x.lower - lo) <= 1e-7 * lo + 1e-11))
      print_message("eps %g: lower %.17g vs %.17g\n", e, x.lower, lo);
    assert_true(fabs(x.lower - lo) <= 1e-7 * lo + 1e-11);
    if (!(x.upper <= fmax(ya.upper, yb.upper) * (1 + 1e-7) && x.lower >= fmin(ya.lower, yb.lower) * (1 - 1e-7)))
      print_message("eps %g: rs [%.17g %.17g] a [%.17g %.17g] b [%.17g %.17g]\n", e, x.lower, x.upper, ya.lower, ya.upper, yb.lower, yb.upper);
    assert_true(x.upper <= fmax(ya.upper, yb.upper) * (1 + 1e-7) && x.lower >= fmin(ya.lower, yb.lower) * (1 - 1e-7));
  }
  /* epsilon of the selection lies between the members' epsilons */
  pld_bound ea, eb, er;
  assert_int_equal(pld_dist_epsilon(a, 1e-5, &ea), 0);
  assert_int_equal(pld_dist_epsilon(b, 1e-5, &eb), 0);
  assert_int_equal(pld_dist_epsilon(rs, 1e-5, &er), 0);
  assert_true(er.upper <= ea.upper && er.lower >= eb.lower);
  pld_dist_free(rs);
  pld_dist_free(a);
  pld_dist_free(b);
}

static void test_accountant_selection(void **state)
{
  (void)state;
  pld_mech *g2, *g8;
  assert_int_equal(pld_mech_gaussian(2, 1, &g2), 0);
  assert_int_equal(pld_mech_gaussian(8, 1, &g8), 0);
  pld_accountant *a, *b, *rs;
  assert_int_equal(pld_accountant_alloc(NULL, &a), 0);
  assert_int_equal(pld_accountant_alloc(NULL, &b), 0);
  assert_int_equal(pld_accountant_alloc(NULL, &rs), 0);
  assert_int_equal(pld_accountant_add(a, g2, 10), 0);
  assert_int_equal(pld_accountant_add(b, g8, 10), 0);
  const pld_accountant *mem[2] = {a, b};
  double w[2] = {0.3, 0.7};
  assert_int_equal(pld_accountant_add_selection(rs, 2, mem, w, 1), 0);
  for (double e = 0.5; e < 6; e += 1.0) {
    pld_result r, ra, rb; /* members exact (closed form) */
    assert_int_equal(pld_accountant_delta(rs, e, &r), 0);
    assert_int_equal(pld_accountant_delta(a, e, &ra), 0);
    assert_int_equal(pld_accountant_delta(b, e, &rb), 0);
    double ex = 0.3 * ra.bound.upper + 0.7 * rb.bound.upper;
    assert_true(r.bound.lower <= ex * (1 + 1e-9) && ex <= r.bound.upper * (1 + 1e-9));
    assert_true(r.bound.upper - ex <= 3e-3 * ex + 1e-12);
  }
  /* bad input */
  double wbad[2] = {0.3, 0.6}, wneg[2] = {1.2, -0.2};
  assert_int_equal(pld_accountant_add_selection(rs, 2, mem, wbad, 1), PLD_EINVAL);
  assert_int_equal(pld_accountant_add_selection(rs, 2, mem, wneg, 1), PLD_EINVAL);
  assert_int_equal(pld_accountant_add_selection(rs, 0, mem, w, 1), PLD_EINVAL);
  assert_int_equal(pld_accountant_add_selection(rs, 2, mem, w, 0), PLD_EINVAL);
  pld_accountant *empty;
  assert_int_equal(pld_accountant_alloc(NULL, &empty), 0);
  const pld_accountant *mem2[2] = {a, empty};
  assert_int_equal(pld_accountant_add_selection(rs, 2, mem2, w, 1), PLD_EEMPTY);
  pld_accountant_free(empty);
  pld_accountant_free(a);
  pld_accountant_free(b);
  pld_accountant_free(rs);
  pld_mech_free(g2);
  pld_mech_free(g8);
}

static void test_feasibility(void **state)
{
  (void)state;
  /* member deltas at eps' per direction: member 0 less private */
  double md[4] = {0.02, 0.015, 1e-4, 2e-4}, target = 5e-3, pi;
  assert_int_equal(pld_select_max_weight(md, target, &pi), 0);
  /* by hand: direction 0 binds, pi * 0.02 + (1 - pi) 1e-4 <= 5e-3 */
  double ex = (target - 1e-4) / (0.02 - 1e-4);
  assert_true(pi <= ex && pi >= ex - 1e-12);
  assert_true(fmax(pi * md[0] + (1 - pi) * md[2], pi * md[1] + (1 - pi) * md[3]) <= target);
  double w[2 * 101];
  size_t nf;
  assert_int_equal(pld_select_feasible(2, md, target, 100, w, 101, &nf), 0);
  /* weights on member 0 of k/100 for k <= floor(100 ex) are feasible */
  assert_int_equal(nf, (size_t)floor(100 * ex) + 1);
  for (size_t i = 0; i < nf; i++)
    assert_true(w[2 * i] <= ex + 1e-12);
  /* infeasible everywhere, feasible everywhere */
  double hard[4] = {0.1, 0.1, 0.1, 0.1}, easy[4] = {1e-9, 1e-9, 1e-9, 1e-9};
  assert_int_equal(pld_select_max_weight(hard, target, &pi), 0);
  assert_true(pi == -1.0);
  assert_int_equal(pld_select_max_weight(easy, target, &pi), 0);
  assert_true(pi == 1.0);
  assert_int_equal(pld_select_feasible(5, md, target, 10, w, 10, &nf), PLD_EINVAL);
  /* absurd work (1e15 tuples at n = 4) is refused at once, not a hang; the
   * largest allowed grids still run */
  double md4[8] = {0.02, 0.015, 1e-4, 2e-4, 1e-3, 1e-3, 1e-5, 1e-5};
  nf = 7;
  assert_int_equal(pld_select_feasible(4, md4, target, 100000, NULL, 0, &nf),
                   PLD_ERANGE);
  assert_int_equal(nf, 7); /* untouched on failure */
  assert_int_equal(pld_select_feasible(3, md4, target, 10000, NULL, 0, &nf),
                   PLD_ERANGE);
  assert_int_equal(pld_select_feasible(4, md4, target, 463, NULL, 0, &nf), 0);
  assert_true(nf > 0);
  assert_int_equal(pld_select_max_weight(md, 0.0, &pi), PLD_EINVAL);
}

/* calibration: Gaussian composition, where the exact sigma is known */
static int build_gauss(double s, void *ctx, pld_accountant **out)
{
  pld_mech *m;
  int st = pld_mech_gaussian(s, 1.0, &m);
  if (st)
    return st;
  st = pld_accountant_alloc(NULL, out);
  if (!st)
    st = pld_accountant_add(*out, m, *(uint64_t *)ctx);
  pld_mech_free(m);
  return st;
}

static double gauss_delta(double mu, double e)
{
  return 0.5 * erfc(-(mu / 2 - e / mu) / sqrt(2.0)) -
         exp(e) * 0.5 * erfc(-(-mu / 2 - e / mu) / sqrt(2.0));
}

static void test_calibrate_gaussian(void **state)
{
  (void)state;
  uint64_t T = 100;
  double eps = 2.0, delta = 1e-5, tol = 1e-4;
  pld_calibration c;
  assert_int_equal(pld_calibrate(build_gauss, &T, eps, delta, 1.0, tol, NULL, NULL, &c), 0);
  /* exact sigma by bisection on the closed form: mu = sqrt(T)/sigma */
  double lo = 0.1, hi = 100;
  for (int i = 0; i < 200; i++) {
    double s = 0.5 * (lo + hi);
    if (gauss_delta(sqrt((double)T) / s, eps) <= delta)
      hi = s;
    else
      lo = s;
  }
  assert_true(c.param >= lo * (1 - 1e-12));   /* never over budget */
  assert_true(c.param <= hi * (1 + 2 * tol)); /* and tight */
  assert_true(c.at_param.bound.upper <= eps);
}

static int build_pg(double s, void *ctx, pld_accountant **out)
{
  (void)ctx;
  pld_mech *m;
  int st = pld_mech_poisson_gaussian(0.01, s, 1.0, &m);
  if (st)
    return st;
  st = pld_accountant_alloc(NULL, out);
  if (!st)
    st = pld_accountant_add(*out, m, 1000);
  pld_mech_free(m);
  return st;
}

static void test_calibrate_dpsgd(void **state)
{
  (void)state;
  double tol = 1e-3;
  pld_calibration c;
  assert_int_equal(pld_calibrate(build_pg, NULL, 2.0, 1e-5, 1.0, tol, NULL, NULL, &c), 0);
  assert_true(c.at_param.bound.upper <= 2.0);
  /* the value just below (by the tolerance) misses the target */
  pld_accountant *a;
  pld_result r;
  assert_int_equal(build_pg(c.param * (1 - tol), NULL, &a), 0);
  assert_int_equal(pld_accountant_epsilon(a, 1e-5, &r), 0);
  assert_true(r.bound.upper > 2.0);
  pld_accountant_free(a);
  /* bad input */
  pld_calibration keep = c;
  assert_int_equal(pld_calibrate(build_pg, NULL, -1, 1e-5, 1, tol, NULL, NULL, &c), PLD_EINVAL);
  assert_int_equal(pld_calibrate(build_pg, NULL, 2, 1.5, 1, tol, NULL, NULL, &c), PLD_EINVAL);
  assert_int_equal(pld_calibrate(build_pg, NULL, 2, 1e-5, 0, tol, NULL, NULL, &c), PLD_EINVAL);
  assert_int_equal(pld_calibrate(NULL, NULL, 2, 1e-5, 1, tol, NULL, NULL, &c), PLD_EINVAL);
  assert_true(keep.param == c.param);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_mix_weights_one_zero),
    cmocka_unit_test(test_mix_between_members),
    cmocka_unit_test(test_accountant_selection),
    cmocka_unit_test(test_feasibility),
    cmocka_unit_test(test_calibrate_gaussian),
    cmocka_unit_test(test_calibrate_dpsgd),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
