/* pldkit CLI: the catalogue's help ('pldkit events', 'pldkit help EVENT',
 * 'pldkit help rdp'), written from the library's table
 * (pld_event_info_get, pld_event_key_get). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pldkit/event.h>

#include "cli.h"

/* The i-th word of "a|b|c" into buf. */
static const char *choice_name(const char *choices, size_t i, char *buf,
                               size_t n)
{
  const char *c = choices;
  for (size_t k = 0; k < i && c; k++) {
    c = strchr(c, '|');
    if (c)
      c++;
  }
  if (c == NULL) {
    snprintf(buf, n, "?");
    return buf;
  }
  size_t w = strcspn(c, "|");
  snprintf(buf, n, "%.*s", (int)w, c);
  return buf;
}

int cli_is_solvable_key(const char *name)
{
  if (strcmp(name, "count") == 0)
    return 1;
  for (size_t i = 0; i < pld_event_count(); i++) {
    pld_event_info e;
    if (pld_event_info_get(i, &e) != PLD_SUCCESS)
      continue;
    for (size_t k = 0; k < e.n_keys; k++) {
      pld_event_key ks;
      if (pld_event_key_get(i, k, &ks) == PLD_SUCCESS && ks.direction &&
          strcmp(ks.name, name) == 0)
        return 1;
    }
  }
  return 0;
}

void cli_members_help(FILE *f);

/* One event's entry: its summary, how RDP handles it, and every key with
 * its meaning, default and domain. */
static void event_entry(FILE *f, size_t idx, const pld_event_info *e)
{
  char head[32], text[400], dom[96];
  fprintf(f, "%s%s%s\n", e->name, e->title ? " - " : "",
          e->title ? e->title : "");
  cli_text_wrap(f, "", 2, e->summary);
  if (e->rdp_how) {
    snprintf(text, sizeof text, "RDP (--backend rdp): %s", e->rdp_how);
    cli_text_wrap(f, "", 2, text);
  }
  fputs("Keys:\n", f);
  for (size_t k = 0; k < e->n_keys; k++) {
    pld_event_key ks;
    if (pld_event_key_get(idx, k, &ks) != PLD_SUCCESS)
      continue;
    char def[48];
    if (ks.required)
      snprintf(def, sizeof def, "required");
    else if (ks.choices)
      snprintf(def, sizeof def, "default %s",
               choice_name(ks.choices, (size_t)ks.def, head, sizeof head));
    else
      snprintf(def, sizeof def, "default %g", ks.def);
    snprintf(dom, sizeof dom, "%s", ks.domain);
    snprintf(head, sizeof head, "  %s", ks.name);
    snprintf(text, sizeof text, "%s; %s, %s%s", ks.meaning, def, dom,
             ks.direction > 0
                 ? " (or ? in calibrate: larger is more private)"
             : ks.direction < 0
                 ? " (or ? in calibrate: smaller is more private)"
                 : "");
    cli_text_wrap(f, head, 16, text);
  }
  cli_text_wrap(f, "  count", 16,
               "number of runs, composed with itself (every EVENT takes it); "
               "default 1, an integer from 1 to 2^53 (or ? in calibrate: the "
               "largest number of runs that meets the target)");
  if (e->members == 1)
    cli_members_help(f);
}

/* The one walk over the event table behind 'pldkit events' and 'pldkit
 * help EVENT' (the table is the only description of the events). */
int cli_catalogue_write(FILE *f, int full, const char *name)
{
  int found = 0;
  for (size_t i = 0; i < pld_event_count(); i++) {
    pld_event_info e;
    if (pld_event_info_get(i, &e) != PLD_SUCCESS)
      continue;
    if (name != NULL && strcmp(name, e.name) != 0)
      continue;
    found = 1;
    if (!full)
      fprintf(f, "  %-26s %s\n", e.name, e.title ? e.title : "");
    else
      event_entry(f, i, &e);
  }
  return found ? 0 : -1;
}

void cli_members_help(FILE *f)
{
  fputs("\nMember lists and '+':\n", f);
  cli_text_wrap(f, "", 2,
               "random-selection:weights=W1;...;Wn[,count=N][M1|M2|...|Mn] "
               "runs member Mi with probability Wi (the choice is visible; "
               "there must be exactly one weight per member, each >= 0, "
               "summing to 1 within 1e-12).  The member list is in brackets, "
               "at the end of the event, members separated by '|'.  Each "
               "member is one or more EVENTs joined by '+', composed on their "
               "own before the selection, e.g. "
               "[gaussian:sigma=2,count=10+laplace:b=3|gaussian:sigma=8]; a "
               "member may itself be a random-selection (nesting up to 32 "
               "levels).  count=N, before '[', composes the whole selection "
               "N times.  A '+' joins EVENTs only when a letter follows it "
               "(1e+5 stays a number), and an EVENT argument may itself be "
               "several EVENTs joined by '+'.  Quote such arguments in the "
               "shell: ';', '|', '[' and ']' are special there.  Example: "
               "pldkit epsilon --delta 1e-5 "
               "'random-selection:weights=0.3;0.7[gaussian:sigma=2,count=10|"
               "gaussian:sigma=8,count=10]'");
}

void cli_rdp_help(FILE *f)
{
  fputs("The RDP backend (--backend rdp|both of epsilon, delta and calibrate, "
        "and rdp-curve):\n", f);
  cli_text_wrap(f, "", 2,
               "Every EVENT's Renyi DP curve eps(alpha) is computed at every "
               "order alpha of the grid (--orders), as a certified upper "
               "bound, and the curves are added (composition).  Events with "
               "a closed form or a paper's bound use it (pldkit help EVENT, "
               "line RDP).  "
               "The others go through the PLD bridge: the certified upper "
               "Renyi divergence of the pessimistic PLD of one run (on a "
               "fine grid: --discretization if given, else a divisor of the "
               "mechanism's loss lattice if it has one, else about 1e-3/count "
               "of its loss scale, at least 1e-4 of it; where that gives inf, "
               "also a second grid, keeping the smaller value), composed "
               "count times.  "
               "The bridge is conservative: it adds up to one grid step per "
               "run, and it is inf at every order when the PLD has mass at "
               "+inf (losses truncated at a finite value, e.g. unbounded "
               "losses, or rounding); inf is then the honest answer, not "
               "an error.  Members of random-selection are composed into "
               "their own curves.  model-splitting, balanced-iteration and "
               "bounded-gaussian with kind=truncated exist only in RDP; "
               "random-participation with analysis=thm41 or ols only in "
               "PLD.  Proofs and what is not proven: docs/papers-rdp.md");
}

