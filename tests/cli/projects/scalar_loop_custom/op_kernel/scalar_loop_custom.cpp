// Entry of ScalarLoopCustom's kernel; the class is in scalar_loop_custom.h.
#include "scalar_loop_custom.h"

extern "C" __global__ __aicore__ void scalar_loop_custom(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tiling_data, tiling);
    KernelScalarLoop op;
    op.Init(x, z, tiling_data.totalLength, tiling_data.tileLength);
    op.Process();
}
