/* pldkit: status codes.
 *
 * Every fallible pldkit call returns an int from enum pld_status; 0 is success.
 * On failure the call leaves all of its output arguments untouched.  Codes are
 * explicit and are never renumbered (they are part of the ABI).
 */
#ifndef PLDKIT_STATUS_H
#define PLDKIT_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

#if defined(PLD_BUILDING_LIBRARY) && defined(__GNUC__)
#define PLD_API __attribute__((visibility("default")))
#else
#define PLD_API
#endif

/* The experimental API: the papers' formulas as printed (some known wrong,
 * docs/papers-rdp.md), their uncertified baselines and helpers the tests
 * reach into.  Declared only when the including code defines
 * PLD_EXPERIMENTAL, and exported from the shared library only when it is
 * built with -Dexperimental=true; its names and behaviour may change in
 * any release. */
#if defined(PLD_BUILDING_LIBRARY) && defined(__GNUC__) && \
    defined(PLD_EXPORT_EXPERIMENTAL)
#define PLD_EXPERIMENTAL_API __attribute__((visibility("default")))
#else
#define PLD_EXPERIMENTAL_API
#endif

#if defined(__GNUC__)
#define PLD_NODISCARD __attribute__((warn_unused_result))
#else
#define PLD_NODISCARD
#endif

enum pld_status {
  PLD_SUCCESS = 0,
  PLD_EINVAL = 1,    /* an argument is NaN, infinite, out of its domain, or NULL */
  PLD_ENOMEM = 2,    /* an allocation failed */
  PLD_ERANGE = 3,    /* a size would overflow or exceed the configured memory cap */
  PLD_EINCOMPAT = 4, /* PLDs with different grids cannot be composed */
  PLD_EMAXITER = 5,  /* an iteration (root finding, refinement) did not converge */
  PLD_ETOL = 6,      /* the requested accuracy cannot be reached */
  PLD_EEMPTY = 7,    /* an empty composition (no events) */
  PLD_EFFT = 8,      /* FFTW could not make a plan */
  PLD_ECALLBACK = 9, /* a user-supplied hockey-stick callback reported an error */
  PLD_EUNSUPPORTED = 10, /* the operation is not defined for this input */
  PLD_EFORMAT = 11,  /* data is corrupt, truncated or not in pldkit's format */
  PLD_EVERSION = 12, /* a pldkit file of a format version this build cannot read */
  PLD_EIO = 13,      /* a file could not be opened, read or written */
  PLD_EDURABLE = 14  /* a file was written and renamed into place (the
                        update IS made), but the directory's fsync failed:
                        it may not survive a crash */
};

/** Tolerances of the library's input checks, for front ends that validate
 *  first.  A probability vector (a finite pair's masses, a mixture's
 *  component weights) must sum to 1 within PLD_PROB_SUM_TOL; selection
 *  weights (random selection, merging's lambda) within PLD_WEIGHT_SUM_TOL,
 *  tighter because their own error is not booked.  Every entry must be
 *  finite and >= 0. */
#define PLD_PROB_SUM_TOL 1e-9
#define PLD_WEIGHT_SUM_TOL 1e-12

/** One sentence describing a status code, with an uppercase first character and
 *  no trailing period.  Any int is accepted: unknown codes give "Unknown
 *  status code".  Never NULL; the string is static (do not free it) and
 *  the call is thread-safe. */
PLD_API const char *pld_strerror(int status);

/** Why the last rejected call in this thread failed, in one line without a
 *  trailing period: the parameter, its value and the allowed range or cap,
 *  and for caps the option (pld_params field) that raises them, e.g.
 *  "q = 1.5 must be in (0, 1]" or "grid of 20971520 points exceeds
 *  max_grid = 8388608 (raise max_grid, or coarsen discretization)".
 *
 *  Every call that returns a status resets it on entry, so it is "" after a
 *  successful call and after a failure whose site recorded no detail (then
 *  pld_strerror(status) is all there is).  The text is thread-local: each
 *  thread sees only its own calls' details.  The pointer is never NULL and
 *  stays valid for the life of the thread; its content is valid until the
 *  next pldkit call in that thread (copy it to keep it).  Calls that return
 *  no status (the *_free functions, pld_strerror, this one) leave it alone. */
PLD_API const char *pld_error_detail(void);

/** pld_strerror(status) followed by ": " and this thread's
 *  pld_error_detail() when it holds one, e.g. "An argument is invalid (...):
 *  q = 1.5 must be in (0, 1]".  Call it right after the failing call.  The
 *  text lives in a thread-local buffer reused by the next call. */
PLD_API const char *pld_status_text(int status);

/** A progress report of a long computation: `fraction` in [0, 1] of the
 *  current `stage` (a short static phrase such as "composing the grid" or
 *  "random selection members"; fractions restart at each stage and may
 *  stay at 0 where the total is unknown). */
typedef void (*pld_stage_progress_fn)(void *ctx, double fraction, const char *stage);

/** Install `fn` (NULL: none, the default) to be called with `ctx` from the
 *  long loops of the library (accountant refinements and compositions,
 *  random-selection members, participation analyses, model splitting,
 *  calibration, merge planning), in the calling thread and only for calls
 *  made by this thread (thread-local; other threads keep their own).  The
 *  library itself never prints: the callback decides what to show (the CLI
 *  draws a line on stderr when it is a terminal).  Calls are throttled by
 *  nothing; keep fn cheap.  fn must not call pldkit. */
PLD_API void pld_set_progress(pld_stage_progress_fn fn, void *ctx);

#ifdef __cplusplus
}
#endif
#endif
