// Kernel of RowSumCustom: block r copies row r of x into UB, sums it with ReduceSum and writes y[r].
#include "kernel_operator.h"

class KernelRowSum {
public:
    __aicore__ inline KernelRowSum() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t rowLength)
    {
        this->length = rowLength;
        xGm.SetGlobalBuffer((__gm__ float *)x + rowLength * AscendC::GetBlockIdx(), rowLength);
        yGm.SetGlobalBuffer((__gm__ float *)y + AscendC::GetBlockIdx(), 1);
        pipe.InitBuffer(inQueueX, 1, rowLength * sizeof(float));
        pipe.InitBuffer(workBuf, rowLength * sizeof(float));
        pipe.InitBuffer(outBuf, 32);
    }
    __aicore__ inline void Process()
    {
        AscendC::LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
        AscendC::DataCopy(xLocal, xGm, this->length);
        inQueueX.EnQue(xLocal);
        xLocal = inQueueX.DeQue<float>();
        AscendC::LocalTensor<float> out = outBuf.Get<float>();
        AscendC::LocalTensor<float> work = workBuf.Get<float>();
        AscendC::ReduceSum<float>(out, xLocal, work, this->length);
        inQueueX.FreeTensor(xLocal);
        AscendC::PipeBarrier<PIPE_ALL>();
        AscendC::DataCopyPad(yGm, out, {1, sizeof(float), 0, 0, 0});
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::TPosition::VECIN, 1> inQueueX;
    AscendC::TBuf<AscendC::TPosition::VECCALC> workBuf;
    AscendC::TBuf<AscendC::TPosition::VECCALC> outBuf;
    AscendC::GlobalTensor<float> xGm;
    AscendC::GlobalTensor<float> yGm;
    uint32_t length = 0;
};

extern "C" __global__ __aicore__ void row_sum_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tiling_data, tiling);
    KernelRowSum op;
    op.Init(x, y, tiling_data.rowLength);
    op.Process();
}
