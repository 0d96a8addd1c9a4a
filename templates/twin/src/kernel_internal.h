// twin: private declarations shared by the kernel runtime's .cpp files (kernel_runtime.cpp,
// kernel_blocks.cpp, kernel_main.cpp) and the twin package's ICPU_RUN_KF glue.
#pragma once
#include <string>
#include <vector>
#include "../include/kernel/twin/runtime.h"

namespace twin {
struct Fault {
    std::string msg;
    const char *file;
    int line;
};
extern thread_local std::string g_trace; // the trace text of the block running on this thread
std::vector<GmAlloc> &gm_allocs();   // sorted by base
void trace_append(const char *s);
void trace_begin(); // empties g_trace for a new block (and forgets the scalar record it may fold into)
void trace_u64(uint64_t v);

// A GM buffer of `bytes` (512 B aligned, zeroed, registered under a copy of `name`); nullptr when out
// of memory. gm_free releases one; false when `p` is not the start of a live GM buffer.
uint8_t *gm_alloc(uint64_t bytes, const char *name);
bool gm_free(void *p);

// Capacities of the L0A, L0B, L0C, BT and FB buffers for the launches that follow (L1's is the launch's
// l1_bytes); 0 keeps the A2 default (kernel_cube.cpp, include/kernel/twin/mem.h).
void hw_set_caps(uint64_t l0a, uint64_t l0b, uint64_t l0c, uint64_t bt, uint64_t fb);

// One launch: `entry(ctx)` runs the kernel for the block that GetBlockIdx() names.
struct Launch {
    void (*entry)(void *ctx);
    void *ctx;
    int64_t block_dim;
    uint64_t ub_bytes;
    uint64_t tiling_key;
    uint64_t sys_workspace;
    uint64_t l1_bytes = 512u * 1024u; // the SoC's L1 buffer (FACTS: 512 KiB on 910B); kernel_main's `l1_bytes`
};
struct LaunchResult {
    int rc = 0;         // 0 ok, 2 bad launch parameters, 3 fault (err holds the located message)
    std::string trace;  // the launch's trace (`twin-trace 6`), up to a faulting call
    std::string err;
};
// Runs every block of the launch (see kernel_blocks.cpp). After a fault (rc 3) blocks stopped at
// SyncAll still hold their threads: the caller reports and exits.
LaunchResult run_blocks(const Launch &launch);
} // namespace twin
