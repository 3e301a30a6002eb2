/* pldkit catalogue: the event tree's layout (private; <pldkit/event.h> has
 * the contract).  events_parse.c parses and frees trees, tree.c copies,
 * formats and fills them, build.c turns them into accountants and RDP
 * curves. */
#ifndef PLDKIT_CATALOGUE_TREE_H
#define PLDKIT_CATALOGUE_TREE_H

#include <pldkit/event.h>
#include <stdint.h>

#include "events_internal.h"

#define HOLE_NONE (-1)
#define HOLE_COUNT MAX_KEYS

/* One EVENT: its table entry and values (defaults filled in; lists and
 * paths owned), its count, where its hole is, and for random-selection its
 * member LISTs, for poisson-sampled its one member. */
struct ev_node {
  const struct event_spec *e;
  struct value v[MAX_KEYS];
  uint64_t count;
  int hole;            /* HOLE_NONE, a key index, or HOLE_COUNT */
  int closed;          /* a closed-form single-round analysis */
  char q[QUOTE_LEN];   /* the event as written, quoted, for messages */
  size_t nm;
  struct pld_event **members;
  struct ev_node *sub;
};

/* A LIST: nodes composed in order. */
struct pld_event {
  size_t n;
  struct ev_node *node;
};

/* events_parse.c */
int ev_tree_check_closed(const pld_event *ev);
void ev_node_hole_info(const struct ev_node *nd, pld_event_hole *h);

/* tree.c */
int ev_tree_copy(const pld_event *ev, pld_event **out);
/* The node holding the hole, or NULL. */
const struct ev_node *ev_tree_hole(const pld_event *ev);
/* The closed-form analysis of a one-node tree, or 0. */
int ev_tree_closed(const pld_event *ev, struct ev_closed *out);
/* A detail for a tree that still has its hole. */
int ev_tree_refuse_hole(const pld_event *ev);

/* build.c: the RDP curve with lower curves (query.c's second opinion):
 * lower 0 none, 1 the events' rdp_lower, 2 rdp_lower2 where there is one;
 * *lowered counts events that added a lower curve, *lowered2 those that
 * added their level-2 curve. */
int ev_tree_rdp(const pld_event *ev, size_t n, const double *orders,
                int bridge, const pld_params *params, int lower,
                pld_rdp_curve **out, unsigned *bridged, unsigned *lowered,
                unsigned *lowered2);

#endif
