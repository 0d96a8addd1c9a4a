// twin: kernel_utils.h -- asc-devkit's impl/basic_api/kernel_utils.h, an internal header that
// kernel_operator.h itself includes (utility macros, constants, DMA and sort parameter structs; the header
// warns that kernels must not include it directly). Kernels do (ops-transformer's moe_gating_top_k):
// here it is kernel_operator.h, which declares what of it the twin models.
#pragma once
#include "kernel_operator.h"
