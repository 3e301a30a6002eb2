/* pldkit CLI: text helpers (text.c). */
#ifndef PLDKIT_CLI_TEXT_H
#define PLDKIT_CLI_TEXT_H
#include <stddef.h>
#include <stdio.h>

/* Quote a user token for a message: 'text', non-printable bytes as \xNN,
 * cut with "..." when long.  Returns buf; size should be >= 16. */
const char *cli_quote(char *buf, size_t size, const char *s);
/* x with `digits` significant digits (%g style); infinities as "inf". */
void cli_fmt(char *buf, size_t size, double x, int digits);
/* The shortest decimal that reads back as exactly x (at most 17 digits). */
void cli_fmt_exact(char *buf, size_t size, double x);
/* A bracket with at least 6 significant digits, more when needed to tell
 * lower and upper apart. */
void cli_fmt_bracket(char *lo, char *hi, size_t size, double lower,
                     double upper);
/* `head` padded to column `indent`, then `text` wrapped to 79 columns. */
void cli_text_wrap(FILE *f, const char *head, size_t indent,
                   const char *text);
/* Strict numbers: the whole token, no blanks, finite, decimal.
 * @return 0 and *out, or -1. */
int cli_parse_double(const char *s, double *out);
enum { CLI_INT_OK = 0, CLI_INT_NOT_INTEGER = 1, CLI_INT_RANGE = 2 };
/* A decimal integer in [lo, hi]: CLI_INT_*. */
int cli_parse_int(const char *s, long long lo, long long hi, long long *out);

/* Exit statuses: 0, 1 (the library failed on valid input, e.g. out of
 * memory), 2 (bad input). */
enum { CLI_OK = 0, CLI_EFAIL = 1, CLI_EUSAGE = 2 };
/* The exit status for a library status (compute.c). */
int cli_rc_of_status(int st);
#endif
