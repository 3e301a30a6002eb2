"""The papers' closed forms (pldkit/rdp_papers.h), sound entry points only.

* model splitting / dropout / Balanced Iteration Subsampling (Dong, Chen,
  Ozgur): ``model_splitting_terms`` (every term of Thm 3.1 at one order,
  the paper's and the sound ones side by side), ``partial_splitting``,
  ``bis_epochs``, ``poisson_split``; whole curves through
  ``RdpCurve.add_model_splitting`` / ``add_dropout`` / ``add_bis``;
* bounded-support Gaussian (Hu et al.): ``bounded_gaussian_rdp`` (the sup
  over the neighbour set |shift| <= C, both directions) and the
  ``RectifiedGaussian`` PLD mechanism.

The formulas the library keeps only for comparison with the papers (the
``*_paper`` functions, which are not bounds), the Fisher-information helpers
and the MS-PAFL baselines are not bound.  Every value is in nats.
"""

from collections import namedtuple
from ctypes import byref, c_double

from . import _lib
from ._lib import lib
from ._util import INT64_MAX, check, integer, raise_status, real

__all__ = ["available", "model_splitting_terms", "partial_splitting",
           "bis_epochs", "poisson_split", "bounded_gaussian_rdp",
           "SplitTerms", "PairTerms"]

available = _lib.available.get("rdp_papers", False)

_METHODS = {0: "exact", 1: "eq3", 2: "groups", 3: "gaussian"}

SplitTerms = namedtuple("SplitTerms", [
    "forward_exact", "forward_eq3", "reverse_paper", "reverse_exact",
    "forward", "reverse", "epsilon", "epsilon_paper", "forward_method",
    "reverse_method"])
SplitTerms.__doc__ = """Thm 3.1 at one order: ``epsilon`` = max(forward,
reverse) is the sound RDP value; ``epsilon_paper`` and ``reverse_paper``
are the paper's (reverse_paper is NOT a bound); NaN where not computed."""

PairTerms = namedtuple("PairTerms", ["forward", "reverse", "epsilon"])


def _need(f):
    if not available:
        raise_status(_lib.PLD_EUNSUPPORTED, f, "not in this libpldkit")


def _i(x, name, f):
    return integer(x, name, f, -INT64_MAX - 1, INT64_MAX)


def model_splitting_terms(alpha, d, k, sigma, c):
    """Every term of the splitting paper's Thm 3.1 at order alpha."""
    f = "pld_rdp_model_splitting"
    _need(f)
    out = _lib.SplitTerms()
    check(lib.pld_rdp_model_splitting(real(alpha, "alpha", f), _i(d, "d", f),
                                      _i(k, "k", f), real(sigma, "sigma", f),
                                      real(c, "c", f), byref(out)), f)
    vals = [getattr(out, n) for n, _ in _lib.SplitTerms._fields_]
    vals[-2] = _METHODS.get(vals[-2], vals[-2])
    vals[-1] = _METHODS.get(vals[-1], vals[-1])
    return SplitTerms(*vals)


def partial_splitting(alpha, d, k, sigma, c_split, c_shared):
    """Sec. 3.2.2: a split part (clipping c_split, k of d blocks) plus a
    shared part with clipping c_shared, same noise: the sound RDP."""
    f = "pld_rdp_partial_splitting"
    _need(f)
    out = c_double()
    check(lib.pld_rdp_partial_splitting(
        real(alpha, "alpha", f), _i(d, "d", f), _i(k, "k", f),
        real(sigma, "sigma", f), real(c_split, "c_split", f),
        real(c_shared, "c_shared", f), byref(out)), f)
    return out.value


def bis_epochs(alpha, T, k, epochs, sigma, c):
    """Remark 3.10: `epochs` runs of Balanced Iteration Subsampling."""
    f = "pld_rdp_bis_epochs"
    _need(f)
    out = c_double()
    check(lib.pld_rdp_bis_epochs(real(alpha, "alpha", f), _i(T, "T", f),
                                 _i(k, "k", f), _i(epochs, "epochs", f),
                                 real(sigma, "sigma", f), real(c, "c", f),
                                 byref(out)), f)
    return out.value


def poisson_split(alpha, gamma, d, sigma, c):
    """Figure 1: Poisson subsampling (rate gamma) with disjoint model
    splitting into d submodels, one step: PairTerms(forward, reverse,
    epsilon)."""
    f = "pld_rdp_poisson_split"
    _need(f)
    out = _lib.PairTerms()
    check(lib.pld_rdp_poisson_split(real(alpha, "alpha", f),
                                    real(gamma, "gamma", f), _i(d, "d", f),
                                    real(sigma, "sigma", f), real(c, "c", f),
                                    byref(out)), f)
    return PairTerms(out.forward, out.reverse, out.epsilon)


def bounded_gaussian_rdp(alpha, theta, a, sigma, C, kind="rectified"):
    """Per-instance RDP of the bounded-support Gaussian at location theta,
    support [-a, a], over the neighbour set |shift| <= C (both
    directions).  kind: 'rectified' or 'truncated'."""
    f = "pld_rdp_bounded_gaussian_sup"
    _need(f)
    kinds = {"rectified": 0, "truncated": 1}
    if kind not in kinds:
        raise ValueError("kind must be 'rectified' or 'truncated', not %r"
                         % (kind,))
    out = c_double()
    check(lib.pld_rdp_bounded_gaussian_sup(
        kinds[kind], real(alpha, "alpha", f), real(theta, "theta", f),
        real(a, "a", f), real(sigma, "sigma", f), real(C, "C", f),
        byref(out)), f)
    return out.value
