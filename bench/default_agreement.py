#!/usr/bin/env python3
"""The default run (`limiter run -- APP`: a budget of exact counters per kernel, then a window of PC
samples, then the timeline) against the single-answer modes on the same program. Python 3,
standard library only; no GPU.

  bench/default_agreement.py --default D.json [--every-launch E.json] [--trace T.json]
                             [--stalls S.json] [--markdown OUT.md] [--json OUT.json] [--limiter PATH]

Each input: a run record (.json or .json.gz; its report comes from the repository's own `limiter
report RECORD --format json --launches`) or such a JSON report already written (LABEL.report.json
of bench/run.sh). The numbers are the reports', never recomputed:
(a) program verdict: the GPU busy share ("program" -> "time" -> "gpu_busy_share") of the default
    record against --trace's, the difference in points (target <= 2). The default run judges its
    timeline phase alone (the app's end, "wall_ns" long), --trace the whole process (its start-up
    included), so where --trace is a record the same share is also taken over its last "wall_ns":
    kernels, copies and memsets merged, as the report counts busy time (the report's "wall_ns" has
    the app's pauses taken out, this window does not: where the app paused they differ).
(b) kernel verdicts: for each group (kernel name, grid, block) of --every-launch, the default
    record's verdict for that group (the verdict with the most time among its launches with
    counters, ties: the earlier launch's, as bench/budget_agreement.py) against the verdict of each
    every-launch launch, weighted by every-launch kernel time (target >= 97 %). Groups absent from
    the default record's counters disagree, and are listed apart with their share.
(c) stall reasons: per kernel name, the dominant stall reason (the reason other than "selected"
    with the most samples: the first of the report's "stalled_kernels" -> "stalls" -> "reasons"
    that is not "selected", what its "dominant" list starts with) of the default record against
    --stalls', weighted by --stalls' samples per kernel (target >= 90 %); with --every-launch also
    by its kernel time per name. A kernel the default record has no samples of disagrees.
Prints one small table (and the groups or kernels behind a miss) and exits 0."""
import argparse
import gzip
import json
import os
import sys

sys.dont_write_bytecode = True  # no bench/__pycache__ in the checkout
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from budget_agreement import (by_group, key_text, launches_of, load_report, main_verdict, pct, render,  # noqa: E402
                              short_name)
from agreement_output import emit  # noqa: E402

BUSY_TARGET_POINTS = 2.0
VERDICT_TARGET = 0.97
STALL_TARGET = 0.90
SELECTED = "selected"
LISTED = 10  # groups or kernels listed under a check


def busy_share(report):
    program = report.get("program")
    return None if not program else (program.get("time") or {}).get("gpu_busy_share")


def tail_busy_share(record_path, wall_ns):
    """The GPU busy share of a --trace record over its timeline's last WALL_NS: the union of its
    kernels, copies and memsets, as the report's busy time. None where it has no timeline."""
    opener = gzip.open if record_path.endswith(".gz") else open
    with opener(record_path, "rt") as f:
        timeline = json.load(f).get("timeline")
    if not timeline or not wall_ns:
        return None
    end = timeline["end_ns"]
    start = end - wall_ns
    spans = sorted((max(e["start_ns"], start), min(e["end_ns"], end)) for e in timeline["events"]
                   if e.get("kind") in ("kernel", "memcpy", "memset") and e["end_ns"] > start and e["start_ns"] < end)
    busy, last = 0, start
    for s, e in spans:
        if e > last:
            busy += e - max(s, last)
            last = e
    return busy / wall_ns


def program_check(default, trace, trace_record=None):
    mine, theirs = busy_share(default), busy_share(trace)
    row = {"default": mine, "reference": theirs}
    wall_ns = ((default.get("program") or {}).get("time") or {}).get("wall_ns")
    if trace_record and not trace_record.endswith(".report.json") and mine is not None:
        row["reference_same_length"] = tail_busy_share(trace_record, wall_ns)
    if mine is None or theirs is None:
        row["result"] = None
        row["note"] = "no program verdict in " + " and ".join(
            n for n, v in (("the default record", mine), ("--trace", theirs)) if v is None) + " (no timeline)"
    else:
        row["result"] = 100 * abs(mine - theirs)
        row["ok"] = row["result"] <= BUSY_TARGET_POINTS
        if row.get("reference_same_length") is not None:
            row["result_same_length"] = 100 * abs(mine - row["reference_same_length"])
            row["ok_same_length"] = row["result_same_length"] <= BUSY_TARGET_POINTS
        row["default_verdict"] = default["program"].get("verdict")
        row["reference_verdict"] = trace["program"].get("verdict")
    return row


def verdict_check(default, every):
    mine = launches_of(default)
    theirs = launches_of(every)
    mine_groups = {key: main_verdict(mine, indices) for key, indices in by_group(mine).items()}
    total = sum(launch["duration"] for launch in theirs)
    agree = absent_time = 0.0
    absent, differing = [], []
    for key, indices in by_group(theirs).items():
        time = sum(theirs[i]["duration"] for i in indices)
        verdict = mine_groups.get(key)
        if verdict is None:
            absent_time += time
            absent.append((time, key_text(key, display=theirs[indices[0]]["display"]), len(indices)))
            continue
        same = sum(theirs[i]["duration"] for i in indices if theirs[i]["verdict"] == verdict)
        agree += same
        if same < time:
            differing.append((time - same, key_text(key, display=theirs[indices[0]]["display"]), verdict,
                              main_verdict(theirs, indices)))
    share = (lambda x: x / total if total > 0 else 0.0)  # noqa: E731
    absent.sort(reverse=True)
    differing.sort(reverse=True, key=lambda d: d[0])
    return {"result": share(agree), "ok": share(agree) >= VERDICT_TARGET, "absent_share": share(absent_time),
            "groups": len(by_group(theirs)), "default_groups": len(mine_groups),
            "absent": [{"group": k, "launches": n, "share": share(t)} for t, k, n in absent],
            "differing": [{"group": k, "lost_share": share(t), "default": v, "every_launch_main": e}
                          for t, k, v, e in differing],
            "default_launches": len(mine), "every_launches": len(theirs)}


def dominant_reasons(report):
    """{kernel name: (dominant reason or None, samples, display name)} of the report's stalled_kernels."""
    out = {}
    for k in report.get("stalled_kernels") or []:
        stalls = k.get("stalls") or {}
        reason = next((r["reason"] for r in stalls.get("reasons", []) if r.get("reason") != SELECTED), None)
        out[k["name"]] = (reason, stalls.get("samples", 0), k.get("display_name") or k["name"])
    return out


def stall_check(default, stalls, every=None):
    mine, theirs = dominant_reasons(default), dominant_reasons(stalls)
    row = {"kernels": len(theirs), "default_kernels": len(mine)}
    if not theirs:
        row["result"] = None
        row["note"] = "no stalled_kernels in --stalls' report"
        return row
    weights = {"samples": {name: entry[1] for name, entry in theirs.items()}}
    if every is not None:
        time = {}
        for launch in launches_of(every):
            time[launch["key"][0]] = time.get(launch["key"][0], 0.0) + launch["duration"]
        weights["kernel time"] = {name: time.get(name, 0.0) for name in theirs}
    for what, weight in weights.items():
        total = sum(weight.values())
        agree = sum(w for name, w in weight.items() if name in mine and mine[name][0] == theirs[name][0])
        row["by " + what] = agree / total if total > 0 else None
    row["result"] = row["by samples"]
    row["ok"] = row["result"] is not None and row["result"] >= STALL_TARGET
    total = sum(weights["samples"].values()) or 1
    misses = sorted(((entry[1], name) for name, entry in theirs.items()
                     if name not in mine or mine[name][0] != entry[0]), reverse=True)
    row["differing"] = [{"kernel": short_name(theirs[name][2]), "samples_share": samples / total,
                         "default": mine[name][0] if name in mine else None, "stalls": theirs[name][0]}
                        for samples, name in misses]
    row["absent_share"] = sum(weights["samples"][n] for n in theirs if n not in mine) / total
    return row


def lines_of(inputs, checks, markdown):
    head = ["check", "default", "reference", "result", "target", ""]
    body = []
    a, b, c = checks.get("program"), checks.get("verdicts"), checks.get("stalls")
    share = lambda x: "-" if x is None else pct(x)  # noqa: E731
    okay = lambda row: "" if row.get("ok") is None else ("ok" if row["ok"] else "MISSES")  # noqa: E731
    if a is not None:
        result = "n/a" if a["result"] is None else f"{a['result']:.1f} points"
        body.append(["(a) program: GPU busy share", share(a["default"]), share(a["reference"]) + " (--trace)", result,
                     f"<= {BUSY_TARGET_POINTS:g} points", okay(a)])
        if a.get("result_same_length") is not None:
            body.append(["(a') same, --trace's last window as long", share(a["default"]),
                         share(a["reference_same_length"]) + " (--trace)", f"{a['result_same_length']:.1f} points",
                         f"<= {BUSY_TARGET_POINTS:g} points", "ok" if a["ok_same_length"] else "MISSES"])
    if b is not None:
        body.append(["(b) kernel verdicts, % of kernel time", f"{b['default_groups']} groups",
                     f"{b['groups']} groups (--every-launch)",
                     pct(b["result"]) + f" (absent {pct(b['absent_share'])})", f">= {100 * VERDICT_TARGET:g} %",
                     okay(b)])
    if c is not None:
        result = "n/a" if c["result"] is None else pct(c["result"]) + " of samples" + (
            f", {pct(c['by kernel time'])} of time" if c.get("by kernel time") is not None else "")
        body.append(["(c) dominant stall reason", f"{c['default_kernels']} kernels",
                     f"{c['kernels']} kernels (--stalls)",
                     result, f">= {100 * STALL_TARGET:g} %", okay(c)])
    lines = [("## " if markdown else "") + "The default run against the single modes", ""]
    for name, path in inputs:
        lines.append(("- " if markdown else "  ") + f"{name}: {path}")
    lines += [""] + render(head, body, markdown) + [""]
    if a is not None and a.get("note"):
        lines += [f"(a) {a['note']}", ""]
    elif a is not None:
        lines += [f"(a) program verdicts: default {a['default_verdict']}, --trace {a['reference_verdict']}", ""]
    if b is not None:
        if b["absent"]:
            lines += [f"(b) groups absent from the default record's counters ({pct(b['absent_share'])} of kernel time, "
                      f"{len(b['absent'])} groups; the {min(LISTED, len(b['absent']))} largest):", ""]
            lines += render(["group", "launches", "share"],
                            [[g["group"], f"{g['launches']:,}", pct(g["share"])] for g in b["absent"][:LISTED]],
                            markdown) + [""]
        if b["differing"]:
            lines += [f"(b) groups whose verdict differs (the {min(LISTED, len(b['differing']))} largest losses):", ""]
            lines += render(["group", "lost", "default", "every-launch main"],
                            [[g["group"], pct(g["lost_share"]), g["default"], g["every_launch_main"]]
                             for g in b["differing"][:LISTED]], markdown) + [""]
    if c is not None and c.get("note"):
        lines += [f"(c) {c['note']}", ""]
    elif c is not None and c["differing"]:
        lines += [f"(c) kernels whose dominant reason differs or is missing (absent: {pct(c['absent_share'])} of the "
                  f"samples; the {min(LISTED, len(c['differing']))} largest):", ""]
        lines += render(["kernel", "samples", "default", "--stalls"],
                        [[k["kernel"], pct(k["samples_share"]), k["default"] or "(no samples)", k["stalls"] or "-"]
                         for k in c["differing"][:LISTED]], markdown) + [""]
    return lines


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    p.add_argument("--default", required=True, metavar="D.json", help="the default run's record or JSON report")
    p.add_argument("--every-launch", metavar="E.json", help="`limiter run --every-launch`'s record or report")
    p.add_argument("--trace", metavar="T.json", help="`limiter run --trace`'s record or report")
    p.add_argument("--stalls", metavar="S.json", help="`limiter run --stalls`'s record or report")
    p.add_argument("--markdown", metavar="OUT.md", help="also write the table as markdown (- for stdout instead)")
    p.add_argument("--json", metavar="OUT.json", help="also write the numbers as JSON")
    p.add_argument("--limiter", help="the limiter binary for records (default: $LIMITER_CLI, the checkout's builds)")
    args = p.parse_args(argv)
    default, _ = load_report(args.default, args.limiter)
    every = load_report(args.every_launch, args.limiter)[0] if args.every_launch else None
    inputs = [("default", args.default)]
    checks = {}
    if args.trace:
        inputs.append(("--trace", args.trace))
        checks["program"] = program_check(default, load_report(args.trace, args.limiter)[0], args.trace)
    if every is not None:
        inputs.append(("--every-launch", args.every_launch))
        checks["verdicts"] = verdict_check(default, every)
    if args.stalls:
        inputs.append(("--stalls", args.stalls))
        checks["stalls"] = stall_check(default, load_report(args.stalls, args.limiter)[0], every)
    if not checks:
        print("default_agreement.py: nothing to compare: give --every-launch, --trace or --stalls", file=sys.stderr)
    text = "\n".join(lines_of(inputs, checks, markdown=False))
    markdown = "\n".join(lines_of(inputs, checks, markdown=True))
    emit(text, markdown, args.markdown)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"inputs": dict(inputs), "checks": checks}, f, indent=2)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
