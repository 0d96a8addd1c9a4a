#pragma once
#include "../../twin_host/core.h"
