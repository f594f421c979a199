//! The root keys of a level file: `freebsd`, `merge`, `lookup_options`, the level's own keys
//! (`ssh_keys`), `_beryl_`, `classes`, `exports`, `ssh`, and free-form data.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::freebsd::FreeBsd;
use super::merge::MergeTable;
use super::shape::{Ref, prefixed_keys, refused};

/// A level file: `_default.yml`, a domain's `_domain.yml`, a group's
/// `_group.yml` or a host file. `K` holds the root keys whose rules depend on
/// the level (`ssh_keys`).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(default, bound = "K: Deserialize<'de> + Default")]
#[schemars(bound = "K: JsonSchema + Default", transform = prefixed_keys)]
pub struct LevelFile<K> {
    /// FreeBSD settings of the host: what `beryl plan` installs. Every key is
    /// optional at each level; the merged result is validated by `beryl check`.
    /// docs/inventory.md §6.
    #[schemars(with = "Ref<FreeBsd>")]
    pub freebsd: Option<Ref<FreeBsd>>,

    /// The merge table: path pattern → merge spec. It changes how a path
    /// merges for every host whose chain holds this file; the built-in Beryl
    /// rules are its lowest layer. docs/merge.md.
    #[schemars(with = "MergeTable")]
    pub merge: Option<MergeTable>,

    /// Hiera's spelling of the merge table: a root key (or `^regex`) →
    /// `{merge: SPEC}`. Its rows join the `merge:` table's; a pattern given a
    /// spec by both in one file is an error. docs/merge.md §1.
    #[schemars(with = "MergeTable")]
    pub lookup_options: Option<MergeTable>,

    /// The level-specific root keys.
    #[serde(flatten)]
    pub level: K,

    /// `_beryl_` is computed by beryl (the host's fqdn, short name, domain,
    /// group and files); no level may set it.
    #[serde(rename = "_beryl_")]
    #[schemars(schema_with = "refused")]
    pub beryl: Option<Value>,

    /// Classes to mix in before this level's own data: each name, such as
    /// `roles.backup`, is the file `_classes/roles/backup.yml` (or
    /// `_classes/roles/backup/init.yml`). Names may hold `${…}` references.
    /// docs/classes.md.
    pub classes: Option<Vec<String>>,

    /// Values this host exports to the inventory queries (`$[ exports.ip ]`)
    /// of every host; merged like any data and rendered under
    /// `_beryl_.exports`. docs/classes.md.
    pub exports: Option<BTreeMap<String, Value>>,

    /// How `beryl apply` reaches the host: where it connects, as whom, and
    /// how that user becomes root. `beryl check` refuses a host whose
    /// install would leave apply no way in. docs/inventory.md §6.
    #[schemars(with = "Ref<Ssh>")]
    pub ssh: Option<Ref<Ssh>>,

    /// Any other key is free-form data: mappings merge key by key, anything
    /// else is replaced (unless a `merge` rule says otherwise).
    #[serde(flatten)]
    pub other: BTreeMap<String, Value>,
}

impl<K: Default> Default for LevelFile<K> {
    fn default() -> Self {
        Self {
            freebsd: None,
            merge: None,
            lookup_options: None,
            level: K::default(),
            beryl: None,
            classes: None,
            exports: None,
            ssh: None,
            other: BTreeMap::new(),
        }
    }
}

/// The `ssh` block (src/desired/access.rs checks it).
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Ssh {
    /// The host to connect to: a host name or an IP address (default: the
    /// host's FQDN).
    pub host: Option<String>,
    /// The port, 1 to 65535 (default 22).
    #[schemars(range(min = 1, max = 65535))]
    pub port: Option<u32>,
    /// The login user (default root): a user of `freebsd.users` holding a key.
    pub user: Option<String>,
    /// The path of a private key, handed to `ssh -i` and never read.
    pub identity_file: Option<String>,
    /// How the login user runs the apply script as root: sudo (the default
    /// for a user other than root), doas, or none (root itself).
    #[serde(rename = "become")]
    pub elevate: Option<Become>,
}

/// `ssh.become`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Become {
    /// `sudo -n sh -s`: a sudoers rule must let the user run everything as
    /// root without a password.
    Sudo,
    /// `doas -n sh -s`: a freebsd.files entry /usr/local/etc/doas.conf must
    /// `permit nopass` the user (beryl writes none).
    Doas,
    /// The login user is root.
    None,
}

/// The root keys of a `_domain.yml`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct DomainKeys {
    /// The domain keys: each entry a key name (the file `<ssh dir>/<name>.pub`)
    /// or an inline public key (`ssh-ed25519 AAAA… user@host`). Required in
    /// every `_domain.yml` and allowed nowhere else; they are injected first
    /// into every user's `ssh_keys` on every host of the domain, where no level
    /// can remove them.
    #[schemars(length(min = 1))]
    pub ssh_keys: Vec<String>,
}

/// The root keys of `_default.yml`, a `_group.yml` or a host file.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(default)]
pub struct OtherKeys {
    /// A root `ssh_keys` belongs in `_domain.yml` only: give a user its own
    /// keys under `freebsd.users[].ssh_keys`.
    #[schemars(schema_with = "refused")]
    pub ssh_keys: Option<Value>,
}

/// The root keys of any level, when the level is not known: `ssh_keys` is
/// allowed (it is right in `_domain.yml` only).
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(default)]
pub struct AnyKeys {
    /// The domain keys (in `_domain.yml` only, where they are required): each
    /// entry a key name (the file `<ssh dir>/<name>.pub`) or an inline public
    /// key (`ssh-ed25519 AAAA… user@host`).
    #[schemars(with = "Vec<String>", length(min = 1))]
    pub ssh_keys: Option<Vec<String>>,
}
