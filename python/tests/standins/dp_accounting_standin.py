"""Writes a stand-in of the dp_accounting modules that
calibrate_dp_mechanism involves, with the names, fields and signatures of
dp_accounting 0.6.0 (read from its source; the code here is written for the
test, not copied; dataclasses stand for attrs, a bisection for scipy's
brentq, neither being installed):

* dp_accounting/dp_event.py: DpEvent and its subclasses (frozen, fields in
  dp_accounting's order);
* dp_accounting/privacy_accountant.py: NeighboringRelation (an enum:
  ADD_OR_REMOVE_ONE, REPLACE_ONE, REPLACE_SPECIAL), UnsupportedEventError,
  PrivacyAccountant (an ABC: supports, compose, ledger, get_epsilon,
  get_delta);
* dp_accounting/mechanism_calibration.py: ExplicitBracketInterval(endpoint_1,
  endpoint_2), LowerEndpointAndGuess(lower_endpoint, initial_guess),
  NonEmptyAccountantError, NoBracketIntervalFoundError and
  calibrate_dp_mechanism(make_fresh_accountant, make_event_from_param,
  target_epsilon, target_delta, bracket_interval=None, discrete=False,
  tol=None), which for each trial value makes a fresh accountant, raises
  NonEmptyAccountantError unless ``isinstance(accountant.ledger,
  dp_event.NoOpDpEvent)``, and evaluates
  ``accountant.compose(event).get_epsilon(target_delta) - target_epsilon``;
  it returns a value whose gap is not positive, within tol of the root."""

import os
import textwrap

_INIT = '''
from dp_accounting import dp_event
from dp_accounting import privacy_accountant
from dp_accounting import mechanism_calibration
from dp_accounting.dp_event import *
from dp_accounting.privacy_accountant import NeighboringRelation, PrivacyAccountant, UnsupportedEventError
__version__ = "0.6.0-standin"
'''


def _dp_event(fields):
    lines = ["import dataclasses", "from typing import Any, List, Optional",
             "", "", "class DpEvent(object):", "    pass", ""]
    for name, spec in fields.items():
        lines.append("@dataclasses.dataclass(frozen=True)")
        lines.append("class %s(DpEvent):" % name)
        if not spec:
            lines.append("    pass")
        for f in spec:
            if isinstance(f, str):
                lines.append("    %s: Any" % f)
            else:
                lines.append("    %s: Any = %r" % f)
        lines.append("")
    return "\n".join(lines) + "\n"


_ACCOUNTANT = '''
import abc
import enum

from dp_accounting import dp_event


class NeighboringRelation(enum.Enum):
    ADD_OR_REMOVE_ONE = 1
    REPLACE_ONE = 2
    REPLACE_SPECIAL = 3


class UnsupportedEventError(Exception):
    pass


class PrivacyAccountant(metaclass=abc.ABCMeta):
    def __init__(self, neighboring_relation):
        self._neighboring_relation = neighboring_relation
        self._events = []

    @property
    def neighboring_relation(self):
        return self._neighboring_relation

    def supports(self, event):
        return self._maybe_compose(event, 0, False) is None

    @abc.abstractmethod
    def _maybe_compose(self, event, count, do_compose):
        pass

    def compose(self, event, count=1):
        if not isinstance(event, dp_event.DpEvent):
            raise TypeError("event must be a DpEvent")
        error = self._maybe_compose(event, count, False)
        if error:
            raise UnsupportedEventError(str(error))
        self._events.append((event, count))
        self._maybe_compose(event, count, True)
        return self

    @property
    def ledger(self):
        if not self._events:
            return dp_event.NoOpDpEvent()
        return dp_event.ComposedDpEvent(
            [dp_event.SelfComposedDpEvent(e, c) for e, c in self._events])

    @abc.abstractmethod
    def get_epsilon(self, target_delta):
        pass

    def get_delta(self, target_epsilon):
        raise NotImplementedError()
'''

_CALIBRATION = '''
import dataclasses

from dp_accounting import dp_event


class BracketInterval(object):
    pass


@dataclasses.dataclass(frozen=True)
class ExplicitBracketInterval(BracketInterval):
    endpoint_1: float
    endpoint_2: float


@dataclasses.dataclass(frozen=True)
class LowerEndpointAndGuess(BracketInterval):
    lower_endpoint: float
    initial_guess: float


class NoBracketIntervalFoundError(Exception):
    pass


class NonEmptyAccountantError(Exception):
    pass


def calibrate_dp_mechanism(make_fresh_accountant, make_event_from_param,
                           target_epsilon, target_delta,
                           bracket_interval=None, discrete=False, tol=None):
    def gap(x):
        if discrete:
            x = round(x)
        event = make_event_from_param(x)
        accountant = make_fresh_accountant()
        if not isinstance(accountant.ledger, dp_event.NoOpDpEvent):
            raise NonEmptyAccountantError()
        return accountant.compose(event).get_epsilon(target_delta) - target_epsilon

    if bracket_interval is None:
        bracket_interval = LowerEndpointAndGuess(0, 1)
    if isinstance(bracket_interval, LowerEndpointAndGuess):
        lo = bracket_interval.lower_endpoint
        hi = bracket_interval.initial_guess
        g = gap(hi)
        k = 0
        while g > 0:          # grow up (larger parameter: more private)
            k += 1
            if k > 30:
                raise NoBracketIntervalFoundError()
            lo, hi = hi, lo + (hi - lo) * 2
            g = gap(hi)
        bracket_interval = ExplicitBracketInterval(lo, hi)
    lo, hi = bracket_interval.endpoint_1, bracket_interval.endpoint_2
    if tol is None:
        tol = 1.0 if discrete else 1e-6 * (hi - lo)
    if gap(hi) > 0:
        raise ValueError("the bracket does not bracket a solution")
    while hi - lo > tol:
        mid = (lo + hi) / 2
        if gap(mid) > 0:
            lo = mid
        else:
            hi = mid
    return round(hi) if discrete else hi
'''


def write(root, event_fields):
    """Write the stand-in package dp_accounting under root; event_fields:
    pldkit.dp_accounting.EVENT_FIELDS (dp_accounting's classes and fields,
    checked against its dp_event.py)."""
    files = {
        "dp_accounting/__init__.py": _INIT,
        "dp_accounting/dp_event.py": _dp_event(event_fields),
        "dp_accounting/privacy_accountant.py": _ACCOUNTANT,
        "dp_accounting/mechanism_calibration.py": _CALIBRATION,
    }
    for path, text in files.items():
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as f:
            f.write(textwrap.dedent(text).lstrip())
