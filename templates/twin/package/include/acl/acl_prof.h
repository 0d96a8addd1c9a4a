// twin package: acl/acl_prof.h, the profiling calls a host program makes around a kernel launch.
// Written from the AscendCL API reference (hiascend.com, CANN 9.0: "aclprofEventAttributes",
// "aclprofRangePushEx", "aclprofRangePop", "aclprofStr2Id"); no CANN header is copied. hicann/cann-samples'
// vector_add reports its tensors with aclprofRangePushEx before the launch and pops the range after.
//
// On the twin nothing is profiled by msprof: the kernel's latency is the performance model's, from the
// twin's trace. These calls take their arguments as documented, record nothing and return success; the
// structures have the documented fields, in order, so that programs fill them as they do for CANN.
#pragma once
#include "acl/acl.h"

typedef enum {
    MESSAGE_TYPE_TENSOR_INFO = 0,
} ProfMessageType;
// the names CANN 9.1 programs use for the same values
static const uint16_t ACL_PROF_EVENT_ATTR_VERSION = 1;
static const uint32_t ACL_PROF_MESSAGE_TYPE_TENSOR_INFO = MESSAGE_TYPE_TENSOR_INFO;

typedef struct {
    uint32_t type;     // 0: input, 1: output
    uint32_t format;   // aclFormat
    uint32_t dataType; // aclDataType
    uint32_t shapeDim; // at most 8
    uint32_t shape[8];
} aclprofTensor;

typedef struct {
    uint64_t opNameId; // aclprofStr2Id of the name
    uint64_t opTypeId;
    uint32_t resv;
    uint32_t tensorNum;
    uint32_t kernelType;
    uint32_t blockNums;
    void *stream;
    aclprofTensor *tensors;
} aclprofTensorInfo;

typedef struct {
    uint16_t version;
    uint16_t size;
    uint32_t messageType; // MESSAGE_TYPE_TENSOR_INFO
    union Message {
        aclprofTensorInfo *tensorInfo;
    } message;
} aclprofEventAttributes;

/// An id for a string (FNV-1a over its bytes): the same string gives the same id.
inline uint64_t aclprofStr2Id(const char *message) {
    uint64_t h = 1469598103934665603ULL;
    for (const char *c = message; c != nullptr && *c != 0; ++c) {
        h = (h ^ (uint8_t)*c) * 1099511628211ULL;
    }
    return h;
}

inline aclError aclprofRangePushEx(aclprofEventAttributes *attr) {
    return attr == nullptr ? ACL_ERROR_INVALID_PARAM : ACL_SUCCESS;
}

inline aclError aclprofRangePop() { return ACL_SUCCESS; }
