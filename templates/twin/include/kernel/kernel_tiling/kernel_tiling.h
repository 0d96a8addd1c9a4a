// twin: placeholder for kernel_tiling/kernel_tiling.h. Matmul/cube tiling structs (TCubeTiling ...)
// are not provided by the twin yet.
#pragma once
#include <cstdint>
