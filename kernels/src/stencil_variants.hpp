#pragma once
// The stencil variant that lives in its own translation unit (stencil_dlcm_cg.cu), because
// -Xptxas -dlcm=cg applies to a whole file.
#include <cuda_runtime.h>

namespace limiter::kernels::detail {

struct StencilArguments;
const void* stencil_dlcm_cg_kernel();
void launch_stencil_dlcm_cg(dim3 grid, dim3 block, const StencilArguments& arguments);

}  // namespace limiter::kernels::detail
