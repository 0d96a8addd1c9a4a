// twin package: the header that Ascend C single-source programs include in CPU debug mode,
//   #ifdef ASCENDC_CPU_DEBUG
//   #include "cpu_debug_launch.h"
//   #endif
// (asc-devkit docs/zh/guide/编程指南/调试调优/功能调试/CPU域孪生调试.md: it declares what the compiler's
// CPU-mode translation of `kernel<<<...>>>(...)` calls). With twin-asc that translation is
// src/asc_rewrite.cpp and the launcher is twin_asc::launch, which twin_asc.h (force-included into every
// source twin-asc compiles) already provides; this header only makes the include resolve.
#pragma once
#include "twin_asc.h"
