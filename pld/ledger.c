/* pldkit: the locked ledger update (include/pldkit/ledger.h).
 *
 * Lost updates come from read-modify-write without mutual exclusion: two
 * updaters load the same ledger and the second rename discards the first
 * one's events, so the ledger under-reports the privacy spent.  Holding one
 * exclusive lock across load, compose and replace makes the updates
 * serialisable; the lock lives in a companion file because the ledger's
 * inode changes with every rename (a lock on it would guard a file that is
 * no longer the ledger).
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* flock, O_NOFOLLOW */
#endif
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <pldkit/ledger.h>

#include "alloc.h"
#include "file_internal.h"
#include "internal.h"
#include "detail.h"

/* Threads of one process: flock excludes distinct open descriptions, which
 * each call has, but on NFS Linux emulates flock with process-wide record
 * locks; this mutex keeps the guarantee there too. */
static pthread_mutex_t ledger_mutex = PTHREAD_MUTEX_INITIALIZER;

/* Seconds since an arbitrary start (CLOCK_MONOTONIC). */
static double now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void sleep_s(double s)
{
  struct timespec ts;
  ts.tv_sec = (time_t)s;
  ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
    ;
}

/* Wait state of one update: the deadline (infinite: none) and whether the
 * caller was told it waits. */
struct waiting {
  const pld_ledger_options *o;
  double deadline;
  int told;
  const char *what; /* the lock file, for on_wait */
};

static void tell_waiting(struct waiting *w)
{
  if (!w->told && w->o->on_wait)
    w->o->on_wait(w->o->ctx, w->what);
  w->told = 1;
}

/* The process-wide mutex, waited for as the lock itself. */
static int mutex_lock(struct waiting *w)
{
  if (pthread_mutex_trylock(&ledger_mutex) == 0)
    return 0;
  tell_waiting(w);
  if (isinf(w->deadline))
    return pthread_mutex_lock(&ledger_mutex) == 0 ? 0 : -1;
  for (double pause = 1e-3;; pause = fmin(2 * pause, 0.05)) {
    if (pthread_mutex_trylock(&ledger_mutex) == 0)
      return 0;
    double left = w->deadline - now_s();
    if (left <= 0) {
      errno = ETIMEDOUT;
      return -1;
    }
    sleep_s(fmin(pause, left));
  }
}

/* The lock file, opened for writing: a descriptor that proves the caller
 * may write it (flock accepts read-only descriptors too, which would let
 * anyone who can read the lock file block every update). */
static int lock_open(const char *target, int exists, mode_t ledger_mode,
                     struct waiting *w, int *fd_out, pld_file_error *err)
{
  size_t n = strlen(target);
  char *lp = pld_malloc(n + 6);
  if (!lp)
    return PLD_ENOMEM;
  memcpy(lp, target, n);
  memcpy(lp + n, ".lock", 6);
  /* Only those who may write the ledger may open its lock at all: a reader
   * could flock a read-only descriptor and block every update.  Each class
   * (owner, group, others) gets read-write on the lock file exactly when
   * it may write the ledger (a new ledger: the owner alone). */
  mode_t m = 0600;
  if (exists)
    m = (ledger_mode & S_IWUSR ? 0600 : 0) | (ledger_mode & S_IWGRP ? 060 : 0) |
        (ledger_mode & S_IWOTH ? 06 : 0);
  int fd = open(lp, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, m);
  struct stat ls;
  /* a lock file of ours that lets more in (made by an older pldkit, or
   * before the ledger's mode changed) is tightened */
  if (fd >= 0 && fstat(fd, &ls) == 0 && ls.st_uid == geteuid() &&
      (ls.st_mode & 0666) != (m | 0600))
    (void)fchmod(fd, m | 0600);
  int st = PLD_SUCCESS;
  if (fd < 0) {
    pld_file_error_set(err, PLD_FILE_STAGE_LOCK, errno, lp);
    st = PLD_EIO;
  } else {
    int r;
    w->what = lp;
    while ((r = flock(fd, LOCK_EX | LOCK_NB)) != 0 && errno == EINTR)
      ;
    if (r != 0 && errno == EWOULDBLOCK) {
      tell_waiting(w);
      if (isinf(w->deadline)) {
        while ((r = flock(fd, LOCK_EX)) != 0 && errno == EINTR)
          ;
      } else {
        for (double pause = 1e-3;; pause = fmin(2 * pause, 0.05)) {
          if ((r = flock(fd, LOCK_EX | LOCK_NB)) == 0 ||
              (errno != EWOULDBLOCK && errno != EINTR))
            break;
          double left = w->deadline - now_s();
          if (left <= 0) {
            errno = ETIMEDOUT;
            break;
          }
          sleep_s(fmin(pause, left));
        }
      }
    }
    if (r != 0) {
      int e = errno;
      pld_file_error_set(err, PLD_FILE_STAGE_LOCK, e, lp);
      close(fd);
      errno = e;
      st = PLD_EIO;
    } else
      *fd_out = fd;
  }
  pld_free(lp);
  return st;
}

/* A ledger with several hard links would fork: an update replaces one
 * name by a new file and the others keep the old ledger.  Refused
 * (PLD_EUNSUPPORTED, errnum EMLINK); a symbolic link is the way to give a
 * ledger two names. */
static int check_target(const char *t, int exists, const struct stat *sb,
                        int create, pld_file_error *err)
{
  if (!exists && !create) {
    pld_file_error_set(err, PLD_FILE_STAGE_TARGET, ENOENT, t);
    errno = ENOENT;
    return PLD_EIO;
  }
  if (exists && sb->st_nlink > 1) {
    pld_file_error_set(err, PLD_FILE_STAGE_TARGET, EMLINK, t);
    return PLD_EUNSUPPORTED;
  }
  return PLD_SUCCESS;
}

static int update_locked(const char *target, const pld_accountant *events,
                         double discretization, const char *record,
                         int create, pld_dist **out, pld_file_error *err)
{
  pld_params pp;
  int st = pld_accountant_get_params(events, &pp);
  if (st)
    return st;
  /* resolved again under the lock: the file may have appeared meanwhile */
  char *t2 = NULL;
  int exists = 0;
  struct stat sb;
  if ((st = pld_file_resolve(target, &t2, &exists, &sb, err)))
    return st;
  if ((st = check_target(t2, exists, &sb, create, err))) {
    pld_free(t2);
    return st;
  }
  /* leftovers of updaters killed mid-write (none is alive: we hold the
   * lock; plain saves that do not take it are alive or their pid is gone) */
  pld_file_clean_stale(t2);
  pld_dist *old = NULL, *ev = NULL, *res = NULL;
  pld_workspace *ws = NULL;
  if (exists) {
    st = pld_dist_load_internal(t2, pp.max_grid, &old);
    if (st == PLD_EIO)
      pld_file_error_set(err, PLD_FILE_STAGE_LOAD, errno, t2);
  }
  double grid = old ? old->delta
                    : (discretization > 0 ? discretization : pp.discretization);
  /* a grid the caller fixed in the params must be the ledger's; the
   * argument only proposes one for a new ledger (another updater may have
   * created it meanwhile, on its own grid: that one wins) */
  if (!st && old && pp.discretization > 0 && pp.discretization != old->delta)
    st = PLD_EINCOMPAT;
  if (!st && !(grid > 0))
    st = PLD_EINVAL;
  if (!st)
    st = pld_accountant_compose(events, grid, &ev);
  if (!st && old) {
    if (!(st = pld_workspace_alloc(&pp, &ws)))
      st = pld_dist_compose(old, ev, ws, &res);
    if (!st)
      st = pld_dist_history_copy(old, res);
  } else if (!st) {
    res = ev;
    ev = NULL;
  }
  if (!st) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    st = pld_dist_history_append(res, (int64_t)ts.tv_sec, record ? record : "",
                                 record ? strlen(record) : 0);
  }
  unsigned char *buf = NULL;
  size_t len = 0;
  if (!st)
    st = pld_dist_serialize(res, &buf, &len);
  if (!st)
    st = pld_file_replace(t2, exists, &sb, buf, len, err);
  int e = errno;
  pld_free(buf);
  pld_workspace_free(ws);
  pld_dist_free(old);
  pld_dist_free(ev);
  pld_free(t2);
  if ((!st || st == PLD_EDURABLE) && out) /* EDURABLE: booked */
    *out = res;
  else
    pld_dist_free(res);
  errno = e;
  return st;
}

void pld_ledger_options_default(pld_ledger_options *o)
{
  if (!o)
    return;
  memset(o, 0, sizeof *o);
  o->lock_timeout = -1.0;
  o->create = 1;
}

int pld_ledger_add(const char *path, const pld_accountant *events,
                   double discretization, const char *record, pld_dist **out,
                   pld_file_error *err)
{
  pld_ledger_options o;
  pld_ledger_options_default(&o);
  return pld_ledger_update(path, events, discretization, record, &o, out, err);
}

int pld_ledger_update(const char *path, const pld_accountant *events,
                      double discretization, const char *record,
                      const pld_ledger_options *opts, pld_dist **out,
                      pld_file_error *err)
{
  pld_detail_clear();
  if (!path || !*path || !events || !opts)
    return pld_fail(PLD_EINVAL, "path, events and opts must not be NULL, "
                    "path not empty");
  if (!(discretization >= 0) || !(discretization <= PLD_DISCRETIZATION_MAX))
    return pld_fail(PLD_EINVAL, "discretization = %g must be 0 (none) or in "
                    "(0, %g]", discretization, PLD_DISCRETIZATION_MAX);
  if (record && strlen(record) > 65536)
    return pld_fail(PLD_EINVAL, "record of %zu bytes exceeds 65536",
                    strlen(record));
  if (isnan(opts->lock_timeout))
    return pld_fail(PLD_EINVAL, "lock_timeout is NaN (< 0 or +inf: wait "
                    "forever)");
  if (pld_accountant_size(events) == 0)
    return PLD_EEMPTY;
  char *target = NULL;
  int exists = 0;
  struct stat sb;
  int st = pld_file_resolve(path, &target, &exists, &sb, err);
  if (st)
    return st;
  /* a mistyped name must not leave a lock file behind */
  if ((st = check_target(target, exists, &sb, opts->create, err))) {
    pld_free(target);
    return st;
  }
  struct waiting w = {opts, INFINITY, 0, target};
  if (opts->lock_timeout >= 0 && isfinite(opts->lock_timeout))
    w.deadline = now_s() + opts->lock_timeout;
  int fd = -1;
  if (mutex_lock(&w) != 0) {
    int e = errno;
    pld_file_error_set(err, PLD_FILE_STAGE_LOCK, e, target);
    pld_free(target);
    errno = e;
    return PLD_EIO;
  }
  st = lock_open(target, exists, sb.st_mode, &w, &fd, err);
  if (!st)
    st = update_locked(target, events, discretization, record, opts->create,
                       out, err);
  int e = errno;
  struct stat nb, ls;
  /* a ledger this update created: its lock now admits the writers its
   * mode names (the lock was made for the owner alone) */
  if (fd >= 0 && !exists && (st == PLD_SUCCESS || st == PLD_EDURABLE) &&
      stat(target, &nb) == 0 && fstat(fd, &ls) == 0 &&
      ls.st_uid == geteuid())
    (void)fchmod(fd, 0600 | (nb.st_mode & S_IWGRP ? 060 : 0) |
                         (nb.st_mode & S_IWOTH ? 06 : 0));
  if (fd >= 0)
    close(fd); /* releases the flock */
  pthread_mutex_unlock(&ledger_mutex);
  pld_free(target);
  errno = e;
  return st;
}
