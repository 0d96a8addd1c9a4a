// twin: per-repeat and per-block reductions, reductions over one axis of a 2-D tensor, Brcb and Gather (pipe V).
// Destination repeat strides of reductions are in units of "one repeat's reduced output"
// (asc-devkit docs, reduction instructions: WholeReduce*, BlockReduce*, PairReduceSum). Sums are
// binary trees of pairwise additions rounded to T (twin::tree_sum; BlockReduceSum docs,
// atlasascendc_api_07_0084: "two by two, in a binary tree").
#pragma once
#include <cstring>
#include <vector>
#include "vec.h"

namespace twin {

template <class T, int Op> // Op: 0 sum, 1 max, 2 min
inline void whole_reduce(const char *api, const AscendC::LocalTensor<T> &dst, const AscendC::LocalTensor<T> &src,
                         const L0Mask &m, int32_t repeat, int32_t dstRepStride, int32_t srcBlkStride, int32_t srcRepStride,
                         AscendC::ReduceOrder order, TWIN_LOC_DECL) {
    const uint32_t sz = sizeof(T), epr = 256 / sz;
    if (repeat < 0 || repeat > 255) fault(twin_file, twin_line, "%s: repeatTimes %d out of range 0..255", api, repeat);
    double acc[256];
    int32_t idx[256];
    bool seen[256];
    static thread_local T lanes[256 * 128]; // sums: every lane of every repeat, unselected ones 0
    int reps = m.counter ? (int)((m.m0 + epr - 1) / epr) : repeat;
    for (int r = 0; r < 256; r++) { acc[r] = 0; idx[r] = 0; seen[r] = false; }
    if (Op == 0)
        for (uint32_t i = 0; i < (uint32_t)(reps < 256 ? reps : 256) * epr; i++) lanes[i] = T(0);
    uint64_t n = l0_each(m, (uint64_t)repeat, epr, [&](uint64_t r, uint32_t j) {
        if (r >= 256) return;
        const uint8_t *p = ub_span(l0_addr(src.addr_, sz, r, j, (uint32_t)srcBlkStride, (uint32_t)srcRepStride), sz, api, TWIN_LOC_ARGS);
        if (Op == 0) { lanes[r * epr + j] = ld<T>(p); return; }
        double v = (double)up(ld<T>(p));
        if (!seen[r] || (Op == 1 ? v > acc[r] : v < acc[r])) { acc[r] = v; idx[r] = (int32_t)j; }
        seen[r] = true;
    });
    for (int32_t r = 0; r < reps && r < 256; r++) {
        T val = Op == 0 ? tree_sum(lanes + (uint64_t)r * epr, epr) : (T)(calc_t<T>)acc[r];
        if (Op == 0 || order == AscendC::ReduceOrder::ORDER_ONLY_VALUE) {
            st<T>(ub_span(dst.addr_ + (uint64_t)r * dstRepStride * sz, sz, api, TWIN_LOC_ARGS), val);
        } else if (order == AscendC::ReduceOrder::ORDER_ONLY_INDEX) {
            st<uint32_t>(ub_span(dst.addr_ + (uint64_t)r * dstRepStride * 4, 4, api, TWIN_LOC_ARGS), (uint32_t)idx[r]);
        } else {
            uint8_t *p = ub_span(dst.addr_ + (uint64_t)r * dstRepStride * 2 * sz, 2 * sz, api, TWIN_LOC_ARGS);
            uint8_t *pv = order == AscendC::ReduceOrder::ORDER_INDEX_VALUE ? p + sz : p;
            uint8_t *pi = order == AscendC::ReduceOrder::ORDER_INDEX_VALUE ? p : p + sz;
            st<T>(pv, val);
            if (sz == 2) st<uint16_t>(pi, (uint16_t)idx[r]);
            else st<uint32_t>(pi, (uint32_t)idx[r]);
        }
    }
    tr_vec(api, sz, n, (uint64_t)reps, twin_line);
}

template <class T, int Op>
inline void block_reduce(const char *api, const AscendC::LocalTensor<T> &dst, const AscendC::LocalTensor<T> &src,
                         int32_t repeat, const L0Mask &m, int32_t dstRepStride, int32_t srcBlkStride, int32_t srcRepStride,
                         TWIN_LOC_DECL, bool keep_unselected = false) {
    const uint32_t sz = sizeof(T), epr = 256 / sz, epb = 32 / sz;
    if (repeat < 0 || repeat > 255) fault(twin_file, twin_line, "%s: repeatTimes %d out of range 0..255", api, repeat);
    static thread_local double acc[256][8];
    static thread_local bool seen[256][8];
    static thread_local T lanes[256 * 128]; // sums: every lane, unselected ones 0, a tree per block
    int reps = m.counter ? (int)((m.m0 + epr - 1) / epr) : repeat;
    for (int r = 0; r < 256; r++) for (int b = 0; b < 8; b++) { acc[r][b] = 0; seen[r][b] = false; }
    if (Op == 0)
        for (uint32_t i = 0; i < (uint32_t)(reps < 256 ? reps : 256) * epr; i++) lanes[i] = T(0);
    uint64_t n = l0_each(m, (uint64_t)repeat, epr, [&](uint64_t r, uint32_t j) {
        if (r >= 256) return;
        const uint8_t *p = ub_span(l0_addr(src.addr_, sz, r, j, (uint32_t)srcBlkStride, (uint32_t)srcRepStride), sz, api, TWIN_LOC_ARGS);
        uint32_t b = j / epb;
        if (Op == 0) { lanes[r * epr + j] = ld<T>(p); seen[r][b] = true; return; }
        double v = (double)up(ld<T>(p));
        if (!seen[r][b] || (Op == 1 ? v > acc[r][b] : v < acc[r][b])) acc[r][b] = v;
        seen[r][b] = true;
    });
    for (int32_t r = 0; r < reps && r < 256; r++)
        for (uint32_t b = 0; b < 8; b++) {
            if (keep_unselected && !seen[r][b]) continue;
            T val = Op == 0 ? tree_sum(lanes + (uint64_t)r * epr + b * epb, epb) : (T)(calc_t<T>)acc[r][b];
            st<T>(ub_span(dst.addr_ + ((uint64_t)r * dstRepStride * 8 + b) * sz, sz, api, TWIN_LOC_ARGS), val);
        }
    tr_vec(api, sz, n, (uint64_t)reps, twin_line);
}

} // namespace twin

namespace AscendC {

#define TWIN_WHOLE(NAME, OP)                                                                                        \
    template <class T, bool isSetMask = true>                                                                        \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t mask, const int32_t repeatTimes, \
                     const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride,              \
                     ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX, TWIN_LOC) {                                  \
        twin::whole_reduce<T, OP>(#NAME, dst, src, twin::mask_cont((uint64_t)mask, isSetMask), repeatTimes, dstRepStride, \
                                  srcBlkStride, srcRepStride, order, TWIN_LOC_ARGS);                                  \
    }                                                                                                                \
    template <class T, bool isSetMask = true>                                                                        \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint64_t mask[], const int32_t repeatTimes, \
                     const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride,              \
                     ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX, TWIN_LOC) {                                  \
        twin::whole_reduce<T, OP>(#NAME, dst, src, twin::mask_bits(mask, isSetMask), repeatTimes, dstRepStride,      \
                                  srcBlkStride, srcRepStride, order, TWIN_LOC_ARGS);                                  \
    }
TWIN_WHOLE(WholeReduceMax, 1)
TWIN_WHOLE(WholeReduceMin, 2)
#undef TWIN_WHOLE

template <class T, bool isSetMask = true>
inline void WholeReduceSum(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t mask, const int32_t repeatTimes,
                           const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride, TWIN_LOC) {
    twin::whole_reduce<T, 0>("WholeReduceSum", dst, src, twin::mask_cont((uint64_t)mask, isSetMask), repeatTimes, dstRepStride,
                             srcBlkStride, srcRepStride, ReduceOrder::ORDER_ONLY_VALUE, TWIN_LOC_ARGS);
}
template <class T, bool isSetMask = true>
inline void WholeReduceSum(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint64_t mask[], const int32_t repeatTimes,
                           const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride, TWIN_LOC) {
    twin::whole_reduce<T, 0>("WholeReduceSum", dst, src, twin::mask_bits(mask, isSetMask), repeatTimes, dstRepStride,
                             srcBlkStride, srcRepStride, ReduceOrder::ORDER_ONLY_VALUE, TWIN_LOC_ARGS);
}

#define TWIN_BLOCKRED(NAME, OP)                                                                                      \
    template <class T, bool isSetMask = true>                                                                        \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t repeatTimes, const int32_t mask, \
                     const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride, TWIN_LOC) {  \
        twin::block_reduce<T, OP>(#NAME, dst, src, repeatTimes, twin::mask_cont((uint64_t)mask, isSetMask), dstRepStride, \
                                  srcBlkStride, srcRepStride, TWIN_LOC_ARGS);                                         \
    }                                                                                                                \
    template <class T, bool isSetMask = true>                                                                        \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t repeatTimes, const uint64_t mask[], \
                     const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride, TWIN_LOC) {  \
        twin::block_reduce<T, OP>(#NAME, dst, src, repeatTimes, twin::mask_bits(mask, isSetMask), dstRepStride,      \
                                  srcBlkStride, srcRepStride, TWIN_LOC_ARGS);                                         \
    }
TWIN_BLOCKRED(BlockReduceSum, 0)
TWIN_BLOCKRED(BlockReduceMax, 1)
TWIN_BLOCKRED(BlockReduceMin, 2)
#undef TWIN_BLOCKRED

// BlockReduceSumIntrinsicsImpl / BlockReduceMaxIntrinsicsImpl / BlockReduceMinIntrinsicsImpl(dst, src, repeatTime,
// dstRepStride, srcBlkStride, srcRepStride): BlockReduceSum / Max / Min on raw UB addresses under the vector mask
// already set (SetVectorMask, normal or counter mode), as ops-transformer's moe_gating_top_k_softmax perf kernel
// calls them with `(__ubuf__ T *)local.GetPhyAddr()` (on the twin a UB byte address carried in a pointer). Not
// documented APIs; the twin gives them the documented BlockReduce behaviour with isSetMask = false.
#define TWIN_BLOCKRED_RAW(NAME, API)                                                                                  \
    template <class T>                                                                                               \
    inline void NAME(T *dst, T *src, const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride, \
                     const int32_t srcRepStride, TWIN_LOC) {                                                          \
        const uint64_t d = twin::ub_addr_of_ptr(dst), s = twin::ub_addr_of_ptr(src);                                 \
        if (d > 0xffffffffull || s > 0xffffffffull)                                                                  \
            twin::fault(twin_file, twin_line, #NAME ": a pointer is no UB address (a LocalTensor's GetPhyAddr())");  \
        API<T, false>(LocalTensor<T>((uint32_t)d, 0, TPosition::VECCALC), LocalTensor<T>((uint32_t)s, 0, TPosition::VECCALC), \
                      repeatTime, 0, dstRepStride, srcBlkStride, srcRepStride, TWIN_LOC_ARGS);                        \
    }
TWIN_BLOCKRED_RAW(BlockReduceSumIntrinsicsImpl, BlockReduceSum)
TWIN_BLOCKRED_RAW(BlockReduceMaxIntrinsicsImpl, BlockReduceMax)
TWIN_BLOCKRED_RAW(BlockReduceMinIntrinsicsImpl, BlockReduceMin)
#undef TWIN_BLOCKRED_RAW

// ReduceDataBlock<reduceType>(dst, src, mask, repeatTime, dstRepStride, srcBlkStride, srcRepStride) (asc-devkit
// docs/zh/api/SIMD-API/基础API/Memory矢量计算/归约计算/ReduceDataBlock.md): each repeat reduces each of its 8
// data blocks (sum as a binary tree, max, min) into 8 consecutive dst elements; dstRepStride counts one repeat's
// 8 results. dst and src have the same type (half, float). On Atlas A2/A3 a block with no element selected by
// the mask is not written (dst keeps its data).
template <ReduceType reduceType, class T, class U, bool isSetMask = true>
inline void ReduceDataBlock(const LocalTensor<T> &dst, const LocalTensor<U> &src, const int32_t mask, const int32_t repeatTime,
                            const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride, TWIN_LOC) {
    static_assert(std::is_same<T, U>::value, "ReduceDataBlock: dst and src must have the same type");
    twin::block_reduce<T, (int)reduceType>("ReduceDataBlock", dst, src, repeatTime, twin::mask_cont((uint64_t)mask, isSetMask),
                                           dstRepStride, srcBlkStride, srcRepStride, TWIN_LOC_ARGS, true);
}
template <ReduceType reduceType, class T, class U, bool isSetMask = true>
inline void ReduceDataBlock(const LocalTensor<T> &dst, const LocalTensor<U> &src, const uint64_t mask[], const int32_t repeatTime,
                            const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride, TWIN_LOC) {
    static_assert(std::is_same<T, U>::value, "ReduceDataBlock: dst and src must have the same type");
    twin::block_reduce<T, (int)reduceType>("ReduceDataBlock", dst, src, repeatTime, twin::mask_bits(mask, isSetMask),
                                           dstRepStride, srcBlkStride, srcRepStride, TWIN_LOC_ARGS, true);
}

// Brcb: each repeat reads 8 consecutive elements of src and fills one 32 B block of dst with each.
struct BrcbRepeatParams {
    uint16_t dstBlkStride = 1;
    uint16_t dstRepStride = 8;
    BrcbRepeatParams() = default;
    BrcbRepeatParams(uint16_t b, uint16_t r) : dstBlkStride(b), dstRepStride(r) {}
};
template <class T>
inline void Brcb(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint8_t repeatTimes, const BrcbRepeatParams &p, TWIN_LOC) {
    const uint32_t sz = sizeof(T), epb = 32 / sz;
    for (uint32_t r = 0; r < repeatTimes; r++)
        for (uint32_t j = 0; j < 8; j++) {
            T v = twin::ld<T>(twin::ub_span(src.addr_ + (uint64_t)(r * 8 + j) * sz, sz, "Brcb", TWIN_LOC_ARGS));
            uint8_t *d = twin::ub_span(dst.addr_ + ((uint64_t)r * p.dstRepStride + (uint64_t)j * p.dstBlkStride) * 32, 32, "Brcb", TWIN_LOC_ARGS);
            for (uint32_t e = 0; e < epb; e++) twin::st<T>(d + e * sz, v);
        }
    twin::tr_vec("Brcb", sz, (uint64_t)repeatTimes * 8 * epb, repeatTimes, twin_line);
}

// Gather: dst[i] = element at byte offset srcOffset[i] + srcBaseAddr from the start of src.
template <class T>
inline void Gather(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<uint32_t> &srcOffset,
                   const uint32_t srcBaseAddr, const uint32_t count, TWIN_LOC) {
    const uint32_t sz = sizeof(T);
    uint8_t *pd = twin::vspan(dst, count, "Gather", TWIN_LOC_ARGS);
    const uint8_t *po = twin::ub_span(srcOffset.addr_, (uint64_t)count * 4, "Gather", TWIN_LOC_ARGS);
    for (uint32_t i = 0; i < count; i++) {
        uint64_t off = (uint64_t)twin::ld<uint32_t>(po + i * 4) + srcBaseAddr;
        twin::st<T>(pd + i * sz, twin::ld<T>(twin::ub_span(src.addr_ + off, sz, "Gather", TWIN_LOC_ARGS)));
    }
    twin::tr_vec("Gather", sz, count, twin::vec_rep(count, sz), twin_line);
}

// Gather, the repeat forms (asc-devkit docs/zh/api/SIMD-API/基础API/Memory矢量计算/离散与聚合/Gather.md):
// each repeat gathers one 256-byte repeat of elements (8 data blocks, on A2 / A3), the ones the mask
// selects; element j of repeat r takes its byte offset from srcOffset[r * perRepeat + j] (the page's
// example: 4 repeats of 128 halves read 512 offsets) and lands at dst + r * dstRepStride blocks + j.
// Elements the mask leaves out keep dst. repeatTime 0 is a no-op.
template <class T>
inline void twin_gather_l0(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<uint32_t> &srcOffset,
                           const uint32_t srcBaseAddr, const twin::L0Mask &m, const uint8_t repeatTime,
                           const uint16_t dstRepStride, TWIN_LOC) {
    static_assert(sizeof(T) == 2 || sizeof(T) == 4, "Gather: 16- or 32-bit elements on A2 / A3");
    const char *api = "Gather";
    const uint32_t sz = sizeof(T), epr = 256 / sz;
    if (dst.addr_ == src.addr_) twin::fault(twin_file, twin_line, "Gather: src and dst are the same UB address; the API does not allow it");
    const uint64_t done = twin::l0_each(m, repeatTime, epr, [&](uint64_t r, uint32_t j) {
        const uint64_t k = r * epr + j;
        const uint64_t off = (uint64_t)twin::ld<uint32_t>(twin::ub_span(srcOffset.addr_ + k * 4, 4, api, TWIN_LOC_ARGS)) + srcBaseAddr;
        if (off % sz != 0)
            twin::fault(twin_file, twin_line, "Gather: byte offset %llu of element %llu is not a multiple of the element size %u",
                        (unsigned long long)off, (unsigned long long)k, sz);
        const T v = twin::ld<T>(twin::ub_span(src.addr_ + off, sz, api, TWIN_LOC_ARGS));
        twin::st<T>(twin::ub_span(dst.addr_ + r * (uint64_t)dstRepStride * 32 + (uint64_t)j * sz, sz, api, TWIN_LOC_ARGS), v);
    });
    twin::tr_vec(api, sz, done, m.counter ? twin::vec_rep(done, sz) : repeatTime, twin_line);
}
template <class T>
inline void Gather(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<uint32_t> &srcOffset,
                   const uint32_t srcBaseAddr, const uint64_t mask, const uint8_t repeatTime, const uint16_t dstRepStride,
                   TWIN_LOC) {
    twin_gather_l0(dst, src, srcOffset, srcBaseAddr, twin::mask_cont(mask, true), repeatTime, dstRepStride, TWIN_LOC_ARGS);
}
template <class T>
inline void Gather(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<uint32_t> &srcOffset,
                   const uint32_t srcBaseAddr, const uint64_t mask[], const uint8_t repeatTime, const uint16_t dstRepStride,
                   TWIN_LOC) {
    twin_gather_l0(dst, src, srcOffset, srcBaseAddr, twin::mask_bits(mask, true), repeatTime, dstRepStride, TWIN_LOC_ARGS);
}

// Gatherb (asc-devkit docs/zh/api/SIMD-API/基础API/Memory矢量计算/离散与聚合/Gatherb(ISASI).md): gathers whole
// 32-byte data blocks. Repeat i copies 8 blocks; block j comes from src at byte offset offset[i * 8 + j]
// and lands at dst + (i * dstRepStride + j * dstBlkStride) blocks (dstBlkStride 0 counts as 1, as the
// page says for A2 / A3). uint16_t and uint32_t on A2 / A3; repeatTime 0 is a no-op; src and dst may not
// be the same address; an offset that is not a multiple of the element size, or leaves the block
// unaligned (32 bytes past src's start), is a fault. The other GatherRepeatParams fields are reserved.
struct GatherRepeatParams {
    GatherRepeatParams() = default;
    GatherRepeatParams(const uint8_t dstBlkStrideIn, const uint8_t dstRepStrideIn)
        : dstRepStride(dstRepStrideIn), dstBlkStride(dstBlkStrideIn) {}
    uint32_t blockNumber = 8;
    uint16_t dstRepStride = 8;
    uint8_t dstBlkStride = 1;
    uint8_t src0BlkStride = 1;
    uint8_t src1BlkStride = 1;
    uint8_t src0RepStride = 8;
    uint8_t src1RepStride = 8;
    bool repeatStrideMode = false;
    bool strideSizeMode = false;
};
template <class T>
inline void Gatherb(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<uint32_t> &offset,
                    const uint8_t repeatTime, const GatherRepeatParams &p, TWIN_LOC) {
    static_assert(sizeof(T) == 2 || sizeof(T) == 4, "Gatherb: uint16_t or uint32_t on A2 / A3");
    const char *api = "Gatherb";
    const uint32_t sz = sizeof(T);
    if (repeatTime > 0 && dst.addr_ == src.addr_)
        twin::fault(twin_file, twin_line, "Gatherb: src and dst are the same UB address; the API does not allow it");
    const uint64_t blk = p.dstBlkStride == 0 ? 1 : p.dstBlkStride;
    for (uint64_t i = 0; i < repeatTime; i++)
        for (uint64_t j = 0; j < 8; j++) {
            const uint64_t off = twin::ld<uint32_t>(twin::ub_span(offset.addr_ + (i * 8 + j) * 4, 4, api, TWIN_LOC_ARGS));
            if (off % sz != 0 || (src.addr_ + off) % 32 != 0)
                twin::fault(twin_file, twin_line,
                            "Gatherb: offset %llu of block %llu leaves the block unaligned (a multiple of %u bytes "
                            "that keeps it 32-byte aligned is required)",
                            (unsigned long long)off, (unsigned long long)(i * 8 + j), sz);
            const uint8_t *from = twin::ub_span(src.addr_ + off, 32, api, TWIN_LOC_ARGS);
            uint8_t block[32];
            __builtin_memcpy(block, from, 32);
            uint8_t *to = twin::ub_span(dst.addr_ + (i * p.dstRepStride + j * blk) * 32, 32, api, TWIN_LOC_ARGS);
            __builtin_memcpy(to, block, 32);
        }
    twin::tr_vec(api, sz, (uint64_t)repeatTime * 256 / sz, repeatTime, twin_line);
}

// GatherMask (asc-devkit docs/zh/api/SIMD-API/基础API/Memory矢量计算/比较与选择/GatherMask.md): keeps the
// elements of src0 whose gather-mask bit is 1 and packs them, in order, at the start of dst; rsvdCnt
// is how many were kept. Normal mode (reduceMode false): repeatTimes repeats of 256 bytes each, mask
// ignored. Counter mode (reduceMode true, the Atlas A2/A3 form): repeatTimes repeats of `mask`
// elements each. Element j of repeat r is read at r * src0RepeatStride + (j / per-block) *
// src0BlockStride blocks. The mask is a built-in pattern (1: even indices of each repeat, 2: odd,
// 3-6: the first..fourth of every four, 7: all) or a tensor whose bits (bit j of the repeat's pattern,
// lowest first) are consumed in order within a repeat, repeat r's pattern starting src1RepeatStride*r
// blocks in. The source is read whole before dst is written (dst may be src0, compacting in place).
// The call leaves the mask in Normal mode, as the doc says.
enum class GatherMaskMode : uint8_t { VERSION_V1 = 0, VERSION_V2 = 1 };
const GatherMaskMode defaultGatherMaskMode = GatherMaskMode::VERSION_V2;
struct GatherMaskParams {
    uint8_t src0BlockStride = 1;
    uint16_t repeatTimes = 0;
    uint16_t src0RepeatStride = 0;
    uint8_t src1RepeatStride = 0;
    GatherMaskParams() = default;
    GatherMaskParams(uint8_t b, uint16_t r, uint16_t s0, uint8_t s1)
        : src0BlockStride(b), repeatTimes(r), src0RepeatStride(s0), src1RepeatStride(s1) {}
};
} // namespace AscendC
namespace twin {
template <class T, class Bit>
inline void gather_mask(const AscendC::LocalTensor<T> &dst, const AscendC::LocalTensor<T> &src0, bool reduceMode, uint32_t mask,
                        const AscendC::GatherMaskParams &p, uint64_t &rsvdCnt, Bit bit, TWIN_LOC_DECL) {
    const char *api = "GatherMask";
    const uint32_t sz = sizeof(T);
    if (sz != 2 && sz != 4)
        fault(twin_file, twin_line, "%s: element type of %u bytes; Atlas A2/A3 take 16- or 32-bit types only", api, sz);
    if (reduceMode && mask == 0) fault(twin_file, twin_line, "%s: Counter mode (reduceMode true) needs mask >= 1", api);
    const uint32_t per = reduceMode ? mask : 256 / sz;
    std::vector<T> kept;
    for (uint64_t r = 0; r < p.repeatTimes; r++)
        for (uint32_t j = 0; j < per; j++)
            if (bit(r, j))
                kept.push_back(ld<T>(ub_span(l0_addr(src0.addr_, sz, r, j, p.src0BlockStride, p.src0RepeatStride), sz, api,
                                             TWIN_LOC_ARGS)));
    if (!kept.empty()) {
        uint8_t *pd = vspan(dst, kept.size(), api, TWIN_LOC_ARGS);
        for (size_t i = 0; i < kept.size(); i++) st<T>(pd + i * sz, kept[i]);
    }
    rsvdCnt = kept.size();
    g.rsvd_cnt = kept.size();
    g.mask_counter = false;
    tr_vec(api, sz, (uint64_t)p.repeatTimes * per, p.repeatTimes, twin_line);
}
} // namespace twin
namespace AscendC {
template <class T, class U, GatherMaskMode mode = defaultGatherMaskMode>
inline void GatherMask(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<U> &src1Pattern, const bool reduceMode,
                       const uint32_t mask, const GatherMaskParams &p, uint64_t &rsvdCnt, TWIN_LOC) {
    static_assert(sizeof(U) == sizeof(T), "GatherMask: the pattern tensor's type must be as wide as the data's (uint16_t for half, uint32_t for float)");
    const uint32_t per = reduceMode ? mask : 256 / sizeof(T);
    const uint32_t pattern_bytes = (per + 7) / 8;
    auto bit = [&](uint64_t r, uint32_t j) {
        const uint8_t *pb = twin::ub_span(src1Pattern.addr_ + r * p.src1RepeatStride * 32, pattern_bytes, "GatherMask", TWIN_LOC_ARGS);
        return ((pb[j / 8] >> (j % 8)) & 1) != 0;
    };
    twin::gather_mask(dst, src0, reduceMode, mask, p, rsvdCnt, bit, TWIN_LOC_ARGS);
}
template <class T, GatherMaskMode mode = defaultGatherMaskMode>
inline void GatherMask(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const uint8_t src1Pattern, const bool reduceMode,
                       const uint32_t mask, const GatherMaskParams &p, uint64_t &rsvdCnt, TWIN_LOC) {
    if (src1Pattern < 1 || src1Pattern > 7)
        twin::fault(twin_file, twin_line, "GatherMask: built-in pattern %u is out of [1, 7]", (unsigned)src1Pattern);
    auto bit = [&](uint64_t, uint32_t j) {
        switch (src1Pattern) {
        case 1: return j % 2 == 0;
        case 2: return j % 2 == 1;
        case 7: return true;
        default: return j % 4 == (uint32_t)(src1Pattern - 3);
        }
    };
    twin::gather_mask(dst, src0, reduceMode, mask, p, rsvdCnt, bit, TWIN_LOC_ARGS);
}

// PairReduceSum: sums adjacent pairs; per repeat epr/2 outputs, dstRepStride in those units.
template <class T, bool isSetMask = true>
inline void PairReduceSum(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t repeatTimes, const int32_t mask,
                          const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride, TWIN_LOC) {
    const uint32_t sz = sizeof(T), epr = 256 / sz;
    twin::L0Mask m = twin::mask_cont((uint64_t)mask, isSetMask);
    static double acc[256][128];
    for (int r = 0; r < 256; r++) for (int k = 0; k < 128; k++) acc[r][k] = 0;
    uint64_t n = twin::l0_each(m, (uint64_t)repeatTimes, epr, [&](uint64_t r, uint32_t j) {
        if (r >= 256) return;
        const uint8_t *p = twin::ub_span(twin::l0_addr(src.addr_, sz, r, j, (uint32_t)srcBlkStride, (uint32_t)srcRepStride), sz,
                                         "PairReduceSum", TWIN_LOC_ARGS);
        acc[r][j / 2] += (double)twin::up(twin::ld<T>(p));
    });
    for (int32_t r = 0; r < repeatTimes && r < 256; r++)
        for (uint32_t k = 0; k < epr / 2; k++)
            twin::st<T>(twin::ub_span(dst.addr_ + ((uint64_t)r * dstRepStride * (epr / 2) + k) * sz, sz, "PairReduceSum", TWIN_LOC_ARGS),
                        (T)(twin::calc_t<T>)acc[r][k]);
    twin::tr_vec("PairReduceSum", sz, n, (uint64_t)repeatTimes, twin_line);
}

// IBSet / IBWait (inter-block flags through GM): blocks run sequentially in the twin, so they are
// recorded only.
template <bool isAIVOnly = true>
inline void IBSet(const GlobalTensor<int32_t> &, const LocalTensor<int32_t> &, int32_t, int32_t, TWIN_LOC) {
    twin::tr_instr(twin::P_S, "IBSet", twin_line);
}
template <bool isAIVOnly = true>
inline void IBWait(const GlobalTensor<int32_t> &, const LocalTensor<int32_t> &, int32_t, int32_t, TWIN_LOC) {
    twin::tr_instr(twin::P_S, "IBWait", twin_line);
}

// Broadcast / BroadCast (high-level API, asc-devkit docs atlasascendc_api_07_0853): numpy-style
// broadcasting of a dense row-major src of srcShape into a dense dst of dstShape, dim 1 or 2; along
// `axis` the source extent is 1. The temporary buffer of the device implementation is not needed.
template <class T, int32_t dim, int32_t axis, bool isReuseSource = false>
inline void Broadcast(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint32_t dstShape[dim],
                      const uint32_t srcShape[dim], TWIN_LOC) {
    static_assert(dim == 1 || dim == 2, "Broadcast: dim must be 1 or 2");
    static_assert(axis >= 0 && axis < dim, "Broadcast: axis out of range");
    const char *api = "Broadcast";
    uint32_t rows = dim == 2 ? dstShape[0] : 1, cols = dstShape[dim - 1];
    uint32_t srows = dim == 2 ? srcShape[0] : 1, scols = srcShape[dim - 1];
    for (int32_t d = 0; d < dim; d++)
        if (srcShape[d] != dstShape[d] && srcShape[d] != 1)
            twin::fault(twin_file, twin_line, "%s: source extent %u of dimension %d cannot broadcast to %u", api,
                        srcShape[d], d, dstShape[d]);
    uint8_t *pd = twin::vspan(dst, (uint64_t)rows * cols, api, TWIN_LOC_ARGS);
    const uint8_t *ps = twin::vspan(src, (uint64_t)srows * scols, api, TWIN_LOC_ARGS);
    for (uint32_t i = 0; i < rows; i++)
        for (uint32_t j = 0; j < cols; j++) {
            uint64_t k = (uint64_t)(srows == 1 ? 0 : i) * scols + (scols == 1 ? 0 : j);
            twin::st<T>(pd + ((uint64_t)i * cols + j) * sizeof(T), twin::ld<T>(ps + k * sizeof(T)));
        }
    twin::tr_vec(api, sizeof(T), (uint64_t)rows * cols, twin::vec_rep((uint64_t)rows * cols, sizeof(T)), twin_line);
}
template <class T, int32_t dim, int32_t axis, bool isReuseSource = false>
inline void Broadcast(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint32_t dstShape[dim],
                      const uint32_t srcShape[dim], const LocalTensor<uint8_t> &, TWIN_LOC) {
    Broadcast<T, dim, axis, isReuseSource>(dst, src, dstShape, srcShape, TWIN_LOC_ARGS);
}
// The older spelling.
template <class T, int32_t dim, int32_t axis, bool isReuseSource = false>
inline void BroadCast(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint32_t dstShape[dim],
                      const uint32_t srcShape[dim], TWIN_LOC) {
    Broadcast<T, dim, axis, isReuseSource>(dst, src, dstShape, srcShape, TWIN_LOC_ARGS);
}
template <class T, int32_t dim, int32_t axis, bool isReuseSource = false>
inline void BroadCast(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint32_t dstShape[dim],
                      const uint32_t srcShape[dim], const LocalTensor<uint8_t> &, TWIN_LOC) {
    Broadcast<T, dim, axis, isReuseSource>(dst, src, dstShape, srcShape, TWIN_LOC_ARGS);
}

// ArithProgression (high-level API, asc-devkit docs atlasascendc_api_07_0856): count elements
// firstValue, firstValue + diffValue, ... built as documented: the first 8 by scalar writes, then
// blocks of 8 up to 64 and blocks of 64 beyond, each block the previous one plus (block length *
// diffValue), every addition rounded to T.
template <class T>
inline void ArithProgression(const LocalTensor<T> &dst, const T firstValue, const T diffValue, const int32_t count, TWIN_LOC) {
    const char *api = "ArithProgression";
    twin::vcheck(count, api, TWIN_LOC_ARGS);
    uint8_t *pd = twin::vspan(dst, (uint64_t)count, api, TWIN_LOC_ARGS);
    auto at = [&](int32_t i) -> T { return twin::ld<T>(pd + (uint64_t)i * sizeof(T)); };
    auto set = [&](int32_t i, T v) { twin::st<T>(pd + (uint64_t)i * sizeof(T), v); };
    const auto f = twin::up(firstValue), d = twin::up(diffValue);
    for (int32_t i = 0; i < count && i < 8; i++) set(i, (T)(f + (decltype(f))i * d));
    const T step8 = (T)(d * 8), step64 = (T)(d * 64);
    for (int32_t i = 8; i < count && i < 64; i++) set(i, (T)(twin::up(at(i - 8)) + twin::up(step8)));
    for (int32_t i = 64; i < count; i++) set(i, (T)(twin::up(at(i - 64)) + twin::up(step64)));
    twin::tr_vec(api, sizeof(T), (uint64_t)count, twin::vec_rep((uint64_t)count, sizeof(T)), twin_line);
}

// Scalar conversions of bfloat16_t / half values (ToFloat, ToBfloat16).
template <class T> inline float ToFloat(const T &v) { return (float)twin::up(v); }
inline bfloat16_t ToBfloat16(const float &v) { return bfloat16_t(v); }
// Their newer names (asc-devkit include/basic_api/kernel_operator_scalar_intf.h: "ToFloat has been
// updated, please use Cast instead"; on the A2/A3 arch, Cast(bfloat16_t) -> float and
// Cast(float) -> bfloat16_t): the same conversions. ops-nn's add_layer_norm_quant reads a bfloat16 scale
// as `float s = Cast(scalesGm.GetValue(0));`.
inline float Cast(const bfloat16_t &v) { return ToFloat(v); }
inline bfloat16_t Cast(const float &v) { return ToBfloat16(v); }

// CreateVecIndex (asc-devkit docs): dst[i] = firstValue + i; in the mask/repeat form element j of
// repeat r is firstValue + r * elements-per-repeat + j (strides in 32-byte blocks, as level-0 forms).
template <class T>
inline void CreateVecIndex(const LocalTensor<T> &dst, const T &firstValue, uint32_t calCount, TWIN_LOC) {
    uint8_t *pd = twin::vspan(dst, calCount, "CreateVecIndex", TWIN_LOC_ARGS);
    const auto f = twin::up(firstValue);
    for (uint32_t i = 0; i < calCount; i++) twin::st<T>(pd + (uint64_t)i * sizeof(T), (T)(f + (decltype(f))i));
    twin::tr_vec("CreateVecIndex", sizeof(T), calCount, twin::vec_rep(calCount, sizeof(T)), twin_line);
}
template <class T>
inline void CreateVecIndex(const LocalTensor<T> &dst, const T &firstValue, uint64_t mask, uint8_t repeatTimes,
                           uint16_t dstBlkStride, uint8_t dstRepStride, TWIN_LOC) {
    const uint32_t sz = sizeof(T), epr = 256 / sz;
    const auto f = twin::up(firstValue);
    uint64_t n = twin::l0_each(twin::mask_cont(mask, true), repeatTimes, epr, [&](uint64_t r, uint32_t j) {
        uint8_t *p = twin::ub_span(twin::l0_addr(dst.addr_, sz, r, j, dstBlkStride, dstRepStride), sz, "CreateVecIndex", TWIN_LOC_ARGS);
        twin::st<T>(p, (T)(f + (decltype(f))(r * epr + j)));
    });
    twin::tr_vec("CreateVecIndex", sz, n, repeatTimes, twin_line);
}


// TransDataTo5HD (NCHW -> NC1HWC0, or blockwise transposes). Written from the asc-devkit page
// (atlasascendc_api_07_0200, https://www.hiascend.com/document/detail/zh/CANNCommunityEdition/850/API/ascendcopapi/atlasascendc_api_07_0200.html)
// and the TIK page of the same instruction, vec_trans_scatter (atlastikapi_07_0097), for the strides.
// One repeat reads 16 source datablocks (32 B each, the 16 list entries) and writes 16 destination ones:
//   16-bit: pass j (0..15) takes element j of every source block -> destination block j;
//   32-bit: pass j (0..7) takes element j of every source block: sources 0..7 -> destination 2j,
//           sources 8..15 -> destination 2j+1;
//   8-bit:  pass j (0..15) takes element j (+16 when srcHighHalf) of every source block -> the low
//           (or, dstHighHalf, the high) 16 bytes of destination block j.
// Repeat strides are in 32 B blocks: repeat r starts r * stride blocks after the list entries; with
// repeatTimes 1 the (only) repeat starts one stride after them (vec_trans_scatter's note).
struct TransDataTo5HDParams {
    bool dstHighHalf = false;
    bool srcHighHalf = false;
    uint8_t repeatTimes = 1;
    uint16_t dstRepStride = 0;
    uint16_t srcRepStride = 0;
    TransDataTo5HDParams() = default;
    TransDataTo5HDParams(bool dstHigh, bool srcHigh, uint8_t repeat, uint16_t dstStride, uint16_t srcStride)
        : dstHighHalf(dstHigh), srcHighHalf(srcHigh), repeatTimes(repeat), dstRepStride(dstStride), srcRepStride(srcStride) {}
};
constexpr uint32_t NCHW_CONV_ADDR_LIST_SIZE = 16;
} // namespace AscendC

namespace twin {
template <class T>
inline void trans_5hd(const uint64_t *dst_in, const uint64_t *src_in, const AscendC::TransDataTo5HDParams &p, TWIN_LOC_DECL) {
    const char *api = "TransDataTo5HD";
    // address lists as kernels fill them, from GetPhyAddr(): pointers into the UB arena, taken back to UB addresses
    uint64_t dst[16], src[16];
    for (int i = 0; i < 16; i++) {
        dst[i] = ub_addr_of_ptr((const void *)(uintptr_t)dst_in[i]);
        src[i] = ub_addr_of_ptr((const void *)(uintptr_t)src_in[i]);
    }
    const uint32_t sz = sizeof(T);
    if (sz != 1 && sz != 2 && sz != 4) fault(twin_file, twin_line, "%s: element size %u is not 8, 16 or 32 bits", api, sz);
    for (int i = 0; i < 16; i++)
        if (src[i] % 32 != 0)
            fault(twin_file, twin_line, "%s: source list entry %d (UB byte %llu) is not 32-byte aligned", api, i,
                  (unsigned long long)src[i]);
    for (uint32_t r = 0; r < p.repeatTimes; r++) {
        const uint64_t k = p.repeatTimes == 1 ? 1 : r;
        const uint64_t so = k * p.srcRepStride * 32, dof = k * p.dstRepStride * 32;
        uint8_t in[16][32];
        for (int i = 0; i < 16; i++) std::memcpy(in[i], ub_span(src[i] + so, 32, api, TWIN_LOC_ARGS), 32);
        if (sz == 2) {
            for (int j = 0; j < 16; j++) {
                uint8_t *d = ub_span(dst[j] + dof, 32, api, TWIN_LOC_ARGS);
                for (int i = 0; i < 16; i++) std::memcpy(d + i * 2, in[i] + j * 2, 2);
            }
        } else if (sz == 4) {
            for (int j = 0; j < 8; j++)
                for (int h = 0; h < 2; h++) {
                    uint8_t *d = ub_span(dst[2 * j + h] + dof, 32, api, TWIN_LOC_ARGS);
                    for (int i = 0; i < 8; i++) std::memcpy(d + i * 4, in[h * 8 + i] + j * 4, 4);
                }
        } else {
            const int sh = p.srcHighHalf ? 16 : 0, dh = p.dstHighHalf ? 16 : 0;
            for (int j = 0; j < 16; j++) {
                uint8_t *d = ub_span(dst[j] + dof + dh, 16, api, TWIN_LOC_ARGS);
                for (int i = 0; i < 16; i++) d[i] = in[i][sh + j];
            }
        }
    }
    // Each repeat moves 512 B (16 blocks); costed per repeat (src/model/costs.rs).
    tr_vec(api, sz, (uint64_t)p.repeatTimes * 512 / sz, p.repeatTimes, twin_line);
}
} // namespace twin

namespace AscendC {
// Address-list form: UB addresses as LocalTensor::GetPhyAddr() gives them.
template <class T>
inline void TransDataTo5HD(const uint64_t dstList[NCHW_CONV_ADDR_LIST_SIZE], const uint64_t srcList[NCHW_CONV_ADDR_LIST_SIZE],
                           const TransDataTo5HDParams &p, TWIN_LOC) {
    twin::trans_5hd<T>(dstList, srcList, p, TWIN_LOC_ARGS);
}
// LocalTensor-list form.
template <class T>
inline void TransDataTo5HD(const LocalTensor<T> (&dstList)[NCHW_CONV_ADDR_LIST_SIZE],
                           const LocalTensor<T> (&srcList)[NCHW_CONV_ADDR_LIST_SIZE], const TransDataTo5HDParams &p, TWIN_LOC) {
    uint64_t d[16], s[16];
    for (int i = 0; i < 16; i++) { d[i] = dstList[i].addr_; s[i] = srcList[i].addr_; }
    twin::trans_5hd<T>(d, s, p, TWIN_LOC_ARGS);
}
// Raw UB pointer lists, the form under the public API (`TransDataTo5HDImpl` of CANN's
// kernel_operator_vec_transpose_impl.h, which ops-nn's ge_glu_grad_v2 calls directly with
// `(__ubuf__ T*)tensor.GetPhyAddr() + offset` entries): a pointer is its UB address.
template <class T>
inline void TransDataTo5HDImpl(T *dstList[NCHW_CONV_ADDR_LIST_SIZE], T *srcList[NCHW_CONV_ADDR_LIST_SIZE],
                               const TransDataTo5HDParams &p, TWIN_LOC) {
    uint64_t d[16], s[16];
    for (int i = 0; i < 16; i++) {
        d[i] = (uint64_t)(uintptr_t)dstList[i];
        s[i] = (uint64_t)(uintptr_t)srcList[i];
    }
    twin::trans_5hd<T>(d, s, p, TWIN_LOC_ARGS);
}
// Addresses held in UB: two uint64_t tensors of 16 addresses each.
template <class T>
inline void TransDataTo5HD(const LocalTensor<uint64_t> &dst, const LocalTensor<uint64_t> &src, const TransDataTo5HDParams &p, TWIN_LOC) {
    uint64_t d[16], s[16];
    for (uint32_t i = 0; i < 16; i++) {
        d[i] = twin::ld<uint64_t>(twin::ub_span(dst.addr_ + i * 8, 8, "TransDataTo5HD", TWIN_LOC_ARGS));
        s[i] = twin::ld<uint64_t>(twin::ub_span(src.addr_ + i * 8, 8, "TransDataTo5HD", TWIN_LOC_ARGS));
    }
    twin::trans_5hd<T>(d, s, p, TWIN_LOC_ARGS);
}

// ---------------------------------------------------------------------------------------------
// Reductions over one axis of a 2-D tensor (asc-devkit docs, ReduceSum / ReduceMax / ReduceMin of the
// high-level API, e.g. https://www.hiascend.com/document/detail/zh/canncommercial/850/API/ascendcopapi/atlasascendc_api_07_10017.html):
// srcShape = {rows, cols}; pattern AR reduces each row (dst has `rows` elements), RA each column (dst
// has `cols`). With srcInnerPad (the only form A2/A3 accept) each row starts 32 B after the last, so the
// row stride is cols rounded up to 32 B. isReuseSource and the temporary buffer change no result.
// Order of additions (no figure in the docs, G): a row is summed as a tree, like ReduceSum of the basic
// API; columns add the rows one after another, as a run of vector Adds would.
// ---------------------------------------------------------------------------------------------
namespace Pattern {
namespace Reduce {
struct AR {};
struct RA {};
} // namespace Reduce
} // namespace Pattern

namespace twin_red2 {
enum Op { SUM, MAX, MIN };
template <class T, class pattern>
inline void reduce(Op op, const char *api, const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint32_t srcShape[],
                   bool srcInnerPad, TWIN_LOC_DECL) {
    static_assert(std::is_same<pattern, Pattern::Reduce::AR>::value || std::is_same<pattern, Pattern::Reduce::RA>::value,
                  "the twin's ReduceSum/Max/Min take pattern AR or RA (the ones the docs allow)");
    const uint64_t rows = srcShape[0], cols = srcShape[1], per = 32 / sizeof(T);
    const uint64_t stride = srcInnerPad ? (cols + per - 1) / per * per : cols;
    if (rows == 0 || cols == 0) return;
    const uint8_t *ps = twin::ub_span(src.addr_, ((rows - 1) * stride + cols) * sizeof(T), api, TWIN_LOC_ARGS);
    auto at = [&](uint64_t r, uint64_t c) { return twin::ld<T>(ps + (r * stride + c) * sizeof(T)); };
    auto pick = [op](T a, T b) -> T {
        if (op == SUM) return twin::red_add(a, b);
        auto x = twin::up(a), y = twin::up(b);
        return (op == MAX ? (y > x) : (y < x)) ? b : a;
    };
    const bool ar = std::is_same<pattern, Pattern::Reduce::AR>::value;
    const uint64_t outs = ar ? rows : cols;
    uint8_t *pd = twin::ub_span(dst.addr_, outs * sizeof(T), api, TWIN_LOC_ARGS);
    if (ar) {
        std::vector<T> row(cols);
        for (uint64_t r = 0; r < rows; r++) {
            for (uint64_t c = 0; c < cols; c++) row[c] = at(r, c);
            T v = row[0];
            if (op == SUM) v = twin::tree_sum(row.data(), (uint32_t)cols);
            else for (uint64_t c = 1; c < cols; c++) v = pick(v, row[c]);
            twin::st<T>(pd + r * sizeof(T), v);
        }
    } else {
        for (uint64_t c = 0; c < cols; c++) {
            T v = at(0, c);
            for (uint64_t r = 1; r < rows; r++) v = pick(v, at(r, c));
            twin::st<T>(pd + c * sizeof(T), v);
        }
    }
    twin::tr_vec(api, sizeof(T), rows * cols, twin::vec_rep(rows * cols, sizeof(T)), twin_line);
}
} // namespace twin_red2

#define TWIN_RED2(NAME, OP)                                                                                      \
    template <class T, class pattern, bool isReuseSource = false>                                                \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<uint8_t> &,         \
                     const uint32_t srcShape[], bool srcInnerPad, TWIN_LOC) {                                    \
        twin_red2::reduce<T, pattern>(twin_red2::OP, #NAME, dst, src, srcShape, srcInnerPad, TWIN_LOC_ARGS);     \
    }                                                                                                            \
    template <class T, class pattern, bool isReuseSource = false>                                                \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint32_t srcShape[],            \
                     bool srcInnerPad, TWIN_LOC) {                                                               \
        twin_red2::reduce<T, pattern>(twin_red2::OP, #NAME, dst, src, srcShape, srcInnerPad, TWIN_LOC_ARGS);     \
    }
TWIN_RED2(ReduceSum, SUM)
TWIN_RED2(ReduceMax, MAX)
TWIN_RED2(ReduceMin, MIN)
#undef TWIN_RED2

} // namespace AscendC
