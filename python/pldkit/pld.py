"""PLD objects (pldkit/pld.h, pld_dist): a privacy loss distribution pair,
both directions, in a pessimistic and an optimistic rounding, on the grid
{i * discretization} (nats).

Queries answer with a Bracket: ``upper`` from the pessimistic PLD (certified)
and ``lower`` from the optimistic one.
"""

import ctypes
import os
from collections import namedtuple
from ctypes import POINTER, byref, c_size_t, c_ubyte

from . import _lib
from ._lib import lib, DistPtr, Bound
from ._util import (DoubleArray, Handle, check, count, invalid, make_params,
                    numpy, real, to_list_or_array)
from .mechanisms import Mechanism, direction_code
from .results import Bracket, CurveResult

__all__ = ["PLD", "PmfView"]

PmfView = namedtuple("PmfView", ["offset", "masses", "inf_mass", "rel_err",
                                 "abs_err", "discretization"])
PmfView.__doc__ = """One stored distribution: masses[i] sits at loss
(offset + i) * discretization (nats), inf_mass at +infinity; rel_err and
abs_err are its booked floating-point slack."""

_ROUNDINGS = {"pessimistic": _lib.PLD_PESSIMISTIC, 0: 0,
              "optimistic": _lib.PLD_OPTIMISTIC, 1: 1}


def bounds_buffer(n, want_numpy):
    """An output array of n pld_bound and a function returning
    (lower, upper) as lists or numpy arrays."""
    np = numpy()
    if want_numpy and np is not None:
        arr = np.empty((max(n, 1), 2), dtype=np.float64)
        ptr = arr.ctypes.data_as(POINTER(Bound))
        return ptr, lambda: (arr[:n, 0].copy(), arr[:n, 1].copy())
    buf = (Bound * max(n, 1))()
    ptr = ctypes.cast(buf, POINTER(Bound))
    return ptr, lambda: ([float(buf[i].lower) for i in range(n)],
                         [float(buf[i].upper) for i in range(n)])


def epsilons_in(epsilons, function):
    """(DoubleArray, the epsilons as returned: a list or numpy array)."""
    arr = DoubleArray(epsilons, "epsilons", function)
    if arr.is_numpy:
        shown = arr.keep.copy()
    else:
        shown = [float(arr.ptr[i]) for i in range(arr.n)]
    return arr, shown


class PLD(Handle):
    """A composed privacy loss distribution pair (pld_dist).

    Make one with PLD.from_mechanism, PLD.identity, PLD.load,
    PLD.deserialize, PLD.mix or Accountant.compose_pld; compose with
    compose() and self_compose().  PLD objects are immutable: every
    operation returns a new one.  They pickle (through serialize())."""

    __slots__ = ()
    _kind = "PLD"
    _free = lib.pld_dist_free

    def __init__(self, *args, **kwargs):
        self._ptr = None
        raise TypeError("use PLD.from_mechanism, PLD.identity, PLD.load, "
                        "PLD.deserialize or Accountant.compose_pld")

    @classmethod
    def _adopt(cls, ptr):
        obj = cls.__new__(cls)
        obj._ptr = ptr
        return obj

    @classmethod
    def _call(cls, fname, *args):
        out = DistPtr()
        check(getattr(lib, fname)(*(args + (byref(out),))), fname)
        return cls._adopt(out)

    # ---- construction -------------------------------------------------
    @classmethod
    def from_mechanism(cls, mechanism, discretization, tail_mass=None,
                       max_grid=None):
        """The PLD pair of one run of `mechanism` on the grid of step
        `discretization` (nats, in [1e-9, 1000]).  tail_mass (default 1e-20)
        is the mass each truncation may move; max_grid caps the grid."""
        f = "pld_dist_from_curve"
        if not isinstance(mechanism, Mechanism):
            raise TypeError("%s: mechanism must be a Mechanism, not %s"
                            % (f, type(mechanism).__name__))
        d = real(discretization, "discretization", f)
        params = make_params(f, tail_mass=tail_mass, max_grid=max_grid)
        curve = lib.pld_mech_curve(mechanism._p)
        return cls._call(f, curve, d, byref(params))

    @classmethod
    def identity(cls, discretization):
        """The PLD of a mechanism that reveals nothing (all mass at 0)."""
        d = real(discretization, "discretization", "pld_dist_identity")
        return cls._call("pld_dist_identity", d)

    @classmethod
    def mix(cls, members, weights):
        """The PLD of selecting member i (a PLD) with probability weights[i]
        (random selection, the choice visible); all on one grid."""
        f = "pld_dist_mix"
        members = list(members)
        for m in members:
            if not isinstance(m, PLD):
                raise TypeError("%s: members must be PLDs, not %s"
                                % (f, type(m).__name__))
        w = DoubleArray(weights, "weights", f)
        if w.n != len(members):
            invalid(f, "%d weights for %d members" % (w.n, len(members)))
        arr = (DistPtr * max(len(members), 1))(*[m._p for m in members])
        return cls._call(f, len(members), ctypes.cast(arr, POINTER(DistPtr)),
                         w.ptr)

    def copy(self):
        return self._call("pld_dist_copy", self._p)

    # ---- composition --------------------------------------------------
    def compose(self, other):
        """The composition with another PLD on the same grid (a new PLD)."""
        if not isinstance(other, PLD):
            raise TypeError("pld_dist_compose: other must be a PLD, not %s"
                            % type(other).__name__)
        return self._call("pld_dist_compose", self._p, other._p, None)

    def self_compose(self, count_):
        """The T-fold self-composition, T = count_ >= 1 (a new PLD)."""
        t = count(count_, "pld_dist_self_compose")
        return self._call("pld_dist_self_compose", self._p, t, None)

    # ---- queries ------------------------------------------------------
    def delta(self, epsilon):
        """Bracket on delta(epsilon), epsilon >= 0 (inf allowed)."""
        b = Bound()
        e = real(epsilon, "epsilon", "pld_dist_delta")
        check(lib.pld_dist_delta(self._p, e, byref(b)), "pld_dist_delta")
        return Bracket(b.lower, b.upper)

    def epsilon(self, delta):
        """Bracket on epsilon(delta), delta in (0, 1); upper may be inf."""
        b = Bound()
        d = real(delta, "delta", "pld_dist_epsilon")
        check(lib.pld_dist_epsilon(self._p, d, byref(b)), "pld_dist_epsilon")
        return Bracket(b.lower, b.upper)

    def curve(self, epsilons):
        """delta at several epsilons (each >= 0): a CurveResult."""
        f = "pld_dist_curve"
        arr, shown = epsilons_in(epsilons, f)
        ptr, get = bounds_buffer(arr.n, arr.is_numpy)
        check(lib.pld_dist_curve(self._p, arr.n, arr.ptr, ptr), f)
        lower, upper = get()
        return CurveResult(shown, lower, upper, self.discretization,
                           self.grid_size, self.fft_size, 0, False, None)

    # ---- accessors ----------------------------------------------------
    @property
    def discretization(self):
        """Grid step in nats."""
        return float(lib.pld_dist_discretization(self._p))

    @property
    def grid_size(self):
        """Largest number of grid points over the four stored arrays."""
        return int(lib.pld_dist_grid_size(self._p))

    @property
    def fft_size(self):
        """Largest FFT length used to make this PLD (0 if none)."""
        return int(lib.pld_dist_fft_size(self._p))

    def view(self, direction="remove", rounding="pessimistic",
             as_numpy=None):
        """A copy of one stored distribution as a PmfView.  direction:
        'remove' (PQ) or 'add' (QP); rounding: 'pessimistic' or
        'optimistic'.  masses is a numpy array if numpy is available and
        as_numpy is not False, else a list."""
        try:
            r = _ROUNDINGS[rounding.lower() if isinstance(rounding, str)
                           else rounding]
        except (KeyError, TypeError):
            raise ValueError("rounding must be 'pessimistic' or "
                             "'optimistic', not %r" % (rounding,)) from None
        v = _lib.PmfView()
        check(lib.pld_dist_view(self._p, direction_code(direction), r,
                                byref(v)), "pld_dist_view")
        want = numpy() is not None if as_numpy is None else bool(as_numpy)
        masses = to_list_or_array(v.masses, int(v.size), want)
        return PmfView(int(v.offset), masses, float(v.inf_mass),
                       float(v.rel_err), float(v.abs_err),
                       self.discretization)

    # ---- files --------------------------------------------------------
    def serialize(self):
        """The PLD in pldkit's portable file format (bytes)."""
        buf = POINTER(c_ubyte)()
        n = c_size_t()
        check(lib.pld_dist_serialize(self._p, byref(buf), byref(n)),
              "pld_dist_serialize")
        try:
            return ctypes.string_at(buf, n.value)
        finally:
            lib.pld_buffer_free(buf)

    @classmethod
    def deserialize(cls, data):
        """Parse bytes made by serialize() (or read from a PLD file)."""
        data = bytes(data)
        buf = (c_ubyte * max(len(data), 1)).from_buffer_copy(
            data if data else b"\0")
        return cls._call("pld_dist_deserialize",
                         ctypes.cast(buf, POINTER(c_ubyte)), len(data))

    def save(self, path):
        """Save to a file (the format of serialize()).  When the file is in
        place but the directory's fsync failed (PLD_EDURABLE), it warns
        with pldkit.DurabilityWarning instead of raising."""
        st = lib.pld_dist_save(self._p, os.fsencode(path))
        if st == _lib.PLD_EDURABLE:
            import warnings
            from .errors import DurabilityWarning
            warnings.warn(DurabilityWarning(
                "%s is saved, but its durability is not confirmed (the "
                "directory's fsync failed)" % os.fsdecode(path)), stacklevel=2)
            return
        check(st, "pld_dist_save", os.fsdecode(path))

    @classmethod
    def load(cls, path):
        """Load a PLD file (as written by save() or `pldkit save`)."""
        out = DistPtr()
        check(lib.pld_dist_load(os.fsencode(path), byref(out)),
              "pld_dist_load", os.fsdecode(path))
        return cls._adopt(out)

    @property
    def history(self):
        """The ledger history this PLD carries (pld_dist_history_record):
        a list of (time in seconds since the epoch, text), oldest first, one
        per update; empty for a PLD not loaded from or returned by a
        ledger (pldkit.ledger)."""
        out = []
        for i in range(lib.pld_dist_history_size(self._p)):
            t, txt, n = ctypes.c_int64(), ctypes.POINTER(ctypes.c_char)(), \
                c_size_t()
            check(lib.pld_dist_history_record(self._p, i, byref(t),
                                              byref(txt), byref(n)),
                  "pld_dist_history_record")
            out.append((int(t.value), ctypes.string_at(txt, n.value).decode(
                "utf-8", "replace")))
        return out

    def __reduce__(self):
        return (_unpickle, (self.serialize(),))

    # ---- RDP bridge -----------------------------------------------------
    def to_rdp(self, orders=None, lower=False):
        """The RDP curve of the mechanism behind this PLD (pld_rdp_of_pld):
        a certified upper bound from the pessimistic member, or with
        lower=True a lower bound from the optimistic one.  orders: None for
        the default grid.  Requires the RDP backend."""
        from .rdp import RdpCurve
        return RdpCurve.from_pld(self, orders=orders, lower=lower)

    def __repr__(self):
        if self._ptr is None:
            return "<closed PLD>"
        return "<PLD discretization=%.6g grid_size=%d>" % (
            self.discretization, self.grid_size)


def _unpickle(data):
    return PLD.deserialize(data)
