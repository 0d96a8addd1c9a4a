//! Finding the CANN toolkit and the environment it needs. Owns the documented search order (FACTS.md §5:
//! the manifest's `cann-path`, then `ASCEND_CANN_PACKAGE_PATH`, `ASCEND_INSTALL_PATH`, `ASCEND_HOME_PATH`,
//! `$HOME/Ascend/ascend-toolkit/latest`, `/usr/local/Ascend/ascend-toolkit/latest`, and CANN 9's
//! `.../Ascend/cann`), what makes a folder a CANN install or the twin package standing in for one, and
//! capturing what its set-up script (`bin/setenv.bash` or `set_env.sh`) exports. Knows nothing of building,
//! running or measuring.

use crate::child;
use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The file that marks a folder as the twin package (`cargo ascend-tune twin-package DIR`).
pub const TWIN_MARKER: &str = "ascend-twin-package.toml";

/// Environment variables that name a CANN install, in the order they are tried.
pub const ENV_VARS: [&str; 3] = [
    "ASCEND_CANN_PACKAGE_PATH",
    "ASCEND_INSTALL_PATH",
    "ASCEND_HOME_PATH",
];

/// Limit for sourcing the set-up script (it only exports variables).
const SETUP_LIMIT: Duration = Duration::from_secs(60);

/// One place looked at for CANN, and what was found there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    /// How the place was named, e.g. "ASCEND_HOME_PATH" or "`cann-path` in ascend.toml".
    pub source: String,
    /// The folder, when the source names one.
    pub path: Option<PathBuf>,
}

/// A CANN install (or the twin package) that was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Install {
    /// The toolkit root: what `ASCEND_CANN_PACKAGE_PATH` is set to for a build.
    pub root: PathBuf,
    /// Which place of the search order found it.
    pub found_by: String,
    /// `Some(version)` when the folder is the twin package of that twin version.
    pub twin_version: Option<String>,
    /// The set-up script to source for the environment, if the install has one.
    pub setup_script: Option<PathBuf>,
}

impl Install {
    pub fn is_twin(&self) -> bool {
        self.twin_version.is_some()
    }
}

/// Nothing usable was found: every place, in order, with why it did not do.
#[derive(Debug, Clone)]
pub struct NotFound {
    pub looked: Vec<(Place, String)>,
}

/// Why the manifest's `cann-path`, which must be used when given, cannot be.
#[derive(Debug, Clone)]
pub struct BadCannPath {
    pub path: PathBuf,
    pub why: String,
}

pub enum Located {
    Found(Install),
    NotFound(NotFound),
    BadCannPath(BadCannPath),
}

/// The places to look, in order, given the manifest's `cann-path` and a view of the environment.
pub fn places(manifest_cann: Option<&Path>, env: &dyn Fn(&str) -> Option<OsString>) -> Vec<Place> {
    let mut out = vec![Place {
        source: "`cann-path` in ascend.toml".into(),
        path: manifest_cann.map(Path::to_path_buf),
    }];
    for var in ENV_VARS {
        out.push(Place {
            source: var.to_string(),
            path: env(var).filter(|v| !v.is_empty()).map(PathBuf::from),
        });
    }
    let home = env("HOME").filter(|h| !h.is_empty()).map(PathBuf::from);
    out.push(Place {
        source: "$HOME/Ascend/ascend-toolkit/latest".into(),
        path: home
            .as_ref()
            .map(|h| h.join("Ascend/ascend-toolkit/latest")),
    });
    out.push(Place {
        source: "/usr/local/Ascend/ascend-toolkit/latest".into(),
        path: Some(PathBuf::from("/usr/local/Ascend/ascend-toolkit/latest")),
    });
    // CANN 9 installs into `.../Ascend/cann` (its samples source `/usr/local/Ascend/cann/set_env.sh`).
    out.push(Place {
        source: "$HOME/Ascend/cann".into(),
        path: home.as_ref().map(|h| h.join("Ascend/cann")),
    });
    out.push(Place {
        source: "/usr/local/Ascend/cann".into(),
        path: Some(PathBuf::from("/usr/local/Ascend/cann")),
    });
    out
}

/// Looks at the places in order and takes the first that holds a CANN install or the twin package. The
/// manifest's `cann-path` is the user's explicit choice: when it is set but holds no CANN, that is the
/// answer, not a reason to go on looking.
pub fn locate(manifest_cann: Option<&Path>, env: &dyn Fn(&str) -> Option<OsString>) -> Located {
    let mut looked = vec![];
    for (i, place) in places(manifest_cann, env).into_iter().enumerate() {
        let Some(path) = place.path.clone() else {
            let why = if place.source.starts_with("$HOME") {
                "HOME is not set".to_string()
            } else {
                "not set".to_string()
            };
            looked.push((place, why));
            continue;
        };
        match recognise(&path) {
            Ok((twin_version, setup_script)) => {
                return Located::Found(Install {
                    root: path,
                    found_by: place.source,
                    twin_version,
                    setup_script,
                });
            }
            Err(why) if i == 0 => return Located::BadCannPath(BadCannPath { path, why }),
            Err(why) => {
                let why = if place.source.starts_with('/') {
                    why
                } else if place.source.starts_with('$') {
                    format!("{}: {why}", path.display())
                } else {
                    format!("set to {}: {why}", path.display())
                };
                looked.push((place, why));
            }
        }
    }
    Located::NotFound(NotFound { looked })
}

/// The twin version (for the twin package) and the set-up script of a CANN root, or why it is none.
fn recognise(root: &Path) -> Result<(Option<String>, Option<PathBuf>), String> {
    if !root.is_dir() {
        return Err(if root.exists() {
            "not a folder".into()
        } else {
            "no such folder".into()
        });
    }
    let script = setup_script(root);
    let marker = root.join(TWIN_MARKER);
    if marker.is_file() {
        let text = std::fs::read_to_string(&marker)
            .map_err(|e| format!("cannot read {}: {e}", marker.display()))?;
        return twin_version(&text)
            .map(|v| (Some(v), script))
            .ok_or_else(|| format!("{} has no `twin-version`", marker.display()));
    }
    match script {
        Some(s) => Ok((None, Some(s))),
        None => Err("no bin/setenv.bash nor set_env.sh in it, so not a CANN toolkit".into()),
    }
}

/// `bin/setenv.bash`, `set_env.sh`, or the `set_env.sh` one level up (`ascend-toolkit/set_env.sh` beside
/// `latest/`), whichever exists first.
pub fn setup_script(root: &Path) -> Option<PathBuf> {
    let mut candidates = vec![root.join("bin/setenv.bash"), root.join("set_env.sh")];
    if let Some(parent) = root.parent() {
        candidates.push(parent.join("set_env.sh"));
    }
    candidates.into_iter().find(|p| p.is_file())
}

/// `twin-version = "..."` of the twin package's marker file.
pub fn twin_version(marker_text: &str) -> Option<String> {
    let table: toml::Table = marker_text.parse().ok()?;
    table
        .get("twin-version")?
        .as_str()
        .map(str::to_string)
        .filter(|v| !v.is_empty())
}

impl NotFound {
    /// The message of the exit-2 error: every place, in order, with what was there.
    pub fn message(&self) -> String {
        let mut s =
            String::from("the `cann` backend found no CANN toolkit; it looked, in this order, at:");
        for (i, (place, why)) in self.looked.iter().enumerate() {
            s.push_str(&format!("\n  {}. {}: {why}", i + 1, place.source));
        }
        s
    }

    pub fn help() -> String {
        "install the CANN toolkit and source its set_env.sh (which sets ASCEND_HOME_PATH), or point \
         ASCEND_CANN_PACKAGE_PATH or `cann-path` under [project] in ascend.toml at it; to try the CANN \
         flow of a kernel-launch project without hardware, write the twin package with `cargo ascend-tune \
         twin-package DIR` and set ASCEND_CANN_PACKAGE_PATH=DIR; or use `--backend twin`"
            .into()
    }
}

/// Sources `script` in bash and returns the variables it set or changed, compared with this process's
/// environment. The path is passed as `$1`, never spliced into the command text.
pub fn capture_env(script: &Path, log_dir: &Path) -> Result<Vec<(OsString, OsString)>, String> {
    let mut cmd = std::process::Command::new("bash");
    // The script's own output goes to stderr, so stdout holds only `env -0`.
    cmd.arg("-c")
        .arg("source \"$1\" 1>&2 && env -0")
        .arg("ascend-tune-setenv")
        .arg(script)
        .current_dir(log_dir);
    let stem = log_dir.join("cann-setenv");
    let done = child::run(cmd, SETUP_LIMIT, &stem)
        .map_err(|e| format!("could not run bash to source {}: {e}", script.display()))?;
    match done {
        child::Finished::Exited { status, .. } if status.success() => {}
        child::Finished::Exited { status, stderr } => {
            return Err(format!(
                "sourcing {} failed ({}): {}",
                script.display(),
                child::describe(status, &stderr),
                stderr.trim()
            ));
        }
        child::Finished::TimedOut => {
            return Err(format!(
                "sourcing {} took longer than {}s",
                script.display(),
                SETUP_LIMIT.as_secs()
            ));
        }
    }
    let out = std::fs::read(stem.with_extension("out")).map_err(|e| {
        format!(
            "could not read the environment of {}: {e}",
            script.display()
        )
    })?;
    let current: BTreeMap<OsString, OsString> = std::env::vars_os().collect();
    Ok(changed(parse_env0(&out), &current))
}

/// `env -0` output: `NAME=value` records, each ended by a NUL. Values may hold `=` and newlines.
pub fn parse_env0(bytes: &[u8]) -> Vec<(OsString, OsString)> {
    use std::os::unix::ffi::OsStrExt;
    bytes
        .split(|&b| b == 0)
        .filter(|rec| !rec.is_empty())
        .filter_map(|rec| {
            let eq = rec.iter().position(|&b| b == b'=')?;
            (eq > 0).then(|| {
                (
                    OsStr::from_bytes(&rec[..eq]).to_os_string(),
                    OsStr::from_bytes(&rec[eq + 1..]).to_os_string(),
                )
            })
        })
        .collect()
}

/// The variables of `captured` that `current` lacks or holds with another value, without the ones bash
/// sets for itself.
pub fn changed(
    captured: Vec<(OsString, OsString)>,
    current: &BTreeMap<OsString, OsString>,
) -> Vec<(OsString, OsString)> {
    const SHELL_OWN: [&str; 4] = ["_", "SHLVL", "PWD", "OLDPWD"];
    captured
        .into_iter()
        .filter(|(k, v)| !SHELL_OWN.iter().any(|s| k == s) && current.get(k) != Some(v))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_of(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<OsString> + use<> {
        let map: BTreeMap<String, OsString> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), OsString::from(v)))
            .collect();
        move |k| map.get(k).cloned()
    }

    /// A folder that looks like a CANN toolkit (it has `bin/setenv.bash`).
    fn fake_cann(dir: &Path) -> PathBuf {
        std::fs::create_dir_all(dir.join("bin")).unwrap();
        std::fs::write(dir.join("bin/setenv.bash"), "export FAKE_CANN=1\n").unwrap();
        dir.to_path_buf()
    }

    #[test]
    fn places_follow_the_documented_order() {
        let env = env_of(&[
            ("ASCEND_HOME_PATH", "/h"),
            ("ASCEND_CANN_PACKAGE_PATH", "/p"),
            ("HOME", "/home/u"),
        ]);
        let got: Vec<(String, Option<PathBuf>)> = places(Some(Path::new("/m")), &env)
            .into_iter()
            .map(|p| (p.source, p.path))
            .collect();
        let p = |s: &str| Some(PathBuf::from(s));
        assert_eq!(
            got,
            vec![
                ("`cann-path` in ascend.toml".into(), p("/m")),
                ("ASCEND_CANN_PACKAGE_PATH".into(), p("/p")),
                ("ASCEND_INSTALL_PATH".into(), None),
                ("ASCEND_HOME_PATH".into(), p("/h")),
                (
                    "$HOME/Ascend/ascend-toolkit/latest".into(),
                    p("/home/u/Ascend/ascend-toolkit/latest")
                ),
                (
                    "/usr/local/Ascend/ascend-toolkit/latest".into(),
                    p("/usr/local/Ascend/ascend-toolkit/latest")
                ),
                ("$HOME/Ascend/cann".into(), p("/home/u/Ascend/cann")),
                ("/usr/local/Ascend/cann".into(), p("/usr/local/Ascend/cann")),
            ]
        );
    }

    #[test]
    fn the_first_place_holding_a_cann_wins() {
        let tmp = tempfile::tempdir().unwrap();
        let install = fake_cann(&tmp.path().join("install"));
        let home = fake_cann(&tmp.path().join("home-path"));
        let env_install = install.to_string_lossy().into_owned();
        let env_home = home.to_string_lossy().into_owned();
        // ASCEND_CANN_PACKAGE_PATH names nothing usable: skipped; ASCEND_INSTALL_PATH comes before HOME_PATH.
        let env = env_of(&[
            ("ASCEND_CANN_PACKAGE_PATH", "/no/such/cann"),
            ("ASCEND_INSTALL_PATH", &env_install),
            ("ASCEND_HOME_PATH", &env_home),
        ]);
        let Located::Found(found) = locate(None, &env) else {
            panic!("not found")
        };
        assert_eq!(found.root, install);
        assert_eq!(found.found_by, "ASCEND_INSTALL_PATH");
        assert_eq!(found.setup_script, Some(install.join("bin/setenv.bash")));
        assert!(!found.is_twin());
    }

    #[test]
    fn a_cann_path_that_holds_no_cann_is_an_error_not_a_fallback() {
        let tmp = tempfile::tempdir().unwrap();
        let other = fake_cann(&tmp.path().join("other"));
        let env_other = other.to_string_lossy().into_owned();
        let env = env_of(&[("ASCEND_HOME_PATH", &env_other)]);
        let empty = tmp.path().join("empty");
        std::fs::create_dir_all(&empty).unwrap();
        match locate(Some(&empty), &env) {
            Located::BadCannPath(b) => {
                assert_eq!(b.path, empty);
                assert_eq!(
                    b.why,
                    "no bin/setenv.bash nor set_env.sh in it, so not a CANN toolkit"
                );
            }
            _ => panic!("a bad cann-path must be reported"),
        }
    }

    #[test]
    fn nothing_found_lists_every_place_with_why() {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().to_string_lossy().into_owned();
        let env = env_of(&[("HOME", &home), ("ASCEND_HOME_PATH", "/no/such/cann")]);
        let Located::NotFound(nf) = locate(None, &env) else {
            panic!("nothing should be found")
        };
        let msg = nf.message();
        let lines: Vec<&str> = msg.lines().skip(1).collect();
        assert_eq!(lines.len(), 8, "{msg}");
        assert_eq!(lines[0], "  1. `cann-path` in ascend.toml: not set");
        assert_eq!(lines[1], "  2. ASCEND_CANN_PACKAGE_PATH: not set");
        assert_eq!(
            lines[3],
            "  4. ASCEND_HOME_PATH: set to /no/such/cann: no such folder"
        );
        assert_eq!(
            lines[4],
            format!(
                "  5. $HOME/Ascend/ascend-toolkit/latest: {home}/Ascend/ascend-toolkit/latest: no such folder"
            )
        );
        assert!(
            lines[5].starts_with("  6. /usr/local/Ascend/ascend-toolkit/latest: "),
            "{msg}"
        );
        let help = NotFound::help();
        for fix in [
            "ASCEND_CANN_PACKAGE_PATH",
            "cann-path",
            "twin-package DIR",
            "--backend twin",
        ] {
            assert!(help.contains(fix), "{fix}: {help}");
        }
    }

    #[test]
    fn the_twin_package_is_recognised_by_its_marker() {
        let tmp = tempfile::tempdir().unwrap();
        let pkg = tmp.path().join("pkg");
        std::fs::create_dir_all(&pkg).unwrap();
        std::fs::write(pkg.join(TWIN_MARKER), "twin-version = \"abc123\"\n").unwrap();
        std::fs::write(pkg.join("set_env.sh"), "export ASCEND_HOME_PATH=x\n").unwrap();
        let env_pkg = pkg.to_string_lossy().into_owned();
        let env = env_of(&[("ASCEND_CANN_PACKAGE_PATH", &env_pkg)]);
        let Located::Found(found) = locate(None, &env) else {
            panic!("the twin package should be found")
        };
        assert_eq!(found.twin_version.as_deref(), Some("abc123"));
        assert_eq!(found.found_by, "ASCEND_CANN_PACKAGE_PATH");
        assert_eq!(found.setup_script, Some(pkg.join("set_env.sh")));
        assert_eq!(twin_version("twin-version = 3"), None);
    }

    #[test]
    fn env0_records_keep_equals_signs_and_newlines() {
        let got = parse_env0(b"A=1\0B=x=y\0C=two\nlines\0=bad\0noequals\0");
        let want: Vec<(OsString, OsString)> = [("A", "1"), ("B", "x=y"), ("C", "two\nlines")]
            .iter()
            .map(|(k, v)| (OsString::from(k), OsString::from(v)))
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn only_what_the_script_changed_is_kept() {
        let current: BTreeMap<OsString, OsString> = [("PATH", "/bin"), ("KEEP", "same")]
            .iter()
            .map(|(k, v)| (OsString::from(k), OsString::from(v)))
            .collect();
        let captured =
            parse_env0(b"PATH=/cann/bin:/bin\0KEEP=same\0NEW=1\0SHLVL=2\0_=/usr/bin/env\0");
        let got = changed(captured, &current);
        let names: Vec<&OsStr> = got.iter().map(|(k, _)| k.as_os_str()).collect();
        assert_eq!(names, ["PATH", "NEW"]);
    }

    #[test]
    fn sourcing_a_script_captures_its_exports_and_never_splices_its_path() {
        let tmp = tempfile::tempdir().unwrap();
        // A path with shell metacharacters: passed as $1, it is only ever a file name.
        let dir = tmp.path().join("we'ird $(touch pwned) dir");
        std::fs::create_dir_all(&dir).unwrap();
        let script = dir.join("set_env.sh");
        std::fs::write(
            &script,
            "echo noise\nexport ASCEND_TUNE_TEST_CANN=\"a b=c\"\nexport PATH=\"/cann/bin:$PATH\"\n",
        )
        .unwrap();
        let env = capture_env(&script, tmp.path()).unwrap();
        let get = |k: &str| env.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
        assert_eq!(get("ASCEND_TUNE_TEST_CANN"), Some(OsString::from("a b=c")));
        assert!(
            get("PATH")
                .unwrap()
                .to_string_lossy()
                .starts_with("/cann/bin:")
        );
        assert!(!tmp.path().join("pwned").exists() && !Path::new("pwned").exists());
        std::fs::write(&script, "return 3\n").unwrap();
        let e = capture_env(&script, tmp.path()).unwrap_err();
        assert!(e.contains("failed (exit code 3)"), "{e}");
    }
}
