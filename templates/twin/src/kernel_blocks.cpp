// twin: running a launch's blocks, shared by the run-file program (kernel_main.cpp) and the ICPU_RUN_KF
// glue of the twin package (package/src/icpu_runtime.cpp). Also GM allocation and release.
// Every core (a block; in a mixed kernel the AIC and each AIV of a block) runs on its own thread, but only
// one thread runs at a time (a baton), so the run is deterministic and cores execute in index order.
// SyncAll hands the baton to the next core; after the last one the first continues: each phase between
// two SyncAll runs all cores in order, as they would all have to arrive before any continues on the
// device. A CrossCoreWaitFlag whose counter is 0 hands the baton over too (twin/mix.h).
#include <algorithm>
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <tuple>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <sys/mman.h>
#include <unistd.h>
#include <vector>
#include "kernel_internal.h"

namespace twin {

// ---- GM allocation -----------------------------------------------------------------------------
// GM buffers are 512 B aligned. Accesses are allowed up to the size rounded up to 32 B plus 32 B
// (the padding a device allocation has); past the requested size they draw a warning. Each buffer
// has GM_FRONT zeroed bytes before it, so that a read just before its start (the padding of
// whatever the device placed before it; `gm_check` allows 32 B) reads zeros here.
static constexpr uint64_t GM_FRONT = 512;
uint8_t *gm_alloc(uint64_t bytes, const char *name) {
    uint64_t cap = (bytes + 31) / 32 * 32 + 32;
    uint64_t backed = (cap + 511) / 512 * 512 + GM_FRONT;
    void *raw = std::aligned_alloc(512, backed);
    if (!raw) return nullptr;
    std::memset(raw, 0, backed);
    void *p = static_cast<uint8_t *>(raw) + GM_FRONT;
    const char *src = name ? name : "gm";
    size_t len = std::strlen(src) + 1;
    char *owned = static_cast<char *>(std::malloc(len));
    if (!owned) {
        std::free(raw);
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
            std::free(static_cast<uint8_t *>(p) - GM_FRONT);
            std::free(name);
            return true;
        }
    }
    return false;
}

} // namespace twin

namespace {

// One core of the launch: a block of a kernel that is not mixed, or the AIC or one AIV of a mixed one.
enum class St { Fresh, Ready, Sync, Wait, Done };
struct Block {
    std::thread th;
    bool started = false, done = false, failed = false;
    St st = St::Fresh;
    int64_t logical = 0; // the logical block
    uint8_t kind = 0;    // 0 not mixed, 1 AIC, 2 AIV
    uint8_t sub = 0;     // the AIV's sub-block index
    bool sync_aiv_only = true;
    // CrossCoreWaitFlag in progress: the flag, where it was called
    int wait_flag = 0;
    const char *wait_file = nullptr;
    int wait_line = 0;
    // per flag id, the releases not yet taken by a wait: (scope id, round), the trace's key
    std::deque<std::pair<uint32_t, uint32_t>> tokens[16];
    uint8_t *ub = nullptr;
    std::string trace;
    std::string err;
};

// A cross-core synchronisation scope (a mode, a flag id, and the cores taking part): round r is released
// when every participant has made its r-th set; each target core then holds one more count of the flag.
struct Scope {
    uint32_t id;
    std::vector<int64_t> parts, targets;
    std::vector<uint32_t> made;
    uint32_t released = 0;
};

std::mutex g_m;
std::condition_variable g_cv;
int64_t g_turn = -1; // core allowed to run; -1 = the scheduler (the launching thread)
std::vector<std::unique_ptr<Block>> *g_blocks = nullptr;
const twin::Launch *g_launch = nullptr;
std::vector<uint8_t *> g_ub_pool; // UB arenas of finished cores, for the next ones

// A block's UB arena starts at a 4 GiB boundary, so a UB tensor's GetPhyAddr() (a host pointer on the
// twin) keeps the UB byte address the hardware gives in its low 32 bits: kernels that size a buffer
// from it through a uint32 (`InitBuffer(buf, MAX_UB_SIZE - usedAddr)` with usedAddr a GetPhyAddr(),
// ops-transformer's mla_prolog) get the hardware's length. The arena is mapped at the first free
// boundary from 64 GiB up (only its own length of address space: kernels run under an RLIMIT_AS,
// child.rs); where none is free, a plain allocation (then only such kernels fault, at InitBuffer).
constexpr uint64_t UB_ARENA_ALIGN = 1ull << 32;
constexpr uint64_t UB_FIRST_SLOT = 16, UB_SLOTS = 4096;
std::vector<std::pair<uint8_t *, size_t>> g_ub_mapped; // arenas from mmap, with their lengths
uint64_t g_ub_next_slot = UB_FIRST_SLOT; // the boundary after the last arena mapped in this launch

uint8_t *ub_arena_alloc(uint64_t cap) {
    size_t len = (size_t)((cap + 4095) / 4096 * 4096);
    for (; g_ub_next_slot < UB_FIRST_SLOT + UB_SLOTS; g_ub_next_slot++) {
        void *want = (void *)(uintptr_t)(g_ub_next_slot * UB_ARENA_ALIGN);
        void *p = mmap(want, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p == MAP_FAILED) break;
        if (p == want) {
            g_ub_next_slot++;
            g_ub_mapped.emplace_back((uint8_t *)p, len);
            return (uint8_t *)p;
        }
        munmap(p, len); // the hint was taken: the next boundary
    }
    return static_cast<uint8_t *>(std::aligned_alloc(64, cap));
}

void ub_arena_free(uint8_t *ub) {
    for (size_t i = 0; i < g_ub_mapped.size(); i++)
        if (g_ub_mapped[i].first == ub) {
            munmap(ub, g_ub_mapped[i].second);
            g_ub_mapped.erase(g_ub_mapped.begin() + (long)i);
            return;
        }
    std::free(ub);
}
uint64_t g_ub_cap = 0;
uint32_t g_ub_gap = 0; // ASCEND_TWIN_UB_GAP (runtime.h, ub_fill_gap)
volatile sig_atomic_t g_cur_block = 0;
int g_static_mix = 0;   // `__mix__(1, v)` in the program: v
bool g_static_cube = false; // a `__cube__` kernel in the program: blocks of a launch that is not mixed are AICs
int g_mix = 0;          // AIVs per AIC of this launch (0: not mixed)
bool g_mix_decided = false;
bool g_type_declared = false; // KERNEL_TASK_TYPE_DEFAULT ran in this launch (whatever type it named)
std::map<std::tuple<int, int64_t, int, int>, Scope> g_scopes;

Block &core(int64_t c) { return *(*g_blocks)[(size_t)c]; }
const char *kind_name(const Block &B) { return B.kind == 1 ? "AIC" : B.kind == 2 ? "AIV" : "core"; }
std::string where(const Block &B) {
    std::string s = "block " + std::to_string(B.logical);
    if (B.kind == 1) s += ", AIC";
    else if (B.kind == 2) s += ", AIV " + std::to_string(B.sub);
    return s;
}

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

// Thrown on the AIC of a mixed kernel by REGIST_MATMUL_OBJ (lib/matmul_intf.h): that core serves the
// AIVs' matmul requests until the end, which the twin computes on the AIVs; the core ends there.
struct CoreEnd {};

void block_thread(int64_t c) {
    {
        std::unique_lock<std::mutex> lk(g_m);
        g_cv.wait(lk, [c] { return g_turn == c; });
    }
    Block &B = core(c);
    const twin::Launch &L = *g_launch;
    twin::BlockState &g = twin::g;
    std::memset(&g, 0, sizeof g);
    g.ub = B.ub;
    g.ub_bytes = (uint32_t)L.ub_bytes;
    g.ub_phys = (uint32_t)L.ub_bytes + twin::UB_RESERVED + twin::UB_BUFS * g_ub_gap;
    g.ub_gap = g_ub_gap;
    g.l1_bytes = (uint32_t)L.l1_bytes;
    g.core_idx = c;
    g.logical_block = B.logical;
    g.core_kind = B.kind == 0 && g_static_cube ? 1 : B.kind;
    g.sub_idx = B.sub;
    g.mix_aiv = (uint8_t)g_mix;
    // GetBlockIdx: [0, ratio * numBlocks) on an AIV of a mixed launch (GetBlockIdx.md)
    g.block_idx = B.kind == 2 ? B.logical * g_mix + B.sub : B.logical;
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
        if (g.key_asked && !g.key_matched)
            twin::warn_once(g.key_file, g.key_line,
                            "tiling key %llu matches none of the TILING_KEY_IS branches the kernel tested: it ran none "
                            "of them (does the manifest give inputs or attrs the op's tiling keys do not cover?)",
                            (unsigned long long)g.tiling_key);
    } catch (const CoreEnd &) {
    } catch (const twin::Fault &f) {
        B.err = "error: " + f.msg + "\n  --> " + f.file + ":" + std::to_string(f.line) + " (" + where(B) + ")\n";
        B.failed = true;
    } catch (const std::exception &e) {
        B.err = std::string("error: C++ exception in kernel: ") + e.what() + "\n  --> <unknown>:0 (" + where(B) + ")\n";
        B.failed = true;
    }
    B.trace.swap(twin::g_trace);
    std::free(g.l1);
    g.l1 = nullptr;
    B.done = true;
    B.st = St::Done;
    std::unique_lock<std::mutex> lk(g_m);
    g_turn = -1;
    g_cv.notify_all();
}

// Runs core c until it finishes, reaches SyncAll or waits for a cross-core flag.
void run_block(int64_t c) {
    Block &B = core(c);
    g_cur_block = (sig_atomic_t)B.logical;
    std::unique_lock<std::mutex> lk(g_m);
    B.st = St::Ready;
    if (!B.started) {
        B.started = true;
        if (!g_ub_pool.empty()) {
            B.ub = g_ub_pool.back();
            g_ub_pool.pop_back();
        } else {
            B.ub = ub_arena_alloc(g_ub_cap);
            if (!B.ub) {
                std::fputs("error: out of memory allocating UB\n", stderr);
                _exit(2);
            }
        }
        lk.unlock();
        B.th = std::thread(block_thread, c);
        lk.lock();
    }
    g_turn = c;
    g_cv.notify_all();
    g_cv.wait(lk, [] { return g_turn == -1; });
}

void add_cores(std::vector<std::unique_ptr<Block>> &v, int64_t logical, uint8_t kind, uint8_t sub) {
    v.push_back(std::make_unique<Block>());
    v.back()->logical = logical;
    v.back()->kind = kind;
    v.back()->sub = sub;
}

// The launch's cores: per logical block the AIC, then its AIVs (mixed), or one core. Core 0 may exist
// already (it ran first to declare the kernel type): it is kept, as the AIC of block 0 when mixed.
void lay_out_cores() {
    auto &blocks = *g_blocks;
    blocks.resize(std::min<size_t>(blocks.size(), 1));
    for (int64_t b = 0; b < g_launch->block_dim; b++) {
        if (b > 0 || blocks.empty()) add_cores(blocks, b, g_mix ? 1 : 0, 0);
        for (int s = 0; s < g_mix; s++) add_cores(blocks, b, 2, (uint8_t)s);
    }
    if (g_mix) blocks[0]->kind = 1;
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

void sync_all(const char *api, const char *file, int line, bool aiv_only) {
    (void)api; (void)file; (void)line;
    g.sync_count++;
    Block &B = core(g.core_idx);
    B.sync_aiv_only = aiv_only;
    B.st = St::Sync;
    yield_to_scheduler(g.core_idx);
}

bool note_static_cube(bool cube) {
    if (cube) g_static_cube = true;
    return cube;
}

int note_static_mix(int aiv_per_aic) {
    if (aiv_per_aic > g_static_mix) g_static_mix = aiv_per_aic;
    return aiv_per_aic;
}

// Core 0, the first to run, fixes the launch as mixed with `aiv_per_aic` AIVs to an AIC, and is block 0's AIC.
static void become_mixed(int aiv_per_aic) {
    g_mix = aiv_per_aic;
    g_mix_decided = true;
    lay_out_cores();
    g.mix_aiv = (uint8_t)aiv_per_aic;
    g.core_kind = 1;
}

// KernelMetaType (kernel_operator.h): KERNEL_TYPE_MIX_AIC_1_1 = 4, KERNEL_TYPE_MIX_AIC_1_2 = 5.
void declare_kernel_type(int type, const char *file, int line) {
    g_type_declared = true;
    int mix = type == 4 ? 1 : type == 5 ? 2 : 0;
    // KERNEL_TYPE_AIC_ONLY (1) or KERNEL_TYPE_MIX_AIC_1_0 (3): every block is a cube core (ASCEND_IS_AIC).
    if (!mix && (type == 1 || type == 3) && g.core_kind == 0) g.core_kind = 1;
    if (!g_mix_decided && g.core_idx == 0) {
        if (mix && g.kind_queried)
            fault(file, line,
                  "KERNEL_TASK_TYPE_DEFAULT: the mixed kernel type comes after ASCEND_IS_AIC / ASCEND_IS_AIV or a "
                  "sub-block query; declare it first in the kernel function");
        if (mix) become_mixed(mix);
        return;
    }
    if (mix != g_mix && (mix || g_mix))
        fault(file, line,
              "KERNEL_TASK_TYPE_DEFAULT: kernel type %d here, but the launch started as %s; one launch has one "
              "kernel type", type, g_mix == 2 ? "KERNEL_TYPE_MIX_AIC_1_2" : g_mix == 1 ? "KERNEL_TYPE_MIX_AIC_1_1" : "not mixed");
}

// REGIST_MATMUL_OBJ in a kernel that declared no kernel type, is not `__cube__` and did not define
// ASCENDC_CUBE_ONLY: CANN runs it in MIX mode, one AIC to two AIVs (asc-devkit docs/zh/api/SIMD-API/高阶API/
// 矩阵计算/Matmul-Kernel侧接口/Matmul使用说明.md: "默认为MIX模式（包含矩阵计算和矢量计算）, 该场景下通常不定义
// ASCENDC_CUBE_ONLY"; the kernel-launch examples launch usedCoreNum / 2 blocks, "AIC:AIV = 1:2"). Decided by
// core 0 when it gets here first, as KERNEL_TASK_TYPE_DEFAULT would be: core 0 becomes the AIC of block 0.
// A core that already asked whether it is an AIC or AIV ran as one kind; then the launch stays as it is.
void matmul_default_mix() {
    if (g_mix_decided || g_type_declared || g_static_cube || g.core_idx != 0 || g.core_kind != 0 || g.kind_queried)
        return;
    become_mixed(2);
}

void xcore_set(int mode, Pipe pipe, int flag, const char *file, int line) {
    note_call("CrossCoreSetFlag", file, line);
    if (flag > 15) {
        warn_once(file, line, "CrossCoreSetFlag: flag id %d is past 15; the hardware keeps its low 4 bits (%d)", flag, flag & 15);
        flag &= 15;
    }
    Block &me = core(g.core_idx);
    const int64_t n = g_launch->block_dim;
    const int64_t cpb = g_mix ? 1 + g_mix : 1; // cores per logical block
    std::vector<int64_t> parts, targets;
    int dir = 0;
    int64_t group = -1;
    if (mode == 0) {
        // every AIC, or every AIV, of the launch (every block when not mixed)
        dir = me.kind;
        for (int64_t b = 0; b < n; b++) {
            if (!g_mix) parts.push_back(b);
            else if (me.kind == 1) parts.push_back(b * cpb);
            else for (int s = 0; s < g_mix; s++) parts.push_back(b * cpb + 1 + s);
        }
        targets = parts;
    } else if (mode == 1 || mode == 2) {
        if (!g_mix)
            fault(file, line,
                  "CrossCoreSetFlag: mode %d synchronises the cores of one mixed logical block, but this kernel is not "
                  "mixed; declare KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2) (or _1_1) or use __mix__(1, 2)", mode);
        group = me.logical;
        int64_t aic = group * cpb;
        std::vector<int64_t> aivs;
        for (int s = 0; s < g_mix; s++) aivs.push_back(aic + 1 + s);
        if (mode == 1) {
            if (me.kind != 2) fault(file, line, "CrossCoreSetFlag: mode 1 synchronises the AIVs of a logical block; called on the AIC");
            parts = aivs;
            targets = aivs;
        } else if (me.kind == 1) {
            dir = 1;
            parts = {aic};
            targets = aivs;
        } else {
            dir = 2;
            parts = aivs;
            targets = {aic};
        }
    } else {
        fault(file, line, "CrossCoreSetFlag: mode %d is not supported on this SoC (modes 0, 1 and 2 on Atlas A2/A3)", mode);
    }
    auto key = std::make_tuple(mode, group, flag, dir);
    auto it = g_scopes.find(key);
    if (it == g_scopes.end()) {
        Scope sc;
        sc.id = (uint32_t)g_scopes.size();
        sc.parts = parts;
        sc.targets = targets;
        sc.made.assign(parts.size(), 0);
        it = g_scopes.emplace(key, std::move(sc)).first;
    }
    Scope &sc = it->second;
    size_t slot = 0;
    while (slot < sc.parts.size() && sc.parts[slot] != g.core_idx) slot++;
    if (slot == sc.parts.size()) fault(file, line, "CrossCoreSetFlag: this core takes no part in mode %d", mode);
    uint32_t round = sc.made[slot]++;
    // trace: `xset <pipe> x<scope>.<round>`
    trace_append("xset ");
    trace_append(pipe_name(pipe));
    trace_append(" x");
    trace_u64(sc.id);
    trace_append(".");
    trace_u64(round);
    trace_append("\n");
    uint32_t low = *std::min_element(sc.made.begin(), sc.made.end());
    while (sc.released < low) {
        for (int64_t t : sc.targets) core(t).tokens[flag].emplace_back(sc.id, sc.released);
        sc.released++;
    }
}

void xcore_wait(int mode, Pipe pipe, int flag, const char *file, int line) {
    (void)mode;
    note_call("CrossCoreWaitFlag", file, line);
    if (flag > 15) flag &= 15;
    Block &me = core(g.core_idx);
    while (me.tokens[flag].empty()) {
        me.st = St::Wait;
        me.wait_flag = flag;
        me.wait_file = file;
        me.wait_line = line;
        yield_to_scheduler(g.core_idx);
    }
    auto tok = me.tokens[flag].front();
    me.tokens[flag].pop_front();
    uint64_t parts = 0;
    for (auto &kv : g_scopes)
        if (kv.second.id == tok.first) parts = kv.second.parts.size();
    // trace: `xwait <pipe> x<scope>.<round> n<participants>`: released when that many sets of the key ran
    trace_append("xwait ");
    trace_append(pipe_name(pipe));
    trace_append(" x");
    trace_u64(tok.first);
    trace_append(".");
    trace_u64(tok.second);
    trace_append(" n");
    trace_u64(parts);
    trace_append("\n");
}

void throw_core_end() { throw CoreEnd{}; }

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
    // Owned by this call, but left alive after a fault: cores stopped at SyncAll or a flag wait still
    // hold their threads, which must not be destroyed before the caller exits.
    auto *owned_blocks = new std::vector<std::unique_ptr<Block>>();
    std::vector<std::unique_ptr<Block>> &blocks = *owned_blocks;
    g_blocks = owned_blocks;
    g_launch = &launch;
    if (const char *gap = std::getenv("ASCEND_TWIN_UB_GAP")) g_ub_gap = (uint32_t)std::strtoul(gap, nullptr, 10) / 32 * 32;
    g_ub_cap = (launch.ub_bytes + twin::UB_RESERVED + twin::UB_BUFS * g_ub_gap + 63) / 64 * 64;
    g_ub_pool.clear();
    g_scopes.clear();
    twin::ibshare_reset();
    // The core layout: a `__mix__` qualifier fixes it now; otherwise core 0 runs first and a
    // KERNEL_TASK_TYPE_DEFAULT it executes decides it (declare_kernel_type).
    g_mix = g_static_mix;
    g_mix_decided = g_static_mix != 0;
    g_type_declared = false;
    if (g_mix_decided) lay_out_cores();
    else add_cores(blocks, 0, 0, 0);

    struct sigaction sa, old_segv, old_bus, old_fpe;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &old_segv);
    sigaction(SIGBUS, &sa, &old_bus);
    sigaction(SIGFPE, &sa, &old_fpe);

    int rc = 0;
    std::string err;
    // Scheduler: run the lowest-numbered core that can go on (fresh, released from SyncAll, or waiting
    // for a flag that now has a count) until it ends, reaches SyncAll or waits. With none left: release
    // a SyncAll every participant reached, or report the deadlock. Without flags this runs blocks in
    // index order, each phase between two SyncAll in turn, as before.
    while (rc == 0) {
        int64_t pick = -1;
        for (size_t c = 0; c < blocks.size(); c++) {
            Block &B = *blocks[c];
            if (B.st == St::Fresh || B.st == St::Ready ||
                (B.st == St::Wait && !B.tokens[B.wait_flag].empty())) {
                pick = (int64_t)c;
                break;
            }
        }
        if (pick >= 0) {
            run_block(pick);
            Block &B = *blocks[(size_t)pick];
            if (B.failed) { rc = 3; err = B.err; break; }
            if (B.done) {
                if (B.th.joinable()) B.th.join();
                g_ub_pool.push_back(B.ub);
                B.ub = nullptr;
            }
            if (!g_mix_decided) {
                g_mix_decided = true;
                lay_out_cores();
            }
            continue;
        }
        bool all_done = true;
        bool any_sync = false, all_scope = false;
        for (auto &B : blocks) {
            if (!B->done) all_done = false;
            if (B->st == St::Sync) {
                any_sync = true;
                if (!B->sync_aiv_only || B->kind == 1) all_scope = true;
            }
        }
        if (all_done) break;
        // SyncAll<true> of a mixed kernel meets every AIV; SyncAll<false> (or on an AIC) every core.
        auto takes_part = [&](const Block &B) { return !g_mix || all_scope || B.kind == 2; };
        if (any_sync) {
            const Block *gone = nullptr, *waiting = nullptr;
            for (auto &B : blocks) {
                if (!takes_part(*B) || B->st == St::Sync) continue;
                if (B->done && !gone) gone = B.get();
                if (B->st == St::Wait && !waiting) waiting = B.get();
            }
            if (!gone && !waiting) {
                for (auto &B : blocks)
                    if (B->st == St::Sync && takes_part(*B)) B->st = St::Ready;
                continue;
            }
            if (gone) {
                err = "error: SyncAll: " + where(*gone) +
                      " finished without reaching a SyncAll that other cores wait at (deadlock on the device)\n"
                      "  --> <kernel>:0 (" + where(*gone) + ")\n";
                rc = 3;
                break;
            }
        }
        // Deadlock: a flag wait no core can satisfy any more.
        for (auto &B : blocks) {
            if (B->st != St::Wait) continue;
            std::string others;
            for (auto &O : blocks)
                if (O.get() != B.get() && !O->done)
                    others += std::string(others.empty() ? "" : ", ") + where(*O) +
                              (O->st == St::Sync ? " at SyncAll" : O->st == St::Wait ? " waiting for flag " + std::to_string(O->wait_flag) : "");
            err = "error: CrossCoreWaitFlag: the " + std::string(kind_name(*B)) + " waits for flag " + std::to_string(B->wait_flag) +
                  " but no core can set it any more (the device would hang)\n  --> " + (B->wait_file ? B->wait_file : "?") + ":" +
                  std::to_string(B->wait_line) + " (" + where(*B) + ")\n  = note: " +
                  (others.empty() ? std::string("every other core has finished") : "still running: " + others) +
                  "; a CrossCoreSetFlag of the same flag id and a matching mode (2: AIC <-> its AIVs, 1: the AIVs of a block, "
                  "0: all AICs or all AIVs) must come before\n";
            rc = 3;
            break;
        }
        if (rc == 0) {
            err = "error: the launch's cores stopped with none able to continue (twin scheduler)\n  --> <kernel>:0\n";
            rc = 3;
        }
    }

    res.trace = "twin-trace 6\n";
    for (auto &Bp : blocks) {
        Block &B = *Bp;
        if (!B.started) continue;
        res.trace += "block " + std::to_string(B.logical) + " " + std::to_string(launch.block_dim);
        if (B.kind == 1) res.trace += " aic";
        else if (B.kind == 2) res.trace += " aiv" + std::to_string(B.sub);
        res.trace += "\n";
        res.trace += B.trace;
        res.trace += "end\n";
    }
    res.rc = rc;
    res.err = err;
    if (rc) {
        // Cores stopped at SyncAll or a wait still hold their threads (and the UBs): the caller exits.
        return res;
    }
    for (auto &B : blocks)
        if (B->th.joinable()) B->th.join();
    sigaction(SIGSEGV, &old_segv, nullptr);
    sigaction(SIGBUS, &old_bus, nullptr);
    sigaction(SIGFPE, &old_fpe, nullptr);
    for (uint8_t *ub : g_ub_pool) ub_arena_free(ub);
    g_ub_pool.clear();
    g_ub_next_slot = UB_FIRST_SLOT;
    g_blocks = nullptr;
    delete owned_blocks;
    g_launch = nullptr;
    return res;
}

} // namespace twin
