// twin: graph/operator_reg.h, the REG_OP description of an operator for graph mode (the op_graph/
// *_proto.h headers, which some host files include: ops-nn's situ_glu_grad, clipped_swiglu).
//
// REG_OP(Name).INPUT(x, TensorType({...})).ATTR(a, Int, -1)...OP_END_FACTORY_REG(Name) declares the
// op's graph prototype; CANN turns it into a class for graph construction. The twin builds no graphs
// and reads the op's interface from its OpDef, so the description only has to compile: it becomes one
// unused constant per op, each part naming its input, output or attr and nothing else evaluated (the
// TensorType lists and attr defaults are macro arguments that are dropped).
#pragma once
#include "operator.h"
#include "types.h"

namespace twin_host {
struct OpRegDecl {
    const char *name;
    explicit OpRegDecl(const char *n) : name(n) {}
    OpRegDecl &twin_part(const char *) { return *this; }
    int twin_end() const { return 0; }
};
} // namespace twin_host

#define REG_OP(x) [[maybe_unused]] static const int twin_reg_op_##x = ::twin_host::OpRegDecl(#x)
#define INPUT(x, ...) twin_part(#x)
#define OPTIONAL_INPUT(x, ...) twin_part(#x)
#define DYNAMIC_INPUT(x, ...) twin_part(#x)
#define OUTPUT(x, ...) twin_part(#x)
#define DYNAMIC_OUTPUT(x, ...) twin_part(#x)
#define ATTR(x, ...) twin_part(#x)
#define REQUIRED_ATTR(x, ...) twin_part(#x)
#define GRAPH(x) twin_part(#x)
#define DYNAMIC_GRAPH(x) twin_part(#x)
#define OP_END_FACTORY_REG(x) twin_end();
