//! `init`: writes an `ascend.toml` for the project in the current directory from what `project` finds:
//! ops, tensors (from the op json), and literals that look like tuning parameters, with domains sized for
//! the SoC and the values the sources hold now. The result runs with `tune` as it is; the user refines it.

use crate::errors::{Error, Result};
use crate::project::{self, FoundOp, TunableKind};
use crate::report::Printer;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;

/// The shape given to tensors when `--shape` names none: a realistic size for a vector op.
const DEFAULT_SHAPE: [u64; 2] = [48, 16384];

pub fn init(
    root: &Path,
    soc_name: &str,
    shapes: &[String],
    force: bool,
    printer: &Printer,
) -> Result<i32> {
    let path = root.join(crate::manifest::FILE_NAME);
    if path.exists() && !force {
        return Err(Error::bad_input(
            format!("{} already exists", path.display()),
            Some("pass --force to replace it".into()),
        ));
    }
    let soc = crate::model::soc::lookup(soc_name)
        .ok_or_else(|| Error::bad_input(format!("unknown SoC `{soc_name}`"), None))?;
    let shapes = parse_shapes(shapes)?;
    let ops = project::discover(root).map_err(|m| {
        Error::bad_input(
            m,
            Some(
                "write ascend.toml by hand; fixtures/add_custom/ascend.toml is a complete example"
                    .into(),
            ),
        )
    })?;
    let text = render(&ops, soc, &shapes, &BTreeMap::new());
    crate::fsx::write_atomic(&path, text.as_bytes())?;
    // The constraints `tune` will derive from the kernel, shown in the manifest as comments: they need
    // the manifest itself (tensors, bindings), so it is read back once written.
    let derived = derived_constraints(&path);
    if derived.values().any(|v| !v.is_empty()) {
        let text = render(&ops, soc, &shapes, &derived);
        crate::fsx::write_atomic(&path, text.as_bytes())?;
    }
    for op in &ops {
        let names: Vec<&str> = op.tunables.iter().map(|t| t.name.as_str()).collect();
        printer.status(
            "Found",
            format!(
                "op `{}` with tunables: {}",
                op.name,
                if names.is_empty() {
                    "none".into()
                } else {
                    names.join(", ")
                }
            ),
        );
    }
    printer.status("Wrote", path.display().to_string());
    printer.status(
        "Next",
        "`cargo ascend-tune tune`; for CMake builds, `cargo ascend-tune cmake-module cmake` writes a module with an `ascend_tune` target and an `ascend_tune_check` CTest test",
    );
    Ok(crate::exit_codes::OK)
}

/// Op name -> the constraints derived from its sources, for the manifest at `path`. Empty when the
/// manifest does not load or bind (then `tune` says why, with its line).
fn derived_constraints(path: &Path) -> BTreeMap<String, Vec<String>> {
    let mut out = BTreeMap::new();
    let Ok(manifest) = crate::manifest::Manifest::load(path) else {
        return out;
    };
    let Some(soc) = crate::model::soc::lookup(&manifest.soc) else {
        return out;
    };
    for op in &manifest.ops {
        let Ok(sources) = crate::tune::read_sources(&manifest, op) else {
            continue;
        };
        if let Ok(space) = crate::space::Space::resolve(&manifest, op, soc, &sources) {
            out.insert(
                op.name.clone(),
                space.derived.iter().map(|d| d.describe()).collect(),
            );
        }
    }
    out
}

/// `x=48x16384` or `x=48,16384` into a map from tensor name to shape.
fn parse_shapes(args: &[String]) -> Result<BTreeMap<String, Vec<u64>>> {
    let mut out = BTreeMap::new();
    for a in args {
        let bad = || {
            Error::bad_input(
                format!("`--shape {a}` is not NAME=D0xD1..."),
                Some("for example --shape x=48x16384".into()),
            )
        };
        let (name, dims) = a.split_once('=').ok_or_else(bad)?;
        let dims: Vec<u64> = dims
            .split(['x', ','])
            .map(|d| d.trim().parse::<u64>().ok().filter(|&d| d > 0))
            .collect::<Option<_>>()
            .ok_or_else(bad)?;
        out.insert(name.trim().to_string(), dims);
    }
    Ok(out)
}

fn domain(kind: TunableKind, value: i64, aiv_cores: u32) -> String {
    match kind {
        TunableKind::BufferCount => "range = [1, 2]".into(),
        TunableKind::BlockDim => {
            let mut v: Vec<i64> = [1, 2, 4, 8, 12, 16, 20, 24, 32, 40, 48]
                .into_iter()
                .filter(|&c| c <= aiv_cores as i64)
                .collect();
            v.extend([aiv_cores as i64, value]);
            v.sort_unstable();
            v.dedup();
            format!("values = {v:?}")
        }
        TunableKind::Size if value > 0 && value & (value - 1) == 0 => {
            let lo = (value / 64).max(16);
            let lo = 1i64 << (63 - lo.leading_zeros());
            let hi = (value * 64).min(65536).max(value);
            format!("pow2 = [{}, {}]", lo.min(value), hi)
        }
        TunableKind::Size => {
            let mut v: Vec<i64> = [value / 4, value / 2, value, value * 2, value * 4]
                .into_iter()
                .filter(|&x| x > 0)
                .collect();
            v.dedup();
            format!("values = {v:?}")
        }
    }
}

fn render(
    ops: &[FoundOp],
    soc: &crate::model::soc::Soc,
    shapes: &BTreeMap<String, Vec<u64>>,
    derived: &BTreeMap<String, Vec<String>>,
) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# Written by `cargo ascend-tune init`. Check the shapes (what the op is tuned for) and the domains,"
    );
    let _ = writeln!(s, "# then run `cargo ascend-tune tune`.");
    let _ = writeln!(s, "[project]\nsoc = \"{}\"\nbackend = \"twin\"", soc.name);
    for op in ops {
        let _ = writeln!(s, "\n[[op]]\nname = \"{}\"", op.name);
        if let Some(t) = &op.op_type {
            let _ = writeln!(s, "type = \"{t}\"");
        }
        let list = |v: &[String]| {
            v.iter()
                .map(|f| format!("\"{f}\""))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let _ = writeln!(
            s,
            "host = [{}]\nkernel = [{}]",
            list(&op.host),
            list(&op.kernel)
        );
        // Without an op json, the kernel's GM parameters before workspace and tiling name the tensors:
        // all but the last are taken as inputs.
        let (inputs, outputs) = if op.inputs.is_empty() && op.outputs.is_empty() {
            let tensors: Vec<String> = op
                .params
                .iter()
                .filter(|p| !matches!(p.as_str(), "workspace" | "tiling" | "usrWorkspace"))
                .cloned()
                .collect();
            let n = tensors.len().saturating_sub(1);
            let f = |v: &[String]| {
                v.iter()
                    .map(|n| (n.clone(), crate::manifest::DType::Float16))
                    .collect::<Vec<_>>()
            };
            (f(&tensors[..n]), f(&tensors[n..]))
        } else {
            (op.inputs.clone(), op.outputs.clone())
        };
        for (kind, list) in [("input", &inputs), ("output", &outputs)] {
            for (name, dtype) in list {
                let shape = shapes.get(name).cloned().unwrap_or(DEFAULT_SHAPE.to_vec());
                let note = if shapes.contains_key(name) {
                    ""
                } else {
                    "   # a default: give the shape you tune for (init --shape NAME=D0xD1)"
                };
                let _ = writeln!(
                    s,
                    "\n[[op.{kind}]]\nname = \"{name}\"\ndtype = \"{}\"\nshape = {shape:?}{note}",
                    dtype.name()
                );
            }
        }
        let _ = writeln!(s, "\n[op.tune]\nbudget = 32\nseed = 0");
        if let Some(lines) = derived.get(&op.name).filter(|l| !l.is_empty()) {
            let _ = writeln!(
                s,
                "# tune also checks these constraints, derived from the sources, before building a candidate;\n# `derive-constraints = false` here turns them off:"
            );
            for l in lines {
                let _ = writeln!(s, "#   {l}");
            }
        }
        for t in &op.tunables {
            let _ = writeln!(
                s,
                "\n[[op.tunable]]\nname = \"{}\"\nfile = \"{}\"",
                t.name, t.file
            );
            match &t.bind {
                crate::manifest::Bind::Symbol(sym) => {
                    let _ = writeln!(s, "symbol = \"{sym}\"");
                }
                crate::manifest::Bind::Call { func, arg } => {
                    let _ = writeln!(s, "call = \"{func}\"\narg = {arg}");
                }
            }
            let _ = writeln!(
                s,
                "{}   # now {}",
                domain(t.kind, t.value, soc.aiv_cores),
                t.value
            );
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn domains_fit_the_value_and_the_soc() {
        assert_eq!(domain(TunableKind::BufferCount, 1, 48), "range = [1, 2]");
        assert_eq!(
            domain(TunableKind::BlockDim, 8, 40),
            "values = [1, 2, 4, 8, 12, 16, 20, 24, 32, 40]"
        );
        assert_eq!(domain(TunableKind::Size, 256, 48), "pow2 = [16, 16384]");
        assert_eq!(domain(TunableKind::Size, 8192, 48), "pow2 = [128, 65536]");
        assert_eq!(
            domain(TunableKind::Size, 300, 48),
            "values = [75, 150, 300, 600, 1200]"
        );
    }

    #[test]
    fn shapes_parse() {
        let s = parse_shapes(&["x=48x16384".into(), "y=2,3,4".into()]).unwrap();
        assert_eq!(s["x"], vec![48, 16384]);
        assert_eq!(s["y"], vec![2, 3, 4]);
        assert!(parse_shapes(&["x=48xq".into()]).is_err());
        assert!(parse_shapes(&["x".into()]).is_err());
    }
}
