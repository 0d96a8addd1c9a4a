//! The twin's gaps that stopped public cube and mixed operators (ops-nn, ops-math) from building, each
//! closed with a small C++ use compiled against the twin's headers here and, where it computes
//! something, run and checked against a value worked out independently (from the CANN documentation the
//! twin's comment cites, or by hand). Host side: ge::AscendString's own header (ops-nn's matmul tuning
//! registry), fe::PlatFormInfos::GetCoreNumByType (rnn/gru, rnn/dynamic_rnn), securec's formatted
//! output (conv3d_backprop_*_v2), the later ge::Format values (quant_batch_matmul_v4, conv3d_v2, ...),
//! InferDataTypeContext::GetInputDesc (ops-math's stft), the global NpuArch (flat_quant). Kernel side:
//! kernel_type.h (group_norm_grad), lib/matrix/matmul/matmul.h and lib/pad/kernel_operator_pad_intf.h
//! (ops-math's rfft1_d, stft) and the CeilDiv / CeilAlign a Matmul header brings (add_lora,
//! rotate_quant).

mod common;

use common::*;
use std::path::Path;
use std::process::Command;

/// Runs a one-block kernel program with an empty tiling and one output of `bytes` bytes; returns them.
fn run_one_output(w: &Path, prog: &str, bytes: usize) -> Vec<u8> {
    write_run(w, &[("output", "y", "y.bin", bytes)]);
    run_ok(
        Command::new(w.join(prog)).arg(w.join("run.txt")),
        &format!("running {prog}"),
    );
    std::fs::read(w.join("y.bin")).unwrap()
}

fn u32s(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// securec's vsnprintf_s / snprintf_s / vsprintf_s / sprintf_s keep to their documented contract:
/// the count written, -1 with the truncated string when `count` < destMax cuts it, -1 with an empty
/// string when the output does not fit destMax at all. ops-nn's conv tilings format with vsnprintf_s.
#[test]
fn securec_formatted_output_counts_truncates_and_refuses() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("sec.cpp");
    std::fs::write(
        &src,
        r#"
#include <cstdarg>
#include <cstdio>
#include "securec.h"
static int fmt(char *b, size_t m, size_t c, const char *f, ...) {
    va_list ap; va_start(ap, f); int n = vsnprintf_s(b, m, c, f, ap); va_end(ap); return n;
}
int main() {
    char b[8];
    int n = fmt(b, sizeof(b), sizeof(b) - 1, "%d-%s", 12, "ab"); std::printf("%d [%s]\n", n, b);
    n = fmt(b, sizeof(b), 3, "%s", "abcdef"); std::printf("%d [%s]\n", n, b);
    n = fmt(b, sizeof(b), sizeof(b), "%s", "abcdefghij"); std::printf("%d [%s]\n", n, b);
    n = fmt(b, sizeof(b), sizeof(b) - 1, "%s", "abcdefg"); std::printf("%d [%s]\n", n, b);
    n = snprintf_s(b, sizeof(b), sizeof(b) - 1, "%03d", 5); std::printf("%d [%s]\n", n, b);
    n = sprintf_s(b, sizeof(b), "%x", 255); std::printf("%d [%s]\n", n, b);
    n = sprintf_s(b, sizeof(b), "%s", "12345678"); std::printf("%d [%s]\n", n, b);
    n = snprintf_s(nullptr, 8, 7, "x"); std::printf("%d\n", n);
    return 0;
}
"#,
    )
    .unwrap();
    let exe = build_host(&src, "building the securec check");
    let out = run_ok(&mut Command::new(exe), "the securec check");
    assert_eq!(
        out,
        "5 [12-ab]\n-1 [abc]\n-1 []\n7 [abcdefg]\n3 [005]\n2 [ff]\n-1 []\n-1\n"
    );
}

/// The host-side names: ge::AscendString through graph/ascend_string.h, the later ge::Format values
/// (FRACTAL_NZ_C0_32 is 51 in aclnnNpuFormatCast.md; the order after NCL is the documented enumeration
/// order: Z_WINO, C1HWC0, NZ_C0_16, NZ_C0_32, NZ_C0_2, NZ_C0_4, NZ_C0_8, END), the global NpuArch,
/// PlatFormInfos::GetCoreNumByType("AiCore") (the AI-core count), InferDataTypeContext's
/// descriptors (nullptr for an absent input, as stft's InferDataType relies on), ge::float32_t /
/// float64_t, TilingContext::GetDeterministicLevel (0: nothing asked; mat_mul_v3) and
/// StorageShape::GetShape (the origin shape, the documented example: 3 for ({3,256,256}, {256,256,3}))
/// and the host tiling API's AscendC::BLOCK_CUBE (16) / ONE_BLK_SIZE (32) / CUBE_MAX_SIZE (256) /
/// TWO_TIMES (2) (weight_quant_batch_matmul_v2, sparse4to2quant_matmul); an intrinsic-table query the
/// platform description cannot answer says so on stderr (once) and answers absent.
#[test]
fn host_names_answer_as_documented() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("host.cpp");
    std::fs::write(
        &src,
        r#"
#include <cstdio>
#include <map>
#include "graph/ascend_string.h"
#include "graph/types.h"
#include "register/op_impl_registry.h"
#include "tiling/platform/platform_ascendc.h"
#include "exe_graph/runtime/infer_datatype_context.h"
#include "exe_graph/runtime/tiling_context.h"
int main() {
    std::map<ge::AscendString, int> reg;
    reg[ge::AscendString("MatMulV3")] = 3;
    reg[ge::AscendString("BatchMatMulV3")] = 4;
    std::printf("%s %d\n", reg.begin()->first.GetString(), reg[ge::AscendString("MatMulV3")]);
    std::printf("%d %d %d %d %d %d %d %d %s %s\n", (int)ge::FORMAT_FRACTAL_Z_WINO, (int)ge::FORMAT_C1HWC0,
                (int)ge::FORMAT_FRACTAL_NZ_C0_16, (int)ge::FORMAT_FRACTAL_NZ_C0_32, (int)ge::FORMAT_FRACTAL_NZ_C0_2,
                (int)ge::FORMAT_FRACTAL_NZ_C0_4, (int)ge::FORMAT_FRACTAL_NZ_C0_8, (int)ge::FORMAT_END,
                ge::GetFormatName(ge::FORMAT_FRACTAL_NZ_C0_32), ge::GetFormatName(ge::FORMAT_END) ? "named" : "null");
    NpuArch arch = NpuArch::DAV_2201;
    std::printf("%u %d\n", (unsigned)arch, arch == platform_ascendc::NpuArch::DAV_2201);
    fe::PlatFormInfos p;
    p.aic_cores = 24; p.aiv_cores = 48;
    std::printf("%u\n", p.GetCoreNumByType("AiCore"));
    std::string intrinsic;
    bool has = p.GetPlatformRes("AICoreintrinsicDtypeMap", "Intrinsic_fix_pipe_l0c2out", intrinsic);
    has = has || p.GetPlatformRes("AICoreintrinsicDtypeMap", "Intrinsic_fix_pipe_l0c2out", intrinsic);
    gert::TwinOpInfo op;
    gert::CompileTimeTensorDesc x, w;
    x.dtype_ = ge::DT_FLOAT; w.dtype_ = ge::DT_DOUBLE;
    op.in_names = {"x", "window"}; op.in_desc = {x, w}; op.out_desc = {x};
    gert::InferDataTypeContext ctx;
    ctx.op_ = &op;
    std::printf("%d %d %d %d %d\n", (int)ctx.GetInputDesc(0)->GetDataType(), (int)ctx.GetInputDesc(1)->GetDataType(),
                ctx.GetInputDesc(2) == nullptr, (int)ctx.GetOutputDesc(0)->GetDataType(), ctx.GetOutputDesc(1) == nullptr);
    std::printf("%d\n", (int)has);
    std::printf("%u %u %d %u\n", AscendC::BLOCK_CUBE, AscendC::ONE_BLK_SIZE, AscendC::CUBE_MAX_SIZE, AscendC::TWO_TIMES);
    ge::float32_t f32 = 1.5f; ge::float64_t f64 = 2.5;
    gert::TilingContext tc;
    gert::StorageShape ss({3, 256, 256}, {256, 256, 3});
    std::printf("%lld %lld\n", (long long)ss.GetShape().GetDim(0), (long long)ss.GetStorageShape().GetDim(0));
    std::printf("%zu %zu %g %d\n", sizeof(f32), sizeof(f64), f32 + f64, tc.GetDeterministicLevel());
    std::fflush(stdout);
    p.GetCoreNumByType("VectorCore");
    return 0;
}
"#,
    )
    .unwrap();
    let exe = build_host(&src, "building the host-names check");
    let out = Command::new(exe).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    // ge::DT_FLOAT is 0 and DT_DOUBLE 11 (CANN DataType enumeration).
    assert_eq!(
        stdout,
        "BatchMatMulV3 3\n48 49 50 51 52 53 54 55 FRACTAL_NZ_C0_32 null\n2201 1\n24\n0 11 1 0 1\n0\n16 32 256 2\n3 256\n4 8 4 0\n"
    );
    // A core type the twin has no figure for stops the program, naming the call.
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains("GetCoreNumByType(\"VectorCore\")"),
        "{stderr}"
    );
    // The intrinsic table the twin lacks answers "absent", said once on stderr.
    assert_eq!(
        stderr
            .matches("GetPlatformRes(\"AICoreintrinsicDtypeMap\", \"Intrinsic_fix_pipe_l0c2out\")")
            .count(),
        1,
        "{stderr}"
    );
}

/// The kernel headers under their CANN paths (kernel_type.h, lib/matrix/matmul/matmul.h,
/// lib/pad/kernel_operator_pad_intf.h, the basic API's kernel_basic_intf.h, kernel_operator_mm_intf.h,
/// kernel_operator_fixpipe_intf.h, kernel_operator_data_copy_intf.h, kernel_tpipe.h, kernel_tensor.h)
/// compile, and the CeilDiv / CeilAlign that a Matmul header brings
/// into AscendC compute CANN's way: the 16-bit forms for mixed argument types (70000 wraps to 4464),
/// the CeilAlign template for two arguments of one type. And the global SIXTEEN CANN's TopK header leaks
/// into every 910B kernel, and EIGHT beside it (top_k_top_p_sample uses both). LoadData2dParams is
/// LoadData2DParams, and addrMode takes the CCE names `inc` / `dec`; SuperKernel's WaitPreTaskEnd /
/// SetNextTaskStart compile and change nothing.
#[test]
fn matmul_header_helpers_round_up() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    std::fs::write(
        w.join("launch.cpp"),
        r#"
#include "kernel_operator.h"
#include "kernel_type.h"
#include "lib/matrix/matmul/matmul.h"
#include "lib/pad/kernel_operator_pad_intf.h"
#include "lib/matmul_intf.h"
#include "kernel_basic_intf.h"
#include "kernel_operator_mm_intf.h"
#include "kernel_operator_fixpipe_intf.h"
#include "kernel_operator_data_copy_intf.h"
#include "kernel_tpipe.h"
#include "kernel_tensor.h"
using namespace AscendC;
constexpr uint32_t CUBE_BLOCK = 16;
// the older LoadData2dParams spelling (LoadDataWithSparse.md; ops-math's add_lora) is LoadData2DParams
static_assert(std::is_same<LoadData2dParams, LoadData2DParams>::value, "");
// ops-math's stft: the addrMode values by their CCE names, brace-initialised as it writes them
static_assert(inc == 0 && dec == 1, "");
extern "C" __global__ __aicore__ void gaps(GM_ADDR y) {
    GlobalTensor<uint32_t> yg; yg.SetGlobalBuffer((__gm__ uint32_t *)y, 12);
    uint32_t colNum = 100;
    yg.SetValue(0, CeilDiv(colNum, CUBE_BLOCK));
    yg.SetValue(1, CeilDiv(96u, CUBE_BLOCK));
    yg.SetValue(2, CeilAlign(colNum, 32u));
    yg.SetValue(3, CeilAlign((uint64_t)100000, (uint64_t)64));
    yg.SetValue(4, CeilDiv(70000u, 16u));
    yg.SetValue(5, CeilAlign(70000u, 16));
    yg.SetValue(6, FORMAT_ND);
    yg.SetValue(7, DT_FLOAT16);
    yg.SetValue(8, 96u / SIXTEEN + EIGHT);
    // ops-transformer's mla_prolog: `Align(computeSize, (uint64_t)ALIGN_BLOCK_SIZE)`
    yg.SetValue(9, (uint32_t)Align((uint64_t)100, (uint64_t)8));
    yg.SetValue(10, AlignDown(100u, 8u));
    uint8_t RepeatCeil = 2;
    LoadData2dParams lp = {0, RepeatCeil, 1, 0, 0, false, inc};
    yg.SetValue(11, Align(100u, 0u) + lp.addrMode);
    SetNextTaskStart();
    WaitPreTaskEnd<true>();
}
extern "C" void twin_launch(uint8_t **a) { gaps(a[0]); }
"#,
    )
    .unwrap();
    // -DTWIN_DTYPE_IDS as the tool's kernel build passes it: the DT_* / FORMAT_* numbers kernel_type.h
    // stands for.
    build_launch(w, "gaps", &["-DTWIN_DTYPE_IDS"]);
    let y = u32s(&run_one_output(w, "gaps", 48));
    let ceil_div = |a: u32, b: u32| a.div_ceil(b);
    let w16 = 70000u32 % 65536;
    assert_eq!(
        y,
        vec![
            ceil_div(100, 16),
            ceil_div(96, 16),
            ceil_div(100, 32) * 32,
            ceil_div(100000, 64) * 64,
            ceil_div(w16, 16),
            ceil_div(w16, 16) * 16,
            2, // FORMAT_ND
            1, // DT_FLOAT16
            96 / 16 + 8,
            104, // Align
            96,  // AlignDown
            0,   // Align to 0: 0, as the header defines it
        ]
    );
}

/// The tuning-tiling class registry and the knowledge-bank query that ops-nn's mat_mul_v3 links against
/// (declared by the operator repository's register/tuning_tiling_registry.h and runtime_kb_api.h, defined
/// by the twin's host main): a registered constructor is found again by its op type, an unregistered
/// type answers nullptr, and the twin's empty bank answers "no entry" (non-zero, no tiling). The
/// registrations run before main, so the check runs in a static initializer of a host program linked
/// with the twin's host main, which then stops at its usage message.
#[test]
fn tuning_registry_keeps_registrations_and_the_bank_is_empty() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("tuning.cpp");
    std::fs::write(
        &src,
        r#"
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include "graph/ascend_string.h"
#include "register/register_types.h"
namespace tuningtiling {
class TuningTilingDef { public: virtual ~TuningTilingDef() = default; int v = 7; };
using TuningTilingDefConstructor = std::shared_ptr<TuningTilingDef> (*)();
class FMK_FUNC_HOST_VISIBILITY TuningTilingClassFactory {
public:
    static std::map<ge::AscendString, TuningTilingDefConstructor> &RegisterInfo();
    static void RegisterTilingData(const ge::AscendString &optype, TuningTilingDefConstructor const constructor);
    static std::shared_ptr<TuningTilingDef> CreateTilingDataInstance(const ge::AscendString &optype);
};
}
namespace RuntimeKb {
uint32_t QueryBank(const void *src, size_t src_len, const std::string &op_type, const std::string &soc_version,
                   uint32_t core_num, std::shared_ptr<tuningtiling::TuningTilingDef> &tiling);
}
using namespace tuningtiling;
static std::shared_ptr<TuningTilingDef> make() { return std::make_shared<TuningTilingDef>(); }
static int probe = [] {
    TuningTilingClassFactory::RegisterTilingData("MatMulV3", make);
    auto a = TuningTilingClassFactory::CreateTilingDataInstance("MatMulV3");
    auto b = TuningTilingClassFactory::CreateTilingDataInstance("BatchMatMulV3");
    std::shared_ptr<TuningTilingDef> t = make();
    int key = 3;
    uint32_t r = RuntimeKb::QueryBank(&key, sizeof(key), "MatMulV3", "Ascend910B1", 24, t);
    std::printf("tuning %d %d %d %d %zu\n", a != nullptr && a->v == 7, b == nullptr, r != 0, t == nullptr,
                TuningTilingClassFactory::RegisterInfo().size());
    std::fflush(stdout);
    return 0;
}();
"#,
    )
    .unwrap();
    let twin = twin_dir();
    let exe = dir.path().join("tuning");
    let mut cc = Command::new(compiler());
    cc.args(["-std=c++17", "-w", "-I"])
        .arg(twin.join("include/host"))
        .arg(&src);
    for e in std::fs::read_dir(twin.join("src")).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_str().unwrap().to_string();
        if name.starts_with("host_") && name.ends_with(".cpp") {
            cc.arg(p);
        }
    }
    run_ok(cc.arg("-o").arg(&exe), "building the tuning-registry check");
    let out = Command::new(&exe).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.starts_with("tuning 1 1 1 1 1\n"), "{stdout}");
}

/// A host tiling header that the kernel build includes (ops-nn's flat_quant: `NpuArch npuArch =
/// NpuArch::DAV_2201;` after including tiling/platform/platform_ascendc.h) parses against the kernel
/// headers too, with the host's architecture numbers.
#[test]
fn kernel_side_platform_header_names_npu_arch() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("arch.cpp");
    std::fs::write(
        &src,
        "#include \"tiling/platform/platform_ascendc.h\"\n\
         struct CompileInfo { NpuArch npuArch = NpuArch::DAV_2201; };\n\
         static_assert(static_cast<unsigned>(CompileInfo{}.npuArch) == 2201, \"DAV_2201\");\n\
         static_assert(static_cast<unsigned>(NpuArch::DAV_3510) == 3510, \"DAV_3510\");\n",
    )
    .unwrap();
    run_ok(
        Command::new(compiler())
            .args(["-std=c++17", "-w", "-fsyntax-only", "-I"])
            .arg(twin_dir().join("include/kernel"))
            .arg(&src),
        "parsing the kernel-side platform header",
    );
}

/// GetScalarBitcodeValue gives a scalar's bits, not its value (ops-cv's grid_sampler2_d_grad sets
/// DataCopyPad's padding value with it): one type, the bits as a uint64_t with nothing above the
/// scalar's bytes; two types, the first's bits read as the second. Bits worked out by hand from IEEE
/// 754: half 1.0 is 0x3C00, float -2.0 is 0xC0000000, half 0x4000 is 2.0.
#[test]
fn scalar_bitcode_values_are_bits() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    std::fs::write(
        w.join("launch.cpp"),
        r#"
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void bits(GM_ADDR y) {
    GlobalTensor<uint32_t> yg; yg.SetGlobalBuffer((__gm__ uint32_t *)y, 6);
    uint64_t h = GetScalarBitcodeValue((half)1.0f);
    uint64_t f = GetScalarBitcodeValue(-2.0f);
    yg.SetValue(0, (uint32_t)h);
    yg.SetValue(1, (uint32_t)(h >> 32));
    yg.SetValue(2, (uint32_t)f);
    yg.SetValue(3, (uint32_t)(f >> 32));
    yg.SetValue(4, (uint32_t)(float)GetScalarBitcodeValue<uint16_t, half>(0x4000));
    yg.SetValue(5, GetScalarBitcodeValue<float, uint32_t>(1.0f));
}
extern "C" void twin_launch(uint8_t **a) { bits(a[0]); }
"#,
    )
    .unwrap();
    build_launch(w, "bits", &[]);
    let y = u32s(&run_one_output(w, "bits", 24));
    assert_eq!(y, vec![0x3C00, 0, 0xC000_0000, 0, 2, 0x3F80_0000]);
}
