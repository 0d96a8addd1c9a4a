// Tiling data shared by the host tiling function and the kernel of InterleaveCustom.
#ifndef INTERLEAVE_CUSTOM_TILING_H
#define INTERLEAVE_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(TilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalPairs);
TILING_DATA_FIELD_DEF(uint32_t, tilePairs);
TILING_DATA_FIELD_DEF(uint32_t, mode);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(InterleaveCustom, TilingData)
} // namespace optiling
#endif // INTERLEAVE_CUSTOM_TILING_H
