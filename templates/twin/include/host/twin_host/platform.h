// twin (host side): platform_ascendc::PlatformAscendC, answered from the spec file the host
// main was given (never from built-in constants, except the documented workspace default).
#pragma once
#include <cctype>
#include <cstdint>
#include <string>
#include "core.h"

// The host tiling API's namespace (AscendC::GetSoftMaxMaxTmpSize and its companions, tiling/tiling_api.h),
// open here because host code writes `using namespace AscendC;` after including only the platform header
// (ops-nn's ascend_anti_quant_v2 base tiling).
//
// Its named sizes of the cube and the UB block, which the host tiling API declares for host code
// (asc-devkit include/adv_api/transpose/confusion_transpose_tiling.h, brought by tiling/tiling_api.h:
// BLOCK_CUBE 16, the cube fractal's side; ONE_BLK_SIZE 32, a UB block in bytes; CUBE_MAX_SIZE 256, a
// fractal's elements; TWO_TIMES 2, all uint32_t but CUBE_MAX_SIZE). ops-nn's weight_quant_batch_matmul_v2,
// sparse4to2quant_matmul and conv3d_backprop_filter_v2 tilings name AscendC::BLOCK_CUBE / ONE_BLK_SIZE.
// They are here rather than in tiling/tiling_api.h because every host build sees this header first
// (twin_host/pch.h), as it sees tiling_api.h's in CANN; the operator repositories' host code defines
// no names of its own that these would clash with (checked over ops-nn and ops-math).
namespace AscendC {
constexpr uint32_t BLOCK_CUBE = 16;
constexpr uint32_t ONE_BLK_SIZE = 32;
constexpr int32_t CUBE_MAX_SIZE = 256;
constexpr uint32_t TWO_TIMES = 2;
} // namespace AscendC

namespace platform_ascendc {

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

inline SocVersion twin_soc_from_short(const std::string &s0) {
    std::string s;
    for (char c : s0) s.push_back((char)std::tolower((unsigned char)c));
    if (s == "ascend910b") return SocVersion::ASCEND910B;
    if (s == "ascend910_93" || s == "ascend910c") return SocVersion::ASCEND910_93;
    if (s == "ascend910_95" || s == "ascend950") return SocVersion::ASCEND910_95;
    if (s == "ascend910") return SocVersion::ASCEND910;
    if (s == "ascend310p") return SocVersion::ASCEND310P;
    if (s == "ascend310b") return SocVersion::ASCEND310B;
    if (s == "ascend610") return SocVersion::ASCEND610;
    if (s == "ascend610lite") return SocVersion::ASCEND610LITE;
    if (s == "ascend310") return SocVersion::ASCEND310;
    if (s == "ascend031") return SocVersion::ASCEND031;
    if (s == "ascend035") return SocVersion::ASCEND035;
    return SocVersion::RESERVED_VERSION;
}

class PlatformAscendC {
public:
    PlatformAscendC() = default;
    explicit PlatformAscendC(fe::PlatFormInfos *info) : info_(info) {}
    explicit PlatformAscendC(const fe::PlatFormInfos *info) : info_(const_cast<fe::PlatFormInfos *>(info)) {}

    // Cube/vector separated SoCs (A2/A3 and later) answer GetCoreNum with the vector core count,
    // coupled ones with the AI core count (CANN docs, PlatformAscendC::GetCoreNum).
    bool IsSeparated() const {
        SocVersion v = GetSocVersion();
        return v == SocVersion::ASCEND910B || v == SocVersion::ASCEND910_93 || v == SocVersion::ASCEND910_95 ||
               v == SocVersion::ASCEND310B;
    }
    uint32_t GetCoreNum() const { return info_ ? (IsSeparated() ? info_->aiv_cores : info_->aic_cores) : 0; }
    uint32_t GetCoreNumAic() const { return info_ ? info_->aic_cores : 0; }
    uint32_t GetCoreNumAiv() const { return info_ ? (IsSeparated() ? info_->aiv_cores : info_->aic_cores) : 0; }
    uint32_t GetCoreNumVector() const { return info_ ? (IsSeparated() ? 0 : info_->aiv_cores) : 0; }
    SocVersion GetSocVersion() const { return info_ ? twin_soc_from_short(info_->short_soc) : SocVersion::RESERVED_VERSION; }
    NpuArch GetCurNpuArch() const {
        switch (GetSocVersion()) {
        case SocVersion::ASCEND910B: case SocVersion::ASCEND910_93: return NpuArch::DAV_2201;
        case SocVersion::ASCEND310P: return NpuArch::DAV_2002;
        case SocVersion::ASCEND910: return NpuArch::DAV_1001;
        case SocVersion::ASCEND910_95: return NpuArch::DAV_3101;
        case SocVersion::ASCEND310B: return NpuArch::DAV_3002;
        default: return NpuArch::DAV_RESV;
        }
    }
    void GetCoreMemSize(const CoreMemType &t, uint64_t &size) const {
        size = 0;
        if (!info_) return;
        switch (t) {
        case CoreMemType::UB: size = info_->ub_bytes; break;
        case CoreMemType::L1: size = info_->l1_bytes; break;
        case CoreMemType::L0_A: size = info_->l0a_bytes; break;
        case CoreMemType::L0_B: size = info_->l0b_bytes; break;
        case CoreMemType::L0_C: size = info_->l0c_bytes; break;
        case CoreMemType::L2: size = info_->l2_bytes; break;
        case CoreMemType::HBM: size = info_->hbm_bytes; break;
        default: break;
        }
    }
    void GetCoreMemBw(const CoreMemType &t, uint64_t &bw) const {
        bw = 0;
        if (!info_) return;
        const char *k = t == CoreMemType::UB ? "bw_ub" : t == CoreMemType::L2 ? "bw_l2" : t == CoreMemType::HBM ? "bw_hbm" : "bw_other";
        auto it = info_->extra.find(k);
        if (it != info_->extra.end()) bw = std::stoull(it->second);
    }
    uint32_t CalcTschBlockDim(uint32_t sliceNum, uint32_t aicCoreNum, uint32_t aivCoreNum) const {
        if (!IsSeparated() || aicCoreNum == 0 || aivCoreNum == 0 || aicCoreNum > aivCoreNum) return sliceNum;
        uint32_t ratio = aivCoreNum / aicCoreNum;
        return (sliceNum + ratio - 1) / ratio;
    }
    uint32_t CalcTschNumBlocks(uint32_t sliceNum, uint32_t aicCoreNum, uint32_t aivCoreNum) const {
        return CalcTschBlockDim(sliceNum, aicCoreNum, aivCoreNum);
    }
    // Spec directive `libapi_workspace`; without it 16 MiB on every SoC (the size CANN documents for A2/A3).
    uint32_t GetLibApiWorkSpaceSize() const {
        if (info_ && info_->has_libapi_workspace) return (uint32_t)info_->libapi_workspace;
        return 16u * 1024u * 1024u;
    }
    uint32_t GetResGroupBarrierWorkSpaceSize() const { return 0; }
    uint32_t GetResCubeGroupWorkSpaceSize() const { return 0; }
    uint32_t GetVecRegLen() const { return 256; }
    void ReserveLocalMemory(int, uint32_t) {}
    fe::PlatFormInfos *GetPlatFormInfo() const { return info_; }

private:
    fe::PlatFormInfos *info_ = nullptr;
};

// Set by the twin host main before any tiling code runs.
inline fe::PlatFormInfos *&twin_current_platform() {
    static fe::PlatFormInfos *p = nullptr;
    return p;
}

class PlatformAscendCManager {
public:
    static PlatformAscendC *GetInstance() {
        static PlatformAscendC inst(twin_current_platform());
        inst = PlatformAscendC(twin_current_platform());
        return &inst;
    }
    static PlatformAscendC *GetInstance(const char *) { return GetInstance(); }
};

} // namespace platform_ascendc

// CANN declares the architecture enum at global scope (platform/soc_spec.h, which
// tiling/platform/platform_ascendc.h includes), so host code that includes only the platform header
// names it unqualified (ops-nn's flat_quant tiling header: `NpuArch npuArch = NpuArch::DAV_2201;`).
using NpuArch = platform_ascendc::NpuArch;
