/* pldkit core: the FFTW engine.  A pld_fft_cache owns plans and buffers for
 * a few transform lengths and reuses them (the PLD workspace, pld/, holds
 * one); planning is serialised by one internal mutex and FFTW's planner is
 * made thread-safe once, so a host program may plan its own transforms
 * concurrently.  Execution uses the new-array interface on the cache's own
 * buffers.  Nothing here knows about privacy loss. */
#ifndef PLDKIT_FFT_H
#define PLDKIT_FFT_H

#include <stddef.h>

#include <fftw3.h>

#include <pldkit/status.h>

struct pld_fft {
  size_t n;                /* real length */
  double *x;               /* n reals */
  fftw_complex *X;         /* n/2 + 1 complex */
  fftw_complex *Y;         /* second spectrum, n/2 + 1 */
  fftw_plan fwd, inv;
  unsigned long last_use;
  int shared; /* 1 + index of the process-wide plan used, 0: own plans */
};

#define PLD_FFT_CACHE 8

struct pld_fft_cache {
  struct pld_fft slot[PLD_FFT_CACHE];
  unsigned long clock;
};

/* Smallest n' >= n of the form 2^a 3^b 5^c 7^d (fast for FFTW). */
size_t pld_fft_good_size(size_t n);
/* Smallest n' >= n among 2^k {1, 5/4, 3/2, 7/4} (at most 25% padding):
 * pairwise convolutions of varying lengths then share a few plans (an
 * FFTW_ESTIMATE plan of ~1e5 points costs 2-3 ms, ten transforms). */
size_t pld_fft_ladder_size(size_t n);
/* Once per process, before the first FFTW call: FFTW's planner becomes
 * thread-safe (fftw_make_planner_thread_safe). */
void pld_fft_init_once(void);
/* From now on, import the built-in FFTW wisdom of a ladder length before
 * planning it (src/fft.c; only where no other thread plans FFTW). */
void pld_fft_wisdom_allow(void);
/* Get (planning with FFTW flags `flags` if needed) buffers and plans of
 * length n; the least recently used slot is replaced. */
int pld_fft_cache_get(struct pld_fft_cache *c, size_t n, unsigned flags,
                      struct pld_fft **out);
/* Destroy every plan and buffer (the cache is empty afterwards). */
void pld_fft_cache_release(struct pld_fft_cache *c);

#endif
