"""MS-PAFL through Python (pldkit.papers.mspafl) and the CLI
(`pldkit mspafl ... --json`): the same library call, so the same numbers to
the last bit, and the certified flags per the table of
docs/papers/ms-pafl.md.  The CLI is $PLDKIT_CLI (tests/test_python.sh sets
it); without it the parity half is skipped."""
import json
import math
import os
import subprocess
import unittest

from pldkit import papers

CLI = os.environ.get("PLDKIT_CLI")

BASE = dict(eps_l=1, delta_l=1e-4)
# (theorem, Python keywords, CLI options, certified, exact available)
CASES = [
    ("lemma1", dict(s=2), ["--s=2"], True, True),
    ("thm1", dict(q=0.2), ["--q=0.2"], True, True),
    ("thm1", dict(sampling="wor", batch=25, n=325),
     ["--sampling=wor", "--batch=25", "--n=325"], True, True),
    ("thm1", dict(sampling="wr", batch=25, n=325),
     ["--sampling=wr", "--batch=25", "--n=325"], False, False),
    ("thm2", dict(p_list=[0.5, 1, 0.3], q_list=[0.2, 0.15, 0.5], beta=1),
     ["--p-list=0.5;1;0.3", "--q-list=0.2;0.15;0.5", "--beta=1"], False,
     True),
    ("cor1", dict(p=0.5, q=0.2, N=100), ["--p=0.5", "--q=0.2", "--N=100"],
     False, True),
    ("cor1", dict(p=0.5, q=0.2, N=100, server_sees_checkin=True),
     ["--p=0.5", "--q=0.2", "--N=100", "--server-sees-checkin=1"], False,
     True),
    ("thm3", dict(p=1, q=0.2, T=1000, c0="appendix"),
     ["--p=1", "--q=0.2", "--T=1000", "--c0=appendix"], False, True),
    ("thm4", dict(p=0.5, q=0.2, N=100, T=10),
     ["--p=0.5", "--q=0.2", "--N=100", "--T=10"], False, True),
    ("thm4", dict(sampling="wor", batch=25, n=325, T=10, round="thm1"),
     ["--sampling=wor", "--batch=25", "--n=325", "--T=10", "--round=thm1"],
     True, True),
]


def num(x):
    return float(x) if not isinstance(x, str) else float(x)


class Flags(unittest.TestCase):

    def test_flags_and_closed_forms(self):
        L = math.sqrt(2 * math.log(1.25e4))
        for th, kw, _, cert, exact in CASES:
            r = papers.mspafl(th, **BASE, **kw)
            self.assertIs(r.certified, cert, (th, kw))
            self.assertEqual(r.kind == "proven bound", cert, (th, kw))
            self.assertIs(r.exact_available, exact, (th, kw))
            self.assertAlmostEqual(r.sigma / kw.get("s", 1), L, delta=1e-13)
            if exact:
                self.assertLessEqual(r.exact_lower, r.exact_upper)
            if cert and th != "lemma1":
                # a proven bound is never below the exact epsilon
                self.assertLessEqual(r.exact_upper, r.epsilon)
        # Cor. 1 re-typed (independent of the library)
        r = papers.mspafl("cor1", **BASE, p=0.5, q=0.2, N=100)
        dp = 2 * math.exp(-2 * 0.0625 * 100)
        self.assertAlmostEqual(r.epsilon, math.log1p(
            0.5 / (1 - dp) * math.expm1(0.4)), delta=1e-14)
        self.assertAlmostEqual(r.delta, dp + 0.1 * 1e-4 / (1 - dp),
                               delta=1e-18)
        # Thm 3: the errata case, below the exact epsilon
        r = papers.mspafl("thm3", **BASE, p=1, q=0.2, T=1000, c0="appendix")
        c0 = math.sqrt(math.log(1e4) / math.log(1.25e4)) / 2
        self.assertAlmostEqual(r.epsilon, c0 * 0.2 * math.sqrt(1000 / 0.8),
                               delta=1e-12)
        self.assertIsNone(r.delta)
        self.assertLess(r.epsilon, r.exact_lower)
        self.assertTrue(6.0 < r.exact_lower <= r.exact_upper < 6.2)

    def test_bad_input(self):
        with self.assertRaises(ValueError):
            papers.mspafl("thm9", **BASE)
        with self.assertRaises(ValueError):
            papers.mspafl("thm3", **BASE, q=0.2)  # no c0
        with self.assertRaises(ValueError):
            papers.mspafl("thm1", **BASE, q=0.2, sampling="bogus")
        with self.assertRaises(Exception):
            papers.mspafl("thm1", eps_l=2, delta_l=1e-4, q=0.2)
        with self.assertRaises(Exception):
            papers.mspafl("cor1", **BASE)  # no q


@unittest.skipUnless(CLI, "PLDKIT_CLI not set")
class Parity(unittest.TestCase):

    def test_cli_equals_python(self):
        for th, kw, opts, cert, exact in CASES:
            p = subprocess.run([CLI, "mspafl", th, "--eps_l=1",
                                "--delta_l=1e-4", *opts, "--json"],
                               capture_output=True, text=True, timeout=300)
            self.assertEqual(p.returncode, 0, p.stderr)
            d = json.loads(p.stdout)
            r = papers.mspafl(th, **BASE, **kw)
            c = d["closed_form"]
            self.assertEqual(num(c["epsilon"]), r.epsilon, th)
            if r.delta is None:
                self.assertIsNone(c["delta"])
            else:
                self.assertEqual(c["delta"], r.delta, th)
            self.assertIs(c["certified"], r.certified)
            self.assertEqual(c["kind"], r.kind)
            self.assertEqual(d["sigma"], r.sigma)
            self.assertEqual(d["rate"], r.rate)
            self.assertEqual(d["rounds"], r.rounds)
            e = d["exact_pld"]
            self.assertIs(e["available"], r.exact_available)
            self.assertEqual(e["model"], r.exact_model)
            if r.exact_available:
                self.assertEqual(e["epsilon_lower"], r.exact_lower, th)
                self.assertEqual(e["epsilon_upper"], r.exact_upper, th)
                self.assertEqual(e["delta"], r.exact_delta, th)


if __name__ == "__main__":
    unittest.main()
