#!/usr/bin/env python3
"""bench/budget_agreement.py and bench/default_agreement.py on small hand-written JSON reports (ctest
bench.agreement; no GPU, no limiter build): the budget's launches as LaunchSelector::select takes
them (S skipped, then C; a group launched S times or fewer gets none), a group's budgeted verdict
(most time, ties: the earlier launch), the agreement worked out by hand, the default run's
phase end, a run record read through a stand-in limiter, and the default run's three checks."""
import io
import json
import os
import stat
import sys
import tempfile
import unittest
from contextlib import redirect_stdout

here = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no bench/__pycache__ in the checkout
sys.path.insert(0, os.path.join(here, ".."))
import budget_agreement as ba  # noqa: E402
import default_agreement as da  # noqa: E402


def launch(sequence, name, verdict, duration, grid=(1, 1, 1), block=(32, 1, 1)):
    return {"sequence": sequence, "name": name, "grid": list(grid), "block": list(block), "duration_ns": duration,
            "verdict": verdict}


def report(kernels, **fields):
    return dict({"schema_version": 1, "kind": "limiter-report", "source": "cupti", "kernels": kernels,
                 "rollup": {"groups": []}}, **fields)


# In launch order: A three times (latency, then instruction twice), B twice, C once; 100 ns in all.
EVERY = report([launch(0, "A", "latency", 10), launch(1, "B", "bandwidth", 5), launch(2, "A", "instruction", 30),
                launch(3, "A", "instruction", 30), launch(4, "B", "bandwidth", 5), launch(5, "C", "latency", 20)])


def write(folder, name, data):
    path = os.path.join(folder, name)
    with open(path, "w") as f:
        json.dump(data, f)
    return path


def run(main, argv):
    out = io.StringIO()
    with redirect_stdout(out):
        rc = main(argv)
    return rc, out.getvalue()


class Selection(unittest.TestCase):
    def setUp(self):
        self.launches = ba.launches_of(EVERY)

    def test_skip_then_count_per_group(self):
        names = lambda sel: [(self.launches[i]["key"][0], self.launches[i]["sequence"]) for i in sel]  # noqa: E731
        self.assertEqual(names(ba.budget_selection(self.launches, 0, 1)), [("A", 0), ("B", 1), ("C", 5)])
        # C is launched once: S=1 skips it and nothing takes its place (launch_selector.cpp).
        self.assertEqual(names(ba.budget_selection(self.launches, 1, 1)), [("A", 2), ("B", 4)])
        self.assertEqual(names(ba.budget_selection(self.launches, 2, 3)), [("A", 3)])
        self.assertEqual(len(ba.budget_selection(self.launches, 0, 2)), 5)

    def test_configurations_are_groups(self):
        launches = ba.launches_of(report([launch(0, "A", "latency", 1), launch(1, "A", "latency", 1, grid=(2, 1, 1))]))
        self.assertEqual(ba.budget_selection(launches, 0, 1), [0, 1])

    def test_main_verdict_ties_go_to_the_earlier_launch(self):
        launches = ba.launches_of(report([launch(0, "D", "latency", 10), launch(1, "D", "bandwidth", 10)]))
        self.assertEqual(ba.main_verdict(launches, [0, 1]), "latency")
        launches = ba.launches_of(report([launch(0, "D", "bandwidth", 10), launch(1, "D", "latency", 10)]))
        self.assertEqual(ba.main_verdict(launches, [0, 1]), "bandwidth")
        launches = ba.launches_of(report([launch(0, "D", None, 1), launch(1, "D", "latency", 3)]))
        self.assertEqual(ba.main_verdict(launches, [0]), "none")

    def test_agreement_by_hand(self):
        def agree(skip, count):
            share, unprofiled, _ = ba.agreement(self.launches, ba.budget_selection(self.launches, skip, count))
            return round(100 * share, 6), round(100 * unprofiled, 6)
        self.assertEqual(agree(0, 1), (40.0, 0.0))   # A latency (10), B (10), C (20)
        self.assertEqual(agree(1, 1), (70.0, 20.0))  # A instruction (60), B (10); C never profiled
        self.assertEqual(agree(0, 2), (90.0, 0.0))   # A: instruction 30 over latency 10
        self.assertEqual(agree(2, 1), (60.0, 30.0))  # only A (its third launch); B and C never

    def test_phase_end(self):
        # A once, then 70 launches of B, then C first seen: with C=1, B's 69 later launches select
        # nothing, and the phase ends before C after 64 of them.
        kernels = [launch(0, "A", "latency", 10)] + [launch(1 + i, "B", "latency", 1) for i in range(70)] + \
                  [launch(71, "C", "bandwidth", 20)]
        launches = ba.launches_of(report(kernels))
        self.assertEqual(len(ba.budget_selection(launches, 0, 1)), 3)
        self.assertEqual(len(ba.budget_selection(launches, 0, 1, phase_end=64)), 2)
        self.assertEqual(len(ba.budget_selection(launches, 0, 1, phase_end=100)), 3)
        share, unprofiled, _ = ba.agreement(launches, ba.budget_selection(launches, 0, 1, phase_end=64))
        self.assertAlmostEqual(unprofiled, 20 / 100)
        # A graph launch is one call: 70 launches of B as 7 launches of a graph of 10 nodes never reach 64.
        record = {"launches": [{"sequence": 1 + i, "graph_id": 5, "graph_node": i % 10} for i in range(70)]}
        launches = ba.launches_of(report(kernels), record)
        self.assertEqual([launches[i]["call"] for i in (0, 1, 10, 11, 70, 71)], [0, 1, 1, 2, 7, 8])
        self.assertEqual(len(ba.budget_selection(launches, 0, 1, phase_end=64)), 3)
        self.assertEqual(len(ba.budget_selection(launches, 0, 1, phase_end=6)), 2)
        # Before the first selected launch the profiler is not running: unselected launches don't count.
        kernels = [launch(i, "B", "latency", 1) for i in range(70)] + [launch(70, "C", "latency", 1)]
        launches = ba.launches_of(report(kernels))
        self.assertEqual(len(ba.budget_selection(launches, 69, 1, phase_end=64)), 1)


class BudgetCommand(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.folder = self.dir.name

    def tearDown(self):
        self.dir.cleanup()

    def test_report_input(self):
        path = write(self.folder, "every.report.json", EVERY)
        out_json, out_md = os.path.join(self.folder, "out.json"), os.path.join(self.folder, "out.md")
        rc, text = run(ba.main, [path, "--skip", "0,1", "--count", "1,2", "--target", "90", "--json", out_json,
                                 "--markdown", out_md, "--show", "1,1"])
        self.assertEqual(rc, 0)
        with open(out_json) as f:
            numbers = json.load(f)
        rows = {(r["skip"], r["count"]): r for r in numbers["records"][0]["rows"]}
        self.assertEqual(sorted(rows), [(0, 1), (0, 2), (1, 1), (1, 2)])
        self.assertAlmostEqual(rows[(0, 2)]["agreement"], 0.9)
        self.assertEqual(rows[(0, 2)]["profiled"], 5)
        self.assertAlmostEqual(rows[(1, 2)]["agreement"], 0.7)  # A1, A2 instruction; B1; C none
        self.assertEqual(rows[(1, 2)]["profiled"], 3)
        self.assertEqual(numbers["recommended"], {"skip": 0, "count": 2, "profiled": 5})
        self.assertIn("S=0, C=2: 5 profiled launches", text)
        self.assertIn("C 1x1x1/32x1x1", text)  # --show 1,1: C never profiled
        self.assertIn("(not profiled)", text)
        with open(out_md) as f:
            md = f.read()
        self.assertIn("| skip S | count C | agreement |", md)
        self.assertIn("| 0 | 2 | 90.0 % ok | 0.0 % |", md)

    def test_no_budget_reaches_the_target(self):
        path = write(self.folder, "every.report.json", EVERY)
        rc, text = run(ba.main, [path, "--skip", "0", "--count", "1"])
        self.assertEqual(rc, 0)
        self.assertIn("budget alone, every record: none of those measured", text)
        self.assertIn("ceiling below the target (the every-launch verdicts of a group differ among its launches): "
                      "every.report.json (90.0 %)", text)  # A: 10 of its 70 ns are latency

    def test_ceiling_and_records_that_can_reach_the_target(self):
        steady = write(self.folder, "steady.report.json", report([launch(i, "S", "latency", 1) for i in range(4)]))
        split = write(self.folder, "every.report.json", EVERY)
        out_json = os.path.join(self.folder, "out.json")
        rc, text = run(ba.main, [steady, split, "--skip", "0,1", "--count", "1,2", "--json", out_json])
        self.assertEqual(rc, 0)
        with open(out_json) as f:
            numbers = json.load(f)
        self.assertEqual([r["ceiling"] for r in numbers["records"]], [1.0, 0.9])
        self.assertIsNone(numbers["recommended"])
        self.assertEqual(numbers["recommended_where_reachable"], {"skip": 0, "count": 1, "profiled": 1})
        self.assertIn("budget alone, every record whose ceiling reaches it: S=0, C=1: 1 profiled launches", text)

    def test_record_through_a_stand_in_limiter(self):
        record = write(self.folder, "every.json", {"kind": "limiter-run", "source": "cupti", "launches": [],
                                                   "kernels_seen": [{"name": "A"}]})
        canned = write(self.folder, "canned.json", EVERY)
        fake = os.path.join(self.folder, "limiter")
        with open(fake, "w") as f:
            f.write('#!/bin/sh\n[ "$1 $3 $4 $5" = "report --format json --launches" ] || exit 3\n'
                    f'[ "$2" = "{record}" ] || exit 4\ncat "{canned}"\n')
        os.chmod(fake, os.stat(fake).st_mode | stat.S_IXUSR)
        out_json = os.path.join(self.folder, "out.json")
        rc, text = run(ba.main, [record, "--limiter", fake, "--skip", "0", "--count", "2", "--json", out_json])
        self.assertEqual(rc, 0)
        with open(out_json) as f:
            self.assertAlmostEqual(json.load(f)["records"][0]["rows"][0]["agreement"], 0.9)
        self.assertIn("warning: the record has kernels_seen", text)


def program(busy):
    return {"verdict": "gpu_bound", "time": {"wall_ns": 1000, "gpu_busy_share": busy}}


def stalled(name, reasons):
    rows = [{"reason": r, "samples": s} for r, s in sorted(reasons.items(), key=lambda x: -x[1])]
    return {"name": name, "stalls": {"samples": sum(reasons.values()), "reasons": rows}}


class DefaultCommand(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.folder = self.dir.name
        # The default run: A's first launch (latency) and B's; C absent; a timeline and samples.
        self.default = write(self.folder, "default.report.json", report(
            [launch(0, "A", "latency", 11), launch(1, "B", "bandwidth", 6)], program=program(0.80),
            stalled_kernels=[stalled("A", {"selected": 900, "long_scoreboard": 300, "barrier": 100}),
                             stalled("B", {"lg_throttle": 50, "wait": 60})]))
        self.every = write(self.folder, "every.report.json", EVERY)
        self.trace = write(self.folder, "trace.report.json", report([], program=program(0.785)))
        self.stalls = write(self.folder, "stalls.report.json", report([], stalled_kernels=[
            stalled("A", {"selected": 10, "long_scoreboard": 700, "barrier": 100}),
            stalled("B", {"lg_throttle": 150, "wait": 20}), stalled("C", {"math_pipe_throttle": 30})]))

    def tearDown(self):
        self.dir.cleanup()

    def test_three_checks(self):
        out_json, out_md = os.path.join(self.folder, "out.json"), os.path.join(self.folder, "out.md")
        rc, text = run(da.main, ["--default", self.default, "--every-launch", self.every, "--trace", self.trace,
                                 "--stalls", self.stalls, "--json", out_json, "--markdown", out_md])
        self.assertEqual(rc, 0)
        with open(out_json) as f:
            checks = json.load(f)["checks"]
        self.assertAlmostEqual(checks["program"]["result"], 1.5)
        self.assertTrue(checks["program"]["ok"])
        # A latency: 10 of its 70; B: 10; C absent (20): 20 of 100.
        self.assertAlmostEqual(checks["verdicts"]["result"], 0.2)
        self.assertAlmostEqual(checks["verdicts"]["absent_share"], 0.2)
        self.assertEqual(checks["verdicts"]["absent"][0]["group"], "C 1x1x1/32x1x1")
        self.assertFalse(checks["verdicts"]["ok"])
        # A: long_scoreboard both ("selected" is not a stall); B: wait against lg_throttle; C missing.
        self.assertAlmostEqual(checks["stalls"]["result"], 810 / (810 + 170 + 30))
        self.assertAlmostEqual(checks["stalls"]["by kernel time"], 70 / 100)
        self.assertAlmostEqual(checks["stalls"]["absent_share"], 30 / 1010)
        self.assertIn("(a) program: GPU busy share", text)
        self.assertIn("1.5 points", text)
        self.assertIn("20.0 % (absent 20.0 %)", text)
        self.assertIn("MISSES", text)
        with open(out_md) as f:
            self.assertIn("| (c) dominant stall reason |", f.read())

    def test_without_a_timeline(self):
        self.trace = write(self.folder, "trace.report.json", report([]))
        rc, text = run(da.main, ["--default", self.default, "--trace", self.trace])
        self.assertEqual(rc, 0)
        self.assertIn("no program verdict in --trace", text)

    def test_busy_share_over_the_trace_records_last_window(self):
        events = [  # 100 ns of timeline; the last 40: kernels 60-70 and 65-80 (merged), a memcpy 90-95
            {"kind": "kernel", "start_ns": 0, "end_ns": 50},
            {"kind": "kernel", "start_ns": 60, "end_ns": 70},
            {"kind": "kernel", "start_ns": 65, "end_ns": 80},
            {"kind": "api_call", "start_ns": 60, "end_ns": 100},
            {"kind": "memcpy", "start_ns": 90, "end_ns": 95},
        ]
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "trace.json")
            with open(path, "w") as f:
                json.dump({"timeline": {"start_ns": 0, "end_ns": 100, "events": events}}, f)
            self.assertAlmostEqual(da.tail_busy_share(path, 40), 25 / 40)
            self.assertAlmostEqual(da.tail_busy_share(path, 100), 75 / 100)


if __name__ == "__main__":
    unittest.main(verbosity=1)
