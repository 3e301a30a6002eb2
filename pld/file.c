/* pldkit: PLD files (format in include/pldkit/pld.h).
 *
 * Explicit little-endian encoding byte by byte, so files move between
 * machines; everything read is validated before it is trusted, because a
 * ledger file is input like any other (and is fuzzed as such).  Saving and
 * loading apply ONE set of checks (pld_dist_check, tolerance
 * PLD_FILE_TOLERANCE): whatever pld_dist_save writes, pld_dist_load accepts,
 * and a PLD that would fail them is refused at save time (PLD_ETOL) rather
 * than written.
 *
 * Files are replaced safely (pld_file_replace): a unique temporary file in
 * the target's directory, created exclusively (O_CREAT | O_EXCL never
 * follows a planted link), written, fsynced, given the old file's mode (and
 * owner where permitted), renamed over the target, and the directory
 * fsynced, so a crash or power loss leaves the old or the new ledger, never
 * an empty or half-written one.  A symlinked ledger is written through to
 * its target; anything but a regular file is refused.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* O_NOFOLLOW, O_CLOEXEC, realpath */
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <pldkit/ledger.h>

#include "alloc.h"
#include "file_internal.h"
#include "internal.h"
#include "detail.h"

static const unsigned char MAGIC[8] = {'P', 'L', 'D', 'K', 'I', 'T', 'v', 0};
#define FILE_VERSION 2u

/* Caps of the history section (format 2): a record's text and the whole
 * section; beyond them a file is refused (PLD_ERANGE) before anything is
 * allocated, and an update that would pass them is not made.  64 MiB is
 * about a million updates of typical EVENT texts, and reads in well under
 * a second. */
#define HIST_TEXT_MAX ((uint64_t)1 << 16)
#define HIST_BYTES_MAX ((uint64_t)1 << 26)
/* pld_dist_load's cap on the points of any one array: the default
 * pld_params.max_grid (pld_dist_load_capped takes another). */
#define LOAD_DEFAULT_CAP ((size_t)1 << 23)

static uint64_t fnv1a_step(uint64_t h, const unsigned char *p, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    h ^= p[i];
    h *= 1099511628211ull;
  }
  return h;
}

static uint64_t fnv1a(const unsigned char *p, size_t n)
{
  return fnv1a_step(1469598103934665603ull, p, n);
}

static void put_u64(unsigned char *p, uint64_t v)
{
  for (int i = 0; i < 8; i++)
    p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_u64(const unsigned char *p)
{
  uint64_t v = 0;
  for (int i = 0; i < 8; i++)
    v |= (uint64_t)p[i] << (8 * i);
  return v;
}

static void put_f64(unsigned char *p, double x)
{
  uint64_t v;
  memcpy(&v, &x, 8);
  put_u64(p, v);
}

static double get_f64(const unsigned char *p)
{
  uint64_t v = get_u64(p);
  double x;
  memcpy(&x, &v, 8);
  return x;
}

static const int ORDER[4][2] = {{0, PLD_PESSIMISTIC}, {0, PLD_OPTIMISTIC},
                                {1, PLD_PESSIMISTIC}, {1, PLD_OPTIMISTIC}};

#define HEADER (8 + 4 + 4 + 8 + 8)
#define MEMBER (8 + 8 + 8 + 8 + 8)
#define HISTHDR (8 + 8)
#define NMAX ((uint64_t)1 << 31)
#define OFFMAX ((int64_t)1 << 52)

/* ------------------------------------------------------------------------ */
/* The one set of checks, shared by save and load.                           */

/* Hockey-stick curves of the two roundings of one direction, compared at
 * every grid index where either has mass and as eps -> -infinity (the
 * total masses): between two such points both curves are A - e^eps B with
 * constant A, B, so their difference is monotone there and its largest
 * value is reached at one of those points.  The
 * walk goes down the indices keeping A_k = inf + sum_{l > k} m_l and
 * S_k = sum_{l > k} m_l e^{(k - l) Delta} (delta(k Delta) = A_k - S_k), so
 * it costs O(size) with one multiplication per index. */
struct walk {
  const struct pld_pmf *p;
  int64_t k;   /* the index the state describes */
  double A, S;
};

static void walk_to(struct walk *w, int64_t k, double grid)
{
  /* absorb the mass at w->k (if any), then shift to k < w->k; no mass lies
   * strictly between (the callers visit every index with mass) */
  const struct pld_pmf *p = w->p;
  double m = 0.0;
  if (w->k >= p->offset && w->k < p->offset + (int64_t)p->n)
    m = p->m[w->k - p->offset];
  w->A += m;
  w->S = (w->S + m) * exp(-(double)(w->k - k) * grid);
  w->k = k;
}

static int curves_ordered(const struct pld_pmf *pess, const struct pld_pmf *opt,
                          double grid)
{
  int64_t top1 = pess->offset + (int64_t)pess->n - 1,
          top2 = opt->offset + (int64_t)opt->n - 1;
  int64_t k = top1 > top2 ? top1 : top2;
  int64_t lo = pess->offset < opt->offset ? pess->offset : opt->offset;
  struct walk a = {pess, k, pess->inf, 0.0}, b = {opt, k, opt->inf, 0.0};
  double slack = pess->abs + opt->abs + PLD_FILE_TOLERANCE;
  for (;;) {
    double up = fmax(a.A - a.S, 0.0), low = fmax(b.A - b.S, 0.0);
    if (low * (1.0 - opt->rel) > up * (1.0 + pess->rel) + slack)
      return 0;
    if (k == lo) {
      /* below the lowest index the curves tend to the total masses */
      walk_to(&a, k - 1, grid);
      walk_to(&b, k - 1, grid);
      return !(b.A * (1.0 - opt->rel) > a.A * (1.0 + pess->rel) + slack);
    }
    /* the next index below k holding mass in either member */
    int64_t next = k - 1;
    int in1 = next >= pess->offset && next <= top1,
        in2 = next >= opt->offset && next <= top2;
    if (!in1 && !in2) {
      int64_t n1 = next > top1 ? top1 : INT64_MIN,
              n2 = next > top2 ? top2 : INT64_MIN;
      next = n1 > n2 ? n1 : n2;
    }
    walk_to(&a, next, grid);
    walk_to(&b, next, grid);
    k = next;
  }
}

int pld_dist_check(const struct pld_dist *d, size_t max_grid)
{
  const double tol = PLD_FILE_TOLERANCE;
  if (!isfinite(d->delta) || !(d->delta >= 1e-9 && d->delta <= 1e3))
    return PLD_EFORMAT;
  for (int i = 0; i < 2; i++)
    for (int r = 0; r < 2; r++) {
      const struct pld_pmf *m = &d->p[i][r];
      if (m->n < 1 || !m->m || (uint64_t)m->n > NMAX)
        return PLD_EFORMAT;
      if (m->n > max_grid)
        return PLD_ERANGE;
      if (m->offset < -OFFMAX || m->offset > OFFMAX ||
          !(m->inf >= 0.0 && m->inf <= 1.0 + tol) ||
          !(m->rel >= 0.0 && m->rel < 1.0) || !(m->abs >= 0.0 && m->abs <= 1.0))
        return PLD_EFORMAT;
      double sum = m->inf;
      for (size_t j = 0; j < m->n; j++) {
        double v = m->m[j];
        if (!(v >= 0.0 && v <= 1.0 + tol))
          return PLD_EFORMAT;
        sum += v;
      }
      if (!(sum <= 1.0 + tol))
        return PLD_EFORMAT; /* not a (sub-)probability distribution */
      /* a pessimistic member never drops mass (it moves truncated mass to
       * +infinity): an all-zero one is no PLD at all and would certify
       * delta = 0.  (Sub-probability members are otherwise accepted: hand
       * made PLDs use them, e.g. tests/test_lastbit.c's subnormal atom.) */
      if (r == PLD_PESSIMISTIC && !(sum > 0.0))
        return PLD_EFORMAT;
    }
  for (int i = 0; i < 2; i++)
    if (!curves_ordered(&d->p[i][PLD_PESSIMISTIC], &d->p[i][PLD_OPTIMISTIC],
                        d->delta))
      return PLD_EFORMAT;
  /* the history section: records within the caps, no NUL in texts */
  size_t pos = 0, n = 0;
  while (pos < d->hist_len) {
    if (d->hist_len - pos < 16)
      return PLD_EFORMAT;
    uint64_t len = get_u64(d->hist + pos + 8);
    pos += 16;
    if (len > HIST_TEXT_MAX || len > d->hist_len - pos ||
        memchr(d->hist + pos, 0, (size_t)len))
      return PLD_EFORMAT;
    pos += (size_t)len;
    n++;
  }
  if (n != d->hist_n || d->hist_len > HIST_BYTES_MAX)
    return PLD_EFORMAT;
  return PLD_SUCCESS;
}

/* ------------------------------------------------------------------------ */
/* Serialisation.                                                            */

int pld_dist_serialize(const pld_dist *d, unsigned char **buf, size_t *len)
{
  if (!d || !buf || !len)
    return PLD_EINVAL;
  /* what load would refuse is not written: the grid cannot represent this
   * PLD (its booked round-off or its masses are out of the file's domain) */
  int st = pld_dist_check(d, (size_t)NMAX);
  if (st)
    return st == PLD_ERANGE ? PLD_ERANGE : PLD_ETOL;
  size_t total = HEADER + HISTHDR + 8;
  if (total + d->hist_len < total)
    return PLD_ERANGE;
  total += d->hist_len;
  for (int k = 0; k < 4; k++) {
    size_t b;
    if (pld_mul_size(d->p[ORDER[k][0]][ORDER[k][1]].n, 8, &b) ||
        total + MEMBER + b < total)
      return PLD_ERANGE;
    total += MEMBER + b;
  }
  unsigned char *p = pld_malloc(total), *q = p;
  if (!p)
    return PLD_ENOMEM;
  memcpy(q, MAGIC, 8);
  q += 8;
  uint32_t ver = FILE_VERSION, flags = d->symmetric ? 1u : 0u;
  for (int i = 0; i < 4; i++) {
    q[i] = (unsigned char)(ver >> (8 * i));
    q[4 + i] = (unsigned char)(flags >> (8 * i));
  }
  q += 8;
  put_f64(q, d->delta);
  put_u64(q + 8, (uint64_t)d->fft_size);
  q += 16;
  for (int k = 0; k < 4; k++) {
    const struct pld_pmf *m = &d->p[ORDER[k][0]][ORDER[k][1]];
    put_u64(q, (uint64_t)m->offset);
    put_u64(q + 8, (uint64_t)m->n);
    put_f64(q + 16, m->inf);
    put_f64(q + 24, m->rel);
    put_f64(q + 32, m->abs);
    q += MEMBER;
    for (size_t j = 0; j < m->n; j++, q += 8)
      put_f64(q, m->m[j]);
  }
  put_u64(q, (uint64_t)d->hist_n);
  put_u64(q + 8, (uint64_t)d->hist_len);
  q += HISTHDR;
  if (d->hist_len)
    memcpy(q, d->hist, d->hist_len);
  q += d->hist_len;
  put_u64(q, fnv1a(p, (size_t)(q - p)));
  *buf = p;
  *len = total;
  return PLD_SUCCESS;
}

void pld_buffer_free(unsigned char *buf) { pld_free(buf); }

/* The sizes a file declares, checked against its length before anything is
 * allocated or read: `get` fetches len bytes at an offset (from memory, or
 * from the file with pread).  Returns a status; on success *hist_at is the
 * offset of the history section (format 2; len - 8 for format 1). */
typedef int (*fetch_fn)(void *ctx, uint64_t at, size_t n, unsigned char *out);

static int check_layout(fetch_fn get, void *ctx, uint64_t len,
                        size_t max_grid, uint32_t *version)
{
  unsigned char h[HEADER > MEMBER ? HEADER : MEMBER];
  if (len < HEADER + 8)
    return PLD_EFORMAT;
  int st = get(ctx, 0, HEADER, h);
  if (st)
    return st;
  if (memcmp(h, MAGIC, 8))
    return PLD_EFORMAT;
  uint32_t ver = 0;
  for (int i = 0; i < 4; i++)
    ver |= (uint32_t)h[8 + i] << (8 * i);
  if (ver != 1 && ver != 2) {
    uint32_t sw = (ver >> 24) | ((ver >> 8) & 0xff00u) |
                  ((ver << 8) & 0xff0000u) | (ver << 24);
    if (sw == 1 || sw == 2) /* a big-endian writer: not pldkit's format */
      return pld_fail(PLD_EFORMAT, "the file's version field reads %u "
                      "byte-swapped: written big-endian, not in pldkit's "
                      "little-endian format", sw);
    if (ver > 0xffffu) /* no version ever will be this large */
      return pld_fail(PLD_EFORMAT, "the version field 0x%08x is no "
                      "version: not a pldkit file", ver);
    return pld_fail(PLD_EVERSION, "format version %u; this build reads "
                    "versions 1 and 2", ver);
  }
  uint64_t pos = HEADER, end = len - 8;
  for (int k = 0; k < 4; k++) {
    if (end - pos < MEMBER)
      return PLD_EFORMAT;
    if ((st = get(ctx, pos, MEMBER, h)))
      return st;
    uint64_t n = get_u64(h + 8);
    pos += MEMBER;
    if (n < 1 || (end - pos) / 8 < n)
      return PLD_EFORMAT; /* none, or declared larger than the file */
    if (n > NMAX || n > max_grid) /* really there, but over the cap */
      return pld_fail(PLD_ERANGE, "an array of %llu grid points exceeds "
                      "the cap of %zu (max_grid)", (unsigned long long)n,
                      max_grid < (size_t)NMAX ? max_grid : (size_t)NMAX);
    pos += 8 * n;
  }
  if (ver == 2) {
    if (end - pos < HISTHDR)
      return PLD_EFORMAT;
    if ((st = get(ctx, pos, HISTHDR, h)))
      return st;
    uint64_t bytes = get_u64(h + 8);
    pos += HISTHDR;
    if (end - pos != bytes)
      return PLD_EFORMAT;
    if (bytes > HIST_BYTES_MAX)
      return pld_fail(PLD_ERANGE, "a history section of %llu bytes exceeds "
                      "its cap of %llu bytes", (unsigned long long)bytes,
                      (unsigned long long)HIST_BYTES_MAX);
    pos += bytes;
  }
  if (pos != end)
    return PLD_EFORMAT; /* trailing bytes */
  *version = ver;
  return PLD_SUCCESS;
}

static int fetch_mem(void *ctx, uint64_t at, size_t n, unsigned char *out)
{
  memcpy(out, (const unsigned char *)ctx + at, n);
  return PLD_SUCCESS;
}

static int deserialize(const unsigned char *buf, size_t len, size_t max_grid,
                       pld_dist **out)
{
  uint32_t ver = 0;
  int st = check_layout(fetch_mem, (void *)buf, len, max_grid, &ver);
  if (st)
    return st;
  if (get_u64(buf + len - 8) != fnv1a(buf, len - 8))
    return PLD_EFORMAT;
  uint32_t flags = 0;
  for (int i = 0; i < 4; i++)
    flags |= (uint32_t)buf[12 + i] << (8 * i);
  if (flags & ~1u)
    return PLD_EFORMAT;
  double grid = get_f64(buf + 16);
  uint64_t fft = get_u64(buf + 24);
  if (!isfinite(grid) || !(grid >= 1e-9 && grid <= 1e3) ||
      fft > ((uint64_t)1 << 40))
    return PLD_EFORMAT;
  struct pld_dist *d;
  if ((st = pld_dist_new(grid, &d)))
    return st;
  d->symmetric = (int)(flags & 1u);
  d->fft_size = (size_t)fft;
  size_t pos = HEADER; /* sizes already checked by check_layout */
  for (int k = 0; k < 4 && !st; k++) {
    int64_t off = (int64_t)get_u64(buf + pos);
    uint64_t n = get_u64(buf + pos + 8);
    struct pld_pmf *m = &d->p[ORDER[k][0]][ORDER[k][1]];
    if (off < -OFFMAX || off > OFFMAX) {
      st = PLD_EFORMAT;
      break;
    }
    if ((st = pld_pmf_alloc(m, off, (size_t)n)))
      break;
    m->inf = get_f64(buf + pos + 16);
    m->rel = get_f64(buf + pos + 24);
    m->abs = get_f64(buf + pos + 32);
    pos += MEMBER;
    for (size_t j = 0; j < (size_t)n; j++, pos += 8)
      m->m[j] = get_f64(buf + pos);
  }
  if (!st && ver == 2) {
    uint64_t nrec = get_u64(buf + pos), bytes = get_u64(buf + pos + 8);
    pos += HISTHDR;
    if (bytes) {
      if (!(d->hist = pld_malloc((size_t)bytes)))
        st = PLD_ENOMEM;
      else {
        memcpy(d->hist, buf + pos, (size_t)bytes);
        d->hist_len = (size_t)bytes;
      }
    }
    d->hist_n = nrec > HIST_BYTES_MAX ? (size_t)HIST_BYTES_MAX + 1
                                      : (size_t)nrec;
  }
  if (!st)
    st = pld_dist_check(d, max_grid);
  if (!st)
    st = pld_dist_hist_reindex(d);
  if (st) {
    pld_dist_free(d);
    return st;
  }
  *out = d;
  return PLD_SUCCESS;
}

int pld_dist_deserialize(const unsigned char *buf, size_t len, pld_dist **out)
{
  pld_detail_clear();
  if (!buf || !out)
    return PLD_EINVAL;
  return deserialize(buf, len, (size_t)NMAX, out);
}

/* ------------------------------------------------------------------------ */
/* History.                                                                  */

size_t pld_dist_history_size(const pld_dist *d) { return d ? d->hist_n : 0; }

int pld_dist_hist_reindex(struct pld_dist *d)
{
  size_t *off = NULL;
  if (d->hist_n && !(off = pld_malloc(d->hist_n * sizeof *off)))
    return PLD_ENOMEM;
  size_t pos = 0, k = 0;
  while (pos < d->hist_len && k < d->hist_n) {
    if (d->hist_len - pos < 16)
      break;
    uint64_t n = get_u64(d->hist + pos + 8);
    if (n > d->hist_len - pos - 16)
      break;
    off[k++] = pos;
    pos += 16 + (size_t)n;
  }
  if (k != d->hist_n || pos != d->hist_len) {
    pld_free(off);
    return PLD_EFORMAT;
  }
  pld_free(d->hist_off);
  d->hist_off = off;
  return PLD_SUCCESS;
}

int pld_dist_history_record(const pld_dist *d, size_t i, int64_t *time_s,
                            const char **text, size_t *len)
{
  if (!d || !time_s || !text || !len || i >= d->hist_n || !d->hist_off)
    return PLD_EINVAL;
  size_t pos = d->hist_off[i];
  *time_s = (int64_t)get_u64(d->hist + pos);
  *text = (const char *)d->hist + pos + 16;
  *len = (size_t)get_u64(d->hist + pos + 8);
  return PLD_SUCCESS;
}

int pld_dist_history_append(pld_dist *d, int64_t time_s, const char *text,
                            size_t len)
{
  if (!d || (!text && len) || len > HIST_TEXT_MAX || (len && memchr(text, 0, len)))
    return PLD_EINVAL;
  if (d->hist_len + 16 + len > HIST_BYTES_MAX)
    return PLD_ERANGE;
  unsigned char *h = pld_malloc(d->hist_len + 16 + len);
  size_t *off = pld_malloc((d->hist_n + 1) * sizeof *off);
  if (!h || !off) {
    pld_free(h);
    pld_free(off);
    return PLD_ENOMEM;
  }
  if (d->hist_n)
    memcpy(off, d->hist_off, d->hist_n * sizeof *off);
  off[d->hist_n] = d->hist_len;
  pld_free(d->hist_off);
  d->hist_off = off;
  if (d->hist_len)
    memcpy(h, d->hist, d->hist_len);
  put_u64(h + d->hist_len, (uint64_t)time_s);
  put_u64(h + d->hist_len + 8, (uint64_t)len);
  if (len)
    memcpy(h + d->hist_len + 16, text, len);
  pld_free(d->hist);
  d->hist = h;
  d->hist_len += 16 + len;
  d->hist_n++;
  return PLD_SUCCESS;
}

int pld_dist_history_copy(const pld_dist *src, pld_dist *dst)
{
  if (!src || !dst)
    return PLD_EINVAL;
  unsigned char *h = NULL;
  size_t *off = NULL;
  if (src->hist_len && !(h = pld_malloc(src->hist_len)))
    return PLD_ENOMEM;
  if (src->hist_n && !(off = pld_malloc(src->hist_n * sizeof *off))) {
    pld_free(h);
    return PLD_ENOMEM;
  }
  if (h)
    memcpy(h, src->hist, src->hist_len);
  if (off)
    memcpy(off, src->hist_off, src->hist_n * sizeof *off);
  pld_free(dst->hist);
  pld_free(dst->hist_off);
  dst->hist = h;
  dst->hist_off = off;
  dst->hist_len = src->hist_len;
  dst->hist_n = src->hist_n;
  return PLD_SUCCESS;
}

/* ------------------------------------------------------------------------ */
/* Files.                                                                    */

void pld_file_error_set(pld_file_error *err, int stage, int errnum,
                        const char *path)
{
  if (!err)
    return;
  err->stage = stage;
  err->errnum = errnum;
  snprintf(err->path, sizeof err->path, "%s", path ? path : "");
}

/* The directory part of `path` ("." when none), malloc'd by pld_malloc. */
static char *dir_of(const char *path)
{
  const char *slash = strrchr(path, '/');
  size_t dlen = slash ? (size_t)(slash - path) + (slash == path) : 0;
  char *dir = pld_malloc(dlen + 2);
  if (!dir)
    return NULL;
  if (dlen) {
    memcpy(dir, path, dlen);
    dir[dlen] = 0;
  } else
    strcpy(dir, ".");
  return dir;
}

/* May the symbolic link `link` (lstat'd in *lb) be followed to write its
 * target?  A link replaces whatever it points to, so it must not be one
 * another user could have planted or swapped: its owner is the caller or
 * root, and its directory is the caller's own or writable by its owner
 * alone (not sticky, not group- or other-writable: there others can create
 * or rename entries).  Returns 1, 0 (refuse), or -1 (errno: the directory
 * could not be inspected). */
static int link_trusted(const char *link, const struct stat *lb)
{
  uid_t me = geteuid();
  if (lb->st_uid != me && lb->st_uid != 0)
    return 0;
  char *dir = dir_of(link);
  if (!dir) {
    errno = ENOMEM;
    return -1;
  }
  struct stat ds;
  int r = stat(dir, &ds);
  pld_free(dir);
  if (r != 0)
    return -1;
  if (ds.st_uid != me && (ds.st_mode & (S_ISVTX | S_IWGRP | S_IWOTH)))
    return 0;
  return 1;
}

/* Every link on the way from `path` to its final target, checked by
 * link_trusted.  Returns PLD_SUCCESS, or a status with *err filled: the
 * untrusted link (PLD_EUNSUPPORTED, errnum EPERM), a dangling link or a
 * loop (PLD_EIO). */
static int links_trusted(const char *path, pld_file_error *err)
{
  size_t cap = strlen(path) + 1;
  char *cur = pld_malloc(cap);
  if (!cur)
    return PLD_ENOMEM;
  strcpy(cur, path);
  int st = PLD_SUCCESS;
  for (int hops = 0;; hops++) {
    struct stat lb;
    if (lstat(cur, &lb) != 0) {
      pld_file_error_set(err, PLD_FILE_STAGE_TARGET, errno, cur);
      st = PLD_EIO;
      break;
    }
    if (!S_ISLNK(lb.st_mode))
      break;
    int t = hops >= 40 ? -2 : link_trusted(cur, &lb);
    if (t == -1 && errno == ENOMEM) {
      st = PLD_ENOMEM;
      break;
    }
    if (t <= 0) {
      pld_file_error_set(err, PLD_FILE_STAGE_TARGET,
                         t == 0 ? EPERM : t == -2 ? ELOOP : errno, cur);
      st = t == 0 ? PLD_EUNSUPPORTED : PLD_EIO;
      break;
    }
    char buf[PATH_MAX];
    ssize_t n = readlink(cur, buf, sizeof buf - 1);
    if (n < 0) {
      pld_file_error_set(err, PLD_FILE_STAGE_TARGET, errno, cur);
      st = PLD_EIO;
      break;
    }
    buf[n] = 0;
    char *dir = buf[0] == '/' ? NULL : dir_of(cur);
    size_t need = (dir ? strlen(dir) + 1 : 0) + (size_t)n + 1;
    char *next = pld_malloc(need);
    if (!next || (buf[0] != '/' && !dir)) {
      pld_free(next);
      pld_free(dir);
      st = PLD_ENOMEM;
      break;
    }
    snprintf(next, need, "%s%s%s", dir ? dir : "", dir ? "/" : "", buf);
    pld_free(dir);
    pld_free(cur);
    cur = next;
  }
  pld_free(cur);
  return st;
}

/* Resolve the file a save or update replaces: `path` itself, or, when it is
 * a symbolic link, its final target (written through, so that the ledger
 * the link names is the one updated) -- provided no link on the way could
 * have been planted by another user (links_trusted; else PLD_EUNSUPPORTED,
 * errnum EPERM).  A dangling link is refused (ENOENT): creating a file at a
 * link's target is where planted links do harm.  *target is allocated
 * (pld_free).  *exists, *sb describe the target. */
int pld_file_resolve(const char *path, char **target, int *exists,
                     struct stat *sb, pld_file_error *err)
{
  struct stat lb;
  char *t;
  if (lstat(path, &lb) != 0) {
    if (errno != ENOENT) {
      pld_file_error_set(err, PLD_FILE_STAGE_TARGET, errno, path);
      return PLD_EIO;
    }
    *exists = 0;
    t = pld_malloc(strlen(path) + 1);
    if (!t)
      return PLD_ENOMEM;
    strcpy(t, path);
    *target = t;
    return PLD_SUCCESS;
  }
  if (S_ISLNK(lb.st_mode)) {
    int st = links_trusted(path, err);
    if (st)
      return st;
    char *r = realpath(path, NULL); /* malloc'd by libc */
    if (!r) {
      pld_file_error_set(err, PLD_FILE_STAGE_TARGET, errno, path);
      return PLD_EIO;
    }
    t = pld_malloc(strlen(r) + 1);
    if (!t) {
      free(r);
      return PLD_ENOMEM;
    }
    strcpy(t, r);
    free(r);
    if (stat(t, &lb) != 0) {
      pld_file_error_set(err, PLD_FILE_STAGE_TARGET, errno, t);
      pld_free(t);
      return PLD_EIO;
    }
  } else {
    t = pld_malloc(strlen(path) + 1);
    if (!t)
      return PLD_ENOMEM;
    strcpy(t, path);
  }
  if (!S_ISREG(lb.st_mode)) {
    pld_file_error_set(err, PLD_FILE_STAGE_TARGET, 0, t);
    pld_free(t);
    return PLD_EUNSUPPORTED;
  }
  *exists = 1;
  *sb = lb;
  *target = t;
  return PLD_SUCCESS;
}

/* Temporary files are named DIR/.BASE.p<pid>.<16 hex digits>.tmp: the pid
 * lets pld_file_clean_stale tell a dead writer's leftovers from a live
 * writer's file. */
static int stale_name(const char *name, const char *base, long *pid)
{
  size_t bl = strlen(base), nl = strlen(name);
  if (nl < bl + 2 + 2 + 1 + 16 + 4 || name[0] != '.' ||
      strncmp(name + 1, base, bl) != 0 || strncmp(name + 1 + bl, ".p", 2))
    return 0;
  const char *p = name + 1 + bl + 2;
  char *end;
  errno = 0;
  long v = strtol(p, &end, 10);
  if (end == p || errno || v <= 0 || *end != '.')
    return 0;
  end++;
  for (int i = 0; i < 16; i++)
    if (!((end[i] >= '0' && end[i] <= '9') || (end[i] >= 'a' && end[i] <= 'f')))
      return 0;
  if (strcmp(end + 16, ".tmp") != 0)
    return 0;
  *pid = v;
  return 1;
}

void pld_file_clean_stale(const char *target)
{
  /* best effort, and no allocation of ours: a failure here must not fail
   * the update (nor hide an allocation failure from the sweep tests) */
  char dir[PATH_MAX];
  const char *slash = strrchr(target, '/');
  size_t dlen = slash ? (size_t)(slash - target) + (slash == target) : 0;
  if (dlen >= sizeof dir)
    return;
  if (dlen) {
    memcpy(dir, target, dlen);
    dir[dlen] = 0;
  } else
    strcpy(dir, ".");
  const char *base = slash ? slash + 1 : target;
  DIR *dp = opendir(dir);
  if (dp) {
    int dfd = dirfd(dp);
    uid_t me = geteuid();
    struct dirent *de;
    while ((de = readdir(dp)) != NULL) {
      long pid;
      struct stat sb;
      if (!stale_name(de->d_name, base, &pid) ||
          fstatat(dfd, de->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0 ||
          !S_ISREG(sb.st_mode) || sb.st_uid != me)
        continue;
      /* ESRCH: no such process, so its writer is dead (EPERM: alive, and
       * another user's) */
      if (kill((pid_t)pid, 0) != 0 && errno == ESRCH)
        (void)unlinkat(dfd, de->d_name, 0);
    }
    closedir(dp);
  }
}

static int write_all(int fd, const unsigned char *p, size_t n)
{
  while (n) {
    ssize_t w = write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR)
        continue;
      return -1;
    }
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

/* Replace `target` (resolved, see pld_file_resolve) by buf[0..len). */
int pld_file_replace(const char *target, int exists, const struct stat *old,
                     const unsigned char *buf, size_t len, pld_file_error *err)
{
  static atomic_uint counter;
  const char *slash = strrchr(target, '/');
  size_t dlen = slash ? (size_t)(slash - target) + 1 : 0;
  const char *base = slash ? slash + 1 : target;
  size_t tlen = strlen(target) + 2 + 1 + 2 + 20 + 1 + 16 + 4 + 1;
  char *tmp = pld_malloc(tlen), *dir = pld_malloc(dlen + 2);
  if (!tmp || !dir) {
    pld_free(tmp);
    pld_free(dir);
    return PLD_ENOMEM;
  }
  if (dlen) {
    memcpy(dir, target, dlen);
    dir[dlen] = 0;
  } else
    strcpy(dir, ".");
  int fd = -1, e = 0;
  /* a unique name: O_CREAT | O_EXCL fails on any existing name, links
   * included, so nothing planted there is ever opened or followed */
  for (int tries = 0; tries < 100 && fd < 0; tries++) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t x = ((uint64_t)getpid() << 32) ^ (uint64_t)ts.tv_nsec ^
                 ((uint64_t)atomic_fetch_add(&counter, 1) << 20) ^
                 (uint64_t)(uintptr_t)&ts;
    x *= 0x9e3779b97f4a7c15ull;
    snprintf(tmp, tlen, "%.*s.%s.p%ld.%016llx.tmp", (int)dlen, target, base,
             (long)getpid(), (unsigned long long)x);
    /* a new file gets 0666 less the umask, as any file the caller creates;
     * a replaced one starts private and gets the old mode below */
    fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
              exists ? 0600 : 0666);
    if (fd < 0 && errno != EEXIST)
      break;
  }
  int st = PLD_SUCCESS, stage = 0;
  if (fd < 0) {
    e = errno;
    stage = PLD_FILE_STAGE_CREATE;
  } else {
    if (write_all(fd, buf, len) != 0)
      stage = PLD_FILE_STAGE_WRITE;
    else if (fsync(fd) != 0)
      stage = PLD_FILE_STAGE_SYNC;
    else if (exists) {
      /* the owner where permitted (root, or a group the caller is in) */
      if (fchown(fd, old->st_uid, old->st_gid) != 0)
        (void)!fchown(fd, (uid_t)-1, old->st_gid);
      if (fchmod(fd, old->st_mode & 07777) != 0)
        stage = PLD_FILE_STAGE_WRITE;
    }
    if (stage)
      e = errno;
    if (close(fd) != 0 && !stage) {
      e = errno;
      stage = PLD_FILE_STAGE_WRITE;
    }
    if (!stage && rename(tmp, target) != 0) {
      e = errno;
      stage = PLD_FILE_STAGE_RENAME;
    }
    if (stage)
      unlink(tmp);
  }
  if (stage) {
    /* every failure so far concerns the temporary file: name it */
    pld_file_error_set(err, stage, e, tmp);
    st = PLD_EIO;
  } else {
    /* the rename itself made durable */
    int dfd = open(dir, O_RDONLY | O_CLOEXEC
#ifdef O_DIRECTORY
                            | O_DIRECTORY
#endif
    );
    if (dfd < 0 || (pld_fsync_dir(dfd) != 0 && errno != EINVAL)) {
      /* the new file is in place: booked, but not known to be durable */
      e = errno;
      pld_file_error_set(err, PLD_FILE_STAGE_SYNC_DIR, e, dir);
      st = PLD_EDURABLE;
    }
    if (dfd >= 0)
      close(dfd);
  }
  pld_free(tmp);
  pld_free(dir);
  if (st)
    errno = e; /* the caller may report why */
  return st;
}

int pld_dist_save_report(const pld_dist *d, const char *path,
                         pld_file_error *err)
{
  if (!d || !path || !*path)
    return PLD_EINVAL;
  unsigned char *buf;
  size_t len;
  int st = pld_dist_serialize(d, &buf, &len);
  if (st)
    return st;
  char *target = NULL;
  int exists = 0;
  struct stat sb;
  st = pld_file_resolve(path, &target, &exists, &sb, err);
  if (!st)
    st = pld_file_replace(target, exists, &sb, buf, len, err);
  pld_free(target);
  pld_free(buf);
  return st;
}

int pld_dist_save(const pld_dist *d, const char *path)
{
  return pld_dist_save_report(d, path, NULL);
}

struct fctx {
  int fd;
};

static int fetch_fd(void *ctx, uint64_t at, size_t n, unsigned char *out)
{
  int fd = ((struct fctx *)ctx)->fd;
  while (n) {
    ssize_t r = pread(fd, out, n, (off_t)at);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      return r == 0 ? PLD_EFORMAT : PLD_EIO; /* shrank under us */
    out += r;
    n -= (size_t)r;
    at += (uint64_t)r;
  }
  return PLD_SUCCESS;
}

int pld_dist_load_internal(const char *path, size_t max_grid, pld_dist **out)
{
  /* O_NONBLOCK: opening a FIFO must not block; it is refused below */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return PLD_EIO;
  struct stat sb;
  int st = PLD_SUCCESS;
  if (fstat(fd, &sb) != 0)
    st = PLD_EIO;
  else if (!S_ISREG(sb.st_mode))
    st = PLD_EFORMAT; /* not a file at all */
  uint32_t ver;
  struct fctx c = {fd};
  /* every declared size against the file's size and the caps, before a
   * byte of the arrays is allocated or read */
  if (!st)
    st = check_layout(fetch_fd, &c, (uint64_t)sb.st_size, max_grid, &ver);
  unsigned char *buf = NULL;
  if (!st && !(buf = pld_malloc((size_t)sb.st_size)))
    st = PLD_ENOMEM;
  if (!st)
    st = fetch_fd(&c, 0, (size_t)sb.st_size, buf);
  close(fd);
  if (!st)
    st = deserialize(buf, (size_t)sb.st_size, max_grid, out);
  pld_free(buf);
  return st;
}

int pld_dist_load(const char *path, pld_dist **out)
{
  pld_detail_clear();
  if (!path || !out)
    return PLD_EINVAL;
  return pld_dist_load_internal(path, LOAD_DEFAULT_CAP, out);
}

int pld_dist_load_capped(const char *path, size_t max_grid, pld_dist **out)
{
  pld_detail_clear();
  if (!path || !out || max_grid < 1 || max_grid > (size_t)NMAX)
    return PLD_EINVAL;
  return pld_dist_load_internal(path, max_grid, out);
}
