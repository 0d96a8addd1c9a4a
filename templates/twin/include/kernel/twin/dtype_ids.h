// twin: the dtype and format numbers a kernel compares ORIG_DTYPE_<ARG> / FORMAT_<ARG> with.
// CANN's op build passes `-DORIG_DTYPE_<ARG>=DT_<NAME>` for each input and output
// (add_dtype_fmt_option_single in cmake/asc/fwk_modules/util/ascendc_impl_build.py of asc-devkit), and
// its kernel headers define the DT_* names as the ge::DataType numbers (include/basic_api/kernel_type.h),
// so a kernel may test `#if ORIG_DTYPE_Y == DT_INT8` or `if constexpr (ORIG_DTYPE_Y == DT_INT4)`
// (ops-nn quant/dynamic_quant). The asc-devkit guide "Kernel侧算子实现" documents the use: ORIG_DTYPE_<Arg>
// is the dtype number declared in the op prototype, compared with DT_FLOAT16, DT_FLOAT, ... to choose a
// code path. Without these, `#if ORIG_DTYPE_X == DT_FLOAT` compares two undefined names (0 == 0) and is
// always true. The numbers are the ge::DataType / ge::Format enumerators' values (graph/types.h).
#pragma once

#define DT_FLOAT 0
#define DT_FLOAT16 1
#define DT_INT8 2
#define DT_INT32 3
#define DT_UINT8 4
#define DT_INT16 6
#define DT_UINT16 7
#define DT_UINT32 8
#define DT_INT64 9
#define DT_UINT64 10
#define DT_DOUBLE 11
#define DT_BOOL 12
#define DT_STRING 13
#define DT_DUAL_SUB_INT8 14
#define DT_DUAL_SUB_UINT8 15
#define DT_COMPLEX64 16
#define DT_COMPLEX128 17
#define DT_QINT8 18
#define DT_QINT16 19
#define DT_QINT32 20
#define DT_QUINT8 21
#define DT_QUINT16 22
#define DT_RESOURCE 23
#define DT_STRING_REF 24
#define DT_DUAL 25
#define DT_VARIANT 26
#define DT_BF16 27
#define DT_UNDEFINED 28
#define DT_INT4 29
#define DT_UINT1 30
#define DT_INT2 31
#define DT_UINT2 32
#define DT_COMPLEX32 33
#define DT_HIFLOAT8 34
#define DT_FLOAT8_E5M2 35
#define DT_FLOAT8_E4M3FN 36
#define DT_FLOAT8_E8M0 37
#define DT_FLOAT6_E3M2 38
#define DT_FLOAT6_E2M3 39
#define DT_FLOAT4_E2M1 40
#define DT_FLOAT4_E1M2 41
#define DT_MAX 42

// The layouts an op's kernels test FORMAT_<ARG> against (ge::Format numbers). The twin's build passes
// FORMAT_<ARG> = FORMAT_ND for every tensor, as CANN passes each tensor's format: the manifest's
// tensors are ND.
#define FORMAT_NCHW 0
#define FORMAT_NHWC 1
#define FORMAT_ND 2
#define FORMAT_NC1HWC0 3
#define FORMAT_FRACTAL_Z 4
#define FORMAT_HWCN 16
#define FORMAT_NDHWC 27
#define FORMAT_FRACTAL_NZ 29
#define FORMAT_NCDHW 30
#define FORMAT_DHWCN 31
#define FORMAT_NDC1HWC0 32
#define FORMAT_FRACTAL_Z_3D 33
#define FORMAT_NC 35
#define FORMAT_NCL 47
