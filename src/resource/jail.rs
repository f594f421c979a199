//! `jail`: a jail of the host, running as its conf says (issue 36,
//! docs/jails.md "Apply order").
//!
//! - **Apply:** the check: `jls -j NAME` finds it (jls.c: exit 1 when
//!   absent), it was started by beryl from the conf as it is now (the digest
//!   of what only a start reads, [`restart_key`], in beryl's own
//!   `/var/db/beryl/jails/NAME.start`, which only root writes), and each
//!   live parameter is as written (`jls -j NAME -n P` prints `P=V`, a
//!   boolean `P` or `noP`: jls.c print_jail). The change: not running →
//!   `jail -f CONF -c NAME`; started from another `path`, network or mounts
//!   (kern_jail.c: `path` and `vnet` are CTLFLAG_RDTUN, and jail(8) acts on
//!   interfaces, mounts and exec hooks only at start and stop:
//!   freebsd-jails.md §1.5, §1.7) → with `restart: on_change`, `jail -f
//!   CONF -r NAME` then `-c` (not `-rc`: the mount targets are checked in
//!   between, while the jail is not running), with `restart: never` a note
//!   (the start digest is acknowledged in `NAME.pending`, like the loader's
//!   reboot note); a live parameter that differs → `jail -f CONF -m NAME`
//!   (jail.c `-m`: update_jail with the parameters that are not RDTUN).
//! - **Mounts:** before every start, each nullfs target under the jail's
//!   root is checked for a symbolic link in any component: a jail's root
//!   controls its tree, and a link planted at `PATH/usr/local/www` would
//!   make the mount land on the host's `/etc`. jail(8) refuses such a
//!   target itself (command.c check_path), beryl refuses first, saying why.
//! - **Records:** `jail NAME DATASET`, written by `jail_conf` ([`PRUNE`]):
//!   once the jail leaves the inventory it is stopped, its conf and fstab
//!   removed, and its dataset destroyed only when the record holds `zfs
//!   DATASET` too (beryl created it).

use serde::Serialize;

use super::state::State;
use super::verdict::{Action, Verdict, change};
use super::{Input, Kind, Prune, Record, Resource, Shell};
use crate::fsutil::sha256_hex;
use crate::schema::{Jail as Model, JailRestart};
use crate::shell::{QuoteError, word as w};

/// Where beryl keeps, per jail, the digest it was started with.
pub(crate) const STATE_DIR: &str = "/var/db/beryl/jails";

/// The note of a jail step whose jail may need a restart.
pub(crate) const RESTART: &str = "a change of path, network or mounts takes effect when the jail restarts: service jail restart NAME (beryl restarts a jail only with restart: on_change)";

/// Parameters jail(8) or the kernel read only when a jail is created:
/// CTLFLAG_RDTUN in sys/kern/kern_jail.c (index id 1700006880: `path`,
/// `vnet`, `osrelease`, `osreldate`, the `ip4`/`ip6` modes) and jail(8)'s
/// internal ones acted on at start or stop (usr.sbin/jail/config.c,
/// HardenedBSD-src 401050a4 intparams[]: `exec.*`, `mount*`, `interface`,
/// `vnet.interface`, `depend`, `ip_hostname`, `zfs.dataset`). A prefix
/// ends with `.`. Every other parameter changes live with `jail -m`.
const AT_START: &[&str] = &[
    "path",
    "vnet",
    "osrelease",
    "osreldate",
    "ip4",
    "ip6",
    "exec.",
    "mount",
    "mount.",
    "interface",
    "vnet.interface",
    "depend",
    "ip_hostname",
    "zfs.dataset",
    "command",
    "stop.timeout",
    "allow.dying",
];

/// Whether a parameter is read only at start ([`AT_START`]).
pub(crate) fn at_start(name: &str) -> bool {
    AT_START.iter().any(|p| match p.strip_suffix('.') {
        Some(prefix) => name.starts_with(p) || name == prefix,
        None => name == *p,
    })
}

/// A jail, running.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Jail {
    pub name: String,
    /// Its conf (`/etc/jail.conf.d/NAME.conf`).
    pub conf: String,
    /// Its root.
    pub path: String,
    /// The digest of what only a start reads ([`restart_key`]).
    pub key: String,
    /// Live parameters as `jls -n` prints them (`P=V`, `P`, `noP`).
    pub live: Vec<String>,
    /// Every directory from the root down to each mount target, each of
    /// which must not be a symbolic link when the jail starts.
    pub mount_paths: Vec<String>,
    /// Each mount target under the root, made before a start: jail(8)
    /// refuses a missing one (command.c check_path: lstat of each component
    /// below `path`, ENOENT is an error for a directory).
    pub mount_targets: Vec<String>,
    /// Restarted by apply when what only a start reads changed.
    pub restart: bool,
    /// Its `exec.consolelog` ([`super::jail_conf::console_log`]), made
    /// root's and 0600 before a start.
    pub console_log: String,
    /// Directories that hold jails' trees (the root's parent; with a thin
    /// layout the golden and state roots' too), kept root's and closed to
    /// everyone else ([`PRIVATE`]).
    pub private: Vec<String>,
}

/// What `stat -f '%Su %Lp'` prints for a directory that holds jails'
/// trees: root's, mode 0700. A jail's root user owns everything in its
/// tree and may leave a setuid-root program there (its uid 0 is the
/// host's); if host users could reach the tree, they could run it as the
/// host's root. So the directory above each tree is closed, as LXC does
/// (iocage/iocage#347, where closing the jail's own root broke its users).
pub(crate) const PRIVATE: &str = "root 700";

/// The directories kept [`PRIVATE`] for a jail: its root's parent, and
/// with a thin layout the one above the golden and state roots.
fn private_dirs(path: &str, thin: bool) -> Vec<String> {
    let parent = |p: &str| {
        let p = p.trim_end_matches('/');
        match p.rsplit_once('/') {
            Some(("", _)) | None => "/".to_string(),
            Some((d, _)) => d.to_string(),
        }
    };
    let mut dirs = vec![parent(path)];
    if thin {
        dirs.push(parent(super::jail_state::GOLDEN_ROOT));
    }
    dirs.sort();
    dirs.dedup();
    dirs
}

/// The digest of what jail(8) reads only at start: the root, host name,
/// network, mounts and hooks: the conf without its live parameters, and
/// the fstab.
pub(crate) fn restart_key(conf: &str, fstab: Option<&str>, live: &[String]) -> String {
    let start_only: String = conf
        .lines()
        .filter(|l| {
            let t = l.trim_start_matches('\t');
            !live.iter().any(|p| {
                let name = p.split_once('=').map_or(p.as_str(), |(n, _)| n);
                t.starts_with(&format!("{name};")) || t.starts_with(&format!("{name} = "))
            })
        })
        .map(|l| format!("{l}\n"))
        .collect();
    sha256_hex(&format!("{start_only}\0{}", fstab.unwrap_or("")))
}

/// `jls -n`'s form of a parameter (`true` → `P`, `false` → `noP`).
fn printed(name: &str, value: &str) -> String {
    match value {
        "true" => name.to_string(),
        "false" => match name.rsplit_once('.') {
            Some((head, last)) => format!("{head}.no{last}"),
            None => format!("no{name}"),
        },
        _ => format!("{name}={value}"),
    }
}

/// The name `jls -n` is asked for a live word (`P=V` → `P`; a boolean's
/// `noP` or `a.noP` → `P` or `a.P`: jls.c prints a boolean as its name or
/// its "no" name, the `no` on the last component). The facts print each
/// answer under this name.
pub(crate) fn asked(word: &str) -> String {
    if let Some((name, _)) = word.split_once('=') {
        return name.to_string();
    }
    match word.rsplit_once('.') {
        Some((head, last)) => format!("{head}.{}", last.strip_prefix("no").unwrap_or(last)),
        None => word.strip_prefix("no").unwrap_or(word).to_string(),
    }
}

/// The live parameters of a jail's model, `host.hostname` first.
fn live(jail: &Model, hostname: &str) -> Vec<String> {
    std::iter::once(printed("host.hostname", hostname))
        .chain(
            jail.parameters
                .iter()
                .filter(|p| !at_start(&p.name.value))
                .map(|p| printed(&p.name.value, &p.value.value)),
        )
        .collect()
}

/// Each directory from `root` down to `target` (`/usr/local/www` under
/// `/jails/www`: `/jails/www/usr`, `/jails/www/usr/local`,
/// `/jails/www/usr/local/www`), the root itself first.
fn components(root: &str, target: &str) -> Vec<String> {
    let root = root.trim_end_matches('/');
    let mut out = vec![root.to_string()];
    let mut p = root.to_string();
    for c in target.split('/').filter(|c| !c.is_empty()) {
        p = format!("{p}/{c}");
        out.push(p.clone());
    }
    out
}

/// Each jail of the host, running.
/// A host's jails in the order they are started: each after the jails of
/// the same host it names in `depend`, else in the inventory's order (a
/// cycle, which the checks refuse, is broken at the first jail left).
/// jail(8) resolves `depend` only among the jails of the one file it reads
/// (usr.sbin/jail/state.c `dep_setup`: "depends on undefined jail"), and
/// each jail has a file of its own under /etc/jail.conf.d, which rc.d/jail
/// starts one `jail -c NAME` at a time in `jail_list`'s order
/// (libexec/rc/rc.d/jail c96d5c97): so the order is beryl's, in
/// `jail_list` and in the host's steps, never a `depend` line.
pub(crate) fn start_order<'a>(jails: &[super::Jailed<'a>]) -> Vec<super::Jailed<'a>> {
    let name = |j: &super::Jailed<'_>| {
        j.compiled
            .freebsd
            .jail
            .as_ref()
            .map(|m| m.name.value.clone())
            .unwrap_or_default()
    };
    let deps = |j: &super::Jailed<'_>| -> Vec<String> {
        j.compiled
            .freebsd
            .jail
            .as_ref()
            .map(|m| m.depend.iter().map(|d| d.value.clone()).collect())
            .unwrap_or_default()
    };
    let names: Vec<String> = jails.iter().map(name).collect();
    let mut done: Vec<usize> = Vec::new();
    while done.len() < jails.len() {
        let left = |i: &usize| !done.contains(i);
        let ready = (0..jails.len()).filter(left).find(|&i| {
            deps(&jails[i]).iter().all(|d| {
                names
                    .iter()
                    .position(|n| n == d)
                    .is_none_or(|k| done.contains(&k))
            })
        });
        match ready.or_else(|| (0..jails.len()).find(left)) {
            Some(i) => done.push(i),
            None => break,
        }
    }
    done.into_iter().map(|i| jails[i]).collect()
}

pub(crate) fn layout(input: &Input<'_>) -> Vec<Resource> {
    super::items(input.jails.iter().filter_map(|j| {
        let jail = j.compiled.freebsd.jail.as_ref()?;
        let name = jail.name.value.clone();
        let hostname =
            super::text(&j.compiled.freebsd.hostname).unwrap_or_else(|| j.fqdn.to_string());
        let conf = super::jail_conf::conf_text(j.fqdn, jail, &hostname);
        let thin = super::jail_state::thin(input, j);
        let fstab = super::jail_conf::fstab_text(jail, thin.as_ref());
        let thin = thin.is_some();
        let live = live(jail, &hostname);
        let mut mount_paths: Vec<String> = jail
            .mounts
            .iter()
            .flat_map(|m| components(&jail.path.value, &m.target.value))
            .collect();
        mount_paths.dedup();
        let mount_targets = jail
            .mounts
            .iter()
            .filter_map(|m| components(&jail.path.value, &m.target.value).pop())
            .collect();
        Some(Jail {
            conf: super::jail_conf::conf_path(&name),
            path: jail.path.value.clone(),
            key: restart_key(&conf, fstab.as_deref(), &live),
            live,
            mount_paths,
            mount_targets,
            restart: jail.restart.value == JailRestart::OnChange,
            private: private_dirs(&jail.path.value, thin),
            console_log: super::jail_conf::console_log(&name),
            name,
        })
    }))
}

/// How a jail beryl made is found and removed once it left the inventory;
/// the id is `NAME DATASET`. Its dataset is destroyed only when beryl's
/// record says beryl created it and the config no longer declares it (an
/// operator keeping the data moves it to `freebsd.zfs.datasets`), and never
/// recursively: a thin jail's state datasets (children marked
/// `beryl:state`, src/resource/jail_state.rs) go first, by name; any other
/// child or a snapshot someone made (a backup) makes the destroy fail with
/// zfs's own reason, the jail stopped and its conf kept, and the next
/// apply tries again (the zfs kind's rule, zfs.rs PRUNE).
pub(crate) const PRUNE: Prune = Prune {
    kind: "jail",
    step_kind: "jail",
    exists: "_n=${1%% *}; [ -e \"/etc/jail.conf.d/$_n.conf\" ] || jls -j \"$_n\" >/dev/null 2>&1",
    keep: "false",
    remove: "_n=${1%% *}; _ds=${1#* }; _c=\"/etc/jail.conf.d/$_n.conf\"; \
{ ! jls -j \"$_n\" >/dev/null 2>&1 || if [ -f \"$_c\" ]; then jail -q -f \"$_c\" -r \"$_n\"; else jail -q -r \"$_n\"; fi; } && \
{ [ \"$_ds\" = \"$1\" ] || ! grep -qxF \"zfs $_ds\" /var/db/beryl/managed 2>/dev/null || \
printf '%s\\n' \"$desired\" | grep -qxF \"zfs $_ds\" || ! zfs list -H -o name \"$_ds\" >/dev/null 2>&1 || \
{ zfs list -H -o name -r \"$_ds\" | while IFS= read -r _s; do case $(zfs get -H -o value beryl:state \"$_s\" 2>/dev/null) in ''|-) ;; *) zfs destroy \"$_s\" || exit 1 ;; esac; done && zfs destroy \"$_ds\"; }; } && \
rm -f \"$_c\" \"/etc/fstab.$_n\" \"/var/db/beryl/jails/$_n.start\" \"/var/db/beryl/jails/$_n.pending\"",
    source: "usr.sbin/jail/jail.c (HardenedBSD-src 401050a4, id 60008187926: -r NAME with the file); usr.sbin/jls/jls.c (fel1x-developer 2d614aa2: -j NAME exits 1 when absent); openzfs cmd/zfs/zfs_main.c @be7657e3 (destroy without -r: refused while the dataset has children or snapshots)",
    kept: None,
    removal_note: Some(
        "the jail was stopped, its conf and fstab removed, and its dataset destroyed when beryl had created it",
    ),
    removal_notify: None,
    present: |s, id| {
        let name = id.split_once(' ').map_or(id, |(n, _)| n);
        s.jails
            .get(name)
            .is_some_and(|j| j.running || j.conf.is_some())
    },
};

impl Kind for Jail {
    type Want = Jail;
    const NAME: &'static str = "jail";
    /// A jail is made by apply, never by the install.
    const TEMPLATE: Option<&'static str> = None;
    const PRUNE: Option<&'static Prune> = Some(&PRUNE);

    fn id(&self) -> String {
        format!("jail:{}", self.name)
    }

    fn installed(&self) -> bool {
        false
    }

    fn wants(&self) -> Vec<Jail> {
        vec![self.clone()]
    }

    fn step_id(want: &Jail) -> String {
        want.id()
    }

    fn note(want: &Jail) -> Option<&'static str> {
        (!want.restart).then_some(RESTART)
    }

    fn shell(j: &Jail) -> Result<Shell, QuoteError> {
        let name = w(&j.name)?;
        let conf = w(&j.conf)?;
        let start_file = w(&format!("{STATE_DIR}/{}.start", j.name))?;
        let pending = w(&format!("{STATE_DIR}/{}.pending", j.name))?;
        let key = w(&j.key)?;
        let running = format!("jls -j {name} >/dev/null 2>&1");
        // Each directory above a jail's tree: root's and 0700, else closed
        // (chmod of a root-owned directory that is not a link), else the
        // step is refused: a directory root does not own is someone
        // else's to fix.
        let mut closed = Vec::new();
        let mut close = Vec::new();
        for d in &j.private {
            let dw = w(d)?;
            let is = format!(
                "[ \"$(stat -f '%Su %Lp' {dw} 2>/dev/null)\" = {} ]",
                w(PRIVATE)?
            );
            closed.push(is.clone());
            close.push(format!(
                "{{ {is} || {{ [ -d {dw} ] && [ ! -L {dw} ] && [ \"$(stat -f %Su {dw})\" = root ] && chmod 0700 {dw}; }} || {{ printf '%s\\n' {why} >&2; return 1; }}; }}",
                why = w(&format!(
                    "refused: {d} holds jails' trees and must be root's, closed to others (chmod 0700): it is not root's directory"
                ))?
            ));
        }
        let closed = match closed.is_empty() {
            true => ":".to_string(),
            false => closed.join(" && "),
        };
        let close = match close.is_empty() {
            true => ":".to_string(),
            false => close.join(" && "),
        };
        let started = format!(
            "{{ [ \"$(cat {start_file} 2>/dev/null)\" = {key} ] || [ \"$(cat {pending} 2>/dev/null)\" = {key} ]; }}"
        );
        let mut params = Vec::new();
        for p in &j.live {
            params.push(format!(
                "[ \"$(jls -j {name} -n {} 2>/dev/null)\" = {} ]",
                w(&asked(p))?,
                w(p)?
            ));
        }
        let live_ok = if params.is_empty() {
            ":".to_string()
        } else {
            params.join(" && ")
        };
        // The console log is root's and 0600 before jail(8) opens it
        // (DEFFILEMODE less the umask, for a new one; one an rc.d/jail
        // start at boot made keeps its mode): what a jail's rc prints is
        // for root. /var/log is root's: no one else can plant a link
        // there, and one found is refused before the append that makes
        // the file would follow it.
        let log = w(&j.console_log)?;
        let mut safe = format!(
            "[ ! -L {log} ] && (umask 077 && : >> {log}) && chown 0:0 {log} && chmod 0600 {log}"
        );
        if !j.mount_paths.is_empty() {
            let paths: Result<Vec<String>, QuoteError> =
                j.mount_paths.iter().map(|p| w(p)).collect();
            let targets: Result<Vec<String>, QuoteError> =
                j.mount_targets.iter().map(|p| w(p)).collect();
            // The targets are made only once no component is a link, and
            // only while the jail is not running (nothing in it can plant
            // one in between).
            safe = format!(
                "{safe} && for _p in {}; do if [ -L \"$_p\" ]; then printf '%s\\n' \"refused: $_p is a symbolic link: a mount there could land outside the jail\" >&2; return 1; fi; done && mkdir -p {}",
                paths?.join(" "),
                targets?.join(" ")
            );
        }
        let record_start = format!(
            "mkdir -p {dir} && chmod 0700 {dir} && printf '%s\\n' {key} > {start_file} && rm -f {pending}",
            dir = w(STATE_DIR)?
        );
        let restart = if j.restart {
            format!(
                "jail -q -f {conf} -r {name} && {safe} && jail -q -f {conf} -c {name} && {record_start}"
            )
        } else {
            format!(
                "mkdir -p {dir} && chmod 0700 {dir} && printf '%s\\n' {key} > {pending}",
                dir = w(STATE_DIR)?
            )
        };
        // The restart is a brace group: `A || B && C` is `(A || B) && C`
        // in sh, which once ran C (a second `jail -c`, or the pending
        // write) for a jail already started from this conf.
        let change = format!(
            "{close} || return 1\n\tif ! {running}; then\n\t\t{safe} && jail -q -f {conf} -c {name} && {record_start}\n\t\treturn\n\tfi\n\t{started} || {{ {restart}; }} || return 1\n\t{{ {live_ok}; }} || jail -q -f {conf} -m {name}"
        );
        Ok(Shell {
            check: format!("{closed} && {running} && {started} && {live_ok}"),
            change,
        })
    }

    /// As the step's check and change decide ([`Jail::shell`]): not
    /// running → started; started from another conf (no start digest of
    /// this conf in `NAME.start`, none acknowledged in `NAME.pending`) → the
    /// restart, or with `restart: never` its note; a live parameter whose
    /// `jls -n` word differs → `jail -m`, each parameter its own line.
    fn judge(j: &Jail, s: &State) -> Verdict {
        let Some(have) = s.jails.get(&j.name).filter(|h| h.running) else {
            return Verdict::new(
                Action::Create,
                vec![change("running", "false", "true")],
                None,
            );
        };
        let mut changes = Vec::new();
        for d in &j.private {
            let seen = have.dirs.get(d).map_or("", String::as_str);
            if seen != PRIVATE {
                changes.push(change(&format!("directory {d}"), seen, PRIVATE));
            }
        }
        let started = [have.started.as_deref(), have.pending.as_deref()];
        let restart = !started.contains(&Some(j.key.as_str()));
        if restart {
            let what = if j.restart {
                "restarted from this conf (jail -r, jail -c)"
            } else {
                "restart needed (restart: never)"
            };
            let from = match have.started.as_deref() {
                Some(k) => format!("started from sha256:{}", short(k)),
                None => "not started by beryl".to_string(),
            };
            changes.push(change("start", &from, what));
        }
        for p in &j.live {
            let name = asked(p);
            let seen = have.params.get(&name).map_or("", |v| v.as_str());
            if seen != p {
                changes.push(change(&format!("jail -m {name}"), seen, p));
            }
        }
        let verdict = Verdict::update(changes, None);
        match (restart, j.restart) {
            (true, false) => verdict.with_note(RESTART),
            _ => verdict,
        }
    }

    /// The facts ask `jls -n` for each live parameter: `NAME P…`.
    fn query(j: &Jail) -> Option<Record> {
        let asked: Vec<String> = j.live.iter().map(|p| asked(p)).collect();
        Some(Record::new(
            "jail_live",
            format!("{} {}", j.name, asked.join(" ")),
        ))
    }
}

/// A digest's first 12 hex digits, as a report shows it.
fn short(digest: &str) -> &str {
    digest.get(..12).unwrap_or(digest)
}

#[cfg(test)]
mod tests;
