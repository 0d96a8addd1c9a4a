//! Fuzz target `tiling_result`: see `ascend_tune::fuzz::tiling_result`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| ascend_tune::fuzz::tiling_result(data));
