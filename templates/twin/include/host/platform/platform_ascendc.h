// twin: platform/platform_ascendc.h -> tiling/platform/platform_ascendc.h, with the architecture enum
// under its global name too (soc_spec.h): ops-math's lin_space names `NpuArch` after including only this.
#pragma once
#include "../tiling/platform/platform_ascendc.h"
#include "soc_spec.h"
