//! The user's own check of an op's outputs, and the warnings every run gets about outputs that look
//! wrong whatever the op computes.
//!
//! `golden` (per op in `ascend.toml`) works like the golden and verify scripts of the CANN samples
//! (`scripts/gen_data.py` writes the inputs and a golden `.bin`, `scripts/verify_result.py output golden`
//! compares): the tool writes the inputs it generated and the outputs the op produced as files, laid out
//! as the op's `file` keys say (`input/input_x.bin`, `output/output_z.bin` by default) in a folder of
//! their own, runs the command without a shell in the project root with the paths of every input, then
//! every output, appended, and takes its exit code as the verdict (0: the outputs are right).
//! Knows nothing of building, running or timing the op.

use crate::child as process;
use crate::manifest::{DType, OpSpec};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// How long a golden command may take unless `ASCEND_TUNE_RUN_TIMEOUT` says otherwise.
const GOLDEN_LIMIT: Duration = Duration::from_secs(120);

/// The verdict of a golden command that ran.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    Passed,
    /// It rejected the outputs (non-zero exit, a signal, or the time limit): what it said.
    Failed(String),
}

/// A golden command that could not be run at all (a missing program, an unwritable folder): the
/// manifest or the machine is at fault, not the op.
#[derive(Debug)]
pub struct CannotRun(pub String);

/// The command as written in the manifest, for messages: `python3 scripts/golden.py`.
pub fn describe(command: &[String]) -> String {
    command.join(" ")
}

/// Runs `command` on the op's `inputs` and `outputs` (in manifest order), in a fresh folder under
/// `work` that is removed afterwards unless `ASCEND_TUNE_KEEP_RUNS` is set.
pub fn check(
    op: &OpSpec,
    command: &[String],
    root: &Path,
    work: &Path,
    inputs: &[Vec<u8>],
    outputs: &[Vec<u8>],
) -> Result<Verdict, CannotRun> {
    let dir = work
        .join("golden")
        .join(format!("{}-{}", op.name, crate::fsx::unique_suffix()));
    let result = check_in(op, command, root, &dir, inputs, outputs);
    if std::env::var_os("ASCEND_TUNE_KEEP_RUNS").is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    result
}

fn check_in(
    op: &OpSpec,
    command: &[String],
    root: &Path,
    dir: &Path,
    inputs: &[Vec<u8>],
    outputs: &[Vec<u8>],
) -> Result<Verdict, CannotRun> {
    let io = |what: &str, p: &Path, e: std::io::Error| {
        CannotRun(format!("could not write {what} {}: {e}", p.display()))
    };
    let mut paths: Vec<PathBuf> = vec![];
    let files = op
        .input_files
        .iter()
        .zip(inputs)
        .chain(op.output_files.iter().zip(outputs));
    for (rel, bytes) in files {
        let path = crate::fsx::confined_join(dir, rel).map_err(CannotRun)?;
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| io("the folder", parent, e))?;
        }
        crate::fsx::write_file(&path, bytes).map_err(|e| io("the tensor file", &path, e))?;
        paths.push(path);
    }
    let Some((program, args)) = command.split_first() else {
        return Err(CannotRun("the golden command is empty".into()));
    };
    // A relative program path with a `/` is the project's (`./scripts/check`), whatever the folder
    // the command runs in; a bare name is looked up on PATH.
    let program_path = if program.contains('/') && Path::new(program).is_relative() {
        root.join(program)
    } else {
        PathBuf::from(program)
    };
    let mut cmd = Command::new(&program_path);
    cmd.args(args)
        .args(&paths)
        .current_dir(root)
        .env("ASCEND_TUNE_GOLDEN_DIR", dir)
        .env("ASCEND_TUNE_OP", &op.name);
    let limit = std::env::var("ASCEND_TUNE_RUN_TIMEOUT")
        .ok()
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s > 0.0)
        .map_or(GOLDEN_LIMIT, Duration::from_secs_f64);
    let log = dir.join("golden");
    let finished = process::run(cmd, limit, &log).map_err(|e| {
        CannotRun(format!(
            "the golden command `{}` could not start ({}): {e}",
            describe(command),
            program_path.display()
        ))
    })?;
    match finished {
        process::Finished::Exited { status, .. } if status.success() => Ok(Verdict::Passed),
        process::Finished::Exited { status, stderr } => {
            let stdout = std::fs::read_to_string(log.with_extension("out")).unwrap_or_default();
            let said = tail(&format!("{}\n{}", stdout.trim(), stderr.trim()), 20);
            Ok(Verdict::Failed(format!(
                "the golden command `{}` rejected the outputs ({}){}",
                describe(command),
                process::describe(status, &stderr),
                if said.is_empty() {
                    String::new()
                } else {
                    format!(":\n{said}")
                }
            )))
        }
        process::Finished::TimedOut => Ok(Verdict::Failed(format!(
            "the golden command `{}` ran longer than {}s",
            describe(command),
            limit.as_secs_f64()
        ))),
    }
}

/// The last `n` non-empty lines of `text`.
fn tail(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// Warnings about outputs that are suspect whatever the op computes: an output that is all zeros, one
/// with NaN or Inf where no input has any, and one identical to an input (byte for byte). Each names
/// the output and what was seen.
pub fn degenerate(op: &OpSpec, inputs: &[Vec<u8>], outputs: &[Vec<u8>]) -> Vec<String> {
    let inputs_non_finite = op
        .inputs
        .iter()
        .zip(inputs)
        .any(|(t, b)| non_finite(t.dtype, b) != (0, 0));
    let mut out = vec![];
    for (t, bytes) in op.outputs.iter().zip(outputs) {
        let n = bytes.len() / t.dtype.size();
        if n == 0 {
            continue;
        }
        if all_zero(t.dtype, bytes) {
            out.push(format!(
                "output `{}` of op `{}` is all zeros ({n} elements): did the kernel write it (every block, every tile)?",
                t.name, op.name
            ));
        }
        let (nan, inf) = non_finite(t.dtype, bytes);
        if (nan, inf) != (0, 0) && !inputs_non_finite {
            out.push(format!(
                "output `{}` of op `{}` has {nan} NaN and {inf} Inf of {n} elements, where no input has any",
                t.name, op.name
            ));
        }
        if let Some(same) = op
            .inputs
            .iter()
            .zip(inputs)
            .find(|(_, b)| *b == bytes)
            .map(|(i, _)| &i.name)
        {
            out.push(format!(
                "output `{}` of op `{}` is identical to input `{same}`: did the kernel copy its input through, or compute nothing?",
                t.name, op.name
            ));
        }
    }
    out
}

/// Whether some output has an element that is zero: only then can an element the kernel never wrote
/// hide in a run whose outputs start as zeros, and only then does `run` pay for the second run that
/// `unwritten` compares with.
pub fn may_hide_unwritten(op: &OpSpec, outputs: &[Vec<u8>]) -> bool {
    op.outputs.iter().zip(outputs).any(|(t, bytes)| {
        let size = t.dtype.size().max(1);
        bytes.chunks(size).any(|e| match float_masks(t.dtype) {
            Some((exp, man)) => bits(e, size, 0) & (exp | man) == 0,
            None => e.iter().all(|b| *b == 0),
        })
    })
}

/// Warnings for outputs whose elements in `unwritten` (byte ranges per output, as
/// `tune::probes::unwritten` finds them) depend on what the output held before the kernel ran: never
/// written (a block or tile left out), or accumulated into. CANN fills an output first only where its
/// OpDef asks (`.InitValue`; `run` leaves those out), so on the NPU
/// those elements hold whatever the memory held.
pub fn unwritten_warnings(op: &OpSpec, unwritten: &[Vec<std::ops::Range<usize>>]) -> Vec<String> {
    let mut out = vec![];
    for (t, ranges) in op.outputs.iter().zip(unwritten) {
        let size = t.dtype.size().max(1);
        let elems = t.elems();
        let n: usize = ranges.iter().map(|r| r.len() / size).sum();
        let (Some(first), Some(last)) = (ranges.first(), ranges.last()) else {
            continue;
        };
        let (from, to) = (first.start / size, last.end / size);
        let place = if ranges.len() == 1 {
            format!("elements {from}..{to}")
        } else {
            format!(
                "{} stretches between elements {from} and {to}",
                ranges.len()
            )
        };
        // Only a first stretch written: as likely a manifest shape larger than what the op makes (an
        // `init` guess) as a kernel that leaves blocks out.
        let hint = if ranges.len() == 1 && to as u64 == elems && from > 0 {
            format!(
                "the op writes only the first {from}: if the output holds that many, fix its `shape` in ascend.toml; else does every block and every tile get its share?"
            )
        } else {
            "does every block and every tile get its share?".to_string()
        };
        out.push(format!(
            "output `{}` of op `{}`: {n} of {elems} elements ({place}) depend on what the output held before the kernel ran (a run with it filled with 0xA5 bytes differs there from one with zeros): never written, or accumulated into, and CANN fills an output first only where its OpDef asks (`.InitValue`); {hint}",
            t.name, op.name
        ));
    }
    out
}

/// The exponent and mantissa masks of a float dtype's bit pattern (IEEE 754 binary16 and binary32,
/// bfloat16: the top half of binary32); None for integer and bool dtypes.
fn float_masks(d: DType) -> Option<(u32, u32)> {
    match d {
        DType::Float16 => Some((0x7c00, 0x03ff)),
        DType::BFloat16 => Some((0x7f80, 0x007f)),
        DType::Float32 => Some((0x7f80_0000, 0x007f_ffff)),
        _ => None,
    }
}

/// Element `i`'s bits, little-endian, for 2- and 4-byte dtypes. Reads the bits rather than decoding
/// values: the checks run on every output of every `run`, in debug builds too.
fn bits(bytes: &[u8], size: usize, i: usize) -> u32 {
    let b = &bytes[i * size..(i + 1) * size];
    if size == 2 {
        u16::from_le_bytes([b[0], b[1]]) as u32
    } else {
        u32::from_le_bytes([b[0], b[1], b[2], b[3]])
    }
}

/// How many NaN and Inf elements a float tensor holds ((0, 0) for other dtypes).
fn non_finite(d: DType, bytes: &[u8]) -> (usize, usize) {
    let Some((exp, man)) = float_masks(d) else {
        return (0, 0);
    };
    let size = d.size();
    let (mut nan, mut inf) = (0, 0);
    for i in 0..bytes.len() / size {
        let b = bits(bytes, size, i);
        if b & exp == exp {
            if b & man != 0 {
                nan += 1;
            } else {
                inf += 1;
            }
        }
    }
    (nan, inf)
}

/// Every element is zero (a float's -0.0 too).
fn all_zero(d: DType, bytes: &[u8]) -> bool {
    match float_masks(d) {
        Some((exp, man)) => {
            let size = d.size();
            (0..bytes.len() / size).all(|i| bits(bytes, size, i) & (exp | man) == 0)
        }
        None => bytes.iter().all(|b| *b == 0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn add_custom() -> OpSpec {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/add_custom/ascend.toml");
        crate::manifest::Manifest::load(&path).unwrap().ops[0].clone()
    }

    fn halves(v: &[f32]) -> Vec<u8> {
        v.iter()
            .flat_map(|x| half::f16::from_f32(*x).to_le_bytes())
            .collect()
    }

    /// hinge_loss_grad of ops-nn at [48, 16384] float16 writes its first 188160 output elements only.
    #[test]
    fn outputs_that_depend_on_their_first_contents_are_named_with_where() {
        let op = add_custom();
        let n = op.outputs[0].elems() as usize;
        let size = op.outputs[0].dtype.size();
        // Nothing to say when every element was written.
        assert!(unwritten_warnings(&op, &[vec![]]).is_empty());
        // A tail left: the hint about the manifest's shape.
        let tail = unwritten_warnings(&op, &[vec![8 * size..n * size]]);
        assert_eq!(tail.len(), 1);
        assert!(
            tail[0].contains(&format!("{} of {n} elements (elements 8..{n})", n - 8)),
            "{tail:?}"
        );
        assert!(
            tail[0].contains("the op writes only the first 8"),
            "{tail:?}"
        );
        // Holes: where, and no shape hint.
        let holes = unwritten_warnings(&op, &[vec![0..size, 4 * size..6 * size]]);
        assert!(holes[0].contains("3 of"), "{holes:?}");
        assert!(
            holes[0].contains("2 stretches between elements 0 and 6"),
            "{holes:?}"
        );
        assert!(!holes[0].contains("writes only the first"), "{holes:?}");
        // Only outputs with a zero element can hide one never written.
        let ones = halves(&vec![1.0; n]);
        assert!(!may_hide_unwritten(&op, &[ones.clone()]));
        let mut one_zero = ones;
        one_zero[2 * size..3 * size].fill(0);
        assert!(may_hide_unwritten(&op, &[one_zero]));
    }

    #[test]
    fn degenerate_outputs_are_named_and_good_ones_pass() {
        let op = add_custom();
        let (x, y) = (halves(&[1.0, 2.0]), halves(&[3.0, 4.0]));
        let good = degenerate(&op, &[x.clone(), y.clone()], &[halves(&[4.0, 6.0])]);
        assert!(good.is_empty(), "{good:?}");
        let zeros = degenerate(&op, &[x.clone(), y.clone()], &[halves(&[0.0, -0.0])]);
        assert_eq!(zeros.len(), 1);
        assert!(zeros[0].contains("output `z` of op `add_custom` is all zeros (2 elements)"));
        let nan = degenerate(
            &op,
            &[x.clone(), y.clone()],
            &[halves(&[f32::NAN, f32::INFINITY])],
        );
        assert_eq!(nan.len(), 1, "{nan:?}");
        assert!(nan[0].contains("1 NaN and 1 Inf of 2 elements"), "{nan:?}");
        // NaN in an input excuses NaN in the output.
        let from_input = degenerate(
            &op,
            &[halves(&[f32::NAN, 1.0]), y.clone()],
            &[halves(&[f32::NAN, 5.0])],
        );
        assert!(from_input.is_empty(), "{from_input:?}");
        let copied = degenerate(&op, &[x.clone(), y.clone()], std::slice::from_ref(&y));
        assert_eq!(copied.len(), 1);
        assert!(copied[0].contains("identical to input `y`"), "{copied:?}");
    }

    /// A script that passes when `z` is the expected answer, run on a right and a wrong output; its
    /// arguments are the tensor files in manifest order.
    #[cfg(unix)]
    #[test]
    fn the_golden_command_gets_the_tensor_files_and_its_exit_code_is_the_verdict() {
        let root = tempfile::tempdir().unwrap();
        let work = tempfile::tempdir().unwrap();
        let script = root.path().join("golden.sh");
        // Passes when z equals expected.bin in the project root (its working folder); the files'
        // layout and order are checked too.
        std::fs::write(
            &script,
            "#!/bin/sh\n[ $# -eq 3 ] || { echo \"want 3 files, got $#\"; exit 2; }\n\
             case \"$1\" in */input/input_x.bin) ;; *) echo \"first: $1\"; exit 2;; esac\n\
             case \"$3\" in */output/output_z.bin) ;; *) echo \"third: $3\"; exit 2;; esac\n\
             cmp -s \"$3\" expected.bin || { echo \"z differs from expected.bin\" >&2; exit 1; }\n",
        )
        .unwrap();
        let op = add_custom();
        let (x, y, z) = (
            halves(&[1.0, 2.0]),
            halves(&[3.0, 4.0]),
            halves(&[4.0, 6.0]),
        );
        std::fs::write(root.path().join("expected.bin"), &z).unwrap();
        let cmd = vec!["sh".to_string(), "golden.sh".to_string()];
        let run = |out: &[u8]| {
            check(
                &op,
                &cmd,
                root.path(),
                work.path(),
                &[x.clone(), y.clone()],
                &[out.to_vec()],
            )
            .unwrap()
        };
        assert_eq!(run(&z), Verdict::Passed);
        match run(&halves(&[4.0, 7.0])) {
            Verdict::Failed(why) => assert!(
                why.contains("`sh golden.sh` rejected the outputs (exit code 1)")
                    && why.contains("z differs from expected.bin"),
                "{why}"
            ),
            v => panic!("{v:?}"),
        }
        // The folder is gone afterwards.
        assert_eq!(
            std::fs::read_dir(work.path().join("golden"))
                .unwrap()
                .count(),
            0
        );
        let missing = check(
            &op,
            &["./no-such-script".to_string()],
            root.path(),
            work.path(),
            &[x.clone(), y.clone()],
            std::slice::from_ref(&z),
        );
        assert!(
            missing
                .as_ref()
                .is_err_and(|e| e.0.contains("could not start")),
            "{missing:?}"
        );
    }
}
