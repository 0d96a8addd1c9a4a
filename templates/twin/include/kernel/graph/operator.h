// twin: kernel-side stub of graph/operator.h (see log/log.h beside it): the graph API is host-only.
#pragma once
#include "../log/log.h"
