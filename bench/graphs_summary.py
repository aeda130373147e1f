"""Summary of bench/run-graphs.sh: cost per graph kernel node and per eager launch after the
capture, outputs against the bare run, graph nodes' counters and verdicts against the same
kernels launched eagerly. Usage: graphs_summary.py OUT_DIR"""
import json
import os
import statistics
import sys

out = sys.argv[1]


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


bare, full, budget = (line(label, "graph_replay") for label in ("graph_bare", "graph_full", "graph_budget3"))
keep_bare, keep_full = (line(label, "graph_replay") for label in ("graph_keep_bare", "graph_keep_full"))
for bare, runs in ((bare, (("all profiled", full), ("--per-kernel-count 3", budget))),
                   (keep_bare, (("keep_graph=True, all profiled", keep_full),))):
    if not bare:
        continue
    launches = bare["iterations"] * bare["kernels_per_iteration"]
    for label, run in runs:
        if not run:
            print(f"graph_replay {label}: no result")
            continue
        for phase in ("eager_before", "graph", "eager_after"):
            cost = (run[phase + "_s"] - bare[phase + "_s"]) / launches * 1e3
            print(f"graph_replay {label}: {phase}: {run[phase + '_s'] * 1e3:.1f} ms vs bare {bare[phase + '_s'] * 1e3:.1f} ms "
                  f"= {cost:+.3f} ms per kernel ({launches} kernels)")
        same = all(run[k] == bare[k] for k in ("eager_before_digest", "graph_digest", "eager_after_digest"))
        print(f"graph_replay {label}: outputs equal bare: {same}; graph equals eager: {run['graph_equals_eager']}")

for label in ("graph_full", "graph_keep_full", "graph_trace"):
    record, report = load(label + ".json"), load(label + ".report.json")
    if not record:
        continue
    print(f"== {label}")
    in_graph = [l for l in record["launches"] if l.get("graph_id") is not None]
    eager = [l for l in record["launches"] if l.get("graph_id") is None]
    per_node = [l for l in in_graph if l.get("graph_node") is not None]
    print(f"{label} record: {len(record['launches'])} launches, {len(in_graph)} from graphs "
          f"({len(per_node)} per node), {len(eager)} eager; launches seen {record.get('launches_seen')}; "
          f"missed {record.get('missed')}")
    verdicts = {k["sequence"]: k.get("verdict") for k in (report or {}).get("kernels", [])}
    names = sorted({l["name"] for l in per_node})
    for name in names:
        nodes = [l for l in per_node if l["name"] == name]
        alone = [l for l in eager if l["name"] == name and l["grid"] == nodes[0]["grid"]]
        if not alone:
            continue
        cells = []
        for metric in ("gpu__time_duration.sum", "dram__bytes_read.sum", "lts__t_sectors_srcunit_tex_op_read.sum",
                       "smsp__inst_issued.sum"):
            a = [l["counters"][metric] for l in nodes if metric in l["counters"]]
            b = [l["counters"][metric] for l in alone if metric in l["counters"]]
            if a and b and statistics.median(b):
                cells.append(f"{metric.split('__')[1].split('.')[0]} {statistics.median(a) / statistics.median(b):.3f}")
        node_verdicts = {verdicts.get(l["sequence"]) for l in nodes}
        eager_verdicts = {verdicts.get(l["sequence"]) for l in alone}
        print(f"  {name[:60]:60s} node/eager medians: {', '.join(cells)}; verdicts node {sorted(map(str, node_verdicts))} "
              f"eager {sorted(map(str, eager_verdicts))}")

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
    for name in sorted({l["name"] for l in in_graph})[:12]:
        print(f"  graph kernel {name[:70]}: verdicts {sorted({str(verdicts.get(l['sequence'])) for l in in_graph if l['name'] == name})}")
