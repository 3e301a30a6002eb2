/* pldkit internal allocation with a test hook. */
#include "alloc.h"

#include <fftw3.h>
#include <stdint.h>
#include <stdlib.h>

#include <pldkit/status.h>

/* Test hook: when fail_at > 0, the fail_at-th allocation from now fails.
 * Only the test suite sets it (declared in tests, not in public headers);
 * it is thread-unsafe by design and documented as a testing aid only. */
static long pld_alloc_fail_at = 0;
static long pld_alloc_count = 0;

PLD_API void pld_test_fail_allocation(long n);
PLD_API long pld_test_allocation_count(void);

void pld_test_fail_allocation(long n)
{
  pld_alloc_fail_at = n;
  pld_alloc_count = 0;
}

long pld_test_allocation_count(void) { return pld_alloc_count; }

static int should_fail(void)
{
  pld_alloc_count++;
  return pld_alloc_fail_at > 0 && pld_alloc_count == pld_alloc_fail_at;
}

void *pld_malloc(size_t size)
{
  if (should_fail())
    return NULL;
  return malloc(size ? size : 1);
}

void *pld_calloc(size_t n, size_t size)
{
  if (should_fail())
    return NULL;
  return calloc(n ? n : 1, size ? size : 1);
}

void pld_free(void *p) { free(p); }

void *pld_fftw_malloc(size_t size)
{
  if (should_fail())
    return NULL;
  return fftw_malloc(size ? size : 1);
}

void pld_fftw_free(void *p)
{
  if (p)
    fftw_free(p);
}

int pld_mul_size(size_t a, size_t b, size_t *out)
{
  if (a && b > SIZE_MAX / a)
    return 1;
  *out = a * b;
  return 0;
}
