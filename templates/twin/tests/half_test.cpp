// Converts every float bit pattern read from stdin-named file to half / bfloat16 bits and back,
// so tests/api_check.py can compare with numpy. Usage: half_test <in.f32> <out.f16> <out.bf16> <out.f32-from-f16>
#include <cstdio>
#include <vector>
#include "kernel_operator.h"
int main(int argc, char **argv) {
    if (argc != 5) return 2;
    FILE *f = std::fopen(argv[1], "rb");
    std::vector<float> v;
    float x;
    while (std::fread(&x, 4, 1, f) == 1) v.push_back(x);
    std::fclose(f);
    std::vector<uint16_t> h(v.size()), b(v.size());
    std::vector<float> back(v.size());
    for (size_t i = 0; i < v.size(); i++) {
        half hv(v[i]);
        bfloat16_t bv(v[i]);
        h[i] = hv.Bits();
        b[i] = bv.Bits();
        back[i] = (float)hv;
    }
    FILE *o = std::fopen(argv[2], "wb"); std::fwrite(h.data(), 2, h.size(), o); std::fclose(o);
    o = std::fopen(argv[3], "wb"); std::fwrite(b.data(), 2, b.size(), o); std::fclose(o);
    o = std::fopen(argv[4], "wb"); std::fwrite(back.data(), 4, back.size(), o); std::fclose(o);
    return 0;
}
