"""Parity: every event of the library's catalogue, under both backends,
through the CLI and through Python, gives the same numbers to the last digit
(and the same refusal when a backend cannot answer it).

The CLI is $PLDKIT_CLI (tests/test_python.sh sets it); without it the test
is skipped.
"""
import json
import os
import subprocess
import tempfile
import unittest

import pldkit

CLI = os.environ.get("PLDKIT_CLI")


def cli_json(*args):
    p = subprocess.run([CLI, *args, "--json"], capture_output=True,
                       text=True, timeout=300)
    if p.returncode != 0:
        return p.returncode, p.stderr.strip()
    return 0, json.loads(p.stdout)


def num(x):
    return float(x) if not isinstance(x, str) else float(x.replace(
        "inf", "inf"))


@unittest.skipUnless(CLI, "PLDKIT_CLI not set")
class Parity(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.ledger = os.path.join(cls.tmp.name, "ledger.pld")
        p = subprocess.run([CLI, "save", "--out", cls.ledger,
                            "gaussian:sigma=3,count=2"], capture_output=True,
                           text=True)
        assert p.returncode == 0, p.stderr

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def examples(self):
        cat = pldkit.catalogue()
        self.assertGreaterEqual(len(cat), 10)
        for e in cat:
            text = e["example"]
            if e["name"] == "pld":
                text = "pld:file=" + self.ledger
            self.assertIsNotNone(text, "event %s has no example" % e["name"])
            self.assertTrue(text.startswith(e["name"]), text)
            yield e, text

    def check(self, query, x, text, backend):
        flag = "--delta" if query == "epsilon" else "--epsilon"
        rc, out = cli_json(query, flag, repr(x), "--backend", backend, text)
        fn = pldkit.epsilon if query == "epsilon" else pldkit.delta
        try:
            r = fn(x, text, backend=backend)
        except pldkit.PldkitError as err:
            self.assertNotEqual(rc, 0, "%s %s: Python raised %s, the CLI "
                                "answered" % (backend, text, err))
            # the same sentence (the CLI adds "pldkit: " and maybe a hint)
            self.assertIn(err.message.split(" (while")[0][:60], out,
                          "%s %s" % (backend, text))
            return None
        self.assertEqual(rc, 0, "%s %s: the CLI failed (%s), Python "
                         "answered" % (backend, text, out))
        if backend in ("pld", "both"):
            pr = r[0] if backend == "both" else r
            o = out["pld"] if backend == "both" else out
            self.assertEqual(num(o[query + "_upper"]), pr.upper, text)
            self.assertEqual(num(o[query + "_lower"]), pr.lower, text)
        if backend in ("rdp", "both"):
            rr = r[1] if backend == "both" else r
            o = out["rdp"] if backend == "both" else out
            key = "rdp_" + query
            self.assertIn(key, o, o)
            self.assertEqual(num(o[key]), rr.value, text)
        return r

    def test_every_event_epsilon(self):
        n = 0
        for e, text in self.examples():
            for backend in ("pld", "rdp"):
                with self.subTest(event=e["name"], backend=backend):
                    r = self.check("epsilon", 1e-5, text, backend)
                    if backend == "pld" and e["has_pld"]:
                        self.assertIsNotNone(r, text)
                    n += 1
        self.assertGreater(n, 20)

    def test_model_splitting_total(self):
        # a key's non-default choice takes the same path in both front ends
        r = self.check("epsilon", 1e-5,
                       "model-splitting:d=10,k=2,sigma=1,c=1,clip=total",
                       "pld")
        self.assertIsNotNone(r)
        self.assertLess(r.lower, r.upper)

    def test_every_event_delta(self):
        for e, text in self.examples():
            for backend in ("pld", "rdp"):
                with self.subTest(event=e["name"], backend=backend):
                    self.check("delta", 1.0, text, backend)

    def test_both(self):
        self.check("epsilon", 1e-6,
                   "poisson-gaussian:q=0.02,sigma=1.2,count=500", "both")

    def test_curve(self):
        text = "poisson-gaussian:q=0.05,sigma=1,count=50+gaussian:sigma=4"
        p = subprocess.run([CLI, "curve", "--epsilon-range", "0.5:2:4",
                            "--json",
                            text], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        out = json.loads(p.stdout)
        r = pldkit.curve([0.5, 1.0, 1.5, 2.0], text)
        self.assertEqual([num(x) for x in out["delta_upper"]], r.upper)
        self.assertEqual([num(x) for x in out["delta_lower"]], r.lower)

    def test_bad_input_same_message(self):
        text = "poisson-gaussian:q=1.5,sigma=1"
        rc, msg = cli_json("epsilon", "--delta", "1e-5", text)
        self.assertEqual(rc, 2)
        with self.assertRaises(pldkit.InvalidArgument) as cm:
            pldkit.epsilon(1e-5, text)
        self.assertIn(cm.exception.message, msg)


if __name__ == "__main__":
    unittest.main()
