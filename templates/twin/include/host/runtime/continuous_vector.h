// twin: runtime/continuous_vector.h -> gert::ContinuousVector / TypedContinuousVector (twin_host/core.h)
#pragma once
#include "../twin_host/core.h"
