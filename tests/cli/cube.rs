//! Cube fixtures: `fixtures/matmul_custom` (the high-level Matmul with the host's matmul tiling), naive
//! (one core, 32 x 32 x 32 base blocks) and reference (8 cores, 128 x 256 x 64), each run on the twin and
//! checked against c = a x b + bias computed here in f64; the reference must be clearly faster in the
//! model, and the naive one must use one cube core and the reference eight.

#[allow(unused_imports)]
use super::*;

#[test]
fn matmul_custom_naive_and_reference_match_rust() {
    let (m, k, n) = (256usize, 256usize, 256usize);
    let mut latency = vec![];
    for (variant, cores) in [(None, 1u32), (Some("reference"), 8)] {
        let run = run_fixture("matmul_custom", variant);
        let (a, b, bias) = (run.input(0), run.input(1), run.input(2));
        let want: Vec<f64> = (0..m * n)
            .map(|e| {
                let (i, j) = (e / n, e % n);
                bias[j] + (0..k).map(|t| a[i * k + t] * b[t * n + j]).sum::<f64>()
            })
            .collect();
        // f32 accumulation of 256 products of magnitude <= 1.
        assert_close(
            &format!("matmul_custom {variant:?}"),
            &run.output(0),
            &want,
            1e-4,
            1e-5,
        );
        assert!(run.measurement.modelled);
        assert_eq!(
            run.measurement.block_dim, cores,
            "{variant:?}: the tiling's usedCoreNum is the block dim"
        );
        latency.push(run.latency_us());
    }
    assert!(
        latency[1] * 4.0 < latency[0],
        "reference {} us vs naive {} us",
        latency[1],
        latency[0]
    );
}
