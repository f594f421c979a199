//! `plan`: the install plan and the apply script, on arbitrary valid configs.
//!
//! The input chooses a host's `freebsd` settings field by field from values
//! the schema accepts, and one field (or none) whose values may instead be
//! hostile strings (quotes, `$(…)`, line breaks, options) or arbitrary text.
//! The config is compiled in memory (merged with Beryl's rules, references
//! resolved, then [`beryl::compile::complete`]); one that fails validation or
//! the install requirements is skipped. For the others the installerconfig
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
use beryl::compile::{MergedDoc, complete};
use beryl::install::{self, render::Templates};
use beryl::merge::{Policy, merge_documents};
use beryl::resource::Resource;
use beryl::resource::root_password::RootPassword;
use beryl::resource::user::User;
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

/// The fields, in the order they are generated; one of them is "hot".
const FIELDS: &[&str] = &[
    "hostname",
    "timezone",
    "disks",
    "pool",
    "swap",
    "packages",
    "sudoers",
    "name",
    "comment",
    "shell",
    "primary_group",
    "groups",
    "key comment",
    "key options",
    "install",
    "version",
    "interfaces",
    "routers",
    "nameservers",
    "rc_conf",
    "sshd",
];

struct Gen<'a, 'b> {
    u: &'a mut Unstructured<'b>,
    at: Places,
    /// The field whose values may be hostile (none when out of range): one
    /// at a time, so that most configs pass validation and reach the
    /// generators, and a refusal points at that field.
    hot: usize,
    field: usize,
}

impl Gen<'_, '_> {
    /// Starts the values of a field.
    fn field(&mut self, name: &str) {
        self.field = FIELDS.iter().position(|f| *f == name).unwrap_or(usize::MAX);
    }

    /// A string: one of `valid`, or, in the hot field, often hostile or
    /// arbitrary text.
    fn pick(&mut self, valid: &[&str]) -> Result<Node> {
        let hot = self.field == self.hot;
        let s = match self.u.int_in_range(0..=7)? {
            0 | 1 if hot => self.u.choose(HOSTILE)?.to_string(),
            2 if hot => String::arbitrary(self.u)?,
            3 if hot => format!("{}{}", self.u.choose(valid)?, self.u.choose(HOSTILE)?),
            _ => self.u.choose(valid)?.to_string(),
        };
        Ok(self.node(Value::Str(s)))
    }

    fn node(&mut self, v: Value) -> Node {
        Node::new(v, self.at.span())
    }

    fn strings(&mut self, items: Vec<String>) -> Node {
        let items = items
            .into_iter()
            .map(|s| self.node(Value::Str(s)))
            .collect();
        self.node(Value::Seq(items))
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
        self.field("key comment");
        let comment = self.pick(&["", "alice@laptop", "a b c", "ops"])?;
        self.field("key options");
        let options = self.pick(&[
            "",
            "no-pty",
            "from=\"10.0.0.0/8\"",
            "command=\"echo 'a b'\"",
        ])?;
        let options = match options.as_str().unwrap_or_default() {
            "" => String::new(),
            o => format!("{o} "),
        };
        let text = format!("{options}{KEY} {}", comment.as_str().unwrap_or_default());
        Ok(self.node(Value::Str(text)))
    }

    fn user(&mut self, name: &str) -> Result<Node> {
        self.field("name");
        let name = self.pick(&[name])?;
        let uid = self.u.int_in_range(1000..=70000)?;
        let uid = self.node(Value::Int(i64::from(uid)));
        self.field("comment");
        let comment = self.pick(&["Alice Martin", "Bob (ops)", "x", "Ünïcode"])?;
        self.field("shell");
        let shell = self.pick(&["/bin/sh", "/bin/csh", "/bin/tcsh", "/usr/sbin/nologin"])?;
        self.field("primary_group");
        let primary = self.pick(&["staff", "wheel", "dev", "www"])?;
        self.field("groups");
        let groups = self.list(&["wheel", "operator", "www", "dba", "dev"], 3)?;
        let mut keys = Vec::new();
        for _ in 0..self.u.int_in_range(0..=2)? {
            keys.push(self.key()?);
        }
        let keys = self.node(Value::Seq(keys));
        let state = if self.u.ratio(1, 8)? {
            "absent"
        } else {
            "present"
        };
        let state = self.node(Value::Str(state.into()));
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
        self.field("interfaces");
        for name in ["vtnet0", "em1"]
            .into_iter()
            .take(self.u.int_in_range(1..=2)?)
        {
            let v4 = self.pick(&["dhcp", "192.0.2.10/24", "10.0.0.5/8"])?;
            let v6 = self.pick(&["slaac", "2001:db8::10/64"])?;
            let fields = self.some(7, vec![("ipv4", v4), ("ipv6", v6)])?;
            ifaces.push((name, self.map(fields)));
        }
        let ifaces = self.map(ifaces);
        self.field("routers");
        let gw = self.pick(&["192.0.2.1", "10.0.0.1"])?;
        let gw6 = self.pick(&["2001:db8::1", "fe80::1"])?;
        self.field("nameservers");
        let ns: Vec<String> = ["192.0.2.53", "2001:db8::53", "9.9.9.9"]
            .into_iter()
            .take(self.u.int_in_range(0..=3)?)
            .map(str::to_string)
            .collect();
        let ns = if self.hot == self.field {
            self.list(&["192.0.2.53"], 2)?
        } else {
            self.strings(ns)
        };
        let mut fields = vec![("interfaces", ifaces)];
        let more = vec![
            ("defaultrouter", gw),
            ("ipv6_defaultrouter", gw6),
            ("nameservers", ns),
        ];
        fields.extend(self.some(4, more)?);
        Ok(self.map(fields))
    }

    fn rc_conf(&mut self) -> Result<Node> {
        self.field("rc_conf");
        let mut vars = Vec::new();
        let names = [
            "ntpd_enable",
            "nginx_enable",
            "ntpd_flags",
            "x_y",
            "cron_flags",
        ];
        for name in names.into_iter().take(self.u.int_in_range(0..=3)?) {
            let value = if self.u.arbitrary()? {
                self.pick(&["YES", "NO", "-g -x", "a b", "10"])?
            } else {
                self.bool()?
            };
            vars.push((name, value));
        }
        Ok(self.map(vars))
    }

    /// Distinct disks, and a layout that takes their number.
    fn disks(&mut self) -> Result<(Node, Node)> {
        self.field("disks");
        let n = self.u.int_in_range(1..=4)?;
        let disks: Vec<String> = ["ada0", "ada1", "nda0", "vtbd0"][..n]
            .iter()
            .map(|d| d.to_string())
            .collect();
        let disks = if self.hot == self.field {
            self.list(&["ada0", "da1"], 3)?
        } else {
            self.strings(disks)
        };
        let layouts: &[&str] = match n {
            1 => &["stripe"],
            2 => &["stripe", "mirror"],
            3 => &["stripe", "mirror", "raidz1"],
            _ => &["stripe", "mirror", "raid10", "raidz1", "raidz2"],
        };
        let raid = self.u.choose(layouts)?.to_string();
        Ok((disks, self.node(Value::Str(raid))))
    }

    fn freebsd(&mut self) -> Result<Node> {
        self.field("hostname");
        let hostname = self.pick(&["web01.example.org", "h1.example.org", "a-b.c"])?;
        self.field("timezone");
        let timezone = self.pick(&["UTC", "Europe/Paris", "America/New_York", "Etc/GMT+5"])?;
        let (disks, raid) = self.disks()?;
        self.field("pool");
        let pool = self.pick(&["zroot", "tank", "z_1"])?;
        self.field("swap");
        let swap = self.pick(&["2g", "0", "512m", "8G"])?;
        self.field("packages");
        let mut packages = self.list(
            &["tmux", "security/sudo", "bash", "devel/py-foo@py311", "vim"],
            3,
        )?;
        if let Value::Seq(items) = &mut packages.value
            && self.u.ratio(3, 4)?
        {
            items.push(Node::new(Value::Str("sudo".into()), self.at.span()));
        }
        self.field("sudoers");
        let sudoers = self.list(
            &[
                "%wheel ALL=(ALL:ALL) NOPASSWD: ALL",
                "Defaults env_keep += \"SSH_AUTH_SOCK\"",
                "alice ALL=(ALL) ALL",
            ],
            2,
        )?;
        let mut sudoers = sudoers;
        // The rule that lets apply in as alice (`ssh:` below), most times.
        if let Value::Seq(items) = &mut sudoers.value
            && self.u.ratio(3, 4)?
        {
            items.push(Node::new(
                Value::Str("alice ALL=(ALL) NOPASSWD: ALL".into()),
                self.at.span(),
            ));
        }
        let mut users = Vec::new();
        for name in ["alice", "bob", "o-neil"]
            .into_iter()
            .take(self.u.int_in_range(1..=3)?)
        {
            users.push(self.user(name)?);
        }
        let users = self.node(Value::Seq(users));
        self.field("install");
        // pkgbase is refused on every release (desired::build): rarely.
        let install = self.pick(&["dists", "dists", "dists", "pkgbase"])?;
        self.field("version");
        let version = self.pick(&["15.0", "14.3"])?;
        let network = self.network()?;
        let rc_conf = self.rc_conf()?;
        self.field("sshd");
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
            ("network", network),
            ("packages", packages),
        ];
        let more = vec![
            ("hostname", hostname),
            ("pool", pool),
            ("swap", swap),
            ("sudoers", sudoers),
            ("install", install),
            ("version", version),
            ("rc_conf", rc_conf),
            ("sshd", sshd),
        ];
        fields.extend(self.some(5, more)?);
        Ok(self.map(fields))
    }
}

pub fn run(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(hot) = u.int_in_range(0..=FIELDS.len() + 3) else {
        return;
    };
    let mut g = Gen {
        u: &mut u,
        at: Places::new("example.org/h1.yml"),
        hot,
        field: usize::MAX,
    };
    let Ok(freebsd) = g.freebsd() else { return };
    let Ok(domain_key) = g.key() else { return };
    let domain = if g.u.ratio(3, 4).unwrap_or(true) {
        vec![domain_key]
    } else {
        Vec::new()
    };
    let domain = g.node(Value::Seq(domain));
    let user = g.node(Value::Str("alice".into()));
    let elevate = g.node(Value::Str("sudo".into()));
    let ssh = g.map(vec![("user", user), ("become", elevate)]);
    let doc = g.map(vec![
        ("ssh_keys", domain),
        ("ssh", ssh),
        ("freebsd", freebsd),
    ]);
    check(doc);
}

/// What `beryl plan` compiles for the host, but from the document in memory:
/// merged with Beryl's rules, references resolved, keys and validation. A
/// config that fails is skipped.
fn compile(doc: Node) -> Option<beryl::compile::Compiled> {
    let doc = Arc::new(doc);
    let mut merged = merge_documents(&[&*doc], &Policy::beryl(), None).ok()?;
    let references = beryl::refs::resolve(&mut merged, &Default::default()).ok()?;
    let levels = vec![MergedDoc {
        file: "example.org/h1.yml".into(),
        written: doc.clone(),
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
    let Ok(host) = beryl::desired::build("h1.example.org", &compiled) else {
        return;
    };
    let steps = beryl::apply::steps(&host).expect("validated values quote");
    apply_script(
        &beryl::apply::script::script("h1.example.org", &steps, Default::default())
            .expect("the script quotes"),
        &steps,
    );
    let Ok(plan) = install::build("h1.example.org", &compiled) else {
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

/// The parameters the installerconfig expands: the disk loop's partition,
/// the home pw gave a user, bsdinstall's own DISTDIR and DISTSITE (for
/// the MANIFEST), and the directory of the throwaway host key `sshd -t`
/// checks the new sshd_config with.
pub const INSTALL_PARAMS: &[&str] = &[
    "p",
    "home",
    "BSDINSTALL_DISTDIR",
    "BSDINSTALL_DISTSITE",
    "beryl_key",
];

/// The commands the installerconfig substitutes: pw (a user's home) and
/// mktemp (the throwaway host key's directory).
pub const INSTALL_SUBS: &[&str] = &["pw", "mktemp"];

fn installerconfig(text: &str, plan: &install::InstallerConfig) {
    let commands = sh::lex(text).unwrap_or_else(|e| panic!("{e}:\n{text}"));
    for w in sh::words(&commands) {
        assert!(w.other.is_empty(), "`{}`:\n{text}", w.text);
        for sub in &w.subs {
            let first = sub.first().and_then(|c| c.first()).map(|w| w.text.as_str());
            assert!(
                first.is_some_and(|f| INSTALL_SUBS.contains(&f)),
                "$(…) in `{}`:\n{text}",
                w.text
            );
        }
        for p in &w.params {
            assert!(
                INSTALL_PARAMS.contains(&p.as_str()),
                "`${p}` expanded:\n{text}"
            );
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
    has(vec!["printf".into(), "%s\\n".into(), plan.summary.clone()]);
    has(words(&["export"], &["PATH".into()]));
    for step in &plan.steps {
        match &step.resource {
            Resource::User(User::Present(a)) => {
                let mut argv = vec!["-n".to_string(), a.name.clone(), "-m".into()];
                let mut opt = |flag: &str, v: Option<String>| {
                    if let Some(v) = v {
                        argv.extend([flag.to_string(), v]);
                    }
                };
                opt("-s", a.shell.clone());
                opt("-g", a.primary_group.clone());
                opt("-G", (!a.groups.is_empty()).then(|| a.groups.join(",")));
                opt("-c", a.comment.clone());
                opt("-u", a.uid.map(|u| u.to_string()));
                argv.extend(["-h".into(), "-".into()]);
                has(words(&["pw", "useradd"], &argv));
            }
            Resource::Packages(p) => has(words(
                &["env", "ASSUME_ALWAYS_YES=yes", "pkg", "install", "-y"],
                &p.packages,
            )),
            Resource::Group(g) => has(words(
                &["pw", "groupadd", "-n"],
                std::slice::from_ref(&g.name),
            )),
            Resource::Timezone(t) => has(words(&["tzsetup", "-s"], std::slice::from_ref(&t.zone))),
            Resource::Rc(v) => has(words(
                &["sysrc", "-f", "/etc/rc.conf"],
                &[format!("{}={}", v.name, v.value)],
            )),
            Resource::Keys(k) => has(words(&["printf", "%s\\n"], &k.keys)),
            Resource::File(f) => has(words(&["printf", "%s"], std::slice::from_ref(&f.content))),
            Resource::Sshd(s) => {
                let mut lines: Vec<String> =
                    s.settings.iter().map(|(k, v)| format!("{k} {v}")).collect();
                lines.push("# End of the settings set by beryl.".into());
                has(words(&["printf", "%s\\n", "# Set by beryl."], &lines));
                if !s.matches.is_empty() {
                    let tail: Vec<String> = s
                        .matches
                        .iter()
                        .flat_map(|b| {
                            std::iter::once(format!("Match {}", b.criteria))
                                .chain(b.settings.iter().map(|(k, v)| format!("\t{k} {v}")))
                        })
                        .collect();
                    has(words(
                        &["printf", "%s\\n", "# Match blocks set by beryl."],
                        &tail,
                    ))
                }
            }
            Resource::RootPassword(RootPassword { hash: None }) => {
                has(words(&["pw", "usermod", "-n", "root", "-h", "-"], &[]))
            }
            Resource::RootPassword(RootPassword { hash: Some(h) }) => {
                has(words(&["printf", "%s\\n"], std::slice::from_ref(h)))
            }
            Resource::Service(svc) => has(words(
                &["sysrc", "-f", "/etc/rc.conf"],
                &[format!(
                    "{}={}",
                    svc.rcvar,
                    if svc.enable { "YES" } else { "NO" }
                )],
            )),
            Resource::User(User::Absent { .. }) => {
                panic!("a user removed during an install:\n{text}")
            }
            Resource::Zpool(p) => {
                let head = [
                    "zpool".to_string(),
                    "create".into(),
                    "-f".into(),
                    "-o".into(),
                    format!("cachefile={}", p.cachefile),
                    p.name.clone(),
                ];
                has(words(&[], &[&head[..], &p.vdevs[..]].concat()))
            }
            Resource::Zfs(d) if d.destroy => {
                panic!("a dataset destroyed during an install:\n{text}")
            }
            Resource::Zfs(d) => {
                let mut argv = Vec::new();
                for p in &d.props {
                    argv.extend(["-o".to_string(), format!("{}={}", p.name, p.value)]);
                }
                argv.push(d.name.clone());
                has(words(&["zfs", "create", "-p"], &argv))
            }
            // A jail is made by apply, never by the install (issue 36):
            // no install plan holds these.
            Resource::JailBase(_)
            | Resource::JailState(_)
            | Resource::JailConf(_)
            | Resource::Jail(_) => {}
            Resource::ZfsUnmount(u) => {
                for pool in &u.pools {
                    has(words(
                        &[
                            "zfs",
                            "list",
                            "-H",
                            "-o",
                            "name,mounted",
                            "-r",
                            "-t",
                            "filesystem",
                        ],
                        std::slice::from_ref(pool),
                    ))
                }
            }
            Resource::Sysctl(t) => {
                let (name, value) = (&t.name, &t.value);
                let (n, v) = (format!("name={name}"), format!("value={value}"));
                let head = ["awk", "-v", n.as_str(), "-v", v.as_str()];
                let found = commands.iter().any(|c| sh::argv(c).starts_with(&head));
                assert!(found, "no sysctl.conf edit for {name} in:\n{text}");
            }
            Resource::Loader(t) => has(words(
                &["sysrc", "-f", "/boot/loader.conf"],
                &[format!("{}={}", t.name, t.value)],
            )),
            Resource::Cron(e) => has(words(&["printf", "%s"], std::slice::from_ref(&e.content))),
        }
    }
}

/// The variables of the apply script's own frame, and the commands its
/// checks substitute.
const APPLY_PARAMS: &[&str] = &[
    // The jail kind's pruning (issue 36, src/resource/jail.rs PRUNE): the
    // record id `NAME DATASET` split into its words, each used quoted.
    "1%% *",
    "1#* ",
    "_n",
    "_ds",
    "_c",
    // templates/lib.sh and the kinds' scripts (issue 32).
    "file_place",
    "stage",
    "TMPDIR",
    "staged",
    "where",
    "keys_change",
    "keys_check",
    "1##*/",
    "1%/*",
    "_who",
    "_d%/",
    "_c",
    "_rest#*/",
    "_rest%%/*",
    "_rest",
    "_w",
    "_o",
    "_m",
    "_s#* ",
    "_s% *",
    "_d",
    "1#/",
    "_g",
    "_g%%,*",
    "_u",
    "_pg",
    "PATH",
    "BERYL_DRY_RUN",
    "home",
    "_v",
    "_val",
    "_n",
    "_f",
    "@",
    "1",
    "2",
    "3",
    "4",
    "changed",
    "unchanged",
    "failed",
    "out",
    "status",
    "?",
    // The record and pruning (src/apply/prune.rs).
    "#",
    "5",
    "6",
    "record",
    "created",
    "pruned",
    "desired",
    "prune",
    "new",
    "line",
    "line%% *",
    "line#* ",
    "kind",
    "id",
    "why",
    "_old",
    "_new",
    // The notify handlers (src/apply/script.rs).
    "stepped",
    "notified",
    "_e",
    // `${_e%:*}` and `${_e##*:}`: the fuzz lexer stops a name at `:`.
    "_e%",
    "_e##*",
    "_found",
    "_s",
    "_a",
    // The sshd step's throwaway host key (src/resource/sshd.rs VALIDATE).
    "beryl_key",
    // The jails' lib (issue 36, src/apply/script.rs JAIL_LIB): foreign_jails
    // and jail_apply.
    "_f##*/",
    "_n%.conf",
    "_ours",
    "_all",
    "_ifs",
    "IFS",
    "_st",
    "jails_failed",
    // A host row of jails (beryl_jail) whose failure stops only them.
    "beryl_jail",
    "jails_blocked",
    "jails_blocked:-",
    "_j",
];
const APPLY_SUBS: &[&str] = &[
    "mktemp",
    "trusted_dir",
    "pwd",
    "gids",
    "record_refused",
    "cat",
    "pw",
    "sha256",
    "stat",
    "$3",
    "awk",
    "sysrc",
    "rcvalue",
    ".",
    "printf",
    "pkg",
    "keep_$kind",
    "remove_$kind",
    // A handler's `service NAME ACTION`.
    "service",
    "sysctl",
    // A jail's prune reads a state dataset's mark (src/resource/jail.rs).
    "zfs",
    // A brace group (issue 36: foreign_jails' name lists, jail_apply's
    // status capture). `words` walks into it, so every parameter and
    // substitution inside is still held to these lists.
    "{",
];

fn apply_script(text: &str, steps: &[beryl::apply::Step]) {
    let commands = sh::lex(text).unwrap_or_else(|e| panic!("{e}:\n{text}"));
    check_apply(&commands, text);
    for step in steps {
        let change = sh::lex(&step.change).unwrap_or_else(|e| panic!("{e}: {}", step.change));
        if let beryl::resource::Want::Packages(beryl::resource::packages::Want::Package { name }) =
            &step.desired
        {
            assert_eq!(
                sh::argv(&change[0]),
                [
                    "env",
                    "ASSUME_ALWAYS_YES=yes",
                    "pkg",
                    "install",
                    "-y",
                    name.as_str()
                ]
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
