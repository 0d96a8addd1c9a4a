//! The numbers behind the twin's cube API: builds `templates/twin/tests/cube_kernel.cpp` against the
//! twin with the system C++ compiler, runs it through the twin's kernel program (one block), and checks
//! every result against a reference computed here in Rust from the documented layouts (asc-devkit
//! docs, 矩阵计算（ISASI）: LoadData_2D, Mmad, Fixpipe（L0C到GM数据搬运）): A in Nz in L1, loaded into L0A
//! as Zz; B in Nz in L1, loaded into L0B as Zn with the per-fractal transpose; C in L0C as Nz, written
//! out NZ2ND (float; half with F322F16 and ReLU) and NZ; accumulation over two K chunks; the bias
//! table; GEMV (m = 1); int8 x int8 -> int32 straight from GM, and DEQF16. Then the faults: L0A
//! overflow, fm outside L0A, a Fixpipe read past L0C. And the trace the model reads.

mod common;

use common::*;
use half::f16;
use std::path::{Path, PathBuf};
use std::process::Command;

// Offsets shared with cube_kernel.cpp.
const IN_A: usize = 0;
const IN_B: usize = 5120;
const IN_A8: usize = 12800;
const IN_B8: usize = 13824;
const IN_BIAS: usize = 15872;
const IN_G: usize = 16128;
const IN_BYTES: usize = 16640;
const O_F: usize = 0;
const O_H: usize = 4800;
const O_NZ: usize = 7200;
const O_ACC: usize = 12960;
const O_I: usize = 15520;
const O_DQ: usize = 17568;
const O_BIAS: usize = 18592;
const O_G: usize = 23392;
const OUT_BYTES: usize = 23552;
const M: usize = 30;
const K: usize = 70;
const N: usize = 40;

/// Row-major `rows x cols` into fractals of `16 x c0`, the fractals in column-major order (Nz, the
/// L1 layout of the LoadData page), zero padding.
fn nz<T: Copy + Default>(mat: &[T], rows: usize, cols: usize, c0: usize) -> Vec<T> {
    let (r1, c1) = (rows.div_ceil(16), cols.div_ceil(c0));
    let mut out = vec![T::default(); r1 * c1 * 16 * c0];
    for r in 0..rows {
        for c in 0..cols {
            out[((c / c0) * r1 + r / 16) * 16 * c0 + (r % 16) * c0 + c % c0] = mat[r * cols + c];
        }
    }
    out
}

/// Fractals of `16 x c0` in row-major order, each row-major (Zz: L0A).
fn zz<T: Copy + Default>(mat: &[T], rows: usize, cols: usize, c0: usize) -> Vec<T> {
    let (r1, c1) = (rows.div_ceil(16), cols.div_ceil(c0));
    let mut out = vec![T::default(); r1 * c1 * 16 * c0];
    for r in 0..rows {
        for c in 0..cols {
            out[((r / 16) * c1 + c / c0) * 16 * c0 + (r % 16) * c0 + c % c0] = mat[r * cols + c];
        }
    }
    out
}

/// A `k x n` matrix as fractals of `c0 x 16` in row-major order, each column-major (Zn: L0B).
fn zn<T: Copy + Default>(mat: &[T], k: usize, n: usize, c0: usize) -> Vec<T> {
    let (k1, n1) = (k.div_ceil(c0), n.div_ceil(16));
    let mut out = vec![T::default(); k1 * n1 * 16 * c0];
    for r in 0..k {
        for c in 0..n {
            out[((r / c0) * n1 + c / 16) * 16 * c0 + (c % 16) * c0 + r % c0] = mat[r * n + c];
        }
    }
    out
}

/// C = init + A x B, f32 accumulation in K order.
fn matmul(a: &[f32], b: &[f32], init: &[f32], m: usize, k: usize, n: usize) -> Vec<f32> {
    let mut c = vec![0f32; m * n];
    for i in 0..m {
        for j in 0..n {
            let mut acc = init[j];
            for t in 0..k {
                acc += a[i * k + t] * b[t * n + j];
            }
            c[i * n + j] = acc;
        }
    }
    c
}

/// Distinct small values, exact in half.
fn val(i: usize, salt: usize) -> f16 {
    f16::from_f32(((i * 7919 + salt * 104729) % 61) as f32 / 16.0 - 1.875)
}

struct Data {
    a: Vec<f16>,
    b: Vec<f16>,
    g: Vec<f16>,
    bias: Vec<f32>,
    a8: Vec<i8>,
    b8: Vec<i8>,
}

fn data() -> Data {
    Data {
        a: (0..M * K).map(|i| val(i, 1)).collect(),
        b: (0..K * N).map(|i| val(i, 2)).collect(),
        g: (0..K).map(|i| val(i, 3)).collect(),
        bias: (0..64).map(|i| i as f32 * 0.75 - 20.0).collect(),
        a8: (0..16 * 64usize)
            .map(|i| ((i * 31 + 7) % 255) as u8 as i8)
            .collect(),
        b8: (0..64 * 32usize)
            .map(|i| ((i * 57 + 3) % 251) as u8 as i8)
            .collect(),
    }
}

fn input_bytes(d: &Data) -> Vec<u8> {
    let mut buf = vec![0u8; IN_BYTES];
    let put = |buf: &mut Vec<u8>, off: usize, bytes: Vec<u8>| {
        buf[off..off + bytes.len()].copy_from_slice(&bytes)
    };
    let h = |v: Vec<f16>| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    put(&mut buf, IN_A, h(nz(&d.a, M, K, 16)));
    put(&mut buf, IN_B, h(nz(&d.b, K, N, 16)));
    put(
        &mut buf,
        IN_A8,
        zz(&d.a8, 16, 64, 32).iter().map(|&x| x as u8).collect(),
    );
    put(
        &mut buf,
        IN_B8,
        zn(&d.b8, 64, 32, 32).iter().map(|&x| x as u8).collect(),
    );
    put(
        &mut buf,
        IN_BIAS,
        d.bias.iter().flat_map(|x| x.to_le_bytes()).collect(),
    );
    put(&mut buf, IN_G, h(d.g.clone()));
    buf
}

struct Run {
    status: std::process::Output,
    out: Vec<u8>,
    trace: String,
}

/// Builds the kernel once per call and runs it with tiling key `mode`.
fn build_and_run(w: &Path, mode: u32) -> Run {
    build_and_run_env(w, mode, &[])
}

/// `build_and_run` with extra environment variables for the kernel program.
fn build_and_run_env(w: &Path, mode: u32, env: &[(&str, &str)]) -> Run {
    let input = input_bytes(&data());
    kernel_run(w, "cube_kernel.cpp", &input, OUT_BYTES, mode, env)
}

/// Builds `templates/twin/tests/<kernel>` with the twin's runtime once per work folder, then runs it
/// on `input` with tiling key `mode`, one output of `out_bytes`, and the trace kept.
fn kernel_run(
    w: &Path,
    kernel: &str,
    input: &[u8],
    out_bytes: usize,
    mode: u32,
    env: &[(&str, &str)],
) -> Run {
    let twin = twin_dir();
    let exe = w.join(kernel.trim_end_matches(".cpp"));
    if !exe.exists() {
        let sources = kernel_runtime_sources(&twin);
        let out = Command::new(compiler())
            .args(["-std=c++17", "-O1", "-w", "-I"])
            .arg(twin.join("include/kernel"))
            .arg(twin.join("tests").join(kernel))
            .args(&sources)
            .arg("-o")
            .arg(&exe)
            .output()
            .expect("install g++ or set CXX");
        assert!(
            out.status.success(),
            "building {kernel}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    std::fs::write(w.join("in.bin"), input).unwrap();
    std::fs::write(w.join("tiling.bin"), b"").unwrap();
    let p = |n: &str| w.join(n).display().to_string();
    std::fs::write(
        w.join("run.txt"),
        format!(
            "block_dim 1\nub_bytes 196352\ntiling {}\ntiling_key {mode}\nworkspace 0\ninput in {} {}\n\
             output out {} {out_bytes}\ntrace {}\n",
            p("tiling.bin"),
            p("in.bin"),
            input.len(),
            p("out.bin"),
            p("trace.txt")
        ),
    )
    .unwrap();
    let _ = std::fs::remove_file(w.join("out.bin"));
    let status = Command::new(&exe)
        .arg(w.join("run.txt"))
        .envs(env.iter().copied())
        .output()
        .unwrap();
    Run {
        status,
        out: std::fs::read(w.join("out.bin")).unwrap_or_default(),
        trace: std::fs::read_to_string(w.join("trace.txt")).unwrap_or_default(),
    }
}

/// The twin's kernel runtime sources (templates/twin/src/kernel_*.cpp) in name order; without
/// kernel_main.cpp for a test program that brings its own `main`.
fn twin_kernel_sources(with_main: bool) -> Vec<PathBuf> {
    let mut sources: Vec<PathBuf> = std::fs::read_dir(twin_dir().join("src"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let n = p.file_name().unwrap().to_str().unwrap();
            n.starts_with("kernel_") && n.ends_with(".cpp") && (with_main || n != "kernel_main.cpp")
        })
        .collect();
    sources.sort();
    sources
}

fn f32s(b: &[u8], off: usize, n: usize) -> Vec<f32> {
    b[off..off + 4 * n]
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}
fn f16s(b: &[u8], off: usize, n: usize) -> Vec<f16> {
    b[off..off + 2 * n]
        .chunks_exact(2)
        .map(|c| f16::from_le_bytes([c[0], c[1]]))
        .collect()
}
fn i32s(b: &[u8], off: usize, n: usize) -> Vec<i32> {
    b[off..off + 4 * n]
        .chunks_exact(4)
        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

#[test]
fn cube_api_matches_rust_references_and_faults_name_the_buffer() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    let run = build_and_run(w, 0);
    assert!(
        run.status.status.success(),
        "cube kernel failed: {}",
        String::from_utf8_lossy(&run.status.stderr)
    );
    let d = data();
    let af: Vec<f32> = d.a.iter().map(|x| x.to_f32()).collect();
    let bf: Vec<f32> = d.b.iter().map(|x| x.to_f32()).collect();
    let c = matmul(&af, &bf, &[0.0; N], M, K, N);
    // The values are not all small integers: the check would miss nothing a layout bug changes.
    assert!(c.iter().any(|v| v.fract() != 0.0) && c.iter().any(|v| *v < 0.0));

    assert_eq!(f32s(&run.out, O_F, M * N), c, "Mmad + Fixpipe NZ2ND float");
    let relu_h: Vec<f16> = c.iter().map(|v| f16::from_f32(v.max(0.0))).collect();
    assert_eq!(
        f16s(&run.out, O_H, M * N),
        relu_h,
        "Fixpipe F322F16 with ReLU"
    );
    // NZ output: column block j at j * (30 rows * 16 floats); rows of 16 floats.
    let nz_out = f32s(&run.out, O_NZ, 3 * 480);
    for m in 0..M {
        for n in 0..N {
            assert_eq!(
                nz_out[(n / 16) * 480 + m * 16 + n % 16],
                c[m * N + n],
                "NZ output ({m}, {n})"
            );
        }
    }
    assert_eq!(
        f32s(&run.out, O_ACC, 16 * N),
        c[..16 * N].to_vec(),
        "two Mmads accumulating over K (cmatrixInitVal false) equal one"
    );
    assert_eq!(
        f32s(&run.out, O_BIAS, M * N),
        matmul(&af, &bf, &d.bias[..N], M, K, N),
        "Mmad with the bias table"
    );
    let gf: Vec<f32> = d.g.iter().map(|x| x.to_f32()).collect();
    assert_eq!(
        f32s(&run.out, O_G, N),
        matmul(&gf, &bf, &[0.0; N], 1, K, N),
        "GEMV (m = 1 reads A as ND)"
    );
    let a8: Vec<i64> = d.a8.iter().map(|&x| x as i64).collect();
    let b8: Vec<i64> = d.b8.iter().map(|&x| x as i64).collect();
    let ci: Vec<i32> = (0..16 * 32)
        .map(|e| {
            let (i, j) = (e / 32, e % 32);
            (0..64)
                .map(|t| a8[i * 64 + t] * b8[t * 32 + j])
                .sum::<i64>() as i32
        })
        .collect();
    assert!(ci.iter().any(|v| *v < 0) && ci.iter().any(|v| *v > 0));
    assert_eq!(i32s(&run.out, O_I, 512), ci, "int8 Mmad into int32");
    let dq: Vec<f16> = ci
        .iter()
        .map(|&v| f16::from_f32(v as f32 * 0.0625))
        .collect();
    assert_eq!(f16s(&run.out, O_DQ, 512), dq, "Fixpipe DEQF16");

    // The trace: what the model costs.
    for rec in [
        "I MTE1 LoadData bytes=2560 dst=1 ", // one row of A's fractals into L0A
        "I MTE1 LoadData bytes=1536 dst=2 ", // one row of B's fractals into L0B
        "I M Mmad m=30 k=70 n=40 dt=2 ",     // the half Mmad
        "I M Mmad m=16 k=64 n=32 dt=1 ",     // the int8 one
        "I FIX Fixpipe bytes=4800 bursts=30 ", // NZ2ND float: a burst a row
        "I MTE2 LoadData bytes=1024 bursts=2 ", // GM -> L0A
    ] {
        assert!(
            run.trace.contains(rec),
            "trace lacks `{rec}`:\n{}",
            run.trace
        );
    }
    let t = ascend_tune::model::trace::parse(&run.trace).expect("the model reads the cube trace");
    assert_eq!(t.blocks.len(), 1);

    // Faults: each names the buffer or position and the kernel line.
    for (mode, want) in [
        (
            1,
            "InitBuffer: L0A overflow: need 81920 bytes, 0 of its 65536 bytes in use",
        ),
        (
            2,
            "Mmad: fm must be in L0A (TPosition A2), not L0B (TPosition B2)",
        ),
        (3, "Fixpipe: L0C access out of bounds"),
    ] {
        let r = build_and_run(w, mode);
        let err = String::from_utf8_lossy(&r.status.stderr);
        assert_eq!(r.status.status.code(), Some(3), "mode {mode}: {err}");
        assert!(err.contains(want), "mode {mode}: `{want}` not in {err}");
        assert!(
            err.contains("cube_kernel.cpp:"),
            "mode {mode}: no kernel line in {err}"
        );
    }
}

const MM: usize = 96;
const NN: usize = 80;
const KK: usize = 200;

/// Builds templates/twin/tests/matmul_{host,kernel}.cpp in `w`, writes the inputs and runs the kernel
/// (two blocks) with extra environment variables; returns the run and the inputs A (M x K), B (K x N) and
/// the bias.
#[allow(clippy::type_complexity)]
/// How `matmul_kernel.cpp` is built and launched: a pure Cube kernel on 2 blocks; CANN's default for a
/// Matmul kernel that names no type (MIX, one AIC to two AIVs) on 1 block, whose AIVs are blocks 0 and 1;
/// or a mixed 1:2 kernel on 2 blocks with ASCENDC_CUBE_ONLY, whose AICs compute past REGIST_MATMUL_OBJ.
#[derive(Clone, Copy, Debug, PartialEq)]
enum MmMode {
    CubeOnly,
    MixDefault,
    MixManual,
    /// MixDefault with the first Matmul's A IBSHARE, each AIV setting its own rows.
    IbShareA,
    /// MixDefault with the first Matmul's A and B IBSHARE, both AIVs setting the same A and C rows.
    IbShareAB,
    /// IbShareA on CFG_NORM: the flag alone, off the IBShare template.
    IbShareANorm,
    /// MixDefault with the first Matmul on TrianUpperMatmulPolicy.
    TrianUpper,
    /// MixDefault with the first Matmul's A chunks loaded by a CopyA1 callback from `at` read as M x K.
    CallbackA,
}

fn matmul_build_and_run(
    w: &Path,
    env: &[(&str, &str)],
    mode: MmMode,
) -> (std::process::Output, Vec<f16>, Vec<f16>, Vec<f32>) {
    let twin = twin_dir();
    let host = w.join("host");
    let out = Command::new(compiler())
        .args(["-std=c++17", "-w", "-I"])
        .arg(twin.join("include/host"))
        .arg(twin.join("tests/matmul_host.cpp"))
        .arg("-o")
        .arg(&host)
        .output()
        .expect("install g++ or set CXX");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = Command::new(&host).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let mut lines = text.lines();
    let hex = lines.next().unwrap();
    assert_eq!(
        lines.next().unwrap(),
        "usedCoreNum=2 singleCoreM=48 singleCoreN=80 singleCoreK=200 baseM=32 baseN=32 baseK=64 stepKa=4 depthA1=8 isBias=1",
        "the twin's tiling rule (matmul_tiling.h): M split over the 2 cores, SetFixSplit's blocks, 4 K blocks a step"
    );
    assert_eq!(
        lines.next().unwrap(),
        "empty=-1",
        "GetTiling refuses an unset shape"
    );
    assert_eq!(
        lines.next().unwrap(),
        "tie singleCoreM=32 singleCoreN=256 baseM=32 baseN=256 baseK=64 stepKa=6 stepKb=6",
        "a tie between splitting M and N splits the shorter, and K's six base blocks, which fit L1 at once, are one \
         chunk, as the IBShare guide's tiling does (Matmul高阶API使能IBShare模板共享B矩阵数据.md)"
    );
    assert_eq!(
        lines.next().unwrap(),
        "mdl singleCoreN=1280 baseM=128 baseN=256 baseK=64 stepKa=4 stepKb=4 depthA1=8 depthB1=8",
        "K's 16 base blocks do not fit L1 at once: 4 a chunk, two chunks deep, as the MDL guide's tiling \
         (Matmul高阶API使能MDL模板.md)"
    );
    assert_eq!(
        lines.next().unwrap(),
        "nbuffer33 k192 stepKa=3 k384 stepKa=-1",
        "NBuffer33's tiling takes K whole in at most 3 base K blocks (MatmulPolicy.md's constraints)"
    );
    assert_eq!(
        lines.next().unwrap(),
        "split 64x256/40 32x256/16 128x336/24",
        "a split giving every core the same share where one uses half the cores or more for at most 1.5 \
         times the least work; else the least work (1000 x 1000, which no 16-aligned share divides: \
         8 x 3 shares of 128 x 336, short ones at the ends)"
    );
    assert_eq!(
        lines.next().unwrap(),
        "layout A 2 32 1 3 64 B 256 64 C 2 32 1 3 256 batch 3",
        "SetALayout / SetBLayout / SetCLayout / SetBatchNum fill the tiling's layout fields as given"
    );
    assert_eq!(
        lines.next().unwrap(),
        "normal A 4 32 64 B 2 48 64 C 4 32 48 batch 4",
        "SetBatchInfoForNormal: A batchA of m x k, B batchB of n (k x n), C the larger batch of m x n"
    );
    let tiling: Vec<u8> = (0..hex.len() / 2)
        .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap())
        .collect();

    let sources = twin_kernel_sources(true);
    let exe = w.join("kernel");
    let out = Command::new(compiler())
        .args(["-std=c++17", "-O1", "-w"])
        .args(match mode {
            MmMode::CubeOnly => Some("-DMM_CUBE_ONLY"),
            MmMode::MixManual => Some("-DMM_MIX_MANUAL"),
            MmMode::IbShareA => Some("-DMM_IBSHARE_A"),
            MmMode::IbShareAB => Some("-DMM_IBSHARE_AB"),
            MmMode::IbShareANorm => Some("-DMM_IBSHARE_A_NORM"),
            MmMode::TrianUpper => Some("-DMM_TRIAN_UPPER"),
            MmMode::CallbackA => Some("-DMM_CALLBACK_A"),
            MmMode::MixDefault => None,
        })
        .arg("-I")
        .arg(twin.join("include/kernel"))
        .arg(twin.join("tests/matmul_kernel.cpp"))
        .args(&sources)
        .arg("-o")
        .arg(&exe)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let a: Vec<f16> = (0..MM * KK).map(|i| val(i, 5)).collect();
    let b: Vec<f16> = (0..KK * NN).map(|i| val(i, 6)).collect(); // K x N
    let bias: Vec<f32> = (0..NN).map(|i| i as f32 * 0.5 - 7.25).collect();
    let at: Vec<f16> = (0..KK * MM).map(|i| a[(i % MM) * KK + i / MM]).collect(); // K x M
    let bt: Vec<f16> = (0..NN * KK).map(|i| b[(i % KK) * NN + i / KK]).collect(); // N x K
    let h = |v: &[f16]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    std::fs::write(w.join("a.bin"), h(&a)).unwrap();
    std::fs::write(w.join("at.bin"), h(&at)).unwrap();
    std::fs::write(w.join("bt.bin"), h(&bt)).unwrap();
    let bias_bytes: Vec<u8> = bias.iter().flat_map(|x| x.to_le_bytes()).collect();
    std::fs::write(w.join("bias.bin"), &bias_bytes).unwrap();
    std::fs::write(w.join("tiling.bin"), &tiling).unwrap();
    let p = |n: &str| w.join(n).display().to_string();
    std::fs::write(
        w.join("run.txt"),
        format!(
            "block_dim {}\nub_bytes 196352\ntiling {}\nworkspace 0\ninput a {} {}\ninput at {} {}\ninput bt {} {}\n\
             input bias {} {}\noutput c {} {}\noutput c16 {} {}\ntrace {}\n",
            if matches!(mode, MmMode::CubeOnly | MmMode::MixManual) { 2 } else { 1 },
            p("tiling.bin"),
            p("a.bin"),
            MM * KK * 2,
            p("at.bin"),
            MM * KK * 2,
            p("bt.bin"),
            NN * KK * 2,
            p("bias.bin"),
            NN * 4,
            p("c.bin"),
            MM * NN * 4,
            p("c16.bin"),
            MM * NN * 2,
            p("trace.txt"),
        ),
    )
    .unwrap();
    let run = Command::new(&exe)
        .arg(w.join("run.txt"))
        .envs(env.iter().copied())
        .output()
        .unwrap();
    (run, a, b, bias)
}

/// The high-level Matmul and the host's matmul tiling: `matmul_host.cpp` tiles 96 x 80 x 200 half with a
/// float bias on 2 cores (32 x 32 x 64 base blocks, so blocks and K chunks have tails), and
/// `matmul_kernel.cpp` runs it: C = A x B + bias with B given transposed, through IterateAll; half(A x B)
/// with A given transposed, through Iterate / GetTensorC under CFG_MDL. Both against Rust.
#[test]
fn matmul_api_and_tiling_match_rust_references() {
    for mode in [MmMode::CubeOnly, MmMode::MixDefault, MmMode::MixManual] {
        matmul_matches_in(mode);
    }
}

fn matmul_matches_in(mode: MmMode) {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    let (run, a, b, bias) = matmul_build_and_run(w, &[], mode);
    assert!(
        run.status.success(),
        "matmul kernel: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    let af: Vec<f32> = a.iter().map(|x| x.to_f32()).collect();
    let bf: Vec<f32> = b.iter().map(|x| x.to_f32()).collect();
    let want = matmul(&af, &bf, &bias, MM, KK, NN);
    let c = std::fs::read(w.join("c.bin")).unwrap();
    assert_eq!(f32s(&c, 0, MM * NN), want, "IterateAll: A x B^T^T + bias");
    let plain = matmul(&af, &bf, &[0.0; NN], MM, KK, NN);
    let c16 = std::fs::read(w.join("c16.bin")).unwrap();
    let want16: Vec<f16> = plain.iter().map(|&v| f16::from_f32(v)).collect();
    assert_eq!(
        f16s(&c16, 0, MM * NN),
        want16,
        "Iterate / GetTensorC: half(A^T^T x B)"
    );
    // The trace: per core and Matmul, base blocks of 32 and 16 rows by 32, 32 and 16 columns, each three
    // K blocks of 64 and a tail of 8: two full 32 x 32 blocks, one 32 x 16.
    let trace = std::fs::read_to_string(w.join("trace.txt")).unwrap();
    let t = ascend_tune::model::trace::parse(&trace).expect("the model reads the Matmul trace");
    match mode {
        MmMode::CubeOnly => assert_eq!(t.blocks.len(), 2),
        // One AIC, which ends at REGIST_MATMUL_OBJ, and its two AIVs, each with its own block index.
        MmMode::MixDefault => {
            assert_eq!(t.blocks.len(), 3);
            for header in ["block 0 1 aic\n", "block 0 1 aiv0\n", "block 0 1 aiv1\n"] {
                assert!(trace.contains(header), "{header:?}");
            }
        }
        // Two AICs that compute and four AIVs that return at once.
        MmMode::IbShareA | MmMode::IbShareAB | MmMode::IbShareANorm => {
            unreachable!("an_ibshare_matmul_... runs these")
        }
        MmMode::TrianUpper | MmMode::CallbackA => {
            unreachable!("a_matmuls_policy_and_callback_... runs these")
        }
        MmMode::MixManual => {
            assert_eq!(t.blocks.len(), 6);
            assert!(trace.contains("block 1 2 aic\n") && trace.contains("block 1 2 aiv1\n"));
        }
    }
    assert_eq!(
        trace.matches("I M Mmad m=32 k=64 n=32 dt=2 ").count(),
        2 * 2 * 2 * 3
    );
    assert_eq!(trace.matches("I M Mmad m=32 k=8 n=16 dt=2 ").count(), 2 * 2);
    assert_eq!(trace.matches("I M Mmad m=16 k=8 n=16 dt=2 ").count(), 2 * 2);
    // UnitFlag (MatmulConfig.md: on by default for Norm, off for MDL): the Norm Matmul's block ends with
    // an Mmad and a Fixpipe both `uf=3` and sets no M -> FIX flag; the MDL one's Fixpipes carry no `uf`
    // and each waits for an M -> FIX flag.
    let lines: Vec<&str> = trace.lines().collect();
    let fix_uf = lines
        .iter()
        .filter(|l| l.starts_with("I FIX Fixpipe ") && l.contains(" uf=3 "))
        .count();
    let fix_plain = lines
        .iter()
        .filter(|l| l.starts_with("I FIX Fixpipe ") && !l.contains(" uf="))
        .count();
    assert!(fix_uf > 0 && fix_plain > 0, "{fix_uf} {fix_plain}");
    let mmad_last = lines
        .iter()
        .filter(|l| l.starts_with("I M Mmad ") && l.contains(" uf=3 "))
        .count();
    assert_eq!(mmad_last, fix_uf);
    assert_eq!(trace.matches("set M FIX e6\n").count(), fix_plain);
    // K full load under MDL (singleCoreK 200 <= baseK 64 x stepKa 4): each core's six base blocks (M
    // first: m0 n0, m1 n0, m0 n1, ...) load A's two row chunks and B's three column chunks once each and
    // use them again from L1 while a buffer holds them; the Norm Matmul loads both for every block,
    // and its bias row too: per core 6 x 3 + 2 + 3 GM -> L1 copies.
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.starts_with("I MTE2 DataCopy "))
            .count(),
        2 * (6 * 3 + 2 + 3)
    );
    // A runtime tiling's scalar work: one Init per Matmul and core, one per Iterate (base block).
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.starts_with("I S MatmulTilingInit "))
            .count(),
        2 * 2
    );
    assert!(trace.contains("I S MatmulTilingIter "));
}

/// `matmul_build_and_run` in `mode` in a fresh folder, which must succeed: the folder, A, B and the bias
/// as f32.
fn matmul_runs(mode: MmMode) -> (tempfile::TempDir, Vec<f32>, Vec<f32>, Vec<f32>) {
    let dir = tempfile::tempdir().unwrap();
    let (run, a, b, bias) = matmul_build_and_run(dir.path(), &[], mode);
    assert!(
        run.status.success(),
        "{mode:?}: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    let f = |v: &[f16]| v.iter().map(|x| x.to_f32()).collect::<Vec<f32>>();
    (dir, f(&a), f(&b), bias)
}

/// The Matmul's policy and callback template parameters (Matmul-Kernel侧接口/MatmulPolicy.md,
/// MatmulCallBackFunc.md). TrianUpperMatmulPolicy: each core's base blocks below its grid's diagonal are
/// neither computed nor written (here each core's 48 x 80 is 2 x 3 blocks of 32, with tails: block (1, 0),
/// C's rows 32..48 of the core by columns 0..32, keeps the zeros it had). A CopyA1 callback: every A chunk
/// comes from what it loads, here `at`'s bytes read as another M x K matrix, at the chunk's row (in baseM)
/// and column (in stepKa x baseK) and of its useM x useK, so C is that matrix times B.
#[test]
fn a_matmuls_policy_and_callback_change_what_it_computes_as_documented() {
    let (dir, af, bf, bias) = matmul_runs(MmMode::TrianUpper);
    let mut want = matmul(&af, &bf, &bias, MM, KK, NN);
    for core in 0..2 {
        for r in core * 48 + 32..core * 48 + 48 {
            for c in 0..32 {
                want[r * NN + c] = 0.0;
            }
        }
    }
    let c = std::fs::read(dir.path().join("c.bin")).unwrap();
    assert_eq!(f32s(&c, 0, MM * NN), want, "TrianUpperMatmulPolicy");

    let (dir, af, bf, bias) = matmul_runs(MmMode::CallbackA);
    // `at` holds A transposed (K x M); read row-major as M x K it is another matrix.
    let at: Vec<f32> = (0..KK * MM).map(|i| af[(i % MM) * KK + i / MM]).collect();
    let want = matmul(&at, &bf, &bias, MM, KK, NN);
    let c = std::fs::read(dir.path().join("c.bin")).unwrap();
    assert_eq!(f32s(&c, 0, MM * NN), want, "CopyA1 callback");
}

/// IBShare (lib/matmul_intf.h; asc-devkit guide 优秀实践/Matmul性能调优案例/Matmul高阶API使能IBShare模板共享A和B
/// 矩阵数据.md): with A and B both shared, the group's two AIVs asking for the same IterateAll get it
/// computed once (the second AIV's Mmads of it leave the trace; its result is the same); a shared A that
/// the AIVs set at different rows breaks the guide's precondition and is a fault naming the matrix.
#[test]
fn an_ibshare_matmul_is_computed_once_per_group_and_its_shared_matrix_must_be_one() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    let (run, a, b, bias) = matmul_build_and_run(w, &[], MmMode::IbShareAB);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let af: Vec<f32> = a.iter().map(|x| x.to_f32()).collect();
    let bf: Vec<f32> = b.iter().map(|x| x.to_f32()).collect();
    let want = matmul(&af, &bf, &bias, MM, KK, NN);
    let rows = 48; // singleCoreM of the tiling matmul_build_and_run checks
    let c = std::fs::read(w.join("c.bin")).unwrap();
    assert_eq!(f32s(&c, 0, rows * NN), want[..rows * NN].to_vec());
    let trace = std::fs::read_to_string(w.join("trace.txt")).unwrap();
    // Of the 2 x 2 x 2 x 3 full Mmads of the plain MIX run (two AIVs, two Matmuls, two full base blocks,
    // three full K blocks), the second AIV's IterateAll leaves its 2 x 3.
    assert_eq!(
        trace.matches("I M Mmad m=32 k=64 n=32 dt=2 ").count(),
        2 * 2 * 2 * 3 - 2 * 3
    );
    ascend_tune::model::trace::parse(&trace).expect("the model reads the cut trace");

    let dir = tempfile::tempdir().unwrap();
    let (run, ..) = matmul_build_and_run(dir.path(), &[], MmMode::IbShareA);
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(!run.status.success());
    assert!(
        err.contains("A is an IBShare matrix")
            && err.contains("AIV 1 of logical block 0")
            && err.contains("IBSHARE false"),
        "{err}"
    );
    // The same flag with the Matmul on CFG_NORM shares nothing (one matrix alone is shared on the
    // IBShare template only, as the B guide configures it): no claim, so no fault, and each AIV's
    // result is its own.
    let (dir, af, bf, bias) = matmul_runs(MmMode::IbShareANorm);
    let want = matmul(&af, &bf, &bias, MM, KK, NN);
    let c = std::fs::read(dir.path().join("c.bin")).unwrap();
    assert_eq!(f32s(&c, 0, rows * NN), want[..rows * NN].to_vec());
    let trace = std::fs::read_to_string(dir.path().join("trace.txt")).unwrap();
    assert_eq!(
        trace.matches("I M Mmad m=32 k=64 n=32 dt=2 ").count(),
        2 * 2 * 2 * 3,
        "nothing of either AIV's IterateAll is left out"
    );
}

/// IBShare's claims (templates/twin/tests/ibshare_claims.cpp, three launches through run_blocks): in a
/// launch the second AIV to set the shared matrix follows the first; a new launch forgets the claims, so
/// a program that launches the kernel again with another B does not fault; AIVs of one launch that set
/// different A do.
#[test]
fn ibshare_claims_are_per_launch() {
    let dir = tempfile::tempdir().unwrap();
    let twin = twin_dir();
    let sources = twin_kernel_sources(false);
    let exe = dir.path().join("claims");
    let out = Command::new(compiler())
        .args(["-std=c++17", "-O0", "-w", "-I"])
        .arg(twin.join("include/kernel"))
        .arg(twin.join("tests/ibshare_claims.cpp"))
        .args(&sources)
        .arg("-o")
        .arg(&exe)
        .arg("-lpthread")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = Command::new(&exe).output().unwrap();
    let text = String::from_utf8_lossy(&run.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[..2],
        [
            "launch 0: rc 0, AIV 0 follows 0, AIV 1 follows 1",
            "launch 1: rc 0, AIV 0 follows 0, AIV 1 follows 1"
        ],
        "{text}"
    );
    assert!(
        lines[2].starts_with("launch 2: rc 3: error: Matmul: A is an IBShare matrix")
            && lines[2].contains("AIV 1 of logical block 0")
            && lines[2].contains("than AIV 0"),
        "{text}"
    );
}

/// Mixed kernels (templates/twin/tests/mix_kernel.cpp, two logical blocks): what each core sees
/// (GetBlockIdx / GetBlockNum / GetSubBlockIdx / GetSubBlockNum / ASCEND_IS_AIC / ASCEND_IS_AIV, as the
/// asc-devkit pages GetBlockIdx.md and GetSubBlockNum(ISASI).md give them for 1:2 and 1:1), values handed
/// over through GM with cross-core flags (mode 2 both ways, mode 1 between the AIVs), SyncAll<false>
/// across AIC and AIVs, and the faults: a wait nothing can satisfy, a mixed type declared too late.
#[test]
fn mixed_kernels_give_each_core_its_index_and_pass_values_through_cross_core_flags() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    let twin = twin_dir();
    let sources = twin_kernel_sources(true);
    let exe = w.join("kernel");
    let out = Command::new(compiler())
        .args(["-std=c++17", "-O1", "-w", "-I"])
        .arg(twin.join("include/kernel"))
        .arg(twin.join("tests/mix_kernel.cpp"))
        .args(&sources)
        .args(["-lpthread", "-o"])
        .arg(&exe)
        .output()
        .expect("install g++ or set CXX");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = |mode: u32| {
        let o = w.join(format!("out{mode}.bin"));
        let t = w.join(format!("trace{mode}.txt"));
        std::fs::write(
            w.join("run.txt"),
            format!(
                "block_dim 2\nub_bytes 196352\ntiling_key {mode}\nworkspace 0\noutput out {} 768\ntrace {}\n",
                o.display(),
                t.display()
            ),
        )
        .unwrap();
        let status = Command::new(&exe).arg(w.join("run.txt")).output().unwrap();
        let bytes = std::fs::read(&o).unwrap_or_default();
        let v: Vec<i32> = bytes
            .chunks_exact(4)
            .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        (status, v, std::fs::read_to_string(&t).unwrap_or_default())
    };
    let slot = |v: &[i32], c: usize| v[c * 8..c * 8 + 8].to_vec();

    // 1:2, mode-2 handshake: the AIC writes 100 (b + 1), each AIV adds 1 + its sub index, the AIC sums.
    let (st, v, trace) = run(0);
    assert!(
        st.status.success(),
        "{}",
        String::from_utf8_lossy(&st.stderr)
    );
    for b in 0..2i32 {
        let aic = (b * 3) as usize;
        let base = 100 * (b + 1);
        assert_eq!(
            slot(&v, aic),
            vec![b, 2, 0, 1, 1, 0, base, 2 * base + 3],
            "AIC of block {b}"
        );
        for s in 0..2i32 {
            assert_eq!(
                slot(&v, aic + 1 + s as usize),
                vec![2 * b + s, 2, s, 2, 0, 1, base + 1 + s, 0],
                "AIV {s} of block {b}"
            );
        }
    }
    assert!(trace.starts_with("twin-trace 6\n"), "{trace}");
    assert!(trace.contains("block 1 2 aiv1\n") && trace.contains("xset FIX x"));
    let parsed = ascend_tune::model::trace::parse(&trace).unwrap();
    assert_eq!(parsed.blocks.len(), 6, "one trace block per core");

    // 1:1: one AIV per block, GetBlockIdx in [0, numBlocks) on both kinds.
    let (st, v, _) = run(1);
    assert!(
        st.status.success(),
        "{}",
        String::from_utf8_lossy(&st.stderr)
    );
    assert_eq!(slot(&v, 0), vec![0, 2, 0, 1, 1, 0, 100, 101]);
    assert_eq!(slot(&v, 1), vec![0, 2, 0, 1, 0, 1, 101, 0]);
    assert_eq!(slot(&v, 3), vec![1, 2, 0, 1, 0, 1, 201, 0]);

    // A wait no core will satisfy: a fault at the wait's line, not a hang.
    let (st, _, _) = run(2);
    let err = String::from_utf8_lossy(&st.stderr);
    assert_eq!(st.status.code(), Some(3), "{err}");
    assert!(
        err.contains("CrossCoreWaitFlag")
            && err.contains("flag 5")
            && err.contains("mix_kernel.cpp:59 (block 0, AIV 0)"),
        "{err}"
    );

    // Mode 1: the two AIVs of a block swap their values.
    let (st, v, _) = run(3);
    assert!(
        st.status.success(),
        "{}",
        String::from_utf8_lossy(&st.stderr)
    );
    for b in 0..2usize {
        assert_eq!(slot(&v, b * 3 + 1)[6..], [10, 11]);
        assert_eq!(slot(&v, b * 3 + 2)[6..], [11, 10]);
    }

    // SyncAll<false>: every core sees every core's value (1 + 2 + ... + 6).
    let (st, v, _) = run(4);
    assert!(
        st.status.success(),
        "{}",
        String::from_utf8_lossy(&st.stderr)
    );
    for c in 0..6 {
        assert_eq!(slot(&v, c)[6..], [c as i32 + 1, 21], "core {c}");
    }

    // The mixed type after ASCEND_IS_AIV: named at the declaration.
    let (st, _, _) = run(5);
    let err = String::from_utf8_lossy(&st.stderr);
    assert_eq!(st.status.code(), Some(3), "{err}");
    assert!(
        err.contains("KERNEL_TASK_TYPE_DEFAULT") && err.contains("mix_kernel.cpp:28"),
        "{err}"
    );
    // KERNEL_TYPE_AIC_ONLY: two blocks, each a cube core (ASCEND_IS_AIC), no AIVs.
    let (st, v, trace) = run(6);
    assert!(
        st.status.success(),
        "{}",
        String::from_utf8_lossy(&st.stderr)
    );
    assert_eq!(slot(&v, 0), vec![0, 0, 0, 1, 1, 0, 0, 0]);
    assert_eq!(slot(&v, 1), vec![1, 0, 0, 1, 1, 0, 0, 0]);
    assert_eq!(trace.matches("block ").count(), 2, "{trace}");
}

/// `__mix__(1, 2)` alone makes a kernel mixed (templates/twin/tests/mix_qualifier_kernel.cpp): two logical
/// blocks run as two AICs and four AIVs, GetBlockIdx 0..2 on the AICs and 0..4 on the AIVs.
#[test]
fn the_mix_qualifier_alone_makes_a_kernel_mixed() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    let twin = twin_dir();
    let sources = twin_kernel_sources(true);
    let exe = w.join("kernel");
    let out = Command::new(compiler())
        .args(["-std=c++17", "-O1", "-w", "-I"])
        .arg(twin.join("include/kernel"))
        .arg(twin.join("tests/mix_qualifier_kernel.cpp"))
        .args(&sources)
        .args(["-lpthread", "-o"])
        .arg(&exe)
        .output()
        .expect("install g++ or set CXX");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let o = w.join("out.bin");
    std::fs::write(
        w.join("run.txt"),
        format!(
            "block_dim 2\nub_bytes 196352\nworkspace 0\noutput out {} 256\n",
            o.display()
        ),
    )
    .unwrap();
    let st = Command::new(&exe).arg(w.join("run.txt")).output().unwrap();
    assert!(
        st.status.success(),
        "{}",
        String::from_utf8_lossy(&st.stderr)
    );
    let v: Vec<i32> = std::fs::read(&o)
        .unwrap()
        .chunks_exact(4)
        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    // (GetBlockIdx, ASCEND_IS_AIV) per core: AIC 0, AIV 0, AIV 1, AIC 1, AIV 2, AIV 3
    assert_eq!(v[..12], [0, 0, 0, 1, 1, 1, 1, 0, 2, 1, 3, 1]);
}

/// Timing-only mode (ASCEND_TWIN_TIMING_ONLY=1, twin/runtime.h; benches/hardware sets it for the 8192^3
/// matmul examples): the cube paths write the same trace as a full run, so the model gives the same
/// latency, but compute nothing. On the basic cube API (cube_kernel.cpp: LoadData, Mmad with and without
/// the bias table, Fixpipe NZ2ND / NZ / to L1, GM -> L0 loads) and on the high-level Matmul (IterateAll,
/// Iterate / GetTensorC, CFG_MDL) on 2 blocks.
#[test]
fn timing_only_mode_traces_and_models_the_same_and_computes_nothing() {
    use ascend_tune::model::pipeline::{SimOptions, simulate};
    let soc = ascend_tune::model::soc::lookup("Ascend910B1").unwrap();
    let latency = |trace: &str| {
        let t = ascend_tune::model::trace::parse(trace).expect("the model reads the trace");
        simulate(&t, soc, &SimOptions::default()).latency_us
    };

    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    let full = build_and_run(w, 0);
    let timing = build_and_run_env(w, 0, &[("ASCEND_TWIN_TIMING_ONLY", "1")]);
    assert!(full.status.status.success() && timing.status.status.success());
    assert!(full.trace.contains("I M Mmad") && full.trace.contains("I MTE1 LoadData"));
    assert_eq!(timing.trace, full.trace, "cube API: the same trace");
    assert_eq!(latency(&timing.trace), latency(&full.trace));
    assert_ne!(timing.out, full.out, "timing-only computes nothing");
    assert!(
        String::from_utf8_lossy(&timing.status.stderr).contains("timing-only mode"),
        "the run says it is timing-only"
    );

    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    let (run, ..) = matmul_build_and_run(w, &[], MmMode::CubeOnly);
    assert!(run.status.success());
    let trace = std::fs::read_to_string(w.join("trace.txt")).unwrap();
    let c = std::fs::read(w.join("c.bin")).unwrap();
    let (run, ..) = matmul_build_and_run(w, &[("ASCEND_TWIN_TIMING_ONLY", "1")], MmMode::CubeOnly);
    assert!(run.status.success());
    let trace_t = std::fs::read_to_string(w.join("trace.txt")).unwrap();
    assert!(trace.matches("I M Mmad").count() > 20);
    assert_eq!(trace_t, trace, "Matmul: the same trace");
    let (l, lt) = (latency(&trace), latency(&trace_t));
    assert!(l > 0.0 && l == lt, "the same modelled latency: {l} vs {lt}");
    assert_ne!(
        std::fs::read(w.join("c.bin")).unwrap(),
        c,
        "timing-only computes nothing"
    );
}

// ---- cube2_kernel.cpp: LoadDataWithTranspose, LoadData 3D v2, Fill, DataCopy L0C -> GM ----
// Offsets shared with cube2_kernel.cpp.
const C2_IN_T16: usize = 0;
const C2_IN_T8: usize = 4096;
const C2_IN_T32: usize = 8192;
const C2_IN_X32: usize = 10240;
const C2_IN_X16: usize = 13312;
const C2_IN_A: usize = 15360;
const C2_IN_B: usize = 17408;
const C2_IN_A8: usize = 20480;
const C2_IN_B8: usize = 20992;
const C2_IN_BYTES: usize = 22016;
const C2_O_T16: usize = 0;
const C2_O_T8: usize = 3072;
const C2_O_T32: usize = 6144;
const C2_O_FILL: usize = 7680;
const C2_O_X32: usize = 8000;
const C2_O_X16: usize = 9024;
const C2_O_MM: usize = 9536;
const C2_O_NZ: usize = 12608;
const C2_O_DQ: usize = 18752;
const C2_O_X16P: usize = 19776;
const C2_OUT_BYTES: usize = 20288;

/// A deterministic byte pattern with no short period.
fn pattern(n: usize, salt: u32) -> Vec<u8> {
    let mut x = 0x9E37_79B9u32 ^ salt;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            (x >> 11) as u8
        })
        .collect()
}

struct Cube2Data {
    t16: Vec<u8>,
    t8: Vec<u8>,
    t32: Vec<u8>,
    x32: Vec<f32>, // 32 x 24, row-major
    x16: Vec<f16>, // 32 x 32, row-major
    a: Vec<f16>,   // 32 x 32
    b: Vec<f16>,   // 32 x 48
    a8: Vec<i8>,   // 16 x 32
    b8: Vec<i8>,   // 32 x 32
}

fn cube2_data() -> Cube2Data {
    Cube2Data {
        t16: pattern(4096, 1),
        t8: pattern(4096, 2),
        t32: pattern(2048, 3),
        x32: (0..32 * 24).map(|i| i as f32 * 0.5 - 100.0).collect(),
        x16: (0..32 * 32).map(|i| val(i, 4)).collect(),
        a: (0..32 * 32).map(|i| val(i, 5)).collect(),
        b: (0..32 * 48).map(|i| val(i, 6)).collect(),
        a8: (0..16 * 32usize)
            .map(|i| ((i * 37 + 11) % 253) as u8 as i8)
            .collect(),
        b8: (0..32 * 32usize)
            .map(|i| ((i * 53 + 5) % 249) as u8 as i8)
            .collect(),
    }
}

fn cube2_input(d: &Cube2Data) -> Vec<u8> {
    let mut buf = vec![0u8; C2_IN_BYTES];
    let mut put = |off: usize, bytes: Vec<u8>| buf[off..off + bytes.len()].copy_from_slice(&bytes);
    let h = |v: Vec<f16>| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    put(C2_IN_T16, d.t16.clone());
    put(C2_IN_T8, d.t8.clone());
    put(C2_IN_T32, d.t32.clone());
    put(
        C2_IN_X32,
        nz(&d.x32, 32, 24, 8)
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect(),
    );
    put(C2_IN_X16, h(nz(&d.x16, 32, 32, 16)));
    put(C2_IN_A, h(nz(&d.a, 32, 32, 16)));
    put(C2_IN_B, h(nz(&d.b, 32, 48, 16)));
    put(
        C2_IN_A8,
        nz(&d.a8, 16, 32, 32).iter().map(|&x| x as u8).collect(),
    );
    put(
        C2_IN_B8,
        nz(&d.b8, 32, 32, 32).iter().map(|&x| x as u8).collect(),
    );
    buf
}

fn cube2_run(w: &Path, mode: u32) -> Run {
    let input = cube2_input(&cube2_data());
    assert_eq!(input.len(), C2_IN_BYTES);
    kernel_run(w, "cube2_kernel.cpp", &input, C2_OUT_BYTES, mode, &[])
}

/// `n x n` elements of `e` bytes, row-major, transposed.
fn transpose_bytes(src: &[u8], n: usize, e: usize) -> Vec<u8> {
    let mut out = vec![0u8; src.len()];
    for i in 0..n {
        for j in 0..n {
            out[(j * n + i) * e..(j * n + i + 1) * e]
                .copy_from_slice(&src[(i * n + j) * e..(i * n + j + 1) * e]);
        }
    }
    out
}

#[test]
fn transpose_loads_load3d_fill_and_l0c_datacopy_match_rust_references() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    let run = cube2_run(w, 0);
    assert!(
        run.status.status.success(),
        "cube2 kernel failed: {}",
        String::from_utf8_lossy(&run.status.stderr)
    );
    let d = cube2_data();
    let out = &run.out;

    // b16: square s is fractal s (16 x 16 of 2 bytes); repeat r reads square 1 + 2r, writes fractal 2r.
    let mut want = 0xABCDu16.to_le_bytes().repeat(1536);
    for r in 0..3 {
        let s = 1 + 2 * r;
        let t = transpose_bytes(&d.t16[s * 512..(s + 1) * 512], 16, 2);
        want[2 * r * 512..(2 * r + 1) * 512].copy_from_slice(&t);
    }
    assert_eq!(
        &out[C2_O_T16..C2_O_T16 + 3072],
        &want[..],
        "LoadDataWithTranspose b16"
    );

    // b8: a square is 32 x 32 bytes (two 16 x 32 fractals one above the other); its transpose's rows
    // 16j.. go to fractal r * (dstGap + 1) + j * (dstFracGap + 1) = r + 3j.
    let mut want = 0x5A5Au16.to_le_bytes().repeat(1536);
    for r in 0..2 {
        let t = transpose_bytes(&d.t8[r * 1024..(r + 1) * 1024], 32, 1);
        for j in 0..2 {
            let f = r + 3 * j;
            want[f * 512..(f + 1) * 512].copy_from_slice(&t[j * 512..(j + 1) * 512]);
        }
    }
    assert_eq!(
        &out[C2_O_T8..C2_O_T8 + 3072],
        &want[..],
        "LoadDataWithTranspose b8"
    );

    // b32: square 1 = two 16 x 8 fractals side by side (a 16 x 16 matrix S); the result's fractal j is
    // columns 8j..8j+7 of S^T, at fractal j * (dstFracGap + 1) = 2j.
    let sq = &d.t32[1024..2048];
    let s_at = |x: usize, y: usize| -> &[u8] {
        let o = if y < 8 {
            x * 8 + y
        } else {
            128 + x * 8 + y - 8
        };
        &sq[o * 4..o * 4 + 4]
    };
    let mut want = 0xDEADBEEFu32.to_le_bytes().repeat(384);
    for j in 0..2 {
        for row in 0..16 {
            for c in 0..8 {
                // S^T(row, 8j + c) = S(8j + c, row)
                let o = 2 * j * 512 + (row * 8 + c) * 4;
                want[o..o + 4].copy_from_slice(s_at(8 * j + c, row));
            }
        }
    }
    assert_eq!(
        &out[C2_O_T32..C2_O_T32 + 1536],
        &want[..],
        "LoadDataWithTranspose b32"
    );

    // Fill in L1: blocks of 32 bytes; repeats at blocks 0, 3, 6, two blocks each.
    let fill = f16s(out, C2_O_FILL, 160);
    for (i, v) in fill.iter().enumerate() {
        let blk = i / 16;
        let want = if blk < 10 && blk % 3 != 2 && blk < 8 {
            1.5
        } else {
            0.0
        };
        assert_eq!(v.to_f32(), want, "Fill L1 element {i}");
    }

    // LoadData 3D v2 into L0B: the sub-matrix rows 8..24, columns 8..24 of X, as Zn (C0 = 8).
    let sub = |x: &[f32], cols: usize| -> Vec<f32> {
        (8..24)
            .flat_map(|r| (8..24).map(move |c| (r, c)))
            .map(|(r, c)| x[r * cols + c])
            .collect()
    };
    assert_eq!(
        f32s(out, C2_O_X32, 256),
        zn(&sub(&d.x32, 24), 16, 16, 8),
        "LoadData 3D v2 -> L0B (Zn)"
    );
    // ... and into L0A: rows 16..32, columns 16..32 of the half X, as Zz.
    let sub16: Vec<f16> = (16..32)
        .flat_map(|r| (16..32).map(move |c| (r, c)))
        .map(|(r, c)| d.x16[r * 32 + c])
        .collect();
    assert_eq!(
        f16s(out, C2_O_X16, 256),
        zz(&sub16, 16, 16, 16),
        "LoadData 3D v2 -> L0A (Zz)"
    );
    // The packed form (LoadData3DParamsV2Pro after SetFmatrix) moves the same block.
    assert_eq!(
        f16s(out, C2_O_X16P, 256),
        zz(&sub16, 16, 16, 16),
        "LoadData 3D v2, packed form -> L0A (Zz)"
    );

    // Mmad on B loaded with LoadDataWithTranspose; DataCopy NZ2ND + ReLU + F322F16, and NZ float.
    let af: Vec<f32> = d.a.iter().map(|x| x.to_f32()).collect();
    let bf: Vec<f32> = d.b.iter().map(|x| x.to_f32()).collect();
    let c = matmul(&af, &bf, &[0.0; 48], 32, 32, 48);
    assert!(c.iter().any(|v| *v < 0.0) && c.iter().any(|v| *v > 0.0));
    let relu_h: Vec<f16> = c.iter().map(|v| f16::from_f32(v.max(0.0))).collect();
    assert_eq!(
        f16s(out, C2_O_MM, 32 * 48),
        relu_h,
        "DataCopy L0C -> GM, NZ2ND, ReLU, F322F16"
    );
    let nz_out = f32s(out, C2_O_NZ, 32 * 48);
    for m in 0..32 {
        for n in 0..48 {
            assert_eq!(
                nz_out[(n / 16) * 512 + m * 16 + n % 16],
                c[m * 48 + n],
                "DataCopy L0C -> GM NZ ({m}, {n})"
            );
        }
    }
    // int8 through the b8 transpose; DEQF16 with the scalar register, ReLU.
    let ci: Vec<i64> = (0..16 * 32)
        .map(|e| {
            let (i, j) = (e / 32, e % 32);
            (0..32)
                .map(|t| d.a8[i * 32 + t] as i64 * d.b8[t * 32 + j] as i64)
                .sum::<i64>()
        })
        .collect();
    assert!(ci.iter().any(|v| *v < 0) && ci.iter().any(|v| *v > 0));
    let dq: Vec<f16> = ci
        .iter()
        .map(|&v| f16::from_f32(v.max(0) as f32 * 0.5))
        .collect();
    assert_eq!(
        f16s(out, C2_O_DQ, 512),
        dq,
        "DataCopy L0C -> GM, DEQF16 scalar register"
    );

    // The trace: the loads are L1 -> L0 loads for the model; Fill on L1 is MTE2, on L0 MTE1.
    for rec in [
        "I MTE1 LoadData bytes=1536 dst=1 ", // b16 transpose, 3 squares into L0A
        "I MTE1 LoadData bytes=2048 dst=2 ", // b8 transpose, 2 squares into L0B
        "I MTE1 LoadData bytes=1024 dst=2 ", // 3D v2: 16 x 16 floats into L0B
        "I MTE1 Fill bytes=3072 dst=1 ",
        "I MTE2 Fill bytes=192 ",
        "I M Mmad m=32 k=32 n=48 dt=2 ",
    ] {
        assert!(
            run.trace.contains(rec),
            "trace lacks `{rec}`:\n{}",
            run.trace
        );
    }
    ascend_tune::model::trace::parse(&run.trace).expect("the model reads the trace");

    // What the twin does not implement fails, naming the call.
    for (mode, want) in [
        (
            1,
            "LoadData with LoadData2DParamsV2 exists only on Ascend 950",
        ),
        (
            2,
            "LoadData (3D v2): the twin implements only its 2D-matrix case",
        ),
        (
            3,
            "SetFixPipeConfig: tensor (vector) quantisation is not implemented by the twin",
        ),
    ] {
        let r = cube2_run(w, mode);
        let err = String::from_utf8_lossy(&r.status.stderr);
        assert_eq!(r.status.status.code(), Some(3), "mode {mode}: {err}");
        assert!(err.contains(want), "mode {mode}: `{want}` not in {err}");
        assert!(
            err.contains("cube2_kernel.cpp:"),
            "mode {mode}: no kernel line in {err}"
        );
    }
}
