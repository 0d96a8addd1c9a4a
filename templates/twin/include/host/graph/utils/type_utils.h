#pragma once
#include "../../twin_host/core.h"
#include "../operator.h" // ge::AscendString, for TypeUtils::*ToAscendString
