//! Secrets applied to a live host (issue 37): an adopted fake FreeBSD host
//! (the fixture of adopt.rs) whose level file holds a password, encrypted
//! with `beryl secrets set`, that a managed file's content reads through a
//! reference, and root's password hash, encrypted too.
//!
//! - without an identity, apply fails before anything runs (fail closed);
//! - with one, the file lands with the plaintext, mode 0600, root's hash is
//!   set, and a second apply changes nothing (compared on the host);
//! - nothing beryl printed or wrote on the way (facts, dry runs in text and
//!   JSON, a saved plan, the apply's output and JSON events) holds a
//!   plaintext, its base64, its hex, or the sha256 of a plaintext or of the
//!   file's content.
//!
//! Needs what adopt.rs needs; skips with a notice without
//! them, unless BERYL_REQUIRE_TOOLS is set.

use std::fs;
use std::path::Path;

use crate::apply::sshd::{self, SSH_OPTIONS};
use crate::fakebsd::{FakeBsd, Options};
use crate::live::sh;
use crate::support::{
    Run, args, beryl, beryl_with_env, fixture, key_pair, leak_forms, operator_key, skip, tools,
};

const HOST: &str = "legacy01";
const LEVEL: &str = "example.org/legacy01.yml";
const FILE: &str = "/usr/local/etc/app/db.conf";
const PASSWORD: &str = "Canary-pw-7431";
const ROOT_HASH: &str = "$6$canarySALT$Zq8mWq1sX9c2pY7bA3dF6gH8jL0nR5tVzE/uQoIiMxNyBvC1eD2fG3hJ4kL5mN6oP7qR8sT9uV0wX1yZ2aB3c";

fn run(d: &Path, a: &[&str]) -> Run {
    let mut all = args(a);
    all.extend(args(&SSH_OPTIONS));
    beryl(d, &all)
}

#[test]
fn secrets_reach_their_file_on_the_host_and_no_output() {
    let test = "secrets_reach_their_file_on_the_host_and_no_output";
    if !tools(&["ssh", "ssh-keygen", "unshare"], test) {
        return;
    }
    if !Path::new("/usr/sbin/sshd").is_file() {
        skip(test, "/usr/sbin/sshd (openssh-server) is missing");
        return;
    }
    let dir = fixture("adopt");
    let d = dir.path();
    let Some(bsd) = FakeBsd::new(&Options::default(), test) else {
        return;
    };
    bsd.extract_base();
    sh(
        &bsd,
        "env ASSUME_ALWAYS_YES=yes pkg bootstrap -y >/dev/null && env ASSUME_ALWAYS_YES=yes pkg install -y sudo nginx >/dev/null && pw useradd admin -m -s /bin/sh && mkdir -p /usr/local/etc/sudoers.d && echo 'admin ALL=(ALL:ALL) NOPASSWD: ALL' > /usr/local/etc/sudoers.d/ops && pw useradd alice -m -s /bin/sh",
    );
    // The secrets: a password a file reads, and root's hash, encrypted to
    // the domain's keys (an operator key among them) by default.
    let key = operator_key(d, "op", "inventory/example.org/_domain.yml");
    let level = d.join("inventory").join(LEVEL);
    let text = fs::read_to_string(&level).unwrap().replace(
        "  services:\n",
        &format!(
            "    {FILE}:\n      content: \"password=${{site.db_password}}\\n\"\n  services:\n"
        ),
    );
    fs::write(&level, format!("{text}site:\n  owner: ops\n")).unwrap();
    let file = format!("inventory/{LEVEL}");
    let id = key.to_str().unwrap();
    for (place, value, extra) in [
        ("site.db_password", PASSWORD, vec![]),
        ("freebsd.root_password", ROOT_HASH, vec!["--identity", id]),
    ] {
        let mut a = vec!["secrets", "set", &file, place];
        a.extend(extra);
        let r = beryl_with_env(d, &args(&a), &[], Some(value));
        assert_eq!(r.status, 0, "{}", r.stderr);
    }
    let wired = sshd::wire_machine(d, bsd, HOST, "admin", LEVEL);
    let bsd = &wired.bsd;
    let mut outputs: Vec<(String, String)> = Vec::new();
    let mut keep = |what: &str, r: &Run| {
        outputs.push((what.to_string(), format!("{}{}", r.stdout, r.stderr)));
    };

    // The host's key is not known yet: `check` fails closed and says how
    // to gather it; gathered from the host's facts, the file re-wrapped to
    // it, `check` passes.
    let r = beryl(d, &args(&["check"]));
    assert_eq!(r.status, 2, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stderr.contains("beryl::secrets::host_key")
            && r.stderr
                .contains("beryl facts --gather legacy01.example.org"),
        "{}",
        r.stderr
    );
    keep("check without the host key", &r);
    let host_key = key_pair(d, "host_key");
    sh(
        bsd,
        &format!(
            "mkdir -p /etc/ssh && printf '%s\\n' '{host_key}' > /etc/ssh/ssh_host_ed25519_key.pub"
        ),
    );
    let r = run(d, &["facts", "--gather", HOST, "--out", "facts"]);
    assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);
    let r = beryl(d, &args(&["secrets", "host-keys", "--state-dir", "facts"]));
    assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("legacy01.example.org: added"),
        "{}",
        r.stdout
    );
    keep("host-keys", &r);
    assert_eq!(
        fs::read_to_string(d.join("ssh/hosts/legacy01.example.org.pub")).unwrap(),
        format!("{host_key}\n")
    );
    let r = beryl(d, &args(&["secrets", "rekey", "--identity", id]));
    assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(r.stdout, format!("{file}\n"));
    keep("rekey", &r);
    let r = beryl(d, &args(&["check"]));
    assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);
    keep("check", &r);
    let r = beryl(d, &args(&["render", HOST]));
    assert!(r.stdout.contains("db_password: ‹secret:"), "{}", r.stdout);
    keep("render", &r);

    let r = run(d, &["facts", "--gather", HOST, "--out", "facts"]);
    assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);
    keep("facts", &r);
    for format in ["text", "json"] {
        let r = beryl(
            d,
            &args(&[
                "apply",
                HOST,
                "--dry-run",
                "--state-dir",
                "facts",
                "--format",
                format,
            ]),
        );
        assert!(r.status <= 1, "{}{}", r.stdout, r.stderr);
        keep(&format!("dry run {format}"), &r);
    }
    let r = beryl(
        d,
        &args(&[
            "apply",
            HOST,
            "--dry-run",
            "--state-dir",
            "facts",
            "--out",
            "plan.json",
        ]),
    );
    keep("saved plan", &r);

    // Without an identity: refused before anything runs.
    let r = run(d, &["apply", HOST, "--yes"]);
    assert_eq!(r.status, 2, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stderr.contains("beryl::secrets::no_identity"),
        "{}",
        r.stderr
    );
    assert_eq!(
        sh(bsd, &format!("test -e {FILE} && echo there || echo absent")).trim(),
        "absent"
    );
    keep("apply without identity", &r);

    // With it, the saved plan runs: the file and root's hash land.
    let r = run(d, &["apply", "--plan", "plan.json", "--identity", id]);
    assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);
    keep("apply", &r);
    assert_eq!(
        sh(bsd, &format!("cat {FILE}")),
        format!("password={PASSWORD}\n")
    );
    assert_eq!(
        sh(bsd, &format!("stat -f '%Lp %Su %Sg' {FILE}")).trim(),
        "600 root wheel"
    );
    assert_eq!(
        sh(
            bsd,
            "awk -F: '$1 == \"root\" { print $2 }' /etc/master.passwd"
        )
        .trim(),
        ROOT_HASH
    );

    // Again: nothing to change, compared on the host.
    let r = run(
        d,
        &[
            "apply",
            HOST,
            "--yes",
            "--identity",
            id,
            "--format",
            "jsonl",
        ],
    );
    assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);
    keep("second apply (jsonl)", &r);
    let r = run(d, &["apply", HOST, "--yes", "--identity", id]);
    assert!(r.stdout.contains("0 changed"), "{}", r.stdout);
    keep("third apply", &r);

    let r = run(d, &["facts", "--gather", HOST, "--out", "facts"]);
    keep("facts after", &r);
    let r = beryl(
        d,
        &args(&["apply", HOST, "--dry-run", "--state-dir", "facts"]),
    );
    keep("dry run after", &r);

    // Every output, and every file beryl wrote, searched.
    for f in ["facts/legacy01.example.org.json", "plan.json"] {
        outputs.push((f.to_string(), fs::read_to_string(d.join(f)).unwrap()));
    }
    let content = format!("password={PASSWORD}\n");
    let mut secrets = leak_forms(PASSWORD);
    secrets.extend(leak_forms(ROOT_HASH));
    secrets.push(beryl::apply::sha256_hex(&content));
    for (what, text) in &outputs {
        for s in &secrets {
            assert!(!text.contains(s.as_str()), "{what} holds {s}:\n{text}");
        }
    }
}
