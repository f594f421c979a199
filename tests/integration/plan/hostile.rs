//! Hostile values: each string of [`values`] put into each field of
//! [`fields`], on the fixture tests/fixtures/plan (host h1.example.org).
//!
//! Statically, for each (field, value), `beryl plan h1` must either
//! - exit 2 with a diagnostic located in the file that holds the value
//!   (`inventory/example.org/h1.yml:LINE:COL`), or
//! - exit 0 with an installerconfig that, lexed by the fuzz target's sh lexer
//!   (fuzz/src/sh.rs: commands, words after quote removal, and what each word
//!   expands), is the plan of the same host with a harmless marker in that
//!   field, the marker replaced by the value: the same commands with the same
//!   number of words, each word the baseline's word with the marker replaced,
//!   and the same expansions (only the disk loop's `$p`, the `$home` pw gave
//!   and that `$(pw usershow …)`). Where the field says the value lands, it is
//!   exactly one word of its command, or exactly one line of the file body a
//!   command writes; a value in an rc.conf assignment or in a file sh sources
//!   stays one word that expands nothing there too; and a value the target
//!   program would split or misread (a `,` in a group list, a `:` in a
//!   passwd field, a blank in ZFSBOOT_DISKS…) must have been refused.
//!
//! A value starting with `--` in a list that the merge reads knockouts from
//! may also be dropped by the merge (docs/merge.md): then the plan must be
//! the fixture's own. No case runs anything: the setup script writes real
//! absolute paths and must only ever run in a chroot.
//!
//! Then one real install per group of fields on the fake FreeBSD
//! (tests/integration/fakebsd/): a host carrying several accepted hostile
//! values at once installs, prints its summary, creates no MARK file under
//! the media or the target, and each value lands verbatim where it belongs
//! in the installed system.
//!
//! The counts per field are printed (run with `--nocapture`) and written to
//! target/tmp/plan-hostile.md.

use std::fmt::Write as _;
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};

use crate::fakebsd::{FakeBsd, Options};
use crate::fuzz::bodies::sh::{self, Command, Word};
use crate::support::{args, beryl_command, copy_tree, fixtures};

/// The key that the key fields put their value around: alice's key in the
/// fixture.
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

/// Where a value lands in the installerconfig: in the command whose argument
/// words start with `head` and that holds the word `with` (any word, a
/// redirection's target too; empty: any such command).
struct Land {
    head: &'static [&'static str],
    with: &'static str,
    what: What,
}

enum What {
    /// Exactly one word of the command, past `head`, is this.
    Word(fn(&str) -> String),
    /// Exactly one line of the command's words (a file body the command
    /// writes) is this. With `true` the file is read by sh, so the line
    /// itself must lex as one word that expands nothing.
    Line(fn(&str) -> String, bool),
    /// The rc.conf assignment `NAME=VALUE`, one word of `sysrc -f
    /// /etc/rc.conf`: sysrc writes it as `NAME="VALUE"` into a file rc(8)
    /// sources, so NAME must be a shell name and the line one word that
    /// expands nothing.
    Rc(fn(&str) -> String),
}

const SYSRC: &[&str] = &["sysrc", "-f", "/etc/rc.conf"];

fn word(head: &'static [&'static str], f: fn(&str) -> String) -> Land {
    Land {
        head,
        with: "",
        what: What::Word(f),
    }
}

fn rc(f: fn(&str) -> String) -> Land {
    Land {
        head: SYSRC,
        with: "",
        what: What::Rc(f),
    }
}

/// The groups of fields, one real install each.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Group {
    Users,
    Sudo,
    Rc,
    Installer,
}

struct Field {
    name: &'static str,
    group: Group,
    /// The host file h1.yml with the value in this field.
    host: fn(&str) -> Value,
    /// A harmless value for the baseline run.
    marker: &'static str,
    /// How a value shows in the plan (the key comment is trimmed, the root
    /// password and dist_site fields put it inside a hash or a URL).
    shows: fn(&str) -> String,
    lands: Vec<Land>,
    /// Why an accepted value would still be wrong where it lands (the
    /// target program splits it, reads it as an option, as a path…).
    bad: fn(&str) -> Option<&'static str>,
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

/// Characters that end a field of master.passwd or group, or a line.
fn passwd_field(v: &str) -> Option<&'static str> {
    if v.contains(':') || v.contains('\n') {
        return Some("a `:` or a newline splits a passwd field");
    }
    None
}

/// A group name: also a member of `pw -G`'s comma list.
fn group_name(v: &str) -> Option<&'static str> {
    if v.contains(',') {
        return Some("pw splits -G at commas");
    }
    passwd_field(v)
}

fn blank(v: &str) -> Option<&'static str> {
    if v.chars().any(char::is_whitespace) {
        return Some("the target splits it at blanks");
    }
    None
}

fn option_or_blank(v: &str) -> Option<&'static str> {
    if v.starts_with('-') {
        return Some("a leading `-` is read as an option");
    }
    blank(v)
}

fn no_line_break(v: &str) -> Option<&'static str> {
    if v.contains('\n') || v.contains('\r') {
        return Some("a line break splits the line");
    }
    None
}

/// A key option's quoted value: sshd ends it at `"` (and reads `\"`).
fn key_option(v: &str) -> Option<&'static str> {
    if v.contains('"') || v.ends_with('\\') {
        return Some("sshd ends the option at the quote");
    }
    no_line_break(v)
}

fn zone(v: &str) -> Option<&'static str> {
    if v.starts_with('/') || v.split('/').any(|p| p == "..") {
        return Some("a path outside /usr/share/zoneinfo");
    }
    option_or_blank(v)
}

fn nothing(_: &str) -> Option<&'static str> {
    None
}

fn fields() -> Vec<Field> {
    let f = |name, group, host, marker, lands, bad| Field {
        name,
        group,
        host,
        marker,
        shows: same,
        lands,
        bad,
        knockouts: false,
    };
    const USERADD: &[&str] = &["pw", "useradd"];
    vec![
        Field {
            knockouts: true,
            ..f(
                "users[].name",
                Group::Users,
                |v| json!({"freebsd": {"users": [{"name": v, "shell": "/bin/sh"}]}}),
                "zzmarkzz",
                vec![word(USERADD, same)],
                passwd_field,
            )
        },
        f(
            "users[].comment",
            Group::Users,
            |v| user(json!({"comment": v})),
            "zzmarkzz",
            vec![word(USERADD, same)],
            passwd_field,
        ),
        f(
            "users[].shell",
            Group::Users,
            |v| user(json!({"shell": v})),
            "/bin/tcsh",
            vec![word(USERADD, same)],
            passwd_field,
        ),
        f(
            "users[].primary_group",
            Group::Users,
            |v| user(json!({"primary_group": v})),
            "zzmarkzz",
            vec![
                word(USERADD, same),
                word(&["pw", "groupadd", "-n"], same),
                Land {
                    head: &["chown"],
                    with: "$home/.ssh",
                    what: What::Word(|v| format!("alice:{v}")),
                },
            ],
            group_name,
        ),
        f(
            "users[].groups[]",
            Group::Users,
            |v| user(json!({"groups": [v]})),
            "zzmarkzz",
            vec![word(USERADD, same), word(&["pw", "groupadd", "-n"], same)],
            group_name,
        ),
        Field {
            shows: key_comment,
            ..f(
                "users[].ssh_keys[] comment",
                Group::Users,
                |v| user(json!({"ssh_keys": [format!("{KEY} {v}")]})),
                "zzmarkzz",
                vec![Land {
                    head: &["printf", "%s\\n"],
                    with: "$home/.ssh/authorized_keys",
                    what: What::Word(|v| format!("{KEY}{v}")),
                }],
                no_line_break,
            )
        },
        f(
            "users[].ssh_keys[] command=\"…\"",
            Group::Users,
            |v| user(json!({"ssh_keys": [format!("command=\"{v}\" {KEY} opt@fixture")]})),
            "zzmarkzz",
            vec![Land {
                head: &["printf", "%s\\n"],
                with: "$home/.ssh/authorized_keys",
                what: What::Word(|v| format!("command=\"{v}\" {KEY} opt@fixture")),
            }],
            key_option,
        ),
        Field {
            shows: |v| format!("$6$salt${v}"),
            ..f(
                "root_password ($6$salt$ + value)",
                Group::Users,
                |v| json!({"freebsd": {"root_password": format!("$6$salt${v}")}}),
                "zzmarkzz",
                vec![word(&["printf", "%s\\n"], same)],
                passwd_field,
            )
        },
        Field {
            knockouts: true,
            ..f(
                "packages[]",
                Group::Sudo,
                |v| json!({"freebsd": {"packages": [v]}}),
                "zzmarkzz",
                vec![word(
                    &["env", "ASSUME_ALWAYS_YES=yes", "pkg", "install", "-y"],
                    same,
                )],
                option_or_blank,
            )
        },
        Field {
            knockouts: true,
            ..f(
                "sudoers[]",
                Group::Sudo,
                |v| json!({"freebsd": {"sudoers": [v]}}),
                "zzmarkzz",
                vec![Land {
                    head: &["printf", "%s"],
                    with: "/usr/local/etc/sudoers.d/.beryl-beryl",
                    what: What::Line(same, false),
                }],
                no_line_break,
            )
        },
        f(
            "rc_conf value",
            Group::Rc,
            |v| json!({"freebsd": {"rc_conf": {"ntpd_flags": v}}}),
            "zzmarkzz",
            vec![rc(|v| format!("ntpd_flags={v}"))],
            nothing,
        ),
        f(
            "rc_conf name",
            Group::Rc,
            |v| json!({"freebsd": {"rc_conf": {v: "YES"}}}),
            "zzmarkzz",
            vec![rc(|v| format!("{v}=YES"))],
            nothing,
        ),
        f(
            "hostname",
            Group::Rc,
            |v| json!({"freebsd": {"hostname": v}}),
            "zzmarkzz",
            vec![rc(|v| format!("hostname={v}"))],
            blank,
        ),
        f(
            "timezone",
            Group::Rc,
            |v| json!({"freebsd": {"timezone": v}}),
            "Asia/Kathmandu",
            vec![word(&["tzsetup", "-s"], same)],
            zone,
        ),
        f(
            "network interface name",
            Group::Rc,
            |v| json!({"freebsd": {"network": {"interfaces": {v: {"ipv4": "dhcp"}}}}}),
            "zzmarkzz0",
            vec![
                word(&["dhclient"], same),
                rc(|v| format!("ifconfig_{v}=DHCP")),
            ],
            option_or_blank,
        ),
        f(
            "network ipv4 address",
            Group::Rc,
            |v| json!({"freebsd": {"network": {"interfaces": {"vtnet0": {"ipv4": v}}}}}),
            "192.0.2.79/24",
            vec![
                word(&["ifconfig", "vtnet0", "inet"], same),
                rc(|v| format!("ifconfig_vtnet0=inet {v}")),
            ],
            option_or_blank,
        ),
        f(
            "network ipv6 address",
            Group::Rc,
            |v| {
                json!({"freebsd": {"network": {"interfaces":
                    {"vtnet0": {"ipv4": "dhcp", "ipv6": v}}}}})
            },
            "2001:db8::79/64",
            vec![rc(|v| format!("ifconfig_vtnet0_ipv6=inet6 {v}"))],
            option_or_blank,
        ),
        f(
            "network defaultrouter",
            Group::Rc,
            |v| json!({"freebsd": {"network": {"defaultrouter": v}}}),
            "192.0.2.78",
            vec![
                word(&["route", "add", "default"], same),
                rc(|v| format!("defaultrouter={v}")),
            ],
            option_or_blank,
        ),
        f(
            "network ipv6_defaultrouter",
            Group::Rc,
            |v| json!({"freebsd": {"network": {"ipv6_defaultrouter": v}}}),
            "2001:db8::78",
            vec![rc(|v| format!("ipv6_defaultrouter={v}"))],
            option_or_blank,
        ),
        f(
            "network nameservers[]",
            Group::Rc,
            |v| json!({"freebsd": {"network": {"nameservers": [v]}}}),
            "192.0.2.77",
            vec![
                word(&["printf", "nameserver %s\\n"], same),
                Land {
                    head: &["printf", "%s"],
                    with: "/etc/.beryl-resolvconf.conf",
                    what: What::Line(|v| format!("name_servers=\"{v}\""), true),
                },
            ],
            blank,
        ),
        f(
            "sshd permit_root_login",
            Group::Rc,
            |v| json!({"freebsd": {"sshd": {"permit_root_login": v}}}),
            "prohibit-password",
            vec![Land {
                head: &["printf", "%s\\n"],
                with: "# Set by beryl.",
                what: What::Word(|v| format!("PermitRootLogin {v}")),
            }],
            blank,
        ),
        f(
            "disks[]",
            Group::Installer,
            |v| json!({"freebsd": {"disks": [v]}}),
            "ada7",
            vec![
                word(&["export"], |v| format!("ZFSBOOT_DISKS={v}")),
                word(&["gpart", "destroy", "-F"], same),
            ],
            option_or_blank,
        ),
        f(
            "pool",
            Group::Installer,
            |v| json!({"freebsd": {"pool": v}}),
            "zzmarkzz",
            vec![word(&["export"], |v| format!("ZFSBOOT_POOL_NAME={v}"))],
            option_or_blank,
        ),
        f(
            "swap",
            Group::Installer,
            |v| json!({"freebsd": {"swap": v}}),
            "7g",
            vec![word(&["export"], |v| format!("ZFSBOOT_SWAP_SIZE={v}"))],
            blank,
        ),
        Field {
            shows: |v| format!("http://mirror.example/{v}"),
            ..f(
                "dist_site (http://mirror.example/ + value)",
                Group::Installer,
                |v| json!({"freebsd": {"dist_site": format!("http://mirror.example/{v}")}}),
                "zzmarkzz",
                vec![word(&["export"], |v| format!("BSDINSTALL_DISTSITE={v}"))],
                blank,
            )
        },
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

/// One run of beryl, its output untouched (support::beryl rewrites the
/// temporary directory's path in the output, and hostile values hold it).
struct Raw {
    status: i32,
    stdout: String,
    stderr: String,
}

fn beryl_raw(dir: &Path, args: &[String]) -> Raw {
    let out = beryl_command(dir, args)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run beryl");
    Raw {
        status: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8(out.stdout).expect("the plan is UTF-8"),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// A copy of the fixture in `dir`, to which [`plan`] writes host files.
fn fixture(dir: &Path) {
    copy_tree(&fixtures().join("plan"), dir);
}

/// Writes `host` as h1.yml into the fixture copy in `dir` and runs `beryl
/// plan h1`.
fn plan(dir: &Path, host: &Value) -> Raw {
    let yaml = to_yaml(host);
    // The YAML carries exactly the value.
    if !yaml.is_empty() {
        let back: Value = serde_saphyr::from_str(&yaml).unwrap_or_else(|e| panic!("{e}\n{yaml}"));
        assert_eq!(&back, host, "the YAML does not carry the value:\n{yaml}");
    }
    std::fs::write(dir.join("inventory/example.org/h1.yml"), yaml).unwrap();
    beryl_raw(dir, &args(&["plan", "h1"]))
}

fn lex(text: &str) -> Result<Vec<Command>, String> {
    sh::lex(text).map_err(|e| format!("the plan does not lex: {e}\n{text}"))
}

/// Only what the templates expand: the disk loop's `$p`, the `$home` that
/// `$(pw usershow …)` gave, the sshd check's `$beryl_key` that `$(mktemp
/// …)` gave. No backquote, no arithmetic.
fn expansions(commands: &[Command]) -> Result<(), String> {
    for w in sh::words(commands) {
        if !w.other.is_empty() {
            return Err(format!("`{}` expands {:?}", w.text, w.other));
        }
        for sub in &w.subs {
            let first = sub.first().and_then(|c| c.first()).map(|w| w.text.as_str());
            if !first.is_some_and(|f| crate::fuzz::bodies::plan::INSTALL_SUBS.contains(&f)) {
                return Err(format!("`{}` substitutes {first:?}", w.text));
            }
        }
        if let Some(p) = w
            .params
            .iter()
            .find(|p| !crate::fuzz::bodies::plan::INSTALL_PARAMS.contains(&p.as_str()))
        {
            return Err(format!("`{}` expands ${p}", w.text));
        }
    }
    Ok(())
}

/// `got` is `base` word for word, each word's text `subst` of the base's,
/// with the same expansions.
fn same_shape(
    base: &[Command],
    got: &[Command],
    subst: &dyn Fn(&str) -> String,
) -> Result<(), String> {
    let show = |c: &Command| -> Vec<String> { c.iter().map(|w| w.text.clone()).collect() };
    if base.len() != got.len() {
        return Err(format!(
            "{} commands, not the baseline's {}",
            got.len(),
            base.len()
        ));
    }
    for (b, g) in base.iter().zip(got) {
        let want: Vec<String> = b.iter().map(|w| subst(&w.text)).collect();
        if b.len() != g.len() || want != show(g) {
            return Err(format!(
                "the command\n  {:?}\nis not the baseline's with the marker replaced:\n  {want:?}",
                show(g)
            ));
        }
        for (bw, gw) in b.iter().zip(g) {
            let same_kind = |x: &Word, y: &Word| {
                x.op == y.op
                    && x.params == y.params
                    && x.other == y.other
                    && x.subs.len() == y.subs.len()
            };
            if !same_kind(bw, gw) {
                return Err(format!(
                    "the word {:?} expands {:?} {:?}, the baseline's {:?} {:?}",
                    gw.text, gw.params, gw.other, bw.params, bw.other
                ));
            }
            for (bs, gs) in bw.subs.iter().zip(&gw.subs) {
                same_shape(bs, gs, subst)?;
            }
        }
    }
    Ok(())
}

/// The commands a land points at: their argument words (up to the first
/// operator) and all their words.
fn commands_of<'a>(commands: &'a [Command], land: &Land) -> Vec<(Vec<&'a str>, Vec<&'a str>)> {
    commands
        .iter()
        .map(|c| {
            let all: Vec<&str> = c
                .iter()
                .filter(|w| !w.op)
                .map(|w| w.text.as_str())
                .collect();
            (sh::argv(c), all)
        })
        .filter(|(argv, all)| {
            argv.starts_with(land.head) && (land.with.is_empty() || all.contains(&land.with))
        })
        .collect()
}

/// One line of sh (a line of a file sh sources) is one word that expands
/// nothing, with this text.
fn one_inert_word(line: &str, text: &str) -> Result<(), String> {
    let c = sh::lex(&format!("{line}\n")).map_err(|e| format!("{line:?} does not lex: {e}"))?;
    match c.as_slice() {
        [cmd] if cmd.len() == 1 => {
            let w = &cmd[0];
            if w.op || !w.params.is_empty() || !w.subs.is_empty() || !w.other.is_empty() {
                Err(format!("{line:?} expands something when sourced"))
            } else if w.text != text {
                Err(format!("{line:?} reads as {:?}, not {text:?}", w.text))
            } else {
                Ok(())
            }
        }
        _ => Err(format!("{line:?} is not one word when sourced")),
    }
}

/// Where the value `v` (as it shows) must land: exactly once.
fn landed(commands: &[Command], land: &Land, v: &str) -> Result<(), String> {
    let found = commands_of(commands, land);
    let past = |argv: &[&'static str]| argv.len();
    let n_words = |want: &str| -> usize {
        found
            .iter()
            .map(|(argv, _)| {
                argv[past(land.head)..]
                    .iter()
                    .filter(|w| **w == want)
                    .count()
            })
            .sum()
    };
    let head = land.head.join(" ");
    match &land.what {
        What::Word(f) => {
            let want = f(v);
            let n = n_words(&want);
            if n != 1 {
                return Err(format!("{want:?} is {n} words of `{head}`, not 1"));
            }
        }
        What::Line(f, sourced) => {
            let want = f(v);
            let n: usize = found
                .iter()
                .flat_map(|(_, all)| all.iter())
                .map(|w| w.split('\n').filter(|l| *l == want).count())
                .sum();
            if n != 1 {
                return Err(format!("{want:?} is {n} lines written by `{head}`, not 1"));
            }
            if *sourced {
                let (name, value) = want.split_once('=').unwrap();
                let value = value.trim_matches('"');
                one_inert_word(&want, &format!("{name}={value}"))?;
            }
        }
        What::Rc(f) => {
            let want = f(v);
            let n = n_words(&want);
            if n != 1 {
                return Err(format!("{want:?} is {n} words of `{head}`, not 1"));
            }
            let (name, value) = want.split_once('=').unwrap();
            let is_name = name
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if !is_name {
                return Err(format!("{name:?} is not a shell name in rc.conf"));
            }
            one_inert_word(&format!("{name}=\"{value}\""), &want)?;
        }
    }
    Ok(())
}

/// A case's outcome and, unless refused, the generated file; or what went
/// wrong.
type Checked = Result<(Outcome, Option<String>), String>;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Outcome {
    Refused,
    Accepted,
    Dropped,
}

/// Checks one case in the fixture copy `dir`.
fn check(
    field: &Field,
    base: &[Command],
    plain: &[Command],
    dir: &Path,
    mark: &Path,
    value: &Hostile,
) -> Checked {
    let r = plan(dir, &(field.host)(&value.yaml));
    if mark.exists() {
        return Err("MARK was created".into());
    }
    let located = regex::Regex::new(r"inventory/example\.org/h1\.yml:\d+:\d+").unwrap();
    match r.status {
        2 if located.is_match(&r.stderr) && r.stdout.is_empty() => {
            return Ok((Outcome::Refused, None));
        }
        0 => {}
        s => return Err(format!("exit {s} without a located error:\n{}", r.stderr)),
    }
    let text = r.stdout;
    let got = lex(&text)?;
    expansions(&got).map_err(|e| format!("{e}\n{text}"))?;
    if field.knockouts && value.reaches.starts_with("--") {
        // Dropped by the merge: the plan is the fixture's own.
        same_shape(plain, &got, &|s| s.to_string())
            .map_err(|e| format!("a knocked-out value changed the plan: {e}\n{text}"))?;
        return Ok((Outcome::Dropped, Some(text)));
    }
    let shown = (field.shows)(&value.reaches);
    let from = (field.shows)(field.marker);
    let mut problems = Vec::new();
    if let Err(e) = same_shape(base, &got, &|s| s.replace(&from, &shown)) {
        problems.push(e);
    }
    for land in &field.lands {
        if let Err(e) = landed(&got, land, &shown) {
            problems.push(e);
        }
    }
    if let Some(why) = (field.bad)(&value.reaches) {
        problems.push(format!("accepted, but {why}"));
    }
    if problems.is_empty() {
        Ok((Outcome::Accepted, Some(text)))
    } else {
        Err(format!("{}\n{text}", problems.join("\n")))
    }
}

#[test]
fn hostile_values_are_refused_or_stay_one_word() {
    let fields = fields();
    // The fixture alone holds none of the markers, so that in a baseline
    // every marker comes from its field.
    let dir = tempfile::tempdir().unwrap();
    fixture(dir.path());
    let r = plan(dir.path(), &json!({}));
    assert_eq!(r.status, 0, "{}", r.stderr);
    let plain = lex(&r.stdout).unwrap();
    expansions(&plain).unwrap();
    for f in &fields {
        assert!(
            !r.stdout.contains((f.shows)(f.marker).as_str()),
            "{}: the marker {:?} is already in the fixture's plan",
            f.name,
            f.marker
        );
    }
    // The baselines: each field with its marker, which lands where the
    // field says.
    let baselines: Vec<Vec<Command>> = fields
        .iter()
        .map(|f| {
            let r = plan(dir.path(), &(f.host)(f.marker));
            assert_eq!(r.status, 0, "{} baseline: {}", f.name, r.stderr);
            let base = lex(&r.stdout).unwrap();
            expansions(&base).unwrap();
            for land in &f.lands {
                if let Err(e) = landed(&base, land, &(f.shows)(f.marker)) {
                    panic!("{} baseline: {e}\n{}", f.name, r.stdout);
                }
            }
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
                // One fixture copy per worker; each case rewrites h1.yml.
                let dir = tempfile::tempdir().unwrap();
                fixture(dir.path());
                let mark = dir.path().join("MARK");
                let values = values(&mark.display().to_string());
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(&(f, v)) = cases.get(i) else { break };
                    let r = check(
                        &fields[f],
                        &baselines[f],
                        &plain,
                        dir.path(),
                        &mark,
                        &values[v],
                    );
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
        "| field | install group | tried | refused | one word | dropped (knockout) |\n|---|---|---|---|---|---|"
    )
    .unwrap();
    let mut total = [0usize; 3];
    for (f, c) in fields.iter().zip(&counts) {
        writeln!(
            table,
            "| {} | {:?} | {} | {} | {} | {} |",
            f.name,
            f.group,
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
        "| all | | {} | {} | {} | {} |\n\n{} values x {} fields; failures: {}\n",
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
    // quoting a value that holds `$`, and SC1003 ("want to escape a single
    // quote?") is a note on the value `\` quoted as '\', which is right:
    // the only exclusions, and only here; the example plans are checked
    // without any.
    if let Some(findings) = super::lint::lint(&files, &["SC2016", "SC1003"]) {
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

/// The checks themselves catch a value that leaves its word, one that
/// expands, and one split where it lands.
#[test]
fn the_static_checks_catch_a_broken_plan() {
    let base = lex("pw useradd -n zzmarkzz -m\nsysrc -f /etc/rc.conf 'x=zzmarkzz'\n").unwrap();
    let subst = |s: &str| s.replace("zzmarkzz", "a b");
    // Unquoted: two words.
    let got = lex("pw useradd -n a b -m\nsysrc -f /etc/rc.conf 'x=a b'\n").unwrap();
    assert!(same_shape(&base, &got, &subst).is_err());
    // Quoted: the same shape.
    let got = lex("pw useradd -n 'a b' -m\nsysrc -f /etc/rc.conf 'x=a b'\n").unwrap();
    assert!(same_shape(&base, &got, &subst).is_ok());
    // Double-quoted `$(…)` expands.
    let subst = |s: &str| s.replace("zzmarkzz", "$(touch M)");
    let got =
        lex("pw useradd -n \"$(touch M)\" -m\nsysrc -f /etc/rc.conf 'x=$(touch M)'\n").unwrap();
    assert!(same_shape(&base, &got, &subst).is_err());
    assert!(expansions(&got).is_err());
    let got = lex("pw useradd -n '$(touch M)' -m\nsysrc -f /etc/rc.conf 'x=$(touch M)'\n").unwrap();
    assert!(same_shape(&base, &got, &subst).is_ok());
    // …but not inside rc.conf, where sysrc writes x="$(touch M)".
    assert!(landed(&got, &rc(|v| format!("x={v}")), "$(touch M)").is_err());
    assert!(landed(&got, &word(&["pw", "useradd"], same), "$(touch M)").is_ok());
    // A line break in a file body is two lines.
    let file = lex("printf '%s' 'a\nb\n' > /f.beryl-tmp\n").unwrap();
    let line = Land {
        head: &["printf", "%s"],
        with: "/f.beryl-tmp",
        what: What::Line(same, false),
    };
    assert!(landed(&file, &line, "a\nb").is_err());
    assert!(landed(&file, &line, "a").is_ok());
    assert_eq!(group_name("a,wheel"), Some("pw splits -G at commas"));
}

// ---------------------------------------------------------------- real installs

/// The file the install values try to create (absolute in /tmp, or relative
/// to wherever they would run).
const MARK: &str = "BERYL-HOSTILE-MARK";

/// A second key, for the second user of the users group.
const KEY2: &str =
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAcaVAtvb55dH7da9RT2X7puVmgCS0MgwSPXXBiFq+ex";

/// Every path under `dir` (links not followed) whose name holds [`MARK`].
fn marks(dir: &Path, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let path = e.path();
        if e.file_name().to_string_lossy().contains(MARK) {
            out.push(path.display().to_string());
        }
        if e.file_type().is_ok_and(|t| t.is_dir()) {
            marks(&path, out);
        }
    }
}

/// No MARK under the machine (media, target, staged base, live kernel), in
/// this host's /tmp or in the working directory.
fn assert_no_mark(bsd: &FakeBsd, what: &str) {
    let machine = bsd
        .target()
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .to_path_buf();
    let mut found = Vec::new();
    marks(&machine, &mut found);
    for p in [
        Path::new("/tmp").join(MARK),
        std::env::current_dir().unwrap().join(MARK),
    ] {
        if p.exists() {
            found.push(p.display().to_string());
        }
    }
    assert!(found.is_empty(), "{what}: a value ran: {found:?}");
}

/// A file of the installed system.
fn read(bsd: &FakeBsd, path: &str) -> String {
    let p = bsd.target().join(path.trim_start_matches('/'));
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The fields of `name`'s line in the target's /etc/master.passwd.
fn passwd(bsd: &FakeBsd, name: &str) -> Vec<String> {
    let master = read(bsd, "/etc/master.passwd");
    let line = master
        .lines()
        .find(|l| l.split(':').next() == Some(name))
        .unwrap_or_else(|| panic!("no user {name:?} in master.passwd:\n{master}"));
    line.split(':').map(str::to_string).collect()
}

/// `beryl plan h1` on the fixture with `host`, installed on a fresh fake
/// FreeBSD: it exits 0, hangs nowhere, prints its summary, and no value
/// created MARK. None (after a notice) where the fake FreeBSD can't run.
fn install(host: &Value, test: &str) -> Option<FakeBsd> {
    install_with(host, test, |text| text.to_string())
}

/// [`install`], the installerconfig first passed through `edit` (a probe).
fn install_with(host: &Value, test: &str, edit: impl Fn(&str) -> String) -> Option<FakeBsd> {
    let dir = tempfile::tempdir().unwrap();
    fixture(dir.path());
    let r = plan(dir.path(), host);
    assert_eq!(r.status, 0, "{test}: beryl plan refused:\n{}", r.stderr);
    let bsd = FakeBsd::new(&Options::default(), test)?;
    let run = bsd.install(&edit(&r.stdout));
    assert!(
        run.status == 0 && run.hang.is_none(),
        "{test}: the install failed:\n{}\n--- plan\n{}",
        run.all(),
        r.stdout
    );
    let summary = lex(&r.stdout)
        .unwrap()
        .iter()
        .rev()
        .map(sh::argv)
        .find(|a| a.first() == Some(&"printf") && a.len() == 3)
        .map(|a| a[2].to_string())
        .expect("a summary line");
    assert!(
        run.stdout.contains(&summary),
        "{test}: no summary {summary:?}:\n{}",
        run.all()
    );
    assert_no_mark(&bsd, test);
    Some(bsd)
}

#[test]
fn hostile_users_install_verbatim() {
    let test = "hostile_users_install_verbatim";
    let comment = format!(
        "O'Hara \"$(touch /tmp/{MARK})\" `touch {MARK}`; a|b && c > {MARK} * ? [a] ~ $HOME é"
    );
    let key_comment = format!("it's \"$(touch /tmp/{MARK})\" `touch {MARK}` 'q'");
    let option = format!("/bin/echo 'a;b' $(touch /tmp/{MARK}) `touch {MARK}` | x");
    let hash = "$6$salt$..$HOME,=";
    let host = json!({"freebsd": {
    "root_password": hash,
    "users": [
        {"name": "alice", "comment": comment,
         "ssh_keys": [format!("{KEY} {key_comment}")]},
        {"name": "o'brien", "primary_group": "[ops]", "groups": ["wheel"],
         "ssh_keys": [format!("command=\"{option}\" {KEY2} opt@fixture")]},
    ]}});
    let Some(bsd) = install(&host, test) else {
        return;
    };
    // The gecos field, root's hash, the odd names and groups.
    let alice = passwd(&bsd, "alice");
    assert_eq!(alice[7], comment, "alice's gecos");
    assert_eq!(passwd(&bsd, "root")[1], hash, "root's password field");
    let obrien = passwd(&bsd, "o'brien");
    let group = read(&bsd, "/etc/group");
    let ops = group
        .lines()
        .find(|l| l.starts_with("[ops]:"))
        .unwrap_or_else(|| panic!("no group [ops]:\n{group}"));
    assert_eq!(ops.split(':').nth(2), Some(obrien[3].as_str()), "{ops}");
    let wheel = group.lines().find(|l| l.starts_with("wheel:")).unwrap();
    assert!(
        wheel
            .split(':')
            .nth(3)
            .unwrap()
            .split(',')
            .any(|m| m == "o'brien"),
        "{wheel}"
    );
    // Each key line under the home pw gave, verbatim, once.
    for (user, line) in [
        (&alice, format!("{KEY} {key_comment}")),
        (&obrien, format!("command=\"{option}\" {KEY2} opt@fixture")),
    ] {
        let keys = read(&bsd, &format!("{}/.ssh/authorized_keys", user[8]));
        assert_eq!(
            keys.lines().filter(|l| *l == line).count(),
            1,
            "{}'s authorized_keys:\n{keys}",
            user[0]
        );
    }
    // The check finds a MARK when there is one.
    let made = bsd.run_in_target(&format!("touch /tmp/{MARK}"), &[], "root");
    assert_eq!(made.status, 0, "{}", made.all());
    let caught = std::panic::catch_unwind(|| assert_no_mark(&bsd, "control"));
    assert!(caught.is_err(), "the MARK check missed a MARK");
}

#[test]
fn hostile_sudoers_lines_install_verbatim() {
    let test = "hostile_sudoers_lines_install_verbatim";
    let lines = [
        format!("# $(touch /tmp/{MARK}) `touch {MARK}` 'q' \"q\" ; a|b && c > {MARK} *"),
        format!("Defaults:alice env_keep += \"HOME $(touch /tmp/{MARK})\""),
    ];
    let host = json!({"freebsd": {"sudoers": lines}});
    let Some(bsd) = install(&host, test) else {
        return;
    };
    let dropin = read(&bsd, "/usr/local/etc/sudoers.d/beryl");
    assert_eq!(
        dropin,
        format!(
            "alice ALL=(ALL:ALL) NOPASSWD: ALL\n{}\n{}\n",
            lines[0], lines[1]
        )
    );
    // alice still becomes root through it.
    let run = bsd.run_in_target("/usr/local/bin/sudo -n id -un", &[], "alice");
    assert_eq!(run.stdout, "root\n", "{}", run.all());
    assert_no_mark(&bsd, test);
}

#[test]
fn hostile_rc_conf_values_install_verbatim() {
    let test = "hostile_rc_conf_values_install_verbatim";
    let flags = format!("-g '; touch /tmp/{MARK}; ' a|b && c > {MARK} * ? [a] ~ ! #x a=b a,b a:b");
    let other = format!("a;touch {MARK}");
    let host = json!({"freebsd": {"rc_conf": {"ntpd_flags": flags, "syslogd_flags": other}}});
    let Some(bsd) = install(&host, test) else {
        return;
    };
    // As sysrc writes them, and as rc(8) reads them back.
    let rc = read(&bsd, "/etc/rc.conf");
    for (name, value) in [("ntpd_flags", &flags), ("syslogd_flags", &other)] {
        let line = format!("{name}=\"{value}\"");
        assert_eq!(
            rc.lines().filter(|l| *l == line).count(),
            1,
            "{line}:\n{rc}"
        );
    }
    let run = bsd.run_in_target(
        ". /etc/rc.conf && printf '%s\\n' \"$ntpd_flags\" \"$syslogd_flags\"",
        &[],
        "root",
    );
    assert_eq!(run.stdout, format!("{flags}\n{other}\n"), "{}", run.all());
    assert_no_mark(&bsd, test);
}

#[test]
fn hostile_installer_values_install_verbatim() {
    let test = "hostile_installer_values_install_verbatim";
    // The most a release URL may hold (schema rule `dist_site`): `%`-escapes,
    // `~`, `:`, `+`; everything else (`@` too: credentials) is refused
    // before it reaches sh.
    let site = "http://mirror.example:8080/~a%20b/+x-y_z.w:v";
    let host = json!({"freebsd": {"dist_site": site, "pool": "z:1"}});
    // The media hold the sets and their MANIFEST, so the site is not
    // fetched from;
    // the setup script inherits the installer's environment, and a probe
    // after its `set -eu` records the site as the preamble exported it.
    let probe = |text: &str| {
        text.replacen(
            "\nset -eu\n",
            "\nset -eu\nprintf '%s' \"$BSDINSTALL_DISTSITE\" > /root/distsite\n",
            1,
        )
    };
    let Some(bsd) = install_with(&host, test, probe) else {
        return;
    };
    assert_eq!(read(&bsd, "/root/distsite"), site);
    // zfsboot labelled the pool with the name given.
    let dev = bsd.target().parent().unwrap().join("dev");
    let labelled = std::fs::read_dir(&dev)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("ada0p"))
        // The label's line, then the pool's contents (tests/fakebsd/README.md).
        .any(|e| {
            std::fs::read_to_string(e.path())
                .unwrap_or_default()
                .starts_with("zfs-label z:1\n")
        });
    assert!(labelled, "no partition of ada0 is labelled z:1");
}
