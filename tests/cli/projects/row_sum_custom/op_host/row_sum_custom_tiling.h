// Tiling data shared by the host tiling function and the kernel of RowSumCustom.
#ifndef ROW_SUM_CUSTOM_TILING_H
#define ROW_SUM_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(TilingData)
TILING_DATA_FIELD_DEF(uint32_t, rowLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(RowSumCustom, TilingData)
} // namespace optiling
#endif // ROW_SUM_CUSTOM_TILING_H
