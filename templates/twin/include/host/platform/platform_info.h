// twin: platform/platform_info.h -- fe::PlatFormInfos (in twin_host/core.h), and the older platform
// query operator host code still makes to learn which chip it is built for:
//     fe::PlatformInfo info; fe::OptionalInfo opt;
//     if (fe::PlatformInfoManager::Instance().GetPlatformInfoWithOutSocVersion(info, opt) == ge::GRAPH_SUCCESS &&
//         info.str_info.short_soc_version == "Ascend950") ...
// CANN publishes no page for this query; what is here is the interface as the ops repositories' host
// code uses it (ops-nn group_norm_silu, layer_norm, rotate_quant: str_info.short_soc_version,
// soc_info.ai_core_cnt, ai_core_intrinsic_dtype_map, OptionalInfo::soc_version, 0 = success), with the
// documented platform facts behind it: the short SoC version ("Ascend910B", as PlatformAscendC's
// GetSocVersion reports it, https://www.hiascend.com/document/detail/en/canncommercial/800/apiref/ascendcopapi/atlasascendc_api_07_1137.html)
// and the core count, both from the spec the twin's host program was given (twin_host/platform.h).
// No CANN source is copied. The intrinsic map stays empty: the twin knows no intrinsic table, so code
// asking whether the chip has one takes the branch for a chip without it.
#pragma once
#include <cctype>
#include <cstdint>
#include <map>
#include <string>
#include <vector>
#include "../twin_host/core.h"
#include "../twin_host/platform.h"

// CANN's platform_info.h brings std's string, map and vector into the global namespace with using-
// declarations, and operator host code leans on it: ops-transformer's fused_infer_attention_score
// writes `string(layout)` unqualified in a source whose only std-bringing include is this header.
using std::map;
using std::string;
using std::vector;

namespace fe {

struct PlatformStrInfo {
    std::string soc_version;        // the full SoC version, e.g. "Ascend910B1"
    std::string short_soc_version;  // the family, e.g. "Ascend910B"
};

struct PlatformSocInfo {
    uint32_t ai_core_cnt = 0;
    uint32_t vector_core_cnt = 0;
    uint32_t cube_core_cnt = 0;
};

struct PlatformInfo {
    PlatformStrInfo str_info;
    PlatformSocInfo soc_info;
    std::map<std::string, std::vector<std::string>> ai_core_intrinsic_dtype_map;
};

struct OptionalInfo {
    std::string soc_version;
};

class PlatformInfoManager {
public:
    static PlatformInfoManager &Instance() {
        static PlatformInfoManager m;
        return m;
    }
    // 0 (GRAPH_SUCCESS) with the chip the twin's host program runs for; 1 when it was given none.
    uint32_t GetPlatformInfoWithOutSocVersion(PlatformInfo &info, OptionalInfo &opt) const {
        const PlatFormInfos *p = platform_ascendc::twin_current_platform();
        if (p == nullptr) return 1;
        info.str_info.soc_version = p->soc_version;
        info.str_info.short_soc_version = ShortVersion(p->short_soc);
        info.soc_info.ai_core_cnt = p->aic_cores;
        info.soc_info.cube_core_cnt = p->aic_cores;
        info.soc_info.vector_core_cnt = p->aiv_cores;
        opt.soc_version = p->soc_version;
        return 0;
    }

private:
    PlatformInfoManager() = default;
    // The short version in the documented form "Ascendxxx" ("Ascend910B", "Ascend310P", as ops compare
    // it: `== "Ascend950"`), from the spec's lower-case family name ("ascend910b").
    static std::string ShortVersion(const std::string &s) {
        std::string rest = s.compare(0, 6, "ascend") == 0 || s.compare(0, 6, "Ascend") == 0 ? s.substr(6) : s;
        for (char &c : rest) c = (char)std::toupper((unsigned char)c);
        return s.size() >= 6 && rest.size() + 6 == s.size() ? "Ascend" + rest : s;
    }
};

} // namespace fe
