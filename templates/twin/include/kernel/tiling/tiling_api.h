// twin: kernel-side stub (a tiling header included by the kernel may include this).
#pragma once
#include "../kernel_tiling/kernel_tiling.h"
#include "twin_tmp_size.h"
// CANN's tiling headers bring the bounds-checked memcpy_s / memset_s family with them (`.asc` host code
// copies its tiling struct with memcpy_s after including only this header, e.g. asc-devkit's deepnorm
// example).
#include "../twin/securec.h"
// `.asc` programs define their tiling struct with BEGIN_TILING_DATA_DEF after including this header.
#include "../register/tilingdata_base.h"
// In an `.asc` single source (TWIN_AIC_CORES: see platform/platform_ascendc.h) the host part may tile a
// matmul: the platform and the matmul tiling classes, and <iostream>, which CANN's tiling headers bring.
#ifdef TWIN_AIC_CORES
#include <iostream>
#include "platform/platform_ascendc.h"
#include "matmul_tiling.h"
#endif
