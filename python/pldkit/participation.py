"""Federated DP-SGD with random client participation (pldkit/participation.h):
closed-form single-round deltas and per-round noise calibration.

Each client joins with probability p and samples each of its records with
probability q; the server adds N(0, sigma^2) to the sum of gradients
clipped to norm `clip`; d is the number of the client's records other than
the protected one.  Analyses: 'wcs' (certified), 'mwcs' (certified, <=
wcs), 'ols' (certified), 'cs' (a certified LOWER limit, not a guarantee)
and 'thm41' (the paper's theorem as stated, not a bound; calibration only).
For composition over rounds use the PLD side, e.g. the WCS round
RandomSelection([FinitePair([1.0], [1.0]), PoissonGaussian(q, sigma, clip)],
[1 - p, p]).
"""

from ctypes import byref

from . import _lib
from ._lib import lib
from ._util import INT64_MAX, check, integer, raise_status, real
from .results import Bracket

__all__ = ["available", "participation_delta", "participation_calibrate",
           "ParticipationCalibration"]

available = _lib.available.get("participation", False)

_ANALYSES = {"wcs": 0, "cs": 1, "thm41": 2, "ols": 3, "mwcs": 4}


def _analysis(a):
    try:
        return _ANALYSES[a.lower()]
    except (KeyError, AttributeError):
        raise ValueError("analysis must be one of %s, not %r"
                         % (", ".join(sorted(_ANALYSES)), a)) from None


def _params(p, q, d, clip, sigma, f):
    if not available:
        raise_status(_lib.PLD_EUNSUPPORTED, f, "not in this libpldkit")
    return _lib.ParticipationParams(
        real(p, "p", f), real(q, "q", f),
        integer(d, "d", f, -INT64_MAX - 1, INT64_MAX), real(clip, "clip", f),
        real(sigma, "sigma", f))


def participation_delta(p, q, d, clip, sigma, epsilon, analysis="wcs"):
    """delta(epsilon) of one round under `analysis` ('wcs', 'mwcs', 'ols' or
    'cs'): a Bracket around the analysis's value (for 'cs' the lower end is
    a certified lower limit of the truth, for the others the upper end is
    a certified upper bound)."""
    f = "pld_participation_delta"
    par = _params(p, q, d, clip, sigma, f)
    out = _lib.Bound()
    check(lib.pld_participation_delta(byref(par), _analysis(analysis),
                                      real(epsilon, "epsilon", f),
                                      byref(out)), f)
    return Bracket(out.lower, out.upper)


_KINDS = {0: "upper bound", 1: "lower_limit", 2: "one-instance value",
          3: "upper bound", 4: "upper bound"}


class ParticipationCalibration(object):
    """``sigma`` (meets the target), ``sigma_below`` (misses it; 0 if at the
    floor), ``delta`` (the analysis's delta at sigma), ``at_floor``,
    ``certified`` (True only for a proven noise level: wcs, mwcs, ols),
    ``kind`` ('upper bound', 'lower_limit' for cs, 'one-instance value' for
    thm41), ``below_cs`` and ``refuted`` (thm41)."""

    __slots__ = ("sigma", "sigma_below", "delta", "at_floor", "certified",
                 "below_cs", "refuted", "kind")

    def __init__(self, c, analysis):
        self.sigma = float(c.sigma)
        self.sigma_below = float(c.sigma_below)
        self.delta = float(c.delta)
        self.at_floor = bool(c.at_floor)
        self.kind = _KINDS[analysis]
        # a proven bound only (the library never certifies cs or thm41)
        self.certified = bool(c.certified) and self.kind == "upper bound"
        self.below_cs = bool(c.below_cs)
        self.refuted = bool(c.refuted)

    def __float__(self):
        return self.sigma

    def __repr__(self):
        return ("<ParticipationCalibration sigma=%.10g certified=%s kind=%s>"
                % (self.sigma, self.certified, self.kind))


def participation_calibrate(p, q, d, clip, epsilon, delta, analysis="wcs"):
    """The smallest sigma whose one-round `analysis` delta at epsilon is <=
    delta."""
    f = "pld_participation_calibrate"
    par = _params(p, q, d, clip, 1.0, f)
    out = _lib.ParticipationCalibration()
    an = _analysis(analysis)
    check(lib.pld_participation_calibrate(
        byref(par), an, real(epsilon, "epsilon", f),
        real(delta, "delta", f), byref(out)), f)
    return ParticipationCalibration(out, an)
