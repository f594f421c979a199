//! One ssh connection converges a host and its jails (issue 36, slice
//! "apply"; docs/apply.md "Jails"): the fake FreeBSD host `live` of
//! tests/fixtures/jails, installed from its plan, with a jail `box` that
//! the first apply makes (its dataset, its base from the fake mirror's
//! base.txz, /etc/jail.conf.d/box.conf, `jail -c`), reached over a test
//! sshd.
//! The jail's own config (a user, a package, a file) is applied inside it
//! by the host's script through `jexec -l box env … /bin/sh -s`.
//!
//! Needs what the fake FreeBSD needs plus ssh and sshd; skips with a notice
//! without them, unless BERYL_REQUIRE_TOOLS is set.

use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::apply::sshd::{self, SSH_OPTIONS, Wired};
use crate::support::{args, beryl, fixture, skip, tools};

const HOST: &str = "live.example.org";
const JAIL: &str = "box.live.example.org";

/// `beryl ARGS` against the test sshd.
fn run(d: &Path, a: &[&str]) -> crate::support::Run {
    let mut all = a.to_vec();
    all.extend(SSH_OPTIONS);
    beryl(d, &args(&all))
}

/// `live` installed and reachable, its jail `box` running.
fn jailed(test: &str) -> Option<(tempfile::TempDir, Wired)> {
    if !tools(&["ssh", "ssh-keygen", "unshare"], test) {
        return None;
    }
    if !Path::new("/usr/sbin/sshd").is_file() {
        skip(test, "/usr/sbin/sshd (openssh-server) is missing");
        return None;
    }
    let dir = fixture("jails");
    let bsd = crate::live::installed(dir.path(), "live", test)?;
    let w = sshd::wire_machine(dir.path(), bsd, "live", "admin", "example.org/live.yml");
    Some((dir, w))
}

/// A unit's row of the recap table (a jail's is indented under its host):
/// changed, unchanged, failed, status.
fn row(stdout: &str, unit: &str) -> Vec<String> {
    let recap = stdout
        .split("\nRecap:\n")
        .nth(1)
        .unwrap_or_else(|| panic!("no recap:\n{stdout}"));
    let indent = if unit == JAIL { "    " } else { "  " };
    let line = recap
        .lines()
        .find(|l| l.starts_with(&format!("{indent}{unit} ")))
        .unwrap_or_else(|| panic!("no recap row for {unit}:\n{stdout}"));
    line.split_whitespace()
        .skip(1)
        .map(str::to_string)
        .collect()
}

/// The sessions the test sshd ran so far.
fn sessions(w: &Wired) -> usize {
    fs::read_to_string(&w.commands)
        .unwrap_or_default()
        .lines()
        .count()
}

/// The ids a unit's text lines say were changed (`UNIT: ~ id`).
fn changed(stdout: &str, unit: &str) -> Vec<String> {
    stdout
        .lines()
        .filter_map(|l| l.strip_prefix(&format!("{unit}: ~ ")))
        .map(str::to_string)
        .collect()
}

#[test]
fn one_connection_converges_a_host_and_its_jail() {
    let test = "one_connection_converges_a_host_and_its_jail";
    let Some((dir, w)) = jailed(test) else {
        return;
    };
    let d = dir.path();
    let jail_sh = |cmd: &str| crate::live::sh(&w.bsd, &format!("jexec box /bin/sh -c '{cmd}'"));

    // From nothing: one session converges the host and the jail; what the
    // jail's config says is in the jail, not on the host.
    let before = sessions(&w);
    let r = run(d, &["apply", "live", "--yes"]);
    assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(sessions(&w), before + 1, "one ssh session");
    let in_jail = changed(&r.stdout, JAIL);
    for id in ["pkg:tmux", "user:dave", "file:/usr/local/etc/box.conf"] {
        assert!(in_jail.iter().any(|c| c == id), "{id}: {}", r.stdout);
    }
    assert!(
        r.stdout
            .contains(&format!("\n{HOST}: jail: {JAIL} exit 0\n")),
        "{}",
        r.stdout
    );
    assert_eq!(row(&r.stdout, JAIL)[3], "ok", "{}", r.stdout);
    assert_eq!(
        jail_sh("pw usershow -n dave | cut -d: -f8"),
        "Dave in the jail\n"
    );
    assert_eq!(jail_sh("cat /usr/local/etc/box.conf"), "inside the jail\n");
    assert_eq!(
        crate::live::sh(
            &w.bsd,
            "pw usershow -n dave >/dev/null 2>&1 && echo on-host || echo none; \
             [ -e /usr/local/etc/box.conf ] && echo on-host || echo none"
        ),
        "none\nnone\n"
    );

    // Again: nothing changes anywhere (--exit-code: 0). Its time is
    // reported, not asserted.
    let start = std::time::Instant::now();
    let r = run(d, &["apply", "live", "--yes", "--exit-code"]);
    eprintln!(
        "jail_apply: no-op re-apply of a host and 1 jail over one connection: {:.2?}",
        start.elapsed()
    );
    assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);
    for unit in [HOST, JAIL] {
        assert_eq!(row(&r.stdout, unit)[0], "0", "{unit}: {}", r.stdout);
    }

    // A drift inside the jail: the snapshots gathered over the one
    // connection, the jail's byte for byte as its own facts script prints
    // it in the jail; the dry run predicts the drift under the jail's name.
    jail_sh("pw usermod -n dave -c Someone && rm /usr/local/etc/box.conf");
    let before = sessions(&w);
    let g = run(d, &["facts", "--gather", "--out", "facts", "live"]);
    assert_eq!(g.status, 0, "{}{}", g.stdout, g.stderr);
    assert_eq!(sessions(&w), before + 1, "one ssh session");
    assert!(
        g.stdout
            .ends_with("facts: 2 gathered, 0 failed, into facts\n"),
        "{}",
        g.stdout
    );
    let facts_script = crate::live::ok(d, &["facts", "box"]);
    let direct = w
        .bsd
        .exec_in_target("jexec -l box /bin/sh -s", &facts_script, &[], "root");
    assert_eq!(direct.status, 0, "{}", direct.all());
    assert_eq!(
        fs::read_to_string(d.join(format!("facts/{JAIL}.json"))).unwrap(),
        direct.stdout,
        "the jail's snapshot as it prints it"
    );
    let snap: Value =
        serde_json::from_str(&fs::read_to_string(d.join(format!("facts/{HOST}.json"))).unwrap())
            .unwrap();
    assert_eq!(snap["host"], HOST);
    let dry = run(
        d,
        &[
            "apply",
            "live",
            "--dry-run",
            "--state-dir",
            "facts",
            "--exit-code",
        ],
    );
    assert_eq!(dry.status, 1, "{}{}", dry.stdout, dry.stderr);
    assert!(
        dry.stdout.contains(&format!(
            "apply {JAIL}\njail of {HOST}: the steps run inside it, against its own snapshot;"
        )),
        "{}",
        dry.stdout
    );
    let (host_part, jail_part) = dry
        .stdout
        .split_once(&format!("apply {JAIL}\n"))
        .unwrap_or_else(|| panic!("no report of the jail:\n{}", dry.stdout));
    assert!(
        host_part.starts_with(&format!("apply {HOST}\n")),
        "{}",
        dry.stdout
    );
    let pending: Vec<&str> = jail_part
        .lines()
        .take_while(|l| !l.starts_with("Plan:"))
        .filter(|l| l.starts_with(['+', '~', '-']))
        .collect();
    assert_eq!(
        pending,
        ["~ user:dave", "+ file:/usr/local/etc/box.conf"],
        "{}",
        dry.stdout
    );
    let r = run(d, &["apply", "live", "--yes"]);
    assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(
        changed(&r.stdout, JAIL),
        ["user:dave", "file:/usr/local/etc/box.conf"],
        "{}",
        r.stdout
    );
    assert_eq!(row(&r.stdout, HOST)[0], "0", "{}", r.stdout);

    // JSON Lines: the jail's events name it, its host event its parent.
    let r = run(d, &["apply", "live", "--yes", "--format", "jsonl"]);
    assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);
    let schema = crate::fleet_apply::schema("events.schema.json");
    let events: Vec<Value> = r
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    for e in &events {
        crate::fleet_apply::valid(&schema, e, "event");
    }
    let hosts: Vec<(&str, Option<&str>, &str)> = events
        .iter()
        .filter(|e| e["type"] == "host")
        .map(|e| {
            (
                e["host"].as_str().unwrap(),
                e["parent"].as_str(),
                e["status"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(hosts, [(HOST, None, "ok"), (JAIL, Some(HOST), "ok")]);
    assert!(
        events
            .iter()
            .any(|e| e["type"] == "step" && e["host"] == JAIL && e["id"] == "user:dave")
    );
    let recap = events.last().unwrap();
    assert_eq!(recap["hosts"], 2, "{recap}");

    // Saved plans: one per unit, the jail's naming its host. A drift in the
    // jail after the plan: the jail's own guard, run in the jail, stops its
    // script (exit 3); over the connection, the jail is stale (its fresh
    // facts disagree with its plan) and the host applies.
    let g = run(d, &["facts", "--gather", "--out", "facts", "live"]);
    assert_eq!(g.status, 0, "{}{}", g.stdout, g.stderr);
    let made = run(
        d,
        &[
            "apply",
            "live",
            "--dry-run",
            "--state-dir",
            "facts",
            "--out",
            "plan.json",
        ],
    );
    assert_eq!(made.status, 0, "{}{}", made.stdout, made.stderr);
    let plan: Value =
        serde_json::from_str(&fs::read_to_string(d.join("plan.json")).unwrap()).unwrap();
    let units: Vec<(&str, Option<&str>)> = plan["hosts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| (h["host"].as_str().unwrap(), h["parent"].as_str()))
        .collect();
    assert_eq!(units, [(HOST, None), (JAIL, Some(HOST))]);
    crate::fleet_apply::valid(
        &crate::fleet_apply::schema("plan.schema.json"),
        &plan,
        "plan",
    );
    jail_sh("pw usermod -n dave -c Later");
    let guarded = crate::live::ok(d, &["apply", "--plan", "plan.json", "--script", "box"]);
    let inside = w
        .bsd
        .exec_in_target("jexec -l box /bin/sh -s", &guarded, &[], "root");
    assert_eq!(inside.status, 3, "{}", inside.all());
    assert!(
        inside
            .stdout
            .contains("stale: the facts are not the plan's"),
        "{}",
        inside.all()
    );
    let r = run(d, &["apply", "--plan", "plan.json"]);
    assert_eq!(r.status, 2, "{}{}", r.stdout, r.stderr);
    assert_eq!(row(&r.stdout, HOST)[3], "ok", "{}", r.stdout);
    assert_eq!(row(&r.stdout, JAIL)[3], "stale", "{}", r.stdout);
    assert_eq!(jail_sh("pw usershow -n dave | cut -d: -f8"), "Later\n");

    // Selecting the jail alone: its part only, on its host's connection.
    let r = run(d, &["apply", "box", "--yes"]);
    assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);
    assert!(!r.stdout.contains(&format!("\n  {HOST} ")), "{}", r.stdout);
    assert_eq!(row(&r.stdout, JAIL)[3], "ok", "{}", r.stdout);
    let script = crate::live::ok(d, &["apply", "box", "--script"]);
    assert!(
        script.starts_with("#!/bin/sh") && !script.contains("jail_apply"),
        "a jail's own script"
    );
}

#[test]
fn a_jail_cannot_forge_its_hosts_lines_and_a_stopped_jail_is_started_again() {
    let test = "a_jail_cannot_forge_its_hosts_lines_and_a_stopped_jail_is_started_again";
    let Some((dir, w)) = jailed(test) else {
        return;
    };
    let d = dir.path();
    // The first apply makes the jail; the second finds all converged.
    let r = run(d, &["apply", "live", "--yes"]);
    assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);
    let r = run(d, &["apply", "live", "--yes"]);
    assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);
    let clean = row(&r.stdout, HOST);

    // The jail's root is hostile: its /bin/sh prints what the host's
    // script prints (a failure, a stale guard, the end of a jail, a summary)
    // before running the script, also on the host's own fds 3 and 4 if it
    // inherited them (the host's output, the jail's status). None of it
    // counts for the host.
    crate::live::sh(
        &w.bsd,
        "cd /jails/box/bin && mv sh sh.real && \
         printf '%s\\n' '#!/bin/sh.real' \
         \"printf '%s\\\\n' '! rc:forged FAILED: forged' 'stale: forged' 'jail: box.live.example.org exit 0' 'apply: 9 changed, 0 unchanged, 9 failed' '|live.example.org ~ forged'\" \
         \"{ printf '%s\\\\n' '! rc:forged3 FAILED: forged' >&3; printf '0\\\\n! rc:forged4 FAILED: forged\\\\n' >&4; } 2>/dev/null\" \
         'exec /bin/sh.real \"$@\"' > sh && chmod 755 sh",
    );
    let r = run(d, &["apply", "live", "--yes", "--format", "jsonl"]);
    let events: Vec<Value> = r
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let host = events
        .iter()
        .find(|e| e["type"] == "host" && e["host"] == HOST)
        .unwrap();
    assert_eq!(
        (
            host["status"].as_str(),
            host["changed"].as_u64(),
            host["failed"].as_u64()
        ),
        (Some("ok"), Some(0), Some(0)),
        "{}",
        r.stdout
    );
    assert_eq!(host["unchanged"].as_u64().unwrap().to_string(), clean[1]);
    // The forged lines are the jail's own (its report may lie about itself).
    assert!(events.iter().all(|e| {
        e["type"] != "step"
            || e["host"] == JAIL
            || !e["id"]
                .as_str()
                .is_some_and(|id| id.starts_with("rc:forged"))
    }));
    let jail = events
        .iter()
        .find(|e| e["type"] == "host" && e["host"] == JAIL)
        .unwrap();
    assert_eq!(jail["parent"], HOST);

    // The jail stopped: the host's `jail` step starts it again, and its
    // inside runs in the same apply (an absent jail, `jail: ID absent`, is
    // the unit test jail_apply_prefixes_lines_and_keeps_the_status_under_dash).
    crate::live::sh(
        &w.bsd,
        "mv /jails/box/bin/sh.real /jails/box/bin/sh && jail -f /etc/jail.conf.d/box.conf -r box",
    );
    let r = run(d, &["apply", "live", "--yes"]);
    assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains(&format!("{HOST}: ~ jail:box\n"))
            && r.stdout.contains(&format!("{HOST}: jail: {JAIL} exit 0\n")),
        "{}",
        r.stdout
    );
    assert_eq!(row(&r.stdout, JAIL)[3], "ok", "{}", r.stdout);
    drop(w);
}

/// A hostile jail prints a byte that is not UTF-8, a line of 100,000
/// bytes and a `stale:` reason full of escapes (a title, a bell, a clear
/// screen), then exits as a stale guard does: every later line still
/// arrives (the host's end line for the jail, its summary), the long line
/// is cut, and no escape reaches the terminal (the lines, the recap, the
/// diagnostic).
#[test]
fn a_jails_bytes_lose_no_later_line_and_its_escapes_are_shown() {
    let test = "a_jails_bytes_lose_no_later_line_and_its_escapes_are_shown";
    let Some((dir, w)) = jailed(test) else {
        return;
    };
    let d = dir.path();
    let r = run(d, &["apply", "live", "--yes"]);
    assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);
    crate::live::sh(&w.bsd, "mv /jails/box/bin/sh /jails/box/bin/sh.real");
    let sh = w.bsd.target().join("jails/box/bin/sh");
    fs::write(
        &sh,
        "#!/bin/sh.real\n\
         printf 'bad \\377 byte\\n'\n\
         i=0; while [ $i -lt 1000 ]; do printf '%0100d' 0; i=$((i + 1)); done; echo\n\
         printf 'stale: \\033]0;pwned\\007\\033[2J\\n'\n\
         exit 3\n",
    )
    .unwrap();
    crate::live::sh(&w.bsd, "chmod 755 /jails/box/bin/sh");
    let r = run(d, &["apply", "live", "--yes"]);
    // What a failure shows: each line's first 200 characters.
    let all: String = format!("{}{}", r.stdout, r.stderr)
        .lines()
        .map(|l| l.chars().take(200).collect::<String>() + "\n")
        .collect();
    assert_eq!(r.status, 2, "{all}");
    // The lines after the jail's bad byte arrive: its own, its host's end
    // line for it, the host's summary.
    assert!(
        r.stdout.contains(&format!("{JAIL}: bad \u{fffd} byte\n"))
            && r.stdout.contains(&format!("{HOST}: jail: {JAIL} exit 3\n"))
            && r.stdout.contains(&format!("{HOST}: apply: ")),
        "{all}"
    );
    // The long line (after its host's `|ID ` prefix): its first 64 KiB,
    // then what was cut.
    let cut = format!("|{JAIL} ").len() + 100_000 - 64 * 1024;
    assert!(
        r.stdout.contains(&format!("0… ({cut} bytes cut)\n")),
        "{all}"
    );
    assert_eq!(row(&r.stdout, HOST)[3], "ok", "{all}");
    assert_eq!(row(&r.stdout, JAIL)[3], "stale", "{all}");
    // No escape, no bell: shown as `\u{1b}`, in the recap and the
    // diagnostic alike.
    assert!(
        !format!("{}{}", r.stdout, r.stderr).contains(['\u{1b}', '\u{7}']),
        "{all:?}"
    );
    let shown = "\\u{1b}]0;pwned\\u{7}\\u{1b}[2J";
    assert!(
        r.stdout.contains(&format!("  {JAIL}: {shown}\n")) && r.stderr.contains(shown),
        "{all}"
    );
    // The JSON events read back the same reason.
    let r = run(d, &["apply", "live", "--yes", "--format", "jsonl"]);
    assert!(!r.stdout.contains(['\u{1b}', '\u{7}']), "{:?}", r.stdout);
    let jail: Value = r
        .stdout
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .find(|e| e["type"] == "host" && e["host"] == JAIL)
        .unwrap();
    assert_eq!(jail["status"], "stale", "{}", r.stdout);
    assert_eq!(jail["message"], shown, "{}", r.stdout);
    drop(w);
}
