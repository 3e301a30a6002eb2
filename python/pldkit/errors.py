"""Exceptions: every non-zero pldkit status becomes a PldkitError.

Each status code has its own subclass (InvalidArgument for PLD_EINVAL, ...).
An exception carries

* ``code``: the library's status code (an int, see ``pldkit.status``);
* ``message``: ``pld_strerror(code)``, the library's own sentence;
* ``function``: the C function that reported it (or the Python API name);
* ``detail``: why: the library's ``pld_error_detail()`` (the parameter,
  its value and the allowed range or cap, e.g. "q = 1.5 must be in (0, 1]"),
  or context added by the binding; may be None.

``str(e)`` is "<message> (<function>[: <detail>])".  Where it is natural the
classes also derive from the matching built-in exception, so
``except ValueError`` catches an InvalidArgument and ``except MemoryError``
an OutOfMemory.
"""


class PldkitError(Exception):
    """Base class of every error reported by libpldkit."""

    code = None  # set by each subclass

    def __init__(self, message, code=None, function=None, detail=None):
        if code is not None:
            self.code = code
        self.message = message
        self.function = function
        self.detail = detail
        where = ""
        if function and detail:
            where = " (%s: %s)" % (function, detail)
        elif function or detail:
            where = " (%s)" % (function or detail)
        super().__init__(message + where)

    def __reduce__(self):  # keep code, function and detail when pickled
        return (type(self), (self.message, self.code, self.function,
                             self.detail))


class LibraryNotFound(ImportError):
    """libpldkit.so could not be loaded (see PLDKIT_LIBRARY)."""


class InvalidArgument(PldkitError, ValueError):
    """PLD_EINVAL: an argument is NaN, infinite, out of its domain, or NULL."""
    code = 1


class OutOfMemory(PldkitError, MemoryError):
    """PLD_ENOMEM: an allocation failed."""
    code = 2


class OutOfRange(PldkitError):
    """PLD_ERANGE: a size would overflow or exceed the memory cap (max_grid)."""
    code = 3


class IncompatibleGrids(PldkitError):
    """PLD_EINCOMPAT: PLDs (or RDP curves) on different grids."""
    code = 4


class NotConverged(PldkitError):
    """PLD_EMAXITER: an iteration did not converge within its limit."""
    code = 5


class ToleranceNotMet(PldkitError):
    """PLD_ETOL: the requested accuracy (or target) cannot be reached."""
    code = 6


class EmptyComposition(PldkitError):
    """PLD_EEMPTY: an empty composition (no events)."""
    code = 7


class FFTError(PldkitError):
    """PLD_EFFT: FFTW could not make a plan."""
    code = 8


class CallbackError(PldkitError):
    """PLD_ECALLBACK: a user-supplied callback reported an error."""
    code = 9


class Unsupported(PldkitError):
    """PLD_EUNSUPPORTED: the operation is not defined for this input."""
    code = 10


class FormatError(PldkitError):
    """PLD_EFORMAT: data is corrupt, truncated or not in pldkit's format."""
    code = 11


class VersionError(PldkitError):
    """PLD_EVERSION: a pldkit file of a format version this build can't read."""
    code = 12


class FileError(PldkitError):
    """PLD_EIO: a file could not be opened, read or written."""
    code = 13


class NotDurable(PldkitError):
    """PLD_EDURABLE: a file was written and renamed into place (the update
    IS booked), but the directory's fsync failed: it may not survive a
    crash.  Calls that can return a result anyway (pldkit.ledger.add,
    PLD.save) warn with DurabilityWarning instead of raising this."""
    code = 14


class DurabilityWarning(UserWarning):
    """A save or ledger update is in place, but its durability is not
    confirmed (the directory's fsync failed after the rename)."""


class UnknownStatus(PldkitError):
    """A status code this binding does not know."""


ERRORS = {cls.code: cls for cls in (
    InvalidArgument, OutOfMemory, OutOfRange, IncompatibleGrids,
    NotConverged, ToleranceNotMet, EmptyComposition, FFTError, CallbackError,
    Unsupported, FormatError, VersionError, FileError, NotDurable)}


def error_class(code):
    """The PldkitError subclass for a status code."""
    return ERRORS.get(code, UnknownStatus)
