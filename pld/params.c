/* pldkit: parameter defaults and validation. */
#include <math.h>

#include <fftw3.h>

#include <pldkit/pld.h>

void pld_params_default(pld_params *params)
{
  if (!params)
    return;
  params->discretization = 0.0;
  params->accuracy = 2e-3;
  params->abs_accuracy = 1e-4;
  params->tail_mass = 1e-20;
  params->max_grid = (size_t)1 << 23;
  params->fftw_flags = FFTW_ESTIMATE;
}

int pld_params_validate(const pld_params *p)
{
  if (!p)
    return PLD_EINVAL;
  if (!isfinite(p->discretization) || p->discretization < 0.0)
    return PLD_EINVAL;
  if (!(p->accuracy > 0.0 && p->accuracy < 1.0))
    return PLD_EINVAL;
  if (!(p->abs_accuracy >= 0.0) || !isfinite(p->abs_accuracy))
    return PLD_EINVAL;
  if (!(p->tail_mass > 0.0 && p->tail_mass <= 1e-3))
    return PLD_EINVAL;
  if (p->max_grid < 16 || p->max_grid > ((size_t)1 << 31))
    return PLD_EINVAL;
  return PLD_SUCCESS;
}
