"""Whether two records' stall reasons agree: for each kernel in both, each reason's share of its
samples, side by side, and the largest difference in points. Used to check that a coarser PC
sampling period (the default run's window) gives the same answer as a finer one.

usage: python3 bench/stall_shares_agree.py A.json B.json [--top N]   (needs the limiter package)"""
import argparse

import limiter


def shares(path):
    stalls = limiter.load(path).stalls
    return {(row.kernel, row.reason): row.share for row in stalls.itertuples()}, \
        stalls.groupby("kernel")["samples"].sum().to_dict()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--top", type=int, default=4, help="reasons shown per kernel")
    args = parser.parse_args()
    (a, a_samples), (b, b_samples) = shares(args.a), shares(args.b)
    kernels = sorted(set(a_samples) & set(b_samples), key=lambda k: -a_samples[k])
    worst = 0.0
    print(f"| kernel | samples A | samples B | reason | share A | share B |\n|---|---|---|---|---|---|")
    for kernel in kernels:
        reasons = sorted({r for k, r in a if k == kernel} | {r for k, r in b if k == kernel},
                         key=lambda r: -a.get((kernel, r), 0))
        for n, reason in enumerate(reasons):
            sa, sb = a.get((kernel, reason), 0.0), b.get((kernel, reason), 0.0)
            worst = max(worst, abs(sa - sb))
            if n < args.top:
                print(f"| {kernel[:60]} | {a_samples[kernel]} | {b_samples[kernel]} | {reason} | "
                      f"{100 * sa:.1f} % | {100 * sb:.1f} % |")
    print(f"\n{len(kernels)} kernels in both; largest difference of a reason's share: {100 * worst:.1f} points")


if __name__ == "__main__":
    main()
