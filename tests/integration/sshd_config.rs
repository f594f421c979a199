//! `freebsd.sshd`: settings and Match blocks through the inventory, checked
//! by the fake FreeBSD's model of `sshd -t` at install and at apply; and
//! the keyword table (src/freebsd/sshd.rs, held to the model's list by a
//! unit test) and the model against the real `sshd -t` of this machine.

use std::fs;
use std::path::Path;
use std::process::Command;

use crate::live::{agree, apply, live, sh};
use crate::support::{repo, skip};

const SFTP: &str = "freebsd:\n  groups: [sftp]\n  sshd:\n    settings:\n      AllowGroups: [wheel, sftp]\n      ClientAliveInterval: 300\n    match:\n      - criteria: Group sftp\n        settings:\n          ForceCommand: internal-sftp\n          AllowTcpForwarding: false\n";

/// A Match block and AllowGroups set through the inventory: the install
/// writes them (after the model of `sshd -t` accepted the file), a second
/// apply changes nothing, and an apply over a file sshd would refuse fails
/// and leaves it as it was.
#[test]
fn a_match_block_and_allow_groups_through_the_inventory() {
    let test = "a_match_block_and_allow_groups_through_the_inventory";
    let yaml = SFTP.replace("  groups: [sftp]\n", "");
    let Some((dir, bsd)) = live(&yaml, test) else {
        return;
    };
    let d = dir.path();
    let file = sh(&bsd, "cat /etc/ssh/sshd_config");
    assert!(
        file.contains("AllowGroups wheel\nAllowGroups sftp\nClientAliveInterval 300\n# End of the settings set by beryl.\n"),
        "{file}"
    );
    assert!(
        file.ends_with("# Match blocks set by beryl.\nMatch Group sftp\n\tForceCommand internal-sftp\n\tAllowTcpForwarding no\n"),
        "{file}"
    );
    sh(
        &bsd,
        "ssh-keygen -q -t ed25519 -N '' -f /tmp/k && sshd -t -f /etc/ssh/sshd_config -h /tmp/k",
    );
    // The operator's own Match block, before beryl's section, stays.
    sh(
        &bsd,
        "awk '$0 == \"# Match blocks set by beryl.\" { print \"Match User backup\"; print \"\\tPermitTTY no\" } { print }' /etc/ssh/sshd_config > /tmp/c && cat /tmp/c > /etc/ssh/sshd_config",
    );
    agree(&bsd, d, "live", &[]);
    // A global AllowGroups of the operator's is dropped: beryl's comes first.
    sh(
        &bsd,
        "sed -i 's/^#Port 22$/AllowGroups operators/' /etc/ssh/sshd_config",
    );
    agree(&bsd, d, "live", &["~ sshd"]);
    let file = sh(&bsd, "cat /etc/ssh/sshd_config");
    assert!(
        file.contains("Match User backup\n\tPermitTTY no\n# Match blocks set by beryl.\n"),
        "{file}"
    );
    // A line sshd refuses: the new file is not installed, the step fails.
    sh(
        &bsd,
        "sed -i 's/^#StrictModes yes$/Bogus yes/' /etc/ssh/sshd_config && sed -i 's/ClientAliveInterval 300/ClientAliveInterval 30/' /etc/ssh/sshd_config",
    );
    let before = sh(&bsd, "cat /etc/ssh/sshd_config");
    let run = apply(&bsd, d, "live");
    assert_ne!(run.status, 0, "{}", run.all());
    assert!(
        run.all().contains("Bad configuration option: Bogus"),
        "{}",
        run.all()
    );
    assert!(
        run.all().contains("sshd -t refused the new sshd_config"),
        "{}",
        run.all()
    );
    assert_eq!(sh(&bsd, "cat /etc/ssh/sshd_config"), before);
    assert_eq!(sh(&bsd, "ls /etc/ssh | grep -c beryl-tmp || true"), "0\n");
}

/// What `sshd -t` says of one line: the keyword unknown, refused in a Match
/// block, deprecated, unsupported, or read (whatever it then says of the
/// value `x`).
fn class(out: &str) -> &'static str {
    if out.contains("Bad configuration option") {
        "unknown"
    } else if out.contains("is not allowed within a Match block") {
        "not-in-match"
    } else if out.contains("Deprecated option") {
        "deprecated"
    } else if out.contains("Unsupported option") {
        "unsupported"
    } else {
        "read"
    }
}

fn run(program: &[&str], file: &Path, key: &Path) -> String {
    let out = Command::new(program[0])
        .args(&program[1..])
        .arg("-t")
        .arg("-f")
        .arg(file)
        .arg("-h")
        .arg(key)
        .output()
        .unwrap();
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Keywords of servconf.c V_10_0_P2 that the OpenSSH 9.2 servconf.c
/// (openssh-portable V_9_2_P1) does not have, or allows elsewhere
/// (`subsystem` became SSHCFG_ALL), with what an sshd 9.2 says of them: it
/// may disagree on these, and only so.
const NEWER_THAN_9_2: &[(&str, &str)] = &[
    ("pamservicename", "unknown"),
    ("persourcepenalties", "unknown"),
    ("persourcepenaltyexemptlist", "unknown"),
    ("sshdsessionpath", "unknown"),
    ("sshdauthpath", "unknown"),
    ("refuseconnection", "unknown"),
    ("subsystem", "not-in-match"),
];

/// Whether a disagreement is one the real sshd may have: a keyword of the
/// list above, said of as the list says (an sshd older than 10.0); a row
/// under an `#ifdef` of servconf.c (`B` in the model's list: USE_PAM, KRB5,
/// GSSAPI, DISABLE_LASTLOG) that this build left out and calls unsupported;
/// a row FreeBSD adds to its own servconf.c (`F`), unknown to any other
/// sshd.
fn excused(name: &str, flags: &str, real: &str, older: bool) -> bool {
    (older && NEWER_THAN_9_2.contains(&(name, real)))
        || (flags.ends_with('B') && real == "unsupported")
        || (flags.ends_with('F') && real == "unknown")
}

/// Every keyword of the model's list (the table's), alone and inside a
/// Match block that does not match, through the real `sshd -t` and the
/// model: both must class it alike, but for [`excused`] disagreements.
#[test]
fn the_keyword_table_and_the_model_agree_with_the_real_sshd() {
    let test = "the_keyword_table_and_the_model_agree_with_the_real_sshd";
    let real = Path::new("/usr/sbin/sshd");
    if !real.is_file() || Command::new("ssh-keygen").arg("-?").output().is_err() {
        skip(test, "/usr/sbin/sshd or ssh-keygen (openssh) is missing");
        return;
    }
    let version = Command::new(real).arg("-V").output().unwrap();
    let version = String::from_utf8_lossy(&version.stderr).to_string();
    let older = !version.starts_with("OpenSSH_10.0");
    let model = repo().join("tests/fakebsd/target/usr/sbin/sshd");
    let model = model.to_str().unwrap();
    let text = fs::read_to_string(model).unwrap();
    let list = text
        .split("KEYWORDS='")
        .nth(1)
        .unwrap()
        .split('\'')
        .next()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("key");
    let made = Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", ""])
        .arg("-f")
        .arg(&key)
        .status()
        .unwrap();
    assert!(made.success());
    let (mut checked, mut agreed, mut excuses, mut used) = (0, 0, Vec::new(), Vec::new());
    let mut disagree = Vec::new();
    for entry in list.split_whitespace() {
        let (name, flags) = entry.split_once(':').unwrap();
        for (place, text) in [
            ("global", format!("{name} x\n")),
            ("match", format!("Match User nobody\n{name} x\n")),
        ] {
            let file = dir.path().join("sshd_config");
            fs::write(&file, &text).unwrap();
            let (r, m) = (
                class(&run(&[real.to_str().unwrap()], &file, &key)),
                class(&run(&["dash", model], &file, &key)),
            );
            checked += 1;
            if r == m {
                agreed += 1;
            } else if excused(name, flags, r, older) {
                used.push((name.to_string(), r));
                excuses.push(format!("{name} ({place}): real {r}, model {m}"));
            } else {
                disagree.push(format!("{name} ({place}): real {r}, model {m}"));
            }
        }
    }
    eprintln!(
        "sshd -t ({}): {checked} lines checked, {agreed} agree, {} excused: {}",
        version.trim(),
        excuses.len(),
        excuses.join("; ")
    );
    assert!(disagree.is_empty(), "{}", disagree.join("\n"));
    // On the sshd the list was written for, each of its rows is needed.
    if version.starts_with("OpenSSH_9.2") {
        for (name, real) in NEWER_THAN_9_2 {
            assert!(
                used.iter().any(|(n, r)| n == name && r == real),
                "{name}: the real sshd agrees now, drop it from NEWER_THAN_9_2"
            );
        }
    }
    assert!(checked >= 250, "{checked}");
}
