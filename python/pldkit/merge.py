"""Accounting for merged DP-SGD models (pldkit/merge.h, the "DP model
merging" paper): linear combination (LC, Thm 6.4 surrogate and Thm 6.2 RDP,
with per-step schedules), random selection (RS, Thm 5.1 / 5.2), the
joint-release and advanced-composition baselines (Thm 6.1, Prop. 7.1), the
mean-estimation case study (Sec. 4.1) and the merge planner of
``pldkit merge`` (plan()).

A run is one DP-SGD training: ``Run(q, sigma, clip, lr, steps)`` -- Poisson
sampling rate q, noise multiplier sigma (noise std sigma * clip), clipping
norm clip, learning rate lr, steps steps.  Wherever a run is expected, a
dict with those keys (clip and lr default to 1) or a tuple in that order
works too.  For LC a run may also be a LIST of such phases, run one after
the other (a per-step schedule: learning rate, clipping norm, sampling rate
and noise varying over training; equal steps grouped in one phase).

All accounting is the library's; this module converts arguments and
results.  Every status raises a PldkitError with the library's detail.
"""

import bisect
import ctypes
import os
from collections import namedtuple
from ctypes import POINTER, byref, c_double, c_size_t

from . import _lib
from ._lib import lib
from ._util import (DoubleArray, INT64_MAX, check, integer, invalid,
                    make_params, params_dict, raise_status, real)
from .accountant import Accountant
from .mechanisms import Mechanism
from .rdp import RdpCurve
from .results import Bracket

__all__ = ["Run", "LcStep", "MeanLC", "MeanRS", "MergeReport", "METHODS",
           "available", "lc_accountant", "lc_rdp", "joint_accountant",
           "joint_rdp", "rs_accountant", "rs_rdp", "advanced_composition",
           "merge_epsilon", "max_weight", "mean_sigma_lc", "mean_rs_rdp",
           "grid_size", "plan", "warning_text"]

available = _lib.available.get("merge", False)

#: The planner's methods, in the order of enum pld_merge_method.
METHODS = ("rs_pld", "rs_rdp", "lc_pld", "lc_rdp")
_STEPS_MAX = 2 ** 64 - 1


class Run(namedtuple("Run", ["q", "sigma", "clip", "lr", "steps"])):
    """One DP-SGD run (pld_merge_run); clip and lr default to 1, steps to
    1."""

    __slots__ = ()

    def __new__(cls, q, sigma, clip=1.0, lr=1.0, steps=1):
        return super(Run, cls).__new__(cls, q, sigma, clip, lr, steps)


def _require(part="merge"):
    """Every part is in the library the binding loads (kept for callers)."""


def _run(r, f, name="run"):
    """A Run from a Run, a dict or a tuple (values checked for type only;
    the library checks the domain)."""
    if isinstance(r, dict):
        try:
            r = Run(**r)
        except TypeError as e:
            raise TypeError("%s: %s: %s" % (f, name, e)) from None
    elif not isinstance(r, Run):
        try:
            r = Run(*r)
        except TypeError as e:
            raise TypeError("%s: %s must be a Run, a dict or a tuple (%s)"
                            % (f, name, e)) from None
    return Run(real(r.q, name + ".q", f), real(r.sigma, name + ".sigma", f),
               real(r.clip, name + ".clip", f), real(r.lr, name + ".lr", f),
               integer(r.steps, name + ".steps", f, 0, _STEPS_MAX))


def _is_schedule(r):
    """A run given as a list of phases (a list whose entries are not
    numbers; a list of numbers is one run's fields)."""
    return isinstance(r, list) and not (
        r and isinstance(r[0], (int, float)))


def _runs(runs, f):
    """(list of Runs, ctypes array) of plain runs."""
    rs = [_run(r, f, "runs[%d]" % i) for i, r in enumerate(list(runs))]
    arr = (_lib.MergeRun * max(len(rs), 1))(
        *[_lib.MergeRun(*r) for r in rs])
    return rs, ctypes.cast(arr, POINTER(_lib.MergeRun)), arr


def _schedules(runs, f):
    """(list of lists of Runs, ctypes array of pld_merge_schedule, keep)."""
    scheds, keep = [], []
    for i, r in enumerate(list(runs)):
        phases = r if _is_schedule(r) else [r]
        ps = [_run(p, f, "runs[%d][%d]" % (i, k)) for k, p in
              enumerate(phases)]
        arr = (_lib.MergeRun * max(len(ps), 1))(
            *[_lib.MergeRun(*p) for p in ps])
        keep.append(arr)
        scheds.append(ps)
    sarr = (_lib.MergeSchedule * max(len(scheds), 1))(
        *[_lib.MergeSchedule(ctypes.cast(a, POINTER(_lib.MergeRun)), len(s))
          for a, s in zip(keep, scheds)])
    keep.append(sarr)
    return scheds, ctypes.cast(sarr, POINTER(_lib.MergeSchedule)), keep


def _weights(w, n, name, f):
    arr = DoubleArray(w, name, f)
    if arr.n != n:
        invalid(f, "%d %s for %d runs" % (arr.n, name, n))
    return arr


def _params(f, kw):
    return make_params(f, **kw)


def _curve(orders):
    return RdpCurve(orders)


# --------------------------------------------------------------------------
# The LC step as a mechanism (the catalogue's merge-lc event).

class LcStep(Mechanism):
    """One step of the LC surrogate with every listed run active
    (pld_merge_lc_step_mech, the catalogue's ``merge-lc`` event): the
    mixture sum_J rho_J N(Delta_J, s^2) against N(0, s^2).  ``runs`` as
    Run/dict/tuple (steps ignored), ``lambdas`` >= 0, not all 0, need not
    sum to 1 (the pair is scale-free)."""

    __slots__ = ()
    _cli = "merge-lc"

    def __init__(self, runs, lambdas):
        f = "pld_merge_lc_step_mech"
        self._ptr = None
        _require()
        rs, ptr, keep = _runs(runs, f)
        lam = _weights(lambdas, len(rs), "lambdas", f)
        self._make(lib.pld_merge_lc_step_mech, f, (len(rs), ptr, lam.ptr),
                   {"runs": [dict(r._asdict()) for r in rs],
                    "lambdas": [float(lam.ptr[i]) for i in range(lam.n)]})


class MeanLC(Mechanism):
    """Mean estimation, LC of two Gaussian estimates (Sec. 4.1): exactly
    the Gaussian mechanism with sigma_LC (rounded down) and shift Delta
    (pld_merge_mean_lc_mech)."""

    __slots__ = ()

    def __init__(self, sigma1, sigma2, lam, Delta):
        f = "pld_merge_mean_lc_mech"
        self._ptr = None
        _require()
        a = (real(sigma1, "sigma1", f), real(sigma2, "sigma2", f),
             real(lam, "lam", f), real(Delta, "Delta", f))
        self._make(lib.pld_merge_mean_lc_mech, f, a,
                   dict(zip(("sigma1", "sigma2", "lam", "Delta"), a)))


class MeanRS(Mechanism):
    """Mean estimation, RS of two Gaussian estimates (Sec. 4.1): the exact
    pair pi N(0, sigma1^2) + (1-pi) N(0, sigma2^2) against the same
    mixture shifted by Delta (pld_merge_mean_rs_mech)."""

    __slots__ = ()

    def __init__(self, sigma1, sigma2, pi, Delta):
        f = "pld_merge_mean_rs_mech"
        self._ptr = None
        _require()
        a = (real(sigma1, "sigma1", f), real(sigma2, "sigma2", f),
             real(pi, "pi", f), real(Delta, "Delta", f))
        self._make(lib.pld_merge_mean_rs_mech, f, a,
                   dict(zip(("sigma1", "sigma2", "pi", "Delta"), a)))


# --------------------------------------------------------------------------
# Accountants.  Each returned Accountant composes further; its event log
# (what pickle replays) is the same events in Python terms, so that a
# pickled and restored accountant answers the same numbers (tested).

def _lc_log(scheds, lam):
    """The library's LC pieces as LcStep events: cut at every phase
    boundary; in each piece the active runs (not yet ended, lambda > 0)
    with that piece's parameters -- the pair pld_merge_lc_accountant adds
    (same runs in the same order, so the same mixture bit for bit)."""
    ends = [_cumsum(ps) for ps in scheds]
    bounds = sorted({b for e in ends for b in e})
    log, prev = [], 0
    for b in bounds:
        runs, lams = [], []
        for ps, e, w in zip(scheds, ends, lam):
            k = bisect.bisect_left(e, prev + 1)  # the phase holding step
            r = ps[k] if k < len(ps) else None
            if r is not None and w > 0.0:
                runs.append(dict(r._replace(steps=1)._asdict()))
                lams.append(w)
        cnt, prev = b - prev, b
        if not runs:
            continue
        params = {"runs": runs, "lambdas": lams}
        if log and log[-1][2] == params:
            log[-1] = ("mech", LcStep, params, log[-1][3] + cnt)
        else:
            log.append(("mech", LcStep, params, cnt))
    return log


def _cumsum(ps):
    out, t = [], 0
    for p in ps:
        t += p.steps
        out.append(t)
    return out


def lc_accountant(runs, lambdas, **params):
    """The LC surrogate accountant (pld_merge_lc_accountant; Thm 6.4) of
    the merged model sum_i lambdas[i] theta_i, 1 to 5 runs, lambdas on the
    simplex.  A run given as a list of phases is a per-step schedule
    (pld_merge_lc_schedule_accountant).  Keyword arguments are the
    Accountant's (discretization, accuracy, ...).  The Accountant composes
    further events."""
    _require()
    runs = list(runs)
    if any(_is_schedule(r) for r in runs):
        return _lc_schedule_accountant(runs, lambdas, params)
    f = "pld_merge_lc_accountant"
    rs, ptr, keep = _runs(runs, f)
    lam = _weights(lambdas, len(rs), "lambdas", f)
    p = _params(f, params)
    out = _lib.AccPtr()
    check(lib.pld_merge_lc_accountant(len(rs), ptr, lam.ptr, byref(p),
                                      byref(out)), f)
    lw = [float(lam.ptr[i]) for i in range(lam.n)]
    return Accountant._adopt(out, p, _lc_log([[r] for r in rs], lw))


def _lc_schedule_accountant(runs, lambdas, params):
    _require("merge_schedule")
    f = "pld_merge_lc_schedule_accountant"
    scheds, ptr, keep = _schedules(runs, f)
    lam = _weights(lambdas, len(scheds), "lambdas", f)
    p = _params(f, params)
    out = _lib.AccPtr()
    check(lib.pld_merge_lc_schedule_accountant(len(scheds), ptr, lam.ptr,
                                               byref(p), byref(out)), f)
    lw = [float(lam.ptr[i]) for i in range(lam.n)]
    return Accountant._adopt(out, p, _lc_log(scheds, lw))


def lc_rdp(runs, lambdas, orders=None):
    """The LC RDP (pld_merge_lc_rdp, Thm 6.2 both directions; a run given as
    a list of phases: pld_merge_lc_schedule_rdp) as a new RdpCurve
    (default orders unless given)."""
    _require()
    runs = list(runs)
    c = _curve(orders)
    try:
        if any(_is_schedule(r) for r in runs):
            _require("merge_schedule")
            f = "pld_merge_lc_schedule_rdp"
            scheds, ptr, keep = _schedules(runs, f)
            lam = _weights(lambdas, len(scheds), "lambdas", f)
            check(lib.pld_merge_lc_schedule_rdp(len(scheds), ptr, lam.ptr,
                                                c._p), f)
        else:
            f = "pld_merge_lc_rdp"
            rs, ptr, keep = _runs(runs, f)
            lam = _weights(lambdas, len(rs), "lambdas", f)
            check(lib.pld_merge_lc_rdp(len(rs), ptr, lam.ptr, c._p), f)
    except BaseException:
        c.close()
        raise
    return c


def _pg_params(r):
    return {"q": r.q, "sigma": r.sigma, "sensitivity": 1.0}


def joint_accountant(runs, **params):
    """Joint release of all runs (Thm 6.1; pld_merge_joint_accountant):
    run i is PoissonGaussian(q_i, sigma_i) composed steps_i times."""
    _require()
    from .mechanisms import PoissonGaussian
    f = "pld_merge_joint_accountant"
    rs, ptr, keep = _runs(runs, f)
    p = _params(f, params)
    out = _lib.AccPtr()
    check(lib.pld_merge_joint_accountant(len(rs), ptr, byref(p), byref(out)),
          f)
    log = [("mech", PoissonGaussian, _pg_params(r), r.steps) for r in rs]
    return Accountant._adopt(out, p, log)


def joint_rdp(runs, orders=None):
    """Joint release, RDP (Thm 6.1, eq. 7; pld_merge_joint_rdp)."""
    _require()
    f = "pld_merge_joint_rdp"
    rs, ptr, keep = _runs(runs, f)
    c = _curve(orders)
    try:
        check(lib.pld_merge_joint_rdp(len(rs), ptr, c._p), f)
    except BaseException:
        c.close()
        raise
    return c


def rs_accountant(runs, pi, **params):
    """Random selection of one trained model, run i with probability pi[i]
    (Thm 5.2; pld_merge_rs_accountant): one selection event among the
    runs' composed Poisson-Gaussian accountants."""
    _require()
    from .mechanisms import PoissonGaussian
    f = "pld_merge_rs_accountant"
    rs, ptr, keep = _runs(runs, f)
    w = _weights(pi, len(rs), "pi", f)
    p = _params(f, params)
    out = _lib.AccPtr()
    check(lib.pld_merge_rs_accountant(len(rs), ptr, w.ptr, byref(p),
                                      byref(out)), f)
    pd = params_dict(p)
    members = [(pd, [("mech", PoissonGaussian, _pg_params(r), r.steps)])
               for r in rs]
    log = [("sel", members, [float(w.ptr[i]) for i in range(w.n)], 1)]
    return Accountant._adopt(out, p, log)


def rs_rdp(runs, pi, orders=None):
    """Random selection, RDP (Thm 5.1; pld_merge_rs_rdp)."""
    _require()
    f = "pld_merge_rs_rdp"
    rs, ptr, keep = _runs(runs, f)
    w = _weights(pi, len(rs), "pi", f)
    c = _curve(orders)
    try:
        check(lib.pld_merge_rs_rdp(len(rs), ptr, w.ptr, c._p), f)
    except BaseException:
        c.close()
        raise
    return c


def advanced_composition(eps, deltas, delta0):
    """Advanced composition (DRV 2010 Thm III.3 with per-mechanism eps, as
    in Prop. 7.1; pld_merge_advanced_composition): (eps_out, delta_out), a
    certified pair, eps_out rounded upward."""
    _require()
    f = "pld_merge_advanced_composition"
    e = DoubleArray(eps, "eps", f)
    d = DoubleArray(deltas, "deltas", f)
    if e.n != d.n:
        invalid(f, "%d eps but %d deltas" % (e.n, d.n))
    eo, do = c_double(), c_double()
    check(lib.pld_merge_advanced_composition(e.n, e.ptr, d.ptr,
                                             real(delta0, "delta0", f),
                                             byref(eo), byref(do)), f)
    return float(eo.value), float(do.value)


def _method(m, f):
    if isinstance(m, str) and m in METHODS:
        return METHODS.index(m)
    if isinstance(m, int) and not isinstance(m, bool) and 0 <= m < 4:
        return m
    raise ValueError("%s: method must be one of %s, not %r"
                     % (f, ", ".join(METHODS), m))


def merge_epsilon(runs, weights, method, delta, **params):
    """Certified eps(delta) upper bound of a merge (pld_merge_epsilon):
    method 'rs_pld', 'rs_rdp', 'lc_pld' or 'lc_rdp'; weights = lambda (LC)
    or pi (RS).  May be inf."""
    _require()
    f = "pld_merge_epsilon"
    rs, ptr, keep = _runs(runs, f)
    w = _weights(weights, len(rs), "weights", f)
    m = _method(method, f)
    p = _params(f, params)
    out = c_double()
    check(lib.pld_merge_epsilon(len(rs), ptr, w.ptr, m,
                                real(delta, "delta", f), byref(p),
                                byref(out)), f)
    return float(out.value)


def max_weight(runs, method, epsilon, delta, **params):
    """For two runs, the largest weight w0 on runs[0] (weights (w0, 1-w0))
    whose certified eps(delta) is <= epsilon (pld_merge_max_weight): 1 if
    w0 = 1 is feasible, -1 if w0 = 0 is not.  Put the less private run
    first."""
    _require()
    f = "pld_merge_max_weight"
    rs, ptr, keep = _runs(runs, f)
    if len(rs) != 2:
        invalid(f, "max_weight takes exactly 2 runs, got %d" % len(rs))
    m = _method(method, f)
    p = _params(f, params)
    out = c_double()
    check(lib.pld_merge_max_weight(ptr, m, real(epsilon, "epsilon", f),
                                   real(delta, "delta", f), byref(p),
                                   byref(out)), f)
    return float(out.value)


# --------------------------------------------------------------------------
# Mean estimation (Sec. 4.1).

def mean_sigma_lc(sigma1, sigma2, lam):
    """sigma_LC = sqrt(lam^2 sigma1^2 + (1-lam)^2 sigma2^2), rounded up
    (pld_merge_mean_sigma_lc; MeanLC is the certified mechanism)."""
    _require()
    f = "pld_merge_mean_sigma_lc"
    out = c_double()
    check(lib.pld_merge_mean_sigma_lc(real(sigma1, "sigma1", f),
                                      real(sigma2, "sigma2", f),
                                      real(lam, "lam", f), byref(out)), f)
    return float(out.value)


def mean_rs_rdp(sigma1, sigma2, pi, Delta, orders=None):
    """The exact RDP of RS in mean estimation (pld_merge_mean_rs_rdp) as a
    new RdpCurve."""
    _require()
    f = "pld_merge_mean_rs_rdp"
    c = _curve(orders)
    try:
        check(lib.pld_merge_mean_rs_rdp(real(sigma1, "sigma1", f),
                                        real(sigma2, "sigma2", f),
                                        real(pi, "pi", f),
                                        real(Delta, "Delta", f), c._p), f)
    except BaseException:
        c.close()
        raise
    return c


# --------------------------------------------------------------------------
# The planner.

def warning_text(flag):
    """pld_merge_warning_text(flag) ("" for an unknown flag)."""
    _require()
    t = lib.pld_merge_warning_text(int(flag) & 0xFFFFFFFF)
    return t.decode("utf-8", "replace") if t else ""


def grid_size(n, resolution):
    """Number of simplex grid points of n runs at a resolution
    (pld_merge_grid_size)."""
    _require()
    f = "pld_merge_grid_size"
    out = c_size_t()
    check(lib.pld_merge_grid_size(integer(n, "n", f, 0, INT64_MAX),
                                  integer(resolution, "resolution", f, 0,
                                          2 ** 32 - 1), byref(out)), f)
    return int(out.value)


def _num(x):
    """The CLI's JSON spelling: NaN -> None, +-inf -> 'inf' / '-inf'."""
    x = float(x)
    if x != x:
        return None
    if x in (float("inf"), float("-inf")):
        return "inf" if x > 0 else "-inf"
    return x


MergePoint = namedtuple("MergePoint", ["upper", "lower", "feasible",
                                       "met_accuracy"])


class MergeReport(object):
    """What plan() answers (pld_merge_report), copied into Python.

    ``runs`` are sorted (run 0 the less private), ``order[i]`` the input
    index of sorted run i; ``own_eps`` Brackets; ``joint_pld`` Bracket,
    ``joint_rdp``; ``adv_eps``, ``adv_delta``, ``adv_delta_i``,
    ``adv_delta0``, ``adv_eps_i``; ``max_weight`` a dict method -> weight
    for 2 runs, else None; ``weights`` a list of tuples and ``points`` a
    list of dicts method -> MergePoint(upper, lower, feasible,
    met_accuracy) (lower None for RDP); ``warnings`` the texts and
    ``warning_flags`` the bits.  ``as_dict()`` is the CLI's ``pldkit
    merge --json`` object (without "seconds")."""

    def __init__(self, r):
        n = int(r.n)
        self.n = n
        self.order = [int(r.order[i]) for i in range(n)]
        self.runs = [Run(x.q, x.sigma, x.clip, x.lr, int(x.steps))
                     for x in r.runs[:n]]
        self.own_eps = [Bracket(b.lower, b.upper) for b in r.own_eps[:n]]
        self.own_met_accuracy = [bool(x) for x in r.own_met_accuracy[:n]]
        self.epsilon = float(r.epsilon)
        self.delta = float(r.delta)
        self.accuracy = float(r.accuracy)
        self.resolution = int(r.resolution)
        self.joint_pld = Bracket(r.joint_pld.lower, r.joint_pld.upper)
        self.joint_pld_met_accuracy = bool(r.joint_pld_met_accuracy)
        self.joint_rdp = float(r.joint_rdp)
        self.adv_eps = float(r.adv_eps)
        self.adv_delta = float(r.adv_delta)
        self.adv_delta_i = float(r.adv_delta_i)
        self.adv_delta0 = float(r.adv_delta0)
        self.adv_eps_i = [float(x) for x in r.adv_eps_i[:n]]
        self.max_weight = ({m: float(r.max_weight[i])
                            for i, m in enumerate(METHODS)}
                           if n == 2 else None)
        np_ = int(r.n_points)
        self.weights = [tuple(float(r.weights[g * n + i]) for i in range(n))
                        for g in range(np_)]
        self.points = []
        for g in range(np_):
            p = r.points[g]
            self.points.append({
                m: MergePoint(float(p.upper[i]),
                              None if p.lower[i] != p.lower[i]
                              else float(p.lower[i]),
                              bool(p.feasible[i]), bool(p.met_accuracy[i]))
                for i, m in enumerate(METHODS)})
        self.warning_flags = int(r.warnings)
        self.warnings = [warning_text(1 << b) for b in range(32)
                         if self.warning_flags & (1 << b)]

    def as_dict(self):
        """The object of ``pldkit merge --json`` (same keys and numbers;
        "seconds" omitted)."""
        runs = []
        for i, r in enumerate(self.runs):
            runs.append({"config_index": self.order[i], "q": _num(r.q),
                         "sigma": _num(r.sigma), "clip": _num(r.clip),
                         "lr": _num(r.lr), "steps": r.steps,
                         "epsilon_upper": _num(self.own_eps[i].upper),
                         "epsilon_lower": _num(self.own_eps[i].lower),
                         "met_accuracy": self.own_met_accuracy[i]})
        grid = []
        for w, p in zip(self.weights, self.points):
            e = {"weights": [_num(x) for x in w]}
            for m in METHODS:
                e[m] = {"epsilon_upper": _num(p[m].upper),
                        "epsilon_lower": (None if p[m].lower is None
                                          else _num(p[m].lower)),
                        "feasible": p[m].feasible,
                        "met_accuracy": p[m].met_accuracy}
            grid.append(e)
        return {
            "command": "merge", "epsilon": _num(self.epsilon),
            "delta": _num(self.delta), "n_runs": self.n,
            "resolution": self.resolution, "accuracy": _num(self.accuracy),
            "runs": runs,
            "baselines": {
                "joint_pld": {"epsilon_upper": _num(self.joint_pld.upper),
                              "epsilon_lower": _num(self.joint_pld.lower),
                              "met_accuracy": self.joint_pld_met_accuracy},
                "joint_rdp": {"epsilon_upper": _num(self.joint_rdp)},
                "advanced_composition": {
                    "epsilon_upper": _num(self.adv_eps),
                    "delta": _num(self.adv_delta),
                    "delta_per_run": _num(self.adv_delta_i),
                    "delta0": _num(self.adv_delta0),
                    "per_run_epsilon": [_num(x) for x in self.adv_eps_i]}},
            "max_weight": (None if self.max_weight is None else
                           {m: _num(v) for m, v in self.max_weight.items()}),
            "warnings": list(self.warnings),
            "grid": grid}

    def __repr__(self):
        return ("<MergeReport %d runs, %d grid points, warnings=%r>"
                % (self.n, len(self.points), self.warnings))


def _online_cpus():
    """The CLI's default thread count (cli/merge.c): online CPUs, 1..8."""
    try:
        n = os.sysconf("SC_NPROCESSORS_ONLN")
    except (AttributeError, ValueError, OSError):
        n = os.cpu_count() or 1
    return max(1, min(8, int(n)))


def plan(runs, epsilon, delta, resolution=0, accuracy=0.01, progress=None,
         max_work=0, threads=None):
    """The merge planner (pld_merge_plan_compute), what ``pldkit merge``
    prints: per grid point the certified eps(delta) of RS and LC under PLD
    and RDP, feasibility against epsilon, the baselines and, for 2 runs,
    the largest feasible weight on run 0 per method.  resolution 0 = the
    library's default (20 for <= 2 runs, 10 for more); accuracy as the
    CLI's --accuracy (default 0.01); max_work as --max-work (0: the
    library's cap, grid points x 2^n <= 8192); threads as --threads (the
    weight grid's points on that many threads, 1 to 64; every number is the
    same for any count; None, the default, is the CLI's default: one per
    online CPU, at most 8).  progress(fraction, stage), if given, is called
    from the calling thread during the computation (an exception in it is
    printed by ctypes and ignored).  Returns a MergeReport."""
    _require()
    f = "pld_merge_plan_compute"
    rs, ptr, keep = _runs(runs, f)
    pl = _lib.MergePlan()
    pl.runs = ptr
    pl.n = len(rs)
    pl.epsilon = real(epsilon, "epsilon", f)
    pl.delta = real(delta, "delta", f)
    pl.resolution = integer(resolution, "resolution", f, 0, 2 ** 32 - 1)
    pl.accuracy = real(accuracy, "accuracy", f)
    pl.max_work = integer(max_work, "max_work", f, 0, 2 ** 53)
    if threads is None:
        threads = _online_cpus()
    pl.threads = integer(threads, "threads", f, 1, 64)
    cb = None
    if progress is not None:
        if not callable(progress):
            raise TypeError("%s: progress must be callable" % f)

        def _cb(ctx, fraction, stage):
            progress(float(fraction),
                     stage.decode("utf-8", "replace") if stage else "")
        cb = _lib.MergeProgressFn(_cb)
        pl.progress = cb
    out = POINTER(_lib.MergeReport)()
    check(lib.pld_merge_plan_compute(byref(pl), byref(out)), f)
    try:
        return MergeReport(out.contents)
    finally:
        lib.pld_merge_report_free(out)
