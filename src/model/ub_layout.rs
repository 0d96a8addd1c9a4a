// The UB layout of a launch: which InitBuffer calls placed the operands of its binary vector
// instructions in the same UB bank groups, and which 256-byte offsets between the buffers take those
// conflicts away.
// Owns: mapping operand addresses to the buffers the block carved (the trace's `carve` records), the
// conflict cost of a layout (costs::operand_conflict_cycles_per_repeat, the measured bank_conflict_ub
// figures), and the search over offsets. Pure: trace in, plan out.
// Does not know sources, motifs or files on disk: a plan names InitBuffer calls by file and line, as the
// twin recorded them.
//
// Why 256 bytes: the UB is 16 bank groups of 32 B, and a vector repeat reads 8 consecutive groups (256 B)
// of each source (asc-devkit examples/01_simd_cpp_api/05_best_practices/04_memory_access/
// bank_conflict_ub, README). Buffers whose sizes are multiples of 512 B, as tilings make them, all start
// in group 0, so two sources read the same groups in every repeat; a buffer moved by 256 B reads the
// other eight. asc-devkit's add_high_performance case 6 moves its buffers the same way (measured:
// ascdevkit_add_case5_to_case6 in ../shared/measured).

use std::collections::{BTreeMap, HashMap};

use super::costs::operand_conflict_cycles_per_repeat;
use super::soc::Soc;
use super::trace::{Record, Trace};

/// The offset a buffer is moved by to read the other half of the bank groups.
pub const BANK_OFFSET_BYTES: u64 = 256;

/// At most this many InitBuffer calls are searched exhaustively (2^n layouts); more are searched greedily.
const EXHAUSTIVE_SITES: usize = 12;

/// One InitBuffer call that carved UB buffers, and what it carved (first time it ran in the block).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Site {
    pub file: String,
    pub line: u32,
}

#[derive(Debug, Clone, PartialEq)]
struct Carved {
    site: usize,
    addr: u64,
    len: u64,
    num: u64,
}

/// What a block did with the UB: the buffers it carved and its binary vector instructions' operands.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UbUse {
    sites: Vec<Site>,
    carved: Vec<Carved>,
    /// (dst, src0, src1) start addresses and the repeats of every instruction that used them.
    ops: Vec<((u64, u64, Option<u64>), u64)>,
}

/// Offsets that make the block's binary vector instructions conflict less.
#[derive(Debug, Clone, PartialEq)]
pub struct UbPlan {
    /// The InitBuffer calls whose buffers grow by `BANK_OFFSET_BYTES`, moving every buffer after them.
    pub grow: Vec<Site>,
    /// Modelled bank-conflict cycles of the block as it ran, and with the offsets.
    pub conflict_cycles: f64,
    pub planned_cycles: f64,
}

impl UbUse {
    /// The UB use of the first block that carved UB buffers and ran binary vector instructions with
    /// their operand addresses (trace version 5); None when there is none.
    pub fn of(trace: &Trace) -> Option<UbUse> {
        trace.blocks.iter().find_map(UbUse::of_block)
    }

    fn of_block(block: &super::trace::Block) -> Option<UbUse> {
        let mut u = UbUse::default();
        for c in block.carves.iter().filter(|c| c.hw == "UB") {
            let site = Site {
                file: c.file.clone(),
                line: c.src_line,
            };
            let i = match u.sites.iter().position(|s| *s == site) {
                Some(i) => i,
                None => {
                    u.sites.push(site);
                    u.sites.len() - 1
                }
            };
            u.carved.push(Carved {
                site: i,
                addr: c.addr,
                len: c.len.max(1),
                num: c.num.max(1),
            });
        }
        let mut reps: HashMap<(u64, u64, Option<u64>), u64> = HashMap::new();
        for r in &block.records {
            if let Record::Instr(ins) = r
                && let (Some(d), Some(s0), Some(n)) = (ins.ub_dst, ins.ub_src0, ins.rep)
            {
                *reps.entry((d, s0, ins.ub_src1)).or_default() += n;
            }
        }
        if u.carved.is_empty() || reps.is_empty() {
            return None;
        }
        u.ops = reps.into_iter().collect();
        u.ops.sort();
        Some(u)
    }

    /// Where `addr` lands when the calls marked in `grow` carve `BANK_OFFSET_BYTES` more per buffer:
    /// every buffer carved below it moves it up by what it grew. An address in no carved buffer stays.
    fn moved(&self, addr: u64, grow: &[bool]) -> u64 {
        let Some(k) = self
            .carved
            .iter()
            .rposition(|c| addr >= c.addr && addr < c.addr + c.len * c.num)
        else {
            return addr;
        };
        let c = &self.carved[k];
        let below: u64 = self
            .carved
            .iter()
            .filter(|o| o.addr + o.len * o.num <= c.addr && grow[o.site])
            .map(|o| o.num * BANK_OFFSET_BYTES)
            .sum();
        let own = if grow[c.site] { BANK_OFFSET_BYTES } else { 0 };
        let j = (addr - c.addr) / c.len;
        addr + below + j * own
    }

    /// Modelled conflict cycles of the block's binary vector instructions with the calls in `grow` grown.
    fn cycles(&self, grow: &[bool], soc: &Soc) -> f64 {
        self.ops
            .iter()
            .map(|&((d, s0, s1), reps)| {
                let m = |a| self.moved(a, grow);
                reps as f64 * operand_conflict_cycles_per_repeat(m(d), m(s0), s1.map(m), reps, soc)
            })
            .sum()
    }

    /// The UB end of the carved buffers with the calls in `grow` grown.
    fn end(&self, grow: &[bool]) -> u64 {
        self.carved
            .iter()
            .map(|c| {
                let own = if grow[c.site] { BANK_OFFSET_BYTES } else { 0 };
                self.moved(c.addr, grow) + c.num * (c.len + own)
            })
            .max()
            .unwrap_or(0)
    }

    /// The offsets that leave the fewest conflict cycles and still fit the UB (`ub_limit` bytes), the
    /// fewest calls changed among equals; None when no layout conflicts less than the one that ran.
    pub fn plan(&self, soc: &Soc, ub_limit: u64) -> Option<UbPlan> {
        let n = self.sites.len();
        let none = vec![false; n];
        let now = self.cycles(&none, soc);
        if now <= 0.0 {
            return None;
        }
        let fits = |g: &[bool]| self.end(g) <= ub_limit;
        let mut best = (now, none.clone());
        let better = |c: f64, g: &[bool], best: &(f64, Vec<bool>)| {
            let count = |g: &[bool]| g.iter().filter(|x| **x).count();
            c < best.0 - 1e-9 || (c <= best.0 + 1e-9 && count(g) < count(&best.1))
        };
        if n <= EXHAUSTIVE_SITES {
            for mask in 1u32..(1 << n) {
                let g: Vec<bool> = (0..n).map(|i| mask & (1 << i) != 0).collect();
                let c = self.cycles(&g, soc);
                if better(c, &g, &best) && fits(&g) {
                    best = (c, g);
                }
            }
        } else {
            // Greedy: grow the call that removes the most, while one removes anything.
            loop {
                let mut step: Option<(f64, Vec<bool>)> = None;
                for i in 0..n {
                    if best.1[i] {
                        continue;
                    }
                    let mut g = best.1.clone();
                    g[i] = true;
                    let c = self.cycles(&g, soc);
                    if c < step.as_ref().map_or(best.0, |s| s.0) - 1e-9 && fits(&g) {
                        step = Some((c, g));
                    }
                }
                match step {
                    Some(s) => best = s,
                    None => break,
                }
            }
        }
        if best.0 >= now - 1e-9 {
            return None;
        }
        Some(UbPlan {
            grow: (0..n)
                .filter(|&i| best.1[i])
                .map(|i| self.sites[i].clone())
                .collect(),
            conflict_cycles: now,
            planned_cycles: best.0,
        })
    }

    /// The InitBuffer calls the block's UB buffers came from, in carving order.
    pub fn sites(&self) -> &[Site] {
        &self.sites
    }
}

/// The plan's calls by file: the lines whose InitBuffer grows.
pub fn by_file(plan: &UbPlan) -> BTreeMap<String, Vec<u32>> {
    let mut out: BTreeMap<String, Vec<u32>> = BTreeMap::new();
    for s in &plan.grow {
        out.entry(s.file.clone()).or_default().push(s.line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::trace::parse;

    fn soc() -> &'static Soc {
        crate::model::soc::lookup("Ascend910B1").unwrap()
    }

    /// Three fp32 buffers of 27648 B (a multiple of 512 B), carved one after another as gelu_grad_v2's
    /// temporaries are: `Mul(b, b, c)` reads b and c in the same bank groups in every repeat.
    const THREE: &str = "twin-trace 5\nblock 0 1\n\
        carve UB 0 27648 1 line=94 file=op_kernel/k.h\n\
        carve UB 27648 27648 1 line=95 file=op_kernel/k.h\n\
        carve UB 55296 27648 1 line=96 file=op_kernel/k.h\n\
        I V Mul dt=4 n=6912 rep=108 ubd=27648 ubs0=27648 ubs1=55296 line=120\n\
        I V Add dt=4 n=6912 rep=108 ubd=0 ubs0=0 ubs1=27648 line=121\nend\n";

    #[test]
    fn a_buffer_moved_by_256_bytes_reads_the_other_bank_groups() {
        let t = parse(THREE).unwrap();
        let u = UbUse::of(&t).unwrap();
        assert_eq!(u.sites().len(), 3);
        // Growing the first call moves the second and third buffers by 256 B, the second the third.
        assert_eq!(u.moved(55296 + 64, &[true, false, false]), 55296 + 64 + 256);
        assert_eq!(u.moved(55296, &[true, true, false]), 55296 + 512);
        assert_eq!(u.moved(100, &[true, true, true]), 100);
        let plan = u.plan(soc(), soc().ub_bytes).unwrap();
        assert!(plan.conflict_cycles > 0.0);
        assert!(plan.planned_cycles < plan.conflict_cycles, "{plan:?}");
        // Both pairs (a, b) and (b, c) must read different groups: the first two calls grow, so b
        // moves by 256 B and c by 512 B. What is left is the in-place write meeting the other source in
        // the same 64 KiB bank, which no offset within a bank removes.
        assert_eq!(
            by_file(&plan),
            BTreeMap::from([("op_kernel/k.h".to_string(), vec![94, 95])])
        );
        assert!(u.cycles(&[true, false, false], soc()) > plan.planned_cycles);
        assert!(u.cycles(&[false, true, false], soc()) > plan.planned_cycles);
    }

    #[test]
    fn no_plan_when_nothing_conflicts_or_the_offsets_do_not_fit() {
        let t = parse(THREE).unwrap();
        let u = UbUse::of(&t).unwrap();
        // The buffers end at 82944 B: no room for even one offset.
        assert_eq!(u.plan(soc(), 82944), None);
        let apart = THREE
            .replace("ubs1=55296", "ubs1=55552")
            .replace("ubs1=27648 line=121", "ubs1=27904 line=121");
        let t = parse(&apart).unwrap();
        assert_eq!(UbUse::of(&t).unwrap().plan(soc(), soc().ub_bytes), None);
        // A trace without carves (before version 5) has no UB use.
        let old = THREE.replace("twin-trace 5", "twin-trace 4");
        let old: String = old
            .lines()
            .filter(|l| !l.starts_with("carve"))
            .map(|l| format!("{l}\n"))
            .collect();
        assert!(UbUse::of(&parse(&old).unwrap()).is_none());
    }
}
