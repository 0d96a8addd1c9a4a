// twin: op_common/op_host/util/opbase_export.h, CANN's symbol-export macro header for its op-base
// library (ops-math's common/inc/op_host/infershape_reduce_util.h includes it and uses nothing of it).
// The twin links the operator's host code into one program, so exporting is a no-op: OPBASE_API marks
// nothing.
#pragma once
#ifndef OPBASE_API
#define OPBASE_API __attribute__((visibility("default")))
#endif
