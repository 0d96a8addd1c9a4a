//! Fixtures of group a: each runs naive and reference on the twin and agrees with a Rust reference.
//!
//! The expected values are computed here in f64 from the inputs the tool generated, independently of the
//! kernels' own formulation (e.g. GELU as 0.5 x (1 + tanh(...)) with the real tanh, where the kernels use
//! sigmoid forms), and compared under a tolerance suited to the output dtype.

#[allow(unused_imports)]
use super::*;

/// Runs the naive operator and its `reference/` on the twin, checks both outputs against `want` (computed
/// from the run's inputs) within `atol + rtol * |want|`, and checks that the reference is clearly faster in
/// the model. Returns the two modelled latencies (naive, reference).
fn check(name: &str, atol: f64, rtol: f64, want: impl Fn(&FixtureRun) -> Vec<f64>) -> (f64, f64) {
    let mut latency = vec![];
    for variant in [None, Some("reference")] {
        let run = run_fixture(name, variant);
        let expected = want(&run);
        assert_eq!(
            expected.len() as u64,
            run.op.outputs[0].elems(),
            "{name}: output size"
        );
        assert_close(
            &format!("{name} {variant:?}"),
            &run.output(0),
            &expected,
            atol,
            rtol,
        );
        assert!(run.measurement.modelled, "{name} {variant:?}: not modelled");
        latency.push(run.latency_us());
    }
    // Double buffering, copies of 8-16 KiB, every vector core and no needless work: the AscendC guides'
    // advice wins in the model by a wide margin.
    assert!(
        latency[1] * 1.5 < latency[0],
        "{name}: reference {} us vs naive {} us",
        latency[1],
        latency[0]
    );
    (latency[0], latency[1])
}

fn unary(run: &FixtureRun, f: impl Fn(f64) -> f64) -> Vec<f64> {
    run.input(0).into_iter().map(f).collect()
}

fn binary(run: &FixtureRun, f: impl Fn(f64, f64) -> f64) -> Vec<f64> {
    run.input(0)
        .into_iter()
        .zip(run.input(1))
        .map(|(a, b)| f(a, b))
        .collect()
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

#[test]
fn mul_custom_naive_and_reference_match_rust() {
    // fp32 product: one rounding.
    check("mul_custom", 1e-5, 1e-5, |r| binary(r, |x, y| x * y));
}

#[test]
fn div_custom_naive_and_reference_match_rust() {
    check("div_custom", 1e-3, 1e-3, |r| {
        let y = r.input(1);
        assert!(y.iter().all(|&v| v >= 0.5), "divisor range");
        binary(r, |x, y| x / y)
    });
}

#[test]
fn relu_custom_naive_and_reference_match_rust() {
    // Relu (and Max against zero) selects an input value or zero: exact in bf16.
    check("relu_custom", 0.0, 0.0, |r| unary(r, |x| x.max(0.0)));
}

#[test]
fn leaky_relu_custom_naive_and_reference_match_rust() {
    // alpha = 0.01 comes from the manifest's [[op.attr]] through the tiling function.
    let alpha = 0.01;
    check("leaky_relu_custom", 1e-3, 1e-3, |r| {
        let x = r.input(0);
        assert!(
            x.iter().any(|&v| v < -1.0),
            "negative inputs exercise alpha"
        );
        unary(r, |x| if x >= 0.0 { x } else { alpha * x })
    });
}

#[test]
fn sigmoid_custom_naive_and_reference_match_rust() {
    check("sigmoid_custom", 1e-5, 1e-4, |r| unary(r, sigmoid));
}

#[test]
fn silu_custom_naive_and_reference_match_rust() {
    // half in and out, float inside: one final rounding to half dominates.
    check("silu_custom", 1e-3, 2e-3, |r| unary(r, |x| x * sigmoid(x)));
}

#[test]
fn exp_custom_naive_and_reference_match_rust() {
    check("exp_custom", 1e-6, 1e-4, |r| unary(r, f64::exp));
}

#[test]
fn gelu_custom_naive_and_reference_match_rust() {
    let c = (2.0 / std::f64::consts::PI).sqrt();
    check("gelu_custom", 1e-5, 1e-4, |r| {
        unary(r, |x| {
            0.5 * x * (1.0 + (c * (x + 0.044715 * x * x * x)).tanh())
        })
    });
}
