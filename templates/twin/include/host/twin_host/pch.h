// The twin's host API headers that operator host code includes, precompiled once per twin version so
// each candidate's host build parses them from the precompiled form (GCC only; a compiler that cannot
// use it falls back to reading the headers). Only headers every host file may see without harm.
#pragma once
#include "register/op_def_registry.h"
#include "register/tilingdata_base.h"
#include "tiling/platform/platform_ascendc.h"
