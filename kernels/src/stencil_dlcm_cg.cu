// The spilling stencil compiled with -Xptxas -dlcm=cg (kernels/CMakeLists.txt): global loads are
// cached in L2 only, leaving L1 to the spilled registers (seed 001's third remedy).
#include "stencil_body.cuh"
#include "stencil_variants.hpp"

namespace limiter::kernels::detail {
namespace {

__global__ void __maxnreg__(kStencilRegisterCap) stencil8_spilling_dlcm_cg(StencilArguments arguments) {
  stencil8_march(arguments);
}

}  // namespace

const void* stencil_dlcm_cg_kernel() { return reinterpret_cast<const void*>(&stencil8_spilling_dlcm_cg); }

void launch_stencil_dlcm_cg(dim3 grid, dim3 block, const StencilArguments& arguments) {
  stencil8_spilling_dlcm_cg<<<grid, block>>>(arguments);
}

}  // namespace limiter::kernels::detail
