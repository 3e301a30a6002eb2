/* Timing helpers shared by the benchmark programs (header-only). */
#ifndef PLDKIT_BENCHUTIL_H
#define PLDKIT_BENCHUTIL_H

#include <time.h>

/* Wall clock in seconds (CLOCK_MONOTONIC). */
static inline double bench_wall(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* CPU time of the process in seconds. */
static inline double bench_cpu(void)
{
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* qsort comparator for doubles, ascending. */
static inline int bench_cmpd(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

#endif
