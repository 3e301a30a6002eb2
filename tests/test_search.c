/* The core search and enumeration routines (src/numerics.h, internal):
 * pld_bisect, pld_bracket_double and the simplex grid, tested directly.
 *
 * 1. pld_bisect on x >= r for roots r known exactly (sqrt 2 from the exact
 *    test x*x >= 2, a dyadic root): the answer is the requested end, on the
 *    requested side of the root (never past it), and within the stated
 *    tolerance of it (not too far); the bracket shrinks to the tolerance.
 * 2. pld_bracket_double: the doubling sequence is exactly the powers of two
 *    times the start, the reported bracket straddles the root, and the
 *    cap is honoured; a failing question's status comes back at once.
 * 3. The simplex grid: size C(res+n-1, n-1) against an independent
 *    integer binomial, every point on the grid (k sums to res), all points
 *    distinct, in strict lexicographic order (ascending or descending).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <string.h>
#include <cmocka.h>

#include "numerics.h"

struct q {
  double root; /* the boundary; NAN: use x*x >= 2 */
  int calls, fail_at;
  double asked[64];
};

static int above_root(double x, void *ctx, int *above)
{
  struct q *q = ctx;
  if (q->calls < 64)
    q->asked[q->calls] = x;
  if (++q->calls == q->fail_at)
    return 7;
  *above = isnan(q->root) ? x * x >= 2.0 : x >= q->root;
  return 0;
}

static void test_bisect_sides(void **state)
{
  (void)state;
  const double tols[] = {1e-3, 1e-9, 1e-14};
  for (size_t i = 0; i < 3; i++) {
    struct q q = {NAN, 0, 0, {0}};
    double up, lo;
    assert_int_equal(pld_bisect(above_root, &q, 1.0, 2.0, 0.0, tols[i],
                                1000, +1, &up), 0);
    assert_int_equal(pld_bisect(above_root, &q, 1.0, 2.0, 0.0, tols[i],
                                1000, -1, &lo), 0);
    /* sides, from the exact question: up*up >= 2 > lo*lo */
    assert_true(up * up >= 2.0);
    assert_true(lo * lo < 2.0);
    /* not too far: long double sqrt 2 within tol*hi (+ one halving) */
    long double r = sqrtl(2.0L);
    assert_true((long double)up - r <= (long double)tols[i] * 2.0L);
    assert_true(r - (long double)lo <= (long double)tols[i] * 2.0L);
  }
  /* absolute tolerance and the iteration cap: a dyadic root is hit */
  struct q q = {0.375, 0, 0, {0}};
  double x;
  assert_int_equal(pld_bisect(above_root, &q, 0.0, 1.0, 0.0, 0.0, 60, +1,
                              &x), 0);
  assert_true(x == 0.375);
  q.calls = 0;
  assert_int_equal(pld_bisect(above_root, &q, 0.0, 1.0, 0.25, 0.0, 1000,
                              +1, &x), 0);
  assert_int_equal(q.calls, 2); /* 1 -> 0.5 -> 0.25 wide, stop */
  assert_true(x == 0.5);
  q.calls = 0;
  assert_int_equal(pld_bisect(above_root, &q, 0.0, 1.0, 0.0, 0.0, 3, -1,
                              &x), 0);
  assert_int_equal(q.calls, 3);
  assert_true(x == 0.25); /* 0.5 above, 0.25 below, 0.375 above */
  /* a failing question: its status, *out untouched */
  q.calls = 0;
  q.fail_at = 2;
  x = -1.0;
  assert_int_equal(pld_bisect(above_root, &q, 0.0, 1.0, 0.0, 0.0, 60, +1,
                              &x), 7);
  assert_true(x == -1.0);
}

static void test_bracket_double(void **state)
{
  (void)state;
  struct q q = {100.0, 0, 0, {0}};
  double lo = 0.0, hi = 1.5;
  int found = -1;
  assert_int_equal(pld_bracket_double(above_root, &q, &lo, &hi, 1e6, &found),
                   0);
  assert_int_equal(found, 1);
  /* 1.5, 3, 6, 12, 24, 48, 96 below; 192 above */
  assert_int_equal(q.calls, 8);
  for (int i = 0; i < 8; i++)
    assert_true(q.asked[i] == ldexp(1.5, i));
  assert_true(lo == 96.0 && hi == 192.0);
  assert_true(lo < q.root && hi >= q.root);
  /* the cap: not found, hi the first value above it, never asked */
  q.root = 1e9;
  q.calls = 0;
  lo = 0.0;
  hi = 1.0;
  assert_int_equal(pld_bracket_double(above_root, &q, &lo, &hi, 1000.0,
                                      &found), 0);
  assert_int_equal(found, 0);
  assert_true(lo == 512.0 && hi == 1024.0);
  assert_int_equal(q.calls, 10); /* 1 .. 512 */
  q.calls = 0;
  q.fail_at = 3;
  lo = 0.0;
  hi = 1.0;
  assert_int_equal(pld_bracket_double(above_root, &q, &lo, &hi, 1000.0,
                                      &found), 7);
}

static uint64_t binom(uint64_t n, uint64_t k)
{
  uint64_t c = 1;
  for (uint64_t i = 1; i <= k; i++)
    c = c * (n - k + i) / i; /* exact: c stays C(n-k+i, i) */
  return c;
}

/* -1, 0, 1: lexicographic comparison of a and b */
static int lex(const unsigned *a, const unsigned *b, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (a[i] != b[i])
      return a[i] < b[i] ? -1 : 1;
  return 0;
}

static void test_simplex_grid(void **state)
{
  (void)state;
  for (size_t n = 1; n <= 6; n++)
    for (unsigned res = 1; res <= 9; res++)
      for (int desc = 0; desc <= 1; desc++) {
        uint64_t want = binom(res + n - 1, n - 1);
        assert_true(pld_simplex_grid_count(n, res) == (double)want);
        unsigned k[6], prev[6];
        double w[6];
        uint64_t count = 0;
        pld_simplex_grid_first(n, res, desc, k);
        do {
          unsigned s = 0;
          for (size_t i = 0; i < n; i++)
            s += k[i];
          assert_int_equal(s, res);
          if (count)
            assert_int_equal(lex(prev, k, n), desc ? 1 : -1);
          pld_simplex_grid_weights(n, res, k, w);
          for (size_t i = 0; i < n; i++)
            assert_true(w[i] == (double)k[i] / (double)res);
          memcpy(prev, k, sizeof k);
          count++;
        } while (pld_simplex_grid_next(n, res, desc, k));
        /* strictly monotone and on the grid, so distinct: all of them */
        assert_true(count == want);
      }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_bisect_sides),
      cmocka_unit_test(test_bracket_double),
      cmocka_unit_test(test_simplex_grid),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
