#!/usr/bin/env python3
"""Writes synthetic_stalls_run.json: SYNTHETIC stall samples on real counters; and
synthetic_stalls_only_run.json: the same samples alone, as a `limiter run --stalls` record.

The launches are the H200 probe run's (tests/data/cupti/h200_probe_run.json), three of them
renamed to stand for a barrier-bound reduction and a bank-conflicted transpose; the "stalls"
(PC samples by reason, hot PCs with SASS and lines) are made up to exercise the analysis and
the reports: no GPU produced them. Run from the repository root.
"""
import json

PROBE = "tests/data/cupti/h200_probe_run.json"
OUT = "tests/data/stalls/synthetic_stalls_run.json"
OUT_ALONE = "tests/data/stalls/synthetic_stalls_only_run.json"


def pc(offset, samples, reasons, sass, line, file="probe.cu"):
    return {"pc_offset": offset, "samples": samples, "reasons": reasons, "sass": sass, "file": file, "line": line}


def kernel(name, mangled, reasons, hot_pcs, crc=0x5eed):
    return {"name": name, "mangled_name": mangled, "cubin_crc": crc, "samples": sum(reasons.values()),
            "reasons": reasons, "hot_pcs": hot_pcs}


def main():
    with open(PROBE) as f:
        run = json.load(f)
    by_name = {l["name"].split("(")[0] + str(l["grid"][0]): l for l in run["launches"]}
    chase = by_name["pointer_chase132"]
    spill = by_name["spill_pressure2112"]
    copy = by_name["stream_copy1056"]
    reduce_ = dict(by_name["fma_ilp16"], name="block_reduce(float const*, float*, int)",
                   mangled_name="_Z12block_reducePKfPfi")
    transpose = dict(chase, name="transpose_shared(float const*, float*, int)",
                     mangled_name="_Z16transpose_sharedPKfPfi")
    # pointer_chase twice: a repeated kernel, so the reports open on the grouped view.
    run["launches"] = [copy, chase, reduce_, transpose, spill, dict(chase)]
    for sequence, launch in enumerate(run["launches"]):
        launch["sequence"] = sequence
    run["command_line"] = ["synthetic", "stall", "samples"]
    run["stalls"] = {
        "sample_period_cycles": 4096, "collection": "continuous", "samples": 24000,
        "dropped_samples": 120, "hardware_buffer_full": 2,
        "kernels": [
            kernel(chase["name"], chase["mangled_name"],
                   {"long_scoreboard": 6300, "lg_throttle": 500, "wait": 400, "not_selected": 100, "selected": 700},
                   [pc(0x1a0, 5200, {"long_scoreboard": 5100, "selected": 100}, "LDG.E R2, [R2.64]", 41),
                    pc(0x1b0, 900, {"lg_throttle": 500, "wait": 400}, "IMAD.WIDE.U32 R2, R2, 0x4, R4", 40),
                    pc(0x1c0, 300, {"selected": 300}, "ISETP.GE.AND P0, PT, R6, c[0x0][0x168], PT", 39)]),
            kernel(reduce_["name"], reduce_["mangled_name"],
                   {"barrier": 3900, "short_scoreboard": 900, "long_scoreboard": 500, "selected": 700},
                   [pc(0x2f0, 3600, {"barrier": 3600}, "BAR.SYNC.DEFER_BLOCKING 0x0", 77),
                    pc(0x300, 800, {"short_scoreboard": 800}, "LDS R5, [R3.X4+0x80]", 78)]),
            kernel(transpose["name"], transpose["mangled_name"],
                   {"short_scoreboard": 2400, "mio_throttle": 1500, "barrier": 300, "selected": 800,
                    "stall_of_a_future_chip": 200},
                   [pc(0x440, 2100, {"short_scoreboard": 2000, "selected": 100}, "LDS R7, [R9]", 112),
                    pc(0x450, 1400, {"mio_throttle": 1400}, "STS [R11], R7", 111),
                    pc(0x470, 100, {"selected": 100}, "EXIT", None, file=None)]),
            kernel(spill["name"], spill["mangled_name"],
                   {"long_scoreboard": 2500, "lg_throttle": 1200, "selected": 300},
                   [pc(0x900, 2000, {"long_scoreboard": 2000}, "LDL R4, [R1+0x10]", 23)]),
            kernel("unlaunched_helper(int*)", "_Z17unlaunched_helperPi", {"wait": 300, "selected": 100},
                   [pc(0x10, 400, {"wait": 300, "selected": 100}, "IADD3 R0, R0, 0x1, RZ", 5)]),
        ],
    }
    for k in run["stalls"]["kernels"]:  # the collector leaves an unknown file or line out
        for p in k["hot_pcs"]:
            for key in ("file", "line"):
                if p[key] is None:
                    del p[key]
    launches = run.pop("launches")
    run["launches"] = launches  # last, as limiter writes it: a streaming reader stops at the launches
    with open(OUT, "w") as f:
        json.dump(run, f, indent=1)
        f.write("\n")
    # As `limiter run --stalls` writes it: the samples alone, no counters and no launches.
    alone = dict(run, source="cupti-pc-sampling", launches=[], launches_seen=len(launches))
    alone.pop("launches")
    alone["launches"] = []
    with open(OUT_ALONE, "w") as f:
        json.dump(alone, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
