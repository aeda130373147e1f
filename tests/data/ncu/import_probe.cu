// Source of import_probe_h200_*.csv: a tiny program whose Nsight Compute exports exercise the
// importer (a templated kernel name with commas, a 2-D grid and block, dynamic shared memory,
// a repeated kernel, and program output with an unbalanced quote before the CSV header).
// Recorded 2026-11-22 on an H200 with ncu 2025.3.1 (default clock control):
//   nvcc -O2 -arch=sm_90 -cudart static -o probe import_probe.cu
//   ncu --csv ./probe > import_probe_h200_details.csv
//   ncu --csv --page raw ./probe > import_probe_h200_raw.csv
//   ncu --csv --metrics launch__grid_size,launch__block_size,launch__registers_per_thread,\
//     launch__shared_mem_per_block_static,launch__shared_mem_per_block_dynamic,gpu__time_duration.sum,\
//     dram__bytes_read.sum,lts__t_sectors_op_read.sum,smsp__inst_issued.sum,\
//     sm__cycles_elapsed.avg.per_second,device__attribute_display_name,\
//     device__attribute_multiprocessor_count,device__attribute_compute_capability_major,\
//     device__attribute_compute_capability_minor,device__attribute_l2_cache_size,\
//     device__attribute_clock_rate,device__attribute_chip,device__attribute_architecture,\
//     device__attribute_total_memory,launch__func_cache_config,dram__bytes_read.sum.per_second \
//     ./probe > import_probe_h200_details_metrics.csv
#include <cstdio>
#include <cuda_runtime.h>
template <int A, int B>
__global__ void fwd_3D_orderX2b(const float* in, float* out, int n) {
  float local[64];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < 64; ++k) local[(k * A + i) & 63] = in[(i + k) % n];
  float s = 0;
  for (int k = 0; k < 64; ++k) s += local[(k * B + i) & 63];
  if (i < n) out[i] = s;
}
__global__ void copy_kernel(const float* in, float* out, int n) {
  extern __shared__ float tile[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    tile[threadIdx.x] = in[i];
    out[i] = tile[threadIdx.x];
  }
}
int main() {
  int n = 1 << 20;
  float *a, *b;
  cudaMalloc(&a, n * 4);
  cudaMalloc(&b, n * 4);
  cudaMemset(a, 0, n * 4);
  copy_kernel<<<n / 256, 256, 1024>>>(a, b, n);
  fwd_3D_orderX2b<4, 9><<<dim3(64, 2, 1), dim3(128, 2, 1)>>>(a, b, n);
  copy_kernel<<<n / 256, 256, 1024>>>(a, b, n);
  cudaDeviceSynchronize();
  printf("probe done \"quoted\n");
  return 0;
}
