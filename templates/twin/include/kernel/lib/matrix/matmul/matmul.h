// twin: lib/matrix/matmul/matmul.h, the Matmul class header under CANN's installed high-level API path
// (asc-devkit's source tree calls it adv_api/matmul/matmul.h; ops-math's rfft1_d and stft include it
// before lib/matmul_intf.h). The twin's Matmul is in lib/matmul_intf.h; twin/matmul_utils.h holds the
// small helpers CANN's Matmul headers bring into namespace AscendC with it.
#pragma once
#include "../../matmul_intf.h"
#include "../../../twin/matmul_utils.h"
