/* Fuzz target: the EVENT grammar.  Any text must be accepted or refused
 * with one line naming the problem (no newline in the message), never
 * crash, hang or leak -- for both backends' parsers. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <pldkit/pldkit.h>

#include <pldkit/event.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if (size > 512) /* long inputs only repeat what short ones can do */
    size = 512;
  char *text = malloc(size + 1);
  if (!text)
    return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  char err[512];
  err[0] = '\0';
  if (pld_event_parse(text, NULL, NULL, err, sizeof err) != PLD_EVENT_OK &&
      (err[0] == '\0' || strchr(err, '\n')))
    abort(); /* a refusal must say why, in one line */
  err[0] = '\0';
  if (pld_event_parse_rdp(text, NULL, NULL, err, sizeof err) != PLD_EVENT_OK &&
      (err[0] == '\0' || strchr(err, '\n')))
    abort();
  free(text);
  return 0;
}
