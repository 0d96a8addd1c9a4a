// twin: infershape_elewise_util.h (operator-base): Ops::Base::InferShape4Elewise -> twin_host/opbase.h
#pragma once
#include "twin_host/opbase.h"
