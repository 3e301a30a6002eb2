/* pldkit PLD backend: the workspace, the PLD's parameters plus the core's
 * FFT plan cache (src/fft.h).  One per thread; plans are made once and
 * reused by every composition that runs on it. */
#include "internal.h"

#include "alloc.h"
#include "detail.h"

int pld_workspace_alloc(const pld_params *params, pld_workspace **out)
{
  pld_detail_clear();
  if (!out)
    return pld_fail_if_silent(PLD_EINVAL, "pld_workspace_alloc: out is NULL");
  pld_params def;
  if (!params) {
    pld_params_default(&def);
    params = &def;
  }
  int st = pld_params_validate(params);
  if (st)
    return st;
  pld_fft_init_once();
  pld_workspace *ws = pld_calloc(1, sizeof *ws);
  if (!ws)
    return PLD_ENOMEM;
  ws->params = *params;
  *out = ws;
  return PLD_SUCCESS;
}

void pld_workspace_free(pld_workspace *ws)
{
  if (!ws)
    return;
  pld_fft_cache_release(&ws->fft);
  pld_free(ws);
}

const pld_params *pld_workspace_params(const pld_workspace *ws)
{
  return &ws->params;
}

int pld_fft_get(pld_workspace *ws, size_t n, struct pld_fft **out)
{
  return pld_fft_cache_get(&ws->fft, n, ws->params.fftw_flags, out);
}

int pld_fftw_wisdom_enable(void)
{
  pld_fft_init_once();
  pld_fft_wisdom_allow();
  return PLD_SUCCESS;
}
