"""Tests of pldkit.ledger and Accountant.merge (ledger.h, accountant.h).

Run from the repository root:

    PYTHONPATH=python python3 -m unittest python/tests/test_ledger.py -v

Independent values: the Gaussian's closed-form epsilon (a ledger of n
Gaussians of sigma is one Gaussian of mu = sqrt(n)/sigma; the bracket must
hold it, and be within the accountant's 0.2% of it), the CLI (`pldkit
ledger add` on the same file and grid: the same library through the other
front end, compared to the last digit), processes updating one ledger at
once (nothing lost: every update is in the composition and the history).
"""

import math
import multiprocessing
import os
import pickle
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.normpath(os.path.join(HERE, "..")))

import pldkit  # noqa: E402
from pldkit import ledger  # noqa: E402


def _find_cli():
    cli = os.environ.get("PLDKIT_CLI")
    if cli:
        return cli
    d = os.path.dirname(os.path.abspath(pldkit.library_path))
    cand = os.path.join(d, "pldkit")
    return cand if os.access(cand, os.X_OK) else None


CLI = _find_cli()


def _lib_has_hook():
    from pldkit import _lib
    return bool(_lib.available.get("dir_sync_hook"))


def _phi(x):
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def gauss_delta(mu, eps):
    """delta(eps) of the Gaussian pair N(mu, 1) vs N(0, 1), closed form."""
    return _phi(-eps / mu + mu / 2) - math.exp(eps) * _phi(-eps / mu - mu / 2)


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


def _book(args):
    path, n = args
    for _ in range(n):
        ledger.add(path, "gaussian:sigma=5")
    return n


@unittest.skipUnless(ledger.available, "no ledger.h in this libpldkit")
class TestLedger(unittest.TestCase):

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="pldkit-ledger-")
        self.path = os.path.join(self.dir, "run.pld")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def check_gauss(self, pld, n, sigma, delta=1e-5):
        b = pld.epsilon(delta)
        exact = gauss_epsilon(math.sqrt(n) / sigma, delta)
        self.assertLessEqual(b.lower, exact * (1 + 1e-9))
        self.assertGreaterEqual(b.upper, exact * (1 - 1e-9))
        self.assertLessEqual(b.upper, exact * 1.002 + 1e-4)

    def test_add_and_history(self):
        p1 = ledger.add(self.path, "gaussian:sigma=3,count=2", create=True)
        self.check_gauss(p1, 2, 3.0)
        acc = pldkit.Accountant().compose(pldkit.Gaussian(sigma=3.0), 2)
        p2 = ledger.add(self.path, acc, record="two more")
        self.check_gauss(p2, 4, 3.0)
        self.assertEqual(p2.discretization, p1.discretization)
        shown = ledger.show(self.path)
        self.assertEqual([t for _, t in shown.history],
                         ["gaussian:sigma=3,count=2", "two more"])
        self.assertEqual(shown.epsilon(1e-5), p2.epsilon(1e-5))
        for t, _ in shown.history:
            self.assertGreater(t, 1.5e9)  # seconds since the epoch, recent

    @unittest.skipIf(CLI is None, "pldkit CLI not found (set PLDKIT_CLI)")
    def test_same_ledger_as_cli(self):
        other = os.path.join(self.dir, "cli.pld")
        events = ["poisson-gaussian:q=0.01,sigma=1,count=50", "gaussian:sigma=4"]
        for ev in events:
            ledger.add(self.path, ev, create=True)
            subprocess.run([CLI, "ledger", "add", other, "--create", ev],
                           check=True, stdout=subprocess.DEVNULL)
        a, b = ledger.show(self.path), ledger.show(other)
        self.assertEqual(a.discretization, b.discretization)
        self.assertEqual(a.grid_size, b.grid_size)
        for d in (1e-5, 1e-10):
            self.assertEqual(a.epsilon(d), b.epsilon(d))
        self.assertEqual([t for _, t in a.history],
                         [t for _, t in b.history])
        # each front end books into the other's ledger
        subprocess.run([CLI, "ledger", "add", self.path, "gaussian:sigma=4"],
                       check=True, stdout=subprocess.DEVNULL)
        ledger.add(other, "gaussian:sigma=4")
        self.assertEqual(ledger.show(self.path).epsilon(1e-5),
                         ledger.show(other).epsilon(1e-5))

    def test_concurrent_processes_lose_nothing(self):
        procs, each = 4, 5
        ledger.add(self.path, "gaussian:sigma=5", create=True)
        ctx = multiprocessing.get_context("spawn")
        with ctx.Pool(procs) as pool:
            done = pool.map(_book, [(self.path, each)] * procs)
        self.assertEqual(sum(done), procs * each)
        n = procs * each + 1
        pld = ledger.show(self.path)
        self.assertEqual(len(pld.history), n)
        self.check_gauss(pld, n, 5.0)
        # one update fewer would be sqrt(n - 1)/5: the bracket excludes it
        fewer = gauss_epsilon(math.sqrt(n - 1) / 5.0, 1e-5)
        self.assertGreater(pld.epsilon(1e-5).lower, fewer)

    def test_errors_leave_the_ledger(self):
        ledger.add(self.path, "gaussian:sigma=3", create=True)
        with open(self.path, "rb") as f:
            before = f.read()
        with self.assertRaises(pldkit.InvalidArgument):
            ledger.add(self.path)  # no events
        with self.assertRaises(pldkit.InvalidArgument):
            ledger.add(self.path, "gaussian:sigma=-1")
        with self.assertRaises(pldkit.IncompatibleGrids):
            ledger.add(self.path, "gaussian:sigma=3", discretization=1e-3)
        with self.assertRaises(pldkit.Unsupported):
            ledger.add(self.dir, "gaussian:sigma=3")
        with self.assertRaises(pldkit.FileError) as cm:
            ledger.add(os.path.join(self.dir, "no", "such.pld"),
                       "gaussian:sigma=3", discretization=1e-3, create=True)
        self.assertIn("such.pld", str(cm.exception))
        junk = os.path.join(self.dir, "junk.pld")
        with open(junk, "wb") as f:
            f.write(b"not a ledger at all")
        with self.assertRaises(pldkit.FormatError):
            ledger.add(junk, "gaussian:sigma=3")
        with open(self.path, "rb") as f:
            self.assertEqual(f.read(), before)

    def test_no_silent_new_ledger(self):
        # issue 30: a mistyped name is not a new ledger
        typo = os.path.join(self.dir, "tpyo.pld")
        with self.assertRaises(pldkit.FileError) as cm:
            ledger.add(typo, "gaussian:sigma=3")
        self.assertIn("create=True", str(cm.exception))
        self.assertFalse(os.path.exists(typo))
        self.assertFalse(os.path.exists(typo + ".lock"))
        ledger.add(typo, "gaussian:sigma=3", create=True)
        self.assertEqual(len(ledger.show(typo).history), 1)

    def test_lock_timeout(self):
        # issue 32 item 3: a held lock and lock_timeout: FileError at once,
        # nothing booked
        import fcntl
        import time
        ledger.add(self.path, "gaussian:sigma=3", create=True)
        with open(self.path + ".lock", "r+b") as held:
            fcntl.flock(held, fcntl.LOCK_EX)
            t0 = time.monotonic()
            with self.assertRaises(pldkit.FileError) as cm:
                ledger.add(self.path, "gaussian:sigma=3", lock_timeout=0.2)
            took = time.monotonic() - t0
        self.assertIn("lock_timeout", str(cm.exception))
        self.assertGreaterEqual(took, 0.2)
        self.assertLess(took, 5.0)
        with self.assertRaises(pldkit.InvalidArgument):
            ledger.add(self.path, "gaussian:sigma=3", lock_timeout=-1)
        self.assertEqual(len(ledger.show(self.path).history), 1)

    @unittest.skipIf(CLI is None, "pldkit CLI not found (set PLDKIT_CLI)")
    def test_show_escapes_control_characters(self):
        # issue 32 item 6: history text cannot drive the terminal
        ledger.add(self.path, "gaussian:sigma=3", create=True,
                   record="evil\x1b[2J\rfake 2026-01-01T00:00:00Z line\nx")
        out = subprocess.run([CLI, "ledger", "show", self.path], check=True,
                             capture_output=True).stdout
        self.assertNotIn(b"\x1b", out)
        self.assertNotIn(b"\r", out)
        self.assertIn(b"evil\\x1b[2J\\x0dfake", out)
        self.assertEqual(out.count(b"\n"), 2)  # the summary and one record
        js = subprocess.run([CLI, "ledger", "show", self.path, "--json"],
                            check=True, capture_output=True).stdout
        import json
        self.assertEqual(json.loads(js)["history"][0]["text"],
                         "evil\x1b[2J\rfake 2026-01-01T00:00:00Z line\nx")

    @unittest.skipUnless(_lib_has_hook() or os.environ.get(
        "PLDKIT_HOOKS_LIBRARY"), "no directory-sync test hook in this "
        "library (PLDKIT_HOOKS_LIBRARY names the test-only build)")
    def test_booked_but_not_durable(self):
        # issue 32 item 2: the directory's fsync fails after the rename:
        # the update is booked; a warning, not an exception
        if not _lib_has_hook():
            env = dict(os.environ,
                       PLDKIT_LIBRARY=os.environ["PLDKIT_HOOKS_LIBRARY"])
            env.pop("PLDKIT_HOOKS_LIBRARY")
            env["PYTHONPATH"] = os.pathsep.join(
                [os.path.dirname(HERE)] +
                ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
            r = subprocess.run(
                [sys.executable, "-m", "unittest", "-q",
                 "test_ledger.TestLedger.test_booked_but_not_durable"],
                cwd=HERE, env=env, capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertNotIn("skipped", r.stderr)
            return
        import warnings
        from pldkit import _lib
        ledger.add(self.path, "gaussian:sigma=3", create=True)
        hook = _lib.lib.pld_test_fail_dir_sync
        hook(1)
        try:
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                pld = ledger.add(self.path, "gaussian:sigma=3")
                pld.save(self.path + ".copy")
        finally:
            hook(0)
        kinds = [x.category for x in w]
        self.assertEqual(kinds, [pldkit.DurabilityWarning] * 2)
        self.assertIn("booked", str(w[0].message))
        self.assertEqual(len(pld.history), 2)
        self.assertEqual(len(ledger.show(self.path).history), 2)
        self.assertEqual(ledger.show(self.path + ".copy").epsilon(1e-5),
                         pld.epsilon(1e-5))


@unittest.skipUnless(ledger.available, "no pld_accountant_merge")
class TestMerge(unittest.TestCase):

    def test_merge_is_the_composition(self):
        a = pldkit.Accountant().compose(pldkit.Gaussian(sigma=2.0), 3)
        b = pldkit.Accountant().compose(pldkit.Gaussian(sigma=2.0), 2)
        b.compose(pldkit.PoissonGaussian(0.1, 1.0), 10)
        whole = pldkit.Accountant().compose(pldkit.Gaussian(sigma=2.0), 5)
        whole.compose(pldkit.PoissonGaussian(0.1, 1.0), 10)
        self.assertIs(a.merge(b), a)
        self.assertEqual(a.num_groups, 2)
        self.assertEqual(a.epsilon(1e-6).upper, whole.epsilon(1e-6).upper)
        # a Gaussian-only merge: closed form, itself merged twice over
        g = pldkit.Accountant().compose(pldkit.Gaussian(sigma=2.0), 3)
        g.merge(g)
        exact = gauss_epsilon(math.sqrt(6) / 2.0, 1e-5)
        r = g.epsilon(1e-5)
        self.assertLessEqual(r.lower, exact * (1 + 1e-12))
        self.assertGreaterEqual(r.upper, exact * (1 - 1e-12))
        self.assertLessEqual(r.upper, exact * (1 + 1e-9))
        again = pickle.loads(pickle.dumps(a))
        self.assertEqual(again.epsilon(1e-6).upper, a.epsilon(1e-6).upper)

    def test_merge_all_or_nothing(self):
        g1 = pldkit.PLD.from_mechanism(pldkit.Gaussian(sigma=2.0), 1e-3)
        g2 = pldkit.PLD.from_mechanism(pldkit.Gaussian(sigma=2.0), 2e-3)
        a = pldkit.Accountant().add_pld(g1)
        b = pldkit.Accountant().compose(pldkit.Gaussian(sigma=1.0))
        b.add_pld(g2)
        before = a.epsilon(1e-5)
        with self.assertRaises(pldkit.IncompatibleGrids):
            a.merge(b)
        self.assertEqual(a.num_groups, 1)
        after = a.epsilon(1e-5)
        self.assertEqual((after.lower, after.upper),
                         (before.lower, before.upper))
        with self.assertRaises(TypeError):
            a.merge("gaussian:sigma=1")


if __name__ == "__main__":
    unittest.main()
