//! The reader on the recorded-format folders of `fixtures/msprof/` (layouts and columns from the msProf
//! pages, numbers invented), the malformed ones with the exact message each gives, and the command line.

use super::*;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/msprof")
        .join(name)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

fn ratios(p: &PipeUtilisation) -> Vec<(Pipe, f64)> {
    p.pipes.iter().map(|s| (s.pipe, s.ratio)).collect()
}

fn assert_ratios(p: &PipeUtilisation, want: &[(Pipe, f64)]) {
    let got = ratios(p);
    assert_eq!(got.len(), want.len(), "{got:?}");
    for ((gp, gr), (wp, wr)) in got.iter().zip(want) {
        assert_eq!(gp, wp, "{got:?}");
        assert!(close(*gr, *wr), "{gp}: {gr} != {wr}");
    }
}

/// The error `read_run` gives on a malformed fixture, as people see it, with the fixture root cut off.
fn error_of(name: &str) -> (MsprofError, String) {
    let root = fixture(name);
    let e = read_run(&root).unwrap_err();
    let text = e.to_string().replace(&format!("{}/", root.display()), "");
    (e, text)
}

#[test]
fn a_910b_single_op_run() {
    let dir = fixture("910b_single_op/OPPROF_20250110153012_KQWRTZUA");
    let runs = read_run(&dir).unwrap();
    assert_eq!(runs.len(), 1);
    let l = &runs[0];
    assert_eq!(l.op_name, "add_custom");
    assert_eq!(l.op_type, "vector");
    assert_eq!(l.task_duration_us, 12.46);
    assert_eq!(l.block_dim, 8);
    assert_eq!(l.mix_block_dim, Some(0));
    assert_eq!(l.device_id, Some(0));
    assert_eq!(l.launch_index, None);
    assert_eq!(l.source, dir.join("OpBasicInfo.csv"));
    let p = l.pipes.as_ref().unwrap();
    assert_eq!(p.blocks, 8);
    // Pipe time summed over the 8 blocks over their summed aiv_time (89.8 us); cube columns are N/A.
    assert_ratios(
        p,
        &[
            (Pipe::Mte2, 67.42 / 89.8),
            (Pipe::Mte3, 20.7 / 89.8),
            (Pipe::V, 24.84 / 89.8),
            (Pipe::S, 7.2 / 89.8),
        ],
    );
    let v = &p.pipes[2];
    assert_eq!(v.column, "aiv_vec_ratio");
    assert!(close(v.busy_us.unwrap(), 24.84 / 8.0), "{v:?}");
}

#[test]
fn a_310p_run_has_no_mix_block_dim_and_unprefixed_pipe_columns() {
    let runs = read_run(&fixture("310p_single_op")).unwrap();
    assert_eq!(runs.len(), 1);
    let l = &runs[0];
    assert_eq!((l.task_duration_us, l.block_dim), (38.72, 8));
    assert_eq!(l.mix_block_dim, None);
    let p = l.pipes.as_ref().unwrap();
    assert_ratios(
        p,
        &[
            (Pipe::Mte2, 226.8 / 290.8),
            (Pipe::Mte3, 56.0 / 290.8),
            (Pipe::V, 73.4 / 290.8),
            (Pipe::S, 16.0 / 290.8),
            (Pipe::Mte1, 0.0),
            (Pipe::M, 0.0),
        ],
    );
    assert_eq!(p.pipes[5].column, "mac_ratio");
}

#[test]
fn a_multi_op_nested_run_gives_one_launch_per_folder_in_name_order() {
    let runs = read_run(&fixture("multi_op_nested")).unwrap();
    let names: Vec<(&str, &str, Option<u32>)> = runs
        .iter()
        .map(|l| (l.op_name.as_str(), l.op_type.as_str(), l.launch_index))
        .collect();
    assert_eq!(
        names,
        [
            ("add_custom", "vector", Some(0)),
            ("matmul_custom", "mix", Some(0)),
            ("mul_custom", "vector", Some(0))
        ]
    );
    assert_eq!(runs[0].pipes.as_ref().unwrap().blocks, 4);
    assert!(runs[2].pipes.is_none());
    // The mix kernel: vector pipes from the four vector rows (38 us each), cube pipes from the two cube
    // rows (40 and 41 us).
    let m = &runs[1];
    assert_eq!((m.block_dim, m.mix_block_dim), (2, Some(4)));
    let p = m.pipes.as_ref().unwrap();
    assert_eq!(p.blocks, 6);
    assert_ratios(
        p,
        &[
            (Pipe::Mte2, 20.0 / 152.0),
            (Pipe::Mte3, 15.2 / 152.0),
            (Pipe::V, 24.0 / 152.0),
            (Pipe::S, 6.0 / 152.0),
            (Pipe::Mte1, 24.0 / 81.0),
            (Pipe::M, 60.0 / 81.0),
            (Pipe::Fix, 8.0 / 81.0),
        ],
    );
    assert_eq!(p.pipes[5].column, "aic_cube_ratio");
}

#[test]
fn device_folders_give_the_device_and_sort_as_numbers() {
    let runs = read_run(&fixture("multi_device")).unwrap();
    let got: Vec<(Option<u32>, f64)> = runs
        .iter()
        .map(|l| (l.device_id, l.task_duration_us))
        .collect();
    assert_eq!(got, [(Some(0), 12.40), (Some(1), 12.61), (Some(10), 12.55)]);
}

#[test]
fn a_launch_count_of_12_gives_12_samples_in_launch_order() {
    let runs = read_run(&fixture("launch_count_12")).unwrap();
    let idx: Vec<u32> = runs.iter().map(|l| l.launch_index.unwrap()).collect();
    assert_eq!(idx, (0..12).collect::<Vec<u32>>());
    let samples = task_durations(&runs, "add_custom");
    assert_eq!(
        samples,
        [
            12.41, 12.38, 12.52, 12.40, 12.44, 12.39, 12.47, 12.43, 12.36, 12.45, 12.42, 14.90
        ]
    );
    assert!(task_durations(&runs, "mul").is_empty());
    assert_eq!(task_durations(&runs, "").len(), 12);
    assert!(runs[0].pipes.is_some() && runs[1..].iter().all(|l| l.pipes.is_none()));
    // The last launch is an outlier the summary trims.
    let s = crate::measure::samples::Summary::of(&samples).unwrap();
    assert_eq!((s.n, s.max), (11, 12.52));
    assert!(close(s.median, 12.42), "{s:?}");
}

#[test]
fn bom_crlf_mixed_case_headers_trailing_commas_and_quotes_are_read() {
    let runs = read_run(&fixture("quirks")).unwrap();
    assert_eq!(runs.len(), 1);
    let l = &runs[0];
    assert_eq!(l.op_name, "add_custom, v2");
    assert_eq!(l.op_type, "vector");
    assert_eq!((l.task_duration_us, l.block_dim), (12.46, 8));
    assert_eq!((l.mix_block_dim, l.device_id), (None, Some(3)));
    let p = l.pipes.as_ref().unwrap();
    assert_eq!(p.blocks, 2);
    // Ratios without pipe times, weighted by each block's AIV_Time(us) (10 and 30).
    assert_ratios(
        p,
        &[
            (Pipe::Mte2, 34.0 / 40.0),
            (Pipe::Mte3, 5.0 / 40.0),
            (Pipe::V, 18.0 / 40.0),
            (Pipe::S, 4.0 / 40.0),
        ],
    );
    assert!(close(p.pipes[2].busy_us.unwrap(), 9.0));
}

#[test]
fn a_folder_of_runs_reads_every_run_in_order() {
    let runs = read_run(&fixture("two_runs")).unwrap();
    let d: Vec<f64> = runs.iter().map(|l| l.task_duration_us).collect();
    assert_eq!(d, [12.50, 12.44]);
    assert!(runs.iter().all(|l| l.device_id == Some(1)));
}

#[test]
fn the_simulator_output_reads_per_core() {
    let cores = read_simulator(&fixture("simulator_910b")).unwrap();
    let names: Vec<&str> = cores.iter().map(|c| c.core.as_str()).collect();
    assert_eq!(names, ["core0.veccore0", "core0.veccore1"]);
    let c = &cores[1];
    assert_eq!(c.code.len(), 3);
    assert_eq!(
        c.code[1],
        CodeLine {
            code: "/home/dev/add_custom/op_kernel/add_custom.cpp:47".into(),
            call_count: 16,
            cycles: 5940,
            running_time_us: 3.3,
        }
    );
    assert!(close(c.running_time_us(), 0.733 + 3.3 + 1.283));
    // A quoted detail keeps its comma; an empty one is absent.
    assert_eq!(
        c.instrs[0].detail.as_deref(),
        Some("nBurst:1, lenBurst:256")
    );
    assert_eq!(c.instrs[3].detail, None);
    assert_eq!(c.instrs[0].addr.as_deref(), Some("0x1a0"));
    let pipes = c.pipe_time_us();
    assert_eq!(
        pipes.keys().collect::<Vec<_>>(),
        ["MTE2", "MTE3", "SCALAR", "VECTOR"]
    );
    assert!(close(pipes["MTE2"], 3.3) && close(pipes["SCALAR"], 0.039));
    // An op run is not a simulator run, and the reverse.
    let e = read_simulator(&fixture("910b_single_op")).unwrap_err();
    assert_eq!(e.kind, ErrorKind::NoOutput);
    assert_eq!(
        read_run(&fixture("simulator_910b")).unwrap_err().kind,
        ErrorKind::NoOutput
    );
}

#[test]
fn a_missing_column_names_the_file_row_and_column() {
    let (e, text) = error_of("bad_missing_column");
    assert_eq!(e.kind, ErrorKind::MissingColumn);
    assert_eq!(
        text,
        "OPPROF_20250118000000_MISSCOLS/OpBasicInfo.csv: row 1: no column `Task Duration(us)` in the header"
    );
    assert!(
        e.help
            .unwrap()
            .starts_with("the header has: Op Name, Op Type, Block Dim, Mix Block Dim")
    );
}

#[test]
fn a_non_numeric_cell_names_the_file_row_and_column() {
    let (e, text) = error_of("bad_non_numeric");
    assert_eq!(e.kind, ErrorKind::BadCell);
    assert_eq!(
        text,
        "OPPROF_20250118000100_NOTANUMB/add_custom/1/OpBasicInfo_20250118000100002.csv: row 2, column `Block Dim`: `eight` is not a whole number >= 1"
    );
    assert_eq!((e.row, e.column.as_deref()), (Some(2), Some("Block Dim")));
}

#[test]
fn an_empty_file_is_named() {
    let (e, text) = error_of("bad_empty");
    assert_eq!(e.kind, ErrorKind::Empty);
    assert_eq!(
        text,
        "OPPROF_20250118000200_EMPTYFIL/OpBasicInfo.csv: the file is empty"
    );
}

#[test]
fn a_folder_without_op_basic_info_is_named() {
    let root = fixture("bad_no_opbasicinfo");
    let e = read_run(&root).unwrap_err();
    assert_eq!(e.kind, ErrorKind::NoOutput);
    assert_eq!(
        e.to_string(),
        format!(
            "{}: no OpBasicInfo*.csv in this folder or below it",
            root.display()
        )
    );
    assert!(e.help.unwrap().contains("--kernel-name"));
}

#[test]
fn a_header_without_rows_is_named() {
    let (e, text) = error_of("bad_header_only");
    assert_eq!(e.kind, ErrorKind::NoRows);
    assert_eq!(
        text,
        "OPPROF_20250118000400_HEADONLY/OpBasicInfo.csv: row 1: a header but no data row"
    );
}

#[test]
fn a_short_row_names_the_first_missing_column() {
    let (_, text) = error_of("bad_short_row");
    assert_eq!(
        text,
        "OPPROF_20250118000500_SHORTROW/OpBasicInfo.csv: row 2, column `Task Duration(us)`: the row ends before this column (2 cells, the header has 9)"
    );
}

#[test]
fn a_bad_pipe_cell_names_the_pipe_utilization_row() {
    let (e, text) = error_of("bad_pipe_cell");
    assert_eq!(
        text,
        "OPPROF_20250118000600_PIPECELL/PipeUtilization.csv: row 4, column `aiv_vec_ratio`: `0.27x` is not a number >= 0"
    );
    assert_eq!(e.kind, ErrorKind::BadCell);
}

#[test]
fn a_negative_duration_is_refused() {
    let (_, text) = error_of("bad_negative_duration");
    assert_eq!(
        text,
        "OPPROF_20250118000700_NEGATIVE/OpBasicInfo.csv: row 2, column `Task Duration(us)`: `-3.20` is not a duration (a number >= 0)"
    );
}

#[test]
fn every_recorded_folder_reads_or_fails_with_a_named_file() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/msprof");
    let mut seen = 0;
    for e in std::fs::read_dir(&root).unwrap() {
        let dir = e.unwrap().path();
        if !dir.is_dir() {
            continue;
        }
        seen += 1;
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let result = if name.starts_with("simulator") {
            read_simulator(&dir).map(|c| c.len())
        } else {
            read_run(&dir).map(|l| l.len())
        };
        match result {
            Ok(n) => assert!(!name.starts_with("bad_") && n > 0, "{name}"),
            Err(e) => {
                assert!(name.starts_with("bad_"), "{name}: {e}");
                assert!(e.file.starts_with(&dir), "{name}: {e}");
            }
        }
    }
    assert_eq!(seen, 16);
}

#[test]
fn in_memory_files_read_like_a_folder() {
    let files = vec![
        (
            PathBuf::from("run/OpBasicInfo.csv"),
            b"Op Name,Op Type,Task Duration(us),Block Dim\nk,vector,5,4\n".to_vec(),
        ),
        (PathBuf::from("run/notes.txt"), b"ignored".to_vec()),
    ];
    let runs = read_files(Path::new("/virtual"), &files).unwrap();
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].source, Path::new("/virtual/run/OpBasicInfo.csv"));
    assert_eq!((runs[0].mix_block_dim, runs[0].device_id), (None, None));
    // Two OpBasicInfo files in one folder: which is the launch's is unknown.
    let mut two = files.clone();
    two.push((PathBuf::from("run/OpBasicInfo_2.csv"), files[0].1.clone()));
    let e = read_files(Path::new("/virtual"), &two).unwrap_err();
    assert_eq!(
        e.to_string(),
        "/virtual/run/OpBasicInfo_2.csv: a second OpBasicInfo file in one launch folder (the first is OpBasicInfo.csv)"
    );
    assert_eq!(
        read_files(Path::new("/virtual"), &[]).unwrap_err().kind,
        ErrorKind::NoOutput
    );
}

#[test]
fn several_rows_in_one_file_are_several_launches_without_pipes() {
    let files = vec![
        (
            PathBuf::from("OpBasicInfo.csv"),
            b"Op Name,Op Type,Task Duration(us),Block Dim\nk,vector,5,4\nk,vector,6,4\n".to_vec(),
        ),
        (
            PathBuf::from("PipeUtilization.csv"),
            b"block_id,aiv_time(us),aiv_vec_ratio\n0,1.0,0.5\n".to_vec(),
        ),
    ];
    let runs = read_files(Path::new("r"), &files).unwrap();
    assert_eq!(task_durations(&runs, ""), [5.0, 6.0]);
    assert!(runs.iter().all(|l| l.pipes.is_none()));
}

#[test]
fn a_pipe_file_without_pipe_columns_is_an_error() {
    let files = vec![
        (
            PathBuf::from("OpBasicInfo.csv"),
            b"Op Name,Op Type,Task Duration(us),Block Dim\nk,vector,5,4\n".to_vec(),
        ),
        (
            PathBuf::from("PipeUtilization.csv"),
            b"block_id,aiv_time(us)\n0,1.0\n".to_vec(),
        ),
    ];
    let e = read_files(Path::new("r"), &files).unwrap_err();
    assert_eq!(e.kind, ErrorKind::MissingColumn);
    assert!(
        e.to_string()
            .starts_with("r/PipeUtilization.csv: row 1: no pipe column in the header"),
        "{e}"
    );
}

#[test]
fn numbers_written_as_floats_and_absent_optional_cells_are_accepted() {
    let files = vec![(
        PathBuf::from("OpBasicInfo.csv"),
        b"Op Name,Op Type,Task Duration(us),Block Dim,Mix Block Dim,Device Id\nk,cube,5,8.0,,-\n"
            .to_vec(),
    )];
    let l = &read_files(Path::new("r"), &files).unwrap()[0];
    assert_eq!((l.block_dim, l.mix_block_dim, l.device_id), (8, None, None));
    for (cell, msg) in [
        ("0", "`0` is not a whole number >= 1"),
        ("4294967296", "`4294967296` is not a whole number >= 1"),
        ("8.5", "`8.5` is not a whole number >= 1"),
        ("N/A", "`N/A`: a value is needed"),
    ] {
        let text = format!("Op Name,Op Type,Task Duration(us),Block Dim\nk,cube,5,{cell}\n");
        let e = read_files(
            Path::new("r"),
            &[(PathBuf::from("OpBasicInfo.csv"), text.into_bytes())],
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("r/OpBasicInfo.csv: row 2, column `Block Dim`: {msg}")
        );
    }
}

#[test]
fn long_cells_are_cut_in_messages() {
    let long = "x".repeat(100);
    let text = format!("Op Name,Op Type,Task Duration(us),Block Dim\nk,cube,{long},1\n");
    let e = read_files(
        Path::new("r"),
        &[(PathBuf::from("OpBasicInfo.csv"), text.into_bytes())],
    )
    .unwrap_err();
    assert!(
        e.message
            .starts_with(&format!("`{}…` is not a duration", "x".repeat(40))),
        "{e}"
    );
}

#[test]
fn natural_order_of_folders() {
    let mut v: Vec<FolderKey> = ["a/10", "a/9", "a/01", "a/1", "device2", "device10", "b"]
        .iter()
        .map(|p| FolderKey::of(Path::new(p)))
        .collect();
    v.sort();
    let names: Vec<String> = v.iter().map(|k| k.1.display().to_string()).collect();
    assert_eq!(
        names,
        ["a/01", "a/1", "a/9", "a/10", "b", "device2", "device10"]
    );
}

#[test]
fn the_device_command_line() {
    let opts = MsprofOptions {
        tool: Tool::Msprof,
        simulator: None,
        output: PathBuf::from("/w/trial-3"),
        warm_up: 5,
        launch_count: 20,
        kernel_name: "add_custom".into(),
    };
    let argv = op_command(&opts, &["./ascendc_kernels_bbit".into(), "--n".into()]);
    assert_eq!(
        argv,
        [
            "msprof",
            "op",
            "--output=/w/trial-3",
            "--warm-up=5",
            "--launch-count=20",
            "--kernel-name=add_custom",
            "./ascendc_kernels_bbit",
            "--n"
        ]
        .map(OsString::from)
    );
    let newer = MsprofOptions {
        tool: Tool::Msopprof,
        kernel_name: String::new(),
        ..opts
    };
    assert_eq!(
        op_command(&newer, &["app".into()]),
        [
            "msopprof",
            "--output=/w/trial-3",
            "--warm-up=5",
            "--launch-count=20",
            "app"
        ]
        .map(OsString::from)
    );
}

#[test]
fn the_simulator_command_line() {
    let opts = MsprofOptions {
        tool: Tool::Msprof,
        simulator: Some("Ascend910B1".into()),
        output: PathBuf::from("out"),
        warm_up: 5,
        launch_count: 1,
        kernel_name: "add_custom".into(),
    };
    assert_eq!(
        op_command(&opts, &["./app".into()]),
        [
            "msprof",
            "op",
            "simulator",
            "--soc-version=Ascend910B1",
            "--output=out",
            "--launch-count=1",
            "--kernel-name=add_custom",
            "./app"
        ]
        .map(OsString::from)
    );
}
