// twin: tiling API umbrella. Matmul/high-level API tiling helpers are not provided by the twin yet.
#pragma once
#include "../twin_host/core.h"
#include "../twin_host/platform.h"
#include "../register/tilingdata_base.h"
