//! Fuzz target `lockfile`: see `ascend_tune::fuzz::lockfile`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| ascend_tune::fuzz::lockfile(data));
