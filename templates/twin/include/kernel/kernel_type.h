// twin: kernel_type.h, the header of CANN's kernel data-type and format names (asc-devkit
// include/basic_api/kernel_type.h: the DT_* / FORMAT_* numbers and the kernel's scalar types). The twin
// declares them with the rest of the kernel API (kernel_operator.h, twin/dtype_ids.h); ops-nn's
// group_norm_grad includes this header by name.
#pragma once
#include "kernel_operator.h"
