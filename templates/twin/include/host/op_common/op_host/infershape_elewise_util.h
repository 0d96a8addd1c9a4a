// twin: op_common/op_host/infershape_elewise_util.h (operator-base) -> twin_host/opbase.h (Ops::Base::InferShape4Elewise)
#pragma once
#include "../../twin_host/opbase.h"
