#pragma once
#include <vector>
#include "../../../../kernel/twin/tpl.h"
