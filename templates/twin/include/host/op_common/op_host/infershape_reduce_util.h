// twin: op_common/op_host/infershape_reduce_util.h (operator-base) -> twin_host/opbase.h (Ops::Base::InferShape4Reduce)
#pragma once
#include "../../twin_host/opbase.h"
