/* pldkit papers layer, private: what papers/participation.c (validation,
 * closed forms, calibration) and papers/participation_thm41.c (Theorem 4.1,
 * its certified lower limit and its quadrature) share. */
#ifndef PLDKIT_PARTICIPATION_INTERNAL_H
#define PLDKIT_PARTICIPATION_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <pldkit/participation.h>

#include "numerics.h"

/* Booked relative error of the closed forms: that of the built-in Gaussian
 * curve they are made of (pld_gaussian_delta). */
#define CF_REL PLD_BUILTIN_REL_ERR
#define D_MAX 1000000000000000LL /* 1e15 < 2^53: (double)d is exact */
#define SIGMA_FLOOR 1e-4         /* calibration range, in units of C */
#define SIGMA_CEIL 1e12
#define CUT_THM 745.0   /* log-weight cut for eq. (6)/(7): below underflow */
#define CUT_LIMIT 80.0  /* for the instances (booked) */
#define CUT_QUAD 120.0  /* for the quadrature (booked) */

/* Binomial(d, q) log-weights on the window of indices whose weight is at
 * least e^-cut of the largest (part_binwin_make). */
typedef struct binwin {
  int64_t d, lo, hi;
  double *lw; /* lw[i - lo] = log b_i */
} binwin;

/* eps finite and >= 0. */
int part_eps_ok(double e);
/* PLD_SUCCESS, PLD_EINVAL or PLD_ERANGE (C/sigma not a positive finite),
 * with the error detail set. */
int part_check_params(const pld_participation_params *par, int need_sigma);
/* P(a < Z < b) for a standard normal Z, with its absolute error in *err. */
double part_normal_mass(double a, double b, double *err);
/* log sum exp(x[i]). */
double part_lse_arr(const double *x, size_t n);
/* Shrink the bracket [lo, hi] of a sign change of f to relative width
 * rtol: the final bracket in [*a, *b]. */
int part_root_refine(pld_scalar_fn f, void *ctx, double lo, double hi,
                     double rtol, double *a, double *b);
int part_binwin_make(int64_t d, double q, double cut, binwin *w);
/* The value of a closed-form analysis (no validation). */
double part_cf_value(const pld_participation_params *par, int analysis,
                     double eps);
/* Theorem 4.1's value and flags at eps (participation_thm41.c). */
int part_thm41_core(const pld_participation_params *par, double eps,
                    pld_participation_thm41 *r);

#endif
