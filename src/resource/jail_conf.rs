//! `jail_conf`: a jail's `/etc/jail.conf.d/NAME.conf`, and its
//! `/etc/fstab.NAME` when it has mounts, on its host (issue 36,
//! docs/jails.md "Apply order").
//!
//! - **Text:** rendered from the jail's model ([`conf_text`],
//!   [`fstab_text`]): the defaults of jail.conf(5)'s EXAMPLES
//!   (usr.sbin/jail/jail.conf.5 @14992409: `exec.start = "/bin/sh
//!   /etc/rc"`, `exec.stop = "/bin/sh /etc/rc.shutdown"`, `exec.clean`,
//!   `mount.devfs`), then `path`, `host.hostname`, the addresses or the
//!   VNET epair, `mount.fstab` (never `depend`: jail.rs `start_order`), the rctl rules as start and stop
//!   hooks, and the parameters written. Every value is one single-quoted
//!   string whose `'`, `\` and control bytes are backslash escapes, as
//!   jaillex.l @086e0149 reads them (the single-quote rule and text2lval).
//!   The file is named after the jail: rc.d/jail picks
//!   `/etc/jail.conf.d/NAME.conf` for `jail_list`'s NAME
//!   (libexec/rc/rc.d/jail @c96d5c97, parse_options).
//! - **Apply:** the check compares each file's sha256 and that it is a
//!   plain file; the change writes each beside its place (`.beryl-NAME`),
//!   validates the staged conf with `jail -f STAGED -e SEP`, which parses
//!   without acting (jail.c main, `eflag`: load_config then show_jails),
//!   requiring exit 0 AND nothing on stderr (an unresolved variable only
//!   warns and still exits 0: config.c load_config), then moves it over
//!   the old one. freebsd-jails.md §1.4 holds the reading.
//! - **Records:** `jail NAME DATASET` when the conf was not there and the
//!   jail was not running ([`super::jail::PRUNE`]).

use serde::Serialize;

use super::jail_state::Thin;
use super::state::{State, Type};
use super::verdict::{Action, Verdict, change};
use super::{Input, Kind, Record, Resource, Shell};
use crate::fsutil::sha256_hex;
use crate::schema::{Jail, JailLayout};
use crate::shell::{QuoteError, word as w};

/// Where rc.d/jail looks for a jail's own file.
pub(crate) const CONF_DIR: &str = "/etc/jail.conf.d";

/// The separator `jail -e` joins a jail's parameters with: a tab, so that a
/// parameter can never hold it unescaped.
const SEPARATOR: &str = "\t";

/// A jail's files on its host.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JailConf {
    /// jail(8) `name`.
    pub name: String,
    /// The dataset of its root, recorded with it.
    pub dataset: String,
    /// `/etc/jail.conf.d/NAME.conf` and its text.
    pub conf: String,
    pub conf_text: String,
    /// `/etc/fstab.NAME` and its text, when the jail has mounts.
    pub fstab: Option<(String, String)>,
}

/// The conf's path.
pub(crate) fn conf_path(name: &str) -> String {
    format!("{CONF_DIR}/{name}.conf")
}

/// Where jail(8) writes what the commands it runs in the jail print
/// (`exec.consolelog`: exec.start's /etc/rc, exec.stop's rc.shutdown),
/// instead of its own output: the name rc.d/jail gives it
/// (libexec/rc/rc.d/jail @065edb73, parse_options:
/// `/var/log/jail_${_j}_console.log`). jail(8) opens it on the host with
/// O_APPEND before it enters the jail and waits for the command itself,
/// not for the end of its output (usr.sbin/jail/command.c run_command,
/// index id 1427912018): a daemon /etc/rc leaves holding its output holds
/// this file, not the apply step that started the jail.
pub(crate) fn console_log(name: &str) -> String {
    format!("/var/log/jail_{name}_console.log")
}

/// The fstab's path (jail.conf(5) `mount.fstab`).
pub(crate) fn fstab_path(name: &str) -> String {
    format!("/etc/fstab.{name}")
}

/// A jail.conf string: single-quoted, `'` and `\` escaped with a backslash,
/// any control byte or DEL as a three-digit octal escape (jaillex.l
/// @086e0149: `'([^\'\\]|\\(.|\n))*'`, then text2lval turns `\c` into `c`
/// and `\NNN` into the byte).
pub(crate) fn quote(value: &str) -> String {
    let mut out = String::from("'");
    for c in value.chars() {
        match c {
            '\'' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 32 || c as u32 == 127 => out.push_str(&format!("\\{:03o}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// `NAME = VALUE;`, a valueless boolean for `true`, the `no` name for
/// `false` (config.c bool_param: the `no` prefix on the last component).
fn param(name: &str, value: &str) -> String {
    match value {
        "true" => format!("\t{name};\n"),
        "false" => {
            let (head, last) = name.rsplit_once('.').map_or(("", name), |(h, l)| (h, l));
            let sep = if head.is_empty() { "" } else { "." };
            format!("\t{head}{sep}no{last};\n")
        }
        _ => format!("\t{name} = {};\n", quote(value)),
    }
}

/// `/etc/jail.conf.d/NAME.conf` of a jail, `hostname` its `host.hostname`
/// and `fqdn` its name in the inventory (in the header only).
pub(crate) fn conf_text(fqdn: &str, jail: &Jail, hostname: &str) -> String {
    let name = &jail.name.value;
    let mut out = format!(
        "# Written by beryl for {fqdn}: replaced on every apply; edit the inventory.\n{name} {{\n"
    );
    out.push_str(&param("exec.start", "/bin/sh /etc/rc"));
    out.push_str(&param("exec.stop", "/bin/sh /etc/rc.shutdown"));
    out.push_str(&param("exec.consolelog", &console_log(name)));
    out.push_str("\texec.clean;\n\tmount.devfs;\n");
    out.push_str(&param("path", &jail.path.value));
    out.push_str(&param("host.hostname", hostname));
    let net = &jail.network;
    match &net.vnet {
        None => {
            let iface = net.interface.as_ref().map(|i| format!("{}|", i.value));
            let iface = iface.as_deref().unwrap_or("");
            for (key, addrs) in [("ip4.addr", &net.ip4), ("ip6.addr", &net.ip6)] {
                if !addrs.is_empty() {
                    let list: Vec<String> = addrs
                        .iter()
                        .map(|a| quote(&format!("{iface}{}", a.value)))
                        .collect();
                    out.push_str(&format!("\t{key} = {};\n", list.join(", ")));
                }
            }
        }
        Some(v) => {
            let n = v.epair.value;
            let (a, b) = (format!("epair{n}a"), format!("epair{n}b"));
            out.push_str("\tvnet;\n");
            out.push_str(&param("vnet.interface", &b));
            // The hooks name their tools by path: with exec.clean, jail(8)
            // runs them with PATH=/bin:/usr/bin, which the login class may
            // or may not widen (command.c run_command, freebsd-src
            // @2a178238 index id 1427912018: `if (clean)` holds for
            // commands on the host too). Found in the harness: `ifconfig:
            // not found` in api's exec.prestart.
            // Made at start when absent (jib addm's idiom), the host side in
            // the bridge, both MACs set (if_epair.c @02f70f66: the default
            // ones change on every create); destroyed after stop, which
            // destroys both sides (epair_clone_destroy).
            let start = format!(
                "/sbin/ifconfig {a} >/dev/null 2>&1 || {{ /sbin/ifconfig epair{n} create >/dev/null && /sbin/ifconfig {a} ether {ma} up && /sbin/ifconfig {b} ether {mb} && /sbin/ifconfig {br} addm {a}; }}",
                ma = v.mac_host,
                mb = v.mac.value,
                br = v.bridge.value,
            );
            out.push_str(&format!("\texec.prestart += {};\n", quote(&start)));
            out.push_str(&format!(
                "\texec.poststop += {};\n",
                quote(&format!("/sbin/ifconfig {a} destroy"))
            ));
        }
    }
    if !jail.mounts.is_empty() || jail.base.layout.value == JailLayout::Nullfs {
        out.push_str(&param("mount.fstab", &fstab_path(name)));
    }
    // No `depend` line: jail(8) would look for the named jail in this file
    // only, and fail ([`super::jail::start_order`] keeps the order instead).
    // The rules live and die with the jail: added before it is created,
    // removed after it is gone (rctl.c: `-a RULE`, `-r jail:NAME`, which
    // fails when nothing matched, hence `|| true`). freebsd-jails-2.md §1.
    for rule in &jail.rctl {
        out.push_str(&format!(
            "\texec.prestart += {};\n",
            quote(&format!("/usr/bin/rctl -a jail:{name}:{}", rule.value))
        ));
    }
    if !jail.rctl.is_empty() {
        out.push_str(&format!(
            "\texec.poststop += {};\n",
            quote(&format!("/usr/bin/rctl -r jail:{name} || true"))
        ));
    }
    for p in &jail.parameters {
        out.push_str(&param(&p.name.value, &p.value.value));
    }
    out.push_str("}\n");
    out
}

/// `/etc/fstab.NAME`: one nullfs line per mount, the target inside the
/// jail's root (fstab(5) fields `dev dir type opts dump pass`; jail(8)
/// command.c reads at least three, and refuses a target below `path` with
/// a symbolic link in it: check_path). `None` without mounts.
///
/// A nullfs jail's ([`super::jail_state`]) come first: its shared base
/// read-only on the root, then each state dataset read-write on its
/// directory (mounted where the base has it). jail(8) mounts the lines in
/// the file's order and unmounts them in reverse (usr.sbin/jail/command.c
/// @2a178238 next_command: a parameter's values first to last, last to
/// first when stopping a PF_REV one, which mount.fstab is: config.c, index
/// id 913964538, intparams), so the base
/// is under the state mounts, and the jail's own mounts come last.
pub(crate) fn fstab_text(jail: &Jail, thin: Option<&Thin>) -> Option<String> {
    let nullfs = thin.filter(|t| t.layout == JailLayout::Nullfs);
    if jail.mounts.is_empty() && nullfs.is_none() {
        return None;
    }
    let root = jail.path.value.trim_end_matches('/');
    let mut out = String::from("# Written by beryl: the jail's nullfs mounts (mount.fstab).\n");
    if let Some(t) = nullfs {
        out.push_str(&format!(
            "{}\t{}\tnullfs\tro\t0\t0\n",
            fstab_field(&t.golden_mount),
            fstab_field(root)
        ));
        for d in &jail.base.state {
            out.push_str(&format!(
                "{}\t{root}{}\tnullfs\trw\t0\t0\n",
                fstab_field(&super::jail_state::stage(&jail.name.value, &d.value)),
                fstab_field(&d.value)
            ));
        }
    }
    for m in &jail.mounts {
        let opts = if m.ro { "ro" } else { "rw" };
        out.push_str(&format!(
            "{}\t{root}{}\tnullfs\t{opts}\t0\t0\n",
            fstab_field(&m.source.value),
            fstab_field(&m.target.value)
        ));
    }
    Some(out)
}

/// An fstab(5) field: a blank or a backslash as getfsent(3) reads it back
/// (`\040`, `\134`, octal escapes).
fn fstab_field(s: &str) -> String {
    s.replace('\\', "\\134")
        .replace(' ', "\\040")
        .replace('\t', "\\011")
}

/// Each jail of the host, its files.
pub(crate) fn layout(input: &Input<'_>) -> Vec<Resource> {
    super::items(input.jails.iter().filter_map(|j| {
        let jail = j.compiled.freebsd.jail.as_ref()?;
        let name = jail.name.value.clone();
        let hostname =
            super::text(&j.compiled.freebsd.hostname).unwrap_or_else(|| j.fqdn.to_string());
        Some(JailConf {
            conf: conf_path(&name),
            conf_text: conf_text(j.fqdn, jail, &hostname),
            fstab: fstab_text(jail, super::jail_state::thin(input, j).as_ref())
                .map(|t| (fstab_path(&name), t)),
            dataset: jail.dataset.name.value.clone(),
            name,
        })
    }))
}

/// `same FILE TEXT`: FILE is a plain file (no link) whose sha256 is TEXT's.
fn same(path: &str, text: &str) -> Result<String, QuoteError> {
    let p = w(path)?;
    Ok(format!(
        "[ -f {p} ] && [ ! -L {p} ] && [ \"$(sha256 -q {p})\" = {} ]",
        sha256_hex(text)
    ))
}

/// Writes TEXT to the staged dot-file beside PATH (0644 root:wheel).
fn stage(path: &str, text: &str) -> Result<String, QuoteError> {
    Ok(format!(
        "rm -f {s} && (umask 022 && printf '%s' {t} > {s})",
        s = w(&super::file::staged(path))?,
        t = w(text)?
    ))
}

impl Kind for JailConf {
    type Want = JailConf;
    const NAME: &'static str = "jail_conf";
    /// A jail is made by apply, never by the install.
    const TEMPLATE: Option<&'static str> = None;

    fn id(&self) -> String {
        format!("jail_conf:{}", self.name)
    }

    fn records(&self) -> Vec<Record> {
        vec![Record::new(
            "jail",
            format!("{} {}", self.name, self.dataset),
        )]
    }

    fn installed(&self) -> bool {
        false
    }

    fn wants(&self) -> Vec<JailConf> {
        vec![self.clone()]
    }

    fn step_id(want: &JailConf) -> String {
        want.id()
    }

    fn shell(j: &JailConf) -> Result<Shell, QuoteError> {
        let mut check = vec![same(&j.conf, &j.conf_text)?];
        let staged = w(&super::file::staged(&j.conf))?;
        let mut change = vec![
            format!("mkdir -p {}", w(CONF_DIR)?),
            stage(&j.conf, &j.conf_text)?,
            // Parsed without acting: exit 0 and nothing on stderr. A brace
            // group: a failed mkdir or stage above says its own words, not
            // "jail -e refused" with `$_err` unset (fatal under `set -u`).
            format!(
                "{{ _err=''; _err=$(jail -f {staged} -e {} 2>&1 >/dev/null) && [ -z \"$_err\" ] || {{ printf '%s\\n' \"jail -e refused the new conf: $_err\" >&2; rm -f {staged}; false; }}; }}",
                w(SEPARATOR)?
            ),
        ];
        if let Some((path, text)) = &j.fstab {
            check.push(same(path, text)?);
            change.push(stage(path, text)?);
            change.push(format!(
                "mv -f {} {}",
                w(&super::file::staged(path))?,
                w(path)?
            ));
        }
        change.push(format!("mv -f {staged} {}", w(&j.conf)?));
        Ok(Shell {
            check: check.join(" && "),
            change: change.join(" && "),
        })
    }

    /// As the step's check decides: each file a plain file whose sha256 is
    /// the text's; the report shows what differs as a diff of the lines
    /// (the conf is no secret: 0644, and the facts read it as root only
    /// where only root can change its directory).
    fn judge(j: &JailConf, s: &State) -> Verdict {
        let facts = s.jails.get(&j.name);
        let mut files = vec![(
            j.conf.as_str(),
            j.conf_text.as_str(),
            facts.and_then(|f| f.conf.as_ref()),
        )];
        if let Some((path, text)) = &j.fstab {
            files.push((path, text, facts.and_then(|f| f.fstab.as_ref())));
        }
        let mut changes = Vec::new();
        let mut diffs = Vec::new();
        let conf_absent = files[0].2.is_none();
        for (path, text, have) in files {
            let want = sha256_hex(text);
            let Some(have) = have else {
                changes.push(change(path, "absent", &format!("sha256:{}", short(&want))));
                diffs.push(crate::textdiff::unified(
                    "",
                    text,
                    Some(("/dev/null", path)),
                    3,
                ));
                continue;
            };
            match have.kind {
                Type::File | Type::Dir if have.sha256 == want => {}
                Type::File | Type::Dir if !have.private => {
                    changes.push(change(
                        path,
                        &format!("sha256:{}", short(&have.sha256)),
                        &format!("sha256:{}", short(&want)),
                    ));
                    diffs.push(crate::textdiff::unified(
                        &have.content,
                        text,
                        Some((&format!("{path} (current)"), &format!("{path} (desired)"))),
                        3,
                    ));
                }
                Type::File | Type::Dir => changes.push(change(
                    path,
                    &format!("sha256:{}", short(&have.sha256)),
                    &format!("sha256:{}", short(&want)),
                )),
                // The check wants a plain file: the change puts one in the
                // link's place (mv replaces the link, never follows it).
                Type::Link => changes.push(change(path, "symbolic link", "file")),
                Type::Untrusted => {
                    changes.push(change(path, "in a directory others can write", "file"))
                }
            }
        }
        let diff = (!diffs.is_empty()).then(|| diffs.concat());
        if conf_absent {
            return Verdict::new(Action::Create, changes, diff);
        }
        Verdict::update(changes, diff)
    }

    /// The facts look at every jail the config names.
    fn query(j: &JailConf) -> Option<Record> {
        Some(Record::new("jail", format!("{} {}", j.name, j.dataset)))
    }
}

/// A digest's first 12 hex digits, as a report shows it.
fn short(digest: &str) -> &str {
    digest.get(..12).unwrap_or(digest)
}

#[cfg(test)]
mod tests;
