//! The input-shaped types of a level file, for `beryl schema`.
//!
//! Validation (src/schema/) reads the merged `freebsd` mapping through its
//! field tables (`fields::FREEBSD`, `users::USER`, …) into the output-shaped
//! model ([`crate::schema::FreeBsd`], where every value is
//! [`crate::schema::Located`]). These types describe instead what one level file may
//! hold, as serde would read it. They exist to generate the JSON Schema with
//! schemars: their doc comments become the descriptions an editor shows, and
//! tests tie their field names (and the start of each description) to the
//! tables, so that the schema cannot drift from validation.
//!
//! What the schema knows beyond serde's shape:
//!
//! - every key of a merged mapping may carry a `~` or `=` prefix
//!   (docs/merge.md §5), with the same value schema (`prefixed_keys`); the
//!   root `merge` table takes none;
//! - a value that is not a string may be a whole reference `${path}`
//!   ([`Ref`]), which takes the referenced value's type;
//! - absent keys are fine, but no key of `freebsd` (or of a merge spec) is
//!   `null`: validation refuses null for every `freebsd` field; only a merge
//!   spec's `knockout_prefix` may be null. Free-form keys may be anything.
//!
//! It does not know what only a host's whole chain tells (that raid10 has an
//! even number of disks, that a user's name is unique), nor the rules of
//! single values (a valid host name, time zone or address): `beryl check`
//! does, with the file and line.

use std::collections::BTreeMap;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Deserialize;
use serde_json::Value;

use crate::inventory::LevelKind;
use crate::schema::{Install, Raid, UserState};

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
    /// `doas -n sh -s`: doas.conf must `permit nopass` the user.
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

/// A value, or a whole reference standing for one.
// The variants have no doc comments: they would become descriptions of the
// alternatives, and the field's own description says it all.
#[allow(missing_docs)]
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
#[schemars(inline)]
pub enum Ref<T> {
    Value(T),
    Reference(Reference),
}

/// A whole reference `${path}`: the value at that path of the host's merged
/// config, with its type (docs/references.md).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Reference(#[schemars(pattern(r"^\$\{.+\}$"))] pub String);

/// The `freebsd` mapping: the settings beryl validates and installs.
// Its keys are the rows of the FREEBSD table (src/schema/fields.rs).
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[schemars(transform = prefixed_keys)]
pub struct FreeBsd {
    /// Fully qualified host name (RFC 1123), such as web01.example.org.
    #[schemars(with = "String")]
    pub hostname: Option<String>,
    /// IANA time zone, such as Europe/Berlin.
    #[schemars(with = "String")]
    pub timezone: Option<String>,
    /// ZFS layout of the boot pool: stripe, mirror, raid10, raidz1, raidz2 or
    /// raidz3. The `disks` must be enough for it.
    #[schemars(with = "Ref<Raid>")]
    pub raid: Option<Ref<Raid>>,
    /// Whole disks of the boot pool, such as [ada0, ada1]; the installer wipes
    /// them. Replaced as a whole by a level that sets it.
    #[schemars(with = "Ref<Vec<String>>")]
    pub disks: Option<Ref<Vec<String>>>,
    /// Name of the ZFS boot pool (zfsboot's default is zroot).
    #[schemars(with = "String")]
    pub pool: Option<String>,
    /// Swap size per disk, such as 4g, or 0 for none.
    #[schemars(with = "Swap")]
    pub swap: Option<Swap>,
    /// Packages to install, by name (sudo) or origin (security/sudo).
    /// Appended level after level, without duplicates; `--name` removes an
    /// inherited package.
    #[schemars(with = "Ref<Vec<String>>")]
    pub packages: Option<Ref<Vec<String>>>,
    /// Lines of the sudoers drop-in, one rule per item. Appended like
    /// `packages`; `--line` removes an inherited line.
    #[schemars(with = "Ref<Vec<String>>")]
    pub sudoers: Option<Ref<Vec<String>>>,
    /// User accounts, each a mapping with at least `name`. Merged by name:
    /// a level that names an inherited user changes only the fields it
    /// writes; `name: --bob` removes bob.
    #[schemars(with = "Ref<Vec<User>>")]
    pub users: Option<Ref<Vec<User>>>,
    /// How bsdinstall installs the base system: dists (the default) or pkgbase.
    #[schemars(with = "Ref<Install>")]
    pub install: Option<Ref<Install>>,
    /// FreeBSD release as MAJOR.MINOR, quoted, such as "15.0".
    #[schemars(with = "Version")]
    pub version: Option<Version>,
    /// URL the installer fetches missing distribution sets from
    /// (BSDINSTALL_DISTSITE), such as
    /// https://download.freebsd.org/releases/amd64/15.0-RELEASE.
    #[schemars(with = "String")]
    pub dist_site: Option<String>,
    /// root's password as a crypt(3) hash ($6$…); when absent, root's
    /// password is locked.
    #[schemars(with = "String")]
    pub root_password: Option<String>,
    /// Interfaces (DHCP/SLAAC or static addresses), default routers and name
    /// servers.
    #[schemars(with = "Ref<Network>")]
    pub network: Option<Ref<Network>>,
    /// Other rc.conf variables, such as ntpd_enable: true (written YES).
    /// Variables that other `freebsd` keys set (hostname, ifconfig_*, …) are
    /// refused.
    #[schemars(with = "Ref<BTreeMap<String, RcValue>>")]
    pub rc_conf: Option<Ref<BTreeMap<String, RcValue>>>,
    /// Sshd settings: permit_root_login, password_authentication,
    /// kbd_interactive_authentication.
    #[schemars(with = "Ref<Sshd>")]
    pub sshd: Option<Ref<Sshd>>,
}

/// A swap size.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
#[schemars(inline)]
pub enum Swap {
    /// A number with an optional k, m, g or t suffix (at least 100m), such as 4g.
    Text(String),
    /// 0 for no swap, or a size in bytes.
    Bytes(u64),
}

/// A FreeBSD release.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
#[schemars(inline)]
pub enum Version {
    /// MAJOR.MINOR, such as "15.0".
    Text(String),
    /// Unquoted: accepted when the written text is MAJOR.MINOR, but 14.10
    /// would read as 14.1, so quote it.
    Number(f64),
}

/// An rc.conf value: a string as written, an integer in decimal, a boolean
/// as YES or NO.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
#[schemars(inline)]
pub enum RcValue {
    /// A string, written as is (no `"`, `\`, backquote, `$` or newline).
    Text(String),
    /// An integer, written in decimal.
    Int(i64),
    /// A boolean, written YES or NO.
    Bool(bool),
}

/// One user account.
// Its keys are the rows of the USER table (src/schema/users.rs).
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[schemars(transform = prefixed_keys, extend("required" = ["name"]))]
pub struct User {
    /// Login name (required), such as alice. `--alice` removes the inherited
    /// user alice.
    pub name: String,
    /// Numeric user id (0 to 4294967294); pw allocates one when absent.
    #[schemars(with = "Ref<Uid>")]
    pub uid: Option<Ref<Uid>>,
    /// GECOS comment, usually the full name.
    #[schemars(with = "String")]
    pub comment: Option<String>,
    /// Absolute path of the login shell, such as /usr/local/bin/bash.
    #[schemars(with = "String")]
    pub shell: Option<String>,
    /// Primary group; a group named like the user when absent.
    #[schemars(with = "String")]
    pub primary_group: Option<String>,
    /// Supplementary groups, such as [wheel, operator]. Replaced, not
    /// appended, by a level that sets them.
    #[schemars(with = "Ref<Vec<String>>")]
    pub groups: Option<Ref<Vec<String>>>,
    /// SSH public keys: inline keys or names of key files. The domain keys
    /// are added in front of them.
    #[schemars(with = "Ref<Vec<String>>")]
    pub ssh_keys: Option<Ref<Vec<String>>>,
    /// Present (the default) or absent.
    #[schemars(with = "Ref<UserState>")]
    pub state: Option<Ref<UserState>>,
}

/// A uid.
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(inline)]
pub struct Uid(#[schemars(range(min = 0, max = 4_294_967_294u32))] pub u32);

/// The `network` mapping: interfaces, default routers and name servers.
// Its keys are the rows of the NETWORK table (src/schema/network.rs).
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[schemars(transform = prefixed_keys)]
pub struct Network {
    /// Interfaces by name (vtnet0, em0), each with ipv4 and/or ipv6.
    #[schemars(with = "Ref<BTreeMap<String, Interface>>")]
    pub interfaces: Option<Ref<BTreeMap<String, Interface>>>,
    /// IPv4 address of the default router, such as 192.0.2.1.
    #[schemars(with = "String")]
    pub defaultrouter: Option<String>,
    /// IPv6 address of the default router, such as 2001:db8::1.
    #[schemars(with = "String")]
    pub ipv6_defaultrouter: Option<String>,
    /// Name server addresses for resolv.conf, IPv4 or IPv6, each once.
    #[schemars(with = "Ref<Vec<String>>")]
    pub nameservers: Option<Ref<Vec<String>>>,
}

/// One interface: `ipv4`, `ipv6` or both.
// Its keys are the rows of the INTERFACE table (src/schema/network.rs).
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[schemars(transform = prefixed_keys, extend("minProperties" = 1))]
pub struct Interface {
    /// dhcp, or an address with its prefix length, such as 192.0.2.10/24.
    #[schemars(with = "String")]
    pub ipv4: Option<String>,
    /// slaac, or an address with its prefix length, such as 2001:db8::10/64.
    #[schemars(with = "String")]
    pub ipv6: Option<String>,
}

/// The `sshd` mapping: settings written at the top of sshd_config.
// Its keys are the rows of the SSHD table (src/schema/services.rs).
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[schemars(transform = prefixed_keys)]
pub struct Sshd {
    /// PermitRootLogin: no (the default), yes, prohibit-password or
    /// forced-commands-only.
    #[schemars(with = "PermitRootLogin")]
    pub permit_root_login: Option<PermitRootLogin>,
    /// PasswordAuthentication: false (the default) or true; yes/no also work.
    #[schemars(with = "YesNo")]
    pub password_authentication: Option<YesNo>,
    /// KbdInteractiveAuthentication (PAM passwords): false (the default) or
    /// true; yes/no also work.
    #[schemars(with = "YesNo")]
    pub kbd_interactive_authentication: Option<YesNo>,
}

/// A PermitRootLogin value.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
#[schemars(inline)]
pub enum PermitRootLogin {
    /// One of sshd's words.
    Word(RootLogin),
    /// true for yes, false for no.
    Bool(bool),
    /// A whole reference.
    Reference(Reference),
}

/// sshd's PermitRootLogin words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum RootLogin {
    /// Root may not log in (the default).
    No,
    /// Root may log in with any method.
    Yes,
    /// Root may log in with a key, not a password.
    ProhibitPassword,
    /// Root may log in with a key that has a forced command only.
    ForcedCommandsOnly,
}

/// A yes/no setting.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
#[schemars(inline)]
pub enum YesNo {
    /// A boolean.
    Bool(bool),
    /// The words sshd_config uses.
    Word(YesNoWord),
    /// A whole reference.
    Reference(Reference),
}

/// sshd_config's yes and no.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum YesNoWord {
    /// Yes, the same as true.
    Yes,
    /// No, the same as false.
    No,
}

/// A `merge:` table: path pattern → merge spec. A pattern is a dotted path
/// (`freebsd.users.*.groups`, with `"…"` around segments holding `.`, `*` or
/// `"`), or a regex starting with `^`.
pub type MergeTable = BTreeMap<String, MergeSpec>;

/// A merge spec: a strategy name, `{merge: SPEC}` (Hiera's lookup_options
/// form) or `{strategy: NAME, …options}`. docs/merge.md §3.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum MergeSpec {
    /// A strategy with its default options.
    Name(Strategy),
    /// Hiera's lookup_options form.
    Hiera(HieraSpec),
    /// A strategy and its options.
    Options(SpecOptions),
}

/// `{merge: SPEC}`, as in Hiera's lookup_options.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HieraSpec {
    /// The spec.
    pub merge: Box<MergeSpec>,
}

/// A merge strategy (docs/merge.md §4).
// The names of src/merge/spec.rs, aliases included.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Strategy {
    /// Beryl's: mappings merge recursively; anything else is replaced by the higher level.
    Default,
    /// Hiera `first`: the highest-priority value wins whole, whatever its type.
    First,
    /// An alias of `first`.
    Replace,
    /// Hiera `unique`: lists flattened with the scalars into one list, without duplicates.
    Unique,
    /// Hiera `hash`: a shallow merge, the higher level winning each key whole.
    Hash,
    /// Hiera `deep` (the deep_merge gem): recursive, lists unioned lowest first.
    Deep,
    /// Beryl: lists concatenated, later duplicates dropped, `--x` knockouts.
    Append,
    /// Lists concatenated, duplicates kept.
    Concat,
    /// Lists of mappings merged by a key field (`name` by default).
    ByKey,
    /// RFC 7396 JSON merge patch, one level at a time.
    Patch,
}

/// A strategy and the options it takes.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "strategy", rename_all = "snake_case", deny_unknown_fields)]
pub enum SpecOptions {
    /// Beryl's default strategy.
    Default {},
    /// Hiera `first`.
    First {},
    /// An alias of `first`.
    Replace {},
    /// Hiera `unique`.
    Unique {
        /// Sort the merged list.
        #[serde(default)]
        #[schemars(with = "bool")]
        sort_merged_arrays: Option<bool>,
    },
    /// Hiera `hash`.
    Hash {},
    /// Hiera `deep`.
    Deep {
        /// An item `PREFIXx` removes `x` (null: no knockouts, the default for deep).
        #[serde(default)]
        #[schemars(with = "Knockout")]
        knockout_prefix: Option<Knockout>,
        /// Merge lists whose elements are all mappings element by element.
        #[serde(default)]
        #[schemars(with = "bool")]
        merge_hash_arrays: Option<bool>,
        /// Sort merged lists.
        #[serde(default)]
        #[schemars(with = "bool")]
        sort_merged_arrays: Option<bool>,
    },
    /// Beryl's append.
    Append {
        /// An item `PREFIXx` removes `x` (`--` by default; null: no knockouts).
        #[serde(default)]
        #[schemars(with = "Knockout")]
        knockout_prefix: Option<Knockout>,
    },
    /// Lists concatenated.
    Concat {},
    /// Lists of mappings merged by a key field.
    ByKey {
        /// An item whose key is `PREFIXx` removes the item `x` (`--` by
        /// default; null: no knockouts).
        #[serde(default)]
        #[schemars(with = "Knockout")]
        knockout_prefix: Option<Knockout>,
        /// The field that identifies an item (default `name`).
        #[serde(default)]
        #[schemars(with = "String", length(min = 1))]
        key: Option<String>,
    },
    /// RFC 7396.
    Patch {},
}

/// A knockout prefix, or null for no knockouts.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
#[schemars(inline)]
pub enum Knockout {
    /// The prefix, such as `--`.
    Prefix(#[schemars(length(min = 1))] String),
    /// No knockouts.
    Off(()),
}

/// A key that no level file may hold at this place.
fn refused(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "not": {} })
}

/// Every key of a merged mapping may carry the `~` (replace) or `=`
/// (constant) prefix: each property gets a pattern property `^[~=]KEY$` with
/// the same schema, so that `~disks:` is checked like `disks:` while editors
/// complete only the plain key. The root `merge` table takes no prefix.
fn prefixed_keys(schema: &mut Schema) {
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return;
    };
    let mut patterns = serde_json::Map::new();
    for (key, sub) in props {
        let sub = if key == "merge" || key == "classes" {
            json_schema!({ "not": {} }).to_value()
        } else {
            sub.clone()
        };
        patterns.insert(format!("^[~=]{}$", regex::escape(key)), sub);
    }
    schema.insert("patternProperties".into(), Value::Object(patterns));
}

/// The levels `beryl schema --level` knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// Any level file (`ssh_keys` allowed, not required).
    Any,
    /// One level of the chain.
    Of(LevelKind),
}

/// The JSON Schema (2020-12) of a level file.
pub fn level_schema(level: Level) -> Value {
    let generator = schemars::generate::SchemaSettings::draft2020_12()
        .with_transform(schemars::transform::RecursiveTransform(tidy))
        .into_generator();
    let (mut schema, title, what) = match level {
        Level::Any => (
            generator.into_root_schema_for::<LevelFile<AnyKeys>>(),
            "beryl level file",
            "A level file of a beryl inventory: _default.yml, a domain's _domain.yml, a group's _group.yml or a host file.",
        ),
        Level::Of(LevelKind::Domain) => (
            generator.into_root_schema_for::<LevelFile<DomainKeys>>(),
            "beryl _domain.yml",
            "Level 2 of a beryl inventory: a domain's _domain.yml, for every host of the domain. Its root `ssh_keys` are the domain keys.",
        ),
        Level::Of(kind) => (
            generator.into_root_schema_for::<LevelFile<OtherKeys>>(),
            match kind {
                LevelKind::Default => "beryl _default.yml",
                LevelKind::Group => "beryl _group.yml",
                _ => "beryl host file",
            },
            match kind {
                LevelKind::Default => {
                    "Level 1 of a beryl inventory: _default.yml, the base of every host."
                }
                LevelKind::Group => {
                    "Level 3 of a beryl inventory: a group's _group.yml, for every host of the group."
                }
                _ => {
                    "Level 4 of a beryl inventory: a host file, DOMAIN/[GROUP/]SHORT.yml, for the host SHORT.DOMAIN."
                }
            },
        ),
    };
    schema.insert("title".into(), title.into());
    schema.insert(
        "description".into(),
        format!(
            "{what} Generated by beryl {}; docs/inventory.md.",
            env!("CARGO_PKG_VERSION")
        )
        .into(),
    );
    // `=ssh_keys` and `~ssh_keys` are the domain keys too.
    if let Some(required) = schema.remove("required") {
        let forms: Vec<Value> = required
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(|key| {
                let any: Vec<Value> = ["", "~", "="]
                    .iter()
                    .map(|p| serde_json::json!({ "required": [format!("{p}{key}")] }))
                    .collect();
                serde_json::json!({ "anyOf": any })
            })
            .collect();
        if !forms.is_empty() {
            schema.insert("allOf".into(), forms.into());
        }
    }
    // The keys that say what the schema is, first.
    let mut ordered = serde_json::Map::new();
    let Value::Object(mut rest) = schema.to_value() else {
        unreachable!("a root schema is an object")
    };
    for key in ["$schema", "title", "description"] {
        if let Some(v) = rest.remove(key) {
            ordered.insert(key.into(), v);
        }
    }
    ordered.extend(rest);
    Value::Object(ordered)
}

/// Tidies every subschema: no `default` (serde's defaults of these types are
/// placeholders for absent keys, not values beryl assumes), no schemars
/// formats that JSON Schema does not define (`uint32`, `int64`, `double`:
/// the ranges say it), and doc comments unwrapped into one line per
/// paragraph, as editors show them.
fn tidy(schema: &mut Schema) {
    schema.remove("default");
    if schema
        .get("format")
        .and_then(Value::as_str)
        .is_some_and(|f| matches!(f, "uint32" | "uint64" | "int64" | "double"))
    {
        schema.remove("format");
    }
    if let Some(Value::String(text)) = schema.get_mut("description") {
        *text = text
            .split("\n\n")
            .map(|p| p.split('\n').map(str::trim).collect::<Vec<_>>().join(" "))
            .collect::<Vec<_>>()
            .join("\n\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema;

    fn any() -> Value {
        level_schema(Level::Any)
    }

    /// The object schema named `name` in `$defs`.
    fn def<'a>(schema: &'a Value, name: &str) -> &'a Value {
        &schema["$defs"][name]
    }

    fn keys(object: &Value) -> Vec<&str> {
        object["properties"]
            .as_object()
            .unwrap_or_else(|| panic!("no properties in {object}"))
            .keys()
            .map(String::as_str)
            .collect()
    }

    /// The input type's keys are the table's, in the same order, and each
    /// description starts with the table's one-line doc (capitalised).
    fn same_as_table(object: &Value, table: &[(&str, &str)], what: &str) {
        let table_keys: Vec<&str> = table.iter().map(|(key, _)| *key).collect();
        assert_eq!(keys(object), table_keys, "the keys of {what}");
        for (key, doc) in table {
            let description = object["properties"][key]["description"]
                .as_str()
                .unwrap_or_else(|| panic!("{what}.{key} has no description"));
            let mut capitalised = doc.to_string();
            capitalised[..1].make_ascii_uppercase();
            assert!(
                description.starts_with(doc) || description.starts_with(&capitalised),
                "{what}.{key}: the description {description:?} does not start with the table's doc {doc:?}",
            );
        }
    }

    #[test]
    fn the_input_types_have_the_keys_of_the_validation_tables() {
        let s = any();
        same_as_table(def(&s, "FreeBsd"), &schema::freebsd_keys(), "freebsd");
        same_as_table(def(&s, "User"), &schema::user_keys(), "a user");
        same_as_table(
            def(&s, "Network"),
            &schema::network_keys(),
            "freebsd.network",
        );
        same_as_table(
            def(&s, "Interface"),
            &schema::interface_keys(),
            "an interface",
        );
        same_as_table(def(&s, "Sshd"), &schema::sshd_keys(), "freebsd.sshd");
    }

    /// The `const`s of an enum's `oneOf`, or its `enum` values.
    fn words(schema: &Value) -> Vec<&str> {
        match schema.get("oneOf") {
            Some(alts) => alts
                .as_array()
                .unwrap()
                .iter()
                .map(|a| a["const"].as_str().unwrap())
                .collect(),
            None => schema["enum"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap())
                .collect(),
        }
    }

    #[test]
    fn the_enums_have_the_words_of_validation() {
        let s = any();
        assert_eq!(words(def(&s, "Strategy")), crate::merge::spec::names());
        assert_eq!(
            words(def(&s, "RootLogin")),
            crate::freebsd::names::PERMIT_ROOT_LOGIN
        );
        let raid: Vec<&str> = Raid::ALL.iter().map(|r| r.name()).collect();
        let mut schema_raid = words(def(&s, "Raid"));
        schema_raid.sort_unstable();
        let mut raid_sorted = raid.clone();
        raid_sorted.sort_unstable();
        assert_eq!(schema_raid, raid_sorted);
        for word in words(def(&s, "Install")) {
            assert!(crate::freebsd::names::install(word).is_ok(), "{word}");
        }
        for word in words(def(&s, "UserState")) {
            assert!(crate::freebsd::names::user_state(word).is_ok(), "{word}");
        }
        for word in words(def(&s, "YesNoWord")) {
            assert!(crate::freebsd::names::yes_no(word).is_ok(), "{word}");
        }
    }

    /// Each strategy's spec mapping allows exactly the options that
    /// src/merge/spec.rs lets it take.
    #[test]
    fn each_strategy_takes_the_options_of_the_merge_engine() {
        use crate::merge::spec::{Kind, Spec};
        use crate::value::{Node, Span, Value as V};
        let s = any();
        let variants = def(&s, "SpecOptions")["oneOf"].as_array().unwrap();
        assert_eq!(variants.len(), crate::merge::spec::names().len());
        let all = [
            "knockout_prefix",
            "merge_hash_arrays",
            "sort_merged_arrays",
            "key",
        ];
        for variant in variants {
            let name = variant["properties"]["strategy"]["const"].as_str().unwrap();
            let kind = Kind::from_name(name).unwrap_or_else(|| panic!("{name}"));
            let allowed: Vec<&str> = keys(variant)
                .into_iter()
                .filter(|k| *k != "strategy")
                .collect();
            for option in all {
                let value = match option {
                    "knockout_prefix" => V::Str("##".into()),
                    "key" => V::Str("id".into()),
                    _ => V::Bool(true),
                };
                let taken = Spec::of(kind)
                    .set(option, &Span::synthetic(), &Node::synthetic(value))
                    .is_ok();
                assert_eq!(
                    allowed.contains(&option),
                    taken,
                    "{name} and {option}: the schema and the engine disagree"
                );
            }
        }
    }

    #[test]
    fn prefixed_keys_mirror_the_plain_ones() {
        let s = any();
        let freebsd = def(&s, "FreeBsd");
        for key in keys(freebsd) {
            let pattern = format!("^[~=]{}$", regex::escape(key));
            assert_eq!(
                freebsd["patternProperties"][&pattern], freebsd["properties"][key],
                "{pattern}"
            );
        }
        assert_eq!(
            s["patternProperties"]["^[~=]merge$"],
            serde_json::json!({ "not": {} })
        );
    }

    #[test]
    fn the_levels_differ_only_in_their_root_keys() {
        let domain = level_schema(Level::Of(LevelKind::Domain));
        let host = level_schema(Level::Of(LevelKind::Host));
        assert_eq!(domain["$defs"], host["$defs"]);
        assert_eq!(domain["properties"]["ssh_keys"]["minItems"], 1);
        assert_eq!(host["properties"]["ssh_keys"]["not"], serde_json::json!({}));
        assert!(domain["allOf"].is_array(), "the domain keys are required");
        assert!(host.get("allOf").is_none());
        assert_eq!(host["additionalProperties"], true, "free-form keys");
        for level in [LevelKind::Default, LevelKind::Group, LevelKind::Host] {
            let s = level_schema(Level::Of(level));
            assert_eq!(s["properties"], host["properties"]);
        }
        // No null, no default, no schemars-only format anywhere.
        let text = serde_json::to_string(&any()).unwrap();
        assert!(!text.contains("\"default\":"), "a default");
        assert!(!text.contains("uint32"), "a format");
        assert!(!text.contains("\n"), "a wrapped description");
    }

    /// Every keyword the schema uses, walking its subschemas.
    fn keywords(schema: &Value, out: &mut std::collections::BTreeSet<String>) {
        let Some(map) = schema.as_object() else {
            return;
        };
        for (key, value) in map {
            out.insert(key.clone());
            match key.as_str() {
                "properties" | "patternProperties" | "$defs" => {
                    for sub in value.as_object().into_iter().flatten().map(|(_, v)| v) {
                        keywords(sub, out);
                    }
                }
                "anyOf" | "oneOf" | "allOf" => {
                    for sub in value.as_array().into_iter().flatten() {
                        keywords(sub, out);
                    }
                }
                "additionalProperties" | "items" | "not" => keywords(value, out),
                _ => {}
            }
        }
    }

    /// The schema says 2020-12, but uses only keywords that mean the same in
    /// draft 7, so that editors whose yaml-language-server only knows draft 7
    /// (1.x releases) understand all of it. (`$defs` is only a place: `$ref`
    /// reaches it by JSON pointer in both.)
    #[test]
    fn the_schema_uses_only_keywords_draft_7_shares() {
        const SHARED: &[&str] = &[
            "$schema",
            "title",
            "description",
            "type",
            "properties",
            "patternProperties",
            "additionalProperties",
            "required",
            "minProperties",
            "items",
            "minItems",
            "$defs",
            "$ref",
            "anyOf",
            "oneOf",
            "allOf",
            "not",
            "const",
            "enum",
            "pattern",
            "minLength",
            "minimum",
            "maximum",
        ];
        for level in [
            Level::Any,
            Level::Of(LevelKind::Default),
            Level::Of(LevelKind::Domain),
            Level::Of(LevelKind::Group),
            Level::Of(LevelKind::Host),
        ] {
            let mut used = std::collections::BTreeSet::new();
            keywords(&level_schema(level), &mut used);
            let extra: Vec<&String> = used
                .iter()
                .filter(|k| !SHARED.contains(&k.as_str()))
                .collect();
            assert!(extra.is_empty(), "{level:?} uses {extra:?}");
        }
    }
}
