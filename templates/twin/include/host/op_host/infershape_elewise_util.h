// twin: op_host/infershape_elewise_util.h -> twin_host/opbase.h (Ops::Base::InferShape4Elewise)
#pragma once
#include "../twin_host/opbase.h"
