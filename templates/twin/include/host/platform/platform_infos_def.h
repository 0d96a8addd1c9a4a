// twin: platform/platform_infos_def.h: the header that declares fe::PlatFormInfos (the platform
// description a tiling context hands out); the twin's one lives in twin_host/core.h.
#pragma once
#include "../twin_host/core.h"
