/* pldkit CLI: what the files of the pldkit program share (private).  main.c
 * dispatches; options.c parses the command line into struct cli; compute.c
 * and cmd_calibrate.c compute a struct answer; print.c prints it. */
#ifndef PLDKIT_CLI_CLI_H
#define PLDKIT_CLI_CLI_H

#include <stddef.h>
#include <stdio.h>
#include <pldkit/pldkit.h>
#include <pldkit/event.h>
#include "output.h"
#include "text.h"

enum cmd { CMD_EPSILON, CMD_DELTA, CMD_CURVE, CMD_CALIBRATE, CMD_DEMO,
           CMD_RDP_CURVE, CMD_SAVE, N_CMDS };

/* The subcommands' names, indexed by enum cmd (options.c). */
extern const char *const cli_cmd_names[N_CMDS];
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
extern const char *const cli_backend_names[4];

/* --rdp-conversion, indexed by enum pld_rdp_conversion. */
extern const char *const cli_conversion_names[3];

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
  OPT_DELTA_FLOOR,
  OPT_TAIL_MASS,
  OPT_MAX_GRID,
  OPT_BACKEND,
  OPT_ORDERS,
  OPT_RDP_CONVERSION,
  OPT_OUT,
  OPT_SAVE_DELTA,
  OPT_EVENTS_JSON,
  OPT_RELATION,
  OPT_CREATE,
  OPT_LOCK_TIMEOUT,
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
  int create;           /* ledger add --create: a missing ledger is made */
  double lock_timeout;  /* --lock-timeout (< 0: wait forever) */
  const char **events; /* borrowed strings (argv, or demo_event) */
  size_t n_events;
  pld_event **parts;       /* each EVENT argument parsed once, then
                              --events-json's tree (owned) */
  size_t n_parts;
  pld_event *ev;           /* their composition (owned) */
  pld_event_summary sum;   /* what they hold */
  pld_event_hole hole;     /* calibrate: the KEY=? */
  const char *events_json; /* --events-json FILE (borrowed from argv) */
  int relation;            /* --relation, enum pld_dpevent_relation */
  int dp_nonprivate;       /* --events-json held a non-private event */
  char *json_text;         /* --events-json's canonical text (owned) */
  int closed_thm41;        /* the closed-form analysis is thm41 */
};

#define ERRLEN 1024
#define QLEN 96

/* calibrate's two searches: the indices of struct answer's cal arrays. */
enum { CAL_PLD = 0, CAL_RDP = 1 };


struct answer {
  pld_result res; /* for curves, res.bound is unused; for calibrate, the
                     bracket at the calibrated value */
  double *eps;    /* curve only */
  pld_bound *curve;
  double seconds;
  /* closed-form single round (random-participation thm41/ols) */
  int closed;
  pld_event_closed_answer ca;
  pld_event_calibration calr[2]; /* calibrate: the library's results */
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
  int not_durable;        /* a ledger update booked, but the directory
                             sync failed (exit CLI_EXIT_NOT_DURABLE) */
};

/* Exit statuses beyond enum pld_event_rc (0 success, 1 the library failed,
 * 2 bad input): a file operation failed for a reason of the machine (disk
 * full, I/O error, a lock not obtained in --lock-timeout), and a ledger
 * update or save that is in place but whose durability is not confirmed. */
#define CLI_EXIT_IO 3
#define CLI_EXIT_NOT_DURABLE 4


/* Shared between the CLI's files (defined where their section is). */

/* help_events.c */
int cli_catalogue_write(FILE *f, int full, const char *name);
void cli_members_help(FILE *f);
void cli_rdp_help(FILE *f);
int cli_is_solvable_key(const char *name);

/* options.c */
void cli_cmd_help(FILE *f, enum cmd c);
void cli_main_help(FILE *f);
int cli_parse_args(struct cli *c, int argc, char **argv);

/* compute.c */
void cli_answer_free(struct answer *a);
void cli_query(const struct cli *c, pld_event_query *q);
void cli_free(struct cli *c);
int cli_lib_error(int st, const char *hint);
int cli_compute(const struct cli *c, struct answer *a);
const char *cli_hint(int st);
double cli_now(void);

/* cmd_calibrate.c */
void cli_cal_limit_text(const struct cli *c, int private, char *buf,
                        size_t n);
void cli_cal_none_text(const struct cli *c, const struct answer *a,
                       int which, char *buf, size_t n);
void cli_cal_text(const struct cli *c, double x, char *buf, size_t n);
int cli_compute_calibrate(const struct cli *c, struct answer *a);
void cli_json_certified(pld_cli_json *j, const struct cli *c);
const char *cli_upper_word(const struct cli *c);

/* print.c */
void cli_collect_warnings(const struct cli *c, struct answer *a);
const char *cli_kind_words(int k);
void cli_print_demo(const struct cli *c, const struct answer *a);
void cli_print_json(const struct cli *c, const struct answer *a);
void cli_print_text(const struct cli *c, const struct answer *a);

/* main.c */
int cli_run(const struct cli *c);

#endif
