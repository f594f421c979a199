//! The `keys` target: see beryl_fuzz::keys.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| beryl_fuzz::keys::run(data));
