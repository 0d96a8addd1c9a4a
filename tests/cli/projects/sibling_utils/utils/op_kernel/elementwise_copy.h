// Tile copies between global memory and the UB, any length (padded copies).
#pragma once
#include "kernel_operator.h"

template <typename T>
__aicore__ inline void CopyTileIn(AscendC::LocalTensor<T> &dst, AscendC::GlobalTensor<T> src, uint32_t n)
{
    AscendC::DataCopyExtParams params{1, static_cast<uint32_t>(n * sizeof(T)), 0, 0, 0};
    AscendC::DataCopyPadExtParams<T> pad{false, 0, 0, 0};
    AscendC::DataCopyPad(dst, src, params, pad);
}

template <typename T>
__aicore__ inline void CopyTileOut(AscendC::GlobalTensor<T> dst, AscendC::LocalTensor<T> &src, uint32_t n)
{
    AscendC::DataCopyExtParams params{1, static_cast<uint32_t>(n * sizeof(T)), 0, 0, 0};
    AscendC::DataCopyPad(dst, src, params);
}
