"""Mechanisms (pldkit/mech.h): each one is an exact hockey-stick curve in
both directions.

Conventions, as in the C library: sensitivities are L1 for Laplace, L2 for
Gaussian, integers for the discrete mechanisms; Poisson-subsampled
mechanisms use add/remove adjacency (both directions kept); randomized
response and finite pairs use the pair as given.  Epsilons are in nats.

A Mechanism owns a C object.  It is freed when the Python object is garbage
collected, or at once with close() / a ``with`` block.  Everything that
stores a mechanism (an Accountant, PoissonSampled, RandomSelection) stores a
copy, so a mechanism may be closed as soon as it has been used.
"""

import ctypes
from ctypes import byref, c_double

from . import _lib
from ._lib import lib, MechPtr
from ._util import (DoubleArray, Handle, INT64_MAX, UINT64_MAX, POSITIVE,
                    RATE, check, integer, invalid, real)

__all__ = [
    "Mechanism", "Gaussian", "Laplace", "DiscreteLaplace", "DiscreteGaussian",
    "RandomizedResponse", "FinitePair", "PoissonSampled", "PoissonGaussian",
    "PoissonLaplace", "GaussianMixture", "WorGaussian", "RandomSelection",
    "RectifiedGaussian", "TruncatedGaussian", "direction_code",
]

_DIRECTIONS = {
    "remove": _lib.PLD_DIR_PQ, "pq": _lib.PLD_DIR_PQ, _lib.PLD_DIR_PQ: 0,
    "add": _lib.PLD_DIR_QP, "qp": _lib.PLD_DIR_QP, _lib.PLD_DIR_QP: 1,
}


def direction_code(direction):
    """'remove' (or 'pq', 0) -> PLD_DIR_PQ; 'add' (or 'qp', 1) -> PLD_DIR_QP."""
    key = direction.lower() if isinstance(direction, str) else direction
    try:
        return _DIRECTIONS[key]
    except (KeyError, TypeError):
        raise ValueError("direction must be 'remove' ('pq', 0) or 'add' "
                         "('qp', 1), not %r" % (direction,)) from None


class Mechanism(Handle):
    """Base class of all mechanisms.  Instantiate a subclass."""

    __slots__ = ("_params",)
    _kind = "mechanism"
    _free = lib.pld_mech_free
    _cli = None  # CLI event name, if the CLI has this mechanism

    def __init__(self, *args, **kwargs):
        self._ptr = None
        raise TypeError("Mechanism is abstract: use Gaussian, Laplace, ...")

    def _make(self, cfunc, fname, args, params):
        self._ptr = None
        self._params = params
        out = MechPtr()
        st = cfunc(*(args + (byref(out),)))
        if st:
            doms = _DOMAINS.get(type(self).__name__, {})
            check(st, fname, args={k: (params[k], d) for k, d in doms.items()
                                   if k in params})
        self._ptr = out

    @classmethod
    def _adopt(cls, ptr, params):
        obj = cls.__new__(cls)
        obj._ptr = ptr
        obj._params = dict(params)
        return obj

    @property
    def params(self):
        """The parameters the mechanism was made with (a new dict)."""
        return dict(self._params)

    def __repr__(self):
        if self._ptr is None:
            return "<closed %s>" % type(self).__name__
        args = ", ".join("%s=%r" % kv for kv in self._params.items())
        return "%s(%s)" % (type(self).__name__, args)

    def copy(self):
        """A deep copy (a new C object)."""
        out = MechPtr()
        check(lib.pld_mech_copy(self._p, byref(out)), "pld_mech_copy")
        return type(self)._adopt(out, self._params)

    def __reduce__(self):
        # rebuilt from its parameters (every constructor takes them by name)
        return (_rebuild, (type(self), self._params))

    def delta(self, epsilon, direction="both"):
        """The exact hockey-stick value H_{e^epsilon} of one run: in
        direction 'remove' (P||Q), 'add' (Q||P), or the worse of the two
        ('both', the default).  epsilon may be any real or +inf."""
        eps = real(epsilon, "epsilon", "Mechanism.delta")
        if direction == "both":
            return max(self.delta(eps, "remove"), self.delta(eps, "add"))
        d = c_double()
        check(lib.pld_mech_delta(self._p, direction_code(direction), eps,
                                 byref(d)), "pld_mech_delta")
        return d.value

    @property
    def gaussian_mu(self):
        """mu = sensitivity / sigma if the mechanism is exactly a Gaussian
        mechanism (mu-GDP), else None."""
        mu = c_double()
        st = lib.pld_mech_gaussian_mu(self._p, byref(mu))
        if st == _lib.PLD_EUNSUPPORTED:
            return None
        check(st, "pld_mech_gaussian_mu")
        return mu.value

    def equals(self, other):
        """True if both are known to be the same mechanism (same family and
        parameters), as the accountant's grouping decides it."""
        if not isinstance(other, Mechanism):
            return False
        return bool(lib.pld_mech_equal(self._p, other._p))

    def to_pld(self, discretization, tail_mass=None, max_grid=None):
        """The PLD pair of one run on the grid of step `discretization`
        (nats); see PLD.from_mechanism."""
        from .pld import PLD
        return PLD.from_mechanism(self, discretization, tail_mass=tail_mass,
                                  max_grid=max_grid)


class Gaussian(Mechanism):
    """Gaussian mechanism N(0, sigma^2) vs N(sensitivity, sigma^2)
    (L2 sensitivity).  Compositions of Gaussians are answered in closed
    form by the Accountant."""

    __slots__ = ()
    _cli = "gaussian"

    def __init__(self, sigma, sensitivity=1.0):
        f = "pld_mech_gaussian"
        s, c = real(sigma, "sigma", f), real(sensitivity, "sensitivity", f)
        self._make(lib.pld_mech_gaussian, f, (s, c),
                   {"sigma": s, "sensitivity": c})


class Laplace(Mechanism):
    """Laplace mechanism with scale b and L1 sensitivity."""

    __slots__ = ()
    _cli = "laplace"

    def __init__(self, b, sensitivity=1.0):
        f = "pld_mech_laplace"
        s, c = real(b, "b", f), real(sensitivity, "sensitivity", f)
        self._make(lib.pld_mech_laplace, f, (s, c),
                   {"b": s, "sensitivity": c})


class DiscreteLaplace(Mechanism):
    """Discrete Laplace on the integers, P(k) ~ exp(-|k|/scale), integer
    sensitivity >= 1."""

    __slots__ = ()
    _cli = "discrete-laplace"

    def __init__(self, scale, sensitivity=1):
        f = "pld_mech_discrete_laplace"
        s = real(scale, "scale", f)
        c = integer(sensitivity, "sensitivity", f, -INT64_MAX - 1, INT64_MAX)
        self._make(lib.pld_mech_discrete_laplace, f, (s, c),
                   {"scale": s, "sensitivity": c})


class DiscreteGaussian(Mechanism):
    """Discrete Gaussian on the integers, P(k) ~ exp(-k^2/(2 sigma^2)),
    integer sensitivity >= 1 (Canonne, Kamath, Steinke 2020)."""

    __slots__ = ()
    _cli = "discrete-gaussian"

    def __init__(self, sigma, sensitivity=1):
        f = "pld_mech_discrete_gaussian"
        s = real(sigma, "sigma", f)
        c = integer(sensitivity, "sensitivity", f, -INT64_MAX - 1, INT64_MAX)
        self._make(lib.pld_mech_discrete_gaussian, f, (s, c),
                   {"sigma": s, "sensitivity": c})


class RandomizedResponse(Mechanism):
    """k-ary randomized response with parameter epsilon0 >= 0 (nats), k >= 2,
    replace-one adjacency."""

    __slots__ = ()
    _cli = "randomized-response"

    def __init__(self, epsilon0, k):
        f = "pld_mech_randomized_response"
        e = real(epsilon0, "epsilon0", f)
        kk = integer(k, "k", f, -INT64_MAX - 1, INT64_MAX)
        self._make(lib.pld_mech_randomized_response, f, (e, kk),
                   {"epsilon0": e, "k": kk})


class FinitePair(Mechanism):
    """An arbitrary pair of finite distributions p (the dataset with the
    record) and q (without), same length, each summing to 1 within 1e-9."""

    __slots__ = ()
    _cli = "finite"

    def __init__(self, p, q):
        f = "pld_mech_finite"
        pa, qa = DoubleArray(p, "p", f), DoubleArray(q, "q", f)
        if pa.n != qa.n:
            invalid(f, "p has %d entries and q has %d" % (pa.n, qa.n))
        self._make(lib.pld_mech_finite, f, (pa.n, pa.ptr, qa.ptr),
                   {"p": [float(pa.ptr[i]) for i in range(pa.n)],
                    "q": [float(qa.ptr[i]) for i in range(qa.n)]})


class PoissonSampled(Mechanism):
    """Poisson subsampling with rate q in (0, 1] of any mechanism `base`
    (add/remove adjacency, both directions; Zhu, Dong, Wang 2022).  `base`
    is copied.  Mirrors dp_accounting's PoissonSampledDpEvent."""

    __slots__ = ()

    def __init__(self, base, q):
        f = "pld_mech_poisson"
        if not isinstance(base, Mechanism):
            raise TypeError("%s: base must be a Mechanism, not %s"
                            % (f, type(base).__name__))
        qq = real(q, "q", f)
        self._make(lib.pld_mech_poisson, f, (base._p, qq),
                   {"base": base, "q": qq})


class PoissonGaussian(Mechanism):
    """Poisson-subsampled Gaussian with rate q and noise sigma: one step of
    DP-SGD (noise multiplier sigma / sensitivity, sampling rate q)."""

    __slots__ = ()
    _cli = "poisson-gaussian"

    def __init__(self, q, sigma, sensitivity=1.0):
        f = "pld_mech_poisson_gaussian"
        qq, s = real(q, "q", f), real(sigma, "sigma", f)
        c = real(sensitivity, "sensitivity", f)
        self._make(lib.pld_mech_poisson_gaussian, f, (qq, s, c),
                   {"q": qq, "sigma": s, "sensitivity": c})


class PoissonLaplace(Mechanism):
    """Poisson-subsampled Laplace with rate q and scale b."""

    __slots__ = ()
    _cli = "poisson-laplace"

    def __init__(self, q, b, sensitivity=1.0):
        f = "pld_mech_poisson_laplace"
        qq, s = real(q, "q", f), real(b, "b", f)
        c = real(sensitivity, "sensitivity", f)
        self._make(lib.pld_mech_poisson_laplace, f, (qq, s, c),
                   {"q": qq, "b": s, "sensitivity": c})


class GaussianMixture(Mechanism):
    """A pair of one-dimensional Gaussian mixtures with a common sigma:
    P = sum_i p_weights[i] N(p_means[i], sigma^2),
    Q = sum_j q_weights[j] N(q_means[j], sigma^2); both directions exact.

    The four arrays are keyword-only, weights before means as in the C
    call pld_mech_mixture_gaussian: two equal-length lists swapped by
    position would still be a valid mixture, the wrong one, so a call
    that relies on position fails instead (TypeError)."""

    __slots__ = ()
    _cli = "mixture-gaussian"

    def __init__(self, sigma, *, p_weights, p_means, q_weights, q_means):
        f = "pld_mech_mixture_gaussian"
        s = real(sigma, "sigma", f)
        pm = DoubleArray(p_means, "p_means", f)
        pw = DoubleArray(p_weights, "p_weights", f)
        qm = DoubleArray(q_means, "q_means", f)
        qw = DoubleArray(q_weights, "q_weights", f)
        if pm.n != pw.n:
            invalid(f, "%d p_means but %d p_weights" % (pm.n, pw.n))
        if qm.n != qw.n:
            invalid(f, "%d q_means but %d q_weights" % (qm.n, qw.n))

        def lst(a):
            return [float(a.ptr[i]) for i in range(a.n)]
        self._make(lib.pld_mech_mixture_gaussian, f,
                   (s, pm.n, pw.ptr, pm.ptr, qm.n, qw.ptr, qm.ptr),
                   {"sigma": s, "p_means": lst(pm), "p_weights": lst(pw),
                    "q_means": lst(qm), "q_weights": lst(qw)})


class WorGaussian(Mechanism):
    """Gaussian mechanism on a batch of fixed size `batch` drawn without
    replacement from `n` records, REPLACE-ONE adjacency; `sensitivity` is
    the L2 sensitivity between replace-one neighbours (2C for sums of
    gradients clipped to norm C)."""

    __slots__ = ()
    _cli = "wor-gaussian"

    def __init__(self, batch, n, sigma, sensitivity=1.0):
        f = "pld_mech_wor_gaussian"
        b = integer(batch, "batch", f, 0, UINT64_MAX)
        nn = integer(n, "n", f, 0, UINT64_MAX)
        s, c = real(sigma, "sigma", f), real(sensitivity, "sensitivity", f)
        self._make(lib.pld_mech_wor_gaussian, f, (b, nn, s, c),
                   {"batch": b, "n": nn, "sigma": s, "sensitivity": c})


class RandomSelection(Mechanism):
    """Random selection of one of the `members` (Mechanisms), run once:
    member i with probability weights[i] (>= 0, summing to 1 within 1e-12),
    the choice visible.  For members that are compositions use
    Accountant.add_selection or PLD.mix."""

    __slots__ = ()

    def __init__(self, members, weights):
        f = "pld_mech_select"
        members = list(members)
        for m in members:
            if not isinstance(m, Mechanism):
                raise TypeError("%s: members must be Mechanisms, not %s"
                                % (f, type(m).__name__))
        w = DoubleArray(weights, "weights", f)
        if w.n != len(members):
            invalid(f, "%d weights for %d members" % (w.n, len(members)))
        arr = (MechPtr * max(len(members), 1))(*[m._p for m in members])
        self._make(lib.pld_mech_select, f,
                   (len(members), ctypes.cast(arr, ctypes.POINTER(MechPtr)),
                    w.ptr),
                   {"members": members,
                    "weights": [float(w.ptr[i]) for i in range(w.n)]})


class RectifiedGaussian(Mechanism):
    """The exact per-instance pair of the rectified Gaussian (bounded-support
    paper): P = N(theta, sigma^2) clipped to [-a, a], Q = the same at
    theta + c (c != 0).  Needs rdp_papers.h in the library."""

    __slots__ = ()

    def __init__(self, theta, a, sigma, c):
        f = "pld_mech_rectified_gaussian"
        self._ptr = None
        t, aa = real(theta, "theta", f), real(a, "a", f)
        s, cc = real(sigma, "sigma", f), real(c, "c", f)
        self._make(lib.pld_mech_rectified_gaussian, f, (t, aa, s, cc),
                   {"theta": t, "a": aa, "sigma": s, "c": cc})


_SENS_INT = (1.0, float(1 << 20), False, False,
             "an integer in [1, 2^20]")
# The documented domains of mech.h, in the order they are reported.
_DOMAINS = {
    "Gaussian": {"sigma": POSITIVE, "sensitivity": POSITIVE},
    "Laplace": {"b": POSITIVE, "sensitivity": POSITIVE},
    "DiscreteLaplace": {"scale": POSITIVE, "sensitivity": _SENS_INT},
    "DiscreteGaussian": {"sigma": (0.0, 1e4, True, False, "in (0, 1e4]"),
                         "sensitivity": _SENS_INT},
    "RandomizedResponse": {
        "epsilon0": (0.0, 700.0, False, False, "in [0, 700]"),
        "k": (2.0, 2.0 ** 53, False, False, "an integer in [2, 2^53]")},
    "PoissonSampled": {"q": RATE},
    "PoissonGaussian": {"q": RATE, "sigma": POSITIVE,
                        "sensitivity": POSITIVE},
    "PoissonLaplace": {"q": RATE, "b": POSITIVE, "sensitivity": POSITIVE},
    "WorGaussian": {"batch": (1.0, 2.0 ** 53, False, False,
                              "an integer in [1, n]"),
                    "n": (1.0, 2.0 ** 53, False, False,
                          "an integer in [batch, 2^53]"),
                    "sigma": POSITIVE, "sensitivity": POSITIVE},
    "GaussianMixture": {"sigma": POSITIVE},
}


class TruncatedGaussian(Mechanism):
    """The exact per-instance pair of the truncated Gaussian (bounded-support
    paper): P = N(theta, sigma^2) conditioned on [-a, a], Q = the same at
    theta + c (c != 0).  Needs rdp_papers.h in the library."""

    __slots__ = ()

    def __init__(self, theta, a, sigma, c):
        f = "pld_mech_truncated_gaussian"
        self._ptr = None
        t, aa = real(theta, "theta", f), real(a, "a", f)
        s, cc = real(sigma, "sigma", f), real(c, "c", f)
        self._make(lib.pld_mech_truncated_gaussian, f, (t, aa, s, cc),
                   {"theta": t, "a": aa, "sigma": s, "c": cc})


def _rebuild(cls, params):
    return cls(**params)
