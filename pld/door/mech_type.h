/* pldkit: the narrow door through which the papers' mechanisms enter the
 * PLD world (private; not installed).  A mechanism is its kind's type
 * object, a few fields every kind has and an opaque state only its kind's
 * file reads; composition and queries see only its hockey-stick curve
 * (<pldkit/mech.h>).  papers/ may include this header and no other PLD
 * internal (the build gives papers/ only this folder of pld/). */
#ifndef PLDKIT_PLD_MECH_TYPE_H
#define PLDKIT_PLD_MECH_TYPE_H

#include <stddef.h>

#include <pldkit/mech.h>

/* Mechanisms (mech.c): a mechanism is its kind's type object (one const
 * struct pld_mech_type per kind, in the style of GSL's solver types), the
 * few fields every kind has (label, par, curve) and an opaque state that
 * only its kind's file reads.  Generic code (pld_mech_copy, pld_mech_equal,
 * pld_mech_free, pld_mech_pure_eps) calls through the type, so a new kind
 * is one file: its state, its type and its constructor (docs/design.md
 * §0.1). */
struct pld_mech;
struct pld_mgf_ops;
struct pld_mech_type {
  const char *name;
  /* Deep-copy src's state into dst, a new mechanism of the same type whose
   * label, par and curve are src's (curve.ctx already dst).  On failure
   * dst keeps whatever it holds for free() to release.  NULL: no state. */
  int (*copy)(const struct pld_mech *src, struct pld_mech *dst);
  /* 1 if the states are equal (type, label and par are checked before).
   * NULL: no state, equal. */
  int (*equal)(const struct pld_mech *a, const struct pld_mech *b);
  /* Release the state, however partially built.  NULL: no state. */
  void (*free)(struct pld_mech *m);
  /* eps0 with the mechanism (eps0, 0)-DP in both directions, rounded up;
   * NULL: not known (+inf). */
  double (*pure_eps)(const struct pld_mech *m);
  /* A certified MGF of one run's loss (pld/inversion.h, docs/design.md
   * §16); NULL: none.  The grid-free inversion sees a kind only through it. */
  const struct pld_mgf_ops *mgf;
};

struct pld_mech {
  const struct pld_mech_type *type;
  int label;          /* which constructor of the kind, for equality */
  double par[4];      /* the kind's scalar parameters */
  void *state;        /* the kind's own data (NULL if none) */
  pld_curve curve;
};

/* The kinds (each defined in its own file). */
extern const struct pld_mech_type pld_mech_type_gaussian; /* mech_gaussian.c */
extern const struct pld_mech_type pld_mech_type_laplace;  /* mech_laplace.c */
extern const struct pld_mech_type pld_mech_type_finite; /* mech_finite.c: also
   discrete Laplace/Gaussian, randomized response, papers/allocation.c */
extern const struct pld_mech_type pld_mech_type_poisson;  /* mech_poisson.c */
extern const struct pld_mech_type pld_mech_type_user;     /* mech.c */
/* mech.c: a bracketing pair (pld_mech_bracket), children m[0] dominating
 * the mechanism and m[1] dominated by it; neither is itself a bracket */
extern const struct pld_mech_type pld_mech_type_bracket;

/* Shared state layouts, with their type entries (mech.c). */
/* Child mechanisms, optionally weighted: Poisson and WOR (the base), the
 * random selection (members, weights), the bracket (upper, lower). */
struct pld_mech_kids {
  size_t n;
  double *w; /* n weights, or NULL */
  struct pld_mech **m; /* n children (NULL until set) */
};
int pld_mech_kids_init(struct pld_mech *m, size_t n, int weighted);
int pld_mech_kids_copy(const struct pld_mech *src, struct pld_mech *dst);
int pld_mech_kids_equal(const struct pld_mech *a, const struct pld_mech *b);
void pld_mech_kids_free(struct pld_mech *m);
static inline const struct pld_mech_kids *pld_mech_kids(const struct pld_mech *m)
{
  return (const struct pld_mech_kids *)m->state;
}
/* An array of doubles (the mixtures' parameters). */
struct pld_mech_arr {
  size_t n;
  double v[];
};
double *pld_mech_arr_init(struct pld_mech *m, size_t n);
int pld_mech_arr_copy(const struct pld_mech *src, struct pld_mech *dst);
int pld_mech_arr_equal(const struct pld_mech *a, const struct pld_mech *b);
void pld_mech_arr_free(struct pld_mech *m);
static inline const double *pld_mech_arr(const struct pld_mech *m)
{
  return ((const struct pld_mech_arr *)m->state)->v;
}

/* A new mechanism of `type` with a zeroed state and the built-in curve
 * error (mech.c); NULL when out of memory. */
struct pld_mech *pld_mech_new(const struct pld_mech_type *type);

/* Make m (of pld_mech_type_finite) the finite pair with LOG masses lp, lq
 * (-inf for 0), kept as such.  lpq: the losses log(p_i/q_i) to 2u relative
 * (NULL: lp - lq), kept too (mech_finite.c). */
int pld_mech_finite_init(struct pld_mech *m, size_t n, const double *lp,
                         const double *lq, const double *lpq);

/* delta(eps) of the Gaussian pair N(mu, 1) vs N(0, 1) (mech_gaussian.c). */
double pld_gaussian_delta(double mu, double eps);
/* Certified bounds: *lo <= delta(eps) <= *hi (and *hi > 0 at finite eps,
 * where the exact value is positive); returns pld_gaussian_delta's value. */
double pld_gaussian_delta_bounds(double mu, double eps, double *lo, double *hi);

/* The relative error a built-in kind's curve books. */
#define PLD_BUILTIN_REL_ERR 1e-11

#endif
