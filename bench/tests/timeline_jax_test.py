#!/usr/bin/env python3
"""bench/timeline_vs_torch.py's JAX side without JAX or a GPU (ctest bench.timeline_jax): the
kernel events of a hand-written jax.profiler trace (jax_trace_fixture.json, shaped as XLA writes
it: see the comment above kernels_of_jax_trace), the trace file found in a profiler folder, and
`profile-jax` end to end on a stand-in jax package, and `compare` on them against a limiter record
holding the same kernels, and on a real H100 result (which must keep comparing ok)."""
import gzip
import io
import json
import os
import subprocess
import sys
import tempfile
import unittest
from contextlib import redirect_stdout

here = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no bench/__pycache__ in the checkout
sys.path.insert(0, os.path.join(here, ".."))
import timeline_vs_torch as tvt  # noqa: E402

FIXTURE = os.path.join(here, "jax_trace_fixture.json")
# By start: ts 1003.0004995 us is 1003000.4995 ns (to 1003000), its end 1013.0005005 us to 1013001;
# the memcpy/memset events, the host's, the derived lines' ("Steps", "XLA Modules", "XLA Ops")
# and the CUPTI overhead line's are not kernels.
EXPECTED = [
    {"name": "loop_add_fusion", "start_ns": 1000123, "end_ns": 1002623},
    {"name": "sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x32_warpgroupsize1x1x1_execute_segment_k_off"
             "_kernel__5x_cublas", "start_ns": 1003000, "end_ns": 1013001},
    {"name": "input_reduce_fusion", "start_ns": 1010000, "end_ns": 1015000},
    {"name": "triton_gemm_dot_1", "start_ns": 1020000, "end_ns": 1024000},
]


class JaxTrace(unittest.TestCase):
    def test_kernels_of_fixture(self):
        self.assertEqual(tvt.kernels_of_jax_trace(tvt.load_jax_trace(FIXTURE)), EXPECTED)

    def test_floats_read_the_same(self):  # json's own floats (no Decimal) give the same nanoseconds
        with open(FIXTURE) as f:
            self.assertEqual(tvt.kernels_of_jax_trace(json.load(f)), EXPECTED)

    def test_event_list_alone(self):  # a trace that is the bare list of events
        with open(FIXTURE) as f:
            self.assertEqual(tvt.kernels_of_jax_trace(json.load(f)["traceEvents"]), EXPECTED)

    def test_no_gpu_process(self):
        with open(FIXTURE) as f:
            events = [e for e in json.load(f)["traceEvents"] if e.get("pid") != 1]
        self.assertEqual(tvt.kernels_of_jax_trace({"traceEvents": events}), [])

    def test_stats(self):
        stats = tvt.stats([(k["name"], k["start_ns"], k["end_ns"]) for k in EXPECTED])
        self.assertEqual((stats["count"], stats["kernel_ns"], stats["window_ns"], stats["busy_ns"]),
                         (4, 2500 + 10001 + 5000 + 4000, 1024000 - 1000123, 2500 + 12000 + 4000))


class TraceFile(unittest.TestCase):
    def setUp(self):
        self.logdir = tempfile.TemporaryDirectory()
        self.run = os.path.join(self.logdir.name, "plugins", "profile", "2026_11_27_10_00_00")
        os.makedirs(self.run)
        open(os.path.join(self.run, "host.xplane.pb"), "wb").close()

    def tearDown(self):
        self.logdir.cleanup()

    def write(self, name):
        with open(FIXTURE, "rb") as f, gzip.open(os.path.join(self.run, name), "wb") as g:
            g.write(f.read())
        return os.path.join(self.run, name)

    def test_only_xplane(self):
        with self.assertRaisesRegex(RuntimeError, r"no perfetto_trace\.json\.gz or \*\.trace\.json\.gz .*host\.xplane\.pb"):
            tvt.jax_trace_file(self.logdir.name)

    def test_no_run_folder(self):
        with tempfile.TemporaryDirectory() as empty, self.assertRaisesRegex(RuntimeError, "no run folder"):
            tvt.jax_trace_file(empty)

    def test_trace_json_then_perfetto(self):
        trace = self.write("host.trace.json.gz")
        self.assertEqual(tvt.jax_trace_file(self.logdir.name), trace)
        self.assertEqual(tvt.kernels_of_jax_trace(tvt.load_jax_trace(trace)), EXPECTED)
        self.assertEqual(tvt.jax_trace_file(self.logdir.name), trace)
        perfetto = self.write("perfetto_trace.json.gz")
        self.assertEqual(tvt.jax_trace_file(self.logdir.name), perfetto)


FAKE_PROFILER = """
import gzip, json, os
class ProfileOptions:
    python_tracer_level = 1
state = {}
def start_trace(log_dir, PERFETTO_ARGUMENTprofiler_options=None):
    state.update(log_dir=log_dir, perfetto=PERFETTO_VALUE,
                 python_tracer_level=getattr(profiler_options, "python_tracer_level", None))
def stop_trace():
    run = os.path.join(state["log_dir"], "plugins", "profile", "run1")
    os.makedirs(run, exist_ok=True)
    names = ["host.trace.json.gz"] + (["perfetto_trace.json.gz"] if state["perfetto"] else [])
    for name in names:
        with open(FIXTURE_PATH, "rb") as f, gzip.open(os.path.join(run, name), "wb") as g:
            g.write(f.read())
    with open(os.path.join(state["log_dir"], "fake.json"), "w") as f:
        json.dump(dict(state, env=os.environ.get("XLA_PYTHON_CLIENT_PREALLOCATE")), f)
"""


class ProfileJax(unittest.TestCase):
    """profile-jax end to end on a stand-in jax package (its profiler writes the fixture)."""
    def run_with(self, perfetto):
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "jax"))
            with open(os.path.join(d, "jax", "__init__.py"), "w") as f:
                f.write("__version__ = 'fake'\ndef devices():\n    return ['FakeGpu(id=0)']\n")
            with open(os.path.join(d, "jax", "profiler.py"), "w") as f:
                f.write(FAKE_PROFILER.replace("PERFETTO_ARGUMENT", "create_perfetto_trace=False, " if perfetto else "")
                        .replace("PERFETTO_VALUE", "create_perfetto_trace" if perfetto else "False")
                        .replace("FIXTURE_PATH", repr(FIXTURE)))
            script, out = os.path.join(d, "app.py"), os.path.join(d, "out.json")
            with open(script, "w") as f:
                f.write("import sys\nprint('app', sys.argv[1:])\n")
            env = dict(os.environ, PYTHONPATH=d, PYTHONDONTWRITEBYTECODE="1")
            env.pop("XLA_PYTHON_CLIENT_PREALLOCATE", None)
            done = subprocess.run([sys.executable, os.path.join(here, "..", "timeline_vs_torch.py"), "profile-jax",
                                   script, out, "--flag"], env=env, capture_output=True, text=True)
            self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
            self.assertIn("app ['--flag']", done.stdout)
            self.assertIn("jax profiler: 4 kernel events", done.stdout)
            with open(out) as f:
                self.assertEqual(json.load(f), EXPECTED)
            with open(os.path.join(out + ".logdir", "fake.json")) as f:
                return json.load(f)

    def test_perfetto(self):
        state = self.run_with(perfetto=True)
        self.assertEqual((state["perfetto"], state["python_tracer_level"], state["env"]), (True, 0, "false"))

    def test_no_perfetto_argument(self):  # an older start_trace: the export's *.trace.json.gz
        self.assertFalse(self.run_with(perfetto=False)["perfetto"])


class Compare(unittest.TestCase):
    def test_against_a_record(self):
        with tempfile.TemporaryDirectory() as d:
            theirs, record, md = (os.path.join(d, n) for n in ("jax.json", "record.json", "out.md"))
            with open(theirs, "w") as f:
                json.dump(EXPECTED, f)
            # limiter's side: the same kernels 40 us later, each 1 % longer, and a copy
            events = [{"kind": "kernel", "name": k["name"], "start_ns": k["start_ns"] + 40000,
                       "end_ns": k["end_ns"] + 40000 + (k["end_ns"] - k["start_ns"]) // 100} for k in EXPECTED]
            events.append({"kind": "memcpy", "name": "", "start_ns": 0, "end_ns": 1000})
            with open(record, "w") as f:
                json.dump({"timeline": {"events": events}}, f)
            with redirect_stdout(io.StringIO()):
                self.assertEqual(tvt.compare(record, theirs, md, "JAX profiler"), 0)
            with open(md) as f:
                text = f.read()
            self.assertIn("| | limiter --trace | JAX profiler | difference |", text)
            self.assertIn("| kernels | 4 | 4 | +0 |", text)
            self.assertTrue(text.rstrip().splitlines()[-1].startswith("ok: "), text)

    def test_the_real_h100_result_still_compares_ok(self):
        # bench/results/2026-11-26-costs-late-raw/tvj_nonvtx: limiter run --trace --no-nvtx against
        # jax.profiler on the JAX loop (H100): 6,355 kernels each, busy 98.5 % against 99.4 %.
        raw = os.path.join(here, "..", "results", "2026-11-26-costs-late-raw", "tvj_nonvtx")
        with tempfile.TemporaryDirectory() as d:
            md = os.path.join(d, "out.md")
            with redirect_stdout(io.StringIO()):
                self.assertEqual(tvt.compare(os.path.join(raw, "jax_trace.json.gz"),
                                             os.path.join(raw, "jax_profiler.json.gz"), md, "JAX profiler"), 0)
            with open(md) as f:
                text = f.read()
            self.assertIn("| kernels | 6355 | 6355 | +0 |", text)
            self.assertTrue(text.rstrip().splitlines()[-1].startswith("ok: "), text)


if __name__ == "__main__":
    unittest.main()
