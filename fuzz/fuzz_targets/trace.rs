//! Fuzz target `trace`: see `ascend_tune::fuzz::trace`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| ascend_tune::fuzz::trace(data));
