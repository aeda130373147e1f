#!/usr/bin/env python3
"""Writes a synthetic limiter run record of N launches, shaped like a wrapped real program.

The kernels carry the names real programs produce (PyTorch elementwise and reduction templates
with functors and lambdas, cuBLAS/cuBLASLt/nvjet/CUTLASS GEMMs, cuDNN, JAX/XLA fusions and
stream_executor helpers), and their counters are taken from the real H200 PyTorch recording
(tests/data/cupti/h200_pytorch_limiter.json), scaled with a little noise per launch. The
record is written one launch per line, like `limiter run` writes it.

    bench/make_synthetic_run.py --launches 123250 -o /tmp/run.json
    # the same program after a change: another seed, the GEMM nvjet kernel 17 % faster
    bench/make_synthetic_run.py --launches 123250 --seed 12 --scale nvjet=0.83 -o /tmp/after.json
"""
import argparse
import json
import os
import random
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TEMPLATE = os.path.join(ROOT, "tests", "data", "cupti", "h200_pytorch_limiter.json")

# (demangled name, mangled name, grid, block, registers): the kernels of the synthetic program.
KERNELS = [
    ("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul>)",
     "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_15CUDAFunctor_addIfEESt5arrayIPcLm3EEEEviT0_T1_", (1024, 1, 1), (128, 1, 1), 32),
    ("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, std::array<char*, 1ul> >(int, at::native::FillFunctor<float>, std::array<char*, 1ul>)",
     "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEESt5arrayIPcLm1EEEEviT0_T1_", (512, 1, 1), (128, 1, 1), 16),
    ("void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, at::native::detail::ClampLimits)::{lambda()#1}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}, std::array<char*, 2ul> >(int, at::native::(anonymous namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, at::native::detail::ClampLimits)::{lambda()#1}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}, std::array<char*, 2ul>)",
     "_ZN2at6native29vectorized_elementwise_kernelILi4EZZZNS0_12_GLOBAL__N_119launch_clamp_scalarERNS_18TensorIteratorBaseEN3c106ScalarES6_NS0_6detail11ClampLimitsEENKUlvE_clEvENKUlvE6_clEvEUlfE_St5arrayIPcLm2EEEEviT0_T1_", (2048, 1, 1), (128, 1, 1), 24),
    ("void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, at::native::detail::ClampLimits)::{lambda()#1}::operator()() const::{lambda()#8}::operator()() const::{lambda(c10::Half)#1}, std::array<char*, 2ul> >(int, at::native::(anonymous namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, at::native::detail::ClampLimits)::{lambda()#1}::operator()() const::{lambda()#8}::operator()() const::{lambda(c10::Half)#1}, std::array<char*, 2ul>)",
     "_ZN2at6native29vectorized_elementwise_kernelILi4EZZZNS0_12_GLOBAL__N_119launch_clamp_scalarERNS_18TensorIteratorBaseEN3c106ScalarES6_NS0_6detail11ClampLimitsEENKUlvE_clEvENKUlvE7_clEvEUlNS5_4HalfEE_St5arrayIPcLm2EEEEviT0_T1_", (2048, 1, 1), (128, 1, 1), 24),
    ("void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl_nocast<at::native::BUnaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> > >(at::TensorIteratorBase&, at::native::BUnaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> > const&)::{lambda(int)#1}>(int, at::native::gpu_kernel_impl_nocast<at::native::BUnaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> > >(at::TensorIteratorBase&, at::native::BUnaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> > const&)::{lambda(int)#1})",
     "_ZN2at6native18elementwise_kernelILi128ELi2EZNS0_22gpu_kernel_impl_nocastINS0_13BUnaryFunctorIfffNS0_15binary_internal10MulFunctorIfEEEEEEvRNS_18TensorIteratorBaseERKT_EUliE_EEviT1_", (256, 1, 1), (128, 1, 1), 30),
    ("void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl_nocast<at::native::BinaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> > >(at::TensorIteratorBase&, at::native::BinaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> > const&)::{lambda(int)#1}>(int, at::native::gpu_kernel_impl_nocast<at::native::BinaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> > >(at::TensorIteratorBase&, at::native::BinaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> > const&)::{lambda(int)#1})",
     "_ZN2at6native18elementwise_kernelILi128ELi2EZNS0_22gpu_kernel_impl_nocastINS0_13BinaryFunctorIfffNS0_15binary_internal10MulFunctorIfEEEEEEvRNS_18TensorIteratorBaseERKT_EUliE_EEviT1_", (256, 1, 1), (128, 1, 1), 30),
    ("void at::native::(anonymous namespace)::elementwise_kernel<128, 4, at::native::(anonymous namespace)::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}>(int, at::native::(anonymous namespace)::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1})",
     "_ZN2at6native12_GLOBAL__N_118elementwise_kernelILi128ELi4EZZZNS1_23direct_copy_kernel_cudaERNS_18TensorIteratorBaseEENKUlvE1_clEvENKUlvE6_clEvEUlfE_EEviT1_", (4096, 1, 1), (128, 1, 1), 20),
    ("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::func_wrapper_t<float, at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, float, 4, 4> >(at::native::ReduceOp<float, at::native::func_wrapper_t<float, at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, float, 4, 4>)",
     "_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIfNS0_14func_wrapper_tIfZNS0_11sum_functorIfffEclERNS_14TensorIteratorEEUlffE_EEjfLi4ELi4EEEEEvT1_", (64, 1, 1), (32, 16, 1), 40),
    ("void at::native::reduce_kernel<256, 2, at::native::ReduceOp<float, at::native::func_wrapper_t<float, at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, float, 4, 4> >(at::native::ReduceOp<float, at::native::func_wrapper_t<float, at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, float, 4, 4>)",
     "_ZN2at6native13reduce_kernelILi256ELi2ENS0_8ReduceOpIfNS0_14func_wrapper_tIfZNS0_11sum_functorIfffEclERNS_14TensorIteratorEEUlffE_EEjfLi4ELi4EEEEEvT1_", (128, 1, 1), (32, 8, 1), 40),
    ("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, unsigned int, float, 4, 4> >(at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, unsigned int, float, 4, 4>)",
     "_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIfNS0_7MeanOpsIffffEEjfLi4ELi4EEEEEvT1_", (32, 1, 1), (32, 16, 1), 38),
    ("void (anonymous namespace)::softmax_warp_forward<float, float, float, 4, true, false>(float*, float const*, int, int, int, bool const*, int, bool)",
     "_ZN12_GLOBAL__N_120softmax_warp_forwardIfffLi4ELb1ELb0EEEvPT0_PKT_iiiPKbib", (16, 1, 1), (128, 1, 1), 28),
    ("void (anonymous namespace)::softmax_warp_backward<float, float, float, 4, true, false>(float*, float const*, float const*, int, int, int, bool const*)",
     "_ZN12_GLOBAL__N_121softmax_warp_backwardIfffLi4ELb1ELb0EEEvPT0_PKT_S5_iiiPKb", (16, 1, 1), (128, 1, 1), 30),
    ("ampere_sgemm_128x64_tn", "ampere_sgemm_128x64_tn", (8, 16, 1), (128, 1, 1), 122),
    ("nvjet_sm90_tst_128x256_64x4_1x2_h_bz_coopA_NNT", "nvjet_sm90_tst_128x256_64x4_1x2_h_bz_coopA_NNT", (132, 1, 1), (384, 1, 1), 168),
    ("sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x32_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas",
     "sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x32_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas", (66, 2, 1), (128, 1, 1), 168),
    ("void cutlass::Kernel2<cutlass_80_simt_sgemm_64x64_8x5_nn_align1>(cutlass_80_simt_sgemm_64x64_8x5_nn_align1::Params)",
     "_ZN7cutlass7Kernel2I41cutlass_80_simt_sgemm_64x64_8x5_nn_align1EEvNT_6ParamsE", (16, 8, 1), (128, 1, 1), 126),
    ("void cutlass::Kernel2<cutlass_80_simt_sgemm_64x64_8x5_nt_align1>(cutlass_80_simt_sgemm_64x64_8x5_nt_align1::Params)",
     "_ZN7cutlass7Kernel2I41cutlass_80_simt_sgemm_64x64_8x5_nt_align1EEvNT_6ParamsE", (16, 8, 1), (128, 1, 1), 126),
    ("void cublasLt::splitKreduce_kernel<32, 16, int, float, float, float, float, false, float, float, float, true, false, false, false>(cublasLt::cublasSplitKParams<float>, float const*, float const*, float*, float*, float const*, float const*, float const*, float const*, float*, void*, long, float*, int*)",
     "_ZN8cublasLt19splitKreduce_kernelILi32ELi16EiffffLb0EfffLb1ELb0ELb0ELb0EEEvNS_18cublasSplitKParamsIT4_EEPKT2_SA_PS5_SB_PKS5_SD_SD_SD_PT3_PvlSE_Pi", (8, 1, 1), (512, 1, 1), 32),
    ("void stream_executor::gpu::(anonymous namespace)::RedzoneCheckerKernel(unsigned char*, unsigned long long, unsigned long long, unsigned int*)",
     "_ZN15stream_executor3gpu12_GLOBAL__N_120RedzoneCheckerKernelEPhyyPj", (1, 1, 1), (1024, 1, 1), 16),
    ("loop_add_fusion", "loop_add_fusion", (1024, 1, 1), (128, 1, 1), 18),
    ("input_reduce_fusion_1", "input_reduce_fusion_1", (132, 1, 1), (256, 1, 1), 36),
    ("input_reduce_fusion", "input_reduce_fusion", (132, 1, 1), (256, 1, 1), 36),
]

# Relative frequency of each kernel in one "training step" of the synthetic program.
WEIGHTS = [40, 12, 10, 2, 8, 8, 10, 6, 4, 4, 3, 3, 6, 4, 4, 2, 2, 2, 1, 8, 3, 3]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--launches", type=int, required=True)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--scale", action="append", default=[], metavar="TEXT=FACTOR",
                        help="multiply the times and counts of kernels whose name holds TEXT by FACTOR (repeatable)")
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args()
    scales = [(text, float(factor)) for text, factor in (item.rsplit("=", 1) for item in args.scale)]

    template = json.load(open(TEMPLATE))
    counters = [launch["counters"] for launch in template["launches"] if "gpu__time_duration.sum" in launch["counters"]]
    # The program (each kernel's counters, the order of a step) is the same for every seed; the
    # seed varies the launches' noise, so two seeds are two runs of one program.
    program = random.Random(11)
    profiles = [program.choice(counters) for _ in KERNELS]
    step = [index for index, weight in enumerate(WEIGHTS) for _ in range(weight)]
    program.shuffle(step)
    rng = random.Random(args.seed)

    header = {key: template[key] for key in ("schema_version", "kind", "tool_version", "source", "created_at")}
    header["command_line"] = ["python3", "train.py", "--synthetic", str(args.launches)]
    header["counter_model"] = template["counter_model"]
    header["device"] = template["device"]
    with open(args.output, "w") as out:
        text = json.dumps(header, indent=1)
        out.write(text[: text.rfind("}")].rstrip() + ',\n "launches": [')
        for sequence in range(args.launches):
            kernel = step[sequence % len(step)]
            name, mangled, grid, block, registers = KERNELS[kernel]
            scale = rng.uniform(0.9, 1.1)
            for text, factor in scales:
                if text in name:
                    scale *= factor
            launch_counters = {
                metric: (value * scale if "peak" not in metric and "pct" not in metric and "per_second" not in metric else value)
                for metric, value in profiles[kernel].items()
            }
            launch = {
                "sequence": sequence, "name": name, "mangled_name": mangled, "grid": list(grid), "block": list(block),
                "registers_per_thread": registers, "static_shared_bytes": 0, "dynamic_shared_bytes": 0,
                "local_bytes_per_thread": 0, "stream_id": 7, "context_id": 1, "device": 0, "counters": launch_counters,
            }
            out.write(("\n  " if sequence == 0 else ",\n  ") + json.dumps(launch, separators=(",", ":")))
        out.write("\n ]\n}\n")
    print(f"{args.launches} launches of {len(KERNELS)} kernels -> {args.output} "
          f"({os.path.getsize(args.output) / 1e6:.1f} MB)", file=sys.stderr)


if __name__ == "__main__":
    main()
