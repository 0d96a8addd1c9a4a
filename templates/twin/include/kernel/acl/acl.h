// twin: the kernel-side `acl/acl.h`. CANN puts the ACL runtime's headers on the kernel compiler's path,
// and a kernel may include it without using it (ops-nn's modulate_grad). The twin gives the runtime's
// basic types only (aclError, ACL_SUCCESS, the stream and context handles); the runtime API itself
// (aclrtMalloc, aclrtMemcpy, ...) runs on the host, which the twin's kernel build does not emulate, so
// a kernel that calls it stops at the compiler naming the call.
// Owns: those types. Must not know: anything of the host runtime.
#pragma once
#include <cstdint>

typedef int aclError;
static const aclError ACL_SUCCESS = 0;
typedef void *aclrtStream;
typedef void *aclrtContext;
