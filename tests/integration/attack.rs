//! A managed host's own users against `beryl apply` and `beryl facts`
//! (issue 32): an **attacker** with a shell (alice, a user of the example
//! inventory, or the service account `www`) plants symbolic links where root
//! works, through the chroot(8) model's real change of uid
//! (tests/fakebsd/target/usr/sbin/chroot). For each plant, apply or facts
//! runs as beryl runs them, and the test asserts that the target the link
//! points at is byte for byte and mode for mode as it was, that the step
//! fails with a reason that names the link, and that no root-only byte
//! reaches the facts.
//!
//! Needs what the fake FreeBSD needs; skips with a notice without it, unless
//! BERYL_REQUIRE_TOOLS is set.

use crate::fakebsd::{FakeBsd, Run};
use crate::live::{agree, apply, facts, live, pending, sh};

/// A root-only secret that no output may ever show.
const CANARY: &str = "CANARY-root-only-3f9a1c";

/// Runs `script` as `user`, with a real uid: apply's own `as_user`
/// (templates/lib.sh, through the chroot(8) model).
fn as_user(bsd: &FakeBsd, user: &str, script: &str) -> String {
    let lib = std::fs::read_to_string(crate::support::repo().join("templates/lib.sh")).unwrap();
    let quoted = script.replace('\'', "'\\''");
    sh(bsd, &format!("{lib}\nas_user {user} '{quoted}'"))
}

/// What a path is, to the byte and the mode: `stat` of the path itself and
/// of what it names, and the digest of a file or the listing of a directory.
fn fingerprint(bsd: &FakeBsd, paths: &[&str]) -> String {
    let mut script = String::new();
    for p in paths {
        script.push_str(&format!(
            "echo {p}; stat -f '%Lp %Su %Sg' {p}; stat -L -f '%Lp %Su %Sg' {p}; \
             if [ -d {p} ]; then ls -la {p}; else sha256 -q {p}; fi; "
        ));
    }
    sh(bsd, &script)
}

/// The run failed, and its output names the link (`… is a symbolic link`).
fn refused(run: &Run, step: &str, link: &str) {
    assert_ne!(run.status, 0, "the apply succeeded:\n{}", run.all());
    assert!(
        run.stdout.contains(&format!("! {step} FAILED")),
        "{step} did not fail:\n{}",
        run.all()
    );
    assert!(
        run.stdout
            .contains(&format!("{link} is a symbolic link: not followed")),
        "the failure does not name {link}:\n{}",
        run.all()
    );
}

/// alice, whose keys beryl manages, turns her own `~/.ssh` against root:
/// `~/.ssh` a link to /etc; `authorized_keys` a link to master.passwd;
/// the old staging name planted. Facts read her `authorized_keys` linked to
/// a root-only file.
#[test]
fn a_user_cannot_turn_her_ssh_directory_against_apply() {
    let Some((dir, bsd)) = live(
        "freebsd:\n  packages: [tmux]\n",
        "a_user_cannot_turn_her_ssh_directory_against_apply",
    ) else {
        return;
    };
    let d = dir.path();
    sh(
        &bsd,
        &format!("umask 077; echo {CANARY} > /etc/beryl-canary"),
    );
    let targets = ["/etc", "/etc/master.passwd", "/etc/beryl-canary"];
    let before = fingerprint(&bsd, &targets);

    // 1. ~/.ssh → /etc, after editing her keys so that the check fails.
    as_user(
        &bsd,
        "alice",
        "cd && echo 'ssh-ed25519 AAAA mine' >> .ssh/authorized_keys && mv .ssh .ssh.real && ln -s /etc .ssh",
    );
    let run = apply(&bsd, d, "live");
    refused(&run, "keys:alice", "/home/alice/.ssh");
    assert_eq!(fingerprint(&bsd, &targets), before, "{}", run.all());
    assert_eq!(sh(&bsd, "ls /etc | grep -c authorized_keys || true"), "0\n");
    // The dry run says so before: `!`, the link, and the refusal.
    let plan = pending(&bsd, d, "live").join("\n");
    assert!(
        plan.contains("! keys:alice") && plan.contains("directory type: \"link\" -> \"directory\""),
        "{plan}"
    );

    // 2. authorized_keys → master.passwd.
    as_user(
        &bsd,
        "alice",
        "cd && rm .ssh && mv .ssh.real .ssh && rm .ssh/authorized_keys && ln -s /etc/master.passwd .ssh/authorized_keys",
    );
    let run = apply(&bsd, d, "live");
    refused(&run, "keys:alice", "/home/alice/.ssh/authorized_keys");
    assert_eq!(fingerprint(&bsd, &targets), before, "{}", run.all());

    // 3. Facts never read through her link as root: the link is reported
    //    as itself, and no byte of a root-only file reaches them.
    as_user(
        &bsd,
        "alice",
        "cd && rm .ssh/authorized_keys && ln -s /etc/beryl-canary .ssh/authorized_keys",
    );
    let state = facts(&bsd, d, "live");
    let keys = &state["users"]["alice"]["authorized_keys"];
    assert_eq!(keys["type"], "link", "{keys}");
    assert_eq!(keys["owner"], "alice", "{keys}");
    let text = state.to_string();
    assert!(!text.contains(CANARY), "the canary reached the facts");
    assert!(!text.contains("$6$"), "a password hash reached the facts");

    // 4. The old staging name planted: nothing opens it any more, the keys
    //    are written, and master.passwd is as it was.
    as_user(
        &bsd,
        "alice",
        "cd && rm .ssh/authorized_keys && echo 'ssh-ed25519 AAAA mine' > .ssh/authorized_keys && \
         ln -s /etc/master.passwd .ssh/authorized_keys.beryl-tmp",
    );
    agree(&bsd, d, "live", &["~ keys:alice"]);
    assert_eq!(fingerprint(&bsd, &targets), before);
    assert_eq!(
        sh(
            &bsd,
            "stat -f '%Lp %Su %Sg' /home/alice/.ssh/authorized_keys"
        ),
        "600 alice staff\n"
    );
}

/// `www` owns the directory of a file beryl manages for it, and plants in
/// it: the staging name a link to master.passwd, the file itself a link,
/// a subdirectory swapped for a link to rc.d.
#[test]
fn a_service_account_cannot_turn_its_own_directory_against_apply() {
    let host = "freebsd:\n  packages: [tmux]\n  files:\n    /usr/local/www/app/app.conf:\n      \
                content: \"key = value\\n\"\n      owner: www\n      group: www\n      mode: \"640\"\n";
    let Some((dir, bsd)) = live(
        "freebsd:\n  packages: [tmux]\n",
        "a_service_account_cannot_turn_its_own_directory_against_apply",
    ) else {
        return;
    };
    let d = dir.path();
    sh(
        &bsd,
        "mkdir -p /usr/local/www/app && chown www:www /usr/local/www/app",
    );
    std::fs::write(d.join("inventory/example.org/live.yml"), host).unwrap();
    let targets = [
        "/etc/master.passwd",
        "/usr/local/etc/rc.d",
        "/usr/local/www",
    ];

    // 1. The staging name beside the file (`.beryl-NAME`), a link to
    //    master.passwd: root never writes in www's directory, www puts the
    //    file in place.
    as_user(
        &bsd,
        "www",
        "ln -s /etc/master.passwd /usr/local/www/app/.beryl-app.conf",
    );
    let before = fingerprint(&bsd, &targets[..2]);
    agree(&bsd, d, "live", &["+ file:/usr/local/www/app/app.conf"]);
    assert_eq!(fingerprint(&bsd, &targets[..2]), before);
    assert_eq!(
        sh(
            &bsd,
            "stat -f '%Lp %Su %Sg' /usr/local/www/app/app.conf; cat /usr/local/www/app/app.conf"
        ),
        "640 www www\nkey = value\n"
    );

    // 2. The file itself a link to master.passwd: refused, said before by
    //    the dry run.
    as_user(
        &bsd,
        "www",
        "cd /usr/local/www/app && rm app.conf && ln -s /etc/master.passwd app.conf",
    );
    let before = fingerprint(&bsd, &targets);
    let plan = pending(&bsd, d, "live").join("\n");
    assert!(
        plan.contains("! file:/usr/local/www/app/app.conf")
            && plan.contains("type: \"link\" -> \"file\""),
        "{plan}"
    );
    let run = apply(&bsd, d, "live");
    refused(
        &run,
        "file:/usr/local/www/app/app.conf",
        "/usr/local/www/app/app.conf",
    );
    assert_eq!(fingerprint(&bsd, &targets), before, "{}", run.all());

    // 3. A file in a subdirectory of www's: www swaps the subdirectory for
    //    a link to rc.d. Refused: a directory www can write is on the way,
    //    and it is not the file's own.
    as_user(
        &bsd,
        "www",
        "cd /usr/local/www/app && rm app.conf && ln -s /usr/local/etc/rc.d conf.d",
    );
    std::fs::write(
        d.join("inventory/example.org/live.yml"),
        "freebsd:\n  packages: [tmux]\n  files:\n    /usr/local/www/app/conf.d/x.conf:\n      \
         content: \"x\\n\"\n      owner: www\n      group: www\n",
    )
    .unwrap();
    let before = fingerprint(&bsd, &targets);
    let run = apply(&bsd, d, "live");
    assert_ne!(run.status, 0, "{}", run.all());
    assert!(
        run.stdout
            .contains("! file:/usr/local/www/app/conf.d/x.conf FAILED")
            && run
                .stdout
                .contains("/usr/local/www/app can be written by www: not trusted"),
        "{}",
        run.all()
    );
    assert_eq!(fingerprint(&bsd, &targets), before, "{}", run.all());
}

/// A file beryl recorded under alice's home left the config; alice swaps
/// its directory for a link to /etc, where a file of the same name is.
/// Pruning removes nothing through the link and says why: a directory
/// alice can write is on the way.
#[test]
fn pruning_follows_no_link_a_user_swapped_in() {
    let Some((dir, bsd)) = live(
        "freebsd:\n  packages: [tmux]\n",
        "pruning_follows_no_link_a_user_swapped_in",
    ) else {
        return;
    };
    let d = dir.path();
    // As an earlier apply would have left it: the file, and its record.
    sh(
        &bsd,
        "echo keep > /etc/app.conf && mkdir -p /var/db/beryl && \
         echo 'file /home/alice/.config/app.conf' >> /var/db/beryl/managed",
    );
    as_user(
        &bsd,
        "alice",
        "mkdir -p /home/alice/.config && echo mine > /home/alice/.config/app.conf && \
         mv /home/alice/.config /home/alice/.config.real && ln -s /etc /home/alice/.config",
    );
    let before = fingerprint(&bsd, &["/etc", "/etc/app.conf"]);
    let run = apply(&bsd, d, "live");
    assert_ne!(run.status, 0, "{}", run.all());
    assert!(
        run.stdout
            .contains("! file:/home/alice/.config/app.conf FAILED")
            && run
                .stdout
                .contains("/home/alice can be written by alice: not trusted"),
        "{}",
        run.all()
    );
    assert_eq!(fingerprint(&bsd, &["/etc", "/etc/app.conf"]), before);
    // The record keeps the line: nothing was removed.
    assert!(sh(&bsd, "cat /var/db/beryl/managed").contains("file /home/alice/.config/app.conf\n"));
}

/// The record is root's, 0600; a line in it naming a base-system file, one
/// beryl writes itself, or a path that is not normalized is reported and
/// never acted on (it once made apply run `rm -f /etc/passwd`).
#[test]
fn a_tampered_record_removes_nothing() {
    let Some((dir, bsd)) = live(
        "freebsd:\n  packages: [tmux]\n",
        "a_tampered_record_removes_nothing",
    ) else {
        return;
    };
    let d = dir.path();
    let lines = [
        "file /etc/passwd",
        "file /usr/local/etc/sudoers.d/beryl",
        "file /etc/../etc/group",
        "file /bin/sh",
    ];
    sh(
        &bsd,
        &format!(
            "mkdir -p /var/db/beryl && printf '%s\\n' {} >> /var/db/beryl/managed",
            lines.map(|l| format!("'{l}'")).join(" ")
        ),
    );
    let targets = [
        "/etc/passwd",
        "/etc/group",
        "/bin/sh",
        "/usr/local/etc/sudoers.d/beryl",
    ];
    let before = fingerprint(&bsd, &targets);
    let run = apply(&bsd, d, "live");
    assert_ne!(run.status, 0, "{}", run.all());
    for (line, why) in [
        ("file:/etc/passwd", "a file of the base system"),
        (
            "file:/usr/local/etc/sudoers.d/beryl",
            "a file beryl writes itself",
        ),
        (
            "file:/etc/../etc/group",
            "a path that is not absolute and normalized",
        ),
        ("file:/bin/sh", "a file of the base system"),
    ] {
        assert!(
            run.stdout
                .contains(&format!("! {line} refused: the record names {why}")),
            "{line}:\n{}",
            run.all()
        );
    }
    assert_eq!(fingerprint(&bsd, &targets), before);
    let record = sh(&bsd, "cat /var/db/beryl/managed");
    for l in lines {
        assert!(record.contains(&format!("{l}\n")), "{record}");
    }
    assert_eq!(
        sh(&bsd, "stat -f '%Lp %Su' /var/db/beryl/managed"),
        "600 root\n"
    );
}
