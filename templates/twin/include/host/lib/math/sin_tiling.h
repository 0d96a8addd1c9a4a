// twin: lib/math/sin_tiling.h, the high-level Sin API's tiling header as CANN installs it under lib/ (asc-devkit
// include/adv_api/math/sin_tiling.h): GetSinMaxMinTmpSize / GetSinTmpBufferFactorSize live in tiling/tiling_api.h.
#pragma once
#include "../../tiling/tiling_api.h"
