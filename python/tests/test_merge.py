"""Tests of pldkit.merge (the model-merging paper's bindings).

Run from the repository root:

    PYTHONPATH=python python3 -m unittest python/tests/test_merge.py -v

Independent values: the CLI's `pldkit merge --json` (the same library
reached through another front end, compared to the last digit), the
Poisson-Gaussian accountant and RDP (a one-run LC is that mechanism), the
catalogue's merge-lc events composed piece by piece (a schedule is that
composition), closed forms (advanced composition, sigma_LC, the Gaussian's
RDP alpha Delta^2 / (2 sigma^2)), and pickle round trips.
"""

import json
import math
import os
import pickle
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.normpath(os.path.join(HERE, "..")))

import pldkit  # noqa: E402
from pldkit import merge as M  # noqa: E402


def _find_cli():
    cli = os.environ.get("PLDKIT_CLI")
    if cli:
        return cli
    d = os.path.dirname(os.path.abspath(pldkit.library_path))
    cand = os.path.join(d, "pldkit")
    return cand if os.access(cand, os.X_OK) else None


CLI = _find_cli()
Q = 256 / 60000  # 0.004266666666666667, the configs' q
CFG2 = os.path.join(ROOT, "tests", "data", "mnist_merge_2runs.json")


def _drop_notes(x):
    """The CLI's JSON without its prose ("note") and timing ("seconds")."""
    if isinstance(x, dict):
        return {k: _drop_notes(v) for k, v in x.items()
                if k not in ("note", "seconds")}
    if isinstance(x, list):
        return [_drop_notes(v) for v in x]
    return x


@unittest.skipUnless(M.available, "no merge.h in this libpldkit")
class TestPlanner(unittest.TestCase):

    @unittest.skipIf(CLI is None, "pldkit CLI not found (set PLDKIT_CLI)")
    def test_plan_equals_cli_json(self):
        out = subprocess.run([CLI, "merge", "--config", CFG2, "--json"],
                             check=True, stdout=subprocess.PIPE).stdout
        cli = _drop_notes(json.loads(out.decode()))
        with open(CFG2) as f:
            cfg = json.load(f)
        seen = []
        rep = M.plan(cfg["runs"], cfg["epsilon"], cfg["delta"],
                     progress=lambda fr, st: seen.append((fr, st)))
        py = rep.as_dict()
        # every number to the last digit (the CLI prints round-trip exact
        # decimals), every flag and key
        self.assertEqual(py, cli)
        self.assertEqual(rep.n, 2)
        self.assertEqual(len(rep.points), 21)
        # progress was reported, within [0, 1]
        self.assertTrue(seen)
        self.assertTrue(all(0.0 <= fr <= 1.0 for fr, _ in seen))
        # a grid point's LC PLD is pld_merge_epsilon's at the same accuracy
        g = 7
        w = rep.weights[g]
        e = M.merge_epsilon(rep.runs, w, "lc_pld", cfg["delta"],
                            accuracy=0.01)
        self.assertEqual(e, rep.points[g]["lc_pld"].upper)

    def test_plan_threads(self):
        """threads=3 (the CLI's --threads): the same report to the last
        digit, progress from the calling thread; a bad count is refused."""
        runs = [M.Run(Q, 0.5, 1, 0.1, 100), M.Run(Q, 0.5, 2, 0.1, 100),
                M.Run(Q, 2.0, 1, 0.1, 100)]
        one = M.plan(runs, 2.0, 1e-5, resolution=3, threads=1).as_dict()
        auto = M.plan(runs, 2.0, 1e-5, resolution=3).as_dict()  # the CLI's
        self.assertEqual(one, auto)  # default count: online CPUs, <= 8
        self.assertTrue(1 <= M._online_cpus() <= 8)
        seen = []
        three = M.plan(runs, 2.0, 1e-5, resolution=3, threads=3,
                       progress=lambda fr, st: seen.append(fr)).as_dict()
        self.assertEqual(one, three)
        self.assertTrue(seen and seen == sorted(seen))
        for bad in (0, 65):
            with self.assertRaises(pldkit.InvalidArgument):
                M.plan(runs, 2.0, 1e-5, threads=bad)

    def test_plan_bad_input(self):
        runs = [M.Run(Q, 0.5, 1, 0.1, 10)]
        with self.assertRaises(pldkit.InvalidArgument):
            M.plan(runs, -1.0, 1e-5)
        with self.assertRaises(pldkit.InvalidArgument):
            M.plan(runs, 1.0, 1.5)
        with self.assertRaises(pldkit.InvalidArgument):
            M.plan(runs * 6, 1.0, 1e-5)
        with self.assertRaises(pldkit.InvalidArgument):
            M.plan([M.Run(Q, -0.5, 1, 0.1, 10)], 1.0, 1e-5)
        with self.assertRaises(TypeError):
            M.plan([("a", 1, 1, 1, 1)], 1.0, 1e-5)

    def test_grid_size_and_warnings(self):
        self.assertEqual(M.grid_size(3, 10), 66)  # C(12, 2)
        self.assertEqual(M.grid_size(2, 20), 21)
        with self.assertRaises(pldkit.OutOfRange):
            M.grid_size(5, 10000)
        self.assertTrue(M.warning_text(1))
        self.assertEqual(M.warning_text(1 << 30), "")


@unittest.skipUnless(M.available, "no merge.h in this libpldkit")
class TestLinearCombination(unittest.TestCase):

    def test_unit_weight_is_the_single_run(self):
        """lambda = (1, 0): the merged model is run 0, whose LC pair is
        Poisson-Gaussian(q, sigma) (scale-free in lr * clip); the LC PLD
        and pldkit.epsilon's Poisson-Gaussian bracket the same epsilon."""
        runs = [M.Run(Q, 0.5, 1, 0.1, 705), M.Run(Q, 2, 1, 0.1, 705)]
        lc = M.lc_accountant(runs, [1, 0]).epsilon(1e-5)
        pg = pldkit.epsilon(1e-5, "poisson-gaussian:q=%r,sigma=0.5,count=705"
                            % Q)
        self.assertLessEqual(lc.lower, pg.upper)
        self.assertLessEqual(pg.lower, lc.upper)
        # each bracket within the default accuracy 2e-3, so the certified
        # uppers agree to that (both sides)
        for r in (lc, pg):
            self.assertLessEqual(r.upper - r.lower, 2.5e-3 * r.upper)
        self.assertLess(abs(lc.upper - pg.upper), 2.5e-3 * pg.upper)
        # RDP: the same, to the mixture quadrature's margin
        a = M.lc_rdp(runs, [1, 0])
        b = pldkit.RdpCurve().add_poisson_gaussian(Q, 0.5, 1.0, 705)
        for x, y in zip(a.values, b.values):
            self.assertLessEqual(abs(x - y), 1e-6 * y)

    def test_step_mech_is_the_catalogue_event(self):
        runs = [M.Run(Q, 0.5, 1, 0.1), M.Run(Q, 2, 1, 0.1)]
        with M.LcStep(runs, [0.3, 0.7]) as m:
            acc = pldkit.Accountant().compose(m, 705)
        a = acc.epsilon(1e-5)
        b = pldkit.epsilon(1e-5, "merge-lc:lambda=0.3;0.7,q=%r;%r,"
                           "sigma=0.5;2,clip=1;1,lr=0.1;0.1,count=705"
                           % (Q, Q))
        self.assertEqual((a.lower, a.upper), (b.lower, b.upper))
        # and the LC accountant of two full runs
        c = M.lc_accountant([r._replace(steps=705) for r in runs],
                            [0.3, 0.7]).epsilon(1e-5)
        self.assertEqual((a.lower, a.upper), (c.lower, c.upper))

    def test_schedule_is_composed_merge_lc_events(self):
        """A two-phase schedule (learning rate halved and clipping norm
        changed after 300 steps, sampling rate raised) equals the
        catalogue's merge-lc events for the pieces, to the last digit:
        composing merge-lc events for consecutive phases IS the schedule
        semantics."""
        r0 = [M.Run(Q, 0.5, 1, 0.1, 300), M.Run(2 * Q, 0.5, 1.5, 0.05, 405)]
        r1 = [M.Run(Q, 2, 1, 0.1, 300), M.Run(2 * Q, 2, 1, 0.05, 405)]
        lam = [0.4, 0.6]
        s = M.lc_accountant([r0, r1], lam).epsilon(1e-5)
        ev = pldkit.epsilon(
            1e-5,
            "merge-lc:lambda=0.4;0.6,q=%r;%r,sigma=0.5;2,clip=1;1,"
            "lr=0.1;0.1,count=300" % (Q, Q),
            "merge-lc:lambda=0.4;0.6,q=%r;%r,sigma=0.5;2,clip=1.5;1,"
            "lr=0.05;0.05,count=405" % (2 * Q, 2 * Q))
        self.assertEqual((s.lower, s.upper), (ev.lower, ev.upper))
        # RDP: the pieces' sum
        a = M.lc_rdp([r0, r1], lam)
        b = M.lc_rdp([r0[0], r1[0]], lam)
        c = M.lc_rdp([r0[1], r1[1]], lam)
        for x, y, z in zip(a.values, b.values, c.values):
            self.assertLessEqual(abs(x - (y + z)), 1e-13 * (y + z))

    def test_schedule_of_equal_phases_is_the_plain_run(self):
        runs = [M.Run(Q, 0.5, 1, 0.1, 705), M.Run(Q, 2, 1, 0.1, 500)]
        lam = [0.5, 0.5]
        plain = M.lc_accountant(runs, lam)
        cut = [[runs[0]._replace(steps=k) for k in (100, 400, 205)],
               [runs[1]]]
        sched = M.lc_accountant(cut, lam)
        self.assertEqual(plain.num_groups, sched.num_groups)
        a, b = plain.epsilon(1e-5), sched.epsilon(1e-5)
        self.assertEqual((a.lower, a.upper), (b.lower, b.upper))

    def test_pickle_replays_the_same_events(self):
        r0 = [M.Run(Q, 0.5, 1, 0.1, 300), M.Run(2 * Q, 0.5, 1.5, 0.05, 405)]
        r1 = [M.Run(Q, 2, 1, 0.1, 500)]
        accs = [M.lc_accountant([r0, r1], [0.4, 0.6]),
                M.lc_accountant([M.Run(Q, 0.5, 1, 0.1, 50),
                                 M.Run(Q, 2, 1, 0.1, 70)], [0, 1]),
                M.joint_accountant([M.Run(Q, 0.5, 1, 0.1, 100),
                                    M.Run(Q, 0.5, 2, 0.1, 100),
                                    M.Run(Q, 2, 1, 0.1, 50)]),
                M.rs_accountant([M.Run(Q, 0.5, 1, 0.1, 100),
                                 M.Run(Q, 2, 1, 0.1, 100)], [0.25, 0.75])]
        for acc in accs:
            acc.step(1.0, Q, 10)  # composes further
            back = pickle.loads(pickle.dumps(acc))
            a, b = acc.epsilon(1e-5), back.epsilon(1e-5)
            self.assertEqual((a.lower, a.upper), (b.lower, b.upper))
            self.assertEqual(acc.num_groups, back.num_groups)

    def test_bad_input(self):
        runs = [M.Run(Q, 0.5, 1, 0.1, 10), M.Run(Q, 2, 1, 0.1, 10)]
        with self.assertRaises(pldkit.InvalidArgument) as cm:
            M.lc_accountant(runs, [0.5, 0.6])
        self.assertIn("lambda", str(cm.exception))
        with self.assertRaises(pldkit.InvalidArgument):
            M.lc_accountant(runs, [1.0])
        with self.assertRaises(pldkit.InvalidArgument):
            M.lc_accountant(runs * 3, [1 / 6] * 6)
        with self.assertRaises(pldkit.InvalidArgument):
            M.lc_accountant([[], runs[1]], [0.5, 0.5])
        with self.assertRaises(pldkit.InvalidArgument):
            M.lc_accountant([[runs[0]._replace(steps=0)], runs[1]],
                            [0.5, 0.5])
        with self.assertRaises(pldkit.InvalidArgument):
            M.lc_rdp([[runs[0]._replace(q=2.0)], runs[1]], [0.5, 0.5])
        with self.assertRaises(pldkit.InvalidArgument):
            M.LcStep(runs, [0, 0])
        with self.assertRaises(TypeError):
            M.lc_accountant([{"q": Q, "sigma": 1, "bogus": 1}], [1])
        with self.assertRaises(ValueError):
            M.merge_epsilon(runs, [0.5, 0.5], "lc", 1e-5)


@unittest.skipUnless(M.available, "no merge.h in this libpldkit")
class TestBaselines(unittest.TestCase):

    def test_joint_is_the_composed_runs(self):
        runs = [M.Run(Q, 0.5, 1, 0.1, 100), M.Run(Q, 2, 3, 0.1, 70)]
        a = M.joint_accountant(runs).epsilon(1e-5)
        ref = pldkit.Accountant()
        ref.compose(pldkit.PoissonGaussian(Q, 0.5), 100)
        ref.compose(pldkit.PoissonGaussian(Q, 2.0), 70)
        b = ref.epsilon(1e-5)
        self.assertEqual((a.lower, a.upper), (b.lower, b.upper))
        c = M.joint_rdp(runs)
        d = pldkit.RdpCurve().add_poisson_gaussian(Q, 0.5, 1.0, 100)
        d.add_poisson_gaussian(Q, 2.0, 1.0, 70)
        for x, y in zip(c.values, d.values):
            self.assertLessEqual(abs(x - y), 1e-12 * y)

    def test_rs_weight_one_is_the_run(self):
        runs = [M.Run(Q, 0.5, 1, 0.1, 100), M.Run(Q, 2, 1, 0.1, 100)]
        a = M.rs_accountant(runs, [1.0, 0.0]).epsilon(1e-5)
        b = pldkit.epsilon(1e-5, "poisson-gaussian:q=%r,sigma=0.5,count=100"
                           % Q)
        self.assertLessEqual(a.lower, b.upper)
        self.assertLessEqual(b.lower, a.upper)
        self.assertLess(abs(a.upper - b.upper), 2.5e-3 * b.upper)
        # RDP of RS (Thm 5.1) is at most the worse member and at least the
        # better one (a mixture of the two curves' exponentials)
        c = M.rs_rdp(runs, [0.5, 0.5]).values
        lo = pldkit.RdpCurve().add_poisson_gaussian(Q, 2.0, 1.0, 100).values
        hi = pldkit.RdpCurve().add_poisson_gaussian(Q, 0.5, 1.0, 100).values
        for x, l, h in zip(c, lo, hi):
            self.assertLessEqual(l * (1 - 1e-12), x)
            self.assertLessEqual(x, h * (1 + 1e-12))

    def test_advanced_composition_closed_form(self):
        # identical eps: eps sqrt(2 n log(1/d0)) + n eps (e^eps - 1)
        for eps, n, d0 in ((0.1, 10, 1e-6), (1.0, 3, 1e-5), (0.01, 1000, 1e-8)):
            e, d = M.advanced_composition([eps] * n, [1e-7] * n, d0)
            want = (eps * math.sqrt(2 * n * math.log(1 / d0))
                    + n * eps * math.expm1(eps))
            self.assertGreaterEqual(e, want * (1 - 1e-15))  # upward rounding
            self.assertLessEqual(e, want * (1 + 1e-12))
            # delta_out = sum delta_i + delta0, rounded upward
            self.assertGreaterEqual(d, (n * 1e-7 + d0) * (1 - 1e-15))
            self.assertLessEqual(d, (n * 1e-7 + d0) * (1 + 1e-12))
        with self.assertRaises(pldkit.InvalidArgument):
            M.advanced_composition([1.0], [1e-6], 1.0)
        with self.assertRaises(pldkit.InvalidArgument):
            M.advanced_composition([1.0, 2.0], [1e-6], 0.5)

    def test_max_weight_is_feasible(self):
        runs = [M.Run(Q, 0.5, 1, 0.1, 705), M.Run(Q, 2, 1, 0.1, 705)]
        # (rs_pld rebuilds the members per evaluation: ~9 s, so not here;
        # the planner's value is checked against the CLI above)
        w = M.max_weight(runs, "lc_rdp", 2.0, 1e-5)
        self.assertTrue(0.0 < w < 1.0)
        self.assertLessEqual(M.merge_epsilon(runs, [w, 1 - w], "lc_rdp",
                                             1e-5), 2.0)
        # the other side: the search stops within 1e-4 relative, so a
        # weight 1e-3 larger is infeasible
        w2 = w * (1 + 1e-3)
        self.assertGreater(M.merge_epsilon(runs, [w2, 1 - w2], "lc_rdp",
                                           1e-5), 2.0)
        with self.assertRaises(pldkit.InvalidArgument):
            M.max_weight(runs[:1], "rs_rdp", 2.0, 1e-5)


@unittest.skipUnless(M.available, "no merge.h in this libpldkit")
class TestMeanEstimation(unittest.TestCase):

    def test_sigma_lc(self):
        s = M.mean_sigma_lc(1.0, 2.0, 0.3)
        want = math.sqrt(0.09 * 1.0 + 0.49 * 4.0)
        self.assertGreaterEqual(s, want)  # rounded up
        self.assertLessEqual(s, want * (1 + 4e-16))

    def test_lc_is_the_gaussian(self):
        with M.MeanLC(1.0, 2.0, 0.3, 0.5) as m:
            s = M.mean_sigma_lc(1.0, 2.0, 0.3)
            for eps in (0.0, 0.5, 2.0):
                # H_{e^eps} of N(Delta, s^2) vs N(0, s^2), closed form
                mu = 0.5 / s
                want = (0.5 * math.erfc((eps / mu - mu / 2) / math.sqrt(2))
                        - math.exp(eps) * 0.5
                        * math.erfc((eps / mu + mu / 2) / math.sqrt(2)))
                got = m.delta(eps)
                # sigma_LC is rounded DOWN inside: never below the truth
                self.assertGreaterEqual(got, want * (1 - 1e-12))
                self.assertLessEqual(got, want * (1 + 1e-9))

    def test_rs_equal_sigmas_is_the_gaussian(self):
        """pi N(0, s^2) + (1-pi) N(0, s^2) is N(0, s^2): the RS pair of
        equal estimates is the Gaussian mechanism, RDP alpha D^2/(2 s^2)."""
        c = M.mean_rs_rdp(1.5, 1.5, 0.3, 0.7)
        for a, v in zip(c.orders, c.values):
            want = a * 0.49 / (2 * 2.25)
            self.assertGreaterEqual(v, want * (1 - 1e-12))
            self.assertLessEqual(v, want * (1 + 1e-9))
        with M.MeanRS(1.5, 1.5, 0.3, 0.7) as m, \
                pldkit.Gaussian(1.5, 0.7) as g:
            for eps in (0.0, 0.3, 1.0):
                self.assertAlmostEqual(m.delta(eps), g.delta(eps),
                                       delta=1e-10 * g.delta(eps))

    def test_pickle_mechanisms(self):
        for m in (M.MeanLC(1.0, 2.0, 0.3, 0.5), M.MeanRS(1.0, 2.0, 0.3, 0.5),
                  M.LcStep([M.Run(Q, 0.5), M.Run(Q, 2)], [0.5, 0.5])):
            back = pickle.loads(pickle.dumps(m))
            self.assertEqual(m.delta(0.5), back.delta(0.5))


if __name__ == "__main__":
    unittest.main()
