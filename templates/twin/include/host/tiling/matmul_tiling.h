// twin (host side): the matmul tiling classes (matmul_tiling::MatmulApiTiling, MultiCoreMatmulTiling),
// shared with the kernel tree's `.asc` host code: the definitions are in include/kernel/tiling/matmul_tiling.h,
// over the host's platform.
#pragma once
#include "../twin_host/platform.h"
#include "../../kernel/tiling/matmul_tiling.h"
