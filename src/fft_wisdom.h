/* pldkit core: the built-in FFTW wisdom, one string per FFT ladder length
 * (generated at build time by tools/gen_fftw_wisdom.c; src/fft.c imports a
 * length's string just before planning it, once the host has allowed it). */
#ifndef PLDKIT_FFT_WISDOM_H
#define PLDKIT_FFT_WISDOM_H

#include <stddef.h>

struct pld_fft_wisdom {
  size_t n;         /* the real FFT length */
  const char *text; /* fftw_export_wisdom_to_string of its r2c and c2r plans */
};

/* sorted by n; pld_fft_wisdom_count entries (0: built without wisdom) */
extern const struct pld_fft_wisdom pld_fft_wisdom_table[];
extern const size_t pld_fft_wisdom_count;

#endif
