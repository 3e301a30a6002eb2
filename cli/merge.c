/* pldkit CLI: `pldkit merge` -- the merge planner.  See merge.h for how it is
 * dispatched and README.md ("pldkit merge") for the user's view.
 *
 * It parses the options and the JSON config (config.h), calls the
 * library's planner (pld_merge_plan_compute, <pldkit/merge.h>: the
 * accounting, sorting, baselines and searches live there), and prints the
 * report as text, JSON or CSV.  Progress goes to stderr when stderr is a
 * terminal.
 */
#include "merge.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pldkit/accountant.h>
#include <pldkit/merge.h>
#include <pldkit/rdp.h>
#include <pldkit/select.h>

#include "config.h"
#include "output.h"

#define EXIT_OK 0
#define EXIT_FAIL 1
#define EXIT_USAGE 2

#define N_METHODS 4

static const char *const method_key[N_METHODS] = {"rs_pld", "rs_rdp",
                                                   "lc_pld", "lc_rdp"};
static const char *const method_label[N_METHODS] = {"RS PLD", "RS RDP",
                                                     "LC PLD", "LC RDP"};
static const int method_code[N_METHODS] = {PLD_MERGE_RS_PLD, PLD_MERGE_RS_RDP,
                                           PLD_MERGE_LC_PLD, PLD_MERGE_LC_RDP};

static const char help_text[] =
    "usage: pldkit merge --config FILE [--epsilon E] [--delta D] [--json | "
    "--csv]\n"
    "                    [--resolution N] [--accuracy REL] [--max-work W]\n"
    "                    [--threads T]\n"
    "\n"
    "Merge planner for N DP-SGD runs (1 <= N <= 5): the certified epsilon at\n"
    "delta of random selection (RS) and linear combination (LC) of the\n"
    "trained models, under PLD and RDP accounting, on a grid of merge\n"
    "weights, which weights meet the target epsilon, and the baselines\n"
    "joint release (PLD, RDP) and advanced composition.  Runs are sorted so\n"
    "that run 0 is the less private one (largest own epsilon); for N = 2 the\n"
    "grid is a sweep of the weight on run 0 and the largest feasible weight\n"
    "on run 0 is reported per method (-1 = none).\n"
    "\n"
    "  --config FILE     JSON: {\"delta\": 1e-5, \"runs\": [{\"q\": .., "
    "\"sigma\": ..,\n"
    "                    \"clip\": .., \"lr\": .., \"steps\": ..}, ...]}, "
    "optional\n"
    "                    \"epsilon\" (target) and \"resolution\" "
    "(weights k/N)\n"
    "  --epsilon E       target epsilon' (overrides the config; required "
    "somewhere)\n"
    "  --delta D         target delta' (overrides the config)\n"
    "  --resolution N    weights k/N (default: the config's resolution, else\n"
    "                    20 for N <= 2 and 10 for N >= 3)\n"
    "  --max-work W      refuse plans above W grid points x 2^N (default "
    "8192,\n"
    "                    about 40 s of CPU; 5 runs at resolution 10 need "
    "32032)\n"
    "  --accuracy REL    relative bracket width of the PLD sweeps (default "
    "0.01;\n"
    "                    upper ends stay certified)\n"
    "  --threads T       threads for the weight grid (default: the online "
    "CPUs,\n"
    "                    at most 8); every number is the same for any T\n"
    "  --json            one JSON object\n"
    "  --csv             CSV: weights, method, epsilon_upper, epsilon_lower,\n"
    "                    feasible (for Pareto plots)\n"
    "  --help            this text\n"
    "\n"
    "Exit status: 0 an answer was printed; 1 internal error (the library "
    "failed on\nvalid input); 2 bad input (one line on stderr, nothing on "
    "stdout).\n";

/* ------------------------------------------------------------------------ */

struct plan {
  struct pld_cli_config cfg;
  pld_merge_report *R;
  double seconds;
};

static int parse_double(const char *opt, const char *s, double *x)
{
  char q[64];
  char *end;
  errno = 0;
  double d = strtod(s, &end);
  if (*s == '\0' || *end != '\0' || errno == ERANGE || !isfinite(d)) {
    pld_cli_error("merge: %s: expected a finite number, got %s", opt,
                  cli_quote(q, sizeof q, s));
    return -1;
  }
  *x = d;
  return 0;
}

static double now_seconds(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The library's progress callback: one overwritten line on a terminal. */
static void progress(void *ctx, double fraction, const char *stage)
{
  (void)ctx;
  fprintf(stderr, "\rpldkit merge: %-12s %3.0f%%   ", stage,
          100.0 * fraction);
  fflush(stderr);
}

static void progress_clear(void)
{
  fprintf(stderr, "\r%60s\r", "");
  fflush(stderr);
}

/* ------------------------------------------------------------------------ */
/* Output.                                                                   */

static void put_num(FILE *f, double x) /* JSON number, "inf", or null */
{
  char b[40];
  if (isnan(x))
    fputs("null", f);
  else if (isinf(x))
    fputs(x > 0 ? "\"inf\"" : "\"-inf\"", f);
  else {
    cli_fmt_exact(b, sizeof b, x);
    fputs(b, f);
  }
}

static void put_num_list(FILE *f, size_t n, const double *x)
{
  fputc('[', f);
  for (size_t i = 0; i < n; i++) {
    if (i)
      fputs(", ", f);
    put_num(f, x[i]);
  }
  fputc(']', f);
}

static const char sort_note[] =
    "runs are sorted by their own certified epsilon at delta', least private "
    "first; weights refer to this order (config_index gives the config's)";
static const char adv_note[] =
    "advanced composition: eps_i = run i's own certified epsilon at delta_i "
    "= delta'/(2N), delta0 = delta'/2, total delta = delta'";

static const char *jbool(int b) { return b ? "true" : "false"; }

/* The warning flags set in w, in flag order. */
static void json_warnings(FILE *f, unsigned w)
{
  int first = 1;
  fputc('[', f);
  for (unsigned bit = 1; bit != 0 && bit <= w; bit <<= 1)
    if (w & bit) {
      fprintf(f, "%s\"%s\"", first ? "" : ", ", pld_merge_warning_text(bit));
      first = 0;
    }
  fputc(']', f);
}

static void write_json(FILE *f, const pld_merge_report *p, double seconds)
{
  size_t n = p->n;
  fputs("{\"command\": \"merge\", \"epsilon\": ", f);
  put_num(f, p->epsilon);
  fputs(", \"delta\": ", f);
  put_num(f, p->delta);
  fprintf(f, ", \"n_runs\": %zu, \"resolution\": %u, \"accuracy\": ", n,
          p->resolution);
  put_num(f, p->accuracy);
  fprintf(f, ", \"note\": \"%s\", \"runs\": [", sort_note);
  for (size_t i = 0; i < n; i++) {
    const pld_merge_run *r = &p->runs[i];
    fprintf(f, "%s{\"config_index\": %zu, \"q\": ", i ? ", " : "",
            p->order[i]);
    put_num(f, r->q);
    fputs(", \"sigma\": ", f);
    put_num(f, r->sigma);
    fputs(", \"clip\": ", f);
    put_num(f, r->clip);
    fputs(", \"lr\": ", f);
    put_num(f, r->lr);
    fprintf(f, ", \"steps\": %llu, \"epsilon_upper\": ",
            (unsigned long long)r->steps);
    put_num(f, p->own_eps[i].upper);
    fputs(", \"epsilon_lower\": ", f);
    put_num(f, p->own_eps[i].lower);
    fprintf(f, ", \"met_accuracy\": %s}", jbool(p->own_met_accuracy[i]));
  }
  fputs("], \"baselines\": {\"joint_pld\": {\"epsilon_upper\": ", f);
  put_num(f, p->joint_pld.upper);
  fputs(", \"epsilon_lower\": ", f);
  put_num(f, p->joint_pld.lower);
  fprintf(f, ", \"met_accuracy\": %s}, \"joint_rdp\": {\"epsilon_upper\": ",
          jbool(p->joint_pld_met_accuracy));
  put_num(f, p->joint_rdp);
  fputs("}, \"advanced_composition\": {\"epsilon_upper\": ", f);
  put_num(f, p->adv_eps);
  fputs(", \"delta\": ", f);
  put_num(f, p->adv_delta);
  fputs(", \"delta_per_run\": ", f);
  put_num(f, p->adv_delta_i);
  fputs(", \"delta0\": ", f);
  put_num(f, p->adv_delta0);
  fputs(", \"per_run_epsilon\": ", f);
  put_num_list(f, n, p->adv_eps_i);
  fprintf(f, ", \"note\": \"%s\"}}, \"max_weight\": ", adv_note);
  if (n == 2) {
    fputc('{', f);
    for (int m = 0; m < N_METHODS; m++) {
      fprintf(f, "%s\"%s\": ", m ? ", " : "", method_key[m]);
      put_num(f, p->max_weight[method_code[m]]);
    }
    fputc('}', f);
  } else {
    fputs("null", f);
  }
  fputs(", \"warnings\": ", f);
  json_warnings(f, p->warnings);
  fputs(", \"grid\": [", f);
  for (size_t g = 0; g < p->n_points; g++) {
    const pld_merge_point *pr = &p->points[g];
    fputs(g ? ",\n  {\"weights\": " : "\n  {\"weights\": ", f);
    put_num_list(f, n, p->weights + g * n);
    for (int m = 0; m < N_METHODS; m++) {
      int c = method_code[m];
      fprintf(f, ", \"%s\": {\"epsilon_upper\": ", method_key[m]);
      put_num(f, pr->upper[c]);
      fputs(", \"epsilon_lower\": ", f);
      put_num(f, pr->lower[c]);
      fprintf(f, ", \"feasible\": %s, \"met_accuracy\": %s}",
              jbool(pr->feasible[c]), jbool(pr->met_accuracy[c]));
    }
    fputc('}', f);
  }
  fputs("],\n \"seconds\": ", f);
  put_num(f, seconds);
  fputs("}\n", f);
}

static void csv_num(FILE *f, double x)
{
  char b[40];
  if (isnan(x))
    return; /* empty field: not available */
  cli_fmt_exact(b, sizeof b, x);
  fputs(b, f);
}

static void write_csv(FILE *f, const pld_merge_report *p)
{
  size_t n = p->n;
  for (size_t i = 0; i < n; i++)
    fprintf(f, "w%zu,", i);
  fputs("method,epsilon_upper,epsilon_lower,feasible\n", f);
  for (size_t g = 0; g < p->n_points; g++)
    for (int m = 0; m < N_METHODS; m++) {
      int c = method_code[m];
      for (size_t i = 0; i < n; i++) {
        csv_num(f, p->weights[g * n + i]);
        fputc(',', f);
      }
      fprintf(f, "%s,", method_key[m]);
      csv_num(f, p->points[g].upper[c]);
      fputc(',', f);
      csv_num(f, p->points[g].lower[c]);
      fprintf(f, ",%d\n", p->points[g].feasible[c]);
    }
}

static void write_text(FILE *f, const pld_merge_report *p, double seconds)
{
  size_t n = p->n;
  char a[40], b[40], e[40], d[40];
  cli_fmt(e, sizeof e, p->epsilon, 6);
  cli_fmt(d, sizeof d, p->delta, 6);
  fprintf(f, "merge planner: %zu run%s, target epsilon' = %s at delta' = %s\n",
          n, n == 1 ? "" : "s", e, d);
  fprintf(f, "runs (sorted: run 0 is the less private one, by its own "
             "certified epsilon at delta'):\n");
  for (size_t i = 0; i < n; i++) {
    const pld_merge_run *r = &p->runs[i];
    char qs[40], ss[40], cs[40], ls[40];
    cli_fmt(qs, sizeof qs, r->q, 6);
    cli_fmt(ss, sizeof ss, r->sigma, 6);
    cli_fmt(cs, sizeof cs, r->clip, 6);
    cli_fmt(ls, sizeof ls, r->lr, 6);
    cli_fmt_bracket(a, b, sizeof a, p->own_eps[i].lower,
                        p->own_eps[i].upper);
    fprintf(f,
            "  run %zu (config runs[%zu]): q=%s sigma=%s clip=%s lr=%s "
            "steps=%llu, own epsilon in [%s, %s]%s\n",
            i, p->order[i], qs, ss, cs, ls, (unsigned long long)r->steps, a, b,
            p->own_met_accuracy[i] ? "" : " ~");
  }
  fprintf(f, "baselines (independent of the weights):\n");
  cli_fmt_bracket(a, b, sizeof a, p->joint_pld.lower, p->joint_pld.upper);
  fprintf(f, "  joint release, PLD      epsilon in [%s, %s]%s\n", a, b,
          p->joint_pld_met_accuracy ? "" : " ~");
  cli_fmt(a, sizeof a, p->joint_rdp, 6);
  fprintf(f, "  joint release, RDP      epsilon <= %s\n", a);
  cli_fmt(a, sizeof a, p->adv_eps, 6);
  fprintf(f, "  advanced composition    epsilon <= %s (delta_i = delta'/(2N) "
             "per run, delta0 = delta'/2)\n", a);
  if (n == 2) {
    fprintf(f, "largest feasible weight on run 0 (-1 = none):\n ");
    for (int m = 0; m < N_METHODS; m++) {
      cli_fmt(a, sizeof a, p->max_weight[method_code[m]], 6);
      fprintf(f, "  %s %s", method_label[m], a);
    }
    fputc('\n', f);
  }
  fprintf(f, "certified epsilon upper bounds on the grid (* = meets "
             "epsilon', ~ = bracket wider than the accuracy; PLD accuracy "
             "%g):\n", p->accuracy);
  for (size_t i = 0; i < n; i++)
    fprintf(f, "%7s%zu", "w", i);
  for (int m = 0; m < N_METHODS; m++)
    fprintf(f, " %11s", method_label[m]);
  fputc('\n', f);
  for (size_t g = 0; g < p->n_points; g++) {
    const pld_merge_point *pr = &p->points[g];
    for (size_t i = 0; i < n; i++)
      fprintf(f, " %7.4f", p->weights[g * n + i]);
    for (int m = 0; m < N_METHODS; m++) {
      int c = method_code[m];
      cli_fmt(a, sizeof a, pr->upper[c], 6);
      fprintf(f, " %10s%c", a,
              pr->feasible[c] ? '*' : pr->met_accuracy[c] ? ' ' : '~');
    }
    fputc('\n', f);
  }
  for (unsigned bit = 1; bit != 0 && bit <= p->warnings; bit <<= 1)
    if (p->warnings & bit)
      fprintf(f, "warning: %s\n", pld_merge_warning_text(bit));
  fprintf(f, "%.3g s\n", seconds);
}

/* ------------------------------------------------------------------------ */

int pld_cli_merge(int argc, char **argv)
{
  const char *config = NULL;
  double eps = NAN, delta = NAN, accuracy = 0.01, resd = 0.0;
  int json = 0, csv = 0, have_res = 0;
  size_t max_work = 0; /* 0: the library's default */
  /* the grid's points are independent: by default one thread per online
   * CPU (at most 8); the report does not depend on the count */
  long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
  unsigned threads = ncpu < 1 ? 1u : ncpu > 8 ? 8u : (unsigned)ncpu;
  char q[64];
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      fputs(help_text, stdout);
      return EXIT_OK;
    }
  }
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *val = NULL;
    char name[32];
    const char *eq = strchr(a, '=');
    if (strncmp(a, "--", 2) == 0 && eq != NULL &&
        (size_t)(eq - a) < sizeof name) {
      memcpy(name, a, (size_t)(eq - a));
      name[eq - a] = '\0';
      val = eq + 1;
      a = name;
    }
    if (strcmp(a, "--json") == 0 || strcmp(a, "--csv") == 0) {
      if (val != NULL) {
        pld_cli_error("merge: %s takes no value", a);
        return EXIT_USAGE;
      }
      if (a[2] == 'j')
        json = 1;
      else
        csv = 1;
      continue;
    }
    int known = strcmp(a, "--config") == 0 || strcmp(a, "--epsilon") == 0 ||
                strcmp(a, "--delta") == 0 || strcmp(a, "--resolution") == 0 ||
                strcmp(a, "--accuracy") == 0 || strcmp(a, "--max-work") == 0 ||
                strcmp(a, "--threads") == 0;
    if (!known) {
      pld_cli_error("merge: unknown option %s (see pldkit merge --help)",
                    cli_quote(q, sizeof q, argv[i]));
      return EXIT_USAGE;
    }
    if (val == NULL) {
      if (i + 1 >= argc) {
        pld_cli_error("merge: %s needs a value", a);
        return EXIT_USAGE;
      }
      val = argv[++i];
    }
    if (strcmp(a, "--config") == 0) {
      config = val;
    } else if (strcmp(a, "--epsilon") == 0) {
      if (parse_double(a, val, &eps))
        return EXIT_USAGE;
      if (!(eps > 0.0)) {
        pld_cli_error("merge: --epsilon must be > 0");
        return EXIT_USAGE;
      }
    } else if (strcmp(a, "--delta") == 0) {
      if (parse_double(a, val, &delta))
        return EXIT_USAGE;
      if (!(delta >= PLD_CLI_CONFIG_MIN_DELTA && delta < 1.0)) {
        pld_cli_error("merge: --delta must be in [%g, 1)",
                      PLD_CLI_CONFIG_MIN_DELTA);
        return EXIT_USAGE;
      }
    } else if (strcmp(a, "--max-work") == 0) {
      double w;
      if (parse_double(a, val, &w))
        return EXIT_USAGE;
      if (!(w >= 1.0 && w <= 1e15) || w != floor(w)) {
        pld_cli_error("merge: --max-work must be an integer in [1, 1e15]");
        return EXIT_USAGE;
      }
      max_work = (size_t)w;
    } else if (strcmp(a, "--threads") == 0) {
      double t;
      if (parse_double(a, val, &t))
        return EXIT_USAGE;
      if (!(t >= 1.0 && t <= PLD_MERGE_MAX_THREADS) || t != floor(t)) {
        pld_cli_error("merge: --threads must be an integer in [1, %u]",
                      PLD_MERGE_MAX_THREADS);
        return EXIT_USAGE;
      }
      threads = (unsigned)t;
    } else if (strcmp(a, "--accuracy") == 0) {
      if (parse_double(a, val, &accuracy))
        return EXIT_USAGE;
      if (!(accuracy > 0.0 && accuracy < 1.0)) {
        pld_cli_error("merge: --accuracy must be in (0, 1)");
        return EXIT_USAGE;
      }
    } else {
      if (parse_double(a, val, &resd))
        return EXIT_USAGE;
      if (!(resd >= 1.0 && resd <= PLD_CLI_CONFIG_MAX_GRID) ||
          resd != floor(resd)) {
        pld_cli_error("merge: --resolution must be an integer in [1, %u]",
                      PLD_CLI_CONFIG_MAX_GRID);
        return EXIT_USAGE;
      }
      have_res = 1;
    }
  }
  if (json && csv) {
    pld_cli_error("merge: --json and --csv are exclusive");
    return EXIT_USAGE;
  }
  if (config == NULL) {
    pld_cli_error("merge: missing --config FILE (see pldkit merge --help)");
    return EXIT_USAGE;
  }

  struct pld_cli_config cfg;
  char err[256];
  if (pld_cli_config_load(config, &cfg, err, sizeof err)) {
    pld_cli_error("merge: %s: %s", cli_quote(q, sizeof q, config), err);
    return EXIT_USAGE;
  }
  pld_merge_plan plan;
  memset(&plan, 0, sizeof plan);
  plan.max_work = max_work;
  plan.threads = threads;
  plan.runs = cfg.runs;
  plan.n = cfg.n;
  plan.delta = isnan(delta) ? cfg.delta : delta;
  if (!isnan(eps))
    plan.epsilon = eps;
  else if (cfg.has_epsilon)
    plan.epsilon = cfg.epsilon;
  else {
    pld_cli_error("merge: no target epsilon (give --epsilon E or \"epsilon\" "
                  "in the config)");
    return EXIT_USAGE;
  }
  plan.accuracy = accuracy;
  plan.resolution = have_res ? (unsigned)resd : cfg.resolution;
  {
    unsigned r = plan.resolution ? plan.resolution : plan.n <= 2 ? 20u : 10u;
    size_t pts;
    if (plan.n > 1 &&
        pld_merge_grid_size(plan.n, r, &pts) == PLD_ERANGE) {
      pld_cli_error("merge: resolution %u gives more than %u grid points for "
                    "%zu runs", r, PLD_MERGE_MAX_POINTS, plan.n);
      return EXIT_USAGE;
    }
  }
  int show = isatty(2);
  if (show) {
    plan.progress = progress;
    plan.progress_ctx = NULL;
  }
  pld_merge_report *R = NULL;
  double t0 = now_seconds();
  int st = pld_merge_plan_compute(&plan, &R);
  double seconds = now_seconds() - t0;
  if (show)
    progress_clear();
  if (st != PLD_SUCCESS) {
    pld_cli_error("merge: the planner failed: %s%s", pld_status_text(st),
                  st == PLD_ERANGE ? " (--max-work, --resolution)" : "");
    /* the configuration passed the parser but not the library (a cap, a
     * domain the parser does not know): the input's fault, 2; the
     * machine's (memory, FFTW, non-convergence): 1 */
    return cli_rc_of_status(st);
  }
  if (json)
    write_json(stdout, R, seconds);
  else if (csv)
    write_csv(stdout, R);
  else
    write_text(stdout, R, seconds);
  pld_merge_report_free(R);
  return EXIT_OK;
}
