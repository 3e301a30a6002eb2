"""pldkit: differential-privacy accounting with privacy loss distributions.

A pure-ctypes binding of libpldkit (no compiled extension; numpy optional).
Every answer is a bracket: ``upper`` is certified (never below the true
epsilon or delta), ``lower`` is an optimistic estimate that shows how tight
it is.  Epsilons are in nats.

    import pldkit
    acc = pldkit.Accountant()
    acc.compose(pldkit.PoissonGaussian(q=256 / 60000, sigma=1.1), 14063)
    r = acc.epsilon(1e-5)          # r.upper is certified, r.lower optimistic

The library is found through $PLDKIT_LIBRARY, else the build tree of a
checkout (build/libpldkit.so), else the installed libpldkit.so.0.  Every
non-zero library status raises a PldkitError subclass carrying the status
code and pld_strerror's message.
"""

from . import _lib
from .errors import (CallbackError, DurabilityWarning, EmptyComposition,
                     FFTError, FileError, NotDurable,
                     FormatError, IncompatibleGrids, InvalidArgument,
                     LibraryNotFound, NotConverged, OutOfMemory, OutOfRange,
                     PldkitError, ToleranceNotMet, UnknownStatus, Unsupported,
                     VersionError)
from .mechanisms import (DiscreteGaussian, DiscreteLaplace, FinitePair,
                         Gaussian, GaussianMixture, Laplace, Mechanism,
                         PoissonGaussian, PoissonLaplace, PoissonSampled,
                         RandomizedResponse, RandomSelection,
                         RectifiedGaussian, TruncatedGaussian,
                         WorGaussian)
from .results import Bracket, CurveResult, Result
from .pld import PLD, PmfView
from .accountant import (Accountant, Calibration, calibrate,
                         dpsgd_accountant, dpsgd_epsilon,
                         dpsgd_noise_multiplier, select_feasible,
                         select_max_weight)
from .rdp import RdpAccountant, RdpCurve, RdpResult
from .participation import (ParticipationCalibration,
                            participation_calibrate, participation_delta)
from . import papers
from . import merge
from . import ledger
from .events import catalogue, curve, delta, epsilon

#: Path (or soname) of the loaded libpldkit.
library_path = _lib.path

#: Which optional parts of the C API this libpldkit exports.
features = dict(_lib.available)


def library_version():
    """The loaded library's version string, e.g. '0.1.0'."""
    return _lib.lib.pld_version_string().decode()


def strerror(code):
    """pld_strerror(code): the library's sentence for a status code."""
    return _lib.strerror(code)


__version__ = library_version()


class status(object):
    """The library's status codes (enum pld_status)."""
    SUCCESS = _lib.PLD_SUCCESS
    EINVAL = _lib.PLD_EINVAL
    ENOMEM = _lib.PLD_ENOMEM
    ERANGE = _lib.PLD_ERANGE
    EINCOMPAT = _lib.PLD_EINCOMPAT
    EMAXITER = _lib.PLD_EMAXITER
    ETOL = _lib.PLD_ETOL
    EEMPTY = _lib.PLD_EEMPTY
    EFFT = _lib.PLD_EFFT
    ECALLBACK = _lib.PLD_ECALLBACK
    EUNSUPPORTED = _lib.PLD_EUNSUPPORTED
    EFORMAT = _lib.PLD_EFORMAT
    EVERSION = _lib.PLD_EVERSION
    EIO = _lib.PLD_EIO
    EDURABLE = _lib.PLD_EDURABLE


__all__ = [
    # errors
    "PldkitError", "InvalidArgument", "OutOfMemory", "OutOfRange",
    "IncompatibleGrids", "NotConverged", "ToleranceNotMet",
    "EmptyComposition", "FFTError", "CallbackError", "Unsupported",
    "FormatError", "VersionError", "FileError", "NotDurable",
    "DurabilityWarning", "UnknownStatus",
    "LibraryNotFound",
    # mechanisms
    "Mechanism", "Gaussian", "Laplace", "DiscreteLaplace",
    "DiscreteGaussian", "RandomizedResponse", "FinitePair", "PoissonSampled",
    "PoissonGaussian", "PoissonLaplace", "GaussianMixture", "WorGaussian",
    "RandomSelection", "RectifiedGaussian", "TruncatedGaussian",
    # results, PLDs, accountant
    "Bracket", "Result", "CurveResult", "PLD", "PmfView", "Accountant",
    "Calibration", "calibrate", "dpsgd_accountant", "dpsgd_epsilon",
    "dpsgd_noise_multiplier", "select_feasible", "select_max_weight",
    # RDP, participation
    "RdpCurve", "RdpAccountant", "RdpResult", "participation_delta",
    "participation_calibrate", "ParticipationCalibration", "papers",
    # model merging (LC, RS, baselines, mean estimation, the planner)
    "merge",
    "ledger",
    # the EVENT catalogue (the CLI's grammar)
    "epsilon", "delta", "curve", "catalogue",
    # misc
    "library_path", "library_version", "features", "strerror", "status",
]
