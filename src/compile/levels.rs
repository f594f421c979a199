//! Rules about a level's root keys, checked once per file as it is loaded.

use crate::diag::{Diag, Diags};
use crate::inventory::LevelKind;
use crate::value::{Node, Span, Value};

/// Checks the root of one level (or class) file: `_beryl_` is never set by
/// hand, and `ssh_keys` lives in `_domain.yml` only, where it is a non-empty
/// list.
pub(crate) fn check(kind: LevelKind, node: &Node) -> Result<(), Diags> {
    let mut errors = Vec::new();
    let Some(root) = node.as_map() else {
        return Ok(());
    };
    for (raw, entry) in root {
        // `~_beryl_` or `=ssh_keys` are the same keys once merged.
        let key = crate::merge::keys::split(raw).0;
        if key == "_beryl_" {
            errors.push(
                Diag::new(
                    "beryl::level::beryl_key",
                    "`_beryl_` is computed by beryl; no level may set it",
                )
                .label(&entry.key_span, "remove this key")
                .help("`_beryl_` holds the host's fqdn, short name, domain, group and files"),
            );
        } else if key == crate::classes::KEY && raw != key {
            errors.push(
                Diag::new(
                    "beryl::classes::prefix",
                    format!("`{raw}`: the class list takes no `~` or `=` prefix"),
                )
                .label(&entry.key_span, "write `classes:`")
                .help("each level's classes are merged before it; a class cannot be removed by a higher level"),
            );
        } else if key == "ssh_keys" && kind != LevelKind::Domain {
            errors.push(
                Diag::new(
                    "beryl::keys::misplaced",
                    format!(
                        "a root `ssh_keys` belongs in _domain.yml, not in a {} file",
                        kind.name()
                    ),
                )
                .label(
                    &entry.key_span,
                    "domain keys are set here only in _domain.yml",
                )
                .help("give a user its own keys under freebsd.users[].ssh_keys"),
            );
        }
    }
    if kind == LevelKind::Domain
        && let Some(e) = domain_keys(
            node,
            crate::merge::keys::get(root, "ssh_keys").map(|e| &e.node),
        )
    {
        errors.push(e);
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
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
                Diag::new(
                    "beryl::keys::no_domain_keys",
                    format!("{name} has no root `ssh_keys`"),
                )
                .label(&span, "the domain keys are missing")
                .help(help),
            )
        }
        Some(n) => match &n.value {
            Value::Seq(items) if !items.is_empty() => None,
            Value::Seq(_) => Some(
                Diag::new(
                    "beryl::keys::no_domain_keys",
                    "the domain's `ssh_keys` is empty",
                )
                .label(&n.span, "at least one key is needed")
                .help(help),
            ),
            other => Some(
                Diag::new(
                    "beryl::keys::no_domain_keys",
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
