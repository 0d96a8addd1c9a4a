// Tiling data of the tensor-list ops in this repository, defined for the host only (the kernel
// includes no header that defines it: the build hands it over, as CANN's does for older ops).
#ifndef LIST_TILING_DEF_H
#define LIST_TILING_DEF_H
#include "register/tilingdata_base.h"
#include "register/op_def_registry.h"
namespace optiling {
constexpr uint32_t LIST_MAX = 16;
BEGIN_TILING_DATA_DEF(ListTilingData)
TILING_DATA_FIELD_DEF(uint32_t, count);
TILING_DATA_FIELD_DEF(uint32_t, tile);
TILING_DATA_FIELD_DEF_ARR(uint32_t, LIST_MAX, sizes);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(ListAxpy, ListTilingData)
} // namespace optiling
#endif // LIST_TILING_DEF_H
