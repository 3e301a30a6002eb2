/* pldkit core: FFTW plans and buffers in a small cache (fft.h). */
#include "fft.h"

#include <pthread.h>
#include <string.h>

#include "alloc.h"
#include "detail.h"
#include "fft_wisdom.h"

static pthread_mutex_t plan_lock = PTHREAD_MUTEX_INITIALIZER;

/* FFTW's planner keeps global state.  plan_lock serialises pldkit's own
 * planning, but a host program that also plans FFTW transforms in other
 * threads raced with it (heap corruption in 3 of 3 runs).  Making the
 * planner thread-safe (libfftw3_threads, FFTW >= 3.3.5) puts every
 * planner call, the host's included, behind FFTW's own lock.  Done once,
 * when the library is loaded (a constructor: before main for a program
 * linked with pldkit, at dlopen otherwise), so it precedes any planning
 * thread the host starts afterwards: done at pldkit's first FFTW call, a
 * host that planned in its own threads before that call raced with the
 * switch itself (a crash in 4 of 5 runs).  pthread_once keeps the
 * workspace's call (pld_fft_init_once) a no-op after it. */
static pthread_once_t planner_once = PTHREAD_ONCE_INIT;
static void planner_thread_safe(void) { fftw_make_planner_thread_safe(); }

#if defined(__GNUC__) || defined(__clang__)
__attribute__((constructor)) static void planner_at_load(void)
{
  pthread_once(&planner_once, planner_thread_safe);
}
#endif

/* The built-in wisdom (fft_wisdom.h), imported length by length just
 * before the first plan of that length, once the host has allowed it
 * (pld_fft_wisdom_allow): FFTW's wisdom import is not behind the lock
 * that fftw_make_planner_thread_safe puts around planner calls, so it is
 * safe only where no other thread plans FFTW transforms.  A length's
 * wisdom holds the FFTW_ESTIMATE solutions of its r2c and c2r problems and
 * of their sub-problems: the planner then looks them up instead of
 * searching (FFTW_ESTIMATE's search costs 5-9 ms per new length), and
 * returns the plan its search would have found.  FFTW refuses wisdom made
 * under another configuration (version, SIMD solvers); the length is then
 * planned as without it.  Guarded by plan_lock. */
static int wisdom_allowed;
static unsigned char wisdom_done[64];

void pld_fft_wisdom_allow(void)
{
  pthread_mutex_lock(&plan_lock);
  wisdom_allowed = 1;
  pthread_mutex_unlock(&plan_lock);
}

/* with plan_lock held: import the wisdom of length n if there is some,
 * it is allowed, and it was not tried yet */
static void wisdom_import(size_t n, unsigned flags)
{
  if (!wisdom_allowed || flags != FFTW_ESTIMATE)
    return;
  size_t lo = 0, hi = pld_fft_wisdom_count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (pld_fft_wisdom_table[mid].n < n)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo >= pld_fft_wisdom_count || pld_fft_wisdom_table[lo].n != n ||
      lo >= 8 * sizeof wisdom_done)
    return;
  if (wisdom_done[lo / 8] & (1u << (lo % 8)))
    return;
  wisdom_done[lo / 8] |= (unsigned char)(1u << (lo % 8));
  (void)fftw_import_wisdom_from_string(pld_fft_wisdom_table[lo].text);
}

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

size_t pld_fft_ladder_size(size_t n)
{
  if (n <= 64)
    return pld_fft_good_size(n);
  size_t p = 64;
  while (p * 2 <= n)
    p *= 2;
  /* p <= n < 2p: the first of p, 5p/4, 3p/2, 7p/4, 2p that holds n */
  static const size_t num[5] = {4, 5, 6, 7, 8};
  for (int i = 0; i < 5; i++)
    if (p / 4 * num[i] >= n)
      return p / 4 * num[i];
  return 2 * p;
}

/* Plans shared by every cache of the process (a merge plan asks some 120
 * transforms of ~90 lengths: planning them once per process, not once per
 * cache, is what makes it affordable; bench/bench_merge.c).  FFTW's new-array execute functions are thread-safe
 * and accept any arrays aligned as the planning ones (all come from
 * fftw_malloc), so one plan of a length serves every cache and thread;
 * the table itself is guarded by plan_lock.  A cache slot holds a
 * reference (refs); an entry is replaced only when no slot holds it, and
 * when every entry is held the slot plans privately as before. */
#define PLAN_TABLE 48
static struct plan_entry {
  size_t n;
  unsigned flags;
  fftw_plan fwd, inv;
  unsigned long refs, last_use;
} plan_table[PLAN_TABLE];
static unsigned long plan_clock;

static void fft_release(struct pld_fft *f)
{
  if (f->fwd || f->inv) {
    pthread_mutex_lock(&plan_lock);
    if (f->shared) {
      plan_table[f->shared - 1].refs--;
    } else {
      if (f->fwd) fftw_destroy_plan(f->fwd);
      if (f->inv) fftw_destroy_plan(f->inv);
    }
    pthread_mutex_unlock(&plan_lock);
  }
  pld_fftw_free(f->x);
  pld_fftw_free(f->X);
  pld_fftw_free(f->Y);
  memset(f, 0, sizeof *f);
}

void pld_fft_init_once(void)
{
  pthread_once(&planner_once, planner_thread_safe);
}

void pld_fft_cache_release(struct pld_fft_cache *c)
{
  for (int i = 0; i < PLD_FFT_CACHE; i++)
    fft_release(&c->slot[i]);
}

int pld_fft_cache_get(struct pld_fft_cache *c, size_t n, unsigned flags,
                      struct pld_fft **out)
{
  c->clock++;
  int victim = 0;
  for (int i = 0; i < PLD_FFT_CACHE; i++) {
    if (c->slot[i].n == n && c->slot[i].fwd) {
      c->slot[i].last_use = c->clock;
      *out = &c->slot[i];
      return PLD_SUCCESS;
    }
    if (c->slot[i].last_use < c->slot[victim].last_use)
      victim = i;
  }
  struct pld_fft *f = &c->slot[victim];
  fft_release(f);
  size_t nc = n / 2 + 1, bx, bX;
  if (pld_mul_size(n, sizeof(double), &bx) ||
      pld_mul_size(nc, sizeof(fftw_complex), &bX))
    return pld_fail_if_silent(PLD_ERANGE, "pld_fft_get: an FFT of length %zu exceeds the addressable size", n);
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
  pthread_mutex_lock(&plan_lock);
  wisdom_import(n, flags);
  int hit = -1, free_e = -1;
  for (int i = 0; i < PLAN_TABLE; i++) {
    struct plan_entry *e = &plan_table[i];
    if (e->fwd && e->n == n && e->flags == flags) {
      hit = i;
      break;
    }
    if (e->refs == 0 &&
        (free_e < 0 || !e->fwd ||
         (plan_table[free_e].fwd && e->last_use < plan_table[free_e].last_use)))
      free_e = i;
  }
  if (hit < 0 && free_e >= 0) {
    /* plan into an unheld entry (the least recently used one) */
    struct plan_entry *e = &plan_table[free_e];
    if (e->fwd) fftw_destroy_plan(e->fwd);
    if (e->inv) fftw_destroy_plan(e->inv);
    e->fwd = fftw_plan_dft_r2c_1d((int)n, f->x, f->X, flags);
    e->inv = fftw_plan_dft_c2r_1d((int)n, f->X, f->x, flags | FFTW_DESTROY_INPUT);
    e->n = n;
    e->flags = flags;
    if (e->fwd && e->inv) {
      hit = free_e;
    } else {
      if (e->fwd) fftw_destroy_plan(e->fwd);
      if (e->inv) fftw_destroy_plan(e->inv);
      e->fwd = e->inv = NULL;
    }
  }
  if (hit >= 0) {
    struct plan_entry *e = &plan_table[hit];
    e->refs++;
    e->last_use = ++plan_clock;
    f->fwd = e->fwd;
    f->inv = e->inv;
    f->shared = hit + 1;
  } else {
    f->fwd = fftw_plan_dft_r2c_1d((int)n, f->x, f->X, flags);
    f->inv = fftw_plan_dft_c2r_1d((int)n, f->X, f->x, flags | FFTW_DESTROY_INPUT);
    f->shared = 0;
  }
  pthread_mutex_unlock(&plan_lock);
  if (!f->fwd || !f->inv) {
    fft_release(f);
    return PLD_EFFT;
  }
  f->n = n;
  f->last_use = c->clock;
  *out = f;
  return PLD_SUCCESS;
}
