// Kernel of the toy TplOp (twin test): a template kernel selected by the tiling key.
#include "kernel_operator.h"
#include "tiling_key_tpl_op.h"
using namespace AscendC;

template <uint32_t MODE, uint32_t FACTOR, uint32_t DT>
__global__ __aicore__ void tpl_op(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    static_assert((MODE == TPL_MODE_COPY) == (FACTOR == 1), "a combination ASCENDC_TPL_SEL leaves out");
    using T = typename std::conditional<DT == C_DT_FLOAT, float, half>::type;
    GET_TILING_DATA(td, tiling);
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, td.n * sizeof(T));
    GlobalTensor<T> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ T *)x, td.n);
    yGm.SetGlobalBuffer((__gm__ T *)y, td.n);
    LocalTensor<T> t = buf.Get<T>();
    DataCopy(t, xGm, td.n);
    PipeBarrier<PIPE_ALL>();
    if constexpr (MODE == TPL_MODE_SCALE) {
        Muls(t, t, (T)(float)FACTOR, td.n);
    }
    PipeBarrier<PIPE_ALL>();
    DataCopy(yGm, t, td.n);
}
