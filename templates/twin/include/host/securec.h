// twin: securec.h for host code; the definitions are in the kernel headers (kernel/twin/securec.h), which
// `.asc` programs get without the host headers.
#pragma once
#include "../kernel/twin/securec.h"
