//! The experience bank: lessons mined by rewinding optimised kernels (`mine`), kept in a plain TOML file
//! that users can read, diff and commit, and ranked for a kernel by its bottleneck (`retrieve`). A lesson
//! says: undoing motif M at this site of this op's optimised kernel cost this much, and this is what the
//! profile looked like before (the slow, rewound form) and after (the optimised form). The bank knows
//! motifs by name only; it never edits sources itself.
//!
//! File format versions: 1 — the first (`version`, then `[[lesson]]` tables sorted by motif, op, file, line).
//! A reader that meets a newer version says which tool to use.

pub mod mine;
pub mod retrieve;

use crate::errors::{Error, Result};
use crate::fsx;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub const VERSION: u32 = 1;
/// The file name `bank mine` writes by default, at the project (or suite) root.
pub const FILE_NAME: &str = "ascend-bank.toml";
/// The bank that ships with the tool, mined by the tool from this repository's fixture references
/// (`cargo ascend-tune bank mine fixtures --out templates/bank/default.toml` regenerates it).
pub const DEFAULT_BANK: &str = include_str!("../../templates/bank/default.toml");
pub const DEFAULT_BANK_NAME: &str = "built-in bank (templates/bank/default.toml)";

/// A kernel's measured profile: what retrieval compares bottlenecks by.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Profile {
    pub latency_us: f64,
    /// The pipe that bounds the kernel (`mte2`, `vector`, `scalar`, ...).
    pub bound: String,
    /// Busy fraction of each pipe over the kernel's time, by the model's pipe names.
    #[serde(default)]
    pub pipes: BTreeMap<String, f64>,
}

impl Profile {
    /// The profile of a measurement, rounded.
    pub fn of(m: &crate::backend::Measurement) -> Profile {
        Profile {
            latency_us: m.latency_us,
            bound: m.timing.bound.to_string(),
            pipes: m
                .timing
                .pipes
                .iter()
                .map(|p| (p.name.to_string(), p.ratio))
                .collect(),
        }
        .rounded()
    }

    /// The profile of a verified trial (None for a failed one), rounded.
    pub fn of_trial(t: &crate::tune::journal::Trial) -> Option<Profile> {
        Some(
            Profile {
                latency_us: t.latency_us?,
                bound: t.bound.clone().unwrap_or_default(),
                pipes: t.pipes.clone(),
            }
            .rounded(),
        )
    }

    /// The profile with figures rounded so the bank file stays stable and readable.
    pub fn rounded(mut self) -> Profile {
        self.latency_us = round(self.latency_us, 3);
        self.pipes.values_mut().for_each(|r| *r = round(*r, 3));
        self
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Lesson {
    pub motif: String,
    pub op: String,
    pub soc: String,
    pub backend: String,
    /// True when the latencies come from the twin's performance model, not hardware.
    pub modelled: bool,
    pub shape: String,
    /// The kernel file and the line of the site in the optimised kernel.
    pub file: String,
    pub line: usize,
    /// The site in words, as the motif describes it.
    pub site: String,
    /// Slow latency over fast latency: how much the optimisation is worth here (above 1).
    pub gain: f64,
    /// The profile of the slow (rewound) kernel: the bottleneck this lesson cures.
    pub before: Profile,
    /// The profile of the optimised kernel.
    pub after: Profile,
    /// Unified diff from the slow kernel to the optimised one: what applying the motif did.
    pub diff: String,
}

impl Lesson {
    fn sort_key(&self) -> (&str, &str, &str, usize) {
        (&self.motif, &self.op, &self.file, self.line)
    }
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Bank {
    pub lessons: Vec<Lesson>,
    /// Where the bank came from, for messages.
    pub source: String,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Wire {
    version: u32,
    #[serde(default)]
    lesson: Vec<Lesson>,
}

impl Bank {
    /// The built-in bank.
    pub fn default_bank() -> Result<Bank> {
        Bank::parse(DEFAULT_BANK, DEFAULT_BANK_NAME)
    }

    /// The bank a command works with: `named` alone when given, else the built-in lessons plus those of
    /// `ascend-bank.toml` in `dir` (a project root, or the current folder), if there is one.
    pub fn chosen(named: Option<&Path>, dir: Option<&Path>) -> Result<Bank> {
        if let Some(p) = named {
            return Bank::load(p);
        }
        let mut bank = Bank::default_bank()?;
        if let Some(local) = dir.map(default_path).filter(|p| p.is_file()) {
            let own = Bank::load(&local)?;
            bank.merge(own.lessons);
            bank.source = format!("{} and {}", bank.source, local.display());
        }
        Ok(bank)
    }

    pub fn load(path: &Path) -> Result<Bank> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            Error::bad_input(
                format!("could not read the bank {}: {e}", path.display()),
                Some("mine one with `cargo ascend-tune bank mine`, or leave out --bank to use the built-in bank".into()),
            )
        })?;
        Bank::parse(&text, &path.display().to_string())
    }

    pub fn parse(text: &str, source: &str) -> Result<Bank> {
        #[derive(Deserialize)]
        struct Version {
            version: Option<u32>,
        }
        let bad = |message: String, help: &str| Error::bad_input(message, Some(help.to_string()));
        let v: Version = toml::from_str(text).map_err(|e| {
            bad(
                format!("{source}: not a bank file: {}", e.message()),
                "a bank is TOML with `version = 1` and [[lesson]] tables; regenerate it with `cargo ascend-tune bank mine`",
            )
        })?;
        match v.version {
            Some(VERSION) => {}
            Some(n) if n > VERSION => {
                return Err(bad(
                    format!(
                        "{source}: bank format version {n} is newer than this tool reads ({VERSION})"
                    ),
                    "upgrade cargo-ascend-tune to a version that writes this format",
                ));
            }
            other => {
                return Err(bad(
                    format!("{source}: unknown bank format version {other:?}"),
                    "a bank starts with `version = 1`; regenerate it with `cargo ascend-tune bank mine`",
                ));
            }
        }
        let wire: Wire = toml::from_str(text).map_err(|e| {
            let line = e
                .span()
                .map(|s| format!(":{}", crate::rewrite::cst::line_of(text, s.start)))
                .unwrap_or_default();
            bad(
                format!("{source}{line}: {}", e.message()),
                "fix the lesson by hand or regenerate the bank with `cargo ascend-tune bank mine`",
            )
        })?;
        Ok(Bank {
            lessons: wire.lesson,
            source: source.to_string(),
        })
    }

    /// The file text: a header, the version, then lessons sorted so re-mining gives a stable diff.
    pub fn render(&self) -> String {
        let mut lessons = self.lessons.clone();
        lessons.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
        let wire = Wire {
            version: VERSION,
            lesson: lessons,
        };
        let body = toml::to_string_pretty(&wire).expect("a bank always serialises");
        format!(
            "# The experience bank of cargo-ascend-tune: lessons mined by rewinding optimised kernels.\n\
             # Each lesson: undoing `motif` at `file:line` of `op` made it `gain` times slower. Written by\n\
             # `cargo ascend-tune bank mine`; regenerate rather than edit.\n{body}"
        )
    }

    pub fn write(&self, path: &Path) -> Result<()> {
        fsx::write_atomic(path, self.render().as_bytes())
    }

    /// Lessons not mined from `op`: the bank a leave-one-out run gives that op.
    pub fn without_op(&self, op: &str) -> Bank {
        Bank {
            lessons: self
                .lessons
                .iter()
                .filter(|l| l.op != op)
                .cloned()
                .collect(),
            source: format!("{} without {op}", self.source),
        }
    }

    /// Replaces the lessons of the ops in `mined` (re-mining an op replaces what the bank knew of it).
    pub fn merge(&mut self, mined: Vec<Lesson>) {
        let ops: std::collections::BTreeSet<&str> = mined.iter().map(|l| l.op.as_str()).collect();
        let ops: Vec<String> = ops.into_iter().map(str::to_string).collect();
        self.lessons.retain(|l| !ops.contains(&l.op));
        self.lessons.extend(mined);
    }
}

/// Where `bank` subcommands read and write when no path is given: `ascend-bank.toml` in the current dir.
pub fn default_path(dir: &Path) -> PathBuf {
    dir.join(FILE_NAME)
}

pub fn round(x: f64, decimals: i32) -> f64 {
    let f = 10f64.powi(decimals);
    (x * f).round() / f
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lesson(motif: &str, op: &str, gain: f64) -> Lesson {
        Lesson {
            motif: motif.into(),
            op: op.into(),
            soc: "Ascend910B1".into(),
            backend: "twin".into(),
            modelled: true,
            shape: "x=float16[8]".into(),
            file: "op_kernel/k.cpp".into(),
            line: 5,
            site: "BUFFER_NUM = 2".into(),
            gain,
            before: Profile {
                latency_us: 2.0,
                bound: "mte2".into(),
                pipes: BTreeMap::from([("aiv_mte2_ratio".into(), 0.9)]),
            },
            after: Profile {
                latency_us: 1.0,
                bound: "mte2".into(),
                pipes: BTreeMap::new(),
            },
            diff: "--- a\n+++ b\n-constexpr int32_t BUFFER_NUM = 1;\n+constexpr int32_t BUFFER_NUM = 2;\n"
                .into(),
        }
    }

    #[test]
    fn renders_sorted_and_reads_back_the_same() {
        let bank = Bank {
            lessons: vec![lesson("z-motif", "b", 1.5), lesson("a-motif", "a", 2.0)],
            source: "t".into(),
        };
        let text = bank.render();
        assert!(text.starts_with("# The experience bank"));
        let back = Bank::parse(&text, "t").unwrap();
        assert_eq!(back.lessons[0].motif, "a-motif");
        assert_eq!(back.lessons[1], bank.lessons[0]);
        // Rendering is a fixed point: re-mining the same lessons gives the same bytes.
        assert_eq!(back.render(), text);
    }

    #[test]
    fn refuses_newer_versions_and_bad_lessons_with_the_line() {
        let err = Bank::parse("version = 2\n", "b.toml")
            .unwrap_err()
            .to_string();
        assert!(err.contains("newer"), "{err}");
        let err = Bank::parse("version = 1\n[[lesson]]\nmotif = 3\n", "b.toml")
            .unwrap_err()
            .to_string();
        assert!(err.contains("b.toml:3"), "{err}");
    }

    #[test]
    fn leave_one_out_and_merge_replace_by_op() {
        let mut bank = Bank {
            lessons: vec![lesson("m", "a", 1.5), lesson("m", "b", 1.2)],
            source: "t".into(),
        };
        assert_eq!(bank.without_op("a").lessons.len(), 1);
        bank.merge(vec![lesson("n", "a", 3.0)]);
        assert_eq!(bank.lessons.len(), 2);
        assert!(bank.lessons.iter().any(|l| l.motif == "n" && l.op == "a"));
        assert!(!bank.lessons.iter().any(|l| l.motif == "m" && l.op == "a"));
    }

    #[test]
    fn the_built_in_bank_parses() {
        Bank::default_bank().unwrap();
    }
}
