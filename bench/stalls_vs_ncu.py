#!/usr/bin/env python3
"""limiter's stall reasons (`limiter run --stalls`, CUPTI's PC Sampling API) against Nsight
Compute's on the same program (target: the dominant stall reason agrees on >= 90 % of the kernel
time of the kernels >= 1 % of it; per-reason shares within 5 points where both tools have >= 1,000
samples). Python 3, standard library only; no GPU (bench/run.sh stalls-vs-ncu makes the inputs).

  bench/stalls_vs_ncu.py LIMITER.json[.gz] NCU.csv [--min-share PCT] [--min-samples N]
                         [--with-selected] [--markdown OUT.md] [--json OUT.json]

LIMITER: a record of `limiter run --stalls` (its "stalls": per kernel function, demangled and
mangled name, samples by reason) or its `limiter report --format json` ("stalled_kernels":
demangled names only). NCU: `ncu --section WarpStateStats --section SourceCounters --metrics
gpu__time_duration.sum --page raw --csv --print-kernel-base mangled APP` (or `demangled`), one
row a launch after the header and units rows; "==PROF==" lines before them are skipped.

Per kernel function (ncu's launches summed; limiter's entries of one name summed, as its reports
do), matched by mangled name, else demangled, else demangled without spaces, else the name before
its parameters where that is unique on both sides (the match used is counted in the output):
- ncu's time: gpu__time_duration.sum over its launches; kernels >= --min-share (default 1 %) of
  ncu's total are judged, the rest counted. Kernels on one side only are listed.
- ncu's Warp State: smsp__average_warps_issue_stalled_<reason>_per_issue_active.ratio, the
  launches' ratios weighted by their issued instructions (smsp__issue_active.sum or
  smsp__inst_issued.sum where the CSV has one, else by duration: the output says which).
- ncu's PC sampling (SourceCounters): smsp__pcsamp_warps_issue_stalled_<reason> summed over
  launches; `_not_issued` columns are a subset of their reason (the plain columns sum to
  smsp__pcsamp_sample_count, as limiter counts CUPTI's) and are not added, unless the sample count
  shows the plain columns miss them (then they are folded in).
- Shares are of the stalled samples or cycles (every reason but "selected"), as limiter's reports
  and its dominant-reason rule use them; --with-selected: of all, "selected" compared too. The
  dominant reason is the largest other than "selected" on both sides (ties: first by name).
- Agreement: limiter's dominant against ncu's Warp State dominant (PC sampling's where the CSV has
  no Warp State), as a share of the judged kernels' time (a kernel limiter lacks disagrees).
- Shares: for judged kernels with >= --min-samples (default 1,000) samples on both sides, the
  largest |limiter - ncu| over reasons, in points, against ncu's PC sampling; against its Warp
  State where ncu has no PC samples for the kernel (marked "WS").
Prints a markdown table and `ok`/`differs` against both targets."""
import argparse
import csv
import gzip
import json
import re
import sys
from collections import Counter, defaultdict

SELECTED = "selected"
WARP_STATE = re.compile(r"^smsp__average_warps_issue_stalled_(\w+?)_per_issue_active\.ratio$")
PCSAMP = re.compile(r"^smsp__pcsamp_warps_issue_stalled_(\w+?)(?:\.sum)?$")
WEIGHTS = ("smsp__issue_active.sum", "smsp__inst_issued.sum", "sm__inst_issued.sum")
TIME_UNITS = {"nsecond": 1, "ns": 1, "usecond": 1e3, "us": 1e3, "msecond": 1e6, "ms": 1e6, "second": 1e9, "s": 1e9}


def read_text(path):
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path, newline="")) as f:
        return f.read()


def number(text):
    """ncu's value: "1,234.5" -> 1234.5; "", "n/a" and other words -> None."""
    try:
        return float(text.strip().replace(",", ""))
    except ValueError:
        return None


def limiter_kernels(path):
    """{key: {"name", "mangled", "reasons"}}, keyed by mangled name where the input has it."""
    data = json.loads(read_text(path))
    kernels = {}
    if data.get("kind") == "limiter-report":
        kind = "report"
        entries = [(k["name"], None, {r["reason"]: r["samples"] for r in k["stalls"]["reasons"]})
                   for k in data.get("stalled_kernels", [])]
    else:
        kind = "record"
        entries = [(k["name"], k.get("mangled_name") or None, k.get("reasons", {}))
                   for k in (data.get("stalls") or {}).get("kernels", [])]
    for name, mangled, reasons in entries:
        entry = kernels.setdefault(mangled or name, {"name": name, "mangled": mangled, "reasons": defaultdict(int)})
        for reason, samples in reasons.items():
            entry["reasons"][reason] += samples
    return kind, kernels


def ncu_table(path):
    """The header, units and launch rows of ncu's raw CSV (anything before the header skipped)."""
    rows = list(csv.reader(read_text(path).splitlines()))
    head = next((i for i, row in enumerate(rows) if "Kernel Name" in row), None)
    if head is None:
        sys.exit(f"{path}: no header row with \"Kernel Name\" (ncu --csv --page raw)")
    header = rows[head]
    name = header.index("Kernel Name")
    body = [row for row in rows[head + 1:] if len(row) == len(header)]
    units = body.pop(0) if body and body[0][name] == "" else [""] * len(header)
    return header, units, [dict(zip(header, row)) for row in body if row[name]]


def ncu_kernels(path):
    header, units, rows = ncu_table(path)
    unit = dict(zip(header, units))
    if "gpu__time_duration.sum" not in header:
        sys.exit(f"{path}: no gpu__time_duration.sum column (ncu --metrics gpu__time_duration.sum)")
    scale = TIME_UNITS.get(unit["gpu__time_duration.sum"], 1)
    weight = next((c for c in WEIGHTS if c in header), "gpu__time_duration.sum")
    warp_state = {c: m.group(1) for c in header if (m := WARP_STATE.match(c)) and not m.group(1).endswith("_not_issued")}
    pcsamp = {c: m.group(1) for c in header if (m := PCSAMP.match(c))}
    count = next((c for c in ("smsp__pcsamp_sample_count", "smsp__pcsamp_sample_count.sum") if c in header), None)
    kernels = {}
    for row in rows:
        k = kernels.setdefault(row["Kernel Name"], {"launches": 0, "configs": set(), "time_ns": 0.0, "weight": 0.0,
                                                    "ws": defaultdict(float), "plain": defaultdict(float),
                                                    "not_issued": defaultdict(float), "sample_count": 0.0})
        k["launches"] += 1
        k["configs"].add((row.get("Grid Size", ""), row.get("Block Size", "")))
        duration = (number(row["gpu__time_duration.sum"]) or 0.0) * scale
        k["time_ns"] += duration
        w = number(row[weight])
        w = duration if w is None else w  # a launch without its instruction count: by its time
        ratios = {reason: number(row[c]) for c, reason in warp_state.items()}
        if any(v is not None for v in ratios.values()):
            k["weight"] += w
            for reason, v in ratios.items():
                k["ws"][reason] += w * (v or 0.0)
        for c, reason in pcsamp.items():
            v = number(row[c]) or 0.0
            if reason.endswith("_not_issued"):
                k["not_issued"][reason[:-len("_not_issued")]] += v
            else:
                k["plain"][reason] += v
        if count:
            k["sample_count"] += number(row[count]) or 0.0
    # _not_issued: a subset of the plain columns (H100, 2026-11-26: the plain columns sum to the
    # sample count); folded in only where the sample count says the plain columns miss them.
    plain = sum(sum(k["plain"].values()) for k in kernels.values())
    extra = sum(sum(k["not_issued"].values()) for k in kernels.values())
    total = sum(k["sample_count"] for k in kernels.values())
    fold = bool(count and total and extra and abs(plain + extra - total) < abs(plain - total))
    for k in kernels.values():
        k["pcsamp"] = {r: k["plain"][r] + (k["not_issued"][r] if fold else 0) for r in set(k["plain"]) | set(k["not_issued"])}
    columns = {"rows": len(rows), "time": f"gpu__time_duration.sum ({unit['gpu__time_duration.sum'] or 'no unit: ns'})",
               "warp_state_reasons": len(warp_state), "warp_state_weight": weight if warp_state else None,
               "pcsamp_columns": len(pcsamp), "pcsamp_sample_count": count,
               "not_issued": ("folded" if fold else "not folded (inside the plain counts)") if extra else "none",
               "warp_state_columns": sorted(warp_state), "pcsamp_column_names": sorted(pcsamp)}
    return kernels, columns


def shares(counts, with_selected):
    counts = {r: v for r, v in counts.items() if v and (with_selected or r != SELECTED)}
    total = sum(counts.values())
    return {r: v / total for r, v in counts.items()} if total else {}


def dominant(counts):
    stalls = sorted((r, v) for r, v in counts.items() if r != SELECTED and v)
    return max(stalls, key=lambda rv: rv[1])[0] if stalls else None


def base_name(name):
    """The demangled name before its parameters, without spaces (a last-resort match)."""
    depth = 0
    for i, c in enumerate(name):
        depth += (c == "<") - (c == ">")
        if c == "(" and depth == 0 and i > 0:
            return re.sub(r"\s+", "", name[:i])
    return re.sub(r"\s+", "", name)


def match(ncu, ours):
    """{ncu name: (limiter key, how)}."""
    indexes = [("mangled", {v["mangled"]: k for k, v in ours.items() if v["mangled"]}, lambda n: n),
               ("demangled", {v["name"]: k for k, v in ours.items()}, lambda n: n),
               ("demangled, spaces aside", {re.sub(r"\s+", "", v["name"]): k for k, v in ours.items()},
                lambda n: re.sub(r"\s+", "", n))]
    found = {}
    for name in ncu:
        for how, index, key in indexes:
            if key(name) in index:
                found[name] = (index[key(name)], how)
                break
    ours_base, theirs_base = defaultdict(list), defaultdict(list)
    taken = {key for key, _ in found.values()}
    for k, v in ours.items():
        if k not in taken:
            ours_base[base_name(v["name"])].append(k)
    for name in ncu:
        if name not in found:
            theirs_base[base_name(name)].append(name)
    for base, names in theirs_base.items():
        if len(names) == 1 and len(ours_base.get(base, [])) == 1:
            found[names[0]] = (ours_base[base][0], "name before its parameters")
    return found


def short(name, width=70):
    name = name.replace("|", "\\|")
    return name if len(name) <= width else name[:width - 1] + "…"


def named(reason, share):
    return f"{reason} {pct(share)}" if reason else "-"


def pct(x):
    return "-" if x is None else f"{100 * x:.1f} %"


def compare(args):
    kind, ours = limiter_kernels(args.limiter)
    theirs, columns = ncu_kernels(args.ncu)
    found = match(theirs, ours)
    total_ns = sum(k["time_ns"] for k in theirs.values()) or 1.0
    use_ws = columns["warp_state_reasons"] > 0
    rows, judged_ns, agree_ns, diffs, unjudged = [], 0.0, 0.0, [], []
    for name, k in sorted(theirs.items(), key=lambda kv: (-kv[1]["time_ns"], kv[0])):
        share = k["time_ns"] / total_ns
        mine = ours[found[name][0]] if name in found else None
        if share < args.min_share / 100:
            unjudged.append((name, share, mine is not None))
            continue
        judged_ns += k["time_ns"]
        ncu_counts = k["ws"] if use_ws else k["pcsamp"]
        theirs_dom, theirs_sh = dominant(ncu_counts), shares(ncu_counts, args.with_selected)
        samples = int(round(sum(k["pcsamp"].values())))
        row = {"kernel": name, "limiter_name": mine["name"] if mine else None, "match": found.get(name, (0, None))[1],
               "launches": k["launches"], "configs": len(k["configs"]), "time_share": share, "ncu_dominant": theirs_dom,
               "ncu_dominant_share": theirs_sh.get(theirs_dom), "ncu_pcsamp_samples": samples,
               "ncu_pcsamp_dominant": dominant(k["pcsamp"])}
        if mine:
            my_samples = sum(mine["reasons"].values())
            my_dom, my_sh = dominant(mine["reasons"]), shares(mine["reasons"], args.with_selected)
            row.update(limiter_dominant=my_dom, limiter_dominant_share=my_sh.get(my_dom), limiter_samples=my_samples,
                       agree=my_dom is not None and my_dom == theirs_dom)
            agree_ns += k["time_ns"] if row["agree"] else 0.0
            against = "pcsamp" if samples else "warp_state"
            if my_samples >= args.min_samples and (samples >= args.min_samples or not samples):
                ref = shares(k["pcsamp"] if samples else k["ws"], args.with_selected)
                worst = max(((abs(my_sh.get(r, 0.0) - ref.get(r, 0.0)), r) for r in set(my_sh) | set(ref)),
                            default=(0.0, "-"))
                row.update(max_diff_points=100 * worst[0], max_diff_reason=worst[1], against=against)
                diffs.append(100 * worst[0])
        rows.append(row)
    matched = {key for key, _ in found.values()}
    limiter_only = sorted(((v["name"], sum(v["reasons"].values())) for k, v in ours.items() if k not in matched),
                          key=lambda ns: -ns[1])
    agreement = agree_ns / judged_ns if judged_ns else None
    within = sum(d <= 5.0 for d in diffs)
    agree_ok, shares_ok = agreement is not None and agreement >= 0.9, bool(diffs) and within == len(diffs)
    ref_name = "Warp State" if use_ws else "PC sampling"
    lines = [f"limiter: {args.limiter} ({kind}, {len(ours)} kernels, {sum(sum(v['reasons'].values()) for v in ours.values()):,} samples)",
             f"ncu: {args.ncu} ({columns['rows']} launches of {len(theirs)} kernels; time {columns['time']}; "
             f"Warp State: {columns['warp_state_reasons']} reasons weighted by {columns['warp_state_weight']}; "
             f"PC sampling: {columns['pcsamp_columns']} columns, _not_issued {columns['not_issued']}, sample count "
             f"{columns['pcsamp_sample_count'] or 'absent'})",
             "matched by: " + (", ".join(f"{how} {n}" for how, n in sorted(Counter(h for _, h in found.values()).items()))
                               or "nothing"),
             f"shares: of {'all samples, selected included' if args.with_selected else 'the stalled samples (selected aside)'}; "
             f"dominant: the largest reason other than selected", "",
             f"| kernel | launches | ncu time | limiter dominant | ncu dominant ({ref_name}) | agree | limiter samples | "
             "ncu PC samples | max difference |", "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        mine = named(r["limiter_dominant"], r["limiter_dominant_share"]) if r["limiter_name"] else "missing in limiter"
        pcs = f"{r['ncu_pcsamp_samples']:,}" if columns["pcsamp_columns"] else "-"
        diff = (f"{r['max_diff_points']:.1f} ({r['max_diff_reason']}{', WS' if r['against'] == 'warp_state' else ''})"
                if "max_diff_points" in r else "-")
        lines.append(f"| {short(r['limiter_name'] or r['kernel'])} | {r['launches']} | {pct(r['time_share'])} | {mine} | "
                     f"{named(r['ncu_dominant'], r['ncu_dominant_share'])} | {'yes' if r.get('agree') else 'no'} | "
                     f"{r.get('limiter_samples', 0):,} | {pcs} | {diff} |")
    lines.append("")
    if unjudged:
        lines.append(f"Not judged (< {args.min_share:g} % of ncu's time): {len(unjudged)} kernel(s), "
                     f"{pct(sum(s for _, s, _ in unjudged))} of it; not in limiter: "
                     + (", ".join(short(n, 50) for n, _, m in unjudged if not m) or "none"))
    lines.append("In limiter only: " + (", ".join(f"{short(n, 50)} ({s:,} samples)" for n, s in limiter_only) or "none"))
    lines += ["", f"{'ok' if agree_ok else 'differs'}: the dominant reason agrees on {pct(agreement)} of the judged "
              f"kernel time ({len(rows)} kernels, {pct(judged_ns / total_ns)} of ncu's; target >= 90 %)",
              f"{'ok' if shares_ok else 'differs'}: per-reason shares, {len(diffs)} kernels with >= {args.min_samples:,} "
              f"samples on both sides ({sum(1 for r in rows if r.get('against') == 'warp_state')} against Warp State): "
              + (f"max difference {max(diffs):.1f} points, {within}/{len(diffs)} within 5 points" if diffs else "none compared"),
              "ok" if agree_ok and shares_ok else "differs"]
    text = "\n".join(lines)
    print(text)
    if args.markdown:
        open(args.markdown, "w").write(text + "\n")
    if args.json:
        summary = {"limiter": args.limiter, "limiter_input": kind, "ncu": args.ncu, "ncu_columns": columns,
                   "min_share": args.min_share, "min_samples": args.min_samples, "with_selected": args.with_selected,
                   "agreement": agreement, "agreement_ok": agree_ok, "compared": len(diffs), "within_5_points": within,
                   "max_diff_points": max(diffs) if diffs else None, "shares_ok": shares_ok, "kernels": rows,
                   "not_judged": [{"kernel": n, "time_share": s, "in_limiter": m} for n, s, m in unjudged],
                   "limiter_only": [{"kernel": n, "samples": s} for n, s in limiter_only]}
        json.dump(summary, open(args.json, "w"), indent=1)
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], usage=__doc__.split("\n\n")[1])
    parser.add_argument("limiter")
    parser.add_argument("ncu")
    parser.add_argument("--min-share", type=float, default=1.0, help="percent of ncu's kernel time to judge a kernel")
    parser.add_argument("--min-samples", type=int, default=1000)
    parser.add_argument("--with-selected", action="store_true")
    parser.add_argument("--markdown")
    parser.add_argument("--json")
    sys.exit(compare(parser.parse_args()))
