/* pldkit: FFTW workspace with a small plan cache. */
#include "fft.h"

#include <pthread.h>
#include <string.h>

#include "alloc.h"
#include "../pld/internal.h"
#include "detail.h"

static pthread_mutex_t plan_lock = PTHREAD_MUTEX_INITIALIZER;

/* FFTW's planner keeps global state.  plan_lock serialises pldkit's own
 * planning, but a host program that also plans FFTW transforms in other
 * threads raced with it (heap corruption in 3 of 3 runs).  Making the
 * planner thread-safe (libfftw3_threads, FFTW >= 3.3.5) puts every
 * planner call, the host's included, behind FFTW's own lock.  Done once,
 * before pldkit's first FFTW call (pld.h documents the contract). */
static pthread_once_t planner_once = PTHREAD_ONCE_INIT;
static void planner_thread_safe(void) { fftw_make_planner_thread_safe(); }

size_t pld_fft_good_size(size_t n)
{
  if (n <= 8)
    return n ? n : 1;
  for (size_t m = n;; m++) {
    size_t r = m;
    while (r % 2 == 0) r /= 2;
    while (r % 3 == 0) r /= 3;
    while (r % 5 == 0) r /= 5;
    while (r % 7 == 0) r /= 7;
    if (r == 1)
      return m;
  }
}

static void fft_release(struct pld_fft *f)
{
  if (f->fwd || f->inv) {
    pthread_mutex_lock(&plan_lock);
    if (f->fwd) fftw_destroy_plan(f->fwd);
    if (f->inv) fftw_destroy_plan(f->inv);
    pthread_mutex_unlock(&plan_lock);
  }
  pld_fftw_free(f->x);
  pld_fftw_free(f->X);
  pld_fftw_free(f->Y);
  memset(f, 0, sizeof *f);
}

int pld_workspace_alloc(const pld_params *params, pld_workspace **out)
{
  pld_detail_clear();
  if (!out)
    return pld_fail_if_silent(PLD_EINVAL, "pld_workspace_alloc: an argument is out of its domain (rejected by: !out)");
  pld_params def;
  if (!params) {
    pld_params_default(&def);
    params = &def;
  }
  int st = pld_params_validate(params);
  if (st)
    return st;
  pthread_once(&planner_once, planner_thread_safe);
  pld_workspace *ws = pld_calloc(1, sizeof *ws);
  if (!ws)
    return PLD_ENOMEM;
  ws->params = *params;
  *out = ws;
  return PLD_SUCCESS;
}

void pld_workspace_free(pld_workspace *ws)
{
  if (!ws)
    return;
  for (int i = 0; i < PLD_FFT_CACHE; i++)
    fft_release(&ws->cache[i]);
  pld_free(ws);
}

const pld_params *pld_workspace_params(const pld_workspace *ws)
{
  return &ws->params;
}

int pld_fft_get(pld_workspace *ws, size_t n, struct pld_fft **out)
{
  ws->clock++;
  int victim = 0;
  for (int i = 0; i < PLD_FFT_CACHE; i++) {
    if (ws->cache[i].n == n && ws->cache[i].fwd) {
      ws->cache[i].last_use = ws->clock;
      *out = &ws->cache[i];
      return PLD_SUCCESS;
    }
    if (ws->cache[i].last_use < ws->cache[victim].last_use)
      victim = i;
  }
  struct pld_fft *f = &ws->cache[victim];
  fft_release(f);
  size_t nc = n / 2 + 1, bx, bX;
  if (pld_mul_size(n, sizeof(double), &bx) ||
      pld_mul_size(nc, sizeof(fftw_complex), &bX))
    return pld_fail_if_silent(PLD_ERANGE, "pld_fft_get: an argument exceeds a size cap (rejected by: pld_mul_size(n, sizeof(double), &bx) || pld_mul_size(nc, sizeof(fftw_complex), &bX))");
  f->x = pld_fftw_malloc(bx);
  f->X = pld_fftw_malloc(bX);
  f->Y = pld_fftw_malloc(bX);
  if (!f->x || !f->X || !f->Y) {
    fft_release(f);
    return PLD_ENOMEM;
  }
  if (n > (size_t)2147483647) {
    fft_release(f);
    return PLD_ERANGE;
  }
  /* FFTW_ESTIMATE (the default flag) does not touch the arrays and gives
   * reproducible plans; FFTW_DESTROY_INPUT lets c2r use its input as scratch. */
  unsigned flags = ws->params.fftw_flags;
  pthread_mutex_lock(&plan_lock);
  f->fwd = fftw_plan_dft_r2c_1d((int)n, f->x, f->X, flags);
  f->inv = fftw_plan_dft_c2r_1d((int)n, f->X, f->x, flags | FFTW_DESTROY_INPUT);
  pthread_mutex_unlock(&plan_lock);
  if (!f->fwd || !f->inv) {
    fft_release(f);
    return PLD_EFFT;
  }
  f->n = n;
  f->last_use = ws->clock;
  *out = f;
  return PLD_SUCCESS;
}
