// twin: kernel-side stub (a tiling header included by the kernel may include this).
#pragma once
#include "../kernel_tiling/kernel_tiling.h"
#include "twin_tmp_size.h"
// `.asc` programs define their tiling struct with BEGIN_TILING_DATA_DEF after including this header.
#include "../register/tilingdata_base.h"
