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

This module only reads the events (``canonical``: the tree as
``(class_name, {field: value})``).  The translation into mechanisms is the
library's one (``pld_event_from_dpevent``, <pldkit/dpevent.h>), the one the
CLI's ``--events-json`` uses: the canonical tree is handed to it as a
``pld_dpevent`` tree and it gives EVENT texts (``plan(event)`` shows them,
``acc.events`` those of the ledger), which PLDAccountant answers through
the catalogue (``pldkit.epsilon`` / ``pldkit.delta``) and RdpAccountant
through the library's RDP curve of those texts.  So Python and the CLI give
the same numbers to the last bit by construction.

The events and how the library accounts them (``relation`` is the
accountant's neighboring_relation: ADD_OR_REMOVE_ONE, the default,
REPLACE_ONE or REPLACE_SPECIAL):

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
  by a relative 1e-12.  For PermuteAndFlip that gives the certified upper
  end; the lower end is recomputed from a pair the mechanism realizes
  (permute_and_flip_pair), a true lower bound.
* PoissonSampledDpEvent(sampling_probability, event): Poisson subsampling
  (add/remove adjacency: ADD_OR_REMOVE_ONE or REPLACE_SPECIAL) of a
  GaussianDpEvent or a LaplaceDpEvent (poisson-gaussian, poisson-laplace),
  or of a DiscreteLaplace, DiscreteGaussian, MixtureOfGaussians,
  EpsilonDelta, ExponentialMechanism or PermuteAndFlip DpEvent (the
  catalogue's poisson-sampled:q=Q[MEMBER], the member's exact pair
  subsampled; RdpAccountant refuses these, having no RDP formula for
  them); of a replace-one mechanism (RandomizedResponse) or of another
  PoissonSampledDpEvent it is refused.
* SampledWithoutReplacementDpEvent(source_dataset_size, sample_size,
  event): of a GaussianDpEvent under REPLACE_ONE (Balle et al. 2018).
* SingleEpochTreeAggregationDpEvent(noise_multiplier, step_counts), where
  composed: the Gaussian it is, GaussianDpEvent(noise_multiplier /
  sqrt(depth)), depth = the largest step count's bit length (_rewrite).
* SelfComposedDpEvent(event, count), ComposedDpEvent(events).

Everything else (UnsupportedDpEvent, SampledWithReplacementDpEvent, ZCDp,
tree aggregation, repeat-and-select, truncated subsampling, Poisson
sampling under REPLACE_ONE, a DiscreteGaussianDpEvent of dimension None)
makes ``supports`` False and ``compose`` raise UnsupportedEventError naming
the event, where it sits in the tree and why (REFUSALS).  RdpAccountant
accounts ZCDpEvent (and a DiscreteGaussianDpEvent of dimension None or
above 1, by its zCDP bound) where they are composed.

Under REPLACE_ONE a GaussianDpEvent is read as sensitivity 2 (as
dp_accounting's PLDAccountant does; its RdpAccountant reads 1) and compose
warns (SensitivityConventionWarning).  ``ledger`` is a DpEvent, as
dp_accounting's accountants give it, so that
``mechanism_calibration.calibrate_dp_mechanism(PLDAccountant, ...)`` works;
once dp_accounting.privacy_accountant is imported both accountants are
virtual subclasses of its PrivacyAccountant.  The library returns one code
(PLD_EVENT_EUSAGE) for "cannot account this" and for "bad value"; its
message tells them apart ("... is not supported ...", "... is not a
dp_accounting DpEvent ...", "has no field", "expected an event": the
former, raised as UnsupportedEventError; "... must be ..." and the like: a
plain ValueError with the library's message).  A value the translation
passes on but the mechanism refuses (GaussianDpEvent(-1)) is caught at
compose time too: the texts are checked by the library there
(pldkit.InvalidArgument, a ValueError).  RdpAccountant refuses at compose
time, with UnsupportedEventError naming the EVENT text, an event whose
text has no RDP formula in the library (no PLD bridge).

Every answer is pldkit's certified upper end (never below the truth);
``epsilon(delta)`` / ``delta(epsilon)`` give the whole bracket.
"""

import copy
import ctypes
import json
import math
import numbers
import sys
import warnings
from ctypes import (POINTER, c_char_p, c_double, c_int, c_size_t,
                    c_ulonglong)

from . import _hooks
from . import _lib
from . import events
from ._util import make_params
from .accountant import Accountant
from .errors import PldkitError

__all__ = ["PLDAccountant", "RdpAccountant", "UnsupportedEventError",
           "SensitivityConventionWarning", "REFUSALS", "DP_EVENT_CLASSES",
           "DpEvent", "permute_and_flip_pair", "PF_PAIRS",
           "NeighboringRelation", "from_json", "canonical", "plan",
           "EVENT_FIELDS", "NONPRIVATE"]


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
# The translation: the library's one (pld_event_from_dpevent,
# <pldkit/dpevent.h>, catalogue/dpevent.c), the same the CLI's --events-json
# uses.  The canonical tree becomes a pld_dpevent tree of ctypes structs
# (layouts mirror include/pldkit/dpevent.h) and the library gives the EVENT
# texts, which the catalogue answers (pldkit.events).

class _DpEvent(ctypes.Structure):
    pass


class _DpField(ctypes.Structure):
    _fields_ = [("name", c_char_p),
                ("kind", c_int),
                ("number", c_double),
                ("string", c_char_p),
                ("numbers", POINTER(c_double)),
                ("events", POINTER(_DpEvent)),
                ("n", c_size_t)]


_DpEvent._fields_ = [("class_name", c_char_p),
                     ("n_fields", c_size_t),
                     ("fields", POINTER(_DpField))]


# enum pld_dpevent_kind
_NULL, _NUMBER, _STRING, _NUMBERS, _EVENT, _EVENTS, _OTHER = range(7)
_lib.lib.pld_event_from_dpevent.restype = c_int
_lib.lib.pld_event_from_dpevent.argtypes = [
    POINTER(_DpEvent), c_int, c_ulonglong, POINTER(events.EventPtr),
    POINTER(c_int)]
_lib.lib.pld_dpevent_relation_parse.restype = c_int
_lib.lib.pld_dpevent_relation_parse.argtypes = [c_char_p, POINTER(c_int)]

#: the text the library gives a non-private event (PLD_DPEVENT_NONPRIVATE)
NONPRIVATE = "finite:p=1;0,q=0;1"


def _is_canonical(ev):
    return (isinstance(ev, tuple) and len(ev) == 2
            and isinstance(ev[0], str) and isinstance(ev[1], dict))


def _number(v):
    """v as a double, or None if it is no number (a bool is none: the
    library then says "must be a number"); an integer a double cannot hold
    exactly is none either, so no count is silently rounded."""
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        return None
    try:
        x = float(v)
    except (OverflowError, TypeError, ValueError):
        return None
    if isinstance(v, numbers.Integral) and x != int(v):
        return None
    return x


def _fill_event(ev, out, keep):
    """Fill the _DpEvent `out` from the canonical event `ev`; every buffer
    the C side points into is appended to `keep`."""
    name, fields = ev
    b = name.encode()
    keep.append(b)
    out.class_name = b
    arr = (_DpField * max(len(fields), 1))()
    keep.append(arr)
    out.fields = ctypes.cast(arr, POINTER(_DpField))
    out.n_fields = len(fields)
    for f, (fname, v) in zip(arr, fields.items()):
        nb = fname.encode()
        keep.append(nb)
        f.name = nb
        if fname in _EVENT_VALUED:
            one = (_DpEvent * 1)()
            keep.append(one)
            _fill_event(v, one[0], keep)
            f.kind, f.events, f.n = _EVENT, ctypes.cast(one, POINTER(
                _DpEvent)), 1
        elif fname in _EVENT_LIST:
            lst = (_DpEvent * max(len(v), 1))()
            keep.append(lst)
            for i, e in enumerate(v):
                _fill_event(e, lst[i], keep)
            f.kind, f.events, f.n = _EVENTS, ctypes.cast(lst, POINTER(
                _DpEvent)), len(v)
        elif v is None:
            f.kind = _NULL
        elif isinstance(v, (str, bytes)):
            sb = v.encode() if isinstance(v, str) else v
            keep.append(sb)
            f.kind, f.string = _STRING, sb
        elif _number(v) is not None:
            f.kind, f.number = _NUMBER, _number(v)
        elif isinstance(v, (list, tuple)) or (
                hasattr(v, "__iter__") and not isinstance(v, dict)):
            xs = [_number(x) for x in v]
            if any(x is None for x in xs):
                f.kind = _OTHER
            else:
                buf = (c_double * max(len(xs), 1))(*xs)
                keep.append(buf)
                f.kind, f.numbers, f.n = _NUMBERS, ctypes.cast(
                    buf, POINTER(c_double)), len(xs)
        else:
            f.kind = _OTHER


# The library's messages that say "pldkit cannot account this" (rather than
# "this value is out of range"): pld_event_from_dpevent returns
# PLD_EVENT_EUSAGE for both, so the message tells them apart.
_UNSUPPORTED = ("is not supported", "is not a dp_accounting DpEvent",
                "has no field", "expected an event", "expected a list of",
                "nested more than", "takes fewer than")


def _relation_code(relation):
    code = c_int()
    if _lib.lib.pld_dpevent_relation_parse(relation.encode(),
                                           ctypes.byref(code)) != 0:
        raise ValueError("neighboring_relation=%r must be one of %s"
                         % (relation, ", ".join(_RELATIONS)))
    return code.value


#: Why pldkit refuses the events it cannot account (dp_accounting 0.6.0's
#: names).  Each reason says what is missing, so that a user knows whether
#: another accountant or another description of the mechanism helps.
REFUSALS = {
    "ZCDpEvent": (
        "a (xi, rho)-zCDP guarantee is a bound on Renyi divergences, not a "
        "mechanism: no privacy loss distribution dominates every mechanism "
        "that meets it except through an RDP-to-(epsilon, delta) conversion, "
        "which is not a certified PLD answer (for a Gaussian mechanism, "
        "compose its GaussianDpEvent instead; "
        "pldkit.dp_accounting.RdpAccountant accounts zCDP terms exactly "
        "where they are composed, not under sampling)"),
    "SingleEpochTreeAggregationDpEvent": (
        "tree aggregation is accounted where it is composed (Composed / "
        "SelfComposed), as the Gaussian it is; under sampling or selection "
        "pldkit has no pair for it"),
    "RepeatAndSelectDpEvent": (
        "repeat-and-select with a random number of runs (Papernot & Steinke "
        "2022) is analysed in RDP only; pldkit has no privacy loss "
        "distribution for it"),
    "SampledWithReplacementDpEvent": (
        "with sampling with replacement a record can appear several times in "
        "one batch; pldkit has no dominating pair for it (dp_accounting "
        "accounts it in RDP only)"),
    "UnsupportedDpEvent": (
        "the event says itself that no accountant supports it"),
}

_REPLACE_ONE_REFUSALS = {
    "PoissonSampledDpEvent": (
        "Poisson subsampling under REPLACE_ONE: pldkit's Poisson-subsampled "
        "pairs are for add/remove neighbours (Zhu, Dong, Wang 2022) and it "
        "has no proven dominating pair for replace-one ones; account under "
        "ADD_OR_REMOVE_ONE (what DP-SGD with Poisson sampling is usually "
        "stated for), or use SampledWithoutReplacementDpEvent for a "
        "fixed-size batch"),
}


class SensitivityConventionWarning(UserWarning):
    """A GaussianDpEvent under REPLACE_ONE: read as sensitivity 2 (the sum
    moves by up to 2C when one record is replaced), dp_accounting's PLD
    convention; its RDP accountant reads sensitivity 1."""


_SENSITIVITY_WARNING = (
    "REPLACE_ONE: GaussianDpEvent(noise_multiplier=s) is accounted as a "
    "Gaussian of sensitivity 2 (replacing one record moves a sum of clipped "
    "terms by up to 2 clipping norms), as dp_accounting's PLDAccountant "
    "reads it; dp_accounting's RdpAccountant reads sensitivity 1 and gives a "
    "much smaller epsilon for the same event. If s is already the noise "
    "standard deviation over the replace-one sensitivity (std / (2 C)), "
    "compose GaussianDpEvent(2 * s) (python/README.md, 'Migration from "
    "dp_accounting')")


def _walk(ev, where="event"):
    """(where, name, fields) for every node of a canonical tree."""
    name, fields = ev
    yield where, name, fields
    for fname, v in fields.items():
        if fname in _EVENT_VALUED:
            yield from _walk(v, "%s.%s" % (where, fname))
        elif fname in _EVENT_LIST:
            for k, e in enumerate(v):
                yield from _walk(e, "%s.%s[%d]" % (where, fname, k))


def _refuse(ev, relation):
    """UnsupportedEventError with the reason for the first node pldkit
    cannot account (REFUSALS), before the library's translation."""
    for where, name, fields in _walk(ev):
        reason = REFUSALS.get(name)
        if reason is None and relation == "REPLACE_ONE":
            reason = _REPLACE_ONE_REFUSALS.get(name)
        if reason is not None:
            raise UnsupportedEventError("%s: %s is not supported by pldkit: %s"
                                        % (where, name, reason))
        if name == "DiscreteGaussianDpEvent" and fields.get("dimension") \
                is None:
            raise UnsupportedEventError(
                "%s: DiscreteGaussianDpEvent with dimension=None (unknown, "
                "dp_accounting's default) is not supported by pldkit: the "
                "discrete Gaussian's privacy loss depends on the dimension "
                "(the univariate and multivariate ones differ, Canonne, "
                "Kamath, Steinke 2020) and pldkit has the exact univariate "
                "pair only; pass dimension=1 if the output is one integer "
                "(pldkit.dp_accounting.RdpAccountant accounts any dimension "
                "by the discrete Gaussian's zCDP bound)" % where)


def _uses_replace_one_gaussian(ev):
    return any(name == "GaussianDpEvent" for _, name, _ in _walk(ev))


def _tree_depth(step_counts, where):
    """The most nodes one record reaches in a tree of T steps, the largest
    T of step_counts: the dyadic intervals [k 2^j + 1, (k + 1) 2^j] inside
    [1, T] that hold a step, at most floor(log2 T) + 1 = T.bit_length()
    (dp_accounting: ceil(log2(T + 1)), the same integer)."""
    counts = step_counts if isinstance(step_counts, list) else [step_counts]
    if not counts:
        raise ValueError("%s: SingleEpochTreeAggregationDpEvent step_counts "
                         "must be an integer or a non-empty list" % where)
    for c in counts:
        if isinstance(c, bool) or _number(c) is None or \
                not float(c).is_integer() or c < 0:
            raise ValueError("%s: SingleEpochTreeAggregationDpEvent "
                             "step_counts=%r must be integers >= 0"
                             % (where, step_counts))
    return int(max(counts)).bit_length()


def _rewrite(ev, where="event"):
    """The tree with every SingleEpochTreeAggregationDpEvent where it is
    composed replaced by the Gaussian it is: one record, in one tree only,
    adds its clipped term to the `depth` nodes over its step, each with
    its own N(0, sigma^2) noise, so the released nodes are a Gaussian
    mechanism of L2 sensitivity sqrt(depth) (Kairouz et al. 2021, App. D),
    exactly: GaussianDpEvent(sigma / sqrt(depth)), rounded down by two
    ulps (less noise is less private).  Outputs computed from the nodes
    (prefix sums) are a post-processing, for which this is an upper
    bound.  Elsewhere it is left (refused)."""
    name, f = ev
    if name == "ComposedDpEvent":
        return (name, {"events": [_rewrite(e, "%s.events[%d]" % (where, k))
                                  for k, e in enumerate(f["events"])]})
    if name == "SelfComposedDpEvent":
        g = dict(f)
        g["event"] = _rewrite(f["event"], where + ".event")
        return (name, g)
    if name == "SingleEpochTreeAggregationDpEvent":
        sigma = _num(f["noise_multiplier"], where, "noise_multiplier")
        if not (math.isfinite(sigma) and sigma >= 0):
            raise ValueError("%s: SingleEpochTreeAggregationDpEvent "
                             "noise_multiplier=%r must be finite and >= 0"
                             % (where, f["noise_multiplier"]))
        depth = _tree_depth(f["step_counts"], where)
        if depth == 0:
            return ("NoOpDpEvent", {})
        s = sigma / math.sqrt(depth)
        if s > 0:
            s = math.nextafter(math.nextafter(s, 0.0), 0.0)
        return ("GaussianDpEvent", {"noise_multiplier": s})
    return ev


def _translate(event, relation, count):
    """(EVENT texts, nonprivate) of `count` runs of the tree under the
    relation, by pld_event_from_dpevent.  Raises UnsupportedEventError for
    what pldkit cannot account and ValueError for bad values, each with
    the library's message (naming the event and its place in the tree)."""
    ev = event if _is_canonical(event) else canonical(event)
    ev = _rewrite(ev)
    _refuse(ev, relation)
    if isinstance(count, bool) or _number(count) is None or \
            not float(count).is_integer() or not 0 <= count <= 2 ** 53:
        raise ValueError("count=%r must be an integer in [0, 2^53]"
                         % (count,))
    root = _DpEvent()
    keep = []
    _fill_event(ev, root, keep)
    out = events.EventPtr()
    nonprivate = c_int(0)
    st = _lib.lib.pld_event_from_dpevent(ctypes.byref(root),
                                         _relation_code(relation),
                                         int(count), ctypes.byref(out),
                                         ctypes.byref(nonprivate))
    if st != 0:
        msg = _lib.error_detail() or _lib.strerror(st)
        if st == _lib.PLD_EINVAL:
            if any(k in msg for k in _UNSUPPORTED):
                raise UnsupportedEventError(msg)
            raise ValueError(msg)
        raise PldkitError(msg)
    tree = events.Event._adopt(out)
    return _split_top(str(tree)), bool(nonprivate.value)


def _split_top(text):
    """The canonical text of a composition cut into its EVENTs: at each '+'
    at bracket depth 0 followed by a letter (the grammar's rule)."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        elif ch == "+" and depth == 0 and text[i + 1:i + 2].isalpha():
            out.append(text[start:i])
            start = i + 1
    if text:
        out.append(text[start:])
    return out


def plan(event, relation="ADD_OR_REMOVE_ONE", count=1):
    """The EVENT texts (the CLI's grammar, ``pldkit events``) that `count`
    runs of the event tree compose, in the order of the tree, as the
    library translates it (pld_event_from_dpevent; the CLI's --events-json
    gives the same).  A non-private event gives NONPRIVATE.  `event` may be
    in any accepted form; `relation` a NeighboringRelation name or
    member.  (Before there was one translation in the library, plan()
    returned Python mechanism specs; it now returns these texts.)"""
    return _translate(event, _relation(relation), count)[0]


# --------------------------------------------------------------------------
# The accountants.

def _relation(rel):
    name = getattr(rel, "name", rel)
    if name not in _RELATIONS:
        raise ValueError("neighboring_relation=%r must be one of %s"
                         % (rel, ", ".join(_RELATIONS)))
    return name


class _Base(object):
    """What both accountants share: the ledger, the EVENT texts, supports,
    compose."""

    def __init__(self, neighboring_relation="ADD_OR_REMOVE_ONE"):
        self._relation_name = _relation(neighboring_relation)
        self._ledger = []      # (canonical event, count)
        self._texts = []       # the EVENT texts of the ledger, in order
        self._nonprivate = False

    @property
    def neighboring_relation(self):
        """dp_accounting's NeighboringRelation member when dp_accounting is
        imported, else its name (a string)."""
        pa = sys.modules.get("dp_accounting.privacy_accountant")
        enum = getattr(pa, "NeighboringRelation", None)
        member = getattr(enum, self._relation_name, None)
        return member if member is not None else self._relation_name

    def supports(self, event):
        """True if compose(event) can account this event (under this
        neighboring relation)."""
        try:
            texts, _, terms = self._texts_of(event, 1)
            self._commit(self._prepare(texts, terms), dry=True)
        except UnsupportedEventError:
            return False
        except (ValueError, TypeError, PldkitError):
            return True  # a supported event with bad numbers: compose says
        return True

    def _texts_of(self, event, count):
        """(EVENT texts, nonprivate, terms) of `count` runs of the tree:
        the library's translation; terms are what an accountant accounts
        beside the texts (RdpAccountant: zCDP terms)."""
        texts, nonprivate = _translate(event, self._relation_name, count)
        return texts, nonprivate, []

    def _prepare(self, texts, terms=()):
        """What composing `texts` needs built (raises if it cannot)."""
        return None

    def _commit(self, prepared, dry=False):
        """Keep what _prepare built (dry: release it)."""

    def _keep_terms(self, terms):
        """The terms of a committed compose."""

    def compose(self, event, count=1):
        """Add `count` runs of the event tree.  Returns self.  Raises
        UnsupportedEventError (naming the event and its place in the tree)
        for what pldkit cannot account, ValueError for bad parameters (the
        library's message); nothing is added then.  Under REPLACE_ONE a
        GaussianDpEvent warns (SensitivityConventionWarning): it is read
        as sensitivity 2."""
        ev = event if _is_canonical(event) else canonical(event)
        texts, nonprivate, terms = self._texts_of(ev, count)
        self._commit(self._prepare(texts, terms))
        self._keep_terms(terms)
        if self._relation_name == "REPLACE_ONE" and \
                _uses_replace_one_gaussian(_rewrite(ev)):
            warnings.warn(_SENSITIVITY_WARNING, SensitivityConventionWarning,
                          stacklevel=2)
        self._texts = _merged(self._texts, texts)
        self._nonprivate = self._nonprivate or nonprivate
        self._ledger.append((ev, count))
        return self

    @property
    def ledger(self):
        """The composed events as one DpEvent, as dp_accounting's
        accountants give it (its DpEventBuilder): NoOpDpEvent() when
        nothing was composed, the event itself when one was once, a
        SelfComposedDpEvent for a count above 1, a ComposedDpEvent of
        several (NoOp events are left out, consecutive equal ones merged,
        a SelfComposedDpEvent is unfolded into its count).  The classes are
        dp_accounting.dp_event's when dp_accounting is imported, else
        pldkit.dp_accounting's stand-ins of the same names and fields
        (DP_EVENT_CLASSES)."""
        return _build_ledger(self._ledger)

    @property
    def entries(self):
        """The composed events as (canonical event, count) pairs, in order
        (what ``ledger`` was before it became a DpEvent)."""
        return list(self._ledger)

    @property
    def events(self):
        """The EVENT texts the library translated the ledger into (what
        `pldkit epsilon EVENT...` would be given)."""
        return list(self._texts)

    def __reduce__(self):
        return (_rebuild, (type(self), self._init_args(), self._ledger))


# --------------------------------------------------------------------------
# The ledger as a DpEvent.

def _standin_class(name):
    spec = EVENT_FIELDS[name]
    names = [f if isinstance(f, str) else f[0] for f in spec]
    defaults = {f[0]: f[1] for f in spec if not isinstance(f, str)}

    def __init__(self, *args, **kwargs):
        if len(args) > len(names):
            raise TypeError("%s takes %d fields" % (name, len(names)))
        values = dict(zip(names, args))
        for k, v in kwargs.items():
            if k not in names or k in values:
                raise TypeError("%s: bad or repeated field %r" % (name, k))
            values[k] = v
        for k in names:
            if k not in values:
                if k not in defaults:
                    raise TypeError("%s: missing field %r" % (name, k))
                values[k] = defaults[k]
        for k in names:
            object.__setattr__(self, k, values[k])

    def __setattr__(self, k, v):
        raise AttributeError("%s is frozen" % name)

    def __eq__(self, other):
        return type(other) is type(self) and all(
            getattr(self, k) == getattr(other, k) for k in names)

    def __hash__(self):
        return hash((name,) + tuple(
            tuple(v) if isinstance(v, list) else v
            for v in (getattr(self, k) for k in names)))

    def __repr__(self):
        return "%s(%s)" % (name, ", ".join(
            "%s=%r" % (k, getattr(self, k)) for k in names))

    return type(name, (DpEvent,), {
        "__slots__": tuple(names), "__init__": __init__,
        "__setattr__": __setattr__, "__eq__": __eq__, "__hash__": __hash__,
        "__repr__": __repr__, "__module__": __name__})


class DpEvent(object):
    """The base of pldkit's stand-ins of dp_accounting's DpEvent classes
    (used for ``ledger`` when dp_accounting is not imported)."""
    __slots__ = ()


#: pldkit's stand-ins of dp_accounting's DpEvent classes, by name (frozen,
#: equal by fields, with dp_accounting's field names and defaults).
DP_EVENT_CLASSES = {name: _standin_class(name) for name in EVENT_FIELDS}


def _event_classes():
    """The module whose DpEvent classes the ledger is built of."""
    de = sys.modules.get("dp_accounting.dp_event")
    if de is not None and all(hasattr(de, n) for n in
                              ("NoOpDpEvent", "SelfComposedDpEvent",
                               "ComposedDpEvent")):
        return lambda name: getattr(de, name, None) or DP_EVENT_CLASSES[name]
    return DP_EVENT_CLASSES.__getitem__


def _to_dp_event(ev, cls):
    name, fields = ev
    values = {}
    for fname, v in fields.items():
        if fname in _EVENT_VALUED:
            v = _to_dp_event(v, cls)
        elif fname in _EVENT_LIST:
            v = [_to_dp_event(e, cls) for e in v]
        values[fname] = v
    return cls(name)(**values)


def _build_ledger(entries):
    cls = _event_classes()
    flat = []     # [canonical event, count], dp_accounting's builder rules

    def add(ev, count):
        name, fields = ev
        if name == "NoOpDpEvent" or count == 0:
            return
        if name == "SelfComposedDpEvent":
            add(fields["event"], count * fields["count"])
            return
        if flat and flat[-1][0] == ev:
            flat[-1][1] += count
        else:
            flat.append([ev, count])

    for ev, count in entries:
        add(ev, count)
    events = []
    for ev, count in flat:
        e = _to_dp_event(ev, cls)
        events.append(e if count == 1 else
                      cls("SelfComposedDpEvent")(event=e, count=count))
    if not events:
        return cls("NoOpDpEvent")()
    if len(events) == 1:
        return events[0]
    return cls("ComposedDpEvent")(events=events)


def _register(module):
    """dp_accounting.privacy_accountant imported: pldkit's accountants
    become virtual subclasses of its PrivacyAccountant (an ABC), so that
    isinstance checks pass."""
    base = getattr(module, "PrivacyAccountant", None)
    if base is not None and hasattr(base, "register"):
        base.register(PLDAccountant)
        base.register(RdpAccountant)


def permute_and_flip_pair(epsilon, kind="edge"):
    """(P, Q): output distributions of permute-and-flip with parameter
    epsilon on two neighbouring datasets, from the mechanism's definition
    (McKenna & Sheldon 2020, Alg. 1: visit the candidates in a random
    order, output candidate r with probability exp(epsilon (q_r - q*) /
    (2 Delta)), q* the best score).  With two candidates whose scores
    differ by d, candidate 1 wins with probability F(d) = 1 - e^(-eps d /
    (2 Delta)) / 2 for d >= 0 and e^(eps d / (2 Delta)) / 2 for d < 0 (the
    loser must be visited first and accepted), and a neighbour moves d by
    up to 2 Delta (each score by Delta).  Two such pairs:

    * "edge": scores (0, 0) on D, (Delta, -Delta) on D': P = (1/2, 1/2),
      Q = (1 - e^-eps / 2, e^-eps / 2); its privacy loss reaches eps (the
      better one for epsilons near the composed maximum);
    * "swap": scores (0, Delta) on D, (Delta, 0) on D': P = (m, 1 - m),
      Q = (1 - m, m), m = e^(-eps/2) / 2; its total variation 1 - e^(-eps/2)
      is the largest of any two-candidate pair (the better one for small
      epsilons).

    The small masses are rounded up (by a relative 1e-12, at least the
    smallest normal double, at most 1/2): that pair is the true one
    mixed toward its other member (for "swap", passed through a binary
    symmetric channel), whose hockey-stick divergences are no larger
    (joint convexity, post-processing), so the pair's answers stay lower
    bounds for P&F.  The library normalises a finite pair by its sums
    (pld_mech_finite), which moves m by about 1e-16 relative, far less
    than the 1e-12 it was raised by."""
    if kind == "edge":
        m = math.exp(-epsilon) / 2 * (1 + 1e-12)
        m = min(max(m, 2.2250738585072014e-308), 0.5)
        return (0.5, 0.5), (1.0 - m, m)
    if kind == "swap":
        m = math.exp(-epsilon / 2) / 2 * (1 + 1e-12)
        m = min(max(m, 2.2250738585072014e-308), 0.5)
        return (m, 1.0 - m), (1.0 - m, m)
    raise ValueError("kind=%r must be 'edge' or 'swap'" % (kind,))


#: the realized pairs whose lower ends bound PermuteAndFlipDpEvent's
PF_PAIRS = ("edge", "swap")


def _pf_text(epsilon, kind="edge"):
    (p1, p2), (q1, q2) = permute_and_flip_pair(epsilon, kind)
    return "finite:p=%r;%r,q=%r;%r" % (p1, p2, q1, q2)


def _lower_texts(ev, relation, count, kind="edge"):
    """EVENT texts of `count` runs of the canonical tree with every
    PermuteAndFlipDpEvent (alone or Poisson-sampled) replaced by a
    realized pair (permute_and_flip_pair(eps, kind)), the rest translated
    by the library as compose does."""
    name, fields = ev
    if count == 0:
        return []
    if not any(n == "PermuteAndFlipDpEvent" for _, n, _ in _walk(ev)):
        return _translate(ev, relation, count)[0]
    if name == "ComposedDpEvent":
        out = []
        for e in fields["events"]:
            out = _merged(out, _lower_texts(e, relation, count, kind))
        return out
    if name == "SelfComposedDpEvent":
        return _lower_texts(fields["event"], relation,
                            count * int(fields["count"]), kind)
    if name == "PermuteAndFlipDpEvent":
        if fields["epsilon"] == 0:
            return []
        return ["%s,count=%d" % (_pf_text(fields["epsilon"], kind), count)]
    if name == "PoissonSampledDpEvent" and \
            fields["event"][0] == "PermuteAndFlipDpEvent":
        q, eps = fields["sampling_probability"], fields["event"][1]["epsilon"]
        if q == 0 or eps == 0:
            return []
        return ["poisson-sampled:q=%r,count=%d[%s]" % (q, count,
                                                        _pf_text(eps, kind))]
    # anything else around a P&F: the library's translation (which refuses
    # what it cannot account)
    return _translate(ev, relation, count)[0]


def _merged(old, new):
    """old + new, the first of new folded into the last of old when they
    are the same EVENT but for the count (the library writes
    "...,count=N" last, or just before a member list "[...]"): a loop
    calling compose(event) once per step keeps one text, as
    pldkit.Accountant keeps one group (same numbers: count=N is N runs;
    the tests check it)."""
    def split(text):
        # canonical texts leave count=1 out
        head, bracket, tail = text.partition("[")
        h, sep, n = head.rpartition(",count=")
        if not sep and ":" in head:
            h, sep, n = head, ",count=", "1"
        return h, sep, n, bracket + tail
    out = list(old)
    if out and new:
        a, sep_a, na, ta = split(out[-1])
        b, sep_b, nb, tb = split(new[0])
        if sep_a and sep_b and a == b and ta == tb and na.isdigit() \
                and nb.isdigit() and int(na) + int(nb) <= 2 ** 53:
            out[-1] = "%s,count=%d%s" % (a, int(na) + int(nb), ta)
            new = new[1:]
    out.extend(new)
    return out


def _rebuild(cls, kwargs, ledger):
    acc = cls(**kwargs)
    for ev, c in ledger:
        acc.compose(ev, c)
    return acc


class PLDAccountant(_Base):
    """dp_accounting's PLDAccountant on pldkit's certified PLD accounting.

    The events are translated by the library (pld_event_from_dpevent) into
    EVENT texts and answered by the catalogue (pldkit.epsilon /
    pldkit.delta), the code path of ``pldkit epsilon --events-json``, so
    both give the same numbers to the last bit.
    ``neighboring_relation``: ADD_OR_REMOVE_ONE (default), REPLACE_ONE or
    REPLACE_SPECIAL (dp_accounting's enum members or their names).
    ``value_discretization_interval`` is accepted for dp_accounting's
    signature and ignored: pldkit chooses its grid to meet ``accuracy``
    (default 2e-3 relative width of the bracket); pass ``discretization``
    to fix one.  Other keywords: ``accuracy``, ``abs_accuracy``,
    ``discretization``, ``tail_mass``, ``max_grid`` (None: the default)."""

    _OPTIONS = ("accuracy", "abs_accuracy", "discretization", "tail_mass",
                "max_grid")

    def __init__(self, neighboring_relation="ADD_OR_REMOVE_ONE",
                 value_discretization_interval=None, **params):
        super().__init__(neighboring_relation)
        bad = sorted(set(params) - set(self._OPTIONS))
        if bad:
            raise TypeError("PLDAccountant: unknown keyword(s) %s (%s)"
                            % (", ".join(bad), ", ".join(self._OPTIONS)))
        self._vdi = value_discretization_interval
        self._params = dict(params)
        # validated now (as pldkit.Accountant did), not at the first query
        make_params("PLDAccountant", **params)

    def _prepare(self, texts, terms=()):
        """Every EVENT text is checked by the library now (its parameters'
        domains: a throwaway pld_event_accountant builds the mechanisms
        without composing them), so that compose refuses a bad value and
        adds nothing, as pldkit.Accountant.compose does.  InvalidArgument
        is a ValueError."""
        real = [t for t in texts if t != NONPRIVATE]
        if real:
            events.accountant(*real, **self._params).close()
        return None

    def _init_args(self):
        kw = dict(self._params)
        kw["neighboring_relation"] = self._relation_name
        kw["value_discretization_interval"] = self._vdi
        return kw

    @property
    def accountant(self):
        """A new pldkit.Accountant holding the composed events (built by the
        library from the EVENT texts, pld_event_accountant); it composes
        further and pickles."""
        if not self._texts:
            return Accountant(**self._params)
        return events.accountant(*self._texts, **self._params)

    def epsilon(self, delta):
        """The pldkit Result (bracket) for epsilon(delta), or None when the
        answer is exact without one (no events: 0; non-private: inf).
        With a PermuteAndFlipDpEvent in the ledger the lower end is that of
        the mechanism's realized pair (see _permute_and_flip_lower)."""
        if self._nonprivate or not self._texts:
            return None
        r = events.epsilon(delta, *self._texts, **self._params)
        return self._permute_and_flip_lower(r, events.epsilon, delta)

    def delta(self, epsilon):
        """The pldkit Result (bracket) for delta(epsilon), or None as in
        epsilon()."""
        if self._nonprivate or not self._texts:
            return None
        r = events.delta(epsilon, *self._texts, **self._params)
        return self._permute_and_flip_lower(r, events.delta, epsilon)

    def _permute_and_flip_lower(self, result, query, at):
        """The library accounts PermuteAndFlipDpEvent(eps) by the dominating
        pair of every eps-DP mechanism (P&F is eps-DP, McKenna & Sheldon
        2020, Thm. 1), so the upper end is certified for it, but that
        pair's lower end is no lower bound for P&F, whose worst case may be
        smaller.  The lower end is recomputed with a pair P&F realizes
        (PF_PAIRS), which is a true lower bound: the bracket is then
        [lower end for the realized pair, upper end for the eps-DP pair].
        pldkit does not know P&F's exact worst-case pair, so the bracket
        can be wide (width_limit 'mechanism'); the lower end is the larger
        of two realized pairs' (PF_PAIRS)."""
        if not any(name == "PermuteAndFlipDpEvent"
                   for ev, _ in self._ledger for _, name, _ in _walk(ev)):
            return result
        lower = 0.0
        for kind in PF_PAIRS:   # each a true lower bound: keep the larger
            texts = []
            for ev, count in self._ledger:
                texts = _merged(texts, _lower_texts(
                    ev, self._relation_name, count, kind))
            texts = [t for t in texts if t != NONPRIVATE]
            if texts:
                lower = max(lower, query(at, *texts, **self._params).lower)
        r = copy.copy(result)
        r.lower = min(lower, result.upper)
        r.width_limit = "mechanism"
        return r

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
            self._relation_name, len(self._ledger))


class RdpAccountant(_Base):
    """dp_accounting's RdpAccountant on pldkit's RDP backend: the events
    whose EVENT texts have an RDP formula in the library (Gaussian,
    Laplace, randomized response, Poisson-sampled Gaussian, Gaussian
    sampled without replacement, ..., and their compositions); an event
    without one is refused at compose time (no PLD bridge: that is
    PLDAccountant's job).  ``orders``: None for pldkit's default grid."""

    def __init__(self, orders=None, neighboring_relation="ADD_OR_REMOVE_ONE"):
        super().__init__(neighboring_relation)
        self._orders = None if orders is None else [float(a) for a in orders]
        self._curve = None
        self._terms = []     # (rho, xi, count): zCDP terms of the ledger

    def _texts_of(self, event, count):
        """The library's texts of the tree but for its zCDP terms, which
        the library has no EVENT for and RDP accounts exactly: a
        ZCDpEvent(rho, xi) is (alpha, xi + rho alpha)-RDP (its definition,
        Bun & Steinke 2016), a DiscreteGaussianDpEvent of dimension other
        than 1 (None: unknown) is rho = sensitivity^2 / (2 sigma^2) zCDP in
        every dimension (Canonne, Kamath, Steinke 2020, Prop. 5 per
        coordinate; Renyi divergences of product distributions add).  Only
        where they are composed (Composed / SelfComposed): under sampling
        they go to the library, which refuses them."""
        ev = event if _is_canonical(event) else canonical(event)
        _check_count(count)
        rest, terms = [], []
        _split_zcdp(ev, count, rest, terms)
        texts, nonprivate = [], False
        for sub, c in rest:
            t, n = _translate(sub, self._relation_name, c)
            texts = _merged(texts, t)
            nonprivate = nonprivate or n
        return texts, nonprivate, terms

    def _keep_terms(self, terms):
        self._terms.extend(terms)

    def _init_args(self):
        return {"orders": self._orders,
                "neighboring_relation": self._relation_name}

    def _rdp_texts(self, texts):
        return [t for t in texts if t != NONPRIVATE]

    def _prepare(self, texts, terms=()):
        """The curve of the ledger's texts and these (the library's
        pld_event_rdp_curve, no PLD bridge), or None when these add no RDP.
        An EVENT without an RDP formula: UnsupportedEventError naming
        it."""
        new = self._rdp_texts(texts)
        if not new and not terms:
            return None
        try:
            every = self._rdp_texts(_merged(self._texts, texts))
            if every:
                curve = events._rdp_curve(every, self._orders, no_bridge=True)
            else:
                from .rdp import RdpCurve
                curve = RdpCurve(self._orders)
            for rho, xi, c in list(self._terms) + list(terms):
                curve.add_values([_up(xi + rho * a) for a in curve.orders], c)
            return curve
        except PldkitError as e:
            # the library refuses an EVENT without an RDP formula with
            # PLD_EUNSUPPORTED ("...not supported...", rc EUSAGE); anything
            # else is a bad value (InvalidArgument, a ValueError) or the
            # machine's failure, raised as the library reports it
            if "not supported" not in str(e):
                raise
            bad = new[0]
            for t in new:   # which one: each alone
                try:
                    events._rdp_curve([t], self._orders).close()
                except PldkitError:
                    bad = t
                    break
            raise UnsupportedEventError(
                "the event gives the EVENT %r, which pldkit cannot account "
                "in RDP (%s); use pldkit.dp_accounting.PLDAccountant"
                % (bad, e)) from None

    def _commit(self, curve, dry=False):
        if curve is None:
            return
        if dry:
            curve.close()
            return
        if self._curve is not None:
            self._curve.close()
        self._curve = curve

    def get_epsilon(self, target_delta):
        _check_delta(target_delta)
        if self._nonprivate:
            return math.inf
        if self._curve is None:
            return 0.0
        return self._curve.get_epsilon(target_delta)

    def get_delta(self, target_epsilon):
        _check_epsilon(target_epsilon)
        if self._nonprivate:
            return 1.0
        if self._curve is None:
            return 0.0
        return self._curve.get_delta(target_epsilon)


def _up(x):
    """x rounded up by two ulps (one for the operation that made it)."""
    return math.nextafter(math.nextafter(x, math.inf), math.inf)


def _check_count(count):
    if isinstance(count, bool) or _number(count) is None or \
            not float(count).is_integer() or not 0 <= count <= 2 ** 53:
        raise ValueError("count=%r must be an integer in [0, 2^53]"
                         % (count,))


def _split_zcdp(ev, count, rest, terms, where="event"):
    """Walk the compositions of the canonical tree: zCDP terms (rho, xi,
    count) to `terms`, every other subtree (with its count) to `rest`."""
    name, f = ev
    if name == "ComposedDpEvent":
        for k, e in enumerate(f["events"]):
            _split_zcdp(e, count, rest, terms, "%s.events[%d]" % (where, k))
    elif name == "SelfComposedDpEvent":
        c = f["count"]
        if isinstance(c, bool) or _number(c) is None or \
                not float(c).is_integer() or c < 0:
            raise ValueError("%s: SelfComposedDpEvent count=%r must be an "
                             "integer >= 0" % (where, c))
        _split_zcdp(f["event"], count * int(c), rest, terms, where + ".event")
    elif name == "ZCDpEvent":
        rho = _num(f["rho"], where, "rho")
        xi = _num(f["xi"], where, "xi")
        if not (math.isfinite(rho) and rho >= 0 and math.isfinite(xi)
                and xi >= 0):
            raise ValueError("%s: ZCDpEvent rho=%r and xi=%r must be finite "
                             "numbers >= 0" % (where, f["rho"], f["xi"]))
        if count and (rho or xi):
            terms.append((rho, xi, count))
    elif name == "DiscreteGaussianDpEvent" and f["dimension"] != 1:
        sigma = _num(f["sigma"], where, "sigma")
        sens = _num(f["sensitivity"], where, "sensitivity")
        dim = f["dimension"]
        if dim is not None and (isinstance(dim, bool) or _number(dim) is None
                                or not float(dim).is_integer() or dim < 1):
            raise ValueError("%s: DiscreteGaussianDpEvent dimension=%r must "
                             "be None or an integer >= 1" % (where, dim))
        if not (math.isfinite(sigma) and sigma > 0 and math.isfinite(sens)
                and sens >= 0):
            raise ValueError("%s: DiscreteGaussianDpEvent sigma=%r must be "
                             "finite and > 0, sensitivity=%r finite and >= 0"
                             % (where, f["sigma"], f["sensitivity"]))
        rho = _up(sens * sens / (2.0 * sigma * sigma))
        if count and rho:
            terms.append((rho, 0.0, count))
    else:
        rest.append((ev, count))


def _num(v, where, name):
    x = _number(v)
    if x is None or math.isnan(x):
        raise ValueError("%s: %s=%r must be a number" % (where, name, v))
    return x


def _check_delta(d):
    x = _num(d, "get_epsilon", "target_delta")
    if not 0 < x < 1:
        raise ValueError("get_epsilon: target_delta=%r must be in (0, 1)"
                         % (d,))


def _check_epsilon(e):
    x = _num(e, "get_delta", "target_epsilon")
    if not x >= 0:
        raise ValueError("get_delta: target_epsilon=%r must be >= 0" % (e,))


_hooks.after_import("dp_accounting.privacy_accountant", _register)
