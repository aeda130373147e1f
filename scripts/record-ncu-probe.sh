#!/usr/bin/env bash
# Records the Nsight Compute exports of kernels/probe/verdict_probe.cu that tests/data/ncu/
# holds. Run on the GPU machine (ncu installed) from the repository root, after building the
# probe here: nvcc -O3 -std=c++17 -arch=sm_90 -o build-device/verdict_probe kernels/probe/verdict_probe.cu
# Production clocks (--clock-control none), as docs/design.md §7 asks for classification.
set -euo pipefail
out=${OUT:-${1:-probe-out}}
mkdir -p "$out"
probe=${PROBE:-build-device/verdict_probe}
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr ' ' '_' | tr -cd 'A-Za-z0-9_-')

metrics=(
  gpu__time_duration.sum sm__cycles_elapsed.avg sm__cycles_elapsed.avg.per_second
  smsp__inst_issued.sum smsp__inst_executed.sum smsp__inst_issued.sum.peak_sustained
  dram__bytes_read.sum dram__bytes_write.sum dram__bytes.sum.peak_sustained dram__cycles_elapsed.avg.per_second
  lts__t_sectors_op_read.sum lts__t_sectors_op_write.sum lts__t_sectors_op_atom.sum lts__t_sectors_op_red.sum
  lts__t_sectors_srcunit_tex_op_read.sum lts__t_sectors_srcunit_tex_op_write.sum
  lts__cycles_elapsed.avg lts__cycles_elapsed.avg.per_second lts__t_sectors.sum.peak_sustained
  l1tex__t_sectors_pipe_lsu_mem_local_op_ld_lookup_hit.sum l1tex__t_sectors_pipe_lsu_mem_local_op_ld_lookup_miss.sum
  l1tex__t_sectors_pipe_lsu_mem_local_op_st_lookup_hit.sum l1tex__t_sectors_pipe_lsu_mem_local_op_st_lookup_miss.sum
  smsp__inst_executed_op_local_ld.sum smsp__inst_executed_op_local_st.sum
  l1tex__t_requests_pipe_lsu_mem_local_op_ld.sum l1tex__t_requests_pipe_lsu_mem_local_op_st.sum
  smsp__issue_active.avg.pct_of_peak_sustained_active sm__warps_active.avg.pct_of_peak_sustained_active
  sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active
  sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active sm__inst_executed_pipe_fp64.avg.pct_of_peak_sustained_active
  sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active
)
list=$(IFS=,; echo "${metrics[*]}")

nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,memory.total --format=csv > "$out/gpu.txt"
ncu --version >> "$out/gpu.txt"
"$probe" | tee "$out/probe_results.txt"
ncu --clock-control none --section SpeedOfLight --section LaunchStats --section Occupancy \
    --metrics "$list" -f -o "$out/probe" "$probe" > "$out/ncu_log.txt" 2>&1
ncu -i "$out/probe.ncu-rep" --csv --page raw --print-units base > "$out/${gpu}_probe_raw.csv"
ncu -i "$out/probe.ncu-rep" --csv --page details --print-units base > "$out/${gpu}_probe_details.csv"
ncu -i "$out/probe.ncu-rep" --page details --section SpeedOfLight --print-details all > "$out/sol.txt" 2>&1 || true
echo "recorded: $(ls "$out")"
