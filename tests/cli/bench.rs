//! `bench` on the add_custom fixture: the files it promises, with the fields users read, and the same
//! JSON for the same seed (apart from wall times).

use super::*;

fn without_times(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(m) => {
            for k in ["wall_s", "trials_per_s"] {
                m.remove(k);
            }
            m.values_mut().for_each(without_times);
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(without_times),
        _ => {}
    }
}

#[test]
fn bench_writes_json_markdown_and_pictures_reproducibly() {
    let out = tempfile::tempdir().unwrap();
    let mut jsons = vec![];
    for run in ["a", "b"] {
        let dir = out.path().join(run);
        let o = cargo_ascend_tune(
            Path::new(FIXTURES),
            &[
                "bench",
                "add_custom",
                "--budget",
                "3,6",
                "--strategies",
                "host,random",
                "--seed",
                "5",
                "--out",
                dir.to_str().unwrap(),
            ],
        );
        assert!(o.status.success(), "{:?}", text(&o));
        let mut json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("bench.json")).unwrap())
                .unwrap();
        assert_eq!(json["modelled"], true);
        let summary = json["summary"].as_array().unwrap();
        assert_eq!(summary.len(), 4, "2 strategies x 2 budgets");
        for row in summary {
            for k in ["strategy", "budget", "geomean_speedup", "fast_p"] {
                assert!(!row[k].is_null(), "summary lacks {k}");
            }
            assert!(row["fast_p"]["1.5"].is_number());
        }
        let ops = json["ops"].as_array().unwrap();
        assert_eq!(ops.len(), 4);
        for row in ops {
            for k in [
                "op",
                "strategy",
                "budget",
                "baseline_us",
                "reference_us",
                "tuned_us",
                "roofline_us",
                "trials",
                "failures",
            ] {
                assert!(!row[k].is_null(), "op row lacks {k}: {row}");
            }
            assert!(row["tuned_us"].as_f64().unwrap() < row["baseline_us"].as_f64().unwrap());
        }
        let md = std::fs::read_to_string(dir.join("bench.md")).unwrap();
        assert!(
            md.contains("modelled") && md.contains("| host | 6 |"),
            "{md}"
        );
        for svg in ["convergence.svg", "speedup.svg", "pipeline.svg"] {
            let text = std::fs::read_to_string(dir.join(svg)).unwrap();
            assert!(
                text.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\"")
                    && text.trim_end().ends_with("</svg>"),
                "{svg}"
            );
            assert!(
                text.contains("modelled"),
                "{svg} does not say it is modelled"
            );
        }
        without_times(&mut json);
        jsons.push(json);
    }
    assert_eq!(jsons[0], jsons[1], "same seed, different results");
}
