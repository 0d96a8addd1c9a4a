// twin: the runtime side of the cube: per-block arenas of the non-UB buffers (mem.h), their
// capacities, and the trace records of the cube instructions (cube.h).
// Owns: arena storage and its lifetime (one set per block thread), cube trace text. Must not know: the
// cube's arithmetic (cube.h) or what anything costs (the Rust model).
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>
#include "kernel_internal.h"
#include "../include/kernel/twin/tensor.h"

namespace twin {

namespace {
// Defaults: Atlas A2/A3 (FACTS §1). Index by Hw; the UB and L1 entries are unused (g.ub_bytes, g.l1_bytes:
// the L1 buffer is the block's g.l1, runtime.h).
uint64_t g_caps[HW_COUNT] = {0, 512 * 1024, 64 * 1024, 64 * 1024, 128 * 1024, 1024, 7 * 1024};

// Every block runs on a thread of its own (kernel_blocks.cpp), so thread-local arenas are per block
// and start empty; they are released when the block's thread ends.
struct Arenas {
    uint8_t *mem[HW_COUNT] = {nullptr};
    uint32_t used[HW_COUNT] = {0};
    ~Arenas() {
        for (auto *p : mem) std::free(p);
    }
};
thread_local Arenas tl_arenas;
} // namespace

const char *hw_name(Hw h) {
    static const char *const names[HW_COUNT] = {"UB", "L1", "L0A", "L0B", "L0C", "BT (bias table)", "FB (fixpipe buffer)"};
    return h < HW_COUNT ? names[h] : "?";
}

uint32_t hw_cap(Hw h) { return h == HW_UB ? g.ub_bytes : h == HW_L1 ? g.l1_bytes : (uint32_t)g_caps[h]; }

void hw_set_caps(uint64_t l0a, uint64_t l0b, uint64_t l0c, uint64_t bt, uint64_t fb) {
    const uint64_t v[HW_COUNT] = {0, 0, l0a, l0b, l0c, bt, fb};
    for (int h = HW_L0A; h < HW_COUNT; h++)
        if (v[h]) g_caps[h] = v[h];
}

uint8_t *hw_span(Hw h, uint64_t addr, uint64_t bytes, const char *api, TWIN_LOC_DECL) {
    if (h == HW_UB) return ub_span(addr, bytes, api, TWIN_LOC_ARGS);
    if (h == HW_L1) return l1_span(addr, bytes, api, TWIN_LOC_ARGS);
    uint64_t cap = g_caps[h];
    if (addr + bytes > cap)
        fault(twin_file, twin_line, "%s: %s access out of bounds: bytes [%llu, %llu) but %s holds %llu bytes", api,
              hw_name(h), (unsigned long long)addr, (unsigned long long)(addr + bytes), hw_name(h),
              (unsigned long long)cap);
    uint8_t *&m = tl_arenas.mem[h];
    if (!m) {
        m = static_cast<uint8_t *>(std::calloc(1, (size_t)cap));
        if (!m) fault(twin_file, twin_line, "%s: out of memory making the %s arena", api, hw_name(h));
    }
    return m + addr;
}

uint32_t hw_used(Hw h) { return h == HW_UB ? g.ub_used : tl_arenas.used[h]; }

void hw_set_used(Hw h, uint32_t used) {
    if (h == HW_UB) g.ub_used = used;
    else tl_arenas.used[h] = used;
}

// TPipe carves the whole UB, the runtime's reserve included: the library's own pool for the UB is its
// full size (asc-devkit impl/basic_api/utils/kernel_utils_mode_cpu.h, `bufferInitLen`: 192 KiB for
// dav-c220, where the runtime reports 196352 B), and public kernels carve all of it (ops-math
// circular_pad: one InitBuffer of 192 * 1024 bytes; ops-nn sync_batch_norm_backward_elemt: tiles that
// sum to 196608 bytes). GetUBSizeInBytes still says ub_bytes.
uint32_t hw_pool(Hw h) { return h == HW_UB ? g.ub_phys : hw_cap(h); }

uint32_t hw_carve(Hw h, uint64_t bytes, TWIN_LOC_DECL) {
    uint32_t used = hw_used(h), cap = hw_pool(h);
    if ((uint64_t)used + bytes > cap) {
        if (h == HW_UB)
            fault(twin_file, twin_line,
                  "InitBuffer: UB overflow: need %llu bytes, %u of %u bytes in use (ub_bytes %u plus the runtime's reserve "
                  "of %u)",
                  (unsigned long long)bytes, used, cap, g.ub_bytes, UB_RESERVED);
        fault(twin_file, twin_line, "InitBuffer: %s overflow: need %llu bytes, %u of its %u bytes in use", hw_name(h),
              (unsigned long long)bytes, used, cap);
    }
    hw_set_used(h, used + (uint32_t)bytes);
    return used;
}

// ---- cube trace records --------------------------------------------------------------------------
static void kv(const char *k, uint64_t v) {
    g_trace.push_back(' ');
    g_trace.append(k);
    g_trace.push_back('=');
    trace_u64(v);
}

void tr_cube(Pipe pipe, const char *api, const CubeKeys &c, int line) {
    g_trace.append("I ");
    g_trace.append(pipe_name(pipe));
    g_trace.push_back(' ');
    g_trace.append(api);
    if (c.bytes) kv("bytes", c.bytes);
    if (c.m) kv("m", c.m);
    if (c.k) kv("k", c.k);
    if (c.n) kv("n", c.n);
    if (c.dt) kv("dt", c.dt);
    if (c.dst) kv("dst", c.dst);
    if (c.uf) kv("uf", c.uf);
    kv("line", line < 0 ? 0 : (uint64_t)line);
    g_trace.push_back('\n');
}

// IBShare: the first AIV of a group to set a shared matrix claims it; the others follow when they set the
// same GM address (asc-devkit guide, Matmul高阶API使能IBShare模板共享B矩阵数据.md: "多个AIV的A矩阵或B矩阵GM地址
// 相同"). Blocks hand a baton between threads, but the table is shared by all of them: a lock keeps it whole.
namespace {
struct IbShareClaim {
    int64_t block;
    char which;
    uint32_t nth;
    const void *gm;
    uint8_t sub;
};
std::mutex g_ibshare_lock;
std::vector<IbShareClaim> g_ibshare;
} // namespace

void ibshare_reset() {
    std::lock_guard<std::mutex> hold(g_ibshare_lock);
    g_ibshare.clear();
}

bool ibshare_follows(char which, uint32_t nth, const void *gm, TWIN_LOC_DECL) {
    if (g.core_kind != 2 || g.mix_aiv < 2) return false;
    std::lock_guard<std::mutex> hold(g_ibshare_lock);
    for (const IbShareClaim &c : g_ibshare) {
        if (c.block != g.logical_block || c.which != which || c.nth != nth) continue;
        if (c.sub == g.sub_idx) return false;
        if (c.gm != gm)
            fault(twin_file, twin_line,
                  "Matmul: %c is an IBShare matrix (MatmulType's IBSHARE), but AIV %u of logical block %lld set it at another "
                  "GM address than AIV %u (offsets differ by %lld bytes); IBShare shares one matrix in L1 between the AIVs "
                  "of a group, so each must set the same one (asc-devkit guide, Matmul高阶API使能IBShare模板共享B矩阵数据.md), "
                  "or leave IBSHARE false",
                  which, (unsigned)g.sub_idx, (long long)g.logical_block, (unsigned)c.sub,
                  (long long)((const char *)gm - (const char *)c.gm));
        return true;
    }
    g_ibshare.push_back({g.logical_block, which, nth, gm, g.sub_idx});
    return false;
}

} // namespace twin
