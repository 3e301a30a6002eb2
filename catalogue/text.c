/* pldkit catalogue: quoting user tokens, exact numbers and strict number
 * parsing for the event texts and their messages. */
#include <pldkit/event.h>

#include <errno.h>
#include <stdint.h>

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events_internal.h"

const char *ev_quote(char *buf, size_t size, const char *s)
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

static void fmt(char *buf, size_t size, double x, int digits)
{
  if (isnan(x))
    snprintf(buf, size, "nan");
  else if (isinf(x))
    snprintf(buf, size, x > 0 ? "inf" : "-inf");
  else
    snprintf(buf, size, "%.*g", digits, x);
}

void ev_fmt_exact(char *buf, size_t size, double x)
{
  if (!isfinite(x)) {
    fmt(buf, size, x, 17);
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

int ev_parse_double(const char *s, double *out)
{
  char *end;
  /* strtod would skip leading blanks and accept "nan"/"inf"; a token with
   * blanks in it is almost always a quoting mistake, so refuse it. */
  if (s == NULL || *s == '\0' || isspace((unsigned char)*s))
    return -1;
  /* Decimal only: strtod also reads C99 hex floats (0x1p3 = 8), which no
   * one means on a command line. */
  if (strpbrk(s, "xX"))
    return -1;
  errno = 0;
  double x = strtod(s, &end);
  if (end == s || *end != '\0' || !isfinite(x))
    return -1;
  *out = x;
  return 0;
}

int ev_parse_int(const char *s, long long lo, long long hi,
                      long long *out)
{
  const char *p = s;
  char *end;
  if (s == NULL)
    return EV_INT_NOT_INTEGER;
  if (*p == '+' || *p == '-')
    p++;
  if (!isdigit((unsigned char)*p))
    return EV_INT_NOT_INTEGER;
  errno = 0;
  long long x = strtoll(s, &end, 10);
  if (*end != '\0')
    return EV_INT_NOT_INTEGER;
  if (errno == ERANGE || x < lo || x > hi)
    return EV_INT_RANGE;
  *out = x;
  return EV_INT_OK;
}
