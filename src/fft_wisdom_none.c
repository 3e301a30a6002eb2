/* pldkit core: no built-in FFTW wisdom (meson option fftw_wisdom=false, or
 * a cross build, where the generator cannot run on the build machine). */
#include "fft_wisdom.h"

const struct pld_fft_wisdom pld_fft_wisdom_table[] = {{0, ""}};
const size_t pld_fft_wisdom_count = 0;
