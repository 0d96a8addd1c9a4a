// twin: utils/debug/asc_dump.h, the dump interface (asc-devkit docs/zh/api/Utils-API/调测接口/asc_dump.md):
// print dump_size elements of a memory block or a register, with the caller's uint32_t desc. The twin prints
// through the kernel's printf stream, one header line then the values, 8 to a line:
//   asc_dump desc=<desc> position=<GM|UB|L1|Reg> dtype=<type> size=<n>
// The address-space qualifiers are empty on the CPU, so the plain asc_dump(T *) tells GM from UB by the
// pointer: one inside a GM allocation is GM, any other is a UB byte offset (LocalTensor::GetPhyAddr()'s
// value in the twin). L0C (asc_dump_cbuf) is not modelled and is a kernel fault. Knows nothing of the tool's
// Rust side.
#pragma once
#include "../../kernel_operator.h"

namespace twin {
template <class T> inline const char *dump_type_name() {
    if (std::is_same<T, float>::value) return "float";
    if (std::is_same<T, half>::value) return "half";
    if (std::is_same<T, bfloat16_t>::value) return "bfloat16_t";
    if (std::is_same<T, bool>::value) return "bool";
    if (std::is_same<T, double>::value) return "double";
    if (std::is_signed<T>::value) return sizeof(T) == 1 ? "int8_t" : sizeof(T) == 2 ? "int16_t" : sizeof(T) == 4 ? "int32_t" : "int64_t";
    return sizeof(T) == 1 ? "uint8_t" : sizeof(T) == 2 ? "uint16_t" : sizeof(T) == 4 ? "uint32_t" : "uint64_t";
}
template <class T> inline void dump_values(const char *pos, const uint8_t *p, uint32_t desc, uint32_t n) {
    kprintf("asc_dump desc=%u position=%s dtype=%s size=%u\n", desc, pos, dump_type_name<T>(), n);
    for (uint32_t i = 0; i < n; i++) {
        const T v = ld<T>(p + (uint64_t)i * sizeof(T));
        if constexpr (std::is_floating_point<T>::value || is_half_like<T>::value) kprintf("%g", (double)(float)v);
        else if constexpr (std::is_signed<T>::value) kprintf("%lld", (long long)v);
        else kprintf("%llu", (unsigned long long)v);
        kprintf("%s", i + 1 == n || i % 8 == 7 ? "\n" : " ");
    }
}
template <class T> inline void dump_gm(const T *p, uint32_t desc, uint32_t n, TWIN_LOC_DECL) {
    gm_check(p, (uint64_t)n * sizeof(T), false, "asc_dump_gm", TWIN_LOC_ARGS);
    dump_values<T>("GM", reinterpret_cast<const uint8_t *>(p), desc, n);
}
template <class T> inline void dump_ub(const T *p, uint32_t desc, uint32_t n, TWIN_LOC_DECL) {
    const uint8_t *b = ub_span(ub_addr_of_ptr(p), (uint64_t)n * sizeof(T), "asc_dump_ubuf", TWIN_LOC_ARGS);
    dump_values<T>("UB", b, desc, n);
}
} // namespace twin

template <class T> inline void asc_dump_gm(__gm__ T *input, uint32_t desc, uint32_t dump_size, TWIN_LOC) {
    twin::dump_gm(input, desc, dump_size, TWIN_LOC_ARGS);
}
template <class T> inline void asc_dump_ubuf(__ubuf__ T *input, uint32_t desc, uint32_t dump_size, TWIN_LOC) {
    twin::dump_ub(input, desc, dump_size, TWIN_LOC_ARGS);
}
template <class T> inline void asc_dump_l1buf(__cbuf__ T *input, uint32_t desc, uint32_t dump_size, TWIN_LOC) {
    const uint8_t *b = twin::l1_span((uint64_t)(uintptr_t)input, (uint64_t)dump_size * sizeof(T), "asc_dump_l1buf",
                                     TWIN_LOC_ARGS);
    twin::dump_values<T>("L1", b, desc, dump_size);
}
template <class T> inline void asc_dump_cbuf(__cc__ T *, uint32_t, uint32_t, TWIN_LOC) {
    twin::fault(twin_file, twin_line, "asc_dump_cbuf: dumping L0C is not modelled by the twin; dump the result after "
                "it is copied out (asc_dump_gm / asc_dump_ubuf)");
}
template <class T> inline void asc_dump(T *input, uint32_t desc, uint32_t dump_size, TWIN_LOC) {
    if (twin::gm_find(input)) twin::dump_gm(input, desc, dump_size, TWIN_LOC_ARGS);
    else twin::dump_ub(input, desc, dump_size, TWIN_LOC_ARGS);
}
// Register forms (simd_vf): the first dump_size lanes of a RegTensor.
template <class T, class U, class = typename U::ElementType>
inline void asc_dump_reg(U &input, uint32_t desc, uint32_t dump_size, TWIN_LOC) {
    const uint32_t lanes = AscendC::Reg::VL / sizeof(T);
    if (dump_size > lanes)
        twin::fault(twin_file, twin_line, "asc_dump_reg: dump_size %u exceeds the register's %u lanes of %s", dump_size,
                    lanes, twin::dump_type_name<T>());
    twin::dump_values<T>("Reg", input.b, desc, dump_size);
}
template <class T, class U, class = typename U::ElementType>
inline void asc_dump(U &input, uint32_t desc, uint32_t dump_size, TWIN_LOC) {
    asc_dump_reg<T>(input, desc, dump_size, TWIN_LOC_ARGS);
}
