// twin package: the subset of AscendCL (ACL) runtime calls that Ascend C single-source programs (`.asc`)
// make on the host around a kernel launch, for CPU runs with the twin. Written from the documented
// signatures and behaviour in the AscendCL API reference (hiascend.com, "aclInit", "aclrtSetDevice",
// "aclrtCreateStream", "aclrtMalloc", "aclrtMallocHost", "aclrtMemcpy", "aclrtMemset",
// "aclrtSynchronizeStream", "aclError" return codes); no CANN header is copied.
//
// Device memory is the twin's global memory: aclrtMalloc returns a buffer registered with the twin, so a
// kernel's out-of-bounds access to it is reported as a fault. There are 8 devices, all this CPU, and streams are
// tokens: kernels run to completion at their launch, so synchronising a stream has nothing to wait for.
// Calls outside this subset are missing on purpose: a program that needs them fails to compile, naming
// the call, rather than running against a stand-in that does not behave as documented.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include "twin/half.h"

extern "C" {
void *twin_icpu_gm_alloc_by(uint64_t bytes, const char *api);
int twin_icpu_gm_release(void *ptr);
}

typedef int aclError;

// aclDataType and aclFormat (AscendCL API reference, "aclDataType" / "aclFormat"): the element types
// and layouts host programs name when they describe tensors (to aclCreateTensor, or in profiling
// records, acl/acl_prof.h).
typedef enum {
    ACL_DT_UNDEFINED = -1,
    ACL_FLOAT = 0,
    ACL_FLOAT16 = 1,
    ACL_INT8 = 2,
    ACL_INT32 = 3,
    ACL_UINT8 = 4,
    ACL_INT16 = 6,
    ACL_UINT16 = 7,
    ACL_UINT32 = 8,
    ACL_INT64 = 9,
    ACL_UINT64 = 10,
    ACL_DOUBLE = 11,
    ACL_BOOL = 12,
    ACL_STRING = 13,
    ACL_COMPLEX64 = 16,
    ACL_COMPLEX128 = 17,
    ACL_BF16 = 27,
    ACL_INT4 = 29,
    ACL_UINT1 = 30,
    ACL_COMPLEX32 = 33,
} aclDataType;

typedef enum {
    ACL_FORMAT_UNDEFINED = -1,
    ACL_FORMAT_NCHW = 0,
    ACL_FORMAT_NHWC = 1,
    ACL_FORMAT_ND = 2,
    ACL_FORMAT_NC1HWC0 = 3,
    ACL_FORMAT_FRACTAL_Z = 4,
    ACL_FORMAT_FRACTAL_NZ = 29,
} aclFormat;
typedef void *aclrtStream;
typedef void *aclrtContext;
typedef void *aclrtEvent;

static const int ACL_SUCCESS = 0;
static const int ACL_ERROR_NONE = 0;
static const int ACL_ERROR_INVALID_PARAM = 100000;
static const int ACL_ERROR_UNINITIALIZE = 100001;
static const int ACL_ERROR_REPEAT_INITIALIZE = 100002;
static const int ACL_ERROR_BAD_ALLOC = 200000;
static const int ACL_ERROR_INVALID_DEVICE = 107001;

typedef enum aclrtMemMallocPolicy {
    ACL_MEM_MALLOC_HUGE_FIRST = 0,
    ACL_MEM_MALLOC_HUGE_ONLY = 1,
    ACL_MEM_MALLOC_NORMAL_ONLY = 2,
    ACL_MEM_MALLOC_HUGE_FIRST_P2P = 3,
    ACL_MEM_MALLOC_HUGE_ONLY_P2P = 4,
    ACL_MEM_MALLOC_NORMAL_ONLY_P2P = 5,
} aclrtMemMallocPolicy;

// Device attributes (aclrtGetDeviceInfo); the twin answers the core counts.
typedef enum aclrtDevAttr {
    ACL_DEV_ATTR_AICPU_CORE_NUM = 1,
    ACL_DEV_ATTR_AICORE_CORE_NUM = 101,
    ACL_DEV_ATTR_CUBE_CORE_NUM = 102,
    ACL_DEV_ATTR_VECTOR_CORE_NUM = 201,
} aclrtDevAttr;

// The SoC the program was compiled for (twin-asc sets these from ASCEND_TWIN_SOC).
#ifndef TWIN_SOC_NAME
#define TWIN_SOC_NAME "Ascend910B1"
#endif
#ifndef TWIN_AIV_CORES
#define TWIN_AIV_CORES 48
#endif
#ifndef TWIN_AIC_CORES
#define TWIN_AIC_CORES 24
#endif

typedef enum aclrtMemcpyKind {
    ACL_MEMCPY_HOST_TO_HOST = 0,
    ACL_MEMCPY_HOST_TO_DEVICE = 1,
    ACL_MEMCPY_DEVICE_TO_HOST = 2,
    ACL_MEMCPY_DEVICE_TO_DEVICE = 3,
    ACL_MEMCPY_DEFAULT = 4,
} aclrtMemcpyKind;

namespace twin_acl {
struct State {
    bool initialised = false;
    int32_t device = -1;
};
inline State &state() {
    static State s;
    return s;
}
// A distinct non-null token per stream or context; nothing is behind it.
inline void *token() {
    static char tokens[1];
    return tokens;
}
} // namespace twin_acl

// The configuration file is optional (nullptr); the twin has nothing to configure.
inline aclError aclInit(const char *configPath) {
    (void)configPath;
    if (twin_acl::state().initialised) {
        return ACL_ERROR_REPEAT_INITIALIZE;
    }
    twin_acl::state().initialised = true;
    return ACL_SUCCESS;
}
inline aclError aclFinalize() {
    twin_acl::state().initialised = false;
    return ACL_SUCCESS;
}
// The twin is a server of 8 devices, ids 0 to 7, as the Atlas 800 servers hold 8 NPUs (CANN samples pick
// one by id: cann-samples' softmax_regbase_story takes device 7 unless SAMPLE_DEVICE_ID says otherwise);
// every one is the same CPU emulation, and ASCEND_RT_VISIBLE_DEVICES does not apply to a CPU run.
static const int32_t TWIN_DEVICE_COUNT = 8;
inline aclError aclrtGetDeviceCount(uint32_t *count) {
    if (count == nullptr) {
        return ACL_ERROR_INVALID_PARAM;
    }
    *count = (uint32_t)TWIN_DEVICE_COUNT;
    return ACL_SUCCESS;
}
inline aclError aclrtSetDevice(int32_t deviceId) {
    if (deviceId < 0 || deviceId >= TWIN_DEVICE_COUNT) {
        return ACL_ERROR_INVALID_DEVICE;
    }
    twin_acl::state().device = deviceId;
    return ACL_SUCCESS;
}
inline aclError aclrtGetDevice(int32_t *deviceId) {
    if (deviceId == nullptr) {
        return ACL_ERROR_INVALID_PARAM;
    }
    *deviceId = twin_acl::state().device < 0 ? 0 : twin_acl::state().device;
    return ACL_SUCCESS;
}
inline aclError aclrtResetDevice(int32_t deviceId) {
    (void)deviceId;
    twin_acl::state().device = -1;
    return ACL_SUCCESS;
}
inline aclError aclrtCreateContext(aclrtContext *context, int32_t deviceId) {
    if (context == nullptr || deviceId != 0) {
        return context == nullptr ? ACL_ERROR_INVALID_PARAM : ACL_ERROR_INVALID_DEVICE;
    }
    *context = twin_acl::token();
    return ACL_SUCCESS;
}
inline aclError aclrtDestroyContext(aclrtContext context) {
    (void)context;
    return ACL_SUCCESS;
}
inline aclError aclrtSetCurrentContext(aclrtContext context) {
    (void)context;
    return ACL_SUCCESS;
}
inline aclError aclrtCreateStream(aclrtStream *stream) {
    if (stream == nullptr) {
        return ACL_ERROR_INVALID_PARAM;
    }
    *stream = twin_acl::token();
    return ACL_SUCCESS;
}
inline aclError aclrtDestroyStream(aclrtStream stream) {
    (void)stream;
    return ACL_SUCCESS;
}
// Kernels run to completion when launched, so there is never anything to wait for.
inline aclError aclrtSynchronizeStream(aclrtStream stream) {
    (void)stream;
    return ACL_SUCCESS;
}
inline aclError aclrtSynchronizeDevice() { return ACL_SUCCESS; }

// Device memory: the twin's bounds-checked global memory (zeroed, 512 B aligned).
inline aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy) {
    (void)policy;
    if (devPtr == nullptr || size == 0) {
        return ACL_ERROR_INVALID_PARAM;
    }
    *devPtr = twin_icpu_gm_alloc_by(size, "aclrtMalloc");
    return *devPtr == nullptr ? ACL_ERROR_BAD_ALLOC : ACL_SUCCESS;
}
// A pointer aclrtMalloc did not return, or one freed already, is an invalid parameter.
inline aclError aclrtFree(void *devPtr) { return twin_icpu_gm_release(devPtr) == 0 ? ACL_SUCCESS : ACL_ERROR_INVALID_PARAM; }
inline aclError aclrtMallocHost(void **hostPtr, size_t size) {
    if (hostPtr == nullptr || size == 0) {
        return ACL_ERROR_INVALID_PARAM;
    }
    *hostPtr = std::malloc(size);
    return *hostPtr == nullptr ? ACL_ERROR_BAD_ALLOC : ACL_SUCCESS;
}
inline aclError aclrtFreeHost(void *hostPtr) {
    if (hostPtr == nullptr) {
        return ACL_ERROR_INVALID_PARAM;
    }
    std::free(hostPtr);
    return ACL_SUCCESS;
}
// Copies `count` bytes; `destMax` is the room at `dst`, which must hold them (as documented).
inline aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind) {
    if (dst == nullptr || src == nullptr || count > destMax || (int)kind < 0 || (int)kind > 4) {
        return ACL_ERROR_INVALID_PARAM;
    }
    std::memmove(dst, src, count);
    return ACL_SUCCESS;
}
inline aclError aclrtMemcpyAsync(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind,
                                 aclrtStream stream) {
    (void)stream;
    return aclrtMemcpy(dst, destMax, src, count, kind);
}
inline aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value, size_t count) {
    if (devPtr == nullptr || count > maxCount) {
        return ACL_ERROR_INVALID_PARAM;
    }
    std::memset(devPtr, value, count);
    return ACL_SUCCESS;
}
inline const char *aclGetRecentErrMsg() { return nullptr; }

// Core counts of the SoC; other attributes are not modelled (an invalid parameter, as for an unknown one).
inline aclError aclrtGetDeviceInfo(uint32_t deviceId, aclrtDevAttr attr, int64_t *value) {
    if (value == nullptr) {
        return ACL_ERROR_INVALID_PARAM;
    }
    if (deviceId != 0) {
        return ACL_ERROR_INVALID_DEVICE;
    }
    switch (attr) {
    case ACL_DEV_ATTR_AICORE_CORE_NUM:
    case ACL_DEV_ATTR_CUBE_CORE_NUM:
        *value = TWIN_AIC_CORES;
        return ACL_SUCCESS;
    case ACL_DEV_ATTR_VECTOR_CORE_NUM:
        *value = TWIN_AIV_CORES;
        return ACL_SUCCESS;
    default:
        return ACL_ERROR_INVALID_PARAM;
    }
}
inline const char *aclrtGetSocName() { return TWIN_SOC_NAME; }

// aclFloat16 and its conversions (AscendCL API reference, "aclFloat16ToFloat" / "aclFloatToFloat16"):
// the IEEE 754 binary16 bits host programs fill half tensors with (asc-devkit's matmul examples print
// their outputs through them), converted by the twin's own half (twin/half.h, on twin-asc's include path).
typedef uint16_t aclFloat16;
inline float aclFloat16ToFloat(aclFloat16 value) { return ::twin::f16_to_f32(value); }
inline aclFloat16 aclFloatToFloat16(float value) { return ::twin::f32_to_f16_rne(value); }
