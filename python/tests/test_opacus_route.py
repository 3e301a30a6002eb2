"""pldkit.opacus plugged into Opacus: PrivacyEngine(accountant="pld"),
make_private_with_epsilon and get_noise_multiplier(accountant="pld") on
stand-ins of released Opacus 1.4.0 and 1.5.4 (standins/opacus_standin.py:
the modules involved, with their released names and signatures), on the
unreleased registry layout, and on the real Opacus when it can be imported
(Debian has torch but no Opacus package: skipped otherwise).  Each case runs
in a fresh interpreter, so that the import order is the one tested."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
PYDIR = os.path.normpath(os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "standins"))
sys.path.insert(0, PYDIR)

import opacus_standin  # noqa: E402
import pldkit.opacus as po  # noqa: E402

# run in the child: the engine as a user drives it; prints a JSON report
_SCRIPT = r'''
import json, sys
order = sys.argv[1]
if order == "pldkit-first":
    import pldkit.opacus
    import opacus
elif order == "opacus-first":
    import opacus
    import pldkit.opacus
else:
    import opacus
from opacus import PrivacyEngine
import opacus.accountants
import opacus.accountants.utils as utils
out = {"version": opacus.__version__}
try:
    engine = PrivacyEngine(accountant="pld")
except ValueError as e:
    out["error"] = str(e)
    print(json.dumps(out)); sys.exit(0)
out["accountant"] = type(engine.accountant).__module__ + "." + type(engine.accountant).__name__
out["is_iaccountant"] = isinstance(engine.accountant, opacus.accountants.IAccountant)

class Loader:
    def __len__(self):
        return 250          # sample rate 1/250
class Optimizer:
    def __init__(self):
        self.step_hooks = []
        self.accumulated_iterations = 1
    def step(self):
        for h in self.step_hooks:
            h(self)
opt = Optimizer()
_, opt, _ = engine.make_private_with_epsilon(
    module=None, optimizer=opt, data_loader=Loader(), target_epsilon=2.0,
    target_delta=1e-5, epochs=2, max_grad_norm=1.0,
    grad_sample_mode="hooks", clipping_mode_extra=1)
out["sigma"] = opt.noise_multiplier
for _ in range(500):
    opt.step()
out["history"] = engine.accountant.history
out["epsilon"] = engine.get_epsilon(1e-5)
out["utils_sigma"] = utils.get_noise_multiplier(
    target_epsilon=2.0, target_delta=1e-5, sample_rate=1 / 250, epochs=2,
    accountant="pld")
out["rdp_sigma"] = utils.get_noise_multiplier(
    target_epsilon=2.0, target_delta=1e-5, sample_rate=1 / 250, epochs=2,
    accountant="rdp")
out["rdp_engine"] = type(PrivacyEngine(accountant="rdp").accountant).__name__
print(json.dumps(out))
'''


def run(root, order):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (root, PYDIR, env.get("PYTHONPATH")) if p)
    p = subprocess.run([sys.executable, "-c", _SCRIPT, order], env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, timeout=600)
    if p.returncode != 0:
        raise AssertionError("child failed:\n" + p.stderr)
    return json.loads(p.stdout.strip().splitlines()[-1])


class TestOpacusRoute(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.roots = {}
        for v in ("1.4.0", "1.5.4", "registry"):
            root = os.path.join(cls.tmp.name, v)
            opacus_standin.write(root, v)
            cls.roots[v] = root
        cls.want_sigma = po.get_noise_multiplier(
            target_epsilon=2.0, target_delta=1e-5, sample_rate=1 / 250,
            epochs=2)
        acc = po.PLDAccountant()
        acc.history = [(cls.want_sigma, 1 / 250, 500)]
        cls.want_eps = acc.get_epsilon(1e-5)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_standin_refuses_pld_without_pldkit(self):
        # the stand-in is faithful: released Opacus does not know "pld"
        for v in ("1.4.0", "1.5.4"):
            out = run(self.roots[v], "no-pldkit")
            self.assertEqual(out.get("error"),
                             "Unexpected accounting mechanism: pld")

    def check(self, out):
        self.assertNotIn("error", out)
        self.assertEqual(out["accountant"], "pldkit.opacus.PLDAccountant")
        self.assertTrue(out["is_iaccountant"])
        self.assertEqual(out["sigma"], self.want_sigma)
        self.assertEqual(out["utils_sigma"], self.want_sigma)
        self.assertEqual(out["history"], [[self.want_sigma, 1 / 250, 500]])
        self.assertEqual(out["epsilon"], self.want_eps)
        self.assertLessEqual(out["epsilon"], 2.0)
        self.assertGreater(out["epsilon"], 2.0 - 0.05)
        # the other mechanisms are Opacus' own, untouched
        self.assertEqual(out["rdp_engine"], "RDPAccountant")
        self.assertNotEqual(out["rdp_sigma"], self.want_sigma)

    def test_released_versions_both_import_orders(self):
        for v in ("1.4.0", "1.5.4"):
            for order in ("pldkit-first", "opacus-first"):
                with self.subTest(version=v, order=order):
                    out = run(self.roots[v], order)
                    self.assertEqual(out["version"], v)
                    self.check(out)

    def test_unreleased_registry(self):
        for order in ("pldkit-first", "opacus-first"):
            with self.subTest(order=order):
                self.check(run(self.roots["registry"], order))

    def test_real_opacus_if_importable(self):
        probe = subprocess.run([sys.executable, "-c", "import opacus"],
                               stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
        if probe.returncode != 0:
            self.skipTest("opacus is not importable (no Debian package)")
        code = ("import pldkit.opacus, opacus, opacus.privacy_engine as pe\n"
                "e = opacus.PrivacyEngine(accountant='pld')\n"
                "assert type(e.accountant).__name__ == 'PLDAccountant'\n"
                "print(pe.get_noise_multiplier(target_epsilon=2.0, "
                "target_delta=1e-5, sample_rate=1/250, epochs=2, "
                "accountant='pld'))\n")
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(
            p for p in (PYDIR, env.get("PYTHONPATH")) if p)
        p = subprocess.run([sys.executable, "-c", code], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True, timeout=600)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(float(p.stdout.split()[-1]), self.want_sigma)


class TestHistoryAwareEpsilon(unittest.TestCase):

    def test_answers_follow_the_history(self):
        acc = po.PLDAccountant()
        for _ in range(100):
            acc.step(noise_multiplier=1.0, sample_rate=0.01)
        e100 = acc.get_epsilon(1e-5)
        self.assertIs(acc.epsilon(1e-5), acc.epsilon(1e-5))  # remembered
        acc.step(noise_multiplier=1.0, sample_rate=0.01)
        e101 = acc.get_epsilon(1e-5)
        self.assertGreater(e101, e100)
        # Opacus' get_noise_multiplier assigns the history directly
        acc.history = [(1.0, 0.01, 100)]
        self.assertEqual(acc.get_epsilon(1e-5), e100)
        acc.history = [(2.0, 0.01, 100)]
        self.assertLess(acc.get_epsilon(1e-5), e100)
        fresh = po.PLDAccountant()
        fresh.history = [(2.0, 0.01, 100)]
        self.assertEqual(acc.get_epsilon(1e-5), fresh.get_epsilon(1e-5))
        # a different delta is a different answer
        self.assertNotEqual(acc.get_epsilon(1e-3), acc.get_epsilon(1e-5))


if __name__ == "__main__":
    unittest.main()
