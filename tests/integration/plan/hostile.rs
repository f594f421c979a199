//! Hostile values: each string of [`values`] put into each field of
//! [`fields`], on the fixture tests/fixtures/plan (host h1.example.org).
//!
//! For each (field, value), `beryl plan h1` must either
//! - exit 2 with a diagnostic located in the file that holds the value
//!   (`inventory/example.org/h1.yml:LINE:COL`), or
//! - exit 0 with a file that passes the static checks and whose preamble and
//!   setup script, run under the stubs, do exactly what the same plan does
//!   with a harmless marker in that field, the marker replaced by the value:
//!   the same calls with the same number of arguments, the value verbatim
//!   inside the very argument (or file line) where the marker stood, and the
//!   same files. In particular the value is exactly one argument of its
//!   command (or one line of its file), and no piece of it is an argument.
//!
//! A value starting with `--` in a list that the merge reads knockouts from
//! may also be dropped by the merge (docs/merge.md): then it must reach
//! nothing. In every case the MARK file that the values try to create must
//! not exist afterwards. The counts per field are printed (run with
//! `--nocapture`) and written to target/tmp/plan-hostile.md.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};

use super::exec::scratch_root;
use super::stubs::{Call, Entry, Exec, Stubs, tree};
use super::{args, split};
use crate::harness::{copy_tree, repo};

/// The key that the key-comment field puts its value after.
const KEY: &str =
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFdr4s9lPxsN06slCSu+6S9Y71f/Upa98Poqs2K8Tnui";

/// A hostile string: its label in the table, the string the YAML carries,
/// and the string beryl should make of it (they differ only for an escaped
/// reference, `\${x}`, which is the literal text `${x}`).
struct Hostile {
    label: &'static str,
    yaml: String,
    reaches: String,
}

fn values(mark: &str) -> Vec<Hostile> {
    let v = |label, s: String| Hostile {
        label,
        reaches: s.clone(),
        yaml: s,
    };
    vec![
        v("$(touch MARK)", format!("$(touch {mark})")),
        v("`touch MARK`", format!("`touch {mark}`")),
        v("\"$(touch MARK)\"", format!("\"$(touch {mark})\"")),
        v("'; touch MARK; '", format!("'; touch {mark}; '")),
        v("'", "'".into()),
        v("\"", "\"".into()),
        v(";", ";".into()),
        v("a;touch MARK", format!("a;touch {mark}")),
        v("newline", format!("a\ntouch {mark}")),
        v("CR", format!("a\rtouch {mark}")),
        v("&&", format!("a && touch {mark}")),
        v("||", format!("a || touch {mark}")),
        v("|", format!("a | touch {mark}")),
        v(">", format!("a > {mark}")),
        v("*", "*".into()),
        v("?", "?".into()),
        v("[a]", "[a]".into()),
        v("-x", "-x".into()),
        v("--", "--".into()),
        v("../", "../".into()),
        v("..", "..".into()),
        v(".", ".".into()),
        v("~", "~".into()),
        v("$HOME", "$HOME".into()),
        v("${x}", "${x}".into()),
        Hostile {
            label: "\\${x}",
            yaml: "\\${x}".into(),
            reaches: "${x}".into(),
        },
        v("NUL", "a\0b".into()),
        v("tab", "a\tb".into()),
        v("DEL", "a\u{7f}b".into()),
        v("ESC", "a\u{1b}[2Jb".into()),
        v("é", "é".into()),
        v("✓", "✓".into()),
        v("RTL mark", "a\u{200f}b".into()),
        v(
            "long (10 kB)",
            format!("{} $(touch {mark})", "long".repeat(2500)),
        ),
        v("%s", "%s%n".into()),
        v("\\", "\\".into()),
        v("!", "!".into()),
        v("space", "a b".into()),
        v("#", "#x".into()),
        v("=", "a=b".into()),
        // pw splits -G at commas (a group list), chown at the colon.
        v(",", "a,wheel".into()),
        v(":", "a:wheel".into()),
        v("empty", String::new()),
    ]
}

/// Where a value must land when accepted.
enum Expect {
    /// Exactly one argument of one call `cmd argv[0]=sub …` is this.
    Arg(&'static str, &'static str, fn(&str) -> String),
    /// The file under the root holds this as exactly one line.
    Line(&'static str, fn(&str) -> String),
    /// The preamble exports this variable with this value.
    Export(&'static str, fn(&str) -> String),
}

struct Field {
    name: &'static str,
    /// The host file h1.yml with the value in this field.
    host: fn(&str) -> Value,
    /// A harmless value for the baseline run.
    marker: &'static str,
    /// How a value shows in the outputs (the key comment is trimmed).
    shows: fn(&str) -> String,
    expect: Expect,
    /// A list the merge reads `--` knockouts from.
    knockouts: bool,
}

fn same(v: &str) -> String {
    v.to_string()
}

fn key_comment(v: &str) -> String {
    let v = v.trim();
    if v.is_empty() {
        String::new()
    } else {
        format!(" {v}")
    }
}

fn user(fields: Value) -> Value {
    let mut u = json!({"name": "alice"});
    u.as_object_mut()
        .unwrap()
        .extend(fields.as_object().unwrap().clone());
    json!({"freebsd": {"users": [u]}})
}

fn fields() -> Vec<Field> {
    let f = |name, host, marker, expect| Field {
        name,
        host,
        marker,
        shows: same,
        expect,
        knockouts: false,
    };
    vec![
        Field {
            knockouts: true,
            ..f(
                "users[].name",
                |v| json!({"freebsd": {"users": [{"name": v, "shell": "/bin/sh"}]}}),
                "zzmarkzz",
                Expect::Arg("pw", "useradd", same),
            )
        },
        f(
            "users[].comment",
            |v| user(json!({"comment": v})),
            "zzmarkzz",
            Expect::Arg("pw", "useradd", same),
        ),
        f(
            "users[].shell",
            |v| user(json!({"shell": v})),
            "/bin/tcsh",
            Expect::Arg("pw", "useradd", same),
        ),
        f(
            "users[].primary_group",
            |v| user(json!({"primary_group": v})),
            "zzmarkzz",
            Expect::Arg("pw", "useradd", same),
        ),
        f(
            "users[].groups[]",
            |v| user(json!({"groups": [v]})),
            "zzmarkzz",
            Expect::Arg("pw", "groupadd", same),
        ),
        Field {
            shows: key_comment,
            ..f(
                "users[].ssh_keys[] comment",
                |v| user(json!({"ssh_keys": [format!("{KEY} {v}")]})),
                "zzmarkzz",
                Expect::Line("home/alice/.ssh/authorized_keys", |v| format!("{KEY}{v}")),
            )
        },
        f(
            "users[].ssh_keys[] command=\"…\"",
            |v| user(json!({"ssh_keys": [format!("command=\"{v}\" {KEY} opt@fixture")]})),
            "zzmarkzz",
            Expect::Line("home/alice/.ssh/authorized_keys", |v| {
                format!("command=\"{v}\" {KEY} opt@fixture")
            }),
        ),
        Field {
            knockouts: true,
            ..f(
                "packages[]",
                |v| json!({"freebsd": {"packages": [v]}}),
                "zzmarkzz",
                Expect::Arg("pkg", "install", same),
            )
        },
        Field {
            knockouts: true,
            ..f(
                "sudoers[]",
                |v| json!({"freebsd": {"packages": ["sudo"], "sudoers": [v]}}),
                "zzmarkzz",
                Expect::Line("usr/local/etc/sudoers.d/beryl", same),
            )
        },
        f(
            "rc_conf value",
            |v| json!({"freebsd": {"rc_conf": {"ntpd_flags": v}}}),
            "zzmarkzz",
            Expect::Arg("sysrc", "-f", |v| format!("ntpd_flags={v}")),
        ),
        f(
            "rc_conf name",
            |v| json!({"freebsd": {"rc_conf": {v: "YES"}}}),
            "zzmarkzz",
            Expect::Arg("sysrc", "-f", |v| format!("{v}=YES")),
        ),
        f(
            "hostname",
            |v| json!({"freebsd": {"hostname": v}}),
            "zzmarkzz",
            Expect::Arg("sysrc", "-f", |v| format!("hostname={v}")),
        ),
        f(
            "timezone",
            |v| json!({"freebsd": {"timezone": v}}),
            "Asia/Kathmandu",
            Expect::Arg("tzsetup", "-s", same),
        ),
        f(
            "disks[]",
            |v| json!({"freebsd": {"disks": [v]}}),
            "ada7",
            Expect::Export("ZFSBOOT_DISKS", same),
        ),
        f(
            "pool",
            |v| json!({"freebsd": {"pool": v}}),
            "zzmarkzz",
            Expect::Export("ZFSBOOT_POOL_NAME", same),
        ),
        f(
            "swap",
            |v| json!({"freebsd": {"swap": v}}),
            "7g",
            Expect::Export("ZFSBOOT_SWAP_SIZE", same),
        ),
        f(
            "network interface name",
            // With a package, so that the installer brings the interface up.
            |v| {
                json!({"freebsd": {"packages": ["sudo"],
                    "network": {"interfaces": {v: {"ipv4": "dhcp"}}}}})
            },
            "zzmarkzz0",
            Expect::Arg("dhclient", "", same),
        ),
        f(
            "network ipv4 address",
            |v| json!({"freebsd": {"network": {"interfaces": {"vtnet0": {"ipv4": v}}}}}),
            "192.0.2.79/24",
            Expect::Arg("sysrc", "-f", |v| format!("ifconfig_vtnet0=inet {v}")),
        ),
        f(
            "network nameservers[]",
            |v| json!({"freebsd": {"network": {"nameservers": [v]}}}),
            "192.0.2.77",
            Expect::Line("etc/resolv.conf", |v| format!("nameserver {v}")),
        ),
        f(
            "network defaultrouter",
            |v| json!({"freebsd": {"network": {"defaultrouter": v}}}),
            "192.0.2.78",
            Expect::Arg("sysrc", "-f", |v| format!("defaultrouter={v}")),
        ),
        f(
            "sshd permit_root_login",
            |v| json!({"freebsd": {"sshd": {"permit_root_login": v}}}),
            "prohibit-password",
            Expect::Line("etc/ssh/sshd_config", |v| format!("PermitRootLogin {v}")),
        ),
    ]
}

/// The host file as block YAML, every string double-quoted with escapes, so
/// that the YAML carries exactly the value: `\\`, `"`, and every character
/// YAML does not allow raw (controls, DEL, C1, line and paragraph separators,
/// the BOM) escaped. Keys longer than YAML's 1024-character limit for
/// implicit keys are written as explicit `? key` entries.
fn to_yaml(v: &Value) -> String {
    let mut out = String::new();
    emit(v, 0, &mut out);
    out
}

fn quoted(s: &str) -> String {
    let mut q = String::from("\"");
    for c in s.chars() {
        match c {
            '\\' => q.push_str("\\\\"),
            '"' => q.push_str("\\\""),
            '\t' => q.push_str("\\t"),
            '\n' => q.push_str("\\n"),
            '\r' => q.push_str("\\r"),
            ' '..='~' => q.push(c),
            '\u{a0}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..
                if !matches!(c, '\u{2028}' | '\u{2029}' | '\u{feff}') =>
            {
                q.push(c)
            }
            _ => write!(q, "\\u{:04x}", c as u32).unwrap(),
        }
    }
    q.push('"');
    q
}

fn emit(v: &Value, indent: usize, out: &mut String) {
    let pad = " ".repeat(indent);
    let scalar = |v: &Value| match v {
        Value::String(s) => Some(quoted(s)),
        Value::Array(a) if a.is_empty() => Some("[]".into()),
        Value::Object(o) if o.is_empty() => Some("{}".into()),
        Value::Array(_) | Value::Object(_) => None,
        other => Some(other.to_string()),
    };
    match v {
        Value::Object(map) => {
            for (k, val) in map {
                let key = quoted(k);
                if key.len() > 1000 {
                    writeln!(out, "{pad}? {key}").unwrap();
                    out.push_str(&pad);
                } else {
                    out.push_str(&pad);
                    out.push_str(&key);
                }
                match scalar(val) {
                    Some(s) => writeln!(out, ": {s}").unwrap(),
                    None => {
                        out.push_str(":\n");
                        emit(val, indent + 2, out);
                    }
                }
            }
        }
        Value::Array(items) => {
            for item in items {
                match scalar(item) {
                    Some(s) => writeln!(out, "{pad}- {s}").unwrap(),
                    None => {
                        writeln!(out, "{pad}-").unwrap();
                        emit(item, indent + 2, out);
                    }
                }
            }
        }
        other => writeln!(out, "{pad}{}", scalar(other).unwrap()).unwrap(),
    }
}

/// One run of beryl, its output untouched (harness::beryl rewrites the
/// temporary directory's path in the output, and hostile values hold it).
struct Raw {
    status: i32,
    stdout: String,
    stderr: String,
}

fn beryl_raw(dir: &Path, args: &[String]) -> Raw {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_beryl"))
        .args(["--color", "never"])
        .args(args)
        .current_dir(dir)
        .env_remove("BERYL_INVENTORY")
        .env_remove("BERYL_SSH_DIR")
        .env("NO_COLOR", "1")
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run beryl");
    Raw {
        status: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8(out.stdout).expect("the plan is UTF-8"),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// What one run of one (field, value) gave.
struct Ran {
    status: i32,
    stderr: String,
    text: String,
    preamble: Option<(Exec, BTreeMap<String, String>)>,
    setup: Option<Exec>,
    tree: BTreeMap<String, Entry>,
    root: String,
}

/// Builds the inventory in `dir` with `host` as h1.yml, runs `beryl plan
/// h1`, and on success runs the setup script (and the preamble, unless it is
/// `skip_preamble`) under the stubs.
fn run(stubs: &Stubs, dir: &Path, host: &Value, skip_preamble: Option<&str>) -> Ran {
    copy_tree(&repo().join("tests/fixtures/plan"), dir);
    let yaml = to_yaml(host);
    // The YAML carries exactly the value.
    if !yaml.is_empty() {
        let back: Value = serde_saphyr::from_str(&yaml).unwrap_or_else(|e| panic!("{e}\n{yaml}"));
        assert_eq!(&back, host, "the YAML does not carry the value:\n{yaml}");
    }
    std::fs::write(dir.join("inventory/example.org/h1.yml"), yaml).unwrap();
    let r = beryl_raw(dir, &args(&["plan", "h1"]));
    let root = scratch_root(dir);
    let mut ran = Ran {
        status: r.status,
        stderr: r.stderr,
        text: r.stdout,
        preamble: None,
        setup: None,
        tree: BTreeMap::new(),
        root: root.display().to_string(),
    };
    if ran.status != 0 {
        return ran;
    }
    let (preamble, setup) = split(&ran.text);
    if skip_preamble != Some(preamble) && !preamble.contains("/etc/resolv.conf") {
        ran.preamble = Some(stubs.run_preamble(preamble, dir, &root));
    }
    ran.setup = Some(stubs.run_setup(setup, dir, &root));
    ran.tree = tree(&root);
    ran
}

/// A case's outcome and, unless refused, the generated file; or what went wrong.
type Checked = Result<(Outcome, Option<String>), String>;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Outcome {
    Refused,
    Accepted,
    Dropped,
}

struct Baseline {
    preamble_text: String,
    preamble: Option<(Exec, BTreeMap<String, String>)>,
    setup: Exec,
    tree: BTreeMap<String, Entry>,
    root: String,
}

/// Checks one case; returns its outcome, or what went wrong.
fn check(
    stubs: &Stubs,
    field: &Field,
    base: &Baseline,
    dir: &Path,
    mark: &Path,
    value: &Hostile,
) -> Checked {
    let host = (field.host)(&value.yaml);
    let ran = run(stubs, dir, &host, Some(&base.preamble_text));
    if mark.exists() {
        return Err("MARK was created".into());
    }
    let located = regex::Regex::new(r"inventory/example\.org/h1\.yml:\d+:\d+").unwrap();
    match ran.status {
        2 if located.is_match(&ran.stderr) && ran.text.is_empty() => {
            return Ok((Outcome::Refused, None));
        }
        0 => {}
        s => return Err(format!("exit {s} without a located error:\n{}", ran.stderr)),
    }
    let setup = ran.setup.as_ref().unwrap();
    if setup.status != 0 || !setup.stderr.is_empty() {
        return Err(format!(
            "the setup script failed ({}):\n{}\n{}",
            setup.status, setup.stderr, ran.text
        ));
    }
    let shown = (field.shows)(&value.reaches);
    let from = (field.shows)(field.marker);
    // The baseline, with the marker replaced by the value and its root by
    // this one (the root set aside first: a marker could be part of it).
    let subst = |s: &str| {
        s.replace(&base.root, "\0ROOT\0")
            .replace(&from, &shown)
            .replace("\0ROOT\0", &ran.root)
    };
    let plain = |s: &str| s.replace(&base.root, &ran.root);
    let calls = |e: &Exec, f: &dyn Fn(&str) -> String| -> Vec<Call> {
        e.calls.iter().map(|c| c.map(f)).collect()
    };
    // The preamble is run only when it differs from the baseline's; when
    // it does not, its calls are the baseline's.
    let mut got: Vec<Call> = match &ran.preamble {
        Some((e, _)) => e.calls.clone(),
        None => base
            .preamble
            .iter()
            .flat_map(|(e, _)| calls(e, &plain))
            .collect(),
    };
    got.extend(setup.calls.iter().cloned());
    let elements: Vec<&String> = got.iter().flat_map(|c| &c.argv).collect();

    let dropped = field.knockouts && value.reaches.starts_with("--");
    if dropped {
        // Dropped by the merge: the value reaches nothing.
        let found = elements.iter().any(|e| e.contains(&shown))
            || ran.tree.values().any(|e| match e {
                Entry::File(_, t) => t.lines().any(|l| l == shown),
                _ => false,
            });
        if found {
            return Err(format!(
                "a knocked-out value reached the script:\n{}",
                ran.text
            ));
        }
        return Ok((Outcome::Dropped, Some(ran.text)));
    }

    let mut problems = Vec::new();
    // The same calls as the baseline's, the marker replaced.
    let mut want: Vec<Call> = base
        .preamble
        .iter()
        .flat_map(|(e, _)| calls(e, &subst))
        .collect();
    want.extend(calls(&base.setup, &subst));
    if got != want {
        problems.push(format!(
            "the calls differ from the baseline's with the marker replaced:\n  got  {got:?}\n  want {want:?}"
        ));
    }
    if setup.stdout != subst(&base.setup.stdout) {
        problems.push(format!("the output differs: {:?}", setup.stdout));
    }
    let want_tree: BTreeMap<String, Entry> = base
        .tree
        .iter()
        .map(|(p, e)| {
            let e = match e {
                Entry::File(m, t) => Entry::File(*m, subst(t)),
                other => other.clone(),
            };
            (subst(p), e)
        })
        .collect();
    if ran.tree != want_tree {
        problems.push(format!(
            "the files differ from the baseline's with the marker replaced:\n  got  {:?}\n  want {:?}",
            ran.tree.keys().collect::<Vec<_>>(),
            want_tree.keys().collect::<Vec<_>>()
        ));
    }
    if let (Some((_, env)), Some((_, base_env))) = (&ran.preamble, &base.preamble) {
        let want: BTreeMap<String, String> = base_env
            .iter()
            .map(|(k, v)| (k.clone(), subst(v)))
            .collect();
        if env != &want {
            problems.push(format!("the exports differ: {env:?} vs {want:?}"));
        }
    }
    // Where it must land: exactly once.
    match &field.expect {
        Expect::Arg(cmd, sub, f) => {
            let element = f(&shown);
            let n: usize = got
                .iter()
                .filter(|c| {
                    c.cmd == *cmd && (sub.is_empty() || c.argv.first().is_some_and(|a| a == sub))
                })
                .map(|c| c.argv.iter().filter(|a| **a == element).count())
                .sum();
            if n != 1 {
                problems.push(format!(
                    "{element:?} is {n} arguments of `{cmd} {sub}`, not 1"
                ));
            }
        }
        Expect::Line(file, f) => {
            let line = f(&shown);
            let n = match ran.tree.get(*file) {
                Some(Entry::File(_, t)) => t.lines().filter(|l| *l == line).count(),
                _ => 0,
            };
            if n != 1 {
                problems.push(format!("{file} holds {line:?} {n} times, not once"));
            }
        }
        Expect::Export(var, f) => {
            let value = f(&shown);
            match &ran.preamble {
                Some((_, env)) if env.get(*var) == Some(&value) => {}
                _ => problems.push(format!("{var} is not exported as {value:?}")),
            }
        }
    }
    // No piece of the value, split as a shell would, is an argument that the
    // baseline does not have.
    let base_elements: Vec<String> = base
        .preamble
        .iter()
        .flat_map(|(e, _)| &e.calls)
        .chain(&base.setup.calls)
        .flat_map(|c| c.argv.iter().map(|a| plain(a)))
        .collect();
    for piece in shown.split(|c: char| " \t\n;&|<>()`'\"$".contains(c)) {
        if !piece.is_empty()
            && piece != shown
            && elements.contains(&&piece.to_string())
            && !base_elements.iter().any(|b| b == piece)
        {
            problems.push(format!("the piece {piece:?} is an argument of its own"));
        }
    }
    if problems.is_empty() {
        Ok((Outcome::Accepted, Some(ran.text)))
    } else {
        Err(format!("{}\n{}", problems.join("\n"), ran.text))
    }
}

#[test]
fn hostile_values_are_refused_or_reach_one_argument() {
    let Some(stubs) = Stubs::new() else {
        return;
    };
    let fields = fields();
    // The fixture alone holds none of the markers, so that in a baseline
    // every marker comes from its field.
    let dir = tempfile::tempdir().unwrap();
    let plain = run(&stubs, dir.path(), &json!({}), None);
    assert_eq!(plain.status, 0, "{}", plain.stderr);
    for f in &fields {
        assert!(
            !plain.text.contains((f.shows)(f.marker).as_str()),
            "{}: the marker {:?} is already in the fixture's plan",
            f.name,
            f.marker
        );
    }
    // The baselines: each field with its marker.
    let baselines: Vec<Baseline> = fields
        .iter()
        .map(|f| {
            let dir = tempfile::tempdir().unwrap();
            let ran = run(&stubs, dir.path(), &(f.host)(f.marker), None);
            assert_eq!(ran.status, 0, "{} baseline: {}", f.name, ran.stderr);
            let setup = ran.setup.unwrap();
            assert_eq!(setup.status, 0, "{} baseline: {}", f.name, setup.stderr);
            let (preamble, _) = split(&ran.text);
            let base = Baseline {
                preamble_text: preamble.to_string(),
                preamble: ran.preamble,
                setup,
                tree: ran.tree,
                root: ran.root,
            };
            // The marker reaches where the field says.
            let shown = (f.shows)(f.marker);
            let ok = match &f.expect {
                Expect::Arg(cmd, _, g) => base
                    .setup
                    .calls
                    .iter()
                    .chain(base.preamble.iter().flat_map(|(e, _)| &e.calls))
                    .any(|c| c.cmd == *cmd && c.argv.contains(&g(&shown))),
                Expect::Line(file, g) => matches!(base.tree.get(*file),
                    Some(Entry::File(_, t)) if t.lines().any(|l| l == g(&shown))),
                Expect::Export(var, g) => base
                    .preamble
                    .as_ref()
                    .is_some_and(|(_, env)| env.get(*var) == Some(&g(&shown))),
            };
            assert!(
                ok,
                "{}: the marker does not reach its place:\n{}",
                f.name, ran.text
            );
            base
        })
        .collect();

    let probe = values("MARK");
    let cases: Vec<(usize, usize)> = (0..fields.len())
        .flat_map(|f| (0..probe.len()).map(move |v| (f, v)))
        .collect();
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<(usize, usize, Checked)>> = Mutex::new(Vec::new());
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get().clamp(2, 8));
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(&(f, v)) = cases.get(i) else { break };
                    let dir = tempfile::tempdir().unwrap();
                    let mark = dir.path().join("MARK");
                    let value = values(&mark.display().to_string()).swap_remove(v);
                    let r = check(&stubs, &fields[f], &baselines[f], dir.path(), &mark, &value);
                    results.lock().unwrap().push((f, v, r));
                }
            });
        }
    });
    let mut results = results.into_inner().unwrap();
    results.sort_by_key(|(f, v, _)| (*f, *v));

    // The table, the failures, and the accepted files for the static checks.
    let mut counts = vec![[0usize; 3]; fields.len()];
    let mut accepted_labels: Vec<Vec<String>> = vec![Vec::new(); fields.len()];
    let mut failures = Vec::new();
    let mut files = Vec::new();
    for (f, v, r) in &results {
        let label = format!("{} = {}", fields[*f].name, probe[*v].label);
        match r {
            Ok((outcome, text)) => {
                let col = match outcome {
                    Outcome::Refused => 0,
                    Outcome::Accepted => 1,
                    Outcome::Dropped => 2,
                };
                counts[*f][col] += 1;
                match outcome {
                    Outcome::Refused => {}
                    Outcome::Accepted => accepted_labels[*f].push(probe[*v].label.into()),
                    Outcome::Dropped => {
                        accepted_labels[*f].push(format!("{} (dropped)", probe[*v].label))
                    }
                }
                if let Some(t) = text {
                    files.push((label, t.clone()));
                }
            }
            Err(why) => failures.push(format!("{label}: {why}")),
        }
    }
    let mut table = String::new();
    writeln!(
        table,
        "| field | tried | refused | accepted | dropped (knockout) |\n|---|---|---|---|---|"
    )
    .unwrap();
    let mut total = [0usize; 3];
    for (f, c) in fields.iter().zip(&counts) {
        writeln!(
            table,
            "| {} | {} | {} | {} | {} |",
            f.name,
            c.iter().sum::<usize>(),
            c[0],
            c[1],
            c[2]
        )
        .unwrap();
        for i in 0..3 {
            total[i] += c[i];
        }
    }
    writeln!(
        table,
        "| all | {} | {} | {} | {} |\n\n{} values x {} fields; failures: {}\n",
        total.iter().sum::<usize>(),
        total[0],
        total[1],
        total[2],
        probe.len(),
        fields.len(),
        failures.len()
    )
    .unwrap();
    for (f, labels) in fields.iter().zip(&accepted_labels) {
        if !labels.is_empty() {
            writeln!(table, "- {} accepts: {}", f.name, labels.join("  ")).unwrap();
        }
    }
    eprintln!("hostile values of beryl plan:\n{table}");
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("plan-hostile.md");
    let _ = std::fs::write(out, &table);

    // SC2016 ("expressions don't expand in single quotes") is the point of
    // quoting a value that holds `$`: it is the only exclusion, and only
    // here; the example plans are checked without any.
    if let Some(findings) = super::lint::lint(&files, &["SC2016"]) {
        failures.extend(findings);
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    assert_eq!(total.iter().sum::<usize>(), fields.len() * probe.len());
}
