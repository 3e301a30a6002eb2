"""Running ledgers (pldkit/ledger.h): a PLD file that any number of
processes and threads book events into under a lock, losing nothing, with
the history of every update.  The same library calls as ``pldkit ledger
add FILE EVENT...`` and ``pldkit ledger show FILE``, so the two front ends
share ledgers and give the same numbers.

    import pldkit
    pld = pldkit.ledger.add("run.pld", "poisson-gaussian:q=0.01,sigma=1,count=100",
                            create=True)  # a new ledger: create=True
    pld.epsilon(1e-5)          # the ledger's bracket after this update
    pldkit.ledger.show("run.pld").history   # [(time, "poisson-gaussian:..."), ...]
"""

import ctypes
import errno
import math
import os
import warnings
from ctypes import byref

from . import _lib
from ._util import check, invalid, raise_status
from .errors import DurabilityWarning
from .pld import PLD

__all__ = ["add", "show", "available"]

#: Whether the loaded libpldkit has ledgers (ledger.h).
available = bool(_lib.available.get("ledger"))

_STAGES = {1: "inspecting the target", 2: "locking", 3: "reading the ledger",
           4: "creating the temporary file", 5: "writing the temporary file",
           6: "syncing the temporary file", 7: "renaming it over the target",
           8: "syncing the directory (the new ledger is in place)"}
# The CLI's history record: the EVENTs as given, cut at the history's cap
# (cli/compute.c, events_record).
_RECORD_CAP = 65536


def _need(function):
    if not available:
        raise_status(_lib.PLD_EUNSUPPORTED, function,
                     "this libpldkit has no ledger.h")


def _record_of(texts):
    rec = " ".join(texts)
    if len(rec.encode()) > _RECORD_CAP:
        rec = rec.encode()[:_RECORD_CAP - 4].decode(errors="ignore") + " ..."
    return rec


def add(path, *events, delta=1e-5, record=None, create=False,
        lock_timeout=None, **options):
    """Book EVENTs into the ledger at `path` under its lock
    (pld_ledger_update) and return the ledger's new PLD (a pldkit.PLD whose
    ``history`` lists every update).

    ``events``: EVENT texts, as the CLI takes them (composed with the grid
    ``options`` of pldkit.epsilon: accuracy, discretization, ...), or one
    pldkit.Accountant.  ``record``: the history text (default: the EVENT
    texts joined by spaces, as the CLI records them; empty for an
    Accountant).  ``create``: a missing ledger is created only when True
    (as ``pldkit ledger add --create``); else a missing `path`, e.g. a
    mistyped name, raises FileError.  ``lock_timeout``: seconds to wait for
    the lock another update holds (None: as long as it takes); on expiry
    FileError, nothing booked.  A new ledger gets the grid
    ``discretization`` if given, else the grid the accountant's automatic
    refinement picks for an epsilon at ``delta`` (as ``pldkit ledger add
    --delta``); an existing ledger keeps its own.  Errors: InvalidArgument,
    IncompatibleGrids (a discretization other than the ledger's),
    FormatError / VersionError (the file is not a ledger this library
    reads), Unsupported (not a regular file, several hard links, or a
    symbolic link another user could have planted), FileError (the detail
    names the failing step, file and errno); on any error the ledger is
    unchanged.  When the update is in place but the directory's fsync
    failed, it warns (pldkit.DurabilityWarning) and returns the new PLD:
    the update is booked."""
    f = "pld_ledger_update"
    _need(f)
    from .accountant import Accountant
    from . import events as _events
    if len(events) == 1 and isinstance(events[0], Accountant):
        if options:
            invalid(f, "grid options go to the Accountant itself, not here "
                    "(got %s)" % ", ".join(sorted(options)))
        acc = events[0]
        if record is None:
            record = ""
    else:
        acc = _events.accountant(*events, **options)
        if record is None:
            record = _record_of(events)
    if not isinstance(record, str):
        raise TypeError("record is a str, got %r" % (record,))
    opts = _lib.LedgerOptions()
    _lib.lib.pld_ledger_options_default(byref(opts))
    opts.create = 1 if create else 0
    if lock_timeout is not None:
        t = float(lock_timeout)
        if math.isnan(t) or t < 0:
            invalid(f, "lock_timeout = %r must be a number >= 0 (None: wait "
                    "as long as it takes)" % (lock_timeout,))
        opts.lock_timeout = t
    bpath = os.fsencode(path)
    grid = 0.0
    params = acc._params
    exists = os.path.exists(bpath)
    if not exists and not create:
        raise_status(_lib.PLD_EIO, f, "%s does not exist (a mistyped "
                     "name?): create=True starts a new ledger"
                     % os.fsdecode(bpath))
    if not (params.discretization > 0) and not exists:
        # a new ledger: the grid 'pldkit save' and 'pldkit ledger add' pick
        d = _lib.DistPtr()
        res = _lib.Result()
        work = acc.copy()
        try:
            check(_lib.lib.pld_event_compose_for_save(
                work._p, float(delta), byref(params), byref(d), byref(res)),
                "pld_event_compose_for_save", "choosing the new ledger's grid")
        finally:
            work.close()
        if not d:
            invalid(f, "no PLD grid can be composed for these events (their "
                    "answer came without one): give discretization=")
        grid = _lib.lib.pld_dist_discretization(d)
        _lib.lib.pld_dist_free(d)
    out = _lib.DistPtr()
    fe = _lib.FileErrorInfo()
    st = _lib.lib.pld_ledger_update(bpath, acc._p, grid, record.encode(),
                                    byref(opts), byref(out), byref(fe))
    if st == _lib.PLD_EDURABLE:
        warnings.warn(DurabilityWarning(
            "the update of %s is booked, but its durability is not "
            "confirmed (syncing %s failed: %s)" % (
                os.fsdecode(bpath), os.fsdecode(fe.path),
                os.strerror(fe.errnum) if fe.errnum else "failed")),
            stacklevel=2)
        return PLD._adopt(out)
    if st != 0:
        detail = None
        if st in (_lib.PLD_EIO, _lib.PLD_EUNSUPPORTED) and fe.stage:
            what = os.fsdecode(fe.path) or os.fsdecode(bpath)
            detail = "%s: %s" % (_STAGES.get(fe.stage, "stage %d" % fe.stage),
                                 what)
            if fe.errnum == errno.ETIMEDOUT and fe.stage == 2:
                detail += ": another update held the lock longer than " \
                          "lock_timeout"
            elif fe.errnum == errno.EMLINK:
                detail += ": several hard links (an update would fork them)"
            elif fe.errnum == errno.EPERM and st == _lib.PLD_EUNSUPPORTED:
                detail += ": a symbolic link another user could have planted"
            elif fe.errnum:
                detail += ": " + os.strerror(fe.errnum)
        elif st == _lib.PLD_EUNSUPPORTED:
            detail = "%s is not a regular file" % os.fsdecode(bpath)
        check(st, f, detail)
    return PLD._adopt(out)


def show(path):
    """The ledger at `path` as a pldkit.PLD (pld_dist_load; no lock needed:
    updates replace the file by rename)."""
    return PLD.load(path)
