// twin: running a launch's blocks, shared by the run-file program (kernel_main.cpp) and the ICPU_RUN_KF
// glue of the twin package (package/src/icpu_runtime.cpp). Also GM allocation and release.
// Every block runs on its own thread, but only one thread runs at a time (a baton), so the run is
// deterministic and blocks execute in index order. SyncAll hands the baton to the next block; after
// the last block the first one continues: each phase between two SyncAll runs all blocks in order, as
// they would all have to arrive before any continues on the device.
#include <condition_variable>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>
#include "kernel_internal.h"

namespace twin {

// ---- GM allocation -----------------------------------------------------------------------------
// GM buffers are 512 B aligned. Accesses are allowed up to the size rounded up to 32 B plus 32 B
// (the padding a device allocation has); past the requested size they draw a warning.
uint8_t *gm_alloc(uint64_t bytes, const char *name) {
    uint64_t cap = (bytes + 31) / 32 * 32 + 32;
    uint64_t backed = (cap + 511) / 512 * 512;
    void *p = std::aligned_alloc(512, backed);
    if (!p) return nullptr;
    std::memset(p, 0, backed);
    const char *src = name ? name : "gm";
    size_t len = std::strlen(src) + 1;
    char *owned = static_cast<char *>(std::malloc(len));
    if (!owned) {
        std::free(p);
        return nullptr;
    }
    std::memcpy(owned, src, len);
    gm_register(static_cast<uint8_t *>(p), bytes, cap, owned);
    return static_cast<uint8_t *>(p);
}

bool gm_free(void *p) {
    auto &v = gm_allocs();
    for (auto it = v.begin(); it != v.end(); ++it) {
        if (it->base == p) {
            char *name = const_cast<char *>(it->name);
            v.erase(it);
            std::free(p);
            std::free(name);
            return true;
        }
    }
    return false;
}

} // namespace twin

namespace {

struct Block {
    std::thread th;
    bool started = false, done = false, failed = false;
    std::string trace;
    std::string err;
};

std::mutex g_m;
std::condition_variable g_cv;
int64_t g_turn = -1; // block allowed to run; -1 = the scheduler (the launching thread)
std::vector<Block> *g_blocks = nullptr;
const twin::Launch *g_launch = nullptr;
std::vector<uint8_t *> g_ubs; // UB arena of each started block (shared while no block syncs)
uint64_t g_ub_cap = 0;
volatile sig_atomic_t g_cur_block = 0;

// A signal in the kernel's own code (the twin's API checks its accesses and throws a Fault instead):
// named, with the block and the last API call the block made, which is as near as the twin can place
// it without debug information. Runs on the faulting block's thread, so twin::g is that block's.
void on_signal(int sig) {
    const char *what = sig == SIGSEGV ? "segmentation fault (a raw pointer access outside the twin's checked API?)"
                       : sig == SIGBUS ? "bus error (a misaligned or unmapped raw pointer access?)"
                       : sig == SIGFPE ? "arithmetic exception (SIGFPE: an integer division by zero, or INT_MIN / -1)"
                                       : "signal";
    const twin::BlockState &s = twin::g;
    char buf[768];
    int n;
    if (s.last_file)
        n = std::snprintf(buf, sizeof buf,
                          "error: %s in the kernel's own code, after its last API call `%s`\n"
                          "  --> %s:%d (block %d)\n"
                          "  = note: the fault lies after that call and before the block's next one; the twin sees "
                          "API calls, not the kernel's own arithmetic and pointer accesses\n",
                          what, s.last_api ? s.last_api : "?", s.last_file, s.last_line, (int)g_cur_block);
    else
        n = std::snprintf(buf, sizeof buf,
                          "error: %s in the kernel's own code, before its first API call\n"
                          "  --> <kernel>:0 (block %d)\n",
                          what, (int)g_cur_block);
    if (n > 0) { ssize_t w = write(2, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1); (void)w; }
    _exit(3);
}

void yield_to_scheduler(int64_t me) {
    std::unique_lock<std::mutex> lk(g_m);
    g_turn = -1;
    g_cv.notify_all();
    g_cv.wait(lk, [me] { return g_turn == me; });
}

void block_thread(int64_t b) {
    {
        std::unique_lock<std::mutex> lk(g_m);
        g_cv.wait(lk, [b] { return g_turn == b; });
    }
    Block &B = (*g_blocks)[(size_t)b];
    const twin::Launch &L = *g_launch;
    twin::BlockState &g = twin::g;
    std::memset(&g, 0, sizeof g);
    g.ub = g_ubs[(size_t)b];
    g.ub_bytes = (uint32_t)L.ub_bytes;
    g.ub_phys = (uint32_t)L.ub_bytes + twin::UB_RESERVED;
    g.l1_bytes = (uint32_t)L.l1_bytes;
    g.block_idx = b;
    g.block_dim = L.block_dim;
    g.tiling_key = L.tiling_key;
    g.sys_workspace = L.sys_workspace;
    g.mask0 = ~0ull;
    g.mask1 = ~0ull;
    std::memset(g.ub, 0, g_ub_cap);
    twin::trace_begin();
    twin::g_trace.reserve(1 << 16);
    try {
        L.entry(L.ctx);
    } catch (const twin::Fault &f) {
        char buf[64];
        std::snprintf(buf, sizeof buf, " (block %lld)", (long long)b);
        B.err = "error: " + f.msg + "\n  --> " + f.file + ":" + std::to_string(f.line) + buf + "\n";
        B.failed = true;
    } catch (const std::exception &e) {
        B.err = std::string("error: C++ exception in kernel: ") + e.what() + "\n  --> <unknown>:0 (block " + std::to_string(b) + ")\n";
        B.failed = true;
    }
    B.trace.swap(twin::g_trace);
    std::free(g.l1);
    g.l1 = nullptr;
    B.done = true;
    std::unique_lock<std::mutex> lk(g_m);
    g_turn = -1;
    g_cv.notify_all();
}

// Runs block b until it finishes or reaches SyncAll.
void run_block(int64_t b) {
    Block &B = (*g_blocks)[(size_t)b];
    g_cur_block = (sig_atomic_t)b;
    std::unique_lock<std::mutex> lk(g_m);
    if (!B.started) {
        B.started = true;
        lk.unlock();
        B.th = std::thread(block_thread, b);
        lk.lock();
    }
    g_turn = b;
    g_cv.notify_all();
    g_cv.wait(lk, [] { return g_turn == -1; });
}

} // namespace

namespace twin {

uint8_t *l1_arena(const char *file, int line) {
    if (!g.l1) {
        g.l1 = static_cast<uint8_t *>(std::calloc(1, g.l1_bytes ? g.l1_bytes : 1));
        if (!g.l1) fault(file, line, "out of memory allocating the L1 buffer (%u bytes)", g.l1_bytes);
    }
    return g.l1;
}

void sync_all(const char *api, const char *file, int line) {
    (void)api; (void)file; (void)line;
    g.sync_count++;
    yield_to_scheduler(g.block_idx);
}

LaunchResult run_blocks(const Launch &launch) {
    LaunchResult res;
    if (launch.block_dim < 1 || launch.block_dim > 65535) {
        res.rc = 2;
        res.err = "error: block_dim " + std::to_string(launch.block_dim) + " is out of range 1..65535\n";
        return res;
    }
    if (launch.ub_bytes < 32 || launch.ub_bytes > (1u << 30)) {
        res.rc = 2;
        res.err = "error: ub_bytes " + std::to_string(launch.ub_bytes) + " is out of range\n";
        return res;
    }
    // Owned by this call, but left alive after a fault: blocks stopped at SyncAll still hold their
    // threads, which must not be destroyed before the caller exits.
    auto *owned_blocks = new std::vector<Block>((size_t)launch.block_dim);
    std::vector<Block> &blocks = *owned_blocks;
    g_blocks = owned_blocks;
    g_launch = &launch;
    g_ub_cap = (launch.ub_bytes + twin::UB_RESERVED + 63) / 64 * 64;
    g_ubs.clear();
    std::vector<uint8_t *> owned_ubs;

    struct sigaction sa, old_segv, old_bus, old_fpe;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &old_segv);
    sigaction(SIGBUS, &sa, &old_bus);
    sigaction(SIGFPE, &sa, &old_fpe);

    int rc = 0;
    std::string err;
    // Phase loop: run every unfinished block in order until it ends or reaches SyncAll.
    for (int phase = 0; rc == 0; phase++) {
        bool any_sync = false, any_done_now = false;
        for (int64_t b = 0; b < launch.block_dim && rc == 0; b++) {
            Block &B = blocks[(size_t)b];
            if (B.done) continue;
            if (!B.started && g_ubs.size() <= (size_t)b) {
                uint8_t *ub = static_cast<uint8_t *>(std::aligned_alloc(64, g_ub_cap));
                if (!ub) {
                    std::fputs("error: out of memory allocating UB\n", stderr);
                    _exit(2);
                }
                owned_ubs.push_back(ub);
                g_ubs.push_back(ub);
            }
            run_block(b);
            if (B.failed) { rc = 3; err = B.err; break; }
            if (B.done) {
                any_done_now = true;
                if (B.th.joinable()) B.th.join();
                // a block without SyncAll never needs its UB again: reuse it for the next block
                if (!any_sync && phase == 0 && (size_t)b + 1 == g_ubs.size()) g_ubs.push_back(g_ubs[(size_t)b]);
            } else {
                any_sync = true;
            }
        }
        if (rc) break;
        if (!any_sync) break;
        if (any_done_now) {
            for (int64_t b = 0; b < launch.block_dim; b++)
                if (blocks[(size_t)b].done) {
                    err = "error: SyncAll: block " + std::to_string(b) +
                          " finished without reaching a SyncAll that other blocks wait at (deadlock on the device)\n"
                          "  --> <kernel>:0 (block " + std::to_string(b) + ")\n";
                    break;
                }
            rc = 3;
            break;
        }
    }

    res.trace = "twin-trace 3\n";
    for (int64_t b = 0; b < launch.block_dim; b++) {
        Block &B = blocks[(size_t)b];
        if (!B.started) break;
        res.trace += "block " + std::to_string(b) + " " + std::to_string(launch.block_dim) + "\n";
        res.trace += B.trace;
        res.trace += "end\n";
    }
    res.rc = rc;
    res.err = err;
    if (rc) {
        // Blocks stopped at SyncAll still hold their threads (and the UBs): the caller exits.
        return res;
    }
    for (auto &B : blocks)
        if (B.th.joinable()) B.th.join();
    sigaction(SIGSEGV, &old_segv, nullptr);
    sigaction(SIGBUS, &old_bus, nullptr);
    sigaction(SIGFPE, &old_fpe, nullptr);
    for (uint8_t *ub : owned_ubs) std::free(ub);
    g_ubs.clear();
    g_blocks = nullptr;
    delete owned_blocks;
    g_launch = nullptr;
    return res;
}

} // namespace twin
