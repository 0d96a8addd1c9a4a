//! `--workspace`: runs a per-project command once for each operator member of a cargo workspace, with
//! `--manifest-path` set to the member's ascend.toml and working files under the workspace's target
//! directory. It owns only the loop; what each run does stays in its command's own module.

use crate::cli::args::Common;
use crate::errors::{Error, Result};
use crate::report::Printer;
use crate::workspace::{Member, Workspace};
use std::path::{Path, PathBuf};

/// The workspace that `--workspace` means: the one holding `--manifest-path` when it names a Cargo.toml
/// or a folder (an ascend.toml's folder also works), else the one holding the current directory.
pub fn find(common: &Common) -> Result<Workspace> {
    let start: PathBuf = match &common.manifest_path {
        Some(p)
            if p.file_name()
                .is_some_and(|n| n == crate::manifest::FILE_NAME) =>
        {
            p.parent()
                .filter(|d| !d.as_os_str().is_empty())
                .unwrap_or(Path::new("."))
                .to_path_buf()
        }
        Some(p) => p.clone(),
        None => std::env::current_dir().map_err(|e| Error::io("could not read", ".", e))?,
    };
    Ok(Workspace::discover(&start)?)
}

/// The common options for one member: its ascend.toml, and its working folder under the workspace target.
pub fn member_common(common: &Common, ws: &Workspace, member: &Member) -> Common {
    let mut c = common.clone();
    c.manifest_path = Some(member.manifest_path());
    c.work_dir = Some(ws.work_dir(member));
    c
}

/// Whether the member's manifest declares an op named `op` (a manifest that cannot be read says yes, so
/// that the command itself reports the problem).
fn declares(member: &Member, op: &str) -> bool {
    crate::manifest::Manifest::load(&member.manifest_path()).map_or(true, |m| m.op(op).is_some())
}

/// The members a run covers: all, or with `--op NAME` those that declare it (none is bad input).
pub fn members<'w>(ws: &'w Workspace, only_op: Option<&str>) -> Result<Vec<&'w Member>> {
    let chosen: Vec<&Member> = ws
        .members
        .iter()
        .filter(|m| only_op.is_none_or(|op| declares(m, op)))
        .collect();
    if chosen.is_empty() {
        let names: Vec<&str> = ws.members.iter().map(|m| m.name.as_str()).collect();
        return Err(Error::bad_input(
            format!(
                "no member of the workspace at {} declares an op named `{}`",
                ws.root.display(),
                only_op.unwrap_or_default()
            ),
            Some(format!("operator members: {}", names.join(", "))),
        ));
    }
    Ok(chosen)
}

/// Runs `each` for every operator member (with `only_op`, every member declaring that op), in name
/// order. A member that fails does not stop the others; its error is printed where it happens, and the
/// first failing member's exit code is returned.
pub fn for_each_member(
    common: &Common,
    printer: &Printer,
    only_op: Option<&str>,
    mut each: impl FnMut(&Common) -> Result<i32>,
) -> Result<i32> {
    let ws = find(common)?;
    let mut code = crate::exit_codes::OK;
    for member in members(&ws, only_op)? {
        printer.status(
            "Member",
            format!("{} ({})", member.name, member.dir.display()),
        );
        keep_first_failure(
            &mut code,
            each(&member_common(common, &ws, member)),
            printer,
        );
    }
    Ok(code)
}

/// One of several runs ended: its error is printed where it happens, and `code` keeps the first
/// failing run's exit code.
pub fn keep_first_failure(code: &mut i32, result: Result<i32>, printer: &Printer) {
    let this = match result {
        Ok(c) => c,
        Err(e) => {
            printer.error(&e);
            e.exit_code()
        }
    };
    if *code == crate::exit_codes::OK {
        *code = this;
    }
}
