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
} // namespace twin_asc
