/* Test shim (LD_PRELOAD) for tests/test_ledger_cli.sh: fsync of a directory
 * fails with EIO, every other fsync is the real one, so that the CLI's
 * report of a save or ledger update whose directory sync failed (the file
 * is in place: "booked, durability not confirmed", exit 4) can be tested on
 * the real binary.  Never installed. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

int fsync(int fd)
{
  static int (*real)(int);
  struct stat sb;
  if (fstat(fd, &sb) == 0 && S_ISDIR(sb.st_mode)) {
    errno = EIO;
    return -1;
  }
  if (!real)
    *(void **)&real = dlsym(RTLD_NEXT, "fsync");
  return real ? real(fd) : -1;
}
