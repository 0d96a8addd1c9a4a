// twin: util/const_util.h (operator-base helpers for constant inputs) -> twin_host/opbase.h
#pragma once
#include "../twin_host/opbase.h"
