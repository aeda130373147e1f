#!/usr/bin/env python3
"""Verdict agreement of a sampled record with the exact mode on the same program (issue 13).

  bench/sampling_agreement.py SAMPLED.report.json EXACT.report.json

Both are `limiter report --format json` outputs. Kernels are matched by name, grid and block.
Prints, weighted by the exact mode's kernel time: how much of it got a sampled verdict, how much
of that agrees, the kernels holding >= 1 % of the time without a sampled verdict, and each
disagreement with the utilisations both modes measured."""
import json
import sys


def groups(path):
    report = json.load(open(path))
    return {(g["name"], str(g["grid"]), str(g["block"])): g for g in report["rollup"]["groups"]}


def main():
    sampled, exact = groups(sys.argv[1]), groups(sys.argv[2])
    total = sum(g.get("time_share") or 0 for g in exact.values())
    judged = agree = 0.0
    big, big_judged = [], []
    rows = []
    for key, e in sorted(exact.items(), key=lambda kv: -(kv[1].get("time_share") or 0)):
        share = (e.get("time_share") or 0) / total
        s = sampled.get(key)
        verdict = s.get("main_verdict") if s else None
        has = verdict not in (None, "none")
        if share >= 0.01:
            big.append(key)
            if has:
                big_judged.append(key)
        if has:
            judged += share
            if verdict == e.get("main_verdict"):
                agree += share
        if share >= 0.005 or (has and verdict != e.get("main_verdict")):
            su, eu = (s or {}).get("utilization", {}), e.get("utilization", {})
            rows.append((share, key[0][:60], verdict or "-", e.get("main_verdict"),
                         su.get("issue"), eu.get("issue"), su.get("l2"), eu.get("l2"), su.get("dram"), eu.get("dram")))
    print(f"exact kernels {len(exact)}, sampled aggregates {len(sampled)}, matched {sum(k in sampled for k in exact)}")
    print(f"kernel time with a sampled verdict: {judged:.1%}; of it, agreeing with the exact mode: "
          f"{agree / judged if judged else 0:.1%}")
    print(f"kernels with >= 1 % of the time: {len(big)}, with a sampled verdict: {len(big_judged)}")
    fmt = lambda v: "  -  " if v is None else f"{v:.2f}"
    print(f"{'share':>6}  {'kernel':60}  {'sampled':11} {'exact':11} issue s/e   l2 s/e      dram s/e")
    for share, name, sv, ev, si, ei, sl, el, sd, ed in rows:
        print(f"{share:6.1%}  {name:60}  {sv:11} {ev or '-':11} {fmt(si)}/{fmt(ei)}  {fmt(sl)}/{fmt(el)}  {fmt(sd)}/{fmt(ed)}")


if __name__ == "__main__":
    main()
