// twin: platform/platform_info_def.h -- the platform-description types (fe::PlatFormInfos and its
// companions) that host code names; in the twin they live in twin_host/core.h, as platform_info.h.
//
// CANN's header of this name also declares `using std::map; using std::vector; using std::string;` at
// global scope (the fe platform package's platform_info_def.h, which platform_infos_def.h includes), and
// operator host code relies on it: ops-nn quant/dynamic_quant's tiling writes `static map<...>` and
// norm/quantized_batch_norm's tiling header `string nodeName;`, unqualified, after including
// platform/platform_infos_def.h. The twin declares the same three names here, and only here (not in the
// precompiled host header), so code that does not include it sees no more of std than before.
#pragma once
#include <map>
#include <string>
#include <vector>
#include "../twin_host/core.h"

using std::map;
using std::string;
using std::vector;
