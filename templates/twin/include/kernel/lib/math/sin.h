// twin: lib/math/sin.h, the high-level Sin API's header as CANN installs it under lib/ (asc-devkit
// include/adv_api/math/sin.h); the twin defines Sin with the rest of its vector API (see kernel_operator.h).
#pragma once
#include "../../kernel_operator.h"
