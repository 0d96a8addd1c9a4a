// twin: forward of the high-level API tiling header math/log_tiling.h (the queries live in tiling/tiling_api.h).
#pragma once
#include "../tiling_api.h"
