// twin: kernel_tiling/kernel_tiling.h: the matmul tiling struct TCubeTiling that the host's
// matmul_tiling::...::GetTiling fills (include/host/tiling/matmul_tiling.h) and Matmul::Init reads
// (include/kernel/lib/matmul_intf.h). One definition for both sides (the host includes this file), so
// the bytes a host tiling function writes are the struct the kernel reads. Fields and their meaning:
// asc-devkit docs, 高阶API/矩阵计算/Matmul-Tiling类/TCubeTiling结构体.md (all int), in that page's order.
#pragma once
#include <cstddef>
#include <cstdint>

struct TCubeTiling {
    int32_t usedCoreNum;
    int32_t M, N, Ka, Kb;
    int32_t singleCoreM, singleCoreN, singleCoreK;
    int32_t baseM, baseN, baseK;
    int32_t depthA1, depthB1;
    int32_t stepM, stepN, stepKa, stepKb;
    int32_t isBias;
    int32_t transLength;
    int32_t iterateOrder;
    int32_t dbL0A, dbL0B, dbL0C;
    int32_t shareMode;
    int32_t shareL1Size;
    int32_t shareL0CSize;
    int32_t shareUbSize;
    int32_t batchM, batchN;
    int32_t singleBatchM, singleBatchN;
    int32_t mxTypePara;
    // The batch matmul's layouts (Matmul-Tiling类/SetALayout.md, SetBLayout.md, SetCLayout.md,
    // SetBatchNum-88.md, SetBatchInfoForNormal.md; the field names as asc-devkit's batch_matmul example
    // and ops-nn's batch_mat_mul_v3 read them). Not on TCubeTiling结构体.md's list; after its fields.
    int32_t ALayoutInfoB, ALayoutInfoS, ALayoutInfoN, ALayoutInfoG, ALayoutInfoD;
    int32_t BLayoutInfoB, BLayoutInfoS, BLayoutInfoN, BLayoutInfoG, BLayoutInfoD;
    int32_t CLayoutInfoB, CLayoutInfoS1, CLayoutInfoN, CLayoutInfoG, CLayoutInfoS2;
    int32_t BatchNum;

    // The host's view, optiling::TCubeTiling (a tiling-data class in CANN): set_<field> / get_<field>,
    // GetDataSize, SaveToBuffer (asc-devkit docs, TCubeTiling结构体.md and the matmul examples' host code).
#define TWIN_TCUBE_FIELD(f) \
    void set_##f(int32_t v) { f = v; } \
    int32_t get_##f() const { return f; }
    TWIN_TCUBE_FIELD(usedCoreNum) TWIN_TCUBE_FIELD(M) TWIN_TCUBE_FIELD(N) TWIN_TCUBE_FIELD(Ka) TWIN_TCUBE_FIELD(Kb)
    TWIN_TCUBE_FIELD(singleCoreM) TWIN_TCUBE_FIELD(singleCoreN) TWIN_TCUBE_FIELD(singleCoreK)
    TWIN_TCUBE_FIELD(baseM) TWIN_TCUBE_FIELD(baseN) TWIN_TCUBE_FIELD(baseK) TWIN_TCUBE_FIELD(depthA1)
    TWIN_TCUBE_FIELD(depthB1) TWIN_TCUBE_FIELD(stepM) TWIN_TCUBE_FIELD(stepN) TWIN_TCUBE_FIELD(stepKa)
    TWIN_TCUBE_FIELD(stepKb) TWIN_TCUBE_FIELD(isBias) TWIN_TCUBE_FIELD(transLength) TWIN_TCUBE_FIELD(iterateOrder)
    TWIN_TCUBE_FIELD(dbL0A) TWIN_TCUBE_FIELD(dbL0B) TWIN_TCUBE_FIELD(dbL0C) TWIN_TCUBE_FIELD(shareMode)
    TWIN_TCUBE_FIELD(shareL1Size) TWIN_TCUBE_FIELD(shareL0CSize) TWIN_TCUBE_FIELD(shareUbSize)
    TWIN_TCUBE_FIELD(batchM) TWIN_TCUBE_FIELD(batchN) TWIN_TCUBE_FIELD(singleBatchM) TWIN_TCUBE_FIELD(singleBatchN)
    TWIN_TCUBE_FIELD(mxTypePara)
    TWIN_TCUBE_FIELD(ALayoutInfoB) TWIN_TCUBE_FIELD(ALayoutInfoS) TWIN_TCUBE_FIELD(ALayoutInfoN) TWIN_TCUBE_FIELD(ALayoutInfoG)
    TWIN_TCUBE_FIELD(ALayoutInfoD) TWIN_TCUBE_FIELD(BLayoutInfoB) TWIN_TCUBE_FIELD(BLayoutInfoS) TWIN_TCUBE_FIELD(BLayoutInfoN)
    TWIN_TCUBE_FIELD(BLayoutInfoG) TWIN_TCUBE_FIELD(BLayoutInfoD) TWIN_TCUBE_FIELD(CLayoutInfoB) TWIN_TCUBE_FIELD(CLayoutInfoS1)
    TWIN_TCUBE_FIELD(CLayoutInfoN) TWIN_TCUBE_FIELD(CLayoutInfoG) TWIN_TCUBE_FIELD(CLayoutInfoS2) TWIN_TCUBE_FIELD(BatchNum)
#undef TWIN_TCUBE_FIELD
    size_t GetDataSize() const { return sizeof(TCubeTiling); }
    // The struct's bytes into buf (at most cap of them).
    void SaveToBuffer(void *buf, size_t cap) const {
        __builtin_memcpy(buf, this, cap < sizeof(TCubeTiling) ? cap : sizeof(TCubeTiling));
    }
};

// CANN names it AscendC::tiling::TCubeTiling too: ops-nn's matmul kernels and the learning hub's matmul
// answers declare their tiling parameter and tiling-data field so.
namespace AscendC {
namespace tiling {
using ::TCubeTiling;
} // namespace tiling
} // namespace AscendC

// The fields DeepNorm's and LayerNorm's [B, S, H] tilings share (both pages list the same ones, in this
// order).
#define TWIN_BSH_NORM_TILING_FIELDS \
    uint32_t bLength = 0; \
    uint32_t sLength = 0; \
    uint32_t hLength = 0; \
    uint32_t originalHLength = 0; \
    uint32_t inputXSize = 0; \
    uint32_t meanVarSize = 0; \
    uint32_t numberOfTmpBuf = 0; \
    uint32_t meanTmpTensorPos = 0; \
    uint32_t meanTmpTensorSize = 0; \
    uint32_t varianceTmpTensorPos = 0; \
    uint32_t varianceTmpTensorSize = 0; \
    uint32_t tmpBufSize = 0; \
    uint32_t oneTmpSize = 0; \
    uint32_t firstTmpStartPos = 0; \
    uint32_t secondTmpStartPos = 0; \
    uint32_t thirdTmpStartPos = 0; \
    uint32_t loopRound = 0; \
    uint32_t inputRoundSize = 0; \
    uint32_t inputTailSize = 0; \
    uint32_t inputTailPos = 0; \
    uint32_t meanVarRoundSize = 0; \
    uint32_t meanVarTailSize = 0; \
    uint32_t meanVarTailPos = 0; \
    uint32_t bshCurLength = 0; \
    uint32_t bsCurLength = 0; \
    float lastDimValueBack = 0;

// DeepNorm's tiling (asc-devkit docs/zh/api/SIMD-API/高阶API/归一化操作/DeepNorm-Tiling.md: the struct as that
// page lists it, in its order). The host's GetDeepNormTilingInfo (tiling/twin_adv_tiling.h) fills it and
// the kernel's DeepNorm (twin/adv.h) reads bLength, sLength, hLength and originalHLength; the other fields
// are filled for a kernel that reads them and describe one pass over the whole [B, S, H] input.
struct DeepNormTiling {
    TWIN_BSH_NORM_TILING_FIELDS
};
// `.asc` programs name it AscendC::tiling::DeepNormTiling (the page's second GetDeepNormTilingInfo).
namespace AscendC {
namespace tiling {
using ::DeepNormTiling;
} // namespace tiling
} // namespace AscendC

// LayerNorm's two tilings (asc-devkit docs/zh/api/SIMD-API/高阶API/归一化操作/LayerNorm-Tiling.md: the structs
// as that page lists them, in its order): LayerNormTiling for the form that outputs mean and variance,
// LayerNormSeparateTiling for the one that outputs mean and rstd over an [A, R] input. The host's
// GetLayerNormNDTilingInfo (tiling/twin_adv_tiling.h) fills them. The twin has no kernel-side LayerNorm API
// (ops-nn calls it from arch35 kernels, which the twin does not build); host tiling data holds the structs
// with TILING_DATA_FIELD_DEF_STRUCT(LayerNormSeparateTiling, ...) (ops-nn's ada_layer_norm), so they are here.
struct LayerNormTiling {
    TWIN_BSH_NORM_TILING_FIELDS
};
struct LayerNormSeparateTiling {
    uint32_t aLength = 0;
    uint32_t rLength = 0;
    uint32_t halfAddRepeatTimes = 0;
    uint32_t rHeadLength = 0;
    float k2Rec = 0;
    float k2RRec = 0;
    uint32_t inputXSize = 0;
    uint32_t meanVarSize = 0;
    uint32_t numberOfTmpBuf = 0;
    uint32_t varianceTmpTensorPos = 0;
    uint32_t varianceTmpTensorSize = 0;
    uint32_t tmpBufSize = 0;
    uint32_t oneTmpSize = 0;
    uint32_t firstTmpStartPos = 0;
    uint32_t secondTmpStartPos = 0;
    uint32_t thirdTmpStartPos = 0;
    uint32_t loopRound = 0;
    uint32_t inputRoundSize = 0;
    uint32_t inputTailSize = 0;
    uint32_t inputTailPos = 0;
    uint32_t meanVarRoundSize = 0;
    uint32_t meanVarTailSize = 0;
    uint32_t meanVarTailPos = 0;
    uint32_t arCurLength = 0;
    uint32_t aCurLength = 0;
    float rValueBack = 0;
};
namespace AscendC {
namespace tiling {
using ::LayerNormTiling;
using ::LayerNormSeparateTiling;
} // namespace tiling
} // namespace AscendC

// SoftMax's tiling (asc-devkit docs/zh/api/SIMD-API/高阶API/激活函数/SoftMax接口/SoftMax-Tiling使用说明.md: the
// struct as that page lists it, in its order). The host's SoftMaxTilingFunc (tiling/twin_adv_tiling.h) fills
// it; the kernel's SoftMax (twin/adv.h) reads srcM and srcK when its SoftMaxShapeInfo is left empty. Host
// tiling data holds it with TILING_DATA_FIELD_DEF_STRUCT(SoftMaxTiling, ...) inside namespace optiling, and
// `.asc` programs name it AscendC::tiling::SoftMaxTiling: both are this struct.
struct SoftMaxTiling {
    uint32_t srcM = 0;
    uint32_t srcK = 0;
    uint32_t srcSize = 0;
    uint32_t outMaxM = 0;
    uint32_t outMaxK = 0;
    uint32_t outMaxSize = 0;
    uint32_t splitM = 0;
    uint32_t splitK = 0;
    uint32_t splitSize = 0;
    uint32_t reduceM = 0;
    uint32_t reduceK = 0;
    uint32_t reduceSize = 0;
    uint32_t rangeM = 0;
    uint32_t tailM = 0;
    uint32_t tailSplitSize = 0;
    uint32_t tailReduceSize = 0;
};
namespace AscendC {
namespace tiling {
using ::SoftMaxTiling;
} // namespace tiling
// The twin's SoftMax-family tiling of an [m, k] input (SoftMaxTilingFunc, SoftMaxFlashV2TilingFunc on the host,
// and the kernel-side SoftMaxFlashV2TilingFunc): one pass over the whole input (splitM = m, rangeM = 1, no
// tail) with per-row max / sum blocks of `blk` elements (32 bytes of the statistics' type, or 1 when the
// output is not broadcast).
constexpr ::SoftMaxTiling twin_softmax_tiling(uint64_t m, uint64_t k, uint32_t blk) {
    ::SoftMaxTiling t{};
    t.srcM = (uint32_t)m;
    t.srcK = (uint32_t)k;
    t.srcSize = (uint32_t)(m * k);
    t.outMaxM = (uint32_t)m;
    t.outMaxK = blk;
    t.outMaxSize = (uint32_t)(m * blk);
    t.splitM = (uint32_t)m;
    t.splitK = (uint32_t)k;
    t.splitSize = (uint32_t)(m * k);
    t.reduceM = (uint32_t)m;
    t.reduceK = blk;
    t.reduceSize = (uint32_t)(m * blk);
    t.rangeM = m == 0 ? 0 : 1;
    return t;
}
} // namespace AscendC

// TopK's tiling (asc-devkit docs/zh/api/SIMD-API/高阶API/排序操作/TopK-Tiling.md: the struct as that page lists
// it, in its order). The host's TopKTilingFunc (tiling/twin_adv_tiling.h) fills it; the page asks kernels
// only to pass it through to TopK, and the twin's TopK (twin/topk.h) takes the shape from its TopKInfo, so
// no field steers the result. Host tiling data holds it with TILING_DATA_FIELD_DEF_STRUCT(TopkTiling, ...)
// inside namespace optiling (optiling::TopkTiling), kernels and `.asc` programs name it TopkTiling or
// AscendC::tiling::TopkTiling: all are this struct.
struct TopkTiling {
    int32_t tmpLocalSize = 0;
    int32_t allDataSize = 0;
    int32_t innerDataSize = 0;
    uint32_t sortRepeat = 0;
    int32_t mrgSortRepeat = 0;
    int32_t kAlignFourBytes = 0;
    int32_t kAlignTwoBytes = 0;
    int32_t maskOffset = 0;
    int32_t maskVreducev2FourBytes = 0;
    int32_t maskVreducev2TwoBytes = 0;
    int32_t mrgSortSrc1offset = 0;
    int32_t mrgSortSrc2offset = 0;
    int32_t mrgSortSrc3offset = 0;
    int32_t mrgSortTwoQueueSrc1Offset = 0;
    int32_t mrgFourQueueTailPara1 = 0;
    int32_t mrgFourQueueTailPara2 = 0;
    int32_t srcIndexOffset = 0;
    uint32_t copyUbToUbBlockCount = 0;
    int32_t topkMrgSrc1MaskSizeOffset = 0;
    int32_t topkNSmallSrcIndexOffset = 0;
    uint32_t vreduceValMask0 = 0;
    uint32_t vreduceValMask1 = 0;
    uint32_t vreduceIdxMask0 = 0;
    uint32_t vreduceIdxMask1 = 0;
    uint16_t vreducehalfValMask0 = 0;
    uint16_t vreducehalfValMask1 = 0;
    uint16_t vreducehalfValMask2 = 0;
    uint16_t vreducehalfValMask3 = 0;
    uint16_t vreducehalfValMask4 = 0;
    uint16_t vreducehalfValMask5 = 0;
    uint16_t vreducehalfValMask6 = 0;
    uint16_t vreducehalfValMask7 = 0;
};
namespace AscendC {
namespace tiling {
using ::TopkTiling;
} // namespace tiling
// The types TopK's host queries and kernel API share (asc-devkit docs/zh/api/SIMD-API/高阶API/排序操作/TopK.md
// and TopK-Tiling.md): the mode (Normal, or Small for rows of exactly 32), the shape of the input
// (outter rows of inner elements, n of them real), and the configuration of the newer overloads (the
// algorithm, an order that overrides isLargest, whether the k results come sorted).
enum class TopKMode { TOPK_NORMAL, TOPK_NSMALL };
enum class TopKAlgo { RADIX_SELECT, MERGE_SORT };
enum class TopKOrder { UNSET, LARGEST, SMALLEST };
struct TopKConfig {
    TopKAlgo algo = TopKAlgo::MERGE_SORT;
    TopKOrder order = TopKOrder::UNSET;
    bool sorted = true;
};
inline constexpr TopKConfig defaultTopKConfig = {TopKAlgo::MERGE_SORT, TopKOrder::UNSET, true};
struct TopKInfo {
    int32_t outter = 1;
    int32_t inner;
    int32_t n;
};
// The twin's scratch rule for TopK, shared by the host's GetTopKMaxMinTmpSize and the kernel's check of a
// tmpLocal (the pages give no formula, only that tmpLocal's size comes from GetTopKMaxMinTmpSize). It is
// the space of the page's merge-sort steps on A2 / A3 for `rows` rows of `inner`: the Sort32 output, 8
// bytes a (score, index) structure, and for Normal mode a second such area for the MrgSort passes; a
// negated copy of the scores when the smallest are asked for; and the generated 0..inner-1 index when
// isInitIndex is false (one row in Normal mode, every row in Small mode). The maximum sorts all outter
// rows at once, the minimum one row at a time. 0 when the arguments are outside the TopK-Tiling page's ranges
// (inner a positive multiple of 32, half or float) or Small mode's inner of 32. Normal mode's maximum inner of
// 4096 is the kernel API's rule (TopK.md's topKInfo), not the query's: the tiling page sets none, and an
// operator may size its chunk from the answer (moe_gating_top_k_softmax_v2 ignores a false and, finding no
// scratch, takes a chunk of 5472).
inline uint32_t TwinTopKTmpBytes(int32_t inner, int32_t rows, bool isInitIndex, TopKMode mode, bool isLargest,
                                 uint32_t typeSize) {
    if (inner <= 0 || inner % 32 != 0 || rows <= 0 || (typeSize != 2 && typeSize != 4)) return 0;
    if (mode == TopKMode::TOPK_NSMALL && inner != 32) return 0;
    const uint64_t elems = (uint64_t)inner * (uint64_t)rows;
    uint64_t bytes = elems * 8 * (mode == TopKMode::TOPK_NORMAL && inner > 32 ? 2 : 1);
    if (!isLargest) bytes += elems * typeSize;
    if (!isInitIndex) bytes += (mode == TopKMode::TOPK_NSMALL ? elems : (uint64_t)inner) * 4;
    return (uint32_t)((bytes + 31) / 32 * 32);
}
} // namespace AscendC

namespace optiling {
using ::SoftMaxTiling;
using ::DeepNormTiling;
using ::TopkTiling;
} // namespace optiling

namespace twin {
// The twin's L1 rule for a matmul's K chunks, shared by the host's GetTiling (tiling/matmul_tiling.h) and the
// constant GetMatmulApiTiling (lib/matmul_intf.h): the whole K in one chunk when every base K block of A
// and of B (tileA, tileB bytes each) and a bias row fit l1 at once, as CANN's GetTiling takes it in the asc-devkit
// guide (优秀实践/Matmul性能调优案例, IBShare B: singleCoreK 384 = 6 x baseK 64 -> stepKa = stepKb = 6; the MTE2
// Preload case sets 512 = 8 x 64 -> 8 by hand); else up to 4 base K blocks a chunk (the MDL case there:
// 1024 = 16 x 64 -> 4), fewer while one A and one B chunk and the bias row do not fit l1. The depth holds two
// chunks (double buffering) when they fit, else one.
struct MatmulL1Steps {
    int32_t step;
    int32_t depth;
};
constexpr MatmulL1Steps matmul_l1_steps(int64_t kIters, uint64_t tileA, uint64_t tileB, uint64_t biasBytes, uint64_t l1) {
    int64_t step = (tileA + tileB) * (uint64_t)kIters + biasBytes <= l1 ? kIters : (kIters < 4 ? kIters : 4);
    while (step > 1 && (tileA + tileB) * (uint64_t)step + biasBytes > l1) step--;
    int64_t depth = (tileA + tileB) * (uint64_t)step * 2 + biasBytes <= l1 ? 2 * step : step;
    return {(int32_t)step, (int32_t)depth};
}
} // namespace twin
