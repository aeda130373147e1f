#!/usr/bin/env python3
"""The summary of a bench/run.sh folder, and the checks it is made of (Python 3, standard library).

  bench/summarise.py table DIR [--exact EXACT.report.json]
      The markdown table of DIR: per mode, the rounds that ran, the median process wall time and
      its ratio to the same round's bare run (median and range over rounds), the same for the
      workload's own timer, launches profiled, the collector's time per launch (--timing), max
      RSS, and Nsight Compute's ratio beside; then every mode's verdicts against the exact mode's
      (round 1; the mode named exact, or --exact), and the exact phase of --sampling
      --per-kernel-count K against --per-kernel-count K alone where both ran.
  bench/summarise.py agreement SAMPLED.report.json EXACT.report.json
      Verdict agreement of one record with the exact mode on the same program, by kernel time,
      with every kernel of >= 0.5 % of the time and every disagreement.
  bench/summarise.py exact-phase HYBRID.json BUDGET.json
      Are the exact launches of --sampling --per-kernel-count K what the budget alone measures?
  bench/summarise.py count RECORD.json
      The launches a record profiled exactly (bench/run.sh --ncu gives ncu as many).

DIR holds what bench/run.sh writes: meta.tsv, runs.tsv, and per step LABEL.time (bench/wall.sh),
LABEL.log, LABEL.json and LABEL.report.json."""
import argparse
import gzip
import json
import os
import re
import shlex
import statistics
import sys

SHARE_BIG, SHARE_LISTED = 0.01, 0.005  # kernels that must get a verdict; kernels listed
PHASE_METRICS = ("smsp__inst_issued.sum", "lts__t_sectors.sum", "dram__bytes_read.sum", "gpu__time_duration.sum")


def load_json(path):
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        return json.load(f)


def read_text(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return ""


# --- one step's figures ----------------------------------------------------------------------
def step_figures(folder, label, timer):
    """What bench/wall.sh and the step's output say: wall s, max RSS KB, the workload's own
    seconds, launches profiled or sampled, the collector's microseconds per launch."""
    base = os.path.join(folder, label)
    time_text, log = read_text(base + ".time"), read_text(base + ".log")
    wall = re.search(r" wall ([0-9.]+) s, max RSS ([0-9]+) KB", time_text)
    own = re.findall(timer, log) if timer and timer != "-" else []
    launches = re.search(r"^limiter: .*?([0-9]+) launches (profiled|sampled)", log, re.M)
    per_launch = re.search(r"time per launch \([0-9]+ launches[^)]*\): ([0-9.]+) us", log)
    return {"wall": float(wall.group(1)) if wall else None,
            "rss_kb": int(wall.group(2)) if wall else None,
            "own": float(own[-1]) if own else None,
            "launches": f"{launches.group(1)} {launches.group(2)}" if launches else None,
            "per_launch_us": float(per_launch.group(1)) if per_launch else None}


def read_folder(folder):
    meta = {"modes": []}
    for line in read_text(os.path.join(folder, "meta.tsv")).splitlines():
        key, _, value = line.partition("\t")
        if key == "mode":
            name, _, flags = value.partition("\t")
            meta["modes"].append((name, flags))
        elif key:
            meta[key] = value
    runs = []
    lines = read_text(os.path.join(folder, "runs.tsv")).splitlines()
    for line in lines[1:]:
        fields = line.split("\t")
        if len(fields) >= 4:
            runs.append({"round": int(fields[0]), "mode": fields[1], "label": fields[2], "exit": int(fields[3])})
    if not runs:
        sys.exit(f"summarise.py: no runs in {folder}/runs.tsv: not a bench/run.sh folder")
    return meta, runs


# --- the table -------------------------------------------------------------------------------
def ratio_cell(ratios):
    ratios = [r for r in ratios if r is not None]
    if not ratios:
        return "-"
    median = statistics.median(ratios)
    if len(ratios) == 1:
        return f"{median:.2f}x"
    return f"{median:.2f}x ({min(ratios):.2f}-{max(ratios):.2f})"


def flags_cell(flags):
    """The mode's flags, a --metrics list of more than three as its count (the table stays narrow)."""
    if not flags:
        return "`(none)`"
    short = re.sub(r"(--metrics )([^ ,]+(,[^ ,]+){3,})", lambda m: f"{m.group(1)}({m.group(2).count(',') + 1} metrics)", flags)
    return f"`{short}`"


def median_cell(values, fmt):
    values = [v for v in values if v is not None]
    return fmt.format(statistics.median(values)) if values else "-"


def ratios(steps, bare, key):
    """Per round: this step's figure over the same round's bare one."""
    out = []
    for round_, step in steps.items():
        b = bare.get(round_)
        if b and step[key] is not None and b[key]:
            out.append(step[key] / b[key])
    return out


def table(folder, exact_report=None):
    meta, runs = read_folder(folder)
    timer = meta.get("timer", "-")
    by_mode = {}  # mode -> round -> figures
    exits = {}
    for run in runs:
        figures = step_figures(folder, run["label"], timer)
        ok = run["exit"] == 0 and figures["wall"] is not None
        exits.setdefault(run["mode"], []).append(run["exit"])
        if ok:
            by_mode.setdefault(run["mode"], {})[run["round"]] = figures
    flags = dict(meta["modes"])
    modes = ["bare"] + [name for name, _ in meta["modes"]]
    has_own = timer != "-"
    has_ncu = any(mode.startswith("ncu_") for mode in exits)
    own = "own timer s" if has_own else None
    print(f"# {meta.get('workload', '?')}: {meta.get('rounds', '?')} rounds, each mode against its round's bare run")
    print()
    print(f"- command: `{meta.get('command', '?')}`")
    for key in ("date", "gpu", "limiter", "ncu", "timing"):
        if meta.get(key):
            print(f"- {key}: {meta[key]}")
    if has_own:
        print(f"- own timer: the workload's own seconds, `{timer}` in its output")
    print()
    head = ["mode", "limiter run flags", "rounds ok", "wall s", "wall x bare"]
    head += [own, "own x bare"] if has_own else []
    head += ["launches", "collector us/launch", "max RSS MB"]
    head += ["ncu wall x bare"] + (["ncu own x bare"] if has_own else []) if has_ncu else []
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    bare = by_mode.get("bare", {})
    for mode in modes:
        steps = by_mode.get(mode, {})
        codes = exits.get(mode, [])
        failed = sorted({c for c in codes if c != 0})
        ran = f"{len(steps)}/{len(codes)}" + (f" (exit {', '.join(map(str, failed))})" if failed else "")
        values = list(steps.values())
        row = [mode, "-" if mode == "bare" else flags_cell(flags.get(mode)), ran,
               median_cell([v["wall"] for v in values], "{:.2f}"),
               "1.00x" if mode == "bare" else ratio_cell(ratios(steps, bare, "wall"))]
        if has_own:
            row += [median_cell([v["own"] for v in values], "{:.3f}"),
                    "1.00x" if mode == "bare" else ratio_cell(ratios(steps, bare, "own"))]
        launches = sorted({v["launches"] for v in values if v["launches"]})
        row += [", ".join(launches) or "-", median_cell([v["per_launch_us"] for v in values], "{:.1f}"),
                median_cell([v["rss_kb"] / 1024 if v["rss_kb"] else None for v in values], "{:.0f}")]
        if has_ncu:
            ncu = by_mode.get("ncu_" + mode, {})
            row += [ratio_cell(ratios(ncu, bare, "wall")) if ncu else "-"]
            row += [ratio_cell(ratios(ncu, bare, "own")) if ncu else "-"] if has_own else []
        print("| " + " | ".join(row) + " |")
    agreement_section(folder, meta, exact_report)
    exact_phase_section(folder, meta)


def agreement_section(folder, meta, exact_report):
    names = [name for name, _ in meta["modes"]]
    if not exact_report and "exact" in names:
        exact_report = os.path.join(folder, "exact_1.report.json")
    if not exact_report or not os.path.exists(exact_report):
        return
    rows = []
    for name in names:
        path = os.path.join(folder, f"{name}_1.report.json")
        if name == "exact" or not os.path.exists(path):
            continue
        a = agreement(path, exact_report)
        rows.append(f"| {name} | {a['matched']}/{a['exact_kernels']} | {a['judged']:.1%} | "
                    f"{a['agree'] / a['judged'] if a['judged'] else 0:.1%} | {a['big_judged']}/{a['big']} | "
                    f"{', '.join(a['disagreements']) or '-'} |")
    if not rows:
        return
    reference = "the exact mode's round 1" if exact_report.startswith(folder) else f"`{os.path.basename(exact_report)}`"
    print()
    print(f"Verdicts of round 1 against {reference} (kernels by name, grid and block; shares of its kernel time):")
    print()
    print("| mode | kernels matched | kernel time with a verdict | of it, the exact verdict | "
          f"kernels >= {SHARE_BIG:.0%} of the time with a verdict | disagreements (share: mode/exact) |")
    print("|---|---|---|---|---|---|")
    print("\n".join(rows))


def exact_phase_section(folder, meta):
    budgets = {}  # K -> mode with --per-kernel-count K alone
    hybrids = []
    for name, flags in meta["modes"]:
        words = [w for w in shlex.split(flags) if not re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", w)]
        k = words[words.index("--per-kernel-count") + 1] if "--per-kernel-count" in words[:-1] else None
        if k and [w for w in words if w != "--every-launch"] == ["--per-kernel-count", k]:
            budgets[k] = name
        elif k and "--sampling" in words:
            hybrids.append((name, k))
    for name, k in hybrids:
        hybrid, budget = (os.path.join(folder, f"{n}_1.json") for n in (name, budgets.get(k, "")))
        if k in budgets and os.path.exists(hybrid) and os.path.exists(budget):
            print()
            print(f"Exact phase of {name} against {budgets[k]} (round 1; per kernel, relative difference of the means):")
            print()
            for line in exact_phase(hybrid, budget):
                print(f"- {line}")


# --- verdict agreement (was bench/sampling_agreement.py) ---------------------------------------
def groups(path):
    report = load_json(path)
    return {(g["name"], str(g["grid"]), str(g["block"])): g for g in report["rollup"]["groups"]}


def agreement(sampled_path, exact_path):
    sampled, exact = groups(sampled_path), groups(exact_path)
    total = sum(g.get("time_share") or 0 for g in exact.values()) or 1.0
    result = {"exact_kernels": len(exact), "sampled": len(sampled), "matched": sum(k in sampled for k in exact),
              "judged": 0.0, "agree": 0.0, "big": 0, "big_judged": 0, "rows": [], "disagreements": []}
    for key, e in sorted(exact.items(), key=lambda kv: (-(kv[1].get("time_share") or 0), kv[0])):
        share = (e.get("time_share") or 0) / total
        s = sampled.get(key)
        verdict = s.get("main_verdict") if s else None
        has = verdict not in (None, "none")
        if share >= SHARE_BIG:
            result["big"] += 1
            result["big_judged"] += has
        if has:
            result["judged"] += share
            if verdict == e.get("main_verdict"):
                result["agree"] += share
            else:
                result["disagreements"].append(f"{share:.1%} {verdict}/{e.get('main_verdict')}")
        if share >= SHARE_LISTED or (has and verdict != e.get("main_verdict")):
            su, eu = (s or {}).get("utilization", {}), e.get("utilization", {})
            result["rows"].append((share, key[0][:60], verdict or "-", e.get("main_verdict"),
                                   su.get("issue"), eu.get("issue"), su.get("l2"), eu.get("l2"),
                                   su.get("dram"), eu.get("dram")))
    return result


def print_agreement(sampled_path, exact_path):
    a = agreement(sampled_path, exact_path)
    print(f"exact kernels {a['exact_kernels']}, sampled aggregates {a['sampled']}, matched {a['matched']}")
    print(f"kernel time with a sampled verdict: {a['judged']:.1%}; of it, agreeing with the exact mode: "
          f"{a['agree'] / a['judged'] if a['judged'] else 0:.1%}")
    print(f"kernels with >= 1 % of the time: {a['big']}, with a sampled verdict: {a['big_judged']}")
    fmt = lambda v: "  -  " if v is None else f"{v:.2f}"
    print(f"{'share':>6}  {'kernel':60}  {'sampled':11} {'exact':11} issue s/e   l2 s/e      dram s/e")
    for share, name, sv, ev, si, ei, sl, el, sd, ed in a["rows"]:
        print(f"{share:6.1%}  {name:60}  {sv:11} {ev or '-':11} {fmt(si)}/{fmt(ei)}  {fmt(sl)}/{fmt(el)}  {fmt(sd)}/{fmt(ed)}")


# --- the exact phase against the budget alone (was bench/exact_phase_check.py) -----------------
def launch_key(launch):
    return (launch["name"], str(launch["grid"]), str(launch["block"]))


def phase_means(record, exact_phase):
    """Mean counters per kernel: of the exact phase ("exact:METRIC" in a sampled aggregate, or
    the launches of a kernel that ran only before sampling), or of every launch."""
    sums = {}
    for launch in record["launches"]:
        sampled = launch.get("sampled")
        if exact_phase and sampled:
            if not sampled.get("exact_launches"):
                continue
            values = {m: sampled.get("exact:" + m) for m in PHASE_METRICS}
            weight = sampled["exact_launches"]
        else:
            values = {m: launch.get("counters", {}).get(m) for m in PHASE_METRICS}
            weight = 1
        entry = sums.setdefault(launch_key(launch), {"n": 0, **{m: 0.0 for m in PHASE_METRICS}})
        entry["n"] += weight
        for m in PHASE_METRICS:
            entry[m] += (values[m] or 0.0) * weight
    return {k: {m: v[m] / v["n"] for m in PHASE_METRICS} for k, v in sums.items() if v["n"]}


def exact_phase(hybrid_path, budget_path):
    h, b = phase_means(load_json(hybrid_path), True), phase_means(load_json(budget_path), False)
    common = sorted(set(h) & set(b))
    lines = [f"kernels: {len(h)} in the exact phase, {len(b)} in the budget run, {len(common)} in both"]
    for m in PHASE_METRICS:
        diff = {k: abs(h[k][m] - b[k][m]) / b[k][m] for k in common if b[k][m]}
        if diff:
            worst = max(sorted(diff), key=lambda k: diff[k])
            lines.append(f"{m}: median {statistics.median(diff.values()):.2%}, largest {diff[worst]:.2%} ({worst[0][:50]})")
    return lines


def exact_launches(record_path):
    """Launches profiled exactly: every launch of an exact record, a sampled aggregate's exact ones."""
    count = 0
    for launch in load_json(record_path).get("launches", []):
        sampled = launch.get("sampled")
        count += (sampled.get("exact_launches") or 0) if sampled else 1
    return count


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("table", help="the markdown table of a bench/run.sh folder")
    p.add_argument("folder")
    p.add_argument("--exact", help="the exact mode's report (limiter report --format json) to judge verdicts by")
    p = sub.add_parser("agreement", help="verdict agreement of a report with the exact mode's")
    p.add_argument("sampled")
    p.add_argument("exact")
    p = sub.add_parser("exact-phase", help="the exact phase of --sampling --per-kernel-count K against the budget")
    p.add_argument("hybrid")
    p.add_argument("budget")
    p = sub.add_parser("count", help="launches a record profiled exactly")
    p.add_argument("record")
    args = parser.parse_args()
    if args.command == "table":
        table(os.path.abspath(args.folder), args.exact)
    elif args.command == "agreement":
        print_agreement(args.sampled, args.exact)
    elif args.command == "exact-phase":
        print("\n".join(exact_phase(args.hybrid, args.budget)))
    else:
        print(exact_launches(args.record))


if __name__ == "__main__":
    main()
