//! Measuring a run on the NPU or the simulator with msprof (FACTS.md §6): the profiler's command for each
//! program run (warm-up, launch count, kernel-name filter, an output folder per run), the device each
//! trial runs on (trials on different NPUs run in parallel; one collection per device at a time, as msprof
//! requires), and the samples reduced to their median. Reads msprof's folders only through
//! `crate::measure::msprof`. Knows nothing of building, searching or lockfiles.

use crate::backend::cmake_flow::{self, Toolchain};
use crate::backend::{FailureKind, Measurement, TrialFailure};
use crate::child::Trust;
use crate::errors::{Error, Result};
use crate::manifest::{OpSpec, RunMode};
use crate::measure::msprof::{self, MsprofOptions, OpLaunch, Tool};
use crate::model::pipeline::{Bound, PipeStat, Timing};
use crate::model::soc::Soc;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

/// Samples per trial on the NPU unless `ASCEND_TUNE_SAMPLES` says otherwise; the simulator is
/// deterministic, so one sample does there.
const NPU_SAMPLES: u32 = 5;
/// Warm-up launches before msprof measures, unless `ASCEND_TUNE_WARM_UP` says otherwise.
const WARM_UP: u32 = 5;
/// Wall-clock limits of one profiled run unless `ASCEND_TUNE_RUN_TIMEOUT` says otherwise: msprof adds
/// its own start-up and replays, and the simulator runs the kernel instruction by instruction.
const NPU_RUN_LIMIT: Duration = Duration::from_secs(600);
const SIM_RUN_LIMIT: Duration = Duration::from_secs(3600);

fn env_count(name: &str, default: u32, max: u32) -> u32 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.trim().parse::<u32>().ok())
        .map_or(default, |n| n.min(max))
}

/// The NPUs trials may use, each held by one trial at a time.
pub struct DevicePool {
    ids: Vec<u32>,
    slots: Vec<Mutex<()>>,
    next: AtomicUsize,
}

impl DevicePool {
    /// From the manifest's `devices`, else `ASCEND_RT_VISIBLE_DEVICES` (`visible`), else device 0.
    pub fn new(manifest: &[u32], visible: Option<&str>) -> std::result::Result<DevicePool, String> {
        let ids = if !manifest.is_empty() {
            manifest.to_vec()
        } else {
            match visible.map(str::trim).filter(|v| !v.is_empty()) {
                Some(v) => parse_visible(v)?,
                None => vec![0],
            }
        };
        Ok(DevicePool {
            slots: ids.iter().map(|_| Mutex::new(())).collect(),
            ids,
            next: AtomicUsize::new(0),
        })
    }

    pub fn ids(&self) -> &[u32] {
        &self.ids
    }

    /// A free device if there is one (trying them in turn from where the last trial started), else
    /// waits for the next in turn.
    pub fn acquire(&self) -> (u32, MutexGuard<'_, ()>) {
        let n = self.ids.len();
        let start = self.next.fetch_add(1, Ordering::Relaxed) % n;
        for i in 0..n {
            let at = (start + i) % n;
            if let Ok(guard) = self.slots[at].try_lock() {
                return (self.ids[at], guard);
            }
        }
        let guard = self.slots[start]
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        (self.ids[start], guard)
    }
}

/// `ASCEND_RT_VISIBLE_DEVICES`: device ids separated by commas.
pub fn parse_visible(v: &str) -> std::result::Result<Vec<u32>, String> {
    let ids: std::result::Result<Vec<u32>, _> =
        v.split(',').map(|s| s.trim().parse::<u32>()).collect();
    match ids {
        Ok(ids) if !ids.is_empty() => Ok(ids),
        _ => Err(format!(
            "ASCEND_RT_VISIBLE_DEVICES=`{v}` is not a list of device ids such as `0,1,2,3`"
        )),
    }
}

pub struct Profiler {
    tool: Tool,
    exe: PathBuf,
    /// sim mode: the SoC simulated.
    simulator: Option<String>,
    warm_up: u32,
    samples: u32,
    devices: DevicePool,
}

/// What profiling one trial gave.
pub struct Profiled {
    /// Task durations (us), one per measured launch.
    pub samples: Vec<f64>,
    /// The launch whose duration is nearest the median, for its block_dim and pipes.
    pub typical: OpLaunch,
}

impl Profiler {
    /// The profiler of a sim or npu run: `msprof` on the toolchain's PATH, else `msopprof`.
    pub fn new(
        tool: &Toolchain,
        mode: RunMode,
        soc: &Soc,
        devices: DevicePool,
    ) -> Result<Profiler> {
        let path = tool.var("PATH").unwrap_or_default();
        let (kind, exe) = [(Tool::Msprof, "msprof"), (Tool::Msopprof, "msopprof")]
            .into_iter()
            .find_map(|(k, name)| find_on_path(&path, name).map(|p| (k, p)))
            .ok_or_else(|| {
                Error::bad_input(
                    format!(
                        "run mode {} measures with msprof, but neither msprof nor msopprof is on the PATH that {} sets up",
                        mode.as_str(),
                        tool.install
                            .setup_script
                            .as_ref()
                            .map_or("the CANN install".to_string(), |s| s.display().to_string())
                    ),
                    Some("install the CANN toolkit with its tools (msprof comes with it), or use run-mode = \"cpu\" with the twin package".into()),
                )
            })?;
        let sim = mode == RunMode::Sim;
        Ok(Profiler {
            tool: kind,
            exe,
            simulator: sim.then(|| soc.name.to_string()),
            warm_up: env_count("ASCEND_TUNE_WARM_UP", WARM_UP, 1000),
            samples: env_count(
                "ASCEND_TUNE_SAMPLES",
                if sim { 1 } else { NPU_SAMPLES },
                1000,
            )
            .max(1),
            devices,
        })
    }

    /// msprof's options for one program run that should measure `launches` launches of `kernel`.
    pub fn options(&self, output: PathBuf, kernel: &str, launches: u32) -> MsprofOptions {
        MsprofOptions {
            tool: self.tool,
            simulator: self.simulator.clone(),
            output,
            warm_up: self.warm_up,
            launch_count: launches,
            kernel_name: kernel.to_string(),
        }
    }

    /// The full command line (the profiler's executable first) of one profiled run of `app`.
    pub fn command_line(&self, opts: &MsprofOptions, app: &[OsString]) -> Vec<OsString> {
        let mut argv = msprof::op_command(opts, app);
        if let Some(first) = argv.first_mut() {
            *first = self.exe.clone().into_os_string();
        }
        argv
    }

    /// Runs `app` in `cwd` under the profiler until it has the samples it wants (several launches per
    /// run when the program launches the kernel several times, else one run per sample), on one device.
    pub fn measure(
        &self,
        kernel: &str,
        app: &[OsString],
        cwd: &Path,
        tool: &Toolchain,
        extra_env: &[(OsString, OsString)],
    ) -> std::result::Result<Profiled, TrialFailure> {
        let device = if self.simulator.is_none() {
            Some(self.devices.acquire())
        } else {
            None
        };
        let mut samples = vec![];
        let mut launches = vec![];
        for run in 0..self.samples {
            let want = self.samples - samples.len() as u32;
            let out = cwd.join(format!("msprof-{run}"));
            std::fs::create_dir_all(&out).map_err(|e| {
                TrialFailure::new(FailureKind::Crash, format!("{}: {e}", out.display()))
            })?;
            let argv = self.command_line(&self.options(out.clone(), kernel, want), app);
            let mut cmd = tool.command(&argv[0]);
            cmd.args(&argv[1..])
                .current_dir(cwd)
                .envs(extra_env.iter().map(|(k, v)| (k, v)));
            if let Some((id, _)) = &device {
                cmd.env("ASCEND_RT_VISIBLE_DEVICES", id.to_string());
            }
            // msprof starts the program itself, so it runs as a tool.
            let limit = cmake_flow::run_limit(if self.simulator.is_some() {
                SIM_RUN_LIMIT
            } else {
                NPU_RUN_LIMIT
            });
            cmake_flow::run_program(
                cmd,
                Trust::Tool,
                false,
                limit,
                &cwd.join(format!("msprof-{run}-log")),
            )?;
            let found = msprof::read_run(&out).map_err(|e| {
                TrialFailure::new(
                    FailureKind::Crash,
                    format!("msprof wrote a folder this tool cannot read: {e}"),
                )
            })?;
            let seen: Vec<String> = found.iter().map(|l| l.op_name.clone()).collect();
            let matched: Vec<OpLaunch> = found
                .into_iter()
                .filter(|l| l.op_name.contains(kernel))
                .collect();
            if matched.is_empty() {
                return Err(TrialFailure::new(
                    FailureKind::Crash,
                    format!(
                        "msprof recorded no launch of kernel `{kernel}` in {} (it saw: {}); the op's name must be its kernel function's",
                        out.display(),
                        if seen.is_empty() {
                            "nothing".into()
                        } else {
                            seen.join(", ")
                        }
                    ),
                ));
            }
            samples.extend(matched.iter().map(|l| l.task_duration_us));
            launches.extend(matched);
            if samples.len() as u32 >= self.samples {
                break;
            }
        }
        let median = median(&samples);
        let typical = launches
            .into_iter()
            .min_by(|a, b| {
                (a.task_duration_us - median)
                    .abs()
                    .total_cmp(&(b.task_duration_us - median).abs())
            })
            .expect("at least one launch was matched");
        Ok(Profiled { samples, typical })
    }
}

fn find_on_path(path: &std::ffi::OsStr, name: &str) -> Option<PathBuf> {
    std::env::split_paths(path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// The median of the samples after the outlier trimming of `measure::samples`.
fn median(samples: &[f64]) -> f64 {
    crate::measure::samples::Summary::of(samples).map_or(f64::NAN, |s| s.median)
}

/// The measurement of a profiled trial: the median latency, every sample, and the typical launch's
/// block_dim and pipe utilisation. The roofline counts the op's tensors once each, the least GM
/// traffic the op can have.
pub fn measurement(p: Profiled, op: &OpSpec, outputs: Vec<Vec<u8>>, soc: &Soc) -> Measurement {
    let latency_us = median(&p.samples);
    let gm_bytes: u64 = op.inputs.iter().chain(&op.outputs).map(|t| t.bytes()).sum();
    let timing = measured_timing(&p.typical, latency_us, gm_bytes, soc);
    Measurement {
        latency_us,
        block_dim: p.typical.block_dim,
        timing,
        outputs,
        modelled: false,
        trace: None,
        samples: p.samples,
        warnings: vec![],
        ub_use: None,
    }
}

/// msprof's figures in the shape the rest of the tool reads: per-pipe ratios from PipeUtilization and a
/// bound by the same rule as the model's (the busiest pipe, when it is busy at least half the time).
pub fn measured_timing(launch: &OpLaunch, latency_us: f64, gm_bytes: u64, soc: &Soc) -> Timing {
    let mut notes = vec![format!(
        "measured by msprof ({}, {} block(s))",
        launch.source.display(),
        launch.block_dim
    )];
    let pipes: Vec<PipeStat> = match &launch.pipes {
        Some(u) => u
            .pipes
            .iter()
            .map(|s| PipeStat {
                pipe: s.pipe,
                busy_us: s.busy_us.unwrap_or(s.ratio * latency_us),
                ratio: s.ratio,
                name: s.column,
            })
            .collect(),
        None => {
            notes.push("msprof wrote no PipeUtilization, so the bound is not known".into());
            vec![]
        }
    };
    let bound = pipes
        .iter()
        .max_by(|a, b| a.ratio.total_cmp(&b.ratio))
        .filter(|p| p.ratio >= 0.5)
        .map_or(Bound::Dependency, |p| Bound::of_pipe(p.pipe));
    Timing {
        latency_us,
        pipes,
        bound,
        blocks: vec![],
        spans: vec![],
        modelled: false,
        launch_us: 0.0,
        skew_us: 0.0,
        block_dim: launch.block_dim,
        cores: launch.block_dim.min(soc.aiv_cores),
        gm_bytes,
        roofline_us: crate::model::pipeline::roofline_us(gm_bytes, soc),
        cube_roofline_us: 0.0,
        notes,
        ub_races: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::trace::Pipe;

    #[test]
    fn devices_come_from_the_manifest_then_the_environment_then_zero() {
        assert_eq!(DevicePool::new(&[3, 1], Some("0,1")).unwrap().ids(), [3, 1]);
        assert_eq!(DevicePool::new(&[], Some(" 4, 5 ")).unwrap().ids(), [4, 5]);
        assert_eq!(DevicePool::new(&[], Some("")).unwrap().ids(), [0]);
        assert_eq!(DevicePool::new(&[], None).unwrap().ids(), [0]);
        let e = DevicePool::new(&[], Some("0,gpu1")).err().unwrap();
        assert!(e.contains("`0,gpu1`"), "{e}");
    }

    #[test]
    fn trials_take_free_devices_first() {
        let pool = DevicePool::new(&[2, 7], None).unwrap();
        let (a, ga) = pool.acquire();
        let (b, gb) = pool.acquire();
        assert_eq!((a, b), (2, 7));
        drop(ga);
        // Device 7 is busy, so the next trial gets 2 whatever the turn says.
        let (c, _gc) = pool.acquire();
        assert_eq!(c, 2);
        drop(gb);
    }

    /// A toolchain whose PATH holds only `dir`.
    fn toolchain(dir: &Path) -> Toolchain {
        Toolchain {
            install: crate::backend::cann::locate::Install {
                root: dir.to_path_buf(),
                found_by: "test".into(),
                twin_version: None,
                setup_script: None,
            },
            env: vec![("PATH".into(), dir.as_os_str().to_os_string())],
            fingerprint: "test".into(),
        }
    }

    fn executable(path: &Path, text: &str) {
        use std::os::unix::fs::PermissionsExt;
        std::fs::write(path, text).unwrap();
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    fn strings(argv: &[OsString]) -> Vec<String> {
        argv.iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn the_profiler_command_differs_by_mode() {
        let tmp = tempfile::tempdir().unwrap();
        let soc = crate::model::soc::lookup("Ascend910B1").unwrap();
        let tool = toolchain(tmp.path());
        let none = Profiler::new(
            &tool,
            RunMode::Npu,
            soc,
            DevicePool::new(&[], None).unwrap(),
        );
        let e = none.err().unwrap().to_string();
        assert!(e.contains("neither msprof nor msopprof"), "{e}");
        executable(&tmp.path().join("msopprof"), "");
        let p = Profiler::new(
            &tool,
            RunMode::Npu,
            soc,
            DevicePool::new(&[], None).unwrap(),
        )
        .unwrap();
        let app = [OsString::from("/c/prog")];
        let argv = strings(&p.command_line(&p.options("/o".into(), "add_custom", 3), &app));
        assert_eq!(argv[0], tmp.path().join("msopprof").to_string_lossy());
        assert_eq!(
            argv[1..],
            [
                "--output=/o",
                "--warm-up=5",
                "--launch-count=3",
                "--kernel-name=add_custom",
                "/c/prog"
            ]
        );
        // msprof is preferred when both are there; sim mode runs the simulator for the SoC.
        executable(&tmp.path().join("msprof"), "");
        let p = Profiler::new(
            &tool,
            RunMode::Sim,
            soc,
            DevicePool::new(&[], None).unwrap(),
        )
        .unwrap();
        let argv = strings(&p.command_line(&p.options("/o".into(), "add_custom", 1), &app));
        assert_eq!(argv[0], tmp.path().join("msprof").to_string_lossy());
        assert_eq!(
            argv[1..],
            [
                "op",
                "simulator",
                "--soc-version=Ascend910B1",
                "--output=/o",
                "--launch-count=1",
                "--kernel-name=add_custom",
                "/c/prog"
            ]
        );
    }

    /// A stand-in for `msprof op`: runs the app, then writes an OPPROF folder with one launch whose
    /// duration grows by 1 us per run (11.5, 12.5, ...) and whose device is the one it was given.
    const FAKE_MSPROF: &str = r#"#!/bin/sh
out=""; app=""
for a in "$@"; do
  case "$a" in --output=*) out="${a#--output=}";; esac
  app="$a"
done
"$app" || exit 1
n=$(cat "$COUNTER" 2>/dev/null || echo 0); n=$((n + 1)); echo "$n" > "$COUNTER"
mkdir -p "$out/OPPROF_20250101000000_TEST"
printf 'Op Name,Op Type,Task Duration(us),Block Dim,Mix Block Dim,Device Id,Pid,Current Freq,Rated Freq
add_custom_0,vector,%s.5,8,N/A,%s,1,1800,1800,
'   "$((10 + n))" "$ASCEND_RT_VISIBLE_DEVICES" > "$out/OPPROF_20250101000000_TEST/OpBasicInfo.csv"
"#;

    #[test]
    fn measure_repeats_runs_until_it_has_its_samples_on_one_device() {
        let tmp = tempfile::tempdir().unwrap();
        let bin = tmp.path().join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        executable(&bin.join("msprof"), FAKE_MSPROF);
        let soc = crate::model::soc::lookup("Ascend910B1").unwrap();
        let mut tool = toolchain(&bin);
        // The stand-in needs the usual tools (mkdir, cat) besides itself.
        let mut path = bin.clone().into_os_string();
        path.push(":/usr/bin:/bin");
        tool.env = vec![("PATH".into(), path)];
        let mut p = Profiler::new(
            &tool,
            RunMode::Npu,
            soc,
            DevicePool::new(&[6], None).unwrap(),
        )
        .unwrap();
        p.samples = 5;
        let counter = tmp.path().join("counter");
        let run = tmp.path().join("run");
        std::fs::create_dir_all(&run).unwrap();
        let env = [(OsString::from("COUNTER"), counter.clone().into_os_string())];
        let got = p
            .measure(
                "add_custom",
                &[OsString::from("/bin/true")],
                &run,
                &tool,
                &env,
            )
            .unwrap_or_else(|f| panic!("{}", f.message));
        assert_eq!(got.samples, [11.5, 12.5, 13.5, 14.5, 15.5]);
        assert_eq!(got.typical.task_duration_us, 13.5);
        assert_eq!(got.typical.device_id, Some(6));
        assert_eq!(std::fs::read_to_string(&counter).unwrap().trim(), "5");
        // A kernel msprof never saw is a failed trial that names what it did see.
        std::fs::remove_file(&counter).unwrap();
        let f = p
            .measure(
                "mul_custom",
                &[OsString::from("/bin/true")],
                &run,
                &tool,
                &env,
            )
            .err()
            .unwrap();
        assert!(
            f.message.contains("no launch of kernel `mul_custom`")
                && f.message.contains("add_custom_0"),
            "{}",
            f.message
        );
        // A failing program fails the trial.
        let f = p
            .measure(
                "add_custom",
                &[OsString::from("/bin/false")],
                &run,
                &tool,
                &env,
            )
            .err()
            .unwrap();
        assert_eq!(f.kind, FailureKind::Crash, "{}", f.message);
    }

    fn launch(us: f64, pipes: Option<Vec<(Pipe, f64)>>) -> OpLaunch {
        OpLaunch {
            op_name: "add_custom_0".into(),
            op_type: "vector".into(),
            task_duration_us: us,
            block_dim: 8,
            mix_block_dim: None,
            device_id: Some(0),
            pipes: pipes.map(|ps| msprof::PipeUtilisation {
                blocks: 8,
                pipes: ps
                    .into_iter()
                    .map(|(pipe, ratio)| msprof::PipeShare {
                        pipe,
                        ratio,
                        busy_us: None,
                        column: "aiv_mte2_ratio",
                    })
                    .collect(),
                source: PathBuf::from("PipeUtilization.csv"),
            }),
            launch_index: None,
            source: PathBuf::from("OpBasicInfo.csv"),
        }
    }

    #[test]
    fn measured_timing_takes_the_busiest_pipe_as_the_bound() {
        let soc = crate::model::soc::lookup("Ascend910B1").unwrap();
        let t = measured_timing(
            &launch(10.0, Some(vec![(Pipe::Mte2, 0.8), (Pipe::V, 0.3)])),
            10.0,
            1000,
            soc,
        );
        assert_eq!(t.bound, Bound::Mte2);
        assert!(!t.modelled);
        assert_eq!(t.pipes[0].busy_us, 8.0);
        assert_eq!(t.block_dim, 8);
        let t = measured_timing(&launch(10.0, Some(vec![(Pipe::V, 0.4)])), 10.0, 0, soc);
        assert_eq!(t.bound, Bound::Dependency);
        let t = measured_timing(&launch(10.0, None), 10.0, 0, soc);
        assert!(t.pipes.is_empty() && t.notes.iter().any(|n| n.contains("no PipeUtilization")));
    }
}
