"""The EVENT catalogue: the CLI's grammar, answered by the library.

    import pldkit
    r = pldkit.epsilon(1e-5, "poisson-gaussian:q=0.01,sigma=1,count=1000")
    r.upper            # certified; the same digits as `pldkit epsilon`

``pldkit.epsilon(delta, *events, backend="pld", **options)``,
``pldkit.delta(epsilon, *events, ...)`` and ``pldkit.curve(epsilons,
*events, ...)`` take EVENT texts exactly as the CLI does (``pldkit events``
lists them; ``NAME:key=value,...``, ``count=``, random-selection brackets,
``pld:file=``) and call the library's answer functions (<pldkit/event.h>),
the same code path as the CLI, so both give the same numbers to the last
digit.  Options: ``accuracy``, ``abs_accuracy``, ``discretization``,
``tail_mass``, ``max_grid`` (the CLI's --accuracy, --abs-accuracy,
--discretization, --tail-mass, --max-grid; None keeps the default),
``rdp_conversion`` ('best', 'classic', 'improved') and
``orders`` (RDP orders).

``backend``: 'pld' (default; the tightest certified bound the library has)
returns a Result; 'rdp' an RdpResult; 'both' a pair (Result, RdpResult).
A closed-form single-round event (random-participation analysis=thm41,
ols, cs, mwcs) returns a Result whose ``closed`` dict says whether its upper
end is certified.  Bad input raises InvalidArgument with the CLI's message.
"""

import ctypes
from ctypes import (POINTER, Structure, c_char, c_char_p, c_double, c_int,
                    c_longlong, c_size_t, c_uint, c_ulonglong, c_void_p)

from . import _lib
from .errors import InvalidArgument, PldkitError, error_class
from .results import CurveResult, Result
from .rdp import RdpResult

__all__ = ["epsilon", "delta", "curve", "accountant", "calibrate",
           "catalogue", "Event", "EventAnswer"]

BACKEND_PLD = 1
BACKEND_RDP = 2
_BACKENDS = {"pld": BACKEND_PLD, "rdp": BACKEND_RDP,
             "both": BACKEND_PLD | BACKEND_RDP}
_CONVERSIONS = {"best": 0, "classic": 1, "improved": 2}


class _Query(Structure):
    _fields_ = [("size", c_size_t),
                ("params", _lib.Params),
                ("backend", c_uint),
                ("rdp_method", c_int),
                ("orders", POINTER(c_double)),
                ("n_orders", c_size_t)]


class _ClosedAnswer(Structure):
    _fields_ = [("bound", _lib.Bound),
                ("certified", c_int),
                ("refuted", c_int),
                ("below_cs", c_int),
                ("cs_delta", c_double),
                ("lower_limit", c_double),
                ("evaluations", c_uint),
                ("analysis", c_char * 8)]


class _Answer(Structure):
    _fields_ = [("size", c_size_t),
                ("have_pld", c_int),
                ("pld", _lib.Result),
                ("closed", c_int),
                ("closed_answer", _ClosedAnswer),
                ("have_rdp", c_int),
                ("rdp", _lib.RdpResult),
                ("bridged", c_uint),
                ("rdp_n", c_size_t),
                ("rdp_first", c_double), ("rdp_last", c_double),
                ("note", c_char_p),
                ("not_bound", c_char_p),
                ("pld_seconds", c_double), ("rdp_seconds", c_double)]


class _Info(Structure):
    _fields_ = [("name", c_char_p),
                ("title", c_char_p),
                ("summary", c_char_p),
                ("example", c_char_p),
                ("rdp_how", c_char_p),
                ("has_pld", c_int),
                ("n_keys", c_size_t),
                ("members", c_int)]


class _Summary(Structure):
    _fields_ = [("size", c_size_t),
                ("events", c_size_t),
                ("closed", c_int),
                ("closed_analysis", c_char_p),
                ("has_pld", c_int),
                ("has_rdp_formula", c_int),
                ("files", c_int),
                ("note", c_char_p),
                ("not_bound", c_char_p)]


class _Hole(Structure):
    _fields_ = [("size", c_size_t),
                ("present", c_int),
                ("key", c_char * 32),
                ("where", c_char * 96),
                ("direction", c_int),
                ("integer", c_int),
                ("lo", c_double), ("hi", c_double)]


class _Calibration(Structure):
    _fields_ = [("size", c_size_t),
                ("search", _lib.SearchResult),
                ("closed", _ClosedAnswer),
                ("closed_form", c_int),
                ("rdp", _lib.RdpResult),
                ("rdp_next", _lib.RdpResult),
                ("have_rdp", c_int),
                ("bridged", c_uint)]


class _Event(Structure):
    pass


EventPtr = POINTER(_Event)

_lib.check_sizes({"pld_event_query": _Query, "pld_event_answer": _Answer,
                  "pld_event_closed_answer": _ClosedAnswer,
                  "pld_event_info": _Info, "pld_event_summary": _Summary,
                  "pld_event_hole": _Hole,
                  "pld_event_calibration": _Calibration})

_lib.declare({
    "pld_event_count": (c_size_t, []),
    "pld_event_info_get": (c_int, [c_size_t, POINTER(_Info)]),
    "pld_event_query_default": (None, [POINTER(_Query)]),
    "pld_event_parse": (c_int, [c_char_p, POINTER(EventPtr)]),
    "pld_event_compose": (c_int, [c_size_t, POINTER(EventPtr),
                                  POINTER(EventPtr)]),
    "pld_event_free": (None, [EventPtr]),
    "pld_event_format": (c_int, [EventPtr, c_char_p, c_size_t,
                                 POINTER(c_size_t)]),
    "pld_event_summarize": (c_int, [EventPtr, POINTER(_Summary)]),
    "pld_event_get_hole": (c_int, [EventPtr, POINTER(_Hole)]),
    "pld_event_fill": (c_int, [EventPtr, c_double, POINTER(EventPtr)]),
    "pld_event_to_accountant": (c_int, [EventPtr, POINTER(_lib.Params),
                                        POINTER(_lib.AccPtr)]),
    "pld_event_add_to": (c_int, [EventPtr, _lib.AccPtr]),
    "pld_event_to_rdp": (c_int, [EventPtr, c_size_t, POINTER(c_double),
                                 c_int, POINTER(_lib.Params),
                                 POINTER(_lib.RdpPtr), POINTER(c_uint)]),
    "pld_event_epsilon": (c_int, [EventPtr, POINTER(_Query), c_double,
                                  POINTER(_Answer)]),
    "pld_event_delta": (c_int, [EventPtr, POINTER(_Query), c_double,
                                POINTER(_Answer)]),
    "pld_event_curve": (c_int, [EventPtr, POINTER(_Query), c_size_t,
                                POINTER(c_double), POINTER(_lib.Bound),
                                POINTER(_Answer)]),
    "pld_event_calibrate": (c_int, [EventPtr, POINTER(_Query), c_double,
                                    c_double, c_void_p, c_void_p, c_void_p,
                                    POINTER(_Calibration)]),
})


class Event(object):
    """An event tree (<pldkit/event.h>): EVENT texts parsed once.

    ``Event("poisson-gaussian:q=0.01,sigma=1,count=1000")``; ``a + b``
    composes; ``str(e)`` is the canonical text; ``e.hole`` names a KEY=?
    (or is None) and ``e.fill(value)`` returns the filled tree."""

    __slots__ = ("_ptr",)

    def __init__(self, *texts):
        if not texts:
            raise InvalidArgument("An argument is invalid", code=1,
                                  function="pldkit.Event",
                                  detail="no EVENT given (an empty "
                                  "composition has no privacy loss to "
                                  "account)")
        parts = []
        try:
            for t in texts:
                if isinstance(t, Event):
                    parts.append(t._ptr)
                    continue
                if not isinstance(t, str):
                    raise TypeError("events are EVENT texts (str) or Event "
                                    "objects, got %r" % (t,))
                p = EventPtr()
                st = _lib.lib.pld_event_parse(t.encode(), ctypes.byref(p))
                if st != 0:
                    _raise(st, "pldkit.Event")
                parts.append(p)
            self._ptr = _compose(parts)
        finally:
            for t, p in zip(texts, parts):
                if not isinstance(t, Event):
                    _lib.lib.pld_event_free(p)

    @classmethod
    def _adopt(cls, ptr):
        obj = cls.__new__(cls)
        obj._ptr = ptr
        return obj

    def __del__(self):
        p = getattr(self, "_ptr", None)
        if p:
            _lib.lib.pld_event_free(p)
            self._ptr = None

    def __add__(self, other):
        if isinstance(other, str):
            other = Event(other)
        return Event._adopt(_compose([self._ptr, other._ptr]))

    def __str__(self):
        n = c_size_t(0)
        _lib.lib.pld_event_format(self._ptr, None, 0, ctypes.byref(n))
        buf = ctypes.create_string_buffer(n.value + 1)
        _lib.lib.pld_event_format(self._ptr, buf, n.value + 1,
                                  ctypes.byref(n))
        return buf.value.decode()

    def __repr__(self):
        return "Event(%r)" % str(self)

    def __reduce__(self):
        return (Event, (str(self),))

    def summary(self):
        s = _Summary()
        s.size = ctypes.sizeof(s)
        _lib.lib.pld_event_summarize(self._ptr, ctypes.byref(s))
        dec = (lambda b: b.decode() if b is not None else None)
        return {"events": int(s.events), "closed": bool(s.closed),
                "has_pld": bool(s.has_pld),
                "has_rdp_formula": bool(s.has_rdp_formula),
                "note": dec(s.note), "not_bound": dec(s.not_bound)}

    @property
    def hole(self):
        """None, or a dict: key, where, direction (+1 larger values are
        more private), integer, lo, hi."""
        h = _Hole()
        h.size = ctypes.sizeof(h)
        _lib.lib.pld_event_get_hole(self._ptr, ctypes.byref(h))
        if not h.present:
            return None
        return {"key": h.key.decode(), "where": h.where.decode(),
                "direction": int(h.direction), "integer": bool(h.integer),
                "lo": h.lo, "hi": h.hi}

    def fill(self, value):
        out = EventPtr()
        st = _lib.lib.pld_event_fill(self._ptr, float(value),
                                     ctypes.byref(out))
        if st != 0:
            _raise(st, "pldkit.Event.fill")
        return Event._adopt(out)


def _compose(ptrs):
    arr = (EventPtr * len(ptrs))(*ptrs)
    out = EventPtr()
    st = _lib.lib.pld_event_compose(len(ptrs), arr, ctypes.byref(out))
    if st != 0:
        _raise(st, "pldkit.Event")
    return out


def _event(events, function):
    if not events:
        raise InvalidArgument("An argument is invalid", code=1,
                              function=function,
                              detail="no EVENT given (an empty composition "
                              "has no privacy loss to account)")
    if len(events) == 1 and isinstance(events[0], Event):
        return events[0]
    return Event(*events)


class EventAnswer(object):
    """What a closed-form or RDP answer adds to the bracket: ``not_bound``
    (None when the upper end is a proven bound, else what it is, e.g.
    'lower_limit'), ``note`` (a
    warning to show with the answer, or None), ``bridged`` (events whose
    RDP went through the PLD bridge), ``closed`` (None, or a dict with
    'analysis', 'certified', 'below_cs', 'cs_delta', 'lower_limit')."""


def _query(backend, options):
    q = _Query()
    _lib.lib.pld_event_query_default(ctypes.byref(q))
    if backend not in _BACKENDS:
        raise InvalidArgument("An argument is invalid", code=1,
                              function="pldkit.epsilon",
                              detail="backend=%r must be one of %s"
                              % (backend, ", ".join(sorted(_BACKENDS))))
    q.backend = _BACKENDS[backend]
    keep = []
    for key, value in options.items():
        if value is None and key in ("accuracy", "abs_accuracy",
                                     "discretization", "tail_mass",
                                     "max_grid", "orders"):
            continue  # the default, as pldkit.Accountant(accuracy=None)
        if key in ("accuracy", "abs_accuracy", "discretization",
                   "tail_mass"):
            setattr(q.params, key, float(value))
        elif key == "max_grid":
            q.params.max_grid = int(value)
        elif key == "rdp_conversion":
            if value not in _CONVERSIONS:
                raise InvalidArgument(
                    "An argument is invalid", code=1,
                    function="pldkit.epsilon",
                    detail="rdp_conversion=%r must be one of %s"
                    % (value, ", ".join(sorted(_CONVERSIONS))))
            q.rdp_method = _CONVERSIONS[value]
        elif key == "orders":
            arr = (c_double * len(value))(*[float(x) for x in value])
            keep.append(arr)
            q.orders = ctypes.cast(arr, POINTER(c_double))
            q.n_orders = len(value)
        else:
            raise TypeError("unknown option %r (accuracy, abs_accuracy, "
                            "discretization, tail_mass, max_grid, "
                            "rdp_conversion, orders)" % key)
    return q, keep


def _raise(status, function):
    """The library's one-line detail as the message (the CLI prints the
    same line after "pldkit: ")."""
    detail = _lib.error_detail()
    cls = error_class(status)
    raise cls(detail or _lib.strerror(status), code=status,
              function=function)


def _closed(ans):
    if not ans.closed:
        return None
    ca = ans.closed_answer
    return {"analysis": ca.analysis.decode(),
            "certified": bool(ca.certified), "refuted": bool(ca.refuted),
            "below_cs": bool(ca.below_cs),
            "cs_delta": ca.cs_delta, "lower_limit": ca.lower_limit}


def _wrap(query, at, ans, backend):
    out = []
    if ans.have_pld:
        r = Result(query, at, ans.pld)
        out.append(r)
    if ans.have_rdp:
        out.append(RdpResult(query, at, ans.rdp, ans.rdp_n))
    extra = EventAnswer()
    extra.note = ans.note.decode() if ans.note else None
    extra.bridged = int(ans.bridged)
    extra.closed = _closed(ans)
    extra.not_bound = ans.not_bound.decode() if ans.not_bound else None
    # a value that is no proven bound says so (Result.certified)
    if ans.closed:
        out[0].certified = bool(ans.closed_answer.certified)
    elif extra.not_bound and ans.have_pld:
        out[0].certified = False
    if backend == "both":
        return (out[0], out[1]), extra
    return out[0], extra


def _answer(fname, query, x, events, backend, options):
    q, keep = _query(backend, options)
    ev = _event(events, "pldkit." + query)
    ans = _Answer()
    ans.size = ctypes.sizeof(ans)
    st = getattr(_lib.lib, fname)(ev._ptr, ctypes.byref(q), float(x),
                                  ctypes.byref(ans))
    if st != 0:
        _raise(st, "pldkit." + query)
    return _wrap(query, float(x), ans, backend)


def epsilon(delta, *events, backend="pld", details=False, **options):
    """epsilon(delta) of the composition of the EVENT texts (see the module
    docstring).  With details=True returns (answer, EventAnswer)."""
    r, extra = _answer("pld_event_epsilon", "epsilon", delta, events,
                       backend, options)
    return (r, extra) if details else r


def delta(epsilon, *events, backend="pld", details=False, **options):
    """delta(epsilon) of the composition of the EVENT texts."""
    r, extra = _answer("pld_event_delta", "delta", epsilon, events, backend,
                       options)
    return (r, extra) if details else r


def curve(epsilons, *events, **options):
    """delta at each of `epsilons` (PLD backend): a CurveResult."""
    eps = [float(e) for e in epsilons]
    q, keep = _query("pld", options)
    ev = _event(events, "pldkit.curve")
    m = len(eps)
    if m == 0:
        raise InvalidArgument("An argument is invalid", code=1,
                              function="pldkit.curve",
                              detail="at least one epsilon is needed")
    earr = (c_double * m)(*eps)
    barr = (_lib.Bound * m)()
    ans = _Answer()
    ans.size = ctypes.sizeof(ans)
    st = _lib.lib.pld_event_curve(ev._ptr, ctypes.byref(q), m, earr, barr,
                                  ctypes.byref(ans))
    if st != 0:
        _raise(st, "pldkit.curve")
    r = ans.pld
    return CurveResult(eps, [b.lower for b in barr], [b.upper for b in barr],
                       float(r.discretization), int(r.grid_size),
                       int(r.fft_size), int(r.refinements),
                       bool(r.closed_form), bool(r.met_accuracy))


def accountant(*events, **options):
    """A new pldkit.Accountant holding the events (EVENT texts or Event
    objects; pld_event_to_accountant; options as epsilon()'s grid options),
    which composes further."""
    from .accountant import Accountant
    q, keep = _query("pld", options)
    ev = _event(events, "pldkit.events.accountant")
    out = _lib.AccPtr()
    st = _lib.lib.pld_event_to_accountant(ev._ptr, ctypes.byref(q.params),
                                          ctypes.byref(out))
    if st != 0:
        _raise(st, "pldkit.events.accountant")
    params = _lib.Params.from_buffer_copy(q.params)
    return Accountant._adopt(out, params, [("events", (str(ev),))])


def _rdp_curve(events, orders=None, no_bridge=True):
    """The library's RDP curve of the events (pld_event_to_rdp) as a
    pldkit.RdpCurve; with no_bridge an event without an RDP formula is
    refused (Unsupported / InvalidArgument with the library's message)."""
    from .rdp import RdpCurve
    q, keep = _query("rdp", {"orders": orders})
    ev = _event(events, "pldkit.events.rdp_curve")
    out = _lib.RdpPtr()
    st = _lib.lib.pld_event_to_rdp(ev._ptr, q.n_orders, q.orders,
                                   0 if no_bridge else 1,
                                   ctypes.byref(q.params), ctypes.byref(out),
                                   None)
    if st != 0:
        _raise(st, "pldkit.events.rdp_curve")
    return RdpCurve._adopt(out)


def calibrate(epsilon, delta, *events, backend="pld", **options):
    """The least private value of the events' one hole (KEY=?) that meets
    (epsilon, delta) by the certified upper end (pld_event_calibrate; the
    CLI's `pldkit calibrate`).  Returns a dict: key, value (None if none
    meets), bracket (the epsilon Result at the value, PLD backend), next
    (the nearest value that does not meet), located, evaluations."""
    q, keep = _query(backend, options)
    if backend not in ("pld", "rdp"):
        raise InvalidArgument("An argument is invalid", code=1,
                              function="pldkit.calibrate",
                              detail="backend=%r must be 'pld' or 'rdp'"
                              % (backend,))
    ev = _event(events, "pldkit.calibrate")
    c = _Calibration()
    c.size = ctypes.sizeof(c)
    st = _lib.lib.pld_event_calibrate(ev._ptr, ctypes.byref(q),
                                      float(epsilon), float(delta), None,
                                      None, None, ctypes.byref(c))
    if st != 0:
        _raise(st, "pldkit.calibrate")
    r = c.search
    hole = ev.hole
    return {"key": hole["key"] if hole else None,
            "value": r.param if r.found else None,
            "bracket": Result("epsilon", float(delta), r.at_param)
            if r.found else None,
            "next": r.param_next, "located": bool(r.located),
            "evaluations": int(r.evaluations)}


def catalogue():
    """The library's EVENT catalogue (what `pldkit events` lists): a list of
    dicts with 'name', 'title', 'summary', 'example' (an EVENT text, None for
    'pld'), 'rdp_how' and 'has_pld' (the default backend answers it)."""
    out = []
    for i in range(_lib.lib.pld_event_count()):
        info = _Info()
        if _lib.lib.pld_event_info_get(i, ctypes.byref(info)) != 0:
            raise PldkitError("catalogue entry %d unreadable" % i)
        dec = (lambda b: b.decode() if b is not None else None)
        out.append({"name": dec(info.name), "title": dec(info.title),
                    "summary": dec(info.summary),
                    "example": dec(info.example),
                    "rdp_how": dec(info.rdp_how),
                    "has_pld": bool(info.has_pld)})
    return out
