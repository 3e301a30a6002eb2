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
                    c_longlong, c_size_t, c_uint, c_ulonglong)

from . import _lib
from .errors import InvalidArgument, PldkitError, error_class
from .results import CurveResult, Result
from .rdp import RdpResult

__all__ = ["epsilon", "delta", "curve", "accountant", "catalogue",
           "EventAnswer"]

BACKEND_PLD = 1
BACKEND_RDP = 2
_BACKENDS = {"pld": BACKEND_PLD, "rdp": BACKEND_RDP,
             "both": BACKEND_PLD | BACKEND_RDP}
_CONVERSIONS = {"best": 0, "classic": 1, "improved": 2}
_OK, _EFAIL, _EUSAGE = 0, 1, 2
_QUOTE_LEN = 96
_ERRLEN = 1024


class _Query(Structure):
    _fields_ = [("params", _lib.Params),
                ("backend", c_uint),
                ("rdp_method", c_int),
                ("orders", POINTER(c_double)),
                ("n_orders", c_size_t)]


class _Closed(Structure):
    _fields_ = [("present", c_int),
                ("analysis", c_int),
                ("p", c_double), ("q", c_double), ("C", c_double),
                ("sigma", c_double),
                ("d", c_longlong),
                ("count", c_ulonglong),
                ("where", c_char * _QUOTE_LEN)]


class _ClosedAnswer(Structure):
    _fields_ = [("bound", _lib.Bound),
                ("certified", c_int),
                ("refuted", c_int),
                ("below_cs", c_int),
                ("cs_delta", c_double),
                ("lower_limit", c_double),
                ("evaluations", c_uint)]


class _Answer(Structure):
    _fields_ = [("have_pld", c_int),
                ("pld", _lib.Result),
                ("closed", c_int),
                ("closed_event", _Closed),
                ("closed_answer", _ClosedAnswer),
                ("have_rdp", c_int),
                ("rdp", _lib.RdpResult),
                ("bridged", c_uint),
                ("rdp_n", c_size_t),
                ("rdp_first", c_double), ("rdp_last", c_double),
                ("note", c_char_p),
                ("not_bound", c_char_p),
                ("status", c_int),
                ("pld_seconds", c_double), ("rdp_seconds", c_double)]


class _Info(Structure):
    _fields_ = [("name", c_char_p),
                ("title", c_char_p),
                ("summary", c_char_p),
                ("example", c_char_p),
                ("rdp_how", c_char_p),
                ("has_pld", c_int),
                ("n_keys", c_size_t)]


_lib.lib.pld_event_count.restype = c_size_t
_lib.lib.pld_event_count.argtypes = []
_lib.lib.pld_event_info_get.restype = c_int
_lib.lib.pld_event_info_get.argtypes = [c_size_t, POINTER(_Info)]
_lib.lib.pld_event_query_default.restype = None
_lib.lib.pld_event_query_default.argtypes = [POINTER(_Query)]
for _name in ("pld_event_epsilon", "pld_event_delta"):
    _f = getattr(_lib.lib, _name)
    _f.restype = c_int
    _f.argtypes = [POINTER(_Query), c_size_t, POINTER(c_char_p), c_double,
                   POINTER(_Answer), c_char_p, c_size_t]
_lib.lib.pld_event_curve.restype = c_int
_lib.lib.pld_event_curve.argtypes = [
    POINTER(_Query), c_size_t, POINTER(c_char_p), c_size_t,
    POINTER(c_double), POINTER(_lib.Bound), POINTER(_Answer), c_char_p,
    c_size_t]
_lib.lib.pld_event_accountant.restype = c_int
_lib.lib.pld_event_accountant.argtypes = [
    POINTER(_Query), c_size_t, POINTER(c_char_p), c_char_p,
    POINTER(_lib.AccPtr), POINTER(ctypes.c_void_p), c_char_p, c_size_t]
_lib.lib.pld_event_owned_free.restype = None
_lib.lib.pld_event_owned_free.argtypes = [ctypes.c_void_p]
_lib.lib.pld_event_rdp_curve.restype = c_int
_lib.lib.pld_event_rdp_curve.argtypes = [
    POINTER(_Query), c_size_t, POINTER(c_char_p), c_char_p, c_int,
    POINTER(_lib.RdpPtr), POINTER(c_uint), c_char_p, c_size_t]


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


def _texts(events, function):
    if not events:
        raise InvalidArgument("An argument is invalid", code=1,
                              function=function,
                              detail="no EVENT given (an empty composition "
                              "has no privacy loss to account)")
    enc = []
    for e in events:
        if not isinstance(e, str):
            raise TypeError("events are EVENT texts (str), got %r" % (e,))
        enc.append(e.encode())
    return (c_char_p * len(enc))(*enc)


def _raise(rc, err, function, status):
    msg = err.value.decode(errors="replace")
    if rc == _EUSAGE:
        raise InvalidArgument(msg, code=1, function=function)
    cls = error_class(status) if status else PldkitError
    raise cls(msg, code=status or None, function=function)


def _closed(ans):
    if not ans.closed:
        return None
    ca = ans.closed_answer
    names = ["wcs", "cs", "thm41", "ols", "mwcs"]
    a = ans.closed_event.analysis
    return {"analysis": names[a] if 0 <= a < len(names) else a,
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
    texts = _texts(events, "pldkit." + query)
    ans = _Answer()
    err = ctypes.create_string_buffer(_ERRLEN)
    rc = getattr(_lib.lib, fname)(ctypes.byref(q), len(events), texts,
                                  float(x), ctypes.byref(ans), err, _ERRLEN)
    if rc != _OK:
        _raise(rc, err, "pldkit." + query, ans.status)
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
    texts = _texts(events, "pldkit.curve")
    m = len(eps)
    if m == 0:
        raise InvalidArgument("An argument is invalid", code=1,
                              function="pldkit.curve",
                              detail="at least one epsilon is needed")
    earr = (c_double * m)(*eps)
    barr = (_lib.Bound * m)()
    ans = _Answer()
    err = ctypes.create_string_buffer(_ERRLEN)
    rc = _lib.lib.pld_event_curve(ctypes.byref(q), len(events), texts, m,
                                  earr, barr, ctypes.byref(ans), err, _ERRLEN)
    if rc != _OK:
        _raise(rc, err, "pldkit.curve", ans.status)
    r = ans.pld
    return CurveResult(eps, [b.lower for b in barr], [b.upper for b in barr],
                       float(r.discretization), int(r.grid_size),
                       int(r.fft_size), int(r.refinements),
                       bool(r.closed_form), bool(r.met_accuracy))


def accountant(*events, **options):
    """A new pldkit.Accountant holding the EVENT texts (pld_event_accountant;
    options as epsilon()'s grid options), which composes further.  It
    pickles by rebuilding from the same texts.  Events whose mechanisms need
    objects the accountant does not own (random-participation analyses)
    are refused here."""
    from .accountant import Accountant
    q, keep = _query("pld", options)
    texts = _texts(events, "pldkit.events.accountant")
    out = _lib.AccPtr()
    owned = ctypes.c_void_p()
    err = ctypes.create_string_buffer(_ERRLEN)
    rc = _lib.lib.pld_event_accountant(ctypes.byref(q), len(events), texts,
                                       None, ctypes.byref(out),
                                       ctypes.byref(owned), err, _ERRLEN)
    if rc != _OK:
        _lib.lib.pld_event_owned_free(owned)
        _raise(rc, err, "pldkit.events.accountant", 0)
    if owned.value:
        _lib.lib.pld_accountant_free(out)
        _lib.lib.pld_event_owned_free(owned)
        raise InvalidArgument(
            "An argument is invalid", code=1,
            function="pldkit.events.accountant",
            detail="these EVENTs need objects an Accountant does not own "
            "(ask pldkit.epsilon / pldkit.delta instead)")
    params = _lib.Params.from_buffer_copy(q.params)
    return Accountant._adopt(out, params,
                             [("events", tuple(events))])


def _rdp_curve(events, orders=None, no_bridge=True):
    """The library's RDP curve of the EVENT texts (pld_event_rdp_curve) as
    a pldkit.RdpCurve; with no_bridge an event without an RDP formula is
    refused (InvalidArgument / PldkitError with the library's message)."""
    from .rdp import RdpCurve
    q, keep = _query("rdp", {"orders": orders})
    texts = _texts(events, "pldkit.events.rdp_curve")
    out = _lib.RdpPtr()
    err = ctypes.create_string_buffer(_ERRLEN)
    rc = _lib.lib.pld_event_rdp_curve(ctypes.byref(q), len(events), texts,
                                      None, 1 if no_bridge else 0,
                                      ctypes.byref(out), None, err, _ERRLEN)
    if rc != _OK:
        _raise(rc, err, "pldkit.events.rdp_curve", 0)
    return RdpCurve._adopt(out)


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
