//! Inline keys: types, blobs, comments, options, fingerprints, injection.

use std::path::Path;

use super::fixtures::*;
use super::*;
use crate::value::Value;

fn store() -> KeyStore {
    KeyStore::new(Path::new("/nonexistent/beryl-ssh"), "ssh", 1 << 20)
}

fn key(text: &str) -> Key {
    match store().resolve(&entry(text)) {
        Ok(mut keys) if keys.len() == 1 => keys.remove(0),
        other => panic!("{text}: {other:?}"),
    }
}

/// Resolves `text`, expects an error with `code`, checks it is located at the
/// entry, and returns the message.
fn fails(text: &str, code: &str) -> String {
    let node = entry(text);
    let d = store().resolve(&node).expect_err(text);
    assert_eq!(d.code, code, "{text}: {}", d.message);
    let at = d.span().expect("located");
    assert_eq!((at.offset, at.len), (node.span.offset, node.span.len));
    assert_eq!(at.file_name(), Some("hosts/web1.yml"));
    d.message
}

#[test]
fn keygen_lines_match_ssh_keygen() {
    for (line, expected) in [
        (ED25519, ED25519_KEYGEN),
        (RSA_3072, RSA_3072_KEYGEN),
        (ECDSA_256, ECDSA_256_KEYGEN),
        (ECDSA_384, ECDSA_384_KEYGEN),
        (ECDSA_521, ECDSA_521_KEYGEN),
        (SK_ED25519, SK_ED25519_KEYGEN),
        (SK_ECDSA, SK_ECDSA_KEYGEN),
        (VECTOR, VECTOR_KEYGEN),
    ] {
        assert_eq!(key(line).keygen_line(), expected);
    }
    let v = key(VECTOR);
    assert_eq!(
        v.fingerprint(),
        "SHA256:H1sKJna/KPTQW45MXragbp04WVrnjjKBKvb3S0Jarlo"
    );
    assert_eq!(
        (v.bits(), v.type_label(), v.comment.as_str()),
        (256, "ED25519", "")
    );
}

#[test]
fn bits_and_labels_per_type() {
    let got: Vec<(u32, &str)> = [
        ED25519, RSA_3072, ECDSA_256, ECDSA_384, ECDSA_521, SK_ED25519, SK_ECDSA,
    ]
    .iter()
    .map(|l| {
        let k = key(l);
        (k.bits(), k.type_label())
    })
    .collect();
    assert_eq!(
        got,
        [
            (256, "ED25519"),
            (3072, "RSA"),
            (256, "ECDSA"),
            (384, "ECDSA"),
            (521, "ECDSA"),
            (256, "ED25519-SK"),
            (256, "ECDSA-SK")
        ]
    );
}

#[test]
fn sk_keys_built_by_hand_parse() {
    // sk-ssh-ed25519: string type, string 32-byte key, string application.
    let ed = base64::decode(blob_of(ED25519)).unwrap();
    let point = &ed[ed.len() - 32..];
    let mut blob = ssh_string(b"sk-ssh-ed25519@openssh.com");
    blob.extend(ssh_string(point));
    blob.extend(ssh_string(b"ssh:"));
    assert_eq!(b64(&blob), blob_of(SK_ED25519));
    let k = key(&format!("sk-ssh-ed25519@openssh.com {}", b64(&blob)));
    assert_eq!(k.algorithm, "sk-ssh-ed25519@openssh.com");
    // sk-ecdsa: string type, string curve, string point, string application.
    let ec = base64::decode(blob_of(ECDSA_256)).unwrap();
    let mut blob = ssh_string(b"sk-ecdsa-sha2-nistp256@openssh.com");
    blob.extend(ssh_string(b"nistp256"));
    blob.extend(ssh_string(&ec[ec.len() - 65..]));
    blob.extend(ssh_string(b"ssh:"));
    assert_eq!(b64(&blob), blob_of(SK_ECDSA));
}

#[test]
fn inline_keys_are_recognised_by_parsing() {
    // No `ssh-` prefix needed; surrounding blanks are trimmed.
    assert_eq!(
        key(&format!("  {ECDSA_384}\t")).algorithm,
        "ecdsa-sha2-nistp384"
    );
    assert!(matches!(key(ED25519).origin, Origin::Inline { .. }));
    // Blanks but no key: an invalid key, never a file lookup.
    let m = fails("hello world", "beryl::keys::invalid");
    assert!(
        m.starts_with("inline SSH key: invalid SSH public key"),
        "{m}"
    );
    fails("alice bob.pub", "beryl::keys::invalid");
    // Two keys in one entry (a YAML block scalar).
    let m = fails(&format!("{ED25519}\n{VECTOR}"), "beryl::keys::invalid");
    assert!(m.contains("one line"), "{m}");
}

#[test]
fn entries_must_be_strings() {
    let mut node = entry("x");
    for value in [Value::Int(3), Value::Null, Value::Seq(vec![entry(ED25519)])] {
        node.value = value;
        let d = store().resolve(&node).unwrap_err();
        assert_eq!(d.code, "beryl::keys::not_string");
        assert!(
            d.message.contains("ssh_keys entries must be strings"),
            "{}",
            d.message
        );
        assert_eq!(d.span().map(|s| s.offset), Some(node.span.offset));
    }
}

#[test]
fn refused_types() {
    let m = fails(RSA_1024, "beryl::keys::rsa_too_short");
    // The bit count is the one ssh-keygen prints.
    let keygen_bits = RSA_1024_KEYGEN.split(' ').next().unwrap_or("?");
    assert!(
        m.contains(&format!("has {keygen_bits} bits; at least 2048")),
        "{m}"
    );
    let m = fails(DSA, "beryl::keys::dss");
    assert!(m.contains("OpenSSH 10") && m.contains("FreeBSD 15"), "{m}");
    let cert = format!("ssh-ed25519-cert-v01@openssh.com {} c", blob_of(ED25519));
    fails(&cert, "beryl::keys::certificate");
    // A well-formed key of a type beryl does not know.
    let mut blob = ssh_string(b"ssh-foo");
    blob.extend(ssh_string(&[7; 32]));
    let m = fails(
        &format!("ssh-foo {}", b64(&blob)),
        "beryl::keys::unsupported_type",
    );
    assert!(m.contains("ssh-ed25519, ssh-rsa"), "{m}");
}

#[test]
fn type_field_must_match_the_blob() {
    let swapped = format!("ssh-rsa {} c", blob_of(ED25519));
    let m = fails(&swapped, "beryl::keys::invalid");
    assert!(
        m.contains("says ssh-rsa but the key data is a ssh-ed25519 key"),
        "{m}"
    );
    let curve = format!("ecdsa-sha2-nistp384 {}", blob_of(ECDSA_256));
    fails(&curve, "beryl::keys::invalid");
    let sk = format!("ssh-ed25519 {}", blob_of(SK_ED25519));
    fails(&sk, "beryl::keys::invalid");
}

#[test]
fn malformed_blobs() {
    let b = blob_of(ED25519);
    let m = fails(
        &format!("ssh-ed25519 {}!{}", &b[..10], &b[11..]),
        "beryl::keys::invalid",
    );
    assert!(
        m.contains("not valid base64") && m.contains("position 11"),
        "{m}"
    );
    let m = fails(
        &format!("ssh-ed25519 {} c", &b[..b.len() - 4]),
        "beryl::keys::invalid",
    );
    assert!(m.contains("truncated"), "{m}");
    fails(
        &format!("ssh-ed25519 {} c", &b[..b.len() - 1]),
        "beryl::keys::invalid",
    );
    fails("ssh-ed25519 AAAA c", "beryl::keys::invalid");
    let mut long = base64::decode(b).unwrap();
    long.extend([0, 0, 0, 1, 9]);
    let m = fails(
        &format!("ssh-ed25519 {}", b64(&long)),
        "beryl::keys::invalid",
    );
    assert!(m.contains("trailing"), "{m}");
    // A key-string length of 36 whose last 4 bytes pose as the application's
    // length: ssh-key accepts it, but it does not re-encode to the same bytes.
    let ed = base64::decode(b).unwrap();
    let mut odd = ssh_string(b"sk-ssh-ed25519@openssh.com");
    odd.extend(36u32.to_be_bytes());
    odd.extend(&ed[ed.len() - 32..]);
    odd.extend(ssh_string(b"ssh:"));
    let m = fails(
        &format!("sk-ssh-ed25519@openssh.com {}", b64(&odd)),
        "beryl::keys::invalid",
    );
    assert!(m.contains("canonical"), "{m}");
    // ssh-key's own message would quote an unknown curve name; ours does not.
    let mut curve = ssh_string(b"ecdsa-sha2-nistp256");
    curve.extend(ssh_string(b"secretcurve"));
    curve.extend(ssh_string(&[4; 65]));
    let m = fails(
        &format!("ecdsa-sha2-nistp256 {}", b64(&curve)),
        "beryl::keys::invalid",
    );
    assert!(m.contains("unknown curve") && !m.contains("secret"), "{m}");
    // A blob of another, unknown type is not named either.
    let mut other = ssh_string(b"secret-cert-v01@openssh.com");
    other.extend([0; 8]);
    let m = fails(
        &format!("ssh-ed25519 {}", b64(&other)),
        "beryl::keys::invalid",
    );
    assert!(
        m.contains("not a key of that type") && !m.contains("secret"),
        "{m}"
    );
}

#[test]
fn comments_must_be_printable() {
    let spaced = key(&format!("{}  two  words ", &VECTOR));
    assert_eq!(spaced.comment, "two  words");
    for bad in ["a\u{0}b", "a\tb", "bell\u{7}", "del\u{7f}"] {
        let m = fails(&format!("{VECTOR} {bad}"), "beryl::keys::comment");
        assert!(m.contains("control character"), "{m}");
    }
}

#[test]
fn options_are_parsed_and_checked() {
    let k = key(&format!("no-pty,command=\"echo a  b\"\t {}   c", VECTOR));
    assert_eq!(k.options.as_deref(), Some("no-pty,command=\"echo a  b\""));
    assert_eq!(k.line(), format!("no-pty,command=\"echo a  b\" {VECTOR} c"));
    assert_eq!(k.identity(), key(VECTOR).identity());
    assert_eq!(
        k.keygen_line(),
        "256 SHA256:H1sKJna/KPTQW45MXragbp04WVrnjjKBKvb3S0Jarlo c (ED25519)"
    );
    let m = fails(&format!("no-ptty {VECTOR}"), "beryl::keys::options");
    assert!(!m.contains("ptty"), "{m}");
    fails(&format!("command=echo {VECTOR}"), "beryl::keys::options");
    // Options before a refused type still give the type's error.
    fails(&format!("no-pty {DSA}"), "beryl::keys::dss");
}

#[test]
fn line_is_normalised() {
    let k = key(&format!("ssh-ed25519\t\t{}   me@host", blob_of(ED25519)));
    assert_eq!(
        k.line(),
        format!("ssh-ed25519 {} me@host", blob_of(ED25519))
    );
    assert_eq!(key(VECTOR).line(), VECTOR);
    assert_eq!(key(ED25519).line(), ED25519);
}

#[test]
fn key_inline_matches_resolve() {
    let at = entry(ED25519).span;
    assert_eq!(
        Key::inline(ED25519, &at).unwrap().keygen_line(),
        ED25519_KEYGEN
    );
    let d = Key::inline(RSA_1024, &at).unwrap_err();
    assert_eq!(d.code, "beryl::keys::rsa_too_short");
}

#[test]
fn no_input_panics() {
    // Every truncation and a few substitutions at every position of every
    // fixture: each must give a key or an error, never a panic.
    for line in [ED25519, RSA_3072, ECDSA_521, SK_ED25519, SK_ECDSA, DSA] {
        let line = format!("no-pty,command=\"a\\\"b\" {line} c");
        for i in (0..line.len()).filter(|&i| line.is_char_boundary(i)) {
            let _ = store().resolve(&entry(&line[..i]));
            for c in ["", "=", " ", "\"", ",", "é", "\u{0}"] {
                let _ = store().resolve(&entry(&format!("{}{c}{}", &line[..i], &line[i + 1..])));
            }
        }
    }
}
