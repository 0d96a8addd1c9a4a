// twin: op_host/tiling_base_util.h (operator-base utilities) -> twin_host/opbase.h
#pragma once
#include "../twin_host/opbase.h"
