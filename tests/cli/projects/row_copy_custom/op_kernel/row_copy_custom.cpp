// Entry of RowScaleCustom's kernel; the class is in row_copy_custom.h.
#include "row_copy_custom.h"

extern "C" __global__ __aicore__ void row_copy_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tiling_data, tiling);
    KernelRowScale op;
    op.Init(x, y, tiling_data.rows, tiling_data.rowLength);
    op.Process();
}
