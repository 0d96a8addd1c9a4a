// twin: kernel runtime: faults, GM registry, trace writer, tiling loader, atomic stores.
#include <algorithm>
#include <link.h>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <map>
#include <set>
#include <tuple>
#include <string>
#include <utility>
#include <vector>
#include "kernel_internal.h"
#include "../include/kernel/twin/half.h"

namespace twin {

thread_local BlockState g;
uint8_t *para_base = nullptr;
thread_local std::string g_trace;

const char *pipe_name(Pipe p) {
    static const char *const names[] = {"MTE2", "MTE3", "V", "S", "MTE1", "M", "FIX", "ALL", "NONE"};
    return names[p <= P_NONE ? p : P_NONE];
}

// ---- faults ----------------------------------------------------------------------------------
void fault(const char *file, int line, const char *fmt, ...) {
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    throw Fault{std::string(buf), file ? file : "?", line};
}

void warn_once(const char *file, int line, const char *fmt, ...) {
    static std::set<std::pair<std::string, int>> seen;
    static int printed = 0;
    if (!seen.insert({file ? file : "?", line}).second) return;
    if (++printed > 50) return;
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    std::fprintf(stderr, "warning: %s\n  --> %s:%d (block %lld)\n", buf, file ? file : "?", line, (long long)g.block_idx);
}

// ---- UB buffers (runtime.h) -------------------------------------------------------------------
void ub_note_buffer(uint32_t addr, uint32_t len, uint32_t num, TWIN_LOC_DECL) {
    if (len == 0 || num == 0) return;
    uint32_t n = g.ub_nbufs;
    while (n > 0 && g.ub_bufs[n - 1].addr >= addr) n--;
    g.ub_nbufs = n;
    if (n == (uint32_t)UB_BUFS) return;
    g.ub_bufs[n] = UbBuf{addr, len, num, twin_file, twin_line};
    g.ub_nbufs = n + 1;
}

void ub_fill_gap(uint32_t addr) {
    if (g.ub_gap != 0 && (uint64_t)addr + g.ub_gap <= g.ub_phys) std::memset(g.ub + addr, 0xA5, g.ub_gap);
}

void ub_check_in_buffer(uint64_t addr, uint64_t bytes, const char *api, TWIN_LOC_DECL) {
    if (bytes == 0) return;
    for (uint32_t i = g.ub_nbufs; i-- > 0;) {
        const UbBuf &b = g.ub_bufs[i];
        const uint64_t end_all = (uint64_t)b.addr + (uint64_t)b.len * b.num;
        if (addr < b.addr || addr >= end_all) continue;
        const uint64_t k = (addr - b.addr) / b.len;
        const uint64_t end = (uint64_t)b.addr + (k + 1) * b.len;
        if (addr + bytes > end)
            warn_once(twin_file, twin_line,
                      "%s reads or writes %llu bytes of UB from address %llu, past the end of its UB buffer (%u bytes "
                      "from address %llu, carved at %s:%d): the bytes after it belong to whatever buffer is carved there",
                      api, (unsigned long long)bytes, (unsigned long long)addr, b.len,
                      (unsigned long long)(end - b.len), b.file ? b.file : "?", b.line);
        return;
    }
}

// ---- timing-only mode (runtime.h) ------------------------------------------------------------
bool timing_only() {
    static const bool on = [] {
        const char *e = std::getenv("ASCEND_TWIN_TIMING_ONLY");
        bool v = e && *e && std::strcmp(e, "0") != 0;
        if (v)
            std::fprintf(stderr, "twin: timing-only mode (ASCEND_TWIN_TIMING_ONLY=%s): cube copies, loads, Mmad and "
                                 "Fixpipe record their trace but move and compute no data; the outputs are not results\n",
                         e);
        return v;
    }();
    return on;
}

// ---- GM registry ------------------------------------------------------------------------------
std::vector<GmAlloc> &gm_allocs() {
    static std::vector<GmAlloc> v;
    return v;
}
void gm_register(uint8_t *base, uint64_t size, uint64_t cap, const char *name) {
    auto &v = gm_allocs();
    v.push_back(GmAlloc{base, size, cap, name, (uint32_t)v.size()});
    std::sort(v.begin(), v.end(), [](const GmAlloc &a, const GmAlloc &b) { return a.base < b.base; });
}
static const GmAlloc *gm_find_inclusive(const void *p, bool inclusive_end) {
    auto &v = gm_allocs();
    const uint8_t *q = static_cast<const uint8_t *>(p);
    // last allocation with base <= q
    auto it = std::upper_bound(v.begin(), v.end(), q, [](const uint8_t *x, const GmAlloc &a) { return x < a.base; });
    if (it == v.begin()) return nullptr;
    --it;
    uint64_t off = (uint64_t)(q - it->base);
    if (off < it->cap || (inclusive_end && off == it->cap)) return &*it;
    return nullptr;
}
const GmAlloc *gm_find(const void *p) { return gm_find_inclusive(p, false); }
int64_t gm_buf_id(const void *p) {
    const GmAlloc *a = gm_find_inclusive(p, true);
    return a ? (int64_t)a->id : -1;
}

// A kernel's own constant GM data: `const __gm__ int32_t assist[256] = {...}` at namespace scope
// (ops-transformer's moe_common.h), which the device loads with the kernel binary. On the twin `__gm__`
// is nothing, so the array is static data of the kernel program: a read that lies wholly inside a
// loaded object's non-executable segment is that data. Writes there still fault.
static bool in_static_data(const void *p, uint64_t bytes) {
    static const std::vector<std::pair<uintptr_t, uintptr_t>> segments = [] {
        std::vector<std::pair<uintptr_t, uintptr_t>> v;
        dl_iterate_phdr(
            [](struct dl_phdr_info *info, size_t, void *out) {
                auto &segs = *static_cast<std::vector<std::pair<uintptr_t, uintptr_t>> *>(out);
                for (int i = 0; i < info->dlpi_phnum; i++) {
                    const auto &ph = info->dlpi_phdr[i];
                    if (ph.p_type != PT_LOAD || (ph.p_flags & PF_X)) continue;
                    uintptr_t a = (uintptr_t)info->dlpi_addr + ph.p_vaddr;
                    segs.emplace_back(a, a + ph.p_memsz);
                }
                return 0;
            },
            &v);
        return v;
    }();
    const uintptr_t a = (uintptr_t)p;
    for (const auto &s : segments)
        if (a >= s.first && a + bytes <= s.second) return true;
    return false;
}

static uint64_t gm_check_within(const GmAlloc *a, const void *p, uint64_t bytes, bool write, const char *api,
                                const char *file, int line, uint64_t *avail);

uint64_t gm_check(const void *p, uint64_t bytes, bool write, const char *api, const char *file, int line, uint64_t *avail) {
    note_call(api, file, line);
    if (avail) *avail = bytes;
    const GmAlloc *a = gm_find_inclusive(p, bytes == 0);
    if (!a) {
        if (bytes == 0) return 0;
        if (p == nullptr) fault(file, line, "%s: GM address is null (SetGlobalBuffer missing?)", api);
        if (!write && in_static_data(p, bytes)) return 0;
        auto &v = gm_allocs();
        const uint8_t *q = static_cast<const uint8_t *>(p);
        auto it = std::upper_bound(v.begin(), v.end(), q, [](const uint8_t *x, const GmAlloc &al) { return x < al.base; });
        // A read that starts at most 32 B before an allocation (an index of -1 or -2 whose value the
        // kernel then overwrites: ops-nn ctc_loss_v3's alpha[t-1], alpha[t-2] at t = 0) reads the
        // padding of whatever the device placed before it; here those bytes are zeros (gm_alloc's
        // front), and the rest must lie inside the allocation.
        if (!write && it != v.end() && (uint64_t)(it->base - q) <= 32 && (uint64_t)(q + bytes - it->base) <= it->cap) {
            warn_once(file, line,
                      "%s: GM read of %llu bytes starts %llu bytes before '%s'; on the device it reads the padding "
                      "of whatever precedes it, here 0",
                      api, (unsigned long long)bytes, (unsigned long long)(it->base - q), it->name);
            return 0;
        }
        // attribute the access to the allocation that starts below it (pointer ran past its end)
        if (it == v.begin())
            fault(file, line, "%s: GM %s of %llu bytes at %p is outside every GM allocation", api, write ? "write" : "read",
                  (unsigned long long)bytes, p);
        --it;
        a = &*it;
    }
    return gm_check_within(a, p, bytes, write, api, file, line, avail);
}

// The checks of an access that starts in allocation `a` (or runs past an end it started below):
// the bounds of what it reads or writes, and the warnings for padding and bytes past the end.
static uint64_t gm_check_within(const GmAlloc *a, const void *p, uint64_t bytes, bool write, const char *api,
                                const char *file, int line, uint64_t *avail) {
    uint64_t off = (uint64_t)(static_cast<const uint8_t *>(p) - a->base);
    uint64_t end = off + bytes;
    if (bytes == 0) return off;
    if (write ? end > a->cap : off >= a->size)
        fault(file, line, "%s: GM %s out of bounds: bytes [%llu, %llu) of '%s' which has %llu bytes", api,
              write ? "write" : "read", (unsigned long long)off, (unsigned long long)end, a->name,
              (unsigned long long)a->size);
    if (!write && end > a->cap) {
        if (avail) *avail = a->cap - off;
        else fault(file, line, "%s: GM read out of bounds: bytes [%llu, %llu) of '%s' which has %llu bytes", api,
                   (unsigned long long)off, (unsigned long long)end, a->name, (unsigned long long)a->size);
        warn_once(file, line,
                  "%s: GM read of bytes [%llu, %llu) runs past the end of '%s' (%llu bytes); on the device it reads "
                  "whatever follows, here the bytes past the allocation read as 0",
                  api, (unsigned long long)off, (unsigned long long)end, a->name, (unsigned long long)a->size);
    } else if (end > a->size) {
        warn_once(file, line,
                  "%s: GM %s of bytes [%llu, %llu) runs past the %llu bytes of '%s' into the allocation padding "
                  "(device allocations are rounded up to 32 B plus 32 B)",
                  api, write ? "write" : "read", (unsigned long long)off, (unsigned long long)end,
                  (unsigned long long)a->size, a->name);
    }
    return off;
}

uint64_t gm_check_in(const void *origin, const void *p, uint64_t bytes, bool write, const char *api, const char *file,
                     int line, uint64_t *avail) {
    // An access of no bytes touches nothing (InitGlobalMemory of 0 elements at an idle block's offset
    // past the end): only gm_check's own rule applies to it.
    const GmAlloc *o = origin && bytes > 0 ? gm_find_inclusive(origin, true) : nullptr;
    if (o) {
        const int64_t off = (int64_t)(static_cast<const uint8_t *>(p) - o->base);
        const int64_t end = off + (int64_t)bytes;
        const bool inside = off >= 0 && (uint64_t)off < o->cap;
        const bool front = !write && off < 0 && off >= -32 && end <= (int64_t)o->cap;
        if (!inside && !front) {
            note_call(api, file, line);
            fault(file, line, "%s: GM %s out of bounds: bytes [%lld, %lld) of '%s' which has %llu bytes", api,
                  write ? "write" : "read", (long long)off, (long long)end, o->name, (unsigned long long)o->size);
        }
        // inside its own allocation: checked there, without looking the allocation up again (every
        // burst of every GM copy comes through here)
        if (inside) {
            note_call(api, file, line);
            if (avail) *avail = bytes;
            return gm_check_within(o, p, bytes, write, api, file, line, avail);
        }
    }
    return gm_check(p, bytes, write, api, file, line, avail);
}

// ---- atomic stores ----------------------------------------------------------------------------
template <class T> static void atomic_apply(uint8_t *dst, const uint8_t *src, uint64_t bytes, int op) {
    for (uint64_t i = 0; i + sizeof(T) <= bytes; i += sizeof(T)) {
        T a = ld<T>(dst + i), b = ld<T>(src + i);
        T r;
        if (op == 1) r = (T)(calc_t<T>(a) + calc_t<T>(b));
        else if (op == 2) r = calc_t<T>(a) > calc_t<T>(b) ? a : b;
        else r = calc_t<T>(a) < calc_t<T>(b) ? a : b;
        st<T>(dst + i, r);
    }
}
void gm_store(uint8_t *dst, const uint8_t *src, uint64_t bytes, const char *api, const char *file, int line) {
    if (g.atomic_op == 0) { std::memmove(dst, src, bytes); return; }
    switch (g.atomic_type) {
    case DC_F16: atomic_apply<half>(dst, src, bytes, g.atomic_op); break;
    case DC_BF16: atomic_apply<bfloat16_t>(dst, src, bytes, g.atomic_op); break;
    case DC_F32: atomic_apply<float>(dst, src, bytes, g.atomic_op); break;
    case DC_I8: atomic_apply<int8_t>(dst, src, bytes, g.atomic_op); break;
    case DC_I16: atomic_apply<int16_t>(dst, src, bytes, g.atomic_op); break;
    case DC_I32: atomic_apply<int32_t>(dst, src, bytes, g.atomic_op); break;
    case DC_I64: atomic_apply<int64_t>(dst, src, bytes, g.atomic_op); break;
    case DC_U8: atomic_apply<uint8_t>(dst, src, bytes, g.atomic_op); break;
    case DC_U16: atomic_apply<uint16_t>(dst, src, bytes, g.atomic_op); break;
    case DC_U32: atomic_apply<uint32_t>(dst, src, bytes, g.atomic_op); break;
    case DC_U64: atomic_apply<uint64_t>(dst, src, bytes, g.atomic_op); break;
    default: fault(file, line, "%s: atomic copy-out with an unsupported element type", api);
    }
}

// ---- tiling -----------------------------------------------------------------------------------
void load_tiling(void *dst, size_t n, const uint8_t *src, const char *file, int line) {
    std::memset(dst, 0, n);
    const GmAlloc *a = src ? gm_find(src) : nullptr;
    if (!a) fault(file, line, "GET_TILING_DATA: the tiling pointer is not a GM allocation");
    uint64_t off = (uint64_t)(src - a->base);
    uint64_t avail = a->size > off ? a->size - off : 0;
    if (n > avail)
        warn_once(file, line, "GET_TILING_DATA: tiling struct has %zu bytes but the tiling function wrote %llu; the rest reads as 0",
                  n, (unsigned long long)avail);
    std::memcpy(dst, src, n < avail ? n : avail);
}

// ---- trace writer -----------------------------------------------------------------------------
void trace_append(const char *s) { g_trace.append(s); }
void trace_u64(uint64_t v) {
    char b[24];
    int i = 24;
    do { b[--i] = (char)('0' + v % 10); v /= 10; } while (v);
    g_trace.append(b + i, 24 - i);
}
static inline void kv(const char *k, uint64_t v) {
    g_trace.push_back(' ');
    g_trace.append(k);
    g_trace.push_back('=');
    trace_u64(v);
}
static inline void line_kv(int line) {
    kv("line", line < 0 ? 0 : (uint64_t)line);
    g_trace.push_back('\n');
}

namespace {
thread_local bool tl_dma_ub = false;
thread_local uint32_t tl_dma_ub_addr = 0;
thread_local uint64_t tl_dma_ub_extent = 0;
} // namespace
void tr_dma_ub(uint32_t addr, uint64_t extent) {
    tl_dma_ub = true;
    tl_dma_ub_addr = addr;
    tl_dma_ub_extent = extent;
}
void tr_dma(Pipe pipe, const char *api, uint64_t bytes, uint64_t bursts, uint64_t burst, uint64_t gm, uint64_t gap, int line,
            const char *extra, int64_t buf) {
    g_trace.append("I ");
    g_trace.append(pipe_name(pipe));
    g_trace.push_back(' ');
    g_trace.append(api);
    kv("bytes", bytes);
    kv("bursts", bursts);
    kv("burst", burst);
    kv("gm", gm);
    kv("gap", gap);
    if (buf >= 0) kv("buf", (uint64_t)buf);
    if (tl_dma_ub) {
        kv("ub", tl_dma_ub_addr);
        kv("ubn", tl_dma_ub_extent);
        tl_dma_ub = false;
    }
    if (extra) g_trace.append(extra);
    line_kv(line);
}
namespace {
thread_local bool tl_vec_ub = false;
thread_local uint32_t tl_vec_ub_d = 0, tl_vec_ub_s0 = 0;
thread_local int64_t tl_vec_ub_s1 = -1;
thread_local bool tl_vec_ub_strided = false;
thread_local uint32_t tl_vec_ub_st[6] = {1, 8, 1, 8, 1, 8};
} // namespace
void tr_vec_ub_reset() { tl_vec_ub = tl_vec_ub_strided = tl_dma_ub = false; }
void tr_vec_ub_strides(uint32_t db, uint32_t dr, uint32_t s0b, uint32_t s0r, uint32_t s1b, uint32_t s1r) {
    tl_vec_ub_strided = true;
    const uint32_t st[6] = {db, dr, s0b, s0r, s1b, s1r};
    for (int i = 0; i < 6; i++) tl_vec_ub_st[i] = st[i];
}
void tr_vec_ub(uint32_t dst, uint32_t src0, int64_t src1) {
    tl_vec_ub = true;
    tl_vec_ub_d = dst;
    tl_vec_ub_s0 = src0;
    tl_vec_ub_s1 = src1;
}
void tr_vec(const char *api, unsigned dt, uint64_t n, uint64_t rep, int line, int dst_bytes) {
    g_trace.append("I V ");
    g_trace.append(api);
    kv("dt", dt);
    kv("n", n);
    kv("rep", rep);
    if (dst_bytes >= 0) kv("dst", (uint64_t)dst_bytes);
    if (tl_vec_ub) {
        kv("ubd", tl_vec_ub_d);
        kv("ubs0", tl_vec_ub_s0);
        if (tl_vec_ub_s1 >= 0) kv("ubs1", (uint64_t)tl_vec_ub_s1);
        if (tl_vec_ub_strided) {
            char st[80];
            snprintf(st, sizeof st, " ubst=%u/%u/%u/%u/%u/%u", tl_vec_ub_st[0], tl_vec_ub_st[1], tl_vec_ub_st[2],
                     tl_vec_ub_st[3], tl_vec_ub_st[4], tl_vec_ub_st[5]);
            g_trace.append(st);
        }
        tl_vec_ub = tl_vec_ub_strided = false;
    }
    line_kv(line);
}
// Scalar records repeat by the million in element-by-element loops (GetValue / SetValue on UB), and
// writing, then parsing and simulating, one line each made such kernels slow to time. A record equal to
// the one just written (nothing else in between) is folded into it as `count=N` (trace version 2); the
// model costs N back-to-back scalar records exactly as it costs N lines.
namespace {
thread_local std::string tl_scalar_text;           // the last scalar record, without count and newline
thread_local size_t tl_scalar_text_end = 0;        // where that text ends in g_trace
thread_local size_t tl_scalar_end = (size_t)-1;    // g_trace.size() right after that record
thread_local uint64_t tl_scalar_count = 0;
thread_local std::string tl_scratch;
} // namespace

void tr_vec_ub_reset();
void trace_begin() {
    tr_vec_ub_reset();
    g_trace.clear();
    tl_scalar_end = (size_t)-1;
    tl_scalar_count = 0;
}

size_t trace_mark() { return g_trace.size(); }
void trace_cut(size_t mark) {
    if (mark >= g_trace.size()) return;
    g_trace.resize(mark);
    tr_vec_ub_reset();
    tl_scalar_end = (size_t)-1; // the next scalar record starts afresh
}

void tr_scalar(const char *api, int line, int64_t gm) {
    // The record's text (without newline) in a scratch string, then compared with the last one. kv()
    // appends to g_trace, so the scratch string stands in for it while the keys are written.
    std::string &rec = tl_scratch;
    rec.assign("I S ");
    rec.append(api);
    rec.swap(g_trace);
    if (gm >= 0) kv("gm", (uint64_t)gm);
    kv("line", line < 0 ? 0 : (uint64_t)line);
    rec.swap(g_trace);
    if (g_trace.size() == tl_scalar_end && rec == tl_scalar_text) {
        tl_scalar_count++;
        g_trace.resize(tl_scalar_text_end);
        kv("count", tl_scalar_count);
        g_trace.push_back('\n');
        tl_scalar_end = g_trace.size();
        return;
    }
    g_trace.append(rec);
    tl_scalar_text_end = g_trace.size();
    g_trace.push_back('\n');
    tl_scalar_end = g_trace.size();
    tl_scalar_text.swap(rec);
    tl_scalar_count = 1;
}
void tr_instr(Pipe p, const char *api, int line) {
    g_trace.append("I ");
    g_trace.append(pipe_name(p));
    g_trace.push_back(' ');
    g_trace.append(api);
    line_kv(line);
}
void tr_flag(bool set, Pipe src, Pipe dst, char kind, int a, int b) {
    g_trace.append(set ? "set " : "wait ");
    g_trace.append(pipe_name(src));
    g_trace.push_back(' ');
    g_trace.append(pipe_name(dst));
    g_trace.push_back(' ');
    g_trace.push_back(kind);
    trace_u64((uint64_t)(a < 0 ? 0 : a));
    if (kind == 'q') {
        g_trace.append(".b");
        trace_u64((uint64_t)(b < 0 ? 0 : b));
    }
    g_trace.push_back('\n');
}
static thread_local std::map<std::tuple<int, int, int>, int> t_events; // per block (one thread each)
void event_set(Pipe src, Pipe dst, int id, const char *file, int line) {
    (void)file; (void)line;
    if (src >= P_ALL || dst >= P_ALL) return; // PIPE_ALL / unknown pipes: nothing the model can pair
    t_events[std::make_tuple((int)src, (int)dst, id)]++;
    tr_flag(true, src, dst, 'e', id, 0);
}
void event_wait(Pipe src, Pipe dst, int id, const char *api, const char *file, int line) {
    if (src >= P_ALL || dst >= P_ALL) return;
    int &n = t_events[std::make_tuple((int)src, (int)dst, id)];
    if (n <= 0)
        fault(file, line, "%s: waits for event %s->%s id %d that no earlier SetFlag set (the device would hang)", api,
              pipe_name(src), pipe_name(dst), id);
    n--;
    tr_flag(false, src, dst, 'e', id, 0);
}

void tr_carve(int hw, uint32_t addr, uint32_t len, uint32_t num, TWIN_LOC_DECL) {
    // The names the model reads (twin::Hw order), one token each.
    static const char *const names[] = {"UB", "L1", "L0A", "L0B", "L0C", "BT", "FB"};
    g_trace.append("carve ");
    g_trace.append(hw >= 0 && hw < (int)(sizeof names / sizeof names[0]) ? names[hw] : "?");
    g_trace.push_back(' ');
    trace_u64(addr);
    g_trace.push_back(' ');
    trace_u64(len);
    g_trace.push_back(' ');
    trace_u64(num);
    kv("line", twin_line < 0 ? 0 : (uint64_t)twin_line);
    // The file last: everything after `file=` to the end of the line, so a path may hold blanks.
    g_trace.append(" file=");
    const char *f = twin_file;
    g_trace.append(f ? f : "?");
    g_trace.push_back('\n');
}

void tr_barrier(Pipe p) {
    g_trace.append("barrier ");
    g_trace.append(pipe_name(p));
    g_trace.push_back('\n');
}

} // namespace twin
