//! The numbers behind the twin's newer API names: builds `templates/twin/tests/sem_kernel.cpp` against
//! the twin with the system C++ compiler, runs it through the twin's kernel program (one block), and
//! checks every result slot against a reference computed here, independently, in Rust: reduction
//! order (binary trees per the asc-devkit ReduceSum / BlockReduceSum pages, with the documented half
//! example [60000, 60000, -30000, 100] -> 35604), the mask/repeat forms of ReduceSum and ReduceMax,
//! Broadcast, LocalMemAllocator, ArithProgression, TransDataTo5HD (8/16/32-bit, all three forms
//! but the UB-held one), Cast to int4b_t, the register-level Reg / MicroAPI subset, Power and the sort
//! family (Concat, Sort, Sort32, Extract: descending, ties in input order). It also compiles a small
//! host program against the twin's operator-base headers (`log/log.h`, `util/math_util.h`) and checks
//! what it prints. It knows nothing of the tool's Rust side.

mod common;

use common::*;
use half::f16;
use std::path::Path;
use std::process::Command;

const N: usize = 256;
const FLOAT_SLOTS: usize = 31;
const HALF_SLOTS: usize = 13;

/// Runs the kernel program `w/prog` on `w/run.txt` and checks that it stops at a kernel fault (exit code
/// 3) whose message says `want`.
fn assert_faults(w: &Path, prog: &str, want: &str) {
    let out = Command::new(w.join(prog))
        .arg(w.join("run.txt"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{prog}: {err}");
    assert!(err.contains(want), "{prog}: {err}");
}

/// Mixed magnitudes, so the order of additions shows in the last bits.
fn input_x() -> Vec<f32> {
    let mut s: u32 = 12345;
    (0..N)
        .map(|i| {
            s = s.wrapping_mul(1_103_515_245).wrapping_add(12345);
            let u = ((s >> 8) as f32) / 16_777_216.0 - 0.5; // [-0.5, 0.5)
            let scale = [1.0e4f32, 1.0, 3.0e-3, 7.0e2][i % 4];
            u * scale
        })
        .collect()
}

fn input_h() -> Vec<f16> {
    let mut h: Vec<f16> = (0..N)
        .map(|i| f16::from_f32(((i * 37 % 61) as f32 - 30.0) * 0.75))
        .collect();
    for (k, v) in [60000.0f32, 60000.0, -30000.0, 100.0].iter().enumerate() {
        h[k] = f16::from_f32(*v);
    }
    h
}

/// Pairwise (binary-tree) sum in f32, zero-padded to a power of two.
fn tree_f32(v: &[f32]) -> f32 {
    let mut w: Vec<f32> = v.to_vec();
    w.resize(v.len().next_power_of_two().max(1), 0.0);
    while w.len() > 1 {
        w = w.chunks(2).map(|p| p[0] + p[1]).collect();
    }
    w[0]
}

/// One half addition of a reduction: rounded to nearest even, a finite overflow kept at +-65504.
fn add_h(a: f16, b: f16) -> f16 {
    let r = f16::from_f32(a.to_f32() + b.to_f32());
    if a.is_finite() && b.is_finite() && r.is_infinite() {
        if r.is_sign_positive() {
            f16::MAX
        } else {
            f16::MIN
        }
    } else {
        r
    }
}

fn tree_f16(v: &[f16]) -> f16 {
    let mut w: Vec<f16> = v.to_vec();
    w.resize(v.len().next_power_of_two().max(1), f16::ZERO);
    while w.len() > 1 {
        w = w.chunks(2).map(|p| add_h(p[0], p[1])).collect();
    }
    w[0]
}

struct Run {
    out: Vec<f32>,
    outh: Vec<f16>,
}

fn build_and_run() -> Run {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    let twin = twin_dir();
    std::fs::write(
        w.join("launch.cpp"),
        "#include <cstdint>\nextern \"C\" void sem_test(uint8_t*, uint8_t*, uint8_t*, uint8_t*, uint8_t*, uint8_t*);\n\
         extern \"C\" void twin_launch(uint8_t **a) { sem_test(a[0], a[1], a[2], a[3], a[4], a[5]); }\n",
    )
    .unwrap();
    let mut cc = Command::new(compiler());
    cc.args(["-std=c++17", "-O1", "-w", "-I"])
        .arg(twin.join("include/kernel"))
        .arg(twin.join("tests/sem_kernel.cpp"))
        .arg(w.join("launch.cpp"));
    cc.args(kernel_runtime_sources(&twin));
    cc.arg("-o").arg(w.join("kernel"));
    run_ok(&mut cc, "building sem_kernel.cpp against the twin");

    let x = input_x();
    let h = input_h();
    let xb: Vec<u8> = x.iter().flat_map(|v| v.to_le_bytes()).collect();
    let hb: Vec<u8> = h.iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(w.join("x.bin"), &xb).unwrap();
    std::fs::write(w.join("h.bin"), &hb).unwrap();
    std::fs::write(w.join("tiling.bin"), b"").unwrap();
    let p = |n: &str| w.join(n).display().to_string();
    let run = format!(
        "block_dim 1\nub_bytes 196352\ntiling {}\nworkspace 0\ninput x {} {}\ninput h {} {}\n\
         output out {} {}\noutput outh {} {}\ntrace {}\n",
        p("tiling.bin"),
        p("x.bin"),
        xb.len(),
        p("h.bin"),
        hb.len(),
        p("out.bin"),
        FLOAT_SLOTS * N * 4,
        p("outh.bin"),
        HALF_SLOTS * N * 2,
        p("trace.txt"),
    );
    std::fs::write(w.join("run.txt"), run).unwrap();
    run_ok(
        Command::new(w.join("kernel")).arg(w.join("run.txt")),
        "running sem_kernel",
    );
    let out = std::fs::read(w.join("out.bin"))
        .unwrap()
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let outh = std::fs::read(w.join("outh.bin"))
        .unwrap()
        .chunks_exact(2)
        .map(|c| f16::from_le_bytes([c[0], c[1]]))
        .collect();
    Run { out, outh }
}

fn slot(run: &Run, s: usize) -> &[f32] {
    &run.out[s * N..(s + 1) * N]
}

fn slot_h(run: &Run, s: usize) -> &[f16] {
    &run.outh[s * N..(s + 1) * N]
}

/// Bit-exact comparison of one float slot with its reference (all N values).
fn check(run: &Run, s: usize, want: &[f32], what: &str) {
    let got = slot(run, s);
    for i in 0..N {
        assert_eq!(
            got[i].to_bits(),
            want[i].to_bits(),
            "slot {s} ({what}), element {i}: twin {} vs reference {}",
            got[i],
            want[i]
        );
    }
}

fn check_h(run: &Run, s: usize, want: &[f16], what: &str) {
    let got = slot_h(run, s);
    for i in 0..N {
        assert_eq!(
            got[i].to_bits(),
            want[i].to_bits(),
            "half slot {s} ({what}), element {i}: twin {} vs reference {}",
            got[i],
            want[i]
        );
    }
}

fn zeros() -> Vec<f32> {
    vec![0.0; N]
}

#[test]
fn new_api_semantics_match_rust_references() {
    let run = build_and_run();
    let x = input_x();
    let h = input_h();

    // 0: count form: a tree per repeat of 64 floats, the repeat sums added in order.
    let mut want = zeros();
    let parts: Vec<f32> = x[..200].chunks(64).map(tree_f32).collect();
    want[0] = parts[1..].iter().fold(parts[0], |a, b| a + b);
    let sequential = x[..200].iter().fold(0.0f32, |a, b| a + b);
    assert_ne!(
        want[0].to_bits(),
        sequential.to_bits(),
        "the test data must tell a tree from a sequential sum"
    );
    check(&run, 0, &want, "ReduceSum count form");

    // 1: mask/repeat form: trees within and across the 3 repeats.
    let mut want = zeros();
    let parts: Vec<f32> = x[..192].chunks(64).map(tree_f32).collect();
    want[0] = tree_f32(&parts);
    check(&run, 1, &want, "ReduceSum mask/repeat form");

    // 2: ReduceMax over 3 repeats with the index of the first maximum as uint32 bits in r[1].
    let mut want = zeros();
    let (bi, bv) =
        x[..192].iter().enumerate().fold(
            (0, f32::MIN),
            |(bi, bv), (i, &v)| if v > bv { (i, v) } else { (bi, bv) },
        );
    want[0] = bv;
    want[1] = f32::from_bits(bi as u32);
    check(&run, 2, &want, "ReduceMax mask/repeat form with index");

    // 3: WholeReduceSum, one tree per repeat.
    let mut want = zeros();
    for (r, c) in x.chunks(64).enumerate() {
        want[r] = tree_f32(c);
    }
    check(&run, 3, &want, "WholeReduceSum");

    // 4: BlockReduceSum, one tree per 8-float block, 2 repeats.
    let mut want = zeros();
    for (b, c) in x[..128].chunks(8).enumerate() {
        want[b] = tree_f32(c);
    }
    check(&run, 4, &want, "BlockReduceSum");

    // 5, 6: Broadcast [4,1] -> [4,16] and [1,16] -> [4,16].
    let mut col = zeros();
    let mut row = zeros();
    for i in 0..4 {
        for j in 0..16 {
            col[i * 16 + j] = x[i];
            row[i * 16 + j] = x[j];
        }
    }
    check(&run, 5, &col, "Broadcast along axis 1");
    check(&run, 6, &row, "BroadCast along axis 0");

    // 7: LocalMemAllocator: 100 floats from 0 (400 bytes, next start 416), then 3 halves (next 448).
    let mut want = zeros();
    want[..5].copy_from_slice(&[0.0, 416.0, 416.0, 448.0, 100.0]);
    // Fetch, fetch (same id), alloc 0, alloc 1, fetch (2: the lowest id not held), after
    // releasing 0 fetch gives 0 again.
    want[5..11].copy_from_slice(&[0.0, 0.0, 0.0, 1.0, 2.0, 0.0]);
    // 11: written through the tensor's GetPhyAddr() pointer, from element 1 read through it
    want[11] = 417.0;
    // 12-15: bufR's TBuffAddr by r's handle, a half tensor set to it: 2 N elements at r's address and
    // position, dataLen N floats' bytes
    want[12..16].copy_from_slice(&[2.0 * N as f32, 0.0, 1.0, 4.0 * N as f32]);
    check(
        &run,
        7,
        &want,
        "LocalMemAllocator, event ids, GetPhyAddr pointers and TBuffAddr",
    );

    // 8: Reg loop: x * 2 + x on the first 200 elements (UpdateMask), the rest untouched (0).
    let mut want = zeros();
    for i in 0..200 {
        want[i] = x[i] * 2.0 + x[i];
    }
    check(&run, 8, &want, "Reg Muls/Add with UpdateMask");

    // 27: asc_vf_call of a __simd_vf__ function: max((x - 1) / 2, x * x) on the first 150 lanes, 7
    // (MERGING keeps the Duplicate'd value) on the rest of the 4 registers.
    let mut want = zeros();
    for i in 0..N {
        want[i] = if i < 150 {
            ((x[i] - 1.0) / 2.0).max(x[i] * x[i])
        } else {
            7.0
        };
    }
    check(
        &run,
        27,
        &want,
        "asc_vf_call of a Reg vector function (Adds/Div/Mul/Max MERGING)",
    );

    // 28: the C API (c_api/asc_simd.h) on the same core: x > 0.5 ? x * 3 : |x| + 1 on the first 100
    // lanes, 0 elsewhere; then the first 128 elements multiplied by x (asc_mul_sync, the count form).
    let mut want = zeros();
    for i in 0..N {
        let v = if i >= 100 {
            0.0
        } else if x[i] > 0.5 {
            x[i] * 3.0
        } else {
            x[i].abs() + 1.0
        };
        want[i] = if i < 128 { v * x[i] } else { v };
    }
    check(&run, 28, &want, "C API register functions and asc_mul_sync");

    // 29: Duplicate(dst, src tensor, count) spreads src[0] (cann-samples' rms_norm_quant_story).
    let mut want = zeros();
    want[..100].fill(x[8]);
    check(&run, 29, &want, "Duplicate of a tensor's lowest element");

    // 30: Reg ReduceMax / ReduceSum by name (cann-samples' softmax and rms_norm stories) over 16 lanes.
    let mut want = zeros();
    want[0] = x[..16].iter().cloned().fold(f32::MIN, f32::max);
    want[8] = tree_f32(&x[..16]);
    let sum = want[8];
    want[24..32].fill(sum);
    want[9] = want[0];
    want[32..40].fill(x[3]);
    for i in 0..8 {
        want[40 + i] = x[3] * x[i] + x[i];
    }
    // DIST_PACK4_B32: the low byte of each active 32-bit lane, one after another
    for w in 0..4 {
        let b: Vec<u8> = (0..4).map(|k| x[4 * w + k].to_bits() as u8).collect();
        want[16 + w] = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    }
    check(
        &run,
        30,
        &want,
        "Reg ReduceMax / ReduceSum, Duplicate of a register, PACK4 / FIRST_ELEMENT stores, a BRC load, Mula",
    );

    // 9: Reg Reduce SUM over MaskPattern::VL8, lane 0 stored with DIST_FIRST_ELEMENT_B32.
    let mut want = zeros();
    want[0] = tree_f32(&x[..8]);
    check(&run, 9, &want, "Reg Reduce with MaskPattern::VL8");

    // 10: Reg Compare / Select / Duplicate: x > 1 ? x : -1 on the first 64 elements.
    let mut want = zeros();
    for i in 0..64 {
        want[i] = if x[i] > 1.0 { x[i] } else { -1.0 };
    }
    check(&run, 10, &want, "Reg Compare/Select");

    // 11: ArithProgression: 8 scalar values, then blocks of 8 (to 64) and of 64, each the block
    // before plus its length times the step, in f32.
    let mut want = zeros();
    let (first, step) = (-3.0f32, 0.1f32);
    for i in 0..200 {
        want[i] = match i {
            0..=7 => first + i as f32 * step,
            8..=63 => want[i - 8] + step * 8.0,
            _ => want[i - 64] + step * 64.0,
        };
    }
    check(&run, 11, &want, "ArithProgression");

    // 12: mask/repeat CompareScalar then Select with 32 of each repeat's 64 lanes.
    let mut want = vec![7.0f32; N];
    for rep in 0..2 {
        for j in 0..32 {
            let i = rep * 64 + j;
            want[i] = if x[i] > 0.0 { x[i] } else { -5.0 };
        }
    }
    check(&run, 12, &want, "CompareScalar / Select mask-repeat forms");

    // 13: CreateVecIndex (int32 bits in the float slot).
    let mut want = zeros();
    for (i, w) in want.iter_mut().enumerate().take(100) {
        *w = f32::from_bits((i as i32 - 10) as u32);
    }
    check(&run, 13, &want, "CreateVecIndex");

    // 14: Power, three forms (powf in f32, as the C library the twin calls).
    let mut want = zeros();
    for i in 0..64 {
        want[i] = x[i].abs().powf(0.5);
    }
    for i in 64..128 {
        want[i] = 1.5f32.powf(x[i] * 0.001);
    }
    for i in 128..256 {
        want[i] = x[i].abs().powf(x[i] * 0.001);
    }
    check(&run, 14, &want, "Power tensor/scalar forms");

    // 15: integer Power: exact with wrap-around; a negative exponent truncates 1 / x^-y.
    let ipow = |b: i32, e: i32| -> i32 {
        if e < 0 {
            match b {
                1 => 1,
                -1 => {
                    if e % 2 == 0 {
                        1
                    } else {
                        -1
                    }
                }
                _ => 0,
            }
        } else {
            b.wrapping_pow(e as u32)
        }
    };
    let want: Vec<f32> = (0..N as i32)
        .map(|i| f32::from_bits(ipow(i % 7 - 3, i % 9 - 1) as u32))
        .collect();
    check(&run, 15, &want, "Power int32");

    // 16: Sort (full) of rint(x / 1000) (through int32, so -0 is 0) over 64 with indexes 0..63; 17: Sort32 of x[64..128) in two
    // groups of 32 with indexes 100..163. Descending, equal scores in input order (a stable sort).
    let sorted = |scores: Vec<(f32, u32)>, group: usize| -> Vec<f32> {
        let mut out = zeros();
        let n = scores.len();
        let mut all = scores;
        for g in all.chunks_mut(group) {
            g.sort_by(|a, b| b.0.partial_cmp(&a.0).unwrap());
        }
        for (i, (v, ix)) in all.into_iter().enumerate() {
            out[i] = v;
            out[n + i] = f32::from_bits(ix);
        }
        out
    };
    let scores: Vec<(f32, u32)> = (0..64)
        .map(|i| ((x[i] * 0.001).round_ties_even() as i32 as f32, i as u32))
        .collect();
    let distinct: std::collections::BTreeSet<u32> = scores.iter().map(|s| s.0.to_bits()).collect();
    assert!(distinct.len() < 40, "the test data must have ties");
    check(
        &run,
        16,
        &sorted(scores, 64),
        "Concat + Sort (full) + Extract",
    );
    let scores: Vec<(f32, u32)> = (0..64).map(|i| (x[64 + i], 100 + i as u32)).collect();
    check(&run, 17, &sorted(scores, 32), "Sort32 + Extract");

    // 18: high-level Exp (any Taylor level) is exp in f32.
    let want: Vec<f32> = x.iter().map(|v| (v * 0.001).exp()).collect();
    check(&run, 18, &want, "high-level Exp<T, taylorExpandLevel>");

    // 19: TransDataTo5HD 32-bit, 2 repeats. Pass j of a repeat takes element j of the 16 source
    // blocks: sources 0..7 fill destination block 2j, sources 8..15 block 2j+1.
    let mut want = zeros();
    for rep in 0..2 {
        for j in 0..8 {
            for half in 0..2 {
                for i in 0..8 {
                    let src_block = 2 * (half * 8 + i) + rep;
                    want[(rep * 16 + 2 * j + half) * 8 + i] = x[src_block * 8 + j];
                }
            }
        }
    }
    check(&run, 19, &want, "TransDataTo5HD 32-bit, two repeats");

    // 20: TransDataTo5HD 16-bit, repeatTimes 1 with dstRepStride 16: blocks 16..31 of r (as halves)
    // hold the transpose of h's first 256 halves; blocks 0..15 stay zero.
    let mut halves = vec![f16::ZERO; 2 * N];
    for j in 0..16 {
        for i in 0..16 {
            halves[256 + j * 16 + i] = h[i * 16 + j];
        }
    }
    let want: Vec<f32> = halves
        .chunks(2)
        .map(|p| f32::from_bits(p[0].to_bits() as u32 | (p[1].to_bits() as u32) << 16))
        .collect();
    check(
        &run,
        20,
        &want,
        "TransDataTo5HD repeatTimes 1 starts one stride on",
    );

    // 21: Cast half -> int4b_t with CAST_RINT: each half rounded to the nearest integer (ties to
    // even), held to [-8, 7], two to a byte with the low nibble first, in r's first 128 bytes; and
    // r[64] = sqrt(x5 * x5 + 2) in f32 (the scalar sqrt of kernel code).
    let mut bytes = vec![0u8; 4 * N];
    for (i, v) in h.iter().enumerate() {
        let q = (v.to_f32().round_ties_even() as i32).clamp(-8, 7) as u8 & 0xf;
        bytes[i / 2] |= if i % 2 == 0 { q } else { q << 4 };
    }
    let mut want: Vec<f32> = bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    want[64] = (x[5] * x[5] + 2.0).sqrt();
    check(&run, 21, &want, "Cast half -> int4b_t, and scalar sqrt");

    // 22..26 and half 6..10: a float -> float Cast with a rounding mode rounds to an integral value
    // (asc-devkit precision_conversion.md, "float → float": 0.5 gives 0 / 0 / 1 / 1 / 0 under RINT /
    // FLOOR / CEIL / ROUND / TRUNC); ROUND takes ties away from zero, RINT to even.
    type Round = fn(f32) -> f32;
    let modes: [(&str, Round); 5] = [
        ("CAST_RINT", f32::round_ties_even),
        ("CAST_FLOOR", f32::floor),
        ("CAST_CEIL", f32::ceil),
        ("CAST_ROUND", f32::round),
        ("CAST_TRUNC", f32::trunc),
    ];
    for (k, (name, f)) in modes.iter().enumerate() {
        let want: Vec<f32> = x.iter().map(|v| f(*v)).collect();
        check(&run, 22 + k, &want, &format!("Cast float -> float, {name}"));
        let want_h: Vec<f16> = h.iter().map(|v| f16::from_f32(f(v.to_f32()))).collect();
        check_h(&run, 6 + k, &want_h, &format!("Cast half -> half, {name}"));
    }

    // half 11: Sigmoid on half as dav-2201 computes it (asc-devkit sigmoid_impl.h: Muls -1, Exp, Adds
    // 1, 1 / that, each on half): every step rounded to half, as numpy's half arithmetic does it.
    let want: Vec<f16> = h
        .iter()
        .map(|v| {
            let t = f16::from_f32(-v.to_f32());
            let t = f16::from_f32(t.to_f32().exp());
            let t = f16::from_f32(t.to_f32() + 1.0);
            f16::from_f32(1.0 / t.to_f32())
        })
        .collect();
    // once-rounded it differs by an ulp somewhere in these inputs: the steps are what is checked
    assert!(
        h.iter()
            .zip(&want)
            .any(|(v, w)| { f16::from_f64(1.0 / (1.0 + (-v.to_f64()).exp())) != *w })
    );
    check_h(&run, 11, &want, "Sigmoid half, step by step");

    // half 0: the documented example. The docs give the exact-decimal 35604; in half arithmetic
    // -30000 + 100 rounds to -29904, and 65504 - 29904 = 35600 ties to the even 35584.
    let mut want = vec![f16::ZERO; N];
    want[0] = tree_f16(&h[..4]);
    assert_eq!(want[0].to_f32(), 35584.0);
    assert!(
        (want[0].to_f32() - 35604.0).abs() <= 32.0,
        "within a half ulp of the documented value"
    );
    check_h(&run, 0, &want, "ReduceSum half saturation example");

    // half 1: BlockReduceSum over 8 blocks of 16 halves (block 0 is the example again).
    let mut want = vec![f16::ZERO; N];
    for (b, c) in h[..128].chunks(16).enumerate() {
        want[b] = tree_f16(c);
    }
    check_h(&run, 1, &want, "BlockReduceSum half");

    // half 2: Reg half -> float -> * 0.5 -> half (round to nearest even) on 128 elements.
    let mut want = vec![f16::ZERO; N];
    for i in 0..128 {
        want[i] = f16::from_f32(h[i].to_f32() * 0.5);
    }
    check_h(&run, 2, &want, "Reg Cast with UNPACK_B16 / PACK_B32");

    // half 3: Cast int32 -> half scaled by SetDeqScale(0.25).
    let want: Vec<f16> = x
        .iter()
        .map(|v| f16::from_f64((v * 100.0).round_ties_even() as i32 as f64 * 0.25))
        .collect();
    check_h(&run, 3, &want, "Cast int32 -> half with SetDeqScale");

    // half 4: TransDataTo5HD 16-bit: destination block j holds element j of each source block.
    let want: Vec<f16> = (0..N).map(|k| h[(k % 16) * 16 + k / 16]).collect();
    check_h(&run, 4, &want, "TransDataTo5HD 16-bit, LocalTensor lists");

    // half 5: TransDataTo5HD 8-bit on the bytes of h: low halves (bytes 0..15 of each block) from
    // source bytes j, high halves from source bytes 16 + j.
    let hb: Vec<u8> = h.iter().flat_map(|v| v.to_le_bytes()).collect();
    let mut ob = vec![0u8; 2 * N];
    for j in 0..16 {
        for i in 0..16 {
            ob[j * 32 + i] = hb[i * 32 + j];
            ob[j * 32 + 16 + i] = hb[i * 32 + 16 + j];
        }
    }
    let want: Vec<f16> = ob
        .chunks(2)
        .map(|p| f16::from_le_bytes([p[0], p[1]]))
        .collect();
    check_h(&run, 5, &want, "TransDataTo5HD 8-bit, high and low halves");

    // half 12: TransDataTo5HDImpl on raw UB pointers: half 4's transpose.
    let want: Vec<f16> = (0..N).map(|k| h[(k % 16) * 16 + k / 16]).collect();
    check_h(
        &run,
        12,
        &want,
        "TransDataTo5HDImpl 16-bit, UB pointer lists",
    );
}

/// The operator-base host helpers: OP_CHECK_IF returns through its expression, OP_CHECK_NULL_WITH_CONTEXT
/// returns GRAPH_FAILED on null, OP_LOGE names the op, and the Ops::Base integer helpers.
#[test]
fn operator_base_host_helpers_behave_as_documented() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("host.cpp");
    std::fs::write(
        &src,
        r#"
#include <cstdio>
#include "log/log.h"
#include "util/math_util.h"
#include "util/platform_util.h"
#include "infershape_broadcast_util.h"
struct Ctx { const char *GetNodeName() const { return "NodeX"; } fe::PlatFormInfos *GetPlatformInfo() const { return nullptr; } };
static ge::graphStatus check_if(int n) {
    Ctx c;
    OP_CHECK_IF(n < 0, OP_LOGE(&c, "negative n=%d", n), return ge::GRAPH_FAILED);
    return ge::GRAPH_SUCCESS;
}
static ge::graphStatus check_null(const int *p) {
    Ctx c;
    OP_CHECK_NULL_WITH_CONTEXT(&c, p);
    return ge::GRAPH_SUCCESS;
}
int main() {
    int v = 1;
    std::printf("%u %u %d %d\n", check_if(3), check_if(-2), check_null(&v) == ge::GRAPH_SUCCESS, check_null(nullptr) == ge::GRAPH_FAILED);
    std::printf("%lld %lld %lld %lld\n", (long long)Ops::Base::CeilDiv(100L, 32L), (long long)Ops::Base::FloorDiv(100L, 32L),
                (long long)Ops::Base::CeilAlign(100L, 32L), (long long)Ops::Base::FloorAlign(100L, 32L));
    Ctx c;
    std::printf("%u %s\n", Ops::Base::GetUbBlockSize(&c), Ops::Base::ToString(Ops::Base::EnsureNotScalar(gert::Shape())).c_str());
    // The N-input broadcast (ops-math's add_mat_mat_elements_plus): [4, 1, 3], [5, 1], [1] -> [4, 5, 3].
    gert::Shape a({4, 1, 3}), b({5, 1}), one({1}), bad({2}), out;
    std::vector<const gert::Shape *> in = {&a, &b, &one};
    bool ok = Ops::Base::BroadcastShape(in, &out);
    std::vector<const gert::Shape *> clash = {&a, &bad};
    std::printf("%d %s %d\n", ok, Ops::Base::ToString(out).c_str(), Ops::Base::BroadcastShape(clash, &out));
    return 0;
}
"#,
    )
    .unwrap();
    let out = run_host_program(&src, "building the operator-base host check");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        stdout, "0 4294967295 1 1\n4 3 128 96\n32 [1]\n1 [4, 5, 3] 0\n",
        "stdout of the host check"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("NodeX") && stderr.contains("negative n=-2"),
        "OP_LOGE names the op and the message: {stderr}"
    );
    assert!(stderr.contains("p is nullptr"), "{stderr}");
}

/// ASCENDC_TPL_DATATYPE_DECL parameters reach a template kernel as types (`template <typename T, ...>`),
/// mixed with value parameters (a value list may end in a comma): the tiling key (dtype in the low 8 bits, then the 2-bit mode) picks
/// the instance. The declaration may end in a trailing comma and may be read twice (a tiling-key
/// header without include guard).
#[test]
fn template_kernels_take_datatype_parameters_as_types() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    std::fs::write(
        w.join("launch.cpp"),
        r#"
#include "kernel_operator.h"
#include "ascendc/host_api/tiling/template_argument.h"
#define TYPED_OP_KEY_DECL                                                                                     \
    ASCENDC_TPL_ARGS_DECL(TypedOp, ASCENDC_TPL_DATATYPE_DECL(D_T, C_DT_FLOAT, C_DT_FLOAT16, C_DT_INT8, ASCENDC_TPL_INPUT(0)), \
                          ASCENDC_TPL_UINT_DECL(MODE, ASCENDC_TPL_2_BW, ASCENDC_TPL_UI_LIST, 0, 3, ), )
TYPED_OP_KEY_DECL;
TYPED_OP_KEY_DECL; // a tiling-key header without include guard, read twice

template <typename D_T, uint32_t MODE>
__global__ __aicore__ void typed_op(GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling) {
    AscendC::GlobalTensor<int32_t> g;
    g.SetGlobalBuffer((__gm__ int32_t *)y, 8);
    g.SetValue(0, (int32_t)(sizeof(D_T) * 10 + MODE));
    g.SetValue(1, AscendC::IsSameType<D_T, half>::value ? 1 : 0);
}
#include "twin/tpl_launch.h"
TWIN_TPL_LAUNCH(typed_op, 3)
"#,
    )
    .unwrap();
    let twin = twin_dir();
    let mut cc = Command::new(compiler());
    cc.args(["-std=c++17", "-O0", "-w", "-I"])
        .arg(twin.join("include/kernel"))
        .arg(w.join("launch.cpp"));
    cc.args(kernel_runtime_sources(&twin));
    cc.arg("-o").arg(w.join("kernel"));
    run_ok(&mut cc, "building a DATATYPE template kernel");
    std::fs::write(w.join("tiling.bin"), b"").unwrap();
    for (key, want) in [(1u64 | (3 << 8), [23, 1]), (2, [10, 0]), (3 << 8, [43, 0])] {
        let run = format!(
            "block_dim 1\nub_bytes 196352\ntiling {t}\ntiling_key {key}\nworkspace 0\noutput y {y} 32\ntrace {tr}\n",
            t = w.join("tiling.bin").display(),
            y = w.join("y.bin").display(),
            tr = w.join("trace.txt").display(),
        );
        std::fs::write(w.join("run.txt"), run).unwrap();
        run_ok(
            Command::new(w.join("kernel")).arg(w.join("run.txt")),
            "running the DATATYPE template kernel",
        );
        let y = std::fs::read(w.join("y.bin")).unwrap();
        let got = [
            i32::from_le_bytes([y[0], y[1], y[2], y[3]]),
            i32::from_le_bytes([y[4], y[5], y[6], y[7]]),
        ];
        assert_eq!(got, want, "tiling key {key}");
    }
}

/// The graph-API shims the repositories' common headers need: ge::GetFormatName (a name per format,
/// nullptr for a non-format), ge::Operator names, types, attributes and descriptions, the log macros
/// of their error_util.h / input_util.h (D_OP_LOG*, Ops::Base::GetOpInfo / GetSafeStr,
/// REPORT_INNER_ERR_MSG, OP_LOGE_FOR_INVALID_*); and the same includes parse on the kernel side,
/// where a host tiling header is included for its tiling data.
#[test]
fn graph_api_shims_behave_as_documented() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("graph.cpp");
    std::fs::write(
        &src,
        r#"
#include <cstdio>
#include "graph/operator.h"
#include "graph/types.h"
#include "log/log.h"
struct Ctx { const char *GetNodeName() const { return "NodeG"; } };
int main() {
    const char *nz = ge::GetFormatName(ge::FORMAT_FRACTAL_NZ);
    std::printf("%s %s %s %d\n", ge::GetFormatName(ge::Format::FORMAT_NCHW), ge::GetFormatName(ge::FORMAT_ND), nz,
                ge::GetFormatName(static_cast<ge::Format>(200)) == nullptr);
    std::printf("%s\n", ge::TypeUtils::FormatToSerialString(ge::FORMAT_NHWC).c_str());
    ge::Operator empty;
    ge::Operator op("conv1", "Conv2D");
    op.SetAttr("groups", (int64_t)2).SetAttr("pads", std::vector<int64_t>{1, 2}).SetAttr("mode", "SAME");
    int64_t g = 0; std::vector<int64_t> pads; std::string mode; float f = 0;
    ge::AscendString name, type;
    op.GetName(name); op.GetOpType(type);
    unsigned st = op.GetAttr("groups", g);
    op.GetAttr("pads", pads);
    op.GetAttr("mode", mode);
    unsigned wrong_type = op.GetAttr("groups", f), missing = op.GetAttr("nothing", g);
    std::printf("%d %s %s %u %lld %zu %s %u %u\n", empty.IsEmpty(), name.GetString(), type.GetString(), st,
                (long long)g, pads.size(), mode.c_str(), wrong_type, missing);
    Ctx c;
    D_OP_LOGE(Ops::Base::GetSafeStr(Ops::Base::GetOpInfo(op)), "bad %s", "thing");
    REPORT_INNER_ERR_MSG("E89999", "op[%s], reported %d", Ops::Base::GetSafeStr(Ops::Base::GetOpInfo(&c)), 7);
    OP_LOGE_FOR_INVALID_FORMAT(c.GetNodeName(), "x", ge::GetFormatName(ge::FORMAT_NC1HWC0), "NCHW or NHWC");
    OP_LOGE_FOR_INVALID_SHAPEDIMS_WITH_REASON(c.GetNodeName(), "x1 and gamma", "2 and 3", "gamma deeper");
    OP_LOGE_FOR_INVALID_SHAPESIZES_WITH_REASON(c.GetNodeName(), "x and y", "4 and 5", "sizes differ");
    OP_LOGE_FOR_INVALID_SHAPESIZE(c.GetNodeName(), "z", "0");
    ge::char_t key[4] = "ab";
    std::printf("%s %lld\n", key, (long long)ge::GetSizeInBytes(3, ge::DT_FLOAT));
    return 0;
}
"#,
    )
    .unwrap();
    let out = run_host_program(&src, "building the graph-API host check");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "NCHW ND FRACTAL_NZ 1\nNHWC\n1 conv1 Conv2D 0 2 2 SAME 4294967295 4294967295\nab 12\n"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    for want in [
        "conv1",
        "bad thing",
        "E89999",
        "op[NodeG], reported 7",
        "invalid format: x: NC1HWC0: NCHW or NHWC",
        "invalid shape ranks: x1 and gamma: 2 and 3: gamma deeper",
        "invalid shape sizes: x and y: 4 and 5: sizes differ",
        "invalid shape size: z: 0",
    ] {
        assert!(stderr.contains(want), "{want} in {stderr}");
    }

    // Kernel side: a tiling header with host includes still parses (its macros are unused there).
    let header = dir.path().join("k.cpp");
    std::fs::write(
        &header,
        "#include \"register/op_impl_registry.h\"\n#include \"log/log.h\"\n#include \"graph/operator.h\"\n\
         #include \"register/tilingdata_base.h\"\n#include \"kernel_operator.h\"\n\
         template <typename T> std::string S(const T &v) { std::ostringstream o; o << v; return o.str(); }\n\
         BEGIN_TILING_DATA_DEF(KT)\nTILING_DATA_FIELD_DEF(uint32_t, n);\nEND_TILING_DATA_DEF;\n\
         int probe() { OP_LOGE(\"x\", \"never %d\", 1); return (int)sizeof(KT) + (unlikely(S(1) == \"1\") ? 1 : 0); }\n",
    )
    .unwrap();
    run_ok(
        Command::new(compiler())
            .args(["-std=c++17", "-w", "-fsyntax-only", "-I"])
            .arg(twin_dir().join("include/kernel"))
            .arg(&header),
        "parsing host includes on the kernel side",
    );
}

/// ge::GetPrimaryFormat / GetSubFormat / HasSubFormat split a packed format value (primary in bits
/// 0-7, sub-format in bits 8-23; CANN graph API graph/types.h), checked against the same split done
/// here; and log/error_code.h's reporters (the tensor-count and shape-size ones ops-nn's foreach
/// tiling uses) print one error naming the op and their strings.
#[test]
fn packed_formats_split_and_error_code_reporters_print() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("fmt.cpp");
    let packed: [u32; 4] = [2, 29 | (3 << 8), 4 | (0x1234 << 8) | (1 << 24), 0xff];
    let values: Vec<String> = packed.iter().map(|v| format!("{v}u")).collect();
    std::fs::write(
        &src,
        format!(
            r#"
#include <cstdio>
#include "graph/types.h"
#include "log/log.h"
#include "log/error_code.h"
#include "platform/platform_info_def.h"
int main() {{
    const unsigned vs[] = {{{}}};
    for (unsigned v : vs) {{
        int32_t f = static_cast<int32_t>(v);
        std::printf("%d %d %d\n", ge::GetPrimaryFormat(f), ge::GetSubFormat(f), ge::HasSubFormat(f) ? 1 : 0);
    }}
    std::printf("%d\n", ge::GetPrimaryFormat(ge::FORMAT_FRACTAL_NZ));
    OP_LOGE_FOR_INVALID_TENSORNUM("NodeT", "x", "300", "at most 256");
    OP_LOGE_FOR_INVALID_SHAPESIZE("NodeS", "scalar", "2", "1");
    return 0;
}}
"#,
            values.join(", ")
        ),
    )
    .unwrap();
    let out = run_host_program(&src, "building the packed-format host check");
    let mut want = String::new();
    for v in packed {
        let (primary, sub) = (v & 0xff, (v >> 8) & 0xffff);
        want += &format!("{primary} {sub} {}\n", u32::from(sub > 0));
    }
    want += "29\n";
    assert_eq!(String::from_utf8_lossy(&out.stdout), want);
    let stderr = String::from_utf8_lossy(&out.stderr);
    for w in [
        "NodeT",
        "invalid tensor count: x: 300: at most 256",
        "NodeS",
        "invalid shape size: scalar: 2: 1",
    ] {
        assert!(stderr.contains(w), "{w} in {stderr}");
    }
}

/// ReduceSum / ReduceMax / ReduceMin over one axis of a 2-D tensor (`Pattern::Reduce::AR` / `RA`,
/// srcShape {rows, cols}, rows 32 B apart with srcInnerPad): AR gives one result per row (a row sums
/// as a tree), RA one per column (rows added in order); the padding lanes between rows are never read.
#[test]
fn pattern_reductions_reduce_one_axis() {
    const ROWS: usize = 3;
    const COLS: usize = 5; // padded to 8 floats a row
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    std::fs::write(
        w.join("launch.cpp"),
        r#"
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void red2(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 4096);
    LocalTensor<float> src = buf.Get<float>();
    LocalTensor<float> out = src[64];
    GlobalTensor<float> xg, yg;
    xg.SetGlobalBuffer((__gm__ float *)x, 24);
    yg.SetGlobalBuffer((__gm__ float *)y, 32);
    DataCopy(src, xg, 24);
    PipeBarrier<PIPE_ALL>();
    uint32_t shape[] = {3, 5};
    ReduceSum<float, Pattern::Reduce::AR>(out, src, shape, true);
    ReduceSum<float, Pattern::Reduce::RA, true>(out[8], src, shape, true);
    ReduceMax<float, Pattern::Reduce::AR>(out[16], src, shape, true);
    LocalTensor<uint8_t> tmp = buf.Get<uint8_t>()[2048];
    ReduceMin<float, Pattern::Reduce::RA>(out[24], src, tmp, shape, true);
    PipeBarrier<PIPE_ALL>();
    DataCopy(yg, out, 32);
}
extern "C" void twin_launch(uint8_t **a) { red2(a[0], a[1], a[2], a[3]); }
"#,
    )
    .unwrap();
    let twin = twin_dir();
    let mut cc = Command::new(compiler());
    cc.args(["-std=c++17", "-O0", "-w", "-I"])
        .arg(twin.join("include/kernel"))
        .arg(w.join("launch.cpp"));
    cc.args(kernel_runtime_sources(&twin));
    cc.arg("-o").arg(w.join("kernel"));
    run_ok(&mut cc, "building the pattern-reduction kernel");
    // Rows of 8 floats, the last 3 of each padding that must not count.
    let x: Vec<f32> = (0..24)
        .map(|i| {
            if i % 8 < COLS {
                [1.5f32, -2.0, 1e7, 0.25, -3.0][i % 8] * (1 + i / 8) as f32
            } else {
                1e30
            }
        })
        .collect();
    let bytes: Vec<u8> = x.iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(w.join("x.bin"), bytes).unwrap();
    std::fs::write(w.join("tiling.bin"), b"").unwrap();
    let run = format!(
        "block_dim 1\nub_bytes 196352\ntiling {t}\ntiling_key 0\nworkspace 0\ninput x {x} 96\noutput y {y} 128\ntrace {tr}\n",
        t = w.join("tiling.bin").display(),
        x = w.join("x.bin").display(),
        y = w.join("y.bin").display(),
        tr = w.join("trace.txt").display(),
    );
    std::fs::write(w.join("run.txt"), run).unwrap();
    run_ok(
        Command::new(w.join("kernel")).arg(w.join("run.txt")),
        "running the pattern-reduction kernel",
    );
    let y: Vec<f32> = std::fs::read(w.join("y.bin"))
        .unwrap()
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let at = |r: usize, c: usize| x[r * 8 + c];
    for r in 0..ROWS {
        let row: Vec<f32> = (0..COLS).map(|c| at(r, c)).collect();
        assert_eq!(y[r], tree_f32(&row), "AR sum of row {r}");
        assert_eq!(
            y[16 + r],
            row.iter().cloned().fold(f32::MIN, f32::max),
            "AR max of row {r}"
        );
    }
    for c in 0..COLS {
        let sum = (1..ROWS).fold(at(0, c), |a, r| a + at(r, c));
        assert_eq!(y[8 + c], sum, "RA sum of column {c}");
        let min = (0..ROWS).map(|r| at(r, c)).fold(f32::MAX, f32::min);
        assert_eq!(y[24 + c], min, "RA min of column {c}");
    }
}

/// The high-level APIs' temporary-space queries the public operators call from their tiling: the
/// Reduce family by ge::DataType and ReducePattern, Broadcast by the destination shape, and the
/// TmpBufferFactorSize family, all answering one tile (the twin's APIs need no scratch), reached
/// through the headers operators include.
#[test]
fn high_level_tmp_queries_answer_one_tile() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("host.cpp");
    std::fs::write(
        &src,
        r#"
#include <cstdio>
#include "tiling/math/log_tiling.h"
#include "tiling/broadcast/broadcast_tiling.h"
int main() {
    uint32_t mx = 0, mn = 0, live = 9, extra = 9;
    AscendC::GetReduceSumMaxMinTmpSize(ge::Shape({100}), ge::DT_FLOAT, AscendC::ReducePattern::R, true, false, mx, mn);
    std::printf("%u %u\n", mx, mn);
    AscendC::GetReduceMaxMaxMinTmpSize(ge::Shape({8, 7}), ge::DT_FLOAT16, AscendC::ReducePattern::AR, false, false, mx, mn);
    std::printf("%u %u\n", mx, mn);
    platform_ascendc::PlatformAscendC plat;
    AscendC::GetBroadCastMaxMinTmpSize(plat, ge::Shape({16, 1}), ge::Shape({16, 16}), 2, false, mx, mn);
    std::printf("%u %u\n", mx, mn);
    AscendC::GetLogTmpBufferFactorSize(4, live, extra);
    std::printf("%u %u\n", live, extra);
    return 0;
}
"#,
    )
    .unwrap();
    let out = run_host_program(&src, "building the tmp-size query check");
    // 100 floats = 400 B -> 416; 56 halves = 112 B -> 128; 256 halves = 512 B; one tile, no extra.
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "416 416\n128 128\n512 512\n1 0\n"
    );
}

/// The GM -> L1 copy with ND -> NZ conversion (asc-devkit docs, "DataCopy（GMToL1随路转换-ND2NZ搬运）"):
/// two half ND matrices of 5 x 23 (rows 32 apart, matrices 6 rows apart) and one float matrix of
/// 3 x 10 land in L1 tensors at A1 / B1 built from a position and an address, in NZ order: 32-byte
/// C0 blocks `dstNzC0Stride` C0 apart, rows `dstNzNStride` C0 apart, each row's last block padded with
/// zeros. L1 is filled with 7 first, so the padding shows. The L1 contents are read back with
/// GetValue and copied out; the reference is the documented index formula, computed here. The same
/// kernel checks the L2 cache hint: a tensor given CACHE_MODE_DISABLE (and a view taken from it
/// afterwards) reads with `cache=disable` on its trace records, one without a hint carries no key.
#[test]
fn gm_to_l1_nd2nz_lays_out_nz_fractals() {
    const HL: usize = 2 * 7 * 16 * 2; // half elements of L1 read back (two NZ matrices of 7 C0 rows x 2 blocks)
    const FL: usize = 4 * 8 * 2; // float elements read back (C0 stride 4, 2 blocks of 8)
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    std::fs::write(
        w.join("launch.cpp"),
        format!(
            r#"
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void nz(GM_ADDR h, GM_ADDR f, GM_ADDR oh, GM_ADDR of) {{
    GlobalTensor<half> hg, ohg;
    GlobalTensor<float> fg, ofg;
    hg.SetGlobalBuffer((__gm__ half *)h, 32 * 12);
    fg.SetGlobalBuffer((__gm__ float *)f, 12 * 3);
    ohg.SetGlobalBuffer((__gm__ half *)oh, {HL});
    ofg.SetGlobalBuffer((__gm__ float *)of, {FL});
    LocalTensor<half> a1(TPosition::A1, 1024, {HL});
    LocalTensor<float> b1(TPosition::B1, 65536, {FL});
    for (uint32_t i = 0; i < {HL}; i++) a1.SetValue(i, (half)7.0f);
    for (uint32_t i = 0; i < {FL}; i++) b1.SetValue(i, 7.0f);
    Nd2NzParams p;
    p.ndNum = 2; p.nValue = 5; p.dValue = 23; p.srcNdMatrixStride = 32 * 6; p.srcDValue = 32;
    p.dstNzC0Stride = 7; p.dstNzNStride = 1; p.dstNzMatrixStride = 7 * 16 * 2;
    DataCopy(a1, hg, p);
    fg.SetL2CacheHint(CacheMode::CACHE_MODE_DISABLE);
    DataCopy(b1, fg[12], Nd2NzParams(1, 2, 10, 0, 12, 4, 1, 0));
    Nd2NzParams nop(1, 0, 10, 0, 12, 4, 1, 0);
    DataCopy(b1, fg, nop); // nValue 0: no operation
    PipeBarrier<PIPE_ALL>();
    LocalTensor<half> uh(TPosition::VECCALC, 0, {HL});
    LocalTensor<float> uf(TPosition::VECCALC, 4096, {FL});
    for (uint32_t i = 0; i < {HL}; i++) uh.SetValue(i, a1.GetValue(i));
    for (uint32_t i = 0; i < {FL}; i++) uf.SetValue(i, b1.GetValue(i));
    PipeBarrier<PIPE_ALL>();
    DataCopy(ohg, uh, {HL});
    DataCopy(ofg, uf, {FL});
}}
extern "C" void twin_launch(uint8_t **a) {{ nz(a[0], a[1], a[2], a[3]); }}
"#
        ),
    )
    .unwrap();
    let twin = twin_dir();
    let mut cc = Command::new(compiler());
    cc.args(["-std=c++17", "-O0", "-w", "-I"])
        .arg(twin.join("include/kernel"))
        .arg(w.join("launch.cpp"));
    cc.args(kernel_runtime_sources(&twin));
    cc.arg("-o").arg(w.join("kernel"));
    run_ok(&mut cc, "building the ND2NZ kernel");
    let h: Vec<f16> = (0..32 * 12).map(|i| f16::from_f32(i as f32)).collect();
    let f: Vec<f32> = (0..12 * 3).map(|i| 1000.0 + i as f32).collect();
    std::fs::write(
        w.join("h.bin"),
        h.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>(),
    )
    .unwrap();
    std::fs::write(
        w.join("f.bin"),
        f.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>(),
    )
    .unwrap();
    std::fs::write(w.join("tiling.bin"), b"").unwrap();
    let p = |n: &str| w.join(n).display().to_string();
    let run = format!(
        "block_dim 1\nub_bytes 196352\ntiling {}\nworkspace 0\ninput h {} {}\ninput f {} {}\n\
         output oh {} {}\noutput of {} {}\ntrace {}\n",
        p("tiling.bin"),
        p("h.bin"),
        32 * 12 * 2,
        p("f.bin"),
        12 * 3 * 4,
        p("oh.bin"),
        HL * 2,
        p("of.bin"),
        FL * 4,
        p("trace.txt"),
    );
    std::fs::write(w.join("run.txt"), run).unwrap();
    run_ok(
        Command::new(w.join("kernel")).arg(w.join("run.txt")),
        "running the ND2NZ kernel",
    );

    // Reference: dst[k*mstride + (c/c0)*c0stride*c0 + r*nstride*c0 + c%c0] = src[k*srcnd + r*srcd + c],
    // the rest of each touched C0 block 0, everything else untouched (7).
    #[allow(clippy::too_many_arguments)]
    fn nd2nz<T: Copy>(
        dst: &mut [T],
        src: &[T],
        zero: T,
        c0: usize,
        nd: usize,
        n: usize,
        d: usize,
        srcnd: usize,
        srcd: usize,
        c0stride: usize,
        nstride: usize,
        mstride: usize,
    ) {
        for k in 0..nd {
            for r in 0..n {
                for c in 0..d.div_ceil(c0) * c0 {
                    let at = k * mstride + (c / c0) * c0stride * c0 + r * nstride * c0 + c % c0;
                    dst[at] = if c < d {
                        src[k * srcnd + r * srcd + c]
                    } else {
                        zero
                    };
                }
            }
        }
    }
    let mut want_h = vec![f16::from_f32(7.0); HL];
    nd2nz(
        &mut want_h,
        &h,
        f16::ZERO,
        16,
        2,
        5,
        23,
        32 * 6,
        32,
        7,
        1,
        7 * 16 * 2,
    );
    let mut want_f = vec![7.0f32; FL];
    nd2nz(&mut want_f, &f[12..], 0.0, 8, 1, 2, 10, 0, 12, 4, 1, 0);
    let got_h: Vec<f16> = std::fs::read(w.join("oh.bin"))
        .unwrap()
        .chunks_exact(2)
        .map(|c| f16::from_le_bytes([c[0], c[1]]))
        .collect();
    let got_f: Vec<f32> = std::fs::read(w.join("of.bin"))
        .unwrap()
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    for i in 0..HL {
        assert_eq!(
            got_h[i].to_bits(),
            want_h[i].to_bits(),
            "half L1 element {i}: twin {} vs reference {}",
            got_h[i],
            want_h[i]
        );
    }
    for i in 0..FL {
        assert_eq!(
            got_f[i].to_bits(),
            want_f[i].to_bits(),
            "float L1 element {i}: twin {} vs reference {}",
            got_f[i],
            want_f[i]
        );
    }
    // The trace: GM rows as bursts (10 rows of 46 B, 18 B apart; 2 rows of 40 B, 8 B apart), L1 marked,
    // the cache hint on the hinted tensor's view only, the NOP copy absent.
    let trace = std::fs::read_to_string(w.join("trace.txt")).unwrap();
    let copies: Vec<&str> = trace
        .lines()
        .filter(|l| l.starts_with("I MTE2 DataCopy"))
        .collect();
    assert_eq!(copies.len(), 2, "{trace}");
    // Keys by name: trace version 3 puts the allocation (`buf=`) between them.
    let has_all = |line: &str, keys: &[&str]| {
        keys.iter()
            .all(|k| line.split_whitespace().any(|w| w == *k))
    };
    assert!(
        has_all(
            copies[0],
            &[
                "bytes=460",
                "bursts=10",
                "burst=46",
                "gm=0",
                "gap=18",
                "mem=L1",
                "nd2nz=1"
            ]
        ) && !copies[0].contains("cache="),
        "{}",
        copies[0]
    );
    assert!(
        has_all(
            copies[1],
            &[
                "bytes=80",
                "bursts=2",
                "burst=40",
                "gm=48",
                "gap=8",
                "cache=disable",
                "mem=L1",
                "nd2nz=1"
            ]
        ),
        "{}",
        copies[1]
    );
    let outs: Vec<&str> = trace
        .lines()
        .filter(|l| l.starts_with("I MTE3 DataCopy"))
        .collect();
    assert_eq!(outs.len(), 2);
    assert!(outs.iter().all(|l| !l.contains("cache=")), "{outs:?}");
}

/// The UB is 192 KiB on 910B while the runtime reports 256 B less (FACTS §1): a tensor placed by address
/// may use the last 256 B (asc-devkit's add_high_performance example does, measured on 910B), one byte
/// past the UB is a fault naming both sizes. TPipe carves the whole UB too (the library's pool is
/// 192 KiB; ops-math circular_pad carves 192 * 1024 bytes in one InitBuffer), and no byte more.
#[test]
fn static_tensors_reach_the_whole_ub_and_no_further() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    std::fs::write(
        w.join("launch.cpp"),
        r#"
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void top(GM_ADDR x, GM_ADDR y) {
    GlobalTensor<half> xg, yg;
    xg.SetGlobalBuffer((__gm__ half *)x, 128);
    yg.SetGlobalBuffer((__gm__ half *)y, 128);
    LocalTensor<half> t(TPosition::VECCALC, 196608 - 256 + OFFSET, 128);
    DataCopy(t, xg, 128);
    PipeBarrier<PIPE_ALL>();
    DataCopy(yg, t, 128);
#ifdef CARVE
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 196608 - 32);
    TBuf<TPosition::VECCALC> c;
    pipe.InitBuffer(c, CARVE);
#endif
}
extern "C" void twin_launch(uint8_t **a) { top(a[0], a[1]); }
"#,
    )
    .unwrap();
    build_launch(w, "fits", &["-DOFFSET=0"]);
    build_launch(w, "over", &["-DOFFSET=32"]);
    build_launch(w, "carve_all", &["-DOFFSET=0", "-DCARVE=32"]);
    build_launch(w, "carve", &["-DOFFSET=0", "-DCARVE=64"]);
    let x: Vec<u8> = (0..256u32).map(|i| (i * 7 % 251) as u8).collect();
    std::fs::write(w.join("x.bin"), &x).unwrap();
    std::fs::write(w.join("tiling.bin"), b"").unwrap();
    let run = format!(
        "block_dim 1\nub_bytes 196352\ntiling {t}\nworkspace 0\ninput x {x} 256\noutput y {y} 256\ntrace {tr}\n",
        t = w.join("tiling.bin").display(),
        x = w.join("x.bin").display(),
        y = w.join("y.bin").display(),
        tr = w.join("trace.txt").display(),
    );
    std::fs::write(w.join("run.txt"), run).unwrap();
    run_ok(
        Command::new(w.join("fits")).arg(w.join("run.txt")),
        "the kernel using the UB's last 256 B",
    );
    run_ok(
        Command::new(w.join("carve_all")).arg(w.join("run.txt")),
        "the kernel carving the whole UB",
    );
    assert_eq!(
        std::fs::read(w.join("y.bin")).unwrap(),
        x,
        "the bytes through the UB's top"
    );
    for (prog, want) in [
        (
            "over",
            "UB access out of bounds: bytes [196384, 196640) but the UB holds 196608 bytes (ub_bytes 196352",
        ),
        (
            "carve",
            "InitBuffer: UB overflow: need 64 bytes, 196576 of 196608 bytes in use",
        ),
    ] {
        assert_faults(w, prog, want);
    }
}

/// Arange (asc-devkit docs, 高阶API/索引计算/Arange-94.md): dst[i] = firstValue + i * diffValue, in float,
/// half and int32, past the 8 written one by one and the 64 of the first Adds. ops-cv's
/// upsample_nearest_exact2d_grad builds its index rows with it; it also spells the Matmul types in the
/// older `matmul::` namespace, an alias of AscendC that this kernel compiles against.
#[test]
fn arange_is_the_arithmetic_sequence_and_matmul_names_its_namespace_alias() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    std::fs::write(
        w.join("launch.cpp"),
        r#"
#include "kernel_operator.h"
#include "lib/matmul_intf.h"
using namespace AscendC;
using OlderSpelling = matmul::MatmulType<TPosition::GM, CubeFormat::ND, half>;
extern "C" __global__ __aicore__ void top(GM_ADDR f, GM_ADDR h, GM_ADDR i) {
    GlobalTensor<float> fg; fg.SetGlobalBuffer((__gm__ float *)f, 200);
    GlobalTensor<half> hg; hg.SetGlobalBuffer((__gm__ half *)h, 144);
    GlobalTensor<int32_t> ig; ig.SetGlobalBuffer((__gm__ int32_t *)i, 72);
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 2048);
    LocalTensor<float> ft = b.Get<float>();
    LocalTensor<half> ht = b.GetWithOffset<half>(144, 1024);
    LocalTensor<int32_t> it = b.GetWithOffset<int32_t>(72, 1536);
    Arange(ft, 1.5f, 0.25f, 200);
    Arange(ht, (half)-3.0f, (half)0.5f, 144);
    Arange(it, (int32_t)7, (int32_t)3, 72);
    PipeBarrier<PIPE_ALL>();
    DataCopy(fg, ft, 200);
    DataCopy(hg, ht, 144);
    DataCopy(ig, it, 72);
}
extern "C" void twin_launch(uint8_t **a) { top(a[0], a[1], a[2]); }
"#,
    )
    .unwrap();
    build_launch(w, "arange", &[]);
    write_run(
        w,
        &[
            ("output", "f", "f.bin", 800),
            ("output", "h", "h.bin", 288),
            ("output", "i", "i.bin", 288),
        ],
    );
    run_ok(
        Command::new(w.join("arange")).arg(w.join("run.txt")),
        "the Arange kernel",
    );
    let f = f32s(&std::fs::read(w.join("f.bin")).unwrap());
    let want: Vec<f32> = (0..200).map(|k| 1.5 + 0.25 * k as f32).collect();
    assert_eq!(f, want);
    let h: Vec<f32> = std::fs::read(w.join("h.bin"))
        .unwrap()
        .chunks_exact(2)
        .map(|c| f16::from_le_bytes([c[0], c[1]]).to_f32())
        .collect();
    let want: Vec<f32> = (0..144).map(|k| -3.0 + 0.5 * k as f32).collect();
    assert_eq!(h, want);
    let i = i32s(&std::fs::read(w.join("i.bin")).unwrap());
    let want: Vec<i32> = (0..72).map(|k| 7 + 3 * k).collect();
    assert_eq!(i, want);
}

/// A TPipe's end releases the UB it carved, as CANN's destructor (Destroy) does: ops-cv's rasterizer runs
/// one stage with a pipe in a scope (101 KiB), then a second stage's pipe carves 184 KiB, and stopped at
/// "UB overflow". A copy of a pipe ending releases nothing: the buffer carved after it does not overlap
/// the original's. A buffer of length 0 carves nothing, with a warning (moe_compute_expert_tokens'
/// blocks without work; the device takes it, only CANN's CPU debug build asserts), and a queue of
/// such buffers still allocates, queues and frees them (ops-transformer's
/// moe_token_unpermute_with_routing_map: the twin divided by the zero length, SIGFPE).
#[test]
fn a_pipe_releases_its_ub_when_it_ends_and_a_copy_does_not() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    std::fs::write(
        w.join("launch.cpp"),
        r#"
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void top(GM_ADDR y) {
    GlobalTensor<float> yg;
    yg.SetGlobalBuffer((__gm__ float *)y, 128);
    {
        TPipe first;
        TBuf<TPosition::VECCALC> b;
        first.InitBuffer(b, 101 * 1024);
        Duplicate(b.Get<float>(), 3.0f, 64);
    }
    TPipe second;
    TBuf<TPosition::VECCALC> none, big, more;
    TQue<QuePosition::VECOUT, 2> empty;
    second.InitBuffer(none, 0);
    second.InitBuffer(empty, 2, 0);
    for (int k = 0; k < 3; k++) {   // a queue of zero-length buffers still cycles
        LocalTensor<float> e = empty.AllocTensor<float>();
        empty.EnQue(e);
        e = empty.DeQue<float>();
        empty.FreeTensor(e);
    }
    second.InitBuffer(big, 120 * 1024);
    LocalTensor<float> t = big.Get<float>();
    Duplicate(t, 1.0f, 64);
    { TPipe copy(second); }
    second.InitBuffer(more, 64 * 1024);
    LocalTensor<float> u = more.Get<float>();
    Duplicate(u, 2.0f, 64);
    PipeBarrier<PIPE_ALL>();
    DataCopy(yg, t, 64);
    DataCopy(yg[64], u, 64);
}
extern "C" void twin_launch(uint8_t **a) { top(a[0]); }
"#,
    )
    .unwrap();
    build_launch(w, "stages", &[]);
    write_run(w, &[("output", "y", "y.bin", 512)]);
    let out = Command::new(w.join("stages"))
        .arg(w.join("run.txt"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "two pipes one after the other: {err}");
    assert!(
        err.contains("InitBuffer: zero buffer length; the device carves nothing"),
        "{err}"
    );
    let y = f32s(&std::fs::read(w.join("y.bin")).unwrap());
    assert!(y[..64].iter().all(|&v| v == 1.0), "{:?}", &y[..64]);
    assert!(y[64..].iter().all(|&v| v == 2.0), "{:?}", &y[64..]);
}

/// An index that carries a GlobalTensor into another tensor's allocation is out of bounds of its own:
/// moe_finalize_routing_v2 with random row indices read rows far before `expanded_x`, which landed in
/// another input or in no allocation depending on where the allocator put them, so one run faulted
/// and the next passed. The offsets here reach from `x` exactly into `y` (and back). An access of no
/// bytes past the end is still nothing (an idle block's share).
#[test]
fn an_index_into_another_tensors_allocation_is_out_of_bounds_of_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    std::fs::write(
        w.join("launch.cpp"),
        r#"
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void top(GM_ADDR x, GM_ADDR y) {
    GlobalTensor<float> xg, yg;
    xg.SetGlobalBuffer((__gm__ float *)x, 64);
    yg.SetGlobalBuffer((__gm__ float *)y, 64);
    const int64_t into_y = ((__gm__ float *)y - (__gm__ float *)x);
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 256);
    LocalTensor<float> t = b.Get<float>();
#if defined(GET)
    float v = xg.GetValue(into_y);
    yg.SetValue(0, v);
#elif defined(COPY_IN)
    DataCopy(t, xg[into_y], 64);
#elif defined(COPY_OUT)
    DataCopy(t, yg, 64);
    PipeBarrier<PIPE_ALL>();
    DataCopy(yg[-into_y], t, 64);
#else
    DataCopy(t, xg[8], 56);
    PipeBarrier<PIPE_ALL>();
    DataCopy(yg, t, 56);
    // an access of no bytes past the end touches nothing (an idle block's share)
    InitGlobalMemory(yg[4096], 0, 0.0f);
#endif
}
extern "C" void twin_launch(uint8_t **a) { top(a[0], a[1]); }
"#,
    )
    .unwrap();
    build_launch(w, "inside", &[]);
    build_launch(w, "get", &["-DGET"]);
    build_launch(w, "copy_in", &["-DCOPY_IN"]);
    build_launch(w, "copy_out", &["-DCOPY_OUT"]);
    let x: Vec<f32> = (0..64).map(|i| i as f32 * 0.5 - 3.0).collect();
    let bytes: Vec<u8> = x.iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(w.join("x.bin"), bytes).unwrap();
    write_run(
        w,
        &[("input", "x", "x.bin", 256), ("output", "y", "y.bin", 256)],
    );
    run_ok(
        Command::new(w.join("inside")).arg(w.join("run.txt")),
        "a copy inside x",
    );
    let y = f32s(&std::fs::read(w.join("y.bin")).unwrap());
    assert_eq!(&y[..56], &x[8..], "x[8..64] copied to y");
    for (prog, want) in [
        (
            "get",
            "GlobalTensor::GetValue: GM read out of bounds: bytes [",
        ),
        ("copy_in", "DataCopy: GM read out of bounds: bytes ["),
        ("copy_out", "DataCopy: GM write out of bounds: bytes ["),
    ] {
        assert_faults(w, prog, want);
        let err = String::from_utf8_lossy(
            &Command::new(w.join(prog))
                .arg(w.join("run.txt"))
                .output()
                .unwrap()
                .stderr,
        )
        .to_string();
        let named = if prog == "copy_out" {
            "of 'y'"
        } else {
            "of 'x'"
        };
        assert!(err.contains(named), "{prog}: {err}");
    }
}

/// `block_idx`, the compiler's built-in variable some SDK examples read instead of GetBlockIdx()
/// (asc-devkit docs/zh/api/SIMD-API/C-API/sys_var/asc_get_block_idx.md for the value): on 4 blocks each
/// block writes what `block_idx` gives, used in pointer arithmetic and as an integer, into its own part
/// of y; the reference is the block numbers 0..4 computed here.
#[test]
fn the_block_idx_builtin_is_the_running_block() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    std::fs::write(
        w.join("launch.cpp"),
        r#"
#include "kernel_operator.h"
extern "C" __global__ __aicore__ void bidx(GM_ADDR y) {
    AscendC::GlobalTensor<int32_t> g;
    const uint32_t perBlock = 2;
    g.SetGlobalBuffer((__gm__ int32_t *)y + block_idx * perBlock, perBlock);
    int64_t b = block_idx;
    g.SetValue(0, (int32_t)b);
    g.SetValue(1, (int32_t)(block_idx * 10 + AscendC::GetBlockNum()));
}
extern "C" void twin_launch(uint8_t **a) { bidx(a[0]); }
"#,
    )
    .unwrap();
    let twin = twin_dir();
    let mut cc = Command::new(compiler());
    cc.args(["-std=c++17", "-O0", "-w", "-I"])
        .arg(twin.join("include/kernel"))
        .arg(w.join("launch.cpp"));
    cc.args(kernel_runtime_sources(&twin));
    cc.arg("-o").arg(w.join("kernel"));
    run_ok(&mut cc, "building a kernel reading block_idx");
    std::fs::write(w.join("tiling.bin"), b"").unwrap();
    let run = format!(
        "block_dim 4\nub_bytes 196352\ntiling {t}\nworkspace 0\noutput y {y} 32\ntrace {tr}\n",
        t = w.join("tiling.bin").display(),
        y = w.join("y.bin").display(),
        tr = w.join("trace.txt").display(),
    );
    std::fs::write(w.join("run.txt"), run).unwrap();
    run_ok(
        Command::new(w.join("kernel")).arg(w.join("run.txt")),
        "running the block_idx kernel",
    );
    let got: Vec<i32> = std::fs::read(w.join("y.bin"))
        .unwrap()
        .chunks_exact(4)
        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let want: Vec<i32> = (0..4).flat_map(|b| [b, b * 10 + 4]).collect();
    assert_eq!(got, want);
}

/// fe::PlatFormInfos::GetLocalMemSize answers each memory's capacity from the platform description
/// (the same figures as GetPlatformRes), reached through `platform/platform_infos_def.h`; ops-nn's
/// `Ops::NN::OpTiling::EnsureNotScalar` turns a rank-0 shape into [1] and keeps any other;
/// `Ops::Base::SetUnknownShape(rank, s)` makes `rank` unknown dims (ops-nn's max_pool3_d); the op API
/// layer's `aclnn/opdev/platform.h` answers the twin's SoC (ops-math's coalesce_sparse includes it).
#[test]
fn platform_local_mem_size_and_nn_ensure_not_scalar() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("host.cpp");
    let (ub, l1, l0a, l0b, l0c, l2, hbm) = (
        196_608u64,
        524_288u64,
        65_536u64,
        65_537u64,
        131_072u64,
        33_554_432u64,
        1u64 << 34,
    );
    std::fs::write(
        &src,
        format!(
            r#"
#include <cstdio>
#include "platform/platform_infos_def.h"
#include "op_host/tiling_util.h"
#include "kernel_tiling/kernel_tiling.h" // reachable from host tiling headers by its public name
#include "aclnn/opdev/platform.h"
int main() {{
    fe::PlatFormInfos p;
    p.ub_bytes = {ub}; p.l1_bytes = {l1}; p.l0a_bytes = {l0a}; p.l0b_bytes = {l0b}; p.l0c_bytes = {l0c}; p.l2_bytes = {l2}; p.hbm_bytes = {hbm}ULL;
    const fe::LocalMemType ts[] = {{fe::LocalMemType::UB, fe::LocalMemType::L1, fe::LocalMemType::L0_A, fe::LocalMemType::L0_B,
                                    fe::LocalMemType::L0_C, fe::LocalMemType::L2, fe::LocalMemType::HBM}};
    for (auto t : ts) {{ uint64_t v = 7; p.GetLocalMemSize(t, v); std::printf("%llu ", (unsigned long long)v); }}
    gert::Shape s23; s23.AppendDim(2); s23.AppendDim(3);
    std::printf("%s %s", Ops::Base::ToString(Ops::Base::EnsureNotScalar(gert::Shape())).c_str(),
                Ops::Base::ToString(Ops::Base::EnsureNotScalar(s23)).c_str());
    Ops::Base::SetUnknownShape(3, s23);
    std::printf(" %s %d %d\n", Ops::Base::ToString(s23).c_str(), Ops::Base::IsUnknownShape(s23),
                op::GetCurrentPlatformInfo().GetSocVersion() == op::SocVersion::ASCEND910B);
    return 0;
}}
"#
        ),
    )
    .unwrap();
    let out = run_host_program(&src, "building the GetLocalMemSize check");
    let want = format!("{ub} {l1} {l0a} {l0b} {l0c} {l2} {hbm} [1] [2, 3] [-1, -1, -1] 1 1\n");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        want,
        "stdout of the GetLocalMemSize check"
    );
}

/// Host helpers found missing in the new-user run (issue 18): `Ops::Base::fp16_t` of
/// `op_host/util/fp16.h` (addr_v2 reads float16 attrs with it) against the `half` crate's IEEE
/// binary16, both ways (every half bit pattern to float; floats around every rounding case to half);
/// `ge::GetSizeInBytes`; the broadcasting rule of `infershape_broadcast_util.h` against a rule written
/// here.
#[test]
fn fp16_size_in_bytes_and_broadcast_host_helpers_match_references() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("host.cpp");
    let floats: Vec<f32> = {
        let mut v = vec![
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.1,
            65504.0,
            65519.99,
            65520.0,
            1e6,
            -1e6,
            5.96e-8,
            2.98e-8,
            2.99e-8,
            1e-8,
            6.1e-5,
            3.0e-5,
            1.0 + 1.0 / 1024.0,
            1.0 + 1.0 / 2048.0,
            1.0 + 3.0 / 2048.0,
            2049.0,
            2051.0,
            -2.5,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
        ];
        // Halfway and near-halfway points between neighbouring halves, across the range.
        for bits in (0u16..0x7c00).step_by(97) {
            let a = f16::from_bits(bits).to_f32();
            let b = f16::from_bits(bits + 1).to_f32();
            let mid = (a as f64 + b as f64) / 2.0;
            v.extend([
                mid as f32,
                f32::from_bits((mid as f32).to_bits() + 1),
                -(mid as f32),
            ]);
        }
        v
    };
    let list: Vec<String> = floats
        .iter()
        .map(|f| format!("0x{:08x}u", f.to_bits()))
        .collect();
    std::fs::write(
        &src,
        format!(
            r#"
#include <cstdio>
#include <cstring>
#include "op_host/util/fp16.h"
#include "graph/types.h"
#include "infershape_broadcast_util.h"
#include "securec.h"
static const unsigned kFloats[] = {{ {} }};
static void shape(const gert::Shape &s) {{ std::printf("%s\n", Ops::Base::ToString(s).c_str()); }}
int main() {{
    for (unsigned h = 0; h < 65536; h++) {{
        float f = Ops::Base::fp16_t::ToFloat((uint16_t)h);
        unsigned b; std::memcpy(&b, &f, 4);
        std::printf("%08x\n", b);
    }}
    for (unsigned x : kFloats) {{
        float f; std::memcpy(&f, &x, 4);
        Ops::Base::fp16_t h(f);
        std::printf("%04x\n", h.val);
    }}
    char buf[8] = "ab";
    int r1 = strcat_s(buf, sizeof buf, "cde"), r2 = strcat_s(buf, sizeof buf, "xyz");
    std::printf("%s %d %d\n", buf, r1 == EOK, r2 != EOK);
    std::printf("%lld %lld %lld %lld\n", (long long)ge::GetSizeInBytes(10, ge::DT_FLOAT16), (long long)ge::GetSizeInBytes(7, ge::DT_INT4),
                (long long)ge::GetSizeInBytes(3, ge::DT_INT64), (long long)ge::GetSizeInBytes(-1, ge::DT_FLOAT));
    gert::Shape a, b, out;
    a.AppendDim(4); a.AppendDim(1); a.AppendDim(3);
    b.AppendDim(5); b.AppendDim(1);
    std::printf("%d ", Ops::Base::BroadcastShape(a, b, out)); shape(out);
    gert::Shape c; c.AppendDim(2); c.AppendDim(3);
    std::printf("%d ", Ops::Base::BroadcastShape(a, c, out)); shape(out);
    gert::Shape d; d.AppendDim(4); d.AppendDim(2); d.AppendDim(3);
    std::printf("%d ", Ops::Base::BroadcastShape(a, d, out)); shape(out);
    std::printf("%d ", Ops::Base::BroadcastShape(gert::Shape(), c, out)); shape(out);
    return 0;
}}
"#,
            list.join(", ")
        ),
    )
    .unwrap();
    let out = run_host_program(&src, "building the fp16 / broadcast host check");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_half_lines(
        &lines,
        &floats,
        "fp16_t",
        |h| f16::from_bits(h).to_f32(),
        |f| f16::from_f32(f).to_bits(),
    );
    // Broadcast, per numpy: align at the last axis; equal, or one side 1.
    fn broadcast(a: &[i64], b: &[i64]) -> Option<Vec<i64>> {
        let n = a.len().max(b.len());
        let at = |s: &[i64], i: usize| {
            if i + s.len() >= n {
                s[i + s.len() - n]
            } else {
                1
            }
        };
        (0..n)
            .map(|i| match (at(a, i), at(b, i)) {
                (x, y) if x == y || y == 1 => Some(x),
                (1, y) => Some(y),
                _ => None,
            })
            .collect()
    }
    let show = |s: Option<Vec<i64>>, fallback: &str| match s {
        Some(v) => format!(
            "1 [{}]",
            v.iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        None => format!("0 {fallback}"),
    };
    let a = [4, 1, 3];
    let first = broadcast(&a, &[5, 1]);
    let want = [
        // strcat_s appends while the result fits ("abcde" + NUL in 8), refuses past that.
        "abcde 1 1".to_string(),
        format!("{} {} {} -1", 10 * 2, 4, 3 * 8),
        show(first.clone(), ""),
        // A failed broadcast leaves `out` as it was.
        show(broadcast(&a, &[2, 3]), &show(first, "")[2..]),
        show(broadcast(&a, &[4, 2, 3]), ""),
        show(broadcast(&[], &[2, 3]), ""),
    ];
    assert_eq!(&lines[65536 + floats.len()..], &want[..], "{stdout}");
}

/// Found in the new-user run (asc-devkit acosh, ceil, power): the whole-tensor forms of the unary
/// high-level math APIs, `Acosh(dst, src, sharedTmpBuffer)` and `Acosh(dst, src)`, take every
/// element of src (asc-devkit docs/zh/api/SIMD-API/高阶API/数学计算/Acosh接口/Acosh.md), against
/// f64 references computed here; and `.asc` programs, built against the kernel headers alone, reach
/// `AscendC::TensorShape` and the temporary-space queries (Power's two-shape form) through
/// "tiling/tiling_api.h"; the query answers pass through a bound queue with the positioned
/// `EnQue<VECOUT, GM, T>` (relu, sigmoid_v2).
#[test]
fn whole_tensor_unary_math_forms_and_kernel_side_tensor_shape() {
    const N: usize = 64;
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    std::fs::write(
        w.join("launch.cpp"),
        r#"
#include "kernel_operator.h"
#include "tiling/tiling_api.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void whole(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 4096);
    LocalTensor<float> all = buf.Get<float>();
    LocalTensor<float> src = all[0];
    src.SetSize(64);
    LocalTensor<float> out = all[64];
    LocalTensor<uint8_t> tmp = buf.Get<uint8_t>()[2048];
    GlobalTensor<float> xg, yg;
    xg.SetGlobalBuffer((__gm__ float *)x, 64);
    yg.SetGlobalBuffer((__gm__ float *)y, 192);
    DataCopy(src, xg, 64);
    PipeBarrier<PIPE_ALL>();
    Acosh(out, src, tmp);
    Ceil(out[64], src);
    LocalTensor<float> q = all[192];
    uint32_t mx = 0, mn = 0;
    GetAcoshMaxMinTmpSize(AscendC::TensorShape{{16}}, sizeof(float), false, mx, mn);
    q.SetValue(0, (float)mx);
    GetPowerMaxMinTmpSize(AscendC::TensorShape{{1}}, AscendC::TensorShape{{40}}, false, 2, false, mx, mn);
    q.SetValue(1, (float)mn);
    PipeBarrier<PIPE_ALL>();
    DataCopy(yg, out, 128);
    // A VECIN -> VECOUT bound queue handing its tensor on with the positioned EnQue / DeQue.
    TQueBind<TPosition::VECIN, TPosition::VECOUT, 1> bind;
    pipe.InitBuffer(bind, 1, 256);
    LocalTensor<float> b = bind.AllocTensor<float>();
    DataCopy(b, q, 64);
    bind.EnQue<TPosition::GM, TPosition::VECIN, float>(b);
    LocalTensor<float> m = bind.DeQue<TPosition::GM, TPosition::VECIN, float>();
    Adds(m, m, 1.0f, 64);
    // Handed on to the copy out without being freed (relu's and sigmoid_v2's pattern).
    bind.EnQue<TPosition::VECOUT, TPosition::GM, float>(m);
    LocalTensor<float> c = bind.DeQue<TPosition::VECOUT, TPosition::GM, float>();
    DataCopy(yg[128], c, 64);
    bind.FreeTensor(c);
}
extern "C" void twin_launch(uint8_t **a) { whole(a[0], a[1], a[2], a[3]); }
"#,
    )
    .unwrap();
    let twin = twin_dir();
    let mut cc = Command::new(compiler());
    cc.args(["-std=c++17", "-O0", "-w", "-I"])
        .arg(twin.join("include/kernel"))
        .arg(w.join("launch.cpp"));
    cc.args(kernel_runtime_sources(&twin));
    cc.arg("-o").arg(w.join("kernel"));
    run_ok(&mut cc, "building the whole-tensor math kernel");
    let x: Vec<f32> = (0..N).map(|i| 1.0 + i as f32 * 0.37).collect();
    let bytes: Vec<u8> = x.iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(w.join("x.bin"), bytes).unwrap();
    std::fs::write(w.join("tiling.bin"), b"").unwrap();
    let run = format!(
        "block_dim 1\nub_bytes 196352\ntiling {t}\ntiling_key 0\nworkspace 0\ninput x {x} 256\noutput y {y} 768\ntrace {tr}\n",
        t = w.join("tiling.bin").display(),
        x = w.join("x.bin").display(),
        y = w.join("y.bin").display(),
        tr = w.join("trace.txt").display(),
    );
    std::fs::write(w.join("run.txt"), run).unwrap();
    run_ok(
        Command::new(w.join("kernel")).arg(w.join("run.txt")),
        "running the whole-tensor math kernel",
    );
    let y: Vec<f32> = std::fs::read(w.join("y.bin"))
        .unwrap()
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    for i in 0..N {
        let v = x[i] as f64;
        let acosh = (v + (v * v - 1.0).sqrt()).ln();
        assert!(
            (y[i] as f64 - acosh).abs() <= 1e-5 * acosh.abs().max(1.0),
            "Acosh({v}) = {}, want {acosh}",
            y[i]
        );
        assert_eq!(y[64 + i] as f64, v.ceil(), "Ceil({v})");
    }
    // 16 floats = 64 B; the larger of 1 and 40 halves = 80 B -> 96; plus the 1 added on the way
    // through the bound queue.
    assert_eq!(&y[128..130], &[65.0, 97.0]);
}

/// `Ops::Base::TilingBaseClass` (op_host/tiling_base_class.h, missing in the new-user run for
/// ops-math circular_pad and the many ops-math tilings that derive from it): DoTiling runs the
/// overridden steps in order, stops at the first that fails with its status, answers
/// GRAPH_PARAM_INVALID when the class cannot tile the case, and sets the tiling key at the end; a
/// derived class's `blockDim_` is the base's (ops-math's radix_top_k sets it and passes it to SetBlockDim).
#[test]
fn tiling_base_class_runs_the_steps_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("host.cpp");
    std::fs::write(
        &src,
        r#"
#include <cstdio>
#include <string>
#include "op_host/tiling_base_class.h"
struct T : public Ops::Base::TilingBaseClass {
    std::string log; bool capable = true; int fail_at = -1;
    explicit T(gert::TilingContext *c) : Ops::Base::TilingBaseClass(c) {}
    ge::graphStatus step(const char *s, int i) { log += s; return i == fail_at ? ge::GRAPH_FAILED : ge::GRAPH_SUCCESS; }
    bool IsCapable() override { log += "C"; return capable; }
    ge::graphStatus GetPlatformInfo() override { aicoreParams_.ubSize = 192 * 1024; return step("P", 1); }
    ge::graphStatus GetShapeAttrsInfo() override { return step("S", 0); }
    ge::graphStatus DoOpTiling() override { return step("O", 2); }
    ge::graphStatus DoLibApiTiling() override { return step("L", 3); }
    uint64_t GetTilingKey() const override { return 42; }
    ge::graphStatus GetWorkspaceSize() override { workspaceSize_ = 16; return step("W", 4); }
    ge::graphStatus PostTiling() override { blockDim_ = 7; context_->SetBlockDim(static_cast<uint32_t>(blockDim_)); return step("T", 5); }
};
int main() {
    gert::TilingContext ctx;
    T ok(&ctx);
    unsigned st = ok.DoTiling();
    std::printf("%s %u %llu %u\n", ok.log.c_str(), st, (unsigned long long)ctx.GetTilingKey(), (unsigned)ctx.GetBlockDim());
    gert::TilingContext ctx2;
    T no(&ctx2); no.capable = false;
    st = no.DoTiling();
    std::printf("%s %d %llu\n", no.log.c_str(), st == ge::GRAPH_PARAM_INVALID, (unsigned long long)ctx2.GetTilingKey());
    T bad(&ctx2); bad.fail_at = 3;
    st = bad.DoTiling();
    std::printf("%s %d %llu\n", bad.log.c_str(), st == ge::GRAPH_FAILED, (unsigned long long)ctx2.GetTilingKey());
    return 0;
}
"#,
    )
    .unwrap();
    let out = run_host_program(&src, "building the TilingBaseClass check");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "SPCOLWT 0 42 7\nSPC 1 0\nSPCOL 1 0\n"
    );
}

/// Tensor lists (DYNAMIC OpDef inputs) on the host: a list's instances are the consecutive inputs
/// named like it; GetDynamicInputShape / GetDynamicInputTensor count within the list and end at its
/// last tensor; GetRequiredInputShape and GetInputInstanceInfo count OpDef (IR) inputs, a list once
/// and an absent optional input with no instance (CANN TilingContext / ComputeNodeInfo, basicdataapi).
#[test]
fn tensor_list_inputs_are_indexed_by_ir_and_instance() {
    // The op: IR inputs x (a list of 3, shapes [2,k+1]), bias (optional, absent), scalar (required).
    let list: Vec<Vec<i64>> = (0..3).map(|k| vec![2, k + 1]).collect();
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("host.cpp");
    let mut adds = String::new();
    for dims in &list {
        adds.push_str(&format!(
            "    add(\"x\", {{{}}});\n",
            dims.iter()
                .map(i64::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    std::fs::write(
        &src,
        format!(
            r#"
#include <cstdio>
#include <initializer_list>
#include "register/op_def_registry.h"
gert::TwinOpInfo op;
void add(const char *name, std::initializer_list<int64_t> dims) {{
    gert::StorageShape s;
    for (int64_t d : dims) {{ s.MutableStorageShape().AppendDim(d); s.MutableOriginShape().AppendDim(d); }}
    gert::Tensor t; t.shape_ = s;
    op.in_names.push_back(name); op.inputs.push_back(t); op.in_shapes.push_back(s);
    op.in_desc.push_back(gert::CompileTimeTensorDesc());
}}
int main() {{
    op.ir_in_names = {{"x", "bias", "scalar"}};
{adds}    add("scalar", {{1}});
    gert::TilingContext ctx; ctx.op_ = &op;
    for (size_t i = 0; i < 5; i++) {{
        auto s = ctx.GetDynamicInputShape(0, i);
        if (!s) {{ std::printf("end %zu\n", i); break; }}
        std::printf("x%zu %lld\n", i, (long long)s->GetStorageShape().GetShapeSize());
        if (ctx.GetDynamicInputTensor(0, i) != ctx.GetInputTensor(i)) std::printf("tensor %zu differs\n", i);
    }}
    std::printf("bias %d\n", ctx.GetRequiredInputShape(1) == nullptr);
    std::printf("scalar %lld\n", (long long)ctx.GetRequiredInputShape(2)->GetStorageShape().GetDim(0));
    std::printf("scalar-is-last %d\n", ctx.GetRequiredInputShape(2) == ctx.GetInputShape(3));
    // through a const context, as ops-nn's avg_pool3_d's debug printer asks for it
    auto info = static_cast<const gert::TilingContext &>(ctx).GetComputeNodeInfo();
    std::printf("ir %zu\n", info->GetIrInputsNum());
    for (size_t ir = 0; ir < 3; ir++) {{
        auto a = info->GetInputInstanceInfo(ir);
        std::printf("anchor %zu %zu %zu\n", ir, a->GetInstanceStart(), a->GetInstanceNum());
    }}
    std::printf("past %d\n", info->GetInputInstanceInfo(3) == nullptr);
    gert::InferShapeContext ic; ic.op_ = &op;
    for (auto &s : op.in_shapes) ic.in_.push_back(s.GetOriginShape());
    std::printf("infer %lld %d\n", (long long)ic.GetDynamicInputShape(0, 2)->GetShapeSize(), ic.GetDynamicInputShape(0, 3) == nullptr);
    // The same IR view from each context (ExtendedKernelContext::GetIrInputInstanceInfo), as ops-nn's
    // foreach_norm InferShape reads it; the list's dtypes by relative index in InferDataType.
    gert::InferDataTypeContext dc; dc.op_ = &op;
    op.in_desc[2].dtype_ = ge::DT_FLOAT16;
    const gert::TilingContext &cc = ctx;
    std::printf("ir-instances %zu %zu %zu %d\n", cc.GetIrInputInstanceInfo(0)->GetInstanceNum(),
                ic.GetIrInputInstanceInfo(2)->GetInstanceStart(), dc.GetIrInputInstanceInfo(1)->GetInstanceNum(),
                ic.GetIrInputInstanceInfo(3) == nullptr);
    std::printf("list-dtype %d %d\n", dc.GetDynamicInputDataType(0, 2) == ge::DT_FLOAT16,
                dc.GetDynamicInputDataType(0, 3) == ge::DT_UNDEFINED);
    return 0;
}}
"#
        ),
    )
    .unwrap();
    let out = run_host_program(&src, "building the tensor-list host check");
    // The reference: each list tensor's element count, then the IR view (x at 0 with 3 instances,
    // bias absent where scalar starts, scalar after the list).
    let mut want = String::new();
    for (i, dims) in list.iter().enumerate() {
        want.push_str(&format!("x{i} {}\n", dims.iter().product::<i64>()));
    }
    let n = list.len();
    want.push_str(&format!(
        "end {n}\nbias 1\nscalar 1\nscalar-is-last 1\nir 3\n"
    ));
    want.push_str(&format!(
        "anchor 0 0 {n}\nanchor 1 {n} 0\nanchor 2 {n} 1\npast 1\n"
    ));
    want.push_str(&format!("infer {} 1\n", list[2].iter().product::<i64>()));
    want.push_str(&format!("ir-instances {n} {n} 0 1\nlist-dtype 1 1\n"));
    assert_eq!(String::from_utf8_lossy(&out.stdout), want);
}

/// The descriptor a kernel gets for a tensor list (templates/twin/include/kernel/twin/list_desc.h),
/// against the layout the AscendC ListTensorDesc docs give: the byte offset of the pointer table, then
/// per tensor (dim | index << 32) and its dims, then the data pointers.
#[test]
fn tensor_list_descriptor_has_the_documented_layout() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("desc.cpp");
    std::fs::write(
        &src,
        r#"
#include <cstdio>
#include "twin/list_desc.h"
int main() {
    std::vector<std::vector<uint64_t>> shapes = {{4, 8}, {}, {3}};
    std::vector<uint8_t *> data = {(uint8_t *)0x1000, (uint8_t *)0x2000, (uint8_t *)0x3000};
    for (uint64_t w : twin::list_desc_words(shapes, data)) std::printf("%llu ", (unsigned long long)w);
    std::printf("\n%llu %llu\n", (unsigned long long)twin::list_tensor_bytes({4, 8}, 2),
                (unsigned long long)twin::list_tensor_bytes({}, 4));
    return 0;
}
"#,
    )
    .unwrap();
    let exe = dir.path().join("desc");
    run_ok(
        Command::new(compiler())
            .args(["-std=c++17", "-w", "-I"])
            .arg(twin_dir().join("include/kernel"))
            .arg(&src)
            .arg("-o")
            .arg(&exe),
        "building the list descriptor check",
    );
    let out = run_ok(&mut Command::new(&exe), "the list descriptor check");
    let shapes: [&[u64]; 3] = [&[4, 8], &[], &[3]];
    let mut words: Vec<u64> = vec![0];
    for (i, s) in shapes.iter().enumerate() {
        words.push(s.len() as u64 | ((i as u64) << 32));
        words.extend_from_slice(s);
    }
    words[0] = 8 * words.len() as u64;
    words.extend([0x1000, 0x2000, 0x3000]);
    let want: String = words.iter().map(|w| format!("{w} ")).collect();
    assert_eq!(out, format!("{want}\n64 4\n"));
}

/// ListTensorDesc and TensorDesc (asc-devkit ListTensorDesc.md, TensorDesc/*.md) read the descriptor a
/// tensor-list input arrives with: the count, each tensor's dim, index and shape (written to the
/// address SetShapeAddr gave), its data pointer and its data as a GlobalTensor; asking past the list
/// is a fault naming the call. ops-math's concat_dv2 stopped at the missing header.
#[test]
fn list_tensor_desc_reads_a_tensor_list() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    build_kernel(
        w,
        r#"
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void k(GM_ADDR xs, GM_ADDR y, GM_ADDR ws, GM_ADDR tiling) {
    ListTensorDesc list(reinterpret_cast<__gm__ void *>(xs));
    GlobalTensor<float> out;
    out.SetGlobalBuffer((__gm__ float *)y, 32);
    uint64_t buf[8] = {0};
    TensorDesc<float> desc;
    desc.SetShapeAddr(buf);
    uint32_t o = 0;
    out.SetValue(o++, (float)list.GetSize());
    for (uint32_t i = 0; i < list.GetSize(); i++) {
        list.GetDesc(desc, i);
        out.SetValue(o++, (float)desc.GetDim());
        out.SetValue(o++, (float)desc.GetIndex());
        for (uint32_t d = 0; d < desc.GetDim(); d++) out.SetValue(o++, (float)desc.GetShape(d));
        GlobalTensor<float> data = desc.GetDataObj();
        out.SetValue(o++, data.GetValue(data.GetSize() - 1));
        out.SetValue(o++, list.GetDataPtr<float>(i)[0]);
    }
    if (*(__gm__ uint32_t *)tiling == 1) list.GetDataPtr<float>(2);
}
extern "C" void twin_launch(uint8_t **a) { k(a[0], a[1], a[2], a[3]); }
"#,
        "building a kernel reading a tensor list with ListTensorDesc",
    );
    // Two tensors, [2, 3] and [5], of floats 1..=11.
    let xs: Vec<u8> = (1..=11).flat_map(|v| (v as f32).to_le_bytes()).collect();
    std::fs::write(w.join("xs.bin"), &xs).unwrap();
    let run = format!(
        "block_dim 1\nub_bytes 196352\ntiling {t}\nworkspace 0\ninput xs {x} 44 list 4 2,3 5\noutput y {y} 128\n",
        t = w.join("tiling.bin").display(),
        x = w.join("xs.bin").display(),
        y = w.join("y.bin").display(),
    );
    std::fs::write(w.join("run.txt"), run).unwrap();
    std::fs::write(w.join("tiling.bin"), 0u32.to_le_bytes()).unwrap();
    run_ok(
        Command::new(w.join("kernel")).arg(w.join("run.txt")),
        "running the ListTensorDesc kernel",
    );
    let got: Vec<f32> = std::fs::read(w.join("y.bin"))
        .unwrap()
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .take(12)
        .collect();
    // count; tensor 0: dim 2, index 0, shape 2 3, last 6, first 1; tensor 1: dim 1, index 1, shape 5,
    // last 11, first 7.
    assert_eq!(
        got,
        [2.0, 2.0, 0.0, 2.0, 3.0, 6.0, 1.0, 1.0, 1.0, 5.0, 11.0, 7.0]
    );
    // Asking for tensor 2 of 2 is a fault naming the call.
    std::fs::write(w.join("tiling.bin"), 1u32.to_le_bytes()).unwrap();
    assert_faults(
        w,
        "kernel",
        "ListTensorDesc::GetDataPtr: index 2 of a list of 2 tensors",
    );
}

/// Kernels pass the vector APIs as function pointers of their documented types (the foreach ops'
/// TriangleOp `void(const LocalTensor<T>&, const LocalTensor<T>&, const uint32_t)`, NoScalarBinaryOp
/// with `const int32_t&` count, ImplictOutputOp) and call the high-level unary APIs on the whole
/// source tensor (`Log(dst, src)`); the input is a tensor list read through its descriptor, as the
/// kernel program builds it from a run-file `list` line.
#[test]
fn vector_apis_work_through_function_pointers_and_on_whole_tensors_from_a_list() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    std::fs::write(
        w.join("launch.cpp"),
        r#"
#include "kernel_operator.h"
using namespace AscendC;
template <class T> using Un = void(const LocalTensor<T> &, const LocalTensor<T> &, const uint32_t);
template <class T> using Bin = void(const LocalTensor<T> &, const LocalTensor<T> &, const LocalTensor<T> &, const int32_t &);
template <class T> using UnI = void(const LocalTensor<T> &, const LocalTensor<T> &, const int32_t &);
template <Un<float> *op> void apply_un(const LocalTensor<float> &d, const LocalTensor<float> &s) { op(d, s, 64); }
__gm__ float *entry(GM_ADDR list, int i) {
    __gm__ uint64_t *w = (__gm__ uint64_t *)list;
    return (__gm__ float *)(w + w[0] / 8)[i];
}
extern "C" __global__ __aicore__ void fp(GM_ADDR xs, GM_ADDR y, GM_ADDR ws, GM_ADDR tiling) {
    GlobalTensor<float> x0, x1, out;
    x0.SetGlobalBuffer(entry(xs, 0), 64);
    x1.SetGlobalBuffer(entry(xs, 1), 64);
    out.SetGlobalBuffer((__gm__ float *)y, 256);
    TPipe pipe;
    TBuf<TPosition::VECCALC> ab, bb, cb;
    pipe.InitBuffer(ab, 256); pipe.InitBuffer(bb, 256); pipe.InitBuffer(cb, 256);
    LocalTensor<float> a = ab.Get<float>(), b = bb.Get<float>(), c = cb.Get<float>();
    DataCopy(a, x0, 64); DataCopy(b, x1, 64);
    PipeBarrier<PIPE_ALL>();
    apply_un<Acos<float, false>>(c, a);
    PipeBarrier<PIPE_ALL>(); DataCopy(out[0], c, 64); PipeBarrier<PIPE_ALL>();
    Bin<float> *mul = Mul<float>;
    mul(c, a, b, 64);
    PipeBarrier<PIPE_ALL>(); DataCopy(out[64], c, 64); PipeBarrier<PIPE_ALL>();
    Log<float>(c, a);
    PipeBarrier<PIPE_ALL>(); DataCopy(out[128], c, 64); PipeBarrier<PIPE_ALL>();
    UnI<float> *ex = Exp<float>;
    ex(c, b, 64);
    PipeBarrier<PIPE_ALL>(); DataCopy(out[192], c, 64); PipeBarrier<PIPE_ALL>();
}
extern "C" void twin_launch(uint8_t **a) { fp(a[0], a[1], a[2], a[3]); }
"#,
    )
    .unwrap();
    let twin = twin_dir();
    let mut cc = Command::new(compiler());
    cc.args(["-std=c++17", "-O0", "-w", "-I"])
        .arg(twin.join("include/kernel"))
        .arg(w.join("launch.cpp"));
    cc.args(kernel_runtime_sources(&twin));
    cc.arg("-o").arg(w.join("kernel"));
    run_ok(
        &mut cc,
        "building a kernel taking vector APIs as function pointers",
    );
    let x0: Vec<f32> = (0..64).map(|i| 0.05 + i as f32 / 80.0).collect();
    let x1: Vec<f32> = (0..64).map(|i| -1.0 + i as f32 / 40.0).collect();
    let bytes: Vec<u8> = x0.iter().chain(&x1).flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(w.join("xs.bin"), &bytes).unwrap();
    std::fs::write(w.join("tiling.bin"), b"").unwrap();
    let run = format!(
        "block_dim 1\nub_bytes 196352\ntiling {t}\nworkspace 0\ninput xs {x} 512 list 4 64 64\noutput y {y} 1024\ntrace {tr}\n",
        t = w.join("tiling.bin").display(),
        x = w.join("xs.bin").display(),
        y = w.join("y.bin").display(),
        tr = w.join("trace.txt").display(),
    );
    std::fs::write(w.join("run.txt"), run).unwrap();
    run_ok(
        Command::new(w.join("kernel")).arg(w.join("run.txt")),
        "running the function-pointer kernel",
    );
    let got: Vec<f32> = std::fs::read(w.join("y.bin"))
        .unwrap()
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let want: Vec<f32> = (x0.iter().map(|v| v.acos()))
        .chain(x0.iter().zip(&x1).map(|(a, b)| a * b))
        .chain(x0.iter().map(|v| v.ln()))
        .chain(x1.iter().map(|v| v.exp()))
        .collect();
    for (i, (g, r)) in got.iter().zip(&want).enumerate() {
        assert!(
            (g - r).abs() <= 1e-5 * r.abs().max(1.0),
            "element {i}: got {g}, want {r}"
        );
    }
}

/// Builds `src` (a kernel with a `twin_launch(uint8_t **)` glue) against the twin's kernel headers and
/// runtime in `w`, as `w/kernel`.
fn build_kernel(w: &Path, src: &str, what: &str) {
    std::fs::write(w.join("launch.cpp"), src).unwrap();
    let twin = twin_dir();
    let mut cc = Command::new(compiler());
    cc.args(["-std=c++17", "-O0", "-w", "-I"])
        .arg(twin.join("include/kernel"))
        .arg(w.join("launch.cpp"));
    cc.args(kernel_runtime_sources(&twin));
    cc.arg("-o").arg(w.join("kernel"));
    run_ok(&mut cc, what);
}

/// Runs `w/kernel` on one block with the given inputs (name, bytes) and one output `y` of `out_bytes`;
/// returns the process output and the output bytes.
fn run_kernel(
    w: &Path,
    inputs: &[(&str, Vec<u8>)],
    out_bytes: usize,
) -> (std::process::Output, Vec<u8>) {
    run_kernel_env(w, inputs, out_bytes, &[])
}

/// `run_kernel` with these environment variables set for the kernel program.
fn run_kernel_env(
    w: &Path,
    inputs: &[(&str, Vec<u8>)],
    out_bytes: usize,
    env: &[(&str, &str)],
) -> (std::process::Output, Vec<u8>) {
    std::fs::write(w.join("tiling.bin"), b"").unwrap();
    let mut run = format!(
        "block_dim 1\nub_bytes 196352\ntiling {}\nworkspace 0\n",
        w.join("tiling.bin").display()
    );
    for (name, bytes) in inputs {
        let p = w.join(format!("{name}.bin"));
        std::fs::write(&p, bytes).unwrap();
        run += &format!("input {name} {} {}\n", p.display(), bytes.len());
    }
    run += &format!(
        "output y {} {out_bytes}\ntrace {}\n",
        w.join("y.bin").display(),
        w.join("trace.txt").display()
    );
    std::fs::write(w.join("run.txt"), run).unwrap();
    let out = Command::new(w.join("kernel"))
        .arg(w.join("run.txt"))
        .envs(env.iter().copied())
        .output()
        .unwrap();
    let y = std::fs::read(w.join("y.bin")).unwrap_or_default();
    (out, y)
}

fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn u16s(b: &[u8]) -> Vec<u16> {
    b.chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect()
}

fn i32s(b: &[u8]) -> Vec<i32> {
    b.chunks_exact(4)
        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// A kernel's `m` input: eight int32, the first the mode a test kernel branches on.
fn mode_bytes(m: i32) -> Vec<u8> {
    [m, 0, 0, 0, 0, 0, 0, 0]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect()
}

fn bytes_f32(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// `g_coreType` compares equal to AIV on a vector-only kernel; the integer `Ceil(a, b)` rounds up and
/// takes int64 arguments beside the vector Ceil; scalar `min` / `max` resolve unqualified; the level-0 continuous-mask Sub is taken as a function
/// pointer of the documented type (ops-nn's foreach level-zero helpers) and still called directly;
/// `ascendc_assert` passes a true condition and, on a false one, prints its formatted message and
/// ends the run as a kernel fault naming the line.
#[test]
fn core_type_integer_ceil_level0_pointers_and_ascendc_assert() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    build_kernel(
        w,
        r#"
#include "kernel_operator.h"
using namespace AscendC;
template <class T> using L0 = void(const LocalTensor<T> &, const LocalTensor<T> &, const LocalTensor<T> &,
                                   uint64_t, const uint8_t, const BinaryRepeatParams &);
template <L0<float> *op> void apply(const LocalTensor<float> &d, const LocalTensor<float> &a,
                                    const LocalTensor<float> &b) { op(d, a, b, 64, 2, {1, 1, 1, 8, 8, 8}); }
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR c, GM_ADDR y) {
    GlobalTensor<float> xg, yg;
    GlobalTensor<int32_t> cg, yi;
    xg.SetGlobalBuffer((__gm__ float *)x, 256);
    cg.SetGlobalBuffer((__gm__ int32_t *)c, 8);
    yg.SetGlobalBuffer((__gm__ float *)y, 256);
    yi.SetGlobalBuffer((__gm__ int32_t *)y + 256, 8);
    TPipe pipe;
    TBuf<TPosition::VECCALC> ab, bb, db;
    pipe.InitBuffer(ab, 512); pipe.InitBuffer(bb, 512); pipe.InitBuffer(db, 512);
    LocalTensor<float> a = ab.Get<float>(), b = bb.Get<float>(), d = db.Get<float>();
    DataCopy(a, xg, 128); DataCopy(b, xg[128], 128);
    PipeBarrier<PIPE_ALL>();
    apply<Sub<float>>(d, a, b);
    PipeBarrier<PIPE_ALL>(); DataCopy(yg, d, 128); PipeBarrier<PIPE_ALL>();
    Sub(d, b, a, 32, 4, {1, 1, 1, 8, 8, 8});
    PipeBarrier<PIPE_ALL>(); DataCopy(yg[128], d, 128); PipeBarrier<PIPE_ALL>();
    int64_t n = 7, m = 2;
    yi.SetValue(0, g_coreType == AIV ? 1 : 0);
    yi.SetValue(1, AscendC::g_coreType == AscendC::AIC ? 1 : 0);
    yi.SetValue(2, (int32_t)Ceil(n, m));
    yi.SetValue(3, (int32_t)Ceil(64u, 8u));
    yi.SetValue(4, (int32_t)Ceil(0u, 3u));
    int lo = 5, hi = 3;
    yi.SetValue(7, min(lo, hi) + 10 * max(2, 7) + (int32_t)min(2.5f, 9.0f) * 100);
    int32_t flag = cg.GetValue(0);
    ascendc_assert(flag >= 0);
    yi.SetValue(5, 1);
    ascendc_assert(flag != 10, "flag is %d\n", flag);
    yi.SetValue(6, 2);
}
extern "C" void twin_launch(uint8_t **a) { k(a[0], a[1], a[2]); }
"#,
        "building the core-type / Ceil / level-0 pointer / ascendc_assert kernel",
    );
    let x: Vec<f32> = (0..256).map(|i| (i as f32 * 0.37).sin() * 9.0).collect();
    let flag = |v: i32| -> Vec<u8> {
        [v, 0, 0, 0, 0, 0, 0, 0]
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect()
    };
    let (out, y) = run_kernel(w, &[("x", bytes_f32(&x)), ("c", flag(3))], 256 * 4 + 32);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got = f32s(&y[..1024]);
    // Pointer form: 2 repeats of 64 (mask 64, stride 8 blocks) = elements 0..128 of a - b.
    for i in 0..128 {
        assert_eq!(got[i], x[i] - x[128 + i], "pointer Sub element {i}");
    }
    // Direct form, mask 32 of 64 per repeat, 4 repeats of 8 blocks: the first 32 of each 64 are b - a,
    // the rest keep what the pointer call left in d.
    for i in 0..128 {
        let want = if i % 64 < 32 {
            x[128 + i] - x[i]
        } else {
            x[i] - x[128 + i]
        };
        assert_eq!(got[128 + i], want, "direct Sub element {i}");
    }
    assert_eq!(&i32s(&y[1024..])[..8], &[1, 0, 4, 8, 0, 1, 2, 273]);
    let (out, y) = run_kernel(w, &[("x", bytes_f32(&x)), ("c", flag(10))], 256 * 4 + 32);
    assert_eq!(
        out.status.code(),
        Some(3),
        "a failed ascendc_assert is a kernel fault"
    );
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(all.contains("flag is 10"), "{all}");
    assert!(all.contains("ascendc_assert failed: flag != 10"), "{all}");
    assert!(all.contains("launch.cpp:"), "{all}");
    assert_eq!(
        i32s(&y[1024..])[5],
        1,
        "the run stopped at the second assert"
    );
}

/// `gert::StorageShape` compares with `!=` as the negation of `==` (origin and storage shapes both),
/// as add_layer_norm_quant's tiling writes it.
#[test]
fn storage_shapes_compare_unequal() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("ss.cpp");
    std::fs::write(
        &src,
        r#"
#include <cstdio>
#include "graph/types.h"
int main() {
    const gert::StorageShape a({2, 3}, {2, 3}), b({2, 3}, {2, 3}), c({2, 3}, {2, 4}), d({3, 3}, {2, 3});
    std::printf("%d %d %d %d\n", a != b, a != c, a != d, a == b);
    return 0;
}
"#,
    )
    .unwrap();
    let out = run_host_program(&src, "building the StorageShape check");
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "0 1 1 1");
}

/// ReduceDataBlock (sum as a binary tree per 32 B block, max, min; a block the mask leaves out keeps
/// dst), ClampMin / ClampMax on the first calCount elements, the GM Fill, Compares (count form),
/// SetPadValue's value in DataCopyPad's padding when isPad is false, and DataCopyPadGm2UBImpl /
/// DataCopyPadUB2GMImpl on raw addresses, each against a reference computed here.
#[test]
fn reduce_data_block_clamp_fill_and_set_pad_value() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    build_kernel(
        w,
        r#"
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR y) {
    GlobalTensor<float> xg, yg;
    xg.SetGlobalBuffer((__gm__ float *)x, 256);
    yg.SetGlobalBuffer((__gm__ float *)y, 512);
    Fill(yg[448], 64, 2.5f);
    TPipe pipe;
    TBuf<TPosition::VECCALC> ab, db, tb;
    pipe.InitBuffer(ab, 1024); pipe.InitBuffer(db, 1024); pipe.InitBuffer(tb, 1024);
    LocalTensor<float> a = ab.Get<float>(), d = db.Get<float>();
    LocalTensor<uint8_t> tmp = tb.Get<uint8_t>();
    DataCopy(a, xg, 256);
    PipeBarrier<PIPE_ALL>();
    Duplicate(d, -7.0f, 256);
    PipeBarrier<PIPE_ALL>();
    // 2 repeats of 64 floats (8 blocks of 8), results 8 apart (dstRepStride 1 = one repeat's 8 results).
    ReduceDataBlock<ReduceType::SUM, float>(d, a, 64, 2, 1, 1, 8);
    ReduceDataBlock<ReduceType::MAX, float>(d[16], a[128], 64, 2, 1, 1, 8);
    // mask 20: blocks 0, 1 and the first 4 elements of block 2; blocks 3..7 keep -7.
    ReduceDataBlock<ReduceType::MIN, float>(d[32], a, 20, 1, 1, 1, 8);
    PipeBarrier<PIPE_ALL>(); DataCopy(yg, d, 64); PipeBarrier<PIPE_ALL>();
    ClampMin<float>(d, a, tmp, 1.5f, 100);
    PipeBarrier<PIPE_ALL>(); DataCopy(yg[64], d, 128); PipeBarrier<PIPE_ALL>();
    ClampMax(d, a, -0.5f, 128);
    PipeBarrier<PIPE_ALL>(); DataCopy(yg[192], d, 128); PipeBarrier<PIPE_ALL>();
    LocalTensor<uint8_t> m = tb.Get<uint8_t>();
    Compares(m, a, 0.25f, CMPMODE::GE, 64);
    PipeBarrier<PIPE_ALL>(); DataCopy(yg[480], m.ReinterpretCast<float>(), 8); PipeBarrier<PIPE_ALL>();
    Duplicate(d, -1.0f, 64);
    PipeBarrier<PIPE_ALL>();
    DataCopyExtParams cp{2, 3 * sizeof(float), 0, 0, 0};
    DataCopyPadExtParams<float> pp{false, 1, 2, 99.0f};
    SetPadValue(4.25f);
    DataCopyPad(d, xg, cp, pp);
    PipeBarrier<PIPE_ALL>(); DataCopy(yg[320], d, 16); PipeBarrier<PIPE_ALL>();
    Duplicate(d, -1.0f, 64);
    PipeBarrier<PIPE_ALL>();
    DataCopyPadGm2UBImpl((__ubuf__ float *)d.GetPhyAddr(), (__gm__ float *)xg[5].GetPhyAddr(),
                         DataCopyExtParams{1, 8, 0, 0, 0}, DataCopyPadExtParams<float>{true, 0, 1, 3.0f});
    PipeBarrier<PIPE_ALL>(); DataCopy(yg[336], d, 8); PipeBarrier<PIPE_ALL>();
    DataCopyPadUB2GMImpl((__gm__ float *)yg[352].GetPhyAddr(), (__ubuf__ float *)d.GetPhyAddr(),
                         DataCopyExtParams{1, 12, 0, 0, 0});
    PipeBarrier<PIPE_ALL>();
    SetAtomicAdd<float>();
    DisableDmaAtomic();
    Duplicate(d, 1.0f, 8);
    PipeBarrier<PIPE_ALL>(); DataCopy(yg[344], d, 8); DataCopy(yg[344], d, 8); PipeBarrier<PIPE_ALL>();
}
extern "C" void twin_launch(uint8_t **a) { k(a[0], a[1]); }
"#,
        "building the ReduceDataBlock / Clamp / Fill / SetPadValue kernel",
    );
    let x: Vec<f32> = (0..256)
        .map(|i| ((i * 37 % 101) as f32 - 50.0) / 8.0 + 1e-3 * i as f32)
        .collect();
    let (out, y) = run_kernel(w, &[("x", bytes_f32(&x))], 512 * 4);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got = f32s(&y);
    let tree = |v: &[f32]| -> f32 {
        let mut v = v.to_vec();
        while v.len() > 1 {
            v = v.chunks(2).map(|p| p[0] + p[1]).collect();
        }
        v[0]
    };
    let mut want = vec![-7.0f32; 64];
    for b in 0..16 {
        want[b] = tree(&x[b * 8..b * 8 + 8]);
        let blk = &x[128 + b * 8..128 + b * 8 + 8];
        want[16 + b] = blk.iter().cloned().fold(f32::MIN, f32::max);
    }
    want[32] = x[0..8].iter().cloned().fold(f32::MAX, f32::min);
    want[33] = x[8..16].iter().cloned().fold(f32::MAX, f32::min);
    want[34] = x[16..20].iter().cloned().fold(f32::MAX, f32::min);
    assert_eq!(&got[..64], &want[..], "ReduceDataBlock");
    for i in 0..128 {
        // Beyond calCount 100, d keeps the Duplicate's -7.
        let cmin = if i < 100 { x[i].max(1.5) } else { -7.0 };
        assert_eq!(got[64 + i], cmin, "ClampMin element {i}");
        assert_eq!(got[192 + i], x[i].min(-0.5), "ClampMax element {i}");
    }
    // Each 12-byte burst lands 32 B aligned after 1 padding element and before 2: [p, x, x, x, p, p, ?, ?].
    for (r, base) in [(0usize, 0usize), (1, 3)] {
        let row = &got[320 + r * 8..320 + r * 8 + 8];
        assert_eq!(
            &row[..6],
            &[4.25, x[base], x[base + 1], x[base + 2], 4.25, 4.25],
            "DataCopyPad row {r}"
        );
    }
    assert_eq!(
        &got[336..340],
        &[x[5], x[6], 3.0, -1.0],
        "DataCopyPadGm2UBImpl"
    );
    assert_eq!(
        &got[352..356],
        &[x[5], x[6], 3.0, 0.0],
        "DataCopyPadUB2GMImpl: 12 bytes and no more"
    );
    assert!(
        got[344..352].iter().all(|&v| v == 1.0),
        "DisableDmaAtomic: copies overwrite"
    );
    assert!(got[448..480].iter().all(|&v| v == 2.5), "Fill");
    assert!(got[488..].iter().all(|&v| v == 2.5), "Fill");
    // Compares: bit i (LSB first) of the mask is x[i] >= 0.25, for the first 64 elements.
    let mask: Vec<u8> = y[480 * 4..488 * 4].to_vec();
    for i in 0..64 {
        assert_eq!(
            (mask[i / 8] >> (i % 8)) & 1 == 1,
            x[i] >= 0.25,
            "Compares bit {i}"
        );
    }
}

/// MrgSort merges 2 to 4 descending queues of 8-byte (score, index) structures, equal scores from the
/// earlier queue first, repeatTimes times over consecutive groups; with ifExhaustedSuspension it stops
/// at the first empty queue and GetMrgSortResult tells how many of each queue it took.
#[test]
fn mrg_sort_merges_sorted_queues() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    build_kernel(
        w,
        r#"
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR y) {
    GlobalTensor<float> xg, yg;
    xg.SetGlobalBuffer((__gm__ float *)x, 256);
    yg.SetGlobalBuffer((__gm__ float *)y, 776);
    TPipe pipe;
    TBuf<TPosition::VECCALC> ab, db;
    pipe.InitBuffer(ab, 1024); pipe.InitBuffer(db, 1024);
    LocalTensor<float> a = ab.Get<float>(), d = db.Get<float>();
    DataCopy(a, xg, 256);
    PipeBarrier<PIPE_ALL>();
    // 8 queues of 16 structures (32 floats each): 2 repeats of a 4-way merge.
    MrgSort4Info p;
    for (int i = 0; i < 4; i++) p.elementLengths[i] = 16;
    p.repeatTimes = 2;
    MrgSort<float>(d, MrgSortSrcList<float>(a[0], a[32], a[64], a[96]), p);
    PipeBarrier<PIPE_ALL>(); DataCopy(yg, d, 256); PipeBarrier<PIPE_ALL>();
    // Queues 1 (3 long) and 2 (16 long), suspended when queue 1 runs out.
    uint16_t lens[4] = {3, 16, 0, 0};
    MrgSort4Info q(lens, true, 3, 1);
    MrgSortSrcList<float> s;
    s.src1 = a[0]; s.src2 = a[32];
    Duplicate(d, -1.0f, 256);
    PipeBarrier<PIPE_ALL>();
    MrgSort(d, s, q);
    PipeBarrier<PIPE_ALL>(); DataCopy(yg[256], d, 256); PipeBarrier<PIPE_ALL>();
    uint16_t n1, n2, n3, n4;
    GetMrgSortResult(n1, n2, n3, n4);
    GlobalTensor<int32_t> yi;
    yi.SetGlobalBuffer((__gm__ int32_t *)y + 512, 8);
    yi.SetValue(0, n1); yi.SetValue(1, n2); yi.SetValue(2, n3); yi.SetValue(3, n4);
    // The advanced form (MrgSort-93.md), used by ops-transformer's moe kernels: the same suspended merge,
    // the counts in sortedNum.
    uint32_t sorted[4] = {9, 9, 9, 9};
    Duplicate(d, -1.0f, 256);
    PipeBarrier<PIPE_ALL>();
    MrgSort<float, true>(d, MrgSortSrcList(a[0], a[32], a[64], a[96]), lens, sorted, 3, 1);
    PipeBarrier<PIPE_ALL>(); DataCopy(yg[520], d, 256); PipeBarrier<PIPE_ALL>();
    yi.SetValue(4, sorted[0]); yi.SetValue(5, sorted[1]); yi.SetValue(6, sorted[2]); yi.SetValue(7, sorted[3]);
}
extern "C" void twin_launch(uint8_t **a) { k(a[0], a[1]); }
"#,
        "building the MrgSort kernel",
    );
    // 8 queues of 16 (score, index) pairs, each sorted descending; scores repeat across queues.
    let mut x = vec![0f32; 256];
    let mut items: Vec<(f32, u32)> = Vec::new();
    for qn in 0..8u32 {
        let mut q: Vec<f32> = (0..16)
            .map(|i| ((i * 7 + qn * 3) % 11) as f32 * 0.5)
            .collect();
        q.sort_by(|a, b| b.partial_cmp(a).unwrap());
        for (i, s) in q.iter().enumerate() {
            let idx = qn * 100 + i as u32;
            x[(qn as usize * 16 + i) * 2] = *s;
            x[(qn as usize * 16 + i) * 2 + 1] = f32::from_bits(idx);
            items.push((*s, idx));
        }
    }
    let (out, y) = run_kernel(w, &[("x", bytes_f32(&x))], 776 * 4);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got = f32s(&y);
    let pairs =
        |v: &[f32]| -> Vec<(f32, u32)> { v.chunks(2).map(|c| (c[0], c[1].to_bits())).collect() };
    // Reference: a stable sort by descending score of each group's queues in queue order is the merge
    // that takes equal scores from the earlier queue first.
    for r in 0..2 {
        let mut want = items[r * 64..r * 64 + 64].to_vec();
        want.sort_by(|a, b| b.0.partial_cmp(&a.0).unwrap());
        assert_eq!(pairs(&got[r * 128..r * 128 + 128]), want, "repeat {r}");
    }
    // Suspended merge of queue 0's first 3 with queue 1: stops when queue 0 is used up.
    let (q0, q1) = (&items[0..3], &items[16..32]);
    let (mut i, mut j, mut want) = (0, 0, Vec::new());
    while i < q0.len() {
        if q1[j].0 > q0[i].0 {
            want.push(q1[j]);
            j += 1;
        } else {
            want.push(q0[i]);
            i += 1;
        }
    }
    let n = want.len();
    assert_eq!(pairs(&got[256..256 + 2 * n]), want);
    assert!(
        got[256 + 2 * n..512].iter().all(|&v| v == -1.0),
        "nothing beyond the stop"
    );
    assert_eq!(&i32s(&y[512 * 4..])[..4], &[3, j as i32, 0, 0]);
    assert_eq!(pairs(&got[520..520 + 2 * n]), want, "the advanced form");
    assert_eq!(
        &i32s(&y[512 * 4..])[4..8],
        &[3, j as i32, 0, 0],
        "sortedNum"
    );
}

/// The kernel-side `tiling/tiling_api.h` defines tiling structs as a `.asc` program writes them (one
/// translation unit, host part included): BEGIN_TILING_DATA_DEF inside `namespace optiling`, the
/// host's set_/get_ accessors and SaveToBuffer, REGISTER_TILING_DATA_CLASS; the struct stays trivial
/// and holds the fields alone, in order.
#[test]
fn asc_programs_define_tiling_structs_with_accessors() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    build_kernel(
        w,
        r#"
#include "kernel_operator.h"
#include "tiling/tiling_api.h"
namespace optiling {
BEGIN_TILING_DATA_DEF(DqTilingData)
TILING_DATA_FIELD_DEF(uint32_t, m);
TILING_DATA_FIELD_DEF_ARR(uint32_t, 2, v);
TILING_DATA_FIELD_DEF(uint32_t, n);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(Dq, DqTilingData)
} // namespace optiling
static_assert(std::is_trivial<optiling::DqTilingData>::value, "a trivial struct");
extern "C" __global__ __aicore__ void k(GM_ADDR y) {
    optiling::DqTilingData t;
    t.set_m(3);
    uint32_t a[2] = {7, 9};
    t.set_v(a);
    t.set_n(11);
    uint32_t buf[8] = {0};
    t.SaveToBuffer(buf, sizeof(buf));
    AscendC::GlobalTensor<uint32_t> g;
    g.SetGlobalBuffer((__gm__ uint32_t *)y, 8);
    for (int i = 0; i < 4; i++) g.SetValue(i, buf[i]);
    g.SetValue(4, t.get_m() + t.get_v()[1] + t.get_n());
    g.SetValue(5, (uint32_t)t.GetDataSize());
    g.SetValue(6, (uint32_t)sizeof(optiling::twin_tiling_Dq));
    AscendC::TPipe pipe;
    g.SetValue(7, GetTPipePtr() == &pipe ? 1u : 0u); // unqualified, as the asc-devkit fill example calls it
}
extern "C" void twin_launch(uint8_t **a) { k(a[0]); }
"#,
        "building the .asc-style tiling struct kernel",
    );
    let (out, y) = run_kernel(w, &[], 32);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(&i32s(&y)[..8], &[3, 7, 9, 11, 23, 16, 16, 1]);
}

/// Host headers found missing in the new-user run (issue 18, hostgaps): `Ops::Base::bfloat16` of
/// `util/bfloat16.h` (addr_v2 reads bfloat16 attrs with it) against the `half` crate's bf16, both
/// ways (every bfloat16 bit pattern to float; floats around every rounding case of a sampled range to
/// bfloat16); `fe::PlatformInfoManager` of `platform/platform_info.h` (group_norm_silu's InferShape asks
/// it for the short SoC version) answering from the platform the host program was given, and failing
/// without one; a check-support function of `(const ge::Operator &, ge::AscendString &)` written with
/// `register/op_def_registry.h` alone (bn3d_training_reduce); the contexts named by the
/// `runtime/...` paths operator code also uses (foreach_norm: `runtime/infer_shape_context.h`).
#[test]
fn bfloat16_platform_info_and_check_support_host_headers_match_references() {
    use half::bf16;
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("host.cpp");
    let mut floats: Vec<f32> = vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.1,
        1000.0,
        1001.0,
        1030.0,
        3.0e38,
        3.4028235e38,
        1e-40,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
    ];
    for bits in (0u16..0x7f80).step_by(89) {
        let a = bf16::from_bits(bits).to_f32();
        let b = bf16::from_bits(bits + 1).to_f32();
        let mid = (a as f64 + b as f64) / 2.0;
        floats.extend([
            mid as f32,
            f32::from_bits((mid as f32).to_bits() + 1),
            f32::from_bits((mid as f32).to_bits() - 1),
            -(mid as f32),
        ]);
    }
    let list: Vec<String> = floats
        .iter()
        .map(|f| format!("0x{:08x}u", f.to_bits()))
        .collect();
    std::fs::write(
        &src,
        format!(
            r#"
#include <cstdio>
#include <cstring>
#include "register/op_def_registry.h"
#include "util/bfloat16.h"
#include "platform/platform_info.h"
#include "runtime/infer_shape_context.h"
#include "runtime/tiling_context.h"
static const unsigned kFloats[] = {{ {} }};
static ge::graphStatus InferByRuntimePath(gert::InferShapeContext *) {{ return ge::GRAPH_SUCCESS; }}
static ge::graphStatus TilingByRuntimePath(gert::TilingContext *) {{ return ge::GRAPH_SUCCESS; }}
static ge::graphStatus Check(const ge::Operator &op, ge::AscendString &result) {{
    result = ge::AscendString(op.GetInputDescByName("x").GetOriginFormat() == ge::FORMAT_ND ? "nd" : "other");
    return ge::GRAPH_SUCCESS;
}}
int main() {{
    for (unsigned h = 0; h < 65536; h++) {{
        float f = Ops::Base::bfloat16::ToFloat((uint16_t)h);
        unsigned b; std::memcpy(&b, &f, 4);
        std::printf("%08x\n", b);
    }}
    for (unsigned x : kFloats) {{
        float f; std::memcpy(&f, &x, 4);
        Ops::Base::bfloat16 h(f);
        std::printf("%04x\n", h.value);
    }}
    fe::PlatformInfo info;
    fe::OptionalInfo opt;
    std::printf("without %d\n", fe::PlatformInfoManager::Instance().GetPlatformInfoWithOutSocVersion(info, opt) != 0);
    fe::PlatFormInfos plat;
    plat.soc_version = "Ascend910B1";
    plat.short_soc = "ascend910b";
    plat.aic_cores = 24;
    plat.aiv_cores = 48;
    platform_ascendc::twin_current_platform() = &plat;
    uint32_t rc = fe::PlatformInfoManager::Instance().GetPlatformInfoWithOutSocVersion(info, opt);
    std::printf("with %u %s %s %u %u %s\n", rc, info.str_info.short_soc_version.c_str(), info.str_info.soc_version.c_str(),
                info.soc_info.ai_core_cnt, info.soc_info.vector_core_cnt, opt.soc_version.c_str());
    ge::AscendString r;
    ge::graphStatus (*f)(const ge::Operator &, ge::AscendString &) = Check;
    int status = (int)f(ge::Operator(), r);
    std::printf("check %d %s\n", status, r.GetString());
    std::printf("runtime %d\n", (int)(InferByRuntimePath(nullptr) == TilingByRuntimePath(nullptr)));
    return 0;
}}
"#,
            list.join(", ")
        ),
    )
    .unwrap();
    let out = run_host_program(&src, "building the bfloat16 / platform info host check");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_half_lines(
        &lines,
        &floats,
        "bfloat16",
        |h| bf16::from_bits(h).to_f32(),
        |f| bf16::from_f32(f).to_bits(),
    );
    let rest = &lines[65536 + floats.len()..];
    assert_eq!(
        rest,
        [
            "without 1",
            "with 0 Ascend910B Ascend910B1 24 48 Ascend910B1",
            "check 0 nd",
            "runtime 1"
        ]
    );
}

/// ops-nn's norm and CTC kernels (21 operator folders) include the CANN-internal
/// `impl/dav_c220/kernel_operator_reg_others_impl.h` without calling what it declares: on the twin it
/// brings in the kernel API, so such a kernel builds and runs.
#[test]
fn kernels_including_the_internal_reg_others_header_build_and_run() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    build_kernel(
        w,
        r#"
#include "kernel_operator.h"
#include "impl/dav_c220/kernel_operator_reg_others_impl.h"
extern "C" __global__ __aicore__ void k(GM_ADDR y) {
    AscendC::GlobalTensor<uint32_t> g;
    g.SetGlobalBuffer((__gm__ uint32_t *)y, 1);
    g.SetValue(0, 41u + 1u);
}
extern "C" void twin_launch(uint8_t **a) { k(a[0]); }
"#,
        "building a kernel that includes impl/dav_c220/kernel_operator_reg_others_impl.h",
    );
    let (out, y) = run_kernel(w, &[], 4);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(i32s(&y)[0], 42);
}

/// Checks what a host program printed for a 16-bit float type `name`: first 65536 lines, each bit
/// pattern widened to float (hex of the f32 bits), then one line per value of `floats` narrowed to the
/// type (hex of its bits); `widen` and `narrow` are the independent reference (the `half` crate). NaN
/// matches any NaN.
fn assert_half_lines(
    lines: &[&str],
    floats: &[f32],
    name: &str,
    widen: impl Fn(u16) -> f32,
    narrow: impl Fn(f32) -> u16,
) {
    for (h, line) in lines.iter().take(65536).enumerate() {
        let want = widen(h as u16);
        let got = f32::from_bits(u32::from_str_radix(line, 16).unwrap());
        assert!(
            got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
            "{name} 0x{h:04x} -> {got}, want {want}"
        );
    }
    for (i, f) in floats.iter().enumerate() {
        let got = u16::from_str_radix(lines[65536 + i], 16).unwrap();
        let want = narrow(*f);
        assert!(
            got == want || (f.is_nan() && widen(got).is_nan()),
            "{name}({f:e}) = 0x{got:04x}, want 0x{want:04x}"
        );
    }
}

/// An output named like an input (ops-nn inplace_scatter_add's `var`, written `ref var` in the run
/// file) is that input's own buffer, as CANN passes one tensor for both (asc-devkit docs/zh/guide/
/// 编程指南/高级编程/Aclnn算子工程化开发/调用/单算子API调用.md): a kernel that updates the input in place
/// and never touches its `var_ref` argument still produces the output. Before, the output was a
/// buffer of its own and stayed zero.
#[test]
fn an_output_named_like_an_input_is_that_inputs_buffer() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    build_kernel(
        w,
        r#"
#include "kernel_operator.h"
extern "C" __global__ __aicore__ void k(GM_ADDR var, GM_ADDR var_ref) {
    AscendC::GlobalTensor<float> g;
    g.SetGlobalBuffer((__gm__ float *)var, 8);
    for (int i = 0; i < 8; i++) g.SetValue(i, g.GetValue(i) * 2.0f + 1.0f);
}
extern "C" void twin_launch(uint8_t **a) { k(a[0], a[1]); }
"#,
        "building an in-place kernel",
    );
    let var: Vec<f32> = (0..8).map(|i| i as f32 - 3.5).collect();
    let bytes: Vec<u8> = var.iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(w.join("tiling.bin"), b"").unwrap();
    std::fs::write(w.join("var.bin"), &bytes).unwrap();
    let run = |out: &str| {
        let text = format!(
            "block_dim 1\nub_bytes 196352\ntiling {}\nworkspace 0\ninput var {} 32\n{out}\ntrace {}\n",
            w.join("tiling.bin").display(),
            w.join("var.bin").display(),
            w.join("trace.txt").display()
        );
        std::fs::write(w.join("run.txt"), text).unwrap();
        let _ = std::fs::remove_file(w.join("y.bin"));
        let o = Command::new(w.join("kernel"))
            .arg(w.join("run.txt"))
            .output()
            .unwrap();
        (o, std::fs::read(w.join("y.bin")).unwrap_or_default())
    };
    let y = w.join("y.bin").display().to_string();
    let (out, got) = run(&format!("output var_ref {y} 32 ref var"));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let want: Vec<f32> = var.iter().map(|v| v * 2.0 + 1.0).collect();
    assert_eq!(f32s(&got), want);
    // Without `ref` the output is a buffer of its own, zeroed.
    let (out, got) = run(&format!("output var_ref {y} 32"));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(f32s(&got), vec![0.0; 8]);
    // A `ref` naming no input of the output's size is a bad run file (exit 2), named.
    let (out, _) = run(&format!("output var_ref {y} 16 ref var"));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("`ref var` names no input of its size"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A tensor DeQue'd from a TQue may be EnQue'd into the same queue again without FreeTensor: a kernel
/// keeping a running result in a queue (ops-nn gather_elements_v2, embedding_dense_grad_v2) DeQues
/// it, updates it and EnQues it again (asc-devkit docs/zh/api/SIMD-API/基础API/资源管理/TQue/EnQue.md).
/// The twin refused that ("EnQue: buffer q0.b0 is not allocated (state 3)"). EnQue of a free
/// buffer or of one still in the queue stays an error. Mode 0: x + 3 by three DeQue/Adds/EnQue
/// rounds; mode 1: EnQue twice; mode 2: EnQue after FreeTensor.
#[test]
fn tque_accepts_enque_of_a_dequeued_tensor_and_refuses_free_or_queued() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    build_kernel(
        w,
        r#"
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR m, GM_ADDR y) {
    TPipe pipe;
    TQue<TPosition::VECIN, 1> q;
    pipe.InitBuffer(q, 1, 64 * sizeof(float));
    GlobalTensor<float> xg, yg;
    GlobalTensor<int32_t> mg;
    xg.SetGlobalBuffer((__gm__ float *)x, 64);
    yg.SetGlobalBuffer((__gm__ float *)y, 64);
    mg.SetGlobalBuffer((__gm__ int32_t *)m, 8);
    int32_t mode = mg.GetValue(0);
    LocalTensor<float> t = q.AllocTensor<float>();
    DataCopy(t, xg, 64);
    q.EnQue(t);
    if (mode == 1) q.EnQue(t);
    for (int r = 0; r < 3; r++) {
        LocalTensor<float> u = q.DeQue<float>();
        Adds(u, u, 1.0f, 64);
        q.EnQue(u);
    }
    LocalTensor<float> v = q.DeQue<float>();
    DataCopy(yg, v, 64);
    q.FreeTensor(v);
    if (mode == 2) q.EnQue(v);
}
extern "C" void twin_launch(uint8_t **a) { k(a[0], a[1], a[2]); }
"#,
        "building the TQue re-enqueue kernel",
    );
    let x: Vec<f32> = (0..64).map(|i| i as f32 * 0.5 - 7.0).collect();
    let mode = mode_bytes;
    let (out, y) = run_kernel(w, &[("x", bytes_f32(&x)), ("m", mode(0))], 256);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let want: Vec<f32> = x.iter().map(|v| v + 1.0 + 1.0 + 1.0).collect();
    assert_eq!(f32s(&y), want);
    let (out, _) = run_kernel(w, &[("x", bytes_f32(&x)), ("m", mode(1))], 256);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("already in the queue"),
        "{err}"
    );
    let (out, _) = run_kernel(w, &[("x", bytes_f32(&x)), ("m", mode(2))], 256);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("is free"), "{err}");
}

/// The high-level APIs of twin/adv.h against references computed here: IsFinite (float -> float and
/// float -> one-byte bool, on finite values, +-inf and NaN), SwiGLU (dst = a * b / (1 + exp(-beta * b))),
/// AscendDequant (a [4, 8] int32 input, calCount 4, a float scale tensor; and DEQUANT_WITH_SINGLE_ROW's
/// {1, 16, 8} taken as {2, 8, 8} with a scalar scale), DeepNorm (LayerNorm of alpha * x + gx over H, with
/// mean and variance per row) and the scalar GM atomics (each returns the old value); the kernel-side
/// queries fill DeepNorm's tiling from the shape; `utils/debug/asc_dump.h` prints UB and register data.
#[test]
fn isfinite_swiglu_dequant_deepnorm_atomics_and_asc_dump() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    build_kernel(
        w,
        r#"
#include "utils/debug/asc_dump.h"
#include "kernel_operator.h"
#include "tiling/tiling_api.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR y) {
    GlobalTensor<float> xg, yg;
    xg.SetGlobalBuffer((__gm__ float *)x, 512);
    yg.SetGlobalBuffer((__gm__ float *)y, 1024);
    TPipe pipe;
    TBuf<TPosition::VECCALC> ab, bb, db, tb, mb, vb;
    pipe.InitBuffer(ab, 2048); pipe.InitBuffer(bb, 2048); pipe.InitBuffer(db, 2048); pipe.InitBuffer(tb, 1024);
    pipe.InitBuffer(mb, 256); pipe.InitBuffer(vb, 256);
    LocalTensor<float> a = ab.Get<float>(), b = bb.Get<float>(), d = db.Get<float>();
    LocalTensor<uint8_t> tmp = tb.Get<uint8_t>();
    DataCopy(a, xg, 256); DataCopy(b, xg[256], 256);
    PipeBarrier<PIPE_ALL>();
    // y[0..64): IsFinite to float; y[64..80): IsFinite to bool bytes (64 bytes)
    IsFinite(d, a, 64);
    LocalTensor<int8_t> m8 = tb.Get<int8_t>();
    Duplicate(m8, (int8_t)7, 64);
    IsFinite(m8, a, 64);
    PipeBarrier<PIPE_ALL>(); DataCopy(yg, d, 64); DataCopy(yg[64], m8.ReinterpretCast<float>(), 16); PipeBarrier<PIPE_ALL>();
    // y[128..256): SwiGLU, beta 0.75, on x[64..192) and x[320..448)
    SwiGLU<float, false>(d, a[64], b[64], 0.75f, tmp, 128);
    PipeBarrier<PIPE_ALL>(); DataCopy(yg[128], d, 128); PipeBarrier<PIPE_ALL>();
    // y[256..288): AscendDequant [4, 8] int32 (x[192..224) reinterpreted), scale x[224..232), calCount 4
    Duplicate(d, -9.0f, 64);
    LocalTensor<int32_t> q = a[192].ReinterpretCast<int32_t>();
    LocalTensor<float> sc = a[224];
    sc.SetSize(8);
    AscendDequant(d, q, sc, {4, 8, 4});
    PipeBarrier<PIPE_ALL>(); DataCopy(yg[256], d, 32); PipeBarrier<PIPE_ALL>();
    // y[288..304): {1, 16, 8} with the scalar 0.5: single-row mode makes it {2, 8, 8}
    Duplicate(d, -9.0f, 64);
    AscendDequant(d, q, 0.5f, DequantParams{1, 16, 8});
    PipeBarrier<PIPE_ALL>(); DataCopy(yg[288], d, 16); PipeBarrier<PIPE_ALL>();
    // y[320..384): DeepNorm over [2, 1, 32] (x = a[0..64) where finite parts were replaced, gx = b[0..64)),
    // gamma = b[64..96), beta = b[96..128), alpha 1.5, epsilon 0.01; y[384..386) mean, y[392..394) variance
    DeepNormTiling dt;
    bool ok = GetDeepNormTilingInfo(TensorShape({2, 1, 32}), TensorShape({2, 1, 32}), 1024, 4, false, false, dt);
    LocalTensor<float> mean = mb.Get<float>(), var = vb.Get<float>();
    DeepNorm<float>(d, mean, var, a[128], b, b[96], b[64], tmp, 1.5f, 0.01f, dt);
    PipeBarrier<PIPE_ALL>(); DataCopy(yg[320], d, 64); DataCopy(yg[384], mean, 8); DataCopy(yg[392], var, 8);
    PipeBarrier<PIPE_ALL>();
    // y[400..): scalar atomics on y itself, old values recorded after them
    __gm__ uint32_t *u = (__gm__ uint32_t *)(y + 400 * 4);
    __gm__ float *f = (__gm__ float *)(y + 408 * 4);
    __gm__ int32_t *s = (__gm__ int32_t *)(y + 416 * 4);
    u[0] = 5; u[1] = 1; u[2] = 9; f[0] = 2.5f; s[0] = -3;
    uint32_t o0 = AtomicAdd(u, 3u);
    uint32_t o1 = AtomicCas(u + 1, 1u, 2u);
    uint32_t o2 = AtomicCas(u + 1, 1u, 7u);
    uint32_t o3 = AtomicExch(u + 2, 4u);
    float o4 = AtomicAdd(f, 0.25f);
    int32_t o5 = AtomicMax(s, -7);
    int32_t o6 = AtomicMin(s, -8);
    yg.SetValue(424, (float)o0); yg.SetValue(425, (float)o1); yg.SetValue(426, (float)o2);
    yg.SetValue(427, (float)o3); yg.SetValue(428, o4); yg.SetValue(429, (float)o5); yg.SetValue(430, (float)o6);
    yg.SetValue(431, ok ? (float)(dt.bLength * 10000 + dt.hLength * 10 + dt.originalHLength % 10) : -1.0f);
    uint32_t mx = 0, mn = 0;
    GetSwiGLUMaxMinTmpSize(TensorShape({100}), 2, mx, mn, false);
    yg.SetValue(432, (float)mx);
    GetAscendDequantMaxMinTmpSize(TensorShape({2, 1024}), 4, mx, mn);
    yg.SetValue(433, (float)mn);
    yg.SetValue(434, GetDeepNormTilingInfo(TensorShape({2, 1, 32}), TensorShape({2, 1, 33}), 0, 4, false, false, dt) ? 1.0f : 0.0f);
    // asc_dump of UB and of a register
    asc_dump_ubuf<float>((__ubuf__ float *)b.GetPhyAddr(), 7, 3);
    Reg::RegTensor<float> r;
    Reg::Duplicate<float>(r, 1.25f);
    asc_dump<float>(r, 9, 2);
}
extern "C" void twin_launch(uint8_t **a) { k(a[0], a[1]); }
"#,
        "building the IsFinite / SwiGLU / AscendDequant / DeepNorm / atomics kernel",
    );
    // x[0..256): a, x[256..512): b
    let mut x: Vec<f32> = (0..512)
        .map(|i| ((i * 37 % 101) as f32 - 50.0) * 0.07)
        .collect();
    x[3] = f32::INFINITY;
    x[10] = f32::NEG_INFINITY;
    x[17] = f32::NAN;
    x[40] = f32::MAX;
    x[256..259].copy_from_slice(&[1.5, -2.25, 3.0]);
    // a[192..224): 32 int32 values for dequant; a[224..232): scales
    for i in 0..32 {
        x[192 + i] = f32::from_bits(((i as i32) * 13 - 200) as u32);
    }
    for (j, s) in [0.5f32, -2.0, 0.125, 3.0, 9.0, 9.0, 9.0, 9.0]
        .iter()
        .enumerate()
    {
        x[224 + j] = *s;
    }
    let (out, y) = run_kernel(w, &[("x", bytes_f32(&x))], 1024 * 4);
    assert!(out.status.success(), "{out:?}");
    let y = f32s(&y);
    // IsFinite
    for i in 0..64 {
        let want = if x[i].is_finite() { 1.0 } else { 0.0 };
        assert_eq!(y[i], want, "IsFinite float at {i}");
    }
    let bytes: Vec<u8> = y[64..80].iter().flat_map(|v| v.to_le_bytes()).collect();
    for i in 0..64 {
        assert_eq!(bytes[i], x[i].is_finite() as u8, "IsFinite bool at {i}");
    }
    // SwiGLU
    for i in 0..128 {
        let (p, q) = (x[64 + i] as f64, x[256 + 64 + i] as f64);
        let want = p * q / (1.0 + (-0.75 * q).exp());
        assert!(
            (y[128 + i] as f64 - want).abs() <= 1e-5 * want.abs().max(1.0),
            "SwiGLU at {i}: {} vs {want}",
            y[128 + i]
        );
    }
    // AscendDequant [4, 8], calCount 4: n_dst = 8; columns 4..8 keep -9
    let q: Vec<i32> = (0..32).map(|i| i * 13 - 200).collect();
    for r in 0..4 {
        for c in 0..8 {
            let want = if c < 4 {
                q[r * 8 + c] as f32 * x[224 + c]
            } else {
                -9.0
            };
            assert_eq!(y[256 + r * 8 + c], want, "AscendDequant ({r}, {c})");
        }
    }
    for i in 0..16 {
        assert_eq!(
            y[288 + i],
            q[i] as f32 * 0.5,
            "AscendDequant single row {i}"
        );
    }
    // DeepNorm: x = a[128..192), gx = b[0..64), gamma = b[64..96), beta = b[96..128)
    for r in 0..2 {
        let x1: Vec<f64> = (0..32)
            .map(|j| 1.5 * x[128 + r * 32 + j] as f64 + x[256 + r * 32 + j] as f64)
            .collect();
        let mean = x1.iter().sum::<f64>() / 32.0;
        let var = x1.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / 32.0;
        assert!((y[384 + r] as f64 - mean).abs() < 1e-4, "DeepNorm mean {r}");
        assert!(
            (y[392 + r] as f64 - var).abs() < 1e-4 * var.max(1.0),
            "DeepNorm variance {r}"
        );
        for j in 0..32 {
            let g = x[256 + 64 + j] as f64;
            let b = x[256 + 96 + j] as f64;
            let want = g * (x1[j] - mean) / (var + 0.01).sqrt() + b;
            assert!(
                (y[320 + r * 32 + j] as f64 - want).abs() < 1e-4 * want.abs().max(1.0),
                "DeepNorm ({r}, {j}): {} vs {want}",
                y[320 + r * 32 + j]
            );
        }
    }
    // atomics: the stored results and the old values returned
    let u: Vec<u32> = y[400..403].iter().map(|v| v.to_bits()).collect();
    assert_eq!(u, [8, 2, 4]);
    assert_eq!(y[408], 2.75);
    assert_eq!(y[416].to_bits() as i32, -8);
    assert_eq!(&y[424..431], &[5.0, 1.0, 2.0, 9.0, 2.5, -3.0, -3.0]);
    // DeepNorm tiling: b 2, h 32, originalH 32; the tmp sizes: one tile rounded to 32 bytes
    assert_eq!(y[431], 20322.0);
    assert_eq!(y[432], 224.0);
    assert_eq!(y[433], 8192.0);
    assert_eq!(y[434], 0.0, "originH past H is refused");
    // the kernel's printf stream is its stderr
    let printed = String::from_utf8_lossy(&out.stderr);
    assert!(
        printed.contains("asc_dump desc=7 position=UB dtype=float size=3\n1.5 -2.25 3\n"),
        "{printed}"
    );
    assert!(
        printed.contains("asc_dump desc=9 position=Reg dtype=float size=2\n1.25 1.25\n"),
        "{printed}"
    );
}

/// SoftMax (ND) against a reference computed here: rows of [3, 16] floats with softmaxShapeInfo's
/// oriSrcK 13 (max and sum over the first 13 columns, written to every element of a 32-byte block per
/// row), and the form without sum / max taking its shape from the tiling SoftMaxTilingFunc fills; then
/// SelectWithBytesMask on [2, 16] with a [2, 32] byte mask (the scalar where the mask is set, the tensor
/// first), and the scalar-first Select.
#[test]
fn softmax_with_its_tiling_and_select_with_bytes_mask() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    build_kernel(
        w,
        r#"
#include "kernel_operator.h"
#include "tiling/tiling_api.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR y) {
    GlobalTensor<float> xg, yg;
    xg.SetGlobalBuffer((__gm__ float *)x, 64);
    yg.SetGlobalBuffer((__gm__ float *)y, 256);
    TPipe pipe;
    TBuf<TPosition::VECCALC> ab, db, sb, mb, tb, kb;
    pipe.InitBuffer(ab, 256); pipe.InitBuffer(db, 256); pipe.InitBuffer(sb, 128); pipe.InitBuffer(mb, 128);
    pipe.InitBuffer(tb, 1024); pipe.InitBuffer(kb, 64);
    LocalTensor<float> a = ab.Get<float>(), d = db.Get<float>(), s = sb.Get<float>(), m = mb.Get<float>();
    LocalTensor<uint8_t> tmp = tb.Get<uint8_t>();
    DataCopy(a, xg, 64);
    PipeBarrier<PIPE_ALL>();
    SoftMaxTiling t;
    SoftMaxTilingFunc(TensorShape({3, 16}), 4, GetSoftMaxMinTmpSize(TensorShape({3, 16}), 4, false), t);
    SoftMax<float>(d, s, m, a, tmp, t, SoftMaxShapeInfo{3, 16, 3, 13});
    PipeBarrier<PIPE_ALL>(); DataCopy(yg, d, 48); DataCopy(yg[48], s, 24); DataCopy(yg[72], m, 24); PipeBarrier<PIPE_ALL>();
    SoftMax<float, false, false>(d, a, tmp, t);
    PipeBarrier<PIPE_ALL>(); DataCopy(yg[96], d, 48); PipeBarrier<PIPE_ALL>();
    // mask [2, 32] bytes: element (r, j) set when (j + r) % 3 == 0; columns 16..32 ignored
    LocalTensor<uint8_t> mk = kb.Get<uint8_t>();
    for (int r = 0; r < 2; r++)
        for (int j = 0; j < 32; j++) mk.SetValue(r * 32 + j, (uint8_t)((j + r) % 3 == 0 ? (j < 16 ? 1 + j : 0) : 0));
    SelectWithBytesMaskShapeInfo info;
    info.firstAxis = 2; info.srcLastAxis = 16; info.maskLastAxis = 32;
    SelectWithBytesMask(d, a, -100.0f, mk, tmp, info);
    PipeBarrier<PIPE_ALL>(); DataCopy(yg[144], d, 32); PipeBarrier<PIPE_ALL>();
    Select(d, 7.0f, a, mk, tmp, info);
    PipeBarrier<PIPE_ALL>(); DataCopy(yg[176], d, 32); PipeBarrier<PIPE_ALL>();
    yg.SetValue(208, (float)t.srcM); yg.SetValue(209, (float)t.srcK); yg.SetValue(210, (float)t.outMaxK);
}
extern "C" void twin_launch(uint8_t **a) { k(a[0], a[1]); }
"#,
        "building the SoftMax / SelectWithBytesMask kernel",
    );
    let x: Vec<f32> = (0..64)
        .map(|i| ((i * 29 % 43) as f32 - 21.0) * 0.3)
        .collect();
    let (out, y) = run_kernel(w, &[("x", bytes_f32(&x))], 256 * 4);
    assert!(out.status.success(), "{out:?}");
    let y = f32s(&y);
    let close = |got: f32, want: f64, what: &str| {
        assert!(
            (got as f64 - want).abs() <= 1e-6 + 1e-5 * want.abs(),
            "{what}: {got} vs {want}"
        );
    };
    for (valid, base, stats) in [(13usize, 0usize, true), (16, 96, false)] {
        for r in 0..3 {
            let row: Vec<f64> = x[r * 16..r * 16 + 16].iter().map(|v| *v as f64).collect();
            let mx = row[..valid].iter().cloned().fold(f64::MIN, f64::max);
            let sum: f64 = row[..valid].iter().map(|v| (v - mx).exp()).sum();
            for j in 0..16 {
                close(
                    y[base + r * 16 + j],
                    (row[j] - mx).exp() / sum,
                    &format!("SoftMax valid {valid} ({r}, {j})"),
                );
            }
            if stats {
                for j in 0..8 {
                    close(y[48 + r * 8 + j], sum, "SoftMax sum");
                    close(y[72 + r * 8 + j], mx, "SoftMax max");
                }
            }
        }
    }
    for r in 0..2 {
        for j in 0..16 {
            let set = (j + r) % 3 == 0;
            let v = x[r * 16 + j];
            assert_eq!(
                y[144 + r * 16 + j],
                if set { -100.0 } else { v },
                "Select ({r}, {j})"
            );
            assert_eq!(
                y[176 + r * 16 + j],
                if set { v } else { 7.0 },
                "Select scalar first ({r}, {j})"
            );
        }
    }
    assert_eq!(&y[208..211], &[3.0, 16.0, 8.0]);
}

/// On the custom-op host side, an operator's tiling data holds SoftMaxTiling with
/// TILING_DATA_FIELD_DEF_STRUCT inside namespace optiling and fills it with SoftMaxTilingFunc (ops-nn's
/// scaled_masked_softmax_v2 does); the scratch queries answer one tile of the input rounded up to 32 bytes;
/// optiling::DeepNormTiling takes GetDeepNormTilingInfo's shape, with the unpadded H.
#[test]
fn host_softmax_and_deepnorm_tilings_fill_from_the_shape() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("softmax_tiling.cpp");
    std::fs::write(
        &src,
        r#"
#include <cstdio>
#include "register/tilingdata_base.h"
#include "tiling/tiling_api.h"
namespace optiling {
BEGIN_TILING_DATA_DEF(TwinSoftmaxOpTiling)
TILING_DATA_FIELD_DEF(uint64_t, width);
TILING_DATA_FIELD_DEF_STRUCT(SoftMaxTiling, softmaxTilingData);
END_TILING_DATA_DEF;
} // namespace optiling
int main() {
    optiling::TwinSoftmaxOpTiling t;
    auto shape = ge::Shape({static_cast<int64_t>(5), static_cast<int64_t>(24)});
    auto size = AscendC::GetSoftMaxMaxTmpSize(shape, 4, false);
    AscendC::SoftMaxTilingFunc(shape, 4, size, t.softmaxTilingData);
    optiling::DeepNormTiling dn;
    bool ok = AscendC::GetDeepNormTilingInfo(ge::Shape({2, 3, 16}), ge::Shape({2, 3, 10}), 0, 4, false, false, dn);
    bool bad = AscendC::GetDeepNormTilingInfo(ge::Shape({2, 3, 12}), ge::Shape({2, 3, 10}), 0, 4, false, false, dn);
    uint32_t mx = 0, mn = 0;
    AscendC::GetSwiGLUMaxMinTmpSize(ge::Shape({100}), 2, mx, mn, false);
    std::printf("%u %u %u %u %u %d %d %u %u %u %u\n", size, t.softmaxTilingData.srcM, t.softmaxTilingData.srcK,
                t.softmaxTilingData.outMaxK, t.softmaxTilingData.outMaxSize, (int)ok, (int)bad, dn.originalHLength,
                dn.inputXSize, mx, mn);
    return 0;
}
"#,
    )
    .unwrap();
    let out = run_host_program(&src, "building the SoftMax / DeepNorm host tiling check");
    // 5 x 24 floats = 480 bytes; srcM 5, srcK 24, 8 floats per max/sum block, 40 of them; DeepNorm over
    // [2, 3, 16] with H 10 unpadded (a row of 12 floats is not 32-byte aligned: refused, tiling kept);
    // SwiGLU's 100 halves round up to 224 bytes.
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "480 5 24 8 40 1 0 10 96 224 224\n"
    );
}

/// The C API's register gather (register source: index wrapping at the lane count; UB source: the
/// masked-off lanes 0, a b8 source zero-extended into b16), squeeze (active lanes packed low, the rest 0)
/// and the frequency histograms (counts added to dst, values 0..127 in bin0, 128..255 in bin1), and the
/// C++ register API's unaligned load / store and ReduceDataBlock (per 32-byte block), against references
/// computed here.
#[test]
fn c_api_gather_squeeze_histogram_and_reg_unaligned_copies() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    build_kernel(
        w,
        r#"
#include "kernel_operator.h"
#include "c_api/asc_simd.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR y) {
    GlobalTensor<uint8_t> xg, yg;
    xg.SetGlobalBuffer((__gm__ uint8_t *)x, 1024);
    yg.SetGlobalBuffer((__gm__ uint8_t *)y, 4096);
    TPipe pipe;
    TBuf<TPosition::VECCALC> ib, ob;
    pipe.InitBuffer(ib, 1024); pipe.InitBuffer(ob, 4096);
    LocalTensor<uint8_t> in = ib.Get<uint8_t>(), o = ob.Get<uint8_t>();
    DataCopy(in, xg, 1024);
    Duplicate(o.ReinterpretCast<uint32_t>(), 0u, 1024);
    PipeBarrier<PIPE_ALL>();
    uint8_t *ub = (uint8_t *)(uintptr_t)in.GetPhyAddr();
    uint8_t *out = (uint8_t *)(uintptr_t)o.GetPhyAddr();
    vector_bool all16 = asc_create_mask_b16(PAT_ALL), all32 = asc_create_mask_b32(PAT_ALL), all8 = asc_create_mask_b8(PAT_ALL);
    // out[0..256): register gather of x[0..256) as uint16 by the index x[256..512) (uint16)
    vector_uint16_t src, idx, g;
    asc_loadalign(src, (uint16_t *)ub);
    asc_loadalign(idx, (uint16_t *)(ub + 256));
    asc_gather(g, src, idx);
    asc_storealign((uint16_t *)out, g, all16);
    // out[256..512): UB gather of uint8 x[0..) by index % 200 into uint16, first 100 lanes
    uint32_t n = 100;
    vector_bool m100 = asc_update_mask_b16(n);
    vector_uint16_t g8;
    asc_gather(g8, (uint8_t *)ub, idx, m100);
    asc_storealign((uint16_t *)(out + 256), g8, all16);
    // out[512..768): squeeze of x[512..768) as float with PAT_M4 ... use every lane whose value's low bit is 1
    vector_float f, sq;
    asc_loadalign(f, (float *)(ub + 512));
    vector_int32_t bits;
    asc_loadalign(bits, (int32_t *)(ub + 512));
    vector_bool odd;
    vector_int32_t one;
    asc_duplicate_scalar(one, 1);
    vector_int32_t lowbit;
    AscendC::Reg::And(lowbit, bits, one, all32);
    asc_eq(odd, lowbit, one, all32);
    asc_squeeze(sq, f, odd);
    asc_storealign((float *)(out + 512), sq, all32);
    // out[768..1024): histograms of x[0..256) bytes, bin0 then bin1, added to 5
    vector_uint8_t b;
    asc_loadalign(b, (uint8_t *)ub);
    vector_uint16_t h0, h1;
    asc_duplicate_scalar(h0, 5);
    asc_duplicate_scalar(h1, 5);
    uint32_t n200 = 200;
    vector_bool m200 = asc_update_mask_b8(n200);
    asc_frequency_histogram_bin0(h0, b, m200);
    asc_frequency_histogram_bin1(h1, b, m200);
    asc_storealign((uint16_t *)(out + 768), h0, all16);
    asc_storealign((uint16_t *)(out + 1024), h1, all16);
    // out[1280..): unaligned copy of x[4..4 + 2 * 60) floats... as 2 x 60 floats from byte 4 to byte 1280 + 8
    {
        __ubuf__ float *s = (__ubuf__ float *)(ub + 4);
        __ubuf__ float *d = (__ubuf__ float *)(out + 1280 + 8);
        Reg::RegTensor<float> r;
        Reg::UnalignRegForLoad ul;
        // the store's register by its other name (simulation-based-vf-profiling's `UnalignReg`)
        Reg::UnalignReg us;
        Reg::LoadUnAlignPre(ul, s);
        for (int i = 0; i < 2; i++) {
            Reg::LoadUnAlign(r, ul, s, 60);
            Reg::StoreUnAlign(d, r, us, 60);
        }
        Reg::StoreUnAlignPost(d, us, 0);
    }
    // out[1792..): ReduceDataBlock MAX and SUM of x[0..256) as float, first 50 lanes
    {
        Reg::RegTensor<float> r, mx, sm;
        Reg::LoadAlign(r, (__ubuf__ float *)ub);
        uint32_t n50 = 50;
        Reg::MaskReg m50 = Reg::UpdateMask<float>(n50);
        Reg::ReduceDataBlock<Reg::ReduceType::MAX>(mx, r, m50);
        Reg::ReduceDataBlock<Reg::ReduceType::SUM>(sm, r, m50);
        Reg::MaskReg a = Reg::CreateMask<float, Reg::MaskPattern::ALL>();
        Reg::StoreAlign((__ubuf__ float *)(out + 1792), mx, a);
        Reg::StoreAlign((__ubuf__ float *)(out + 2048), sm, a);
    }
    PipeBarrier<PIPE_ALL>();
    DataCopy(yg, o, 4096);
}
extern "C" void twin_launch(uint8_t **a) { k(a[0], a[1]); }
"#,
        "building the C API gather / squeeze / histogram and Reg unaligned copy kernel",
    );
    let mut x = vec![0u8; 1024];
    for (i, v) in x.iter_mut().enumerate() {
        *v = ((i * 73 + 11) % 251) as u8;
    }
    // indices at bytes 256..512: uint16, some past the 128 lanes
    for i in 0..128 {
        let idx = ((i * 37 + 5) % 300) as u16;
        x[256 + 2 * i..258 + 2 * i].copy_from_slice(&idx.to_le_bytes());
    }
    // floats at 512..768: small integers, so their bit patterns' low bits vary and are exact
    for i in 0..64 {
        let f = (i as f32) * 0.5 - 7.0;
        x[512 + 4 * i..516 + 4 * i].copy_from_slice(&f.to_le_bytes());
    }
    let (out, y) = run_kernel(w, &[("x", x.clone())], 4096);
    assert!(out.status.success(), "{out:?}");
    let u16at = |b: &[u8], i: usize| u16::from_le_bytes([b[2 * i], b[2 * i + 1]]);
    let f32at = |b: &[u8], i: usize| {
        f32::from_le_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]])
    };
    let src16: Vec<u16> = (0..128).map(|i| u16at(&x, i)).collect();
    let idx: Vec<u16> = (0..128).map(|i| u16at(&x[256..], i)).collect();
    for i in 0..128 {
        assert_eq!(
            u16at(&y, i),
            src16[idx[i] as usize % 128],
            "gather (register) {i}"
        );
        let want = if i < 100 {
            x[idx[i] as usize] as u16
        } else {
            0
        };
        assert_eq!(u16at(&y[256..], i), want, "gather (UB, b8 into b16) {i}");
    }
    let fl: Vec<f32> = (0..64).map(|i| f32at(&x[512..], i)).collect();
    let mut packed: Vec<f32> = fl
        .iter()
        .cloned()
        .filter(|f| f.to_bits() & 1 == 1)
        .collect();
    packed.resize(64, 0.0);
    for (i, want) in packed.iter().enumerate() {
        assert_eq!(f32at(&y[512..], i).to_bits(), want.to_bits(), "squeeze {i}");
    }
    for v in 0..128 {
        let c0 = x[..200].iter().filter(|b| **b as usize == v).count() as u16;
        let c1 = x[..200].iter().filter(|b| **b as usize == v + 128).count() as u16;
        assert_eq!(u16at(&y[768..], v), 5 + c0, "histogram bin0 value {v}");
        assert_eq!(u16at(&y[1024..], v), 5 + c1, "histogram bin1 value {v}");
    }
    // unaligned copy: 120 floats from byte 4 to byte 1288; bytes 1280..1288 stay 0
    assert_eq!(&y[1280..1288], &[0u8; 8]);
    assert_eq!(&y[1288..1288 + 480], &x[4..484]);
    assert_eq!(&y[1288 + 480..1288 + 484], &[0u8; 4]);
    let xf: Vec<f32> = (0..64).map(|i| f32at(&x, i)).collect();
    for b in 0..8 {
        let blk: Vec<f32> = (b * 8..b * 8 + 8)
            .filter(|i| *i < 50)
            .map(|i| xf[i])
            .collect();
        let mx = if blk.is_empty() {
            0.0
        } else {
            blk.iter().cloned().fold(f32::MIN, f32::max)
        };
        let mut lanes: Vec<f32> = (b * 8..b * 8 + 8)
            .map(|i| if i < 50 { xf[i] } else { 0.0 })
            .collect();
        while lanes.len() > 1 {
            lanes = lanes.chunks(2).map(|p| p[0] + p[1]).collect();
        }
        assert_eq!(
            f32at(&y[1792..], b).to_bits(),
            mx.to_bits(),
            "ReduceDataBlock MAX {b}"
        );
        assert_eq!(
            f32at(&y[2048..], b).to_bits(),
            lanes[0].to_bits(),
            "ReduceDataBlock SUM {b}"
        );
    }
    for i in 8..64 {
        assert_eq!(f32at(&y[1792..], i), 0.0);
        assert_eq!(f32at(&y[2048..], i), 0.0);
    }
}

/// GetAccVal / GetReduceRepeatSumSpr (asc-devkit docs, GetReduceRepeatSumSpr(ISASI): the sum the last
/// count-form ReduceSum left in the accumulator; the untyped GetAccVal() hands out the register with the
/// value's bits in its low bytes) and AscendCUtils' mask helpers (asc-devkit
/// impl/basic_api/kernel_utils_base.h: SetMask<T>(len) turns on the low len lanes, len 64 the low word,
/// one block's elements or >= 128 every lane; SetMask<T>(high, low) writes the register), read through
/// WholeReduceSum<T, false> as ops-nn's rms_norm kernels do. Inputs are small integers, so every sum is
/// exact whatever the order of additions; the reference sums are computed here.
#[test]
fn get_acc_val_and_ascendc_utils_masks_match_references() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    build_kernel(
        w,
        r#"
#include "kernel_operator.h"
#include "impl/dav_c220/kernel_operator_reg_others_impl.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR xh, GM_ADDR y) {
    GlobalTensor<float> xg, yg;
    GlobalTensor<half> hg;
    xg.SetGlobalBuffer((__gm__ float *)x, 256);
    hg.SetGlobalBuffer((__gm__ half *)xh, 256);
    yg.SetGlobalBuffer((__gm__ float *)y, 32);
    TPipe pipe;
    TBuf<TPosition::VECCALC> ab, hb, db, tb;
    pipe.InitBuffer(ab, 1024); pipe.InitBuffer(hb, 512); pipe.InitBuffer(db, 1024); pipe.InitBuffer(tb, 1024);
    LocalTensor<float> a = ab.Get<float>(), d = db.Get<float>(), t = tb.Get<float>();
    LocalTensor<half> h = hb.Get<half>(), dh = db.Get<half>(), th = tb.Get<half>();
    DataCopy(a, xg, 256);
    DataCopy(h, hg, 256);
    PipeBarrier<PIPE_ALL>();
    float out[32];
    for (int i = 0; i < 32; i++) out[i] = -1000.0f;
    int64_t before = GetAccVal();
    out[0] = (float)before;
    ReduceSum(d, a, t, 200);
    out[1] = GetAccVal<float>();
    uint64_t raw = GetAccVal();
    out[2] = *reinterpret_cast<float *>(&raw);
    out[3] = (float)(raw >> 32);
    out[4] = GetReduceRepeatSumSpr<float>();
    out[5] = d.GetValue(0);
    const int32_t lens[4] = {5, 64, 8, 30};
    for (int i = 0; i < 4; i++) {
        Duplicate(d, -7.0f, 64);
        AscendCUtils::SetMask<float>(lens[i]);
        WholeReduceSum<float, false>(d, a, MASK_PLACEHOLDER, 1, 1, 1, 8);
        out[6 + i] = d.GetValue(0);
    }
    AscendCUtils::SetMask<float>(0, 0xF0F0ull);
    WholeReduceSum<float, false>(d, a, MASK_PLACEHOLDER, 1, 1, 1, 8);
    out[10] = d.GetValue(0);
    AscendCUtils::ResetMask();
    WholeReduceSum<float, false>(d, a[64], MASK_PLACEHOLDER, 1, 1, 1, 8);
    out[11] = d.GetValue(0);
    ReduceSum(dh, h, th, 100);
    out[12] = (float)GetAccVal<half>();
    out[13] = (float)GetReduceRepeatSumSpr<half>();
    AscendCUtils::SetMask<half>(100);
    WholeReduceSum<half, false>(dh, h, MASK_PLACEHOLDER, 1, 1, 1, 8);
    out[14] = (float)dh.GetValue(0);
    AscendCUtils::SetMask<half>(16);
    WholeReduceSum<half, false>(dh, h, MASK_PLACEHOLDER, 1, 1, 1, 8);
    out[15] = (float)dh.GetValue(0);
    out[16] = (float)AscendCUtils::GetC0Count(2);
    out[17] = (float)AscendCUtils::GetC0Count(4);
    out[18] = (float)AscendCUtils::GetBitSize(1);
    AscendCUtils::SetMask<float, false>(3);
    WholeReduceSum<float, false>(d, a, MASK_PLACEHOLDER, 1, 1, 1, 8);
    out[19] = d.GetValue(0);
    out[20] = (float)ONE_BLK_FLOAT_NUM;
    out[21] = (float)ONE_BLK_HALF_NUM;
    out[22] = (float)FLOAT_REPEAT_SIZE;
    out[23] = (float)MAX_REPEAT_HALF_SIZE;
    for (int i = 0; i < 32; i++) yg.SetValue(i, out[i]);
}
extern "C" void twin_launch(uint8_t **a) { k(a[0], a[1], a[2]); }
"#,
        "building the GetAccVal / AscendCUtils kernel",
    );
    // Sums of the lane sets below all differ (203, 5, 63, 33, 2, 68; halves 100, 126) and none is 0.
    let x: Vec<f32> = (0..256).map(|i| ((i * 5 + 3) % 9) as f32 - 3.0).collect();
    let xh: Vec<f32> = (0..256).map(|i| ((i * 7 + 1) % 5) as f32 - 1.0).collect();
    let hbytes: Vec<u8> = xh
        .iter()
        .flat_map(|v| f16::from_f32(*v).to_le_bytes())
        .collect();
    let (out, y) = run_kernel(w, &[("x", bytes_f32(&x)), ("xh", hbytes)], 32 * 4);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let y = f32s(&y);
    let sum =
        |v: &[f32], lanes: &mut dyn Iterator<Item = usize>| -> f32 { lanes.map(|i| v[i]).sum() };
    let s200 = sum(&x, &mut (0..200));
    assert_eq!(y[0], 0.0, "the accumulator before any ReduceSum");
    assert_eq!(y[1], s200, "GetAccVal<float> after ReduceSum of 200");
    assert_eq!(y[2], s200, "untyped GetAccVal, low 4 bytes as float");
    assert_eq!(y[3], 0.0, "untyped GetAccVal, high 4 bytes");
    assert_eq!(y[4], s200, "GetReduceRepeatSumSpr<float>");
    assert_eq!(y[5], s200, "ReduceSum's dst[0]");
    assert_eq!(y[6], sum(&x, &mut (0..5)), "SetMask<float>(5)");
    assert_eq!(y[7], sum(&x, &mut (0..64)), "SetMask<float>(64)");
    assert_eq!(
        y[8],
        sum(&x, &mut (0..64)),
        "SetMask<float>(8): one block = every lane"
    );
    assert_eq!(y[9], sum(&x, &mut (0..30)), "SetMask<float>(30)");
    assert_eq!(
        y[10],
        sum(&x, &mut (0..16).filter(|i| (0xF0F0u64 >> i) & 1 == 1)),
        "SetMask<float>(0, 0xF0F0)"
    );
    assert_eq!(y[11], sum(&x, &mut (64..128)), "ResetMask: every lane");
    let h100 = sum(&xh, &mut (0..100));
    assert_eq!(y[12], h100, "GetAccVal<half> after ReduceSum of 100 halves");
    assert_eq!(y[13], h100, "GetReduceRepeatSumSpr<half>");
    assert_eq!(
        y[14], h100,
        "SetMask<half>(100): lanes 0..100 over both words"
    );
    assert_eq!(
        y[15],
        sum(&xh, &mut (0..128)),
        "SetMask<half>(16): every lane"
    );
    assert_eq!(
        &y[16..19],
        &[16.0, 8.0, 8.0],
        "GetC0Count(2), GetC0Count(4), GetBitSize(1)"
    );
    assert_eq!(
        y[19],
        sum(&x, &mut (0..64)),
        "SetMask<float, false>(3) leaves the full mask of SetMask<half>(16)"
    );
    // The library's element counts (kernel_utils_constants.h): a 32-byte block, a 256-byte repeat.
    let counts = [32 / 4, 32 / 2, 256 / 4, 256 / 2 * 255].map(|v: i32| v as f32);
    assert_eq!(
        &y[20..24],
        &counts,
        "ONE_BLK_FLOAT/HALF_NUM, FLOAT_REPEAT_SIZE, MAX_REPEAT_HALF_SIZE"
    );
}

/// CANN's `platform/platform_info_def.h` (reached through `platform/platform_infos_def.h`) declares
/// `using std::map`, `std::string` and `std::vector` at global scope, and ops-nn host code writes those
/// names unqualified (quant/dynamic_quant's tiling: `static map<const ge::DataType, const uint32_t>`;
/// norm/quantized_batch_norm's tiling header: `string nodeName;`). A host program that does the same
/// builds against the twin and computes what the reference here computes.
#[test]
fn platform_infos_def_brings_map_string_vector_into_scope() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("names.cpp");
    std::fs::write(
        &src,
        r#"
#include <cstdio>
#include "platform/platform_infos_def.h"
#include "tiling/platform/platform_ascendc.h"
namespace optiling {
static map<int, const unsigned> g_len = {{3, 4u}, {9, 8u}};
struct Info { string nodeName; vector<int> dims; };
}
int main() {
    optiling::Info i{"quantized_batch_norm", {2, 5, 7}};
    int prod = 1;
    for (int d : i.dims) prod *= d;
    std::printf("%zu %u %u %d\n", i.nodeName.size(), optiling::g_len.at(3), optiling::g_len.at(9), prod);
    // The NpuArch names ops-nn's dynamic_quant tiling compares with (the __NPU_ARCH__ numbers).
    std::printf("%u %u\n", (unsigned)platform_ascendc::NpuArch::DAV_3003, (unsigned)platform_ascendc::NpuArch::DAV_3113);
    // A graph status code (metadef error_codes.h) rms_norm_quant's tiling returns.
    std::printf("%u\n", (unsigned)ge::GRAPH_PARAM_OUT_OF_RANGE);
    return 0;
}
"#,
    )
    .unwrap();
    let out = run_host_program(
        &src,
        "building a host program that names map / string / vector bare",
    );
    let want = format!(
        "{} 4 8 {}\n3003 3113\n50331644\n",
        "quantized_batch_norm".len(),
        2 * 5 * 7
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), want);
}

/// get_para_base (the kernel's parameter area; CANN's GetParaBase wrapper,
/// impl/basic_api/dav_c220/kernel_operator_reg_others_impl.h): one 8-byte slot per kernel argument in
/// the kernel's order, then the tiling data inline, as ops-math's experimental/math/gcd reads it
/// (tensors from slots 0..2, its tiling from slot 5 of a five-argument kernel). The kernel compares each
/// slot with the argument it was passed, reads the inline tiling and the input through slot 0.
#[test]
fn get_para_base_lays_out_arguments_then_inline_tiling() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    build_kernel(
        w,
        r#"
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR y, GM_ADDR ws, GM_ADDR tiling) {
    GM_ADDR *p = reinterpret_cast<GM_ADDR *>(get_para_base());
    const uint32_t *inl = reinterpret_cast<const uint32_t *>(p + 4);
    uint32_t out[8];
    out[0] = p[0] == x; out[1] = p[1] == y; out[2] = p[2] == ws; out[3] = p[3] == tiling;
    out[4] = inl[0]; out[5] = inl[1];
    out[6] = *reinterpret_cast<const uint32_t *>(p[0]);
    out[7] = GetParaBase() == get_para_base();
    GlobalTensor<uint32_t> yg;
    yg.SetGlobalBuffer((__gm__ uint32_t *)y, 8);
    for (int i = 0; i < 8; i++) yg.SetValue(i, out[i]);
}
extern "C" void twin_launch(uint8_t **a) { k(a[0], a[1], a[2], a[3]); }
"#,
        "building the get_para_base kernel",
    );
    let tiling: Vec<u8> = [7u32, 11u32].iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(w.join("t.bin"), &tiling).unwrap();
    std::fs::write(w.join("x.bin"), 3.5f32.to_le_bytes()).unwrap();
    let run = format!(
        "block_dim 1\nub_bytes 196352\ntiling {}\nworkspace 64\ninput x {} 4\noutput y {} 32\n",
        w.join("t.bin").display(),
        w.join("x.bin").display(),
        w.join("y.bin").display()
    );
    std::fs::write(w.join("run.txt"), run).unwrap();
    let out = Command::new(w.join("kernel"))
        .arg(w.join("run.txt"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let y = std::fs::read(w.join("y.bin")).unwrap();
    let got: Vec<u32> = y
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    assert_eq!(got, [1, 1, 1, 1, 7, 11, 3.5f32.to_bits(), 1]);
}

/// optiling::OpCheckFuncHelper and OpAICoreDef's check functions (CANN OpDef API, register/op_def.h):
/// ops-nn's norm/bn3d_training_reduce registers its CheckSupport with
/// `optiling::OpCheckFuncHelper(FUNC_CHECK_SUPPORTED, "BN3DTrainingReduce", f)`; index/masked_scatter
/// passes `opDef.AICore().GetCheckSupport()`. The twin keeps what is registered per check type and op
/// type; calling the kept function gives what the function itself gives.
#[test]
fn op_check_func_helper_keeps_the_registered_check() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("check.cpp");
    std::fs::write(
        &src,
        r#"
#include <cstdio>
#include "register/op_def_registry.h"
static ge::graphStatus Check(const ge::Operator &op, ge::AscendString &result) {
    result = ge::AscendString(op.GetOpType().c_str());
    return ge::GRAPH_SUCCESS;
}
static ge::graphStatus Other(const ge::Operator &, ge::AscendString &result) {
    result = ge::AscendString("other");
    return ge::GRAPH_FAILED;
}
namespace ops {
static int registered = []() {
    optiling::OpCheckFuncHelper(FUNC_CHECK_SUPPORTED, "Bn3d", Check);
    return 0;
}();
}
int main() {
    ops::OpAICoreDef core;
    core.SetCheckSupport(Other);
    optiling::OpCheckFuncHelper(FUNC_OP_SELECT_FORMAT, "Masked", core.GetCheckSupport());
    optiling::OpCheckFuncHelper(FUNC_CHECK_SUPPORTED, "Null", core.GetOpSelectFormat());
    auto &m = twin_host::op_check_funcs();
    ge::Operator op("n", "Bn3dType");
    ge::AscendString r1, r2;
    unsigned s1 = m.at("check_supported").at("Bn3d")(op, r1);
    unsigned s2 = m.at("op_select_format").at("Masked")(op, r2);
    std::printf("%u %s %u %s %zu %d\n", s1, r1.GetString(), s2, r2.GetString(), m.at("check_supported").size(),
                core.GetCheckSupport() == &Other);
    return 0;
}
"#,
    )
    .unwrap();
    let out = run_host_program(
        &src,
        "building a host program that registers check functions",
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("0 Bn3dType {} other 1 1\n", u32::MAX)
    );
}

/// The scalar Cast overloads (asc-devkit include/basic_api/kernel_operator_scalar_intf.h, the newer
/// names of ToFloat / ToBfloat16): `float Cast(bfloat16_t)` widens exactly, `bfloat16_t Cast(float)`
/// rounds to nearest even; the reference is the `half` crate's bf16.
#[test]
fn scalar_cast_between_float_and_bfloat16_matches_bf16() {
    use half::bf16;
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    build_kernel(
        w,
        r#"
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR y) {
    GlobalTensor<float> xg, yg;
    xg.SetGlobalBuffer((__gm__ float *)x, 6);
    yg.SetGlobalBuffer((__gm__ float *)y, 6);
    for (int i = 0; i < 6; i++) {
        bfloat16_t b = Cast(xg.GetValue(i));
        float back = Cast(b);
        yg.SetValue(i, back);
    }
}
extern "C" void twin_launch(uint8_t **a) { k(a[0], a[1]); }
"#,
        "building the scalar Cast kernel",
    );
    let x = [3.140625f32, 1.003_906_3, 1.011_718_8, -2.5, 65504.0, 1e-3];
    let (out, y) = run_kernel(w, &[("x", bytes_f32(&x))], 6 * 4);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let want: Vec<f32> = x.iter().map(|v| bf16::from_f32(*v).to_f32()).collect();
    assert_eq!(f32s(&y), want);
}

/// The operator-base reporters ops-nn host code calls (CANN opbase include/op_common/log/log.h):
/// quant/dynamic_quant's tiling stopped at OP_LOGE_FOR_INVALID_VALUES_WITH_REASON; each prints one
/// error line with the op name, what is wrong and the strings it was given.
#[test]
fn opbase_reporters_print_the_op_and_their_strings() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("reporters.cpp");
    std::fs::write(
        &src,
        r#"
#include <string>
#include "log/log.h"
int main() {
    OP_LOGE_FOR_INVALID_VALUES_WITH_REASON("Dq", "smooth_scales, group_index",
                                           std::to_string(3) + ", " + std::to_string(4), "must be equal");
    OP_LOGE_FOR_INVALID_STRIDE("Dq", "x", "3", "4");
    OP_LOGE_LIBOPAPI_REPORT("Dq", "bad %d", 5);
    return 0;
}
"#,
    )
    .unwrap();
    let out = run_host_program(
        &src,
        "building a host program that calls the opbase reporters",
    );
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<&str> = all.lines().collect();
    assert_eq!(lines.len(), 3, "{all}");
    assert!(
        lines[0].starts_with("[error] Dq (")
            && lines[0]
                .ends_with("invalid values: smooth_scales, group_index: 3, 4: must be equal"),
        "{all}"
    );
    assert!(lines[1].ends_with("invalid stride: x: 3: 4"), "{all}");
    assert!(lines[2].ends_with("bad 5"), "{all}");
}

/// TPipe copies (ops-nn add_layer_norm_grad: a class member `TPipe pipe_;` assigned `pipe_ = pipe;`,
/// then pipe_.InitBuffer): as in CANN, where TPipe has the implicit copy operations, the copy carves
/// buffers that work and does not change the current pipe (GetTPipePtr names the last pipe
/// constructed, here the member). The kernel doubles x through a queue and a buffer carved through the
/// copy and adds 1 when GetTPipePtr names the member and 10 when the two buffers differ.
#[test]
fn a_copied_tpipe_carves_working_buffers() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    build_kernel(
        w,
        r#"
#include "kernel_operator.h"
using namespace AscendC;
class Holder {
public:
    void init(TPipe &pipe) {
        pipe_ = pipe;
        pipe_.InitBuffer(q_, 1, 256);
        pipe_.InitBuffer(b_, 256);
    }
    TPipe pipe_;
    TQue<TPosition::VECIN, 1> q_;
    TBuf<TPosition::VECCALC> b_;
};
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR y) {
    TPipe pipe;
    GlobalTensor<float> xg, yg;
    xg.SetGlobalBuffer((__gm__ float *)x, 64);
    yg.SetGlobalBuffer((__gm__ float *)y, 64);
    Holder h;
    h.init(pipe);
    LocalTensor<float> a = h.q_.AllocTensor<float>();
    LocalTensor<float> t = h.b_.Get<float>();
    DataCopy(a, xg, 64);
    h.q_.EnQue(a);
    LocalTensor<float> a2 = h.q_.DeQue<float>();
    Muls(t, a2, 2.0f, 64);
    PipeBarrier<PIPE_V>();
    Adds(t, t, (float)(GetTPipePtr() == &h.pipe_) + (float)(a2.GetPhyAddr() != t.GetPhyAddr()) * 10.0f, 64);
    PipeBarrier<PIPE_ALL>();
    DataCopy(yg, t, 64);
    h.q_.FreeTensor(a2);
}
extern "C" void twin_launch(uint8_t **a) { k(a[0], a[1]); }
"#,
        "building the TPipe copy kernel",
    );
    let x: Vec<f32> = (0..64).map(|i| i as f32 * 0.5 - 3.0).collect();
    let (out, y) = run_kernel(w, &[("x", bytes_f32(&x))], 64 * 4);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let want: Vec<f32> = x.iter().map(|v| v * 2.0 + 11.0).collect();
    assert_eq!(f32s(&y), want);
}

/// A UB tensor's GetPhyAddr() carries its UB byte address in its low 32 bits, as on hardware (held-out
/// run, ops-transformer mla_prolog_v2/v3: `InitBuffer(shareBuffer_, MAX_UB_SIZE - usedAddr)` with
/// usedAddr a uint64 GetPhyAddr(), the length truncated to uint32 by InitBuffer; with the UB arena at an
/// arbitrary host address it asked for gigabytes). The kernel carves 1 KiB, gives the rest of UB to a
/// second buffer sized that way, fills the whole of it and writes its length and its last element.
#[test]
fn a_buffer_sized_from_a_ub_physical_address_gets_the_rest_of_ub() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    build_kernel(
        w,
        r#"
#include "kernel_operator.h"
using namespace AscendC;
constexpr uint32_t MAX_UB_SIZE = 192 * 1024;
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR y) {
    TPipe pipe;
    GlobalTensor<float> yg;
    yg.SetGlobalBuffer((__gm__ float *)y, 8);
    TBuf<TPosition::VECCALC> head, rest;
    pipe.InitBuffer(head, 1024);
    LocalTensor<float> h = head.Get<float>();
    uint64_t usedAddr = reinterpret_cast<uint64_t>(h[256].GetPhyAddr());
    pipe.InitBuffer(rest, MAX_UB_SIZE - usedAddr);
    LocalTensor<float> r = rest.Get<float>();
    uint32_t n = r.GetSize();
    Duplicate(r, 2.5f, n);
    Duplicate(h, 0.0f, 8);
    PipeBarrier<PIPE_V>();
    h.SetValue(0, (float)(uint32_t)(MAX_UB_SIZE - usedAddr));
    h.SetValue(1, r.GetValue(n - 1));
    h.SetValue(2, (float)(uint32_t)usedAddr);
    PipeBarrier<PIPE_ALL>();
    DataCopy(yg, h, 8);
}
extern "C" void twin_launch(uint8_t **a) { k(a[0], a[1]); }
"#,
        "building the UB physical address kernel",
    );
    let (out, y) = run_kernel(w, &[("x", bytes_f32(&[0.0; 8]))], 8 * 4);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got = f32s(&y);
    assert_eq!(
        &got[..3],
        &[(196608 - 1024) as f32, 2.5, 1024.0],
        "the rest of UB after 1 KiB, filled, and the end of the first buffer as a UB address"
    );
}

/// GatherMask (unseen-operator run, ops-nn glu: "'GatherMask' was not declared"; asc-devkit
/// GatherMask.md): kept elements are packed at the start of dst and counted in rsvdCnt. Three calls on
/// 128 floats x: built-in pattern 1 (even indices) in Normal mode over 2 repeats of 64; a pattern
/// tensor 0b100101 in Counter mode, mask 6, over 3 repeats one 8-float block apart; built-in pattern 4
/// (the second of every four) over one repeat. The reference selects in Rust from the rules.
/// `AscendCUtils::GetRsvdCnt()` then reads the last call's count.
#[test]
fn gather_mask_packs_the_selected_elements_and_counts_them() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    build_kernel(
        w,
        r#"
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR y) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, by, bp;
    pipe.InitBuffer(bx, 128 * 4);
    pipe.InitBuffer(by, 128 * 4);
    pipe.InitBuffer(bp, 32);
    GlobalTensor<float> xg, yg;
    xg.SetGlobalBuffer((__gm__ float *)x, 128);
    yg.SetGlobalBuffer((__gm__ float *)y, 128);
    LocalTensor<float> a = bx.Get<float>();
    LocalTensor<float> o = by.Get<float>();
    LocalTensor<uint32_t> pat = bp.Get<uint32_t>();
    DataCopy(a, xg, 128);
    PipeBarrier<PIPE_ALL>();
    Duplicate(o, -1.0f, 128);
    Duplicate(pat, (uint32_t)0x25, 8);
    PipeBarrier<PIPE_V>();
    uint64_t n1 = 0, n2 = 0, n3 = 0;
    GatherMask(o, a, 1, false, 0, {1, 2, 8, 0}, n1);
    GatherMask(o[64], a, pat, true, 6, {1, 3, 1, 0}, n2);
    GatherMask(o[80], a, 4, false, 0, {1, 1, 8, 0}, n3);
    PipeBarrier<PIPE_V>();
    o.SetValue(124, (float)AscendCUtils::GetRsvdCnt());
    o.SetValue(125, (float)n1);
    o.SetValue(126, (float)n2);
    o.SetValue(127, (float)n3);
    PipeBarrier<PIPE_ALL>();
    DataCopy(yg, o, 128);
}
extern "C" void twin_launch(uint8_t **a) { k(a[0], a[1]); }
"#,
        "building the GatherMask kernel",
    );
    let x: Vec<f32> = (0..128).map(|i| i as f32 * 1.5 - 7.0).collect();
    let (out, y) = run_kernel(w, &[("x", bytes_f32(&x))], 128 * 4);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut want = vec![-1.0f32; 128];
    let evens: Vec<f32> = (0..128).filter(|i| i % 2 == 0).map(|i| x[i]).collect();
    want[..64].copy_from_slice(&evens);
    let picked: Vec<f32> = (0..3)
        .flat_map(|r| [0usize, 2, 5].map(|j| x[r * 8 + j]))
        .collect();
    want[64..64 + 9].copy_from_slice(&picked);
    let seconds: Vec<f32> = (0..64).filter(|i| i % 4 == 1).map(|i| x[i]).collect();
    want[80..96].copy_from_slice(&seconds);
    want[124] = 16.0; // GetRsvdCnt: the last call's count (ops-math's hans_decode reads it so)
    want[125] = 64.0;
    want[126] = 9.0;
    want[127] = 16.0;
    assert_eq!(f32s(&y), want);
}

/// Two host gaps of the unseen-operator run: asc-devkit's acl examples call
/// `context->SetSimdNumBlocks(n)`, the newer name of SetBlockDim (asc-devkit Kernel-Tiling docs),
/// which must set the launch's block count; ops-math non_finite_check includes log/log.h alone and
/// calls OP_LOGE_FOR_INVALID_TENSORNUM, which must print one error naming the op and its strings;
/// OP_LOGE_FOR_INVALID_SHAPEDIM prints CANN's sentence with the rank the parameter should have.
#[test]
fn set_simd_num_blocks_sets_the_block_count_and_log_h_has_the_tensor_count_reporter() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("simd.cpp");
    std::fs::write(
        &src,
        r#"
#include <cstdio>
#include "register/op_def_registry.h"
#include "log/log.h"
gert::TwinOpInfo op;
int main() {
    gert::TilingContext ctx; ctx.op_ = &op;
    std::printf("before %u\n", ctx.GetBlockDim());
    ctx.SetSimdNumBlocks(7);
    std::printf("after %u %u %d\n", ctx.GetBlockDim(), ctx.GetSimdNumBlocks(), ctx.block_dim_set_ ? 1 : 0);
    OP_LOGE_FOR_INVALID_TENSORNUM("NodeN", "tensor_list", 300, "at most 256");
    OP_LOGE_FOR_INVALID_SHAPEDIM("NodeN", "input_scale", std::to_string(2), "1");
    return 0;
}
"#,
    )
    .unwrap();
    let out = run_host_program(&src, "building the SetSimdNumBlocks host check");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "before 0\nafter 7 7 1\n"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("NodeN")
            && stderr.contains("invalid tensor count: tensor_list: 300: at most 256"),
        "{stderr}"
    );
    // CANN's EZ0011 words, which say the rank wanted (init's refusal fit reads it: gelu_quant)
    assert!(
        stderr.contains("Parameter input_scale has incorrect shape dim 2. It should be 1."),
        "{stderr}"
    );
}

/// Kernel-side names CANN's kernel headers define (asc-devkit include/basic_api/kernel_type.h): the
/// dtype numbers an `ORIG_DTYPE_<ARG>` is compared with, in `#if` and in C++ (ops-nn dynamic_quant:
/// `if constexpr (ORIG_DTYPE_Y == DT_INT4)` stopped at "DT_INT8 was not declared"; before, every
/// `#if ORIG_DTYPE_X == DT_FLOAT` was 0 == 0), and the Reg Cast's `RoundMode::UNKNOWN` (Cast.md's
/// CastTrait default, for casts without rounding; ops-nn bn3d_training_reduce widens half to float with
/// it). The twin rounds a lossy cast given UNKNOWN to nearest even, as CAST_NONE.
#[test]
fn dtype_numbers_and_the_unknown_round_mode() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    build_kernel(
        w,
        r#"
#define TWIN_DTYPE_IDS
#define ORIG_DTYPE_Y DT_INT8
#define ORIG_DTYPE_X DT_FLOAT16
#include "kernel_operator.h"
using namespace AscendC;
#if ORIG_DTYPE_Y == DT_INT8 && ORIG_DTYPE_X != DT_FLOAT && ORIG_DTYPE_X == DT_FLOAT16
constexpr float kBranch = 1.0f;
#else
constexpr float kBranch = -1.0f;
#endif
constexpr Reg::CastTrait kWiden = {Reg::RegLayout::ZERO, Reg::SatMode::UNKNOWN, Reg::MaskMergeMode::ZEROING,
                                   RoundMode::UNKNOWN};
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR z, GM_ADDR y) {
    GlobalTensor<half> xg;
    GlobalTensor<float> zg, yg;
    xg.SetGlobalBuffer((__gm__ half *)x, 128);
    zg.SetGlobalBuffer((__gm__ float *)z, 64);
    yg.SetGlobalBuffer((__gm__ float *)y, 256);
    TPipe pipe;
    TBuf<TPosition::VECCALC> hb, fb, ob, tb;
    pipe.InitBuffer(hb, 256); pipe.InitBuffer(fb, 256); pipe.InitBuffer(ob, 1024); pipe.InitBuffer(tb, 128);
    LocalTensor<half> h = hb.Get<half>(), t = tb.Get<half>();
    LocalTensor<float> f = fb.Get<float>(), o = ob.Get<float>();
    DataCopy(h, xg, 128);
    DataCopy(f, zg, 64);
    PipeBarrier<PIPE_ALL>();
    // o[0..64): half lanes 0, 2, 4, ... widened to float by the Reg Cast with RoundMode::UNKNOWN.
    {
        Reg::RegTensor<half> r;
        Reg::RegTensor<float> d;
        Reg::LoadAlign(r, (__ubuf__ half *)(uintptr_t)h.GetPhyAddr());
        Reg::MaskReg all = Reg::CreateMask<float, Reg::MaskPattern::ALL>();
        Reg::Cast<float, half, kWiden>(d, r, all);
        Reg::StoreAlign((__ubuf__ float *)(uintptr_t)o.GetPhyAddr(), d, all);
    }
    PipeBarrier<PIPE_ALL>();
    // o[64..128): z narrowed to half with RoundMode::UNKNOWN, then widened back exactly.
    Cast(t, f, RoundMode::UNKNOWN, 64);
    PipeBarrier<PIPE_V>();
    Cast(o[64], t, RoundMode::CAST_NONE, 64);
    PipeBarrier<PIPE_ALL>();
    // o[128]: the #if branch; o[129]: an if constexpr on the dtype numbers.
    o.SetValue(128, kBranch);
    if constexpr (ORIG_DTYPE_Y == DT_INT4) {
        o.SetValue(129, 5.0f);
    } else {
        o.SetValue(129, (float)(DT_INT4 * 100 + DT_BF16));
    }
    PipeBarrier<PIPE_ALL>();
    DataCopy(yg, o, 192);
}
extern "C" void twin_launch(uint8_t **a) { k(a[0], a[1], a[2]); }
"#,
        "building the dtype-number and RoundMode::UNKNOWN kernel",
    );
    let xh: Vec<f16> = (0..128)
        .map(|i| f16::from_f32((i as f32 - 64.0) * 0.375 + 0.001))
        .collect();
    // Quarter steps of half's ulp at 1 (2^-10): exact values, ties (even and odd) and values between.
    let z: Vec<f32> = (0..64)
        .map(|k| (1.0 + k as f32 * 2f32.powi(-12)) * if k % 5 == 0 { -1.0 } else { 1.0 })
        .collect();
    let xb: Vec<u8> = xh.iter().flat_map(|v| v.to_le_bytes()).collect();
    let (out, y) = run_kernel(w, &[("x", xb), ("z", bytes_f32(&z))], 192 * 4);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let y = f32s(&y);
    let widened: Vec<f32> = (0..64).map(|i| xh[2 * i].to_f32()).collect();
    assert_eq!(y[..64], widened[..]);
    let narrowed: Vec<f32> = z.iter().map(|v| f16::from_f32(*v).to_f32()).collect();
    assert_eq!(y[64..128], narrowed[..]);
    assert_eq!(y[128], 1.0, "the #if on ORIG_DTYPE took the wrong branch");
    assert_eq!(y[129], 2927.0);
}

/// The C API's copies as documented, on `void *` (cann-samples' vector_add_c_api: `asc_copy_gm2ub_sync(
/// (__ubuf__ void*)x, (__gm__ void*)(x + offset), bytes)` stopped at "forming reference to void"): the
/// bytes arrive as they left.
#[test]
fn c_api_copies_on_void_pointers_move_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    build_kernel(
        w,
        r#"
#include "kernel_operator.h"
#include "c_api/asc_simd.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR y) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 1024);
    LocalTensor<float> t = b.Get<float>();
    void *ub = (void *)(uintptr_t)t.GetPhyAddr();
    asc_copy_gm2ub_sync(ub, (void *)x, 128 * sizeof(float));
    asc_copy_ub2gm_sync((void *)y, ub, 128 * sizeof(float));
}
extern "C" void twin_launch(uint8_t **a) { k(a[0], a[1]); }
"#,
        "building the C API void-pointer copy kernel",
    );
    let x: Vec<f32> = (0..128).map(|i| i as f32 * 0.75 - 9.0).collect();
    let (out, y) = run_kernel(w, &[("x", bytes_f32(&x))], 128 * 4);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(f32s(&y), x);
}

/// The C API's L2 cache modes (asc-devkit docs C-API/enum/asc_load_l2_cache_mode.md and
/// asc_store_l2_cache_mode.md; the example 00_set_l2_cache_mode stopped at "NOTALLOC_KEEP is not a member"):
/// every mode moves the data the same, and the GM copy records carry the mode the model reads
/// (`cache=disable` for the NOTALLOC modes, `cache=last` for NORMAL_LAST_VICTIM, nothing for the normal one).
#[test]
fn c_api_l2_cache_modes_copy_alike_and_reach_the_trace() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    build_kernel(
        w,
        r#"
#include "kernel_operator.h"
#include "c_api/asc_simd.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR y) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 1024);
    LocalTensor<float> t = b.Get<float>();
    float *ub = (float *)(uintptr_t)t.GetPhyAddr();
    asc_copy_gm2ub_align(ub, (float *)x, 1, 256, 0, 0, false, asc_load_l2_cache_mode::NOTALLOC_KEEP, 0, 0);
    asc_sync();
    asc_copy_gm2ub_align(ub + 64, (float *)x + 64, 1, 256, 0, 0, false, asc_load_l2_cache_mode::NORMAL_LAST_VICTIM,
                         0, 0);
    asc_sync();
    asc_copy_ub2gm_align((float *)y, ub, 2, 256, asc_store_l2_cache_mode::NOTALLOC_CLEAN, 0, 0);
    asc_sync();
    asc_copy_ub2gm_align((float *)y + 128, ub + 64, 1, 256, asc_store_l2_cache_mode::NORMAL_FIRST_VICTIM, 0, 0);
    asc_sync();
}
extern "C" void twin_launch(uint8_t **a) { k(a[0], a[1]); }
"#,
        "building the C API L2 cache mode kernel",
    );
    let x: Vec<f32> = (0..128).map(|i| i as f32 * 1.5 - 40.0).collect();
    let (out, y) = run_kernel(w, &[("x", bytes_f32(&x))], 192 * 4);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let y = f32s(&y);
    assert_eq!(y[..128], x[..]);
    assert_eq!(y[128..], x[64..]);
    let trace = std::fs::read_to_string(w.join("trace.txt")).unwrap();
    let copies = |pipe: &str| -> Vec<&str> {
        trace
            .lines()
            .filter(|l| l.starts_with(&format!("I {pipe} ")))
            .collect()
    };
    let cache = |l: &str| {
        l.split_whitespace()
            .find_map(|w| w.strip_prefix("cache="))
            .map(str::to_string)
    };
    let loads: Vec<Option<String>> = copies("MTE2").into_iter().map(cache).collect();
    assert_eq!(
        loads,
        [Some("disable".into()), Some("last".into())],
        "{trace}"
    );
    let stores: Vec<Option<String>> = copies("MTE3").into_iter().map(cache).collect();
    assert_eq!(stores, [Some("disable".into()), None], "{trace}");
}

/// Found merging stop 27 (asc-devkit 04_advanced_api/10_math/frac stopped at "expected identifier before
/// numeric constant" in dtype_ids.h): the DT_* macros a custom-op kernel build defines (TWIN_DTYPE_IDS)
/// rewrote the enumerators of the same names that an .asc program's host code and the kernel-side matmul
/// tiling declare. An .asc-style file (no TWIN_DTYPE_IDS; the SoC facts twin-asc defines) compiles with the
/// enumerators' values; a custom-op kernel that reaches the matmul tiling through tiling_api.h compiles and
/// keeps the macros after it (its own code cannot name the enumerators there: the macros win).
#[test]
fn dtype_macros_leave_the_enumerators_of_the_same_names_alone() {
    for defines in ["", "#define TWIN_DTYPE_IDS\n#define ORIG_DTYPE_Y DT_INT8\n"] {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("asc_like.cpp");
        std::fs::write(
            &src,
            format!(
                r#"{defines}
#define TWIN_AIC_CORES 24
#define TWIN_AIV_CORES 48
#define TWIN_SOC_NAME "Ascend910B1"
#define TWIN_UB_BYTES 196608
#define TWIN_L1_BYTES 524288
#include "kernel_operator.h"
#include "tiling/tiling_api.h"
#if !defined(TWIN_DTYPE_IDS)
static_assert((int)matmul_tiling::DataType::DT_FLOAT16 == 1, "the enumerator keeps its value");
static_assert((int)matmul_tiling::DataType::DT_BF16 == 27, "the enumerator keeps its value");
#endif
#if defined(ORIG_DTYPE_Y)
#if ORIG_DTYPE_Y != DT_INT8 || DT_INT8 != 2
#error "the dtype macros are gone after the matmul tiling"
#endif
#endif
"#
            ),
        )
        .unwrap();
        run_ok(
            Command::new(compiler())
                .args(["-std=c++17", "-fsyntax-only", "-w", "-I"])
                .arg(twin_dir().join("include/kernel"))
                .arg(&src),
            &format!("compiling a kernel beside the matmul tiling's enumerators ({defines:?})"),
        );
    }
}

/// The C API's asc_floor (toward minus infinity, masked lanes 0), asc_arange / asc_arange_descend (value + i,
/// value + lanes - 1 - i), asc_pair_reduce_sum (low half the sums of adjacent pairs, masked lanes counted as
/// 0, the high half 0) and the mask-register asc_loadalign_postupdate (bit k of 32 bytes the predicate of
/// byte lane k, the pointer moved on by `offset` bytes), against references computed here.
#[test]
fn c_api_floor_arange_pair_reduce_sum_and_mask_register_load() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    build_kernel(
        w,
        r#"
#include "kernel_operator.h"
#include "c_api/asc_simd.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR y) {
    GlobalTensor<uint8_t> xg, yg;
    xg.SetGlobalBuffer((__gm__ uint8_t *)x, 1024);
    yg.SetGlobalBuffer((__gm__ uint8_t *)y, 2048);
    TPipe pipe;
    TBuf<TPosition::VECCALC> ib, ob;
    pipe.InitBuffer(ib, 1024); pipe.InitBuffer(ob, 2048);
    LocalTensor<uint8_t> in = ib.Get<uint8_t>(), o = ob.Get<uint8_t>();
    DataCopy(in, xg, 1024);
    Duplicate(o.ReinterpretCast<uint32_t>(), 0u, 512);
    PipeBarrier<PIPE_ALL>();
    uint8_t *ub = (uint8_t *)(uintptr_t)in.GetPhyAddr();
    uint8_t *out = (uint8_t *)(uintptr_t)o.GetPhyAddr();
    vector_bool all32 = asc_create_mask_b32(PAT_ALL), all16 = asc_create_mask_b16(PAT_ALL);
    // out[0..256): floor of x[0..256) as float, first 40 lanes
    vector_float f, fl;
    asc_loadalign(f, (float *)ub);
    uint32_t n40 = 40;
    vector_bool m40 = asc_update_mask_b32(n40);
    asc_floor(fl, f, m40);
    asc_storealign((float *)out, fl, all32);
    // out[256..512): int16 arange from -7; out[512..768): float descending from 2.5
    vector_int16_t ar;
    asc_arange(ar, (int16_t)-7);
    asc_storealign((int16_t *)(out + 256), ar, all16);
    vector_float ad;
    asc_arange_descend(ad, 2.5f);
    asc_storealign((float *)(out + 512), ad, all32);
    // out[768..1024): pair sums of x[0..256) as float, first 51 lanes active
    uint32_t n51 = 51;
    vector_bool m51 = asc_update_mask_b32(n51);
    vector_float ps;
    asc_pair_reduce_sum(ps, f, m51);
    asc_storealign((float *)(out + 768), ps, all32);
    // out[1024..1536): two mask loads from x[256..) 32 bytes apart, each selecting x-floats over 0
    uint32_t *mp = (uint32_t *)(ub + 256);
    vector_float zero;
    asc_duplicate_scalar(zero, 0.0f);
    for (int r = 0; r < 2; r++) {
        vector_bool sel;
        asc_loadalign_postupdate(sel, mp, 32);
        vector_float s;
        asc_select(s, f, zero, sel);
        asc_storealign((float *)(out + 1024 + 256 * r), s, all32);
    }
    PipeBarrier<PIPE_ALL>();
    DataCopy(yg, o, 2048);
}
extern "C" void twin_launch(uint8_t **a) { k(a[0], a[1]); }
"#,
        "building the C API floor / arange / pair-reduce / mask-load kernel",
    );
    let mut x = vec![0u8; 1024];
    for i in 0..64 {
        let v = (i as f32) * 0.37 - 11.6;
        x[4 * i..4 * i + 4].copy_from_slice(&v.to_le_bytes());
    }
    for (i, b) in x[256..320].iter_mut().enumerate() {
        *b = ((i * 97 + 13) % 256) as u8;
    }
    let (out, y) = run_kernel(w, &[("x", x.clone())], 2048);
    assert!(out.status.success(), "{out:?}");
    let f32at = |b: &[u8], i: usize| {
        f32::from_le_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]])
    };
    let xf: Vec<f32> = (0..64).map(|i| f32at(&x, i)).collect();
    for i in 0..64 {
        let want = if i < 40 { xf[i].floor() } else { 0.0 };
        assert_eq!(f32at(&y, i).to_bits(), want.to_bits(), "floor {i}");
        assert_eq!(
            f32at(&y[512..], i),
            2.5 + (63 - i) as f32,
            "arange descend {i}"
        );
        let want = if i < 32 {
            let a = if 2 * i < 51 { xf[2 * i] } else { 0.0 };
            let b = if 2 * i + 1 < 51 { xf[2 * i + 1] } else { 0.0 };
            a + b
        } else {
            0.0
        };
        assert_eq!(
            f32at(&y[768..], i).to_bits(),
            want.to_bits(),
            "pair sum {i}"
        );
        for r in 0..2 {
            let byte = x[256 + 32 * r + (4 * i) / 8];
            let on = (byte >> ((4 * i) % 8)) & 1 == 1;
            let want = if on { xf[i] } else { 0.0 };
            assert_eq!(
                f32at(&y[1024 + 256 * r..], i).to_bits(),
                want.to_bits(),
                "mask load {r} lane {i}"
            );
        }
    }
    for i in 0..128 {
        let v = i16::from_le_bytes([y[256 + 2 * i], y[257 + 2 * i]]);
        assert_eq!(v, -7 + i as i16, "arange {i}");
    }
}

/// Gelu (x / (1 + exp(-1.5957691216057308 (x + 0.044715 x^3))), with and without a scratch tensor) and Fmod
/// (a - trunc(a / b) * b, the four overloads' count and whole-tensor forms) against references computed here.
#[test]
fn gelu_and_fmod_follow_their_pages() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    build_kernel(
        w,
        r#"
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR y) {
    GlobalTensor<float> xg, yg;
    xg.SetGlobalBuffer((__gm__ float *)x, 128);
    yg.SetGlobalBuffer((__gm__ float *)y, 192);
    TPipe pipe;
    TBuf<TPosition::VECCALC> ab, bb, ob, tb;
    pipe.InitBuffer(ab, 256); pipe.InitBuffer(bb, 256); pipe.InitBuffer(ob, 768); pipe.InitBuffer(tb, 256);
    LocalTensor<float> a = ab.Get<float>(), b = bb.Get<float>(), o = ob.Get<float>();
    LocalTensor<uint8_t> tmp = tb.Get<uint8_t>();
    DataCopy(a, xg, 64);
    DataCopy(b, xg[64], 64);
    Duplicate(o, 0.0f, 192);
    PipeBarrier<PIPE_ALL>();
    Gelu(o, a, 64);
    Gelu<float, true>(o[64], a, tmp, 40);
    Fmod(o[128], a, b, tmp, 64);
    PipeBarrier<PIPE_ALL>();
    DataCopy(yg, o, 192);
}
extern "C" void twin_launch(uint8_t **a) { k(a[0], a[1]); }
"#,
        "building the Gelu / Fmod kernel",
    );
    let mut x = vec![0u8; 512];
    let mut a = vec![0f32; 64];
    let mut b = vec![0f32; 64];
    for i in 0..64 {
        a[i] = (i as f32) * 0.31 - 9.7;
        b[i] = if i % 5 == 0 {
            -1.1
        } else {
            0.7 + (i % 7) as f32 * 0.45
        };
        x[4 * i..4 * i + 4].copy_from_slice(&a[i].to_le_bytes());
        x[256 + 4 * i..260 + 4 * i].copy_from_slice(&b[i].to_le_bytes());
    }
    let (out, y) = run_kernel(w, &[("x", x)], 768);
    assert!(out.status.success(), "{out:?}");
    let f = |i: usize| f32::from_le_bytes([y[4 * i], y[4 * i + 1], y[4 * i + 2], y[4 * i + 3]]);
    for i in 0..64 {
        let v = a[i] as f64;
        let gelu = v / (1.0 + (-1.5957691216057308 * (v + 0.044715 * v * v * v)).exp());
        assert!(
            (f(i) as f64 - gelu).abs() <= 1e-5 * (1.0 + gelu.abs()),
            "gelu {i}: {} vs {gelu}",
            f(i)
        );
        let want = if i < 40 { f(i) } else { 0.0 };
        assert_eq!(f(64 + i), want, "gelu (scratch, 40 elements) {i}");
        let r = (a[i] as f64) % (b[i] as f64); // Rust's % on floats truncates, as the page's formula
        assert!(
            (f(128 + i) as f64 - r).abs() <= 1e-6,
            "fmod {i}: {} vs {r}",
            f(128 + i)
        );
    }
    // the page's own examples
    assert!((2.0f64 % 1.5 - 0.5).abs() < 1e-12 && (-3.0f64 % 1.1 + 0.8).abs() < 1e-9);
}

/// The C++ register forms: Reg::Truncate in each rounding mode (ties: RINT to even, ROUND away from zero),
/// Reg::Arange wrapping past an int8_t's bound and descending, Reg::PairReduceElem, and a MaskReg loaded
/// from UB with the post-update (stride in elements of the pointer's type), against references computed here.
#[test]
fn reg_truncate_arange_pair_reduce_and_mask_load() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    build_kernel(
        w,
        r#"
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR y) {
    GlobalTensor<uint8_t> xg, yg;
    xg.SetGlobalBuffer((__gm__ uint8_t *)x, 512);
    yg.SetGlobalBuffer((__gm__ uint8_t *)y, 2048);
    TPipe pipe;
    TBuf<TPosition::VECCALC> ib, ob;
    pipe.InitBuffer(ib, 512); pipe.InitBuffer(ob, 2048);
    LocalTensor<uint8_t> in = ib.Get<uint8_t>(), o = ob.Get<uint8_t>();
    DataCopy(in, xg, 512);
    Duplicate(o.ReinterpretCast<uint32_t>(), 0u, 512);
    PipeBarrier<PIPE_ALL>();
    __ubuf__ uint8_t *ub = (__ubuf__ uint8_t *)(uintptr_t)in.GetPhyAddr();
    __ubuf__ uint8_t *out = (__ubuf__ uint8_t *)(uintptr_t)o.GetPhyAddr();
    Reg::MaskReg all = Reg::CreateMask<float>();
    Reg::RegTensor<float> f, r;
    Reg::LoadAlign(f, (__ubuf__ float *)ub);
    Reg::Truncate<float, RoundMode::CAST_RINT>(r, f, all);  Reg::StoreAlign((__ubuf__ float *)out, r, all);
    Reg::Truncate<float, RoundMode::CAST_ROUND>(r, f, all); Reg::StoreAlign((__ubuf__ float *)(out + 256), r, all);
    Reg::Truncate<float, RoundMode::CAST_CEIL>(r, f, all);  Reg::StoreAlign((__ubuf__ float *)(out + 512), r, all);
    Reg::Truncate<float, RoundMode::CAST_TRUNC>(r, f, all); Reg::StoreAlign((__ubuf__ float *)(out + 768), r, all);
    Reg::RegTensor<int8_t> a8;
    Reg::MaskReg all8 = Reg::CreateMask<int8_t>();
    Reg::Arange(a8, (int8_t)100);
    Reg::StoreAlign((__ubuf__ int8_t *)(out + 1024), a8, all8);
    Reg::Arange<float, Reg::IndexOrder::DECREASE_ORDER>(r, -3.0f);
    Reg::StoreAlign((__ubuf__ float *)(out + 1280), r, all);
    uint32_t n = 9;
    Reg::MaskReg m9 = Reg::UpdateMask<float>(n);
    Reg::PairReduceElem(r, f, m9);
    Reg::StoreAlign((__ubuf__ float *)(out + 1536), r, all);
    __ubuf__ uint8_t *mp = ub + 256;
    Reg::MaskReg sel;
    Reg::LoadAlign<uint8_t, Reg::PostLiteral::POST_MODE_UPDATE>(sel, mp, 32);
    Reg::LoadAlign<uint8_t, Reg::PostLiteral::POST_MODE_UPDATE>(sel, mp, 32);
    Reg::RegTensor<float> zero;
    Reg::Duplicate(zero, 0.0f, all);
    Reg::Select(r, f, zero, sel);
    Reg::StoreAlign((__ubuf__ float *)(out + 1792), r, all);
    PipeBarrier<PIPE_ALL>();
    DataCopy(yg, o, 2048);
}
extern "C" void twin_launch(uint8_t **a) { k(a[0], a[1]); }
"#,
        "building the Reg Truncate / Arange / PairReduceElem / MaskReg load kernel",
    );
    let mut x = vec![0u8; 512];
    let fs: Vec<f32> = (0..64).map(|i| (i as f32 - 32.0) * 0.25).collect(); // ties at .5
    for (i, v) in fs.iter().enumerate() {
        x[4 * i..4 * i + 4].copy_from_slice(&v.to_le_bytes());
    }
    for (i, b) in x[256..320].iter_mut().enumerate() {
        *b = ((i * 53 + 7) % 256) as u8;
    }
    let (out, y) = run_kernel(w, &[("x", x.clone())], 2048);
    assert!(out.status.success(), "{out:?}");
    let f = |o: usize, i: usize| {
        f32::from_le_bytes([
            y[o + 4 * i],
            y[o + 4 * i + 1],
            y[o + 4 * i + 2],
            y[o + 4 * i + 3],
        ])
    };
    for (i, v) in fs.iter().enumerate() {
        let rint = {
            let r = v.round();
            if (v - v.trunc()).abs() == 0.5 && r % 2.0 != 0.0 {
                r - v.signum()
            } else {
                r
            }
        };
        assert_eq!(f(0, i), rint, "RINT {v}");
        assert_eq!(f(256, i), v.round(), "ROUND {v}");
        assert_eq!(f(512, i), v.ceil(), "CEIL {v}");
        assert_eq!(f(768, i), v.trunc(), "TRUNC {v}");
        assert_eq!(f(1280, i), -3.0 + (63 - i) as f32, "Arange descending {i}");
        let pair = if i < 32 {
            let a = if 2 * i < 9 { fs[2 * i] } else { 0.0 };
            let b = if 2 * i + 1 < 9 { fs[2 * i + 1] } else { 0.0 };
            a + b
        } else {
            0.0
        };
        assert_eq!(f(1536, i), pair, "PairReduceElem {i}");
        let on = (x[256 + 32 + (4 * i) / 8] >> ((4 * i) % 8)) & 1 == 1; // the second 32 bytes
        assert_eq!(
            f(1792, i),
            if on { *v } else { 0.0 },
            "MaskReg load lane {i}"
        );
    }
    for i in 0..256usize {
        assert_eq!(
            y[1024 + i] as i8,
            (100i64 + i as i64) as i8,
            "Arange int8 wraps {i}"
        );
    }
}

/// The dlog check and module-id logging that tiling helpers call (ops-transformer's tiling_base.h and
/// ops_err.h): CheckLogLevel enables warnings and errors only, OpLogSub writes an error with the op's
/// description, and graph/tensor.h / graph/ge_error_codes.h give ge::Shape and the graph status codes.
#[test]
fn dlog_level_check_and_module_logging_on_the_host() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("dlog.cpp");
    std::fs::write(
        &src,
        r#"
#include <cstdio>
#include "graph/tensor.h"
#include "graph/ge_error_codes.h"
#include "log/log.h"
int main() {
    ge::Shape s({2, 3});
    ge::graphStatus st = ge::GRAPH_SUCCESS;
    int dbg = CheckLogLevel(static_cast<int32_t>(OP), DLOG_DEBUG);
    int err = CheckLogLevel(static_cast<int32_t>(OP), DLOG_ERROR);
    OpLogSub(OP, DLOG_ERROR, "MyOp", "bad value %d", 7);
    OpLogSub(OP, DLOG_DEBUG, "MyOp", "never shown %d", 8);
    std::printf("%d %d %d %lld\n", dbg, err, (int)st, (long long)s.GetShapeSize());
    return 0;
}
"#,
    )
    .unwrap();
    let out = run_host_program(&src, "building the dlog check program");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "0 1 0 6\n");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("MyOp") && err.contains("bad value 7"), "{err}");
    assert!(!err.contains("never shown"), "{err}");
}

/// An InferShapeRange function as ops-cv's grid_sample and ops-transformer's moe_init_routing_v3 write
/// them: gert::Range<gert::Shape> min / max, the context's input and output ranges, and the op logs taking
/// the context. The twin does not call them; they must compile, and read and write what they are given.
/// And the InferShape context's output descriptors.
#[test]
fn infer_shape_range_functions_compile_and_read_their_ranges() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("range.cpp");
    std::fs::write(
        &src,
        r#"
#include <cstdio>
#include "register/op_impl_registry.h"
#include "log/log.h"
static ge::graphStatus InferRange(gert::InferShapeRangeContext *context) {
    OP_LOGD(context, "begin");
    const gert::Range<gert::Shape> *x = context->GetInputShapeRange(0);
    gert::Range<gert::Shape> *y = context->GetOutputShapeRange(0);
    if (x == nullptr || y == nullptr) return ge::GRAPH_FAILED;
    y->GetMin()->SetDimNum(1);
    y->GetMin()->SetDim(0, x->GetMin()->GetDim(0) * 2);
    y->GetMax()->SetDimNum(1);
    y->GetMax()->SetDim(0, x->GetMax()->GetDim(0) * 2);
    return ge::GRAPH_SUCCESS;
}
int main() {
    gert::Shape xmin({1}), xmax({8}), ymin, ymax;
    gert::InferShapeRangeContext c;
    c.in_.emplace_back(&xmin, &xmax);
    c.out_.emplace_back(&ymin, &ymax);
    int st = (int)InferRange(&c);
    std::printf("%d %lld %lld %d\n", st, (long long)ymin.GetDim(0), (long long)ymax.GetDim(0),
                c.GetOutputShapeRange(1) == nullptr);
    // InferShape reads an output's declared descriptor too (ops-nn's avg_pool3_d: its origin format).
    gert::TwinOpInfo op;
    op.out_desc.push_back(gert::CompileTimeTensorDesc());
    gert::InferShapeContext ic; ic.op_ = &op;
    std::printf("%d %d\n", ic.GetOutputDesc(0) != nullptr, ic.GetOutputDesc(1) == nullptr);
    // An output not yet inferred reads as a fresh shape once given axes (moe_token_permute's InferShape:
    // SetDimNum(1), then GetDim(0) < 0 means an unknown length).
    gert::Shape u;
    u.TwinMarkUnset();
    u.SetDimNum(1);
    std::printf("%lld %d\n", (long long)u.GetDim(0), (int)u.TwinUnset());
    return 0;
}
"#,
    )
    .unwrap();
    let out = run_host_program(&src, "building the InferShapeRange program");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "0 2 16 1\n1 1\n0 0\n");
}

/// An output's initial value as ops-cv's grid_sampler2_d_grad declares it: one `{ScalarType, value}` per
/// dtype (CANN's op_def.h), besides the single-value and ScalarVar forms.
#[test]
fn op_defs_declare_init_values_per_dtype() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("init_value.cpp");
    std::fs::write(
        &src,
        r#"
#include <cstdio>
#include "register/op_def_registry.h"
namespace ops {
class InitValueOp : public OpDef {
public:
    explicit InitValueOp(const char *name) : OpDef(name) {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT16});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT16})
            .InitValue({{ScalarType::FLOAT32, 0}, {ScalarType::FLOAT16, 0.5}});
        this->Output("z").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT16}).InitValue(0);
        this->Output("w").ParamType(REQUIRED).DataType({ge::DT_INT32, ge::DT_INT32})
            .InitValue({ScalarType::INT32, 1});
    }
};
}
int main() {
    ops::InitValueOp op("InitValueOp");
    std::printf("%zu\n", op.outputs_.size());
    return 0;
}
"#,
    )
    .unwrap();
    let out = run_host_program(&src, "building the InitValue program");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "3\n");
}

/// Gather's repeat forms (Gather.md; ops-cv's upsample_nearest3d calls `Gather(dst, src, offsets, 0, mask,
/// repeat, 8)`): a repeat of 64 floats each, offsets read on from repeat to repeat, masked-out elements
/// keep dst, continuous and bitwise masks.
#[test]
fn gather_repeat_forms_follow_the_offsets_and_the_mask() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    build_kernel(
        w,
        r#"
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR y) {
    GlobalTensor<float> xg, yg;
    GlobalTensor<uint32_t> og;
    xg.SetGlobalBuffer((__gm__ float *)x, 128);
    og.SetGlobalBuffer((__gm__ uint32_t *)x + 128, 128);
    yg.SetGlobalBuffer((__gm__ float *)y, 256);
    TPipe pipe;
    TBuf<TPosition::VECCALC> sb, ob, db;
    pipe.InitBuffer(sb, 512); pipe.InitBuffer(ob, 512); pipe.InitBuffer(db, 512);
    LocalTensor<float> src = sb.Get<float>(), d = db.Get<float>();
    LocalTensor<uint32_t> off = ob.Get<uint32_t>();
    DataCopy(src, xg, 128);
    DataCopy(off, og, 128);
    Duplicate(d, -1.0f, 128);
    PipeBarrier<PIPE_ALL>();
    Gather(d, src, off, (uint32_t)0, (uint64_t)40, 2, 8);
    PipeBarrier<PIPE_ALL>(); DataCopy(yg, d, 128); PipeBarrier<PIPE_ALL>();
    Duplicate(d, -1.0f, 128);
    PipeBarrier<PIPE_ALL>();
    uint64_t mask[2] = {0x5555555555555555ull, 0};
    Gather(d, src, off, (uint32_t)4, mask, 2, 8);
    PipeBarrier<PIPE_ALL>(); DataCopy(yg[128], d, 128); PipeBarrier<PIPE_ALL>();
}
extern "C" void twin_launch(uint8_t **a) { k(a[0], a[1]); }
"#,
        "building the Gather repeat kernel",
    );
    let src: Vec<f32> = (0..128).map(|i| i as f32 * 0.5 + 1.0).collect();
    // element k reads src[(k * 37) % 127] (so base 4 reads the one after it)
    let offs: Vec<u32> = (0..128u32).map(|k| (k * 37 % 127) * 4).collect();
    let mut x = bytes_f32(&src);
    for o in &offs {
        x.extend_from_slice(&o.to_le_bytes());
    }
    let (out, y) = run_kernel(w, &[("x", x)], 256 * 4);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got = f32s(&y);
    for r in 0..2 {
        for j in 0..64 {
            let k = r * 64 + j;
            let idx = offs[k] as usize / 4;
            let cont = if j < 40 { src[idx] } else { -1.0 };
            assert_eq!(got[k], cont, "continuous mask, repeat {r} element {j}");
            let bits = if j % 2 == 0 { src[idx + 1] } else { -1.0 };
            assert_eq!(got[128 + k], bits, "bit mask, repeat {r} element {j}");
        }
    }
}

/// ShapeInfo (ShapeInfo.md): SetShapeInfo keeps the shape, original shape and DataFormat that GetShapeInfo
/// returns, and GetShapeSize multiplies the dims.
#[test]
fn shape_info_is_kept_by_the_tensor() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    build_kernel(
        w,
        r#"
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR y) {
    GlobalTensor<int32_t> yg;
    yg.SetGlobalBuffer((__gm__ int32_t *)y, 8);
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 64);
    LocalTensor<int32_t> t = b.Get<int32_t>();
    uint32_t shape[3] = {2, 3, 4}, orig[2] = {6, 4};
    t.SetShapeInfo(ShapeInfo(3, shape, 2, orig, DataFormat::NHWC));
    ShapeInfo s = t.GetShapeInfo();
    yg.SetValue(0, GetShapeSize(s));
    yg.SetValue(1, s.originalShapeDim);
    yg.SetValue(2, s.originalShape[0]);
    yg.SetValue(3, (int32_t)s.dataFormat);
    yg.SetShapeInfo(ShapeInfo(2, orig));
    yg.SetValue(4, GetShapeSize(yg.GetShapeInfo()));
}
extern "C" void twin_launch(uint8_t **a) { k(a[0], a[1]); }
"#,
        "building the ShapeInfo kernel",
    );
    let (out, y) = run_kernel(w, &[("x", vec![0u8; 32])], 32);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(&i32s(&y)[..5], &[24, 2, 6, 4, 24]);
}

/// A kernel's own constant GM table (ops-transformer's moe_common.h: `const __gm__ int32_t assist[256] =
/// {...}`, read with DataCopy) is GM data the device loads with the kernel; the twin faulted with "outside
/// every GM allocation".
#[test]
fn a_kernels_constant_gm_table_reads_like_gm() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    build_kernel(
        w,
        r#"
#include "kernel_operator.h"
using namespace AscendC;
const __gm__ int32_t table[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR y) {
    GlobalTensor<int32_t> tg, yg;
    tg.SetGlobalBuffer((__gm__ int32_t *)table, 16);
    yg.SetGlobalBuffer((__gm__ int32_t *)y, 16);
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 64);
    LocalTensor<int32_t> t = b.Get<int32_t>();
    DataCopy(t, tg, 16);
    PipeBarrier<PIPE_ALL>();
    Adds(t, t, (int32_t)100, 16);
    PipeBarrier<PIPE_ALL>();
    DataCopy(yg, t, 16);
}
extern "C" void twin_launch(uint8_t **a) { k(a[0], a[1]); }
"#,
        "building the constant GM table kernel",
    );
    let (out, y) = run_kernel(w, &[("x", vec![0u8; 32])], 64);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(i32s(&y), (100..116).collect::<Vec<i32>>());
}

/// GetSortLen / GetSortOffset count in elements of T of the 8-byte sorted layout: 2 floats or 4 halves an
/// element.
#[test]
fn sort_length_and_offset_count_elements_of_t() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    build_kernel(
        w,
        r#"
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR y) {
    GlobalTensor<uint32_t> yg;
    yg.SetGlobalBuffer((__gm__ uint32_t *)y, 8);
    yg.SetValue(0, GetSortLen<float>(5));
    yg.SetValue(1, GetSortLen<half>(5));
    yg.SetValue(2, GetSortOffset<float>(3));
    yg.SetValue(3, GetSortOffset<half>(3));
}
extern "C" void twin_launch(uint8_t **a) { k(a[0], a[1]); }
"#,
        "building the GetSortLen kernel",
    );
    let (out, y) = run_kernel(w, &[("x", vec![0u8; 32])], 32);
    assert!(out.status.success(), "{out:?}");
    let u = |i: usize| u32::from_le_bytes([y[4 * i], y[4 * i + 1], y[4 * i + 2], y[4 * i + 3]]);
    assert_eq!((u(0), u(1), u(2), u(3)), (10, 20, 6, 12));
}

/// The scalar APIs' older template form `<T, isSetMask>` with the scalar of type T (ops-transformer's
/// apply_rotary_pos_emb: `Muls<float, false>(dst, src, s, mask, 1, params)`) computes as the `<T, U>` form,
/// count and level-0 mask forms alike; a call without template arguments still resolves.
#[test]
fn scalar_apis_take_the_t_and_is_set_mask_template_form() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    build_kernel(
        w,
        r#"
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR y) {
    GlobalTensor<float> xg, yg;
    xg.SetGlobalBuffer((__gm__ float *)x, 64);
    yg.SetGlobalBuffer((__gm__ float *)y, 192);
    TPipe pipe;
    TBuf<TPosition::VECCALC> ab, ob;
    pipe.InitBuffer(ab, 256); pipe.InitBuffer(ob, 768);
    LocalTensor<float> a = ab.Get<float>(), o = ob.Get<float>();
    DataCopy(a, xg, 64);
    Duplicate(o, 0.0f, 192);
    PipeBarrier<PIPE_ALL>();
    float s = -1.5f;
    Muls<float, true>(o, a, s, 64);
    UnaryRepeatParams rp = {1, 1, 8, 8};
    SetMaskNorm();
    SetVectorMask<float>(40);
    Muls<float, false>(o[64], a, s, 40, 1, rp);
    ResetMask();
    Adds(o[128], a, 2.0f, 64);
    PipeBarrier<PIPE_ALL>();
    DataCopy(yg, o, 192);
}
extern "C" void twin_launch(uint8_t **a) { k(a[0], a[1]); }
"#,
        "building the Muls<T, isSetMask> kernel",
    );
    let xs: Vec<f32> = (0..64).map(|i| i as f32 * 0.5 - 7.0).collect();
    let x: Vec<u8> = xs.iter().flat_map(|v| v.to_le_bytes()).collect();
    let (out, y) = run_kernel(w, &[("x", x)], 768);
    assert!(out.status.success(), "{out:?}");
    let f = |i: usize| f32::from_le_bytes([y[4 * i], y[4 * i + 1], y[4 * i + 2], y[4 * i + 3]]);
    for (i, v) in xs.iter().enumerate() {
        assert_eq!(f(i), v * -1.5, "count form {i}");
        assert_eq!(
            f(64 + i),
            if i < 40 { v * -1.5 } else { 0.0 },
            "mask form {i}"
        );
        assert_eq!(f(128 + i), v + 2.0, "Adds {i}");
    }
}

/// A tiling header force-included into the kernel build may declare host functions with `ge::graphStatus`
/// and `gert::TilingContext` (ops-transformer's moe_token_unpermute_tiling.h): the kernel side knows the
/// names, and the host side's `ge::SUCCESS` / `ge::FAILED` are GE's general codes.
#[test]
fn host_names_in_a_tiling_header_compile_on_the_kernel_side() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    build_kernel(
        w,
        r#"
#include "register/op_def_registry.h"
#include "register/tilingdata_base.h"
namespace optiling {
ge::graphStatus TilingCompute(gert::TilingContext *context, const int64_t topK);
}
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR y) {
    GlobalTensor<uint32_t> yg;
    yg.SetGlobalBuffer((__gm__ uint32_t *)y, 8);
    yg.SetValue(0, ge::GRAPH_SUCCESS);
    yg.SetValue(1, ge::GRAPH_FAILED);
}
extern "C" void twin_launch(uint8_t **a) { k(a[0], a[1]); }
"#,
        "building a kernel whose tiling header declares host functions",
    );
    let (out, y) = run_kernel(w, &[("x", vec![0u8; 32])], 32);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(&y[..8], &[0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff]);
    let src = dir.path().join("status.cpp");
    std::fs::write(
        &src,
        "#include <cstdio>\n#include \"register/op_def_registry.h\"\nint main() { std::printf(\"%u %u\\n\", ge::SUCCESS, ge::FAILED); return 0; }\n",
    )
    .unwrap();
    let out = run_host_program(&src, "building the ge::Status program");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "0 4294967295\n");
}

/// Headers that a tiling header shared by host and kernel reaches: `graph/c_types.h` (the C spelling of
/// the data types, numbered as `ge::DataType`; ops-math's acos tiling key), `util/math_util.h` in the
/// kernel build (ops-nn's mse_loss_v2 tiling header, used in constants), `op_kernel/platform_util.h`
/// (ops-math's roll), the kernel library's per-block and per-repeat element counts
/// (`B32_DATA_NUM_PER_BLOCK`: ops-nn's multi_scale_deformable_attn_function), `namespace AscendC`
/// open on the host after the platform header alone (ops-nn's ascend_anti_quant_v2 base tiling) and
/// `Ops::Base::IsFloatEqual` (ops-nn's dynamic_block_quant). Each stopped a public operator's build.
#[test]
fn shared_tiling_headers_compile_on_both_sides() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    build_kernel(
        w,
        r#"
#include "graph/c_types.h"
#include "util/math_util.h"
#include "op_kernel/platform_util.h"
#include "kernel_operator.h"
using namespace AscendC;
constexpr int64_t TILES = Ops::Base::CeilDiv(100, 32);
constexpr uint32_t PER_REG = Ops::Base::GetVRegSize() / sizeof(float);
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR y) {
    GlobalTensor<int32_t> yg;
    yg.SetGlobalBuffer((__gm__ int32_t *)y, 8);
    yg.SetValue(0, C_DT_FLOAT16);
    yg.SetValue(1, TILES);
    yg.SetValue(2, Ops::Base::FloorAlign(100, 32));
    yg.SetValue(3, Ops::Base::CeilDiv(7, 0));
    yg.SetValue(4, PER_REG + Ops::Base::GetUbBlockSize());
    yg.SetValue(5, B32_DATA_NUM_PER_BLOCK * 1000 + B16_DATA_NUM_PER_REPEAT);
}
extern "C" void twin_launch(uint8_t **a) { k(a[0], a[1]); }
"#,
        "building a kernel with the shared tiling headers",
    );
    let (out, y) = run_kernel(w, &[("x", vec![0u8; 32])], 32);
    assert!(out.status.success(), "{out:?}");
    let words: Vec<i32> = y[..24]
        .chunks(4)
        .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    // ge::DT_FLOAT16 is 1; ceil(100 / 32) = 4; floor(100 / 32) * 32 = 96; a zero divisor gives 0;
    // 64 floats a 256-byte register plus a 32-byte block; 8 floats a block, 128 halves a repeat.
    assert_eq!(words, [1, 4, 96, 0, 64 + 32, 8128]);
    let src = w.join("host.cpp");
    std::fs::write(
        &src,
        r#"#include <cstdio>
#include "platform/platform_ascendc.h"
#include "graph/c_types.h"
using namespace AscendC;
#include "util/math_util.h"
int main() {
    std::printf("%d %d %d%d%d\n", C_DT_FLOAT, C_DT_INT32 == ge::DT_INT32, Ops::Base::IsFloatEqual(0.1f + 0.2f, 0.3f),
                Ops::Base::IsFloatEqual(1.0f, 1.001f), Ops::Base::IsFloatEqual(0.0, 0.0f));
    return 0;
}
"#,
    )
    .unwrap();
    let out = run_host_program(&src, "building the host side of the shared tiling headers");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "0 1 101\n");
}

/// Host helpers a fresh sample of public operators stopped at: `util/const_util.h`'s constant-input
/// readers (ops-math's as_strided reads its `size`, `stride` and `storage_offset` with them), the
/// contiguous answer of `InputIsView` / `GetInputStride` (ops-nn's scatter_nd_update), the
/// registration `InferOutDataTypeSameWithFirstInput` (ops-nn's max_pooling_grad) and Sort's
/// temporary-space query with its SortConfig (ops-nn's index_fill builds its arch35 tiling file too),
/// and a graph prototype (`REG_OP`, graph/operator_reg.h: ops-nn's situ_glu_grad includes its
/// op_graph proto from a host file), and LayerNorm's separate tiling with the Welford and Normalize
/// scratch queries (ops-nn's ada_layer_norm, whose tiling ada_layer_norm_v2 builds).
#[test]
fn constant_inputs_strides_and_dtype_registrations_on_the_host() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("host.cpp");
    std::fs::write(
        &src,
        r#"
#include <cstdio>
#include "register/op_impl_registry.h"
#include "tiling/tiling_api.h"
#include "util/const_util.h"
#include "graph/operator_reg.h"
namespace ge {
REG_OP(TwinProto)
    .INPUT(x, TensorType({DT_FLOAT, DT_FLOAT16}))
    .OPTIONAL_INPUT(bias, TensorType({DT_FLOAT}))
    .OUTPUT(y, TensorType({DT_FLOAT, DT_FLOAT16}))
    .ATTR(axes, ListInt, {1, 2})
    .REQUIRED_ATTR(mode, Int)
    .OP_END_FACTORY_REG(TwinProto)
} // namespace ge
namespace optiling {
BEGIN_TILING_DATA_DEF(TwinAdaTiling)
TILING_DATA_FIELD_DEF(uint32_t, rows);
TILING_DATA_FIELD_DEF_STRUCT(LayerNormSeparateTiling, layerNormTiling);
END_TILING_DATA_DEF;
} // namespace optiling
struct Ctx {
    std::vector<gert::Tensor> in;
    const gert::Tensor *GetInputTensor(size_t i) const { return i < in.size() ? &in[i] : nullptr; }
};
int main() {
    int64_t sizes[3] = {4, 5, 6};
    int32_t offset[1] = {7};
    Ctx c;
    c.in.resize(3);
    c.in[0].dtype_ = ge::DT_INT64;
    c.in[0].shape_.MutableStorageShape().AppendDim(3);
    c.in[0].data_ = sizes;
    c.in[1].dtype_ = ge::DT_INT32;
    c.in[1].shape_.MutableStorageShape().AppendDim(1);
    c.in[1].data_ = offset;
    c.in[2].dtype_ = ge::DT_FLOAT;
    c.in[2].shape_.MutableStorageShape().AppendDim(1);
    c.in[2].data_ = sizes;
    gert::Shape s;
    int64_t v = -1;
    bool ok = Ops::Base::GetConstIntToShape(&c, 0, s);
    bool got = Ops::Base::GetConstInt(&c, 1, v);
    std::printf("%d %s %d %ld", ok, Ops::Base::ToString(s).c_str(), got, (long)v);
    // a float input and a missing one give false
    std::printf(" %d%d", Ops::Base::GetConstIntToShape(&c, 2, s), Ops::Base::GetConstInt(&c, 9, v));
    gert::Shape t;
    Ops::Base::GetValueToShape<int64_t>(&c.in[0], t);
    std::printf(" %s", Ops::Base::ToString(t).c_str());

    gert::TwinOpInfo op;
    op.in_shapes.resize(1);
    op.in_desc.resize(1);
    op.in_desc[0].dtype_ = ge::DT_FLOAT16;
    op.outputs.resize(2);
    gert::TilingContext tc;
    tc.op_ = &op;
    const gert::Stride *st = tc.GetInputStride(0);
    std::printf(" %d %zu %ld", tc.InputIsView(0), st ? st->GetDimNum() : 99, (long)(st ? st->GetStride(0) : 99));

    twin_host::OpImpl impl;
    impl.InferOutDataTypeSameWithFirstInput();
    gert::InferDataTypeContext dc;
    dc.op_ = &op;
    dc.out_.resize(2);
    impl.infer_dtype(&dc);
    std::printf(" %d%d", dc.out_[0] == ge::DT_FLOAT16, dc.out_[1] == ge::DT_FLOAT16);

    AscendC::SortConfig config;
    config.hasDstIndex = true;
    uint32_t maxValue = 0, minValue = 0;
    AscendC::GetSortMaxMinTmpSize(ge::Shape({1000}), ge::DT_FLOAT, ge::DT_UINT32, false, config, maxValue, minValue);
    std::printf(" %u %u", maxValue, minValue);

    optiling::TwinAdaTiling ada;
    AscendC::GetLayerNormNDTilingInfo(ge::Shape({8, 64}), 4096, 4, true, true, ada.layerNormTiling);
    AscendC::GetWelfordUpdateMaxMinTmpSize(ge::Shape({1, 100}), 2, 4, false, true, maxValue, minValue);
    std::printf(" %u %u %g %u %u\n", ada.layerNormTiling.aLength, ada.layerNormTiling.rLength,
                ada.layerNormTiling.rValueBack * 64, ada.layerNormTiling.tmpBufSize, maxValue);
    return 0;
}
"#,
    )
    .unwrap();
    let out = run_host_program(&src, "building the constant-input and stride helpers");
    // 1000 floats and 1000 uint32 indices: 8000 bytes, whole 32-byte blocks already.
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "1 [4, 5, 6] 1 7 00 [4, 5, 6] 0 0 0 11 8000 8000 8 64 1 4096 416\n"
    );
}

/// `__bf16`, the device compiler's bfloat16 type, in kernel code (ops-nn's gelu compares its template
/// type with it): on GCC before 13, which has no such type on x86, it is the twin's bfloat16_t.
#[test]
fn bf16_builtin_names_the_bfloat16_type_in_kernels() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    build_kernel(
        w,
        r#"
#include <type_traits>
#include "kernel_operator.h"
using namespace AscendC;
template <class T> constexpr int32_t kind() { return std::is_same_v<T, __bf16> ? 2 : std::is_same_v<T, half> ? 1 : 0; }
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR y) {
    GlobalTensor<int32_t> yg;
    yg.SetGlobalBuffer((__gm__ int32_t *)y, 8);
    yg.SetValue(0, kind<half>());
    yg.SetValue(1, kind<float>());
    yg.SetValue(2, sizeof(__bf16));
}
extern "C" void twin_launch(uint8_t **a) { k(a[0], a[1]); }
"#,
        "building a kernel that names __bf16",
    );
    let (out, y) = run_kernel(w, &[("x", vec![0u8; 32])], 32);
    assert!(out.status.success(), "{out:?}");
    let words: Vec<i32> = y[..12]
        .chunks(4)
        .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(words, [1, 0, 2]);
}

/// The reference TopK order of the asc-devkit TopK page (docs/zh/api/SIMD-API/高阶API/排序操作/TopK.md): NaN
/// first (largest or smallest), then by value, equal values in row order; the first k positions of `row`.
fn topk_positions(row: &[f32], k: usize, largest: bool) -> Vec<usize> {
    use std::cmp::Ordering;
    let mut pos: Vec<usize> = (0..row.len()).collect();
    pos.sort_by(|&a, &b| {
        let (x, y) = (row[a], row[b]);
        match (x.is_nan(), y.is_nan()) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Less,
            (false, true) => Ordering::Greater,
            _ if largest => y.partial_cmp(&x).unwrap(),
            _ => x.partial_cmp(&y).unwrap(),
        }
    });
    pos.truncate(k);
    pos
}

/// TopK (asc-devkit TopK.md) against the page's rules computed here: Normal mode on 3 rows of 64 floats
/// with ties, a NaN, +inf and -inf (largest with generated indexes; smallest with given indexes and a
/// tmpLocal; finished rows whose indexes become n; the order from a TopKConfig overriding isLargest),
/// Small mode on 4 rows of 32 (smallest with generated indexes, largest with per-row indexes), half data
/// (k_pad 16 for values, 8 for indexes), and an in-place call (destination at its source's address, as
/// moe_gating_top_k_softmax sorts). Outputs sit at rows of k_pad / kpad_index in Normal mode and of k in
/// Small mode, and the padding keeps what was there. The call is traced as Sort32, MrgSort passes and
/// GatherMask; k above n and a short tmpLocal are faults naming TopK.
#[test]
fn topk_normal_small_modes_match_reference() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    build_kernel(
        w,
        r#"
#include "kernel_operator.h"
using namespace AscendC;
constexpr TopKConfig kSmallest = {TopKAlgo::MERGE_SORT, TopKOrder::SMALLEST, true};
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR y) {
    GlobalTensor<float> xg, yg;
    GlobalTensor<int32_t> yi;
    xg.SetGlobalBuffer((__gm__ float *)x, 512);
    yg.SetGlobalBuffer((__gm__ float *)y, 512 * 10);
    yi.SetGlobalBuffer((__gm__ int32_t *)y, 512 * 10);
    TPipe pipe;
    TBuf<TPosition::VECCALC> sb, ib, vb, ob, tb, fb, hb, hv;
    pipe.InitBuffer(sb, 512 * 4); pipe.InitBuffer(ib, 512 * 4);
    pipe.InitBuffer(vb, 256 * 4); pipe.InitBuffer(ob, 256 * 4);
    pipe.InitBuffer(tb, 8192); pipe.InitBuffer(fb, 32);
    pipe.InitBuffer(hb, 256 * 2); pipe.InitBuffer(hv, 256 * 2);
    LocalTensor<float> s = sb.Get<float>(), v = vb.Get<float>();
    LocalTensor<int32_t> ix = ib.Get<int32_t>(), o = ob.Get<int32_t>();
    LocalTensor<uint8_t> tmp = tb.Get<uint8_t>();
    LocalTensor<bool> fin = fb.Get<bool>(), none;
    LocalTensor<half> hs = hb.Get<half>(), hd = hv.Get<half>();
    TopkTiling t{};
    DataCopy(s, xg, 512);
    PipeBarrier<PIPE_ALL>();
    const int mode = (int)s.GetValue(320);
    if (mode == 1) {  // k above n
        TopKInfo bad{3, 64, 4};
        TopK<float>(v, o, s, ix, none, 5, t, bad);
        return;
    }
    if (mode == 3) {  // Normal mode above 4096
        TopKInfo big{1, 4128, 4128};
        TopK<float>(v, o, s, ix, none, 5, t, big);
        return;
    }
    if (mode == 2) {  // tmpLocal short of the minimum for one row of 64
        TopKInfo info{3, 64, 64};
        TopK<float>(v, o, s, ix, none, tmp[0].ReinterpretCast<uint8_t>()[8000], 5, t, info);
        return;
    }
    ArithProgression(ix, 1000, 3, 64);                       // the Normal rows' shared index
    for (int r = 0; r < 4; r++)
        for (int j = 0; j < 32; j++) ix.SetValue(64 + r * 32 + j, r * 100 + j);  // Small rows' own
    fin.SetValue(0, false); fin.SetValue(1, true); fin.SetValue(2, false);
    auto out = [&](int slot) {
        PipeBarrier<PIPE_ALL>();
        DataCopy(yg[slot * 512], v, 256);
        DataCopy(yi[slot * 512 + 256], o, 256);
        PipeBarrier<PIPE_ALL>();
        Duplicate(v, -7.0f, 256);
        Duplicate(o, -7, 256);
        PipeBarrier<PIPE_ALL>();
    };
    Duplicate(v, -7.0f, 256);
    Duplicate(o, -7, 256);
    PipeBarrier<PIPE_ALL>();
    TopKInfo nrm{3, 64, 64}, sml{4, 32, 32};
    TopK<float, false, false, false, TopKMode::TOPK_NORMAL>(v, o, s, ix, none, 5, t, nrm, true);
    out(0);
    TopK<float, true, false, false, TopKMode::TOPK_NORMAL>(v, o, s, ix, none, tmp, 5, t, nrm, false);
    out(1);
    TopK<float, true, true, false, TopKMode::TOPK_NORMAL>(v, o, s, ix, fin, 5, t, nrm, true);
    out(2);
    TopK<float, false, false, false, TopKMode::TOPK_NORMAL, kSmallest>(v, o, s, ix, none, 9, t, nrm, true);
    out(3);
    TopK<float, false, false, false, TopKMode::TOPK_NSMALL>(v, o, s[192], ix, none, 6, t, sml, false);
    out(4);
    TopK<float, true, false, false, TopKMode::TOPK_NSMALL>(v, o, s[192], ix[64], none, tmp, 6, t, sml, true);
    out(5);
    // half: values in rows of 16, indexes in rows of 8
    Cast(hs, s, RoundMode::CAST_NONE, 192);
    Duplicate(hd, (half)-7.0f, 256);
    PipeBarrier<PIPE_ALL>();
    TopK<half, false, false, false, TopKMode::TOPK_NORMAL>(hd, o, hs, ix, none, 3, t, nrm, true);
    PipeBarrier<PIPE_ALL>();
    Cast(v, hd, RoundMode::CAST_NONE, 256);
    out(6);
    // in place: one row of 64 sorted where it lies, its index beside it
    Adds(v, s[64], 0.0f, 64);
    ArithProgression(o, 500, 1, 64);
    PipeBarrier<PIPE_ALL>();
    TopKInfo one{1, 64, 64};
    TopK<float, true, false, false, TopKMode::TOPK_NORMAL>(v, o, v, o, none, 8, t, one, true);
    out(7);
}
extern "C" void twin_launch(uint8_t **a) { k(a[0], a[1]); }
"#,
        "building the TopK kernel",
    );
    // Normal rows (3 x 64): ties of a coarse grid, a NaN in row 1, +inf in row 2, -inf in row 0.
    let mut x = vec![0f32; 512];
    for r in 0..3 {
        for j in 0..64 {
            x[r * 64 + j] = ((j * 37 + r * 11) % 23) as f32 * 0.5 - 5.0;
        }
    }
    x[64 + 10] = f32::NAN;
    x[128 + 5] = f32::INFINITY;
    x[7] = f32::NEG_INFINITY;
    // Small rows (4 x 32), a NaN in row 2.
    for r in 0..4 {
        for j in 0..32 {
            x[192 + r * 32 + j] = ((j * 13 + r * 7) % 17) as f32 - 8.0;
        }
    }
    x[192 + 64 + 3] = f32::NAN;
    let (out, y) = run_kernel(w, &[("x", bytes_f32(&x))], 512 * 10 * 4);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (yf, yi) = (f32s(&y), i32s(&y));
    let same = |a: f32, b: f32| (a.is_nan() && b.is_nan()) || a == b;
    // One case: slot, rows of `len` at `base` in x, k, largest, the row strides of values and indexes,
    // the index of position j in row r, and the rows whose indexes are all n.
    #[allow(clippy::too_many_arguments)]
    let case = |slot: usize,
                base: usize,
                rows: usize,
                len: usize,
                k: usize,
                largest: bool,
                (kv, ki): (usize, usize),
                index: &dyn Fn(usize, usize) -> i32,
                finished: &[usize]| {
        let (vals, idxs) = (
            &yf[slot * 512..slot * 512 + 256],
            &yi[slot * 512 + 256..slot * 512 + 512],
        );
        for r in 0..rows {
            let row = &x[base + r * len..base + (r + 1) * len];
            let want = topk_positions(row, k, largest);
            for (j, &p) in want.iter().enumerate() {
                assert!(
                    same(vals[r * kv + j], row[p]),
                    "slot {slot} row {r} value {j}: {} want {}",
                    vals[r * kv + j],
                    row[p]
                );
                let wi = if finished.contains(&r) {
                    len as i32
                } else {
                    index(r, p)
                };
                assert_eq!(idxs[r * ki + j], wi, "slot {slot} row {r} index {j}");
            }
            for j in k..kv {
                assert_eq!(
                    vals[r * kv + j],
                    -7.0,
                    "slot {slot} row {r}: value padding {j} kept"
                );
            }
            for j in k..ki {
                assert_eq!(
                    idxs[r * ki + j],
                    -7,
                    "slot {slot} row {r}: index padding {j} kept"
                );
            }
        }
        if slot == 7 {
            // in place: past the k results the source row is still there
            let rest = &x[base + k..base + len];
            assert!(
                vals[k..len].iter().zip(rest).all(|(a, b)| same(*a, *b)),
                "slot 7: the source past k"
            );
            assert!(
                idxs[k..len]
                    .iter()
                    .enumerate()
                    .all(|(j, &v)| v == 500 + (k + j) as i32),
                "slot 7: the index past k"
            );
            return;
        }
        // nothing written past the last row
        assert!(
            vals[rows * kv..].iter().all(|&v| v == -7.0),
            "slot {slot}: values past the rows"
        );
        assert!(
            idxs[rows * ki..].iter().all(|&v| v == -7),
            "slot {slot}: indexes past the rows"
        );
    };
    let pos = |_: usize, p: usize| p as i32;
    let given = |_: usize, p: usize| 1000 + 3 * p as i32;
    case(0, 0, 3, 64, 5, true, (8, 8), &pos, &[]);
    case(1, 0, 3, 64, 5, false, (8, 8), &given, &[]);
    case(2, 0, 3, 64, 5, true, (8, 8), &given, &[1]);
    case(3, 0, 3, 64, 9, false, (16, 16), &pos, &[]);
    case(4, 192, 4, 32, 6, false, (6, 6), &pos, &[]);
    case(
        5,
        192,
        4,
        32,
        6,
        true,
        (6, 6),
        &|r, p| (r * 100 + p) as i32,
        &[],
    );
    case(6, 0, 3, 64, 3, true, (16, 8), &pos, &[]);
    case(7, 64, 1, 64, 8, true, (8, 8), &|_, p| 500 + p as i32, &[]);
    // The first slot's values are the page's sample in spirit: row 2's +inf first, row 1's NaN first.
    assert_eq!(yf[2 * 8], f32::INFINITY);
    assert!(yf[8].is_nan());
    let trace = std::fs::read_to_string(w.join("trace.txt")).unwrap();
    for api in [
        "Sort32",
        "MrgSort",
        "GatherMask",
        "CreateVecIndex",
        "Select",
    ] {
        assert!(
            trace.lines().any(|l| l.starts_with(&format!("I V {api} "))),
            "{api} traced:\n{trace}"
        );
    }
    // Faults name the API and the broken rule.
    for (mode, msg) in [
        (1.0f32, "TopK: k 5 must be in 1..n (4)"),
        (2.0, "TopK: tmpLocal holds 192 bytes"),
        (
            3.0,
            "TopK: topKInfo.inner 4128 is above Normal mode's maximum of 4096",
        ),
    ] {
        let mut xm = x.clone();
        xm[320] = mode;
        let (out, _) = run_kernel(w, &[("x", bytes_f32(&xm))], 512 * 10 * 4);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && err.contains(msg),
            "mode {mode}: {err}"
        );
    }
}

/// TopK's host queries (asc-devkit TopK-Tiling.md) compile as an operator's tiling writes them (the tiling
/// struct a TILING_DATA_FIELD_DEF_STRUCT of optiling::TopkTiling, the platform passed in) and answer sane
/// sizes: the minimum one row's share of the maximum for Normal mode, false outside the page's ranges.
#[test]
fn topk_tiling_and_tmp_size_queries() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("host.cpp");
    std::fs::write(
        &src,
        r#"
#include <cstdio>
#include "register/tilingdata_base.h"
#include "tiling/tiling_api.h"
namespace optiling {
BEGIN_TILING_DATA_DEF(TopkCustomTilingData)
    TILING_DATA_FIELD_DEF(int32_t, k);
    TILING_DATA_FIELD_DEF_STRUCT(TopkTiling, topkTilingData);
END_TILING_DATA_DEF;
}
using namespace AscendC;
int main() {
    platform_ascendc::PlatformAscendC plat;
    optiling::TopkCustomTilingData td;
    uint32_t mx = 0, mn = 0;
    bool ok = GetTopKMaxMinTmpSize(plat, 256, 4, false, true, TopKMode::TOPK_NORMAL, true, 4, mx, mn);
    std::printf("%d %u %u\n", ok, mx, mn);
    ok = GetTopKMaxMinTmpSize(plat, 32, 4, false, false, TopKMode::TOPK_NSMALL, false, 2, mx, mn);
    std::printf("%d %u %u\n", ok, mx, mn);
    std::printf("%d %d %d\n", GetTopKMaxMinTmpSize(plat, 48, 4, false, true, TopKMode::TOPK_NORMAL, true, 4, mx, mn),
                GetTopKMaxMinTmpSize(plat, 64, 4, false, true, TopKMode::TOPK_NSMALL, true, 4, mx, mn),
                GetTopKMaxMinTmpSize(plat, 8192, 1, false, true, TopKMode::TOPK_NORMAL, true, 4, mx, mn));
    ok = TopKTilingFunc(plat, 256, 4, 9, 4, true, TopKMode::TOPK_NORMAL, true, td.topkTilingData);
    const TopkTiling &t = td.topkTilingData;
    std::printf("%d %d %d %d %u %d %d %d\n", ok, t.tmpLocalSize, t.allDataSize, t.innerDataSize, t.sortRepeat,
                t.mrgSortRepeat, t.kAlignFourBytes, t.kAlignTwoBytes);
    AscendC::tiling::TopkTiling t2{};
    std::printf("%d %d\n", TopKTilingFunc(plat, 64, 2, 65, 2, false, TopKMode::TOPK_NORMAL, true, t2),
                TopKTilingFunc(plat, 64, 2, 64, 2, false, TopKMode::TOPK_NORMAL, true, t2));
    std::printf("%zu\n", sizeof(TopkTiling));
    return 0;
}
"#,
    )
    .unwrap();
    let out = run_host_program(&src, "building the TopK tiling host check");
    // 256 x 4 floats with given indexes, largest: two 8-byte structure areas a row (256 * 16 = 4096), 4 rows
    // for the maximum. Small mode, 4 rows of 32 halves, smallest, generated indexes: 32 * 8 + 32 * 2 + 32 * 4
    // = 448 a row, 1792 for 4. inner 48 (not a multiple of 32), Small with inner 64: false; Normal above
    // 4096 answers (the tiling page sets no maximum; the kernel API faults on it). The tiling: 4 rows of 256 in 8 Sort32 repeats each and 2 MrgSort passes (32 -> 128 -> 512), k 9
    // -> 16 for both alignments. k above inner fails. The struct: 24 4-byte fields and 8 2-byte ones.
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "1 16384 4096\n1 1792 448\n0 0 1\n1 4096 1024 256 32 2 16 16\n0 1\n112\n"
    );
}

/// SoftmaxFlashV2 (asc-devkit SoftmaxFlashV2.md) against the page's Python computed here in f64: a first
/// block of 2 rows of 16 floats (13 real) without update (max, exp, sum), then a second block with update,
/// its inMax / inExpSum the first call's outputs in place (as moe_gating_top_k_softmax chains it): the
/// new max, exp(x - max), expMax = exp(inMax - max), sum = expMax * inSum + sum(exp). The tiling comes from
/// the kernel-side SoftMaxFlashV2TilingFunc; with SOFTMAX_OUTPUT_WITHOUT_BRC the per-row outputs are one
/// element a row, and the outReduceMax overload gives the block's own max. The host's tiling and scratch
/// queries take the page's arguments.
#[test]
fn softmax_flash_v2_chains_blocks_as_the_page_states() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    build_kernel(
        w,
        r#"
#include "kernel_operator.h"
using namespace AscendC;
constexpr SoftmaxConfig kNoBrc = {false, 0, 0, SoftmaxMode::SOFTMAX_OUTPUT_WITHOUT_BRC};
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR y) {
    GlobalTensor<float> xg, yg;
    xg.SetGlobalBuffer((__gm__ float *)x, 64);
    yg.SetGlobalBuffer((__gm__ float *)y, 256);
    TPipe pipe;
    TBuf<TPosition::VECCALC> ab, db, sb, mb, eb;
    pipe.InitBuffer(ab, 256); pipe.InitBuffer(db, 128); pipe.InitBuffer(sb, 64); pipe.InitBuffer(mb, 64);
    pipe.InitBuffer(eb, 64);
    LocalTensor<float> a = ab.Get<float>(), d = db.Get<float>(), s = sb.Get<float>(), m = mb.Get<float>(),
                       e = eb.Get<float>(), none;
    DataCopy(a, xg, 64);
    PipeBarrier<PIPE_ALL>();
    SoftMaxShapeInfo si{2, 16, 2, 13};
    SoftMaxTiling t = SoftMaxFlashV2TilingFunc(si, 4, 4, 0, true);
    SoftmaxFlashV2<float, false>(d, s, m, a, e, none, none, t, si);
    PipeBarrier<PIPE_ALL>(); DataCopy(yg, d, 32); DataCopy(yg[32], s, 16); DataCopy(yg[48], m, 16); PipeBarrier<PIPE_ALL>();
    SoftmaxFlashV2<float, true>(d, s, m, a[32], e, s, m, t, si);
    PipeBarrier<PIPE_ALL>();
    DataCopy(yg[64], d, 32); DataCopy(yg[96], s, 16); DataCopy(yg[112], m, 16); DataCopy(yg[128], e, 16);
    PipeBarrier<PIPE_ALL>();
    // not broadcast: one element a row; the block's own max beside
    LocalTensor<float> rm = ab.Get<float>()[48];
    Duplicate(s, -1.0f, 16); Duplicate(m, -1.0f, 16); Duplicate(e, -1.0f, 16);
    s.SetValue(0, 2.0f); s.SetValue(1, 3.0f); m.SetValue(0, 0.5f); m.SetValue(1, 9.0f);
    SoftmaxFlashV2<float, true, false, false, false, kNoBrc>(d, rm, s, m, a[32], e, s, m, t, si);
    PipeBarrier<PIPE_ALL>();
    DataCopy(yg[144], s, 16); DataCopy(yg[160], m, 16); DataCopy(yg[176], e, 16); DataCopy(yg[192], rm, 16);
    PipeBarrier<PIPE_ALL>();
    yg.SetValue(208, (float)t.srcM); yg.SetValue(209, (float)t.srcK); yg.SetValue(210, (float)t.reduceK);
    yg.SetValue(211, (float)SoftMaxFlashV2TilingFunc(si, 4, 4, 0, true, false, false, true).reduceK);
}
extern "C" void twin_launch(uint8_t **a) { k(a[0], a[1]); }
"#,
        "building the SoftmaxFlashV2 kernel",
    );
    let x: Vec<f32> = (0..64)
        .map(|i| ((i * 29 % 43) as f32 - 21.0) * 0.3)
        .collect();
    let (out, y) = run_kernel(w, &[("x", bytes_f32(&x))], 256 * 4);
    assert!(out.status.success(), "{out:?}");
    let y = f32s(&y);
    let close = |got: f32, want: f64, what: &str| {
        assert!(
            (got as f64 - want).abs() <= 1e-6 + 1e-5 * want.abs(),
            "{what}: {got} vs {want}"
        );
    };
    let row = |b: usize, r: usize| -> Vec<f64> {
        x[b * 32 + r * 16..b * 32 + r * 16 + 16]
            .iter()
            .map(|v| *v as f64)
            .collect()
    };
    let rmax = |v: &[f64]| v[..13].iter().cloned().fold(f64::MIN, f64::max);
    for r in 0..2 {
        // first block
        let (r0, r1) = (row(0, r), row(1, r));
        let m0 = rmax(&r0);
        let s0: f64 = r0[..13].iter().map(|v| (v - m0).exp()).sum();
        for j in 0..16 {
            close(y[r * 16 + j], (r0[j] - m0).exp(), "first exp");
        }
        for j in 0..8 {
            close(y[32 + r * 8 + j], s0, "first sum");
            close(y[48 + r * 8 + j], m0, "first max");
        }
        // second block, updating the first's statistics
        let m1 = m0.max(rmax(&r1));
        let em = (m0 - m1).exp();
        let s1 = em * s0 + r1[..13].iter().map(|v| (v - m1).exp()).sum::<f64>();
        for j in 0..16 {
            close(y[64 + r * 16 + j], (r1[j] - m1).exp(), "update exp");
        }
        for j in 0..8 {
            close(y[96 + r * 8 + j], s1, "update sum");
            close(y[112 + r * 8 + j], m1, "update max");
            close(y[128 + r * 8 + j], em, "update expMax");
        }
        // not broadcast: inSum 2 / 3, inMax 0.5 / 9 in element r
        let (is, im): (f64, f64) = ([2.0, 3.0][r], [0.5, 9.0][r]);
        let mn = im.max(rmax(&r1));
        let en = (im - mn).exp();
        let sn = en * is + r1[..13].iter().map(|v| (v - mn).exp()).sum::<f64>();
        close(y[144 + r], sn, "no-brc sum");
        close(y[160 + r], mn, "no-brc max");
        close(y[176 + r], en, "no-brc expMax");
        close(y[192 + r], rmax(&r1), "outReduceMax");
    }
    assert!(y[146..160].iter().all(|&v| v == -1.0), "one element a row");
    assert_eq!(&y[208..212], &[2.0, 16.0, 8.0, 1.0]);
    // host side: the tiling and the scratch bounds as the moe_gating_top_k_softmax tilings call them
    let src = w.join("host.cpp");
    std::fs::write(
        &src,
        r#"
#include <cstdio>
#include "register/tilingdata_base.h"
#include "tiling/tiling_api.h"
namespace optiling {
BEGIN_TILING_DATA_DEF(FlashTiling)
TILING_DATA_FIELD_DEF_STRUCT(SoftMaxTiling, sm);
END_TILING_DATA_DEF;
}
using namespace AscendC;
int main() {
    optiling::FlashTiling td;
    ge::Shape shape({1000});
    SoftMaxFlashV2TilingFunc(shape, 4, 4, GetSoftMaxFlashV2MaxTmpSize(shape, 4, 4, true), td.sm, true);
    std::printf("%u %u %u %u\n", GetSoftMaxFlashV2MinTmpSize(shape, 2, 4, false), td.sm.srcM, td.sm.srcK, td.sm.reduceK);
    SoftMaxFlashV2TilingFunc(ge::Shape({4, 64}), 2, 2, 0, td.sm, false, false, true);
    std::printf("%u %u %u\n", td.sm.srcM, td.sm.srcK, td.sm.reduceK);
    return 0;
}
"#,
    )
    .unwrap();
    let out = run_host_program(&src, "building the SoftmaxFlashV2 host check");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "2016 1 1000 8\n4 64 1\n"
    );
}

/// BlockReduceMaxIntrinsicsImpl / BlockReduceSumIntrinsicsImpl on raw UB addresses (`(__ubuf__ float *)
/// local.GetPhyAddr()`, as moe_gating_top_k_softmax's perf kernel calls them) under a counter-mode mask of 3
/// blocks: one result per 32-byte block, as BlockReduceMax / BlockReduceSum.
#[test]
fn block_reduce_intrinsics_on_raw_ub_addresses() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    build_kernel(
        w,
        r#"
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR y) {
    GlobalTensor<float> xg, yg;
    xg.SetGlobalBuffer((__gm__ float *)x, 32);
    yg.SetGlobalBuffer((__gm__ float *)y, 16);
    TPipe pipe;
    TBuf<TPosition::VECCALC> ab, db;
    pipe.InitBuffer(ab, 128); pipe.InitBuffer(db, 64);
    LocalTensor<float> a = ab.Get<float>(), d = db.Get<float>();
    DataCopy(a, xg, 32);
    Duplicate(d, -1.0f, 16);
    PipeBarrier<PIPE_ALL>();
    AscendCUtils::SetMaskCount<float>();
    SetVectorMask<float, MaskMode::COUNTER>(0, 3 * 8);
    BlockReduceMaxIntrinsicsImpl((__ubuf__ float *)d.GetPhyAddr(), (__ubuf__ float *)a.GetPhyAddr(), 1, 1, 1, 8);
    BlockReduceSumIntrinsicsImpl((__ubuf__ float *)d[8].GetPhyAddr(), (__ubuf__ float *)a.GetPhyAddr(), 1, 1, 1, 8);
    AscendCUtils::SetMaskNorm<float>();
    PipeBarrier<PIPE_ALL>();
    DataCopy(yg, d, 16);
}
extern "C" void twin_launch(uint8_t **a) { k(a[0], a[1]); }
"#,
        "building the BlockReduce intrinsics kernel",
    );
    let x: Vec<f32> = (0..32).map(|i| ((i * 7) % 11) as f32 - 3.0).collect();
    let (out, y) = run_kernel(w, &[("x", bytes_f32(&x))], 16 * 4);
    assert!(out.status.success(), "{out:?}");
    let y = f32s(&y);
    for b in 0..3 {
        let blk = &x[b * 8..b * 8 + 8];
        assert_eq!(
            y[b],
            blk.iter().cloned().fold(f32::MIN, f32::max),
            "max {b}"
        );
        assert_eq!(y[8 + b], blk.iter().sum::<f32>(), "sum {b}");
    }
    // the repeat's other five blocks hold no selected element: 0, as the twin's BlockReduceMax / Sum write them
    assert!(y[3..8].iter().chain(&y[11..16]).all(|&v| v == 0.0), "{y:?}");
}

/// The handle forms of basic_api/kernel_tpipe.h: `TBufHandle DeQue()` takes the next buffer out of the
/// queue (ops-cv's grid_sample calls it, dropping the handle, to wait for its copy-in) and
/// `EnQue(TBufHandle)` queues the buffer a handle names. The twin had only the LocalTensor forms, and
/// grid_sample stopped at "no matching function for call to TQue<VECIN, 1>::DeQue()". Mode 0: x + 2
/// through a handle round trip; mode 1: DeQue() of an empty queue is a fault.
#[test]
fn tque_dequeues_and_enqueues_by_buffer_handle() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    build_kernel(
        w,
        r#"
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR m, GM_ADDR y) {
    TPipe pipe;
    TQue<TPosition::VECIN, 1> q;
    pipe.InitBuffer(q, 1, 64 * sizeof(float));
    GlobalTensor<float> xg, yg;
    GlobalTensor<int32_t> mg;
    xg.SetGlobalBuffer((__gm__ float *)x, 64);
    yg.SetGlobalBuffer((__gm__ float *)y, 64);
    mg.SetGlobalBuffer((__gm__ int32_t *)m, 8);
    int32_t mode = mg.GetValue(0);
    LocalTensor<float> t = q.AllocTensor<float>();
    DataCopy(t, xg, 64);
    q.EnQue(t);
    TBufHandle h = q.DeQue();
    Adds(t, t, 1.0f, 64);
    q.EnQue(h);
    if (mode == 1) { q.DeQue(); q.DeQue(); }
    LocalTensor<float> v = q.DeQue<float>();
    Adds(v, v, 1.0f, 64);
    DataCopy(yg, v, 64);
    q.FreeTensor(v);
}
extern "C" void twin_launch(uint8_t **a) { k(a[0], a[1], a[2]); }
"#,
        "building the TQue handle kernel",
    );
    let x: Vec<f32> = (0..64).map(|i| i as f32 * 0.25 - 3.0).collect();
    let mode = mode_bytes;
    let (out, y) = run_kernel(w, &[("x", bytes_f32(&x)), ("m", mode(0))], 256);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let want: Vec<f32> = x.iter().map(|v| v + 1.0 + 1.0).collect();
    assert_eq!(f32s(&y), want);
    let (out, _) = run_kernel(w, &[("x", bytes_f32(&x)), ("m", mode(1))], 256);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("is empty"), "{err}");
}

/// Gatherb (asc-devkit docs/zh/api/SIMD-API/基础API/Memory矢量计算/离散与聚合/Gatherb(ISASI).md), which ops-cv's
/// grid_sample calls with `GatherRepeatParams params{1, 8}`: repeat i copies 8 whole 32-byte blocks, block
/// j from src at byte offset offset[i * 8 + j], to dst + (i * dstRepStride + j * dstBlkStride) blocks;
/// dstBlkStride 0 counts as 1. Checked against the page's pseudo-code computed in Rust, for {1, 8} over 2
/// repeats and {0, 16} over 1; an offset that leaves a block unaligned is a fault.
#[test]
fn gatherb_copies_whole_blocks_as_the_pages_pseudo_code() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    build_kernel(
        w,
        r#"
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR o, GM_ADDR y) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> bs, bo, bd;
    pipe.InitBuffer(bs, 16 * 32);
    pipe.InitBuffer(bo, 16 * 4);
    pipe.InitBuffer(bd, 48 * 32);
    GlobalTensor<uint16_t> xg, yg;
    GlobalTensor<uint32_t> og;
    xg.SetGlobalBuffer((__gm__ uint16_t *)x, 256);
    og.SetGlobalBuffer((__gm__ uint32_t *)o, 16);
    yg.SetGlobalBuffer((__gm__ uint16_t *)y, 768);
    LocalTensor<uint16_t> s = bs.Get<uint16_t>(), d = bd.Get<uint16_t>();
    LocalTensor<uint32_t> off = bo.Get<uint32_t>();
    DataCopy(s, xg, 256);
    DataCopy(off, og, 16);
    Duplicate(d, (uint16_t)0xffff, 768);
    PipeBarrier<PIPE_ALL>();
    GatherRepeatParams p{1, 8};
    Gatherb(d, s, off, 2, p);
    GatherRepeatParams q{0, 16};
    Gatherb(d[16 * 16], s, off, 1, q);
    if (off.GetValue(15) == 2) Gatherb(d, s, off, 2, p);
    PipeBarrier<PIPE_ALL>();
    DataCopy(yg, d, 768);
}
extern "C" void twin_launch(uint8_t **a) { k(a[0], a[1], a[2]); }
"#,
        "building the Gatherb kernel",
    );
    let x: Vec<u16> = (0..256).map(|i| (i * 7 + 3) as u16).collect();
    let offsets: Vec<u32> = (0..16).map(|j| ((j * 5 + 3) % 16) * 32).collect();
    let bytes = |v: &[u32]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
    let xb: Vec<u8> = x.iter().flat_map(|v| v.to_le_bytes()).collect();
    let (out, y) = run_kernel(w, &[("x", xb.clone()), ("o", bytes(&offsets))], 768 * 2);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let y: Vec<u16> = y
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect();
    // the page's pseudo-code, 16 elements a block
    let mut want = vec![0xffffu16; 768];
    let mut gatherb = |base: usize, repeats: usize, blk: usize, rep: usize| {
        let blk = if blk == 0 { 1 } else { blk };
        for i in 0..repeats {
            for j in 0..8 {
                let s = offsets[i * 8 + j] as usize / 2;
                let d = base + (i * rep + j * blk) * 16;
                want[d..d + 16].copy_from_slice(&x[s..s + 16]);
            }
        }
    };
    gatherb(0, 2, 1, 8);
    gatherb(16 * 16, 1, 0, 16);
    assert_eq!(y, want);
    // a block offset of 2 bytes: unaligned
    let mut bad = offsets.clone();
    bad[15] = 2;
    let (out, _) = run_kernel(w, &[("x", xb), ("o", bytes(&bad))], 768 * 2);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("Gatherb: offset 2 of block 15"),
        "{err}"
    );
}

/// ops-transformer's moe_gating_top_k includes `kernel_utils.h` (asc-devkit's internal header that
/// kernel_operator.h includes) and reads -inf as `*(float *)(&F32_NEG_INF)`
/// (impl/basic_api/utils/kernel_utils_constants.h): both missing stopped its build.
#[test]
fn kernel_utils_header_and_the_float_bit_pattern_constants() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    build_kernel(
        w,
        r#"
#include "kernel_operator.h"
#include "kernel_utils.h"
using namespace AscendC;
const float MIN_FP32 = *(float *)(&F32_NEG_INF);
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR y) {
    GlobalTensor<float> yg;
    yg.SetGlobalBuffer((__gm__ float *)y, 8);
    yg.SetValue(0, MIN_FP32);
    yg.SetValue(1, *(float *)(&F32_INF));
    uint32_t nan = F32_NAN;
    yg.SetValue(2, *(float *)(&nan));
}
extern "C" void twin_launch(uint8_t **a) { k(a[0], a[1]); }
"#,
        "building the kernel_utils.h kernel",
    );
    let (out, y) = run_kernel(w, &[("x", vec![0u8; 32])], 32);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let y = f32s(&y);
    assert_eq!(y[0], f32::NEG_INFINITY);
    assert_eq!(y[1], f32::INFINITY);
    assert!(y[2].is_nan());
}

/// A GM read may start up to 32 B before its allocation: on the device those bytes are the padding of
/// whatever precedes it (ops-nn ctc_loss_v3 reads alpha[-1] and alpha[-2] of its workspace at t = 0 and
/// overwrites them with SetValue; the twin stopped it as out of bounds). Here they read as 0 and the
/// rest is the allocation's; 64 B before is still a fault, and so is any write before the start.
#[test]
fn a_gm_read_may_start_in_the_padding_before_its_allocation() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    std::fs::write(
        w.join("launch.cpp"),
        r#"
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void before(GM_ADDR x, GM_ADDR y) {
    GlobalTensor<float> xg, yg;
    xg.SetGlobalBuffer((__gm__ float *)x, 64);
    yg.SetGlobalBuffer((__gm__ float *)y, 64);
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 256);
    LocalTensor<float> t = b.Get<float>();
    DataCopyPadParams pad = {false, 0, 0, 0};
    DataCopyParams one = {1, 8 * sizeof(float), 0, 0};
    DataCopyPad(t, xg[-BACK], one, pad);
    PipeBarrier<PIPE_ALL>();
#ifdef WRITE_BEFORE
    DataCopyPad(yg[-1], t, one);
#else
    DataCopyPad(yg, t, one);
#endif
}
extern "C" void twin_launch(uint8_t **a) { before(a[0], a[1]); }
"#,
    )
    .unwrap();
    build_launch(w, "two", &["-DBACK=2"]);
    build_launch(w, "sixteen", &["-DBACK=16"]);
    build_launch(w, "write", &["-DBACK=0", "-DWRITE_BEFORE"]);
    let x: Vec<f32> = (0..64).map(|i| 1.5 + i as f32).collect();
    let bytes: Vec<u8> = x.iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(w.join("x.bin"), &bytes).unwrap();
    write_run(
        w,
        &[("input", "x", "x.bin", 256), ("output", "y", "y.bin", 256)],
    );
    run_ok(
        Command::new(w.join("two")).arg(w.join("run.txt")),
        "the kernel reading 8 B before x",
    );
    let y: Vec<f32> = std::fs::read(w.join("y.bin")).unwrap()[..32]
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let mut want = vec![0.0, 0.0];
    want.extend_from_slice(&x[..6]);
    assert_eq!(y, want);
    for (prog, want) in [("sixteen", "GM read"), ("write", "GM write")] {
        assert_faults(w, prog, want);
    }
}

/// Reg::ShiftLefts / ShiftRights (asc-devkit docs/api/context/ShiftLefts.md, asc_shiftleft_scalar.md): a
/// twin gap that stopped ops-nn's bn3d_training_reduce at its build. Left is logical with the lanes the
/// mask leaves out zeroed; right is arithmetic on a signed register and logical on an unsigned one. The
/// reference is computed here.
#[test]
fn reg_shift_by_a_scalar_is_logical_left_and_signed_or_unsigned_right() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    std::fs::write(
        w.join("launch.cpp"),
        r#"
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void shifts(GM_ADDR x, GM_ADDR y) {
    GlobalTensor<int32_t> xg, yg;
    xg.SetGlobalBuffer((__gm__ int32_t *)x, 64);
    yg.SetGlobalBuffer((__gm__ int32_t *)y, 192);
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 1024);
    LocalTensor<int32_t> t = b.Get<int32_t>();
    DataCopy(t, xg, 64);
    PipeBarrier<PIPE_ALL>();
    __ubuf__ int32_t *u = (__ubuf__ int32_t *)(uintptr_t)t.GetPhyAddr();
    Reg::RegTensor<int32_t> r, l, s;
    Reg::RegTensor<uint32_t> ru, su;
    Reg::LoadAlign(r, u);
    Reg::LoadAlign(ru, (__ubuf__ uint32_t *)u);
    uint32_t forty = 40;
    Reg::MaskReg m40 = Reg::UpdateMask<int32_t>(forty);
    Reg::MaskReg all = Reg::CreateMask<int32_t>();
    Reg::ShiftLefts(l, r, (int16_t)3, m40);
    Reg::ShiftRights(s, r, (int16_t)2, all);
    Reg::ShiftRights(su, ru, (int16_t)2, all);
    Reg::StoreAlign(u + 64, l, all);
    Reg::StoreAlign(u + 128, s, all);
    Reg::StoreAlign((__ubuf__ uint32_t *)(u + 192), su, all);
    PipeBarrier<PIPE_ALL>();
    DataCopy(yg, t[64], 192);
}
extern "C" void twin_launch(uint8_t **a) { shifts(a[0], a[1]); }
"#,
    )
    .unwrap();
    build_launch(w, "shifts", &[]);
    let x: Vec<i32> = (0..64i64)
        .map(|i| (i * 37_000_001 - 1_000_000_000) as i32)
        .collect();
    let bytes: Vec<u8> = x.iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(w.join("x.bin"), &bytes).unwrap();
    write_run(
        w,
        &[("input", "x", "x.bin", 256), ("output", "y", "y.bin", 768)],
    );
    run_ok(
        Command::new(w.join("shifts")).arg(w.join("run.txt")),
        "the shift kernel",
    );
    let y: Vec<i32> = std::fs::read(w.join("y.bin"))
        .unwrap()
        .chunks(4)
        .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let mut want: Vec<i32> = x
        .iter()
        .enumerate()
        .map(|(i, &v)| if i < 40 { ((v as u32) << 3) as i32 } else { 0 })
        .collect();
    want.extend(x.iter().map(|&v| v >> 2));
    want.extend(x.iter().map(|&v| ((v as u32) >> 2) as i32));
    assert_eq!(y, want);
}

/// TBuf::Get(len) past the buffer's InitBuffer length: the docs ask for no more, the device does not
/// check, and the tensor runs on into the UB after the buffer (ops-nn group_norm_swish_grad takes a
/// group's length from a one-channel buffer; the twin stopped it). Here too, with a warning: 32 floats
/// written through a 64-byte buffer land in the buffer placed after it.
#[test]
fn a_tbuf_get_past_its_buffer_runs_into_the_next_buffer_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    std::fs::write(
        w.join("launch.cpp"),
        r#"
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void past(GM_ADDR y) {
    GlobalTensor<float> yg;
    yg.SetGlobalBuffer((__gm__ float *)y, 16);
    TPipe pipe;
    TBuf<TPosition::VECCALC> a, b;
    pipe.InitBuffer(a, 64);
    pipe.InitBuffer(b, 64);
    LocalTensor<float> wide = a.Get<float>(32);
    Duplicate(wide, 3.0f, 32);
    PipeBarrier<PIPE_ALL>();
    DataCopy(yg, b.Get<float>(), 16);
}
extern "C" void twin_launch(uint8_t **a) { past(a[0]); }
"#,
    )
    .unwrap();
    build_launch(w, "past", &[]);
    write_run(w, &[("output", "y", "y.bin", 64)]);
    let out = Command::new(w.join("past"))
        .arg(w.join("run.txt"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("TBuf::Get: 32 elements (128 bytes) exceed the buffer of 64 bytes"),
        "{err}"
    );
    let y: Vec<f32> = std::fs::read(w.join("y.bin"))
        .unwrap()
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(y, vec![3.0; 16]);
}

/// `aclFloat16` and its two conversions in the twin's ACL subset (asc-devkit's matmul examples print
/// their outputs through `aclFloat16ToFloat`; their `data_utils.h` stopped at "aclFloat16 does not name a
/// type"), checked against the `half` crate: every one of the 65536 half bit patterns to float, and
/// floats across the half range (normal, subnormal, ties, overflow, NaN) to half. Compiled with the
/// include path twin-asc gives (the package's `include`, then the twin's kernel headers).
#[test]
fn acl_float16_conversions_are_ieee_binary16() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("f16.cpp");
    std::fs::write(
        &src,
        r#"
#include <cstdio>
#include "acl/acl.h"
int main(int argc, char **argv) {
    for (uint32_t h = 0; h < 65536; h++) {
        float f = aclFloat16ToFloat((aclFloat16)h);
        uint32_t b; std::memcpy(&b, &f, 4);
        std::printf("%08x\n", b);
    }
    for (int i = 1; i < argc; i++) {
        uint32_t b = (uint32_t)std::strtoul(argv[i], nullptr, 16);
        float f; std::memcpy(&f, &b, 4);
        std::printf("%04x\n", aclFloatToFloat16(f));
    }
    return 0;
}
"#,
    )
    .unwrap();
    let exe = src.with_extension("");
    run_ok(
        Command::new(compiler())
            .args(["-std=c++17", "-w", "-I"])
            .arg(twin_dir().join("package/include"))
            .arg("-I")
            .arg(twin_dir().join("include/kernel"))
            .arg(&src)
            .arg("-o")
            .arg(&exe),
        "building the aclFloat16 check",
    );
    let mut floats: Vec<f32> = vec![
        0.0,
        -0.0,
        1.0,
        -2.5,
        65504.0,
        65520.0,
        65519.99,
        1.0e6,
        -1.0e6,
        6.1035156e-5,
        5.9604645e-8,
        2.9802322e-8,
        2.9802326e-8,
        8.940697e-8,
        1.0009766,
        1.0004883,
        1.0014648,
        3.0e-6,
        -3.0e-6,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
    ];
    let mut s: u32 = 7;
    for _ in 0..2000 {
        s = s.wrapping_mul(1_103_515_245).wrapping_add(12345);
        floats.push(f32::from_bits(s & 0xc7ff_ffff)); // exponents up to 2^15 and down to subnormals
    }
    let args: Vec<String> = floats
        .iter()
        .map(|f| format!("{:08x}", f.to_bits()))
        .collect();
    let out = Command::new(&exe).args(&args).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    for h in 0..65536u32 {
        let want = f16::from_bits(h as u16).to_f32();
        let got = f32::from_bits(u32::from_str_radix(lines[h as usize], 16).unwrap());
        assert!(
            got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
            "half {h:04x}: {got} vs {want}"
        );
    }
    for (f, line) in floats.iter().zip(&lines[65536..]) {
        let got = u16::from_str_radix(line, 16).unwrap();
        let want = f16::from_f32(*f).to_bits();
        assert_eq!(got, want, "float {f:e} ({:08x})", f.to_bits());
    }
}

/// A `__cube__` kernel runs on the cube cores: `ASCEND_IS_AIV` is false and `ASCEND_IS_AIC` true in it
/// (asc-devkit's matmul_constant_tiling returns early `if ASCEND_IS_AIV`; the twin ran it as a vector
/// core and its output stayed zeros). Without `__cube__`, a kernel that is not mixed answers AIV.
#[test]
fn a_cube_kernel_runs_as_an_aic() {
    let kernel = |qualifier: &str| {
        format!(
            r#"
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ {qualifier} void k(GM_ADDR y) {{
    GlobalTensor<float> yg;
    yg.SetGlobalBuffer((__gm__ float *)y, 8);
    yg.SetValue(0, ASCEND_IS_AIC ? 1.0f : 0.0f);
    if ASCEND_IS_AIV {{
        return;
    }}
    yg.SetValue(1, 2.0f);
}}
extern "C" void twin_launch(uint8_t **a) {{ k(a[0]); }}
"#
        )
    };
    for (qualifier, want) in [("__cube__", [1.0f32, 2.0]), ("__aicore__", [0.0, 0.0])] {
        let dir = tempfile::tempdir().unwrap();
        let w = dir.path();
        build_kernel(w, &kernel(qualifier), "building the core-kind kernel");
        let (out, y) = run_kernel(w, &[], 32);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(&f32s(&y)[..2], &want, "{qualifier}");
    }
}

/// Names asc-devkit's cube examples use as CANN declares them, which the twin had only inside AscendC
/// or not at all (each stopped a public example's build): the matmul configuration outside any
/// namespace (`MatmulConfig`, `GetMDLConfig`, `CFG_MDL`: matmul_preload), the compiler's `QuantMode_t`
/// (fixpipe_l0c2gm), `DEFAULT_C0_SIZE` (data_copy_l0c2gm), the `__kfc_workspace__` parameter
/// qualifier (matmul_fused) and `assert` (fixpipe_l0c2gm). Their values are checked where they have one.
#[test]
fn cube_examples_names_as_cann_declares_them() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    build_kernel(
        w,
        r#"
#include "kernel_operator.h"
#include "lib/matmul_intf.h"
static constexpr MatmulConfig kPreload = GetMDLConfig(false, false, 2);
static constexpr MatmulConfig kMdl = CFG_MDL;
extern "C" __global__ __aicore__ void k(__gm__ uint8_t *__kfc_workspace__ y) {
    AscendC::GlobalTensor<float> yg;
    yg.SetGlobalBuffer((__gm__ float *)y, 8);
    assert(AscendC::DEFAULT_C0_SIZE == 32);
    yg.SetValue(0, (float)AscendC::DEFAULT_C0_SIZE);
    yg.SetValue(1, (float)(int)QuantMode_t::QF322B8_PRE);
    yg.SetValue(2, kPreload.doMTE2Preload);
    yg.SetValue(3, kMdl.doNorm ? 1.0f : 0.0f);
}
extern "C" void twin_launch(uint8_t **a) { k(a[0]); }
"#,
        "building the cube-names kernel",
    );
    let (out, y) = run_kernel(w, &[], 32);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(&f32s(&y)[..4], &[32.0, 5.0, 2.0, 0.0]);
}

/// A Matmul whose C is in the UB (`MatmulType<TPosition::VECIN, ...>`), read block by block with the
/// documented `Iterate<true>()` / `GetTensorC<true>(LocalTensor)` (the learning hub's matmul_abs, whose
/// vector epilogue then takes |C|), and again in the async form, one `Iterate<false>()` and a
/// `GetTensorC<false>` per block (asc-devkit's matmul_fused): A 32 x 32 by B 32 x 16 in base blocks of
/// 16 x 16 x 32, each block copied to `y` in M-first order, against a product computed here.
#[test]
fn a_matmul_with_c_in_the_ub_gives_each_block_to_getensorc() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    build_kernel(
        w,
        r#"
#include "kernel_operator.h"
#include "lib/matmul_intf.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void k(GM_ADDR a, GM_ADDR b, GM_ADDR y) {
    TCubeTiling t{};
    t.usedCoreNum = 1; t.M = 32; t.N = 16; t.Ka = 32; t.Kb = 32;
    t.singleCoreM = 32; t.singleCoreN = 16; t.singleCoreK = 32;
    t.baseM = 16; t.baseN = 16; t.baseK = 32; t.depthA1 = 1; t.depthB1 = 1;
    t.stepM = 1; t.stepN = 1; t.stepKa = 1; t.stepKb = 1; t.iterateOrder = 0;
    t.dbL0A = 1; t.dbL0B = 1; t.dbL0C = 1;
    GlobalTensor<half> ag, bg;
    GlobalTensor<float> yg;
    ag.SetGlobalBuffer((__gm__ half *)a, 32 * 32);
    bg.SetGlobalBuffer((__gm__ half *)b, 32 * 16);
    yg.SetGlobalBuffer((__gm__ float *)y, 2 * 32 * 16);
    TPipe pipe;
    TQue<TPosition::VECIN, 1> cq;
    pipe.InitBuffer(cq, 1, 16 * 16 * sizeof(float));
    Matmul<MatmulType<TPosition::GM, CubeFormat::ND, half>, MatmulType<TPosition::GM, CubeFormat::ND, half>,
           MatmulType<TPosition::VECIN, CubeFormat::ND, float>>
        mm;
    mm.Init(&t, &pipe);
    mm.SetTensorA(ag);
    mm.SetTensorB(bg);
    uint32_t block = 0;
    while (mm.template Iterate<true>()) {
        LocalTensor<float> c = cq.AllocTensor<float>();
        mm.template GetTensorC<true>(c, false, true);
        cq.EnQue(c);
        c = cq.DeQue<float>();
        DataCopy(yg[block * 256], c, 256);
        cq.FreeTensor(c);
        block++;
    }
    mm.End();
    // async (Iterate.md): one Iterate<false>() starts it all, each GetTensorC<false> takes the next block
    mm.SetTensorA(ag);
    mm.SetTensorB(bg);
    mm.template Iterate<false>();
    for (uint32_t b = 0; b < 2; b++) {
        LocalTensor<float> c = cq.AllocTensor<float>();
        mm.template GetTensorC<false>(c, false, true);
        cq.EnQue(c);
        c = cq.DeQue<float>();
        DataCopy(yg[512 + b * 256], c, 256);
        cq.FreeTensor(c);
    }
    mm.End();
}
extern "C" void twin_launch(uint8_t **a) { k(a[0], a[1], a[2]); }
"#,
        "building the UB-C Matmul kernel",
    );
    let a: Vec<f16> = (0..32 * 32)
        .map(|i| f16::from_f32(((i * 7 % 13) as f32 - 6.0) * 0.25))
        .collect();
    let b: Vec<f16> = (0..32 * 16)
        .map(|i| f16::from_f32(((i * 5 % 11) as f32 - 5.0) * 0.5))
        .collect();
    let bytes = |v: &[f16]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let (out, y) = run_kernel(w, &[("a", bytes(&a)), ("b", bytes(&b))], 2 * 32 * 16 * 4);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got = f32s(&y);
    // block 0 is rows 0..16, block 1 rows 16..32 (M first; N has one block), each 16 x 16 row-major
    for blk in 0..2 {
        for r in 0..16 {
            for c in 0..16 {
                let m = blk * 16 + r;
                let want: f32 = (0..32)
                    .map(|k| a[m * 32 + k].to_f32() * b[k * 16 + c].to_f32())
                    .sum();
                assert_eq!(
                    got[blk * 256 + r * 16 + c],
                    want,
                    "block {blk} row {r} col {c}"
                );
                assert_eq!(
                    got[512 + blk * 256 + r * 16 + c],
                    want,
                    "async block {blk} row {r} col {c}"
                );
            }
        }
    }
}

/// The kernel sources of the Matmul tests below open with this: the headers, and `mk_tiling`, a one-core
/// tiling of 16 x 16 x 32 base blocks over an m x n x k product.
const MATMUL_PRELUDE: &str = r#"
#include "kernel_operator.h"
#include "lib/matmul_intf.h"
using namespace AscendC;
TCubeTiling mk_tiling(int m, int n, int k) {
    TCubeTiling t{};
    t.usedCoreNum = 1; t.M = m; t.N = n; t.Ka = k; t.Kb = k;
    t.singleCoreM = m; t.singleCoreN = n; t.singleCoreK = k;
    t.baseM = 16; t.baseN = 16; t.baseK = 32; t.depthA1 = 1; t.depthB1 = 1;
    t.stepM = 1; t.stepN = 1; t.stepKa = 1; t.stepKb = 1; t.iterateOrder = 0;
    t.dbL0A = 1; t.dbL0B = 1; t.dbL0C = 1;
    return t;
}
"#;

/// The Matmul's formats for A, B and C on Atlas A2 (Matmul使用说明.md, FORMAT and 表3; 矩阵乘输出的N方向对齐.md):
/// a VECTOR A (GEMV, one row) and an ND A of 3 rows, each by an ND B of 32 x 20, into an ND_ALIGN C
/// whose rows are 20 floats rounded up to 32 bytes (24), the 4 padding columns written as zeros; and an NZ
/// A (32 x 32) by an NZ B (32 x 32) into an NZ C (16-column blocks of 32 rows), and by the same B stored
/// transposed in NZ into an ND C, in base blocks of 16 x 16 x 32. `y` starts as -1 everywhere, so a stride or a padding column the twin gets wrong shows. Against
/// products computed here. The GEMV is declared as `matmul::MatmulImpl`, the name ops-nn's kernels use.
#[test]
fn a_matmul_reads_nz_and_vector_operands_and_writes_nd_align_and_nz_c() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    build_kernel(
        w,
        &format!(
            "{MATMUL_PRELUDE}{}",
            r#"
extern "C" __global__ __aicore__ void k(GM_ADDR a, GM_ADDR b, GM_ADDR anz, GM_ADDR bnz, GM_ADDR btnz, GM_ADDR y) {
    GlobalTensor<half> ag, bg, anzg, bnzg, btnzg;
    GlobalTensor<float> yg;
    ag.SetGlobalBuffer((__gm__ half *)a, 3 * 32);
    bg.SetGlobalBuffer((__gm__ half *)b, 32 * 20);
    anzg.SetGlobalBuffer((__gm__ half *)anz, 32 * 32);
    bnzg.SetGlobalBuffer((__gm__ half *)bnz, 32 * 32);
    btnzg.SetGlobalBuffer((__gm__ half *)btnz, 32 * 32);
    yg.SetGlobalBuffer((__gm__ float *)y, 128 + 2 * 32 * 32);
    for (int i = 0; i < 128 + 2 * 32 * 32; i++) yg.SetValue(i, -1.0f);
    TPipe pipe;
    // One Matmul over a whole m x n x k, C written from `c` on.
    auto whole = [&pipe](auto &mm, int m, int n, int k, const GlobalTensor<half> &a, const GlobalTensor<half> &b, bool transB,
                         const GlobalTensor<float> &c) {
        TCubeTiling t = mk_tiling(m, n, k);
        mm.Init(&t, &pipe);
        mm.SetTensorA(a);
        mm.SetTensorB(b, transB);
        mm.IterateAll(c);
        mm.End();
    };
    // declared as ops-nn's kernels declare theirs, through MatmulImpl
    matmul::MatmulImpl<MatmulType<TPosition::GM, CubeFormat::VECTOR, half>, MatmulType<TPosition::GM, CubeFormat::ND, half>,
                       MatmulType<TPosition::GM, CubeFormat::ND_ALIGN, float>>
        gemv;
    whole(gemv, 1, 20, 32, ag, bg, false, yg);
    Matmul<MatmulType<TPosition::GM, CubeFormat::ND, half>, MatmulType<TPosition::GM, CubeFormat::ND, half>,
           MatmulType<TPosition::GM, CubeFormat::ND_ALIGN, float>>
        mm;
    whole(mm, 3, 20, 32, ag, bg, false, yg[32]);
    Matmul<MatmulType<TPosition::GM, CubeFormat::NZ, half>, MatmulType<TPosition::GM, CubeFormat::NZ, half>,
           MatmulType<TPosition::GM, CubeFormat::NZ, float>>
        nz;
    whole(nz, 32, 32, 32, anzg, bnzg, false, yg[128]);
    // B given transposed: stored N x K, in NZ; C in ND.
    Matmul<MatmulType<TPosition::GM, CubeFormat::NZ, half>, MatmulType<TPosition::GM, CubeFormat::NZ, half, true>,
           MatmulType<TPosition::GM, CubeFormat::ND, float>>
        nzt;
    whole(nzt, 32, 32, 32, anzg, btnzg, true, yg[128 + 32 * 32]);
}
extern "C" void twin_launch(uint8_t **a) { k(a[0], a[1], a[2], a[3], a[4], a[5]); }
"#
        ),
        "building the Matmul formats kernel",
    );
    let val = |i: usize, s: usize| f16::from_f32((((i * s) % 13) as f32 - 6.0) * 0.25);
    let a: Vec<f16> = (0..3 * 32).map(|i| val(i, 7)).collect(); // 3 x 32
    let b: Vec<f16> = (0..32 * 20).map(|i| val(i, 5)).collect(); // 32 x 20
    let a2: Vec<f16> = (0..32 * 32).map(|i| val(i, 3)).collect(); // 32 x 32
    let b2: Vec<f16> = (0..32 * 32).map(|i| val(i, 11)).collect(); // 32 x 32
    let b2t: Vec<f16> = (0..32 * 32).map(|i| b2[(i % 32) * 32 + i / 32]).collect(); // B2 transposed
    // NZ of a rows x cols matrix: C0 (16 halves) wide column blocks, each its rows one after another.
    let nz = |m: &[f16], rows: usize, cols: usize| -> Vec<f16> {
        let mut out = Vec::with_capacity(rows * cols);
        for cb in 0..cols / 16 {
            for r in 0..rows {
                out.extend_from_slice(&m[r * cols + cb * 16..r * cols + cb * 16 + 16]);
            }
        }
        out
    };
    let bytes = |v: &[f16]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let (out, y) = run_kernel(
        w,
        &[
            ("a", bytes(&a)),
            ("b", bytes(&b)),
            ("anz", bytes(&nz(&a2, 32, 32))),
            ("bnz", bytes(&nz(&b2, 32, 32))),
            ("btnz", bytes(&nz(&b2t, 32, 32))),
        ],
        (128 + 2 * 32 * 32) * 4,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got = f32s(&y);
    // Row r of x (K columns) by column c of y (yc columns).
    let dot = |x: &[f16], k: usize, y: &[f16], yc: usize, r: usize, c: usize| -> f32 {
        (0..k)
            .map(|i| x[r * k + i].to_f32() * y[i * yc + c].to_f32())
            .sum()
    };
    // GEMV at y[0..24], the 3-row product at y[32..32 + 72], both rows of 24 with zeros at 20..24.
    for (base, rows) in [(0usize, 1usize), (32, 3)] {
        for r in 0..rows {
            for c in 0..24 {
                let want = if c < 20 {
                    dot(&a, 32, &b, 20, r, c)
                } else {
                    0.0
                };
                assert_eq!(
                    got[base + r * 24 + c],
                    want,
                    "ND_ALIGN C at {base}: row {r} col {c}"
                );
            }
        }
    }
    assert_eq!(got[24], -1.0, "the GEMV's C is one row of 24");
    // NZ C: column block cb (16 columns) of 32 rows at 128 + cb * 512 + r * 16 + c % 16.
    for r in 0..32 {
        for c in 0..32 {
            assert_eq!(
                got[128 + (c / 16) * 512 + r * 16 + c % 16],
                dot(&a2, 32, &b2, 32, r, c),
                "NZ C: row {r} col {c}"
            );
            assert_eq!(
                got[128 + 32 * 32 + r * 32 + c],
                dot(&a2, 32, &b2, 32, r, c),
                "NZ A by NZ B given transposed: row {r} col {c}"
            );
        }
    }
}

/// IterateBatch (Matmul-Kernel侧接口/IterateBatch.md), which asc-devkit's batch_matmul and
/// batch_matmul_bias_reuse examples call, stopped the build. A BSNGD batch of two (A's G of 2 over B's
/// G of 1: B broadcast), each matrix a row of S in the [B, S, N, G, D] layout, C in BSNGD too; and a
/// NORMAL batch of two with a bias row per product, then with one bias reused (MatmulBatchParams'
/// isBiasBatch false, as batch_matmul_bias_reuse configures it); and IterateNBatch (batch_matmul_iterate_n_batch)
/// over two b of BSNGD into the workspace; each checked against a plain product.
#[test]
fn iterate_batch_computes_each_product_at_its_place_in_the_layout() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    build_kernel(
        w,
        &format!(
            "{MATMUL_PRELUDE}{}",
            r#"
// the bias reused by every product (MatmulBatchParams' isBiasBatch false: Batch-Matmul复用Bias矩阵.md)
constexpr MatmulConfig CFG_NBATCH =
    GetMMConfig<MatmulConfigMode::CONFIG_NORM>(MatmulBatchParams{true, BatchMode::BATCH_LESS_THAN_L1, true});
constexpr MatmulConfig CFG_REUSE =
    GetMMConfig<MatmulConfigMode::CONFIG_NORM>(MatmulBatchParams{false, BatchMode::BATCH_LESS_THAN_L1, false});
template <const auto &CFG> void normal(TPipe &pipe, GlobalTensor<half> a2g, GlobalTensor<half> b2g, GlobalTensor<float> biasg,
                                       GlobalTensor<float> yg) {
    TCubeTiling t = mk_tiling(20, 24, 32);
    t.isBias = 1;
    t.ALayoutInfoB = 2; t.ALayoutInfoS = 20; t.ALayoutInfoN = 1; t.ALayoutInfoG = 1; t.ALayoutInfoD = 32;
    t.BLayoutInfoB = 2; t.BLayoutInfoS = 24; t.BLayoutInfoN = 1; t.BLayoutInfoG = 1; t.BLayoutInfoD = 32;
    t.CLayoutInfoB = 2; t.CLayoutInfoS1 = 20; t.CLayoutInfoN = 1; t.CLayoutInfoG = 1; t.CLayoutInfoS2 = 24;
    t.BatchNum = 2;
    Matmul<MatmulType<TPosition::GM, CubeFormat::ND, half, false, LayoutMode::NORMAL>,
           MatmulType<TPosition::GM, CubeFormat::ND, half, false, LayoutMode::NORMAL>,
           MatmulType<TPosition::GM, CubeFormat::ND, float, false, LayoutMode::NORMAL>, MatmulType<TPosition::GM, CubeFormat::ND, float>, CFG>
        mm;
    mm.Init(&t, &pipe);
    mm.SetTensorA(a2g);
    mm.SetTensorB(b2g);
    mm.SetBias(biasg);
    mm.IterateBatch(yg, 2, 2, false);
    mm.End();
}
extern "C" __global__ __aicore__ void k(GM_ADDR a, GM_ADDR b, GM_ADDR a2, GM_ADDR b2, GM_ADDR bias, GM_ADDR y) {
    GlobalTensor<half> ag, bg, a2g, b2g;
    GlobalTensor<float> biasg, yg;
    ag.SetGlobalBuffer((__gm__ half *)a, 20 * 2 * 32);
    bg.SetGlobalBuffer((__gm__ half *)b, 24 * 32);
    a2g.SetGlobalBuffer((__gm__ half *)a2, 2 * 20 * 32);
    b2g.SetGlobalBuffer((__gm__ half *)b2, 2 * 32 * 24);
    biasg.SetGlobalBuffer((__gm__ float *)bias, 2 * 24);
    yg.SetGlobalBuffer((__gm__ float *)y, 3 * 2 * 20 * 24 + 2 * 10 * 2 * 12);
    TPipe pipe;
    {
        TCubeTiling t = mk_tiling(20, 24, 32);
        t.ALayoutInfoB = 1; t.ALayoutInfoS = 20; t.ALayoutInfoN = 1; t.ALayoutInfoG = 2; t.ALayoutInfoD = 32;
        t.BLayoutInfoB = 1; t.BLayoutInfoS = 24; t.BLayoutInfoN = 1; t.BLayoutInfoG = 1; t.BLayoutInfoD = 32;
        t.CLayoutInfoB = 1; t.CLayoutInfoS1 = 20; t.CLayoutInfoN = 1; t.CLayoutInfoG = 2; t.CLayoutInfoS2 = 24;
        t.BatchNum = 2;
        Matmul<MatmulType<TPosition::GM, CubeFormat::ND, half, false, LayoutMode::BSNGD>,
               MatmulType<TPosition::GM, CubeFormat::ND, half, true, LayoutMode::BSNGD>,
               MatmulType<TPosition::GM, CubeFormat::ND, float, false, LayoutMode::BSNGD>>
            mm;
        mm.Init(&t, &pipe);
        mm.SetTensorA(ag);
        mm.SetTensorB(bg, true);
        mm.IterateBatch(yg, 2, 1, false);
        mm.End();
    }
    normal<CFG_NORM>(pipe, a2g, b2g, biasg, yg[2 * 20 * 24]);
    normal<CFG_REUSE>(pipe, a2g, b2g, biasg, yg[4 * 20 * 24]);
    {
        // IterateNBatch: two calls of two products (A's G of 2 over B's 1), one b each, C into the workspace
        TCubeTiling t = mk_tiling(10, 12, 32);
        t.ALayoutInfoB = 2; t.ALayoutInfoS = 10; t.ALayoutInfoN = 1; t.ALayoutInfoG = 2; t.ALayoutInfoD = 32;
        t.BLayoutInfoB = 2; t.BLayoutInfoS = 12; t.BLayoutInfoN = 1; t.BLayoutInfoG = 1; t.BLayoutInfoD = 32;
        t.CLayoutInfoB = 2; t.CLayoutInfoS1 = 10; t.CLayoutInfoN = 1; t.CLayoutInfoG = 2; t.CLayoutInfoS2 = 12;
        t.BatchNum = 2;
        Matmul<MatmulType<TPosition::GM, CubeFormat::ND, half, false, LayoutMode::BSNGD>,
               MatmulType<TPosition::GM, CubeFormat::ND, half, true, LayoutMode::BSNGD>,
               MatmulType<TPosition::GM, CubeFormat::ND, float, false, LayoutMode::BSNGD>, MatmulType<TPosition::GM, CubeFormat::ND, float>,
               CFG_NBATCH>
            mm;
        mm.Init(&t, &pipe);
        mm.SetTensorA(ag);
        mm.SetTensorB(bg, true);
        mm.SetWorkspace(yg[6 * 20 * 24]);
        mm.IterateNBatch(2, 2, 1, false);
        mm.End();
    }
}
extern "C" void twin_launch(uint8_t **a) { k(a[0], a[1], a[2], a[3], a[4], a[5]); }
"#
        ),
        "building the IterateBatch kernel",
    );
    let val = |i: usize, s: usize| f16::from_f32((((i * s) % 13) as f32 - 6.0) * 0.25);
    let (m, n, k) = (20usize, 24usize, 32usize);
    let a: Vec<f16> = (0..m * 2 * k).map(|i| val(i, 7)).collect(); // [S 20, G 2, D 32]
    let b: Vec<f16> = (0..n * k).map(|i| val(i, 5)).collect(); // [S 24, D 32]: N x K
    let a2: Vec<f16> = (0..2 * m * k).map(|i| val(i, 3)).collect(); // 2 x [20, 32]
    let b2: Vec<f16> = (0..2 * k * n).map(|i| val(i, 11)).collect(); // 2 x [32, 24]
    let bias: Vec<f32> = (0..2 * n).map(|i| i as f32 * 0.5 - 3.0).collect();
    let bytes = |v: &[f16]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let (out, y) = run_kernel(
        w,
        &[
            ("a", bytes(&a)),
            ("b", bytes(&b)),
            ("a2", bytes(&a2)),
            ("b2", bytes(&b2)),
            ("bias", bias.iter().flat_map(|x| x.to_le_bytes()).collect()),
        ],
        (3 * 2 * m * n + 2 * 10 * 2 * 12) * 4,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got = f32s(&y);
    for g in 0..2 {
        for r in 0..m {
            for c in 0..n {
                // BSNGD: A's row r of group g at (r * 2 + g) * 32, B's row c (N x K), C's at (r * 2 + g) * 24
                let want: f32 = (0..k)
                    .map(|i| a[(r * 2 + g) * k + i].to_f32() * b[c * k + i].to_f32())
                    .sum();
                assert_eq!(
                    got[(r * 2 + g) * n + c],
                    want,
                    "BSNGD g {g} row {r} col {c}"
                );
                // NORMAL: product g of A2 g by B2 g, plus bias row g
                let want: f32 = (0..k)
                    .map(|i| {
                        a2[g * m * k + r * k + i].to_f32() * b2[g * k * n + i * n + c].to_f32()
                    })
                    .sum::<f32>()
                    + bias[g * n + c];
                assert_eq!(
                    got[2 * m * n + g * m * n + r * n + c],
                    want,
                    "NORMAL batch {g} row {r} col {c}"
                );
                // the bias reused: row 0 for both
                let reused = want - bias[g * n + c] + bias[c];
                assert_eq!(
                    got[4 * m * n + g * m * n + r * n + c],
                    reused,
                    "NORMAL, bias reused, batch {g} row {r} col {c}"
                );
            }
        }
    }
    // IterateNBatch over A [2, 10, 1, 2, 32], B [2, 12, 1, 1, 32], C [2, 10, 1, 2, 12]: call b takes b's
    // two A matrices and b's one B
    for bi in 0..2 {
        for g in 0..2 {
            for r in 0..10 {
                for c in 0..12 {
                    let want: f32 = (0..k)
                        .map(|i| {
                            a[((bi * 10 + r) * 2 + g) * k + i].to_f32()
                                * b[(bi * 12 + c) * k + i].to_f32()
                        })
                        .sum();
                    assert_eq!(
                        got[6 * m * n + ((bi * 10 + r) * 2 + g) * 12 + c],
                        want,
                        "IterateNBatch b {bi} g {g} row {r} col {c}"
                    );
                }
            }
        }
    }
}

/// The twin's matmul tiling splits the cores so that each core's share is whole base blocks when the
/// least work per core ties, and the shorter of M and N where that ties too (the learning hub's matmul_abs: 1024 x 640 over 2 cores with SetFixSplit
/// 128 x 128 copies whole blocks out; 1024 x 320 each left a 64-column tail its CopyOut wrote past C's end).
#[test]
fn a_tied_core_split_takes_the_one_its_base_blocks_divide() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("split.cpp");
    std::fs::write(
        &src,
        r#"
#include <cstdio>
#include "tiling/tiling_api.h"
int main() {
    for (int fixN : {128, 160}) {
        matmul_tiling::MultiCoreMatmulTiling t;
        t.SetDim(2);
        t.SetAType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT16);
        t.SetBType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT16);
        t.SetCType(matmul_tiling::TPosition::VECIN, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT);
        t.SetShape(1024, 640, 256);
        t.SetOrgShape(1024, 640, 256);
        t.SetFixSplit(128, fixN, -1);
        optiling::TCubeTiling td;
        if (t.GetTiling(td) != 0) return 1;
        std::printf("%d %d %d\n", td.usedCoreNum, td.singleCoreM, td.singleCoreN);
    }
    return 0;
}
"#,
    )
    .unwrap();
    let out = run_host_program(&src, "building the core-split check");
    // 640 = 5 x 128 (split M), and 320 = 2 x 160 (either divides: the shorter N is split, as the two
    // documented ties are, matmul_tiling.h)
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "2 512 640\n2 1024 320\n"
    );
}

/// A matmul tiling made from a `matmul_tiling::PlatformInfo` (Matmul-Tiling类构造函数.md: the SoC and
/// each buffer's size, for a tiling function without a PlatformAscendC) plans within the sizes it is
/// given: ops-transformer's prompt_flash_attention keeps one as a member, and its build stopped at
/// "'PlatformInfo' in namespace 'matmul_tiling' does not name a type". The default base block (128 x 256
/// floats, 128 KiB) no longer fits a 64 KiB L0C and shrinks; the same tiling without it keeps it.
#[test]
fn a_matmul_tiling_from_a_platform_info_plans_within_its_sizes() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("info.cpp");
    std::fs::write(
        &src,
        r#"
#include <cstdio>
#include "tiling/tiling_api.h"
int main() {
    for (uint64_t l0c : {128 * 1024, 64 * 1024}) {
        matmul_tiling::PlatformInfo info;
        info.socVersion = platform_ascendc::SocVersion::ASCEND910B;
        info.l1Size = 512 * 1024;
        info.l0CSize = l0c;
        info.ubSize = 192 * 1024;
        info.l0ASize = 64 * 1024;
        info.l0BSize = 64 * 1024;
        matmul_tiling::MatmulApiTiling t(info);
        t.SetAType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT16);
        t.SetBType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT16);
        t.SetCType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT);
        t.SetShape(1024, 1024, 1024);
        t.SetBufferSpace(info.l1Size, info.l0CSize);
        optiling::TCubeTiling td;
        if (t.GetTiling(td) != 0) return 1;
        std::printf("%d %d %d\n", td.baseM * td.baseN * 4 <= (int)l0c, td.baseM, td.baseN);
    }
    return 0;
}
"#,
    )
    .unwrap();
    let out = run_host_program(&src, "building the PlatformInfo tiling");
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert_eq!(lines[0], "1 128 256", "{text}");
    assert!(lines[1].starts_with("1 "), "{text}");
    assert_ne!(lines[1], lines[0], "{text}");
}

/// Xor, the high-level API (asc-devkit docs, 高阶API/数学计算/Xor接口/Xor.md): a twin gap that stopped
/// ops-math's sim_thread_exponential (a Philox generator on uint16_t views of uint32_t counters) at its
/// build. Element-wise exclusive or over calCount elements, with or without the shared tmp buffer and
/// over whole tensors; the elements past calCount stay as they were. The reference is computed here.
#[test]
fn xor_is_the_elementwise_exclusive_or_of_two_16_bit_tensors() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    std::fs::write(
        w.join("launch.cpp"),
        r#"
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void xors(GM_ADDR x, GM_ADDR y) {
    GlobalTensor<uint16_t> xg, yg;
    xg.SetGlobalBuffer((__gm__ uint16_t *)x, 256);
    yg.SetGlobalBuffer((__gm__ uint16_t *)y, 384);
    TPipe pipe;
    TBuf<TPosition::VECCALC> a, b, d, tmp;
    pipe.InitBuffer(a, 256);
    pipe.InitBuffer(b, 256);
    pipe.InitBuffer(d, 768);
    pipe.InitBuffer(tmp, 1024);
    LocalTensor<uint16_t> at = a.Get<uint16_t>(), bt = b.Get<uint16_t>(), dt = d.Get<uint16_t>();
    DataCopy(at, xg, 128);
    DataCopy(bt, xg[128], 128);
    Duplicate(dt, (uint16_t)0xABCD, 384);
    PipeBarrier<PIPE_ALL>();
    Xor(dt, at, bt, 100);
    LocalTensor<uint8_t> shared = tmp.Get<uint8_t>();
    LocalTensor<uint16_t> d1 = dt[128], d2 = dt[256];
    Xor(d1, at, bt, shared, 128);
    Xor(d2.ReinterpretCast<int16_t>(), at.ReinterpretCast<int16_t>(), bt.ReinterpretCast<int16_t>());
    PipeBarrier<PIPE_ALL>();
    DataCopy(yg, dt, 384);
}
extern "C" void twin_launch(uint8_t **a) { xors(a[0], a[1]); }
"#,
    )
    .unwrap();
    build_launch(w, "xors", &[]);
    let x: Vec<u16> = (0..256u32)
        .map(|i| (i.wrapping_mul(40503) ^ 0x5A5A) as u16)
        .collect();
    let bytes: Vec<u8> = x.iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(w.join("x.bin"), &bytes).unwrap();
    write_run(
        w,
        &[("input", "x", "x.bin", 512), ("output", "y", "y.bin", 768)],
    );
    run_ok(
        Command::new(w.join("xors")).arg(w.join("run.txt")),
        "the xor kernel",
    );
    let y = u16s(&std::fs::read(w.join("y.bin")).unwrap());
    let xor = |i: usize| x[i] ^ x[128 + i];
    let mut want: Vec<u16> = (0..128)
        .map(|i| if i < 100 { xor(i) } else { 0xABCD })
        .collect();
    want.extend((0..128).map(xor));
    want.extend((0..128).map(xor));
    assert_eq!(y, want);
}

/// Three gaps that stopped ops-nn's add_layer_norm and inplace_add_layer_norm at their build, each from
/// its asc-devkit page: FusedMulAdd (dst = src0 * dst + src1, count and repeat forms), the plain 16 x 16
/// Transpose of 2-byte elements, and Duplicate's repeat form called with the documented template
/// arguments `<T, isSetMask>` (`Duplicate<int16_t, false>(..., MASK_PLACEHOLDER, ...)` under a mask set
/// beforehand). The references are computed here.
#[test]
fn fused_mul_add_transpose_and_duplicate_with_an_outside_mask_follow_their_pages() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    std::fs::write(
        w.join("launch.cpp"),
        r#"
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR y) {
    GlobalTensor<float> xg, yg;
    xg.SetGlobalBuffer((__gm__ float *)x, 256);
    yg.SetGlobalBuffer((__gm__ float *)y, 384);
    TPipe pipe;
    TBuf<TPosition::VECCALC> a, d;
    pipe.InitBuffer(a, 1024);
    pipe.InitBuffer(d, 1536);
    LocalTensor<float> at = a.Get<float>(), dt = d.Get<float>();
    DataCopy(at, xg, 256);
    DataCopy(dt, xg, 128);
    PipeBarrier<PIPE_ALL>();
    // dst[0..100) = at[0..100) * dst + at[128..228); dst[128..192) the same by one masked repeat.
    FusedMulAdd(dt, at, at[128], 100);
    DataCopy(dt[128], at[64], 64);
    PipeBarrier<PIPE_V>();
    LocalTensor<float> d1 = dt[128];
    FusedMulAdd(d1, at, at[128], 64, 1, BinaryRepeatParams());
    // A 16 x 16 block of uint16_t (the first 128 floats' bits) transposed into dst[256..384).
    LocalTensor<uint16_t> src16 = at.ReinterpretCast<uint16_t>();
    LocalTensor<uint16_t> dst16 = dt[256].ReinterpretCast<uint16_t>();
    Transpose(dst16, src16);
    PipeBarrier<PIPE_V>();
    // Zero the first 16 int16_t of dst[192..200) with the mask set outside.
    SetMaskNorm();
    SetVectorMask<int16_t, MaskMode::NORMAL>(0x0, 0xffff);
    Duplicate<int16_t, false>(dt[192].ReinterpretCast<int16_t>(), (int16_t)0, MASK_PLACEHOLDER, 1, (uint16_t)1, (uint8_t)8);
    ResetMask();
    PipeBarrier<PIPE_ALL>();
    DataCopy(yg, dt, 384);
}
extern "C" void twin_launch(uint8_t **a) { k(a[0], a[1]); }
"#,
    )
    .unwrap();
    build_launch(w, "k", &[]);
    let x: Vec<f32> = (0..256).map(|i| 0.25 * i as f32 - 7.0).collect();
    let bytes: Vec<u8> = x.iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(w.join("x.bin"), &bytes).unwrap();
    write_run(
        w,
        &[
            ("input", "x", "x.bin", 1024),
            ("output", "y", "y.bin", 1536),
        ],
    );
    run_ok(
        Command::new(w.join("k")).arg(w.join("run.txt")),
        "the kernel",
    );
    let raw = std::fs::read(w.join("y.bin")).unwrap();
    let y = f32s(&raw);
    for i in 0..128 {
        let want = if i < 100 {
            x[i] * x[i] + x[128 + i]
        } else {
            x[i]
        };
        assert_eq!(y[i], want, "count form, element {i}");
    }
    for i in 0..64 {
        assert_eq!(
            y[128 + i],
            x[i] * x[64 + i] + x[128 + i],
            "repeat form, element {i}"
        );
    }
    // The outside mask's 16 int16_t are 8 floats of zeros; the rest of the repeat form stays.
    assert!(y[192..200].iter().all(|v| *v == 0.0), "{:?}", &y[192..200]);
    let (src16, dst16) = (u16s(&bytes[..512]), u16s(&raw[1024..1536]));
    for r in 0..16 {
        for c in 0..16 {
            assert_eq!(dst16[r * 16 + c], src16[c * 16 + r], "transpose ({r}, {c})");
        }
    }
}

/// Sum, the high-level API (asc-devkit docs, 高阶API/归约操作/Sum接口/Sum.md): a twin gap that stopped
/// ops-math's feeds_repeat at its build. Each of `outter` rows of `n` elements stored `inner` apart sums
/// into dst[row], with or without the shared tmp buffer; a SumParams the page rules out faults. The
/// inputs are integers, so every order of the additions gives the reference computed here.
#[test]
fn sum_adds_each_row_of_n_elements_stored_inner_apart() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    std::fs::write(
        w.join("launch.cpp"),
        r#"
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void sums(GM_ADDR x, GM_ADDR y) {
    GlobalTensor<float> xg, yg;
    xg.SetGlobalBuffer((__gm__ float *)x, 24);
    yg.SetGlobalBuffer((__gm__ float *)y, 16);
    TPipe pipe;
    TBuf<TPosition::VECCALC> a, d, tmp;
    pipe.InitBuffer(a, 96);
    pipe.InitBuffer(d, 64);
    pipe.InitBuffer(tmp, 1024);
    LocalTensor<float> at = a.Get<float>(), dt = d.Get<float>();
    DataCopy(at, xg, 24);
    Duplicate(dt, -1.0f, 16);
    PipeBarrier<PIPE_ALL>();
    SumParams p{3, 8, 5};
    Sum(dt, at, p);
    LocalTensor<float> d8 = dt[8];
    SumParams whole{1, 24, 24};
    Sum(d8, at, tmp.Get<uint8_t>(), whole);
#ifdef BAD
    SumParams bad{1, 8, 9};
    Sum(dt, at, bad);
#endif
    PipeBarrier<PIPE_ALL>();
    DataCopy(yg, dt, 16);
}
extern "C" void twin_launch(uint8_t **a) { sums(a[0], a[1]); }
"#,
    )
    .unwrap();
    build_launch(w, "sums", &[]);
    build_launch(w, "bad", &["-DBAD"]);
    let x: Vec<f32> = (0..24).map(|i| (i * 7 % 11) as f32 - 4.0).collect();
    let bytes: Vec<u8> = x.iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(w.join("x.bin"), &bytes).unwrap();
    write_run(
        w,
        &[("input", "x", "x.bin", 96), ("output", "y", "y.bin", 64)],
    );
    run_ok(
        Command::new(w.join("sums")).arg(w.join("run.txt")),
        "the Sum kernel",
    );
    let y = f32s(&std::fs::read(w.join("y.bin")).unwrap());
    let row = |r: usize| x[r * 8..r * 8 + 5].iter().sum::<f32>();
    assert_eq!(&y[..3], &[row(0), row(1), row(2)]);
    assert_eq!(y[3..8], [-1.0; 5], "past outter, dst keeps its values");
    assert_eq!(y[8], x.iter().sum::<f32>());
    assert_faults(w, "bad", "Sum: SumParams {outter 1, inner 8, n 9}");
}

/// CumSum (asc-devkit docs, 高阶API/数学计算/CumSum接口/CumSum.md): a prefix sum along the last axis (each
/// row along itself, the last element of each row to lastRow) or the first (rows down, the last row to
/// lastRow), in float and half, against prefix sums computed here; ops-nn's
/// apply_top_k_top_p_with_sorted names `CumSumConfig` / `CumSumInfo`. The page's two samples (32 ones as
/// 4 x 8) are the half case's input.
#[test]
fn cumsum_sums_along_the_last_or_first_axis_and_keeps_the_last_row() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    std::fs::write(
        w.join("launch.cpp"),
        r#"
#include "kernel_operator.h"
using namespace AscendC;
constexpr CumSumConfig LAST{true, false, true};
constexpr CumSumConfig FIRST{false, false, true};
extern "C" __global__ __aicore__ void top(GM_ADDR x, GM_ADDR h, GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR d) {
    GlobalTensor<float> xg; xg.SetGlobalBuffer((__gm__ float *)x, 48);
    GlobalTensor<half> hg; hg.SetGlobalBuffer((__gm__ half *)h, 32);
    GlobalTensor<float> ag; ag.SetGlobalBuffer((__gm__ float *)a, 56);
    GlobalTensor<float> bg; bg.SetGlobalBuffer((__gm__ float *)b, 64);
    GlobalTensor<half> cg; cg.SetGlobalBuffer((__gm__ half *)c, 48);
    GlobalTensor<half> dg; dg.SetGlobalBuffer((__gm__ half *)d, 48);
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 4096);
    LocalTensor<float> xs = buf.Get<float>();
    LocalTensor<half> hs = buf.GetWithOffset<half>(32, 256);
    LocalTensor<float> ya = buf.GetWithOffset<float>(48, 512);
    LocalTensor<float> la = buf.GetWithOffset<float>(8, 768);
    LocalTensor<float> yb = buf.GetWithOffset<float>(48, 1024);
    LocalTensor<float> lb = buf.GetWithOffset<float>(16, 1280);
    LocalTensor<half> yc = buf.GetWithOffset<half>(32, 1536);
    LocalTensor<half> lc = buf.GetWithOffset<half>(16, 1600);
    LocalTensor<half> yd = buf.GetWithOffset<half>(32, 1664);
    LocalTensor<half> ld = buf.GetWithOffset<half>(16, 1728);
    LocalTensor<uint8_t> tmp = buf.GetWithOffset<uint8_t>(1024, 2048);
    DataCopy(xs, xg, 48);
    DataCopy(hs, hg, 32);
    PipeBarrier<PIPE_ALL>();
    CumSum<float, LAST>(ya, la, xs, tmp, CumSumInfo{3, 16});
    CumSum<float, FIRST>(yb, lb, xs, CumSumInfo{3, 16});
    CumSum<half, LAST>(yc, lc, hs, CumSumInfo{2, 16});
    CumSum<half, FIRST>(yd, ld, hs, tmp, CumSumInfo{2, 16});
    PipeBarrier<PIPE_ALL>();
    DataCopy(ag, ya, 48); DataCopy(ag[48], la, 8);
    DataCopy(bg, yb, 48); DataCopy(bg[48], lb, 16);
    DataCopy(cg, yc, 32); DataCopy(cg[32], lc, 16);
    DataCopy(dg, yd, 32); DataCopy(dg[32], ld, 16);
}
extern "C" void twin_launch(uint8_t **a) { top(a[0], a[1], a[2], a[3], a[4], a[5]); }
"#,
    )
    .unwrap();
    build_launch(w, "cumsum", &[]);
    let x: Vec<f32> = (0..48).map(|k| ((k * 7) % 11) as f32 * 0.5 - 2.0).collect();
    let hx: Vec<f32> = (0..32).map(|k| ((k * 5) % 9) as f32 - 3.0).collect();
    std::fs::write(
        w.join("x.bin"),
        x.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>(),
    )
    .unwrap();
    std::fs::write(
        w.join("h.bin"),
        hx.iter()
            .flat_map(|v| f16::from_f32(*v).to_le_bytes())
            .collect::<Vec<u8>>(),
    )
    .unwrap();
    write_run(
        w,
        &[
            ("input", "x", "x.bin", 192),
            ("input", "h", "h.bin", 64),
            ("output", "a", "a.bin", 224),
            ("output", "b", "b.bin", 256),
            ("output", "c", "c.bin", 96),
            ("output", "d", "d.bin", 96),
        ],
    );
    run_ok(
        Command::new(w.join("cumsum")).arg(w.join("run.txt")),
        "the CumSum kernel",
    );
    // The reference: prefix sums along a row, or down a column.
    let along = |v: &[f32], rows: usize, cols: usize| -> (Vec<f32>, Vec<f32>) {
        let mut y = v.to_vec();
        for r in 0..rows {
            for c in 1..cols {
                y[r * cols + c] += y[r * cols + c - 1];
            }
        }
        let last = (0..rows).map(|r| y[r * cols + cols - 1]).collect();
        (y, last)
    };
    let down = |v: &[f32], rows: usize, cols: usize| -> (Vec<f32>, Vec<f32>) {
        let mut y = v.to_vec();
        for r in 1..rows {
            for c in 0..cols {
                y[r * cols + c] += y[(r - 1) * cols + c];
            }
        }
        let last = y[(rows - 1) * cols..].to_vec();
        (y, last)
    };
    let halves = |b: Vec<u8>| -> Vec<f32> {
        b.chunks_exact(2)
            .map(|c| f16::from_le_bytes([c[0], c[1]]).to_f32())
            .collect()
    };
    let a = f32s(&std::fs::read(w.join("a.bin")).unwrap());
    let (y, last) = along(&x, 3, 16);
    assert_eq!(&a[..48], &y[..], "last axis, float");
    assert_eq!(
        &a[48..51],
        &last[..],
        "last axis, float: the last of each row"
    );
    let b = f32s(&std::fs::read(w.join("b.bin")).unwrap());
    let (y, last) = down(&x, 3, 16);
    assert_eq!(&b[..48], &y[..], "first axis, float");
    assert_eq!(&b[48..64], &last[..], "first axis, float: the last row");
    // small integers: exact in half too
    let c = halves(std::fs::read(w.join("c.bin")).unwrap());
    let (y, last) = along(&hx, 2, 16);
    assert_eq!(&c[..32], &y[..], "last axis, half");
    assert_eq!(
        &c[32..34],
        &last[..],
        "last axis, half: the last of each row"
    );
    let d = halves(std::fs::read(w.join("d.bin")).unwrap());
    let (y, last) = down(&hx, 2, 16);
    assert_eq!(&d[..32], &y[..], "first axis, half");
    assert_eq!(&d[32..48], &last[..], "first axis, half: the last row");
}

/// Host helpers the seed-43 fresh sample stopped at: the node's IR instance counts from the shape and
/// dtype inference contexts (ops-nn's fused_sgd / fused_adamw count a tensor list's tensors in their
/// InferShape), the reduction shape helpers of the operator base (ops-math's arg_min_with_value), and
/// `PRId64` from the log headers.
#[test]
fn infer_contexts_count_list_instances_and_reductions_infer_their_shapes() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("host.cpp");
    std::fs::write(
        &src,
        r#"
#include <cstdio>
#include "register/op_impl_registry.h"
#include "op_common/log/log.h"
#include "op_common/op_host/util/opbase_export.h"
#include "exe_graph/runtime/infer_shape_range_context.h"
int main() {
    gert::TwinOpInfo op;
    op.ir_in_names = {"params", "lr"};
    op.in_names = {"params", "params", "params", "lr"};
    op.inputs.resize(4);
    gert::InferShapeContext sc;
    sc.op_ = &op;
    gert::InferDataTypeContext dc;
    dc.op_ = &op;
    std::printf("%u %u %u|", (unsigned)sc.GetComputeNodeInfo()->GetInputInstanceInfo(0)->GetInstanceNum(),
                (unsigned)dc.GetComputeNodeInfo()->GetInputInstanceInfo(1)->GetInstanceNum(),
                sc.GetComputeNodeInfo()->GetInputInstanceInfo(2) == nullptr);
    gert::Shape x({2, 3, 4});
    gert::Shape out;
    int64_t last = -1, both[2] = {0, 2}, bad = 3;
    Ops::Base::ReduceDimsWithKeepDims<int64_t>(&x, &last, 1, &out);
    std::printf("%s ", Ops::Base::ToString(out).c_str());
    Ops::Base::ReduceDimsWithoutKeepDims<int64_t>(&x, both, 2, &out);
    std::printf("%s ", Ops::Base::ToString(out).c_str());
    std::printf("%d|%" PRId64, Ops::Base::ReduceDimsWithoutKeepDims<int64_t>(&x, &bad, 1, &out) == ge::GRAPH_FAILED,
                (int64_t)-5);
    return 0;
}
"#,
    )
    .unwrap();
    let out = run_host_program(&src, "building the inference-context host check");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "3 1 1|[2, 3, 1] [3] 1|-5"
    );
}

/// A queue configured by a constexpr `TQueConfig` (`TQue<VECIN, 1, &conf>`, ops-nn's
/// mse_loss_grad_v2) moves data like any queue, a `TQueSync` flag orders the copy-out (ops-math's
/// ones_like), and a host struct in a tiling header that reaches the
/// kernel may hold a `ge::DT_INT8` default (ops-nn's swi_glu_quant_tiling.h, force-included before the
/// kernel's headers as CANN's tiling header is) and a `platform_ascendc::SocVersion` (ops-nn's
/// fused_add_rms_norm_tiling.h).
#[test]
fn a_configured_queue_and_ge_dtypes_from_a_tiling_header() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    build_kernel(
        w,
        r#"
#include "register/tilingdata_base.h"
#include "tiling/platform/platform_ascendc.h"
struct TwinCompileInfo {
    int64_t dstType = ge::DT_INT8;
    platform_ascendc::SocVersion socVersion = platform_ascendc::SocVersion::ASCEND910B;
};
#include "kernel_operator.h"
using namespace AscendC;
constexpr TPosition none[8] = {TPosition::MAX, TPosition::MAX, TPosition::MAX, TPosition::MAX,
                               TPosition::MAX, TPosition::MAX, TPosition::MAX, TPosition::MAX};
constexpr TQueConfig Conf(uint32_t num) { return {false, false, false, 0, num, 0, {none[0], none[1]}}; }
constexpr TQueConfig conf = Conf(1);
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR y) {
    GlobalTensor<float> xg, yg;
    xg.SetGlobalBuffer((__gm__ float *)x, 64);
    yg.SetGlobalBuffer((__gm__ float *)y, 65);
    TPipe pipe;
    TQue<QuePosition::VECIN, 1, &conf> q;
    pipe.InitBuffer(q, 1, 256);
    LocalTensor<float> t = q.AllocTensor<float>();
    DataCopy(t, xg, 64);
    q.EnQue(t);
    t = q.DeQue<float>();
    TQueSync<PIPE_V, PIPE_MTE3> sync;
    sync.SetFlag(0);
    sync.WaitFlag(0);
    DataCopy(yg, t, 64);
    q.FreeTensor(t);
    yg.SetValue(64, (float)TwinCompileInfo{}.dstType + (float)conf.bufferNumber * 10 +
                        (float)TwinCompileInfo{}.socVersion * 100);
}
extern "C" void twin_launch(uint8_t **a) { k(a[0], a[1]); }
"#,
        "building the configured-queue kernel",
    );
    let x: Vec<f32> = (0..64).map(|i| i as f32 * 0.5 - 3.0).collect();
    let (out, y) = run_kernel(w, &[("x", bytes_f32(&x))], 65 * 4);
    let trace = std::fs::read_to_string(w.join("trace.txt")).unwrap_or_default();
    assert!(
        trace.contains("set V MTE3 e0") && trace.contains("wait V MTE3 e0"),
        "the TQueSync flag is in the trace: {trace}"
    );
    assert!(out.status.success(), "{out:?}");
    let got = f32s(&y);
    assert_eq!(&got[..64], &x[..]);
    assert_eq!(got[64], 112.0, "DT_INT8 is 2, one buffer, ASCEND910B is 1");
}

/// `PopStackBuffer` (ops-math's diag_flat) hands out all the UB that TPipe has not carved, from where
/// the carving ends: with 1 KiB carved of the 192 KiB pool (196352 B reported plus the 256 B
/// reserve), an int16 tensor of (196608 - 1024) / 2 elements at byte 1024, which holds data like any
/// other (moved here by the raw-address `DataCopyGM2UBImpl` / `DataCopyUB2GMImpl` diag_flat zeroes
/// GM with); a later InitBuffer carves the same space again. The instruction prefetches beside it in
/// masked_softmax_with_rel_pos_bias (`PRELOAD(2)`, `ICachePreLoad`) compile and change no data; a
/// kernel may include `acl/acl.h` (modulate_grad) and see the runtime's basic types.
#[test]
fn pop_stack_buffer_takes_the_uncarved_ub() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    build_kernel(
        w,
        r#"
#include "kernel_operator.h"
#include <acl/acl.h>
using namespace AscendC;
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR y) {
    GlobalTensor<int16_t> xg, yg;
    xg.SetGlobalBuffer((__gm__ int16_t *)x, 16);
    yg.SetGlobalBuffer((__gm__ int16_t *)y, 24);
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 1000);
    LocalTensor<int16_t> pop;
    PRELOAD(2);
    ICachePreLoad(2);
    bool ok = PopStackBuffer<int16_t, TPosition::LCM>(pop);
    DataCopyGM2UBImpl((__ubuf__ int16_t *)pop.GetPhyAddr(), (__gm__ int16_t *)xg.GetPhyAddr(), {1, 1, 0, 0});
    PipeBarrier<PIPE_ALL>();
    DataCopyUB2GMImpl((__gm__ int16_t *)yg.GetPhyAddr(), (__ubuf__ int16_t *)pop.GetPhyAddr(), {1, 1, 0, 0});
    PipeBarrier<PIPE_ALL>();
    TBuf<TPosition::VECCALC> after;
    pipe.InitBuffer(after, 64);
    LocalTensor<int16_t> a = after.Get<int16_t>();
    uint32_t size = pop.GetSize();
    yg.SetValue(16, (int16_t)ok);
    yg.SetValue(17, (int16_t)(size >> 15));
    yg.SetValue(18, (int16_t)(size & 0x7fff));
    // UB addresses as offsets from the first carved buffer (UB address 0): GetPhyAddr of a UB tensor
    // is a pointer into the twin's UB arena
    yg.SetValue(19, (int16_t)((pop.GetPhyAddr() - b.Get<int16_t>().GetPhyAddr()) / 32));
    yg.SetValue(20, a.GetValue(0));
    yg.SetValue(21, (int16_t)(a.GetPhyAddr() == pop.GetPhyAddr()));
    aclError e = ACL_SUCCESS;
    yg.SetValue(22, (int16_t)e);
    SetSysWorkspaceForce(x);
    yg.SetValue(23, (int16_t)(GetSysWorkSpacePtr() == x));
}
extern "C" void twin_launch(uint8_t **a) { k(a[0], a[1]); }
"#,
        "building the PopStackBuffer kernel",
    );
    let x: Vec<i16> = (0..16).map(|i| i * 3 - 7).collect();
    let xb: Vec<u8> = x.iter().flat_map(|v| v.to_le_bytes()).collect();
    let (out, y) = run_kernel(w, &[("x", xb)], 24 * 2);
    assert!(out.status.success(), "{out:?}");
    let got: Vec<i16> = y
        .chunks(2)
        .map(|c| i16::from_le_bytes([c[0], c[1]]))
        .collect();
    assert_eq!(&got[..16], &x[..], "the popped tensor holds data");
    let size = ((got[17] as u32) << 15) | got[18] as u32;
    assert_eq!(got[16], 1, "PopStackBuffer succeeds");
    assert_eq!(
        size,
        (196608 - 1024) / 2,
        "all the uncarved pool, in int16 elements"
    );
    assert_eq!(
        got[19],
        1024 / 32,
        "it starts where the carving ends (1000 B rounded to 1024)"
    );
    assert_eq!(
        (got[20], got[21]),
        (x[0], 1),
        "a later InitBuffer carves the same space"
    );
    assert_eq!(
        (got[22], got[23]),
        (0, 1),
        "ACL_SUCCESS; SetSysWorkspaceForce sets the workspace"
    );
}

/// The CmpMask register (ops-math's hans_decode): Compare's register form compares one repeat and
/// leaves the bits in the register (GetCmpMask stores them: 8 bytes for 64 floats, then zeros); Select
/// without a mask in VSEL_CMPMASK_SPR mode applies those bits to every repeat, over the lanes of the
/// mask the Compare set (48 of 64 here: lanes 48..63 keep dst). SetCmpMask loads the register from UB.
/// `Compares` in its mask/repeat form (ops-nn's relu_grad_v3) writes a bit per lane of each repeat.
/// The reference selects in Rust from the documented rules.
#[test]
fn compare_to_the_cmp_mask_register_and_select_from_it() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    build_kernel(
        w,
        r#"
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR y) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> ba, bb, bo, bm, bo2;
    pipe.InitBuffer(ba, 128 * 4);
    pipe.InitBuffer(bb, 128 * 4);
    pipe.InitBuffer(bo, 128 * 4);
    pipe.InitBuffer(bm, 32);
    pipe.InitBuffer(bo2, 64 * 4);
    GlobalTensor<float> xg, yg;
    xg.SetGlobalBuffer((__gm__ float *)x, 256);
    yg.SetGlobalBuffer((__gm__ float *)y, 128 + 8 + 64 + 8);
    LocalTensor<float> a = ba.Get<float>(), b = bb.Get<float>(), o = bo.Get<float>(), o2 = bo2.Get<float>();
    LocalTensor<uint8_t> m = bm.Get<uint8_t>();
    DataCopy(a, xg, 128);
    DataCopy(b, xg[128], 128);
    PipeBarrier<PIPE_ALL>();
    Duplicate(o, -1.0f, 128);
    Duplicate(o2, -1.0f, 64);
    Duplicate(m.ReinterpretCast<float>(), 0.0f, 8);
    PipeBarrier<PIPE_V>();
    Compare(a, b, CMPMODE::LT, (uint64_t)48, {1, 1, 1, 8, 8, 8});
    GetCmpMask(m);
    Select<float, SELMODE::VSEL_CMPMASK_SPR>(o, a, b, 2, {1, 1, 1, 8, 8, 8});
    // a register loaded from UB: every other lane
    LocalTensor<uint8_t> alt = m[16];
    for (int i = 0; i < 16; i++) alt.SetValue(i, (uint8_t)0x55);
    SetCmpMask(alt);
    Select<float, SELMODE::VSEL_CMPMASK_SPR>(o2, a, b, 1, {1, 1, 1, 8, 8, 8});
    PipeBarrier<PIPE_ALL>();
    DataCopy(yg, o, 128);
    DataCopy(yg[128], m.ReinterpretCast<float>(), 8);
    DataCopy(yg[136], o2, 64);
    // Compares, mask/repeat form (relu_grad_v3): 2 repeats, the first 40 lanes of each, a > 0
    PipeBarrier<PIPE_ALL>();
    Compares(m, a, 0.0f, CMPMODE::GT, (uint64_t)40, 2, UnaryRepeatParams{1, 1, 8, 8});
    PipeBarrier<PIPE_ALL>();
    DataCopy(yg[200], m.ReinterpretCast<float>(), 8);
}
extern "C" void twin_launch(uint8_t **a) { k(a[0], a[1]); }
"#,
        "building the CmpMask kernel",
    );
    let x: Vec<f32> = (0..256).map(|i| ((i * 37) % 101) as f32 - 50.0).collect();
    let (a, b) = (&x[..128], &x[128..]);
    let (out, y) = run_kernel(w, &[("x", bytes_f32(&x))], (128 + 8 + 64 + 8) * 4);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got = f32s(&y);
    let bit: Vec<bool> = (0..64).map(|j| j < 48 && a[j] < b[j]).collect();
    let mut want = vec![-1.0f32; 128];
    for r in 0..2 {
        for j in 0..48 {
            want[r * 64 + j] = if bit[j] { a[r * 64 + j] } else { b[r * 64 + j] };
        }
    }
    assert_eq!(
        &got[..128],
        &want[..],
        "Select from the register, every repeat"
    );
    let mut reg = [0u8; 32];
    for j in 0..64 {
        if bit[j] {
            reg[j / 8] |= 1 << (j % 8);
        }
    }
    let got_reg: Vec<u8> = y[128 * 4..136 * 4].to_vec();
    assert_eq!(
        &got_reg[..16],
        &reg[..16],
        "GetCmpMask: the register's 128 bits"
    );
    let want2: Vec<f32> = (0..64)
        .map(|j| {
            if j >= 48 {
                -1.0
            } else if j % 2 == 0 {
                a[j]
            } else {
                b[j]
            }
        })
        .collect();
    assert_eq!(&got[136..200], &want2[..], "SetCmpMask: bits from UB");
    let mut bits = [0u8; 16];
    for r in 0..2 {
        for j in 0..40 {
            if a[r * 64 + j] > 0.0 {
                let b = r * 64 + j;
                bits[b / 8] |= 1 << (b % 8);
            }
        }
    }
    assert_eq!(
        &y[200 * 4..200 * 4 + 16],
        &bits[..],
        "Compares, mask/repeat form"
    );
}

/// A kernel whose `TILING_KEY_IS` branches all miss the launch's key runs none of them (ops-nn's
/// add_rms_norm_quant_v2 at init's manifest: key 11000, outputs all zeros, nothing said): the twin warns
/// once, naming the key and the last branch tested. A kernel whose key matches says nothing.
#[test]
fn a_tiling_key_no_branch_matches_is_warned_of() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    build_kernel(
        w,
        r#"
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR y) {
    GlobalTensor<float> yg;
    yg.SetGlobalBuffer((__gm__ float *)y, 8);
    if (TILING_KEY_IS(10)) {
        yg.SetValue(0, 1.0f);
    } else if (TILING_KEY_IS(20)) {
        yg.SetValue(0, 2.0f);
    }
}
extern "C" void twin_launch(uint8_t **a) { k(a[0], a[1]); }
"#,
        "building the tiling-key kernel",
    );
    let (out, _) = run_kernel(w, &[("x", vec![0u8; 32])], 32);
    assert!(out.status.success(), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("tiling key 0 matches none of the TILING_KEY_IS branches")
            && err.contains("launch.cpp:9"),
        "{err}"
    );
    // the run file's key matching a branch: no warning
    let run = std::fs::read_to_string(w.join("run.txt")).unwrap();
    std::fs::write(
        w.join("run.txt"),
        run.replace("workspace 0\n", "tiling_key 20\nworkspace 0\n"),
    )
    .unwrap();
    let out = Command::new(w.join("kernel"))
        .arg(w.join("run.txt"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("TILING_KEY_IS"),
        "{out:?}"
    );
    assert_eq!(f32s(&std::fs::read(w.join("y.bin")).unwrap())[0], 2.0);
}

/// LocalTensor's whole-tensor operators (asc-devkit Add.md ... Or.md and Compare.md, "整个Tensor参与
/// 计算"), a twin gap that stopped ops-math's angle_v2 at its build (`mask1 = imagLocal >= zeroTensor;`):
/// `dst = a + b` (- * / & |) is the count form over dst.GetSize() elements (And / Or of int32 as 16-bit
/// halves), `mask = a < b` (> <= >= == !=) is Compare over a.GetSize() into the bit mask. Mode 0 uses the
/// operators, mode 1 the API calls they stand for: both must give the reference computed here and the same
/// trace but for the line numbers, and the operators' records and faults must name the operator's line.
/// The default copy assignment still copies the tensor (`h = hb.Get<float>()`).
#[test]
fn local_tensor_operators_run_the_api_calls_they_stand_for() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    let src = r#"
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR i, GM_ADDR m, GM_ADDR y) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> ba, bi, bd, bm, bh;
    pipe.InitBuffer(ba, 512);
    pipe.InitBuffer(bi, 512);
    pipe.InitBuffer(bd, 2048);
    pipe.InitBuffer(bm, 192);
    pipe.InitBuffer(bh, 256);
    GlobalTensor<float> xg, yg;
    GlobalTensor<int32_t> ig;
    GlobalTensor<int32_t> mg;
    xg.SetGlobalBuffer((__gm__ float *)x, 128);
    ig.SetGlobalBuffer((__gm__ int32_t *)i, 128);
    mg.SetGlobalBuffer((__gm__ int32_t *)m, 8);
    yg.SetGlobalBuffer((__gm__ float *)y, 624);
    const int mode = mg.GetValue(0);
    LocalTensor<float> a = ba.Get<float>(), b = a[64], d = bd.Get<float>();
    a.SetSize(64);
    LocalTensor<float> sum = d, dif = d[64], prod = d[128], quot = d[192];
    sum.SetSize(64); dif.SetSize(64); prod.SetSize(64); quot.SetSize(64);
    LocalTensor<int32_t> i0 = bi.Get<int32_t>(), i1 = i0[64];
    i0.SetSize(64);
    LocalTensor<int32_t> iand = d[256].ReinterpretCast<int32_t>(), ior = d[320].ReinterpretCast<int32_t>();
    iand.SetSize(64); ior.SetSize(64);
    LocalTensor<uint16_t> u0 = i0.ReinterpretCast<uint16_t>(), u1 = i1.ReinterpretCast<uint16_t>();
    LocalTensor<uint16_t> uand = d[384].ReinterpretCast<uint16_t>(), uor = d[448].ReinterpretCast<uint16_t>();
    uand.SetSize(128); uor.SetSize(128);
    LocalTensor<uint8_t> mk = bm.Get<uint8_t>();
    LocalTensor<uint8_t> lt = mk, gt = mk[32], le = mk[64], ge = mk[96], eq = mk[128], ne = mk[160];
    LocalTensor<float> h;
    h = bh.Get<float>();
    DataCopy(a, xg, 128);
    DataCopy(i0, ig, 128);
    Duplicate(mk.ReinterpretCast<float>(), 0.0f, 48);
    Duplicate(h, -7.0f, 64);
    h.SetSize(32);
    PipeBarrier<PIPE_ALL>();
    if (mode == 0) {
        sum = a + b; // OP_ADD
        dif = a - b;
        prod = a * b;
        quot = a / b;
        iand = i0 & i1;
        ior = i0 | i1;
        uand = u0 & u1;
        uor = u0 | u1;
        lt = a < b; // OP_LT
        gt = a > b;
        le = a <= b;
        ge = a >= b;
        eq = a == b;
        ne = a != b;
        h = a + b;
    } else if (mode == 1) {
        Add(sum, a, b, 64);
        Sub(dif, a, b, 64);
        Mul(prod, a, b, 64);
        Div(quot, a, b, 64);
        LocalTensor<int16_t> s0 = i0.ReinterpretCast<int16_t>(), s1 = i1.ReinterpretCast<int16_t>();
        LocalTensor<int16_t> sand = iand.ReinterpretCast<int16_t>(), sor = ior.ReinterpretCast<int16_t>();
        And(sand, s0, s1, 128);
        Or(sor, s0, s1, 128);
        And(uand, u0, u1, 128);
        Or(uor, u0, u1, 128);
        Compare(lt, a, b, CMPMODE::LT, 64);
        Compare(gt, a, b, CMPMODE::GT, 64);
        Compare(le, a, b, CMPMODE::LE, 64);
        Compare(ge, a, b, CMPMODE::GE, 64);
        Compare(eq, a, b, CMPMODE::EQ, 64);
        Compare(ne, a, b, CMPMODE::NE, 64);
        Add(h, a, b, 32);
    } else {
        LocalTensor<float> big = d;
        big.SetSize(1 << 20);
        big = a * b; // OP_FAULT
    }
    PipeBarrier<PIPE_ALL>();
    DataCopy(yg, d, 512);
    DataCopy(yg[512], mk.ReinterpretCast<float>(), 48);
    DataCopy(yg[560], bh.Get<float>(), 64);
}
extern "C" void twin_launch(uint8_t **a) { k(a[0], a[1], a[2], a[3]); }
"#;
    let line_of = |marker: &str| {
        src.lines()
            .position(|l| l.contains(marker))
            .expect("marker")
            + 1
    };
    build_kernel(w, src, "building the LocalTensor operator kernel");
    let a: Vec<f32> = (0..64).map(|j| ((j * 7 % 13) as f32 - 6.0) * 0.5).collect();
    let b: Vec<f32> = (0..64)
        .map(|j| ((j * 5 % 11) as f32 - 5.0) * 0.5)
        .map(|v| if v == 0.0 { 0.25 } else { v })
        .collect();
    let mut s: u32 = 2024;
    let iv: Vec<i32> = (0..128)
        .map(|_| {
            s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            s as i32
        })
        .collect();
    let x: Vec<f32> = a.iter().chain(&b).copied().collect();
    let ib: Vec<u8> = iv.iter().flat_map(|v| v.to_le_bytes()).collect();
    let run = |mode: i32| {
        let (out, y) = run_kernel(
            w,
            &[
                ("x", bytes_f32(&x)),
                ("i", ib.clone()),
                ("m", mode_bytes(mode)),
            ],
            624 * 4,
        );
        let trace = std::fs::read_to_string(w.join("trace.txt")).unwrap_or_default();
        (out, y, trace)
    };
    let (out0, y0, trace0) = run(0);
    assert!(out0.status.success(), "{out0:?}");
    let (out1, y1, trace1) = run(1);
    assert!(out1.status.success(), "{out1:?}");
    // the reference
    let mut want: Vec<u8> = Vec::new();
    for f in [
        |p: f32, q: f32| p + q,
        |p: f32, q: f32| p - q,
        |p: f32, q: f32| p * q,
        |p: f32, q: f32| p / q,
    ] {
        want.extend(a.iter().zip(&b).flat_map(|(p, q)| f(*p, *q).to_le_bytes()));
    }
    let (i0, i1) = (&iv[..64], &iv[64..]);
    want.extend(i0.iter().zip(i1).flat_map(|(p, q)| (p & q).to_le_bytes()));
    want.extend(i0.iter().zip(i1).flat_map(|(p, q)| (p | q).to_le_bytes()));
    // the uint16 views: the same bits
    want.extend(i0.iter().zip(i1).flat_map(|(p, q)| (p & q).to_le_bytes()));
    want.extend(i0.iter().zip(i1).flat_map(|(p, q)| (p | q).to_le_bytes()));
    for f in [
        |p: f32, q: f32| p < q,
        |p: f32, q: f32| p > q,
        |p: f32, q: f32| p <= q,
        |p: f32, q: f32| p >= q,
        |p: f32, q: f32| p == q,
        |p: f32, q: f32| p != q,
    ] {
        let mut bits = [0u8; 32];
        for j in 0..64 {
            if f(a[j], b[j]) {
                bits[j / 8] |= 1 << (j % 8);
            }
        }
        want.extend(bits);
    }
    for j in 0..64 {
        let v = if j < 32 { a[j] + b[j] } else { -7.0 };
        want.extend(v.to_le_bytes());
    }
    assert!(
        a.iter().zip(&b).any(|(p, q)| p == q) && a.iter().zip(&b).any(|(p, q)| p < q),
        "the inputs exercise every mode"
    );
    assert_eq!(y0, want, "the operators");
    assert_eq!(y1, want, "the API calls");
    // the same instructions, costed alike: only the line numbers differ
    let strip = |t: &str| -> Vec<String> {
        t.lines()
            .map(|l| {
                l.split(' ')
                    .filter(|f| !f.starts_with("line="))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect()
    };
    assert_eq!(strip(&trace0), strip(&trace1));
    let add_line = format!("line={}", line_of("OP_ADD"));
    let lt_line = format!("line={}", line_of("OP_LT"));
    assert!(
        trace0
            .lines()
            .any(|l| l.starts_with("I V Add ") && l.contains(&add_line)),
        "{trace0}"
    );
    assert!(
        trace0
            .lines()
            .any(|l| l.starts_with("I V Compare ") && l.contains(&lt_line)),
        "{trace0}"
    );
    assert!(
        trace0.lines().any(|l| l.starts_with("I V And dt=2 n=128 ")),
        "int32 And runs as 16-bit over twice the count: {trace0}"
    );
    // a fault names the operator's line
    let (out2, _, _) = run(2);
    let err = String::from_utf8_lossy(&out2.stderr);
    assert_eq!(out2.status.code(), Some(3), "{err}");
    assert!(
        err.contains("Mul") && err.contains(&format!("launch.cpp:{}", line_of("OP_FAULT"))),
        "{err}"
    );
}

/// The host program of a toy op whose InferShape returns the operator base's
/// `Ops::Base::InferShape4Reduce` (ops-math's reduce_prod_v2 and reduce_mean_v2 stopped at their host
/// build without it), built with the twin's host main and run in `infer 1` mode on each spec: x's
/// shape, the value-dependent axes (int32 or int64, from their data file) and keep_dims. Returns the
/// exit code and the first output's shape line.
fn infer_reduce(w: &Path, x: &str, axes_dtype: &str, axes: &[i64], keep: bool) -> (i32, String) {
    let exe = w.join("host");
    if !exe.exists() {
        std::fs::write(
            w.join("op.cpp"),
            r#"
#include "register/op_def_registry.h"
#include "register/op_impl_registry.h"
#include "op_common/op_host/infershape_reduce_util.h"
namespace ops {
class ReduceToy : public OpDef {
public:
    explicit ReduceToy(const char *name) : OpDef(name) {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT});
        this->Input("axes").ParamType(REQUIRED).DataType({ge::DT_INT32}).ValueDepend(REQUIRED);
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT});
        this->Attr("keep_dims").AttrType(OPTIONAL).Bool(false);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(ReduceToy);
static ge::graphStatus Infer(gert::InferShapeContext *context) { return Ops::Base::InferShape4Reduce(context); }
IMPL_OP_INFERSHAPE(ReduceToy).InferShape(Infer);
} // namespace ops
"#,
        )
        .unwrap();
        let twin = twin_dir();
        let mut cc = Command::new(compiler());
        cc.args(["-std=c++17", "-O0", "-w", "-I"])
            .arg(twin.join("include/host"))
            .arg(w.join("op.cpp"))
            .arg(twin.join("src/host_main.cpp"))
            .arg("-o")
            .arg(&exe);
        run_ok(&mut cc, "building the InferShape4Reduce host program");
    }
    let bytes: Vec<u8> = if axes_dtype == "int32" {
        axes.iter()
            .flat_map(|v| (*v as i32).to_le_bytes())
            .collect()
    } else {
        axes.iter().flat_map(|v| v.to_le_bytes()).collect()
    };
    std::fs::write(w.join("axes.bin"), &bytes).unwrap();
    let spec = format!(
        "op_type ReduceToy\nsoc_version Ascend910B1\nshort_soc ascend910b\naiv_cores 48\naic_cores 24\n\
         ub_bytes 196352\ninfer 1\ninput x float32 {x}\ninput axes {axes_dtype} {n} {axes_file}\n\
         output y float32 {x}\nattr keep_dims bool {keep}\n",
        n = axes.len(),
        axes_file = w.join("axes.bin").display(),
        keep = keep as i32,
    );
    std::fs::write(w.join("spec.txt"), spec).unwrap();
    let _ = std::fs::remove_file(w.join("out.txt"));
    let out = Command::new(&exe)
        .arg(w.join("spec.txt"))
        .arg(w.join("out.txt"))
        .output()
        .unwrap();
    let res = std::fs::read_to_string(w.join("out.txt")).unwrap_or_default();
    let shape = res
        .lines()
        .find_map(|l| l.strip_prefix("output_shape 0 "))
        .unwrap_or("")
        .to_string();
    (out.status.code().unwrap_or(-1), shape)
}

/// Reduce shape inference: every listed axis (negative from the end) becomes 1 with keep_dims and is
/// dropped without it; no axes leave x's shape; an axis outside [-rank, rank) fails the InferShape. The
/// references are written here from that rule.
#[test]
fn infer_shape_for_reduce_reads_the_axes_input_and_keep_dims() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    assert_eq!(
        infer_reduce(w, "2,3,4", "int32", &[-1, 0], false),
        (0, "3".to_string())
    );
    assert_eq!(
        infer_reduce(w, "2,3,4", "int32", &[-1, 0], true),
        (0, "1,3,1".to_string())
    );
    assert_eq!(
        infer_reduce(w, "2,3,4", "int64", &[1], false),
        (0, "2,4".to_string())
    );
    assert_eq!(
        infer_reduce(w, "2,3,4", "int64", &[-3, 2], true),
        (0, "1,3,1".to_string())
    );
    assert_eq!(
        infer_reduce(w, "2,3,4", "int32", &[], false),
        (0, "2,3,4".to_string())
    );
    assert_eq!(
        infer_reduce(w, "5", "int32", &[0], false),
        (0, "[]".to_string())
    );
    assert_eq!(infer_reduce(w, "2,3,4", "int32", &[3], false).0, 4);
    assert_eq!(infer_reduce(w, "2,3,4", "int32", &[-4], true).0, 4);
}

/// `AscendC::Barrier()` (asc-devkit's kfc_comm.h, which kernel_operator.h brings in: a compiler memory
/// barrier), which ops-math's reduce_prod_v2 calls unqualified after SyncAll: it compiles, the values
/// written before it are there after it, and it adds no instruction to the trace.
#[test]
fn barrier_is_a_compiler_fence_with_no_instruction() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    build_kernel(
        w,
        r#"
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR y) {
    GlobalTensor<float> yg;
    yg.SetGlobalBuffer((__gm__ float *)y, 8);
    yg.SetValue(0, 3.0f);
    Barrier();
    AscendC::Barrier();
    yg.SetValue(1, yg.GetValue(0) + 1.0f);
}
extern "C" void twin_launch(uint8_t **a) { k(a[0], a[1]); }
"#,
        "building the Barrier kernel",
    );
    let (out, y) = run_kernel(w, &[("x", vec![0u8; 32])], 32);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(&f32s(&y)[..2], &[3.0, 4.0]);
    let trace = std::fs::read_to_string(w.join("trace.txt")).unwrap();
    let instr: Vec<&str> = trace.lines().filter(|l| l.starts_with("I ")).collect();
    assert_eq!(instr.len(), 3, "{trace}");
}

/// The `lib/math/` paths of the high-level Sin and Cos headers, as ops-math's polar includes them: the
/// host tiling headers `lib/math/sin_tiling.h` / `cos_tiling.h` (their queries answer one tile) and the
/// kernel headers `lib/math/sin.h` / `cos.h` (Sin and Cos with a shared tmp buffer, against f32 sin and
/// cos computed here).
#[test]
fn lib_math_sin_and_cos_headers_reach_the_apis_and_their_queries() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    let src = w.join("host.cpp");
    std::fs::write(
        &src,
        r#"
#include <cstdio>
#include "lib/math/sin_tiling.h"
#include "lib/math/cos_tiling.h"
int main() {
    uint32_t mx = 0, mn = 0, live = 9, extra = 9;
    AscendC::GetSinMaxMinTmpSize(ge::Shape({2048}), 4, false, mx, mn);
    std::printf("%u %u ", mx, mn);
    AscendC::GetCosMaxMinTmpSize(ge::Shape({100}), 2, true, mx, mn);
    std::printf("%u %u ", mx, mn);
    AscendC::GetSinTmpBufferFactorSize(4, live, extra);
    std::printf("%u %u ", live, extra);
    live = extra = 9;
    AscendC::GetCosTmpBufferFactorSize(2, live, extra);
    std::printf("%u %u", live, extra);
    return 0;
}
"#,
    )
    .unwrap();
    let out = run_host_program(&src, "building the lib/math tiling header check");
    // 2048 floats = 8192 B; 100 halves = 200 B -> 224; one tile, no extra.
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "8192 8192 224 224 1 0 1 0"
    );
    build_kernel(
        w,
        r#"
#include "lib/math/sin.h"
#include "lib/math/cos.h"
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR y) {
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> bx, by, bt;
    pipe.InitBuffer(bx, 256);
    pipe.InitBuffer(by, 512);
    pipe.InitBuffer(bt, 256);
    AscendC::GlobalTensor<float> xg, yg;
    xg.SetGlobalBuffer((__gm__ float *)x, 64);
    yg.SetGlobalBuffer((__gm__ float *)y, 128);
    AscendC::LocalTensor<float> a = bx.Get<float>(), o = by.Get<float>();
    AscendC::LocalTensor<uint8_t> tmp = bt.Get<uint8_t>();
    AscendC::DataCopy(a, xg, 64);
    AscendC::PipeBarrier<PIPE_ALL>();
    AscendC::Cos<float, false>(o, a, tmp, 64);
    AscendC::Sin<float, false>(o[64], a, tmp, 64);
    AscendC::PipeBarrier<PIPE_ALL>();
    AscendC::DataCopy(yg, o, 128);
}
extern "C" void twin_launch(uint8_t **a) { k(a[0], a[1]); }
"#,
        "building the lib/math Sin / Cos kernel",
    );
    let x: Vec<f32> = (0..64).map(|i| (i as f32 - 32.0) * 0.2).collect();
    let (out, y) = run_kernel(w, &[("x", bytes_f32(&x))], 512);
    assert!(out.status.success(), "{out:?}");
    let got = f32s(&y);
    for (i, v) in x.iter().enumerate() {
        assert!((got[i] - v.cos()).abs() <= 1e-6, "cos({v}): {}", got[i]);
        assert!(
            (got[64 + i] - v.sin()).abs() <= 1e-6,
            "sin({v}): {}",
            got[64 + i]
        );
    }
}

/// SoftmaxGrad and its host queries (asc-devkit SoftmaxGrad.md and SoftmaxGrad-Tiling接口.md), a twin gap that
/// stopped ops-nn's scaled_masked_softmax_grad_v2 at its host build (GetSoftMaxGradMaxTmpSize,
/// SoftMaxGradTilingFunc; its kernel calls SoftmaxGrad with a shared tmp buffer). The host side: both bounds
/// one tile, the tiling SoftMax's for the shape, in an optiling struct. The kernel: per row, the page's Python,
/// s = sum(grad * src), dst = (grad - s) * src, or with isFront s in a 32-byte block a row; with the shape from
/// the tiling or from SoftMaxShapeInfo (oriSrcK 10 of 16: the sum takes 10 columns, dst all 16), in place
/// over src, and for half data. The references are computed here in f32.
#[test]
fn softmax_grad_and_its_tiling_follow_the_page() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    let src = w.join("host.cpp");
    std::fs::write(
        &src,
        r#"
#include <cstdio>
#include "register/tilingdata_base.h"
#include "tiling/tiling_api.h"
namespace optiling {
BEGIN_TILING_DATA_DEF(TwinSoftmaxGradOpTiling)
TILING_DATA_FIELD_DEF(uint64_t, width);
TILING_DATA_FIELD_DEF_STRUCT(SoftMaxTiling, softmaxGradTilingData);
END_TILING_DATA_DEF;
} // namespace optiling
int main() {
    optiling::TwinSoftmaxGradOpTiling t;
    ge::Shape one({1, 200});
    uint32_t mx = AscendC::GetSoftMaxGradMaxTmpSize(one, 4, false, false);
    uint32_t mn = AscendC::GetSoftMaxGradMinTmpSize(ge::Shape({3, 48}), 2, true, false);
    AscendC::SoftMaxGradTilingFunc(ge::Shape({2, 6, 64}), 4, mx, t.softmaxGradTilingData, false);
    std::printf("%u %u %u %u %u", mx, mn, t.softmaxGradTilingData.srcM, t.softmaxGradTilingData.srcK,
                t.softmaxGradTilingData.outMaxK);
    return 0;
}
"#,
    )
    .unwrap();
    let out = run_host_program(&src, "building the SoftmaxGrad host tiling check");
    // 200 floats = 800 B; 144 halves = 288 B; [2, 6, 64]: m 12, k 64, 8 floats a block.
    assert_eq!(String::from_utf8_lossy(&out.stdout), "800 288 12 64 8");

    build_kernel(
        w,
        r#"
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR h, GM_ADDR y) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> bg, bs, bd, bt, bh;
    pipe.InitBuffer(bg, 4 * 16 * 4);
    pipe.InitBuffer(bs, 4 * 16 * 4);
    pipe.InitBuffer(bd, 4 * 16 * 4 * 3 + 4 * 32);
    pipe.InitBuffer(bt, 1024);
    pipe.InitBuffer(bh, 4 * 16 * 2 * 3);
    GlobalTensor<float> xg, yg;
    GlobalTensor<half> hg;
    xg.SetGlobalBuffer((__gm__ float *)x, 128);
    hg.SetGlobalBuffer((__gm__ half *)h, 128);
    yg.SetGlobalBuffer((__gm__ float *)y, 256);
    LocalTensor<float> g = bg.Get<float>(), s = bs.Get<float>(), d = bd.Get<float>();
    LocalTensor<uint8_t> tmp = bt.Get<uint8_t>();
    LocalTensor<half> hh = bh.Get<half>();
    DataCopy(g, xg, 64);
    DataCopy(s, xg[64], 64);
    DataCopy(hh, hg, 128);
    PipeBarrier<PIPE_ALL>();
    SoftMaxTiling tiling = twin_softmax_tiling(4, 16, 8);
    // the shape from the tiling, the API's own scratch
    SoftmaxGrad<float>(d, g, s, tiling);
    // isFront, a shared tmp buffer: one 32-byte block a row
    SoftmaxGrad<float, false, false>(d[64], g, s, tmp, tiling, true, SoftMaxShapeInfo{4, 16, 4, 16});
    // 10 of the 16 columns real
    SoftmaxGrad<float>(d[96], g, s, tiling, false, SoftMaxShapeInfo{4, 16, 4, 10});
    // half data, in place over src
    LocalTensor<half> hgr = hh, hs = hh[64];
    SoftmaxGrad<half, false, false>(hs, hgr, hs, tmp, tiling, false, SoftMaxShapeInfo{4, 16, 4, 16});
    Cast(d[160], hs, RoundMode::CAST_NONE, 64);
    PipeBarrier<PIPE_ALL>();
    DataCopy(yg, d, 224);
}
extern "C" void twin_launch(uint8_t **a) { k(a[0], a[1], a[2]); }
"#,
        "building the SoftmaxGrad kernel",
    );
    let g: Vec<f32> = (0..64)
        .map(|i| ((i * 7 % 23) as f32 - 11.0) * 0.25)
        .collect();
    let s: Vec<f32> = (0..64).map(|i| ((i * 5 % 17) as f32) / 32.0).collect();
    let hv: Vec<f16> = g.iter().chain(&s).map(|v| f16::from_f32(*v)).collect();
    let hb: Vec<u8> = hv.iter().flat_map(|v| v.to_le_bytes()).collect();
    let x: Vec<f32> = g.iter().chain(&s).copied().collect();
    let (out, y) = run_kernel(w, &[("x", bytes_f32(&x)), ("h", hb)], 224 * 4);
    assert!(out.status.success(), "{out:?}");
    let got = f32s(&y);
    let row_sum = |gv: &[f32], sv: &[f32], r: usize, kv: usize| -> f32 {
        (0..kv).map(|j| gv[r * 16 + j] * sv[r * 16 + j]).sum()
    };
    let close = |a: f32, b: f32, tol: f32| (a - b).abs() <= tol * b.abs().max(1.0);
    for r in 0..4 {
        let sm = row_sum(&g, &s, r, 16);
        let sm10 = row_sum(&g, &s, r, 10);
        for j in 0..16 {
            let i = r * 16 + j;
            let want = (g[i] - sm) * s[i];
            assert!(
                close(got[i], want, 1e-5),
                "row {r} col {j}: {} vs {want}",
                got[i]
            );
            let want10 = (g[i] - sm10) * s[i];
            assert!(
                close(got[96 + i], want10, 1e-5),
                "oriSrcK 10, row {r} col {j}: {} vs {want10}",
                got[96 + i]
            );
        }
        for j in 0..8 {
            assert!(close(got[64 + r * 8 + j], sm, 1e-5), "isFront row {r}");
        }
        let hg: Vec<f32> = hv[..64].iter().map(|v| v.to_f32()).collect();
        let hs: Vec<f32> = hv[64..].iter().map(|v| v.to_f32()).collect();
        let hsum = row_sum(&hg, &hs, r, 16);
        for j in 0..16 {
            let i = r * 16 + j;
            let want = f16::from_f32((hg[i] - hsum) * hs[i]).to_f32();
            assert!(
                close(got[160 + i], want, 2e-3),
                "half row {r} col {j}: {} vs {want}",
                got[160 + i]
            );
        }
    }
    // the page's steps, costed as vector instructions
    let trace = std::fs::read_to_string(w.join("trace.txt")).unwrap();
    assert!(
        trace.contains("I V WholeReduceSum dt=4 n=64 ") && trace.contains("I V Brcb dt=4 n=32 "),
        "{trace}"
    );
}

/// AscendC::Std's tuple and the layout helpers on it (asc-devkit docs, Utils-API/CPP标准库/容器函数/get1.md,
/// SIMD-API/基础API/辅助数据结构/Layout/MakeLayout.md, Coordinate/Crd2Idx.md): a gap that stopped
/// asc-devkit's matmul_l2cache (`Std::get`, `MakeLayout(...)(MakeCoord(...))`). The linear indices are
/// computed here as the sum of coordinate times stride, the nested one with the column-major
/// delinearisation of Crd2Idx.md's worked example.
#[test]
fn std_tuple_and_layout_map_coordinates_to_linear_indices() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    build_kernel(
        w,
        r#"
#include "kernel_operator.h"
extern "C" __global__ __aicore__ void k(__gm__ uint8_t *y) {
    AscendC::GlobalTensor<float> yg;
    yg.SetGlobalBuffer((__gm__ float *)y, 8);
    AscendC::Std::tuple<int64_t, float, bool> t{11, 2.5f, true};
    auto l = AscendC::MakeLayout(AscendC::MakeShape(10, 20, 30), AscendC::MakeStride(1, 100, 200));
    auto n = AscendC::MakeLayout(AscendC::MakeShape(AscendC::MakeShape(2, 4), AscendC::MakeShape(3, 5)),
                                 AscendC::MakeStride(AscendC::MakeStride(3, 6), AscendC::MakeStride(1, 24)));
    auto m = AscendC::MakeLayout(AscendC::MakeShape(7, 9), AscendC::MakeStride(9, 1));
    yg.SetValue(0, (float)AscendC::Std::get<0>(t));
    yg.SetValue(1, AscendC::Std::get<1>(t));
    yg.SetValue(2, (float)l(AscendC::MakeCoord(4, 5, 6)));
    yg.SetValue(3, (float)n(AscendC::MakeCoord(11, 12)));
    yg.SetValue(4, (float)m(AscendC::MakeCoord(3, 8)));
    yg.SetValue(5, (float)AscendC::Crd2Idx(AscendC::MakeCoord(1, 2, 3), AscendC::MakeShape(3, 4, 5), AscendC::MakeStride(20, 5, 1)));
    yg.SetValue(6, (float)AscendC::Std::get<1>(l.GetStride()));
}
extern "C" void twin_launch(uint8_t **a) { k(a[0]); }
"#,
        "building the Std tuple / layout kernel",
    );
    let (out, y) = run_kernel(w, &[], 32);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dot = |c: &[i64], s: &[i64]| c.iter().zip(s).map(|(a, b)| a * b).sum::<i64>() as f32;
    // (11, 12) over ((2, 4), (3, 5)): 11 -> (11 % 2, 11 / 2), 12 -> (12 % 3, 12 / 3)
    let nested = dot(&[11 % 2, 11 / 2, 12 % 3, 12 / 3], &[3, 6, 1, 24]);
    let want = [
        11.0,
        2.5,
        dot(&[4, 5, 6], &[1, 100, 200]),
        nested,
        dot(&[3, 8], &[9, 1]),
        dot(&[1, 2, 3], &[20, 5, 1]),
        100.0,
    ];
    assert_eq!(&f32s(&y)[..7], &want);
}

/// A 4:2 sparse Matmul (SparseMatmulType B, SetSparseIndex; asc-devkit guide 4-2稀疏矩阵乘.md, the index
/// coding of MmadWithSparse.md and 辅助矩阵分形格式详解.md): a gap that stopped asc-devkit's matmul_sparse.
/// A 32 x 128 int8 times a sparse B (32 x 128, as B^T, at most 2 nonzeros in each group of 4 of K) given
/// densified (32 x 64) with its Zn index matrix (16 x 8-byte fractals, two of K), in base blocks of
/// 16 x 16 x 32 under MDL. The densification, the index coding and the product of A with the original
/// sparse B are computed here; groups with one nonzero (at element 3: indices (0, 2); at element 1:
/// (1, 0), which selects that element twice) are included.
#[test]
fn a_sparse_matmul_multiplies_by_the_matrix_its_dense_half_and_index_stand_for() {
    let (m, n, k) = (32usize, 32usize, 128usize);
    let mut seed = 12345u32;
    let mut rnd = |r: u32| {
        seed = seed.wrapping_mul(1103515245).wrapping_add(12345);
        (seed >> 16) % r
    };
    let a: Vec<i8> = (0..m * k).map(|_| rnd(11) as i8 - 5).collect();
    let mut bs = vec![0i8; n * k]; // the sparse B^T, n x k
    let mut dense = vec![0i8; n * k / 2];
    let mut index_rows = vec![vec![0u8; k / 2]; n]; // 2-bit indices, two per group
    for r in 0..n {
        for g in 0..k / 4 {
            let nz = |rnd: &mut dyn FnMut(u32) -> u32| {
                let v = rnd(10) as i8 - 5;
                if v >= 0 { v + 1 } else { v }
            };
            let (p, q, d0, d1, i0, i1) = match (r + g) % 7 {
                // one nonzero at element 3, one at element 1
                0 => (0, 3, 0, nz(&mut rnd), 0, 2),
                1 => (1, 1, nz(&mut rnd), 0, 1, 0),
                _ => {
                    let p = rnd(3) as usize;
                    let q = p + 1 + rnd((3 - p) as u32) as usize;
                    (p, q, nz(&mut rnd), nz(&mut rnd), p as u8, (q - 1) as u8)
                }
            };
            bs[r * k + 4 * g + p] += d0;
            bs[r * k + 4 * g + q] += d1;
            dense[r * k / 2 + 2 * g] = d0;
            dense[r * k / 2 + 2 * g + 1] = d1;
            index_rows[r][2 * g] = i0;
            index_rows[r][2 * g + 1] = i1;
        }
    }
    // one byte holds four indices, the first in the low bits; Zn: (K1, N1, 16, 8)
    let (kb_n, n1) = (k / 8, n.div_ceil(16));
    let mut index = vec![0u8; kb_n.div_ceil(8) * n1 * 128];
    for r in 0..n {
        for kb in 0..kb_n {
            let byte = (0..4).fold(0u8, |acc, t| acc | index_rows[r][4 * kb + t] << (2 * t));
            index[(kb / 8) * n1 * 128 + (r / 16) * 128 + (r % 16) * 8 + kb % 8] = byte;
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    build_kernel(
        w,
        r#"
#define ASCENDC_CUBE_ONLY
#include "kernel_operator.h"
#include "lib/matmul_intf.h"
using namespace AscendC;
extern "C" __global__ __cube__ void k(GM_ADDR a, GM_ADDR b, GM_ADDR idx, GM_ADDR y) {
    TCubeTiling t{};
    t.usedCoreNum = 1; t.M = 32; t.N = 32; t.Ka = 128; t.Kb = 128;
    t.singleCoreM = 32; t.singleCoreN = 32; t.singleCoreK = 128;
    t.baseM = 16; t.baseN = 16; t.baseK = 32; t.depthA1 = 2; t.depthB1 = 2;
    t.stepM = 1; t.stepN = 1; t.stepKa = 1; t.stepKb = 1; t.iterateOrder = 0;
    t.dbL0A = 2; t.dbL0B = 2; t.dbL0C = 1;
    GlobalTensor<int8_t> ag, bg;
    GlobalTensor<uint8_t> ig;
    GlobalTensor<int32_t> yg;
    ag.SetGlobalBuffer((__gm__ int8_t *)a, 32 * 128);
    bg.SetGlobalBuffer((__gm__ int8_t *)b, 32 * 64);
    ig.SetGlobalBuffer((__gm__ uint8_t *)idx, 512);
    yg.SetGlobalBuffer((__gm__ int32_t *)y, 32 * 32);
    TPipe pipe;
    Matmul<MatmulType<TPosition::GM, CubeFormat::ND, int8_t>,
           SparseMatmulType<TPosition::GM, TPosition::GM, CubeFormat::ND, int8_t, true>,
           MatmulType<TPosition::GM, CubeFormat::ND, int32_t>, MatmulType<TPosition::GM, CubeFormat::ND, int32_t>, CFG_MDL>
        mm;
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    mm.SetTensorA(ag);
    mm.SetTensorB(bg, true);
    mm.SetSparseIndex(ig);
    mm.IterateAll(yg);
    mm.End();
}
extern "C" void twin_launch(uint8_t **a) { k(a[0], a[1], a[2], a[3]); }
"#,
        "building the sparse Matmul kernel",
    );
    let bytes = |v: &[i8]| v.iter().map(|x| *x as u8).collect::<Vec<u8>>();
    let (out, y) = run_kernel(
        w,
        &[("a", bytes(&a)), ("b", bytes(&dense)), ("idx", index)],
        m * n * 4,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got = i32s(&y);
    for i in 0..m {
        for j in 0..n {
            let want: i32 = (0..k)
                .map(|x| a[i * k + x] as i32 * bs[j * k + x] as i32)
                .sum();
            assert_eq!(got[i * n + j], want, "C[{i}][{j}]");
        }
    }
}

/// A constant tiling (GetMatmulApiTiling) whose base shape differs from the runtime tiling's: the
/// compiled constants are what runs (GetMatmulApiTiling.md; asc-devkit's matmul_l0cache, whose constant
/// 256 x 128 x 128 the twin's host tiling does not pick), here 128 x 64 x 256 fp16, whose A block fills
/// L0A so that L0A / L0B are single-buffered; then the asynchronous IterateAll<false> with
/// WaitIterateAll (IterateAll.md, WaitIterateAll.md; asc-devkit's matmul_async_iterate_all). Both
/// products against one computed here; End with an IterateAll not waited for is a fault.
#[test]
fn a_constant_tiling_overrides_a_differing_runtime_base_and_iterateall_may_be_async() {
    let (m, n, k) = (128usize, 128usize, 256usize);
    let kernel = |wait: bool| {
        format!(
            r#"
#define ASCENDC_CUBE_ONLY
#include "kernel_operator.h"
#include "lib/matmul_intf.h"
using namespace AscendC;
using AT = MatmulType<TPosition::GM, CubeFormat::ND, half>;
using CT = MatmulType<TPosition::GM, CubeFormat::ND, float>;
constexpr static MatmulShapeParams kShape = {{128, 128, 256, 128, 64, 256}};
constexpr static MatmulConfig kCfg = GetMMConfig<MatmulConfigMode::CONFIG_NORM>(kShape);
constexpr static auto kTiling = GetMatmulApiTiling<AT, AT, CT, CT>(kCfg);
extern "C" __global__ __cube__ void k(GM_ADDR a, GM_ADDR b, GM_ADDR y) {{
    TCubeTiling t{{}};
    t.usedCoreNum = 1; t.M = 128; t.N = 128; t.Ka = 256; t.Kb = 256;
    t.singleCoreM = 128; t.singleCoreN = 128; t.singleCoreK = 256;
    t.baseM = 64; t.baseN = 64; t.baseK = 64; t.depthA1 = 4; t.depthB1 = 4;
    t.stepM = 1; t.stepN = 1; t.stepKa = 4; t.stepKb = 4; t.iterateOrder = 0;
    t.dbL0A = 2; t.dbL0B = 2; t.dbL0C = 1;
    GlobalTensor<half> ag, bg;
    GlobalTensor<float> yg;
    ag.SetGlobalBuffer((__gm__ half *)a, 128 * 256);
    bg.SetGlobalBuffer((__gm__ half *)b, 256 * 128);
    yg.SetGlobalBuffer((__gm__ float *)y, 2 * 128 * 128);
    TPipe pipe;
    Matmul<AT, AT, CT, CT, kTiling> mm;
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    mm.SetTensorA(ag);
    mm.SetTensorB(bg);
    mm.IterateAll(yg);
    mm.SetTensorA(ag);
    mm.SetTensorB(bg);
    mm.template IterateAll<false>(yg[128 * 128], 0, false, true);
    if ({wait}) mm.WaitIterateAll();
    mm.End();
}}
extern "C" void twin_launch(uint8_t **a) {{ k(a[0], a[1], a[2]); }}
"#
        )
    };
    let a: Vec<f16> = (0..m * k)
        .map(|i| f16::from_f32((i * 7 % 13) as f32 - 6.0))
        .collect();
    let b: Vec<f16> = (0..k * n)
        .map(|i| f16::from_f32((i * 5 % 11) as f32 - 5.0))
        .collect();
    let bytes = |v: &[f16]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    build_kernel(
        w,
        &kernel(true),
        "building the constant-tiling Matmul kernel",
    );
    let (out, y) = run_kernel(w, &[("a", bytes(&a)), ("b", bytes(&b))], 2 * m * n * 4);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("runs with the constant one"),
        "the override is said: {stderr}"
    );
    let got = f32s(&y);
    for i in 0..m {
        for j in 0..n {
            let want: f32 = (0..k)
                .map(|x| a[i * k + x].to_f32() * b[x * n + j].to_f32())
                .sum();
            assert_eq!(got[i * n + j], want, "C[{i}][{j}]");
            assert_eq!(got[m * n + i * n + j], want, "async C[{i}][{j}]");
        }
    }
    build_kernel(w, &kernel(false), "building the unwaited IterateAll kernel");
    let (out, _) = run_kernel(w, &[("a", bytes(&a)), ("b", bytes(&b))], 2 * m * n * 4);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("was not waited for"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// DataCopyPad GM -> UB without padding fills the bytes that round each block up to 32 with the
/// block's first element (DataCopyPad（GMToUB非对齐数据搬运）.md), and a copy whose 32-byte blocks run
/// past its destination tensor draws a warning that names the bytes (ops-math's sort_v2, at init's
/// shape, copies 48 blocks of 4 bytes, 1536 bytes of UB, into a 256-byte tensor).
#[test]
fn data_copy_pad_dummy_bytes_and_a_copy_past_its_tensor() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    build_kernel(
        w,
        r#"
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR y) {
    GlobalTensor<float> xg, yg;
    xg.SetGlobalBuffer((__gm__ float *)x, 64);
    yg.SetGlobalBuffer((__gm__ float *)y, 64);
    TPipe pipe;
    TBuf<TPosition::VECCALC> db, sb;
    pipe.InitBuffer(db, 1024);
    pipe.InitBuffer(sb, 64);
    LocalTensor<float> d = db.Get<float>();
    Duplicate(d, -1.0f, 64);
    PipeBarrier<PIPE_ALL>();
    // 3 blocks of 3 floats, 4 floats apart in GM: each lands on its own 32 bytes.
    DataCopyPad(d, xg, DataCopyExtParams{3, 12, 4, 0, 0}, DataCopyPadExtParams<float>{false, 0, 0, 0.0f});
    PipeBarrier<PIPE_ALL>(); DataCopy(yg, d, 32); PipeBarrier<PIPE_ALL>();
    // 4 blocks of one float into a 64-byte tensor: 128 bytes of UB.
    LocalTensor<float> s = sb.Get<float>();
    DataCopyPad(s, xg, DataCopyExtParams{4, 4, 0, 0, 0}, DataCopyPadExtParams<float>{false, 0, 0, 0.0f});
}
extern "C" void twin_launch(uint8_t **a) { k(a[0], a[1]); }
"#,
        "building the DataCopyPad dummy-bytes kernel",
    );
    let x: Vec<f32> = (0..64).map(|i| i as f32 + 0.5).collect();
    let (out, y) = run_kernel(w, &[("x", bytes_f32(&x))], 64 * 4);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let got = f32s(&y);
    for b in 0..3 {
        let first = x[b * 4];
        let mut want = vec![first, x[b * 4 + 1], x[b * 4 + 2]];
        want.extend([first; 5]);
        assert_eq!(&got[b * 8..b * 8 + 8], &want[..], "block {b}");
    }
    assert!(got[24..32].iter().all(|&v| v == -1.0), "{got:?}");
    assert!(
        stderr.contains(
            "DataCopyPad writes 128 bytes of UB from address 1024, past the end of its destination tensor (64 bytes) (4 blocks of 4 bytes, each rounded up to 32 bytes of UB)"
        ),
        "{stderr}"
    );
    // The first copy stays inside its tensor: one warning only.
    assert_eq!(
        stderr
            .matches("past the end of its destination tensor")
            .count(),
        1,
        "{stderr}"
    );
}

/// A vector instruction whose operand runs past the end of the UB buffer `InitBuffer` carved for it
/// draws a warning that names the bytes and where the buffer was carved; one that stays inside its
/// buffer (a queue's second buffer, a TBuf's whole length) draws none. ops-math's asinh computes its
/// last tile rounded up to 64 elements in buffers of the tile's exact length: at one element its
/// `CompareScalar` read 256 bytes from a 32-byte buffer, and its output there depended on what the
/// neighbouring buffers held (`tune` then rejected a bank-offset candidate against that garbage).
/// ASCEND_TWIN_UB_GAP=N carves every UB buffer N bytes after the one before (a queue's buffers one
/// by one), the gap filled with 0xA5 bytes: where an instruction runs past its buffer, what it reaches
/// then is the gap, not the next buffer. `tune` runs an op that way on a shape probe where it overruns
/// its buffers, and keeps the probe only if its outputs do not change (src/tune/probes.rs).
#[test]
fn ub_buffers_carved_apart_take_an_overrun_in_the_gap() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    build_kernel(
        w,
        r#"
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR y) {
    GlobalTensor<float> xg, yg;
    xg.SetGlobalBuffer((__gm__ float *)x, 16);
    yg.SetGlobalBuffer((__gm__ float *)y, 24);
    TPipe pipe;
    TBuf<TPosition::VECCALC> t;
    TQue<QuePosition::VECIN, 2> q;
    pipe.InitBuffer(t, 128);
    pipe.InitBuffer(q, 2, 32);
    LocalTensor<float> c = t.Get<float>();
    LocalTensor<float> a = q.AllocTensor<float>();
    LocalTensor<float> b = q.AllocTensor<float>();
    DataCopy(b, xg[8], 8);
    q.EnQue(b);
    b = q.DeQue<float>();
    Duplicate(a, 7.0f, 16);     // 64 bytes into a 32-byte buffer: the next one, or the gap
    PipeBarrier<PIPE_ALL>();
    Adds(c, a, 0.0f, 24);       // reads 96 bytes back: past the second buffer, or into the gap
    PipeBarrier<PIPE_ALL>();
    DataCopy(yg, b, 8);
    DataCopy(yg[8], c[8], 16);
    q.FreeTensor(b);
}
extern "C" void twin_launch(uint8_t **a) { k(a[0], a[1]); }
"#,
        "building the carved-apart kernel",
    );
    let x: Vec<f32> = (0..16).map(|i| i as f32).collect();
    let input = [("x", bytes_f32(&x))];
    // packed, as InitBuffer carves: the overrun lands in the queue's second buffer, and the read past
    // it finds UB nothing was carved in (zeros)
    let (out, y) = run_kernel(w, &input, 24 * 4);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(f32s(&y), [&[7.0; 16][..], &[0.0; 8]].concat());
    assert!(
        stderr.contains("Duplicate reads or writes 64 bytes"),
        "{stderr}"
    );
    // 64 bytes apart: the second buffer keeps x[8..16], the overrun is still named, and the read
    // past what Duplicate wrote finds the gap's 0xA5 bytes
    let (out, y) = run_kernel_env(w, &input, 24 * 4, &[("ASCEND_TWIN_UB_GAP", "64")]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let fill = f32::from_bits(0xA5A5_A5A5);
    assert_eq!(f32s(&y), [&x[8..], &[7.0; 8], &[fill; 8]].concat());
    assert!(
        stderr.contains("Duplicate reads or writes 64 bytes"),
        "{stderr}"
    );
    assert!(stderr.contains("Adds reads or writes 96 bytes"), "{stderr}");
}

#[test]
fn a_vector_operand_past_its_carved_buffer_warns() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    build_kernel(
        w,
        r#"
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR y) {
    GlobalTensor<float> xg, yg;
    xg.SetGlobalBuffer((__gm__ float *)x, 64);
    yg.SetGlobalBuffer((__gm__ float *)y, 64);
    TPipe pipe;
    TQue<QuePosition::VECIN, 2> q;
    TBuf<TPosition::VECCALC> small, big;
    pipe.InitBuffer(q, 2, 256);
    pipe.InitBuffer(big, 256);
    pipe.InitBuffer(small, 4);
    LocalTensor<float> a = q.AllocTensor<float>();
    LocalTensor<float> b = q.AllocTensor<float>();
    LocalTensor<float> s = small.Get<float>();
    LocalTensor<float> t = big.Get<float>();
    DataCopy(a, xg, 64);
    PipeBarrier<PIPE_ALL>();
    Adds(b, a, 1.0f, 64);       // inside the queue's second buffer
    Muls(t, b, 2.0f, 64);       // inside the TBuf
    Abs(s, t, 64);              // 256 bytes into a 32-byte buffer
    PipeBarrier<PIPE_ALL>();
    DataCopy(yg, t, 64);
}
extern "C" void twin_launch(uint8_t **a) { k(a[0], a[1]); }
"#,
        "building the past-its-buffer kernel",
    );
    let x: Vec<f32> = (0..64).map(|i| i as f32 - 20.0).collect();
    let (out, y) = run_kernel(w, &[("x", bytes_f32(&x))], 64 * 4);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(
        f32s(&y),
        x.iter().map(|v| (v + 1.0) * 2.0).collect::<Vec<_>>()
    );
    assert!(
        stderr.contains(
            "Abs reads or writes 256 bytes of UB from address 768, past the end of its UB buffer (32 bytes from address 768, carved at"
        ),
        "{stderr}"
    );
    assert_eq!(
        stderr.matches("past the end of its UB buffer").count(),
        1,
        "{stderr}"
    );
}

/// gather-interleave's vector form computes, bit for bit, what the scalar loop it replaces computes:
/// the kernel below (this project's own) interleaves 300 float pairs (9 whole repeats: a chunk of 8
/// and one of 1, then 12 pairs by the kept loop) and 304 half pairs (4 whole repeats, 48 by the loop),
/// the second source from an offset, built as written and after the motif, both against a reference
/// interleave computed here.
#[test]
fn gather_interleave_gives_the_scalar_loops_pairs() {
    let kernel = r#"
#include "kernel_operator.h"
using namespace AscendC;

template <typename T>
class Interleaver {
public:
    __aicore__ inline void Init(GM_ADDR re, GM_ADDR im, GM_ADDR z, uint32_t pairs, uint32_t skip)
    {
        this->pairs = pairs;
        this->skip = skip;
        reGm.SetGlobalBuffer((__gm__ T *)re, 1024);
        imGm.SetGlobalBuffer((__gm__ T *)im, 1024);
        zGm.SetGlobalBuffer((__gm__ T *)z, 2 * pairs);
        pipe.InitBuffer(reBuf, 1024 * sizeof(T));
        pipe.InitBuffer(imBuf, 1024 * sizeof(T));
        pipe.InitBuffer(zBuf, 2 * pairs * sizeof(T));
    }
    __aicore__ inline void Process()
    {
        LocalTensor<T> reLocal = reBuf.Get<T>();
        LocalTensor<T> imLocal = imBuf.Get<T>();
        LocalTensor<T> zLocal = zBuf.Get<T>();
        DataCopy(reLocal, reGm, 1024);
        DataCopy(imLocal, imGm, 1024);
        PipeBarrier<PIPE_ALL>();
        for (uint32_t i = 0; i < pairs; i++) {
            zLocal.SetValue(2 * i, reLocal.GetValue(i));
            zLocal.SetValue(2 * i + 1, imLocal.GetValue(skip + i));
        }
        PipeBarrier<PIPE_ALL>();
        DataCopy(zGm, zLocal, 2 * pairs);
    }

private:
    TPipe pipe;
    TBuf<TPosition::VECCALC> reBuf;
    TBuf<TPosition::VECCALC> imBuf;
    TBuf<TPosition::VECCALC> zBuf;
    GlobalTensor<T> reGm;
    GlobalTensor<T> imGm;
    GlobalTensor<T> zGm;
    uint32_t pairs;
    uint32_t skip;
};

extern "C" __global__ __aicore__ void k(GM_ADDR re, GM_ADDR im, GM_ADDR reh, GM_ADDR imh, GM_ADDR y) {
    {
        Interleaver<float> f;
        f.Init(re, im, y, 300, 100);
        f.Process();
    }
    {
        Interleaver<half> h;
        h.Init(reh, imh, y + 2 * 300 * sizeof(float), 304, 37);
        h.Process();
    }
}
extern "C" void twin_launch(uint8_t **a) { k(a[0], a[1], a[2], a[3], a[4]); }
"#;
    use ascend_tune::rewrite::motif::{Direction, edit_all};
    let motif = ascend_tune::rewrite::motifs::by_name("gather-interleave").unwrap();
    let (fast, sites) = edit_all(motif, kernel, Direction::Apply).unwrap().unwrap();
    assert_eq!(sites, 1);
    assert!(fast.contains("Gather(zLocal["), "{fast}");
    let narrow_motif = ascend_tune::rewrite::motifs::by_name("gather-interleave-narrow").unwrap();
    let (narrow, _) = edit_all(narrow_motif, kernel, Direction::Apply)
        .unwrap()
        .unwrap();
    assert!(narrow.contains("repeat += 1)"), "{narrow}");
    // The half tensor's second source from 37, the float one's from 100.
    interleave_forms_agree(
        "interleave",
        &[
            ("the loop", kernel),
            ("the Gathers", fast.as_str()),
            ("one-repeat Gathers", narrow.as_str()),
        ],
        100,
        37,
    );
}

/// pack-interleave's Gathers store the bits its scalar loops store: the kernel below (this project's
/// own) packs 300 float pairs into `uint64_t`s through `uint32_t` views (an unrolled loop of four to
/// pair 296, whose first 288 pairs the Gathers take, then a one-pair loop) and 304 half pairs into
/// `uint32_t`s (a loop of two, read straight and through a cast; 256 by the Gathers), one
/// `if constexpr` branch per element size, its buffers carved in
/// one branch of Init per mode. Built as written and after the motif, both against a reference
/// interleave computed here.
#[test]
fn pack_interleave_gives_the_scalar_loops_pairs() {
    let kernel = r#"
#include "kernel_operator.h"
using namespace AscendC;

template <typename T, int MODE>
class Packer {
public:
    __aicore__ inline void Init(GM_ADDR re, GM_ADDR im, GM_ADDR z, int64_t pairs)
    {
        this->pairs = pairs;
        reGm.SetGlobalBuffer((__gm__ T *)re, 1024);
        imGm.SetGlobalBuffer((__gm__ T *)im, 1024);
        zGm.SetGlobalBuffer((__gm__ T *)z, 2 * pairs);
        if constexpr (MODE == 0) {
            pipe.InitBuffer(reBuf, 1024 * sizeof(T));
            pipe.InitBuffer(imBuf, 1024 * sizeof(T));
            pipe.InitBuffer(zBuf, 2 * 1024 * sizeof(T));
        } else {
            pipe.InitBuffer(spareBuf, 64 * sizeof(T));
        }
    }
    __aicore__ inline void Process()
    {
        LocalTensor<T> reLocal = reBuf.Get<T>();
        LocalTensor<T> imLocal = imBuf.Get<T>();
        LocalTensor<T> zLocal = zBuf.Get<T>();
        DataCopy(reLocal, reGm, 1024);
        DataCopy(imLocal, imGm, 1024);
        PipeBarrier<PIPE_ALL>();
        if constexpr (sizeof(T) == 4) {
            LocalTensor<uint64_t> wide = zLocal.template ReinterpretCast<uint64_t>();
            LocalTensor<uint32_t> lo = reLocal.template ReinterpretCast<uint32_t>();
            LocalTensor<uint32_t> hi = imLocal.template ReinterpretCast<uint32_t>();
            int64_t i = 0;
            int64_t last4 = pairs - 3;
            for (; i < last4; i += 4) {
                uint64_t a0 = lo.GetValue(i);
                uint64_t a1 = lo.GetValue(i + 1);
                uint64_t a2 = lo.GetValue(i + 2);
                uint64_t a3 = lo.GetValue(i + 3);
                uint64_t b0 = hi.GetValue(i);
                uint64_t b1 = hi.GetValue(i + 1);
                uint64_t b2 = hi.GetValue(i + 2);
                uint64_t b3 = hi.GetValue(i + 3);
                wide.SetValue(i, a0 | (b0 << 32));
                wide.SetValue(i + 1, a1 | (b1 << 32));
                wide.SetValue(i + 2, a2 | (b2 << 32));
                wide.SetValue(i + 3, a3 | (b3 << 32));
            }
            for (; i < pairs; i++) {
                uint64_t a = lo.GetValue(i);
                uint64_t b = hi.GetValue(i);
                wide.SetValue(i, a | (b << 32));
            }
        } else {
            LocalTensor<uint32_t> wide = zLocal.template ReinterpretCast<uint32_t>();
            LocalTensor<uint16_t> lo = reLocal.template ReinterpretCast<uint16_t>();
            LocalTensor<uint16_t> hi = imLocal.template ReinterpretCast<uint16_t>();
            int64_t i = 0;
            for (; i < pairs; i += 2) {
                uint32_t a = lo.GetValue(i);
                wide.SetValue(i, a | (static_cast<uint32_t>(hi.GetValue(i)) << 16));
                wide.SetValue(i + 1, lo.GetValue(i + 1) | (static_cast<uint32_t>(hi.GetValue(i + 1)) << 16));
            }
        }
        PipeBarrier<PIPE_ALL>();
        DataCopy(zGm, zLocal, 2 * pairs);
    }

private:
    TPipe pipe;
    TBuf<TPosition::VECCALC> reBuf;
    TBuf<TPosition::VECCALC> imBuf;
    TBuf<TPosition::VECCALC> zBuf;
    TBuf<TPosition::VECCALC> spareBuf;
    GlobalTensor<T> reGm;
    GlobalTensor<T> imGm;
    GlobalTensor<T> zGm;
    int64_t pairs;
};

extern "C" __global__ __aicore__ void k(GM_ADDR re, GM_ADDR im, GM_ADDR reh, GM_ADDR imh, GM_ADDR y) {
    {
        Packer<float, 0> f;
        f.Init(re, im, y, 300);
        f.Process();
    }
    {
        Packer<half, 0> h;
        h.Init(reh, imh, y + 2 * 300 * sizeof(float), 304);
        h.Process();
    }
}
extern "C" void twin_launch(uint8_t **a) { k(a[0], a[1], a[2], a[3], a[4]); }
"#;
    use ascend_tune::rewrite::motif::{Direction, edit_all};
    let motif = ascend_tune::rewrite::motifs::by_name("pack-interleave").unwrap();
    let (fast, sites) = edit_all(motif, kernel, Direction::Apply).unwrap().unwrap();
    assert_eq!(sites, 2);
    assert!(fast.contains("Gather(packedLanes["), "{fast}");
    // The table is carved in the branch that carves the tensors it is used with.
    assert!(
        fast.contains("InitBuffer(zBuf, 2 * 1024 * sizeof(T));\n            pipe.InitBuffer(interleaveOffsetBuf,"),
        "{fast}"
    );
    let narrow_motif = ascend_tune::rewrite::motifs::by_name("pack-interleave-narrow").unwrap();
    let (narrow, _) = edit_all(narrow_motif, kernel, Direction::Apply)
        .unwrap()
        .unwrap();
    assert!(narrow.contains("repeat += 1)"), "{narrow}");
    interleave_forms_agree(
        "packing",
        &[
            ("the loops", kernel),
            ("the Gathers", fast.as_str()),
            ("one-repeat Gathers", narrow.as_str()),
        ],
        0,
        0,
    );
}

/// Each form of an interleave kernel `k(re, im, reh, imh, y)` (300 float pairs, then 304 half pairs in
/// y), built and run in the twin on the same inputs, stores exactly the pairs of a reference interleave
/// computed here: re[i] with im[skip_f + i], reh[i] with imh[skip_h + i]; no warning.
fn interleave_forms_agree(what: &str, forms: &[(&str, &str)], skip_f: usize, skip_h: usize) {
    let re: Vec<f32> = (0..1024).map(|i| i as f32 * 0.5 - 100.0).collect();
    let im: Vec<f32> = (0..1024).map(|i| -(i as f32) * 0.25 + 3.0).collect();
    let reh: Vec<f16> = re.iter().map(|v| f16::from_f32(v * 0.125)).collect();
    let imh: Vec<f16> = im.iter().map(|v| f16::from_f32(v * 0.5)).collect();
    let hb = |v: &[f16]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
    let inputs = [
        ("re", bytes_f32(&re)),
        ("im", bytes_f32(&im)),
        ("reh", hb(&reh)),
        ("imh", hb(&imh)),
    ];
    let want_f: Vec<f32> = (0..300).flat_map(|i| [re[i], im[skip_f + i]]).collect();
    let want_h: Vec<f16> = (0..304).flat_map(|i| [reh[i], imh[skip_h + i]]).collect();
    let out_bytes = 600 * 4 + 608 * 2;
    for (form, src) in forms {
        let dir = tempfile::tempdir().unwrap();
        let w = dir.path();
        build_kernel(w, src, &format!("building the {what} kernel with {form}"));
        let (out, y) = run_kernel(w, &inputs, out_bytes);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{form}: {stderr}");
        assert!(!stderr.contains("warning"), "{form}: {stderr}");
        assert_eq!(f32s(&y[..2400]), want_f, "{form}: float pairs");
        let got_h: Vec<f16> = y[2400..]
            .chunks_exact(2)
            .map(|c| f16::from_le_bytes([c[0], c[1]]))
            .collect();
        assert_eq!(got_h, want_h, "{form}: half pairs");
    }
}
