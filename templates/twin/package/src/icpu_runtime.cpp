// twin package: the runtime behind tikicpulib.h (ICPU_RUN_KF, GmAlloc, GmFree). Blocks run through the
// same scheduler as the twin's run-file program (twin::run_blocks in kernel_blocks.cpp); this file only
// adds what a host program launching kernels itself needs: named GM buffers, the trace file per launch,
// and turning a fault into the process's exit code.
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>
#include "kernel_internal.h"

namespace {

uint64_t g_allocs = 0;   // GmAlloc calls so far: names the buffers in fault messages
uint64_t g_launches = 0; // ICPU_RUN_KF calls so far: numbers the trace files

// ASCEND_TWIN_TRACE, or twin.trace in the current folder; launch n > 0 appends ".n".
std::string trace_path(uint64_t launch) {
    const char *env = std::getenv("ASCEND_TWIN_TRACE");
    std::string path = (env && *env) ? env : "twin.trace";
    if (launch > 0) path += "." + std::to_string(launch);
    return path;
}

bool write_file(const std::string &path, const std::string &text) {
    FILE *f = std::fopen(path.c_str(), "wb");
    if (!f) return false;
    bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
    ok = (std::fclose(f) == 0) && ok;
    return ok;
}

[[noreturn]] void quit(int rc) {
    std::fflush(stdout);
    std::fflush(stderr);
    _exit(rc); // blocks stopped at SyncAll may still hold their threads
}

} // namespace

extern "C" void *twin_icpu_gm_alloc(uint64_t bytes) {
    char name[48];
    std::snprintf(name, sizeof name, "GmAlloc #%llu", (unsigned long long)g_allocs++);
    return twin::gm_alloc(bytes, name);
}

extern "C" void twin_icpu_gm_free(void *ptr) {
    if (!ptr) return;
    if (!twin::gm_free(ptr)) {
        std::fprintf(stderr, "error: AscendC::GmFree(%p): not a buffer from AscendC::GmAlloc, or freed already\n", ptr);
        quit(3);
    }
}

extern "C" void twin_icpu_run(const char *kernel, int64_t block_dim, uint64_t ub_bytes, void (*entry)(void *), void *ctx,
                              const char *file, int line) {
    std::fflush(stdout); // what the host printed so far stays before the kernel's messages
    if (block_dim < 1 || block_dim > 65535) {
        std::fprintf(stderr, "error: ICPU_RUN_KF(%s): blockDim %lld is out of range 1..65535\n  --> %s:%d\n", kernel,
                     (long long)block_dim, file, line);
        quit(3);
    }
    twin::Launch launch{entry, ctx, block_dim, ub_bytes, 0, 16u * 1024u * 1024u};
    twin::LaunchResult res = twin::run_blocks(launch);
    std::string path = trace_path(g_launches++);
    bool written = write_file(path, res.trace);
    if (res.rc) {
        std::fputs(res.err.c_str(), stderr);
        std::fprintf(stderr, "  = note: in ICPU_RUN_KF(%s, %lld, ...) at %s:%d\n", kernel, (long long)block_dim, file, line);
        quit(res.rc);
    }
    if (!written) {
        std::fprintf(stderr, "error: ICPU_RUN_KF(%s): cannot write the twin trace to %s: %s\n", kernel, path.c_str(),
                     std::strerror(errno));
        quit(2);
    }
}
