//! `init` on a project without a manifest writes one that `tune` runs at once.

use super::*;

#[test]
fn init_then_tune() {
    let dir = project("add_custom");
    let p = dir.path();
    std::fs::remove_file(p.join("ascend.toml")).unwrap();
    git(p, &["commit", "-q", "-am", "no manifest"]);
    let out = cargo_ascend_tune(
        p,
        &[
            "init",
            "--shape",
            "x=48x16384",
            "--shape",
            "y=48x16384",
            "--shape",
            "z=48x16384",
        ],
    );
    assert!(out.status.success(), "{:?}", text(&out));
    let manifest = std::fs::read_to_string(p.join("ascend.toml")).unwrap();
    for needle in [
        "name = \"add_custom\"",
        "type = \"AddCustom\"",
        "symbol = \"BLOCK_DIM\"",
        "symbol = \"TILE_LENGTH\"",
        "symbol = \"BUFFER_NUM\"",
        // The constraints tune derives from the kernel, shown to the user.
        "# tune also checks these constraints",
        "#   UB capacity: 3 * (buffer_num * ",
    ] {
        assert!(
            manifest.contains(needle),
            "{needle} missing from\n{manifest}"
        );
    }
    // init refuses to overwrite without --force.
    let again = cargo_ascend_tune(p, &["init"]);
    assert_eq!(again.status.code(), Some(2));
    git(p, &["add", "ascend.toml"]);
    git(p, &["commit", "-q", "-m", "manifest from init"]);
    let out = cargo_ascend_tune(
        p,
        &[
            "tune",
            "--budget",
            "8",
            "--seed",
            "2",
            "--message-format",
            "json",
        ],
    );
    assert!(out.status.success(), "{:?}", text(&out));
    let derived = records(&out)
        .into_iter()
        .find(|r| r["reason"] == "derived-constraints")
        .expect("derived-constraints");
    assert!(
        derived["constraints"]
            .as_array()
            .is_some_and(|c| c.len() >= 3),
        "{derived}"
    );
    let tuned = records(&out)
        .into_iter()
        .find(|r| r["reason"] == "op-tuned")
        .expect("op-tuned");
    assert!(tuned["speedup"].as_f64().unwrap() > 1.0, "{tuned}");
}

/// `init` finds kernel entries whatever their linkage: one with C++ linkage (the manifest it writes
/// runs at once) and a template one.
#[test]
fn init_finds_cpp_linkage_and_template_entries() {
    let dir = project("add_custom");
    let p = dir.path();
    std::fs::remove_file(p.join("ascend.toml")).unwrap();
    let kernel = p.join("op_kernel/add_custom.cpp");
    let source = std::fs::read_to_string(&kernel).unwrap();
    let cpp = source.replace(
        "extern \"C\" __global__ __aicore__ void add_custom(",
        "__global__ __aicore__ void add_custom(",
    );
    assert_ne!(cpp, source);
    std::fs::write(&kernel, cpp).unwrap();
    let out = cargo_ascend_tune(
        p,
        &[
            "init", "--shape", "x=8x2048", "--shape", "y=8x2048", "--shape", "z=8x2048",
        ],
    );
    assert!(out.status.success(), "{:?}", text(&out));
    let manifest = std::fs::read_to_string(p.join("ascend.toml")).unwrap();
    assert!(manifest.contains("name = \"add_custom\""), "{manifest}");
    let run = cargo_ascend_tune(p, &["run"]);
    assert!(run.status.success(), "{:?}", text(&run));

    let tpl = tempfile::tempdir().unwrap();
    copy_tree(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("templates/twin/tests/tpl_op"),
        tpl.path(),
    );
    let out = cargo_ascend_tune(tpl.path(), &["init"]);
    assert!(out.status.success(), "{:?}", text(&out));
    let manifest = std::fs::read_to_string(tpl.path().join("ascend.toml")).unwrap();
    for needle in [
        "name = \"tpl_op\"",
        "kernel = [\"op_kernel/tpl_op.cpp\"]",
        // Without an op json, the GM parameters name the tensors.
        "[[op.input]]\nname = \"x\"",
        "[[op.output]]\nname = \"y\"",
    ] {
        assert!(
            manifest.contains(needle),
            "{needle} missing from\n{manifest}"
        );
    }
}

/// In the ops-math / ops-nn layout the tiling function is registered apart from the OpDef
/// (`IMPL_OP_OPTILING(Type)` in its own file): `init` lists that file among the host sources, so the
/// tiling program has its tiling function.
#[test]
fn init_finds_a_tiling_function_registered_apart_from_the_opdef() {
    let dir = project("add_custom");
    let p = dir.path();
    std::fs::remove_file(p.join("ascend.toml")).unwrap();
    std::fs::write(
        p.join("op_host/add_custom_tiling_impl.cpp"),
        "// stands for a file registering the tiling function (a comment naming it is no registration)\n\
         // IMPL_OP_OPTILING(Other).Tiling(F);\nnamespace optiling {\nIMPL_OP_OPTILING(AddCustom).Tiling(TilingFunc);\n}\n",
    )
    .unwrap();
    std::fs::write(p.join("op_host/unrelated.cpp"), "int unrelated = 0;\n").unwrap();
    let out = cargo_ascend_tune(p, &["init"]);
    assert!(out.status.success(), "{:?}", text(&out));
    let manifest = std::fs::read_to_string(p.join("ascend.toml")).unwrap();
    assert!(
        manifest.contains(
            "host = [\"op_host/add_custom.cpp\", \"op_host/add_custom_tiling_impl.cpp\"]"
        ),
        "{manifest}"
    );
}

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// `init` reads the OpDef as CANN does, without the op json: tensors named and typed by the OpDef
/// (not by the kernel's parameters), the SoC from `AddConfig`; the manifest runs unedited.
#[test]
fn init_reads_the_opdef_without_an_op_json_and_runs() {
    let dir = project("add_custom");
    let p = dir.path();
    std::fs::remove_file(p.join("ascend.toml")).unwrap();
    std::fs::remove_file(p.join("add_custom.json")).unwrap();
    // Kernel parameters renamed: the OpDef's names must win.
    let kernel = p.join("op_kernel/add_custom.cpp");
    let source = std::fs::read_to_string(&kernel).unwrap();
    let renamed = source.replacen(
        "void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z",
        "void add_custom(GM_ADDR a, GM_ADDR b, GM_ADDR c",
        1,
    );
    assert_ne!(
        renamed, source,
        "the fixture's entry changed; update this test"
    );
    std::fs::write(
        &kernel,
        renamed.replacen("op.Init(x, y, z", "op.Init(a, b, c", 1),
    )
    .unwrap();
    let out = cargo_ascend_tune(p, &["init", "--shape", "x=8x2048"]);
    assert!(out.status.success(), "{:?}", text(&out));
    let manifest = std::fs::read_to_string(p.join("ascend.toml")).unwrap();
    for needle in [
        "soc = \"Ascend910B1\"   # from the OpDef's AddConfig(\"ascend910b\")",
        "[[op.input]]\nname = \"x\"\ndtype = \"float16\"\nshape = [8, 2048]\n",
        "[[op.input]]\nname = \"y\"\ndtype = \"float16\"\nshape = [8, 2048]\n",
        "[[op.output]]\nname = \"z\"\ndtype = \"float16\"\nshape = [8, 2048]   # from the op's InferShape",
    ] {
        assert!(
            manifest.contains(needle),
            "{needle} missing from\n{manifest}"
        );
    }
    assert!(!manifest.contains("name = \"a\""), "{manifest}");
    let run = cargo_ascend_tune(p, &["run"]);
    assert!(run.status.success(), "{:?}", text(&run));
}

/// An operator in the ops-math / ops-nn layout, written here: OpDef apart from its tiling (one for
/// the 910B, one in `arch35/`), two kernel files defining one entry, a header two folders up, a bool
/// output, per-channel and value-dependent inputs, attrs with and without defaults, and SoC configs.
#[test]
fn init_reads_an_ops_repository_operator_as_cann_does() {
    let repo = tempfile::tempdir().unwrap();
    let r = repo.path();
    write(r, "CMakeLists.txt", "");
    write(r, "common/inc/foo_util/helper.h", "#pragma once\n");
    let op = r.join("norm/masked_norm");
    write(&op, "CMakeLists.txt", "");
    write(
        &op,
        "op_host/masked_norm_def.cpp",
        r#"#include "register/op_def_registry.h"
namespace ops {
class MaskedNorm : public OpDef {
public:
    explicit MaskedNorm(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT16}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("gamma").ParamType(OPTIONAL).DataType({ge::DT_FLOAT, ge::DT_FLOAT16});
        this->Input("axis").ParamType(REQUIRED).DataType({ge::DT_INT32, ge::DT_INT32}).ValueDepend(REQUIRED);
        this->Output("mask").ParamType(REQUIRED).DataType({ge::DT_BOOL, ge::DT_BOOL});
        this->Output("rstd").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT});
        this->Input("var").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT16});
        this->Output("var").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT16});
        this->Attr("epsilon").AttrType(OPTIONAL).Float(0.5);
        this->Attr("groups").AttrType(REQUIRED).Int();
        this->AICore().AddConfig("ascend910_93");
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(MaskedNorm);
}
"#,
    );
    write(
        &op,
        "op_host/masked_norm_tiling.cpp",
        "#include \"foo_util/helper.h\"\nnamespace optiling {\nIMPL_OP_OPTILING(MaskedNorm).Tiling(TilingFunc);\n}\n",
    );
    write(
        &op,
        "op_host/arch35/masked_norm_tiling_arch35.cpp",
        "namespace optiling {\nIMPL_OP_OPTILING(MaskedNorm).Tiling(TilingFunc950);\n}\n",
    );
    let entry = "extern \"C\" __global__ __aicore__ void masked_norm(GM_ADDR in0, GM_ADDR in1, GM_ADDR in2, GM_ADDR in3, GM_ADDR out0, GM_ADDR out1, GM_ADDR out2, GM_ADDR workspace, GM_ADDR tiling) {}\n";
    write(&op, "op_kernel/masked_norm.cpp", entry);
    write(&op, "op_kernel/arch35/masked_norm.cpp", entry);
    let out = cargo_ascend_tune(&op, &["init", "--shape", "x=4x256"]);
    assert!(out.status.success(), "{:?}", text(&out));
    let manifest = std::fs::read_to_string(op.join("ascend.toml")).unwrap();
    for needle in [
        "soc = \"Ascend910B1\"   # from the OpDef's AddConfig(\"ascend910b\")",
        "include = [\"../../common/inc\"]",
        "host = [\"op_host/masked_norm_def.cpp\", \"op_host/masked_norm_tiling.cpp\"]",
        "kernel = [\"op_kernel/masked_norm.cpp\"]",
        "name = \"x\"\ndtype = \"float32\"\nshape = [4, 256]\n",
        "name = \"gamma\"\ndtype = \"float32\"\nshape = [256]   # guess:",
        "name = \"axis\"\ndtype = \"int32\"\nshape = [1]   # guess:",
        "values = [1]",
        "name = \"mask\"\ndtype = \"bool\"\nshape = [4, 256]",
        "name = \"rstd\"\ndtype = \"float32\"\nshape = [4, 1]",
        // An in-place output named like a per-row statistic keeps its input's shape.
        "[[op.output]]\nname = \"var\"\ndtype = \"float32\"\nshape = [4, 256]\n",
        "[[op.attr]]\nname = \"epsilon\"\nvalue = 0.5\n",
        "[[op.attr]]\nname = \"groups\"\nvalue = 1   # guess: attr `groups` required",
    ] {
        assert!(
            manifest.contains(needle),
            "{needle:?} missing from\n{manifest}"
        );
    }
    // One [[op]] although two kernel files define the entry; the kernel's parameter names are not tensors.
    assert_eq!(manifest.matches("[[op]]").count(), 1, "{manifest}");
    assert!(!manifest.contains("in0"), "{manifest}");
    // The manifest loads as it is, and init lists its guesses when it ends.
    let (_, err) = text(&out);
    assert!(
        err.contains("Guessed masked_norm: attr `groups` required"),
        "{err}"
    );
    assert!(err.contains("guess(es) above"), "{err}");
    let check = ascend_tune::manifest::Manifest::load(&op.join("ascend.toml"));
    assert!(check.is_ok(), "{:?}", check.err());
}

/// `init` takes kernel-launch projects and CANN 9 `.asc` programs: the layout, the program its
/// CMake builds, the kernel entry; tensors from the entry's parameters only when the program trades
/// in `.bin` files, none when it makes and checks its own data.
#[test]
fn init_takes_asc_programs_and_kernel_launch_projects() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&fixtures.join("mul_asc"), dir.path());
    std::fs::remove_file(dir.path().join("ascend.toml")).unwrap();
    let out = cargo_ascend_tune(dir.path(), &["init"]);
    assert!(out.status.success(), "{:?}", text(&out));
    let manifest = std::fs::read_to_string(dir.path().join("ascend.toml")).unwrap();
    for needle in [
        "layout = \"kernel-launch\"",
        "name = \"mul_custom\"\nkernel = [\"mul_custom.asc\"]\nprogram = \"mul_custom\"",
        "[[op.output]]\nname = \"z\"",
    ] {
        assert!(
            manifest.contains(needle),
            "{needle:?} missing from\n{manifest}"
        );
    }
    assert!(!manifest.contains("reference/"), "{manifest}");
    assert!(ascend_tune::manifest::Manifest::load(&dir.path().join("ascend.toml")).is_ok());

    // A program that makes its own data: no tensors, and init says so.
    let own = tempfile::tempdir().unwrap();
    write(
        own.path(),
        "CMakeLists.txt",
        "find_package(ASC REQUIRED)\nproject(demo_project LANGUAGES ASC CXX)\nadd_executable(${PROJECT_NAME}\n    demo.asc\n)\n",
    );
    write(
        own.path(),
        "demo.asc",
        "__global__ __aicore__ void scale(GM_ADDR x, GM_ADDR y) {}\nint main() { /* makes x, checks y */ return 0; }\n",
    );
    let out = cargo_ascend_tune(own.path(), &["init"]);
    assert!(out.status.success(), "{:?}", text(&out));
    let manifest = std::fs::read_to_string(own.path().join("ascend.toml")).unwrap();
    assert!(
        manifest.contains("program = \"demo_project\""),
        "{manifest}"
    );
    assert!(!manifest.contains("[[op.input]]"), "{manifest}");
    assert!(text(&out).1.contains("no tensors"), "{:?}", text(&out));
}
/// `init` leaves out what a kernel engineer would not tune, saying why: an alignment unit, and (found by
/// building and running once with it moved) a tile cap that the declared shape never reaches and a
/// bound the tiling checks the shape against (silu_mul's `LENGTH_1024`: smaller fails, larger does
/// nothing, yet the search spent trials on it and wrote 65536 back). The
/// manifest it writes keeps the tunables that decide the tiling.
#[test]
fn init_leaves_out_alignment_units_and_literals_that_change_nothing() {
    let dir = project("add_custom");
    let p = dir.path();
    std::fs::remove_file(p.join("ascend.toml")).unwrap();
    let host = p.join("op_host/add_custom.cpp");
    let source = std::fs::read_to_string(&host).unwrap();
    let edited = source
        .replace(
            "const uint32_t TILE_LENGTH = 256; // elements each block moves per tile",
            "const uint32_t TILE_LENGTH = 256; // elements each block moves per tile\n\
             const uint32_t BLOCK_SIZE = 32;\nconst uint32_t MAX_TILE_LENGTH = 1048576;\n\
             const uint32_t LENGTH_16384 = 16384;",
        )
        .replace(
            "    context->SetBlockDim(BLOCK_DIM);",
            "    if (context->GetInputShape(0)->GetOriginShape().GetDim(1) > LENGTH_16384) {\n\
             \x20       return ge::GRAPH_FAILED;\n\
             \x20   }\n\
             \x20   context->SetBlockDim(BLOCK_DIM);",
        )
        .replace(
            "    tiling.set_tileNum(totalLength / BLOCK_DIM / TILE_LENGTH);",
            "    uint32_t tileLength = TILE_LENGTH < MAX_TILE_LENGTH ? TILE_LENGTH : MAX_TILE_LENGTH;\n\
             \x20   tiling.set_tileNum(totalLength / BLOCK_DIM / tileLength / (BLOCK_SIZE / 32));",
        );
    assert_ne!(edited, source);
    std::fs::write(&host, edited).unwrap();
    let out = cargo_ascend_tune(
        p,
        &[
            "init",
            "--shape",
            "x=48x16384",
            "--shape",
            "y=48x16384",
            "--shape",
            "z=48x16384",
        ],
    );
    assert!(out.status.success(), "{:?}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    for needle in [
        "Found op `add_custom` with tunables: block_dim, tile_length, buffer_num",
        "Left out `block_size` (op_host/add_custom.cpp:10): an alignment unit",
        "Left out `max_tile_length` (op_host/add_custom.cpp:11): changing it leaves the trace unchanged",
        // a bound the tiling checks the shape against: smaller fails, larger changes nothing
        "Left out `length_16384` (op_host/add_custom.cpp:12): a limit: the values that run change nothing and the others fail",
    ] {
        assert!(err.contains(needle), "{needle} missing from\n{err}");
    }
    let manifest = std::fs::read_to_string(p.join("ascend.toml")).unwrap();
    assert!(!manifest.contains("MAX_TILE_LENGTH"), "{manifest}");
    assert!(!manifest.contains("BLOCK_SIZE"), "{manifest}");
    assert!(!manifest.contains("LENGTH_16384"), "{manifest}");

    // --tunables-only keeps a hand-written manifest and rewrites only its tunables.
    let hand = "# mine\n[project]\nsoc = \"Ascend910B1\"\n\n[[op]]\nname = \"add_custom\"\ntype = \"AddCustom\"\n\
        host = [\"op_host/add_custom.cpp\"]\nkernel = [\"op_kernel/add_custom.cpp\"]\n\n\
        [[op.input]]\nname = \"x\"\ndtype = \"float16\"\nshape = [8, 2048]   # my shape\n\n\
        [[op.input]]\nname = \"y\"\ndtype = \"float16\"\nshape = [8, 2048]\n\n\
        [[op.output]]\nname = \"z\"\ndtype = \"float16\"\nshape = [8, 2048]\n\n\
        [[op.tunable]]\nname = \"old\"\nfile = \"op_host/add_custom.cpp\"\nsymbol = \"BLOCK_SIZE\"\nvalues = [32]\n";
    std::fs::write(p.join("ascend.toml"), hand).unwrap();
    let out = cargo_ascend_tune(p, &["init", "--tunables-only", "--no-probe"]);
    assert!(out.status.success(), "{:?}", text(&out));
    let manifest = std::fs::read_to_string(p.join("ascend.toml")).unwrap();
    assert!(
        manifest.starts_with(&hand[..hand.find("[[op.tunable]]").unwrap()]),
        "{manifest}"
    );
    assert!(!manifest.contains("name = \"old\""), "{manifest}");
    assert!(
        manifest.ends_with("symbol = \"BUFFER_NUM\"\nrange = [1, 2]   # now 1\n"),
        "{manifest}"
    );
    let run = cargo_ascend_tune(p, &["run"]);
    assert!(run.status.success(), "{:?}", text(&run));
}

/// A floor that only bites far from its value (`MIN_TILE_LENGTH = 64` under a 256-element tile: 32 and
/// 128 change nothing, 4096, the domain's top, does) still decides the tiling: `init`'s probe tries the
/// domain's ends after an unchanged neighbour, and offers it.
#[test]
fn init_offers_a_literal_that_changes_the_run_only_at_its_domains_end() {
    let dir = project("add_custom");
    let p = dir.path();
    std::fs::remove_file(p.join("ascend.toml")).unwrap();
    let host = p.join("op_host/add_custom.cpp");
    let source = std::fs::read_to_string(&host).unwrap();
    let edited = source
        .replace(
            "const uint32_t TILE_LENGTH = 256; // elements each block moves per tile",
            "const uint32_t TILE_LENGTH = 256; // elements each block moves per tile\n\
             const uint32_t MIN_TILE_LENGTH = 64;",
        )
        .replace(
            "    tiling.set_tileNum(totalLength / BLOCK_DIM / TILE_LENGTH);",
            "    uint32_t tileLength = TILE_LENGTH > MIN_TILE_LENGTH ? TILE_LENGTH : MIN_TILE_LENGTH;\n\
             \x20   tiling.set_tileNum(totalLength / BLOCK_DIM / tileLength);",
        );
    assert_ne!(edited, source);
    std::fs::write(&host, edited).unwrap();
    let out = cargo_ascend_tune(
        p,
        &[
            "init",
            "--shape",
            "x=48x16384",
            "--shape",
            "y=48x16384",
            "--shape",
            "z=48x16384",
        ],
    );
    assert!(out.status.success(), "{:?}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(
            "Found op `add_custom` with tunables: block_dim, tile_length, min_tile_length"
        ),
        "{err}"
    );
    assert!(!err.contains("Left out `min_tile_length`"), "{err}");
    let manifest = std::fs::read_to_string(p.join("ascend.toml")).unwrap();
    assert!(
        manifest.contains("symbol = \"MIN_TILE_LENGTH\""),
        "{manifest}"
    );
}

/// The output shapes come from the op's own InferShape, run by the twin in the op's host program (the
/// reduce_sum fixture's drops the last axis); an InferShape that fails leaves a guess that says why.
#[test]
fn init_takes_output_shapes_from_the_ops_infershape() {
    let dir = project("reduce_sum_custom");
    let p = dir.path();
    std::fs::remove_file(p.join("ascend.toml")).unwrap();
    let out = cargo_ascend_tune(p, &["init", "--shape", "x=64x1024"]);
    assert!(out.status.success(), "{:?}", text(&out));
    let manifest = std::fs::read_to_string(p.join("ascend.toml")).unwrap();
    assert!(
        manifest.contains("shape = [64]   # from the op's InferShape at these input shapes"),
        "{manifest}"
    );
    assert!(text(&out).1.contains("Inferred"), "{:?}", text(&out));
    let run = cargo_ascend_tune(p, &["run"]);
    assert!(run.status.success(), "{:?}", text(&run));

    // The same op whose InferShape fails: the guess stays, with the reason.
    let host = p.join("op_host/reduce_sum_custom.cpp");
    let src = std::fs::read_to_string(&host).unwrap();
    let broken = src.replacen("    *yShape = *xShape;\n", "    return GRAPH_FAILED;\n", 1);
    assert_ne!(broken, src);
    std::fs::write(&host, broken).unwrap();
    let out = cargo_ascend_tune(p, &["init", "--force", "--shape", "x=64x1024"]);
    assert!(out.status.success(), "{:?}", text(&out));
    let manifest = std::fs::read_to_string(p.join("ascend.toml")).unwrap();
    assert!(
        manifest.contains("# guess: the main input's shape (the op's InferShape could not be run:")
            && manifest.contains("InferShape of 'ReduceSumCustom' returned status"),
        "{manifest}"
    );
}

/// A kernel that includes shared code from a sibling folder by a relative path the original build
/// makes true (`#include "../utils/x.h"` from `op_kernel/`, with `utils/op_kernel/` copied beside
/// the op's kernel), as ops-nn's foreach kernels do: init finds the folder up to the repository's
/// top and writes it as `include-as`, and `run` builds and runs with the manifest as written.
#[test]
fn init_shows_a_sibling_folder_included_by_a_relative_path_where_the_kernel_expects_it() {
    let dir = tempfile::tempdir().unwrap();
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cli/projects/sibling_utils");
    copy_tree(&from, dir.path());
    let op = dir.path().join("sib_add");
    let out = cargo_ascend_tune(
        &op,
        &[
            "init",
            "--no-probe",
            "--shape",
            "x=4x1000",
            "--shape",
            "y=4x1000",
        ],
    );
    assert!(out.status.success(), "{:?}", text(&out));
    let manifest = std::fs::read_to_string(op.join("ascend.toml")).unwrap();
    assert!(
        manifest.contains("include-as = { \"utils\" = \"../utils/op_kernel\" }"),
        "{manifest}"
    );
    let out = cargo_ascend_tune(&op, &["run", "--message-format", "json"]);
    assert!(out.status.success(), "{:?}", text(&out));
    let measured = record(&out, "op-measured");
    assert_eq!(measured["op"], "sib_add", "{measured}");
    // The same include from a header in a subfolder of op_kernel/ (`../../utils/` from
    // `op_kernel/arch22/`, ops-math's circular_pad_grad): that header is read from the project, and
    // the mount is found from there too.
    let kernel = op.join("op_kernel/sib_add.cpp");
    let source = std::fs::read_to_string(&kernel).unwrap();
    std::fs::create_dir_all(op.join("op_kernel/arch22")).unwrap();
    std::fs::write(
        op.join("op_kernel/arch22/body.h"),
        "#pragma once\n#include \"../../utils/elementwise_add.h\"\n",
    )
    .unwrap();
    std::fs::write(
        &kernel,
        source.replace(
            "#include \"../utils/elementwise_add.h\"",
            "#include \"arch22/body.h\"",
        ),
    )
    .unwrap();
    let out = cargo_ascend_tune(&op, &["run"]);
    assert!(out.status.success(), "{:?}", text(&out));
    std::fs::write(&kernel, source).unwrap();
    // Editing the mounted header builds the kernel again: the build cache knew the header only by its
    // place in the build's mirror, a file that does not exist, so `run` served the program built before
    // the edit (found editing ops-nn's foreach_utils by hand). One of the three whole-pipe barriers of
    // the shared tile loop goes, which the model sees.
    let latency = |op: &Path| {
        let out = cargo_ascend_tune(op, &["run", "--message-format", "json"]);
        assert!(out.status.success(), "{:?}", text(&out));
        record(&out, "op-measured")["latency_us"].as_f64().unwrap()
    };
    let before = latency(&op);
    let shared = dir.path().join("utils/op_kernel/elementwise_add.h");
    let body = std::fs::read_to_string(&shared).unwrap();
    let edited = body.replacen(
        "            CopyTileOut(zGm[off], zl, n);\n            AscendC::PipeBarrier<PIPE_ALL>();\n",
        "            CopyTileOut(zGm[off], zl, n);\n",
        1,
    );
    assert_ne!(edited, body);
    std::fs::write(&shared, edited).unwrap();
    let after = latency(&op);
    assert!(
        after < before,
        "the edited mounted header was built again: {before} -> {after} us"
    );
    std::fs::write(&shared, body).unwrap();
    assert_eq!(latency(&op), before);
    // Without the pair the kernel's include does not resolve: the build fails naming it.
    let without: String = manifest
        .lines()
        .filter(|l| !l.starts_with("include-as"))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(op.join("ascend.toml"), without).unwrap();
    let out = cargo_ascend_tune(&op, &["run"]);
    assert!(!out.status.success(), "{:?}", text(&out));
    assert!(
        text(&out).1.contains("../utils/elementwise_add.h"),
        "{:?}",
        text(&out)
    );
}

/// Found in the new-user run (issue 18, hostgaps). SibScale registers its tiling in the sibling
/// folder `utils/op_host/` (ops-nn foreach_sqrt, foreach_mul_scalar: `ForeachCommonTilingData` unknown
/// to the kernel): init takes that source, and the kernel gets the struct its host header registers.
/// SibNorm's `op_host/sib_norm_tiling.h` defines its tiling data and includes host-only headers
/// (ops-nn add_rms_norm: `util/math_util.h` reached from the kernel build): the kernel gets the struct
/// generated from it instead of including it; its InferShape asks `fe::PlatformInfoManager` for the
/// chip (ops-nn group_norm_silu) and init writes the output shape it gives; its kernel writes
/// `unlikely(...)` (ops-nn's norm kernels). SibScale's tiling reads the repository's own
/// `op_host/tiling_templates_registry.h` (ops-nn's `TilingRegistry`), which the twin's header of that
/// name reads too. SibNorm's tiling reads the repository's `op_host/math_tiling_templates_registry.h`
/// (ops-math's, which 53 of its tilings read; the twin's header of that name did not read it, init did
/// not find its folder, and ops-math's lin_space stopped at its build). Both run as init wrote them.
#[test]
fn ops_with_a_sibling_tiling_and_a_host_only_tiling_header_run_as_init_wrote_them() {
    let dir = tempfile::tempdir().unwrap();
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cli/projects/sibling_utils");
    copy_tree(&from, dir.path());
    for (name, want) in [
        (
            "sib_scale",
            "host = [\"op_host/sib_scale_def.cpp\", \"../utils/op_host/utils_tiling.cpp\"]",
        ),
        (
            "sib_norm",
            "host = [\"op_host/sib_norm_def.cpp\", \"op_host/sib_norm_tiling.cpp\", \"op_host/sib_norm_infershape.cpp\"]",
        ),
    ] {
        let op = dir.path().join(name);
        let out = cargo_ascend_tune(&op, &["init", "--shape", "x=4x1000", "--shape", "y=4x1000"]);
        assert!(out.status.success(), "{name}: {:?}", text(&out));
        let manifest = std::fs::read_to_string(op.join("ascend.toml")).unwrap();
        assert!(manifest.contains(want), "{name}: {manifest}");
        {
            // The repository's own registry header (ops-nn's for sib_scale, ops-math's for
            // sib_norm), which the twin's reads after its helpers.
            assert!(
                manifest.contains("include = [\"../common/inc\"]"),
                "{manifest}"
            );
        }
        assert!(
            !manifest.contains("no host file registers a tiling function"),
            "{name}: {manifest}"
        );
        if name == "sib_norm" {
            assert!(
                manifest.contains("shape = [4, 1000]   # from the op's InferShape"),
                "{manifest}"
            );
        }
        let out = cargo_ascend_tune(&op, &["run", "--message-format", "json"]);
        assert!(out.status.success(), "{name}: {:?}", text(&out));
        assert_eq!(record(&out, "op-measured")["op"], name);
    }
}

/// Found in the new-user run (ops-nn silu_mul: "Last dim size should be no more than 1024"): an op
/// whose tiling function refuses init's default 48x16384 got it anyway, and `run` stopped there. init
/// now asks the tiling function and writes the first smaller default it takes, as a guess that says
/// why; a `--shape` the user gave is never changed.
#[test]
fn init_writes_a_smaller_default_shape_when_the_tiling_refuses_the_default() {
    let dir = add_custom_refusing("    if (totalLength > 8 * 1024) { return ge::GRAPH_FAILED; }\n");
    let p = dir.path();
    let out = cargo_ascend_tune(p, &["init"]);
    assert!(out.status.success(), "{:?}", text(&out));
    let manifest = std::fs::read_to_string(p.join("ascend.toml")).unwrap();
    assert!(
        manifest.contains(
            "name = \"x\"\ndtype = \"float16\"\nshape = [8, 1024]   # guess: a default smaller than [48, 16384]"
        ),
        "{manifest}"
    );
    assert!(
        manifest.contains("shape = [8, 1024]   # from the op's InferShape"),
        "{manifest}"
    );
    assert!(text(&out).1.contains("Fitted"), "{:?}", text(&out));
    let run = cargo_ascend_tune(p, &["run"]);
    assert!(run.status.success(), "{:?}", text(&run));
    // A shape the user gave stays, refused or not: run says why.
    let out = cargo_ascend_tune(p, &["init", "--force", "--shape", "x=48x16384"]);
    assert!(out.status.success(), "{:?}", text(&out));
    let manifest = std::fs::read_to_string(p.join("ascend.toml")).unwrap();
    assert!(manifest.contains("shape = [48, 16384]"), "{manifest}");
    assert!(!manifest.contains("smaller than"), "{manifest}");
}

/// Found in the new-user run (ops-nn soft_margin_loss_grad faulted reading its `grad_out` past 2
/// bytes; gaussian_nll_loss_grad's tiling says "mean reduction requires scalar gradOutput"): the
/// incoming gradient of a loss reduced by its `reduction` attr has the main input's shape unless the
/// op's tiling refuses that, and only then is it written as a scalar.
#[test]
fn init_writes_a_reduced_loss_gradient_as_a_scalar_only_when_the_tiling_refuses_the_full_one() {
    let dir = project("add_custom");
    let p = dir.path();
    std::fs::remove_file(p.join("ascend.toml")).unwrap();
    let host = p.join("op_host/add_custom.cpp");
    let src = std::fs::read_to_string(&host).unwrap();
    // The second input becomes the gradient `dy` of a loss reduced by "mean"; the kernel reads it
    // element-wise, as add_custom's does.
    let loss = src
        .replacen("this->Input(\"y\")", "this->Input(\"dy\")", 1)
        .replacen(
            "        this->SetInferShape",
            "        this->Attr(\"reduction\").AttrType(OPTIONAL).String(\"mean\");\n        this->SetInferShape",
            1,
        );
    assert!(
        loss.contains("Input(\"dy\")") && loss.contains("reduction"),
        "the fixture's OpDef changed; update this test"
    );
    std::fs::write(&host, &loss).unwrap();
    let kernel = p.join("op_kernel/add_custom.cpp");
    let k = std::fs::read_to_string(&kernel).unwrap();
    std::fs::write(&kernel, k.replace("DTYPE_Y", "DTYPE_DY")).unwrap();
    let out = cargo_ascend_tune(p, &["init"]);
    assert!(out.status.success(), "{:?}", text(&out));
    let manifest = std::fs::read_to_string(p.join("ascend.toml")).unwrap();
    assert!(
        manifest.contains("name = \"dy\"\ndtype = \"float16\"\nshape = [48, 16384]   # guess:"),
        "{manifest}"
    );
    let run = cargo_ascend_tune(p, &["run"]);
    assert!(run.status.success(), "{:?}", text(&run));

    // A tiling that takes only one number for the gradient: init writes it as a scalar, and says so.
    let anchor =
        "    uint32_t totalLength = context->GetInputShape(0)->GetOriginShape().GetShapeSize();\n";
    let refusing = loss.replacen(
        anchor,
        &format!(
            "{anchor}    if (context->GetInputShape(1)->GetOriginShape().GetShapeSize() != 1) {{ return ge::GRAPH_FAILED; }}\n"
        ),
        1,
    );
    assert_ne!(
        refusing, loss,
        "the fixture's tiling changed; update this test"
    );
    std::fs::write(&host, refusing).unwrap();
    let out = cargo_ascend_tune(p, &["init", "--force"]);
    assert!(out.status.success(), "{:?}", text(&out));
    let manifest = std::fs::read_to_string(p.join("ascend.toml")).unwrap();
    assert!(
        manifest.contains("name = \"dy\"\ndtype = \"float16\"\nshape = []   # guess:"),
        "{manifest}"
    );
    assert!(
        manifest.contains("name = \"x\"\ndtype = \"float16\"\nshape = [48, 16384]"),
        "{manifest}"
    );
    assert!(
        text(&out).1.contains("a scalar written instead"),
        "{:?}",
        text(&out)
    );
}

/// Found in the new-user run (ops-math sub_v2 faulted writing 19616 bytes to a 4-byte `y`): its
/// InferShape returns success without setting the output's shape, and init read the untouched
/// rank-0 shape as a scalar. Now the guess (the main input's shape) stays and says why; an InferShape
/// that does make the output a scalar still gives `[]`.
#[test]
fn init_keeps_its_guess_when_infershape_never_sets_the_output() {
    let dir = project("add_custom");
    let p = dir.path();
    std::fs::remove_file(p.join("ascend.toml")).unwrap();
    let host = p.join("op_host/add_custom.cpp");
    let src = std::fs::read_to_string(&host).unwrap();
    let silent = src.replacen("    *y_shape = *x1_shape;\n", "    (void)y_shape;\n", 1);
    assert_ne!(
        silent, src,
        "the fixture's InferShape changed; update this test"
    );
    std::fs::write(&host, &silent).unwrap();
    let out = cargo_ascend_tune(p, &["init", "--shape", "x=8x1024", "--shape", "y=8x1024"]);
    assert!(out.status.success(), "{:?}", text(&out));
    let manifest = std::fs::read_to_string(p.join("ascend.toml")).unwrap();
    assert!(
        manifest.contains("name = \"z\"\ndtype = \"float16\"\nshape = [8, 1024]   # guess: the main input's shape (the op's InferShape returned success without setting this output's shape)"),
        "{manifest}"
    );
    let run = cargo_ascend_tune(p, &["run"]);
    assert!(run.status.success(), "{:?}", text(&run));
    // SetScalar is a shape the op set.
    let scalar = src.replacen(
        "    *y_shape = *x1_shape;\n",
        "    y_shape->SetScalar();\n",
        1,
    );
    std::fs::write(&host, &scalar).unwrap();
    let out = cargo_ascend_tune(
        p,
        &[
            "init", "--force", "--shape", "x=8x1024", "--shape", "y=8x1024",
        ],
    );
    assert!(out.status.success(), "{:?}", text(&out));
    let manifest = std::fs::read_to_string(p.join("ascend.toml")).unwrap();
    assert!(
        manifest
            .contains("name = \"z\"\ndtype = \"float16\"\nshape = []   # from the op's InferShape"),
        "{manifest}"
    );
}

/// Found on first contact with ops-transformer (moe_compute_expert_tokens: "the sorted_expert of input
/// should be 1D tensor"): a tiling function that names an input and the rank it wants refused init's
/// default and every smaller one (here five axes, more than any smaller default has). init now gives
/// that input the rank, as a guess that quotes the refusal, and the op runs.
#[test]
fn init_gives_an_input_the_rank_the_tilings_refusal_asks_for() {
    let dir = add_custom_refusing(
        "    if (context->GetInputShape(0)->GetOriginShape().GetDimNum() != 5) { OP_LOGE(context, \"the x of input should be 5D tensor.\"); return ge::GRAPH_FAILED; }\n",
    );
    let p = dir.path();
    let out = cargo_ascend_tune(p, &["init"]);
    assert!(out.status.success(), "{:?}", text(&out));
    let manifest = std::fs::read_to_string(p.join("ascend.toml")).unwrap();
    assert!(
        manifest.contains("name = \"x\"\ndtype = \"float16\"\nshape = [1, 1, 1, 48, 16384]   # guess: 5 axes, as the op's tiling function asked"),
        "{manifest}"
    );
    assert!(text(&out).1.contains("Fitted"), "{:?}", text(&out));
    let run = cargo_ascend_tune(p, &["run"]);
    assert!(run.status.success(), "{:?}", text(&run));
}

/// Found in the seed-47 new-user run (ops-math's experimental im2col: a required `ksizes` list with no
/// default, "ksizes must contain two values"): init wrote `[1]` and the tiling refused it. init now
/// gives a list attr the count of values the refusal asks for, and the op runs.
#[test]
fn init_gives_a_list_attr_the_count_of_values_the_refusal_asks_for() {
    let dir = add_custom_refusing(
        "    { auto k = context->GetAttrs()->GetListInt(0); if (k == nullptr || k->GetSize() != 2) { OP_LOGE(context, \"ksizes must contain two values\"); return ge::GRAPH_FAILED; } }\n",
    );
    let p = dir.path();
    edit_add_custom_host(
        p,
        "        this->SetInferShape(",
        "        this->Attr(\"ksizes\").AttrType(REQUIRED).ListInt();\n        this->SetInferShape(",
    );
    let out = cargo_ascend_tune(p, &["init"]);
    assert!(out.status.success(), "{:?}", text(&out));
    let manifest = std::fs::read_to_string(p.join("ascend.toml")).unwrap();
    assert!(
        manifest.contains("name = \"ksizes\"\nvalue = [1, 1]   # guess: attr `ksizes` given 2 values, as the op's refusal asked"),
        "{manifest}"
    );
    let run = cargo_ascend_tune(p, &["run"]);
    assert!(run.status.success(), "{:?}", text(&run));
}

/// Found in the new-user runs (ops-math's experimental polar, seed 47; complex_v3, seed 48): an output
/// the OpDef types `DT_COMPLEX64` (first column; `DT_COMPLEX32` second) was written as float32 of the
/// complex shape, half the bytes the kernel writes. It is float32 pairs along a doubled last axis now, said beside it.
#[test]
fn a_complex64_output_is_written_as_float32_pairs() {
    let dir = project("add_custom");
    let p = dir.path();
    std::fs::remove_file(p.join("ascend.toml")).unwrap();
    edit_add_custom_host(
        p,
        "        this->Output(\"z\")\n            .ParamType(REQUIRED)\n            .DataType({ge::DT_FLOAT16})",
        "        this->Output(\"z\")\n            .ParamType(REQUIRED)\n            .DataType({ge::DT_COMPLEX64, ge::DT_COMPLEX32})",
    );
    let out = cargo_ascend_tune(p, &["init"]);
    assert!(out.status.success(), "{:?}", text(&out));
    let manifest = std::fs::read_to_string(p.join("ascend.toml")).unwrap();
    assert!(
        manifest.contains("name = \"z\"\ndtype = \"float32\"\nshape = [48, 32768]   # guess: complex64 in the OpDef, written as float32 pairs"),
        "{manifest}"
    );
}

/// ops-transformer's moe_token_permute_with_ep: its outputs pass 4 GiB at the default shape and its
/// tiling refuses every smaller default (a top-k axis bounded to 512); init kept the default, which no
/// manifest may hold. The first smaller shape stays, and its refusal is fitted.
#[test]
fn a_default_over_4_gib_that_no_smaller_shape_fits_keeps_the_smaller_one_and_fits_its_refusal() {
    let dir = add_custom_refusing(
        "    { int64_t k = context->GetInputShape(1)->GetOriginShape().GetDim(1); if (k > 2) { OP_LOGE(context, \"Input y's dim 1 [%ld] should not large than max topK[2].\", (long)k); return ge::GRAPH_FAILED; } }\n",
    );
    let p = dir.path();
    edit_add_custom_host(p, INFER_SHAPE, Z_CUBE);
    let out = cargo_ascend_tune(p, &["init"]);
    assert!(out.status.success(), "{:?}", text(&out));
    let manifest = std::fs::read_to_string(p.join("ascend.toml")).unwrap();
    assert!(
        manifest.contains("shape = [8, 1024]   # guess: a default smaller than"),
        "{manifest}"
    );
    assert!(
        manifest.contains("shape = [8, 2]   # guess: axis 1 of 2"),
        "{manifest}"
    );
    ascend_tune::manifest::Manifest::load(&p.join("ascend.toml"))
        .expect("the manifest init wrote loads");
}

/// A fit that does not move the refusal on is undone, in the manifest on disk too: here the tiling asks
/// for a 5-D x and refuses it at every shape.
#[test]
fn a_fit_the_tiling_still_refuses_is_undone_in_the_manifest() {
    let dir = add_custom_refusing(
        "    { OP_LOGE(context, \"the x of input should be 5D tensor.\"); return ge::GRAPH_FAILED; }\n",
    );
    let p = dir.path();
    let out = cargo_ascend_tune(p, &["init"]);
    assert!(out.status.success(), "{:?}", text(&out));
    let manifest = std::fs::read_to_string(p.join("ascend.toml")).unwrap();
    assert!(!manifest.contains("5 axes"), "{manifest}");
    assert!(
        manifest.contains("name = \"x\"\ndtype = \"float16\"\nshape = [48, 16384]"),
        "{manifest}"
    );
    assert!(
        text(&out).1.contains("refuses the manifest"),
        "{:?}",
        text(&out)
    );
}

/// A fit that makes an output larger than a manifest may hold is undone (ops-transformer's
/// moe_token_permute_with_ep was left with a manifest `run` refused). Here z grows as y's axis 1
/// shrinks, and the tiling bounds that axis to 2.
#[test]
fn a_fit_that_makes_an_output_pass_4_gib_is_undone() {
    let dir = add_custom_refusing(
        "    { int64_t k = context->GetInputShape(1)->GetOriginShape().GetDim(1); if (k > 2) { OP_LOGE(context, \"Input y's dim 1 [%ld] should not large than max topK[2].\", (long)k); return ge::GRAPH_FAILED; } }\n",
    );
    let p = dir.path();
    edit_add_custom_host(
        p,
        INFER_SHAPE,
        "    const gert::Shape *y1 = context->GetInputShape(1);\n    y_shape->SetDimNum(3);\n    y_shape->SetDim(0, x1_shape->GetDim(0));\n    y_shape->SetDim(1, x1_shape->GetDim(1));\n    y_shape->SetDim(2, 262144 / (y1->GetDim(1) > 0 ? y1->GetDim(1) : 1));\n",
    );
    let out = cargo_ascend_tune(p, &["init"]);
    assert!(out.status.success(), "{:?}", text(&out));
    let manifest = std::fs::read_to_string(p.join("ascend.toml")).unwrap();
    assert!(!manifest.contains("axis 1 of 2"), "{manifest}");
    ascend_tune::manifest::Manifest::load(&p.join("ascend.toml"))
        .expect("the manifest init wrote loads");
}

/// ops-transformer's moe_token_permute refuses an index input whose top-k axis passes a bound ("Input
/// indices's dim 1 [16384] should not large than max topK[512]"); no smaller default passes it (the
/// bound here is 2), so init gives that axis a value within the bound.
#[test]
fn init_gives_an_axis_the_size_the_tilings_refusal_bounds_it_to() {
    let dir = add_custom_refusing(
        "    { int64_t k = context->GetInputShape(1)->GetOriginShape().GetDim(1); if (k > 2) { OP_LOGE(context, \"Input y's dim 1 [%ld] should not large than max topK[2].\", (long)k); return ge::GRAPH_FAILED; } }\n",
    );
    let p = dir.path();
    let out = cargo_ascend_tune(p, &["init"]);
    assert!(out.status.success(), "{:?}", text(&out));
    let manifest = std::fs::read_to_string(p.join("ascend.toml")).unwrap();
    assert!(
        manifest.contains("name = \"y\"\ndtype = \"float16\"\nshape = [48, 2]   # guess: axis 1 of 2, as the op's tiling function asked"),
        "{manifest}"
    );
    assert!(text(&out).1.contains("Fitted"), "{:?}", text(&out));
}

/// ops-nn's avg_pool3_d checks that its tensors' origin format is a 3-D layout ("format only supports
/// NCDHW, NDHWC, DHWCN"), which a framework sets from the op's `data_format` attr, and
/// quantized_batch_norm that x is NCHW, as its OpDef's Format column declares; the twin gave every tensor
/// ND. add_custom here refuses a 4-D x whose origin format is not NCHW, told so by each in turn.
#[test]
fn a_data_format_attr_or_the_opdefs_format_gives_the_tensors_their_origin_format() {
    for (what, from, to) in [
        (
            "a data_format attr",
            "        this->SetInferShape(",
            "        this->Attr(\"data_format\").AttrType(OPTIONAL).String(\"NCHW\");\n        this->SetInferShape(",
        ),
        (
            "the OpDef's Format column",
            "            .Format({ge::FORMAT_ND});\n        this->Input(\"y\")",
            "            .Format({ge::FORMAT_NCHW});\n        this->Input(\"y\")",
        ),
    ] {
        let dir = add_custom_refusing(
            "    if (context->GetInputShape(0)->GetOriginShape().GetDimNum() == 4 && context->GetInputDesc(0)->GetOriginFormat() != ge::FORMAT_NCHW) { OP_LOGE(context, \"x: format only supports NCHW\"); return ge::GRAPH_FAILED; }\n",
        );
        let p = dir.path();
        edit_add_custom_host(p, from, to);
        let shape = ["--shape", "x=2x4x16x256", "--shape", "y=2x4x16x256"];
        let out = cargo_ascend_tune(p, &[&["init"][..], &shape[..]].concat());
        assert!(out.status.success(), "{what}: {:?}", text(&out));
        let run = cargo_ascend_tune(p, &["run"]);
        assert!(run.status.success(), "{what}: {:?}", text(&run));
    }
}

/// ops-transformer's mla_prolog_v2 takes its weights only as FRACTAL_NZ ("weightDq format only supports
/// [FRACTAL_NZ], but got ND"), ops-cv's three_interpolate_backward its grad as NC1HWC0 (five axes, as
/// its tiling tests build it): the twin gave every such tensor ND. A matrix the OpDef declares
/// FRACTAL_NZ is now stored so (origin ND [m, n], storage [n / C0, m / 16, 16, C0]) where m and n fill
/// whole fractals, and a five-axis tensor declared NC1HWC0 is NC1HWC0. add_custom here refuses x
/// otherwise; where the rows are no whole fractals it stays ND, and the op's own check says so.
#[test]
fn the_opdefs_fractal_formats_store_the_tensors_as_cann_does() {
    for (what, format, check, good, bad) in [
        (
            "FRACTAL_NZ",
            "FORMAT_FRACTAL_NZ",
            "    { auto s = context->GetInputShape(0)->GetStorageShape(); if (context->GetInputDesc(0)->GetStorageFormat() != ge::FORMAT_FRACTAL_NZ || context->GetInputDesc(0)->GetOriginFormat() != ge::FORMAT_ND || s.GetDimNum() != 4 || s.GetDim(0) != 16 || s.GetDim(1) != 2 || s.GetDim(2) != 16 || s.GetDim(3) != 16) { OP_LOGE(context, \"x format only supports [FRACTAL_NZ]\"); return ge::GRAPH_FAILED; } }\n",
            "32x256",
            "24x256",
        ),
        (
            "NC1HWC0",
            "FORMAT_NC1HWC0",
            "    if (context->GetInputDesc(0)->GetStorageFormat() != ge::FORMAT_NC1HWC0) { OP_LOGE(context, \"x format only supports [NC1HWC0]\"); return ge::GRAPH_FAILED; }\n",
            "2x4x16x1x16",
            "2x4x16x16",
        ),
    ] {
        let dir = add_custom_refusing(check);
        let p = dir.path();
        edit_add_custom_host(
            p,
            "            .Format({ge::FORMAT_ND});\n        this->Input(\"y\")",
            &format!("            .Format({{ge::{format}}});\n        this->Input(\"y\")"),
        );
        for (shape, runs) in [(good, true), (bad, false)] {
            let x = format!("x={shape}");
            let y = format!("y={shape}");
            let out = cargo_ascend_tune(p, &["init", "--force", "--shape", &x, "--shape", &y]);
            assert!(out.status.success(), "{what} {shape}: {:?}", text(&out));
            let run = cargo_ascend_tune(p, &["run"]);
            assert_eq!(
                run.status.success(),
                runs,
                "{what} {shape}: {:?}",
                text(&run)
            );
            if !runs {
                assert!(
                    text(&run)
                        .1
                        .contains(&format!("x format only supports [{what}]")),
                    "{what} {shape}: {:?}",
                    text(&run)
                );
            }
        }
    }
}

/// ops-cv's stack_group_points: its kernel takes `BYTE_SIZE = 16` elements a pass and its host divides
/// the work by `NUM = 16`, two names for one choice. No other value of the kernel's runs alone, and the
/// host's is no tunable by its name, so init offered nothing. The probe now moves such a kernel constant
/// with each host constant of its value: add_custom here takes its tile length from a kernel constant
/// `TILE_ELEMS` and the host counts tiles by `PASS`; init offers both, kept equal by a constraint,
/// and tune moves them together.
#[test]
fn a_kernel_constant_that_runs_only_with_a_host_constant_of_its_value_is_tuned_with_it() {
    let dir = project("add_custom");
    let p = dir.path();
    std::fs::remove_file(p.join("ascend.toml")).unwrap();
    edit_add_custom(
        p,
        "op_kernel/add_custom.cpp",
        "constexpr int32_t BUFFER_NUM = 1; // tensors per queue\n",
        "constexpr int32_t BUFFER_NUM = 1; // tensors per queue\nconstexpr int32_t TILE_ELEMS = 256;\n",
    );
    edit_add_custom(
        p,
        "op_kernel/add_custom.cpp",
        "this->tileLength = this->blockLength / tileNum / BUFFER_NUM;",
        "this->tileLength = TILE_ELEMS / BUFFER_NUM;",
    );
    edit_add_custom_host(
        p,
        "const uint32_t TILE_LENGTH = 256; // elements each block moves per tile\n",
        "const uint32_t PASS = 256;\n",
    );
    edit_add_custom_host(p, "/ BLOCK_DIM / TILE_LENGTH);", "/ BLOCK_DIM / PASS);");
    let out = cargo_ascend_tune(
        p,
        &["init", "--shape", "x=48x16384", "--shape", "y=48x16384"],
    );
    assert!(out.status.success(), "{:?}", text(&out));
    let manifest = std::fs::read_to_string(p.join("ascend.toml")).unwrap();
    assert!(
        manifest.contains("constraints = [\"tile_elems == pass\"]"),
        "{manifest}\n{:?}",
        text(&out)
    );
    assert!(
        manifest.contains("symbol = \"TILE_ELEMS\"") && manifest.contains("symbol = \"PASS\""),
        "{manifest}"
    );
    let tune = cargo_ascend_tune(
        p,
        &["tune", "--budget", "6", "--seed", "1", "--allow-dirty"],
    );
    assert!(tune.status.success(), "{:?}", text(&tune));
    // every trial moved the two together: none failed on a mismatch
    let report = cargo_ascend_tune(p, &["report"]);
    let (stdout, _) = text(&report);
    let trials: Vec<&str> = stdout
        .lines()
        .filter(|l| l.contains("tile_elems="))
        .collect();
    assert!(!trials.is_empty(), "{stdout}");
    for t in trials {
        let value = |key: &str| {
            t.split(key)
                .nth(1)
                .and_then(|r| r.split(|c: char| !c.is_ascii_digit()).next())
                .map(str::to_string)
        };
        assert_eq!(value("tile_elems="), value("pass="), "{t}");
        assert!(!t.contains("fault") && !t.contains("wrong"), "{t}");
    }
}

/// ops-transformer's rope_with_sin_cos_cache: its tiling function divides by the rows a UB holds, 0 at
/// the default shape, and dies of SIGFPE; init left the default in the manifest and `run` crashed. A
/// smaller default is taken, as for a refusal.
#[test]
fn init_takes_a_smaller_default_when_the_tiling_crashes_at_the_default() {
    let dir = add_custom_refusing(
        "    { volatile uint32_t rows = context->GetInputShape(0)->GetOriginShape().GetDim(1) > 4096 ? 0 : 1; totalLength = totalLength / rows * rows; }\n",
    );
    let p = dir.path();
    let out = cargo_ascend_tune(p, &["init"]);
    assert!(out.status.success(), "{:?}", text(&out));
    let manifest = std::fs::read_to_string(p.join("ascend.toml")).unwrap();
    assert!(
        manifest.contains("shape = [768, 1024]   # guess: a default smaller than [48, 16384], which the op's tiling function refused (it crashed: "),
        "{manifest}"
    );
    let run = cargo_ascend_tune(p, &["run"]);
    assert!(run.status.success(), "{:?}", text(&run));
}

/// ops-cv's stack_group_points: at the default shape its InferShape gives an output of [48, 16384, 16384]
/// floats, which no manifest may hold; init wrote it and `run` stopped at "larger than 4 GiB". A smaller
/// default shape is taken, as for a tiling refusal.
#[test]
fn init_takes_a_smaller_default_when_an_inferred_output_passes_4_gib() {
    let dir = project("add_custom");
    let p = dir.path();
    std::fs::remove_file(p.join("ascend.toml")).unwrap();
    edit_add_custom_host(p, INFER_SHAPE, Z_CUBE);
    let out = cargo_ascend_tune(p, &["init"]);
    assert!(out.status.success(), "{:?}", text(&out));
    let manifest = std::fs::read_to_string(p.join("ascend.toml")).unwrap();
    assert!(
        manifest.contains("name = \"z\"\ndtype = \"float16\"\nshape = [8, 1024, 1024]"),
        "{manifest}"
    );
    assert!(
        manifest.contains("shape = [8, 1024]   # guess: a default smaller than [48, 16384], at which an output the op's InferShape gives is larger than 4 GiB"),
        "{manifest}"
    );
    assert!(text(&out).1.contains("Fitted"), "{:?}", text(&out));
    ascend_tune::manifest::Manifest::load(&p.join("ascend.toml"))
        .expect("the manifest init wrote loads");
}

/// ops-cv's upsample_nearest3d: its InferShape returns a failed status, without a word, for inputs it
/// does not take (it wants a 5-D input), and its tiling does not check them. init kept the default
/// shape, guessed the outputs, and `run` ran a kernel that wrote nothing; the op's own cases were never
/// tried. A failed status is a refusal like a tiling function's: a shape the op takes is written.
#[test]
fn init_takes_a_shape_the_op_accepts_when_its_infershape_fails_silently() {
    let dir = project("add_custom");
    let p = dir.path();
    std::fs::remove_file(p.join("ascend.toml")).unwrap();
    edit_add_custom_host(
        p,
        INFER_SHAPE,
        &format!(
            "    if (x1_shape->GetDim(0) > 8) {{\n        return ge::GRAPH_FAILED;\n    }}\n{INFER_SHAPE}"
        ),
    );
    let out = cargo_ascend_tune(p, &["init"]);
    assert!(out.status.success(), "{:?}", text(&out));
    let manifest = std::fs::read_to_string(p.join("ascend.toml")).unwrap();
    assert!(
        manifest.contains("shape = [8, 1024]   # guess: a default smaller than [48, 16384], which the op's InferShape refused (InferShape of 'AddCustom' returned status"),
        "{manifest}"
    );
    assert!(
        text(&out)
            .1
            .contains("its InferShape refused the default shape [48, 16384] (InferShape of 'AddCustom' returned status"),
        "{:?}",
        text(&out)
    );
    let run = cargo_ascend_tune(p, &["run"]);
    assert!(run.status.success(), "{:?}", text(&run));
}

/// add_custom's InferShape line that gives z x's shape, and a body that gives z [x0, x1, x1] instead.
const INFER_SHAPE: &str = "    *y_shape = *x1_shape;\n";
const Z_CUBE: &str = "    y_shape->SetDimNum(3);\n    y_shape->SetDim(0, x1_shape->GetDim(0));\n    y_shape->SetDim(1, x1_shape->GetDim(1));\n    y_shape->SetDim(2, x1_shape->GetDim(1));\n";

/// Replaces `from` with `to` once in the add_custom project's host source at `p`.
fn edit_add_custom_host(p: &std::path::Path, from: &str, to: &str) {
    edit_add_custom(p, "op_host/add_custom.cpp", from, to);
}

/// Replaces `from` with `to` once in the add_custom project's file `rel` at `p`.
fn edit_add_custom(p: &std::path::Path, rel: &str, from: &str, to: &str) {
    let file = p.join(rel);
    let src = std::fs::read_to_string(&file).unwrap();
    let changed = src.replacen(from, to, 1);
    assert_ne!(
        changed, src,
        "the fixture's {rel} changed; update this test"
    );
    std::fs::write(&file, changed).unwrap();
}

/// add_custom whose tiling function first runs `check` (C++ lines) after it reads the total length, with
/// its manifest removed: the op a tiling refusal test gives `init`.
fn add_custom_refusing(check: &str) -> tempfile::TempDir {
    let dir = project("add_custom");
    let p = dir.path();
    std::fs::remove_file(p.join("ascend.toml")).unwrap();
    let host = p.join("op_host/add_custom.cpp");
    let src = std::fs::read_to_string(&host).unwrap();
    let anchor =
        "    uint32_t totalLength = context->GetInputShape(0)->GetOriginShape().GetShapeSize();\n";
    let refusing = src.replacen(anchor, &format!("{anchor}{check}"), 1);
    assert_ne!(
        refusing, src,
        "the fixture's tiling changed; update this test"
    );
    std::fs::write(&host, refusing).unwrap();
    dir
}

/// Two fits of a refused default, each then grown. Found in the new-user run (ops-nn
/// scaled_masked_softmax_v2: "x or mask DimNum is not 4"): an op whose tiling function demands four axes
/// refused init's 2-D default and every smaller 2-D one; init also tries the small size as three and
/// four axes. Found tuning ops-cv and ops-transformer (stop 29): the smaller shape taken ([8, 1024],
/// [2, 4, 16, 256]: 8 K to 32 K elements) left the launch most of a run, where no tiling choice shows;
/// its first axis now doubles while the tiling takes it, up to the default's element count.
#[test]
fn init_writes_a_smaller_default_the_tiling_takes_with_its_rows_grown() {
    for (check, shape, from) in [
        ("GetDimNum() != 4", "[48, 4, 16, 256]", 2),
        ("GetDim(1) > 1024", "[768, 1024]", 8),
    ] {
        let dir = add_custom_refusing(&format!(
            "    if (context->GetInputShape(0)->GetOriginShape().{check}) {{ return ge::GRAPH_FAILED; }}\n"
        ));
        let p = dir.path();
        let out = cargo_ascend_tune(p, &["init"]);
        assert!(out.status.success(), "{check}: {:?}", text(&out));
        let manifest = std::fs::read_to_string(p.join("ascend.toml")).unwrap();
        for line in [
            format!(
                "name = \"x\"\ndtype = \"float16\"\nshape = {shape}   # guess: a default smaller than [48, 16384], which the op's tiling function refused"
            ),
            format!("its first axis then doubled from {from} while the tiling took it"),
            format!("shape = {shape}   # from the op's InferShape"),
        ] {
            assert!(manifest.contains(&line), "{check}: {line}\n{manifest}");
        }
        assert!(
            text(&out).1.contains(&format!("{shape} written instead")),
            "{check}: {:?}",
            text(&out)
        );
        let run = cargo_ascend_tune(p, &["run"]);
        assert!(run.status.success(), "{check}: {:?}", text(&run));
    }
}

/// Found in ops-transformer (moe_token_permute_with_ep and 33 more of the 48 that failed): a tiling that
/// refuses every shape init can guess (operands that must agree, a fixed row length), in an op folder
/// whose own tiling unit tests give cases it takes. init now writes a success case's shapes and dtypes,
/// nearest the default's size; a failure case, and one giving fewer inputs than the op has, are not taken.
#[test]
fn init_takes_the_shapes_of_the_ops_own_tiling_test_when_the_tiling_refuses_its_guesses() {
    // a tiling that refuses, and one that takes every shape but plans past the tensors at the wrong
    // row length, so that the kernel faults (a head size of 1 leaving a zero-length buffer, in the
    // public op)
    for (what, check) in [
        ("refused", "{ return ge::GRAPH_FAILED; }"),
        ("fault", "{ totalLength = totalLength * 64; }"),
    ] {
        let dir = add_custom_refusing(&format!(
            "    if (context->GetInputShape(0)->GetOriginShape().GetDim(1) != 2048) {check}\n"
        ));
        let p = dir.path();
        let case = |name: &str, shape: &str, inputs: usize, verdict: &str| {
            let t = format!("{{{{{{{shape}}}, {{{shape}}}}}, ge::DT_FLOAT16, ge::FORMAT_ND}}");
            format!(
                "TEST_F(AddCustomTiling, {name}) {{\n  gert::TilingContextPara para(\"AddCustom\", // op\n    {{{}}},\n    {{{t}}}, &compileInfo);\n  ExecuteTestCase(para, ge::{verdict});\n}}\n",
                vec![t.clone(); inputs].join(", ")
            )
        };
        let tests = p.join("tests/ut/op_host");
        std::fs::create_dir_all(&tests).unwrap();
        let cases = [
            case("refused", "48, 2048", 2, "GRAPH_FAILED"),
            case("one_input", "48, 2048", 1, "GRAPH_SUCCESS"),
            case("tiny", "2, 2048", 2, "GRAPH_SUCCESS"),
            case("rows", "96, 2048", 2, "GRAPH_SUCCESS"),
        ]
        .concat();
        std::fs::write(tests.join("test_add_custom_tiling.cpp"), cases).unwrap();
        let out = cargo_ascend_tune(p, &["init"]);
        assert!(out.status.success(), "{what}: {:?}", text(&out));
        let manifest = std::fs::read_to_string(p.join("ascend.toml")).unwrap();
        for input in ["x", "y"] {
            let line = format!(
                "name = \"{input}\"\ndtype = \"float16\"\nshape = [96, 2048]   # from the op's tiling test `rows` (tests/ut/op_host/test_add_custom_tiling.cpp:"
            );
            assert!(manifest.contains(&line), "{what}: {line}\n{manifest}");
        }
        assert!(
            manifest.contains("shape = [96, 2048]   # from the op's InferShape"),
            "{what}: {manifest}"
        );
        assert!(
            text(&out).1.contains("of its tiling test `rows`"),
            "{what}: {:?}",
            text(&out)
        );
        let run = cargo_ascend_tune(p, &["run"]);
        assert!(run.status.success(), "{what}: {:?}", text(&run));
    }
}

/// ops-cv's upsample_nearest_exact3d: its 910B tiling calls `Tiling4...Regbase` on an arch35 path that
/// the 910B never takes, defined in a file the build does not list; the host program did not link, so
/// neither InferShape nor the op ran. init finds no source that defines it and writes
/// `stub-undefined = true`: the op runs, and a stub that is called stops the program, naming it.
#[test]
fn init_stubs_what_no_source_defines_and_a_called_stub_names_itself() {
    for (taken, what) in [("7", "a path never taken"), ("0", "a path taken")] {
        let dir = add_custom_refusing(&format!(
            "    {{ extern uint32_t TwinOtherSocTiling(uint32_t n); if (totalLength % 8 == {taken}) {{ totalLength = TwinOtherSocTiling(totalLength); }} }}\n"
        ));
        let p = dir.path();
        let out = cargo_ascend_tune(p, &["init"]);
        assert!(out.status.success(), "{what}: {:?}", text(&out));
        let manifest = std::fs::read_to_string(p.join("ascend.toml")).unwrap();
        assert!(
            manifest.contains("stub-undefined = true   # guess: no source init found defines `optiling::TwinOtherSocTiling(unsigned int)`"),
            "{what}: {manifest}"
        );
        assert!(
            text(&out).1.contains("stub-undefined"),
            "{what}: {:?}",
            text(&out)
        );
        let run = cargo_ascend_tune(p, &["run"]);
        if taken == "7" {
            assert!(run.status.success(), "{what}: {:?}", text(&run));
        } else {
            assert!(!run.status.success(), "{what}: {:?}", text(&run));
            assert!(
                text(&run).1.contains("the program called the function `optiling::TwinOtherSocTiling(unsigned int)`, which none of the op's sources"),
                "{what}: {:?}",
                text(&run)
            );
        }
        // Without the flag the link fails, as CANN's build would.
        let off = manifest.replace("stub-undefined = true", "stub-undefined = false");
        std::fs::write(p.join("ascend.toml"), off).unwrap();
        let run = cargo_ascend_tune(p, &["run"]);
        assert!(!run.status.success(), "{what}: {:?}", text(&run));
        assert!(
            text(&run).1.contains("undefined reference"),
            "{what}: {:?}",
            text(&run)
        );
    }
}

/// ops-cv's upsample_nearest keeps BUFFER_NUM both in the kernel header its 910B build includes and in
/// a `_310p.h` header included only under `__CCE_AICORE__ == 200`; init offered both, tied, and a tune
/// would have written the 310P header it never built. A tunable in a file no build of the op reads is
/// left out, saying so; the one the build reads stays.
#[test]
fn init_leaves_out_tunables_in_files_no_build_reads_for_the_soc() {
    let dir = project("add_custom");
    let p = dir.path();
    std::fs::remove_file(p.join("ascend.toml")).unwrap();
    write(
        p,
        "op_kernel/add_custom_310p.h",
        // the same value as the kernel's: the two were tied and moved together
        "#pragma once\nnamespace k310p {\nconstexpr int32_t BUFFER_NUM = 1;\n}\n",
    );
    let anchor = "#include \"kernel_operator.h\"\n";
    edit_add_custom(
        p,
        "op_kernel/add_custom.cpp",
        anchor,
        &format!("{anchor}#if __CCE_AICORE__ == 200\n#include \"add_custom_310p.h\"\n#endif\n"),
    );
    let shape = [
        "--shape",
        "x=48x16384",
        "--shape",
        "y=48x16384",
        "--shape",
        "z=48x16384",
    ];
    let out = cargo_ascend_tune(p, &[&["init"][..], &shape[..]].concat());
    assert!(out.status.success(), "{:?}", text(&out));
    let manifest = std::fs::read_to_string(p.join("ascend.toml")).unwrap();
    assert!(
        !manifest.contains("file = \"op_kernel/add_custom_310p.h\""),
        "{manifest}"
    );
    assert!(
        manifest.contains("file = \"op_kernel/add_custom.cpp\"\nsymbol = \"BUFFER_NUM\""),
        "{manifest}"
    );
    assert!(
        text(&out).1.contains(
            "(op_kernel/add_custom_310p.h:3): its file is not read by the op's builds for this SoC"
        ),
        "{:?}",
        text(&out)
    );
}

/// The twin's builds pass `-H` (the headers each unit reads, for `reads.txt`); on an operator whose units
/// include hundreds of headers (ops-transformer's MoE tilings) that list filled the 8000 bytes of stderr
/// a child's result keeps, so a link error showed as "[... cut]", and init, finding no missing symbol in
/// it, never compiled the source defining it. The error must still be read whole.
#[test]
fn a_build_error_after_hundreds_of_included_headers_is_still_reported() {
    let dir = add_custom_refusing(
        "    { extern uint32_t TwinOtherSocTiling(uint32_t n); totalLength = TwinOtherSocTiling(totalLength); }\n",
    );
    let p = dir.path();
    let mut all = String::new();
    for i in 0..300 {
        // distinct guards: GCC takes `#pragma once` files of equal text for one file
        write(
            p,
            &format!("op_host/many_headers/header_number_{i:03}.h"),
            &format!("#ifndef HEADER_NUMBER_{i:03}\n#define HEADER_NUMBER_{i:03}\n#endif\n"),
        );
        all.push_str(&format!(
            "#include \"many_headers/header_number_{i:03}.h\"\n"
        ));
    }
    let host = p.join("op_host/add_custom.cpp");
    let src = std::fs::read_to_string(&host).unwrap();
    std::fs::write(&host, format!("{all}{src}")).unwrap();
    let out = cargo_ascend_tune(p, &["init", "--no-probe"]);
    assert!(out.status.success(), "{:?}", text(&out));
    let run = cargo_ascend_tune(p, &["run"]);
    assert!(!run.status.success(), "{:?}", text(&run));
    assert!(
        text(&run)
            .1
            .contains("undefined reference to `optiling::TwinOtherSocTiling(unsigned int)'"),
        "{:?}",
        text(&run)
    );
}

/// Writes add_custom's tiling unit test at `p`: one case `test` that expects success at x, y, z of
/// [48, 2048] fp16, with the attrs `attrs` (`TilingContextPara::OpAttr(...)`s, comma-separated).
fn write_attr_tiling_test(p: &std::path::Path, test: &str, attrs: &str) {
    let tests = p.join("tests/ut/op_host");
    std::fs::create_dir_all(&tests).unwrap();
    let t = "{{{48, 2048}, {48, 2048}}, ge::DT_FLOAT16, ge::FORMAT_ND}";
    std::fs::write(
        tests.join("test_add_custom_tiling.cpp"),
        format!(
            "TEST_F(AddCustomTiling, {test}) {{\n  gert::TilingContextPara para(\"AddCustom\",\n    {{{t}, {t}}},\n    {{{t}}},\n    {{{attrs}}}, &compileInfo);\n  ExecuteTestCase(para, ge::GRAPH_SUCCESS);\n}}\n"
        ),
    )
    .unwrap();
}

/// ops-math's cross: its tiling reads attr 0 (`dim`, which its aclnn layer passes) while its OpDef
/// declares no attr, and stopped at "dimPtr is nullptr" at every shape. Its tiling test gives the attr
/// in the `TilingContextPara::OpAttr(...)` form, which init did not read, and no manifest attr reached
/// the tiling past an OpDef. init now writes the test's attr, and the twin appends the manifest's attrs
/// the OpDef does not name after the OpDef's.
#[test]
fn init_writes_an_attr_the_tiling_test_gives_and_the_opdef_does_not_declare() {
    let dir = add_custom_refusing(
        "    { const int64_t *dim = context->GetAttrs()->GetAttrPointer<int64_t>(0); if (dim == nullptr || *dim != 1) { return ge::GRAPH_FAILED; } }\n",
    );
    let p = dir.path();
    write_attr_tiling_test(
        p,
        "dim_one",
        "gert::TilingContextPara::OpAttr(\"dim\", Ops::Math::AnyValue::CreateFrom<int64_t>(1))",
    );
    let out = cargo_ascend_tune(p, &["init"]);
    assert!(out.status.success(), "{:?}", text(&out));
    let manifest = std::fs::read_to_string(p.join("ascend.toml")).unwrap();
    assert!(
        manifest.contains("[[op.attr]]\nname = \"dim\"\nvalue = 1   # from the op's tiling test `dim_one`; the OpDef declares no such attr"),
        "{manifest}"
    );
    let run = cargo_ascend_tune(p, &["run"]);
    assert!(run.status.success(), "{:?}", text(&run));
    // the attr is what the tiling takes: another value is refused
    std::fs::write(
        p.join("ascend.toml"),
        manifest.replace("value = 1   # from the op's tiling test", "value = 2   #"),
    )
    .unwrap();
    let run = cargo_ascend_tune(p, &["run"]);
    assert!(!run.status.success(), "{:?}", text(&run));
}

/// Found on the held-out repositories (stop 67): ops-transformer's moe_gating_top_k ran at its tiling
/// test's `routed_scaling_factor` of 0 (the OpDef's default is 1.0), and `y` came out all zeros: a path
/// no user runs, and the one tuning measured. Here add_custom's tiling leaves the work out when its
/// attr `scale` is 0, as its tiling test gives it; init now runs the case with the attr at the
/// OpDef's default, where the output is not degenerate, and says so beside the attr. The test's other
/// attr, which the outputs do not need at its default, keeps the test's value.
#[test]
fn init_takes_an_attrs_default_where_the_tiling_tests_value_leaves_the_outputs_degenerate() {
    let dir = add_custom_refusing(
        "    if (context->GetInputShape(0)->GetOriginShape().GetDim(1) != 2048) { return ge::GRAPH_FAILED; }\n",
    );
    let p = dir.path();
    edit_add_custom_host(
        p,
        "        this->SetInferShape",
        "        this->Attr(\"scale\").AttrType(OPTIONAL).Float(1.0);\n        this->Attr(\"groups\").AttrType(OPTIONAL).Int(1);\n        this->SetInferShape",
    );
    edit_add_custom_host(
        p,
        "    tiling.SaveToBuffer",
        "    { const float *scale = context->GetAttrs()->GetAttrPointer<float>(0); if (scale != nullptr && *scale == 0.0f) { tiling.set_tileNum(0); } }\n    tiling.SaveToBuffer",
    );
    edit_add_custom(
        p,
        "op_kernel/add_custom.cpp",
        "    KernelAdd op;\n",
        "    if (tiling_data.tileNum == 0) { return; }\n    KernelAdd op;\n",
    );
    write_attr_tiling_test(
        p,
        "zero_scale",
        "gert::TilingContextPara::OpAttr(\"scale\", Ops::Math::AnyValue::CreateFrom<float>(0.0)), gert::TilingContextPara::OpAttr(\"groups\", Ops::Math::AnyValue::CreateFrom<int64_t>(4))",
    );
    let out = cargo_ascend_tune(p, &["init"]);
    assert!(out.status.success(), "{:?}", text(&out));
    let manifest = std::fs::read_to_string(p.join("ascend.toml")).unwrap();
    assert!(
        manifest.contains("[[op.attr]]\nname = \"scale\"\nvalue = 1.0   # guess: the OpDef's default, where the op's tiling test `zero_scale` gives 0.0: the op's outputs were degenerate there (output `z` of op `add_custom` is all zeros (98304 elements))"),
        "{manifest}"
    );
    // the attr the outputs do not need at its default keeps the test's value
    assert!(
        manifest.contains(
            "[[op.attr]]\nname = \"groups\"\nvalue = 4   # from the op's tiling test `zero_scale`\n"
        ),
        "{manifest}"
    );
    assert!(
        text(&out)
            .1
            .contains("its tiling test `zero_scale` with attrs `scale` at the OpDef's defaults written instead, 0 left"),
        "{:?}",
        text(&out)
    );
    let run = cargo_ascend_tune(p, &["run"]);
    assert!(run.status.success(), "{:?}", text(&run));
    assert!(!text(&run).1.contains("all zeros"), "{:?}", text(&run));
    // at the test's value the output is all zeros: what init left
    std::fs::write(
        p.join("ascend.toml"),
        manifest.replace(
            "value = 1.0   # guess: the OpDef's default",
            "value = 0.0   #",
        ),
    )
    .unwrap();
    let run = cargo_ascend_tune(p, &["run"]);
    assert!(text(&run).1.contains("is all zeros"), "{:?}", text(&run));
}

/// ops-nn's dynamic_quant: init probed 38 tunables, a build and run each, and passed the new-user run's
/// 400 s before it wrote a manifest. The probe of one op now stops after `--probe-seconds` (default 180);
/// the tunables it has not reached are kept, and init names them.
#[test]
fn init_stops_probing_at_its_time_limit_and_keeps_the_tunables_not_reached() {
    let dir = project("add_custom");
    let p = dir.path();
    std::fs::remove_file(p.join("ascend.toml")).unwrap();
    let out = cargo_ascend_tune(p, &["init", "--probe-seconds", "0"]);
    assert!(out.status.success(), "{:?}", text(&out));
    let said = text(&out).1;
    assert!(
        said.contains(
            "not probed and kept: its probe passed 0 s (`init --probe-seconds` gives it longer)"
        ),
        "{said}"
    );
    let manifest = std::fs::read_to_string(p.join("ascend.toml")).unwrap();
    assert!(manifest.contains("[[op.tunable]]"), "{manifest}");
}

/// ops-transformer's MoE operators (moe_finalize_routing_v2 and most of the 40 that failed in the
/// unseen repositories): a tiling that refuses init's guesses and tiling tests that give shapes but no
/// index data. Every op folder of hicann's repositories keeps an aclnn example
/// (`examples/test_aclnn_<op>.cpp`) whose tensors agree; init now takes its shapes, dtypes, integer data
/// and attrs as a case too, after the tiling tests' nearest. A tiling test the tiling takes but with
/// which the op faults is left for the example (init kept the first case the tiling took).
#[test]
fn init_takes_the_shapes_of_the_ops_own_example_when_the_tiling_refuses_its_guesses() {
    let dir = add_custom_refusing(
        "    if (context->GetInputShape(0)->GetOriginShape().GetDim(1) != 2048) { return ge::GRAPH_FAILED; }\n    if (context->GetInputShape(0)->GetOriginShape().GetDim(0) > 16) { totalLength = totalLength * 64; }\n",
    );
    let p = dir.path();
    let t = "{{{96, 2048}, {96, 2048}}, ge::DT_FLOAT16, ge::FORMAT_ND}";
    std::fs::create_dir_all(p.join("tests/ut/op_host")).unwrap();
    std::fs::write(
        p.join("tests/ut/op_host/test_add_custom_tiling.cpp"),
        format!(
            "TEST_F(AddCustomTiling, rows) {{\n  gert::TilingContextPara para(\"AddCustom\",\n    {{{t}, {t}}},\n    {{{t}}}, &compileInfo);\n  ExecuteTestCase(para, ge::GRAPH_SUCCESS);\n}}\n"
        ),
    )
    .unwrap();
    std::fs::create_dir_all(p.join("examples")).unwrap();
    std::fs::write(
        p.join("examples/test_aclnn_add_custom.cpp"),
        "int main() {\n  int64_t rows = 4;\n  std::vector<int64_t> xShape = {rows * 2, 2048};\n  std::vector<int64_t> yShape = {rows * 2, 2048};\n  std::vector<int64_t> zShape = {rows * 2, 2048};\n  std::vector<aclFloat16> xHostData(16384, 1);\n  std::vector<aclFloat16> yHostData(16384, 2);\n  std::vector<aclFloat16> zHostData(16384, 0);\n  ret = CreateAclTensor(xHostData, xShape, &xAddr, aclDataType::ACL_FLOAT16, &x);\n  ret = CreateAclTensor(yHostData, yShape, &yAddr, aclDataType::ACL_FLOAT16, &y);\n  ret = CreateAclTensor(zHostData, zShape, &zAddr, aclDataType::ACL_FLOAT16, &z);\n  ret = aclnnAddCustomGetWorkspaceSize(x, y, z, &workspaceSize, &executor);\n}\n",
    )
    .unwrap();
    let out = cargo_ascend_tune(p, &["init"]);
    assert!(out.status.success(), "{:?}", text(&out));
    let manifest = std::fs::read_to_string(p.join("ascend.toml")).unwrap();
    for input in ["x", "y"] {
        let line = format!(
            "name = \"{input}\"\ndtype = \"float16\"\nshape = [8, 2048]   # from the op's example `test_aclnn_add_custom` (examples/test_aclnn_add_custom.cpp:"
        );
        assert!(manifest.contains(&line), "{line}\n{manifest}");
    }
    assert!(
        text(&out)
            .1
            .contains("it failed with its tiling test `rows` (DataCopy: GM read out of bounds"),
        "{:?}",
        text(&out)
    );
    assert!(
        text(&out)
            .1
            .contains("of its example `test_aclnn_add_custom`"),
        "{:?}",
        text(&out)
    );
    let run = cargo_ascend_tune(p, &["run"]);
    assert!(run.status.success(), "{:?}", text(&run));
}

/// A tutorial of cann-learning-hub (08_performance_optimization custom_op_04_03) splits its work over
/// 40 blocks: at init's default [48, 16384] the kernel runs but leaves the tail undone, and its own
/// outputs became the reference every neighbouring tunable value then "failed" against, so init offered
/// nothing. A constraint the sources imply (`x_elems % block_dim == 0`), broken by their own values at
/// the default, now counts as a failed run: init takes its example's [45, 20480].
#[test]
fn init_takes_the_example_when_the_default_breaks_a_constraint_of_the_sources() {
    let dir = project("add_custom");
    let p = dir.path();
    std::fs::remove_file(p.join("ascend.toml")).unwrap();
    edit_add_custom(
        p,
        "op_host/add_custom.cpp",
        "const uint32_t BLOCK_DIM = 8;",
        "const uint32_t BLOCK_DIM = 40;",
    );
    std::fs::create_dir_all(p.join("examples")).unwrap();
    std::fs::write(
        p.join("examples/test_aclnn_add_custom.cpp"),
        "int main() {\n  std::vector<int64_t> xShape = {45, 20480};\n  std::vector<aclFloat16> xHostData(921600, 1);\n  ret = CreateAclTensor(xHostData, xShape, &xAddr, aclDataType::ACL_FLOAT16, &x);\n  ret = CreateAclTensor(xHostData, xShape, &yAddr, aclDataType::ACL_FLOAT16, &y);\n  ret = CreateAclTensor(xHostData, xShape, &zAddr, aclDataType::ACL_FLOAT16, &z);\n  ret = aclnnAddCustomGetWorkspaceSize(x, y, z, &workspaceSize, &executor);\n}\n",
    )
    .unwrap();
    let out = cargo_ascend_tune(p, &["init"]);
    assert!(out.status.success(), "{:?}", text(&out));
    let manifest = std::fs::read_to_string(p.join("ascend.toml")).unwrap();
    assert!(
        manifest.contains("shape = [45, 20480]   # from the op's example `test_aclnn_add_custom`"),
        "{manifest}"
    );
    assert!(
        text(&out).1.contains("break a constraint at these shapes"),
        "{:?}",
        text(&out)
    );
    let run = cargo_ascend_tune(p, &["run"]);
    assert!(run.status.success(), "{:?}", text(&run));
}

/// add_custom refusing any shape but `[_, 2048]`, with an int32 input `index` after y whose first 8
/// values its kernel takes as rows of `x` to read (out of bounds past x's rows), and a tiling test
/// `rows` at `rows` x 2048.
fn add_custom_reading_rows(index: &str, rows: u64) -> tempfile::TempDir {
    let dir = add_custom_refusing(
        "    if (context->GetInputShape(0)->GetOriginShape().GetDim(1) != 2048) { return ge::GRAPH_FAILED; }\n",
    );
    let p = dir.path();
    edit_add_custom_host(
        p,
        "        this->Output(\"z\")\n",
        &format!(
            "        this->Input(\"{index}\")\n            .ParamType(REQUIRED)\n            .DataType({{ge::DT_INT32}})\n            .Format({{ge::FORMAT_ND}});\n        this->Output(\"z\")\n"
        ),
    );
    edit_add_custom(
        p,
        "op_kernel/add_custom.cpp",
        "void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z,",
        &format!("void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR {index}, GM_ADDR z,"),
    );
    edit_add_custom(
        p,
        "op_kernel/add_custom.cpp",
        "    GET_TILING_DATA(tiling_data, tiling);\n",
        &format!(
            "    GET_TILING_DATA(tiling_data, tiling);\n    {{ AscendC::GlobalTensor<int32_t> r; r.SetGlobalBuffer((__gm__ int32_t *){index}); AscendC::GlobalTensor<DTYPE_X> xs; xs.SetGlobalBuffer((__gm__ DTYPE_X *)x); for (int i = 0; i < 8; i++) {{ xs.GetValue((int64_t)r.GetValue(i) * 2048); }} }}\n"
        ),
    );
    let t = format!("{{{{{{{rows}, 2048}}, {{{rows}, 2048}}}}, ge::DT_FLOAT16, ge::FORMAT_ND}}");
    let idx = format!("{{{{{{{rows}}}, {{{rows}}}}}, ge::DT_INT32, ge::FORMAT_ND}}");
    std::fs::create_dir_all(p.join("tests/ut/op_host")).unwrap();
    std::fs::write(
        p.join("tests/ut/op_host/test_add_custom_tiling.cpp"),
        format!(
            "TEST_F(AddCustomTiling, rows) {{\n  gert::TilingContextPara para(\"AddCustom\",\n    {{{t}, {t}, {idx}}},\n    {{{t}}}, &compileInfo);\n  ExecuteTestCase(para, ge::GRAPH_SUCCESS);\n}}\n"
        ),
    )
    .unwrap();
    dir
}

/// ops-transformer's moe_token_unpermute: its example's hidden size and top-k are both 2, so widening
/// the one widened `probs` too, and the kernel then read past the end of `sorted_indices` (a warning,
/// not a fault), which init took for a run. A case is grown only while the op runs as cleanly as at the
/// case taken: here an input `w` of 4 floats that the kernel reads rows / 2 of.
#[test]
fn init_stops_growing_a_case_where_the_kernel_starts_reading_past_an_input() {
    let dir = add_custom_refusing(
        "    if (context->GetInputShape(0)->GetOriginShape().GetDim(1) != 2048) { return ge::GRAPH_FAILED; }\n",
    );
    let p = dir.path();
    edit_add_custom_host(
        p,
        "        this->Output(\"z\")\n",
        "        this->Input(\"w\")\n            .ParamType(REQUIRED)\n            .DataType({ge::DT_FLOAT})\n            .Format({ge::FORMAT_ND});\n        this->Output(\"z\")\n",
    );
    edit_add_custom(
        p,
        "op_kernel/add_custom.cpp",
        "void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z,",
        "void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR w, GM_ADDR z,",
    );
    edit_add_custom(
        p,
        "op_kernel/add_custom.cpp",
        "    GET_TILING_DATA(tiling_data, tiling);\n",
        "    GET_TILING_DATA(tiling_data, tiling);\n    { AscendC::TPipe wp; AscendC::TBuf<AscendC::TPosition::VECCALC> wb; wp.InitBuffer(wb, 4096); AscendC::LocalTensor<float> wl = wb.Get<float>(); AscendC::GlobalTensor<float> wg; wg.SetGlobalBuffer((__gm__ float *)w); uint32_t n = tiling_data.totalLength / 2048 / 2; AscendC::DataCopyExtParams e{1, n * 4, 0, 0, 0}; AscendC::DataCopyPadExtParams<float> pad{false, 0, 0, 0}; AscendC::DataCopyPad(wl, wg, e, pad); }\n",
    );
    std::fs::create_dir_all(p.join("examples")).unwrap();
    std::fs::write(
        p.join("examples/test_aclnn_add_custom.cpp"),
        "int main() {\n  std::vector<int64_t> xShape = {8, 2048};\n  std::vector<int64_t> wShape = {4};\n  std::vector<aclFloat16> xHostData(16384, 1);\n  std::vector<float> wHostData = {5, 6, 7, 8};\n  ret = CreateAclTensor(xHostData, xShape, &xAddr, aclDataType::ACL_FLOAT16, &x);\n  ret = CreateAclTensor(xHostData, xShape, &yAddr, aclDataType::ACL_FLOAT16, &y);\n  ret = CreateAclTensor(wHostData, wShape, &wAddr, aclDataType::ACL_FLOAT, &w);\n  ret = CreateAclTensor(xHostData, xShape, &zAddr, aclDataType::ACL_FLOAT16, &z);\n  ret = aclnnAddCustomGetWorkspaceSize(x, y, w, z, &workspaceSize, &executor);\n}\n",
    )
    .unwrap();
    init_keeps_the_examples_8_by_2048(p);
    let run = cargo_ascend_tune(p, &["run"]);
    assert!(run.status.success(), "{:?}", text(&run));
    assert!(!text(&run).1.contains("past the end"), "{:?}", text(&run));
}

/// ops-transformer's moe_token_unpermute: its example's `permuted_tokens` rows were grown from 2 to
/// 131072 while its kernel, which walks the tokens of another input, still read two rows (0.82 us, all
/// launch). A case is grown only while a step (or two, for copies rounded to the same blocks) does
/// more work: here a tiling that caps the elements at the example's 16384, so more rows are no more
/// work, and the example's [8, 2048] stays.
#[test]
fn init_does_not_grow_an_axis_the_kernel_does_no_more_work_along() {
    let dir = add_custom_refusing(
        "    if (context->GetInputShape(0)->GetOriginShape().GetDim(1) != 2048) { return ge::GRAPH_FAILED; }\n    if (totalLength > 16384) { totalLength = 16384; }\n",
    );
    let p = dir.path();
    std::fs::create_dir_all(p.join("examples")).unwrap();
    std::fs::write(
        p.join("examples/test_aclnn_add_custom.cpp"),
        "int main() {\n  std::vector<int64_t> xShape = {8, 2048};\n  std::vector<aclFloat16> xHostData(16384, 1);\n  ret = CreateAclTensor(xHostData, xShape, &xAddr, aclDataType::ACL_FLOAT16, &x);\n  ret = CreateAclTensor(xHostData, xShape, &yAddr, aclDataType::ACL_FLOAT16, &y);\n  ret = CreateAclTensor(xHostData, xShape, &zAddr, aclDataType::ACL_FLOAT16, &z);\n  ret = aclnnAddCustomGetWorkspaceSize(x, y, z, &workspaceSize, &executor);\n}\n",
    )
    .unwrap();
    init_keeps_the_examples_8_by_2048(p);
}

/// Runs init in `p` and checks that it took the example's [8, 2048] for `x` and did not grow it.
fn init_keeps_the_examples_8_by_2048(p: &std::path::Path) {
    let out = cargo_ascend_tune(p, &["init", "--probe-seconds", "0"]);
    assert!(out.status.success(), "{:?}", text(&out));
    let said = text(&out).1;
    assert!(!said.contains("Grew"), "{said}");
    let manifest = std::fs::read_to_string(p.join("ascend.toml")).unwrap();
    assert!(
        manifest.contains(
            "name = \"x\"\ndtype = \"float16\"\nshape = [8, 2048]   # from the op's example"
        ),
        "{manifest}"
    );
}

/// The aclnn example of `add_custom_reading_rows("row_idx", _)`: 8 rows, row_idx a permutation of them.
fn write_row_idx_example(p: &std::path::Path) {
    std::fs::create_dir_all(p.join("examples")).unwrap();
    std::fs::write(
        p.join("examples/test_aclnn_add_custom.cpp"),
        "int main() {\n  std::vector<int64_t> xShape = {8, 2048};\n  std::vector<int64_t> idxShape = {8};\n  std::vector<aclFloat16> xHostData(16384, 1);\n  std::vector<aclFloat16> yHostData(16384, 2);\n  std::vector<int32_t> rowIdxHostData = {3, 1, 0, 2, 7, 5, 6, 4};\n  std::vector<aclFloat16> zHostData(16384, 0);\n  ret = CreateAclTensor(xHostData, xShape, &xAddr, aclDataType::ACL_FLOAT16, &x);\n  ret = CreateAclTensor(yHostData, xShape, &yAddr, aclDataType::ACL_FLOAT16, &y);\n  ret = CreateAclTensor(rowIdxHostData, idxShape, &rowIdxAddr, aclDataType::ACL_INT32, &rowIdx);\n  ret = CreateAclTensor(zHostData, xShape, &zAddr, aclDataType::ACL_FLOAT16, &z);\n  ret = aclnnAddCustomGetWorkspaceSize(x, y, rowIdx, z, &workspaceSize, &executor);\n}\n",
    )
    .unwrap();
}

/// moe_finalize_routing_v2 ran only at its example's tiny shapes (6 rows, launch-bound: nothing to tune):
/// its tiling tests give the op's real shapes but no data, and the uniform [-100, 100) of its
/// `expanded_row_idx` read rows out of bounds. The example's data says what kind of data it is (a
/// permutation of the rows); init now draws that kind at the tiling test's shapes.
#[test]
fn init_draws_the_index_data_its_example_gives_at_the_tiling_tests_shapes() {
    let dir = add_custom_reading_rows("row_idx", 96);
    let p = dir.path();
    write_row_idx_example(p);
    let out = cargo_ascend_tune(p, &["init", "--probe-seconds", "0"]);
    assert!(out.status.success(), "{:?}", text(&out));
    let manifest = std::fs::read_to_string(p.join("ascend.toml")).unwrap();
    let drawn = "name = \"row_idx\"\ndtype = \"int32\"\nshape = [96]   # shape and dtype from the op's tiling test `rows` (tests/ut/op_host/test_add_custom_tiling.cpp:2); data a permutation of its indices, as the op's example gives it\ndata = \"permutation\"\n";
    assert!(manifest.contains(drawn), "{manifest}\n{:?}", text(&out));
    let run = cargo_ascend_tune(p, &["run"]);
    assert!(run.status.success(), "{:?}", text(&run));
    // drawn uniformly, as before, the index reads out of bounds
    std::fs::write(
        p.join("ascend.toml"),
        manifest.replace("data = \"permutation\"\n", ""),
    )
    .unwrap();
    let run = cargo_ascend_tune(p, &["run"]);
    assert!(!run.status.success(), "{:?}", text(&run));
    assert!(
        text(&run)
            .1
            .contains("GlobalTensor::GetValue: GM read out of bounds"),
        "{:?}",
        text(&run)
    );
}

/// The index guess made again at the case's shapes must only reach the inputs it guessed: an index
/// whose data the example's kind gives (`row_index`, a permutation) keeps its `data` and gains no
/// `range` (which the manifest refuses beside a permutation) while `out_index`, whose example data init
/// cannot read, is guessed at the test's 30 rows.
#[test]
fn an_index_guess_made_again_leaves_the_carried_data_of_another() {
    let dir = add_custom_reading_rows("row_index", 30);
    let p = dir.path();
    edit_add_custom_host(
        p,
        "        this->Output(\"z\")\n",
        "        this->Input(\"out_index\")\n            .ParamType(REQUIRED)\n            .DataType({ge::DT_INT32})\n            .Format({ge::FORMAT_ND});\n        this->Output(\"z\")\n",
    );
    edit_add_custom(
        p,
        "op_kernel/add_custom.cpp",
        "GM_ADDR row_index, GM_ADDR z,",
        "GM_ADDR row_index, GM_ADDR out_index, GM_ADDR z,",
    );
    let t = "{{{30, 2048}, {30, 2048}}, ge::DT_FLOAT16, ge::FORMAT_ND}";
    let idx = "{{{30}, {30}}, ge::DT_INT32, ge::FORMAT_ND}";
    std::fs::write(
        p.join("tests/ut/op_host/test_add_custom_tiling.cpp"),
        format!(
            "TEST_F(AddCustomTiling, rows) {{\n  gert::TilingContextPara para(\"AddCustom\",\n    {{{t}, {t}, {idx}, {idx}}},\n    {{{t}}}, &compileInfo);\n  ExecuteTestCase(para, ge::GRAPH_SUCCESS);\n}}\n"
        ),
    )
    .unwrap();
    std::fs::create_dir_all(p.join("examples")).unwrap();
    std::fs::write(
        p.join("examples/test_aclnn_add_custom.cpp"),
        "int main() {\n  std::vector<int64_t> xShape = {8, 2048};\n  std::vector<int64_t> idxShape = {8};\n  std::vector<aclFloat16> xHostData(16384, 1);\n  std::vector<aclFloat16> yHostData(16384, 2);\n  std::vector<int32_t> rowIndexHostData = {3, 1, 0, 2, 7, 5, 6, 4};\n  std::vector<int32_t> outIndexHostData = MakeOutIndex();\n  std::vector<aclFloat16> zHostData(16384, 0);\n  ret = CreateAclTensor(xHostData, xShape, &xAddr, aclDataType::ACL_FLOAT16, &x);\n  ret = CreateAclTensor(yHostData, xShape, &yAddr, aclDataType::ACL_FLOAT16, &y);\n  ret = CreateAclTensor(rowIndexHostData, idxShape, &rAddr, aclDataType::ACL_INT32, &rowIndex);\n  ret = CreateAclTensor(outIndexHostData, idxShape, &oAddr, aclDataType::ACL_INT32, &outIndex);\n  ret = CreateAclTensor(zHostData, xShape, &zAddr, aclDataType::ACL_FLOAT16, &z);\n  ret = aclnnAddCustomGetWorkspaceSize(x, y, rowIndex, outIndex, z, &workspaceSize, &executor);\n}\n",
    )
    .unwrap();
    let out = cargo_ascend_tune(p, &["init", "--probe-seconds", "0"]);
    assert!(out.status.success(), "{:?}", text(&out));
    let manifest = std::fs::read_to_string(p.join("ascend.toml")).unwrap();
    let carried = "name = \"row_index\"\ndtype = \"int32\"\nshape = [30]   # shape and dtype from the op's tiling test `rows` (tests/ut/op_host/test_add_custom_tiling.cpp:2); data a permutation of its indices, as the op's example gives it\ndata = \"permutation\"\n\n";
    assert!(manifest.contains(carried), "{manifest}");
    assert!(
        manifest.contains("name = \"out_index\"\ndtype = \"int32\"\nshape = [30]   # guess: `out_index` holds positions along axis 0 (30 long): data in [0, 30)"),
        "{manifest}"
    );
    let run = cargo_ascend_tune(p, &["run"]);
    assert!(run.status.success(), "{:?}", text(&run));
}

/// ops-transformer's moe_init_routing, ops-cv's upsample_nearest_exact3d: the tiling took the default
/// shape, so init kept it, with a placeholder for each attr that has no default and index data below an
/// axis it picked, while the op's example, a valid call, was never tried (it was not a workload's size).
/// Where the default's manifest guesses what a call gives, the example is taken at any size, then grown.
#[test]
fn init_takes_a_small_example_where_the_default_guesses_attr_values() {
    let dir = project("add_custom");
    let p = dir.path();
    std::fs::remove_file(p.join("ascend.toml")).unwrap();
    edit_add_custom_host(
        p,
        "        this->SetInferShape(",
        "        this->Attr(\"alpha\").AttrType(REQUIRED).Float();\n        this->SetInferShape(",
    );
    std::fs::create_dir_all(p.join("examples")).unwrap();
    std::fs::write(
        p.join("examples/test_aclnn_add_custom.cpp"),
        "int main() {\n  std::vector<int64_t> xShape = {8, 2048};\n  std::vector<aclFloat16> xHostData(16384, 1);\n  float alpha = 0.5f;\n  ret = CreateAclTensor(xHostData, xShape, &xAddr, aclDataType::ACL_FLOAT16, &x);\n  ret = CreateAclTensor(xHostData, xShape, &yAddr, aclDataType::ACL_FLOAT16, &y);\n  ret = CreateAclTensor(xHostData, xShape, &zAddr, aclDataType::ACL_FLOAT16, &z);\n  ret = aclnnAddCustomGetWorkspaceSize(x, y, alpha, z, &workspaceSize, &executor);\n}\n",
    )
    .unwrap();
    let out = cargo_ascend_tune(p, &["init", "--probe-seconds", "0"]);
    assert!(out.status.success(), "{:?}", text(&out));
    let said = text(&out).1;
    assert!(
        said.contains("the default shape [48, 16384] is a guess, and so are attr values, where its example is a valid call"),
        "{said}"
    );
    let manifest = std::fs::read_to_string(p.join("ascend.toml")).unwrap();
    for want in [
        "name = \"alpha\"\nvalue = 0.5   # from the op's example `test_aclnn_add_custom`",
        "name = \"x\"\ndtype = \"float16\"\nshape = [",
        "from the op's example `test_aclnn_add_custom` (examples/test_aclnn_add_custom.cpp:",
    ] {
        assert!(manifest.contains(want), "{want}\n{manifest}");
    }
    assert!(!manifest.contains("no default"), "{manifest}");
    let run = cargo_ascend_tune(p, &["run"]);
    assert!(run.status.success(), "{:?}", text(&run));
}

/// moe_gating_top_k_softmax ran at its example's 3 rows (0.958 us, the launch is all there is to
/// time): tuning had nothing to find. A small case init takes is grown, rows times 4 while the
/// tiling takes them and the op runs, up to the default's element count; the example's index data is
/// drawn again at each size.
#[test]
fn init_grows_the_small_example_it_takes_while_the_op_runs() {
    let dir = add_custom_reading_rows("row_idx", 96);
    let p = dir.path();
    std::fs::remove_file(p.join("tests/ut/op_host/test_add_custom_tiling.cpp")).unwrap();
    write_row_idx_example(p);
    let out = cargo_ascend_tune(p, &["init", "--probe-seconds", "0"]);
    assert!(out.status.success(), "{:?}", text(&out));
    let said = text(&out).1;
    assert!(
        said.contains(
            "Grew `add_custom`: the rows of its example `test_aclnn_add_custom` from 8 to 128"
        ),
        "{said}"
    );
    let manifest = std::fs::read_to_string(p.join("ascend.toml")).unwrap();
    for want in [
        "name = \"x\"\ndtype = \"float16\"\nshape = [128, 2048]   # from the op's example `test_aclnn_add_custom` (examples/test_aclnn_add_custom.cpp:8), its rows grown from 8 to 128\n",
        "name = \"row_idx\"\ndtype = \"int32\"\nshape = [128]   # shape and dtype from the op's example `test_aclnn_add_custom` (examples/test_aclnn_add_custom.cpp:8), its rows grown from 8 to 128; data a permutation of its indices, as the op's example gives it\ndata = \"permutation\"\n",
        "name = \"z\"\ndtype = \"float16\"\nshape = [128, 2048]",
    ] {
        assert!(manifest.contains(want), "{want}\n{manifest}");
    }
    let run = cargo_ascend_tune(p, &["run"]);
    assert!(run.status.success(), "{:?}", text(&run));
}

/// moe_token_unpermute_with_routing_map_grad: init guessed its `out_index` as positions along the
/// default shape's 48 rows, then took a tiling test of 30 rows and kept [0, 48): the kernel wrote out
/// of bounds. The guess is now made again at the case's shapes.
#[test]
fn an_index_guess_is_made_again_at_the_shapes_of_the_tiling_test_taken() {
    let dir = add_custom_reading_rows("out_index", 30);
    let p = dir.path();
    let out = cargo_ascend_tune(p, &["init", "--probe-seconds", "0"]);
    assert!(out.status.success(), "{:?}", text(&out));
    let manifest = std::fs::read_to_string(p.join("ascend.toml")).unwrap();
    let guessed = "name = \"out_index\"\ndtype = \"int32\"\nshape = [30]   # guess: `out_index` holds positions along axis 0 (30 long): data in [0, 30) (shape and dtype from the op's tiling test `rows`";
    assert!(manifest.contains(guessed), "{manifest}");
    assert!(manifest.contains("range = [0.0, 30.0]"), "{manifest}");
    let run = cargo_ascend_tune(p, &["run"]);
    assert!(run.status.success(), "{:?}", text(&run));
}

/// An optional input the call leaves out (`absent = true`): 30 of ops-transformer's 85 aclnn examples
/// pass `nullptr` for one, and a manifest could not say so. Here add_custom takes an optional `bias`
/// between x and y that its kernel skips when null and its tiling checks is absent: the kernel's
/// arguments stay in place (y is still y), the tiling sees no tensor, and z is x + y. The manifest
/// rejects `absent` on an output.
#[test]
fn an_absent_optional_input_is_a_null_kernel_argument_and_no_tiling_tensor() {
    let dir = project("add_custom");
    let p = dir.path();
    edit_add_custom_host(
        p,
        "        this->Input(\"y\")\n",
        "        this->Input(\"bias\")\n            .ParamType(OPTIONAL)\n            .DataType({ge::DT_FLOAT16})\n            .Format({ge::FORMAT_ND});\n        this->Input(\"y\")\n",
    );
    edit_add_custom_host(
        p,
        "    uint32_t totalLength = context->GetInputShape(0)->GetOriginShape().GetShapeSize();\n",
        "    uint32_t totalLength = context->GetInputShape(0)->GetOriginShape().GetShapeSize();\n    if (context->GetOptionalInputShape(1) != nullptr) { return ge::GRAPH_FAILED; }\n",
    );
    edit_add_custom(
        p,
        "op_kernel/add_custom.cpp",
        "void add_custom(GM_ADDR x, GM_ADDR y,",
        "void add_custom(GM_ADDR x, GM_ADDR bias, GM_ADDR y,",
    );
    edit_add_custom(
        p,
        "op_kernel/add_custom.cpp",
        "    GET_TILING_DATA(tiling_data, tiling);\n",
        "    if (bias != nullptr) { return; }\n    GET_TILING_DATA(tiling_data, tiling);\n",
    );
    let manifest = std::fs::read_to_string(p.join("ascend.toml")).unwrap();
    let with_absent = manifest.replacen(
        "[[op.input]]\nname = \"y\"",
        "[[op.input]]\nname = \"bias\"\ndtype = \"float16\"\nabsent = true\n\n[[op.input]]\nname = \"y\"",
        1,
    );
    assert_ne!(with_absent, manifest, "the fixture's manifest changed");
    std::fs::write(p.join("ascend.toml"), &with_absent).unwrap();
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_cargo-ascend-tune"))
        .args(["ascend-tune", "run"])
        .current_dir(p)
        .env("ASCEND_TUNE_KEEP_RUNS", "1")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(run.status.success(), "{:?}", text(&run));
    let work = p.join("target/ascend-tune");
    let halves = |b: Vec<u8>| -> Vec<f32> {
        b.chunks_exact(2)
            .map(|c| half::f16::from_le_bytes([c[0], c[1]]).to_f32())
            .collect()
    };
    let x = halves(crate::tensor_list::newest_file(&work.join("data"), "x.bin"));
    let y = halves(crate::tensor_list::newest_file(&work.join("data"), "y.bin"));
    let z = halves(crate::tensor_list::newest_file(
        &work.join("runs"),
        "z.out.bin",
    ));
    assert_eq!(z.len(), 48 * 16384);
    for i in 0..z.len() {
        let want = half::f16::from_f32(x[i] + y[i]).to_f32();
        assert_eq!(z[i], want, "z[{i}]");
    }
    // an output cannot be absent
    std::fs::write(
        p.join("ascend.toml"),
        with_absent.replacen(
            "[[op.output]]\nname = \"z\"",
            "[[op.output]]\nname = \"z\"\nabsent = true",
            1,
        ),
    )
    .unwrap();
    let run = cargo_ascend_tune(p, &["run"]);
    assert!(!run.status.success());
    assert!(
        text(&run).1.contains("output `z` is marked `absent`"),
        "{:?}",
        text(&run)
    );
}

/// hicann/cann-learning-hub's tutorial adds load a core's whole share at once (tileNum = 1 over 8
/// blocks): init's default [48, 16384] overflowed the UB and, with no example or tiling test to take,
/// the op never ran. A default whose kernel overflows the UB now gives way to fewer rows, said beside
/// the shape.
#[test]
fn init_takes_fewer_rows_when_the_kernel_overflows_the_ub_at_the_default() {
    let dir = project("add_custom");
    let p = dir.path();
    std::fs::remove_file(p.join("ascend.toml")).unwrap();
    edit_add_custom_host(
        p,
        "    tiling.set_tileNum(totalLength / BLOCK_DIM / TILE_LENGTH);\n",
        "    tiling.set_tileNum(1);\n",
    );
    let out = cargo_ascend_tune(p, &["init", "--probe-seconds", "0"]);
    assert!(out.status.success(), "{:?}", text(&out));
    assert!(
        text(&out).1.contains("Fitted `add_custom`: its kernel overflowed the UB at the default shape [48, 16384] (InitBuffer: UB overflow"),
        "{:?}",
        text(&out)
    );
    let manifest = std::fs::read_to_string(p.join("ascend.toml")).unwrap();
    assert!(
        manifest.contains("shape = [12, 16384]   # guess: a default smaller than [48, 16384], at which the kernel overflowed the UB (InitBuffer: UB overflow"),
        "{manifest}"
    );
    let run = cargo_ascend_tune(p, &["run"]);
    assert!(run.status.success(), "{:?}", text(&run));
}

/// ops-transformer's moe_token_permute: its example's 3 tokens of hidden size 4, grown by rows alone,
/// ran at [196608, 4] (rows of 8 bytes). A narrow example is widened first, its last axis times 4
/// while under 1024 and the op runs, then its rows grow as before; the manifest says both.
#[test]
fn init_widens_a_narrow_example_before_growing_its_rows() {
    let dir = add_custom_refusing(
        "    if (context->GetInputShape(0)->GetOriginShape().GetDim(1) > 4096) { return ge::GRAPH_FAILED; }\n",
    );
    let p = dir.path();
    std::fs::create_dir_all(p.join("examples")).unwrap();
    std::fs::write(
        p.join("examples/test_aclnn_add_custom.cpp"),
        "int main() {\n  std::vector<int64_t> xShape = {128, 16};\n  std::vector<aclFloat16> xHostData(2048, 1);\n  ret = CreateAclTensor(xHostData, xShape, &xAddr, aclDataType::ACL_FLOAT16, &x);\n  ret = CreateAclTensor(xHostData, xShape, &yAddr, aclDataType::ACL_FLOAT16, &y);\n  ret = CreateAclTensor(xHostData, xShape, &zAddr, aclDataType::ACL_FLOAT16, &z);\n  ret = aclnnAddCustomGetWorkspaceSize(x, y, z, &workspaceSize, &executor);\n}\n",
    )
    .unwrap();
    let out = cargo_ascend_tune(p, &["init", "--probe-seconds", "0"]);
    assert!(out.status.success(), "{:?}", text(&out));
    let said = text(&out).1;
    assert!(
        said.contains("Grew `add_custom`: the last axis of its example `test_aclnn_add_custom` from 16 to 1024 and its rows from 128 to 512"),
        "{said}"
    );
    let manifest = std::fs::read_to_string(p.join("ascend.toml")).unwrap();
    assert!(
        manifest.contains("shape = [512, 1024]   # from the op's example `test_aclnn_add_custom` (examples/test_aclnn_add_custom.cpp:4), its last axis widened from 16 to 1024, its rows grown from 128 to 512"),
        "{manifest}"
    );
    let run = cargo_ascend_tune(p, &["run"]);
    assert!(run.status.success(), "{:?}", text(&run));
}

/// The learning hub's performance tutorials (08_performance_optimization custom_op_04_0x) set their
/// tile count as a literal in the tiling (`tiling->tileNum = 360;`) and measure the op at [45, 20480]
/// in their own test program. init takes an example sized as a workload over its default guess, even
/// when the default runs, and offers the literal as a tile count bound to the field; an example sized
/// as a smoke test is not taken. A tune then moves the field's literal and writes it back in place.
#[test]
fn init_takes_a_workload_sized_example_and_offers_a_tiling_fields_literal() {
    let example = |rows: u64, cols: u64| {
        format!(
            "int main() {{\n  std::vector<int64_t> xShape = {{{rows}, {cols}}};\n  std::vector<aclFloat16> xHostData({}, 1);\n  ret = CreateAclTensor(xHostData, xShape, &xAddr, aclDataType::ACL_FLOAT16, &x);\n  ret = CreateAclTensor(xHostData, xShape, &yAddr, aclDataType::ACL_FLOAT16, &y);\n  ret = CreateAclTensor(xHostData, xShape, &zAddr, aclDataType::ACL_FLOAT16, &z);\n  ret = aclnnAddCustomGetWorkspaceSize(x, y, z, &workspaceSize, &executor);\n}}\n",
            rows * cols
        )
    };
    let setup = |rows: u64, cols: u64| {
        let dir = project("add_custom");
        let p = dir.path();
        std::fs::remove_file(p.join("ascend.toml")).unwrap();
        edit_add_custom(
            p,
            "op_host/add_custom.cpp",
            "tiling.set_tileNum(totalLength / BLOCK_DIM / TILE_LENGTH);",
            "tiling.set_tileNum(64);",
        );
        std::fs::create_dir_all(p.join("test")).unwrap();
        std::fs::write(p.join("test/main.cpp"), example(rows, cols)).unwrap();
        git(p, &["add", "-A"]);
        git(
            p,
            &[
                "commit",
                "-q",
                "-m",
                "a literal tile count and a test program",
            ],
        );
        dir
    };
    let dir = setup(40, 20480);
    let p = dir.path();
    let out = cargo_ascend_tune(p, &["init"]);
    assert!(out.status.success(), "{:?}", text(&out));
    let manifest = std::fs::read_to_string(p.join("ascend.toml")).unwrap();
    assert!(
        manifest.contains("shape = [40, 20480]   # from the op's example `main` (test/main.cpp:"),
        "{manifest}"
    );
    assert!(
        text(&out)
            .1
            .contains("is a guess, and its example runs it at a workload's size (819200 elements)"),
        "{:?}",
        text(&out)
    );
    assert!(
        manifest.contains(
            "name = \"tile_num\"\nfile = \"op_host/add_custom.cpp\"\nfield = \"tileNum\"   # the literal the tiling assigns to this field\nvalues = [1, 2, 4, 8, 16, 32, 64, 128, 256]   # now 64"
        ),
        "{manifest}"
    );
    let tune = cargo_ascend_tune(p, &["tune", "--budget", "6", "--seed", "1"]);
    assert!(tune.status.success(), "{:?}", text(&tune));
    let host = std::fs::read_to_string(p.join("op_host/add_custom.cpp")).unwrap();
    let lock = std::fs::read_to_string(p.join("ascend-tune.lock")).unwrap();
    let tuned = lock
        .lines()
        .find_map(|l| l.strip_prefix("params = "))
        .and_then(|p| p.split("tile_num = ").nth(1))
        .and_then(|v| v.split([',', ' ', '}']).next())
        .expect("the lock records tile_num");
    assert!(
        tuned != "64" && host.contains(&format!("tiling.set_tileNum({tuned});")),
        "{tuned}\n{host}"
    );
    // A smoke-test example (8 x 2048) leaves the default in place.
    let dir = setup(8, 2048);
    let out = cargo_ascend_tune(dir.path(), &["init"]);
    assert!(out.status.success(), "{:?}", text(&out));
    let manifest = std::fs::read_to_string(dir.path().join("ascend.toml")).unwrap();
    assert!(
        manifest.contains("shape = [48, 16384]   # a default"),
        "{manifest}"
    );
}

/// A host program whose link misses a function another source of the op defines (an arch35 file the
/// tiling calls into): init compiles that source too and runs InferShape again, without first warning
/// that InferShape could not be run (ops-math's circular_pad_grad printed that warning, with an empty
/// reason, and then ran InferShape fine).
#[test]
fn a_link_miss_init_resolves_is_not_reported_as_an_infershape_failure() {
    let dir = tempfile::tempdir().unwrap();
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cli/projects/sibling_utils");
    copy_tree(&from, dir.path());
    let op = dir.path().join("sib_norm");
    let tiling = op.join("op_host/sib_norm_tiling.cpp");
    let source = std::fs::read_to_string(&tiling).unwrap();
    let source = source
        .replace(
            "namespace optiling {\n",
            "namespace optiling {\nuint32_t SibNormBlocks();\n",
        )
        .replace("SetBlockDim(8)", "SetBlockDim(SibNormBlocks())");
    std::fs::write(&tiling, source).unwrap();
    std::fs::create_dir_all(op.join("op_host/arch35")).unwrap();
    std::fs::write(
        op.join("op_host/arch35/sib_norm_blocks.cpp"),
        "#include <cstdint>\nnamespace optiling {\nuint32_t SibNormBlocks() { return 8; }\n}\n",
    )
    .unwrap();
    let out = cargo_ascend_tune(&op, &["init", "--shape", "x=4x1000", "--shape", "y=4x1000"]);
    assert!(out.status.success(), "{:?}", text(&out));
    let (_, stderr) = text(&out);
    assert!(stderr.contains("compiled too"), "{stderr}");
    assert!(!stderr.contains("could not be run"), "{stderr}");
    let manifest = std::fs::read_to_string(op.join("ascend.toml")).unwrap();
    assert!(
        manifest.contains("op_host/arch35/sib_norm_blocks.cpp")
            && manifest.contains("shape = [4, 1000]   # from the op's InferShape"),
        "{manifest}"
    );
}

/// An op whose OpDef registers no InferShape and whose kernel writes one value per row (ops-nn's
/// ada_layer_norm_quant `quant_scale`, fused_cross_entropy_loss_with_max_sum `loss`): init guessed the
/// output as the main input's [48, 16384] and `run` then warned that 786384 of its elements were never
/// written. init now runs the op, sees that its kernel writes exactly the first 48 elements, the main
/// shape's leading axis, and writes y as [48], saying why; `run` then has nothing to warn of.
#[test]
fn init_fits_an_output_the_kernel_writes_one_value_per_row_of() {
    let dir = test_project("row_sum_custom");
    let out = cargo_ascend_tune(dir.path(), &["init", "--color", "never"]);
    assert!(out.status.success(), "{:?}", text(&out));
    let (_, err) = text(&out);
    assert!(
        err.contains(
            "Fitted `row_sum_custom`: its kernel writes only the leading axes' worth of `y`"
        ),
        "{err}"
    );
    let manifest = std::fs::read_to_string(dir.path().join("ascend.toml")).unwrap();
    assert!(
        manifest.contains(
            "shape = [48]   # guess: [48], the main input's leading axes: its kernel wrote only the first 48 of the 786432 elements"
        ),
        "{manifest}"
    );
    assert!(manifest.contains("shape = [48, 16384]"), "{manifest}");
    let out = cargo_ascend_tune(dir.path(), &["run", "--color", "never"]);
    assert!(out.status.success(), "{:?}", text(&out));
    let (_, err) = text(&out);
    assert!(!err.contains("depend on what the output held"), "{err}");
}
