#!/usr/bin/env python3
"""How well a per-kernel budget (`limiter run --per-kernel-skip S --per-kernel-count C`, the default
run's counters phase) reproduces the kernel verdicts of profiling every launch, measured on
every-launch records (`limiter run --every-launch`). Python 3, standard library only; no GPU.

  bench/budget_agreement.py RECORD_OR_REPORT... [--skip 0,1,2] [--count 1,2,3] [--phase-end N]
                            [--target PCT] [--show S,C] [--markdown OUT.md] [--json OUT.json]
                            [--limiter PATH]

RECORD_OR_REPORT: an every-launch run record (.json or .json.gz), read through the repository's own
`limiter report RECORD --format json --launches` (one row per launch with its verdict and duration:
the CLI's analysis, no second verdict implementation here), or such a JSON report already written
(bench/run.sh leaves one beside each record: LABEL.report.json). The limiter binary: --limiter,
else $LIMITER_CLI, else build-device/bin/limiter or build/cli/limiter in this checkout, else PATH.

For each (S, C), per group (kernel name, grid, block; launches in launch order), the launches the
budget profiles are exactly those LaunchSelector::select (lib/src/collect/range/launch_selector.cpp)
takes: the i-th launch of the group (from 0) is profiled when S <= i < S + C. A group launched S
times or fewer gets no profiled launch at all (the collector does not fall back to its last
launches), so it has no budgeted verdict and all its time disagrees; its share is shown apart.
- A group's budgeted verdict: the verdict with the most time among its budgeted launches (ties: the
  verdict of the earlier launch); no verdict ("none") is a verdict like the others.
- Agreement: sum over ALL launches of the record of duration x [the launch's own verdict == its
  group's budgeted verdict] / the sum of durations (% of kernel time).
- Cost: the launches the budget profiles (~1.5 ms each, serialised).
- Ceiling: the agreement with each group judged by its own every-launch main verdict; no budget
  does better (a group whose launches' verdicts differ caps it).
--phase-end N (default 64, 0: off) adds the default run's own stop: its counters phase ends for
good after N launch calls in a row that select nothing once the profiler runs (kPauseAfterUnselected,
lib/src/collect/range/launch_tracking.cpp), so groups first launched after that are never profiled. The
nodes of one graph launch are one call where the record says so (graph_id, graph_node: a record
input, not a report); otherwise each launch is a call.
A record that is not every launch (kernels_seen: a budget; launches_seen above its launches) is
measured but warned about. Prints one table per record, then the cheapest (S, C) (fewest profiled
launches over the records) reaching --target (default 97 %) on every record, and where some
record's ceiling is below the target, on every record whose ceiling reaches it."""
import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys

sys.dont_write_bytecode = True  # no bench/__pycache__ in the checkout
from agreement_output import emit  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COST_MS = 1.5          # one exactly profiled launch, serialised (H100, user replay)
PHASE_END = 64         # kPauseAfterUnselected (lib/src/collect/collector_internal.hpp)
NO_VERDICT = "none"


# ---- reading records and reports (shared with bench/default_agreement.py) ----

def read_json(path):
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        return json.load(f)


def limiter_binary(explicit=None):
    if explicit:
        return explicit
    if os.environ.get("LIMITER_CLI"):
        return os.environ["LIMITER_CLI"]
    for candidate in (os.path.join(ROOT, "build-device", "bin", "limiter"),
                      os.path.join(ROOT, "build", "cli", "limiter")):
        if os.access(candidate, os.X_OK):
            return candidate
    return shutil.which("limiter") or "limiter"


def load_report(path, limiter=None):
    """(report, record or None): a JSON report as is, a run record through `limiter report`."""
    data = read_json(path)
    if isinstance(data, dict) and data.get("kind") == "limiter-report":
        return data, None
    if not (isinstance(data, dict) and data.get("kind") == "limiter-run"):
        sys.exit(f"{path}: neither a run record (kind limiter-run) nor a JSON report (kind limiter-report)")
    binary = limiter_binary(limiter)
    command = [binary, "report", path, "--format", "json", "--launches"]
    try:
        done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, check=False)
    except OSError as e:
        sys.exit(f"{path}: cannot run {binary} ({e}); give --limiter PATH or LIMITER_CLI")
    if done.returncode != 0:
        sys.exit(f"{path}: {' '.join(command)} failed (exit {done.returncode}): {done.stderr.strip()[:500]}")
    return json.loads(done.stdout), data


def group_key(row):
    return (row["name"], tuple(row.get("grid") or ()), tuple(row.get("block") or ()))


def launches_of(report, record=None):
    """The report's launches in launch order: dicts of sequence, key, verdict, duration (ns), and
    call: the launch call it came from (one per launch, but the nodes of one graph launch share
    theirs where the record says so: graph_id, graph_node)."""
    rows = [{"sequence": k.get("sequence", i), "key": group_key(k), "verdict": k.get("verdict") or NO_VERDICT,
             "duration": float(k.get("duration_ns") or 0.0), "display": k.get("display_name") or k["name"]}
            for i, k in enumerate(report.get("kernels") or [])]
    rows.sort(key=lambda r: r["sequence"])
    graph = {}
    for launch in (record or {}).get("launches") or []:
        if launch.get("graph_id") is not None and "sequence" in launch:
            graph[launch["sequence"]] = (launch["graph_id"], launch.get("graph_node"))
    call, current, nodes = -1, None, set()
    for row in rows:
        graph_id, node = graph.get(row["sequence"], (None, None))
        # A new call: not a graph node, another graph, or a node the current graph launch already ran.
        if graph_id is None or graph_id != current or node is None or node in nodes:
            call, current, nodes = call + 1, graph_id, set()
        nodes.add(node)
        row["call"] = call
    return rows


def by_group(launches):
    """{key: [launch indices in launch order]}, groups in order of their first launch."""
    groups = {}
    for i, launch in enumerate(launches):
        groups.setdefault(launch["key"], []).append(i)
    return groups


def main_verdict(launches, indices):
    """The verdict with the most time among these launches; ties: the earlier launch's."""
    time, first = {}, {}
    for i in indices:
        v = launches[i]["verdict"]
        time[v] = time.get(v, 0.0) + launches[i]["duration"]
        first.setdefault(v, i)
    return max(time, key=lambda v: (time[v], -first[v])) if time else None


def short_name(name, width=60):
    base = name.split("(")[0] if "(" in name and not name.startswith("void") else name
    return base if len(base) <= width else base[:width - 3] + "..."


def key_text(key, width=60, display=None):
    """"NAME GRIDxx/BLOCKxx", NAME the report's display_name where given (short names), cut to WIDTH."""
    name, grid, block = key
    dims = lambda d: "x".join(str(x) for x in d)  # noqa: E731
    return f"{short_name(display or name, width)} {dims(grid)}/{dims(block)}"


# ---- the budget, as LaunchSelector::select takes it ----

def budget_selection(launches, skip, count, phase_end=0):
    """Indices of the launches the budget profiles, in launch order. Per group the i-th launch
    (from 0) is taken when skip <= i < skip + count (launch_selector.cpp). phase_end > 0: the
    default run's counters phase ends after that many launch calls in a row with nothing selected
    (a graph launch is one call), counted from its first selected launch (before it the profiler
    does not run: launch_tracking.cpp counts only while it runs)."""
    seen, selected, unselected, running = {}, [], 0, False
    i = 0
    while i < len(launches):
        call = launches[i].get("call", i)
        taken = 0
        while i < len(launches) and launches[i].get("call", i) == call:
            n = seen.get(launches[i]["key"], 0)
            seen[launches[i]["key"]] = n + 1
            if skip <= n < skip + count:
                selected.append(i)
                taken += 1
            i += 1
        if taken:
            unselected, running = 0, True
        elif phase_end and running:
            unselected += 1
            if unselected >= phase_end:
                break
    return selected


def agreement(launches, selected):
    """(agreement share, unprofiled share, per-group rows) of kernel time under this selection."""
    groups = by_group(launches)
    chosen = {}
    for i in selected:
        chosen.setdefault(launches[i]["key"], []).append(i)
    total = sum(launch["duration"] for launch in launches)
    agree = unprofiled = 0.0
    rows = []
    for key, indices in groups.items():
        time = sum(launches[i]["duration"] for i in indices)
        verdict = main_verdict(launches, chosen.get(key, []))
        same = sum(launches[i]["duration"] for i in indices if launches[i]["verdict"] == verdict) if verdict else 0.0
        agree += same
        if verdict is None:
            unprofiled += time
        rows.append({"key": key, "display": launches[indices[0]]["display"], "launches": len(indices),
                     "profiled": len(chosen.get(key, [])), "time": time,
                     "budget_verdict": verdict, "agree_time": same,
                     "every_verdict": main_verdict(launches, indices)})
    share = (lambda x: x / total if total > 0 else 0.0)  # noqa: E731
    return share(agree), share(unprofiled), rows


# ---- the tables ----

def numbers(text):
    try:
        values = sorted({int(x) for x in text.split(",") if x.strip() != ""})
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}': comma-separated whole numbers")
    if not values or values[0] < 0:
        raise argparse.ArgumentTypeError(f"'{text}': comma-separated whole numbers, none negative")
    return values


def pair(text):
    parts = text.split(",")
    if len(parts) != 2 or not all(x.strip().isdigit() for x in parts) or int(parts[1]) == 0:
        raise argparse.ArgumentTypeError(f"'{text}': S,C (whole numbers, C > 0)")
    return int(parts[0]), int(parts[1])


def record_warnings(report, record, launches):
    notes = []
    if record is not None and record.get("kernels_seen"):
        notes.append("the record has kernels_seen: it was made under a budget (--per-kernel-count), not every launch")
    if any(g.get("launches_seen", g.get("launches", 0)) > g.get("launches", 0)
           for g in (report.get("rollup") or {}).get("groups", [])):
        notes.append("its groups were seen more often than profiled (a budget): not every launch")
    seen = report.get("launches_seen", record.get("launches_seen") if record else None)
    if seen is not None and seen > len(launches):
        notes.append(f"launches_seen {seen:,} > {len(launches):,} launches in it: the selection counted launches "
                     "the record lacks (filters, missed launches), so positions may be off")
    if report.get("source") not in (None, "cupti"):
        notes.append(f"source {report.get('source')}: not exact counters of each launch")
    if report.get("missed"):
        notes.append(f"missed launches: {sum(m.get('launches', 0) for m in report['missed']):,}")
    return notes


def measure(path, args):
    report, record = load_report(path, args.limiter)
    launches = launches_of(report, record)
    if not launches:
        sys.exit(f"{path}: no launches in its report")
    groups = by_group(launches)
    # The ceiling: every group judged by its own every-launch main verdict (no budget does better).
    ceiling = agreement(launches, range(len(launches)))[0]
    rows = []
    for skip in args.skip:
        for count in args.count:
            if count == 0:
                continue
            selected = budget_selection(launches, skip, count)
            share, unprofiled, _ = agreement(launches, selected)
            row = {"skip": skip, "count": count, "agreement": share, "unprofiled": unprofiled,
                   "profiled": len(selected)}
            if args.phase_end:
                ended = budget_selection(launches, skip, count, args.phase_end)
                row["agreement_phase_end"], row["unprofiled_phase_end"], _ = agreement(launches, ended)
                row["profiled_phase_end"] = len(ended)
            rows.append(row)
    return {"path": path, "launches": len(launches), "groups": len(groups), "ceiling": ceiling,
            "calls": launches[-1]["call"] + 1,
            "kernel_ns": sum(launch["duration"] for launch in launches),
            "warnings": record_warnings(report, record, launches),
            "rows": rows, "_launches": launches}


def pct(x):
    return f"{100 * x:.1f} %"


def cost_text(launches):
    return f"{launches:,} ({launches * COST_MS / 1e3:.2f} s)"


def table_lines(result, args, markdown):
    head = ["skip S", "count C", "agreement", "unprofiled", "profiled (~s)"]
    if args.phase_end:
        head += [f"agreement, phase ends after {args.phase_end}", "profiled (~s)"]
    body = []
    for r in result["rows"]:
        ok = lambda share: (pct(share) + (" ok" if 100 * share >= args.target else ""))  # noqa: E731
        cells = [str(r["skip"]), str(r["count"]), ok(r["agreement"]), pct(r["unprofiled"]), cost_text(r["profiled"])]
        if args.phase_end:
            cells += [ok(r["agreement_phase_end"]), cost_text(r["profiled_phase_end"])]
        body.append(cells)
    return render(head, body, markdown)


def render(head, body, markdown):
    if markdown:
        return ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"] + \
               ["| " + " | ".join(cells) + " |" for cells in body]
    widths = [max(len(c[i]) for c in [head] + body) for i in range(len(head))]

    def line(cells):  # the first two columns to the left, the numbers to the right
        return "  ".join(c.rjust(w) if i > 1 else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths)))
    return [line(head), line(["-" * w for w in widths])] + [line(c) for c in body]


def show_lines(result, skip, count, phase_end, markdown):
    """Per group under one (S, C): where the budget's verdict differs or is missing."""
    launches = result["_launches"]
    selected = budget_selection(launches, skip, count, phase_end)
    share, _, rows = agreement(launches, selected)
    total = result["kernel_ns"] or 1.0
    rows = [r for r in rows if r["agree_time"] < r["time"]]
    rows.sort(key=lambda r: r["agree_time"] - r["time"])
    head = ["group", "launches", "profiled", "time", "lost", "budget verdict", "every-launch main verdict"]
    body = [[key_text(r["key"], display=r["display"]), f"{r['launches']:,}", str(r["profiled"]), pct(r["time"] / total),
             pct((r["time"] - r["agree_time"]) / total), r["budget_verdict"] or "(not profiled)", r["every_verdict"]]
            for r in rows]
    title = (f"Groups losing agreement under S={skip}, C={count}" + (f", phase end {phase_end}" if phase_end else "")
             + f" ({pct(share)} agree):")
    return [title, ""] + (render(head, body, markdown) if body else ["none"])


def recommend(results, args, suffix=""):
    """The cheapest (S, C) reaching the target on every record: fewest profiled launches summed."""
    best = None
    for i, row in enumerate(results[0]["rows"] if results else []):
        rows = [r["rows"][i] for r in results]
        if all(100 * r["agreement" + suffix] >= args.target for r in rows):
            cost = sum(r["profiled" + suffix] for r in rows)
            worst = min(r["agreement" + suffix] for r in rows)
            if best is None or (cost, -worst) < (best[0], -best[1]):
                best = (cost, worst, row["skip"], row["count"])
    return best


def report_lines(results, args, markdown):
    lines = []
    for result in results:
        title = (f"{os.path.basename(result['path'])}: {result['launches']:,} launches"
                 + (f" ({result['calls']:,} launch calls)" if result["calls"] != result["launches"] else "")
                 + f", {result['groups']:,} groups (kernel, grid, block), "
                 f"kernel time {result['kernel_ns'] / 1e6:,.1f} ms")
        lines += [("## " if markdown else "") + title, ""]
        lines += [f"Ceiling (each group judged by its own every-launch main verdict): {pct(result['ceiling'])}", ""]
        for note in result["warnings"]:
            lines.append(("- " if markdown else "  ") + "warning: " + note)
        if result["warnings"]:
            lines.append("")
        lines += table_lines(result, args, markdown) + [""]
        for skip, count in args.show or []:
            lines += show_lines(result, skip, count, 0, markdown) + [""]
            if args.phase_end:
                lines += show_lines(result, skip, count, args.phase_end, markdown) + [""]
    lines.append(("## " if markdown else "") + f"Cheapest budget at >= {args.target:g} % on every record")
    lines.append("")
    reachable = [r for r in results if 100 * r["ceiling"] >= args.target]
    below = [r for r in results if 100 * r["ceiling"] < args.target]
    for suffix, what in [("", "budget alone")] + ([("_phase_end", f"phase ends after {args.phase_end}")]
                                                    if args.phase_end else []):
        for subset, which in [(results, "every record")] + ([(reachable, "every record whose ceiling reaches it")]
                                                            if below and reachable else []):
            best = recommend(subset, args, suffix)
            lines.append(("- " if markdown else "  ") + f"{what}, {which}: " + (
                f"S={best[2]}, C={best[3]}: {best[0]:,} profiled launches over {len(subset)} records "
                f"(~{best[0] * COST_MS / 1e3:.2f} s), lowest agreement {pct(best[1])}"
                if best else "none of those measured"))
    if below:
        lines.append(("- " if markdown else "  ") + "ceiling below the target (the every-launch verdicts of a group "
                     "differ among its launches): " + ", ".join(f"{os.path.basename(r['path'])} ({pct(r['ceiling'])})"
                                                               for r in below))
    lines.append("")
    lines.append(f"Agreement: % of every-launch kernel time whose launch verdict equals its group's verdict under the "
                 f"budget; unprofiled: time of groups launched S times or fewer (never profiled); cost ~{COST_MS} ms a "
                 f"profiled launch.")
    return lines


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    p.add_argument("inputs", nargs="+", metavar="RECORD_OR_REPORT")
    p.add_argument("--skip", type=numbers, default=[0, 1, 2], help="values of S (default 0,1,2)")
    p.add_argument("--count", type=numbers, default=[1, 2, 3], help="values of C (default 1,2,3)")
    p.add_argument("--phase-end", type=int, default=PHASE_END,
                   help=f"the default run's stop after N unselected launches in a row (default {PHASE_END}; 0: off)")
    p.add_argument("--target", type=float, default=97.0, help="agreement to reach, %% (default 97)")
    p.add_argument("--show", type=pair, action="append",
                   help="list the groups that lose agreement under S,C (repeatable)")
    p.add_argument("--markdown", metavar="OUT.md", help="also write the tables as markdown (- for stdout instead)")
    p.add_argument("--json", metavar="OUT.json", help="also write the numbers as JSON")
    p.add_argument("--limiter", help="the limiter binary for records (default: $LIMITER_CLI, the checkout's builds)")
    args = p.parse_args(argv)
    results = [measure(path, args) for path in args.inputs]
    text = "\n".join(report_lines(results, args, markdown=False))
    markdown = "\n".join(report_lines(results, args, markdown=True))
    emit(text, markdown, args.markdown)
    if args.json:
        best = recommend(results, args)
        best_reachable = recommend([r for r in results if 100 * r["ceiling"] >= args.target], args)
        with open(args.json, "w") as f:
            json.dump({"target": args.target, "phase_end": args.phase_end, "cost_ms_per_launch": COST_MS,
                       "records": [{k: v for k, v in r.items() if not k.startswith("_")} for r in results],
                       "recommended": {"skip": best[2], "count": best[3], "profiled": best[0]} if best else None,
                       "recommended_where_reachable": {"skip": best_reachable[2], "count": best_reachable[3],
                                                       "profiled": best_reachable[0]} if best_reachable else None},
                      f, indent=2)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
