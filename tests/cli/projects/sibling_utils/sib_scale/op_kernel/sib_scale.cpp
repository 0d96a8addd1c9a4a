// Kernel of SibScale: z = x + y with the repository's shared body; its tiling struct is the one the
// sibling folder's host header registers for SibScale.
#include "kernel_operator.h"
#include "../utils/elementwise_add.h"

extern "C" __global__ __aicore__ void sib_scale(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tiling_data, tiling);
    SharedAdd<DTYPE_X> op;
    op.Init(x, y, z, tiling_data.totalLength, tiling_data.tileLength);
    op.Process();
}
