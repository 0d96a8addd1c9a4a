// kernel_operator_dump_tensor_intf_impl.h: CANN's implementation header of the kernel debug interface
// (DumpTensor, DumpAccChkPoint, PrintTimeStamp, printf / PRINTF, assert; asc-devkit
// impl/basic_api/kernel_operator_dump_tensor_intf_impl.h, reached by its bare name from CANN's include
// path). hicann/cann-learning-hub's tutorial operators include it by name beside kernel_operator.h to
// print from the kernel (`AscendC::printf("Core %ld executed %d times ...")`); 7 of its 28 custom-op
// projects stopped at it in stop 33. Owns: letting such kernels build. The twin's kernel_operator.h
// already holds what it declares, so it brings that in and declares nothing of its own. Must not know:
// anything of the twin's runtime beyond kernel_operator.h.
#pragma once
#include "kernel_operator.h"
