//! Fuzz target `last_run`: see `ascend_tune::fuzz::last_run`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| ascend_tune::fuzz::last_run(data));
