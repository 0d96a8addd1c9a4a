//! The files passed between the tool and the twin's two programs (documented in
//! `templates/twin/README.md`): the tiling spec in, the tiling result out, and the kernel run file.
//! Plain "key value" lines so the C++ side needs no parser library.

use crate::manifest::{AttrValue, DType, OpSpec, TensorSpec};
use crate::model::soc::Soc;
use std::fmt::Write;
use std::path::Path;

/// The tiling spec. `input_data` names the file holding each input's data (the bytes the kernel
/// gets), written as a fourth field of its `input` line so a value-dependent tiling function can read
/// it; an empty slice leaves the field out (the older three-field form, which the twin still reads).
pub fn tiling_spec(op: &OpSpec, soc: &Soc, input_data: &[&Path]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "op_type {}", op.op_type);
    let _ = writeln!(s, "soc_version {}", soc.name);
    let _ = writeln!(s, "short_soc {}", soc.short_name);
    let _ = writeln!(s, "aiv_cores {}", soc.aiv_cores);
    let _ = writeln!(s, "aic_cores {}", soc.aic_cores);
    let _ = writeln!(s, "ub_bytes {}", soc.ub_bytes);
    let _ = writeln!(s, "l1_bytes {}", soc.l1_bytes);
    let _ = writeln!(s, "l0a_bytes {}", soc.l0a_bytes);
    let _ = writeln!(s, "l0b_bytes {}", soc.l0b_bytes);
    let _ = writeln!(s, "l0c_bytes {}", soc.l0c_bytes);
    let _ = writeln!(s, "l2_bytes {}", soc.l2_bytes);
    let tensor = |s: &mut String, kind: &str, t: &TensorSpec, data: Option<&Path>| {
        let dims: Vec<String> = t.shape.iter().map(u64::to_string).collect();
        // A scalar (rank 0) is `[]`: an empty field would shift the ones after it.
        let dims = if dims.is_empty() {
            "[]".to_string()
        } else {
            dims.join(",")
        };
        let _ = write!(s, "{kind} {} {} {dims}", t.name, t.dtype.name());
        if let Some(p) = data {
            // The rest of the line is the path, spaces and all.
            let _ = write!(s, " {}", p.display());
        }
        s.push('\n');
    };
    // A tensor list is N instances of its parameter, one line each, as CANN's tiling context holds
    // them (GetDynamicInputShape(ir, i)). Its data file holds them all, so no instance names it.
    for (i, t) in op.inputs.iter().enumerate() {
        let data = input_data.get(i).copied().filter(|_| t.list.is_none());
        for _ in 0..t.instances() {
            tensor(&mut s, "input", t, data);
        }
    }
    for t in &op.outputs {
        for _ in 0..t.instances() {
            tensor(&mut s, "output", t, None);
        }
    }
    for a in &op.attrs {
        let (kind, value) = match &a.value {
            AttrValue::Int(i) => ("int", i.to_string()),
            AttrValue::Float(f) => ("float", format!("{f:?}")),
            AttrValue::Bool(b) => ("bool", (*b as u8).to_string()),
            AttrValue::Str(v) => ("str", v.clone()),
            AttrValue::Ints(v) => (
                "ints",
                v.iter().map(i64::to_string).collect::<Vec<_>>().join(","),
            ),
        };
        let _ = writeln!(s, "attr {} {kind} {value}", a.name);
    }
    s
}

/// What the host tiling function decided.
#[derive(Debug, Clone, PartialEq)]
pub struct TilingResult {
    pub block_dim: u32,
    pub tiling_key: u64,
    pub tiling_data: Vec<u8>,
    pub workspace: Vec<u64>,
}

/// What the op's own InferShape / InferDataType said of one output (`infer 1` in the spec).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct InferredOutput {
    /// None when InferShape gave no shape to run with (an unknown, negative dimension, or `unset`).
    pub shape: Option<Vec<u64>>,
    /// InferShape returned success without writing this output (`unset`): its shape is not the
    /// scalar the untouched rank-0 shape would read as.
    pub unset: bool,
    pub dtype: Option<DType>,
}

/// The result of a host program run with `infer 1`: None when the op registers no InferShape, else
/// one entry per output of the spec.
pub fn parse_infer_result(
    text: &str,
    outputs: usize,
) -> Result<Option<Vec<InferredOutput>>, String> {
    let mut out = vec![InferredOutput::default(); outputs];
    let mut registered = None;
    for (n, line) in text.lines().enumerate() {
        let bad = || format!("infer result line {}: cannot read `{line}`", n + 1);
        let mut it = line.split_whitespace();
        match it.next() {
            Some("infer_shape") => registered = Some(it.next() == Some("ok")),
            Some(kind @ ("output_shape" | "output_dtype")) => {
                let i: usize = it.next().and_then(|v| v.parse().ok()).ok_or_else(bad)?;
                let value = it.next().ok_or_else(bad)?;
                let Some(slot) = out.get_mut(i) else {
                    return Err(bad());
                };
                if kind == "output_shape" && value == "unset" {
                    slot.unset = true;
                } else if kind == "output_shape" {
                    let dims: Option<Vec<u64>> = if value == "[]" {
                        Some(vec![])
                    } else {
                        value.split(',').map(|d| d.parse::<u64>().ok()).collect()
                    };
                    // A negative (unknown) dimension is no shape to run with.
                    slot.shape = dims;
                } else {
                    slot.dtype = DType::parse(value);
                }
            }
            Some(_) => return Err(bad()),
            None => {}
        }
    }
    match registered {
        None => Err("the infer result has no `infer_shape` line".into()),
        Some(false) => Ok(None),
        Some(true) => Ok(Some(out)),
    }
}

pub fn parse_tiling_result(text: &str) -> Result<TilingResult, String> {
    let (mut block_dim, mut tiling_key, mut tiling_data, mut workspace) =
        (None, 0, Vec::new(), Vec::new());
    for (n, line) in text.lines().enumerate() {
        let mut it = line.split_whitespace();
        let bad = || format!("tiling result line {}: cannot read `{line}`", n + 1);
        match it.next() {
            Some("block_dim") => {
                block_dim = Some(it.next().and_then(|v| v.parse().ok()).ok_or_else(bad)?)
            }
            Some("tiling_key") => {
                tiling_key = it.next().and_then(|v| v.parse().ok()).ok_or_else(bad)?
            }
            Some("tiling_data") => {
                let hex = it.next().unwrap_or("").as_bytes();
                // Bytes, not str slices: a candidate's program may write anything, and slicing a str
                // inside a multi-byte character panics.
                if hex.len() % 2 != 0 || !hex.iter().all(u8::is_ascii_hexdigit) {
                    return Err(bad());
                }
                tiling_data = hex
                    .chunks(2)
                    .map(|p| {
                        let digit = |c: u8| (c as char).to_digit(16).unwrap_or(0) as u8;
                        digit(p[0]) << 4 | digit(p[1])
                    })
                    .collect();
            }
            Some("workspace") => {
                let count: usize = it.next().and_then(|v| v.parse().ok()).ok_or_else(bad)?;
                workspace = it
                    .map(|v| v.parse::<u64>())
                    .collect::<Result<_, _>>()
                    .map_err(|_| bad())?;
                if workspace.len() != count {
                    return Err(bad());
                }
            }
            _ => {}
        }
    }
    let block_dim = block_dim.ok_or("the tiling function never called SetBlockDim")?;
    Ok(TilingResult {
        block_dim,
        tiling_key,
        tiling_data,
        workspace,
    })
}

pub struct RunFile<'a> {
    pub block_dim: u32,
    pub ub_bytes: u64,
    /// L1, L0A, L0B, L0C capacities (the cube buffers' checks; templates/twin/include/kernel/twin/mem.h).
    pub cube_bytes: [u64; 4],
    pub tiling: &'a Path,
    pub tiling_key: u64,
    pub workspace: u64,
    pub inputs: Vec<RunTensor<'a>>,
    /// Optional inputs left out: an `absent NAME` line at each one's place, a null kernel argument.
    pub absent: &'a [crate::manifest::AbsentInput],
    pub outputs: Vec<RunTensor<'a>>,
    pub trace: &'a Path,
}

/// One input or output of the kernel run: its name, data file, bytes and, for a tensor list, the
/// element size and each tensor's shape (the run file's `list` field, templates/twin/src/kernel_main.cpp).
pub struct RunTensor<'a> {
    pub name: &'a str,
    pub path: &'a Path,
    pub bytes: u64,
    pub list: Option<(usize, Vec<Vec<u64>>)>,
    /// An output named like an input (an in-place update, key `<name>_ref`): that input's key. The
    /// output is the input's own GM buffer, as CANN passes one tensor for both ("输入输出同名、使用同一个
    /// Tensor承载", asc-devkit docs/zh/guide/编程指南/高级编程/Aclnn算子工程化开发/调用/单算子API调用.md),
    /// so a kernel that updates the input in place writes the output (the run file's `ref` field).
    pub alias: Option<&'a str>,
}

impl<'a> RunTensor<'a> {
    pub fn of(t: &'a TensorSpec, path: &'a Path) -> Self {
        RunTensor {
            name: t.key.as_str(),
            path,
            bytes: t.bytes(),
            list: t
                .list
                .map(|n| (t.dtype.size(), vec![t.shape.clone(); n as usize])),
            alias: None,
        }
    }

    /// An output of `op`: aliased to the input it is named like (not for tensor lists, whose
    /// descriptors the twin builds apart).
    pub fn output_of(t: &'a TensorSpec, path: &'a Path, inputs: &'a [TensorSpec]) -> Self {
        let mut r = Self::of(t, path);
        if t.key != t.name && t.list.is_none() {
            r.alias = inputs
                .iter()
                .find(|i| {
                    i.list.is_none()
                        && i.name.eq_ignore_ascii_case(&t.name)
                        && i.bytes() == t.bytes()
                })
                .map(|i| i.key.as_str());
        }
        r
    }

    fn render(&self, kind: &str, s: &mut String) {
        let _ = write!(
            s,
            "{kind} {} {} {}",
            self.name,
            self.path.display(),
            self.bytes
        );
        if let Some(input) = self.alias {
            let _ = write!(s, " ref {input}");
        }
        if let Some((elem, shapes)) = &self.list {
            let _ = write!(s, " list {elem}");
            for dims in shapes {
                let d: Vec<String> = dims.iter().map(u64::to_string).collect();
                let _ = write!(
                    s,
                    " {}",
                    if d.is_empty() {
                        "[]".into()
                    } else {
                        d.join(",")
                    }
                );
            }
        }
        s.push('\n');
    }
}

impl RunFile<'_> {
    pub fn render(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "block_dim {}", self.block_dim);
        let _ = writeln!(s, "ub_bytes {}", self.ub_bytes);
        for (key, bytes) in ["l1_bytes", "l0a_bytes", "l0b_bytes", "l0c_bytes"]
            .iter()
            .zip(self.cube_bytes)
        {
            let _ = writeln!(s, "{key} {bytes}");
        }
        let _ = writeln!(s, "tiling {}", self.tiling.display());
        let _ = writeln!(s, "tiling_key {}", self.tiling_key);
        let _ = writeln!(s, "workspace {}", self.workspace);
        let absent_at = |i: usize, s: &mut String| {
            for a in self.absent.iter().filter(|a| a.position == i) {
                let _ = writeln!(s, "absent {}", a.name);
            }
        };
        for (i, t) in self.inputs.iter().enumerate() {
            absent_at(i, &mut s);
            t.render("input", &mut s);
        }
        absent_at(self.inputs.len(), &mut s);
        for t in &self.outputs {
            t.render("output", &mut s);
        }
        let _ = writeln!(s, "trace {}", self.trace.display());
        s
    }
}

/// The launch shim of a template kernel: it includes the kernel source (found at `kernel_include`,
/// relative to the shim), after its tiling-key header when given, and lets the twin pick the instance of
/// `entry` (its qualified name) from the tiling key (templates/twin/README.md).
pub fn template_launch_shim(
    op: &OpSpec,
    kernel_include: &str,
    entry: &str,
    key_header: Option<&str>,
) -> String {
    let n = launch_arg_count(op);
    let key = key_header.map_or(String::new(), |h| format!("#include \"{h}\"\n"));
    format!(
        "// Generated by cargo-ascend-tune: a template kernel, instantiated by its tiling key.\n{key}#include \"{kernel_include}\"\n#include \"twin/tpl_launch.h\"\nTWIN_TPL_LAUNCH({entry}, {n})\n"
    )
}

/// How many arguments a launch passes: the inputs (an absent optional one as a null), the outputs,
/// workspace and tiling.
pub fn launch_arg_count(op: &OpSpec) -> usize {
    op.inputs.len() + op.absent.len() + op.outputs.len() + 2
}

/// The arguments a launch passes, in order: inputs, outputs, workspace and tiling (the kernel program's
/// `args`), with the output-shape buffer after the outputs when `shape_out` (an entry with one parameter
/// more than those: an op whose OpDef marks an output `OutputShapeDependOnCompute`, whose kernel writes
/// the output's real shape there, as ops-math's masked_select_v3 does).
fn launch_args(op: &OpSpec, shape_out: bool) -> Vec<String> {
    let n = launch_arg_count(op);
    let mut args: Vec<String> = (0..n).map(|i| format!("args[{i}]")).collect();
    if shape_out {
        args.insert(n - 2, "twin_shape_out_buffer()".into());
    }
    args
}

/// The declaration of the kernel program's output-shape buffer (templates/twin/src/kernel_main.cpp).
const SHAPE_OUT_DECL: &str = "extern \"C\" uint8_t* twin_shape_out_buffer();\n";

/// The launch shim of an entry with C++ linkage: it includes the kernel source and calls `entry` (its
/// qualified name) with inputs, outputs, workspace and tiling, whatever the parameters' spelled types.
pub fn included_launch_shim(
    op: &OpSpec,
    kernel_include: &str,
    entry: &str,
    shape_out: bool,
) -> String {
    let args = launch_args(op, shape_out);
    let decl = if shape_out { SHAPE_OUT_DECL } else { "" };
    format!(
        "// Generated by cargo-ascend-tune: a kernel entry with C++ linkage, reached through its source.\n#include \"{kernel_include}\"\n#include <cstdint>\n{decl}extern \"C\" void twin_launch(uint8_t** args) {{ {entry}({}); }}\n",
        args.join(", ")
    )
}

/// The launch shim: calls the kernel entry with inputs, outputs, workspace and tiling, in that order.
pub fn launch_shim(op: &OpSpec, shape_out: bool) -> String {
    let args = launch_args(op, shape_out);
    let params = vec!["uint8_t*"; args.len()].join(", ");
    let decl = if shape_out { SHAPE_OUT_DECL } else { "" };
    format!(
        "// Generated by cargo-ascend-tune: calls the kernel entry the way a launch does.\n#include <cstdint>\n{decl}extern \"C\" void {name}({params});\nextern \"C\" void twin_launch(uint8_t** args) {{ {name}({args}); }}\n",
        name = op.name,
        args = args.join(", ")
    )
}

#[cfg(test)]
mod tests {

    #[test]
    fn infer_results_give_each_output_its_shape_and_dtype() {
        let text = "infer_shape ok\noutput_shape 0 48,1\noutput_shape 1 []\noutput_dtype 1 bool\n";
        let out = parse_infer_result(text, 2).unwrap().unwrap();
        assert_eq!(out[0].shape, Some(vec![48, 1]));
        assert_eq!(out[0].dtype, None);
        assert_eq!(out[1].shape, Some(vec![]));
        assert_eq!(out[1].dtype, Some(DType::Bool));
        // An unknown (negative) dimension is no shape; no InferShape is None; junk is an error.
        let out = parse_infer_result("infer_shape ok\noutput_shape 0 -1,4\n", 1)
            .unwrap()
            .unwrap();
        assert_eq!(out[0].shape, None);
        assert!(!out[0].unset);
        // An output InferShape never wrote (ops-math sub_v2) is no scalar.
        let out = parse_infer_result("infer_shape ok\noutput_shape 0 unset\n", 1)
            .unwrap()
            .unwrap();
        assert_eq!((out[0].shape.clone(), out[0].unset), (None, true));
        assert_eq!(parse_infer_result("infer_shape none\n", 1).unwrap(), None);
        assert!(parse_infer_result("infer_shape ok\noutput_shape 3 1\n", 1).is_err());
        assert!(parse_infer_result("", 1).is_err());
    }

    /// Found by the fuzz target `tiling_result`: a non-ASCII character in the hex of `tiling_data`
    /// made the parser slice inside it and panic, taking the tuner down with a hostile candidate.
    #[test]
    fn fuzz_tiling_data_with_a_multibyte_character_is_an_error_not_a_panic() {
        let text =
            "block_dim 12\ntiling_key 0\ntiling_data 00000c000400\u{fffd}000\nworkspace 1 0\n";
        let e = parse_tiling_result(text).err().unwrap();
        assert!(e.contains("line 3"), "{e}");
        assert!(parse_tiling_result("block_dim 1\ntiling_data +1\n").is_err());
        let ok = parse_tiling_result("block_dim 1\ntiling_data 0aFf\n").unwrap();
        assert_eq!(ok.tiling_data, [0x0a, 0xff]);
    }

    use super::*;

    fn op_with(inputs: Vec<TensorSpec>) -> OpSpec {
        let m = crate::manifest::Manifest::load(std::path::Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/fixtures/add_custom/ascend.toml"
        )))
        .unwrap();
        let mut op = m.ops[0].clone();
        op.inputs = inputs;
        op
    }

    /// Found in a fresh sample (ops-math masked_select_v3: "GET_TILING_DATA: the tiling pointer is
    /// not a GM allocation"): a kernel taking one parameter more than inputs, outputs, workspace and
    /// tiling gets the output-shape buffer after its outputs, so workspace and tiling stay last.
    #[test]
    fn an_output_shape_buffer_goes_between_the_outputs_and_the_workspace() {
        // add_custom without its inputs: one output, then workspace and tiling.
        let op = op_with(vec![]);
        let plain = launch_shim(&op, false);
        assert!(
            plain.contains("add_custom(args[0], args[1], args[2])"),
            "{plain}"
        );
        assert!(!plain.contains("twin_shape_out_buffer"), "{plain}");
        let shaped = launch_shim(&op, true);
        assert!(
            shaped.contains("add_custom(args[0], twin_shape_out_buffer(), args[1], args[2])"),
            "{shaped}"
        );
        assert!(
            shaped
                .contains("extern \"C\" void add_custom(uint8_t*, uint8_t*, uint8_t*, uint8_t*);"),
            "{shaped}"
        );
        let included = included_launch_shim(&op, "src/k.cpp", "ns::k", true);
        assert!(
            included.contains("extern \"C\" uint8_t* twin_shape_out_buffer();"),
            "{included}"
        );
        assert!(
            included.contains("ns::k(args[0], twin_shape_out_buffer(), args[1], args[2])"),
            "{included}"
        );
    }

    #[test]
    fn input_lines_carry_the_data_file_only_when_given_and_scalars_read_as_brackets() {
        let t = |name: &str, shape: Vec<u64>| TensorSpec {
            key: name.into(),
            name: name.into(),
            dtype: crate::manifest::DType::Float32,
            shape,
            range: (0.0, 1.0),
            values: None,
            data: Default::default(),
            list: None,
        };
        let op = op_with(vec![t("start", vec![]), t("x", vec![4, 8])]);
        let soc = crate::model::soc::lookup("Ascend910B1").unwrap();
        let old = tiling_spec(&op, soc, &[]);
        assert!(
            old.contains("\ninput start float32 []\ninput x float32 4,8\n"),
            "{old}"
        );
        let (a, b) = (Path::new("/d/a b/start.bin"), Path::new("/d/x.bin"));
        let new = tiling_spec(&op, soc, &[a, b]);
        assert!(
            new.contains(
                "\ninput start float32 [] /d/a b/start.bin\ninput x float32 4,8 /d/x.bin\n"
            ),
            "{new}"
        );
        assert!(new.contains("\noutput z float16 48,16384\n"), "{new}");
    }

    #[test]
    fn an_output_named_like_an_input_is_written_as_a_ref_to_it() {
        let t = |name: &str, key: &str, list| TensorSpec {
            key: key.into(),
            name: name.into(),
            dtype: crate::manifest::DType::Float32,
            shape: vec![4, 8],
            range: (0.0, 1.0),
            values: None,
            data: Default::default(),
            list,
        };
        let inputs = [t("var", "var", None), t("xs", "xs", Some(2))];
        let p = Path::new("/d/o.bin");
        let render = |r: RunTensor| {
            let mut s = String::new();
            r.render("output", &mut s);
            s
        };
        let var = t("Var", "Var_ref", None);
        assert_eq!(
            render(RunTensor::output_of(&var, p, &inputs)),
            "output Var_ref /d/o.bin 128 ref var\n"
        );
        // Not a list, not another size, not an output of its own name.
        let xs = t("xs", "xs_ref", Some(2));
        assert!(!render(RunTensor::output_of(&xs, p, &inputs)).contains(" ref "));
        let mut small = t("var", "var_ref", None);
        small.shape = vec![4];
        assert!(!render(RunTensor::output_of(&small, p, &inputs)).contains(" ref "));
        let y = t("y", "y", None);
        assert_eq!(
            render(RunTensor::output_of(&y, p, &inputs)),
            "output y /d/o.bin 128\n"
        );
    }

    #[test]
    fn parses_tiling_result() {
        let r = parse_tiling_result(
            "block_dim 8\ntiling_key 3\ntiling_data 0001ff\nworkspace 2 16 0\n",
        )
        .unwrap();
        assert_eq!(
            r,
            TilingResult {
                block_dim: 8,
                tiling_key: 3,
                tiling_data: vec![0, 1, 255],
                workspace: vec![16, 0]
            }
        );
        assert!(
            parse_tiling_result("tiling_key 1\n")
                .unwrap_err()
                .contains("SetBlockDim")
        );
        assert!(
            parse_tiling_result("block_dim x\n")
                .unwrap_err()
                .contains("line 1")
        );
        assert!(parse_tiling_result("block_dim 1\ntiling_data 0g\n").is_err());
    }
}
