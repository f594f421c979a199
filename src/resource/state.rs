//! A host's observed state: the snapshot the `facts` script writes
//! (docs/apply.md), which each kind's `judge` reads. After [`State`], one
//! type per thing a kind observes, named as the kind, in the kinds' order.

use std::collections::BTreeMap;

use serde::Deserialize;

/// The facts script, shipped with beryl; the functions it shares with the
/// apply script ([`super::HOST_LIB`]) go in place of its `@LIB@` line.
pub(crate) const FACTS_SCRIPT: &str = include_str!("../../templates/facts.sh");

/// The snapshot format this beryl writes and reads (4: each snapshot names
/// the host it was taken for and the digest of the script that took it).
pub(crate) const FORMAT_VERSION: u32 = 4;

/// A host's facts script and its digest, which the snapshots it takes
/// carry (`"script"`): what binds a snapshot to the host and config it was
/// taken for (docs/apply.md §3).
#[derive(Debug, Clone)]
pub(crate) struct FactsScript {
    pub text: String,
    /// sha256 of the script without its own digest line.
    pub sha256: String,
}

/// The facts script of a host: [`FACTS_SCRIPT`] with, in place of the
/// `@QUERIES@` line, the host it is for (`beryl_host`), its queries (the
/// ids of each kind to look at, `q_KIND`, newline-separated) and the digest
/// of all the rest (`beryl_script`), which the snapshot repeats.
pub(crate) fn facts_script(
    fqdn: &str,
    queries: &BTreeMap<&'static str, Vec<String>>,
) -> Result<FactsScript, crate::shell::QuoteError> {
    let mut lines = format!(
        "# The host this script is for, and what its config manages, by kind.\nberyl_host={}\n",
        crate::shell::word(fqdn)?
    );
    if !queries.is_empty() {
        lines.push_str("# shellcheck disable=SC2034 # ids() reads them through eval\n{\n");
        for (kind, ids) in queries {
            let ids: String = ids.iter().map(|id| format!("{id}\n")).collect();
            lines.push_str(&format!("q_{kind}={}\n", crate::shell::word(&ids)?));
        }
        lines.push_str("}\n");
    }
    // The constant part is split at its placeholder: none is looked for in
    // data.
    let template = FACTS_SCRIPT.replace("@LIB@\n", super::HOST_LIB);
    let (head, tail) = template
        .split_once("@QUERIES@\n")
        .unwrap_or((template.as_str(), ""));
    let sha256 = crate::fsutil::sha256_hex(&format!("{head}{lines}{tail}"));
    let text = format!("{head}{lines}beryl_script={sha256}\n{tail}");
    Ok(FactsScript { text, sha256 })
}

#[derive(Debug, Default, Deserialize)]
pub(crate) struct State {
    #[serde(default)]
    pub format_version: u32,
    /// The FQDN the facts script was generated for (`beryl facts HOST`).
    #[serde(default)]
    pub host: String,
    /// The sha256 of that script ([`FactsScript::sha256`]).
    #[serde(default)]
    pub script: String,
    #[serde(default)]
    pub timezone: String,
    /// Whether pkg is bootstrapped (`/usr/local/sbin/pkg` exists).
    #[serde(default)]
    pub pkg: Option<bool>,
    /// Installed package names (`pkg query %n`).
    #[serde(default)]
    pub packages: Vec<String>,
    /// Their origins (`pkg query %o`), such as `security/sudo`.
    #[serde(default)]
    pub origins: Vec<String>,
    #[serde(default)]
    pub groups: BTreeMap<String, Group>,
    #[serde(default)]
    pub users: BTreeMap<String, User>,
    /// Files beryl manages (other than authorized_keys), by path; `null`
    /// when absent.
    #[serde(default)]
    pub files: BTreeMap<String, Option<File>>,
    /// Every rc.conf variable with its value across the defaults and
    /// rc.conf's files (`sysrc -A`).
    #[serde(default)]
    pub rc_conf: BTreeMap<String, String>,
    /// The variables each `rc.conf.d` file sets, by the file's path
    /// (`/etc/rc.conf.d/sshd`).
    #[serde(default)]
    pub rc_conf_d: BTreeMap<String, BTreeMap<String, String>>,
    /// The host's record of what beryl created there, as `[KIND, ID]`.
    #[serde(default)]
    pub managed: Vec<(String, String)>,
    /// root's password field: `*` when locked, else `sha256:` and the
    /// digest of the field (never the hash itself).
    #[serde(default)]
    pub root_password: String,
    /// The services of `freebsd.services`, by rc.d script name: whether
    /// `service NAME status` exits 0.
    #[serde(default)]
    pub services: BTreeMap<String, Service>,
    /// The imported pools (`zpool list -H -o name`); `None` when the
    /// snapshot does not say.
    #[serde(default)]
    pub zpools: Option<Vec<String>>,
    /// Datasets by name, with the properties beryl manages; `null` when
    /// absent.
    #[serde(default)]
    pub zfs: BTreeMap<String, Option<Zfs>>,
    /// The live value of each sysctl asked about (`ids sysctl`); `null` for
    /// a name the kernel does not know.
    #[serde(default)]
    pub sysctl: BTreeMap<String, Option<String>>,
    /// /etc/sysctl.conf; `null` when absent.
    #[serde(default)]
    pub sysctl_conf: Option<File>,
    /// The variables /boot/loader.conf sets (`sysrc -f /boot/loader.conf -a`).
    #[serde(default)]
    pub loader_conf: BTreeMap<String, String>,
    /// beryl's cron files, by entry name (`ids cron`); `null` when absent.
    #[serde(default)]
    pub cron: BTreeMap<String, Option<File>>,
}

/// Why a snapshot is not one of the host and script it is compared for.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Unbound {
    /// It was taken for another host (named).
    Host(String),
    /// It was taken by another facts script: the config, or beryl, changed
    /// since, and the snapshot may not look at what the config manages now.
    Script,
}

impl Unbound {
    /// What the snapshot is, said the same in every message: `a snapshot
    /// of HOST`, `a snapshot that names no host`, or `taken by another
    /// facts script`.
    pub(crate) fn what(&self) -> String {
        match self {
            Unbound::Host(other) if other.is_empty() => "a snapshot that names no host".into(),
            Unbound::Host(other) => format!("a snapshot of {other}"),
            Unbound::Script => "taken by another facts script".into(),
        }
    }
}

impl State {
    /// Whether this snapshot was taken on `fqdn` by the facts script whose
    /// digest is `script` ([`FactsScript::sha256`]).
    pub(crate) fn bound_to(&self, fqdn: &str, script: &str) -> Result<(), Unbound> {
        if self.host != fqdn {
            return Err(Unbound::Host(self.host.clone()));
        }
        if self.script != script {
            return Err(Unbound::Script);
        }
        Ok(())
    }
}

/// A group (`group`), as `pw groupshow` shows it.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Group {
    #[serde(default)]
    pub gid: String,
    /// Comma-separated, as `pw groupshow` prints them.
    #[serde(default)]
    pub members: String,
}

/// A user (`user`, `keys`), as `pw usershow` shows it, and the home's
/// `.ssh`.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct User {
    #[serde(default)]
    pub uid: String,
    #[serde(default)]
    pub gid: String,
    #[serde(default)]
    pub comment: String,
    #[serde(default)]
    pub shell: String,
    #[serde(default)]
    pub authorized_keys: Option<File>,
    /// The `.ssh` directory of the home.
    #[serde(default)]
    pub ssh_dir: Option<Dir>,
}

/// A directory's mode and owner.
#[derive(Debug, Default, Clone, Deserialize)]
pub(crate) struct Dir {
    pub mode: String,
    pub owner: String,
    /// A symbolic link where the directory should be: the facts report
    /// the link's own mode and owner, never follow it.
    #[serde(default, rename = "type")]
    pub kind: Type,
}

/// What stands at a path the facts read: what it should be, or a symbolic
/// link, which the facts script never follows (docs/apply.md, "What apply
/// trusts on the host").
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Type {
    #[default]
    File,
    Dir,
    Link,
    /// A directory on the way that others than root can write (not the
    /// file's own): apply writes nothing there.
    Untrusted,
}

/// A file (`file`, `keys`, `sysctl`, `cron`, `sshd`): its digest, mode,
/// owner and content; `null` when absent.
#[derive(Debug, Default, Clone, Deserialize)]
pub(crate) struct File {
    #[serde(default)]
    pub sha256: String,
    pub mode: String,
    pub owner: String,
    pub group: String,
    #[serde(default)]
    pub content: String,
    /// `link` for a symbolic link, reported as itself: no digest, no
    /// content.
    #[serde(default, rename = "type")]
    pub kind: Type,
    /// A managed file others may not read: the facts hold its digest, not
    /// its content.
    #[serde(default)]
    pub private: bool,
}

/// A service (`service`).
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Service {
    /// Whether `service NAME status` exits 0.
    pub running: bool,
}

/// A dataset (`zfs`): each property's value (as `zfs
/// get -H -p` prints it) and source (`local`, `default`, `inherited from
/// X`); `null` when absent.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Zfs {
    #[serde(default)]
    pub props: BTreeMap<String, ZfsProp>,
}

#[derive(Debug, Default, Deserialize)]
pub(crate) struct ZfsProp {
    pub value: String,
    pub source: String,
}
