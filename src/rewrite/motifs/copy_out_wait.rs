//! wait-previous-copy-out: a tile that computes in place in its input buffer copies the result out and
//! then, before the next copy-in, waits for that copy (`SetFlag<HardEvent::MTE3_MTE2>(e);
//! WaitFlag<HardEvent::MTE3_MTE2>(e);` right after the `DataCopy` to GM). MTE2 and MTE3 then never
//! overlap. With the buffer queued at depth two, the next copy-in writes the *other* buffer, whose copy
//! out was issued one tile earlier: waiting for that one is enough. Moving the event pair above the
//! tile's copy out (and above the V -> MTE3 pair that precedes it) does exactly that: the set runs in the
//! MTE3 queue after the previous tile's copy out, and the wait holds MTE2 until then (asc-devkit docs,
//! SetFlag/WaitFlag: a set executes in its source pipe's order, a wait blocks its destination pipe).
//! 253 places in ops-math and ops-nn at the pinned commits set and at once wait MTE3_MTE2 (stop 48).
//! Rewinding moves the pair back below the copy out. Knows nothing of measuring or the loop.

use crate::rewrite::cst::{self, Call, text_of};
use crate::rewrite::motif::{Edit, Motif, MotifError, Site};
use std::ops::Range;
use tree_sitter::Node;

pub struct WaitPreviousCopyOut;

const NAME: &str = "wait-previous-copy-out";

fn error(text: &str, at: usize, why: &str) -> MotifError {
    MotifError {
        motif: NAME,
        line: cst::line_of(text, at),
        why: why.into(),
    }
}

fn call_of(stmt: Node) -> Option<Call> {
    (stmt.kind() == "expression_statement")
        .then(|| stmt.named_child(0).and_then(Call::of))
        .flatten()
}

fn event(t: &str) -> &str {
    t.trim_start_matches("AscendC::")
        .trim_start_matches("HardEvent::")
}

/// `SetFlag<HardEvent::EV>(id);` (or WaitFlag): the id's text.
fn flag<'a>(stmt: Node, text: &'a str, name: &str, ev: &str) -> Option<&'a str> {
    let c = call_of(stmt)?;
    let [id] = c.args()[..] else { return None };
    (c.name(text) == name && event(c.template_args(text)?) == ev).then(|| text_of(id, text))
}

/// `event_t id = ...FetchEventID(HardEvent::EV)...;`: the id's name.
fn fetch<'a>(stmt: Node, text: &'a str, ev: &str) -> Option<&'a str> {
    (stmt.kind() == "declaration").then_some(())?;
    let calls = cst::calls_named(stmt, text, "FetchEventID");
    let [c] = &calls[..] else { return None };
    let [arg] = c.args()[..] else { return None };
    (event(text_of(arg, text)) == ev).then_some(())?;
    let d = stmt.child_by_field_name("declarator")?;
    let name = d.child_by_field_name("declarator")?;
    (name.kind() == "identifier").then(|| text_of(name, text))
}

/// An event pair of `ev` starting at `stmts[at]`: [fetch,] set, wait on one id. Its statement count.
fn pair(stmts: &[Node], at: usize, text: &str, ev: &str) -> Option<usize> {
    let (lead, id) = match stmts.get(at).and_then(|s| fetch(*s, text, ev)) {
        Some(id) => (1, Some(id)),
        None => (0, None),
    };
    let set = flag(*stmts.get(at + lead)?, text, "SetFlag", ev)?;
    let wait = flag(*stmts.get(at + lead + 1)?, text, "WaitFlag", ev)?;
    (set == wait && id.is_none_or(|id| id == set)).then_some(lead + 2)
}

/// The GM tensor a copy out writes: the base name of `DataCopy*`'s first argument when its second is a
/// local tensor's name (`Base::outTensorsGM[i]` -> `outTensorsGM`).
fn copy_out_target<'a>(c: &Call, text: &'a str) -> Option<&'a str> {
    let args = c.args();
    let dst = *args.first()?;
    let src = *args.get(1)?;
    (src.kind() == "identifier").then_some(())?;
    let base = match dst.kind() {
        "subscript_expression" => dst.child_by_field_name("argument")?,
        _ => dst,
    };
    let name = text_of(base, text).rsplit([':', '.', '>']).next()?;
    name.to_ascii_lowercase().contains("gm").then_some(name)
}

/// A statement that only copies to GM (a `DataCopy*` statement, or an if/else of blocks holding only
/// such copies and declarations): the GM tensors it writes.
fn copy_out<'a>(stmt: Node, text: &'a str) -> Option<Vec<&'a str>> {
    let stmts: Vec<Node> = match stmt.kind() {
        "expression_statement" => vec![stmt],
        "if_statement" => {
            let mut out = vec![];
            for part in [
                stmt.child_by_field_name("consequence"),
                stmt.child_by_field_name("alternative").and_then(|a| {
                    if a.kind() == "else_clause" {
                        a.named_child(0)
                    } else {
                        Some(a)
                    }
                }),
            ]
            .into_iter()
            .flatten()
            {
                (part.kind() == "compound_statement").then_some(())?;
                out.extend(cst::statements(part));
            }
            out
        }
        _ => return None,
    };
    let mut targets = vec![];
    for s in stmts {
        if s.kind() == "declaration"
            && cst::nodes_of_kind(s, "call_expression")
                .into_iter()
                .filter_map(Call::of)
                .all(|c| !c.name(text).starts_with("DataCopy"))
        {
            continue;
        }
        let c = call_of(s)?;
        c.name(text).starts_with("DataCopy").then_some(())?;
        targets.push(copy_out_target(&c, text)?);
    }
    (!targets.is_empty()).then_some(targets)
}

/// Whether some `DataCopy*` of the file reads one of `gm` (its source argument names it): then a copy
/// in could read what the moved copy out has not yet written.
fn read_back(root: Node, text: &str, gm: &[&str]) -> bool {
    ["DataCopy", "DataCopyPad"].iter().any(|n| {
        cst::calls_named(root, text, n).iter().any(|c| {
            c.args().get(1).is_some_and(|src| {
                cst::identifiers_in(*src, text)
                    .iter()
                    .any(|id| gm.contains(id))
            })
        })
    })
}

/// One place: `lead` (the V -> MTE3 pair, if any, then the copy out) and the MTE3 -> MTE2 pair `wait`,
/// as line spans; `after` says whether the pair is after the copy out (the slow form) or before `lead`.
struct Place {
    lead: Range<usize>,
    wait: Range<usize>,
    after: bool,
}

impl Place {
    fn span(&self) -> Range<usize> {
        self.lead.start.min(self.wait.start)..self.lead.end.max(self.wait.end)
    }
}

fn lines(text: &str, stmts: &[Node]) -> Option<Range<usize>> {
    let first = cst::own_lines(text, *stmts.first()?)?;
    let last = cst::own_lines(text, *stmts.last()?)?;
    // `//` comment lines right above go with the statements they describe.
    let mut start = first.start;
    while start > 0 {
        let above = cst::line_start(text, start - 1);
        if !text[above..start].trim_start().starts_with("//") {
            break;
        }
        start = above;
    }
    Some(start..last.end)
}

fn places(text: &str, root: Node) -> Vec<Place> {
    let mut out = vec![];
    for block in cst::nodes_of_kind(root, "compound_statement") {
        let stmts = cst::statements(block);
        for i in 0..stmts.len() {
            // [V_MTE3 pair] copy-out, then the MTE3_MTE2 pair (slow), or the pair first (fast).
            for after in [true, false] {
                let (start, pair_at) = if after { (i, None) } else { (i, Some(i)) };
                let mut at = match pair_at {
                    Some(p) => match pair(&stmts, p, text, "MTE3_MTE2") {
                        Some(n) => p + n,
                        None => continue,
                    },
                    None => start,
                };
                let lead_from = at;
                if let Some(n) = pair(&stmts, at, text, "V_MTE3") {
                    at += n;
                }
                let Some(copy) = stmts.get(at).and_then(|s| copy_out(*s, text)) else {
                    continue;
                };
                if read_back(root, text, &copy) {
                    continue;
                }
                let lead = &stmts[lead_from..=at];
                let wait = if after {
                    match pair(&stmts, at + 1, text, "MTE3_MTE2") {
                        Some(n) => &stmts[at + 1..at + 1 + n],
                        None => continue,
                    }
                } else {
                    // The fast form is only recognised where the pair does not also follow the copy.
                    if pair(&stmts, at + 1, text, "MTE3_MTE2").is_some() {
                        continue;
                    }
                    &stmts[i..lead_from]
                };
                let (Some(lead), Some(wait)) = (lines(text, lead), lines(text, wait)) else {
                    continue;
                };
                out.push(Place { lead, wait, after });
            }
        }
    }
    // A pair matched from its set as well as from its FetchEventID declaration (or a copy out matched
    // with and without the V_MTE3 pair before it) is one place: the widest.
    let fixed = |p: &Place| {
        if p.after {
            p.wait.clone()
        } else {
            p.lead.clone()
        }
    };
    let mut kept: Vec<Place> = vec![];
    for p in out {
        match kept
            .iter_mut()
            .find(|k| k.after == p.after && fixed(k) == fixed(&p))
        {
            Some(k) if p.span().start < k.span().start => *k = p,
            Some(_) => {}
            None => kept.push(p),
        }
    }
    kept
}

/// The span with its two parts swapped: a permutation of whole lines, so the inverse is the same swap.
fn swap(text: &str, p: &Place) -> (Range<usize>, String) {
    let (first, second) = if p.after {
        (&p.lead, &p.wait)
    } else {
        (&p.wait, &p.lead)
    };
    let mut with = String::new();
    with.push_str(&text[second.clone()]);
    with.push_str(&text[first.clone()]);
    (p.span(), with)
}

fn edit(text: &str, site: &Site, after: bool) -> Result<Edit, MotifError> {
    let tree = cst::parse(text);
    let p = places(text, tree.root_node())
        .into_iter()
        .find(|p| p.after == after && p.span() == site.range)
        .ok_or_else(|| {
            error(
                text,
                site.range.start,
                "no MTE3 -> MTE2 wait beside a copy out here",
            )
        })?;
    let (range, with) = swap(text, &p);
    let new = cst::splice(text, range.clone(), &with);
    let what = if after {
        "MTE3 -> MTE2 wait before the copy out"
    } else {
        "MTE3 -> MTE2 wait after the copy out"
    };
    Ok(Edit {
        text: new.clone(),
        inverse: Site::new(range, &new, what),
    })
}

fn sites(text: &str, after: bool) -> Vec<Site> {
    let tree = cst::parse(text);
    places(text, tree.root_node())
        .into_iter()
        .filter(|p| p.after == after)
        .map(|p| {
            let what = if after {
                "copy out, then a wait for it before the next copy in: wait for the previous tile's"
            } else {
                "wait for the previous tile's copy out: wait for this tile's"
            };
            Site::new(p.span(), text, what)
        })
        .collect()
}

impl Motif for WaitPreviousCopyOut {
    fn relaxes_sync(&self) -> bool {
        true
    }
    fn edits_shared_headers(&self) -> bool {
        true
    }
    fn name(&self) -> &'static str {
        NAME
    }
    fn summary(&self) -> &'static str {
        "copy out, then SetFlag/WaitFlag<MTE3_MTE2> -> the pair before the copy out (the next copy in waits for the previous tile's copy out only)"
    }
    fn preserves_meaning_when(&self) -> &'static str {
        "checked in the text: an MTE3_MTE2 event pair (optionally its FetchEventID declaration), each \
         statement on its own lines, directly after a statement that only copies local tensors to GM \
         tensors (a DataCopy*, or an if/else of blocks of them), itself optionally after a V_MTE3 pair; \
         no DataCopy* of the file reads those GM tensors (else a copy in could read GM the copy out has \
         not written yet). NOT checked in the text: that the next copy in writes a different UB buffer \
         than this tile's copy out reads (a queue of depth two or more); a candidate whose run or shape \
         probes show a copy in overwriting UB a copy out still reads fails as a UB race (the model's \
         race check), and outputs are compared as for every candidate. Rewind moves the pair back after \
         the copy out"
    }
    fn apply_sites(&self, text: &str) -> Vec<Site> {
        sites(text, true)
    }
    fn apply(&self, text: &str, site: &Site) -> Result<Edit, MotifError> {
        edit(text, site, true)
    }
    fn rewind_sites(&self, text: &str) -> Vec<Site> {
        sites(text, false)
    }
    fn rewind(&self, text: &str, site: &Site) -> Result<Edit, MotifError> {
        edit(text, site, false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rewrite::motif::Direction;
    use crate::rewrite::motif::edit_all;
    use crate::rewrite::motif::testing::*;

    /// The shape of a per-tile function that computes in place and copies out (written for this test
    /// after the pattern stop 48 counted in public kernels).
    const TILE: &str = r#"
class KernelNeg {
    __aicore__ inline void Compute(uint32_t index, int64_t dataCount, bool isRemainder)
    {
        LocalTensor<T> dataLocal = dataQueue.template DeQue<T>();
        Muls(dataLocal, dataLocal, (T)-1, dataCount);
        // The copy out waits for the vector pipe.
        event_t eventIDVToMTE3 = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::V_MTE3));
        SetFlag<HardEvent::V_MTE3>(eventIDVToMTE3);
        WaitFlag<HardEvent::V_MTE3>(eventIDVToMTE3);
        if (isRemainder) {
            DataCopyExtParams copyParams{1, static_cast<uint32_t>(dataCount * sizeof(T)), 0, 0, 0};
            DataCopyPad(outGM[index * maxDataCount], dataLocal, copyParams);
        } else {
            DataCopy(outGM[index * maxDataCount], dataLocal, dataCount);
        }
        event_t eventIDMTE3ToMTE2 = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::MTE3_MTE2));
        SetFlag<HardEvent::MTE3_MTE2>(eventIDMTE3ToMTE2);
        WaitFlag<HardEvent::MTE3_MTE2>(eventIDMTE3ToMTE2);
        dataQueue.FreeTensor(dataLocal);
    }
    __aicore__ inline void CopyIn(uint32_t index, int64_t dataCount)
    {
        LocalTensor<T> dataLocal = dataQueue.template AllocTensor<T>();
        DataCopy(dataLocal, inGM[index * maxDataCount], dataCount);
        dataQueue.EnQue(dataLocal);
    }
};
"#;

    #[test]
    fn the_wait_moves_above_the_tiles_copy_out_and_back() {
        let sites = WaitPreviousCopyOut.apply_sites(TILE);
        assert_eq!(sites.len(), 1, "{sites:?}");
        assert!(WaitPreviousCopyOut.rewind_sites(TILE).is_empty());
        let edit = WaitPreviousCopyOut.apply(TILE, &sites[0]).unwrap();
        assert!(
            edit.text.contains(
                "        Muls(dataLocal, dataLocal, (T)-1, dataCount);\n\
                 \x20       event_t eventIDMTE3ToMTE2 = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::MTE3_MTE2));\n\
                 \x20       SetFlag<HardEvent::MTE3_MTE2>(eventIDMTE3ToMTE2);\n\
                 \x20       WaitFlag<HardEvent::MTE3_MTE2>(eventIDMTE3ToMTE2);\n\
                 \x20       // The copy out waits for the vector pipe.\n"
            ),
            "{}",
            edit.text
        );
        assert!(edit.text.contains(
            "            DataCopy(outGM[index * maxDataCount], dataLocal, dataCount);\n        }\n        dataQueue.FreeTensor(dataLocal);"
        ));
        assert_eq!(cst::syntax_errors(&edit.text), cst::syntax_errors(TILE));
        assert!(WaitPreviousCopyOut.apply_sites(&edit.text).is_empty());
        assert_eq!(round_trips(&WaitPreviousCopyOut, TILE), 1);
        let (fast, n) = edit_all(&WaitPreviousCopyOut, TILE, Direction::Apply)
            .unwrap()
            .unwrap();
        assert_eq!(n, 1);
        assert_eq!(rewinds_round_trip(&WaitPreviousCopyOut, &fast), 1);
        let (back, _) = edit_all(&WaitPreviousCopyOut, &fast, Direction::Rewind)
            .unwrap()
            .unwrap();
        assert_eq!(back, TILE);
    }

    #[test]
    fn no_site_where_the_wait_orders_more_than_the_next_copy_in() {
        for (from, to) in [
            // the GM the copy out writes is read back by a copy in
            (
                "DataCopy(dataLocal, inGM[index * maxDataCount], dataCount);",
                "DataCopy(dataLocal, outGM[index * maxDataCount], dataCount);",
            ),
            // the pair waits on another id than it sets
            (
                "WaitFlag<HardEvent::MTE3_MTE2>(eventIDMTE3ToMTE2);",
                "WaitFlag<HardEvent::MTE3_MTE2>(EVENT_ID1);",
            ),
            // something other than a copy to GM stands before the pair
            (
                "            DataCopy(outGM[index * maxDataCount], dataLocal, dataCount);\n        }",
                "            DataCopy(outGM[index * maxDataCount], dataLocal, dataCount);\n        }\n        Muls(dataLocal, dataLocal, (T)2, dataCount);",
            ),
        ] {
            let k = TILE.replace(from, to);
            assert_ne!(k, TILE, "{from}");
            assert!(WaitPreviousCopyOut.apply_sites(&k).is_empty(), "{to}");
        }
        // Without the V_MTE3 pair, the wait moves above the copy out alone.
        let k = TILE.replace(
            "        event_t eventIDVToMTE3 = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::V_MTE3));\n        SetFlag<HardEvent::V_MTE3>(eventIDVToMTE3);\n        WaitFlag<HardEvent::V_MTE3>(eventIDVToMTE3);\n",
            "",
        );
        assert_ne!(k, TILE);
        assert_eq!(round_trips(&WaitPreviousCopyOut, &k), 1);
    }
}
