/* Shared plumbing of the figure generators; see figcommon.h. */
#define _POSIX_C_SOURCE 200809L
#include "figcommon.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pldkit/status.h>

void fig_init(struct fig *f, const char *name, int argc, char **argv)
{
  memset(f, 0, sizeof *f);
  f->name = name;
  f->tty = isatty(2);
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--tiny") == 0)
      f->tiny = 1;
    else if (argv[i][0] != '-' && !f->outdir)
      f->outdir = argv[i];
    else {
      fprintf(stderr, "usage: %s [--tiny] OUTDIR\n", name);
      exit(2);
    }
  }
  if (!f->outdir) {
    fprintf(stderr, "usage: %s [--tiny] OUTDIR\n", name);
    exit(2);
  }
  if (mkdir(f->outdir, 0777) != 0 && errno != EEXIST) {
    fprintf(stderr, "%s: cannot create %s: %s\n", name, f->outdir,
            strerror(errno));
    exit(1);
  }
}

FILE *fig_csv(struct fig *f, const char *file, const char *header)
{
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.csv", f->outdir, file);
  FILE *c = fopen(path, "w");
  if (!c) {
    fprintf(stderr, "%s: cannot write %s: %s\n", f->name, path,
            strerror(errno));
    exit(1);
  }
  fprintf(c, "%s\n", header);
  return c;
}

void fig_close(struct fig *f, FILE *csv)
{
  if (ferror(csv) | (fclose(csv) != 0)) {
    fprintf(stderr, "%s: write error\n", f->name);
    exit(1);
  }
}

void fig_progress(struct fig *f, const char *what, size_t i, size_t n)
{
  if (!f->tty)
    return;
  fprintf(stderr, "\r%s: %s %zu/%zu   ", f->name, what, i, n);
  if (i == n)
    fputc('\n', stderr);
  fflush(stderr);
}

void fig_check(struct fig *f, int ok, const char *fmt, ...)
{
  if (ok)
    return;
  va_list ap;
  fprintf(stderr, "%s: check failed: ", f->name);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  f->failed = 1;
}

void fig_status(struct fig *f, int status, const char *what)
{
  if (status == PLD_SUCCESS)
    return;
  fprintf(stderr, "%s: %s: %s\n", f->name, what, pld_strerror(status));
  exit(1);
}

int fig_done(struct fig *f)
{
  if (f->failed)
    fprintf(stderr, "%s: FAILED (see the checks above)\n", f->name);
  return f->failed ? 1 : 0;
}
