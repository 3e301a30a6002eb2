/* pldkit: the command-line tool.
 *
 * A thin layer over <pldkit/accountant.h> and <pldkit/rdp.h>: it parses and
 * validates the whole command line first (so that bad input never produces
 * partial output), then makes one accountant and/or one RDP curve
 * (--backend), adds the events, asks one query and prints the answer.  All
 * accounting happens in the library.
 *
 * Exit status: 0 success, 1 the library failed on valid input, 2 bad input
 * (one line on stderr, nothing on stdout), 3 a file operation failed for a
 * reason of the machine (disk full, I/O error, a lock timeout), 4 a save or
 * ledger update is in place but its durability is not confirmed (cli.h).
 *
 * This file: the subcommand dispatch, help and ledger commands and main;
 * cli.h has what the CLI's files share (options.c, compute.c,
 * cmd_calibrate.c, print.c).
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
#include "cli.h"

int cli_run(const struct cli *c)
{
  struct answer a;
  pld_cli_progress_begin();
  int rc = cli_compute(c, &a);
  pld_cli_progress_end();
  if (rc != CLI_OK)
    return rc;
  cli_collect_warnings(c, &a);
  if (c->json)
    cli_print_json(c, &a);
  else if (c->cmd == CMD_DEMO)
    cli_print_demo(c, &a);
  else
    cli_print_text(c, &a);
  /* Warnings on stderr, after the answer (JSON carries them too). */
  pld_cli_warnings_print(&a.warn);
  int durable = !a.not_durable;
  cli_answer_free(&a);
  return durable ? CLI_OK : CLI_EXIT_NOT_DURABLE;
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

static void ledger_help(FILE *f);

static void help_help(FILE *f)
{
  fputs("Usage: pldkit help [EVENT | COMMAND | rdp]\n\n"
        "Without an argument: the main help (pldkit --help).  With an EVENT "
        "name (see\n'pldkit events'): its keys, domains and defaults.  With "
        "a command, what\n'pldkit COMMAND --help' prints; the commands:\n  "
        CMD_LIST ".\nWith rdp: the RDP backend, event by event.\n\n"
        "Exit status: 0 success, 2 bad input (no such EVENT or command).\n",
        f);
}

/* 'pldkit events' (the event list, one line each) and 'pldkit help [EVENT |
 * COMMAND | rdp]'; argv[0] is "events" or "help".  Every command of
 * CMD_LIST has a help here, as with 'pldkit COMMAND --help'. */
static int help_command(int argc, char **argv)
{
  char q[QLEN];
  int events = strcmp(argv[0], "events") == 0;
  /* 'pldkit events --help': the list is its own help */
  if (events && argc == 2 && (strcmp(argv[1], "--help") == 0 ||
                              strcmp(argv[1], "-h") == 0))
    argc = 1;
  if (argc > (events ? 1 : 2)) {
    pld_cli_error("unexpected argument %s after '%s%s%s' (see pldkit --help)",
                  cli_quote(q, sizeof q, argv[events ? 1 : 2]), argv[0],
                  events ? "" : " ", events ? "" : argv[1]);
    return CLI_EUSAGE;
  }
  if (events || (argc == 2 && strcmp(argv[1], "events") == 0)) {
    fputs("EVENTs (NAME:key=value,...; every EVENT also takes count=N; "
          "several compose):\n", stdout);
    cli_catalogue_write(stdout, 0, NULL);
    fputs("\n'pldkit help EVENT' gives an EVENT's keys, domains and "
          "defaults.\n", stdout);
    return CLI_OK;
  }
  if (argc == 1 || strcmp(argv[1], "--help") == 0 ||
      strcmp(argv[1], "-h") == 0) {
    cli_main_help(stdout);
    return CLI_OK;
  }
  const char *what = argv[1];
  if (cli_catalogue_write(stdout, 1, what) == 0)
    return CLI_OK;
  if (strcmp(what, "rdp") == 0) {
    cli_rdp_help(stdout);
    return CLI_OK;
  }
  for (size_t k = 0; k < N_CMDS; k++)
    if (strcmp(what, cli_cmd_names[k]) == 0) {
      cli_cmd_help(stdout, (enum cmd)k);
      return CLI_OK;
    }
  if (strcmp(what, "merge") == 0) {
    char *merge_argv[] = {(char *)"merge", (char *)"--help", NULL};
    return pld_cli_merge(2, merge_argv);
  }
  if (strcmp(what, "mspafl") == 0) {
    char *mspafl_argv[] = {(char *)"mspafl", (char *)"--help", NULL};
    return pld_cli_mspafl(2, mspafl_argv);
  }
  if (strcmp(what, "ledger") == 0) {
    ledger_help(stdout);
    return CLI_OK;
  }
  if (strcmp(what, "help") == 0) {
    help_help(stdout);
    return CLI_OK;
  }
  pld_cli_error("no help for %s: not an EVENT (see pldkit events), a command "
                "(" CMD_LIST ") or 'rdp'", cli_quote(q, sizeof q, what));
  return CLI_EUSAGE;
}

static int run_cmd(int argc, char **argv, int ledger);

static void ledger_help(FILE *f)
{
  fputs("Usage: pldkit ledger add FILE [--create] [--lock-timeout S] [--delta D] "
        "[OPTIONS] EVENT...\n"
        "       pldkit ledger show FILE [--delta D] [--max-grid N] [--json]\n\n"
        "add: book the EVENTs into the running ledger FILE (a PLD file, e.g. "
        "one\n'pldkit save --out FILE' wrote): under a lock on FILE.lock it "
        "loads FILE,\ncomposes the EVENTs onto it and replaces it safely, so "
        "any number of\nconcurrent updates lose nothing.  A missing FILE is "
        "an error (a mistyped\nname is not a new ledger) unless --create is "
        "given.  A wait for the lock is\nannounced on stderr; --lock-timeout "
        "S gives up after S seconds (exit 3).\nOPTIONS as for 'pldkit save' "
        "(--discretization must be FILE's grid).  The\nEVENTs are kept in "
        "FILE's history.  'pldkit save --out FILE pld:file=FILE\nEVENT...' "
        "does the same (FILE must exist).\n"
        "show: FILE's grid, its epsilon at D (default 1e-5) and its history "
        "(time in\nUTC, then the EVENTs of each update, the one 'pldkit save' "
        "made first\nincluded; control characters shown as \\xNN); --json "
        "prints one JSON object;\nFILE's arrays over --max-grid points "
        "(default 8388608) are refused unread.\n\n"
        "A symbolic link FILE is updated through to its target only when no "
        "other user\ncould have planted it (see pldkit(1)); a FILE with "
        "several hard links and\nanything but a regular file are refused.  "
        "Exit status: 0 success, 1 the\nlibrary failed, 2 bad input, 3 a "
        "file operation failed (disk full, I/O\nerror, lock timeout), 4 "
        "booked but durability not confirmed.\n", f);
}

/* A history text for a terminal: control characters, DEL and backslash
 * escaped (\xNN, \\), so that a record cannot move the cursor, clear the
 * screen or fake another record's line. */
static void print_escaped(FILE *f, const char *s, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    unsigned char ch = (unsigned char)s[i];
    if (ch == '\\')
      fputs("\\\\", f);
    else if (ch < 0x20 || ch == 0x7f)
      fprintf(f, "\\x%02x", ch);
    else
      fputc(ch, f);
  }
}

static int ledger_show(int argc, char **argv)
{
  char q[QLEN];
  double delta = SAVE_DELTA;
  const char *path = argv[0];
  int json = 0;
  pld_params dp;
  pld_params_default(&dp);
  size_t cap = dp.max_grid;
  for (int i = 1; i < argc; i++) {
    char *end;
    if (strcmp(argv[i], "--delta") == 0 && i + 1 < argc) {
      errno = 0;
      delta = strtod(argv[++i], &end);
      if (*end || errno || !(delta > 0 && delta < 1)) {
        pld_cli_error("invalid --delta %s for 'pldkit ledger show' (a number "
                      "in (0, 1))", cli_quote(q, sizeof q, argv[i]));
        return CLI_EUSAGE;
      }
    } else if (strcmp(argv[i], "--max-grid") == 0 && i + 1 < argc) {
      long long n;
      if (cli_parse_int(argv[++i], 16, 1LL << 31, &n) !=
          CLI_INT_OK) {
        pld_cli_error("invalid --max-grid %s for 'pldkit ledger show' (an "
                      "integer in [16, 2147483648])",
                      cli_quote(q, sizeof q, argv[i]));
        return CLI_EUSAGE;
      }
      cap = (size_t)n;
    } else if (strcmp(argv[i], "--json") == 0) {
      json = 1;
    } else {
      pld_cli_error("unexpected argument %s to 'pldkit ledger show FILE "
                    "[--delta D] [--max-grid N] [--json]'",
                    cli_quote(q, sizeof q, argv[i]));
      return CLI_EUSAGE;
    }
  }
  cli_quote(q, sizeof q, path);
  struct stat sb;
  if (stat(path, &sb) != 0) {
    int e = errno;
    pld_cli_error("cannot read the ledger %s: %s%s", q, strerror(e),
                  e == ENOENT ? " (a mistyped name?)" : "");
    return CLI_EUSAGE;
  }
  if (!S_ISREG(sb.st_mode)) {
    pld_cli_error("cannot read the ledger %s: not a regular file", q);
    return CLI_EUSAGE;
  }
  pld_dist *d = NULL;
  pld_bound b;
  errno = 0;
  int st = pld_dist_load_capped(path, cap, &d);
  if (st == PLD_EIO) {
    int e = errno;
    pld_cli_error("cannot read the ledger %s: %s", q,
                  e ? strerror(e) : "read failed");
    return e == EACCES || e == ENOENT || e == EPERM ? CLI_EUSAGE
                                                   : CLI_EXIT_IO;
  }
  if (st == PLD_ERANGE) {
    pld_cli_error("the ledger %s was refused: it declares an array over "
                  "--max-grid %zu points or a history over its cap (a "
                  "larger --max-grid loads a larger grid)", q, cap);
    return CLI_EUSAGE;
  }
  if (st != PLD_SUCCESS) {
    pld_cli_error("the ledger %s was refused: %s", q, pld_strerror(st));
    return st == PLD_ENOMEM ? CLI_EFAIL : CLI_EUSAGE;
  }
  if ((st = pld_dist_epsilon(d, delta, &b)) != PLD_SUCCESS) {
    pld_dist_free(d);
    pld_cli_error("%s (while computing the ledger's epsilon)",
                  pld_status_text(st));
    return cli_rc_of_status(st);
  }
  char lo[40], hi[40], in[40];
  cli_fmt_bracket(lo, hi, sizeof lo, b.lower, b.upper);
  cli_fmt_exact(in, sizeof in, delta);
  size_t n = pld_dist_history_size(d);
  long long *times = json ? malloc((n + 1) * sizeof *times) : NULL;
  char **utc = json ? calloc(n + 1, sizeof *utc) : NULL;
  char **texts = json ? calloc(n + 1, sizeof *texts) : NULL;
  if (json && (!times || !utc || !texts)) {
    free(times);
    free(utc);
    free(texts);
    pld_dist_free(d);
    pld_cli_error("%s (while reading the history)", pld_strerror(PLD_ENOMEM));
    return CLI_EFAIL;
  }
  if (!json)
    printf("ledger %s: discretization %.17g, grid %zu; its epsilon in [%s, "
           "%s] at delta = %s (upper: certified); %zu update%s recorded\n",
           path, pld_dist_discretization(d), pld_dist_grid_size(d), lo, hi,
           in, n, n == 1 ? "" : "s");
  int rc = CLI_OK;
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
    if (!json) {
      printf("%s ", ts);
      print_escaped(stdout, text, len);
      putchar('\n');
      continue;
    }
    times[i] = (long long)t;
    utc[i] = strdup(ts);
    texts[i] = strndup(text, len); /* texts hold no NUL (ledger.h) */
    if (!utc[i] || !texts[i]) {
      pld_cli_error("%s (while reading the history)",
                    pld_strerror(PLD_ENOMEM));
      rc = CLI_EFAIL;
      break;
    }
  }
  if (json && rc == CLI_OK) {
    pld_cli_json j;
    pld_cli_json_open(&j, stdout);
    pld_cli_json_string(&j, "ledger", path);
    pld_cli_json_number(&j, "discretization", pld_dist_discretization(d));
    pld_cli_json_uint(&j, "grid_size", pld_dist_grid_size(d));
    pld_cli_json_number(&j, "delta", delta);
    pld_cli_json_number(&j, "epsilon_lower", b.lower);
    pld_cli_json_number(&j, "epsilon_upper", b.upper);
    pld_cli_json_string(&j, "upper_is", "certified");
    pld_cli_json_uint(&j, "updates", n);
    pld_cli_json_records(&j, "history", n, times,
                         (const char *const *)utc,
                         (const char *const *)texts);
    pld_cli_json_close(&j);
  }
  if (json)
    for (size_t i = 0; i < n; i++) {
      free(utc[i]);
      free(texts[i]);
    }
  free(times);
  free(utc);
  free(texts);
  pld_dist_free(d);
  return rc;
}

static int ledger_cmd(int argc, char **argv)
{
  char q[QLEN];
  if (argc < 3 || has_help(argc - 2, argv + 2)) {
    if (argc >= 3) {
      ledger_help(stdout);
      return CLI_OK;
    }
    pld_cli_error("missing action for 'pldkit ledger' (expected add or show)");
    return CLI_EUSAGE;
  }
  const char *act = argv[2];
  if (strcmp(act, "add") != 0 && strcmp(act, "show") != 0) {
    pld_cli_error("unknown action %s for 'pldkit ledger' (expected add or "
                  "show)", cli_quote(q, sizeof q, act));
    return CLI_EUSAGE;
  }
  if (argc < 4 || argv[3][0] == '-') {
    pld_cli_error("missing FILE for 'pldkit ledger %s FILE ...'", act);
    return CLI_EUSAGE;
  }
  if (strcmp(act, "show") == 0)
    return ledger_show(argc - 3, argv + 3);
  /* add FILE ARGS... = save --out FILE ARGS..., as a locked update */
  char **v = malloc(((size_t)argc + 2) * sizeof *v);
  if (!v) {
    pld_cli_error("%s (while reading the arguments)", pld_strerror(PLD_ENOMEM));
    return CLI_EFAIL;
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
    return CLI_EUSAGE;
  }
  const char *sub = argv[1];
  if (strcmp(sub, "--help") == 0 || strcmp(sub, "-h") == 0 ||
      strcmp(sub, "--version") == 0 || strcmp(sub, "-V") == 0) {
    if (argc > 2) {
      pld_cli_error("unexpected argument %s after '%s' (it takes none)",
                    cli_quote(q, sizeof q, argv[2]), sub);
      return CLI_EUSAGE;
    }
    if (strcmp(sub, "--help") == 0 || strcmp(sub, "-h") == 0)
      cli_main_help(stdout);
    else
      printf("pldkit %s\n", PLD_VERSION_STRING);
    return CLI_OK;
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
  while (k < N_CMDS && strcmp(sub, cli_cmd_names[k]) != 0)
    k++;
  if (k == N_CMDS) {
    pld_cli_error("unknown command %s (expected " CMD_LIST ", --help or "
                  "--version)", cli_quote(q, sizeof q, sub));
    return CLI_EUSAGE;
  }
  c.cmd = (enum cmd)k;
  if (has_help(argc - 2, argv + 2)) {
    cli_cmd_help(stdout, c.cmd);
    return CLI_OK;
  }

  pld_params_default(&c.params);
  c.range_lo = RANGE_LO;
  c.range_hi = RANGE_HI;
  c.range_n = RANGE_N;
  /* At most one event per argument; +1 so that malloc never sees 0. */
  c.events = malloc(((size_t)argc + 1) * sizeof *c.events);
  if (c.events == NULL) {
    pld_cli_error("%s (while reading the arguments)", pld_strerror(PLD_ENOMEM));
    return CLI_EFAIL;
  }
  int rc = cli_parse_args(&c, argc - 2, argv + 2);
  if (rc == CLI_OK && c.cmd == CMD_DEMO) {
    /* The demo goes through the same parser as a user's EVENT, so that what
     * it prints as "the same from the command line" is exactly what ran. */
    static char demo_event[128];
    char qs[40];
    cli_fmt_exact(qs, sizeof qs, DEMO_BATCH / DEMO_N);
    snprintf(demo_event, sizeof demo_event,
             "poisson-gaussian:q=%s,sigma=%g,count=%d", qs, DEMO_SIGMA,
             DEMO_STEPS);
    c.delta = DEMO_DELTA;
    c.events[c.n_events++] = demo_event;
    free(c.parts); /* the parse made room for no EVENT */
    c.parts = calloc(1, sizeof *c.parts);
    int st = c.parts ? pld_event_parse(demo_event, &c.parts[0]) : PLD_ENOMEM;
    if (st == PLD_SUCCESS) {
      c.n_parts = 1;
      st = pld_event_compose(1, (const pld_event *const *)c.parts, &c.ev);
    }
    c.sum.size = sizeof c.sum;
    if (st == PLD_SUCCESS)
      st = pld_event_summarize(c.ev, &c.sum);
    if (st != PLD_SUCCESS)
      rc = cli_lib_error(st, NULL);
  }
  if (rc == CLI_OK)
    rc = cli_run(&c);
  free(c.events);
  free(c.orders);
  cli_free(&c);
  return rc;
}

int main(int argc, char **argv)
{
  /* one thread plans FFTW here: the built-in wisdom saves the planner's
   * search for each new FFT length, with the same plans */
  (void)pld_fftw_wisdom_enable();
  int rc = dispatch(argc, argv);
  /* A full disk or closed pipe must not pass for success. */
  if (fflush(stdout) != 0 || ferror(stdout)) {
    pld_cli_error("could not write the output to stdout");
    if (rc == CLI_OK)
      rc = CLI_EFAIL;
  }
  return rc;
}
