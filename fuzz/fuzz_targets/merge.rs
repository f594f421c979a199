//! The `merge` target: see beryl_fuzz::merge.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| beryl_fuzz::merge::run(data));
