// twin: platform/soc_spec.h: the NPU architecture enum under its global name (declared with the
// platform class, twin_host/platform.h, as CANN's tiling/platform/platform_ascendc.h brings this header).
#pragma once
#include "../tiling/platform/platform_ascendc.h"
