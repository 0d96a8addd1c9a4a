// twin: lib/math/cos.h, the high-level Cos API's header as CANN installs it under lib/ (asc-devkit
// include/adv_api/math/cos.h); the twin defines Cos with the rest of its vector API (see kernel_operator.h).
#pragma once
#include "../../kernel_operator.h"
