/* pldkit internal allocation with a test hook. */
#include "alloc.h"

#include <fftw3.h>
#include <stdatomic.h>
#include <stdint.h>
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include <pldkit/status.h>

/* Test hook: when fail_at > 0, the fail_at-th allocation from now fails.
 * Compiled only into the test-only builds of the library (-DPLD_ALLOC_HOOKS:
 * meson.build's pldkit-hooks libraries, which the failing-allocator sweeps
 * and Python's out-of-memory test link); the installed library has neither
 * the hooks nor a counter bumped on every allocation.  The counters are
 * atomic (relaxed: they order nothing else) because every allocation of
 * every thread bumps the count; a plain long was a data race whenever two
 * threads used pldkit at once (ThreadSanitizer, make tsan).  Which thread's
 * allocation is the fail_at-th is unspecified under concurrency; the sweep
 * tests run single-threaded. */
#ifdef PLD_ALLOC_HOOKS
static atomic_long pld_alloc_fail_at = 0;
static atomic_long pld_alloc_count = 0;

PLD_API void pld_test_fail_allocation(long n);
PLD_API long pld_test_allocation_count(void);

void pld_test_fail_allocation(long n)
{
  atomic_store_explicit(&pld_alloc_count, 0, memory_order_relaxed);
  atomic_store_explicit(&pld_alloc_fail_at, n, memory_order_relaxed);
}

long pld_test_allocation_count(void)
{
  return atomic_load_explicit(&pld_alloc_count, memory_order_relaxed);
}

static int should_fail(void)
{
  long c = atomic_fetch_add_explicit(&pld_alloc_count, 1, memory_order_relaxed) + 1;
  long f = atomic_load_explicit(&pld_alloc_fail_at, memory_order_relaxed);
  return f > 0 && c == f;
}

/* Directory syncs fail with EIO while this is set. */
static atomic_int pld_dir_sync_fails = 0;
PLD_API void pld_test_fail_dir_sync(int on);
void pld_test_fail_dir_sync(int on)
{
  atomic_store_explicit(&pld_dir_sync_fails, on, memory_order_relaxed);
}
static int dir_sync_fails(void)
{
  return atomic_load_explicit(&pld_dir_sync_fails, memory_order_relaxed);
}
#else
static int should_fail(void) { return 0; }
static int dir_sync_fails(void) { return 0; }
#endif

int pld_fsync_dir(int fd)
{
  if (dir_sync_fails()) {
    errno = EIO;
    return -1;
  }
  return fsync(fd);
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
