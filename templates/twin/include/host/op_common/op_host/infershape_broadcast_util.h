// twin: op_common/op_host/infershape_broadcast_util.h (operator-base) -> twin_host/broadcast_infer.h (Ops::Base::InferShape4Broadcast)
#pragma once
#include "../../twin_host/broadcast_infer.h"
