/* pldkit CLI: printing helpers. */
#include "output.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pld_cli_error(const char *fmt, ...)
{
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (n < 0)
    msg[0] = '\0';
  /* Scripts rely on exactly one line; user tokens are already escaped by
   * pld_cli_quote, this is the backstop for anything that was not. */
  for (char *p = msg; *p; p++)
    if ((unsigned char)*p < 0x20 || (unsigned char)*p == 0x7f)
      *p = ' ';
  fprintf(stderr, "pldkit: %s\n", msg);
}

const char *pld_cli_quote(char *buf, size_t size, const char *s)
{
  static const char hex[] = "0123456789abcdef";
  size_t o = 0;
  if (size < 16) {
    if (size)
      buf[0] = '\0';
    return buf;
  }
  buf[o++] = '\'';
  if (s == NULL)
    s = "";
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    /* Keep room for the longest escape, an ellipsis, the quote and NUL. */
    if (o + 4 + 3 + 1 + 1 > size) {
      memcpy(buf + o, "...", 3);
      o += 3;
      break;
    }
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      buf[o++] = (char)c;
    } else {
      buf[o++] = '\\';
      buf[o++] = 'x';
      buf[o++] = hex[c >> 4];
      buf[o++] = hex[c & 15];
    }
  }
  buf[o++] = '\'';
  buf[o] = '\0';
  return buf;
}

void pld_cli_fmt(char *buf, size_t size, double x, int digits)
{
  if (isnan(x))
    snprintf(buf, size, "nan");
  else if (isinf(x))
    snprintf(buf, size, x > 0 ? "inf" : "-inf");
  else
    snprintf(buf, size, "%.*g", digits, x);
}

void pld_cli_fmt_exact(char *buf, size_t size, double x)
{
  if (!isfinite(x)) {
    pld_cli_fmt(buf, size, x, 17);
    return;
  }
  /* %.17g always round-trips but prints 1e-05 as 1.0000000000000001e-05;
   * the shortest form that reads back identically is both exact and what
   * the user typed in the common case. */
  /* Start with as many digits as the integer part has, so that 10 prints
   * as "10" and not as "1e+01". */
  int d = 1;
  if (fabs(x) >= 10 && fabs(x) < 1e17)
    d = (int)floor(log10(fabs(x))) + 1;
  for (; d <= 17; d++) {
    snprintf(buf, size, "%.*g", d, x);
    if (strtod(buf, NULL) == x)
      return;
  }
}

void pld_cli_fmt_bracket(char *lo, char *hi, size_t size, double lower,
                         double upper)
{
  int d = 6;
  for (;;) {
    pld_cli_fmt(lo, size, lower, d);
    pld_cli_fmt(hi, size, upper, d);
    if (d >= 17 || lower == upper || strcmp(lo, hi) != 0)
      break;
    d++;
  }
}

#define WRAP_WIDTH 79

void pld_cli_wrap(FILE *f, const char *head, size_t indent, const char *text)
{
  size_t col = strlen(head);
  fputs(head, f);
  if (col + 1 > indent) {
    fputc('\n', f);
    col = 0;
  }
  for (; col < indent; col++)
    fputc(' ', f);
  const char *p = text;
  int first = 1;
  while (*p) {
    while (*p == ' ')
      p++;
    size_t w = strcspn(p, " ");
    if (w == 0)
      break;
    if (!first && col + 1 + w > WRAP_WIDTH) {
      fprintf(f, "\n%*s", (int)indent, "");
      col = indent;
    } else if (!first) {
      fputc(' ', f);
      col++;
    }
    fwrite(p, 1, w, f);
    col += w;
    p += w;
    first = 0;
  }
  fputc('\n', f);
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
    pld_cli_fmt(buf, sizeof buf, x, 17);
    json_write_string(f, buf);
    return;
  }
  pld_cli_fmt_exact(buf, sizeof buf, x);
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

void pld_cli_json_null(pld_cli_json *j, const char *key)
{
  json_key(j, key);
  fputs("null", j->f);
}
