// Entry of QueueAddCustom's kernel; the class is in queue_add_custom.h.
#include "queue_add_custom.h"

extern "C" __global__ __aicore__ void queue_add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tiling_data, tiling);
    KernelQueueAdd op;
    op.Init(x, y, z, tiling_data.totalLength, tiling_data.tileLength);
    op.Process();
}
