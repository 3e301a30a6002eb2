/* pldkit CLI: --events-json FILE, dp_accounting's serialized DpEvent tree
 * (jansson) -> pld_dpevent -> EVENT texts (the library's translation,
 * <pldkit/dpevent.h>). */
#ifndef PLDKIT_CLI_DPEVENT_JSON_H
#define PLDKIT_CLI_DPEVENT_JSON_H

#include <stddef.h>

#include <pldkit/dpevent.h>

/** Most EVENTs a --events-json tree may hold (its leaves after
 *  flattening; a SelfComposedDpEvent's count does not multiply them). */
#define PLD_CLI_EVENTS_JSON_MAX 10000

/** Read the JSON file `path` ("-": stdin) and translate it under
 *  `relation` (enum pld_dpevent_relation).  On failure *out is zeroed and
 *  err gets one line naming the file, the event class and its place.
 *  @return an enum pld_event_rc. */
int pld_cli_events_json_load(const char *path, int relation, pld_event **out,
                             int *nonprivate, char *err, size_t errlen);

#endif
