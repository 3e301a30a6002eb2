/* PLD files: round trip, corruption, truncation, version, and ledger
 * composition through the accountant. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <pldkit/pldkit.h>

static pld_dist *sample(void)
{
  pld_mech *m;
  pld_dist *d, *t;
  assert_int_equal(pld_mech_poisson_gaussian(0.05, 1.0, 1.0, &m), 0);
  assert_int_equal(pld_dist_from_curve(pld_mech_curve(m), 5e-3, NULL, &d), 0);
  assert_int_equal(pld_dist_self_compose(d, 20, NULL, &t), 0);
  pld_dist_free(d);
  pld_mech_free(m);
  return t;
}

static void same(const pld_dist *a, const pld_dist *b)
{
  for (int dir = 0; dir < 2; dir++)
    for (int r = 0; r < 2; r++) {
      pld_pmf_view x, y;
      assert_int_equal(pld_dist_view(a, dir, r, &x), 0);
      assert_int_equal(pld_dist_view(b, dir, r, &y), 0);
      assert_true(x.offset == y.offset && x.size == y.size);
      assert_true(x.inf_mass == y.inf_mass && x.rel_err == y.rel_err && x.abs_err == y.abs_err);
      assert_memory_equal(x.masses, y.masses, x.size * sizeof(double));
    }
  assert_true(pld_dist_discretization(a) == pld_dist_discretization(b));
}

static void test_round_trip(void **state)
{
  (void)state;
  pld_dist *d = sample(), *e;
  unsigned char *buf;
  size_t len;
  assert_int_equal(pld_dist_serialize(d, &buf, &len), 0);
  assert_int_equal(pld_dist_deserialize(buf, len, &e), 0);
  same(d, e);
  pld_dist_free(e);
  /* the file route, in a temporary file */
  char path[] = "/tmp/pldkit-test-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  assert_int_equal(pld_dist_save(d, path), 0);
  assert_int_equal(pld_dist_load(path, &e), 0);
  same(d, e);
  pld_dist_free(e);
  remove(path);
  assert_int_equal(pld_dist_load("/nonexistent/dir/file.pld", &e), PLD_EIO);
  pld_buffer_free(buf);
  pld_dist_free(d);
}

static void test_corruption(void **state)
{
  (void)state;
  pld_dist *d = sample(), *e = (pld_dist *)0x1;
  unsigned char *buf;
  size_t len;
  assert_int_equal(pld_dist_serialize(d, &buf, &len), 0);
  /* every truncation is refused */
  for (size_t n = 0; n < len; n += (n < 200 ? 1 : 97))
    assert_int_equal(pld_dist_deserialize(buf, n, &e), PLD_EFORMAT);
  /* every single-byte change is refused (version bytes may say EVERSION) */
  unsigned char *c = malloc(len);
  assert_non_null(c);
  for (size_t i = 0; i < len; i += (i < 300 ? 1 : 101)) {
    memcpy(c, buf, len);
    c[i] ^= 0x5a;
    int st = pld_dist_deserialize(c, len, &e);
    assert_true(st == PLD_EFORMAT || st == PLD_EVERSION);
  }
  /* a different version with a valid checksum: EVERSION */
  memcpy(c, buf, len);
  c[8] = 3;
  unsigned long long h = 1469598103934665603ull;
  for (size_t i = 0; i + 8 < len; i++) {
    h ^= c[i];
    h *= 1099511628211ull;
  }
  for (int i = 0; i < 8; i++)
    c[len - 8 + i] = (unsigned char)(h >> (8 * i));
  assert_int_equal(pld_dist_deserialize(c, len, &e), PLD_EVERSION);
  assert_ptr_equal(e, (pld_dist *)0x1); /* untouched */
  free(c);
  pld_buffer_free(buf);
  pld_dist_free(d);
}

static void test_ledger(void **state)
{
  (void)state;
  /* a saved ledger of 20 steps, composed with 30 more from the accountant,
   * equals 50 steps composed directly on the same grid */
  pld_dist *d = sample();
  pld_mech *m;
  assert_int_equal(pld_mech_poisson_gaussian(0.05, 1.0, 1.0, &m), 0);
  pld_accountant *a, *b;
  pld_params p;
  pld_params_default(&p);
  assert_int_equal(pld_accountant_alloc(NULL, &a), 0);
  assert_int_equal(pld_accountant_add_dist(a, d, 1), 0);
  assert_int_equal(pld_accountant_add(a, m, 30), 0);
  p.discretization = 5e-3;
  assert_int_equal(pld_accountant_alloc(&p, &b), 0);
  assert_int_equal(pld_accountant_add(b, m, 50), 0);
  pld_result ra, rb;
  assert_int_equal(pld_accountant_epsilon(a, 1e-5, &ra), 0);
  assert_int_equal(pld_accountant_epsilon(b, 1e-5, &rb), 0);
  assert_true(ra.discretization == 5e-3);
  assert_true(ra.bound.lower <= rb.bound.upper && rb.bound.lower <= ra.bound.upper);
  assert_true(fabs(ra.bound.upper - rb.bound.upper) <= 1e-6 * rb.bound.upper);
  /* a PLD on another grid cannot join */
  pld_dist *other;
  assert_int_equal(pld_dist_from_curve(pld_mech_curve(m), 1e-2, NULL, &other), 0);
  assert_int_equal(pld_accountant_add_dist(a, other, 1), PLD_EINCOMPAT);
  /* nor into an accountant whose fixed grid differs (refused when added,
   * not at the first query) */
  pld_accountant *c;
  p.discretization = 1e-2;
  assert_int_equal(pld_accountant_alloc(&p, &c), 0);
  assert_int_equal(pld_accountant_add_dist(c, d, 1), PLD_EINCOMPAT);
  assert_int_equal(pld_accountant_size(c), 0);
  assert_int_equal(pld_accountant_add_dist(c, other, 1), 0);
  pld_accountant_free(c);
  pld_dist_free(other);
  pld_accountant_free(a);
  pld_accountant_free(b);
  pld_mech_free(m);
  pld_dist_free(d);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_round_trip),
    cmocka_unit_test(test_corruption),
    cmocka_unit_test(test_ledger),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
