// twin: runtime interface shared by the kernel-side headers and src/kernel_runtime.cpp.
// Non-template code lives in src/kernel_runtime.cpp so it can be compiled once.
#pragma once
#include <cstdint>
#include <cstddef>

// Call-site capture: every API entry point takes these two trailing defaulted parameters so a
// fault and a trace record name the user's file and line.
// The file parameter has a class type so that a literal 0 passed by the user never selects it
// (e.g. TBuf::Get<T>(0) must mean a length, not a file name).
namespace twin {
struct SrcFile {
    const char *p;
    SrcFile(const char *s) : p(s) {}
    operator const char *() const { return p; }
};
} // namespace twin
#define TWIN_LOC ::twin::SrcFile twin_file = __builtin_FILE(), int twin_line = __builtin_LINE()
#define TWIN_LOC_DECL const char *twin_file, int twin_line
#define TWIN_LOC_ARGS twin_file, twin_line

namespace twin {

enum Pipe : uint8_t { P_MTE2 = 0, P_MTE3, P_V, P_S, P_MTE1, P_M, P_FIX, P_ALL, P_NONE };
const char *pipe_name(Pipe p);

// ---- faults ---------------------------------------------------------------------------------
[[noreturn]] void fault(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
// A `kernel<<<blocks, l2ctrl, stream>>>(args)` launch in an op's kernel sources (the device compiler's
// host-side launcher, such as ops-nn add_layer_norm_grad's `add_layer_norm_grad_do`): the twin's build
// reads it as `(twin::device_launch(file, line), kernel(args))` (src/twin/mod.rs, device_launches). The
// twin launches the op's entry itself, so a run that reaches such a launcher faults.
inline int device_launch(const char *file, int line) {
    fault(file, line, "a <<<...>>> kernel launch in the kernel sources was reached: the twin launches the op's "
                      "entry itself and runs no device-side launcher");
}
// A warning printed once per call site.
void warn_once(const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

// ---- per-block state -------------------------------------------------------------------------
// A UB buffer TPipe::InitBuffer carved in this block: `num` buffers of `len` bytes from `addr` (a queue's
// buffers one by one; a TBuf is one buffer), and where. vspan checks that a vector instruction's operand
// stays inside the buffer it starts in (ub_check_in_buffer).
struct UbBuf {
    uint32_t addr, len, num;
    const char *file;
    int line;
};
constexpr int UB_BUFS = 64; // buffers past this many in a block are not checked
// Trivial on purpose (zero-initialised thread_local, no TLS wrapper calls); kernel_main sets it up.
struct BlockState {
    uint8_t *ub;          // the UB arena of this block
    uint32_t ub_bytes;    // its size as the runtime reports it (TPipe carves, GetUBSizeInBytes)
    uint32_t ub_phys;     // the bytes an access may reach: ub_bytes plus the runtime's reserve (UB_RESERVED)
    uint32_t ub_used;     // bytes carved by InitBuffer so far
    int64_t block_idx;
    int64_t block_dim;
    int next_qid;         // queue ids, numbered per block in InitBuffer order
    uint64_t tiling_key;
    int atomic_op;        // 0 none, 1 add, 2 max, 3 min
    int atomic_type;      // element type code of the atomic operation (see DCode)
    uint64_t sys_workspace;
    void *pipe;           // current TPipe (GetTPipePtr)
    uint8_t *sys_ws;      // SetSysWorkspace / GetSysWorkSpacePtr
    bool mask_counter;    // vector mask state (SetMaskCount/SetMaskNorm/SetVectorMask)
    uint64_t mask0, mask1;
    uint64_t acc_val;     // the accumulator register ReduceSum's count form leaves its sum in (GetAccVal)
    uint64_t rsvd_cnt;    // the register GatherMask leaves its kept count in (AscendCUtils::GetRsvdCnt)
    uint64_t cmp_mask[2]; // the 128-bit CmpMask register (Compare's register form, SetCmpMask / GetCmpMask)
    bool key_asked;       // a TILING_KEY_IS ran in this block
    bool key_matched;     // and one of them matched the launch's tiling key
    const char *key_file; // where the last TILING_KEY_IS was
    int key_line;
    uint32_t sync_count;  // SyncAll calls so far
    float deq_scale;      // SetDeqScale(half): scale of Cast int32 -> half
    bool deq_set;         // false: no SetDeqScale yet (the twin then scales by 1)
    uint8_t event_alloc[64]; // per HardEvent: bit k set while event id k is held by AllocEventID
    int64_t sys_cnt;      // GetSystemCycle: the block's system counter, one tick per call
    // The last checked API call of the block (every UB or GM access goes through ub_span / gm_check):
    // a signal in the kernel's own code (a division by zero, a raw pointer access) is reported there.
    const char *last_api;
    const char *last_file;
    int last_line;
    uint8_t *l1;          // the L1 buffer of this block (TPosition A1 / B1 / C1), allocated on first use
    uint32_t l1_bytes;    // its size (the SoC's l1_bytes; 512 KiB on 910B)
    // Mixed kernels (twin/mix.h, kernel_blocks.cpp): every logical block is one AIC and mix_aiv AIVs, each
    // a core of its own with its own state. Not mixed: one core per block, core_kind 0.
    int64_t core_idx;     // this core's index in the launch (the scheduler's baton)
    int64_t logical_block;// the logical block (GetBlockIdx on the AIC; GetBlockIdx / ratio on an AIV)
    uint8_t core_kind;    // 0 not mixed, 1 AIC, 2 AIV
    uint8_t mix_aiv;      // AIVs per AIC of a mixed launch (1 or 2), 0 when not mixed
    uint8_t sub_idx;      // GetSubBlockIdx: the AIV's index in its logical block (0 on the AIC)
    bool kind_queried;    // ASCEND_IS_AIC/AIV or a sub-block query ran (a later mixed declaration is a fault)
    bool pad_set;         // SetPadValue was called: DataCopyPad GM->UB with isPad false pads with pad_raw
    uint64_t pad_raw;     // SetPadValue's value, its bytes as written (the low sizeof(T) bytes)
    UbBuf ub_bufs[UB_BUFS]; // the UB buffers carved so far, in carving order (ub_note_buffer)
    uint32_t ub_nbufs;
    uint32_t ub_gap;      // ASCEND_TWIN_UB_GAP: bytes InitBuffer leaves after each UB buffer it carves (ub_fill_gap)
};
// One per block: every block runs on its own thread, one thread at a time (see kernel_main.cpp).
extern thread_local BlockState g;
// The launch's parameter area (get_para_base): one 8-byte slot per kernel argument in the kernel's
// order (inputs, outputs, workspace, tiling), then the tiling data itself, inline. Null when the
// launcher made none (the twin's kernel program makes one; get_para_base then faults, naming it).
extern uint8_t *para_base;
// SyncAll: hands control to the next block; returns when every block has reached this barrier.
// aiv_only: SyncAll<true> of a mixed kernel meets the AIV cores only, SyncAll<false> every core.
void sync_all(const char *api, TWIN_LOC_DECL, bool aiv_only = true);

// element type codes (used for atomics)
enum DCode { DC_NONE = 0, DC_F16, DC_BF16, DC_F32, DC_I8, DC_I16, DC_I32, DC_I64, DC_U8, DC_U16, DC_U32, DC_U64 };

// ---- UB access --------------------------------------------------------------------------------
inline void note_call(const char *api, TWIN_LOC_DECL) {
    g.last_api = api;
    g.last_file = twin_file;
    g.last_line = twin_line;
}
// The UB is larger than what the runtime reports as usable: 192 KiB on 910B, reported as 196352 B, 256 B
// kept back (FACTS §1). Queues and buffers are carved from the reported size, but a kernel that places
// tensors by address (static tensor programming) may use the whole UB, as asc-devkit's
// add_high_performance example does with six 32 KiB buffers, measured on 910B. Accesses are checked
// against the whole UB.
constexpr uint32_t UB_RESERVED = 256;
inline uint8_t *ub_span(uint64_t addr, uint64_t bytes, const char *api, TWIN_LOC_DECL) {
    note_call(api, TWIN_LOC_ARGS);
    if (addr + bytes > g.ub_phys) {
        fault(twin_file, twin_line,
              "%s: UB access out of bounds: bytes [%llu, %llu) but the UB holds %u bytes (ub_bytes %u plus the "
              "runtime's reserve of %u)", api,
              (unsigned long long)addr, (unsigned long long)(addr + bytes), g.ub_phys, g.ub_bytes, UB_RESERVED);
    }
    return g.ub + addr;
}
// Records a UB buffer TPipe::InitBuffer carved. A carve at `addr` means everything carved at or after it
// was released (TPipe::Reset, a pipe's end), so those records go.
void ub_note_buffer(uint32_t addr, uint32_t len, uint32_t num, TWIN_LOC_DECL);
// A vector instruction's operand: `bytes` from UB byte `addr`. Where addr lies in a buffer InitBuffer
// carved and the operand runs past that buffer's end, a warning: nothing on the device stops it, the
// bytes after the buffer belong to whatever is carved there, so what the instruction reads or leaves
// there depends on the UB layout (ops-math's asinh computes its last tile rounded up to 64 elements in
// buffers of the tile's exact length: at one element it reads and writes 224 bytes of its neighbours).
// `tune` treats it as it treats a copy past its tensor (src/backend/twin.rs, `spill`): a candidate
// whose run warns so where the unmodified op's does not fails, and a shape probe where the unmodified
// op warns so is left out, its outputs there depending on the layout.
void ub_check_in_buffer(uint64_t addr, uint64_t bytes, const char *api, TWIN_LOC_DECL);
// ASCEND_TWIN_UB_GAP=N (a layout a shape probe runs in, never a timed run): InitBuffer leaves N bytes
// after each UB buffer it carves (each of a queue's buffers), filled with 0xA5 here, and the UB grows by
// UB_BUFS * N bytes so that a kernel that carves the whole UB still fits. An op whose instructions run
// past their buffers gives the same outputs in both layouts only when what they reach past the end never
// reaches the outputs (src/tune/probes.rs keeps such a probe; it drops one whose outputs change).
void ub_fill_gap(uint32_t addr);
// A `__ubuf__` pointer as a kernel holds it, as a UB byte address. LocalTensor::GetPhyAddr() of a UB
// tensor gives a host pointer into this block's UB arena, so that kernel code may read and write through
// `(__ubuf__ T *)x.GetPhyAddr()` itself (ops-nn's group_quant, ascend_quant_v2); APIs that take raw UB
// pointers (DataCopyPadGm2UBImpl, the register and C APIs, TransDataTo5HDImpl, ...) take it back here. A
// pointer outside the arena is taken as a UB address written as a number (C API code places buffers so:
// `(__ubuf__ T *)0x1000`), which ub_span then checks.
inline uint64_t ub_addr_of_ptr(const void *p) {
    const uintptr_t u = (uintptr_t)p, base = (uintptr_t)g.ub;
    if (g.ub != nullptr && u >= base && u <= base + g.ub_phys) return (uint64_t)(u - base);
    return (uint64_t)u;
}

// ---- L1 access (the cube core's L1 buffer: positions A1, B1, C1). A block gets its L1 on first use,
// zeroed; kernel_blocks.cpp frees it when the block ends.
uint8_t *l1_arena(TWIN_LOC_DECL);
inline uint8_t *l1_span(uint64_t addr, uint64_t bytes, const char *api, TWIN_LOC_DECL) {
    if (addr + bytes > g.l1_bytes) {
        fault(twin_file, twin_line,
              "%s: L1 access out of bounds: bytes [%llu, %llu) but l1_bytes is %u", api,
              (unsigned long long)addr, (unsigned long long)(addr + bytes), g.l1_bytes);
    }
    return (g.l1 ? g.l1 : l1_arena(TWIN_LOC_ARGS)) + addr;
}

// ---- GM registry ------------------------------------------------------------------------------
struct GmAlloc {
    uint8_t *base;
    uint64_t size;  // bytes the program asked for
    uint64_t cap;   // accessible bytes: size rounded up to 32 B, plus 32 B (device allocation padding)
    const char *name;
    uint32_t id;    // registration order: the trace's `buf=` (the model tells buffers apart by it)
};
void gm_register(uint8_t *base, uint64_t size, uint64_t cap, const char *name);
const GmAlloc *gm_find(const void *p);
// Check [p, p+bytes) lies inside one GM allocation (including its padding; past the requested
// size draws a warning). Returns the byte offset of p in its allocation.
// A read may start anywhere inside the requested size and run past the allocation (the device
// reads whatever follows); the bytes past the padded end then read as 0: *avail (if given) says how
// many bytes can be read. A read may also start up to 32 B before the allocation (the padding of
// what precedes it on the device; zeros here). A read starting at or past the requested size, or a
// write past the padded end or before the start, is a fault.
uint64_t gm_check(const void *p, uint64_t bytes, bool write, const char *api, TWIN_LOC_DECL, uint64_t *avail = nullptr);
// gm_check for an access through a GlobalTensor set on `origin` (the address SetGlobalBuffer got): the
// access must lie in the allocation that holds `origin` (or the 32 B before it, for a read). An index that
// carries it into another allocation is out of bounds of the tensor's own; without this the verdict would
// hang on where the allocator happened to put the buffers (the addresses change from run to run).
uint64_t gm_check_in(const void *origin, const void *p, uint64_t bytes, bool write, const char *api, TWIN_LOC_DECL,
                     uint64_t *avail = nullptr);

// ---- trace ------------------------------------------------------------------------------------
// `extra`: further ` key=value` pairs written before `line=` (e.g. " cache=disable", " mem=L1 nd2nz=1").
// `buf` (trace version 3): the GM allocation (GmAlloc::id) of a GM copy, written as `buf=`; with `gm=`, the
// byte offset of the first burst in it, an absolute address, so the model sees reuse and same-address reads.
// UB-only copies (pipe V) pass -1 and write no `buf=`.
void tr_dma(Pipe pipe, const char *api, uint64_t bytes, uint64_t bursts, uint64_t burst, uint64_t gm,
            uint64_t gap, int line, const char *extra = nullptr, int64_t buf = -1);
// The GM allocation id of a pointer, or -1 when it lies in none.
int64_t gm_buf_id(const void *p);
void tr_vec(const char *api, unsigned dt, uint64_t n, uint64_t rep, int line, int dst_bytes = -1);
// The UB bytes a GM <-> UB copy writes or reads, from byte `addr`, `extent` bytes to the end of its last
// burst (trace version 6: `ub=`, `ubn=`), for the model's check of unordered copies over the same UB
// (model/race.rs); written into the next tr_dma record.
void tr_dma_ub(uint32_t addr, uint64_t extent);
// The UB byte addresses of a vector instruction's operands (trace version 3: `ubd=`, `ubs0=`,
// `ubs1=`), for the model's bank-conflict check; written into the next tr_vec record. src1 < 0: unary.
void tr_vec_ub(uint32_t dst, uint32_t src0, int64_t src1 = -1);
// The block and repeat strides (in 32-byte blocks) of the operands tr_vec_ub just named, when they are not
// the contiguous 1 / 8 (trace version 6: `ubst=<dst blk>/<dst rep>/<src0 blk>/<src0 rep>/<src1 blk>/<src1 rep>`).
void tr_vec_ub_strides(uint32_t db, uint32_t dr, uint32_t s0b, uint32_t s0r, uint32_t s1b, uint32_t s1r);
void tr_scalar(const char *api, int line, int64_t gm = -1);
void tr_flag(bool set, Pipe src, Pipe dst, char kind, int a, int b); // kind 'q' -> q<a>.b<b>, 'e' -> e<a>
void tr_barrier(Pipe p);
// SetFlag / WaitFlag events: a wait needs an earlier unmatched set of the same src, dst and id
// (the device would wait forever); records `set`/`wait ... e<id>`.
void event_set(Pipe src, Pipe dst, int id, TWIN_LOC_DECL);
void event_wait(Pipe src, Pipe dst, int id, const char *api, TWIN_LOC_DECL);
void tr_instr(Pipe p, const char *api, int line); // a record with no keys but line
// The trace's length, and the trace cut back to such a length (records another core's work stands for:
// an IBShare Matmul's second AIV, lib/matmul_intf.h).
size_t trace_mark();
void trace_cut(size_t mark);
// IBShare (lib/matmul_intf.h): whether another AIV of this core's group already set matrix `which` ('A'
// or 'B') for its `nth` SetTensor call, at `gm`; another address there is a fault (the shared matrix must
// be the same GM data on every AIV of the group). False off a MIX kernel's AIVs.
bool ibshare_follows(char which, uint32_t nth, const void *gm, TWIN_LOC_DECL);
// Forgets every IBShare claim: a new launch (run_blocks) starts with none, whatever buffers the launch
// before it shared.
void ibshare_reset();
// A buffer TPipe::InitBuffer carved (trace version 5): `carve <hw> <addr> <len> <num> line=<L> file=<F>` (hw: twin::Hw),
// `num` buffers of `len` bytes from byte `addr` of the `hw` memory (UB, L1, ...), by the InitBuffer call
// at F:L. The model's UB layout analysis (ub_layout.rs) maps vector operands to the calls that placed them.
void tr_carve(int hw, uint32_t addr, uint32_t len, uint32_t num, TWIN_LOC_DECL);

inline uint64_t vec_rep(uint64_t n, unsigned dt) { return (n * dt + 255) / 256; }

// ---- timing-only mode ---------------------------------------------------------------------------
// ASCEND_TWIN_TIMING_ONLY=1 (set by benches/hardware for the 8192^3 matmul examples, whose arithmetic a CPU
// cannot do in reasonable time): the cube data paths (DataCopy GM -> L1 Nd2Nz, LoadData, Mmad, Fixpipe,
// the Matmul high-level API's GM -> L1 loads) check their operands and write the same trace records as a
// full run, but move and compute no data, so the modelled latency is that of a full run and the outputs
// are NOT results. Vector and scalar paths are unaffected. The first use prints a notice on stderr.
bool timing_only();

// ---- tiling -----------------------------------------------------------------------------------
void load_tiling(void *dst, size_t n, const uint8_t *src, TWIN_LOC_DECL);

// ---- element load/store through memcpy (no aliasing or alignment assumptions) -----------------
template <class T> inline T ld(const uint8_t *p) { T v; __builtin_memcpy(&v, p, sizeof(T)); return v; }
template <class T> inline void st(uint8_t *p, T v) { __builtin_memcpy(p, &v, sizeof(T)); }

// ---- math (src/kernel_math.cpp). The kernel headers include no C library header, so a user
// kernel may be called exp, log, abs, floor ... without clashing with libc declarations; the
// implementations call only the f/l-suffixed libm entry points for the same reason.
float m_exp(float); double m_exp(double);
float m_log(float); double m_log(double);
float m_sqrt(float); double m_sqrt(double);
double m_floor(double); double m_ceil(double); double m_trunc(double); double m_round(double);
double m_rint(double); double m_fmod(double, double);
float m_nextafterf(float, float);
float m_tanh(float); double m_tanh(double);
float m_pow(float, float); double m_pow(double, double);
float m_sin(float); double m_sin(double);
float m_cos(float); double m_cos(double);
float m_erf(float); double m_erf(double);
float m_log2(float); double m_log2(double);
float m_log10(float); double m_log10(double);
// high-level trigonometric / hyperbolic math (float)
float m_acos(float); float m_asin(float); float m_atan(float); float m_sinh(float); float m_cosh(float); float m_tan(float); float m_asinh(float); float m_acosh(float); float m_atanh(float); float m_erfc(float); float m_expm1(float); float m_log1p(float); float m_atan2(float, float);
void kprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

} // namespace twin
