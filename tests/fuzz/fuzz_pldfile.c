/* Fuzz target: the PLD file reader.  Any input must either be refused with
 * a status or give a PLD whose queries work and that serialises back to the
 * same bytes. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <pldkit/pldkit.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Random mutations would almost always break the checksum and stop at it;
 * recomputing it lets the fuzzer reach the parser (the checksum check itself
 * is covered by tests/test_file.c). */
static void fix_checksum(uint8_t *p, size_t n)
{
  if (n < 8)
    return;
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i + 8 < n; i++) {
    h ^= p[i];
    h *= 1099511628211ull;
  }
  for (int i = 0; i < 8; i++)
    p[n - 8 + i] = (uint8_t)(h >> (8 * i));
}

int LLVMFuzzerTestOneInput(const uint8_t *raw, size_t size)
{
  uint8_t *data = malloc(size ? size : 1);
  if (!data)
    return 0;
  memcpy(data, raw, size);
  fix_checksum(data, size);
  pld_dist *d = NULL;
  if (pld_dist_deserialize(data, size, &d) != PLD_SUCCESS) {
    free(data);
    return 0;
  }
  pld_bound b;
  double e[3] = {0.0, 1.0, 10.0};
  pld_bound c[3];
  if (pld_dist_delta(d, 0.5, &b) || pld_dist_epsilon(d, 1e-5, &b) ||
      pld_dist_curve(d, 3, e, c))
    abort(); /* a PLD that loaded must answer */
  if (!(b.lower <= b.upper))
    abort();
  unsigned char *buf = NULL;
  size_t len = 0;
  if (pld_dist_serialize(d, &buf, &len))
    abort(); /* whatever loads can be saved (one set of checks) */
  if (size > 8 && data[8] == 2) {
    if (len != size || memcmp(buf, data, size))
      abort(); /* round trip of the current format must be exact */
  } else {
    /* version 1 is rewritten as version 2 (empty history), which must
     * itself round-trip exactly */
    pld_dist *d2 = NULL;
    unsigned char *buf2 = NULL;
    size_t len2 = 0;
    if (pld_dist_deserialize(buf, len, &d2) ||
        pld_dist_serialize(d2, &buf2, &len2) || len2 != len ||
        memcmp(buf, buf2, len) || len != size + 16)
      abort();
    pld_buffer_free(buf2);
    pld_dist_free(d2);
  }
  pld_buffer_free(buf);
  pld_dist_free(d);
  free(data);
  return 0;
}
