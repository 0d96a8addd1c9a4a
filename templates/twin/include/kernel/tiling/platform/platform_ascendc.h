// twin: kernel-side tiling/platform/platform_ascendc.h. In a kernel build it has the platform's enums only
// (a tiling header the kernel includes may include it, and ops-nn's fused_add_rms_norm keeps a
// `platform_ascendc::SocVersion` in a struct there). In an `.asc` single source (bin/twin-asc defines TWIN_AIC_CORES and the
// other TWIN_* facts of the SoC it compiles for) the host part runs here too, so it is the host's
// platform_ascendc::PlatformAscendC, answered from those facts: core counts, UB and L1 sizes, the L0
// buffers of dav-2201 (64 KiB L0A and L0B, 128 KiB L0C: FACTS.md §1, the Ascend 910B row) and the 16 MiB
// library workspace CANN documents for A2/A3 (as include/host/twin_host/platform.h). Interface: CANN docs,
// PlatformAscendC (GetCoreNum, GetCoreNumAic, GetCoreNumAiv, GetCoreMemSize, GetLibApiWorkSpaceSize,
// PlatformAscendCManager::GetInstance).
#pragma once
#include <cstdint>

namespace platform_ascendc {

// The same values as the host's (include/host/twin_host/platform.h).
enum class CoreMemType { L0_A = 0, L0_B = 1, L0_C = 2, L1 = 3, L2 = 4, UB = 5, HBM = 6, FB = 7, BT = 8, RESERVED };
enum class SocVersion {
    ASCEND910 = 0, ASCEND910B, ASCEND910_93, ASCEND910_95, ASCEND950 = ASCEND910_95, ASCEND310P, ASCEND310B,
    ASCEND610, ASCEND610LITE, ASCEND310, ASCEND031, ASCEND035, ASCEND910_55, KIRINX90, KIRIN9030, MC62CM12A,
    RESERVED_VERSION = 99999
};
enum class NpuArch : uint32_t {
    DAV_1001 = 1001, DAV_2002 = 2002, DAV_2201 = 2201, DAV_3002 = 3002, DAV_3003 = 3003, DAV_3101 = 3101,
    DAV_3113 = 3113, DAV_3510 = 3510, DAV_5102 = 5102, DAV_RESV = 0
};
} // namespace platform_ascendc
// The architecture enum under its global name, as CANN's platform_ascendc.h declares it (platform/soc_spec.h):
// ops-nn's flat_quant tiling header, which the kernel build includes, has an `NpuArch` member.
using NpuArch = platform_ascendc::NpuArch;

#ifdef TWIN_AIC_CORES
#include <cstring>

namespace platform_ascendc {

class PlatformAscendC {
public:
    uint32_t GetCoreNum() const { return TWIN_AIV_CORES; }
    uint32_t GetCoreNumAic() const { return TWIN_AIC_CORES; }
    uint32_t GetCoreNumAiv() const { return TWIN_AIV_CORES; }
    SocVersion GetSocVersion() const {
        return std::strncmp(TWIN_SOC_NAME, "Ascend910B", 10) == 0 ? SocVersion::ASCEND910B
             : std::strncmp(TWIN_SOC_NAME, "Ascend950", 9) == 0  ? SocVersion::ASCEND950
                                                                  : SocVersion::RESERVED_VERSION;
    }
    void GetCoreMemSize(const CoreMemType &t, uint64_t &size) const {
        switch (t) {
        case CoreMemType::UB: size = TWIN_UB_BYTES; break;
        case CoreMemType::L1: size = TWIN_L1_BYTES; break;
        case CoreMemType::L0_A: case CoreMemType::L0_B: size = 64 * 1024; break;
        case CoreMemType::L0_C: size = 128 * 1024; break;
        default: size = 0; break;
        }
    }
    uint32_t GetLibApiWorkSpaceSize() const { return 16u * 1024u * 1024u; }
    uint32_t CalcTschBlockDim(uint32_t sliceNum, uint32_t aicCoreNum, uint32_t aivCoreNum) const {
        if (aicCoreNum == 0 || aivCoreNum == 0 || aicCoreNum > aivCoreNum) return sliceNum;
        uint32_t ratio = aivCoreNum / aicCoreNum;
        return (sliceNum + ratio - 1) / ratio;
    }
};

class PlatformAscendCManager {
public:
    static PlatformAscendC *GetInstance() {
        static PlatformAscendC inst;
        return &inst;
    }
    // CANN takes the SoC name for CPU debugging; the twin's SoC is the one twin-asc compiled for.
    static PlatformAscendC *GetInstance(const char *) { return GetInstance(); }
};

} // namespace platform_ascendc
#endif
