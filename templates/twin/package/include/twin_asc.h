// twin package: what bin/twin-asc force-includes into every Ascend C single-source file (`.asc`) it
// compiles for the CPU: the kernel API, the CPU debug library's host side (tikicpulib.h: GM buffers and
// the block runner) and the ACL subset (acl/acl.h), plus `twin_asc::launch`, which each kernel launch
// `kernel<<<numBlocks, l2ctrl, stream>>>(args)` becomes (src/asc_rewrite.cpp). A launch runs every
// block on the twin before it returns, checks every access, and writes the launch's trace as ICPU_RUN_KF
// does (ASCEND_TWIN_TRACE, `.1`, `.2`, ... for later launches).
#pragma once
#include "kernel_operator.h"
#include "tikicpulib.h"
#include "acl/acl.h"

namespace twin_asc {
template <class F>
void launch(const char *kernel, int64_t num_blocks, aclrtStream stream, F &&body, const char *file, int line) {
    (void)stream;
    ::twin_icpu::launch(kernel, num_blocks, body, file, line, TWIN_LAUNCH_ASC);
}
// The storage of a UB array `__ubuf__ T name[n];` declared in a kernel (the C API's UB data, which the
// rewrite turns into this call): n elements from the block's UB, 32-byte aligned, after what is carved so
// far; the returned pointer's value is the UB byte address, as every `__ubuf__ T *` of the twin. Each block
// starts with an empty UB; running out of it is a fault naming the declaration.
template <class T> T *ub_array(uint64_t n, const char *file, int line) {
    uint64_t at = ((uint64_t)::twin::g.ub_used + 31) / 32 * 32;
    uint64_t bytes = (n * sizeof(T) + 31) / 32 * 32;
    if (at + bytes > ::twin::g.ub_bytes) {
        ::twin::fault(file, line, "UB array of %llu bytes at UB address %llu exceeds the %u bytes of the UB",
                      (unsigned long long)bytes, (unsigned long long)at, ::twin::g.ub_bytes);
    }
    ::twin::g.ub_used = (uint32_t)(at + bytes);
    return reinterpret_cast<T *>((uintptr_t)at);
}
} // namespace twin_asc
