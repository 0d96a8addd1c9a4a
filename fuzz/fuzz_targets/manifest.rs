//! Fuzz target `manifest`: see `ascend_tune::fuzz::manifest`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| ascend_tune::fuzz::manifest(data));
