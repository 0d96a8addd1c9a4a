#pragma once
#include "../../../twin/tpl.h"
