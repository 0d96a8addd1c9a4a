// UnitFlag: the cube's Mmad and Fixpipe synced per 512-byte block of L0C instead of by flags. With
// `unitFlag` 2 or 3 on both (trace key `uf=`), the hardware keeps a flag per 512-byte L0C block: the
// Fixpipe moves a block out as soon as the Mmad has finished it, and an Mmad writes a block as soon as the
// Fixpipe has read it (asc-devkit docs, 基础API/矩阵计算（ISASI）/Mmad计算关键特性说明/UnitFlag.md; the
// guide 优秀实践/Matmul性能调优案例/Matmul高阶API使能UnitFlag.md: "每当完成一个512B数据结果的计算，
// FIXPIPE立即开始搬出该512B的数据"). Without it the twin's trace orders them with M -> FIX and FIX -> M
// flags, so the Fixpipe waits for the whole Mmad and the next block's Mmad for the whole Fixpipe (and
// the store's latency).
// Owns: the start and end bounds the two pipes put on each other under UnitFlag. Does not know: what an
// instruction costs (costs.rs, cube.rs), the rest of the schedule (pipeline.rs), the trace syntax.
//
// Measured effect it stands for (../shared/measured/figures.json): `bp_unitflag` 37.39 -> 34.66 us
// (M=128, N=30720, K=64 fp16, base 128 x 256 x 64, 6 base blocks a core: 0.46 us a block) and
// `ascdevkit_matmul_case7_to_case8` 4053.44 -> 4012.44 us (8192^3, about 85 blocks a core: 0.48 us a
// block). Both are about one block's Mmad plus Fixpipe overlap, which is what the bounds below give
// when the cube and the Fixpipe are on the critical path; the model's figures on such kernels are in
// the matmul-unitflag motif's tests and the README.

use super::trace::{Instr, Pipe};

/// Bytes of one unit-flag block of L0C (UnitFlag.md: one flag per 512 B).
pub const BLOCK_BYTES: f64 = 512.0;

#[derive(Debug, Clone, Copy, PartialEq)]
struct Window {
    start: f64,
    end: f64,
    /// 512-byte L0C blocks the Mmad wrote (and the Fixpipe reads).
    blocks: f64,
}

/// The latest unit-flag Mmad not yet read out, and the latest unit-flag Fixpipe whose L0C blocks the
/// next Mmad overwrites. One per core (block of the trace).
#[derive(Debug, Clone, Default)]
pub struct UnitFlag {
    mmad: Option<Window>,
    fix: Option<Window>,
}

/// L0C blocks of an Mmad: m and n rounded up to 16 (whole fractals), 4-byte accumulators (float or
/// int32, Mmad.md).
fn l0c_blocks(ins: &Instr) -> f64 {
    let m = ins.m.unwrap_or(16).div_ceil(16) * 16;
    let n = ins.n.unwrap_or(16).div_ceil(16) * 16;
    ((m * n * 4) as f64 / BLOCK_BYTES).max(1.0)
}

impl UnitFlag {
    /// Whether this record takes part: an Mmad or a Fixpipe with `uf=`.
    pub fn applies(ins: &Instr) -> bool {
        ins.uf.is_some() && matches!(ins.pipe, Pipe::M | Pipe::Fix)
    }

    /// The earliest start of `ins` (which `applies`), `start` being what the rest of the schedule allows:
    /// a Fixpipe waits for the first block of the last Mmad, an Mmad for the Fixpipe to have read the
    /// first block it overwrites.
    pub fn earliest_start(&self, ins: &Instr, start: f64) -> f64 {
        let first = |w: &Window| w.start + (w.end - w.start) / w.blocks;
        match ins.pipe {
            Pipe::Fix => self.mmad.as_ref().map_or(start, |w| start.max(first(w))),
            Pipe::M => self.fix.as_ref().map_or(start, |w| start.max(first(w))),
            _ => start,
        }
    }

    /// The end of `ins`, which started at `start` and would end at `end` on its own: no earlier than its
    /// partner's end plus its own time for one block (the last block follows the partner's last). Records
    /// it as the partner of the next one.
    pub fn finish(&mut self, ins: &Instr, start: f64, end: f64) -> f64 {
        match ins.pipe {
            Pipe::M => {
                let blocks = l0c_blocks(ins);
                let end = match self.fix.take() {
                    Some(f) => end.max(f.end + (end - start) / blocks),
                    None => end,
                };
                // Only the Mmad that releases the blocks (3) hands them to the Fixpipe; 2 keeps them
                // for further accumulation, and the Fixpipe follows the last one.
                self.mmad = Some(Window { start, end, blocks });
                end
            }
            Pipe::Fix => {
                let Some(m) = self.mmad.take() else {
                    return end;
                };
                let end = end.max(m.end + (end - start) / m.blocks);
                self.fix = Some(Window {
                    start,
                    end,
                    blocks: m.blocks,
                });
                end
            }
            _ => end,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::trace::{Record, parse};

    fn ins(rec: &str) -> Instr {
        let t = parse(&format!("twin-trace 2\nblock 0 1\n{rec}\nend\n")).unwrap();
        let Record::Instr(i) = &t.blocks[0].records[0] else {
            panic!("not an instruction")
        };
        i.clone()
    }

    #[test]
    fn the_fixpipe_starts_after_the_first_block_and_ends_after_the_last() {
        // 128 x 256 float: 256 blocks of 512 B.
        let mmad = ins("I M Mmad m=128 k=64 n=256 dt=2 uf=3 line=1");
        let fix = ins("I FIX Fixpipe bytes=65536 bursts=128 burst=512 gm=0 gap=0 uf=3 line=2");
        let mut u = UnitFlag::default();
        assert_eq!(u.earliest_start(&mmad, 100.0), 100.0);
        assert_eq!(u.finish(&mmad, 100.0, 612.0), 612.0);
        // First block after 512 / 256 = 2 cycles of the Mmad.
        assert_eq!(u.earliest_start(&fix, 0.0), 102.0);
        // A Fixpipe of 256 cycles from 102 would end at 358; the last block leaves one block's time
        // (1 cycle) after the Mmad's end.
        assert_eq!(u.finish(&fix, 102.0, 358.0), 613.0);
        // The next block's Mmad overwrites after the Fixpipe read its first block, and its last block
        // after the Fixpipe's last.
        let next = ins("I M Mmad m=128 k=64 n=256 dt=2 uf=2 line=1");
        assert!((u.earliest_start(&next, 0.0) - (102.0 + 511.0 / 256.0)).abs() < 1e-9);
        assert_eq!(u.finish(&next, 110.0, 622.0), 622.0);
        // A record without uf takes no part.
        assert!(!UnitFlag::applies(&ins(
            "I M Mmad m=16 k=16 n=16 dt=2 line=1"
        )));
        assert!(UnitFlag::applies(&next));
    }

    #[test]
    fn a_fixpipe_with_no_unit_flag_mmad_before_it_is_unbounded() {
        let fix = ins("I FIX Fixpipe bytes=512 bursts=1 burst=512 gm=0 gap=0 uf=3 line=2");
        let mut u = UnitFlag::default();
        assert_eq!(u.earliest_start(&fix, 5.0), 5.0);
        assert_eq!(u.finish(&fix, 5.0, 9.0), 9.0);
    }
}
