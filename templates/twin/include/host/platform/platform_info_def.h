// twin: platform/platform_info_def.h -- the platform-description types (fe::PlatFormInfos and its
// companions) that host code names; in the twin they live in twin_host/core.h, as platform_info.h.
#pragma once
#include "../twin_host/core.h"
