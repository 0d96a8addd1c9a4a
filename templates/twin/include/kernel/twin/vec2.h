// twin: per-repeat and per-block reductions, Brcb and Gather (pipe V).
// Destination repeat strides of reductions are in units of "one repeat's reduced output"
// (asc-devkit docs, reduction instructions: WholeReduce*, BlockReduce*, PairReduceSum).
#pragma once
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
    for (int r = 0; r < 256; r++) { acc[r] = 0; idx[r] = 0; seen[r] = false; }
    uint64_t n = l0_each(m, (uint64_t)repeat, epr, [&](uint64_t r, uint32_t j) {
        if (r >= 256) return;
        const uint8_t *p = ub_span(l0_addr(src.addr_, sz, r, j, (uint32_t)srcBlkStride, (uint32_t)srcRepStride), sz, api, TWIN_LOC_ARGS);
        double v = (double)up(ld<T>(p));
        if (Op == 0) acc[r] += v;
        else if (!seen[r] || (Op == 1 ? v > acc[r] : v < acc[r])) { acc[r] = v; idx[r] = (int32_t)j; }
        seen[r] = true;
    });
    int reps = m.counter ? (int)((m.m0 + epr - 1) / epr) : repeat;
    for (int32_t r = 0; r < reps && r < 256; r++) {
        T val = (T)(calc_t<T>)acc[r];
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
                         TWIN_LOC_DECL) {
    const uint32_t sz = sizeof(T), epr = 256 / sz, epb = 32 / sz;
    if (repeat < 0 || repeat > 255) fault(twin_file, twin_line, "%s: repeatTimes %d out of range 0..255", api, repeat);
    static double acc[256][8];
    static bool seen[256][8];
    for (int r = 0; r < 256; r++) for (int b = 0; b < 8; b++) { acc[r][b] = 0; seen[r][b] = false; }
    uint64_t n = l0_each(m, (uint64_t)repeat, epr, [&](uint64_t r, uint32_t j) {
        if (r >= 256) return;
        const uint8_t *p = ub_span(l0_addr(src.addr_, sz, r, j, (uint32_t)srcBlkStride, (uint32_t)srcRepStride), sz, api, TWIN_LOC_ARGS);
        double v = (double)up(ld<T>(p));
        uint32_t b = j / epb;
        if (Op == 0) acc[r][b] += v;
        else if (!seen[r][b] || (Op == 1 ? v > acc[r][b] : v < acc[r][b])) acc[r][b] = v;
        seen[r][b] = true;
    });
    int reps = m.counter ? (int)((m.m0 + epr - 1) / epr) : repeat;
    for (int32_t r = 0; r < reps && r < 256; r++)
        for (int b = 0; b < 8; b++)
            st<T>(ub_span(dst.addr_ + ((uint64_t)r * dstRepStride * 8 + b) * sz, sz, api, TWIN_LOC_ARGS), (T)(calc_t<T>)acc[r][b]);
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

} // namespace AscendC
