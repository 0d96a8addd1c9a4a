//! `cmake-module DIR`: writes `AscendTune.cmake`, the CMake module that gives an operator project an
//! `ascend_tune` target and an `ascend_tune_check` CTest test. The module's text lives in
//! `templates/cmake/` and is embedded in the binary, so an installed tool needs no files beside it. This
//! knows nothing of what the module runs; the module only calls the command line.

use crate::errors::Result;
use crate::exit_codes;
use crate::report::Printer;
use std::path::{Path, PathBuf};

pub const FILE_NAME: &str = "AscendTune.cmake";
pub const MODULE: &str = include_str!("../../templates/cmake/AscendTune.cmake");

/// Writes the module into `dir` (created if missing), atomically; returns its path. An identical file
/// is left untouched.
pub fn write(dir: &Path) -> Result<PathBuf> {
    crate::fsx::create_dir_all(dir)?;
    let path = dir.join(FILE_NAME);
    if std::fs::read_to_string(&path).is_ok_and(|old| old == MODULE) {
        return Ok(path);
    }
    crate::fsx::write_atomic(&path, MODULE.as_bytes())?;
    Ok(path)
}

pub fn cmake_module(dir: &Path, printer: &Printer) -> Result<i32> {
    let path = write(dir)?;
    printer.status("Wrote", path.display().to_string());
    if !printer.quiet && !printer.json() {
        println!(
            "add to the top-level CMakeLists.txt: include({})",
            path.display()
        );
        println!(
            "then `cmake --build build --target ascend_tune` tunes, and `ctest` runs the check"
        );
    }
    Ok(exit_codes::OK)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_module_defines_the_target_and_the_test() {
        for needle in [
            "add_custom_target(ascend_tune",
            "add_test(NAME ascend_tune_check",
            "check --locked",
            "ASCEND_TUNE_ARGS",
            "find_program(ASCEND_TUNE_EXECUTABLE cargo-ascend-tune",
        ] {
            assert!(MODULE.contains(needle), "{needle}");
        }
    }

    #[test]
    fn writes_once_and_creates_the_folder() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(&dir.path().join("cmake")).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), MODULE);
        let modified = std::fs::metadata(&path).unwrap().modified().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        write(&dir.path().join("cmake")).unwrap();
        assert_eq!(
            std::fs::metadata(&path).unwrap().modified().unwrap(),
            modified
        );
    }
}
