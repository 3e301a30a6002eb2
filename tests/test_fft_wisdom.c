/* pldkit tests: the built-in FFTW wisdom (src/fft_wisdom.h, generated at
 * build time by tools/gen_fftw_wisdom.c) changes no plan.  For every ladder
 * length it holds, the plans FFTW makes from the imported wisdom alone
 * (FFTW_WISDOM_ONLY: no search) print exactly as the plans FFTW_ESTIMATE
 * makes from an empty planner -- the same codelets in the same order, hence
 * the same arithmetic and the same answers to the last bit.  And the
 * wisdom is accepted here: the tests run where the library was built, under
 * the configuration the wisdom was made with.  Then the FFT cache
 * (src/fft.c) with the wisdom allowed hands out those same plans. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <fftw3.h>

#include "fft.h"
#include "fft_wisdom.h"

struct plans {
  char *fwd, *inv;
};

static int plan_pair(size_t n, unsigned flags, struct plans *out)
{
  double *x = fftw_malloc(sizeof(double) * n);
  fftw_complex *X = fftw_malloc(sizeof(fftw_complex) * (n / 2 + 1));
  fftw_plan a = fftw_plan_dft_r2c_1d((int)n, x, X, flags);
  fftw_plan b = fftw_plan_dft_c2r_1d((int)n, X, x, flags | FFTW_DESTROY_INPUT);
  int ok = a && b;
  if (ok) {
    out->fwd = fftw_sprint_plan(a);
    out->inv = fftw_sprint_plan(b);
  }
  if (a) fftw_destroy_plan(a);
  if (b) fftw_destroy_plan(b);
  fftw_free(x);
  fftw_free(X);
  return ok;
}

static void test_wisdom_is_estimate(void **state)
{
  (void)state;
  pld_fft_init_once();
  if (pld_fft_wisdom_count == 0)
    skip(); /* built with -Dfftw_wisdom=false or cross-compiled */
  int bad = 0;
  for (size_t i = 0; i < pld_fft_wisdom_count; i++) {
    size_t n = pld_fft_wisdom_table[i].n;
    if (i > 0 && n <= pld_fft_wisdom_table[i - 1].n) {
      print_message("table not sorted at %zu\n", n);
      bad++;
    }
    struct plans fresh, wise;
    fftw_forget_wisdom();
    assert_true(plan_pair(n, FFTW_ESTIMATE, &fresh));
    fftw_forget_wisdom();
    if (!fftw_import_wisdom_from_string(pld_fft_wisdom_table[i].text)) {
      print_message("length %zu: FFTW refused the wisdom\n", n);
      bad++;
    } else if (!plan_pair(n, FFTW_ESTIMATE | FFTW_WISDOM_ONLY, &wise)) {
      print_message("length %zu: the wisdom does not plan it alone\n", n);
      bad++;
    } else {
      if (strcmp(fresh.fwd, wise.fwd) || strcmp(fresh.inv, wise.inv)) {
        print_message("length %zu: plans differ\n%s\n%s\n", n, fresh.fwd,
                      wise.fwd);
        bad++;
      }
      free(wise.fwd);
      free(wise.inv);
    }
    free(fresh.fwd);
    free(fresh.inv);
  }
  fftw_forget_wisdom();
  assert_int_equal(bad, 0);
}

static void test_cache_uses_it(void **state)
{
  (void)state;
  pld_fft_init_once();
  if (pld_fft_wisdom_count == 0)
    skip();
  /* a length of the table's middle, planned by the cache with the wisdom
   * allowed, against FFTW_ESTIMATE's plan of it from an empty planner */
  size_t n = pld_fft_wisdom_table[pld_fft_wisdom_count / 2].n;
  struct plans fresh;
  fftw_forget_wisdom();
  assert_true(plan_pair(n, FFTW_ESTIMATE, &fresh));
  fftw_forget_wisdom();
  pld_fft_wisdom_allow();
  struct pld_fft_cache c;
  memset(&c, 0, sizeof c);
  struct pld_fft *f = NULL;
  assert_int_equal(pld_fft_cache_get(&c, n, FFTW_ESTIMATE, &f), 0);
  char *a = fftw_sprint_plan(f->fwd), *b = fftw_sprint_plan(f->inv);
  assert_string_equal(a, fresh.fwd);
  assert_string_equal(b, fresh.inv);
  free(a);
  free(b);
  free(fresh.fwd);
  free(fresh.inv);
  pld_fft_cache_release(&c);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_wisdom_is_estimate),
      cmocka_unit_test(test_cache_uses_it),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
