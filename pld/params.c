/* pldkit: parameter defaults and validation. */
#include <math.h>

#include <fftw3.h>

#include <pldkit/pld.h>
#include "detail.h"
#include "internal.h"

void pld_params_default(pld_params *params)
{
  if (!params)
    return;
  params->discretization = 0.0;
  params->accuracy = 2e-3;
  params->abs_accuracy = 1e-4;
  params->tail_mass = 0.0; /* automatic (pld.h) */
  params->max_grid = (size_t)1 << 23;
  params->fftw_flags = FFTW_ESTIMATE;
  params->delta_floor = 0.0; /* PLD_DELTA_FLOOR */
}

int pld_params_validate(const pld_params *p)
{
  pld_detail_clear();
  if (!p)
    return pld_fail(PLD_EINVAL, "params is NULL");
  if (!isfinite(p->discretization) || p->discretization < 0.0)
    return pld_fail(PLD_EINVAL, "discretization = %g must be finite and >= 0 (0: automatic)",
                    p->discretization);
  if (!(p->accuracy > 0.0 && p->accuracy < 1.0))
    return pld_fail(PLD_EINVAL, "accuracy = %g must be in (0, 1)", p->accuracy);
  if (!(p->abs_accuracy >= 0.0) || !isfinite(p->abs_accuracy))
    return pld_fail(PLD_EINVAL, "abs_accuracy = %g must be finite and >= 0",
                    p->abs_accuracy);
  if (!(p->tail_mass >= 0.0 && p->tail_mass <= 1e-3))
    return pld_fail(PLD_EINVAL, "tail_mass = %g must be in [0, 1e-3] (0: automatic)",
                    p->tail_mass);
  if (p->max_grid < 16 || p->max_grid > ((size_t)1 << 31))
    return pld_fail(PLD_EINVAL, "max_grid = %zu must be in [16, 2^31]", p->max_grid);
  if (!(p->delta_floor >= 0.0 && p->delta_floor < 1.0))
    return pld_fail(PLD_EINVAL, "delta_floor = %g must be in [0, 1) (0: PLD_DELTA_FLOOR)",
                    p->delta_floor);
  return PLD_SUCCESS;
}

double pld_params_tail(const pld_params *p)
{
  return p->tail_mass > 0.0 ? p->tail_mass : PLD_TAIL_MASS_FIXED;
}

int pld_bound_meets(const pld_params *p, pld_bound b, int is_delta)
{
  if (!p || isnan(b.lower) || isnan(b.upper))
    return 0;
  if (!is_delta && b.lower == INFINITY)
    return 1; /* no finite epsilon, and that is certain */
  if (b.upper == INFINITY)
    return 0;
  double floor = is_delta ? fmax(PLD_DELTA_FLOOR, p->delta_floor)
                         : p->abs_accuracy;
  return b.upper - b.lower <= fmax(p->accuracy * b.upper, floor);
}
