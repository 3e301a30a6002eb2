/* Shared plumbing of the figure generators (bench/figures/fig_*.c).
 *
 * Every generator is `fig_NAME [--tiny] OUTDIR`: it computes its data through
 * the public API only and writes one CSV per figure panel into OUTDIR
 * (created if missing).  --tiny shrinks every grid so that `meson test`
 * (suite "figures") runs it in seconds to catch breakage; the full grids are
 * what `make figures` plots.  A generator also checks what it can about its
 * own numbers (finite, ordered, bracketed) and exits 1 if a check fails, so
 * the tiny run is a real test. */
#ifndef PLDKIT_FIGCOMMON_H
#define PLDKIT_FIGCOMMON_H

#include <stdio.h>

struct fig {
  int tiny;            /* --tiny given */
  const char *outdir;  /* where the CSVs go */
  const char *name;    /* the generator, for messages */
  int failed;          /* a check failed */
  int tty;             /* stderr is a terminal: show progress */
};

/* Parse the arguments (exits 2 with a usage line on bad ones) and create
 * OUTDIR. */
void fig_init(struct fig *f, const char *name, int argc, char **argv);

/* Open OUTDIR/FILE.csv for writing and write the header line (columns
 * comma-separated).  Exits 1 if the file cannot be opened. */
FILE *fig_csv(struct fig *f, const char *file, const char *header);

/* Close a CSV (exits 1 on a write error). */
void fig_close(struct fig *f, FILE *csv);

/* Progress on stderr when it is a terminal: "NAME: WHAT i/n". */
void fig_progress(struct fig *f, const char *what, size_t i, size_t n);

/* Record a failed check with a message on stderr (printf format). */
void fig_check(struct fig *f, int ok, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Stop on a library error: message with the status text, exit 1. */
void fig_status(struct fig *f, int status, const char *what);

/* The exit status: 0, or 1 if a check failed. */
int fig_done(struct fig *f);

#endif
