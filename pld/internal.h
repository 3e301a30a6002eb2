/* pldkit internal: object layouts shared by pld/ sources.  Not installed. */
#ifndef PLDKIT_PLD_INTERNAL_H
#define PLDKIT_PLD_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <pldkit/accountant.h>
#include <pldkit/mech.h>
#include <pldkit/pld.h>

/* One stored loss distribution: masses[i] at loss (offset + i) * Delta, and
 * inf at +infinity.  Its hockey-stick curve d(x) = inf + sum m_i (1 - x e^{-l_i})_+
 * differs from the exact (ideal) one of its rounding by at most
 * rel * d_ideal(x) + abs for every x >= 0 (booked floating-point error). */
struct pld_pmf {
  int64_t offset;
  size_t n;
  double *m;
  double inf;
  double rel;
  double abs;
};

struct pld_dist {
  double delta;                /* grid step */
  int symmetric;               /* direction QP equals PQ */
  size_t fft_size;             /* largest FFT used to make it */
  struct pld_pmf p[2][2];      /* [direction][rounding] */
};

/* pmf helpers (dist.c) */
void pld_pmf_clear(struct pld_pmf *p);
int pld_pmf_alloc(struct pld_pmf *p, int64_t offset, size_t n);
int pld_pmf_copy(const struct pld_pmf *src, struct pld_pmf *dst);
double pld_pmf_mass(const struct pld_pmf *p); /* finite mass */
/* Trim leading/trailing mass below tau in the safe direction for `rounding`:
 * pessimistic moves a small lower tail up onto the first kept point and a
 * small upper tail to +infinity; optimistic drops both.  Returns status. */
int pld_pmf_trim(struct pld_pmf *p, int rounding, double tau);
int pld_dist_new(double delta, struct pld_dist **out);

/* compose.c internals used by the accountant */
int pld_pmf_convolve(const struct pld_pmf *a, const struct pld_pmf *b,
                     int rounding, double tau, size_t max_grid,
                     pld_workspace *ws, struct pld_pmf *out, size_t *fft_n);
int pld_pmf_self_convolve(const struct pld_pmf *a, uint64_t T, int rounding,
                          double tau, size_t max_grid, pld_workspace *ws,
                          struct pld_pmf *out, size_t *fft_n);

/* query.c internals */
double pld_pmf_delta(const struct pld_pmf *p, double delta_grid, double eps,
                     int sgn);
/* Variance and mean (in nats) of a pmf's finite part, normalised. */
void pld_pmf_moments(const struct pld_pmf *p, double delta_grid, double *mean,
                     double *var);

/* workspace internals (src/fft.c) */
const pld_params *pld_workspace_params(const pld_workspace *ws);

/* Mechanisms (mech.c) */
enum pld_mech_kind {
  PLD_MECH_GAUSSIAN = 1,
  PLD_MECH_LAPLACE,
  PLD_MECH_FINITE, /* also discrete Laplace/Gaussian, randomized response */
  PLD_MECH_POISSON,
  PLD_MECH_USER,
  PLD_MECH_MIXTURE, /* Gaussian mixture pair */
  PLD_MECH_WOR,     /* sampling without replacement (base: Poisson PQ) */
  PLD_MECH_SELECT,  /* random selection among member mechanisms */
  PLD_MECH_BOUNDED, /* rectified Gaussian on a bounded support */
  PLD_MECH_MIXTURE_GENERAL /* Gaussian mixtures with per-component sigma */
};

struct pld_mech {
  int kind;
  int label;          /* the constructor used, for equality */
  double par[4];      /* kind-specific parameters */
  /* finite pairs: atoms sorted by loss, per direction */
  size_t n;
  double *p, *q;      /* the pair's log masses (for copies and equality) */
  double *loss[2];    /* sorted descending finite losses per direction */
  double *sp[2], *sq[2]; /* suffix sums of first argument masses; W and V
                            (pld/mech_finite.c), k + 1 each */
  size_t nfin[2];
  double infmass[2];  /* mass of the first argument where the second is 0 */
  struct pld_mech *base; /* Poisson, WOR: the base mechanism */
  double *arr;           /* kind-specific array (mixture: means, weights) */
  size_t narr;
  struct pld_mech **members; /* selection members (weights in arr) */
  size_t nmembers;
  pld_curve curve;
};

/* Per-kind curve callbacks */
int pld_mech_gaussian_curve(void *ctx, int dir, size_t n, const double *eps,
                            double *delta);
double pld_gaussian_delta(double mu, double eps);
/* Certified bounds: *lo <= delta(eps) <= *hi (and *hi > 0 at finite eps,
 * where the exact value is positive); returns pld_gaussian_delta's value. */
double pld_gaussian_delta_bounds(double mu, double eps, double *lo, double *hi);
/* The same in log space (no underflow): *llo <= log delta(eps) <= *lhi. */
double pld_gaussian_log_delta(double mu, double eps, double *llo, double *lhi);
/* A bound on (mu/delta) d delta/d mu over the useful range of eps: the
 * relative effect of a relative error in mu. */
double pld_gaussian_mu_sens(double mu);
int pld_mech_laplace_curve(void *ctx, int dir, size_t n, const double *eps,
                           double *delta);
int pld_mech_finite_curve(void *ctx, int dir, size_t n, const double *eps,
                          double *delta);
int pld_mech_poisson_curve(void *ctx, int dir, size_t n, const double *eps,
                           double *delta);
int pld_mech_gaussian_tails(void *ctx, int dir, size_t n, const double *eps,
                            double *p_gt, double *eq_gt);
int pld_mech_laplace_tails(void *ctx, int dir, size_t n, const double *eps,
                           double *p_gt, double *eq_gt);
int pld_mech_finite_tails(void *ctx, int dir, size_t n, const double *eps,
                          double *p_gt, double *eq_gt);
int pld_mech_poisson_tails(void *ctx, int dir, size_t n, const double *eps,
                           double *p_gt, double *eq_gt);
/* lp, lq: LOG masses (-inf for 0); kept as such in m->p, m->q.  lpq: the
 * losses log(p_i/q_i) to 2u relative (NULL: lp - lq), kept in m->arr. */
int pld_mech_finite_init(struct pld_mech *m, size_t n, const double *lp,
                         const double *lq, const double *lpq);
int pld_mech_mixture_setup(struct pld_mech *m);
int pld_mech_select_setup(struct pld_mech *m);
int pld_mech_wor_setup(struct pld_mech *m);
struct pld_mech *pld_mech_new(int kind);

#define PLD_BUILTIN_REL_ERR 1e-11

#endif
