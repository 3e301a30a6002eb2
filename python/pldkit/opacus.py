"""A drop-in privacy accountant for Opacus (imports neither torch nor opacus).

Opacus' accountants (``opacus.accountants``: "rdp", "gdp", "prv") share one
interface, IAccountant: ``step(noise_multiplier=, sample_rate=)`` after each
optimizer step, ``get_epsilon(delta)``, ``history`` (a list of
``(noise_multiplier, sample_rate, num_steps)`` where consecutive identical
steps share one entry), ``len()`` (the number of history entries, as Opacus'
own accountants count), ``mechanism()``, ``state_dict()`` /
``load_state_dict()`` and ``get_optimizer_hook_fn(sample_rate)``.
PLDAccountant implements it with pldkit's certified PLD accountant: each
history entry is ``num_steps`` Poisson-subsampled Gaussian steps (add/remove
adjacency, both directions), and ``get_epsilon`` returns the certified upper
end of the bracket (never below the true epsilon).

Plugging it into Opacus: importing this module is enough::

    import pldkit.opacus
    from opacus import PrivacyEngine

    engine = PrivacyEngine(accountant="pld")
    model, optimizer, loader = engine.make_private_with_epsilon(...)
    from opacus.accountants.utils import get_noise_multiplier
    sigma = get_noise_multiplier(..., accountant="pld")

(in either import order).  No released Opacus (1.0 to 1.5.4) has an
accountant registry: every one creates its accountants in
``opacus.accountants.create_accountant(mechanism)``, which
``opacus.accountants.utils`` and ``opacus.privacy_engine`` import by name,
and ``PrivacyEngine.make_private_with_epsilon`` calls the
``get_noise_multiplier`` that ``opacus.privacy_engine`` imported from
``opacus.accountants.utils``.  So this module wraps those names in those
three modules (when they are imported, or at once if they already are):
``create_accountant("pld")`` returns a PLDAccountant and
``get_noise_multiplier(accountant="pld")`` is this module's function;
every other mechanism goes to Opacus' own code unchanged.  An Opacus with
``opacus.accountants.registry`` (unreleased as of 1.5.4) gets
``register_accountant("pld", PLDAccountant)`` as well.  ``install()``
does the same by hand (it is idempotent).

``get_epsilon`` reads ``history`` (Opacus' own ``get_noise_multiplier``
sets ``accountant.history`` and calls ``get_epsilon``), groups equal
(noise multiplier, sample rate) entries wherever they are in the history
(composition is commutative), and remembers its last answers by history and
delta: asking again after no step costs a dictionary look-up, and a step
with the same noise multiplier and rate as before costs one composition of
the grouped history.
"""

import math
import sys
from collections import OrderedDict

from . import _hooks
from ._util import invalid, real
from .accountant import Accountant, steps_of_epochs
from .errors import ToleranceNotMet
from .mechanisms import PoissonGaussian

__all__ = ["PLDAccountant", "get_noise_multiplier", "MECHANISM", "install"]

#: The name PLDAccountant.mechanism() returns (Opacus' registry key).
MECHANISM = "pld"

#: How many answers an accountant remembers (a training loop asks at one or
#: a few deltas; get_noise_multiplier's search at one).
_REMEMBERED = 64

_PARAMS = ("accuracy", "abs_accuracy", "tail_mass", "max_grid",
           "discretization")

# Keyword arguments of the other Opacus accountants' get_epsilon (accuracy
# knobs of the PRV and RDP backends).  They have no meaning here: pldkit's
# own accuracy is the constructor's `accuracy`, and the answer is certified
# whatever it is.
_FOREIGN_KWARGS = ("eps_error", "delta_error", "optimal_orders", "alphas",
                   "poisson")


def _check_step(noise_multiplier, sample_rate, function):
    s = real(noise_multiplier, "noise_multiplier", function)
    q = real(sample_rate, "sample_rate", function)
    if not (math.isfinite(s) and s >= 0):
        invalid(function, "noise_multiplier=%r must be a finite number >= 0"
                % (noise_multiplier,))
    if not (math.isfinite(q) and 0 <= q <= 1):
        invalid(function, "sample_rate=%r must be in [0, 1]"
                % (sample_rate,))
    return s, q


class PLDAccountant(object):
    """Opacus' IAccountant on pldkit's PLD accountant (certified epsilon).

    Constructor keywords (all optional) are pldkit.Accountant parameters:
    ``accuracy`` (relative target of the bracket, default 2e-3),
    ``abs_accuracy``, ``tail_mass``, ``max_grid``, ``discretization``.

    A step with noise_multiplier 0 makes epsilon infinite; one with
    sample_rate 0 costs nothing.  The object pickles, and state_dict()
    holds only plain Python values."""

    def __init__(self, **params):
        unknown = set(params) - set(_PARAMS)
        if unknown:
            raise TypeError("PLDAccountant: unknown parameter(s) %s (known: %s)"
                            % (", ".join(sorted(unknown)), ", ".join(_PARAMS)))
        Accountant(**params).close()  # validate now, not at get_epsilon
        self.params = dict(params)
        self.history = []
        self._answers = {}

    # the remembered answers are not state: a copy starts without them
    def __getstate__(self):
        state = dict(self.__dict__)
        state.pop("_answers", None)
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._answers = {}

    # ---- Opacus' interface ----------------------------------------------
    def step(self, *, noise_multiplier, sample_rate):
        """Record one optimizer step (a Poisson-subsampled Gaussian with
        this noise multiplier = sigma / clipping norm and sampling rate)."""
        s, q = _check_step(noise_multiplier, sample_rate, "PLDAccountant.step")
        if self.history:
            last_s, last_q, n = self.history[-1]
            if last_s == s and last_q == q:
                self.history[-1] = (last_s, last_q, n + 1)
                return
        self.history.append((s, q, 1))

    def get_epsilon(self, delta, **kwargs):
        """The certified epsilon (a float, nats) spent so far at `delta`.
        Keyword arguments of Opacus' other accountants (eps_error,
        delta_error, optimal_orders, alphas) are accepted and ignored."""
        return self.epsilon(delta, **kwargs).upper

    def get_privacy_spent(self, *, delta, **kwargs):
        """(epsilon, None): the shape of Opacus' RDP accountant's
        get_privacy_spent (no RDP order is involved here)."""
        return (self.get_epsilon(delta, **kwargs), None)

    def __len__(self):
        """The number of history entries (as Opacus' accountants count:
        consecutive identical steps share one entry); ``steps`` is the
        number of steps."""
        return len(self.history)

    @classmethod
    def mechanism(cls):
        """'pld' (the key to register this class under in Opacus)."""
        return MECHANISM

    def state_dict(self, destination=None):
        """The state as a mapping: 'history', 'mechanism' (the string
        'pld') and 'pldkit_params' (the constructor's parameters)."""
        if destination is None:
            destination = OrderedDict()
        destination["history"] = list(self.history)
        destination["mechanism"] = MECHANISM
        destination["pldkit_params"] = dict(self.params)
        return destination

    def load_state_dict(self, state_dict):
        """Restore a state_dict() (also one saved by Opacus' own
        accountants' state_dict, if its mechanism is this one)."""
        if not state_dict:
            raise ValueError("state dict is None or empty and cannot be "
                             "loaded into PLDAccountant")
        for key in ("history", "mechanism"):
            if key not in state_dict:
                raise ValueError("state_dict has no key %r; cannot be loaded "
                                 "into PLDAccountant" % key)
        mech = state_dict["mechanism"]
        if callable(mech):  # Opacus stores the classmethod itself
            mech = mech()
        if mech != MECHANISM:
            raise ValueError("state_dict of mechanism %r cannot be loaded into "
                             "PLDAccountant (mechanism %r)" % (mech, MECHANISM))
        history = []
        for i, entry in enumerate(state_dict["history"]):
            try:
                s, q, n = entry
            except (TypeError, ValueError):
                raise ValueError("state_dict history[%d] = %r is not a "
                                 "(noise_multiplier, sample_rate, num_steps) "
                                 "triple" % (i, entry)) from None
            s, q = _check_step(s, q, "PLDAccountant.load_state_dict")
            if isinstance(n, bool) or int(n) != n or n < 0:
                invalid("PLDAccountant.load_state_dict",
                        "history[%d] num_steps=%r must be an integer >= 0"
                        % (i, n))
            history.append((s, q, int(n)))
        params = dict(state_dict.get("pldkit_params", self.params))
        PLDAccountant(**params)  # validates
        self.params = params
        self.history = history

    def get_optimizer_hook_fn(self, sample_rate):
        """The hook Opacus' PrivacyEngine attaches to the DPOptimizer: one
        step per optimizer step, the sampling rate scaled by the
        optimizer's accumulated_iterations."""
        def hook_fn(optim):
            self.step(noise_multiplier=optim.noise_multiplier,
                      sample_rate=sample_rate * optim.accumulated_iterations)
        return hook_fn

    # ---- pldkit extras ----------------------------------------------------
    @property
    def steps(self):
        """The number of steps recorded."""
        return sum(n for _, _, n in self.history)

    def accountant(self):
        """A pldkit.Accountant holding the history (None when a step had
        noise multiplier 0: no finite epsilon)."""
        acc = Accountant(**self.params)
        for s, q, n in self.history:
            if n == 0 or q == 0:
                continue
            if s == 0:
                acc.close()
                return None
            with PoissonGaussian(q, s, 1.0) as m:
                acc.compose(m, n)
        return acc

    def epsilon(self, delta, **kwargs):
        """The whole answer: a pldkit Result (bracket, grid, ...) for
        epsilon(delta).  With no step yet (or only free ones) epsilon is
        0; with a step of noise multiplier 0 it is inf."""
        for k in kwargs:
            if k not in _FOREIGN_KWARGS:
                raise TypeError("PLDAccountant.get_epsilon: unexpected keyword "
                                "argument %r" % k)
        d = real(delta, "delta", "PLDAccountant.get_epsilon")
        if not (0 < d < 1):
            invalid("PLDAccountant.get_epsilon",
                    "delta=%r must be in (0, 1)" % (delta,))
        # keyed by what the answer depends on: the history as it is now
        # (Opacus' get_noise_multiplier assigns `history` directly), delta
        # and the parameters
        key = (tuple(tuple(e) for e in self.history), d,
               tuple(sorted(self.params.items())))
        answers = self.__dict__.setdefault("_answers", {})
        if key in answers:
            return answers[key]
        acc = self.accountant()
        if acc is None:
            result = _Fixed(d, math.inf)
        else:
            with acc:
                if acc.num_groups == 0:
                    result = _Fixed(d, 0.0)
                else:
                    result = acc.epsilon(d)
        if len(answers) >= _REMEMBERED:
            answers.clear()
        answers[key] = result
        return result

    def __repr__(self):
        return "<pldkit.opacus.PLDAccountant: %d steps in %d entries>" % (
            self.steps, len(self.history))


class _Fixed(object):
    """An exact answer with no grid behind it (no steps, or a non-private
    step): lower == upper."""

    __slots__ = ("at", "lower", "upper")
    query = "epsilon"

    def __init__(self, at, value):
        self.at, self.lower, self.upper = at, value, value

    def __float__(self):
        return self.upper

    def __repr__(self):
        return "<epsilon = %g at delta = %g (exact)>" % (self.upper, self.at)


def get_noise_multiplier(*, target_epsilon, target_delta, sample_rate,
                         epochs=None, steps=None, accountant=MECHANISM,
                         epsilon_tolerance=0.01, **kwargs):
    """Opacus' get_noise_multiplier with pldkit's certified epsilon: a
    noise multiplier sigma whose certified epsilon after `steps` steps (or
    int(epochs / sample_rate) steps, as Opacus counts them) at
    `sample_rate` is <= target_epsilon at target_delta, and within
    `epsilon_tolerance` of it (bisection, as Opacus does).

    `accountant` must be 'pld' (or a PLDAccountant): the name only exists
    for Opacus' signature.  Other keyword arguments are pldkit.Accountant
    parameters (accuracy, ...).  Raises ValueError when the budget is
    too low (no sigma up to 1e6 meets it)."""
    f = "get_noise_multiplier"
    if isinstance(accountant, PLDAccountant):
        params = dict(accountant.params)
    elif accountant == MECHANISM:
        params = {}
    else:
        raise ValueError("%s: accountant=%r: pldkit.opacus computes with its "
                         "own PLD accountant ('%s'); use Opacus' function for "
                         "'rdp', 'gdp' or 'prv'" % (f, accountant, MECHANISM))
    for k in _FOREIGN_KWARGS:
        kwargs.pop(k, None)
    params.update(kwargs)
    if (steps is None) == (epochs is None):
        raise ValueError("%s takes a number of steps or a number of epochs, "
                         "exactly one of them" % f)
    if steps is None:
        steps = steps_of_epochs(epochs, sample_rate, f)
    eps_t = real(target_epsilon, "target_epsilon", f)
    dlt = real(target_delta, "target_delta", f)
    tol = real(epsilon_tolerance, "epsilon_tolerance", f)
    if not (math.isfinite(eps_t) and eps_t > 0):
        invalid(f, "target_epsilon=%r must be a finite number > 0"
                % (target_epsilon,))
    if not (0 < dlt < 1):
        invalid(f, "target_delta=%r must be in (0, 1)" % (target_delta,))
    if not (math.isfinite(tol) and tol > 0):
        invalid(f, "epsilon_tolerance=%r must be a finite number > 0"
                % (epsilon_tolerance,))
    _check_step(1.0, sample_rate, f)

    acc = PLDAccountant(**params)

    def eps_at(sigma):
        acc.history = [(sigma, sample_rate, steps)]
        try:
            return acc.get_epsilon(dlt)
        except ToleranceNotMet:
            return math.inf  # undecided counts as not meeting the target

    # Bracket [lo, hi] with eps(hi) <= target, then bisect until the
    # certified epsilon at hi is within the tolerance below the target.
    lo, hi = 0.0, 1.0
    eps_hi = eps_at(hi)
    while eps_hi > eps_t:
        lo, hi = hi, 2.0 * hi
        if hi > 1e6:
            raise ValueError("%s: the privacy budget is too low (epsilon "
                             "%g at delta %g needs a noise multiplier above "
                             "1e6)" % (f, eps_t, dlt))
        eps_hi = eps_at(hi)
    while eps_t - eps_hi > tol and hi - lo > 1e-12 * hi:
        mid = 0.5 * (lo + hi)
        e = eps_at(mid)
        if e <= eps_t:
            hi, eps_hi = mid, e
        else:
            lo = mid
    return hi


# --------------------------------------------------------------------------
# Plugging into Opacus (see the module docstring for the route).

# Opacus' PrivacyEngine.make_private_with_epsilon passes its own **kwargs
# (meant for make_private) on to get_noise_multiplier, whose accountants
# ignore what they do not know; so does the Opacus route here.
def _opacus_noise_multiplier(original):
    def get_noise_multiplier(*, target_epsilon, target_delta, sample_rate,
                             epochs=None, steps=None, accountant="rdp",
                             epsilon_tolerance=0.01, **kwargs):
        if accountant != MECHANISM and not isinstance(accountant,
                                                      PLDAccountant):
            return original(target_epsilon=target_epsilon,
                            target_delta=target_delta,
                            sample_rate=sample_rate, epochs=epochs,
                            steps=steps, accountant=accountant,
                            epsilon_tolerance=epsilon_tolerance, **kwargs)
        ours = {k: v for k, v in kwargs.items() if k in _PARAMS}
        return globals()["get_noise_multiplier"](
            target_epsilon=target_epsilon, target_delta=target_delta,
            sample_rate=sample_rate, epochs=epochs, steps=steps,
            accountant=accountant, epsilon_tolerance=epsilon_tolerance,
            **ours)
    get_noise_multiplier.__doc__ = (
        "Opacus' get_noise_multiplier; accountant='pld' is pldkit's "
        "(pldkit.opacus.get_noise_multiplier).\n\n" + (original.__doc__ or ""))
    return get_noise_multiplier


def _opacus_create_accountant(original):
    def create_accountant(mechanism):
        if mechanism == MECHANISM:
            return PLDAccountant()
        return original(mechanism)
    create_accountant.__doc__ = (
        "Opacus' create_accountant; mechanism 'pld' is "
        "pldkit.opacus.PLDAccountant.\n\n" + (original.__doc__ or ""))
    return create_accountant


def _wrap(module, name, make):
    original = getattr(module, name, None)
    if original is None or getattr(original, "_pldkit_wraps", None):
        return
    wrapper = make(original)
    wrapper._pldkit_wraps = original
    wrapper.__name__ = name
    wrapper.__module__ = module.__name__
    setattr(module, name, wrapper)


def _patch_accountants(module):
    base = getattr(module, "IAccountant", None)
    if base is not None and hasattr(base, "register"):
        base.register(PLDAccountant)   # an ABC: isinstance holds
    registry = sys.modules.get("opacus.accountants.registry")
    if registry is not None and hasattr(registry, "register_accountant"):
        registry.register_accountant(MECHANISM, PLDAccountant, force=True)
    _wrap(module, "create_accountant", _opacus_create_accountant)


def _patch_utils(module):
    _wrap(module, "create_accountant", _opacus_create_accountant)
    _wrap(module, "get_noise_multiplier", _opacus_noise_multiplier)


def _patch_engine(module):
    _wrap(module, "create_accountant", _opacus_create_accountant)
    _wrap(module, "get_noise_multiplier", _opacus_noise_multiplier)


def install():
    """Make 'pld' an accountant of Opacus (done when this module is
    imported; idempotent): wraps create_accountant and get_noise_multiplier
    where Opacus' released versions look them up (opacus.accountants,
    opacus.accountants.utils, opacus.privacy_engine), now for the modules
    already imported and on import for the others.  Imports nothing."""
    _hooks.after_import("opacus.accountants", _patch_accountants)
    _hooks.after_import("opacus.accountants.utils", _patch_utils)
    _hooks.after_import("opacus.privacy_engine", _patch_engine)


install()
