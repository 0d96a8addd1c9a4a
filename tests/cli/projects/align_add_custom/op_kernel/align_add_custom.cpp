// Kernel of AlignAddCustom: z = x + y for any length. Each block takes a share rounded up to `align`
// elements; the last tile of the last block copies its length rounded up to `align` too.
#include "kernel_operator.h"

class KernelAlignAdd {
public:
    __aicore__ inline KernelAlignAdd() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t total, uint32_t align, uint32_t tile)
    {
        uint32_t blocks = AscendC::GetBlockNum();
        uint32_t per = (total + blocks - 1) / blocks;
        per = (per + align - 1) / align * align;
        uint32_t start = per * AscendC::GetBlockIdx();
        this->length = start >= total ? 0 : (total - start < per ? total - start : per);
        this->align = align;
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
            uint32_t copied = (n + this->align - 1) / this->align * this->align;
            AscendC::LocalTensor<DTYPE_X> xLocal = inQueueX.AllocTensor<DTYPE_X>();
            AscendC::LocalTensor<DTYPE_Y> yLocal = inQueueY.AllocTensor<DTYPE_Y>();
            AscendC::DataCopy(xLocal, xGm[off], copied);
            AscendC::DataCopy(yLocal, yGm[off], copied);
            inQueueX.EnQue(xLocal);
            inQueueY.EnQue(yLocal);
            xLocal = inQueueX.DeQue<DTYPE_X>();
            yLocal = inQueueY.DeQue<DTYPE_Y>();
            AscendC::LocalTensor<DTYPE_Z> zLocal = outQueueZ.AllocTensor<DTYPE_Z>();
            AscendC::Add(zLocal, xLocal, yLocal, copied);
            outQueueZ.EnQue<DTYPE_Z>(zLocal);
            inQueueX.FreeTensor(xLocal);
            inQueueY.FreeTensor(yLocal);
            zLocal = outQueueZ.DeQue<DTYPE_Z>();
            AscendC::DataCopy(zGm[off], zLocal, copied);
            outQueueZ.FreeTensor(zLocal);
        }
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, 1> inQueueX, inQueueY;
    AscendC::TQue<AscendC::QuePosition::VECOUT, 1> outQueueZ;
    AscendC::GlobalTensor<DTYPE_X> xGm;
    AscendC::GlobalTensor<DTYPE_Y> yGm;
    AscendC::GlobalTensor<DTYPE_Z> zGm;
    uint32_t length;
    uint32_t align;
    uint32_t tile;
};

extern "C" __global__ __aicore__ void align_add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tiling_data, tiling);
    KernelAlignAdd op;
    op.Init(x, y, z, tiling_data.totalLength, tiling_data.align, tiling_data.tileLength);
    op.Process();
}
