/* pldkit: privacy loss distributions (PLDs).
 *
 * Model.  A mechanism M run on neighbouring datasets D, D' gives output
 * distributions P = M(D) and Q = M(D').  Its privacy is fully described by
 * the hockey-stick curve in both directions,
 *
 *     delta_PQ(eps) = H_{e^eps}(P || Q) = int (p - e^eps q)_+ ,
 *     delta_QP(eps) = H_{e^eps}(Q || P),
 *
 * and (eps, delta)-DP holds iff max(delta_PQ(eps), delta_QP(eps)) <= delta.
 * Direction PLD_DIR_PQ is the "remove" direction when P is the dataset that
 * holds the record, PLD_DIR_QP the "add" direction.  All losses are in nats.
 *
 * A pld_dist stores, for each direction, the distribution of the privacy loss
 * L = log(p/q) under the first argument on the grid {i * Delta}, plus a mass at
 * +infinity, in two roundings built in one pass:
 *   - PLD_PESSIMISTIC: a distribution whose hockey-stick curve lies above the
 *     true one at every e^eps >= 0 (connect-the-dots, Doroshenko et al. 2022);
 *   - PLD_OPTIMISTIC: one whose curve lies below the true one everywhere (the
 *     dominated counterpart: tangent lines of the convex curve x -> delta(log x),
 *     see pld/build.c).
 * Domination in this sense is preserved by composition, so composing the
 * pessimistic (optimistic) members gives an upper (lower) bound of the
 * composed mechanism.  Floating-point error is booked as a relative and an
 * absolute slack on the curve, and queries widen the bracket by it.
 *
 * Every answer is a bracket {lower, upper}: `upper` is the guarantee,
 * `lower` an optimistic estimate; the true value lies in between.
 *
 * Thread safety: distinct objects may be used from different threads; one
 * workspace must not be used by two threads at once.  FFTW: the library
 * calls fftw_make_planner_thread_safe() once when it is loaded (before main
 * for a program linked with it; at dlopen for one that loads it later), so
 * a host program may create and destroy its own FFTW plans in other threads
 * before and while pldkit runs.  The one order left to the host: a program
 * that dlopens pldkit while its own threads are planning (the switch itself
 * is not atomic with their planning) should load it before starting them.
 */
#ifndef PLDKIT_PLD_H
#define PLDKIT_PLD_H

#include <stddef.h>
#include <stdint.h>

#include <pldkit/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A bracket around an epsilon or delta: lower <= true value <= upper.
 *  `upper` is certified (never below the truth); `lower` is the optimistic
 *  estimate.  epsilon may be +INFINITY; delta lies in [0, 1]. */
typedef struct pld_bound {
  double lower;
  double upper;
} pld_bound;

/** Adjacency directions. */
enum pld_direction { PLD_DIR_PQ = 0, PLD_DIR_QP = 1 };

/** The two roundings kept for every PLD. */
enum pld_rounding { PLD_PESSIMISTIC = 0, PLD_OPTIMISTIC = 1 };

/* ------------------------------------------------------------------------ */
/* The door: a mechanism's hockey-stick curve.                               */

/** Evaluate a mechanism's hockey-stick curve.
 *
 *  Fill delta[i] = H_{e^{eps[i]}}(P||Q) (dir == PLD_DIR_PQ) or H(Q||P)
 *  (dir == PLD_DIR_QP) for i < n.  eps[i] may be any finite real (negative
 *  too: the builder needs the whole curve) and +INFINITY, where the value is
 *  the mass P puts where Q has none.  Return 0 on success, non-zero on error
 *  (the builder then fails with PLD_ECALLBACK, or with PLD_ENOMEM when the
 *  callback returned PLD_ENOMEM).  The values must be accurate
 *  to a relative error of `rel_err` (see pld_curve). */
typedef int (*pld_hockey_fn)(void *ctx, int dir, size_t n, const double *eps,
                             double *delta);

/** Optional: the privacy-loss tails behind the curve.
 *
 *  Fill p_gt[i] = P[L > eps[i]] and eq_gt[i] = e^{eps[i]} Q[L > eps[i]] for
 *  L = log(p/q) (dir == PLD_DIR_PQ; swap P and Q for PLD_DIR_QP), strict
 *  inequalities, atoms at L = +inf counted in p_gt.  Then delta = p_gt -
 *  eq_gt.  With tails the optimistic PLD is built by merging neighbouring
 *  loss buckets onto the grid (a post-processing, see pld/build.c), whose
 *  error does not accumulate over compositions; without them a weaker
 *  chord-gap construction is used.  Return 0 on success. */
typedef int (*pld_tails_fn)(void *ctx, int dir, size_t n, const double *eps,
                            double *p_gt, double *eq_gt);

/** A mechanism's privacy, as seen by the PLD builder.  This is the only thing
 *  the PLD world learns of a mechanism. */
typedef struct pld_curve {
  pld_hockey_fn delta; /**< the hockey-stick curve, both directions */
  void *ctx;           /**< passed to `delta` unchanged */
  double rel_err;      /**< relative accuracy of `delta` (>= 0, e.g. 1e-13) */
  int symmetric;       /**< non-zero if both directions have the same curve */
  double loss_scale;   /**< rough size of typical losses in nats (> 0); only a
                            starting point for range searches */
  pld_tails_fn tails;  /**< optional (may be NULL), same ctx and accuracy */
  double loss_lattice; /**< if > 0, every finite loss (both directions) is an
                            integer multiple of it: a grid step dividing it
                            makes the PLD exact (0 = no such lattice) */
} pld_curve;

/* ------------------------------------------------------------------------ */
/* Parameters.                                                               */

/** Knobs shared by construction, composition and the accountant.  Obtain the
 *  defaults with pld_params_default() and change what you need. */
typedef struct pld_params {
  double discretization; /**< grid step Delta in nats; 0 = automatic (default) */
  double accuracy;       /**< automatic Delta: target relative bracket width
                              (upper - lower) / upper, default 2e-3 (0.2%) */
  double abs_accuracy;   /**< absolute floor of that target (epsilon in nats,
                              delta as probability), default 1e-4 for epsilon;
                              delta queries use max(accuracy * delta,
                              PLD_DELTA_FLOOR): relative down to where
                              doubles end (pld_bound_meets) */
  double tail_mass;      /**< probability mass each truncation may move to
                              +infinity (pessimistic) or drop (optimistic);
                              default 0 = automatic: pld_dist_* functions
                              then use 1e-20; the accountant, for an epsilon
                              query, cuts each build's tails at its share of
                              a hundredth of the accuracy asked
                              (1e-2 accuracy delta / runs) and trims tilted
                              compositions at a share of 1e-4 of the
                              accuracy (booked as tilted error), and for
                              delta and curve queries uses at most 1e-20 */
  size_t max_grid;       /**< cap on grid points of any one array (memory),
                              default 1 << 23 (8M points, 64 MiB per array);
                              larger needs give PLD_ERANGE; the accountant
                              also holds every distinct group's PLD at
                              once, at most max(2^28, 32 max_grid) points
                              in all (2 GiB at the default), past which a
                              grid does not fit either */
  unsigned fftw_flags;   /**< FFTW planner flags, default FFTW_ESTIMATE (0x40),
                              which keeps results bit-reproducible */
  double delta_floor;    /**< the smallest delta of interest: the absolute
                              floor of a delta bracket's target width,
                              max(accuracy * upper, delta_floor,
                              PLD_DELTA_FLOOR) (pld_bound_meets), so that a
                              bracket whose certified upper end is at or
                              below it meets its target whatever its lower
                              end; a curve stops refining for such points
                              and spends no tilt on them.  Default 0: the
                              floor is PLD_DELTA_FLOOR (relative down to
                              where doubles end) */
} pld_params;

/** Fill *params with the defaults listed above.  NULL is a no-op. */
PLD_API void pld_params_default(pld_params *params);

/** Check a parameter set.  Valid: discretization finite and >= 0, accuracy
 *  in (0, 1), abs_accuracy finite and >= 0, tail_mass in [0, 1e-3],
 *  max_grid in [16, 2^31], delta_floor in [0, 1); fftw_flags is not
 *  checked.
 *  @return PLD_SUCCESS or PLD_EINVAL (out of domain, or NULL). */
PLD_API PLD_NODISCARD int pld_params_validate(const pld_params *params);

/** Absolute floor of a delta bracket's target width (pld_bound_meets): the
 *  tilted composition keeps delta's round-off relative to delta itself, so
 *  the target stays relative down to where doubles end. */
#define PLD_DELTA_FLOOR 1e-300

/** Whether the bracket b meets the target width of *params -- the rule
 *  every answer's met_accuracy follows (accountant, RDP-improved answers,
 *  CLI, Python): upper - lower <= max(accuracy * upper, floor), the floor
 *  being abs_accuracy for an epsilon bracket (is_delta = 0) and the larger
 *  of delta_floor and PLD_DELTA_FLOOR for a delta bracket.  An epsilon known to be infinite
 *  (lower = +inf) meets any target; an otherwise infinite upper end, a
 *  NaN end or a NULL params none.
 *  @return 1 if met, else 0 (a predicate, not a status). */
PLD_API int pld_bound_meets(const pld_params *params, pld_bound b,
                            int is_delta);

/* ------------------------------------------------------------------------ */
/* Workspace: owns FFTW plans and buffers, reused across compositions.       */

typedef struct pld_workspace pld_workspace;

/** Allocate a workspace.  *params is copied (NULL: defaults); compositions
 *  run with this workspace use its tail_mass, max_grid and fftw_flags.  FFTW
 *  plans are made lazily and cached (a few lengths, least recently used
 *  evicted).  The caller frees *out with pld_workspace_free.
 *  @return PLD_SUCCESS, PLD_EINVAL (out NULL, invalid params), PLD_ENOMEM. */
PLD_API PLD_NODISCARD int pld_workspace_alloc(const pld_params *params,
                                              pld_workspace **out);
/** Free a workspace and its FFTW plans.  NULL is a no-op. */
PLD_API void pld_workspace_free(pld_workspace *ws);

/** Let pldkit import its built-in FFTW wisdom before it plans an FFT
 *  length of its ladder (2^k times 1, 5/4, 3/2, 7/4, from 64 to 2^23).
 *  The wisdom was made at build time with FFTW_ESTIMATE against the same
 *  libfftw3, and FFTW accepts it only under the configuration (FFTW
 *  version, the CPU's SIMD solvers) it was made with: a plan is then the
 *  one FFTW_ESTIMATE makes -- the same answers to the last bit -- found by
 *  look-up instead of the planner's search (about 1 ms instead of 5-9 ms
 *  per new length in a process).  Elsewhere nothing changes.  Lengths
 *  planned with other fftw_flags are not affected.  FFTW's wisdom import is
 *  not covered by fftw_make_planner_thread_safe(): call this only in a
 *  program in which no other thread plans FFTW transforms while pldkit
 *  runs (the pldkit CLI does).  A build with -Dfftw_wisdom=false has no
 *  wisdom to import.
 *  @return PLD_SUCCESS. */
PLD_API int pld_fftw_wisdom_enable(void);

/* ------------------------------------------------------------------------ */
/* PLD objects.                                                              */

typedef struct pld_dist pld_dist;

/** Largest grid step Delta (nats) of pld_dist_from_curve, pld_dist_identity
 *  and PLD files. */
#define PLD_DISCRETIZATION_MAX 1000.0
/** Largest loss (nats) pld_dist_from_curve resolves: a grid stops there
 *  (about 1e6 points at the largest step).  Mass above it goes to +infinity
 *  in the pessimistic member and down onto the top grid point in the
 *  optimistic one, so epsilons beyond it are bracketed as
 *  [about PLD_LOSS_MAX, +INFINITY]. */
#define PLD_LOSS_MAX 1e9

/** Build the PLD pair (both directions, both roundings) of a mechanism from
 *  its hockey-stick curve on the grid of step `discretization` (Delta, in
 *  [1e-9, 1000] nats; below 1e-9 gives PLD_ERANGE, above 1000 PLD_EINVAL).
 *  The curve must have a non-NULL delta, rel_err in [0, 1e-3) and a finite
 *  loss_scale > 0.  params may be NULL (defaults); neither it nor the curve
 *  is retained.  Losses whose upper tail carries at most params->tail_mass
 *  are truncated (to +infinity when pessimistic, dropped when optimistic);
 *  the grid spans at most [-700, PLD_LOSS_MAX] nats (below -700 lies at
 *  most e^-700 of the mass; above PLD_LOSS_MAX, see there).
 *  A callback failure, or a value outside [-1e-12, 1 + 1e-12], gives
 *  PLD_ECALLBACK (PLD_ENOMEM if the callback returned PLD_ENOMEM).  The
 *  caller frees *out with pld_dist_free.
 *  Cost: O(grid) time and memory, grid = loss range / Delta, with the curve
 *  (and tails) evaluated in a few batched calls.
 *  @return PLD_SUCCESS, PLD_EINVAL (bad curve, Delta or params, NULL),
 *  PLD_ERANGE (Delta < 1e-9, or grid over params->max_grid), PLD_ENOMEM,
 *  PLD_ECALLBACK. */
PLD_API PLD_NODISCARD int pld_dist_from_curve(const pld_curve *curve,
                                              double discretization,
                                              const pld_params *params,
                                              pld_dist **out);

/** The identity PLD (a mechanism that reveals nothing): all mass at loss 0,
 *  exact, on the grid of step `discretization` in [1e-9, 1000] (the range
 *  of pld_dist_from_curve and of PLD files).  The caller frees *out with pld_dist_free.
 *  @return PLD_SUCCESS, PLD_EINVAL (bad step, out NULL), PLD_ENOMEM. */
PLD_API PLD_NODISCARD int pld_dist_identity(double discretization,
                                            pld_dist **out);

/** Deep copy (caller frees *out with pld_dist_free).  Cost O(grid).
 *  @return PLD_SUCCESS, PLD_EINVAL (NULL), PLD_ENOMEM. */
PLD_API PLD_NODISCARD int pld_dist_copy(const pld_dist *src, pld_dist **out);

/** Free a PLD.  NULL is a no-op. */
PLD_API void pld_dist_free(pld_dist *d);

/** Compose two PLDs on the same grid (bit-identical Delta): convolution per
 *  direction and rounding, direct when the inputs are sparse, else by FFT
 *  with its round-off booked.  The inputs are not modified; the caller frees
 *  *out with pld_dist_free.  `ws` may be NULL (a temporary workspace with
 *  default params is used); its params set the tail truncation (tail_mass)
 *  and the size cap (max_grid).  Cost O(N log N), N ~ size(a) + size(b).
 *  @return PLD_SUCCESS, PLD_EINVAL (NULL), PLD_EINCOMPAT (different Delta),
 *  PLD_ERANGE (result over max_grid, or offsets overflow), PLD_ENOMEM,
 *  PLD_EFFT. */
PLD_API PLD_NODISCARD int pld_dist_compose(const pld_dist *a, const pld_dist *b,
                                           pld_workspace *ws, pld_dist **out);

/** T-fold self-composition, T in [1, 2^53] (T = 1 is a copy): one forward
 *  FFT, a pointwise power and one inverse FFT on a window sized by a Chernoff
 *  tail bound; inputs with at most 64 non-zero masses use binary powering
 *  by pairwise convolutions instead.  Mass outside the window goes to
 *  +infinity (pessimistic) or is dropped (optimistic).  `ws`, ownership and
 *  params as for pld_dist_compose.  Cost O(N log N) for a window of N points
 *  (it grows with T), not O(T) convolutions.
 *  @return PLD_SUCCESS, PLD_EINVAL (NULL, T out of range), PLD_ERANGE (window
 *  over max_grid), PLD_ENOMEM, PLD_EFFT. */
PLD_API PLD_NODISCARD int pld_dist_self_compose(const pld_dist *a, uint64_t T,
                                                pld_workspace *ws,
                                                pld_dist **out);

/* ------------------------------------------------------------------------ */
/* Queries.  Upper values come from the pessimistic PLD plus booked error,   */
/* lower values from the optimistic PLD minus booked error; both directions  */
/* are taken into account (the worse one).                                    */

/** delta(eps) for eps >= 0 (nats; eps = +INFINITY gives the mass at
 *  +infinity).  out->upper is certified, out->lower the optimistic
 *  estimate, both in [0, 1].  Cost O(grid).
 *  @return PLD_SUCCESS, PLD_EINVAL (NULL, NaN or eps < 0). */
PLD_API PLD_NODISCARD int pld_dist_delta(const pld_dist *d, double epsilon,
                                         pld_bound *out);

/** eps(delta) in nats, the smallest eps >= 0 with delta(eps) <= delta, for
 *  delta in (0, 1).  out->upper is certified and may be +INFINITY (no finite
 *  eps is certified, e.g. because the mass at +infinity exceeds delta);
 *  out->lower is the optimistic estimate (<= upper).  Cost O(grid).
 *  @return PLD_SUCCESS, PLD_EINVAL (NULL, delta NaN or outside (0, 1)). */
PLD_API PLD_NODISCARD int pld_dist_epsilon(const pld_dist *d, double delta,
                                           pld_bound *out);

/** delta(eps) at n >= 1 points epsilons[0..n) (nats, any order, each >= 0 or
 *  +INFINITY), brackets as pld_dist_delta written to out[0..n).
 *  Cost O(grid + n log n).
 *  @return PLD_SUCCESS, PLD_EINVAL (NULL, n = 0, a NaN or negative eps),
 *  PLD_ENOMEM. */
PLD_API PLD_NODISCARD int pld_dist_curve(const pld_dist *d, size_t n,
                                         const double *epsilons,
                                         pld_bound *out);

/* ------------------------------------------------------------------------ */
/* Accessors (pure).                                                         */

/** Grid step Delta in nats (NAN for NULL). */
PLD_API double pld_dist_discretization(const pld_dist *d);
/** Largest number of grid points over the four stored arrays (0 for NULL). */
PLD_API size_t pld_dist_grid_size(const pld_dist *d);
/** Largest FFT length used to make this PLD, inherited through composition
 *  (0 if none, or NULL). */
PLD_API size_t pld_dist_fft_size(const pld_dist *d);

/** Read-only view of one stored distribution: the loss of masses[i] is
 *  (offset + i) * Delta; inf_mass sits at +infinity.  rel_err and abs_err
 *  are the booked floating-point slack of its hockey-stick curve:
 *  |computed - exact(rounding)| <= rel_err * delta + abs_err. */
typedef struct pld_pmf_view {
  int64_t offset;       /**< grid index of masses[0] */
  size_t size;          /**< number of masses (>= 1) */
  const double *masses; /**< borrowed from the PLD, do not free */
  double inf_mass;      /**< mass at +infinity */
  double rel_err;       /**< booked relative slack of the curve */
  double abs_err;       /**< booked absolute slack of the curve */
} pld_pmf_view;

/** Fill *out with the view of member (direction, rounding) of d: direction
 *  PLD_DIR_PQ or PLD_DIR_QP, rounding PLD_PESSIMISTIC or PLD_OPTIMISTIC.
 *  Nothing is copied: out->masses points into d and stays valid (and
 *  unchanged) until d is freed.  Cost O(1).
 *  @return PLD_SUCCESS or PLD_EINVAL (NULL, unknown direction or rounding). */
PLD_API PLD_NODISCARD int pld_dist_view(const pld_dist *d, int direction,
                                        int rounding, pld_pmf_view *out);

/* ------------------------------------------------------------------------ */
/* PLD files: a deployment's running ledger, saved and composed later.       */
/*
 * Format (version 2), every field little-endian, IEEE-754 binary64 doubles:
 *   magic    8 bytes  "PLDKITv\0"
 *   version  u32      2 (version 1 files, without the history section,
 *                     are still read)
 *   flags    u32      bit 0: symmetric
 *   grid     f64      Delta (nats)
 *   fftsize  u64      largest FFT used (informational)
 *   4 members, in the order (PQ, pessimistic), (PQ, optimistic),
 *   (QP, pessimistic), (QP, optimistic), each:
 *     offset i64, n u64, inf f64, rel f64, abs f64, masses n x f64
 *   history  (version 2 only) records u64, bytes u64, then `bytes` bytes of
 *            `records` records, each: time i64 (seconds since the epoch),
 *            length u64 (<= 65536), that many bytes of text (no NUL); at
 *            most 64 MiB in all (see ledger.h)
 *   checksum u64      FNV-1a (64 bit) of every byte before it
 *
 * Saving and loading apply ONE set of checks, with one tolerance
 * PLD_FILE_TOLERANCE (tol): whatever pld_dist_save writes pld_dist_load
 * accepts, and a PLD that fails them is not written (PLD_ETOL: the grid
 * cannot represent it, e.g. round-off booked over a huge number of
 * compositions; a coarser grid or fewer runs per file helps).  The checks:
 *  - layout (checked against the file size BEFORE anything is allocated or
 *    read, so a huge or sparse file is refused at once): magic and length
 *    (PLD_EFORMAT), version (PLD_EVERSION), every declared size (n >= 1, no
 *    trailing bytes; n over the cap -- 2^23 for pld_dist_load, max_grid
 *    for pld_dist_load_capped, 2^31 for pld_dist_deserialize -- or a
 *    history over 64 MiB, give PLD_ERANGE, pld_error_detail naming the
 *    cap), a version field that reads 1 or 2 byte-swapped (a big-endian
 *    writer) PLD_EFORMAT, then the checksum and the
 *    flags;
 *  - domains: Delta in [1e-9, 1000], |offset| <= 2^52, masses in
 *    [0, 1 + tol], inf in [0, 1 + tol], rel in [0, 1), abs in [0, 1];
 *  - consistency: inf + sum of masses <= 1 + tol in every member and > 0
 *    in the pessimistic ones (none is all zero); in each direction the
 *    optimistic curve is not above the pessimistic one at any grid point
 *    holding mass and in the limit eps -> -infinity (the
 *    largest gap lies at one of those points):
 *      delta_opt (1 - rel_opt) <= delta_pess (1 + rel_pess) + abs_pess +
 *      abs_opt + tol;
 *    history records within their caps, no NUL.
 * Violations give PLD_EFORMAT on load.  The checksum detects corruption,
 * not tampering: a loaded PLD's booked errors (and so its certification)
 * are taken from the file. */

/** The one tolerance of the PLD file checks (see above). */
#define PLD_FILE_TOLERANCE 1e-6

/** Serialise d into a new buffer of *len bytes (the format above, version
 *  2, d's history included).  The caller frees *buf with pld_buffer_free.
 *  Cost O(grid).
 *  @return PLD_SUCCESS, PLD_EINVAL (NULL), PLD_ERANGE (size overflows),
 *  PLD_ETOL (d fails the file checks above: not representable), PLD_ENOMEM. */
PLD_API PLD_NODISCARD int pld_dist_serialize(const pld_dist *d,
                                             unsigned char **buf,
                                             size_t *len);
/** Parse a serialised PLD (version 1 or 2) from buf[0..len) (not retained;
 *  the caller keeps ownership).  The caller frees *out with pld_dist_free.
 *  Cost O(len).
 *  @return PLD_SUCCESS, PLD_EINVAL (NULL), PLD_EFORMAT (corrupt, truncated,
 *  bad checksum, value out of domain, inconsistent), PLD_EVERSION,
 *  PLD_ERANGE (arrays over 2^31 points), PLD_ENOMEM. */
PLD_API PLD_NODISCARD int pld_dist_deserialize(const unsigned char *buf,
                                               size_t len, pld_dist **out);
/** Free a buffer from pld_dist_serialize.  NULL is a no-op. */
PLD_API void pld_buffer_free(unsigned char *buf);
/** Save d to the file `path` (the format above), creating or replacing it
 *  safely (ledger.h has the details): a unique temporary file in the same
 *  directory, created exclusively without following links, fsync'd, given
 *  the old file's mode (and owner where permitted), renamed over `path`,
 *  then the directory fsync'd, so a crash never leaves a ledger half
 *  written or empty.  A symbolic link at `path` is written through to its
 *  target; a `path` that exists and is not a regular file (/dev/null, a
 *  directory) is refused.  After a failure the old file, if any, is intact
 *  and no temporary file is left; errno tells why (pld_dist_save_report
 *  also names the file concerned, the temporary one included).  Not a
 *  locked update: to add to a ledger others may update, use
 *  pld_ledger_add (ledger.h).
 *  @return PLD_SUCCESS, PLD_EINVAL (NULL or empty path), PLD_ERANGE,
 *  PLD_ETOL (d not representable, nothing written), PLD_ENOMEM,
 *  PLD_EUNSUPPORTED (not a regular file), PLD_EIO (cannot create, write,
 *  sync or rename), PLD_EDURABLE (saved and in place, but the directory's
 *  fsync failed: durability not confirmed). */
PLD_API PLD_NODISCARD int pld_dist_save(const pld_dist *d, const char *path);

/** Load a PLD saved by pld_dist_save: its layout is checked against the
 *  file size and the caps first (arrays of at most 2^23 points, the default
 *  max_grid: pld_dist_load_capped loads larger ones), then the file is read
 *  and parsed as by pld_dist_deserialize.  Anything but a regular file is refused
 *  (PLD_EFORMAT) without blocking.  The caller frees *out with
 *  pld_dist_free.
 *  @return PLD_SUCCESS, PLD_EINVAL (NULL), PLD_EIO (cannot open or read),
 *  PLD_ERANGE (arrays over 2^23 points, history over 64 MiB), PLD_ENOMEM,
 *  PLD_EFORMAT, PLD_EVERSION. */
PLD_API PLD_NODISCARD int pld_dist_load(const char *path, pld_dist **out);

/** pld_dist_load with a cap: a file declaring an array over max_grid points
 *  (e.g. pld_params.max_grid) is refused with PLD_ERANGE before it is read.
 *  @return as pld_dist_load; PLD_EINVAL also for max_grid = 0 or over
 *  2^31. */
PLD_API PLD_NODISCARD int pld_dist_load_capped(const char *path,
                                               size_t max_grid,
                                               pld_dist **out);

#ifdef __cplusplus
}
#endif
#endif
