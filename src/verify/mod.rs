//! Correctness of candidates: seeded input data per dtype and value range, and the comparison of a
//! candidate's outputs with the reference outputs under per-dtype tolerances (NaN and Inf positions must
//! match). Knows nothing of building or running; `golden` runs the user's own check of the outputs.

pub mod golden;

use crate::manifest::{DType, Data, TensorSpec};
use half::{bf16, f16};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Bytes for one input tensor, little-endian, in its dtype: the manifest's pinned `values` when it
/// gives them (one per element, or one repeated), else a seeded permutation of 0..elements for
/// `data = "permutation"`, seeded counts that add up to `rows` (the first axis of the op's first
/// input) for `data = "counts"`, else seeded uniform values in its range (ascending for
/// `data = "sorted"`).
pub fn generate(t: &TensorSpec, seed: u64, rows: u64) -> Vec<u8> {
    let n = t.elems() as usize;
    let mut out = Vec::with_capacity(n * t.dtype.size());
    if let Some(values) = t.values.as_ref().filter(|v| !v.is_empty()) {
        for i in 0..n {
            encode(t.dtype, values[i % values.len()], 0.5, &mut out);
        }
        return out;
    }
    let name_salt = crate::fsx::hash_hex(t.name.as_bytes());
    let salt = u64::from_str_radix(&name_salt[..16], 16).unwrap_or(0);
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ salt);
    if t.data == Data::Permutation {
        let mut order: Vec<u64> = (0..n as u64).collect();
        // Fisher-Yates
        for i in (1..n).rev() {
            order.swap(i, rng.random_range(0..=i));
        }
        for v in order {
            encode(t.dtype, v as f64, 0.5, &mut out);
        }
        return out;
    }
    if t.data == Data::Counts && n > 0 {
        // each row counted in one cell drawn at random: uneven counts, as routing gives
        let mut counts = vec![0u64; n];
        for _ in 0..rows {
            counts[rng.random_range(0..n)] += 1;
        }
        for c in counts {
            encode(t.dtype, c as f64, 0.5, &mut out);
        }
        return out;
    }
    let (lo, hi) = t.range;
    if t.data == Data::Sorted {
        let mut v: Vec<f64> = (0..n)
            .map(|_| (lo + (hi - lo) * rng.random::<f64>()).floor())
            .collect();
        v.sort_by(f64::total_cmp);
        for x in v {
            encode(t.dtype, x, 0.5, &mut out);
        }
        return out;
    }
    for _ in 0..n {
        let x: f64 = lo + (hi - lo) * rng.random::<f64>();
        encode(t.dtype, x, (lo + hi) / 2.0, &mut out);
    }
    out
}

/// Appends `x` in dtype `d` (integers floored; a bool is true from `bool_at` up).
fn encode(d: DType, x: f64, bool_at: f64, out: &mut Vec<u8>) {
    match d {
        DType::Float16 => out.extend(f16::from_f64(x).to_le_bytes()),
        DType::BFloat16 => out.extend(bf16::from_f64(x).to_le_bytes()),
        DType::Float32 => out.extend((x as f32).to_le_bytes()),
        DType::Int8 => out.extend((x.floor() as i8).to_le_bytes()),
        DType::Int16 => out.extend((x.floor() as i16).to_le_bytes()),
        DType::Int32 => out.extend((x.floor() as i32).to_le_bytes()),
        DType::Int64 => out.extend((x.floor() as i64).to_le_bytes()),
        DType::UInt8 => out.extend((x.floor().max(0.0) as u8).to_le_bytes()),
        DType::UInt16 => out.extend((x.floor().max(0.0) as u16).to_le_bytes()),
        DType::UInt32 => out.extend((x.floor().max(0.0) as u32).to_le_bytes()),
        DType::UInt64 => out.extend((x.floor().max(0.0) as u64).to_le_bytes()),
        DType::Bool => out.push((x >= bool_at) as u8),
    }
}

/// Default tolerance (absolute and relative) per dtype, as DESIGN.md gives them.
pub fn default_tolerance(d: DType) -> f64 {
    match d {
        DType::Float16 => 1e-3,
        DType::BFloat16 => 1e-2,
        DType::Float32 => 1e-5,
        _ => 0.0,
    }
}

/// Decodes element `i` of a little-endian buffer as f64.
pub fn element(d: DType, bytes: &[u8], i: usize) -> f64 {
    let s = d.size();
    let b = &bytes[i * s..(i + 1) * s];
    match d {
        DType::Float16 => f16::from_le_bytes([b[0], b[1]]).to_f64(),
        DType::BFloat16 => bf16::from_le_bytes([b[0], b[1]]).to_f64(),
        DType::Float32 => f32::from_le_bytes(b.try_into().unwrap()) as f64,
        DType::Int8 => b[0] as i8 as f64,
        DType::Int16 => i16::from_le_bytes(b.try_into().unwrap()) as f64,
        DType::Int32 => i32::from_le_bytes(b.try_into().unwrap()) as f64,
        DType::Int64 => i64::from_le_bytes(b.try_into().unwrap()) as f64,
        DType::UInt8 | DType::Bool => b[0] as f64,
        DType::UInt16 => u16::from_le_bytes(b.try_into().unwrap()) as f64,
        DType::UInt32 => u32::from_le_bytes(b.try_into().unwrap()) as f64,
        DType::UInt64 => u64::from_le_bytes(b.try_into().unwrap()) as f64,
    }
}

/// Ok when every output of `op` matches the reference outputs within the op's tolerance (the manifest's,
/// else the per-dtype default); otherwise the first mismatch, described.
pub fn outputs_match(
    op: &crate::manifest::OpSpec,
    got: &[Vec<u8>],
    want: &[Vec<u8>],
) -> Result<(), String> {
    for ((t, g), w) in op.outputs.iter().zip(got).zip(want) {
        let tol = op.tolerance.unwrap_or_else(|| default_tolerance(t.dtype));
        compare(t, g, w, tol)?;
    }
    Ok(())
}

/// Elements per chunk that `compare` first compares byte for byte.
const COMPARE_CHUNK_ELEMS: usize = 1024;

/// Ok when `got` matches `want` within `tol` (absolute + relative); otherwise a description of the
/// first mismatch and how many elements differ.
pub fn compare(t: &TensorSpec, got: &[u8], want: &[u8], tol: f64) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!(
            "output `{}` has {} bytes, expected {}",
            t.name,
            got.len(),
            want.len()
        ));
    }
    let size = t.dtype.size();
    let n = got.len() / size;
    let mut bad = 0usize;
    let mut first = None;
    // Equal bytes are equal values (a NaN matches a NaN), so only the chunks whose bytes differ are
    // compared element by element: most candidates of a tune write the reference's bytes exactly.
    let chunk = COMPARE_CHUNK_ELEMS * size;
    for (c, (gc, wc)) in got.chunks(chunk).zip(want.chunks(chunk)).enumerate() {
        if gc == wc {
            continue;
        }
        for j in 0..gc.len() / size {
            let (g, w) = (element(t.dtype, gc, j), element(t.dtype, wc, j));
            let ok = if w.is_nan() || g.is_nan() {
                w.is_nan() && g.is_nan()
            } else if w.is_infinite() || g.is_infinite() {
                g == w
            } else {
                (g - w).abs() <= tol + tol * w.abs()
            };
            if !ok {
                bad += 1;
                first.get_or_insert((c * COMPARE_CHUNK_ELEMS + j, g, w));
            }
        }
    }
    match first {
        None => Ok(()),
        Some((i, g, w)) => Err(format!(
            "output `{}` differs from the reference at {bad} of {n} elements; first at index {i}: got {g}, expected {w} (tolerance {tol:e})",
            t.name
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(dtype: DType) -> TensorSpec {
        TensorSpec {
            name: "x".into(),
            key: "x".into(),
            dtype,
            shape: vec![4, 8],
            range: (-2.0, 2.0),
            values: None,
            data: Default::default(),
            list: None,
        }
    }

    #[test]
    fn pinned_values_are_written_exactly_and_a_single_value_fills_the_tensor() {
        let t = TensorSpec {
            shape: vec![3],
            values: Some(vec![0.0, 10.0, 1.5]),
            ..spec(DType::Float32)
        };
        let a = generate(&t, 7, 1);
        assert_eq!(
            a,
            generate(&t, 8, 1),
            "pinned values do not depend on the seed"
        );
        let got: Vec<f64> = (0..3).map(|i| element(DType::Float32, &a, i)).collect();
        assert_eq!(got, [0.0, 10.0, 1.5]);
        let scalar = TensorSpec {
            shape: vec![],
            values: Some(vec![-7.0]),
            ..spec(DType::Int64)
        };
        assert_eq!(generate(&scalar, 1, 1), (-7i64).to_le_bytes());
        let one_for_all = TensorSpec {
            shape: vec![2, 2],
            values: Some(vec![1.0]),
            ..spec(DType::Bool)
        };
        assert_eq!(generate(&one_for_all, 1, 1), [1, 1, 1, 1]);
    }

    #[test]
    fn a_permutation_names_every_index_once_in_a_seeded_order() {
        let t = TensorSpec {
            shape: vec![380],
            data: Data::Permutation,
            ..spec(DType::Int32)
        };
        let a = generate(&t, 7, 1);
        assert_eq!(a, generate(&t, 7, 1));
        assert_ne!(a, generate(&t, 8, 1));
        let mut got: Vec<i64> = (0..380)
            .map(|i| element(DType::Int32, &a, i) as i64)
            .collect();
        assert_ne!(got, (0..380).collect::<Vec<i64>>(), "shuffled");
        got.sort();
        assert_eq!(got, (0..380).collect::<Vec<i64>>());
    }

    #[test]
    fn counts_add_up_to_the_rows_and_are_uneven() {
        let t = TensorSpec {
            shape: vec![4, 8],
            data: Data::Counts,
            ..spec(DType::Int32)
        };
        let a = generate(&t, 5, 256);
        assert_eq!(a, generate(&t, 5, 256));
        let got: Vec<f64> = (0..32).map(|i| element(DType::Int32, &a, i)).collect();
        assert_eq!(got.iter().sum::<f64>(), 256.0);
        assert!(got.iter().all(|&c| c >= 0.0 && c.fract() == 0.0), "{got:?}");
        assert!(got.iter().any(|&c| c != 8.0), "not all even: {got:?}");
    }

    #[test]
    fn sorted_data_is_ascending_integers_in_range() {
        let t = TensorSpec {
            shape: vec![100],
            range: (0.0, 8.0),
            data: Data::Sorted,
            ..spec(DType::Int64)
        };
        let got: Vec<f64> = (0..100)
            .map(|i| element(DType::Int64, &generate(&t, 3, 1), i))
            .collect();
        assert!(got.windows(2).all(|w| w[0] <= w[1]), "{got:?}");
        assert!(
            got.iter()
                .all(|v| (0.0..8.0).contains(v) && v.fract() == 0.0),
            "{got:?}"
        );
        assert!(got[0] < got[99], "not one value: {got:?}");
    }

    #[test]
    fn generation_is_seeded_and_in_range() {
        let t = spec(DType::Float16);
        let a = generate(&t, 7, 1);
        assert_eq!(a, generate(&t, 7, 1));
        assert_ne!(a, generate(&t, 8, 1));
        assert_eq!(a.len(), 64);
        assert!((0..32).all(|i| (-2.0..=2.0).contains(&element(DType::Float16, &a, i))));
    }

    #[test]
    fn comparison_uses_tolerance_and_nan_positions() {
        let t = spec(DType::Float32);
        let enc = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
        let want = enc(&[1.0, f32::NAN, f32::INFINITY]);
        let t = TensorSpec {
            shape: vec![3],
            ..t
        };
        assert!(
            compare(
                &t,
                &enc(&[1.0 + 1e-7, f32::NAN, f32::INFINITY]),
                &want,
                1e-5
            )
            .is_ok()
        );
        assert!(
            compare(&t, &enc(&[1.1, f32::NAN, f32::INFINITY]), &want, 1e-5)
                .unwrap_err()
                .contains("index 0")
        );
        assert!(compare(&t, &enc(&[1.0, 0.0, f32::INFINITY]), &want, 1e-5).is_err());
    }

    /// Chunks with equal bytes are skipped, so a mismatch past the first chunk must still be found,
    /// counted and placed at its index in the whole tensor, and a NaN pass where its bytes match.
    #[test]
    fn a_mismatch_in_a_later_chunk_is_counted_at_its_index() {
        let n = COMPARE_CHUNK_ELEMS * 3 + 5;
        let t = TensorSpec {
            shape: vec![n as u64],
            ..spec(DType::Float16)
        };
        let mut want: Vec<u8> = (0..n)
            .flat_map(|i| f16::from_f32((i % 7) as f32).to_le_bytes())
            .collect();
        want[2..4].copy_from_slice(&f16::NAN.to_le_bytes());
        assert_eq!(compare(&t, &want, &want, 1e-3), Ok(()));
        let mut got = want.clone();
        for i in [COMPARE_CHUNK_ELEMS * 2 + 7, n - 1] {
            got[2 * i..2 * i + 2].copy_from_slice(&f16::from_f32(100.0).to_le_bytes());
        }
        let err = compare(&t, &got, &want, 1e-3).unwrap_err();
        assert!(
            err.contains(&format!(
                "at 2 of {n} elements; first at index {}",
                COMPARE_CHUNK_ELEMS * 2 + 7
            )),
            "{err}"
        );
    }
}
