//! The root keys of a level file that beryl gives a meaning to. Any other
//! root key is free-form data (src/inventory/levels.rs warns about one that
//! is surely a typo of these).

/// The host's FreeBSD configuration, validated by src/schema/.
pub(crate) const FREEBSD: &str = "freebsd";
/// A level's merge table (src/merge/policy.rs).
pub(crate) const MERGE: &str = "merge";
/// A level's merge table in Hiera's spelling: root keys (or `^regex`) to
/// Hiera merge specs (src/merge/tables.rs).
pub(crate) const LOOKUP_OPTIONS: &str = "lookup_options";
/// A level's class list (src/classes/).
pub(crate) const CLASSES: &str = "classes";
/// A level's exports (src/exports/).
pub(crate) const EXPORTS: &str = "exports";
/// The domain's SSH keys, in `_domain.yml` only (src/keys/).
pub(crate) const SSH_KEYS: &str = "ssh_keys";
/// How apply reaches the host.
pub(crate) const SSH: &str = "ssh";
/// What beryl computes for a host (fqdn, names, files, exports); never
/// written by hand.
pub(crate) const BERYL: &str = "_beryl_";

/// Every reserved root key, in the order diagnostics list them.
pub(crate) const RESERVED: &[&str] = &[
    FREEBSD,
    MERGE,
    LOOKUP_OPTIONS,
    CLASSES,
    EXPORTS,
    SSH_KEYS,
    SSH,
    BERYL,
];
