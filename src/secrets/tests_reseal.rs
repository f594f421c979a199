//! Unit tests of a file edited decrypted (reseal.rs): the view, and the
//! file made again from an edited view.

use super::reseal::{reseal, view};
use super::tests::{LATER, NOW, PLAIN, keypair, set_value};
use super::{open, unseal};
use crate::value::Source;

/// PLAIN with `app.db.password` and `app.db.pin` set, and the identity.
fn file() -> (String, super::wrap::Identity) {
    let (id, r) = keypair();
    let one = set_value(PLAIN, "app.db.password", "hunter2", &[r], &[], NOW).unwrap();
    let ids = [id];
    let two = set_value(&one, "app.db.pin", "1234 \"x\"", &[], &ids, NOW).unwrap();
    let [id] = ids;
    (two, id)
}

/// The lines of `new` that differ from those of `old` (same line count).
fn lines_changed<'a>(old: &str, new: &'a str) -> Vec<&'a str> {
    assert_eq!(old.lines().count(), new.lines().count(), "{new}");
    old.lines()
        .zip(new.lines())
        .filter(|(a, b)| a != b)
        .map(|(_, b)| b)
        .collect()
}

fn opened(text: &str, id: &super::wrap::Identity) -> Vec<String> {
    let mut root = crate::yaml::parse(
        &Source::new("host.yml", text.to_string()),
        &Default::default(),
    )
    .unwrap();
    let sealed = unseal(&mut root).unwrap().unwrap();
    let o = open(&sealed, std::slice::from_ref(id)).unwrap();
    o.values
        .iter()
        .map(|v| String::from_utf8(v.to_vec()).unwrap())
        .collect()
}

#[test]
fn the_view_shows_plaintexts_and_no_metadata() {
    let (text, id) = file();
    let v = view("host.yml", &text, std::slice::from_ref(&id)).unwrap();
    assert!(v.contains("password: \"hunter2\"\n"), "{}", *v);
    assert!(v.contains("pin: \"1234 \\\"x\\\"\"\n"), "{}", *v);
    assert!(!v.contains("ENC[") && !v.contains("sops:\n"), "{}", *v);
    // The view unchanged makes the file unchanged.
    assert_eq!(
        reseal("host.yml", &text, &v, std::slice::from_ref(&id), LATER).unwrap(),
        None
    );
}

#[test]
fn one_edited_secret_changes_its_line_and_the_mac() {
    let (text, id) = file();
    let ids = std::slice::from_ref(&id);
    let v = view("host.yml", &text, ids).unwrap();
    let edited = v.replace("\"hunter2\"", "\"hunter3\"");
    let new = reseal("host.yml", &text, &edited, ids, LATER)
        .unwrap()
        .unwrap();
    let changed = lines_changed(&text, &new);
    assert_eq!(changed.len(), 3, "{changed:?}");
    assert!(changed[0].starts_with("    password: ENC["), "{changed:?}");
    assert!(changed[1].contains("lastmodified"), "{changed:?}");
    assert!(changed[2].contains("mac: ENC["), "{changed:?}");
    assert_eq!(opened(&new, &id), ["hunter3", "1234 \"x\""]);
}

#[test]
fn a_plain_edit_keeps_every_ciphertext_and_the_mac() {
    let (text, id) = file();
    let ids = std::slice::from_ref(&id);
    let v = view("host.yml", &text, ids).unwrap();
    let edited = v.replace("hostname: db01", "hostname: db02");
    assert_ne!(edited, *v);
    let new = reseal("host.yml", &text, &edited, ids, LATER)
        .unwrap()
        .unwrap();
    assert_eq!(lines_changed(&text, &new), ["  hostname: db02"]);
    assert_eq!(opened(&new, &id), ["hunter2", "1234 \"x\""]);
}

#[test]
fn a_marked_value_becomes_a_secret_and_a_removed_one_goes() {
    let (text, id) = file();
    let ids = std::slice::from_ref(&id);
    let v = view("host.yml", &text, ids).unwrap();
    let edited = v
        .replace("    # sops:enc\n    pin: \"1234 \\\"x\\\"\"\n", "")
        .replace("app:\n", "app:\n  # sops:enc\n  port: 5432\n");
    let new = reseal("host.yml", &text, &edited, ids, LATER)
        .unwrap()
        .unwrap();
    assert!(
        new.contains("  port: ENC[AES256_GCM,") && new.contains("type:int]"),
        "{new}"
    );
    assert!(!new.contains("pin:"), "{new}");
    assert_eq!(opened(&new, &id), ["5432", "hunter2"]);
}

#[test]
fn an_edit_needs_the_key_and_a_secret_on_one_line() {
    let (text, id) = file();
    let (other, _) = keypair();
    assert!(view("host.yml", &text, &[other]).is_err());
    let ids = std::slice::from_ref(&id);
    let v = view("host.yml", &text, ids).unwrap();
    let edited = v.replace("\"hunter2\"", "|\n      hunter\n      two");
    let e = reseal("host.yml", &text, &edited, ids, LATER).unwrap_err();
    assert!(e.message.contains("several lines"), "{}", e.message);
    assert!(view("host.yml", PLAIN, ids).is_err());
}
