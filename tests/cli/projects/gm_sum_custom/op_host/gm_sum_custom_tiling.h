// Tiling data shared by the host tiling function and the kernel of GmSumCustom.
#ifndef GM_SUM_CUSTOM_TILING_H
#define GM_SUM_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(TilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(GmSumCustom, TilingData)
} // namespace optiling
#endif // GM_SUM_CUSTOM_TILING_H
