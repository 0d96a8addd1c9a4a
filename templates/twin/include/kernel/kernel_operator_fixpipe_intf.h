// twin: kernel_operator_fixpipe_intf.h, one of CANN's basic kernel API headers (asc-devkit include/basic_api/kernel_operator_fixpipe_intf.h).
// The twin declares the basic API in kernel_operator.h, so this header stands for it; kernels of
// ops-nn's matmul / conv families and ops-math's stft include it by name.
#pragma once
#include "kernel_operator.h"
