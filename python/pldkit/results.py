"""Result objects: brackets around an epsilon or a delta.

Every answer is a bracket: ``upper`` is certified (never below the true
value), ``lower`` is an optimistic estimate that shows how tight it is.
Epsilons are in nats and may be ``inf``; deltas lie in [0, 1].
"""

from collections import namedtuple

from . import _lib

__all__ = ["Bracket", "Result", "CurveResult"]


class Bracket(namedtuple("Bracket", ["lower", "upper"])):
    """(lower, upper): lower <= true value <= upper; upper is certified."""

    __slots__ = ()

    @property
    def width(self):
        return self.upper - self.lower

    def __float__(self):
        return float(self.upper)


class Result(object):
    """The answer to one accountant query (pld_result): the bracket and how
    it was obtained.

    Attributes: ``query`` ('epsilon' or 'delta'), ``at`` (the delta or
    epsilon asked about), ``lower``, ``upper`` (certified),
    ``discretization`` (grid step in nats, 0 for the closed form),
    ``grid_size``, ``fft_size``, ``refinements`` (grids tried),
    ``closed_form`` and ``met_accuracy`` (bools), ``bound_kind`` and
    ``lower_kind`` (which proven bound gave each end: 'grid',
    'closed-form', 'basic', 'advanced', 'single-run', 'moments',
    'inversion', 'rdp' or 'none').  ``width_limit``: why a bracket is wider than asked, 'grid'
    (or met) or 'mechanism' (an event's own bracket, pld_mech_bracket:
    its certified upper and lower analyses differ by more than the
    accuracy, which no finer grid narrows).
    ``certified`` is False only for a value that is no proven bound (a
    closed form such as Theorem 4.1, or the cs lower limit).
    ``float(result)`` is the certified upper end; ``lower, upper = result``
    unpacks the bracket."""

    __slots__ = ("query", "at", "lower", "upper", "discretization",
                 "grid_size", "fft_size", "refinements", "closed_form",
                 "met_accuracy", "bound_kind", "lower_kind", "width_limit",
                 "certified")

    def __init__(self, query, at, c_result):
        self.query = query
        self.at = at
        self.lower = float(c_result.bound.lower)
        self.upper = float(c_result.bound.upper)
        self.discretization = float(c_result.discretization)
        self.grid_size = int(c_result.grid_size)
        self.fft_size = int(c_result.fft_size)
        self.refinements = int(c_result.refinements)
        self.closed_form = bool(c_result.closed_form)
        self.met_accuracy = bool(c_result.met_accuracy)
        self.bound_kind = _lib.bound_kind_name(c_result.bound_kind)
        self.lower_kind = _lib.bound_kind_name(c_result.lower_kind)
        self.width_limit = ("mechanism"
                            if getattr(c_result, "width_limit", 0) == 1
                            else "grid")
        # False for a value that is no proven bound (pldkit.epsilon with
        # random-participation analysis=thm41 or cs)
        self.certified = True

    @property
    def bracket(self):
        return Bracket(self.lower, self.upper)

    @property
    def value(self):
        """The certified value (the upper end)."""
        return self.upper

    def __iter__(self):
        return iter((self.lower, self.upper))

    def __float__(self):
        return self.upper

    def as_dict(self):
        return {k: getattr(self, k) for k in self.__slots__}

    def __repr__(self):
        other = "delta" if self.query == "epsilon" else "epsilon"
        how = ("closed form" if self.closed_form else
               "discretization %.6g, grid %d" % (self.discretization,
                                                 self.grid_size))
        return ("<%s in [%.6g, %.6g] (upper certified) at %s = %.6g; %s%s>"
                % (self.query, self.lower, self.upper, other, self.at, how,
                   "" if self.met_accuracy else ", accuracy not met"))


class CurveResult(object):
    """delta(epsilon) at several epsilons: ``epsilons``, ``lower`` and
    ``upper`` (certified) are lists of floats, or numpy arrays when the
    epsilons were given as a numpy array.  The remaining attributes are as
    in Result (for a PLD's curve: its own discretization and grid size,
    closed_form False, met_accuracy None and refinements 0)."""

    __slots__ = ("epsilons", "lower", "upper", "discretization", "grid_size",
                 "fft_size", "refinements", "closed_form", "met_accuracy")

    def __init__(self, epsilons, lower, upper, discretization, grid_size,
                 fft_size, refinements, closed_form, met_accuracy):
        self.epsilons = epsilons
        self.lower = lower
        self.upper = upper
        self.discretization = discretization
        self.grid_size = grid_size
        self.fft_size = fft_size
        self.refinements = refinements
        self.closed_form = closed_form
        self.met_accuracy = met_accuracy

    def __len__(self):
        return len(self.epsilons)

    def __iter__(self):
        """(epsilon, Bracket) pairs."""
        for i in range(len(self.epsilons)):
            yield (float(self.epsilons[i]),
                   Bracket(float(self.lower[i]), float(self.upper[i])))

    def __getitem__(self, i):
        return Bracket(float(self.lower[i]), float(self.upper[i]))

    def __repr__(self):
        return "<CurveResult: %d points, discretization %.6g>" % (
            len(self), self.discretization)
