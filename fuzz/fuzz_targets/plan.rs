//! The `plan` target: see beryl_fuzz::plan.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| beryl_fuzz::plan::run(data));
