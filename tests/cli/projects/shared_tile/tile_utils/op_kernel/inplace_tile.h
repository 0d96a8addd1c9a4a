// A per-tile kernel class shared by the operators of this repository (as ops-nn's foreach_utils is):
// each block walks its share in tiles through one depth-2 copy-in queue, scales a tile in place and
// copies it out of the same buffer, then waits for that copy-out before the next copy-in.
#ifndef INPLACE_TILE_H
#define INPLACE_TILE_H
#include "kernel_operator.h"

class KernelInplaceScale {
public:
    __aicore__ inline KernelInplaceScale() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t total, uint32_t tile)
    {
        this->per = total / AscendC::GetBlockNum();
        this->tile = tile;
        xGm.SetGlobalBuffer((__gm__ float *)x + per * AscendC::GetBlockIdx(), per);
        yGm.SetGlobalBuffer((__gm__ float *)y + per * AscendC::GetBlockIdx(), per);
        pipe.InitBuffer(inQueue, 2, tile * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t off = 0; off < this->per; off += this->tile) {
            AscendC::LocalTensor<float> local = inQueue.AllocTensor<float>();
            AscendC::DataCopy(local, xGm[off], this->tile);
            inQueue.EnQue(local);
            local = inQueue.DeQue<float>();
            AscendC::Muls(local, local, 2.0f, this->tile);
            event_t toCopyOut = static_cast<event_t>(GetTPipePtr()->FetchEventID(AscendC::HardEvent::V_MTE3));
            AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(toCopyOut);
            AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(toCopyOut);
            AscendC::DataCopy(yGm[off], local, this->tile);
            event_t copiedOut = static_cast<event_t>(GetTPipePtr()->FetchEventID(AscendC::HardEvent::MTE3_MTE2));
            AscendC::SetFlag<AscendC::HardEvent::MTE3_MTE2>(copiedOut);
            AscendC::WaitFlag<AscendC::HardEvent::MTE3_MTE2>(copiedOut);
            inQueue.FreeTensor(local);
        }
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, 2> inQueue;
    AscendC::GlobalTensor<float> xGm;
    AscendC::GlobalTensor<float> yGm;
    uint32_t per;
    uint32_t tile;
};

#endif
