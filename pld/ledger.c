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

/* Threads of one process: flock excludes distinct open descriptions, which
 * each call has, but on NFS Linux emulates flock with process-wide record
 * locks; this mutex keeps the guarantee there too. */
static pthread_mutex_t ledger_mutex = PTHREAD_MUTEX_INITIALIZER;

static int lock_open(const char *target, int *fd_out, pld_file_error *err)
{
  size_t n = strlen(target);
  char *lp = pld_malloc(n + 6);
  if (!lp)
    return PLD_ENOMEM;
  memcpy(lp, target, n);
  memcpy(lp + n, ".lock", 6);
  int fd = open(lp, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd < 0 && errno == EACCES) /* another user's lock file: read suffices */
    fd = open(lp, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  int st = PLD_SUCCESS;
  if (fd < 0) {
    pld_file_error_set(err, PLD_FILE_STAGE_LOCK, errno, lp);
    st = PLD_EIO;
  } else {
    int r;
    while ((r = flock(fd, LOCK_EX)) != 0 && errno == EINTR)
      ;
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

static int update_locked(const char *target, const pld_accountant *events,
                         double discretization, const char *record,
                         pld_dist **out, pld_file_error *err)
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
  if (!st && out)
    *out = res;
  else
    pld_dist_free(res);
  errno = e;
  return st;
}

int pld_ledger_add(const char *path, const pld_accountant *events,
                   double discretization, const char *record, pld_dist **out,
                   pld_file_error *err)
{
  if (!path || !*path || !events || !(discretization >= 0) ||
      !(discretization <= PLD_DISCRETIZATION_MAX))
    return PLD_EINVAL;
  if (record && strlen(record) > 65536)
    return PLD_EINVAL;
  if (pld_accountant_size(events) == 0)
    return PLD_EEMPTY;
  char *target = NULL;
  int exists = 0;
  struct stat sb;
  int st = pld_file_resolve(path, &target, &exists, &sb, err);
  if (st)
    return st;
  int fd = -1;
  pthread_mutex_lock(&ledger_mutex);
  st = lock_open(target, &fd, err);
  if (!st)
    st = update_locked(target, events, discretization, record, out, err);
  int e = errno;
  if (fd >= 0)
    close(fd); /* releases the flock */
  pthread_mutex_unlock(&ledger_mutex);
  pld_free(target);
  errno = e;
  return st;
}
