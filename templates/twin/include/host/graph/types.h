// twin: graph/types.h -> ge::DataType, ge::Format, ge::Shape (twin_host/core.h)
#pragma once
#include "../twin_host/core.h"
