// twin: op_common/log/log.h (operator-base utilities) -> twin_host/opbase.h
#pragma once
#include "../../twin_host/opbase.h"
