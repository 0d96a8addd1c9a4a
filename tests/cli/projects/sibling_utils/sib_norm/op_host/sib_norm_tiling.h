// Tiling data of SibNorm, in the ops-nn norm layout: the op's `<name>_tiling.h` defines the struct
// and also includes host-only headers (the registry, util/math_util.h), so the kernel cannot include
// it and gets the struct generated from it.
#ifndef SIB_NORM_TILING_H
#define SIB_NORM_TILING_H
#include "register/tilingdata_base.h"
#include "register/op_impl_registry.h"
#include "util/math_util.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(SibNormTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(SibNorm, SibNormTilingData)
} // namespace optiling
#endif // SIB_NORM_TILING_H
