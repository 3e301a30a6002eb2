"""The Renyi-DP backend (pldkit/rdp.h): RDP curves on a grid of orders.

Every stored value is an upper bound on the true Renyi divergence (rounded
toward +inf), so composing and converting is pessimistic.  Composition adds
RDP at every order.  Conversions to (epsilon, delta)-DP minimise over the
grid; ``conversion`` is 'best' (default), 'classic' (Mironov 2017) or
'improved' (Canonne, Kamath, Steinke 2020).

    curve = RdpCurve()                                  # default orders
    curve.compose(PoissonGaussian(q, sigma), steps)     # like dp_accounting
    curve.epsilon(1e-5).value                            # certified epsilon
"""

import ctypes
import math
from ctypes import POINTER, byref, c_double, c_size_t

from . import _lib
from ._lib import lib, RdpPtr
from ._util import (DoubleArray, Handle, INT64_MAX, UINT64_MAX, check, count,
                    integer, invalid, raise_status, real, to_list_or_array)
from .errors import Unsupported

__all__ = ["RdpCurve", "RdpResult", "DEFAULT_ORDERS_COUNT", "available"]

available = _lib.available.get("rdp", False)
DEFAULT_ORDERS_COUNT = 157

_CONVERSIONS = {"best": _lib.PLD_RDP_BEST, "classic": _lib.PLD_RDP_CLASSIC,
                "improved": _lib.PLD_RDP_IMPROVED,
                0: 0, 1: 1, 2: 2}
_METHOD_NAMES = {_lib.PLD_RDP_CLASSIC: "classic",
                 _lib.PLD_RDP_IMPROVED: "improved"}


def _conversion(c):
    key = c.lower() if isinstance(c, str) else c
    try:
        return _CONVERSIONS[key]
    except (KeyError, TypeError):
        raise ValueError("conversion must be 'best', 'classic' or "
                         "'improved', not %r" % (c,)) from None


def _require():
    if not available:
        raise_status(_lib.PLD_EUNSUPPORTED, "pldkit.rdp",
                     "this libpldkit was built without the RDP backend")


class RdpResult(object):
    """A conversion's answer: ``value`` (epsilon in nats, may be inf, or
    delta in [0, 1]; a certified upper bound), ``order`` (the optimal alpha,
    None if none attains it), ``index`` (its position in the grid, None),
    ``method`` ('classic' or 'improved': which conversion won) and
    ``at_edge`` (True if the optimum is at the first or last order: a wider
    grid might do better; the value is still valid)."""

    __slots__ = ("query", "at", "value", "order", "index", "method",
                 "at_edge")

    def __init__(self, query, at, r, size):
        self.query = query
        self.at = at
        self.value = float(r.value)
        self.order = None if math.isnan(r.order) else float(r.order)
        self.index = None if r.index >= size else int(r.index)
        self.method = _METHOD_NAMES.get(r.method, r.method)
        self.at_edge = bool(r.at_edge)

    @property
    def upper(self):
        """The certified value (same as ``value``)."""
        return self.value

    def __float__(self):
        return self.value

    def __repr__(self):
        return ("<RDP %s = %.6g at order %s (%s%s)>"
                % (self.query, self.value, self.order, self.method,
                   ", at grid edge" if self.at_edge else ""))


class RdpCurve(Handle):
    """An RDP curve: one upper-bounded value eps(alpha) per order.

    RdpCurve() uses the default grid of 157 orders (1.1 ... 10.9, 11 ... 64,
    128, 256, 512, 1024); RdpCurve(orders) any strictly increasing orders
    > 1.  All values start at 0.  Methods that add return self."""

    __slots__ = ()
    _kind = "RDP curve"
    _free = lib.pld_rdp_curve_free if available else None

    def __init__(self, orders=None):
        self._ptr = None
        _require()
        out = RdpPtr()
        if orders is None:
            check(lib.pld_rdp_curve_alloc_default(byref(out)),
                  "pld_rdp_curve_alloc_default")
        else:
            f = "pld_rdp_curve_alloc"
            arr = DoubleArray(orders, "orders", f)
            check(lib.pld_rdp_curve_alloc(arr.n, arr.ptr, byref(out)), f)
        self._ptr = out

    @classmethod
    def _adopt(cls, ptr):
        obj = cls.__new__(cls)
        obj._ptr = ptr
        return obj

    @classmethod
    def from_pld(cls, pld, orders=None, lower=False):
        """The RDP of the mechanism behind a PLD (pld_rdp_of_pld): certified
        upper values from its pessimistic member, or lower=True for the
        named lower bound (pld_rdp_of_pld_lower).  A PLD truncated at a
        finite loss (e.g. any Gaussian) has upper RDP inf everywhere."""
        from .pld import PLD
        if not isinstance(pld, PLD):
            raise TypeError("from_pld: expected a PLD, not %s"
                            % type(pld).__name__)
        c = cls(orders)
        f = "pld_rdp_of_pld_lower" if lower else "pld_rdp_of_pld"
        try:
            check(getattr(lib, f)(pld._p, c._p), f)
        except BaseException:
            c.close()
            raise
        return c

    def copy(self):
        out = RdpPtr()
        check(lib.pld_rdp_curve_copy(self._p, byref(out)),
              "pld_rdp_curve_copy")
        return RdpCurve._adopt(out)

    def __reduce__(self):
        return (_rebuild, (self.orders, self.values))

    def __len__(self):
        return int(lib.pld_rdp_curve_size(self._p))

    @property
    def orders(self):
        """The orders (a list of floats)."""
        return to_list_or_array(lib.pld_rdp_curve_orders(self._p), len(self),
                                False)

    @property
    def values(self):
        """The values eps(alpha) in nats (a list of floats; inf allowed)."""
        return to_list_or_array(lib.pld_rdp_curve_values(self._p), len(self),
                                False)

    def same_orders(self, other):
        """True if both curves have bit-identical order grids."""
        return isinstance(other, RdpCurve) and bool(
            lib.pld_rdp_curve_same_orders(self._p, other._p))

    def _values_arg(self, values, f):
        arr = DoubleArray(values, "values", f)
        if arr.n != len(self):
            invalid(f, "%d values for %d orders" % (arr.n, len(self)))
        return arr

    def set(self, values):
        """Overwrite the values (nats, each >= 0 or inf).  Returns self."""
        f = "pld_rdp_curve_set"
        arr = self._values_arg(values, f)
        check(lib.pld_rdp_curve_set(self._p, arr.ptr), f)
        return self

    def add_values(self, values, count=1):
        """Add count * values (an RDP guarantee known from elsewhere)."""
        f = "pld_rdp_curve_add_values"
        arr = self._values_arg(values, f)
        check(lib.pld_rdp_curve_add_values(self._p, arr.ptr, _n(count, f)), f)
        return self

    # ---- mechanisms ---------------------------------------------------------
    def add_gaussian(self, sigma, sensitivity=1.0, count=1):
        f = "pld_rdp_add_gaussian"
        check(lib.pld_rdp_add_gaussian(
            self._p, real(sigma, "sigma", f),
            real(sensitivity, "sensitivity", f), _n(count, f)), f)
        return self

    def add_laplace(self, b, sensitivity=1.0, count=1):
        f = "pld_rdp_add_laplace"
        check(lib.pld_rdp_add_laplace(
            self._p, real(b, "b", f), real(sensitivity, "sensitivity", f),
            _n(count, f)), f)
        return self

    def add_randomized_response(self, epsilon0, k, count=1):
        f = "pld_rdp_add_randomized_response"
        check(lib.pld_rdp_add_randomized_response(
            self._p, real(epsilon0, "epsilon0", f),
            integer(k, "k", f, -INT64_MAX - 1, INT64_MAX), _n(count, f)), f)
        return self

    def add_poisson_gaussian(self, q, sigma, sensitivity=1.0, count=1):
        f = "pld_rdp_add_poisson_gaussian"
        check(lib.pld_rdp_add_poisson_gaussian(
            self._p, real(q, "q", f), real(sigma, "sigma", f),
            real(sensitivity, "sensitivity", f), _n(count, f)), f)
        return self

    def add_wor_gaussian(self, batch, n, sigma, sensitivity=1.0, count=1):
        f = "pld_rdp_add_wor_gaussian"
        check(lib.pld_rdp_add_wor_gaussian(
            self._p, integer(batch, "batch", f, 0, UINT64_MAX),
            integer(n, "n", f, 0, UINT64_MAX), real(sigma, "sigma", f),
            real(sensitivity, "sensitivity", f), _n(count, f)), f)
        return self

    # ---- the papers' mechanisms (rdp_papers.h) ---------------------------------
    def _per_order(self, f, compute):
        """values[i] = compute(alpha_i, out) at every order (papers)."""
        n = len(self)
        vals = (c_double * max(n, 1))()
        compute(n, lib.pld_rdp_curve_orders(self._p), vals)
        return vals

    def add_model_splitting(self, d, k, sigma, c, count=1):
        """Add `count` runs of the model-splitting pair (splitting paper,
        Thm 3.1, sound version): each example's clipped contribution (norm
        c) goes to k of d blocks, Gaussian noise sigma.  k = 1 is disjoint
        model splitting; the pair of Balanced Iteration Subsampling (d = T
        iterations, each example in k of them) describes a WHOLE run (see
        add_bis).  Orders above 2048 are not supported (OutOfRange)."""
        f = "pld_rdp_model_splitting_curve"
        dd = integer(d, "d", f, -INT64_MAX - 1, INT64_MAX)
        kk = integer(k, "k", f, -INT64_MAX - 1, INT64_MAX)
        s, cc = real(sigma, "sigma", f), real(c, "c", f)
        cnt = _n(count, f)

        def compute(n, orders, vals):
            check(lib.pld_rdp_model_splitting_curve(n, orders, dd, kk, s, cc,
                                                    vals), f)
        vals = self._per_order(f, compute)
        check(lib.pld_rdp_curve_add_values(self._p, vals, cnt),
              "pld_rdp_curve_add_values")
        return self

    def add_dropout(self, sigma, c, count=1):
        """Dropout with rate 1/2 (splitting paper, Cor. 3.7): the model
        splitting pair with d = 2, k = 1."""
        return self.add_model_splitting(2, 1, sigma, c, count)

    def add_bis(self, T, k, sigma, c, epochs=1):
        """`epochs` runs of Balanced Iteration Subsampling (Thm 3.8): T
        iterations, each example in exactly k of them.  One run is the
        whole T iterations: do not compose it T times."""
        return self.add_model_splitting(T, k, sigma, c, epochs)

    def compose(self, event, count=1):
        """Add `count` runs of `event`: another RdpCurve on the same orders,
        or a Mechanism with an RDP formula (Gaussian, Laplace,
        RandomizedResponse, PoissonGaussian, PoissonSampled(Gaussian),
        WorGaussian).  Returns self."""
        from . import mechanisms as M
        if isinstance(event, RdpCurve):
            f = "pld_rdp_curve_compose"
            check(lib.pld_rdp_curve_compose(self._p, event._p, _n(count, f)),
                  f)
            return self
        if not isinstance(event, M.Mechanism):
            raise TypeError("RdpCurve.compose: expected an RdpCurve or a "
                            "Mechanism, not %s" % type(event).__name__)
        p = event._params
        if isinstance(event, M.Gaussian):
            return self.add_gaussian(p["sigma"], p["sensitivity"], count)
        if isinstance(event, M.Laplace):
            return self.add_laplace(p["b"], p["sensitivity"], count)
        if isinstance(event, M.RandomizedResponse):
            return self.add_randomized_response(p["epsilon0"], p["k"], count)
        if isinstance(event, M.PoissonGaussian):
            return self.add_poisson_gaussian(p["q"], p["sigma"],
                                             p["sensitivity"], count)
        if (isinstance(event, M.PoissonSampled)
                and type(p["base"]) is M.Gaussian):
            b = p["base"]._params
            return self.add_poisson_gaussian(p["q"], b["sigma"],
                                             b["sensitivity"], count)
        if isinstance(event, M.WorGaussian):
            return self.add_wor_gaussian(p["batch"], p["n"], p["sigma"],
                                         p["sensitivity"], count)
        raise Unsupported(_lib.strerror(_lib.PLD_EUNSUPPORTED),
                          code=_lib.PLD_EUNSUPPORTED,
                          function="RdpCurve.compose",
                          detail="no RDP formula for %s; use "
                          "RdpCurve.from_pld(mechanism.to_pld(...)) for "
                          "bounded-loss mechanisms" % type(event).__name__)

    # ---- conversions ----------------------------------------------------------
    def epsilon(self, delta, conversion="best"):
        """epsilon(delta), delta in (0, 1): an RdpResult."""
        f = "pld_rdp_epsilon"
        d = real(delta, "delta", f)
        r = _lib.RdpResult()
        check(lib.pld_rdp_epsilon(self._p, d, _conversion(conversion),
                                  byref(r)), f)
        return RdpResult("epsilon", d, r, len(self))

    def delta(self, epsilon, conversion="best"):
        """delta(epsilon), epsilon >= 0 (inf allowed): an RdpResult."""
        f = "pld_rdp_delta"
        e = real(epsilon, "epsilon", f)
        r = _lib.RdpResult()
        check(lib.pld_rdp_delta(self._p, e, _conversion(conversion),
                                byref(r)), f)
        return RdpResult("delta", e, r, len(self))

    def get_epsilon(self, target_delta, conversion="best"):
        return self.epsilon(target_delta, conversion).value

    def get_delta(self, target_epsilon, conversion="best"):
        return self.delta(target_epsilon, conversion).value

    # ---- random selection -----------------------------------------------------
    @classmethod
    def random_selection(cls, members, weights):
        """The RDP curve of releasing member i's output with probability
        weights[i] (merging paper, Thm 5.1); members share one order grid."""
        f = "pld_rdp_random_selection"
        members = _curves(members, f)
        w = DoubleArray(weights, "weights", f)
        if w.n != len(members):
            invalid(f, "%d weights for %d members" % (w.n, len(members)))
        if not members:
            invalid(f, "no members")
        out = members[0].copy()
        try:
            arr = _curve_array(members)
            check(lib.pld_rdp_random_selection(len(members), arr, w.ptr,
                                               out._p), f)
        except BaseException:
            out.close()
            raise
        return out

    @staticmethod
    def rs_max_weight(a, b, target_epsilon, delta, conversion="best"):
        """The largest weight w0 on member a (weights (w0, 1 - w0) on (a, b))
        whose certified epsilon(delta) of the random selection is <=
        target_epsilon; 1.0 if a alone meets it, -1.0 if not even b alone
        does (put the less private member first)."""
        f = "pld_rdp_rs_max_weight"
        _curves([a, b], f)
        w = c_double()
        check(lib.pld_rdp_rs_max_weight(
            a._p, b._p, real(target_epsilon, "target_epsilon", f),
            real(delta, "delta", f), _conversion(conversion), byref(w)), f)
        return w.value

    @staticmethod
    def rs_feasible_grid(members, resolution, target_epsilon, delta,
                         conversion="best"):
        """Every weight vector of the simplex grid of the given resolution
        (1 <= len(members) <= 4) whose certified epsilon(delta) is <=
        target_epsilon, as a list of tuples."""
        f = "pld_rdp_rs_feasible_grid"
        members = _curves(members, f)
        n = len(members)
        res = integer(resolution, "resolution", f, 0, 2 ** 32 - 1)
        size = c_size_t()
        check(lib.pld_rdp_rs_grid_size(n, res, byref(size)),
              "pld_rdp_rs_grid_size")
        cap = max(size.value, 1)
        buf = (c_double * (cap * max(n, 1)))()
        got = c_size_t()
        check(lib.pld_rdp_rs_feasible_grid(
            n, _curve_array(members), res,
            real(target_epsilon, "target_epsilon", f),
            real(delta, "delta", f), _conversion(conversion), buf, cap,
            byref(got)), f)
        return [tuple(buf[i * n + j] for j in range(n))
                for i in range(got.value)]

    def __repr__(self):
        if self._ptr is None:
            return "<closed RdpCurve>"
        return "<RdpCurve: %d orders>" % len(self)


RdpAccountant = RdpCurve


def _n(x, function):
    return count(x, function)


def _curves(members, f):
    members = list(members)
    for m in members:
        if not isinstance(m, RdpCurve):
            raise TypeError("%s: members must be RdpCurves, not %s"
                            % (f, type(m).__name__))
    return members


def _curve_array(members):
    arr = (RdpPtr * max(len(members), 1))(*[m._p for m in members])
    return ctypes.cast(arr, POINTER(RdpPtr))


def _rebuild(orders, values):
    return RdpCurve(orders).set(values)
