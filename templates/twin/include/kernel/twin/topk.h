// twin: the high-level TopK, pipe V, written from its asc-devkit page, docs/zh/api/SIMD-API/高阶API/排序操作/
// TopK.md (the tiling and scratch queries: TopK-Tiling.md, in tiling/twin_adv_tiling.h; the shared types
// TopkTiling, TopKMode, TopKInfo, TopKConfig: kernel_tiling/kernel_tiling.h). What the page states, and the
// twin does:
//   - srcLocal is outter rows of inner elements (inner a multiple of 32; Small mode: inner == 32; Normal
//     mode: inner <= 4096), n of them real (1 <= n <= inner; the caller pads the rest so that the pad does
//     not change the result); every row gives its k (1 <= k <= n) largest (isLargest, or config.order
//     LARGEST) or smallest values and their indexes, best first.
//   - Order: equal values keep their order in the row (the earlier element first); NaN comes first whether
//     the largest or the smallest are asked for; +-inf are the extremes.
//   - Indexes: with isInitIndex, srcIndexLocal gives them (Normal mode: one row of inner shared by all rows;
//     Small mode: one row of 32 per row); without it, the page's algorithm generates 0..inner-1 for every
//     row, and the twin writes those positions.
//   - Outputs: Normal mode, row r's values at dstValueLocal[r * k_pad] (k_pad: k rounded up to 32 bytes of
//     T) and its indexes at dstIndexLocal[r * kpad_index] (k rounded up to 8); Small mode, rows of exactly k.
//     The padding elements are left as they were (the page: "random values").
//   - isHasfinish (Normal mode only): a row whose finishLocal byte is true has all k indexes set to n; its
//     values are still the row's top k.
//   - The source is left unchanged. The page forbids source and destination to overlap; the twin reads all
//     sources before it writes, and accepts a destination at the very address of its source (a shipped
//     operator, ops-transformer's moe_gating_top_k_softmax, K-full-load path, sorts in place that way), and
//     faults on any other overlap.
//   - tmpLocal (the overloads that take one) must be at VECCALC ("逻辑位置仅支持VECCALC") and hold at least
//     the minimum GetTopKMaxMinTmpSize answers for one row (the page sizes tmpLocal from that query); the
//     overloads without it reserve their scratch outside the twin's view, and nothing is checked.
//   - The tiling is passed through (the page asks no more of the kernel); the shape comes from topKInfo.
// Traced as the page's merge-sort steps on A2 / A3 ("方式二"), so the model costs it from known
// instructions: the index (CreateVecIndex, and a Copy to every row in Small mode) without isInitIndex; a
// Muls by -1 of the input before and after when the smallest are asked for; Sort32 over all rows; in
// Normal mode one 4-way MrgSort pass per factor of 4 beyond 32 in a row; two GatherMask extractions (values,
// indexes) of the first k_pad structures of each row; and a Select of the finished rows' indexes.
// RADIX_SELECT (Ascend 950 only) and its integer types are not modelled: the twin faults on config.algo ==
// RADIX_SELECT. Knows nothing of the tool's Rust side.
#pragma once
#include <algorithm>
#include <vector>
#include "vec.h"
#include "../kernel_tiling/kernel_tiling.h"

namespace twin {
// The page's overlap rule, less the in-place case when `sameOk`: [a, a + abytes) and [b, b + bbytes) must not
// share a byte unless they start at the same address.
inline void no_overlap_but_same(const char *api, const char *what, uint32_t a, uint64_t abytes, uint32_t b,
                                uint64_t bbytes, bool sameOk, TWIN_LOC_DECL) {
    if (sameOk && a == b) return;
    if (abytes > 0 && bbytes > 0 && a < b + bbytes && b < a + abytes)
        fault(twin_file, twin_line, "%s: %s (UB %u and %u) overlap; the API does not allow it", api, what, a, b);
}
// Whether a's score goes before b's (both floats, widened from T): NaN first, then by value; equal ones
// keep their order (the caller's stable sort).
inline bool topk_before(float a, float b, bool largest) {
    const bool an = __builtin_isnan(a), bn = __builtin_isnan(b);
    if (an || bn) return an && !bn;
    return largest ? a > b : a < b;
}

template <class T, bool isInitIndex, bool isHasfinish, AscendC::TopKMode mode>
inline void topk(const AscendC::LocalTensor<T> &dstValue, const AscendC::LocalTensor<int32_t> &dstIndex,
                 const AscendC::LocalTensor<T> &src, const AscendC::LocalTensor<int32_t> &srcIndex,
                 const AscendC::LocalTensor<bool> &finish, const AscendC::LocalTensor<uint8_t> *tmp, const int32_t k,
                 const AscendC::TopKInfo &info, const bool largest, TWIN_LOC_DECL) {
    static_assert(std::is_same<T, half>::value || std::is_same<T, float>::value,
                  "TopK: the twin models the merge-sort TopK, whose data is half or float");
    static_assert(!(mode == AscendC::TopKMode::TOPK_NSMALL && isHasfinish),
                  "TopK: Small mode (TOPK_NSMALL) supports isHasfinish = false only");
    const char *api = "TopK";
    const bool small = mode == AscendC::TopKMode::TOPK_NSMALL;
    const int32_t outter = info.outter, inner = info.inner, n = info.n;
    if (outter < 1) fault(twin_file, twin_line, "%s: topKInfo.outter %d; at least one row", api, outter);
    if (inner <= 0 || inner % 32 != 0)
        fault(twin_file, twin_line, "%s: topKInfo.inner %d must be a positive multiple of 32", api, inner);
    if (small && inner != 32)
        fault(twin_file, twin_line, "%s: topKInfo.inner %d; Small mode (TOPK_NSMALL) needs exactly 32", api, inner);
    if (!small && inner > 4096)
        fault(twin_file, twin_line, "%s: topKInfo.inner %d is above Normal mode's maximum of 4096", api, inner);
    if (n < 1 || n > inner)
        fault(twin_file, twin_line, "%s: topKInfo.n %d must be in 1..inner (%d)", api, n, inner);
    if (k < 1 || k > n) fault(twin_file, twin_line, "%s: k %d must be in 1..n (%d)", api, k, n);
    if (tmp) {
        if (tmp->GetPosition() != AscendC::TPosition::VECCALC)
            fault(twin_file, twin_line, "%s: tmpLocal is at %s; the API takes it at VECCALC only", api,
                  pos_name(tmp->GetPosition()));
        const uint32_t need = AscendC::TwinTopKTmpBytes(inner, 1, isInitIndex, mode, largest, (uint32_t)sizeof(T));
        if (tmp->GetSize() < need)
            fault(twin_file, twin_line,
                  "%s: tmpLocal holds %u bytes, less than the %u GetTopKMaxMinTmpSize gives as its minimum for inner %d",
                  api, tmp->GetSize(), need, inner);
    }
    const uint64_t rows = (uint64_t)outter, len = (uint64_t)inner;
    const uint64_t kv = small ? (uint64_t)k : ((uint64_t)k + 32 / sizeof(T) - 1) / (32 / sizeof(T)) * (32 / sizeof(T));
    const uint64_t ki = small ? (uint64_t)k : ((uint64_t)k + 7) / 8 * 8;
    const uint64_t vbytes = ((rows - 1) * kv + (uint64_t)k) * sizeof(T), ibytes = ((rows - 1) * ki + (uint64_t)k) * 4;
    const uint64_t sbytes = rows * len * sizeof(T), xbytes = (small ? rows * len : len) * 4;
    // Sources and destinations: the whole of each, bounds-checked, and the page's no-overlap rule (but for a
    // destination at its own source's address).
    const uint8_t *ps = vspan(src, rows * len, api, TWIN_LOC_ARGS);
    const uint8_t *px = isInitIndex ? vspan(srcIndex, small ? rows * len : len, api, TWIN_LOC_ARGS) : nullptr;
    const uint8_t *pf = isHasfinish ? ub_span(finish.addr_, rows, api, TWIN_LOC_ARGS) : nullptr;
    uint8_t *pv = ub_span(dstValue.addr_, vbytes, api, TWIN_LOC_ARGS);
    uint8_t *pi = ub_span(dstIndex.addr_, ibytes, api, TWIN_LOC_ARGS);
    no_overlap_but_same(api, "dstValueLocal and dstIndexLocal", dstValue.addr_, vbytes, dstIndex.addr_, ibytes, false,
                        TWIN_LOC_ARGS);
    no_overlap_but_same(api, "dstValueLocal and srcLocal", dstValue.addr_, vbytes, src.addr_, sbytes, true, TWIN_LOC_ARGS);
    no_overlap_but_same(api, "dstIndexLocal and srcLocal", dstIndex.addr_, ibytes, src.addr_, sbytes, false, TWIN_LOC_ARGS);
    if (isInitIndex) {
        no_overlap_but_same(api, "dstIndexLocal and srcIndexLocal", dstIndex.addr_, ibytes, srcIndex.addr_, xbytes, true,
                            TWIN_LOC_ARGS);
        no_overlap_but_same(api, "dstValueLocal and srcIndexLocal", dstValue.addr_, vbytes, srcIndex.addr_, xbytes, false,
                            TWIN_LOC_ARGS);
    }
    if (isHasfinish) {
        no_overlap_but_same(api, "dstValueLocal and finishLocal", dstValue.addr_, vbytes, finish.addr_, rows, false,
                            TWIN_LOC_ARGS);
        no_overlap_but_same(api, "dstIndexLocal and finishLocal", dstIndex.addr_, ibytes, finish.addr_, rows, false,
                            TWIN_LOC_ARGS);
    }
    // Read everything first, so an in-place call sees its whole input.
    std::vector<T> val(rows * len);
    std::vector<float> key(rows * len);
    for (uint64_t i = 0; i < rows * len; i++) {
        val[i] = ld<T>(ps + i * sizeof(T));
        key[i] = (float)up(val[i]);
    }
    std::vector<int32_t> idx(small ? rows * len : len);
    for (uint64_t i = 0; i < idx.size(); i++) idx[i] = px ? ld<int32_t>(px + i * 4) : (int32_t)(i % len);
    std::vector<bool> done(rows, false);
    if (pf)
        for (uint64_t r = 0; r < rows; r++) done[r] = ld<uint8_t>(pf + r) != 0;
    std::vector<uint32_t> order(len);
    std::vector<T> outV(rows * (uint64_t)k);
    std::vector<int32_t> outI(rows * (uint64_t)k);
    for (uint64_t r = 0; r < rows; r++) {
        const float *kr = key.data() + r * len;
        for (uint32_t j = 0; j < len; j++) order[j] = j;
        std::stable_sort(order.begin(), order.end(),
                         [&](uint32_t a, uint32_t b) { return topk_before(kr[a], kr[b], largest); });
        for (int32_t j = 0; j < k; j++) {
            const uint32_t at = order[j];
            outV[r * k + j] = val[r * len + at];
            outI[r * k + j] = done[r] ? n : idx[(small ? r * len : 0) + at];
        }
    }
    for (uint64_t r = 0; r < rows; r++)
        for (int32_t j = 0; j < k; j++) {
            st<T>(pv + (r * kv + j) * sizeof(T), outV[r * k + j]);
            st<int32_t>(pi + (r * ki + j) * 4, outI[r * k + j]);
        }
    // The page's steps, as the model costs them.
    const uint64_t all = rows * len, dt = sizeof(T);
    if (!isInitIndex) {
        tr_vec("CreateVecIndex", 4, len, vec_rep(len, 4), twin_line);
        if (small && rows > 1) tr_vec("Copy", 4, (rows - 1) * len, vec_rep((rows - 1) * len, 4), twin_line);
    }
    if (!largest) tr_vec("Muls", (unsigned)dt, all, vec_rep(all, (unsigned)dt), twin_line);
    tr_vec("Sort32", (unsigned)dt, all, all / 32, twin_line);
    if (!small)
        for (uint64_t l = 32; l < len; l *= 4) tr_vec("MrgSort", (unsigned)dt, all, (all + 31) / 32, twin_line);
    const uint64_t gv = rows * kv * (8 / dt), gi = rows * ki * 2;
    tr_vec("GatherMask", (unsigned)dt, gv, vec_rep(gv, (unsigned)dt), twin_line);
    tr_vec("GatherMask", 4, gi, vec_rep(gi, 4), twin_line);
    if (isHasfinish) tr_vec("Select", 4, rows * ki, vec_rep(rows * ki, 4), twin_line);
    if (!largest) tr_vec("Muls", (unsigned)dt, all, vec_rep(all, (unsigned)dt), twin_line);
}
} // namespace twin

namespace AscendC {
// The overloads of the page: the API's own scratch, or tmpLocal; config (the newer overloads) last among the
// template parameters, its order overriding isLargest.
template <typename T, bool isInitIndex = false, bool isHasfinish = false, bool isReuseSrc = false,
          enum TopKMode topkMode = TopKMode::TOPK_NORMAL, const TopKConfig &config = defaultTopKConfig>
inline void TopK(const LocalTensor<T> &dstValueLocal, const LocalTensor<int32_t> &dstIndexLocal,
                 const LocalTensor<T> &srcLocal, const LocalTensor<int32_t> &srcIndexLocal,
                 const LocalTensor<bool> &finishLocal, const int32_t k, const TopkTiling &tilling,
                 const TopKInfo &topKInfo, const bool isLargest = true, TWIN_LOC) {
    (void)tilling;
    static_assert(config.algo != TopKAlgo::RADIX_SELECT, "TopK: RADIX_SELECT (Ascend 950) is not modelled by the twin");
    const bool largest = config.order == TopKOrder::UNSET ? isLargest : config.order == TopKOrder::LARGEST;
    twin::topk<T, isInitIndex, isHasfinish, topkMode>(dstValueLocal, dstIndexLocal, srcLocal, srcIndexLocal, finishLocal,
                                                      nullptr, k, topKInfo, largest, TWIN_LOC_ARGS);
}
template <typename T, bool isInitIndex = false, bool isHasfinish = false, bool isReuseSrc = false,
          enum TopKMode topkMode = TopKMode::TOPK_NORMAL, const TopKConfig &config = defaultTopKConfig>
inline void TopK(const LocalTensor<T> &dstValueLocal, const LocalTensor<int32_t> &dstIndexLocal,
                 const LocalTensor<T> &srcLocal, const LocalTensor<int32_t> &srcIndexLocal,
                 const LocalTensor<bool> &finishLocal, const LocalTensor<uint8_t> &tmpLocal, const int32_t k,
                 const TopkTiling &tilling, const TopKInfo &topKInfo, const bool isLargest = true, TWIN_LOC) {
    (void)tilling;
    static_assert(config.algo != TopKAlgo::RADIX_SELECT, "TopK: RADIX_SELECT (Ascend 950) is not modelled by the twin");
    const bool largest = config.order == TopKOrder::UNSET ? isLargest : config.order == TopKOrder::LARGEST;
    twin::topk<T, isInitIndex, isHasfinish, topkMode>(dstValueLocal, dstIndexLocal, srcLocal, srcIndexLocal, finishLocal,
                                                      &tmpLocal, k, topKInfo, largest, TWIN_LOC_ARGS);
}
} // namespace AscendC
