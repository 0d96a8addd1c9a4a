//! Fixtures of group b: each runs naive and reference on the twin and agrees with a Rust reference.
//!
//! Every expected output is computed here in f64 from the generated inputs, independently of the
//! kernels; tolerances follow the output dtype and the op (fp16 outputs carry half an ulp of their
//! own rounding, about 4.9e-4 relative; fp32 reductions carry rounding that grows with row length).

#[allow(unused_imports)]
use super::*;
use half::f16;

/// Runs the naive operator and its reference, checks both outputs against `want` (from the inputs)
/// within `atol + rtol * |want|`, and checks that the reference is clearly faster in the model.
fn check_fixture(name: &str, atol: f64, rtol: f64, want: impl Fn(&FixtureRun) -> Vec<f64>) {
    let mut latency = vec![];
    for variant in [None, Some("reference")] {
        let run = run_fixture(name, variant);
        assert!(run.measurement.modelled, "{name} {variant:?}: not modelled");
        let expected = want(&run);
        assert_close(
            &format!("{name} {variant:?}"),
            &run.output(0),
            &expected,
            atol,
            rtol,
        );
        latency.push(run.latency_us());
    }
    // The AscendC best-practice advice (all cores, double buffering, large copies, vector reductions,
    // no full barriers) wins in the model too.
    assert!(
        latency[1] * 1.5 < latency[0],
        "{name}: reference {} us vs naive {} us",
        latency[1],
        latency[0]
    );
}

/// The value an IEEE binary16 store of `v` holds (round to nearest even).
fn to_f16(v: f64) -> f64 {
    f16::from_f64(v).to_f64()
}

fn rows(v: &[f64], len: usize) -> std::slice::ChunksExact<'_, f64> {
    v.chunks_exact(len)
}

#[test]
fn addcmul_custom_matches_rust() {
    // y = x + value * tensor1 * tensor2 with value = 0.5 (the manifest's attribute); fp16 arithmetic.
    check_fixture("addcmul_custom", 2e-3, 2e-3, |run| {
        let (x, t1, t2) = (run.input(0), run.input(1), run.input(2));
        assert_eq!(x.len(), 48 * 8192);
        (0..x.len()).map(|i| x[i] + 0.5 * t1[i] * t2[i]).collect()
    });
}

#[test]
fn swiglu_custom_matches_rust() {
    // x [32, 16384] = [a | b] on the last axis; y = silu(a) * b = a / (1 + exp(-a)) * b, fp32.
    check_fixture("swiglu_custom", 1e-6, 1e-5, |run| {
        let x = run.input(0);
        let (rows_n, cols) = (32, 8192);
        assert_eq!(x.len(), rows_n * 2 * cols);
        let mut y = Vec::with_capacity(rows_n * cols);
        for row in rows(&x, 2 * cols) {
            let (a, b) = row.split_at(cols);
            y.extend(a.iter().zip(b).map(|(a, b)| a / (1.0 + (-a).exp()) * b));
        }
        y
    });
}

#[test]
fn cast_custom_matches_rust() {
    // float32 -> float16 rounds to nearest even: bit-exact.
    check_fixture("cast_custom", 0.0, 0.0, |run| {
        let x = run.input(0);
        assert_eq!(x.len(), 64 * 16384);
        x.iter().map(|&v| to_f16(v)).collect()
    });
}

#[test]
fn bias_add_custom_matches_rust() {
    // One fp16 addition per element: the exact sum rounded once, so bit-exact.
    check_fixture("bias_add_custom", 0.0, 0.0, |run| {
        let (x, bias) = (run.input(0), run.input(1));
        assert_eq!((x.len(), bias.len()), (256 * 4096, 4096));
        rows(&x, 4096)
            .flat_map(|row| row.iter().zip(&bias).map(|(x, b)| to_f16(x + b)))
            .collect()
    });
}

#[test]
fn reduce_sum_custom_matches_rust() {
    // Row sums of 1024 values in [-1, 1]: fp32 accumulation error up to about n * 2^-24.
    check_fixture("reduce_sum_custom", 1024.0 * 6e-8, 1e-5, |run| {
        let x = run.input(0);
        assert_eq!(x.len(), 1024 * 1024);
        rows(&x, 1024).map(|r| r.iter().sum()).collect()
    });
}

#[test]
fn reduce_max_custom_matches_rust() {
    // The maximum is one of the inputs: exact.
    check_fixture("reduce_max_custom", 0.0, 0.0, |run| {
        let x = run.input(0);
        assert_eq!(x.len(), 2048 * 512);
        rows(&x, 512)
            .map(|r| r.iter().copied().fold(f64::NEG_INFINITY, f64::max))
            .collect()
    });
}

#[test]
fn softmax_custom_matches_rust() {
    check_fixture("softmax_custom", 1e-8, 2e-5, |run| {
        let x = run.input(0);
        assert_eq!(x.len(), 512 * 1024);
        rows(&x, 1024)
            .flat_map(|r| {
                let m = r.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let e: Vec<f64> = r.iter().map(|v| (v - m).exp()).collect();
                let s: f64 = e.iter().sum();
                e.into_iter().map(move |v| v / s)
            })
            .collect()
    });
}

#[test]
fn layernorm_custom_matches_rust() {
    // y = (x - mean) / sqrt(var + eps) * gamma + beta over rows of 2048, eps = 1e-5 (the attribute).
    check_fixture("layernorm_custom", 5e-5, 5e-5, |run| {
        let (x, gamma, beta) = (run.input(0), run.input(1), run.input(2));
        let n = 2048;
        assert_eq!((x.len(), gamma.len(), beta.len()), (256 * n, n, n));
        rows(&x, n)
            .flat_map(|r| {
                let mean = r.iter().sum::<f64>() / n as f64;
                let var = r.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n as f64;
                let rstd = 1.0 / (var + 1e-5).sqrt();
                let (gamma, beta) = (&gamma, &beta);
                r.iter()
                    .enumerate()
                    .map(move |(j, v)| (v - mean) * rstd * gamma[j] + beta[j])
                    .collect::<Vec<_>>()
            })
            .collect()
    });
}

#[test]
fn rmsnorm_custom_matches_rust() {
    // y = x / sqrt(mean(x^2) + eps) * gamma over rows of 4096, eps = 1e-6; fp16 in and out, fp32 inside.
    check_fixture("rmsnorm_custom", 2e-3, 2e-3, |run| {
        let (x, gamma) = (run.input(0), run.input(1));
        let n = 4096;
        assert_eq!((x.len(), gamma.len()), (256 * n, n));
        rows(&x, n)
            .flat_map(|r| {
                let ms = r.iter().map(|v| v * v).sum::<f64>() / n as f64;
                let rstd = 1.0 / (ms + 1e-6).sqrt();
                let gamma = &gamma;
                r.iter()
                    .enumerate()
                    .map(move |(j, v)| v * rstd * gamma[j])
                    .collect::<Vec<_>>()
            })
            .collect()
    });
}
