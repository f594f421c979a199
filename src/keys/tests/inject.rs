//! Key identity and injection.

use std::path::Path;

use super::fixtures::*;
use super::*;

fn key(text: &str) -> Key {
    let store = KeyStore::new(Path::new("/nonexistent/beryl-ssh"), "ssh", 1 << 20);
    match store.resolve(&entry(text)) {
        Ok(mut keys) if keys.len() == 1 => keys.remove(0),
        other => panic!("{text}: {other:?}"),
    }
}

fn with_comment(line: &str, comment: &str) -> Key {
    let mut k = key(line);
    k.comment = comment.to_string();
    k
}

#[test]
fn inject_puts_domain_keys_first_and_drops_duplicates() {
    let domain = [key(ED25519), key(RSA_3072)];
    let user = [
        key(ECDSA_256),
        with_comment(ED25519, "same key, other comment"),
        key(&format!("no-pty {RSA_3072}")),
        key(VECTOR),
        with_comment(ECDSA_256, "again"),
    ];
    let got: Vec<String> = inject(&domain, &user)
        .iter()
        .map(|k| k.fingerprint())
        .collect();
    let want: Vec<String> = [ED25519, RSA_3072, ECDSA_256, VECTOR]
        .iter()
        .map(|l| key(l).fingerprint())
        .collect();
    assert_eq!(got, want);
    // The domain's copy is the one kept, with its own comment.
    assert_eq!(inject(&domain, &user)[0].comment, "beryl-test-ed25519");
    assert_eq!(inject(&domain, &[]).len(), 2);
    let alone = inject(&[], &user);
    assert_eq!(alone.len(), 4);
    // The first of the user's repeats is the one kept.
    assert_eq!(alone[0].comment, "beryl-test-ecdsab256");
}

#[test]
fn store_and_key_are_thread_safe() {
    fn sync_send<T: Sync + Send>() {}
    sync_send::<KeyStore>();
    sync_send::<Key>();
}

#[test]
fn duplicate_domain_keys_count_once() {
    let user: Vec<Key> = Vec::new();
    let domain = [
        with_comment(ED25519, "domain copy one"),
        with_comment(&format!("no-pty {ED25519}"), "domain copy two"),
    ];
    let got = inject(&domain, &user);
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].comment, "domain copy one");
}
