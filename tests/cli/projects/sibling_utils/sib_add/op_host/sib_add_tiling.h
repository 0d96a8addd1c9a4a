// Tiling data of SibAdd, shared by its host tiling function and its kernel.
#ifndef SIB_ADD_TILING_H
#define SIB_ADD_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(TilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(SibAdd, TilingData)
} // namespace optiling
#endif // SIB_ADD_TILING_H
