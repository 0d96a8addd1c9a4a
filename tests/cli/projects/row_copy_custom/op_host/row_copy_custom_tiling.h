// Tiling data shared by the host tiling function and the kernel of RowScaleCustom.
#ifndef ROW_COPY_CUSTOM_TILING_H
#define ROW_COPY_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(TilingData)
TILING_DATA_FIELD_DEF(uint32_t, rows);
TILING_DATA_FIELD_DEF(uint32_t, rowLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(RowScaleCustom, TilingData)
} // namespace optiling
#endif // ROW_COPY_CUSTOM_TILING_H
