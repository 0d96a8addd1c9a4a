// Kernel of ListAxpy: block i works on the i-th tensor of each list. A list parameter points at the
// list's descriptor: its first word is the byte offset of the table of data addresses.
#include "kernel_operator.h"
__aicore__ inline __gm__ float *ListEntry(GM_ADDR list, uint32_t i)
{
    __gm__ uint64_t *words = reinterpret_cast<__gm__ uint64_t *>(list);
    __gm__ uint64_t *table = words + words[0] / sizeof(uint64_t);
    return reinterpret_cast<__gm__ float *>(table[i]);
}
extern "C" __global__ __aicore__ void list_axpy(GM_ADDR a, GM_ADDR b, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    uint32_t i = AscendC::GetBlockIdx();
    if (i >= t.count) return;
    uint32_t size = t.sizes[i];
    AscendC::GlobalTensor<float> aGm, bGm, yGm;
    aGm.SetGlobalBuffer(ListEntry(a, i), size);
    bGm.SetGlobalBuffer(ListEntry(b, i), size);
    yGm.SetGlobalBuffer(ListEntry(y, i), size);
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> aBuf, bBuf;
    pipe.InitBuffer(aBuf, t.tile * sizeof(float));
    pipe.InitBuffer(bBuf, t.tile * sizeof(float));
    AscendC::LocalTensor<float> al = aBuf.Get<float>();
    AscendC::LocalTensor<float> bl = bBuf.Get<float>();
    for (uint32_t off = 0; off < size; off += t.tile) {
        uint32_t n = size - off < t.tile ? size - off : t.tile;
        AscendC::DataCopy(al, aGm[off], n);
        AscendC::DataCopy(bl, bGm[off], n);
        AscendC::PipeBarrier<PIPE_ALL>();
        AscendC::Muls(al, al, 2.0f, n);
        AscendC::Add(al, al, bl, n);
        AscendC::Adds(al, al, (float)i, n);
        AscendC::PipeBarrier<PIPE_ALL>();
        AscendC::DataCopy(yGm[off], al, n);
        AscendC::PipeBarrier<PIPE_ALL>();
    }
}
