//! Key names and key files.

use std::fs;
use std::path::PathBuf;

use tempfile::TempDir;

use super::fixtures::*;
use super::*;

/// A temporary directory holding `ssh/` (the key directory) and `outside/`.
struct Dir {
    tmp: TempDir,
}

impl Dir {
    fn new() -> Self {
        let tmp = TempDir::new().expect("tempdir");
        fs::create_dir(tmp.path().join("ssh")).expect("mkdir");
        fs::create_dir(tmp.path().join("outside")).expect("mkdir");
        Self { tmp }
    }

    fn ssh(&self) -> PathBuf {
        self.tmp.path().join("ssh")
    }

    fn write(&self, name: &str, text: &str) -> &Self {
        fs::write(self.ssh().join(name), text).expect("write");
        self
    }

    fn store(&self) -> KeyStore {
        KeyStore::new(&self.ssh(), "ssh", 4096)
    }
}

fn resolve(store: &KeyStore, name: &str) -> Result<Vec<Key>, Diag> {
    let node = entry(name);
    let result = store.resolve(&node);
    if let Err(d) = &result {
        assert_eq!(
            d.span().map(|s| s.offset),
            Some(node.span.offset),
            "{}",
            d.message
        );
    }
    result
}

fn code(store: &KeyStore, name: &str) -> (&'static str, String, String) {
    let d = resolve(store, name).expect_err(name);
    (d.code, d.message, d.help.unwrap_or_default())
}

#[test]
fn a_name_finds_name_pub_first() {
    let dir = Dir::new();
    dir.write("alice.pub", &format!("{ED25519}\n")).write(
        "alice",
        "-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n-----END OPENSSH PRIVATE KEY-----\n",
    );
    let keys = resolve(&dir.store(), "alice").unwrap();
    assert_eq!(keys.len(), 1);
    assert_eq!(keys[0].keygen_line(), ED25519_KEYGEN);
    match &keys[0].origin {
        Origin::File {
            name, path, line, ..
        } => {
            assert_eq!(
                (name.as_str(), path.as_str(), *line),
                ("alice", "ssh/alice.pub", 1)
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_name_falls_back_to_the_bare_file_and_pub_names_are_exact() {
    let dir = Dir::new();
    dir.write("carol", ECDSA_521).write("bob", ED25519);
    assert_eq!(resolve(&dir.store(), "carol").unwrap()[0].bits(), 521);
    let (c, m, _) = code(&dir.store(), "bob.pub");
    assert_eq!(c, "beryl::keys::not_found");
    assert_eq!(m, "SSH key `bob.pub` not found: looked for ssh/bob.pub");
    dir.write("dave.pub", VECTOR);
    assert_eq!(resolve(&dir.store(), "dave.pub").unwrap().len(), 1);
}

#[test]
fn traversal_and_odd_names_are_refused() {
    let dir = Dir::new();
    for name in [
        "../x",
        "/etc/passwd",
        "a/b",
        ".hidden",
        "a\\b",
        "..",
        "",
        "a\u{7}b",
    ] {
        let (c, m, help) = code(&dir.store(), name);
        assert_eq!(c, "beryl::keys::invalid_name", "{name:?}");
        assert!(m.starts_with("invalid key name"), "{m}");
        assert!(help.contains("inline public key"), "{help}");
    }
    assert_eq!(
        code(&dir.store(), &"k".repeat(256)).0,
        "beryl::keys::invalid_name"
    );
}

#[cfg(unix)]
#[test]
fn links_must_stay_inside_the_directory() {
    use std::os::unix::fs::symlink;
    let dir = Dir::new();
    let outside = dir.tmp.path().join("outside/evil.pub");
    fs::write(&outside, ED25519).unwrap();
    symlink(&outside, dir.ssh().join("evil.pub")).unwrap();
    symlink("../outside/evil.pub", dir.ssh().join("rel.pub")).unwrap();
    for name in ["evil", "rel"] {
        let (c, m, _) = code(&dir.store(), name);
        assert_eq!(c, "beryl::keys::outside_dir");
        assert!(m.contains("leads outside the SSH key directory ssh"), "{m}");
    }
    // A link to another file of the directory is fine.
    dir.write("real.pub", VECTOR);
    symlink("real.pub", dir.ssh().join("alias.pub")).unwrap();
    assert_eq!(resolve(&dir.store(), "alias").unwrap()[0].line(), VECTOR);
    // A broken `.pub` link never falls through to the private key beside it.
    symlink("gone.pub", dir.ssh().join("id.pub")).unwrap();
    dir.write("id", "-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n");
    assert_eq!(code(&dir.store(), "id").0, "beryl::keys::not_found");
}

#[test]
fn missing_key_and_missing_directory() {
    let dir = Dir::new();
    let (c, m, help) = code(&dir.store(), "alice");
    assert_eq!(c, "beryl::keys::not_found");
    assert_eq!(
        m,
        "SSH key `alice` not found: looked for ssh/alice.pub and ssh/alice"
    );
    assert!(help.contains("ssh/alice.pub"), "{help}");
    let gone = KeyStore::new(&dir.tmp.path().join("nope"), "nope/", 4096);
    let (c, m, help) = code(&gone, "alice");
    assert_eq!(c, "beryl::keys::not_found");
    assert!(
        m.contains("`alice`") && m.contains("nope/ does not exist"),
        "{m}"
    );
    assert!(
        help.contains("--ssh-dir") && help.contains("BERYL_SSH_DIR"),
        "{help}"
    );
    fs::create_dir(dir.ssh().join("sub.pub")).unwrap();
    assert_eq!(code(&dir.store(), "sub").0, "beryl::keys::not_file");
}

#[test]
fn files_with_several_keys_comments_and_blank_lines() {
    let dir = Dir::new();
    dir.write(
        "ops.pub",
        &format!("# the ops team\n\n{ED25519}\n   \n  # old: removed\n{RSA_3072}\r\n{ECDSA_256}"),
    );
    let keys = resolve(&dir.store(), "ops").unwrap();
    let lines: Vec<usize> = keys
        .iter()
        .map(|k| match k.origin {
            Origin::File { line, .. } => line,
            _ => 0,
        })
        .collect();
    assert_eq!(lines, [3, 6, 7]);
    let got: Vec<&str> = keys.iter().map(|k| k.algorithm.as_str()).collect();
    assert_eq!(got, ["ssh-ed25519", "ssh-rsa", "ecdsa-sha2-nistp256"]);
    assert_eq!(keys[1].keygen_line(), RSA_3072_KEYGEN);
}

#[test]
fn empty_files_are_refused() {
    let dir = Dir::new();
    dir.write("none.pub", "")
        .write("only.pub", "# nothing here\n\n");
    for name in ["none", "only"] {
        let (c, m, _) = code(&dir.store(), name);
        assert_eq!(c, "beryl::keys::empty");
        assert_eq!(m, format!("ssh/{name}.pub holds no SSH key"));
    }
}

#[test]
fn a_bad_line_is_named_by_file_and_line_without_its_content() {
    let dir = Dir::new();
    let secret = "ssh-ed25519 AAAAsecretsecret hunter2";
    dir.write("ops.pub", &format!("{ED25519}\n# c\n{secret}\n"))
        .write("old.pub", &format!("{VECTOR}\n{RSA_1024}\n"))
        .write("dss.pub", DSA);
    let (c, m, _) = code(&dir.store(), "ops");
    assert_eq!(c, "beryl::keys::invalid");
    assert!(m.starts_with("ssh/ops.pub:3: "), "{m}");
    assert!(
        !m.contains("secret") && !m.contains("hunter2") && !m.contains("AAAA"),
        "{m}"
    );
    let (c, m, _) = code(&dir.store(), "old");
    assert_eq!(c, "beryl::keys::rsa_too_short");
    assert!(
        m.starts_with("ssh/old.pub:2: the RSA key has 1024 bits"),
        "{m}"
    );
    assert_eq!(code(&dir.store(), "dss").0, "beryl::keys::dss");
}

#[test]
fn private_keys_are_refused_and_never_echoed() {
    let dir = Dir::new();
    let pems = [
        "-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n-----END OPENSSH PRIVATE KEY-----\n",
        "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n",
        "-----BEGIN EC PRIVATE KEY-----\nAAAA\n",
        "-----BEGIN DSA PRIVATE KEY-----\nAAAA\n",
        "-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n",
        "-----BEGIN PRIVATE KEY-----\nAAAA\n",
        "---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\nAAAA\n",
        "PuTTY-User-Key-File-3: ssh-ed25519\nAAAA\n",
    ];
    for (i, pem) in pems.iter().enumerate() {
        // Also behind a public key: the whole file is refused.
        dir.write(&format!("k{i}"), pem)
            .write(&format!("m{i}.pub"), &format!("{ED25519}\n{pem}"));
        for name in [format!("k{i}"), format!("m{i}")] {
            let (c, m, help) = code(&dir.store(), &name);
            assert_eq!(c, "beryl::keys::private", "{pem}");
            assert!(
                m.ends_with("holds a private key; refusing to read it"),
                "{m}"
            );
            assert!(help.contains("give the .pub file"), "{help}");
            assert!(!m.contains("AAAA") && !help.contains("AAAA"));
        }
    }
}

#[test]
fn reads_are_capped_and_must_be_utf8() {
    let dir = Dir::new();
    dir.write("big.pub", &format!("{ED25519}\n{}", "#".repeat(5000)));
    let (c, m, _) = code(&dir.store(), "big");
    assert_eq!(c, "beryl::limit::file_size");
    assert!(m.contains("4096-byte"), "{m}");
    fs::write(dir.ssh().join("bin.pub"), b"# a\n# \xff\xfe\n").unwrap();
    let (c, m, _) = code(&dir.store(), "bin");
    assert_eq!(
        (c, m.as_str()),
        ("beryl::keys::not_utf8", "ssh/bin.pub:2: not valid UTF-8")
    );
}

#[test]
fn each_file_is_read_once_per_store() {
    let dir = Dir::new();
    dir.write("ops.pub", ED25519);
    let store = dir.store();
    assert_eq!(resolve(&store, "ops").unwrap().len(), 1);
    fs::remove_file(dir.ssh().join("ops.pub")).unwrap();
    assert_eq!(resolve(&store, "ops").unwrap().len(), 1);
    assert_eq!(code(&dir.store(), "ops").0, "beryl::keys::not_found");
    // Errors are cached too, and located at each entry that asks.
    assert_eq!(code(&store, "nobody").0, "beryl::keys::not_found");
    dir.write("nobody.pub", ED25519);
    assert_eq!(code(&store, "nobody").0, "beryl::keys::not_found");
    // The store is shared between threads.
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                assert_eq!(
                    resolve(&store, "ops").unwrap()[0].keygen_line(),
                    ED25519_KEYGEN
                )
            });
        }
    });
}

#[test]
fn a_key_type_word_alone_is_a_name() {
    let dir = Dir::new();
    dir.write("ssh-ed25519.pub", VECTOR);
    assert_eq!(
        resolve(&dir.store(), "ssh-ed25519").unwrap()[0].line(),
        VECTOR
    );
}

#[test]
fn a_placeholder_is_refused_as_such() {
    let dir = Dir::new();
    // Even when a file of that name exists: a placeholder is never a name.
    dir.write("REPLACE-ME", ED25519);
    for text in [
        "REPLACE-ME: paste an ssh public key",
        "REPLACE-ME",
        "  REPLACE-ME-too",
    ] {
        let (c, m, help) = code(&dir.store(), text);
        assert_eq!(c, "beryl::keys::placeholder", "{text}");
        assert_eq!(m, "this ssh_keys entry is a placeholder, not a key");
        assert!(help.contains("ssh-keygen -t ed25519"), "{help}");
    }
}
