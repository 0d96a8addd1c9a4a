// twin: graph/c_types.h -- the C spelling of the data types (C_DT_FLOAT, C_DT_FLOAT16, ...) that
// ASCENDC_TPL_DATATYPE_DECL lists take (ops-math's acos / asinh tiling keys include this header for
// them). The twin numbers them as ge::DataType does, in its tiling-key templates.
#pragma once
#include "../../kernel/twin/tpl.h"
