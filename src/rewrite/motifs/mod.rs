//! The motif catalogue: one module per motif, and the registry the loop, the bank and the command line
//! look motifs up in. Adding a motif means adding its module and one line to `ALL`.

mod balance_block_split;
mod constant_buffer;
mod copy_out_wait;
mod double_buffer;
mod double_buffer_queue;
mod drop_queue_barrier;
mod fold_scalar_ops;
mod fuse_leaky_relu;
mod gather_interleave;
mod gm_copy_loop;
mod hoist_duplicate;
mod matmul_ibshare;
mod matmul_mdl;
mod matmul_unitflag;
mod narrow_barrier;
mod pack_interleave;
mod prefetch_next_tile;
mod reciprocal_from_div_ones;
mod reciprocal_mul;
mod reduce_max;
mod relu_from_max_zero;
mod scalar_loop;
mod scalar_wait;
pub mod ub_bank_offset;
mod ub_split_double_buffer;
mod vector_copy_loop;
mod vector_gm_sum;
mod vector_reduce;

use super::motif::Motif;

/// Every motif, in the order retrieval breaks ties (when the bank has no evidence): the rewrites that
/// remove the most work first, fusions before hoisting (a hoisted fill no longer pairs with its consumer).
pub static ALL: &[&dyn Motif] = &[
    &vector_reduce::VectorReduce,
    &reduce_max::VectorReduceMax,
    &vector_gm_sum::VectorGmSum,
    &vector_copy_loop::VectorCopyLoop,
    &gm_copy_loop::GmCopyLoop,
    &gather_interleave::WIDE,
    &pack_interleave::WIDE,
    // The same with a one-repeat offset table, tried when the wide table does not fit the UB.
    &gather_interleave::NARROW,
    &pack_interleave::NARROW,
    &scalar_loop::VectorCastLoop,
    &scalar_loop::VectorFillLoop,
    &drop_queue_barrier::DropQueueBarrier,
    &double_buffer::DoubleBuffer,
    &double_buffer_queue::DoubleBufferQueue,
    &relu_from_max_zero::ReluFromMaxZero,
    &reciprocal_from_div_ones::ReciprocalFromDivOnes,
    &fuse_leaky_relu::FuseLeakyRelu,
    &fold_scalar_ops::FoldScalarOps,
    &hoist_duplicate::HoistDuplicate,
    &scalar_wait::ScalarWait,
    &narrow_barrier::NarrowBarrier,
    &reciprocal_mul::ReciprocalMul,
    &balance_block_split::BalanceBlockSplit,
    &prefetch_next_tile::PrefetchNextTile,
    &copy_out_wait::WaitPreviousCopyOut,
    // Guided: acts where the kernel's run shows UB bank conflicts (a plan of the UB layout).
    &ub_bank_offset::UbBankOffset,
    // Cube motifs: the high-level Matmul's template and configuration.
    &matmul_mdl::MatmulMdl,
    &matmul_unitflag::MatmulUnitFlag,
    &matmul_ibshare::MatmulIbShare,
    // Host motifs: they edit the tiling functions (`op_host/`), not the kernel.
    &ub_split_double_buffer::UbSplitDoubleBuffer,
];

pub fn by_name(name: &str) -> Option<&'static dyn Motif> {
    ALL.iter().copied().find(|m| m.name() == name)
}

pub fn names() -> Vec<&'static str> {
    ALL.iter().map(|m| m.name()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rewrite::motif::testing::*;

    #[test]
    fn names_are_unique_kebab_case() {
        let mut seen = std::collections::HashSet::new();
        for m in ALL {
            assert!(seen.insert(m.name()), "duplicate motif {}", m.name());
            assert!(
                m.name()
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
                "{} is not kebab-case",
                m.name()
            );
            assert!(!m.summary().is_empty() && !m.preserves_meaning_when().is_empty());
            // A companion is a host motif of the catalogue.
            if let Some(c) = m.host_companion() {
                assert!(
                    by_name(c).is_some_and(|c| c.scope() == crate::rewrite::motif::Scope::Host)
                );
            }
        }
    }

    /// rewind(apply(k)) == k and apply(rewind(k)) == k for every motif at every site of every fixture.
    #[test]
    fn every_motif_round_trips_on_every_fixture() {
        let mut checked = 0;
        for (_, naive, reference) in all_fixture_kernels() {
            for m in ALL {
                for k in [&naive, &reference] {
                    checked += round_trips(*m, k);
                    checked += rewinds_round_trip(*m, k);
                }
            }
        }
        assert!(checked > 0);
    }
}
