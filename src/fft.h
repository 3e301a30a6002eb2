/* pldkit internal: the FFTW convolution engine.  A pld_workspace owns plans
 * and buffers for a few transform lengths and reuses them; planning is
 * serialised by one internal mutex because the FFTW planner is not
 * thread-safe.  Execution uses the new-array interface on the workspace's
 * own buffers. */
#ifndef PLDKIT_FFT_H
#define PLDKIT_FFT_H

#include <stddef.h>

#include <fftw3.h>

#include <pldkit/pld.h>

struct pld_fft {
  size_t n;                /* real length */
  double *x;               /* n reals */
  fftw_complex *X;         /* n/2 + 1 complex */
  fftw_complex *Y;         /* second spectrum, n/2 + 1 */
  fftw_plan fwd, inv;
  unsigned long last_use;
};

#define PLD_FFT_CACHE 8

struct pld_workspace {
  pld_params params;
  struct pld_fft cache[PLD_FFT_CACHE];
  unsigned long clock;
};

/* Smallest n' >= n of the form 2^a 3^b 5^c 7^d (fast for FFTW). */
size_t pld_fft_good_size(size_t n);
/* Smallest n' >= n among 2^k {1, 5/4, 3/2, 7/4} (at most 25% padding):
 * pairwise convolutions of varying lengths then share a few plans (an
 * FFTW_ESTIMATE plan of ~1e5 points costs 2-3 ms, ten transforms). */
size_t pld_fft_ladder_size(size_t n);
/* Get (planning if needed) buffers and plans of length n. */
int pld_fft_get(pld_workspace *ws, size_t n, struct pld_fft **out);

#endif
