/* pldkit CLI: the merge planner's JSON configuration -- see config.h. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

/* Files above this size are refused (a config is a few hundred bytes). */
#define CONFIG_MAX_BYTES (1u << 20)

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
  if (err == NULL || errlen == 0)
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
  for (char *p = err; *p; p++) /* keep it to one line */
    if ((unsigned char)*p < 0x20)
      *p = ' ';
}

/* Copy a JSON key into buf for a message: printable ASCII only ('?' for
 * anything else), cut with "..." when long.  size >= 8. */
static const char *safe_key(char *buf, size_t size, const char *k)
{
  size_t j = 0;
  const unsigned char *p = (const unsigned char *)k;
  for (; *p && j + 4 < size; p++)
    buf[j++] = (*p >= 0x20 && *p < 0x7f) ? (char)*p : '?';
  if (*p)
    memcpy(buf + j, "...", 3), j += 3;
  buf[j] = '\0';
  return buf;
}

static const char *type_name(const json_t *v)
{
  switch (json_typeof(v)) {
  case JSON_OBJECT: return "an object";
  case JSON_ARRAY: return "an array";
  case JSON_STRING: return "a string";
  case JSON_INTEGER:
  case JSON_REAL: return "a number";
  case JSON_TRUE:
  case JSON_FALSE: return "a boolean";
  default: return "null";
  }
}

/* A finite number; path names the key. */
static int get_number(const json_t *v, const char *path, double *x, char *err,
                      size_t errlen)
{
  if (!json_is_number(v)) {
    set_err(err, errlen, "%s: expected a number, got %s", path, type_name(v));
    return -1;
  }
  double d = json_number_value(v);
  if (!isfinite(d)) {
    set_err(err, errlen, "%s: expected a finite number", path);
    return -1;
  }
  *x = d;
  return 0;
}

/* An integer >= lo and <= hi (a real with an integral value is accepted). */
static int get_uint(const json_t *v, const char *path, double lo, double hi,
                    unsigned long long *x, char *err, size_t errlen)
{
  double d;
  if (json_is_integer(v)) {
    json_int_t i = json_integer_value(v);
    d = (double)i;
    if (i < 0) {
      set_err(err, errlen, "%s: must be an integer >= %.0f, got %lld", path,
              lo, (long long)i);
      return -1;
    }
    if ((double)i < lo || (double)i > hi) {
      set_err(err, errlen, "%s: must be an integer in [%.0f, %.0f], got %lld",
              path, lo, hi, (long long)i);
      return -1;
    }
    *x = (unsigned long long)i;
    return 0;
  }
  if (!json_is_real(v)) {
    set_err(err, errlen, "%s: expected an integer, got %s", path,
            type_name(v));
    return -1;
  }
  d = json_real_value(v);
  if (!isfinite(d) || d != floor(d)) {
    set_err(err, errlen, "%s: expected an integer, got %.17g", path, d);
    return -1;
  }
  if (d < lo || d > hi) {
    set_err(err, errlen, "%s: must be an integer in [%.0f, %.0f], got %.17g",
            path, lo, hi, d);
    return -1;
  }
  *x = (unsigned long long)d;
  return 0;
}

static int parse_run(const json_t *o, size_t idx, pld_merge_run *r, char *err,
                     size_t errlen)
{
  char path[96], kb[48];
  if (!json_is_object(o)) {
    set_err(err, errlen, "runs[%zu]: expected an object, got %s", idx,
            type_name(o));
    return -1;
  }
  const char *key;
  json_t *v;
  json_object_foreach((json_t *)o, key, v) {
    if (strcmp(key, "q") && strcmp(key, "sigma") && strcmp(key, "clip") &&
        strcmp(key, "lr") && strcmp(key, "steps")) {
      set_err(err, errlen,
              "runs[%zu].%s: unknown key (expected q, sigma, clip, lr, steps)",
              idx, safe_key(kb, sizeof kb, key));
      return -1;
    }
  }
  static const char *const names[] = {"q", "sigma", "clip", "lr"};
  double *dst[] = {&r->q, &r->sigma, &r->clip, &r->lr};
  for (size_t k = 0; k < 4; k++) {
    snprintf(path, sizeof path, "runs[%zu].%s", idx, names[k]);
    json_t *x = json_object_get(o, names[k]);
    if (x == NULL) {
      set_err(err, errlen, "%s: missing key", path);
      return -1;
    }
    if (get_number(x, path, dst[k], err, errlen))
      return -1;
    if (k == 0 && !(*dst[k] > 0.0 && *dst[k] <= 1.0)) {
      set_err(err, errlen, "%s: must be in (0, 1], got %.17g", path, *dst[k]);
      return -1;
    }
    if (k > 0 && !(*dst[k] > 0.0)) {
      set_err(err, errlen, "%s: must be > 0, got %.17g", path, *dst[k]);
      return -1;
    }
  }
  /* the linear combination's shift lr clip and noise lr sigma clip, and
   * their squares, must stay normal doubles (config.h) */
  const double R = PLD_CLI_CONFIG_SCALE_RANGE;
  const double prod[4] = {r->lr, r->clip, r->lr * r->clip,
                          r->lr * r->sigma * r->clip};
  static const char *const what[4] = {
      "lr", "clip", "lr and clip: lr * clip (the merged model's shift)",
      "lr, sigma and clip: lr * sigma * clip (the merged model's noise)"};
  for (size_t k = 0; k < 4; k++)
    if (!(prod[k] >= 1.0 / R && prod[k] <= R)) {
      set_err(err, errlen, "runs[%zu].%s = %.17g must be in [%g, %g] (only "
              "ratios matter: rescale lr and clip together)", idx, what[k],
              prod[k], 1.0 / R, R);
      return -1;
    }
  snprintf(path, sizeof path, "runs[%zu].steps", idx);
  json_t *s = json_object_get(o, "steps");
  if (s == NULL) {
    set_err(err, errlen, "%s: missing key", path);
    return -1;
  }
  unsigned long long st;
  if (get_uint(s, path, 1.0, 9007199254740992.0, &st, err, errlen))
    return -1;
  r->steps = (uint64_t)st;
  return 0;
}

int pld_cli_config_parse(const char *text, size_t len,
                         struct pld_cli_config *out, char *err, size_t errlen)
{
  struct pld_cli_config c;
  memset(&c, 0, sizeof c);
  if (out != NULL)
    memset(out, 0, sizeof *out);
  if (err != NULL && errlen > 0)
    err[0] = '\0';
  if (out == NULL || (text == NULL && len > 0)) {
    set_err(err, errlen, "internal error: no config");
    return -1;
  }
  json_error_t je;
  json_t *root = json_loadb(text ? text : "", len, JSON_REJECT_DUPLICATES, &je);
  if (root == NULL) {
    set_err(err, errlen, "not valid JSON: %s (line %d, column %d)", je.text,
            je.line, je.column);
    return -1;
  }
  int rc = -1;
  char kb[48];
  if (!json_is_object(root)) {
    set_err(err, errlen, "top level: expected an object, got %s",
            type_name(root));
    goto done;
  }
  const char *key;
  json_t *v;
  json_object_foreach(root, key, v) {
    if (strcmp(key, "delta") && strcmp(key, "epsilon") &&
        strcmp(key, "resolution") && strcmp(key, "weights_grid") &&
        strcmp(key, "runs")) {
      set_err(err, errlen,
              "%s: unknown key (expected delta, runs, epsilon, resolution)",
              safe_key(kb, sizeof kb, key));
      goto done;
    }
  }
  v = json_object_get(root, "delta");
  if (v == NULL) {
    set_err(err, errlen, "delta: missing key");
    goto done;
  }
  if (get_number(v, "delta", &c.delta, err, errlen))
    goto done;
  if (!(c.delta >= PLD_CLI_CONFIG_MIN_DELTA && c.delta < 1.0)) {
    set_err(err, errlen, "delta: must be in [%g, 1), got %.17g",
            PLD_CLI_CONFIG_MIN_DELTA, c.delta);
    goto done;
  }
  v = json_object_get(root, "epsilon");
  if (v != NULL) {
    if (get_number(v, "epsilon", &c.epsilon, err, errlen))
      goto done;
    if (!(c.epsilon > 0.0)) {
      set_err(err, errlen, "epsilon: must be > 0, got %.17g", c.epsilon);
      goto done;
    }
    c.has_epsilon = 1;
  }
  /* "resolution", the library's name for the simplex grid (pldkit.h);
   * "weights_grid" is its former name, still read, but not both at once */
  const char *rkey = "resolution";
  v = json_object_get(root, rkey);
  if (json_object_get(root, "weights_grid") != NULL) {
    if (v != NULL) {
      set_err(err, errlen, "weights_grid: the former name of resolution; "
              "give only one of them");
      goto done;
    }
    rkey = "weights_grid";
    v = json_object_get(root, rkey);
  }
  if (v != NULL) {
    unsigned long long g;
    if (get_uint(v, rkey, 1.0, (double)PLD_CLI_CONFIG_MAX_GRID, &g, err,
                 errlen))
      goto done;
    c.resolution = (unsigned)g;
  }
  v = json_object_get(root, "runs");
  if (v == NULL) {
    set_err(err, errlen, "runs: missing key");
    goto done;
  }
  if (!json_is_array(v)) {
    set_err(err, errlen, "runs: expected an array, got %s", type_name(v));
    goto done;
  }
  size_t n = json_array_size(v);
  if (n == 0) {
    set_err(err, errlen, "runs: empty (need at least one run)");
    goto done;
  }
  if (n > PLD_MERGE_MAX_RUNS) {
    set_err(err, errlen,
            "runs: %zu runs, at most %d are supported (the LC surrogate has "
            "2^N mixture components)",
            n, PLD_MERGE_MAX_RUNS);
    goto done;
  }
  for (size_t i = 0; i < n; i++)
    if (parse_run(json_array_get(v, i), i, &c.runs[i], err, errlen))
      goto done;
  c.n = n;
  *out = c;
  rc = 0;
done:
  json_decref(root);
  return rc;
}

int pld_cli_config_load(const char *path, struct pld_cli_config *out,
                        char *err, size_t errlen)
{
  if (out != NULL)
    memset(out, 0, sizeof *out);
  FILE *f = fopen(path, "rb");
  if (f == NULL) {
    set_err(err, errlen, "cannot open config file '%s': %s", path,
            strerror(errno));
    return -1;
  }
  static char buf[CONFIG_MAX_BYTES + 1];
  size_t len = fread(buf, 1, sizeof buf, f);
  int bad = ferror(f);
  fclose(f);
  if (bad) {
    set_err(err, errlen, "cannot read config file '%s'", path);
    return -1;
  }
  if (len > CONFIG_MAX_BYTES) {
    set_err(err, errlen, "config file '%s' is larger than %u bytes", path,
            CONFIG_MAX_BYTES);
    return -1;
  }
  return pld_cli_config_parse(buf, len, out, err, errlen);
}
