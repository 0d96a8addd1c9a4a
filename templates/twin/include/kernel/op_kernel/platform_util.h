// twin: op_kernel/platform_util.h, the operator-base platform facts in a kernel build (ops-math's roll,
// angle_v2 and circular_pad_grad size their UB blocks and vector steps with them): a UB block is 32
// bytes and a vector register 256 bytes on the membase SoCs the twin models (the same figures as the
// host side's util/platform_util.h; regbase SoCs, arch35, are not modelled). The integer helpers come
// with them, as the operator-base header brings its math helpers in.
#pragma once
#include <cstdint>
#include "../util/math_util.h"
namespace Ops {
namespace Base {
constexpr inline uint32_t GetUbBlockSize() { return 32; }
constexpr inline uint32_t GetVRegSize() { return 256; }
} // namespace Base
} // namespace Ops
