// twin: log/log.h (operator-base utilities) -> twin_host/opbase.h, plus the error-code reporters of
// log/error_code.h: host code that includes log/log.h alone calls them (ops-math non_finite_check:
// OP_LOGE_FOR_INVALID_TENSORNUM), as it compiles against CANN's opbase.
#pragma once
#include "../twin_host/opbase.h"
#include "error_code.h"
