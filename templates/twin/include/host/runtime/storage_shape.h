// twin: runtime/storage_shape.h -> exe_graph/runtime/storage_shape.h, the header CANN documents as
// <exe_graph/runtime/storage_shape.h>; operator code also names it without the exe_graph/ prefix
// (ops-nn foreach_norm, mse_loss, shape: #include "runtime/storage_shape.h").
#pragma once
#include "../exe_graph/runtime/storage_shape.h"
