/* pldkit: the accountant's curve with brackets the caller already has
 * (private; not installed): the door bounds/best.c uses to hand the RDP
 * bound's brackets to the grid's refinement. */
#ifndef PLDKIT_PLD_CURVE_GIVEN_H
#define PLDKIT_PLD_CURVE_GIVEN_H

#include <stddef.h>

#include <pldkit/accountant.h>

/* pld_accountant_curve with certified brackets the caller already has for
 * the points (given[i], NULL: none; bounds/best.c passes the RDP bound's):
 * with a delta floor (pld_params) a point they put at or below it meets its
 * target before any grid, and they are intersected into the answer. */
int pld_accountant_curve_given(const pld_accountant *acc, size_t n,
                               const double *eps, const pld_bound *given,
                               pld_bound *out, pld_result *info);

#endif
