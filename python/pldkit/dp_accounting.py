"""A drop-in for dp_accounting's accountants (imports no dp_accounting).

dp_accounting (TensorFlow Privacy, JAX privacy, ...) describes what a
training run or a query pipeline did as a tree of DpEvents, e.g.
``SelfComposedDpEvent(PoissonSampledDpEvent(q, GaussianDpEvent(sigma)), n)``,
and asks an accountant::

    acc = PLDAccountant()            # pldkit.dp_accounting.PLDAccountant
    acc.compose(event)               # returns acc
    acc.get_epsilon(target_delta=1e-5), acc.get_delta(target_epsilon=1.0)

The events are read by duck typing: an event is any object whose class name
is one of dp_accounting's DpEvent class names and whose attributes carry
that class's documented fields (dp_accounting's own attrs classes, or
stand-ins such as namedtuples or dataclasses); or its serialized form from
``DpEvent.to_named_tuple()``: a named tuple or a mapping with
``class_name`` (``module_name`` is ignored) and the fields, or the list
``json.dumps`` makes of such a named tuple (``[module_name, class_name,
field values in declared order]``), nested.  ``from_json`` reads that JSON;
``pldkit epsilon --events-json FILE`` reads the same JSON with the same
numbers.

The events and how pldkit accounts them (``relation`` is the accountant's
neighboring_relation: ADD_OR_REMOVE_ONE, the default, REPLACE_ONE or
REPLACE_SPECIAL):

* NoOpDpEvent: nothing.  NonPrivateDpEvent: epsilon = inf, delta = 1.
* GaussianDpEvent(noise_multiplier): Gaussian with sigma = noise_multiplier
  and sensitivity 1 (2 under REPLACE_ONE: the sum moves by up to 2C).
* LaplaceDpEvent(noise_multiplier): Laplace with b = noise_multiplier,
  sensitivity 1 (not under REPLACE_ONE, as in dp_accounting).
* DiscreteLaplaceDpEvent(noise_parameter, sensitivity): discrete Laplace
  with P(k) ~ exp(-noise_parameter |k|) (pldkit's scale 1/noise_parameter,
  rounded down: a smaller scale is the less private mechanism).
* DiscreteGaussianDpEvent(sigma, sensitivity=1, dimension=None): the
  univariate discrete Gaussian; dimension must be 1 (pldkit has no
  multivariate one, and None may mean several) and the sensitivity an
  integer.
* RandomizedResponseDpEvent(noise_parameter p, num_buckets k): k-ary
  randomized response with epsilon0 = log(1 + k (1 - p) / p), rounded up by
  two ulps (REPLACE_ONE or REPLACE_SPECIAL only, as in dp_accounting);
  k = 1 is a no-op, p = 0 non-private.
* MixtureOfGaussiansDpEvent(standard_deviation, sensitivities,
  sampling_probs): N(0, s^2) vs sum_i p_i N(c_i, s^2), both directions.
* EpsilonDeltaDpEvent(epsilon, delta), ExponentialMechanismDpEvent(epsilon)
  and PermuteAndFlipDpEvent(epsilon) (as (epsilon, 0)): the dominating
  pair of every (epsilon, delta)-DP mechanism, epsilon and delta rounded up
  by a relative 1e-12.
* PoissonSampledDpEvent(sampling_probability, event): Poisson subsampling
  of any one mechanism above except randomized response (add/remove
  adjacency: ADD_OR_REMOVE_ONE or REPLACE_SPECIAL).
* SampledWithoutReplacementDpEvent(source_dataset_size, sample_size,
  event): of a GaussianDpEvent under REPLACE_ONE (Balle et al. 2018).
* SelfComposedDpEvent(event, count), ComposedDpEvent(events).

Everything else (UnsupportedDpEvent, SampledWithReplacementDpEvent, ZCDp,
tree aggregation, repeat-and-select, truncated subsampling, ...) makes
``supports`` False and ``compose`` raise UnsupportedEventError naming the
event and where it sits in the tree.

Every answer is pldkit's certified upper end (never below the truth);
``epsilon(delta)`` / ``delta(epsilon)`` give the whole bracket.
"""

import json
import math
import numbers

from .accountant import Accountant
from .errors import PldkitError
from . import mechanisms as M

__all__ = ["PLDAccountant", "RdpAccountant", "UnsupportedEventError",
           "NeighboringRelation", "from_json", "canonical", "plan",
           "EVENT_FIELDS"]


class UnsupportedEventError(ValueError):
    """An event (or an event under this neighboring relation) that pldkit
    cannot account; the message names it and its place in the tree."""


class NeighboringRelation(object):
    """The names of dp_accounting's NeighboringRelation (an enum there;
    its members, or these strings, are accepted)."""
    ADD_OR_REMOVE_ONE = "ADD_OR_REMOVE_ONE"
    REPLACE_ONE = "REPLACE_ONE"
    REPLACE_SPECIAL = "REPLACE_SPECIAL"


_RELATIONS = ("ADD_OR_REMOVE_ONE", "REPLACE_ONE", "REPLACE_SPECIAL")

#: dp_accounting's DpEvent classes and their fields in declared order
#: (dp_event.py); (name, default) for the optional ones.
EVENT_FIELDS = {
    "NoOpDpEvent": (),
    "NonPrivateDpEvent": (),
    "UnsupportedDpEvent": (),
    "RandomizedResponseDpEvent": ("noise_parameter", "num_buckets"),
    "EpsilonDeltaDpEvent": ("epsilon", "delta"),
    "GaussianDpEvent": ("noise_multiplier",),
    "LaplaceDpEvent": ("noise_multiplier",),
    "DiscreteLaplaceDpEvent": ("noise_parameter", "sensitivity"),
    "DiscreteGaussianDpEvent": ("sigma", ("sensitivity", 1.0),
                                ("dimension", None)),
    "SelfComposedDpEvent": ("event", "count"),
    "ComposedDpEvent": ("events",),
    "PoissonSampledDpEvent": ("sampling_probability", "event"),
    "SampledWithReplacementDpEvent": ("source_dataset_size", "sample_size",
                                      "event"),
    "SampledWithoutReplacementDpEvent": ("source_dataset_size",
                                         "sample_size", "event"),
    "SingleEpochTreeAggregationDpEvent": ("noise_multiplier", "step_counts"),
    "RepeatAndSelectDpEvent": ("event", "mean", "shape"),
    "MixtureOfGaussiansDpEvent": ("standard_deviation", "sensitivities",
                                  "sampling_probs"),
    "ZCDpEvent": ("rho", ("xi", 0.0)),
    "ExponentialMechanismDpEvent": ("epsilon",),
    "PermuteAndFlipDpEvent": ("epsilon",),
    "TruncatedSubsampledGaussianDpEvent": ("dataset_size",
                                           "sampling_probability",
                                           "truncated_batch_size",
                                           "noise_multiplier"),
}
_EVENT_VALUED = {"event"}          # fields holding one event
_EVENT_LIST = {"events"}           # fields holding a list of events

_MISSING = object()


def _field_names(cls_name):
    return [f if isinstance(f, str) else f[0] for f in EVENT_FIELDS[cls_name]]


def _is_named_tuple_form(obj):
    return (isinstance(obj, tuple) and hasattr(obj, "_fields")
            and "class_name" in obj._fields)


def _is_list_form(obj):
    return (isinstance(obj, (list, tuple)) and len(obj) >= 2
            and isinstance(obj[0], str) and isinstance(obj[1], str)
            and obj[1] in EVENT_FIELDS)


def _class_name(obj):
    if isinstance(obj, dict):
        name = obj.get("class_name")
        if not isinstance(name, str):
            raise UnsupportedEventError(
                "a mapping event needs a 'class_name' string (the form of "
                "DpEvent.to_named_tuple()), got keys %s" % sorted(obj))
        return name
    if _is_named_tuple_form(obj):
        name = obj.class_name
        return name.decode() if isinstance(name, bytes) else name
    if _is_list_form(obj):
        return obj[1]
    return type(obj).__name__


def canonical(event, where="event"):
    """The event tree as plain data: (class_name, {field: value}) with the
    nested events canonical too.  Reads dp_accounting's objects, stand-ins
    with the same class and field names, and the to_named_tuple forms."""
    name = _class_name(event)
    if name not in EVENT_FIELDS:
        raise UnsupportedEventError(
            "%s: %s is not a dp_accounting DpEvent that pldkit knows"
            % (where, name))
    fields = {}
    spec = EVENT_FIELDS[name]
    if _is_list_form(event) and not _is_named_tuple_form(event):
        values = list(event[2:])
        if len(values) > len(spec):
            raise UnsupportedEventError(
                "%s: %s has %d fields, got %d values"
                % (where, name, len(spec), len(values)))
    for i, f in enumerate(spec):
        fname, default = (f, _MISSING) if isinstance(f, str) else f
        if _is_list_form(event) and not _is_named_tuple_form(event):
            v = values[i] if i < len(values) else default
        elif isinstance(event, dict):
            v = event.get(fname, default)
        else:
            v = getattr(event, fname, default)
        if v is _MISSING:
            raise UnsupportedEventError("%s: %s has no field %r"
                                        % (where, name, fname))
        here = "%s.%s" % (where, fname)
        if fname in _EVENT_VALUED:
            v = canonical(v, here)
        elif fname in _EVENT_LIST:
            if isinstance(v, (str, bytes, dict)) or not hasattr(v, "__iter__"):
                raise UnsupportedEventError("%s: expected a list of events"
                                            % here)
            v = [canonical(e, "%s[%d]" % (here, k)) for k, e in enumerate(v)]
        elif isinstance(v, (list, tuple)):
            v = list(v)
        fields[fname] = v
    if isinstance(event, dict):
        extra = set(event) - set(fields) - {"class_name", "module_name"}
        if extra:
            raise UnsupportedEventError("%s: %s has no field(s) %s"
                                        % (where, name, ", ".join(sorted(extra))))
    return (name, fields)


def from_json(text):
    """A canonical event tree from JSON text (or bytes, or a file object):
    the mapping or list form of DpEvent.to_named_tuple(), nested; a
    top-level list of events (not itself an event) is their composition."""
    if hasattr(text, "read"):
        text = text.read()
    obj = json.loads(text)
    if isinstance(obj, list) and not _is_list_form(obj):
        return ("ComposedDpEvent",
                {"events": [canonical(e, "events[%d]" % i)
                            for i, e in enumerate(obj)]})
    return canonical(obj)


# --------------------------------------------------------------------------
# The plan: the leaves (mechanism specs) with their counts.

def _num(v, where, name):
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise ValueError("%s: %s=%r must be a number" % (where, name, v))
    x = float(v)
    if math.isnan(x):
        raise ValueError("%s: %s=%r must be a number" % (where, name, v))
    return x


def _int(v, where, name, lo=0):
    if isinstance(v, bool):
        raise ValueError("%s: %s=%r must be an integer" % (where, name, v))
    if isinstance(v, numbers.Integral):
        n = int(v)
    elif isinstance(v, numbers.Real) and float(v).is_integer():
        n = int(v)
    else:
        raise ValueError("%s: %s=%r must be an integer" % (where, name, v))
    if n < lo:
        raise ValueError("%s: %s=%r must be >= %d" % (where, name, v, lo))
    return n


def _up(x, ulps):
    for _ in range(ulps):
        x = math.nextafter(x, math.inf)
    return x


_NONPRIVATE = ("nonprivate",)


def _need(relation, allowed, name, where):
    if relation not in allowed:
        raise UnsupportedEventError(
            "%s: %s is not supported under neighboring_relation %s (only %s)"
            % (where, name, relation, " or ".join(allowed)))


def _leaf(ev, relation, where):
    """The spec of one mechanism: a tuple, _NONPRIVATE, or None (no-op)."""
    name, f = ev
    aor = ("ADD_OR_REMOVE_ONE", "REPLACE_SPECIAL")
    if name == "GaussianDpEvent":
        s = _num(f["noise_multiplier"], where, "noise_multiplier")
        if s == 0:
            return _NONPRIVATE
        return ("gaussian", s, 2.0 if relation == "REPLACE_ONE" else 1.0)
    if name == "LaplaceDpEvent":
        _need(relation, aor, name, where)
        b = _num(f["noise_multiplier"], where, "noise_multiplier")
        return _NONPRIVATE if b == 0 else ("laplace", b, 1.0)
    if name == "DiscreteLaplaceDpEvent":
        _need(relation, aor, name, where)
        a = _num(f["noise_parameter"], where, "noise_parameter")
        s = _int(f["sensitivity"], where, "sensitivity", 1)
        if a == 0:
            return _NONPRIVATE
        if not (a > 0 and math.isfinite(a)):
            raise ValueError("%s: noise_parameter=%r must be a finite number "
                             ">= 0" % (where, f["noise_parameter"]))
        # P(k) ~ exp(-a |k|) is pldkit's scale 1/a; round the scale down (the
        # less private side) so no rounding can make it more private.
        return ("discrete_laplace", math.nextafter(1.0 / a, 0.0), s)
    if name == "DiscreteGaussianDpEvent":
        _need(relation, aor, name, where)
        if f["dimension"] != 1:
            raise UnsupportedEventError(
                "%s: DiscreteGaussianDpEvent with dimension=%r: pldkit has the "
                "univariate discrete Gaussian only (dimension=1)"
                % (where, f["dimension"]))
        sig = _num(f["sigma"], where, "sigma")
        s = _int(f["sensitivity"], where, "sensitivity", 0)
        if s == 0:
            return None
        return _NONPRIVATE if sig == 0 else ("discrete_gaussian", sig, s)
    if name == "RandomizedResponseDpEvent":
        _need(relation, ("REPLACE_ONE", "REPLACE_SPECIAL"), name, where)
        p = _num(f["noise_parameter"], where, "noise_parameter")
        k = _int(f["num_buckets"], where, "num_buckets", 1)
        if not 0 <= p <= 1:
            raise ValueError("%s: noise_parameter=%r must be in [0, 1]"
                             % (where, f["noise_parameter"]))
        if k == 1:
            return None
        if p == 0:
            return _NONPRIVATE
        # e^eps0 = P(true bucket) / P(another) = 1 + k (1 - p) / p; two ulps
        # up cover the rounding of the quotient and of log1p (a larger eps0
        # is the less private mechanism).
        return ("randomized_response", _up(math.log1p(k * (1.0 - p) / p), 2), k)
    if name == "MixtureOfGaussiansDpEvent":
        _need(relation, aor, name, where)
        sd = _num(f["standard_deviation"], where, "standard_deviation")
        c = [_num(x, where, "sensitivities") for x in f["sensitivities"]]
        w = [_num(x, where, "sampling_probs") for x in f["sampling_probs"]]
        if len(c) != len(w):
            raise ValueError("%s: %d sensitivities but %d sampling_probs"
                             % (where, len(c), len(w)))
        if all(x == 0 for x in c):
            return None
        return _NONPRIVATE if sd == 0 else ("mixture", sd, c, w)
    if name in ("EpsilonDeltaDpEvent", "ExponentialMechanismDpEvent",
                "PermuteAndFlipDpEvent"):
        e = _num(f["epsilon"], where, "epsilon")
        d = _num(f["delta"], where, "delta") if "delta" in f else 0.0
        if not (e >= 0 and 0 <= d <= 1):
            raise ValueError("%s: epsilon=%r must be >= 0 and delta=%r in "
                             "[0, 1]" % (where, f["epsilon"], d))
        if math.isinf(e) or d == 1:
            return _NONPRIVATE
        return ("pair", e, d)
    if name == "PoissonSampledDpEvent":
        _need(relation, aor, name, where)
        q = _num(f["sampling_probability"], where, "sampling_probability")
        if not 0 <= q <= 1:
            raise ValueError("%s: sampling_probability=%r must be in [0, 1]"
                             % (where, f["sampling_probability"]))
        here = where + ".event"
        inner = _single(f["event"], relation, here, name)
        if q == 0 or inner is None:
            return None
        if inner is _NONPRIVATE:
            return _NONPRIVATE
        if inner[0] == "randomized_response":
            raise UnsupportedEventError(
                "%s: PoissonSampledDpEvent of RandomizedResponseDpEvent (a "
                "replace-one mechanism) is not supported" % where)
        return ("poisson", q, inner)
    if name == "SampledWithoutReplacementDpEvent":
        _need(relation, ("REPLACE_ONE",), name, where)
        n = _int(f["source_dataset_size"], where, "source_dataset_size", 1)
        m = _int(f["sample_size"], where, "sample_size", 0)
        inner = f["event"]
        if inner[0] != "GaussianDpEvent":
            raise UnsupportedEventError(
                "%s: SampledWithoutReplacementDpEvent of %s is not supported "
                "(only of GaussianDpEvent)" % (where, inner[0]))
        s = _num(inner[1]["noise_multiplier"], where + ".event",
                 "noise_multiplier")
        if m == 0:
            return None
        return _NONPRIVATE if s == 0 else ("wor_gaussian", m, n, s, 2.0)
    if name in ("NoOpDpEvent",):
        return None
    if name == "NonPrivateDpEvent":
        return _NONPRIVATE
    raise UnsupportedEventError("%s: %s is not supported by pldkit"
                                % (where, name))


def _single(ev, relation, where, parent):
    """The one mechanism of an event that must be a single mechanism (the
    argument of a sampling event)."""
    name, f = ev
    if name in ("ComposedDpEvent", "SelfComposedDpEvent"):
        leaves = plan(ev, relation, where=where)
        if not leaves:
            return None
        if len(leaves) == 1 and leaves[0][1] == 1:
            return leaves[0][0]
        raise UnsupportedEventError(
            "%s: a %s of a %s of several mechanisms is not supported "
            "(sample each mechanism on its own)" % (where, parent, name))
    return _leaf(ev, relation, where)


def plan(event, relation="ADD_OR_REMOVE_ONE", count=1, where="event"):
    """The list of (mechanism spec, count) an event tree composes, in
    order; a spec is a tuple ('gaussian', sigma, sensitivity), ... or
    ('nonprivate',).  `event` may be in any accepted form."""
    if not (isinstance(event, tuple) and len(event) == 2
            and isinstance(event[0], str) and isinstance(event[1], dict)):
        event = canonical(event, where)
    out = []

    def walk(ev, c, here):
        name, f = ev
        if name == "SelfComposedDpEvent":
            n = _int(f["count"], here, "count", 0)
            if n:
                walk(f["event"], c * n, here + ".event")
        elif name == "ComposedDpEvent":
            for i, e in enumerate(f["events"]):
                walk(e, c, "%s.events[%d]" % (here, i))
        else:
            spec = _leaf(ev, relation, here)
            if spec is not None and c:
                out.append((spec, c))
    walk(event, _int(count, where, "count", 0), where)
    return out


def mechanism(spec):
    """A pldkit Mechanism for a spec of plan() (not 'nonprivate')."""
    kind = spec[0]
    if kind == "gaussian":
        return M.Gaussian(spec[1], spec[2])
    if kind == "laplace":
        return M.Laplace(spec[1], spec[2])
    if kind == "discrete_laplace":
        return M.DiscreteLaplace(spec[1], spec[2])
    if kind == "discrete_gaussian":
        return M.DiscreteGaussian(spec[1], spec[2])
    if kind == "randomized_response":
        return M.RandomizedResponse(spec[1], spec[2])
    if kind == "mixture":
        return M.GaussianMixture(spec[1], p_weights=spec[3], p_means=spec[2],
                                 q_weights=[1.0], q_means=[0.0])
    if kind == "wor_gaussian":
        return M.WorGaussian(spec[1], spec[2], spec[3], spec[4])
    if kind == "pair":
        return M.FinitePair(*_pair(spec[1], spec[2]))
    if kind == "poisson":
        inner = spec[2]
        if inner[0] == "gaussian":
            return M.PoissonGaussian(spec[1], inner[1], inner[2])
        if inner[0] == "laplace":
            return M.PoissonLaplace(spec[1], inner[1], inner[2])
        with mechanism(inner) as base:
            return M.PoissonSampled(base, spec[1])
    raise ValueError("no mechanism for spec %r" % (spec,))


def _pair(eps, delta):
    """The dominating pair of (eps, delta)-DP: P = (delta, (1-delta) a,
    (1-delta) b, 0), Q = (0, (1-delta) b, (1-delta) a, delta), a = e^eps /
    (1 + e^eps), b = 1 - a.  eps and delta go up by a relative 1e-12 first,
    so that the rounding of a, b and pldkit's normalisation cannot leave a
    pair below (eps, delta)."""
    e = eps * (1 + 1e-12)
    d = min(delta * (1 + 1e-12), 1.0)
    a = 1.0 / (1.0 + math.exp(-e))
    b = 1.0 / (1.0 + math.exp(e))
    r = 1.0 - d
    return [d, r * a, r * b, 0.0], [0.0, r * b, r * a, d]


# --------------------------------------------------------------------------
# The accountants.

def _relation(rel):
    name = getattr(rel, "name", rel)
    if name not in _RELATIONS:
        raise ValueError("neighboring_relation=%r must be one of %s"
                         % (rel, ", ".join(_RELATIONS)))
    return name


class _Base(object):
    """What both accountants share: the ledger, supports, compose."""

    def __init__(self, neighboring_relation="ADD_OR_REMOVE_ONE"):
        self.neighboring_relation = _relation(neighboring_relation)
        self._ledger = []      # (canonical event, count)
        self._nonprivate = False

    def supports(self, event):
        """True if compose(event) can account this event (under this
        neighboring relation)."""
        try:
            for spec, _ in plan(event, self.neighboring_relation):
                if spec is not _NONPRIVATE:
                    self._check_spec(spec)
        except UnsupportedEventError:
            return False
        except (ValueError, TypeError, PldkitError):
            return True  # a supported event with bad numbers: compose says
        return True

    def _check_spec(self, spec):
        pass

    def compose(self, event, count=1):
        """Add `count` runs of the event tree.  Returns self.  Raises
        UnsupportedEventError (naming the event) for what pldkit cannot
        account, ValueError for bad parameters; nothing is added then."""
        ev = event
        if not (isinstance(ev, tuple) and len(ev) == 2
                and isinstance(ev[0], str) and isinstance(ev[1], dict)):
            ev = canonical(event)
        steps = plan(ev, self.neighboring_relation, count)
        for spec, _ in steps:
            if spec is not _NONPRIVATE:
                self._check_spec(spec)
        self._add(steps)
        self._ledger.append((ev, count))
        return self

    @property
    def ledger(self):
        """The composed events as (canonical event, count) pairs."""
        return list(self._ledger)

    def __reduce__(self):
        return (_rebuild, (type(self), self._init_args(), self._ledger))


def _rebuild(cls, kwargs, ledger):
    acc = cls(**kwargs)
    for ev, c in ledger:
        acc.compose(ev, c)
    return acc


class PLDAccountant(_Base):
    """dp_accounting's PLDAccountant on pldkit's certified PLD accountant.

    ``neighboring_relation``: ADD_OR_REMOVE_ONE (default), REPLACE_ONE or
    REPLACE_SPECIAL (dp_accounting's enum members or their names).
    ``value_discretization_interval`` is accepted for dp_accounting's
    signature and ignored: pldkit chooses its grid to meet ``accuracy``
    (default 2e-3 relative width of the bracket); pass ``discretization``
    to fix one.  Other keywords are pldkit.Accountant parameters."""

    def __init__(self, neighboring_relation="ADD_OR_REMOVE_ONE",
                 value_discretization_interval=None, **params):
        super().__init__(neighboring_relation)
        self._vdi = value_discretization_interval
        self._params = dict(params)
        self._acc = Accountant(**params)

    def _init_args(self):
        kw = dict(self._params)
        kw["neighboring_relation"] = self.neighboring_relation
        kw["value_discretization_interval"] = self._vdi
        return kw

    def _add(self, steps):
        made = []
        try:
            for spec, c in steps:
                if spec is _NONPRIVATE:
                    continue
                made.append((mechanism(spec), c))
            for m, c in made:
                self._acc.compose(m, c)
        finally:
            for m, _ in made:
                m.close()
        if any(spec is _NONPRIVATE for spec, _ in steps):
            self._nonprivate = True

    @property
    def accountant(self):
        """The underlying pldkit.Accountant (a copy)."""
        return self._acc.copy()

    def epsilon(self, delta):
        """The pldkit Result (bracket) for epsilon(delta), or None when the
        answer is exact without one (no events: 0; non-private: inf)."""
        if self._nonprivate or self._acc.num_groups == 0:
            return None
        return self._acc.epsilon(delta)

    def delta(self, epsilon):
        """The pldkit Result (bracket) for delta(epsilon), or None as in
        epsilon()."""
        if self._nonprivate or self._acc.num_groups == 0:
            return None
        return self._acc.delta(epsilon)

    def get_epsilon(self, target_delta):
        """The certified epsilon (nats) at target_delta; inf if a
        non-private event was composed, 0 with no events."""
        _check_delta(target_delta)
        if self._nonprivate:
            return math.inf
        r = self.epsilon(target_delta)
        return 0.0 if r is None else r.upper

    def get_delta(self, target_epsilon):
        """The certified delta at target_epsilon; 1 if a non-private event
        was composed, 0 with no events."""
        _check_epsilon(target_epsilon)
        if self._nonprivate:
            return 1.0
        r = self.delta(target_epsilon)
        return 0.0 if r is None else r.upper

    def __repr__(self):
        return "<pldkit.dp_accounting.PLDAccountant %s: %d events>" % (
            self.neighboring_relation, len(self._ledger))


class RdpAccountant(_Base):
    """dp_accounting's RdpAccountant on pldkit's RDP backend: the events
    with an RDP formula in pldkit (Gaussian, Laplace, randomized response,
    Poisson-sampled Gaussian, Gaussian sampled without replacement, and
    their compositions).  ``orders``: None for pldkit's default grid."""

    def __init__(self, orders=None, neighboring_relation="ADD_OR_REMOVE_ONE"):
        from .rdp import RdpCurve
        super().__init__(neighboring_relation)
        self._orders = None if orders is None else [float(a) for a in orders]
        self._curve = RdpCurve(self._orders)

    def _init_args(self):
        return {"orders": self._orders,
                "neighboring_relation": self.neighboring_relation}

    _RDP_KINDS = ("gaussian", "laplace", "randomized_response",
                  "wor_gaussian")

    def _check_spec(self, spec):
        if spec[0] in self._RDP_KINDS or (spec[0] == "poisson"
                                          and spec[2][0] == "gaussian"):
            return
        raise UnsupportedEventError(
            "the event giving %s has no RDP formula in pldkit; use "
            "pldkit.dp_accounting.PLDAccountant" % (spec[0],))

    def _add(self, steps):
        trial = self._curve.copy()
        try:
            for spec, c in steps:
                if spec is _NONPRIVATE:
                    continue
                with mechanism(spec) as m:
                    trial.compose(m, c)
        except BaseException:
            trial.close()
            raise
        self._curve.close()
        self._curve = trial
        if any(spec is _NONPRIVATE for spec, _ in steps):
            self._nonprivate = True

    def get_epsilon(self, target_delta):
        _check_delta(target_delta)
        if self._nonprivate:
            return math.inf
        if not self._ledger:
            return 0.0
        return self._curve.get_epsilon(target_delta)

    def get_delta(self, target_epsilon):
        _check_epsilon(target_epsilon)
        if self._nonprivate:
            return 1.0
        if not self._ledger:
            return 0.0
        return self._curve.get_delta(target_epsilon)


def _check_delta(d):
    x = _num(d, "get_epsilon", "target_delta")
    if not 0 < x < 1:
        raise ValueError("get_epsilon: target_delta=%r must be in (0, 1)"
                         % (d,))


def _check_epsilon(e):
    x = _num(e, "get_delta", "target_epsilon")
    if not x >= 0:
        raise ValueError("get_delta: target_epsilon=%r must be >= 0" % (e,))
