//! Rules about a level's root keys, checked once per file as it is loaded.

use super::LevelKind;
use crate::diag::{Diag, Diags};
use crate::syntax::prefix;
use crate::syntax::root;
use crate::value::{Node, Span, Value};

crate::diag::codes! {
    /// The codes of a level's root keys.
    pub(crate) enum Code in "level" {
        /// A root key one typo away from a key beryl reads: free-form data, which beryl names the key it would have read.
        Typo = "typo", warning;
        /// A root `parameters:`, reclass's keyword: a reclass file in beryl's layout.
        PeerKeyword = "peer_keyword";
        /// A level sets `_beryl_`, which beryl computes.
        BerylKey = "beryl_key";
        /// A `~` or `=` prefix on `classes:`.
        ClassesPrefix = "beryl::classes::prefix";
        /// A root `ssh_keys` in a level other than `_domain.yml`.
        KeysMisplaced = "beryl::keys::misplaced";
        /// A domain without keys: `_domain.yml` has no root `ssh_keys`, or an empty or non-list one.
        NoDomainKeys = "beryl::keys::no_domain_keys";
        /// A root keyword of a peer (reclass's `applications`) that beryl's layout reads as free-form data.
        PeerData = "peer_data", warning;
    }
}

/// The root keys beryl gives a meaning to. Any other root key is free-form
/// data, unless it is so close to one of these that it is surely a typo.
pub(crate) use crate::syntax::root::RESERVED;

/// What a peer's root keyword is in beryl's layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Refused: the file is surely the peer's, and beryl's layout would
    /// misread all of it.
    Refused,
    /// Free-form data, with a warning that says what the peer reads it as.
    Warned,
    /// Free-form data like any other key, without a word: real inventories
    /// write it as data.
    Data,
}

/// Root keywords of the systems beryl is built from (reclass's entity keys,
/// reclass/datatypes/entity.py `Entity`; Hiera's `lookup_options` is
/// beryl's own, `RESERVED`), each with what beryl's layout makes of it and
/// the help that says so (issue 35: only what means something structural
/// stays an error; a reclass inventory is read by `beryl reclass`, or by
/// any command on a reclass root).
pub(crate) const PEER_KEYWORDS: &[(&str, Verdict, &str)] = &[
    (
        "parameters",
        Verdict::Refused,
        "this is a reclass file: a reclass inventory is read as it is by `beryl reclass` and by every \
         command on its root (docs/reclass.md); in beryl's layout a level's data sits at its root, \
         beside `classes:` (docs/classes.md)",
    ),
    (
        "applications",
        Verdict::Warned,
        "reclass reads a root `applications` as the node's application list; in beryl's layout it is \
         free-form data, kept as written (a reclass inventory: `beryl reclass`, docs/reclass.md)",
    ),
    (
        "environment",
        Verdict::Data,
        "reclass reads a node's root `environment` as its environment; real inventories write \
         `environment` as data too, which it is in beryl's layout",
    ),
];

/// The reserved key a root key is most likely a typo of: one edit away (a
/// swap of two neighbours counts as one), or two from a reserved key longer
/// than five characters when the first letter is right (`class`, `clases`
/// for `classes`; `ports` stays free-form data).
pub(crate) fn typo_of(key: &str) -> Option<&'static str> {
    if RESERVED.contains(&key) {
        return None;
    }
    let near = |d: usize, r: &str| {
        d <= 1 || (d == 2 && r.len() > 5 && key.chars().next() == r.chars().next())
    };
    // Every root key of every file comes here, and nearly all are free-form
    // data. An edit changes the length by one character at most, so a key
    // whose length differs by more than 2 is never near: the distance (an
    // allocation and a hash map in strsim) is computed only for the rest.
    let chars = key.chars().count();
    RESERVED
        .iter()
        .filter(|r| r.chars().count().abs_diff(chars) <= 2)
        .map(|r| (strsim::damerau_levenshtein(key, r), *r))
        .filter(|(d, r)| near(*d, r))
        .min_by_key(|(d, _)| *d)
        .map(|(_, r)| r)
}

/// Checks the root of one level (or class) file: `_beryl_` is never set by
/// hand, `ssh_keys` lives in `_domain.yml` only, where it is a non-empty
/// list, and no root key is a peer's keyword that [`PEER_KEYWORDS`] refuses.
/// Near-misses of beryl's keys are data: [`warnings`].
pub(crate) fn check(kind: LevelKind, node: &Node) -> Result<(), Diags> {
    let mut errors = Vec::new();
    let Some(root) = node.as_map() else {
        return Ok(());
    };
    for (raw, entry) in root {
        // `~_beryl_` or `=ssh_keys` are the same keys once merged.
        let key = prefix::split(raw).0;
        if let Some((_, _, help)) = peer(key, Verdict::Refused) {
            errors.push(
                Diag::new(
                    Code::PeerKeyword,
                    format!("`{key}` at the root of a level: a reclass file in beryl's layout"),
                )
                .label(&entry.key_span, "reclass's keyword, not beryl's")
                .help(help.to_string()),
            );
        } else if key == "_beryl_" {
            errors.push(
                Diag::new(
                    Code::BerylKey,
                    "`_beryl_` is computed by beryl; no level may set it",
                )
                .label(&entry.key_span, "remove this key")
                .help("`_beryl_` holds the host's fqdn, short name, domain, group and files"),
            );
        } else if key == root::CLASSES && raw != key {
            errors.push(
                Diag::new(
                    Code::ClassesPrefix,
                    format!("`{raw}`: the class list takes no `~` or `=` prefix"),
                )
                .label(&entry.key_span, "write `classes:`")
                .help("each level's classes are merged before it; a class cannot be removed by a higher level"),
            );
        } else if key == "ssh_keys" && kind != LevelKind::Domain {
            errors.push(
                Diag::new(
                    Code::KeysMisplaced,
                    format!(
                        "a root `ssh_keys` belongs in _domain.yml, not in a {} file",
                        kind.name()
                    ),
                )
                .label(
                    &entry.key_span,
                    "domain keys are set here only in _domain.yml",
                )
                .help("give a user its own keys under freebsd.users.*.ssh_keys"),
            );
        }
    }
    if kind == LevelKind::Domain
        && let Some(e) = domain_keys(node, prefix::get(root, root::SSH_KEYS).map(|e| &e.node))
    {
        errors.push(e);
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// The row of [`PEER_KEYWORDS`] for `key`, when its verdict is `verdict`.
fn peer(key: &str, verdict: Verdict) -> Option<&'static (&'static str, Verdict, &'static str)> {
    PEER_KEYWORDS
        .iter()
        .find(|(k, v, _)| *k == key && *v == verdict)
}

/// The warnings of one level (or class) file's root keys, which are data:
/// a near-miss of a key beryl reads names that key (`classes_` is data; did
/// you mean `classes`?), and a peer's keyword that beryl's layout reads as
/// data says what the peer reads it as. `check --deny-warnings` refuses
/// them.
pub(crate) fn warnings(node: &Node) -> Diags {
    let mut out = Vec::new();
    let Some(root) = node.as_map() else {
        return out;
    };
    for (raw, entry) in root {
        let key = prefix::split(raw).0;
        if let Some(meant) = typo_of(key) {
            out.push(
                Diag::warning(
                    Code::Typo,
                    format!("root key `{key}` is free-form data; did you mean `{meant}`?"),
                )
                .label(&entry.key_span, format!("data, not `{meant}`"))
                .help(format!(
                    "beryl reads `{meant}` at the root of a level, and any other root key as \
                     free-form data, kept as written; rename this key if you meant `{meant}`"
                )),
            );
        } else if let Some((_, _, help)) = peer(key, Verdict::Warned) {
            out.push(
                Diag::warning(
                    Code::PeerData,
                    format!("root key `{key}` is free-form data in beryl's layout"),
                )
                .label(&entry.key_span, "data, not reclass's keyword")
                .help(help.to_string()),
            );
        }
    }
    out
}

fn domain_keys(file: &Node, keys: Option<&Node>) -> Option<Diag> {
    let help = "list at least one public key (inline, or the name of a file in the ssh dir); every user of the domain's hosts receives these keys";
    match keys {
        None => {
            let span = file
                .span
                .source
                .as_ref()
                .map(Span::file)
                .unwrap_or_default();
            let name = span.file_name().unwrap_or("_domain.yml").to_string();
            Some(
                Diag::new(Code::NoDomainKeys, format!("{name} has no root `ssh_keys`"))
                    .label(&span, "the domain keys are missing")
                    .help(help),
            )
        }
        Some(n) => match &n.value {
            Value::Seq(items) if !items.is_empty() => None,
            Value::Seq(_) => Some(
                Diag::new(Code::NoDomainKeys, "the domain's `ssh_keys` is empty")
                    .label(&n.span, "at least one key is needed")
                    .help(help),
            ),
            other => Some(
                Diag::new(
                    Code::NoDomainKeys,
                    format!(
                        "the domain's `ssh_keys` must be a list, found {}",
                        other.type_name()
                    ),
                )
                .label(&n.span, "expected a list of keys")
                .help(help),
            ),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::typo_of;

    /// One verdict per row of the table (issue 35): `parameters` refused,
    /// `applications` and a near-miss data with a warning, `environment`
    /// data without a word.
    #[test]
    fn peer_keywords_and_near_misses_by_their_verdict() {
        use crate::inventory::LevelKind;
        let node = |text: &str| {
            crate::yaml::parse_any(
                &crate::value::Source::new("h.yml", text),
                &Default::default(),
            )
            .unwrap()
        };
        let codes = |d: &crate::diag::Diags| d.iter().map(|d| d.code).collect::<Vec<_>>();
        let refused = super::check(LevelKind::Host, &node("parameters: {a: 1}\n")).unwrap_err();
        assert_eq!(codes(&refused), ["beryl::level::peer_keyword"]);
        let data = node("environment: prod\napplications: [x]\nclasses_: [a]\n");
        assert!(super::check(LevelKind::Host, &data).is_ok());
        assert_eq!(
            codes(&super::warnings(&data)),
            ["beryl::level::peer_data", "beryl::level::typo"]
        );
    }

    #[test]
    fn typos_of_reserved_keys_and_free_form_keys() {
        for (typo, meant) in [
            ("freebds", "freebsd"),
            ("freebsdd", "freebsd"),
            ("merg", "merge"),
            ("class", "classes"),
            ("clases", "classes"),
            ("ssh_key", "ssh_keys"),
            ("export", "exports"),
            ("shh", "ssh"),
            ("sshd", "ssh"),
        ] {
            assert_eq!(typo_of(typo), Some(meant), "{typo}");
        }
        // Free-form keys of the example and test inventories stay free.
        for free in [
            "freebsd",
            "merge",
            "site",
            "monitoring",
            "postgres",
            "haproxy",
            "motd",
            "sysctl",
            "backup",
            "nginx",
            "roles",
            "zfs",
            "users",
            "packages",
            "keys",
            "ssh_config",
            "ports",
            "reports",
        ] {
            assert_eq!(typo_of(free), None, "{free}");
        }
    }

    /// The length filter changes no answer: the same as the distance to
    /// every reserved key, on keys of every length around them.
    #[test]
    fn the_length_filter_keeps_every_answer() {
        let full = |key: &str| {
            let near = |d: usize, r: &str| {
                d <= 1 || (d == 2 && r.len() > 5 && key.chars().next() == r.chars().next())
            };
            super::RESERVED
                .iter()
                .map(|r| (strsim::damerau_levenshtein(key, r), *r))
                .filter(|(d, r)| near(*d, r))
                .min_by_key(|(d, _)| *d)
                .map(|(_, r)| r)
        };
        for r in super::RESERVED {
            let chars: Vec<char> = r.chars().collect();
            for cut in 0..=chars.len() {
                for extra in ["", "x", "xy", "xyz", "é", "éé"] {
                    let key: String = chars[..cut].iter().collect::<String>() + extra;
                    if super::RESERVED.contains(&key.as_str()) {
                        continue;
                    }
                    assert_eq!(typo_of(&key), full(&key), "{key}");
                }
            }
        }
    }
}
