//! `twin-package DIR`: writes the twin package (`crate::twin::package`), the CANN-shaped folder that lets
//! a kernel-launch project build and run in cpu mode on the twin, and says how to use it. Knows nothing
//! of the package's layout.

use crate::errors::Result;
use crate::exit_codes;
use crate::report::Printer;
use serde_json::json;
use std::path::Path;

pub fn twin_package(dir: &Path, printer: &Printer) -> Result<i32> {
    let info = crate::twin::package::write(dir)?;
    let root = info.root.display().to_string();
    if printer.json() {
        println!(
            "{}",
            json!({
                "reason": "twin-package",
                "path": root,
                "twin_version": info.twin_version,
                "socs": info.socs,
                "files": info.files,
                "written": info.written,
            })
        );
        return Ok(exit_codes::OK);
    }
    if info.written {
        printer.status(
            "Wrote",
            format!("twin package {root} ({} files)", info.files),
        );
    } else {
        printer.status("Fresh", format!("twin package {root} is up to date"));
    }
    if !printer.quiet {
        println!("build a kernel-launch project against it with:");
        println!(
            "    cmake -B build -DRUN_MODE=cpu -DSOC_VERSION={} -DASCEND_CANN_PACKAGE_PATH={root}",
            info.socs.first().copied().unwrap_or("Ascend910B1")
        );
        println!("    cmake --build build");
        println!(
            "its ICPU_RUN_KF launches write twin.trace (or $ASCEND_TWIN_TRACE) for the model to read"
        );
    }
    Ok(exit_codes::OK)
}
