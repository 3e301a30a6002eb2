/* pldkit CLI: `pldkit merge` -- the merge planner.  See merge.h for how it is
 * dispatched and README.md ("pldkit merge") for the user's view.
 *
 * For N runs (a JSON config, config.h) and a target (eps', delta') it
 * reports, on a weight grid, the certified eps(delta') of random selection
 * (RS) and linear combination (LC) under PLD and RDP accounting, which grid
 * points meet eps', for N = 2 the extreme feasible weight on run 0
 * (pld_merge_max_weight), and the weight-independent baselines: joint
 * release (PLD bracket and RDP) and advanced composition.
 *
 * Runs are sorted first: run 0 is the LESS private one (largest own
 * eps(delta')), so "weight on run 0" is the knob that trades privacy for
 * the stronger-signal model and eps grows with it.  The output says so and
 * keeps each run's index in the config.
 *
 * Advanced composition baseline: per run eps_i = run i's own certified
 * eps(delta_i) at delta_i = delta' / (2N) (PLD accountant at the default
 * 0.2% accuracy), delta0 = delta' / 2, so the total delta is delta'.
 *
 * Work reuse: RS members (one Poisson-Gaussian mechanism and one composed
 * RDP curve per run) are built once; each grid point only mixes them.  The
 * LC surrogate depends on the weights through every component, so it is
 * rebuilt per point.  The sweep accountants use params.accuracy = --accuracy
 * (default 1%): the brackets are wider but their upper ends stay certified.
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
#define MAX_POINTS 100000u

static const char *const method_key[N_METHODS] = {"rs_pld", "rs_rdp",
                                                   "lc_pld", "lc_rdp"};
static const char *const method_label[N_METHODS] = {"RS PLD", "RS RDP",
                                                     "LC PLD", "LC RDP"};
static const int method_code[N_METHODS] = {PLD_MERGE_RS_PLD, PLD_MERGE_RS_RDP,
                                           PLD_MERGE_LC_PLD, PLD_MERGE_LC_RDP};

static const char help_text[] =
    "usage: pldkit merge --config FILE [--epsilon E] [--delta D] [--json | "
    "--csv]\n"
    "                    [--resolution N] [--accuracy REL]\n"
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
    "                    \"epsilon\" (target) and \"weights_grid\" "
    "(resolution)\n"
    "  --epsilon E       target epsilon' (overrides the config; required "
    "somewhere)\n"
    "  --delta D         target delta' (overrides the config)\n"
    "  --resolution N    grid steps: weights k/N (default: weights_grid, else\n"
    "                    20 for N <= 2 and 10 for N >= 3)\n"
    "  --accuracy REL    relative bracket width of the PLD sweeps (default "
    "0.01;\n"
    "                    upper ends stay certified)\n"
    "  --json            one JSON object\n"
    "  --csv             CSV: weights, method, epsilon_upper, epsilon_lower,\n"
    "                    feasible (for Pareto plots)\n"
    "  --help            this text\n"
    "\n"
    "Exit status: 0 an answer was printed; 1 internal error (the library "
    "failed on\nvalid input); 2 bad input (one line on stderr, nothing on "
    "stdout).\n";

/* ------------------------------------------------------------------------ */

struct point_result {
  double upper[N_METHODS];
  double lower[N_METHODS]; /* NAN when not available (RDP) */
  int feasible[N_METHODS];
};

struct plan {
  struct pld_cli_config cfg;
  size_t order[PLD_MERGE_MAX_RUNS]; /* sorted index -> config index */
  pld_merge_run runs[PLD_MERGE_MAX_RUNS];
  pld_bound own_eps[PLD_MERGE_MAX_RUNS]; /* own eps at delta' */
  double adv_eps_i[PLD_MERGE_MAX_RUNS];  /* own eps at delta'/(2N) */
  double eps, delta, accuracy;
  unsigned resolution;
  size_t n, n_points;
  double *weights; /* n_points * n */
  struct point_result *res;
  pld_bound joint_pld;
  double joint_rdp, adv_eps, adv_delta;
  double max_w[N_METHODS];
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
                  pld_quote(q, sizeof q, s));
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

static void progress(int on, const char *what, size_t i, size_t total)
{
  if (!on)
    return;
  fprintf(stderr, "\rpldkit merge: %s %zu/%zu   ", what, i, total);
  fflush(stderr);
}

static void progress_clear(int on)
{
  if (on) {
    fprintf(stderr, "\r%60s\r", "");
    fflush(stderr);
  }
}

/* Number of simplex grid points C(res + n - 1, n - 1), capped. */
static size_t grid_count(size_t n, unsigned res)
{
  double c = 1.0;
  for (size_t k = 1; k < n; k++)
    c = c * (double)(res + k) / (double)k;
  if (c > (double)MAX_POINTS)
    return 0;
  return (size_t)(c + 0.5);
}

/* Enumerate k (sum res) with k_0 ascending, then k_1, ...; the last
 * coordinate takes the remainder. */
static void grid_fill(size_t n, unsigned res, double *w, size_t *pos,
                      unsigned *k, size_t i, unsigned left)
{
  if (i + 1 == n) {
    k[i] = left;
    for (size_t j = 0; j < n; j++)
      w[*pos * n + j] = (double)k[j] / (double)res;
    (*pos)++;
    return;
  }
  for (unsigned v = 0; v <= left; v++) {
    k[i] = v;
    grid_fill(n, res, w, pos, k, i + 1, left - v);
  }
}

static int lib_fail(const char *what, int st)
{
  pld_cli_error("merge: %s failed: %s", what, pld_status_text(st));
  /* the configuration passed the parser but not the library (a cap, a
   * domain the parser does not know): the input's fault, 2; the machine's
   * (memory, FFTW, non-convergence): 1 */
  return pld_event_rc_of_status(st);
}

/* Own eps of one run at delta (PLD, given params). */
static int own_epsilon(const pld_merge_run *r, double delta,
                       const pld_params *params, pld_bound *out)
{
  pld_accountant *a = NULL;
  pld_result res;
  int st = pld_merge_joint_accountant(r, 1, params, &a);
  if (st == PLD_SUCCESS)
    st = pld_accountant_epsilon(a, delta, &res);
  pld_accountant_free(a);
  if (st == PLD_SUCCESS)
    *out = res.bound;
  return st;
}

static int rdp_eps(const pld_rdp_curve *c, double delta, double *eps)
{
  pld_rdp_result r;
  int st = pld_rdp_epsilon(c, delta, PLD_RDP_BEST, &r);
  if (st == PLD_SUCCESS)
    *eps = r.value;
  return st;
}

static int compute(struct plan *p, int show)
{
  int rc = EXIT_FAIL, st;
  size_t n = p->n;
  pld_params dparams, sparams;
  pld_params_default(&dparams);
  pld_params_default(&sparams);
  sparams.accuracy = p->accuracy;
  pld_mech *mech[PLD_MERGE_MAX_RUNS] = {0};
  pld_accountant *member[PLD_MERGE_MAX_RUNS] = {0};
  pld_rdp_curve *mcurve[PLD_MERGE_MAX_RUNS] = {0};
  pld_rdp_curve *c = NULL;
  pld_accountant *acc = NULL;
  double t0 = now_seconds();

  /* Own epsilons; sort least private first (stable insertion sort). */
  for (size_t i = 0; i < n; i++) {
    progress(show, "runs", i, n);
    st = own_epsilon(&p->cfg.runs[i], p->delta, &dparams, &p->own_eps[i]);
    if (st != PLD_SUCCESS) {
      progress_clear(show);
      return lib_fail("a run's own accountant", st);
    }
    p->order[i] = i;
  }
  for (size_t i = 1; i < n; i++)
    for (size_t j = i; j > 0 && p->own_eps[p->order[j]].upper >
                                    p->own_eps[p->order[j - 1]].upper;
         j--) {
      size_t t = p->order[j];
      p->order[j] = p->order[j - 1];
      p->order[j - 1] = t;
    }
  pld_bound sorted_eps[PLD_MERGE_MAX_RUNS];
  for (size_t i = 0; i < n; i++) {
    p->runs[i] = p->cfg.runs[p->order[i]];
    sorted_eps[i] = p->own_eps[p->order[i]];
  }
  memcpy(p->own_eps, sorted_eps, sizeof sorted_eps);

  /* Baselines. */
  progress(show, "baselines", 0, 3);
  {
    pld_result r;
    st = pld_merge_joint_accountant(p->runs, n, &dparams, &acc);
    if (st == PLD_SUCCESS)
      st = pld_accountant_epsilon(acc, p->delta, &r);
    pld_accountant_free(acc);
    acc = NULL;
    if (st != PLD_SUCCESS) {
      rc = lib_fail("joint release (PLD)", st);
      goto out;
    }
    p->joint_pld = r.bound;
  }
  progress(show, "baselines", 1, 3);
  st = pld_rdp_curve_alloc_default(&c);
  if (st == PLD_SUCCESS)
    st = pld_merge_joint_rdp(p->runs, n, c);
  if (st == PLD_SUCCESS)
    st = rdp_eps(c, p->delta, &p->joint_rdp);
  pld_rdp_curve_free(c);
  c = NULL;
  if (st != PLD_SUCCESS) {
    rc = lib_fail("joint release (RDP)", st);
    goto out;
  }
  progress(show, "baselines", 2, 3);
  {
    double di[PLD_MERGE_MAX_RUNS];
    for (size_t i = 0; i < n; i++) {
      pld_bound b;
      di[i] = p->delta / (2.0 * (double)n);
      st = own_epsilon(&p->runs[i], di[i], &dparams, &b);
      if (st != PLD_SUCCESS) {
        rc = lib_fail("advanced composition (own accountant)", st);
        goto out;
      }
      p->adv_eps_i[i] = b.upper;
    }
    int finite = 1;
    for (size_t i = 0; i < n; i++)
      finite &= isfinite(p->adv_eps_i[i]);
    if (finite) {
      st = pld_merge_advanced_composition(p->adv_eps_i, di, n, p->delta / 2.0,
                                          &p->adv_eps, &p->adv_delta);
      if (st != PLD_SUCCESS) {
        rc = lib_fail("advanced composition", st);
        goto out;
      }
    } else {
      p->adv_eps = INFINITY;
      p->adv_delta = p->delta;
    }
  }

  /* RS members, built once. */
  for (size_t i = 0; i < n; i++) {
    st = pld_mech_poisson_gaussian(p->runs[i].q, p->runs[i].sigma, 1.0,
                                   &mech[i]);
    if (st == PLD_SUCCESS)
      st = pld_accountant_alloc(&sparams, &member[i]);
    if (st == PLD_SUCCESS)
      st = pld_accountant_add(member[i], mech[i], p->runs[i].steps);
    if (st == PLD_SUCCESS)
      st = pld_rdp_curve_alloc_default(&mcurve[i]);
    if (st == PLD_SUCCESS)
      st = pld_rdp_add_poisson_gaussian(mcurve[i], p->runs[i].q,
                                        p->runs[i].sigma, 1.0,
                                        p->runs[i].steps);
    if (st != PLD_SUCCESS) {
      rc = lib_fail("random-selection members", st);
      goto out;
    }
  }

  /* The grid. */
  for (size_t g = 0; g < p->n_points; g++) {
    progress(show, "grid point", g, p->n_points);
    const double *w = p->weights + g * n;
    struct point_result *pr = &p->res[g];
    pld_result r;
    /* RS PLD: a selection among the members with positive weight. */
    {
      const pld_accountant *m[PLD_MERGE_MAX_RUNS];
      double mw[PLD_MERGE_MAX_RUNS];
      size_t k = 0;
      for (size_t i = 0; i < n; i++)
        if (w[i] > 0.0) {
          m[k] = member[i];
          mw[k++] = w[i];
        }
      st = pld_accountant_alloc(&sparams, &acc);
      if (st == PLD_SUCCESS)
        st = pld_accountant_add_selection(acc, k, m, mw, 1);
      if (st == PLD_SUCCESS)
        st = pld_accountant_epsilon(acc, p->delta, &r);
      pld_accountant_free(acc);
      acc = NULL;
      if (st != PLD_SUCCESS) {
        rc = lib_fail("RS PLD", st);
        goto out;
      }
      pr->upper[0] = r.bound.upper;
      pr->lower[0] = r.bound.lower;
    }
    /* RS RDP: mix the members' composed curves. */
    st = pld_rdp_curve_alloc_default(&c);
    if (st == PLD_SUCCESS)
      st = pld_rdp_random_selection((const pld_rdp_curve *const *)mcurve, w,
                                    n, c);
    if (st == PLD_SUCCESS)
      st = rdp_eps(c, p->delta, &pr->upper[1]);
    pld_rdp_curve_free(c);
    c = NULL;
    if (st != PLD_SUCCESS) {
      rc = lib_fail("RS RDP", st);
      goto out;
    }
    pr->lower[1] = NAN;
    /* LC PLD. */
    st = pld_merge_lc_accountant(p->runs, n, w, &sparams, &acc);
    if (st == PLD_SUCCESS)
      st = pld_accountant_epsilon(acc, p->delta, &r);
    pld_accountant_free(acc);
    acc = NULL;
    if (st != PLD_SUCCESS) {
      rc = lib_fail("LC PLD", st);
      goto out;
    }
    pr->upper[2] = r.bound.upper;
    pr->lower[2] = r.bound.lower;
    /* LC RDP. */
    st = pld_rdp_curve_alloc_default(&c);
    if (st == PLD_SUCCESS)
      st = pld_merge_lc_rdp(p->runs, n, w, c);
    if (st == PLD_SUCCESS)
      st = rdp_eps(c, p->delta, &pr->upper[3]);
    pld_rdp_curve_free(c);
    c = NULL;
    if (st != PLD_SUCCESS) {
      rc = lib_fail("LC RDP", st);
      goto out;
    }
    pr->lower[3] = NAN;
    for (int m = 0; m < N_METHODS; m++)
      pr->feasible[m] = pr->upper[m] <= p->eps;
  }

  /* Extreme feasible weight on run 0 (N = 2). */
  for (int m = 0; m < N_METHODS; m++)
    p->max_w[m] = NAN;
  if (n == 2)
    for (int m = 0; m < N_METHODS; m++) {
      progress(show, "extreme weight", (size_t)m, N_METHODS);
      st = pld_merge_max_weight(p->runs, method_code[m], p->eps, p->delta,
                                &sparams, &p->max_w[m]);
      if (st != PLD_SUCCESS) {
        rc = lib_fail("extreme weight search", st);
        goto out;
      }
    }
  p->seconds = now_seconds() - t0;
  rc = EXIT_OK;
out:
  progress_clear(show);
  pld_accountant_free(acc);
  pld_rdp_curve_free(c);
  for (size_t i = 0; i < n; i++) {
    pld_mech_free(mech[i]);
    pld_accountant_free(member[i]);
    pld_rdp_curve_free(mcurve[i]);
  }
  return rc;
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
    pld_fmt_exact(b, sizeof b, x);
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

static void write_json(FILE *f, const struct plan *p)
{
  size_t n = p->n;
  fputs("{\"command\": \"merge\", \"epsilon\": ", f);
  put_num(f, p->eps);
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
    fputc('}', f);
  }
  fputs("], \"baselines\": {\"joint_pld\": {\"epsilon_upper\": ", f);
  put_num(f, p->joint_pld.upper);
  fputs(", \"epsilon_lower\": ", f);
  put_num(f, p->joint_pld.lower);
  fputs("}, \"joint_rdp\": {\"epsilon_upper\": ", f);
  put_num(f, p->joint_rdp);
  fputs("}, \"advanced_composition\": {\"epsilon_upper\": ", f);
  put_num(f, p->adv_eps);
  fputs(", \"delta\": ", f);
  put_num(f, p->adv_delta);
  fputs(", \"delta_per_run\": ", f);
  put_num(f, p->delta / (2.0 * (double)n));
  fputs(", \"delta0\": ", f);
  put_num(f, p->delta / 2.0);
  fputs(", \"per_run_epsilon\": ", f);
  put_num_list(f, n, p->adv_eps_i);
  fprintf(f, ", \"note\": \"%s\"}}, \"max_weight\": ", adv_note);
  if (n == 2) {
    fputc('{', f);
    for (int m = 0; m < N_METHODS; m++) {
      fprintf(f, "%s\"%s\": ", m ? ", " : "", method_key[m]);
      put_num(f, p->max_w[m]);
    }
    fputc('}', f);
  } else {
    fputs("null", f);
  }
  fputs(", \"grid\": [", f);
  for (size_t g = 0; g < p->n_points; g++) {
    const struct point_result *pr = &p->res[g];
    fputs(g ? ",\n  {\"weights\": " : "\n  {\"weights\": ", f);
    put_num_list(f, n, p->weights + g * n);
    for (int m = 0; m < N_METHODS; m++) {
      fprintf(f, ", \"%s\": {\"epsilon_upper\": ", method_key[m]);
      put_num(f, pr->upper[m]);
      fputs(", \"epsilon_lower\": ", f);
      put_num(f, pr->lower[m]);
      fprintf(f, ", \"feasible\": %s}", pr->feasible[m] ? "true" : "false");
    }
    fputc('}', f);
  }
  fputs("],\n \"seconds\": ", f);
  put_num(f, p->seconds);
  fputs("}\n", f);
}

static void csv_num(FILE *f, double x)
{
  char b[40];
  if (isnan(x))
    return; /* empty field: not available */
  pld_fmt_exact(b, sizeof b, x);
  fputs(b, f);
}

static void write_csv(FILE *f, const struct plan *p)
{
  size_t n = p->n;
  for (size_t i = 0; i < n; i++)
    fprintf(f, "w%zu,", i);
  fputs("method,epsilon_upper,epsilon_lower,feasible\n", f);
  for (size_t g = 0; g < p->n_points; g++)
    for (int m = 0; m < N_METHODS; m++) {
      for (size_t i = 0; i < n; i++) {
        csv_num(f, p->weights[g * n + i]);
        fputc(',', f);
      }
      fprintf(f, "%s,", method_key[m]);
      csv_num(f, p->res[g].upper[m]);
      fputc(',', f);
      csv_num(f, p->res[g].lower[m]);
      fprintf(f, ",%d\n", p->res[g].feasible[m]);
    }
}

static void write_text(FILE *f, const struct plan *p)
{
  size_t n = p->n;
  char a[40], b[40], e[40], d[40];
  pld_fmt(e, sizeof e, p->eps, 6);
  pld_fmt(d, sizeof d, p->delta, 6);
  fprintf(f, "merge planner: %zu run%s, target epsilon' = %s at delta' = %s\n",
          n, n == 1 ? "" : "s", e, d);
  fprintf(f, "runs (sorted: run 0 is the less private one, by its own "
             "certified epsilon at delta'):\n");
  for (size_t i = 0; i < n; i++) {
    const pld_merge_run *r = &p->runs[i];
    char qs[40], ss[40], cs[40], ls[40];
    pld_fmt(qs, sizeof qs, r->q, 6);
    pld_fmt(ss, sizeof ss, r->sigma, 6);
    pld_fmt(cs, sizeof cs, r->clip, 6);
    pld_fmt(ls, sizeof ls, r->lr, 6);
    pld_fmt_bracket(a, b, sizeof a, p->own_eps[i].lower,
                        p->own_eps[i].upper);
    fprintf(f,
            "  run %zu (config runs[%zu]): q=%s sigma=%s clip=%s lr=%s "
            "steps=%llu, own epsilon in [%s, %s]\n",
            i, p->order[i], qs, ss, cs, ls, (unsigned long long)r->steps, a, b);
  }
  fprintf(f, "baselines (independent of the weights):\n");
  pld_fmt_bracket(a, b, sizeof a, p->joint_pld.lower, p->joint_pld.upper);
  fprintf(f, "  joint release, PLD      epsilon in [%s, %s]\n", a, b);
  pld_fmt(a, sizeof a, p->joint_rdp, 6);
  fprintf(f, "  joint release, RDP      epsilon <= %s\n", a);
  pld_fmt(a, sizeof a, p->adv_eps, 6);
  fprintf(f, "  advanced composition    epsilon <= %s (delta_i = delta'/(2N) "
             "per run, delta0 = delta'/2)\n", a);
  if (n == 2) {
    fprintf(f, "largest feasible weight on run 0 (-1 = none):\n ");
    for (int m = 0; m < N_METHODS; m++) {
      pld_fmt(a, sizeof a, p->max_w[m], 6);
      fprintf(f, "  %s %s", method_label[m], a);
    }
    fputc('\n', f);
  }
  fprintf(f, "certified epsilon upper bounds on the grid (* = meets "
             "epsilon'; PLD accuracy %g):\n", p->accuracy);
  for (size_t i = 0; i < n; i++)
    fprintf(f, "%7s%zu", "w", i);
  for (int m = 0; m < N_METHODS; m++)
    fprintf(f, " %11s", method_label[m]);
  fputc('\n', f);
  for (size_t g = 0; g < p->n_points; g++) {
    for (size_t i = 0; i < n; i++)
      fprintf(f, " %7.4f", p->weights[g * n + i]);
    for (int m = 0; m < N_METHODS; m++) {
      pld_fmt(a, sizeof a, p->res[g].upper[m], 6);
      fprintf(f, " %10s%c", a, p->res[g].feasible[m] ? '*' : ' ');
    }
    fputc('\n', f);
  }
  fprintf(f, "%.3g s\n", p->seconds);
}

/* ------------------------------------------------------------------------ */

int pld_cli_merge(int argc, char **argv)
{
  const char *config = NULL;
  double eps = NAN, delta = NAN, accuracy = 0.01, resd = 0.0;
  int json = 0, csv = 0, have_res = 0;
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
                strcmp(a, "--accuracy") == 0;
    if (!known) {
      pld_cli_error("merge: unknown option %s (see pldkit merge --help)",
                    pld_quote(q, sizeof q, argv[i]));
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
      if (!(delta > 0.0 && delta < 1.0)) {
        pld_cli_error("merge: --delta must be in (0, 1)");
        return EXIT_USAGE;
      }
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

  struct plan p;
  memset(&p, 0, sizeof p);
  char err[256];
  if (pld_cli_config_load(config, &p.cfg, err, sizeof err)) {
    pld_cli_error("merge: %s: %s", pld_quote(q, sizeof q, config), err);
    return EXIT_USAGE;
  }
  p.n = p.cfg.n;
  p.delta = isnan(delta) ? p.cfg.delta : delta;
  if (!isnan(eps))
    p.eps = eps;
  else if (p.cfg.has_epsilon)
    p.eps = p.cfg.epsilon;
  else {
    pld_cli_error("merge: no target epsilon (give --epsilon E or \"epsilon\" "
                  "in the config)");
    return EXIT_USAGE;
  }
  p.accuracy = accuracy;
  p.resolution = have_res ? (unsigned)resd
                 : p.cfg.weights_grid ? p.cfg.weights_grid
                 : p.n <= 2 ? 20u : 10u;
  if (p.n == 1)
    p.resolution = 1;
  p.n_points = grid_count(p.n, p.resolution);
  if (p.n_points == 0) {
    pld_cli_error("merge: resolution %u gives more than %u grid points for "
                  "%zu runs", p.resolution, MAX_POINTS, p.n);
    return EXIT_USAGE;
  }
  p.weights = malloc(p.n_points * p.n * sizeof *p.weights);
  p.res = calloc(p.n_points, sizeof *p.res);
  if (p.weights == NULL || p.res == NULL) {
    free(p.weights);
    free(p.res);
    pld_cli_error("merge: out of memory");
    return EXIT_FAIL;
  }
  {
    unsigned k[PLD_MERGE_MAX_RUNS];
    size_t pos = 0;
    grid_fill(p.n, p.resolution, p.weights, &pos, k, 0, p.resolution);
  }
  int rc = compute(&p, isatty(2));
  if (rc == EXIT_OK) {
    if (json)
      write_json(stdout, &p);
    else if (csv)
      write_csv(stdout, &p);
    else
      write_text(stdout, &p);
  }
  free(p.weights);
  free(p.res);
  return rc;
}
