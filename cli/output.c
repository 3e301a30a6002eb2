/* pldkit CLI: printing helpers. */
#include "output.h"
#include "text.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h> /* isatty */

static struct {
  int on;
  int width;   /* of the line on screen, 0: none shown */
  double t0, last;
} prog;

static double mono_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void stage_progress(void *ctx, double fraction, const char *stage)
{
  (void)ctx;
  double t = mono_now();
  if (!prog.on || t - prog.t0 < 0.5 || t - prog.last < 0.2)
    return;
  prog.last = t;
  char line[160];
  int w = snprintf(line, sizeof line, "%s: %.0f%% (%.0f s)", stage ? stage : "working",
                   100.0 * fmin(fmax(fraction, 0.0), 1.0), t - prog.t0);
  if (w < 0)
    return;
  fprintf(stderr, "\r%-*s", prog.width > w ? prog.width : w, line);
  if (w > prog.width)
    prog.width = w;
  fflush(stderr);
}

static void progress_erase(void)
{
  if (prog.width > 0) {
    fprintf(stderr, "\r%*s\r", prog.width, "");
    fflush(stderr);
    prog.width = 0;
  }
}

void pld_cli_progress_begin(void)
{
  if (!isatty(2))
    return;
  prog.on = 1;
  prog.width = 0;
  prog.t0 = prog.last = mono_now();
  pld_set_progress(stage_progress, NULL);
}

void pld_cli_progress_end(void)
{
  progress_erase();
  prog.on = 0;
  pld_set_progress(NULL, NULL);
}

void pld_cli_error(const char *fmt, ...)
{
  progress_erase();
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (n < 0)
    msg[0] = '\0';
  /* Scripts rely on exactly one line; user tokens are already escaped by
   * pld_quote, this is the backstop for anything that was not. */
  for (char *p = msg; *p; p++)
    if ((unsigned char)*p < 0x20 || (unsigned char)*p == 0x7f)
      *p = ' ';
  fprintf(stderr, "pldkit: %s\n", msg);
}

/* One line: control characters (a quoted token's escapes aside) become
 * blanks. */
static void one_line(char *msg)
{
  for (char *p = msg; *p; p++)
    if ((unsigned char)*p < 0x20 || (unsigned char)*p == 0x7f)
      *p = ' ';
}

void pld_cli_warn(pld_cli_warnings *w, const char *fmt, ...)
{
  if (w->n >= PLD_CLI_MAX_WARNINGS)
    return;
  char *msg = w->text[w->n];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(msg, sizeof w->text[0], fmt, ap);
  va_end(ap);
  if (n < 0)
    msg[0] = '\0';
  one_line(msg);
  w->n++;
}

void pld_cli_warnings_print(const pld_cli_warnings *w)
{
  for (size_t i = 0; i < w->n; i++)
    fprintf(stderr, "pldkit: warning: %s\n", w->text[i]);
}

/* ------------------------------------------------------------------------ */
/* JSON                                                                      */

static void json_write_string(FILE *f, const char *s)
{
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '"' || *p == '\\')
      fprintf(f, "\\%c", *p);
    else if (*p < 0x20 || *p >= 0x7f)
      /* Bytes >= 0x80 are escaped too, so that the output stays valid JSON
       * whatever bytes a user managed to pass through argv. */
      fprintf(f, "\\u%04x", *p);
    else
      fputc(*p, f);
  }
  fputc('"', f);
}

static void json_write_number(FILE *f, double x)
{
  char buf[40];
  if (!isfinite(x)) {
    cli_fmt(buf, sizeof buf, x, 17);
    json_write_string(f, buf);
    return;
  }
  cli_fmt_exact(buf, sizeof buf, x);
  fputs(buf, f);
}

static void json_key(pld_cli_json *j, const char *key)
{
  fprintf(j->f, "%s\n%*s", j->members++ ? "," : "", 2 * (int)j->depth + 2,
          "");
  json_write_string(j->f, key);
  fputs(": ", j->f);
}

void pld_cli_json_open(pld_cli_json *j, FILE *f)
{
  j->f = f;
  j->members = 0;
  j->depth = 0;
  fputc('{', f);
}

void pld_cli_json_close(pld_cli_json *j)
{
  if (j->members)
    fprintf(j->f, "\n%*s}", 2 * (int)j->depth, "");
  else
    fputc('}', j->f);
  if (j->depth == 0)
    fputc('\n', j->f);
}

void pld_cli_json_object(pld_cli_json *j, const char *key, pld_cli_json *sub)
{
  json_key(j, key);
  sub->f = j->f;
  sub->members = 0;
  sub->depth = j->depth + 1;
  fputc('{', j->f);
}

void pld_cli_json_string(pld_cli_json *j, const char *key, const char *value)
{
  json_key(j, key);
  json_write_string(j->f, value);
}

void pld_cli_json_number(pld_cli_json *j, const char *key, double value)
{
  json_key(j, key);
  json_write_number(j->f, value);
}

void pld_cli_json_uint(pld_cli_json *j, const char *key,
                       unsigned long long value)
{
  json_key(j, key);
  fprintf(j->f, "%llu", value);
}

void pld_cli_json_bool(pld_cli_json *j, const char *key, int value)
{
  json_key(j, key);
  fputs(value ? "true" : "false", j->f);
}

void pld_cli_json_numbers(pld_cli_json *j, const char *key, size_t n,
                          const double *x)
{
  json_key(j, key);
  fputc('[', j->f);
  for (size_t i = 0; i < n; i++) {
    if (i)
      fputs(", ", j->f);
    json_write_number(j->f, x[i]);
  }
  fputc(']', j->f);
}

void pld_cli_json_bounds(pld_cli_json *j, const char *key, size_t n,
                         const pld_bound *b, int which)
{
  json_key(j, key);
  fputc('[', j->f);
  for (size_t i = 0; i < n; i++) {
    if (i)
      fputs(", ", j->f);
    json_write_number(j->f, which ? b[i].upper : b[i].lower);
  }
  fputc(']', j->f);
}

void pld_cli_json_strings(pld_cli_json *j, const char *key, size_t n,
                          const char *const *s)
{
  json_key(j, key);
  fputc('[', j->f);
  for (size_t i = 0; i < n; i++) {
    if (i)
      fputs(", ", j->f);
    json_write_string(j->f, s[i]);
  }
  fputc(']', j->f);
}

void pld_cli_json_records(pld_cli_json *j, const char *key, size_t n,
                          const long long *times, const char *const *utc,
                          const char *const *texts)
{
  json_key(j, key);
  fputc('[', j->f);
  for (size_t i = 0; i < n; i++) {
    fprintf(j->f, "%s\n%*s{\"time\": %lld, \"utc\": ", i ? "," : "",
            2 * (int)j->depth + 4, "", times[i]);
    json_write_string(j->f, utc[i]);
    fputs(", \"text\": ", j->f);
    json_write_string(j->f, texts[i]);
    fputc('}', j->f);
  }
  if (n)
    fprintf(j->f, "\n%*s", 2 * (int)j->depth + 2, "");
  fputc(']', j->f);
}

void pld_cli_json_null(pld_cli_json *j, const char *key)
{
  json_key(j, key);
  fputs("null", j->f);
}

void pld_cli_json_warnings(pld_cli_json *j, const pld_cli_warnings *w)
{
  json_key(j, "warnings");
  fputc('[', j->f);
  for (size_t i = 0; i < w->n; i++) {
    if (i)
      fputs(", ", j->f);
    json_write_string(j->f, w->text[i]);
  }
  fputc(']', j->f);
}
