//! A host's observed state: the snapshot the `facts` script writes
//! (docs/apply.md), which each kind's `judge` reads. After [`State`], one
//! type per thing a kind observes, named as the kind, in the kinds' order.

use std::collections::BTreeMap;

use serde::Deserialize;

/// The facts script, shipped with beryl; the functions it shares with the
/// apply script ([`super::HOST_LIB`]) go in place of its `@LIB@` line.
pub(crate) const FACTS_SCRIPT: &str = include_str!("../../templates/facts.sh");

/// The snapshot format this beryl writes and reads (3: host-specific
/// queries and the record of what beryl created).
pub(crate) const FORMAT_VERSION: u32 = 3;

/// The facts script of a host: [`FACTS_SCRIPT`] with its queries, the
/// ids of each kind to look at (`q_KIND`, newline-separated), in place of
/// the `@QUERIES@` line. No queries: the generic script.
pub(crate) fn facts_script(
    queries: &BTreeMap<&'static str, Vec<String>>,
) -> Result<String, crate::shell::QuoteError> {
    let mut lines =
        String::from("# What this host's config manages, by kind (beryl facts HOST).\n");
    for (kind, ids) in queries {
        let ids: String = ids.iter().map(|id| format!("{id}\n")).collect();
        lines.push_str(&format!("q_{kind}={}\n", crate::shell::word(&ids)?));
    }
    // The constant part first: no placeholder is looked for in data.
    Ok(FACTS_SCRIPT
        .replace("@LIB@\n", super::HOST_LIB)
        .replace("@QUERIES@\n", &lines))
}

#[derive(Debug, Default, Deserialize)]
pub(crate) struct State {
    #[serde(default)]
    pub format_version: u32,
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
