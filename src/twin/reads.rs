// Which of the project's files a twin build read: GCC's `-H` list of the headers each unit included,
// kept beside the built program as `reads.txt` (one project-relative path a line). `init` leaves out a
// tunable in a file no build of the op reads for its SoC (ops-cv's upsample_nearest includes its
// `_310p.h` kernel header only for `__CCE_AICORE__ == 200`): a value written there is never verified.
// Owns: reading `-H` lines out of a compiler's stderr, taking them out of what errors show, and the file's
// format. Does not know how the compiler is run (twin/mod.rs).

use crate::fsx::lexical;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The name of the file beside a built program.
pub const FILE: &str = "reads.txt";

/// Whether a stderr line is `-H` output: dots, a space, a path (`.. /a/b.h`), or a precompiled header
/// used (`! /a/b.h.gch`), or GCC's closing advice on include guards and the paths it lists.
fn is_h_line(line: &str) -> bool {
    let dots = line.bytes().take_while(|&b| b == b'.').count();
    (dots > 0 && line[dots..].starts_with(' ')) || line.starts_with("! ")
}

/// The files the `-H` lines of `stderr` name, as written.
pub fn included(stderr: &str) -> Vec<PathBuf> {
    stderr
        .lines()
        .filter(|l| is_h_line(l))
        .map(|l| PathBuf::from(l.trim_start_matches(['.', '!']).trim()))
        .collect()
}

/// `stderr` without its `-H` lines and GCC's include-guard advice (what remains is what the compiler and
/// linker said).
pub fn without_h_lines(stderr: &str) -> String {
    let mut out = String::new();
    let mut advice = false;
    for line in stderr.lines() {
        if line.starts_with("Multiple include guards may be useful for:") {
            advice = true;
            continue;
        }
        // the advice lists one path a line, up to the next output that is not a bare path
        if advice && line.starts_with('/') && !line.contains(": ") {
            continue;
        }
        advice = false;
        if !is_h_line(line) {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// `path` as the manifest names files: relative to `root`, through `..` when above it (a sibling
/// folder's header), or relative to `mirror` (the build's copy of the project's sources) when it lies
/// there. A path through a mount (`include-as`: a folder shown at `at` inside the mirror, by a link the
/// compiler does not resolve in its `-H` list) is named by the folder the mount shows, where the file
/// really is: naming it by its place in the mirror made the build cache read a file that does not
/// exist, so editing a mounted header never built again. None for a file under none of these (the
/// twin's and the system's headers).
pub fn project_path(
    path: &Path,
    root: &Path,
    mirror: &Path,
    mounts: &[(PathBuf, PathBuf)],
) -> Option<String> {
    let path = lexical(path);
    let mirror = lexical(mirror);
    for (at, dir) in mounts {
        if let Ok(rest) = path.strip_prefix(mirror.join(at)) {
            return project_path(&dir.join(rest), root, Path::new("/nonexistent-mirror"), &[]);
        }
    }
    if let Ok(rel) = path.strip_prefix(&mirror) {
        return Some(rel.to_string_lossy().into_owned());
    }
    // A candidate's file above the project (`../foreach_utils/op_host/x.h`, a shared header holding a
    // tunable) is written above the mirror, at `<mirror>/../<rest>`: it is named by that key, as the
    // candidate names it. Named by the staging folder's unique path instead, it was a file no later
    // build could find, so every such build missed the cache (each point of ops-nn's foreach
    // operators was compiled again).
    for (up, base) in mirror.ancestors().enumerate().skip(1).take(2) {
        if base.parent().is_none() || base.as_os_str().is_empty() {
            break;
        }
        if let Ok(rest) = path.strip_prefix(base) {
            return Some(format!("{}{}", "../".repeat(up), rest.to_string_lossy()));
        }
    }
    let root = lexical(root);
    for (up, base) in root.ancestors().take(4).enumerate() {
        if base.as_os_str().is_empty() || base == Path::new("/") {
            break;
        }
        if let Ok(rel) = path.strip_prefix(base) {
            return Some(format!("{}{}", "../".repeat(up), rel.to_string_lossy()));
        }
    }
    None
}

/// The text of `reads.txt`: the paths, sorted, one a line.
pub fn render(paths: &BTreeSet<String>) -> String {
    paths.iter().map(|p| format!("{p}\n")).collect()
}

/// The paths a `reads.txt` beside `program` lists; None when there is none (a build made before the
/// twin kept them, or another backend's program).
pub fn beside(program: &Path) -> Option<BTreeSet<String>> {
    in_folder(program.parent()?)
}

/// The paths the `reads.txt` in `dir` lists; None when there is none.
pub fn in_folder(dir: &Path) -> Option<BTreeSet<String>> {
    let text = std::fs::read_to_string(dir.join(FILE)).ok()?;
    Some(text.lines().map(str::to_string).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What GCC 12 wrote with -H for a unit including a header of the project (through the build's
    /// mirror and a `..` path), a twin header and a system one, after a precompiled header.
    const H: &str = "! /cache/twin/obj/host_pch.h.gch\n\
        . /cache/build/.host-k.1/src/op_host/x_tiling.h\n\
        .. /cache/build/.host-k.1/src/op_host/../op_kernel/x_tiling_data.h\n\
        . /cache/twin/include/host/register/op_def_registry.h\n\
        .. /usr/include/c++/12/vector\n\
        . /work/ops/common/inc/op_host/util.h\n\
        Multiple include guards may be useful for:\n\
        /cache/twin/include/host/register/op_def_registry.h\n\
        /usr/include/c++/12/vector\n\
        x.cpp:3:1: error: 'y' was not declared in this scope\n";

    #[test]
    fn h_lines_are_read_and_taken_out_of_what_errors_show() {
        assert_eq!(included(H).len(), 6);
        assert_eq!(
            without_h_lines(H),
            "x.cpp:3:1: error: 'y' was not declared in this scope\n"
        );
        let root = Path::new("/work/ops/image/x");
        let mirror = Path::new("/cache/build/.host-k.1/src");
        let mut read: Vec<String> = included(H)
            .iter()
            .filter_map(|p| project_path(p, root, mirror, &[]))
            .collect();
        read.sort();
        assert_eq!(
            read,
            [
                "../../common/inc/op_host/util.h",
                "op_host/x_tiling.h",
                "op_kernel/x_tiling_data.h"
            ]
        );
    }

    #[test]
    fn a_header_read_through_a_mount_is_named_where_it_really_is() {
        // ops-nn's foreach kernels include `../foreach_utils/x.h`; the manifest mounts the sibling
        // folder `../foreach_utils/op_kernel` at `foreach_utils`, and GCC lists the header by its link.
        let root = Path::new("/work/ops/foreach/foreach_neg");
        let mirror = Path::new("/cache/build/.kernel-k.1/src");
        let mounts = vec![(
            PathBuf::from("foreach_utils"),
            PathBuf::from("/work/ops/foreach/foreach_neg/../foreach_utils/op_kernel"),
        )];
        let h = Path::new("/cache/build/.kernel-k.1/src/op_kernel/../foreach_utils/unary.h");
        assert_eq!(
            project_path(h, root, mirror, &mounts).as_deref(),
            Some("../foreach_utils/op_kernel/unary.h")
        );
        // without the mount it would be a project path that does not exist
        assert_eq!(
            project_path(h, root, mirror, &[]).as_deref(),
            Some("foreach_utils/unary.h")
        );
    }

    #[test]
    fn a_candidates_file_above_the_project_is_named_as_the_candidate_names_it() {
        // foreach_neg's tunable lives in `../foreach_utils/op_host/foreach_tiling_class.h`; the build
        // writes the candidate's text at `<staging>/src/../foreach_utils/...`, and the staging folder
        // lies inside the project (`target/ascend-tune/build/.host-k.7`).
        let root = Path::new("/work/ops/foreach/foreach_neg");
        let mirror =
            Path::new("/work/ops/foreach/foreach_neg/target/ascend-tune/build/.host-k.7/src");
        let h = Path::new(
            "/work/ops/foreach/foreach_neg/target/ascend-tune/build/.host-k.7/src/../foreach_utils/op_host/class.h",
        );
        assert_eq!(
            project_path(h, root, mirror, &[]).as_deref(),
            Some("../foreach_utils/op_host/class.h")
        );
        let two_up =
            Path::new("/work/ops/foreach/foreach_neg/target/ascend-tune/build/common/inc/u.h");
        assert_eq!(
            project_path(two_up, root, mirror, &[]).as_deref(),
            Some("../../common/inc/u.h")
        );
    }

    #[test]
    fn the_file_lists_paths_one_a_line() {
        let dir = tempfile::tempdir().unwrap();
        let program = dir.path().join("kernel");
        assert_eq!(beside(&program), None);
        let paths: BTreeSet<String> = ["op_kernel/b.h", "op_kernel/a.cpp"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        std::fs::write(dir.path().join(FILE), render(&paths)).unwrap();
        assert_eq!(beside(&program), Some(paths));
    }
}
