/* Fuzz target: the merge planner's JSON configuration parser.  Any bytes
 * must be accepted (then every run is in its domain) or refused with one
 * line, never crash or leak. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  struct pld_cli_config cfg;
  char err[512];
  err[0] = '\0';
  if (pld_cli_config_parse((const char *)data, size, &cfg, err, sizeof err)) {
    if (err[0] == '\0' || strchr(err, '\n'))
      abort();
    return 0;
  }
  if (!(cfg.delta > 0.0 && cfg.delta < 1.0) || cfg.n < 1 ||
      cfg.n > PLD_MERGE_MAX_RUNS)
    abort();
  for (size_t i = 0; i < cfg.n; i++)
    if (!(cfg.runs[i].q > 0.0 && cfg.runs[i].q <= 1.0) ||
        !(cfg.runs[i].sigma > 0.0) || !(cfg.runs[i].clip > 0.0) ||
        !(cfg.runs[i].lr > 0.0) || cfg.runs[i].steps < 1)
      abort(); /* accepted input must be in its domain */
  return 0;
}
