// twin: graph/tensor.h -> ge::Shape, ge::DataType, ge::Format (twin_host/core.h): host tiling helpers include
// it for ge::Shape (ops-transformer's common/include/tiling_base/data_copy_transpose_tiling.h). ge::Tensor
// itself, a graph-mode object, is not modelled.
#pragma once
#include "../twin_host/core.h"
