/* pldkit CLI: the EVENT grammar.
 *
 *   EVENT := NAME [ ':' ITEM { ',' ITEM } ]
 *   ITEM  := KEY '=' VALUE
 *
 * NAME and KEY come from one table in events.c (the only place to touch when
 * an event is added); every event also takes `count=N` (self-composition).
 * List values (finite:p=0.5;0.5) are ';'-separated.
 */
#ifndef PLDKIT_CLI_EVENTS_H
#define PLDKIT_CLI_EVENTS_H

#include <stddef.h>
#include <stdio.h>

#include <pldkit/accountant.h>

/* Return codes of the CLI helpers; they double as process exit statuses. */
enum pld_cli_rc {
  PLD_CLI_OK = 0,     /* success */
  PLD_CLI_EFAIL = 1,  /* the library failed on valid input (e.g. PLD_ENOMEM) */
  PLD_CLI_EUSAGE = 2  /* the input is bad; err names the bad token */
};

/* Largest count=N accepted (the contract's limit): beyond 2^53 not every
 * count is exactly representable as a double, so no caller can rely on it. */
#define PLD_CLI_MAX_COUNT 9007199254740992ULL

/** Parse one EVENT, build its mechanism and add it with its count to `acc`.
 *  With acc == NULL the event is only validated (the mechanism is still built,
 *  so that the library's own checks run too, then freed); this is how the CLI
 *  validates all input before computing anything, and what a fuzzer calls.
 *  On failure err receives one line (no "pldkit: " prefix, no newline) that
 *  names the bad token and what is allowed.  err may be NULL.
 *  @return PLD_CLI_OK, PLD_CLI_EUSAGE (bad text) or PLD_CLI_EFAIL (the
 *  library failed, e.g. out of memory). */
int pld_cli_parse_event(const char *text, pld_accountant *acc, char *err,
                        size_t errlen);

/** Write the list of events with every key, its meaning, domain and default
 *  (part of every --help). */
void pld_cli_events_help(FILE *f);

/* Strict number parsing shared with the option parser: the whole token must
 * be consumed, no leading blanks, and the value must be finite. */

/** @return 0 and *out set, or -1 if s is empty or not a finite number. */
int pld_cli_parse_double(const char *s, double *out);

enum pld_cli_int_rc {
  PLD_CLI_INT_OK = 0,
  PLD_CLI_INT_NOT_INTEGER = 1, /* empty, or not a decimal integer literal */
  PLD_CLI_INT_RANGE = 2        /* an integer, but outside [lo, hi] */
};
/** Parse a decimal integer in [lo, hi].  @return enum pld_cli_int_rc. */
int pld_cli_parse_int(const char *s, long long lo, long long hi,
                      long long *out);

#endif
