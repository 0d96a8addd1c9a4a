// twin: vector instructions (pipe V).
// Level-2 "count" forms process calCount contiguous elements; level-0 forms take a mask
// (continuous count or bit mask), repeatTimes and block/repeat strides in 32 B units
// (asc-devkit docs, "general parameter description" of vector instructions).
// half/bfloat16_t arithmetic is computed in float and rounded to nearest even.
#pragma once
#include <cstring>
#include <limits>
#include "tensor.h"

namespace AscendC {

struct BinaryRepeatParams {
    uint8_t dstBlkStride = 1, src0BlkStride = 1, src1BlkStride = 1;
    uint8_t dstRepStride = 8, src0RepStride = 8, src1RepStride = 8;
    bool repeatStrideMode = false, strideSizeMode = false;
    BinaryRepeatParams() = default;
    BinaryRepeatParams(uint8_t db, uint8_t s0b, uint8_t s1b, uint8_t dr, uint8_t s0r, uint8_t s1r)
        : dstBlkStride(db), src0BlkStride(s0b), src1BlkStride(s1b), dstRepStride(dr), src0RepStride(s0r), src1RepStride(s1r) {}
};
struct UnaryRepeatParams {
    uint16_t dstBlkStride = 1, srcBlkStride = 1;
    uint8_t dstRepStride = 8, srcRepStride = 8;
    bool repeatStrideMode = false, strideSizeMode = false;
    UnaryRepeatParams() = default;
    UnaryRepeatParams(uint16_t db, uint16_t sb, uint8_t dr, uint8_t sr) : dstBlkStride(db), srcBlkStride(sb), dstRepStride(dr), srcRepStride(sr) {}
};

// UNKNOWN: the Reg Cast's CastTrait default (asc-devkit docs/zh/api/SIMD-API/基础API/Reg矢量计算/类型转换/Cast.md),
// given for the conversions its table lists without rounding (widening to an exact type, integer to
// integer: bfloat16_t -> float, int8_t -> half, int32_t -> int16_t, ...). The twin rounds with it as
// with CAST_NONE (to nearest even where a value is not exact).
enum class RoundMode : uint8_t { CAST_NONE = 0, CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND, CAST_TRUNC, CAST_ODD, CAST_HYBRID, UNKNOWN };
enum class CMPMODE : uint8_t { LT = 0, GT, EQ, LE, GE, NE };
enum class SELMODE : uint8_t { VSEL_CMPMASK_SPR = 0, VSEL_TENSOR_SCALAR_MODE, VSEL_TENSOR_TENSOR_MODE };
enum class MaskMode : uint8_t { NORMAL = 0, COUNTER };
enum class ReduceOrder : uint8_t { ORDER_VALUE_INDEX = 0, ORDER_INDEX_VALUE, ORDER_ONLY_VALUE, ORDER_ONLY_INDEX };
enum class ReduceType { SUM, MAX, MIN };
constexpr uint64_t MASK_PLACEHOLDER = 0;

inline void SetMaskCount() { twin::g.mask_counter = true; }
inline void SetMaskNorm() { twin::g.mask_counter = false; }
inline void ResetMask() { twin::g.mask0 = ~0ull; twin::g.mask1 = ~0ull; }
template <class T, MaskMode mode = MaskMode::NORMAL> inline void SetVectorMask(uint64_t len) {
    if (mode == MaskMode::COUNTER || twin::g.mask_counter) { twin::g.mask0 = len; twin::g.mask1 = 0; }
    else {
        uint64_t lo = len >= 64 ? ~0ull : ((1ull << len) - 1);
        uint64_t hi = len >= 128 ? ~0ull : len > 64 ? ((1ull << (len - 64)) - 1) : 0;
        twin::g.mask0 = lo; twin::g.mask1 = hi;
    }
}
template <class T, MaskMode mode = MaskMode::NORMAL> inline void SetVectorMask(uint64_t maskHigh, uint64_t maskLow) {
    twin::g.mask0 = maskLow; twin::g.mask1 = maskHigh;
}

// AscendCUtils: the kernel library's helper class that kernels call directly (ops-nn's norm kernels:
// AscendCUtils::SetMask<float>(64) before WholeReduceSum<float, false>; GetC0Count in the safe-copy
// helpers; GetBitSize). Behaviour as asc-devkit's impl/basic_api/kernel_utils_base.h gives it (no doc
// page): the mask helpers write the vector mask register as SetVectorMask(high, low) does, whatever the
// mask mode; SetMask<T>(len) turns on the low len lanes, except that len 64 sets the low word only, and
// len equal to one 32-byte block's elements (8 for float, 16 for half) or len >= 128 sets every lane.
// GetC0Size is the 32-byte block, GetC0Count its elements of a dtypeSize-byte type, GetBitSize bytes*8.
// GetRsvdCnt reads the register the last GatherMask of the block left its kept count in (CANN's
// GatherMask itself reads it into its rsvdCnt: impl/basic_api/dav_c220/kernel_operator_vec_gather_mask_impl.h).
class AscendCUtils {
public:
    static inline int64_t GetRsvdCnt() { return (int64_t)twin::g.rsvd_cnt; }
    static inline int32_t GetBitSize(int32_t byteSize) { return byteSize * 8; }
    static inline int32_t GetC0Size() { return 32; }
    static inline int32_t GetC0Count(const int32_t dtypeSize) {
        if (dtypeSize <= 0) twin::fault(__FILE__, __LINE__, "AscendCUtils::GetC0Count: dtypeSize %d must be positive", dtypeSize);
        return GetC0Size() / dtypeSize;
    }
    static inline int32_t GetDefaultBlockNum() { return 8; }
    template <class T, bool isSetMask = true> static inline void SetMask(const uint64_t &maskHigh, const uint64_t &maskLow) {
        if (!isSetMask) return;
        twin::g.mask1 = maskHigh;
        twin::g.mask0 = maskLow;
    }
    template <class T, bool isSetMask = true> static inline void SetMask(int32_t len) {
        if (!isSetMask) return;
        const int32_t block_elems = 32 / (int32_t)sizeof(T);
        if (len == 64) { SetMask<T>(0, ~0ull); return; }
        if (len == block_elems || len >= 128) { SetMask<T>(~0ull, ~0ull); return; }
        if (len < 0) len = 0;
        const uint64_t low = len >= 64 ? ~0ull : ((1ull << len) - 1);
        const uint64_t high = len > 64 ? ((1ull << (len - 64)) - 1) : 0;
        SetMask<T>(high, low);
    }
    template <bool isSetMask = true> static inline void ResetMask() {
        if (isSetMask) SetMask<uint8_t>(~0ull, ~0ull);
    }
    template <class T> static inline void SetMaskCount() { AscendC::SetMaskCount(); }
    template <class T> static inline void SetMaskNorm() { AscendC::SetMaskNorm(); }
};

} // namespace AscendC

namespace twin {

template <class T> inline calc_t<T> up(T v) { return (calc_t<T>)v; }

// Convert a computed value back to T: half-like types round to nearest even.
template <class T, class C> inline T down(C v) { return (T)v; }

inline void vcheck(int64_t n, const char *api, TWIN_LOC_DECL) {
    if (n < 0) fault(twin_file, twin_line, "%s: negative element count %lld", api, (long long)n);
}
template <class T> inline uint8_t *vspan(const AscendC::LocalTensor<T> &t, uint64_t n, const char *api, TWIN_LOC_DECL) {
    // The overrun first: warnings are once per call site, and it is the one `tune` acts on.
    if (t.pos_ != AscendC::TPosition::GM && hw_of(t.pos_) == HW_UB) ub_check_in_buffer(t.addr_, n * sizeof(T), api, TWIN_LOC_ARGS);
    if (t.addr_ % 32 != 0) warn_once(twin_file, twin_line, "%s: UB operand address %u is not 32-byte aligned", api, t.addr_);
    return ub_span(t.addr_, n * sizeof(T), api, TWIN_LOC_ARGS);
}

// ---- level-2 count forms -----------------------------------------------------------------------
template <class T, class F>
inline void vbin(const char *api, const AscendC::LocalTensor<T> &d, const AscendC::LocalTensor<T> &a,
                 const AscendC::LocalTensor<T> &b, int64_t n, F f, TWIN_LOC_DECL) {
    vcheck(n, api, TWIN_LOC_ARGS);
    uint8_t *pd = vspan(d, n, api, TWIN_LOC_ARGS);
    const uint8_t *pa = vspan(a, n, api, TWIN_LOC_ARGS);
    const uint8_t *pb = vspan(b, n, api, TWIN_LOC_ARGS);
    for (int64_t i = 0; i < n; i++)
        st<T>(pd + i * sizeof(T), (T)f(up(ld<T>(pa + i * sizeof(T))), up(ld<T>(pb + i * sizeof(T)))));
    tr_vec_ub(d.addr_, a.addr_, b.addr_);
    tr_vec(api, sizeof(T), n, vec_rep(n, sizeof(T)), twin_line);
}
template <class D, class S, class F>
inline void vun(const char *api, const AscendC::LocalTensor<D> &d, const AscendC::LocalTensor<S> &a, int64_t n, F f,
                TWIN_LOC_DECL, int dst_bytes = -1) {
    vcheck(n, api, TWIN_LOC_ARGS);
    uint8_t *pd = vspan(d, n, api, TWIN_LOC_ARGS);
    const uint8_t *pa = vspan(a, n, api, TWIN_LOC_ARGS);
    for (int64_t i = 0; i < n; i++) st<D>(pd + i * sizeof(D), (D)f(ld<S>(pa + i * sizeof(S))));
    // rep follows the trace protocol: ceil(n * source bytes / 256); Cast also records dst= so the
    // model can count repeats of the wider side.
    tr_vec(api, sizeof(S), n, vec_rep(n, sizeof(S)), twin_line, dst_bytes);
}

// ---- level-0 mask/repeat forms -------------------------------------------------------------------
struct L0Mask {
    bool counter;
    uint64_t m0, m1; // bit mask, or m0 = element count in counter mode
};
inline L0Mask mask_cont(uint64_t mask, bool set) {
    if (!set) return L0Mask{g.mask_counter, g.mask0, g.mask1};
    L0Mask m{false, 0, 0};
    m.m0 = mask >= 64 ? ~0ull : ((1ull << mask) - 1);
    m.m1 = mask >= 128 ? ~0ull : mask > 64 ? ((1ull << (mask - 64)) - 1) : 0;
    return m;
}
inline L0Mask mask_bits(const uint64_t *mask, bool set) {
    if (!set) return L0Mask{g.mask_counter, g.mask0, g.mask1};
    return L0Mask{false, mask[0], mask[1]};
}
// Visit every selected element: f(repeat r, element-in-repeat j). epr = elements per repeat.
// Returns the number of elements processed.
template <class F> inline uint64_t l0_each(const L0Mask &m, uint64_t repeat, uint32_t epr, F f) {
    uint64_t done = 0;
    if (m.counter) {
        uint64_t n = m.m0;
        for (uint64_t r = 0; r * epr < n; r++)
            for (uint32_t j = 0; j < epr && r * epr + j < n; j++) { f(r, j); done++; }
        return done;
    }
    for (uint64_t r = 0; r < repeat; r++)
        for (uint32_t j = 0; j < epr; j++) {
            bool on = j < 64 ? ((m.m0 >> j) & 1) : ((m.m1 >> (j - 64)) & 1);
            if (on) { f(r, j); done++; }
        }
    return done;
}
// Byte address of element j of repeat r of an operand with element size sz and strides in 32 B.
inline uint64_t l0_addr(uint32_t base, uint32_t sz, uint64_t r, uint32_t j, uint32_t blk, uint32_t rep) {
    uint32_t epb = 32 / sz;
    return (uint64_t)base + (r * rep + (uint64_t)(j / epb) * blk) * 32 + (uint64_t)(j % epb) * sz;
}

template <class T, class F>
inline void vbin0(const char *api, const AscendC::LocalTensor<T> &d, const AscendC::LocalTensor<T> &a,
                  const AscendC::LocalTensor<T> &b, const L0Mask &m, uint8_t repeat, const AscendC::BinaryRepeatParams &p,
                  F f, TWIN_LOC_DECL) {
    const uint32_t sz = sizeof(T), epr = 256 / sz;
    uint64_t n = l0_each(m, repeat, epr, [&](uint64_t r, uint32_t j) {
        const uint8_t *pa = ub_span(l0_addr(a.addr_, sz, r, j, p.src0BlkStride, p.src0RepStride), sz, api, TWIN_LOC_ARGS);
        const uint8_t *pb = ub_span(l0_addr(b.addr_, sz, r, j, p.src1BlkStride, p.src1RepStride), sz, api, TWIN_LOC_ARGS);
        uint8_t *pd = ub_span(l0_addr(d.addr_, sz, r, j, p.dstBlkStride, p.dstRepStride), sz, api, TWIN_LOC_ARGS);
        st<T>(pd, (T)f(up(ld<T>(pa)), up(ld<T>(pb))));
    });
    // Operand addresses for the bank-conflict check, with the strides where they are not the contiguous
    // layout (block stride 1, repeat stride 8 blocks): which bank groups a repeat reads depends on them
    // (bank_conflict_ub README, scenarios 7 and 8: src0BlkStride 0 with src0RepStride 1 or 8).
    tr_vec_ub(d.addr_, a.addr_, b.addr_);
    if (!(p.dstBlkStride == 1 && p.src0BlkStride == 1 && p.src1BlkStride == 1 && p.dstRepStride == 8 &&
          p.src0RepStride == 8 && p.src1RepStride == 8))
        tr_vec_ub_strides(p.dstBlkStride, p.dstRepStride, p.src0BlkStride, p.src0RepStride, p.src1BlkStride,
                          p.src1RepStride);
    tr_vec(api, sz, n, m.counter ? vec_rep(n, sz) : repeat, twin_line);
}
template <class D, class S, class F>
inline void vun0(const char *api, const AscendC::LocalTensor<D> &d, const AscendC::LocalTensor<S> &a, const L0Mask &m,
                 uint8_t repeat, const AscendC::UnaryRepeatParams &p, F f, TWIN_LOC_DECL, int dst_bytes = -1) {
    const uint32_t sd = sizeof(D), ss = sizeof(S);
    const uint32_t epr = 256 / (sd > ss ? sd : ss);
    uint64_t n = l0_each(m, repeat, epr, [&](uint64_t r, uint32_t j) {
        const uint8_t *pa = ub_span(l0_addr(a.addr_, ss, r, j, p.srcBlkStride, p.srcRepStride), ss, api, TWIN_LOC_ARGS);
        uint8_t *pd = ub_span(l0_addr(d.addr_, sd, r, j, p.dstBlkStride, p.dstRepStride), sd, api, TWIN_LOC_ARGS);
        st<D>(pd, (D)f(ld<S>(pa)));
    });
    tr_vec(api, ss, n, m.counter ? vec_rep(n, ss) : repeat, twin_line, dst_bytes);
}

// ---- reduction arithmetic ------------------------------------------------------------------------
// One addition of a reduction, rounded to T. For half a finite sum beyond the largest half keeps
// +-65504 (asc-devkit docs, ReduceSum / BlockReduceSum: "results above 65504 are kept as 65504").
template <class T> inline T red_add(T a, T b) {
    if (std::is_same<T, half>::value) {
        float fa = (float)up(a), fb = (float)up(b), r = fa + fb;
        bool finite = __builtin_isfinite(fa) && __builtin_isfinite(fb);
        if (finite && r > 65504.0f && (float)T(r) > 65504.0f) return T(65504.0f);
        if (finite && r < -65504.0f && (float)T(r) < -65504.0f) return T(-65504.0f);
        return T(r);
    }
    return (T)(up(a) + up(b));
}
// Binary-tree sum of n values (n padded with zeros to a power of two): adjacent pairs first.
template <class T> inline T tree_sum(const T *v, uint32_t n) {
    if (n == 0) return T(0);
    uint32_t w = 1;
    while (w < n) w <<= 1;
    T buf[256];
    for (uint32_t i = 0; i < w; i++) buf[i] = i < n ? v[i] : T(0);
    while (w > 1) {
        for (uint32_t i = 0; i < w / 2; i++) buf[i] = red_add(buf[2 * i], buf[2 * i + 1]);
        w /= 2;
    }
    return buf[0];
}

// ---- rounding for Cast -----------------------------------------------------------------------------
using AscendC::RoundMode;

inline double rnd_int(double v, RoundMode m) {
    switch (m) {
    case RoundMode::CAST_FLOOR: return m_floor(v);
    case RoundMode::CAST_CEIL: return m_ceil(v);
    case RoundMode::CAST_TRUNC: return m_trunc(v);
    case RoundMode::CAST_ROUND: return m_round(v);
    case RoundMode::CAST_ODD: { double t = m_trunc(v); if (t != v && m_fmod(t, 2.0) == 0) t += (v > 0 ? 1 : -1); return t; }
    default: return m_rint(v);
    }
}
// Round a double into a 16-bit float format (half or bf16) with the given mode.
template <class H> inline H rnd_h(double v, RoundMode m) {
    const bool nearest_even = m == RoundMode::CAST_NONE || m == RoundMode::CAST_RINT ||
                              m == RoundMode::CAST_HYBRID || m == RoundMode::UNKNOWN;
    // A value a float holds exactly (every float source) rounds once, in H's own conversion.
    if (nearest_even && (double)(float)v == v) return H((float)v);
    H r((float)v);
    if (__builtin_isnan(v)) return r;
    // correct float double-rounding / directed modes by stepping on the bit pattern
    auto val = [](uint16_t b) { return (double)(float)H::FromBits(b); };
    auto step_mag = [](uint16_t b, int d) -> uint16_t { // move magnitude by d (+1/-1)
        uint16_t s = b & 0x8000u, mag = b & 0x7fffu;
        if (d < 0 && mag == 0) return b;
        return (uint16_t)(s | (uint16_t)(mag + d));
    };
    uint16_t b = r.Bits();
    // nearest-even from double: fix possible double rounding through float
    double rv = val(b);
    if (__builtin_isinf(rv) && !__builtin_isinf(v)) { /* overflow: keep inf for RNE */ }
    else if (rv != v) {
        uint16_t other = (__builtin_fabs(rv) > __builtin_fabs(v)) ? step_mag(b, -1) : step_mag(b, +1);
        double ov = val(other);
        if (__builtin_fabs(ov - v) < __builtin_fabs(rv - v) || (__builtin_fabs(ov - v) == __builtin_fabs(rv - v) && !(other & 1))) { b = other; rv = ov; }
    }
    if (rv == v || nearest_even) return H::FromBits(b);
    // truncated (toward zero) candidate t and the next one away from zero t1
    uint16_t t = __builtin_fabs(rv) > __builtin_fabs(v) ? step_mag(b, -1) : b;
    uint16_t t1 = step_mag(t, +1);
    uint16_t out = t;
    bool pos = v > 0;
    switch (m) {
    case RoundMode::CAST_FLOOR: out = pos ? t : t1; break;
    case RoundMode::CAST_CEIL: out = pos ? t1 : t; break;
    case RoundMode::CAST_TRUNC: out = t; break;
    case RoundMode::CAST_ODD: out = (t & 1) ? t : t1; break;
    case RoundMode::CAST_ROUND: {
        double d0 = __builtin_fabs(v - val(t)), d1 = __builtin_fabs(val(t1) - v);
        out = d0 < d1 ? t : t1;
        break;
    }
    default: break;
    }
    return H::FromBits(out);
}
inline float rnd_f(double v, RoundMode m) {
    float r = (float)v; // nearest even
    if (__builtin_isnan(v) || (double)r == v) return r;
    float t = __builtin_fabs((double)r) > __builtin_fabs(v) ? m_nextafterf(r, 0.0f) : r;
    float t1 = m_nextafterf(t, v > 0 ? __builtin_inff() : -__builtin_inff());
    bool pos = v > 0;
    switch (m) {
    case RoundMode::CAST_FLOOR: return pos ? t : t1;
    case RoundMode::CAST_CEIL: return pos ? t1 : t;
    case RoundMode::CAST_TRUNC: return t;
    case RoundMode::CAST_ODD: { uint32_t bt = f32_bits(t); return (bt & 1) ? t : t1; }
    case RoundMode::CAST_ROUND: return __builtin_fabs(v - t) < __builtin_fabs((double)t1 - v) ? t : t1;
    default: return r;
    }
}
template <class D> inline D sat_int(double v) {
    if (__builtin_isnan(v)) return (D)0;
    double lo = (double)std::numeric_limits<D>::min(), hi = (double)std::numeric_limits<D>::max();
    if (v <= lo) return std::numeric_limits<D>::min();
    if (v >= hi) return std::numeric_limits<D>::max();
    return (D)v;
}
template <class T> struct is_vfloat
    : std::integral_constant<bool, std::is_same<T, half>::value || std::is_same<T, bfloat16_t>::value ||
                                       std::is_same<T, float>::value || std::is_same<T, double>::value> {};
// The float -> float casts whose rounding mode rounds to an integral value rather than to the
// destination's precision. The asc-devkit precision-conversion page
// (docs/zh/api/SIMD-API/基础API/数据结构/precision_conversion.md) says float -> float and
// half -> bfloat16_t round the value to an integer with the mode (its examples: float 0.5 gives
// 0 / 0 / 1 / 1 / 0 under RINT / FLOOR / CEIL / ROUND / TRUNC; half 1.75 gives 2 / 1 / 2 / 2 / 1), while
// float -> half, float -> bfloat16_t, bfloat16_t -> half and double -> float round to the
// destination's precision. A cast to the same 16-bit float type is taken as float -> float (the
// twin's reading: the page lists float only). CAST_NONE (and CAST_ODD, not offered for these pairs)
// leaves the value as it is.
template <class D, class S> constexpr bool cast_rounds_to_integral() {
    return is_vfloat<D>::value && is_vfloat<S>::value &&
           (std::is_same<D, S>::value || (std::is_same<S, half>::value && std::is_same<D, bfloat16_t>::value));
}
inline bool mode_rounds(RoundMode m) {
    return m == RoundMode::CAST_RINT || m == RoundMode::CAST_FLOOR || m == RoundMode::CAST_CEIL ||
           m == RoundMode::CAST_ROUND || m == RoundMode::CAST_TRUNC;
}
// Convert one element S -> D with the rounding mode (asc-devkit docs, Cast and RoundMode: CAST_NONE is
// CAST_RINT when precision is lost; float->int saturates).
template <class D, class S> inline D cast_one(S s, RoundMode m) {
    double v = (double)up(s);
    if (cast_rounds_to_integral<D, S>() && mode_rounds(m)) v = rnd_int(v, m);
    // int32 -> half goes through the DEQSCALE register (asc-devkit docs, SetDeqScale: "s322f16").
    if (std::is_same<S, int32_t>::value && std::is_same<D, half>::value && g.deq_set) v *= (double)g.deq_scale;
    if (std::is_same<D, half>::value || std::is_same<D, bfloat16_t>::value) {
        return rnd_h<typename std::conditional<std::is_same<D, half>::value, half, bfloat16_t>::type>(v, m);
    } else if (std::is_floating_point<D>::value) {
        return (D)rnd_f(v, m);
    } else {
        if (std::is_integral<S>::value) return (D)s; // integer -> integer: wraps like a C cast
        return sat_int<D>(rnd_int(v, m));
    }
}

} // namespace twin

namespace AscendC {

// ---------------------------------------------------------------------------------------------
// Binary ops: count form, continuous-mask form, bit-mask form.
// ---------------------------------------------------------------------------------------------
// The count form twice, as TWIN_UNARY_HL explains: with the caller's location for a call on a named
// destination, and with the documented type for use as a function pointer (the foreach ops'
// NoScalarBinaryOp) or a temporary destination.
#define TWIN_BINARY(NAME, EXPR)                                                                              \
    template <class T>                                                                                        \
    inline void NAME(LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1,            \
                     const int32_t &calCount, TWIN_LOC) {                                                     \
        twin::vbin(#NAME, dst, src0, src1, calCount, [](twin::calc_t<T> a, twin::calc_t<T> b) { return EXPR; }, TWIN_LOC_ARGS); \
    }                                                                                                         \
    template <class T>                                                                                        \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1,      \
                     const int32_t &calCount) {                                                               \
        twin::vbin(#NAME, dst, src0, src1, calCount, [](twin::calc_t<T> a, twin::calc_t<T> b) { return EXPR; }, \
                   "(a call through a function pointer or on a temporary destination)", 0);                   \
    }                                                                                                         \
    template <class T, bool isSetMask = true>                                                                 \
    inline void NAME(LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1,            \
                     uint64_t mask, const uint8_t repeatTimes, const BinaryRepeatParams &p, TWIN_LOC) {        \
        twin::vbin0(#NAME, dst, src0, src1, twin::mask_cont(mask, isSetMask), repeatTimes, p,                 \
                    [](twin::calc_t<T> a, twin::calc_t<T> b) { return EXPR; }, TWIN_LOC_ARGS);                \
    }                                                                                                         \
    template <class T, bool isSetMask = true>                                                                 \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1,      \
                     uint64_t mask, const uint8_t repeatTimes, const BinaryRepeatParams &p) {                  \
        twin::vbin0(#NAME, dst, src0, src1, twin::mask_cont(mask, isSetMask), repeatTimes, p,                 \
                    [](twin::calc_t<T> a, twin::calc_t<T> b) { return EXPR; },                                 \
                    "(a call through a function pointer or on a temporary destination)", 0);                   \
    }                                                                                                         \
    template <class T, bool isSetMask = true>                                                                 \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1,      \
                     const uint64_t mask[], const uint8_t repeatTimes, const BinaryRepeatParams &p, TWIN_LOC) { \
        twin::vbin0(#NAME, dst, src0, src1, twin::mask_bits(mask, isSetMask), repeatTimes, p,                 \
                    [](twin::calc_t<T> a, twin::calc_t<T> b) { return EXPR; }, TWIN_LOC_ARGS);                \
    }

TWIN_BINARY(Add, a + b)
TWIN_BINARY(Sub, a - b)
TWIN_BINARY(Mul, a * b)
TWIN_BINARY(Div, a / b)
TWIN_BINARY(Max, (a > b ? a : b))
TWIN_BINARY(Min, (a < b ? a : b))
TWIN_BINARY(And, (a & b))
TWIN_BINARY(Or, (a | b))
TWIN_BINARY(AddRelu, ((a + b) > 0 ? (a + b) : 0))
TWIN_BINARY(SubRelu, ((a - b) > 0 ? (a - b) : 0))
#undef TWIN_BINARY

// The count form of the ops that read dst too: dst[i] = f(src0[i], src1[i], dst[i]), computed in the
// wider type and rounded once to T.
namespace twin_ter {
template <class T, class F>
inline void count_form(const char *api, const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1,
                       int32_t n, F f, TWIN_LOC_DECL) {
    twin::vcheck(n, api, TWIN_LOC_ARGS);
    uint8_t *pd = twin::vspan(dst, n, api, TWIN_LOC_ARGS);
    const uint8_t *pa = twin::vspan(src0, n, api, TWIN_LOC_ARGS);
    const uint8_t *pb = twin::vspan(src1, n, api, TWIN_LOC_ARGS);
    for (int32_t i = 0; i < n; i++) {
        auto r = f(twin::up(twin::ld<T>(pa + i * sizeof(T))), twin::up(twin::ld<T>(pb + i * sizeof(T))),
                   twin::up(twin::ld<T>(pd + i * sizeof(T))));
        twin::st<T>(pd + i * sizeof(T), (T)r);
    }
    twin::tr_vec(api, sizeof(T), n, twin::vec_rep(n, sizeof(T)), twin_line);
}
// The repeat forms (mask bits or continuous, strides per operand).
template <class T, class F>
inline void repeat_form(const char *api, const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1,
                        const twin::L0Mask &m, uint8_t repeat, const BinaryRepeatParams &p, F f, TWIN_LOC_DECL) {
    const uint32_t sz = sizeof(T), epr = 256 / sz;
    uint64_t n = twin::l0_each(m, repeat, epr, [&](uint64_t r, uint32_t j) {
        const uint8_t *pa = twin::ub_span(twin::l0_addr(src0.addr_, sz, r, j, p.src0BlkStride, p.src0RepStride), sz, api, TWIN_LOC_ARGS);
        const uint8_t *pb = twin::ub_span(twin::l0_addr(src1.addr_, sz, r, j, p.src1BlkStride, p.src1RepStride), sz, api, TWIN_LOC_ARGS);
        uint8_t *pd = twin::ub_span(twin::l0_addr(dst.addr_, sz, r, j, p.dstBlkStride, p.dstRepStride), sz, api, TWIN_LOC_ARGS);
        twin::st<T>(pd, (T)f(twin::up(twin::ld<T>(pa)), twin::up(twin::ld<T>(pb)), twin::up(twin::ld<T>(pd))));
    });
    twin::tr_vec(api, sz, n, m.counter ? twin::vec_rep(n, sz) : repeat, twin_line);
}
// FusedMulAdd's arithmetic: dst = src0 * dst + src1.
inline constexpr auto fused_mul_add = [](auto a, auto b, auto d) { return a * d + b; };
} // namespace twin_ter

// MulAddDst: dst = src0 * src1 + dst
template <class T>
inline void MulAddDst(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1, const int32_t &calCount, TWIN_LOC) {
    twin_ter::count_form("MulAddDst", dst, src0, src1, calCount, [](auto a, auto b, auto d) { return a * b + d; },
                         TWIN_LOC_ARGS);
}

// FusedMulAdd: dst = src0 * dst + src1 (asc-devkit docs, 基础API/Memory矢量计算/复合计算/FusedMulAdd.md),
// half or float on the A2 / A3 products, over count elements or in the repeat forms (mask bits or
// continuous); computed in float and rounded once to T.
template <class T>
inline void FusedMulAdd(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1,
                        const int32_t &count, TWIN_LOC) {
    twin_ter::count_form("FusedMulAdd", dst, src0, src1, count, twin_ter::fused_mul_add,
                         TWIN_LOC_ARGS);
}
template <class T, bool isSetMask = true>
inline void FusedMulAdd(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1, uint64_t mask,
                        const uint8_t repeatTime, const BinaryRepeatParams &p, TWIN_LOC) {
    twin_ter::repeat_form("FusedMulAdd", dst, src0, src1, twin::mask_cont(mask, isSetMask), repeatTime, p,
                          twin_ter::fused_mul_add, TWIN_LOC_ARGS);
}
template <class T, bool isSetMask = true>
inline void FusedMulAdd(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1,
                        const uint64_t mask[], const uint8_t repeatTime, const BinaryRepeatParams &p, TWIN_LOC) {
    twin_ter::repeat_form("FusedMulAdd", dst, src0, src1, twin::mask_bits(mask, isSetMask), repeatTime, p,
                          twin_ter::fused_mul_add, TWIN_LOC_ARGS);
}

// Transpose, the plain form (asc-devkit docs, 基础API/Memory矢量计算/数据排布转换/Transpose.md): one 16 x 16
// block of 2-byte elements, dst = src.T; both 32-byte aligned (the UB check). The enhanced form with
// TransposeParamsExt is not the twin's yet: a kernel that calls it does not compile.
template <class T>
inline void Transpose(const LocalTensor<T> &dst, const LocalTensor<T> &src, TWIN_LOC) {
    static_assert(sizeof(T) == 2, "the plain Transpose takes 2-byte elements (asc-devkit Transpose.md)");
    const uint8_t *ps = twin::vspan(src, 256, "Transpose", TWIN_LOC_ARGS);
    uint8_t *pd = twin::vspan(dst, 256, "Transpose", TWIN_LOC_ARGS);
    T block[256];
    for (int i = 0; i < 256; i++) block[i] = twin::ld<T>(ps + i * sizeof(T));
    for (int i = 0; i < 16; i++)
        for (int j = 0; j < 16; j++) twin::st<T>(pd + (i * 16 + j) * sizeof(T), block[j * 16 + i]);
    twin::tr_vec("Transpose", sizeof(T), 256, 2, twin_line);
}

// ---------------------------------------------------------------------------------------------
// Unary ops.
// ---------------------------------------------------------------------------------------------
// The count form twice, as TWIN_UNARY_HL explains (function pointers: the foreach ops' ImplictOutputOp).
#define TWIN_UNARY(NAME, EXPR)                                                                               \
    template <class T>                                                                                        \
    inline void NAME(LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t &calCount, TWIN_LOC) {     \
        twin::vun(#NAME, dst, src, calCount, [](T x0) { auto x = twin::up(x0); return (twin::calc_t<T>)(EXPR); }, TWIN_LOC_ARGS); \
    }                                                                                                         \
    template <class T>                                                                                        \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t &calCount) {         \
        twin::vun(#NAME, dst, src, calCount, [](T x0) { auto x = twin::up(x0); return (twin::calc_t<T>)(EXPR); }, \
                  "(a call through a function pointer or on a temporary destination)", 0);                    \
    }                                                                                                         \
    template <class T, bool isSetMask = true>                                                                 \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, uint64_t mask, const uint8_t repeatTimes, \
                     const UnaryRepeatParams &p, TWIN_LOC) {                                                  \
        twin::vun0(#NAME, dst, src, twin::mask_cont(mask, isSetMask), repeatTimes, p,                         \
                   [](T x0) { auto x = twin::up(x0); return (twin::calc_t<T>)(EXPR); }, TWIN_LOC_ARGS);       \
    }                                                                                                         \
    template <class T, bool isSetMask = true>                                                                 \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint64_t mask[], const uint8_t repeatTimes, \
                     const UnaryRepeatParams &p, TWIN_LOC) {                                                  \
        twin::vun0(#NAME, dst, src, twin::mask_bits(mask, isSetMask), repeatTimes, p,                         \
                   [](T x0) { auto x = twin::up(x0); return (twin::calc_t<T>)(EXPR); }, TWIN_LOC_ARGS);       \
    }

TWIN_UNARY(Exp, twin::m_exp(x))
// The high-level Exp (asc-devkit docs, "Exp" in the math library: template <T, taylorExpandLevel,
// isReuseSource>, with or without a shared tmp buffer): the twin computes exp exactly whatever the
// Taylor expansion level, and traces it as Exp.
template <class T, uint8_t taylorExpandLevel, bool isReuseSource = false>
inline void Exp(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint32_t calCount, TWIN_LOC) {
    twin::vun("Exp", dst, src, calCount, [](T x0) { auto x = twin::up(x0); return (twin::calc_t<T>)twin::m_exp(x); },
              TWIN_LOC_ARGS);
}
template <class T, uint8_t taylorExpandLevel, bool isReuseSource = false>
inline void Exp(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<uint8_t> &,
                const uint32_t calCount, TWIN_LOC) {
    Exp<T, taylorExpandLevel, isReuseSource>(dst, src, calCount, TWIN_LOC_ARGS);
}
TWIN_UNARY(Ln, twin::m_log(x))
TWIN_UNARY(Abs, (x < 0 ? -x : x))
TWIN_UNARY(Reciprocal, (decltype(x))1 / x)
TWIN_UNARY(Sqrt, twin::m_sqrt(x))
// Scalar sqrt: kernel code calls it on scalars (the device compiler provides it); the twin gives it
// here, reached through `using namespace AscendC`, as it includes no C library header.
// Scalar min / max of two values of one type, likewise provided by the device compiler and called
// unqualified (ops-math not_equal: `min(n - i, static_cast<int>(256 / sizeof(U)))`). Non-template, so a
// kernel's own min template or std::min does not make a call ambiguous; the names are parenthesised so
// a kernel's min/max macro does not expand them. Mixed argument types do not resolve, as on the device.
#define TWIN_SCALAR_MINMAX(T)                                                                                 \
    inline constexpr T(min)(T a, T b) { return b < a ? b : a; }                                               \
    inline constexpr T(max)(T a, T b) { return a < b ? b : a; }
TWIN_SCALAR_MINMAX(int32_t)
TWIN_SCALAR_MINMAX(uint32_t)
TWIN_SCALAR_MINMAX(int64_t)
TWIN_SCALAR_MINMAX(uint64_t)
TWIN_SCALAR_MINMAX(float)
#undef TWIN_SCALAR_MINMAX
inline float sqrt(float x) { return twin::m_sqrt(x); }
inline double sqrt(double x) { return twin::m_sqrt(x); }
template <class T, class = typename std::enable_if<std::is_integral<T>::value>::type> inline double sqrt(T x) {
    return twin::m_sqrt((double)x);
}
TWIN_UNARY(Rsqrt, (decltype(x))1 / twin::m_sqrt(x))
TWIN_UNARY(Relu, (x > 0 ? x : (decltype(x))0))
TWIN_UNARY(Not, (~x))
#undef TWIN_UNARY

// High-level math APIs (count form, optionally with a shared temporary buffer that the twin does
// not need): computed elementwise in float (double for float inputs is not used: float libm).
// The count form twice: with the caller's location for a call on a named (non-const) destination,
// and with the exact documented type `void(const LocalTensor<T>&, const LocalTensor<T>&, const
// uint32_t)` so that kernels can pass Acos<T, false> and the like as a function pointer (the foreach
// ops' TriangleOp). A call binds the first (a non-const reference is the better match); a pointer or
// a temporary destination takes the second, whose faults name no source line.
} // namespace AscendC
namespace twin {
// Sigmoid as dav-2201 computes it (asc-devkit impl/adv_api/detail/activation/sigmoid/sigmoid_impl.h:
// Muls by -1, Exp, Adds 1, then 1 divided by it, each a vector instruction on T): every step rounds to
// T. In half that is up to an ulp from the once-rounded value, and cann-learning-hub's sigmoid
// tutorial checks half outputs bit for bit against numpy's half arithmetic in the same steps.
template <class T> inline calc_t<T> sigmoid_steps(calc_t<T> x) {
    T t = (T)(-x);
    t = (T)m_exp(up(t));
    t = (T)(up(t) + (calc_t<T>)1);
    return up((T)((calc_t<T>)1 / up(t)));
}
} // namespace twin
namespace AscendC {
#define TWIN_UNARY_HL(NAME, EXPR)                                                                            \
    template <class T, bool isReuseSource = false>                                                            \
    inline void NAME(LocalTensor<T> &dst, const LocalTensor<T> &src, const uint32_t calCount, TWIN_LOC) {     \
        twin::vun(#NAME, dst, src, calCount, [](T x0) { auto x = twin::up(x0); return (twin::calc_t<T>)(EXPR); }, TWIN_LOC_ARGS); \
    }                                                                                                         \
    template <class T, bool isReuseSource = false>                                                            \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint32_t calCount) {         \
        twin::vun(#NAME, dst, src, calCount, [](T x0) { auto x = twin::up(x0); return (twin::calc_t<T>)(EXPR); }, \
                  "(a call through a function pointer or on a temporary destination)", 0);                    \
    }                                                                                                         \
    template <class T, bool isReuseSource = false>                                                            \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<uint8_t> &,      \
                     const uint32_t calCount, TWIN_LOC) {                                                     \
        twin::vun(#NAME, dst, src, calCount, [](T x0) { auto x = twin::up(x0); return (twin::calc_t<T>)(EXPR); }, TWIN_LOC_ARGS); \
    }                                                                                                         \
    /* The whole-tensor forms: every element of src takes part (the asc-devkit pages of these APIs, */       \
    /* "源操作数Tensor全部参与计算", e.g. docs/zh/api/SIMD-API/高阶API/数学计算/Acosh接口/Acosh.md). */         \
    template <class T, bool isReuseSource = false>                                                            \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<uint8_t> &,      \
                     TWIN_LOC) {                                                                              \
        twin::vun(#NAME, dst, src, (uint32_t)src.GetSize(), [](T x0) { auto x = twin::up(x0); return (twin::calc_t<T>)(EXPR); }, TWIN_LOC_ARGS); \
    }                                                                                                         \
    template <class T, bool isReuseSource = false>                                                            \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, TWIN_LOC) {                        \
        twin::vun(#NAME, dst, src, (uint32_t)src.GetSize(), [](T x0) { auto x = twin::up(x0); return (twin::calc_t<T>)(EXPR); }, TWIN_LOC_ARGS); \
    }

// ClampMin / ClampMax (asc-devkit docs/zh/api/SIMD-API/高阶API/数学计算/Clamp接口/ClampMin.md, ClampMax.md): the
// first calCount elements of src, those below (ClampMin) or above (ClampMax) scalar replaced by scalar; half
// and float; src and dst must not overlap. The twin needs no scratch (sharedTmpBuffer is not touched).
} // namespace AscendC
namespace twin {
template <class T, bool Max>
inline void clamp_one_side(const char *api, const AscendC::LocalTensor<T> &dst, const AscendC::LocalTensor<T> &src,
                           T scalar, uint32_t calCount, TWIN_LOC_DECL) {
    static_assert(std::is_same<T, half>::value || std::is_same<T, float>::value, "ClampMin/ClampMax: half or float");
    uint64_t bytes = (uint64_t)calCount * sizeof(T);
    if (calCount > 0 && dst.addr_ < src.addr_ + bytes && src.addr_ < dst.addr_ + bytes)
        fault(twin_file, twin_line, "%s: dst (UB %u) and src (UB %u) overlap; the API does not allow it", api,
              dst.addr_, src.addr_);
    const auto s = up(scalar);
    vun(api, dst, src, calCount, [s](T x0) {
        auto x = up(x0);
        return (calc_t<T>)(Max ? (x > s ? s : x) : (x < s ? s : x));
    }, TWIN_LOC_ARGS);
}
} // namespace twin
namespace AscendC {
#define TWIN_CLAMP(NAME, MAX)                                                                                 \
    template <class T, bool isReuseSource = false>                                                            \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<uint8_t> &,      \
                     const T scalar, const uint32_t calCount, TWIN_LOC) {                                     \
        twin::clamp_one_side<T, MAX>(#NAME, dst, src, scalar, calCount, TWIN_LOC_ARGS);                       \
    }                                                                                                         \
    template <class T, bool isReuseSource = false>                                                            \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const T scalar, const uint32_t calCount, \
                     TWIN_LOC) {                                                                              \
        twin::clamp_one_side<T, MAX>(#NAME, dst, src, scalar, calCount, TWIN_LOC_ARGS);                       \
    }
TWIN_CLAMP(ClampMin, false)
TWIN_CLAMP(ClampMax, true)
#undef TWIN_CLAMP

TWIN_UNARY_HL(Log, twin::m_log(x))
TWIN_UNARY_HL(Log2, twin::m_log2(x))
TWIN_UNARY_HL(Log10, twin::m_log10(x))
TWIN_UNARY_HL(Tanh, twin::m_tanh(x))
TWIN_UNARY_HL(Sin, twin::m_sin(x))
TWIN_UNARY_HL(Cos, twin::m_cos(x))
TWIN_UNARY_HL(Erf, twin::m_erf(x))
TWIN_UNARY_HL(Sigmoid, twin::sigmoid_steps<T>(x))
TWIN_UNARY_HL(Floor, (decltype(x))twin::m_floor((double)x))
TWIN_UNARY_HL(Ceil, (decltype(x))twin::m_ceil((double)x))
TWIN_UNARY_HL(Round, (decltype(x))twin::m_round((double)x))
TWIN_UNARY_HL(Trunc, (decltype(x))twin::m_trunc((double)x))
TWIN_UNARY_HL(Frac, (x - (decltype(x))twin::m_trunc((double)x)))
TWIN_UNARY_HL(Sign, (decltype(x))(x > 0 ? 1 : (x < 0 ? -1 : 0)))
// Trigonometric and hyperbolic high-level APIs (asc-devkit docs, "math" high-level APIs: Acos,
// Asin, Atan, Sinh, Cosh, Tan, Asinh, Acosh, Atanh, Erfc), elementwise in float.
TWIN_UNARY_HL(Acos, twin::m_acos((float)x))
TWIN_UNARY_HL(Asin, twin::m_asin((float)x))
TWIN_UNARY_HL(Atan, twin::m_atan((float)x))
TWIN_UNARY_HL(Sinh, twin::m_sinh((float)x))
TWIN_UNARY_HL(Cosh, twin::m_cosh((float)x))

// ---- Xor, the high-level API (asc-devkit docs, 高阶API/数学计算/Xor接口/Xor.md): dst = src0 ^ src1 per
// element, int16_t / uint16_t, computed as (x | y) & ~(x & y) (the page's formula; the model costs those
// four instructions); with or without a shared tmp buffer (the twin needs none), over calCount elements or
// the whole tensors.
template <class T, bool isReuseSource = false>
inline void Xor(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1,
                const uint32_t calCount, TWIN_LOC) {
    static_assert(std::is_same<T, int16_t>::value || std::is_same<T, uint16_t>::value,
                  "Xor takes int16_t or uint16_t (asc-devkit Xor.md)");
    twin::vbin("Xor", dst, src0, src1, calCount, [](twin::calc_t<T> a, twin::calc_t<T> b) { return (twin::calc_t<T>)(a ^ b); },
               TWIN_LOC_ARGS);
}
template <class T, bool isReuseSource = false>
inline void Xor(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1,
                const LocalTensor<uint8_t> &, const uint32_t calCount, TWIN_LOC) {
    Xor<T, isReuseSource>(dst, src0, src1, calCount, TWIN_LOC_ARGS);
}
template <class T, bool isReuseSource = false>
inline void Xor(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1,
                const LocalTensor<uint8_t> &, TWIN_LOC) {
    Xor<T, isReuseSource>(dst, src0, src1, (uint32_t)src0.GetSize(), TWIN_LOC_ARGS);
}
template <class T, bool isReuseSource = false>
inline void Xor(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1, TWIN_LOC) {
    Xor<T, isReuseSource>(dst, src0, src1, (uint32_t)src0.GetSize(), TWIN_LOC_ARGS);
}
TWIN_UNARY_HL(Tan, twin::m_tan((float)x))
TWIN_UNARY_HL(Asinh, twin::m_asinh((float)x))
TWIN_UNARY_HL(Acosh, twin::m_acosh((float)x))
TWIN_UNARY_HL(Atanh, twin::m_atanh((float)x))
TWIN_UNARY_HL(Erfc, twin::m_erfc((float)x))
#undef TWIN_UNARY_HL

// ---------------------------------------------------------------------------------------------
// Tensor-scalar ops (scalar converted to T first).
// ---------------------------------------------------------------------------------------------
#define TWIN_SCALAR(NAME, EXPR)                                                                              \
    template <class T, class U>                                                                               \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const U &scalarValue, const int32_t &calCount, TWIN_LOC) { \
        const auto s = twin::up((T)scalarValue);                                                              \
        twin::vun(#NAME, dst, src, calCount, [s](T x0) { auto x = twin::up(x0); return (twin::calc_t<T>)(EXPR); }, TWIN_LOC_ARGS); \
    }                                                                                                         \
    template <class T, class U, bool isSetMask = true>                                                        \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const U &scalarValue, uint64_t mask, \
                     const uint8_t repeatTimes, const UnaryRepeatParams &p, TWIN_LOC) {                       \
        const auto s = twin::up((T)scalarValue);                                                              \
        twin::vun0(#NAME, dst, src, twin::mask_cont(mask, isSetMask), repeatTimes, p,                         \
                   [s](T x0) { auto x = twin::up(x0); return (twin::calc_t<T>)(EXPR); }, TWIN_LOC_ARGS);      \
    }                                                                                                         \
    template <class T, class U, bool isSetMask = true>                                                        \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const U &scalarValue, const uint64_t mask[], \
                     const uint8_t repeatTimes, const UnaryRepeatParams &p, TWIN_LOC) {                       \
        const auto s = twin::up((T)scalarValue);                                                              \
        twin::vun0(#NAME, dst, src, twin::mask_bits(mask, isSetMask), repeatTimes, p,                         \
                   [s](T x0) { auto x = twin::up(x0); return (twin::calc_t<T>)(EXPR); }, TWIN_LOC_ARGS);      \
    }                                                                                                         \
    /* the pages' older form, <T, isSetMask> with the scalar of type T (`Muls<float, false>(...)`) */         \
    template <class T, bool isSetMask = true>                                                                 \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const T &scalarValue, const int32_t &calCount, TWIN_LOC) { \
        NAME<T, T>(dst, src, scalarValue, calCount, TWIN_LOC_ARGS);                                           \
    }                                                                                                         \
    template <class T, bool isSetMask = true>                                                                 \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const T &scalarValue, uint64_t mask, \
                     const uint8_t repeatTimes, const UnaryRepeatParams &p, TWIN_LOC) {                       \
        NAME<T, T, isSetMask>(dst, src, scalarValue, mask, repeatTimes, p, TWIN_LOC_ARGS);                    \
    }                                                                                                         \
    template <class T, bool isSetMask = true>                                                                 \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const T &scalarValue, const uint64_t mask[], \
                     const uint8_t repeatTimes, const UnaryRepeatParams &p, TWIN_LOC) {                       \
        NAME<T, T, isSetMask>(dst, src, scalarValue, mask, repeatTimes, p, TWIN_LOC_ARGS);                    \
    }

TWIN_SCALAR(Adds, x + s)
TWIN_SCALAR(Muls, x * s)
TWIN_SCALAR(Maxs, (x > s ? x : s))
TWIN_SCALAR(Mins, (x < s ? x : s))
TWIN_SCALAR(LeakyRelu, (x >= 0 ? x : x * s))
TWIN_SCALAR(ShiftLeft, (x << s))
TWIN_SCALAR(ShiftRight, (x >> s))
#undef TWIN_SCALAR

// Duplicate: fill with a scalar.
template <class T, class U> inline void Duplicate(const LocalTensor<T> &dst, const U &scalarValue, const int32_t &calCount, TWIN_LOC) {
    twin::vcheck(calCount, "Duplicate", TWIN_LOC_ARGS);
    uint8_t *pd = twin::vspan(dst, calCount, "Duplicate", TWIN_LOC_ARGS);
    const T v = (T)scalarValue;
    for (int32_t i = 0; i < calCount; i++) twin::st<T>(pd + i * sizeof(T), v);
    twin::tr_vec("Duplicate", sizeof(T), calCount, twin::vec_rep(calCount, sizeof(T)), twin_line);
}
// Duplicate(dst, src, count): dst[i] = src[0], the lowest element of a tensor (asc-devkit
// include/basic_api/kernel_operator_vec_duplicate_intf.h, "Duplicate lowest position of src", declared for
// dav-3510 and 5102; the twin has it on every architecture). cann-samples' rms_norm_quant_story spreads a
// reduction's result over a row with it.
template <class T> inline void Duplicate(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t &calCount, TWIN_LOC) {
    twin::vcheck(calCount, "Duplicate", TWIN_LOC_ARGS);
    const T v = twin::ld<T>(twin::vspan(src, 1, "Duplicate", TWIN_LOC_ARGS));
    uint8_t *pd = twin::vspan(dst, calCount, "Duplicate", TWIN_LOC_ARGS);
    for (int32_t i = 0; i < calCount; i++) twin::st<T>(pd + i * sizeof(T), v);
    twin::tr_vec("Duplicate", sizeof(T), calCount, twin::vec_rep(calCount, sizeof(T)), twin_line);
}
// The mask forms' template is the documented `<typename T, bool isSetMask = true>` (ops-nn's add_layer_norm
// calls `Duplicate<int16_t, false>(...)`); the scalar's own type follows, deduced.
template <class T, bool isSetMask = true, class U = T>
inline void Duplicate(const LocalTensor<T> &dst, const U &scalarValue, uint64_t mask, const uint8_t repeatTimes,
                      const uint16_t dstBlockStride, const uint8_t dstRepeatStride, TWIN_LOC) {
    const T v = (T)scalarValue;
    UnaryRepeatParams p(dstBlockStride, 1, dstRepeatStride, 8);
    twin::vun0("Duplicate", dst, dst, twin::mask_cont(mask, isSetMask), repeatTimes, p, [v](T) { return v; }, TWIN_LOC_ARGS);
}
template <class T, bool isSetMask = true, class U = T>
inline void Duplicate(const LocalTensor<T> &dst, const U &scalarValue, const uint64_t mask[], const uint8_t repeatTimes,
                      const uint16_t dstBlockStride, const uint8_t dstRepeatStride, TWIN_LOC) {
    const T v = (T)scalarValue;
    UnaryRepeatParams p(dstBlockStride, 1, dstRepeatStride, 8);
    twin::vun0("Duplicate", dst, dst, twin::mask_bits(mask, isSetMask), repeatTimes, p, [v](T) { return v; }, TWIN_LOC_ARGS);
}

// Cast between element types with a RoundMode (asc-devkit docs, Cast).
template <class D, class S>
inline void Cast(const LocalTensor<D> &dst, const LocalTensor<S> &src, const RoundMode &mode, const uint32_t calCount, TWIN_LOC) {
    RoundMode m = mode;
    if constexpr (std::is_same<D, int4b_t>::value) {
        // To int4b_t: rounded with the mode (CAST_NONE as CAST_RINT), held to [-8, 7] (the twin's
        // choice: the page gives no overflow rule), packed low nibble first.
        const uint8_t *ps = twin::vspan(src, calCount, "Cast", TWIN_LOC_ARGS);
        uint8_t *pd = twin::ub_span(dst.addr_, ((uint64_t)calCount + 1) / 2, "Cast", TWIN_LOC_ARGS);
        for (uint32_t i = 0; i < calCount; i++) {
            double r = twin::rnd_int((double)twin::up(twin::ld<S>(ps + (uint64_t)i * sizeof(S))), m);
            r = r < -8 ? -8 : r > 7 ? 7 : r;
            uint8_t nib = (uint8_t)((int)r & 0xF);
            uint8_t &b = pd[i / 2];
            b = (i % 2 == 0) ? (uint8_t)((b & 0xF0) | nib) : (uint8_t)((b & 0x0F) | (nib << 4));
        }
        twin::tr_vec("Cast", sizeof(S), calCount, twin::vec_rep(calCount, sizeof(S)), twin_line, 1);
    } else {
        twin::vun("Cast", dst, src, calCount, [m](S x) { return twin::cast_one<D, S>(x, m); }, TWIN_LOC_ARGS, (int)sizeof(D));
    }
}
template <class D, class S, bool isSetMask = true>
inline void Cast(const LocalTensor<D> &dst, const LocalTensor<S> &src, const RoundMode &mode, uint64_t mask,
                 const uint8_t repeatTimes, const UnaryRepeatParams &p, TWIN_LOC) {
    RoundMode m = mode;
    twin::vun0("Cast", dst, src, twin::mask_cont(mask, isSetMask), repeatTimes, p, [m](S x) { return twin::cast_one<D, S>(x, m); },
               TWIN_LOC_ARGS, (int)sizeof(D));
}
template <class D, class S, bool isSetMask = true>
inline void Cast(const LocalTensor<D> &dst, const LocalTensor<S> &src, const RoundMode &mode, const uint64_t mask[],
                 const uint8_t repeatTimes, const UnaryRepeatParams &p, TWIN_LOC) {
    RoundMode m = mode;
    twin::vun0("Cast", dst, src, twin::mask_bits(mask, isSetMask), repeatTimes, p, [m](S x) { return twin::cast_one<D, S>(x, m); },
               TWIN_LOC_ARGS, (int)sizeof(D));
}
// SetDeqScale (asc-devkit docs atlasascendc_api_07_0099): the half form scales Cast int32 -> half;
// the CastDeq forms (float scale / offset / sign, vector deq tensor) are accepted and recorded only.
inline void SetDeqScale(half scale) { twin::g.deq_scale = (float)scale; twin::g.deq_set = true; }
inline void SetDeqScale(float scale, int16_t, bool) { twin::g.deq_scale = scale; twin::g.deq_set = false; }
// Scalar cast helpers.
template <class S, class D, RoundMode mode> inline D Cast(S v) { return twin::cast_one<D, S>(v, mode); }
template <class S, class D, RoundMode mode> inline D ScalarCast(S v) { return twin::cast_one<D, S>(v, mode); }
// GetScalarBitcodeValue: a scalar's bits, not its value (the padding value DataCopyPad's registers take:
// ops-cv's grid_sampler2_d_grad writes `padParams.paddingValue = GetScalarBitcodeValue((T)0)`). One type:
// the bits as a uint64_t, zero above the scalar's own bytes; two types <S, D>: S's bits read as D (as
// asc-devkit's basic_api limits header makes a half's largest value from 0x7BFF), bytes past the
// smaller of the two zero.
template <class T> inline uint64_t GetScalarBitcodeValue(T v) {
    static_assert(sizeof(T) <= sizeof(uint64_t), "GetScalarBitcodeValue: a scalar of at most 8 bytes");
    uint64_t out = 0;
    std::memcpy(&out, &v, sizeof(T));
    return out;
}
template <class S, class D> inline D GetScalarBitcodeValue(S v) {
    unsigned char bytes[sizeof(S) > sizeof(D) ? sizeof(S) : sizeof(D)] = {};
    std::memcpy(bytes, &v, sizeof(S));
    D out;
    std::memcpy(&out, bytes, sizeof(D));
    return out;
}

// Axpy: dst = src * scalar + dst (dst may be wider than src).
template <class D, class S, class U>
inline void Axpy(const LocalTensor<D> &dst, const LocalTensor<S> &src, const U scalarValue, const int32_t &calCount, TWIN_LOC) {
    twin::vcheck(calCount, "Axpy", TWIN_LOC_ARGS);
    uint8_t *pd = twin::vspan(dst, calCount, "Axpy", TWIN_LOC_ARGS);
    const uint8_t *ps = twin::vspan(src, calCount, "Axpy", TWIN_LOC_ARGS);
    float s = (float)twin::up((S)scalarValue);
    for (int32_t i = 0; i < calCount; i++) {
        float r = (float)twin::up(twin::ld<S>(ps + i * sizeof(S))) * s + (float)twin::up(twin::ld<D>(pd + i * sizeof(D)));
        twin::st<D>(pd + i * sizeof(D), (D)r);
    }
    twin::tr_vec("Axpy", sizeof(S), calCount, twin::vec_rep(calCount, sizeof(S)), twin_line);
}

// Copy (UB -> UB on the vector pipe).
struct CopyRepeatParams {
    uint16_t dstStride = 1, srcStride = 1, dstRepeatSize = 8, srcRepeatSize = 8;
    CopyRepeatParams() = default;
    CopyRepeatParams(uint16_t ds, uint16_t ss, uint16_t dr, uint16_t sr) : dstStride(ds), srcStride(ss), dstRepeatSize(dr), srcRepeatSize(sr) {}
};
template <class T> inline void Copy(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t &calCount, TWIN_LOC) {
    twin::vun("Copy", dst, src, calCount, [](T x) { return x; }, TWIN_LOC_ARGS);
}
template <class T, bool isSetMask = true>
inline void Copy(const LocalTensor<T> &dst, const LocalTensor<T> &src, uint64_t mask, const uint8_t repeatTimes,
                 const CopyRepeatParams &p, TWIN_LOC) {
    UnaryRepeatParams u(p.dstStride, p.srcStride, (uint8_t)p.dstRepeatSize, (uint8_t)p.srcRepeatSize);
    twin::vun0("Copy", dst, src, twin::mask_cont(mask, isSetMask), repeatTimes, u, [](T x) { return x; }, TWIN_LOC_ARGS);
}

// ---------------------------------------------------------------------------------------------
// Compare / Select (bit masks: bit i of the uint8 mask tensor belongs to element i, LSB first).
// ---------------------------------------------------------------------------------------------
namespace twin_cmp {
template <class C> inline bool cmp(C a, C b, CMPMODE m) {
    switch (m) {
    case CMPMODE::LT: return a < b; case CMPMODE::GT: return a > b; case CMPMODE::EQ: return a == b;
    case CMPMODE::LE: return a <= b; case CMPMODE::GE: return a >= b; default: return a != b;
    }
}
} // namespace twin_cmp

// Template order as documented (Compare / CompareScalar: source type T, then mask type U).
template <class T, class U>
inline void Compare(const LocalTensor<U> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1, CMPMODE mode,
                    uint32_t calCount, TWIN_LOC) {
    const uint8_t *pa = twin::vspan(src0, calCount, "Compare", TWIN_LOC_ARGS);
    const uint8_t *pb = twin::vspan(src1, calCount, "Compare", TWIN_LOC_ARGS);
    uint8_t *pd = twin::ub_span(dst.addr_, (calCount + 7) / 8, "Compare", TWIN_LOC_ARGS);
    for (uint32_t i = 0; i < calCount; i += 8) {
        uint8_t byte = 0;
        for (uint32_t k = 0; k < 8 && i + k < calCount; k++)
            if (twin_cmp::cmp(twin::up(twin::ld<T>(pa + (i + k) * sizeof(T))), twin::up(twin::ld<T>(pb + (i + k) * sizeof(T))), mode))
                byte |= (uint8_t)(1u << k);
        pd[i / 8] = byte;
    }
    twin::tr_vec("Compare", sizeof(T), calCount, twin::vec_rep(calCount, sizeof(T)), twin_line);
}
namespace twin_cmp {
template <class T, class U>
inline void cmp_scalar(const char *api, const AscendC::LocalTensor<U> &dst, const AscendC::LocalTensor<T> &src0, T scalar,
                       AscendC::CMPMODE mode, uint32_t calCount, TWIN_LOC_DECL) {
    const uint8_t *pa = twin::vspan(src0, calCount, api, TWIN_LOC_ARGS);
    uint8_t *pd = twin::ub_span(dst.addr_, (calCount + 7) / 8, api, TWIN_LOC_ARGS);
    auto s = twin::up(scalar);
    for (uint32_t i = 0; i < calCount; i += 8) {
        uint8_t byte = 0;
        for (uint32_t k = 0; k < 8 && i + k < calCount; k++)
            if (cmp(twin::up(twin::ld<T>(pa + (i + k) * sizeof(T))), s, mode)) byte |= (uint8_t)(1u << k);
        pd[i / 8] = byte;
    }
    twin::tr_vec(api, sizeof(T), calCount, twin::vec_rep(calCount, sizeof(T)), twin_line);
}
} // namespace twin_cmp
template <class T, class U, class S = T>
inline void CompareScalar(const LocalTensor<U> &dst, const LocalTensor<T> &src0, const S src1Scalar, CMPMODE mode,
                          uint32_t calCount, TWIN_LOC) {
    twin_cmp::cmp_scalar("CompareScalar", dst, src0, (T)src1Scalar, mode, calCount, TWIN_LOC_ARGS);
}
// Compares, count form (asc-devkit docs/zh/api/SIMD-API/基础API/Memory矢量计算/比较与选择/Compares.md): the
// newer name of CompareScalar, one bit per element of the first count, set where src0[i] <cmpMode> scalar.
template <class T, class U, class S = T>
inline void Compares(const LocalTensor<U> &dst, const LocalTensor<T> &src0, const S src1Scalar, CMPMODE cmpMode,
                     uint32_t count, TWIN_LOC) {
    twin_cmp::cmp_scalar("Compares", dst, src0, (T)src1Scalar, cmpMode, count, TWIN_LOC_ARGS);
}
// Select: bit 1 takes src0, bit 0 takes src1 (or the scalar in VSEL_TENSOR_SCALAR_MODE).
template <class T, class U>
inline void Select(const LocalTensor<T> &dst, const LocalTensor<U> &selMask, const LocalTensor<T> &src0,
                   const LocalTensor<T> &src1, SELMODE mode, uint32_t calCount, TWIN_LOC) {
    uint8_t *pd = twin::vspan(dst, calCount, "Select", TWIN_LOC_ARGS);
    const uint8_t *pa = twin::vspan(src0, calCount, "Select", TWIN_LOC_ARGS);
    const uint8_t *pb = twin::vspan(src1, calCount, "Select", TWIN_LOC_ARGS);
    // VSEL_CMPMASK_SPR (mode 0) applies the first repeat's worth of bits to every repeat; modes 1
    // and 2 read the mask on (asc-devkit docs, Select).
    const uint32_t epr = 256 / sizeof(T);
    const uint32_t mbits = mode == SELMODE::VSEL_CMPMASK_SPR ? (calCount < epr ? calCount : epr) : calCount;
    const uint8_t *pm = twin::ub_span(selMask.addr_, (mbits + 7) / 8, "Select", TWIN_LOC_ARGS);
    for (uint32_t i = 0; i < calCount; i++) {
        uint32_t k = mode == SELMODE::VSEL_CMPMASK_SPR ? i % epr : i;
        bool on = (pm[k / 8] >> (k % 8)) & 1;
        twin::st<T>(pd + i * sizeof(T), twin::ld<T>((on ? pa : pb) + i * sizeof(T)));
    }
    twin::tr_vec("Select", sizeof(T), calCount, twin::vec_rep(calCount, sizeof(T)), twin_line);
}
template <class T, class U, class S, typename std::enable_if<!std::is_same<S, LocalTensor<T>>::value, int>::type = 0>
inline void Select(const LocalTensor<T> &dst, const LocalTensor<U> &selMask, const LocalTensor<T> &src0, S src1Scalar,
                   SELMODE, uint32_t calCount, TWIN_LOC) {
    uint8_t *pd = twin::vspan(dst, calCount, "Select", TWIN_LOC_ARGS);
    const uint8_t *pa = twin::vspan(src0, calCount, "Select", TWIN_LOC_ARGS);
    const uint8_t *pm = twin::ub_span(selMask.addr_, (calCount + 7) / 8, "Select", TWIN_LOC_ARGS);
    const T s = (T)src1Scalar;
    for (uint32_t i = 0; i < calCount; i++) {
        bool on = (pm[i / 8] >> (i % 8)) & 1;
        twin::st<T>(pd + i * sizeof(T), on ? twin::ld<T>(pa + i * sizeof(T)) : s);
    }
    twin::tr_vec("Select", sizeof(T), calCount, twin::vec_rep(calCount, sizeof(T)), twin_line);
}

// ---- Compare / CompareScalar / Select, mask/repeat forms (asc-devkit docs, Compare, CompareScalar,
// Select "tensor high-dimension split"): element j of repeat r (strides as for every level-0 form)
// sets or reads bit r * elements-per-repeat + j of the uint8 mask tensor; Compare clears the bits of
// lanes the mask leaves out. Select mode 0 reads the first repeat's bits for every repeat; lanes the
// mask leaves out keep dst.
namespace twin_sel {
template <class T, class F>
inline void cmp0(const char *api, const LocalTensor<uint8_t> &dst, const twin::L0Mask &m, uint8_t repeat, F lane_true, TWIN_LOC_DECL) {
    const uint32_t epr = 256 / sizeof(T);
    uint64_t reps = m.counter ? (m.m0 + epr - 1) / epr : repeat;
    uint8_t *pd = twin::ub_span(dst.addr_, (reps * epr + 7) / 8, api, TWIN_LOC_ARGS);
    for (uint64_t k = 0; k < (reps * epr + 7) / 8; k++) pd[k] = 0;
    uint64_t n = twin::l0_each(m, repeat, epr, [&](uint64_t r, uint32_t j) {
        if (lane_true(r, j)) { uint64_t b = r * epr + j; pd[b / 8] |= (uint8_t)(1u << (b % 8)); }
    });
    twin::tr_vec(api, sizeof(T), n, m.counter ? twin::vec_rep(n, sizeof(T)) : repeat, twin_line);
}
// src0 <mode> scalar, lane by lane: CompareScalar / Compares, mask/repeat form.
template <class T>
inline void cmps0(const char *api, const LocalTensor<uint8_t> &dst, const LocalTensor<T> &src0, T scalar, CMPMODE mode,
                  const twin::L0Mask &m, uint8_t repeat, const UnaryRepeatParams &p, TWIN_LOC_DECL) {
    const uint32_t sz = sizeof(T);
    const auto s = twin::up(scalar);
    cmp0<T>(api, dst, m, repeat, [&](uint64_t r, uint32_t j) {
        T a = twin::ld<T>(twin::ub_span(twin::l0_addr(src0.addr_, sz, r, j, p.srcBlkStride, p.srcRepStride), sz, api, TWIN_LOC_ARGS));
        return twin_cmp::cmp(twin::up(a), s, mode);
    }, TWIN_LOC_ARGS);
}
} // namespace twin_sel
#define TWIN_CMP0(MASKT, MASKF)                                                                                  \
    template <class T, class U, bool isSetMask = true>                                                           \
    inline void Compare(const LocalTensor<U> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1, CMPMODE mode, \
                        MASKT mask, uint8_t repeatTimes, const BinaryRepeatParams &p, TWIN_LOC) {                 \
        const uint32_t sz = sizeof(T);                                                                           \
        twin_sel::cmp0<T>("Compare", dst.template ReinterpretCast<uint8_t>(), MASKF(mask, isSetMask), repeatTimes,  \
            [&](uint64_t r, uint32_t j) {                                                                        \
                T a = twin::ld<T>(twin::ub_span(twin::l0_addr(src0.addr_, sz, r, j, p.src0BlkStride, p.src0RepStride), sz, "Compare", TWIN_LOC_ARGS)); \
                T b = twin::ld<T>(twin::ub_span(twin::l0_addr(src1.addr_, sz, r, j, p.src1BlkStride, p.src1RepStride), sz, "Compare", TWIN_LOC_ARGS)); \
                return twin_cmp::cmp(twin::up(a), twin::up(b), mode);                                            \
            }, TWIN_LOC_ARGS);                                                                                   \
    }                                                                                                            \
    template <class T, class U, bool isSetMask = true, class S>                                                  \
    inline void CompareScalar(const LocalTensor<U> &dst, const LocalTensor<T> &src0, const S src1Scalar, CMPMODE mode, \
                              MASKT mask, uint8_t repeatTimes, const UnaryRepeatParams &p, TWIN_LOC) {            \
        twin_sel::cmps0<T>("CompareScalar", dst.template ReinterpretCast<uint8_t>(), src0, (T)src1Scalar, mode,  \
                           MASKF(mask, isSetMask), repeatTimes, p, TWIN_LOC_ARGS);                               \
    }                                                                                                            \
    /* Compares: CompareScalar's newer name, the same mask/repeat form (Compares.md) */                          \
    template <class T, class U, bool isSetMask = true, class S>                                                  \
    inline void Compares(const LocalTensor<U> &dst, const LocalTensor<T> &src0, const S src1Scalar, CMPMODE mode, \
                         MASKT mask, uint8_t repeatTimes, const UnaryRepeatParams &p, TWIN_LOC) {                 \
        twin_sel::cmps0<T>("Compares", dst.template ReinterpretCast<uint8_t>(), src0, (T)src1Scalar, mode,       \
                           MASKF(mask, isSetMask), repeatTimes, p, TWIN_LOC_ARGS);                               \
    }
TWIN_CMP0(uint64_t, twin::mask_cont)
TWIN_CMP0(const uint64_t *, twin::mask_bits)
#undef TWIN_CMP0

// ---- the CmpMask register (asc-devkit docs, 比较与选择/: Compare（结果存入寄存器）, Select without a
// mask, SetCmpMask(ISASI), GetCmpMask(ISASI)): Compare's register form compares one repeat (256 B) and
// leaves the bit of each lane in the 128-bit register (0 for lanes the mask leaves out); Select without
// a mask reads its selMask there in VSEL_CMPMASK_SPR mode (the same bits for every repeat) and takes
// its lanes from the vector mask register, which an isSetMask API leaves set on the device (the
// twin keeps it for this pair only: the Compare sets it, in normal mask mode). SetCmpMask loads the
// register from UB (mode 0's selMask), GetCmpMask stores it. Modes 1 and 2 of the register Select
// (a scalar tensor, a selMask address in the register) are not emulated: a clear fault.
namespace twin_sel {
template <class T>
inline void cmp_reg(const LocalTensor<T> &src0, const LocalTensor<T> &src1, CMPMODE mode, const twin::L0Mask &m, bool set,
                    const BinaryRepeatParams &p, TWIN_LOC_DECL) {
    const uint32_t sz = sizeof(T), epr = 256 / sz;
    uint64_t bits[2] = {0, 0};
    uint64_t n = twin::l0_each(m, 1, epr, [&](uint64_t r, uint32_t j) {
        if (r > 0) return;
        T a = twin::ld<T>(twin::ub_span(twin::l0_addr(src0.addr_, sz, 0, j, p.src0BlkStride, p.src0RepStride), sz, "Compare", TWIN_LOC_ARGS));
        T b = twin::ld<T>(twin::ub_span(twin::l0_addr(src1.addr_, sz, 0, j, p.src1BlkStride, p.src1RepStride), sz, "Compare", TWIN_LOC_ARGS));
        if (twin_cmp::cmp(twin::up(a), twin::up(b), mode)) bits[j / 64] |= 1ull << (j % 64);
    });
    twin::g.cmp_mask[0] = bits[0];
    twin::g.cmp_mask[1] = bits[1];
    if (set && !twin::g.mask_counter) {
        twin::g.mask0 = m.m0;
        twin::g.mask1 = m.m1;
    }
    twin::tr_vec("Compare", sz, n < epr ? n : epr, 1, twin_line);
}
} // namespace twin_sel
template <class T, bool isSetMask = true>
inline void Compare(const LocalTensor<T> &src0, const LocalTensor<T> &src1, CMPMODE cmpMode, const uint64_t mask,
                    const BinaryRepeatParams &p, TWIN_LOC) {
    twin_sel::cmp_reg(src0, src1, cmpMode, twin::mask_cont(mask, isSetMask), isSetMask, p, TWIN_LOC_ARGS);
}
template <class T, bool isSetMask = true>
inline void Compare(const LocalTensor<T> &src0, const LocalTensor<T> &src1, CMPMODE cmpMode, const uint64_t mask[],
                    const BinaryRepeatParams &p, TWIN_LOC) {
    twin_sel::cmp_reg(src0, src1, cmpMode, twin::mask_bits(mask, isSetMask), isSetMask, p, TWIN_LOC_ARGS);
}
template <class T> inline void SetCmpMask(const LocalTensor<T> &src, TWIN_LOC) {
    const uint8_t *ps = twin::ub_span(src.addr_, 16, "SetCmpMask", TWIN_LOC_ARGS);
    __builtin_memcpy(twin::g.cmp_mask, ps, 16);
}
template <class T> inline void GetCmpMask(const LocalTensor<T> &dst, TWIN_LOC) {
    uint8_t *pd = twin::ub_span(dst.addr_, 16, "GetCmpMask", TWIN_LOC_ARGS);
    __builtin_memcpy(pd, twin::g.cmp_mask, 16);
}
template <class T, SELMODE selMode>
inline void Select(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1, uint8_t repeatTime,
                   const BinaryRepeatParams &p, TWIN_LOC) {
    if (selMode != SELMODE::VSEL_CMPMASK_SPR)
        twin::fault(twin_file, twin_line,
                    "Select without a mask in mode %d: the twin emulates mode 0 (VSEL_CMPMASK_SPR) only", (int)selMode);
    const uint32_t sz = sizeof(T), epr = 256 / sz;
    const twin::L0Mask m = twin::mask_cont(0, false);
    uint64_t n = twin::l0_each(m, repeatTime, epr, [&](uint64_t r, uint32_t j) {
        bool on = (twin::g.cmp_mask[j / 64] >> (j % 64)) & 1;
        const LocalTensor<T> &from = on ? src0 : src1;
        uint32_t blk = on ? p.src0BlkStride : p.src1BlkStride, rep = on ? p.src0RepStride : p.src1RepStride;
        T v = twin::ld<T>(twin::ub_span(twin::l0_addr(from.addr_, sz, r, j, blk, rep), sz, "Select", TWIN_LOC_ARGS));
        twin::st<T>(twin::ub_span(twin::l0_addr(dst.addr_, sz, r, j, p.dstBlkStride, p.dstRepStride), sz, "Select", TWIN_LOC_ARGS), v);
    });
    twin::tr_vec("Select", sz, n, m.counter ? twin::vec_rep(n, sz) : repeatTime, twin_line);
}

namespace twin_sel {
template <class T, class U, class B>
inline void sel0(const LocalTensor<T> &dst, const LocalTensor<U> &selMask, const LocalTensor<T> &src0, SELMODE mode,
                 const twin::L0Mask &m, uint8_t repeat, const BinaryRepeatParams &p, B src1_at, TWIN_LOC_DECL) {
    const uint32_t sz = sizeof(T), epr = 256 / sz;
    const uint64_t reps = m.counter ? (m.m0 + epr - 1) / epr : repeat;
    const uint64_t mbits = mode == SELMODE::VSEL_CMPMASK_SPR ? epr : reps * epr;
    const uint8_t *pm = twin::ub_span(selMask.addr_, (mbits + 7) / 8, "Select", TWIN_LOC_ARGS);
    uint64_t n = twin::l0_each(m, repeat, epr, [&](uint64_t r, uint32_t j) {
        uint64_t k = mode == SELMODE::VSEL_CMPMASK_SPR ? j : r * epr + j;
        bool on = (pm[k / 8] >> (k % 8)) & 1;
        T a = twin::ld<T>(twin::ub_span(twin::l0_addr(src0.addr_, sz, r, j, p.src0BlkStride, p.src0RepStride), sz, "Select", TWIN_LOC_ARGS));
        T v = on ? a : src1_at(r, j);
        twin::st<T>(twin::ub_span(twin::l0_addr(dst.addr_, sz, r, j, p.dstBlkStride, p.dstRepStride), sz, "Select", TWIN_LOC_ARGS), v);
    });
    twin::tr_vec("Select", sz, n, m.counter ? twin::vec_rep(n, sz) : repeat, twin_line);
}
} // namespace twin_sel
#define TWIN_SEL0(MASKT, MASKF)                                                                                  \
    template <class T, class U, bool isSetMask = true>                                                           \
    inline void Select(const LocalTensor<T> &dst, const LocalTensor<U> &selMask, const LocalTensor<T> &src0,     \
                       const LocalTensor<T> &src1, SELMODE mode, MASKT mask, uint8_t repeatTimes,                \
                       const BinaryRepeatParams &p, TWIN_LOC) {                                                  \
        const uint32_t sz = sizeof(T);                                                                           \
        twin_sel::sel0(dst, selMask, src0, mode, MASKF(mask, isSetMask), repeatTimes, p, [&](uint64_t r, uint32_t j) { \
            return twin::ld<T>(twin::ub_span(twin::l0_addr(src1.addr_, sz, r, j, p.src1BlkStride, p.src1RepStride), sz, "Select", TWIN_LOC_ARGS)); \
        }, TWIN_LOC_ARGS);                                                                                       \
    }                                                                                                            \
    template <class T, class U, bool isSetMask = true, class S,                                                  \
              typename std::enable_if<!std::is_same<S, LocalTensor<T>>::value, int>::type = 0>                  \
    inline void Select(const LocalTensor<T> &dst, const LocalTensor<U> &selMask, const LocalTensor<T> &src0,     \
                       S src1Scalar, SELMODE mode, MASKT mask, uint8_t repeatTimes, const BinaryRepeatParams &p, TWIN_LOC) { \
        const T s = (T)src1Scalar;                                                                               \
        twin_sel::sel0(dst, selMask, src0, mode, MASKF(mask, isSetMask), repeatTimes, p,                         \
                       [s](uint64_t, uint32_t) { return s; }, TWIN_LOC_ARGS);                                     \
    }
TWIN_SEL0(uint64_t, twin::mask_cont)
TWIN_SEL0(const uint64_t *, twin::mask_bits)
#undef TWIN_SEL0

// ---------------------------------------------------------------------------------------------
// Reductions (asc-devkit docs, ReduceSum / ReduceMax / ReduceMin, atlasascendc_api_07_0078..0080):
// sums are binary trees of pairwise additions, each rounded to T; for half a finite sum above
// 65504 is kept as +-65504. The count form ("tensor first n elements") sums each 256-byte repeat as
// a tree and adds the repeat sums in order; the mask/repeat form ("high-dimension split") sums the
// repeat sums as a tree too. Result in dst[0]; ReduceMax/Min with calIndex put the index of the
// (first) extreme element in dst[1], as the integer bit pattern of T's width.
// ---------------------------------------------------------------------------------------------
namespace twin_red {
template <class T> inline void put(const LocalTensor<T> &dst, uint32_t k, T v, const char *api, TWIN_LOC_DECL) {
    twin::st<T>(twin::ub_span(dst.addr_ + (uint64_t)k * sizeof(T), sizeof(T), api, TWIN_LOC_ARGS), v);
}
template <class T> inline void put_index(const LocalTensor<T> &dst, uint32_t idx, const char *api, TWIN_LOC_DECL) {
    uint8_t *p = twin::ub_span(dst.addr_ + sizeof(T), sizeof(T), api, TWIN_LOC_ARGS);
    if (sizeof(T) == 2) twin::st<uint16_t>(p, (uint16_t)idx);
    else twin::st<uint32_t>(p, idx);
}
// One element of repeat r, lane j of a level-0 operand (src block stride 1).
template <class T> inline T lane(const LocalTensor<T> &src, uint64_t r, uint32_t j, int32_t repStride, const char *api, TWIN_LOC_DECL) {
    return twin::ld<T>(twin::ub_span(twin::l0_addr(src.addr_, sizeof(T), r, j, 1, (uint32_t)repStride), sizeof(T), api, TWIN_LOC_ARGS));
}
// The accumulator register of the count form (asc-devkit docs, GetReduceRepeatSumSpr(ISASI): "the result
// of ReduceSum's tensor-first-n-elements form, kept in a global register, readable at any time"): its bit
// pattern in the low sizeof(T) bytes, the rest zero, as the untyped GetAccVal() hands it out.
// The count form's sum of `count` elements at `ps`: each 256-byte repeat a tree, the repeat sums added
// in order (ReduceSum's count form, and each row of Sum).
template <class T> inline T count_sum(const uint8_t *ps, int32_t count) {
    const int32_t epr = 256 / (int32_t)sizeof(T);
    T acc = T(0);
    T lanes[128];
    for (int32_t r = 0; r * epr < count; r++) {
        for (int32_t j = 0; j < epr; j++)
            lanes[j] = r * epr + j < count ? twin::ld<T>(ps + (uint64_t)(r * epr + j) * sizeof(T)) : T(0);
        T part = twin::tree_sum(lanes, (uint32_t)epr);
        acc = r == 0 ? part : twin::red_add(acc, part);
    }
    return acc;
}
template <class T> inline void set_acc(T v) {
    static_assert(sizeof(T) <= sizeof(uint64_t), "accumulator holds at most 64 bits");
    uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof(T));
    twin::g.acc_val = bits;
}
} // namespace twin_red

template <class T>
inline void ReduceSum(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<T> &, const int32_t count, TWIN_LOC) {
    twin::vcheck(count, "ReduceSum", TWIN_LOC_ARGS);
    const T acc = twin_red::count_sum<T>(twin::vspan(src, count, "ReduceSum", TWIN_LOC_ARGS), count);
    twin_red::put(dst, 0, acc, "ReduceSum", TWIN_LOC_ARGS);
    twin_red::set_acc(acc);
    twin::tr_vec("ReduceSum", sizeof(T), count, twin::vec_rep(count, sizeof(T)), twin_line);
}

// Sum, the high-level API (asc-devkit docs, 高阶API/归约操作/Sum接口/Sum.md): the sum of each of `outter`
// rows of `n` elements stored `inner` apart (n padded to 32 bytes), into dst[0..outter); the page says
// its additions are ReduceSum's binary tree, so each row is summed as the count form above sums.
struct SumParams {
    uint32_t outter = 1;
    uint32_t inner;
    uint32_t n;
};
template <class T, int32_t reduceDim = -1, bool isReuseSource = false, bool isBasicBlock = false>
inline void Sum(const LocalTensor<T> &dst, const LocalTensor<T> &src, const SumParams &p, TWIN_LOC) {
    static_assert(std::is_same<T, half>::value || std::is_same<T, float>::value, "Sum takes half or float (Sum.md)");
    if (p.n < 1 || p.n > p.inner || (p.inner * sizeof(T)) % 32 != 0)
        twin::fault(twin_file, twin_line,
                    "Sum: SumParams {outter %u, inner %u, n %u}: needs 1 <= n <= inner and inner * sizeof(T) a "
                    "multiple of 32 bytes (asc-devkit Sum.md)",
                    p.outter, p.inner, p.n);
    for (uint32_t row = 0; row < p.outter; row++) {
        const uint8_t *ps = twin::vspan(src[row * p.inner], p.n, "Sum", TWIN_LOC_ARGS);
        twin_red::put(dst, row, twin_red::count_sum<T>(ps, (int32_t)p.n), "Sum", TWIN_LOC_ARGS);
    }
    twin::tr_vec("Sum", sizeof(T), (int64_t)p.outter * p.inner, twin::vec_rep((int64_t)p.outter * p.inner, sizeof(T)), twin_line);
}
template <class T, int32_t reduceDim = -1, bool isReuseSource = false, bool isBasicBlock = false>
inline void Sum(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<uint8_t> &, const SumParams &p,
                TWIN_LOC) {
    Sum<T, reduceDim, isReuseSource, isBasicBlock>(dst, src, p, TWIN_LOC_ARGS);
}
template <class T>
inline void twin_reduce_sum0(const LocalTensor<T> &dst, const LocalTensor<T> &src, const twin::L0Mask &m, int32_t repeat,
                             int32_t srcRepStride, TWIN_LOC_DECL) {
    const char *api = "ReduceSum";
    const uint32_t epr = 256 / sizeof(T);
    if (repeat < 0 || repeat > 255) twin::fault(twin_file, twin_line, "%s: repeatTimes %d out of range 0..255", api, repeat);
    int32_t reps = m.counter ? (int32_t)((m.m0 + epr - 1) / epr) : repeat;
    if (reps > 255) reps = 255;
    static thread_local T lanes[255 * 128];
    T parts[256];
    for (uint32_t i = 0; i < (uint32_t)reps * epr; i++) lanes[i] = T(0);
    uint64_t n = twin::l0_each(m, (uint64_t)reps, epr, [&](uint64_t r, uint32_t j) {
        if (r < 255) lanes[r * epr + j] = twin_red::lane(src, r, j, srcRepStride, api, TWIN_LOC_ARGS);
    });
    for (int32_t r = 0; r < reps; r++) parts[r] = twin::tree_sum(lanes + (uint64_t)r * epr, epr);
    T total = reps > 0 ? twin::tree_sum(parts, (uint32_t)reps) : T(0);
    twin_red::put(dst, 0, total, api, TWIN_LOC_ARGS);
    twin::tr_vec(api, sizeof(T), n, (uint64_t)reps, twin_line);
}
template <class T, bool isSetMask = true>
inline void ReduceSum(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<T> &, const int32_t mask,
                      const int32_t repeatTimes, const int32_t srcRepStride, TWIN_LOC) {
    twin_reduce_sum0<T>(dst, src, twin::mask_cont((uint64_t)mask, isSetMask), repeatTimes, srcRepStride, TWIN_LOC_ARGS);
}
template <class T, bool isSetMask = true>
inline void ReduceSum(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<T> &, const uint64_t mask[],
                      const int32_t repeatTimes, const int32_t srcRepStride, TWIN_LOC) {
    twin_reduce_sum0<T>(dst, src, twin::mask_bits(mask, isSetMask), repeatTimes, srcRepStride, TWIN_LOC_ARGS);
}

// GetReduceRepeatSumSpr<T> / GetAccVal<T> (asc-devkit docs, GetReduceRepeatSumSpr(ISASI); GetAccVal is
// its older name, kernel_operator_vec_reduce_intf.h): the sum the last count-form ReduceSum of this core
// left in the accumulator, as T. Only half and float (the documented types). The untyped GetAccVal() /
// GetReduceRepeatSumSpr() return the register itself (int64_t): kernels reinterpret its low bytes as
// float (ops-nn's norm kernels: `uint64_t v = GetAccVal(); float f = *reinterpret_cast<float*>(&v);`).
// Before any ReduceSum the register reads 0 (the twin zeroes it at block start).
template <class T> inline T GetReduceRepeatSumSpr() {
    static_assert(std::is_same<T, half>::value || std::is_same<T, float>::value,
                  "GetReduceRepeatSumSpr / GetAccVal support half and float (asc-devkit docs)");
    T v;
    std::memcpy(&v, &twin::g.acc_val, sizeof(T));
    return v;
}
inline int64_t GetReduceRepeatSumSpr() { return (int64_t)twin::g.acc_val; }
template <class T> inline T GetAccVal() { return GetReduceRepeatSumSpr<T>(); }
inline int64_t GetAccVal() { return GetReduceRepeatSumSpr(); }

template <class T, bool IsMax>
inline void twin_reduce_ext(const char *api, const LocalTensor<T> &dst, const LocalTensor<T> &src, int32_t count, bool calIndex, TWIN_LOC_DECL) {
    twin::vcheck(count, api, TWIN_LOC_ARGS);
    const uint8_t *ps = twin::vspan(src, count, api, TWIN_LOC_ARGS);
    twin::ub_span(dst.addr_, 2 * sizeof(T), api, TWIN_LOC_ARGS);
    if (count == 0) return;
    auto best = twin::up(twin::ld<T>(ps));
    uint32_t bi = 0;
    for (int32_t i = 1; i < count; i++) {
        auto v = twin::up(twin::ld<T>(ps + i * sizeof(T)));
        if (IsMax ? (v > best) : (v < best)) { best = v; bi = (uint32_t)i; }
    }
    twin_red::put(dst, 0, (T)best, api, TWIN_LOC_ARGS);
    if (calIndex) twin_red::put_index(dst, bi, api, TWIN_LOC_ARGS);
    twin::tr_vec(api, sizeof(T), count, twin::vec_rep(count, sizeof(T)), twin_line);
}
// Mask/repeat form: the extreme over every selected lane of every repeat; the index counts
// elements as if the repeats were contiguous (repeat * elements-per-repeat + lane).
template <class T, bool IsMax>
inline void twin_reduce_ext0(const char *api, const LocalTensor<T> &dst, const LocalTensor<T> &src, const twin::L0Mask &m,
                             int32_t repeat, int32_t srcRepStride, bool calIndex, TWIN_LOC_DECL) {
    const uint32_t epr = 256 / sizeof(T);
    if (repeat < 0 || repeat > 255) twin::fault(twin_file, twin_line, "%s: repeatTimes %d out of range 0..255", api, repeat);
    bool seen = false;
    twin::calc_t<T> best = 0;
    uint32_t bi = 0;
    uint64_t n = twin::l0_each(m, (uint64_t)repeat, epr, [&](uint64_t r, uint32_t j) {
        auto v = twin::up(twin_red::lane(src, r, j, srcRepStride, api, TWIN_LOC_ARGS));
        if (!seen || (IsMax ? v > best : v < best)) { best = v; bi = (uint32_t)(r * epr + j); seen = true; }
    });
    twin::ub_span(dst.addr_, 2 * sizeof(T), api, TWIN_LOC_ARGS);
    if (seen) {
        twin_red::put(dst, 0, (T)best, api, TWIN_LOC_ARGS);
        if (calIndex) twin_red::put_index(dst, bi, api, TWIN_LOC_ARGS);
    }
    twin::tr_vec(api, sizeof(T), n, m.counter ? twin::vec_rep(n, sizeof(T)) : (uint64_t)repeat, twin_line);
}
#define TWIN_REDUCE_EXT(NAME, ISMAX)                                                                                 \
    template <class T>                                                                                               \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<T> &, const int32_t count, \
                     bool calIndex = false, TWIN_LOC) {                                                              \
        twin_reduce_ext<T, ISMAX>(#NAME, dst, src, count, calIndex, TWIN_LOC_ARGS);                                  \
    }                                                                                                                \
    template <class T, bool isSetMask = true>                                                                        \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<T> &, const int32_t mask, \
                     const int32_t repeatTimes, const int32_t srcRepStride, bool calIndex = false, TWIN_LOC) {       \
        twin_reduce_ext0<T, ISMAX>(#NAME, dst, src, twin::mask_cont((uint64_t)mask, isSetMask), repeatTimes, srcRepStride, \
                                   calIndex, TWIN_LOC_ARGS);                                                         \
    }                                                                                                                \
    template <class T, bool isSetMask = true>                                                                        \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<T> &, const uint64_t mask[], \
                     const int32_t repeatTimes, const int32_t srcRepStride, bool calIndex = false, TWIN_LOC) {       \
        twin_reduce_ext0<T, ISMAX>(#NAME, dst, src, twin::mask_bits(mask, isSetMask), repeatTimes, srcRepStride,     \
                                   calIndex, TWIN_LOC_ARGS);                                                         \
    }
TWIN_REDUCE_EXT(ReduceMax, true)
TWIN_REDUCE_EXT(ReduceMin, false)
#undef TWIN_REDUCE_EXT

// ---- LocalTensor's whole-tensor operators (tensor.h, twin_sym): the API call each one stands for, with
// the caller's location, so the result, the checks and the trace are those of the direct call.
#define TWIN_SYM_CMP(OP, MODE)                                                                             \
    template <class T> twin_sym::CmpExpr<T> LocalTensor<T>::operator OP(const twin_sym::Operand<T> &b) const { \
        return twin_sym::CmpExpr<T>{*this, b.t, CMPMODE::MODE, b.file, b.line};                            \
    }
TWIN_SYM_CMP(<, LT)
TWIN_SYM_CMP(>, GT)
TWIN_SYM_CMP(<=, LE)
TWIN_SYM_CMP(>=, GE)
TWIN_SYM_CMP(==, EQ)
TWIN_SYM_CMP(!=, NE)
#undef TWIN_SYM_CMP
namespace twin_sym {
// And / Or of 32-bit integers run as 16-bit over twice the count (the halves' bits are the same bits).
template <class T>
using half_width_t = typename std::conditional<std::is_signed<T>::value, int16_t, uint16_t>::type;
} // namespace twin_sym
template <class T> template <twin_sym::Arith K> void LocalTensor<T>::operator=(const twin_sym::ArithExpr<T, K> &e) {
    const int32_t n = (int32_t)size_;
    if constexpr (K == twin_sym::Arith::ADD) Add(*this, e.a, e.b, n, e.file, e.line);
    else if constexpr (K == twin_sym::Arith::SUB) Sub(*this, e.a, e.b, n, e.file, e.line);
    else if constexpr (K == twin_sym::Arith::MUL) Mul(*this, e.a, e.b, n, e.file, e.line);
    else if constexpr (K == twin_sym::Arith::DIV) Div(*this, e.a, e.b, n, e.file, e.line);
    else if constexpr (std::is_integral<T>::value && sizeof(T) == 4) {
        using H = twin_sym::half_width_t<T>;
        LocalTensor<H> d = ReinterpretCast<H>();
        const LocalTensor<H> a = e.a.template ReinterpretCast<H>(), b = e.b.template ReinterpretCast<H>();
        if constexpr (K == twin_sym::Arith::AND) And(d, a, b, 2 * n, e.file, e.line);
        else Or(d, a, b, 2 * n, e.file, e.line);
    } else if constexpr (K == twin_sym::Arith::AND) And(*this, e.a, e.b, n, e.file, e.line);
    else Or(*this, e.a, e.b, n, e.file, e.line);
}
template <class T> template <class S> void LocalTensor<T>::operator=(const twin_sym::CmpExpr<S> &e) {
    Compare(*this, e.a, e.b, e.mode, e.a.GetSize(), e.file, e.line);
}
} // namespace AscendC
