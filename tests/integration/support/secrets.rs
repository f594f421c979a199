//! What the tests of secrets share: a fresh age key, and the forms of a
//! secret no output may hold.

use std::path::{Path, PathBuf};
use std::process::Command;

/// A new age identity file `DIR/NAME` (by age-keygen) and its public key.
pub fn age_key(dir: &Path, name: &str) -> (PathBuf, String) {
    let file = dir.join(name);
    let made = Command::new("age-keygen")
        .arg("-o")
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        made.status.success(),
        "age-keygen: {}",
        String::from_utf8_lossy(&made.stderr)
    );
    let public = Command::new("age-keygen")
        .arg("-y")
        .arg(&file)
        .output()
        .unwrap();
    (
        file,
        String::from_utf8(public.stdout).unwrap().trim().to_string(),
    )
}

/// A secret as itself, in base64, in hex (both cases) and as its sha256.
pub fn leak_forms(secret: &str) -> Vec<String> {
    use base64::Engine as _;
    let hex: String = secret.bytes().map(|b| format!("{b:02x}")).collect();
    vec![
        secret.to_string(),
        base64::engine::general_purpose::STANDARD.encode(secret),
        hex.to_uppercase(),
        hex,
        beryl::apply::sha256_hex(secret),
    ]
}
