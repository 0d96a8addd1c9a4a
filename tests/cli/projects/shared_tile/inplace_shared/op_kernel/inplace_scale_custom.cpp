// Kernel of InplaceScaleCustom: the tile loop lives in the repository's shared header.
#include "kernel_operator.h"
#include "../tile_utils/inplace_tile.h"

extern "C" __global__ __aicore__ void inplace_scale_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tiling_data, tiling);
    KernelInplaceScale op;
    op.Init(x, y, tiling_data.totalLength, tiling_data.tileLength);
    op.Process();
}
