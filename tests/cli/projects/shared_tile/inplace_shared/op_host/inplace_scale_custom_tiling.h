// Tiling data shared by the host tiling function and the kernel of InplaceScaleCustom.
#ifndef INPLACE_SCALE_CUSTOM_TILING_H
#define INPLACE_SCALE_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(TilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(InplaceScaleCustom, TilingData)
} // namespace optiling
#endif // INPLACE_SCALE_CUSTOM_TILING_H
