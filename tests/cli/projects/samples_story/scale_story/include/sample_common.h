// The host side both stages share, as the stories' sample_common.h: the program's own folder, its data
// made by running gen_data.py there with std::system, device 7, and the check against the golden file.
#pragma once
#include <cassert>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>
#include <vector>
#include "acl/acl_rt.h"

constexpr uint32_t TOTAL = 16 * 1024;

inline std::string ExeDir()
{
    char buf[4096];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
    if (n <= 0) {
        return ".";
    }
    std::string path(buf, static_cast<size_t>(n));
    return path.substr(0, path.find_last_of('/'));
}

inline bool ReadAll(const std::string &path, std::vector<float> &dst)
{
    FILE *f = std::fopen(path.c_str(), "rb");
    bool ok = f != nullptr && std::fread(dst.data(), sizeof(float), dst.size(), f) == dst.size();
    if (f != nullptr) {
        std::fclose(f);
    }
    return ok;
}

template <class Launch> inline int RunStage(Launch launch, const char *stage)
{
    const std::string dir = ExeDir();
    const std::string cmd = "python3 " + dir + "/gen_data.py --output " + dir;
    if (std::system(cmd.c_str()) != 0) {
        std::fprintf(stderr, "Generate data failed, command: %s\n", cmd.c_str());
        return 1;
    }
    std::vector<float> x(TOTAL), golden(TOTAL), y(TOTAL);
    if (!ReadAll(dir + "/input/input_x.bin", x) || !ReadAll(dir + "/output/golden.bin", golden)) {
        std::fprintf(stderr, "cannot read the data gen_data.py wrote in %s\n", dir.c_str());
        return 1;
    }
    const int32_t device = 7;
    aclInit(nullptr);
    if (aclrtSetDevice(device) != ACL_SUCCESS) {
        std::fprintf(stderr, "aclrtSetDevice(%d) failed\n", device);
        return 1;
    }
    aclrtStream stream = nullptr;
    aclrtCreateStream(&stream);
    const size_t bytes = TOTAL * sizeof(float);
    uint8_t *xd = nullptr;
    uint8_t *yd = nullptr;
    // the allocations inside asserts, as cann-samples' simd_vf_story does: built as its README builds it
    // (no build type, no NDEBUG), they happen
    assert(aclrtMalloc(reinterpret_cast<void **>(&xd), bytes, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
    assert(aclrtMalloc(reinterpret_cast<void **>(&yd), bytes, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
    aclrtMemcpy(xd, bytes, x.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE);
    launch(stream, xd, yd);
    aclrtSynchronizeStream(stream);
    aclrtMemcpy(y.data(), bytes, yd, bytes, ACL_MEMCPY_DEVICE_TO_HOST);
    aclrtFree(xd);
    aclrtFree(yd);
    aclrtDestroyStream(stream);
    aclrtResetDevice(device);
    aclFinalize();
    int errors = 0;
    for (uint32_t i = 0; i < TOTAL; i++) {
        errors += std::fabs(y[i] - golden[i]) > 1e-6f ? 1 : 0;
    }
    std::printf("[%s] %s, %d errors\n", stage, errors == 0 ? "PASSED" : "FAILED", errors);
    return errors == 0 ? 0 : 1;
}
