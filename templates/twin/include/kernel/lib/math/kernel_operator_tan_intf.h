// twin: lib/math/kernel_operator_tan_intf.h -- the header of the high-level Tan API, which the twin
// defines with the rest of its vector API (see kernel_operator.h); kernels that include it by name find it.
#pragma once
#include "../../kernel_operator.h"
