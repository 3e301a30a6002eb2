/* pldkit internal allocation.  All library allocations go through these, so
 * that the test suite can fail the i-th allocation (failing-allocator sweep). */
#ifndef PLDKIT_ALLOC_H
#define PLDKIT_ALLOC_H
#include <stddef.h>

void *pld_malloc(size_t size);
void *pld_calloc(size_t n, size_t size);
void pld_free(void *p);
/* FFTW-aligned buffers (fftw_malloc), counted like the others. */
void *pld_fftw_malloc(size_t size);
void pld_fftw_free(void *p);
/* Multiply with overflow check: returns 0 and sets *out, or 1 on overflow. */
int pld_mul_size(size_t a, size_t b, size_t *out);

/* fsync of a directory descriptor; the test-only hooks build can make it
 * fail (pld_test_fail_dir_sync) to test what a failed directory sync
 * reports. */
int pld_fsync_dir(int fd);

#endif
