// twin (host side): the broadcasting shape inference of the operator-base helpers that ops-math /
// ops-nn InferShape files register (`IMPL_OP_INFERSHAPE(Gcd).InferShape(Ops::Base::InferShape4Broadcast)`),
// reached through `infershape_broadcast_util.h` and its `op_host/` and `op_common/op_host/` spellings.
// Written from the documented broadcasting rule the Ascend operators follow (the numpy rule: shapes
// aligned at their last axis, each pair of dims equal or one of them 1, the result taking the
// larger; a missing leading axis counts as 1; see the CANN aclnn docs on broadcast, e.g.
// "aclnnAdd: ... shape需要满足broadcast关系"). No CANN source is copied.
#pragma once
#include "opbase.h"
#include <vector>

namespace Ops {
namespace Base {

// `out` = the broadcast of `a` and `b`; false when a pair of dims is neither equal nor 1. An
// unknown dim (-1) broadcast with a known one gives the known one when that is not 1, else -1.
inline bool BroadcastShape(const gert::Shape &a, const gert::Shape &b, gert::Shape &out) {
    const size_t na = a.GetDimNum(), nb = b.GetDimNum(), n = na > nb ? na : nb;
    gert::Shape r;
    r.SetDimNum(n);
    for (size_t i = 0; i < n; i++) {
        const int64_t da = i + na >= n ? a.GetDim(i + na - n) : 1;
        const int64_t db = i + nb >= n ? b.GetDim(i + nb - n) : 1;
        int64_t d;
        if (da == db) d = da;
        else if (da == 1) d = db;
        else if (db == 1) d = da;
        else if (da < 0) d = db;
        else if (db < 0) d = da;
        else return false;
        r.SetDim(i, d);
    }
    out = r;
    return true;
}
inline bool BroadcastShape(const gert::Shape *a, const gert::Shape *b, gert::Shape *out) {
    return a != nullptr && b != nullptr && out != nullptr && BroadcastShape(*a, *b, *out);
}
// The broadcast of every shape of `in` at once (ops-math's add_mat_mat_elements_plus infers a + b + c
// so); false for an empty list, a null shape or a pair that does not broadcast.
inline bool BroadcastShape(const std::vector<const gert::Shape *> &in, gert::Shape *out) {
    if (in.empty() || out == nullptr || in[0] == nullptr) return false;
    gert::Shape acc = *in[0];
    for (size_t i = 1; i < in.size(); i++) {
        gert::Shape next;
        if (in[i] == nullptr || !BroadcastShape(acc, *in[i], next)) return false;
        acc = next;
    }
    *out = acc;
    return true;
}

// Every output takes the broadcast of all inputs' shapes; an input pair that does not broadcast
// fails the inference (logged, naming the shapes).
inline ge::graphStatus InferShape4Broadcast(gert::InferShapeContext *context) {
    if (context == nullptr) return ge::GRAPH_FAILED;
    const gert::Shape *first = context->GetInputShape(0);
    if (first == nullptr) return ge::GRAPH_FAILED;
    gert::Shape acc = *first;
    for (size_t i = 1; i < context->GetComputeNodeInputNum(); i++) {
        const gert::Shape *s = context->GetInputShape(i);
        if (s == nullptr) continue;
        gert::Shape next;
        if (!BroadcastShape(acc, *s, next)) {
            OP_LOGE(context, "input shapes %s and %s do not broadcast", ToString(acc).c_str(), ToString(*s).c_str());
            return ge::GRAPH_FAILED;
        }
        acc = next;
    }
    for (size_t i = 0; i < context->GetComputeNodeOutputNum(); i++) {
        gert::Shape *out = context->GetOutputShape(i);
        if (out != nullptr) *out = acc;
    }
    return ge::GRAPH_SUCCESS;
}

} // namespace Base
} // namespace Ops
