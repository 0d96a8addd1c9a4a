// twin: tiling API umbrella: platform, tiling data and the high-level APIs' temporary-space queries.
// The matmul tiling classes are in matmul_tiling.h.
#pragma once
#include "../twin_host/core.h"
#include "../twin_host/platform.h"
#include "../register/tilingdata_base.h"
#include "matmul_tiling.h"

// Temporary-space queries of the high-level math APIs (asc-devkit docs, "GetXxxMaxMinTmpSize":
// the minimum and maximum scratch bytes a kernel reserves for the API). The twin's high-level APIs
// need no scratch, so any size works there; the twin answers one tile of the input, rounded up to
// 32 bytes, for both, so operators that size a scratch buffer from the answer get a usable one.
namespace AscendC {
// AscendC::TensorShape is an alias of ge::Shape (asc-devkit docs/zh/api/SIMD-API/高阶API/数据结构/TensorShape.md).
using TensorShape = ge::Shape;
inline uint32_t TwinTmpBytes(const ge::Shape &shape, uint32_t typeSize) {
    uint64_t n = (uint64_t)shape.GetShapeSize() * typeSize;
    if (n == 0) n = 32;
    return (uint32_t)((n + 31) / 32 * 32);
}
#define TWIN_TMP_SIZE(NAME)                                                                                 \
    inline void NAME(const ge::Shape &srcShape, const uint32_t typeSize, const bool isReuseSource,       \
                     uint32_t &maxValue, uint32_t &minValue) {                                             \
        (void)isReuseSource;                                                                               \
        maxValue = minValue = TwinTmpBytes(srcShape, typeSize);                                            \
    }
TWIN_TMP_SIZE(GetSignMaxMinTmpSize)
TWIN_TMP_SIZE(GetLogMaxMinTmpSize)
TWIN_TMP_SIZE(GetExpMaxMinTmpSize)
TWIN_TMP_SIZE(GetAsinhMaxMinTmpSize)
TWIN_TMP_SIZE(GetAcoshMaxMinTmpSize)
TWIN_TMP_SIZE(GetAtanhMaxMinTmpSize)
TWIN_TMP_SIZE(GetAsinMaxMinTmpSize)
TWIN_TMP_SIZE(GetAcosMaxMinTmpSize)
TWIN_TMP_SIZE(GetAtanMaxMinTmpSize)
TWIN_TMP_SIZE(GetSinMaxMinTmpSize)
TWIN_TMP_SIZE(GetCosMaxMinTmpSize)
TWIN_TMP_SIZE(GetTanMaxMinTmpSize)
TWIN_TMP_SIZE(GetSinhMaxMinTmpSize)
TWIN_TMP_SIZE(GetCoshMaxMinTmpSize)
TWIN_TMP_SIZE(GetTanhMaxMinTmpSize)
TWIN_TMP_SIZE(GetErfMaxMinTmpSize)
TWIN_TMP_SIZE(GetErfcMaxMinTmpSize)
TWIN_TMP_SIZE(GetSigmoidMaxMinTmpSize)
TWIN_TMP_SIZE(GetFloorMaxMinTmpSize)
TWIN_TMP_SIZE(GetCeilMaxMinTmpSize)
TWIN_TMP_SIZE(GetClampMaxMinTmpSize)
TWIN_TMP_SIZE(GetRoundMaxMinTmpSize)
TWIN_TMP_SIZE(GetTruncMaxMinTmpSize)
TWIN_TMP_SIZE(GetFracMaxMinTmpSize)
TWIN_TMP_SIZE(GetPowerMaxMinTmpSize)
TWIN_TMP_SIZE(GetRintMaxMinTmpSize)
#undef TWIN_TMP_SIZE

// The Reduce high-level APIs' queries take the element type as a ge::DataType and the axes as a
// ReducePattern (A: kept axis, R: reduced axis), e.g. GetReduceSumMaxMinTmpSize,
// https://www.hiascend.com/document/detail/zh/CANNCommunityEdition/900/API/ascendcopapi/atlasascendc_api_07_10160.html
enum class ReducePattern : uint32_t {
    AR = 0, RA = 1, R, ARA, ARAR, ARARA, ARARAR, ARARARA, ARARARAR, ARARARARA,
    RAR, RARA, RARAR, RARARA, RARARAR, RARARARA,
};
#define TWIN_REDUCE_TMP_SIZE(NAME)                                                                          \
    inline void NAME(const ge::Shape &srcShape, const ge::DataType dataType, ReducePattern pattern,        \
                     bool isSrcInnerPad, bool isReuseSource, uint32_t &maxValue, uint32_t &minValue) {     \
        (void)pattern; (void)isSrcInnerPad; (void)isReuseSource;                                           \
        uint32_t typeSize = 0;                                                                             \
        if (!ge::TypeUtils::GetDataTypeLength(dataType, typeSize)) typeSize = 4;                           \
        maxValue = minValue = TwinTmpBytes(srcShape, typeSize);                                            \
    }
TWIN_REDUCE_TMP_SIZE(GetReduceSumMaxMinTmpSize)
TWIN_REDUCE_TMP_SIZE(GetReduceMaxMaxMinTmpSize)
TWIN_REDUCE_TMP_SIZE(GetReduceMinMaxMinTmpSize)
TWIN_REDUCE_TMP_SIZE(GetReduceProdMaxMinTmpSize)
TWIN_REDUCE_TMP_SIZE(GetReduceMeanMaxMinTmpSize)
TWIN_REDUCE_TMP_SIZE(GetReduceAnyMaxMinTmpSize)
TWIN_REDUCE_TMP_SIZE(GetReduceAllMaxMinTmpSize)
#undef TWIN_REDUCE_TMP_SIZE

// Power's query takes both operands' shapes and whether the type is an integer one
// (asc-devkit docs, "GetPowerMaxMinTmpSize"); the twin answers one tile of the larger operand.
inline void GetPowerMaxMinTmpSize(const ge::Shape &srcShape1, const ge::Shape &srcShape2, const bool typeIsInt,
                                  const uint32_t typeSize, const bool isReuseSource, uint32_t &maxValue,
                                  uint32_t &minValue) {
    (void)typeIsInt; (void)isReuseSource;
    const ge::Shape &big = srcShape1.GetShapeSize() >= srcShape2.GetShapeSize() ? srcShape1 : srcShape2;
    maxValue = minValue = TwinTmpBytes(big, typeSize);
}
// Broadcast's query takes the platform and both shapes (GetBroadCastMaxMinTmpSize,
// https://www.hiascend.com/document/detail/zh/canncommercial/800/apiref/ascendcopapi/atlasascendc_api_07_0854.html);
// the twin answers one tile of the output.
inline void GetBroadCastMaxMinTmpSize(const platform_ascendc::PlatformAscendC &ascendcPlatform,
                                      const ge::Shape &srcShape, const ge::Shape &dstShape, uint32_t typeSize,
                                      const bool isReuseSource, uint32_t &maxValue, uint32_t &minValue) {
    (void)ascendcPlatform; (void)srcShape; (void)isReuseSource;
    maxValue = minValue = TwinTmpBytes(dstShape, typeSize);
}

// Sort's query takes a SortConfig (asc-devkit docs/zh/api/SIMD-API/高阶API/排序操作/GetSortMaxMinTmpSize.md:
// the algorithm, the order, and whether indices go in and come out). That Sort is the regbase SoCs'
// (arch35 tilings call it; ops-nn's index_fill, ops-math's sort), which the twin does not run; their
// host files are built into every op's tiling library all the same, so the query is here. The docs give
// no formula; the twin answers the values and the indices once over, rounded up to 32 bytes.
enum class SortType { RADIX_SORT, MERGE_SORT };
struct SortConfig {
    SortType type = SortType::RADIX_SORT;
    bool isDescend = false;
    bool hasSrcIndex = false;
    bool hasDstIndex = false;
};
inline void GetSortMaxMinTmpSize(const ge::Shape &srcShape, ge::DataType valueType, ge::DataType indexType,
                                 bool isReuseSource, const SortConfig &config, uint32_t &maxValue,
                                 uint32_t &minValue) {
    (void)isReuseSource;
    uint32_t valueSize = 0, indexSize = 0;
    if (!ge::TypeUtils::GetDataTypeLength(valueType, valueSize)) valueSize = 4;
    if (!ge::TypeUtils::GetDataTypeLength(indexType, indexSize)) indexSize = 4;
    bool indices = config.hasSrcIndex || config.hasDstIndex;
    maxValue = minValue = TwinTmpBytes(srcShape, valueSize + (indices ? indexSize : 0));
}

// GetXxxTmpBufferFactorSize(typeSize, maxLiveNodeCount, extraBuf): the scratch an API needs for n
// elements is maxLiveNodeCount * n * typeSize + extraBuf bytes (asc-devkit docs, e.g.
// "GetExpTmpBufferFactorSize"). The twin's answer, one input-sized tile and nothing extra, matches
// the one tile its GetXxxMaxMinTmpSize queries answer.
#define TWIN_TMP_FACTOR(NAME)                                                                               \
    inline void NAME(const uint32_t typeSize, uint32_t &maxLiveNodeCount, uint32_t &extraBuf) {            \
        (void)typeSize;                                                                                    \
        maxLiveNodeCount = 1;                                                                              \
        extraBuf = 0;                                                                                      \
    }
TWIN_TMP_FACTOR(GetExpTmpBufferFactorSize)
TWIN_TMP_FACTOR(GetLogTmpBufferFactorSize)
TWIN_TMP_FACTOR(GetLog2TmpBufferFactorSize)
TWIN_TMP_FACTOR(GetLog10TmpBufferFactorSize)
TWIN_TMP_FACTOR(GetSinTmpBufferFactorSize)
TWIN_TMP_FACTOR(GetCosTmpBufferFactorSize)
TWIN_TMP_FACTOR(GetTanTmpBufferFactorSize)
TWIN_TMP_FACTOR(GetAsinTmpBufferFactorSize)
TWIN_TMP_FACTOR(GetAcosTmpBufferFactorSize)
TWIN_TMP_FACTOR(GetAtanTmpBufferFactorSize)
TWIN_TMP_FACTOR(GetSinhTmpBufferFactorSize)
TWIN_TMP_FACTOR(GetCoshTmpBufferFactorSize)
TWIN_TMP_FACTOR(GetTanhTmpBufferFactorSize)
TWIN_TMP_FACTOR(GetAsinhTmpBufferFactorSize)
TWIN_TMP_FACTOR(GetAcoshTmpBufferFactorSize)
TWIN_TMP_FACTOR(GetAtanhTmpBufferFactorSize)
TWIN_TMP_FACTOR(GetErfTmpBufferFactorSize)
TWIN_TMP_FACTOR(GetErfcTmpBufferFactorSize)
TWIN_TMP_FACTOR(GetSigmoidTmpBufferFactorSize)
TWIN_TMP_FACTOR(GetSignTmpBufferFactorSize)
TWIN_TMP_FACTOR(GetFloorTmpBufferFactorSize)
TWIN_TMP_FACTOR(GetCeilTmpBufferFactorSize)
TWIN_TMP_FACTOR(GetRoundTmpBufferFactorSize)
TWIN_TMP_FACTOR(GetTruncTmpBufferFactorSize)
TWIN_TMP_FACTOR(GetFracTmpBufferFactorSize)
TWIN_TMP_FACTOR(GetPowerTmpBufferFactorSize)
#undef TWIN_TMP_FACTOR
} // namespace AscendC
// The queries of the high-level APIs in the kernel's twin/adv.h (SwiGLU, AscendDequant, DeepNorm).
#include "../../kernel/tiling/twin_adv_tiling.h"
