#pragma once
// The 8th-order 3D finite-difference wave-equation stencil of seed 001's case study
// (Micikevicius, "3D Finite Difference Computation on GPUs using CUDA"): a 2D tile of threads
// marches along z; each thread keeps the 4 planes behind and the 4 in front of its point in
// registers (a 9-plane queue) and shares the current plane through a shared-memory tile with
// halos. Included by stencil.cu and by stencil_dlcm_cg.cu, which is compiled with different
// ptxas options; the global pointers are deliberately not __restrict__, so their loads stay
// plain ld.global, whose caching -dlcm=cg decides.
#include <cstdint>

#include "limiter/kernels/reference.hpp"

namespace limiter::kernels::detail {

inline constexpr int kStencilBlockX = 32;
inline constexpr int kStencilBlockY = 8;
// The seed's cap: 32 registers per thread (there, for 1024 threads per Fermi SM).
inline constexpr int kStencilRegisterCap = 32;

struct StencilArguments {
  const float* previous;
  const float* current;
  const float* velocity;
  float* next;
  reference::StencilGrid grid;  // interior sizes, multiples of the block
};

__device__ __forceinline__ void stencil8_march(const StencilArguments& a) {
  constexpr int R = reference::kStencilRadius, BX = kStencilBlockX, BY = kStencilBlockY;
  __shared__ float tile[BY + 2 * R][BX + 2 * R];
  const int tx = threadIdx.x + R, ty = threadIdx.y + R;
  const int x = blockIdx.x * BX + threadIdx.x + R;  // with the halo
  const int y = blockIdx.y * BY + threadIdx.y + R;
  const std::int64_t sy = a.grid.stride_y(), sz = a.grid.stride_z();
  std::int64_t at = a.grid.index(x, y, R);  // the first interior plane

  float behind[R], infront[R];  // behind[0] is the plane just below, infront[0] just above
#pragma unroll
  for (int r = 0; r < R; ++r) {
    behind[r] = a.current[at - (r + 1) * sz];
    infront[r] = a.current[at + (r + 1) * sz];
  }
  float centre = a.current[at];
  float previous_here = a.previous[at], velocity_here = a.velocity[at];

  for (int z = 0; z < a.grid.nz; ++z) {
    // The next plane's inputs are loaded first, so their latency hides behind this plane's
    // arithmetic (the case study's kernel does the same; it costs the registers that spill).
    const bool more = z + 1 < a.grid.nz;
    const float previous_ahead = more ? a.previous[at + sz] : 0.0f;
    const float velocity_ahead = more ? a.velocity[at + sz] : 0.0f;
    const float infront_ahead = more ? a.current[at + (R + 1) * sz] : 0.0f;

    // The current plane, with R columns and rows of halo, into shared memory.
    if (threadIdx.y < R) {
      tile[threadIdx.y][tx] = a.current[at - R * sy];
      tile[ty + BY][tx] = a.current[at + BY * sy];
    }
    if (threadIdx.x < R) {
      tile[ty][threadIdx.x] = a.current[at - R];
      tile[ty][tx + BX] = a.current[at + BX];
    }
    tile[ty][tx] = centre;
    __syncthreads();

    float laplacian = 3.0f * reference::stencil_coefficient(0) * centre;
#pragma unroll
    for (int r = 1; r <= R; ++r) {
      const float ring =
          tile[ty][tx - r] + tile[ty][tx + r] + tile[ty - r][tx] + tile[ty + r][tx] + behind[r - 1] + infront[r - 1];
      laplacian += reference::stencil_coefficient(r) * ring;
    }
    a.next[at] = 2.0f * centre - previous_here + velocity_here * laplacian;
    __syncthreads();  // the tile is rewritten for the next plane

    // Advance the queue by one plane.
#pragma unroll
    for (int r = R - 1; r > 0; --r) behind[r] = behind[r - 1];
    behind[0] = centre;
    centre = infront[0];
#pragma unroll
    for (int r = 0; r < R - 1; ++r) infront[r] = infront[r + 1];
    infront[R - 1] = infront_ahead;
    previous_here = previous_ahead;
    velocity_here = velocity_ahead;
    at += sz;
  }
}

}  // namespace limiter::kernels::detail
