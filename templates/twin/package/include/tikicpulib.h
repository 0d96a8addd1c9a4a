// twin package: the host-side header of the CPU debug library, as kernel-launch projects use it under
// `#ifdef ASCENDC_CPU_DEBUG`: AscendC::GmAlloc / AscendC::GmFree for global memory, AscendC::SetKernelMode,
// and ICPU_RUN_KF(kernel, blockDim, args...) to run a kernel on the CPU. Written from the documented use
// of these names in Ascend C kernel-launch projects (CPU-side debugging); no CANN file is copied.
//
// ICPU_RUN_KF runs every block of the launch on this process's GM (the twin's block scheduler,
// src/kernel_blocks.cpp), with every access checked, and writes the launch's trace (`twin-trace 6`) to
// the file named by the environment variable ASCEND_TWIN_TRACE, or `twin.trace` in the current folder;
// the second launch of a process writes `<path>.1`, the third `<path>.2`, ... A fault prints the twin's
// message (API call, source line, block) and exits the process with code 3. Launches run one at a time:
// calling ICPU_RUN_KF from several host threads at once is not supported.
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include "kernel_operator.h"

// The UB size of the SoC the project was configured for (set by the tikicpulib::<SOC_VERSION> target).
#ifndef TWIN_UB_BYTES
#define TWIN_UB_BYTES 196352
#endif
// The L1 buffer size of that SoC (twin-asc sets it; 512 KiB, the 910B's, otherwise).
#ifndef TWIN_L1_BYTES
#define TWIN_L1_BYTES 524288
#endif

// How a launch is written in the user's source (for messages): ICPU_RUN_KF, or `<<<...>>>` in a `.asc`.
#define TWIN_LAUNCH_ICPU_RUN_KF 0
#define TWIN_LAUNCH_ASC 1

extern "C" {
void *twin_icpu_gm_alloc(uint64_t bytes);
void *twin_icpu_gm_alloc_by(uint64_t bytes, const char *api);
void twin_icpu_gm_free(void *ptr);
int twin_icpu_gm_release(void *ptr);
void twin_icpu_run(const char *kernel, int64_t block_dim, uint64_t ub_bytes, void (*entry)(void *), void *ctx,
                   const char *file, int line);
void twin_icpu_launch(int form, const char *kernel, int64_t block_dim, uint64_t ub_bytes, void (*entry)(void *),
                      void *ctx, const char *file, int line);
void twin_icpu_set_l1_bytes(uint64_t l1_bytes);
}

namespace AscendC {
// Global memory for a CPU run: 512 B aligned, zeroed, bounds-checked by the twin. nullptr when out of memory.
inline void *GmAlloc(size_t bytes) { return twin_icpu_gm_alloc(bytes); }
// Releases a GmAlloc buffer; a pointer GmAlloc did not return is an error (exit 3).
inline void GmFree(void *ptr) { twin_icpu_gm_free(ptr); }
} // namespace AscendC

// Host code writes `AscendC::SetKernelMode(KernelMode::AIV_MODE)`.
using AscendC::KernelMode;

namespace twin_icpu {
template <class F> void call(void *f) { (*static_cast<F *>(f))(); }
template <class F>
void launch(const char *kernel, int64_t block_dim, F &&body, const char *file, int line, int form = TWIN_LAUNCH_ICPU_RUN_KF) {
    using Body = typename std::remove_reference<F>::type;
    twin_icpu_set_l1_bytes(TWIN_L1_BYTES);
    twin_icpu_launch(form, kernel, block_dim, TWIN_UB_BYTES, &call<Body>,
                     const_cast<void *>(static_cast<const void *>(&body)), file, line);
}
} // namespace twin_icpu

#define ICPU_RUN_KF(func, blockdim, ...)                                                                        \
    ::twin_icpu::launch(#func, (int64_t)(blockdim), [&]() { func(__VA_ARGS__); }, __FILE__, __LINE__)
