// twin: the small integer helpers CANN's Matmul headers bring into namespace AscendC along with the
// Matmul class (asc-devkit's impl/adv_api/detail/matmul/utils: matmul_utils.h and batch_matmul_utils.h,
// reached from lib/matmul_intf.h and lib/matrix/matmul/matmul.h). Kernels that include a Matmul header
// call them unqualified after `using namespace AscendC` (ops-math's add_lora: `CeilDiv(colNum,
// CUBE_BLOCK)`; ops-nn's rotate_quant: `CeilAlign(singleLoopEle, ALIGN_FACTOR_32)`).
//
// They live here, not in kernel_operator.h, because they are visible only with a Matmul header in CANN:
// many kernels that include no Matmul header define their own CeilDiv / CeilAlign templates and use
// `using namespace AscendC`, which would make their calls ambiguous.
//
// The signatures are CANN's: a 16-bit CeilDiv and CeilAlign (the matmul v3 operators' helpers; the
// arguments convert to uint16_t, so a value past 65535 wraps, as on the device), a CeilAlign template
// for any integer type, which a call with two arguments of one type takes, and Align / AlignDown.
#pragma once
#include "../kernel_operator.h"

namespace AscendC {

// ceil(num1 / num2) in 16 bits; num2 must be positive (a zero is a fault, where CANN asserts).
__aicore__ inline uint16_t CeilDiv(uint16_t num1, uint16_t num2, TWIN_LOC) {
    if (num2 == 0) twin::fault(twin_file, twin_line, "CeilDiv(%u, 0): the divisor must be positive", (unsigned)num1);
    return static_cast<uint16_t>((static_cast<uint32_t>(num1) + num2 - 1U) / num2);
}
// num1 rounded up to a multiple of num2, in 16 bits.
__aicore__ inline uint16_t CeilAlign(uint16_t num1, uint16_t num2, TWIN_LOC) {
    return static_cast<uint16_t>(CeilDiv(num1, num2, twin_file, twin_line) * num2);
}
// num1 rounded up to a multiple of num2 (num2 > 0), in T.
template <typename T> __aicore__ inline T CeilAlign(T num1, T num2, TWIN_LOC) {
    if (num2 == 0) twin::fault(twin_file, twin_line, "CeilAlign(%lld, 0): the alignment must be positive", (long long)num1);
    return static_cast<T>((num1 + num2 - 1) / num2 * num2);
}

// num1 rounded up / down to a multiple of num2, in T; 0 when num2 is 0 (matmul_utils.h's Align and
// AlignDown return 0 there rather than assert). ops-transformer's mla_prolog calls Align unqualified from a
// header that defines none, after including lib/matmul_intf.h.
template <typename T> __aicore__ constexpr T Align(T num1, T num2) { return num2 == 0 ? 0 : (num1 + num2 - 1) / num2 * num2; }
template <typename T> __aicore__ constexpr T AlignDown(T num1, T num2) { return num2 == 0 ? 0 : num1 / num2 * num2; }

} // namespace AscendC
