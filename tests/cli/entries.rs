//! Operators whose shape the tool used to refuse or could not build, as public operators write them:
//! kernel entries with C++ linkage (in namespaces too), a kernel that leaves its tiling-key header to
//! the build, an output named like an input, and an op with no output. Each is a small variant of the
//! add_custom fixture built in a temp folder.

use super::*;
use ascend_tune::backend::SourceSet;
use half::f16;

const EXTERN_ENTRY: &str = "extern \"C\" __global__ __aicore__ void add_custom(";

/// add_custom on a small shape, with `edit` applied to its kernel and `toml` to its manifest, committed.
fn add_variant(
    edit: impl Fn(String) -> String,
    toml: impl Fn(String) -> String,
) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&Path::new(FIXTURES).join("add_custom"), dir.path());
    let kernel = dir.path().join("op_kernel/add_custom.cpp");
    let text = std::fs::read_to_string(&kernel).unwrap();
    let edited = edit(text.clone());
    assert_ne!(edited, text, "the edit changed nothing");
    std::fs::write(&kernel, edited).unwrap();
    let manifest = dir.path().join("ascend.toml");
    let m = std::fs::read_to_string(&manifest)
        .unwrap()
        .replace("shape = [48, 16384]", "shape = [8, 2048]");
    std::fs::write(&manifest, toml(m)).unwrap();
    git(dir.path(), &["init", "-q"]);
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-q", "-m", "variant"]);
    dir
}

fn f16s(bytes: &[u8]) -> Vec<f64> {
    bytes
        .chunks_exact(2)
        .map(|c| f16::from_le_bytes([c[0], c[1]]).to_f64())
        .collect()
}

/// Builds and runs the op in `dir` through the library and checks z = x + y (fp16, rounded).
fn assert_adds(dir: &Path) {
    let (manifest, b) = open_project(dir);
    let op = &manifest.ops[0];
    let inputs = ascend_tune::tune::inputs(op);
    let artifact = b
        .build(op, &SourceSet::default())
        .unwrap_or_else(|f| panic!("{}", f.message));
    let m = b
        .run(op, &artifact, &inputs, false)
        .unwrap_or_else(|f| panic!("{}", f.message));
    let (x, y, z) = (
        f16s(&inputs.tensors[0]),
        f16s(&inputs.tensors[1]),
        f16s(&m.outputs[0]),
    );
    let want: Vec<f64> = x
        .iter()
        .zip(&y)
        .map(|(a, b)| f16::from_f64(a + b).to_f64())
        .collect();
    assert_close("z", &z, &want, 0.0, 0.0);
}

/// An entry with C++ linkage (neither `extern "C"` nor a template) builds, runs and computes: the
/// launch file includes the kernel source instead of declaring the entry `extern "C"`.
#[test]
fn cpp_linkage_entry_runs() {
    let dir = add_variant(
        |k| k.replace(EXTERN_ENTRY, "__global__ __aicore__ void add_custom("),
        |m| m,
    );
    assert_adds(dir.path());
    let out = cargo_ascend_tune(dir.path(), &["run", "--message-format", "json"]);
    assert!(out.status.success(), "{:?}", text(&out));
    assert!(
        records(&out)
            .iter()
            .any(|r| r["reason"] == "op-measured" && r["op"] == "add_custom"),
        "{:?}",
        text(&out)
    );
}

/// The device compiler defines the core's generation before a kernel's first line (ops-cv's
/// grid_sampler2_d_grad picks its A2 headers with `#if __CCE_AICORE__ == 220` above every include, its
/// other branch including arch35 SIMT headers the twin does not have): the twin's build does too.
#[test]
fn core_generation_is_defined_before_the_first_include() {
    let dir = add_variant(
        |k| {
            format!(
                "#if __CCE_AICORE__ != 220 || __NPU_ARCH__ != 2201\n#include \"arch35/simt_only.h\"\n#endif\n{k}"
            )
        },
        |m| m,
    );
    assert_adds(dir.path());
}

/// CANN's installed paths of the Matmul configuration header, `lib/matrix/matmul/tiling.h`
/// (ops-transformer's mla_prolog_comm.h includes it beside lib/matmul_intf.h) and asc-devkit's
/// `adv_api/matmul/tiling.h`, give MatmulConfig's makers: the twin answers both (templates/twin_aliases.txt).
#[test]
fn matmul_config_header_paths_give_the_config_makers() {
    let dir = add_variant(
        |k| {
            format!(
                "#include \"lib/matrix/matmul/tiling.h\"\n#include \"adv_api/matmul/tiling.h\"\n\
                 static_assert(!AscendC::GetMDLConfig().enUnitFlag, \"MDL leaves UnitFlag off\");\n{k}"
            )
        },
        |m| m,
    );
    assert_adds(dir.path());
}

/// An entry in a namespace is called by its qualified name.
#[test]
fn namespaced_entry_runs() {
    let dir = add_variant(
        |k| {
            k.replace(
                EXTERN_ENTRY,
                "namespace ops { namespace vec {\n__global__ __aicore__ void add_custom(",
            ) + "\n} }\n"
        },
        |m| m,
    );
    assert_adds(dir.path());
}

/// The twin's toy template op (y = x * factor, instance picked by the tiling key) in a temp folder,
/// with `edit` applied to its kernel.
fn tpl_variant(edit: impl Fn(String) -> String) -> tempfile::TempDir {
    let dir = tpl_op_project(4, 512, "");
    let kernel = dir.path().join("op_kernel/tpl_op.cpp");
    let text = std::fs::read_to_string(&kernel).unwrap();
    let edited = edit(text.clone());
    assert_ne!(edited, text, "the edit changed nothing");
    std::fs::write(&kernel, edited).unwrap();
    dir
}

/// A template kernel that includes its tiling-key header only outside CPU debug builds (the twin is
/// one) still runs: the launch file includes the header, as the device build would see it.
#[test]
fn template_kernel_without_its_tiling_key_include_runs() {
    let dir = tpl_variant(|k| {
        k.replace(
            "#include \"tiling_key_tpl_op.h\"",
            "#if !defined(ASCENDC_CPU_DEBUG)\n#include \"tiling_key_tpl_op.h\"\n#endif",
        )
    });
    let (manifest, b) = open_project(dir.path());
    let op = &manifest.ops[0];
    let inputs = ascend_tune::tune::inputs(op);
    let artifact = b
        .build(op, &SourceSet::default())
        .unwrap_or_else(|f| panic!("{}", f.message));
    let m = b
        .run(op, &artifact, &inputs, false)
        .unwrap_or_else(|f| panic!("{}", f.message));
    let want: Vec<f64> = f16s(&inputs.tensors[0])
        .iter()
        .map(|x| f16::from_f64(x * 4.0).to_f64())
        .collect();
    assert_close("y", &f16s(&m.outputs[0]), &want, 0.0, 0.0);
}

/// An output named like an input (an in-place update): the kernel sees DTYPE_X_REF for it, as CANN's
/// build defines it, the op runs and computes, and the lockfile keys its shape by `x_ref`.
#[test]
fn output_named_like_an_input_runs_and_locks() {
    let dir = add_variant(
        |k| k.replace("DTYPE_Z", "DTYPE_X_REF"),
        |m| m.replace("name = \"z\"", "name = \"x\""),
    );
    assert_adds(dir.path());
    let out = cargo_ascend_tune(
        dir.path(),
        &["tune", "--budget", "2", "--seed", "1", "--allow-dirty"],
    );
    assert!(out.status.success(), "{:?}", text(&out));
    let lock = std::fs::read_to_string(dir.path().join("ascend-tune.lock")).unwrap();
    assert!(
        lock.contains("shape = \"x:float16[8,2048] y:float16[8,2048] x_ref:float16[8,2048]\""),
        "{lock}"
    );
}

/// A tiny op with no tensors at all (its kernel only works in UB, then waits on the system counter, as
/// a timing op would): block count and rounds from the tiling, one tunable.
fn no_output_project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    let files = [
        (
            "op_host/spin_tiling.h",
            r#"#pragma once
#include "register/tilingdata_base.h"
namespace optiling {
BEGIN_TILING_DATA_DEF(SpinTilingData)
TILING_DATA_FIELD_DEF(uint32_t, rounds);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(Spin, SpinTilingData)
}
"#,
        ),
        (
            "op_host/spin.cpp",
            r#"#include "spin_tiling.h"
#include "register/op_def_registry.h"
namespace optiling {
const uint32_t BLOCK_DIM = 4;
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
    SpinTilingData tiling;
    tiling.set_rounds(static_cast<uint32_t>(*context->GetAttrs()->GetInt(0)));
    context->SetBlockDim(BLOCK_DIM);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    context->GetWorkspaceSizes(1)[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}
namespace ops {
class Spin : public OpDef {
public:
    explicit Spin(const char *name) : OpDef(name)
    {
        this->Attr("rounds").AttrType(REQUIRED).Int();
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(Spin);
}
"#,
        ),
        (
            "op_kernel/spin.cpp",
            r#"#include "kernel_operator.h"
extern "C" __global__ __aicore__ void spin(GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(td, tiling);
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 256);
    AscendC::LocalTensor<float> t = buf.Get<float>();
    for (uint32_t i = 0; i < td.rounds; i++) {
        AscendC::Duplicate(t, static_cast<float>(i), 64);
    }
    // Then wait 100 ticks of the 50 MHz system counter: 2 us.
    int64_t until = AscendC::GetSystemCycle() + 100;
    while (AscendC::GetSystemCycle() < until) {
    }
}
"#,
        ),
        (
            "ascend.toml",
            r#"[project]
soc = "Ascend910B1"

[[op]]
name = "spin"
type = "Spin"
host = ["op_host/spin.cpp"]
kernel = ["op_kernel/spin.cpp"]
tiling-header = "op_host/spin_tiling.h"

[[op.attr]]
name = "rounds"
value = 16

[[op.tunable]]
name = "block_dim"
file = "op_host/spin.cpp"
symbol = "BLOCK_DIM"
values = [1, 2, 4, 8]
"#,
        ),
    ];
    for (rel, text) in files {
        let path = p.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    commit_all(p, "spin");
    dir
}

/// An op with no output runs and is measured; `run` and `tune` say that nothing of its results is
/// verified instead of implying a check passed.
#[test]
fn op_without_outputs_runs_and_says_nothing_is_verified() {
    let dir = no_output_project();
    let p = dir.path();
    let out = cargo_ascend_tune(p, &["run", "--message-format", "json"]);
    assert!(out.status.success(), "{:?}", text(&out));
    let recs = records(&out);
    let m = recs
        .iter()
        .find(|r| r["reason"] == "op-measured")
        .unwrap_or_else(|| panic!("{:?}", text(&out)));
    assert_eq!(
        (m["op"].as_str(), m["block_dim"].as_u64()),
        (Some("spin"), Some(4))
    );
    // The wait on the system counter is modelled as the 2 us it asks for.
    let latency = m["latency_us"].as_f64().unwrap();
    assert!((2.0..3.0).contains(&latency), "{m}");
    let unverified = |recs: &[serde_json::Value]| {
        recs.iter().any(|r| {
            r["reason"] == "warning"
                && r["message"].as_str().is_some_and(|s| {
                    s.contains("op `spin` has no outputs, so nothing of its results is verified")
                })
        })
    };
    assert!(unverified(&recs), "{recs:?}");

    let human = cargo_ascend_tune(p, &["run"]);
    assert!(human.status.success(), "{:?}", text(&human));
    assert!(
        text(&human).1.contains("warning: op `spin` has no outputs"),
        "{:?}",
        text(&human)
    );

    let out = cargo_ascend_tune(
        p,
        &[
            "tune",
            "--budget",
            "3",
            "--seed",
            "1",
            "--message-format",
            "json",
        ],
    );
    assert!(out.status.success(), "{:?}", text(&out));
    let recs = records(&out);
    assert!(unverified(&recs), "{recs:?}");
    assert!(recs.iter().any(|r| r["reason"] == "op-tuned"), "{recs:?}");
}
