// cudaGraphSetConditional for the kernels that decide conditional graph nodes (conditional.cu, cond_relu.cu,
// cond_switch.cu): one place for the declaration they share.
//
// cudaGraphSetConditional is a device builtin declared in the toolkit's cuda_device_runtime_api.h; it needs no -rdc
// and no device runtime library. cugraphlab compiles these files with -I pointing at the CUDA include folder when
// it finds one matching the NVRTC in use (graphs.conditional.conditional_options), and -DCGL_REQUIRE_CUDART_HEADER,
// so a wrong folder fails loudly. Without that folder (e.g. `cugraphlab compile`, which compiles every .cu with the
// same options) it declares the two names itself, exactly as the header does; the resulting cubin is byte-identical.
#pragma once
#if defined(__has_include)
#if __has_include(<cuda_device_runtime_api.h>)
#include <cuda_device_runtime_api.h>
#define CGL_HAVE_CUDART_HEADER 1
#endif
#endif
#ifndef CGL_HAVE_CUDART_HEADER
#ifdef CGL_REQUIRE_CUDART_HEADER
#error "cuda_device_runtime_api.h not found: pass -I<CUDA include folder>"
#endif
typedef unsigned long long cudaGraphConditionalHandle;
extern "C" __device__ void cudaGraphSetConditional(cudaGraphConditionalHandle handle, unsigned int value);
#endif
