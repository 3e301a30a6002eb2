"""Tests of the Opacus and dp_accounting drop-ins (pldkit.opacus,
pldkit.dp_accounting) and of the binding's pickling and error details.

Neither Opacus nor dp_accounting is imported: the event trees are built
from small stand-in classes carrying dp_accounting's documented class and
field names.  Every number is checked against the native pldkit API (the
same numbers, exactly) and against an independent closed form computed
here, on both sides: the certified upper end may not be below the truth
(up to a relative 1e-12 for the double-precision reference) and may not
exceed it by more than the accountant's accuracy target (2e-3 relative,
checked with slack at 1e-2)."""

import json
import math
import os
import pickle
import subprocess
import sys
import tempfile
import unittest
import warnings
from collections import namedtuple
from dataclasses import dataclass, field
from typing import List

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.normpath(os.path.join(HERE, "..")))

import pldkit  # noqa: E402
import pldkit.dp_accounting as dpa  # noqa: E402
import pldkit.opacus as po  # noqa: E402

REF = 1e-12     # relative error allowed to a double-precision reference
LOOSE = 1e-2    # how far above the truth an upper end may be


def phi(x):
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def gauss_delta(mu, eps):
    """delta(eps) of mu-GDP (Balle & Wang 2018, Thm 8)."""
    return phi(-eps / mu + mu / 2) - math.exp(eps) * phi(-eps / mu - mu / 2)


def gauss_epsilon(mu, delta):
    lo, hi = 0.0, 1.0
    while gauss_delta(mu, hi) > delta:
        hi *= 2
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if gauss_delta(mu, mid) > delta:
            lo = mid
        else:
            hi = mid
    return hi


def rr_delta(eps0, k, n, eps):
    """delta(eps) of n compositions of k-ary randomized response (replace
    one): per run the loss is +eps0 with probability pt = e^eps0 / (e^eps0 +
    k - 1), -eps0 with po = 1 / (e^eps0 + k - 1), 0 otherwise (under P);
    summed exactly over the trinomial counts."""
    z = math.exp(eps0) + k - 1
    pt, pother = math.exp(eps0) / z, 1.0 / z
    p0 = 1.0 - pt - pother
    total = 0.0
    for i in range(n + 1):
        for j in range(n + 1 - i):
            loss = (i - j) * eps0
            if loss <= eps:
                continue
            m = math.comb(n, i) * math.comb(n - i, j)
            prob = m * pt ** i * pother ** j * p0 ** (n - i - j)
            total += prob * -math.expm1(eps - loss)
    return total


def check_upper(case, upper, truth, slack=LOOSE):
    case.assertGreaterEqual(upper, truth * (1 - REF),
                            "upper end below the truth")
    case.assertLessEqual(upper, truth * (1 + slack) + 1e-300,
                         "upper end too far above the truth")


# ---- stand-ins with dp_accounting's names (namedtuples and dataclasses) --
GaussianDpEvent = namedtuple("GaussianDpEvent", "noise_multiplier")
LaplaceDpEvent = namedtuple("LaplaceDpEvent", "noise_multiplier")
DiscreteLaplaceDpEvent = namedtuple("DiscreteLaplaceDpEvent",
                                    "noise_parameter sensitivity")
RandomizedResponseDpEvent = namedtuple("RandomizedResponseDpEvent",
                                       "noise_parameter num_buckets")
EpsilonDeltaDpEvent = namedtuple("EpsilonDeltaDpEvent", "epsilon delta")
PoissonSampledDpEvent = namedtuple("PoissonSampledDpEvent",
                                   "sampling_probability event")
SampledWithoutReplacementDpEvent = namedtuple(
    "SampledWithoutReplacementDpEvent",
    "source_dataset_size sample_size event")
SampledWithReplacementDpEvent = namedtuple(
    "SampledWithReplacementDpEvent", "source_dataset_size sample_size event")
SelfComposedDpEvent = namedtuple("SelfComposedDpEvent", "event count")


@dataclass(frozen=True)
class ComposedDpEvent:
    events: List[object] = field(default_factory=list)


@dataclass(frozen=True)
class NoOpDpEvent:
    pass


@dataclass(frozen=True)
class NonPrivateDpEvent:
    pass


@dataclass(frozen=True)
class UnsupportedDpEvent:
    pass


@dataclass(frozen=True)
class DiscreteGaussianDpEvent:
    sigma: float
    sensitivity: float = 1.0
    dimension: object = None


@dataclass(frozen=True)
class MixtureOfGaussiansDpEvent:
    standard_deviation: float
    sensitivities: list
    sampling_probs: list


@dataclass(frozen=True)
class ZCDpEvent:
    rho: float
    xi: float = 0.0


class NeighboringRelation:   # stands in for dp_accounting's enum members
    def __init__(self, name):
        self.name = name


REPLACE_ONE = NeighboringRelation("REPLACE_ONE")


def native(*pairs):
    """A native pldkit.Accountant of (mechanism, count) pairs."""
    acc = pldkit.Accountant()
    for m, c in pairs:
        acc.compose(m, c)
    return acc


class TestDpAccounting(unittest.TestCase):

    def test_dpsgd_same_as_native_and_rdp_above(self):
        q, sigma, n, delta = 0.01, 1.0, 1000, 1e-5
        ev = SelfComposedDpEvent(PoissonSampledDpEvent(q, GaussianDpEvent(
            sigma)), n)
        acc = dpa.PLDAccountant()
        self.assertIs(acc.compose(ev), acc)
        eps = acc.get_epsilon(target_delta=delta)
        want = native((pldkit.PoissonGaussian(q, sigma), n)).epsilon(delta)
        self.assertEqual(eps, want.upper)
        # the RDP bound is a certified upper bound too, so it may not be
        # below the PLD bracket's lower end
        rdp = dpa.RdpAccountant().compose(ev).get_epsilon(delta)
        self.assertGreaterEqual(rdp, want.lower)
        self.assertEqual(
            acc.get_delta(1.0),
            native((pldkit.PoissonGaussian(q, sigma), n)).delta(1.0).upper)

    def test_gaussian_closed_form(self):
        # 3 x N(sigma=2) and 5 x N(sigma=4): mu^2 = 3/4 + 5/16
        ev = ComposedDpEvent([SelfComposedDpEvent(GaussianDpEvent(2.0), 3),
                              NoOpDpEvent(),
                              SelfComposedDpEvent(GaussianDpEvent(4.0), 5)])
        acc = dpa.PLDAccountant().compose(ev)
        mu = math.sqrt(3 / 4 + 5 / 16)
        for eps in (0.0, 0.5, 2.0):
            check_upper(self, acc.get_delta(eps), gauss_delta(mu, eps))
        check_upper(self, acc.get_epsilon(1e-6), gauss_epsilon(mu, 1e-6))
        # REPLACE_ONE doubles the sensitivity: mu = 2 / sigma
        with self.assertWarns(dpa.SensitivityConventionWarning):
            acc2 = dpa.PLDAccountant(REPLACE_ONE).compose(GaussianDpEvent(3.0))
        check_upper(self, acc2.get_delta(0.3), gauss_delta(2 / 3.0, 0.3))
        # q = 1 Poisson sampling is the Gaussian itself
        acc3 = dpa.PLDAccountant().compose(
            PoissonSampledDpEvent(1.0, GaussianDpEvent(1.5)), 4)
        check_upper(self, acc3.get_delta(1.0),
                    gauss_delta(math.sqrt(4) / 1.5, 1.0))

    def test_laplace_and_discrete_laplace_closed_forms(self):
        b = 2.0  # delta(eps) = 1 - exp((eps - 1/b) / 2) for eps < 1/b
        acc = dpa.PLDAccountant().compose(LaplaceDpEvent(b))
        self.assertEqual(acc.get_delta(0.1),
                         native((pldkit.Laplace(b), 1)).delta(0.1).upper)
        check_upper(self, acc.get_delta(0.1), -math.expm1((0.1 - 1 / b) / 2))
        # DLap(a), sensitivity 1: loss +a with P-mass 1/(1 + e^-a), -a else
        a = 0.7
        acc = dpa.PLDAccountant().compose(DiscreteLaplaceDpEvent(a, 1))
        truth = -math.expm1(0.2 - a) / (1 + math.exp(-a))
        check_upper(self, acc.get_delta(0.2), truth)
        self.assertEqual(acc.get_delta(0.2), native(
            (pldkit.DiscreteLaplace(math.nextafter(1 / a, 0.0), 1), 1)
        ).delta(0.2).upper)

    def test_randomized_response_exact(self):
        p, k, n = 0.5, 4, 10
        eps0 = math.log(1 + k * (1 - p) / p)
        acc = dpa.PLDAccountant(REPLACE_ONE).compose(
            RandomizedResponseDpEvent(p, k), n)
        for eps in (0.0, 5.0, 15.0):
            check_upper(self, acc.get_delta(eps), rr_delta(eps0, k, n, eps))
        # count is honoured (dp_accounting 0.6.0's PLD accountant ignores it)
        one = dpa.PLDAccountant("REPLACE_ONE").compose(
            RandomizedResponseDpEvent(p, k))
        self.assertLess(one.get_delta(5.0), acc.get_delta(5.0))
        # RR is replace-one only, as in dp_accounting
        self.assertFalse(dpa.PLDAccountant().supports(
            RandomizedResponseDpEvent(p, k)))
        with self.assertRaisesRegex(dpa.UnsupportedEventError,
                                    "RandomizedResponseDpEvent.*ADD_OR_REMOVE"):
            dpa.PLDAccountant().compose(RandomizedResponseDpEvent(p, k))
        # k = 1 is a no-op, p = 0 non-private
        self.assertEqual(dpa.PLDAccountant(REPLACE_ONE).compose(
            RandomizedResponseDpEvent(0.0, 1)).get_epsilon(1e-5), 0.0)
        self.assertEqual(dpa.PLDAccountant(REPLACE_ONE).compose(
            RandomizedResponseDpEvent(0.0, 3)).get_epsilon(1e-5), math.inf)

    def test_epsilon_delta_pair(self):
        e, d = 1.0, 1e-6
        acc = dpa.PLDAccountant().compose(EpsilonDeltaDpEvent(e, d))
        for eps in (0.0, 0.5, 0.99):
            truth = d + (1 - d) * (math.exp(e) - math.exp(eps)) / (
                1 + math.exp(e))
            check_upper(self, acc.get_delta(eps), truth)
        # at a delta above d the epsilon is e (at d itself the booked
        # rounding of delta makes it inf: sound, not tight)
        check_upper(self, acc.get_epsilon(2e-6), e)
        self.assertGreaterEqual(acc.get_epsilon(d), e)

    def test_mixture_wor_discrete_gaussian(self):
        # a one-component mixture at sensitivity c is the Gaussian c/sd
        acc = dpa.PLDAccountant().compose(
            MixtureOfGaussiansDpEvent(2.0, [1.0], [1.0]))
        check_upper(self, acc.get_delta(0.25), gauss_delta(0.5, 0.25))
        # WOR of a Gaussian: same numbers as the native WorGaussian (2C)
        ev = SampledWithoutReplacementDpEvent(1000, 10, GaussianDpEvent(1.0))
        with self.assertWarns(dpa.SensitivityConventionWarning):
            acc = dpa.PLDAccountant(REPLACE_ONE).compose(ev, 50)
        self.assertEqual(acc.get_epsilon(1e-5), native(
            (pldkit.WorGaussian(10, 1000, 1.0, 2.0), 50)).epsilon(1e-5).upper)
        self.assertFalse(dpa.PLDAccountant().supports(ev))
        # the discrete Gaussian: univariate only
        acc = dpa.PLDAccountant().compose(
            DiscreteGaussianDpEvent(5.0, 1, dimension=1))
        self.assertEqual(acc.get_delta(0.1), native(
            (pldkit.DiscreteGaussian(5.0, 1), 1)).delta(0.1).upper)
        with self.assertRaisesRegex(dpa.UnsupportedEventError, "dimension"):
            dpa.PLDAccountant().compose(DiscreteGaussianDpEvent(5.0))

    def test_unsupported_and_nonprivate(self):
        acc = dpa.PLDAccountant()
        for ev in (UnsupportedDpEvent(), ZCDpEvent(0.1),
                   SampledWithReplacementDpEvent(100, 5, GaussianDpEvent(1.0)),
                   PoissonSampledDpEvent(0.1, ComposedDpEvent(
                       [GaussianDpEvent(1.0), GaussianDpEvent(2.0)]))):
            self.assertFalse(acc.supports(ev), ev)
            with self.assertRaisesRegex(dpa.UnsupportedEventError,
                                        type(ev).__name__):
                acc.compose(ev)
        with self.assertRaisesRegex(dpa.UnsupportedEventError,
                                    r"event\.events\[1\]: UnsupportedDpEvent"):
            acc.compose(ComposedDpEvent([GaussianDpEvent(1.0),
                                         UnsupportedDpEvent()]))
        self.assertEqual(acc.entries, [])  # nothing was added
        self.assertEqual(acc.get_epsilon(1e-5), 0.0)
        self.assertTrue(acc.supports(NonPrivateDpEvent()))
        acc.compose(ComposedDpEvent([GaussianDpEvent(1.0),
                                     NonPrivateDpEvent()]))
        self.assertEqual(acc.get_epsilon(1e-5), math.inf)
        self.assertEqual(acc.get_delta(3.0), 1.0)
        # bad numbers in a supported event: a ValueError naming the field
        with self.assertRaisesRegex(ValueError, "sampling_probability"):
            acc.compose(PoissonSampledDpEvent(1.5, GaussianDpEvent(1.0)))

    def test_serialized_forms_and_pickle(self):
        q, sigma, n = 0.02, 1.2, 300
        ev = SelfComposedDpEvent(
            PoissonSampledDpEvent(q, GaussianDpEvent(sigma)), n)
        ref = dpa.PLDAccountant().compose(ev).get_epsilon(1e-6)
        mod = "dp_accounting.dp_event"
        as_dict = {"module_name": mod, "class_name": "SelfComposedDpEvent",
                   "event": {"module_name": mod,
                             "class_name": "PoissonSampledDpEvent",
                             "sampling_probability": q,
                             "event": {"module_name": mod,
                                       "class_name": "GaussianDpEvent",
                                       "noise_multiplier": sigma}},
                   "count": n}
        as_list = [mod, "SelfComposedDpEvent",
                   [mod, "PoissonSampledDpEvent", q,
                    [mod, "GaussianDpEvent", sigma]], n]
        nt = namedtuple("_SelfComposedDpEventNamedTupleWrapper",
                        "module_name class_name event count")
        nt_p = namedtuple("_P", "module_name class_name sampling_probability "
                          "event")
        nt_g = namedtuple("_G", "module_name class_name noise_multiplier")
        as_nt = nt(mod, "SelfComposedDpEvent",
                   nt_p(mod, "PoissonSampledDpEvent", q,
                        nt_g(mod, "GaussianDpEvent", sigma)), n)
        for form in (dpa.from_json(json.dumps(as_dict)),
                     dpa.from_json(json.dumps(as_list)), as_dict, as_nt):
            self.assertEqual(
                dpa.PLDAccountant().compose(form).get_epsilon(1e-6), ref)
        acc = dpa.PLDAccountant().compose(ev)
        again = pickle.loads(pickle.dumps(acc))
        self.assertEqual(again.get_epsilon(1e-6), ref)
        self.assertEqual(len(again.entries), 1)
        r = pickle.loads(pickle.dumps(acc.epsilon(1e-6)))
        self.assertEqual((r.lower, r.upper), tuple(acc.epsilon(1e-6)))
        with self.assertRaisesRegex(dpa.UnsupportedEventError, "no field"):
            dpa.from_json('{"class_name": "GaussianDpEvent", "sigma": 1}')

    @unittest.skipUnless(os.environ.get("PLDKIT_CLI") or os.access(
        os.path.join(os.path.dirname(pldkit.library_path), "pldkit"),
        os.X_OK), "no CLI")
    def test_cli_events_json(self):
        cli = os.environ.get("PLDKIT_CLI") or os.path.join(
            os.path.dirname(pldkit.library_path), "pldkit")
        probe = subprocess.run([cli, "epsilon", "--help"],
                               capture_output=True, text=True)
        if "--events-json" not in probe.stdout + probe.stderr:
            self.skipTest("this CLI has no --events-json")
        ev = {"class_name": "ComposedDpEvent", "events": [
            {"class_name": "SelfComposedDpEvent", "count": 200, "event": {
                "class_name": "PoissonSampledDpEvent",
                "sampling_probability": 0.01,
                "event": {"class_name": "GaussianDpEvent",
                          "noise_multiplier": 0.9}}},
            {"class_name": "LaplaceDpEvent", "noise_multiplier": 3.0}]}
        with tempfile.NamedTemporaryFile("w", suffix=".json",
                                         delete=False) as fh:
            json.dump(ev, fh)
        try:
            out = subprocess.run([cli, "epsilon", "--delta", "1e-5", "--json",
                                  "--events-json", fh.name],
                                 capture_output=True, text=True)
        finally:
            os.unlink(fh.name)
        self.assertEqual(out.returncode, 0, out.stderr)
        got = json.loads(out.stdout)
        want = dpa.PLDAccountant().compose(ev).epsilon(1e-5)
        self.assertEqual(got["epsilon_upper"], want.upper)

    def test_cli_events_json_every_event(self):
        # Both go through the library's one translation
        # (pld_dpevent_to_events) and the catalogue's answer; what differs
        # is how the tree reaches it (the CLI's jansson reader vs Python's
        # canonical() and ctypes tree): the same certified upper ends to
        # the last bit, on every supported event type and relation, in
        # both JSON forms.
        cli = os.environ.get("PLDKIT_CLI") or os.path.join(
            os.path.dirname(pldkit.library_path), "pldkit")
        probe = subprocess.run([cli, "epsilon", "--help"],
                               capture_output=True, text=True)
        if "--events-json" not in probe.stdout + probe.stderr:
            self.skipTest("this CLI has no --events-json")

        def E(n, **f):
            d = {"class_name": n}
            d.update(f)
            return d

        def G(s):
            return E("GaussianDpEvent", noise_multiplier=s)

        def SC(e, n):
            return E("SelfComposedDpEvent", event=e, count=n)

        def PS(q, e):
            return E("PoissonSampledDpEvent", sampling_probability=q, event=e)
        aor, ro, rs = "ADD_OR_REMOVE_ONE", "REPLACE_ONE", "REPLACE_SPECIAL"
        cases = [
            (aor, SC(G(2.0), 50)), (ro, SC(G(2.0), 50)),
            (aor, E("LaplaceDpEvent", noise_multiplier=2.5)),
            (aor, E("DiscreteLaplaceDpEvent", noise_parameter=0.7,
                    sensitivity=2)),
            (aor, E("DiscreteGaussianDpEvent", sigma=3.0, sensitivity=1,
                    dimension=1)),
            (ro, SC(E("RandomizedResponseDpEvent", noise_parameter=0.3,
                      num_buckets=4), 10)),
            (aor, E("MixtureOfGaussiansDpEvent", standard_deviation=1.5,
                    sensitivities=[0.0, 1.0], sampling_probs=[0.9, 0.1])),
            (aor, E("EpsilonDeltaDpEvent", epsilon=0.5, delta=1e-7)),
            (aor, E("ComposedDpEvent", events=[
                E("ExponentialMechanismDpEvent", epsilon=0.3),
                E("PermuteAndFlipDpEvent", epsilon=0.2)])),
            (aor, SC(PS(0.02, G(1.1)), 300)),
            (rs, SC(PS(0.05, E("LaplaceDpEvent", noise_multiplier=2.0)), 20)),
            (aor, SC(PS(0.1, E("DiscreteLaplaceDpEvent", noise_parameter=0.5,
                               sensitivity=1)), 10)),
            (aor, PS(0.2, E("DiscreteGaussianDpEvent", sigma=2.0,
                            sensitivity=1, dimension=1))),
            (aor, PS(0.3, E("MixtureOfGaussiansDpEvent",
                            standard_deviation=1.5, sensitivities=[0.0, 1.0],
                            sampling_probs=[0.5, 0.5]))),
            (rs, SC(PS(0.05, E("EpsilonDeltaDpEvent", epsilon=1.0,
                               delta=1e-7)), 5)),
            (ro, SC(E("SampledWithoutReplacementDpEvent",
                      source_dataset_size=1000, sample_size=10,
                      event=G(1.0)), 100)),
            (aor, ["dp_accounting.dp_event", "ComposedDpEvent",
                   [["m", "NoOpDpEvent"],
                    ["m", "SelfComposedDpEvent",
                     ["m", "GaussianDpEvent", 3.0], 4]]]),
            (aor, E("ComposedDpEvent", events=[G(2.0),
                                               E("NonPrivateDpEvent")])),
        ]
        for rel, ev in cases:
            with tempfile.NamedTemporaryFile("w", suffix=".json",
                                             delete=False) as fh:
                json.dump(ev, fh)
            try:
                out = subprocess.run(
                    [cli, "epsilon", "--delta", "1e-5", "--json",
                     "--relation", rel, "--events-json", fh.name],
                    capture_output=True, text=True)
            finally:
                os.unlink(fh.name)
            with self.subTest(relation=rel, event=json.dumps(ev)[:80]):
                self.assertEqual(out.returncode, 0, out.stderr)
                got = json.loads(out.stdout)["epsilon_upper"]
                with warnings.catch_warnings():
                    warnings.simplefilter(  # the CLI does not warn (yet)
                        "ignore", dpa.SensitivityConventionWarning)
                    want = dpa.PLDAccountant(
                        neighboring_relation=rel).compose(ev).get_epsilon(1e-5)
                self.assertEqual(float(got), want)

    def test_library_translation_texts(self):
        # plan() gives the library's EVENT texts; every accepted form of
        # the same tree gives the same texts, and the numbers in them are
        # the documented mapping, recomputed here.
        mod = "dp_accounting.dp_event"
        as_dict = {"class_name": "SelfComposedDpEvent", "count": 300,
                   "event": {"class_name": "PoissonSampledDpEvent",
                             "sampling_probability": 0.02,
                             "event": {"class_name": "GaussianDpEvent",
                                       "noise_multiplier": 1.2}}}
        as_nt = SelfComposedDpEvent(PoissonSampledDpEvent(
            0.02, GaussianDpEvent(1.2)), 300)
        as_list = [mod, "SelfComposedDpEvent",
                   [mod, "PoissonSampledDpEvent", 0.02,
                    [mod, "GaussianDpEvent", 1.2]], 300]
        want = ["poisson-gaussian:q=0.02,sigma=1.2,count=300"]
        for form in (as_dict, as_nt, as_list, dpa.canonical(as_nt)):
            self.assertEqual(dpa.plan(form), want)
        self.assertEqual(dpa.plan(as_nt, count=2),
                         [want[0].replace("300", "600")])
        acc = dpa.PLDAccountant().compose(as_nt)
        self.assertEqual(acc.events, want)
        self.assertEqual(dpa.plan(GaussianDpEvent(2.0), REPLACE_ONE),
                         ["gaussian:sigma=2,sensitivity=2"])
        # randomized response: eps0 = log1p(k (1-p)/p) two ulps up
        p, k = 0.3, 4
        e0 = math.log1p(k * (1 - p) / p)
        e0 = math.nextafter(math.nextafter(e0, math.inf), math.inf)
        (txt,) = dpa.plan(RandomizedResponseDpEvent(p, k), "REPLACE_ONE")
        got = float(txt.split("epsilon=")[1].split(",")[0])
        self.assertEqual(got, e0)
        self.assertEqual(dpa.plan(ComposedDpEvent(
            [NoOpDpEvent(), NonPrivateDpEvent()])), [dpa.NONPRIVATE])
        self.assertEqual(dpa.plan(GaussianDpEvent(1.0), count=0), [])

    def test_refusals_add_nothing(self):
        acc = dpa.PLDAccountant()
        # Poisson subsampling of a replace-one mechanism is not defined:
        # refused, naming the inner class
        ev = PoissonSampledDpEvent(0.1, RandomizedResponseDpEvent(0.5, 4))
        rs = dpa.PLDAccountant("REPLACE_SPECIAL")
        self.assertFalse(rs.supports(ev))
        with self.assertRaisesRegex(dpa.UnsupportedEventError,
                                    "PoissonSampledDpEvent of "
                                    "RandomizedResponseDpEvent.*replace-one"):
            rs.compose(ev)
        self.assertEqual(rs.events, [])
        # a value the translation passes on but the mechanism refuses
        self.assertTrue(acc.supports(GaussianDpEvent(-1.0)))
        with self.assertRaisesRegex(ValueError, "sigma"):
            acc.compose(GaussianDpEvent(-1.0))
        with self.assertRaisesRegex(ValueError, "must be a number"):
            acc.compose(GaussianDpEvent(True))
        for c in (-1, 1.5, 2 ** 53 + 1, True):
            with self.assertRaisesRegex(ValueError, "count"):
                acc.compose(GaussianDpEvent(1.0), c)
        with self.assertRaises(dpa.UnsupportedEventError):
            dpa.PLDAccountant(REPLACE_ONE).compose(LaplaceDpEvent(1.0))
        self.assertEqual((acc.entries, acc.events), ([], []))
        self.assertEqual(acc.get_delta(0.5), 0.0)
        with self.assertRaises(TypeError):
            dpa.PLDAccountant(no_such_option=1)
        with self.assertRaises(ValueError):
            dpa.PLDAccountant(accuracy=-1.0)

    def test_poisson_sampled_discrete_laplace(self):
        # PoissonSampled of a mechanism other than Gaussian and Laplace is
        # the catalogue's poisson-sampled:q=Q[MEMBER] (as Python's old
        # private translation accounted it): supported, the CLI's
        # --events-json answer to the last bit, and against delta(eps)
        # summed here over the integers: P = (1-q) DL(0) + q DL(2),
        # Q = DL(0), P(k) ~ e^{-a|k|} (scale 1/a rounded down by the
        # translation: the less private side, so the truth at a is below
        # the upper end by at most the rounding, far below 1e-12).
        q, a, sens = 0.1, 1.0, 2
        ev = PoissonSampledDpEvent(q, DiscreteLaplaceDpEvent(a, sens))
        acc = dpa.PLDAccountant()
        self.assertTrue(acc.supports(ev))
        acc.compose(ev)
        scale = math.nextafter(1 / a, 0.0)
        self.assertEqual(acc.events, [
            "poisson-sampled:q=0.1[discrete-laplace:scale=%r,"
            "sensitivity=2]" % scale])
        c = (1 - math.exp(-a)) / (1 + math.exp(-a))
        pm = [c * math.exp(-a * abs(k)) for k in range(-300, 303)]
        P = [(1 - q) * pm[i] + q * (pm[i - sens] if i >= sens else 0.0)
             for i in range(len(pm))]
        for eps in (0.05, 0.2, 0.4):
            hs = lambda A, B: math.fsum(max(0.0, x - math.exp(eps) * y)
                                        for x, y in zip(A, B))
            check_upper(self, acc.get_delta(eps), max(hs(P, pm), hs(pm, P)),
                        slack=1e-6)
        # one text per loop of compose(ev): the count goes before '['
        loop = dpa.PLDAccountant()
        for _ in range(3):
            loop.compose(ev)
        self.assertEqual(loop.events, [acc.events[0].replace(
            "[", ",count=3[", 1)])
        self.assertEqual(loop.get_epsilon(1e-6),
                         dpa.PLDAccountant().compose(ev, 3).get_epsilon(1e-6))
        # the RDP accountant has no formula for it (no bridge): refused
        self.assertFalse(dpa.RdpAccountant().supports(ev))
        cli = os.environ.get("PLDKIT_CLI") or os.path.join(
            os.path.dirname(pldkit.library_path), "pldkit")
        if not os.access(cli, os.X_OK):
            self.skipTest("no CLI")
        tree = {"class_name": "PoissonSampledDpEvent",
                "sampling_probability": q,
                "event": {"class_name": "DiscreteLaplaceDpEvent",
                          "noise_parameter": a, "sensitivity": sens}}
        with tempfile.NamedTemporaryFile("w", suffix=".json",
                                         delete=False) as fh:
            json.dump(tree, fh)
        try:
            for query, arg, key, mine in (
                    ("epsilon", "--delta", "epsilon_upper",
                     acc.get_epsilon(1e-5)),
                    ("delta", "--epsilon", "delta_upper", acc.get_delta(0.2))):
                val = "1e-5" if query == "epsilon" else "0.2"
                out = subprocess.run([cli, query, arg, val, "--json",
                                      "--events-json", fh.name],
                                     capture_output=True, text=True)
                self.assertEqual(out.returncode, 0, out.stderr)
                self.assertEqual(float(json.loads(out.stdout)[key]), mine)
        finally:
            os.unlink(fh.name)

    def test_rdp_accountant_through_the_library(self):
        # 5 x Gaussian(sigma=2) on explicit orders: RDP(a) = 5 a / (2 s^2);
        # the certified epsilon is above the exact one (mu = sqrt(5)/2) and
        # at most the classic conversion min_a RDP(a) + log(1/d)/(a-1)
        # computed here (the library's conversion is at least as tight).
        orders = [1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 16.0, 32.0, 64.0]
        s, n, d = 2.0, 5, 1e-5
        acc = dpa.RdpAccountant(orders=orders).compose(GaussianDpEvent(s), n)
        eps = acc.get_epsilon(d)
        classic = min(a * n / (2 * s * s) + math.log(1 / d) / (a - 1)
                      for a in orders)
        self.assertGreaterEqual(eps, gauss_epsilon(math.sqrt(n) / s, d)
                                * (1 - REF))
        self.assertLessEqual(eps, classic * (1 + REF))
        # an EVENT without an RDP formula is refused at compose time,
        # naming it; nothing is added
        for ev in (EpsilonDeltaDpEvent(1.0, 1e-6),
                   DiscreteLaplaceDpEvent(0.5, 1)):
            self.assertFalse(acc.supports(ev))
            with self.assertRaisesRegex(dpa.UnsupportedEventError,
                                        "finite|discrete-laplace"):
                acc.compose(ComposedDpEvent([GaussianDpEvent(3.0), ev]))
        self.assertEqual(len(acc.entries), 1)
        self.assertEqual(acc.get_epsilon(d), eps)
        with self.assertRaisesRegex(ValueError, "sigma"):
            acc.compose(GaussianDpEvent(-2.0))
        self.assertEqual(acc.get_epsilon(d), eps)
        again = pickle.loads(pickle.dumps(acc))
        self.assertEqual(again.get_epsilon(d), eps)
        self.assertEqual(acc.compose(NonPrivateDpEvent()).get_epsilon(d),
                         math.inf)
        self.assertEqual(dpa.RdpAccountant().get_delta(1.0), 0.0)

    def test_step_loop_keeps_one_text(self):
        # compose(event) once per step: the texts fold into one count (as
        # the C accountant's groups), with the numbers of one compose(ev, n)
        ev = PoissonSampledDpEvent(0.01, GaussianDpEvent(1.0))
        for cls in (dpa.PLDAccountant, dpa.RdpAccountant):
            acc = cls()
            for _ in range(200):
                acc.compose(ev)
            self.assertEqual(acc.events, [
                "poisson-gaussian:q=0.01,sigma=1,count=200"])
            self.assertEqual(acc.get_epsilon(1e-5),
                             cls().compose(ev, 200).get_epsilon(1e-5))
            self.assertEqual(len(acc.entries), 200)
        acc = dpa.PLDAccountant().compose(ev).compose(GaussianDpEvent(9.0))
        acc.compose(ev)
        self.assertEqual(len(acc.events), 3)

    def test_accountant_property_from_texts(self):
        q, sigma, n, d = 0.01, 1.0, 500, 1e-5
        ev = SelfComposedDpEvent(PoissonSampledDpEvent(
            q, GaussianDpEvent(sigma)), n)
        acc = dpa.PLDAccountant(abs_accuracy=1e-4).compose(ev)
        inner = acc.accountant
        want = native((pldkit.PoissonGaussian(q, sigma), n)).epsilon(d)
        self.assertEqual(inner.epsilon(d).upper, want.upper)
        again = pickle.loads(pickle.dumps(inner))
        self.assertEqual(again.epsilon(d).upper, want.upper)
        # it composes further, and its pickle keeps that too
        inner.compose(pldkit.Gaussian(50.0))
        self.assertGreater(inner.epsilon(d).upper, want.upper)
        self.assertEqual(pickle.loads(pickle.dumps(inner)).epsilon(d).upper,
                         inner.epsilon(d).upper)
        self.assertEqual(dpa.PLDAccountant().accountant.num_groups, 0)


class FakeOptimizer:
    def __init__(self, noise_multiplier, accumulated_iterations=1):
        self.noise_multiplier = noise_multiplier
        self.accumulated_iterations = accumulated_iterations


class TestOpacus(unittest.TestCase):

    def test_history_len_and_native_numbers(self):
        acc = po.PLDAccountant()
        for s in (1.0, 1.0, 1.0, 2.0, 1.0):
            acc.step(noise_multiplier=s, sample_rate=0.01)
        self.assertEqual(acc.history, [(1.0, 0.01, 3), (2.0, 0.01, 1),
                                       (1.0, 0.01, 1)])
        self.assertEqual(len(acc), 3)
        self.assertEqual(acc.steps, 5)
        self.assertEqual(po.PLDAccountant.mechanism(), "pld")
        want = native((pldkit.PoissonGaussian(0.01, 1.0), 4),
                      (pldkit.PoissonGaussian(0.01, 2.0), 1)).epsilon(1e-5)
        self.assertEqual(acc.get_epsilon(1e-5), want.upper)
        self.assertEqual(acc.get_epsilon(delta=1e-5, eps_error=0.1),
                         want.upper)
        with self.assertRaises(TypeError):
            acc.get_epsilon(1e-5, no_such_option=1)
        self.assertEqual(po.PLDAccountant().get_epsilon(1e-5), 0.0)

    def test_gaussian_closed_form(self):
        # sample_rate 1: every step is a Gaussian with sigma = multiplier
        acc = po.PLDAccountant()
        for _ in range(9):
            acc.step(noise_multiplier=3.0, sample_rate=1.0)
        r = acc.epsilon(1e-5)
        truth = gauss_epsilon(math.sqrt(9) / 3.0, 1e-5)
        check_upper(self, r.upper, truth)
        self.assertLessEqual(r.lower, truth * (1 + REF))

    def test_state_dict_pickle_hook(self):
        acc = po.PLDAccountant(accuracy=1e-3)
        hook = acc.get_optimizer_hook_fn(sample_rate=0.005)
        for _ in range(20):
            hook(FakeOptimizer(1.1, accumulated_iterations=2))
        self.assertEqual(acc.history, [(1.1, 0.01, 20)])
        eps = acc.get_epsilon(1e-5)
        again = pickle.loads(pickle.dumps(acc))
        self.assertEqual(again.history, acc.history)
        self.assertEqual(again.get_epsilon(1e-5), eps)
        sd = acc.state_dict()
        fresh = po.PLDAccountant()
        fresh.load_state_dict(pickle.loads(pickle.dumps(sd)))
        self.assertEqual(fresh.get_epsilon(1e-5), eps)
        self.assertEqual(fresh.params, {"accuracy": 1e-3})
        # Opacus' own state_dict stores the classmethod itself
        opacus_style = {"history": [(1.1, 0.01, 20)],
                        "mechanism": po.PLDAccountant.mechanism}
        fresh.load_state_dict(opacus_style)
        self.assertEqual(fresh.history, [(1.1, 0.01, 20)])
        with self.assertRaisesRegex(ValueError, "rdp"):
            fresh.load_state_dict({"history": [], "mechanism": "rdp"})
        with self.assertRaisesRegex(ValueError, "history"):
            fresh.load_state_dict({"mechanism": "pld"})
        pickle.loads(pickle.dumps(acc.epsilon(1e-5)))

    def test_step_errors_name_the_argument(self):
        acc = po.PLDAccountant()
        with self.assertRaisesRegex(ValueError, "sample_rate=1.5"):
            acc.step(noise_multiplier=1.0, sample_rate=1.5)
        with self.assertRaisesRegex(ValueError, "noise_multiplier"):
            acc.step(noise_multiplier=-1.0, sample_rate=0.1)
        with self.assertRaises(TypeError):
            acc.step(1.0, 0.1)  # keyword-only, as in Opacus
        acc.step(noise_multiplier=0.0, sample_rate=0.1)
        self.assertEqual(acc.get_epsilon(1e-5), math.inf)

    def test_get_noise_multiplier(self):
        q, eps_t, delta, tol = 0.01, 2.0, 1e-5, 0.01
        s = po.get_noise_multiplier(target_epsilon=eps_t, target_delta=delta,
                                    sample_rate=q, epochs=2,
                                    epsilon_tolerance=tol)
        steps = int(2 / q)
        self.assertEqual(s, po.get_noise_multiplier(
            target_epsilon=eps_t, target_delta=delta, sample_rate=q,
            steps=steps, epsilon_tolerance=tol))
        got = native((pldkit.PoissonGaussian(q, s), steps)).epsilon(delta)
        self.assertLessEqual(got.upper, eps_t)
        self.assertGreaterEqual(got.upper, eps_t - tol)
        with self.assertRaises(ValueError):
            po.get_noise_multiplier(target_epsilon=1, target_delta=1e-5,
                                    sample_rate=q, epochs=1, steps=100)
        with self.assertRaises(ValueError):
            po.get_noise_multiplier(target_epsilon=1, target_delta=1e-5,
                                    sample_rate=q, steps=10,
                                    accountant="rdp")

    def test_get_noise_multiplier_never_below_the_true_sigma(self):
        # sample_rate 1, k steps: the true smallest sigma meeting eps_t has
        # mu = sqrt(k) / sigma = the mu whose closed-form epsilon is eps_t
        k, eps_t, delta = 16, 1.5, 1e-6
        lo, hi = 1e-3, 10.0
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            if gauss_epsilon(mid, delta) > eps_t:
                hi = mid
            else:
                lo = mid
        sigma_true = math.sqrt(k) / lo
        s = po.get_noise_multiplier(target_epsilon=eps_t, target_delta=delta,
                                    sample_rate=1.0, steps=k,
                                    epsilon_tolerance=0.005)
        self.assertGreaterEqual(s, sigma_true * (1 - 1e-9))
        self.assertLessEqual(s, sigma_true * 1.02)


class TestBinding(unittest.TestCase):

    def test_accountant_pickles_and_delta_keyword(self):
        acc = pldkit.Accountant(accuracy=1e-3)
        acc.compose(pldkit.PoissonGaussian(0.01, 1.0), 100)
        acc.compose(pldkit.PoissonGaussian(0.01, 1.0), 50)
        base = pldkit.Laplace(2.0)
        acc.compose(pldkit.PoissonSampled(base, 0.1), 3)
        base.close()
        member = pldkit.Accountant().compose(pldkit.Gaussian(2.0))
        acc.add_selection([member, pldkit.Accountant().compose(
            pldkit.Gaussian(3.0))], [0.25, 0.75])
        again = pickle.loads(pickle.dumps(acc))
        self.assertEqual(again.epsilon(1e-5).upper, acc.epsilon(1e-5).upper)
        self.assertEqual(again.params, acc.params)
        self.assertEqual(acc.get_epsilon(delta=1e-5),
                         acc.get_epsilon(target_delta=1e-5))
        self.assertEqual(acc.get_delta(epsilon=1.0), acc.get_delta(1.0))
        with self.assertRaises(TypeError):
            acc.get_epsilon()
        acc.close()
        with self.assertRaises(ValueError):
            pickle.dumps(acc)

    def test_errors_name_the_argument(self):
        with self.assertRaisesRegex(pldkit.InvalidArgument,
                                    r"q( = |=')1\.5'? must be in \(0, 1\]"):
            pldkit.PoissonGaussian(q=1.5, sigma=1.0)
        with self.assertRaisesRegex(pldkit.InvalidArgument, "sigma"):
            pldkit.Gaussian(sigma=-1.0)


if __name__ == "__main__":
    unittest.main()
