// The class of QueueAddCustom's kernel: z = x + y for any length, each block an even share walked in
// tiles of at most `tile` elements through queues of one buffer each, written as literal depths
// (`TQue<..., 1>`, `InitBuffer(q, 1, ...)`) as many real kernels write them. With one buffer, the copies and
// the add of a tile cannot overlap; two buffers need the host to plan its tiles for half the UB.
#ifndef QUEUE_ADD_CUSTOM_H
#define QUEUE_ADD_CUSTOM_H
#include "kernel_operator.h"


class KernelQueueAdd {
public:
    __aicore__ inline KernelQueueAdd() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t total, uint32_t tile)
    {
        uint32_t blocks = AscendC::GetBlockNum();
        uint32_t per = ((total + blocks - 1) / blocks + 15) / 16 * 16;
        uint32_t start = per * AscendC::GetBlockIdx();
        this->length = start >= total ? 0 : (total - start < per ? total - start : per);
        this->tile = tile;
        xGm.SetGlobalBuffer((__gm__ DTYPE_X *)x + start, per);
        yGm.SetGlobalBuffer((__gm__ DTYPE_Y *)y + start, per);
        zGm.SetGlobalBuffer((__gm__ DTYPE_Z *)z + start, per);
        pipe.InitBuffer(inQueueX, 1, tile * sizeof(DTYPE_X));
        pipe.InitBuffer(inQueueY, 1, tile * sizeof(DTYPE_Y));
        pipe.InitBuffer(outQueueZ, 1, tile * sizeof(DTYPE_Z));
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
        AscendC::LocalTensor<DTYPE_X> xLocal = inQueueX.AllocTensor<DTYPE_X>();
        AscendC::LocalTensor<DTYPE_Y> yLocal = inQueueY.AllocTensor<DTYPE_Y>();
        AscendC::DataCopyExtParams params{1, static_cast<uint32_t>(n * sizeof(DTYPE_X)), 0, 0, 0};
        AscendC::DataCopyPadExtParams<DTYPE_X> pad{false, 0, 0, 0};
        AscendC::DataCopyPad(xLocal, xGm[off], params, pad);
        AscendC::DataCopyPad(yLocal, yGm[off], params, pad);
        inQueueX.EnQue(xLocal);
        inQueueY.EnQue(yLocal);
    }
    __aicore__ inline void Compute(uint32_t n)
    {
        AscendC::LocalTensor<DTYPE_X> xLocal = inQueueX.DeQue<DTYPE_X>();
        AscendC::LocalTensor<DTYPE_Y> yLocal = inQueueY.DeQue<DTYPE_Y>();
        AscendC::LocalTensor<DTYPE_Z> zLocal = outQueueZ.AllocTensor<DTYPE_Z>();
        AscendC::Add(zLocal, xLocal, yLocal, n);
        outQueueZ.EnQue<DTYPE_Z>(zLocal);
        inQueueX.FreeTensor(xLocal);
        inQueueY.FreeTensor(yLocal);
    }
    __aicore__ inline void CopyOut(uint32_t off, uint32_t n)
    {
        AscendC::LocalTensor<DTYPE_Z> zLocal = outQueueZ.DeQue<DTYPE_Z>();
        AscendC::DataCopyExtParams params{1, static_cast<uint32_t>(n * sizeof(DTYPE_Z)), 0, 0, 0};
        AscendC::DataCopyPad(zGm[off], zLocal, params);
        outQueueZ.FreeTensor(zLocal);
    }

    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, 1> inQueueX, inQueueY;
    AscendC::TQue<AscendC::QuePosition::VECOUT, 1> outQueueZ;
    AscendC::GlobalTensor<DTYPE_X> xGm;
    AscendC::GlobalTensor<DTYPE_Y> yGm;
    AscendC::GlobalTensor<DTYPE_Z> zGm;
    uint32_t length;
    uint32_t tile;
};

#endif // QUEUE_ADD_CUSTOM_H
