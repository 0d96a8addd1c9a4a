//! Fuzz target `journal`: see `ascend_tune::fuzz::journal`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| ascend_tune::fuzz::journal(data));
