"""Tests of the pldkit Python binding (unittest; pytest-compatible).

Run from the repository root:

    PYTHONPATH=python python3 -m unittest discover -s python/tests -v

The library is the one pldkit finds (PLDKIT_LIBRARY, else build/).  The CLI
used for the parity checks is $PLDKIT_CLI, else the `pldkit` next to the
loaded library; parity tests are skipped when neither exists.
PLDKIT_TEST_HIDE_NUMPY=1 runs the whole suite as if numpy were not
installed (TestNumpy also does so for a part of it in any case).
"""

import contextlib
import ctypes
import gc
import json
import math
import os
import pickle
import resource
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.normpath(os.path.join(HERE, "..")))

if os.environ.get("PLDKIT_TEST_HIDE_NUMPY"):
    # the whole suite as on a machine without numpy
    sys.modules["numpy"] = None

import pldkit  # noqa: E402
from pldkit import _lib  # noqa: E402

try:
    import numpy as np
except ImportError:
    np = None

EINVAL_MSG = pldkit.strerror(pldkit.status.EINVAL)


class _MallInfo2(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
        "fsmblks", "uordblks", "fordblks", "keepcost")]


try:
    MALLINFO2 = ctypes.CDLL(None).mallinfo2
    MALLINFO2.restype = _MallInfo2
    MALLINFO2.argtypes = []
except (AttributeError, OSError):
    MALLINFO2 = None


def heap_in_use():
    """Bytes of the C heap in use (malloc'd and mmap'd chunks)."""
    gc.collect()
    m = MALLINFO2()
    return m.uordblks + m.hblkhd


def _raise(*args):
    raise KeyError("from build_fn")


def _find_cli():
    cli = os.environ.get("PLDKIT_CLI")
    if cli:
        return cli
    d = os.path.dirname(os.path.abspath(pldkit.library_path))
    cand = os.path.join(d, "pldkit")
    return cand if os.access(cand, os.X_OK) else None


CLI = _find_cli()

# Set by tests/test_python.sh for a library built with ASan: its allocator
# quarantines freed memory, so heap and RSS measurements mean nothing.
SANITIZED = bool(os.environ.get("PLDKIT_TEST_SANITIZED"))


def cli(*args):
    """Run the CLI with --json; return the parsed object."""
    args = [str(a) for a in args]
    out = subprocess.run([CLI, args[0], "--json"] + args[1:],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         env=dict(os.environ, LC_ALL="C"), check=False)
    if out.returncode != 0:
        raise AssertionError("pldkit %s failed (%d): %s"
                             % (" ".join(map(str, args)), out.returncode,
                                out.stderr.decode()))
    return json.loads(out.stdout.decode())


def num(x):
    return math.inf if x == "inf" else float(x)


def r(x):
    """A float as the CLI must read it back exactly (shortest repr)."""
    return repr(float(x))


@contextlib.contextmanager
def numpy_hidden():
    """Make numpy unimportable (sys.modules trick) for the block."""
    saved = sys.modules.get("numpy", None)
    had = "numpy" in sys.modules
    sys.modules["numpy"] = None
    try:
        yield
    finally:
        if had:
            sys.modules["numpy"] = saved
        else:
            del sys.modules["numpy"]


# --------------------------------------------------------------------------
# Independent Gaussian closed form (Balle & Wang 2018), pure Python.

def phi(x):
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def log_phi(x):
    """log Phi(x), also where Phi(x) underflows (asymptotic series)."""
    if x > -30.0:
        return math.log(phi(x))
    y = 1.0 / (x * x)
    return (-0.5 * x * x - math.log(-x) - 0.5 * math.log(2 * math.pi)
            + math.log1p(-y + 3 * y * y - 15 * y ** 3 + 105 * y ** 4))


def gauss_delta(mu, eps):
    return (phi(mu / 2 - eps / mu)
            - math.exp(eps + log_phi(-mu / 2 - eps / mu)))


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
    return 0.5 * (lo + hi)


# --------------------------------------------------------------------------

class TestLoading(unittest.TestCase):
    def test_library_and_version(self):
        self.assertTrue(pldkit.library_path)
        self.assertRegex(pldkit.__version__, r"^\d+\.\d+\.\d+")
        self.assertEqual(pldkit.library_version(), pldkit.__version__)

    def test_struct_layouts(self):
        # pld_params_default through our struct gives the documented values,
        # so the field offsets agree with the header.
        p = pldkit.Accountant().params
        self.assertEqual(p, {"discretization": 0.0, "accuracy": 2e-3,
                             "abs_accuracy": 1e-4, "tail_mass": 0.0,
                             "max_grid": 1 << 23})
        # the last field too (delta_floor, default 0) through the struct
        raw = _lib.Params()
        raw.delta_floor = 0.5
        _lib.lib.pld_params_default(ctypes.byref(raw))
        self.assertEqual(raw.delta_floor, 0.0)
        self.assertEqual(raw.fftw_flags, 0x40)
        if ctypes.sizeof(ctypes.c_void_p) == 8:
            self.assertEqual(ctypes.sizeof(_lib.Params), 56)
            self.assertEqual(ctypes.sizeof(_lib.Result), 64)
            self.assertEqual(ctypes.sizeof(_lib.Calibration), 88)
            self.assertEqual(ctypes.sizeof(_lib.PmfView), 48)
            self.assertEqual(ctypes.sizeof(_lib.Curve), 56)
            self.assertEqual(ctypes.sizeof(_lib.RdpResult), 32)

    def test_every_function_declared(self):
        for name in _lib._CORE:
            f = getattr(_lib.lib, name)
            self.assertIsNotNone(f.argtypes, name)

    def test_env_var_pointing_nowhere(self):
        code = "import pldkit"
        env = dict(os.environ, PLDKIT_LIBRARY="/nonexistent/libpldkit.so",
                   PYTHONPATH=os.path.normpath(os.path.join(HERE, "..")))
        out = subprocess.run([sys.executable, "-c", code], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.assertNotEqual(out.returncode, 0)
        self.assertIn(b"LibraryNotFound", out.stderr)
        self.assertIn(b"PLDKIT_LIBRARY", out.stderr)


@unittest.skipIf(CLI is None, "pldkit CLI not found (set PLDKIT_CLI)")
class TestCliParity(unittest.TestCase):
    """Each binding gives the same numbers as the CLI for the same question
    (exactly: the same library, the same inputs)."""

    CASES = [
        (lambda: pldkit.Gaussian(1.0), 1000, "gaussian:sigma=1,count=1000"),
        (lambda: pldkit.Gaussian(2.0, 0.5), 3,
         "gaussian:sigma=2,sensitivity=0.5,count=3"),
        (lambda: pldkit.Laplace(1.0), 10, "laplace:b=1,count=10"),
        (lambda: pldkit.DiscreteLaplace(2.0, 1), 5,
         "discrete-laplace:scale=2,sensitivity=1,count=5"),
        (lambda: pldkit.DiscreteGaussian(2.0, 2), 5,
         "discrete-gaussian:sigma=2,sensitivity=2,count=5"),
        (lambda: pldkit.RandomizedResponse(0.5, 4), 20,
         "randomized-response:epsilon=0.5,k=4,count=20"),
        (lambda: pldkit.FinitePair([0.5, 0.5], [0.25, 0.75]), 10,
         "finite:p=0.5;0.5,q=0.25;0.75,count=10"),
        (lambda: pldkit.PoissonGaussian(0.01, 1.0), 1000,
         "poisson-gaussian:q=0.01,sigma=1,count=1000"),
        (lambda: pldkit.PoissonSampled(pldkit.Gaussian(1.0), 0.01), 1000,
         "poisson-gaussian:q=0.01,sigma=1,count=1000"),
        (lambda: pldkit.PoissonLaplace(0.1, 2.0), 50,
         "poisson-laplace:q=0.1,b=2,count=50"),
        (lambda: pldkit.GaussianMixture(1.0, p_weights=[0.5, 0.5], p_means=[0, 1],
                                       q_weights=[1], q_means=[0]),
         10, "mixture-gaussian:sigma=1,p-means=0;1,p-weights=0.5;0.5,"
         "q-means=0,q-weights=1,count=10"),
        (lambda: pldkit.WorGaussian(10, 1000, 1.0), 100,
         "wor-gaussian:batch=10,n=1000,sigma=1,count=100"),
    ]

    def _check(self, acc, events, extra=()):
        with acc:
            a = acc.epsilon(1e-5)
            j = cli("epsilon", "--delta", "1e-5", *(list(extra) + events))
            self.assertEqual(a.upper, num(j["epsilon_upper"]), events)
            self.assertEqual(a.lower, num(j["epsilon_lower"]), events)
            self.assertEqual(a.discretization, j["discretization"])
            self.assertEqual(a.grid_size, j["grid_size"])
            self.assertEqual(a.fft_size, j["fft_size"])
            self.assertEqual(a.refinements, j["refinements"])
            self.assertEqual(a.closed_form, j["closed_form"])
            self.assertEqual(a.met_accuracy, j["met_accuracy"])
            self.assertLessEqual(a.lower, a.upper)
            d = acc.delta(1.0)
            j = cli("delta", "--epsilon", "1", *(list(extra) + events))
            self.assertEqual(d.upper, j["delta_upper"], events)
            self.assertEqual(d.lower, j["delta_lower"], events)
            self.assertLessEqual(d.lower, d.upper)

    def test_each_mechanism(self):
        for make, count, event in self.CASES:
            with self.subTest(event=event):
                m = make()
                acc = pldkit.Accountant().compose(m, count)
                m.close()  # the accountant holds a copy
                self._check(acc, [event])

    def test_several_events_and_options(self):
        acc = pldkit.Accountant(accuracy=1e-3, tail_mass=1e-15)
        acc.compose(pldkit.Gaussian(3.0), 5)
        acc.compose(pldkit.Laplace(2.0), 4).compose(pldkit.Laplace(2.0))
        self.assertEqual(acc.num_groups, 2)
        self._check(acc, ["gaussian:sigma=3,count=5", "laplace:b=2,count=5"],
                    ["--accuracy", "1e-3", "--tail-mass", "1e-15"])
        acc = pldkit.Accountant(discretization=1e-3)
        acc.compose(pldkit.PoissonLaplace(0.5, 1.0), 20)
        self._check(acc, ["poisson-laplace:q=0.5,b=1,count=20"],
                    ["--discretization", "1e-3"])

    def test_random_selection(self):
        a = pldkit.Accountant().compose(pldkit.Gaussian(2.0), 10)
        b = pldkit.Accountant().compose(pldkit.Gaussian(8.0), 10)
        acc = pldkit.Accountant().add_selection([a, b], [0.3, 0.7], count=2)
        a.close()
        b.close()
        self._check(acc, ["random-selection:weights=0.3;0.7,count=2"
                          "[gaussian:sigma=2,count=10|gaussian:sigma=8,"
                          "count=10]"])

    def test_random_selection_of_mechanisms(self):
        # the CLI's random-participation (WCS) is this selection
        p, q, sigma = 0.3, 0.05, 1.2
        m = pldkit.RandomSelection(
            [pldkit.FinitePair([1.0], [1.0]),
             pldkit.PoissonGaussian(q, sigma, 1.0)], [1 - p, p])
        acc = pldkit.Accountant().compose(m, 100)
        self._check(acc, ["random-participation:p=%s,q=%s,d=10,C=1,sigma=%s,"
                          "count=100" % (r(p), r(q), r(sigma))])

    def test_curve(self):
        eps = [0.0, 0.5, 1.0, 1.5, 2.0]
        with pldkit.Accountant() as acc:
            acc.compose(pldkit.Laplace(1.0), 3)
            c = acc.curve(eps)
            j = cli("curve", "--epsilon-range", "0:2:5", "laplace:b=1,count=3")
        self.assertEqual(c.epsilons, j["epsilon"])
        self.assertEqual(c.lower, j["delta_lower"])
        self.assertEqual(c.upper, j["delta_upper"])
        self.assertEqual(c.discretization, j["discretization"])
        self.assertEqual(c.grid_size, j["grid_size"])
        self.assertIsInstance(c.upper, list)
        for e, b in c:
            self.assertLessEqual(b.lower, b.upper)

    def test_dpsgd(self):
        q = 256 / 60000
        eps = pldkit.dpsgd_epsilon(1.1, q, 14063, 1e-5)
        acc = pldkit.Accountant()
        for _ in range(14063):  # Opacus style: one call per training step
            acc.step(noise_multiplier=1.1, sample_rate=q)
        self.assertEqual(acc.num_groups, 1)
        self.assertEqual(acc.get_epsilon(1e-5), eps)
        j = cli("epsilon", "--delta", "1e-5",
                "poisson-gaussian:q=%s,sigma=1.1,count=14063" % r(q))
        self.assertEqual(eps, j["epsilon_upper"])
        self.assertTrue(2.37 < eps < 2.39, eps)

    def test_calibrate(self):
        def build(sigma):
            return pldkit.Accountant().compose(
                pldkit.PoissonGaussian(0.02, sigma), 200)
        c = pldkit.calibrate(build, 2.0, 1e-5)
        j = cli("calibrate", "--epsilon", "2", "--delta", "1e-5",
                "poisson-gaussian:q=0.02,sigma=?,count=200")
        self.assertEqual(c.param, j["value"])
        self.assertEqual(c.param_fail, j["value_fail"])
        self.assertEqual(c.evaluations, j["evaluations"])
        self.assertEqual(c.result.upper, j["epsilon_upper"])

    def test_saved_pld_as_event(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "ledger.pld")
            with pldkit.Laplace(1.0).to_pld(1e-3) as pld:
                pld.save(path)
                acc = pldkit.Accountant().add_pld(pld, 3)
            help_text = subprocess.run([CLI, "--help"], stdout=subprocess.PIPE
                                       ).stdout.decode()
            if "pld:" not in help_text and "pld\n" not in help_text:
                acc.close()
                self.skipTest("this CLI has no pld:file= event")
            self._check(acc, ["pld:file=%s,count=3" % path])


class TestGaussianClosedForm(unittest.TestCase):
    def test_against_python(self):
        for sigma, count in [(1.0, 1), (1.0, 1000), (0.5, 10), (5.0, 3)]:
            mu = math.sqrt(count) / sigma
            with pldkit.Accountant() as acc:
                acc.compose(pldkit.Gaussian(sigma), count)
                for delta in (1e-3, 1e-5, 1e-9):
                    res = acc.epsilon(delta)
                    self.assertTrue(res.closed_form)
                    self.assertEqual(res.discretization, 0.0)
                    ref = gauss_epsilon(mu, delta)
                    self.assertLessEqual(res.lower, res.upper)
                    self.assertAlmostEqual(res.upper / ref, 1.0, delta=1e-9)
                for eps in (0.0, 0.5, 2.0):
                    res = acc.delta(eps)
                    ref = gauss_delta(mu, eps)
                    self.assertLessEqual(res.lower, res.upper)
                    self.assertLess(abs(res.upper - ref), 1e-12 + 1e-9 * ref)

    def test_gaussians_merge(self):
        acc = pldkit.Accountant()
        acc.compose(pldkit.Gaussian(1.0), 2).compose(pldkit.Gaussian(2.0, 3.0))
        mu = math.sqrt(2 * 1.0 + (3.0 / 2.0) ** 2)
        self.assertAlmostEqual(acc.get_epsilon(1e-6) / gauss_epsilon(mu, 1e-6),
                               1.0, delta=1e-9)

    def test_mechanism_delta(self):
        g = pldkit.Gaussian(1.3, 0.7)
        mu = 0.7 / 1.3
        self.assertAlmostEqual(g.gaussian_mu, mu, delta=1e-15)
        for eps in (0.0, 0.3, 1.0):
            for d in ("remove", "add", "both"):
                self.assertAlmostEqual(g.delta(eps, d), gauss_delta(mu, eps),
                                       delta=1e-13)
        self.assertIsNone(pldkit.Laplace(1.0).gaussian_mu)
        self.assertTrue(g.equals(pldkit.Gaussian(1.3, 0.7)))
        self.assertFalse(g.equals(pldkit.Gaussian(1.3, 0.8)))

    def test_pld_brackets_gaussian(self):
        with pldkit.Gaussian(1.0).to_pld(1e-3) as pld:
            composed = pld.self_compose(10)
            ref = gauss_epsilon(math.sqrt(10.0), 1e-5)
            b = composed.epsilon(1e-5)
            self.assertLessEqual(b.lower, ref * (1 + 1e-9))
            self.assertGreaterEqual(b.upper, ref * (1 - 1e-9))
            db = composed.delta(1.0)
            ref = gauss_delta(math.sqrt(10.0), 1.0)
            self.assertLessEqual(db.lower, ref)
            self.assertGreaterEqual(db.upper, ref)


class TestPLD(unittest.TestCase):
    def test_compose_matches_accountant(self):
        lap = pldkit.Laplace(1.0)
        one = lap.to_pld(1e-3)
        three = one.compose(one).compose(one)
        via_self = one.self_compose(3)
        acc = pldkit.Accountant(discretization=1e-3).compose(lap, 3)
        via_acc = acc.compose_pld(1e-3)
        for p in (three, via_self, via_acc):
            b = p.epsilon(1e-6)
            self.assertLessEqual(b.lower, b.upper)
            self.assertAlmostEqual(b.upper, 3.0 * 1.0 if b.upper < 3 else
                                   b.upper, delta=0.1)
        # the accountant composes tilted measures (docs/design.md 5a): the
        # same grid's bracket, narrower by at most the untilted round-off
        b_pld, b_acc = via_acc.epsilon(1e-6), acc.epsilon(1e-6).bracket
        self.assertGreaterEqual(b_acc.lower, b_pld.lower - 1e-12)
        self.assertLessEqual(b_acc.upper, b_pld.upper + 1e-12)
        self.assertLessEqual(b_pld.upper - b_acc.upper, 1e-6 * b_pld.upper)
        self.assertLessEqual(b_acc.lower - b_pld.lower, 1e-6 * b_pld.upper)
        # pure Laplace: eps(0) = 3/b exactly for 3 compositions
        self.assertAlmostEqual(three.delta(3.0).upper, 0.0, delta=1e-9)
        self.assertEqual(three.discretization, 1e-3)
        self.assertGreater(three.grid_size, 0)

    def test_identity_and_incompatible(self):
        ident = pldkit.PLD.identity(1e-2)
        self.assertEqual(ident.delta(0.0).upper, 0.0)
        other = pldkit.Laplace(1.0).to_pld(1e-3)
        with self.assertRaises(pldkit.IncompatibleGrids) as cm:
            ident.compose(other)
        self.assertEqual(cm.exception.code, pldkit.status.EINCOMPAT)

    def test_mix(self):
        a = pldkit.Laplace(1.0).to_pld(1e-3)
        b = pldkit.Laplace(4.0).to_pld(1e-3)
        m = pldkit.PLD.mix([a, b], [0.25, 0.75])
        for eps in (0.1, 0.5):
            want = 0.25 * a.delta(eps).upper + 0.75 * b.delta(eps).upper
            self.assertAlmostEqual(m.delta(eps).upper, want, delta=1e-9)
        with self.assertRaises(pldkit.InvalidArgument):
            pldkit.PLD.mix([a, b], [0.5, 0.6])

    def test_curve_and_view(self):
        pld = pldkit.DiscreteLaplace(1.0).to_pld(0.5)
        c = pld.curve([0.0, 0.5, 1.0])
        self.assertEqual(len(c), 3)
        for i, e in enumerate(c.epsilons):
            for x, y in zip(c[i], pld.delta(e)):
                self.assertAlmostEqual(x, y, delta=1e-12)
        self.assertIsNone(c.met_accuracy)
        v = pld.view("remove", "pessimistic", as_numpy=False)
        self.assertIsInstance(v.masses, list)
        self.assertAlmostEqual(sum(v.masses) + v.inf_mass, 1.0, delta=1e-9)
        v2 = pld.view("add", "optimistic")
        self.assertLessEqual(sum(v2.masses), 1.0 + 1e-9)
        with self.assertRaises(ValueError):
            pld.view("sideways")

    def test_files_and_pickle(self):
        pld = pldkit.PoissonLaplace(0.2, 1.0).to_pld(1e-3).self_compose(5)
        data = pld.serialize()
        self.assertEqual(data[:8], b"PLDKITv\0")
        again = pldkit.PLD.deserialize(data)
        self.assertEqual(again.epsilon(1e-6), pld.epsilon(1e-6))
        self.assertEqual(pickle.loads(pickle.dumps(pld)).delta(0.5),
                         pld.delta(0.5))
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "x.pld")
            pld.save(path)
            self.assertEqual(pldkit.PLD.load(path).epsilon(1e-6),
                             pld.epsilon(1e-6))
            with open(path, "rb") as f:
                raw = f.read()
            with self.assertRaises(pldkit.FormatError) as cm:
                pldkit.PLD.deserialize(raw[:-1])
            self.assertEqual(cm.exception.message,
                             pldkit.strerror(pldkit.status.EFORMAT))
            bad = bytearray(raw)
            bad[-20] ^= 0x55
            with self.assertRaises(pldkit.FormatError):
                pldkit.PLD.deserialize(bytes(bad))
            with self.assertRaises(pldkit.FormatError):
                pldkit.PLD.deserialize(b"")
            with self.assertRaises(pldkit.FileError) as cm:
                pldkit.PLD.load(os.path.join(tmp, "missing.pld"))
            self.assertIn("missing.pld", str(cm.exception))

    def test_accountant_with_loaded_ledger(self):
        ledger = pldkit.Laplace(2.0).to_pld(1e-3).self_compose(4)
        acc = pldkit.Accountant().add_pld(ledger).compose(
            pldkit.Laplace(2.0), 4)
        both = ledger.self_compose(2)
        # Two composition paths (pairwise FFT vs self-composition) book
        # different round-off slack: equal to 1e-6, and brackets overlap.
        a, b = acc.epsilon(1e-6), both.epsilon(1e-6)
        self.assertAlmostEqual(a.upper, b.upper, delta=1e-6)
        self.assertLessEqual(a.lower, b.upper)
        self.assertLessEqual(b.lower, a.upper)
        with self.assertRaises(pldkit.IncompatibleGrids):
            pldkit.Accountant().add_pld(ledger).add_pld(
                pldkit.Laplace(2.0).to_pld(2e-3))


class TestErrors(unittest.TestCase):
    def assertEinval(self, fn, *args, **kwargs):
        with self.assertRaises(pldkit.InvalidArgument) as cm:
            fn(*args, **kwargs)
        e = cm.exception
        self.assertEqual(e.code, pldkit.status.EINVAL)
        self.assertEqual(e.message, EINVAL_MSG)
        self.assertIn(EINVAL_MSG, str(e))
        self.assertIsInstance(e, pldkit.PldkitError)
        self.assertIsInstance(e, ValueError)
        return e

    def test_library_detail_names_the_parameter(self):
        # pld_error_detail (issue 13): the parameter, its value, the range
        e = self.assertEinval(pldkit.PoissonGaussian, q=1.5, sigma=1.0)
        self.assertEqual(e.detail, "q = 1.5 must be in (0, 1]")
        self.assertIn("q = 1.5 must be in (0, 1]", str(e))
        e = self.assertEinval(pldkit.Gaussian, -2.0)
        self.assertIn("sigma = -2", e.detail)
        # a success in between leaves no stale detail behind
        pldkit.Gaussian(1.0)
        e = self.assertEinval(pldkit.Laplace, 1.0, float("inf"))
        self.assertIn("sensitivity = inf", e.detail)

    def test_bad_mechanism_parameters(self):
        nan, inf = float("nan"), float("inf")
        e = self.assertEinval(pldkit.Gaussian, nan)
        self.assertEqual(e.function, "pld_mech_gaussian")
        self.assertEinval(pldkit.Gaussian, 0.0)
        self.assertEinval(pldkit.Gaussian, -1.0)
        self.assertEinval(pldkit.Gaussian, 1.0, inf)
        self.assertEinval(pldkit.Laplace, 0.0)
        self.assertEinval(pldkit.PoissonGaussian, 1.5, 1.0)
        self.assertEinval(pldkit.PoissonGaussian, 0.0, 1.0)
        self.assertEinval(pldkit.PoissonGaussian, nan, 1.0)
        self.assertEinval(pldkit.PoissonSampled, pldkit.Laplace(1.0), 1.01)
        self.assertEinval(pldkit.RandomizedResponse, 1.0, 1)
        self.assertEinval(pldkit.DiscreteLaplace, 1.0, 0)
        self.assertEinval(pldkit.DiscreteGaussian, 1.0, 1.5)
        self.assertEinval(pldkit.FinitePair, [0.5, 0.6], [0.5, 0.5])
        self.assertEinval(pldkit.FinitePair, [0.5, 0.5], [1.0])
        self.assertEinval(pldkit.GaussianMixture, 1.0, p_weights=[0.5],
                          p_means=[0, 1], q_weights=[1], q_means=[0])
        # the arrays are keyword-only: by position they could be swapped
        with self.assertRaises(TypeError):
            pldkit.GaussianMixture(1.0, [0, 1], [0.5, 0.5], [0], [1])
        self.assertEinval(pldkit.WorGaussian, 10, 5, 1.0)
        self.assertEinval(pldkit.WorGaussian, -1, 5, 1.0)

    def test_weights_off_the_simplex(self):
        a, b = pldkit.Gaussian(1.0), pldkit.Laplace(1.0)
        self.assertEinval(pldkit.RandomSelection, [a, b], [0.5, 0.6])
        self.assertEinval(pldkit.RandomSelection, [a, b], [-0.5, 1.5])
        self.assertEinval(pldkit.RandomSelection, [a, b], [1.0])
        x = pldkit.Accountant().compose(a)
        y = pldkit.Accountant().compose(b)
        self.assertEinval(pldkit.Accountant().add_selection, [x, y],
                          [0.3, 0.3])
        self.assertEinval(pldkit.Accountant().add_selection, [x, y],
                          [float("nan"), 1.0])

    def test_bad_queries(self):
        acc = pldkit.Accountant().compose(pldkit.Laplace(1.0))
        for d in (0.0, 1.0, -1e-5, 2.0, float("nan")):
            self.assertEinval(acc.epsilon, d)
        for e in (-1.0, float("nan")):
            self.assertEinval(acc.delta, e)
        self.assertEinval(acc.curve, [0.5, -1.0])
        pld = pldkit.Laplace(1.0).to_pld(1e-2)
        self.assertEinval(pld.epsilon, 1.0)
        self.assertEinval(pld.delta, -0.5)
        self.assertEinval(pld.self_compose, 0)
        self.assertEinval(acc.compose, pldkit.Laplace(1.0), 0)
        self.assertEinval(acc.compose, pldkit.Laplace(1.0), -3)
        self.assertEinval(acc.compose, pldkit.Laplace(1.0), 2.5)
        self.assertEinval(pldkit.Accountant, accuracy=-1.0)
        self.assertEinval(pldkit.Accountant, tail_mass=2.0)
        self.assertEinval(pldkit.Accountant, max_grid=-1)
        self.assertEinval(pldkit.PLD.from_mechanism, pldkit.Laplace(1.0), 5000)

    def test_other_statuses(self):
        with self.assertRaises(pldkit.EmptyComposition) as cm:
            pldkit.Accountant().epsilon(1e-5)
        self.assertEqual(cm.exception.code, pldkit.status.EEMPTY)
        self.assertEqual(cm.exception.message,
                         pldkit.strerror(pldkit.status.EEMPTY))
        # no grid fits max_grid: a plain list is answered by the grid-free
        # bounds (basic/advanced composition, or the Laplace inversion of
        # its MGF, which needs no grid), a selection (which has none) is
        # out of range
        r = pldkit.Accountant(max_grid=100).compose(
            pldkit.PoissonGaussian(0.1, 1.0), 100).epsilon(1e-5)
        self.assertTrue(0 < r.lower <= r.upper < math.inf)
        self.assertIn(r.bound_kind, ("basic", "advanced", "inversion"))
        member = pldkit.Accountant(max_grid=100).compose(
            pldkit.PoissonGaussian(0.1, 1.0), 100)
        with self.assertRaises(pldkit.OutOfRange):
            pldkit.Accountant(max_grid=100).add_selection(
                [member], [1.0]).epsilon(1e-5)
        with self.assertRaises(pldkit.OutOfRange):
            pldkit.Laplace(1.0).to_pld(1e-10)
        # every status has a class carrying the library's sentence
        for code in range(1, 15):
            cls = pldkit.errors.error_class(code)
            self.assertEqual(cls.code, code)
            self.assertTrue(issubclass(cls, pldkit.PldkitError))
        self.assertIs(pldkit.errors.error_class(99), pldkit.UnknownStatus)

    @unittest.skipUnless(_lib.available.get("alloc_hooks")
                         or os.environ.get("PLDKIT_HOOKS_LIBRARY"),
                         "no allocation test hook in this library "
                         "(PLDKIT_HOOKS_LIBRARY names the test-only build)")
    def test_out_of_memory(self):
        if not _lib.available.get("alloc_hooks"):
            # The installed library has no hooks: run this test again in a
            # fresh interpreter on the test-only libpldkit-hooks.so.
            env = dict(os.environ,
                       PLDKIT_LIBRARY=os.environ["PLDKIT_HOOKS_LIBRARY"])
            env.pop("PLDKIT_HOOKS_LIBRARY")
            here = os.path.dirname(os.path.abspath(__file__))
            env["PYTHONPATH"] = os.pathsep.join(
                [os.path.dirname(here)] +
                ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
            r = subprocess.run(
                [sys.executable, "-m", "unittest", "-q",
                 "test_pldkit.TestErrors.test_out_of_memory"],
                cwd=here, env=env, capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertNotIn("skipped", r.stderr)
            return
        hook = _lib.lib.pld_test_fail_allocation
        hook(1)
        try:
            with self.assertRaises(pldkit.OutOfMemory) as cm:
                pldkit.Laplace(1.0)
        finally:
            hook(0)
        self.assertIsInstance(cm.exception, MemoryError)
        self.assertEqual(cm.exception.code, pldkit.status.ENOMEM)
        pldkit.Laplace(1.0)  # works again

    def test_wrong_types_fail_in_python(self):
        with self.assertRaises(TypeError):
            pldkit.Gaussian("1.0")
        with self.assertRaises(TypeError):
            pldkit.Gaussian(None)
        with self.assertRaises(TypeError):
            pldkit.Gaussian(1 + 2j)
        with self.assertRaises(TypeError):
            pldkit.DiscreteLaplace(1.0, "2")
        with self.assertRaises(TypeError):
            pldkit.Accountant().compose("gaussian:sigma=1")
        with self.assertRaises(TypeError):
            pldkit.Accountant().add_selection([pldkit.Gaussian(1.0)], [1.0])
        with self.assertRaises(TypeError):
            pldkit.PoissonSampled(pldkit.Accountant(), 0.5)
        with self.assertRaises(TypeError):
            pldkit.FinitePair("ab", [1.0])
        with self.assertRaises(TypeError):
            pldkit.Mechanism()
        with self.assertRaises(TypeError):
            pldkit.PLD()
        # the raw C functions have argtypes: a PLD pointer is no mechanism
        pld = pldkit.Laplace(1.0).to_pld(1e-2)
        with self.assertRaises(ctypes.ArgumentError):
            _lib.lib.pld_mech_free(pld._p)
        with self.assertRaises(ctypes.ArgumentError):
            _lib.lib.pld_mech_gaussian(1.0, 1.0, ctypes.byref(_lib.DistPtr()))
        with self.assertRaises(ctypes.ArgumentError):
            _lib.lib.pld_mech_gaussian("1", 1.0, None)
        with self.assertRaises(TypeError):
            _lib.lib.pld_mech_gaussian(1.0, 1.0)
        self.assertEqual(pld.grid_size, pldkit.Laplace(1.0).to_pld(1e-2)
                         .grid_size)  # still intact

    def test_numpy_scalars_and_ints(self):
        self.assertEqual(pldkit.Gaussian(2).params["sigma"], 2.0)
        if np is not None:
            g = pldkit.Gaussian(np.float64(2.0), np.int64(1))
            self.assertEqual(g.params, {"sigma": 2.0, "sensitivity": 1.0})
            pldkit.DiscreteLaplace(1.0, np.int32(2))


class TestLifetime(unittest.TestCase):
    def test_close_is_idempotent(self):
        m = pldkit.Gaussian(1.0)
        m.close()
        m.close()
        self.assertTrue(m.closed)
        with self.assertRaises(ValueError):
            m.delta(1.0)
        with self.assertRaises(ValueError):
            pldkit.Accountant().compose(m)
        del m
        gc.collect()

    def test_context_managers(self):
        with pldkit.Accountant() as acc, pldkit.Laplace(1.0) as lap:
            acc.compose(lap, 2)
            x = acc.epsilon(1e-5).upper
        self.assertTrue(acc.closed and lap.closed)
        self.assertTrue(math.isfinite(x))
        self.assertIn("closed", repr(acc))

    def test_members_are_copied(self):
        base = pldkit.Gaussian(1.0)
        sub = pldkit.PoissonSampled(base, 0.1)
        base.close()
        a = pldkit.Accountant().compose(sub, 10)
        sub.close()
        m = pldkit.Accountant().compose(pldkit.Laplace(1.0))
        b = pldkit.Accountant().add_selection([a, m], [0.5, 0.5])
        a.close()
        m.close()
        c = b.copy()
        b.close()
        gc.collect()
        self.assertLessEqual(*c.epsilon(1e-5))

    @unittest.skipIf(SANITIZED, "ASan quarantines freed memory")
    def test_no_leaks_in_a_loop(self):
        def once(i):
            m = pldkit.Laplace(1.0 + (i % 7))
            pld = m.to_pld(1e-3)  # ~2000 points x 4 arrays
            acc = pldkit.Accountant(discretization=1e-2).compose(m, 2)
            b = pld.self_compose(2).delta(0.5)
            r = acc.delta(0.5)
            c = pldkit.RdpCurve().compose(pldkit.Gaussian(2.0), 3)
            x = pldkit.PLD.deserialize(pld.serialize())
            total = b.upper + r.upper + c.values[0] + x.grid_size
            if i % 2:  # half closed explicitly, half by the collector
                for o in (m, pld, acc, c, x):
                    o.close()
            return total

        for i in range(100):
            once(i)
        gc.collect()
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        for i in range(1000):
            once(i)
        gc.collect()
        after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        # a leak of the PLDs alone would be > 100 MB; allow 20 MB of noise
        self.assertLess(after - before, 20 * 1024,
                        "RSS grew by %d KiB" % (after - before))

    @unittest.skipIf(MALLINFO2 is None, "no mallinfo2 (not glibc >= 2.33)")
    @unittest.skipIf(SANITIZED, "ASan quarantines freed memory")
    def test_no_leaks_heap_exact(self):
        # The C heap in use (glibc's mallinfo2) must not grow over 1000
        # create/use/free rounds of each kind of object: this sees leaks
        # far smaller than RSS does (a lost mechanism is ~100 bytes).
        def mechanisms(i):
            m = pldkit.Gaussian(1.0 + i % 3)
            s = pldkit.PoissonSampled(m, 0.5)
            sel = pldkit.RandomSelection([m, s.copy()], [0.5, 0.5])
            if i % 2:
                for o in (m, s, sel):
                    o.close()

        def accountants(i):
            a = pldkit.Accountant().compose(pldkit.Laplace(1.0), 2)
            a.step(1.0, 0.5)
            b = pldkit.Accountant().add_selection([a, a.copy()], [0.5, 0.5])
            if i % 2:
                a.close()
                b.close()

        def plds(i):
            p = pldkit.Laplace(1.0).to_pld(1e-2)
            q = p.compose(p)
            m = pldkit.PLD.mix([p, q], [0.5, 0.5])
            pldkit.PLD.deserialize(m.serialize()).self_compose(3).delta(0.1)
            q.curve([0.1, 0.2])

        def rdp(i):
            if pldkit.features.get("rdp"):
                c = pldkit.RdpCurve().add_gaussian(1.0)
                pldkit.RdpCurve.random_selection([c, c.copy()], [0.5, 0.5])

        def calibrations(i):
            pldkit.calibrate(lambda s: pldkit.Accountant().compose(
                pldkit.Gaussian(s)), 1.0, 1e-5, rel_tol=0.1)

        def errors(i):
            for f in (lambda: pldkit.Gaussian(-1.0),
                      lambda: pldkit.Accountant().epsilon(1e-5),
                      lambda: pldkit.calibrate(_raise, 1.0, 1e-5)):
                try:
                    f()
                except (pldkit.PldkitError, KeyError):
                    pass

        for fn, rounds in ((mechanisms, 1000), (accountants, 1000),
                           (plds, 1000), (rdp, 1000), (calibrations, 300),
                           (errors, 300)):
            for i in range(50):
                fn(i)
            before = heap_in_use()
            for i in range(rounds):
                fn(i)
            grown = heap_in_use() - before
            self.assertLess(grown, 64 * 1024, "%s: the C heap grew by %d "
                            "bytes over %d rounds" % (fn.__name__, grown,
                                                      rounds))

    def test_threads(self):
        # ctypes releases the GIL: separate objects run in parallel and give
        # the same answers as one after the other
        import threading

        def job(i):
            acc = pldkit.Accountant().compose(
                pldkit.PoissonGaussian(0.01 * (1 + i % 3), 1.0), 200)
            pld = pldkit.Laplace(1.0 + i % 2).to_pld(1e-3).self_compose(7)
            return acc.epsilon(1e-5).upper, pld.epsilon(1e-6).upper

        want = [job(i) for i in range(8)]
        got = [None] * 8
        errors = []

        def run(i):
            try:
                got[i] = job(i)
            except BaseException as e:  # pragma: no cover - reported below
                errors.append(e)
        threads = [threading.Thread(target=run, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])
        self.assertEqual(got, want)

    def test_copy_module_and_pickle(self):
        import copy
        for m in (pldkit.Gaussian(1.5, 2.0),
                  pldkit.PoissonSampled(pldkit.Laplace(2.0), 0.1),
                  pldkit.RandomSelection([pldkit.Gaussian(1.0),
                                          pldkit.FinitePair([1.0], [1.0])],
                                         [0.5, 0.5]),
                  pldkit.GaussianMixture(1.0, p_weights=[0.5, 0.5], p_means=[0, 1],
                                       q_weights=[1], q_means=[0])):
            for c in (copy.copy(m), copy.deepcopy(m),
                      pickle.loads(pickle.dumps(m))):
                self.assertIsNot(c._ptr, m._ptr)
                self.assertEqual(type(c), type(m))
                self.assertEqual(c.delta(0.5), m.delta(0.5))
                c.close()
            m.close()
        acc = pldkit.Accountant().compose(pldkit.Laplace(1.0))
        dup = copy.copy(acc)
        acc.close()
        self.assertLessEqual(*dup.epsilon(1e-5))
        again = pickle.loads(pickle.dumps(dup))  # replays the events
        self.assertEqual(again.epsilon(1e-5).upper, dup.epsilon(1e-5).upper)
        pld = pldkit.Laplace(1.0).to_pld(1e-2)
        self.assertEqual(copy.deepcopy(pld).delta(0.3), pld.delta(0.3))
        if pldkit.features.get("rdp"):
            c = pldkit.RdpCurve([2.0, 3.5]).add_laplace(1.0)
            for d in (copy.copy(c), pickle.loads(pickle.dumps(c))):
                self.assertEqual((d.orders, d.values), (c.orders, c.values))


class TestCalibrate(unittest.TestCase):
    @staticmethod
    def build(sigma):
        return pldkit.Accountant().compose(pldkit.PoissonGaussian(0.05, sigma),
                                           50)

    def test_meets_target(self):
        seen = []
        c = pldkit.calibrate(self.build, 1.5, 1e-6, start=2.0, rel_tol=1e-3,
                             progress=lambda n, x, e: seen.append((n, x, e)))
        self.assertLessEqual(c.result.upper, 1.5)
        self.assertEqual(c.result.upper, self.build(c.param).epsilon(1e-6)
                         .upper)
        self.assertGreater(self.build(c.param_fail).epsilon(1e-6).upper, 1.5)
        self.assertLessEqual(c.param - c.param_fail, 1e-3 * c.param)
        self.assertEqual(len(seen), c.evaluations)
        self.assertEqual(seen[-1][0], c.evaluations)

    def test_gaussian_against_python(self):
        # one Gaussian: the smallest sigma with eps(delta) <= 1 is known
        c = pldkit.calibrate(lambda s: pldkit.Accountant().compose(
            pldkit.Gaussian(s)), 1.0, 1e-5, rel_tol=1e-6)
        self.assertLessEqual(gauss_epsilon(1.0 / c.param, 1e-5), 1.0 + 1e-9)
        self.assertGreater(gauss_epsilon(1.0 / c.param_fail, 1e-5), 1.0)

    def test_build_fn_exception_propagates(self):
        class Boom(Exception):
            pass
        calls = []

        def build(sigma):
            calls.append(sigma)
            if len(calls) == 3:
                raise Boom("at %g" % sigma)
            return self.build(sigma)

        with self.assertRaises(Boom) as cm:
            pldkit.calibrate(build, 1.5, 1e-6)
        self.assertIn("at", str(cm.exception))
        self.assertEqual(len(calls), 3)  # stopped at once
        # still usable afterwards
        self.assertLessEqual(pldkit.calibrate(self.build, 1.5, 1e-6,
                                              rel_tol=0.05).result.upper, 1.5)

    def test_library_error_inside_build_fn(self):
        # an exception from the library inside the callback comes out as is
        with self.assertRaises(pldkit.InvalidArgument):
            pldkit.calibrate(lambda s: pldkit.Accountant().compose(
                pldkit.Gaussian(-s)), 1.0, 1e-5)

    def test_bad_return_and_progress(self):
        with self.assertRaises(TypeError):
            pldkit.calibrate(lambda s: 42, 1.0, 1e-5)

        def progress(n, x, e):
            raise KeyboardInterrupt

        with self.assertRaises(KeyboardInterrupt):
            pldkit.calibrate(self.build, 1.5, 1e-6, progress=progress)

    def test_out_of_reach_and_bad_target(self):
        def build(sigma):
            return pldkit.Accountant().compose(
                pldkit.RandomizedResponse(5.0, 2))  # noise does not matter
        with self.assertRaises(pldkit.ToleranceNotMet):
            pldkit.calibrate(build, 1.0, 1e-5)
        with self.assertRaises(pldkit.InvalidArgument):
            pldkit.calibrate(self.build, 1.0, 1.5)

    def test_dpsgd_noise_multiplier(self):
        q, steps = 0.01, 500
        sigma = pldkit.dpsgd_noise_multiplier(2.0, 1e-5, q, steps)
        self.assertLessEqual(pldkit.dpsgd_epsilon(sigma, q, steps, 1e-5), 2.0)
        self.assertGreater(pldkit.dpsgd_epsilon(sigma * 0.99, q, steps, 1e-5),
                           2.0)


@unittest.skipUnless(pldkit.features.get("rdp"), "no RDP backend")
class TestRdp(unittest.TestCase):
    def test_gaussian_against_python(self):
        sigma, count, delta = 2.0, 30, 1e-6
        c = pldkit.RdpCurve().compose(pldkit.Gaussian(sigma), count)
        self.assertEqual(len(c), pldkit.rdp.DEFAULT_ORDERS_COUNT)
        orders = c.orders
        for a, v in zip(orders, c.values):
            self.assertAlmostEqual(v, count * a / (2 * sigma ** 2),
                                   delta=1e-12 * v)
            self.assertGreaterEqual(v, count * a / (2 * sigma ** 2)
                                    * (1 - 1e-15))
        classic = min(count * a / (2 * sigma ** 2) + math.log(1 / delta)
                      / (a - 1) for a in orders)
        res = c.epsilon(delta, "classic")
        self.assertAlmostEqual(res.value, classic, delta=1e-12 * classic)
        self.assertEqual(res.method, "classic")
        self.assertEqual(res.order, orders[res.index])
        improved = min(count * a / (2 * sigma ** 2) + math.log1p(-1 / a)
                       - (math.log(delta) + math.log(a)) / (a - 1)
                       for a in orders)
        best = c.epsilon(delta)
        self.assertAlmostEqual(best.value, improved, delta=1e-12 * improved)
        self.assertLessEqual(best.value, res.value)
        back = c.delta(best.value).value
        self.assertAlmostEqual(back / delta, 1.0, delta=1e-9)
        # RDP is looser than the exact (PLD closed form) answer
        self.assertGreaterEqual(best.value, gauss_epsilon(
            math.sqrt(count) / sigma, delta))

    def test_dp_accounting_style(self):
        q, sigma, steps = 0.01, 1.0, 1000
        a = pldkit.RdpAccountant().compose(pldkit.PoissonGaussian(q, sigma),
                                           steps)
        b = pldkit.RdpCurve().add_poisson_gaussian(q, sigma, 1.0, steps)
        c = pldkit.RdpCurve().compose(
            pldkit.PoissonSampled(pldkit.Gaussian(sigma), q), steps)
        self.assertEqual(a.values, b.values)
        self.assertEqual(a.values, c.values)
        eps = a.get_epsilon(1e-5)
        pld_eps = pldkit.dpsgd_epsilon(sigma, q, steps, 1e-5)
        self.assertGreater(eps, pld_eps)  # RDP is looser than PLD
        self.assertLess(eps, 1.5 * pld_eps)
        one = pldkit.RdpCurve().add_poisson_gaussian(q, sigma)
        composed = pldkit.RdpCurve().compose(one, steps)
        for x, y in zip(composed.values, a.values):
            self.assertAlmostEqual(x, y, delta=1e-9 * y)

    def test_other_mechanisms_and_selection(self):
        c = pldkit.RdpCurve([2.0, 4.0, 8.0])
        c.compose(pldkit.Laplace(2.0)).compose(pldkit.RandomizedResponse(0.5,
                                                                         3))
        c.compose(pldkit.WorGaussian(10, 100, 2.0, 2.0), 5)
        self.assertEqual(c.orders, [2.0, 4.0, 8.0])
        self.assertTrue(all(v > 0 for v in c.values))
        with self.assertRaises(pldkit.Unsupported):
            c.compose(pldkit.DiscreteLaplace(1.0))
        with self.assertRaises(pldkit.IncompatibleGrids):
            c.compose(pldkit.RdpCurve())
        a = pldkit.RdpCurve([2.0, 4.0, 8.0]).add_gaussian(1.0)
        b = pldkit.RdpCurve([2.0, 4.0, 8.0]).add_gaussian(4.0)
        rs = pldkit.RdpCurve.random_selection([a, b], [0.5, 0.5])
        for x, lo, hi in zip(rs.values, b.values, a.values):
            self.assertTrue(lo <= x <= hi)
        w = pldkit.RdpCurve.rs_max_weight(a, b, 4.0, 1e-5)
        self.assertTrue(0.0 <= w <= 1.0)
        # -1: not even b alone meets a target below its own epsilon
        self.assertEqual(pldkit.RdpCurve.rs_max_weight(a, b, 1e-3, 1e-5), -1.0)
        grid = pldkit.RdpCurve.rs_feasible_grid([b, a], 4, 4.0, 1e-5)
        self.assertIn((1.0, 0.0), grid)
        with self.assertRaises(pldkit.InvalidArgument):
            pldkit.RdpCurve.random_selection([a, b], [0.5, 0.4])
        with self.assertRaises(pldkit.InvalidArgument):
            pldkit.RdpCurve([1.0, 2.0])
        with self.assertRaises(pldkit.InvalidArgument):
            a.epsilon(0.0)
        with self.assertRaises(ValueError):
            a.epsilon(1e-5, "fancy")
        c2 = a.copy().set([1.0, 2.0, 3.0]).add_values([1.0, 1.0, 1.0], 2)
        self.assertEqual(c2.values, [3.0, 4.0, 5.0])
        self.assertTrue(c2.same_orders(a))

    @unittest.skipUnless(pldkit.features.get("rdp_of_pld"), "no bridge")
    def test_from_pld(self):
        pld = pldkit.RandomizedResponse(1.0, 2).to_pld(0.01)
        up = pldkit.RdpCurve.from_pld(pld, orders=[2.0, 3.0])
        lo = pld.to_rdp(orders=[2.0, 3.0], lower=True)
        exact = pldkit.RdpCurve([2.0, 3.0]).add_randomized_response(1.0, 2)
        for u, l, x in zip(up.values, lo.values, exact.values):
            self.assertLessEqual(l, x * (1 + 1e-9))
            self.assertGreaterEqual(u, x * (1 - 1e-9))


@unittest.skipUnless(pldkit.features.get("rdp_papers"), "no rdp_papers.h")
class TestPapers(unittest.TestCase):
    def test_model_splitting(self):
        from pldkit import papers
        orders = [2.0, 3.0, 8.0]
        # k = d: no amplification, the Gaussian of norm c sqrt(d)
        c = pldkit.RdpCurve(orders).add_model_splitting(5, 5, 2.0, 1.0, 3)
        for a, v in zip(orders, c.values):
            self.assertAlmostEqual(v, 3 * a * 5 / (2 * 4.0), delta=1e-12 * v)
        split = pldkit.RdpCurve(orders).add_model_splitting(10, 1, 1.0, 1.0)
        for a, v in zip(orders, split.values):
            t = papers.model_splitting_terms(a, 10, 1, 1.0, 1.0)
            self.assertAlmostEqual(v, t.epsilon, delta=1e-9 * v)
            self.assertEqual(t.epsilon, max(t.forward, t.reverse))
            self.assertLess(v, a / 2.0)  # amplified below the Gaussian
        drop = pldkit.RdpCurve(orders).add_dropout(1.0, 1.0)
        self.assertEqual(drop.values, pldkit.RdpCurve(orders)
                         .add_model_splitting(2, 1, 1.0, 1.0).values)
        self.assertAlmostEqual(papers.bis_epochs(4, 10, 2, 3, 1.0, 1.0),
                               3 * papers.model_splitting_terms(
                                   4, 10, 2, 1.0, 1.0).epsilon, delta=1e-12)
        with self.assertRaises(pldkit.InvalidArgument):
            papers.model_splitting_terms(2.0, 10, 11, 1.0, 1.0)
        with self.assertRaises(pldkit.InvalidArgument):
            pldkit.RdpCurve(orders).add_model_splitting(10, 2, -1.0, 1.0)

    def test_poisson_split_and_bounded(self):
        from pldkit import papers
        pair = papers.poisson_split(4.0, 0.01, 1, 1.0, 1.0)
        ref = pldkit.RdpCurve([4.0]).add_poisson_gaussian(0.01, 1.0).values[0]
        self.assertAlmostEqual(pair.epsilon / ref, 1.0, delta=1e-9)
        b = papers.bounded_gaussian_rdp(4.0, 0.0, 1.0, 1.0, 0.5)
        self.assertTrue(0.0 < b <= 4.0 * 0.25 / 2)
        with self.assertRaises(ValueError):
            papers.bounded_gaussian_rdp(4.0, 0.0, 1.0, 1.0, 0.5, "folded")
        wide = pldkit.RectifiedGaussian(0.0, 100.0, 1.0, 1.0)
        self.assertAlmostEqual(wide.delta(1.0), gauss_delta(1.0, 1.0),
                               delta=1e-12)


class TestSelectionPlanning(unittest.TestCase):
    def test_feasible_and_max_weight(self):
        eps, delta = 1.0, 1e-5
        a = pldkit.Gaussian(8.0)
        b = pldkit.Gaussian(1.0)
        md = [(a.delta(eps, "remove"), a.delta(eps, "add")),
              (b.delta(eps, "remove"), b.delta(eps, "add"))]
        pi = pldkit.select_max_weight(md, delta)
        self.assertTrue(0.0 < pi <= 1.0)
        mix = pi * md[0][0] + (1 - pi) * md[1][0]
        self.assertLessEqual(mix, delta * (1 + 1e-9))
        rows = pldkit.select_feasible(md, delta, 10)
        for row in rows:
            self.assertAlmostEqual(sum(row), 1.0, delta=1e-12)
            self.assertGreaterEqual(row[0], pi - 1e-12)
        with self.assertRaises(pldkit.InvalidArgument):
            pldkit.select_max_weight(md[:1], delta)


@unittest.skipUnless(pldkit.features.get("participation"), "not built")
class TestParticipation(unittest.TestCase):
    def test_wcs_matches_pld(self):
        p, q, sigma, eps = 0.3, 0.05, 1.2, 1.0
        b = pldkit.participation_delta(p, q, 10, 1.0, sigma, eps, "wcs")
        self.assertLessEqual(b.lower, b.upper)
        direct = p * pldkit.PoissonGaussian(q, sigma).delta(eps)
        self.assertAlmostEqual(b.upper / direct, 1.0, delta=1e-9)
        c = pldkit.participation_calibrate(p, q, 10, 1.0, eps, 1e-5, "wcs")
        self.assertTrue(c.certified)
        self.assertEqual(c.kind, "upper bound")
        self.assertLessEqual(pldkit.participation_delta(
            p, q, 10, 1.0, c.sigma, eps).upper, 1e-5)
        with self.assertRaises(pldkit.InvalidArgument):
            pldkit.participation_delta(1.5, q, 10, 1.0, sigma, eps)
        with self.assertRaises(ValueError):
            pldkit.participation_delta(p, q, 10, 1.0, sigma, eps, "best")


class TestTruncatedGaussian(unittest.TestCase):
    @unittest.skipUnless(pldkit.features.get("rdp_papers"), "not built")
    def test_against_integral(self):
        # delta(eps) of N(0.7, 1) vs N(1.7, 1) conditioned on [-1, 1], both
        # directions, against a midpoint-rule integral computed here
        import math
        Phi = lambda x: 0.5 * math.erfc(-x / math.sqrt(2))
        def dens(t):
            Z = Phi(1 - t) - Phi(-1 - t)
            return lambda y: math.exp(-(y - t) ** 2 / 2) / math.sqrt(
                2 * math.pi) / Z
        def hs(t1, t2, e):
            f, g, n = dens(t1), dens(t2), 100000
            h = 2.0 / n
            return sum(max(0.0, f(-1 + (i + .5) * h) - math.exp(e) *
                           g(-1 + (i + .5) * h)) for i in range(n)) * h
        m = pldkit.TruncatedGaussian(0.7, 1.0, 1.0, 1.0)
        for e in (0.0, 0.5, 1.0):
            ref_pq, ref_qp = hs(0.7, 1.7, e), hs(1.7, 0.7, e)
            acc = pldkit.Accountant().compose(m, 1)
            b = acc.delta(e)
            ref = max(ref_pq, ref_qp)
            self.assertLessEqual(b.lower, ref * (1 + 1e-9) + 1e-12)
            self.assertGreaterEqual(b.upper, ref * (1 - 1e-9) - 1e-12)
            self.assertLessEqual(b.upper - b.lower, 0.01 * ref + 1e-6)
        with self.assertRaises(pldkit.InvalidArgument):
            pldkit.TruncatedGaussian(100.0, 1.0, 1.0, 1.0)


@unittest.skipUnless(pldkit.features.get("participation"), "not built")
class TestCertifiedFlags(unittest.TestCase):
    # which analyses are proven bounds (issue 16): wcs, mwcs, ols; cs is a
    # lower limit of the worst case, thm41 one dataset's exact delta
    TABLE = {"wcs": (True, "upper bound"), "mwcs": (True, "upper bound"),
             "ols": (True, "upper bound"), "cs": (False, "lower_limit"),
             "thm41": (False, "one-instance value")}

    def test_every_analysis(self):
        from pldkit import participation as pm
        self.assertEqual(set(pm._ANALYSES), set(self.TABLE))
        # the Sec. 6.1 setting where thm41 is not refuted, and d = 1
        for (p, q, d, eps, delta) in ((0.5, 0.1, 10, 2.0, 1e-5),
                                      (0.5, 0.1, 1, 1.0, 1e-5)):
            for an, (cert, kind) in self.TABLE.items():
                pp = 1.0 if an == "ols" else p
                c = pldkit.participation_calibrate(pp, q, d, 1.0, eps, delta,
                                                   an)
                self.assertIs(c.certified, cert, an)
                self.assertEqual(c.kind, kind, an)
                if an == "thm41":
                    self.assertIn(c.refuted, (True, False))


class TestNumpy(unittest.TestCase):
    def test_without_numpy(self):
        with numpy_hidden():
            self.assertIsNone(pldkit._util.numpy())
            acc = pldkit.Accountant().compose(pldkit.Laplace(1.0), 2)
            c = acc.curve((0.0, 0.5, 1.0))
            self.assertIsInstance(c.upper, list)
            self.assertIsInstance(c.epsilons, list)
            pld = pldkit.Laplace(1.0).to_pld(1e-2)
            self.assertIsInstance(pld.view().masses, list)
            self.assertIsInstance(pld.curve([0.5]).lower, list)
            m = pldkit.FinitePair((0.5, 0.5), iter([0.25, 0.75]))
            self.assertEqual(m.params["q"], [0.25, 0.75])
            self.assertLessEqual(*acc.epsilon(1e-5))

    def test_import_without_numpy(self):
        code = ("import sys; sys.modules['numpy'] = None\n"
                "import pldkit\n"
                "a = pldkit.Accountant().compose(pldkit.Laplace(1.0), 2)\n"
                "c = a.curve([0.0, 1.0])\n"
                "assert isinstance(c.upper, list), type(c.upper)\n"
                "assert pldkit._util.numpy() is None\n"
                "print('ok')\n")
        env = dict(os.environ,
                   PYTHONPATH=os.path.normpath(os.path.join(HERE, "..")))
        out = subprocess.run([sys.executable, "-c", code], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.assertEqual(out.returncode, 0, out.stderr.decode())
        self.assertEqual(out.stdout.strip(), b"ok")

    @unittest.skipIf(np is None, "numpy is not installed")
    def test_with_numpy(self):
        eps = np.linspace(0.0, 2.0, 5)
        acc = pldkit.Accountant().compose(pldkit.Laplace(1.0), 3)
        c = acc.curve(eps)
        self.assertIsInstance(c.upper, np.ndarray)
        self.assertIsInstance(c.lower, np.ndarray)
        self.assertIsInstance(c.epsilons, np.ndarray)
        self.assertTrue(np.all(c.lower <= c.upper))
        plain = acc.curve(eps.tolist())
        self.assertEqual(plain.upper, c.upper.tolist())
        self.assertEqual(plain.lower, c.lower.tolist())
        # non-contiguous and integer arrays are converted
        c2 = acc.curve(np.arange(6)[::2])
        self.assertEqual(c2.upper.tolist(), acc.curve([0, 2, 4]).upper)
        pld = pldkit.Laplace(1.0).to_pld(1e-2)
        self.assertIsInstance(pld.view().masses, np.ndarray)
        self.assertIsInstance(pld.curve(eps).upper, np.ndarray)
        m = pldkit.FinitePair(np.array([0.5, 0.5]), np.array([0.25, 0.75]))
        self.assertEqual(m.params["p"], [0.5, 0.5])
        with self.assertRaises(TypeError):
            acc.curve(np.zeros((2, 2)))


class TestCloseWhileInUse(unittest.TestCase):
    """Issue 32, item 6: closing an object while another thread's call uses
    it was a use-after-free; now close() raises RuntimeError then and the
    call completes on a live object.  The C call is held open
    deterministically: the module's `lib` is wrapped so that the call
    waits for the main thread's close() attempt before it runs."""

    def _hold(self, module, name):
        import threading
        entered, release = threading.Event(), threading.Event()
        real_lib = module.lib

        class Proxy(object):
            def __getattr__(self, attr):
                fn = getattr(real_lib, attr)
                if attr != name:
                    return fn

                def held(*args):
                    entered.set()
                    release.wait(10)
                    return fn(*args)
                return held
        module.lib = Proxy()
        return real_lib, entered, release

    def test_accountant_closed_during_a_query(self):
        import threading
        from pldkit import accountant as mod
        acc = pldkit.Accountant().compose(pldkit.Laplace(1.0), 3)
        real_lib, entered, release = self._hold(mod, "pld_accountant_epsilon")
        out = {}

        def query():
            try:
                out["r"] = acc.epsilon(1e-5)
            except Exception as e:  # pragma: no cover - reported below
                out["e"] = e
        try:
            t = threading.Thread(target=query)
            t.start()
            self.assertTrue(entered.wait(10))
            with self.assertRaises(RuntimeError):
                acc.close()
            self.assertFalse(acc.closed)
            release.set()
            t.join(10)
        finally:
            mod.lib = real_lib
            release.set()
        self.assertNotIn("e", out)
        self.assertGreater(out["r"].upper, 0)
        acc.close()  # no call in flight: closes
        self.assertTrue(acc.closed)
        with self.assertRaises(ValueError):
            acc.epsilon(1e-5)

    def test_argument_closed_during_a_call(self):
        import threading
        from pldkit import accountant as mod
        acc = pldkit.Accountant()
        mech = pldkit.Gaussian(2.0)
        real_lib, entered, release = self._hold(mod, "pld_accountant_add")
        try:
            t = threading.Thread(target=lambda: acc.compose(mech, 2))
            t.start()
            self.assertTrue(entered.wait(10))
            with self.assertRaises(RuntimeError):
                mech.close()
            release.set()
            t.join(10)
        finally:
            mod.lib = real_lib
            release.set()
        mech.close()
        self.assertGreater(acc.epsilon(1e-5).upper, 0)
        acc.close()


if __name__ == "__main__":
    unittest.main()
