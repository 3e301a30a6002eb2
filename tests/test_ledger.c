/* Ledgers (issue 13): the locked update (pld_ledger_add) from many threads
 * loses nothing, files are replaced safely, and save and load apply one set
 * of checks.  Reference values: randomized response with epsilon0 = 1 on
 * the grid 1 is exact (losses +-1), so n composed runs have the binomial
 * privacy-loss law, summed here in long double. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <pldkit/pldkit.h>
#include <pldkit/event.h>

/* the test-only hooks library (meson.build: pldkit-hooks) */
void pld_test_fail_dir_sync(int on);

static char dir[256];

static void path_in(char *buf, size_t n, const char *name)
{
  snprintf(buf, n, "%s/%s", dir, name);
}

/* delta(eps) of n runs of binary randomized response with epsilon0 = 1. */
static long double rr_delta(unsigned n, double eps)
{
  long double a = expl(1.0L) / (1.0L + expl(1.0L)), s = 0.0L;
  for (unsigned j = 0; j <= n; j++) {
    long double l = 2.0L * j - n;
    if (l <= eps)
      continue;
    long double lc = lgammal(n + 1.0L) - lgammal(j + 1.0L) -
                     lgammal(n - j + 1.0L);
    s += expl(lc + j * logl(a) + (n - j) * logl(1.0L - a)) *
         (1.0L - expl(eps - l));
  }
  return s;
}

static pld_accountant *rr_events(unsigned count)
{
  pld_params p;
  pld_params_default(&p);
  p.discretization = 1.0;
  pld_accountant *acc = NULL;
  pld_mech *m = NULL;
  assert_int_equal(pld_accountant_alloc(&p, &acc), 0);
  assert_int_equal(pld_mech_randomized_response(1.0, 2, &m), 0);
  assert_int_equal(pld_accountant_add(acc, m, count), 0);
  pld_mech_free(m);
  return acc;
}

/* The ledger answers as n runs, within 1e-9, and not as n - 1. */
static void check_runs(const char *path, unsigned n, size_t records)
{
  pld_dist *d = NULL;
  assert_int_equal(pld_dist_load(path, &d), 0);
  for (double eps = 0.0; eps <= 4.0; eps += 1.0) {
    pld_bound b;
    assert_int_equal(pld_dist_delta(d, eps, &b), 0);
    double t = (double)rr_delta(n, eps);
    /* both sides: never below (above) the truth beyond the long double
     * sum's own error, and within the booked round-off (~1e-9 relative) */
    assert_true(b.upper >= t * (1 - 1e-15) && b.upper <= t * (1 + 1e-7) + 1e-12);
    assert_true(b.lower <= t * (1 + 1e-15) && b.lower >= t * (1 - 1e-7) - 1e-12);
    if (eps == 1.0)
      assert_true(fabs(t - (double)rr_delta(n - 1, eps)) > 1e-3);
  }
  assert_int_equal(pld_dist_history_size(d), records);
  pld_dist_free(d);
}

#define THREADS 4
#define UPDATES 5

static void *updater(void *arg)
{
  const char *path = arg;
  pld_accountant *acc = rr_events(1);
  for (int u = 0; u < UPDATES; u++) {
    pld_file_error fe;
    if (pld_ledger_add(path, acc, 0, "rr", NULL, &fe) != 0)
      abort();
  }
  pld_accountant_free(acc);
  return NULL;
}

static void test_threads(void **state)
{
  (void)state;
  char path[512];
  path_in(path, sizeof path, "threads.pld");
  pthread_t t[THREADS];
  for (int i = 0; i < THREADS; i++)
    assert_int_equal(pthread_create(&t[i], NULL, updater, path), 0);
  for (int i = 0; i < THREADS; i++)
    pthread_join(t[i], NULL);
  check_runs(path, THREADS * UPDATES, THREADS * UPDATES);
  /* history: the records in order, with their texts */
  pld_dist *d = NULL;
  assert_int_equal(pld_dist_load(path, &d), 0);
  int64_t ts;
  const char *text;
  size_t len;
  assert_int_equal(pld_dist_history_record(d, 0, &ts, &text, &len), 0);
  assert_int_equal(len, 2);
  assert_memory_equal(text, "rr", 2);
  assert_true(ts > 1600000000 && ts <= (int64_t)time(NULL));
  assert_int_equal(pld_dist_history_record(d, THREADS * UPDATES, &ts, &text,
                                           &len), PLD_EINVAL);
  pld_dist_free(d);
}

static void test_file_safety(void **state)
{
  (void)state;
  char path[512], link[512], victim[512], tmp[600];
  pld_accountant *acc = rr_events(1);
  pld_dist *d = NULL;
  pld_file_error fe;
  assert_int_equal(pld_accountant_compose(acc, 1.0, &d), 0);

  /* a link planted at the old fixed temporary name is never followed */
  path_in(path, sizeof path, "safe.pld");
  path_in(victim, sizeof victim, "victim");
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE *f = fopen(victim, "w");
  assert_non_null(f);
  fputs("precious", f);
  fclose(f);
  assert_int_equal(symlink(victim, tmp), 0);
  assert_int_equal(pld_dist_save(d, path), 0);
  struct stat sb;
  assert_int_equal(stat(victim, &sb), 0);
  assert_int_equal(sb.st_size, 8);
  assert_int_equal(lstat(path, &sb), 0);
  assert_true(S_ISREG(sb.st_mode));

  /* the mode is kept */
  assert_int_equal(chmod(path, 0604), 0);
  assert_int_equal(pld_ledger_add(path, acc, 0, NULL, NULL, NULL), 0);
  assert_int_equal(stat(path, &sb), 0);
  assert_int_equal(sb.st_mode & 07777, 0604);
  assert_int_equal(pld_dist_save(d, path), 0);
  assert_int_equal(stat(path, &sb), 0);
  assert_int_equal(sb.st_mode & 07777, 0604);

  /* a symlinked ledger is written through */
  path_in(link, sizeof link, "link.pld");
  assert_int_equal(symlink(path, link), 0);
  assert_int_equal(pld_ledger_add(link, acc, 0, NULL, NULL, NULL), 0);
  assert_int_equal(lstat(link, &sb), 0);
  assert_true(S_ISLNK(sb.st_mode));
  /* the plain save restarted it at 1 run without history; the update
   * through the link made it 2 runs and 1 record */
  check_runs(path, 2, 1);

  /* non-regular targets are refused, untouched, with err naming them */
  memset(&fe, 0, sizeof fe);
  assert_int_equal(pld_dist_save_report(d, "/dev/null", &fe), PLD_EUNSUPPORTED);
  assert_int_equal(fe.stage, PLD_FILE_STAGE_TARGET);
  assert_string_equal(fe.path, "/dev/null");
  assert_int_equal(pld_ledger_add(dir, acc, 0, NULL, NULL, NULL),
                   PLD_EUNSUPPORTED);
  assert_int_equal(stat("/dev/null", &sb), 0);
  assert_true(S_ISCHR(sb.st_mode));

  /* errors about the temporary file name it */
  snprintf(tmp, sizeof tmp, "%s/no/such/x.pld", dir);
  memset(&fe, 0, sizeof fe);
  assert_int_equal(pld_dist_save_report(d, tmp, &fe), PLD_EIO);
  assert_int_equal(fe.stage, PLD_FILE_STAGE_CREATE);
  assert_int_equal(fe.errnum, ENOENT);
  assert_non_null(strstr(fe.path, "/no/such/.x.pld."));
  assert_non_null(strstr(fe.path, ".tmp"));

  /* a new ledger needs a grid; another grid than the ledger's is refused */
  path_in(tmp, sizeof tmp, "fresh.pld");
  pld_accountant *acc2 = NULL;
  pld_mech *m = NULL;
  assert_int_equal(pld_accountant_alloc(NULL, &acc2), 0);
  assert_int_equal(pld_mech_randomized_response(1.0, 2, &m), 0);
  assert_int_equal(pld_accountant_add(acc2, m, 1), 0);
  assert_int_equal(pld_ledger_add(tmp, acc2, 0, NULL, NULL, NULL), PLD_EINVAL);
  assert_int_equal(pld_ledger_add(tmp, acc2, 0.5, NULL, NULL, NULL), 0);
  assert_int_equal(pld_ledger_add(tmp, acc, 0, NULL, NULL, NULL),
                   PLD_EINCOMPAT); /* acc fixes the grid 1 */
  pld_dist *o = (pld_dist *)0x1;
  char big[70000];
  memset(big, 'x', sizeof big - 1);
  big[sizeof big - 1] = 0;
  assert_int_equal(pld_ledger_add(tmp, acc2, 0, big, &o, NULL), PLD_EINVAL);
  assert_ptr_equal(o, (pld_dist *)0x1);
  pld_mech_free(m);
  pld_accountant_free(acc2);
  pld_accountant_free(acc);
  pld_dist_free(d);
}

static uint64_t fnv(const unsigned char *p, size_t n)
{
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) {
    h ^= p[i];
    h *= 1099511628211ull;
  }
  return h;
}

static int parse_fixed(unsigned char *b, size_t len)
{
  uint64_t h = fnv(b, len - 8);
  for (int i = 0; i < 8; i++)
    b[len - 8 + i] = (unsigned char)(h >> (8 * i));
  pld_dist *d = NULL;
  int st = pld_dist_deserialize(b, len, &d);
  pld_dist_free(d);
  return st;
}

static void put_f64(unsigned char *p, double x)
{
  memcpy(p, &x, 8); /* the test runs on little-endian hosts (checked) */
}

/* Member k (PQ pess, PQ opt, QP pess, QP opt) of the identity PLD: 40 bytes
 * of header at 32 + 48 k, its one mass at 72 + 48 k. */
static void test_consistency(void **state)
{
  (void)state;
  uint16_t one = 1;
  assert_int_equal(*(unsigned char *)&one, 1);
  pld_dist *id = NULL;
  unsigned char *buf, *c;
  size_t len;
  assert_int_equal(pld_dist_identity(0.1, &id), 0);
  assert_int_equal(pld_dist_serialize(id, &buf, &len), 0);
  assert_int_equal(len, 32 + 4 * 48 + 16 + 8);
  c = malloc(len);
  assert_non_null(c);
#define MUT(stmt, want)                                                       \
  do {                                                                        \
    memcpy(c, buf, len);                                                      \
    stmt;                                                                     \
    assert_int_equal(parse_fixed(c, len), want);                              \
  } while (0)
  MUT((void)0, PLD_SUCCESS);
  /* the optimistic curve above the pessimistic one */
  MUT(c[32 + 48] = 5, PLD_EFORMAT);
  MUT(c[32 + 3 * 48] = 1, PLD_EFORMAT);
  MUT(c[32] = 1, PLD_SUCCESS); /* pessimistic above: fine */
  /* an all-zero pessimistic member (also in the other direction), a
   * negative mass */
  MUT(put_f64(c + 72, 0.0), PLD_EFORMAT);
  MUT(put_f64(c + 72 + 2 * 48, 0.0), PLD_EFORMAT);
  MUT(put_f64(c + 72, 1e-320), PLD_EFORMAT); /* below the optimistic */
  MUT((put_f64(c + 72, 1e-320), put_f64(c + 72 + 48, 1e-320)),
      PLD_SUCCESS); /* tiny, not zero, and ordered */
  MUT(put_f64(c + 72 + 48, -1e-300), PLD_EFORMAT);
  MUT(put_f64(c + 72 + 48, 0.0), PLD_SUCCESS); /* optimistic may drop */
  /* sums within the one tolerance 1e-6, on both sides */
  MUT(put_f64(c + 72, 1.0 + 0.9e-6), PLD_SUCCESS);
  MUT(put_f64(c + 72, 1.0 + 1.1e-6), PLD_EFORMAT);
  MUT((put_f64(c + 72, 0.9), put_f64(c + 48, 0.1 + 1.1e-6)), PLD_EFORMAT);
  MUT((put_f64(c + 72, 0.9), put_f64(c + 48, 0.1)), PLD_SUCCESS);
  MUT(put_f64(c + 56, 1.0), PLD_EFORMAT);  /* rel >= 1 */
  MUT(put_f64(c + 56, NAN), PLD_EFORMAT);
  MUT(put_f64(c + 64, 1.5), PLD_EFORMAT);  /* abs > 1 */
  /* version 1 (no history section) is still read */
  memcpy(c, buf, len);
  c[8] = 1;
  /* the members, then the checksum: a valid version 1 file */
  assert_int_equal(parse_fixed(c, len - 16), PLD_SUCCESS);
  c[8] = 2; /* the same bytes as version 2 lack the history header */
  assert_int_equal(parse_fixed(c, len - 16), PLD_EFORMAT);
  /* a history record with a NUL, and a record count that disagrees */
  pld_dist *h = NULL;
  unsigned char *hb;
  size_t hl;
  assert_int_equal(pld_dist_copy(id, &h), 0);
  assert_int_equal(pld_dist_history_append(h, 7, "ab", 2), 0);
  assert_int_equal(pld_dist_history_append(h, 7, "a\0b", 3), PLD_EINVAL);
  assert_int_equal(pld_dist_serialize(h, &hb, &hl), 0);
  assert_int_equal(parse_fixed(hb, hl), PLD_SUCCESS);
  hb[hl - 9] = 0;
  assert_int_equal(parse_fixed(hb, hl), PLD_EFORMAT);
  hb[hl - 9] = 'b';
  hb[32 + 4 * 48] = 2;
  assert_int_equal(parse_fixed(hb, hl), PLD_EFORMAT);
  pld_buffer_free(hb);
  pld_dist_free(h);
  free(c);
  pld_buffer_free(buf);
  pld_dist_free(id);
}

/* Huge declared sizes are refused from the header alone. */
static void test_sparse(void **state)
{
  (void)state;
  char path[512];
  path_in(path, sizeof path, "sparse.pld");
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  assert_true(fd >= 0);
  assert_int_equal(ftruncate(fd, (off_t)3 << 30), 0);
  close(fd);
  /* refused from the header, without reading 3 GiB (the time is measured
   * in bench/bench_limits.c, not asserted here) */
  pld_dist *d = (pld_dist *)0x1;
  assert_int_equal(pld_dist_load(path, &d), PLD_EFORMAT);
  /* a valid header declaring 2^28 points, the file sized to match */
  unsigned char h[72] = "PLDKITv";
  uint64_t n = (uint64_t)1 << 28;
  h[8] = 2;
  put_f64(h + 16, 1.0);
  memcpy(h + 40, &n, 8);
  fd = open(path, O_WRONLY | O_TRUNC);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, h, sizeof h), (ssize_t)sizeof h);
  assert_int_equal(ftruncate(fd, (off_t)(72 + 8 * n + 3 * 48 + 16 + 8)), 0);
  close(fd);
  assert_int_equal(pld_dist_load_capped(path, (size_t)1 << 23, &d), PLD_ERANGE);
  /* declared one point more than the file holds */
  fd = open(path, O_WRONLY);
  n++;
  assert_int_equal(pwrite(fd, &n, 8, 40), 8);
  close(fd);
  assert_int_equal(pld_dist_load_capped(path, (size_t)1 << 31, &d),
                   PLD_EFORMAT);
  /* pld_dist_load's own cap is the default max_grid: refused unread */
  assert_int_equal(pld_dist_load(path, &d), PLD_ERANGE);
  assert_ptr_equal(d, (pld_dist *)0x1);
  assert_int_equal(pld_dist_load_capped(path, 0, &d), PLD_EINVAL);
  unlink(path);
}

/* Save and load agree at extreme counts: round trip, or save refuses
 * (nothing written). */
static void test_extreme_counts(void **state)
{
  (void)state;
  char path[512];
  path_in(path, sizeof path, "extreme.pld");
  const uint64_t counts[3] = {(uint64_t)1 << 22, (uint64_t)1 << 32,
                              (uint64_t)1 << 40};
  int saved = 0, refused = 0;
  for (int i = 0; i < 3; i++) {
    pld_accountant *acc = NULL;
    pld_mech *m = NULL;
    pld_dist *d = NULL, *e = NULL;
    assert_int_equal(pld_accountant_alloc(NULL, &acc), 0);
    assert_int_equal(pld_mech_poisson_gaussian(0.01, 1.0, 1.0, &m), 0);
    assert_int_equal(pld_accountant_add(acc, m, counts[i]), 0);
    unlink(path);
    int st = pld_accountant_compose(acc, 0.05, &d);
    if (st == PLD_SUCCESS) {
      st = pld_dist_save(d, path);
      if (st == PLD_SUCCESS) {
        saved++;
        assert_int_equal(pld_dist_load(path, &e), 0);
        unsigned char *a, *b;
        size_t la, lb;
        assert_int_equal(pld_dist_serialize(d, &a, &la), 0);
        assert_int_equal(pld_dist_serialize(e, &b, &lb), 0);
        assert_int_equal(la, lb);
        assert_memory_equal(a, b, la);
        pld_buffer_free(a);
        pld_buffer_free(b);
      } else {
        refused++;
        assert_int_equal(st, PLD_ETOL);
        assert_int_equal(access(path, F_OK), -1);
      }
    } else
      assert_int_equal(st, PLD_ERANGE);
    pld_dist_free(d);
    pld_dist_free(e);
    pld_mech_free(m);
    pld_accountant_free(acc);
  }
  assert_true(saved >= 1); /* 2^22 fits */
  unlink(path);
}

static int setup(void **state)
{
  (void)state;
  snprintf(dir, sizeof dir, "/tmp/pldkit_ledger_XXXXXX");
  return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
  (void)state;
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  return system(cmd) == 0 ? 0 : -1;
}

/* Issue 32, item 2: the directory sync fails after the rename: the update
 * is in place and reported as such (PLD_EDURABLE, stage SYNC_DIR), the new
 * ledger handed out; a plain save says the same. */
static void test_durability(void **state)
{
  (void)state;
  char path[512];
  path_in(path, sizeof path, "durable.pld");
  unlink(path);
  pld_accountant *acc = rr_events(1);
  pld_dist *d = NULL;
  assert_int_equal(pld_ledger_add(path, acc, 1.0, "one", &d, NULL), 0);
  pld_dist_free(d);
  d = NULL;
  pld_file_error fe;
  memset(&fe, 0, sizeof fe);
  pld_test_fail_dir_sync(1);
  int st = pld_ledger_add(path, acc, 1.0, "two", &d, &fe);
  pld_test_fail_dir_sync(0);
  assert_int_equal(st, PLD_EDURABLE);
  assert_int_equal(fe.stage, PLD_FILE_STAGE_SYNC_DIR);
  assert_int_equal(fe.errnum, EIO);
  assert_non_null(d);
  assert_int_equal(pld_dist_history_size(d), 2);
  pld_dist *got = NULL; /* booked: the file holds both updates */
  assert_int_equal(pld_dist_load(path, &got), 0);
  assert_int_equal(pld_dist_history_size(got), 2);
  pld_dist_free(got);
  pld_test_fail_dir_sync(1);
  st = pld_dist_save(d, path);
  pld_test_fail_dir_sync(0);
  assert_int_equal(st, PLD_EDURABLE);
  assert_string_not_equal(pld_strerror(PLD_EDURABLE), "Unknown status code");
  pld_dist_free(d);
  pld_accountant_free(acc);
  unlink(path);
}

/* Item 3: the lock file admits only those who may write the ledger; a wait
 * is announced and a timeout honoured; item 30: no silent new ledger. */
static int waits;
static void on_wait(void *ctx, const char *lock)
{
  (void)ctx;
  assert_non_null(strstr(lock, ".lock"));
  waits++;
}

static void test_lock_options(void **state)
{
  (void)state;
  char path[512], lock[600];
  path_in(path, sizeof path, "opts.pld");
  snprintf(lock, sizeof lock, "%s.lock", path);
  unlink(path);
  unlink(lock);
  pld_accountant *acc = rr_events(1);
  pld_ledger_options o;
  pld_ledger_options_default(&o);
  o.create = 0;
  pld_file_error fe;
  memset(&fe, 0, sizeof fe);
  pld_dist *d = (pld_dist *)0x1;
  assert_int_equal(pld_ledger_update(path, acc, 1.0, NULL, &o, &d, &fe),
                   PLD_EIO);
  assert_int_equal(fe.stage, PLD_FILE_STAGE_TARGET);
  assert_int_equal(fe.errnum, ENOENT);
  assert_ptr_equal(d, (pld_dist *)0x1);
  struct stat sb;
  assert_int_not_equal(stat(path, &sb), 0);
  assert_int_not_equal(stat(lock, &sb), 0); /* no lock file left either */
  o.create = 1;
  mode_t um = umask(002); /* a group-shared ledger: 0664 */
  assert_int_equal(pld_ledger_update(path, acc, 1.0, NULL, &o, NULL, NULL), 0);
  umask(um);
  assert_int_equal(stat(lock, &sb), 0);
  assert_int_equal(sb.st_mode & 0777, 0660); /* the group may lock it */
  assert_int_equal(chmod(path, 0664), 0);
  o.create = 0;
  assert_int_equal(pld_ledger_update(path, acc, 1.0, NULL, &o, NULL, NULL), 0);
  /* group may write the ledger: group may lock; others may not even read */
  assert_int_equal(stat(lock, &sb), 0);
  assert_int_equal(sb.st_mode & 0777, 0660);
  assert_int_equal(chmod(path, 0644), 0);
  assert_int_equal(pld_ledger_update(path, acc, 1.0, NULL, &o, NULL, NULL), 0);
  assert_int_equal(stat(lock, &sb), 0);
  assert_int_equal(sb.st_mode & 0777, 0600);
  /* another holder: announced once, then the timeout */
  int fd = open(lock, O_RDWR);
  assert_true(fd >= 0);
  assert_int_equal(flock(fd, LOCK_EX), 0);
  o.lock_timeout = 0.2;
  o.on_wait = on_wait;
  waits = 0;
  memset(&fe, 0, sizeof fe);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  assert_int_equal(pld_ledger_update(path, acc, 1.0, NULL, &o, NULL, &fe),
                   PLD_EIO);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  assert_int_equal(fe.stage, PLD_FILE_STAGE_LOCK);
  assert_int_equal(fe.errnum, ETIMEDOUT);
  assert_int_equal(waits, 1);
  double el = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
  assert_true(el >= 0.2);
  close(fd);
  pld_dist *got = NULL; /* the timed-out update booked nothing */
  assert_int_equal(pld_dist_load(path, &got), 0);
  assert_int_equal(pld_dist_history_size(got), 3);
  pld_dist_free(got);
  o.lock_timeout = NAN;
  assert_int_equal(pld_ledger_update(path, acc, 1.0, NULL, &o, NULL, NULL),
                   PLD_EINVAL);
  assert_non_null(strstr(pld_error_detail(), "lock_timeout"));
  /* two hard links would fork: refused */
  char hard[600];
  snprintf(hard, sizeof hard, "%s.hard", path);
  assert_int_equal(link(path, hard), 0);
  memset(&fe, 0, sizeof fe);
  o.lock_timeout = -1;
  assert_int_equal(pld_ledger_update(hard, acc, 1.0, NULL, &o, NULL, &fe),
                   PLD_EUNSUPPORTED);
  assert_int_equal(fe.errnum, EMLINK);
  unlink(hard);
  pld_accountant_free(acc);
  unlink(path);
  unlink(lock);
}

/* Item 1: the PLD files an event tree references, found on the parsed
 * event whatever the keys' order and wherever the event stands; whether it
 * is exactly the file once (count 1, alone) shows in its canonical text. */
static size_t files_of(const char *text, const char **paths, char *canon,
                       size_t size)
{
  pld_event *ev = NULL;
  size_t n = 99;
  assert_int_equal(pld_event_parse(text, &ev), 0);
  assert_int_equal(pld_event_files(ev, 4, paths, &n), 0);
  size_t len = 0;
  assert_int_equal(pld_event_format(ev, canon, size, &len), 0);
  /* the paths point into the tree: copy the first before freeing it */
  static char first[64];
  if (n > 0) {
    snprintf(first, sizeof first, "%s", paths[0]);
    paths[0] = first;
  }
  pld_event_free(ev);
  return n;
}

static void test_event_files(void **state)
{
  (void)state;
  const char *p[4];
  char canon[256];
  assert_int_equal(files_of("pld:count=1,file=/x/a.pld", p, canon,
                            sizeof canon), 1);
  assert_string_equal(p[0], "/x/a.pld");
  assert_string_equal(canon, "pld:file=/x/a.pld"); /* count 1, alone */
  assert_int_equal(files_of("pld:file=b.pld,count=3", p, canon, sizeof canon),
                   1);
  assert_string_equal(p[0], "b.pld");
  assert_string_equal(canon, "pld:file=b.pld,count=3");
  assert_int_equal(files_of("gaussian:sigma=2+pld:file=c.pld", p, canon,
                            sizeof canon), 1);
  assert_string_equal(p[0], "c.pld");
  assert_int_equal(files_of("random-selection:weights=0.5;0.5"
                            "[pld:file=d.pld|gaussian:sigma=1]", p, canon,
                            sizeof canon), 1);
  assert_string_equal(p[0], "d.pld");
  assert_int_equal(files_of("gaussian:sigma=1", p, canon, sizeof canon), 0);
  pld_event *ev = (pld_event *)0x1;
  assert_int_equal(pld_event_parse("pld:file=a,file=b", &ev), PLD_EINVAL);
  assert_true(pld_error_detail()[0] != 0);
  assert_ptr_equal(ev, (pld_event *)0x1);
  size_t n = 7;
  assert_int_equal(pld_event_files(NULL, 0, NULL, &n), PLD_EINVAL);
  assert_int_equal(n, 7);
}

/* Item 6: history records are read in O(1) each and a crafted big-endian
 * file is a format error, not a newer version. */
static void test_history_and_endianness(void **state)
{
  (void)state;
  pld_dist *d = NULL;
  assert_int_equal(pld_dist_identity(1.0, &d), 0);
  for (int i = 0; i < 2000; i++) {
    char t[32];
    int k = snprintf(t, sizeof t, "rec %d", i);
    assert_int_equal(pld_dist_history_append(d, i, t, (size_t)k), 0);
  }
  unsigned char *buf = NULL;
  size_t len = 0;
  assert_int_equal(pld_dist_serialize(d, &buf, &len), 0);
  pld_dist *e = NULL;
  assert_int_equal(pld_dist_deserialize(buf, len, &e), 0);
  for (size_t i = 0; i < 2000; i += 999) {
    int64_t t;
    const char *text;
    size_t l;
    char want[32];
    assert_int_equal(pld_dist_history_record(e, i, &t, &text, &l), 0);
    int k = snprintf(want, sizeof want, "rec %zu", i);
    assert_int_equal(t, (int64_t)i);
    assert_int_equal(l, (size_t)k);
    assert_memory_equal(text, want, l);
  }
  /* version field written big-endian */
  buf[8] = 0;
  buf[11] = 2;
  pld_dist *g = NULL;
  assert_int_equal(pld_dist_deserialize(buf, len, &g), PLD_EFORMAT);
  assert_non_null(strstr(pld_error_detail(), "big-endian"));
  buf[11] = 0;
  buf[8] = 3; /* a genuinely newer version */
  assert_int_equal(pld_dist_deserialize(buf, len, &g), PLD_EVERSION);
  pld_buffer_free(buf);
  pld_dist_free(e);
  pld_dist_free(d);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_threads),
      cmocka_unit_test(test_file_safety),
      cmocka_unit_test(test_consistency),
      cmocka_unit_test(test_sparse),
      cmocka_unit_test(test_extreme_counts),
      cmocka_unit_test(test_durability),
      cmocka_unit_test(test_lock_options),
      cmocka_unit_test(test_event_files),
      cmocka_unit_test(test_history_and_endianness),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
