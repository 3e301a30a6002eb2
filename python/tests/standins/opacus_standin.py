"""Writes a stand-in of the Opacus modules pldkit.opacus plugs into, with
the names and signatures of a released Opacus (read from its source at the
tags v1.4.0 and v1.5.4; the code here is written for the test, not copied):

* opacus/__init__.py imports PrivacyEngine from opacus.privacy_engine;
* opacus/accountants/__init__.py exports IAccountant (an abc.ABC) and
  defines create_accountant(mechanism),
  which knows "rdp", "gdp" and "prv" and raises ValueError("Unexpected
  accounting mechanism: ...") for anything else (1.0 to 1.5.4 alike);
* opacus/accountants/utils.py does ``from opacus.accountants import
  create_accountant`` and defines get_noise_multiplier(*, target_epsilon,
  target_delta, sample_rate, epochs=None, steps=None, accountant="rdp",
  epsilon_tolerance=0.01, **kwargs), a search that sets
  ``accountant.history`` and calls ``accountant.get_epsilon(delta=...,
  **kwargs)``;
* opacus/privacy_engine.py does ``from opacus.accountants import
  create_accountant`` and ``from opacus.accountants.utils import
  get_noise_multiplier``; PrivacyEngine(*, accountant="prv",
  secure_mode=False) creates ``self.accountant =
  create_accountant(mechanism=accountant)``; make_private_with_epsilon
  takes sample_rate = 1 / len(data_loader) and calls get_noise_multiplier
  with accountant=self.accountant.mechanism() and its own **kwargs, then
  make_private, which attaches accountant.get_optimizer_hook_fn(sample_rate)
  to the optimizer; get_epsilon(delta) asks the accountant.
  1.5 added ``criterion`` to make_private_with_epsilon's keywords.

version "registry" is Opacus' main branch after 1.5.4 (unreleased):
opacus/accountants/registry.py with register_accountant(mechanism,
accountant, force=False) and create_accountant, re-exported by
opacus.accountants."""

import os
import textwrap

_INIT = '''
from .privacy_engine import PrivacyEngine
__version__ = "{version}"
'''

_ACCOUNTANTS = '''
import abc


class IAccountant(abc.ABC):
    """opacus.accountants.accountant.IAccountant (re-exported)."""


class _Standin(IAccountant):
    """Opacus' own accountant, reduced to what the test looks at."""
    def __init__(self):
        self.history = []
    def __len__(self):
        return len(self.history)
    def get_epsilon(self, delta, **kwargs):
        # a made-up decreasing function of sigma, enough for the search
        return sum(n * q / s for s, q, n in self.history)
    def get_optimizer_hook_fn(self, sample_rate):
        def hook(optim):
            self.history.append((optim.noise_multiplier, sample_rate, 1))
        return hook


class RDPAccountant(_Standin):
    @classmethod
    def mechanism(cls):
        return "rdp"


class GaussianAccountant(_Standin):
    @classmethod
    def mechanism(cls):
        return "gdp"


class PRVAccountant(_Standin):
    @classmethod
    def mechanism(cls):
        return "prv"


def create_accountant(mechanism):
    if mechanism == "rdp":
        return RDPAccountant()
    elif mechanism == "gdp":
        return GaussianAccountant()
    elif mechanism == "prv":
        return PRVAccountant()
    raise ValueError(f"Unexpected accounting mechanism: {mechanism}")
'''

_ACCOUNTANTS_REGISTRY = '''
from .registry import create_accountant, register_accountant
from .registry import RDPAccountant, GaussianAccountant, PRVAccountant, IAccountant
'''

_REGISTRY = _ACCOUNTANTS.replace('''def create_accountant(mechanism):
    if mechanism == "rdp":
        return RDPAccountant()
    elif mechanism == "gdp":
        return GaussianAccountant()
    elif mechanism == "prv":
        return PRVAccountant()
    raise''', '''_TABLE = {"rdp": RDPAccountant, "gdp": GaussianAccountant,
          "prv": PRVAccountant}


def register_accountant(mechanism, accountant, force=False):
    if mechanism in _TABLE and not force:
        raise ValueError(f"Accountant for mechanism {mechanism} is already registered")
    _TABLE[mechanism] = accountant


def create_accountant(mechanism):
    if mechanism in _TABLE:
        return _TABLE[mechanism]()
    raise''')

_UTILS = '''
from opacus.accountants import create_accountant

MAX_SIGMA = 1e6


def get_noise_multiplier(*, target_epsilon, target_delta, sample_rate,
                         epochs=None, steps=None, accountant="rdp",
                         epsilon_tolerance=0.01, **kwargs):
    if (steps is None) == (epochs is None):
        raise ValueError("steps or epochs")
    if steps is None:
        steps = int(epochs / sample_rate)
    acc = create_accountant(mechanism=accountant)
    lo, hi = 0.0, 10.0
    eps_hi = float("inf")
    while eps_hi > target_epsilon:
        hi = 2 * hi
        acc.history = [(hi, sample_rate, steps)]
        eps_hi = acc.get_epsilon(delta=target_delta, **kwargs)
        if hi > MAX_SIGMA:
            raise ValueError("The privacy budget is too low.")
    while target_epsilon - eps_hi > epsilon_tolerance:
        mid = (lo + hi) / 2
        acc.history = [(mid, sample_rate, steps)]
        e = acc.get_epsilon(delta=target_delta, **kwargs)
        if e < target_epsilon:
            hi, eps_hi = mid, e
        else:
            lo = mid
    return hi
'''

_ENGINE = '''
from opacus.accountants import create_accountant
from opacus.accountants.utils import get_noise_multiplier


class PrivacyEngine:
    def __init__(self, *, accountant="prv", secure_mode=False):
        self.accountant = create_accountant(mechanism=accountant)
        self.secure_mode = secure_mode

    def make_private(self, *, module, optimizer, data_loader,
                     noise_multiplier, max_grad_norm, **kwargs):
        sample_rate = 1 / len(data_loader)
        optimizer.noise_multiplier = noise_multiplier
        optimizer.max_grad_norm = max_grad_norm
        optimizer.step_hooks.append(
            self.accountant.get_optimizer_hook_fn(sample_rate=sample_rate))
        return module, optimizer, data_loader

    def make_private_with_epsilon(self, *, module, optimizer, {criterion}
                                  data_loader, target_epsilon,
                                  target_delta, epochs, max_grad_norm,
                                  batch_first=True, loss_reduction="mean",
                                  poisson_sampling=True, clipping="flat",
                                  noise_generator=None,
                                  grad_sample_mode="hooks", **kwargs):
        sample_rate = 1 / len(data_loader)
        return self.make_private(
            module=module, optimizer=optimizer, data_loader=data_loader,
            noise_multiplier=get_noise_multiplier(
                target_epsilon=target_epsilon, target_delta=target_delta,
                sample_rate=sample_rate, epochs=epochs,
                accountant=self.accountant.mechanism(), **kwargs),
            max_grad_norm=max_grad_norm, batch_first=batch_first,
            loss_reduction=loss_reduction, noise_generator=noise_generator,
            grad_sample_mode=grad_sample_mode,
            poisson_sampling=poisson_sampling, clipping=clipping, **kwargs)

    def get_epsilon(self, delta):
        return self.accountant.get_epsilon(delta)
'''


def write(root, version):
    """Write the stand-in package `opacus` under root for version "1.4.0",
    "1.5.4" or "registry"."""
    files = {
        "opacus/__init__.py": _INIT.format(version=version),
        "opacus/accountants/utils.py": _UTILS,
        "opacus/privacy_engine.py": _ENGINE.replace(
            "{criterion}", "criterion=None," if version != "1.4.0" else ""),
    }
    if version == "registry":
        files["opacus/accountants/__init__.py"] = _ACCOUNTANTS_REGISTRY
        files["opacus/accountants/registry.py"] = _REGISTRY
    else:
        files["opacus/accountants/__init__.py"] = _ACCOUNTANTS
    for path, text in files.items():
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as f:
            f.write(textwrap.dedent(text).lstrip())
