// twin: platform/platform_infos_def.h -- the platform-description types (fe::PlatFormInfos and its
// companions) that host code names; in the twin they live in twin_host/core.h, as platform_info.h.
// Like CANN's, it includes platform_info_def.h, and with it that header's global `using std::map`,
// `std::string`, `std::vector` (see there).
#pragma once
#include "platform_info_def.h"
