// The memory system seen by a whole launch: which bytes of each GM copy come from L2 and which from HBM,
// which lines a copy splits, which writes must be written back to HBM during the launch, and which copies
// several cores make to the same address at the same moment.
// Owns: the L2 (capacity, line size, allocation, cache-mode hint), the launch-wide order of copies, and the
// same-address count. It runs once per launch, before the pipeline simulation, over the trace's GM copies.
// Does not know what a copy costs in cycles (costs.rs) nor when it runs (pipeline.rs); the order it uses is
// an approximation of time: the k-th copy of every block of a wave is taken to happen together.
//
// L2 model: lines of `line_bytes`, keyed by (GM buffer, line). A line allocated or touched stays a hit while
// fewer than `l2_bytes` of other lines have been allocated since (least-recently-used by bytes). Reads with
// the cache-mode hint CACHE_MODE_DISABLE (`cache=disable`) go to HBM and allocate nothing. Writes allocate (dirty).
// Write-back: when the launch allocates more than the L2 holds, the overflow is evicted dirty data first, so
// min(written, allocated - capacity) bytes of the writes are written back to HBM during the launch
// (measured: add case 4 moves reads and all writes through HBM; case 5, whose reads bypass L2, keeps every
// write in L2: ascdevkit_add_hbm_bw).
// Traces before version 3 carry no `buf=`: each copy is then its own buffer, read once (every line a miss).

use std::collections::HashMap;

use super::soc::Soc;
use super::trace::{Block, Instr, Pipe, Record, Trace};

/// CacheMode value of CACHE_MODE_DISABLE (AscendC `CacheMode`, asc-devkit docs SetL2CacheHint).
pub const CACHE_MODE_DISABLE: u64 = 0;

/// Direction of a GM copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    Load,
    Store,
}

/// The GM direction of a record, if it is a GM copy the model costs as one (MTE2 loads, MTE3 stores, FIX
/// copies with bytes).
pub fn dma_dir(ins: &Instr) -> Option<Dir> {
    if ins.cycles.is_some() {
        return None;
    }
    match ins.pipe {
        Pipe::Mte2 => Some(Dir::Load),
        Pipe::Mte3 => Some(Dir::Store),
        Pipe::Fix if ins.bytes.is_some() => Some(Dir::Store),
        _ => None,
    }
}

/// What the memory system makes of one GM copy.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct DmaMem {
    /// Bytes served by L2 (read hits) and by HBM (misses and bypassing reads).
    pub hit_bytes: f64,
    pub miss_bytes: f64,
    /// Extra bytes paid because bursts cross more lines than their length needs (a split burst moves a
    /// whole extra line).
    pub split_bytes: f64,
    /// Bursts served mostly from HBM (the rest from L2); fractional when a burst is partly both.
    pub miss_bursts: f64,
    /// Stores: bytes written back to HBM during the launch on their account.
    pub writeback_bytes: f64,
    /// Other cores making a copy from the same GM address in the same step.
    pub same_addr_others: u32,
}

/// The memory outcome of every GM copy of a launch, per block in trace order.
#[derive(Debug, Clone, Default)]
pub struct MemPlan {
    /// Indexed like `trace.blocks`; each holds the block's GM copies in record order.
    pub per_block: Vec<Vec<DmaMem>>,
    /// Bytes of reads served by L2 and by HBM, paid for split lines, written, and written back, over the
    /// launch.
    pub hit_bytes: f64,
    pub miss_bytes: f64,
    pub split_bytes: f64,
    pub write_bytes: f64,
    pub writeback_bytes: f64,
}

impl MemPlan {
    /// The copy `k` of block `b` (trace position), or an all-miss default when the plan has none.
    pub fn get(&self, b: usize, k: usize) -> DmaMem {
        self.per_block
            .get(b)
            .and_then(|v| v.get(k))
            .copied()
            .unwrap_or_default()
    }

    /// Time to move the launch's HBM traffic (misses, split lines, write-backs) at the chip's HBM rate, or
    /// its L2 traffic (hits, writes) at the L2 rates, whichever is longer: the launch's memory roofline.
    pub fn roofline_us(&self, soc: &Soc) -> f64 {
        let hbm =
            (self.miss_bytes + self.split_bytes + self.writeback_bytes) / (soc.mem.hbm_gbps * 1e3);
        let l2 = self.hit_bytes / (soc.mem.l2_read_gbps * 1e3)
            + self.write_bytes / (soc.mem.l2_write_gbps * 1e3);
        hbm.max(l2)
    }

    /// Fraction of read bytes served by L2.
    pub fn hit_ratio(&self) -> f64 {
        let r = self.hit_bytes + self.miss_bytes;
        if r > 0.0 { self.hit_bytes / r } else { 0.0 }
    }
}

/// A GM copy's address: buffer and byte offset.
fn address(ins: &Instr, synthetic: &mut u64) -> (u64, u64) {
    match ins.buf {
        Some(b) => (b, ins.gm.unwrap_or(0)),
        None => {
            // Before version 3: no buffer ids; each copy is a buffer of its own (never reused).
            *synthetic += 1;
            (u64::MAX - *synthetic, ins.gm.unwrap_or(0))
        }
    }
}

/// Lines tracked in a dense table per buffer (for buffer ids and line indices below these); others in a map.
const DENSE_LINES: u64 = 1 << 24;
const DENSE_BUFS: u64 = 1 << 12;
/// Bursts touching more lines than this (512 MiB of 512 B lines), and copies of more bursts, are not
/// tracked line by line.
const MAX_TRACKED_LINES: u64 = 1 << 20;

struct L2 {
    /// Capacity and allocation counter in lines.
    capacity: u64,
    allocated: u64,
    /// Per buffer: line -> allocation count when last touched (0: never).
    dense: Vec<Vec<u64>>,
    sparse: HashMap<(u64, u64), u64>,
}

impl L2 {
    /// Touches one line; returns whether it was a hit. `allocate`: a miss brings the line in.
    fn touch(&mut self, buf: u64, line: u64, allocate: bool) -> bool {
        let now = self.allocated;
        let cap = self.capacity;
        let slot = if line < DENSE_LINES && buf < DENSE_BUFS {
            if self.dense.len() <= buf as usize {
                self.dense.resize(buf as usize + 1, Vec::new());
            }
            let v = &mut self.dense[buf as usize];
            if v.len() <= line as usize {
                v.resize(line as usize + 1, 0);
            }
            &mut v[line as usize]
        } else {
            self.sparse.entry((buf, line)).or_insert(0)
        };
        if *slot != 0 && now - *slot < cap {
            *slot = now;
            return true;
        }
        if allocate {
            self.allocated += 1;
            *slot = self.allocated;
        }
        false
    }
}

/// Plans the launch's memory traffic. `cores`: the cores the blocks are spread over (waves of that many).
pub fn plan(trace: &Trace, soc: &Soc, cores: u32) -> MemPlan {
    let line = soc.mem.line_bytes.max(1);
    let mut l2 = L2 {
        capacity: soc.l2_bytes / line,
        allocated: 0,
        dense: Vec::new(),
        sparse: HashMap::new(),
    };
    // Blocks in launch order, with their GM copies.
    let mut order: Vec<usize> = (0..trace.blocks.len()).collect();
    order.sort_by_key(|&i| trace.blocks[i].idx);
    let copies: Vec<Vec<&Instr>> = trace.blocks.iter().map(gm_copies).collect();
    let mut per_block: Vec<Vec<DmaMem>> = copies
        .iter()
        .map(|c| vec![DmaMem::default(); c.len()])
        .collect();
    let mut synthetic = 0u64;
    let (mut hit_total, mut miss_total, mut split_total, mut written) = (0.0, 0.0, 0.0, 0.0);
    let cores = cores.max(1) as usize;

    for wave in order.chunks(cores) {
        let steps = wave.iter().map(|&b| copies[b].len()).max().unwrap_or(0);
        // Step k of every block of the wave at once (blocks index `copies` and `per_block` by b).
        #[allow(clippy::needless_range_loop)]
        for k in 0..steps {
            // Same-address copies: loads of this step starting at the same address.
            let mut starts: HashMap<(u64, u64), u32> = HashMap::new();
            let mut addrs = Vec::with_capacity(wave.len());
            for &b in wave {
                let Some(ins) = copies[b].get(k) else {
                    addrs.push(None);
                    continue;
                };
                let a = address(ins, &mut synthetic);
                if dma_dir(ins) == Some(Dir::Load) && ins.buf.is_some() {
                    *starts.entry(a).or_default() += 1;
                }
                addrs.push(Some(a));
            }
            for (&b, a) in wave.iter().zip(addrs) {
                let (Some(ins), Some((buf, off))) = (copies[b].get(k), a) else {
                    continue;
                };
                let dir = dma_dir(ins).unwrap_or(Dir::Load);
                let m = &mut per_block[b][k];
                if dir == Dir::Load && ins.buf.is_some() {
                    m.same_addr_others = starts.get(&(buf, off)).copied().unwrap_or(1) - 1;
                }
                let bursts = ins.bursts.unwrap_or(1).max(1);
                let bytes = ins.bytes.unwrap_or(0);
                let burst = ins.burst.unwrap_or(bytes / bursts);
                let gap = ins.gap.unwrap_or(0);
                if bursts > MAX_TRACKED_LINES {
                    // No copy has this many bursts: costed as HBM traffic, its lines untracked.
                    match dir {
                        Dir::Load => {
                            m.miss_bytes += bytes as f64;
                            miss_total += bytes as f64;
                            m.miss_bursts += bursts as f64;
                        }
                        Dir::Store => written += bytes as f64,
                    }
                    continue;
                }
                let bypass = ins.cache == Some(CACHE_MODE_DISABLE);
                // Copies of traces without buffer ids are never reused: no L2 state for them.
                let tracked = ins.buf.is_some();
                for i in 0..bursts {
                    let start = off.saturating_add(i.saturating_mul(burst.saturating_add(gap)));
                    let end = start.saturating_add(burst);
                    if burst == 0 {
                        continue;
                    }
                    let (first, last) = (start / line, (end - 1) / line);
                    let touched = last - first + 1;
                    let needed = burst.div_ceil(line);
                    if touched > MAX_TRACKED_LINES {
                        // A burst this long is no tile: costed as HBM traffic without tracking its lines.
                        match dir {
                            Dir::Load => {
                                m.miss_bytes += burst as f64;
                                miss_total += burst as f64;
                                m.miss_bursts += 1.0;
                            }
                            Dir::Store => written += burst as f64,
                        }
                        continue;
                    }
                    let split = touched > needed;
                    let extra = (touched.saturating_sub(needed) * line) as f64;
                    m.split_bytes += extra;
                    split_total += extra;
                    let mut burst_miss = 0.0;
                    for l in first..=last {
                        let (lo, hi) = (start.max(l * line), end.min((l + 1) * line));
                        let seg = (hi - lo) as f64;
                        // A split burst's partial lines are fetched whole from HBM even when the line is
                        // in L2 (measured: ascdevkit_datacopy_ub_s3_to_s4 x1.28, l1_s2_to_s3 x1.91).
                        let partial = split && hi - lo < line;
                        match dir {
                            Dir::Store => {
                                if tracked {
                                    l2.touch(buf, l, true);
                                }
                                written += seg;
                            }
                            Dir::Load => {
                                let hit = tracked && !bypass && l2.touch(buf, l, true);
                                if hit && !partial {
                                    m.hit_bytes += seg;
                                    hit_total += seg;
                                } else {
                                    m.miss_bytes += seg;
                                    miss_total += seg;
                                    burst_miss += seg;
                                }
                            }
                        }
                    }
                    if dir == Dir::Load {
                        m.miss_bursts += burst_miss / burst as f64;
                    }
                }
            }
        }
    }

    // Write-back of the overflow, dirty data first, shared over the stores by their bytes.
    let overflow = (l2.allocated.saturating_sub(l2.capacity) * line) as f64;
    let writeback = overflow.min(written);
    if written > 0.0 && writeback > 0.0 {
        let share = writeback / written;
        for (b, list) in copies.iter().enumerate() {
            for (k, ins) in list.iter().enumerate() {
                if dma_dir(ins) == Some(Dir::Store) {
                    per_block[b][k].writeback_bytes = ins.bytes.unwrap_or(0) as f64 * share;
                }
            }
        }
    }
    MemPlan {
        per_block,
        hit_bytes: hit_total,
        miss_bytes: miss_total,
        split_bytes: split_total,
        write_bytes: written,
        writeback_bytes: writeback,
    }
}

/// The GM copies of a block, in record order.
fn gm_copies(block: &Block) -> Vec<&Instr> {
    block
        .records
        .iter()
        .filter_map(|r| match r {
            Record::Instr(i) if dma_dir(i).is_some() => Some(i),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{soc, trace::parse};

    fn plan_of(text: &str) -> MemPlan {
        let soc = soc::lookup("Ascend910B1").unwrap();
        plan(&parse(text).unwrap(), soc, soc.aiv_cores)
    }

    #[test]
    fn a_second_read_of_a_line_hits_and_a_bypassing_read_never_does() {
        let read = |off: u64, cache: &str| {
            format!(
                "I MTE2 DataCopy bytes=1024 bursts=1 burst=1024 gm={off} gap=0 buf=0{cache} line=1\n"
            )
        };
        let p = plan_of(&format!(
            "twin-trace 3\nblock 0 1\n{}{}{}end\n",
            read(0, ""),
            read(0, ""),
            read(0, " cache=disable")
        ));
        let m: Vec<_> = p.per_block[0].clone();
        assert_eq!((m[0].miss_bytes, m[0].hit_bytes), (1024.0, 0.0));
        assert_eq!((m[1].miss_bytes, m[1].hit_bytes), (0.0, 1024.0));
        assert_eq!((m[2].miss_bytes, m[2].hit_bytes), (1024.0, 0.0));
        assert_eq!(p.hit_ratio(), 1.0 / 3.0);
        // Version 2 traces have no buffers: nothing is reused.
        let p = plan_of(
            "twin-trace 2\nblock 0 1\nI MTE2 DataCopy bytes=512 gm=0 line=1\nI MTE2 DataCopy bytes=512 gm=0 line=2\nend\n",
        );
        assert_eq!(p.hit_bytes, 0.0);
    }

    #[test]
    fn split_bursts_pay_a_line_and_same_address_reads_are_counted() {
        // 2046 B rows starting 100 B into a line touch 5 lines, 4 needed: one line extra per burst.
        let p = plan_of(
            "twin-trace 3\nblock 0 1\nI MTE2 DataCopyPad bytes=4092 bursts=2 burst=2046 gm=100 gap=22528 buf=0 line=1\nend\n",
        );
        assert_eq!(p.per_block[0][0].split_bytes, 1024.0);
        // Three blocks read the same address in step 0; block 2 reads elsewhere in step 1.
        let mut t = String::from("twin-trace 3\n");
        for b in 0..3 {
            let second = if b == 2 { 4096 } else { 8192 };
            t.push_str(&format!(
                "block {b} 3\nI MTE2 DataCopy bytes=512 gm=0 buf=0 line=1\nI MTE2 DataCopy bytes=512 gm={second} buf=0 line=2\nend\n"
            ));
        }
        let p = plan_of(&t);
        assert_eq!(p.per_block[0][0].same_addr_others, 2);
        assert_eq!(p.per_block[0][1].same_addr_others, 1);
        assert_eq!(p.per_block[2][1].same_addr_others, 0);
    }

    #[test]
    fn writes_are_written_back_only_when_the_launch_overflows_l2() {
        let soc = soc::lookup("Ascend910B1").unwrap();
        let mib = 1u64 << 20;
        let copy = |pipe: &str, buf: u64, i: u64, cache: &str| {
            format!(
                "I {pipe} DataCopy bytes={mib} bursts=1 burst={mib} gm={} gap=0 buf={buf}{cache} line=1\n",
                i * mib
            )
        };
        // 128 MiB read and 128 MiB written: 256 MiB allocated in a 192 MiB L2, 64 MiB overflow.
        let mut t = String::from("twin-trace 3\nblock 0 1\n");
        for i in 0..128 {
            t.push_str(&copy("MTE2", 0, i, ""));
            t.push_str(&copy("MTE3", 1, i, ""));
        }
        t.push_str("end\n");
        let p = plan(&parse(&t).unwrap(), soc, 48);
        assert_eq!(p.writeback_bytes, (64 * mib) as f64);
        // The same reads bypassing L2: the writes stay in L2.
        let t = t.replace("buf=0 line", "buf=0 cache=disable line");
        let p = plan(&parse(&t).unwrap(), soc, 48);
        assert_eq!(p.writeback_bytes, 0.0);
        assert_eq!(p.write_bytes, (128 * mib) as f64);
    }
}
