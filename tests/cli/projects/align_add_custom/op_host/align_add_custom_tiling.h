// Tiling data shared by the host tiling function and the kernel of AlignAddCustom.
#ifndef ALIGN_ADD_CUSTOM_TILING_H
#define ALIGN_ADD_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(TilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, align);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(AlignAddCustom, TilingData)
} // namespace optiling
#endif // ALIGN_ADD_CUSTOM_TILING_H
