// twin: the host-side temporary-space queries of the high-level APIs, for programs built against
// the kernel headers alone (CANN 9 `.asc` programs, whose host `main` includes "tiling/tiling_api.h"
// and asks `AscendC::GetAcoshMaxMinTmpSize(AscendC::TensorShape{{16}}, ...)`). The custom-op host
// build has the same queries in include/host/tiling/tiling_api.h, with the full ge::Shape; the
// answers here are the same: one tile of the input, rounded up to 32 bytes, for both bounds (the
// twin's high-level APIs need no scratch). `AscendC::TensorShape` is an alias of `ge::Shape`
// (asc-devkit docs/zh/api/SIMD-API/高阶API/数据结构/TensorShape.md); the ge::Shape here holds the
// dims and their product, no more.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ge {
class Shape {
public:
    Shape() = default;
    explicit Shape(const std::vector<int64_t> &d) : dims_(d) {}
    size_t GetDimNum() const { return dims_.size(); }
    int64_t GetDim(size_t i) const { return i < dims_.size() ? dims_[i] : 0; }
    std::vector<int64_t> GetDims() const { return dims_; }
    int64_t GetShapeSize() const {
        int64_t s = 1;
        for (auto d : dims_) s *= d;
        return s;
    }

private:
    std::vector<int64_t> dims_;
};
} // namespace ge

namespace AscendC {
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
TWIN_TMP_SIZE(GetRintMaxMinTmpSize)
#undef TWIN_TMP_SIZE
// Power's query takes both operands' shapes and whether the type is an integer one
// (asc-devkit docs, "GetPowerMaxMinTmpSize"); the twin answers one tile of the larger operand.
inline void GetPowerMaxMinTmpSize(const ge::Shape &srcShape1, const ge::Shape &srcShape2, const bool typeIsInt,
                                  const uint32_t typeSize, const bool isReuseSource, uint32_t &maxValue,
                                  uint32_t &minValue) {
    (void)typeIsInt; (void)isReuseSource;
    const ge::Shape &big = srcShape1.GetShapeSize() >= srcShape2.GetShapeSize() ? srcShape1 : srcShape2;
    maxValue = minValue = TwinTmpBytes(big, typeSize);
}
} // namespace AscendC
#include "twin_adv_tiling.h"
