/* pldkit: dp_accounting's DpEvent trees, translated into EVENT texts of the
 * catalogue (<pldkit/event.h>) -- the one translation every front end
 * uses (the CLI's --events-json reads JSON into a pld_dpevent tree; any C
 * user can build one by hand).
 *
 * dp_accounting (TensorFlow Privacy, JAX privacy) describes a run as a tree
 * of DpEvents: SelfComposedDpEvent(PoissonSampledDpEvent(q,
 * GaussianDpEvent(sigma)), n), ComposedDpEvent([...]), ...  A pld_dpevent
 * is such a tree as plain data: the class name and the named fields, each
 * a number, a string, null, a list of numbers, one event or a list of
 * events.  pld_dpevent_to_events gives the EVENT texts (with count=N) that
 * the catalogue answers, in the order of the tree, so that
 * pld_event_epsilon etc. answer the tree.
 *
 * The events and their translation (relation: dp_accounting's
 * NeighboringRelation, ADD_OR_REMOVE_ONE by default):
 *   NoOpDpEvent: nothing.  NonPrivateDpEvent (and noise 0): the non-private
 *     pair PLD_DPEVENT_NONPRIVATE (epsilon inf, delta 1).
 *   GaussianDpEvent(noise_multiplier): gaussian, sensitivity 1 (2 under
 *     REPLACE_ONE: the sum moves by up to 2C).
 *   LaplaceDpEvent(noise_multiplier): laplace, sensitivity 1 (not under
 *     REPLACE_ONE, as in dp_accounting).
 *   DiscreteLaplaceDpEvent(noise_parameter a, sensitivity): discrete-laplace
 *     with scale 1/a rounded down (the less private side).
 *   DiscreteGaussianDpEvent(sigma, sensitivity=1, dimension): dimension 1
 *     only, integer sensitivity.
 *   RandomizedResponseDpEvent(noise_parameter p, num_buckets k):
 *     randomized-response with epsilon0 = log1p(k (1-p)/p) rounded up by two
 *     ulps (REPLACE_ONE or REPLACE_SPECIAL only).
 *   MixtureOfGaussiansDpEvent(standard_deviation, sensitivities,
 *     sampling_probs): mixture-gaussian, P the mixture, Q = N(0, s^2).
 *   EpsilonDeltaDpEvent(epsilon, delta), ExponentialMechanismDpEvent and
 *     PermuteAndFlipDpEvent(epsilon) (delta 0): the finite dominating pair
 *     of (epsilon, delta)-DP, epsilon and delta raised by a relative 1e-12.
 *   PoissonSampledDpEvent(sampling_probability, event), add/remove
 *     relations: of a Gaussian or a Laplace, poisson-gaussian or
 *     poisson-laplace; of a DiscreteLaplace, DiscreteGaussian,
 *     MixtureOfGaussians, EpsilonDelta, ExponentialMechanism or
 *     PermuteAndFlip, poisson-sampled:q=Q[MEMBER] with the member's text
 *     above (Poisson subsampling of its exact pair, pld_mech_poisson); not
 *     of a replace-one mechanism (RandomizedResponse) nor of another
 *     PoissonSampled.
 *   SampledWithoutReplacementDpEvent(source_dataset_size, sample_size,
 *     event): of a Gaussian, REPLACE_ONE (wor-gaussian, sensitivity 2).
 *   SelfComposedDpEvent(event, count), ComposedDpEvent(events).
 * Everything else is refused with a message naming the class and its place
 * in the tree (e.g. "event.events[1].event: ZCDpEvent is not supported").
 * This is the only translation: python/pldkit/dp_accounting.py builds a
 * pld_dpevent tree (ctypes) and calls pld_dpevent_to_events, then answers
 * the texts through the catalogue as the CLI does; the tests check that
 * Python and `pldkit epsilon --events-json` agree to the last bit.
 */
#ifndef PLDKIT_DPEVENT_H
#define PLDKIT_DPEVENT_H

#include <stddef.h>

#include <pldkit/event.h>
#include <pldkit/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The kind of a field's value. */
enum pld_dpevent_kind {
  PLD_DPEVENT_NULL = 0, /* JSON null / Python None */
  PLD_DPEVENT_NUMBER,   /* number */
  PLD_DPEVENT_STRING,   /* string */
  PLD_DPEVENT_NUMBERS,  /* list of numbers: numbers[0..n-1] */
  PLD_DPEVENT_EVENT,    /* one event: events[0] */
  PLD_DPEVENT_EVENTS,   /* list of events: events[0..n-1] */
  PLD_DPEVENT_OTHER     /* anything else (a boolean, a mapping, a list
                           mixing kinds): refused where a value is read */
};

typedef struct pld_dpevent pld_dpevent;

/* One named field of an event. */
typedef struct pld_dpevent_field {
  const char *name;
  int kind;                  /* enum pld_dpevent_kind */
  double number;             /* PLD_DPEVENT_NUMBER */
  const char *string;        /* PLD_DPEVENT_STRING */
  const double *numbers;     /* PLD_DPEVENT_NUMBERS */
  const pld_dpevent *events; /* PLD_DPEVENT_EVENT (one), _EVENTS (n) */
  size_t n;                  /* length of numbers or events */
} pld_dpevent_field;

/* One event: dp_accounting's class name (module names are not kept) and
 * its fields; fields left out take dp_accounting's defaults where it has
 * one (DiscreteGaussianDpEvent's sensitivity 1 and dimension None). */
struct pld_dpevent {
  const char *class_name;
  size_t n_fields;
  const pld_dpevent_field *fields;
};

/* dp_accounting's NeighboringRelation. */
enum pld_dpevent_relation {
  PLD_DPEVENT_ADD_OR_REMOVE_ONE = 0,
  PLD_DPEVENT_REPLACE_ONE = 1,
  PLD_DPEVENT_REPLACE_SPECIAL = 2
};

/* The EVENT text of a non-private mechanism: P and Q with disjoint
 * supports (epsilon(delta) = inf for delta < 1, delta(epsilon) = 1). */
#define PLD_DPEVENT_NONPRIVATE "finite:p=1;0,q=0;1"


/** The relation called `name` (ADD_OR_REMOVE_ONE, REPLACE_ONE or
 *  REPLACE_SPECIAL).  @return PLD_SUCCESS or PLD_EINVAL (*out untouched). */
PLD_API int pld_dpevent_relation_parse(const char *name, int *out);

/** The name of the i-th declared field of dp_accounting's class
 *  `class_name` (the order of DpEvent.to_named_tuple() and of its JSON
 *  list form [module_name, class_name, values...]), or NULL when i is past
 *  the last or the class is not one of dp_accounting's. */
PLD_API const char *pld_dpevent_field_name(const char *class_name, size_t i);

/** The event tree (<pldkit/event.h>) of `count` runs of the DpEvent tree
 *  `root` under `relation` (enum pld_dpevent_relation).  Free *out with
 *  pld_event_free; a tree of no-ops only gives the empty composition (its
 *  accountant has no events).  *nonprivate (may be NULL) is set when a
 *  non-private event was met.  On failure the detail names the event class
 *  and its place in the tree ("event", "event.events[2].event", ...).
 *  @return PLD_SUCCESS, PLD_EINVAL (an unsupported event or a bad field),
 *  PLD_ENOMEM. */
PLD_API PLD_NODISCARD int pld_event_from_dpevent(const pld_dpevent *root,
                                                 int relation,
                                                 unsigned long long count,
                                                 pld_event **out,
                                                 int *nonprivate);

#ifdef __cplusplus
}
#endif
#endif
