/* pldkit internal: object layouts shared by pld/ sources.  Not installed. */
#ifndef PLDKIT_PLD_INTERNAL_H
#define PLDKIT_PLD_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <pldkit/accountant.h>
#include <pldkit/mech.h>
#include <pldkit/pld.h>

#include "fft.h"

/* at most this many parts of a built member's mass-rounding L1 (struct
 * pld_pmf, l1p): a part spans at most ~1/PLD_L1_PARTS of the grid, so that
 * the weight e^{lambda l} varies within it by e^{lambda span / PLD_L1_PARTS}
 * only (a 40-nat grid at lambda = 80: a factor of 2) */
#define PLD_L1_PARTS 2048

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
  /* Exponential tilting (docs/design.md §5a).  With tilt = lambda > 0 the
   * finite masses are stored as m_i e^{lambda (l_i - kref Delta) - lnorm}
   * (a reference index kref keeps the exponents small: lnorm stays of the
   * order of log(1/delta) however many runs are composed); umass is the
   * untilted finite mass of the exact distribution they stand for, and tabs
   * bounds the L1 distance of the stored tilted masses from that
   * distribution's tilted masses (round-off, trimming, windows).  The
   * hockey-stick error at eps is then at most tabs g(lambda) e^{lnorm -
   * lambda (eps - kref Delta)}: relative to delta(eps) itself, not to the grid's total
   * mass.  Untilted pmfs (tilt = 0) book everything in rel and abs. */
  double tilt;
  double lnorm;
  int64_t kref;
  /* an L1 bound on the mass errors behind the absolute part l1abs of abs
   * (the builder's rounding of masses where it is not relative to the
   * curve, build.c, book_mass_rounding); a tilt weighs it at the top atom
   * and drops l1abs from abs (0 if unknown) */
  double l1;
  double l1abs; /* the part of abs that l1 stands for */
  int64_t l1top; /* grid index at or above every mass error l1 covers */
  /* l1 split by grid index (l1pn > 0): l1p[b] bounds the L1 of the mass
   * errors at indices in [l1plo + b l1pw, l1plo + (b + 1) l1pw), none above
   * l1top, so a tilt weighs each part at its own top instead of all of l1
   * at l1top (owned: freed by pld_pmf_clear, duplicated by pld_pmf_copy).
   * A fine grid's mass rounding (n u each) lies all over its bulk; weighed
   * at the top atom it outgrew any delta below ~1e-28 (balanced iteration
   * at eps = 9: a tilted error of 1e19 where the parts give 4e-9). */
  double *l1p;
  size_t l1pn;
  int64_t l1plo, l1pw;
  double tabs;
  double umass;
};

struct pld_dist {
  double delta;                /* grid step */
  int symmetric;               /* direction QP equals PQ */
  size_t fft_size;             /* largest FFT used to make it */
  struct pld_pmf p[2][2];      /* [direction][rounding] */
  /* A ledger's history (file format 2, pld/file.c): hist_n records, each
   * i64 time (seconds since the epoch), u64 length, that many bytes of text
   * (no NUL); NULL/0 when none.  Copied by pld_dist_copy, not carried
   * through compositions (pld_ledger_add carries it over explicitly). */
  unsigned char *hist;
  size_t hist_len, hist_n;
};

/* pmf helpers (dist.c) */
/* Tilt an untilted pmf by lambda > 0 (normalised: the stored masses sum to
 * ~1); the rounding of the tilt is booked in tabs. */
int pld_pmf_tilt(const struct pld_pmf *src, double grid, double lambda,
                 struct pld_pmf *dst);
/* log sum_i m_i e^{lambda l_i} over the finite masses of an untilted pmf, and
 * its derivative in lambda (the tilted mean loss); -inf if no finite mass. */
double pld_pmf_logmgf(const struct pld_pmf *p, double grid, double lambda,
                      double *dlogmgf);
/* The same with K'' (the tilted variance) too, approximate (a relative
 * error of a few n u): for choosing tilts and references only. */
double pld_pmf_logmgf_fast(const struct pld_pmf *p, double grid, double lambda,
                           double *d1, double *d2);
/* A copy of d with every member tilted by lambda[dir] (0: left untilted). */
int pld_dist_tilt(const struct pld_dist *d, const double lambda[2],
                  struct pld_dist **out);
void pld_pmf_clear(struct pld_pmf *p);
int pld_pmf_alloc(struct pld_pmf *p, int64_t offset, size_t n);
int pld_pmf_copy(const struct pld_pmf *src, struct pld_pmf *dst);
double pld_pmf_mass(const struct pld_pmf *p); /* finite mass */
/* Trim leading/trailing mass below tau in the safe direction for `rounding`:
 * pessimistic moves a small lower tail up onto the first kept point and a
 * small upper tail to +infinity; optimistic drops both.  Returns status. */
int pld_pmf_trim(struct pld_pmf *p, int rounding, double tau);
int pld_dist_new(double delta, struct pld_dist **out);
/* file.c internals used by ledger.c */
int pld_dist_load_internal(const char *path, size_t max_grid,
                           struct pld_dist **out);
int pld_dist_check(const struct pld_dist *d, size_t max_grid);

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

/* The workspace (workspace.c): parameters plus the core's FFT cache. */
struct pld_workspace {
  pld_params params;
  struct pld_fft_cache fft;
  /* What a composition may trim from each side of a TILTED member (0: the
   * params' tail).  Tilted trims are booked as tilted error (tabs, §5a),
   * whose effect on an answer is tabs W(eps), not the mass itself; the
   * accountant sets it for its tilted passes when tail_mass is automatic
   * (accountant.c, tilted_tail). */
  double tilt_tail;
};
const pld_params *pld_workspace_params(const pld_workspace *ws);
/* tail_mass = 0 is automatic (pld.h): the raw PLD functions then truncate
 * at PLD_TAIL_MASS_FIXED each, the accountant derives its own (accountant.c,
 * tail_for and tilted_tail).  The tail a raw function uses: */
#define PLD_TAIL_MASS_FIXED 1e-20
double pld_params_tail(const pld_params *p);
/* Buffers and plans of length n from the workspace's cache. */
int pld_fft_get(pld_workspace *ws, size_t n, struct pld_fft **out);

/* Mechanisms (mech.c): a mechanism is its kind's type object (one const
 * struct pld_mech_type per kind, in the style of GSL's solver types), the
 * few fields every kind has (label, par, curve) and an opaque state that
 * only its kind's file reads.  Generic code (pld_mech_copy, pld_mech_equal,
 * pld_mech_free, pld_mech_pure_eps) calls through the type, so a new kind
 * is one file: its state, its type and its constructor (docs/design.md
 * §0.1). */
struct pld_mech;
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

/* Per-kind curve callbacks */
int pld_mech_gaussian_curve(void *ctx, int dir, size_t n, const double *eps,
                            double *delta);
double pld_gaussian_delta(double mu, double eps);
/* The Gaussian's tails at one point given x ~ e^eps (relative error a few
 * u; x = INFINITY or NaN: not known), which saves the exp (Poisson
 * subsampling knows it from its transform). */
void pld_gaussian_tails_x(double mu, double eps, double x, double *p_gt,
                          double *eq_gt);
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
/* Make m (of pld_mech_type_finite) the finite pair with LOG masses lp, lq
 * (-inf for 0), kept as such.  lpq: the losses log(p_i/q_i) to 2u relative
 * (NULL: lp - lq), kept too. */
int pld_mech_finite_init(struct pld_mech *m, size_t n, const double *lp,
                         const double *lq, const double *lpq);
struct pld_mech *pld_mech_new(const struct pld_mech_type *type);
static inline int pld_mech_is_bracket(const struct pld_mech *m)
{
  return m->type == &pld_mech_type_bracket;
}
/* The dominating (upper) and dominated (lower) mechanism of m: its members
 * for a bracket, m itself otherwise (docs/design.md, "Bracketed
 * mechanisms"). */
static inline const struct pld_mech *pld_mech_upper(const struct pld_mech *m)
{
  return pld_mech_is_bracket(m) ? pld_mech_kids(m)->m[0] : m;
}
static inline const struct pld_mech *pld_mech_lower(const struct pld_mech *m)
{
  return pld_mech_is_bracket(m) ? pld_mech_kids(m)->m[1] : m;
}

#define PLD_BUILTIN_REL_ERR 1e-11

/* The largest grid step (nats) of pld_dist_from_curve, pld_dist_identity and
 * PLD files; with the builder's loss range (at most PLD_LOSS_MAX = 1e9 nats)
 * a grid of this step has about 1e6 points. */
#define PLD_GRID_MAX PLD_DISCRETIZATION_MAX
/* The largest step at which the builder merges loss buckets from the tails
 * (its optimistic member needs e^Delta); above it the curve-only chord-gap
 * construction is used, sound but loose there (a left slope times e^Delta
 * can only be bounded by the curve's relative error times e^Delta).  The
 * accountant's automatic grid stays at or below it. */
#define PLD_GRID_TAILS_MAX 700.0

/* Grid-free bounds of the accountant (fallback.c, docs/design.md Sec. 9).
 * A list of groups (mechanism, count) plus the merged Gaussian mu2; complete
 * is non-zero when that is every event of the composition (upper bounds
 * need all events, lower bounds any of them). */
struct pld_fb_group {
  const pld_mech *m;
  uint64_t count;
};
typedef struct pld_fb_answer {
  pld_bound bound;
  int upper_kind, lower_kind; /* enum pld_bound_kind */
} pld_fb_answer;
int pld_fallback_epsilon(const struct pld_fb_group *g, size_t n, double mu2,
                         int complete, double delta, pld_fb_answer *out);
int pld_fallback_delta(const struct pld_fb_group *g, size_t n, double mu2,
                       int complete, double eps, pld_fb_answer *out);
/* Lower ends from the composed loss's mean and variance (Cantelli) for
 * eps(x[i]) (want_delta 0) or delta(x[i]) (want_delta 1): lower[i] holds
 * the lower end in hand and is raised where this bound is better. */
int pld_fallback_moments(const struct pld_fb_group *g, size_t n, double mu2,
                         int want_delta, size_t npts, const double *x,
                         double *lower);
/* eps0 with the mechanism (eps0, 0)-DP in both directions, rounded up;
 * +inf if not known from its constructor (its type's pure_eps, mech.c). */
double pld_mech_pure_eps(const struct pld_mech *m);

#endif
