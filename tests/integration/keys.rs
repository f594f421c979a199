//! `beryl keys` fingerprints must be byte-identical to `ssh-keygen -lf`.

use std::process::Command;

use crate::support::{beryl, fixture, fixtures, tools};

/// Every key of `tests/fixtures/pubkeys` (except the weak RSA one, which beryl
/// refuses) as a user's inline key, then compares each `beryl keys` row with
/// `ssh-keygen -lf` of the same file.
#[test]
fn fingerprints_match_ssh_keygen() {
    if !tools(&["ssh-keygen"], "fingerprints_match_ssh_keygen") {
        return;
    }
    let dir = fixture("base");
    let pubkeys = fixtures().join("pubkeys");
    let mut names: Vec<String> = std::fs::read_dir(&pubkeys)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n != "weak.pub")
        .collect();
    names.sort();
    let mut yaml = String::from("freebsd:\n  users:\n    - name: admin\n      ssh_keys:\n");
    let mut expected = Vec::new();
    for n in &names {
        let path = pubkeys.join(n);
        let line = std::fs::read_to_string(&path).unwrap();
        yaml.push_str(&format!("        - \"{}\"\n", line.trim()));
        let out = Command::new("ssh-keygen")
            .arg("-lf")
            .arg(&path)
            .output()
            .unwrap();
        assert!(out.status.success());
        expected.push(String::from_utf8(out.stdout).unwrap().trim().to_string());
    }
    std::fs::write(dir.path().join("inventory/example.org/mail.yml"), yaml).unwrap();
    // The domain key first, as ssh-keygen sees it.
    let ops = Command::new("ssh-keygen")
        .arg("-lf")
        .arg(pubkeys.join("ops.pub"))
        .output()
        .unwrap();
    let ops = String::from_utf8(ops.stdout).unwrap().trim().to_string();

    let args: Vec<String> = ["keys", "mail", "--format", "json"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let run = beryl(dir.path(), &args);
    assert_eq!(run.status, 0, "{}", run.stderr);
    let rows: Vec<serde_json::Value> = serde_json::from_str(&run.stdout).unwrap();
    let got: Vec<String> = rows
        .iter()
        .map(|r| {
            format!(
                "{} {} {} ({})",
                r["bits"],
                r["fingerprint"].as_str().unwrap(),
                r["comment"].as_str().unwrap(),
                r["type"].as_str().unwrap()
            )
        })
        .collect();
    // ops.pub is both the domain key and in the user's list: it appears once, first.
    let mut want = vec![ops.clone()];
    want.extend(expected.into_iter().filter(|e| *e != ops));
    assert_eq!(got, want);
    assert!(
        names.len() >= 8,
        "ed25519, rsa and ecdsa keys are all covered: {names:?}"
    );
}
