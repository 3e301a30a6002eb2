"""The accountant (pldkit/accountant.h, select.h): a list of events
(mechanism, count) composed and queried on an automatically chosen grid,
noise calibration, and the DP-SGD shorthands."""

import ctypes
import math
from ctypes import POINTER, byref, c_double, c_size_t

from . import _lib
from ._lib import lib, AccPtr, DistPtr
from ._util import (DoubleArray, Handle, check, count, integer, invalid,
                    make_params, params_dict, raise_status, real)
from .mechanisms import Mechanism, PoissonGaussian
from .pld import PLD, bounds_buffer, epsilons_in
from .results import CurveResult, Result

__all__ = ["Accountant", "Calibration", "calibrate", "dpsgd_accountant",
           "dpsgd_epsilon", "dpsgd_noise_multiplier", "select_feasible",
           "select_max_weight"]


class Accountant(Handle):
    """A list of events, composed with PLDs and queried with brackets.

    Parameters (None keeps the library default):

    * discretization: fixed grid step in nats; None/0 = automatic;
    * accuracy: automatic grid target (upper - lower) / upper (default 2e-3);
    * abs_accuracy: absolute floor of that target for epsilon (1e-4);
    * tail_mass: mass each truncation may move (default 0: automatic, see
      pld.h);
    * max_grid: cap on the grid points of any one array (default 2^23).

    ``compose(mech, count)`` and ``add_selection(...)`` return the
    accountant, so calls chain.  Queries: ``epsilon(delta)``,
    ``delta(epsilon)``, ``curve(epsilons)``; ``get_epsilon`` and
    ``get_delta`` return the certified value as a float (the dp_accounting
    names).  Identical events are grouped; a list of Gaussians only is
    answered in closed form."""

    __slots__ = ("_params", "_log")
    _kind = "accountant"
    _free = lib.pld_accountant_free

    def __init__(self, discretization=None, accuracy=None, tail_mass=None,
                 max_grid=None, abs_accuracy=None):
        self._ptr = None
        # The events in Python terms, replayed by pickle (the C object has
        # no serialisation of its own): ("mech", class, params, count),
        # ("pld", serialized bytes, count), ("sel", [member states],
        # weights, count).  Consecutive identical mechanisms share an entry.
        self._log = []
        f = "pld_accountant_alloc"
        self._params = make_params(f, discretization=discretization,
                                   accuracy=accuracy, tail_mass=tail_mass,
                                   max_grid=max_grid,
                                   abs_accuracy=abs_accuracy)
        out = AccPtr()
        check(lib.pld_accountant_alloc(byref(self._params), byref(out)), f)
        self._ptr = out

    @classmethod
    def _adopt(cls, ptr, params, log=()):
        obj = cls.__new__(cls)
        obj._ptr = ptr
        obj._params = params
        obj._log = list(log)
        return obj

    @property
    def params(self):
        """The parameters (a dict)."""
        return params_dict(self._params)

    @property
    def num_groups(self):
        """Number of distinct event groups (identical events are merged)."""
        return int(lib.pld_accountant_size(self._p))

    def copy(self):
        """A deep copy."""
        out = AccPtr()
        check(lib.pld_accountant_copy(self._p, byref(out)),
              "pld_accountant_copy")
        return Accountant._adopt(out,
                                 _lib.Params.from_buffer_copy(self._params),
                                 self._log)

    # ---- pickling: the parameters and the event log, replayed ------------
    def _state(self):
        self._p  # a closed accountant does not pickle
        return (params_dict(self._params), list(self._log))

    def __reduce__(self):
        return (_rebuild_accountant, self._state())

    # ---- events ---------------------------------------------------------
    def compose(self, mechanism, count=1):
        """Append `count` runs of a Mechanism (or of a PLD, which then fixes
        the grid).  Returns self."""
        if isinstance(mechanism, PLD):
            return self.add_pld(mechanism, count)
        f = "pld_accountant_add"
        if not isinstance(mechanism, Mechanism):
            raise TypeError("%s: expected a Mechanism or a PLD, not %s"
                            % (f, type(mechanism).__name__))
        c = _count(count, f)
        check(lib.pld_accountant_add(self._p, mechanism._p, c), f)
        cls, params = type(mechanism), mechanism._params
        last = self._log[-1] if self._log else None
        if (last is not None and last[0] == "mech" and last[1] is cls
                and last[2] == params):
            self._log[-1] = ("mech", cls, params, last[3] + c)
        else:
            self._log.append(("mech", cls, params, c))
        return self

    add = compose

    def step(self, noise_multiplier, sample_rate, count=1):
        """Opacus-style: record `count` DP-SGD steps, each a
        Poisson-subsampled Gaussian with the given noise multiplier (sigma /
        clipping norm) and sampling rate.  Identical steps are grouped, so
        calling this once per training step is cheap.  Returns self."""
        with PoissonGaussian(sample_rate, noise_multiplier, 1.0) as m:
            return self.compose(m, count)

    def merge(self, other):
        """Append every event of another Accountant (pld_accountant_merge),
        all or nothing: on an error self is unchanged.  Build one update's
        events (several mechanisms, a selection, PLDs) in a scratch
        Accountant and merge it, so that no update is half recorded.
        other's parameters are not used; other may be self (its events then
        count twice).  Returns self."""
        f = "pld_accountant_merge"
        if not isinstance(other, Accountant):
            raise TypeError("%s: expected an Accountant, not %s"
                            % (f, type(other).__name__))
        state = other._state()
        check(lib.pld_accountant_merge(self._p, other._p), f)
        self._log.append(("merge", state))
        return self

    def add_pld(self, pld, count=1):
        """Append `count` runs of a precomputed PLD (e.g. a ledger loaded
        with PLD.load).  Its grid then fixes the accountant's and the
        automatic refinement is off.  Returns self."""
        f = "pld_accountant_add_dist"
        if not isinstance(pld, PLD):
            raise TypeError("%s: expected a PLD, not %s"
                            % (f, type(pld).__name__))
        c = _count(count, f)
        data = pld.serialize()
        check(lib.pld_accountant_add_dist(self._p, pld._p, c), f)
        self._log.append(("pld", data, c))
        return self

    def add_selection(self, members, weights, count=1):
        """Append `count` runs of a random selection among member
        Accountants (each an event list, composed on its own), member i
        with probability weights[i] (>= 0, summing to 1 within 1e-12), the
        choice visible.  The members are copied.  Returns self."""
        f = "pld_accountant_add_selection"
        members = list(members)
        for m in members:
            if not isinstance(m, Accountant):
                raise TypeError("%s: members must be Accountants, not %s"
                                % (f, type(m).__name__))
        w = DoubleArray(weights, "weights", f)
        if w.n != len(members):
            invalid(f, "%d weights for %d members" % (w.n, len(members)))
        c = _count(count, f)
        arr = (AccPtr * max(len(members), 1))(*[m._p for m in members])
        check(lib.pld_accountant_add_selection(
            self._p, len(members), ctypes.cast(arr, POINTER(AccPtr)), w.ptr,
            c), f)
        self._log.append(("sel", [m._state() for m in members],
                          [float(w.ptr[i]) for i in range(w.n)], c))
        return self

    # ---- queries --------------------------------------------------------
    def epsilon(self, delta):
        """epsilon(delta), delta in (0, 1): a Result (``.upper`` certified;
        may be inf)."""
        f = "pld_accountant_epsilon"
        d = real(delta, "delta", f)
        r = _lib.Result()
        check(lib.pld_accountant_epsilon(self._p, d, byref(r)), f)
        return Result("epsilon", d, r)

    def delta(self, epsilon):
        """delta(epsilon), epsilon >= 0: a Result (``.upper`` certified)."""
        f = "pld_accountant_delta"
        e = real(epsilon, "epsilon", f)
        r = _lib.Result()
        check(lib.pld_accountant_delta(self._p, e, byref(r)), f)
        return Result("delta", e, r)

    def curve(self, epsilons):
        """delta at several epsilons (each >= 0; a sequence or a numpy
        array): a CurveResult whose arrays are numpy arrays when the input
        was one.  The grid is refined for the smallest delta among them."""
        f = "pld_accountant_curve"
        arr, shown = epsilons_in(epsilons, f)
        ptr, get = bounds_buffer(arr.n, arr.is_numpy)
        info = _lib.Result()
        check(lib.pld_accountant_curve(self._p, arr.n, arr.ptr, ptr,
                                       byref(info)), f)
        lower, upper = get()
        return CurveResult(shown, lower, upper, float(info.discretization),
                           int(info.grid_size), int(info.fft_size),
                           int(info.refinements), bool(info.closed_form),
                           bool(info.met_accuracy))

    def get_epsilon(self, target_delta=None, *, delta=None):
        """The certified epsilon (a float) at target_delta (dp_accounting's
        name; ``delta=`` is accepted too, Opacus' name)."""
        d = _one_of(target_delta, delta, "target_delta", "delta",
                    "get_epsilon")
        return self.epsilon(d).upper

    def get_delta(self, target_epsilon=None, *, epsilon=None):
        """The certified delta (a float) at target_epsilon (``epsilon=`` is
        accepted too)."""
        e = _one_of(target_epsilon, epsilon, "target_epsilon", "epsilon",
                    "get_delta")
        return self.delta(e).upper

    def compose_pld(self, discretization):
        """The composed PLD on the grid of step `discretization` (> 0)."""
        f = "pld_accountant_compose"
        d = real(discretization, "discretization", f)
        out = DistPtr()
        check(lib.pld_accountant_compose(self._p, d, byref(out)), f)
        return PLD._adopt(out)

    def __repr__(self):
        if self._ptr is None:
            return "<closed Accountant>"
        return "<Accountant: %d event group(s)>" % self.num_groups


def _count(x, function):
    return count(x, function)


def _one_of(a, b, name_a, name_b, function):
    """The value given under one of two names (exactly one)."""
    if (a is None) == (b is None):
        raise TypeError("%s() takes %s (or %s), exactly one of them"
                        % (function, name_a, name_b))
    return a if b is None else b


def _replay(acc, log):
    for entry in log:
        kind = entry[0]
        if kind == "mech":
            _, cls, params, c = entry
            m = cls(**params)
            try:
                acc.compose(m, c)
            finally:
                m.close()
        elif kind == "pld":
            _, data, c = entry
            with PLD.deserialize(data) as pld:
                acc.add_pld(pld, c)
        elif kind == "sel":
            _, states, weights, c = entry
            members = [_rebuild_accountant(*st) for st in states]
            try:
                acc.add_selection(members, weights, c)
            finally:
                for m in members:
                    m.close()
        elif kind == "merge":
            other = _rebuild_accountant(*entry[1])
            try:
                acc.merge(other)
            finally:
                other.close()
        else:  # pragma: no cover - only written by this module
            raise ValueError("unknown accountant log entry %r" % (kind,))
    return acc


def _rebuild_accountant(params, log):
    """Unpickle: a new Accountant with the same parameters and events.  An
    accountant built from EVENT texts (pldkit.events.accountant) starts
    with ("events", texts): it is rebuilt from them by the library."""
    if log and log[0][0] == "events":
        from .events import accountant as from_events
        return _replay(from_events(*log[0][1], **params), log[1:])
    return _replay(Accountant(**params), log)


# --------------------------------------------------------------------------
# Noise calibration.

class Calibration(object):
    """The result of calibrate(): ``param`` (the smallest value found that
    meets the target by the certified epsilon), ``param_fail`` (the largest
    value found below it that is NOT CERTIFIED to meet it: it certifiably
    fails, or the accountant could not decide; 0 if even the search floor
    met it), ``result`` (the epsilon Result at param) and
    ``evaluations``."""

    __slots__ = ("param", "param_fail", "result", "evaluations")

    def __init__(self, c, delta):
        self.param = float(c.param)
        self.param_fail = float(c.param_fail)
        self.result = Result("epsilon", delta, c.at_param)
        self.evaluations = int(c.evaluations)

    def __float__(self):
        return self.param

    def __repr__(self):
        return ("<Calibration param=%.10g (not certified at %.10g), "
                "epsilon <= %.6g, "
                "%d evaluations>" % (self.param, self.param_fail,
                                     self.result.upper, self.evaluations))


def calibrate(build_fn, epsilon, delta, start=1.0, rel_tol=1e-3,
              progress=None):
    """The smallest parameter value (e.g. sigma) whose Accountant, built by
    ``build_fn(param)``, meets (epsilon, delta) by its certified upper end,
    assuming epsilon decreases as the parameter grows (pld_calibrate).

    build_fn(param) must return an Accountant; it is used through a copy,
    so build_fn may keep, reuse or close the object it returns.  An
    exception raised by build_fn (or by progress) stops the search and is
    re-raised here unchanged.  progress(evaluation, param, epsilon_upper),
    optional, is called after each evaluation.  Returns a Calibration;
    raises ToleranceNotMet when no value up to 1e12 * start meets the
    target."""
    f = "pld_calibrate"
    if not callable(build_fn):
        raise TypeError("%s: build_fn must be callable" % f)
    if progress is not None and not callable(progress):
        raise TypeError("%s: progress must be callable or None" % f)
    eps = real(epsilon, "epsilon", f)
    dlt = real(delta, "delta", f)
    st0 = real(start, "start", f)
    tol = real(rel_tol, "rel_tol", f)
    failure = []  # the first exception raised by Python code, if any

    def build(param, ctx, out):
        if failure:
            return _lib.PLD_ECALLBACK
        try:
            acc = build_fn(param)
            if not isinstance(acc, Accountant):
                raise TypeError("calibrate: build_fn(%r) returned %s, not an "
                                "Accountant" % (param, type(acc).__name__))
            # pld_calibrate frees what we hand it: give it a copy, so the
            # Python object keeps sole ownership of its own pointer.
            copy = AccPtr()
            st = lib.pld_accountant_copy(acc._p, byref(copy))
            if st != 0:
                return st
            out[0] = copy
            return 0
        except BaseException as e:  # noqa: B902 - re-raised after the call
            failure.append(e)
            return _lib.PLD_ECALLBACK

    def prog(ctx, n, param, eps_upper):
        if failure or progress is None:
            return
        try:
            progress(int(n), float(param), float(eps_upper))
        except BaseException as e:  # noqa: B902
            failure.append(e)

    c_build = _lib.BuildFn(build)
    c_prog = _lib.ProgressFn(prog)
    out = _lib.Calibration()
    st = lib.pld_calibrate(c_build, None, eps, dlt, st0, tol,
                           c_prog, None, byref(out))
    if failure:
        exc = failure[0]
        del failure[:]
        raise exc
    # With a progress callback that failed on the last evaluation the search
    # may have finished anyway; failure is checked first so it still raises.
    check(st, f)
    return Calibration(out, dlt)


# --------------------------------------------------------------------------
# DP-SGD shorthands (Opacus / dp_accounting style).

def dpsgd_accountant(noise_multiplier, sample_rate, steps, **params):
    """An Accountant holding `steps` Poisson-subsampled Gaussian steps with
    the given noise multiplier (sigma / clipping norm) and sampling rate
    (batch size / dataset size)."""
    acc = Accountant(**params)
    mech = PoissonGaussian(sample_rate, noise_multiplier, 1.0)
    try:
        acc.compose(mech, steps)
    finally:
        mech.close()
    return acc


def dpsgd_epsilon(noise_multiplier, sample_rate, steps, delta, **params):
    """The certified epsilon (a float, nats) of DP-SGD: `steps` steps of
    the Poisson-subsampled Gaussian with `noise_multiplier` and
    `sample_rate`, at `delta`.  The counterpart of Opacus'
    ``accountant.get_epsilon(delta)`` after `steps` calls of
    ``accountant.step(noise_multiplier=..., sample_rate=...)``, and of
    dp_accounting's ``PLDAccountant().compose(PoissonSampledDpEvent(q,
    GaussianDpEvent(sigma)), steps).get_epsilon(delta)``.  Keyword
    arguments are Accountant parameters."""
    with dpsgd_accountant(noise_multiplier, sample_rate, steps,
                          **params) as acc:
        return acc.epsilon(delta).upper


def dpsgd_noise_multiplier(target_epsilon, target_delta, sample_rate,
                           steps=None, rel_tol=1e-3, epochs=None, **params):
    """The smallest noise multiplier whose certified epsilon after `steps`
    DP-SGD steps at `sample_rate` is <= target_epsilon at target_delta (the
    counterpart of Opacus' get_noise_multiplier, see also
    pldkit.opacus.get_noise_multiplier).  Give `steps` or `epochs` (then
    steps = int(epochs / sample_rate), as Opacus counts them).  Returns a
    float."""
    if (steps is None) == (epochs is None):
        raise TypeError("dpsgd_noise_multiplier: give steps or epochs, "
                        "exactly one of them")
    if steps is None:
        steps = steps_of_epochs(epochs, sample_rate, "dpsgd_noise_multiplier")
    def build(sigma):
        return dpsgd_accountant(sigma, sample_rate, steps, **params)
    return calibrate(build, target_epsilon, target_delta, start=1.0,
                     rel_tol=rel_tol).param


def steps_of_epochs(epochs, sample_rate, function):
    """Opacus' step count for `epochs` passes at `sample_rate`: the whole
    part of epochs / sample_rate (at least 1)."""
    e = real(epochs, "epochs", function)
    q = real(sample_rate, "sample_rate", function)
    if not (math.isfinite(e) and e > 0):
        invalid(function, "epochs=%r must be a finite number > 0" % (epochs,))
    if not (math.isfinite(q) and 0 < q <= 1):
        invalid(function, "sample_rate=%r must be in (0, 1]" % (sample_rate,))
    return max(int(e / q), 1)


# --------------------------------------------------------------------------
# Merge planning (select.h).

def _member_deltas(member_deltas, function):
    flat = []
    rows = list(member_deltas)
    for row in rows:
        if isinstance(row, (int, float)) or not hasattr(row, "__iter__"):
            raise TypeError("%s: member_deltas must be rows (delta_remove, "
                            "delta_add), one per member" % function)
        row = list(row)
        if len(row) != 2:
            invalid(function, "each member needs 2 deltas (remove, add), "
                    "got %d" % len(row))
        flat.extend(row)
    return len(rows), DoubleArray(flat, "member_deltas", function)


def select_feasible(member_deltas, delta, resolution, cap=None):
    """Feasible selection weights for a random selection: member_deltas[i]
    = (delta_remove, delta_add), member i's certified deltas at the target
    epsilon (e.g. from mechanism.delta(eps, 'remove'/'add')); returns the
    weight vectors pi of the simplex grid of resolution `resolution` (n <= 4)
    with max_dir sum_i pi_i member_deltas[i][dir] <= delta, as a list of
    tuples."""
    f = "pld_select_feasible"
    n, arr = _member_deltas(member_deltas, f)
    d = real(delta, "delta", f)
    s = integer(resolution, "resolution", f, 0, 2 ** 32 - 1)
    if cap is None:
        cap = math.comb(s + max(n, 1) - 1, max(n, 1) - 1) if n >= 1 else 1
    cap = max(int(cap), 1)
    if cap > 1 << 24:
        raise_status(_lib.PLD_ERANGE, f, "%d weight vectors; pass a smaller "
                     "resolution or cap" % cap)
    buf = (c_double * (cap * max(n, 1)))()
    got = c_size_t()
    check(lib.pld_select_feasible(n, arr.ptr, d, s, buf, cap, byref(got)), f)
    k = min(got.value, cap)
    return [tuple(buf[i * n + j] for j in range(n)) for i in range(k)]


def select_max_weight(member_deltas, delta):
    """For two members: the largest weight on member 0 such that
    (pi, 1 - pi) is feasible (-1 if none is, 1 if all are)."""
    f = "pld_select_max_weight"
    n, arr = _member_deltas(member_deltas, f)
    if n != 2:
        invalid(f, "needs exactly 2 members, got %d" % n)
    d = real(delta, "delta", f)
    out = c_double()
    check(lib.pld_select_max_weight(arr.ptr, d, byref(out)), f)
    return out.value

