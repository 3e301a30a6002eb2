/* pldkit performance report (make bench): bench/results/perf.csv and a table
 * on stdout.
 *
 * Every case runs in a forked child, so that its peak memory (ru_maxrss) is
 * its own; inside the child one warm-up run is followed by `runs` timed runs
 * (wall clock) and the median is reported.  Groups:
 *   core           the foundation issue's cases: build + compose + epsilon(1e-5)
 *   T-fixed        self-composition of a Poisson-subsampled Gaussian
 *                  (q = 0.01, sigma = 1) for T = 10 .. 1e6 on one fixed grid
 *                  (Delta = 2e-3): the cost follows the composed support
 *                  (grid points), not T
 *   T-auto         the same with the automatic grid (what a user gets)
 *   heterogeneous  1000 distinct Poisson-subsampled Gaussian steps (q = 0.01,
 *                  sigma from 0.8 to 1.2), fixed grid and automatic
 *   query          on an already composed DP-SGD PLD: one epsilon(delta),
 *                  and a 1000-point delta(epsilon) curve
 *   calibration    sigma of the DP-SGD demo run for epsilon = 2, delta = 1e-5
 *   accuracy       q = 0.01, sigma = 1, T = 1000 at Delta = 0.1 .. 1e-4:
 *                  bracket width against time
 *   small-delta    epsilon(delta) of the DP-SGD demo run for delta = 1e-5 ..
 *                  1e-15 and of q = 0.001, sigma = 1, T = 1e5 for delta =
 *                  1e-8 .. 1e-12 (x = delta), and delta(epsilon) of the demo
 *                  run down to 1e-66 (x = epsilon): the tilted composition
 *                  (docs/design.md 5a), automatic grid
 *   tail, tail-cli delta(epsilon) where delta is 0 by the loss's support or
 *                  below PLD_DELTA_FLOOR (x = epsilon): the accountant, and
 *                  the catalogue's path (pld_event_delta, as the CLI) with
 *                  the RDP second opinion (design.md 7, tail queries)
 *   first-query    the first epsilon(1e-5) of a fresh process (each timed run
 *                  forks one; its CPU time, not wall): FFTW planning
 *                  included, without and with the built-in wisdom
 *                  (pld_fftw_wisdom_enable; x = 1 with it)
 *   curve-floor    delta at eps = 0, 25, .., 100 of the demo run as the CLI
 *                  answers it (pld_best_curve with the RDP bound), without
 *                  and with a delta floor (x = the floor)
 *   laplace        epsilon(1e-5) of Laplace b=1 composed 100 times at the
 *                  default accuracy and at 2e-5 (x = the accuracy)
 *   inversion      the canonical DP-SGD run (q = 256/60000, sigma = 1.1) at
 *                  T = 14063, delta = 1e-5 and 1e-12, and T = 1e6: the
 *                  automatic query (answered by the grid-free inversion,
 *                  docs/design.md 16) beside the grid path on the fixed step
 *                  the automatic grid had chosen (1e-4 for T = 1e6, where
 *                  the grid's bracket is ~0.2% wide); Laplace (b = 1)
 *                  composed 100 times, the same two ways
 * The ratios of the paired rows are printed at the end.
 * Speed is measured here and never asserted in tests.
 * usage: bench_perf [CSV] [--quick] [--group G]... [--group=PREFIX]
 *   (--quick: one timed run, no 1e6; --group G: only those groups, the
 *   ratios of their pairs; --group=PREFIX: the groups whose name starts
 *   with PREFIX) */
#define _DEFAULT_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <pldkit/pldkit.h>
#include "benchutil.h"

#define DELTA 1e-5
#define DEMO_Q (256.0 / 60000.0)
#define DEMO_SIGMA 1.1
#define DEMO_T 14063

enum kind { K_ACC, K_GAUSS_GRID, K_HETERO, K_QUERY_EPS, K_QUERY_CURVE,
            K_CALIBRATE, K_SMALL_EPS, K_SMALL_DELTA, K_BIS, K_BIS_DELTA,
            K_TAIL, K_TAIL_EVENT, K_FIRST, K_CURVE_FLOOR, K_LAPLACE,
            K_LAP_EPS, K_EVENT_EPS };

struct pcase {
  const char *group;
  const char *name;
  enum kind kind;
  double q, sigma;
  uint64_t T;
  double grid; /* 0: automatic */
  double x;    /* the plotted parameter */
  int runs;
};

struct bres {
  double sec, sec_min, lower, upper, grid;
  size_t npts, nfft;
  int status;
};

static int accountant_of(const struct pcase *c, pld_accountant **out)
{
  pld_params p;
  pld_params_default(&p);
  p.discretization = c->grid;
  pld_accountant *acc = NULL;
  int st = pld_accountant_alloc(&p, &acc);
  /* balanced iteration: one run, k = q, building included */
  int bis = c->kind == K_BIS || c->kind == K_BIS_DELTA;
  if (!st && bis)
    st = pld_accountant_add_allocation(acc, c->T, (uint64_t)c->q, c->sigma,
                                       1.0, 1);
  size_t n = c->kind == K_HETERO ? 1000 : bis ? 0 : 1;
  for (size_t i = 0; i < n && !st; i++) {
    pld_mech *m = NULL;
    double sigma = c->kind == K_HETERO ? 0.8 + 0.4 * (double)i / 999.0
                                       : c->sigma;
    st = c->kind == K_LAP_EPS ? pld_mech_laplace(c->sigma, 1.0, &m)
         : c->q > 0   ? pld_mech_poisson_gaussian(c->q, sigma, 1.0, &m)
         : c->q < 0   ? pld_mech_laplace(-c->q, sigma, &m) /* K_TAIL */
                      : pld_mech_gaussian(sigma, 1.0, &m);
    if (!st)
      st = pld_accountant_add(acc, m, c->kind == K_HETERO ? 1 : c->T);
    pld_mech_free(m);
  }
  if (st) {
    pld_accountant_free(acc);
    return st;
  }
  *out = acc;
  return PLD_SUCCESS;
}

static void take(struct bres *r, const pld_result *res)
{
  r->lower = res->bound.lower;
  r->upper = res->bound.upper;
  r->grid = res->discretization;
  r->npts = res->grid_size;
  r->nfft = res->fft_size;
}

/* A plain Gaussian through the grid (the accountant would answer it in
 * closed form), at the grid the composed spread suggests. */
static int run_gauss_grid(const struct pcase *c, struct bres *r)
{
  pld_mech *m = NULL;
  pld_dist *d = NULL, *t = NULL;
  pld_bound b;
  double grid = sqrt((double)c->T) / c->sigma / 3000.0;
  int st = pld_mech_gaussian(c->sigma, 1.0, &m);
  if (!st)
    st = pld_dist_from_curve(pld_mech_curve(m), grid, NULL, &d);
  if (!st)
    st = c->T > 1 ? pld_dist_self_compose(d, c->T, NULL, &t)
                  : pld_dist_copy(d, &t);
  if (!st)
    st = pld_dist_epsilon(t, DELTA, &b);
  if (!st) {
    r->lower = b.lower;
    r->upper = b.upper;
    r->grid = grid;
    r->npts = pld_dist_grid_size(t);
    r->nfft = pld_dist_fft_size(t);
  }
  pld_dist_free(d);
  pld_dist_free(t);
  pld_mech_free(m);
  return st;
}

static int build_demo(double sigma, void *ctx, pld_accountant **out)
{
  (void)ctx;
  struct pcase c = {"", "", K_ACC, DEMO_Q, sigma, DEMO_T, 0, 0, 0};
  return accountant_of(&c, out);
}

/* The composed PLD of a query case is made once, outside the timing. */
static pld_dist *query_dist;
static double query_grid;

static int run_once(const struct pcase *c, struct bres *r)
{
  pld_accountant *acc = NULL;
  pld_result res;
  int st;
  switch (c->kind) {
  case K_GAUSS_GRID:
    return run_gauss_grid(c, r);
  case K_QUERY_EPS: {
    pld_bound b;
    st = pld_dist_epsilon(query_dist, DELTA, &b);
    r->lower = b.lower;
    r->upper = b.upper;
    break;
  }
  case K_QUERY_CURVE: {
    double eps[1000];
    pld_bound b[1000];
    for (int i = 0; i < 1000; i++)
      eps[i] = 10.0 * i / 999.0;
    st = pld_dist_curve(query_dist, 1000, eps, b);
    r->lower = b[200].lower; /* at epsilon ~ 2 */
    r->upper = b[200].upper;
    break;
  }
  case K_CALIBRATE: {
    pld_calibration cal;
    st = pld_calibrate(build_demo, NULL, 2.0, DELTA, 1.0, 1e-3, NULL, NULL,
                       &cal);
    if (!st) {
      take(r, &cal.at_param);
      r->lower = r->upper = cal.param; /* report the sigma found */
    }
    return st;
  }
  case K_TAIL_EVENT: /* delta(x) of the EVENT text in the case's name */
  case K_EVENT_EPS: { /* epsilon(x) of it */
    pld_event_query eq;
    pld_event_answer a;
    pld_event *ev = NULL;
    a.size = sizeof a;
    pld_event_query_default(&eq);
    st = pld_event_parse(c->name, &ev);
    if (!st)
      st = c->kind == K_EVENT_EPS ? pld_event_epsilon(ev, &eq, c->x, &a)
                                  : pld_event_delta(ev, &eq, c->x, &a);
    pld_event_free(ev);
    if (!st)
      take(r, &a.pld);
    return st;
  }
  case K_CURVE_FLOOR: {
    double eps[5] = {0.0, 25.0, 50.0, 75.0, 100.0};
    pld_bound b[5];
    pld_params p;
    pld_params_default(&p);
    p.delta_floor = c->x;
    pld_rdp_curve *rdp = NULL;
    pld_mech *m = NULL;
    st = pld_accountant_alloc(&p, &acc);
    if (!st)
      st = pld_mech_poisson_gaussian(c->q, c->sigma, 1.0, &m);
    if (!st)
      st = pld_accountant_add(acc, m, c->T);
    if (!st)
      st = pld_rdp_curve_alloc_default(&rdp);
    if (!st)
      st = pld_rdp_add_poisson_gaussian(rdp, c->q, c->sigma, 1.0, c->T);
    if (!st)
      st = pld_best_curve(acc, rdp, 5, eps, b, &res);
    if (!st) {
      take(r, &res);
      r->lower = b[0].lower; /* at epsilon = 0 */
      r->upper = b[0].upper;
    }
    pld_rdp_curve_free(rdp);
    pld_mech_free(m);
    pld_accountant_free(acc);
    return st;
  }
  case K_LAPLACE: {
    pld_params p;
    pld_params_default(&p);
    p.accuracy = c->x;
    pld_mech *m = NULL;
    st = pld_accountant_alloc(&p, &acc);
    if (!st)
      st = pld_mech_laplace(c->sigma, 1.0, &m);
    if (!st)
      st = pld_accountant_add(acc, m, c->T);
    if (!st)
      st = pld_accountant_epsilon(acc, DELTA, &res);
    if (!st)
      take(r, &res);
    pld_mech_free(m);
    pld_accountant_free(acc);
    return st;
  }
  case K_SMALL_EPS:
  case K_LAP_EPS:
  case K_SMALL_DELTA:
  case K_TAIL:
  case K_BIS_DELTA:
    st = accountant_of(c, &acc);
    if (!st)
      st = c->kind == K_SMALL_EPS || c->kind == K_LAP_EPS
               ? pld_accountant_epsilon(acc, c->x, &res)
               : pld_accountant_delta(acc, c->x, &res);
    if (!st)
      take(r, &res);
    pld_accountant_free(acc);
    return st;
  default:
    st = accountant_of(c, &acc);
    if (!st)
      st = pld_accountant_epsilon(acc, DELTA, &res);
    if (!st)
      take(r, &res);
    pld_accountant_free(acc);
    return st;
  }
  if (!st) {
    r->grid = query_grid;
    r->npts = pld_dist_grid_size(query_dist);
    r->nfft = pld_dist_fft_size(query_dist);
  }
  return st;
}

static void child(const struct pcase *c, int quick, int fd)
{
  struct bres r;
  memset(&r, 0, sizeof r);
  if (c->kind == K_QUERY_EPS || c->kind == K_QUERY_CURVE) {
    pld_accountant *acc = NULL;
    struct pcase demo = {"", "", K_ACC, DEMO_Q, DEMO_SIGMA, DEMO_T, 0, 0, 0};
    pld_result res;
    r.status = accountant_of(&demo, &acc);
    if (!r.status)
      r.status = pld_accountant_epsilon(acc, DELTA, &res);
    if (!r.status) {
      query_grid = res.discretization;
      r.status = pld_accountant_compose(acc, query_grid, &query_dist);
    }
    pld_accountant_free(acc);
  }
  int runs = quick ? 1 : c->runs;
  double *t = calloc((size_t)runs, sizeof *t);
  if (!t)
    r.status = PLD_ENOMEM;
  if (!r.status && c->kind != K_FIRST)
    r.status = run_once(c, &r); /* warm-up */
  for (int i = 0; i < runs && !r.status; i++) {
    if (c->kind == K_FIRST) {
      /* a fresh process per run: nothing planned yet */
      int fds[2];
      if (pipe(fds)) {
        r.status = PLD_ENOMEM;
        break;
      }
      fflush(NULL);
      pid_t pid = fork();
      if (pid == 0) {
        close(fds[0]);
        struct bres g;
        memset(&g, 0, sizeof g);
        /* CPU time of this process (a shared machine's load leaves it
         * alone, unlike the wall clock) */
        struct timespec c0, c1;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
        if (c->x > 0.0)
          g.status = pld_fftw_wisdom_enable();
        struct pcase k = *c;
        k.kind = K_ACC;
        if (!g.status)
          g.status = run_once(&k, &g);
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
        g.sec = (double)(c1.tv_sec - c0.tv_sec) +
                1e-9 * (double)(c1.tv_nsec - c0.tv_nsec);
        ssize_t w = write(fds[1], &g, sizeof g);
        _exit(w == (ssize_t)sizeof g ? 0 : 1);
      }
      close(fds[1]);
      struct bres g;
      memset(&g, 0, sizeof g);
      ssize_t got = read(fds[0], &g, sizeof g);
      close(fds[0]);
      int wst;
      waitpid(pid, &wst, 0);
      r = g;
      if (got != (ssize_t)sizeof g && !r.status)
        r.status = PLD_ENOMEM;
      t[i] = g.sec;
      continue;
    }
    double t0 = bench_wall();
    r.status = run_once(c, &r);
    t[i] = bench_wall() - t0;
  }
  if (!r.status) {
    qsort(t, (size_t)runs, sizeof t[0], bench_cmpd);
    r.sec = t[runs / 2];
    r.sec_min = t[0];
  }
  free(t);
  pld_dist_free(query_dist);
  ssize_t w = write(fd, &r, sizeof r);
  _exit(w == (ssize_t)sizeof r ? 0 : 1);
}

#define CORE(name, q, s, T) {"core", name, K_ACC, q, s, T, 0, T, 7}
#define TFIX(T) {"T-fixed", "poisson-gaussian q=0.01 sigma=1 T=" #T, K_ACC, \
                 0.01, 1.0, (uint64_t)T, 2e-3, T, 5}
#define TAUTO(T) {"T-auto", "poisson-gaussian q=0.01 sigma=1 T=" #T, K_ACC, \
                  0.01, 1.0, (uint64_t)T, 0, T, 5}
#define ACCU(g) {"accuracy", "poisson-gaussian q=0.01 sigma=1 T=1000 Delta=" \
                 #g, K_ACC, 0.01, 1.0, 1000, g, g, 5}

#define SEPS(q, s, T, d) {"small-delta", "epsilon(" #d ") poisson-gaussian q=" #q \
                         " sigma=" #s " T=" #T, K_SMALL_EPS, q, s, T, 0, d, 5}
#define INVR(d, T, tag) {"inversion", "epsilon(" #d ") DP-SGD T=" #T \
  " (inversion)", K_SMALL_EPS, DEMO_Q, DEMO_SIGMA, T, 0, d, 7}
#define INVG(d, T, g) {"inversion", "epsilon(" #d ") DP-SGD T=" #T \
  " (grid Delta=" #g ")", K_SMALL_EPS, DEMO_Q, DEMO_SIGMA, T, g, d, 5}
#define SDEL(q, s, T, e) {"small-delta", "delta(" #e ") poisson-gaussian q=" #q \
                         " sigma=" #s " T=" #T, K_SMALL_DELTA, q, s, T, 0, e, 3}

/* balanced iteration (random allocation): k = 1 the one-of-T bracket,
 * 1 < k < T the split (groups, blocks of two), papers/allocation.c */
#define BIS(T, k, s) {"allocation", "balanced-iteration T=" #T " k=" #k \
  " sigma=" #s, K_BIS, k, s, T, 0, T, 3}
/* ... and delta far below 1e-30 (docs/allocation.md, "Tiny delta") */
#define BISD(T, k, s, e) {"allocation-tiny", "delta(" #e ") balanced-iteration" \
  " T=" #T " k=" #k " sigma=" #s, K_BIS_DELTA, k, s, T, 0, e, 3}

/* delta in the tail (issue 32): 0 by the loss's support, or below
 * PLD_DELTA_FLOOR; the accountant (Laplace: q = -b, sigma = sensitivity;
 * Poisson-Gaussian) and the catalogue's path (with the RDP second opinion) */
#define TAIL(name, q, s, T, e) {"tail", "delta(" #e ") " name, K_TAIL, q, s, T, \
                               0, e, 3}
/* the CLI's path: the case's name is the EVENT text, x the epsilon */
#define TAILE(ev, e) {"tail-cli", ev, K_TAIL_EVENT, 0, 0, 1, 0, e, 3}
/* the samplers at the canonical DP-SGD setting (60000 records, batch 256,
 * sigma = 1.1, 60 epochs), epsilon(1e-5) through the event tree: the case's
 * name is the EVENT text (docs/samplers.md) */
#define SAMP(ev, reps) {"samplers", ev, K_EVENT_EPS, 0, 0, 1, 0, 1e-5, reps}

static const struct pcase cases[] = {
  {"core", "gaussian sigma=1 T=1 (grid)", K_GAUSS_GRID, 0, 1.0, 1, 0, 1, 7},
  {"core", "gaussian sigma=1 T=1000 (grid)", K_GAUSS_GRID, 0, 1.0, 1000, 0,
   1000, 7},
  CORE("gaussian sigma=1 T=1000 (closed form)", 0, 1.0, 1000),
  CORE("poisson-gaussian q=0.01 sigma=1 T=1e3", 0.01, 1.0, 1000),
  CORE("poisson-gaussian q=0.01 sigma=1 T=1e4", 0.01, 1.0, 10000),
  CORE("poisson-gaussian q=256/60000 sigma=1.1 T=14063", DEMO_Q, DEMO_SIGMA,
       DEMO_T),
  CORE("poisson-gaussian q=0.001 sigma=1 T=1e5", 0.001, 1.0, 100000),
  CORE("poisson-gaussian q=0.1 sigma=0.6 T=1e4", 0.1, 0.6, 10000),
  TFIX(10), TFIX(100), TFIX(1000), TFIX(10000), TFIX(100000), TFIX(1000000),
  TAUTO(10), TAUTO(100), TAUTO(1000), TAUTO(10000), TAUTO(100000),
  TAUTO(1000000),
  {"heterogeneous", "1000 distinct poisson-gaussian q=0.01 Delta=2e-3",
   K_HETERO, 0.01, 1.0, 1000, 2e-3, 1000, 5},
  {"heterogeneous", "1000 distinct poisson-gaussian q=0.01 (auto)", K_HETERO,
   0.01, 1.0, 1000, 0, 1000, 5},
  {"query", "epsilon(1e-5) of the composed DP-SGD demo PLD", K_QUERY_EPS,
   DEMO_Q, DEMO_SIGMA, DEMO_T, 0, 1, 9},
  {"query", "delta(epsilon) at 1000 epsilons, same PLD", K_QUERY_CURVE,
   DEMO_Q, DEMO_SIGMA, DEMO_T, 0, 1000, 9},
  {"calibration", "sigma of the DP-SGD demo for epsilon=2 (bounds: sigma)",
   K_CALIBRATE, DEMO_Q, 0, DEMO_T, 0, 2, 5},
  ACCU(0.1), ACCU(0.03), ACCU(0.01), ACCU(3e-3), ACCU(1e-3), ACCU(3e-4),
  ACCU(1e-4),
  SEPS(DEMO_Q, DEMO_SIGMA, DEMO_T, 1e-5), SEPS(DEMO_Q, DEMO_SIGMA, DEMO_T, 1e-9),
  SEPS(DEMO_Q, DEMO_SIGMA, DEMO_T, 1e-10), SEPS(DEMO_Q, DEMO_SIGMA, DEMO_T, 1e-12),
  SEPS(DEMO_Q, DEMO_SIGMA, DEMO_T, 1e-15),
  SEPS(0.001, 1.0, 100000, 1e-8), SEPS(0.001, 1.0, 100000, 1e-9),
  SEPS(0.001, 1.0, 100000, 1e-10), SEPS(0.001, 1.0, 100000, 1e-12),
  SDEL(DEMO_Q, DEMO_SIGMA, DEMO_T, 5.0), SDEL(DEMO_Q, DEMO_SIGMA, DEMO_T, 8.0),
  SDEL(DEMO_Q, DEMO_SIGMA, DEMO_T, 10.0), SDEL(DEMO_Q, DEMO_SIGMA, DEMO_T, 15.0),
  INVR(1e-5, 14063, 0), INVG(1e-5, 14063, 1.877e-4),
  INVR(1e-12, 14063, 0), INVG(1e-12, 14063, 2.313e-4),
  INVR(1e-5, 1000000, 0), INVG(1e-5, 1000000, 1e-4),
  {"inversion", "epsilon(1e-5) laplace b=1 x100 (inversion)", K_LAP_EPS, 0,
   1.0, 100, 0, 1e-5, 7},
  {"inversion", "epsilon(1e-5) laplace b=1 x100 (grid Delta=1e-4)", K_LAP_EPS,
   0, 1.0, 100, 1e-4, 1e-5, 5},
  BIS(1000, 1, 1.0), BIS(10, 4, 2.0), BIS(10, 5, 1.0), BIS(100, 10, 1.0),
  BIS(100, 10, 2.0), BIS(2000, 655, 1.0), BIS(4, 2, 1.0), BIS(20, 2, 1.0),
  BIS(2000, 3, 1.0), BIS(1000, 100, 2.0),
  BISD(10, 1, 1.0, 9), BISD(10, 1, 1.0, 12), BISD(10, 4, 2.0, 10),
  BISD(10, 4, 2.0, 8),
  TAIL("laplace b=0.0530872 s=0.202991", -0.0530872, 0.202991, 1, 4.14206),
  TAIL("laplace b=1 s=1 T=10", -1.0, 1.0, 10, 1e5),
  TAIL("poisson-gaussian q=0.01 sigma=1 T=100", 0.01, 1.0, 100, 1e5),
  TAIL("poisson-gaussian q=0.01 sigma=1 T=100", 0.01, 1.0, 100, 200),
  TAILE("laplace:b=0.0530872,sensitivity=0.202991", 4.14206),
  TAILE("poisson-gaussian:q=0.01,sigma=1,count=100", 1e5),
  TAILE("poisson-gaussian:q=0.01,sigma=1,count=100", 200),
  TAILE("gaussian:sigma=1", 1e5),
  SAMP("poisson-gaussian:q=0.004266666666666667,sigma=1.1,count=14063", 3),
  SAMP("truncated-poisson:n=60000,q=0.004266666666666667,B=300,sigma=1.1,"
       "count=14063", 1),
  SAMP("fixed-batch:b=256,n=60000,sigma=1.1,count=14063", 1),
  SAMP("fixed-batch:b=256,n=60000,sigma=1.1,replacement=with,count=14063",
       1),
  SAMP("balls-in-bins:T=235,sigma=1.1,count=60", 1),
  SAMP("bandmf:steps=14063,bands=4,q=0.01706666666666667,sigma=1.1", 3),
  {"first-query", "demo epsilon(1e-5), fresh process", K_FIRST, DEMO_Q,
   DEMO_SIGMA, DEMO_T, 0, 0, 9},
  {"first-query", "demo epsilon(1e-5), fresh process, wisdom", K_FIRST,
   DEMO_Q, DEMO_SIGMA, DEMO_T, 0, 1, 9},
  {"first-query", "q=0.001 T=1e5 epsilon(1e-5), fresh process", K_FIRST,
   0.001, 1.0, 100000, 0, 0, 5},
  {"first-query", "q=0.001 T=1e5 epsilon(1e-5), fresh, wisdom", K_FIRST,
   0.001, 1.0, 100000, 0, 1, 5},
  {"curve-floor", "demo delta at eps 0:100:5, no floor", K_CURVE_FLOOR,
   DEMO_Q, DEMO_SIGMA, DEMO_T, 0, 0, 1},
  {"curve-floor", "demo delta at eps 0:100:5, floor 1e-20", K_CURVE_FLOOR,
   DEMO_Q, DEMO_SIGMA, DEMO_T, 0, 1e-20, 3},
  {"laplace", "laplace b=1 T=100, accuracy 2e-3", K_LAPLACE, 0, 1.0, 100, 0,
   2e-3, 5},
  {"laplace", "laplace b=1 T=100, accuracy 2e-5", K_LAPLACE, 0, 1.0, 100, 0,
   2e-5, 3},
};

/* Paired rows (indices from the end of cases[]): the second against the
 * first. */
static const struct {
  int a, b;
  const char *what;
} pairs[] = {
  {8, 7, "first query: with the built-in wisdom / without (demo)"},
  {6, 5, "first query: with the built-in wisdom / without (q=0.001, T=1e5)"},
  {4, 3, "curve 0:100:5: with a delta floor 1e-20 / without"},
  {2, 1, "laplace T=100: accuracy 2e-5 / 2e-3"},
};

int main(int argc, char **argv)
{
  const char *csv = "bench/results/perf.csv";
  int quick = 0;
  const char *only = NULL;
  const char *groups[16];
  int ngroups = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--quick") == 0)
      quick = 1;
    else if (strcmp(argv[i], "--group") == 0 && i + 1 < argc && ngroups < 16)
      groups[ngroups++] = argv[++i];
    else if (strncmp(argv[i], "--group=", 8) == 0)
      only = argv[i] + 8;
    else
      csv = argv[i];
  }
  FILE *out = fopen(csv, "w");
  if (!out) {
    fprintf(stderr, "bench_perf: cannot write %s\n", csv);
    return 1;
  }
  fprintf(out, "group,case,x,runs,seconds_median,seconds_min,lower,upper,"
               "relative_width,discretization,grid_points,fft_size,"
               "peak_rss_kib\n");
  printf("pldkit %s: wall time, median of the timed runs after a warm-up; "
         "epsilon at delta = 1e-5\n\n", pld_version_string());
  printf("%-14s %-52s %9s %26s %8s %9s %8s %8s %7s\n", "group", "case",
         "time [s]", "bracket", "width", "Delta", "grid", "fft", "MiB");
  int bad = 0, tty = isatty(2);
  size_t n = sizeof cases / sizeof cases[0];
  double *secs = calloc(n, sizeof *secs);
  if (!secs)
    return 1;
  for (size_t i = 0; i < n; i++) {
    const struct pcase *c = &cases[i];
    if ((quick && c->T >= 1000000) ||
        (only && strncmp(c->group, only, strlen(only)) != 0))
      continue;
    int in = ngroups == 0;
    for (int g = 0; g < ngroups; g++)
      in |= strcmp(groups[g], c->group) == 0;
    if (!in)
      continue;
    if (tty)
      fprintf(stderr, "\rbench_perf: case %zu/%zu   ", i + 1, n);
    int fds[2];
    if (pipe(fds))
      return 1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
      close(fds[0]);
      child(c, quick, fds[1]);
    }
    close(fds[1]);
    struct bres r;
    memset(&r, 0, sizeof r);
    ssize_t got = read(fds[0], &r, sizeof r);
    close(fds[0]);
    int wst;
    struct rusage ru;
    wait4(pid, &wst, 0, &ru);
    if (got != (ssize_t)sizeof r || r.status) {
      printf("%-14s %-52s failed: %s\n", c->group, c->name,
             got == (ssize_t)sizeof r ? pld_strerror(r.status) : "child died");
      bad = 1;
      continue;
    }
    double width = r.upper > 0 ? (r.upper - r.lower) / r.upper : 0.0;
    secs[i] = r.sec;
    printf("%-14s %-52s %9.4f [%11.6g, %11.6g] %7.3f%% %9.3g %8zu %8zu "
           "%7.1f\n", c->group, c->name, r.sec, r.lower, r.upper,
           100 * width, r.grid, r.npts, r.nfft, (double)ru.ru_maxrss / 1024);
    fprintf(out, "%s,\"%s\",%.6g,%d,%.6g,%.6g,%.17g,%.17g,%.6g,%.6g,%zu,%zu,"
                 "%ld\n", c->group, c->name, c->x, quick ? 1 : c->runs, r.sec,
            r.sec_min, r.lower, r.upper, width, r.grid, r.npts, r.nfft,
            ru.ru_maxrss);
    fflush(stdout);
  }
  if (tty)
    fputc('\n', stderr);
  printf("\n");
  for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++) {
    double sa = secs[n - (size_t)pairs[k].a], sb = secs[n - (size_t)pairs[k].b];
    if (sa > 0.0 && sb > 0.0)
      printf("ratio %-68s %8.3f\n", pairs[k].what, sb / sa);
  }
  free(secs);
  fclose(out);
  printf("\nCSV: %s\n", csv);
  return bad;
}
