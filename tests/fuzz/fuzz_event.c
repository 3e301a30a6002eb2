/* Fuzz target: the event tree.  Any text must be accepted or refused with
 * one line naming the problem (no newline in the message), never crash,
 * hang or leak; an accepted text's canonical form must parse back to the
 * same canonical form; building its accountant and its RDP curve (no
 * bridge) must succeed or say why in one line. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <pldkit/pldkit.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void one_line_or_abort(int st)
{
  const char *d = pld_error_detail();
  if (st != PLD_SUCCESS && st != PLD_ENOMEM && (d[0] == '\0' || strchr(d, '\n')))
    abort(); /* a refusal must say why, in one line */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if (size > 512) /* long inputs only repeat what short ones can do */
    size = 512;
  char *text = malloc(size + 1);
  if (!text)
    return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  pld_event *ev = NULL, *again = NULL;
  int st = pld_event_parse(text, &ev);
  one_line_or_abort(st);
  if (st == PLD_SUCCESS) {
    size_t len = 0, len2 = 0;
    char *a = NULL, *b = NULL;
    if (pld_event_format(ev, NULL, 0, &len) != PLD_ERANGE && len != 0)
      abort();
    a = malloc(len + 1);
    if (a && pld_event_format(ev, a, len + 1, &len) == PLD_SUCCESS) {
      if (pld_event_parse(a, &again) != PLD_SUCCESS)
        abort(); /* the canonical text must parse */
      b = malloc(len + 1);
      if (b && (pld_event_format(again, b, len + 1, &len2) != PLD_SUCCESS ||
                strcmp(a, b) != 0))
        abort(); /* and read back to itself */
    }
    free(a);
    free(b);
    pld_event_hole h;
    h.size = sizeof h;
    if (pld_event_get_hole(ev, &h) == PLD_SUCCESS && !h.present) {
      pld_accountant *acc = NULL;
      pld_rdp_curve *cv = NULL;
      one_line_or_abort(pld_event_to_accountant(ev, NULL, &acc));
      one_line_or_abort(pld_event_to_rdp(ev, 0, NULL, 0, NULL, &cv, NULL));
      pld_accountant_free(acc);
      pld_rdp_curve_free(cv);
    }
  }
  pld_event_free(ev);
  pld_event_free(again);
  free(text);
  return 0;
}
