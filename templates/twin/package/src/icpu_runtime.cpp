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

// The same values as in tikicpulib.h, which this file does not include (it needs no kernel API).
#define TWIN_LAUNCH_ICPU_RUN_KF 0
#define TWIN_LAUNCH_ASC 1
extern "C" void *twin_icpu_gm_alloc_by(uint64_t bytes, const char *api);
extern "C" void twin_icpu_launch(int form, const char *kernel, int64_t block_dim, uint64_t ub_bytes,
                                 void (*entry)(void *), void *ctx, const char *file, int line);
extern "C" void twin_icpu_set_l1_bytes(uint64_t l1_bytes);

namespace {

uint64_t g_allocs = 0;   // GmAlloc calls so far: names the buffers in fault messages
uint64_t g_launches = 0; // ICPU_RUN_KF calls so far: numbers the trace files
uint64_t g_l1_bytes = 512u * 1024u; // the L1 buffer of each block (twin_icpu_set_l1_bytes)

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

extern "C" void *twin_icpu_gm_alloc(uint64_t bytes) { return twin_icpu_gm_alloc_by(bytes, "GmAlloc"); }

// `api` names the buffer in fault reports: "GmAlloc #0", "aclrtMalloc #1", ...
extern "C" void *twin_icpu_gm_alloc_by(uint64_t bytes, const char *api) {
    char name[64];
    std::snprintf(name, sizeof name, "%s #%llu", api, (unsigned long long)g_allocs++);
    return twin::gm_alloc(bytes, name);
}

extern "C" int twin_icpu_gm_release(void *ptr) { return ptr && twin::gm_free(ptr) ? 0 : 1; }

extern "C" void twin_icpu_gm_free(void *ptr) {
    if (!ptr) return;
    if (!twin::gm_free(ptr)) {
        std::fprintf(stderr, "error: AscendC::GmFree(%p): not a buffer from AscendC::GmAlloc, or freed already\n", ptr);
        quit(3);
    }
}

extern "C" void twin_icpu_set_l1_bytes(uint64_t l1_bytes) {
    if (l1_bytes >= 32 && l1_bytes <= (1u << 30)) g_l1_bytes = l1_bytes;
}

extern "C" void twin_icpu_run(const char *kernel, int64_t block_dim, uint64_t ub_bytes, void (*entry)(void *), void *ctx,
                              const char *file, int line) {
    twin_icpu_launch(TWIN_LAUNCH_ICPU_RUN_KF, kernel, block_dim, ub_bytes, entry, ctx, file, line);
}

extern "C" void twin_icpu_launch(int form, const char *kernel, int64_t block_dim, uint64_t ub_bytes, void (*entry)(void *),
                                 void *ctx, const char *file, int line) {
    // How the launch reads in the user's source, for messages.
    char how[320];
    if (form == TWIN_LAUNCH_ASC) {
        std::snprintf(how, sizeof how, "%s<<<%lld, ...>>>(...)", kernel, (long long)block_dim);
    } else {
        std::snprintf(how, sizeof how, "ICPU_RUN_KF(%s, %lld, ...)", kernel, (long long)block_dim);
    }
    std::fflush(stdout); // what the host printed so far stays before the kernel's messages
    if (block_dim < 1 || block_dim > 65535) {
        std::fprintf(stderr, "error: %s: blockDim %lld is out of range 1..65535\n  --> %s:%d\n", how,
                     (long long)block_dim, file, line);
        quit(3);
    }
    twin::Launch launch{entry, ctx, block_dim, ub_bytes, 0, 16u * 1024u * 1024u, g_l1_bytes};
    twin::LaunchResult res = twin::run_blocks(launch);
    std::string path = trace_path(g_launches++);
    bool written = write_file(path, res.trace);
    if (res.rc) {
        std::fputs(res.err.c_str(), stderr);
        std::fprintf(stderr, "  = note: in %s at %s:%d\n", how, file, line);
        quit(res.rc);
    }
    if (!written) {
        std::fprintf(stderr, "error: %s: cannot write the twin trace to %s: %s\n", how, path.c_str(),
                     std::strerror(errno));
        quit(2);
    }
}
