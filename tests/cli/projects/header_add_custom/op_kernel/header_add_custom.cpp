// Entry of HeaderAddCustom's kernel; the class is in header_add_custom.h.
#include "header_add_custom.h"

extern "C" __global__ __aicore__ void header_add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tiling_data, tiling);
    KernelHeaderAdd op;
    op.Init(x, y, z, tiling_data.totalLength, tiling_data.tileLength);
    op.Process();
}
