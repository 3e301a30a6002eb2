/* pldkit CLI: the options table, the help texts made from it and from the
 * event table, and the parsing of the command line into struct cli. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#endif

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h> /* isatty */

#include <pldkit/pldkit.h>

#include <pldkit/event.h>
#include "dpevent_json.h"
#include "merge.h"
#include "mspafl.h"
#include "output.h"
#include "cli.h"

const char *const cli_cmd_names[N_CMDS] = {"epsilon", "delta", "curve",
                                              "calibrate", "demo",
                                              "rdp-curve", "save"};

const char *const cli_backend_names[] = {NULL, "pld", "rdp", "both"};

/* --rdp-conversion, indexed by enum pld_rdp_conversion. */
const char *const cli_conversion_names[] = {"best", "classic", "improved"};

static const struct option_spec options[] = {
  {"--delta", "D", ON(CMD_EPSILON), OPT_DELTA,
   "epsilon: the target delta; the answer is epsilon(D)",
   "a number in (0, 1)"},
  {"--epsilon", "E", ON(CMD_DELTA), OPT_EPSILON,
   "delta: the target epsilon in nats; the answer is delta(E)",
   "a finite number >= 0"},
  {"--epsilon-range", "LO:HI:N", ON(CMD_CURVE), OPT_RANGE,
   "N evenly spaced epsilons from LO to HI (nats)",
   "LO >= 0, HI > LO, N an integer in [2, 1000000]"},
  {"--epsilon", "E", ON(CMD_CALIBRATE), OPT_TARGET_EPSILON,
   "calibrate: the target epsilon in nats", "a finite number >= 0"},
  {"--delta", "D", ON(CMD_CALIBRATE), OPT_TARGET_DELTA,
   "calibrate: the target delta", "a number in (0, 1)"},
  {"--param", "NAME", ON(CMD_CALIBRATE), OPT_PARAM,
   "calibrate: the key to solve for; it must be the key that holds '?'",
   NULL /* the solvable keys, from the event table: see option_default */},
  {"--range", "LO:HI", ON(CMD_CALIBRATE), OPT_PARAM_RANGE,
   "calibrate: search the parameter in [LO, HI] only (without it: from 1 "
   "by doubling or halving, between 1e-12 and 1e12, rates up to 1, "
   "integers from their least value up to 2^53)",
   "0 < LO < HI, finite, inside the key's domain"},
  {"--tolerance", "REL", ON(CMD_CALIBRATE), OPT_TOLERANCE,
   "calibrate: stop when the failing and the passing value are within REL "
   "of each other (relative; integer keys such as count stop at "
   "neighbours)", "a number in (0, 1)"},
  {"--backend", "NAME", BACKEND_CMDS, OPT_BACKEND,
   "who answers: pld (privacy loss distributions: a bracket [lower, "
   "upper], the tightest of the PLD grid, the grid-free bounds and, for "
   "EVENTs with an RDP formula, the RDP bound), rdp (Renyi DP curves "
   "converted to (epsilon, delta): a certified upper bound only, usually "
   "looser), both (the PLD accountant without RDP, and RDP, side by side); "
   "see 'pldkit help rdp'", "one of pld, rdp, both"},
  {"--orders", "LIST", ORDER_CMDS, OPT_ORDERS,
   "the RDP orders alpha: A;B;C (or A,B,C) or LO:HI:N, N evenly spaced "
   "orders from LO to HI (--backend rdp or both)",
   "each order finite and > 1, strictly increasing, at most 100000 of "
   "them; N an integer >= 2"},
  {"--rdp-conversion", "NAME", BACKEND_CMDS, OPT_RDP_CONVERSION,
   "RDP to (epsilon, delta): classic, epsilon = r(alpha) + "
   "log(1/delta)/(alpha-1) (Mironov 2017); improved, Canonne, Kamath and "
   "Steinke 2020 / Asoodeh et al. 2021; best, the better of the two at "
   "every order (--backend rdp or both)", "one of best, classic, improved"},
  {"--discretization", "X", PLD_CMDS | ON(CMD_RDP_CURVE), OPT_DISCRETIZATION,
   "fix the grid step Delta (nats) of the PLDs, those of the RDP bridge "
   "included, instead of choosing it automatically",
   "a number in (0, 1000]"},
  {"--accuracy", "REL", PLD_CMDS, OPT_ACCURACY,
   "automatic Delta: refine until (upper - lower) / upper <= REL",
   "a number in (0, 1)"},
  {"--delta-floor", "D", ON(CMD_DELTA) | ON(CMD_CURVE), OPT_DELTA_FLOOR,
   "the smallest delta of interest: a bracket whose certified upper delta "
   "is at or below D meets the accuracy whatever its lower end (a width "
   "up to D always does), so a curve's refinement stops caring for its "
   "points below D",
   "a number in [0, 1); 0: down to 1e-300"},
  {"--tail-mass", "X", ALL_CMDS, OPT_TAIL_MASS,
   "probability mass each truncation may move to +inf (upper) or drop "
   "(lower), PLDs of the RDP bridge included",
   "a number in (0, 1)"},
  {"--max-grid", "N", ALL_CMDS, OPT_MAX_GRID,
   "cap on the grid points of any one array (memory), PLDs of the RDP "
   "bridge included; more fails",
   "an integer >= 1"},
  {"--out", "FILE", ON(CMD_SAVE), OPT_OUT,
   "save: the PLD file to write (a unique temporary file, fsync'd and "
   "renamed over FILE, so that an existing ledger is never left half "
   "written; a symbolic link is written through, anything but a regular "
   "file refused; with pld:file=FILE among the EVENTs, a locked ledger "
   "update as 'pldkit ledger add')",
   "a file name"},
  {"--delta", "D", ON(CMD_SAVE), OPT_SAVE_DELTA,
   "save: the delta at which the automatic grid is chosen (as for 'pldkit "
   "epsilon --delta D') and at which the saved PLD's epsilon is reported",
   "a number in (0, 1)"},
  {"--create", NULL, ON(CMD_SAVE), OPT_CREATE,
   "ledger add: create FILE if it does not exist (without it a missing "
   "FILE, e.g. a mistyped name, is an error)", NULL},
  {"--lock-timeout", "SECONDS", ON(CMD_SAVE), OPT_LOCK_TIMEOUT,
   "ledger add (and save --out L pld:file=L): give up when another update "
   "holds the ledger's lock for longer (exit 3); a wait is announced on "
   "stderr", "a number >= 0"},
  {"--events-json", "FILE", DPEVENT_CMDS, OPT_EVENTS_JSON,
   "add dp_accounting's serialized DpEvent tree (JSON of "
   "DpEvent.to_named_tuple(); '-' reads stdin), as Python's "
   "pldkit.dp_accounting does", "a JSON file"},
  {"--relation", "NAME", DPEVENT_CMDS, OPT_RELATION,
   "--events-json: dp_accounting's neighboring relation",
   "ADD_OR_REMOVE_ONE, REPLACE_ONE or REPLACE_SPECIAL"},
  {"--json", NULL, ALL_CMDS, OPT_JSON, "print one JSON object instead of text",
   NULL},
  {"--help", NULL, ALL_CMDS, OPT_HELP, "print this help and exit", NULL},
};

#define N_OPTIONS (sizeof options / sizeof options[0])

/* ------------------------------------------------------------------------ */
/* Help.                                                                     */

static void option_default(const struct option_spec *o, const pld_params *d,
                           char *buf, size_t n)
{
  switch (o->id) {
  case OPT_DELTA:
  case OPT_EPSILON:
  case OPT_TARGET_EPSILON:
  case OPT_TARGET_DELTA:
    snprintf(buf, n, "required");
    break;
  case OPT_RANGE:
    snprintf(buf, n, "default %g:%g:%d", RANGE_LO, RANGE_HI, RANGE_N);
    break;
  case OPT_PARAM:
    snprintf(buf, n, "default the key that holds '?'; one of %s",
             pld_event_solvable_keys());
    break;
  case OPT_PARAM_RANGE:
    snprintf(buf, n, "default none");
    break;
  case OPT_TOLERANCE:
    snprintf(buf, n, "default %g", CAL_TOLERANCE);
    break;
  case OPT_DISCRETIZATION:
    snprintf(buf, n, "default automatic");
    break;
  case OPT_ACCURACY:
    snprintf(buf, n, "default %g", d->accuracy);
    break;
  case OPT_DELTA_FLOOR:
    snprintf(buf, n, "default 0");
    break;
  case OPT_TAIL_MASS:
    snprintf(buf, n, "default 0: automatic");
    break;
  case OPT_MAX_GRID:
    snprintf(buf, n, "default %zu", d->max_grid);
    break;
  case OPT_BACKEND:
    snprintf(buf, n, "default pld");
    break;
  case OPT_ORDERS:
    snprintf(buf, n, "default 1.1, 1.2, ..., 10.9, 11, 12, ..., 64, 128, "
             "256, 512, 1024: %d orders", PLD_RDP_DEFAULT_ORDERS);
    break;
  case OPT_RDP_CONVERSION:
    snprintf(buf, n, "default best");
    break;
  case OPT_OUT:
    snprintf(buf, n, "required");
    break;
  case OPT_SAVE_DELTA:
    snprintf(buf, n, "default %g", SAVE_DELTA);
    break;
  case OPT_EVENTS_JSON:
    snprintf(buf, n, "default none");
    break;
  case OPT_CREATE:
    snprintf(buf, n, "default off");
    break;
  case OPT_LOCK_TIMEOUT:
    snprintf(buf, n, "default none: wait as long as it takes");
    break;
  case OPT_RELATION:
    snprintf(buf, n, "default ADD_OR_REMOVE_ONE");
    break;
  case OPT_JSON:
    snprintf(buf, n, "default off");
    break;
  case OPT_HELP:
    buf[0] = '\0';
    break;
  }
}

static void options_help(FILE *f, unsigned cmds)
{
  pld_params d;
  pld_params_default(&d);
  if (cmds & QUERY_CMDS)
    fputs("OPTIONS (before or after the EVENTs; --option=value works too; '--' "
          "ends the\noptions):\n", f);
  else
    fputs("OPTIONS (--option=value works too):\n", f);
  for (size_t i = 0; i < N_OPTIONS; i++) {
    const struct option_spec *o = &options[i];
    char head[48], def[128], text[640];
    if (!(o->cmds & cmds))
      continue;
    snprintf(head, sizeof head, "  %s%s%s", o->name, o->metavar ? " " : "",
             o->metavar ? o->metavar : "");
    option_default(o, &d, def, sizeof def);
    /* "calibrate: ..." tells the options of the same name apart in the main
     * help; a subcommand's own help needs no such prefix. */
    const char *meaning = o->meaning;
    for (size_t k = 0; k < N_CMDS; k++) {
      size_t n = strlen(cli_cmd_names[k]);
      if (cmds == ON(k) && strncmp(meaning, cli_cmd_names[k], n) == 0 &&
          strncmp(meaning + n, ": ", 2) == 0)
        meaning += n + 2;
    }
    if (def[0] || o->allowed)
      snprintf(text, sizeof text, "%s (%s%s%s)", meaning, def,
               def[0] && o->allowed ? "; " : "", o->allowed ? o->allowed : "");
    else
      snprintf(text, sizeof text, "%s", meaning);
    cli_text_wrap(f, head, 27, text);
  }
}

static void bracket_help(FILE *f)
{
  fputs("Every answer is a bracket [lower, upper] around the true value: upper "
        "is the\ncertified guarantee (pessimistic PLD), lower an optimistic "
        "estimate that shows\nhow tight it is.  Epsilons are in nats; an "
        "epsilon may be inf (no finite\nepsilon is certified).  --backend "
        "rdp answers with a certified upper bound only.\n\n"
        "Each end is the tightest the library can prove: besides the PLD "
        "grid, basic and\nadvanced composition, one run of an event (a "
        "lower end), the composed loss's\nmean and variance (a lower end) "
        "and, by default, RDP (an upper end).  Where an\nend does not come "
        "from the grid the answer says which bound gave it (\"upper\nfrom "
        "RDP\"; JSON: bound_kind and lower_kind, one of grid, closed-form, "
        "basic,\nadvanced, single-run, moments, rdp, none).  This keeps "
        "answers finite and sound\nat huge counts (up to count=2^53), where "
        "the grid's booked round-off compounds\npast use.\n\n", f);
}

static void exit_help(FILE *f)
{
  fputc('\n', f);
  cli_text_wrap(f, "", 0,
               "Exit status: 0 an answer was printed; 1 internal error (the "
               "library failed on valid input, e.g. out of memory or a grid "
               "over --max-grid); 2 bad input (one line on stderr, nothing on "
               "stdout); 3 a file not written (disk full, I/O error, lock "
               "timeout; nothing changed); 4 booked, but durability not "
               "confirmed.  Warnings go to stderr (\"pldkit: warning: ...\"), "
               "never to stdout; --json output also lists them in the array "
               "\"warnings\".");
}

/* Where the events are described (the table in catalogue/events_table.c,
 * through 'pldkit events' and 'pldkit help EVENT'). */
static void events_pointer(FILE *f)
{
  fputc('\n', f);
  cli_text_wrap(f, "", 0,
               "EVENTs are NAME:key=value,... (every EVENT also takes count=N; "
               "several EVENTs compose).  'pldkit events' lists them; 'pldkit "
               "help EVENT' gives the keys, domains and defaults of one, e.g. "
               "'pldkit help poisson-gaussian'.");
}

void cli_main_help(FILE *f)
{
  fprintf(f,
          "pldkit %s - differential-privacy accounting with privacy loss "
          "distributions\n\n"
          "Usage:\n"
          "  pldkit epsilon --delta D [OPTIONS] EVENT...\n"
          "      the smallest epsilon such that the composed EVENTs are "
          "(epsilon, D)-DP\n"
          "  pldkit delta --epsilon E [OPTIONS] EVENT...\n"
          "      the smallest delta such that they are (E, delta)-DP\n"
          "  pldkit curve [--epsilon-range LO:HI:N] [OPTIONS] EVENT...\n"
          "      delta(epsilon) as CSV: epsilon,delta_lower,delta_upper\n"
          "  pldkit calibrate --epsilon E --delta D [OPTIONS] EVENT...\n"
          "      the least private value of one key (given as KEY=?, e.g. "
          "sigma=? or\n      count=?) such that the EVENTs are (E, D)-DP\n"
          "  pldkit rdp-curve [--orders LIST] [OPTIONS] EVENT...\n"
          "      the composed Renyi DP curve as CSV: order,epsilon\n"
          "  pldkit ledger add FILE [--create] [OPTIONS] EVENT... | ledger "
          "show FILE [--json]\n"
          "      book EVENTs into a running ledger under a lock (concurrent "
          "updates lose\n      nothing), or show its epsilon and history\n"
          "  pldkit save --out FILE [--delta D] [OPTIONS] EVENT...\n"
          "      compose the EVENTs and save the PLD (a running ledger; "
          "compose it\n      later with the EVENT pld:file=FILE)\n"
          "  pldkit merge --config FILE [--epsilon E] [--delta D] [--json | --csv]\n"
          "      plan merge weights of DP-SGD runs (random selection and linear\n"
          "      combination, PLD and RDP)\n"
          "  pldkit mspafl THEOREM --key=value ... [--json]\n"
          "      an MS-PAFL closed form, its certified flag, and the PLD of "
          "the\n      same protocol ('pldkit mspafl --help')\n"
          "  pldkit demo [OPTIONS]\n"
          "      account a canonical DP-SGD run and explain the answer\n"
          "  pldkit events\n"
          "      list the EVENTs, one line each\n"
          "  pldkit help EVENT | COMMAND | rdp\n"
          "      one EVENT's keys, domains and defaults; a COMMAND's help; "
          "how the RDP\n      backend treats the EVENTs\n"
          "  pldkit COMMAND --help\n"
          "      the COMMAND's options, with defaults and allowed values\n"
          "  pldkit --help | --version\n\n",
          PLD_VERSION_STRING);
  bracket_help(f);
  fputs("Examples:\n  pldkit epsilon --delta 1e-5 "
        "poisson-gaussian:q=0.004267,sigma=1.1,count=14063\n"
        "  pldkit calibrate --epsilon 3 --delta 1e-5 "
        "poisson-gaussian:q=0.01,sigma=?,count=1000\n"
        "  pldkit epsilon --delta 1e-5 --backend both "
        "poisson-gaussian:q=0.01,sigma=1,count=1000\n", f);
  events_pointer(f);
  exit_help(f);
  fputs("\nThe manual: man pldkit.\n", f);
}

static void backend_help(FILE *f)
{
  fputs("With --backend rdp the answer is the RDP bound instead: the EVENTs' "
        "Renyi DP\ncurves are added over the --orders grid and converted "
        "(--rdp-conversion), the\nminimum over the orders is reported with "
        "the order that attains it, and a\nwarning line says when that order "
        "is at an end of the grid.  It is a certified\nupper bound only "
        "(JSON: the upper key holds it, the lower key is null).  With\n"
        "--backend both, the PLD bracket and the RDP bound are printed side "
        "by side (two\nlines; JSON: objects \"pld\" and \"rdp\").\n\n",
        f);
}

void cli_cmd_help(FILE *f, enum cmd c)
{
  switch (c) {
  case CMD_EPSILON:
    fputs("Usage: pldkit epsilon --delta D [--backend pld|rdp|both] "
          "[OPTIONS] EVENT...\n\n"
          "Print the smallest epsilon such that the composition of the EVENTs "
          "is\n(epsilon, D)-DP, as a bracket [lower, upper].\n", f);
    backend_help(f);
    break;
  case CMD_DELTA:
    fputs("Usage: pldkit delta --epsilon E [--backend pld|rdp|both] "
          "[OPTIONS] EVENT...\n\n"
          "Print the smallest delta such that the composition of the EVENTs "
          "is\n(E, delta)-DP, as a bracket [lower, upper].\n", f);
    backend_help(f);
    break;
  case CMD_RDP_CURVE:
    fputs("Usage: pldkit rdp-curve [--orders LIST] [OPTIONS] EVENT...\n\n"
          "Print the Renyi DP curve epsilon(alpha) of the composition of the "
          "EVENTs (nats,\ncertified upper bounds, inf where nothing finite "
          "is certified) at every order\nof the grid, as CSV with the header "
          "order,epsilon (with --json: one object with\nthe arrays order and "
          "epsilon).\nHow each EVENT's RDP is computed: 'pldkit help EVENT' "
          "(line RDP); the backend:\n'pldkit help rdp'.\n\n", f);
    options_help(f, ON(c));
    events_pointer(f);
    exit_help(f);
    return;
  case CMD_SAVE:
    fputs("Usage: pldkit save --out FILE [--delta D] [OPTIONS] EVENT...\n\n"
          "Compose the EVENTs into one PLD (both directions, both roundings) "
          "and save it to\nFILE, to be composed later with the EVENT "
          "pld:file=FILE, e.g. a deployment's\nrunning ledger:\n"
          "  pldkit save --out day1.pld poisson-gaussian:q=0.01,sigma=1,"
          "count=1000\n"
          "  pldkit save --out day2.pld pld:file=day1.pld "
          "poisson-gaussian:q=0.01,sigma=1,count=500\n"
          "  pldkit epsilon --delta 1e-5 pld:file=day2.pld\n"
          "The grid step is --discretization if given, else the one the "
          "automatic refinement\nsettles on for epsilon(D) (a PLD file fixes "
          "it: every PLD file composed with\nothers must share one step).  "
          "Printed: the file, its grid step and size, and\nthe saved PLD's "
          "own epsilon(D) bracket (what a later query of the file alone\n"
          "answers; upper is certified).  The format (versioned, checksummed, "
          "portable):\ninclude/pldkit/pld.h.\n\n", f);
    break;
  case CMD_CURVE:
    fputs("Usage: pldkit curve [--epsilon-range LO:HI:N] [OPTIONS] EVENT...\n\n"
          "Print delta(epsilon) of the composition of the EVENTs at N evenly "
          "spaced\nepsilons as CSV with the header "
          "epsilon,delta_lower,delta_upper\n(with --json: one object with the "
          "arrays epsilon, delta_lower, delta_upper).\n\n", f);
    break;
  case CMD_CALIBRATE:
    fputs("Usage: pldkit calibrate --epsilon E --delta D [--param NAME] "
          "[--range LO:HI]\n"
          "                        [--tolerance REL] [--backend pld|rdp|both]"
          "\n                        [OPTIONS] EVENT...\n\n", f);
    cli_text_wrap(f, "", 0,
                 "Find the least private value of one key (the smallest "
                 "noise, the largest sampling rate, sensitivity or count) "
                 "such that the EVENTs are (E, D)-DP by the CERTIFIED upper "
                 "epsilon, so that the answer is never over budget.  Mark "
                 "the key with '?' (keys marked 'or ? in calibrate' in "
                 "'pldkit help EVENT'):");
    fputs("  pldkit calibrate --epsilon 1 --delta 1e-5 "
          "gaussian:sigma=?,count=100\n", f);
    cli_text_wrap(f, "", 0,
                 "A value MEETS the target if its upper epsilon at D is <= E, "
                 "FAILS if its lower one is > E, else is UNDECIDED (never "
                 "taken for a failure).  The search doubles or halves from 1 "
                 "(within --range), then bisects to --tolerance; the answer "
                 "gives the value and the most private value certified to "
                 "fail.  --backend rdp uses the RDP bound; both runs the "
                 "two.  analysis=thm41 is NOT a certified bound.");
    fputc('\n', f);
    break;
  case CMD_DEMO:
    {
      char q[40];
      cli_fmt_exact(q, sizeof q, DEMO_BATCH / DEMO_N);
      fprintf(f, "Usage: pldkit demo [OPTIONS]\n\n"
              "Account a canonical DP-SGD run and explain the answer: a "
              "Poisson-subsampled\nGaussian with sampling rate q = %g/%g, "
              "noise sigma = %g, %d epochs = %d\nsteps, at delta = %g.  The "
              "same as\n  pldkit epsilon --delta %g "
              "poisson-gaussian:q=%s,sigma=%g,count=%d\n\n",
              DEMO_BATCH, DEMO_N, DEMO_SIGMA, DEMO_EPOCHS, DEMO_STEPS,
              DEMO_DELTA, DEMO_DELTA, q, DEMO_SIGMA, DEMO_STEPS);
    }
    bracket_help(f);
    options_help(f, ON(c));
    exit_help(f);
    return;
  case N_CMDS:
    return;
  }
  options_help(f, ON(c));
  events_pointer(f);
  exit_help(f);
}

/* ------------------------------------------------------------------------ */
/* Options.                                                                  */

static void list_options(unsigned cmd_bit, char *buf, size_t n)
{
  size_t o = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < N_OPTIONS && o < n; i++) {
    if (!(options[i].cmds & cmd_bit))
      continue;
    int w = snprintf(buf + o, n - o, "%s%s", o ? ", " : "", options[i].name);
    if (w < 0)
      break;
    o += (size_t)w;
  }
}

static int bad_value(const struct option_spec *o, const char *val,
                     const char *what)
{
  char q[QLEN];
  pld_cli_error("%s value %s is %s (%s must be %s)", o->name,
                cli_quote(q, sizeof q, val), what, o->metavar, o->allowed);
  return CLI_EUSAGE;
}

/* Read a real option value that must satisfy lo <(=) x <(=) hi. */
static int real_value(const struct option_spec *o, const char *val, double lo,
                      int lo_open, double hi, int hi_open, double *out)
{
  double x;
  if (*val == '\0')
    return bad_value(o, val, "empty");
  if (cli_parse_double(val, &x) != 0)
    return bad_value(o, val, "not a finite number");
  if (lo_open ? !(x > lo) : !(x >= lo))
    return bad_value(o, val, "out of range");
  if (hi_open ? !(x < hi) : !(x <= hi))
    return bad_value(o, val, "out of range");
  *out = x;
  return CLI_OK;
}

/* Split s in place at ':' into at most 3 fields; returns the number of
 * fields, or 4 if there are more than 3. */
static size_t split3(char *s, char *f[3])
{
  size_t nf = 0;
  for (char *p = s;; p++) {
    if (nf == 3)
      return 4;
    f[nf++] = p;
    p = strchr(p, ':');
    if (p == NULL)
      return nf;
    *p = '\0';
  }
}

static int range_value(struct cli *c, const struct option_spec *o,
                       const char *val)
{
  char *copy, *f[3], q[QLEN];
  size_t len = strlen(val), nf = 0;
  int rc = CLI_EUSAGE;
  long long n = 0;

  copy = malloc(len + 1);
  if (copy == NULL) {
    pld_cli_error("%s (while reading %s)", pld_strerror(PLD_ENOMEM), o->name);
    return CLI_EFAIL;
  }
  memcpy(copy, val, len + 1);
  nf = split3(copy, f);
  if (nf != 3) {
    pld_cli_error("%s value %s is not of the form LO:HI:N (%s)", o->name,
                  cli_quote(q, sizeof q, val), o->allowed);
  } else if (cli_parse_double(f[0], &c->range_lo) != 0) {
    pld_cli_error("%s: LO %s is not a finite number (%s)", o->name,
                  cli_quote(q, sizeof q, f[0]), o->allowed);
  } else if (cli_parse_double(f[1], &c->range_hi) != 0) {
    pld_cli_error("%s: HI %s is not a finite number (%s)", o->name,
                  cli_quote(q, sizeof q, f[1]), o->allowed);
  } else if (!(c->range_lo >= 0)) {
    pld_cli_error("%s: LO %s is negative (%s)", o->name,
                  cli_quote(q, sizeof q, f[0]), o->allowed);
  } else if (!(c->range_hi > c->range_lo)) {
    pld_cli_error("%s: HI %s is not above LO (%s)", o->name,
                  cli_quote(q, sizeof q, f[1]), o->allowed);
  } else {
    int r = cli_parse_int(f[2], 2, RANGE_MAX_N, &n);
    if (r != CLI_INT_OK)
      pld_cli_error("%s: N %s is %s (%s)", o->name,
                    cli_quote(q, sizeof q, f[2]),
                    r == CLI_INT_RANGE ? "out of range" : "not an integer",
                    o->allowed);
    else {
      c->range_n = (size_t)n;
      rc = CLI_OK;
    }
  }
  free(copy);
  return rc;
}

/* calibrate's --range LO:HI. */
static int param_range_value(struct cli *c, const struct option_spec *o,
                             const char *val)
{
  char q[QLEN];
  const char *colon = strchr(val, ':');
  char lo[64];
  if (colon == NULL || strchr(colon + 1, ':') != NULL ||
      (size_t)(colon - val) >= sizeof lo) {
    pld_cli_error("%s value %s is not of the form LO:HI (%s)", o->name,
                  cli_quote(q, sizeof q, val), o->allowed);
    return CLI_EUSAGE;
  }
  memcpy(lo, val, (size_t)(colon - val));
  lo[colon - val] = '\0';
  if (cli_parse_double(lo, &c->cal_lo) != 0) {
    pld_cli_error("%s: LO %s is not a finite number (%s)", o->name,
                  cli_quote(q, sizeof q, lo), o->allowed);
    return CLI_EUSAGE;
  }
  if (cli_parse_double(colon + 1, &c->cal_hi) != 0) {
    pld_cli_error("%s: HI %s is not a finite number (%s)", o->name,
                  cli_quote(q, sizeof q, colon + 1), o->allowed);
    return CLI_EUSAGE;
  }
  if (!(c->cal_lo > 0)) {
    pld_cli_error("%s: LO %s is not positive (%s)", o->name,
                  cli_quote(q, sizeof q, lo), o->allowed);
    return CLI_EUSAGE;
  }
  if (!(c->cal_hi > c->cal_lo)) {
    pld_cli_error("%s: HI %s is not above LO (%s)", o->name,
                  cli_quote(q, sizeof q, colon + 1), o->allowed);
    return CLI_EUSAGE;
  }
  return CLI_OK;
}

/* A word among names[0..n) (NULL entries skipped); -1 if none. */
static int word_value(const struct option_spec *o, const char *val,
                      const char *const *names, int n)
{
  for (int i = 0; i < n; i++)
    if (names[i] && strcmp(names[i], val) == 0)
      return i;
  bad_value(o, val, *val ? "not a known value" : "empty");
  return -1;
}

/* --orders: A;B;C (or commas) or LO:HI:N. */
static int orders_value(struct cli *c, const struct option_spec *o,
                        const char *val)
{
  char q[QLEN], q2[QLEN];
  size_t len = strlen(val), n = 0, cap = 1;
  double *x = NULL;
  char *copy = NULL;
  int rc = CLI_EUSAGE;

  if (len == 0)
    return bad_value(o, val, "empty");
  copy = malloc(len + 1);
  for (const char *p = val; *p; p++)
    cap += *p == ';' || *p == ',';
  if (strchr(val, ':') && cap < 2) {
    /* LO:HI:N */
    char *f[3];
    size_t nf = 0;
    long long N = 0;
    double lo, hi;
    if (copy == NULL)
      goto nomem;
    memcpy(copy, val, len + 1);
    nf = split3(copy, f);
    if (nf != 3) {
      pld_cli_error("%s value %s is neither a list A;B;C nor of the form "
                    "LO:HI:N (%s)", o->name, cli_quote(q, sizeof q, val),
                    o->allowed);
    } else if (cli_parse_double(f[0], &lo) != 0) {
      pld_cli_error("%s: LO %s is not a finite number (%s)", o->name,
                    cli_quote(q, sizeof q, f[0]), o->allowed);
    } else if (cli_parse_double(f[1], &hi) != 0) {
      pld_cli_error("%s: HI %s is not a finite number (%s)", o->name,
                    cli_quote(q, sizeof q, f[1]), o->allowed);
    } else if (!(lo > 1)) {
      pld_cli_error("%s: LO %s is not above 1 (Renyi orders alpha must be "
                    "> 1; %s)", o->name, cli_quote(q, sizeof q, f[0]),
                    o->allowed);
    } else if (!(hi > lo)) {
      pld_cli_error("%s: HI %s is not above LO (%s)", o->name,
                    cli_quote(q, sizeof q, f[1]), o->allowed);
    } else {
      int r = cli_parse_int(f[2], 2, ORDERS_MAX, &N);
      if (r != CLI_INT_OK) {
        pld_cli_error("%s: N %s is %s (N must be an integer from 2 to %d)",
                      o->name, cli_quote(q, sizeof q, f[2]),
                      r == CLI_INT_RANGE ? "out of range"
                                             : "not an integer",
                      ORDERS_MAX);
      } else {
        x = malloc((size_t)N * sizeof *x);
        if (x == NULL)
          goto nomem;
        for (long long i = 0; i < N; i++)
          x[i] = lo + (hi - lo) * (double)i / (double)(N - 1);
        x[N - 1] = hi;
        n = (size_t)N;
        rc = CLI_OK;
        for (size_t i = 1; i < n && rc == CLI_OK; i++)
          if (!(x[i] > x[i - 1])) {
            pld_cli_error("%s value %s: the orders are too close to be "
                          "told apart in double precision (use a smaller N)",
                          o->name, cli_quote(q, sizeof q, val));
            rc = CLI_EUSAGE;
          }
      }
    }
  } else {
    /* A;B;C */
    if (cap > ORDERS_MAX) {
      pld_cli_error("%s value has %zu orders (at most %d)", o->name, cap,
                    ORDERS_MAX);
      goto out;
    }
    x = malloc(cap * sizeof *x);
    if (copy == NULL || x == NULL)
      goto nomem;
    memcpy(copy, val, len + 1);
    rc = CLI_OK;
    char *item = copy;
    for (size_t i = 0; i < cap && rc == CLI_OK; i++) {
      size_t w = strcspn(item, ";,");
      char *next = item[w] ? item + w + 1 : NULL;
      item[w] = '\0';
      rc = CLI_EUSAGE;
      if (*item == '\0')
        pld_cli_error("%s value %s has an empty entry (number %zu; %s)",
                      o->name, cli_quote(q, sizeof q, val), i + 1,
                      o->allowed);
      else if (cli_parse_double(item, &x[i]) != 0)
        pld_cli_error("%s: order %s is not a finite number (%s)", o->name,
                      cli_quote(q, sizeof q, item), o->allowed);
      else if (!(x[i] > 1))
        pld_cli_error("%s: order %s is not above 1 (Renyi orders alpha "
                      "must be > 1; %s)", o->name,
                      cli_quote(q, sizeof q, item), o->allowed);
      else if (i > 0 && !(x[i] > x[i - 1])) {
        char prev[40];
        cli_fmt_exact(prev, sizeof prev, x[i - 1]);
        pld_cli_error("%s: order %s is not above the order before it, %s "
                      "(the orders must be strictly increasing)", o->name,
                      cli_quote(q, sizeof q, item),
                      cli_quote(q2, sizeof q2, prev));
      } else {
        rc = CLI_OK;
        n = i + 1;
      }
      item = next;
    }
  }
  if (rc == CLI_OK) {
    c->orders = x;
    c->n_orders = n;
    x = NULL;
  }
  goto out;
nomem:
  pld_cli_error("%s (while reading %s)", pld_strerror(PLD_ENOMEM), o->name);
  rc = CLI_EFAIL;
out:
  free(copy);
  free(x);
  return rc;
}

static int set_option(struct cli *c, const struct option_spec *o,
                      const char *val)
{
  switch (o->id) {
  case OPT_OUT:
    if (*val == '\0') {
      pld_cli_error("option '--out' has an empty value (FILE must be a file "
                    "name)");
      return CLI_EUSAGE;
    }
    c->out = val;
    return CLI_OK;
  case OPT_DELTA:
  case OPT_TARGET_DELTA:
  case OPT_SAVE_DELTA:
    return real_value(o, val, 0.0, 1, 1.0, 1, &c->delta);
  case OPT_EPSILON:
  case OPT_TARGET_EPSILON:
    return real_value(o, val, 0.0, 0, HUGE_VAL, 1, &c->epsilon);
  case OPT_RANGE:
    return range_value(c, o, val);
  case OPT_PARAM: {
    char q[QLEN];
    if (!cli_is_solvable_key(val)) {
      pld_cli_error("%s value %s is %s (NAME must be a key calibrate can "
                    "solve for: one of %s)", o->name,
                    cli_quote(q, sizeof q, val),
                    *val ? "not such a key" : "empty",
                    pld_event_solvable_keys());
      return CLI_EUSAGE;
    }
    snprintf(c->param, sizeof c->param, "%s", val);
    return CLI_OK;
  }
  case OPT_PARAM_RANGE:
    return param_range_value(c, o, val);
  case OPT_TOLERANCE:
    return real_value(o, val, 0.0, 1, 1.0, 1, &c->tolerance);
  case OPT_DISCRETIZATION:
    /* the builder's largest step (PLD_DISCRETIZATION_MAX): beyond it every
     * event built from a curve would fail with "argument invalid" */
    return real_value(o, val, 0.0, 1, PLD_DISCRETIZATION_MAX, 0,
                      &c->params.discretization);
  case OPT_ACCURACY:
    return real_value(o, val, 0.0, 1, 1.0, 1, &c->params.accuracy);
  case OPT_DELTA_FLOOR:
    return real_value(o, val, 0.0, 0, 1.0, 1, &c->params.delta_floor);
  case OPT_TAIL_MASS:
    /* 0 is the library's automatic tail (pld.h) */
    return real_value(o, val, 0.0, 0, 1.0, 1, &c->params.tail_mass);
  case OPT_MAX_GRID: {
    long long n = 0;
    long long hi = SIZE_MAX < (size_t)INT64_MAX ? (long long)SIZE_MAX
                                                : (long long)INT64_MAX;
    int r = cli_parse_int(val, 1, hi, &n);
    if (r != CLI_INT_OK)
      return bad_value(o, val, r == CLI_INT_RANGE ? "out of range"
                                                      : "not an integer");
    c->params.max_grid = (size_t)n;
    return CLI_OK;
  }
  case OPT_BACKEND: {
    int i = word_value(o, val, cli_backend_names, 4);
    if (i < 0)
      return CLI_EUSAGE;
    c->backend = (enum backend)i;
    return CLI_OK;
  }
  case OPT_ORDERS:
    return orders_value(c, o, val);
  case OPT_RDP_CONVERSION: {
    int i = word_value(o, val, cli_conversion_names, 3);
    if (i < 0)
      return CLI_EUSAGE;
    c->rdp_method = i;
    return CLI_OK;
  }
  case OPT_EVENTS_JSON:
    c->events_json = val;
    return CLI_OK;
  case OPT_CREATE:
    c->create = 1;
    return CLI_OK;
  case OPT_LOCK_TIMEOUT:
    return real_value(o, val, 0.0, 0, 1e9, 0, &c->lock_timeout);
  case OPT_RELATION:
    if (pld_dpevent_relation_parse(val, &c->relation) != PLD_SUCCESS)
      return bad_value(o, val, "not a relation");
    return CLI_OK;
  case OPT_JSON:
    c->json = 1;
    return CLI_OK;
  case OPT_HELP:
    return CLI_OK; /* handled before parsing */
  }
  return CLI_EUSAGE;
}

/* The option of that name for subcommand `cmd_bit`, else the first of that
 * name (the caller then says it does not apply), else NULL. */
static const struct option_spec *find_option(const char *name, size_t len,
                                             unsigned cmd_bit)
{
  const struct option_spec *any = NULL;
  if (len == 2 && strncmp(name, "-h", 2) == 0) {
    name = "--help";
    len = 6;
  }
  for (size_t i = 0; i < N_OPTIONS; i++)
    if (strlen(options[i].name) == len &&
        strncmp(options[i].name, name, len) == 0) {
      if (options[i].cmds & cmd_bit)
        return &options[i];
      if (any == NULL)
        any = &options[i];
    }
  if (any)
    return any;
  return NULL;
}

/* calibrate: the domain searched, the key's (from the event table) cut to
 * --range; integer keys take the integers inside --range. */
static int cal_domain(struct cli *c)
{
  char lo[40], hi[40];
  const pld_event_hole *p = &c->hole;
  pld_search_opts o;
  pld_search_opts_default(&o);
  int st = pld_search_opts_domain(&o, p->lo, p->hi, p->integer, c->cal_lo,
                                  c->cal_hi);
  if (st == PLD_ERANGE) {
    pld_cli_error("--range holds fewer than two integers, and %s takes "
                  "integers", c->param);
    return CLI_EUSAGE;
  }
  if (st != PLD_SUCCESS) {
    cli_fmt_exact(lo, sizeof lo, p->lo);
    cli_fmt_exact(hi, sizeof hi, p->hi);
    pld_cli_error("--range must lie inside the domain calibrate searches "
                  "for %s (%s=? in event %s): [%s, %s]", c->param, c->param,
                  p->where, lo, hi);
    return CLI_EUSAGE;
  }
  c->cal_dom_lo = o.lo;
  c->cal_dom_hi = o.hi;
  c->cal_start = o.start;
  return CLI_OK;
}

/* Parse and validate the arguments of a subcommand (argv[0] is the first
 * argument after the subcommand's name).  Every EVENT is validated here. */
int cli_parse_args(struct cli *c, int argc, char **argv)
{
  char err[ERRLEN], q[QLEN], allowed[200];
  const char *cmd = cli_cmd_names[c->cmd];
  int only_events = 0;

  list_options(ON(c->cmd), allowed, sizeof allowed);
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    if (!only_events && a[0] == '-') {
      if (strcmp(a, "--") == 0) {
        only_events = 1;
        continue;
      }
      const char *eq = strncmp(a, "--", 2) == 0 ? strchr(a, '=') : NULL;
      size_t len = eq ? (size_t)(eq - a) : strlen(a);
      const struct option_spec *o = find_option(a, len, ON(c->cmd));
      if (o == NULL) {
        /* Show only the option name: its value may be long. */
        char name[QLEN];
        snprintf(name, sizeof name, "%.*s", (int)(len < 64 ? len : 64), a);
        pld_cli_error("unknown option %s for 'pldkit %s' (allowed: %s)",
                      cli_quote(q, sizeof q, name), cmd, allowed);
        return CLI_EUSAGE;
      }
      if (!(o->cmds & ON(c->cmd))) {
        pld_cli_error("option '%s' does not apply to 'pldkit %s' "
                      "(allowed: %s)", o->name, cmd, allowed);
        return CLI_EUSAGE;
      }
      if (c->seen & ON(o->id)) {
        pld_cli_error("option '%s' given twice", o->name);
        return CLI_EUSAGE;
      }
      c->seen |= ON(o->id);
      const char *val = NULL;
      if (o->metavar == NULL) {
        if (eq) {
          pld_cli_error("option '%s' takes no value, got %s", o->name,
                        cli_quote(q, sizeof q, a));
          return CLI_EUSAGE;
        }
      } else if (eq) {
        val = eq + 1;
      } else if (i + 1 < argc) {
        val = argv[++i];
      } else {
        pld_cli_error("option '%s' needs a value %s (%s)", o->name,
                      o->metavar, o->allowed);
        return CLI_EUSAGE;
      }
      int rc = set_option(c, o, val);
      if (rc != CLI_OK)
        return rc;
      continue;
    }
    if (c->cmd == CMD_DEMO) {
      pld_cli_error("'pldkit demo' takes no EVENT, got %s",
                    cli_quote(q, sizeof q, a));
      return CLI_EUSAGE;
    }
    c->events[c->n_events++] = a;
  }
  if ((c->seen & ON(OPT_RELATION)) && !c->events_json) {
    pld_cli_error("option '--relation' applies only with --events-json");
    return CLI_EUSAGE;
  }
  /* The EVENTs, once the options (which may follow them) fix the backend. */
  if (c->backend == 0)
    c->backend = BACKEND_PLD;
  if (c->cmd == CMD_RDP_CURVE)
    c->backend = BACKEND_RDP;
  if ((c->seen & (ON(OPT_ORDERS) | ON(OPT_RDP_CONVERSION))) &&
      !(c->backend & BACKEND_RDP)) {
    pld_cli_error("option '%s' applies only with --backend rdp or both "
                  "(the backend is pld, the default)",
                  c->seen & ON(OPT_ORDERS) ? "--orders" : "--rdp-conversion");
    return CLI_EUSAGE;
  }
  /* Each text parsed once into a tree; the trees (and --events-json's)
   * composed in order. */
  size_t nparts = c->n_events + (c->events_json ? 1 : 0);
  pld_event **parts = calloc(nparts ? nparts : 1, sizeof *parts);
  c->parts = parts;
  c->n_parts = nparts;
  if (parts == NULL) {
    pld_cli_error("%s (while reading the EVENTs)", pld_strerror(PLD_ENOMEM));
    return CLI_EFAIL;
  }
  int rc = CLI_OK;
  for (size_t i = 0; i < c->n_events && rc == CLI_OK; i++) {
    int st = pld_event_parse(c->events[i], &parts[i]);
    if (st != PLD_SUCCESS) {
      pld_cli_error("%s", pld_error_detail()[0] ? pld_error_detail()
                                                : pld_strerror(st));
      rc = cli_rc_of_status(st);
    }
  }
  if (rc == CLI_OK && c->events_json) {
    /* the library's translation (catalogue/dpevent.c), after the EVENTs of
     * the command line */
    rc = pld_cli_events_json_load(c->events_json, c->relation,
                                  &parts[c->n_events], &c->dp_nonprivate,
                                  err, sizeof err);
    if (rc != CLI_OK) {
      pld_cli_error("%s", err);
    } else {
      pld_event_summary js;
      js.size = sizeof js;
      if (pld_event_summarize(parts[c->n_events], &js) == PLD_SUCCESS &&
          js.events == 0) {
        pld_cli_error("--events-json '%s': the DpEvent tree holds no "
                      "mechanism (only no-ops, zero counts or zero rates): "
                      "nothing to account", c->events_json);
        rc = CLI_EUSAGE;
      }
    }
  }
  if (rc == CLI_OK && c->events_json) {
    /* its canonical text stands for it among the EVENTs (history records) */
    size_t len = 0;
    int st = pld_event_format(parts[c->n_events], NULL, 0, &len);
    char *t = malloc(len + 1);
    const char **ev = realloc(c->events, (c->n_events + 2) * sizeof *ev);
    if (ev)
      c->events = ev;
    if (t == NULL || ev == NULL ||
        pld_event_format(parts[c->n_events], t, len + 1, &len) !=
            PLD_SUCCESS) {
      free(t);
      pld_cli_error("%s (while reading --events-json)",
                    pld_strerror(PLD_ENOMEM));
      return CLI_EFAIL;
    }
    (void)st;
    c->json_text = t;
    c->events[c->n_events++] = t;
  }
  if (rc == CLI_OK && nparts > 0) {
    int st = pld_event_compose(nparts, (const pld_event *const *)parts,
                               &c->ev);
    if (st != PLD_SUCCESS) {
      pld_cli_error("%s", pld_error_detail());
      rc = cli_rc_of_status(st);
    }
  }
  if (rc != CLI_OK)
    return rc;
  if (c->ev) {
    c->sum.size = sizeof c->sum;
    c->hole.size = sizeof c->hole;
    if (pld_event_summarize(c->ev, &c->sum) != PLD_SUCCESS ||
        pld_event_get_hole(c->ev, &c->hole) != PLD_SUCCESS) {
      pld_cli_error("%s", pld_error_detail());
      return CLI_EFAIL;
    }
    c->closed_thm41 = c->sum.closed_analysis &&
                      strcmp(c->sum.closed_analysis, "thm41") == 0;
    if (c->hole.present && c->cmd != CMD_CALIBRATE) {
      pld_cli_error("%s=? in event %s: '?' marks the value to solve for "
                    "and is only allowed in 'pldkit calibrate'",
                    c->hole.key, c->hole.where);
      return CLI_EUSAGE;
    }
    if (c->sum.closed && (c->backend & BACKEND_RDP)) {
      pld_cli_error("a closed-form single-round analysis "
                    "(random-participation analysis=thm41 or ols) has no RDP "
                    "curve: use --backend pld (analysis=wcs and cs work with "
                    "every backend)");
      return CLI_EUSAGE;
    }
    if (!c->sum.has_pld && (c->backend & BACKEND_PLD) &&
        c->cmd != CMD_RDP_CURVE) {
      /* the library says which event and why (a hole filled with a value
       * of its domain first) */
      pld_accountant *acc = NULL;
      pld_event *probe = NULL;
      int st = PLD_SUCCESS;
      if (c->hole.present)
        st = pld_event_fill(c->ev, fmax(c->hole.lo, fmin(1.0, c->hole.hi)),
                            &probe);
      if (st == PLD_SUCCESS)
        st = pld_event_to_accountant(probe ? probe : c->ev, &c->params, &acc);
      pld_accountant_free(acc);
      pld_event_free(probe);
      if (st != PLD_SUCCESS) {
        pld_cli_error("%s; it needs --backend rdp (which works with 'pldkit "
                      "epsilon', 'pldkit delta' and 'pldkit calibrate', and "
                      "'pldkit rdp-curve' prints the RDP curve)",
                      pld_error_detail());
        return CLI_EUSAGE;
      }
    }
  }

  if (c->cmd == CMD_CALIBRATE) {
    if (!(c->seen & ON(OPT_TARGET_EPSILON))) {
      pld_cli_error("missing --epsilon E for 'pldkit calibrate' (the target "
                    "epsilon, a finite number >= 0, e.g. --epsilon 1)");
      return CLI_EUSAGE;
    }
    if (!(c->seen & ON(OPT_TARGET_DELTA))) {
      pld_cli_error("missing --delta D for 'pldkit calibrate' (the target "
                    "delta, a number in (0, 1), e.g. --delta 1e-5)");
      return CLI_EUSAGE;
    }
    if (c->n_events > 0 && !c->hole.present) {
      pld_cli_error("no '?' in the EVENTs of 'pldkit calibrate': mark the "
                    "one value to solve for as KEY=?, e.g. "
                    "poisson-gaussian:q=0.01,sigma=?,count=1000 (KEY one of "
                    "%s)", pld_event_solvable_keys());
      return CLI_EUSAGE;
    }
    if (c->n_events > 0 && c->param[0] &&
        strcmp(c->param, c->hole.key) != 0) {
      pld_cli_error("--param %s does not match the key that holds '?' "
                    "(%s=? in event %s); give --param %s or move the '?'",
                    c->param, c->hole.key, c->hole.where, c->hole.key);
      return CLI_EUSAGE;
    }
    snprintf(c->param, sizeof c->param, "%s", c->hole.key);
    if (c->tolerance == 0)
      c->tolerance = CAL_TOLERANCE;
    if (c->n_events > 0 && cal_domain(c) != CLI_OK)
      return CLI_EUSAGE;
  }
  if (c->sum.closed && c->cmd != CMD_EPSILON && c->cmd != CMD_DELTA &&
      c->cmd != CMD_CALIBRATE) {
    pld_cli_error("a closed-form single-round analysis (random-participation "
                  "analysis=thm41 or ols) is answered only by 'pldkit "
                  "epsilon', 'pldkit delta' and 'pldkit calibrate' "
                  "(analysis=wcs works everywhere)");
    return CLI_EUSAGE;
  }

  if (c->cmd == CMD_EPSILON && !(c->seen & ON(OPT_DELTA))) {
    pld_cli_error("missing --delta D for 'pldkit epsilon' (D must be a number "
                  "in (0, 1), e.g. --delta 1e-5)");
    return CLI_EUSAGE;
  }
  if (c->cmd == CMD_SAVE && c->out == NULL) {
    pld_cli_error("missing --out FILE for 'pldkit save' (the PLD file to "
                  "write, e.g. --out ledger.pld)");
    return CLI_EUSAGE;
  }
  if (c->cmd == CMD_SAVE && !(c->seen & ON(OPT_SAVE_DELTA)))
    c->delta = SAVE_DELTA;
  if ((c->seen & ON(OPT_CREATE)) && !c->ledger) {
    pld_cli_error("option '--create' applies only to 'pldkit ledger add' "
                  "('pldkit save' always creates its file)");
    return CLI_EUSAGE;
  }
  if (!(c->seen & ON(OPT_LOCK_TIMEOUT)))
    c->lock_timeout = -1.0;
  if (c->cmd == CMD_DELTA && !(c->seen & ON(OPT_EPSILON))) {
    pld_cli_error("missing --epsilon E for 'pldkit delta' (E must be a finite "
                  "number >= 0, e.g. --epsilon 1)");
    return CLI_EUSAGE;
  }
  if (c->cmd != CMD_DEMO && c->n_events == 0) {
    pld_cli_error("no EVENT given to 'pldkit %s' (e.g. gaussian:sigma=1; see "
                  "'pldkit %s --help' for the list)", cmd, cmd);
    return CLI_EUSAGE;
  }
  /* Backstop for limits the library knows and the table above does not. */
  int st = pld_params_validate(&c->params);
  if (st != PLD_SUCCESS) {
    char d[32], a[32], t[32];
    cli_fmt_exact(d, sizeof d, c->params.discretization);
    cli_fmt_exact(a, sizeof a, c->params.accuracy);
    cli_fmt_exact(t, sizeof t, c->params.tail_mass);
    pld_cli_error("the library rejected the options (%s): --discretization %s "
                  "--accuracy %s --tail-mass %s --max-grid %zu",
                  pld_status_text(st), d, a, t, c->params.max_grid);
    return CLI_EUSAGE;
  }
  return CLI_OK;
}
