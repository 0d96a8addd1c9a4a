//! The external rewriter: a program the manifest names (`[op.tune] rewriter = ["prog", "arg", ...]`),
//! for example a script that asks a language model. It is run without a shell, with the prompt file and
//! the output file appended to its arguments (and in `ASCEND_TUNE_PROMPT` / `ASCEND_TUNE_OUTPUT`), in
//! the project root, with a time limit and no terminal. Kernel text never reaches its command line: it is
//! in the prompt file. It must write the whole new text of the kernel file named in the prompt to the
//! output file. This module writes prompts and runs the program; verifying and measuring what comes back
//! is the tuner's job, as for any candidate.

use crate::child::{self, Finished};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long one rewriter call may take, unless `ASCEND_TUNE_REWRITER_TIMEOUT` (seconds) says otherwise.
pub const DEFAULT_LIMIT: Duration = Duration::from_secs(300);

/// What the prompt tells the rewriter.
pub struct Prompt<'a> {
    pub op: &'a str,
    /// Kernel file to rewrite (relative to the project root) and its current text.
    pub file: &'a str,
    pub kernel: &'a str,
    /// The kernel's profile in words: latency, bound, busy pipes.
    pub profile: &'a str,
    /// Retrieved lessons: (motif, summary, gain, diff), best first.
    pub lessons: Vec<(&'a str, &'a str, f64, &'a str)>,
}

impl Prompt<'_> {
    pub fn render(&self) -> String {
        let mut s = format!(
            "# Rewrite the AscendC kernel `{file}` of op `{op}` to run faster\n\n\
             Write the complete new text of `{file}` to the output file. It must compute the same outputs\n\
             (they are checked against the current kernel within the per-dtype tolerance) and keep every\n\
             tunable constant as it is.\n\n## Current profile\n\n{profile}\n\n## Lessons that fit this bottleneck\n\n",
            file = self.file,
            op = self.op,
            profile = self.profile
        );
        if self.lessons.is_empty() {
            s.push_str("(none in the bank)\n\n");
        }
        for (motif, summary, gain, diff) in &self.lessons {
            s.push_str(&format!(
                "### {motif}: {summary}\n\nUndoing it made another kernel {gain:.2}x slower:\n\n```diff\n{diff}```\n\n"
            ));
        }
        s.push_str(&format!(
            "## Current kernel\n\n```cpp\n{}```\n",
            self.kernel
        ));
        s
    }
}

/// Runs the rewriter once on `prompt`, in `dir` (a fresh folder for this call); returns the new text.
pub fn run(
    command: &[String],
    project_root: &Path,
    dir: &Path,
    prompt: &Prompt,
    limit: Duration,
) -> Result<String, String> {
    let (program, args) = command
        .split_first()
        .ok_or("the rewriter command is empty")?;
    std::fs::create_dir_all(dir).map_err(|e| format!("could not create {}: {e}", dir.display()))?;
    let prompt_path = dir.join("prompt.md");
    let output_path = dir.join("kernel.out");
    std::fs::write(&prompt_path, prompt.render())
        .map_err(|e| format!("could not write {}: {e}", prompt_path.display()))?;
    let _ = std::fs::remove_file(&output_path);
    let mut cmd = std::process::Command::new(resolve(program, project_root));
    cmd.args(args)
        .arg(&prompt_path)
        .arg(&output_path)
        .env("ASCEND_TUNE_PROMPT", &prompt_path)
        .env("ASCEND_TUNE_OUTPUT", &output_path)
        .current_dir(project_root);
    match child::run(cmd, limit, &dir.join("rewriter")) {
        Err(e) => Err(format!("could not start the rewriter `{program}`: {e}")),
        Ok(Finished::TimedOut) => Err(format!(
            "the rewriter took longer than {} s and was stopped",
            limit.as_secs()
        )),
        Ok(Finished::Exited { status, stderr }) if !status.success() => Err(format!(
            "the rewriter exited with {status}: {}",
            stderr.trim()
        )),
        Ok(Finished::Exited { .. }) => match std::fs::read_to_string(&output_path) {
            Ok(text) if !text.trim().is_empty() => Ok(text),
            Ok(_) => Err("the rewriter wrote an empty kernel".into()),
            Err(e) => Err(format!(
                "the rewriter wrote no output file {}: {e}",
                output_path.display()
            )),
        },
    }
}

/// A program given as a relative path with a slash is relative to the project root; a bare name is
/// looked up on PATH as usual.
fn resolve(program: &str, root: &Path) -> PathBuf {
    if program.contains('/') && Path::new(program).is_relative() {
        root.join(program)
    } else {
        PathBuf::from(program)
    }
}

/// The time limit from `ASCEND_TUNE_REWRITER_TIMEOUT`, else the default.
pub fn limit() -> Duration {
    std::env::var("ASCEND_TUNE_REWRITER_TIMEOUT")
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s > 0.0)
        .map(Duration::from_secs_f64)
        .unwrap_or(DEFAULT_LIMIT)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prompt() -> Prompt<'static> {
        Prompt {
            op: "add_custom",
            file: "op_kernel/add_custom.cpp",
            kernel: "int x = 1; // $(rm -rf /)\n",
            profile: "5.0 us, mte2-bound",
            lessons: vec![("double-buffer", "depth 1 -> 2", 1.5, "-a\n+b\n")],
        }
    }

    #[test]
    fn the_prompt_holds_kernel_profile_and_lessons() {
        let text = prompt().render();
        assert!(text.contains("op_kernel/add_custom.cpp"));
        assert!(text.contains("mte2-bound"));
        assert!(text.contains("### double-buffer"));
        assert!(text.contains("int x = 1;"));
    }

    #[test]
    fn runs_without_a_shell_and_reads_the_output() {
        let dir = tempfile::tempdir().unwrap();
        // `sh -c` is the program here, and the kernel text stays in the prompt file, never in argv.
        let cmd: Vec<String> = [
            "sh",
            "-c",
            "sed 's/x = 1/x = 2/' \"$ASCEND_TUNE_PROMPT\" | grep 'int x' > \"$2\"",
            "rw",
        ]
        .map(String::from)
        .to_vec();
        let out = run(
            &cmd,
            dir.path(),
            &dir.path().join("call"),
            &prompt(),
            Duration::from_secs(20),
        )
        .unwrap();
        assert_eq!(out, "int x = 2; // $(rm -rf /)\n");
        let failing: Vec<String> = ["sh", "-c", "exit 3"].map(String::from).to_vec();
        let err = run(
            &failing,
            dir.path(),
            &dir.path().join("c2"),
            &prompt(),
            Duration::from_secs(20),
        )
        .unwrap_err();
        assert!(err.contains("exited"), "{err}");
        let silent: Vec<String> = ["true"].map(String::from).to_vec();
        let err = run(
            &silent,
            dir.path(),
            &dir.path().join("c3"),
            &prompt(),
            Duration::from_secs(20),
        )
        .unwrap_err();
        assert!(err.contains("no output"), "{err}");
    }
}
