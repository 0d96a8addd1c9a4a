// twin: lib/sigmoid/kernel_operator_sigmoid_intf.h -- the header of the high-level Sigmoid API, which
// the twin defines with the rest of its vector API (see kernel_operator.h).
#pragma once
#include "../../kernel_operator.h"
