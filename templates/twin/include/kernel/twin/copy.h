// twin: data movement (DataCopy, DataCopyPad) and atomic copy-out modes.
#pragma once
#include "tensor.h"
#include <cstdio>

namespace AscendC {

// DataCopyParams: blockCount bursts of blockLen 32 B blocks; strides are gaps in 32 B blocks
// (asc-devkit docs, DataCopy / "DataCopyParams").
struct DataCopyParams {
    uint16_t blockCount = 1;
    uint16_t blockLen = 0;
    uint16_t srcStride = 0;
    uint16_t dstStride = 0;
    DataCopyParams() = default;
    DataCopyParams(uint16_t count, uint16_t len, uint16_t srcS, uint16_t dstS)
        : blockCount(count), blockLen(len), srcStride(srcS), dstStride(dstS) {}
};
// DataCopyExtParams (DataCopyPad): blockLen in bytes; GM-side stride in bytes, UB-side stride in
// 32 B blocks (asc-devkit docs, DataCopyPad).
struct DataCopyExtParams {
    uint16_t blockCount = 1;
    uint32_t blockLen = 0;
    uint32_t srcStride = 0;
    uint32_t dstStride = 0;
    uint32_t rsv = 0;
    DataCopyExtParams() = default;
    // All five arguments, as in CANN: a four-element brace list then means DataCopyParams, and a
    // DataCopyPad call given one (e.g. `{1, len, 0, 0}`) is not ambiguous.
    DataCopyExtParams(uint16_t count, uint32_t len, uint32_t srcS, uint32_t dstS, uint32_t r)
        : blockCount(count), blockLen(len), srcStride(srcS), dstStride(dstS), rsv(r) {}
};
template <class T> struct DataCopyPadExtParams {
    bool isPad = false;
    uint8_t leftPadding = 0;
    uint8_t rightPadding = 0;
    T paddingValue = T(0);
    DataCopyPadExtParams() = default;
    DataCopyPadExtParams(bool pad, uint8_t l, uint8_t r, T v) : isPad(pad), leftPadding(l), rightPadding(r), paddingValue(v) {}
};
struct DataCopyPadParams {
    bool isPad = false;
    uint8_t leftPadding = 0;
    uint8_t rightPadding = 0;
    uint64_t paddingValue = 0;
    DataCopyPadParams() = default;
    DataCopyPadParams(bool pad, uint8_t l, uint8_t r, uint64_t v) : isPad(pad), leftPadding(l), rightPadding(r), paddingValue(v) {}
};
enum class PaddingMode : uint8_t { Normal = 0, Compact };
struct DataCopyEnhancedParams {
    uint8_t blockMode = 0;
    uint8_t deqScale = 0;
    uint64_t deqValue = 0;
    uint8_t sidStoreMode = 0;
    bool isRelu = false;
    uint8_t padMode = 0;
};

} // namespace AscendC

namespace twin {

template <class T> constexpr int dcode() {
    return std::is_same<T, half>::value ? DC_F16 : std::is_same<T, bfloat16_t>::value ? DC_BF16
         : std::is_same<T, float>::value ? DC_F32 : std::is_same<T, int8_t>::value ? DC_I8
         : std::is_same<T, int16_t>::value ? DC_I16 : std::is_same<T, int32_t>::value ? DC_I32
         : std::is_same<T, int64_t>::value ? DC_I64 : std::is_same<T, uint8_t>::value ? DC_U8
         : std::is_same<T, uint16_t>::value ? DC_U16 : std::is_same<T, uint32_t>::value ? DC_U32
         : std::is_same<T, uint64_t>::value ? DC_U64 : DC_NONE;
}

// The trace keys a GM copy adds to its record beyond bytes / bursts / gap: `cache=` when the GM tensor's
// L2 cache mode is not the default (SetL2CacheHint: disable, last, persistent), `mem=L1` when the local
// side is the L1 buffer, `nd2nz=1` for the ND->NZ conversion. nullptr when there is none.
inline const char *dma_extra(AscendC::CacheMode cache, bool l1, bool nd2nz) {
    static thread_local char buf[64];
    const char *c = cache == AscendC::CacheMode::CACHE_MODE_DISABLE ? " cache=disable"
                  : cache == AscendC::CacheMode::CACHE_MODE_LAST ? " cache=last"
                  : cache == AscendC::CacheMode::CACHE_MODE_PERSISTENT ? " cache=persistent" : "";
    if (!*c && !l1 && !nd2nz) return nullptr;
    char *o = buf;
    for (const char *s = c; *s;) *o++ = *s++;
    if (l1) for (const char *s = " mem=L1"; *s;) *o++ = *s++;
    if (nd2nz) for (const char *s = " nd2nz=1"; *s;) *o++ = *s++;
    *o = 0;
    return buf;
}

// Copy bytes UB -> GM honouring SetAtomicAdd/Max/Min (implemented in kernel_runtime.cpp).
void gm_store(uint8_t *dst, const uint8_t *src, uint64_t bytes, const char *api, TWIN_LOC_DECL);

// The pipe of a copy between two local buffers: UB -> UB on V; L1 -> BT / FB (the bias table, the
// fixpipe buffer) on MTE1; UB -> L1 on MTE3 (asc-devkit docs, DataCopy（UBToL1连续数据搬运）).
inline Pipe local_copy_pipe(AscendC::TPosition dst, AscendC::TPosition src) {
    Hw d = hw_of(dst), s = hw_of(src);
    if (d == HW_UB && s == HW_UB) return P_V;
    if (s == HW_UB && d == HW_L1) return P_MTE3;
    return P_MTE1;
}
inline void check_ub_align(uint32_t addr, const char *api, TWIN_LOC_DECL) {
    if (addr % 32 != 0)
        fault(twin_file, twin_line, "%s: UB address %u is not 32-byte aligned", api, addr);
}

// A GM -> UB copy that lays `footprint` bytes from dst's address writes past dst when its tensor is
// shorter (its size known: a queue's or TBuf's buffer, or a view of one). Nothing on the hardware stops
// it: the bytes after the tensor belong to whatever buffer is carved there. A warning, not a fault: the
// twin cannot tell a buffer the kernel meant to spill into from one it corrupts. `tune` fails a candidate
// whose run warns so where the unmodified op's does not (src/backend/twin.rs, `spill`).
template <class T>
void warn_past_tensor(const AscendC::LocalTensor<T> &dst, uint64_t footprint, const char *api, const char *why,
                      TWIN_LOC_DECL) {
    const uint64_t have = (uint64_t)dst.size_ * AscendC::twin_elem_bits<T>() / 8u;
    if (dst.size_ == 0 || footprint <= have) return;
    warn_once(twin_file, twin_line,
              "%s writes %llu bytes of UB from address %u, past the end of its destination tensor (%llu bytes)%s: the "
              "bytes after it belong to whatever buffer is carved there",
              api, (unsigned long long)footprint, dst.addr_, (unsigned long long)have, why);
}

// GM -> UB (or GM -> L1 when dst is at A1 / B1 / C1), bursts of `burst` bytes; GM gap and local gap in bytes.
template <class T>
void copy_gm_ub(const AscendC::LocalTensor<T> &dst, const AscendC::GlobalTensor<T> &src, uint64_t bursts, uint64_t burst,
                uint64_t gm_gap, uint64_t ub_gap, const char *api, TWIN_LOC_DECL) {
    check_ub_align(dst.addr_, api, TWIN_LOC_ARGS);
    const uint8_t *s = reinterpret_cast<const uint8_t *>(src.ptr_);
    uint64_t gm0 = 0;
    for (uint64_t i = 0; i < bursts; i++) {
        const uint8_t *sp = s + i * (burst + gm_gap);
        uint64_t avail = burst;
        uint64_t off = gm_check_in(src.origin_, sp, burst, false, api, TWIN_LOC_ARGS, &avail);
        if (i == 0) gm0 = off;
        uint8_t *dp = local_span(dst.pos_, (uint64_t)dst.addr_ + i * (burst + ub_gap), burst, api, TWIN_LOC_ARGS);
        __builtin_memcpy(dp, sp, avail);
        if (avail < burst) __builtin_memset(dp + avail, 0, burst - avail);
    }
    if (bursts == 0) gm0 = src.ptr_ ? gm_check(s, 0, false, api, TWIN_LOC_ARGS) : 0;
    if (!pos_is_l1(dst.pos_) && bursts > 0) {
        tr_dma_ub(dst.addr_, bursts * (burst + ub_gap) - ub_gap);
        warn_past_tensor(dst, bursts * (burst + ub_gap) - ub_gap, api, "", TWIN_LOC_ARGS);
    }
    tr_dma(P_MTE2, api, bursts * burst, bursts, burst, gm0, gm_gap, twin_line,
           dma_extra(src.cache_, pos_is_l1(dst.pos_), false), gm_buf_id(s));
}
template <class T>
void copy_ub_gm(const AscendC::GlobalTensor<T> &dst, const AscendC::LocalTensor<T> &src, uint64_t bursts, uint64_t burst,
                uint64_t ub_gap, uint64_t gm_gap, const char *api, TWIN_LOC_DECL) {
    check_ub_align(src.addr_, api, TWIN_LOC_ARGS);
    uint8_t *d = reinterpret_cast<uint8_t *>(dst.ptr_);
    uint64_t gm0 = 0;
    for (uint64_t i = 0; i < bursts; i++) {
        uint8_t *dp = d + i * (burst + gm_gap);
        uint64_t off = gm_check_in(dst.origin_, dp, burst, true, api, TWIN_LOC_ARGS);
        if (i == 0) gm0 = off;
        const uint8_t *sp = local_span(src.pos_, (uint64_t)src.addr_ + i * (burst + ub_gap), burst, api, TWIN_LOC_ARGS);
        gm_store(dp, sp, burst, api, TWIN_LOC_ARGS);
    }
    if (bursts == 0) gm0 = dst.ptr_ ? gm_check(d, 0, false, api, TWIN_LOC_ARGS) : 0;
    if (bursts > 0) tr_dma_ub(src.addr_, bursts * (burst + ub_gap) - ub_gap);
    tr_dma(P_MTE3, api, bursts * burst, bursts, burst, gm0, gm_gap, twin_line, dma_extra(dst.cache_, false, false),
           gm_buf_id(d));
}

} // namespace twin

namespace AscendC {

// ---- DataCopy, count form: count elements; the byte length is truncated down to whole 32 B
// blocks (asc-devkit docs, DataCopy: "length must be 32 B aligned").
template <class T> void DataCopy(const LocalTensor<T> &dst, const GlobalTensor<T> &src, uint32_t count, TWIN_LOC) {
    uint64_t bytes = (uint64_t)count * sizeof(T);
    uint64_t al = bytes / 32 * 32;
    if (al != bytes)
        twin::warn_once(twin_file, twin_line, "DataCopy: %llu bytes is not a multiple of 32; only %llu bytes are copied",
                        (unsigned long long)bytes, (unsigned long long)al);
    twin::copy_gm_ub(dst, src, 1, al, 0, 0, "DataCopy", TWIN_LOC_ARGS);
}
template <class T> void DataCopy(const GlobalTensor<T> &dst, const LocalTensor<T> &src, uint32_t count, TWIN_LOC) {
    uint64_t bytes = (uint64_t)count * sizeof(T);
    uint64_t al = bytes / 32 * 32;
    if (al != bytes)
        twin::warn_once(twin_file, twin_line, "DataCopy: %llu bytes is not a multiple of 32; only %llu bytes are copied",
                        (unsigned long long)bytes, (unsigned long long)al);
    twin::copy_ub_gm(dst, src, 1, al, 0, 0, "DataCopy", TWIN_LOC_ARGS);
}
template <class T> void DataCopy(const LocalTensor<T> &dst, const LocalTensor<T> &src, uint32_t count, TWIN_LOC) {
    uint64_t bytes = (uint64_t)count * sizeof(T);
    uint64_t al = bytes / 32 * 32;
    if (al != bytes)
        twin::warn_once(twin_file, twin_line, "DataCopy: %llu bytes is not a multiple of 32; only %llu bytes are copied",
                        (unsigned long long)bytes, (unsigned long long)al);
    twin::check_ub_align(dst.addr_, "DataCopy", TWIN_LOC_ARGS);
    twin::check_ub_align(src.addr_, "DataCopy", TWIN_LOC_ARGS);
    const uint8_t *sp = twin::local_span(src.pos_, src.addr_, al, "DataCopy", TWIN_LOC_ARGS);
    uint8_t *dp = twin::local_span(dst.pos_, dst.addr_, al, "DataCopy", TWIN_LOC_ARGS);
    __builtin_memmove(dp, sp, al);
    twin::tr_dma(twin::local_copy_pipe(dst.pos_, src.pos_), "DataCopy", al, 1, al, 0, 0, twin_line);
}
// ---- DataCopy with DataCopyParams (32 B units).
template <class T> void DataCopy(const LocalTensor<T> &dst, const GlobalTensor<T> &src, const DataCopyParams &p, TWIN_LOC) {
    twin::copy_gm_ub(dst, src, p.blockCount, (uint64_t)p.blockLen * 32, (uint64_t)p.srcStride * 32,
                     (uint64_t)p.dstStride * 32, "DataCopy", TWIN_LOC_ARGS);
}
template <class T> void DataCopy(const GlobalTensor<T> &dst, const LocalTensor<T> &src, const DataCopyParams &p, TWIN_LOC) {
    twin::copy_ub_gm(dst, src, p.blockCount, (uint64_t)p.blockLen * 32, (uint64_t)p.srcStride * 32,
                     (uint64_t)p.dstStride * 32, "DataCopy", TWIN_LOC_ARGS);
}
template <class T> void DataCopy(const LocalTensor<T> &dst, const LocalTensor<T> &src, const DataCopyParams &p, TWIN_LOC) {
    twin::check_ub_align(dst.addr_, "DataCopy", TWIN_LOC_ARGS);
    twin::check_ub_align(src.addr_, "DataCopy", TWIN_LOC_ARGS);
    uint64_t burst = (uint64_t)p.blockLen * 32;
    for (uint32_t i = 0; i < p.blockCount; i++) {
        const uint8_t *sp = twin::local_span(src.pos_, src.addr_ + i * (burst + p.srcStride * 32ull), burst, "DataCopy", TWIN_LOC_ARGS);
        uint8_t *dp = twin::local_span(dst.pos_, dst.addr_ + i * (burst + p.dstStride * 32ull), burst, "DataCopy", TWIN_LOC_ARGS);
        __builtin_memmove(dp, sp, burst);
    }
    twin::tr_dma(twin::local_copy_pipe(dst.pos_, src.pos_), "DataCopy", burst * p.blockCount, p.blockCount, burst, 0, (uint64_t)p.dstStride * 32, twin_line);
}
template <class T> void DataCopy(const LocalTensor<T> &dst, const GlobalTensor<T> &src, const DataCopyParams &p,
                                 const DataCopyEnhancedParams &, TWIN_LOC) { DataCopy(dst, src, p, TWIN_LOC_ARGS); }
template <class T> void DataCopy(const GlobalTensor<T> &dst, const LocalTensor<T> &src, const DataCopyParams &p,
                                 const DataCopyEnhancedParams &, TWIN_LOC) { DataCopy(dst, src, p, TWIN_LOC_ARGS); }

// ---- DataCopy GM -> L1 with ND -> NZ conversion (asc-devkit docs/zh/api/SIMD-API/基础API/矩阵计算（ISASI）/
// 矩阵计算的搬入/DataCopy（GMToL1随路转换-ND2NZ搬运）.md). ndNum ND matrices of nValue rows by dValue columns
// (source rows srcDValue elements apart, matrices srcNdMatrixStride elements apart) land in L1 in NZ
// layout: columns are cut into C0 blocks of 32 bytes (32 / sizeof(T) elements); element (r, c) of
// matrix k goes to element k * dstNzMatrixStride + (c / C0) * dstNzC0Stride * C0 + r * dstNzNStride * C0
// + c % C0 (both strides in 32-byte C0 units). When dValue * sizeof(T) is not a multiple of 32, each
// row's last C0 block is filled up with zeros. ndNum, nValue or dValue 0: no operation.
struct Nd2NzParams {
    uint16_t ndNum = 0;
    uint16_t nValue = 0;
    uint16_t dValue = 0;
    uint16_t srcNdMatrixStride = 0;
    uint16_t srcDValue = 0;
    uint16_t dstNzC0Stride = 0;
    uint16_t dstNzNStride = 0;
    uint16_t dstNzMatrixStride = 0;
    Nd2NzParams() = default;
    Nd2NzParams(uint16_t nd, uint16_t n, uint16_t d, uint16_t srcNdStride, uint16_t srcD, uint16_t c0Stride,
                uint16_t nStride, uint16_t dstNdStride)
        : ndNum(nd), nValue(n), dValue(d), srcNdMatrixStride(srcNdStride), srcDValue(srcD),
          dstNzC0Stride(c0Stride), dstNzNStride(nStride), dstNzMatrixStride(dstNdStride) {}
};
template <class T> void DataCopy(const LocalTensor<T> &dst, const GlobalTensor<T> &src, const Nd2NzParams &p, TWIN_LOC) {
    const char *api = "DataCopy";
    if (!twin::pos_is_l1(dst.pos_))
        twin::fault(twin_file, twin_line,
                    "DataCopy with Nd2NzParams: the destination is at TPosition %s; the GM -> L1 ND2NZ copy writes an "
                    "L1 tensor (TPosition A1 or B1)", twin::pos_name(dst.pos_));
    if (dst.addr_ % 32 != 0)
        twin::fault(twin_file, twin_line, "DataCopy with Nd2NzParams: L1 address %u is not 32-byte aligned", dst.addr_);
    if (p.ndNum == 0 || p.nValue == 0 || p.dValue == 0) return; // documented NOP
    if (p.ndNum > 4095 || p.nValue > 16384 || p.srcDValue == 0 || p.dstNzC0Stride == 0 || p.dstNzC0Stride > 16384 ||
        p.dstNzNStride == 0 || p.dstNzNStride > 16384 || p.dstNzMatrixStride > 16384)
        twin::fault(twin_file, twin_line,
                    "DataCopy with Nd2NzParams: a parameter is out of its documented range (ndNum %u in [0, 4095], "
                    "nValue %u in [0, 16384], srcDValue %u in [1, 65535], dstNzC0Stride %u and dstNzNStride %u in "
                    "[1, 16384], dstNzMatrixStride %u in [0, 16384])",
                    p.ndNum, p.nValue, p.srcDValue, p.dstNzC0Stride, p.dstNzNStride, p.dstNzMatrixStride);
    constexpr uint64_t es = sizeof(T);
    constexpr uint64_t c0 = 32 / es;
    const uint64_t blocks = (p.dValue + c0 - 1) / c0;
    const uint8_t *s = reinterpret_cast<const uint8_t *>(src.ptr_);
    uint64_t gm0 = 0;
    for (uint64_t k = 0; k < p.ndNum; k++) {
        for (uint64_t r = 0; r < p.nValue; r++) {
            const uint8_t *row = s + (k * p.srcNdMatrixStride + r * p.srcDValue) * es;
            uint64_t avail = p.dValue * es;
            uint64_t off = twin::gm_check_in(src.origin_, row, p.dValue * es, false, "DataCopy (Nd2Nz)", TWIN_LOC_ARGS, &avail);
            if (k == 0 && r == 0) gm0 = off;
            // Timing-only mode (runtime.h): the first and last rows are checked, nothing is moved.
            if (twin::timing_only()) {
                if (k == 0 && r == 0 && (uint64_t)p.ndNum * p.nValue > 1) {
                    k = p.ndNum - 1;
                    r = (uint64_t)p.nValue - 2; // the loop's r++ makes it the last row (unsigned wrap when nValue is 1)
                } else {
                    k = p.ndNum; // done
                    break;
                }
                continue;
            }
            for (uint64_t j = 0; j < blocks; j++) {
                uint64_t e = (k * p.dstNzMatrixStride + j * p.dstNzC0Stride * c0 + r * p.dstNzNStride * c0) * es;
                uint8_t *dp = twin::l1_span((uint64_t)dst.addr_ + e, 32, "DataCopy (Nd2Nz)", TWIN_LOC_ARGS);
                uint64_t first = j * c0 * es, want = (j + 1 == blocks ? p.dValue * es - first : 32);
                uint64_t have = avail > first ? (avail - first < want ? avail - first : want) : 0;
                if (have) __builtin_memcpy(dp, row + first, have);
                if (have < 32) __builtin_memset(dp + have, 0, 32 - have);
            }
        }
    }
    uint64_t rows = (uint64_t)p.ndNum * p.nValue, burst = p.dValue * es;
    uint64_t gap = p.srcDValue > p.dValue ? (uint64_t)(p.srcDValue - p.dValue) * es : 0;
    twin::tr_dma(twin::P_MTE2, api, rows * burst, rows, burst, gm0, gap, twin_line, twin::dma_extra(src.cache_, true, true),
                 twin::gm_buf_id(src.ptr_));
}

// ---- SetPadValue<T, pos>(value) (asc-devkit docs/zh/api/SIMD-API/基础API/Memory矢量计算/数据搬运辅助配置接口/
// SetPadValue(ISASI).md, and DataCopyPad（GMToUB非对齐数据搬运）.md's isPad): sets the value DataCopyPad GM -> UB
// writes into the left and right padding when its isPad is false. Without it, isPad false leaves the padding
// as the UB had it (the hardware's is unspecified). A register write on the scalar unit; no trace record.
template <class T, TPosition pos = TPosition::MAX> inline void SetPadValue(T paddingValue) {
    static_assert(sizeof(T) <= 8, "SetPadValue: a value of at most 8 bytes");
    twin::g.pad_raw = 0;
    __builtin_memcpy(&twin::g.pad_raw, &paddingValue, sizeof(T));
    twin::g.pad_set = true;
}

// ---- DataCopyPad GM -> UB: each burst of blockLen bytes lands 32 B aligned in UB, after
// leftPadding elements and followed by rightPadding elements (filled with paddingValue when isPad),
// the burst rounded up to 32 B; GM gap in bytes, UB gap in 32 B blocks (asc-devkit docs, DataCopyPad).
template <class T>
void DataCopyPad(const LocalTensor<T> &dst, const GlobalTensor<T> &src, const DataCopyExtParams &p,
                 const DataCopyPadExtParams<T> &pad, TWIN_LOC) {
    const char *api = "DataCopyPad";
    twin::check_ub_align(dst.addr_, api, TWIN_LOC_ARGS);
    if (pad.leftPadding * sizeof(T) > 32 || pad.rightPadding * sizeof(T) > 32)
        twin::fault(twin_file, twin_line, "DataCopyPad: padding of more than 32 bytes (left %u, right %u elements)",
                    pad.leftPadding, pad.rightPadding);
    uint64_t lp = pad.leftPadding * sizeof(T), rp = pad.rightPadding * sizeof(T);
    uint64_t ub_burst = (lp + p.blockLen + rp + 31) / 32 * 32;
    const uint8_t *s = reinterpret_cast<const uint8_t *>(src.ptr_);
    uint64_t gm0 = 0;
    for (uint32_t i = 0; i < p.blockCount; i++) {
        const uint8_t *sp = s + (uint64_t)i * (p.blockLen + (uint64_t)p.srcStride);
        uint64_t avail = p.blockLen;
        uint64_t off = twin::gm_check_in(src.origin_, sp, p.blockLen, false, api, TWIN_LOC_ARGS, &avail);
        if (i == 0) gm0 = off;
        uint64_t ua = dst.addr_ + (uint64_t)i * (ub_burst + (uint64_t)p.dstStride * 32);
        uint8_t *dp = twin::ub_span(ua, ub_burst, api, TWIN_LOC_ARGS);
        __builtin_memcpy(dp + lp, sp, avail);
        if (avail < p.blockLen) __builtin_memset(dp + lp + avail, 0, p.blockLen - avail);
        // Without padding, the dummy bytes that round a block up to 32 take the block's first element
        // (DataCopyPad（GMToUB非对齐数据搬运）.md: "dummy会默认填充待搬运数据块的第一个元素值").
        if (lp == 0 && rp == 0 && p.blockLen >= sizeof(T))
            for (uint64_t k = p.blockLen; k + sizeof(T) <= ub_burst; k += sizeof(T)) __builtin_memcpy(dp + k, dp, sizeof(T));
        if (pad.isPad || twin::g.pad_set) {
            T pv = pad.paddingValue;
            if (!pad.isPad) __builtin_memcpy(&pv, &twin::g.pad_raw, sizeof(T) < 8 ? sizeof(T) : 8);
            for (uint32_t k = 0; k < pad.leftPadding; k++) twin::st<T>(dp + k * sizeof(T), pv);
            for (uint32_t k = 0; k < pad.rightPadding; k++) twin::st<T>(dp + lp + p.blockLen + k * sizeof(T), pv);
        }
    }
    if (p.blockCount > 0) {
        const uint64_t footprint = (uint64_t)p.blockCount * (ub_burst + (uint64_t)p.dstStride * 32) - (uint64_t)p.dstStride * 32;
        twin::tr_dma_ub(dst.addr_, footprint);
        char why[160] = "";
        if (ub_burst != lp + p.blockLen + rp)
            std::snprintf(why, sizeof why, " (%u blocks of %llu bytes, each rounded up to %llu bytes of UB)", p.blockCount,
                          (unsigned long long)(lp + p.blockLen + rp), (unsigned long long)ub_burst);
        twin::warn_past_tensor(dst, footprint, api, why, TWIN_LOC_ARGS);
    }
    twin::tr_dma(twin::P_MTE2, api, (uint64_t)p.blockCount * p.blockLen, p.blockCount, p.blockLen, gm0, p.srcStride, twin_line,
                 twin::dma_extra(src.cache_, false, false), twin::gm_buf_id(s));
}
// A `__ubuf__ T *` as LocalTensor::GetPhyAddr() gives it on the twin: a UB byte address carried in a
// pointer; anything larger is no UB address.
template <class T> inline uint32_t twin_ub_addr_of(const T *p, const char *api, TWIN_LOC_DECL) {
    const uint64_t addr = twin::ub_addr_of_ptr(p);
    if (addr > 0xffffffffull)
        twin::fault(twin_file, twin_line, "%s: the UB pointer is no UB address (a LocalTensor's GetPhyAddr())", api);
    return (uint32_t)addr;
}
// DataCopyPadGm2UBImpl(ubPtr, gmPtr, params, padParams): DataCopyPad GM -> UB on raw addresses, as ops-nn's
// linear_index calls it with `(__ubuf__ T *)local.GetPhyAddr()` (on the twin a UB byte address carried in
// a pointer) and a GM pointer. Not a documented API; the twin gives it DataCopyPad's documented behaviour.
template <class T>
void DataCopyPadGm2UBImpl(T *dst, T *src, const DataCopyExtParams &p, const DataCopyPadExtParams<T> &pad, TWIN_LOC) {
    LocalTensor<T> ub(twin_ub_addr_of(dst, "DataCopyPadGm2UBImpl", TWIN_LOC_ARGS), 0, TPosition::VECIN);
    GlobalTensor<T> gm;
    gm.SetGlobalBuffer(src);
    DataCopyPad(ub, gm, p, pad, TWIN_LOC_ARGS);
}

// ---- DataCopyPad UB -> GM: bursts start 32 B aligned in UB (UB gap in 32 B blocks); GM gap in bytes.
template <class T> void DataCopyPad(const GlobalTensor<T> &dst, const LocalTensor<T> &src, const DataCopyExtParams &p, TWIN_LOC) {
    const char *api = "DataCopyPad";
    twin::check_ub_align(src.addr_, api, TWIN_LOC_ARGS);
    uint64_t ub_burst = ((uint64_t)p.blockLen + 31) / 32 * 32;
    uint8_t *d = reinterpret_cast<uint8_t *>(dst.ptr_);
    uint64_t gm0 = 0;
    for (uint32_t i = 0; i < p.blockCount; i++) {
        uint8_t *dp = d + (uint64_t)i * (p.blockLen + (uint64_t)p.dstStride);
        uint64_t off = twin::gm_check_in(dst.origin_, dp, p.blockLen, true, api, TWIN_LOC_ARGS);
        if (i == 0) gm0 = off;
        const uint8_t *sp = twin::ub_span(src.addr_ + (uint64_t)i * (ub_burst + (uint64_t)p.srcStride * 32), p.blockLen, api, TWIN_LOC_ARGS);
        twin::gm_store(dp, sp, p.blockLen, api, TWIN_LOC_ARGS);
    }
    if (p.blockCount > 0)
        twin::tr_dma_ub(src.addr_, (uint64_t)(p.blockCount - 1) * (ub_burst + (uint64_t)p.srcStride * 32) + p.blockLen);
    twin::tr_dma(twin::P_MTE3, api, (uint64_t)p.blockCount * p.blockLen, p.blockCount, p.blockLen, gm0, p.dstStride, twin_line,
                 twin::dma_extra(dst.cache_, false, false), twin::gm_buf_id(d));
}
// DataCopyPadUB2GMImpl(gmPtr, ubPtr, params): the UB -> GM direction of DataCopyPadGm2UBImpl above, as
// ops-transformer's moe_sort_base.h calls it for 64-bit data copied as int32 pairs. Not a documented API;
// the twin gives it DataCopyPad's documented behaviour.
template <class T> void DataCopyPadUB2GMImpl(T *dst, T *src, const DataCopyExtParams &p, TWIN_LOC) {
    LocalTensor<T> ub(twin_ub_addr_of(src, "DataCopyPadUB2GMImpl", TWIN_LOC_ARGS), 0, TPosition::VECOUT);
    GlobalTensor<T> gm;
    gm.SetGlobalBuffer(dst);
    DataCopyPad(gm, ub, p, TWIN_LOC_ARGS);
}
// DataCopyUB2GMImpl(gmPtr, ubPtr, params) and DataCopyGM2UBImpl(ubPtr, gmPtr, params): DataCopy with
// DataCopyParams (blockLen, gaps in 32 B blocks) on raw addresses, as ops-math's diag_flat and ops-nn's
// ge_glu_grad_v2 zero GM from a PopStackBuffer tensor. Not documented APIs; the twin gives them
// DataCopy's documented behaviour.
template <class T> void DataCopyUB2GMImpl(T *dst, T *src, const DataCopyParams &p, TWIN_LOC) {
    LocalTensor<T> ub(twin_ub_addr_of(src, "DataCopyUB2GMImpl", TWIN_LOC_ARGS), 0, TPosition::VECOUT);
    GlobalTensor<T> gm;
    gm.SetGlobalBuffer(dst);
    DataCopy(gm, ub, p, TWIN_LOC_ARGS);
}
template <class T> void DataCopyGM2UBImpl(T *dst, T *src, const DataCopyParams &p, TWIN_LOC) {
    LocalTensor<T> ub(twin_ub_addr_of(dst, "DataCopyGM2UBImpl", TWIN_LOC_ARGS), 0, TPosition::VECIN);
    GlobalTensor<T> gm;
    gm.SetGlobalBuffer(src);
    DataCopy(ub, gm, p, TWIN_LOC_ARGS);
}
// Older DataCopyParams/DataCopyPadParams forms: same units (blockLen in bytes).
template <class T>
void DataCopyPad(const LocalTensor<T> &dst, const GlobalTensor<T> &src, const DataCopyParams &p, const DataCopyPadParams &pad, TWIN_LOC) {
    DataCopyExtParams e(p.blockCount, p.blockLen, p.srcStride, p.dstStride, 0);
    T pv;
    uint64_t raw = pad.paddingValue;
    __builtin_memcpy(&pv, &raw, sizeof(T) < 8 ? sizeof(T) : 8);
    DataCopyPadExtParams<T> pe(pad.isPad, pad.leftPadding, pad.rightPadding, pv);
    DataCopyPad(dst, src, e, pe, TWIN_LOC_ARGS);
}
template <class T> void DataCopyPad(const GlobalTensor<T> &dst, const LocalTensor<T> &src, const DataCopyParams &p, TWIN_LOC) {
    DataCopyExtParams e(p.blockCount, p.blockLen, p.srcStride, p.dstStride, 0);
    DataCopyPad(dst, src, e, TWIN_LOC_ARGS);
}

// ---- atomic copy-out modes (asc-devkit docs, SetAtomicAdd / SetAtomicNone).
template <class T> inline void SetAtomicAdd() { twin::g.atomic_op = 1; twin::g.atomic_type = twin::dcode<T>(); }
template <class T> inline void SetAtomicMax() { twin::g.atomic_op = 2; twin::g.atomic_type = twin::dcode<T>(); }
template <class T> inline void SetAtomicMin() { twin::g.atomic_op = 3; twin::g.atomic_type = twin::dcode<T>(); }
template <class T> inline void SetAtomicType() { twin::g.atomic_type = twin::dcode<T>(); }
inline void SetAtomicNone() { twin::g.atomic_op = 0; twin::g.atomic_type = 0; }
// DisableDmaAtomic (asc-devkit docs/zh/api/SIMD-API/基础API/原子操作/DisableDmaAtomic.md): ends SetAtomicAdd/Max/Min;
// later copies overwrite GM.
inline void DisableDmaAtomic() { SetAtomicNone(); }

// ---- fill GM with a value (InitGlobalMemory / InitOutput), recorded as one MTE3 copy.
template <class T, class U>
inline void InitGlobalMemory(const GlobalTensor<T> &gm, const uint64_t size, const U value, TWIN_LOC) {
    uint64_t off = twin::gm_check_in(gm.origin_, gm.ptr_, size * sizeof(T), true, "InitGlobalMemory", TWIN_LOC_ARGS);
    const T v = (T)value;
    uint8_t *p = reinterpret_cast<uint8_t *>(gm.ptr_);
    for (uint64_t i = 0; i < size; i++) twin::st<T>(p + i * sizeof(T), v);
    twin::tr_dma(twin::P_MTE3, "InitGlobalMemory", size * sizeof(T), 1, size * sizeof(T), off, 0, twin_line,
                 twin::dma_extra(gm.cache_, false, false), twin::gm_buf_id(gm.ptr_));
}
template <class T, class U = T>
inline void InitOutput(const GlobalTensor<T> &gm, uint32_t size, U value = U(0), TWIN_LOC) {
    uint64_t off = twin::gm_check_in(gm.origin_, gm.ptr_, (uint64_t)size * sizeof(T), true, "InitOutput", TWIN_LOC_ARGS);
    const T v = (T)value;
    uint8_t *p = reinterpret_cast<uint8_t *>(gm.ptr_);
    for (uint64_t i = 0; i < size; i++) twin::st<T>(p + i * sizeof(T), v);
    twin::tr_dma(twin::P_MTE3, "InitOutput", (uint64_t)size * sizeof(T), 1, (uint64_t)size * sizeof(T), off, 0, twin_line,
                 twin::dma_extra(gm.cache_, false, false), twin::gm_buf_id(gm.ptr_));
}

// Fill(gm, size, value) (asc-devkit docs/zh/api/SIMD-API/高阶API/张量变换/Fill-97.md): the first size elements of
// gm set to value, through UB and MTE3, recorded as one MTE3 copy like InitGlobalMemory. The page allows it
// only before InitBuffer (it stages through UB); a later call is warned about.
template <class T>
inline void Fill(const GlobalTensor<T> &gm, const uint64_t size, const typename std::common_type<T>::type value, TWIN_LOC) {
    if (twin::g.ub_used > 0)
        twin::warn_once(twin_file, twin_line, "Fill: called after InitBuffer; the documentation allows it only before");
    uint64_t off = twin::gm_check_in(gm.origin_, gm.ptr_, size * sizeof(T), true, "Fill", TWIN_LOC_ARGS);
    uint8_t *p = reinterpret_cast<uint8_t *>(gm.ptr_);
    for (uint64_t i = 0; i < size; i++) twin::st<T>(p + i * sizeof(T), value);
    twin::tr_dma(twin::P_MTE3, "Fill", size * sizeof(T), 1, size * sizeof(T), off, 0, twin_line,
                 twin::dma_extra(gm.cache_, false, false), twin::gm_buf_id(gm.ptr_));
}

// ---- workspace helpers
inline uint8_t *GetUserWorkspace(uint8_t *workspace) { return workspace ? workspace + twin::g.sys_workspace : nullptr; }
inline void SetSysWorkspace(uint8_t *ws) { twin::g.sys_ws = ws; }
// SetSysWorkspaceForce: the same, set whatever was set before (asc-devkit impl/basic_api/*/kernel_operator_common_impl.h;
// ops-math's add_example_c_api calls it before asc_init).
inline void SetSysWorkspaceForce(uint8_t *ws) { twin::g.sys_ws = ws; }
inline uint8_t *GetSysWorkSpacePtr() { return twin::g.sys_ws; }

} // namespace AscendC
