// Kernel of InterleaveCustom: each block packs its share of (re, im) pairs into z, a tile at a time.
#include "kernel_operator.h"
using namespace AscendC;

class KernelInterleave {
public:
    __aicore__ inline KernelInterleave() {}
    __aicore__ inline void Init(GM_ADDR re, GM_ADDR im, GM_ADDR z, uint32_t total, uint32_t tile, uint32_t mode)
    {
        uint32_t blocks = GetBlockNum();
        uint32_t per = ((total + blocks - 1) / blocks + 7) / 8 * 8;
        uint32_t start = per * GetBlockIdx();
        this->length = start >= total ? 0 : (total - start < per ? total - start : per);
        this->tile = tile;
        reGm.SetGlobalBuffer((__gm__ float *)re + start, per);
        imGm.SetGlobalBuffer((__gm__ float *)im + start, per);
        zGm.SetGlobalBuffer((__gm__ float *)z + 2 * start, 2 * per);
        if (mode == 0) {
            pipe.InitBuffer(reQueue, 2, tile * sizeof(float));
            pipe.InitBuffer(imQueue, 2, tile * sizeof(float));
            pipe.InitBuffer(zQueue, 2, 2 * tile * sizeof(float));
        } else {
            pipe.InitBuffer(stageBuf, 2 * tile * sizeof(float));
        }
    }
    __aicore__ inline void Process()
    {
        for (uint32_t off = 0; off < this->length; off += this->tile) {
            uint32_t n = this->length - off < this->tile ? this->length - off : this->tile;
            CopyIn(off, n);
            Pack(n);
            CopyOut(off, n);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t off, uint32_t n)
    {
        LocalTensor<float> reLocal = reQueue.AllocTensor<float>();
        LocalTensor<float> imLocal = imQueue.AllocTensor<float>();
        DataCopyExtParams params{1, static_cast<uint32_t>(n * sizeof(float)), 0, 0, 0};
        DataCopyPadExtParams<float> pad{false, 0, 0, 0};
        DataCopyPad(reLocal, reGm[off], params, pad);
        DataCopyPad(imLocal, imGm[off], params, pad);
        reQueue.EnQue(reLocal);
        imQueue.EnQue(imLocal);
    }
    __aicore__ inline void Pack(int64_t n)
    {
        LocalTensor<float> reLocal = reQueue.DeQue<float>();
        LocalTensor<float> imLocal = imQueue.DeQue<float>();
        LocalTensor<float> zLocal = zQueue.AllocTensor<float>();
        LocalTensor<uint64_t> zWide = zLocal.ReinterpretCast<uint64_t>();
        LocalTensor<uint32_t> reBits = reLocal.ReinterpretCast<uint32_t>();
        LocalTensor<uint32_t> imBits = imLocal.ReinterpretCast<uint32_t>();
        int64_t i = 0;
        int64_t last4 = n - 3;
        for (; i < last4; i += 4) {
            uint64_t r0 = reBits.GetValue(i);
            uint64_t r1 = reBits.GetValue(i + 1);
            uint64_t r2 = reBits.GetValue(i + 2);
            uint64_t r3 = reBits.GetValue(i + 3);
            uint64_t m0 = imBits.GetValue(i);
            uint64_t m1 = imBits.GetValue(i + 1);
            uint64_t m2 = imBits.GetValue(i + 2);
            uint64_t m3 = imBits.GetValue(i + 3);
            zWide.SetValue(i, r0 | (m0 << 32));
            zWide.SetValue(i + 1, r1 | (m1 << 32));
            zWide.SetValue(i + 2, r2 | (m2 << 32));
            zWide.SetValue(i + 3, r3 | (m3 << 32));
        }
        for (; i < n; i++) {
            uint64_t r = reBits.GetValue(i);
            uint64_t m = imBits.GetValue(i);
            zWide.SetValue(i, r | (m << 32));
        }
        zQueue.EnQue<float>(zLocal);
        reQueue.FreeTensor(reLocal);
        imQueue.FreeTensor(imLocal);
    }
    __aicore__ inline void CopyOut(uint32_t off, uint32_t n)
    {
        LocalTensor<float> zLocal = zQueue.DeQue<float>();
        DataCopyExtParams params{1, static_cast<uint32_t>(2 * n * sizeof(float)), 0, 0, 0};
        DataCopyPad(zGm[2 * off], zLocal, params);
        zQueue.FreeTensor(zLocal);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, 2> reQueue;
    TQue<QuePosition::VECIN, 2> imQueue;
    TQue<QuePosition::VECOUT, 2> zQueue;
    TBuf<TPosition::VECCALC> stageBuf;
    GlobalTensor<float> reGm;
    GlobalTensor<float> imGm;
    GlobalTensor<float> zGm;
    uint32_t length;
    uint32_t tile;
};

extern "C" __global__ __aicore__ void interleave_custom(GM_ADDR re, GM_ADDR im, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tiling_data, tiling);
    KernelInterleave op;
    op.Init(re, im, z, tiling_data.totalPairs, tiling_data.tilePairs, tiling_data.mode);
    op.Process();
}
