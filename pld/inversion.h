/* pldkit internal: the grid-free Laplace-inversion query (pld/inversion.c,
 * docs/design.md §16) and the optional capability of a mechanism kind it
 * needs: a certified moment generating function of one run's loss.
 * Not installed. */
#ifndef PLDKIT_PLD_INVERSION_H
#define PLDKIT_PLD_INVERSION_H

#include <stddef.h>
#include <stdint.h>

#include <pldkit/pld.h>

struct pld_mech;

/* A step's MGF M_dir(s) = E[e^{s L}] of its loss L in direction dir
 * (PLD_DIR_PQ: L = log(p/q) under P; PLD_DIR_QP: log(q/p) under Q), on the
 * line s = c + i t, c > 0.  Every kind that has one fills a static table of
 * these and points its pld_mech_type.mgf at it; the inversion knows nothing
 * else about the mechanism (design.md §16.1). */
struct pld_mgf_ops {
  /* non-zero if m's MGF is available (a kind may support only some of its
   * instances, e.g. Poisson subsampling of a Gaussian base) */
  int (*has)(const struct pld_mech *m);
  /* An evaluator *ev of M(c + i t) for |t| <= tmax, aimed at an absolute
   * accuracy tol (M(c) >= 1); c must be a multiple of 2^-20 in (0, 2^20)
   * (so that 1 + c is exact).  Freed by release. */
  int (*prepare)(const struct pld_mech *m, int dir, double c, double tmax,
                 double tol, void **ev);
  /* The ball |M(c + i t) - (re + i im)| <= rad, |t| <= tmax, every error
   * source bounded (quadrature, truncation, rounding). */
  void (*at)(const void *ev, double t, double *re, double *im, double *rad);
  void (*release)(void *ev);
  /* Decay facts at abscissa c, for every real t: |M(c + i t)| <= atom +
   * tv / |t| (atom: the part that does not decay, e.g. the mass of atoms of
   * the loss; 0 for a loss with a density), and t -> |M(c + i t)| is
   * Lipschitz with constant lip. */
  int (*decay)(const struct pld_mech *m, int dir, double c, double *atom,
               double *tv, double *lip);
  /* Approximate K = log M(c) and its first two derivatives in c (to choose
   * the abscissa; not certified). */
  int (*cgf)(const struct pld_mech *m, int dir, double c, double *k0,
             double *k1, double *k2);
};

/* The MGF ops of a mechanism, or NULL if it has none. */
const struct pld_mgf_ops *pld_mech_mgf(const struct pld_mech *m);

/* The Poisson kind's ops (pld/mgf_poisson.c): a Gaussian base only. */
extern const struct pld_mgf_ops pld_mgf_poisson_ops;
/* The Laplace kind's ops (pld/mgf_laplace.c). */
extern const struct pld_mgf_ops pld_mgf_laplace_ops;

/* One group of the composition: a mechanism with MGF, run count times. */
struct pld_inv_group {
  const struct pld_mech *m;
  uint64_t count;
};

/* delta(eps) bracket of the composition of the groups and a Gaussian with
 * mu^2 in [mu2 (1 - mu2_rel), mu2 (1 + mu2_rel)] (mu2 = 0: none), max over
 * both directions.  The bracket is certified whatever its width; *out is
 * written on success only. */
int pld_inversion_delta(const struct pld_inv_group *g, size_t n, double mu2,
                        double mu2_rel, double eps, pld_bound *out);
/* epsilon(delta) bracket, delta in (0, 1), by bracketed search on the
 * certified delta brackets; rel_tol: the relative width aimed at. */
int pld_inversion_epsilon(const struct pld_inv_group *g, size_t n, double mu2,
                          double mu2_rel, double delta, double rel_tol,
                          pld_bound *out);

#endif
