//! The `refs` target: see beryl_fuzz::refs.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| beryl_fuzz::refs::run(data));
