/* pldkit benchmark: build + compose + query for the foundation's cases.
 *
 * Each case runs in a forked child so that its peak memory (ru_maxrss) is
 * its own; inside the child one warm-up run is followed by RUNS timed runs
 * and the median CPU time is reported.  Output: a table on stdout and CSV
 * (bench/results/core.csv unless another path is given).  Speed is measured
 * here and never asserted in tests.
 */
#define _DEFAULT_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <pldkit/pldkit.h>

#define RUNS 7

struct bcase {
  const char *name;
  double q, sigma; /* q == 0: plain Gaussian */
  unsigned long T;
  int discretized; /* plain Gaussian: 1 = through the grid, 0 = closed form */
};

static const struct bcase cases[] = {
  {"gaussian sigma=1 T=1 (grid)", 0, 1.0, 1, 1},
  {"gaussian sigma=1 T=1000 (grid)", 0, 1.0, 1000, 1},
  {"gaussian sigma=1 T=1000 (closed form)", 0, 1.0, 1000, 0},
  {"poisson-gaussian q=0.01 sigma=1 T=1e3", 0.01, 1.0, 1000, 1},
  {"poisson-gaussian q=0.01 sigma=1 T=1e4", 0.01, 1.0, 10000, 1},
  {"poisson-gaussian q=256/60000 sigma=1.1 T=14063", 256.0 / 60000, 1.1, 14063, 1},
  {"poisson-gaussian q=0.001 sigma=1 T=1e5", 0.001, 1.0, 100000, 1},
  {"poisson-gaussian q=0.1 sigma=0.6 T=1e4", 0.1, 0.6, 10000, 1},
};

struct bres {
  double cpu, lower, upper, grid;
  size_t npts, nfft;
  int status;
};

static double cpu_now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmpd(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* One build + compose + query of epsilon(1e-5) at the default settings. */
static int run_once(const struct bcase *c, struct bres *r)
{
  pld_mech *m = NULL;
  pld_accountant *acc = NULL;
  int st;
  if (c->q > 0)
    st = pld_mech_poisson_gaussian(c->q, c->sigma, 1.0, &m);
  else
    st = pld_mech_gaussian(c->sigma, 1.0, &m);
  if (st)
    return st;
  if (c->q == 0 && c->discretized) {
    /* the accountant would answer a plain Gaussian exactly: go through the
     * grid explicitly, at the grid the composed spread suggests */
    double mu = 1.0 / c->sigma, grid = mu * sqrt((double)c->T) / 3000.0;
    pld_dist *d = NULL, *t = NULL;
    pld_bound b;
    st = pld_dist_from_curve(pld_mech_curve(m), grid, NULL, &d);
    if (!st)
      st = c->T > 1 ? pld_dist_self_compose(d, c->T, NULL, &t)
                    : pld_dist_copy(d, &t);
    if (!st)
      st = pld_dist_epsilon(t, 1e-5, &b);
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
  pld_result res;
  st = pld_accountant_alloc(NULL, &acc);
  if (!st)
    st = pld_accountant_add(acc, m, c->T);
  if (!st)
    st = pld_accountant_epsilon(acc, 1e-5, &res);
  if (!st) {
    r->lower = res.bound.lower;
    r->upper = res.bound.upper;
    r->grid = res.discretization;
    r->npts = res.grid_size;
    r->nfft = res.fft_size;
  }
  pld_accountant_free(acc);
  pld_mech_free(m);
  return st;
}

static void child(const struct bcase *c, int fd)
{
  struct bres r;
  memset(&r, 0, sizeof r);
  double t[RUNS];
  r.status = run_once(c, &r); /* warm-up */
  for (int i = 0; i < RUNS && !r.status; i++) {
    double t0 = cpu_now();
    r.status = run_once(c, &r);
    t[i] = cpu_now() - t0;
  }
  if (!r.status) {
    qsort(t, RUNS, sizeof t[0], cmpd);
    r.cpu = t[RUNS / 2];
  }
  ssize_t w = write(fd, &r, sizeof r);
  _exit(w == (ssize_t)sizeof r ? 0 : 1);
}

int main(int argc, char **argv)
{
  const char *csv = argc > 1 ? argv[1] : "bench/results/core.csv";
  FILE *out = fopen(csv, "w");
  if (!out) {
    fprintf(stderr, "bench_core: cannot write %s\n", csv);
    return 1;
  }
  fprintf(out, "case,q,sigma,T,cpu_seconds_median,epsilon_lower,epsilon_upper,"
               "relative_width,discretization,grid_points,fft_size,peak_rss_kib\n");
  printf("pldkit %s: epsilon(delta=1e-5), build+compose+query, median CPU of %d "
         "runs after a warm-up\n\n",
         pld_version_string(), RUNS);
  printf("%-48s %10s %22s %9s %10s %9s %9s %9s\n", "case", "cpu [ms]",
         "epsilon bracket", "width", "Delta", "grid", "fft", "rss MiB");
  int bad = 0;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    int fds[2];
    if (pipe(fds))
      return 1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
      close(fds[0]);
      child(&cases[i], fds[1]);
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
      printf("%-48s failed: %s\n", cases[i].name,
             got == (ssize_t)sizeof r ? pld_strerror(r.status) : "child died");
      bad = 1;
      continue;
    }
    double width = (r.upper - r.lower) / r.upper;
    double rss = (double)ru.ru_maxrss / 1024.0;
    printf("%-48s %10.2f [%9.5f, %9.5f] %8.3f%% %10.3g %9zu %9zu %9.1f\n",
           cases[i].name, 1e3 * r.cpu, r.lower, r.upper, 100 * width, r.grid,
           r.npts, r.nfft, rss);
    fprintf(out, "\"%s\",%.17g,%.17g,%lu,%.6g,%.17g,%.17g,%.6g,%.6g,%zu,%zu,%ld\n",
            cases[i].name, cases[i].q, cases[i].sigma, cases[i].T, r.cpu, r.lower,
            r.upper, width, r.grid, r.npts, r.nfft, ru.ru_maxrss);
  }
  fclose(out);
  printf("\nCSV: %s\n", csv);
  return bad;
}
