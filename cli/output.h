/* pldkit CLI: printing helpers (error lines, numbers, JSON). */
#ifndef PLDKIT_CLI_OUTPUT_H
#define PLDKIT_CLI_OUTPUT_H

#include "text.h"
#include <stddef.h>
#include <stdio.h>

#include <pldkit/event.h>
#include <pldkit/pld.h>

#if defined(__GNUC__)
#define PLD_CLI_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define PLD_CLI_PRINTF(f, a)
#endif

/** Print "pldkit: <message>\n" on stderr as exactly one line: any control
 *  character that slipped into the message becomes a blank. */
void pld_cli_error(const char *fmt, ...) PLD_CLI_PRINTF(1, 2);

/* Warnings and notes that go with an answer.  They never go to stdout (so
 * that `x=$(pldkit ...)` and CSV output stay clean): each is one line
 * "pldkit: warning: TEXT" on stderr, and --json output also carries them as
 * the array "warnings". */
#define PLD_CLI_MAX_WARNINGS 8
typedef struct pld_cli_warnings {
  size_t n;
  char text[PLD_CLI_MAX_WARNINGS][768];
} pld_cli_warnings;

/** Add one warning (beyond PLD_CLI_MAX_WARNINGS it is dropped). */
void pld_cli_warn(pld_cli_warnings *w, const char *fmt, ...)
    PLD_CLI_PRINTF(2, 3);
/** Print the warnings on stderr, one line each. */
void pld_cli_warnings_print(const pld_cli_warnings *w);

/** Progress of long library calls (pld_set_progress) as one line on
 *  stderr, redrawn in place, only when stderr is a terminal (nothing when
 *  piped or redirected), first after 0.5 s and then at most 5 times a
 *  second.  end() erases the line; pld_cli_error erases it too. */
void pld_cli_progress_begin(void);
void pld_cli_progress_end(void);

/* A minimal writer for one JSON object (values may be arrays and nested
 * objects). */
typedef struct pld_cli_json {
  FILE *f;
  size_t members;
  unsigned depth; /* 0 for the outermost object */
} pld_cli_json;

void pld_cli_json_open(pld_cli_json *j, FILE *f);
/** Close an object; the outermost one ends with a newline. */
void pld_cli_json_close(pld_cli_json *j);
/** Start the member `key` of j as a nested object written through *sub
 *  (write nothing to j until sub is closed). */
void pld_cli_json_object(pld_cli_json *j, const char *key, pld_cli_json *sub);
void pld_cli_json_string(pld_cli_json *j, const char *key, const char *value);
/** A finite number, or the string "inf"/"-inf"/"nan" (JSON has no infinity). */
void pld_cli_json_number(pld_cli_json *j, const char *key, double value);
void pld_cli_json_uint(pld_cli_json *j, const char *key,
                       unsigned long long value);
void pld_cli_json_bool(pld_cli_json *j, const char *key, int value);
void pld_cli_json_null(pld_cli_json *j, const char *key);
void pld_cli_json_numbers(pld_cli_json *j, const char *key, size_t n,
                          const double *x);
/** The lower (which == 0) or upper (which != 0) ends of n brackets. */
void pld_cli_json_bounds(pld_cli_json *j, const char *key, size_t n,
                         const pld_bound *b, int which);
void pld_cli_json_strings(pld_cli_json *j, const char *key, size_t n,
                          const char *const *s);
/** An array of n objects {"time": times[i] (seconds since the epoch),
 *  "utc": utc[i], "text": texts[i]} (a ledger's history). */
void pld_cli_json_records(pld_cli_json *j, const char *key, size_t n,
                          const long long *times, const char *const *utc,
                          const char *const *texts);
/** The member "warnings": an array of the warnings' texts ([] if none). */
void pld_cli_json_warnings(pld_cli_json *j, const pld_cli_warnings *w);

#endif
