// The class of ScalarLoopCustom's kernel: z = half(float(x) + 1) for any length, each block an even share
// walked in tiles of at most `tile` elements. The conversions and the fill of the ones are scalar
// GetValue/SetValue loops (fenced by full barriers where the scalar and vector units hand data over),
// the add is one vector instruction.
#ifndef SCALAR_LOOP_CUSTOM_H
#define SCALAR_LOOP_CUSTOM_H
#include "kernel_operator.h"

class KernelScalarLoop {
public:
    __aicore__ inline KernelScalarLoop() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR z, uint32_t total, uint32_t tile)
    {
        uint32_t blocks = AscendC::GetBlockNum();
        uint32_t per = ((total + blocks - 1) / blocks + 15) / 16 * 16;
        uint32_t start = per * AscendC::GetBlockIdx();
        this->length = start >= total ? 0 : (total - start < per ? total - start : per);
        this->tile = tile;
        xGm.SetGlobalBuffer((__gm__ half *)x + start, per);
        zGm.SetGlobalBuffer((__gm__ half *)z + start, per);
        pipe.InitBuffer(inQueueX, 2, tile * sizeof(half));
        pipe.InitBuffer(outQueueZ, 2, tile * sizeof(half));
        pipe.InitBuffer(xFloatBuf, tile * sizeof(float));
        pipe.InitBuffer(onesBuf, tile * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t off = 0; off < this->length; off += this->tile) {
            uint32_t n = this->length - off < this->tile ? this->length - off : this->tile;
            CopyIn(off, n);
            Compute(n);
            CopyOut(off, n);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t off, uint32_t n)
    {
        AscendC::LocalTensor<half> xLocal = inQueueX.AllocTensor<half>();
        AscendC::DataCopyExtParams params{1, static_cast<uint32_t>(n * sizeof(half)), 0, 0, 0};
        AscendC::DataCopyPadExtParams<half> pad{false, 0, 0, 0};
        AscendC::DataCopyPad(xLocal, xGm[off], params, pad);
        inQueueX.EnQue(xLocal);
    }
    __aicore__ inline void Compute(uint32_t n)
    {
        AscendC::LocalTensor<half> xLocal = inQueueX.DeQue<half>();
        AscendC::LocalTensor<half> zLocal = outQueueZ.AllocTensor<half>();
        AscendC::LocalTensor<float> xFloat = xFloatBuf.Get<float>();
        AscendC::LocalTensor<float> ones = onesBuf.Get<float>();
        AscendC::PipeBarrier<PIPE_ALL>();
        for (uint32_t i = 0; i < n; i++) {
            xFloat.SetValue(i, static_cast<float>(xLocal.GetValue(i)));
        }
        for (uint32_t i = 0; i < n; i++) {
            ones.SetValue(i, 1.0f);
        }
        AscendC::PipeBarrier<PIPE_ALL>();
        AscendC::Add(xFloat, xFloat, ones, n);
        AscendC::PipeBarrier<PIPE_ALL>();
        for (uint32_t i = 0; i < n; i++) {
            zLocal.SetValue(i, static_cast<half>(xFloat.GetValue(i)));
        }
        AscendC::PipeBarrier<PIPE_ALL>();
        outQueueZ.EnQue<half>(zLocal);
        inQueueX.FreeTensor(xLocal);
    }
    __aicore__ inline void CopyOut(uint32_t off, uint32_t n)
    {
        AscendC::LocalTensor<half> zLocal = outQueueZ.DeQue<half>();
        AscendC::DataCopyExtParams params{1, static_cast<uint32_t>(n * sizeof(half)), 0, 0, 0};
        AscendC::DataCopyPad(zGm[off], zLocal, params);
        outQueueZ.FreeTensor(zLocal);
    }

    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, 2> inQueueX;
    AscendC::TQue<AscendC::QuePosition::VECOUT, 2> outQueueZ;
    AscendC::TBuf<AscendC::TPosition::VECCALC> xFloatBuf, onesBuf;
    AscendC::GlobalTensor<half> xGm;
    AscendC::GlobalTensor<half> zGm;
    uint32_t length;
    uint32_t tile;
};

#endif // SCALAR_LOOP_CUSTOM_H
