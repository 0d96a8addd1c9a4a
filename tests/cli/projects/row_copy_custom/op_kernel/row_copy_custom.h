// The class of RowScaleCustom's kernel: y = 2 * x. Each block takes its rows one at a time: the row is
// copied into a UB row padded to whole 32 B blocks with a scalar loop, scaled with one Muls, and copied
// out with another scalar loop (a row of 1001 floats is not whole 32 B blocks, so a first version
// avoids DataCopy).
#ifndef ROW_COPY_CUSTOM_H
#define ROW_COPY_CUSTOM_H
#include "kernel_operator.h"

class KernelRowScale {
public:
    __aicore__ inline KernelRowScale() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t rows, uint32_t rowLength)
    {
        this->d = rowLength;
        this->dAlign = (rowLength + 7) / 8 * 8;
        this->rowsPerBlock = rows / AscendC::GetBlockNum();
        this->rowStart = this->rowsPerBlock * AscendC::GetBlockIdx();
        xGm.SetGlobalBuffer((__gm__ float *)x, rows * rowLength);
        yGm.SetGlobalBuffer((__gm__ float *)y, rows * rowLength);
        pipe.InitBuffer(xBuf, this->dAlign * sizeof(float));
        pipe.InitBuffer(yBuf, this->dAlign * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        AscendC::LocalTensor<float> xRow = xBuf.Get<float>();
        AscendC::LocalTensor<float> yRow = yBuf.Get<float>();
        for (uint32_t r = 0; r < this->rowsPerBlock; r++) {
            uint32_t rowOffset = (this->rowStart + r) * this->d;
            for (uint32_t k = 0; k < this->d; k++) {
                xRow.SetValue(k, xGm.GetValue(rowOffset + k));
            }
            AscendC::PipeBarrier<PIPE_ALL>();
            AscendC::Muls(yRow, xRow, 2.0f, this->dAlign);
            AscendC::PipeBarrier<PIPE_ALL>();
            for (uint32_t k = 0; k < this->d; k++) {
                float v = yRow.GetValue(k);
                yGm.SetValue(rowOffset + k, v);
            }
            AscendC::PipeBarrier<PIPE_ALL>();
        }
    }

private:
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> xBuf;
    AscendC::TBuf<AscendC::TPosition::VECCALC> yBuf;
    AscendC::GlobalTensor<float> xGm;
    AscendC::GlobalTensor<float> yGm;
    uint32_t d = 0;
    uint32_t dAlign = 0;
    uint32_t rowsPerBlock = 0;
    uint32_t rowStart = 0;
};
#endif // ROW_COPY_CUSTOM_H
