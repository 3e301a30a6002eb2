/* pldkit catalogue: quoting user tokens and formatting numbers for
 * messages and help (shared by the catalogue and the front ends, so that
 * every front end prints the same digits). */
#include <pldkit/event.h>

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pld_event_rc_of_status(int st)
{
  switch (st) {
  case PLD_SUCCESS:
    return PLD_EVENT_OK;
  case PLD_ENOMEM:
  case PLD_EFFT:
  case PLD_EMAXITER:
  case PLD_ECALLBACK:
    return PLD_EVENT_EFAIL;
  default:
    return PLD_EVENT_EUSAGE;
  }
}

/* help texts fit 80-column terminals */
#define WRAP_WIDTH 79

const char *pld_quote(char *buf, size_t size, const char *s)
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

void pld_fmt(char *buf, size_t size, double x, int digits)
{
  if (isnan(x))
    snprintf(buf, size, "nan");
  else if (isinf(x))
    snprintf(buf, size, x > 0 ? "inf" : "-inf");
  else
    snprintf(buf, size, "%.*g", digits, x);
}

void pld_fmt_exact(char *buf, size_t size, double x)
{
  if (!isfinite(x)) {
    pld_fmt(buf, size, x, 17);
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

void pld_fmt_bracket(char *lo, char *hi, size_t size, double lower,
                         double upper)
{
  int d = 6;
  for (;;) {
    pld_fmt(lo, size, lower, d);
    pld_fmt(hi, size, upper, d);
    if (d >= 17 || lower == upper || strcmp(lo, hi) != 0)
      break;
    d++;
  }
}

void pld_text_wrap(FILE *f, const char *head, size_t indent, const char *text)
{
  size_t col = strlen(head);
  fputs(head, f);
  if (col > 0 && col + 1 > indent) {
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
