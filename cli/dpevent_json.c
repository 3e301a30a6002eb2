/* pldkit CLI: --events-json FILE -- dp_accounting's serialized DpEvent tree
 * (JSON of DpEvent.to_named_tuple(): objects with "class_name" and the
 * fields, or json.dumps' lists [module_name, class_name, values...]) read
 * with jansson into a pld_dpevent tree; the library translates it
 * (pld_event_from_dpevent, catalogue/dpevent.c).  No accounting here. */
#include "dpevent_json.h"
#include "text.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <pldkit/event.h>

#define MAX_DEPTH 200

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
  if (err == NULL || errlen == 0)
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
  for (char *p = err; *p; p++)
    if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
      *p = '?';
}

static void free_event(pld_dpevent *e)
{
  for (size_t i = 0; i < e->n_fields; i++) {
    pld_dpevent_field *f = (pld_dpevent_field *)&e->fields[i];
    free((void *)f->numbers);
    if (f->events) {
      size_t n = f->kind == PLD_DPEVENT_EVENT ? 1 : f->n;
      for (size_t k = 0; k < n; k++)
        free_event((pld_dpevent *)&f->events[k]);
      free((void *)f->events);
    }
  }
  free((void *)e->fields);
  e->fields = NULL;
  e->n_fields = 0;
}

static int is_list_form(const json_t *v)
{
  return json_is_array(v) && json_array_size(v) >= 2 &&
         json_is_string(json_array_get(v, 0)) &&
         json_is_string(json_array_get(v, 1)) &&
         pld_dpevent_field_name(json_string_value(json_array_get(v, 1)), 0) !=
             NULL;
}

static int is_list_form_class(const json_t *v)
{
  /* a list form of a class without fields (NoOpDpEvent) */
  return json_is_array(v) && json_array_size(v) == 2 &&
         json_is_string(json_array_get(v, 0)) &&
         json_is_string(json_array_get(v, 1));
}

static int read_event(const json_t *v, pld_dpevent *e, const char *where,
                      int depth, char *err, size_t errlen);

static int read_value(const char *name, const json_t *v, pld_dpevent_field *f,
                      const char *where, int depth, char *err, size_t errlen)
{
  char here[512];
  f->name = name;
  snprintf(here, sizeof here, "%s.%s", where, name);
  if (strcmp(name, "event") == 0) {
    pld_dpevent *one = calloc(1, sizeof *one);
    if (one == NULL) {
      set_err(err, errlen, "%s", pld_strerror(PLD_ENOMEM));
      return CLI_EFAIL;
    }
    f->kind = PLD_DPEVENT_EVENT;
    f->events = one;
    f->n = 1;
    return read_event(v, one, here, depth + 1, err, errlen);
  }
  if (strcmp(name, "events") == 0) {
    if (!json_is_array(v) || is_list_form(v)) {
      set_err(err, errlen, "%s: expected a list of events", here);
      return CLI_EUSAGE;
    }
    size_t n = json_array_size(v);
    pld_dpevent *list = calloc(n ? n : 1, sizeof *list);
    if (list == NULL) {
      set_err(err, errlen, "%s", pld_strerror(PLD_ENOMEM));
      return CLI_EFAIL;
    }
    f->kind = PLD_DPEVENT_EVENTS;
    f->events = list;
    f->n = n;
    for (size_t i = 0; i < n; i++) {
      char h[600];
      snprintf(h, sizeof h, "%s[%zu]", here, i);
      int rc = read_event(json_array_get(v, i), &list[i], h, depth + 1, err,
                          errlen);
      if (rc != CLI_OK)
        return rc;
    }
    return CLI_OK;
  }
  if (json_is_number(v)) {
    f->kind = PLD_DPEVENT_NUMBER;
    f->number = json_number_value(v);
  } else if (json_is_string(v)) {
    f->kind = PLD_DPEVENT_STRING;
    f->string = json_string_value(v);
  } else if (json_is_null(v)) {
    f->kind = PLD_DPEVENT_NULL;
  } else if (json_is_array(v)) {
    size_t n = json_array_size(v);
    double *x = calloc(n ? n : 1, sizeof *x);
    if (x == NULL) {
      set_err(err, errlen, "%s", pld_strerror(PLD_ENOMEM));
      return CLI_EFAIL;
    }
    f->numbers = x;
    f->n = n;
    f->kind = PLD_DPEVENT_NUMBERS;
    for (size_t i = 0; i < n; i++) {
      const json_t *a = json_array_get(v, i);
      if (!json_is_number(a))
        f->kind = PLD_DPEVENT_OTHER;
      else
        x[i] = json_number_value(a);
    }
  } else {
    f->kind = PLD_DPEVENT_OTHER;
  }
  return CLI_OK;
}

static int read_event(const json_t *v, pld_dpevent *e, const char *where,
                      int depth, char *err, size_t errlen)
{
  if (depth > MAX_DEPTH) {
    set_err(err, errlen, "%s: the event tree is nested more than %d deep",
            where, MAX_DEPTH);
    return CLI_EUSAGE;
  }
  if (json_is_object(v)) {
    const json_t *cn = json_object_get(v, "class_name");
    if (!json_is_string(cn)) {
      set_err(err, errlen, "%s: an event object needs a \"class_name\" "
              "string (the form of DpEvent.to_named_tuple())", where);
      return CLI_EUSAGE;
    }
    e->class_name = json_string_value(cn);
    size_t n = json_object_size(v);
    pld_dpevent_field *fs = calloc(n ? n : 1, sizeof *fs);
    if (fs == NULL) {
      set_err(err, errlen, "%s", pld_strerror(PLD_ENOMEM));
      return CLI_EFAIL;
    }
    e->fields = fs;
    const char *key;
    json_t *val;
    json_object_foreach((json_t *)v, key, val) {
      if (strcmp(key, "class_name") == 0 || strcmp(key, "module_name") == 0)
        continue;
      int rc = read_value(key, val, &fs[e->n_fields++], where, depth, err,
                          errlen);
      if (rc != CLI_OK)
        return rc;
    }
    return CLI_OK;
  }
  if (is_list_form(v) || is_list_form_class(v)) {
    e->class_name = json_string_value(json_array_get(v, 1));
    size_t n = json_array_size(v) - 2;
    for (size_t i = 0; i < n; i++)
      if (pld_dpevent_field_name(e->class_name, i) == NULL) {
        set_err(err, errlen, "%s: %.80s takes fewer than %zu fields", where,
                e->class_name, n);
        return CLI_EUSAGE;
      }
    pld_dpevent_field *fs = calloc(n ? n : 1, sizeof *fs);
    if (fs == NULL) {
      set_err(err, errlen, "%s", pld_strerror(PLD_ENOMEM));
      return CLI_EFAIL;
    }
    e->fields = fs;
    for (size_t i = 0; i < n; i++) {
      int rc = read_value(pld_dpevent_field_name(e->class_name, i),
                          json_array_get(v, i + 2), &fs[e->n_fields++],
                          where, depth, err, errlen);
      if (rc != CLI_OK)
        return rc;
    }
    return CLI_OK;
  }
  set_err(err, errlen, "%s: expected an event (an object with \"class_name\" "
          "or a list [module_name, class_name, fields...])", where);
  return CLI_EUSAGE;
}

int pld_cli_events_json_load(const char *path, int relation, pld_event **out,
                             int *nonprivate, char *err, size_t errlen)
{
  FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
  if (f == NULL) {
    set_err(err, errlen, "--events-json: cannot open '%.200s': %s", path,
            strerror(errno));
    return CLI_EUSAGE;
  }
  json_error_t je;
  json_t *root = json_loadf(f, JSON_REJECT_DUPLICATES, &je);
  if (f != stdin)
    fclose(f);
  if (root == NULL) {
    set_err(err, errlen, "--events-json '%.200s': not valid JSON: %s "
            "(line %d, column %d)", path, je.text, je.line, je.column);
    return CLI_EUSAGE;
  }
  pld_dpevent tree;
  memset(&tree, 0, sizeof tree);
  char msg[800];
  int rc = read_event(root, &tree, "event", 0, msg, sizeof msg);
  if (rc == CLI_OK) {
    int st = pld_event_from_dpevent(&tree, relation, 1, out, nonprivate);
    if (st != PLD_SUCCESS) {
      snprintf(msg, sizeof msg, "%s", pld_error_detail());
      rc = cli_rc_of_status(st);
    }
  }
  /* each event is built on its own when answered (20000 Gaussians take
   * 25 s, 2000 distinct Laplaces 12 s): a tree of a million leaves would
   * run for many minutes, so it is refused up front */
  pld_event_summary sum;
  sum.size = sizeof sum;
  if (rc == CLI_OK && pld_event_summarize(*out, &sum) == PLD_SUCCESS &&
      sum.events > PLD_CLI_EVENTS_JSON_MAX) {
    snprintf(msg, sizeof msg, "the DpEvent tree holds %zu events (leaves, "
             "a SelfComposedDpEvent counting once), at most %d are "
             "accepted: compose repeated events with SelfComposedDpEvent",
             sum.events, PLD_CLI_EVENTS_JSON_MAX);
    pld_event_free(*out);
    *out = NULL;
    rc = CLI_EUSAGE;
  }
  if (rc != CLI_OK)
    set_err(err, errlen, "--events-json '%.200s': %s", path, msg);
  free_event(&tree);
  json_decref(root);
  return rc;
}
