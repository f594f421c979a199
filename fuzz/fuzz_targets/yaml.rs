//! The `yaml` target: see beryl_fuzz::yaml.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| beryl_fuzz::yaml::run(data));
