//! Unit tests of how a host's script runs its jails (src/apply/script.rs,
//! `jail_apply`) and of how a connection's lines are split back into its
//! units (src/apply/recap.rs, `Demux`). The scripts run under dash (POSIX
//! sh, no pipefail) with `jls` and `jexec` as shell functions; the whole
//! thing runs on the fake FreeBSD in tests/integration/jails_live.rs.

use std::process::{Command, Output};

use super::Step;
use super::script::{JailScript, Options, Unit};
use crate::resource::{Want, keys};

/// Whether dash and the one true awk (FreeBSD's awk, usr.bin/awk:
/// contrib/one-true-awk) run here; a notice when they do not. Debian's
/// default awk, mawk, reads a pipe in blocks, so it would not see a jail's
/// end while a process the jail left behind holds the pipe.
fn dash(test: &str) -> bool {
    let ok = ["dash", "original-awk"].iter().all(|tool| {
        Command::new(tool)
            .args(["-c", ":"])
            .stdin(std::process::Stdio::null())
            .output()
            .is_ok()
    });
    if !ok {
        eprintln!("notice: {test} skipped: no dash or original-awk");
    }
    ok
}

fn jail<'a>(name: &'a str, id: &'a str, text: &'a str) -> JailScript<'a> {
    JailScript {
        name,
        id,
        text,
        dataset: None,
    }
}

/// The host script of `steps` and `jails`, `at_once` jails at a time,
/// with `stubs` defined first and each `(from, to)` of `edits` made once,
/// run by dash under `timeout 20` with `env`.
fn run(
    steps: &[Step],
    jails: &[JailScript<'_>],
    at_once: usize,
    stubs: &str,
    edits: &[(&str, &str)],
    env: &[(&str, &str)],
) -> Output {
    let unit = Unit {
        own: true,
        jails,
        at_once,
    };
    let script =
        super::script::script_unit("h.example.org", steps, Options { prune: false }, None, unit)
            .unwrap();
    let mut script = script.replacen("set -u\n", &format!("set -u\n{stubs}"), 1);
    for (from, to) in edits {
        assert!(script.contains(from), "no {from:?} in the script");
        script = script.replacen(from, to, 1);
    }
    // `awk` on the PATH the script sets is the one true awk.
    let bin = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(which("original-awk"), bin.path().join("awk")).unwrap();
    let script = script.replacen("\nPATH=", &format!("\nPATH={}:", bin.path().display()), 1);
    // A file: a script can be longer than an argument may be.
    let file = bin.path().join("script.sh");
    std::fs::write(&file, &script).unwrap();
    Command::new("timeout")
        .arg("20")
        .arg("dash")
        .arg(&file)
        .env("HOME", "/nonexistent")
        .envs(env.iter().copied())
        .output()
        .unwrap()
}

/// The full path of `tool` on PATH.
fn which(tool: &str) -> std::path::PathBuf {
    std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|d| d.join(tool))
        .find(|p| p.is_file())
        .unwrap_or_else(|| panic!("no {tool} on PATH"))
}

/// The stubs: a jail runs unless it is `gone`; `jexec -l NAME env VAR=V
/// /bin/sh -s` runs its standard input with VAR set.
const STUBS: &str = "jls() { [ \"$2\" != gone ]; }\n\
                     jexec() { shift 3; env \"$1\" dash -s; }\n";

/// The lines of the host's output about its jails.
fn jail_lines(out: &Output) -> Vec<String> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.starts_with('|') || l.starts_with("jail: "))
        .map(String::from)
        .collect()
}

fn shown(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Stops the process a jail left behind (its pid in the file `pid`; it
/// would end by itself), then checks that the host's script ended before
/// `timeout` stopped it.
fn stopped_in_time(out: &Output, pid: &std::path::Path) {
    if let Ok(p) = std::fs::read_to_string(pid) {
        let _ = Command::new("kill").arg(p.trim()).status();
    }
    assert_ne!(out.status.code(), Some(124), "timed out: {}", shown(out));
}

/// Every line the jail prints (stdout and stderr, the last one without its
/// newline) comes out prefixed `|ID `, the status is the jail's script's
/// (not awk's), a jail not running is `absent` in its place, a failed jail
/// does not stop the next one, a jail cannot write past the prefix on the
/// host's fds 3 and 4; the script ends with status 4.
#[test]
fn jail_apply_prefixes_lines_and_keeps_the_status_under_dash() {
    if !dash("jail_apply_prefixes_lines_and_keeps_the_status_under_dash") {
        return;
    }
    let jails = [
        jail(
            "a",
            "a.h.example.org",
            "echo one; echo 'jail: a.h.example.org exit 0'; printf 'err\\n' >&2; printf 'no newline'; exit 7",
        ),
        jail("gone", "gone.h.example.org", "echo never"),
        jail(
            "b",
            "b.h.example.org",
            "[ \"$BERYL_DRY_RUN\" = 1 ] && echo dry",
        ),
        // A hostile jail writes on the host's fds 3 and 4, had it
        // inherited them.
        jail(
            "c",
            "c.h.example.org",
            "{ echo '= forged3' >&3; printf '0\\n= forged4\\n' >&4; } 2>/dev/null; exit 5",
        ),
    ];
    for at_once in [1, 4] {
        let out = run(&[], &jails, at_once, STUBS, &[], &[("BERYL_DRY_RUN", "1")]);
        assert!(!shown(&out).contains("forged"), "{}", shown(&out));
        assert_eq!(
            jail_lines(&out),
            [
                "|a.h.example.org one",
                "|a.h.example.org jail: a.h.example.org exit 0",
                "|a.h.example.org err",
                "|a.h.example.org no newline",
                "jail: a.h.example.org exit 7",
                "jail: gone.h.example.org absent",
                "|b.h.example.org dry",
                "jail: b.h.example.org exit 0",
                "jail: c.h.example.org exit 5",
            ],
            "{}",
            shown(&out)
        );
        assert_eq!(
            out.status.code(),
            Some(super::script::JAILS_STATUS),
            "{}",
            shown(&out)
        );
    }
}

/// Jails run side by side, at most `at_once` of them: jail a waits (for at
/// most 2 s) for jail c to start, which it can only do when three run at
/// once; each jail's lines still come whole, in the jails' order; and with
/// two at once, no more than two ever ran together.
#[test]
fn jails_run_side_by_side_and_show_their_lines_in_order() {
    if !dash("jails_run_side_by_side_and_show_their_lines_in_order") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().display().to_string();
    // Each jail: a mark while it runs, the number of marks it saw.
    let body = |name: &str, wait: &str| {
        format!(
            "touch {d}/{name}.run; ls {d} | grep -c '[.]run$' > {d}/{name}.seen\n\
             {wait}echo {name} one; sleep 0.2; echo {name} two; rm {d}/{name}.run"
        )
    };
    let wait_c = format!(
        "i=0; while [ ! -e {d}/c.seen ] && [ $i -lt 40 ]; do sleep 0.05; i=$((i+1)); done\n\
         [ -e {d}/c.seen ] && echo 'a saw c' || echo 'a did not see c'\n"
    );
    let (a, b, c) = (body("a", &wait_c), body("b", ""), body("c", ""));
    let jails = [
        jail("a", "a.h", &a),
        jail("b", "b.h", &b),
        jail("c", "c.h", &c),
    ];
    let lines = |saw: &str| {
        vec![
            format!("|a.h {saw}"),
            "|a.h a one".into(),
            "|a.h a two".into(),
            "jail: a.h exit 0".into(),
            "|b.h b one".into(),
            "|b.h b two".into(),
            "jail: b.h exit 0".into(),
            "|c.h c one".into(),
            "|c.h c two".into(),
            "jail: c.h exit 0".into(),
        ]
    };
    let out = run(&[], &jails, 3, STUBS, &[], &[]);
    assert_eq!(jail_lines(&out), lines("a saw c"), "{}", shown(&out));
    assert_eq!(out.status.code(), Some(0), "{}", shown(&out));
    for f in ["a", "b", "c"] {
        std::fs::remove_file(tmp.path().join(format!("{f}.seen"))).unwrap();
    }
    let out = run(&[], &jails, 2, STUBS, &[], &[]);
    assert_eq!(
        jail_lines(&out),
        lines("a did not see c"),
        "{}",
        shown(&out)
    );
    for f in ["a", "b", "c"] {
        let seen = std::fs::read_to_string(tmp.path().join(format!("{f}.seen"))).unwrap();
        let n: usize = seen.trim().parse().unwrap();
        assert!((1..=2).contains(&n), "{f} saw {n} jails running");
    }
}

/// A process a jail's script leaves behind holding its output (a daemon
/// that kept its standard output) does not hold the host's apply: the
/// jail's lines end where its script ended, and what the process writes
/// later is not shown. The jail's spool is gone at the end.
#[test]
fn a_process_left_holding_a_jails_output_does_not_hold_the_apply() {
    if !dash("a_process_left_holding_a_jails_output_does_not_hold_the_apply") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let pid = tmp.path().join("pid");
    let text = format!(
        "echo started; {{ sleep 3; echo late; sleep 30; }} & echo $! > '{}'; printf 'last'",
        pid.display()
    );
    let jails = [jail("a", "a.h", &text), jail("b", "b.h", "echo b")];
    let spool = tmp.path().join("spool");
    std::fs::create_dir(&spool).unwrap();
    let out = run(
        &[],
        &jails,
        4,
        STUBS,
        &[],
        &[("TMPDIR", &spool.display().to_string())],
    );
    stopped_in_time(&out, &pid);
    assert_eq!(
        jail_lines(&out),
        [
            "|a.h started",
            "|a.h last",
            "jail: a.h exit 0",
            "|b.h b",
            "jail: b.h exit 0"
        ],
        "{}",
        shown(&out)
    );
    assert_eq!(out.status.code(), Some(0), "{}", shown(&out));
    assert_eq!(std::fs::read_dir(&spool).unwrap().count(), 0, "spool left");
}

/// A jail's last bytes cannot hide the mark: after a NUL (which ends the
/// one true awk's record) the mark still starts a record of its own, so a
/// process left holding the output does not hold the apply; empty lines
/// are the jail's own, and the newline the host writes before the mark
/// adds none.
#[test]
fn a_nul_or_an_empty_last_line_does_not_hide_the_mark() {
    if !dash("a_nul_or_an_empty_last_line_does_not_hide_the_mark") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let pid = tmp.path().join("pid");
    let text = format!(
        "{{ sleep 5; echo late; }} & echo $! > '{}'; printf 'x\\000'",
        pid.display()
    );
    let jails = [
        jail("a", "a.h", &text),
        jail("b", "b.h", "printf 'a\\n\\nb\\n\\n'"),
        jail("c", "c.h", "printf 'no newline'"),
    ];
    let out = run(&[], &jails, 4, STUBS, &[], &[]);
    stopped_in_time(&out, &pid);
    assert_eq!(
        jail_lines(&out),
        [
            "|a.h x",
            "jail: a.h exit 0",
            "|b.h a",
            "|b.h ",
            "|b.h b",
            "|b.h ",
            "jail: b.h exit 0",
            "|c.h no newline",
            "jail: c.h exit 0",
        ],
        "{}",
        shown(&out)
    );
}

/// A jail's sh that reads none of its script and leaves a process holding
/// its standard input cannot stop the host writing the script (a pipe's
/// buffer is 16 to 64 KiB on FreeBSD, a jail's script more): the script is
/// a file the jail reads.
#[test]
fn a_jail_that_holds_its_input_unread_does_not_hold_the_apply() {
    if !dash("a_jail_that_holds_its_input_unread_does_not_hold_the_apply") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let pid = tmp.path().join("pid");
    // jexec stands for a hostile /bin/sh in the jail.
    let stubs = format!(
        "jls() {{ :; }}\n\
         jexec() {{ sleep 30 <&0 >/dev/null 2>&1 & echo $! > '{}'; echo held; }}\n",
        pid.display()
    );
    let big = format!("# {}\necho never", "x".repeat(300_000));
    let jails = [jail("a", "a.h", &big), jail("b", "b.h", "echo b")];
    let out = run(&[], &jails, 4, &stubs, &[], &[]);
    stopped_in_time(&out, &pid);
    assert_eq!(
        jail_lines(&out),
        [
            "|a.h held",
            "jail: a.h exit 0",
            "|b.h held",
            "jail: b.h exit 0"
        ],
        "{}",
        shown(&out)
    );
}

/// What a jail prints is shown up to `jails_cap` bytes, then one host line
/// says it was cut, and the jail's script still runs to its end; a line
/// that would take awk past `jails_vmem` KiB of memory ends the reading,
/// and the jail's end is `exit 255`, not a hang or the host's memory.
#[test]
fn a_jails_output_is_cut_and_its_memory_bounded() {
    if !dash("a_jails_output_is_cut_and_its_memory_bounded") {
        return;
    }
    let text = "i=0; while [ $i -lt 10 ]; do echo 0123456789; i=$((i+1)); done; exit 3";
    let jails = [jail("a", "a.h", text), jail("b", "b.h", "echo b")];
    let out = run(
        &[],
        &jails,
        4,
        STUBS,
        &[("jails_cap=16777216", "jails_cap=40")],
        &[],
    );
    // Each line counts its prefix `|a.h ` and its newline: 16 bytes.
    assert_eq!(
        jail_lines(&out),
        [
            "|a.h 0123456789",
            "|a.h 0123456789",
            "jail: a.h output cut after 40 bytes",
            "jail: a.h exit 3",
            "|b.h b",
            "jail: b.h exit 0"
        ],
        "{}",
        shown(&out)
    );
    // 64 MiB without a newline against 32 MiB of memory.
    let text = "head -c 67108864 /dev/zero | tr '\\0' x; echo; echo after";
    let jails = [jail("a", "a.h", text), jail("b", "b.h", "echo b")];
    let out = run(
        &[],
        &jails,
        4,
        STUBS,
        &[("jails_vmem=262144", "jails_vmem=32768")],
        &[],
    );
    assert_ne!(out.status.code(), Some(124), "timed out: {}", shown(&out));
    assert_eq!(
        jail_lines(&out),
        ["jail: a.h exit 255", "|b.h b", "jail: b.h exit 0"],
        "{}",
        shown(&out)
    );
}

/// A host row of a jail that fails stops that jail only (review finding:
/// one hostile jail could stop its host's whole apply): the host's later
/// steps and its other jails run, the jail's later rows and its inside
/// script do not (`jail: ID not run`), and the script ends with status 1.
#[test]
fn a_failed_row_of_a_jail_stops_that_jail_not_its_host() {
    if !dash("a_failed_row_of_a_jail_stops_that_jail_not_its_host") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let mark = tmp.path().join("x");
    let row = |id: &str, check: String, change: &str| {
        let mut s = Step::new(
            Want::Keys(keys::Want {
                user: "alice".into(),
                group: "staff".into(),
                content: "k".into(),
            }),
            None,
        )
        .unwrap();
        (s.id, s.check, s.change) = (id.into(), check, change.into());
        s
    };
    let steps = [
        row("jail_conf:a", "false".into(), "echo refused >&2; false"),
        row("jail:a", "false".into(), "true"),
        row(
            "pkg:x",
            format!("[ -e '{}' ]", mark.display()),
            &format!("touch '{}'", mark.display()),
        ),
        row("jail:b", ":".into(), "true"),
    ];
    let jails = [
        JailScript {
            dataset: Some("zroot/jails/a"),
            ..jail("a", "a.h.example.org", "echo inside a")
        },
        JailScript {
            dataset: Some("zroot/jails/b"),
            ..jail("b", "b.h.example.org", "echo inside b")
        },
    ];
    let stubs = "jls() { :; }\njexec() { shift 3; env \"$1\" dash -s; }\nsave_record() { :; }\n";
    let out = run(
        &steps,
        &jails,
        4,
        stubs,
        &[("\nsave_record() {", "\nsave_record_unused() {")],
        &[],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with(['!', '~', '=', '|']) || l.starts_with("jail: "))
        .collect();
    assert_eq!(
        lines,
        [
            "! jail_conf:a FAILED: the change exited 1",
            "! jail:a FAILED: not run: an earlier step for jail a failed",
            "~ pkg:x",
            "= jail:b",
            "jail: a.h.example.org not run",
            "|b.h.example.org inside b",
            "jail: b.h.example.org exit 0",
        ],
        "{}",
        shown(&out)
    );
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    let mut d = super::recap::Demux::new("h.example.org", &["a.h.example.org", "b.h.example.org"]);
    for l in stdout.lines() {
        d.read(l);
    }
    d.finish(Ok(1));
    assert_eq!(d.units[1].status, super::recap::Status::Failed);
    assert!(
        d.units[1]
            .message
            .as_deref()
            .unwrap_or("")
            .starts_with("not run: its host did not run it (a step that makes or runs it failed"),
        "{:?}",
        d.units[1].message
    );
    assert_eq!(d.units[2].status, super::recap::Status::Ok);
}

/// A connection's lines split into units: a jail's prefixed lines are its
/// own (a forged host line among them too), the host's `jail:` line ends
/// it, and a line naming no running jail is the host's.
#[test]
fn demux_gives_each_unit_its_lines() {
    use super::recap::{Demux, Status};
    let mut d = Demux::new("h", &["a.h", "b.h"]);
    for line in [
        "apply h",
        "= pkg",
        "|a.h apply a.h",
        "|a.h ~ user:dave",
        "|a.h ! rc:forged FAILED: forged",
        "|a.h jail: b.h exit 0",
        "jail: a.h exit 0",
        // After its end, a jail's prefix is no longer its own.
        "|a.h ~ late",
        "|b.h stale: the facts changed",
        "jail: b.h exit 3",
        "|c.h ~ nobody",
        "apply: 0 changed, 1 unchanged, 0 failed",
    ] {
        d.read(line);
    }
    d.finish(Ok(super::script::JAILS_STATUS));
    let got: Vec<(&str, Status, usize, usize, usize)> = d
        .units
        .iter()
        .map(|u| (u.host.as_str(), u.status, u.changed, u.unchanged, u.failed))
        .collect();
    assert_eq!(
        got,
        [
            ("h", Status::Ok, 0, 1, 0),
            ("a.h", Status::Ok, 1, 0, 1),
            ("b.h", Status::Stale, 0, 0, 0),
        ]
    );
    assert_eq!(d.units[2].message.as_deref(), Some("the facts changed"));
    assert_eq!(d.units[1].parent.as_deref(), Some("h"));

    // Unreachable: every unit; a host that stopped: its jails not run.
    let mut d = Demux::new("h", &["a.h"]);
    d.finish(Err((Status::Unreachable, "ssh: no route".into())));
    assert!(d.units.iter().all(|u| u.status == Status::Unreachable));
    assert_eq!(d.units[0].message.as_deref(), Some("ssh: no route"));
    assert_eq!(
        d.units[1].message.as_deref(),
        Some("not run: its host is unreachable: ssh: no route")
    );
    let mut d = Demux::new("h", &["a.h"]);
    d.read("jail: a.h absent");
    d.finish(Ok(1));
    assert_eq!(
        (d.units[0].status, d.units[1].status),
        (Status::Failed, Status::Absent)
    );
}
