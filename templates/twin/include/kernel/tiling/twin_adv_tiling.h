// twin: the host-side queries of the high-level APIs in twin/adv.h (SwiGLU, AscendDequant, DeepNorm, SoftMax)
// and twin/topk.h (TopK): their scratch sizes and the DeepNorm, SoftMax and TopK tilings. Shared by the kernel-header build (tiling/twin_tmp_size.h, for `.asc`
// programs) and the custom-op host build (include/host/tiling/tiling_api.h); each includes this after it has
// defined ge::Shape and AscendC::TwinTmpBytes. Scratch: the twin's APIs need none, so, as for the other
// queries, both bounds are one tile of the input rounded up to 32 bytes (any size the kernel then reserves
// works). Knows nothing of the tool's Rust side.
#pragma once
#include "../kernel_tiling/kernel_tiling.h"

// The TopK queries take the platform and do not read it; declared here so this header needs no platform
// header (the host's and the `.asc` build's both define this class).
namespace platform_ascendc {
class PlatformAscendC;
} // namespace platform_ascendc

namespace AscendC {
// asc-devkit docs/zh/api/SIMD-API/高阶API/激活函数/SwiGLU接口/GetSwiGLUMaxMinTmpSize.md (note the argument order:
// the bounds before isReuseSource).
inline void GetSwiGLUMaxMinTmpSize(const ge::Shape &srcShape, const uint32_t typeSize, uint32_t &maxValue,
                                   uint32_t &minValue, const bool isReuseSource = false) {
    (void)isReuseSource;
    maxValue = minValue = TwinTmpBytes(srcShape, typeSize);
}
// asc-devkit docs/zh/api/SIMD-API/高阶API/激活函数/Gelu接口/GetGeluMaxMinTmpSize.md (Gelu, FasterGelu, FasterGeluV2):
// the maximum, the minimum, or both.
inline uint32_t GetGeluMaxTmpSize(const ge::Shape &srcShape, const uint32_t typeSize) {
    return TwinTmpBytes(srcShape, typeSize);
}
inline uint32_t GetGeluMinTmpSize(const ge::Shape &srcShape, const uint32_t typeSize) {
    return TwinTmpBytes(srcShape, typeSize);
}
inline void GetGeluMaxMinTmpSize(const ge::Shape &srcShape, const uint32_t typeSize, uint32_t &maxValue,
                                 uint32_t &minValue) {
    maxValue = minValue = TwinTmpBytes(srcShape, typeSize);
}
// asc-devkit docs/zh/api/SIMD-API/高阶API/数学计算/CumSum接口/GetCumSumMaxMinTmpSize.md: isLastAxis and
// isReuseSource before the bounds.
inline void GetCumSumMaxMinTmpSize(const ge::Shape &srcShape, const uint32_t typeSize, const bool isLastAxis,
                                   const bool isReuseSource, uint32_t &maxValue, uint32_t &minValue) {
    (void)isLastAxis;
    (void)isReuseSource;
    maxValue = minValue = TwinTmpBytes(srcShape, typeSize);
}
// asc-devkit docs/zh/api/SIMD-API/高阶API/数学计算/Fmod接口/GetFmodMaxMinTmpSize.md (isReuseSource before the bounds).
inline void GetFmodMaxMinTmpSize(const ge::Shape &srcShape, const uint32_t typeSize, const bool isReuseSource,
                                 uint32_t &maxValue, uint32_t &minValue) {
    (void)isReuseSource;
    maxValue = minValue = TwinTmpBytes(srcShape, typeSize);
}
// asc-devkit docs/zh/api/SIMD-API/高阶API/量化操作/GetAscendDequantMaxMinTmpSize.md: srcShape is the int32_t
// input's [m, n], typeSize its element size (4).
inline void GetAscendDequantMaxMinTmpSize(const ge::Shape &srcShape, const uint32_t typeSize, uint32_t &maxValue,
                                          uint32_t &minValue) {
    maxValue = minValue = TwinTmpBytes(srcShape, typeSize);
}

// Axis i of a shape, 0 when it has no such axis.
inline uint32_t TwinDim(const ge::Shape &shape, size_t i) {
    return i < shape.GetDimNum() ? (uint32_t)shape.GetDim(i) : 0u;
}
// A DeepNorm / LayerNorm [B, S, H] tiling (TWIN_BSH_NORM_TILING_FIELDS) for one pass over the whole input:
// one round, no tail, the stack buffer as the scratch, and 1 / originH as the value the mean divides by.
template <class Tiling>
inline Tiling TwinBshNormTiling(uint32_t b, uint32_t s, uint32_t h, uint32_t oh, uint32_t stackBufferSize) {
    Tiling t{};
    t.bLength = b;
    t.sLength = s;
    t.hLength = h;
    t.originalHLength = oh;
    t.inputXSize = b * s * h;
    t.meanVarSize = b * s;
    t.tmpBufSize = stackBufferSize;
    t.loopRound = 1;
    t.inputRoundSize = t.inputXSize;
    t.meanVarRoundSize = t.meanVarSize;
    t.bshCurLength = t.inputXSize;
    t.bsCurLength = t.meanVarSize;
    t.lastDimValueBack = oh ? 1.0f / (float)oh : 0.0f;
    return t;
}
// asc-devkit docs/zh/api/SIMD-API/高阶API/归一化操作/DeepNorm-Tiling.md. srcShape is [B, S, H] (H 32-byte
// aligned), originSrcShape [B, S, originH] with 0 < originH <= H (== H when isBasicBlock). False for any
// other shape, as the page's "获取失败".
inline bool TwinDeepNormShapeOk(const ge::Shape &s, uint32_t typeSize) {
    return s.GetDimNum() == 3 && s.GetDim(0) > 0 && s.GetDim(1) > 0 && s.GetDim(2) > 0 && typeSize > 0 &&
           (uint64_t)s.GetDim(2) * typeSize % 32 == 0;
}
inline bool GetDeepNormMaxMinTmpSize(const ge::Shape &srcShape, const uint32_t typeSize, const bool isReuseSource,
                                     const bool isBasicBlock, uint32_t &maxValue, uint32_t &minValue) {
    (void)isReuseSource; (void)isBasicBlock;
    if (!TwinDeepNormShapeOk(srcShape, typeSize)) return false;
    maxValue = minValue = TwinTmpBytes(srcShape, typeSize);
    return true;
}
inline bool GetDeepNormTilingInfo(const ge::Shape &srcShape, const ge::Shape &originSrcShape, const uint32_t stackBufferSize,
                                  const uint32_t typeSize, const bool isReuseSource, const bool isBasicBlock,
                                  ::DeepNormTiling &tiling) {
    (void)isReuseSource;
    if (!TwinDeepNormShapeOk(srcShape, typeSize) || originSrcShape.GetDimNum() != 3) return false;
    const int64_t b = srcShape.GetDim(0), s = srcShape.GetDim(1), h = srcShape.GetDim(2), oh = originSrcShape.GetDim(2);
    if (originSrcShape.GetDim(0) != b || originSrcShape.GetDim(1) != s || oh <= 0 || oh > h) return false;
    if (isBasicBlock && (oh != h || h % 64 != 0 || h > 2040 || (b * s) % 8 != 0)) return false;
    tiling = TwinBshNormTiling<::DeepNormTiling>((uint32_t)b, (uint32_t)s, (uint32_t)h, (uint32_t)oh, stackBufferSize);
    return true;
}
// LayerNorm (asc-devkit docs/zh/api/SIMD-API/高阶API/归一化操作/LayerNorm-Tiling.md). The variance form takes
// srcShape {B, S, storageH, originH} (TwinBshNormTiling), the rstd form {A, R}. The scratch bounds are one
// tile of the input, as above; the tilings describe one pass over the whole input (one round, no tail),
// with the stack buffer as the scratch and 1 / H (1 / R) as the value the mean divides by. The page
// documents no failure.
inline void GetLayerNormMaxMinTmpSize(const ge::Shape &srcShape, const uint32_t typeSize, const bool isReuseSource,
                                      uint32_t &maxValue, uint32_t &minValue) {
    (void)isReuseSource;
    maxValue = minValue = TwinTmpBytes(srcShape, typeSize);
}
inline void GetLayerNormMaxMinTmpSize(const ge::Shape &srcShape, const uint32_t typeSize, const bool isReuseSource,
                                      const bool isComputeRstd, const bool isOnlyOutput, uint32_t &maxValue,
                                      uint32_t &minValue) {
    (void)isComputeRstd; (void)isOnlyOutput;
    GetLayerNormMaxMinTmpSize(srcShape, typeSize, isReuseSource, maxValue, minValue);
}
inline void GetLayerNormNDTilingInfo(const ge::Shape &srcShape, const uint32_t stackBufferSize, const uint32_t typeSize,
                                     const bool isReuseSource, ::LayerNormTiling &tiling) {
    (void)typeSize; (void)isReuseSource;
    tiling = TwinBshNormTiling<::LayerNormTiling>(TwinDim(srcShape, 0), TwinDim(srcShape, 1), TwinDim(srcShape, 2),
                                                  TwinDim(srcShape, srcShape.GetDimNum() > 3 ? 3 : 2),
                                                  stackBufferSize);
}
inline void GetLayerNormNDTillingInfo(const ge::Shape &srcShape, const uint32_t stackBufferSize, const uint32_t typeSize,
                                      const bool isReuseSource, ::LayerNormTiling &tilling) {
    GetLayerNormNDTilingInfo(srcShape, stackBufferSize, typeSize, isReuseSource, tilling);
}
inline void GetLayerNormNDTilingInfo(const ge::Shape &srcShape, const uint32_t stackBufferSize, const uint32_t typeSize,
                                     const bool isReuseSource, const bool isComputeRstd,
                                     ::LayerNormSeparateTiling &tiling) {
    (void)typeSize; (void)isReuseSource; (void)isComputeRstd;
    tiling = ::LayerNormSeparateTiling{};
    tiling.aLength = TwinDim(srcShape, 0);
    tiling.rLength = TwinDim(srcShape, 1);
    tiling.inputXSize = tiling.aLength * tiling.rLength;
    tiling.meanVarSize = tiling.aLength;
    tiling.tmpBufSize = stackBufferSize;
    tiling.loopRound = 1;
    tiling.inputRoundSize = tiling.inputXSize;
    tiling.meanVarRoundSize = tiling.meanVarSize;
    tiling.arCurLength = tiling.inputXSize;
    tiling.aCurLength = tiling.aLength;
    tiling.rValueBack = tiling.rLength ? 1.0f / (float)tiling.rLength : 0.0f;
}
// The scratch bounds of the Welford pair and Normalize (asc-devkit docs/zh/api/SIMD-API/高阶API/归一化操作/
// WelfordUpdate-Tiling.md, WelfordFinalize-Tiling.md, Normalize-Tiling.md: ops-nn's ada_layer_norm sums them
// for rows longer than it normalises in one go): one tile of the input at the larger element size.
inline void GetWelfordUpdateMaxMinTmpSize(const ge::Shape &srcShape, const uint32_t typeSizeT, const uint32_t typeSizeU,
                                          const bool isReuseSource, const bool isInplace, uint32_t &maxValue,
                                          uint32_t &minValue) {
    (void)isReuseSource; (void)isInplace;
    maxValue = minValue = TwinTmpBytes(srcShape, typeSizeT > typeSizeU ? typeSizeT : typeSizeU);
}
inline void GetWelfordFinalizeMaxMinTmpSize(const ge::Shape &srcShape, const uint32_t typeSize, const bool isReuseSource,
                                            uint32_t &maxValue, uint32_t &minValue) {
    (void)isReuseSource;
    maxValue = minValue = TwinTmpBytes(srcShape, typeSize);
}
inline void GetNormalizeMaxMinTmpSize(const ge::Shape &srcShape, const uint32_t typeSizeU, const uint32_t typeSizeT,
                                      const bool isReuseSource, const bool isComputeRstd, const bool isOnlyOutput,
                                      uint32_t &maxValue, uint32_t &minValue) {
    (void)isReuseSource; (void)isComputeRstd; (void)isOnlyOutput;
    maxValue = minValue = TwinTmpBytes(srcShape, typeSizeT > typeSizeU ? typeSizeT : typeSizeU);
}
// SoftMax / SimpleSoftMax (asc-devkit docs/zh/api/SIMD-API/高阶API/激活函数/SoftMax接口/SoftMax-SimpleSoftMax-Tiling.md):
// the scratch bounds (one tile of the input, as above) and SoftMaxTilingFunc. srcShape's last axis is k, the
// product of the others m (1 for a one-axis shape, 0 for no axis). The twin's SoftMax reads srcM and srcK;
// the rest describe one pass over the whole input (twin_softmax_tiling in kernel_tiling.h) with the per-row
// max / sum blocks of 32 bytes.
inline ::SoftMaxTiling TwinSoftMaxShapeTiling(const ge::Shape &srcShape, uint32_t blk) {
    const size_t n = srcShape.GetDimNum();
    uint64_t k = n == 0 ? 0 : (uint64_t)srcShape.GetDim(n - 1), m = 1;
    for (size_t i = 0; i + 1 < n; i++) m *= (uint64_t)srcShape.GetDim(i);
    if (n == 0) m = 0;
    return twin_softmax_tiling(m, k, blk);
}
inline uint32_t GetSoftMaxMaxTmpSize(const ge::Shape &srcShape, const uint32_t dataTypeSize, const bool isReuseSource) {
    (void)isReuseSource;
    return TwinTmpBytes(srcShape, dataTypeSize);
}
inline uint32_t GetSoftMaxMinTmpSize(const ge::Shape &srcShape, const uint32_t dataTypeSize, const bool isReuseSource) {
    (void)isReuseSource;
    return TwinTmpBytes(srcShape, dataTypeSize);
}
inline void SoftMaxTilingFunc(const ge::Shape &srcShape, const uint32_t dataTypeSize, const uint32_t localWorkSpaceSize,
                              ::SoftMaxTiling &softmaxTiling) {
    (void)localWorkSpaceSize;
    softmaxTiling = TwinSoftMaxShapeTiling(srcShape, dataTypeSize == 0 ? 8 : 32 / dataTypeSize);
}
// SoftmaxGrad (asc-devkit docs/zh/api/SIMD-API/高阶API/激活函数/SoftMax接口/SoftmaxGrad-Tiling接口.md): the scratch
// bounds (one tile of the input, as above; isFront and isReuseSource change nothing) and the tiling, SoftMax's
// for the shape (the per-row sum blocks of 32 bytes, which is also what isFront writes).
inline uint32_t GetSoftMaxGradMaxTmpSize(const ge::Shape &srcShape, const uint32_t dataTypeSize, const bool isFront,
                                         const bool isReuseSource) {
    (void)isFront; (void)isReuseSource;
    return TwinTmpBytes(srcShape, dataTypeSize);
}
inline uint32_t GetSoftMaxGradMinTmpSize(const ge::Shape &srcShape, const uint32_t dataTypeSize, const bool isFront,
                                         const bool isReuseSource) {
    return GetSoftMaxGradMaxTmpSize(srcShape, dataTypeSize, isFront, isReuseSource);
}
inline void SoftMaxGradTilingFunc(const ge::Shape &srcShape, const uint32_t dataTypeSize, const uint32_t localWorkSpaceSize,
                                  ::SoftMaxTiling &softmaxGradTiling, const bool isFront = false) {
    (void)localWorkSpaceSize; (void)isFront;
    softmaxGradTiling = TwinSoftMaxShapeTiling(srcShape, dataTypeSize == 0 ? 8 : 32 / dataTypeSize);
}
// SoftmaxFlashV2 (asc-devkit docs/zh/api/SIMD-API/高阶API/激活函数/SoftMax接口/SoftmaxFlashV2-Tiling接口.md): the
// scratch bounds (one tile of the input, as above) and the tiling, as SoftMax's with the per-row blocks of
// the statistics' type (dataTypeSize2), or of one element with isFlashOutputBrc (the non-broadcast output).
inline uint32_t GetSoftMaxFlashV2MinTmpSize(const ge::Shape &srcShape, const uint32_t dataTypeSize1,
                                            const uint32_t dataTypeSize2, const bool isUpdate,
                                            const bool isBasicBlock = false, const bool isFlashOutputBrc = false) {
    (void)dataTypeSize2; (void)isUpdate; (void)isBasicBlock; (void)isFlashOutputBrc;
    return TwinTmpBytes(srcShape, dataTypeSize1);
}
inline uint32_t GetSoftMaxFlashV2MaxTmpSize(const ge::Shape &srcShape, const uint32_t dataTypeSize1,
                                            const uint32_t dataTypeSize2, const bool isUpdate,
                                            const bool isBasicBlock = false, const bool isFlashOutputBrc = false) {
    (void)dataTypeSize2; (void)isUpdate; (void)isBasicBlock; (void)isFlashOutputBrc;
    return TwinTmpBytes(srcShape, dataTypeSize1);
}
inline void SoftMaxFlashV2TilingFunc(const ge::Shape &srcShape, const uint32_t dataTypeSize1, const uint32_t dataTypeSize2,
                                     const uint32_t localWorkSpaceSize, ::SoftMaxTiling &softmaxFlashTiling,
                                     const bool isUpdate, const bool isBasicBlock = false,
                                     const bool isFlashOutputBrc = false) {
    (void)dataTypeSize1; (void)localWorkSpaceSize; (void)isUpdate; (void)isBasicBlock;
    softmaxFlashTiling =
        TwinSoftMaxShapeTiling(srcShape, isFlashOutputBrc ? 1 : (dataTypeSize2 == 0 ? 8 : 32 / dataTypeSize2));
}

// TopK (asc-devkit docs/zh/api/SIMD-API/高阶API/排序操作/TopK-Tiling.md): the scratch bounds and the tiling of
// the merge-sort TopK, both false ("获取失败") outside the ranges the pages set: inner a positive multiple of 32
// (exactly 32 in Small mode), outter at least 1, half or float data (dataTypeSize 2 or 4), and for the tiling
// 1 <= k <= inner. Normal mode's maximum inner of 4096 is left to the kernel API (see TwinTopKTmpBytes). The bounds are the twin's rule
// (TwinTopKTmpBytes in kernel_tiling.h); the twin's TopK accepts any tmpLocal of at least the minimum.
inline bool GetTopKMaxMinTmpSize(const platform_ascendc::PlatformAscendC &ascendcPlatform, const int32_t inner,
                                 const int32_t outter, const bool isReuseSource, const bool isInitIndex, enum TopKMode mode,
                                 const bool isLargest, const uint32_t dataTypeSize, uint32_t &maxValue, uint32_t &minValue) {
    (void)ascendcPlatform; (void)isReuseSource;
    const uint32_t mx = TwinTopKTmpBytes(inner, outter, isInitIndex, mode, isLargest, dataTypeSize);
    const uint32_t mn = TwinTopKTmpBytes(inner, 1, isInitIndex, mode, isLargest, dataTypeSize);
    if (mx == 0 || mn == 0) return false;
    maxValue = mx;
    minValue = mn;
    return true;
}
// The tiling: the page asks kernels only to pass it through. The twin fills the fields it can describe in
// its own terms: tmpLocalSize (the minimum above), allDataSize (outter * inner), innerDataSize (inner),
// sortRepeat (Sort32 repeats, one per 32 elements), mrgSortRepeat (4-way MrgSort passes to sort a row),
// kAlignFourBytes / kAlignTwoBytes (k rounded up to 32 bytes of 4- and 2-byte elements: the row lengths
// of the outputs in Normal mode); the rest stay 0.
inline bool TopKTilingFunc(const platform_ascendc::PlatformAscendC &ascendcPlatform, const int32_t inner,
                           const int32_t outter, const int32_t k, const uint32_t dataTypeSize, const bool isInitIndex,
                           enum TopKMode mode, const bool isLargest, ::TopkTiling &topKTiling) {
    (void)ascendcPlatform;
    const uint32_t mn = TwinTopKTmpBytes(inner, 1, isInitIndex, mode, isLargest, dataTypeSize);
    if (mn == 0 || outter < 1 || k < 1 || k > inner) return false;
    ::TopkTiling t{};
    t.tmpLocalSize = (int32_t)mn;
    t.allDataSize = outter * inner;
    t.innerDataSize = inner;
    t.sortRepeat = (uint32_t)(outter * inner / 32);
    int32_t passes = 0;
    if (mode == TopKMode::TOPK_NORMAL)
        for (int32_t len = 32; len < inner; len *= 4) passes++;
    t.mrgSortRepeat = passes;
    t.kAlignFourBytes = (k + 7) / 8 * 8;
    t.kAlignTwoBytes = (k + 15) / 16 * 16;
    topKTiling = t;
    return true;
}
} // namespace AscendC
