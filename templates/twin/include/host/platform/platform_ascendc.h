// twin: platform/platform_ascendc.h -> tiling/platform/platform_ascendc.h
#pragma once
#include "../tiling/platform/platform_ascendc.h"
