//! reciprocal-from-div-ones: `Duplicate(ones, 1, n)` into a `TBuf` tensor and `Div(y, ones, x, n)` become
//! one `Reciprocal(y, x, n)`: a cheap unary pass instead of a fill and a slow division, and the ones'
//! buffer leaves the UB.

use super::constant_buffer::{self as cb, Fast, Fusion, Pair, SlowArgs};
use crate::rewrite::cst::text_of;
use crate::rewrite::motif::{Edit, Motif, MotifError, Site};

pub struct ReciprocalFromDivOnes;

const NAME: &str = "reciprocal-from-div-ones";

static FUSION: Fusion = Fusion {
    motif: NAME,
    producer: "Duplicate",
    consumer: "Div",
    fast: "Reciprocal",
    stem: "ones",
    fuse,
    split,
};

/// `Duplicate(o, 1, n)` + `Div(y, o, x, n)`: `Reciprocal(y, x, n)`.
fn fuse(p: &Pair) -> Option<Vec<String>> {
    let dup = p.producer.args();
    let [out, ones, x, n] = p.consumer_args()[..] else {
        return None;
    };
    (dup.len() == 3
        && cb::literal_value(dup[1], p.text) == Some(1.0)
        && ones == p.scratch
        && x != p.scratch)
        .then(|| vec![out.into(), x.into(), n.into()])
}

/// `Reciprocal(y, x, n)`: `Duplicate(ones, 1, n)` + `Div(y, ones, x, n)`.
fn split(f: &Fast) -> Option<SlowArgs> {
    let [out, x, n] = f.call.args()[..] else {
        return None;
    };
    let (out, x, n) = (text_of(out, f.text), text_of(x, f.text), text_of(n, f.text));
    Some((
        vec![
            f.scratch.into(),
            cb::typed_literal(f.elem, "1.0f"),
            n.into(),
        ],
        vec![out.into(), f.scratch.into(), x.into(), n.into()],
    ))
}

impl Motif for ReciprocalFromDivOnes {
    fn name(&self) -> &'static str {
        NAME
    }
    fn summary(&self) -> &'static str {
        "Div of a TBuf tensor of ones by x -> Reciprocal(x): no fill, no division, and the ones' buffer goes"
    }
    fn preserves_meaning_when(&self) -> &'static str {
        "checked: the ones tensor is a local taken from a TBuf member by `Get` in the same function and \
         named exactly three times there (its declaration, the `Duplicate(o, 1, n)` that fills it with a \
         literal one seen through casts, and the 4-argument `Div` that takes it as the dividend); the \
         Duplicate is the nearest earlier statement of the same block writing it, both calls give the \
         same count text and nothing between them assigns a name of the count. Then 1 / x equals \
         reciprocal(x) element by element, up to the last bit where the hardware's reciprocal rounds \
         differently from its division (outputs are verified within the dtype's tolerance). The buffer's \
         member and InitBuffer are removed only when nothing else names the buffer. A rewind adds a TBuf \
         of n elements of x's type (n must mean the same in Init: no local names), which takes UB"
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

    #[test]
    fn sigmoid_custom_naive_divides_no_more() {
        let (naive, reference) = fixture_kernel("sigmoid_custom");
        let sites = ReciprocalFromDivOnes.apply_sites(&naive);
        assert_eq!(sites.len(), 1, "{sites:?}");
        let edit = ReciprocalFromDivOnes.apply(&naive, &sites[0]).unwrap();
        assert!(!edit.text.contains("onesBuf") && !edit.text.contains("Duplicate"));
        // The reference's compute, less the barrier that another motif removes.
        let reference_line = "        AscendC::Reciprocal(outLocal, outLocal, this->tileLength);\n";
        assert!(reference.contains(reference_line));
        assert!(edit.text.contains(reference_line));
        assert_eq!(round_trips(&ReciprocalFromDivOnes, &naive), 1);
    }

    #[test]
    fn gelu_keeps_its_comment_on_the_division_line() {
        let (naive, _) = fixture_kernel("gelu_custom");
        let sites = ReciprocalFromDivOnes.apply_sites(&naive);
        assert_eq!(sites.len(), 1, "{sites:?}");
        let edit = ReciprocalFromDivOnes.apply(&naive, &sites[0]).unwrap();
        assert!(edit.text.contains(
            "AscendC::Reciprocal(outLocal, outLocal, this->tileLength); // sigmoid(2u)\n"
        ));
    }

    #[test]
    fn silu_reference_rewinds_to_a_division_of_ones() {
        let (_, reference) = fixture_kernel("silu_custom");
        let sites = ReciprocalFromDivOnes.rewind_sites(&reference);
        assert_eq!(sites.len(), 1, "{sites:?}");
        let edit = ReciprocalFromDivOnes.rewind(&reference, &sites[0]).unwrap();
        for line in [
            "    AscendC::TBuf<AscendC::TPosition::VECCALC> onesBuf;\n",
            "        pipe.InitBuffer(onesBuf, this->tileLength * sizeof(float));\n",
            "        AscendC::LocalTensor<float> onesLocal = onesBuf.Get<float>();\n        AscendC::Duplicate(onesLocal, 1.0f, this->tileLength);\n        AscendC::Div(tmpLocal, onesLocal, tmpLocal, this->tileLength);\n",
        ] {
            assert!(
                edit.text.contains(line),
                "{line} missing from\n{}",
                edit.text
            );
        }
        assert_eq!(rewinds_round_trip(&ReciprocalFromDivOnes, &reference), 1);
    }

    #[test]
    fn a_division_of_x_by_ones_or_of_twos_is_no_site() {
        let (naive, _) = fixture_kernel("sigmoid_custom");
        let by_ones = naive.replace(
            "AscendC::Div(outLocal, onesLocal, outLocal,",
            "AscendC::Div(outLocal, outLocal, onesLocal,",
        );
        assert!(ReciprocalFromDivOnes.apply_sites(&by_ones).is_empty());
        let twos = naive.replace("Duplicate(onesLocal, 1.0f,", "Duplicate(onesLocal, 2.0f,");
        assert!(ReciprocalFromDivOnes.apply_sites(&twos).is_empty());
        // A plain division (div_custom) has no ones tensor at all.
        let (div, _) = fixture_kernel("div_custom");
        assert!(ReciprocalFromDivOnes.apply_sites(&div).is_empty());
    }
}
