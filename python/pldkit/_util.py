"""Helpers shared by the modules: status checks, argument conversion,
owned handles."""

import ctypes
import functools
import threading
import math
import numbers
import operator
from ctypes import POINTER, c_double

from . import _lib
from .errors import error_class

try:  # numpy is optional
    import numpy as _np
except ImportError:  # pragma: no cover - depends on the environment
    _np = None


def numpy():
    """The numpy module, or None if it is not importable (or hidden by a
    test through sys.modules['numpy'] = None)."""
    import sys
    if _np is None or sys.modules.get("numpy", _np) is None:
        return None
    return _np


def raise_status(status, function, detail=None):
    """Raise the PldkitError of `status`.  Without a detail of the binding's
    own, the library's (pld_error_detail: the parameter, its value and the
    allowed range) is used: call this right after the failing call."""
    if detail is None:
        detail = _lib.error_detail() or None
    cls = error_class(status)
    raise cls(_lib.strerror(status), code=status, function=function,
              detail=detail)


def check(status, function, detail=None, args=None):
    """Raise the PldkitError subclass of `status` if it is not PLD_SUCCESS.
    The detail names what was rejected: the library's pld_error_detail()
    when it has one, else (for PLD_EINVAL) the first of `args` (a dict name
    -> (value, domain)) outside its documented domain."""
    if status != 0:
        extra = _lib.error_detail()
        if not extra and status == _lib.PLD_EINVAL and args:
            extra = domain_detail(args)
        if extra:
            detail = extra if detail is None else "%s; %s" % (detail, extra)
        raise_status(status, function, detail)


def domain_detail(args):
    """"name='value' must be DOMAIN" for the first argument outside its
    domain; args maps name -> (value, (lo, hi, lo_open, hi_open, text))."""
    for name, (value, dom) in args.items():
        lo, hi, lo_open, hi_open, text = dom
        try:
            x = float(value)
        except (TypeError, ValueError):
            continue
        bad = (math.isnan(x) or x < lo or x > hi or (lo_open and x == lo)
               or (hi_open and x == hi))
        if bad:
            return "%s='%r' must be %s" % (name, value, text)
    return ""


INF = float("inf")
#: Documented domains (include/pldkit/mech.h) for the binding's messages.
POSITIVE = (0.0, INF, True, True, "a finite number > 0")
RATE = (0.0, 1.0, True, False, "in (0, 1]")


def invalid(function, detail):
    """An InvalidArgument raised by the binding itself (with the library's
    message for PLD_EINVAL, so that it reads like the library's own)."""
    raise_status(_lib.PLD_EINVAL, function, detail)


def real(x, name, function):
    """A float from a real number (int, float, numpy scalar); NaN and
    infinities pass through (the library decides).  Strings, None, bools
    and complex numbers raise TypeError."""
    if isinstance(x, numbers.Real) and not isinstance(x, bool):
        return float(x)
    if (x is None or isinstance(x, (str, bytes, bool, numbers.Complex))
            or not hasattr(x, "__float__")):
        raise TypeError("%s: %s must be a real number, not %s"
                        % (function, name, type(x).__name__))
    return float(x)


def integer(x, name, function, lo, hi):
    """An int from an integral value (int, numpy integer, or a float with an
    integral value), checked against [lo, hi] so that it cannot wrap
    around in a fixed-width C type."""
    if isinstance(x, bool):
        raise TypeError("%s: %s must be an integer, not bool" % (function, name))
    try:
        v = operator.index(x)
    except TypeError:
        if isinstance(x, numbers.Real) and not isinstance(x, (str, bytes)):
            f = float(x)
            if math.isfinite(f) and f == math.floor(f):
                v = int(f)
            else:
                invalid(function, "%s must be an integer, got %r" % (name, x))
        else:
            raise TypeError("%s: %s must be an integer, not %s"
                            % (function, name, type(x).__name__)) from None
    if v < lo or v > hi:
        invalid(function, "%s = %d is outside [%d, %d]" % (name, v, lo, hi))
    return v


INT64_MAX = 2 ** 63 - 1
UINT64_MAX = 2 ** 64 - 1


def count(x, function):
    """A composition count for a uint64_t argument: an integer >= 1."""
    return integer(x, "count", function, 1, UINT64_MAX)


class DoubleArray(object):
    """A contiguous C double array built from a sequence or a numpy array,
    kept alive as long as this object is."""

    __slots__ = ("keep", "ptr", "n", "is_numpy")

    def __init__(self, values, name, function):
        np = numpy()
        self.is_numpy = np is not None and isinstance(values, np.ndarray)
        if np is not None and (self.is_numpy or _is_numpy_like(values, np)):
            try:
                arr = np.ascontiguousarray(values, dtype=np.float64)
            except (TypeError, ValueError) as e:
                raise TypeError("%s: %s must be real numbers (%s)"
                                % (function, name, e)) from None
            if arr.ndim != 1:
                arr = arr.reshape(-1) if arr.ndim == 0 else arr
                if arr.ndim != 1:
                    raise TypeError("%s: %s must be one-dimensional"
                                    % (function, name))
            self.keep = arr
            self.n = arr.shape[0]
            self.ptr = arr.ctypes.data_as(POINTER(c_double))
            return
        if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
            if isinstance(values, numbers.Real) and not isinstance(values, bool):
                values = [values]
            else:
                raise TypeError("%s: %s must be a sequence of real numbers, "
                                "not %s" % (function, name,
                                            type(values).__name__))
        vals = [real(v, name + " element", function) for v in values]
        self.n = len(vals)
        self.keep = (c_double * max(self.n, 1))(*vals)
        self.ptr = ctypes.cast(self.keep, POINTER(c_double))


def _is_numpy_like(values, np):
    return isinstance(values, np.generic)


def to_list_or_array(pointer, n, want_numpy):
    """Copy n doubles from a C pointer into a list (or a numpy array)."""
    np = numpy()
    if want_numpy and np is not None:
        if n == 0:
            return np.empty(0)
        return np.ctypeslib.as_array(pointer, shape=(n,)).copy()
    return [float(pointer[i]) for i in range(n)]


# Objects in use by a method call, and by which threads: close() from
# another thread while a call runs would free the C object under it (a
# use-after-free), so it raises instead.  One lock for all objects: it is
# held only to update these counts.
_BUSY_LOCK = threading.Lock()
_BUSY = {}  # id(handle) -> {thread ident: nesting count}


def _handles_in(args, kwargs):
    out = []
    for v in list(args) + list(kwargs.values()):
        if isinstance(v, Handle):
            out.append(v)
        elif isinstance(v, (list, tuple)):
            out.extend(x for x in v if isinstance(x, Handle))
    return out


def _enter(handles):
    me = threading.get_ident()
    with _BUSY_LOCK:
        for h in handles:
            users = _BUSY.setdefault(id(h), {})
            users[me] = users.get(me, 0) + 1


def _leave(handles):
    me = threading.get_ident()
    with _BUSY_LOCK:
        for h in handles:
            users = _BUSY.get(id(h))
            if users is None:
                continue
            users[me] -= 1
            if not users[me]:
                del users[me]
            if not users:
                del _BUSY[id(h)]


def _guard(f):
    """f marks the pldkit objects it is given (self and its arguments,
    lists of them included) in use while it runs."""
    @functools.wraps(f)
    def guarded(*args, **kwargs):
        hs = _handles_in(args, kwargs)
        _enter(hs)
        try:
            return f(*args, **kwargs)
        finally:
            _leave(hs)
    guarded._pldkit_guarded = True
    return guarded


class Handle(object):
    """An owned pointer to an opaque libpldkit object.

    Freed exactly once: by close() (also called by ``with`` and by the
    garbage collector through __del__).  Using a closed object raises
    ValueError.  Closing an object while a method call of another thread
    uses it (as the object itself or as an argument) raises RuntimeError
    and leaves it open: close it after that call returns.  Subclasses set
    _free to the library's _free function."""

    __slots__ = ("_ptr", "__weakref__")
    _free = None
    _kind = "object"

    def __init_subclass__(cls, **kwargs):
        # every method, property and classmethod of a subclass marks its
        # objects in use (close itself and the special methods aside)
        super().__init_subclass__(**kwargs)
        for name, attr in list(vars(cls).items()):
            if name == "close" or (name.startswith("__") and
                                   name.endswith("__")):
                continue
            if isinstance(attr, property) and attr.fget is not None:
                setattr(cls, name, property(_guard(attr.fget), attr.fset,
                                            attr.fdel, attr.__doc__))
            elif isinstance(attr, classmethod):
                setattr(cls, name, classmethod(_guard(attr.__func__)))
            elif isinstance(attr, staticmethod):
                setattr(cls, name, staticmethod(_guard(attr.__func__)))
            elif callable(attr) and not getattr(attr, "_pldkit_guarded",
                                                False):
                setattr(cls, name, _guard(attr))

    def __init__(self, ptr):
        self._ptr = ptr

    @property
    def _p(self):
        p = self._ptr
        if p is None:
            raise ValueError("this pldkit %s has been closed" % self._kind)
        return p

    @property
    def closed(self):
        """True once the C object has been freed."""
        return self._ptr is None

    def close(self):
        """Free the C object now (idempotent).  RuntimeError (the object
        stays open) while another thread's call uses it."""
        me = threading.get_ident()
        with _BUSY_LOCK:
            p = self._ptr
            if p is None:
                return
            users = _BUSY.get(id(self), {})
            if any(t != me for t in users):
                raise RuntimeError(
                    "this pldkit %s is in use by another thread; close it "
                    "after that call returns" % self._kind)
            self._ptr = None
        type(self)._free(p)

    def __enter__(self):
        return self

    # copy.copy / copy.deepcopy must never duplicate the owned pointer (two
    # owners would free it twice): they make a deep C-level copy instead.
    def __copy__(self):
        return self.copy()

    def __deepcopy__(self, memo):
        return self.copy()

    def copy(self):
        raise TypeError("this pldkit %s cannot be copied" % self._kind)

    def __reduce__(self):
        raise TypeError("this pldkit %s cannot be pickled" % self._kind)

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        try:
            self.close()
        except Exception:  # pragma: no cover - interpreter shutdown
            pass


def make_params(function, discretization=None, accuracy=None,
                abs_accuracy=None, tail_mass=None, max_grid=None):
    """A validated pld_params: the library's defaults with the given knobs
    replaced (None keeps the default)."""
    p = _lib.Params()
    _lib.lib.pld_params_default(ctypes.byref(p))
    if discretization is not None:
        p.discretization = real(discretization, "discretization", function)
    if accuracy is not None:
        p.accuracy = real(accuracy, "accuracy", function)
    if abs_accuracy is not None:
        p.abs_accuracy = real(abs_accuracy, "abs_accuracy", function)
    if tail_mass is not None:
        p.tail_mass = real(tail_mass, "tail_mass", function)
    if max_grid is not None:
        p.max_grid = integer(max_grid, "max_grid", function, 0,
                             2 ** (8 * ctypes.sizeof(ctypes.c_size_t)) - 1)
    check(_lib.lib.pld_params_validate(ctypes.byref(p)), "pld_params_validate",
          function)
    return p


def params_dict(p):
    return {"discretization": p.discretization, "accuracy": p.accuracy,
            "abs_accuracy": p.abs_accuracy, "tail_mass": p.tail_mass,
            "max_grid": int(p.max_grid)}
