// twin: fe::PlatFormInfos lives in twin_host/core.h.
#pragma once
#include "../twin_host/core.h"
