// Kernel of SibNorm: z = x + y with the repository's shared body; its tiling struct is generated from
// the host-only op_host/sib_norm_tiling.h. The branch hint `unlikely` comes with kernel_operator.h,
// as ops-nn's norm kernels expect.
#include "kernel_operator.h"
#include "../utils/elementwise_add.h"

extern "C" __global__ __aicore__ void sib_norm(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tiling_data, tiling);
    if (unlikely(tiling_data.totalLength == 0)) {
        return;
    }
    SharedAdd<DTYPE_X> op;
    op.Init(x, y, z, tiling_data.totalLength, tiling_data.tileLength);
    op.Process();
}
