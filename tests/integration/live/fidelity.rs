//! Issue 34, items 1, 7 and 15 on the live host: modes with a set-id or
//! sticky digit, 8-bit bytes in the facts, and the file step's staging name.

use super::{agree, apply, facts, live, pending, sh};

/// Files of mode 1777, 4755 and 0044 install, converge and stay converged:
/// stat's `%Lp` alone is `st_mode & 0777` (usr.bin/stat/stat.c @3524148a),
/// so a check against `1777` never passed and the dry run showed a change
/// for ever. After a chmod that drops the set-id bit, the dry run and the
/// apply change exactly that file, and a second apply changes nothing.
#[test]
fn set_id_and_sticky_modes_converge() {
    let yaml = "freebsd:\n  files:\n    /usr/local/etc/beryl-sticky:\n      content: \"s\\n\"\n      mode: \"1777\"\n    /usr/local/libexec/beryl-setuid:\n      content: \"#!/bin/sh\\n\"\n      mode: \"4755\"\n    /usr/local/etc/beryl-quiet:\n      content: \"q\\n\"\n      mode: \"044\"\n";
    let Some((dir, bsd)) = live(yaml, "set_id_and_sticky_modes_converge") else {
        return;
    };
    let d = dir.path();
    let state = facts(&bsd, d, "live");
    for (path, mode) in [
        ("/usr/local/etc/beryl-sticky", "1777"),
        ("/usr/local/libexec/beryl-setuid", "4755"),
        ("/usr/local/etc/beryl-quiet", "0044"),
    ] {
        assert_eq!(state["files"][path]["mode"], mode, "{path}");
    }
    sh(&bsd, "chmod 0755 /usr/local/libexec/beryl-setuid");
    let shown = pending(&bsd, d, "live").join("\n");
    assert!(shown.contains("0755") && shown.contains("4755"), "{shown}");
    agree(&bsd, d, "live", &["~ file:/usr/local/libexec/beryl-setuid"]);
}

/// A GECOS field in Latin-1 (pw allows 8-bit bytes there only:
/// usr.sbin/pw/pw_user.c @bec1c10a, `pw_checkname`): the facts stay
/// readable JSON, the dry run shows the difference from the config's UTF-8
/// comment readably, and the apply puts the UTF-8 one back. A UTF-8
/// comment on the host equals the config's (the host installs to nothing
/// pending).
#[test]
fn a_latin1_gecos_reads_and_round_trips() {
    let yaml = "freebsd:\n  users:\n    - name: erin\n      uid: 1010\n      comment: \"Ren\u{e9} Br\u{e5}ten\"\n      shell: /bin/sh\n";
    let Some((dir, bsd)) = live(yaml, "a_latin1_gecos_reads_and_round_trips") else {
        return;
    };
    let d = dir.path();
    sh(
        &bsd,
        "pw usermod -n erin -c \"$(printf 'Ren\\351 Br\\345ten')\"",
    );
    let state = facts(&bsd, d, "live");
    assert_eq!(
        state["users"]["erin"]["comment"], "Ren\u{e9} Br\u{e5}ten",
        "the snapshot holds the bytes E9 and E5 as \\u00e9 and \\u00e5"
    );
    let shown = pending(&bsd, d, "live").join("\n");
    assert!(
        shown.contains(r#"comment: "Ren\\xE9 Br\\xE5ten" -> "René Bråten""#),
        "{shown}"
    );
    agree(&bsd, d, "live", &["~ user:erin"]);
}

/// The file step stages its content as a dot-file beside the file: cron
/// reads every file of a cron.d directory whose name does not start with a
/// dot (usr.sbin/cron/cron/database.c @e4452d45). A change whose validator
/// refuses the content leaves no other name there.
#[test]
fn a_failed_change_leaves_no_name_a_scanner_reads() {
    let listed = |extra: &str| {
        format!(
            "freebsd:\n  files:\n    /etc/cron.d/beryl-h1:\n      content: \"# {extra}\\n\"\n{}",
            match extra {
                "refused" => "      validate: /bin/sh -c false %s\n",
                _ => "",
            }
        )
    };
    let Some((dir, bsd)) = live(
        &listed("first"),
        "a_failed_change_leaves_no_name_a_scanner_reads",
    ) else {
        return;
    };
    let d = dir.path();
    std::fs::write(d.join("inventory/example.org/live.yml"), listed("refused")).unwrap();
    let run = apply(&bsd, d, "live");
    assert!(
        run.status != 0 && run.stdout.contains("! file:/etc/cron.d/beryl-h1 FAILED"),
        "{}",
        run.all()
    );
    let names = sh(&bsd, "ls /etc/cron.d");
    assert_eq!(names, "beryl-h1\n", "names cron would read");
}
