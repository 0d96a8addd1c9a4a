#pragma once
#include "../../twin_host/platform.h"
