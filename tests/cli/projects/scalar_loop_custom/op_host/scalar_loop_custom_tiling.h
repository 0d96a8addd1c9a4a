// Tiling data shared by the host tiling function and the kernel of ScalarLoopCustom.
#ifndef SCALAR_LOOP_CUSTOM_TILING_H
#define SCALAR_LOOP_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(TilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(ScalarLoopCustom, TilingData)
} // namespace optiling
#endif // SCALAR_LOOP_CUSTOM_TILING_H
