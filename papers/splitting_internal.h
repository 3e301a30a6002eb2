/* pldkit papers layer, private: the reverse splitting divergence for
 * k = 1 (and the Poisson + splitting pair), split from papers/
 * splitting_rdp.c into papers/splitting_reverse.c. */
#ifndef PLDKIT_SPLITTING_INTERNAL_H
#define PLDKIT_SPLITTING_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

/* c/sigma beyond which no reverse quadrature is tried */
#define S_QUAD_MAX 8.0

/* Non-zero (PLD_EINVAL) when (alpha, d, k, sigma, c) is outside the
 * splitting domain; the failed check is recorded (pld_error_detail). */
int split_bad_args(double alpha, int64_t d, int64_t k, double sigma,
                   double c);

/* out[i] >= (1/beta) log E_Q[(q/p)^beta], beta = orders[i] - 1, for the
 * pair of one block out of dd with Poisson rate gamma and c/sigma = s: a
 * proven upper bound at every order (docs/design.md, "The reverse
 * splitting divergence").  @return a pld_status. */
int split_reverse_k1_batch(size_t n, const double *orders, double dd,
                           double s, double gamma, double *out);

#endif
