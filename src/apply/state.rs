//! A host's state snapshot, as the `facts` script writes it (docs/apply.md).

use std::collections::BTreeMap;

use serde::Deserialize;

/// The facts script, shipped with beryl.
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
    Ok(FACTS_SCRIPT.replace("@QUERIES@\n", &lines))
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
    pub services: BTreeMap<String, ServiceState>,
    /// The imported pools (`zpool list -H -o name`); `None` when the
    /// snapshot does not say.
    #[serde(default)]
    pub zpools: Option<Vec<String>>,
    /// Datasets by name, with the properties beryl manages; `null` when
    /// absent.
    #[serde(default)]
    pub zfs: BTreeMap<String, Option<Dataset>>,
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

#[derive(Debug, Default, Deserialize)]
pub(crate) struct ServiceState {
    pub running: bool,
}

/// A dataset: each property's value (as `zfs get -H -p` prints it) and
/// source (`local`, `default`, `inherited from X`).
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Dataset {
    #[serde(default)]
    pub props: BTreeMap<String, ZfsValue>,
}

#[derive(Debug, Default, Deserialize)]
pub(crate) struct ZfsValue {
    pub value: String,
    pub source: String,
}

#[derive(Debug, Default, Deserialize)]
pub(crate) struct Group {
    #[serde(default)]
    pub gid: String,
    /// Comma-separated, as `pw groupshow` prints them.
    #[serde(default)]
    pub members: String,
}

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

#[derive(Debug, Default, Clone, Deserialize)]
pub(crate) struct Dir {
    pub mode: String,
    pub owner: String,
}

#[derive(Debug, Default, Clone, Deserialize)]
pub(crate) struct File {
    pub sha256: String,
    pub mode: String,
    pub owner: String,
    pub group: String,
    #[serde(default)]
    pub content: String,
}

impl State {
    /// The supplementary groups of a user, sorted.
    pub(crate) fn groups_of(&self, user: &str) -> Vec<String> {
        let mut out: Vec<String> = self
            .groups
            .iter()
            .filter(|(_, g)| g.members.split(',').any(|m| m == user))
            .map(|(name, _)| name.clone())
            .collect();
        out.sort();
        out
    }

    /// Whether a recorded item is still on the host, as far as the
    /// snapshot tells (a kind it does not look at counts as there).
    pub(crate) fn has(&self, kind: &str, id: &str) -> bool {
        match kind {
            "pkg" => self.has_package(id),
            "file" => self.files.get(id).is_some_and(Option::is_some),
            "zfs" => self.zfs.get(id).is_some_and(Option::is_some),
            "sysctl" => self
                .sysctl_conf
                .as_ref()
                .is_some_and(|f| super::system::sysctl_edit(&f.content, id, "") != f.content),
            "loader" => self.loader_conf.contains_key(id),
            "cron" => self.cron.get(id).is_some_and(Option::is_some),
            _ => true,
        }
    }

    /// Whether pkg is bootstrapped; a snapshot that does not say counts as
    /// bootstrapped when it lists packages.
    pub(crate) fn pkg_bootstrapped(&self) -> bool {
        self.pkg.unwrap_or(!self.packages.is_empty())
    }

    /// Whether a package is installed, as `pkg info -e PATTERN` finds it: a
    /// pattern with `/` is an origin (its `@flavor` is not compared: `pkg
    /// query %o` prints origins without one), any other a name.
    pub(crate) fn has_package(&self, pattern: &str) -> bool {
        match pattern.split_once('/') {
            Some(_) => {
                let origin = pattern.split('@').next().unwrap_or(pattern);
                self.origins.iter().any(|o| o == origin)
            }
            None => self.packages.iter().any(|p| p == pattern),
        }
    }

    /// An rc.conf variable as rc(8) sees it when it runs the scripts
    /// `owners`: the defaults and rc.conf's files, then each owner's
    /// `rc.conf.d` file in /etc, then in /usr/local/etc (rc.subr's
    /// `load_rc_config`). `None` when nothing sets it. The apply script's
    /// `rcvalue` computes the same on the host.
    pub(crate) fn rc_value(&self, var: &str, owners: &[String]) -> Option<String> {
        let mut value = self.rc_conf.get(var).cloned();
        for owner in owners {
            for dir in ["/etc/rc.conf.d", "/usr/local/etc/rc.conf.d"] {
                if let Some(v) = self
                    .rc_conf_d
                    .get(&format!("{dir}/{owner}"))
                    .and_then(|vars| vars.get(var))
                {
                    value = Some(v.clone());
                }
            }
        }
        value
    }
}
