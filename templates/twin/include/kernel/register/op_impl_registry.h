// twin: kernel-side stub (a tiling header included by the kernel may include this).
#pragma once
#include "twin_host_decls.h"
