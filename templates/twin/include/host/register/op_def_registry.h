#pragma once
#include "../twin_host/core.h"
#include "../twin_host/opdef.h"
// OpAICoreDef::SetCheckSupport takes optiling::OP_CHECK_FUNC, a function of (const ge::Operator &,
// ge::AscendString &) (CANN OpDef API, "SetCheckSupport":
// https://www.hiascend.com/document/detail/en/canncommercial/800/apiref/ascendcopapi/atlasascendc_api_07_0981.html),
// so code that includes this header writes such functions with ge::Operator in scope.
#include "../graph/operator.h"
