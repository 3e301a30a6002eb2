/* pldkit internal: the thread-local detail of the last rejection
 * (pld_error_detail, include/pldkit/status.h).  Not installed. */
#ifndef PLDKIT_DETAIL_H
#define PLDKIT_DETAIL_H

#if defined(__GNUC__)
#define PLD_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define PLD_PRINTF(a, b)
#endif

/* Record why a call is rejected and return `status`, so that validation
 * sites read `return pld_fail(PLD_EINVAL, "q = %g must be in (0, 1]", q);`.
 * The text names the parameter, its value and the allowed range or cap. */
int pld_fail(int status, const char *fmt, ...) PLD_PRINTF(2, 3);
/* The same, but only when no detail is recorded yet: an outer layer adds
 * context to a failure whose inner site said nothing. */
int pld_fail_if_silent(int status, const char *fmt, ...) PLD_PRINTF(2, 3);
/* Forget the detail: every public entry point that returns a status calls it
 * first, so that a successful call leaves "". */
void pld_detail_clear(void);
/* Report progress to this thread's hook (pld_set_progress), if any. */
void pld_progress(double fraction, const char *stage);

#endif
