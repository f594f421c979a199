//! Unit tests of the SOPS format as beryl reads and writes it. The
//! differential tests (tests/integration/differential/sops.rs) hold it to
//! `sops`, `age` and sops-age themselves.

use super::edit::{Set, rekey, set};
use super::enc::{Enc, Kind};
use super::wrap::{Identity, Recipient};
use super::{open, unseal};
use crate::value::{Node, Source};

pub(super) const NOW: &str = "2026-12-07T10:00:00Z";
pub(super) const LATER: &str = "2026-12-07T11:00:00Z";

/// A fresh age key pair, in memory.
pub(super) fn keypair() -> (Identity, Recipient) {
    let (id, public) = Identity::generate_for_tests();
    (id, Recipient::parse(&public).unwrap())
}

fn no_key_field(_: &[String]) -> Option<&'static str> {
    Some("name")
}

fn place(p: &str) -> Vec<String> {
    p.split('.').map(str::to_string).collect()
}

pub(super) fn set_value(
    text: &str,
    at: &str,
    value: &str,
    r: &[Recipient],
    ids: &[Identity],
    now: &str,
) -> Result<String, crate::diag::Diag> {
    let p = place(at);
    set(
        "host.yml",
        text,
        &Set {
            place: &p,
            plain: value.as_bytes(),
            kind: Kind::Str,
            recipients: r,
            ids,
            now,
            key_field: &no_key_field,
        },
    )
}

fn load(text: &str) -> Node {
    crate::yaml::parse(
        &Source::new("host.yml", text.to_string()),
        &Default::default(),
    )
    .unwrap()
}

pub(super) const PLAIN: &str = "\
freebsd:
  hostname: db01
  users:
    - name: alice
      shell: /bin/sh
app:
  db:
    user: app
";

#[test]
fn a_value_sealed_opens_only_at_its_own_place() {
    let key = [7u8; 32];
    let e = Enc::seal(b"hunter2", Kind::Str, &key, "db:password:");
    let parsed = Enc::parse(&e.text()).unwrap();
    assert_eq!(parsed.open(&key, "db:password:").unwrap(), b"hunter2");
    assert!(parsed.open(&key, "db:user:").is_err(), "another path");
    assert!(
        parsed.open(&[8u8; 32], "db:password:").is_err(),
        "another key"
    );
    assert!(!e.text().contains("hunter2"));
}

#[test]
fn enc_parsing_is_strict() {
    let good = Enc::seal(b"x", Kind::Int, &[1u8; 32], "a:").text();
    assert!(Enc::parse(&good).is_err() || good.contains("type:int"));
    for bad in [
        "ENC[AES256_GCM,data:AA==,iv:AA==,tag:AA==,type:str]", // short IV and tag
        &good.replace("type:int", "type:nope"),
        &good.replace(",iv:", ",iv:!"),
        &good.replace("]", ",extra:1]"),
        "ENC[AES256_CBC,data:AA==]",
    ] {
        assert!(Enc::parse(bad).is_err(), "{bad}");
    }
}

#[test]
fn the_first_secret_appends_metadata_and_marks_its_line() {
    let (id, r) = keypair();
    let out = set_value(PLAIN, "app.db.password", "hunter2", &[r], &[], NOW).unwrap();
    assert!(
        out.starts_with(PLAIN),
        "the file's own lines are kept:\n{out}"
    );
    assert!(!out.contains("hunter2"));
    let added: Vec<&str> = out[PLAIN.len()..].lines().take(2).collect();
    assert_eq!(added[0], "    # sops:enc");
    assert!(
        added[1].starts_with("    password: ENC[AES256_GCM,data:"),
        "{}",
        added[1]
    );
    let mut tree = load(&out);
    let sealed = unseal(&mut tree).unwrap().unwrap();
    assert_eq!(sealed.secrets.len(), 1);
    assert_eq!(sealed.secrets[0].aad, "app:db:password:");
    let token = tree
        .get("app")
        .unwrap()
        .get("db")
        .unwrap()
        .get("password")
        .unwrap()
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        token.starts_with("‹secret:") && token.ends_with('›'),
        "{token}"
    );
    let opened = open(&sealed, &[id]).unwrap();
    assert_eq!(&opened.values[0][..], b"hunter2");
}

#[test]
fn setting_a_value_again_changes_its_line_and_the_mac_only() {
    let (id, r) = keypair();
    let first = set_value(PLAIN, "app.db.password", "hunter2", &[r], &[], NOW).unwrap();
    let second = set_value(
        &first,
        "freebsd.users.alice.password_hash",
        "$6$x",
        &[],
        std::slice::from_ref(&id),
        NOW,
    )
    .unwrap();
    let third = set_value(
        &second,
        "app.db.password",
        "correct horse",
        &[],
        std::slice::from_ref(&id),
        LATER,
    )
    .unwrap();
    let (a, b): (Vec<&str>, Vec<&str>) = (second.lines().collect(), third.lines().collect());
    assert_eq!(a.len(), b.len());
    let changed: Vec<String> = a
        .iter()
        .zip(&b)
        .filter(|(x, y)| x != y)
        .map(|(x, _)| x.trim_start().split(':').next().unwrap().to_string())
        .collect();
    assert_eq!(changed, ["password", "lastmodified", "mac"], "{third}");
    let sealed = unseal(&mut load(&third)).unwrap().unwrap();
    let opened = open(&sealed, &[id]).unwrap();
    let values: Vec<&[u8]> = opened.values.iter().map(|v| &v[..]).collect();
    assert_eq!(values, [&b"$6$x"[..], b"correct horse"]);
}

#[test]
fn a_file_with_secrets_needs_an_identity_to_take_one_more() {
    let (_, r) = keypair();
    let first = set_value(PLAIN, "app.db.password", "hunter2", &[r], &[], NOW).unwrap();
    let e = set_value(&first, "app.db.token", "t", &[], &[], NOW).unwrap_err();
    assert_eq!(e.code, "beryl::secrets::no_identity");
}

#[test]
fn a_ciphertext_moved_to_another_key_does_not_open() {
    let (id, r) = keypair();
    let text = set_value(PLAIN, "app.db.password", "hunter2", &[r], &[], NOW).unwrap();
    let moved = text.replace(
        "    user: app\n    # sops:enc\n    password:",
        "    password: app\n    # sops:enc\n    user:",
    );
    assert_ne!(moved, text);
    let sealed = unseal(&mut load(&moved)).unwrap().unwrap();
    let e = open(&sealed, &[id]).unwrap_err();
    assert_eq!(e.code, "beryl::secrets::tampered");
}

#[test]
fn a_value_removed_breaks_the_mac() {
    let (id, r) = keypair();
    let one = set_value(
        PLAIN,
        "app.db.password",
        "hunter2",
        std::slice::from_ref(&r),
        &[],
        NOW,
    )
    .unwrap();
    let two = set_value(
        &one,
        "app.db.token",
        "t0k",
        &[],
        std::slice::from_ref(&id),
        NOW,
    )
    .unwrap();
    let start = two.find("    # sops:enc\n    token:").unwrap();
    let end = start + two[start..].find("]\n").unwrap() + 2;
    let cut = format!("{}{}", &two[..start], &two[end..]);
    let sealed = unseal(&mut load(&cut)).unwrap().unwrap();
    let e = open(&sealed, &[id]).unwrap_err();
    assert_eq!(e.code, "beryl::secrets::tampered");
    assert!(e.message.contains("MAC"), "{}", e.message);
}

#[test]
fn stray_ciphertexts_and_forged_tokens_are_refused_at_load() {
    let enc = Enc::seal(b"x", Kind::Str, &[1u8; 32], "a:").text();
    let e = unseal(&mut load(&format!("a: {enc}\n"))).unwrap_err();
    assert_eq!(e.code, "beryl::secrets::no_metadata");
    let e = unseal(&mut load("a: \"‹secret:0123456789ab›\"\n")).unwrap_err();
    assert_eq!(e.code, "beryl::secrets::forged");
}

#[test]
fn a_plain_value_where_the_rules_encrypt_is_refused() {
    let (_, r) = keypair();
    let text = set_value(PLAIN, "app.db.password", "hunter2", &[r], &[], NOW).unwrap();
    let plain = text.replace(
        "    # sops:enc\n    password: ENC",
        "    # sops:enc\n    user2: plain\n    password: ENC",
    );
    let e = unseal(&mut load(&plain)).unwrap_err();
    assert_eq!(e.code, "beryl::secrets::plaintext");
    let unmarked = text.replace("    # sops:enc\n    password:", "    password:");
    let e = unseal(&mut load(&unmarked)).unwrap_err();
    assert_eq!(e.code, "beryl::secrets::unmarked");
}

#[test]
fn rekey_rewraps_the_data_key_and_keeps_every_value() {
    let (id1, r1) = keypair();
    let (id2, r2) = keypair();
    let text = set_value(
        PLAIN,
        "app.db.password",
        "hunter2",
        std::slice::from_ref(&r1),
        &[],
        NOW,
    )
    .unwrap();
    let out = rekey("host.yml", &text, &[r2], std::slice::from_ref(&id1))
        .unwrap()
        .unwrap();
    let before: Vec<&str> = text.lines().filter(|l| l.contains("ENC[")).collect();
    let after: Vec<&str> = out.lines().filter(|l| l.contains("ENC[")).collect();
    assert_eq!(before, after, "values and MAC unchanged");
    let sealed = unseal(&mut load(&out)).unwrap().unwrap();
    assert!(open(&sealed, &[id1]).is_err(), "the old recipient is gone");
    assert_eq!(&open(&sealed, &[id2]).unwrap().values[0][..], b"hunter2");
}

#[test]
fn rekey_to_nobody_is_refused_and_the_same_keys_in_another_order_change_nothing() {
    let (id1, r1) = keypair();
    let (_, r2) = keypair();
    let both = [r1, r2];
    let text = set_value(PLAIN, "app.db.password", "hunter2", &both, &[], NOW).unwrap();
    let ids = std::slice::from_ref(&id1);
    let e = rekey("host.yml", &text, &[], ids).unwrap_err();
    assert!(e.message.contains("no recipients"), "{}", e.message);
    let [a, b] = both;
    assert!(rekey("host.yml", &text, &[b, a], ids).unwrap().is_none());
}
