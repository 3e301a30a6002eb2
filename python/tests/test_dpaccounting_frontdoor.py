"""pldkit.dp_accounting as dp_accounting's users meet it:
calibrate_dp_mechanism(pldkit.dp_accounting.PLDAccountant, ...) on a
stand-in of dp_accounting 0.6.0's modules (standins/dp_accounting_standin.py)
and on the real package when it can be imported (it is no Debian package);
the ledger as a DpEvent; the REPLACE_ONE sensitivity warning; the refusals
with their reasons; PermuteAndFlipDpEvent's lower end against the exact
value of the pair the mechanism realizes (enumerated here)."""

import json
import math
import os
import subprocess
import sys
import tempfile
import unittest
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
PYDIR = os.path.normpath(os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "standins"))
sys.path.insert(0, PYDIR)

import dp_accounting_standin  # noqa: E402
import pldkit  # noqa: E402
import pldkit.dp_accounting as dpa  # noqa: E402

Q, STEPS, EPS, DELTA = 0.01, 300, 2.0, 1e-5

_SCRIPT = r'''
import json, sys
import dp_accounting
from dp_accounting import dp_event, mechanism_calibration, privacy_accountant
import pldkit.dp_accounting as dpa
Q, STEPS, EPS, DELTA = %r

def make_event(sigma):
    return dp_event.SelfComposedDpEvent(dp_event.PoissonSampledDpEvent(
        Q, dp_event.GaussianDpEvent(sigma)), STEPS)

out = {"real": not dp_accounting.__version__.endswith("standin")}
sigma = mechanism_calibration.calibrate_dp_mechanism(
    dpa.PLDAccountant, make_event, EPS, DELTA,
    mechanism_calibration.LowerEndpointAndGuess(0, 1))
out["sigma"] = sigma
acc = dpa.PLDAccountant()
out["isinstance"] = isinstance(acc, privacy_accountant.PrivacyAccountant)
out["empty_ledger_noop"] = isinstance(acc.ledger, dp_event.NoOpDpEvent)
out["relation_is_enum"] = (acc.neighboring_relation is
    privacy_accountant.NeighboringRelation.ADD_OR_REMOVE_ONE)
acc.compose(make_event(sigma))
out["eps_at_sigma"] = acc.get_epsilon(DELTA)
out["ledger_is_event"] = acc.ledger == make_event(sigma)
acc.compose(dp_event.GaussianDpEvent(3.0)).compose(dp_event.GaussianDpEvent(3.0))
out["ledger_composed"] = acc.ledger == dp_event.ComposedDpEvent([
    make_event(sigma), dp_event.SelfComposedDpEvent(dp_event.GaussianDpEvent(3.0), 2)])
out["rdp_supports"] = dpa.RdpAccountant().supports(make_event(sigma))
print(json.dumps(out))
''' % ((Q, STEPS, EPS, DELTA),)


def run_child(root):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (root, PYDIR, env.get("PYTHONPATH")) if p)
    p = subprocess.run([sys.executable, "-c", _SCRIPT], env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, timeout=900)
    if p.returncode != 0:
        raise AssertionError("child failed:\n" + p.stderr)
    return json.loads(p.stdout.strip().splitlines()[-1])


def pldkit_sigma():
    # pldkit's own calibration of the same run (its certified epsilon)
    return pldkit.dpsgd_noise_multiplier(target_epsilon=EPS,
                                         target_delta=DELTA,
                                         sample_rate=Q, steps=STEPS)


class TestCalibrate(unittest.TestCase):

    def check(self, out):
        self.assertTrue(out["isinstance"])
        self.assertTrue(out["empty_ledger_noop"])
        self.assertTrue(out["relation_is_enum"])
        self.assertTrue(out["ledger_is_event"])
        self.assertTrue(out["ledger_composed"])
        self.assertTrue(out["rdp_supports"])
        # the returned sigma meets the target with pldkit's certified
        # epsilon and agrees with pldkit's own calibration
        self.assertLessEqual(out["eps_at_sigma"], EPS)
        want = float(pldkit_sigma())
        self.assertAlmostEqual(out["sigma"], want, delta=2e-3 * want)
        # and a slightly smaller sigma misses it (the search is tight)
        ev = ("SelfComposedDpEvent", {"event": ("PoissonSampledDpEvent", {
            "sampling_probability": Q, "event": ("GaussianDpEvent", {
                "noise_multiplier": out["sigma"] * (1 - 1e-2)})}),
            "count": STEPS})
        self.assertGreater(dpa.PLDAccountant().compose(ev).get_epsilon(DELTA),
                           EPS)

    def test_standin(self):
        with tempfile.TemporaryDirectory() as tmp:
            dp_accounting_standin.write(tmp, dpa.EVENT_FIELDS)
            out = run_child(tmp)
        self.assertFalse(out["real"])
        self.check(out)

    def test_real_package_if_importable(self):
        probe = subprocess.run(
            [sys.executable, "-c", "import dp_accounting.mechanism_calibration"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if probe.returncode != 0:
            self.skipTest("dp_accounting is not importable (no Debian package)")
        out = run_child("")
        self.assertTrue(out["real"])
        self.check(out)


class TestLedgerWithoutDpAccounting(unittest.TestCase):

    def test_standin_classes(self):
        if "dp_accounting.dp_event" in sys.modules:
            self.skipTest("dp_accounting is imported in this process")
        C = dpa.DP_EVENT_CLASSES
        acc = dpa.PLDAccountant()
        self.assertEqual(acc.ledger, C["NoOpDpEvent"]())
        g = ("GaussianDpEvent", {"noise_multiplier": 2.0})
        acc.compose(g).compose(("NoOpDpEvent", {})).compose(g, 3)
        self.assertEqual(acc.ledger, C["SelfComposedDpEvent"](
            C["GaussianDpEvent"](2.0), 4))
        self.assertIsInstance(acc.ledger, dpa.DpEvent)
        acc.compose(("SelfComposedDpEvent", {"event": g, "count": 2}))
        self.assertEqual(acc.ledger.count, 6)
        self.assertEqual(C["DiscreteGaussianDpEvent"](3.0).dimension, None)
        with self.assertRaises(AttributeError):
            acc.ledger.count = 1
        # the canonical entries are still there
        self.assertEqual(len(acc.entries), 4)


class TestReplaceOneWarning(unittest.TestCase):

    def test_gaussian_under_replace_one_warns(self):
        g = ("GaussianDpEvent", {"noise_multiplier": 3.0})
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            dpa.PLDAccountant("REPLACE_ONE").compose(g)
            dpa.PLDAccountant("REPLACE_ONE").compose(
                ("SampledWithoutReplacementDpEvent", {
                    "source_dataset_size": 1000, "sample_size": 10,
                    "event": g}))
            dpa.PLDAccountant().compose(g)
            dpa.PLDAccountant("REPLACE_SPECIAL").compose(g)
        kinds = [x.category for x in w]
        self.assertEqual(kinds, [dpa.SensitivityConventionWarning] * 2)
        self.assertIn("sensitivity 2", str(w[0].message))

    def test_readme_migration_table_documents_it(self):
        with open(os.path.join(PYDIR, "README.md")) as f:
            text = f.read()
        self.assertIn("Migration from dp_accounting", text)
        self.assertIn("SensitivityConventionWarning", text)


class TestRefusals(unittest.TestCase):

    def test_each_missing_event_says_why(self):
        g = ("GaussianDpEvent", {"noise_multiplier": 1.0})
        cases = {
            "ZCDpEvent": ("ZCDpEvent", {"rho": 0.5, "xi": 0.0}),
            "RepeatAndSelectDpEvent": ("RepeatAndSelectDpEvent", {
                "event": g, "mean": 3.0, "shape": 1.0}),
            "SampledWithReplacementDpEvent": (
                "SampledWithReplacementDpEvent", {
                    "source_dataset_size": 1000, "sample_size": 10,
                    "event": g}),
        }
        for name, ev in cases.items():
            with self.subTest(event=name):
                acc = dpa.PLDAccountant()
                self.assertFalse(acc.supports(ev))
                with self.assertRaises(dpa.UnsupportedEventError) as cm:
                    acc.compose(("ComposedDpEvent", {"events": [g, ev]}))
                msg = str(cm.exception)
                self.assertIn("event.events[1]: %s is not supported by "
                              "pldkit: " % name, msg)
                self.assertIn(dpa.REFUSALS[name], msg)
                self.assertEqual(acc.entries, [])
        ps = ("PoissonSampledDpEvent", {"sampling_probability": 0.1,
                                        "event": g})
        self.assertTrue(dpa.PLDAccountant().supports(ps))
        with self.assertRaisesRegex(dpa.UnsupportedEventError,
                                    "under REPLACE_ONE: .*add/remove"):
            dpa.PLDAccountant("REPLACE_ONE").compose(ps)

    def test_truncated_subsampled_gaussian(self):
        # the catalogue's truncated-poisson (docs/samplers.md), the relation
        # as its adjacency: the same bracket as the event text, and a cap
        # no batch reaches is the Poisson-subsampled Gaussian bit for bit
        ev = ("TruncatedSubsampledGaussianDpEvent", {
            "dataset_size": 1000, "sampling_probability": 0.01,
            "truncated_batch_size": 20, "noise_multiplier": 1.0})
        acc = dpa.PLDAccountant()
        self.assertTrue(acc.supports(ev))
        got = acc.compose(ev, 50).get_epsilon(1e-5)
        want = pldkit.epsilon(
            1e-5, "truncated-poisson:n=1000,q=0.01,B=20,sigma=1,count=50")
        self.assertEqual(got, want.upper)
        wide = ("TruncatedSubsampledGaussianDpEvent", {
            "dataset_size": 100, "sampling_probability": 0.05,
            "truncated_batch_size": 100, "noise_multiplier": 1.2})
        ps = ("PoissonSampledDpEvent", {"sampling_probability": 0.05,
                                        "event": ("GaussianDpEvent", {
                                            "noise_multiplier": 1.2})})
        self.assertEqual(dpa.PLDAccountant().compose(wide, 30).get_epsilon(1e-5),
                         dpa.PLDAccountant().compose(ps, 30).get_epsilon(1e-5))

    def test_discrete_gaussian_dimension_none(self):
        ev = ("DiscreteGaussianDpEvent", {"sigma": 3.0, "sensitivity": 1.0,
                                          "dimension": None})
        with self.assertRaises(dpa.UnsupportedEventError) as cm:
            dpa.PLDAccountant().compose(ev)
        msg = str(cm.exception)
        self.assertIn("dimension=None", msg)
        self.assertNotIn("other than 1", msg)
        self.assertIn("pass dimension=1", msg)
        one = ("DiscreteGaussianDpEvent", {"sigma": 3.0, "sensitivity": 1.0,
                                           "dimension": 1})
        self.assertGreater(dpa.PLDAccountant().compose(one).get_delta(0.1),
                           0)


def pair_delta(p, q, n, eps):
    """Exact delta(eps) of n compositions of the two-outcome pair (p, q)
    (P||Q), by the binomial sum over how many runs gave outcome 2."""
    l1, l2 = math.log(p[0] / q[0]), math.log(p[1] / q[1])
    total = 0.0
    for k in range(n + 1):
        loss = (n - k) * l1 + k * l2
        if loss > eps:
            prob = math.comb(n, k) * p[0] ** (n - k) * p[1] ** k
            total += prob * -math.expm1(eps - loss)
    return total


class TestPermuteAndFlip(unittest.TestCase):

    def test_lower_end_is_below_the_realized_pair(self):
        for eps0, n, eps in ((1.0, 10, 5.0), (0.5, 40, 6.0), (2.0, 3, 1.0)):
            with self.subTest(eps0=eps0, n=n):
                e, h = math.exp(-eps0), math.exp(-eps0 / 2)
                pairs = (((0.5, 0.5), (1 - e / 2, e / 2)),       # edge
                         ((h / 2, 1 - h / 2), (1 - h / 2, h / 2)))  # swap
                exact = max(max(pair_delta(P, Q, n, eps),
                                pair_delta(Q, P, n, eps)) for P, Q in pairs)
                acc = dpa.PLDAccountant().compose(
                    ("PermuteAndFlipDpEvent", {"epsilon": eps0}), n)
                r = acc.delta(eps)
                self.assertLessEqual(r.lower, exact * (1 + 1e-12))
                self.assertGreaterEqual(r.lower, exact * (1 - 2e-2))
                # the upper end: the eps0-DP pair's (randomized response
                # with e^eps0 odds), at or above its exact value
                a = math.exp(eps0) / (1 + math.exp(eps0))
                rr = pair_delta((a, 1 - a), (1 - a, a), n, eps)
                self.assertGreaterEqual(r.upper, rr * (1 - 1e-12))
                self.assertLessEqual(r.upper, rr * 1.02 + 1e-12)
                self.assertEqual(r.width_limit, "mechanism")
                self.assertEqual(acc.get_delta(eps), r.upper)
                # both pairs are thresholds of the Laplace(1/eps0) pair,
                # dp_accounting 0.6.0's model of P&F: the lower end is
                # below its certified upper end (the 4.99173 was
                # above dp_accounting's 4.98996)
                lap = pldkit.events.delta(eps, "laplace:b=%r,count=%d"
                                          % (1 / eps0, n))
                self.assertLessEqual(r.lower, lap.upper)

    def test_realized_pair_from_the_definition(self):
        # P&F on two candidates, simulated from Alg. 1 by exact enumeration
        # of the two visiting orders
        eps0 = 0.7
        def pf(scores):
            best = max(scores)
            acc = [math.exp(eps0 * (s - best) / 2) for s in scores]
            out = [0.0, 0.0]
            for first in (0, 1):
                second = 1 - first
                out[first] += 0.5 * acc[first]
                out[second] += 0.5 * (1 - acc[first]) * acc[second]
            return tuple(out)
        P, Q = dpa.permute_and_flip_pair(eps0)
        for got, want in zip(P + Q, pf((0, 0)) + pf((1, -1))):
            self.assertAlmostEqual(got, want, delta=1e-12)
        self.assertGreaterEqual(Q[1], pf((1, -1))[1])   # rounded up
        P, Q = dpa.permute_and_flip_pair(eps0, "swap")
        for got, want in zip(P + Q, pf((0, 1)) + pf((1, 0))):
            self.assertAlmostEqual(got, want, delta=1e-12)
        self.assertGreaterEqual(P[0], pf((0, 1))[0])    # rounded up
        # the swap pair's total variation is the largest of two candidates
        tv = max(abs(pf((d, 0))[0] - pf((d + 2, 0))[0])
                 for d in [k / 100 - 3 for k in range(401)])
        self.assertAlmostEqual(abs(P[0] - Q[0]), tv, delta=1e-9)

    def test_poisson_sampled_and_composed(self):
        pf = ("PermuteAndFlipDpEvent", {"epsilon": 1.0})
        acc = dpa.PLDAccountant().compose(("ComposedDpEvent", {"events": [
            ("GaussianDpEvent", {"noise_multiplier": 2.0}),
            ("PoissonSampledDpEvent", {"sampling_probability": 0.1,
                                       "event": pf})]}), 20)
        r = acc.epsilon(1e-5)
        # the lower end is that of the realized pair's composition
        lo = max(pldkit.events.epsilon(
            1e-5, "gaussian:sigma=2,count=20",
            "poisson-sampled:q=0.1,count=20[%s]" % dpa._pf_text(1.0, k)).lower
            for k in dpa.PF_PAIRS)
        self.assertEqual(r.lower, lo)
        self.assertLess(r.lower, r.upper)


if __name__ == "__main__":
    unittest.main()


def gauss_eps(mu, delta):
    """epsilon(delta) of mu-GDP (Balle & Wang 2018), by bisection."""
    phi = lambda x: 0.5 * math.erfc(-x / math.sqrt(2.0))
    d = lambda e: phi(-e / mu + mu / 2) - math.exp(e) * phi(-e / mu - mu / 2)
    lo, hi = 0.0, 1.0
    while d(hi) > delta:
        hi *= 2
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if d(mid) > delta else (lo, mid)
    return hi


class TestZCDpInRdp(unittest.TestCase):

    def test_zcdp_between_the_gaussian_and_the_classic_conversion(self):
        for rho, xi, n in ((0.5, 0.0, 3), (0.01, 0.0, 200), (0.1, 0.05, 4)):
            with self.subTest(rho=rho, xi=xi, n=n):
                acc = dpa.RdpAccountant().compose(
                    ("ZCDpEvent", {"rho": rho, "xi": xi}), n)
                eps = acc.get_epsilon(1e-5)
                # sound for every (xi, rho)-zCDP mechanism, so not below
                # the Gaussian that is rho-zCDP (mu^2 / 2 = n rho) ...
                self.assertGreaterEqual(eps, gauss_eps(math.sqrt(2 * n * rho),
                                                       1e-5))
                # ... and not above the classic conversion of its curve
                classic = min(n * (xi + rho * a) + math.log(1e5) / (a - 1)
                              for a in acc._curve.orders)
                self.assertLessEqual(eps, classic * (1 + 1e-12))
                if xi == 0:
                    # the same curve as n Gaussians of sigma^2 = 1 / (2 rho)
                    g = dpa.RdpAccountant().compose(("GaussianDpEvent", {
                        "noise_multiplier": math.sqrt(1 / (2 * rho))}), n)
                    self.assertAlmostEqual(eps, g.get_epsilon(1e-5),
                                           delta=1e-12 * eps)
                    self.assertGreaterEqual(eps, g.get_epsilon(1e-5) *
                                            (1 - 1e-15))

    def test_composed_with_library_events_and_refused_by_pld(self):
        z = ("ZCDpEvent", {"rho": 0.1, "xi": 0.0})
        ps = ("PoissonSampledDpEvent", {"sampling_probability": 0.01,
                                        "event": ("GaussianDpEvent",
                                                  {"noise_multiplier": 1.0})})
        both = dpa.RdpAccountant().compose(("ComposedDpEvent", {
            "events": [z, ps]}), 100)
        alone = dpa.RdpAccountant().compose(ps, 100)
        self.assertGreater(both.get_epsilon(1e-5), alone.get_epsilon(1e-5))
        self.assertEqual(both.events, alone.events)
        again = __import__("pickle").loads(__import__("pickle").dumps(both))
        self.assertEqual(again.get_epsilon(1e-5), both.get_epsilon(1e-5))
        self.assertTrue(dpa.RdpAccountant().supports(z))
        self.assertFalse(dpa.PLDAccountant().supports(z))
        with self.assertRaisesRegex(dpa.UnsupportedEventError,
                                    "RdpAccountant accounts zCDP"):
            dpa.PLDAccountant().compose(z)
        with self.assertRaises(ValueError):
            dpa.RdpAccountant().compose(("ZCDpEvent", {"rho": -1.0,
                                                       "xi": 0.0}))

    def test_discrete_gaussian_any_dimension_in_rdp(self):
        for dim in (None, 5):
            ev = ("DiscreteGaussianDpEvent", {"sigma": 3.0,
                                              "sensitivity": 2.0,
                                              "dimension": dim})
            eps = dpa.RdpAccountant().compose(ev, 7).get_epsilon(1e-6)
            g = dpa.RdpAccountant().compose(("GaussianDpEvent", {
                "noise_multiplier": 1.5}), 7).get_epsilon(1e-6)
            self.assertAlmostEqual(eps, g, delta=1e-12 * g)
            self.assertGreaterEqual(eps, gauss_eps(math.sqrt(7) / 1.5, 1e-6))


class TestTreeAggregation(unittest.TestCase):

    @staticmethod
    def nodes_per_record(T):
        """The most dyadic intervals [k 2^j + 1, (k + 1) 2^j] inside [1, T]
        that hold one step t, by enumeration."""
        best = 0
        for t in range(1, T + 1):
            n, j = 0, 0
            while 2 ** j <= T:
                k = (t - 1) // 2 ** j
                if (k + 1) * 2 ** j <= T:
                    n += 1
                j += 1
            best = max(best, n)
        return best

    def test_depth(self):
        for T in range(0, 70):
            self.assertEqual(dpa._tree_depth(T, "t"), self.nodes_per_record(T))
            if T:   # dp_accounting's ceil(log2(T + 1))
                self.assertEqual(dpa._tree_depth(T, "t"),
                                 math.ceil(math.log2(T + 1)))
        self.assertEqual(dpa._tree_depth([3, 8, 5], "t"), 4)

    def test_gaussian_closed_form(self):
        t = ("SingleEpochTreeAggregationDpEvent",
             {"noise_multiplier": 2.0, "step_counts": 7})   # depth 3
        acc = dpa.PLDAccountant().compose(t, 5)
        mu = math.sqrt(5 * 3) / 2.0
        phi = lambda x: 0.5 * math.erfc(-x / math.sqrt(2.0))
        for eps in (0.5, 1.0, 3.0):
            truth = phi(-eps / mu + mu / 2) - math.exp(eps) * phi(
                -eps / mu - mu / 2)
            r = acc.delta(eps)
            self.assertGreaterEqual(r.upper, truth * (1 - 1e-12))
            self.assertLessEqual(r.upper, truth * (1 + 1e-2))
            self.assertLessEqual(r.lower, truth * (1 + 1e-12))
        # RDP: the Gaussian's curve, alpha depth n / (2 sigma^2)
        rdp = dpa.RdpAccountant().compose(t, 5)
        eps = rdp.get_epsilon(1e-5)
        classic = min(a * 3 * 5 / 8 + math.log(1e5) / (a - 1)
                      for a in rdp._curve.orders)
        self.assertLessEqual(eps, classic * (1 + 1e-12))
        self.assertGreaterEqual(eps, gauss_eps(mu, 1e-5))
        # no steps: nothing; under sampling: refused with the reason
        self.assertEqual(dpa.PLDAccountant().compose((
            "SingleEpochTreeAggregationDpEvent",
            {"noise_multiplier": 2.0, "step_counts": [0, 0]})).get_epsilon(
                1e-5), 0.0)
        with self.assertRaisesRegex(dpa.UnsupportedEventError,
                                    "where it is composed"):
            dpa.PLDAccountant().compose(("PoissonSampledDpEvent", {
                "sampling_probability": 0.1, "event": t}))
        with self.assertRaises(ValueError):
            dpa.PLDAccountant().compose((
                "SingleEpochTreeAggregationDpEvent",
                {"noise_multiplier": 1.0, "step_counts": [2.5]}))
        with self.assertWarns(dpa.SensitivityConventionWarning):
            dpa.PLDAccountant("REPLACE_ONE").compose(t)
        # the ledger keeps the event as composed
        self.assertEqual(acc.entries[0][0][0],
                         "SingleEpochTreeAggregationDpEvent")
