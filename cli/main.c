/* pldkit: the command-line tool.
 *
 * A thin layer over <pldkit/accountant.h> and <pldkit/rdp.h>: it parses and
 * validates the whole command line first (so that bad input never produces
 * partial output), then makes one accountant and/or one RDP curve
 * (--backend), adds the events, asks one query and prints the answer.  All
 * accounting happens in the library.
 *
 * Exit status: 0 success, 1 the library failed on valid input, 2 bad input
 * (one line on stderr, nothing on stdout).
 */
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

enum cmd { CMD_EPSILON, CMD_DELTA, CMD_CURVE, CMD_CALIBRATE, CMD_DEMO,
           CMD_RDP_CURVE, CMD_SAVE, N_CMDS };

static const char *const cmd_names[N_CMDS] = {"epsilon", "delta", "curve",
                                              "calibrate", "demo",
                                              "rdp-curve", "save"};
#define CMD_LIST                                                              \
  "epsilon, delta, curve, calibrate, demo, rdp-curve, save, merge, mspafl, " \
  "ledger, events, help"

#define ON(c) (1u << (c))
/* Subcommands that take EVENTs. */
#define QUERY_CMDS                                                            \
  (ON(CMD_EPSILON) | ON(CMD_DELTA) | ON(CMD_CURVE) | ON(CMD_CALIBRATE) |      \
   ON(CMD_RDP_CURVE) | ON(CMD_SAVE))
#define ALL_CMDS (QUERY_CMDS | ON(CMD_DEMO))
/* Subcommands that run the PLD accountant. */
#define PLD_CMDS (ALL_CMDS & ~ON(CMD_RDP_CURVE))
/* Subcommands with a choice of backend, and those that use RDP orders. */
#define BACKEND_CMDS (ON(CMD_EPSILON) | ON(CMD_DELTA) | ON(CMD_CALIBRATE))
#define ORDER_CMDS (BACKEND_CMDS | ON(CMD_RDP_CURVE))
/* --events-json: not calibrate (a DpEvent tree holds no '?'). */
#define DPEVENT_CMDS (QUERY_CMDS & ~ON(CMD_CALIBRATE))

/* --backend */
enum backend { BACKEND_PLD = 1, BACKEND_RDP = 2, BACKEND_BOTH = 3 };
static const char *const backend_names[] = {NULL, "pld", "rdp", "both"};

/* --rdp-conversion, indexed by enum pld_rdp_conversion. */
static const char *const conversion_names[] = {"best", "classic", "improved"};

/* --orders: at most this many orders (the library's cost is linear in it,
 * model-splitting's much more). */
#define ORDERS_MAX 100000

enum opt_id {
  OPT_DELTA,
  OPT_EPSILON,
  OPT_RANGE,
  OPT_TARGET_EPSILON,
  OPT_TARGET_DELTA,
  OPT_PARAM,
  OPT_PARAM_RANGE,
  OPT_TOLERANCE,
  OPT_DISCRETIZATION,
  OPT_ACCURACY,
  OPT_TAIL_MASS,
  OPT_MAX_GRID,
  OPT_BACKEND,
  OPT_ORDERS,
  OPT_RDP_CONVERSION,
  OPT_OUT,
  OPT_SAVE_DELTA,
  OPT_EVENTS_JSON,
  OPT_RELATION,
  OPT_JSON,
  OPT_HELP
};

struct option_spec {
  const char *name;
  const char *metavar; /* NULL: a flag without value */
  unsigned cmds;       /* subcommands that accept it */
  enum opt_id id;
  const char *meaning;
  const char *allowed; /* the value's domain, for help and messages */
};

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

/* The curve's default range: enough points to plot, up to epsilons where
 * typical mechanisms have negligible delta. */
#define RANGE_LO 0.0
#define RANGE_HI 10.0
#define RANGE_N 101
#define RANGE_MAX_N 1000000

/* The canonical DP-SGD run of the demo: MNIST-sized data set, batch 256,
 * 60 epochs = ceil(60 * 60000 / 256) steps. */
#define DEMO_N 60000.0
#define DEMO_BATCH 256.0
#define DEMO_SIGMA 1.1
#define DEMO_EPOCHS 60
#define DEMO_STEPS 14063
#define DEMO_DELTA 1e-5

/* calibrate's defaults: the search starts at 1 (typical noise scales are of
 * that order) and stops at a relative bracket of 1e-3. */
/* save: the delta that picks the automatic grid, the DP-SGD convention. */
#define SAVE_DELTA 1e-5
#define CAL_TOLERANCE 1e-3

struct cli {
  enum cmd cmd;
  int json;
  unsigned seen; /* bit per enum opt_id, to refuse duplicates */
  double delta, epsilon;
  double range_lo, range_hi;
  size_t range_n;
  char param[32];           /* calibrate: --param, or the key holding '?' */
  double cal_lo, cal_hi;    /* calibrate: --range (0, 0 if not given) */
  double cal_dom_lo, cal_dom_hi; /* calibrate: the domain searched */
  double cal_start;              /* calibrate: the first value tried */
  double tolerance;         /* calibrate: --tolerance */
  enum backend backend;     /* epsilon, delta: --backend */
  double *orders;           /* --orders (owned), NULL: the default grid */
  size_t n_orders;
  int rdp_method;           /* --rdp-conversion, enum pld_rdp_conversion */
  pld_params params;
  const char *out;      /* save: --out (borrowed from argv) */
  int ledger;           /* save as 'pldkit ledger add': a locked update */
  const char **events; /* borrowed strings (argv, or demo_event) */
  size_t n_events;
  pld_event_ctx parse; /* what the validation pass found */
  const char *events_json; /* --events-json FILE (borrowed from argv) */
  int relation;            /* --relation, enum pld_dpevent_relation */
  pld_dpevent_texts dp;    /* the EVENT texts of --events-json (owned) */
};

#define ERRLEN 1024
#define QLEN 96

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
  case OPT_TAIL_MASS:
    snprintf(buf, n, "default %g", d->tail_mass);
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
      size_t n = strlen(cmd_names[k]);
      if (cmds == ON(k) && strncmp(meaning, cmd_names[k], n) == 0 &&
          strncmp(meaning + n, ": ", 2) == 0)
        meaning += n + 2;
    }
    if (def[0] || o->allowed)
      snprintf(text, sizeof text, "%s (%s%s%s)", meaning, def,
               def[0] && o->allowed ? "; " : "", o->allowed ? o->allowed : "");
    else
      snprintf(text, sizeof text, "%s", meaning);
    pld_text_wrap(f, head, 27, text);
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
  pld_text_wrap(f, "", 0,
               "Exit status: 0 an answer was printed; 1 internal error (the "
               "library failed on valid input, e.g. out of memory or a grid "
               "over --max-grid); 2 bad input (one line on stderr, nothing on "
               "stdout).  Warnings go to stderr (\"pldkit: warning: ...\"), "
               "never to stdout; --json output also lists them in the array "
               "\"warnings\".");
}

/* Where the events are described (the table in events.c, through 'pldkit
 * events' and 'pldkit help EVENT'). */
static void events_pointer(FILE *f)
{
  fputc('\n', f);
  pld_text_wrap(f, "", 0,
               "EVENTs are NAME:key=value,... (every EVENT also takes count=N; "
               "several EVENTs compose).  'pldkit events' lists them; 'pldkit "
               "help EVENT' gives the keys, domains and defaults of one, e.g. "
               "'pldkit help poisson-gaussian'.");
}

static void main_help(FILE *f)
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
          "  pldkit ledger add FILE [OPTIONS] EVENT... | ledger show FILE\n"
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

static void cmd_help(FILE *f, enum cmd c)
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
    pld_text_wrap(f, "", 0,
                 "Find the least private value of one key (the smallest "
                 "noise, the largest sampling rate, sensitivity or count) "
                 "such that the EVENTs are (E, D)-DP by the CERTIFIED upper "
                 "epsilon, so that the answer is never over budget.  Mark "
                 "the key with '?' (keys marked 'or ? in calibrate' in "
                 "'pldkit help EVENT'):");
    fputs("  pldkit calibrate --epsilon 1 --delta 1e-5 "
          "gaussian:sigma=?,count=100\n", f);
    pld_text_wrap(f, "", 0,
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
      pld_fmt_exact(q, sizeof q, DEMO_BATCH / DEMO_N);
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
                pld_quote(q, sizeof q, val), what, o->metavar, o->allowed);
  return PLD_EVENT_EUSAGE;
}

/* Read a real option value that must satisfy lo <(=) x <(=) hi. */
static int real_value(const struct option_spec *o, const char *val, double lo,
                      int lo_open, double hi, int hi_open, double *out)
{
  double x;
  if (*val == '\0')
    return bad_value(o, val, "empty");
  if (pld_event_parse_double(val, &x) != 0)
    return bad_value(o, val, "not a finite number");
  if (lo_open ? !(x > lo) : !(x >= lo))
    return bad_value(o, val, "out of range");
  if (hi_open ? !(x < hi) : !(x <= hi))
    return bad_value(o, val, "out of range");
  *out = x;
  return PLD_EVENT_OK;
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
  int rc = PLD_EVENT_EUSAGE;
  long long n = 0;

  copy = malloc(len + 1);
  if (copy == NULL) {
    pld_cli_error("%s (while reading %s)", pld_strerror(PLD_ENOMEM), o->name);
    return PLD_EVENT_EFAIL;
  }
  memcpy(copy, val, len + 1);
  nf = split3(copy, f);
  if (nf != 3) {
    pld_cli_error("%s value %s is not of the form LO:HI:N (%s)", o->name,
                  pld_quote(q, sizeof q, val), o->allowed);
  } else if (pld_event_parse_double(f[0], &c->range_lo) != 0) {
    pld_cli_error("%s: LO %s is not a finite number (%s)", o->name,
                  pld_quote(q, sizeof q, f[0]), o->allowed);
  } else if (pld_event_parse_double(f[1], &c->range_hi) != 0) {
    pld_cli_error("%s: HI %s is not a finite number (%s)", o->name,
                  pld_quote(q, sizeof q, f[1]), o->allowed);
  } else if (!(c->range_lo >= 0)) {
    pld_cli_error("%s: LO %s is negative (%s)", o->name,
                  pld_quote(q, sizeof q, f[0]), o->allowed);
  } else if (!(c->range_hi > c->range_lo)) {
    pld_cli_error("%s: HI %s is not above LO (%s)", o->name,
                  pld_quote(q, sizeof q, f[1]), o->allowed);
  } else {
    int r = pld_event_parse_int(f[2], 2, RANGE_MAX_N, &n);
    if (r != PLD_EVENT_INT_OK)
      pld_cli_error("%s: N %s is %s (%s)", o->name,
                    pld_quote(q, sizeof q, f[2]),
                    r == PLD_EVENT_INT_RANGE ? "out of range" : "not an integer",
                    o->allowed);
    else {
      c->range_n = (size_t)n;
      rc = PLD_EVENT_OK;
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
                  pld_quote(q, sizeof q, val), o->allowed);
    return PLD_EVENT_EUSAGE;
  }
  memcpy(lo, val, (size_t)(colon - val));
  lo[colon - val] = '\0';
  if (pld_event_parse_double(lo, &c->cal_lo) != 0) {
    pld_cli_error("%s: LO %s is not a finite number (%s)", o->name,
                  pld_quote(q, sizeof q, lo), o->allowed);
    return PLD_EVENT_EUSAGE;
  }
  if (pld_event_parse_double(colon + 1, &c->cal_hi) != 0) {
    pld_cli_error("%s: HI %s is not a finite number (%s)", o->name,
                  pld_quote(q, sizeof q, colon + 1), o->allowed);
    return PLD_EVENT_EUSAGE;
  }
  if (!(c->cal_lo > 0)) {
    pld_cli_error("%s: LO %s is not positive (%s)", o->name,
                  pld_quote(q, sizeof q, lo), o->allowed);
    return PLD_EVENT_EUSAGE;
  }
  if (!(c->cal_hi > c->cal_lo)) {
    pld_cli_error("%s: HI %s is not above LO (%s)", o->name,
                  pld_quote(q, sizeof q, colon + 1), o->allowed);
    return PLD_EVENT_EUSAGE;
  }
  return PLD_EVENT_OK;
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
  int rc = PLD_EVENT_EUSAGE;

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
                    "LO:HI:N (%s)", o->name, pld_quote(q, sizeof q, val),
                    o->allowed);
    } else if (pld_event_parse_double(f[0], &lo) != 0) {
      pld_cli_error("%s: LO %s is not a finite number (%s)", o->name,
                    pld_quote(q, sizeof q, f[0]), o->allowed);
    } else if (pld_event_parse_double(f[1], &hi) != 0) {
      pld_cli_error("%s: HI %s is not a finite number (%s)", o->name,
                    pld_quote(q, sizeof q, f[1]), o->allowed);
    } else if (!(lo > 1)) {
      pld_cli_error("%s: LO %s is not above 1 (Renyi orders alpha must be "
                    "> 1; %s)", o->name, pld_quote(q, sizeof q, f[0]),
                    o->allowed);
    } else if (!(hi > lo)) {
      pld_cli_error("%s: HI %s is not above LO (%s)", o->name,
                    pld_quote(q, sizeof q, f[1]), o->allowed);
    } else {
      int r = pld_event_parse_int(f[2], 2, ORDERS_MAX, &N);
      if (r != PLD_EVENT_INT_OK) {
        pld_cli_error("%s: N %s is %s (N must be an integer from 2 to %d)",
                      o->name, pld_quote(q, sizeof q, f[2]),
                      r == PLD_EVENT_INT_RANGE ? "out of range"
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
        rc = PLD_EVENT_OK;
        for (size_t i = 1; i < n && rc == PLD_EVENT_OK; i++)
          if (!(x[i] > x[i - 1])) {
            pld_cli_error("%s value %s: the orders are too close to be "
                          "told apart in double precision (use a smaller N)",
                          o->name, pld_quote(q, sizeof q, val));
            rc = PLD_EVENT_EUSAGE;
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
    rc = PLD_EVENT_OK;
    char *item = copy;
    for (size_t i = 0; i < cap && rc == PLD_EVENT_OK; i++) {
      size_t w = strcspn(item, ";,");
      char *next = item[w] ? item + w + 1 : NULL;
      item[w] = '\0';
      rc = PLD_EVENT_EUSAGE;
      if (*item == '\0')
        pld_cli_error("%s value %s has an empty entry (number %zu; %s)",
                      o->name, pld_quote(q, sizeof q, val), i + 1,
                      o->allowed);
      else if (pld_event_parse_double(item, &x[i]) != 0)
        pld_cli_error("%s: order %s is not a finite number (%s)", o->name,
                      pld_quote(q, sizeof q, item), o->allowed);
      else if (!(x[i] > 1))
        pld_cli_error("%s: order %s is not above 1 (Renyi orders alpha "
                      "must be > 1; %s)", o->name,
                      pld_quote(q, sizeof q, item), o->allowed);
      else if (i > 0 && !(x[i] > x[i - 1])) {
        char prev[40];
        pld_fmt_exact(prev, sizeof prev, x[i - 1]);
        pld_cli_error("%s: order %s is not above the order before it, %s "
                      "(the orders must be strictly increasing)", o->name,
                      pld_quote(q, sizeof q, item),
                      pld_quote(q2, sizeof q2, prev));
      } else {
        rc = PLD_EVENT_OK;
        n = i + 1;
      }
      item = next;
    }
  }
  if (rc == PLD_EVENT_OK) {
    c->orders = x;
    c->n_orders = n;
    x = NULL;
  }
  goto out;
nomem:
  pld_cli_error("%s (while reading %s)", pld_strerror(PLD_ENOMEM), o->name);
  rc = PLD_EVENT_EFAIL;
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
      return PLD_EVENT_EUSAGE;
    }
    c->out = val;
    return PLD_EVENT_OK;
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
    if (!pld_event_is_solvable_key(val)) {
      pld_cli_error("%s value %s is %s (NAME must be a key calibrate can "
                    "solve for: one of %s)", o->name,
                    pld_quote(q, sizeof q, val),
                    *val ? "not such a key" : "empty",
                    pld_event_solvable_keys());
      return PLD_EVENT_EUSAGE;
    }
    snprintf(c->param, sizeof c->param, "%s", val);
    return PLD_EVENT_OK;
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
  case OPT_TAIL_MASS:
    return real_value(o, val, 0.0, 1, 1.0, 1, &c->params.tail_mass);
  case OPT_MAX_GRID: {
    long long n = 0;
    long long hi = SIZE_MAX < (size_t)INT64_MAX ? (long long)SIZE_MAX
                                                : (long long)INT64_MAX;
    int r = pld_event_parse_int(val, 1, hi, &n);
    if (r != PLD_EVENT_INT_OK)
      return bad_value(o, val, r == PLD_EVENT_INT_RANGE ? "out of range"
                                                      : "not an integer");
    c->params.max_grid = (size_t)n;
    return PLD_EVENT_OK;
  }
  case OPT_BACKEND: {
    int i = word_value(o, val, backend_names, 4);
    if (i < 0)
      return PLD_EVENT_EUSAGE;
    c->backend = (enum backend)i;
    return PLD_EVENT_OK;
  }
  case OPT_ORDERS:
    return orders_value(c, o, val);
  case OPT_RDP_CONVERSION: {
    int i = word_value(o, val, conversion_names, 3);
    if (i < 0)
      return PLD_EVENT_EUSAGE;
    c->rdp_method = i;
    return PLD_EVENT_OK;
  }
  case OPT_EVENTS_JSON:
    c->events_json = val;
    return PLD_EVENT_OK;
  case OPT_RELATION:
    if (pld_dpevent_relation_parse(val, &c->relation) != PLD_SUCCESS)
      return bad_value(o, val, "not a relation");
    return PLD_EVENT_OK;
  case OPT_JSON:
    c->json = 1;
    return PLD_EVENT_OK;
  case OPT_HELP:
    return PLD_EVENT_OK; /* handled before parsing */
  }
  return PLD_EVENT_EUSAGE;
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
  const pld_event_ctx *p = &c->parse;
  pld_search_opts o;
  pld_search_opts_default(&o);
  int st = pld_search_opts_domain(&o, p->mark_lo, p->mark_hi,
                                  p->mark_integer, c->cal_lo, c->cal_hi);
  if (st == PLD_ERANGE) {
    pld_cli_error("--range holds fewer than two integers, and %s takes "
                  "integers", c->param);
    return PLD_EVENT_EUSAGE;
  }
  if (st != PLD_SUCCESS) {
    pld_fmt_exact(lo, sizeof lo, p->mark_lo);
    pld_fmt_exact(hi, sizeof hi, p->mark_hi);
    pld_cli_error("--range must lie inside the domain calibrate searches "
                  "for %s (%s=? in event %s): [%s, %s]", c->param, c->param,
                  p->mark_where, lo, hi);
    return PLD_EVENT_EUSAGE;
  }
  c->cal_dom_lo = o.lo;
  c->cal_dom_hi = o.hi;
  c->cal_start = o.start;
  return PLD_EVENT_OK;
}

/* Parse and validate the arguments of a subcommand (argv[0] is the first
 * argument after the subcommand's name).  Every EVENT is validated here. */
static int parse_args(struct cli *c, int argc, char **argv)
{
  char err[ERRLEN], q[QLEN], allowed[200];
  const char *cmd = cmd_names[c->cmd];
  int only_events = 0;

  list_options(ON(c->cmd), allowed, sizeof allowed);
  memset(&c->parse, 0, sizeof c->parse);
  /* calibrate: validate with a valid stand-in for the one '?'. */
  c->parse.subst = c->cmd == CMD_CALIBRATE ? PLD_EVENT_STANDIN : NULL;
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
                      pld_quote(q, sizeof q, name), cmd, allowed);
        return PLD_EVENT_EUSAGE;
      }
      if (!(o->cmds & ON(c->cmd))) {
        pld_cli_error("option '%s' does not apply to 'pldkit %s' "
                      "(allowed: %s)", o->name, cmd, allowed);
        return PLD_EVENT_EUSAGE;
      }
      if (c->seen & ON(o->id)) {
        pld_cli_error("option '%s' given twice", o->name);
        return PLD_EVENT_EUSAGE;
      }
      c->seen |= ON(o->id);
      const char *val = NULL;
      if (o->metavar == NULL) {
        if (eq) {
          pld_cli_error("option '%s' takes no value, got %s", o->name,
                        pld_quote(q, sizeof q, a));
          return PLD_EVENT_EUSAGE;
        }
      } else if (eq) {
        val = eq + 1;
      } else if (i + 1 < argc) {
        val = argv[++i];
      } else {
        pld_cli_error("option '%s' needs a value %s (%s)", o->name,
                      o->metavar, o->allowed);
        return PLD_EVENT_EUSAGE;
      }
      int rc = set_option(c, o, val);
      if (rc != PLD_EVENT_OK)
        return rc;
      continue;
    }
    if (c->cmd == CMD_DEMO) {
      pld_cli_error("'pldkit demo' takes no EVENT, got %s",
                    pld_quote(q, sizeof q, a));
      return PLD_EVENT_EUSAGE;
    }
    c->events[c->n_events++] = a;
  }
  if ((c->seen & ON(OPT_RELATION)) && !c->events_json) {
    pld_cli_error("option '--relation' applies only with --events-json");
    return PLD_EVENT_EUSAGE;
  }
  if (c->events_json) {
    /* the library's translation (catalogue/dpevent.c); its texts follow
     * the EVENTs of the command line */
    int rc = pld_cli_events_json_load(c->events_json, c->relation, &c->dp,
                                      err, sizeof err);
    if (rc != PLD_EVENT_OK) {
      pld_cli_error("%s", err);
      return rc;
    }
    if (c->dp.n == 0) {
      pld_cli_error("--events-json '%s': the DpEvent tree holds no "
                    "mechanism (only no-ops, zero counts or zero rates): "
                    "nothing to account", c->events_json);
      return PLD_EVENT_EUSAGE;
    }
    const char **ev = realloc(c->events, (c->n_events + c->dp.n + 1) *
                                             sizeof *ev);
    if (ev == NULL) {
      pld_cli_error("%s (while reading --events-json)",
                    pld_strerror(PLD_ENOMEM));
      return PLD_EVENT_EFAIL;
    }
    c->events = ev;
    for (size_t k = 0; k < c->dp.n; k++)
      c->events[c->n_events++] = c->dp.texts[k];
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
    return PLD_EVENT_EUSAGE;
  }
  c->parse.backends = (c->backend & BACKEND_PLD ? PLD_EVENT_BACKEND_PLD : 0u) |
                      (c->backend & BACKEND_RDP ? PLD_EVENT_BACKEND_RDP : 0u);
  /* the caps (--max-grid) apply to loaded PLD files from validation on */
  c->parse.params = &c->params;
  for (size_t i = 0; i < c->n_events; i++) {
    int rc = pld_event_parse(c->events[i], &c->parse, NULL, err,
                                 sizeof err);
    if (rc != PLD_EVENT_OK) {
      pld_cli_error("%s", err);
      return rc;
    }
  }

  if (c->cmd == CMD_CALIBRATE) {
    if (!(c->seen & ON(OPT_TARGET_EPSILON))) {
      pld_cli_error("missing --epsilon E for 'pldkit calibrate' (the target "
                    "epsilon, a finite number >= 0, e.g. --epsilon 1)");
      return PLD_EVENT_EUSAGE;
    }
    if (!(c->seen & ON(OPT_TARGET_DELTA))) {
      pld_cli_error("missing --delta D for 'pldkit calibrate' (the target "
                    "delta, a number in (0, 1), e.g. --delta 1e-5)");
      return PLD_EVENT_EUSAGE;
    }
    if (c->n_events > 0 && c->parse.marks == 0) {
      pld_cli_error("no '?' in the EVENTs of 'pldkit calibrate': mark the "
                    "one value to solve for as KEY=?, e.g. "
                    "poisson-gaussian:q=0.01,sigma=?,count=1000 (KEY one of "
                    "%s)", pld_event_solvable_keys());
      return PLD_EVENT_EUSAGE;
    }
    if (c->n_events > 0 && c->param[0] &&
        strcmp(c->param, c->parse.mark_key) != 0) {
      pld_cli_error("--param %s does not match the key that holds '?' "
                    "(%s=? in event %s); give --param %s or move the '?'",
                    c->param, c->parse.mark_key, c->parse.mark_where,
                    c->parse.mark_key);
      return PLD_EVENT_EUSAGE;
    }
    snprintf(c->param, sizeof c->param, "%s", c->parse.mark_key);
    if (c->tolerance == 0)
      c->tolerance = CAL_TOLERANCE;
    if (c->n_events > 0 && cal_domain(c) != PLD_EVENT_OK)
      return PLD_EVENT_EUSAGE;
  }
  if (c->parse.closed.present && c->cmd != CMD_EPSILON &&
      c->cmd != CMD_DELTA && c->cmd != CMD_CALIBRATE) {
    pld_cli_error("analysis=%s in event %s is a closed-form single-round "
                  "answer: only 'pldkit epsilon', 'pldkit delta' and 'pldkit "
                  "calibrate' can ask it (analysis=wcs works everywhere)",
                  pld_event_closed_name(&c->parse.closed),
                  c->parse.closed.where);
    return PLD_EVENT_EUSAGE;
  }

  if (c->cmd == CMD_EPSILON && !(c->seen & ON(OPT_DELTA))) {
    pld_cli_error("missing --delta D for 'pldkit epsilon' (D must be a number "
                  "in (0, 1), e.g. --delta 1e-5)");
    return PLD_EVENT_EUSAGE;
  }
  if (c->cmd == CMD_SAVE && c->out == NULL) {
    pld_cli_error("missing --out FILE for 'pldkit save' (the PLD file to "
                  "write, e.g. --out ledger.pld)");
    return PLD_EVENT_EUSAGE;
  }
  if (c->cmd == CMD_SAVE && !(c->seen & ON(OPT_SAVE_DELTA)))
    c->delta = SAVE_DELTA;
  if (c->cmd == CMD_DELTA && !(c->seen & ON(OPT_EPSILON))) {
    pld_cli_error("missing --epsilon E for 'pldkit delta' (E must be a finite "
                  "number >= 0, e.g. --epsilon 1)");
    return PLD_EVENT_EUSAGE;
  }
  if (c->cmd != CMD_DEMO && c->n_events == 0) {
    pld_cli_error("no EVENT given to 'pldkit %s' (e.g. gaussian:sigma=1; see "
                  "'pldkit %s --help' for the list)", cmd, cmd);
    return PLD_EVENT_EUSAGE;
  }
  /* Backstop for limits the library knows and the table above does not. */
  int st = pld_params_validate(&c->params);
  if (st != PLD_SUCCESS) {
    char d[32], a[32], t[32];
    pld_fmt_exact(d, sizeof d, c->params.discretization);
    pld_fmt_exact(a, sizeof a, c->params.accuracy);
    pld_fmt_exact(t, sizeof t, c->params.tail_mass);
    pld_cli_error("the library rejected the options (%s): --discretization %s "
                  "--accuracy %s --tail-mass %s --max-grid %zu",
                  pld_status_text(st), d, a, t, c->params.max_grid);
    return PLD_EVENT_EUSAGE;
  }
  return PLD_EVENT_OK;
}

/* ------------------------------------------------------------------------ */
/* Computing and printing.                                                   */

static double now(void)
{
  struct timespec ts;
  if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
    return 0.0;
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

struct answer {
  pld_result res; /* for curves, res.bound is unused; for calibrate, the
                     bracket at the calibrated value */
  double *eps;    /* curve only */
  pld_bound *curve;
  double seconds;
  /* closed-form single round (random-participation thm41/ols) */
  int closed;
  pld_event_closed_answer ca;
  /* calibrate: [CAL_PLD] the PLD search (accountant or closed form),
   * [CAL_RDP] the RDP one */
  pld_search_result cal[2];
  int cal_ran[2];
  double cal_seconds[2];
  pld_rdp_result cal_rdp[2]; /* RDP details at the value and at the next */
  int cal_rdp_have[2];
  pld_event_closed_answer cal_closed; /* closed form: flags at the value */
  /* --backend rdp or both, and rdp-curve */
  double pld_seconds, rdp_seconds;
  pld_rdp_result rdp;     /* epsilon, delta */
  size_t rdp_n;           /* the orders: how many, first and last */
  double rdp_first, rdp_last;
  unsigned bridged;       /* events that went through the PLD bridge */
  double *rdp_orders;     /* rdp-curve: copies of the curve */
  double *rdp_values;
  pld_cli_warnings warn;  /* what goes with the answer (collect_warnings) */
};

static void answer_free(struct answer *a)
{
  free(a->eps);
  free(a->curve);
  free(a->rdp_orders);
  free(a->rdp_values);
  a->eps = NULL;
  a->curve = NULL;
  a->rdp_orders = NULL;
  a->rdp_values = NULL;
}

static const char *hint(int st)
{
  switch (st) {
  case PLD_ERANGE:
  case PLD_ENOMEM:
    return "; a coarser --discretization (at most 1000), a larger --accuracy "
           "or a larger --max-grid may help";
  case PLD_EMAXITER:
  case PLD_ETOL:
    return "; try a different --accuracy or --discretization";
  default:
    return "";
  }
}

/* The library's query for this command line (<pldkit/event.h>). */
static void cli_query(const struct cli *c, pld_event_query *q)
{
  pld_event_query_default(q);
  q->params = c->params;
  q->backend = (c->backend & BACKEND_PLD ? PLD_EVENT_BACKEND_PLD : 0u) |
               (c->backend & BACKEND_RDP ? PLD_EVENT_BACKEND_RDP : 0u);
  q->rdp_method = c->rdp_method;
  q->orders = c->orders;
  q->n_orders = c->n_orders;
}

/* A fresh accountant holding all the EVENTs; `subst` replaces the '?' of
 * calibrate (NULL elsewhere).  Objects the accountant's mechanisms need are
 * appended to *owned, which the caller frees (pld_event_owned_free) after the
 * accountant.  On failure err holds the message. */
static int build_accountant(const struct cli *c, const char *subst,
                            pld_accountant **out, pld_event_owned **owned,
                            char *err, size_t errlen)
{
  pld_event_query q;
  cli_query(c, &q);
  return pld_event_accountant(&q, c->n_events, c->events, subst, out, owned,
                              err, errlen);
}

/* The RDP curve of all the EVENTs on the --orders grid; `subst` replaces
 * the '?' of calibrate (NULL elsewhere).  On failure err holds the
 * message. */
static int build_rdp(const struct cli *c, const char *subst,
                     pld_rdp_curve **out, unsigned *bridged, char *err,
                     size_t errlen)
{
  pld_event_query q;
  cli_query(c, &q);
  return pld_event_rdp_curve(&q, c->n_events, c->events, subst, 0, out,
                             bridged, err, errlen);
}

/* ---- calibrate ---------------------------------------------------------- */

/* The library searches (pld_calibrate_accountant, pld_calibrate_search);
 * here only the callbacks that put a value in place of '?' and evaluate the
 * EVENTs, and the printing. */

enum { CAL_PLD = 0, CAL_RDP = 1 };

/* The RDP answer at each value tried (for the order at the answer). */
struct cal_seen {
  double x;
  pld_rdp_result r;
};

struct cal_ctx {
  const struct cli *c;
  int which;             /* CAL_PLD or CAL_RDP */
  char err[ERRLEN + 96]; /* the callback's failure, if any */
  double last;           /* the value last built */
  int tty;               /* progress on stderr */
  int width;             /* width of the progress line on screen */
  pld_event_owned **owned; /* kept alive until the calibration ends */
  struct cal_seen *seen; /* CAL_RDP */
  size_t n_seen;
  unsigned bridged;
};

/* The text that replaces '?' for value x: integers as such, reals exactly. */
static void cal_text(const struct cli *c, double x, char *buf, size_t n)
{
  if (c->parse.mark_integer)
    snprintf(buf, n, "%.0f", x);
  else
    pld_fmt_exact(buf, n, x);
}

static int cal_build(double x, void *vk, pld_accountant **out)
{
  struct cal_ctx *k = vk;
  char val[40], msg[ERRLEN];
  k->last = x;
  cal_text(k->c, x, val, sizeof val);
  int rc = build_accountant(k->c, val, out, k->owned, msg, sizeof msg);
  if (rc != PLD_EVENT_OK) {
    snprintf(k->err, sizeof k->err, "at %s = %s: %s", k->c->param, val, msg);
    return PLD_ECALLBACK;
  }
  return PLD_SUCCESS;
}

/* RDP: the certified upper end only, so the bracket is [0, value] and no
 * value is ever certified to fail. */
static int cal_eval_rdp(double x, const pld_result *prev, void *vk,
                        pld_result *out)
{
  struct cal_ctx *k = vk;
  char val[40], msg[ERRLEN];
  pld_rdp_curve *cv = NULL;
  pld_rdp_result r;
  unsigned bridged = 0;
  if (prev)
    return PLD_EUNSUPPORTED;
  k->last = x;
  cal_text(k->c, x, val, sizeof val);
  int rc = build_rdp(k->c, val, &cv, &bridged, msg, sizeof msg);
  if (rc != PLD_EVENT_OK) {
    snprintf(k->err, sizeof k->err, "at %s = %s: %s", k->c->param, val, msg);
    return PLD_ECALLBACK;
  }
  int st = pld_rdp_epsilon(cv, k->c->delta, k->c->rdp_method, &r);
  pld_rdp_curve_free(cv);
  if (st != PLD_SUCCESS)
    return st;
  k->bridged = bridged;
  if (k->n_seen < PLD_SEARCH_MAX_EVALS) {
    k->seen[k->n_seen].x = x;
    k->seen[k->n_seen].r = r;
    k->n_seen++;
  }
  memset(out, 0, sizeof *out);
  out->bound.lower = 0.0;
  out->bound.upper = r.value;
  out->met_accuracy = 1;
  return PLD_SUCCESS;
}

/* The closed-form event with value x in place of '?'. */
static int cal_closed_at(const struct cli *c, double x, pld_event_closed *out,
                         char *err, size_t errlen)
{
  pld_event_ctx pc;
  char val[40];
  memset(&pc, 0, sizeof pc);
  pc.params = &c->params;
  cal_text(c, x, val, sizeof val);
  pc.subst = val;
  int rc = PLD_EVENT_OK;
  for (size_t i = 0; i < c->n_events && rc == PLD_EVENT_OK; i++)
    rc = pld_event_parse(c->events[i], &pc, NULL, err, errlen);
  pld_event_ctx_release(&pc);
  if (rc == PLD_EVENT_OK)
    *out = pc.closed;
  return rc;
}

/* A closed-form single round (random-participation, analysis thm41 or
 * ols): its epsilon bracket at delta (pld_participation_epsilon). */
static int cal_eval_closed(double x, const pld_result *prev, void *vk,
                           pld_result *out)
{
  struct cal_ctx *k = vk;
  char msg[ERRLEN], val[40];
  pld_event_closed cl;
  if (prev)
    return PLD_EUNSUPPORTED;
  k->last = x;
  if (cal_closed_at(k->c, x, &cl, msg, sizeof msg) != PLD_EVENT_OK) {
    cal_text(k->c, x, val, sizeof val);
    snprintf(k->err, sizeof k->err, "at %s = %s: %s", k->c->param, val, msg);
    return PLD_ECALLBACK;
  }
  memset(out, 0, sizeof *out);
  int st = pld_event_closed_bracket(&cl, k->c->delta, &out->bound);
  out->closed_form = 1;
  out->met_accuracy = 1;
  return st;
}

static void cal_progress(void *vk, unsigned n, double x, double eps_upper)
{
  struct cal_ctx *k = vk;
  char val[40], eps[40], line[160];
  if (!k->tty)
    return;
  pld_fmt(val, sizeof val, x, 10);
  pld_fmt(eps, sizeof eps, eps_upper, 6);
  int w = snprintf(line, sizeof line, "calibrate%s: evaluation %u: %s = %s, "
                   "epsilon <= %s", k->which == CAL_RDP ? " (rdp)" : "", n,
                   k->c->param, val, eps);
  if (w < 0)
    return;
  fprintf(stderr, "\r%-*s", k->width > w ? k->width : w, line);
  if (w > k->width)
    k->width = w;
  fflush(stderr);
}

static void cal_progress_clear(struct cal_ctx *k)
{
  if (k->tty && k->width > 0) {
    fprintf(stderr, "\r%*s\r", k->width, "");
    fflush(stderr);
    k->width = 0;
  }
}

/* The search's end towards more privacy (private = 1) or less, for
 * messages: "up to 1e+12", "down to 1", "in --range [2, 20]". */
static void cal_limit_text(const struct cli *c, int private, char *buf,
                           size_t n)
{
  char lo[40], hi[40];
  cal_text(c, c->cal_dom_lo, lo, sizeof lo);
  cal_text(c, c->cal_dom_hi, hi, sizeof hi);
  int up = (c->parse.mark_direction > 0) == (private != 0);
  if (c->cal_hi > 0)
    snprintf(buf, n, "in --range [%s, %s]", lo, hi);
  else
    snprintf(buf, n, "%s %s", up ? "up to" : "down to", up ? hi : lo);
}

/* What the upper end is, for the text answers: a proven bound unless an
 * event is not one (random-participation analysis=cs, issue 16). */
static const char *upper_word(const struct cli *c)
{
  return c->parse.not_bound ? "not a bound: a lower limit of the worst case "
                              "(random-participation analysis=cs)"
                            : "upper is the certified bound";
}

/* The "certified" key of a JSON answer: "upper" for a proven upper end;
 * false with the "kind" of value when an event is not a bound. */
static void json_certified(pld_cli_json *j, const struct cli *c)
{
  if (c->parse.not_bound) {
    pld_cli_json_bool(j, "certified", 0);
    pld_cli_json_string(j, "kind", c->parse.not_bound);
  } else {
    pld_cli_json_string(j, "certified", "upper");
  }
}

static const char *backend_word(const struct cli *c, int which)
{
  if (which == CAL_RDP)
    return "the RDP bound";
  if (c->parse.closed.present)
    return c->parse.closed.analysis == 2 ? "Theorem 4.1 as stated"
                                         : "Theorem 5.1";
  if (c->parse.not_bound)
    return "the cs value (a lower limit of the worst case, not a bound)";
  return "the certified bound";
}

/* Report a search that could not run (after the progress line is
 * cleared). */
static int cal_fail(const struct cal_ctx *k, int st)
{
  char v[40];
  const struct cli *c = k->c;
  if (st == PLD_ECALLBACK && k->err[0]) {
    pld_cli_error("calibrate: %s", k->err);
    return PLD_EVENT_EFAIL;
  }
  cal_text(c, k->last, v, sizeof v);
  pld_cli_error("%s (while calibrating %s%s, at %s = %s)%s", pld_status_text(st),
                c->param, k->which == CAL_RDP ? " with RDP" : "", c->param,
                v, hint(st));
  return pld_event_rc_of_status(st);
}

/* "no value ... meets" for a search that found none, into buf. */
static void cal_none_text(const struct cli *c, const struct answer *a,
                          int which, char *buf, size_t n)
{
  const pld_search_result *r = &a->cal[which];
  char e[40], d[40], lim[80], v[40], lo[40], hi[40];
  pld_fmt_exact(e, sizeof e, c->epsilon);
  pld_fmt_exact(d, sizeof d, c->delta);
  cal_limit_text(c, 1, lim, sizeof lim);
  cal_text(c, r->param_next, v, sizeof v);
  pld_fmt_bracket(lo, hi, sizeof lo, r->at_next.bound.lower,
                      r->at_next.bound.upper);
  if (which == CAL_RDP)
    snprintf(buf, n, "no value of %s %s meets epsilon <= %s at delta = %s "
             "by the RDP bound (at %s = %s: epsilon <= %s)", c->param, lim,
             e, d, c->param, v, hi);
  else
    snprintf(buf, n, "no value of %s %s is certified to meet epsilon <= %s "
             "at delta = %s by %s (at %s = %s: epsilon in [%s, %s], %s%s%s); "
             "%s", c->param, lim, e, d, backend_word(c, which), c->param, v,
             lo, hi,
             r->verdict_next == PLD_VERDICT_FAILS ? "which certifiably fails"
                                                  : "undecided",
             r->next_status ? ": " : "",
             r->next_status ? pld_strerror(r->next_status) : "",
             r->verdict_next == PLD_VERDICT_FAILS
                 ? "the target may be out of reach for these EVENTs"
                 : "that is no failure: the accountant could not decide it "
                   "(a larger --max-grid, another --range, or --backend "
                   "both may help)");
}

/* One search: the PLD (accountant or closed form) or the RDP one. */
static int cal_search(const struct cli *c, struct answer *a, int which,
                      pld_event_owned **owned)
{
  struct cal_ctx k;
  pld_search_opts o;
  int st;
  double t0 = now();

  memset(&k, 0, sizeof k);
  k.c = c;
  k.which = which;
  k.owned = owned;
  k.tty = isatty(2);
  pld_search_opts_default(&o);
  o.lo = c->cal_dom_lo;
  o.hi = c->cal_dom_hi;
  o.start = c->cal_start; /* pld_search_opts_domain, in cal_domain */
  o.integer = c->parse.mark_integer;
  o.direction = c->parse.mark_direction;
  o.rel_tol = c->tolerance;
  o.accuracy = c->params.accuracy;
  /* A grid the user fixed is the grid to use. */
  o.refine = !(c->params.discretization > 0);

  if (which == CAL_RDP) {
    k.seen = malloc(PLD_SEARCH_MAX_EVALS * sizeof *k.seen);
    if (k.seen == NULL) {
      pld_cli_error("%s (while calibrating)", pld_strerror(PLD_ENOMEM));
      return PLD_EVENT_EFAIL;
    }
    o.refine = 0;
    o.fail_search = 0; /* RDP has no lower ends */
    st = pld_calibrate_search(cal_eval_rdp, &k, c->epsilon, &o, cal_progress,
                              &k, &a->cal[which]);
  } else if (c->parse.closed.present) {
    st = pld_calibrate_search(cal_eval_closed, &k, c->epsilon, &o,
                              cal_progress, &k, &a->cal[which]);
  } else {
    st = pld_calibrate_accountant(cal_build, &k, c->epsilon, c->delta, &o,
                                  cal_progress, &k, &a->cal[which]);
  }
  cal_progress_clear(&k);
  a->cal_seconds[which] = now() - t0;
  int rc = PLD_EVENT_OK;
  if (st != PLD_SUCCESS) {
    rc = cal_fail(&k, st);
  } else if (which == CAL_RDP) {
    const pld_search_result *r = &a->cal[which];
    a->bridged = k.bridged;
    for (size_t i = 0; i < k.n_seen; i++) {
      if (r->found && k.seen[i].x == r->param) {
        a->cal_rdp[0] = k.seen[i].r;
        a->cal_rdp_have[0] = 1;
      }
      if (!isnan(r->param_next) && k.seen[i].x == r->param_next) {
        a->cal_rdp[1] = k.seen[i].r;
        a->cal_rdp_have[1] = 1;
      }
    }
  }
  free(k.seen);
  if (rc == PLD_EVENT_OK)
    a->cal_ran[which] = 1;
  return rc;
}

static int compute_calibrate(const struct cli *c, struct answer *a)
{
  pld_event_owned *owned = NULL;
  char err[ERRLEN];
  int rc = PLD_EVENT_OK;
  if (c->backend & BACKEND_PLD)
    rc = cal_search(c, a, CAL_PLD, &owned);
  pld_event_owned_free(owned);
  if (rc == PLD_EVENT_OK && (c->backend & BACKEND_RDP))
    rc = cal_search(c, a, CAL_RDP, NULL);
  if (rc != PLD_EVENT_OK)
    return rc;
  const pld_search_result *p = &a->cal[CAL_PLD], *r = &a->cal[CAL_RDP];
  a->res = p->at_param;
  /* Nothing found by any backend asked: an error, as before. */
  if (!((a->cal_ran[CAL_PLD] && p->found) ||
        (a->cal_ran[CAL_RDP] && r->found))) {
    cal_none_text(c, a, a->cal_ran[CAL_PLD] ? CAL_PLD : CAL_RDP, err,
                  sizeof err);
    pld_cli_error("calibrate: %s", err);
    return PLD_EVENT_EFAIL;
  }
  /* The closed forms' flags at the answer (thm41: refuted, below cs). */
  if (a->cal_ran[CAL_PLD] && c->parse.closed.present && p->found) {
    pld_event_closed cl;
    if (cal_closed_at(c, p->param, &cl, err, sizeof err) != PLD_EVENT_OK ||
        pld_event_closed_query(&cl, 1, c->epsilon, &a->cal_closed, err,
                             sizeof err) != PLD_EVENT_OK) {
      pld_cli_error("%s", err);
      return PLD_EVENT_EFAIL;
    }
  }
  return PLD_EVENT_OK;
}

/* ---- the other queries -------------------------------------------------- */

/* The RDP answer (--backend rdp or both) or the RDP curve (rdp-curve). */
/* rdp-curve: the curve itself, on the --orders grid. */
static int compute_rdp_curve(const struct cli *c, struct answer *a)
{
  char err[ERRLEN];
  pld_rdp_curve *cv = NULL;
  double t0 = now();
  int rc = build_rdp(c, NULL, &cv, &a->bridged, err, sizeof err);
  if (rc != PLD_EVENT_OK) {
    pld_cli_error("%s", err);
    return rc;
  }
  size_t n = pld_rdp_curve_size(cv);
  const double *orders = pld_rdp_curve_orders(cv);
  a->rdp_n = n;
  a->rdp_first = orders[0];
  a->rdp_last = orders[n - 1];
  a->rdp_orders = malloc(n * sizeof *a->rdp_orders);
  a->rdp_values = malloc(n * sizeof *a->rdp_values);
  if (a->rdp_orders && a->rdp_values) {
    memcpy(a->rdp_orders, orders, n * sizeof *orders);
    memcpy(a->rdp_values, pld_rdp_curve_values(cv), n * sizeof *orders);
  }
  pld_rdp_curve_free(cv);
  a->rdp_seconds = now() - t0;
  if (!a->rdp_orders || !a->rdp_values) {
    pld_cli_error("%s (while copying the curve of %zu orders)",
                  pld_strerror(PLD_ENOMEM), n);
    return PLD_EVENT_EFAIL;
  }
  return PLD_EVENT_OK;
}

/* epsilon, delta and curve under the chosen backends: the library answers
 * (pld_event_epsilon / _delta / _curve), the CLI prints. */
static int compute_query(const struct cli *c, struct answer *a)
{
  char err[ERRLEN];
  pld_event_query q;
  pld_event_answer ans;
  memset(&ans, 0, sizeof ans);
  cli_query(c, &q);
  int rc;
  if (c->cmd == CMD_DELTA)
    rc = pld_event_delta(&q, c->n_events, c->events, c->epsilon, &ans, err,
                         sizeof err);
  else if (c->cmd == CMD_CURVE)
    rc = pld_event_curve(&q, c->n_events, c->events, c->range_n, a->eps,
                         a->curve, &ans, err, sizeof err);
  else
    rc = pld_event_epsilon(&q, c->n_events, c->events, c->delta, &ans, err,
                           sizeof err);
  if (rc != PLD_EVENT_OK) {
    pld_cli_error("%s%s", err, hint(ans.status));
    return rc;
  }
  a->res = ans.pld;
  a->closed = ans.closed;
  a->ca = ans.closed_answer;
  a->rdp = ans.rdp;
  a->bridged = ans.bridged;
  a->rdp_n = ans.rdp_n;
  a->rdp_first = ans.rdp_first;
  a->rdp_last = ans.rdp_last;
  a->pld_seconds = ans.pld_seconds;
  a->rdp_seconds = ans.rdp_seconds;
  return PLD_EVENT_OK;
}

/* save: compose on the grid the automatic refinement chooses for
 * epsilon(delta) (or --discretization, or the grid of a loaded PLD file),
 * then write the file.  All-Gaussian lists are answered in closed form and
 * so name no grid: there the grid starts at accuracy * epsilon and is halved
 * until the composed PLD's own bracket meets --accuracy. */
static const char *kind_words(int k);

/* The composed PLD to save: on the grid the automatic refinement picks (or
 * --discretization).  Prints the error itself; acc stays the caller's. */
static int compose_for_save(const struct cli *c, pld_accountant *acc,
                            struct answer *a, pld_dist **out)
{
  pld_result r;
  int st = pld_event_compose_for_save(acc, c->delta, &c->params, out, &r);
  if (st == PLD_SUCCESS && *out == NULL) {
    char lo[40], hi[40];
    pld_fmt_bracket(lo, hi, sizeof lo, r.bound.lower, r.bound.upper);
    pld_cli_error("no PLD grid can be composed for these EVENTs (the "
                  "answer, epsilon in [%s, %s], came from %s without "
                  "one): nothing to save; --discretization forces a grid",
                  lo, hi, kind_words(r.bound_kind));
    return PLD_EVENT_EFAIL;
  }
  if (st != PLD_SUCCESS) {
    pld_cli_error("%s (while composing the PLD to save%s)", pld_strerror(st),
                  hint(st));
    return st == PLD_EINCOMPAT ? PLD_EVENT_EUSAGE : PLD_EVENT_EFAIL;
  }
  a->res.refinements = r.refinements;
  a->res.bound = r.bound;
  return PLD_EVENT_OK;
}

static void fill_saved(const struct cli *c, const pld_dist *d,
                       struct answer *a)
{
  a->res.discretization = pld_dist_discretization(d);
  a->res.grid_size = pld_dist_grid_size(d);
  a->res.fft_size = pld_dist_fft_size(d);
  a->res.bound_kind = PLD_BOUND_GRID; /* the saved PLD's own bracket */
  a->res.lower_kind = PLD_BOUND_GRID;
  a->res.met_accuracy = a->res.bound.upper - a->res.bound.lower <=
                        c->params.accuracy * a->res.bound.upper;
}

/* One line for a failed write of a PLD file or ledger update (ledger.h):
 * errors about the temporary file name it. */
static int file_error(const char *what, const char *path, int st,
                      const pld_file_error *fe)
{
  char q[QLEN], q2[QLEN];
  pld_quote(q, sizeof q, path);
  if (st == PLD_EUNSUPPORTED) {
    int other = fe->path[0] && strcmp(fe->path, path) != 0;
    pld_cli_error("%s %s is not a regular file%s%s%s: refusing to replace it",
                  what, q, other ? " (its target " : "",
                  other ? pld_quote(q2, sizeof q2, fe->path) : "",
                  other ? " is not)" : "");
    return PLD_EVENT_EUSAGE;
  }
  if (st == PLD_ETOL) {
    pld_cli_error("the composed PLD cannot be represented on its grid (its "
                  "booked round-off or masses are beyond the PLD file "
                  "format's checks, see pld.h): nothing was written to %s; a "
                  "coarser --discretization or fewer runs per file may help",
                  q);
    return PLD_EVENT_EFAIL;
  }
  if (st != PLD_EIO) {
    pld_cli_error("%s (while writing %s %s%s)", pld_strerror(st), what, q,
                  hint(st));
    return st == PLD_ENOMEM || st == PLD_EFFT ? PLD_EVENT_EFAIL
                                              : PLD_EVENT_EUSAGE;
  }
  static const char *const stage[] = {
      "access", "inspect", "lock", "read", "create the temporary file",
      "write the temporary file", "sync the temporary file",
      "rename the temporary file", "sync the directory"};
  int k = fe->stage >= 0 && fe->stage <= PLD_FILE_STAGE_SYNC_DIR ? fe->stage
                                                                  : 0;
  pld_cli_error("could not write %s %s (could not %s %s): %s", what, q,
                stage[k],
                pld_quote(q2, sizeof q2, fe->path[0] ? fe->path : path),
                fe->errnum ? strerror(fe->errnum) : "failed");
  return PLD_EVENT_EUSAGE;
}

/* The history record of a save or ledger update: the EVENTs as given,
 * space-separated, cut at the history's cap (malloc'd; NULL: no memory). */
static char *events_record(const struct cli *c)
{
  size_t len = 0, cap = 65536;
  for (size_t i = 0; i < c->n_events; i++)
    len += strlen(c->events[i]) + 1;
  char *rec = malloc(len + 1);
  if (!rec)
    return NULL;
  rec[0] = 0;
  for (size_t i = 0, n = 0; i < c->n_events; i++) {
    size_t k = strlen(c->events[i]);
    memcpy(rec + n, c->events[i], k);
    n += k;
    rec[n++] = i + 1 < c->n_events ? ' ' : 0;
  }
  if (strlen(rec) > cap)
    memcpy(rec + cap - 4, " ...", 5);
  return rec;
}

static int compute_save(const struct cli *c, struct answer *a)
{
  char err[ERRLEN];
  pld_accountant *acc = NULL;
  pld_event_owned *owned = NULL;
  pld_dist *d = NULL;
  double t0 = now();

  int rc = build_accountant(c, NULL, &acc, &owned, err, sizeof err);
  if (rc != PLD_EVENT_OK) {
    pld_cli_error("%s", err);
    return rc;
  }
  rc = compose_for_save(c, acc, a, &d);
  pld_accountant_free(acc);
  pld_event_owned_free(owned);
  if (rc != PLD_EVENT_OK)
    return rc;
  fill_saved(c, d, a);

  /* pld_dist_save_report: a unique temporary file renamed over FILE (a
   * plain save records no history: its file stays a deterministic function
   * of the EVENTs; ledger updates record theirs) */
  pld_file_error fe;
  memset(&fe, 0, sizeof fe);
  int st = pld_dist_save_report(d, c->out, &fe);
  pld_dist_free(d);
  if (st != PLD_SUCCESS)
    return file_error("the PLD file", c->out, st, &fe);
  a->seconds = now() - t0;
  return PLD_EVENT_OK;
}

/* A ledger update (pldkit ledger add, or save --out L with pld:file=L among
 * the EVENTs): pld_ledger_add loads, composes and replaces L under a lock,
 * so concurrent updates lose nothing.  The history record is the EVENTs as
 * given. */
static int compute_ledger_add(const struct cli *c, struct answer *a)
{
  char err[ERRLEN], q[QLEN];
  pld_accountant *acc = NULL;
  pld_event_owned *owned = NULL;
  pld_dist *d = NULL;
  double t0 = now(), grid = 0;
  struct stat sb;

  pld_quote(q, sizeof q, c->out);
  if (stat(c->out, &sb) == 0 && !S_ISREG(sb.st_mode)) {
    pld_cli_error("the ledger %s is not a regular file: refusing to replace "
                  "it", q);
    return PLD_EVENT_EUSAGE;
  }
  int fresh = stat(c->out, &sb) != 0 && errno == ENOENT;
  int rc = build_accountant(c, NULL, &acc, &owned, err, sizeof err);
  if (rc != PLD_EVENT_OK) {
    pld_cli_error("%s", err);
    return rc;
  }
  if (fresh && !(c->params.discretization > 0)) {
    /* a new ledger: the grid 'pldkit save' would pick */
    rc = compose_for_save(c, acc, a, &d);
    if (rc == PLD_EVENT_OK)
      grid = pld_dist_discretization(d);
    pld_dist_free(d);
    d = NULL;
  }
  char *rec = rc == PLD_EVENT_OK ? events_record(c) : NULL;
  if (rc == PLD_EVENT_OK && !rec) {
    pld_cli_error("%s (while recording the events)", pld_strerror(PLD_ENOMEM));
    rc = PLD_EVENT_EFAIL;
  }
  int st = PLD_SUCCESS;
  pld_file_error fe;
  memset(&fe, 0, sizeof fe);
  if (rc == PLD_EVENT_OK)
    st = pld_ledger_add(c->out, acc, grid, rec, &d, &fe);
  free(rec);
  pld_accountant_free(acc);
  pld_event_owned_free(owned);
  if (rc != PLD_EVENT_OK)
    return rc;
  if (st == PLD_EINCOMPAT) {
    pld_cli_error("the ledger %s is on another grid than the "
                  "--discretization %.17g (leave --discretization out)", q,
                  c->params.discretization);
    return PLD_EVENT_EUSAGE;
  }
  if (st == PLD_EFORMAT || st == PLD_EVERSION || st == PLD_ERANGE) {
    pld_cli_error("the ledger %s was refused: %s%s", q, pld_strerror(st),
                  st == PLD_ERANGE ? " (an array over --max-grid, or the "
                                     "composition exceeds it)" : "");
    return PLD_EVENT_EUSAGE;
  }
  if (st != PLD_SUCCESS)
    return file_error("the ledger", c->out, st, &fe);
  st = pld_dist_epsilon(d, c->delta, &a->res.bound);
  if (st == PLD_SUCCESS)
    fill_saved(c, d, a);
  pld_dist_free(d);
  if (st != PLD_SUCCESS) {
    pld_cli_error("%s (while computing the ledger's epsilon)",
                  pld_status_text(st));
    return pld_event_rc_of_status(st);
  }
  a->seconds = now() - t0;
  return PLD_EVENT_OK;
}

/* save --out L where an EVENT is pld:file=L (the same file, by device and
 * inode): a ledger update, routed through the locked one without that
 * EVENT.  Returns the number of such EVENTs (0: a plain save), or -1 after
 * printing an error; *rest gets the other EVENTs (malloc'd). */
static int ledger_self_refs(const struct cli *c, const char ***rest,
                            size_t *n_rest)
{
  struct stat so, se;
  int self = 0;
  *rest = NULL;
  *n_rest = 0;
  if (stat(c->out, &so) != 0)
    return 0; /* a new file cannot be loaded too */
  const char **r = malloc((c->n_events + 1) * sizeof *r);
  if (!r) {
    pld_cli_error("%s (while reading the events)", pld_strerror(PLD_ENOMEM));
    return -1;
  }
  for (size_t i = 0; i < c->n_events; i++) {
    const char *e = c->events[i];
    if (strncmp(e, "pld:file=", 9) == 0) {
      const char *p = e + 9, *comma = strchr(p, ',');
      int same = stat(p, &se) == 0 && se.st_dev == so.st_dev &&
                 se.st_ino == so.st_ino;
      int same_prefix = 0;
      if (!same && comma) {
        char *pre = strndup(p, (size_t)(comma - p));
        same_prefix = pre && stat(pre, &se) == 0 && se.st_dev == so.st_dev &&
                      se.st_ino == so.st_ino;
        free(pre);
      }
      if (same_prefix) {
        char q[QLEN];
        pld_cli_error("event %s loads the ledger --out writes with other "
                      "keys: a ledger update composes the ledger once; give "
                      "it as pld:file=FILE or use 'pldkit ledger add FILE "
                      "EVENT...'", pld_quote(q, sizeof q, e));
        free(r);
        return -1;
      }
      if (same) {
        if (self++) {
          char q[QLEN];
          pld_cli_error("event %s loads the ledger --out writes a second "
                        "time: a ledger update composes it once",
                        pld_quote(q, sizeof q, e));
          free(r);
          return -1;
        }
        continue;
      }
    }
    r[(*n_rest)++] = e;
  }
  if (self && *n_rest == 0) {
    pld_cli_error("nothing to add to the ledger %s: give the EVENTs to "
                  "book", c->out);
    free(r);
    return -1;
  }
  *rest = r;
  return self;
}

static int compute(const struct cli *c, struct answer *a)
{
  int rc = PLD_EVENT_OK;

  memset(a, 0, sizeof *a);
  if (c->cmd == CMD_CURVE) {
    a->eps = malloc(c->range_n * sizeof *a->eps);
    a->curve = malloc(c->range_n * sizeof *a->curve);
    if (a->eps == NULL || a->curve == NULL) {
      pld_cli_error("%s (while allocating %zu curve points)",
                    pld_strerror(PLD_ENOMEM), c->range_n);
      answer_free(a);
      return PLD_EVENT_EFAIL;
    }
    double w = c->range_hi - c->range_lo;
    for (size_t i = 0; i < c->range_n; i++)
      a->eps[i] = c->range_lo + w * (double)i / (double)(c->range_n - 1);
    a->eps[c->range_n - 1] = c->range_hi; /* exactly, despite rounding */
  }

  double t0 = now();
  if (c->cmd == CMD_SAVE) {
    const char **rest;
    size_t n_rest;
    int self = ledger_self_refs(c, &rest, &n_rest);
    if (self < 0)
      return PLD_EVENT_EUSAGE;
    if (!self && !c->ledger) {
      free(rest);
      return compute_save(c, a);
    }
    struct cli lc = *c;
    if (self) {
      lc.events = rest;
      lc.n_events = n_rest;
    }
    rc = compute_ledger_add(&lc, a);
    free(rest);
    return rc;
  }
  if (c->cmd == CMD_CALIBRATE) {
    rc = compute_calibrate(c, a);
    a->seconds = now() - t0;
    return rc;
  }
  if (c->cmd == CMD_RDP_CURVE)
    rc = compute_rdp_curve(c, a);
  else
    rc = compute_query(c, a);
  a->seconds = now() - t0;
  if (rc != PLD_EVENT_OK)
    answer_free(a);
  return rc;
}

/* A closed-form answer has no grid; saying so tells the user that the
 * bracket is exact rather than a discretization artefact. */
/* Which bound gave an end, in words (pld_bound_kind). */
static const char *kind_words(int k)
{
  switch (k) {
  case PLD_BOUND_GRID:
    return "the PLD grid";
  case PLD_BOUND_CLOSED_FORM:
    return "the exact Gaussian composition";
  case PLD_BOUND_RDP:
    return "RDP";
  case PLD_BOUND_BASIC:
    return "basic composition";
  case PLD_BOUND_ADVANCED:
    return "advanced composition";
  case PLD_BOUND_SINGLE_RUN:
    return "one run of an event";
  case PLD_BOUND_MOMENTS:
    return "the loss's mean and variance";
  default:
    return "none";
  }
}

/* The answer's source: the grid, and the bound that gave each end where
 * that is not the grid (pld_result.bound_kind, .lower_kind). */
static void how_text(const pld_result *r, char *buf, size_t n)
{
  if (r->closed_form) {
    snprintf(buf, n, "closed form (exact Gaussian composition)");
    return;
  }
  int w = r->refinements ? snprintf(buf, n, "discretization %.6g, grid %zu",
                                    r->discretization, r->grid_size)
                         : snprintf(buf, n, "no grid composed");
  if (w < 0 || (size_t)w >= n)
    return;
  int up = r->bound_kind != PLD_BOUND_GRID && r->bound_kind != PLD_BOUND_NONE;
  int lo = r->lower_kind != PLD_BOUND_GRID && r->lower_kind != PLD_BOUND_NONE;
  if (up || lo)
    snprintf(buf + w, n - (size_t)w, "; %s%s%s%s%s", up ? "upper from " : "",
             up ? kind_words(r->bound_kind) : "", up && lo ? ", " : "",
             lo ? "lower from " : "", lo ? kind_words(r->lower_kind) : "");
}

static void json_grid_fields(pld_cli_json *j, const struct cli *c,
                             const struct answer *a)
{
  const pld_result *r = &a->res;
  pld_cli_json_number(j, "discretization", r->discretization);
  pld_cli_json_uint(j, "grid_size", r->grid_size);
  pld_cli_json_uint(j, "fft_size", r->fft_size);
  pld_cli_json_uint(j, "refinements", r->refinements);
  pld_cli_json_bool(j, "closed_form", r->closed_form);
  pld_cli_json_string(j, "bound_kind", pld_bound_kind_name(r->bound_kind));
  pld_cli_json_string(j, "lower_kind", pld_bound_kind_name(r->lower_kind));
  pld_cli_json_bool(j, "met_accuracy", r->met_accuracy);
  pld_cli_json_number(j, "accuracy", c->params.accuracy);
  pld_cli_json_number(j, "tail_mass", c->params.tail_mass);
  pld_cli_json_uint(j, "max_grid", c->params.max_grid);
}

/* The PLD answer of epsilon and delta: its bracket and how it was found. */
static void json_pld_answer(pld_cli_json *j, const struct cli *c,
                            const struct answer *a)
{
  const pld_result *r = &a->res;
  if (c->cmd == CMD_DELTA) {
    pld_cli_json_number(j, "delta_upper", r->bound.upper);
    pld_cli_json_number(j, "delta_lower", r->bound.lower);
  } else {
    pld_cli_json_number(j, "epsilon_upper", r->bound.upper);
    pld_cli_json_number(j, "epsilon_lower", r->bound.lower);
  }
  if (a->closed) {
    pld_cli_json_bool(j, "certified", a->ca.certified);
    pld_cli_json_string(j, "kind", c->parse.closed.analysis == 2
                                       ? "one-instance value"
                                       : "upper bound");
    pld_cli_json_string(j, "analysis",
                        pld_event_closed_name(&c->parse.closed));
    pld_cli_json_bool(j, "single_round", 1);
    if (c->parse.closed.analysis == 2) { /* thm41 */
      pld_cli_json_bool(j, "refuted", a->ca.refuted);
      pld_cli_json_bool(j, "below_cs", a->ca.below_cs);
      pld_cli_json_number(j, "cs_delta", a->ca.cs_delta);
      pld_cli_json_number(j, "lower_limit", a->ca.lower_limit);
    }
    pld_cli_json_uint(j, "evaluations", a->ca.evaluations);
  } else {
    json_certified(j, c);
  }
  json_grid_fields(j, c, a);
}

static const char *method_name(int m)
{
  return m >= 0 && m < 3 ? conversion_names[m] : "?";
}

/* The RDP answer of epsilon and delta.  RDP gives an upper bound only, so
 * the lower key is null. */
static void json_rdp_answer(pld_cli_json *j, const struct cli *c,
                            const struct answer *a)
{
  const pld_rdp_result *r = &a->rdp;
  int d = c->cmd == CMD_DELTA;
  pld_cli_json_number(j, d ? "rdp_delta" : "rdp_epsilon", r->value);
  pld_cli_json_number(j, d ? "delta_upper" : "epsilon_upper", r->value);
  pld_cli_json_null(j, d ? "delta_lower" : "epsilon_lower");
  json_certified(j, c);
  if (isnan(r->order))
    pld_cli_json_null(j, "rdp_order");
  else
    pld_cli_json_number(j, "rdp_order", r->order);
  pld_cli_json_string(j, "rdp_conversion", method_name(c->rdp_method));
  pld_cli_json_string(j, "rdp_conversion_used", method_name(r->method));
  pld_cli_json_bool(j, "rdp_at_edge", r->at_edge);
  pld_cli_json_uint(j, "rdp_orders", a->rdp_n);
  pld_cli_json_number(j, "rdp_order_min", a->rdp_first);
  pld_cli_json_number(j, "rdp_order_max", a->rdp_last);
  pld_cli_json_uint(j, "rdp_bridged", a->bridged);
}

static const char *verdict_name(int v)
{
  return v == PLD_VERDICT_MEETS   ? "meets"
         : v == PLD_VERDICT_FAILS ? "fails"
                                  : "undecided";
}

/* Which calibration is tighter (the less private value that meets): 0 pld,
 * 1 rdp, 2 equal, -1 neither found one. */
static int cal_tighter(const struct cli *c, const struct answer *a)
{
  const pld_search_result *p = &a->cal[CAL_PLD], *r = &a->cal[CAL_RDP];
  if (!p->found && !r->found)
    return -1;
  if (!r->found)
    return 0;
  if (!p->found)
    return 1;
  if (p->param == r->param)
    return 2;
  return (c->parse.mark_direction > 0) == (p->param < r->param) ? 0 : 1;
}

/* One calibration's answer: the value, its bracket and its neighbours. */
static void json_cal(pld_cli_json *j, const struct cli *c,
                     const struct answer *a, int which)
{
  const pld_search_result *r = &a->cal[which];
  int rdp = which == CAL_RDP, closed = !rdp && c->parse.closed.present;
  pld_cli_json_string(j, "threshold", !r->found  ? "not_found"
                                      : r->located ? "located"
                                                   : "undecided");
  if (r->found) {
    pld_cli_json_number(j, "value", r->param);
    pld_cli_json_string(j, "verdict", "meets");
    pld_cli_json_number(j, "epsilon_upper", r->at_param.bound.upper);
    if (rdp)
      pld_cli_json_null(j, "epsilon_lower");
    else
      pld_cli_json_number(j, "epsilon_lower", r->at_param.bound.lower);
  } else {
    pld_cli_json_null(j, "value");
    pld_cli_json_null(j, "verdict");
    pld_cli_json_null(j, "epsilon_upper");
    pld_cli_json_null(j, "epsilon_lower");
  }
  pld_cli_json_bool(j, "located", r->located);
  pld_cli_json_bool(j, "at_limit", r->at_limit);
  if (isnan(r->param_next)) {
    pld_cli_json_null(j, "value_next");
    pld_cli_json_null(j, "verdict_next");
  } else {
    pld_cli_json_number(j, "value_next", r->param_next);
    pld_cli_json_string(j, "verdict_next", verdict_name(r->verdict_next));
    pld_cli_json_number(j, "epsilon_upper_next", r->at_next.bound.upper);
    if (rdp)
      pld_cli_json_null(j, "epsilon_lower_next");
    else
      pld_cli_json_number(j, "epsilon_lower_next", r->at_next.bound.lower);
    pld_cli_json_bool(j, "next_refined", r->next_refined);
    if (r->next_status)
      pld_cli_json_string(j, "next_error", pld_strerror(r->next_status));
  }
  /* value_fail: certified to fail (its lower end exceeds the target). */
  if (isnan(r->param_fail)) {
    pld_cli_json_null(j, "value_fail");
  } else {
    pld_cli_json_number(j, "value_fail", r->param_fail);
    pld_cli_json_number(j, "epsilon_lower_fail", r->at_fail.bound.lower);
    pld_cli_json_number(j, "epsilon_upper_fail", r->at_fail.bound.upper);
  }
  pld_cli_json_bool(j, "nonmonotone", r->nonmonotone);
  pld_cli_json_uint(j, "evaluations", r->evaluations);
  pld_cli_json_uint(j, "refined", r->refinements);
  if (rdp) {
    json_certified(j, c);
    if (a->cal_rdp_have[0]) {
      const pld_rdp_result *x = &a->cal_rdp[0];
      if (isnan(x->order))
        pld_cli_json_null(j, "rdp_order");
      else
        pld_cli_json_number(j, "rdp_order", x->order);
      pld_cli_json_string(j, "rdp_conversion", method_name(c->rdp_method));
      pld_cli_json_string(j, "rdp_conversion_used", method_name(x->method));
      pld_cli_json_bool(j, "rdp_at_edge", x->at_edge);
    }
    pld_cli_json_uint(j, "rdp_bridged", a->bridged);
  } else if (closed) {
    int thm41 = c->parse.closed.analysis == 2;
    pld_cli_json_string(j, "analysis", pld_event_closed_name(&c->parse.closed));
    pld_cli_json_bool(j, "single_round", 1);
    /* Theorem 4.1 is no bound: its calibration is never certified. */
    pld_cli_json_bool(j, "certified", !thm41);
    pld_cli_json_string(j, "kind", thm41 ? "one-instance value"
                                         : "upper bound");
    if (thm41 && r->found) {
      pld_cli_json_bool(j, "refuted", a->cal_closed.refuted);
      pld_cli_json_bool(j, "below_cs", a->cal_closed.below_cs);
      pld_cli_json_number(j, "cs_delta", a->cal_closed.cs_delta);
      pld_cli_json_number(j, "lower_limit", a->cal_closed.lower_limit);
    }
  } else {
    json_certified(j, c);
    struct answer tmp = *a;
    tmp.res = r->at_param;
    json_grid_fields(j, c, &tmp);
  }
  if (c->backend == BACKEND_BOTH)
    pld_cli_json_number(j, "seconds", a->cal_seconds[which]);
}

static void print_json(const struct cli *c, const struct answer *a)
{
  pld_cli_json j, sub;
  const pld_result *r = &a->res;
  pld_cli_json_open(&j, stdout);
  pld_cli_json_string(&j, "query",
                      c->cmd == CMD_DEMO ? "epsilon" : cmd_names[c->cmd]);
  switch (c->cmd) {
  case CMD_DELTA:
  case CMD_EPSILON:
  case CMD_DEMO:
    pld_cli_json_string(&j, "backend", backend_names[c->backend]);
    if (c->cmd == CMD_DELTA)
      pld_cli_json_number(&j, "epsilon", c->epsilon);
    else
      pld_cli_json_number(&j, "delta", c->delta);
    if (c->backend == BACKEND_BOTH) {
      pld_cli_json_object(&j, "pld", &sub);
      json_pld_answer(&sub, c, a);
      pld_cli_json_number(&sub, "seconds", a->pld_seconds);
      pld_cli_json_close(&sub);
      pld_cli_json_object(&j, "rdp", &sub);
      json_rdp_answer(&sub, c, a);
      pld_cli_json_number(&sub, "seconds", a->rdp_seconds);
      pld_cli_json_close(&sub);
    } else if (c->backend == BACKEND_RDP) {
      json_rdp_answer(&j, c, a);
    } else {
      json_pld_answer(&j, c, a);
    }
    break;
  case CMD_CURVE:
    pld_cli_json_numbers(&j, "epsilon", c->range_n, a->eps);
    pld_cli_json_bounds(&j, "delta_lower", c->range_n, a->curve, 0);
    pld_cli_json_bounds(&j, "delta_upper", c->range_n, a->curve, 1);
    json_certified(&j, c);
    json_grid_fields(&j, c, a);
    break;
  case CMD_RDP_CURVE:
    pld_cli_json_numbers(&j, "order", a->rdp_n, a->rdp_orders);
    pld_cli_json_numbers(&j, "epsilon", a->rdp_n, a->rdp_values);
    json_certified(&j, c);
    pld_cli_json_uint(&j, "rdp_bridged", a->bridged);
    break;
  case CMD_SAVE:
    pld_cli_json_string(&j, "file", c->out);
    pld_cli_json_number(&j, "delta", c->delta);
    pld_cli_json_number(&j, "epsilon_upper", r->bound.upper);
    pld_cli_json_number(&j, "epsilon_lower", r->bound.lower);
    json_certified(&j, c);
    json_grid_fields(&j, c, a);
    break;
  case CMD_CALIBRATE:
  case N_CMDS:
    pld_cli_json_string(&j, "backend", backend_names[c->backend]);
    pld_cli_json_string(&j, "param", c->param);
    pld_cli_json_string(&j, "direction", c->parse.mark_direction > 0
                                             ? "larger_is_more_private"
                                             : "smaller_is_more_private");
    pld_cli_json_bool(&j, "integer", c->parse.mark_integer);
    pld_cli_json_number(&j, "delta", c->delta);
    pld_cli_json_number(&j, "target_epsilon", c->epsilon);
    pld_cli_json_number(&j, "tolerance", c->tolerance);
    pld_cli_json_number(&j, "search_lo", c->cal_dom_lo);
    pld_cli_json_number(&j, "search_hi", c->cal_dom_hi);
    if (c->cal_hi > 0) {
      pld_cli_json_number(&j, "range_lo", c->cal_lo);
      pld_cli_json_number(&j, "range_hi", c->cal_hi);
    }
    if (c->backend == BACKEND_BOTH) {
      pld_cli_json_object(&j, "pld", &sub);
      json_cal(&sub, c, a, CAL_PLD);
      pld_cli_json_close(&sub);
      pld_cli_json_object(&j, "rdp", &sub);
      json_cal(&sub, c, a, CAL_RDP);
      pld_cli_json_close(&sub);
      int t = cal_tighter(c, a);
      if (t < 0)
        pld_cli_json_null(&j, "tighter");
      else
        pld_cli_json_string(&j, "tighter", t == 2   ? "equal"
                                           : t == 1 ? "rdp"
                                                    : "pld");
    } else {
      json_cal(&j, c, a, c->backend == BACKEND_RDP ? CAL_RDP : CAL_PLD);
    }
    break;
  }
  pld_cli_json_warnings(&j, &a->warn);
  pld_cli_json_number(&j, "seconds", a->seconds);
  pld_cli_json_strings(&j, "events", c->n_events, c->events);
  if (c->cmd == CMD_DEMO)
    pld_cli_json_bool(&j, "demo", 1);
  pld_cli_json_string(&j, "version", PLD_VERSION_STRING);
  pld_cli_json_close(&j);
}

static void print_closed_text(const struct cli *c, const struct answer *a)
{
  char lo[40], hi[40], in[40], cs[40], ll[40];
  const pld_event_closed_answer *ca = &a->ca;
  const char *an = pld_event_closed_name(&c->parse.closed);
  int thm41 = c->parse.closed.analysis == 2;
  pld_fmt_bracket(lo, hi, sizeof lo, ca->bound.lower, ca->bound.upper);
  if (c->cmd == CMD_DELTA) {
    pld_fmt_exact(in, sizeof in, c->epsilon);
    printf("delta in [%s, %s] at epsilon = %s", lo, hi, in);
  } else {
    pld_fmt_exact(in, sizeof in, c->delta);
    printf("epsilon in [%s, %s] at delta = %s", lo, hi, in);
  }
  printf(" (analysis=%s, %s as stated, closed form, one round; ", an,
         thm41 ? "Theorem 4.1" : "Theorem 5.1");
  if (ca->certified)
    printf("certified: yes, upper is a certified bound");
  else if (thm41 && !ca->refuted)
    printf("certified: no, a one-instance value (the exact delta of one "
           "dataset, not a worst case); no dataset checked has a larger "
           "delta, which is no proof");
  else if (ca->below_cs)
    printf("certified: no, it falls below cs, the exact delta of another "
           "dataset, so it is no valid bound");
  else
    printf("certified: no, a concrete dataset has a larger delta");
  if (thm41) {
    pld_fmt(cs, sizeof cs, ca->cs_delta, 6);
    pld_fmt(ll, sizeof ll, ca->lower_limit, 6);
    printf("; cs delta %s, certified lower limit %s", cs, ll);
  }
  printf("), %.3g s\n", a->seconds);
}

/* One calibration's answer, one line: the value and its bracket; its less
 * private neighbour, said to fail only when that is certified; the most
 * private certified failure and the undecided stretch, if any. */
static void print_cal_line(const struct cli *c, const struct answer *a,
                           int which, const char *prefix)
{
  const pld_search_result *r = &a->cal[which];
  char v[40], e[40], d[40], lo[40], hi[40], how[192], x[40], xlo[40], xhi[40];
  char buf[ERRLEN];
  int rdp = which == CAL_RDP, closed = !rdp && c->parse.closed.present;
  int thm41 = closed && c->parse.closed.analysis == 2;
  const char *P = c->param;
  const char *less = c->parse.mark_direction > 0 ? "smaller" : "larger";

  fputs(prefix, stdout);
  if (!r->found) {
    cal_none_text(c, a, which, buf, sizeof buf);
    printf("%s\n", buf);
    return;
  }
  cal_text(c, r->param, v, sizeof v);
  pld_fmt_exact(e, sizeof e, c->epsilon);
  pld_fmt_exact(d, sizeof d, c->delta);
  pld_fmt_bracket(lo, hi, sizeof lo, r->at_param.bound.lower,
                      r->at_param.bound.upper);
  if (rdp) {
    pld_fmt(hi, sizeof hi, r->at_param.bound.upper, 6);
    printf("%s = %s meets epsilon <= %s at delta = %s by the RDP bound: "
           "epsilon <= %s at it", P, v, e, d, hi);
    if (a->cal_rdp_have[0] && !isnan(a->cal_rdp[0].order)) {
      pld_fmt_exact(x, sizeof x, a->cal_rdp[0].order);
      printf(" (order %s%s)", x,
             a->cal_rdp[0].at_edge ? ", an end of the order grid" : "");
    }
  } else if (closed) {
    printf("%s = %s meets epsilon <= %s at delta = %s by analysis=%s (%s): "
           "epsilon in [%s, %s] at it", P, v, e, d,
           pld_event_closed_name(&c->parse.closed),
           thm41 ? "Theorem 4.1 as stated, NOT a certified bound: its proof "
                   "is invalid"
                 : "Theorem 5.1, a certified bound",
           lo, hi);
    if (thm41)
      printf(a->cal_closed.below_cs
                 ? "; there it falls below cs, the exact delta of another "
                   "dataset, so it is no valid bound"
             : a->cal_closed.refuted
                 ? "; refuted there: a concrete dataset has a larger delta"
                 : "; no dataset checked has a larger delta there (not a "
                   "proof)");
  } else {
    printf("%s = %s meets epsilon <= %s at delta = %s by %s: epsilon in "
           "[%s, %s] at it%s", P, v, e, d,
           c->parse.not_bound ? "the cs value (a lower limit of the worst "
                                "case, NOT a bound)"
                              : "the certified bound",
           lo, hi,
           r->at_param.met_accuracy ? "" : " (requested accuracy not met)");
  }

  if (r->at_limit) {
    if (c->cal_hi > 0) {
      printf("; it is the %s of --range",
             c->parse.mark_direction > 0 ? "bottom" : "top");
    } else {
      cal_limit_text(c, 0, buf, sizeof buf);
      printf("; every %s value tried (%s) met it too", less, buf);
    }
  } else {
    cal_text(c, r->param_next, x, sizeof x);
    pld_fmt_bracket(xlo, xhi, sizeof xlo, r->at_next.bound.lower,
                        r->at_next.bound.upper);
    if (r->verdict_next == PLD_VERDICT_FAILS && closed) {
      /* An analysis's value above the target says that the analysis does
       * not certify it, not that the protocol fails. */
      printf("; %s = %s does not meet it by analysis=%s (its epsilon in "
             "[%s, %s])", P, x, pld_event_closed_name(&c->parse.closed), xlo,
             xhi);
    } else if (r->verdict_next == PLD_VERDICT_FAILS) {
      printf("; %s = %s does not (certified: epsilon in [%s, %s])", P, x,
             xlo, xhi);
    } else if (rdp) {
      pld_fmt(xhi, sizeof xhi, r->at_next.bound.upper, 6);
      printf("; not certified by RDP at %s = %s (epsilon <= %s; RDP has no "
             "lower bound, so no value is certified to fail and a %s %s "
             "may meet the target too)", P, x, xhi, less, P);
    } else {
      printf("; not certified at %s = %s (epsilon in [%s, %s]%s%s%s: "
             "undecided, which is not a failure)", P, x, xlo, xhi,
             r->next_refined ? ", after refinement" : "",
             r->next_status ? "; it could not be evaluated: " : "",
             r->next_status ? pld_strerror(r->next_status) : "");
      if (!isnan(r->param_fail)) {
        char f[40], flo[40], fhi[40];
        cal_text(c, r->param_fail, f, sizeof f);
        pld_fmt_bracket(flo, fhi, sizeof flo, r->at_fail.bound.lower,
                            r->at_fail.bound.upper);
        printf("; %s = %s does not (certified: epsilon in [%s, %s])", P, f,
               flo, fhi);
        if (!r->located)
          printf("; UNDECIDED between %s and %s: a %s %s may meet the "
                 "target too%s", f, v, less, P,
                 c->backend == BACKEND_PLD && !closed
                     ? " (--backend both adds the RDP answer)"
                     : "");
      } else if (!r->located) {
        cal_limit_text(c, 0, buf, sizeof buf);
        printf("; no value tried (%s) is certified to fail: a %s %s may "
               "meet the target too", buf, less, P);
      }
    }
  }
  printf("; %u evaluations", r->evaluations);
  if (r->refinements)
    printf(" (%u refined)", r->refinements);
  if (!rdp && !closed) {
    how_text(&r->at_param, how, sizeof how);
    printf("; %s", how);
  }
  printf(", %.3g s\n", a->cal_seconds[which]);
}

static void print_calibrate_text(const struct cli *c, const struct answer *a)
{
  int both = c->backend == BACKEND_BOTH;
  if (c->backend & BACKEND_PLD)
    print_cal_line(c, a, CAL_PLD, both ? "pld: " : "");
  if (c->backend & BACKEND_RDP)
    print_cal_line(c, a, CAL_RDP, both ? "rdp: " : "");
  if (!both)
    return;
  int t = cal_tighter(c, a);
  const pld_search_result *p = &a->cal[CAL_PLD], *r = &a->cal[CAL_RDP];
  char x[40], y[40];
  if (t == 2) {
    cal_text(c, p->param, x, sizeof x);
    printf("tighter: neither (both give %s = %s)\n", c->param, x);
  } else if (p->found && r->found) {
    const pld_search_result *w = t ? r : p, *l = t ? p : r;
    cal_text(c, w->param, x, sizeof x);
    cal_text(c, l->param, y, sizeof y);
    printf("tighter: %s (%s = %s, against %s = %s by %s)\n",
           t ? "rdp" : "pld", c->param, x, c->param, y, t ? "pld" : "rdp");
  } else {
    printf("tighter: %s (only it found a value that meets the target)\n",
           t ? "rdp" : "pld");
  }
}

/* The RDP answer of epsilon and delta, one line. */
static void print_rdp_line(const struct cli *c, const struct answer *a,
                           const char *prefix)
{
  const pld_rdp_result *r = &a->rdp;
  char v[40], in[40], ord[40], first[40], last[40], conv[64], br[96];
  int d = c->cmd == CMD_DELTA;
  pld_fmt(v, sizeof v, r->value, 6);
  pld_fmt_exact(in, sizeof in, d ? c->epsilon : c->delta);
  pld_fmt_exact(first, sizeof first, a->rdp_first);
  pld_fmt_exact(last, sizeof last, a->rdp_last);
  if (c->rdp_method == PLD_RDP_BEST)
    snprintf(conv, sizeof conv, "best (%s won)", method_name(r->method));
  else
    snprintf(conv, sizeof conv, "%s", method_name(c->rdp_method));
  if (isnan(r->order))
    snprintf(ord, sizeof ord, "none (%s)",
             d ? "the trivial delta = 1" : "no order gives a finite value");
  else
    pld_fmt_exact(ord, sizeof ord, r->order);
  br[0] = '\0';
  if (a->bridged)
    snprintf(br, sizeof br, ", %u event%s through the PLD bridge "
             "(conservative)", a->bridged, a->bridged == 1 ? "" : "s");
  printf("%s%s <= %s (backend rdp: %s, no lower bound; "
         "conversion %s, order %s) at %s = %s; %zu orders from %s to %s%s, "
         "%.3g s\n", prefix, d ? "delta" : "epsilon", v,
         c->parse.not_bound ? "NOT a bound, the RDP of cs, a lower limit "
                              "of the worst case"
                            : "a certified upper bound",
         conv, ord,
         d ? "epsilon" : "delta", in, a->rdp_n, first, last, br,
         a->rdp_seconds);
}

/* The PLD answer of epsilon and delta, one line. */
static void print_pld_line(const struct cli *c, const struct answer *a,
                           const char *prefix)
{
  const pld_result *r = &a->res;
  char lo[40], hi[40], in[40], how[192];
  pld_fmt_bracket(lo, hi, sizeof lo, r->bound.lower, r->bound.upper);
  how_text(r, how, sizeof how);
  fputs(prefix, stdout);
  if (c->cmd == CMD_DELTA) {
    pld_fmt_exact(in, sizeof in, c->epsilon);
    printf("delta in [%s, %s] (%s) at epsilon = %s", lo, hi, upper_word(c),
           in);
  } else {
    pld_fmt_exact(in, sizeof in, c->delta);
    printf("epsilon in [%s, %s] (%s%s) at "
           "delta = %s", lo, hi, upper_word(c),
           isinf(r->bound.upper) ? "; inf: no finite epsilon is certified"
                                 : "", in);
  }
  printf("; %s, %.3g s%s\n", how, a->pld_seconds,
         r->met_accuracy ? "" : "; requested accuracy not met");
}

static void print_text(const struct cli *c, const struct answer *a)
{
  char lo[40], hi[40], in[40];

  if (a->closed) {
    print_closed_text(c, a);
    return;
  }
  if (c->cmd == CMD_CALIBRATE) {
    print_calibrate_text(c, a);
    return;
  }
  if (c->cmd == CMD_SAVE) {
    pld_fmt_bracket(lo, hi, sizeof lo, a->res.bound.lower,
                        a->res.bound.upper);
    pld_fmt_exact(in, sizeof in, c->delta);
    printf("saved %s: discretization %.17g, grid %zu; its epsilon in [%s, %s] "
           "at delta = %s (upper: certified)%s\n", c->out,
           a->res.discretization, a->res.grid_size, lo, hi, in,
           a->res.met_accuracy ? "" : "; requested accuracy not met");
    return;
  }
  if (c->cmd == CMD_CURVE) {
    puts("epsilon,delta_lower,delta_upper");
    for (size_t i = 0; i < c->range_n; i++) {
      pld_fmt_exact(in, sizeof in, a->eps[i]);
      pld_fmt_exact(lo, sizeof lo, a->curve[i].lower);
      pld_fmt_exact(hi, sizeof hi, a->curve[i].upper);
      printf("%s,%s,%s\n", in, lo, hi);
    }
    return;
  }
  if (c->cmd == CMD_RDP_CURVE) {
    puts("order,epsilon");
    for (size_t i = 0; i < a->rdp_n; i++) {
      pld_fmt_exact(in, sizeof in, a->rdp_orders[i]);
      pld_fmt_exact(hi, sizeof hi, a->rdp_values[i]);
      printf("%s,%s\n", in, hi);
    }
    return;
  }
  int both = c->backend == BACKEND_BOTH;
  if (c->backend & BACKEND_PLD)
    print_pld_line(c, a, both ? "pld: " : "");
  if (c->backend & BACKEND_RDP)
    print_rdp_line(c, a, both ? "rdp: " : "");
}

/* Does an EVENT argument compose a saved PLD file (a ledger)? */
static int uses_ledger(const struct cli *c)
{
  for (size_t i = 0; i < c->n_events; i++)
    if (strstr(c->events[i], "pld:file=") != NULL)
      return 1;
  return 0;
}

/* The warnings and notes that go with the answer (stderr, and "warnings" in
 * JSON), never on stdout. */
static void collect_warnings(const struct cli *c, struct answer *a)
{
  pld_cli_warnings *w = &a->warn;
  if (c->parse.note)
    pld_cli_warn(w, "%s", c->parse.note);
  /* An RDP optimum at an end of the order grid. */
  const pld_rdp_result *r = &a->rdp;
  if ((c->backend & BACKEND_RDP) && c->cmd != CMD_RDP_CURVE &&
      r->at_edge && !isnan(r->order)) {
    char ord[40];
    int low = r->index == 0;
    pld_fmt_exact(ord, sizeof ord, r->order);
    pld_cli_warn(w, "the optimal RDP order %s is the %s of the grid; orders "
                 "%s it (--orders) may give a smaller %s (this one is still "
                 "a valid bound)", ord, low ? "smallest" : "largest",
                 low ? "closer to 1 than" : "above",
                 c->cmd == CMD_DELTA ? "delta" : "epsilon");
  }
  if (c->cmd == CMD_CALIBRATE)
    for (int k = 0; k < 2; k++)
      if (a->cal_ran[k] && a->cal[k].nonmonotone)
        pld_cli_warn(w, "a value certified to fail lies on the more private "
                     "side of one certified to meet (epsilon is not "
                     "monotone in %s here; the answer still meets the "
                     "target)", c->param);
  /* An infinite upper end with a finite lower one is the PLD's floor
   * (a loaded ledger's or a selection's untilted round-off, truncation at
   * --tail-mass, a grid cap), not the mechanism: say so and name the way
   * out. */
  if (c->cmd == CMD_EPSILON && c->backend == BACKEND_PLD && !a->closed &&
      isinf(a->res.bound.upper) && isfinite(a->res.bound.lower)) {
    if (a->res.bound.lower >= PLD_LOSS_MAX * (1.0 - 1e-9))
      pld_cli_warn(w, "the privacy loss reaches beyond %g nats, the largest "
                   "a PLD resolves (PLD_LOSS_MAX); the PLD counts the loss "
                   "beyond it as +inf, so no finite epsilon is certified",
                   PLD_LOSS_MAX);
    else
      pld_cli_warn(w, "delta = %g is below what the PLD can certify here "
                   "(its booked round-off and truncation), and no other "
                   "bound (basic or advanced composition, RDP) certifies a "
                   "finite epsilon", c->delta);
  }
  /* A bracket wider than --accuracy: the upper end still holds, but say
   * why it is wide and what narrows it. */
  if ((c->cmd == CMD_EPSILON || c->cmd == CMD_DELTA || c->cmd == CMD_SAVE) &&
      (c->backend & BACKEND_PLD) && !a->closed && !a->res.met_accuracy &&
      !isinf(a->res.bound.upper)) {
    if (uses_ledger(c))
      pld_cli_warn(w, "requested accuracy not met: the bracket is wider "
                   "than --accuracy %g (its upper end is still certified) "
                   "because a PLD file fixes the grid of every later "
                   "composition; save the first ledger on a finer grid "
                   "(e.g. pldkit save --accuracy 0.0005, or a smaller "
                   "--discretization)", c->params.accuracy);
    else if (a->res.width_limit == PLD_WIDTH_MECHANISM)
      pld_cli_warn(w, "requested accuracy not met: the bracket is wider "
                   "than --accuracy %g (its upper end is still certified) "
                   "because an event's own bounds are that far apart (its "
                   "certified upper and lower analyses differ, e.g. "
                   "balanced-iteration with k > 1); the grid resolved the "
                   "upper end, and a finer one would not narrow it",
                   c->params.accuracy);
    else if (a->res.refinements > 0)
      pld_cli_warn(w, "requested accuracy not met: the bracket is wider "
                   "than --accuracy %g (its upper end is still certified); "
                   "a smaller --discretization or a larger --max-grid may "
                   "narrow it", c->params.accuracy);
  }
}

static void print_demo(const struct cli *c, const struct answer *a)
{
  const pld_result *r = &a->res;
  char lo[40], hi[40];
  pld_fmt_bracket(lo, hi, sizeof lo, r->bound.lower, r->bound.upper);
  printf("pldkit demo: privacy accounting of a DP-SGD training run\n\n"
         "Training: %g examples, Poisson sampling with rate q = %g/%g\n"
         "          = %.6g per step, gradients clipped to norm 1, Gaussian "
         "noise\n          sigma = %g, %d epochs = %d steps.\n"
         "Question: the smallest epsilon such that the whole run is "
         "(epsilon, delta)-DP\n"
         "          at delta = %g (add/remove adjacency, both directions).\n\n",
         DEMO_N, DEMO_BATCH, DEMO_N, DEMO_BATCH / DEMO_N, DEMO_SIGMA,
         DEMO_EPOCHS, DEMO_STEPS, DEMO_DELTA);
  printf("Answer:   epsilon is between %s and %s.\n", lo, hi);
  if (isinf(r->bound.upper))
    printf("          No finite epsilon could be certified at this delta.\n");
  else
    printf("          %s is the certified guarantee (an upper bound, from "
           "the\n          pessimistic PLD); %s is an optimistic estimate "
           "(a lower bound),\n          so the true epsilon lies in "
           "between.\n", hi, lo);
  if (r->closed_form)
    printf("How:      closed form (exact Gaussian composition)");
  else
    printf("How:      privacy loss distributions on a grid of step %.6g nats,\n"
           "          %zu grid points, FFT size %zu, %u grid%s tried",
           r->discretization, r->grid_size, r->fft_size, r->refinements,
           r->refinements == 1 ? "" : "s");
  printf("%s.\n", r->met_accuracy ? "" : "; the requested accuracy was not met");
  printf("Time:     %.3g s (build, compose and query).\n\n", a->seconds);
  printf("The same from the command line:\n  pldkit epsilon --delta %g %s\n",
         DEMO_DELTA, c->events[0]);
}

static int run(const struct cli *c)
{
  struct answer a;
  pld_cli_progress_begin();
  int rc = compute(c, &a);
  pld_cli_progress_end();
  if (rc != PLD_EVENT_OK)
    return rc;
  collect_warnings(c, &a);
  if (c->json)
    print_json(c, &a);
  else if (c->cmd == CMD_DEMO)
    print_demo(c, &a);
  else
    print_text(c, &a);
  /* Warnings on stderr, after the answer (JSON carries them too). */
  pld_cli_warnings_print(&a.warn);
  answer_free(&a);
  return PLD_EVENT_OK;
}

/* ------------------------------------------------------------------------ */

static int has_help(int argc, char **argv)
{
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--") == 0)
      return 0;
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
      return 1;
  }
  return 0;
}

/* 'pldkit events' (the event list, one line each) and 'pldkit help [EVENT |
 * COMMAND | rdp]'; argv[0] is "events" or "help". */
static int help_command(int argc, char **argv)
{
  char q[QLEN];
  int events = strcmp(argv[0], "events") == 0;
  if (argc > (events ? 1 : 2)) {
    pld_cli_error("unexpected argument %s after '%s%s%s' (see pldkit --help)",
                  pld_quote(q, sizeof q, argv[events ? 1 : 2]), argv[0],
                  events ? "" : " ", events ? "" : argv[1]);
    return PLD_EVENT_EUSAGE;
  }
  if (events) {
    fputs("EVENTs (NAME:key=value,...; every EVENT also takes count=N; "
          "several compose):\n", stdout);
    pld_event_catalogue_write(stdout, PLD_EVENT_CAT_LIST, NULL);
    fputs("\n'pldkit help EVENT' gives an EVENT's keys, domains and "
          "defaults.\n", stdout);
    return PLD_EVENT_OK;
  }
  if (argc == 1 || strcmp(argv[1], "--help") == 0 ||
      strcmp(argv[1], "-h") == 0) {
    main_help(stdout);
    return PLD_EVENT_OK;
  }
  const char *what = argv[1];
  if (pld_event_catalogue_write(stdout, PLD_EVENT_CAT_FULL, what) == 0)
    return PLD_EVENT_OK;
  if (strcmp(what, "rdp") == 0) {
    pld_event_rdp_help(stdout);
    return PLD_EVENT_OK;
  }
  for (size_t k = 0; k < N_CMDS; k++)
    if (strcmp(what, cmd_names[k]) == 0) {
      cmd_help(stdout, (enum cmd)k);
      return PLD_EVENT_OK;
    }
  if (strcmp(what, "merge") == 0) {
    char *merge_argv[] = {(char *)"merge", (char *)"--help", NULL};
    return pld_cli_merge(2, merge_argv);
  }
  pld_cli_error("no help for %s: not an EVENT (see pldkit events), a command "
                "(" CMD_LIST ") or 'rdp'", pld_quote(q, sizeof q, what));
  return PLD_EVENT_EUSAGE;
}

static int run_cmd(int argc, char **argv, int ledger);

static void ledger_help(FILE *f)
{
  fputs("Usage: pldkit ledger add FILE [--delta D] [OPTIONS] EVENT...\n"
        "       pldkit ledger show FILE [--delta D]\n\n"
        "add: book the EVENTs into the running ledger FILE (a PLD file, "
        "created if\nneeded): under a lock on FILE.lock it loads FILE, "
        "composes the EVENTs onto it\nand replaces it safely, so any number "
        "of concurrent updates lose nothing.\nOPTIONS as for 'pldkit save' "
        "(--discretization must be FILE's grid).  The\nEVENTs are kept in "
        "FILE's history.  'pldkit save --out FILE pld:file=FILE\nEVENT...' "
        "does the same.\n"
        "show: FILE's grid, its epsilon at D (default 1e-5) and its history "
        "(time in\nUTC, then the EVENTs of each update).\n\n"
        "A symbolic link FILE is updated through to its target; anything "
        "but a regular\nfile is refused.  Exit status: 0 success, 1 the "
        "library failed, 2 bad input.\n", f);
}

static int ledger_show(int argc, char **argv)
{
  char q[QLEN];
  double delta = SAVE_DELTA;
  const char *path = argv[0];
  for (int i = 1; i < argc; i++) {
    char *end;
    if (strcmp(argv[i], "--delta") == 0 && i + 1 < argc) {
      errno = 0;
      delta = strtod(argv[++i], &end);
      if (*end || errno || !(delta > 0 && delta < 1)) {
        pld_cli_error("invalid --delta %s for 'pldkit ledger show' (a number "
                      "in (0, 1))", pld_quote(q, sizeof q, argv[i]));
        return PLD_EVENT_EUSAGE;
      }
    } else {
      pld_cli_error("unexpected argument %s to 'pldkit ledger show FILE "
                    "[--delta D]'", pld_quote(q, sizeof q, argv[i]));
      return PLD_EVENT_EUSAGE;
    }
  }
  pld_quote(q, sizeof q, path);
  struct stat sb;
  if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode)) {
    pld_cli_error("cannot read the ledger %s: %s", q,
                  errno && !S_ISREG(sb.st_mode) ? strerror(errno)
                                                : "not a regular file");
    return PLD_EVENT_EUSAGE;
  }
  pld_dist *d = NULL;
  pld_bound b;
  int st = pld_dist_load(path, &d);
  if (st != PLD_SUCCESS) {
    pld_cli_error("the ledger %s was refused: %s", q, pld_strerror(st));
    return st == PLD_ENOMEM ? PLD_EVENT_EFAIL : PLD_EVENT_EUSAGE;
  }
  if ((st = pld_dist_epsilon(d, delta, &b)) != PLD_SUCCESS) {
    pld_dist_free(d);
    pld_cli_error("%s (while computing the ledger's epsilon)",
                  pld_status_text(st));
    return pld_event_rc_of_status(st);
  }
  char lo[40], hi[40], in[40];
  pld_fmt_bracket(lo, hi, sizeof lo, b.lower, b.upper);
  pld_fmt_exact(in, sizeof in, delta);
  size_t n = pld_dist_history_size(d);
  printf("ledger %s: discretization %.17g, grid %zu; its epsilon in [%s, %s] "
         "at delta = %s (upper: certified); %zu update%s recorded\n", path,
         pld_dist_discretization(d), pld_dist_grid_size(d), lo, hi, in, n,
         n == 1 ? "" : "s");
  for (size_t i = 0; i < n; i++) {
    int64_t t;
    const char *text;
    size_t len;
    if (pld_dist_history_record(d, i, &t, &text, &len) != PLD_SUCCESS)
      break;
    time_t tt = (time_t)t;
    struct tm tm;
    char ts[32] = "?";
    if (gmtime_r(&tt, &tm))
      strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", &tm);
    printf("%s %.*s\n", ts, (int)len, text);
  }
  pld_dist_free(d);
  return PLD_EVENT_OK;
}

static int ledger_cmd(int argc, char **argv)
{
  char q[QLEN];
  if (argc < 3 || has_help(argc - 2, argv + 2)) {
    if (argc >= 3) {
      ledger_help(stdout);
      return PLD_EVENT_OK;
    }
    pld_cli_error("missing action for 'pldkit ledger' (expected add or show)");
    return PLD_EVENT_EUSAGE;
  }
  const char *act = argv[2];
  if (strcmp(act, "add") != 0 && strcmp(act, "show") != 0) {
    pld_cli_error("unknown action %s for 'pldkit ledger' (expected add or "
                  "show)", pld_quote(q, sizeof q, act));
    return PLD_EVENT_EUSAGE;
  }
  if (argc < 4 || argv[3][0] == '-') {
    pld_cli_error("missing FILE for 'pldkit ledger %s FILE ...'", act);
    return PLD_EVENT_EUSAGE;
  }
  if (strcmp(act, "show") == 0)
    return ledger_show(argc - 3, argv + 3);
  /* add FILE ARGS... = save --out FILE ARGS..., as a locked update */
  char **v = malloc(((size_t)argc + 2) * sizeof *v);
  if (!v) {
    pld_cli_error("%s (while reading the arguments)", pld_strerror(PLD_ENOMEM));
    return PLD_EVENT_EFAIL;
  }
  static char save[] = "save", out[] = "--out";
  v[0] = argv[0];
  v[1] = save;
  v[2] = out;
  v[3] = argv[3];
  for (int i = 4; i < argc; i++)
    v[i] = argv[i];
  v[argc] = NULL;
  int rc = run_cmd(argc, v, 1);
  free(v);
  return rc;
}

static int dispatch(int argc, char **argv)
{
  char q[QLEN];
  if (argc < 2) {
    pld_cli_error("missing command (expected " CMD_LIST ", --help or "
                  "--version)");
    return PLD_EVENT_EUSAGE;
  }
  const char *sub = argv[1];
  if (strcmp(sub, "--help") == 0 || strcmp(sub, "-h") == 0 ||
      strcmp(sub, "--version") == 0 || strcmp(sub, "-V") == 0) {
    if (argc > 2) {
      pld_cli_error("unexpected argument %s after '%s' (it takes none)",
                    pld_quote(q, sizeof q, argv[2]), sub);
      return PLD_EVENT_EUSAGE;
    }
    if (strcmp(sub, "--help") == 0 || strcmp(sub, "-h") == 0)
      main_help(stdout);
    else
      printf("pldkit %s\n", PLD_VERSION_STRING);
    return PLD_EVENT_OK;
  }

  if (strcmp(sub, "events") == 0 || strcmp(sub, "help") == 0)
    return help_command(argc - 1, argv + 1);
  if (strcmp(sub, "merge") == 0)
    return pld_cli_merge(argc - 1, argv + 1);
  if (strcmp(sub, "mspafl") == 0)
    return pld_cli_mspafl(argc - 1, argv + 1);
  if (strcmp(sub, "ledger") == 0)
    return ledger_cmd(argc, argv);
  return run_cmd(argc, argv, 0);
}

/* Everything but merge and ledger; `ledger`: argv is 'save --out FILE ...'
 * standing for 'ledger add FILE ...'. */
static int run_cmd(int argc, char **argv, int ledger)
{
  char q[QLEN];
  const char *sub = argv[1];
  struct cli c;
  memset(&c, 0, sizeof c);
  c.ledger = ledger;
  size_t k = 0;
  while (k < N_CMDS && strcmp(sub, cmd_names[k]) != 0)
    k++;
  if (k == N_CMDS) {
    pld_cli_error("unknown command %s (expected " CMD_LIST ", --help or "
                  "--version)", pld_quote(q, sizeof q, sub));
    return PLD_EVENT_EUSAGE;
  }
  c.cmd = (enum cmd)k;
  if (has_help(argc - 2, argv + 2)) {
    cmd_help(stdout, c.cmd);
    return PLD_EVENT_OK;
  }

  pld_params_default(&c.params);
  c.range_lo = RANGE_LO;
  c.range_hi = RANGE_HI;
  c.range_n = RANGE_N;
  /* At most one event per argument; +1 so that malloc never sees 0. */
  c.events = malloc(((size_t)argc + 1) * sizeof *c.events);
  if (c.events == NULL) {
    pld_cli_error("%s (while reading the arguments)", pld_strerror(PLD_ENOMEM));
    return PLD_EVENT_EFAIL;
  }
  int rc = parse_args(&c, argc - 2, argv + 2);
  if (rc == PLD_EVENT_OK && c.cmd == CMD_DEMO) {
    /* The demo goes through the same parser as a user's EVENT, so that what
     * it prints as "the same from the command line" is exactly what ran. */
    static char demo_event[128];
    char qs[40], err[ERRLEN];
    pld_fmt_exact(qs, sizeof qs, DEMO_BATCH / DEMO_N);
    snprintf(demo_event, sizeof demo_event,
             "poisson-gaussian:q=%s,sigma=%g,count=%d", qs, DEMO_SIGMA,
             DEMO_STEPS);
    c.delta = DEMO_DELTA;
    c.events[c.n_events++] = demo_event;
    rc = pld_event_parse(demo_event, NULL, NULL, err, sizeof err);
    if (rc != PLD_EVENT_OK)
      pld_cli_error("%s", err);
  }
  if (rc == PLD_EVENT_OK)
    rc = run(&c);
  free(c.events);
  free(c.orders);
  pld_dpevent_texts_free(&c.dp);
  return rc;
}

int main(int argc, char **argv)
{
  int rc = dispatch(argc, argv);
  /* A full disk or closed pipe must not pass for success. */
  if (fflush(stdout) != 0 || ferror(stdout)) {
    pld_cli_error("could not write the output to stdout");
    if (rc == PLD_EVENT_OK)
      rc = PLD_EVENT_EFAIL;
  }
  return rc;
}
