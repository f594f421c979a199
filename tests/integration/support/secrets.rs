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

/// A new operator key: an unencrypted ed25519 pair `ROOT/NAME` (by
/// ssh-keygen), its public half put in `ROOT/ssh/NAME.pub` and named first
/// in the `ssh_keys` of the domain file `domain` (relative to `ROOT`).
/// Returns the private key's path, an identity for `--identity`.
pub fn operator_key(root: &Path, name: &str, domain: &str) -> PathBuf {
    let private = ssh_pair(root, name, &format!("{name}@beryl-test"));
    std::fs::copy(
        root.join(format!("{name}.pub")),
        root.join("ssh").join(format!("{name}.pub")),
    )
    .unwrap();
    let file = root.join(domain);
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains("\nssh_keys:\n") || text.starts_with("ssh_keys:\n"));
    let text = text.replacen("ssh_keys:\n", &format!("ssh_keys:\n  - {name}\n"), 1);
    std::fs::write(&file, text).unwrap();
    private
}

/// A new ed25519 key pair `DIR/NAME` and `DIR/NAME.pub` (by ssh-keygen),
/// unencrypted; the public key's line.
pub fn key_pair(dir: &Path, name: &str) -> String {
    ssh_pair(dir, name, "root@beryl-test");
    std::fs::read_to_string(dir.join(format!("{name}.pub")))
        .unwrap()
        .trim()
        .to_string()
}

fn ssh_pair(dir: &Path, name: &str, comment: &str) -> PathBuf {
    let private = dir.join(name);
    let made = Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-C", comment, "-f"])
        .arg(&private)
        .output()
        .unwrap();
    assert!(
        made.status.success(),
        "ssh-keygen: {}",
        String::from_utf8_lossy(&made.stderr)
    );
    private
}
