// twin: the register-level vector API (namespace AscendC::Reg, formerly AscendC::MicroAPI) of the
// regbase SoCs (Atlas 350 / Ascend 950), a functional subset, written from the asc-devkit docs:
// RegTensor and MaskReg (atlasascendc_api_07_0315), contiguous aligned load / store
// (LoadAlign 07_0319, StoreAlign 07_0320), and the per-register arithmetic, Cast, Compare, Select,
// Duplicate and Reduce instructions.
//
// Model: a RegTensor holds one vector length (VL = 256 bytes) of lanes; a MaskReg holds VL/8 bytes,
// one predicate bit per byte of the vector, so element i of a b16 operand is active when the bit of
// its first byte (2*i) is set. Inactive destination lanes are zeroed (MaskMergeMode::ZEROING) or
// kept (MERGING). `__ubuf__ T *` addresses are UB byte offsets, as LocalTensor::GetPhyAddr() gives
// them in the twin; every load and store is checked against the UB. Each instruction is one
// `I V Reg<Name>` trace record of one repeat. Unaligned loads / stores and ReduceDataBlock are at the end. Not modelled: gathers,
// AddrReg offsets, 64-bit two-register traits, SIMT (`__simt_vf__`).
#pragma once
#include "vec.h"

namespace AscendC {
namespace Reg {

constexpr uint32_t VL = 256;

enum class MaskPattern { ALL, VL1, VL2, VL3, VL4, VL8, VL16, VL32, VL64, VL128, M3, M4, H, Q, ALLF = 15 };
enum class LoadDist {
    DIST_NORM, DIST_BRC_B8, DIST_BRC_B16, DIST_BRC_B32, DIST_US_B8, DIST_US_B16, DIST_DS_B8, DIST_DS_B16,
    DIST_UNPACK_B8, DIST_UNPACK_B16, DIST_BLK, DIST_E2B_B16, DIST_E2B_B32, DIST_UNPACK_B32, DIST_UNPACK4_B8
};
enum class StoreDist {
    DIST_NORM, DIST_NORM_B8, DIST_NORM_B16, DIST_NORM_B32, DIST_FIRST_ELEMENT_B8, DIST_FIRST_ELEMENT_B16,
    DIST_FIRST_ELEMENT_B32, DIST_PACK_B16, DIST_PACK_B32, DIST_PACK_B64, DIST_PACK4_B32
};
enum class MaskDist { DIST_NORM, DIST_US, DIST_DS };
enum class PostLiteral { POST_MODE_NORMAL, POST_MODE_UPDATE };
enum class MemType { VEC_STORE, VEC_LOAD, SCALAR_STORE, SCALAR_LOAD, VEC_ALL, SCALAR_ALL };
enum class RegLayout { UNKNOWN = -1, ZERO = 0, ONE, TWO, THREE };
enum class SatMode { UNKNOWN = -1, NO_SAT = 0, SAT };
enum class MaskMergeMode { ZEROING, MERGING };
using AscendC::ReduceType; // vec.h: shared with ReduceDataBlock
enum class DataCopyMode { DATA_BLOCK_COPY };
struct DefaultType {};
struct CastTrait {
    RegLayout layoutMode;
    SatMode satMode;
    MaskMergeMode mrgMode;
    RoundMode roundMode;
};
constexpr CastTrait kTwinDefaultCastTrait = {RegLayout::ZERO, SatMode::NO_SAT, MaskMergeMode::ZEROING, RoundMode::CAST_RINT};

struct MaskReg {
    uint8_t bit[VL] = {}; // one predicate per byte lane of a vector
};

template <class T> struct RegTensor {
    using ElementType = T;
    static constexpr uint32_t kLanes = VL / sizeof(T);
    alignas(32) uint8_t b[VL] = {};
    T get(uint32_t i) const { return twin::ld<T>(b + (uint64_t)i * sizeof(T)); }
    void set(uint32_t i, T v) { twin::st<T>(b + (uint64_t)i * sizeof(T), v); }
};

} // namespace Reg
namespace MicroAPI = Reg;
} // namespace AscendC

namespace twin_reg {
using namespace AscendC::Reg;

template <class T> inline bool on(const MaskReg &m, uint32_t i) { return m.bit[(uint64_t)i * sizeof(T)] != 0; }
template <class T> inline void set_on(MaskReg &m, uint32_t i, bool v) {
    for (uint32_t k = 0; k < sizeof(T); k++) m.bit[(uint64_t)i * sizeof(T) + k] = v ? 1 : 0;
}
// The UB bytes at a register load's or store's address, which must be aligned to `align` bytes: 32 for
// whole-register modes, less for the ones that move one element or a part (the alignment column of the
// LoadDist / StoreDist tables of asc-devkit's LoadAlign and StoreAlign pages: DIST_BRC_B32 4,
// DIST_FIRST_ELEMENT_B16 2, ...).
inline uint8_t *ub_aligned(const void *p, uint64_t bytes, uint32_t align, const char *api, TWIN_LOC_DECL) {
    uint64_t addr = twin::ub_addr_of_ptr(p);
    if (addr % align != 0)
        twin::fault(twin_file, twin_line, "%s: UB address %llu is not %u-byte aligned", api, (unsigned long long)addr, align);
    return twin::ub_span(addr, bytes, api, TWIN_LOC_ARGS);
}
inline uint8_t *ub(const void *p, uint64_t bytes, const char *api, TWIN_LOC_DECL) {
    return ub_aligned(p, bytes, 32, api, TWIN_LOC_ARGS);
}
template <class T> inline void trace(const char *api, uint64_t lanes, TWIN_LOC_DECL) {
    (void)twin_file;
    twin::tr_vec(api, sizeof(T), lanes, 1, twin_line);
}
// Write lane i of dst honouring the mask and the merge mode.
template <class T, MaskMergeMode mode> inline void put(RegTensor<T> &dst, const MaskReg &m, uint32_t i, T v) {
    if (on<T>(m, i)) dst.set(i, v);
    else if (mode == MaskMergeMode::ZEROING) dst.set(i, T(0));
}
// Load a mask register: VL / 8 bytes of UB, bit k (least significant first within a byte) the predicate of
// byte lane k.
inline void load_mask(AscendC::Reg::MaskReg &dst, const void *src, const char *api, TWIN_LOC_DECL) {
    const uint8_t *p = ub(src, AscendC::Reg::VL / 8, api, TWIN_LOC_ARGS);
    for (uint32_t k = 0; k < AscendC::Reg::VL; k++) dst.bit[k] = (uint8_t)((p[k / 8] >> (k % 8)) & 1u);
    trace<uint8_t>("RegLoadAlign", AscendC::Reg::VL / 8, TWIN_LOC_ARGS);
}
} // namespace twin_reg

namespace AscendC {
namespace Reg {

// ---- masks ---------------------------------------------------------------------------------------
template <class T, MaskPattern mode = MaskPattern::ALL> inline MaskReg CreateMask() {
    MaskReg m;
    const uint32_t n = VL / sizeof(T);
    for (uint32_t i = 0; i < n; i++) {
        bool v;
        switch (mode) {
        case MaskPattern::ALL: v = true; break;
        case MaskPattern::ALLF: v = false; break;
        case MaskPattern::VL1: v = i < 1; break;
        case MaskPattern::VL2: v = i < 2; break;
        case MaskPattern::VL3: v = i < 3; break;
        case MaskPattern::VL4: v = i < 4; break;
        case MaskPattern::VL8: v = i < 8; break;
        case MaskPattern::VL16: v = i < 16; break;
        case MaskPattern::VL32: v = i < 32; break;
        case MaskPattern::VL64: v = i < 64; break;
        case MaskPattern::VL128: v = i < 128; break;
        case MaskPattern::M3: v = i % 3 == 0; break;
        case MaskPattern::M4: v = i % 4 == 0; break;
        case MaskPattern::H: v = i < n / 2; break;
        case MaskPattern::Q: v = i < n / 4; break;
        default: v = false;
        }
        twin_reg::set_on<T>(m, i, v);
    }
    return m;
}
// The first min(count, VL_T) elements; count then drops by VL_T (to 0 at least).
template <class T> inline MaskReg UpdateMask(uint32_t &scalarValue) {
    MaskReg m;
    const uint32_t n = VL / sizeof(T);
    for (uint32_t i = 0; i < n; i++) twin_reg::set_on<T>(m, i, i < scalarValue);
    scalarValue = scalarValue < n ? 0 : scalarValue - n;
    return m;
}
template <MemType src, MemType dst> inline void LocalMemBar() {}

// ---- contiguous aligned load: UB -> register ---------------------------------------------------------
namespace detail {
template <class T, LoadDist dist, class U> inline void load(U &dst, const void *src, const char *api, TWIN_LOC_DECL) {
    using E = typename U::ElementType;
    (void)sizeof(E);
    switch (dist) {
    case LoadDist::DIST_BRC_B8: case LoadDist::DIST_BRC_B16: case LoadDist::DIST_BRC_B32: {
        // one element repeated over the whole register
        const uint32_t sz = dist == LoadDist::DIST_BRC_B8 ? 1 : dist == LoadDist::DIST_BRC_B16 ? 2 : 4;
        const uint8_t *p = twin_reg::ub_aligned(src, sz, sz, api, TWIN_LOC_ARGS);
        for (uint32_t k = 0; k < VL; k += sz) __builtin_memcpy(dst.b + k, p, sz);
        break;
    }
    case LoadDist::DIST_UNPACK_B8: case LoadDist::DIST_UNPACK_B16: case LoadDist::DIST_UNPACK_B32: {
        // VL/2 bytes; element k goes to the low half of lane k of twice its width, the high half zero
        const uint32_t sz = dist == LoadDist::DIST_UNPACK_B8 ? 1 : dist == LoadDist::DIST_UNPACK_B16 ? 2 : 4;
        const uint8_t *p = twin_reg::ub(src, VL / 2, api, TWIN_LOC_ARGS);
        __builtin_memset(dst.b, 0, VL);
        for (uint32_t k = 0; k < VL / 2 / sz; k++) __builtin_memcpy(dst.b + 2 * k * sz, p + k * sz, sz);
        break;
    }
    case LoadDist::DIST_NORM: {
        const uint8_t *p = twin_reg::ub(src, VL, api, TWIN_LOC_ARGS);
        __builtin_memcpy(dst.b, p, VL);
        break;
    }
    default:
        twin::fault(twin_file, twin_line, "%s: this LoadDist mode is not modelled by the twin", api);
    }
    twin_reg::trace<T>(api, VL / sizeof(T), TWIN_LOC_ARGS);
}
template <class T, StoreDist dist, class U>
inline void store(void *dstp, const U &src, const MaskReg &m, const char *api, TWIN_LOC_DECL) {
    using E = typename U::ElementType;
    switch (dist) {
    case StoreDist::DIST_PACK_B16: case StoreDist::DIST_PACK_B32: case StoreDist::DIST_PACK_B64: {
        // the low half of every active lane, packed: VL/2 bytes
        const uint32_t w = dist == StoreDist::DIST_PACK_B16 ? 2 : dist == StoreDist::DIST_PACK_B32 ? 4 : 8;
        uint8_t *p = twin_reg::ub(dstp, VL / 2, api, TWIN_LOC_ARGS);
        for (uint32_t k = 0; k < VL / w; k++)
            if (m.bit[k * w]) __builtin_memcpy(p + k * (w / 2), src.b + k * w, w / 2);
        break;
    }
    case StoreDist::DIST_PACK4_B32: {
        // the low 8 bits (a quarter) of every active 32-bit lane, stored one after another: VL/4 bytes
        // (asc-devkit docs/zh/api/SIMD-API/基础API/Reg矢量计算/Reg数据搬出/连续对齐搬出（StoreAlign）.md)
        uint8_t *p = twin_reg::ub(dstp, VL / 4, api, TWIN_LOC_ARGS);
        for (uint32_t k = 0; k < VL / 4; k++)
            if (m.bit[k * 4]) p[k] = src.b[k * 4];
        break;
    }
    case StoreDist::DIST_FIRST_ELEMENT_B8: case StoreDist::DIST_FIRST_ELEMENT_B16: case StoreDist::DIST_FIRST_ELEMENT_B32: {
        // src's first element, whatever the mask (the StoreAlign page: 忽略mask), at a w-byte aligned address
        const uint32_t w = dist == StoreDist::DIST_FIRST_ELEMENT_B8 ? 1 : dist == StoreDist::DIST_FIRST_ELEMENT_B16 ? 2 : 4;
        uint8_t *p = twin_reg::ub_aligned(dstp, w, w, api, TWIN_LOC_ARGS);
        __builtin_memcpy(p, src.b, w);
        break;
    }
    case StoreDist::DIST_NORM: case StoreDist::DIST_NORM_B8: case StoreDist::DIST_NORM_B16: case StoreDist::DIST_NORM_B32: {
        const uint32_t w = dist == StoreDist::DIST_NORM_B8 ? 1 : dist == StoreDist::DIST_NORM_B16 ? 2
                         : dist == StoreDist::DIST_NORM_B32 ? 4 : (uint32_t)sizeof(E);
        uint8_t *p = twin_reg::ub(dstp, VL, api, TWIN_LOC_ARGS);
        for (uint32_t k = 0; k < VL / w; k++)
            if (m.bit[k * w]) __builtin_memcpy(p + k * w, src.b + k * w, w);
        break;
    }
    default:
        twin::fault(twin_file, twin_line, "%s: this StoreDist mode is not modelled by the twin", api);
    }
    twin_reg::trace<T>(api, VL / sizeof(E), TWIN_LOC_ARGS);
}
} // namespace detail

template <class T = DefaultType, LoadDist dist = LoadDist::DIST_NORM, class U>
inline void LoadAlign(U &dstReg, __ubuf__ T *srcAddr, TWIN_LOC) {
    detail::load<T, dist>(dstReg, srcAddr, "RegLoadAlign", TWIN_LOC_ARGS);
}
template <class T = DefaultType, PostLiteral postMode, LoadDist dist = LoadDist::DIST_NORM, class U>
inline void LoadAlign(U &dstReg, __ubuf__ T *&srcAddr, int32_t postUpdateStride, TWIN_LOC) {
    detail::load<T, dist>(dstReg, srcAddr, "RegLoadAlign", TWIN_LOC_ARGS);
    if (postMode == PostLiteral::POST_MODE_UPDATE) srcAddr += postUpdateStride;
}
template <class T = DefaultType, StoreDist dist = StoreDist::DIST_NORM, class U>
inline void StoreAlign(__ubuf__ T *dstAddr, U &srcReg, MaskReg &mask, TWIN_LOC) {
    detail::store<T, dist>(dstAddr, srcReg, mask, "RegStoreAlign", TWIN_LOC_ARGS);
}
template <class T = DefaultType, PostLiteral postMode, StoreDist dist = StoreDist::DIST_NORM, class U>
inline void StoreAlign(__ubuf__ T *&dstAddr, U &srcReg, int32_t postUpdateStride, MaskReg &mask, TWIN_LOC) {
    detail::store<T, dist>(dstAddr, srcReg, mask, "RegStoreAlign", TWIN_LOC_ARGS);
    if (postMode == PostLiteral::POST_MODE_UPDATE) dstAddr += postUpdateStride;
}
// A mask register from UB (the select example of examples/01_simd_cpp_api/03_basic_api/02_reg_vector_compute:
// `LoadAlign<uint8_t, POST_MODE_UPDATE>(mask, maskAddr, GetVecLen() / 8)`): VL / 8 bytes, see twin_reg::load_mask;
// the post-update moves the address by the stride in elements of T.
template <class T = DefaultType, MaskDist dist = MaskDist::DIST_NORM>
inline void LoadAlign(MaskReg &dst, __ubuf__ T *srcAddr, TWIN_LOC) {
    static_assert(dist == MaskDist::DIST_NORM, "Reg::LoadAlign into a MaskReg: only DIST_NORM is modelled by the twin");
    twin_reg::load_mask(dst, srcAddr, "RegLoadAlign", TWIN_LOC_ARGS);
}
template <class T = DefaultType, PostLiteral postMode, MaskDist dist = MaskDist::DIST_NORM>
inline void LoadAlign(MaskReg &dst, __ubuf__ T *&srcAddr, int32_t postUpdateStride, TWIN_LOC) {
    static_assert(dist == MaskDist::DIST_NORM, "Reg::LoadAlign into a MaskReg: only DIST_NORM is modelled by the twin");
    twin_reg::load_mask(dst, srcAddr, "RegLoadAlign", TWIN_LOC_ARGS);
    if (postMode == PostLiteral::POST_MODE_UPDATE) srcAddr += postUpdateStride;
}
// The earlier names of the same instructions.
template <class T = DefaultType, LoadDist dist = LoadDist::DIST_NORM, class U>
inline void DataCopy(U &dstReg, __ubuf__ T *srcAddr, TWIN_LOC) {
    detail::load<T, dist>(dstReg, srcAddr, "RegLoadAlign", TWIN_LOC_ARGS);
}
template <class T = DefaultType, StoreDist dist = StoreDist::DIST_NORM, class U>
inline void DataCopy(__ubuf__ T *dstAddr, U &srcReg, MaskReg &mask, TWIN_LOC) {
    detail::store<T, dist>(dstAddr, srcReg, mask, "RegStoreAlign", TWIN_LOC_ARGS);
}

// ---- arithmetic ----------------------------------------------------------------------------------------
#define TWIN_REG_BINARY(NAME, EXPR)                                                                                    \
    template <class T = DefaultType, MaskMergeMode mode = MaskMergeMode::ZEROING, class E>                           \
    inline void NAME(RegTensor<E> &dst, RegTensor<E> &src0, RegTensor<E> &src1, MaskReg &mask, TWIN_LOC) {          \
        for (uint32_t i = 0; i < RegTensor<E>::kLanes; i++) {                                                         \
            auto a = twin::up(src0.get(i)), b = twin::up(src1.get(i));                                                 \
            twin_reg::put<E, mode>(dst, mask, i, (E)(EXPR));                                                          \
        }                                                                                                              \
        twin_reg::trace<E>("Reg" #NAME, RegTensor<E>::kLanes, TWIN_LOC_ARGS);                                          \
    }
TWIN_REG_BINARY(Add, a + b)
TWIN_REG_BINARY(Sub, a - b)
TWIN_REG_BINARY(Mul, a * b)
TWIN_REG_BINARY(Div, a / b)
TWIN_REG_BINARY(Max, (a > b ? a : b))
TWIN_REG_BINARY(Min, (a < b ? a : b))
TWIN_REG_BINARY(And, (a & b))
TWIN_REG_BINARY(Or, (a | b))
#undef TWIN_REG_BINARY

// MulAddDst: dst = src0 * src1 + dst on the active lanes (asc-devkit docs/zh/api/SIMD-API/基础API/
// Reg矢量计算/复合计算/MulAddDst.md), computed as the repeat-form MulAddDst is (vec.h); Mula is the same
// instruction under the name CANN 9 programs also use (asc-devkit's reg_compute binary interface defines
// it over MulAddDst's implementation; cann-samples' rms_norm_quant_story stage 6).
template <class T = DefaultType, MaskMergeMode mode = MaskMergeMode::ZEROING, class E>
inline void MulAddDst(RegTensor<E> &dst, RegTensor<E> &src0, RegTensor<E> &src1, MaskReg &mask, TWIN_LOC) {
    for (uint32_t i = 0; i < RegTensor<E>::kLanes; i++) {
        auto a = twin::up(src0.get(i)), b = twin::up(src1.get(i)), c = twin::up(dst.get(i));
        twin_reg::put<E, mode>(dst, mask, i, (E)(a * b + c));
    }
    twin_reg::trace<E>("RegMulAddDst", RegTensor<E>::kLanes, TWIN_LOC_ARGS);
}
template <class T = DefaultType, MaskMergeMode mode = MaskMergeMode::ZEROING, class E>
inline void Mula(RegTensor<E> &dst, RegTensor<E> &src0, RegTensor<E> &src1, MaskReg &mask, TWIN_LOC) {
    MulAddDst<T, mode>(dst, src0, src1, mask, TWIN_LOC_ARGS);
}

#define TWIN_REG_SCALAR(NAME, EXPR)                                                                                    \
    template <class T = DefaultType, MaskMergeMode mode = MaskMergeMode::ZEROING, class E, class S>                  \
    inline void NAME(RegTensor<E> &dst, RegTensor<E> &src, S scalar, MaskReg &mask, TWIN_LOC) {                      \
        const auto s = twin::up((E)scalar);                                                                            \
        for (uint32_t i = 0; i < RegTensor<E>::kLanes; i++) {                                                         \
            auto a = twin::up(src.get(i));                                                                             \
            twin_reg::put<E, mode>(dst, mask, i, (E)(EXPR));                                                          \
        }                                                                                                              \
        twin_reg::trace<E>("Reg" #NAME, RegTensor<E>::kLanes, TWIN_LOC_ARGS);                                          \
    }
TWIN_REG_SCALAR(Adds, a + s)
TWIN_REG_SCALAR(Muls, a * s)
TWIN_REG_SCALAR(Maxs, (a > s ? a : s))
TWIN_REG_SCALAR(Mins, (a < s ? a : s))
#undef TWIN_REG_SCALAR

// ShiftLefts / ShiftRights (asc-devkit docs/api/context/ShiftLefts.md; the C API's asc_shiftleft_scalar.md):
// each active lane of an integer register shifted by the scalar count (not negative). Left is logical,
// the low bits filled with 0; right is logical for an unsigned type and arithmetic for a signed one. A
// count of the lane's width or more leaves 0 (-1 for a negative lane shifted right). Lanes the mask
// leaves out are zeroed (kept under MERGING). ops-nn's bn3d_training_reduce clears a tail's lanes with
// ShiftLefts(x, x, 0, preg).
template <class T = DefaultType, MaskMergeMode mode = MaskMergeMode::ZEROING, class E, class S>
inline void ShiftLefts(RegTensor<E> &dst, RegTensor<E> &src, S scalar, MaskReg &mask, TWIN_LOC) {
    static_assert(std::is_integral<E>::value, "ShiftLefts takes integer registers");
    using U = typename std::make_unsigned<E>::type;
    const uint64_t n = (uint64_t)(int64_t)scalar;
    for (uint32_t i = 0; i < RegTensor<E>::kLanes; i++) {
        const U a = (U)src.get(i);
        twin_reg::put<E, mode>(dst, mask, i, (E)(n >= sizeof(E) * 8 ? U(0) : (U)(a << n)));
    }
    twin_reg::trace<E>("RegShiftLefts", RegTensor<E>::kLanes, TWIN_LOC_ARGS);
}
template <class T = DefaultType, MaskMergeMode mode = MaskMergeMode::ZEROING, class E, class S>
inline void ShiftRights(RegTensor<E> &dst, RegTensor<E> &src, S scalar, MaskReg &mask, TWIN_LOC) {
    static_assert(std::is_integral<E>::value, "ShiftRights takes integer registers");
    const uint64_t n = (uint64_t)(int64_t)scalar;
    for (uint32_t i = 0; i < RegTensor<E>::kLanes; i++) {
        const E a = src.get(i);
        const E r = n >= sizeof(E) * 8 ? (a < E(0) ? E(-1) : E(0)) : (E)(a >> n);
        twin_reg::put<E, mode>(dst, mask, i, r);
    }
    twin_reg::trace<E>("RegShiftRights", RegTensor<E>::kLanes, TWIN_LOC_ARGS);
}

#define TWIN_REG_UNARY(NAME, EXPR)                                                                                     \
    template <class T = DefaultType, MaskMergeMode mode = MaskMergeMode::ZEROING, class E>                           \
    inline void NAME(RegTensor<E> &dst, RegTensor<E> &src, MaskReg &mask, TWIN_LOC) {                                 \
        for (uint32_t i = 0; i < RegTensor<E>::kLanes; i++) {                                                         \
            auto x = twin::up(src.get(i));                                                                             \
            twin_reg::put<E, mode>(dst, mask, i, (E)(EXPR));                                                          \
        }                                                                                                              \
        twin_reg::trace<E>("Reg" #NAME, RegTensor<E>::kLanes, TWIN_LOC_ARGS);                                          \
    }
TWIN_REG_UNARY(Exp, twin::m_exp(x))
TWIN_REG_UNARY(Ln, twin::m_log(x))
TWIN_REG_UNARY(Log, twin::m_log(x))
TWIN_REG_UNARY(Abs, (x < 0 ? -x : x))
TWIN_REG_UNARY(Sqrt, twin::m_sqrt(x))
TWIN_REG_UNARY(Relu, (x > 0 ? x : (decltype(x))0))
TWIN_REG_UNARY(Neg, (-x))
TWIN_REG_UNARY(Not, (~x))
#undef TWIN_REG_UNARY

// Duplicate: every active lane takes the scalar (all lanes without a mask).
template <class T = DefaultType, MaskMergeMode mode = MaskMergeMode::ZEROING, class E, class S>
inline void Duplicate(RegTensor<E> &dst, S scalar, MaskReg &mask, TWIN_LOC) {
    for (uint32_t i = 0; i < RegTensor<E>::kLanes; i++) twin_reg::put<E, mode>(dst, mask, i, (E)scalar);
    twin_reg::trace<E>("RegDuplicate", RegTensor<E>::kLanes, TWIN_LOC_ARGS);
}
// Tensor mode: every active lane takes src's lowest element (asc-devkit docs/zh/api/SIMD-API/基础API/
// Reg矢量计算/数据填充/Duplicate.md; `pos` is LOWEST, the only value the page allows).
enum class HighLowPart { LOWEST = 0, HIGHEST = 1 };
template <class T = DefaultType, HighLowPart pos = HighLowPart::LOWEST, MaskMergeMode mode = MaskMergeMode::ZEROING, class E>
inline void Duplicate(RegTensor<E> &dst, RegTensor<E> &src, MaskReg &mask, TWIN_LOC) {
    static_assert(pos == HighLowPart::LOWEST, "Reg::Duplicate of a register: only HighLowPart::LOWEST is supported");
    const E v = src.get(0);
    for (uint32_t i = 0; i < RegTensor<E>::kLanes; i++) twin_reg::put<E, mode>(dst, mask, i, v);
    twin_reg::trace<E>("RegDuplicate", RegTensor<E>::kLanes, TWIN_LOC_ARGS);
}
template <class T = DefaultType, class E, class S, typename std::enable_if<std::is_arithmetic<S>::value || twin::is_half_like<S>::value, int>::type = 0>
inline void Duplicate(RegTensor<E> &dst, S scalar, TWIN_LOC) {
    for (uint32_t i = 0; i < RegTensor<E>::kLanes; i++) dst.set(i, (E)scalar);
    twin_reg::trace<E>("RegDuplicate", RegTensor<E>::kLanes, TWIN_LOC_ARGS);
}

// Cast: between lane widths the layout picks the sub-lane. Widening (e.g. b16 -> b32): lane i of dst
// converts source element (ratio * i + layout). Narrowing: source lane i converts into destination
// element (ratio * i + layout); the other destination elements are zero. Same width: lane to lane.
// The mask is read at the width of the wider operand.
template <class D = DefaultType, class S0 = DefaultType, const CastTrait &trait = kTwinDefaultCastTrait, class RD, class RS>
inline void Cast(RD &dst, RS &src, MaskReg &mask, TWIN_LOC) {
    using DE = typename RD::ElementType;
    using SE = typename RS::ElementType;
    const int lay = trait.layoutMode == RegLayout::UNKNOWN ? 0 : (int)trait.layoutMode;
    RD out = dst;
    if (sizeof(DE) >= sizeof(SE)) {
        const uint32_t ratio = sizeof(DE) / sizeof(SE);
        for (uint32_t i = 0; i < RD::kLanes; i++) {
            if (!twin_reg::on<DE>(mask, i)) {
                if (trait.mrgMode == MaskMergeMode::ZEROING) out.set(i, DE(0));
                continue;
            }
            out.set(i, twin::cast_one<DE, SE>(src.get(i * ratio + (uint32_t)lay % ratio), trait.roundMode));
        }
    } else {
        const uint32_t ratio = sizeof(SE) / sizeof(DE);
        if (trait.mrgMode == MaskMergeMode::ZEROING) __builtin_memset(out.b, 0, VL);
        for (uint32_t i = 0; i < RS::kLanes; i++)
            if (twin_reg::on<SE>(mask, i))
                out.set(i * ratio + (uint32_t)lay % ratio, twin::cast_one<DE, SE>(src.get(i), trait.roundMode));
    }
    dst = out;
    twin::tr_vec("RegCast", sizeof(SE), RS::kLanes, 1, twin_line, (int)sizeof(DE));
    (void)twin_file;
}

// Compare: dst predicate of each active lane where the comparison holds (inactive lanes false).
template <class T = DefaultType, CMPMODE mode = CMPMODE::EQ, class E>
inline void Compare(MaskReg &dst, RegTensor<E> &src0, RegTensor<E> &src1, MaskReg &mask, TWIN_LOC) {
    MaskReg out;
    for (uint32_t i = 0; i < RegTensor<E>::kLanes; i++)
        twin_reg::set_on<E>(out, i, twin_reg::on<E>(mask, i) && twin_cmp::cmp(twin::up(src0.get(i)), twin::up(src1.get(i)), mode));
    dst = out;
    twin_reg::trace<E>("RegCompare", RegTensor<E>::kLanes, TWIN_LOC_ARGS);
}
template <class T = DefaultType, CMPMODE mode = CMPMODE::EQ, class E, class S>
inline void CompareScalar(MaskReg &dst, RegTensor<E> &src0, S scalar, MaskReg &mask, TWIN_LOC) {
    MaskReg out;
    const auto s = twin::up((E)scalar);
    for (uint32_t i = 0; i < RegTensor<E>::kLanes; i++)
        twin_reg::set_on<E>(out, i, twin_reg::on<E>(mask, i) && twin_cmp::cmp(twin::up(src0.get(i)), s, mode));
    dst = out;
    twin_reg::trace<E>("RegCompareScalar", RegTensor<E>::kLanes, TWIN_LOC_ARGS);
}
// Compares: the comparison of every lane against one scalar, the register form of the Compares the
// asc-devkit docs give for tensors (docs/zh/api/SIMD-API/基础API/Memory矢量计算/比较与选择/Compares.md) as
// examples/01_simd_cpp_api/03_basic_api/02_reg_vector_compute/compare (README, scenario 2) uses it.
template <class T = DefaultType, CMPMODE mode = CMPMODE::EQ, class E, class S>
inline void Compares(MaskReg &dst, RegTensor<E> &src0, S scalar, MaskReg &mask, TWIN_LOC) {
    CompareScalar<T, mode>(dst, src0, scalar, mask, TWIN_LOC_ARGS);
}
// Select: src0 where the selection predicate is set, src1 elsewhere.
template <class T = DefaultType, class E>
inline void Select(RegTensor<E> &dst, RegTensor<E> &src0, RegTensor<E> &src1, MaskReg &sel, TWIN_LOC) {
    RegTensor<E> out;
    for (uint32_t i = 0; i < RegTensor<E>::kLanes; i++) out.set(i, twin_reg::on<E>(sel, i) ? src0.get(i) : src1.get(i));
    dst = out;
    twin_reg::trace<E>("RegSelect", RegTensor<E>::kLanes, TWIN_LOC_ARGS);
}
// Truncate (asc-devkit docs/zh/api/SIMD-API/基础API/Reg矢量计算/类型转换/Truncate.md): each active lane rounded
// to an integral value by roundMode (RINT, ROUND, FLOOR, CEIL, TRUNC), kept in its floating type (half,
// bfloat16_t, float); inactive lanes zeroed (the only mode the page supports).
template <class T = DefaultType, RoundMode roundMode = RoundMode::CAST_NONE, MaskMergeMode mode = MaskMergeMode::ZEROING,
          class E>
inline void Truncate(RegTensor<E> &dst, RegTensor<E> &src, MaskReg &mask, TWIN_LOC) {
    static_assert(roundMode == RoundMode::CAST_RINT || roundMode == RoundMode::CAST_ROUND || roundMode == RoundMode::CAST_FLOOR ||
                      roundMode == RoundMode::CAST_CEIL || roundMode == RoundMode::CAST_TRUNC,
                  "Reg::Truncate: roundMode is one of CAST_RINT, CAST_ROUND, CAST_FLOOR, CAST_CEIL, CAST_TRUNC");
    RegTensor<E> out;
    for (uint32_t i = 0; i < RegTensor<E>::kLanes; i++)
        twin_reg::put<E, MaskMergeMode::ZEROING>(out, mask, i, (E)(float)twin::rnd_int((double)(float)src.get(i), roundMode));
    dst = out;
    twin_reg::trace<E>("RegTruncate", RegTensor<E>::kLanes, TWIN_LOC_ARGS);
}

// Arange (asc-devkit docs/zh/api/SIMD-API/基础API/Reg矢量计算/索引操作/Arange.md): lane i takes value + i
// (INCREASE_ORDER) or value + lanes - 1 - i (DECREASE_ORDER); integer lanes wrap past their bounds (the page:
// 127 is followed by -128 for int8_t).
enum class IndexOrder { INCREASE_ORDER, DECREASE_ORDER };
} // namespace Reg
} // namespace AscendC
namespace twin_reg {
template <class E, class U> inline void arange(AscendC::Reg::RegTensor<E> &dst, U value, bool descend, TWIN_LOC_DECL) {
    constexpr uint32_t lanes = AscendC::Reg::RegTensor<E>::kLanes;
    for (uint32_t i = 0; i < lanes; i++) {
        const uint32_t k = descend ? lanes - 1 - i : i;
        if constexpr (std::is_integral<E>::value) dst.set(i, (E)(uint64_t)((int64_t)value + (int64_t)k));
        else dst.set(i, (E)((float)(E)value + (float)k));
    }
    trace<E>("RegArange", lanes, TWIN_LOC_ARGS);
}
} // namespace twin_reg
namespace AscendC {
namespace Reg {
template <class T = DefaultType, IndexOrder order = IndexOrder::INCREASE_ORDER, class U, class E>
inline void Arange(RegTensor<E> &dst, U scalarValue, TWIN_LOC) {
    twin_reg::arange(dst, scalarValue, order == IndexOrder::DECREASE_ORDER, TWIN_LOC_ARGS);
}

// PairReduceElem (asc-devkit docs/zh/api/SIMD-API/基础API/Reg矢量计算/归约计算/PairReduceElem.md): lane k of the
// low half of dst = src[2k] + src[2k+1], an inactive lane counted as 0; the high half 0. half or float.
enum class PairReduce { SUM = 0 };
template <PairReduce type = PairReduce::SUM, class T = DefaultType, MaskMergeMode mode = MaskMergeMode::ZEROING, class E>
inline void PairReduceElem(RegTensor<E> &dst, RegTensor<E> src, MaskReg mask, TWIN_LOC) {
    constexpr uint32_t lanes = RegTensor<E>::kLanes;
    RegTensor<E> out;
    for (uint32_t k = 0; k < lanes / 2; k++) {
        const float a = twin_reg::on<E>(mask, 2 * k) ? (float)src.get(2 * k) : 0.0f;
        const float b = twin_reg::on<E>(mask, 2 * k + 1) ? (float)src.get(2 * k + 1) : 0.0f;
        out.set(k, (E)(a + b));
    }
    dst = out;
    twin_reg::trace<E>("RegPairReduceSum", lanes, TWIN_LOC_ARGS);
}

// Reduce: lane 0 of dst takes the sum (a binary tree, as the vector reductions), maximum or minimum
// of the active lanes; the other lanes are zero.
template <ReduceType type, class T = DefaultType, class E>
inline void Reduce(RegTensor<E> &dst, RegTensor<E> &src, MaskReg &mask, TWIN_LOC) {
    E lanes[VL];
    uint32_t n = 0;
    bool any = false;
    twin::calc_t<E> best = 0;
    for (uint32_t i = 0; i < RegTensor<E>::kLanes; i++) {
        bool a = twin_reg::on<E>(mask, i);
        lanes[n++] = a ? src.get(i) : E(0);
        if (!a) continue;
        auto v = twin::up(src.get(i));
        if (!any || (type == ReduceType::MAX ? v > best : v < best)) best = v;
        any = true;
    }
    RegTensor<E> out;
    out.set(0, type == ReduceType::SUM ? twin::tree_sum(lanes, n) : (E)best);
    dst = out;
    twin_reg::trace<E>("RegReduce", RegTensor<E>::kLanes, TWIN_LOC_ARGS);
}

// ReduceSum / ReduceMax / ReduceMin: the reductions by name, as CANN 9 programs call them (cann-samples'
// rms_norm_quant_story and softmax_regbase_story); the vcadd / vcmax / vcmin instructions that Reduce's
// SUM / MAX / MIN are (asc-devkit impl/basic_api/dav_l300/kernel_operator_common_impl.h defines them over
// those instructions), so the same results, traced as RegReduce.
template <class T = DefaultType, MaskMergeMode mode = MaskMergeMode::ZEROING, class E>
inline void ReduceSum(RegTensor<E> &dst, RegTensor<E> src, MaskReg mask, TWIN_LOC) {
    Reduce<ReduceType::SUM>(dst, src, mask, TWIN_LOC_ARGS);
}
template <class T = DefaultType, MaskMergeMode mode = MaskMergeMode::ZEROING, class E>
inline void ReduceMax(RegTensor<E> &dst, RegTensor<E> src, MaskReg mask, TWIN_LOC) {
    Reduce<ReduceType::MAX>(dst, src, mask, TWIN_LOC_ARGS);
}
template <class T = DefaultType, MaskMergeMode mode = MaskMergeMode::ZEROING, class E>
inline void ReduceMin(RegTensor<E> &dst, RegTensor<E> src, MaskReg mask, TWIN_LOC) {
    Reduce<ReduceType::MIN>(dst, src, mask, TWIN_LOC_ARGS);
}

// ReduceDataBlock (asc-devkit docs/zh/api/SIMD-API/基础API/Reg矢量计算/归约计算/ReduceDataBlock.md): lane b of
// dst takes the sum (a binary tree), maximum or minimum of the active elements of the 32-byte block b of
// src, b = 0..7; the other lanes are zero (ZEROING, the only mode the page supports), as is a block with no
// active element.
template <ReduceType type = ReduceType::SUM, class T = DefaultType, MaskMergeMode mode = MaskMergeMode::ZEROING, class E>
inline void ReduceDataBlock(RegTensor<E> &dst, RegTensor<E> src, MaskReg mask, TWIN_LOC) {
    static_assert(mode == MaskMergeMode::ZEROING, "ReduceDataBlock: only MaskMergeMode::ZEROING is supported");
    constexpr uint32_t per = 32 / sizeof(E);
    RegTensor<E> out;
    for (uint32_t b = 0; b < VL / 32; b++) {
        E lanes[32];
        bool any = false;
        twin::calc_t<E> best = 0;
        for (uint32_t j = 0; j < per; j++) {
            const uint32_t i = b * per + j;
            const bool a = twin_reg::on<E>(mask, i);
            lanes[j] = a ? src.get(i) : E(0);
            if (!a) continue;
            auto v = twin::up(src.get(i));
            if (!any || (type == ReduceType::MAX ? v > best : v < best)) best = v;
            any = true;
        }
        out.set(b, type == ReduceType::SUM ? twin::tree_sum(lanes, per) : (any ? (E)best : E(0)));
    }
    dst = out;
    twin_reg::trace<E>("RegReduceDataBlock", RegTensor<E>::kLanes, TWIN_LOC_ARGS);
}

// Unaligned loads and stores (asc-devkit docs/zh/api/SIMD-API/基础API/Reg矢量计算/Reg数据搬入/连续非对齐搬入
// （LoadUnAlign）.md, Reg数据搬出/连续非对齐搬出（StoreUnAlign）.md, 寄存器数据类型/UnalignRegForLoad-
// UnalignRegForStore.md). The hardware keeps the bytes across a 32-byte boundary in the 32-byte unaligned
// register; the twin reads and writes the UB directly, which leaves the same bytes once StoreUnAlignPost has
// run: LoadUnAlign takes VL bytes at srcAddr (any alignment), StoreUnAlign writes the first
// postUpdateStride elements of the register at dstAddr; the post-update forms then move the address on by
// postUpdateStride elements. The AddrReg and AR-register forms are not modelled.
// One register type under three names, as asc-devkit's kernel_reg_compute_common_intf.h declares them
// (UnalignRegForLoad, UnalignRegForStore and UnalignReg are all the 32-byte unaligned register;
// cann-samples' simulation-based-vf-profiling stores through an `UnalignReg`).
struct UnalignReg {
    uint8_t b[32] = {};
};
using UnalignRegForLoad = UnalignReg;
using UnalignRegForStore = UnalignReg;
template <class T> inline void LoadUnAlignPre(UnalignRegForLoad &, __ubuf__ T *srcAddr, TWIN_LOC) {
    (void)srcAddr;
    twin_reg::trace<T>("RegLoadUnAlignPre", 1, TWIN_LOC_ARGS);
}
namespace detail {
template <class U> inline void load_unaligned(U &dst, const void *src, TWIN_LOC_DECL) {
    const uint8_t *p = twin::ub_span(twin::ub_addr_of_ptr(src), VL, "RegLoadUnAlign", TWIN_LOC_ARGS);
    __builtin_memcpy(dst.b, p, VL);
    twin_reg::trace<typename U::ElementType>("RegLoadUnAlign", U::kLanes, TWIN_LOC_ARGS);
}
} // namespace detail
template <class T = DefaultType, class U>
inline void LoadUnAlign(U &dstReg, UnalignRegForLoad &, __ubuf__ T *srcAddr, TWIN_LOC) {
    detail::load_unaligned(dstReg, srcAddr, TWIN_LOC_ARGS);
}
template <class T = DefaultType, PostLiteral postMode = PostLiteral::POST_MODE_UPDATE, class U>
inline void LoadUnAlign(U &dstReg, UnalignRegForLoad &, __ubuf__ T *&srcAddr, uint32_t postUpdateStride, TWIN_LOC) {
    static_assert(postMode == PostLiteral::POST_MODE_UPDATE, "LoadUnAlign: only POST_MODE_UPDATE is supported");
    detail::load_unaligned(dstReg, srcAddr, TWIN_LOC_ARGS);
    srcAddr += postUpdateStride;
}
template <class T = DefaultType, PostLiteral postMode = PostLiteral::POST_MODE_UPDATE, class U>
inline void StoreUnAlign(__ubuf__ T *&dstAddr, U &srcReg, UnalignRegForStore &, uint32_t postUpdateStride, TWIN_LOC) {
    static_assert(postMode == PostLiteral::POST_MODE_UPDATE, "StoreUnAlign: only POST_MODE_UPDATE is supported");
    using E = typename U::ElementType;
    static_assert(sizeof(T) == sizeof(E), "StoreUnAlign: the address and the register hold the same type");
    if (postUpdateStride > U::kLanes)
        twin::fault(twin_file, twin_line, "StoreUnAlign: postUpdateStride %u exceeds the register's %u elements",
                    postUpdateStride, U::kLanes);
    uint8_t *p = twin::ub_span(twin::ub_addr_of_ptr(dstAddr), (uint64_t)postUpdateStride * sizeof(E), "RegStoreUnAlign",
                               TWIN_LOC_ARGS);
    __builtin_memcpy(p, srcReg.b, (uint64_t)postUpdateStride * sizeof(E));
    dstAddr += postUpdateStride;
    twin_reg::trace<E>("RegStoreUnAlign", U::kLanes, TWIN_LOC_ARGS);
}
template <class T, PostLiteral postMode = PostLiteral::POST_MODE_UPDATE>
inline void StoreUnAlignPost(__ubuf__ T *&dstAddr, UnalignRegForStore &, int32_t postUpdateStride, TWIN_LOC) {
    if (postMode == PostLiteral::POST_MODE_UPDATE) dstAddr += postUpdateStride;
    twin_reg::trace<T>("RegStoreUnAlignPost", 1, TWIN_LOC_ARGS);
}

} // namespace Reg
} // namespace AscendC

// Vector-function scopes and calls of the regbase programming model: on the twin, plain code.
#define __VEC_SCOPE__
#define __simd_vf__
// a hint to CANN's compiler not to fuse this vector function with its neighbours (asc-devkit's regbase
// softmax marks its VFs so): nothing to the twin, which does not fuse
#define __no_simd_vf_fusion__
#define __simd_callee__
// asc_vf_call<F>(args...): starts the SIMD vector function F (a `__simd_vf__` free or static function) with
// the given plain pointers and scalars (asc-devkit docs/zh/api/SIMD-API/基础API/Reg矢量计算/VF调用/
// asc_vf_call.md). The twin runs F at once on the calling core; the start is traced as one scalar record
// (`VfCall`), and F's register instructions one by one, which the model issues from the vector function's
// own stream (src/model/costs.rs VF_START_CYCLES).
template <auto F, class... A> inline void asc_vf_call(A &&...args) {
    twin::tr_scalar("VfCall", 0);
    F(static_cast<A &&>(args)...);
}
template <auto F, class... A> inline void VF_CALL(A &&...args) { asc_vf_call<F>(static_cast<A &&>(args)...); }
