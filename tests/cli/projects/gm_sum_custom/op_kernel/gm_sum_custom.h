// The class of GmSumCustom's kernel: y = sum(x). Each block sums its share (one row) with ReduceSum and
// writes the partial to workspace[block]; after SyncAll, block 0 adds the partials up with a scalar
// GetValue loop over global memory and writes y.
#ifndef GM_SUM_CUSTOM_H
#define GM_SUM_CUSTOM_H
#include "kernel_operator.h"

class KernelGmSum {
public:
    __aicore__ inline KernelGmSum() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, uint32_t total)
    {
        this->blockNum = AscendC::GetBlockNum();
        this->length = total / this->blockNum;
        xGm.SetGlobalBuffer((__gm__ float *)x + this->length * AscendC::GetBlockIdx(), this->length);
        yGm.SetGlobalBuffer((__gm__ float *)y, 1);
        workGm.SetGlobalBuffer((__gm__ float *)workspace, this->blockNum);
        pipe.InitBuffer(inQueueX, 1, this->length * sizeof(float));
        pipe.InitBuffer(workBuf, this->length * sizeof(float));
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
        AscendC::DataCopyPad(workGm[AscendC::GetBlockIdx()], out, {1, sizeof(float), 0, 0, 0});
        AscendC::PipeBarrier<PIPE_ALL>();
        AscendC::SyncAll();
        if (AscendC::GetBlockIdx() == 0) {
            float total = 0.0f;
            for (uint32_t c = 0; c < blockNum; c++) {
                total += workGm.GetValue(c);
            }
            out.SetValue(0, total);
            AscendC::PipeBarrier<PIPE_ALL>();
            AscendC::DataCopyPad(yGm, out, {1, sizeof(float), 0, 0, 0});
        }
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::TPosition::VECIN, 1> inQueueX;
    AscendC::TBuf<AscendC::TPosition::VECCALC> workBuf;
    AscendC::TBuf<AscendC::TPosition::VECCALC> outBuf;
    AscendC::GlobalTensor<float> xGm;
    AscendC::GlobalTensor<float> yGm;
    AscendC::GlobalTensor<float> workGm;
    uint32_t blockNum = 1;
    uint32_t length = 0;
};
#endif // GM_SUM_CUSTOM_H
