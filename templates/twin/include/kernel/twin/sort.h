// twin: the high-level Power API and the sort family of the Atlas A2 / A3 layout (Concat, Sort,
// Sort32, Extract), pipe V. Written from the public AscendC documentation:
//   Power   https://www.hiascend.com/document/detail/zh/canncommercial/800/apiref/ascendcopapi/atlasascendc_api_07_0520.html
//   Concat  https://www.hiascend.com/document/detail/zh/canncommercial/800/apiref/ascendcopapi/atlasascendc_api_07_0838.html
//   Sort    https://www.hiascend.com/document/detail/en/canncommercial/latest/API/ascendcopapi/atlasascendc_api_07_0842.html
//   Sort32  https://www.hiascend.com/doc_center/source/zh/canncommercial/700/operatordev/Ascendcopdevg/atlasascendc_api_07_0172.html
// Sorted data on A2 / A3 ("layout 1") is one 8-byte (score, index) structure per element: the score in
// the low bytes (a half score in the low 2, the next 2 reserved), the uint32 index in the high 4.
// Sorting is descending by score; equal scores keep their input order.
#pragma once
#include "vec.h"

namespace twin {

// x ** y as the twin computes Power: floats in float (half / bfloat16 widened), integers exactly by
// repeated squaring with wrap-around; a negative integer exponent gives 1 / x ** -y truncated (0
// unless |x| == 1).
template <class T> inline T power_one(T x, T y) {
    if constexpr (std::is_integral<T>::value) {
        using W = typename std::make_unsigned<T>::type;
        if (y < 0) {
            if (x == 1) return (T)1;
            if (x == (T)-1) return (T)(((-(int64_t)y) & 1) ? -1 : 1);
            return (T)0;
        }
        W acc = 1, base = (W)x;
        for (uint64_t e = (uint64_t)y; e; e >>= 1) {
            if (e & 1) acc = (W)(acc * base);
            base = (W)(base * base);
        }
        return (T)acc;
    } else {
        return (T)m_pow((float)up(x), (float)up(y));
    }
}

template <class T, class F>
inline void power_each(const AscendC::LocalTensor<T> &dst, uint32_t n, F value_at, TWIN_LOC_DECL) {
    uint8_t *pd = vspan(dst, n, "Power", TWIN_LOC_ARGS);
    for (uint32_t i = 0; i < n; i++) st<T>(pd + (uint64_t)i * sizeof(T), value_at(i));
    tr_vec("Power", sizeof(T), n, vec_rep(n, sizeof(T)), twin_line);
}

// One (score, index) structure of the A2 layout.
template <class T> inline void sort_store(uint8_t *p, T score, uint32_t index) {
    uint8_t zero[8] = {0};
    __builtin_memcpy(p, zero, 8);
    st<T>(p, score);
    st<uint32_t>(p + 4, index);
}

} // namespace twin

namespace AscendC {

// ---- Power: dst = src0 ** src1, tensor ** tensor, tensor ** scalar, scalar ** tensor; with or without
// a shared tmp buffer (the twin needs none), over calCount elements or the whole destination.
template <class T, bool isReuseSource = false>
inline void Power(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1, uint32_t calCount,
                  TWIN_LOC) {
    const uint8_t *a = twin::vspan(src0, calCount, "Power", TWIN_LOC_ARGS);
    const uint8_t *b = twin::vspan(src1, calCount, "Power", TWIN_LOC_ARGS);
    twin::power_each(dst, calCount, [&](uint32_t i) {
        return twin::power_one<T>(twin::ld<T>(a + (uint64_t)i * sizeof(T)), twin::ld<T>(b + (uint64_t)i * sizeof(T)));
    }, TWIN_LOC_ARGS);
}
template <class T, bool isReuseSource = false>
inline void Power(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const T &src1, uint32_t calCount, TWIN_LOC) {
    const uint8_t *a = twin::vspan(src0, calCount, "Power", TWIN_LOC_ARGS);
    const T e = src1;
    twin::power_each(dst, calCount, [&](uint32_t i) { return twin::power_one<T>(twin::ld<T>(a + (uint64_t)i * sizeof(T)), e); },
                     TWIN_LOC_ARGS);
}
template <class T, bool isReuseSource = false>
inline void Power(const LocalTensor<T> &dst, const T &src0, const LocalTensor<T> &src1, uint32_t calCount, TWIN_LOC) {
    const uint8_t *b = twin::vspan(src1, calCount, "Power", TWIN_LOC_ARGS);
    const T x = src0;
    twin::power_each(dst, calCount, [&](uint32_t i) { return twin::power_one<T>(x, twin::ld<T>(b + (uint64_t)i * sizeof(T))); },
                     TWIN_LOC_ARGS);
}
template <class T, bool isReuseSource = false>
inline void Power(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1,
                  const LocalTensor<uint8_t> &, uint32_t calCount, TWIN_LOC) {
    Power<T, isReuseSource>(dst, src0, src1, calCount, TWIN_LOC_ARGS);
}
template <class T, bool isReuseSource = false>
inline void Power(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const T &src1, const LocalTensor<uint8_t> &,
                  uint32_t calCount, TWIN_LOC) {
    Power<T, isReuseSource>(dst, src0, src1, calCount, TWIN_LOC_ARGS);
}
template <class T, bool isReuseSource = false>
inline void Power(const LocalTensor<T> &dst, const T &src0, const LocalTensor<T> &src1, const LocalTensor<uint8_t> &,
                  uint32_t calCount, TWIN_LOC) {
    Power<T, isReuseSource>(dst, src0, src1, calCount, TWIN_LOC_ARGS);
}
template <class T, bool isReuseSource = false>
inline void Power(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1,
                  const LocalTensor<uint8_t> &, TWIN_LOC) {
    Power<T, isReuseSource>(dst, src0, src1, dst.GetSize(), TWIN_LOC_ARGS);
}
template <class T, bool isReuseSource = false>
inline void Power(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const T &src1, const LocalTensor<uint8_t> &,
                  TWIN_LOC) {
    Power<T, isReuseSource>(dst, src0, src1, dst.GetSize(), TWIN_LOC_ARGS);
}
template <class T, bool isReuseSource = false>
inline void Power(const LocalTensor<T> &dst, const T &src0, const LocalTensor<T> &src1, const LocalTensor<uint8_t> &,
                  TWIN_LOC) {
    Power<T, isReuseSource>(dst, src0, src1, dst.GetSize(), TWIN_LOC_ARGS);
}
template <class T, bool isReuseSource = false>
inline void Power(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1, TWIN_LOC) {
    Power<T, isReuseSource>(dst, src0, src1, dst.GetSize(), TWIN_LOC_ARGS);
}
template <class T, bool isReuseSource = false>
inline void Power(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const T &src1, TWIN_LOC) {
    Power<T, isReuseSource>(dst, src0, src1, dst.GetSize(), TWIN_LOC_ARGS);
}
template <class T, bool isReuseSource = false>
inline void Power(const LocalTensor<T> &dst, const T &src0, const LocalTensor<T> &src1, TWIN_LOC) {
    Power<T, isReuseSource>(dst, src0, src1, dst.GetSize(), TWIN_LOC_ARGS);
}

// ---- Concat: on A2 / A3 the scores go into `concat` one to one (16 elements per repeat), ready for Sort.
template <class T>
inline void Concat(LocalTensor<T> &concat, const LocalTensor<T> &src, const LocalTensor<T> &, const int32_t repeatTime,
                   TWIN_LOC) {
    if (repeatTime < 0 || repeatTime > 255)
        twin::fault(twin_file, twin_line, "Concat: repeatTime %d out of range 0..255", repeatTime);
    const uint32_t n = (uint32_t)repeatTime * 16;
    const uint8_t *ps = twin::vspan(src, n, "Concat", TWIN_LOC_ARGS);
    uint8_t *pd = twin::vspan(concat, n, "Concat", TWIN_LOC_ARGS);
    __builtin_memmove(pd, ps, (size_t)n * sizeof(T));
    twin::tr_vec("Concat", sizeof(T), n, (uint64_t)repeatTime, twin_line);
}

// ---- Sort32: each repeat sorts 32 scores with their indexes into 32 (score, index) structures.
// ---- Sort<T, isFullSort>: repeatTime * 32 scores; all of them (isFullSort) or each group of 32.
namespace twin_sort {
template <class T>
inline void sort_groups(const char *api, const LocalTensor<T> &dst, const LocalTensor<T> &scores,
                        const LocalTensor<uint32_t> &index, uint32_t n, uint32_t group, TWIN_LOC_DECL) {
    static_assert(sizeof(T) <= 4, "Sort scores are half or float");
    const uint8_t *ps = twin::vspan(scores, n, api, TWIN_LOC_ARGS);
    const uint8_t *pi = twin::vspan(index, n, api, TWIN_LOC_ARGS);
    uint8_t *pd = twin::ub_span(dst.addr_, (uint64_t)n * 8, api, TWIN_LOC_ARGS);
    struct Item { float key; T score; uint32_t index; uint32_t pos; };
    static thread_local Item items[65536];
    if (n > 65536) twin::fault(twin_file, twin_line, "%s: %u elements, more than UB can hold", api, n);
    for (uint32_t i = 0; i < n; i++) {
        T s = twin::ld<T>(ps + (uint64_t)i * sizeof(T));
        items[i] = Item{(float)twin::up(s), s, twin::ld<uint32_t>(pi + (uint64_t)i * 4), i};
    }
    for (uint32_t g = 0; g < n; g += group) {
        uint32_t end = g + group < n ? g + group : n;
        // descending by score, ties in input order (a stable sort)
        for (uint32_t i = g + 1; i < end; i++) {
            Item it = items[i];
            uint32_t j = i;
            while (j > g && items[j - 1].key < it.key) { items[j] = items[j - 1]; j--; }
            items[j] = it;
        }
    }
    for (uint32_t i = 0; i < n; i++) twin::sort_store<T>(pd + (uint64_t)i * 8, items[i].score, items[i].index);
}
} // namespace twin_sort

template <class T>
inline void Sort32(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<uint32_t> &src1,
                   const int32_t repeatTime, TWIN_LOC) {
    if (repeatTime < 0 || repeatTime > 255)
        twin::fault(twin_file, twin_line, "Sort32: repeatTime %d out of range 0..255", repeatTime);
    const uint32_t n = (uint32_t)repeatTime * 32;
    twin_sort::sort_groups<T>("Sort32", dst, src0, src1, n, 32, TWIN_LOC_ARGS);
    twin::tr_vec("Sort32", sizeof(T), n, (uint64_t)repeatTime, twin_line);
}

template <class T, bool isFullSort>
inline void Sort(const LocalTensor<T> &dst, const LocalTensor<T> &concat, const LocalTensor<uint32_t> &index,
                 LocalTensor<T> &, const int32_t repeatTime, TWIN_LOC) {
    if (repeatTime < 0)
        twin::fault(twin_file, twin_line, "Sort: negative repeatTime %d", repeatTime);
    const uint32_t n = (uint32_t)repeatTime * 32;
    twin_sort::sort_groups<T>("Sort", dst, concat, index, n, isFullSort ? (n ? n : 1) : 32, TWIN_LOC_ARGS);
    // Sort32 per group, then merge passes (MrgSort of 4 lists) when the whole input is sorted.
    twin::tr_vec("Sort32", sizeof(T), n, (uint64_t)repeatTime, twin_line);
    if (isFullSort) {
        for (uint32_t len = 32; len < n; len *= 4) twin::tr_vec("MrgSort", sizeof(T), n, (n + 31) / 32, twin_line);
    }
}

// ---- Extract: repeatTime * 32 (score, index) structures split into scores and indexes.
template <class T>
inline void Extract(const LocalTensor<T> &dstValue, const LocalTensor<uint32_t> &dstIndex, const LocalTensor<T> &sorted,
                    const int32_t repeatTime, TWIN_LOC) {
    if (repeatTime < 0 || repeatTime > 255)
        twin::fault(twin_file, twin_line, "Extract: repeatTime %d out of range 0..255", repeatTime);
    const uint32_t n = (uint32_t)repeatTime * 32;
    const uint8_t *ps = twin::ub_span(sorted.addr_, (uint64_t)n * 8, "Extract", TWIN_LOC_ARGS);
    uint8_t *pv = twin::vspan(dstValue, n, "Extract", TWIN_LOC_ARGS);
    uint8_t *pi = twin::vspan(dstIndex, n, "Extract", TWIN_LOC_ARGS);
    for (uint32_t i = 0; i < n; i++) {
        const T s = twin::ld<T>(ps + (uint64_t)i * 8);
        const uint32_t ix = twin::ld<uint32_t>(ps + (uint64_t)i * 8 + 4);
        twin::st<T>(pv + (uint64_t)i * sizeof(T), s);
        twin::st<uint32_t>(pi + (uint64_t)i * 4, ix);
    }
    twin::tr_vec("Extract", sizeof(T), n, (uint64_t)repeatTime, twin_line);
}

// ---- MrgSort (basic, ISASI) (asc-devkit docs/zh/api/SIMD-API/基础API/Memory矢量计算/排序组合（ISASI）/MrgSort.md,
// GetMrgSortResult.md): merges up to 4 queues of (score, index) structures, each sorted by descending score,
// into one descending queue in dst. validBit 3 / 7 / 15 takes the first 2 / 3 / 4 queues; elementLengths
// counts 8-byte structures per queue; equal scores are taken from the earlier queue first. Each of
// repeatTimes iterations merges afresh, with every queue and dst advanced by the 4 queues' total length.
// With ifExhaustedSuspension the merge stops when a queue runs out; GetMrgSortResult then tells how
// many structures of each queue went to dst. Source and destination must not overlap.
template <class T> struct MrgSortSrcList {
    MrgSortSrcList() {}
    MrgSortSrcList(const LocalTensor<T> src1In, const LocalTensor<T> src2In, const LocalTensor<T> src3In,
                   const LocalTensor<T> src4In)
        : src1(src1In[0]), src2(src2In[0]), src3(src3In[0]), src4(src4In[0]) {}
    LocalTensor<T> src1, src2, src3, src4;
};
struct MrgSort4Info {
    MrgSort4Info() {}
    MrgSort4Info(const uint16_t lengths[4], bool suspend, uint16_t valid, uint16_t repeat)
        : ifExhaustedSuspension(suspend), validBit(valid), repeatTimes(repeat) {
        for (int i = 0; i < 4; i++) elementLengths[i] = lengths[i];
    }
    uint16_t elementLengths[4] = {0, 0, 0, 0};
    bool ifExhaustedSuspension = false;
    uint16_t validBit = 15;
    uint16_t repeatTimes = 1;
};
} // namespace AscendC
namespace twin {
inline thread_local uint16_t mrg_sort_taken[4];
} // namespace twin
namespace AscendC {
// GetSortLen / GetSortOffset (asc-devkit docs/zh/api/SIMD-API/高阶API/排序操作/GetSortLen.md, GetSortOffset.md):
// the size of `elemCount` sorted elements, and the offset of element `elemOffset`, in the layout above (8
// bytes an element). The pages say bytes, but the count is of T: 4 halves or 2 floats an element, as the
// public kernels use it (ops-transformer's moe_init_routing: `tmpBuf.Get<float>(GetSortLen<float>(n))`,
// `blockLen = GetSortLen<float>(n) * sizeof(float)`) and as asc-devkit's own implementation for the A2 / A3
// layout reads.
template <class T> inline uint32_t GetSortLen(const uint32_t elemCount) {
    static_assert(std::is_same<T, half>::value || std::is_same<T, float>::value, "GetSortLen: half or float");
    return elemCount * (8u / (uint32_t)sizeof(T));
}
template <class T> inline uint32_t GetSortOffset(const uint32_t elemOffset) {
    static_assert(std::is_same<T, half>::value || std::is_same<T, float>::value, "GetSortOffset: half or float");
    return elemOffset * (8u / (uint32_t)sizeof(T));
}
template <class T>
inline void MrgSort(const LocalTensor<T> &dst, const MrgSortSrcList<T> &src, const MrgSort4Info &params, TWIN_LOC) {
    static_assert(std::is_same<T, half>::value || std::is_same<T, float>::value, "MrgSort: half or float scores");
    const char *api = "MrgSort";
    const int queues = params.validBit == 3 ? 2 : params.validBit == 7 ? 3 : params.validBit == 15 ? 4 : 0;
    if (queues == 0) twin::fault(twin_file, twin_line, "MrgSort: validBit %u; it must be 3, 7 or 15", params.validBit);
    if (params.repeatTimes > 255)
        twin::fault(twin_file, twin_line, "MrgSort: repeatTimes %u out of range 0..255", params.repeatTimes);
    if (dst.addr_ % 32 != 0) twin::fault(twin_file, twin_line, "MrgSort: dst UB address %u is not 32-byte aligned", dst.addr_);
    const LocalTensor<T> *q[4] = {&src.src1, &src.src2, &src.src3, &src.src4};
    uint64_t len[4] = {0, 0, 0, 0}, total = 0, all = 0;
    for (int i = 0; i < 4; i++) len[i] = params.elementLengths[i] & 0xfff;
    for (int i = 0; i < 4; i++) all += len[i];
    for (int i = 0; i < queues; i++) {
        total += len[i];
        if (q[i]->addr_ % 8 != 0)
            twin::fault(twin_file, twin_line, "MrgSort: source queue %d UB address %u is not 8-byte aligned", i + 1, q[i]->addr_);
    }
    uint64_t merged = 0;
    for (uint32_t r = 0; r < params.repeatTimes; r++) {
        const uint8_t *p[4] = {nullptr, nullptr, nullptr, nullptr};
        uint64_t at[4] = {0, 0, 0, 0};
        for (int i = 0; i < queues; i++) {
            const uint64_t a = q[i]->addr_ + (uint64_t)r * all * 8, d0 = dst.addr_ + (uint64_t)r * all * 8;
            if (len[i] > 0 && a < d0 + total * 8 && d0 < a + len[i] * 8)
                twin::fault(twin_file, twin_line, "MrgSort: source queue %d overlaps dst; the API does not allow it", i + 1);
            p[i] = twin::ub_span(a, len[i] * 8, api, TWIN_LOC_ARGS);
        }
        uint8_t *d = twin::ub_span(dst.addr_ + (uint64_t)r * all * 8, total * 8, api, TWIN_LOC_ARGS);
        uint64_t out = 0;
        for (;;) {
            int best = -1;
            float bs = 0;
            bool stop = false;
            for (int i = 0; i < queues; i++) {
                if (at[i] >= len[i]) {
                    if (params.ifExhaustedSuspension) stop = true;
                    continue;
                }
                float sc = (float)twin::up(twin::ld<T>(p[i] + at[i] * 8));
                if (best < 0 || sc > bs) { best = i; bs = sc; }
            }
            if (best < 0 || stop) break;
            __builtin_memcpy(d + out * 8, p[best] + at[best] * 8, 8);
            at[best]++;
            out++;
        }
        for (int i = 0; i < 4; i++) twin::mrg_sort_taken[i] = (uint16_t)at[i];
        merged += out;
    }
    twin::tr_vec(api, sizeof(T), merged, (merged + 31) / 32, twin_line);
}
// ---- MrgSort (advanced) (asc-devkit docs/zh/api/SIMD-API/高阶API/排序操作/MrgSort-93.md): the same merge,
// with the queue lengths, the valid queues and the repeat count as arguments and, with isExhaustedSuspension,
// the count taken from each queue written to sortedNum (the basic form's GetMrgSortResult).
template <class T, bool isExhaustedSuspension = false>
inline void MrgSort(const LocalTensor<T> &dst, const MrgSortSrcList<T> &sortList, const uint16_t elementCountList[4],
                    uint32_t sortedNum[4], uint16_t validBit, const int32_t repeatTime, TWIN_LOC) {
    if (repeatTime < 1 || repeatTime > 255)
        twin::fault(twin_file, twin_line, "MrgSort: repeatTime %d out of range 1..255", (int)repeatTime);
    MrgSort4Info params(elementCountList, isExhaustedSuspension, validBit, (uint16_t)repeatTime);
    MrgSort(dst, sortList, params, TWIN_LOC_ARGS);
    if (isExhaustedSuspension)
        for (int i = 0; i < 4; i++) sortedNum[i] = twin::mrg_sort_taken[i];
}
inline void GetMrgSortResult(uint16_t &mrgSortList1, uint16_t &mrgSortList2, uint16_t &mrgSortList3, uint16_t &mrgSortList4) {
    mrgSortList1 = twin::mrg_sort_taken[0];
    mrgSortList2 = twin::mrg_sort_taken[1];
    mrgSortList3 = twin::mrg_sort_taken[2];
    mrgSortList4 = twin::mrg_sort_taken[3];
}

} // namespace AscendC
