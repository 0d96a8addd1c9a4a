// Tiling data shared by the ops of this repository whose tiling lives here (ops-nn's foreach_utils
// layout): a host-only header (it includes the host registry and util/math_util.h), so the kernels
// get the struct generated from it, never this file.
#ifndef UTILS_TILING_DEF_H
#define UTILS_TILING_DEF_H
#include "register/tilingdata_base.h"
#include "register/op_impl_registry.h"
#include "util/math_util.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(UtilsTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(SibScale, UtilsTilingData)
} // namespace optiling
#endif // UTILS_TILING_DEF_H
