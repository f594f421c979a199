//! The resource kinds: everything beryl installs on a host and converges
//! there, one file per kind.
//!
//! Each kind's file holds, side by side, the whole life of one kind:
//!
//! - its **desired item** (the kind's type, a variant of [`Resource`]) and
//!   how it is laid out from the compiled host (`layout`);
//! - the **install template** that sets it up (`templates/steps/NAME.sh.j2`,
//!   [`Kind::TEMPLATE`]);
//! - what one apply step of it **wants** ([`Kind::Want`], a variant of
//!   [`Want`]), its read-only **check** and its **change** ([`Kind::shell`]);
//! - its **dry-run verdict** against a facts snapshot ([`Kind::judge`]),
//!   from the **observed state** it reads there (the types of
//!   [`state`], one per thing observed: kept in one file, which the kinds
//!   read and which reads none of them);
//! - its **records** ([`Record`]) and how a recorded item is found and
//!   pruned ([`Prune`]), and the ids the **facts** script must look at
//!   ([`Kind::query`]);
//! - its doc comment, and its unit tests; docs/resources.md has a row for
//!   every kind (tests/integration/architecture.rs checks it).
//!
//! [`KINDS`] is the registry: one row per place in the order the install
//! sets items up and apply converges them. The `kinds!` list below makes
//! [`Resource`] and [`Want`] and their dispatch from the kinds' types.
//!
//! Stage names: `schema` is the written and validated model, this module the
//! desired items and their observed state ([`state::State`]), `desired` a
//! host's whole desired state, `install` and `apply` the two renderers.

pub(crate) mod state;
pub(crate) mod verdict;

pub mod cron;
pub mod file;
pub mod group;
pub mod jail;
pub mod jail_base;
pub mod jail_conf;
pub mod jail_state;
pub mod keys;
pub mod loader;
pub mod packages;
pub mod rc;
pub mod root_password;
pub mod service;
#[cfg(test)]
mod sh_test;
pub mod sshd;
pub mod sysctl;
pub mod timezone;
pub mod user;
pub mod zfs;
pub mod zfs_unmount;
pub mod zpool;

use std::fmt::Debug;

use serde::Serialize;

use crate::compile::Compiled;
use crate::schema::{FreeBsd, Located};
use crate::shell::QuoteError;

use state::State;
use verdict::Verdict;

pub use file::{File, Notify};

/// The shell functions that decide what root may touch on a host where
/// other users have shells (as_user, trusted_dir, peek, rm_file): shared by
/// the apply script and the facts script (docs/apply.md, "What apply
/// trusts on the host").
pub(crate) const HOST_LIB: &str = include_str!("../../templates/lib.sh");

/// The host's record of what beryl created there (docs/apply.md, pruning):
/// one `KIND ID` line per item, written by the install and by apply.
pub(crate) const RECORD: &str = "/var/db/beryl/managed";

/// One kind of resource. The type is the desired item; its associated
/// functions take what one apply step wants ([`Kind::Want`]).
pub(crate) trait Kind: Debug + Clone + PartialEq + Serialize {
    /// What one apply step of the kind wants: the item itself for most
    /// kinds; packages want pkg bootstrapped, then each package.
    type Want: Debug + Clone + PartialEq + Serialize;
    /// The kind's name: `kind` in the install plan, the install template
    /// `templates/steps/NAME.sh.j2`.
    const NAME: &'static str;
    /// The install template's text; `None` for a kind the install never sets
    /// up.
    const TEMPLATE: Option<&'static str>;
    /// How a recorded item of the kind is found and pruned, for a kind that
    /// records what it creates.
    const PRUNE: Option<&'static Prune> = None;
    /// Scripts the kind's steps run as another user (as_user, in
    /// templates/lib.sh), by variable name: set once in the apply script's
    /// header, then referenced (`"$keys_check"`), so that neither the
    /// script nor a dry run repeats them per step.
    const SCRIPTS: &'static [(&'static str, &'static str)] = &[];

    /// The item's stable id in the install plan.
    fn id(&self) -> String;
    /// The items beryl records when it creates them, in order: the last
    /// apply steps of the item, one each.
    fn records(&self) -> Vec<Record> {
        Vec::new()
    }
    /// The records the install writes (a dataset is recorded by its own
    /// step, only when the install created it).
    fn install_records(&self) -> Vec<Record> {
        self.records()
    }
    /// Whether a fresh install sets the item up (a user to remove or a
    /// dataset to destroy is apply's only).
    fn installed(&self) -> bool {
        true
    }
    /// The item as apply steps, in order.
    fn wants(&self) -> Vec<Self::Want>;

    /// The step's kind as reports and saved plans name it.
    fn step_kind(_: &Self::Want) -> &'static str {
        Self::NAME
    }
    /// The `type` of the step's desired value in saved plans.
    fn desired_type(want: &Self::Want) -> &'static str {
        Self::step_kind(want)
    }
    /// The step's stable id.
    fn step_id(want: &Self::Want) -> String;
    /// The step's read-only check (exit 0: nothing to do) and its change,
    /// every value quoted by [`crate::shell`].
    fn shell(want: &Self::Want) -> Result<Shell, QuoteError>;
    /// What applying the step would do to the host of the snapshot.
    fn judge(want: &Self::Want, s: &State) -> Verdict;
    /// An item the facts script looks at for the dry run though it is not
    /// recorded (a file beryl always manages).
    fn query(_: &Self::Want) -> Option<Record> {
        None
    }
    /// The services to reload or restart once the change ran.
    fn notify(_: &Self::Want) -> Vec<Notify> {
        Vec::new()
    }
    /// What the change leaves to be done, shown under it.
    fn note(_: &Self::Want) -> Option<&'static str> {
        None
    }
    /// Values the step's script needs but no report may show (root's
    /// password hash): reports and saved plans show each as its digest
    /// ([`redact`]).
    fn secrets(_: &Self::Want) -> Vec<String> {
        Vec::new()
    }
}

/// A step's check and change.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Shell {
    pub check: String,
    pub change: String,
}

/// `kinds! { Variant(module::Type, module::Want), … }` makes the enums of
/// every kind and their dispatch; the second type is the kind's
/// [`Kind::Want`] (the compiler holds them equal). The list's order is the
/// order of the pruning functions in the apply script: a new kind goes
/// last.
macro_rules! kinds {
    ($($variant:ident($module:ident::$ty:ident, $wmodule:ident::$want:ident)),* $(,)?) => {
        /// One desired item, of any kind (serialised with its kind's name
        /// as `kind`).
        #[derive(Debug, Clone, PartialEq, Serialize)]
        #[serde(tag = "kind", rename_all = "snake_case")]
        pub enum Resource {
            $($variant($module::$ty),)*
        }

        /// What one apply step wants, of any kind.
        #[derive(Debug, Clone, PartialEq)]
        pub enum Want {
            $($variant($wmodule::$want),)*
        }

        $(impl From<$module::$ty> for Resource {
            fn from(item: $module::$ty) -> Resource {
                Resource::$variant(item)
            }
        })*

        impl Resource {
            /// The kind's name ([`Kind::NAME`]).
            pub(crate) fn kind(&self) -> &'static str {
                match self { $(Resource::$variant(_) => <$module::$ty as Kind>::NAME,)* }
            }
            /// The stable id ([`Kind::id`]).
            pub(crate) fn id(&self) -> String {
                match self { $(Resource::$variant(r) => r.id(),)* }
            }
            /// The recorded items ([`Kind::records`]).
            pub(crate) fn records(&self) -> Vec<Record> {
                match self { $(Resource::$variant(r) => r.records(),)* }
            }
            /// The records the install writes ([`Kind::install_records`]).
            pub(crate) fn install_records(&self) -> Vec<Record> {
                match self { $(Resource::$variant(r) => r.install_records(),)* }
            }
            /// Whether a fresh install sets it up ([`Kind::installed`]).
            pub(crate) fn installed(&self) -> bool {
                match self { $(Resource::$variant(r) => r.installed(),)* }
            }
            /// Its apply steps' wants ([`Kind::wants`]).
            pub(crate) fn wants(&self) -> Vec<Want> {
                match self {
                    $(Resource::$variant(r) => r.wants().into_iter().map(Want::$variant).collect(),)*
                }
            }
        }

        impl Want {
            /// The step's kind ([`Kind::step_kind`]).
            pub fn kind(&self) -> &'static str {
                match self { $(Want::$variant(w) => <$module::$ty as Kind>::step_kind(w),)* }
            }
            /// The `type` of the desired value ([`Kind::desired_type`]).
            pub(crate) fn desired_type(&self) -> &'static str {
                match self { $(Want::$variant(w) => <$module::$ty as Kind>::desired_type(w),)* }
            }
            /// The stable id ([`Kind::step_id`]).
            pub(crate) fn id(&self) -> String {
                match self { $(Want::$variant(w) => <$module::$ty as Kind>::step_id(w),)* }
            }
            /// Check and change ([`Kind::shell`]).
            pub(crate) fn shell(&self) -> Result<Shell, QuoteError> {
                match self { $(Want::$variant(w) => <$module::$ty as Kind>::shell(w),)* }
            }
            /// The dry run's verdict ([`Kind::judge`]).
            pub(crate) fn judge(&self, s: &State) -> Verdict {
                match self { $(Want::$variant(w) => <$module::$ty as Kind>::judge(w, s),)* }
            }
            /// What facts must look at ([`Kind::query`]).
            pub(crate) fn query(&self) -> Option<Record> {
                match self { $(Want::$variant(w) => <$module::$ty as Kind>::query(w),)* }
            }
            /// The handlers ([`Kind::notify`]).
            pub(crate) fn notify(&self) -> Vec<Notify> {
                match self { $(Want::$variant(w) => <$module::$ty as Kind>::notify(w),)* }
            }
            /// The note of a change ([`Kind::note`]).
            pub(crate) fn note(&self) -> Option<&'static str> {
                match self { $(Want::$variant(w) => <$module::$ty as Kind>::note(w),)* }
            }
            /// The values no report may show ([`Kind::secrets`]).
            pub(crate) fn secrets(&self) -> Vec<String> {
                match self { $(Want::$variant(w) => <$module::$ty as Kind>::secrets(w),)* }
            }
            /// The desired value as saved plans hold it: `type`, then the
            /// want's own fields, its secrets as their digests.
            pub(crate) fn to_json(&self) -> serde_json::Value {
                let fields = match self {
                    $(Want::$variant(w) => serde_json::to_value(w),)*
                };
                let mut value = tagged(self.desired_type(), fields.unwrap_or_default());
                redact_json(&mut value, &self.secrets());
                value
            }
        }

        /// Every kind's name and install template, in the list's order.
        pub(crate) const TEMPLATES: &[(&str, Option<&str>)] = &[
            $((<$module::$ty as Kind>::NAME, <$module::$ty as Kind>::TEMPLATE),)*
        ];

        /// Every kind's named scripts ([`Kind::SCRIPTS`]), in the list's order.
        pub(crate) fn kind_scripts() -> impl Iterator<Item = &'static (&'static str, &'static str)> {
            [$(<$module::$ty as Kind>::SCRIPTS,)*].into_iter().flatten()
        }

        /// The kinds that record what they create, in the list's order (the
        /// apply script's pruning functions).
        pub(crate) fn pruned_kinds() -> impl Iterator<Item = &'static Prune> {
            [$(<$module::$ty as Kind>::PRUNE,)*].into_iter().flatten()
        }
    };
}

kinds! {
    Packages(packages::Packages, packages::Want),
    File(file::File, file::File),
    Zfs(zfs::Zfs, zfs::Zfs),
    Sysctl(sysctl::Sysctl, sysctl::Sysctl),
    Loader(loader::Loader, loader::Loader),
    Cron(cron::Cron, cron::Cron),
    Zpool(zpool::Zpool, zpool::Zpool),
    Group(group::Group, group::Group),
    User(user::User, user::User),
    RootPassword(root_password::RootPassword, root_password::RootPassword),
    Keys(keys::Keys, keys::Want),
    Sshd(sshd::Sshd, sshd::Sshd),
    Rc(rc::Rc, rc::Rc),
    Timezone(timezone::Timezone, timezone::Timezone),
    Service(service::Service, service::Service),
    ZfsUnmount(zfs_unmount::ZfsUnmount, zfs_unmount::Never),
    JailBase(jail_base::JailBase, jail_base::JailBase),
    JailConf(jail_conf::JailConf, jail_conf::JailConf),
    JailState(jail_state::JailState, jail_state::JailState),
    Jail(jail::Jail, jail::Jail),
}

/// How a report shows a secret: `sha256:` and its digest.
pub(crate) fn digest_of(secret: &str) -> String {
    format!("sha256:{}", crate::fsutil::sha256_hex(secret))
}

/// A text with each secret shown as its digest ([`digest_of`]).
pub(crate) fn redact(text: &str, secrets: &[String]) -> String {
    secrets
        .iter()
        .filter(|s| !s.is_empty())
        .fold(text.to_string(), |text, secret| {
            text.replace(secret, &digest_of(secret))
        })
}

/// Every string of a JSON value redacted ([`redact`]).
fn redact_json(value: &mut serde_json::Value, secrets: &[String]) {
    match value {
        serde_json::Value::String(s) => *s = redact(s, secrets),
        serde_json::Value::Array(items) => items.iter_mut().for_each(|v| redact_json(v, secrets)),
        serde_json::Value::Object(map) => map.values_mut().for_each(|v| redact_json(v, secrets)),
        _ => {}
    }
}

/// `{"type": TYPE, …fields}`: a unit want (`null`) has no fields.
fn tagged(ty: &str, fields: serde_json::Value) -> serde_json::Value {
    let mut map = serde_json::Map::new();
    map.insert("type".into(), ty.into());
    if let serde_json::Value::Object(fields) = fields {
        map.extend(fields);
    }
    serde_json::Value::Object(map)
}

/// What a kind lays its items out from: the host's name and its compiled
/// config.
pub(crate) struct Input<'a> {
    pub fqdn: &'a str,
    pub compiled: &'a Compiled,
    /// A host's jails (issue 36): the host lays out the rows that make and
    /// run them. Empty for a jail and for a host without jails.
    pub jails: &'a [Jailed<'a>],
}

/// A jail of the host being laid out: its name in the inventory and its
/// compiled config (its `freebsd.jail` says how the host makes it).
#[derive(Clone, Copy)]
pub(crate) struct Jailed<'a> {
    pub fqdn: &'a str,
    pub compiled: &'a Compiled,
}

impl Input<'_> {
    /// Whether the unit laid out is a jail (it has a host: issue 36).
    pub(crate) fn is_jail(&self) -> bool {
        self.compiled.parent.is_some()
    }

    /// The typed `freebsd` section.
    pub(crate) fn freebsd(&self) -> &FreeBsd {
        &self.compiled.freebsd
    }
}

/// A written text, when set.
pub(crate) fn text(l: &Option<Located<String>>) -> Option<String> {
    l.as_ref().map(|v| v.value.clone())
}

/// One row of the registry: a kind and the function that lays out its items
/// at this place of the order.
pub(crate) struct Row {
    /// [`Kind::NAME`]: read by the registry's tests, which hold every kind
    /// to a row.
    #[cfg_attr(not(test), expect(dead_code))]
    pub kind: &'static str,
    pub layout: fn(&Input<'_>) -> Vec<Resource>,
}

/// The registry: every kind, in the order the install sets its items up and
/// apply converges them. The order matters: pools before the datasets in
/// them; packages and accounts before the files that name them; the files
/// beryl writes from other fields (sudoers, resolver) before sshd and rc;
/// the files of `freebsd.files` after every kind they may need, and before
/// the services that read them; last, the install's unmount of the data
/// pools. `file` has two rows for those two places. A host's jails come
/// after its services (issue 36): the golden base of its thin jails (a
/// `zfs` row and a `jail_base` row, before the clones of it), their
/// datasets (a further `zfs` row), each thick one's base, each thin one's
/// state datasets, conf, and the jail running.
pub(crate) const KINDS: &[Row] = &[
    row::<zpool::Zpool>(zpool::layout),
    row::<zfs::Zfs>(zfs::layout),
    row::<packages::Packages>(packages::layout),
    row::<group::Group>(group::layout),
    row::<user::User>(user::layout),
    row::<root_password::RootPassword>(root_password::layout),
    row::<keys::Keys>(keys::layout),
    row::<file::File>(file::layout_written),
    row::<sshd::Sshd>(sshd::layout),
    row::<rc::Rc>(rc::layout),
    row::<timezone::Timezone>(timezone::layout),
    row::<sysctl::Sysctl>(sysctl::layout),
    row::<loader::Loader>(loader::layout),
    row::<file::File>(loader::layout_d),
    row::<cron::Cron>(cron::layout),
    row::<file::File>(file::layout_listed),
    row::<service::Service>(service::layout),
    row::<zfs::Zfs>(zfs::layout_golden),
    row::<jail_base::JailBase>(jail_base::layout_golden),
    row::<zfs::Zfs>(zfs::layout_jails),
    row::<jail_base::JailBase>(jail_base::layout),
    row::<jail_state::JailState>(jail_state::layout),
    row::<jail_conf::JailConf>(jail_conf::layout),
    row::<jail::Jail>(jail::layout),
    row::<zfs_unmount::ZfsUnmount>(zfs_unmount::layout),
];

const fn row<K: Kind>(layout: fn(&Input<'_>) -> Vec<Resource>) -> Row {
    Row {
        kind: K::NAME,
        layout,
    }
}

/// Every item of the host, in the registry's order.
pub(crate) fn layout(input: &Input<'_>) -> Vec<Resource> {
    KINDS.iter().flat_map(|row| (row.layout)(input)).collect()
}

/// Items of one kind, as resources.
pub(crate) fn items<K: Kind + Into<Resource>>(items: impl IntoIterator<Item = K>) -> Vec<Resource> {
    items.into_iter().map(Into::into).collect()
}

/// An item beryl creates on a host and may remove once it has left the
/// config: a line `KIND ID` of [`RECORD`]. Only what beryl created is
/// recorded, so nothing else is ever removed.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Record {
    /// `pkg`, `file`, … (the `kind` of a [`Prune`] row).
    pub kind: &'static str,
    /// The package pattern, the path, …: no newline.
    pub id: String,
}

impl Record {
    pub(crate) fn new(kind: &'static str, id: impl Into<String>) -> Record {
        Record {
            kind,
            id: id.into(),
        }
    }

    /// The record's line, without its newline.
    pub fn line(&self) -> String {
        format!("{} {}", self.kind, self.id)
    }
}

/// How one kind of recorded item is looked at and removed by the apply
/// script's pruning (docs/apply.md). The bodies are sh function bodies that
/// take the item's id as `$1`.
pub(crate) struct Prune {
    /// The record's first word (`pkg`, `file`…).
    pub kind: &'static str,
    /// The kind of the removal step in reports.
    pub step_kind: &'static str,
    /// Exit 0 when the item is on the host.
    pub exists: &'static str,
    /// Prints why the item must stay, and exits 0, when removing it would
    /// take something desired with it; else exits non-zero.
    pub keep: &'static str,
    /// Takes the item away (the script checks with `exists` after it).
    pub remove: &'static str,
    /// Where the behaviour the row relies on is written.
    pub source: &'static str,
    /// Set for a kind never pruned: why a recorded item that left the
    /// config stays (`keep` prints it too); the dry run shows it.
    pub kept: Option<&'static str>,
    /// What removing an item leaves to be done, shown under it.
    pub removal_note: Option<&'static str>,
    /// The service a removal restarts or reloads, once per run with the
    /// handlers of the steps.
    pub removal_notify: Option<RemovalNotify>,
    /// Whether the recorded item is still on the host, as far as a snapshot
    /// tells: the dry run's `exists`.
    pub present: fn(&State, &str) -> bool,
}

/// What removing a recorded item notifies: `service SERVICE ACTION`, for
/// every item of the kind (`under` empty) or for the items whose id is a
/// path in one of the `under` directories (a file of a cron.d directory).
#[derive(Debug)]
pub(crate) struct RemovalNotify {
    pub under: &'static [&'static str],
    pub service: &'static str,
    pub action: &'static str,
}

impl RemovalNotify {
    /// Whether removing the item `id` notifies.
    pub(crate) fn covers(&self, id: &str) -> bool {
        self.under.is_empty()
            || self.under.iter().any(|dir| {
                id.strip_prefix(dir)
                    .is_some_and(|rest| rest.starts_with('/'))
            })
    }
}

/// The pruning row of a record kind.
pub(crate) fn pruned(kind: &str) -> Option<&'static Prune> {
    pruned_kinds().find(|p| p.kind == kind)
}

/// Lines, each ended by a newline.
pub(crate) fn lines<S: AsRef<str>>(items: impl Iterator<Item = S>) -> String {
    items.map(|l| format!("{}\n", l.as_ref())).collect()
}

/// The directory of an absolute path (`/a/b/c` → `/a/b`, `/c` → `/`).
pub(crate) fn dirname(path: &str) -> &str {
    match path.rsplit_once('/') {
        Some(("", _)) | None => "/",
        Some((dir, _)) => dir,
    }
}

/// How a check reads a mode: four octal digits, the set-id and sticky digit
/// (`%Mp`) before the permission bits padded to three (`%03Lp`), so `1777`,
/// `4755`, `0644`, `0044`. `%Lp` alone is `st_mode & 0777` and drops the
/// first digit (usr.bin/stat/stat.c @3524148a, `format1`, `SHOW_st_mode`):
/// a `1777` file would never compare equal. Desired modes are four digits
/// too (`names::file_mode`).
pub(crate) const STAT_MODE: &str = "%Mp%03Lp";

/// Whether a file of this mode (octal digits, as `stat -f %Mp%03Lp` prints
/// it or the inventory writes it: `0600`, `0640`) is private: others may not read
/// it. Its content is then a secret: reports and facts show its digest.
pub(crate) fn private_mode(mode: &str) -> bool {
    mode.chars()
        .last()
        .and_then(|c| c.to_digit(8))
        .is_some_and(|other| other & 4 == 0)
}

/// The last component of an absolute path (`nginx.conf`).
pub(crate) fn basename(path: &str) -> &str {
    path.rsplit_once('/').map_or(path, |(_, name)| name)
}

#[cfg(test)]
mod tests;
