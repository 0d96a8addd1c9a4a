//! relu-from-max-zero: `Duplicate(zeros, 0, n)` into a `TBuf` tensor and `Max(y, x, zeros, n)` become
//! one `Relu(y, x, n)`: one vector pass instead of two, and the zeros' buffer leaves the UB.

use super::constant_buffer::{self as cb, Fast, Fusion, Pair, SlowArgs};
use crate::rewrite::cst::text_of;
use crate::rewrite::motif::{Edit, Motif, MotifError, Site};

pub struct ReluFromMaxZero;

const NAME: &str = "relu-from-max-zero";

static FUSION: Fusion = Fusion {
    motif: NAME,
    producer: "Duplicate",
    consumer: "Max",
    fast: "Relu",
    stem: "zero",
    fuse,
    split,
};

/// `Duplicate(z, 0, n)` + `Max(y, a, b, n)` with `z` one of `a`, `b`: `Relu(y, other, n)`.
fn fuse(p: &Pair) -> Option<Vec<String>> {
    let dup = p.producer.args();
    let [out, a, b, n] = p.consumer_args()[..] else {
        return None;
    };
    if dup.len() != 3 || cb::literal_value(dup[1], p.text) != Some(0.0) {
        return None;
    }
    let source = match (a == p.scratch, b == p.scratch) {
        (true, false) => b,
        (false, true) => a,
        _ => return None,
    };
    Some(vec![out.into(), source.into(), n.into()])
}

/// `Relu(y, x, n)`: `Duplicate(zeros, 0, n)` + `Max(y, x, zeros, n)`.
fn split(f: &Fast) -> Option<SlowArgs> {
    let [out, source, n] = f.call.args()[..] else {
        return None;
    };
    let (out, source, n) = (
        text_of(out, f.text),
        text_of(source, f.text),
        text_of(n, f.text),
    );
    Some((
        vec![
            f.scratch.into(),
            cb::typed_literal(f.elem, "0.0f"),
            n.into(),
        ],
        vec![out.into(), source.into(), f.scratch.into(), n.into()],
    ))
}

impl Motif for ReluFromMaxZero {
    fn name(&self) -> &'static str {
        NAME
    }
    fn summary(&self) -> &'static str {
        "Max against a TBuf tensor of zeros -> Relu: one vector pass, and the zeros' buffer goes"
    }
    fn preserves_meaning_when(&self) -> &'static str {
        "checked: the zeros tensor is a local taken from a TBuf member by `Get` in the same function and \
         named exactly three times there (its declaration, the `Duplicate(z, 0, n)` that fills it with a \
         literal zero seen through casts, and the 4-argument `Max` that reads it as one source); the \
         Duplicate is the nearest earlier statement of the same block writing it, both calls give the \
         same count text and nothing between them assigns a name of the count. Then max(x, 0) equals \
         relu(x) element by element (signed zeros and NaN aside). The buffer's member and InitBuffer are \
         removed only when nothing else names the buffer. A rewind adds a TBuf of n elements of x's type \
         (n must mean the same in Init: no local names), which takes UB that the tiling may not have"
    }
    fn apply_sites(&self, text: &str) -> Vec<Site> {
        cb::apply_sites(&FUSION, text)
    }
    fn apply(&self, text: &str, site: &Site) -> Result<Edit, MotifError> {
        cb::apply(&FUSION, text, site)
    }
    fn rewind_sites(&self, text: &str) -> Vec<Site> {
        cb::rewind_sites(&FUSION, text)
    }
    fn rewind(&self, text: &str, site: &Site) -> Result<Edit, MotifError> {
        cb::rewind(&FUSION, text, site)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rewrite::motif::testing::*;

    /// The naive and reference kernels from the `KernelRelu` class on, where they differ only in the
    /// tiling split of Init (not this motif's business) and the relu.
    fn compute_and_members(k: &str) -> String {
        let from = k.find("    __aicore__ inline void Process()").unwrap();
        k[from..].to_string()
    }

    #[test]
    fn relu_custom_naive_becomes_the_reference_relu_and_back() {
        let (naive, reference) = fixture_kernel("relu_custom");
        let sites = ReluFromMaxZero.apply_sites(&naive);
        assert_eq!(sites.len(), 1, "{sites:?}");
        assert!(sites[0].what.contains("zeroBuf goes"), "{}", sites[0].what);
        let edit = ReluFromMaxZero.apply(&naive, &sites[0]).unwrap();
        assert_eq!(
            compute_and_members(&edit.text),
            compute_and_members(&reference)
        );
        assert!(!edit.text.contains("zeroBuf"));
        assert_eq!(round_trips(&ReluFromMaxZero, &naive), 1);
    }

    #[test]
    fn relu_custom_reference_rewinds_to_the_naive_form() {
        let (naive, reference) = fixture_kernel("relu_custom");
        let sites = ReluFromMaxZero.rewind_sites(&reference);
        assert_eq!(sites.len(), 1, "{sites:?}");
        let edit = ReluFromMaxZero.rewind(&reference, &sites[0]).unwrap();
        // The canonical slow form is the naive kernel's, line for line.
        assert_eq!(compute_and_members(&edit.text), compute_and_members(&naive));
        assert!(edit.text.contains(
            "        pipe.InitBuffer(zeroBuf, this->tileLength * sizeof(DTYPE_X));\n    }\n"
        ));
        assert_eq!(rewinds_round_trip(&ReluFromMaxZero, &reference), 1);
    }

    #[test]
    fn a_max_against_a_nonzero_or_reused_tensor_is_no_site() {
        let (naive, _) = fixture_kernel("relu_custom");
        let half = naive.replace(
            "static_cast<DTYPE_X>(0.0f), this->tileLength",
            "static_cast<DTYPE_X>(0.5f), this->tileLength",
        );
        assert!(ReluFromMaxZero.apply_sites(&half).is_empty());
        let reused = naive.replace(
            "        outQueueY.EnQue<DTYPE_Y>(outLocal);\n",
            "        AscendC::Add(outLocal, outLocal, zeroLocal, this->tileLength);\n        outQueueY.EnQue<DTYPE_Y>(outLocal);\n",
        );
        assert!(ReluFromMaxZero.apply_sites(&reused).is_empty());
        let shorter = naive.replace(
            "AscendC::Max(outLocal, in0, zeroLocal, this->tileLength)",
            "AscendC::Max(outLocal, in0, zeroLocal, this->tileLength / 2)",
        );
        assert!(ReluFromMaxZero.apply_sites(&shorter).is_empty());
    }

    #[test]
    fn a_buffer_used_elsewhere_stays() {
        let (naive, _) = fixture_kernel("relu_custom");
        let shared = naive.replace(
            "        inQueueX.EnQue(xLocal);\n",
            "        inQueueX.EnQue(xLocal);\n        AscendC::LocalTensor<DTYPE_X> other = zeroBuf.Get<DTYPE_X>();\n",
        );
        let sites = ReluFromMaxZero.apply_sites(&shared);
        assert_eq!(sites.len(), 1);
        let edit = ReluFromMaxZero.apply(&shared, &sites[0]).unwrap();
        assert!(
            edit.text
                .contains("TBuf<AscendC::TPosition::VECCALC> zeroBuf;")
        );
        assert!(!edit.text.contains("zeroLocal"));
        assert_eq!(round_trips(&ReluFromMaxZero, &shared), 1);
    }
}
