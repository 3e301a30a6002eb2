/* pldkit: running ledgers -- PLD files that several processes and threads
 * update safely, with the history of what was booked.
 *
 * A ledger is a PLD file (format in pld.h) holding the composition of every
 * event booked into it so far, plus (format 2) one history record per
 * update: its time and a caller-given text, e.g. the events as the CLI
 * spelled them, so that a ledger can be audited and rebuilt.
 *
 * pld_ledger_add is the update: under an exclusive lock it loads the
 * ledger, composes the new events onto it and replaces the file safely
 * (below).  Any number of concurrent updates, from processes and threads,
 * lose nothing: the final ledger is the composition of all of them.
 *
 * Locking.  The lock is the companion file `TARGET.lock` (TARGET: the
 * ledger after following a symbolic link), created on first use and never
 * removed (removing lock files races).  It is opened for writing only (a
 * descriptor that proves write access; never a read-only fallback) and
 * created with read-write permission for exactly the classes (owner,
 * group, others) that may write the ledger (a new ledger: the owner); a
 * lock file of the caller's that lets more in is tightened.  So a user who
 * may only read the ledger cannot open the lock at all, and cannot flock
 * it to block updates.  (A lock file made by another user with looser
 * permissions stays as it is: remove it once, no update running.)  It is
 * held with flock(2), which excludes other processes and other open
 * descriptions in the same process, plus a process-wide mutex, so threads
 * of one process are serialised even where flock is emulated by
 * per-process record locks (NFS).  pld_ledger_update can announce a wait
 * (on_wait) and give up after a timeout (polling, 1 ms doubling to 50 ms:
 * waiters are not served in order).  Only updates through
 * pld_ledger_add / pld_ledger_update take the lock: a plain pld_dist_save
 * over a ledger does not (it replaces the file as safely, but another
 * update between its load and its save is lost).  Readers (pld_dist_load)
 * need no lock: the file is always replaced by rename, so they see the old
 * or the new ledger.  A ledger with several hard links is refused
 * (PLD_EUNSUPPORTED, errnum EMLINK): an update replaces one name by a new
 * file and the other names would keep the old ledger, a fork; give a
 * ledger a second name with a symbolic link.  Under the lock, temporary
 * files of TARGET left by writers that were killed (their pid, part of the
 * name, no longer exists; only the caller's own files) are removed.  (The
 * pid is looked up in the caller's PID namespace: a plain save running at
 * that moment in another namespace on the same directory may have its
 * temporary removed, and then fails cleanly, nothing lost.)
 *
 * Self-reference.  A front end that writes L and is given an EVENT that
 * loads L (pld:file=L) decides it on the parsed event (pld_event_files in
 * <pldkit/event.h>) and by device and inode, never by the text: the CLI's
 * `save --out L pld:file=L EVENT...` (the keys in any order) is this locked
 * update without that EVENT, and the ledger is composed once.
 *
 * Safe replacement (pld_ledger_add and pld_dist_save alike): the bytes go
 * to a unique temporary file `DIR/.NAME.p<pid>.<16 hex digits>.tmp` in the
 * target's directory, created with O_CREAT | O_EXCL | O_NOFOLLOW (a name
 * planted in advance, a link included, is never opened), written,
 * fsync'd, given the old file's permission bits (and owner and group where
 * the caller may set them), renamed over the target, and the directory is
 * fsync'd.  When that last fsync fails the new file is already in place:
 * the update IS made, and the call says so with its own status,
 * PLD_EDURABLE (the CLI: "booked, durability not confirmed", exit 4),
 * never as a failure to write.
 *
 * Symbolic links.  A ledger that is a symbolic link is written THROUGH to
 * its final target (the link stays a link; a dangling link is refused), so
 * all the names of a ledger see each update -- but only when no link on
 * the way could have been planted by another user: each link must be owned
 * by the caller or root and lie in a directory that is the caller's own or
 * writable by its owner alone (not sticky, not group- or other-writable).
 * Otherwise the save is refused (PLD_EUNSUPPORTED, errnum EPERM, err->path
 * the link): a link planted in a shared directory would make the caller
 * overwrite whatever it points to.  A target that exists and is not a
 * regular file (a directory, a device such as /dev/null, a FIFO) is
 * refused with PLD_EUNSUPPORTED (errnum 0), never replaced.
 *
 * Loading.  Every declared size is checked against the file's size and a
 * cap before anything is allocated: arrays over the cap (pld_dist_load:
 * 2^23 points, the default max_grid; pld_ledger_add: the accountant's
 * max_grid) and history sections over 64 MiB give PLD_ERANGE, so a sparse
 * file declaring huge arrays is refused at once.
 */
#ifndef PLDKIT_LEDGER_H
#define PLDKIT_LEDGER_H

#include <stddef.h>
#include <stdint.h>

#include <pldkit/accountant.h>
#include <pldkit/pld.h>
#include <pldkit/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Which step of a file operation failed (pld_file_error.stage). */
enum pld_file_stage {
  PLD_FILE_STAGE_NONE = 0,
  PLD_FILE_STAGE_TARGET = 1,   /**< inspecting or resolving the target */
  PLD_FILE_STAGE_LOCK = 2,     /**< opening or locking TARGET.lock */
  PLD_FILE_STAGE_LOAD = 3,     /**< reading the existing ledger */
  PLD_FILE_STAGE_CREATE = 4,   /**< creating the temporary file */
  PLD_FILE_STAGE_WRITE = 5,    /**< writing it (or setting its mode) */
  PLD_FILE_STAGE_SYNC = 6,     /**< fsync of the temporary file */
  PLD_FILE_STAGE_RENAME = 7,   /**< renaming it over the target */
  PLD_FILE_STAGE_SYNC_DIR = 8  /**< fsync of the directory after the rename
                                    (the new ledger is in place) */
};

/** Where a file operation failed, for messages: filled (when non-NULL) by
 *  the calls below on PLD_EIO, PLD_EUNSUPPORTED and PLD_EDURABLE (stage
 *  SYNC_DIR) and left untouched otherwise.  `path` is the file the failing call was about -- the target,
 *  the lock file, the directory, or the TEMPORARY file (stages CREATE to
 *  RENAME name the temporary file) -- truncated to fit. */
typedef struct pld_file_error {
  int stage;       /**< enum pld_file_stage */
  int errnum;      /**< errno of the failing call; stage TARGET with
                        PLD_EUNSUPPORTED: 0, not a regular file; EPERM, a
                        symbolic link another user could have planted
                        (path names it); EMLINK, several hard links; stage
                        LOCK: ETIMEDOUT, the lock timeout expired */
  char path[4096]; /**< the file concerned */
} pld_file_error;

/** pld_dist_save, reporting where it failed in *err (may be NULL).
 *  @return as pld_dist_save (PLD_EDURABLE: saved, the directory's fsync
 *  failed). */
PLD_API PLD_NODISCARD int pld_dist_save_report(const pld_dist *d,
                                               const char *path,
                                               pld_file_error *err);

/** Book the events of `events` into the ledger at `path`, atomically with
 *  respect to every other pld_ledger_add on the same ledger (see the lock
 *  above): load the ledger (if it exists), compose it with the events
 *  composed on its grid (pld_accountant_compose, then pld_dist_compose with
 *  the accountant's params), append a history record (the current time and
 *  `record`, which may be NULL for an empty text; at most 65536 bytes, no
 *  NUL), and replace the file safely.
 *
 *  The grid: an existing ledger's; for a new ledger `discretization` if it
 *  is > 0, else the accountant's params->discretization (one of them must
 *  be set: PLD_EINVAL otherwise).  `discretization` only proposes the grid
 *  of a new ledger (another updater may create the ledger first, on its
 *  grid, which then wins); an accountant whose params->discretization is
 *  set and differs from an existing ledger's grid gives PLD_EINCOMPAT.  The existing ledger is
 *  loaded with the accountant's params->max_grid as cap (PLD_ERANGE above
 *  it).  A composed ledger the file format cannot represent (booked
 *  round-off beyond its domain, see pld.h) is not written: PLD_ETOL, the
 *  old ledger stays.
 *
 *  `out` (may be NULL) receives the new ledger's PLD (caller frees with
 *  pld_dist_free); `err` (may be NULL) where a file operation failed.  On
 *  any failure the ledger file is unchanged (except after a failed
 *  directory fsync, PLD_EDURABLE, when the new ledger is already in
 *  place) and no temporary file is left.
 *  Cost: one load, one composition of the events and one pairwise
 *  composition, one write, with the lock held throughout.  Waits for the
 *  lock as long as it takes, and creates a missing ledger
 *  (pld_ledger_update has the options).
 *  @return PLD_SUCCESS, PLD_EDURABLE (the update is in place and *out set,
 *  but the directory's fsync failed: durability not confirmed), PLD_EINVAL
 *  (NULL path or events, bad record, no grid), PLD_EEMPTY (no events),
 *  PLD_EINCOMPAT, PLD_ERANGE, PLD_ENOMEM, PLD_EFFT, PLD_ECALLBACK,
 *  PLD_ETOL, PLD_EFORMAT / PLD_EVERSION (the existing ledger is refused),
 *  PLD_EUNSUPPORTED (the target is not a regular file, has several hard
 *  links, or is reached through a link another user could have planted;
 *  err->errnum tells which), PLD_EIO (errno and *err tell why). */
PLD_API PLD_NODISCARD int pld_ledger_add(const char *path,
                                         const pld_accountant *events,
                                         double discretization,
                                         const char *record, pld_dist **out,
                                         pld_file_error *err);

/** Options of pld_ledger_update; fill with pld_ledger_options_default. */
typedef struct pld_ledger_options {
  double lock_timeout; /**< seconds to wait for the lock (another update
                            holds it): < 0 or +inf, forever (the default);
                            0, not at all.  When it expires: PLD_EIO,
                            stage LOCK, errnum ETIMEDOUT, ledger unchanged.
                            Waiting polls (1 ms doubling to 50 ms), so a
                            waiter is not served first-come. */
  int create;          /**< non-zero (the default): a ledger that does not
                            exist is created; 0: refused (PLD_EIO, stage
                            TARGET, errnum ENOENT), nothing created, no lock
                            file left: a mistyped name is not a new
                            ledger */
  void (*on_wait)(void *ctx, const char *lock); /**< called once, in the
                            calling thread, when the update must wait for
                            the lock (another process or thread holds it),
                            before it waits; `lock` names the lock file (the
                            ledger, when the wait is for another thread of
                            this process).
                            NULL: none.  Must not call pldkit. */
  void *ctx;           /**< passed to on_wait */
} pld_ledger_options;

/** The defaults: wait forever, create a missing ledger, no on_wait. */
PLD_API void pld_ledger_options_default(pld_ledger_options *o);

/** pld_ledger_add with options (opts must not be NULL): a lock timeout, a
 *  notice when it waits, and whether a missing ledger is created.
 *  @return as pld_ledger_add; PLD_EINVAL also for a NaN lock_timeout
 *  (pld_error_detail names it). */
PLD_API PLD_NODISCARD int pld_ledger_update(const char *path,
                                            const pld_accountant *events,
                                            double discretization,
                                            const char *record,
                                            const pld_ledger_options *opts,
                                            pld_dist **out,
                                            pld_file_error *err);

/** Number of history records a PLD carries (those of the ledger file it
 *  was loaded from; 0 for NULL, for a format-1 file and for a PLD made by
 *  composition). */
PLD_API size_t pld_dist_history_size(const pld_dist *d);

/** History record i (< pld_dist_history_size(d)): *time_s its time in
 *  seconds since the epoch, *text (borrowed from d, valid until d is freed;
 *  NOT NUL-terminated) and *len its text.
 *  @return PLD_SUCCESS, PLD_EINVAL (NULL, i out of range). */
PLD_API PLD_NODISCARD int pld_dist_history_record(const pld_dist *d, size_t i,
                                                  int64_t *time_s,
                                                  const char **text,
                                                  size_t *len);

/** Append a history record (time_s, text[0..len)) to d; len at most 65536,
 *  no NUL byte.  pld_ledger_add does this itself.
 * *  @return PLD_SUCCESS, PLD_EINVAL, PLD_ERANGE (history over 64 MiB),
 *  PLD_ENOMEM. */
#ifdef PLD_EXPERIMENTAL
PLD_EXPERIMENTAL_API PLD_NODISCARD int pld_dist_history_append(pld_dist *d, int64_t time_s,
                                                  const char *text,
                                                  size_t len);
#endif

/** Replace dst's history by a copy of src's.
 *  @return PLD_SUCCESS, PLD_EINVAL (NULL), PLD_ENOMEM. */
#ifdef PLD_EXPERIMENTAL
PLD_EXPERIMENTAL_API PLD_NODISCARD int pld_dist_history_copy(const pld_dist *src,
                                                pld_dist *dst);
#endif

#ifdef __cplusplus
}
#endif
#endif
