/* pldkit CLI: the merge planner's JSON configuration (jansson).
 *
 * Schema (all keys at both levels are checked; unknown keys are errors):
 *   {
 *     "delta": 1e-5,                 required, in (0, 1)
 *     "epsilon": 2.0,                optional target epsilon', > 0 finite
 *     "resolution": 20,              optional grid resolution, integer >= 1
 *                                    ("weights_grid", its former name, is
 *                                    still read)
 *     "runs": [                      required, 1 .. PLD_MERGE_MAX_RUNS runs
 *       {"q": 0.004267,              sampling rate in (0, 1]
 *        "sigma": 0.5,               noise multiplier > 0
 *        "clip": 1,                  clipping norm > 0
 *        "lr": 0.1,                  learning rate > 0
 *        "steps": 705}               integer >= 1
 *     ]
 *   }
 */
#ifndef PLDKIT_CLI_CONFIG_H
#define PLDKIT_CLI_CONFIG_H

#include <stddef.h>

#include <pldkit/merge.h>

/** Largest accepted "resolution". */
#define PLD_CLI_CONFIG_MAX_GRID PLD_MERGE_MAX_RESOLUTION
/* The planner's domain beyond the library's: delta at least
 * PLD_CLI_CONFIG_MIN_DELTA (smaller ones need grids of hundreds of MB and
 * minutes: 1e-100 takes 15 s, 1e-300 over a minute), and each run's lr,
 * clip, lr * clip (the merged model's shift) and lr * sigma * clip (its
 * noise) within [1/R, R], R = PLD_CLI_CONFIG_SCALE_RANGE, so that the
 * shifts and the squared noises of the linear combination stay normal
 * doubles (lr = 1e-320 underflowed them, clip = 1e300 overflowed them). */
#define PLD_CLI_CONFIG_MIN_DELTA 1e-100
#define PLD_CLI_CONFIG_SCALE_RANGE 1e100

struct pld_cli_config {
  double delta;
  int has_epsilon;
  double epsilon;
  unsigned resolution; /* 0 when absent */
  size_t n;
  pld_merge_run runs[PLD_MERGE_MAX_RUNS];
};

/** Parse and validate `len` bytes of JSON text (need not be NUL-terminated).
 *  Pure: no file I/O, no printing.  On failure *out is zeroed and err gets a
 *  one-line message naming the key path (e.g. "runs[1].sigma: expected a
 *  number").  @return 0 on success, -1 on invalid input. */
int pld_cli_config_parse(const char *text, size_t len,
                         struct pld_cli_config *out, char *err,
                         size_t errlen);

/** Read the file `path` and parse it.  Same contract; a file that cannot be
 *  read is also reported in err. */
int pld_cli_config_load(const char *path, struct pld_cli_config *out,
                        char *err, size_t errlen);

#endif
