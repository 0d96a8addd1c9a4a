//! Fuzz target `msprof`: see `ascend_tune::fuzz::msprof` (an msprof output folder as a bundle of files).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| ascend_tune::fuzz::msprof(data));
