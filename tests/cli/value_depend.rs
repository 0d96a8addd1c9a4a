//! Value-dependent tiling inputs end to end: a small op whose tiling function reads two scalar
//! inputs' data (one marked `.ValueDepend` in its OpDef, one by `TilingInputsDataDependency`), with
//! the values pinned by `values = [...]` in ascend.toml; an input it does not declare gives it nullptr,
//! as on the device. Also: the tiling program still reads the older spec with no data files.

use super::*;

const MANIFEST: &str = r#"
[project]
soc = "Ascend910B1"

[[op]]
name = "scale_shift"
type = "ScaleShift"
host = ["op_host/scale_shift.cpp"]
kernel = ["op_kernel/scale_shift.cpp"]
tiling-header = "op_host/scale_shift_tiling.h"

[[op.input]]
name = "x"
dtype = "float32"
shape = [1024]
range = [-4.0, 4.0]

[[op.input]]
name = "scale"
dtype = "float32"
shape = []
values = [2.5]

[[op.input]]
name = "shift"
dtype = "int64"
shape = [1]
values = [-3]

[[op.output]]
name = "y"
dtype = "float32"
shape = [1024]
"#;

const TILING_H: &str = r#"
#ifndef SCALE_SHIFT_TILING_H
#define SCALE_SHIFT_TILING_H
#include "register/tilingdata_base.h"
namespace optiling {
BEGIN_TILING_DATA_DEF(ScaleShiftTiling)
TILING_DATA_FIELD_DEF(uint32_t, length);
TILING_DATA_FIELD_DEF(float, scale);
TILING_DATA_FIELD_DEF(float, shift);
TILING_DATA_FIELD_DEF(float, xSeen);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(ScaleShift, ScaleShiftTiling)
}
#endif
"#;

// `scale` is value-dependent by its OpDef, `shift` by the tiling registration; `x` is neither, so
// its data pointer must be null (xSeen then stays 0 and the output is exactly x * scale + shift).
const HOST: &str = r#"
#include "scale_shift_tiling.h"
#include "register/op_def_registry.h"
#include "register/op_impl_registry.h"
namespace optiling {
static ge::graphStatus Tiling(gert::TilingContext *ctx)
{
    const gert::Tensor *scale = ctx->GetInputTensor(1);
    const gert::Tensor *shift = ctx->GetInputTensor(2);
    if (scale == nullptr || shift == nullptr || scale->GetData<float>() == nullptr ||
        shift->GetData<int64_t>() == nullptr)
        return ge::GRAPH_FAILED;
    ScaleShiftTiling t;
    t.set_length(ctx->GetInputShape(0)->GetStorageShape().GetShapeSize());
    t.set_scale(*scale->GetData<float>());
    t.set_shift((float)*shift->GetData<int64_t>());
    t.set_xSeen(ctx->GetInputTensor(0)->GetData<float>() != nullptr ? 1000.0f : 0.0f);
    ctx->SetBlockDim(1);
    t.SaveToBuffer(ctx->GetRawTilingData()->GetData(), ctx->GetRawTilingData()->GetCapacity());
    ctx->GetRawTilingData()->SetDataSize(t.GetDataSize());
    ctx->GetWorkspaceSizes(1)[0] = 0;
    return ge::GRAPH_SUCCESS;
}
IMPL_OP_OPTILING(ScaleShift).TilingInputsDataDependency({2});
}
namespace ops {
class ScaleShift : public OpDef {
public:
    explicit ScaleShift(const char *name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Input("scale").ParamType(REQUIRED).ValueDepend(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Input("shift").ParamType(REQUIRED).DataType({ge::DT_INT64}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->AICore().SetTiling(optiling::Tiling);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(ScaleShift);
}
"#;

const KERNEL: &str = r#"
#include "kernel_operator.h"
extern "C" __global__ __aicore__ void scale_shift(GM_ADDR x, GM_ADDR scale, GM_ADDR shift, GM_ADDR y,
                                                  GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, t.length * sizeof(float));
    AscendC::GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float *)x, t.length);
    yGm.SetGlobalBuffer((__gm__ float *)y, t.length);
    AscendC::LocalTensor<float> v = buf.Get<float>();
    AscendC::DataCopy(v, xGm, t.length);
    AscendC::PipeBarrier<PIPE_ALL>();
    AscendC::Muls(v, v, t.scale, t.length);
    AscendC::Adds(v, v, t.shift + t.xSeen, t.length);
    AscendC::PipeBarrier<PIPE_ALL>();
    AscendC::DataCopy(yGm, v, t.length);
}
"#;

fn scale_shift_project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::create_dir_all(p.join("op_host")).unwrap();
    std::fs::create_dir_all(p.join("op_kernel")).unwrap();
    std::fs::write(p.join("ascend.toml"), MANIFEST).unwrap();
    std::fs::write(p.join("op_host/scale_shift_tiling.h"), TILING_H).unwrap();
    std::fs::write(p.join("op_host/scale_shift.cpp"), HOST).unwrap();
    std::fs::write(p.join("op_kernel/scale_shift.cpp"), KERNEL).unwrap();
    dir
}

#[test]
fn a_value_dependent_tiling_reads_the_pinned_scalar_inputs_and_only_those() {
    let dir = scale_shift_project();
    let (manifest, backend) = open_project(dir.path());
    let op = manifest.ops[0].clone();
    let inputs = ascend_tune::tune::inputs(&op);
    let artifact = backend
        .build(&op, &Default::default())
        .unwrap_or_else(|f| panic!("{}", f.message));
    let m = backend
        .run(&op, &artifact, &inputs, false)
        .unwrap_or_else(|f| panic!("{}", f.message));
    let x = decode(op.inputs[0].dtype, &inputs.tensors[0]);
    let want: Vec<f64> = x
        .iter()
        .map(|v| ((*v as f32) * 2.5f32 + (-3.0f32)) as f64)
        .collect();
    assert_close(
        "y",
        &decode(op.outputs[0].dtype, &m.outputs[0]),
        &want,
        1e-6,
        1e-6,
    );

    // The tiling program itself: reading x's data, which the op does not declare, is warned about.
    let soc = ascend_tune::model::soc::lookup("Ascend910B1").unwrap();
    let tiling = |files: &[&Path]| {
        let spec = dir.path().join("t.spec");
        std::fs::write(
            &spec,
            ascend_tune::twin::protocol::tiling_spec(&op, soc, files),
        )
        .unwrap();
        std::process::Command::new(&artifact.host)
            .arg(&spec)
            .arg(dir.path().join("t.out"))
            .output()
            .unwrap()
    };
    let data_dir = dir.path().join("data");
    std::fs::create_dir_all(&data_dir).unwrap();
    let files: Vec<PathBuf> = op
        .inputs
        .iter()
        .zip(&inputs.tensors)
        .map(|(t, bytes)| {
            let p = data_dir.join(format!("{}.bin", t.name));
            std::fs::write(&p, bytes).unwrap();
            p
        })
        .collect();
    let refs: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    let out = tiling(&refs);
    assert!(out.status.success(), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("read the data of input 'x'") && !stderr.contains("'scale'"),
        "{stderr}"
    );
    // A data file of the wrong size is an I/O error naming the input and the file.
    std::fs::write(&files[1], [0u8; 3]).unwrap();
    let out = tiling(&refs);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("input 'scale'"),
        "{out:?}"
    );

    // The older spec, without data files: the tiling function finds no data and fails, cleanly.
    let out = tiling(&[]);
    assert_eq!(out.status.code(), Some(4), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("GRAPH_FAILED"),
        "{out:?}"
    );
}

#[test]
fn run_prints_the_modelled_latency_of_a_value_dependent_op() {
    let dir = scale_shift_project();
    let out = cargo_ascend_tune(dir.path(), &["run"]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("scale_shift:"), "{stdout}");
}
