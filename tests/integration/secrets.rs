//! Secrets stay on the host (issue 32): a canary root password hash and
//! the content of a managed file that others may not read (mode 0600) are
//! searched for in every report beryl prints or writes about the example
//! inventory: `check`, the dry run (without and against a snapshot, text
//! and JSON), a saved plan, `beryl diff` (text, JSON, markdown, with and
//! without `--plan`) and the facts script. They appear 0 times. The
//! documents that carry them to the host by design (the installerconfig of
//! `plan`, the script of `apply --script`) and the config itself (`render`,
//! as the inventory holds it) are not reports.

use std::path::Path;

use crate::support::{args, beryl, copy_tree, facts_digest, repo};

const ROOT_CANARY: &str = "$6$canaryROOT$wK4mWq1sX9c2pY7bA3dF6gH8jL0nR5tV.zE/uQoIiMxNyBvC1eD2fG3hJ4kL5mN6oP7qR8sT9uV0wX1yZ2aB3cD";
const FILE: &str = "/usr/local/etc/app/db.conf";

/// The example inventory with host01 holding the canaries, the file's
/// content ending in `side`.
fn inventory(root: &Path, side: &str) {
    copy_tree(&repo().join("inventory"), &root.join("inventory"));
    copy_tree(&repo().join("ssh"), &root.join("ssh"));
    let host = root.join("inventory/example.org/web/host01.yml");
    let text = std::fs::read_to_string(&host).unwrap();
    // host01.yml has a `files:` of its own (the site its jail www
    // mounts): the secret file joins it.
    assert!(text.contains("\n  files:\n"), "{text}");
    let text = text
        .replacen(
            "freebsd:\n",
            &format!("freebsd:\n  root_password: '{ROOT_CANARY}'\n"),
            1,
        )
        .replacen(
            "\n  files:\n",
            &format!(
                "\n  files:\n    {FILE}:\n      \
                 content: \"db_password=CANARY-FILE-{side}\\n\"\n      mode: \"0600\"\n"
            ),
            1,
        );
    std::fs::write(&host, text).unwrap();
}

fn clean(what: &str, out: &str) {
    for canary in ["canaryROOT", "CANARY-FILE"] {
        assert!(
            !out.contains(canary),
            "{what} shows {canary}:\n{}",
            out.lines()
                .filter(|l| l.contains(canary))
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
}

#[test]
fn no_report_shows_a_secret() {
    let d = tempfile::tempdir().unwrap();
    let (old, new) = (d.path().join("old"), d.path().join("new"));
    inventory(&old, "OLD");
    inventory(&new, "NEW");
    copy_tree(&repo().join("ssh"), &d.path().join("ssh"));
    // The snapshot facts take of host01 now: the file there with other
    // content, read as facts read a private file (its digest only).
    let mut state: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(repo().join("tests/fixtures/apply/host01.json")).unwrap(),
    )
    .unwrap();
    state["files"][FILE] = serde_json::json!({
        "sha256": beryl::apply::sha256_hex("db_password=CANARY-FILE-HOST\n"),
        "mode": "0600", "owner": "root", "group": "wheel", "private": true,
    });
    // Taken by the facts script of this inventory, which lists FILE.
    state["script"] = facts_digest(&new, "host01").into();
    let snapshot = new.join("host01.json");
    std::fs::write(&snapshot, state.to_string()).unwrap();
    let s = snapshot.to_str().unwrap();
    let plan = new.join("plan.json");
    let p = plan.to_str().unwrap();
    let mut runs = 0;
    for a in [
        vec!["check"],
        vec!["check", "--format", "json"],
        vec!["apply", "host01", "--dry-run"],
        vec!["apply", "host01", "--dry-run", "--format", "json"],
        vec!["apply", "host01", "--dry-run", "--state", s],
        vec![
            "apply",
            "host01",
            "--dry-run",
            "--state",
            s,
            "--format",
            "json",
        ],
        vec!["apply", "host01", "--dry-run", "--state", s, "--out", p],
        vec!["facts", "host01"],
    ] {
        let run = beryl(&new, &args(&a));
        assert!(run.status <= 1, "{a:?}: {}", run.stderr);
        clean(&format!("{a:?}"), &format!("{}{}", run.stdout, run.stderr));
        runs += 1;
    }
    clean("the saved plan", &std::fs::read_to_string(&plan).unwrap());
    // The dry run still says the file differs, by its digests.
    let dry = beryl(&new, &args(&["apply", "host01", "--dry-run", "--state", s]));
    let want = format!(
        "content: \"sha256:{}\" -> \"sha256:{}\"",
        beryl::apply::sha256_hex("db_password=CANARY-FILE-HOST\n"),
        beryl::apply::sha256_hex("db_password=CANARY-FILE-NEW\n")
    );
    assert!(dry.stdout.contains(&want), "{}", dry.stdout);
    for format in ["text", "json", "markdown"] {
        for plan in [false, true] {
            let mut a = vec!["diff", "old/inventory", "new/inventory", "--format", format];
            if plan {
                a.push("--plan");
            }
            let run = beryl(d.path(), &args(&a));
            assert_eq!(run.status, 1, "{a:?}: {}", run.stderr);
            let out = format!("{}{}", run.stdout, run.stderr);
            clean(&format!("{a:?}"), &out);
            assert!(out.contains("sha256:"), "{a:?} shows no digest:\n{out}");
            runs += 1;
        }
    }
    assert_eq!(runs, 14);
    // The script sent to the host carries both: it sets them.
    let script = beryl(&new, &args(&["apply", "host01", "--script"]));
    assert!(script.stdout.contains("canaryROOT") && script.stdout.contains("CANARY-FILE-NEW"));
}
