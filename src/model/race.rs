//! Unordered copies over the same UB: a copy into UB (MTE2) that may overwrite bytes a copy out of UB
//! (MTE3) is still reading, because nothing the trace records orders the two.
//!
//! The compiler orders the vector pipe after itself and the scalar unit with the copy pipes, and the
//! queues order copy-in, vector work and copy-out of each queue tensor; "if the transfer addresses of
//! PIPE_MTE2 and PIPE_MTE3 overlap, you need to insert synchronization manually" (BiSheng compiler guide,
//! Automatic Synchronization, hiascend.com atlas_bisheng_10_0008). The twin runs copies one after
//! another in program order, so its outputs cannot show a missing sync; this check can. It follows
//! the happens-before order of a block's records with one vector clock per pipe: every instruction
//! ticks its pipe's clock; an instruction issued after scalar work knows what the scalar unit knew;
//! a `set` carries what its pipe (and the issuing scalar unit) knew, the matching `wait` hands it to
//! the waiting pipe; a full barrier or `SyncAll` joins all pipes. A copy-in whose UB range meets a
//! copy-out that its pipe does not yet know to have finished is a race.
//!
//! Owns only that order; knows nothing of costs or time (a race is a race however the model times it),
//! and nothing of where the trace came from.

use super::trace::{BarrierScope, Pipe, Record, Trace};
use serde::Serialize;

/// One copy-in that may overwrite UB a copy-out is still reading.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UbRace {
    /// The block it was found in (the first, where several blocks race the same way).
    pub block: u32,
    /// Kernel source lines (`line=` of the trace) of the copy-in and of the copy-out it may overtake.
    pub copy_in_line: u32,
    pub copy_out_line: u32,
    /// The UB bytes both touch, `[lo, hi)`.
    pub ub: (u64, u64),
}

impl UbRace {
    /// What a user reads: the two copies, the bytes, and the fix.
    pub fn describe(&self) -> String {
        format!(
            "UB race: the copy into UB at line {} may overwrite UB bytes {}..{} that the copy out at line {} is still reading (block {}): nothing orders the copy-in after that copy-out; add `SetFlag<HardEvent::MTE3_MTE2>` / `WaitFlag<HardEvent::MTE3_MTE2>` between them, or copy through a queue",
            self.copy_in_line, self.ub.0, self.ub.1, self.copy_out_line, self.block
        )
    }
}

const PIPES: usize = 7;
type Clock = [u32; PIPES];

fn join(a: &mut Clock, b: &Clock) {
    for (x, y) in a.iter_mut().zip(b) {
        *x = (*x).max(*y);
    }
}

/// A copy-out's UB range and the MTE3 clock when it was issued.
struct Read {
    lo: u64,
    hi: u64,
    tick: u32,
    line: u32,
}

/// Pending copy-outs a block keeps, at most; the oldest go first (a kernel that never orders its copy-in
/// after its copy-out would otherwise make the check quadratic).
const MAX_PENDING: usize = 4096;

/// The distinct races of a trace (one per pair of source lines, in the order found), at most `limit`.
pub fn ub_races(trace: &Trace, limit: usize) -> Vec<UbRace> {
    let mte2 = Pipe::Mte2.index();
    let mte3 = Pipe::Mte3.index();
    let s = Pipe::S.index();
    let mut out: Vec<UbRace> = Vec::new();
    for block in &trace.blocks {
        let mut vc: [Clock; PIPES] = [[0; PIPES]; PIPES];
        let mut fires: Vec<Clock> = vec![[0; PIPES]; block.sets as usize];
        let mut reads: Vec<Read> = Vec::new();
        for rec in &block.records {
            match rec {
                Record::Instr(ins) => {
                    let p = ins.pipe.index();
                    if p != s {
                        let scalar = vc[s];
                        join(&mut vc[p], &scalar);
                    }
                    vc[p][p] += 1;
                    if trace.api_name(ins.api) == "SyncAll" {
                        barrier_all(&mut vc);
                        continue;
                    }
                    let (Some(lo), Some(n)) = (ins.ub, ins.ubn) else {
                        continue;
                    };
                    let hi = lo + n;
                    if p == mte3 {
                        if reads.len() == MAX_PENDING {
                            reads.remove(0);
                        }
                        reads.push(Read {
                            lo,
                            hi,
                            tick: vc[p][p],
                            line: ins.src_line,
                        });
                    } else if p == mte2 {
                        let known = vc[mte2][mte3];
                        reads.retain(|r| r.tick > known);
                        for r in reads.iter().filter(|r| r.lo < hi && lo < r.hi) {
                            let dup = out.iter().any(|x| {
                                x.copy_in_line == ins.src_line && x.copy_out_line == r.line
                            });
                            if !dup && out.len() < limit {
                                out.push(UbRace {
                                    block: block.idx,
                                    copy_in_line: ins.src_line,
                                    copy_out_line: r.line,
                                    ub: (lo.max(r.lo), hi.min(r.hi)),
                                });
                            }
                        }
                    }
                }
                Record::Set { src, slot, .. } => {
                    let mut c = vc[src.index()];
                    join(&mut c, &vc[s]);
                    if let Some(f) = fires.get_mut(*slot as usize) {
                        *f = c;
                    }
                }
                Record::Wait { dst, set_slot, .. } => {
                    if let Some(f) = fires.get(*set_slot as usize).copied() {
                        join(&mut vc[dst.index()], &f);
                    }
                }
                Record::Barrier {
                    scope: BarrierScope::All,
                    ..
                } => barrier_all(&mut vc),
                // A pipe's own barrier orders it after itself, which it already is; cross-core flags
                // order cores, not the pipes of one.
                _ => {}
            }
        }
    }
    out
}

fn barrier_all(vc: &mut [Clock; PIPES]) {
    let mut all = [0; PIPES];
    for c in vc.iter() {
        join(&mut all, c);
    }
    *vc = [all; PIPES];
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::trace::parse;

    /// Two tiles through one UB buffer at 0: copy in, compute in place, copy out, then the next copy in.
    /// `between` goes after each copy-out.
    fn tiles(between: &str) -> String {
        let mut t = String::from("twin-trace 6\nblock 0 1\n");
        for _ in 0..2 {
            t +=
                "I MTE2 DataCopy bytes=4096 bursts=1 burst=4096 gm=0 gap=0 ub=0 ubn=4096 line=10\n";
            t += "set MTE2 V e1\nwait MTE2 V e1\n";
            t += "I V Muls dt=2 n=2048 rep=16 line=11\n";
            t += "set V MTE3 e2\nwait V MTE3 e2\n";
            t +=
                "I MTE3 DataCopy bytes=4096 bursts=1 burst=4096 gm=0 gap=0 ub=0 ubn=4096 line=12\n";
            t += between;
            // The queue's FreeTensor / AllocTensor: the vector pipe, not the copy-out, hands the buffer
            // back to the copy-in.
            t += "set V MTE2 e3\nwait V MTE2 e3\n";
        }
        t + "end\n"
    }

    #[test]
    fn a_copy_in_over_a_copy_out_nothing_waits_for_is_a_race() {
        let races = ub_races(&parse(&tiles("")).unwrap(), 8);
        assert_eq!(
            races,
            [UbRace {
                block: 0,
                copy_in_line: 10,
                copy_out_line: 12,
                ub: (0, 4096),
            }]
        );
    }

    #[test]
    fn the_manual_mte3_to_mte2_sync_or_a_full_barrier_orders_them() {
        for between in [
            "set MTE3 MTE2 e4\nwait MTE3 MTE2 e4\n",
            "barrier ALL\n",
            // through the scalar unit: it waits for the copy-out, and issues the copy-in after
            "set MTE3 S e4\nwait MTE3 S e4\n",
        ] {
            let t = parse(&tiles(between)).unwrap();
            assert_eq!(ub_races(&t, 8), [], "{between}");
        }
    }

    #[test]
    fn copies_over_different_ub_do_not_race() {
        let t = tiles("").replacen("ub=0 ubn=4096 line=10", "ub=8192 ubn=4096 line=10", 2);
        assert_eq!(ub_races(&parse(&t).unwrap(), 8), []);
    }
}
