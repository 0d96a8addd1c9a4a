#pragma once
#include "../twin_host/core.h"
#include "../twin_host/opdef.h"
