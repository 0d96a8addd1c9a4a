// twin: graph/ge_error_codes.h -> ge::graphStatus, GRAPH_SUCCESS, GRAPH_FAILED (twin_host/core.h).
#pragma once
#include "../twin_host/core.h"
