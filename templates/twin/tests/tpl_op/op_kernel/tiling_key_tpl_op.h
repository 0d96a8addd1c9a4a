// Template tiling key declaration of the toy TplOp (twin test).
#pragma once
#include "ascendc/host_api/tiling/template_argument.h"

#define TPL_MODE_COPY 0
#define TPL_MODE_SCALE 1

ASCENDC_TPL_ARGS_DECL(TplOp,
    ASCENDC_TPL_UINT_DECL(MODE, ASCENDC_TPL_1_BW, ASCENDC_TPL_UI_LIST, TPL_MODE_COPY, TPL_MODE_SCALE),
    ASCENDC_TPL_UINT_DECL(FACTOR, ASCENDC_TPL_4_BW, ASCENDC_TPL_UI_MIX, 1, 1, 4, 9),
    ASCENDC_TPL_DTYPE_DECL(DT, C_DT_FLOAT, C_DT_FLOAT16));

// Copy only with factor 1, scale only with the others: the kernel does not compile the other
// combinations (its static_assert), so the launch must instantiate no more than these two.
ASCENDC_TPL_SEL(
    ASCENDC_TPL_ARGS_SEL(
        ASCENDC_TPL_UINT_SEL(MODE, ASCENDC_TPL_UI_LIST, TPL_MODE_COPY),
        ASCENDC_TPL_UINT_SEL(FACTOR, ASCENDC_TPL_UI_LIST, 1),
        ASCENDC_TPL_DTYPE_SEL(DT, C_DT_FLOAT, C_DT_FLOAT16),
        ASCENDC_TPL_TILING_STRUCT_SEL(TplOpTilingData)),
    ASCENDC_TPL_ARGS_SEL(
        ASCENDC_TPL_UINT_SEL(MODE, ASCENDC_TPL_UI_LIST, TPL_MODE_SCALE),
        ASCENDC_TPL_UINT_SEL(FACTOR, ASCENDC_TPL_UI_MIX, 1, 2, 4, 9),
        ASCENDC_TPL_DTYPE_SEL(DT, C_DT_FLOAT, C_DT_FLOAT16)), );
