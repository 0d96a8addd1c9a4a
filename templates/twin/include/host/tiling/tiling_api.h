// twin: tiling API umbrella: platform, tiling data and the high-level APIs' temporary-space queries.
// Matmul tiling helpers are not provided by the twin.
#pragma once
#include "../twin_host/core.h"
#include "../twin_host/platform.h"
#include "../register/tilingdata_base.h"

// Temporary-space queries of the high-level math APIs (asc-devkit docs, "GetXxxMaxMinTmpSize":
// the minimum and maximum scratch bytes a kernel reserves for the API). The twin's high-level APIs
// need no scratch, so any size works there; the twin answers one tile of the input, rounded up to
// 32 bytes, for both, so operators that size a scratch buffer from the answer get a usable one.
namespace AscendC {
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
TWIN_TMP_SIZE(GetRoundMaxMinTmpSize)
TWIN_TMP_SIZE(GetTruncMaxMinTmpSize)
TWIN_TMP_SIZE(GetFracMaxMinTmpSize)
TWIN_TMP_SIZE(GetPowerMaxMinTmpSize)
#undef TWIN_TMP_SIZE
} // namespace AscendC

