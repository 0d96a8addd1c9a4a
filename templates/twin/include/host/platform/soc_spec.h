// twin: platform/soc_spec.h: the NPU architecture enum under its global name.
#pragma once
#include "../tiling/platform/platform_ascendc.h"
using NpuArch = platform_ascendc::NpuArch;
