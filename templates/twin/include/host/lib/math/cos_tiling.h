// twin: lib/math/cos_tiling.h, the high-level Cos API's tiling header as CANN installs it under lib/ (asc-devkit
// include/adv_api/math/cos_tiling.h): GetCosMaxMinTmpSize / GetCosTmpBufferFactorSize live in tiling/tiling_api.h.
#pragma once
#include "../../tiling/tiling_api.h"
