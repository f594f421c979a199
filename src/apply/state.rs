//! A host's state snapshot, as the `facts` script writes it (docs/apply.md).

use std::collections::BTreeMap;

use serde::Deserialize;

/// The facts script, shipped with beryl.
pub const FACTS_SCRIPT: &str = include_str!("../../templates/facts.sh");

#[derive(Debug, Default, Deserialize)]
pub struct State {
    #[serde(default)]
    pub format_version: u32,
    #[serde(default)]
    pub hostname: String,
    #[serde(default)]
    pub timezone: String,
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
    /// Managed files other than authorized_keys, by path.
    #[serde(default)]
    pub files: BTreeMap<String, Option<File>>,
    #[serde(default)]
    pub rc_conf: BTreeMap<String, String>,
}

#[derive(Debug, Default, Deserialize)]
pub struct Group {
    #[serde(default)]
    pub gid: String,
    /// Comma-separated, as `pw groupshow` prints them.
    #[serde(default)]
    pub members: String,
}

#[derive(Debug, Default, Deserialize)]
pub struct User {
    #[serde(default)]
    pub uid: String,
    #[serde(default)]
    pub gid: String,
    #[serde(default)]
    pub comment: String,
    #[serde(default)]
    pub home: String,
    #[serde(default)]
    pub shell: String,
    #[serde(default)]
    pub authorized_keys: Option<File>,
    /// The `.ssh` directory of the home.
    #[serde(default)]
    pub ssh_dir: Option<Dir>,
}

#[derive(Debug, Default, Clone, Deserialize)]
pub struct Dir {
    pub mode: String,
    pub owner: String,
}

#[derive(Debug, Default, Clone, Deserialize)]
pub struct File {
    pub sha256: String,
    pub mode: String,
    pub owner: String,
    pub group: String,
    #[serde(default)]
    pub content: String,
}

impl State {
    /// The supplementary groups of a user, sorted.
    pub fn groups_of(&self, user: &str) -> Vec<String> {
        let mut out: Vec<String> = self
            .groups
            .iter()
            .filter(|(_, g)| g.members.split(',').any(|m| m == user))
            .map(|(name, _)| name.clone())
            .collect();
        out.sort();
        out
    }

    /// The state of a managed file's directory, when the snapshot has it
    /// (the `.ssh` directory of a user's home).
    pub fn dir(&self, file: &str) -> Option<&Dir> {
        self.users.values().find_map(|u| {
            (format!("{}/.ssh/authorized_keys", u.home) == file)
                .then_some(u.ssh_dir.as_ref())
                .flatten()
        })
    }

    /// A managed file's state by path (authorized_keys under users' homes).
    pub fn file(&self, path: &str) -> Option<&File> {
        if let Some(f) = self.files.get(path) {
            return f.as_ref();
        }
        self.users.values().find_map(|u| {
            (format!("{}/.ssh/authorized_keys", u.home) == path)
                .then_some(u.authorized_keys.as_ref())
                .flatten()
        })
    }
}
