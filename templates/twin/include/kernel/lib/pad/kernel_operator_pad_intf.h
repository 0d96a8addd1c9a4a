// twin: lib/pad/kernel_operator_pad_intf.h, the Pad / UnPad interface header under CANN's installed
// high-level API path (lib/...; asc-devkit's source tree calls it adv_api/pad/kernel_operator_pad_intf.h).
// The twin defines the high-level API in kernel_operator.h (ops-math's rfft1_d and stft include this).
#pragma once
#include "../../kernel_operator.h"
