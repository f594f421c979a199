//! `plan`: the install plan and the apply script, on arbitrary valid configs.
//!
//! The input chooses a host's `freebsd` settings field by field, mostly from
//! values the schema accepts, now and then from hostile strings (quotes,
//! `$(…)`, line breaks, options) or arbitrary text. The config is compiled
//! in memory ([`beryl::compile::compile_levels`]); one that fails validation
//! or the install requirements is skipped. For the others the installerconfig
//! (and its JSON form) and the apply script are generated, and read back with
//! a small sh lexer (`sh.rs`):
//!
//! - every quote is closed;
//! - the installerconfig expands nothing but `$BERYL_ROOT`, and the apply
//!   script nothing but its own variables and the commands of its checks;
//! - each value is exactly one argument where it belongs: `pw useradd`'s
//!   arguments are the plan's, and so are `pkg install`'s, `pw groupadd`'s,
//!   `sysrc`'s, `tzsetup`'s, the key and sudoers lines and the exports.

use std::sync::Arc;

use arbitrary::{Arbitrary, Result, Unstructured};
use beryl::compile::{Level, complete};
use beryl::merge::{Policy, merge_documents};
use beryl::plan::{self, StepData, render::Templates};
use beryl::value::{Entry, Map, Node, Value};

use super::sh::{self, Command};
use super::value::Places;

const KEY: &str =
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAcaVAtvb55dH7da9RT2X7puVmgCS0MgwSPXXBiFq+ex";

/// Strings that try to leave their quotes or their argument.
const HOSTILE: &[&str] = &[
    "$(touch MARK)",
    "`touch MARK`",
    "'; touch MARK; '",
    "'",
    "\"",
    ";",
    "a\ntouch MARK",
    "a\rb",
    "a && b",
    "a | b",
    "> x",
    "*",
    "-x",
    "--",
    "..",
    "~",
    "$HOME",
    "${x}",
    "\\${x}",
    "a\0b",
    "a\tb",
    "a\u{7f}b",
    "a\u{1b}[2Jb",
    "é",
    "%s%n",
    "\\",
    "!",
    "a b",
    "#x",
    "a=b",
    "a,wheel",
    "a:wheel",
    "",
    " ",
    "'\"'\"'",
    "\\'",
    "$((1+1))",
    "${BERYL_ROOT}",
];

struct Gen<'a, 'b> {
    u: &'a mut Unstructured<'b>,
    at: Places,
}

impl Gen<'_, '_> {
    /// A string: one of `valid` most of the time, else hostile or arbitrary.
    fn pick(&mut self, valid: &[&str]) -> Result<Node> {
        let s = match self.u.int_in_range(0..=15)? {
            0 => self.u.choose(HOSTILE)?.to_string(),
            1 => String::arbitrary(self.u)?,
            2 => format!("{}{}", self.u.choose(valid)?, self.u.choose(HOSTILE)?),
            _ => self.u.choose(valid)?.to_string(),
        };
        Ok(self.node(Value::Str(s)))
    }

    fn node(&mut self, v: Value) -> Node {
        Node::new(v, self.at.span())
    }

    fn list(&mut self, valid: &[&str], max: usize) -> Result<Node> {
        let mut items = Vec::new();
        for _ in 0..self.u.int_in_range(0..=max)? {
            items.push(self.pick(valid)?);
        }
        Ok(self.node(Value::Seq(items)))
    }

    fn map(&mut self, fields: Vec<(&str, Node)>) -> Node {
        let mut m = Map::new();
        for (k, node) in fields {
            m.insert(
                k.to_string(),
                Entry {
                    key_span: self.at.span(),
                    node,
                },
            );
        }
        self.node(Value::Map(m))
    }

    /// Each field with probability `p` in 8.
    fn some(
        &mut self,
        p: u32,
        fields: Vec<(&'static str, Node)>,
    ) -> Result<Vec<(&'static str, Node)>> {
        let mut out = Vec::new();
        for f in fields {
            if self.u.ratio(p, 8)? {
                out.push(f);
            }
        }
        Ok(out)
    }

    fn bool(&mut self) -> Result<Node> {
        let b = self.u.arbitrary()?;
        Ok(self.node(Value::Bool(b)))
    }

    fn key(&mut self) -> Result<Node> {
        let comment = self.pick(&["", "alice@laptop", "a b c", "ops"])?;
        let options = self.u.choose(&[
            "",
            "no-pty ",
            "from=\"10.0.0.0/8\" ",
            "command=\"echo 'a b'\" ",
        ])?;
        let text = format!("{options}{KEY} {}", comment.as_str().unwrap_or_default());
        Ok(self.node(Value::Str(text)))
    }

    fn user(&mut self) -> Result<Node> {
        let name = self.pick(&["alice", "bob", "o-neil", "_svc", "deploy"])?;
        let uid = self.u.int_in_range(0..=70000)?;
        let uid = self.node(Value::Int(i64::from(uid)));
        let comment = self.pick(&["Alice Martin", "Bob (ops)", "x", "Ünïcode"])?;
        let shell = self.pick(&[
            "/bin/sh",
            "/bin/csh",
            "/usr/local/bin/bash",
            "/usr/sbin/nologin",
        ])?;
        let primary = self.pick(&["staff", "wheel", "dev", "alice"])?;
        let groups = self.list(&["wheel", "operator", "www", "dba", "dev"], 3)?;
        let mut keys = Vec::new();
        for _ in 0..self.u.int_in_range(0..=2)? {
            keys.push(self.key()?);
        }
        let keys = self.node(Value::Seq(keys));
        let state = self.pick(&["present", "present", "absent"])?;
        let mut fields = vec![("name", name)];
        let more = vec![
            ("uid", uid),
            ("comment", comment),
            ("shell", shell),
            ("primary_group", primary),
            ("groups", groups),
            ("ssh_keys", keys),
            ("state", state),
        ];
        fields.extend(self.some(5, more)?);
        Ok(self.map(fields))
    }

    fn network(&mut self) -> Result<Node> {
        let mut ifaces = Vec::new();
        for _ in 0..self.u.int_in_range(1..=2)? {
            let name = *self
                .u
                .choose(&["vtnet0", "em1", "igb0", "bad name", "lo0"])?;
            let v4 = self.pick(&["dhcp", "192.0.2.10/24", "10.0.0.5/8"])?;
            let v6 = self.pick(&["slaac", "2001:db8::10/64"])?;
            let fields = self.some(6, vec![("ipv4", v4), ("ipv6", v6)])?;
            ifaces.push((name, self.map(fields)));
        }
        let ifaces = self.map(ifaces);
        let gw = self.pick(&["192.0.2.1", "10.0.0.1"])?;
        let gw6 = self.pick(&["2001:db8::1", "fe80::1"])?;
        let ns = self.list(&["192.0.2.53", "2001:db8::53", "9.9.9.9"], 3)?;
        let mut fields = vec![("interfaces", ifaces)];
        fields.extend(self.some(
            4,
            vec![
                ("defaultrouter", gw),
                ("ipv6_defaultrouter", gw6),
                ("nameservers", ns),
            ],
        )?);
        Ok(self.map(fields))
    }

    fn rc_conf(&mut self) -> Result<Node> {
        let mut vars = Vec::new();
        for _ in 0..self.u.int_in_range(0..=3)? {
            let name = *self.u.choose(&[
                "ntpd_enable",
                "nginx_enable",
                "ntpd_flags",
                "x_y",
                "1bad",
                "hostname",
            ])?;
            let value = if self.u.arbitrary()? {
                self.pick(&["YES", "NO", "-g -x", "a b", "10"])?
            } else {
                self.bool()?
            };
            vars.push((name, value));
        }
        Ok(self.map(vars))
    }

    fn freebsd(&mut self) -> Result<Node> {
        let hostname = self.pick(&["web01.example.org", "h1.example.org", "a-b.c"])?;
        let timezone = self.pick(&["UTC", "Europe/Paris", "America/New_York", "Etc/GMT+5"])?;
        let raid = self.pick(&["stripe", "mirror", "raid10", "raidz1"])?;
        let disks = self.list(&["ada0", "ada1", "nda0", "nda1", "vtbd0", "da0"], 4)?;
        let pool = self.pick(&["zroot", "tank", "z_1"])?;
        let swap = self.pick(&["2g", "0", "512m", "8G"])?;
        let packages = self.list(
            &[
                "sudo",
                "tmux",
                "security/sudo",
                "bash",
                "devel/py-foo@py311",
                "vim",
            ],
            4,
        )?;
        let sudoers = self.list(
            &[
                "%wheel ALL=(ALL:ALL) NOPASSWD: ALL",
                "Defaults env_keep += \"SSH_AUTH_SOCK\"",
                "alice ALL=(ALL) ALL",
            ],
            2,
        )?;
        let mut users = Vec::new();
        for _ in 0..self.u.int_in_range(1..=3)? {
            users.push(self.user()?);
        }
        let users = self.node(Value::Seq(users));
        let install = self.pick(&["dists", "pkgbase"])?;
        let version = self.pick(&["15.0", "14.3", "13.5"])?;
        let network = self.network()?;
        let rc_conf = self.rc_conf()?;
        let prl = self.pick(&["no", "prohibit-password", "yes", "forced-commands-only"])?;
        let pa = self.bool()?;
        let kia = self.bool()?;
        let sshd = self.map(vec![
            ("permit_root_login", prl),
            ("password_authentication", pa),
            ("kbd_interactive_authentication", kia),
        ]);
        let mut fields = vec![
            ("disks", disks),
            ("raid", raid),
            ("timezone", timezone),
            ("users", users),
        ];
        let more = vec![
            ("hostname", hostname),
            ("pool", pool),
            ("swap", swap),
            ("packages", packages),
            ("sudoers", sudoers),
            ("install", install),
            ("version", version),
            ("network", network),
            ("rc_conf", rc_conf),
            ("sshd", sshd),
        ];
        fields.extend(self.some(5, more)?);
        Ok(self.map(fields))
    }
}

pub fn run(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let mut g = Gen {
        u: &mut u,
        at: Places::new("example.org/h1.yml"),
    };
    let Ok(freebsd) = g.freebsd() else { return };
    let Ok(domain_key) = g.key() else { return };
    let domain = if g.u.arbitrary().unwrap_or(false) {
        vec![domain_key]
    } else {
        Vec::new()
    };
    let domain = g.node(Value::Seq(domain));
    let doc = g.map(vec![("ssh_keys", domain), ("freebsd", freebsd)]);
    check(doc);
}

/// What `beryl plan` compiles for the host, but from the document in memory:
/// merged with Beryl's rules, references resolved, keys and validation. A
/// config that fails is skipped.
fn compile(doc: Node) -> Option<beryl::compile::Compiled> {
    let doc = Arc::new(doc);
    let mut merged = merge_documents(&[&*doc], &Policy::beryl(), None).ok()?;
    let references = beryl::refs::resolve(&mut merged, &Default::default()).ok()?;
    let levels = vec![Level {
        file: "example.org/h1.yml".into(),
        node: doc,
    }];
    complete(
        merged.node,
        references,
        levels,
        merged.policy,
        super::keys::store(),
    )
    .ok()
}

fn check(doc: Node) {
    let Some(compiled) = compile(doc) else {
        return;
    };
    let steps = beryl::apply::steps("h1.example.org", &compiled);
    apply_script(
        &beryl::apply::script::script("h1.example.org", &steps),
        &steps,
    );
    let Ok(plan) = plan::build("h1.example.org", &compiled) else {
        return;
    };
    let t = templates();
    let text = t
        .installerconfig(&plan)
        .expect("the installerconfig renders");
    t.json(&plan).expect("the plan renders as JSON");
    installerconfig(&text, &plan);
}

fn templates() -> &'static Templates {
    static T: std::sync::OnceLock<Templates> = std::sync::OnceLock::new();
    T.get_or_init(|| {
        Templates::new(None, beryl::limits::DEFAULT_MAX_FILE_SIZE).expect("the built-in templates")
    })
}

fn installerconfig(text: &str, plan: &plan::Plan) {
    let commands = sh::lex(text).unwrap_or_else(|e| panic!("{e}:\n{text}"));
    for w in sh::words(&commands) {
        assert!(
            w.subs.is_empty() && w.other.is_empty(),
            "a substitution in `{}`:\n{text}",
            w.text
        );
        for p in &w.params {
            assert_eq!(p, "BERYL_ROOT", "`${p}` expanded:\n{text}");
        }
    }
    let has = |want: Vec<String>| {
        let found = commands.iter().any(|c| sh::argv(c) == want);
        assert!(found, "no command {want:?} in:\n{text}");
    };
    let words = |head: &[&str], rest: &[String]| -> Vec<String> {
        head.iter()
            .map(|s| s.to_string())
            .chain(rest.iter().cloned())
            .collect()
    };
    for var in &plan.preamble {
        has(vec!["export".into(), format!("{}={}", var.name, var.value)]);
    }
    has(vec!["echo".into(), plan.summary.clone()]);
    for step in &plan.steps {
        match &step.data {
            StepData::User { args, .. } => has(words(&["pw", "useradd"], args)),
            StepData::Packages { packages, .. } => has(words(&["pkg", "install", "-y"], packages)),
            StepData::Groups { groups } => {
                for g in groups {
                    has(words(&["pw", "groupadd", "-n"], std::slice::from_ref(g)));
                }
            }
            StepData::Timezone { zone } => {
                has(words(&["tzsetup", "-s"], std::slice::from_ref(zone)))
            }
            StepData::Sysrc { vars, .. } => {
                for v in vars {
                    let assign = format!("{}={}", v.name, v.value);
                    has(words(
                        &["sysrc", "-f", "$BERYL_ROOT/etc/rc.conf"],
                        &[assign],
                    ));
                }
            }
            StepData::Keys { keys, .. } => has(words(&["printf", "%s\\n"], keys)),
            StepData::Sudoers { lines, .. } => has(words(&["printf", "%s\\n"], lines)),
            StepData::Sshd { settings, .. } => {
                has(words(&["printf", "%s\\n", "# Set by beryl."], settings))
            }
        }
    }
}

/// The variables of the apply script's own frame, and the commands its
/// checks substitute.
const APPLY_PARAMS: &[&str] = &[
    "BERYL_ROOT",
    "BERYL_DRY_RUN",
    "1",
    "2",
    "3",
    "changed",
    "unchanged",
    "failed",
    "out",
    "status",
    "?",
];
const APPLY_SUBS: &[&str] = &["cat", "pw", "sha256", "stat", "$3"];

fn apply_script(text: &str, steps: &[beryl::apply::Step]) {
    let commands = sh::lex(text).unwrap_or_else(|e| panic!("{e}:\n{text}"));
    check_apply(&commands, text);
    for step in steps {
        let change = sh::lex(&step.change).unwrap_or_else(|e| panic!("{e}: {}", step.change));
        if let beryl::apply::Desired::Package { name } = &step.desired {
            assert_eq!(
                sh::argv(&change[0]),
                ["pkg", "install", "-y", name.as_str()]
            );
        }
    }
}

fn check_apply(commands: &[Command], text: &str) {
    for w in sh::words(commands) {
        assert!(
            w.other
                .iter()
                .all(|o| o.starts_with("((") && !o.contains('`')),
            "`{}`: {:?}\n{text}",
            w.text,
            w.other
        );
        for p in &w.params {
            assert!(
                APPLY_PARAMS.contains(&p.as_str()),
                "`${p}` expanded:\n{text}"
            );
        }
        for sub in &w.subs {
            let first = sub.first().and_then(|c| c.first()).map(|w| w.text.as_str());
            assert!(
                first.is_some_and(|f| APPLY_SUBS.contains(&f)),
                "$({first:?} …) in:\n{text}"
            );
        }
    }
}
