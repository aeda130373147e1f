#!/usr/bin/env python3
"""Writes the two synthetic `limiter run --stalls` records of this folder (run from the repository root).

Two ranks of a torchrun job (world size 2) on one H200 each, PC samples alone as `limiter run
--stalls` records them: a CUTLASS 3 Hopper GEMM (cutlass::device_kernel<GemmUniversal<...>>)
whose warps mostly wait for their warpgroup MMA (warpgroup_arrive, ncu's "Stall GMMA"), and a
PyTorch elementwise kernel waiting on memory, each with its hot PCs (the GEMM's with SASS and
source lines, the elementwise kernel's offsets alone, as without a kept cubin). The samples are
made up; the names are as CUDA demangles them.
"""
import json

GEMM = ("void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<cute::tuple<int, int, int, int>, "
        "cutlass::gemm::collective::CollectiveMma<cutlass::gemm::MainloopSm90TmaGmmaWarpSpecialized<4, "
        "cute::tuple<cute::C<1>, cute::C<1>, cute::C<1> >, cutlass::gemm::KernelTmaWarpSpecialized>, "
        "cute::tuple<cute::C<128>, cute::C<128>, cute::C<64> >, cutlass::bfloat16_t, "
        "cute::tuple<long, cute::C<1>, long>, cutlass::bfloat16_t, cute::tuple<long, cute::C<1>, long> >, "
        "cutlass::epilogue::collective::DefaultEpilogue<cute::tuple<long, cute::C<1>, long>, "
        "cute::tuple<long, cute::C<1>, long>, cutlass::epilogue::thread::LinearCombination<cutlass::bfloat16_t, 1, "
        "float, float>, cutlass::gemm::EpilogueDefault>, void> >(cutlass::gemm::kernel::GemmUniversal<"
        "cute::tuple<int, int, int, int>, void, void, void>::Params)")
COPY = ("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, "
        "std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul>)")


MAINLOOP = "cutlass/gemm/collective/sm90_mma_tma_gmma_ss_warpspecialized.hpp"


def pc(offset, reasons, sass="", line=None, file=MAINLOOP):
    """A hot PC; without SASS or line when the cubin was not kept."""
    entry = {"pc_offset": offset, "samples": sum(reasons.values()), "reasons": reasons}
    if sass:
        entry["sass"] = sass
    if line is not None:
        entry["file"], entry["line"] = file, line
    return entry


# The hot PCs differ between the ranks so that their sum ranks them otherwise than either rank
# alone: rank 0's hottest is the wait at 0x1a40, the job's the HGMMA at 0x1b80; 0x2210 is rank 1's only.
GEMM_PCS = {
    0: [pc(0x1a40, {"warpgroup_arrive": 3000, "selected": 200}, "WARPGROUP.DEPBAR.LE gsb0, 0x0", 412),
        pc(0x1b80, {"warpgroup_arrive": 1500, "selected": 900}, "HGMMA.64x128x16.F32.BF16 R24, gdesc[UR4], R24, gsb0", 398),
        pc(0x0c30, {"barrier": 450}, "BAR.SYNC.DEFER_BLOCKING 0x0", 287)],
    1: [pc(0x1a40, {"warpgroup_arrive": 1000, "selected": 100}, "WARPGROUP.DEPBAR.LE gsb0, 0x0", 412),
        pc(0x1b80, {"warpgroup_arrive": 3600, "selected": 900}, "HGMMA.64x128x16.F32.BF16 R24, gdesc[UR4], R24, gsb0", 398),
        pc(0x2210, {"long_scoreboard": 500}, "LDG.E.128 R8, desc[UR6][R2.64]", 151,
           "cutlass/epilogue/collective/default_epilogue.hpp")],
}
COPY_PCS = {0: [pc(0x90, {"long_scoreboard": 1500})], 1: [pc(0x90, {"long_scoreboard": 1900})]}


def kernel(name, reasons, hot_pcs):
    return {"name": name, "mangled_name": "", "cubin_crc": 0, "samples": sum(reasons.values()), "reasons": reasons,
            "hot_pcs": hot_pcs}


def record(rank, scale):
    gemm = {"warpgroup_arrive": int(5200 * scale), "long_scoreboard": 600, "barrier": 500, "selected": 1700}
    add = {"long_scoreboard": int(1800 * scale), "lg_throttle": 300, "selected": 200}
    kernels = [kernel(GEMM, gemm, GEMM_PCS[rank]), kernel(COPY, add, COPY_PCS[rank])]
    return {
        "schema_version": 1, "kind": "limiter-run", "tool_version": "0.1.0", "source": "cupti",
        "created_at": "2026-11-28T09:00:00Z", "command_line": ["synthetic", "stall", "ranks"],
        "host": "node0", "rank": {"rank": rank, "world_size": 2, "local_rank": rank, "launcher": "torchrun"},
        "counter_model": "perfworks",
        "device": {"name": "NVIDIA H200", "arch": "sm_90", "chip": "GH100", "sm_count": 132, "sm_clock_hz": None,
                   "memory_clock_hz": None, "memory_bus_width_bits": 6016, "l2_bytes": 62914560,
                   "global_memory_bytes": 150109880320, "uuid": "GPU-5a1e0000-0000-0000-0000-00000000000%d" % rank},
        "stalls": {"sample_period_cycles": 4096, "collection": "continuous",
                   "samples": sum(k["samples"] for k in kernels), "dropped_samples": 0, "hardware_buffer_full": 0,
                   "kernels": kernels},
        "launches": [],
    }


for rank, scale in ((0, 1.0), (1, 1.25)):
    with open("tests/data/ranks/stalls/h200_gemm_stalls_rank%d.json" % rank, "w") as f:
        json.dump(record(rank, scale), f, indent=1)
        f.write("\n")
