// twin: kernel_tiling/kernel_tiling.h on the host side: the one definition of the kernel's tiling
// structs (TCubeTiling, ...) that the kernel side reads, so a host tiling header may include it by
// its public name.
#pragma once
#include "../../kernel/kernel_tiling/kernel_tiling.h"
