//! Fuzz target `bank`: see `ascend_tune::fuzz::bank`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| ascend_tune::fuzz::bank(data));
