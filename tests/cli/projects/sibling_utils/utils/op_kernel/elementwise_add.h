// Shared kernel body of the ops in this repository: z = x + y over one block's share, one tile at a
// time. The copies live in a header beside this one, found through this file's own folder.
#pragma once
#include "elementwise_copy.h"

template <typename T>
class SharedAdd {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t total, uint32_t tile)
    {
        uint32_t blocks = AscendC::GetBlockNum();
        uint32_t per = ((total + blocks - 1) / blocks + 15) / 16 * 16;
        uint32_t start = per * AscendC::GetBlockIdx();
        length = start >= total ? 0 : (total - start < per ? total - start : per);
        this->tile = tile;
        xGm.SetGlobalBuffer((__gm__ T *)x + start, per);
        yGm.SetGlobalBuffer((__gm__ T *)y + start, per);
        zGm.SetGlobalBuffer((__gm__ T *)z + start, per);
        pipe.InitBuffer(xBuf, tile * sizeof(T));
        pipe.InitBuffer(yBuf, tile * sizeof(T));
        pipe.InitBuffer(zBuf, tile * sizeof(T));
    }
    __aicore__ inline void Process()
    {
        AscendC::LocalTensor<T> xl = xBuf.Get<T>();
        AscendC::LocalTensor<T> yl = yBuf.Get<T>();
        AscendC::LocalTensor<T> zl = zBuf.Get<T>();
        for (uint32_t off = 0; off < length; off += tile) {
            uint32_t n = length - off < tile ? length - off : tile;
            CopyTileIn(xl, xGm[off], n);
            CopyTileIn(yl, yGm[off], n);
            AscendC::PipeBarrier<PIPE_ALL>();
            AscendC::Add(zl, xl, yl, n);
            AscendC::PipeBarrier<PIPE_ALL>();
            CopyTileOut(zGm[off], zl, n);
            AscendC::PipeBarrier<PIPE_ALL>();
        }
    }

private:
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> xBuf, yBuf, zBuf;
    AscendC::GlobalTensor<T> xGm, yGm, zGm;
    uint32_t length = 0;
    uint32_t tile = 0;
};
