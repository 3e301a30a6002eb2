/* pldkit: PLD files (format in include/pldkit/pld.h).
 *
 * Explicit little-endian encoding byte by byte, so files move between
 * machines; everything read is validated before it is trusted, because a
 * ledger file is input like any other (and is fuzzed as such).
 */
#include <math.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "alloc.h"
#include "internal.h"

static const unsigned char MAGIC[8] = {'P', 'L', 'D', 'K', 'I', 'T', 'v', 0};
#define FILE_VERSION 1u

static uint64_t fnv1a(const unsigned char *p, size_t n)
{
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) {
    h ^= p[i];
    h *= 1099511628211ull;
  }
  return h;
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

int pld_dist_serialize(const pld_dist *d, unsigned char **buf, size_t *len)
{
  if (!d || !buf || !len)
    return PLD_EINVAL;
  size_t total = HEADER + 8;
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
  put_u64(q, fnv1a(p, (size_t)(q - p)));
  *buf = p;
  *len = total;
  return PLD_SUCCESS;
}

void pld_buffer_free(unsigned char *buf) { pld_free(buf); }

int pld_dist_deserialize(const unsigned char *buf, size_t len, pld_dist **out)
{
  if (!buf || !out)
    return PLD_EINVAL;
  if (len < HEADER + 8 || memcmp(buf, MAGIC, 8))
    return PLD_EFORMAT;
  uint32_t ver = 0, flags = 0;
  for (int i = 0; i < 4; i++) {
    ver |= (uint32_t)buf[8 + i] << (8 * i);
    flags |= (uint32_t)buf[12 + i] << (8 * i);
  }
  if (ver != FILE_VERSION)
    return PLD_EVERSION;
  if (get_u64(buf + len - 8) != fnv1a(buf, len - 8))
    return PLD_EFORMAT;
  if (flags & ~1u)
    return PLD_EFORMAT;
  double grid = get_f64(buf + 16);
  uint64_t fft = get_u64(buf + 24);
  if (!isfinite(grid) || !(grid >= 1e-9 && grid <= 1e3) || fft > ((uint64_t)1 << 40))
    return PLD_EFORMAT;
  struct pld_dist *d;
  int st = pld_dist_new(grid, &d);
  if (st)
    return st;
  d->symmetric = (int)(flags & 1u);
  d->fft_size = (size_t)fft;
  size_t pos = HEADER, end = len - 8;
  for (int k = 0; k < 4 && !st; k++) {
    if (end - pos < MEMBER) {
      st = PLD_EFORMAT;
      break;
    }
    int64_t off = (int64_t)get_u64(buf + pos);
    uint64_t n = get_u64(buf + pos + 8);
    double inf = get_f64(buf + pos + 16), rel = get_f64(buf + pos + 24),
           abs_ = get_f64(buf + pos + 32);
    pos += MEMBER;
    if (n < 1 || n > ((uint64_t)1 << 31)) {
      st = n < 1 ? PLD_EFORMAT : PLD_ERANGE;
      break;
    }
    if ((end - pos) / 8 < n || !(inf >= 0.0 && inf <= 1.0 + 1e-9) ||
        !(rel >= 0.0 && rel < 1.0) || !(abs_ >= 0.0 && abs_ <= 1.0) ||
        off < -((int64_t)1 << 52) || off > ((int64_t)1 << 52)) {
      st = PLD_EFORMAT;
      break;
    }
    struct pld_pmf *m = &d->p[ORDER[k][0]][ORDER[k][1]];
    if ((st = pld_pmf_alloc(m, off, (size_t)n)))
      break;
    m->inf = inf;
    m->rel = rel;
    m->abs = abs_;
    double sum = inf;
    for (size_t j = 0; j < (size_t)n; j++, pos += 8) {
      double v = get_f64(buf + pos);
      if (!(v >= 0.0 && v <= 1.0 + 1e-9)) {
        st = PLD_EFORMAT;
        break;
      }
      m->m[j] = v;
      sum += v;
    }
    if (!st && !(sum <= 1.0 + 1e-6))
      st = PLD_EFORMAT; /* not a (sub-)probability distribution */
  }
  if (!st && pos != end)
    st = PLD_EFORMAT; /* trailing bytes */
  if (st) {
    pld_dist_free(d);
    return st;
  }
  *out = d;
  return PLD_SUCCESS;
}

/* Written to PATH.tmp and renamed over PATH: a crash or a full disk never
 * leaves a running ledger half written (rename is atomic on POSIX). */
int pld_dist_save(const pld_dist *d, const char *path)
{
  if (!d || !path)
    return PLD_EINVAL;
  size_t plen = strlen(path);
  char *tmp = pld_malloc(plen + 5);
  if (!tmp)
    return PLD_ENOMEM;
  memcpy(tmp, path, plen);
  memcpy(tmp + plen, ".tmp", 5);
  unsigned char *buf;
  size_t len;
  int st = pld_dist_serialize(d, &buf, &len);
  if (st) {
    pld_free(tmp);
    return st;
  }
  FILE *f = fopen(tmp, "wb");
  if (!f) {
    pld_free(buf);
    pld_free(tmp);
    return PLD_EIO;
  }
  size_t w = fwrite(buf, 1, len, f);
  int bad = (w != len) | (fclose(f) != 0);
  pld_free(buf);
  if (!bad && rename(tmp, path) != 0)
    bad = 1;
  if (bad) {
    int e = errno;
    remove(tmp);
    errno = e; /* the caller may report why */
  }
  pld_free(tmp);
  return bad ? PLD_EIO : PLD_SUCCESS;
}

int pld_dist_load(const char *path, pld_dist **out)
{
  if (!path || !out)
    return PLD_EINVAL;
  FILE *f = fopen(path, "rb");
  if (!f)
    return PLD_EIO;
  int st = PLD_SUCCESS;
  long sz = -1;
  if (fseek(f, 0, SEEK_END) == 0)
    sz = ftell(f);
  if (sz < 0 || fseek(f, 0, SEEK_SET) != 0) {
    fclose(f);
    return PLD_EIO;
  }
  if ((unsigned long)sz > ((unsigned long)1 << 36)) { /* 64 GiB: absurd */
    fclose(f);
    return PLD_ERANGE;
  }
  unsigned char *buf = pld_malloc((size_t)sz);
  if (!buf) {
    fclose(f);
    return PLD_ENOMEM;
  }
  if (fread(buf, 1, (size_t)sz, f) != (size_t)sz)
    st = PLD_EIO;
  fclose(f);
  if (!st)
    st = pld_dist_deserialize(buf, (size_t)sz, out);
  pld_free(buf);
  return st;
}
