"""Summary of `bench/run.sh graphs-check`: cost per graph kernel node and per eager launch before and
after the capture, outputs against the bare run, and counters: graph nodes, and eager launches
in user ranges (after the context's first graph launch), against the same kernels launched
eagerly in auto range (before it). Usage: graphs_summary.py OUT_DIR"""
import json
import os
import statistics
import sys

out = sys.argv[1]
METRICS = ("gpu__time_duration.sum", "lts__t_sectors_srcunit_tex_op_read.sum", "smsp__inst_issued.sum")


def line(label, prefix):
    path = os.path.join(out, label + ".log")
    if not os.path.exists(path):
        return None
    for text in open(path):
        if text.startswith(prefix + " "):
            return json.loads(text[len(prefix) + 1:])
    return None


def load(name):
    path = os.path.join(out, name)
    return json.load(open(path)) if os.path.exists(path) else None


def short(metric):
    return metric.split("__")[1].split(".")[0]


def medians_ratio(a, b):
    """Per metric: median over launches A / median over launches B."""
    cells = []
    for metric in METRICS:
        x = [l["counters"][metric] for l in a if metric in l["counters"]]
        y = [l["counters"][metric] for l in b if metric in l["counters"]]
        if x and y and statistics.median(y):
            cells.append(f"{short(metric)} {statistics.median(x) / statistics.median(y):.3f}")
    return ", ".join(cells)


# --- time per kernel, each phase, against the bare run ---------------------------------------
bare, keep_bare = line("graph_bare", "graph_replay"), line("graph_keep_bare", "graph_replay")
bare5 = line("graph_bare5", "graph_replay")
variants = ((bare, (("graph destroyed by PyTorch (kept by limiter), all profiled", "graph_full"),
                    ("--graph-profiling graph", "graph_whole"), ("--per-kernel-count 3", "graph_budget3"),
                    ("512 ranges per batch", "graph_full512"))),
            (bare5, (("5 iterations, limiter", "graph_full5"), ("5 iterations, Nsight Compute", "graph_ncu5"))),
            (keep_bare, (("keep_graph=True, all profiled", "graph_keep_full"),
                         ("keep_graph=True, synchronise before a graph range's PopRange", "graph_keep_sync"),
                         ("keep_graph=True, Start without SetConfig", "graph_keep_restart"))))
for base, runs in variants:
    if not base:
        continue
    launches = base["iterations"] * base["kernels_per_iteration"]
    for label, log in runs:
        run = line(log, "graph_replay")
        if not run:
            continue
        for phase in ("eager_before", "graph", "eager_after"):
            cost = (run[phase + "_s"] - base[phase + "_s"]) / launches * 1e3
            print(f"graph_replay {label}: {phase}: {run[phase + '_s'] * 1e3:.1f} ms vs bare {base[phase + '_s'] * 1e3:.1f} ms "
                  f"= {cost:+.3f} ms per kernel ({launches} kernels)")
        if "graph_first_s" in run:
            print(f"graph_replay {label}: first replay alone: {run['graph_first_s'] * 1e3:.1f} ms vs bare "
                  f"{base['graph_first_s'] * 1e3:.1f} ms")
        same = all(run[k] == base[k] for k in ("eager_before_digest", "graph_digest", "eager_after_digest"))
        print(f"graph_replay {label}: outputs equal bare: {same}; graph equals eager: {run['graph_equals_eager']}")

# --- counters: graph nodes and user-ranged eager launches against auto-ranged eager ones ------
reference = None
for label in ("graph_full", "graph_whole", "graph_keep_full", "graph_keep_sync", "graph_keep_restart", "graph_full512",
              "graph_trace"):
    record, report = load(label + ".json"), load(label + ".report.json")
    if not record:
        continue
    print(f"== {label}")
    launches = sorted(record["launches"], key=lambda l: l["sequence"])
    in_graph = [l for l in launches if l.get("graph_id") is not None]
    first_graph = in_graph[0]["sequence"] if in_graph else None
    eager = [l for l in launches if l.get("graph_id") is None]
    auto = [l for l in eager if first_graph is None or l["sequence"] < first_graph]
    user = [l for l in eager if first_graph is not None and l["sequence"] > first_graph]
    per_node = [l for l in in_graph if l.get("graph_node") is not None]
    print(f"{label} record: {len(launches)} launches, {len(in_graph)} from graphs ({len(per_node)} per node), "
          f"{len(auto)} eager before the first graph launch (auto range), {len(user)} after it (user ranges); "
          f"launches seen {record.get('launches_seen')}; missed {record.get('missed')}")
    whole = [l for l in in_graph if l.get("graph_node") is None]
    for kind, group in (("auto-ranged eager", auto), ("user-ranged eager", user), ("graph node", per_node),
                        ("whole graph", whole)):
        times = sorted(l["counters"].get("gpu__time_duration.sum", 0) / 1e3 for l in group)
        if times:
            at = lambda q: times[min(len(times) - 1, int(q * len(times)))]
            print(f"  gpu__time_duration of {kind} ranges: p10 {at(0.1):.1f}, p50 {at(0.5):.1f}, p90 {at(0.9):.1f}, "
                  f"max {times[-1]:.1f} us ({len(times)})")
        ranged = sorted(l["user_range_ns"] / 1e3 for l in group if l.get("user_range_ns") is not None)
        if ranged:  # user ranges: their own span before the rescale to the engine's active time
            at = lambda q: ranged[min(len(ranged) - 1, int(q * len(ranged)))]
            rescaled = sum(1 for l in group if l.get("kernel_active_ns") is not None)
            print(f"    the user ranges themselves: p10 {at(0.1):.1f}, p50 {at(0.5):.1f}, p90 {at(0.9):.1f} us; "
                  f"rescaled to the engine's active time: {rescaled} of {len(group)}")
    verdicts = {k["sequence"]: k.get("verdict") for k in (report or {}).get("kernels", [])}
    for name in sorted({l["name"] for l in per_node + user}):
        alone = [l for l in auto if l["name"] == name]
        if not alone:
            continue
        grid = alone[0]["grid"]
        nodes = [l for l in per_node if l["name"] == name and l["grid"] == grid]
        after = [l for l in user if l["name"] == name and l["grid"] == grid]
        cells = []
        if nodes:
            cells.append(f"node/auto: {medians_ratio(nodes, alone)}")
        if after:
            cells.append(f"user/auto: {medians_ratio(after, alone)}")
        kinds = {str(verdicts.get(l["sequence"])) for l in nodes + after + alone} if verdicts else set()
        print(f"  {name[:48]:48s} {'; '.join(cells)}; verdicts {sorted(kinds)}")
    if label == "graph_keep_full":
        reference = launches
    elif reference and label in ("graph_keep_sync", "graph_keep_restart"):
        for kind, pick in (("graph nodes", lambda l: l.get("graph_node") is not None),
                           ("eager", lambda l: l.get("graph_id") is None)):
            names = sorted({l["name"] for l in launches if pick(l)})
            worst = []
            for name in names:
                a = [l for l in launches if pick(l) and l["name"] == name]
                b = [l for l in reference if pick(l) and l["name"] == name]
                if a and b:
                    worst.append((medians_ratio(a, b), name[:40]))
            print(f"  {kind} against graph_keep_full, per kernel medians: " + " | ".join(f"{n}: {r}" for r, n in worst[:12]))

# --- torch.compile(mode="reduce-overhead") ---------------------------------------------------
cb, cf = line("compile_bare", "compile_reduce_overhead"), line("compile_full", "compile_reduce_overhead")
if cb and cf:
    print(f"compile reduce-overhead: step {cf['step_s'] * 1e3:.2f} ms profiled vs {cb['step_s'] * 1e3:.3f} ms bare; "
          f"outputs equal bare: {cf['compiled_digest'] == cb['compiled_digest'] and cf['eager_digest'] == cb['eager_digest']}; "
          f"compiled vs eager max |diff| {cf['max_abs_diff_compiled_vs_eager']:.2e} (bare {cb['max_abs_diff_compiled_vs_eager']:.2e})")
record, report = load("compile_full.json"), load("compile_full.report.json")
if record:
    in_graph = [l for l in record["launches"] if l.get("graph_id") is not None]
    verdicts = {k["sequence"]: k.get("verdict") for k in (report or {}).get("kernels", [])}
    with_verdict = [l for l in in_graph if verdicts.get(l["sequence"])]
    print(f"compile_full record: {len(record['launches'])} launches, {len(in_graph)} from graphs "
          f"({sum(l.get('graph_node') is not None for l in in_graph)} per node), {len(with_verdict)} of them with a verdict; "
          f"missed {record.get('missed')}")
