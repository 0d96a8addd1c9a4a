// twin: graph/c_types.h in a kernel build -- the C spelling of the data types (C_DT_FLOAT, ...) that a
// tiling-key header shared by host and kernel lists; defined with the tiling-key templates.
#pragma once
#include "../twin/tpl.h"
