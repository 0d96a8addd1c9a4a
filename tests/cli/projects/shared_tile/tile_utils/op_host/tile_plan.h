// A tile plan shared by the operators of this repository (as ops-nn's foreach_utils/op_host is): the
// tile is the largest power of two of floats within 1/160 of the UB the platform reports (1024 on a
// 192 KiB UB), so that it divides every power-of-two share.
#ifndef TILE_PLAN_H
#define TILE_PLAN_H
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
inline uint32_t PlanTile(gert::TilingContext *context)
{
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint64_t ubSize = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    uint32_t tile = 8;
    while (tile * 2 <= ubSize / 160) {
        tile *= 2;
    }
    return tile;
}
} // namespace optiling
#endif // TILE_PLAN_H
