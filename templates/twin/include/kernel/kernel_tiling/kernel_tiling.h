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
#undef TWIN_TCUBE_FIELD
    size_t GetDataSize() const { return sizeof(TCubeTiling); }
    // The struct's bytes into buf (at most cap of them).
    void SaveToBuffer(void *buf, size_t cap) const {
        __builtin_memcpy(buf, this, cap < sizeof(TCubeTiling) ? cap : sizeof(TCubeTiling));
    }
};

// DeepNorm's tiling (asc-devkit docs/zh/api/SIMD-API/高阶API/归一化操作/DeepNorm-Tiling.md: the struct as that
// page lists it, in its order). The host's GetDeepNormTilingInfo (tiling/twin_adv_tiling.h) fills it and
// the kernel's DeepNorm (twin/adv.h) reads bLength, sLength, hLength and originalHLength; the other fields
// are filled for a kernel that reads them and describe one pass over the whole [B, S, H] input.
struct DeepNormTiling {
    uint32_t bLength = 0;
    uint32_t sLength = 0;
    uint32_t hLength = 0;
    uint32_t originalHLength = 0;
    uint32_t inputXSize = 0;
    uint32_t meanVarSize = 0;
    uint32_t numberOfTmpBuf = 0;
    uint32_t meanTmpTensorPos = 0;
    uint32_t meanTmpTensorSize = 0;
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
    uint32_t bshCurLength = 0;
    uint32_t bsCurLength = 0;
    float lastDimValueBack = 0;
};
// `.asc` programs name it AscendC::tiling::DeepNormTiling (the page's second GetDeepNormTilingInfo).
namespace AscendC {
namespace tiling {
using ::DeepNormTiling;
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
} // namespace AscendC
namespace optiling {
using ::SoftMaxTiling;
using ::DeepNormTiling;
} // namespace optiling

namespace twin {
// The twin's L1 rule for a matmul's K chunks, shared by the host's GetTiling (tiling/matmul_tiling.h) and the
// constant GetMatmulApiTiling (lib/matmul_intf.h): up to 4 base K blocks a chunk (kIters of them in all),
// fewer while one A and one B chunk (tileA, tileB bytes a base K block) and a bias row do not fit l1; the
// depth holds two chunks (double buffering) when they fit, else one.
struct MatmulL1Steps {
    int32_t step;
    int32_t depth;
};
constexpr MatmulL1Steps matmul_l1_steps(int64_t kIters, uint64_t tileA, uint64_t tileB, uint64_t biasBytes, uint64_t l1) {
    int64_t step = kIters < 4 ? kIters : 4;
    while (step > 1 && (tileA + tileB) * (uint64_t)step + biasBytes > l1) step--;
    int64_t depth = (tileA + tileB) * (uint64_t)step * 2 + biasBytes <= l1 ? 2 * step : step;
    return {(int32_t)step, (int32_t)depth};
}
} // namespace twin
