// Entry of GmSumCustom's kernel; the class is in gm_sum_custom.h.
#include "gm_sum_custom.h"

extern "C" __global__ __aicore__ void gm_sum_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tiling_data, tiling);
    KernelGmSum op;
    op.Init(x, y, workspace, tiling_data.totalLength);
    op.Process();
}
