/* pldkit CLI: computing an answer (struct answer) for a parsed command
 * line by calling the library; calibrate's search is in cmd_calibrate.c. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#endif

#include <errno.h>
#include <limits.h>
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

/* ------------------------------------------------------------------------ */
/* Computing and printing.                                                   */

double cli_now(void)
{
  struct timespec ts;
  if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
    return 0.0;
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void cli_answer_free(struct answer *a)
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

const char *cli_hint(int st)
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
void cli_query(const struct cli *c, pld_event_query *q)
{
  pld_event_query_default(q);
  q->params = c->params;
  q->backend = (c->backend & BACKEND_PLD ? PLD_EVENT_BACKEND_PLD : 0u) |
               (c->backend & BACKEND_RDP ? PLD_EVENT_BACKEND_RDP : 0u);
  q->rdp_method = c->rdp_method;
  q->orders = c->orders;
  q->n_orders = c->n_orders;
}

void cli_free(struct cli *c)
{
  for (size_t i = 0; i < c->n_parts; i++)
    pld_event_free(c->parts[i]);
  free(c->parts);
  pld_event_free(c->ev);
  free(c->json_text);
  c->json_text = NULL;
  c->parts = NULL;
  c->n_parts = 0;
  c->ev = NULL;
}

int cli_rc_of_status(int st)
{
  switch (st) {
  case PLD_SUCCESS:
    return CLI_OK;
  case PLD_ENOMEM:
  case PLD_EFFT:
  case PLD_EMAXITER:
  case PLD_ECALLBACK:
    return CLI_EFAIL;
  default:
    return CLI_EUSAGE;
  }
}

/* One line for a failed library call: its detail (or the status's text)
 * and a hint; returns the exit status. */
int cli_lib_error(int st, const char *hint)
{
  const char *d = pld_error_detail();
  pld_cli_error("%s%s", d[0] ? d : pld_strerror(st), hint ? hint : "");
  return cli_rc_of_status(st);
}

/* ---- the other queries -------------------------------------------------- */

/* rdp-curve: the curve itself, on the --orders grid. */
static int compute_rdp_curve(const struct cli *c, struct answer *a)
{
  pld_rdp_curve *cv = NULL;
  double t0 = cli_now();
  int st = pld_event_to_rdp(c->ev, c->n_orders, c->orders, 1, &c->params,
                            &cv, &a->bridged);
  if (st != PLD_SUCCESS)
    return cli_lib_error(st, NULL);
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
  a->rdp_seconds = cli_now() - t0;
  if (!a->rdp_orders || !a->rdp_values) {
    pld_cli_error("%s (while copying the curve of %zu orders)",
                  pld_strerror(PLD_ENOMEM), n);
    return CLI_EFAIL;
  }
  return CLI_OK;
}

/* epsilon, delta and curve under the chosen backends: the library answers
 * (pld_event_epsilon / _delta / _curve), the CLI prints. */
static int compute_query(const struct cli *c, struct answer *a)
{
  pld_event_query q;
  pld_event_answer ans;
  memset(&ans, 0, sizeof ans);
  ans.size = sizeof ans;
  cli_query(c, &q);
  int st;
  if (c->cmd == CMD_DELTA)
    st = pld_event_delta(c->ev, &q, c->epsilon, &ans);
  else if (c->cmd == CMD_CURVE)
    st = pld_event_curve(c->ev, &q, c->range_n, a->eps, a->curve, &ans);
  else
    st = pld_event_epsilon(c->ev, &q, c->delta, &ans);
  if (st != PLD_SUCCESS)
    return cli_lib_error(st, cli_hint(st));
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
  return CLI_OK;
}

/* save: compose on the grid the automatic refinement chooses for
 * epsilon(delta) (or --discretization, or the grid of a loaded PLD file),
 * then write the file.  All-Gaussian lists are answered in closed form and
 * so name no grid: there the grid starts at accuracy * epsilon and is halved
 * until the composed PLD's own bracket meets --accuracy. */

/* The composed PLD to save: on the grid the automatic refinement picks (or
 * --discretization).  Prints the error itself; acc stays the caller's. */
static int compose_for_save(const struct cli *c, pld_accountant *acc,
                            struct answer *a, pld_dist **out)
{
  pld_result r;
  int st = pld_event_compose_for_save(acc, c->delta, &c->params, out, &r);
  if (st == PLD_SUCCESS && *out == NULL) {
    char lo[40], hi[40];
    cli_fmt_bracket(lo, hi, sizeof lo, r.bound.lower, r.bound.upper);
    pld_cli_error("no PLD grid can be composed for these EVENTs (the "
                  "answer, epsilon in [%s, %s], came from %s without "
                  "one): nothing to save; --discretization forces a grid",
                  lo, hi, cli_kind_words(r.bound_kind));
    return CLI_EFAIL;
  }
  if (st != PLD_SUCCESS) {
    pld_cli_error("%s (while composing the PLD to save%s)", pld_strerror(st),
                  cli_hint(st));
    return st == PLD_EINCOMPAT ? CLI_EUSAGE : CLI_EFAIL;
  }
  a->res.refinements = r.refinements;
  a->res.bound = r.bound;
  return CLI_OK;
}

static void fill_saved(const struct cli *c, const pld_dist *d,
                       struct answer *a)
{
  a->res.discretization = pld_dist_discretization(d);
  a->res.grid_size = pld_dist_grid_size(d);
  a->res.fft_size = pld_dist_fft_size(d);
  a->res.bound_kind = PLD_BOUND_GRID; /* the saved PLD's own bracket */
  a->res.lower_kind = PLD_BOUND_GRID;
  a->res.met_accuracy = pld_bound_meets(&c->params, a->res.bound, 0);
}

/* The exit status of a failed file operation: the machine's fault (disk
 * full, I/O error, quota, read-only file system, a lock not obtained in
 * time) gets CLI_EXIT_IO, a path the user cannot use CLI_EUSAGE. */
static int io_rc(int errnum)
{
  switch (errnum) {
  case ENOSPC:
  case EIO:
  case EDQUOT:
  case EFBIG:
  case EROFS:
  case ETIMEDOUT:
    return CLI_EXIT_IO;
  case ENOMEM:
    return CLI_EFAIL;
  default:
    return CLI_EUSAGE;
  }
}

/* One line for a failed write of a PLD file or ledger update (ledger.h):
 * errors about the temporary file name it. */
static int file_error(const char *what, const char *path, int st,
                      const pld_file_error *fe)
{
  char q[QLEN], q2[QLEN];
  cli_quote(q, sizeof q, path);
  if (st == PLD_EUNSUPPORTED && fe->errnum == EPERM) {
    pld_cli_error("refusing to write %s %s through the symbolic link %s: it "
                  "is owned by another user or lies in a directory others "
                  "can write (sticky, or group- or other-writable), where a "
                  "link can be planted; give the target's own name", what,
                  q, cli_quote(q2, sizeof q2, fe->path));
    return CLI_EUSAGE;
  }
  if (st == PLD_EUNSUPPORTED && fe->errnum == EMLINK) {
    pld_cli_error("%s %s has several hard links: an update replaces one "
                  "name and the others would keep the old file (the ledger "
                  "forks); keep one name (a symbolic link is followed)",
                  what, q);
    return CLI_EUSAGE;
  }
  if (st == PLD_EUNSUPPORTED) {
    int other = fe->path[0] && strcmp(fe->path, path) != 0;
    pld_cli_error("%s %s is not a regular file%s%s%s: refusing to replace it",
                  what, q, other ? " (its target " : "",
                  other ? cli_quote(q2, sizeof q2, fe->path) : "",
                  other ? " is not)" : "");
    return CLI_EUSAGE;
  }
  if (st == PLD_ETOL) {
    pld_cli_error("the composed PLD cannot be represented on its grid (its "
                  "booked round-off or masses are beyond the PLD file "
                  "format's checks, see pld.h): nothing was written to %s; a "
                  "coarser --discretization or fewer runs per file may help",
                  q);
    return CLI_EFAIL;
  }
  if (st != PLD_EIO) {
    pld_cli_error("%s (while writing %s %s%s)", pld_strerror(st), what, q,
                  cli_hint(st));
    return st == PLD_ENOMEM || st == PLD_EFFT ? CLI_EFAIL
                                              : CLI_EUSAGE;
  }
  if (fe->stage == PLD_FILE_STAGE_LOCK && fe->errnum == ETIMEDOUT) {
    pld_cli_error("gave up waiting for the lock %s of %s %s (another update "
                  "held it longer than --lock-timeout): nothing was written",
                  cli_quote(q2, sizeof q2, fe->path), what, q);
    return CLI_EXIT_IO;
  }
  if (fe->stage == PLD_FILE_STAGE_LOCK && fe->errnum == EACCES) {
    pld_cli_error("cannot open the lock file %s of %s %s for writing: %s "
                  "(an update needs write access to it): nothing was written",
                  cli_quote(q2, sizeof q2, fe->path), what, q,
                  strerror(fe->errnum));
    return CLI_EUSAGE;
  }
  static const char *const stage[] = {
      "access", "inspect", "lock", "read", "create the temporary file",
      "write the temporary file", "sync the temporary file",
      "rename the temporary file", "sync the directory"};
  int k = fe->stage >= 0 && fe->stage <= PLD_FILE_STAGE_SYNC_DIR ? fe->stage
                                                                  : 0;
  pld_cli_error("could not write %s %s (could not %s %s): %s", what, q,
                stage[k],
                cli_quote(q2, sizeof q2, fe->path[0] ? fe->path : path),
                fe->errnum ? strerror(fe->errnum) : "failed");
  /* data that did not reach the disk is the machine's fault, whatever
   * errno says */
  return k >= PLD_FILE_STAGE_WRITE ? CLI_EXIT_IO : io_rc(fe->errnum);
}

/* A save or update that is in place though the directory sync failed. */
static void not_durable(const char *what, const char *path,
                        const pld_file_error *fe, struct answer *a)
{
  char q[QLEN], q2[QLEN];
  pld_cli_error("%s %s: booked, durability not confirmed (the new file is "
                "in place, but syncing the directory %s failed: %s; a crash "
                "now may lose it)", what, cli_quote(q, sizeof q, path),
                cli_quote(q2, sizeof q2, fe->path),
                fe->errnum ? strerror(fe->errnum) : "failed");
  a->not_durable = 1;
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
  pld_accountant *acc = NULL;
  pld_dist *d = NULL;
  double t0 = cli_now();

  int st0 = pld_event_to_accountant(c->ev, &c->params, &acc);
  if (st0 != PLD_SUCCESS)
    return cli_lib_error(st0, NULL);
  int rc = compose_for_save(c, acc, a, &d);
  pld_accountant_free(acc);
  if (rc != CLI_OK)
    return rc;
  fill_saved(c, d, a);

  /* pld_dist_save_report: a unique temporary file renamed over FILE.  The
   * saved PLD records its EVENTs as its first history record, so that a
   * ledger started by 'pldkit save' shows every update */
  pld_file_error fe;
  memset(&fe, 0, sizeof fe);
  char *rec = events_record(c);
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  int st = rec ? pld_dist_history_append(d, (int64_t)ts.tv_sec, rec,
                                         strlen(rec))
               : PLD_ENOMEM;
  free(rec);
  if (st != PLD_SUCCESS) {
    pld_dist_free(d);
    pld_cli_error("%s (while recording the events)", pld_strerror(st));
    return CLI_EFAIL;
  }
  st = pld_dist_save_report(d, c->out, &fe);
  pld_dist_free(d);
  if (st == PLD_EDURABLE)
    not_durable("the PLD file", c->out, &fe, a);
  else if (st != PLD_SUCCESS)
    return file_error("the PLD file", c->out, st, &fe);
  a->seconds = cli_now() - t0;
  return CLI_OK;
}

/* A ledger update (pldkit ledger add, or save --out L with pld:file=L among
 * the EVENTs): pld_ledger_add loads, composes and replaces L under a lock,
 * so concurrent updates lose nothing.  The history record is the EVENTs as
 * given. */
/* pld_ledger_options.on_wait: say why nothing seems to happen. */
static void lock_wait_notice(void *ctx, const char *lock)
{
  const struct cli *c = ctx;
  char q[QLEN];
  cli_quote(q, sizeof q, lock);
  if (c->lock_timeout >= 0)
    pld_cli_error("waiting for the lock %s: another update holds it (giving "
                  "up after --lock-timeout %g s)", q, c->lock_timeout);
  else
    pld_cli_error("waiting for the lock %s: another update holds it "
                  "(--lock-timeout SECONDS gives up)", q);
}

static int compute_ledger_add(const struct cli *c, struct answer *a)
{
  char q[QLEN];
  pld_accountant *acc = NULL;
  pld_dist *d = NULL;
  double t0 = cli_now(), grid = 0;
  struct stat sb;

  cli_quote(q, sizeof q, c->out);
  if (stat(c->out, &sb) == 0 && !S_ISREG(sb.st_mode)) {
    pld_cli_error("the ledger %s is not a regular file: refusing to replace "
                  "it", q);
    return CLI_EUSAGE;
  }
  int fresh = stat(c->out, &sb) != 0 && errno == ENOENT;
  if (fresh && c->ledger && !c->create) {
    pld_cli_error("the ledger %s does not exist (a mistyped name?): "
                  "--create starts a new one", q);
    return CLI_EUSAGE;
  }
  int st0 = pld_event_to_accountant(c->ev, &c->params, &acc);
  if (st0 != PLD_SUCCESS)
    return cli_lib_error(st0, NULL);
  int rc = CLI_OK;
  if (fresh && !(c->params.discretization > 0)) {
    /* a new ledger: the grid 'pldkit save' would pick */
    rc = compose_for_save(c, acc, a, &d);
    if (rc == CLI_OK)
      grid = pld_dist_discretization(d);
    pld_dist_free(d);
    d = NULL;
  }
  char *rec = rc == CLI_OK ? events_record(c) : NULL;
  if (rc == CLI_OK && !rec) {
    pld_cli_error("%s (while recording the events)", pld_strerror(PLD_ENOMEM));
    rc = CLI_EFAIL;
  }
  int st = PLD_SUCCESS;
  pld_file_error fe;
  memset(&fe, 0, sizeof fe);
  pld_ledger_options lo;
  pld_ledger_options_default(&lo);
  lo.create = c->ledger && c->create;
  lo.lock_timeout = c->lock_timeout;
  lo.on_wait = lock_wait_notice;
  lo.ctx = (void *)c;
  if (rc == CLI_OK)
    st = pld_ledger_update(c->out, acc, grid, rec, &lo, &d, &fe);
  free(rec);
  pld_accountant_free(acc);
  if (rc != CLI_OK)
    return rc;
  if (st == PLD_EINCOMPAT) {
    pld_cli_error("the ledger %s is on another grid than the "
                  "--discretization %.17g (leave --discretization out)", q,
                  c->params.discretization);
    return CLI_EUSAGE;
  }
  if (st == PLD_EFORMAT || st == PLD_EVERSION || st == PLD_ERANGE) {
    pld_cli_error("the ledger %s was refused: %s%s", q, pld_strerror(st),
                  st == PLD_ERANGE ? " (an array over --max-grid, or the "
                                     "composition exceeds it)" : "");
    return CLI_EUSAGE;
  }
  if (st == PLD_EIO && fe.stage == PLD_FILE_STAGE_TARGET &&
      fe.errnum == ENOENT) {
    pld_cli_error("the ledger %s does not exist (a mistyped name, or it was "
                  "removed meanwhile?)%s", q, c->ledger ? ": --create starts a new "
                  "one" : "");
    return CLI_EUSAGE;
  }
  if (st == PLD_EDURABLE)
    not_durable("the ledger", c->out, &fe, a);
  else if (st != PLD_SUCCESS)
    return file_error("the ledger", c->out, st, &fe);
  st = pld_dist_epsilon(d, c->delta, &a->res.bound);
  if (st == PLD_SUCCESS)
    fill_saved(c, d, a);
  pld_dist_free(d);
  if (st != PLD_SUCCESS) {
    pld_cli_error("%s (while computing the ledger's epsilon)",
                  pld_status_text(st));
    return cli_rc_of_status(st);
  }
  a->seconds = cli_now() - t0;
  return CLI_OK;
}

/* save --out L where an EVENT is pld:file=L (the same file, by device and
 * inode, decided on the parsed EVENTs, whatever the order of their keys): a
 * ledger update, routed through the locked one without that EVENT.  Returns
 * the number of such EVENTs (0: a plain save), or -1 after printing an
 * error; *rest gets the composition of the other EVENTs and *texts their
 * texts (for the history). */
static int ledger_self_refs(const struct cli *c, pld_event **rest,
                            const char ***texts, size_t *n_texts)
{
  struct stat so, se;
  int self = 0;
  char qo[QLEN];
  *rest = NULL;
  *texts = NULL;
  *n_texts = 0;
  if (stat(c->out, &so) != 0)
    return 0; /* a new file cannot be loaded too */
  const pld_event **keep = malloc((c->n_parts + 1) * sizeof *keep);
  const char **t = malloc((c->n_parts + 1) * sizeof *t);
  size_t nk = 0;
  if (!keep || !t) {
    free(keep);
    free(t);
    pld_cli_error("%s (while reading the events)", pld_strerror(PLD_ENOMEM));
    return -1;
  }
  for (size_t i = 0; i < c->n_parts; i++) {
    const char *paths[8];
    size_t nf = 0;
    char q[QLEN], canon[PATH_MAX + 32];
    const char *text = c->events[i];
    if (pld_event_files(c->parts[i], 8, paths, &nf) != PLD_SUCCESS)
      nf = 0;
    int refs = 0;
    for (size_t k = 0; k < nf && k < 8; k++)
      refs += stat(paths[k], &se) == 0 && se.st_dev == so.st_dev &&
              se.st_ino == so.st_ino;
    if (refs == 0) {
      keep[nk] = c->parts[i];
      t[nk++] = text;
      continue;
    }
    /* exactly the ledger, once: pld:file=L with count 1 and nothing else */
    size_t len = 0;
    int exact = nf == 1 && refs == 1 &&
                pld_event_format(c->parts[i], canon, sizeof canon, &len) ==
                    PLD_SUCCESS &&
                strncmp(canon, "pld:file=", 9) == 0 &&
                strcmp(canon + 9, paths[0]) == 0;
    if (!exact || self++) {
      pld_cli_error("event %s loads the ledger --out writes %s: a ledger "
                    "update composes the ledger once; give it once as "
                    "pld:file=FILE, or use 'pldkit ledger add FILE "
                    "EVENT...'", cli_quote(q, sizeof q, text),
                    exact ? "a second time" : "with other keys or events");
      free(keep);
      free(t);
      return -1;
    }
  }
  if (self && nk == 0) {
    pld_cli_error("nothing to add to the ledger %s: give the EVENTs to "
                  "book", cli_quote(qo, sizeof qo, c->out));
    free(keep);
    free(t);
    return -1;
  }
  if (self) {
    int st = pld_event_compose(nk, keep, rest);
    if (st != PLD_SUCCESS) {
      free(keep);
      free(t);
      cli_lib_error(st, NULL);
      return -1;
    }
  }
  free(keep);
  *texts = t;
  *n_texts = nk;
  return self;
}

int cli_compute(const struct cli *c, struct answer *a)
{
  int rc = CLI_OK;

  memset(a, 0, sizeof *a);
  if (c->cmd == CMD_CURVE) {
    a->eps = malloc(c->range_n * sizeof *a->eps);
    a->curve = malloc(c->range_n * sizeof *a->curve);
    if (a->eps == NULL || a->curve == NULL) {
      pld_cli_error("%s (while allocating %zu curve points)",
                    pld_strerror(PLD_ENOMEM), c->range_n);
      cli_answer_free(a);
      return CLI_EFAIL;
    }
    double w = c->range_hi - c->range_lo;
    for (size_t i = 0; i < c->range_n; i++)
      a->eps[i] = c->range_lo + w * (double)i / (double)(c->range_n - 1);
    a->eps[c->range_n - 1] = c->range_hi; /* exactly, despite rounding */
  }

  double t0 = cli_now();
  if (c->cmd == CMD_SAVE) {
    pld_event *rest = NULL;
    const char **texts = NULL;
    size_t n_texts = 0;
    int self = ledger_self_refs(c, &rest, &texts, &n_texts);
    if (self < 0)
      return CLI_EUSAGE;
    if (!self && !c->ledger) {
      free(texts);
      return compute_save(c, a);
    }
    struct cli lc = *c;
    if (self) {
      lc.ev = rest;
      lc.events = texts;
      lc.n_events = n_texts;
    }
    rc = compute_ledger_add(&lc, a);
    free(texts);
    pld_event_free(rest);
    return rc;
  }
  if (c->cmd == CMD_CALIBRATE) {
    rc = cli_compute_calibrate(c, a);
    a->seconds = cli_now() - t0;
    return rc;
  }
  if (c->cmd == CMD_RDP_CURVE)
    rc = compute_rdp_curve(c, a);
  else
    rc = compute_query(c, a);
  a->seconds = cli_now() - t0;
  if (rc != CLI_OK)
    cli_answer_free(a);
  return rc;
}
